"""End-to-end: the tracks and args of atrace async slices and counters
(print events and systrace text), as Perfetto makes them."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

DPU_TRACING_MARK_WRITE = 348


def ftrace_bundle(*events):
    """A TracePacket holding the FtraceEvents of cpu 0."""
    return pb_packet(pb_bytes(1, pb_int(1, 0) + b''.join(events)))


def ftrace_event(ts, pid, number, payload):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) + pb_bytes(number, payload))


def ftrace_print(ts, pid, buf):
    return ftrace_event(ts, pid, 3, pb_bytes(2, buf))


def dpu_mark(ts, pid, tgid, phase, name, value=0):
    """A dpu_tracing_mark_write: pid 1, name 4, type 5, value 6."""
    return ftrace_event(ts, pid, DPU_TRACING_MARK_WRITE,
                        pb_int(1, tgid) + pb_bytes(4, name) + pb_int(5, phase) + pb_int(6, value))

SLICES = ("select s.id, s.ts, s.dur, s.depth, s.track_id, s.name, "
          "(select group_concat(key || '=' || display_value || ':' || value_type) from args a "
          " where a.arg_set_id = s.arg_set_id) as args from slice s order by s.id")
TRACKS = ("select t.id, t.name, t.type, (select group_concat(key || '=' || display_value) "
          "from args a where a.arg_set_id = t.dimension_arg_set_id) as dims "
          "from track t order by t.id")

# S/F slices of cookies 1, then 2 and 3 overlapping; G/H slices of two
# cookies around an N instant.
COMPRESSED = (
    '# tracer: nop\n'
    '  app-10    ( 10) [000] ....  1.000001: tracing_mark_write: S|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000002: tracing_mark_write: F|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000003: tracing_mark_write: S|10|as|2\n'
    '  app-10    ( 10) [000] ....  1.000004: tracing_mark_write: S|10|as|3\n'
    '  app-10    ( 10) [000] ....  1.000005: tracing_mark_write: F|10|as|2\n'
    '  app-10    ( 10) [000] ....  1.000006: tracing_mark_write: F|10|as|3\n'
    '  app-10    ( 10) [000] ....  1.000007: tracing_mark_write: G|10|trk|a|1\n'
    '  app-10    ( 10) [000] ....  1.000008: tracing_mark_write: N|10|trk|inst\n'
    '  app-10    ( 10) [000] ....  1.000009: tracing_mark_write: G|10|trk|b|2\n'
    '  app-10    ( 10) [000] ....  1.000010: tracing_mark_write: H|10|trk|1\n'
    '  app-10    ( 10) [000] ....  1.000011: tracing_mark_write: H|10|trk|2\n'
)

# A repeated S of one cookie, an F of none, a G nested in a G of the same
# cookie (ended by another thread), a dangling H, an N and a counter.
UNNESTABLE = (
    '# tracer: nop\n'
    '  app-10    ( 10) [000] ....  1.000001: tracing_mark_write: S|10|as|1\n'
    '  app-11    ( 11) [000] ....  1.000002: tracing_mark_write: S|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000003: tracing_mark_write: F|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000004: tracing_mark_write: F|10|as|1\n'
    '  app-10    ( 10) [000] ....  1.000005: tracing_mark_write: F|10|zz|4\n'
    '  app-10    ( 10) [000] ....  1.000007: tracing_mark_write: G|10|trk|a|1\n'
    '  app-11    ( 11) [000] ....  1.000008: tracing_mark_write: G|10|trk|b|1\n'
    '  app-10    ( 10) [000] ....  1.000009: tracing_mark_write: H|10|trk|1\n'
    '  app-11    ( 11) [000] ....  1.000010: tracing_mark_write: H|10|trk|1\n'
    '  app-11    ( 11) [000] ....  1.000011: tracing_mark_write: H|10|trk|1\n'
    '  app-11    ( 11) [000] ....  1.000012: tracing_mark_write: N|10|trk|i2\n'
    '  app-11    ( 11) [000] ....  1.000013: tracing_mark_write: C|10|ctr|5\n'
)


class AtraceTracksTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_async_slices_share_compressed_tracks(self):
        p = e.write_temp(self.dir, 'trace.systrace', COMPRESSED)
        self.assertEqual(self.query(TRACKS, p), (
            '"id","name","type","dims"\n'
            '0,"as","atrace_async_slice","upid=1,name=as,track_compressor_idx=0"\n'
            '1,"as","atrace_async_slice","upid=1,name=as,track_compressor_idx=1"\n'
            '2,"trk","atrace_async_slice_for_track","upid=1,name=trk,track_compressor_idx=0"\n'
            '3,"trk","atrace_async_slice_for_track","upid=1,name=trk,track_compressor_idx=1"\n'
            '4,"trk","atrace_async_slice_for_track","upid=1,name=trk,track_compressor_idx=2"\n'))
        self.assertEqual(self.query(SLICES, p), (
            '"id","ts","dur","depth","track_id","name","args"\n'
            '0,1000000999,1001,0,0,"as","cookie=1:int,legacy_unnestable_begin_count=1:int,'
            'legacy_unnestable_last_begin_ts=1000000999:int"\n'
            '1,1000003000,2000,0,0,"as","cookie=2:int,legacy_unnestable_begin_count=2:int,'
            'legacy_unnestable_last_begin_ts=1000003000:int"\n'
            '2,1000003999,2001,0,1,"as","cookie=3:int,legacy_unnestable_begin_count=1:int,'
            'legacy_unnestable_last_begin_ts=1000003999:int"\n'
            '3,1000007000,3000,0,2,"a","utid=1:uint,end_utid=1:uint"\n'
            '4,1000008000,0,0,3,"inst","utid=1:uint"\n'
            '5,1000008999,2001,0,4,"b","utid=1:uint,end_utid=1:uint"\n'))

    def test_unnestable_begins_and_thread_args(self):
        p = e.write_temp(self.dir, 'trace.systrace', UNNESTABLE)
        self.assertEqual(self.query(SLICES, p), (
            '"id","ts","dur","depth","track_id","name","args"\n'
            '0,1000000999,2001,0,0,"as","cookie=1:int,legacy_unnestable_begin_count=2:int,'
            'legacy_unnestable_last_begin_ts=1000002000:int"\n'
            '1,1000007000,3000,0,2,"a","utid=1:uint,end_utid=2:uint"\n'
            '2,1000008000,999,1,2,"b","utid=2:uint,end_utid=1:uint"\n'
            '3,1000011999,0,0,3,"i2","utid=2:uint"\n'))
        self.assertEqual(self.query(TRACKS, p).splitlines()[-1],
                         '4,"ctr","atrace_counter","upid=1,name=ctr"')
        out = self.query("select ts, track_id, value, (select group_concat(key || '=' || "
                         "display_value) from args a where a.arg_set_id = c.arg_set_id) as args "
                         "from counter c", p)
        self.assertEqual(out, '"ts","track_id","value","args"\n1000013000,4,5.000000,"utid=2"\n')


# An atrace begin of task 470 (tgid 470) written for pid 13250 makes a
# second thread 470, in process 13250.
SHARED_TID = (
    '# tracer: nop\n'
    '  bash-470  (  470) [000] ....  1.000001: cpu_idle: state=1 cpu_id=0\n'
    '  bash-470  (  470) [000] ....  1.000003: tracing_mark_write: B|13250|work\n'
    '  baz-17    (   17) [001] d..2  1.000004: sched_switch: prev_comm=baz prev_pid=17 '
    'prev_prio=120 prev_state=S ==> next_comm=bash next_pid=470 next_prio=120\n'
    '  bash-470  (  470) [000] ....  1.000005: cpu_idle: state=2 cpu_id=0\n'
    '  qux-18    (   18) [000] d..2  1.000006: sched_switch: prev_comm=qux prev_pid=18 '
    'prev_prio=120 prev_state=S ==> next_comm=bash next_pid=470 next_prio=120\n'
)


class AtraceSharedTidTest(e.TempDirTest):
    def test_a_line_names_the_newest_thread_then_picks_its_tgids(self):
        # A line's task name goes to the thread its tid names before the
        # line's tgid is applied: the line at 1.000005 names the second
        # thread 470, then (470, tgid 470) picks the first one again, so the
        # switch at 1.000006 runs the first one (the one at 1.000004, the
        # second).
        p = e.write_temp(self.dir, 'trace.systrace', SHARED_TID)
        rc, out, err = e.run('-Q', 'select t.utid, t.name, p.pid from thread t join process p '
                             'using(upid) where t.tid = 470 order by t.utid; '
                             'select ts, utid from sched where utid in (1, 3) order by ts', p)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"utid","name","pid"\n1,"bash",470\n3,"bash",13250\n\n'
                         '"ts","utid"\n1000003999,3\n1000006000,1\n')


class AtraceProcessesTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_a_new_process_gets_its_main_thread(self):
        trace = ftrace_bundle(ftrace_print(1000, 515, 'G|237|trk|x|1'),
                              ftrace_print(1500, 515, 'N|237|trk|y'),
                              ftrace_print(2000, 515, 'H|237|trk|1'),
                              ftrace_print(3000, 516, 'C|238|c|1'),
                              ftrace_print(4000, 517, 'B|239|b'))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        self.assertEqual(self.query("select utid, tid, upid from thread", p),
                         '"utid","tid","upid"\n0,0,0\n1,515,"[NULL]"\n2,237,1\n'
                         '3,516,"[NULL]"\n4,238,2\n5,517,3\n6,239,3\n')

    def test_dpu_marks_trust_their_pid_for_counters_only(self):
        trace = ftrace_bundle(dpu_mark(1000, 515, 237, ord('B'), 'frame'),
                              dpu_mark(2000, 515, 237, ord('E'), ''),
                              dpu_mark(3000, 515, 237, ord('C'), 'vote', 5),
                              dpu_mark(4000, 515, 237, 0, 'bad'))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select s.ts, s.dur, s.name, thread.tid, thread.upid from slice s "
                         "join thread_track t on s.track_id = t.id join thread using(utid)", p)
        self.assertEqual(out, '"ts","dur","name","tid","upid"\n1000,1000,"frame",515,"[NULL]"\n')
        out = self.query("select p.pid, t.name, c.ts, c.value from counter c join "
                         "process_counter_track t on c.track_id = t.id join process p using(upid)", p)
        self.assertEqual(out, '"pid","name","ts","value"\n237,"vote",3000,5.000000\n')
        out = self.query("select value from stats where name = 'systrace_parse_failure'", p)
        self.assertEqual(out, '"value"\n1\n')


if __name__ == '__main__':
    e.main()
