"""End-to-end: Perfetto proto traces through the proto importer."""
import os
import shutil
import subprocess
import unittest

import weft_e2e as e

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
DATA = os.path.join(ROOT, 'tests', 'data', 'proto_import')
ENCODE = os.path.join(ROOT, 'scripts', 'encode_textproto.sh')


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class ProtoImportTest(e.TempDirTest):
    def encode(self, name):
        out = os.path.join(self.dir, name + '.pb')
        subprocess.run(['sh', ENCODE, os.path.join(DATA, name + '.textproto'),
                        out], check=True)
        return out

    def query(self, trace, sql):
        rc, out, err = e.run('-Q', sql, trace)
        self.assertEqual(rc, 0, err)
        return out

    def test_thread_slices(self):
        trace = self.encode('track_event')
        out = self.query(trace, 'select s.ts, s.dur, s.depth, s.category, s.name, '
                         't.name as thread, p.name as process from slice s '
                         'join thread_track tt on s.track_id = tt.id '
                         'join thread t using(utid) join process p using(upid) '
                         'order by s.ts')
        self.assertEqual(out, '"ts","dur","depth","category","name","thread","process"\n'
                         '1000,2000,0,"cat1","interned_slice","worker","proc_a"\n'
                         '1500,0,1,"[NULL]","inner","worker","proc_a"\n')

    def test_debug_annotation_args(self):
        trace = self.encode('track_event')
        out = self.query(trace, "select a.key, a.int_value from slice s join args a "
                         "using(arg_set_id) where s.name = 'interned_slice'")
        self.assertEqual(out, '"key","int_value"\n"debug.answer",42\n')

    def test_global_track_and_counter(self):
        trace = self.encode('track_event')
        out = self.query(trace, "select t.name, s.ts from slice s join track t "
                         "on s.track_id = t.id where s.name = 'on_global'")
        self.assertEqual(out, '"name","ts"\n"global_async",4000\n')
        out = self.query(trace, 'select t.name, c.ts, c.value from counter c '
                         'join track t on c.track_id = t.id')
        self.assertEqual(out, '"name","ts","value"\n"mem",5000,2.500000\n')


if __name__ == '__main__':
    e.main()
