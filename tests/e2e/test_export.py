"""End-to-end: `weft export sqlite|arrow_tar|json` and -e/--export, on a
merge of two machines whose traces use the same pids and tids."""
import json
import os
import subprocess
import weft_e2e as e

PER_MACHINE = ('select m.name as machine, s.name as name from slice s join thread_track tt on '
               's.track_id = tt.id join thread t using(utid) join machine m on '
               't.machine_id = m.id order by 1, 2')


def machine_trace(directory, name, prefix, count):
    """A Chrome JSON trace on pid 1 (tids 1 and 2): a named process,
    `count` slices per thread, a flow, a counter and an instant."""
    events = [{'ph': 'M', 'name': 'process_name', 'pid': 1, 'args': {'name': prefix + '_proc'}},
              {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 2,
               'args': {'name': prefix + '_worker'}}]
    for tid in (1, 2):
        for i in range(count):
            events.append({'ph': 'X', 'name': '%s_%d_%d' % (prefix, tid, i), 'cat': 'c',
                           'ts': 10 + i * 10, 'dur': 5, 'pid': 1, 'tid': tid})
    events.append({'ph': 'X', 'name': prefix + '_nested', 'ts': 11, 'dur': 2, 'pid': 1, 'tid': 1})
    events.append({'ph': 'i', 'name': prefix + '_instant', 'ts': 12.5, 'pid': 1, 'tid': 1,
                   's': 't'})
    events.append({'ph': 'C', 'name': prefix + '_ctr', 'ts': 13, 'pid': 1,
                   'args': {'value': 7}})
    events.append({'ph': 's', 'id': 1, 'name': 'fl', 'cat': 'f', 'ts': 12, 'pid': 1, 'tid': 1})
    events.append({'ph': 'f', 'bp': 'e', 'id': 1, 'name': 'fl', 'cat': 'f', 'ts': 22, 'pid': 1,
                   'tid': 2})
    return e.write_temp(directory, name, json.dumps({'traceEvents': events}))


class ExportBase(e.TempDirTest):
    def setUp(self):
        super().setUp()
        a = machine_trace(self.dir, 'a.json', 'alpha', 3)
        b = machine_trace(self.dir, 'b.json', 'beta', 2)
        self.inputs = ['--machine', 'a.json=A', '--machine', 'b.json=B', a, b]

    def export(self, fmt, name):
        out = os.path.join(self.dir, name)
        rc, _, err = e.run('export', fmt, '-o', out, *self.inputs)
        self.assertEqual(rc, 0, err)
        return out


class SqliteExportTest(ExportBase):
    def sqlite(self, db, sql):
        return subprocess.run(['sqlite3', '-csv', db, sql], capture_output=True, text=True,
                              check=True).stdout

    def test_every_table_and_view_with_types(self):
        db = self.export('sqlite', 'out.db')
        names = self.sqlite(db, "select name from sqlite_schema where type = 'table'").split()
        for table in ('slice', 'thread', 'process', 'track', 'args', 'flow', 'machine',
                      'stats', 'metadata', 'trace_bounds', '__intrinsic_slice', 'counter'):
            self.assertIn(table, names)
        types = self.sqlite(db, "select name, type from pragma_table_info('slice') "
                                "where name in ('ts', 'name', 'dur')")
        self.assertEqual(sorted(types.split()), ['dur,INT', 'name,TEXT', 'ts,INT'])
        self.assertEqual(self.sqlite(db, 'select typeof(value) from counter limit 1'), 'real\n')

    def test_same_rows_as_weft(self):
        db = self.export('sqlite', 'out.db')
        direct = e.query(PER_MACHINE, *self.inputs)
        rows = self.sqlite(db, PER_MACHINE)
        self.assertEqual(len(rows.split()), 14)
        self.assertEqual(rows.replace('"', ''), '\n'.join(
            line.replace('"', '') for line in direct.split('\n')[1:]))
        self.assertEqual(self.sqlite(db, 'select count(*) from stats'),
                         e.query('select count(*) from stats', *self.inputs).split('\n')[1] + '\n')

    def test_classic_export_flag(self):
        db = os.path.join(self.dir, 'classic.db')
        rc, out, err = e.run('-e', db, *self.inputs)
        self.assertEqual(rc, 0, err)
        self.assertEqual(self.sqlite(db, 'select count(*) from machine'), '2\n')
        db2 = os.path.join(self.dir, 'with_query.db')
        rc, out, err = e.run('--export', db2, '-Q', 'select 7 as x', *self.inputs)
        self.assertEqual((rc, out), (0, '"x"\n7\n'), err)
        self.assertEqual(self.sqlite(db2, 'select count(*) from machine'), '2\n')

    def test_overwrites_an_existing_file(self):
        db = os.path.join(self.dir, 'out.db')
        with open(db, 'w') as f:
            f.write('not a database')
        self.export('sqlite', 'out.db')
        self.assertEqual(self.sqlite(db, 'select count(*) from machine'), '2\n')

    def test_usage_errors(self):
        for args in (['export'], ['export', 'csv', '-o', 'x'], ['export', 'sqlite', 'a.json'],
                     ['export', 'sqlite', '-o', os.path.join(self.dir, 'x.db')]):
            rc, _, err = e.run(*args)
            self.assertEqual(rc, 2, args)
            self.assertIn('weft export', err)
        rc, out, _ = e.run('export', '--help')
        self.assertEqual(rc, 0)
        self.assertIn('arrow_tar', out)


class JsonExportTest(ExportBase):
    def test_round_trip_keeps_every_machine(self):
        out = self.export('json', 'out.json')
        with open(out) as f:
            doc = json.load(f)
        pid_map = {row['pid']: row['machine'] for row in doc['metadata']['weft_pid_map']}
        self.assertEqual(sorted(set(pid_map.values())), ['A', 'B'])
        self.assertEqual(len(pid_map), 2, 'the two machines\' pid 1 must stay apart')
        direct = e.query(PER_MACHINE, *self.inputs).split('\n')[1:-1]
        back = e.query('select p.pid, s.name from slice s join thread_track tt on '
                       's.track_id = tt.id join thread t using(utid) join process p '
                       'using(upid) order by 2', out).split('\n')[1:-1]
        reloaded = sorted('"%s",%s' % (pid_map[int(line.split(',')[0])], line.split(',')[1])
                          for line in back)
        self.assertEqual(reloaded, direct)

    def test_round_trip_keeps_names_times_flows_and_counters(self):
        out = self.export('json', 'out.json')
        same = ('select name, ts, dur, depth from slice order by ts, name',
                'select count(*) from flow',
                'select value from counter order by value',
                'select name from thread where name is not null order by name')
        for sql in same:
            self.assertEqual(e.query(sql, out), e.query(sql, *self.inputs), sql)
        names = e.query('select name from process where name is not null order by name', out)
        self.assertEqual(names, '"name"\n"alpha_proc (machine A)"\n"beta_proc (machine B)"\n')

    def test_unfinished_and_async_slices(self):
        trace = e.write_temp(self.dir, 'async.json', json.dumps({'traceEvents': [
            {'ph': 'B', 'name': 'open', 'ts': 5, 'pid': 3, 'tid': 4},
            {'ph': 'b', 'name': 'job', 'cat': 'k', 'id': 9, 'ts': 1, 'pid': 3},
            {'ph': 'e', 'name': 'job', 'cat': 'k', 'id': 9, 'ts': 8, 'pid': 3}]}))
        out = os.path.join(self.dir, 'async_out.json')
        rc, _, err = e.run('export', 'json', '-o', out, trace)
        self.assertEqual(rc, 0, err)
        sql = 'select name, ts, dur from slice order by name'
        self.assertEqual(e.query(sql, out), e.query(sql, trace))


if __name__ == '__main__':
    e.main()
