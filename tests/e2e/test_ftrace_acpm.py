"""End-to-end: Perfetto's rules for the Exynos ACPM thermal ftrace events
(thermal_exynos_acpm_bulk and thermal_exynos_acpm_high_overhead,
model/kcounter.h). The traces are Perfetto text format encoded by protoc;
every expected answer is worked out by hand from the rules."""
import shutil
import unittest

import weft_e2e as e

# cpu 0: a bulk event read at 5000 but written at 1000; one whose zone is
# unknown; one without its own timestamp; a high-overhead event (its
# counters at its kernel time); one on an unknown zone (tz_id -1); one
# without a pid; a bulk event whose own time (100) is before everything.
# cpu 1: a bulk event whose own time (6000) is after everything.
TRACE = """
packet { trusted_packet_sequence_id: 1 ftrace_events {
  cpu: 0
  event { timestamp: 1000 pid: 42 thermal_exynos_acpm_bulk {
    tz_id: 0 current_temp: 35 ctrl_temp: 40 cdev_state: 2 timestamp: 5000 } }
  event { timestamp: 1500 pid: 42 thermal_exynos_acpm_bulk { tz_id: 9 current_temp: 36 timestamp: 500 } }
  event { timestamp: 2000 pid: 42 thermal_exynos_acpm_bulk { tz_id: 1 current_temp: 37 } }
  event { timestamp: 3000 pid: 42 thermal_exynos_acpm_high_overhead { tz_id: 2 current_temp: 38 cdev_state: 1 } }
  event { timestamp: 3500 pid: 42 thermal_exynos_acpm_high_overhead { tz_id: -1 current_temp: 38 } }
  event { timestamp: 3600 thermal_exynos_acpm_bulk { tz_id: 4 current_temp: 30 timestamp: 3600 } }
  event { timestamp: 4000 pid: 42 thermal_exynos_acpm_bulk { tz_id: 6 current_temp: 39 timestamp: 100 } }
}}
packet { trusted_packet_sequence_id: 1 ftrace_events {
  cpu: 1
  event { timestamp: 1200 pid: 43 thermal_exynos_acpm_bulk { tz_id: 3 current_temp: 41 timestamp: 6000 } }
}}
"""


@unittest.skipIf(shutil.which('protoc') is None, 'protoc not installed')
class FtraceAcpmTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.path = e.textproto_trace(self.dir, 'acpm.pb', TRACE)

    def test_raw_rows_at_kernel_time(self):
        out = e.query('select id, ts, name, cpu from ftrace_event order by id', self.path)
        self.assertEqual(out, '"id","ts","name","cpu"\n'
                         '0,1000,"thermal_exynos_acpm_bulk",0\n'
                         '1,1200,"thermal_exynos_acpm_bulk",1\n'
                         '2,1500,"thermal_exynos_acpm_bulk",0\n'
                         '3,3000,"thermal_exynos_acpm_high_overhead",0\n'
                         '4,3500,"thermal_exynos_acpm_high_overhead",0\n'
                         '5,4000,"thermal_exynos_acpm_bulk",0\n')

    def test_counters_at_the_events_own_time(self):
        out = e.query("select c.id, c.ts, t.name, t.type, c.value, "
                      "extract_arg(c.arg_set_id, 'thermal_zone_id') as zone_id, "
                      "extract_arg(t.dimension_arg_set_id, 'thermal_zone') as zone "
                      "from counter c join track t on c.track_id = t.id order by c.id",
                      self.path)
        self.assertEqual(
            out, '"id","ts","name","type","value","zone_id","zone"\n'
            '0,100,"AUR Temperature","acpm_thermal_temperature",39.000000,6,"AUR"\n'
            '1,100,"Tj-AUR Cooling Device","acpm_cooling_device_counter",0.000000,6,"AUR"\n'
            '2,3000,"LITTLE Temperature","acpm_thermal_temperature",38.000000,2,"LITTLE"\n'
            '3,3000,"Tj-LITTLE Cooling Device","acpm_cooling_device_counter",1.000000,2,"LITTLE"\n'
            '4,5000,"BIG Temperature","acpm_thermal_temperature",35.000000,0,"BIG"\n'
            '5,5000,"Tj-BIG Cooling Device","acpm_cooling_device_counter",2.000000,0,"BIG"\n'
            '6,6000,"GPU Temperature","acpm_thermal_temperature",41.000000,3,"GPU"\n'
            '7,6000,"Tj-GPU Cooling Device","acpm_cooling_device_counter",0.000000,3,"GPU"\n')

    def test_stats(self):
        out = e.query("select name, value from stats where name in "
                      "('ftrace_bundle_tokenizer_errors', "
                      "'ftrace_thermal_exynos_acpm_unknown_tz_id') order by name", self.path)
        self.assertEqual(out, '"name","value"\n'
                         '"ftrace_bundle_tokenizer_errors",1\n'
                         '"ftrace_thermal_exynos_acpm_unknown_tz_id",2\n')


if __name__ == '__main__':
    e.main()
