"""End-to-end: the sched.* standard-library modules on a small systrace whose
answers were worked out by hand, and on two machines merged."""
import json
import os
import zipfile

import weft_e2e as e

# Two cpus, four threads: app (100) runs on cpu 0, is preempted (R+) by bg
# (200), runs again and sleeps; work (101, in process 100) is woken by app
# and runs on cpu 1; bg sleeps in D, is woken by app and runs on cpu 1.
LINE = '%16s-%-5d (%7s) [%03d] d..2   %s: %s\n'
EVENTS = [
    ('<idle>', 0, '-----', 0, '10.000100', 'sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120'),
    ('app', 100, '100', 0, '10.000200', 'sched_waking: comm=work pid=101 prio=120 target_cpu=001'),
    ('<idle>', 0, '-----', 1, '10.000300', 'sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=work next_pid=101 next_prio=120'),
    ('app', 100, '100', 0, '10.000400', 'sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=R+ ==> next_comm=bg next_pid=200 next_prio=120'),
    ('bg', 200, '200', 0, '10.000600', 'sched_switch: prev_comm=bg prev_pid=200 prev_prio=120 prev_state=D ==> next_comm=app next_pid=100 next_prio=120'),
    ('work', 101, '100', 1, '10.000700', 'sched_switch: prev_comm=work prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120'),
    ('app', 100, '100', 0, '10.000800', 'sched_waking: comm=bg pid=200 prio=120 target_cpu=001'),
    ('<idle>', 0, '-----', 1, '10.000900', 'sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=bg next_pid=200 next_prio=120'),
    ('app', 100, '100', 0, '10.001000', 'sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120'),
    ('bg', 200, '200', 1, '10.001200', 'sched_switch: prev_comm=bg prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120'),
]
SCHED = '# tracer: nop\n' + ''.join(LINE % ev for ev in EVENTS)


def two_machines(directory, text, text_b=None):
    """A zip of two systrace files: `text` on machine A, `text_b` (by default
    the same) on machine B."""
    manifest = {'perfetto_manifest': {'version': 1, 'files': [
        {'path': 'a.systrace', 'machine': {'name': 'A'}},
        {'path': 'b.systrace', 'machine': {'name': 'B'}, 'clocks': {
            'clock': 'BOOTTIME', 'sync_to': {'file': 'a.systrace', 'clock': 'BOOTTIME'}}}]}}
    path = os.path.join(directory, 'two.zip')
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr('perfetto_manifest.json', json.dumps(manifest))
        z.writestr('a.systrace', text)
        z.writestr('b.systrace', text if text_b is None else text_b)
    return path


class StdlibSchedTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.write_temp(self.dir, 'sched.systrace', SCHED)

    def q(self, module, sql, trace=None):
        return e.query('INCLUDE PERFETTO MODULE %s; %s' % (module, sql),
                       trace or self.trace)

    def test_states_readable_names(self):
        out = self.q('sched.states',
                     "select sched_state_to_human_readable_string('R+') a, "
                     "sched_state_to_human_readable_string('x') b, "
                     "sched_state_to_human_readable_string('DK') c, "
                     "sched_state_io_to_human_readable_string('D', 1) d, "
                     "sched_state_io_to_human_readable_string('D', 0) f, "
                     "sched_state_io_to_human_readable_string('S', NULL) g")
        self.assertEqual(out, '"a","b","c","d","f","g"\n'
                         '"Runnable (Preempted)","Task Dead","DK",'
                         '"Uninterruptible Sleep (IO)","Uninterruptible Sleep (non-IO)",'
                         '"Sleeping"\n')

    def test_thread_level_parallelism(self):
        # R: work 200-300 us, bg 800-900 us. D: bg 600-800 us. Busy cpus:
        # app 100-400 and 600-1000 (cpu 0), work 300-700 (cpu 1), bg 400-600
        # (cpu 0) and 900-1200 (cpu 1); a row at every start and end.
        out = self.q('sched.thread_level_parallelism',
                     'select * from sched_runnable_thread_count; '
                     'select * from sched_uninterruptible_sleep_thread_count; '
                     'select * from sched_active_cpu_count')
        self.assertEqual(out, '"ts","runnable_thread_count"\n'
                         '10000200000,1\n10000300000,0\n10000800000,1\n10000900000,0\n\n'
                         '"ts","uninterruptible_sleep_thread_count"\n'
                         '10000600000,1\n10000800000,0\n\n'
                         '"ts","active_cpu_count"\n'
                         '10000100000,1\n10000300000,2\n10000400000,2\n10000600000,2\n'
                         '10000700000,1\n10000900000,2\n10001000000,1\n10001200000,0\n')

    def test_previous_runnable_and_latency(self):
        # Running states: 0 (app, nothing runnable before), 2 (work, after R
        # 1 woken by app), 4 (bg), 6 (app, after R+ 3: no waker), 9 (bg,
        # after R 8 woken by app).
        out = self.q('sched.latency', 'select * from sched_previous_runnable_on_thread; '
                     'select * from sched_latency_for_running_interval')
        self.assertEqual(out, '"id","prev_runnable_id","prev_wakeup_runnable_id"\n'
                         '0,"[NULL]","[NULL]"\n2,1,1\n4,"[NULL]","[NULL]"\n6,3,"[NULL]"\n'
                         '9,8,8\n\n'
                         '"thread_state_id","sched_id","utid","runnable_latency_id",'
                         '"latency_dur"\n'
                         '2,1,2,1,100000\n6,3,1,3,200000\n9,5,3,8,100000\n')

    def test_time_in_state_for_thread(self):
        # The final sleeps are unfinished (dur -1) and count as -1 ns.
        out = self.q('sched.time_in_state',
                     'select * from sched_time_in_state_for_thread where utid = 1; '
                     'select * from sched_percentage_of_time_in_state')
        self.assertEqual(out, '"utid","total_runtime","state","time_in_state",'
                         '"percentage_in_state"\n'
                         '1,899999,"R+",200000,22\n1,899999,"Running",700000,77\n'
                         '1,899999,"S",-1,0\n\n'
                         '"utid","running","runnable","runnable_preempted","sleeping",'
                         '"uninterruptible_sleep","other"\n'
                         '1,77,"[NULL]",22,0,"[NULL]","[NULL]"\n'
                         '2,80,20,"[NULL]",0,"[NULL]","[NULL]"\n'
                         '3,62,12,"[NULL]",0,25,"[NULL]"\n')

    def test_time_in_state_in_interval(self):
        # [150, 650) us: app runs 150-400 and 600-650 on cpu 0, is R+ 400-600.
        # On cpu 0 the slices end R+ (app, 250 us inside), D (bg, 200 us)
        # and S (app, 50 us).
        out = self.q('sched.time_in_state',
                     'select * from sched_time_in_state_for_thread_in_interval('
                     '10000150000, 500000, 1); '
                     'select * from sched_time_in_state_and_cpu_for_thread_in_interval('
                     '10000150000, 500000, 1); '
                     'select * from sched_time_in_state_for_cpu_in_interval('
                     '0, 10000150000, 500000) order by end_state')
        self.assertEqual(out, '"state","io_wait","blocked_function","dur"\n'
                         '"Running","[NULL]","[NULL]",300000\n'
                         '"R+","[NULL]","[NULL]",200000\n\n'
                         '"state","io_wait","cpu","blocked_function","dur"\n'
                         '"Running","[NULL]",0,"[NULL]",300000\n'
                         '"R+","[NULL]","[NULL]","[NULL]",200000\n\n'
                         '"end_state","dur"\n"D",200000\n"R+",250000\n"S",50000\n')

    def test_with_thread_process(self):
        out = self.q('sched.with_context',
                     'select * from sched_with_thread_process where utid != 0 order by id')
        self.assertEqual(out, '"id","ts","dur","utid","upid","thread_name",'
                         '"process_name","cpu","end_state","priority"\n'
                         '0,10000100000,300000,1,1,"app","[NULL]",0,"R+",120\n'
                         '1,10000300000,400000,2,1,"work","[NULL]",1,"S",120\n'
                         '2,10000400000,200000,3,2,"bg","[NULL]",0,"D",120\n'
                         '3,10000600000,400000,1,1,"app","[NULL]",0,"S",120\n'
                         '5,10000900000,300000,3,2,"bg","[NULL]",1,"S",120\n')

    def test_two_machines_stay_apart(self):
        # The same threads on machines A and B are different threads: each
        # machine's latencies are its own, and both machines' cpus count.
        z = two_machines(self.dir, SCHED)
        out = self.q('sched.latency',
                     'select m.name as machine, t.tid, l.latency_dur '
                     'from sched_latency_for_running_interval l join thread t using (utid) '
                     'join machine m on t.machine_id = m.id order by 1, 2', z)
        self.assertEqual(out, '"machine","tid","latency_dur"\n'
                         '"A",100,200000\n"A",101,100000\n"A",200,100000\n'
                         '"B",100,200000\n"B",101,100000\n"B",200,100000\n')
        out = self.q('sched.thread_level_parallelism',
                     'select max(active_cpu_count) as busiest from sched_active_cpu_count', z)
        self.assertEqual(out, '"busiest"\n4\n')
        out = self.q('sched.time_in_state',
                     'select count(*) as threads, sum(running) as running '
                     'from sched_percentage_of_time_in_state where utid in '
                     '(select utid from thread where tid = 100)', z)
        self.assertEqual(out, '"threads","running"\n2,154\n')
        # A cpu given as its machine-unique id is that machine's cpu alone.
        out = self.q('sched.time_in_state',
                     'select * from sched_time_in_state_for_cpu_in_interval('
                     "(select ucpu from cpu join machine m on cpu.machine_id = m.id "
                     "where m.name = 'B' and cpu.cpu = 0), 10000150000, 500000) "
                     'order by end_state', z)
        self.assertEqual(out, '"end_state","dur"\n"D",200000\n"R+",250000\n"S",50000\n')


if __name__ == '__main__':
    e.main()
