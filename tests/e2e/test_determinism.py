"""End-to-end: loading with several threads gives byte-identical tables to
--threads 1, on a merge trace from the shared benchmark kit (ZIP + manifest,
proto traces with ftrace sched on many machines, Chrome JSON pinned to them)."""
import os
import subprocess
import sys
import unittest

import weft_e2e as e

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
KIT = os.environ.get('WEFT_SHARED', os.path.join(ROOT, '..', 'shared'))
GEN = os.path.join(KIT, 'bench', 'gen.py')

# Every table the merge fills, whole rows in id order.
TABLES = ['slice', 'sched', 'thread_state', 'counter', 'args', 'thread',
          'process', 'track', 'machine', 'cpu', 'ftrace_event', 'flow',
          'clock_snapshot', 'metadata', 'trace_file']
DUMP = ''.join('select * from %s order by id;\n' % t for t in TABLES) + \
    'select name, idx, severity, source, value, machine_id, trace_id from stats ' \
    'where value != 0 order by name, idx, machine_id, trace_id;\n'


@unittest.skipUnless(os.path.exists(GEN), 'shared bench kit not found: ' + GEN)
class DeterminismTest(e.TempDirTest):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._kit_dir = tempfile.TemporaryDirectory()
        cls.trace = os.path.join(cls._kit_dir.name, 'merge.zip')
        subprocess.run([sys.executable, GEN, 'merge', '6', cls.trace, '--files', '40'],
                       check=True, stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        cls._kit_dir.cleanup()

    def dump(self, threads):
        sql = e.write_temp(self.dir, 'dump.sql', DUMP)
        rc, out, err = e.run('--threads', str(threads), '-q', sql, self.trace)
        self.assertEqual(rc, 0, err)
        return out

    def test_threads_give_identical_tables(self):
        one = self.dump(1)
        self.assertGreater(one.count('\n'), 100000)  # the tables are filled
        for threads in (2, 3):
            other = self.dump(threads)
            self.assertTrue(one == other, 'threads %d differs from 1' % threads)


if __name__ == '__main__':
    e.main()
