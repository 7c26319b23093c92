"""End-to-end: loading with several threads gives byte-identical tables to
--threads 1, on traces made by gen_traces.py (a ZIP + manifest of proto
traces with ftrace sched on many machines and Chrome JSON pinned to them; a
large Chrome JSON, systrace and proto file), and on archives of small
Chrome JSON members."""
import os
import tempfile
import unittest
import zipfile
import zlib

import gen_traces
import weft_e2e as e

MIB = gen_traces.MIB

# Every table the merge fills, whole rows in id order.
TABLES = ['slice', 'sched', 'thread_state', 'counter', 'args', 'thread',
          'process', 'track', 'machine', 'cpu', 'ftrace_event', 'flow',
          'clock_snapshot', 'metadata', 'trace_file']
# The trace uuid a trace without one gets hashes the input's raw bytes, so
# a stored and a deflated archive of the same members differ there only;
# the *_duration_ns stats are timings.
DUMP = ''.join('select * from %s%s order by id;\n' %
               (t, " where name != 'trace_uuid'" if t == 'metadata' else '')
               for t in TABLES) + \
    'select name, idx, severity, source, value, machine_id, trace_id from stats ' \
    "where value != 0 and name not glob '*_duration_ns' " \
    'order by name, idx, machine_id, trace_id;\n'

_GENERATED = {}
_GENERATED_DIR = tempfile.TemporaryDirectory()


def tearDownModule():
    _GENERATED_DIR.cleanup()


def generated(name, kind, size, files=1):
    """The path of a trace made by gen_traces, made once per run."""
    if name not in _GENERATED:
        path = os.path.join(_GENERATED_DIR.name, name)
        with open(path, 'wb') as f:
            f.write(gen_traces.generate(kind, size, files=files))
        _GENERATED[name] = path
    return _GENERATED[name]


class GeneratedTracesTest(e.TempDirTest):
    """Tests over the generated traces: a merge archive of 40 members
    (proto traces with ftrace sched on many machines, Chrome JSON pinned to
    them), and a Chrome JSON and a systrace file above the size (8 MiB)
    from which two threads share a file's scan or tokenize it in chunks."""

    @classmethod
    def setUpClass(cls):
        cls.trace = generated('merge.zip', 'merge', 6 * MIB, files=40)
        cls.json = generated('big.json', 'json', 9 * MIB)
        cls.systrace = generated('big.systrace', 'systrace', 9 * MIB)

    def dump(self, threads, trace=None, env=None):
        """Every table (DUMP) of the trace (the merge archive by default)."""
        return e.query(DUMP, trace or self.trace, threads=threads, env=env, timeout=300)


class DeterminismTest(GeneratedTracesTest):
    def test_threads_give_identical_tables(self):
        one = self.dump(1)
        self.assertGreater(one.count('\n'), 100000)  # the tables are filled
        for threads in (2, 3):
            other = self.dump(threads)
            self.assertTrue(one == other, 'threads %d differs from 1' % threads)

    def test_prepared_events_same_as_parsed_alone(self):
        # With its prepare step the merging thread decodes events (proto
        # packets and ftrace events, JSON objects, systrace lines) ahead of
        # their parse; WEFT_PREPARE=0 leaves every event to its parse.
        for trace in (self.trace, self.json, self.systrace):
            alone = self.dump(1, trace, env={'WEFT_PREPARE': '0'})
            self.assertGreater(alone.count('\n'), 100000)
            self.assertTrue(alone == self.dump(2, trace), 'prepared differs: ' + trace)

    def test_large_json_scan_shared_by_threads(self):
        one = self.dump(1, self.json)
        self.assertGreater(one.count('\n'), 100000)
        self.assertTrue(one == self.dump(2, self.json), 'threads 2 differs from 1')

    def test_large_systrace_same_with_threads(self):
        one = self.dump(1, self.systrace)
        self.assertGreater(one.count('\n'), 100000)
        for threads in (2, 3):
            self.assertTrue(one == self.dump(threads, self.systrace),
                            'threads %d differs from 1' % threads)

    def test_deflated_archive_same_as_stored(self):
        # Deflated members are inflated (and scanned) by pool jobs ahead of
        # their turn; the tables are those of the stored archive, whose
        # members are read in place, at any thread count.
        deflated = os.path.join(self.dir, 'deflated.zip')
        with zipfile.ZipFile(self.trace) as src, \
                zipfile.ZipFile(deflated, 'w', zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                dst.writestr(info.filename, src.read(info.filename))
        one = self.dump(1, deflated)
        self.assertTrue(one == self.dump(2, deflated), 'threads 2 differs from 1')
        self.assertTrue(one == self.dump(3, deflated), 'threads 3 differs from 1')
        # All but trace_file, whose rows name the archive and its size.
        cut = 'select * from trace_file order by id;\n'
        self.assertIn(cut, DUMP)
        runs = [e.query(DUMP.replace(cut, ''), trace, threads=2, timeout=300)
                for trace in (self.trace, deflated)]
        self.assertGreater(runs[0].count('\n'), 100000)
        self.assertTrue(runs[0] == runs[1], 'the deflated archive differs from the stored one')


def proto_packets(data):
    """The top-level TracePacket records (field 1) of a proto trace, each
    with its tag and length prefix."""
    return [raw for _, _, raw in e.proto_fields(data)]


COMPRESSED_PACKETS = 50  # TracePacket.compressed_packets


def compressed(packets, per_group, level=6):
    """The same packets, every `per_group` of them inside one
    TracePacket.compressed_packets (zlib at `level`; 0 stores them)."""
    groups = (b''.join(packets[i:i + per_group]) for i in range(0, len(packets), per_group))
    return b''.join(e.pb_packet(e.pb_bytes(COMPRESSED_PACKETS, zlib.compress(g, level)))
                    for g in groups)


COMPRESSED_STATS = ("select name, value from stats where name like 'compressed%' "
                    "and value != 0 order by name;")
# A compressed_packets payload that is no zlib stream.
CORRUPT = e.pb_packet(e.pb_bytes(COMPRESSED_PACKETS, b'\x78\x9c\x01\x02garba'))


# What a proto trace puts in the tables (not its file size or name).
PROTO_DUMP = ''.join('select * from %s order by id;\n' % t for t in
                     ['slice', 'sched', 'thread_state', 'counter', 'args', 'thread',
                      'process', 'track', 'ftrace_event'])
MACHINE_ID = 98  # TracePacket.machine_id
KEEP_INPUT = {'WEFT_INPUT_MMAP': '0', 'WEFT_INPUT_RELEASE': '0'}


class InputReleaseProtoTest(GeneratedTracesTest):
    """Proto packets and ftrace events read in place and given back as they
    are parsed (and inflated compressed_packets freed once parsed) give the
    tables of input copied and kept to the end."""

    def test_merge_same_with_and_without_release(self):
        self.assertEqual(e.query(DUMP, self.trace, timeout=300),
                         e.query(DUMP, self.trace, env=KEEP_INPUT, timeout=300))

    def test_compressed_packets_same_as_plain(self):
        with zipfile.ZipFile(self.trace) as z:
            name = max((n for n in z.namelist() if n.endswith('.pftrace') or n.endswith('.pb')),
                       key=lambda n: z.getinfo(n).file_size)
            data = z.read(name)
        packets = proto_packets(data)
        self.assertGreater(len(packets), 100)
        plain = e.write_temp(self.dir, 'plain.pftrace', data)
        packed = e.write_temp(self.dir, 'packed.pftrace', compressed(packets, 37))
        want = e.query(PROTO_DUMP, plain, env=KEEP_INPUT, timeout=300)
        self.assertIn('sched_switch', want)
        self.assertEqual(e.query(PROTO_DUMP, plain, timeout=300), want)
        self.assertEqual(e.query(PROTO_DUMP, packed, timeout=300), want)
        self.assertEqual(e.query(PROTO_DUMP, packed, env=KEEP_INPUT, timeout=300), want)

    def test_compressed_members_inflated_ahead(self):
        # In an archive, the proto scan runs ahead on a worker and inflates
        # compressed_packets there (the briefs of proto_head.h); at one
        # thread tokenize inflates them. A corrupt payload and one over the
        # ratio limit are dropped and counted alike, and the tables are the
        # plain archive's.
        plain = os.path.join(self.dir, 'plain.zip')
        packed = os.path.join(self.dir, 'packed.zip')
        bad = CORRUPT + compressed([e.pb_packet() * 1000000], 1)
        with zipfile.ZipFile(self.trace) as src, \
                zipfile.ZipFile(plain, 'w') as p, zipfile.ZipFile(packed, 'w') as c:
            protos = 0
            for info in src.infolist():
                data = src.read(info.filename)
                p.writestr(info.filename, data)
                if info.filename.endswith('.pftrace') or info.filename.endswith('.pb'):
                    protos += 1
                    data = compressed(proto_packets(data), 23) + (bad if protos == 2 else b'')
                c.writestr(info.filename, data)
        self.assertGreater(protos, 3)
        want = e.query(PROTO_DUMP, plain, threads=2, timeout=300)
        self.assertIn('sched_switch', want)
        for threads in (1, 2, 3):
            self.assertEqual(e.query(PROTO_DUMP, packed, threads=threads, timeout=300), want,
                             'threads %d' % threads)
            got = e.query(COMPRESSED_STATS, packed, threads=threads, timeout=300)
            self.assertIn('compressed_packets_corrupt,1', got.replace('"', ''))
            self.assertIn('compressed_packets_over_limit,1', got.replace('"', ''))


def padded_bomb(packets=10, pad=100000):
    """A compressed_packets packet that inflates to about packets x pad
    bytes (TracePackets holding one unknown field of zeros): over a
    thousand times its size."""
    return compressed([e.pb_packet(e.pb_bytes(1000, bytes(pad)))] * packets, packets, 9)


class LargeProtoChunksTest(unittest.TestCase):
    """A proto file above 8 MiB is tokenized in chunks of about 4 MiB whose
    packet heads and compressed_packets workers read ahead (proto_scan.c):
    the tables and the counts of dropped payloads are one thread's."""

    @classmethod
    def setUpClass(cls):
        cls._dir = tempfile.TemporaryDirectory()
        with open(generated('big.pftrace', 'proto', 11 * MIB), 'rb') as f:
            cls.data = f.read()

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def setUp(self):
        self.dir = self._dir.name

    def test_plain_file_same_tables(self):
        self.assertGreater(len(self.data), 9 << 20)
        trace = e.write_temp(self.dir, 'plain.pftrace', self.data)
        sql = PROTO_DUMP
        want = e.query(sql, trace, threads=1, timeout=300)
        self.assertIn('sched_switch', want)
        for threads in (2, 3):
            self.assertEqual(e.query(sql, trace, threads=threads, timeout=300), want,
                             'threads %d' % threads)

    def with_machine_ids(self, order):
        """The trace with TracePacket.machine_id (field 98) set from `order`
        spread over its packets (0: none)."""
        packets = proto_packets(self.data)
        out = bytearray()
        for i, p in enumerate(packets):
            mid = order[i * len(order) // len(packets)]
            if mid:
                _, body = e.read_varint(p, 1)
                p = e.pb_packet(p[body:], e.pb_int(MACHINE_ID, mid))
            out += p
        return bytes(out)

    def test_machine_ids_in_later_chunks(self):
        # A large file's embedded machine ids, met in its later chunks too:
        # an id or unmarked data seen only in the second half still makes
        # the file multi-machine (one id alone would be adopted as the
        # file's machine), at any thread count.
        raw_ids = 'select raw_id from machine order by id;'
        cases = [([3] * 10 + [3, 9] * 5, ['0', '3', '9']),
                 ([3] * 10 + [3, 0] * 5, ['0', '3']),
                 ([3, 9, 3, 0, 4] * 3 + [9, 0, 12, 4, 6, 12, 3] * 3,
                  ['0', '3', '9', '4', '12', '6'])]
        for i, (order, want_ids) in enumerate(cases):
            trace = e.write_temp(self.dir, 'machines%d.pftrace' % i, self.with_machine_ids(order))
            for threads in (1, 2):
                self.assertEqual(e.query(raw_ids, trace, threads=threads, timeout=300).split(),
                                 ['"raw_id"'] + want_ids, 'case %d threads %d' % (i, threads))
        sql = 'select * from machine order by id;\n' + PROTO_DUMP
        want = e.query(sql, trace, threads=1, timeout=300)
        for threads in (2, 3):
            self.assertEqual(e.query(sql, trace, threads=threads, timeout=300), want,
                             'threads %d' % threads)

    def test_compressed_file_same_tables_and_drops(self):
        # Groups of packets compressed, a corrupt payload, and 80 bombs of
        # 1 MB each spread over the chunks: with --max-ratio 5 the file's
        # budget (64 MiB) runs out part way, where a chunk's worker, which
        # counts from its chunk's start, would still have inflated them.
        packets = proto_packets(self.data)
        # Most groups stored (level 0) so that the file stays above 8 MiB.
        groups = [compressed(packets[i:i + 23], 23, 6 if i % 8 == 0 else 0)
                  for i in range(0, len(packets), 23)]
        every = max(1, len(groups) // 80)
        out = bytearray()
        for i, g in enumerate(groups):
            out += g
            if i % every == 0:
                out += padded_bomb()
            if i == len(groups) // 2:
                out += CORRUPT
        self.assertGreater(len(out), 9 << 20)
        trace = e.write_temp(self.dir, 'packed.pftrace', bytes(out))
        plain = e.write_temp(self.dir, 'plain.pftrace', self.data)
        sql, stats = PROTO_DUMP, COMPRESSED_STATS
        want = e.query(sql, plain, threads=1, timeout=300)
        want_stats = e.query(stats, trace, threads=1, options=('--max-ratio', '5'), timeout=300)
        self.assertIn('compressed_packets_corrupt,1', want_stats.replace('"', ''))
        self.assertIn('compressed_packets_over_limit', want_stats)
        for threads in (1, 2, 3):
            self.assertEqual(e.query(sql, trace, threads=threads, timeout=300), want,
                             'threads %d' % threads)
            self.assertEqual(e.query(stats, trace, threads=threads, options=('--max-ratio', '5'),
                                     timeout=300), want_stats, 'threads %d' % threads)


def json_member(i, truncated=False):
    """A Chrome JSON trace using what the JSON scan notes besides events:
    metadata, displayTimeUnit, systemTraceEvents, events without ts, and
    optionally an unterminated event array."""
    events = []
    for k in range(300):
        ts = 1000 + k * 10
        events.append('{"ph":"X","name":"s%d","pid":%d,"tid":%d,"ts":%d,"dur":%d}'
                      % (k % 7, i + 1, i + 10, ts, 5 + k % 3))
        events.append('{"ph":"B","name":"b","pid":%d,"tid":%d,"ts":%d}' % (i + 1, i + 11, ts))
        events.append('{"ph":"E","pid":%d,"tid":%d,"ts":%d}' % (i + 1, i + 11, ts + 4))
    events.append('{"ph":"i","name":"no ts","pid":1,"tid":1}')
    body = ','.join(events)
    if truncated:
        return '[' + body + ',{"ph":"X","na'
    systrace = ('# tracer: nop\\n  <idle>-0 [000] ...1 %d.000100: sched_switch: '
                'prev_comm=swapper prev_pid=0 prev_prio=120 prev_state=R ==> '
                'next_comm=app%d next_pid=%d next_prio=120\\n' % (i + 1, i, 100 + i))
    return ('{"displayTimeUnit":"ns","metadata":{"member":%d,"name":"m%d"},'
            '"traceEvents":[%s],"systemTraceEvents":"%s"}' % (i, i, body, systrace))


class JsonScanAheadTest(e.TempDirTest):
    """Archives of Chrome JSON members, whose scans run ahead on worker
    threads, load the same tables as with one thread; a malformed member
    fails the load naming it, with its neighbours' scans in flight."""

    def zip_of(self, name, members):
        path = os.path.join(self.dir, name)
        with zipfile.ZipFile(path, 'w') as z:
            for i, data in enumerate(members):
                z.writestr('m%02d.json' % i, data,
                           compress_type=zipfile.ZIP_DEFLATED if i % 2 else zipfile.ZIP_STORED)
        return path

    def test_same_tables_with_threads(self):
        members = [json_member(i) for i in range(11)] + [json_member(11, truncated=True)]
        trace = self.zip_of('json.zip', members)
        runs = {threads: e.query(DUMP, trace, threads=threads) for threads in (1, 2, 4)}
        self.assertIn('json_metadata.member', runs[1])
        self.assertIn('json_display_time_unit', runs[1])
        self.assertIn('json_tokenizer_failure', runs[1])
        self.assertIn('sched_switch', runs[1])
        self.assertEqual(runs[2], runs[1])
        self.assertEqual(runs[4], runs[1])

    def test_bad_member_named(self):
        members = [json_member(i) for i in range(8)]
        members[2] = '{"traceEvents":[{"ph":"X",,}]}'
        trace = self.zip_of('bad.zip', members)
        for threads in (1, 3):
            rc, out, err = e.run('--threads', str(threads), '-q',
                                 e.write_temp(self.dir, 'q.sql', 'select 1;'), trace)
            self.assertNotEqual(rc, 0)
            self.assertLess(rc, 128, err)
            self.assertIn('m02.json', err)


class ScanAheadFilesTest(JsonScanAheadTest):
    """The same for plain files given one by one on the command line, whose
    scans also run ahead (weft_load_paths), with an archive among them."""

    def files_of(self, members, prefix):
        return [e.write_temp(self.dir, '%s%02d.json' % (prefix, i), data)
                for i, data in enumerate(members)]

    def test_same_tables_with_threads(self):
        members = [json_member(i) for i in range(11)] + [json_member(11, truncated=True)]
        paths = self.files_of(members, 'f')
        paths.insert(5, self.zip_of('mid.zip', [json_member(20 + i) for i in range(3)]))
        runs = {threads: e.query(DUMP, *paths, threads=threads) for threads in (1, 2, 4)}
        self.assertIn('json_metadata.member', runs[1])
        self.assertIn('json_tokenizer_failure', runs[1])
        self.assertIn('mid.zip', runs[1])
        self.assertEqual(runs[2], runs[1])
        self.assertEqual(runs[4], runs[1])

    def test_files_load_as_the_archive_does(self):
        members = [json_member(i) for i in range(9)]
        sql = 'select ts, dur, name, depth from slice order by id;\nselect count(*) from thread;\n'
        from_zip = e.query(sql, self.zip_of('all.zip', members), threads=2)
        from_files = e.query(sql, *self.files_of(members, 'g'), threads=2)
        self.assertEqual(from_files, from_zip)

    def test_bad_member_named(self):
        members = [json_member(i) for i in range(8)]
        members[2] = '{"traceEvents":[{"ph":"X",,}]}'
        paths = self.files_of(members, 'b')
        q = e.write_temp(self.dir, 'q.sql', 'select 1;')
        for threads in (1, 3):
            rc, out, err = e.run('--threads', str(threads), '-q', q, *paths)
            self.assertNotEqual(rc, 0)
            self.assertLess(rc, 128, err)
            self.assertIn('b02.json', err)
        # A file that cannot be opened, after files whose scans are queued.
        good = self.files_of([json_member(i) for i in range(6)], 'c')
        missing = os.path.join(self.dir, 'missing.json')
        for threads in (1, 3):
            rc, out, err = e.run('--threads', str(threads), '-q', q, good[0], missing, *good[1:])
            self.assertNotEqual(rc, 0)
            self.assertLess(rc, 128, err)
            self.assertIn('missing.json', err)


if __name__ == '__main__':
    e.main()
