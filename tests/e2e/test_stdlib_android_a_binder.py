"""End-to-end: android.binder on a proto trace of binder ftrace events
(weft links each transaction's slice to the receiver's by a flow, as
Perfetto does) with oom_score_adj samples and scheduling; answers as
Perfetto's."""
import weft_e2e as e

PROCS = [(100, 'com.client'), (200, 'system_server'), (300, 'surfaceflinger')]
THREADS = [(100, 100, 'com.client'), (102, 100, 'worker'), (201, 200, 'binder:200_1'),
           (202, 200, 'binder:200_2'), (301, 300, 'binder:300_1')]
MODULE = 'INCLUDE PERFETTO MODULE android.binder; '


def events(breakdown=False):
    """(ts, cpu, tid, ftrace event body) of: A, a sync call with an AIDL
    slice under its reply; B, C, oneway calls (the next AIDL slice on the
    receiving thread names B; C's next is another "binder async rcv"); D, a
    sync call whose server makes a nested call and has a HIDL and an AIDL
    slice (the smaller name wins); F, a call with a child slice; E,
    unfinished. oom_score_adj changes at B's and D's starts, which match
    both samples. With `breakdown`, A's AIDL slice holds slices naming
    contention and memory reclaim (one starting with it), and its server
    thread sleeps twice."""
    ev = []

    def txn(ts, tid, debug_id, to_proc, to_thread, reply=0, flags=0):
        ev.append((ts, 0, tid, 'binder_transaction { debug_id: %d to_proc: %d to_thread: %d '
                   'reply: %d flags: %d }' % (debug_id, to_proc, to_thread, reply, flags)))

    def rcv(ts, tid, debug_id):
        ev.append((ts, 0, tid, 'binder_transaction_received { debug_id: %d }' % debug_id))

    def sl(ts, end, tid, pid, name):
        ev.append((ts, 0, tid, 'print { buf: "B|%d|%s\\n" }' % (pid, name)))
        ev.append((end, 0, tid, 'print { buf: "E|%d\\n" }' % pid))

    def sw(ts, cpu, prev, prev_state, nxt):
        ev.append((ts, cpu, prev, 'sched_switch { prev_pid: %d prev_state: %d next_pid: %d '
                   'prev_comm: "x" next_comm: "y" }' % (prev, prev_state, nxt)))

    def txn(ts, tid, debug_id, to_proc, to_thread, reply=0, flags=0):
        ev.append((ts, 0, tid, 'binder_transaction { debug_id: %d to_proc: %d to_thread: %d reply: %d flags: %d }' % (debug_id, to_proc, to_thread, reply, flags)))
    def rcv(ts, tid, debug_id):
        ev.append((ts, 0, tid, 'binder_transaction_received { debug_id: %d }' % debug_id))
    def sl(ts, end, tid, pid, name):
        ev.append((ts, 0, tid, 'print { buf: "B|%d|%s\\n" }' % (pid, name)))
        ev.append((end, 0, tid, 'print { buf: "E|%d\\n" }' % pid))
    def sw(ts, cpu, prev, prev_state, nxt):
        ev.append((ts, cpu, prev, 'sched_switch { prev_pid: %d prev_state: %d next_pid: %d prev_comm: "x" next_comm: "y" }' % (prev, prev_state, nxt)))
    # A: sync 100 -> 201, AIDL child
    txn(1000, 100, 1, 200, 201); rcv(1100, 201, 1)
    sl(1200, 1800, 201, 200, 'AIDL::java::IFoo::bar::server')
    if breakdown:
        sl(1200, 1230, 201, 200, 'Contending for pthread mutex')
        sl(1250, 1350, 201, 200, 'monitor contention with owner x')
        sl(1270, 1300, 201, 200, 'Lock contention on thread list lock')
        sl(1500, 1600, 201, 200, 'GC: Wait For Concurrent')
        sl(1600, 1650, 201, 200, 'mm_vmscan_direct_reclaim')
        sw(1210, 2, 201, 1, 0)
        sw(1220, 2, 0, 0, 201)
        sw(1260, 2, 201, 1, 0)
        sw(1340, 2, 0, 0, 201)
    txn(1900, 201, 2, 100, 100, reply=1); rcv(2000, 100, 2)
    # thread states: 100 on cpu1, 201 on cpu2
    sw(900, 1, 0, 0, 100); sw(1000, 1, 100, 1, 0); sw(2000, 1, 0, 0, 100); sw(2500, 1, 100, 1, 0)
    sw(1100, 2, 0, 0, 201); sw(1500, 2, 201, 2, 0); sw(1600, 2, 0, 0, 201); sw(1900, 2, 201, 1, 0)
    sw(4900, 0, 0, 0, 102); sw(5050, 0, 102, 1, 0); sw(5900, 0, 0, 0, 102); sw(6100, 0, 102, 1, 0)
    sw(5100, 3, 0, 0, 301); sw(5200, 3, 301, 1, 0); sw(5500, 3, 0, 0, 301); sw(5970, 3, 301, 1, 0)
    # B: async 102 -> 202, then AIDL on the same track
    txn(3000, 102, 3, 200, 0, flags=1); rcv(3100, 202, 3)
    sl(3200, 3500, 202, 200, 'AIDL::java::IFoo::ping::server')
    # C: async with no AIDL after: next is another async rcv
    txn(4000, 102, 4, 200, 0, flags=1); rcv(4100, 202, 4)
    txn(4200, 102, 5, 200, 0, flags=1); rcv(4300, 202, 5)
    # D: sync 102 -> 301, nested: 301 calls 201 while serving; two HIDL/AIDL kids
    txn(5000, 102, 6, 300, 301); rcv(5100, 301, 6)
    sl(5150, 5900, 301, 300, 'HIDL::IComposer::foo::server')
    sl(5910, 5950, 301, 300, 'AIDL::cpp::IBar::baz::cppServer')
    txn(5200, 301, 7, 200, 201); rcv(5300, 201, 7)
    txn(5400, 201, 8, 300, 301, reply=1); rcv(5500, 301, 8)
    txn(5960, 301, 9, 100, 102, reply=1); rcv(6000, 102, 9)
    # F: a txn with a child slice but a flow (kept)
    txn(8000, 100, 11, 200, 201); sl(8050, 8060, 100, 100, 'weird'); rcv(8100, 201, 11)
    txn(8500, 201, 12, 100, 100, reply=1); rcv(8600, 100, 12)
    # E: unfinished sync txn
    txn(9000, 100, 10, 200, 201); rcv(9100, 201, 10)
    return ev


def textproto(breakdown=False):
    out = ['packet { timestamp: 1 clock_snapshot { clocks { clock_id: 6 timestamp: 1 } '
           'clocks { clock_id: 3 timestamp: 0 } } }',
           'packet { timestamp: 1 process_tree {']
    out += [' processes { pid: %d ppid: 1 cmdline: "%s" uid: 10001 }' % p for p in PROCS]
    out += [' threads { tid: %d tgid: %d name: "%s" }' % t for t in THREADS]
    out.append('} }')
    for ts, pid, v in [(500, 100, 0), (500, 200, -900), (500, 300, -800), (3000, 100, 200),
                       (5100, 300, -700)]:
        out.append('packet { timestamp: %d process_stats { processes { pid: %d '
                   'oom_score_adj: %d } } }' % (ts, pid, v))
    ev = sorted(events(breakdown), key=lambda x: x[0])
    for cpu in range(4):
        out.append('packet { ftrace_events { cpu: %d' % cpu)
        out += [' event { timestamp: %d pid: %d %s }' % (t, p, b) for t, c, p, b in ev if c == cpu]
        out.append('} }')
    return '\n'.join(out) + '\n'


# A systrace text trace: a sync call whose server blocks in D with a caller.
SYSTRACE = """# tracer: nop
          client-100   ( 100) [000] .... 1000.001000: binder_transaction: transaction=1 \
dest_node=1 dest_proc=200 dest_thread=201 reply=0 flags=0x10 code=0x3
    binder:200_1-201   ( 200) [001] .... 1000.001100: binder_transaction_received: transaction=1
    binder:200_1-201   ( 200) [001] d..3 1000.001200: sched_switch: prev_comm=binder:200_1 \
prev_pid=201 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0     (-----) [001] d..4 1000.001250: sched_blocked_reason: pid=201 iowait=1 \
caller=filemap_fault+0x1c/0x2a
          <idle>-0     (-----) [001] d..3 1000.001400: sched_switch: prev_comm=swapper/1 \
prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=binder:200_1 next_pid=201 next_prio=120
    binder:200_1-201   ( 200) [001] .... 1000.001900: binder_transaction: transaction=2 \
dest_node=0 dest_proc=100 dest_thread=100 reply=1 flags=0x0 code=0x0
          client-100   ( 100) [000] .... 1000.002000: binder_transaction_received: transaction=2
""".replace('\\\n', '')


class AndroidBinderTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.textproto_trace(self.dir, 'binder', textproto())

    def q(self, sql, trace=None):
        return e.query(MODULE + sql, trace or self.trace)

    def test_flows(self):
        self.assertEqual(e.query('SELECT slice_out, slice_in FROM flow', self.trace),
                         '"slice_out","slice_in"\n0,1\n3,4\n6,7\n8,9\n10,11\n13,14\n16,18\n'
                         '19,20\n')

    def test_txns(self):
        self.assertEqual(self.q(
            'SELECT binder_txn_id, binder_reply_id, aidl_name, interface, method_name, aidl_ts, '
            'aidl_dur, client_thread, is_main_thread, server_thread, client_dur, server_dur, '
            'client_oom_score, server_oom_score, is_sync, client_monotonic_dur '
            'FROM android_binder_txns ORDER BY binder_txn_id, client_oom_score, '
            'server_oom_score'),
            EXPECTED_TXNS)

    def test_all_columns(self):
        self.assertEqual(self.q('SELECT * FROM android_binder_txns WHERE binder_txn_id = 0'),
                         EXPECTED_TXN_0)

    def test_by_process(self):
        self.assertEqual(self.q('SELECT * FROM android_binder_metrics_by_process '
                                'ORDER BY pid, slice_name'),
                         '"process_name","pid","slice_name","event_count"\n'
                         '"com.client",100,"binder transaction",4\n'
                         '"com.client",100,"binder transaction async",3\n'
                         '"system_server",200,"binder async rcv",3\n'
                         '"system_server",200,"binder reply",4\n'
                         '"surfaceflinger",300,"binder reply",1\n'
                         '"surfaceflinger",300,"binder transaction",1\n')

    def test_thread_states(self):
        # D's ends appear twice (two oom samples at its start); the second
        # copy meets only the thread states from where the first one left
        # off, as in Perfetto's span join.
        self.assertEqual(self.q('SELECT binder_txn_id, binder_reply_id, thread_state_type, '
                                'thread_state, thread_state_dur, thread_state_count '
                                'FROM android_sync_binder_thread_state_by_txn '
                                'ORDER BY binder_txn_id, thread_state_type, thread_state'),
                         '"binder_txn_id","binder_reply_id","thread_state_type","thread_state",'
                         '"thread_state_dur","thread_state_count"\n'
                         '0,1,"binder_reply","D",100,1\n'
                         '0,1,"binder_reply","Running",700,2\n'
                         '0,1,"binder_txn","S",1000,1\n'
                         '10,11,"binder_reply","Running",1020,3\n'
                         '10,11,"binder_reply","S",300,1\n'
                         '10,11,"binder_txn","Running",250,3\n'
                         '10,11,"binder_txn","S",850,1\n'
                         '13,14,"binder_txn","S",300,1\n')

    def test_blocked_functions(self):
        t = e.write_temp(self.dir, 'bf.systrace', SYSTRACE)
        self.assertEqual(self.q('SELECT * FROM android_sync_binder_blocked_functions_by_txn', t),
                         '"binder_txn_id","client_ts","client_tid","binder_reply_id",'
                         '"server_ts","server_tid","thread_state_type","blocked_function",'
                         '"blocked_function_dur","blocked_function_count"\n'
                         '0,1000001000000,100,1,1000001100000,201,"binder_reply",'
                         '"filemap_fault+0x1c/0x2a",200000,1\n')


class AndroidBinderBreakdownTest(e.TempDirTest):
    def q(self, sql, trace):
        return e.query('INCLUDE PERFETTO MODULE android.binder_breakdown; ' + sql, trace)

    def test_server_and_combined(self):
        # The mutex slice starts with the AIDL slice: the outer one is
        # innermost there, so its sleep at 1210 is "S", not mutex contention.
        t = e.textproto_trace(self.dir, 'bd', textproto(breakdown=True))
        self.assertEqual(self.q('SELECT ts, dur, reason FROM android_binder_server_breakdown '
                                'WHERE binder_txn_id = 0 ORDER BY ts', t),
                         '"ts","dur","reason"\n1100,100,"Running"\n1200,10,"Running"\n'
                         '1210,10,"S"\n1220,10,"Running"\n1230,20,"Running"\n'
                         '1250,10,"Running"\n1260,10,"monitor_contention"\n'
                         '1270,30,"art_lock_contention"\n1300,40,"monitor_contention"\n'
                         '1340,10,"Running"\n1350,150,"Running"\n'
                         '1500,100,"userspace_memory_reclaim"\n'
                         '1600,50,"kernel_memory_reclaim"\n1650,150,"Running"\n'
                         '1800,100,"Running"\n')
        self.assertEqual(self.q('SELECT * FROM android_binder_client_server_breakdown '
                                'WHERE binder_txn_id = 0 AND ts IN (1000, 1270, 1900)', t),
                         '"ts","dur","binder_txn_id","binder_reply_id","client_reason",'
                         '"server_reason","reason","reason_type"\n'
                         '1000,100,0,1,"S","[NULL]","S","client"\n'
                         '1270,30,0,1,"S","art_lock_contention","art_lock_contention","server"\n'
                         '1900,100,0,1,"S","[NULL]","S","client"\n')
        # D's nested call from its server thread, sleeping: "binder".
        self.assertEqual(self.q('SELECT DISTINCT ts, dur, reason FROM '
                                'android_binder_server_breakdown WHERE binder_txn_id = 15 '
                                'AND ts = 5200', t),
                         '"ts","dur","reason"\n5200,300,"binder"\n')
        self.assertEqual(self.q('SELECT * FROM android_binder_client_breakdown '
                                'WHERE binder_txn_id = 0', t),
                         '"binder_txn_id","binder_reply_id","ts","dur","reason"\n'
                         '0,1,1000,1000,"S"\n')

    def test_io(self):
        t = e.write_temp(self.dir, 'bf.systrace', SYSTRACE)
        self.assertEqual(self.q('SELECT * FROM android_binder_server_breakdown', t),
                         '"binder_txn_id","binder_reply_id","ts","dur","reason"\n'
                         '0,1,1000001200000,200000,"io"\n')


EXPECTED_TXNS = ('"binder_txn_id","binder_reply_id","aidl_name","interface","method_name","aidl_ts","aidl_dur","client_thread","is_main_thread","server_thread","client_dur","server_dur","client_oom_score","server_oom_score","is_sync","client_monotonic_dur"\n'
                 '0,1,"AIDL::java::IFoo::bar::server","IFoo","bar",1200,600,"com.client",1,"binder:200_1",1000,800,0,-900,1,1000\n'
                 '3,4,"AIDL::java::IFoo::ping::server","IFoo","ping",3200,300,"worker",0,"binder:200_2",0,0,0,-900,0,0\n'
                 '3,4,"AIDL::java::IFoo::ping::server","IFoo","ping",3200,300,"worker",0,"binder:200_2",0,0,200,-900,0,0\n'
                 '6,7,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","worker",0,"binder:200_2",0,0,200,-900,0,0\n'
                 '8,9,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","worker",0,"binder:200_2",0,0,200,-900,0,0\n'
                 '10,11,"AIDL::cpp::IBar::baz::cppServer","IBar","baz",5910,40,"worker",0,"binder:300_1",1000,860,200,-800,1,1000\n'
                 '10,11,"AIDL::cpp::IBar::baz::cppServer","IBar","baz",5910,40,"worker",0,"binder:300_1",1000,860,200,-700,1,1000\n'
                 '13,14,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","binder:300_1",0,"binder:200_1",300,100,-700,-900,1,300\n'
                 '16,18,"[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","com.client",1,"binder:200_1",600,400,200,-900,1,600\n')
EXPECTED_TXN_0 = ('"interface","method_name","aidl_name","aidl_ts","aidl_dur","binder_txn_id","clie'
                  'nt_process","client_thread","client_upid","client_utid","client_tid","client_pid'
                  '","is_main_thread","client_ts","client_dur","binder_reply_id","server_process","'
                  'server_thread","server_upid","server_utid","server_tid","server_pid","server_ts"'
                  ',"server_dur","client_oom_score","server_oom_score","is_sync","client_monotonic_'
                  'dur","server_monotonic_dur","client_package_version_code","server_package_versio'
                  'n_code","is_client_package_debuggable","is_server_package_debuggable"\n"IFoo","ba'
                  'r","AIDL::java::IFoo::bar::server",1200,600,0,"com.client","com.client",2,2,100,'
                  '100,1,1000,1000,1,"system_server","binder:200_1",3,6,201,200,1100,800,0,-900,1,1'
                  '000,800,"[NULL]","[NULL]","[NULL]","[NULL]"\n')

if __name__ == '__main__':
    e.main()
