"""End-to-end: state tracks (TrackEvent TYPE_STATE, ConcurrentSessionEvent):
a repeated value continues its row, DISABLED closes a session's state."""
import shutil
import unittest

import weft_e2e as e

# session 1 repeats STARTED, is DISABLED, then starts again; session 2 is a
# clone renamed later (its track keeps its first name); an event without a
# state, or of a state weft does not know, is dropped and counted
SESSIONS = """
packet { timestamp: 1000 trusted_packet_sequence_id: 1 concurrent_session_event { state: STATE_STARTED session_id: 1 consumer_uid: 5 } }
packet { timestamp: 1500 trusted_packet_sequence_id: 1 concurrent_session_event { state: STATE_STARTED session_id: 1 consumer_uid: 5 } }
packet { timestamp: 2000 trusted_packet_sequence_id: 1 concurrent_session_event { state: STATE_CLONED_READ_ONLY session_id: 2 } }
packet { timestamp: 2500 trusted_packet_sequence_id: 1 concurrent_session_event { state: STATE_STARTED session_id: 2 session_name: "late_name" } }
packet { timestamp: 3000 trusted_packet_sequence_id: 1 concurrent_session_event { state: STATE_DISABLED session_id: 1 } }
packet { timestamp: 3500 trusted_packet_sequence_id: 1 concurrent_session_event { state: STATE_STARTED session_id: 1 } }
packet { timestamp: 4000 trusted_packet_sequence_id: 1 concurrent_session_event { session_id: 3 } }
packet { timestamp: 4500 trusted_packet_sequence_id: 1 concurrent_session_event { state: STATE_STARTED } }
"""

STATES = """
packet { trusted_packet_sequence_id: 1 incremental_state_cleared: true track_descriptor { uuid: 1 name: "S" state { } } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { track_uuid: 1 type: TYPE_STATE name: "A" categories: "x" debug_annotations { name: "k" int_value: 1 } debug_annotations { name: "j" int_value: 7 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 200 track_event { track_uuid: 1 type: TYPE_STATE name: "A" categories: "y" debug_annotations { name: "k" int_value: 2 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 300 track_event { track_uuid: 1 type: TYPE_STATE name: "B" } }
packet { trusted_packet_sequence_id: 1 timestamp: 400 track_event { track_uuid: 1 type: TYPE_STATE name: "B" categories: "z" } }
"""

# a state event without a name ends the open value (no row); an empty name
# is a value
UNNAMED = """
packet { trusted_packet_sequence_id: 1 incremental_state_cleared: true track_descriptor { uuid: 1 name: "S" state { } } }
packet { trusted_packet_sequence_id: 1 timestamp: 100 track_event { track_uuid: 1 type: TYPE_STATE name: "A" } }
packet { trusted_packet_sequence_id: 1 timestamp: 200 track_event { track_uuid: 1 type: TYPE_STATE } }
packet { trusted_packet_sequence_id: 1 timestamp: 300 track_event { track_uuid: 1 type: TYPE_STATE name: "" } }
packet { trusted_packet_sequence_id: 1 timestamp: 400 track_event { track_uuid: 1 type: TYPE_STATE name: "B" } }
"""


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class ProtoStateTracksTest(e.TempDirTest):
    def test_session_states(self):
        trace = e.textproto_trace(self.dir, 'sessions.pb', SESSIONS)
        out = e.query("select t.name, s.ts, s.dur, s.value, "
                      "extract_arg(s.arg_set_id, 'consumer_uid') as uid, "
                      "extract_arg(s.arg_set_id, 'num_data_sources') as n "
                      "from state s join track t on t.id = s.track_id order by t.id, s.ts", trace)
        self.assertEqual(out, '"name","ts","dur","value","uid","n"\n'
                         '"Session 1",1000,2000,"STARTED",5,0\n'
                         '"Session 1",3000,0,"DISABLED",0,0\n'
                         '"Session 1",3500,-1,"STARTED",0,0\n'
                         '"Session 2 (clone)",2000,500,"CLONED_READ_ONLY",0,0\n'
                         '"Session 2 (clone)",2500,-1,"STARTED",0,0\n'
                         '"Session 0",4500,-1,"STARTED",0,0\n')
        out = e.query("select value from stats "
                      "where name = 'concurrent_session_event_unknown_state'", trace)
        self.assertEqual(out, '"value"\n1\n')
        # each session's track has its id as the dimension session_id
        out = e.query("select t.name, extract_arg(t.dimension_arg_set_id, 'session_id') as id "
                      "from track t order by t.id", trace)
        self.assertEqual(out, '"name","id"\n"Session 1",1\n"Session 2 (clone)",2\n'
                         '"Session 0",0\n')

    def test_repeated_state_value_continues_its_row(self):
        trace = e.textproto_trace(self.dir, 'states.pb', STATES)
        out = e.query("select ts, dur, value, category, extract_arg(arg_set_id, 'debug.k') as k, "
                      "extract_arg(arg_set_id, 'debug.j') as j from state order by ts", trace)
        self.assertEqual(out, '"ts","dur","value","category","k","j"\n'
                         '100,200,"A","x",2,7\n300,-1,"B","[NULL]","[NULL]","[NULL]"\n')

    def test_state_without_value_ends_the_open_state(self):
        trace = e.textproto_trace(self.dir, 'unnamed.pb', UNNAMED)
        out = e.query('select ts, dur, value from state order by ts', trace)
        self.assertEqual(out, '"ts","dur","value"\n100,100,"A"\n300,100,""\n400,-1,"B"\n')


if __name__ == '__main__':
    e.main()
