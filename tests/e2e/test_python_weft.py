"""End-to-end: weft's own Python package (python/weft, standard library
only) on a merged two-machine trace: its rows match weft's CSV for the same
queries (NULLs, doubles, strings, large integers), with the machine, sync
and offset options passed on; errors are raised; and, where pandas is
installed (this interpreter or Debian's /usr/bin/python3), its DataFrames
match too."""
import json
import math
import os
import subprocess
import sys
import unittest

import weft_e2e as e
from test_python_client import QUERIES, events, parse_csv

PACKAGE = os.path.join(e.ROOT, 'python')
sys.path.insert(0, PACKAGE)
import weft  # noqa: E402

DEBIAN_PYTHON = '/usr/bin/python3'


def has_pandas(python):
    if not os.path.exists(python):
        return False
    return subprocess.run([python, '-c', 'import pandas'], capture_output=True).returncode == 0


class WeftPackageTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.host = e.write_temp(self.dir, 'host.json', events(10, ['boot', 'draw', 'sync'], 100))
        self.vm = e.write_temp(self.dir, 'vm.json', events(20, ['guest', 'io'], 5000))
        self.options = dict(machine={self.host: 'host', self.vm: 'vm'}, offset={self.vm: '1ms'})
        # The same merge on the command line.
        self.flags = ('--machine', self.host + '=host', '--machine', self.vm + '=vm',
                      '--sync', self.vm + '=' + self.host, '--offset', self.vm + '=1ms')

    def open(self):
        return weft.TraceProcessor([self.host, self.vm], bin_path=e.WEFT, **self.options)

    def assert_rows_match_csv(self, result, sql):
        names, expected = parse_csv(e.query(sql, self.host, self.vm, options=self.flags))
        self.assertEqual(result.columns, names, sql)
        self.assertEqual(len(result.rows), len(expected), sql)
        for got_row, want_row in zip(result.rows, expected):
            for got, want in zip(got_row, want_row):
                if isinstance(want, float):
                    self.assertIsInstance(got, float, sql)
                    self.assertEqual('%f' % got, '%f' % want, sql)
                else:
                    self.assertEqual((type(got), got), (type(want), want), sql)

    def test_rows_match_csv(self):
        with self.open() as tp:
            machines = tp.query('select distinct m.name from thread_track t join machine m '
                                'on t.machine_id = m.id order by 1')
            self.assertEqual(machines.rows, [('host',), ('vm',)])
            for sql in QUERIES:
                self.assert_rows_match_csv(tp.query(sql), sql)
            # vm.json reads T when host.json reads T + 1 ms: its slices move 1 ms on.
            first = tp.query("select ts from slice where name = 'guest'").rows[0][0]
            self.assertEqual(first, 5000 * 1000 + 1000 * 1000)
            big = tp.query('select 9223372036854775807 as m, -9223372036854775808 as n, '
                           "null as z, x'00ff' as b, 'é' as s")
            self.assertEqual(big.rows, [(9223372036854775807, -9223372036854775808, None,
                                         b'\x00\xff', 'é')])
            self.assertEqual(big.as_dicts()[0]['m'], 9223372036854775807)

    def test_many_batches_and_statements(self):
        with self.open() as tp:
            result = tp.query('create table t as select 1 as x; with recursive n(i) as '
                              '(select 1 union all select i + 1 from n where i < 70000) '
                              'select i, i * 0.5 as h, cast(i as text) as s from n')
            self.assertEqual(len(result), 70000)
            self.assertEqual(result.rows[-1], (70000, 35000.0, '70000'))
            self.assertEqual((result.statement_count, result.statement_with_output_count),
                             (2, 1))
            self.assertEqual(tp.query('select x from t').rows, [(1,)])

    def test_errors(self):
        with self.open() as tp:
            with self.assertRaises(weft.QueryError) as caught:
                tp.query('select * from no_such_table')
            self.assertIn('no such table: no_such_table', str(caught.exception))
            self.assertEqual(tp.query('select 1 as one').rows, [(1,)])  # still answers
        with self.assertRaises(weft.WeftError):
            tp.query('select 1')                                       # closed
        missing = weft.TraceProcessor([os.path.join(self.dir, 'missing.json')],
                                      bin_path=e.WEFT)
        with self.assertRaises(weft.WeftError) as caught:
            missing.query('select 1')
        self.assertIn('missing.json', str(caught.exception))
        missing.close()

    def test_remote_session(self):
        env = dict(os.environ, XDG_RUNTIME_DIR=self.dir)
        proc = subprocess.Popen([e.WEFT, 'server', 'unix', '--name', 'py', '--quiet',
                                 *self.flags, self.host, self.vm],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        try:
            self.assertTrue(proc.stdout.readline().startswith(b'weft-session'))
            os.environ['XDG_RUNTIME_DIR'], saved = self.dir, os.environ.get('XDG_RUNTIME_DIR')
            try:
                for _ in range(2):  # the session keeps the trace between clients
                    with weft.TraceProcessor(remote='py') as tp:
                        for sql in QUERIES:
                            self.assert_rows_match_csv(tp.query(sql), sql)
                with self.assertRaises(weft.WeftError):
                    weft.TraceProcessor(remote='nosuch')
            finally:
                if saved is None:
                    del os.environ['XDG_RUNTIME_DIR']
                else:
                    os.environ['XDG_RUNTIME_DIR'] = saved
        finally:
            proc.terminate()
            proc.wait()
            proc.stdout.close()

    def frames_by(self, python):
        """Each query's DataFrame, as (columns, values) read under python."""
        script = ('import json, sys; sys.path.insert(0, %r); import weft\n'
                  'args = json.loads(sys.argv[1])\n'
                  'with weft.TraceProcessor(args["traces"], bin_path=args["bin"], '
                  'machine=args["machine"], offset=args["offset"]) as tp:\n'
                  '    out = []\n'
                  '    for sql in args["queries"]:\n'
                  '        f = tp.query(sql).as_pandas_dataframe()\n'
                  '        out.append([list(f.columns), f.astype(object).values.tolist()])\n'
                  'print(json.dumps(out))\n' % PACKAGE)
        args = dict(traces=[self.host, self.vm], bin=e.WEFT, queries=QUERIES, **self.options)
        proc = subprocess.run([python, '-c', script, json.dumps(args)], capture_output=True,
                              timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stderr.decode())
        return json.loads(proc.stdout)

    def test_dataframes_match_csv(self):
        python = sys.executable if has_pandas(sys.executable) else DEBIAN_PYTHON
        if not has_pandas(python):
            self.skipTest('no pandas')
        for sql, (columns, values) in zip(QUERIES, self.frames_by(python)):
            names, expected = parse_csv(e.query(sql, self.host, self.vm, options=self.flags))
            self.assertEqual(columns, names, sql)
            self.assertEqual(len(values), len(expected), sql)
            for got_row, want_row in zip(values, expected):
                for got, want in zip(got_row, want_row):
                    if want is None:
                        self.assertTrue(got is None or (isinstance(got, float) and math.isnan(got)),
                                        sql)
                    elif isinstance(want, float):
                        self.assertEqual('%f' % got, '%f' % want, sql)
                    else:
                        self.assertEqual(got, want, sql)


if __name__ == '__main__':
    e.main()
