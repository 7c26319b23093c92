"""End-to-end: battery counters, power rails and energy breakdowns
(proto_power.c). Every expected answer is worked out by hand."""
import weft_e2e as e


def rails(body, ts=None, machine=None):
    """A PowerRails packet as text."""
    return 'packet { %spower_rails { %s }%s }\n' % (
        'timestamp: %d ' % ts if ts is not None else '', body,
        ' machine_id: %d' % machine if machine is not None else '')


def rail(index, name, subsys='sys'):
    return 'rail_descriptor { index: %d rail_name: "%s" subsys_name: "%s" } ' % (
        index, name, subsys)


def energy(index, value, ms=None):
    return 'energy_data { index: %d energy: %d%s } ' % (
        index, value, ' timestamp_ms: %d' % ms if ms is not None else '')


class PowerTest(e.TempDirTest):
    def trace(self, text):
        return e.textproto_trace(self.dir, 'power.pb', text)

    def stat(self, name, path):
        return e.query("select value from stats where name = '%s'" % name, path)

    def test_battery_counters_and_derived_values(self):
        path = self.trace(
            'packet { timestamp: 10 battery { charge_counter_uah: 500 energy_counter_uwh: 9 '
            'voltage_uv: 3 current_ua: -1500000 capacity_percent: 50.5 } }\n'
            'packet { timestamp: 20 battery { energy_counter_uwh: 1000 voltage_uv: 3 } }\n'
            'packet { timestamp: 30 battery { energy_counter_uwh: 1000 voltage_uv: 0 } }\n'
            'packet { timestamp: 40 battery { name: "aux" current_avg_ua: 7 } }\n')
        # charge: the counter wins over energy / voltage; else energy * 1e6 /
        # voltage, integer; a voltage of 0 gives none. power: |current *
        # voltage| / 1e9, integer (1500000 * 3 / 1e9 = 0.0045 -> 0).
        self.assertEqual(e.query('select t.name, c.ts, c.value from counter c join counter_track t '
                                 'on c.track_id = t.id order by t.name, c.ts', path),
                         '"name","ts","value"\n'
                         '"batt.aux.current.avg_ua",40,7.000000\n'
                         '"batt.capacity_pct",10,50.500000\n'
                         '"batt.charge_uah",10,500.000000\n'
                         '"batt.charge_uah",20,333333333.000000\n'
                         '"batt.current_ua",10,-1500000.000000\n'
                         '"batt.power_mw",10,0.000000\n'
                         '"batt.voltage_uv",10,3.000000\n'
                         '"batt.voltage_uv",20,3.000000\n'
                         '"batt.voltage_uv",30,0.000000\n')
        self.assertEqual(e.query("select type, extract_arg(dimension_arg_set_id, 'battery_name') "
                                 "as b, extract_arg(dimension_arg_set_id, 'counter_name') as c "
                                 "from counter_track where name glob 'batt.aux.*'", path),
                         '"type","b","c"\n"battery_counter","aux","current.avg_ua"\n')

    def test_battery_name_is_a_dimension_even_when_absent(self):
        # the reference's answer: NULL when absent (an empty name is the
        # same track)
        path = self.trace('packet { timestamp: 10 battery { charge_counter_uah: 5 } }\n'
                          'packet { timestamp: 20 battery { charge_counter_uah: 6 name: "" } }\n'
                          'packet { timestamp: 30 battery { charge_counter_uah: 7 name: "b0" } }\n')
        self.assertEqual(e.query("select name, (select group_concat(key || '=' || "
                                 "ifnull(display_value, 'NULL')) from args a "
                                 "where a.arg_set_id = t.dimension_arg_set_id) as dims "
                                 "from track t order by id", path).splitlines()[1:3],
                         ['"batt.charge_uah","battery_name=NULL,counter_name=charge_uah"',
                          '"batt.b0.charge_uah","battery_name=b0,counter_name=charge_uah"'])

    def test_power_is_a_magnitude(self):
        path = self.trace('packet { timestamp: 1 battery { current_ua: -2000000 '
                          'voltage_uv: 4000000 } }\n')
        self.assertEqual(e.query("select value from counters where name = 'batt.power_mw'", path),
                         '"value"\n8000.000000\n')

    def test_rails_names_sessions_and_stats(self):
        path = self.trace(
            rails(rail(0, 'S3M_VDD_CPUCL1', 'cpu') + rail(1, 'MY_RAIL')) +
            rails(rail(0, 'OTHER') + 'session_uuid: 5') +
            rails(energy(0, 11) + energy(1, 22) + energy(2, 33), ts=1000) +
            rails(energy(0, 44) + 'session_uuid: 5', ts=2000))
        # two descriptor-only packets; index 2 has no descriptor
        self.assertEqual(self.stat('power_rail_empty_packet', path), '"value"\n2\n')
        self.assertEqual(self.stat('power_rail_unknown_index', path), '"value"\n1\n')
        self.assertEqual(e.query("select t.name, c.ts, c.value, "
                                 "extract_arg(t.dimension_arg_set_id, 'session_uuid') as s, "
                                 "extract_arg(t.source_arg_set_id, 'subsystem_name') as sub "
                                 "from counter c join counter_track t on c.track_id = t.id "
                                 "order by c.ts, t.name", path),
                         '"name","ts","value","s","sub"\n'
                         '"power.MY_RAIL_uws",1000,22.000000,0,"sys"\n'
                         '"power.rails.cpu.mid",1000,11.000000,0,"cpu"\n'
                         '"power.OTHER_uws",2000,44.000000,5,"sys"\n')

    def test_empty_rail_packets_are_logged_at_their_time(self):
        # a descriptor-only packet is logged at its time: an untimed one at
        # the latest time its file reached, which a clock snapshot's own
        # timestamp does not advance
        path = self.trace(
            'packet { timestamp: 7000 clock_snapshot { clocks { clock_id: 6 timestamp: 7000 } '
            'clocks { clock_id: 128 timestamp: 2 } } }\n' +
            rails(rail(0, 'A')) + rails(energy(0, 1), ts=3000) + rails(rail(1, 'B')) +
            rails(rail(2, 'C'), ts=5000))
        self.assertEqual(e.query('select ts, byte_offset, severity, name from _trace_import_logs '
                                 'order by id', path),
                         '"ts","byte_offset","severity","name"\n'
                         '0,"[NULL]","error","power_rail_empty_packet"\n'
                         '3000,"[NULL]","error","power_rail_empty_packet"\n'
                         '5000,"[NULL]","error","power_rail_empty_packet"\n')

    def test_rail_samples_use_their_own_time(self):
        path = self.trace(rails(rail(0, 'R')) +
                          rails(energy(0, 1, ms=9) + energy(0, 2) + energy(0, 3, ms=2), ts=5000000))
        self.assertEqual(e.query("select ts, value, extract_arg(arg_set_id, 'packet_ts') as p "
                                 "from counter order by ts", path),
                         '"ts","value","p"\n2000000,3.000000,5000000\n'
                         '5000000,2.000000,5000000\n9000000,1.000000,5000000\n')

    def test_rails_of_two_machines(self):
        # the same index names different rails on each machine
        path = self.trace(rails(rail(0, 'HOST')) + rails(rail(0, 'GUEST'), machine=3) +
                          rails(energy(0, 1), ts=10) + rails(energy(0, 2), ts=20, machine=3))
        self.assertEqual(e.query('select t.name, t.machine_id, c.value from counter c '
                                 'join counter_track t on c.track_id = t.id order by c.ts', path),
                         '"name","machine_id","value"\n"power.HOST_uws",0,1.000000\n'
                         '"power.GUEST_uws",1,2.000000\n')
        self.assertEqual(e.query('include perfetto module android.power_rails; '
                                 'select power_rail_name, raw_power_rail_name, friendly_name, '
                                 'subsystem_name, machine_id from android_power_rails_metadata '
                                 'order by machine_id', path),
                         '"power_rail_name","raw_power_rail_name","friendly_name",'
                         '"subsystem_name","machine_id"\n'
                         '"power.HOST_uws","HOST","[NULL]","sys",0\n'
                         '"power.GUEST_uws","GUEST","[NULL]","sys",1\n')

    def test_energy_breakdown(self):
        path = self.trace(
            'packet { android_energy_estimation_breakdown { energy_consumer_descriptor {'
            ' energy_consumers { energy_consumer_id: 4 ordinal: 2 type: "CPU_CLUSTER" name: "big" }'
            ' energy_consumers { ordinal: 1 } } } }\n'
            'packet { timestamp: 10 android_energy_estimation_breakdown { energy_consumer_id: 4'
            ' energy_uws: 70 per_uid_breakdown { uid: 10001 energy_uws: 30 }'
            ' per_uid_breakdown { uid: 10002 } } }\n'
            'packet { timestamp: 20 android_energy_estimation_breakdown { energy_consumer_id: 9'
            ' energy_uws: 1 } }\n')
        self.assertEqual(self.stat('energy_descriptor_invalid', path), '"value"\n1\n')
        self.assertEqual(self.stat('energy_uid_breakdown_missing_values', path), '"value"\n1\n')
        self.assertEqual(self.stat('energy_breakdown_missing_values', path), '"value"\n1\n')
        self.assertEqual(e.query("select t.type, t.name, "
                                 "extract_arg(t.dimension_arg_set_id, 'energy_consumer_id') as id, "
                                 "extract_arg(t.dimension_arg_set_id, 'uid') as uid, "
                                 "extract_arg(t.source_arg_set_id, 'consumer_type') as ty, "
                                 "extract_arg(t.source_arg_set_id, 'ordinal') as o, c.value "
                                 "from counter c join counter_track t on c.track_id = t.id "
                                 "order by t.type", path),
                         '"type","name","id","uid","ty","o","value"\n'
                         '"android_energy_estimation_breakdown","big",4,"[NULL]",'
                         '"CPU_CLUSTER",2,70.000000\n'
                         '"android_energy_estimation_breakdown_per_uid","big",4,10001,'
                         '"[NULL]","[NULL]",30.000000\n')

    def test_missing_and_extreme_fields(self):
        path = self.trace(
            rails('rail_descriptor { index: 1 }') +
            rails(energy(1, 5, ms=18446744073709551615), ts=70) +
            'packet { android_energy_estimation_breakdown { energy_consumer_descriptor {'
            ' energy_consumers { energy_consumer_id: 2 } } } }\n'
            'packet { timestamp: 80 android_energy_estimation_breakdown { energy_consumer_id: 2'
            ' energy_uws: 3 } }\n'
            'packet { timestamp: 90 battery { current_ua: 9000000000000000 '
            'voltage_uv: -9000000000000000 } }\n')
        # a rail without a name is "power._uws"; timestamp_ms 2^64 - 1 is -1 ms
        # in 64-bit integers: a negative time, dropped and counted; a consumer
        # without a name or type has a NULL name and type; a power product
        # beyond 64 bits wraps: 9e15 * -9e15 mod 2^64 = -5404116273116217344
        # (as int64), / 1e9 = 5404116273
        self.assertEqual(e.query("select count(*) as n from counter c join counter_track t "
                                 "on c.track_id = t.id where t.name = 'power._uws'", path),
                         '"n"\n0\n')
        self.assertEqual(e.query("select value from stats "
                                 "where name = 'trace_sorter_negative_timestamp_dropped'", path),
                         '"value"\n1\n')
        self.assertEqual(e.query("select name, extract_arg(source_arg_set_id, 'consumer_type') "
                                 "as ty, extract_arg(source_arg_set_id, 'ordinal') as o "
                                 "from track where type = 'android_energy_estimation_breakdown'",
                                 path),
                         '"name","ty","o"\n"[NULL]","[NULL]",0\n')
        self.assertEqual(e.query("select value from counters where name = 'batt.power_mw'",
                                 path), '"value"\n5404116273.000000\n')


def kevent(ts, body, cpu=0, pid=0):
    """A packet with one ftrace event (bundle on `cpu`)."""
    return ('packet { ftrace_events { cpu: %d event { timestamp: %d pid: %d %s } } '
            'trusted_packet_sequence_id: 1 }\n' % (cpu, ts, pid, body))


def wake(ts, name, on):
    return kevent(ts, 'wakeup_source_%s { name: "%s" }' % ('activate' if on else 'deactivate',
                                                          name))


def suspend(ts, action, val, start, cpu=0):
    return kevent(ts, 'suspend_resume { action: "%s" val: %d start: %d }' % (action, val, start),
                  cpu=cpu)


class KernelPowerTest(e.TempDirTest):
    def trace(self, text):
        return e.textproto_trace(self.dir, 'kpower.pb', text)

    def test_wakelocks_nest_by_count(self):
        long_name = 'x' * 40
        path = self.trace(wake(10, 'a', 1) + wake(20, 'a', 1) + wake(30, 'a', 0) +
                          wake(40, 'a', 0) + wake(50, 'a', 0) + wake(60, long_name, 1))
        # the second activation only counts; the slice ends when the count
        # falls from 1; a deactivation of an inactive source does nothing; the
        # name is cut at 31 bytes
        self.assertEqual(e.query("select s.ts, s.dur, s.name, t.type, "
                                 "extract_arg(t.dimension_arg_set_id, 'wakelock_event') as ev "
                                 "from slice s join track t on s.track_id = t.id order by s.ts",
                                 path),
                         '"ts","dur","name","type","ev"\n'
                         '10,30,"Wakelock(a)","wakesource_wakelock","a"\n'
                         '60,-1,"Wakelock(%s","wakesource_wakelock","%s"\n'
                         % ('x' * 22, long_name))

    def test_suspend_resume_phases_and_error_path(self):
        path = self.trace(suspend(100, 'suspend_enter', 3, 1) +
                          suspend(110, 'freeze_processes', 0, 1) +
                          suspend(120, 'thaw_processes', 0, 1) +
                          suspend(130, 'thaw_processes', 0, 0) +   # the error path
                          suspend(140, 'freeze_processes', 0, 0) +
                          suspend(200, 'timekeeping_freeze', 4, 1, cpu=4) +
                          suspend(210, 'timekeeping_freeze', 1, 0, cpu=1))
        # each open slice takes the first free track of the set; the end of
        # thaw_processes inside freeze_processes inside suspend_enter ends
        # suspend_enter too; timekeeping_freeze's val (a cpu) reads as 0
        self.assertEqual(e.query("select s.ts, s.dur, s.name, "
                                 "extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') "
                                 "as idx, extract_arg(s.arg_set_id, 'cpu') as cpu, "
                                 "extract_arg(s.arg_set_id, 'event_type') as ty "
                                 "from slice s join track t on s.track_id = t.id "
                                 "where t.name = 'Suspend/Resume Latency' order by s.ts", path),
                         '"ts","dur","name","idx","cpu","ty"\n'
                         '100,30,"suspend_enter(3)",0,0,"Main Kernel Suspend Event"\n'
                         '110,30,"freeze_processes(0)",1,0,"Main Kernel Suspend Event"\n'
                         '120,10,"thaw_processes(0)",2,0,"Main Kernel Suspend Event"\n'
                         '200,10,"timekeeping_freeze(0)",0,4,"Main Kernel Suspend Event"\n')


if __name__ == '__main__':
    e.main()
