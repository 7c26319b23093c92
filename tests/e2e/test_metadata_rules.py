"""End-to-end: the metadata table's rows and their order, as Perfetto writes
them (src/model/context_metadata.c): trace_uuid first, then each file's
tokenizer rows (files in processing order, by byte offset), then the parse's
rows in trace-time order, then each trace_size_bytes in reverse processing
order; and which file writes trace_time_clock_id."""
import json
import os
import zipfile

import weft_e2e as e

# TracePacket fields
TIMESTAMP, SEQ, CLOCK_SNAPSHOT, SYSTEM_INFO = 8, 10, 6, 45
TRACE_CONFIG, SERVICE_EVENT, CHROME_EVENTS, TRACK_EVENT = 33, 69, 5, 11


def packet(ts, *fields):
    head = (e.pb_int(TIMESTAMP, ts),) if ts is not None else ()
    return e.pb_packet(*head, e.pb_int(SEQ, 1), *fields)


def snapshot(*clocks, primary=None):
    body = b''.join(e.pb_bytes(1, e.pb_int(1, cid) + e.pb_int(2, value))
                    for cid, value in clocks)
    if primary is not None:
        body += e.pb_int(2, primary)
    return e.pb_bytes(CLOCK_SNAPSHOT, body)


def service_event(field):
    return e.pb_bytes(SERVICE_EVENT, e.pb_int(field, 1))


TRACING_STARTED, ALL_STARTED, TRACING_DISABLED = 2, 1, 5
BOOT_AND_MONO = ((6, 100), (3, 5000))
INSTANT = e.pb_bytes(TRACK_EVENT, e.pb_int(9, 3) + e.pb_bytes(23, b'a'))


def names(out):
    return [line.split(',')[0].strip('"') for line in out.splitlines()[1:]]


class MetadataRulesTest(e.TempDirTest):
    def write(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, 'wb' if isinstance(data, bytes) else 'w') as f:
            f.write(data)
        return path

    def metadata(self, path, cols='name'):
        return e.query('select %s from metadata' % cols, path)

    def test_rows_in_perfetto_order(self):
        # File order: config (ts 900), system info, service events at
        # descending times, a trace uuid. Tokenizer rows keep file order;
        # the config is a parse row; the size comes last.
        utsname = (e.pb_bytes(4, b'm') + e.pb_bytes(3, b'r') + e.pb_bytes(2, b'v') +
                   e.pb_bytes(1, b'Linux'))
        info = (e.pb_bytes(4, b'svc') + e.pb_int(7, 5) + e.pb_bytes(1, utsname) +
                e.pb_int(16, 2000000000))
        data = (packet(900, e.pb_bytes(TRACE_CONFIG, e.pb_bytes(1, e.pb_int(1, 4)))) +
                packet(800, e.pb_bytes(SYSTEM_INFO, info)) +
                packet(700, service_event(TRACING_STARTED)) +
                packet(400, service_event(TRACING_DISABLED)) +
                packet(100, service_event(ALL_STARTED)))
        out = self.metadata(self.write('t.pftrace', data))
        self.assertEqual(names(out), [
            'trace_uuid', 'trace_type', 'system_name', 'system_version', 'system_release',
            'system_machine', 'timezone_off_mins', 'tracing_service_version',
            'system_ram_bytes', 'system_ram_gb', 'tracing_started_ns', 'tracing_disabled_ns',
            'all_data_source_started_ns', 'trace_config_pbtxt', 'trace_size_bytes'])
        self.assertEqual(e.query("select id from metadata where name = 'trace_uuid'",
                                 os.path.join(self.dir, 't.pftrace')), '"id"\n0\n')
        # a utsname with the machine only: the other three are NULL rows
        only_machine = e.pb_bytes(SYSTEM_INFO, e.pb_bytes(1, e.pb_bytes(4, b'aarch64')))
        out = self.metadata(self.write('u.pftrace', packet(800, only_machine)),
                            'name, str_value')
        self.assertIn('"system_name","[NULL]"\n"system_version","[NULL]"\n'
                      '"system_release","[NULL]"\n"system_machine","aarch64"\n', out)

    def test_parse_rows_follow_trace_time(self):
        bundle = e.pb_bytes(CHROME_EVENTS, e.pb_bytes(2, e.pb_bytes(1, b'x') +
                                                      e.pb_bytes(2, b'y')))
        config = e.pb_bytes(TRACE_CONFIG, e.pb_bytes(1, e.pb_int(1, 4)))
        late_config = self.write('a.pftrace', packet(900, config) + packet(100, bundle))
        self.assertEqual(names(self.metadata(late_config)),
                         ['trace_uuid', 'trace_type', 'cr-x', 'trace_config_pbtxt',
                          'trace_size_bytes'])
        # the config's row is a parse row at its packet's time: before a
        # later bundle's
        early_config = self.write('b.pftrace', packet(100, config) + packet(900, bundle))
        self.assertEqual(names(self.metadata(early_config)),
                         ['trace_uuid', 'trace_type', 'trace_config_pbtxt', 'cr-x',
                          'trace_size_bytes'])

    def test_trace_time_row_from_the_first_snapshot(self):
        first = self.write('a.pftrace', packet(None, snapshot(*BOOT_AND_MONO)) +
                           packet(1000, INSTANT))
        self.assertEqual(self.metadata(first, 'name, int_value'),
                         '"name","int_value"\n"trace_uuid","[NULL]"\n'
                         '"trace_type","[NULL]"\n"trace_time_clock_id",6\n'
                         '"trace_size_bytes",%d\n' % os.path.getsize(first))
        primary = self.write('b.pftrace', packet(None, snapshot(*BOOT_AND_MONO, primary=3)) +
                             packet(1000, INSTANT))
        self.assertIn('"trace_time_clock_id",3\n', self.metadata(primary, 'name, int_value'))
        # a track event before the snapshot is not converted yet: still a row
        late = self.write('c.pftrace', packet(900, INSTANT) +
                          packet(None, snapshot(*BOOT_AND_MONO)))
        self.assertIn('trace_time_clock_id', names(self.metadata(late)))

    def test_no_trace_time_row_without_a_setting(self):
        alone = self.write('a.pftrace', packet(1000, INSTANT))
        self.assertNotIn('trace_time_clock_id', names(self.metadata(alone)))
        # a snapshot without BOOTTIME and without a primary clock sets nothing
        mono = self.write('b.pftrace', packet(None, snapshot((3, 100), (1, 5000))) +
                          packet(1000, INSTANT))
        self.assertNotIn('trace_time_clock_id', names(self.metadata(mono)))
        # a service event converted before the snapshot: too late to set it
        used = self.write('c.pftrace', packet(50, service_event(TRACING_STARTED)) +
                          packet(None, snapshot(*BOOT_AND_MONO)))
        self.assertNotIn('trace_time_clock_id', names(self.metadata(used)))

    def test_clockless_and_text_formats(self):
        js = self.write('a.json', json.dumps(
            [{'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 1, 'dur': 1, 'name': 'x'}]))
        self.assertEqual(self.metadata(js, 'name, int_value, str_value'),
                         '"name","int_value","str_value"\n'
                         '"trace_uuid","[NULL]","%s"\n' % self.uuid(js) +
                         '"trace_type","[NULL]","json"\n"trace_time_clock_id",11,"[NULL]"\n'
                         '"trace_size_bytes",%d,"[NULL]"\n' % os.path.getsize(js))
        text = ('# tracer: nop\n#\n'
                '          bash-5     [000] d..1  0.000020: tracing_mark_write: B|5|hi\n')
        sys_path = self.write('b.systrace', text)
        self.assertEqual(self.metadata(sys_path, 'name, int_value, str_value'),
                         '"name","int_value","str_value"\n'
                         '"trace_uuid","[NULL]","%s"\n' % self.uuid(sys_path) +
                         '"trace_type","[NULL]","systrace"\n'
                         '"trace_time_clock_id",3,"[NULL]"\n'
                         '"trace_size_bytes",%d,"[NULL]"\n' % len(text))

    def uuid(self, path):
        return e.query("select str_value from metadata where name = 'trace_uuid'",
                       path).splitlines()[1].strip('"')

    def test_archive_members(self):
        # Processing order puts JSON before systrace; the first JSON sets
        # the trace-time clock; sizes come last, in reverse order.
        js = json.dumps([{'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 1, 'dur': 1, 'name': 'x'}])
        text = '# tracer: nop\n#\n          bash-5     [000] d..1  0.000020: ' \
               'tracing_mark_write: B|5|hi\n'
        path = os.path.join(self.dir, 'm.zip')
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('s.systrace', text)
            z.writestr('a.json', js)
            z.writestr('b.json', js)
        out = self.metadata(path, 'name, int_value, trace_id')
        self.assertEqual(out.splitlines()[2:], [
            '"trace_type","[NULL]",2', '"trace_time_clock_id",11,"[NULL]"',
            '"trace_type","[NULL]",3', '"trace_type","[NULL]",1',
            '"trace_size_bytes",%d,1' % len(text), '"trace_size_bytes",%d,3' % len(js),
            '"trace_size_bytes",%d,2' % len(js)])

    def test_manifest_rows_are_the_manifest_files(self):
        # The manifest is processed first; its trace_time sets the clock row,
        # which sorts after its own trace_type, not before trace_uuid.
        js = json.dumps([{'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 1, 'dur': 1, 'name': 'x'}])
        m = json.dumps({'perfetto_manifest': {'version': 1, 'trace_time': {'clock': 'BOOTTIME'},
                                              'files': [{'path': 'a.json'}]}})
        path = os.path.join(self.dir, 'm.zip')
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('a.json', js)
            z.writestr('perfetto_manifest.json', m)
        out = self.metadata(path, 'name, int_value, str_value')
        self.assertEqual(names(out), ['trace_uuid', 'trace_type', 'trace_time_clock_id',
                                      'trace_type', 'trace_size_bytes', 'trace_size_bytes'])
        self.assertIn('"trace_time_clock_id",6,', out)

    def test_json_pid_zero_is_the_idle_process_beside_a_kernel_trace(self):
        js = json.dumps([{'ph': 'M', 'pid': 0, 'tid': 0, 'ts': 0, 'name': 'thread_name',
                          'args': {'name': 'swapper'}},
                         {'ph': 'X', 'pid': 5, 'tid': 5, 'ts': 10, 'dur': 1, 'name': 'x'}])
        alone = self.write('a.json', js)
        self.assertEqual(e.query('select pid from process order by upid', alone),
                         '"pid"\n0\n0\n5\n')
        text = '# tracer: nop\n#\n  bash-5 [000] d..1  0.000020: tracing_mark_write: B|5|hi\n'
        path = os.path.join(self.dir, 'm.zip')
        with zipfile.ZipFile(path, 'w') as z:
            z.writestr('a.json', js)
            z.writestr('b.systrace', text)
        self.assertEqual(e.query('select upid, pid from process order by upid', path),
                         '"upid","pid"\n0,0\n1,5\n')
        self.assertEqual(e.query('select name from thread where utid = 0', path),
                         '"name"\n"swapper"\n')

    def test_string_tids_never_take_a_numeric_tid(self):
        # A tid given as a string is numbered from its name; the number must
        # not be the pid's, or the named thread would become the main thread.
        path = self.write('a.json', json.dumps(
            [{'ph': 'X', 'pid': 8, 'tid': 'w', 'ts': 3, 'dur': 1, 'name': 'f'}]))
        out = e.query('select name, tid = 8, is_main_thread from thread where utid > 0 '
                      'order by utid', path)
        self.assertEqual(out.splitlines()[1:], ['"w",0,0', '"[NULL]",1,1'])


if __name__ == '__main__':
    e.main()
