"""End-to-end: Windows ETW file I/O events (TracePacket.etw_events) in proto
traces: operations matched by IRP into slices on per-thread etw_fileio
tracks, their args, and the events without a match."""
import shutil
import unittest

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

ETW_EVENTS = 95
CREATE, DIR_ENUM, INFO, READ_WRITE, SIMPLE_OP, OP_END, PATH_OP = 7, 8, 9, 10, 11, 12, 14


def event(ts, kind, body, cpu=1, tid=None):
    fields = pb_int(1, ts) + pb_int(4, cpu)
    if tid is not None:
        fields += pb_int(5, tid)
    return pb_bytes(2, fields + pb_bytes(kind, body))


def bundle(*events, cpu=None):
    body = (pb_int(1, cpu) if cpu is not None else b'') + b''.join(events)
    return pb_packet(pb_bytes(ETW_EVENTS, body))


def create(irp=None, path=None, ttid=None):
    body = pb_int(1, irp) if irp is not None else b''
    if ttid is not None:
        body += pb_int(3, ttid)
    return body + (pb_bytes(7, path) if path else b'')


def op_end(irp=None, extra=None, status=None):
    body = pb_int(1, irp) if irp is not None else b''
    if extra is not None:
        body += pb_int(2, extra)
    return body + (pb_int(3, status) if status is not None else b'')


SLICES = ("select s.ts, s.dur, s.track_id, s.name, (select group_concat(key || '=' || "
          "coalesce(string_value, int_value) || ':' || value_type, ' ; ') from args a "
          "where a.arg_set_id = s.arg_set_id) as args from slice s order by s.id")


class EtwTest(e.TempDirTest):
    def load(self, data, sql):
        p = e.write_temp(self.dir, 'etw.pb', data)
        return e.query(sql, p)

    def test_matched_operation_and_end_args(self):
        # The end's args join the start's; a key it shares takes its value.
        data = (bundle(event(100, CREATE, create(5, b'/a', ttid=77)))
                + bundle(event(150, OP_END, op_end(5, 1, 0xC0000034)))
                + bundle(event(200, INFO, pb_int(1, 6) + pb_int(4, 11) + pb_int(6, 4)
                               + pb_int(7, 69)))
                + bundle(event(210, OP_END, op_end(6, 22))))
        self.assertEqual(self.load(data, SLICES),
                         '"ts","dur","track_id","name","args"\n'
                         '100,50,0,"CreateFile","I/O Request Packet=5:pointer ; '
                         'Thread ID=77:uint ; Open Path=/a:string ; Extra Info=1:uint ; '
                         'NT Status=3221225524:pointer"\n'
                         '200,10,0,"SetInformation","I/O Request Packet=6:pointer ; '
                         'Extra Info=22:uint ; Info Class=FileBasicInformation:string"\n')

    def test_names_info_classes_and_unmatched_starts(self):
        # Opcodes name the operation (a generic name when unknown, none for
        # a gap in the table); info classes are named up to 81; operations
        # never ended end at their start with "Missing Event" = "End"; a
        # reused IRP ends the open operation first.
        so = pb_int(1, 20) + pb_int(2, 1) + pb_int(3, 2) + pb_int(4, 4)
        data = (bundle(event(300, SIMPLE_OP, so + pb_int(5, 99)))
                + bundle(event(301, SIMPLE_OP, pb_int(5, 78)))
                + bundle(event(310, DIR_ENUM, pb_int(1, 21) + pb_int(6, 200) + pb_int(7, 5)
                               + pb_bytes(8, b'dir') + pb_int(9, 72)))
                + bundle(event(320, PATH_OP, pb_int(1, 22) + pb_int(4, 3) + pb_int(6, 10)
                               + pb_bytes(7, b'x') + pb_int(8, 79)))
                + bundle(event(400, CREATE, create(30, b'/r')))
                + bundle(event(410, CREATE, create(30, b'/r')))
                + bundle(event(420, OP_END, op_end(30)))
                + bundle(event(500, INFO, pb_int(1, 40) + pb_int(4, 1234) + pb_int(6, 20))))
        self.assertEqual(
            self.load(data, SLICES),
            '"ts","dur","track_id","name","args"\n'
            '300,0,0,"SimpleOp","I/O Request Packet=20:pointer ; File Object=1:pointer ; '
            'File Key=2:pointer ; Thread ID=4:uint ; Missing Event=End:string"\n'
            '301,0,1,"[NULL]","[NULL]"\n'
            '310,0,2,"DirectoryEnumeration","I/O Request Packet=21:pointer ; '
            'Info Class=200:uint ; File Index=5:uint ; Enumeration Path=dir:string ; '
            'Missing Event=End:string"\n'
            '320,0,3,"DeletePath","I/O Request Packet=22:pointer ; Extra Info=3:uint ; '
            'Info Class=FileRenameInformation:string ; File Name=x:string ; '
            'Missing Event=End:string"\n'
            '400,0,4,"CreateFile","I/O Request Packet=30:pointer ; Open Path=/r:string ; '
            'Missing Event=End:string"\n'
            '410,10,4,"CreateFile","I/O Request Packet=30:pointer ; Open Path=/r:string"\n'
            '500,0,4,"Info","I/O Request Packet=40:pointer ; File Size=1234:uint ; '
            'Info Class=FileEndOfFileInformation:string ; Missing Event=End:string"\n')

    def test_events_without_match_and_track_compression(self):
        # Without an IRP: slices of dur 0 on scoped tracks (reused once
        # free); an end whose IRP is not open: "EndOperation" with
        # "Missing Event" = "Start". Open operations keep their own tracks.
        data = (bundle(event(700, CREATE, create(None, b'/p')))
                + bundle(event(700, OP_END, op_end(None, 4, 5)))
                + bundle(event(710, CREATE, create(1)))
                + bundle(event(720, OP_END, op_end(999, 7)))
                + bundle(event(730, OP_END, op_end(1))))
        out = self.load(data, SLICES + "; select t.id, t.type, (select group_concat(key || "
                        "'=' || int_value, ' ; ') from args a where a.arg_set_id = "
                        "t.dimension_arg_set_id) as dims from track t order by t.id")
        self.assertEqual(out,
                         '"ts","dur","track_id","name","args"\n'
                         '700,0,0,"CreateFile","Open Path=/p:string"\n'
                         '700,0,0,"EndOperation","Extra Info=4:uint ; NT Status=5:pointer"\n'
                         '710,20,1,"CreateFile","I/O Request Packet=1:pointer"\n'
                         '720,0,0,"EndOperation","Extra Info=7:uint ; '
                         'Missing Event=Start:string"\n'
                         '\n'
                         '"id","type","dims"\n'
                         '0,"etw_fileio","utid=0 ; track_compressor_idx=0"\n'
                         '1,"etw_fileio","utid=0 ; track_compressor_idx=1"\n')

    def test_threads_and_cpus(self):
        # The thread is the event's thread_id; an end ends the operation on
        # its own thread's track (so one ended from another thread stays
        # open there). The bundle's cpu stands in for the event's; events
        # with neither, or no timestamp, are dropped and counted.
        data = (bundle(event(100, CREATE, create(5), tid=42),
                       event(150, OP_END, op_end(5), tid=43))
                + bundle(pb_bytes(2, pb_int(1, 200) + pb_bytes(CREATE, create(6))), cpu=2)
                + bundle(pb_bytes(2, pb_int(1, 210) + pb_bytes(CREATE, create(7))))
                + bundle(pb_bytes(2, pb_int(4, 1) + pb_bytes(CREATE, create(8))))
                + bundle(event(300, CREATE, create(9), cpu=5000)))
        out = self.load(data, "select s.ts, s.dur, (select int_value from args a join track t "
                        "on a.arg_set_id = t.dimension_arg_set_id where t.id = s.track_id "
                        "and a.key = 'utid') as utid from slice s order by s.ts; "
                        "select utid, tid from thread order by utid; "
                        "select value from stats where name = 'etw_event_invalid'")
        self.assertEqual(out, '"ts","dur","utid"\n100,-1,1\n200,0,0\n\n'
                         '"utid","tid"\n0,0\n1,42\n2,43\n\n"value"\n3\n')


# MemInfo events in Perfetto's text format: counts absent from an event are
# 0; standby and repurposed counts are one counter per priority.
MEM_INFO = """
packet { etw_events { cpu: 0
  event { timestamp: 100 cpu: 0 thread_id: 4 mem_info {
    priority_levels: 2 zero_page_count: 5 free_page_count: 6 commit_page_count: 7
    standby_page_counts: 10 standby_page_counts: 11 repurposed_page_counts: 12 } }
  event { timestamp: 200 cpu: 0 thread_id: 4 mem_info { zero_page_count: 8 } }
} }
"""


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class EtwMemInfoTest(e.TempDirTest):
    def test_page_count_counters(self):
        trace = e.textproto_trace(self.dir, 'meminfo.pb', MEM_INFO)
        out = e.query("select t.name, t.type, t.unit, "
                      "extract_arg(t.dimension_arg_set_id, 'counter_type') as kind, "
                      "c.ts, c.value from counter c join counter_track t on c.track_id = t.id "
                      "where c.ts = 100 order by c.id", trace)
        self.assertEqual(
            out, '"name","type","unit","kind","ts","value"\n'
            '"Zero Page Count","etw_meminfo","pages","Zero",100,5.000000\n'
            '"Free Page Count","etw_meminfo","pages","Free",100,6.000000\n'
            '"Modified Page Count","etw_meminfo","pages","Modified",100,0.000000\n'
            '"ModifiedNoWrite Page Count","etw_meminfo","pages","ModifiedNoWrite",100,0.000000\n'
            '"Bad Page Count","etw_meminfo","pages","Bad",100,0.000000\n'
            '"ModifiedPageFile Page Count","etw_meminfo","pages","ModifiedPageFile",100,0.000000\n'
            '"PagedPool Page Count","etw_meminfo","pages","PagedPool",100,0.000000\n'
            '"NonPagedPool Page Count","etw_meminfo","pages","NonPagedPool",100,0.000000\n'
            '"Mdl Page Count","etw_meminfo","pages","Mdl",100,0.000000\n'
            '"Commit Page Count","etw_meminfo","pages","Commit",100,7.000000\n'
            '"Standby Pri-0 Page Count","etw_meminfo","pages","Standby Pri-0",100,10.000000\n'
            '"Standby Pri-1 Page Count","etw_meminfo","pages","Standby Pri-1",100,11.000000\n'
            '"Repurposed Pri-0 Page Count","etw_meminfo","pages","Repurposed Pri-0",100,12.000000\n')
        out = e.query("select count(*) as n, count(distinct track_id) as tracks, "
                      "sum(value) as total from counter where ts = 200", trace)
        self.assertEqual(out, '"n","tracks","total"\n10,10,8.000000\n')


if __name__ == '__main__':
    e.main()
