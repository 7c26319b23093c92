"""End-to-end: StackSample packets (proto_stack_sample.c,
model/stack_sample.h) on traces generated here. Every expected answer is
worked out by hand from the rules in model/stack_sample.h."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SEQ = 3
# InternedData fields
TASK_CONTEXTS, EXECUTION_CONTEXTS, COUNTER_DESCRIPTORS, ASYNC_CONTEXTS = 48, 49, 50, 51
FUNCTION_NAMES, FRAMES, CALLSTACKS, MAPPINGS = 5, 6, 7, 19


def descriptor(name, unit=None, unit_str=None, iid=None, multiplier=None):
    """A StackSample.CounterDescriptor."""
    return ((pb_int(1, iid) if iid else b'') + pb_bytes(2, name) +
            (pb_int(3, unit) if unit is not None else b'') +
            (pb_bytes(4, unit_str) if unit_str else b'') +
            (pb_int(5, multiplier) if multiplier else b''))


def defaults(source, primary=None, followers=()):
    """TracePacketDefaults holding StackSampleDefaults."""
    d = pb_bytes(1, source) + (pb_bytes(2, primary) if primary else b'')
    d += b''.join(pb_bytes(3, f) for f in followers)
    return pb_bytes(59, pb_bytes(100, d))


def interned(*fields, seq=SEQ, more=b''):
    """A packet clearing the sequence's state with InternedData fields
    (number, message) pairs (and more TracePacket fields)."""
    data = b''.join(pb_bytes(n, m) for n, m in fields)
    return pb_packet(pb_int(8, 1), pb_int(10, seq), pb_int(41, 1), pb_bytes(12, data), more)


def inline_frames(*frames):
    """An InlineCallstack of (name, file, line) frames, outermost first."""
    out = b''
    for name, source, line in frames:
        f = pb_bytes(1, name) + (pb_bytes(2, source) if source else b'')
        out += pb_bytes(1, f + (pb_int(3, line) if line is not None else b''))
    return out


def sample(ts, *fields, seq=SEQ):
    return pb_packet(pb_int(8, ts), pb_int(10, seq), pb_bytes(135, b''.join(fields)))


def task(pid=None, tid=None, async_id=None):
    return ((pb_int(2, pid) if pid is not None else b'') +
            (pb_int(3, tid) if tid is not None else b'') +
            (pb_int(4, async_id) if async_id is not None else b''))


def execution(cpu=None, mode=None):
    return ((pb_int(2, cpu) if cpu is not None else b'') +
            (pb_int(3, mode) if mode is not None else b''))


def weights(*values):
    return pb_bytes(14, b''.join(e.varint(v) for v in values))


class StackSampleTest(e.TempDirTest):
    def trace(self, *packets):
        return e.write_temp(self.dir, 'ss.pb', b''.join(packets))

    def wall_trace(self):
        setup = interned(
            (TASK_CONTEXTS, pb_int(1, 1) + task(10, 11)),
            (EXECUTION_CONTEXTS, pb_int(1, 1) + execution(1, 2)),
            (COUNTER_DESCRIPTORS, descriptor('cycles', unit=2, iid=1)),
            (ASYNC_CONTEXTS, pb_int(1, 5) + pb_bytes(2, 'pool') + pb_bytes(3, 'fiber')),
            (ASYNC_CONTEXTS, pb_int(1, 6) + pb_bytes(2, 'w1') + pb_bytes(3, 'fiber') +
             pb_int(4, 5)),
            more=defaults('py.wall', descriptor('wall', unit=1),
                          [descriptor('insns', unit=3, multiplier=4)]))
        code = inline_frames(('main', 'm.py', 3), ('f', None, None))
        return self.trace(
            setup,
            # inline contexts and callstack, the defaults' counters
            sample(100, pb_bytes(1, task(10, 12)), pb_bytes(3, execution(2, 1)),
                   pb_bytes(5, code), pb_int(11, 1000), weights(7)),
            # interned contexts; the same inline task context again
            sample(200, pb_int(2, 1), pb_int(4, 1), pb_bytes(5, code), pb_int(11, 2000)),
            # an async context (its parent made first); an unknown mode
            sample(300, pb_bytes(1, task(10, None, 6)), pb_bytes(3, execution(None, 0)),
                   pb_bytes(5, inline_frames(('f', None, None))), pb_int(11, 3000)),
            # no callstack: stored, not in stack_sample
            sample(400, pb_bytes(1, task(10, 12)), pb_int(11, 4000)),
            # an interned primary descriptor replaces the default one
            sample(500, pb_int(10, 1), pb_int(11, 9), pb_bytes(5, code)))

    def test_samples_contexts_and_sessions(self):
        path = self.wall_trace()
        self.assertEqual(e.query(
            'select s.ts, s.source, p.pid, t.tid, a.name as async, ec.ucpu, ec.cpu_mode, '
            'f.name as leaf, s.session_id from stack_sample s '
            'left join stack_sample_task_context tc on tc.id = s.task_context_id '
            'left join process p on p.upid = tc.upid left join thread t on t.utid = tc.utid '
            'left join stack_sample_async_context a on a.id = tc.async_context_id '
            'left join stack_sample_execution_context ec on ec.id = s.execution_context_id '
            'join stack_profile_callsite c on c.id = s.callsite_id '
            'join stack_profile_frame f on f.id = c.frame_id order by s.ts', path),
            '"ts","source","pid","tid","async","ucpu","cpu_mode","leaf","session_id"\n'
            '100,"py.wall",10,12,"[NULL]",2,"user","f",0\n'
            '200,"py.wall",10,11,"[NULL]",1,"kernel","f",0\n'
            '300,"py.wall",10,"[NULL]","w1","[NULL]","[NULL]","f",0\n'
            '500,"py.wall","[NULL]","[NULL]","[NULL]","[NULL]","[NULL]","f",0\n')
        # contexts are interned by value; the async context's parent first
        self.assertEqual(e.query('select count(*) as n from stack_sample_task_context', path),
                         '"n"\n3\n')
        self.assertEqual(e.query('select id, name, kind, parent_id '
                                 'from stack_sample_async_context', path),
                         '"id","name","kind","parent_id"\n0,"pool","fiber","[NULL]"\n'
                         '1,"w1","fiber",0\n')
        # one session per sequence; its timebase unit is its first timebase's
        self.assertEqual(e.query('select id, source, timebase_unit from stack_sample_session',
                                 path),
                         '"id","source","timebase_unit"\n0,"py.wall","ns"\n')

    def test_inline_frames_live_on_a_dummy_mapping(self):
        path = self.wall_trace()
        self.assertEqual(e.query('select name, build_id, start, "end" from stack_profile_mapping',
                                 path),
                         '"name","build_id","start","end"\n"stack_sample_inline","",0,-1\n')
        # frames interned by (name, file, line); the callstack is outermost first
        self.assertEqual(e.query('select f.name, s.source_file, s.line_number, c.depth '
                                 'from stack_profile_callsite c '
                                 'join stack_profile_frame f on f.id = c.frame_id '
                                 'left join stack_profile_symbol s on s.id = f.symbol_set_id '
                                 'order by c.id', path),
                         '"name","source_file","line_number","depth"\n'
                         '"main","m.py",3,0\n"f","[NULL]","[NULL]",1\n"f","[NULL]","[NULL]",0\n')

    def test_counters_are_tracks_of_the_session(self):
        path = self.wall_trace()
        self.assertEqual(e.query('select id, name, type, unit, session_id, is_timebase '
                                 'from stack_sample_counter_track', path),
                         '"id","name","type","unit","session_id","is_timebase"\n'
                         '0,"wall","stack_sample_session_counter","ns",0,1\n'
                         '1,"insns","stack_sample_session_counter","instructions",0,0\n'
                         '2,"cycles","stack_sample_session_counter","cycles",0,1\n')
        # a value per weight, joined to its sample; those of a sample without
        # callstack are counters, not stack_sample_counter rows
        self.assertEqual(e.query('select s.ts, t.name, cast(c.value as int) as value '
                                 'from stack_sample_counter c '
                                 'join __intrinsic_stack_sample s on s.id = c.stack_sample_id '
                                 'join track t on t.id = c.track_id order by c.id', path),
                         '"ts","name","value"\n100,"wall",1000\n100,"insns",7\n'
                         '200,"wall",2000\n300,"wall",3000\n500,"cycles",9\n')
        self.assertEqual(e.query('select ts from counter where value = 4000', path),
                         '"ts"\n400\n')
        self.assertEqual(e.query("select a.key, a.display_value from track t "
                                 "join args a on a.arg_set_id in (t.dimension_arg_set_id, "
                                 "t.source_arg_set_id) where t.name = 'insns' order by a.id",
                                 path),
                         '"key","display_value"\n"session_id","0"\n"source","py.wall"\n'
                         '"counter_name","insns"\n"is_timebase","false"\n'
                         '"unit_multiplier","4"\n')

    def test_smaps_entries(self):
        def entry(path, *ints):
            return pb_bytes(2, pb_bytes(1, path) + b''.join(pb_int(n, v) for n, v in ints))
        smaps = pb_int(1, 5) + entry('/a.so (deleted)', (2, 3), (3, 1), (15, 7)) + entry('/b')
        path = self.trace(pb_packet(pb_int(8, 10), pb_int(10, 1), pb_bytes(68, smaps)))
        # " (deleted)" is trimmed off path_trimmed; absent strings are NULL
        self.assertEqual(e.query('select upid, ts, path, path_trimmed, is_deleted, size_kb, '
                                 'private_dirty_kb, proportional_resident_kb, file_name '
                                 'from profiler_smaps', path),
                         '"upid","ts","path","path_trimmed","is_deleted","size_kb",'
                         '"private_dirty_kb","proportional_resident_kb","file_name"\n'
                         '1,10,"/a.so (deleted)","/a.so",1,3,1,7,"[NULL]"\n'
                         '1,10,"/b","/b",0,0,0,0,"[NULL]"\n')
        # a new process gets its main thread
        self.assertEqual(e.query('select tid, upid from thread where tid = 5', path),
                         '"tid","upid"\n5,1\n')

    def test_cpu_profiling_samples_keep_time_cycles_and_instructions(self):
        code = pb_bytes(5, inline_frames(('f', None, None)))
        path = self.trace(
            interned(more=defaults('a', descriptor('wall', unit=1))),
            interned(seq=4, more=defaults('b', descriptor('faults', unit_str='count'))),
            interned(seq=5, more=defaults('c')),
            sample(10, code, pb_bytes(1, task(1, 2)), pb_bytes(3, execution(3, 1))),
            sample(20, code, seq=4), sample(30, code, seq=5))
        self.assertEqual(e.query('include perfetto module stacks.cpu_profiling; '
                                 'select ts, tid, cpu, source from cpu_profiling_samples', path),
                         '"ts","tid","cpu","source"\n10,2,3,"a"\n30,"[NULL]","[NULL]","c"\n')


if __name__ == '__main__':
    e.main()
