"""End-to-end: merging several traces, several machines, manifests, the
per-file merge flags and `weft merge`."""
import gzip
import io
import json
import os
import tarfile
import zipfile

import weft_e2e as e


SLICES = ('select s.name, s.ts, s.dur, m.name as machine from slice s '
          'join track t on s.track_id = t.id join machine m on t.machine_id = m.id '
          'order by s.ts, s.name')

BOOT, REAL = 6, 1


def snapshot(clocks, machine=None):
    body = ' '.join('clocks { clock_id: %d timestamp: %d }' % c for c in clocks)
    tail = ' machine_id: %d' % machine if machine else ''
    return 'packet { clock_snapshot { %s }%s }\n' % (body, tail)


def slice_packets(seq, tid, name, ts, dur, machine=None):
    tail = ' machine_id: %d' % machine if machine else ''
    return ('packet { trusted_packet_sequence_id: %d incremental_state_cleared: true thread_descriptor { pid: %d tid: %d }%s }\n'
            'packet { timestamp: %d trusted_packet_sequence_id: %d '
            'track_event { type: TYPE_SLICE_BEGIN name: "%s" }%s }\n'
            'packet { timestamp: %d trusted_packet_sequence_id: %d '
            'track_event { type: TYPE_SLICE_END }%s }\n'
            % (seq, tid, tid, tail, ts, seq, name, tail, ts + dur, seq, tail))


def overlong_machine_ids(trace):
    """The trace with every packet's machine_id tag written in three bytes
    (0x90 0x86 0x00) instead of two, which decodes the same."""
    out = bytearray()
    for _, _, raw in e.proto_fields(trace):
        _, i = e.read_varint(raw, 1)
        body = bytearray()
        for number, _, field in e.proto_fields(raw[i:]):
            body += b'\x90\x86\x00' + field[2:] if number == 98 else field
        out += b'\x0a' + e.varint(len(body)) + body
    return bytes(out)


def app_json(name, ts_us, dur_us):
    return json.dumps({'traceEvents': [{'ph': 'X', 'pid': 9, 'tid': 9, 'ts': ts_us,
                                        'dur': dur_us, 'name': name}]})


def manifest(files, **extra):
    body = {'version': 1, 'files': files}
    body.update(extra)
    return json.dumps({'perfetto_manifest': body})


class MergeBase(e.TempDirTest):
    def proto(self, name, text):
        return e.textproto_trace(self.dir, name, text)

    def zip(self, name, members):
        path = os.path.join(self.dir, name)
        with zipfile.ZipFile(path, 'w') as z:
            for member, data in members.items():
                if isinstance(data, str) and os.path.exists(data):
                    z.write(data, member)
                else:
                    z.writestr(member, data)
        return path

    def query(self, *args, sql=SLICES):
        """The answer to sql (the slices by default) on the inputs and
        options in args."""
        return e.query(sql, *args)

    def relay(self):
        # Host packets carry no machine id; the VM's carry 7 and a
        # RemoteClockSync places its BOOTTIME 48 s before the host's.
        sync = ('packet { machine_id: 7 remote_clock_sync { '
                'synced_clocks { client_clocks { clocks { clock_id: 6 timestamp: 50000000000 } } '
                'host_clocks { clocks { clock_id: 6 timestamp: 2000000000 } } } '
                'synced_clocks { client_clocks { clocks { clock_id: 6 timestamp: 50000000000 } } '
                'host_clocks { clocks { clock_id: 6 timestamp: 2000000000 } } } } }\n')
        return self.proto('relay.pb', snapshot([(BOOT, 1000000000)]) +
                          slice_packets(1, 1, 'host_slice', 1100000000, 10) + sync +
                          slice_packets(2, 7, 'vm_slice', 50100000000, 10, machine=7))



class MergeTest(MergeBase):
    # Two phones recorded independently: BOOTTIMEs unrelated, REALTIME shared.
    def phones(self):
        a = self.proto('phone_a.pb', snapshot([(BOOT, 1000), (REAL, 1700000000000001000)]) +
                       slice_packets(1, 10, 'a_work', 2000, 100))
        b = self.proto('phone_b.pb', snapshot([(BOOT, 900000), (REAL, 1700000000000000000)]) +
                       slice_packets(2, 20, 'b_work', 901500, 100))
        return a, b

    def test_two_phones_aligned_by_realtime_rendezvous(self):
        a, b = self.phones()
        z = self.zip('phones.zip', {
            'perfetto_manifest.json': manifest([
                {'path': 'phone_a.pb', 'machine': {'name': 'pa'}},
                {'path': 'phone_b.pb', 'machine': {'name': 'pb'}}]),
            'phone_a.pb': a, 'phone_b.pb': b})
        # b_work is at REALTIME ...1500, a_work at ...2000; trace time is
        # phone_a's BOOTTIME (first claimer): b_work = 1000 + 1500 - 1000.
        self.assertEqual(self.query(z), '"name","ts","dur","machine"\n'
                         '"b_work",1500,100,"pb"\n"a_work",2000,100,"pa"\n')
        # The same with the per-file flags instead of a manifest.
        self.assertEqual(self.query('--machine', 'phone_a.pb=pa', '--machine',
                                    'phone_b.pb=pb', a, b),
                         '"name","ts","dur","machine"\n'
                         '"b_work",1500,100,"pb"\n"a_work",2000,100,"pa"\n')

    def test_systrace_follows_monotonic_without_a_snapshot_row(self):
        # The text's timestamps are MONOTONIC: the proto's snapshot places
        # them (BOOTTIME = MONOTONIC + 500). weft's own MONOTONIC alias is
        # no clock_snapshot row: only the proto's snapshot shows, as id 0.
        text = e.write_temp(self.dir, 'k.systrace', '# tracer: nop\n'
                            '  a-5 [000] .... 0.000002: tracing_mark_write: B|5|mark\n'
                            '  a-5 [000] .... 0.000003: tracing_mark_write: E|5\n')
        pb = self.proto('p.pb', snapshot([(BOOT, 1500), (3, 1000)]) +
                        slice_packets(1, 10, 'work', 2000, 100))
        self.assertEqual(self.query(text, pb, sql='select name, ts from slice order by ts'),
                         '"name","ts"\n"work",2000\n"mark",2500\n')
        self.assertEqual(self.query(text, pb, sql='select clock_name, clock_value, snapshot_id '
                                    'from clock_snapshot order by clock_id'),
                         '"clock_name","clock_value","snapshot_id"\n'
                         '"MONOTONIC",1000,0\n"BOOTTIME",1500,0\n')

    def test_machine_rows_in_the_order_machines_are_needed(self):
        # The manifest's named machines come first; the host gets a row only
        # when a file on it starts, after them. Without trace_time the first
        # file processed (a_host.pb, archive order sorted) claims trace time.
        a, b = self.phones()
        members = {'a_host.pb': b, 'perfetto_manifest.json': manifest(
            [{'path': 'z_named.pb', 'machine': {'name': 'pz'}}]), 'z_named.pb': a}
        z = self.zip('rows.zip', members)
        # label_index: the host is 0, the others count from 1.
        self.assertEqual(self.query(z, sql='select id, raw_id, name, label_index from machine'),
                         '"id","raw_id","name","label_index"\n'
                         '0,4294967296,"pz",1\n1,0,"[NULL]",0\n')
        self.assertEqual(self.query(z), '"name","ts","dur","machine"\n'
                         '"b_work",901500,100,"[NULL]"\n"a_work",902000,100,"pz"\n')
        # trace_time without a file is the clock of machine row 0: pz's.
        members['perfetto_manifest.json'] = manifest(
            [{'path': 'z_named.pb', 'machine': {'name': 'pz'}}],
            trace_time={'clock': 'BOOTTIME'})
        z = self.zip('rows_tt.zip', members)
        out = self.query(z, sql="select ts from slice where name = 'a_work'")
        self.assertEqual(out, '"ts"\n2000\n')

    def test_trace_file_ids_follow_archive_order(self):
        # Every member of an archive gets its id when the archive is opened,
        # in archive order; a nested container's members get theirs when it
        # is processed (manifest first, then sorted). A gzip member is "".
        app = app_json('x', 1, 1)
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, 'w') as z:
            z.writestr('x.json', app)
            z.writestr('w.json', app)
        members = (('b.json', app), ('inner.zip', inner.getvalue()),
                   ('a.json.gz', gzip.compress(app.encode())), ('dir/s.json', app),
                   ('perfetto_manifest.json', manifest([{'path': 'b.json'}])))
        want = ('"id","parent_id","name","trace_type","processing_order","is_container"\n'
                '0,"[NULL]","[NULL]","%s",0,1\n1,0,"b.json","json",7,0\n'
                '2,0,"inner.zip","zip",4,1\n3,0,"a.json.gz","gzip",2,1\n'
                '4,0,"dir/s.json","json",8,0\n'
                '5,0,"perfetto_manifest.json","perfetto_manifest",1,0\n'
                '6,3,"","json",3,0\n7,2,"x.json","json",6,0\n8,2,"w.json","json",5,0\n')
        sql = ('select id, parent_id, name, trace_type, processing_order, is_container '
               'from trace_file order by id')
        z = os.path.join(self.dir, 'nest.zip')
        with zipfile.ZipFile(z, 'w', zipfile.ZIP_DEFLATED) as f:
            for name, data in members:
                f.writestr(name, data)
        self.assertEqual(self.query(z, sql=sql), want % 'zip')
        t = os.path.join(self.dir, 'nest.tar')
        with tarfile.open(t, 'w') as f:
            for name, data in members:
                data = data.encode() if isinstance(data, str) else data
                info = tarfile.TarInfo(name)
                info.size = len(data)
                f.addfile(info, io.BytesIO(data))
        self.assertEqual(self.query(t, sql=sql), want % 'tar')

    def test_stats_per_trace_file_and_machine(self):
        # Global stats once with NULL scope (a value counted for a file goes
        # there); every other stat once per (machine, trace file) that had
        # data, the manifest and the archive not being trace files.
        a, b = self.phones()
        z = self.zip('stats.zip', {
            'perfetto_manifest.json': manifest([
                {'path': 'phone_a.pb', 'machine': {'name': 'pa'}},
                {'path': 'phone_b.pb', 'machine': {'name': 'pb'}}]),
            'phone_a.pb': a, 'phone_b.pb': b, 'app.json': app_json('x', 1, 1)})
        out = self.query(z, sql="select count(distinct name) as n, machine_id, trace_id "
                         "from stats where name in ('json_parser_failure', "
                         "'clock_sync_failure', 'trace_sorter_negative_timestamp_dropped') "
                         "group by 2, 3 order by 3")
        self.assertEqual(out, '"n","machine_id","trace_id"\n1,"[NULL]","[NULL]"\n'
                         '2,0,2\n2,1,3\n2,2,4\n')
        relay = self.zip('relay_stats.zip', {'m.json': manifest([{'path': 'relay.pb', 'machines': [
            {'id': 0, 'name': 'host'}, {'id': 7, 'name': 'vm'}]}]), 'relay.pb': self.relay()})
        out = self.query(relay, sql="select machine_id, trace_id from stats "
                         "where name = 'json_parser_failure'")
        self.assertEqual(out, '"machine_id","trace_id"\n0,2\n1,2\n')

    def test_manifest_metadata(self):
        # The manifest's own trace_type and size, and its attributes (a key
        # given twice: the last value).
        doc = ('{"perfetto_manifest": {"version": 1, "attributes": '
               '{"run": "a", "n": 42, "run": "b"}}}')
        z = self.zip('attrs.zip', {'m.json': doc, 'a.json': app_json('x', 1, 1)})
        out = self.query(z, sql="select name, int_value, str_value, trace_id from metadata "
                         "where name like 'manifest%' or trace_id = 1 order by name")
        self.assertEqual(out, '"name","int_value","str_value","trace_id"\n'
                         '"manifest_attribute.n",42,"[NULL]","[NULL]"\n'
                         '"manifest_attribute.run","[NULL]","b","[NULL]"\n'
                         '"trace_size_bytes",%d,"[NULL]",1\n'
                         '"trace_type","[NULL]","perfetto_manifest",1\n' % len(doc))

    def test_cpu_counters_kept_apart_per_machine(self):
        # Two systrace files on two named machines: each machine's cpufreq
        # and cpuidle counters get their own cpu tracks, machine_id set.
        def freq(f):
            return ('# tracer: nop\n'
                    '          <idle>-0     (-----) [000] d..2   10.000100: cpu_frequency: '
                    'state=%d cpu_id=0\n'
                    '          <idle>-0     (-----) [001] d..2   10.000200: cpu_idle: '
                    'state=1 cpu_id=1\n' % f)
        z = self.zip('cpufreq.zip', {
            'perfetto_manifest.json': manifest([
                {'path': 'a.systrace', 'machine': {'name': 'A'}},
                {'path': 'b.systrace', 'machine': {'name': 'B'}, 'clocks': {
                    'clock': 'BOOTTIME', 'sync_to': {'file': 'a.systrace', 'clock': 'BOOTTIME'}}}]),
            'a.systrace': freq(1000), 'b.systrace': freq(2000)})
        out = self.query(z, sql='select t.name, t.cpu, m.name as machine, c.value '
                         'from counter c join cpu_counter_track t on c.track_id = t.id '
                         'join machine m on t.machine_id = m.id order by 1, 3')
        self.assertEqual(out, '"name","cpu","machine","value"\n'
                         '"cpufreq",0,"A",1000.000000\n"cpufreq",0,"B",2000.000000\n'
                         '"cpuidle",1,"A",1.000000\n"cpuidle",1,"B",1.000000\n')

    def test_json_app_log_pinned_with_offset(self):
        phone = self.proto('phone.pb', snapshot([(BOOT, 1000000), (REAL, 5000000)]) +
                           slice_packets(1, 10, 'phone_work', 2000000, 1000))
        app = e.write_temp(self.dir, 'app.json', app_json('app_work', 100, 5))
        expected = ('"name","ts","dur","machine"\n'
                    '"phone_work",2000000,1000,"[NULL]"\n'
                    '"app_work",250100000,5000,"[NULL]"\n')
        z = self.zip('pinned.zip', {
            'perfetto_manifest.json': manifest([
                {'path': 'phone.pb'},
                {'path': 'app.json', 'clocks': {
                    'sync_to': {'file': 'phone.pb', 'clock': 'BOOTTIME'},
                    'offset_ns': 250000000}}]),
            'phone.pb': phone, 'app.json': app})
        self.assertEqual(self.query(z), expected)
        self.assertEqual(self.query('--sync', 'app.json=phone.pb', '--offset',
                                    'app.json=250ms', phone, app), expected)
        # --manifest applies a manifest to loose files (matched by base name).
        m = e.write_temp(self.dir, 'm.json', manifest([
            {'path': 'phone.pb'},
            {'path': 'app.json', 'clocks': {
                'sync_to': {'file': 'phone.pb', 'clock': 'BOOTTIME'},
                'offset_ns': 250000000}}]))
        self.assertEqual(self.query('--manifest', m, phone, app), expected)

    def test_relay_trace_remapped_with_machines(self):
        relay = self.relay()
        z = self.zip('relay.zip', {
            'm.json': manifest([{'path': 'relay.pb', 'machines': [
                {'id': 0, 'name': 'host'}, {'id': 7, 'name': 'vm'}]}]),
            'relay.pb': relay})
        self.assertEqual(self.query(z), '"name","ts","dur","machine"\n'
                         '"host_slice",1100000000,10,"host"\n'
                         '"vm_slice",2100000000,10,"vm"\n')
        out = self.query(z, sql='select name, raw_id >= 4294967296 as synthetic from machine '
                         'order by id')
        # No file is on an unnamed host, so there is no host row.
        self.assertEqual(out, '"name","synthetic"\n"host",1\n"vm",1\n')
        # Without a manifest the embedded id is the machine's raw id.
        out = self.query(relay, sql='select m.raw_id, count(*) as n from slice s join track t '
                         'on s.track_id = t.id join machine m on t.machine_id = m.id '
                         'group by 1 order by 1')
        self.assertEqual(out, '"raw_id","n"\n0,1\n7,1\n')

    def test_machine_ids_found_however_encoded(self):
        """The scan for embedded machine ids reads only the packets where a
        machine_id tag could be: it finds one whose tag is written in more
        bytes than needed, and invents none from a name holding the tag's
        bytes."""
        by_machine = ('select m.raw_id, count(*) as n from slice s join track t '
                      'on s.track_id = t.id join machine m on t.machine_id = m.id '
                      'group by 1 order by 1')
        relay = self.relay()
        want = self.query(relay, sql=by_machine)
        self.assertEqual(want, '"raw_id","n"\n0,1\n7,1\n')
        with open(relay, 'rb') as f:
            data = f.read()
        self.assertIn(b'\x90\x06\x07', data)
        long_tags = e.write_temp(self.dir, 'long.pb', overlong_machine_ids(data))
        self.assertEqual(self.query(long_tags, sql=by_machine), want)
        p = self.proto('tag_bytes.pb', snapshot([(BOOT, 5)]) +
                       slice_packets(1, 3, 'x\\220\\006\\007', 100, 10))
        out = self.query(p, sql='select m.raw_id, hex(s.name) as name from slice s '
                         'join track t on s.track_id = t.id join machine m '
                         'on t.machine_id = m.id')
        self.assertEqual(out, '"raw_id","name"\n0,"78900607"\n')

    def test_single_machine_trace_adopted_onto_host(self):
        p = self.proto('vm_only.pb', snapshot([(BOOT, 5)], machine=9) +
                       slice_packets(1, 3, 'only', 100, 10, machine=9))
        out = self.query(p, sql='select id, raw_id, label_index from machine')
        self.assertEqual(out, '"id","raw_id","label_index"\n0,9,1\n')

    def test_unplaceable_file_is_reported(self):
        a = self.proto('a.pb', snapshot([(BOOT, 1000), (REAL, 1700000000000001000)]) +
                       slice_packets(1, 10, 'a_work', 2000, 100))
        b = self.proto('b.pb', snapshot([(BOOT, 1000)]) + slice_packets(2, 20, 'lost', 1500, 1))
        rc, out, err = e.run('--stats-on-load', '--trace-time', 'REALTIME',
                             '--machine', 'a.pb=phone', '--machine', 'b.pb=server',
                             '-Q', 'select count(*) as n from slice', a, b)
        self.assertEqual(rc, 0, err)
        self.assertEqual(out, '"n"\n1\n')
        self.assertIn('3 events of ' + b + ' could not be placed: no clock path from its clocks '
                      'on machine server to trace time (REALTIME', err)
        out = self.query('--trace-time', 'REALTIME', '--machine', 'a.pb=phone',
                         '--machine', 'b.pb=server', a, b,
                         sql="select name, value from stats where value > 0 and "
                         "name glob 'clock_sync*' order by name")
        self.assertEqual(out, '"name","value"\n"clock_sync_failure",3\n'
                         '"clock_sync_unrelatable_clock_domains",1\n')

    def test_offset_before_trace_start_is_dropped_and_counted(self):
        phone = self.proto('phone.pb', snapshot([(BOOT, 1000)]) +
                           slice_packets(1, 10, 'phone_work', 2000, 100))
        app = e.write_temp(self.dir, 'app.json', app_json('early', 1, 1))
        out = self.query('--sync', 'app.json=phone.pb', '--offset', 'app.json=-1s', phone, app,
                         sql="select value from stats where "
                         "name = 'trace_sorter_negative_timestamp_dropped'")
        self.assertEqual(out, '"value"\n1\n')

    def test_sched_on_hundreds_of_machines(self):
        # 300 systrace files, each on its own machine pinned to the first
        # file's clock: every machine's sched rows are kept (the cpu rows of
        # machine m are m * 4096 + cpu, as Perfetto numbers them; dev0 is
        # machine 0, there being no host row).
        switch = ('          <idle>-0     (-----) [001] d..2   10.%06d: sched_switch: '
                  'prev_comm=%s prev_pid=%d prev_prio=120 prev_state=R ==> '
                  'next_comm=%s next_pid=%d next_prio=120\n')
        members, files = {}, []
        for i in range(300):
            name = 'm%03d.systrace' % i
            members[name] = ('# tracer: nop\n' + switch % (i, 'swapper/1', 0, 'w', 100 + i) +
                             switch % (500 + i, 'w', 100 + i, 'swapper/1', 0))
            entry = {'path': name, 'machine': {'name': 'dev%d' % i}}
            if i:
                entry['clocks'] = {'clock': 'BOOTTIME', 'sync_to': {'file': 'm000.systrace', 'clock': 'BOOTTIME'}}
            files.append(entry)
        members['perfetto_manifest.json'] = manifest(files)
        z = self.zip('wide.zip', members)
        out = self.query(z, sql='select count(*) as n, count(distinct m.id) as machines, '
                         'max(s.cpu) as top from sched s join cpu c using (ucpu) '
                         'join machine m on c.machine_id = m.id')
        self.assertEqual(out, '"n","machines","top"\n600,300,%d\n' % (299 * 4096 + 1))
        rc, out, err = e.run('-Q', "select name from stats where value > 0 and "
                             "severity in ('error', 'data_loss')", z)
        self.assertEqual((rc, out), (0, '"name"\n'), err)

    def test_merge_tool_round_trip(self):
        relay = self.relay()
        phone = self.proto('phone.pb', snapshot([(BOOT, 1000)]) +
                           slice_packets(1, 10, 'phone_work', 2000, 100))
        app = e.write_temp(self.dir, 'app.json', app_json('app_work', 100, 5))
        flags = ['--sync', 'app.json=phone.pb', '--offset', 'app.json=1s',
                 '--machine', 'app.json=laptop', '--machine', 'phone.pb=laptop',
                 '--trace-time', 'phone.pb=BOOTTIME']
        inputs = [relay, phone, app]
        direct = self.query(*flags, *inputs)
        machines = 'select name from machine order by name'
        direct_machines = self.query(*flags, *inputs, sql=machines)
        for ext in ('zip', 'tar'):
            out = os.path.join(self.dir, 'merged.' + ext)
            rc, _, err = e.run('merge', '-o', out, *flags, *inputs)
            self.assertEqual(rc, 0, err)
            self.assertEqual(self.query(out), direct)
            self.assertEqual(self.query(out, sql=machines), direct_machines)
            opener = zipfile.ZipFile(out).namelist if ext == 'zip' else \
                tarfile.open(out).getnames
            self.assertEqual(opener(), ['perfetto_manifest.json', 'relay.pb', 'phone.pb',
                                        'app.json'])
        self.assertEqual(direct, '"name","ts","dur","machine"\n'
                         '"phone_work",2000,100,"laptop"\n'
                         '"app_work",1000100000,5000,"laptop"\n'
                         '"host_slice",1100000000,10,"[NULL]"\n'
                         '"vm_slice",2100000000,10,"[NULL]"\n')

    def test_merge_flag_errors(self):
        app = e.write_temp(self.dir, 'app.json', app_json('x', 1, 1))
        for args, text in [
                (['--machine', 'nope.json=m'], "'nope.json' matches no input"),
                (['--offset', 'app.json=1s'], 'need --sync'),
                (['--clock', 'app.json=UPTIME'], "unknown clock name 'UPTIME'"),
                (['--offset', 'app.json=soon'], "bad duration 'soon'"),
                (['--sync', 'app.json=app.json'], 'cannot be synced to itself')]:
            rc, _, err = e.run(*args, '-Q', 'select 1', app)
            self.assertNotEqual(rc, 0)
            self.assertLess(rc, 128)
            self.assertIn(text, err)
        rc, _, err = e.run('merge', '-o', os.path.join(self.dir, 'x.rar'), app)
        self.assertEqual(rc, 1)
        self.assertIn('must end in .zip, .tar', err)


# Every error of the manifest format's table, with the exact text.
def multi_machine_pb(test):
    return test.proto('multi.pb', snapshot([(BOOT, 1000)]) +
                      slice_packets(1, 1, 'h', 2000, 1) +
                      snapshot([(BOOT, 5000)], machine=7) +
                      slice_packets(2, 7, 'v', 6000, 1, machine=7))


class ManifestErrorTest(MergeBase):
    def expect_error(self, members, text):
        z = self.zip('bad.zip', members)
        rc, _, err = e.run('-Q', 'select 1', z)
        self.assertNotEqual(rc, 0, 'expected an error containing: ' + text)
        self.assertLess(rc, 128)
        self.assertIn(text, err)

    def test_document_errors(self):
        app = app_json('x', 1, 1)
        P = 'perfetto_manifest: '
        cases = [
            ({'perfetto_manifest': {'files': []}}, P + 'missing required field: version'),
            ({'perfetto_manifest': {'version': 2}}, P + 'unsupported version: 2. Only version 1'),
            ({'perfetto_manifest': {'version': '1'}}, P + 'version must be an integer'),
            ({'perfetto_manifest': {'version': 1, 'trace_time': {'clock': 'UPTIME'}}},
             P + 'unknown clock name: UPTIME. Use one of REALTIME'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'machine': {'name': 'x'}, 'machines': []}]}},
             P + 'machine and machines are mutually exclusive'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'machine': {'name': ''}}]}},
             P + 'machine: name must be non-empty'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'machines': [{'id': 4294967296, 'name': 'x'}]}]}},
             P + 'machines: id must be in [0, 4294967295]'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'clocks': {}}]}},
             P + 'clocks: a sync_to block is required'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'clocks': {'sync_to': {}}}]}},
             P + 'clocks: sync_to.file is required'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'clocks': {'sync_to': {'file': 'ghost.pb'}}}]}},
             P + "clocks: sync_to.file names unknown file 'ghost.pb'. It must match the "
             '`path` of an entry in the `files` array.'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'clocks': {'sync_to': {'machine': 'm'}}}]}},
             'a machine name alone is ambiguous, name the file too'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'clocks': {'sync_to': {'file': 'b.json', 'machine': 'm'}}},
                {'path': 'b.json'}]}},
             "'m' is not a machine declared by file 'b.json'"),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'clocks': {'sync_to': {'file': 'b.json'},
                                              'offset_ns': 1.5}},
                {'path': 'b.json'}]}}, 'offset_ns must be an integer'),
            ({'perfetto_manifest': {'version': 1, 'files': [
                {'path': 'a.json', 'clocks': {'sync_to': {'file': 'b.json'},
                                              'offset_ns': -9223372036854775808}},
                {'path': 'b.json'}]}}, 'offset_ns is out of range'),
        ]
        for doc, text in cases:
            with self.subTest(text=text):
                self.expect_error({'m.json': json.dumps(doc), 'a.json': app}, text)

    def test_placement_errors(self):
        app = app_json('x', 1, 1)
        m1 = manifest([{'path': 'a.json'}])
        self.expect_error({'m1.json': m1, 'm2.json': m1, 'a.json': app},
                          'perfetto_manifest: multiple perfetto_manifest files in archive')
        with zipfile.ZipFile(os.path.join(self.dir, 'nested.zip'), 'w') as z:
            z.writestr('inner.json', app)
        self.expect_error({'m.json': manifest([{'path': 'n.zip', 'clocks': {
            'sync_to': {'file': 'a.json'}}}, {'path': 'a.json'}]),
            'n.zip': os.path.join(self.dir, 'nested.zip'), 'a.json': app},
            'overrides are not supported for trace files which are themselves archives '
            'or perfetto_manifest files: n.zip')
        # A machine is an override too, and a gzip member an archive.
        self.expect_error({'m.json': manifest([{'path': 'a.json.gz', 'machine': {'name': 'g'}}]),
                           'a.json.gz': gzip.compress(app.encode())},
                          'themselves archives or perfetto_manifest files: a.json.gz')

    def test_manifest_after_a_trace(self):
        app = e.write_temp(self.dir, 'a.json', app_json('x', 1, 1))
        m = e.write_temp(self.dir, 'm.json', manifest([{'path': 'a.json'}]))
        rc, _, err = e.run('-Q', 'select 1', app, m)
        self.assertEqual(rc, 1)
        self.assertIn('perfetto_manifest: perfetto_manifest file must be the first trace '
                      'file in the input', err)

    def test_content_errors(self):
        multi = multi_machine_pb(self)
        self.expect_error({'m.json': manifest([{'path': 'multi.pb', 'machines': [
            {'id': 0, 'name': 'host'}]}]), 'multi.pb': multi},
            'perfetto_manifest: machines: trace has a packet from undeclared machine id 7')
        self.expect_error({'m.json': manifest([{'path': 'multi.pb', 'machine': {
            'name': 'x'}}]), 'multi.pb': multi},
            "perfetto_manifest: machine: file 'multi.pb' is a multi-machine trace")
        app = app_json('x', 1, 1)
        self.expect_error({'m.json': manifest([
            {'path': 'multi.pb', 'machines': [{'id': 0, 'name': 'h'}, {'id': 7, 'name': 'v'}],
             'clocks': {'clock': 'BOOTTIME', 'sync_to': {'file': 'a.json'}}},
            {'path': 'a.json'}]), 'multi.pb': multi, 'a.json': app},
            "perfetto_manifest: clocks: file 'multi.pb' is a multi-machine trace; name which "
            "machine the clock is on with clocks: machine.")
        self.expect_error({'m.json': manifest([
            {'path': 'multi.pb', 'machines': [{'id': 0, 'name': 'h'}, {'id': 7, 'name': 'v'}]},
            {'path': 'a.json', 'clocks': {'sync_to': {'file': 'multi.pb', 'clock': 'BOOTTIME'}}}]),
            'multi.pb': multi, 'a.json': app},
            "perfetto_manifest: clocks: sync_to.file 'multi.pb' is a multi-machine trace; also "
            "name the machine with clocks: sync_to.machine")
        self.expect_error({'m.json': manifest([
            {'path': 'multi.pb', 'clocks': {'sync_to': {'file': 'a.json'}}},
            {'path': 'a.json'}]), 'multi.pb': multi, 'a.json': app},
            'a `clocks` override applies only to a single-machine file')
        two_clocks = self.proto('two.pb', snapshot([(BOOT, 1), (REAL, 5)]) +
                                slice_packets(1, 1, 's', 10, 1))
        self.expect_error({'m.json': manifest([
            {'path': 'two.pb', 'clocks': {'sync_to': {'file': 'a.json'}}},
            {'path': 'a.json'}]), 'two.pb': two_clocks, 'a.json': app},
            'clock overrides require the trace to use a single clock')


if __name__ == '__main__':
    e.main()
