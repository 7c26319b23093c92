"""End-to-end: Perfetto's own Python client (../shared/perfetto/python)
runs weft as its trace processor binary, unchanged, on a merged
two-machine trace; its DataFrames match weft's CSV for the same queries.
Runs under Debian's /usr/bin/python3 (python3-protobuf, python3-pandas
from scripts/deps.sh)."""
import csv
import io
import json
import math
import os
import sys
import unittest
import zipfile

import weft_e2e as e

CLIENT = os.path.join(e.ROOT, '..', 'shared', 'perfetto', 'python')

QUERIES = [
    # strings, integers and NULLs (parent_id of a root slice) per machine
    'select s.id, s.ts, s.dur, s.name, s.parent_id, m.name as machine from slice s '
    'join thread_track t on s.track_id = t.id join machine m on t.machine_id = m.id '
    'order by m.name, s.ts',
    # doubles and large integers
    'select id, dur * 1.5 as scaled, dur / 3.0 as third, -0.25 as neg, '
    '9223372036854775807 - id as big, -9223372036854775807 + id as small from slice '
    'order by id',
    # arg values: ints, reals and strings in one column
    "select key, int_value, string_value, real_value, display_value from args "
    "where key like 'args.%' order by key, display_value",
    'select count(*) as n, count(distinct upid) as processes from thread',
]


def events(pid, names, base_us):
    out = []
    for k, name in enumerate(names):
        out.append({'ph': 'X', 'pid': pid, 'tid': pid, 'ts': base_us + 10 * k, 'dur': 7 + k,
                    'name': name, 'args': {'n': k, 'ratio': k / 4, 'label': name + '!'}})
    out.append({'ph': 'X', 'pid': pid, 'tid': pid, 'ts': base_us + 1, 'dur': 2,
                'name': 'inner', 'args': {'n': 99}})
    return json.dumps({'traceEvents': out})


def csv_cell(text):
    if text == '[NULL]':
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def parse_csv(out):
    """Rows of weft's CSV: quoted cells are strings, [NULL] is None."""
    header, *rows = out.strip('\n').split('\n')
    names = next(csv.reader([header]))
    parsed = []
    for line in rows:
        cells = []
        for raw in next(csv.reader([line], skipinitialspace=False, quoting=csv.QUOTE_NONE)):
            if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
                inner = raw[1:-1]
                cells.append(None if inner == '[NULL]' else inner)
            else:
                cells.append(csv_cell(raw))
        parsed.append(cells)
    return names, parsed


@unittest.skipUnless(os.path.isdir(CLIENT), 'no Perfetto Python client at ' + CLIENT)
class PythonClientTest(e.TempDirTest):
    def merged_trace(self):
        path = os.path.join(self.dir, 'two_machines.zip')
        manifest = {'perfetto_manifest': {'version': 1, 'files': [
            {'path': 'host.json', 'machine': {'name': 'host'}},
            {'path': 'vm.json', 'machine': {'name': 'vm'}}]}}
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('perfetto_manifest.json', json.dumps(manifest))
            z.writestr('host.json', events(10, ['boot', 'draw', 'sync'], 100))
            z.writestr('vm.json', events(20, ['guest', 'io'], 5000))
        return path

    def assert_frame_matches_csv(self, frame, out, sql):
        names, rows = parse_csv(out)
        self.assertEqual(list(frame.columns), names, sql)
        self.assertEqual(len(frame), len(rows), sql)
        for r, expected_row in enumerate(rows):
            for c, expected in enumerate(expected_row):
                got = frame.iat[r, c]
                where = '%s: row %d column %s' % (sql, r, names[c])
                if expected is None:
                    self.assertTrue(got is None or (isinstance(got, float) and math.isnan(got)),
                                    '%s: %r is not NULL' % (where, got))
                elif isinstance(expected, float):
                    self.assertIsInstance(got, float, where)
                    self.assertEqual('%f' % got, '%f' % expected, where)
                else:
                    self.assertEqual(type(got), type(expected), where)
                    self.assertEqual(got, expected, where)

    def test_dataframes_match_csv(self):
        sys.path.insert(0, CLIENT)
        from perfetto.trace_processor import TraceProcessor, TraceProcessorConfig
        trace = self.merged_trace()
        config = TraceProcessorConfig(bin_path=e.WEFT, load_timeout=30)
        with TraceProcessor(trace=trace, config=config) as tp:
            machines = tp.query('select distinct m.name from thread_track t join machine m '
                                'on t.machine_id = m.id order by 1').as_pandas_dataframe()
            self.assertEqual(list(machines['name']), ['host', 'vm'])
            for sql in QUERIES:
                frame = tp.query(sql).as_pandas_dataframe()
                self.assert_frame_matches_csv(frame, e.query(sql, trace), sql)
            big = tp.query('select 9223372036854775807 as m, -9223372036854775808 as n')
            row = next(iter(big))
            self.assertEqual((row.m, row.n), (9223372036854775807, -9223372036854775808))
            with self.assertRaises(Exception) as caught:
                tp.query('select * from no_such_table')
            self.assertIn('no such table: no_such_table', str(caught.exception))
            # The statement fields of QueryResult, as the client's own schema
            # decodes them (it does not use them itself).
            result = tp.http.execute_query(
                'create table tt as select 1 as x; select x from tt; -- done\n')
            self.assertEqual((result.statement_count, result.statement_with_output_count,
                              result.last_statement_sql), (2, 1, 'select x from tt'))
            result = tp.http.execute_query('select 1 as suppress_query_output; select 2')
            self.assertEqual((result.statement_count, result.statement_with_output_count,
                              result.last_statement_sql), (2, 1, 'select 2'))


if __name__ == '__main__':
    e.main()
