"""End-to-end: TrackEvent rules of Perfetto's trace processor found on its
track_event diff tests (traces written here as text)."""
import shutil
import unittest

import weft_e2e as e

THREAD = """
packet {
  trusted_packet_sequence_id: 1
  incremental_state_cleared: true
  track_descriptor { uuid: 1 thread { pid: 1 tid: 1 } }
}
"""


def event(ts, body):
    return ('packet { trusted_packet_sequence_id: 1 timestamp: %d '
            'track_event { track_uuid: 1 categories: "c" %s } }\n' % (ts, body))

# process_track_name renames the tracks of a process (named, or named by
# their first event), its counters and its process-scoped (local_id)
# legacy async tracks; not thread, global or global-id async tracks.
PROCESS_TRACK_NAMES = """
packet {
  translation_table {
    process_track_name {
      raw_to_deobfuscated_name { key: "raw_named" value: "named" }
      raw_to_deobfuscated_name { key: "raw_event" value: "from_event" }
      raw_to_deobfuscated_name { key: "raw_counter" value: "counter" }
      raw_to_deobfuscated_name { key: "raw_local" value: "local" }
      raw_to_deobfuscated_name { key: "raw_global" value: "global" }
      raw_to_deobfuscated_name { key: "raw_thread_child" value: "not_a_process_track" }
      raw_to_deobfuscated_name { key: "raw_top" value: "not_a_process_track" }
    }
  }
}
packet { trusted_packet_sequence_id: 1 incremental_state_cleared: true track_descriptor { uuid: 1 process { pid: 10 process_name: "p" } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 5 thread { pid: 10 tid: 11 } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 2 name: "raw_named" parent_uuid: 1 } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 3 parent_uuid: 1 } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 4 name: "raw_counter" parent_uuid: 1 counter { } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 6 name: "raw_thread_child" parent_uuid: 5 } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 7 name: "raw_top" } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { track_uuid: 4 type: 4 counter_value: 1 } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { track_uuid: 2 name: "raw_event" type: 3 } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { track_uuid: 3 name: "raw_event" type: 3 } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { track_uuid: 6 name: "x" type: 3 } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { track_uuid: 7 name: "x" type: 3 } }
packet { trusted_packet_sequence_id: 1 timestamp: 200 track_event { track_uuid: 5 categories: "c" name: "raw_local" legacy_event { phase: 98 local_id: 1 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 200 track_event { track_uuid: 5 categories: "c" name: "raw_global" legacy_event { phase: 98 global_id: 2 } } }
"""


PASSTHROUGH = ("select s.ts, s.name, (select t.tid from thread t where t.utid = "
               "extract_arg(s.arg_set_id, 'legacy_event.passthrough_utid')) as tid "
               "from slice s order by ts")
PASSTHROUGH_AND_TRACK = ("select s.ts, s.name, (select t.tid from thread t where t.utid = "
                         "extract_arg(s.arg_set_id, 'legacy_event.passthrough_utid')) as ptid, "
                         "(select th.tid from thread_track tt join thread th using (utid) "
                         "where tt.id = s.track_id) as track_tid from slice s order by ts")


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class ProtoTrackEventRulesTest(e.TempDirTest):
    def trace(self, text):
        return e.textproto_trace(self.dir, 'trace.pb', text)

    def test_legacy_complete_event_of_negative_duration_is_dropped_before_its_track(self):
        trace = self.trace(
            'packet { trusted_packet_sequence_id: 2 incremental_state_cleared: true '
            'thread_descriptor { pid: 5 tid: 7 } }\n'
            'packet { trusted_packet_sequence_id: 2 timestamp: 1000 track_event { name: "neg" '
            'legacy_event { phase: 88 duration_us: -5 } '
            'debug_annotations { name: "a" int_value: 1 } } }\n' + THREAD
            + event(2000, 'name: "pos" legacy_event { phase: 88 duration_us: 5 }'))
        self.assertEqual(e.query('select name, ts, dur from slice', trace),
                         '"name","ts","dur"\n"pos",2000,5000\n')
        self.assertEqual(e.query("select count(*) from thread_track t join thread using(utid) "
                                 "where tid = 7", trace), '"count(*)"\n0\n')
        self.assertEqual(e.query("select count(*) from args where key = 'debug.a'", trace),
                         '"count(*)"\n0\n')
        self.assertEqual(e.query("select value from stats where name = "
                                 "'track_event_parser_errors'", trace), '"value"\n1\n')

    def test_a_named_end_ends_its_slice_and_cuts_those_above(self):
        # an end naming A ends A, below two open slices; the next event on
        # the track cuts B and C at A's end (misplaced_end_event); an end
        # naming nothing open ends nothing; one naming no slice, the top
        path = self.trace(THREAD + event(10, 'type: 1 name: "A"') +
                          event(20, 'type: 1 name: "B"') + event(30, 'type: 1 name: "C"') +
                          event(40, 'type: 2 name: "A"') + event(50, 'type: 2 name: "Z"') +
                          event(60, 'type: 1 name: "D"') + event(70, 'type: 2'))
        self.assertEqual(e.query('select ts, dur, name, depth from slice order by ts', path),
                         '"ts","dur","name","depth"\n10,30,"A",0\n20,20,"B",1\n'
                         '30,10,"C",2\n60,10,"D",0\n')
        self.assertEqual(e.query("select value from stats where name = 'misplaced_end_event'",
                                 path), '"value"\n1\n')

    def test_complete_event_ending_after_its_parent_is_dropped(self):
        trace = self.trace(THREAD
                           + event(1000, 'name: "outer" legacy_event { phase: 88 duration_us: 10 }')
                           + event(3000, 'name: "inner" legacy_event { phase: 88 duration_us: 2 }')
                           + event(4000, 'name: "spill" legacy_event { phase: 88 duration_us: 10 }')
                           + event(6000, 'name: "fits" legacy_event { phase: 88 duration_us: 5 }')
                           + event(11000, 'name: "after" type: 1')
                           + event(12000, 'type: 2'))
        out = e.query('select name, ts, dur, depth from slice order by ts', trace)
        self.assertEqual(out, '"name","ts","dur","depth"\n'
                         '"outer",1000,10000,0\n"inner",3000,2000,1\n'
                         '"fits",6000,5000,1\n"after",11000,1000,0\n')
        out = e.query("select value from stats "
                      "where name = 'slice_drop_overlapping_complete_event'", trace)
        self.assertEqual(out, '"value"\n1\n')
        # logged at its time with the overlap: from its start to the end of
        # the slice it would leave ("inner", the would-be parent)
        out = e.query("select l.ts, l.name, a.key, a.display_value from _trace_import_logs l "
                      "join args a using (arg_set_id) order by a.id", trace)
        self.assertEqual(out.splitlines()[1:], [
            '4000,"slice_drop_overlapping_complete_event","%s","%s"' % kv for kv in (
                ('overlap_start', '4000'), ('overlap_end', '5000'),
                ('conflicting_slice_name', 'inner'), ('conflicting_slice_ts', '3000'),
                ('conflicting_slice_dur', '2000'))])

    def test_process_track_names_are_translated(self):
        trace = self.trace(PROCESS_TRACK_NAMES)
        out = e.query('select name, type from track where name is not null order by name',
                      trace)
        self.assertEqual(out, '"name","type"\n'
                         '"counter","process_counter_track_event"\n'
                         '"from_event","process_merged_track_event"\n'
                         '"local","legacy_async_process_slice"\n'
                         '"named","process_merged_track_event"\n'
                         '"raw_global","legacy_async_global_slice"\n'
                         '"raw_thread_child","thread_merged_track_event"\n'
                         '"raw_top","global_merged_track_event"\n')

    def test_async_event_interns_the_track_it_names_first(self):
        # the thread track (from the sequence defaults) is created before
        # the async track the 'b' event moves to; an event naming no
        # track creates only its async track
        trace = self.trace(
            'packet { trusted_packet_sequence_id: 1 incremental_state_cleared: true '
            'track_descriptor { uuid: 1 thread { pid: 10 tid: 11 } } '
            'trace_packet_defaults { track_event_defaults { track_uuid: 1 } } }\n'
            'packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 9 parent_uuid: 7 } }\n'
            'packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 7 process { pid: 10 } } }\n'
            + event(200, 'name: "a" legacy_event { phase: 98 local_id: 3 }').replace(
                'track_uuid: 1 ', '')
            + event(300, 'name: "b" legacy_event { phase: 98 global_id: 4 }').replace(
                'track_uuid: 1', 'track_uuid: 9')
            + event(400, 'name: "t" type: 3'))
        out = e.query('select id, name, type from track order by id', trace)
        self.assertEqual(out, '"id","name","type"\n'
                         '0,"[NULL]","thread_execution"\n'
                         '1,"a","legacy_async_process_slice"\n'
                         '2,"[NULL]","process_track_event"\n'
                         '3,"b","process_merged_track_event"\n'
                         '4,"b","legacy_async_global_slice"\n')

    def test_v1_flow_event_without_unscoped_id_is_dropped_before_its_track(self):
        # 's' without an id, 'f' with a global_id and a typed 't' without an
        # id are invalid: counted, and their thread track is never created;
        # a valid 't' is kept
        trace = self.trace(THREAD
                           + event(200, 'name: "n" legacy_event { phase: 115 }')
                           + event(300, 'name: "n" legacy_event { phase: 102 global_id: 5 }')
                           + event(400, 'name: "n" type: 3 legacy_event { phase: 116 }'))
        out = e.query("select (select count(*) from track) as tracks, name, value from stats "
                      "where name in ('flow_invalid_id', 'track_event_parser_errors') "
                      "order by name", trace)
        self.assertEqual(out, '"tracks","name","value"\n0,"flow_invalid_id",3\n'
                         '0,"track_event_parser_errors",3\n')
        trace = self.trace(THREAD + event(200, 'name: "n" legacy_event { phase: 116 '
                                               'unscoped_id: 5 }'))
        out = e.query("select (select count(*) from track) as tracks, name, value from stats "
                      "where name = 'flow_no_enclosing_slice'", trace)
        self.assertEqual(out, '"tracks","name","value"\n1,"flow_no_enclosing_slice",1\n')

    def test_performance_mark_hashes_are_translated(self):
        # known hashes get their names beside them; an unknown one none
        trace = self.trace(
            'packet { translation_table { chrome_performance_mark { '
            'site_hash_to_name { key: 10 value: "site1" } '
            'mark_hash_to_name { key: 20 value: "mark2" } } } }\n' + THREAD
            + event(100, 'name: "m" type: 3 [perfetto.protos.ChromeTrackEvent.'
                         'chrome_hashed_performance_mark] { site_hash: 10 mark_hash: 21 }')
            + event(200, 'name: "m" type: 3 [perfetto.protos.ChromeTrackEvent.'
                         'chrome_hashed_performance_mark] { site_hash: 11 mark_hash: 20 }'))
        out = e.query("select s.ts, a.key, a.display_value from slice s join args a "
                      "using (arg_set_id) where a.key glob 'chrome_hashed*' "
                      "order by s.ts, a.key", trace)
        self.assertEqual(out, '"ts","key","display_value"\n'
                         '100,"chrome_hashed_performance_mark.mark_hash","21"\n'
                         '100,"chrome_hashed_performance_mark.site","site1"\n'
                         '100,"chrome_hashed_performance_mark.site_hash","10"\n'
                         '200,"chrome_hashed_performance_mark.mark","mark2"\n'
                         '200,"chrome_hashed_performance_mark.mark_hash","20"\n'
                         '200,"chrome_hashed_performance_mark.site_hash","11"\n')

    def test_a_sequences_thread_is_the_last_one_its_generation_describes(self):
        # A thread's TrackDescriptor or a ThreadDescriptor sets the sequence's
        # thread for every packet of the generation, even those before it; a
        # generation begun by clearing the incremental state keeps the last.
        p = self.trace('''packet { timestamp: 1000 trusted_packet_sequence_id: 4 incremental_state_cleared: true track_descriptor { uuid: 20 process { pid: 5 process_name: "p2" } } }
packet { timestamp: 1100 trusted_packet_sequence_id: 4 track_event { type: TYPE_INSTANT track_uuid: 20 categories: "cat" name: "before_same_gen" } }
packet { timestamp: 1200 trusted_packet_sequence_id: 4 track_descriptor { uuid: 21 thread { pid: 5 tid: 6 thread_name: "t6" } } }
packet { timestamp: 1400 trusted_packet_sequence_id: 4 incremental_state_cleared: true }
packet { timestamp: 1500 trusted_packet_sequence_id: 4 track_event { type: TYPE_INSTANT track_uuid: 20 categories: "cat" name: "next_gen" } }
packet { timestamp: 1600 trusted_packet_sequence_id: 4 trace_packet_defaults { timestamp_clock_id: 6 } }
packet { timestamp: 1700 trusted_packet_sequence_id: 4 track_event { type: TYPE_INSTANT track_uuid: 20 categories: "cat" name: "after_defaults" } }
packet { timestamp: 1800 trusted_packet_sequence_id: 4 track_descriptor { uuid: 23 thread { pid: 5 tid: 7 } } }
packet { timestamp: 1900 trusted_packet_sequence_id: 4 track_event { type: TYPE_INSTANT track_uuid: 20 categories: "cat" name: "after_t7" } }''')
        self.assertEqual(e.query(PASSTHROUGH, p),
                         '"ts","name","tid"\n1100,"before_same_gen",6\n1500,"next_gen",7\n'
                         '1700,"after_defaults",7\n1900,"after_t7",7\n')
        p = self.trace('''packet { timestamp: 1000 trusted_packet_sequence_id: 2 incremental_state_cleared: true thread_descriptor { pid: 10 tid: 11 } }
packet { timestamp: 1100 trusted_packet_sequence_id: 2 track_event { type: TYPE_SLICE_BEGIN categories: "cat" name: "a" } }
packet { timestamp: 1200 trusted_packet_sequence_id: 2 track_event { type: TYPE_SLICE_END } }
packet { timestamp: 1300 trusted_packet_sequence_id: 2 incremental_state_cleared: true }
packet { timestamp: 1400 trusted_packet_sequence_id: 2 track_event { type: TYPE_INSTANT categories: "cat" name: "b" } }
packet { timestamp: 1500 trusted_packet_sequence_id: 2 thread_descriptor { pid: 10 tid: 12 } }
packet { timestamp: 1450 trusted_packet_sequence_id: 2 track_event { legacy_event { phase: 73 } categories: "cat" name: "c" } }
packet { timestamp: 1600 trusted_packet_sequence_id: 3 thread_descriptor { tid: 13 } }
packet { timestamp: 1700 trusted_packet_sequence_id: 3 track_event { type: TYPE_INSTANT categories: "cat" name: "d" } }''')
        self.assertEqual(e.query("select s.ts, s.name, t.name as track, th.tid from slice s "
                                 "join track t on s.track_id = t.id left join thread_track tt "
                                 "on tt.id = t.id left join thread th using (utid) "
                                 "order by s.ts", p),
                         '"ts","name","track","tid"\n1100,"a","[NULL]",11\n'
                         '1400,"b","[NULL]",12\n1450,"c","[NULL]",12\n'
                         '1700,"d","Default Track","[NULL]"\n')
        # the ThreadDescriptor of a sequence without incremental state is logged
        self.assertEqual(e.query("select l.byte_offset, l.name, a.key, a.int_value "
                                 "from _trace_import_logs l join args a using (arg_set_id)", p),
                         '"byte_offset","name","key","int_value"\n'
                         '119,"thread_descriptor_skipped_incremental_state_invalid",'
                         '"packet_sequence_id",3\n')
        p = self.trace('''packet { timestamp: 1000 trusted_packet_sequence_id: 4 incremental_state_cleared: true track_descriptor { uuid: 20 process { pid: 5 process_name: "p2" } } }
packet { timestamp: 1200 trusted_packet_sequence_id: 4 track_descriptor { uuid: 21 thread { pid: 5 tid: 6 thread_name: "t6" } } }
packet { timestamp: 1400 trusted_packet_sequence_id: 4 incremental_state_cleared: true }
packet { timestamp: 1500 trusted_packet_sequence_id: 4 track_event { type: TYPE_INSTANT track_uuid: 20 categories: "cat" name: "next_gen" } }
packet { timestamp: 1600 trusted_packet_sequence_id: 4 track_event { type: TYPE_INSTANT categories: "cat" name: "no_track" } }
packet { timestamp: 2000 trusted_packet_sequence_id: 5 incremental_state_cleared: true thread_descriptor { pid: 5 tid: 8 } }
packet { timestamp: 2100 trusted_packet_sequence_id: 5 incremental_state_cleared: true }
packet { timestamp: 2200 trusted_packet_sequence_id: 5 track_event { type: TYPE_INSTANT track_uuid: 20 categories: "cat" name: "seq5_next_gen" } }
packet { timestamp: 2300 trusted_packet_sequence_id: 5 track_event { type: TYPE_INSTANT categories: "cat" name: "seq5_no_track" } }''')
        self.assertEqual(e.query(PASSTHROUGH_AND_TRACK, p),
                         '"ts","name","ptid","track_tid"\n1500,"next_gen",6,"[NULL]"\n'
                         '1600,"no_track","[NULL]",6\n2200,"seq5_next_gen",8,"[NULL]"\n'
                         '2300,"seq5_no_track","[NULL]",8\n')

    def test_a_state_event_without_a_state_track_makes_no_track(self):
        # on a track that is not a state track, or with track uuid 0 (the
        # legacy pid override would give a thread's), it is an error
        p = self.trace('''
packet { timestamp: 0 trusted_packet_sequence_id: 1 incremental_state_cleared: true track_descriptor { uuid: 101 name: "Regular Track" } }
packet { timestamp: 10 trusted_packet_sequence_id: 1 track_descriptor { uuid: 0 state { } } }
packet { timestamp: 1000 trusted_packet_sequence_id: 1 track_event { type: TYPE_STATE track_uuid: 101 categories: "cat" name: "High" } }
packet { timestamp: 1100 trusted_packet_sequence_id: 1 track_event { legacy_event { pid_override: 10 } type: TYPE_STATE track_uuid: 0 } }
''')
        self.assertEqual(e.query("select (select count(*) from track) as tracks, value from stats "
                                 "where name = 'track_event_parser_errors'", p),
                         '"tracks","value"\n0,2\n')


if __name__ == '__main__':
    e.main()
