"""End-to-end: Perfetto's rules for kernel events, in proto ftrace bundles
(FtraceEventBundle) and in systrace/ftrace text."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def ftrace_event(ts, pid, number, *fields):
    """One FtraceEvent: timestamp, pid and the event message `number`."""
    return pb_bytes(2, pb_int(1, ts) + pb_int(2, pid) +
                    pb_bytes(number, b''.join(fields)))


def bundle(cpu, *events, machine=None):
    """A TracePacket (trusted sequence 1) holding an FtraceEventBundle."""
    extra = pb_int(98, machine) if machine is not None else b''
    return pb_packet(pb_bytes(1, pb_int(1, cpu) + b''.join(events)),
                     pb_int(10, 1), extra)


BLOCK_RQ_ISSUE, BLOCK_RQ_COMPLETE = 45, 125
OOM_SCORE_ADJ_UPDATE, MARK_VICTIM = 326, 334
CLOCK_ENABLE, CLOCK_DISABLE, CLOCK_SET_RATE = 14, 15, 16
WORKQUEUE_EXECUTE_END, WORKQUEUE_EXECUTE_START = 57, 58
THERMAL_TEMPERATURE, CDEV_UPDATE = 341, 342
BLOCK_IO_START, BLOCK_IO_DONE = 546, 547
CPU_FREQUENCY_LIMITS = 12


class FtraceRulesTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_every_described_event_gets_a_raw_row(self):
        trace = bundle(
            0,
            ftrace_event(1000, 10, BLOCK_RQ_ISSUE, pb_int(1, 8), pb_int(2, 12345),
                         pb_int(3, 8), pb_int(4, 4096), pb_bytes(5, 'WS')),
            ftrace_event(2000, 10, BLOCK_RQ_COMPLETE, pb_int(1, 8), pb_int(2, 12345),
                         pb_int(4, (1 << 64) - 5)),
            ftrace_event(3000, 10, 9999, pb_int(1, 1)))  # not an ftrace event
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select f.ts, f.name, a.key, a.value_type, a.display_value "
                         "from ftrace_event f join args a using (arg_set_id) "
                         "order by f.ts, a.id", p)
        self.assertEqual(out, '"ts","name","key","value_type","display_value"\n'
                         '1000,"block_rq_issue","dev","uint","8"\n'
                         '1000,"block_rq_issue","sector","uint","12345"\n'
                         '1000,"block_rq_issue","nr_sector","uint","8"\n'
                         '1000,"block_rq_issue","bytes","uint","4096"\n'
                         '1000,"block_rq_issue","rwbs","string","WS"\n'
                         '2000,"block_rq_complete","dev","uint","8"\n'
                         '2000,"block_rq_complete","sector","uint","12345"\n'
                         '2000,"block_rq_complete","errors","int","-5"\n')
        self.assertEqual(self.query('select count(*) from slice', p), '"count(*)"\n0\n')

    def test_block_io_slices_per_device(self):
        def block(ts, number, dev, sector):
            return ftrace_event(ts, 7, number, pb_int(1, dev), pb_int(2, sector),
                                pb_bytes(6, 'RA'))
        trace = bundle(1, block(1000, BLOCK_IO_START, 45824, 44920176),
                       block(1200, BLOCK_IO_START, 2049, 5),
                       block(2400, BLOCK_IO_DONE, 45824, 44920176),
                       block(3000, BLOCK_IO_DONE, 2049, 5))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select s.name, s.ts, s.dur, "
                         "extract_arg(t.dimension_arg_set_id, 'block_device') as dev, "
                         "extract_arg(s.arg_set_id, 'sector') as sector "
                         "from slice s join track t on s.track_id = t.id "
                         "where t.type = 'block_io' order by s.ts", p)
        self.assertEqual(out, '"name","ts","dur","dev","sector"\n'
                         '"block_io",1000,1400,45824,44920176\n'
                         '"block_io",1200,1800,2049,5\n')

    def test_oom_kill_and_oom_score_adj(self):
        trace = bundle(
            0,
            # print "B|10|x" puts thread 10 in process 10.
            ftrace_event(500, 10, 3, pb_bytes(2, 'B|10|x\n')),
            ftrace_event(1000, 10, OOM_SCORE_ADJ_UPDATE, pb_bytes(1, 'app'),
                         pb_int(2, 900), pb_int(3, 10)),
            ftrace_event(1100, 10, OOM_SCORE_ADJ_UPDATE, pb_bytes(1, 'lone'),
                         pb_int(2, -100), pb_int(3, 77)),
            ftrace_event(2000, 10, MARK_VICTIM, pb_int(1, 77)))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select t.name, t.type, c.ts, c.value from counter c "
                         "join track t on c.track_id = t.id order by c.ts", p)
        self.assertEqual(out, '"name","type","ts","value"\n'
                         '"oom_score_adj","oom_score_adj",1000,900.000000\n'
                         '"oom_score_adj","oom_score_adj_thread_fallback",1100,'
                         '-100.000000\n')
        out = self.query("select s.ts, s.dur, s.name, th.tid from slice s "
                         "join thread_track tt on s.track_id = tt.id "
                         "join thread th using (utid) where s.name = 'mem.oom_kill'", p)
        self.assertEqual(out, '"ts","dur","name","tid"\n2000,0,"mem.oom_kill",77\n')

    def test_device_counters_and_workqueue(self):
        def clock(ts, number, state):
            return ftrace_event(ts, 10, number, pb_bytes(1, 'gpu_clk'), pb_int(2, state))
        trace = bundle(
            2,
            clock(1000, CLOCK_SET_RATE, 500),
            clock(1100, CLOCK_ENABLE, 1),
            clock(1200, CLOCK_DISABLE, 0),
            ftrace_event(1300, 10, THERMAL_TEMPERATURE, pb_int(2, 41),
                         pb_bytes(4, 'skin')),
            ftrace_event(1400, 10, CDEV_UPDATE, pb_int(1, 3), pb_bytes(2, 'fan')),
            ftrace_event(1500, 10, CPU_FREQUENCY_LIMITS, pb_int(1, 300),
                         pb_int(2, 1800), pb_int(3, 1)),
            ftrace_event(2000, 10, WORKQUEUE_EXECUTE_START, pb_int(1, 1),
                         pb_int(2, 0xffff)),
            ftrace_event(2500, 10, WORKQUEUE_EXECUTE_END, pb_int(1, 1),
                         pb_int(2, 0xffff)))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select t.name, t.type, c.ts, c.value, "
                         "(select group_concat(key || '=' || display_value) from args a "
                         " where a.arg_set_id = t.dimension_arg_set_id) as dims "
                         "from counter c join track t on c.track_id = t.id order by c.ts, t.name", p)
        self.assertEqual(out, '"name","type","ts","value","dims"\n'
                         '"gpu_clk Frequency","clock_frequency",1000,500.000000,'
                         '"linux_device=gpu_clk"\n'
                         '"gpu_clk State","clock_state",1100,1.000000,"linux_device=gpu_clk"\n'
                         '"gpu_clk State","clock_state",1200,0.000000,"linux_device=gpu_clk"\n'
                         '"skin Temperature","thermal_temperature",1300,41.000000,'
                         '"thermal_zone=skin"\n'
                         '"fan Cooling Device","cooling_device_counter",1400,3.000000,'
                         '"linux_device=fan"\n'
                         '"Cpu 1 Max Freq Limit","cpu_max_frequency_limit",1500,1800.000000,'
                         '"cpu=1"\n'
                         '"Cpu 1 Min Freq Limit","cpu_min_frequency_limit",1500,300.000000,'
                         '"cpu=1"\n')
        out = self.query("select ts, dur, category, name, extract_arg(arg_set_id, 'cpu') as cpu "
                         "from slice", p)
        self.assertEqual(out, '"ts","dur","category","name","cpu"\n'
                         '2000,500,"workqueue","0xffff",2\n')

    def test_rss_stat_process_memory_tracks(self):
        trace = bundle(
            0,
            ftrace_event(500, 10, 3, pb_bytes(2, 'B|10|x\n')),
            ftrace_event(1000, 10, 313, pb_int(1, 2), pb_int(2, 200), pb_int(3, 1),
                         pb_int(4, 5)),
            ftrace_event(2000, 11, 313, pb_int(1, 1), pb_int(2, 300)))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        out = self.query("select t.name, t.type, c.value, "
                         "(select group_concat(key || '=' || display_value) from args a "
                         " where a.arg_set_id = t.dimension_arg_set_id) as dims "
                         "from counter c join track t on c.track_id = t.id order by c.ts", p)
        self.assertEqual(out, '"name","type","value","dims"\n'
                         '"mem.swap","process_memory",200.000000,'
                         '"upid=1,process_memory_key=swap"\n'
                         '"mem.rss.anon","process_memory_thread_fallback",300.000000,'
                         '"utid=2,process_memory_key=rss.anon"\n')

    def test_cpu_counter_tracks_per_machine(self):
        cpu_frequency, cpu_idle = 11, 13
        trace = (bundle(0, ftrace_event(1000, 10, cpu_frequency, pb_int(1, 500), pb_int(2, 0)))
                 + bundle(0, ftrace_event(1200, 10, cpu_frequency, pb_int(1, 700),
                                          pb_int(2, 0)),
                          ftrace_event(1300, 10, cpu_idle, pb_int(1, 2), pb_int(2, 1)),
                          machine=7))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        self.assertEqual(self.query('select id, cpu, machine_id from cpu order by id', p),
                         '"id","cpu","machine_id"\n0,0,0\n4096,0,1\n4097,1,1\n')
        out = self.query("select t.name, t.machine_id, c.cpu, "
                         "(select group_concat(key || '=' || display_value) from args a "
                         " where a.arg_set_id = t.dimension_arg_set_id) as dims "
                         "from cpu_counter_track c join track t using (id) order by t.id", p)
        self.assertEqual(out, '"name","machine_id","cpu","dims"\n'
                         '"cpufreq",0,0,"cpu=0"\n'
                         '"cpufreq",1,0,"cpu=0"\n'
                         '"cpuidle",1,1,"cpu=1"\n')

    def test_ftrace_clock_of_a_bundle(self):
        cpu_idle = 13

        def clocked(cpu, clock, ts, *snapshot):
            extra = pb_int(5, clock)
            if snapshot:
                extra += pb_int(6, snapshot[0]) + pb_int(7, snapshot[1])
            return pb_packet(pb_bytes(1, pb_int(1, cpu) + extra + ftrace_event(
                ts, 10, cpu_idle, pb_int(1, 1), pb_int(2, cpu))), pb_int(10, 1))
        GLOBAL, LOCAL, UNKNOWN = 2, 3, 1
        trace = (clocked(0, GLOBAL, 1000, 500, 10500)  # ftrace 500 = boottime 10500
                 + clocked(1, GLOBAL, 2000)             # the same clock, no snapshot
                 + clocked(0, LOCAL, 25000, 20000, 40000))
        p = e.write_temp(self.dir, 'trace.pb', trace)
        self.assertEqual(self.query('select ts, cpu from ftrace_event order by ts', p),
                         '"ts","cpu"\n11000,0\n12000,1\n45000,0\n')
        p = e.write_temp(self.dir, 'unknown.pb', clocked(0, UNKNOWN, 1000))
        rc, _, err = e.run('-Q', 'select 1', p)
        self.assertNotEqual(rc, 0)
        self.assertIn('Unable to parse ftrace packets with unknown clock', err)


TEXT_COUNTERS = """# tracer: nop
#
     kworker/0:1-10    [000] ....  1000.000100: clock_set_rate: name=foo state=100 cpu_id=0
     kworker/0:1-10    [000] ....  1000.000200: clock_enable: name=foo state=1 cpu_id=0
     kworker/0:1-10    [000] ....  1000.000300: thermal_temperature: thermal_zone=cpu id=0 temp_prev=100 temp=200
     kworker/0:1-10    [000] ....  1000.000400: cdev_update: type=fan target=3
     kworker/0:1-10    [000] ....  1000.000500: workqueue_execute_start: work struct 0000000012345678: function do_thing
     kworker/0:1-10    [000] ....  1000.000600: workqueue_execute_end: work struct 0000000012345678
     kworker/0:1-10    [000] ....  1000.000700: rss_stat: size=8437760 member=1 curr=1 mm_id=2824390453
     kworker/0:1-10    [000] ....  1000.000800: cpu_frequency_limits: min_freq=300000 max_freq=1800000 cpu_id=1
     kworker/0:1-10    [000] ....  1000.000900: mark_victim: pid=10
     kworker/0:1-10    [000] ....  1000.001000: oom_score_adj_update: pid=10 comm=kworker/0:1 oom_score_adj=900
     kworker/0:1-10    [000] ....  1000.001100: block_rq_issue: 8,0 WS 4096 () 12345 + 8 [kworker/0:1]
"""


class SystraceRulesTest(e.TempDirTest):
    def query(self, sql, path):
        rc, out, err = e.run('-Q', sql, path)
        self.assertEqual(rc, 0, err)
        return out

    def test_text_counters_and_workqueue(self):
        p = e.write_temp(self.dir, 'trace.systrace', TEXT_COUNTERS)
        out = self.query("select t.name, t.type, c.ts, c.value from counter c "
                         "join track t on c.track_id = t.id order by c.ts, t.name", p)
        self.assertEqual(out, '"name","type","ts","value"\n'
                         '"foo Frequency","clock_frequency",1000000100000,100.000000\n'
                         '"foo State","clock_state",1000000200000,1.000000\n'
                         '"cpu Temperature","thermal_temperature",1000000300000,200.000000\n'
                         '"fan Cooling Device","cooling_device_counter",1000000400000,'
                         '3.000000\n'
                         '"mem.rss.anon","process_memory_thread_fallback",1000000700000,'
                         '8437760.000000\n'
                         '"Cpu 1 Max Freq Limit","cpu_max_frequency_limit",1000000800000,'
                         '1800000.000000\n'
                         '"Cpu 1 Min Freq Limit","cpu_min_frequency_limit",1000000800000,'
                         '300000.000000\n')
        # Text makes no oom or block I/O slices (Perfetto's line parser reads
        # neither), and workqueue slices have no args.
        out = self.query("select ts, dur, category, name, arg_set_id from slice", p)
        self.assertEqual(out, '"ts","dur","category","name","arg_set_id"\n'
                         '1000000500000,100000,"workqueue","do_thing","[NULL]"\n')

    def test_task_states_have_no_separator(self):
        text = ('# tracer: nop\n'
                '          <idle>-0     [000] d..2  1000.000000: sched_switch: prev_comm=swapper/0 '
                'prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=10 next_prio=120\n'
                '               a-10    [000] d..2  1000.000100: sched_switch: prev_comm=a '
                'prev_pid=10 prev_prio=120 prev_state=D|K ==> next_comm=b next_pid=11 next_prio=120\n')
        p = e.write_temp(self.dir, 'trace.systrace', text)
        self.assertEqual(self.query('select end_state from sched order by ts', p),
                         '"end_state"\n"DK"\n"[NULL]"\n')
        self.assertEqual(self.query("select state from thread_state where state != 'Running'", p),
                         '"state"\n"DK"\n')
        out = self.query("select to_ftrace(id) as line from ftrace_event order by ts desc limit 1", p)
        self.assertIn('prev_state=D|K ==>', out)

    def test_single_timestamp_bounds_end_one_ns_later(self):
        line = ('          <idle>-0     [000] d..2  1000.000000: sched_switch: '
                'prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> '
                'next_comm=k next_pid=10 next_prio=120\n')
        p = e.write_temp(self.dir, 'one.systrace', '# tracer: nop\n' + line)
        self.assertEqual(self.query('select * from trace_bounds', p),
                         '"start_ts","end_ts"\n1000000000000,1000000000001\n')
        p = e.write_temp(self.dir, 'empty.systrace', '# tracer: nop\n')
        self.assertEqual(self.query('select * from trace_bounds', p),
                         '"start_ts","end_ts"\n0,0\n')

    def test_binder_transaction_args(self):
        # A sync call answered, then a oneway one: each transaction slice
        # carries its args (flags and code as Perfetto words them); the
        # receiver adds itself to the caller's slice; the reply's args and
        # its destination join the server's "binder reply"; the oneway's
        # receiving slice shares the transaction's arg set.
        body = ''.join('event { timestamp: %d pid: %d %s }\n' % ev for ev in [
            (1001, 100, 'task_rename { pid: 100 newcomm: "client" }'),
            (1002, 201, 'task_rename { pid: 201 newcomm: "server" }'),
            (2000, 100, 'binder_transaction { debug_id: 7 target_node: 55 to_proc: 200 '
                        'to_thread: 0 reply: 0 code: 3 flags: 16 }'),
            (2100, 201, 'binder_transaction_received { debug_id: 7 }'),
            (2900, 201, 'binder_transaction { debug_id: 8 target_node: 0 to_proc: 100 '
                        'to_thread: 100 reply: 1 code: 3 flags: 0 }'),
            (3000, 100, 'binder_transaction_received { debug_id: 8 }'),
            (4000, 100, 'binder_transaction { debug_id: 9 target_node: 56 to_proc: 200 '
                        'to_thread: 0 reply: 0 code: 26 flags: 17 }'),
            (4100, 202, 'binder_transaction_received { debug_id: 9 }')])
        path = e.textproto_trace(self.dir, 'binder.pb',
                                 'packet { ftrace_events { cpu: 0 %s } }' % body)
        out = e.query("select s.name, s.arg_set_id = (select arg_set_id from slice where "
                      "id = 2) as shared, group_concat(a.key || '=' || a.display_value, '|') "
                      "as args from slice s left join args a using (arg_set_id) "
                      "group by s.id order by s.id", path)
        txn = ('transaction id=%d|destination node=%d|destination process=%d|'
               'reply transaction?=%s|flags=%s|code=%s Java Layer Dependent|calling tid=%d')
        self.assertEqual(out.splitlines()[1:], [
            '"binder transaction",0,"%s|destination thread=201|destination name=server"'
            % (txn % (7, 55, 200, 'false', '0x10 allow replies with file descriptors; ',
                      '0x03', 100)),
            '"binder reply",0,"destination thread=100|destination name=client|%s"'
            % (txn % (8, 0, 100, 'true', '0x00 No Flags Set', '0x03', 201)),
            '"binder transaction async",1,"%s"' % (txn % (
                9, 56, 200, 'false', '0x11 this is a one-way call: async, no return; '
                'allow replies with file descriptors; ', '0x1a', 100)),
            '"binder async rcv",1,"%s"' % (txn % (
                9, 56, 200, 'false', '0x11 this is a one-way call: async, no return; '
                'allow replies with file descriptors; ', '0x1a', 100))])

    def test_binder_frames_locks_and_failed_replies(self):
        lines = [
            # no commands traced: a failed reply ends nothing
            'client-100 ( 100) [000] .... 1000.000100: binder_transaction: transaction=11 '
            'dest_node=1 dest_proc=200 dest_thread=201 reply=0 flags=0x10 code=0x3',
            'client-100 ( 100) [000] .... 1000.000200: binder_return: cmd=0x7211 BR_FAILED_REPLY',
            'client-100 ( 100) [000] .... 1000.000300: binder_lock: tag=x',
            'client-100 ( 100) [000] .... 1000.000400: binder_locked: tag=x',
            'client-100 ( 100) [000] .... 1000.000500: binder_unlock: tag=x',
            # with commands: BC_TRANSACTION, the transaction, then BR_FAILED_REPLY ends it
            'other-300 ( 300) [001] .... 1000.000600: binder_command: cmd=0x40406300 BC_TRANSACTION',
            'other-300 ( 300) [001] .... 1000.000700: binder_transaction: transaction=12 '
            'dest_node=1 dest_proc=200 dest_thread=201 reply=0 flags=0x10 code=0x3',
            'other-300 ( 300) [001] .... 1000.000800: binder_return: cmd=0x7211 BR_FAILED_REPLY',
        ]
        p = e.write_temp(self.dir, 'trace.systrace', '# tracer: nop\n' + '\n'.join(
            '          ' + l for l in lines) + '\n')
        out = self.query("select s.ts, s.dur, s.category, s.name, s.depth, t.tid from slice s "
                         "join thread_track tt on s.track_id = tt.id join thread t using (utid) "
                         "order by s.ts", p)
        self.assertEqual(out, '"ts","dur","category","name","depth","tid"\n'
                         '1000000100000,-1,"binder","binder transaction",0,100\n'
                         '1000000300000,100000,"binder","binder lock waiting",1,100\n'
                         '1000000400000,100000,"binder","binder lock held",1,100\n'
                         '1000000700000,100000,"binder","binder transaction",0,300\n')


if __name__ == '__main__':
    e.main()
