"""End-to-end: the sample sources feeding stack_sample (model/stack_sample.h,
model/stack_profile_perf.c) on traces generated here: perf samples and
their sessions' timebase units, the contexts of perf samples, the views
that show only what stack_sample uses, and cpu_profiling_samples keeping
the time-based sessions. Expected answers are worked out by hand from the
rules in those headers."""
import json

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet
import test_gecko as gecko
import test_instruments as instruments
import test_profiles as profiles
import test_stack_sample as ss
import test_v8_profile as v8

# InternedData fields
FUNCTION_NAMES, FRAMES, CALLSTACKS, BUILD_IDS, MAPPING_PATHS, MAPPINGS = 5, 6, 7, 16, 17, 19
# PerfEvents.Counter values
CPU_CLOCK, PAGE_FAULTS, TASK_CLOCK, CPU_CYCLES, INSTRUCTIONS, BUS_CYCLES, REF_CYCLES = (
    1, 2, 3, 10, 11, 16, 19)


def istr(iid, s):
    return pb_int(1, iid) + pb_bytes(2, s)


def perf_interned(name):
    """Interned data of one callstack: a frame `name` in libfoo.so."""
    return (pb_bytes(BUILD_IDS, istr(1, '')) + pb_bytes(MAPPING_PATHS, istr(1, 'libfoo.so')) +
            pb_bytes(MAPPINGS, pb_int(1, 1) + pb_int(2, 1) + pb_int(7, 1)) +
            pb_bytes(FUNCTION_NAMES, istr(1, name)) +
            pb_bytes(FRAMES, pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 1)) +
            pb_bytes(CALLSTACKS, pb_int(1, 1) + pb_int(2, 1)))


def perf_defaults(seq, timebase=None, has_defaults=True):
    """A packet clearing sequence seq's state, its TracePacketDefaults
    holding PerfSampleDefaults with the Timebase message `timebase` (None:
    no timebase; has_defaults False: no PerfSampleDefaults at all)."""
    psd = pb_bytes(1, timebase) if timebase is not None else b''
    tpd = pb_bytes(12, psd) if has_defaults else b''
    return pb_packet(pb_int(10, seq), pb_int(41, 1), pb_int(8, 1), pb_bytes(59, tpd),
                     pb_bytes(12, perf_interned('f%d' % seq)))


def counter(value):
    return pb_int(4, value) + pb_int(2, 100)


def perf_sample(seq, ts, cpu=None, pid=10, tid=10, mode=None, stack=True):
    body = ((pb_int(1, cpu) if cpu is not None else b'') + pb_int(2, pid) + pb_int(3, tid) +
            (pb_int(5, mode) if mode is not None else b'') + (pb_int(4, 1) if stack else b''))
    return pb_packet(pb_int(10, seq), pb_int(13, 2), pb_int(8, ts), pb_bytes(66, body))


class PerfSessionsTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'perf.pb', b''.join(packets))

    def test_timebase_units(self):
        timebases = [
            counter(CPU_CLOCK), counter(TASK_CLOCK), counter(CPU_CYCLES), counter(BUS_CYCLES),
            counter(REF_CYCLES), counter(INSTRUCTIONS), counter(PAGE_FAULTS),
            counter(0), counter(99),                          # unknown counters count
            pb_bytes(3, pb_bytes(1, 'sched/sched_switch')),   # a tracepoint counts
            pb_bytes(5, pb_int(1, 4) + pb_int(2, 0x11)),      # a raw event: unknown
            pb_bytes(10, 'mine'),                             # a name alone: unknown
            pb_bytes(10, 'mine') + counter(CPU_CYCLES),       # a name and a counter
            b'']                                              # no event: unknown
        packets = []
        for i, tb in enumerate(timebases):
            packets += [perf_defaults(i + 1, tb), perf_sample(i + 1, 100 + i)]
        n = len(timebases)
        packets += [perf_defaults(n + 1, None),                      # no timebase: unknown
                    perf_sample(n + 1, 200),
                    perf_defaults(n + 2, has_defaults=False),        # no defaults: cpu-clock
                    perf_sample(n + 2, 201)]
        path = self.trace(*packets)
        self.assertEqual(e.query('select group_concat(coalesce(timebase_unit, \'-\'), \' \') '
                                 'as u from (select * from stack_sample_session order by id)',
                                 path),
                         '"u"\n"ns ns cycles cycles cycles instructions count count count '
                         'count - - cycles - - ns"\n')
        self.assertEqual(e.query("select count(*) as n from stack_sample_session "
                                 "where source = 'linux.perf'", path), '"n"\n16\n')

    def test_perf_samples_are_stack_samples(self):
        path = self.trace(
            ss.interned(seq=3, more=ss.defaults('py', ss.descriptor('wall', unit=1))),
            ss.sample(150, pb_bytes(5, ss.inline_frames(('g', None, None))),
                      pb_bytes(1, ss.task(1, 2)), seq=3),
            perf_defaults(5, counter(CPU_CLOCK)),
            perf_sample(5, 100, cpu=2, pid=10, tid=11, mode=2),
            perf_sample(5, 200, cpu=3, pid=10, tid=11, mode=1, stack=False),
            perf_defaults(6, counter(CPU_CYCLES)),
            perf_sample(6, 300, cpu=2, mode=1, stack=False))
        # one id space for every source's samples and sessions, in time order
        self.assertEqual(e.query('select id, ts, source, session_id, callsite_id is null as '
                                 'no_stack from __intrinsic_profiler_sample order by id', path),
                         '"id","ts","source","session_id","no_stack"\n'
                         '0,100,"linux.perf",0,0\n1,150,"py",1,0\n2,200,"linux.perf",0,1\n'
                         '3,300,"linux.perf",2,1\n')
        self.assertEqual(e.query('select id, ts, cpu, cpu_mode, perf_session_id from perf_sample '
                                 'order by id', path),
                         '"id","ts","cpu","cpu_mode","perf_session_id"\n'
                         '0,100,2,"user",0\n2,200,3,"kernel",0\n3,300,2,"kernel",2\n')
        self.assertEqual(e.query('select id, perf_session_id from perf_session', path),
                         '"id","perf_session_id"\n0,0\n2,2\n')
        # stack_sample and the tables it joins show only samples with a stack
        self.assertEqual(e.query('select s.id, s.source, t.tid, p.pid, ec.ucpu, ec.cpu_mode '
                                 'from stack_sample s '
                                 'join stack_sample_task_context tc on tc.id = s.task_context_id '
                                 'join thread t on t.utid = tc.utid '
                                 'join process p on p.upid = tc.upid '
                                 'left join stack_sample_execution_context ec '
                                 'on ec.id = s.execution_context_id order by s.id', path),
                         '"id","source","tid","pid","ucpu","cpu_mode"\n'
                         '0,"linux.perf",11,10,2,"user"\n1,"py",2,1,"[NULL]","[NULL]"\n')
        self.assertEqual(e.query('select id, source from stack_sample_session', path),
                         '"id","source"\n0,"linux.perf"\n1,"py"\n')
        self.assertEqual(e.query('select (select count(*) from stack_sample_execution_context) '
                                 'as e, (select count(distinct execution_context_id) from '
                                 '__intrinsic_profiler_sample) as all_e', path),
                         '"e","all_e"\n1,3\n')

    def test_execution_context_of_perf_samples(self):
        path = self.trace(
            perf_defaults(1, counter(CPU_CLOCK)),
            perf_sample(1, 100),                  # no cpu, no mode: no execution context
            perf_sample(1, 200, cpu=3, mode=0),   # MODE_UNKNOWN: no mode
            perf_sample(1, 300, cpu=3, mode=9))   # a mode weft does not know: "unknown"
        self.assertEqual(e.query('select s.ts, ec.ucpu, ec.cpu_mode, p.cpu_mode as perf_mode '
                                 'from stack_sample s join perf_sample p using (id) '
                                 'left join stack_sample_execution_context ec '
                                 'on ec.id = s.execution_context_id order by s.ts', path),
                         '"ts","ucpu","cpu_mode","perf_mode"\n'
                         '100,"[NULL]","[NULL]","unknown"\n200,3,"[NULL]","unknown"\n'
                         '300,3,"unknown","unknown"\n')

    def test_stack_sample_streams_of_source_linux_perf_are_perf_samples(self):
        path = self.trace(
            ss.interned(seq=3, more=ss.defaults('linux.perf', ss.descriptor('wall', unit=1))),
            ss.sample(150, pb_bytes(5, ss.inline_frames(('g', None, None))),
                      pb_bytes(1, ss.task(1, 2)), seq=3))
        self.assertEqual(e.query('select id, cpu, cpu_mode, perf_session_id from perf_sample',
                                 path),
                         '"id","cpu","cpu_mode","perf_session_id"\n0,"[NULL]","unknown",0\n')
        self.assertEqual(e.query('select count(*) as n from perf_session', path), '"n"\n1\n')

    def test_cpu_profiling_samples_keep_time_cycles_instructions_and_unknown(self):
        path = self.trace(
            perf_defaults(1, counter(TASK_CLOCK)), perf_sample(1, 100, cpu=1),
            perf_defaults(2, counter(PAGE_FAULTS)), perf_sample(2, 200, cpu=1),
            perf_defaults(3, counter(INSTRUCTIONS)), perf_sample(3, 300, cpu=1),
            perf_defaults(4, pb_bytes(3, pb_bytes(1, 'sched/sched_switch'))),
            perf_sample(4, 400, cpu=1),
            perf_defaults(5, pb_bytes(5, pb_int(1, 4))), perf_sample(5, 500, cpu=1),
            perf_defaults(6, counter(REF_CYCLES)), perf_sample(6, 600, cpu=1, stack=False))
        self.assertEqual(e.query('include perfetto module stacks.cpu_profiling; '
                                 'select id, ts, tid, cpu, source from cpu_profiling_samples',
                                 path),
                         '"id","ts","tid","cpu","source"\n0,100,10,1,"linux.perf"\n'
                         '2,300,10,1,"linux.perf"\n4,500,10,1,"linux.perf"\n')


class CounterTracksTest(e.TempDirTest):
    def test_counter_tracks_shown_are_those_with_a_value_of_a_shown_sample(self):
        code = pb_bytes(5, ss.inline_frames(('f', None, None)))
        packets = b''
        # a: no values; b: a timebase value; c: a follower value; d: a value
        # of a sample without callstack
        for i, fields in enumerate([(code,), (code, pb_int(11, 5)), (code, ss.weights(7)),
                                    (pb_int(11, 5),)]):
            packets += ss.interned(seq=3 + i, more=ss.defaults(
                'abcd'[i], ss.descriptor('wall', unit=1), [ss.descriptor('insns', unit=3)]))
            packets += ss.sample(100 * (i + 1), *fields, seq=3 + i)
        path = e.write_temp(self.dir, 'ctr.pb', packets)
        self.assertEqual(e.query('select id, name, session_id, is_timebase '
                                 'from stack_sample_counter_track', path),
                         '"id","name","session_id","is_timebase"\n2,"wall",1,1\n'
                         '5,"insns",2,0\n')
        self.assertEqual(e.query('select count(*) as n from track '
                                 "where type = 'stack_sample_session_counter'", path),
                         '"n"\n8\n')


# the task context of each sample, its execution context and session
CONTEXTS_SQL = ('select s.id, s.ts, s.source, t.tid, p.pid, ec.ucpu, ec.cpu_mode, s.session_id '
                'from stack_sample s '
                'join stack_sample_task_context tc on tc.id = s.task_context_id '
                'join thread t on t.utid = tc.utid left join process p on p.upid = tc.upid '
                'left join stack_sample_execution_context ec on ec.id = s.execution_context_id '
                'order by s.id')
CONTEXTS_HEAD = '"id","ts","source","tid","pid","ucpu","cpu_mode","session_id"\n'


class CpuProfileSourcesTest(e.TempDirTest):
    def test_chrome_streaming_profile_samples(self):
        thread = pb_bytes(44, pb_int(1, 20) + pb_int(2, 21) + pb_int(6, 1000))
        samples = pb_bytes(54, pb_int(1, 1) + pb_int(1, 2) + pb_int(2, 5) + pb_int(2, 3) +
                           pb_int(3, 3))
        path = e.write_temp(self.dir, 'chrome.pb', profiles.clock_snapshot(0, 0) +
                            profiles.libc_interned() +
                            pb_packet(pb_int(10, profiles.SEQ), thread) +
                            pb_packet(pb_int(10, profiles.SEQ), samples))
        self.assertEqual(e.query(CONTEXTS_SQL, path), CONTEXTS_HEAD +
                         '0,1005000,"chrome",21,20,"[NULL]","[NULL]","[NULL]"\n'
                         '1,1008000,"chrome",21,20,"[NULL]","[NULL]","[NULL]"\n')
        self.assertEqual(e.query('select id, process_priority from cpu_profile_stack_sample',
                                 path), '"id","process_priority"\n0,3\n1,3\n')

    def test_legacy_v8_samples(self):
        path = e.write_temp(self.dir, 'v8.json', json.dumps({'traceEvents': v8.JSON_EVENTS}))
        self.assertEqual(e.query(CONTEXTS_SQL, path), CONTEXTS_HEAD +
                         '0,501000,"legacy_v8",3,1,"[NULL]","[NULL]","[NULL]"\n'
                         '1,503000,"legacy_v8",3,1,"[NULL]","[NULL]","[NULL]"\n'
                         '2,1010000,"legacy_v8",2,1,"[NULL]","[NULL]","[NULL]"\n'
                         '3,1015000,"legacy_v8",2,1,"[NULL]","[NULL]","[NULL]"\n'
                         '4,1120000,"legacy_v8",2,1,"[NULL]","[NULL]","[NULL]"\n')

    def test_gecko_samples_know_their_thread_alone(self):
        t = gecko.thread('GeckoMain', 10, 10, [])
        t['stringArray'] = ['main']
        t['funcTable'] = {'name': [0], 'length': 1}
        t['frameTable'] = {'func': [0], 'length': 1}
        t['stackTable'] = {'prefix': [None], 'frame': [0], 'length': 1}
        t['samples'] = {'stack': [0, 0], 'time': [1.5, 2.0], 'length': 2}
        path = e.write_temp(self.dir, 'p.json', json.dumps(
            {'meta': {'categories': gecko.CATEGORIES}, 'threads': [t]}))
        self.assertEqual(e.query(CONTEXTS_SQL, path), CONTEXTS_HEAD +
                         '0,1500000,"gecko",10,"[NULL]","[NULL]","[NULL]","[NULL]"\n'
                         '1,2000000,"gecko",10,"[NULL]","[NULL]","[NULL]","[NULL]"\n')

    def test_simpleperf_samples_know_their_thread_alone(self):
        path = e.write_temp(self.dir, 'perf.data.pb', profiles.simpleperf(
            profiles.sp_sample(2000, 11, (0x10, 1, 0)),
            pb_bytes(3, pb_int(1, 1) + pb_bytes(2, '/lib/a.so') + pb_bytes(3, 'leaf')),
            pb_bytes(4, pb_int(1, 11) + pb_int(2, 10) + pb_bytes(3, 'worker'))))
        self.assertEqual(e.query(CONTEXTS_SQL, path), CONTEXTS_HEAD +
                         '0,2000,"simpleperf",11,"[NULL]","[NULL]","[NULL]","[NULL]"\n')

    def test_instruments_samples_have_their_core(self):
        rows = instruments.ROWS.split('\n')
        path = e.write_temp(self.dir, 't.xml', instruments.HEAD + rows[0] + rows[1] +
                            instruments.TAIL)
        # a core defined in the row leaves its cpu 0; a ref gives the value
        self.assertEqual(e.query(CONTEXTS_SQL, path), CONTEXTS_HEAD +
                         '0,5000,"instruments",100,10,0,"[NULL]","[NULL]"\n'
                         '1,6000,"instruments",100,10,3,"[NULL]","[NULL]"\n')
        self.assertEqual(e.query('select * from instruments_sample', path),
                         '"id","ts","utid","callsite_id","cpu"\n0,5000,2,1,0\n1,6000,2,1,3\n')

    def test_per_source_views_and_cpu_profiling_samples(self):
        code = pb_bytes(5, ss.inline_frames(('f', None, None)))
        packets = b''
        for i, src in enumerate(['py', 'legacy_v8', 'gecko', 'simpleperf', 'chrome',
                                 'instruments', 'linux.perf']):
            packets += ss.interned(seq=3 + i, more=ss.defaults(src))
            packets += ss.sample(100 + i, code, pb_bytes(1, ss.task(1, 2)), seq=3 + i)
        path = e.write_temp(self.dir, 'ss.pb', packets)
        self.assertEqual(e.query('select id, process_priority from cpu_profile_stack_sample',
                                 path), '"id","process_priority"\n1,0\n2,0\n3,0\n4,0\n')
        self.assertEqual(e.query('select id, cpu from instruments_sample', path),
                         '"id","cpu"\n5,"[NULL]"\n')
        self.assertEqual(e.query('include perfetto module stacks.cpu_profiling; '
                                 'select count(*) as n from cpu_profiling_samples', path),
                         '"n"\n7\n')


if __name__ == '__main__':
    e.main()
