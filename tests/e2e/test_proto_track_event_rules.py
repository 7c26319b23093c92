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


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class ProtoTrackEventRulesTest(e.TempDirTest):
    def trace(self, text):
        return e.textproto_trace(self.dir, 'trace.pb', text)

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


if __name__ == '__main__':
    e.main()
