"""End-to-end: the android power modules (android.battery,
android.battery.charging_states, android.battery.doze, android.battery_stats,
android.screen_state, android.suspend, android.wakeups) and the private
intervals.fill_gaps, on small traces whose answers Perfetto's trace
processor gives too."""
import weft_e2e as e

MARK = '           <...>-100   (  100) [000] ...1   %s: tracing_mark_write: %s\n'


def systrace(*marks):
    """A systrace text trace of atrace marks (seconds, text)."""
    return '# tracer: nop\n#\n' + ''.join(MARK % (ts, text) for ts, text in marks)


# Counters and battery_stats instants over 100 s .. 104 s.
STATES = systrace(
    ('100.000000', 'C|100|BatteryStatus|3'), ('100.500000', 'C|100|ScreenState|2'),
    ('101.000000', 'C|100|BatteryStatus|3'), ('101.500000', 'C|100|BatteryStatus|3'),
    ('102.000000', 'C|100|BatteryStatus|2'), ('102.000000', 'C|100|ScreenState|1'),
    ('102.200000', 'C|100|DozeLightState|1'), ('102.300000', 'C|100|DozeDeepState|3'),
    ('102.400000', 'C|100|battery_stats.wifi|1'),
    ('102.500000', 'C|100|battery_stats.data_conn|13'),
    ('102.600000', 'N|100|battery_stats.top|+top=10215:"com.app"'),
    ('102.700000', 'N|100|battery_stats.top|-top=10215:"com.app"'),
    ('102.800000', 'N|100|battery_stats.job|-job=10100:"j1"'),
    ('102.900000', 'N|100|battery_stats.job|+job=10101:"j2"'),
    ('103.000000', 'C|100|BatteryStatus|7'), ('103.000000', 'C|100|ScreenState|4'),
    ('103.100000', 'C|100|DozeLightState|9'), ('103.200000', 'C|100|battery_stats.wifi|0'),
    ('104.000000', 'C|100|other|0'))


def suspend_event(ts, action, val, start):
    return ('event { timestamp: %d pid: 1 suspend_resume { action: "%s" val: %d '
            'start: %d } }\n' % (ts, action, val, start))


def print_event(ts, text):
    return 'event { timestamp: %d pid: 100 print { buf: "%s\\n" } }\n' % (ts, text)


def bundle(events, machine=None):
    on = ' machine_id: %d' % machine if machine is not None else ''
    return ('packet {%s trusted_packet_sequence_id: 1 ftrace_events { cpu: 0\n%s} }\n'
            % (on, ''.join(events)))


def battery(ts, fields):
    return 'packet { timestamp: %d trusted_packet_sequence_id: 1 battery { %s } }\n' % (ts, fields)


class AndroidPowerTest(e.TempDirTest):
    def systrace(self, text):
        return e.write_temp(self.dir, 'states.txt', text)

    def proto(self, text):
        return e.textproto_trace(self.dir, 'power.pb', text)

    def test_battery_charge_lines_up_the_counters(self):
        path = self.proto(
            battery(1000, 'charge_counter_uah: 3000000 capacity_percent: 80.5 '
                    'current_ua: -500000 current_avg_ua: -450000 voltage_uv: 4000000') +
            battery(2000, 'capacity_percent: 80 current_ua: 200000 voltage_uv: 3900000') +
            battery(3000, 'energy_counter_uwh: 11000000 voltage_uv: 3800000') +
            battery(4000, 'name: "aux" charge_counter_uah: 10'))
        # one row per moment any batt.* track has a sample (a named battery's
        # too), each column NULL where its own track has none
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery; '
            'select * from android_battery_charge', path),
            '"ts","current_avg_ua","capacity_percent","charge_uah","current_ua",'
            '"voltage_uv","energy_counter_uwh","power_mw"\n'
            '1000,-450000.000000,80.500000,3000000.000000,-500000.000000,'
            '4000000.000000,"[NULL]",2000.000000\n'
            '2000,"[NULL]",80.000000,"[NULL]",200000.000000,3900000.000000,"[NULL]",'
            '780.000000\n'
            '3000,"[NULL]","[NULL]",2894736.000000,"[NULL]",3800000.000000,"[NULL]",'
            '"[NULL]"\n'
            '4000,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n')

    def test_charging_states_cover_the_trace(self):
        path = self.systrace(STATES)
        # equal samples stay apart (none is between two equal predecessors and
        # an equal successor); status 7 is Unknown
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery.charging_states; '
            'select * from android_charging_states', path),
            '"id","ts","dur","short_charging_state","charging_state"\n'
            '1,100000000000,1000000000,"discharging","Discharging"\n'
            '2,101000000000,500000000,"discharging","Discharging"\n'
            '3,101500000000,500000000,"discharging","Discharging"\n'
            '4,102000000000,1000000000,"charging","Charging"\n'
            '5,103000000000,1000000000,"unknown","Unknown"\n')
        # without samples before 102 s, the trace's start until then is Unknown
        late = self.systrace(STATES.replace('C|100|BatteryStatus|3', 'C|100|x|3'))
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery.charging_states; '
            'select id, ts, dur, charging_state from android_charging_states', late),
            '"id","ts","dur","charging_state"\n'
            '1,100000000000,2000000000,"Unknown"\n'
            '2,102000000000,1000000000,"Charging"\n'
            '3,103000000000,1000000000,"Unknown"\n')
        # without the counter at all: one Unknown row over the whole trace
        none = self.systrace(STATES.replace('BatteryStatus', 'x'))
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery.charging_states; '
            'select id, ts, dur, charging_state from android_charging_states', none),
            '"id","ts","dur","charging_state"\n1,100000000000,4000000000,"Unknown"\n')

    def test_screen_state_and_doze(self):
        path = self.systrace(STATES)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.screen_state; '
            'select * from android_screen_state', path),
            '"id","ts","dur","simple_screen_state","short_screen_state","screen_state"\n'
            '1,100000000000,500000000,"unknown","unknown","Unknown"\n'
            '2,100500000000,1500000000,"on","on","Screen on"\n'
            '3,102000000000,1000000000,"off","off","Screen off"\n'
            '4,103000000000,1000000000,"doze","doze-suspend",'
            '"Always-on display (doze-suspend)"\n')
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery.doze; '
            'select ts, dur, light_idle_state as state from android_light_idle_state '
            'union all select ts, dur, deep_idle_state from android_deep_idle_state', path),
            '"ts","dur","state"\n'
            '102200000000,900000000,"inactive"\n'
            '103100000000,900000000,"unmapped"\n'
            '102300000000,1700000000,"sensing"\n')

    def test_battery_stats_states_and_event_slices(self):
        path = self.systrace(STATES)
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery_stats; '
            'select * from android_battery_stats_state', path),
            '"ts","dur","safe_dur","track_name","value","value_name"\n'
            '102500000000,-1,1500000000,"battery_stats.data_conn",13,"4G (LTE)"\n'
            '102400000000,800000000,800000000,"battery_stats.wifi",1,"on"\n'
            '103200000000,-1,800000000,"battery_stats.wifi",0,"off"\n')
        # a '-' first of its key starts at the trace's start; a '+' without
        # an end lasts (safe_dur) to the trace's end
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery_stats; '
            'select * from android_battery_stats_event_slices', path),
            '"ts","dur","safe_dur","track_name","str_value","int_value"\n'
            '100000000000,2800000000,2800000000,"battery_stats.job","j1",10100\n'
            '102900000000,-1,1100000000,"battery_stats.job","j2",10101\n'
            '102600000000,100000000,100000000,"battery_stats.top","com.app",10215\n')
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.battery_stats; select '
            "android_battery_stats_counter_to_string('battery_stats.wifi_suppl', 8.0) as a, "
            "android_battery_stats_counter_to_string('battery_stats.audio', 2.0) as b, "
            "android_battery_stats_counter_to_string('battery_stats.phone_signal_strength', 3.0)"
            ' as c, '
            "android_battery_stats_counter_to_string('battery_stats.other', 2.5) as d", path),
            '"a","b","c","d"\n"4-way-handshake","unknown","3/4","2.5"\n')

    def test_suspend_state_per_machine(self):
        host = [suspend_event(1000, 'timekeeping_freeze', 0, 1),
                suspend_event(1500, 'timekeeping_freeze', 0, 0),
                suspend_event(2000, 'syscore_resume', 0, 1),
                suspend_event(2100, 'syscore_resume', 0, 0),
                suspend_event(2200, 'dpm_resume', 2, 1), suspend_event(2300, 'dpm_resume', 2, 0),
                suspend_event(3000, 'syscore_resume', 0, 1),
                suspend_event(3500, 'syscore_resume', 0, 0),
                suspend_event(3200, 'timekeeping_freeze', 0, 1),
                suspend_event(3300, 'timekeeping_freeze', 0, 0),
                suspend_event(5000, 'syscore_resume', 0, 1)]
        guest = [suspend_event(1200, 'syscore_resume', 0, 1),
                 suspend_event(1300, 'syscore_resume', 0, 0)]
        path = self.proto(bundle(host) + bundle(guest, 2) +
                          battery(6000, 'capacity_percent: 1') +
                          battery(500, 'capacity_percent: 1'))
        # the suspension at 3000 overlaps the next one and is dropped; the
        # unfinished one at 5000 does not count; each machine is filled apart
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.suspend; select * from android_suspend_state',
            path),
            '"ts","dur","machine_id","power_state"\n'
            '500,500,0,"awake"\n500,700,1,"awake"\n1000,500,0,"suspended"\n'
            '1200,100,1,"suspended"\n1300,4700,1,"awake"\n1500,500,0,"awake"\n'
            '2000,100,0,"suspended"\n2100,1100,0,"awake"\n3200,100,0,"suspended"\n'
            '3300,2700,0,"awake"\n')
        # a trace without suspensions: machine 0 awake throughout
        awake = self.proto(battery(10, 'capacity_percent: 1') + battery(90, 'capacity_percent: 1'))
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.suspend; select * from android_suspend_state',
            awake), '"ts","dur","machine_id","power_state"\n10,80,0,"awake"\n')

    def test_wakeups_split_causes_and_take_backoffs(self):
        events = [suspend_event(1000, 'syscore_resume', 0, 1),
                  suspend_event(1100, 'syscore_resume', 0, 0),
                  print_event(1200, 'N|100|suspend_backoff|good'),
                  print_event(1300, 'N|100|wakeup_reason|1300 200 irq_a:201 irq_b:202 irq_c:'
                              '203 irq_d:204 irq_e'),
                  suspend_event(2000, 'syscore_resume', 0, 1),
                  suspend_event(2500, 'syscore_resume', 0, 0),
                  print_event(2600, 'N|100|wakeup_reason|2600 77 only_one'),
                  print_event(2700, 'N|100|wakeup_attribution|2600 app_x'),
                  print_event(2800, 'N|100|wakeup_attribution|2600 app_y'),
                  print_event(9000, 'N|100|suspend_backoff|bad continue failed 3 2000'),
                  print_event(9100, 'N|100|wakeup_reason|9100 Abort: Pending Wakeup Sources: '
                              'a b c d e'),
                  print_event(9200, 'N|100|wakeup_reason|nospace'),
                  suspend_event(20000000000, 'timekeeping_freeze', 0, 1),
                  suspend_event(20000000100, 'timekeeping_freeze', 0, 0)]
        path = self.proto(bundle(events))
        # a good backoff blames the time to the next suspension; a bad one its
        # millis; at most four causes; an attribution per matching id
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE android.wakeups; select ts, dur, '
            'on_device_attribution as attr, type, item, suspend_quality as q, '
            'backoff_state, backoff_reason, backoff_count, backoff_millis '
            'from android_wakeups', path),
            '"ts","dur","attr","type","item","q","backoff_state","backoff_reason",'
            '"backoff_count","backoff_millis"\n'
            '1300,700,"[NULL]","normal","irq_a","good","[NULL]","none","[NULL]","[NULL]"\n'
            '2600,0,"app_x","normal","only_one","[NULL]","[NULL]","none","[NULL]","[NULL]"\n'
            '2600,0,"app_y","normal","only_one","[NULL]","[NULL]","none","[NULL]","[NULL]"\n'
            '9100,2000000000,"[NULL]","abort_pending","a","bad","continue","failed",3,2000\n'
            '9200,0,"[NULL]","normal","nospace","[NULL]","[NULL]","none","[NULL]","[NULL]"\n'
            '1300,700,"[NULL]","normal","irq_b","good","[NULL]","none","[NULL]","[NULL]"\n'
            '9100,2000000000,"[NULL]","abort_pending","b","bad","continue","failed",3,2000\n'
            '1300,700,"[NULL]","normal","irq_c","good","[NULL]","none","[NULL]","[NULL]"\n'
            '9100,2000000000,"[NULL]","abort_pending","c","bad","continue","failed",3,2000\n'
            '1300,700,"[NULL]","normal","irq_d","good","[NULL]","none","[NULL]","[NULL]"\n'
            '9100,2000000000,"[NULL]","abort_pending","d","bad","continue","failed",3,2000\n')

    def test_fill_gaps_pads_each_group(self):
        path = self.proto(battery(1000, 'capacity_percent: 1') +
                          battery(4000, 'capacity_percent: 1'))
        rows = ("(select 1500 as ts, 100 as dur, 2 as g, 'a' as x union all "
                "select 2000, 500, 1, 'b' union all select 1200, 100, 2, 'c' union all "
                "select 3000, 0, 3, 'z')")
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE intervals.fill_gaps; '
            'select * from _intervals_fill_gaps!((g), (x), %s)' % rows, path),
            '"ts","dur","g","x"\n'
            '1000,1000,1,"[NULL]"\n1000,200,2,"[NULL]"\n1000,2000,3,"[NULL]"\n'
            '1200,100,2,"c"\n1300,200,2,"[NULL]"\n1500,100,2,"a"\n1600,2400,2,"[NULL]"\n'
            '2000,500,1,"b"\n2500,1500,1,"[NULL]"\n3000,1000,3,"[NULL]"\n')
        self.assertEqual(e.query(
            'INCLUDE PERFETTO MODULE intervals.fill_gaps; '
            "select * from _intervals_fill_gaps!((g), (x), (select 1 as ts, 1 as dur, "
            "1 as g, 'a' as x where 0))", path),
            '"ts","dur","g","x"\n1000,3000,"[NULL]","[NULL]"\n')


if __name__ == '__main__':
    e.main()
