"""End-to-end: `weft export sqlite|arrow_tar|json` and -e/--export, on a
merge of two machines whose traces use the same pids and tids."""
import io
import json
import os
import struct
import subprocess
import tarfile
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
    events.append({'ph': 'X', 'name': prefix + '_nested', 'ts': 11, 'dur': 2, 'pid': 1, 'tid': 1,
                   'args': {'n': 1, 's': prefix, 'f': 1.5, 'b': True, 'deep': {'list': [1, 2]}}})
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
                "select key, value_type, display_value from args where key glob 'args.*' "
                'order by 1, 3',
                'select value from counter order by value',
                'select name from thread where name is not null order by name')
        for sql in same:
            self.assertEqual(e.query(sql, out), e.query(sql, *self.inputs), sql)
        # (each machine's idle process, pid 0, has no events to export)
        unnamed = 'select count(*) from process where name is null and pid != 0'
        self.assertEqual(e.query(unnamed, out), e.query(unnamed, *self.inputs))
        names = e.query('select name from process where name is not null order by name', out)
        self.assertEqual(names, '"name"\n"alpha_proc (machine A)"\n"beta_proc (machine B)"\n')

    def test_one_machine_keeps_process_names_as_they_are(self):
        long_name = 'p"\\' + 'n' * 3000
        trace = e.write_temp(self.dir, 'one.json', json.dumps({'traceEvents': [
            {'ph': 'M', 'name': 'process_name', 'pid': 7, 'args': {'name': long_name}},
            {'ph': 'X', 'name': 'x', 'ts': 1, 'dur': 2, 'pid': 5, 'tid': 6},
            {'ph': 'X', 'name': 'y', 'ts': 1, 'dur': 2, 'pid': 7, 'tid': 8}]}))
        out = os.path.join(self.dir, 'one_out.json')
        rc, _, err = e.run('export', 'json', '-o', out, '--machine', 'one.json=solo', trace)
        self.assertEqual(rc, 0, err)
        sql = 'select pid, name from process order by pid'
        self.assertEqual(e.query(sql, out), e.query(sql, trace))
        self.assertIn('5,"[NULL]"', e.query(sql, out))

    def test_unfinished_and_async_slices(self):
        trace = e.write_temp(self.dir, 'async.json', json.dumps({'traceEvents': [
            {'ph': 'B', 'name': 'open', 'ts': 5, 'pid': 3, 'tid': 4},
            {'ph': 'b', 'name': 'job', 'cat': 'k', 'id': 9, 'ts': 1, 'pid': 3},
            {'ph': 'e', 'name': 'job', 'cat': 'k', 'id': 9, 'ts': 8, 'pid': 3},
            {'ph': 'i', 'name': 'in_process', 'ts': 6, 'pid': 3, 'tid': 4, 's': 'p'},
            {'ph': 'i', 'name': 'in_trace', 'ts': 7, 'pid': 3, 'tid': 4, 's': 'g'}]}))
        out = os.path.join(self.dir, 'async_out.json')
        rc, _, err = e.run('export', 'json', '-o', out, trace)
        self.assertEqual(rc, 0, err)
        for sql in ('select name, ts, dur from slice order by name',
                    'select s.name, t.type from slice s join track t on s.track_id = t.id '
                    'where s.dur = 0 order by 1'):
            self.assertEqual(e.query(sql, out), e.query(sql, trace), sql)


# ---- a reader of Arrow IPC files, written from the format's documentation
# (pyarrow is not packaged by Debian): FlatBuffers tables, the footer, the
# schema and record batches of int64, float64 and utf8 columns.

def _u32(buf, p):
    return struct.unpack_from('<I', buf, p)[0]


def _table(buf, pos):
    """Field i of the FlatBuffers table at pos: its position, or None."""
    vtable = pos - struct.unpack_from('<i', buf, pos)[0]
    size = struct.unpack_from('<H', buf, vtable)[0]

    def field(i):
        if 4 + 2 * i >= size:
            return None
        off = struct.unpack_from('<H', buf, vtable + 4 + 2 * i)[0]
        return pos + off if off else None
    return field


def _deref(buf, p):
    return p + _u32(buf, p)


def _vector(buf, p):
    p = _deref(buf, p)
    return p + 4, _u32(buf, p)


def _schema(buf, pos):
    fields = _table(buf, pos)
    start, n = _vector(buf, fields(1))
    columns = []
    for i in range(n):
        f = _table(buf, _deref(buf, start + 4 * i))
        name_at = _deref(buf, f(0))
        name = buf[name_at + 4:name_at + 4 + _u32(buf, name_at)].decode()
        type_id = buf[f(2)]
        t = _table(buf, _deref(buf, f(3)))
        if type_id == 2:
            kind = 'int%d' % struct.unpack_from('<i', buf, t(0))[0]
        elif type_id == 3:
            kind = {2: 'double'}[struct.unpack_from('<h', buf, t(0))[0]]
        else:
            kind = {5: 'utf8'}[type_id]
        columns.append((name, kind))
    return columns


def read_arrow(buf):
    """(columns [(name, type)], rows [tuple]) of an Arrow IPC file."""
    assert buf[:6] == b'ARROW1' and buf[-6:] == b'ARROW1'
    footer_len = struct.unpack_from('<i', buf, len(buf) - 10)[0]
    footer_at = len(buf) - 10 - footer_len
    footer = _table(buf, _deref(buf, footer_at))
    columns = _schema(buf, _deref(buf, footer(1)))
    rows = []
    start, n = _vector(buf, footer(3))
    for b in range(n):
        offset, meta_len, body_len = struct.unpack_from('<qi4xq', buf, start + 24 * b)
        assert _u32(buf, offset) == 0xFFFFFFFF and offset % 8 == 0
        message = _table(buf, _deref(buf, offset + 8))
        assert buf[message(1)] == 3  # a record batch
        batch = _table(buf, _deref(buf, message(2)))
        length = struct.unpack_from('<q', buf, batch(0))[0]
        bufs_at, nbufs = _vector(buf, batch(2))
        buffers = [struct.unpack_from('<qq', buf, bufs_at + 16 * i) for i in range(nbufs)]
        body = offset + meta_len
        assert body % 8 == 0 and all(o % 8 == 0 for o, _ in buffers)
        cols, k = [], 0
        for _, kind in columns:
            validity = buf[body + buffers[k][0]:]
            valid = [bool(validity[r // 8] >> (r % 8) & 1) for r in range(length)]
            values_at = body + buffers[k + 1][0]
            if kind == 'utf8':
                chars_at = body + buffers[k + 2][0]
                offs = struct.unpack_from('<%di' % (length + 1), buf, values_at)
                values = [buf[chars_at + offs[r]:chars_at + offs[r + 1]].decode()
                          for r in range(length)]
                k += 3
            else:
                values = struct.unpack_from('<%d%s' % (length, 'q' if kind == 'int64' else 'd'),
                                            buf, values_at)
                k += 2
            cols.append([v if ok else None for v, ok in zip(values, valid)])
        rows.extend(zip(*cols))
    return columns, rows


def csv_rows(text):
    """weft's CSV as tuples of Python values (NULL: None)."""
    out = []
    for line in text.split('\n')[1:-1]:
        cells = []
        for cell in line.split(','):
            if cell == '"[NULL]"':
                cells.append(None)
            elif cell.startswith('"'):
                cells.append(cell[1:-1])
            else:
                cells.append(float(cell) if '.' in cell else int(cell))
        out.append(tuple(cells))
    return out


class ArrowExportTest(ExportBase):
    def members(self, tar_path):
        with tarfile.open(tar_path) as tar:
            return {m.name: tar.extractfile(m).read() for m in tar.getmembers()}

    def test_one_file_per_table_with_the_rows(self):
        files = self.members(self.export('arrow_tar', 'out.tar'))
        for table in ('__intrinsic_slice', '__intrinsic_thread', 'machine', 'stats', 'metadata',
                      'trace_bounds', '__intrinsic_cpu'):
            self.assertIn(table + '.arrow', files)
        self.assertNotIn('slice.arrow', files)  # a view
        columns, rows = read_arrow(files['__intrinsic_slice.arrow'])
        self.assertEqual(columns[:3], [('id', 'int64'), ('ts', 'int64'), ('dur', 'int64')])
        self.assertIn(('name', 'utf8'), columns)
        names = ', '.join(name for name, _ in columns)
        expected = csv_rows(e.query('select %s from __intrinsic_slice' % names, *self.inputs))
        self.assertEqual(rows, expected)
        columns, rows = read_arrow(files['__intrinsic_counter.arrow'])
        self.assertIn(('value', 'double'), columns)
        self.assertEqual([r[columns.index(('value', 'double'))] for r in rows], [7.0, 7.0])
        columns, rows = read_arrow(files['machine.arrow'])
        self.assertEqual(sorted(r[columns.index(('name', 'utf8'))] for r in rows), ['A', 'B'])
        self.assertEqual(read_arrow(files['__intrinsic_cpu.arrow'])[1], [])

    def test_record_batches_of_a_large_table(self):
        events = [{'ph': 'X', 'name': 'n%d' % i, 'ts': i, 'dur': 1, 'pid': 1, 'tid': 1 + i % 3}
                  for i in range(70000)]
        trace = e.write_temp(self.dir, 'big.json', json.dumps({'traceEvents': events}))
        out = os.path.join(self.dir, 'big.tar')
        rc, _, err = e.run('export', 'arrow_tar', '-o', out, trace)
        self.assertEqual(rc, 0, err)
        columns, rows = read_arrow(self.members(out)['__intrinsic_slice.arrow'])
        self.assertEqual(len(rows), 70000)
        name = columns.index(('name', 'utf8'))
        self.assertEqual(sorted(r[name] for r in rows), sorted('n%d' % i for i in range(70000)))


if __name__ == '__main__':
    e.main()
