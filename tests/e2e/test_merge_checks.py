"""End-to-end: `weft merge` checks what it writes (issue 32.2) and the
command line checks its inputs (issue 32.3)."""
import json
import os
import zipfile

import weft_e2e as e


def json_trace(prefix, count=5, ts0=0):
    events = [{'name': '%s%d' % (prefix, i), 'ph': 'X', 'ts': ts0 + 10 * i, 'dur': 5,
               'pid': 1, 'tid': 1} for i in range(count)]
    return json.dumps({'traceEvents': events})


def manifest(files):
    return json.dumps({'perfetto_manifest': {'version': 1, 'files': files}})


class MergeChecks(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.a = e.write_temp(self.dir, 'alpha.json', json_trace('a', ts0=10**9))
        self.b = e.write_temp(self.dir, 'beta.json', json_trace('b'))
        self.out = os.path.join(self.dir, 'y.zip')

    def merge(self, *args):
        return e.run('merge', '-o', self.out, *args)

    def leftovers(self):
        """Files in the directory besides the inputs and manifests."""
        return sorted(f for f in os.listdir(self.dir)
                      if not f.endswith('.json'))

    def test_a_manifest_that_does_not_validate_writes_nothing(self):
        bad = e.write_temp(self.dir, 'bad.json', manifest(
            [{'path': 'beta.json', 'clocks': {'sync_to': {'file': 'nope.json'}}}]))
        rc, _, err = self.merge('--manifest', bad, self.a, self.b)
        self.assertEqual(rc, 1)
        self.assertIn('nope.json', err)
        self.assertEqual(self.leftovers(), [])

    def test_an_archive_with_a_manifest_is_refused_by_name(self):
        rc, _, _ = self.merge(self.a, self.b)
        self.assertEqual(rc, 0)
        again = os.path.join(self.dir, 'again.zip')
        rc, _, err = e.run('merge', '-o', again, self.out, self.a)
        self.assertEqual(rc, 1)
        self.assertIn('y.zip', err)
        self.assertIn('merged archive', err)
        self.assertFalse(os.path.exists(again))

    def test_a_missing_input_leaves_no_partial_archive(self):
        rc, _, err = self.merge(self.a, os.path.join(self.dir, 'gone.json'))
        self.assertEqual(rc, 1)
        self.assertIn('gone.json', err)
        self.assertEqual(self.leftovers(), [])

    def test_a_failed_merge_keeps_the_previous_output(self):
        with open(self.out, 'wb') as f:
            f.write(b'previous')
        rc, _, _ = self.merge(self.a, os.path.join(self.dir, 'gone.json'))
        self.assertEqual(rc, 1)
        with open(self.out, 'rb') as f:
            self.assertEqual(f.read(), b'previous')
        self.assertEqual(self.leftovers(), ['y.zip'])

    def drop_flags(self):
        return ('--sync', 'beta.json=alpha.json', '--offset', 'beta.json=-1000s')

    def test_an_offset_that_drops_events_is_warned_about(self):
        rc, _, err = self.merge(*self.drop_flags(), self.a, self.b)
        self.assertEqual(rc, 0)
        self.assertIn('warning', err)
        self.assertIn('beta.json fell before the start of trace time', err)
        self.assertTrue(zipfile.is_zipfile(self.out))

    def test_strict_turns_the_warning_into_a_failure(self):
        rc, _, err = self.merge('--strict', *self.drop_flags(), self.a, self.b)
        self.assertEqual(rc, 1)
        self.assertIn('--strict', err)
        self.assertEqual(self.leftovers(), [])

    def test_no_validate_skips_the_check(self):
        rc, _, err = self.merge('--no-validate', *self.drop_flags(), self.a, self.b)
        self.assertEqual((rc, err), (0, ''))
        self.assertTrue(zipfile.is_zipfile(self.out))

    def test_a_guessed_placement_is_warned_about(self):
        # Nothing relates the two clockless files: each is placed at zero,
        # a guess (weft_placement.is_guess) that --strict refuses.
        rc, _, err = self.merge(self.a, self.b)
        self.assertEqual(rc, 0)
        self.assertIn('weft merge: warning: ', err)
        self.assertIn('is placed by a guess (private_pin)', err)
        rc, _, err = self.merge('--strict', self.a, self.b)
        self.assertEqual(rc, 1)
        self.assertIn('--strict', err)

    def test_a_clean_merge_reopens(self):
        rc, _, err = self.merge('--strict', '--sync', 'beta.json=alpha.json', self.a, self.b)
        self.assertEqual((rc, err), (0, ''))
        self.assertEqual(self.leftovers(), ['y.zip'])
        out = e.query('select count(*) from slice', self.out)
        self.assertEqual(out, '"count(*)"\n10\n')


class InputChecks(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.a = e.write_temp(self.dir, 'alpha.json', json_trace('a'))
        self.b = e.write_temp(self.dir, 'beta.json', json_trace('b'))

    def test_a_manifest_path_matching_no_input_is_an_error(self):
        m = e.write_temp(self.dir, 'm.json', manifest(
            [{'path': 'alpah.json', 'machine': {'name': 'm1'}}]))
        rc, _, err = e.run('--manifest', m, '-Q', 'select 1', self.a, self.b)
        self.assertEqual(rc, 1)
        self.assertIn("'alpah.json' matches no input; did you mean 'alpha.json'?", err)
        self.assertIn('inputs: alpha.json, beta.json', err)
        rc, _, err = e.run('merge', '-o', os.path.join(self.dir, 'y.zip'),
                           '--manifest', m, self.a, self.b)
        self.assertEqual(rc, 1)
        self.assertIn("did you mean 'alpha.json'?", err)
        self.assertFalse(os.path.exists(os.path.join(self.dir, 'y.zip')))

    def test_a_flag_file_matching_no_input_is_an_error(self):
        rc, _, err = e.run('--machine', 'alpah.json=m1', '-Q', 'select 1', self.a, self.b)
        self.assertEqual(rc, 1)
        self.assertIn("--machine: 'alpah.json' matches no input; did you mean "
                      "'alpha.json'?", err)
        self.assertIn(self.b, err)  # the inputs it could have meant

    def test_numeric_flags_state_their_range(self):
        for bad in ('abc', '-3', '1000', ''):
            rc, _, err = e.run('--threads', bad, '-Q', 'select 1', self.a)
            self.assertEqual(rc, 2, bad)
            self.assertIn("--threads: bad value '%s' (a whole number from 1 to 64" % bad, err)
        rc, _, err = e.run('--max-ratio', '0', '-Q', 'select 1', self.a)
        self.assertEqual(rc, 2)
        self.assertIn('from 1 to', err)
        self.assertEqual(e.query('select 1', self.a, threads=3), '"1"\n1\n')

    def test_a_flag_error_is_one_line_and_a_pointer(self):
        rc, out, err = e.run('--bogus', self.a)
        self.assertEqual((rc, out), (2, ''))
        self.assertEqual(err, "weft: unknown flag --bogus\nsee 'weft --help'\n")
        rc, _, err = e.run('--threads', 'abc', self.a)
        self.assertEqual(len(err.splitlines()), 2)
        self.assertNotIn('usage:', err)


if __name__ == '__main__':
    e.main()
