"""End-to-end: hostile inputs (tests/hostile/gen.py) are answered quickly,
without a crash, with a clear message naming the file (or a partial load),
and with peak RSS under 2 GiB. Each case runs in its own child process so
getrusage(RUSAGE_CHILDREN) measures that case alone."""
import json
import os
import subprocess
import sys
import zlib

import weft_e2e as e

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'hostile'))
import gen  # noqa: E402

MAX_SECONDS = float(os.environ.get('WEFT_HOSTILE_MAX_SECONDS', '30'))
MAX_RSS_KIB = 2 * 1024 * 1024

# Runs argv, prints {"rc", "seconds", "rss_kib", "stderr"} of that one child.
MEASURE = r'''
import json, resource, subprocess, sys, time
start = time.monotonic()
p = subprocess.run(sys.argv[1:], capture_output=True, timeout=300)
print(json.dumps({"rc": p.returncode, "seconds": time.monotonic() - start,
                  "rss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  "stderr": p.stderr.decode(errors="replace")}))
'''


def measure(argv):
    env = dict(os.environ)
    # Under ASan: large allocations fail (NULL) instead of aborting, as they
    # would with the real allocator.
    env.setdefault('ASAN_OPTIONS', 'allocator_may_return_null=1')
    out = subprocess.run([sys.executable, '-c', MEASURE, *argv], capture_output=True,
                         env=env, timeout=400)
    return json.loads(out.stdout)


class HostileTest(e.TempDirTest):
    def check_case(self, case):
        name = case.filename if isinstance(case.filename, bytes) else case.filename.encode()
        path = os.path.join(self.dir.encode(), name)
        with open(path, 'wb') as f:
            f.write(case.data)
        r = measure([e.WEFT, *case.flags, '-Q', 'select count(*) from slice', path])
        what = f'{case.name}: rc={r["rc"]} {r["seconds"]:.1f}s rss={r["rss_kib"] // 1024}MiB ' \
               f'stderr={r["stderr"][:300]!r}'
        print(what)
        self.assertGreaterEqual(r['rc'], 0, what)  # not killed by a signal
        self.assertLess(r['rc'], 128, what)
        self.assertNotIn('Sanitizer', r['stderr'], what)
        self.assertNotIn('runtime error', r['stderr'], what)
        self.assertLess(r['seconds'], MAX_SECONDS, what)
        self.assertLess(r['rss_kib'], MAX_RSS_KIB, what)
        if case.expect == 'load':
            self.assertEqual(r['rc'], 0, what)
        if case.expect == 'error':
            self.assertEqual(r['rc'], 1, what)
        if r['rc'] != 0:
            self.assertEqual(r['rc'], 1, what)
            lines = r['stderr'].strip().split('\n')
            self.assertEqual(len(lines), 1, what)
            shown = os.path.basename(name).decode(errors='replace')
            self.assertIn(shown, lines[0], what)
            for word in case.words:
                self.assertIn(word, lines[0], what)


class LimitFlagsTest(e.TempDirTest):
    def test_bad_values_are_usage_errors(self):
        for flag in ('--max-decompressed', '--max-ratio', '--max-archive-depth',
                     '--max-members', '--max-json-depth', '--max-line', '--max-string'):
            for value in ('0', '-1', 'x', '5000000000000'):
                if flag == '--max-decompressed' and value == '5000000000000':
                    continue  # a valid 64-bit size
                rc, _, err = e.run(flag, value, '-Q', 'select 1', 'none.json')
                self.assertEqual(rc, 2, f'{flag} {value}: {err}')
                self.assertIn(flag, err)


class CompressedPacketsTest(e.TempDirTest):
    """compressed_packets payloads that are not decoded are counted (weft's
    compressed_packets_over_limit / _corrupt stats) and reported."""

    def test_dropped_payloads_are_counted_and_reported(self):
        def compressed(payload):  # TracePacket.compressed_packets
            return e.pb_packet(e.pb_bytes(50, payload))
        valid = compressed(zlib.compress(gen.PROTO_PACKET * 3))
        bomb = compressed(b'\x78\x9c' + gen.deflate_zeros(64 * gen.MIB))
        corrupt = compressed(b'\x78\x9c\x01\x02garbage')
        nested = compressed(zlib.compress(valid))
        path = e.write_temp(self.dir, 'packed.pb',
                            gen.PROTO_PACKET + valid + bomb + corrupt + nested + bomb)
        sql = ("select name, value, severity from stats where name like "
               "'compressed_packets%' order by name; select count(*) as n from slice")
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"name","value","severity"\n'
                         '"compressed_packets_corrupt",2,"data_loss"\n'
                         '"compressed_packets_over_limit",2,"data_loss"\n\n'
                         '"n"\n4\n')
        rc, out, err = e.run('--stats-on-load', '-Q', 'select 1', path)
        self.assertEqual(rc, 0, err)
        self.assertIn('compressed_packets_over_limit = 2 in ', err)
        self.assertIn('--max-decompressed', err)
        self.assertIn('compressed_packets_corrupt = 2 in ', err)
        # A lower --max-decompressed drops the valid payload too.
        rc, out, err = e.run('--max-decompressed', '16', '-Q',
                             "select value from stats where name = "
                             "'compressed_packets_over_limit'", path)
        self.assertEqual((rc, out), (0, '"value"\n4\n'), err)


def _make_test(case):
    def test(self):
        self.check_case(case)
    return test


for _case in gen.cases():
    setattr(HostileTest, 'test_' + _case.name, _make_test(_case))

if __name__ == '__main__':
    e.main()
