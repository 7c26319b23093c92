"""End-to-end: ZIP and TAR inputs are read from their files as they are
unpacked, never held whole in memory."""
import io
import os
import subprocess
import sys
import tarfile
import zipfile

import weft_e2e as e

PAD = 96 << 20  # a member weft skips (hidden path): never decompressed
TRACE = b'{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":2,"name":"s"}]}'

# Peak RSS of one weft run, measured in a fresh child so nothing else counts.
PEAK_RSS = r'''
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, capture_output=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
'''


class StreamingTest(e.TempDirTest):
    def peak_rss(self, *args):
        out = subprocess.run([sys.executable, '-c', PEAK_RSS, e.WEFT, *args],
                             check=True, capture_output=True, text=True).stdout
        return int(out)

    def check(self, path):
        rc, out, err = e.run('-Q', 'select count(*) as n from slice', path)
        self.assertEqual((rc, out), (0, '"n"\n1\n'), err)
        rss = self.peak_rss('-Q', 'select 1', path)
        self.assertLess(rss, PAD // 2, 'the archive was read into memory')

    def test_zip_is_streamed(self):
        path = os.path.join(self.dir, 'big.zip')
        with zipfile.ZipFile(path, 'w', zipfile.ZIP_STORED) as z:
            z.writestr('.pad/blob', b'\0' * PAD)
            z.writestr('trace.json', TRACE)
        self.check(path)

    def test_tar_is_streamed(self):
        path = os.path.join(self.dir, 'big.tar')
        with tarfile.open(path, 'w') as t:
            for name, data in (('.pad', b'\0' * PAD), ('trace.json', TRACE)):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        self.check(path)

    def test_many_stored_members(self):
        """Stored members are mapped one by one up to a cap (8,192); the
        rest are read in place from the archive's mapping: all load."""
        count = 8300
        path = os.path.join(self.dir, 'many.zip')
        with zipfile.ZipFile(path, 'w', zipfile.ZIP_STORED) as z:
            for i in range(count):
                z.writestr('t%05d.json' % i, TRACE.replace(b'"ts":1', b'"ts":%d' % (i + 1)))
        rc, out, err = e.run('-Q', 'select count(*) as n, sum(ts) as s from slice', path)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"n","s"\n%d,%d\n' % (count, 1000 * count * (count + 1) // 2))  # us -> ns


if __name__ == '__main__':
    e.main()
