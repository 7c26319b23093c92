"""End-to-end: Android probes and logs (proto_android.c, model/logs.c):
logcat, Chrome's TrackEvent log messages, systemd journald and the
packages list. Traces are generated with weft_e2e's pb_* writers; every
expected answer is worked out by hand from the rules."""
import struct

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def clocks(realtime, boottime):
    """A ClockSnapshot relating REALTIME (1) and BOOTTIME (6)."""
    return pb_packet(pb_bytes(6, pb_bytes(1, pb_int(1, 1) + pb_int(2, realtime)) +
                              pb_bytes(1, pb_int(1, 6) + pb_int(2, boottime))))


def log_event(*fields):
    return pb_bytes(1, b''.join(fields))


def log_arg(name=None, value=None):
    """A LogEvent.Arg: value an int, a float (as a Python float) or a str."""
    out = pb_bytes(1, name) if name is not None else b''
    if isinstance(value, bool) or value is None:
        return pb_bytes(9, out)
    if isinstance(value, int):
        out += pb_int(2, value)
    elif isinstance(value, float):
        out += e.varint(3 << 3 | 5) + struct.pack('<f', value)
    else:
        out += pb_bytes(4, value)
    return pb_bytes(9, out)


def android_log(ts, *payload):
    return pb_packet(pb_int(8, ts), pb_bytes(39, b''.join(payload)))


def journald(ts, *fields):
    return pb_packet(pb_int(8, ts), pb_bytes(132, b''.join(fields)))


class AndroidLogTest(e.TempDirTest):
    def write(self, data):
        return e.write_temp(self.dir, 'trace.pb', data)

    def test_logcat_rows(self):
        trace = clocks(5000, 1000) + android_log(
            2000,
            # REALTIME 6000 is trace time 2000; pid 10 is new: its main
            # thread comes first
            log_event(pb_int(5, 6000), pb_int(2, 10), pb_int(3, 11), pb_bytes(6, 'tg'),
                      pb_int(7, 6), pb_bytes(8, 'hello')),
            # no tid: utid 0; no prio: INFO; args follow the (absent) message
            log_event(pb_int(5, 5100), pb_bytes(6, 'ev'), log_arg('a', -3), log_arg('b', 1.5),
                      log_arg('c', 's'), log_arg(None, 9), log_arg('d')),
            # no tag: ""; a tid without pid belongs to pid 0
            log_event(pb_int(5, 5200), pb_int(3, 13), pb_int(7, 1), pb_bytes(8, 'x'),
                      log_arg('z', 1)),
            # before trace time 0: dropped
            log_event(pb_int(5, 100), pb_int(3, 12)))
        path = self.write(trace)
        # rows in timestamp order; each event is parsed at its own time, so
        # its thread is made then (tid 13 before pid 10's threads)
        self.assertEqual(e.query('select * from android_logs', path),
                         '"id","ts","utid","prio","tag","msg"\n'
                         '0,1100,0,4,"ev"," a=-3 b=1.500000 c="s" =9 d="\n'
                         '1,1200,1,1,"","x z=1"\n'
                         '2,2000,3,6,"tg","hello"\n')
        self.assertEqual(e.query('select utid, tid, upid from thread', path),
                         '"utid","tid","upid"\n0,0,0\n1,13,0\n2,10,1\n3,11,1\n')
        self.assertEqual(e.query("select value from stats where name = "
                                 "'trace_sorter_negative_timestamp_dropped'", path),
                         '"value"\n1\n')
        self.assertEqual(e.query("select log_source, arg_set_id from logs limit 1", path),
                         '"log_source","arg_set_id"\n"android_logcat","[NULL]"\n')

    def test_logcat_stats_are_set_not_added(self):
        path = self.write(clocks(0, 0) +
                          android_log(1, pb_bytes(2, pb_int(1, 100) + pb_int(2, 3))) +
                          android_log(2, pb_bytes(2, pb_int(1, 200) + pb_int(3, 4))))
        self.assertEqual(e.query("select name, value from stats where name glob "
                                 "'android_log_num_*' order by name", path),
                         '"name","value"\n"android_log_num_failed",3\n'
                         '"android_log_num_skipped",4\n"android_log_num_total",200\n')

    def test_journald(self):
        path = self.write(
            journald(2000, pb_int(1, 42), pb_int(5, 3), pb_bytes(7, 'm1')) +
            journald(2100, pb_int(1, 43), pb_int(2, 44), pb_int(3, 1000), pb_bytes(8, 'c'),
                     pb_bytes(10, 'u.service'), pb_bytes(11, 'h'), pb_bytes(12, 'journal')) +
            journald(2200, pb_bytes(6, 't'), pb_int(3, 0), pb_bytes(8, '')))
        # tid defaults to pid; no pid: no thread; absent prio 0, tag/msg NULL;
        # an arg set's id is the args row of its first arg
        self.assertEqual(e.query('select * from logs', path),
                         '"id","ts","utid","prio","log_source","tag","msg","arg_set_id"\n'
                         '0,2000,1,3,"systemd_journald","[NULL]","m1","[NULL]"\n'
                         '1,2100,3,0,"systemd_journald","[NULL]","[NULL]",0\n'
                         '2,2200,"[NULL]",0,"systemd_journald","t","[NULL]",5\n')
        self.assertEqual(e.query('select arg_set_id, key, display_value from args', path),
                         '"arg_set_id","key","display_value"\n'
                         '0,"uid","1000"\n0,"comm","c"\n0,"systemd_unit","u.service"\n'
                         '0,"hostname","h"\n0,"transport","journal"\n'
                         '5,"uid","0"\n5,"comm",""\n')
        self.assertEqual(e.query('select count(*) as n from android_logs', path), '"n"\n0\n')

    def test_journald_stats_and_pid_zero(self):
        path = self.write(
            journald(2000, pb_int(1, 0), pb_int(2, 5), pb_bytes(7, 'pid 0')) +
            journald(2100, pb_int(2, 6), pb_bytes(7, 'tid only')) +
            journald(2200, pb_int(20, 10)) +
            journald(2300, pb_int(20, 12), pb_int(21, 3)) +
            journald(2400, pb_int(21, 0), pb_bytes(7, 'stats, not a log')))
        # pid 0 or absent: no thread, whatever the tid
        self.assertEqual(e.query('select ts, utid, msg from logs', path),
                         '"ts","utid","msg"\n2000,"[NULL]","pid 0"\n'
                         '2100,"[NULL]","tid only"\n')
        self.assertEqual(e.query('select count(*) as n from thread', path), '"n"\n1\n')
        # a flush's num_total / num_failed set the stats (the last one wins)
        # and make no log row, even with a message
        self.assertEqual(e.query("select name, value from stats where name glob "
                                 "'systemd_journal_*' order by name", path),
                         '"name","value"\n"systemd_journal_num_failed",0\n'
                         '"systemd_journal_num_total",12\n')

    def test_packages_list(self):
        pkg = lambda *f: pb_bytes(1, b''.join(f))
        path = self.write(
            pb_packet(pb_bytes(47, pkg(pb_bytes(1, 'a'), pb_int(2, 10100), pb_int(3, 1),
                                       pb_int(5, 7)) +
                               pkg(pb_bytes(1, 'b'), pb_int(4, 1)) + pb_int(2, 1))) +
            pb_packet(pb_bytes(47, pkg(pb_bytes(1, 'a'), pb_int(2, 1)) + pb_int(3, 1))))
        # a name already listed is skipped; absent fields are 0
        self.assertEqual(e.query('select * from package_list', path),
                         '"id","package_name","uid","debuggable","profileable_from_shell",'
                         '"version_code"\n0,"a",10100,1,0,7\n1,"b",0,0,1,0\n')
        # each list sets the error stats
        self.assertEqual(e.query("select name, value from stats where name glob "
                                 "'packages_list_*' order by name", path),
                         '"name","value"\n"packages_list_has_parse_errors",0\n'
                         '"packages_list_has_read_errors",1\n')

    def test_journald_module(self):
        path = self.write(
            journald(5, pb_int(1, 42), pb_int(3, 7), pb_bytes(6, 'app'), pb_bytes(7, 'hi'),
                     pb_bytes(11, 'h')) +
            android_log(6, log_event(pb_int(5, 6), pb_bytes(8, 'not journald'))) +
            clocks(0, 0))
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE linux.systemd_journald; '
                                 'select * from linux_systemd_journald_logs', path),
                         '"id","ts","utid","prio","tag","msg","uid","comm","systemd_unit",'
                         '"hostname","transport"\n'
                         '0,5,1,0,"app","hi",7,"[NULL]","[NULL]","h","[NULL]"\n')


def process(pid, ppid, name, uid=None):
    return pb_bytes(1, pb_int(1, pid) + pb_int(2, ppid) + pb_bytes(3, name) +
                    (pb_int(5, uid) if uid is not None else b''))


def package(name, uid, version):
    return pb_bytes(1, pb_bytes(1, name) + pb_int(2, uid) + pb_int(5, version))


class ProcessMetadataTest(e.TempDirTest):
    QUERY = ('INCLUDE PERFETTO MODULE android.process_metadata; '
             'select pid, process_name, uid, user_id, shared_uid, package_name, version_code, '
             'debuggable, is_kernel_task from android_process_metadata where upid != 0')

    def test_packages_and_kernel_tasks(self):
        path = e.write_temp(self.dir, 'trace.pb', pb_packet(pb_bytes(2, b''.join([
            process(1, 0, 'init', 0), process(2, 0, 'kthreadd', 0),
            process(9, 2, 'kworker/0', 0), process(20, 9, 'kworker_child', 0),
            process(30, 1, 'kthreadd', 0), process(31, 30, 'kid', 0),
            process(13, 1, 'com.a:remote', 10200), process(14, 1, 'com.b', 10300),
            process(15, 1, 'com.cc:x', 1010400), process(16, 1, 'com.cz', 10400),
            process(17, 1, 'com.q', 10400)]))) +
            pb_packet(pb_bytes(47, package('com.a', 10200, 1) + package('com.z', 10300, 2) +
                               package('com.c', 10400, 3) + package('com.cc', 10400, 4))))
        # kernel tasks: started by pid 0 or by a process named kthreadd; a
        # lone package of the app id is the process's whatever its name; a
        # shared app id gives the longest package name the process's name
        # starts with, or none; uid is the app id, user_id the user
        self.assertEqual(e.query(self.QUERY, path),
                         '"pid","process_name","uid","user_id","shared_uid","package_name",'
                         '"version_code","debuggable","is_kernel_task"\n'
                         '1,"init",0,0,"[NULL]","[NULL]","[NULL]","[NULL]",1\n'
                         '2,"kthreadd",0,0,"[NULL]","[NULL]","[NULL]","[NULL]",1\n'
                         '9,"kworker/0",0,0,"[NULL]","[NULL]","[NULL]","[NULL]",1\n'
                         '20,"kworker_child",0,0,"[NULL]","[NULL]","[NULL]","[NULL]",0\n'
                         '30,"kthreadd",0,0,"[NULL]","[NULL]","[NULL]","[NULL]",0\n'
                         '31,"kid",0,0,"[NULL]","[NULL]","[NULL]","[NULL]",1\n'
                         '13,"com.a:remote",10200,0,"[NULL]","com.a",1,0,0\n'
                         '14,"com.b",10300,0,"[NULL]","com.z",2,0,0\n'
                         '15,"com.cc:x",10400,10,1,"com.cc",4,0,0\n'
                         '16,"com.cz",10400,0,1,"com.c",3,0,0\n'
                         '17,"com.q",10400,0,1,"[NULL]","[NULL]","[NULL]",0\n')
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE android.process_metadata; '
                                 'select android_is_kernel_task(0) as idle, '
                                 'android_is_kernel_task(99) as none', path),
                         '"idle","none"\n1,0\n')


def sysprops(ts, *pairs):
    """An AndroidSystemProperty packet of (name, value) pairs."""
    return pb_packet(pb_int(8, ts), pb_bytes(86, b''.join(
        pb_bytes(1, pb_bytes(1, k) + pb_bytes(2, v)) for k, v in pairs)))


class SystemPropertyTest(e.TempDirTest):
    def test_counters_metadata_and_device_state(self):
        path = e.write_temp(self.dir, 'trace.pb', sysprops(
            100, ('debug.tracing.battery_stats.audio', '1'), ('debug.tracing.mcc', '310'),
            ('debug.tracing.battery_status', '3'), ('debug.tracing.plug_type', 'x'),
            ('debug.tracing.plug_type', '2'), ('debug.tracing.other', '5'),
            ('debug.tracing.profile_system_server', '1'),
            ('debug.tracing.device_state', 'st')) + sysprops(
            200, ('debug.tracing.mcc', ' 311'), ('debug.tracing.mnc', '+5'),
            ('debug.tracing.desktop_mode_visible_tasks', '2x'),
            ('debug.tracing.screen_state', '-1')))
        # values must be whole int32s; unknown properties are ignored
        self.assertEqual(e.query(
            "select t.name, t.type, extract_arg(t.dimension_arg_set_id, 'sysprop_name') as d, "
            "extract_arg(t.dimension_arg_set_id, 'counter_key') as k, c.ts, c.value "
            "from counter_track t join counter c on c.track_id = t.id order by c.id", path),
            '"name","type","d","k","ts","value"\n'
            '"battery_stats.audio","battery_stats","[NULL]","battery_stats.audio",100,1.000000\n'
            '"mcc","sysprop_counter","debug.tracing.mcc","[NULL]",100,310.000000\n'
            '"BatteryStatus","sysprop_counter","debug.tracing.battery_status","[NULL]",100,'
            '3.000000\n'
            '"PlugType","sysprop_counter","debug.tracing.plug_type","[NULL]",100,2.000000\n'
            '"mcc","sysprop_counter","debug.tracing.mcc","[NULL]",200,311.000000\n'
            '"mnc","sysprop_counter","debug.tracing.mnc","[NULL]",200,5.000000\n'
            '"ScreenState","screen_state","[NULL]","[NULL]",200,-1.000000\n')
        self.assertEqual(e.query("select name, int_value from metadata where name glob "
                                 "'android_profile*'", path),
                         '"name","int_value"\n"android_profile_system_server",1\n')
        self.assertEqual(e.query('select s.ts, s.dur, s.name, t.name as track, t.type '
                                 'from slice s join track t on s.track_id = t.id', path),
                         '"ts","dur","name","track","type"\n'
                         '100,0,"st","DeviceStateChanged","android_device_state"\n')

    def test_atrace_screen_and_device_state_share_the_tracks(self):
        text = ('# tracer: nop\n'
                '  app-1     (    1) [000] ....   0.000002: tracing_mark_write: '
                'C|1000|ScreenState|1\n'
                '  app-1     (    1) [000] ....   0.000003: tracing_mark_write: '
                'N|1000|DeviceStateChanged|folded\n')
        sys_path = e.write_temp(self.dir, 'trace.txt', text)
        self.assertEqual(e.query('select t.name, t.type, c.ts, c.value from counter_track t '
                                 'join counter c on c.track_id = t.id', sys_path),
                         '"name","type","ts","value"\n"ScreenState","screen_state",2000,1.000000\n')
        self.assertEqual(e.query('select s.name, t.name as track from slice s join track t '
                                 'on s.track_id = t.id', sys_path),
                         '"name","track"\n"folded","DeviceStateChanged"\n')


def cpu_per_uid(ts, uids, times, clusters=None):
    """A CpuPerUidData packet (uids and times packed)."""
    body = pb_int(1, clusters) if clusters is not None else b''
    body += pb_bytes(2, b''.join(e.varint(u) for u in uids))
    body += pb_bytes(3, b''.join(e.varint(t) for t in times))
    return pb_packet(pb_int(8, ts), pb_bytes(119, body))


class CpuPerUidTest(e.TempDirTest):
    def test_values_totals_and_groups(self):
        path = e.write_temp(self.dir, 'trace.pb',
                            cpu_per_uid(10, [0, 1000, 1090001], [100] * 6, clusters=2) +
                            # increments; 1090001 absent, its group total stays
                            cpu_per_uid(20, [0, 1000], [5, 0, 7, 1]) +
                            # 1090002 joins 1090001's group: its first value is
                            # absolute, no increase
                            cpu_per_uid(30, [1090002, 1090001], [50, 50, 3, 4]) +
                            # too many values: the ones past the last uid are dropped
                            cpu_per_uid(40, [0], [1, 1, 1]))
        # a value equal to the track's last is written only before a change
        self.assertEqual(e.query(
            "select t.name, t.type, t.unit, c.ts, c.value from counter_track t join counter c "
            "on c.track_id = t.id order by t.name, c.ts", path),
            '"name","type","unit","ts","value"\n'
            '"CPU for Apps CL0","android_cpu_per_uid_totals","ms",10,0.000000\n'
            '"CPU for Apps CL0","android_cpu_per_uid_totals","ms",20,0.000000\n'
            '"CPU for Apps CL0","android_cpu_per_uid_totals","ms",30,3.000000\n'
            '"CPU for Apps CL1","android_cpu_per_uid_totals","ms",10,0.000000\n'
            '"CPU for Apps CL1","android_cpu_per_uid_totals","ms",20,0.000000\n'
            '"CPU for Apps CL1","android_cpu_per_uid_totals","ms",30,4.000000\n'
            '"CPU for System CL0","android_cpu_per_uid_totals","ms",10,0.000000\n'
            '"CPU for System CL0","android_cpu_per_uid_totals","ms",20,12.000000\n'
            '"CPU for System CL0","android_cpu_per_uid_totals","ms",30,12.000000\n'
            '"CPU for System CL0","android_cpu_per_uid_totals","ms",40,13.000000\n'
            '"CPU for System CL1","android_cpu_per_uid_totals","ms",10,0.000000\n'
            '"CPU for System CL1","android_cpu_per_uid_totals","ms",20,1.000000\n'
            '"CPU for System CL1","android_cpu_per_uid_totals","ms",30,1.000000\n'
            '"CPU for System CL1","android_cpu_per_uid_totals","ms",40,2.000000\n'
            '"CPU for UID 0 CL0","android_cpu_per_uid","ms",10,100.000000\n'
            '"CPU for UID 0 CL0","android_cpu_per_uid","ms",20,105.000000\n'
            '"CPU for UID 0 CL0","android_cpu_per_uid","ms",30,105.000000\n'
            '"CPU for UID 0 CL0","android_cpu_per_uid","ms",40,106.000000\n'
            '"CPU for UID 0 CL1","android_cpu_per_uid","ms",10,100.000000\n'
            '"CPU for UID 0 CL1","android_cpu_per_uid","ms",30,100.000000\n'
            '"CPU for UID 0 CL1","android_cpu_per_uid","ms",40,101.000000\n'
            '"CPU for UID 1000 CL0","android_cpu_per_uid","ms",10,100.000000\n'
            '"CPU for UID 1000 CL0","android_cpu_per_uid","ms",20,107.000000\n'
            '"CPU for UID 1000 CL1","android_cpu_per_uid","ms",10,100.000000\n'
            '"CPU for UID 1000 CL1","android_cpu_per_uid","ms",20,101.000000\n'
            '"CPU for UID 1090000 CL0","android_cpu_per_uid","ms",10,0.000000\n'
            '"CPU for UID 1090000 CL0","android_cpu_per_uid","ms",20,0.000000\n'
            '"CPU for UID 1090000 CL0","android_cpu_per_uid","ms",30,3.000000\n'
            '"CPU for UID 1090000 CL1","android_cpu_per_uid","ms",10,0.000000\n'
            '"CPU for UID 1090000 CL1","android_cpu_per_uid","ms",20,0.000000\n'
            '"CPU for UID 1090000 CL1","android_cpu_per_uid","ms",30,4.000000\n')
        self.assertEqual(e.query('select uid, cluster, total_cpu_millis from '
                                 '__intrinsic_android_cpu_per_uid_track order by uid, cluster',
                                 path),
                         '"uid","cluster","total_cpu_millis"\n0,0,6\n0,1,1\n1000,0,7\n'
                         '1000,1,1\n1090000,0,3\n1090000,1,4\n')
        self.assertEqual(e.query("select a.key, a.display_value from counter_track t join args a "
                                 "on a.arg_set_id = t.dimension_arg_set_id "
                                 "where t.name = 'CPU for Apps CL1'", path),
                         '"key","display_value"\n"type","Apps"\n"cluster","1"\n')


def fs_event(ts, pid, field, *body):
    """One ftrace event (cpu 0) of an android_fs event message."""
    event = pb_int(1, ts) + pb_int(2, pid) + pb_bytes(field, b''.join(body))
    return pb_packet(pb_bytes(1, pb_int(1, 0) + pb_bytes(2, event)))


def read_start(ts, pid, ino, offset, path):
    return fs_event(ts, pid, 432, pb_int(1, 4096), pb_int(4, ino), pb_int(5, offset),
                    pb_bytes(6, path), pb_int(7, pid))


def read_end(ts, pid, ino, offset, nbytes):
    return fs_event(ts, pid, 431, pb_int(1, nbytes), pb_int(2, ino), pb_int(3, offset))


class AndroidFsTest(e.TempDirTest):
    def test_data_reads(self):
        path = e.write_temp(self.dir, 'trace.pb',
                            read_start(100, 10, 5, 0, '/a') + read_start(110, 11, 6, 8, '/b') +
                            read_end(120, 99, 5, 0, 10) +  # ends pid 10's read
                            read_end(130, 99, 5, 0, 10) +  # no longer open: ignored
                            read_end(140, 99, 6, 9, 10) +  # unknown (ino, offset)
                            read_end(150, 99, 6, 8, 20))
        # overlapping reads of two pids go to two tracks of the set
        self.assertEqual(e.query(
            "select s.ts, s.dur, s.name, t.name as track, "
            "extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') as idx, "
            "extract_arg(s.arg_set_id, 'file_path') as file, "
            "extract_arg(s.arg_set_id, 'offset_end') as off_end, "
            "extract_arg(s.arg_set_id, 'bytes_read_end') as bytes_end "
            "from slice s join track t on s.track_id = t.id order by s.ts", path),
            '"ts","dur","name","track","idx","file","off_end","bytes_end"\n'
            '100,20,"android_fs_data_read","android_fs",0,"/a",0,10\n'
            '110,40,"android_fs_data_read","android_fs",1,"/b",8,20\n')
        self.assertEqual(e.query("select key, display_value from args where arg_set_id = "
                                 "(select arg_set_id from slice where ts = 100)", path),
                         '"key","display_value"\n"file_path","/a"\n"offset_start","0"\n'
                         '"bytes_read_start","4096"\n"offset_end","0"\n'
                         '"bytes_read_end","10"\n')


def track_event_log(prio=None, location=True, thread=True):
    """A thread track (pid 1, tid 2) and an instant at ts 10 with a
    log_message whose body (and source location) are interned."""
    seq = pb_int(10, 1)
    desc = pb_int(1, 7) + (pb_bytes(4, pb_int(1, 1) + pb_int(2, 2)) if thread else b'')
    msg = pb_int(2, 1) + (pb_int(1, 3) if location else b'') + \
        (pb_int(3, prio) if prio is not None else b'')
    interned = pb_bytes(20, pb_int(1, 1) + pb_bytes(2, 'log message')) + \
        pb_bytes(4, pb_int(1, 3) + pb_bytes(2, 'foo.cc') + pb_bytes(3, 'func') + pb_int(4, 123))
    return (pb_packet(pb_int(8, 0), seq, pb_int(13, 1), pb_bytes(60, desc)) +
            pb_packet(pb_int(8, 10), seq, pb_int(13, 2), pb_bytes(12, interned),
                      pb_bytes(11, pb_int(11, 7) + pb_int(9, 3) + pb_bytes(23, 'slice1') +
                               pb_bytes(21, msg))))


class TrackEventLogTest(e.TempDirTest):
    def write(self, data):
        return e.write_temp(self.dir, 'trace.pb', data)

    def test_log_message_is_a_log_entry(self):
        path = self.write(track_event_log())
        self.assertEqual(e.query('select ts, utid, tag, msg, prio from android_logs', path),
                         '"ts","utid","tag","msg","prio"\n10,2,"foo.cc:123","log message",4\n')
        self.assertEqual(e.query('select key, display_value from args where arg_set_id = '
                                 '(select arg_set_id from slice)', path),
                         '"key","display_value"\n'
                         '"track_event.log_message.message","log message"\n'
                         '"track_event.log_message.file_name","foo.cc"\n'
                         '"track_event.log_message.function_name","func"\n'
                         '"track_event.log_message.line_number","123"\n')

    def test_priority_and_no_location(self):
        path = self.write(track_event_log(prio=5, location=False))
        self.assertEqual(e.query('select tag, prio from android_logs', path),
                         '"tag","prio"\n"[NULL]",5\n')
        self.assertEqual(e.query("select key, display_value from args where key glob "
                                 "'track_event.*'", path),
                         '"key","display_value"\n'
                         '"track_event.log_message.message","log message"\n'
                         '"track_event.priority","5"\n')

    def test_without_thread_is_a_parser_error(self):
        path = self.write(track_event_log(thread=False))
        self.assertEqual(e.query('select count(*) as n from android_logs', path), '"n"\n0\n')
        self.assertEqual(e.query("select value from stats where name = "
                                 "'track_event_parser_errors'", path), '"value"\n1\n')


class ArgSetToJsonTest(e.TempDirTest):
    def test_nested_keys_and_types(self):
        path = e.write_temp(self.dir, 'trace.json', '{"traceEvents":[{"ph":"X","name":"s",'
                            '"ts":1,"dur":1,"pid":1,"tid":1,"args":{"a":{"b":1,"c":[1,"x\\"q",'
                            '2.5,true,{"d":-3}]},"e":"f\\n","g":1e20,"h":0.1}}]}')
        self.assertEqual(e.query('select __intrinsic_arg_set_to_json(arg_set_id) as j, '
                                 '__intrinsic_arg_set_to_json(NULL) as n, '
                                 '__intrinsic_arg_set_to_json(12345) as m from slice', path),
                         '"j","n","m"\n"{"args":{"a":{"b":1,"c":[1,"x\\"q",2.5,true,{"d":-3}]},'
                         '"e":"f\\n","g":1e+20,"h":0.1}}","[NULL]","{}"\n')

    def test_log_message_args(self):
        path = e.write_temp(self.dir, 'trace.pb', track_event_log())
        self.assertEqual(e.query('select __intrinsic_arg_set_to_json(arg_set_id) as j '
                                 'from slice', path),
                         '"j"\n"{"track_event":{"log_message":{"message":"log message",'
                         '"file_name":"foo.cc","function_name":"func","line_number":123}}}"\n')


if __name__ == '__main__':
    e.main()
