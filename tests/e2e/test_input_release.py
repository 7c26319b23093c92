"""End-to-end: input bytes read in place (mapped files, stored archive
members) and given back as parsing passes them give the same tables as
bytes copied and kept to the end (WEFT_INPUT_MMAP=0 WEFT_INPUT_RELEASE=0).

The traces span many 256 KiB chunks and are written out of time order, so
chunks are given back in an order unlike the file's."""
import gzip
import io
import json
import os
import random
import tarfile
import zipfile

import weft_e2e as e

KEEP = {'WEFT_INPUT_MMAP': '0', 'WEFT_INPUT_RELEASE': '0'}

QUERIES = [
    'select count(*), sum(ts), sum(dur), sum(depth) from slice',
    'select name, ts, dur, depth, cat, track_id, arg_set_id from slice order by id',
    'select arg_set_id, flat_key, key, int_value, string_value, real_value '
    'from args order by arg_set_id, key',
    'select ts, value, track_id from counter order by id',
    'select ts, dur, cpu, utid, end_state, priority from sched order by id',
    'select ts, state, utid, blocked_function from thread_state order by id',
    'select tid, name from thread order by utid',
    'select pid, name from process order by upid',
    'select count(*) from ftrace_event',
    'select slice_out, slice_in from flow order by id',
    "select name, int_value, str_value from metadata where name != 'trace_uuid' order by name",
    "select name, idx, severity, source, value from stats where value != 0 "
    "and name not glob '*_duration_ns' order by name, idx",
]


def json_trace(n, seed):
    rnd = random.Random(seed)
    events = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "app \u00e9"}}]
    for i in range(n):
        ts = rnd.randrange(0, 10_000_000) / 7
        tid = rnd.randrange(1, 9)
        kind = rnd.randrange(6)
        if kind == 0:
            events.append({"ph": "X", "pid": 1, "tid": tid, "ts": ts, "dur": rnd.randrange(1, 500),
                           "name": f"work\\\"{i % 97}", "cat": "c,d",
                           "args": {"i": i, "s": "x" * (i % 40), "nested": {"a": [i, 2.5, None]}}})
        elif kind == 1:
            events.append({"ph": "B", "pid": 1, "tid": tid, "ts": ts, "name": f"b{i % 13}"})
            events.append({"ph": "E", "pid": 1, "tid": tid, "ts": ts + rnd.randrange(1, 100)})
        elif kind == 2:
            events.append({"ph": "C", "pid": 1, "ts": ts, "name": "mem", "args": {"rss": i % 1000}})
        elif kind == 3:
            events.append({"ph": "i", "pid": 1, "tid": tid, "ts": ts, "name": "mark", "s": "t"})
        elif kind == 4:
            events.append({"ph": "X", "pid": 1, "tid": tid, "ts": ts, "dur": 10, "name": "flowed",
                           "bind_id": f"0x{i:x}", "flow_out": True})
            events.append({"ph": "X", "pid": 1, "tid": tid + 1, "ts": ts + 20, "dur": 10,
                           "name": "flowed_in", "bind_id": f"0x{i:x}", "flow_in": True})
        else:
            events.append({"ph": "b", "pid": 1, "tid": tid, "ts": ts, "name": "async", "cat": "a",
                           "id": i})
            events.append({"ph": "e", "pid": 1, "tid": tid, "ts": ts + 50, "name": "async",
                           "cat": "a", "id": i})
    rnd.shuffle(events)
    lines = [f"  app-{10 + k} ({10 + k}) [00{k % 4}] d..3 {100 + k / 1000:.6f}: "
             f"tracing_mark_write: B|{10 + k}|sys{k % 5}\\n"
             f"  app-{10 + k} ({10 + k}) [00{k % 4}] d..3 {100 + k / 1000 + 0.0005:.6f}: "
             f"tracing_mark_write: E|{10 + k}"
             for k in range(200)]
    doc = {"traceEvents": events, "metadata": {"host": "h", "n": n},
           "systemTraceEvents": "# tracer: nop\n" + "\n".join(lines) + "\n"}
    return json.dumps(doc).encode()


def systrace_lines(n, seed):
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        ts = 1000 + i / 10000
        cpu = i % 4
        kind = rnd.randrange(4)
        if kind == 0:
            prev, nxt = rnd.randrange(1, 50), rnd.randrange(1, 50)
            out.append(f"          task{prev}-{prev}  ( {prev}) [00{cpu}] d..3 {ts:.6f}: sched_switch: "
                       f"prev_comm=task{prev} prev_pid={prev} prev_prio=120 prev_state=S ==> "
                       f"next_comm=task {nxt} next_pid={nxt} next_prio=120")
        elif kind == 1:
            w = rnd.randrange(1, 50)
            out.append(f"          task1-1  (1) [00{cpu}] d..3 {ts:.6f}: sched_waking: "
                       f"comm=task{w} pid={w} prio=120 target_cpu=00{cpu}")
        elif kind == 2:
            out.append(f"          task2-2  (2) [00{cpu}] ...1 {ts:.6f}: tracing_mark_write: "
                       f"C|2|counter{i % 3}|{i}")
        else:
            out.append(f"          task3-3  (3) [00{cpu}] ...1 {ts:.6f}: cpu_frequency: "
                       f"state={1000 + i % 7} cpu_id={cpu}")
    return out


def systrace_text(n, seed):
    lines = systrace_lines(n, seed)
    random.Random(seed).shuffle(lines)  # out of order: chunks go back out of order
    return ("# tracer: nop\n" + "\n".join(lines) + "\n").encode()


def systrace_html(n, seed):
    lines = systrace_lines(n, seed)
    half = len(lines) // 2
    # The last line of each block has no newline before </script>.
    return ("<!DOCTYPE html>\n<html><body>\n<script class=\"trace-data\">\n" +
            "\n".join(lines[:half]) + "</script>\n<p>x</p>\n" +
            "<script class=\"trace-data\">\n" + "\n".join(lines[half:]) +
            "  </script>\n</body></html>\n").encode()


def read(path):
    with open(path, 'rb') as f:
        return f.read()


def run_env(env_extra, *args):
    """e.run with env_extra set (the variables that keep input or spill)."""
    return e.run(*args, env=env_extra, timeout=300)


def first_difference(got, want):
    """A short message for unequal (rc, stdout, stderr) results (a full diff
    of large outputs would take unittest minutes)."""
    for name, a, b in zip(('exit status', 'stdout', 'stderr'), got, want):
        if a == b:
            continue
        if not isinstance(a, str):
            return f'{name}: {a} != {b}'
        la, lb = a.split('\n'), b.split('\n')
        for i, (x, y) in enumerate(zip(la, lb)):
            if x != y:
                return f'{name} line {i + 1}: {x[:200]!r} != {y[:200]!r}'
        return f'{name}: {len(la)} lines != {len(lb)} lines'
    return None


class InputReleaseTest(e.TempDirTest):
    def assertSameRun(self, got, want):
        if isinstance(got, str):  # two stdouts
            got, want = (0, got, ''), (0, want, '')
        self.assertIsNone(first_difference(got, want))

    @classmethod
    def setUpClass(cls):
        cls.json = json_trace(12000, 1)
        cls.systrace = systrace_text(30000, 2)
        cls.html = systrace_html(8000, 3)

    def write(self, name, data):
        return e.write_temp(self.dir, name, data)

    def zip_of(self, name, members, compression):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, 'w', compression) as z:
            for member, data in members:
                z.writestr(member, data)
        return self.write(name, buf.getvalue())

    def tar_of(self, name, members):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode='w') as t:
            for member, data in members:
                info = tarfile.TarInfo(member)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        return self.write(name, buf.getvalue())

    def check_same(self, *paths):
        sql = ';\n'.join(QUERIES) + ';'
        q = self.write('q.sql', sql)
        got = run_env({}, '--quiet', '-q', q, *paths)
        want = run_env(KEEP, '--quiet', '-q', q, *paths)
        self.assertEqual(got[0], 0, got[2])
        self.assertSameRun(got, want)
        for env in ({'WEFT_INPUT_MMAP': '0'}, {'WEFT_INPUT_RELEASE': '0'}):
            self.assertSameRun(run_env(env, '--quiet', '-q', q, *paths), want)
        return got[1]

    def test_plain_files(self):
        j = self.write('a.json', self.json)
        s = self.write('b.txt', self.systrace)
        h = self.write('c.html', self.html)
        out = self.check_same(j)
        self.assertIn('"work', out)
        self.assertIn('sys4', out)  # systemTraceEvents lines
        out = self.check_same(s)
        self.assertIn('cpufreq', out + run_env({}, '-Q', 'select name from counter_track', s)[1])
        self.check_same(h)
        self.check_same(j, s, h)

    def test_slice_counts_match_the_generator(self):
        # Every sched_switch makes a raw row and every other line but the
        # wakings a counter value.
        s = self.write('b.txt', self.systrace)
        want = sum('sched_waking' not in line for line in systrace_lines(30000, 2))
        rc, out, err = run_env({}, '--quiet', '-Q', 'select (select count(*) from ftrace_event)'
                               ' + (select count(*) from counter) as n', s)
        self.assertEqual((rc, out), (0, f'"n"\n{want}\n'), err)

    def test_archives(self):
        members = [('a.json', self.json), ('b.txt', self.systrace), ('c.html', self.html)]
        stored = self.zip_of('s.zip', members, zipfile.ZIP_STORED)
        deflated = self.zip_of('d.zip', members, zipfile.ZIP_DEFLATED)
        tar = self.tar_of('t.tar', members)
        gz = self.write('a.json.gz', gzip.compress(self.json))
        want = self.check_same(stored)
        self.assertSameRun(self.check_same(deflated), want)
        # Deflated members spilled to a file, kept on the heap, and with the
        # spill refused (tmpfs, a directory that does not exist).
        q = self.write('q.sql', ';\n'.join(QUERIES) + ';')
        for env in ({'WEFT_SPILL': '0'}, {'TMPDIR': '/dev/shm'},
                    {'TMPDIR': os.path.join(self.dir, 'missing')}):
            self.assertSameRun(run_env(env, '--quiet', '-q', q, deflated)[1], want)
        self.assertSameRun(self.check_same(tar), want)
        # A gzip stream inflated by a job straight into the spill file, and
        # on the heap when spilling is off or refused.
        want_gz = self.check_same(gz)
        for env in ({'WEFT_SPILL': '0'}, {'TMPDIR': '/dev/shm'}):
            self.assertSameRun(run_env(env, '--quiet', '-q', q, gz)[1], want_gz)
        # A stored zip inside a stored zip: the inner one is unpacked from memory.
        nested = self.zip_of('n.zip', [('inner.zip', read(stored))],
                             zipfile.ZIP_STORED)
        self.check_same(nested)
        # Deflated members inflated and spilled by pool jobs while the
        # loading thread inflates and spills a gzip member's stream between
        # them (processing order puts the container first).
        mixed = members + [('d.json', json_trace(12000, 5)), ('e.txt', systrace_text(30000, 6)),
                           ('f.json.gz', gzip.compress(json_trace(12000, 7)))]
        mixed_zip = self.zip_of('m.zip', mixed, zipfile.ZIP_DEFLATED)
        one = run_env({}, '--threads', '1', '--quiet', '-q', q, mixed_zip)
        self.assertEqual(one[0], 0, one[2])
        for threads in ('2', '3'):
            self.assertSameRun(run_env({}, '--threads', threads, '--quiet', '-q', q, mixed_zip),
                               one)

    def test_systrace_members_scanned_ahead(self):
        """With several threads the systrace scan walks each member's lines
        ahead on a worker and tokenize pushes what it recorded; at one
        thread tokenize walks them. Same tables, and the same error for a
        line over --max-line, either way."""
        members = []
        for i in range(6):
            text = systrace_html(4000, 10 + i) if i % 3 == 1 else systrace_text(4000, 10 + i)
            members.append(('s%d.%s' % (i, 'html' if i % 3 == 1 else 'txt'), text))
        path = self.zip_of('sys.zip', members, zipfile.ZIP_STORED)
        q = self.write('q.sql', ';\n'.join(QUERIES) + ';')
        want = run_env({}, '--threads', '1', '--quiet', '-q', q, path)
        self.assertEqual(want[0], 0, want[2])
        self.assertIn('sched_switch', run_env({}, '-Q', 'select name from ftrace_event', path)[1])
        for threads in ('2', '3'):
            self.assertSameRun(run_env({}, '--threads', threads, '--quiet', '-q', q, path), want)
        long_line = b'# tracer: nop\n' + b'x' * 5000 + b'\n'
        members.insert(3, ('long.txt', long_line + systrace_text(10, 3)))
        path = self.zip_of('long.zip', members, zipfile.ZIP_STORED)
        want = run_env({}, '--threads', '1', '--max-line', '4096', '-Q', 'select 1', path)
        self.assertNotEqual(want[0], 0)
        self.assertIn('line 2 is longer than the line limit of 4096', want[2])
        for threads in ('2', '3'):
            self.assertSameRun(run_env({}, '--threads', threads, '--max-line', '4096', '-Q',
                                       'select 1', path), want)

    def test_corrupt_stored_member_fails_the_same_way(self):
        path = self.zip_of('s.zip', [('a.json', self.json), ('b.txt', self.systrace)],
                           zipfile.ZIP_STORED)
        data = bytearray(read(path))
        at = data.find(b'"traceEvents"') + 40
        data[at] ^= 0x01  # the CRC no longer matches
        self.write('s.zip', bytes(data))
        got = run_env({}, '--quiet', '-Q', 'select count(*) from slice', path)
        want = run_env(KEEP, '--quiet', '-Q', 'select count(*) from slice', path)
        self.assertNotEqual(got[0], 0)
        self.assertSameRun(got, want)
        self.assertIn('a.json', got[2])

    def test_corrupt_deflated_member_fails_the_same_way(self):
        """Deflated members inflated in place from the mapping (libdeflate)
        and read through libarchive (WEFT_INPUT_MMAP=0) fail alike when the
        compressed bytes or the CRC are wrong, and a flipped bit that still
        inflates is caught by the CRC."""
        members = [('a.json', self.json), ('b.txt', self.systrace)]
        good = read(self.zip_of('d.zip', members, zipfile.ZIP_DEFLATED))
        with zipfile.ZipFile(io.BytesIO(good)) as z:
            info = z.getinfo('a.json')
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        for name, at in (('middle', start + info.compress_size // 2),
                         ('first byte', start), ('crc', info.header_offset + 14)):
            data = bytearray(good)
            data[at] ^= 0x10
            path = self.write('d.zip', bytes(data))
            got = run_env({}, '--quiet', '-Q', 'select count(*) from slice', path)
            want = run_env(KEEP, '--quiet', '-Q', 'select count(*) from slice', path)
            self.assertNotEqual(got[0], 0, name)
            self.assertSameRun(got, want)
            self.assertIn('a.json', got[2], name)

    def test_gzip_files_unpacked_ahead(self):
        """Gzip files given together are inflated (and spilled and scanned)
        by jobs queued ahead of their turn: the same tables at 1, 2 and 3
        threads, with a two-member stream (read through zlib in its turn)
        among them; and a failure in an earlier file drops the jobs of the
        later ones cleanly."""
        paths = []
        for i in range(4):
            data = gzip.compress(json_trace(6000, 20 + i))
            if i == 2:  # two members: not inflated in one call
                data = gzip.compress(b' ' * 1000) + data
            paths.append(self.write('g%d.json.gz' % i, data))
        paths.append(self.write('s.txt.gz', gzip.compress(systrace_text(8000, 30))))
        q = self.write('q.sql', ';\n'.join(QUERIES) + ';')
        want = run_env({}, '--threads', '1', '--quiet', '-q', q, *paths)
        self.assertEqual(want[0], 0, want[2])
        for threads in ('2', '3'):
            self.assertSameRun(run_env({}, '--threads', threads, '--quiet', '-q', q, *paths),
                               want)
            self.assertSameRun(run_env({'WEFT_SPILL': '0'}, '--threads', threads, '--quiet',
                                       '-q', q, *paths), want)
        bad = self.write('bad.bin', b'\x07' * 100)  # of no known type
        for threads in ('1', '2', '3'):
            rc, _, err = run_env({}, '--threads', threads, '--quiet', '-Q', 'select 1',
                                 paths[0], bad, *paths[1:])
            self.assertNotEqual(rc, 0)
            self.assertIn('bad.bin', err)

    def test_damaged_gzip_fails_clearly(self):
        """A gzip stream that libdeflate refuses in one call (deferred to a
        job, then read again through zlib) fails with zlib's words and the
        file's name, whether its bytes were to be spilled or not."""
        good = gzip.compress(self.json)
        cases = (('truncated', good[:len(good) // 2], 'likely truncated'),
                 ('flipped', good[:len(good) // 2] + bytes([good[len(good) // 2] ^ 0x10]) +
                  good[len(good) // 2 + 1:], 'corrupt compressed data'),
                 ('crc', good[:-8] + bytes([good[-8] ^ 0xff]) + good[-7:], 'incorrect data check'))
        for name, data, words in cases:
            path = self.write(name + '.json.gz', data)
            for env in ({}, {'WEFT_SPILL': '0'}, KEEP):
                rc, _, err = run_env(env, '--quiet', '-Q', 'select count(*) from slice', path)
                self.assertNotEqual(rc, 0, name)
                self.assertIn(name + '.json.gz', err, name)
                self.assertIn('ERR:tp-corrupt', err, name)
                if name != 'flipped':  # a flipped bit may fail the CRC instead
                    self.assertIn(words, err, name)

    def test_truncated_archive_fails_the_same_way(self):
        path = self.zip_of('s.zip', [('a.json', self.json), ('b.txt', self.systrace)],
                           zipfile.ZIP_STORED)
        data = read(path)
        self.write('s.zip', data[:len(data) // 2])
        got = run_env({}, '--quiet', '-Q', 'select count(*) from slice', path)
        want = run_env(KEEP, '--quiet', '-Q', 'select count(*) from slice', path)
        self.assertSameRun(got, want)


if __name__ == '__main__':
    e.main()
