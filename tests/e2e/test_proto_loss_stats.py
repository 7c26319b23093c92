"""End-to-end: data-loss stats derived from the packets of each sequence."""
import weft_e2e as e

# Sequence 2 (buffer 0) is cleared, then needs its state: nothing skipped.
# Sequences 3 and 4 (buffer 1) need incremental state never cleared, so all
# their packets are skipped. Sequence 5 (buffer 1) loses only some.
SKIPPED_SEQUENCES = """
packet { trusted_packet_sequence_id: 2 sequence_flags: 1 }
packet { trusted_packet_sequence_id: 2 sequence_flags: 2 }
packet { trusted_packet_sequence_id: 3 sequence_flags: 2 }
packet { trusted_packet_sequence_id: 3 sequence_flags: 2 }
packet { trusted_packet_sequence_id: 4 sequence_flags: 2 }
packet { trusted_packet_sequence_id: 5 sequence_flags: 2 }
packet { trusted_packet_sequence_id: 5 sequence_flags: 1 }
packet { trusted_packet_sequence_id: 5 sequence_flags: 2 }
packet {
  trusted_packet_sequence_id: 1
  trace_stats {
    writer_stats { sequence_id: 2 buffer: 0 }
    writer_stats { sequence_id: 3 buffer: 1 }
    writer_stats { sequence_id: 4 buffer: 1 }
    writer_stats { sequence_id: 5 buffer: 1 }
  }
}
"""


class ProtoLossStatsTest(e.TempDirTest):
    def test_sequences_with_every_stateful_packet_skipped(self):
        trace = e.textproto_trace(self.dir, 'skipped.pb', SKIPPED_SEQUENCES)
        out = e.query("select idx, value from stats "
                      "where name = 'traced_buf_incremental_sequences_dropped' "
                      "order by idx", trace)
        self.assertEqual(out, '"idx","value"\n0,0\n1,2\n')
        # every skipped packet is logged at its payload, with its sequence
        out = e.query("select l.byte_offset, l.severity, a.key, a.display_value from "
                      "_trace_import_logs l join args a using (arg_set_id) "
                      "where l.name = 'packet_skipped_seq_needs_incremental_state_invalid' "
                      "order by l.id", trace)
        payloads = [2, 8, 14, 20, 26, 32, 38, 44]  # packets of 4 bytes and their 2-byte heads
        self.assertEqual(out.splitlines()[1:], [
            '%d,"notice","packet_sequence_id","%d"' % (payloads[i], seq)
            for i, seq in ((2, 3), (3, 3), (4, 4), (5, 5))])


if __name__ == '__main__':
    e.main()
