"""End-to-end: callstacks.stack_profile and the summary trees built on it
(linux.perf.samples, stacks.cpu_profiling, appleos.instruments.samples,
android.memory.heap_profile.summary_tree) on traces generated here. The
answers follow the rules in src/sql/stdlib/callstacks/stack_profile.sql:
a callsite is one node per inlined function (innermost first, numbered by
callsite then symbol), names are symbol > deobfuscated > frame name,
demangled, else 'unknown'; self counts land on a callsite's innermost
node, cumulative counts sum a subtree. Each was checked against Perfetto's
trace processor on the same trace."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet
import test_instruments as instruments

SEQ = 1
# InternedData fields
FUNCTION_NAMES, FRAMES, CALLSTACKS, BUILD_IDS, MAPPING_PATHS, MAPPINGS = 5, 6, 7, 16, 17, 19
LIBC, LIBFOO, APK = '/system/lib64/libc.so', '/system/lib64/libfoo.so', \
    '/data/app/com.app-1/base.apk'


def istr(iid, s):
    return pb_int(1, iid) + pb_bytes(2, s)


def mapping(iid, build_id, path, start, end):
    return pb_int(1, iid) + pb_int(2, build_id) + pb_int(4, start) + pb_int(5, end) + \
        pb_int(7, path)


def frame(iid, name_id, mapping_id, rel_pc):
    return pb_int(1, iid) + (pb_int(2, name_id) if name_id else b'') + \
        pb_int(3, mapping_id) + pb_int(4, rel_pc)


def callstack(iid, *frames):
    return pb_int(1, iid) + b''.join(pb_int(2, f) for f in frames)


def process_tree(*pids):
    procs = b''.join(pb_bytes(1, pb_int(1, p) + pb_int(2, 1) + pb_bytes(3, 'p%d' % p))
                     for p in pids)
    return pb_packet(pb_bytes(2, procs))


# Frames: 1 main (libc), 2 _ZN3foo3barEv, 3 work (symbolized as work_sym),
# 4 rec, 5 unnamed (symbolized into three inlined functions), 6 unnamed and
# unsymbolized, 7 a.b.c (deobfuscated), 8 leaf (libc), 9 named "".
NAMES = ['main', '_ZN3foo3barEv', 'work', 'rec', 'a.b.c', 'leaf', '']
FRAME_DEFS = [(1, 1, 1, 16), (2, 2, 2, 32), (3, 3, 2, 48), (4, 4, 2, 64), (5, 0, 2, 256),
              (6, 0, 2, 512), (7, 5, 3, 80), (8, 6, 1, 96), (9, 7, 2, 128)]
STACKS = {1: (1, 3), 2: (1, 2, 3), 3: (1, 4, 4, 4, 4, 4, 8), 4: (1, 5), 5: (1, 6),
          6: (1, 7), 7: (1,), 8: (1, 5, 3), 9: (1, 9), 10: (1, 8), 11: (1, 5, 8)}
# The heap profile's callstacks: main->leaf, main->inlined, main->inlined->leaf.
STACKS_HEAP = (10, 4, 11)


def interned():
    fields = [(MAPPING_PATHS, istr(1, LIBC)), (MAPPING_PATHS, istr(2, LIBFOO)),
              (MAPPING_PATHS, istr(3, APK)), (BUILD_IDS, istr(1, '')),
              (BUILD_IDS, istr(2, 'abcd1234')),
              (MAPPINGS, mapping(1, 1, 1, 4096, 65536)),
              (MAPPINGS, mapping(2, 2, 2, 131072, 196608)),
              (MAPPINGS, mapping(3, 1, 3, 65536, 131072))]
    fields += [(FUNCTION_NAMES, istr(i + 1, n)) for i, n in enumerate(NAMES)]
    fields += [(FRAMES, frame(*f)) for f in FRAME_DEFS]
    fields += [(CALLSTACKS, callstack(iid, *fs)) for iid, fs in STACKS.items()]
    data = b''.join(pb_bytes(n, m) for n, m in fields)
    return pb_packet(pb_int(10, SEQ), pb_int(41, 1), pb_int(13, 1), pb_int(8, 100),
                     pb_bytes(12, data))


def perf_sample(ts, tid, stack=None, cpu=0, seq=SEQ, pid=10):
    body = pb_int(1, cpu) + pb_int(2, pid) + pb_int(3, tid) + \
        (pb_int(4, stack) if stack else b'')
    return pb_packet(pb_int(10, seq), pb_int(13, 2), pb_int(8, ts), pb_bytes(66, body))


def line(name, source=None, number=None):
    return ((pb_bytes(1, name) if name is not None else b'') +
            (pb_bytes(2, source) if source else b'') +
            (pb_int(3, number) if number is not None else b''))


def module_symbols():
    """libfoo's pc 256 is inner_inl in mid_inl in _ZN3foo5outerEv; pc 48 is
    work_sym."""
    inl = pb_int(1, 256) + b''.join(pb_bytes(2, line(*l)) for l in [
        ('inner_inl', 'foo.cc', 10), ('mid_inl', 'foo.cc', 20),
        ('_ZN3foo5outerEv', 'foo.cc', 30)])
    work = pb_int(1, 48) + pb_bytes(2, line('work_sym', 'work.cc', 7))
    body = pb_bytes(1, LIBFOO) + pb_bytes(2, 'abcd1234') + pb_bytes(3, inl) + \
        pb_bytes(3, work)
    return pb_packet(pb_bytes(61, body))


def deobfuscation():
    method = pb_bytes(1, 'c') + pb_bytes(2, 'run')
    cls = pb_bytes(1, 'a.b') + pb_bytes(2, 'com.app.Main') + pb_bytes(4, method)
    return pb_packet(pb_bytes(64, pb_bytes(1, 'com.app') + pb_bytes(3, cls)))


# (ts, tid, callstack): two samples of main->work_sym, one through
# foo::bar(), three of a deep recursion, the inlined frame, the unsymbolized
# one twice, the deobfuscated one, main alone, the inlined frame's callee,
# the frame named "", and a sample without a callstack.
SAMPLES = [(1000, 10, 1), (1100, 10, 1), (1200, 10, 2), (1300, 11, 3), (1400, 11, 3),
           (1500, 11, 3), (1600, 12, 4), (1700, 12, 5), (1800, 12, 5), (1900, 10, 6),
           (2000, 10, 7), (2100, 12, 1), (2200, 12, 8), (2250, 12, 9), (2300, 12, None)]


def perf_trace():
    return b''.join([process_tree(10), interned()] +
                    [perf_sample(ts, tid, cs) for ts, tid, cs in SAMPLES] +
                    [module_symbols(), deobfuscation()])


HEADER = '"id","parent_id","name","mapping_name","source_file","line_number",' \
    '"self_count","cumulative_count"\n'
PERF_TREE = HEADER + (
    '0,"[NULL]","main","%(c)s","[NULL]","[NULL]",1,14\n'
    '1,0,"work_sym","%(f)s","work.cc",7,3,3\n'
    '2,0,"foo::bar()","%(f)s","[NULL]","[NULL]",0,1\n'
    '3,2,"work_sym","%(f)s","work.cc",7,1,1\n'
    '4,0,"rec","%(f)s","[NULL]","[NULL]",0,3\n'
    '5,4,"rec","%(f)s","[NULL]","[NULL]",0,3\n'
    '6,5,"rec","%(f)s","[NULL]","[NULL]",0,3\n'
    '7,6,"rec","%(f)s","[NULL]","[NULL]",0,3\n'
    '8,7,"rec","%(f)s","[NULL]","[NULL]",0,3\n'
    '9,8,"leaf","%(c)s","[NULL]","[NULL]",3,3\n'
    '10,11,"inner_inl","%(f)s","foo.cc",10,1,2\n'
    '11,12,"mid_inl","%(f)s","foo.cc",20,0,2\n'
    '12,0,"foo::outer()","%(f)s","foo.cc",30,0,2\n'
    '13,0,"unknown","%(f)s","[NULL]","[NULL]",2,2\n'
    '14,0,"com.app.Main.run","%(a)s","[NULL]","[NULL]",1,1\n'
    '15,10,"work_sym","%(f)s","work.cc",7,1,1\n'
    '16,0,"","%(f)s","[NULL]","[NULL]",1,1\n') % {'c': LIBC, 'f': LIBFOO, 'a': APK}


class CallstackForestTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.write_temp(self.dir, 'perf.pb', perf_trace())

    def q(self, sql, module='callstacks.stack_profile'):
        return e.query('INCLUDE PERFETTO MODULE %s; %s' % (module, sql), self.trace)

    def test_linux_perf_summary_tree(self):
        self.assertEqual(self.q('select * from linux_perf_samples_summary_tree',
                                'linux.perf.samples'), PERF_TREE)

    def test_cpu_profiling_summary_tree(self):
        self.assertEqual(self.q('select * from cpu_profiling_summary_tree',
                                'stacks.cpu_profiling'), PERF_TREE)

    def test_inlined_functions_are_nodes_innermost_first(self):
        # The inlined callsite's three nodes: the innermost is the leaf, the
        # outermost hangs from the parent callsite's innermost node.
        self.assertEqual(self.q(
            'select id, parent_id, name, callsite_id, is_leaf_function_in_callsite_frame '
            'as leaf from _callstack_spc_forest where callsite_id in (10, 13) order by id'),
            '"id","parent_id","name","callsite_id","leaf"\n'
            '10,11,"inner_inl",10,1\n11,12,"mid_inl",10,0\n12,0,"foo::outer()",10,0\n'
            '15,10,"work_sym",13,1\n')

    def test_callsites_macro_counts_a_subquery(self):
        # The UI's flamegraph: the samples of one thread only.
        self.assertEqual(self.q(
            'select id, parent_id, name, self_count from _callstacks_for_callsites!(('
            'select callsite_id from perf_sample join thread using (utid) '
            'where tid = 12)) order by id'),
            '"id","parent_id","name","self_count"\n'
            '0,"[NULL]","main",0\n1,0,"work_sym",1\n10,11,"inner_inl",1\n'
            '11,12,"mid_inl",0\n12,0,"foo::outer()",0\n13,0,"unknown",2\n'
            '15,10,"work_sym",1\n16,0,"",1\n')

    def test_weighted_macro_sums_values(self):
        self.assertEqual(self.q(
            'select id, self_value from _callstacks_for_callsites_weighted!(('
            'select callsite_id, ts / 100 as value from perf_sample where ts < 1300)) '
            'order by id'),
            '"id","self_value"\n0,0\n1,21\n2,0\n3,12\n')

    def test_self_to_cumulative(self):
        self.assertEqual(self.q(
            'select * from _callstacks_self_to_cumulative!((select column1 as id, '
            'column2 as parent_id, column3 as self_count from (values (1, null, 1), '
            '(2, 1, 2), (3, 2, 4), (4, 1, 8), (5, null, 16)))) order by id'),
            '"id","cumulative_count"\n1,15\n2,6\n3,4\n4,8\n5,16\n')


def perf_defaults(seq, counter):
    """Sequence seq's TracePacketDefaults: perf samples timed by a Timebase
    of `counter` (PerfEvents.Counter), and its one callstack: a frame
    pf<seq> in libc."""
    timebase = pb_int(2, 100) + pb_int(4, counter)
    defaults = pb_bytes(12, pb_bytes(1, timebase))
    data = pb_bytes(5, istr(1, 'pf%d' % seq)) + pb_bytes(16, istr(1, '')) + \
        pb_bytes(17, istr(1, LIBC)) + pb_bytes(19, mapping(1, 1, 1, 4096, 8192)) + \
        pb_bytes(6, frame(1, 1, 1, 16)) + pb_bytes(7, callstack(1, 1))
    return pb_packet(pb_int(10, seq), pb_int(41, 1), pb_int(13, 1), pb_int(8, 100),
                     pb_bytes(59, defaults), pb_bytes(12, data))


class CpuProfilingSessionsTest(e.TempDirTest):
    def test_only_time_based_sessions_count_for_cpu_profiling(self):
        # Sequence 2 samples on page faults: in the perf tree, not the CPU one.
        trace = e.write_temp(self.dir, 't.pb', b''.join([
            process_tree(10), perf_defaults(1, 1), perf_defaults(2, 2),
            perf_sample(1000, 10, 1, seq=1), perf_sample(1100, 10, 1, seq=2),
            perf_sample(1200, 10, 1, seq=2)]))
        sql = ('INCLUDE PERFETTO MODULE stacks.cpu_profiling; '
               'INCLUDE PERFETTO MODULE linux.perf.samples; '
               'select \'perf\' as t, name, self_count, cumulative_count '
               'from linux_perf_samples_summary_tree union all '
               'select \'cpu\', name, self_count, cumulative_count '
               'from cpu_profiling_summary_tree')
        self.assertEqual(e.query(sql, trace),
                         '"t","name","self_count","cumulative_count"\n'
                         '"perf","pf1",1,1\n"perf","pf2",2,2\n"cpu","pf1",1,1\n')


class InstrumentsTreeTest(e.TempDirTest):
    def test_instruments_summary_tree(self):
        # Two processes share /lib/a's callstack; binary-less frames sit on
        # a dummy mapping named "".
        rows = '\n'.join(instruments.ROWS.split('\n')[:4]) + '\n'
        path = e.write_temp(self.dir, 't.xml', instruments.HEAD + rows + instruments.TAIL)
        out = e.query('INCLUDE PERFETTO MODULE appleos.instruments.samples; '
                      'select * from appleos_instruments_samples_summary_tree', path)
        self.assertEqual(out, HEADER +
                         '0,"[NULL]","root","/lib/a","[NULL]","[NULL]",0,3\n'
                         '1,0,"leaf","/lib/a","[NULL]","[NULL]",3,3\n'
                         '2,"[NULL]","zero","","[NULL]","[NULL]",0,1\n'
                         '3,2,"abs","","[NULL]","[NULL]",1,1\n')


def clock_snapshot():
    clocks = pb_bytes(1, pb_int(1, 6) + pb_int(2, 50)) + pb_bytes(1, pb_int(1, 4) +
                                                                  pb_int(2, 50))
    return pb_packet(pb_int(8, 50), pb_bytes(6, clocks))


def heap_dump(ts, pid, *samples):
    """samples: (callstack, allocated, freed, alloc_count, free_count)."""
    body = b''.join(pb_bytes(2, pb_int(1, cs) + pb_int(2, a) + pb_int(3, f) +
                             pb_int(5, ac) + pb_int(6, fc))
                    for cs, a, f, ac, fc in samples)
    dump = pb_int(1, pid) + pb_int(9, ts) + body
    return pb_packet(pb_int(8, ts), pb_int(10, SEQ), pb_bytes(37, pb_bytes(5, dump) +
                                                              pb_int(6, 0)))


class HeapProfileTreeTest(e.TempDirTest):
    def test_heap_profile_summary_tree(self):
        # main->leaf keeps 70 of 100 bytes; main->inlined keeps 50 (each of
        # its three nodes carries them, so main counts them three times);
        # main->inlined->leaf frees the 70 it allocates.
        trace = e.write_temp(self.dir, 'heap.pb', b''.join([
            clock_snapshot(), process_tree(10), interned(),
            heap_dump(1000, 10, (STACKS_HEAP[0], 100, 30, 2, 1), (STACKS_HEAP[1], 50, 0, 1, 0),
                      (STACKS_HEAP[2], 70, 70, 1, 1)),
            module_symbols()]))
        out = e.query('INCLUDE PERFETTO MODULE android.memory.heap_profile.summary_tree; '
                      'select id, parent_id, name, self_size, cumulative_size, '
                      'self_alloc_size, cumulative_alloc_size '
                      'from android_heap_profile_summary_tree order by id', trace)
        self.assertEqual(out, '"id","parent_id","name","self_size","cumulative_size",'
                         '"self_alloc_size","cumulative_alloc_size"\n'
                         '0,"[NULL]","main",0,220,0,320\n'
                         '1,0,"leaf",70,70,100,100\n'
                         '2,3,"inner_inl",50,50,50,120\n'
                         '3,4,"mid_inl",50,100,50,170\n'
                         '4,0,"foo::outer()",50,150,50,220\n'
                         '5,2,"leaf",0,0,70,70\n')


if __name__ == '__main__':
    e.main()
