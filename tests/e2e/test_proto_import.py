"""End-to-end: Perfetto proto traces through the proto importer."""
import os

import weft_e2e as e

DATA = os.path.join(e.ROOT, 'tests', 'data', 'proto_import')


class ProtoImportTest(e.TempDirTest):
    def encode(self, name):
        return e.encode_textproto(os.path.join(DATA, name + '.textproto'),
                                  os.path.join(self.dir, name + '.pb'))

    def test_thread_slices(self):
        trace = self.encode('track_event')
        out = e.query('select s.ts, s.dur, s.depth, s.category, s.name, '
                      't.name as thread, p.name as process from slice s '
                      'join thread_track tt on s.track_id = tt.id '
                      'join thread t using(utid) join process p using(upid) '
                      'order by s.ts', trace)
        self.assertEqual(out, '"ts","dur","depth","category","name","thread","process"\n'
                         '1000,2000,0,"cat1","interned_slice","worker","proc_a"\n'
                         '1500,0,1,"[NULL]","inner","worker","proc_a"\n')

    def test_debug_annotation_args(self):
        trace = self.encode('track_event')
        out = e.query("select a.key, a.int_value from slice s join args a "
                      "using(arg_set_id) where s.name = 'interned_slice'", trace)
        self.assertEqual(out, '"key","int_value"\n"debug.answer",42\n')

    def test_global_track_and_counter(self):
        trace = self.encode('track_event')
        out = e.query("select t.name, s.ts from slice s join track t "
                      "on s.track_id = t.id where s.name = 'on_global'", trace)
        self.assertEqual(out, '"name","ts"\n"global_async",4000\n')
        out = e.query('select t.name, c.ts, c.value from counter c '
                      'join track t on c.track_id = t.id', trace)
        self.assertEqual(out, '"name","ts","value"\n"mem",5000,2.500000\n')


if __name__ == '__main__':
    e.main()
