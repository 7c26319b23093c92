"""End-to-end: the track-event track model (proto_tracks), process trees,
extra counters and the trace config text."""
import os

import weft_e2e as e

DATA = os.path.join(e.ROOT, 'tests', 'data', 'proto_tracks')


class ProtoTracksTest(e.TempDirTest):
    def encode(self, name):
        return e.encode_textproto(os.path.join(DATA, name + '.textproto'),
                                  os.path.join(self.dir, name + '.pb'))

    def test_tid_and_pid_reuse_from_descriptors(self):
        trace = self.encode('tracks')
        out = e.query('select utid, tid, upid, name from thread order by utid', trace)
        self.assertEqual(out, '"utid","tid","upid","name"\n0,0,0,"swapper"\n'
                         '1,5,1,"[NULL]"\n2,1,1,"t1"\n3,1,1,"t1_again"\n4,5,2,"[NULL]"\n')
        out = e.query('select upid, pid, name from process order by upid', trace)
        self.assertEqual(out, '"upid","pid","name"\n0,0,"[NULL]"\n1,5,"p1"\n2,5,"p2"\n')

    def test_track_types_and_names(self):
        trace = self.encode('tracks')
        out = e.query('select s.name as ev, t.name, t.type from slice s '
                      'join track t on s.track_id = t.id order by s.ts', trace)
        # "renamed" comes after the first event of a mergeable track: ignored.
        self.assertEqual(out, '"ev","name","type"\n'
                         '"on_t1","[NULL]","thread_track_event"\n'
                         '"on_async","async","process_merged_track_event"\n'
                         '"on_t1_again","[NULL]","thread_execution"\n'
                         '"on_p2","[NULL]","process_track_event"\n'
                         '"unknown_uuid","unknown_uuid","global_merged_track_event"\n')

    def test_sibling_tracks_merged_by_name(self):
        trace = self.encode('merged')
        out = e.query('select s.name, s.dur, t.name, '
                      "extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') "
                      'as idx from slice s join track t on s.track_id = t.id '
                      'order by s.ts', trace)
        # b overlaps a: a second "X" row; i, c and a2 reuse the first row
        # once it is free, and c2 the second while a2 is open.
        self.assertEqual(out, '"name","dur","name","idx"\n'
                         '"a",100,"X",0\n"b",100,"X",1\n"i",0,"X",0\n'
                         '"c",100,"X",0\n"d",10,"Y",0\n"a2",30,"X",0\n'
                         '"c2",10,"X",1\n')
        out = e.query("select count(*) from track "
                      "where type = 'process_merged_track_event'", trace)
        self.assertEqual(out, '"count(*)"\n3\n')
        # the merge key's type is an int dimension
        out = e.query("select distinct a.value_type from track t join args a "
                      "on a.arg_set_id = t.dimension_arg_set_id "
                      "where a.key = 'merge_key_type'", trace)
        self.assertEqual(out, '"value_type"\n"int"\n')

    def test_source_args(self):
        trace = self.encode('tracks')
        out = e.query("select t.id, "
                      "extract_arg(t.source_arg_set_id, 'description') d, "
                      "extract_arg(t.source_arg_set_id, 'has_first_packet_on_sequence') f, "
                      "extract_arg(t.source_arg_set_id, 'sibling_order_rank') r, "
                      "extract_arg(t.source_arg_set_id, 'child_ordering') o, "
                      "extract_arg(t.source_arg_set_id, 'trace_id') u "
                      "from track t where t.id < 3 order by t.id", trace)
        self.assertEqual(out, '"id","d","f","r","o","u"\n'
                         '0,"first t",1,"[NULL]","[NULL]",1\n'
                         '1,"[NULL]",1,"[NULL]","explicit",10\n'
                         '2,"[NULL]",1,3,"[NULL]",11\n')

    def test_parent_loop_is_dropped_and_counted(self):
        trace = self.encode('tracks')
        out = e.query("select count(*) c from slice where name = 'in_loop'", trace)
        self.assertEqual(out, '"c"\n0\n')
        out = e.query("select value from stats "
                      "where name = 'track_event_track_hierarchy_loop'", trace)
        self.assertEqual(out, '"value"\n3\n')

    def test_extra_and_thread_time_counters(self):
        trace = self.encode('counters')
        out = e.query('select t.name, t.counter_unit, c.ts, c.value from counter c '
                      'join __intrinsic_track t on c.track_id = t.id order by c.ts, c.id', trace)
        self.assertEqual(out, '"name","counter_unit","ts","value"\n'
                         '"thread_time","ns",100,5000.000000\n'
                         '"thread_time","ns",200,12000.000000\n'
                         '"size","bytes",200,64.000000\n'
                         '"thread_time","[NULL]",300,9000.000000\n')

    def test_process_tree(self):
        trace = self.encode('process_tree')
        out = e.query("select p.pid, p.name, p.cmdline, pp.pid as ppid, p.uid, "
                      "p.android_appid, p.android_user_id, p.start_ts, "
                      "extract_arg(p.arg_set_id, 'is_kthread') k from process p "
                      "left join process pp on p.parent_upid = pp.upid "
                      "where p.pid > 1 order by p.pid", trace)
        self.assertEqual(out, '"pid","name","cmdline","ppid","uid","android_appid",'
                         '"android_user_id","start_ts","k"\n'
                         '2,"kthreadd","kthreadd",0,0,0,0,0,"[NULL]"\n'
                         '28,"kworker/1:0","kworker/1:0",2,0,0,0,"[NULL]",1\n'
                         '700,"/bin/app","/bin/app -v",1,1010123,10123,10,500,"[NULL]"\n'
                         '701,"child","child",700,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n')
        # is_kthread only where the tree gives it
        # every process the tree names (parents too) gets its main thread
        out = e.query('select tid, name, upid, is_main_thread from thread '
                      'where tid > 0', trace)
        self.assertEqual(out, '"tid","name","upid","is_main_thread"\n2,"[NULL]",1,1\n'
                         '28,"kworker/1:0",2,1\n1,"[NULL]",3,1\n700,"[NULL]",4,1\n'
                         '701,"[NULL]",5,1\n')

    def test_trace_config_text(self):
        trace = self.encode('process_tree')
        out = e.query("select str_value from metadata "
                      "where name = 'trace_config_pbtxt'", trace)
        self.assertEqual(out, '"str_value"\n"buffers {\n  size_kb: 64\n'
                         '  fill_policy: DISCARD\n}\nduration_ms: 1000\n'
                         'trace_uuid_lsb: -1"\n')


if __name__ == '__main__':
    e.main()
