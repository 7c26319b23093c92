"""End-to-end: the traced.stats stdlib module on text-format traces of
traced's clone service events; the answers are Perfetto's on the same
traces."""
import weft_e2e as e

CLONE = '''
packet { trusted_packet_sequence_id: 1 timestamp: 900
  clone_snapshot_trigger { trigger_name: "t" producer_name: "p" } }
packet { trusted_packet_sequence_id: 1 timestamp: 1000 service_event { clone_started: true } }
packet { trusted_packet_sequence_id: 1 timestamp: 1700 service_event { buffer_cloned: 2 } }
packet { trusted_packet_sequence_id: 1 timestamp: 1500 service_event { buffer_cloned: 0 } }
'''
NO_CLONE = '''
packet { trusted_packet_sequence_id: 1 timestamp: 1000 service_event { tracing_started: true } }
'''


class TracedStatsTest(e.TempDirTest):
    def query(self, table, text):
        trace = e.textproto_trace(self.dir, 'clone.pb', text)
        return e.query('INCLUDE PERFETTO MODULE traced.stats; SELECT * FROM ' + table,
                       trace).splitlines()

    def test_clone_flush_latency(self):
        self.assertEqual(self.query('traced_clone_flush_latency', CLONE), [
            '"buffer_id","duration_ns","machine_id","trace_id"', '0,500,0,0', '2,700,0,0'])

    def test_trigger_clone_flush_latency(self):
        self.assertEqual(self.query('traced_trigger_clone_flush_latency', CLONE), [
            '"buffer_id","duration_ns","machine_id","trace_id"', '0,600,0,0', '2,800,0,0'])

    def test_no_clone_no_rows(self):
        for table in ('traced_clone_flush_latency', 'traced_trigger_clone_flush_latency'):
            self.assertEqual(self.query(table, NO_CLONE),
                             ['"buffer_id","duration_ns","machine_id","trace_id"'])


if __name__ == '__main__':
    e.main()
