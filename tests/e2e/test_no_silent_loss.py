"""End-to-end: a -q/-Q load that loses data says so on stderr (file, count,
cause, fix), --quiet silences it, --strict fails the run (issue 32.1)."""
import json

import weft_e2e as e


def json_trace(names, ts0=0):
    events = [{'name': n, 'ph': 'X', 'ts': ts0 + 10 * i, 'dur': 5, 'pid': 1, 'tid': 1}
              for i, n in enumerate(names)]
    return json.dumps({'traceEvents': events})


def proto_slices(count):
    """A proto trace of `count` track-event slices on one thread."""
    out = e.pb_packet(e.pb_int(10, 1), e.pb_bytes(44, e.pb_int(1, 1) + e.pb_int(2, 1)))
    for i in range(count):
        begin = e.pb_int(9, 1) + e.pb_bytes(23, 's%d' % i)
        out += e.pb_packet(e.pb_int(8, 1000 + 10 * i), e.pb_int(10, 1), e.pb_bytes(11, begin))
        out += e.pb_packet(e.pb_int(8, 1005 + 10 * i), e.pb_int(10, 1),
                           e.pb_bytes(11, e.pb_int(9, 2)))
    return out


class NoSilentLoss(e.TempDirTest):
    def offset_drop(self, *flags):
        a = e.write_temp(self.dir, 'a.json', json_trace(['a%d' % i for i in range(5)], 10**9))
        b = e.write_temp(self.dir, 'b.json', json_trace(['b%d' % i for i in range(5)]))
        self.b = b
        return e.run(*flags, '--sync', 'b.json=a.json', '--offset', 'b.json=-1000s',
                     '-Q', 'select count(*) from slice', a, b)

    def test_events_dropped_by_an_offset_are_reported(self):
        rc, out, err = self.offset_drop()
        self.assertEqual(rc, 0)
        self.assertIn('"count(*)"\n5', out)
        self.assertIn('5 events of %s fell before the start of trace time' % self.b, err)
        self.assertIn('--offset', err)  # the fix

    def test_quiet_silences_the_summary(self):
        rc, _, err = self.offset_drop('--quiet')
        self.assertEqual((rc, err), (0, ''))

    def test_strict_fails_the_run(self):
        rc, out, err = self.offset_drop('--strict')
        self.assertEqual(rc, 1)
        self.assertIn('"count(*)"\n5', out)  # the query still ran
        self.assertIn('--strict', err)

    def test_strict_passes_a_clean_load(self):
        a = e.write_temp(self.dir, 'a.json', json_trace(['x']))
        rc, _, err = e.run('--strict', '-Q', 'select 1', a)
        self.assertEqual((rc, err), (0, ''))

    def test_a_truncated_json_is_named(self):
        text = json_trace(['e%d' % i for i in range(50)])
        cut = e.write_temp(self.dir, 'cut.json', text[:len(text) // 2])
        rc, _, err = e.run('-Q', 'select 1', cut)
        self.assertEqual(rc, 0)
        self.assertIn('cut.json:', err)
        self.assertIn('json_tokenizer_failure', err)
        self.assertIn('truncated', err)

    def test_a_truncated_proto_counts_its_tail(self):
        trace = proto_slices(20)
        cut = e.write_temp(self.dir, 'cut.pb', trace[:-7])
        out = e.query("select value from stats where name = 'proto_truncated_tail'",
                      cut, options=('--quiet',))
        last_packet = e.proto_fields(trace)[-1][2]
        self.assertEqual(out.split('\n')[1], str(len(last_packet) - 7))
        rc, _, err = e.run('-Q', 'select 1', cut)
        self.assertEqual(rc, 0)
        self.assertIn('cut.pb: %d trailing byte' % (len(last_packet) - 7), err)
        self.assertIn('truncated', err)

    def test_a_complete_proto_has_no_tail_stat(self):
        whole = e.write_temp(self.dir, 'whole.pb', proto_slices(20))
        out = e.query("select value from stats where name = 'proto_truncated_tail'", whole)
        self.assertEqual(out.split('\n')[1], '0')

    def test_stats_rows_have_ids_and_perfettos_keys(self):
        # `key` is the stat's index in Perfetto's enum of stats (the values
        # Perfetto's shell gives); weft's own stats come after all of them.
        whole = e.write_temp(self.dir, 'whole.pb', proto_slices(2))
        out = e.query("select name, key from stats where name in ('android_aflags_errors', "
                      "'guess_trace_type_duration_ns', 'parse_trace_duration_ns', "
                      "'clock_sync_cache_miss', 'winscope_sf_transactions_parse_errors', "
                      "'extra_parsing_descriptors_error') order by key", whole)
        self.assertEqual(out, '"name","key"\n"android_aflags_errors",0\n'
                         '"guess_trace_type_duration_ns",71\n"parse_trace_duration_ns",94\n'
                         '"clock_sync_cache_miss",186\n'
                         '"winscope_sf_transactions_parse_errors",265\n'
                         '"extra_parsing_descriptors_error",357\n')
        own = e.query("select min(key) from stats where name in ('proto_truncated_tail', "
                      "'winscope_sf_layers_visibility_skipped')", whole)
        self.assertGreater(int(own.split('\n')[1]), 357)
        ids = e.query('select count(*) = max(id) + 1 and min(id) = 0 from stats', whole)
        self.assertEqual(ids.split('\n')[1], '1')


if __name__ == '__main__':
    e.main()
