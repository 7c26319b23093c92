"""End-to-end: a phone's proto trace (logcat, packages, battery, power
rails, GPU counters, process memory) merged with a Firefox profile of a
laptop, pinned to the phone's BOOTTIME by a manifest: every table has rows,
and each row is attributed to its own machine."""
import json
import os

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet
import test_android as android
import test_gecko as gecko
import test_graphics as graphics

PHONE_TEXT = '''
packet { timestamp: 1000 clock_snapshot { clocks { clock_id: 6 timestamp: 1000 }
                                          clocks { clock_id: 1 timestamp: 5000 } } }
packet { timestamp: 1000 process_tree { processes { pid: 10 ppid: 1 cmdline: "com.app" }
                                        threads { tid: 11 tgid: 10 } } }
packet { timestamp: 2000 battery { charge_counter_uah: 500 capacity_percent: 50.5 current_ua: -7 } }
packet { timestamp: 2000 power_rails { rail_descriptor { index: 0 rail_name: "S2M_VDD_CPUCL2"
                                                         subsys_name: "cpu" } } }
packet { timestamp: 3000 power_rails { energy_data { index: 0 energy: 900 timestamp_ms: 0 } } }
packet { timestamp: 4000 process_stats { processes { pid: 10 vm_rss_kb: 2 } } }
'''


def phone_trace(directory):
    text_part = e.textproto_trace(directory, 'phone_text.pb', PHONE_TEXT)
    with open(text_part, 'rb') as f:
        data = f.read()
    data += android.android_log(
        2500, android.log_event(pb_int(5, 6500), pb_int(2, 10), pb_int(3, 11),
                                pb_bytes(6, 'tag'), pb_int(7, 4), pb_bytes(8, 'hello')))
    data += pb_packet(pb_bytes(47, android.package('com.app', 10100, 3)))
    data += graphics.counter_event(3500, pb_bytes(1, graphics.spec(1, 'gpu_busy')))
    data += graphics.counter_event(3600, graphics.sample(1, 40))
    return e.write_temp(directory, 'phone.pb', data)


class PhoneAndProfileTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        phone = phone_trace(self.dir)
        main = gecko.thread('main', 21, 20, [('Paint', 1.0, 3.0, 1, 0, None)])
        main['stringArray'] += ['draw (in libxul.so)']
        main['funcTable'] = {'name': [1], 'length': 1}
        main['frameTable'] = {'func': [0], 'length': 1}
        main['stackTable'] = {'prefix': [None], 'frame': [0], 'length': 1}
        main['samples'] = {'stack': [0, 0], 'time': [1.5, 2.5], 'length': 2}
        prof = e.write_temp(self.dir, 'prof.json', gecko.profile(main))
        manifest = e.write_temp(self.dir, 'm.json', json.dumps({'perfetto_manifest': {
            'version': 1, 'files': [
                {'path': 'phone.pb', 'machine': {'name': 'phone'}},
                {'path': 'prof.json', 'machine': {'name': 'laptop'},
                 'clocks': {'sync_to': {'file': 'phone.pb', 'clock': 'BOOTTIME'},
                            'offset_ns': 1000000}}]}}))
        self.inputs = ('--manifest', manifest, phone, prof)

    def rows(self, sql):
        out = e.query(sql, *self.inputs)
        return [line.split(',') for line in out.splitlines()[1:]]

    def machine(self, name):
        return self.rows("select id from machine where name = '%s'" % name)[0][0]

    def assert_on(self, machine, sql):
        """sql gives one machine id per row: there are rows, all on machine."""
        got = self.rows(sql)
        self.assertTrue(got, sql)
        self.assertEqual({row[0] for row in got}, {self.machine(machine)}, sql)

    def test_every_table_has_rows_on_its_machine(self):
        self.assertNotEqual(self.machine('phone'), self.machine('laptop'))
        self.assert_on('phone', 'select t.machine_id from android_logs l '
                       'join thread t using (utid)')
        self.assertEqual(self.rows('select package_name, uid from package_list'),
                         [['"com.app"', '10100']])
        self.assert_on('phone', "select machine_id from counter_track where name glob 'batt.*'")
        self.assert_on('phone', "select t.machine_id from counter c join counter_track t "
                       "on c.track_id = t.id where t.name glob 'power.*'")
        self.assert_on('phone', "select t.machine_id from counter c join gpu_counter_track t "
                       "on c.track_id = t.id")
        self.assert_on('phone', "select p.machine_id from counter c join process_counter_track t "
                       "on c.track_id = t.id join process p using (upid) "
                       "where t.name = 'mem.rss'")
        self.assert_on('laptop', 'select t.machine_id from slice s join thread_track tt '
                       'on s.track_id = tt.id join thread t using (utid)')
        self.assert_on('laptop', 'select t.machine_id from cpu_profile_stack_sample s '
                       'join thread t using (utid)')

    def test_profile_is_placed_by_the_manifest(self):
        # The profile's 1 ms start is 1 ms past the phone's BOOTTIME 0 plus
        # the manifest's 1 ms offset.
        self.assertEqual(self.rows("select ts, dur from slice where name = 'Paint'"),
                         [['2000000', '2000000']])
        self.assertEqual(self.rows('select ts from android_logs'), [['2500']])


if __name__ == '__main__':
    e.main()
