"""End-to-end: TrackEvent parsing rules of Perfetto's trace processor —
legacy async events, their args and merged end args."""
import os
import shutil
import subprocess
import unittest

import weft_e2e as e

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DATA = os.path.join(ROOT, 'tests', 'data', 'proto_tracks')
ENCODE = os.path.join(ROOT, 'scripts', 'encode_textproto.sh')


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class ProtoTrackEventsTest(e.TempDirTest):
    def encode(self, name):
        out = os.path.join(self.dir, name + '.pb')
        subprocess.run(['sh', ENCODE, os.path.join(DATA, name + '.textproto'),
                        out], check=True)
        return out

    def query(self, trace, sql):
        rc, out, err = e.run('-Q', sql, trace)
        self.assertEqual(rc, 0, err)
        return out

    def test_legacy_async_slices_and_tracks(self):
        trace = self.encode('legacy_async')
        out = self.query(trace, 'select s.ts, s.dur, s.name, s.depth, t.name as track, '
                         't.type from slice s join track t on s.track_id = t.id '
                         'order by s.ts')
        # b/e nest by id whatever the thread; a busy id's set grows a track;
        # S/F are a slice, T an instant; the begin without an id is dropped.
        self.assertEqual(out, '"ts","dur","name","depth","track","type"\n'
                         '100,100,"request",0,"request","legacy_async_global_slice"\n'
                         '150,20,"read",1,"request","legacy_async_global_slice"\n'
                         '160,0,"mark",2,"request","legacy_async_global_slice"\n'
                         '180,40,"request",0,"request","legacy_async_global_slice"\n'
                         '300,40,"frame",0,"frame","legacy_async_process_slice"\n'
                         '320,0,"frame",1,"frame","legacy_async_process_slice"\n')
        out = self.query(trace, "select count(distinct track_id) from slice "
                         "where name in ('request', 'read')")
        self.assertEqual(out, '"count(distinct track_id)"\n2\n')
        out = self.query(trace, "select value from stats "
                         "where name = 'track_event_parser_errors'")
        self.assertEqual(out, '"value"\n1\n')

    def test_legacy_async_track_args(self):
        trace = self.encode('legacy_async')
        out = self.query(trace, "select a.key, a.display_value from track t join args a "
                         "on a.arg_set_id in (t.dimension_arg_set_id, t.source_arg_set_id) "
                         "where t.name = 'frame' order by a.id")
        self.assertEqual(out, '"key","display_value"\n"upid","1"\n"scope","gpu:swap"\n'
                         '"name","frame"\n"track_compressor_idx","0"\n'
                         '"source","chrome"\n"trace_id_is_process_scoped","true"\n'
                         '"upid","1"\n"source_scope","gpu:swap"\n')
        out = self.query(trace, "select a.display_value from track t join args a "
                         "on a.arg_set_id = t.dimension_arg_set_id "
                         "where t.name = 'request' and a.key = 'scope'")
        self.assertEqual(out, '"display_value"\n"net"\n"net"\n')

    def test_legacy_async_slice_args(self):
        trace = self.encode('legacy_async')
        out = self.query(trace, 'select s.ts, a.key, a.display_value from slice s '
                         'join args a using(arg_set_id) where s.ts in (100, 300, 320) '
                         'order by s.ts, a.id')
        # the end's args join the begin's; the begin's thread is kept
        self.assertEqual(out, '"ts","key","display_value"\n'
                         '100,"legacy_trace_source_id","7"\n100,"debug.url","a"\n'
                         '100,"legacy_event.passthrough_utid","2"\n'
                         '100,"debug.status","200"\n'
                         '300,"legacy_trace_source_id","3"\n'
                         '300,"legacy_event.passthrough_utid","2"\n'
                         '300,"legacy_event.phase","S"\n'
                         '320,"legacy_trace_source_id","3"\n'
                         '320,"legacy_event.passthrough_utid","2"\n'
                         '320,"legacy_event.phase","T"\n')

    def test_end_args_join_begin_args(self):
        trace = self.encode('merged_args')
        out = self.query(trace, 'select a.key, a.display_value, a.value_type from slice s '
                         'join args a using(arg_set_id) order by a.id')
        # a key the begin has takes the end's value in its place; an array
        # the begin has goes on after its elements; JSON values expand (null
        # adds nothing but an empty container takes an index; a bare number
        # at the top adds nothing; text after the value is ignored)
        self.assertEqual(out, '"key","display_value","value_type"\n'
                         '"debug.list[0]","1","int"\n"debug.list[1]","2","int"\n'
                         '"debug.cfg.mode","fast","string"\n'
                         '"debug.cfg.sizes[0]","4","int"\n"debug.cfg.sizes[2]","8","int"\n'
                         '"debug.cfg.on","true","bool"\n"debug.cfg.ratio","0.25","real"\n'
                         '"debug.n","2","int"\n"debug.list[2]","3","int"\n'
                         '"debug.cfg.sizes[3]","16","int"\n"debug.cfg.extra.k","v","string"\n'
                         '"debug.word","w\u00e9","string"\n')
        # the begin's own set is not left in the args table: the slice's 12
        # and the thread track's dimension (utid) only (besides the proto
        # content annotations of experimental_proto_path)
        out = self.query(trace, 'select count(*) from args where arg_set_id not in '
                         '(select arg_set_id from experimental_proto_path)')
        self.assertEqual(out, '"count(*)"\n13\n')

    def test_legacy_async_end_leaves_no_arg_set(self):
        trace = self.encode('legacy_async')
        out = self.query(trace, 'select count(*) from args where arg_set_id not in '
                         '(select arg_set_id from slice where arg_set_id is not null '
                         'union select dimension_arg_set_id from track '
                         'where dimension_arg_set_id is not null '
                         'union select source_arg_set_id from track '
                         'where source_arg_set_id is not null '
                         'union select arg_set_id from experimental_proto_path)')
        self.assertEqual(out, '"count(*)"\n0\n')

    def test_process_track_end_keeps_begin_thread(self):
        trace = self.encode('process_track_end')
        # the end comes from another thread: the slice keeps the begin's,
        # and the track's own dimension set is the only one of the track
        out = self.query(trace, 'select a.key, a.display_value from slice s '
                         'join args a using(arg_set_id)')
        self.assertEqual(out, '"key","display_value"\n'
                         '"legacy_event.passthrough_utid","2"\n')
        out = self.query(trace, "select count(*) from args where key = 'upid'")
        self.assertEqual(out, '"count(*)"\n1\n')

    def test_packets_needing_lost_incremental_state_are_skipped(self):
        trace = self.encode('incremental_state')
        out = self.query(trace, 'select ts, name from slice order by ts')
        self.assertEqual(out, '"ts","name"\n110,"unflagged_before_clear"\n'
                         '130,"needs_after_clear"\n150,"unflagged_after_loss"\n'
                         '160,"needs_cleared_again"\n170,"needs_and_cleared_at_once"\n')
        out = self.query(trace, "select value from stats where "
                         "name = 'packet_skipped_seq_needs_incremental_state_invalid'")
        self.assertEqual(out, '"value"\n2\n')

    def test_counters_of_threads(self):
        trace = self.encode('thread_counters')
        out = self.query(trace, 'select t.id, t.name, t.type, tc.utid, tc.unit from track t '
                         'left join thread_counter_track tc using(id) order by t.id')
        # descriptor counters under a thread's track are thread counter
        # tracks; the legacy thread time / instruction count get their own
        # types, interned before the event's own track
        self.assertEqual(out, '"id","name","type","utid","unit"\n'
                         '0,"[NULL]","thread_execution","[NULL]","[NULL]"\n'
                         '1,"thread_time","thread_counter_track_event",2,"ns"\n'
                         '2,"cycles","thread_counter_track_event",2,"[NULL]"\n'
                         '3,"thread_time","thread_time",4,"[NULL]"\n'
                         '4,"thread_instruction_count","thread_instructions",4,"[NULL]"\n'
                         '5,"[NULL]","thread_execution","[NULL]","[NULL]"\n')
        out = self.query(trace, 'select c.ts, t.name, c.value from counter c '
                         'join track t on c.track_id = t.id order by c.id')
        self.assertEqual(out, '"ts","name","value"\n100,"thread_time",5000.000000\n'
                         '100,"cycles",70.000000\n200,"thread_time",9000.000000\n'
                         '200,"thread_instruction_count",400.000000\n')

    def test_sort_index_hints_need_explicit_ordering(self):
        trace = self.encode('sort_hints')
        out = self.query(trace, "select pid, extract_arg(arg_set_id, 'process_sort_index_hint') "
                         "as h from process where pid > 0 union all select tid, "
                         "extract_arg(arg_set_id, 'thread_sort_index_hint') from thread "
                         "where tid = 101")
        # processes are ranked (PROCESS_ORDERING_EXPLICIT), threads are not
        self.assertEqual(out, '"pid","h"\n100,5\n300,8\n101,"[NULL]"\n')

    def test_state_tracks(self):
        trace = self.encode('state_tracks')
        out = self.query(trace, "select s.ts, s.dur, t.name, t.type, s.category, s.value, "
                         "extract_arg(s.arg_set_id, 'debug.why') as why, "
                         "extract_arg(s.arg_set_id, 'legacy_event.passthrough_utid') as utid "
                         "from state s join track t on s.track_id = t.id order by s.ts")
        # values last until the next (the last stays open: -1), keep their
        # category and args; a global track's events name the sequence's thread
        self.assertEqual(out, '"ts","dur","name","type","category","value","why","utid"\n'
                         '1000,2000,"Power","global_state_track_event","pm","on","[NULL]",2\n'
                         '3000,1000,"Power","global_state_track_event","pm","idle","timeout",2\n'
                         '4000,-1,"Power","global_state_track_event","[NULL]","off","[NULL]",2\n'
                         '4500,-1,"Mode","thread_state_track_event","[NULL]","fast","[NULL]",'
                         '"[NULL]"\n')
        out = self.query(trace, "select s.name, t.name as track, "
                         "extract_arg(s.arg_set_id, 'legacy_event.passthrough_utid') as utid "
                         "from slice s join track t on s.track_id = t.id")
        self.assertEqual(out, '"name","track","utid"\n"blip","Power",2\n')

    def test_legacy_instants_metadata_and_raw_events(self):
        trace = self.encode('legacy_phases')
        out = self.query(trace, "select s.ts, s.name, t.name as track, t.type, "
                         "extract_arg(s.arg_set_id, 'legacy_event.passthrough_utid') u "
                         "from slice s join track t on s.track_id = t.id order by s.ts")
        self.assertEqual(out, '"ts","name","track","type","u"\n'
                         '100,"gi","[NULL]","legacy_chrome_global_instants",2\n'
                         '110,"pi","[NULL]","chrome_process_instant",2\n'
                         '120,"from_iid","[NULL]","thread_execution","[NULL]"\n')
        out = self.query(trace, 'select t.tid, t.name, p.name as process from thread t '
                         'join process p using(upid) where t.tid = 6')
        self.assertEqual(out, '"tid","name","process"\n6,"worker","app"\n')
        out = self.query(trace, 'select r.ts, r.name, r.utid, a.key, a.display_value '
                         'from __intrinsic_chrome_raw r join args a using(arg_set_id) '
                         'order by a.id')
        self.assertEqual(out, '"ts","name","utid","key","display_value"\n'
                         '150,"track_event.legacy_event",2,"legacy_event.category","c"\n'
                         '150,"track_event.legacy_event",2,"legacy_event.name","odd"\n'
                         '150,"track_event.legacy_event",2,"legacy_event.phase","P"\n'
                         '150,"track_event.legacy_event",2,"legacy_event.duration_ns","3000"\n'
                         '150,"track_event.legacy_event",2,"legacy_event.unscoped_id","9"\n'
                         '150,"track_event.legacy_event",2,"debug.a","1"\n')

    def test_counter_args_correlation_ids_and_pid_override(self):
        trace = self.encode('event_args_misc')
        out = self.query(trace, 'select c.ts, a.key, a.display_value from counter c '
                         'join args a using(arg_set_id) order by a.id')
        self.assertEqual(out, '"ts","key","display_value"\n100,"debug.k","1"\n'
                         '100,"legacy_event.passthrough_utid","2"\n')
        out = self.query(trace, "select s.name, a.display_value from slice s join args a "
                         "using(arg_set_id) where a.key = 'correlation_id' order by s.ts")
        self.assertEqual(out, '"name","display_value"\n"a","tp:#5"\n"b","req-1"\n')
        # a pid_override's events go on a pseudo thread -1 of that process,
        # which gets its main thread too
        out = self.query(trace, 'select t.tid, p.pid from thread t join process p '
                         'using(upid) where p.pid = 9 order by t.utid')
        self.assertEqual(out, '"tid","pid"\n9,9\n-1,9\n')


    def test_thread_times_of_slices(self):
        trace = self.encode('thread_times')
        out = self.query(trace, 'select name, thread_ts, thread_dur, thread_instruction_count, '
                         'thread_instruction_delta from slice where track_id in '
                         '(select id from thread_track) order by ts')
        # begin/end from the incremental thread_time (x1000 ns) and
        # instruction counter tracks; an end's instruction count from a
        # counter track ends at 0 (Perfetto's answer); an instant has
        # thread_dur 0; an end without values leaves the durations NULL; a
        # legacy X takes thread_duration_us and thread_instruction_delta; the
        # event with more values than uuids is dropped
        self.assertEqual(out.splitlines()[1:], [
            '"A",5000,6000,100,-100', '"I",7000,0,150,0',
            '"NoTT","[NULL]","[NULL]","[NULL]","[NULL]"',
            '"Open",8000,"[NULL]",151,"[NULL]"',
            '"Unended",12000,"[NULL]","[NULL]","[NULL]"',
            '"X",7000,3000,70,9', '"LB",8000,2000,"[NULL]","[NULL]"'])
        out = self.query(trace, "select name, value from stats where name in "
                         "('track_event_extra_counter_track_uuid_mismatch', "
                         "'track_event_parser_errors') order by name")
        self.assertEqual(out.splitlines()[1:], [
            '"track_event_extra_counter_track_uuid_mismatch",1',
            '"track_event_parser_errors",6'])

    def test_legacy_phases_on_tracks_named_by_uuid(self):
        trace = self.encode('thread_times')
        out = self.query(trace, "select s.name, t.type, s.thread_ts, extract_arg(s.arg_set_id, "
                         "'legacy_event.passthrough_utid') as pt from slice s join track t "
                         "on t.id = s.track_id where s.ts >= 370 order by s.ts")
        # scoped instants move to their scope's track, passing the thread
        # of a thread track through (none from a process track); thread
        # scoped instants, B, E and X need a thread track (6 dropped)
        self.assertEqual(out.splitlines()[1:], [
            '"GI","legacy_chrome_global_instants","[NULL]",3',
            '"PI","chrome_process_instant","[NULL]",3',
            '"PI2","chrome_process_instant","[NULL]","[NULL]"',
            '"GI2","legacy_chrome_global_instants","[NULL]","[NULL]"'])


    def test_incremental_counters_sum_in_packet_order(self):
        trace = self.encode('incremental_order')
        # "late" (ts 150) comes after A's end (ts 200) in the file: it reads
        # 10 + 5 + 1; the counter at ts 20 comes after the one at ts 50
        out = self.query(trace, 'select name, thread_ts, thread_dur from slice order by ts')
        self.assertEqual(out.splitlines()[1:], ['"A",10000,5000', '"late",16000,0',
                                                '"B",18000,0'])
        out = self.query(trace, "select c.ts, c.value from counter c join track t "
                         "on t.id = c.track_id where t.name = 'inc' order by c.ts")
        self.assertEqual(out.splitlines()[1:], ['20,10.000000', '50,7.000000'])


if __name__ == '__main__':
    e.main()
