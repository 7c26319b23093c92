"""End-to-end: the linux.* standard-library modules (cpu frequency, idle,
utilization, threads, memory, irqs, block io), on small generated traces
whose answers were worked out by hand."""
import weft_e2e as e
from test_stdlib_sched import EVENTS, LINE, two_machines
from weft_e2e import pb_bytes, pb_int, pb_packet

IRQ_HANDLER_ENTRY, IRQ_HANDLER_EXIT = 36, 37
SOFTIRQ_ENTRY, SOFTIRQ_EXIT = 24, 25
BLOCK_IO_START, BLOCK_IO_DONE = 546, 547
SCHED_SWITCH, CPU_FREQUENCY = 4, 11


def ftrace_event(ts, pid, number, *fields):
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) +
                    pb_bytes(number, b''.join(fields)))


def on_machine(machine):
    """The machine_id field of a packet (none for the host, machine 0)."""
    return pb_int(98, machine) if machine else b''


def bundle(cpu, *events, machine=0):
    return pb_packet(pb_bytes(1, pb_int(1, cpu) + b''.join(events)), pb_int(10, 1),
                     on_machine(machine))


def process_tree(ts, processes, machine=0):
    """A ProcessTree packet: processes are (pid, ppid, name)."""
    body = b''.join(pb_bytes(1, pb_int(1, pid) + pb_int(2, ppid) + pb_bytes(3, name))
                    for pid, ppid, name in processes)
    return pb_packet(pb_int(8, ts), pb_bytes(2, body), on_machine(machine))


def process_stats(ts, pid, machine=0, **kb):
    """A ProcessStats packet for one process; kb: anon, file, shmem, swap."""
    numbers = {'anon': 4, 'file': 5, 'shmem': 6, 'swap': 7}
    body = pb_int(1, pid) + b''.join(pb_int(numbers[k], v) for k, v in kb.items())
    return pb_packet(pb_int(8, ts), pb_bytes(9, pb_bytes(1, body)), on_machine(machine))


def kernel_trace(machine=0):
    """Processes (kthreadd, a kworker, an app), irqs on two cpus, memory
    counters of two processes and block io on two devices, on `machine`."""
    irq = lambda ts, n, name: ftrace_event(ts, 0, IRQ_HANDLER_ENTRY, pb_int(1, n),
                                           pb_bytes(2, name))
    irq_exit = lambda ts, n: ftrace_event(ts, 0, IRQ_HANDLER_EXIT, pb_int(1, n),
                                          pb_int(2, 1))
    soft = lambda ts, number, vec: ftrace_event(ts, 0, number, pb_int(1, vec))
    block = lambda ts, number, dev: ftrace_event(ts, 7, number, pb_int(1, dev),
                                                 pb_int(2, 8), pb_bytes(6, 'RA'))
    return b''.join([
        process_tree(500, [(1, 0, 'init'), (2, 0, 'kthreadd'),
                           (5, 2, 'kworker/0:1'), (100, 1, 'app')], machine),
        process_stats(1000, 100, machine, anon=100, file=50, shmem=10, swap=5),
        process_stats(1000, 200, machine, anon=40, file=20),
        process_stats(2000, 100, machine, anon=80, file=50, shmem=10, swap=5),
        process_stats(3000, 100, machine, anon=200, file=60, shmem=0, swap=0),
        bundle(0, irq(1000, 5, 'timer'), irq(1100, 6, 'nested'), irq_exit(1150, 6),
               irq_exit(1300, 5), soft(1400, SOFTIRQ_ENTRY, 1),
               soft(1600, SOFTIRQ_EXIT, 1), machine=machine),
        bundle(1, irq(1200, 9, 'ufs'), irq_exit(1250, 9),
               block(1000, BLOCK_IO_START, 45824), block(1200, BLOCK_IO_START, 2049),
               block(1300, BLOCK_IO_START, 45824), block(2400, BLOCK_IO_DONE, 45824),
               block(2600, BLOCK_IO_DONE, 45824), block(3000, BLOCK_IO_DONE, 2049),
               machine=machine),
    ])


def sched_switch(ts, prev_pid, prev_comm, prev_state, next_pid, next_comm):
    return ftrace_event(ts, prev_pid, SCHED_SWITCH, pb_bytes(1, prev_comm),
                        pb_int(2, prev_pid), pb_int(3, 120), pb_int(4, prev_state),
                        pb_bytes(5, next_comm), pb_int(6, next_pid), pb_int(7, 120))


def cpu_frequency(ts, cpu, khz):
    return ftrace_event(ts, 0, CPU_FREQUENCY, pb_int(1, khz), pb_int(2, cpu))


def clock_snapshot(boottime, monotonic):
    clock = lambda number, ts: pb_bytes(1, pb_int(1, number) + pb_int(2, ts))
    return pb_packet(pb_bytes(6, clock(6, boottime) + clock(3, monotonic)))


def suspended_trace():
    """cpu 0 at 1 GHz runs app (100) 100-1500 and 2100-2900 us, cpu 1 at 500
    MHz runs w (101) 200-2700 us; the device sleeps for 500 us before 2 ms
    (MONOTONIC gains 1.5 ms while BOOTTIME gains 2 ms)."""
    return b''.join([
        clock_snapshot(1000, 1000), clock_snapshot(2000000, 1500000),
        bundle(0, cpu_frequency(10000, 0, 1000000),
               sched_switch(100000, 0, 'swapper/0', 0, 100, 'app'),
               sched_switch(1500000, 100, 'app', 1, 0, 'swapper/0'),
               sched_switch(2100000, 0, 'swapper/0', 0, 100, 'app'),
               sched_switch(2900000, 100, 'app', 1, 0, 'swapper/0')),
        bundle(1, cpu_frequency(10000, 1, 500000),
               sched_switch(200000, 0, 'swapper/1', 0, 101, 'w'),
               sched_switch(2700000, 101, 'w', 1, 0, 'swapper/1')),
    ])


def systrace(events):
    return '# tracer: nop\n' + ''.join(LINE % ev for ev in sorted(events, key=lambda ev: ev[4]))


def idle(ts, cpu, state):
    return ('<idle>', 0, '-----', cpu, ts, 'cpu_idle: state=%d cpu_id=%d' % (state, cpu))


def freq(ts, cpu, khz):
    return ('<idle>', 0, '-----', cpu, ts, 'cpu_frequency: state=%d cpu_id=%d' % (khz, cpu))


# The sched.* test's scheduling, with cpu 0 at 1 GHz then 2 GHz from 500 us
# (sampled again, unchanged, at 1500 us: the trace's end) and cpu 1 at
# 500 MHz; cpu 0 idles in state 2 from 1000 us, cpu 1 in state 1 from 700 to
# 900 us and from 1200 us (4294967295 is "active").
CPU = systrace(EVENTS + [
    freq('10.000000', 0, 1000000), freq('10.000000', 1, 500000),
    freq('10.000500', 0, 2000000), freq('10.001500', 0, 2000000),
    idle('10.000000', 0, 4294967295), idle('10.000250', 1, 4294967295),
    idle('10.000700', 1, 1), idle('10.000900', 1, 4294967295),
    idle('10.001000', 0, 2), idle('10.001200', 1, 1)])

# One thread, at 1 GHz then 2 GHz from 400 us, running 100-500 and 600-900
# us, with slices inside a run (inside), across the gap (across) and late.
SLICES = systrace([
    freq('10.000000', 0, 1000000), freq('10.000400', 0, 2000000),
    ('<idle>', 0, '-----', 0, '10.000100', 'sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120'),
    ('app', 100, '100', 0, '10.000200', 'tracing_mark_write: B|100|inside'),
    ('app', 100, '100', 0, '10.000300', 'tracing_mark_write: E|100'),
    ('app', 100, '100', 0, '10.000350', 'tracing_mark_write: B|100|across'),
    ('app', 100, '100', 0, '10.000500', 'sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120'),
    ('<idle>', 0, '-----', 0, '10.000600', 'sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120'),
    ('app', 100, '100', 0, '10.000700', 'tracing_mark_write: E|100'),
    ('app', 100, '100', 0, '10.000750', 'tracing_mark_write: B|100|late'),
    ('app', 100, '100', 0, '10.000800', 'tracing_mark_write: E|100'),
    ('app', 100, '100', 0, '10.000900', 'sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120'),
])


class StdlibLinuxCpuTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.write_temp(self.dir, 'cpu.systrace', CPU)

    def q(self, module, sql, trace=None):
        return e.query('INCLUDE PERFETTO MODULE %s; %s' % (module, sql),
                       trace or self.trace)

    def test_frequency_counters(self):
        # The last sample lasts to the trace's end (here: 0 ns).
        out = self.q('linux.cpu.frequency', 'select * from cpu_frequency_counters')
        self.assertEqual(out, '"id","track_id","ts","dur","freq","ucpu","cpu"\n'
                         '0,0,10000000000,500000,1000000,0,0\n'
                         '4,0,10000500000,1000000,2000000,0,0\n'
                         '9,0,10001500000,0,2000000,0,0\n'
                         '1,1,10000000000,1500000,500000,1,1\n')

    def test_frequency_runs_of_equal_values(self):
        # Of a run of equal samples the first, second and last stay: 5 at 1,
        # 2 (to 4) and 4 us; 7 at 5, 6 and 7 us.
        p = e.write_temp(self.dir, 'runs.systrace', systrace(
            [freq('10.%06d' % t, 0, v) for t, v in
             [(1, 5), (2, 5), (3, 5), (4, 5), (5, 7), (6, 7), (7, 7), (8, 9)]]))
        out = self.q('linux.cpu.frequency',
                     'select ts, dur, freq from cpu_frequency_counters', p)
        self.assertEqual(out, '"ts","dur","freq"\n'
                         '10000001000,1000,5\n10000002000,2000,5\n10000004000,1000,5\n'
                         '10000005000,1000,7\n10000006000,1000,7\n10000007000,1000,7\n'
                         '10000008000,0,9\n')

    def test_idle_counters_and_stats(self):
        # cpu 0: active 1000 us then C3 (state 2) 500 us; cpu 1: active 450,
        # C2 200, active 300, C2 300 us.
        out = self.q('linux.cpu.idle_stats', 'select * from cpu_idle_counters; '
                     'select * from cpu_idle_stats')
        self.assertEqual(out, '"id","track_id","ts","dur","idle","cpu"\n'
                         '2,2,10000000000,1000000,-1,0\n7,2,10001000000,500000,2,0\n'
                         '3,3,10000250000,450000,-1,1\n5,3,10000700000,200000,1,1\n'
                         '6,3,10000900000,300000,-1,1\n8,3,10001200000,300000,1,1\n\n'
                         '"cpu","state","count","dur","avg_dur","idle_percent"\n'
                         '0,3,1,500000,500000,33.333333\n1,2,2,500000,250000,40.000000\n')

    def test_cycles_per_thread_and_cpu(self):
        # app on cpu 0: 300 us at 1 GHz, 400 us at 2 GHz: 1.1e9 millicycles.
        # bg on cpu 0: 100 us at each; on cpu 1 300 us at 500 MHz.
        out = self.q('linux.cpu.utilization.thread_cpu',
                     'select * from cpu_cycles_per_thread_per_cpu; '
                     'select * from cpu_cycles_per_thread_per_cpu_in_interval('
                     '10000350000, 500000)')
        header = ('"utid","ucpu","cpu","millicycles","megacycles","runtime","min_freq",'
                  '"max_freq","avg_freq"\n')
        self.assertEqual(out, header +
                         '1,0,0,1100000000,1,700000,1000000,2000000,1571428\n'
                         '2,1,1,200000000,0,400000,500000,500000,500000\n'
                         '3,0,0,300000000,0,200000,1000000,2000000,1500000\n'
                         '3,1,1,150000000,0,300000,500000,500000,500000\n\n' + header +
                         '1,0,0,550000000,0,300000,1000000,2000000,1833333\n'
                         '2,1,1,175000000,0,350000,500000,500000,500000\n'
                         '3,0,0,300000000,0,200000,1000000,2000000,1500000\n')

    def test_system_cycles_and_utilization(self):
        # Periods of 400 us: a run counts in the period where it starts, cut
        # at its end (work's 400-700 us is lost).
        out = self.q('linux.cpu.utilization.system',
                     'select * from cpu_cycles; select * from cpu_cycles_per_cpu; '
                     'select millicycles, runtime, avg_freq from '
                     'cpu_cycles_in_interval(10000350000, 500000); '
                     'select ucpu, millicycles from '
                     'cpu_cycles_per_cpu_in_interval(10000350000, 500000); '
                     'select * from cpu_utilization_per_period(400000); '
                     'select * from cpu_utilization_per_second')
        self.assertEqual(out, '"millicycles","megacycles","runtime","min_freq","max_freq",'
                         '"avg_freq"\n1750000000,1,1600000,500000,2000000,1093750\n\n'
                         '"ucpu","cpu","millicycles","megacycles","runtime","min_freq",'
                         '"max_freq","avg_freq"\n'
                         '0,0,1400000000,1,900000,1000000,2000000,1555555\n'
                         '1,1,350000000,0,700000,500000,500000,500000\n\n'
                         '"millicycles","runtime","avg_freq"\n1025000000,850000,1205882\n\n'
                         '"ucpu","millicycles"\n0,850000000\n1,175000000\n\n'
                         '"ts","utilization","unnormalized_utilization"\n'
                         '10000000000,0.500000,1.000000\n10000400000,0.500000,1.000000\n'
                         '10000800000,0.375000,0.750000\n\n'
                         '"ts","utilization","unnormalized_utilization"\n'
                         '10000000000,0.000800,0.001600\n')

    def test_runtime_before_the_first_frequency_sample(self):
        # app runs 100-900 us on cpu 0, whose frequency is known from 500 us;
        # w runs 200-300 us on cpu 1, which has none. Time without a frequency
        # adds runtime but no cycles; the whole-trace average divides by all
        # runtime, the interval one by the time with a known frequency.
        p = e.write_temp(self.dir, 'late.systrace', systrace([
            ('<idle>', 0, '-----', 0, '10.000100', 'sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=100 next_prio=120'),
            freq('10.000500', 0, 1000000),
            ('app', 100, '100', 0, '10.000900', 'sched_switch: prev_comm=app prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120'),
            ('<idle>', 0, '-----', 1, '10.000200', 'sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=w next_pid=101 next_prio=120'),
            ('w', 101, '101', 1, '10.000300', 'sched_switch: prev_comm=w prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120')]))
        out = self.q('linux.cpu.utilization.system',
                     'select * from cpu_cycles_per_thread_per_cpu; select * from cpu_cycles; '
                     'select utid, millicycles, runtime, avg_freq from '
                     'cpu_cycles_per_thread_per_cpu_in_interval(10000000000, 1000000)', p)
        self.assertEqual(out, '"utid","ucpu","cpu","millicycles","megacycles","runtime",'
                         '"min_freq","max_freq","avg_freq"\n'
                         '1,0,0,400000000,0,800000,1000000,1000000,500000\n'
                         '2,1,1,"[NULL]","[NULL]",100000,"[NULL]","[NULL]","[NULL]"\n\n'
                         '"millicycles","megacycles","runtime","min_freq","max_freq",'
                         '"avg_freq"\n400000000,0,900000,1000000,1000000,444444\n\n'
                         '"utid","millicycles","runtime","avg_freq"\n'
                         '1,400000000,800000,1000000\n2,"[NULL]",100000,"[NULL]"\n')

    def test_periods_limited_by_sched_rows(self):
        # 50 us periods: 31 would cover the trace but sched has 8 rows, so only
        # the first 8 periods (to 400 us) count; runs starting later are lost.
        out = self.q('linux.cpu.utilization.system',
                     'select * from cpu_utilization_per_period(50000)')
        self.assertEqual(out, '"ts","utilization","unnormalized_utilization"\n'
                         '10000100000,0.500000,1.000000\n10000300000,0.500000,1.000000\n')

    def test_thread_and_process_utilization(self):
        out = self.q('linux.cpu.utilization.thread',
                     'select * from cpu_cycles_per_thread; '
                     'select utid, millicycles, runtime from '
                     'cpu_cycles_per_thread_in_interval(10000350000, 500000); '
                     'select * from cpu_thread_utilization_per_period(400000, 1); '
                     'select * from cpu_thread_utilization_per_second(1)')
        self.assertEqual(out, '"utid","millicycles","megacycles","runtime","min_freq",'
                         '"max_freq","avg_freq"\n'
                         '1,1100000000,1,700000,1000000,2000000,1571428\n'
                         '2,200000000,0,400000,500000,500000,500000\n'
                         '3,450000000,0,500000,500000,2000000,900000\n\n'
                         '"utid","millicycles","runtime"\n1,550000000,300000\n'
                         '2,175000000,350000\n3,300000000,200000\n\n'
                         '"ts","utilization","unnormalized_utilization"\n'
                         '10000000000,0.375000,0.750000\n10000400000,0.250000,0.500000\n\n'
                         '"ts","utilization","unnormalized_utilization"\n'
                         '10000000000,0.000350,0.000700\n')
        out = self.q('linux.cpu.utilization.process',
                     'select * from cpu_cycles_per_process; '
                     'select upid, millicycles, runtime from '
                     'cpu_cycles_per_process_in_interval(10000350000, 500000); '
                     'select * from cpu_process_utilization_per_period(400000, 1)')
        self.assertEqual(out, '"upid","millicycles","megacycles","runtime","min_freq",'
                         '"max_freq","avg_freq"\n'
                         '1,1300000000,1,1100000,500000,2000000,1181818\n'
                         '2,450000000,0,500000,500000,2000000,900000\n\n'
                         '"upid","millicycles","runtime"\n1,725000000,650000\n'
                         '2,300000000,200000\n\n'
                         '"ts","utilization","unnormalized_utilization"\n'
                         '10000000000,0.500000,1.000000\n10000400000,0.250000,0.500000\n')

    def test_cycles_per_thread_slice(self):
        # inside: 100 us at 1 GHz; across: the thread sleeps inside it (NULL);
        # late: 50 us at 2 GHz. Cut to [250, 750) us, inside keeps 50 us.
        p = e.write_temp(self.dir, 'slices.systrace', SLICES)
        out = self.q('linux.cpu.utilization.slice',
                     'select * from cpu_cycles_per_thread_slice; '
                     'select id, millicycles from '
                     'cpu_cycles_per_thread_slice_in_interval(10000250000, 500000)', p)
        self.assertEqual(out, '"id","name","utid","thread_name","upid","process_name",'
                         '"millicycles","megacycles"\n'
                         '0,"inside",1,"app",1,"[NULL]",100000000,0\n'
                         '1,"across",1,"app",1,"[NULL]","[NULL]","[NULL]"\n'
                         '2,"late",1,"app",1,"[NULL]",100000000,0\n\n'
                         '"id","millicycles"\n0,50000000\n1,"[NULL]"\n')

    def test_awake_time_leaves_out_suspend(self):
        # [1000, 2500) us holds 1.5 ms of boot time but 1 ms of awake time:
        # app runs 500 (all awake) + 400 us, w 1500 us of which 1000 awake.
        p = e.write_temp(self.dir, 'suspend.pb', suspended_trace())
        out = self.q('linux.cpu.utilization.process',
                     'select * from cpu_cycles_per_process_in_interval(1000000, 1500000)', p)
        self.assertEqual(out, '"upid","millicycles","megacycles","runtime","awake_runtime",'
                         '"min_freq","max_freq","avg_freq"\n'
                         '"[NULL]",1650000000,1,2400000,1900000,500000,1000000,687500\n')
        out = self.q('linux.cpu.utilization.system',
                     'select * from cpu_utilization_in_interval(1000000, 1500000); '
                     'select * from cpu_utilization_in_interval(1000001, 1299999)', p)
        self.assertEqual(out, '"awake_dur","awake_utilization","awake_unnormalized_utilization"\n'
                         '1900000,95.000000,190.000000\n\n'
                         '"awake_dur","awake_utilization","awake_unnormalized_utilization"\n'
                         '1499998,93.750000,187.500000\n')
        out = self.q('linux.cpu.utilization.thread',
                     'select * from cpu_thread_utilization_in_interval(1000001, 1299999)', p)
        self.assertEqual(out, '"upid","utid","thread_name","awake_dur","awake_utilization",'
                         '"awake_unnormalized_utilization"\n'
                         '"[NULL]",1,"app",699999,43.749992,87.499984\n'
                         '"[NULL]",2,"w",799999,50.000000,100.000000\n')

    def test_two_machines_keep_cpus_apart(self):
        # Machine B's cpu 0 runs at 3 GHz until 500 us instead of 1 GHz.
        z = two_machines(self.dir, CPU, CPU.replace('state=1000000 cpu_id=0',
                                                    'state=3000000 cpu_id=0'))
        out = self.q('linux.cpu.utilization.system',
                     'select * from cpu_cycles_per_cpu', z)
        self.assertEqual(out, '"ucpu","cpu","millicycles","megacycles","runtime",'
                         '"min_freq","max_freq","avg_freq"\n'
                         '0,0,1400000000,1,900000,1000000,2000000,1555555\n'
                         '1,1,350000000,0,700000,500000,500000,500000\n'
                         '4096,0,2200000000,2,900000,2000000,3000000,2444444\n'
                         '4097,1,350000000,0,700000,500000,500000,500000\n')
        out = self.q('linux.cpu.idle_stats', 'select cpu, state, dur from cpu_idle_stats', z)
        self.assertEqual(out, '"cpu","state","dur"\n0,3,500000\n0,3,500000\n'
                         '1,2,500000\n1,2,500000\n')


def idle_samples():
    """Cumulative cpuidle residencies (us) of cpus 0 and 1, states C1 and
    C2, sampled at 1, 2 and 3 s on machine 0."""
    rows = [(0, 'C1', 1, 100), (0, 'C2', 1, 1000), (1, 'C1', 1, 50), (1, 'C2', 1, 500),
            (0, 'C1', 2, 400), (0, 'C2', 2, 1200), (1, 'C1', 2, 250), (1, 'C2', 2, 900),
            (0, 'C1', 3, 500), (0, 'C2', 3, 1800), (1, 'C1', 3, 250), (1, 'C2', 3, 1500)]
    return '(' + ' union all '.join(
        "select 0 as machine_id, %d as cpu, '%s' as state, %d as ts, %d.0 as value"
        % (cpu, state, s * 10**9, value) for cpu, state, s, value in rows) + ')'


class StdlibLinuxIdleTimeInStateTest(e.TempDirTest):
    def q(self, sql):
        trace = e.write_temp(self.dir, 't.json', '{"traceEvents": []}')
        return e.query('INCLUDE PERFETTO MODULE linux.cpu.idle_time_in_state; ' + sql, trace)

    def test_per_cpu(self):
        # cpu 0 C1 from 1 s to 2 s: 400 - 100 = 300 us of 1e6 us = 0.03 %;
        # C0 is the rest: 1e6 - 300 - 200 = 999500 us.
        out = self.q('select * from _linux_cpu_idle_residency!(%s)' % idle_samples())
        self.assertEqual(out, '"ts","machine_id","state","cpu","idle_percentage",'
                         '"total_residency","time_slice"\n'
                         '2000000000,0,"C1",0,0.030000,300.000000,1000000\n'
                         '3000000000,0,"C1",0,0.010000,100.000000,1000000\n'
                         '2000000000,0,"C2",0,0.020000,200.000000,1000000\n'
                         '3000000000,0,"C2",0,0.060000,600.000000,1000000\n'
                         '2000000000,0,"C1",1,0.020000,200.000000,1000000\n'
                         '3000000000,0,"C1",1,0.000000,0.000000,1000000\n'
                         '2000000000,0,"C2",1,0.040000,400.000000,1000000\n'
                         '3000000000,0,"C2",1,0.060000,600.000000,1000000\n'
                         '2000000000,0,"C0",0,99.950000,999500.000000,1000000\n'
                         '2000000000,0,"C0",1,99.940000,999400.000000,1000000\n'
                         '3000000000,0,"C0",0,99.930000,999300.000000,1000000\n'
                         '3000000000,0,"C0",1,99.940000,999400.000000,1000000\n')

    def test_all_cpus(self):
        # C1 at 2 s: 300 + 200 us of 2 x 1e6 us = 0.025 %.
        out = self.q('select * from _linux_cpu_idle_all_cpus!('
                     '_linux_cpu_idle_residency!(%s))' % idle_samples())
        self.assertEqual(out, '"ts","machine_id","state","idle_percentage",'
                         '"total_residency","time_slice"\n'
                         '2000000000,0,"C0",99.945000,1998900.000000,2000000\n'
                         '2000000000,0,"C1",0.025000,500.000000,2000000\n'
                         '2000000000,0,"C2",0.030000,600.000000,2000000\n'
                         '3000000000,0,"C0",99.935000,1998700.000000,2000000\n'
                         '3000000000,0,"C1",0.005000,100.000000,2000000\n'
                         '3000000000,0,"C2",0.060000,1200.000000,2000000\n')

    def test_tables_read_cpu_idle_state_tracks(self):
        # No importer writes cpu_idle_state tracks yet: the tables exist, empty.
        self.assertEqual(self.q('select count(*) as n from '
                                'linux_per_cpu_idle_time_in_state_counters'), '"n"\n0\n')
        self.assertEqual(self.q('select count(*) as n from '
                                'linux_cpu_idle_time_in_state_counters'), '"n"\n0\n')


class StdlibLinuxKernelTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.write_temp(self.dir, 'kernel.pb', kernel_trace())

    def q(self, module, sql, trace=None):
        return e.query('INCLUDE PERFETTO MODULE %s; %s' % (module, sql),
                       trace or self.trace)

    def test_kernel_threads(self):
        out = self.q('linux.threads', 'select * from linux_kernel_threads')
        self.assertEqual(out, '"upid","utid","pid","tid","process_name","thread_name",'
                         '"machine_id"\n2,2,2,2,"kthreadd","[NULL]",0\n'
                         '3,3,5,5,"kworker/0:1","[NULL]",0\n')

    def test_irqs(self):
        out = self.q('linux.irqs', 'select * from linux_hard_irqs; '
                     'select * from linux_soft_irqs; select * from linux_irqs')
        self.assertEqual(out, '"ts","dur","name","id","parent_id"\n'
                         '1000,300,"IRQ (timer)",0,"[NULL]"\n1100,50,"IRQ (nested)",2,0\n'
                         '1200,50,"IRQ (ufs)",3,"[NULL]"\n\n'
                         '"ts","dur","name","id"\n1400,200,"TIMER",6\n\n'
                         '"ts","dur","name","id","parent_id","is_soft_irq"\n'
                         '1000,300,"IRQ (timer)",0,"[NULL]",0\n'
                         '1100,50,"IRQ (nested)",2,0,0\n1200,50,"IRQ (ufs)",3,"[NULL]",0\n'
                         '1400,200,"TIMER",6,"[NULL]",1\n')

    def test_memory_per_process_and_high_watermark(self):
        # The last sample of a process lasts to the trace's end + 1 (3001);
        # process 200 has no shmem or swap counter. The watermark's last
        # interval ends at the trace's end.
        out = self.q('linux.memory.high_watermark',
                     'select * from memory_rss_and_swap_per_process; '
                     'select * from memory_rss_high_watermark_per_process')
        self.assertEqual(out, '"ts","dur","upid","pid","process_name","anon_rss","file_rss",'
                         '"shmem_rss","rss","swap","anon_rss_and_swap","rss_and_swap"\n'
                         '1000,1000,4,100,"app",102400,51200,10240,163840,5120,107520,168960\n'
                         '2000,1000,4,100,"app",81920,51200,10240,143360,5120,87040,148480\n'
                         '3000,1,4,100,"app",204800,61440,0,266240,0,204800,266240\n'
                         '1000,2001,5,200,"[NULL]",40960,20480,"[NULL]",61440,"[NULL]",'
                         '40960,61440\n\n'
                         '"ts","dur","upid","pid","process_name","rss_high_watermark"\n'
                         '1000,1000,4,100,"app",163840\n2000,1000,4,100,"app",163840\n'
                         '3000,0,4,100,"app",266240\n1000,2000,5,200,"[NULL]",61440\n')

    def test_memory_counters_sampled_at_different_times(self):
        # anon from 1000, file from 1500, shmem and swap from 2500: a row per
        # stretch between sample times; rss needs anon and file.
        p = e.write_temp(self.dir, 'mem.pb', b''.join([
            process_tree(500, [(300, 1, 'mem')]), process_stats(1000, 300, anon=10),
            process_stats(1500, 300, file=5), process_stats(2000, 300, anon=20),
            process_stats(2500, 300, swap=3, shmem=1), process_stats(4000, 301, anon=1)]))
        out = self.q('linux.memory.high_watermark',
                     'select ts, dur, pid, anon_rss, file_rss, shmem_rss, rss, swap, '
                     'rss_and_swap from memory_rss_and_swap_per_process; '
                     'select ts, dur, pid, rss_high_watermark '
                     'from memory_rss_high_watermark_per_process', p)
        self.assertEqual(out, '"ts","dur","pid","anon_rss","file_rss","shmem_rss","rss","swap",'
                         '"rss_and_swap"\n'
                         '1000,500,300,10240,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '1500,500,300,10240,5120,"[NULL]",15360,"[NULL]",15360\n'
                         '2000,500,300,20480,5120,"[NULL]",25600,"[NULL]",25600\n'
                         '2500,1501,300,20480,5120,1024,26624,3072,29696\n'
                         '4000,1,301,1024,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]"\n\n'
                         '"ts","dur","pid","rss_high_watermark"\n'
                         '1000,500,300,10240\n1500,500,300,15360\n2000,500,300,25600\n'
                         '2500,1500,300,26624\n4000,0,301,1024\n')

    def test_block_io_and_device_ids(self):
        out = self.q('linux.block_io',
                     'select * from linux_active_block_io_operations_by_device; '
                     'select linux_device_major_id(45824) as major, '
                     'linux_device_minor_id(45824) as minor, '
                     'linux_device_minor_id(1 << 20 | 3) as high_minor')
        self.assertEqual(out, '"ts","ops_in_queue_or_device","dev"\n'
                         '1000,1,45824\n1200,1,2049\n1300,2,45824\n2400,1,45824\n'
                         '2600,0,45824\n3000,0,2049\n\n'
                         '"major","minor","high_minor"\n179,0,259\n')

    def test_devfreq_without_devfreq_counters(self):
        out = self.q('linux.devfreq', 'select * from linux_devfreq_dsu_counter')
        self.assertEqual(out, '"id","ts","dur","dsu_freq"\n')

    def test_two_machines_keep_processes_and_devices_apart(self):
        p = e.write_temp(self.dir, 'two.pb', kernel_trace() + kernel_trace(3))
        out = self.q('linux.threads', 'select pid, machine_id from linux_kernel_threads', p)
        self.assertEqual(out, '"pid","machine_id"\n2,0\n5,0\n2,1\n5,1\n')
        out = self.q('linux.block_io', 'select * from linux_active_block_io_operations_by_device '
                     'where ts <= 1300', p)
        self.assertEqual(out, '"ts","ops_in_queue_or_device","dev"\n'
                         '1000,1,45824\n1000,1,45824\n1200,1,2049\n1200,1,2049\n'
                         '1300,2,45824\n1300,2,45824\n')
        out = self.q('linux.memory.high_watermark',
                     'select count(distinct upid) as processes, max(rss_high_watermark) as top '
                     'from memory_rss_high_watermark_per_process', p)
        self.assertEqual(out, '"processes","top"\n4,266240\n')


if __name__ == '__main__':
    e.main()
