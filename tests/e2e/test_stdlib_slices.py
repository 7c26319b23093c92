"""End-to-end: the stdlib modules time.conversion, slices.* and
counters.intervals on small generated traces, answers worked out by hand."""
import functools
import json
import os
import zipfile

import weft_e2e as e


def json_trace(events):
    return json.dumps({'traceEvents': events})


def x(name, ts, dur, tid=1, cat=None, pid=1):
    event = {'ph': 'X', 'name': name, 'ts': ts, 'dur': dur, 'pid': pid, 'tid': tid}
    if cat:
        event['cat'] = cat
    return event


# Thread 1: "open" (unfinished) holding k1; thread 2: a > (b > bb, c, open2).
NESTED = [
    {'ph': 'B', 'name': 'open', 'ts': 0, 'pid': 1, 'tid': 1},
    x('k1', 10, 30),
    x('a', 100, 100, tid=2, cat='c1'), x('b', 110, 30, tid=2, cat='c1'),
    x('bb', 115, 10, tid=2, cat='c1'), x('c', 150, 20, tid=2),
    {'ph': 'B', 'name': 'open2', 'ts': 180, 'pid': 1, 'tid': 2},
]

SWITCH = ('{comm}-{pid} ({pid:5}) [{cpu:03}] d..2 {ts}: sched_switch: prev_comm={comm} '
          'prev_pid={pid} prev_prio=120 prev_state={state} ==> next_comm=swapper '
          'next_pid=0 next_prio=120\n')
WAKE_UP = ('<idle>-0 (-----) [{cpu:03}] d..2 {ts}: sched_switch: prev_comm=swapper '
           'prev_pid=0 prev_prio=120 prev_state=R ==> next_comm={comm} next_pid={pid} '
           'next_prio=120\n')
MARK = '{comm}-{pid} ({pid:5}) [{cpu:03}] .... {ts}: tracing_mark_write: {what}\n'


def sched_trace(runs, marks, comm='app', pid=100):
    """A systrace text trace: thread `pid` runs on cpu c over [start, end)
    seconds for each (c, start, end, state left in) of runs, and writes the
    atrace marks (ts seconds, 'B|pid|name' or 'E|pid')."""
    events = []
    for cpu, start, end, state in runs:
        events.append((start, 0, WAKE_UP.format(cpu=cpu, ts='%.6f' % start, comm=comm, pid=pid)))
        events.append((end, 2, SWITCH.format(cpu=cpu, ts='%.6f' % end, comm=comm, pid=pid,
                                             state=state)))
    for ts, what in marks:
        events.append((ts, 1, MARK.format(cpu=0, ts='%.6f' % ts, comm=comm, pid=pid,
                                          what=what)))
    return '# tracer: nop\n' + ''.join(line for _, _, line in sorted(events))


# Thread 100: running [10.0000, 10.0004) S, [10.0007, 10.0012) D, and from
# 10.0020 on; slices draw [10.0001, 10.0010) > inner [10.0008, 10.0009),
# open from 10.0021.
APP_RUNS = [(0, 10.0, 10.0004, 'S'), (1, 10.0007, 10.0012, 'D')]
APP_MARKS = [(10.0001, 'B|100|draw'), (10.0008, 'B|100|inner'), (10.0009, 'E|100'),
             (10.0010, 'E|100'), (10.0021, 'B|100|open')]


def fnv(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & (2 ** 64 - 1)
    return h - 2 ** 64 if h >= 2 ** 63 else h


@functools.lru_cache(maxsize=None)
def ops_available():
    """Whether the C stdlib operators are registered in this build."""
    rc, _, _ = e.run('-Q', 'select __weft_rows_agg(1)')
    return rc == 0


class StdlibSlicesTest(e.TempDirTest):
    def trace(self, name, text):
        return e.write_temp(self.dir, name, text)

    def q(self, sql, *inputs):
        return e.query(sql, *inputs)

    def test_time_conversion(self):
        t = self.trace('t.json', json_trace([x('a', 0, 1)]))
        out = self.q('INCLUDE PERFETTO MODULE time.conversion; select '
                     'time_from_ns(5) a, time_from_us(2) b, time_from_ms(3) c, '
                     'time_from_s(2) d, time_from_min(1) e, time_from_hours(1) f, '
                     'time_from_days(1) g, time_to_ns(7) h, time_to_us(1999) i, '
                     'time_to_ms(2999999) j, time_to_s(-1500000000) k, '
                     'time_to_min(119999999999) l, time_to_hours(7200000000000) m, '
                     'time_to_days(259199999999999) n, time_from_us(NULL) o', t)
        self.assertEqual(out.splitlines()[1],
                         '5,2000,3000000,2000000000,60000000000,3600000000000,'
                         '86400000000000,7,1,2,-1,1,2,2,"[NULL]"')

    def test_with_context(self):
        t = self.trace('t.json', json_trace([
            {'ph': 'M', 'name': 'process_name', 'pid': 1, 'args': {'name': 'P1'}},
            {'ph': 'M', 'name': 'thread_name', 'pid': 1, 'tid': 2, 'args': {'name': 'T2'}},
            x('a', 0, 100, cat='c1'), x('b', 10, 30, tid=2, cat='c1'), x('c', 50, 20)]))
        out = self.q('INCLUDE PERFETTO MODULE slices.with_context; '
                     'select id, name, thread_name, tid, is_main_thread, process_name, pid, '
                     'depth, parent_id from thread_slice order by id', t)
        self.assertEqual(out, '"id","name","thread_name","tid","is_main_thread",'
                         '"process_name","pid","depth","parent_id"\n'
                         '0,"a","[NULL]",1,1,"P1",1,0,"[NULL]"\n'
                         '1,"b","T2",2,0,"P1",1,0,"[NULL]"\n'
                         '2,"c","[NULL]",1,1,"P1",1,1,0\n')
        out = self.q('INCLUDE PERFETTO MODULE slices.with_context; '
                     'select * from thread_or_process_slice order by id', t)
        self.assertEqual(out.splitlines()[0],
                         '"id","ts","dur","category","name","track_id","track_name",'
                         '"thread_name","utid","tid","process_name","upid","pid","depth",'
                         '"parent_id","arg_set_id"')
        self.assertEqual(len(out.splitlines()), 4)
        out = self.q('INCLUDE PERFETTO MODULE slices.with_context; '
                     'select * from process_slice', t)
        self.assertEqual(out, '"id","ts","dur","category","name","track_id","track_name",'
                         '"process_name","upid","pid","depth","parent_id","arg_set_id",'
                         '"thread_ts","thread_dur"\n')

    def test_self_dur(self):
        # dur minus the children's durs, unfinished (-1) ones included as -1.
        t = self.trace('t.json', json_trace(NESTED))
        out = self.q('INCLUDE PERFETTO MODULE slices.self_dur; '
                     'select * from slice_self_dur', t)
        self.assertEqual(out, '"id","self_dur"\n0,-30001\n1,30000\n2,50001\n3,20000\n'
                         '4,10000\n5,20000\n6,-1\n')

    def test_stack_ids(self):
        if not ops_available():  # HASH comes with the operators
            self.skipTest('stdlib operators not registered')
        t = self.trace('t.json', json_trace(NESTED))

        def frame(cat, name):
            return str(fnv(('%s|%s' % (cat, name)).encode()))

        def stack(*frames):  # self first, then ancestors from the root down
            return fnv('|'.join(frames).encode())

        a, b, bb = frame('c1', 'a'), frame('c1', 'b'), frame('c1', 'bb')
        out = self.q('INCLUDE PERFETTO MODULE slices.stack; select id, stack_id, '
                     'parent_stack_id from slice_with_stack_id where id in (2, 3, 4, 5)', t)
        self.assertEqual(out, '"id","stack_id","parent_stack_id"\n'
                         '2,%d,0\n3,%d,%d\n4,%d,%d\n5,%d,%d\n'
                         % (stack(a), stack(b, a), stack(a), stack(bb, a, b), stack(b, a),
                            stack(frame('', 'c'), a), stack(a)))
        out = self.q("select hash('a'), hash(''), hash(1), hash('a', 'b')", t)
        self.assertEqual(out.splitlines()[1], '%d,%d,%d,%d' % (
            fnv(b'a'), fnv(b''), fnv((1).to_bytes(8, 'little')), fnv(b'ab')))

    def test_stack_functions(self):
        if not ops_available():
            self.skipTest('stdlib operators not registered')
        t = self.trace('t.json', json_trace(NESTED))
        rc, _, err = e.run('-Q', 'INCLUDE PERFETTO MODULE slices.stack; '
                           'select * from ancestor_slice_by_stack(0)', t)
        if 'no such table: ancestor_slice_by_stack' in err:
            self.skipTest('slices/stack.sql keeps the by_stack functions commented out '
                          'until the operators are wired into the engine')

        def frame(cat, name):
            return str(fnv(('%s|%s' % (cat, name)).encode()))

        a, b, bb = frame('c1', 'a'), frame('c1', 'b'), frame('c1', 'bb')
        out = self.q('INCLUDE PERFETTO MODULE slices.stack; select id, name from '
                     'ancestor_slice_by_stack(%d)' % fnv('|'.join((bb, a, b)).encode()), t)
        self.assertEqual(out, '"id","name"\n2,"a"\n3,"b"\n4,"bb"\n')
        out = self.q('INCLUDE PERFETTO MODULE slices.stack; select id from '
                     'descendant_slice_by_stack(%d)' % fnv(a.encode()), t)
        self.assertEqual(out, '"id"\n2\n3\n4\n5\n6\n')

    def test_counter_leading_intervals(self):
        # Track "ctr": 10 10 10 10 30 30 5 at ts 0..60 us; track "two": 5 7 7.
        # Within a run the first, last and one merged middle row stay; the
        # last row of a track lasts to the trace's end (100 us).
        values = [10, 10, 10, 10, 30, 30, 5]
        events = [{'ph': 'C', 'name': 'ctr', 'ts': 10 * i, 'pid': 1, 'args': {'v': v}}
                  for i, v in enumerate(values)]
        events += [{'ph': 'C', 'name': 'two', 'ts': ts, 'pid': 1, 'args': {'v': v}}
                   for ts, v in ((0, 5), (10, 7), (15, 7))]
        events.append(x('end', 90, 10))
        t = self.trace('c.json', json_trace(events))
        out = self.q('INCLUDE PERFETTO MODULE counters.intervals; '
                     'select i.ts, i.dur, t.name, i.value, i.next_value, i.delta_value '
                     'from counter_leading_intervals!(counter) i '
                     'join counter_track t on i.track_id = t.id', t)
        self.assertEqual(out, '"ts","dur","name","value","next_value","delta_value"\n'
                         '0,10000,"ctr v",10.000000,10.000000,"[NULL]"\n'
                         '10000,20000,"ctr v",10.000000,10.000000,0.000000\n'
                         '30000,10000,"ctr v",10.000000,30.000000,0.000000\n'
                         '40000,10000,"ctr v",30.000000,30.000000,20.000000\n'
                         '50000,10000,"ctr v",30.000000,5.000000,0.000000\n'
                         '60000,40000,"ctr v",5.000000,"[NULL]",-25.000000\n'
                         '0,10000,"two v",5.000000,7.000000,"[NULL]"\n'
                         '10000,5000,"two v",7.000000,7.000000,2.000000\n'
                         '15000,85000,"two v",7.000000,"[NULL]",0.000000\n')
        # A run ending the track keeps its first two samples only (the
        # second lasting to the end); NULL values read as 0.
        out = self.q('INCLUDE PERFETTO MODULE counters.intervals; '
                     'select * from counter_leading_intervals!((select 1 as id, 5 as ts, '
                     '1 as track_id, NULL as value union all select 2, 6, 1, NULL '
                     'union all select 3, 7, 1, NULL union all select 4, 8, 1, NULL))', t)
        self.assertEqual(out, '"id","ts","dur","track_id","value","next_value","delta_value"\n'
                         '1,5,1,1,0.000000,0.000000,"[NULL]"\n'
                         '2,6,99994,1,0.000000,"[NULL]",0.000000\n')

    def test_cpu_time_and_time_in_state(self):
        if not ops_available():
            self.skipTest('stdlib operators not registered')
        t = self.trace('s.systrace', sched_trace(APP_RUNS + [(0, 10.0020, 10.0030, 'S')],
                                                 APP_MARKS))
        # draw [100, 1000) us runs in [100, 400) and [700, 1000): 600 us;
        # inner [800, 900) runs throughout; open is unfinished: left out.
        out = self.q('INCLUDE PERFETTO MODULE slices.cpu_time; '
                     'select id, name, thread_name, cpu_time from thread_slice_cpu_time', t)
        self.assertEqual(out, '"id","name","thread_name","cpu_time"\n'
                         '0,"draw","app",600000\n1,"inner","app",100000\n')
        out = self.q('INCLUDE PERFETTO MODULE slices.time_in_state; '
                     'select id, state, io_wait, dur from thread_slice_time_in_state', t)
        self.assertEqual(out, '"id","state","io_wait","dur"\n'
                         '0,"Running","[NULL]",600000\n0,"S","[NULL]",300000\n'
                         '1,"Running","[NULL]",100000\n')

    def test_cpu_cycles(self):
        # The rows of linux.cpu.utilization.slice: cpu 0 at 1 GHz, cpu 1 at
        # 2 GHz; inner runs 100 us on cpu 1 (200000 cycles); draw and the
        # unfinished open get NULL there (as the reference answers).
        freq = ('<idle>-0 (-----) [000] d..2 9.999000: cpu_frequency: state=1000000 cpu_id=0\n'
                '<idle>-0 (-----) [001] d..2 9.999000: cpu_frequency: state=2000000 cpu_id=1\n')
        text = sched_trace(APP_RUNS, APP_MARKS).replace('# tracer: nop\n',
                                                         '# tracer: nop\n' + freq)
        t = self.trace('f.systrace', text)
        out = self.q('INCLUDE PERFETTO MODULE slices.cpu_time; '
                     'select id, name, millicycles, megacycles from thread_slice_cpu_cycles', t)
        self.assertEqual(out, '"id","name","millicycles","megacycles"\n'
                         '0,"draw","[NULL]","[NULL]"\n1,"inner",200000000,0\n'
                         '2,"open","[NULL]","[NULL]"\n')

    def test_cpu_time_two_machines(self):
        if not ops_available():
            self.skipTest('stdlib operators not registered')
        # The same pid on two machines is two threads: each slice counts
        # only its own machine's scheduling.
        a = sched_trace([(0, 10.0, 10.0004, 'S')], [(10.0001, 'B|100|work'),
                                                    (10.0010, 'E|100')])
        b = sched_trace([(0, 10.0005, 10.0007, 'S')], [(10.0001, 'B|100|work'),
                                                       (10.0010, 'E|100')])
        z = os.path.join(self.dir, 'two.zip')
        with zipfile.ZipFile(z, 'w') as f:
            f.writestr('perfetto_manifest.json', json.dumps({'perfetto_manifest': {
                'version': 1, 'files': [
                    {'path': 'a.systrace', 'machine': {'name': 'A'}},
                    {'path': 'b.systrace', 'machine': {'name': 'B'}, 'clocks': {
                        'clock': 'BOOTTIME',
                        'sync_to': {'file': 'a.systrace', 'clock': 'BOOTTIME'}}}]}}))
            f.writestr('a.systrace', a)
            f.writestr('b.systrace', b)
        out = self.q('INCLUDE PERFETTO MODULE slices.cpu_time; '
                     'select m.name, c.cpu_time from thread_slice_cpu_time c '
                     'join thread t using (utid) join machine m on t.machine_id = m.id '
                     'order by m.name', z)
        self.assertEqual(out, '"name","cpu_time"\n"A",300000\n"B",200000\n')


if __name__ == '__main__':
    e.main()
