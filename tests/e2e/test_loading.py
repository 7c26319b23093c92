"""End-to-end: JSON import, merging several inputs, archives, manifests."""
import gzip
import io
import json
import os
import tarfile
import zipfile

import weft_e2e as e

APP = {"traceEvents": [
    {"ph": "M", "pid": 1, "tid": 1, "name": "process_name", "args": {"name": "app"}},
    {"ph": "X", "pid": 1, "tid": 1, "ts": 10, "dur": 100, "name": "outer", "cat": "c"},
    {"ph": "X", "pid": 1, "tid": 1, "ts": 20, "dur": 30, "name": "inner",
     "args": {"n": 7, "s": "x", "nested": {"a": [1, 2]}}},
    {"ph": "B", "pid": 1, "tid": 2, "ts": 200.5, "name": "open"},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 300},
    {"ph": "C", "pid": 1, "ts": 50, "name": "mem", "args": {"rss": 5}},
]}
SERVER = [{"ph": "X", "pid": 9, "tid": 9, "ts": 5, "dur": 1, "name": "server_slice"}]


class LoadingTest(e.TempDirTest):
    def write_inputs(self):
        a = e.write_temp(self.dir, 'a.json', json.dumps(APP))
        b = e.write_temp(self.dir, 'b.json', json.dumps(SERVER))
        return a, b

    def test_trace_uuid_made_from_the_first_input(self):
        # A trace that carries no uuid gets the FNV-1a 64 hash of its first
        # input's first 4096 raw bytes as the last 16 hex digits of a zero
        # uuid (archives and compressed files hashed as they are stored).
        a, b = self.write_inputs()
        h = 0xcbf29ce484222325
        with open(a, 'rb') as f:
            for byte in f.read(4096):
                h = ((h ^ byte) * 0x100000001b3) & ((1 << 64) - 1)
        digits = '%016x' % h
        want = '00000000-0000-0000-%s-%s' % (digits[:4], digits[4:])
        out = e.query("select str_value, machine_id, trace_id from metadata "
                      "where name = 'trace_uuid'", a, b)
        self.assertEqual(out, '"str_value","machine_id","trace_id"\n'
                         f'"{want}","[NULL]","[NULL]"\n')

    def test_slices_depth_args(self):
        a, _ = self.write_inputs()
        out = e.query('select name, ts, dur, depth, parent_id from slice order by id', a)
        self.assertEqual(out, '"name","ts","dur","depth","parent_id"\n'
                         '"outer",10000,100000,0,"[NULL]"\n'
                         '"inner",20000,30000,1,0\n'
                         '"open",200500,99500,0,"[NULL]"\n')
        out = e.query("select extract_arg(arg_set_id, 'args.n') as n, "
                      "extract_arg(arg_set_id, 'args.nested.a[1]') as a1 "
                      "from slice where name = 'inner'", a)
        self.assertEqual(out, '"n","a1"\n7,2\n')
        out = e.query("select flat_key from args where key = 'args.nested.a[0]'", a)
        self.assertEqual(out, '"flat_key"\n"args.nested.a"\n')

    def test_process_names_and_counters(self):
        a, _ = self.write_inputs()
        out = e.query('select p.name, c.value from counter c join process_counter_track t '
                      'on c.track_id = t.id join process p using (upid)', a)
        self.assertEqual(out, '"name","value"\n"app",5.000000\n')
        out = e.query('select start_ts, end_ts from trace_bounds', a)
        self.assertEqual(out, '"start_ts","end_ts"\n10000,300000\n')

    def test_two_files_merge(self):
        a, b = self.write_inputs()
        out = e.query('select name, trace_type, processing_order from trace_file order by id', a, b)
        self.assertEqual(out, '"name","trace_type","processing_order"\n'
                         f'"{a}","json",0\n"{b}","json",1\n')
        out = e.query("select count(*) as n from slice", a, b)
        self.assertEqual(out, '"n"\n4\n')

    def archive_rows(self, path):
        return e.query('select parent_id, name, trace_type, processing_order '
                       'from trace_file order by id', path)

    def test_zip_tar_gzip(self):
        app, server = json.dumps(APP).encode(), json.dumps(SERVER).encode()
        zpath = os.path.join(self.dir, 't.zip')
        with zipfile.ZipFile(zpath, 'w', zipfile.ZIP_DEFLATED) as z:
            z.writestr('b.json', server)
            z.writestr('a.json', app)
            z.writestr('.hidden/x.json', app)
        # Ids follow archive order, processing_order the sorted order.
        self.assertEqual(self.archive_rows(zpath),
                         '"parent_id","name","trace_type","processing_order"\n'
                         '"[NULL]","[NULL]","zip",0\n0,"b.json","json",2\n0,"a.json","json",1\n')
        tpath = os.path.join(self.dir, 't.tar')
        with tarfile.open(tpath, 'w') as t:
            for name, data in (('a.json', app), ('b.json', server)):
                info = tarfile.TarInfo(name)
                info.size = len(data)
                t.addfile(info, io.BytesIO(data))
        self.assertIn('0,"b.json","json",2', self.archive_rows(tpath))
        gpath = e.write_temp(self.dir, 'a.json.gz', gzip.compress(app))
        self.assertEqual(self.archive_rows(gpath),
                         '"parent_id","name","trace_type","processing_order"\n'
                         '"[NULL]","[NULL]","gzip",0\n0,"","json",1\n')
        out = e.query('select count(*) as n from slice', zpath)
        self.assertEqual(out, '"n"\n4\n')

    def test_gzip_forms_read_alike(self):
        # One member (inflated in one call), two concatenated members and a
        # member followed by zeros (read by zlib) give the plain file's
        # tables; a damaged stream fails alike whichever path tried first.
        data = json.dumps(APP).encode()
        dump = 'select name, ts, dur from slice order by ts, name'
        want = e.query(dump, e.write_temp(self.dir, 'plain.json', data))
        half = len(data) // 2
        forms = {'one.json.gz': gzip.compress(data),
                 'two.json.gz': gzip.compress(data[:half]) + gzip.compress(data[half:]),
                 'zeros.json.gz': gzip.compress(data) + bytes(64)}
        for name, blob in forms.items():
            self.assertEqual(e.query(dump, e.write_temp(self.dir, name, blob)), want, name)
        bad = bytearray(gzip.compress(data))
        bad[-8] ^= 0xff  # the trailer's CRC
        rc, out, err = e.run('-q', e.write_temp(self.dir, 'q.sql', dump),
                             e.write_temp(self.dir, 'bad.json.gz', bytes(bad)))
        self.assertIn('gzip stream: corrupt compressed data: incorrect data check', err)

    def test_manifest_machines_and_pin_offset(self):
        manifest = {"perfetto_manifest": {"version": 1, "files": [
            {"path": "a.json", "machine": {"name": "phone"}},
            {"path": "b.json", "machine": {"name": "server"},
             "clocks": {"sync_to": {"file": "a.json"}, "offset_ns": 1000}}]}}
        zpath = os.path.join(self.dir, 'm.zip')
        with zipfile.ZipFile(zpath, 'w') as z:
            z.writestr('a.json', json.dumps(APP))
            z.writestr('b.json', json.dumps(SERVER))
            z.writestr('perfetto_manifest.json', json.dumps(manifest))
        out = e.query("select s.name, s.ts, m.name as machine from slice s join thread_track t "
                      "on s.track_id = t.id join thread using (utid) join machine m "
                      "on thread.machine_id = m.id where s.name = 'server_slice'", zpath)
        self.assertEqual(out, '"name","ts","machine"\n"server_slice",6000,"server"\n')
        out = e.query("select raw_id, name from machine where name is not null order by id", zpath)
        self.assertEqual(out, '"raw_id","name"\n4294967296,"phone"\n4294967297,"server"\n')

    def test_pin_to_boottime_recorded_in_clock_snapshot(self):
        manifest = {"perfetto_manifest": {"version": 1, "files": [
            {"path": "a.json"},
            {"path": "b.json", "clocks": {"sync_to": {"file": "a.json", "clock": "BOOTTIME"},
                                          "offset_ns": 250}}]}}
        zpath = os.path.join(self.dir, 'pin.zip')
        with zipfile.ZipFile(zpath, 'w') as z:
            z.writestr('m.json', json.dumps(manifest))
            z.writestr('a.json', json.dumps(APP))
            z.writestr('b.json', json.dumps(SERVER))
        out = e.query("select ts from slice where name = 'server_slice'", zpath)
        self.assertEqual(out, '"ts"\n5250\n')
        out = e.query('select clock_id, clock_name, clock_value, snapshot_id from clock_snapshot', zpath)
        self.assertEqual(out, '"clock_id","clock_name","clock_value","snapshot_id"\n6,"BOOTTIME",250,0\n')

    def test_manifest_error_text(self):
        zpath = os.path.join(self.dir, 'bad.zip')
        with zipfile.ZipFile(zpath, 'w') as z:
            z.writestr('m.json', '{"perfetto_manifest": {"version": 2}}')
            z.writestr('a.json', json.dumps(APP))
        rc, _, err = e.run('-Q', 'select 1', zpath)
        self.assertNotEqual(rc, 0)
        self.assertIn('perfetto_manifest: unsupported version: 2', err)

    def test_truncated_json_keeps_what_was_read(self):
        text = json.dumps(APP)
        path = e.write_temp(self.dir, 'cut.json', text[:text.index('"open"') - 20])
        out = e.query("select count(*) as n, (select value from stats where "
                      "name = 'json_tokenizer_failure' and value > 0) as failed from slice", path)
        self.assertEqual(out, '"n","failed"\n2,1\n')


if __name__ == '__main__':
    e.main()
