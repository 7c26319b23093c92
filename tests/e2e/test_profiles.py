"""End-to-end: profiles with callstacks (proto_profile*.c, model/stack_profile.c)
on traces generated here. Every expected answer is worked out by hand from
the rules in proto_profile.h and stack_profile.h."""
import os

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet

SEQ = 7


def istr(iid, s):
    """An InternedString."""
    return pb_int(1, iid) + pb_bytes(2, s)


def mapping(iid, build_id=0, paths=(), start=0, end=0):
    return (pb_int(1, iid) + (pb_int(2, build_id) if build_id else b'') +
            pb_int(4, start) + pb_int(5, end) + b''.join(pb_int(7, p) for p in paths))


def frame(iid, name_id, mapping_id, rel_pc, kind=None):
    return (pb_int(1, iid) + (pb_int(2, name_id) if name_id else b'') +
            pb_int(3, mapping_id) + pb_int(4, rel_pc) +
            (pb_int(7, kind) if kind is not None else b''))


def callstack(iid, *frames):
    return pb_int(1, iid) + b''.join(pb_int(2, f) for f in frames)


def interned_packet(*fields):
    """A packet clearing the sequence's state with InternedData fields
    (number, message) pairs."""
    data = b''.join(pb_bytes(n, m) for n, m in fields)
    return pb_packet(pb_int(10, SEQ), pb_int(41, 1), pb_bytes(12, data))


def interned_packet_keep(*fields):
    """A packet adding InternedData fields to the sequence's state."""
    data = b''.join(pb_bytes(n, m) for n, m in fields)
    return pb_packet(pb_int(10, SEQ), pb_int(13, 2), pb_bytes(12, data))


def heap_sample(callstack_id, allocated, freed, alloc_count, free_count):
    return (pb_int(1, callstack_id) + pb_int(2, allocated) + pb_int(3, freed) +
            pb_int(5, alloc_count) + pb_int(6, free_count))


def heap_dump(ts, pid, heap, *samples, tables=b'', continued=False, dump_ts=None,
              extra=b''):
    """A ProfilePacket at ts with one process dump (timestamped dump_ts, by
    default ts; extra: more ProcessHeapSamples fields)."""
    dump = (pb_int(1, pid) + pb_int(9, ts if dump_ts is None else dump_ts) + extra +
            b''.join(pb_bytes(2, s) for s in samples))
    if heap is not None:
        dump += pb_bytes(11, heap)
    body = tables + pb_bytes(5, dump) + pb_int(6, 1 if continued else 0)
    return pb_packet(pb_int(8, ts), pb_int(10, SEQ), pb_bytes(37, body))


def process_tree(*pids):
    procs = b''.join(pb_bytes(1, pb_int(1, p) + pb_bytes(3, 'proc%d' % p)) for p in pids)
    return pb_packet(pb_int(8, 1), pb_bytes(2, procs))


# InternedData field numbers
FUNCTION_NAMES, FRAMES, CALLSTACKS, BUILD_IDS, MAPPING_PATHS, MAPPINGS = 5, 6, 7, 16, 17, 19


def libc_interned():
    """main -> malloc_wrapper in /system/libc.so (build id "ab"), and a
    second callstack main -> other."""
    return interned_packet(
        (FUNCTION_NAMES, istr(1, 'main')), (FUNCTION_NAMES, istr(2, 'malloc_wrapper')),
        (FUNCTION_NAMES, istr(3, 'other')),
        (BUILD_IDS, istr(1, b'\xab\x01')),
        (MAPPING_PATHS, istr(1, 'system')), (MAPPING_PATHS, istr(2, 'libc.so')),
        (MAPPINGS, mapping(1, build_id=1, paths=(1, 2), start=4096, end=8192)),
        (FRAMES, frame(1, 1, 1, 0x10)), (FRAMES, frame(2, 2, 1, 0x20, kind=1)),
        (FRAMES, frame(3, 3, 1, 0x30)),
        (CALLSTACKS, callstack(1, 1, 2)), (CALLSTACKS, callstack(2, 1, 3)))


def clock_snapshot(boottime, monotonic_coarse):
    """A ClockSnapshot: BOOTTIME (trace time) `boottime` is
    MONOTONIC_COARSE (heap dump times) `monotonic_coarse`."""
    clocks = (pb_bytes(1, pb_int(1, 6) + pb_int(2, boottime)) +
              pb_bytes(1, pb_int(1, 4) + pb_int(2, monotonic_coarse)))
    return pb_packet(pb_int(8, boottime), pb_bytes(6, clocks))


class ProfilesTest(e.TempDirTest):
    def trace(self, *packets, clocks=None):
        """The packets after a clock snapshot (by default: heap dump times
        are trace times)."""
        clocks = clocks or clock_snapshot(0, 0)
        return e.write_temp(self.dir, 'profile.pb', clocks + b''.join(packets))

    def test_interned_callstacks_make_mappings_frames_and_callsites(self):
        path = self.trace(libc_interned(),
                          heap_dump(100, 1, 'malloc', heap_sample(1, 8, 0, 1, 0),
                                    heap_sample(2, 4, 0, 1, 0)))
        # the mapping: path components joined with "/", build id bytes as hex;
        # frames made on first use, kind 1 = "native"; callsites root first,
        # the shared root frame "main" interned once
        self.assertEqual(e.query('select id, build_id, start, "end", name '
                                 'from stack_profile_mapping', path),
                         '"id","build_id","start","end","name"\n'
                         '0,"ab01",4096,8192,"/system/libc.so"\n')
        self.assertEqual(e.query('select id, name, mapping, rel_pc, type '
                                 'from stack_profile_frame order by id', path),
                         '"id","name","mapping","rel_pc","type"\n'
                         '0,"main",0,16,"[NULL]"\n1,"malloc_wrapper",0,32,"native"\n'
                         '2,"other",0,48,"[NULL]"\n')
        self.assertEqual(e.query('select id, depth, parent_id, frame_id '
                                 'from stack_profile_callsite order by id', path),
                         '"id","depth","parent_id","frame_id"\n'
                         '0,0,"[NULL]",0\n1,1,0,1\n2,1,0,2\n')

    def test_heap_dumps_become_deltas_of_cumulative_totals(self):
        path = self.trace(
            process_tree(1), libc_interned(),
            heap_dump(100, 1, 'malloc', heap_sample(1, 10, 4, 2, 1)),
            heap_dump(200, 1, 'malloc', heap_sample(1, 30, 4, 5, 1)),
            # a total that shrinks is malformed: no row, counted
            heap_dump(300, 1, 'malloc', heap_sample(1, 20, 4, 5, 1)),
            # the same callsite on another heap has its own totals
            heap_dump(400, 1, None, heap_sample(1, 7, 0, 1, 0)))
        self.assertEqual(e.query('select ts, p.pid, heap_name, callsite_id, count, size '
                                 'from heap_profile_allocation a join process p using (upid) '
                                 'order by a.id', path),
                         '"ts","pid","heap_name","callsite_id","count","size"\n'
                         '100,1,"malloc",1,2,10\n100,1,"malloc",1,-1,-4\n'
                         '200,1,"malloc",1,3,20\n400,1,"unknown",1,1,7\n')
        self.assertEqual(e.query("select idx, value from stats "
                                 "where name = 'heapprofd_malformed_packet'", path),
                         '"idx","value"\n1,1\n')
        # heap_profile: a row per dump, the heap NULL where the dump names none
        self.assertEqual(e.query('select ts, ts_end, dur, heap_name from heap_profile '
                                 'order by id', path),
                         '"ts","ts_end","dur","heap_name"\n100,100,0,"malloc"\n'
                         '200,200,0,"malloc"\n300,300,0,"malloc"\n400,400,0,"[NULL]"\n')
        self.assertEqual(e.query("select idx, value from stats "
                                 "where name = 'heapprofd_last_profile_timestamp'", path),
                         '"idx","value"\n1,400\n')

    def test_new_callstack_ids_of_a_known_callsite_add_what_they_report(self):
        # callstack 3 interns to the same callsite as callstack 1 (main ->
        # malloc_wrapper); pid 40 is upid 1
        interned = libc_interned()
        path = self.trace(
            interned,
            interned_packet_keep((CALLSTACKS, callstack(3, 1, 2))),
            heap_dump(100, 40, 'malloc', heap_sample(1, 10, 4, 2, 1)),
            # a new id seen with a known callsite counts on top of the
            # callsite's totals: all it reports is new
            heap_dump(200, 40, 'malloc', heap_sample(3, 6, 2, 1, 1)),
            # later dumps of either id are deltas again
            heap_dump(300, 40, 'malloc', heap_sample(3, 8, 2, 2, 1)),
            # ART's heap reports allocations only: no free rows
            heap_dump(400, 40, 'com.android.art', heap_sample(2, 9, 5, 3, 2)))
        self.assertEqual(e.query('select ts, heap_name, callsite_id, count, size '
                                 'from heap_profile_allocation order by id', path),
                         '"ts","heap_name","callsite_id","count","size"\n'
                         '100,"malloc",1,2,10\n100,"malloc",1,-1,-4\n'
                         '200,"malloc",1,1,6\n200,"malloc",1,-1,-2\n'
                         '300,"malloc",1,1,2\n'
                         '400,"com.android.art",2,3,9\n')
        # the last dump's time is indexed by the dump's pid
        self.assertEqual(e.query("select idx, value from stats "
                                 "where name = 'heapprofd_last_profile_timestamp'", path),
                         '"idx","value"\n40,400\n')

    def test_profiles_widen_trace_bounds(self):
        bounds = 'select start_ts, end_ts from trace_bounds'
        # heap dumps place their rows by the dump's own clock: MONOTONIC_COARSE
        # 5 and 8 are trace times -995 and -992; before trace time 0, the
        # trace still ends at 0 at the earliest
        path = self.trace(
            process_tree(1), libc_interned(),
            heap_dump(3000, 1, 'm', heap_sample(1, 10, 0, 1, 0), dump_ts=5),
            heap_dump(3000, 1, 'm', heap_sample(1, 20, 0, 2, 0), dump_ts=8),
            clocks=clock_snapshot(0, 1000))
        self.assertEqual(e.query(bounds, path), '"start_ts","end_ts"\n-995,0\n')
        # smaps rows are events too (a lone one ends the trace 1 ns later)
        smaps = pb_bytes(2, pb_bytes(1, '/lib') + pb_int(2, 20))
        path = self.trace(pb_packet(pb_int(8, 10), pb_int(10, SEQ),
                                    pb_bytes(68, pb_int(1, 2) + smaps)))
        self.assertEqual(e.query(bounds, path), '"start_ts","end_ts"\n10,11\n')
        # so are simpleperf samples
        path = e.write_temp(self.dir, 'perf.data.pb', simpleperf(
            pb_bytes(3, pb_int(1, 1) + pb_bytes(2, '/lib/a.so') + pb_bytes(3, 'f')),
            sp_sample(2000, 11, (0x10, 1, 0)), sp_sample(5000, 11, (0x10, 1, 0))))
        self.assertEqual(e.query(bounds, path), '"start_ts","end_ts"\n2000,5000\n')

    def test_dump_time_is_monotonic_coarse_and_max_dumps_are_peaks(self):
        peak = pb_int(1, 1) + pb_int(8, 50) + pb_int(9, 3) + pb_int(3, 7) + pb_int(6, 1)
        path = self.trace(
            process_tree(1), libc_interned(),
            # the dump's own timestamp (MONOTONIC_COARSE) places it, not the
            # packet's; without orig_sampling_interval_bytes (13) the peak's
            # count (self_max_count) is not trusted: 0; frees are ignored
            heap_dump(5000, 1, 'm', peak, dump_ts=100),
            heap_dump(6000, 2, 'm', peak, dump_ts=500, extra=pb_int(13, 4096)),
            clocks=clock_snapshot(1000, 400))
        self.assertEqual(e.query('select ts, p.pid, count, size from heap_profile_allocation '
                                 'join process p using (upid) order by ts', path),
                         '"ts","pid","count","size"\n700,1,0,50\n1100,2,3,50\n')
        self.assertEqual(e.query('select ts, ts_end from heap_profile order by ts', path),
                         '"ts","ts_end"\n700,700\n1100,1100\n')
        # the stat keeps the packet's time
        self.assertEqual(e.query("select value from stats "
                                 "where name = 'heapprofd_last_profile_timestamp' "
                                 "order by value", path),
                         '"value"\n5000\n6000\n')

    def test_heap_profile_windows_and_intervals(self):
        path = self.trace(
            process_tree(1), libc_interned(),
            heap_dump(100, 1, 'malloc', heap_sample(1, 10, 4, 2, 1), heap_sample(2, 5, 0, 1, 0)),
            heap_dump(200, 1, 'malloc', heap_sample(1, 30, 14, 5, 2), heap_sample(2, 5, 5, 1, 1)),
            # a window start (field 15, MONOTONIC_COARSE) starts the heap_profile row
            heap_dump(300, 1, 'malloc', heap_sample(1, 30, 20, 5, 3), heap_sample(2, 5, 5, 1, 1),
                      extra=pb_int(15, 250)))
        self.assertEqual(e.query('select ts, ts_end, dur from heap_profile order by id', path),
                         '"ts","ts_end","dur"\n100,100,0\n200,200,0\n250,300,50\n')
        # per dump: delta the net change, allocated what was added, retained
        # the callsites' growth (callsite 2 shrinking at 200 counts 0); the
        # interval starts after the previous dump, or at the window start
        self.assertEqual(e.query('include perfetto module android.memory.heap_profile.intervals; '
                                 'select id, retained, allocated, delta, ts, dur '
                                 'from _android_heap_profile_intervals where id > 0', path),
                         '"id","retained","allocated","delta","ts","dur"\n'
                         '3,10,20,5,101,99\n6,0,0,-6,250,50\n')
        self.assertEqual(e.query('include perfetto module android.memory.heap_profile.intervals; '
                                 'select retained, allocated, delta '
                                 'from _android_heap_profile_intervals where id = 0', path),
                         '"retained","allocated","delta"\n11,15,11\n')

    def test_tmp_mappings_without_build_id_are_counted(self):
        path = self.trace(interned_packet(
            (MAPPING_PATHS, istr(1, 'data')), (MAPPING_PATHS, istr(2, 'local')),
            (MAPPING_PATHS, istr(3, 'tmp')), (MAPPING_PATHS, istr(4, 'a.out')),
            (BUILD_IDS, istr(1, b'\x01')), (FUNCTION_NAMES, istr(1, 'f')),
            (MAPPINGS, mapping(1, paths=(1, 2, 3, 4), start=1, end=2)),
            (MAPPINGS, mapping(2, build_id=1, paths=(1, 2, 3, 4), start=3, end=4)),
            (MAPPINGS, mapping(3, paths=(4,), start=5, end=6)),
            (FRAMES, frame(1, 1, 1, 0)), (FRAMES, frame(2, 1, 2, 0)), (FRAMES, frame(3, 1, 3, 0)),
            (CALLSTACKS, callstack(1, 1, 2, 3))),
            heap_dump(10, 1, 'h', heap_sample(1, 1, 0, 1, 0)))
        # only /data/local/tmp/a.out without a build id cannot be symbolized
        self.assertEqual(e.query("select value from stats "
                                 "where name = 'symbolization_tmp_build_id_not_found'", path),
                         '"value"\n1\n')

    def test_profile_packet_tables_hold_until_not_continued(self):
        tables = (pb_bytes(1, istr(1, 'f')) + pb_bytes(1, istr(2, 'lib.so')) +
                  pb_bytes(4, mapping(1, paths=(2,))) + pb_bytes(2, frame(1, 1, 1, 64)) +
                  pb_bytes(3, callstack(1, 1)))
        path = self.trace(
            heap_dump(10, 3, 'h', heap_sample(1, 5, 0, 1, 0), tables=tables, continued=True),
            heap_dump(20, 3, 'h', heap_sample(1, 9, 0, 2, 0)),
            # the first packet was not continued: its iids are gone
            heap_dump(30, 3, 'h', heap_sample(1, 12, 0, 3, 0)))
        self.assertEqual(e.query('select ts, callsite_id, count, size '
                                 'from heap_profile_allocation order by id', path),
                         '"ts","callsite_id","count","size"\n10,0,1,5\n20,0,1,4\n')
        self.assertEqual(e.query("select value from stats "
                                 "where name = 'stackprofile_invalid_callstack_id'", path),
                         '"value"\n1\n')
        self.assertEqual(e.query('select name, build_id from stack_profile_mapping', path),
                         '"name","build_id"\n"/lib.so",""\n')

    def test_empty_callstacks_count_per_sample(self):
        empty = interned_packet((CALLSTACKS, callstack(9)))
        perf = pb_packet(pb_int(8, 20), pb_int(10, SEQ),
                         pb_bytes(66, pb_int(2, 1) + pb_int(3, 1) + pb_int(4, 9)))
        path = self.trace(empty, heap_dump(10, 1, 'h', heap_sample(9, 1, 0, 1, 0),
                                           heap_sample(9, 2, 0, 2, 0)), perf)
        # each heap sample on an empty callstack is counted and dropped; a
        # perf sample on one is counted too, and kept with no callsite
        self.assertEqual(e.query("select value from stats "
                                 "where name = 'stackprofile_empty_callstack'", path),
                         '"value"\n3\n')
        self.assertEqual(e.query('select (select count(*) from heap_profile_allocation) as a, '
                                 '(select count(*) from perf_sample '
                                 'where callsite_id is null) as p', path),
                         '"a","p"\n0,1\n')

    def test_perf_samples(self):
        def perf(ts, **fields):
            numbers = {'cpu': 1, 'pid': 2, 'tid': 3, 'callstack_iid': 4, 'cpu_mode': 5,
                       'kernel_records_lost': 17}
            body = b''.join(pb_int(numbers[k], v) for k, v in fields.items())
            return pb_packet(pb_int(8, ts), pb_int(10, SEQ), pb_bytes(66, body))
        path = self.trace(
            libc_interned(),
            perf(50, cpu=2, pid=10, tid=11, callstack_iid=2, cpu_mode=2),
            perf(60, cpu=1, pid=10, tid=12, cpu_mode=1),  # no callstack: NULL callsite
            # (callsites are made on first use: main is 0, other 1)
            perf(70, cpu=1, kernel_records_lost=5))       # data loss: a stat per cpu, no sample
        self.assertEqual(e.query('select ts, t.tid, p.pid, cpu, cpu_mode, callsite_id, '
                                 'perf_session_id from perf_sample s join thread t using '
                                 '(utid) join process p using (upid) order by ts', path),
                         '"ts","tid","pid","cpu","cpu_mode","callsite_id","perf_session_id"\n'
                         '50,11,10,2,"user",1,0\n60,12,10,1,"kernel","[NULL]",0\n')
        self.assertEqual(e.query("select idx, value from stats "
                                 "where name = 'perf_cpu_lost_records'", path),
                         '"idx","value"\n1,5\n')

    def test_perf_sample_threads_and_intrinsic_contexts(self):
        def perf(ts, pid, tid, cpu_mode):
            body = pb_int(1, 0) + pb_int(2, pid) + pb_int(3, tid) + pb_int(5, cpu_mode)
            return pb_packet(pb_int(8, ts), pb_int(10, SEQ), pb_bytes(66, body))
        path = self.trace(perf(10, 1, 42, 2), perf(20, 1, 43, 1))
        # a process new to the trace gets its main thread first
        self.assertEqual(e.query('select utid, tid, upid, is_main_thread from thread', path),
                         '"utid","tid","upid","is_main_thread"\n0,0,0,1\n1,1,1,1\n'
                         '2,42,1,0\n3,43,1,0\n')
        # Perfetto's intrinsic names of the samples' contexts (every row,
        # those of samples without callstack too)
        self.assertEqual(e.query('select * from __intrinsic_profiler_task_context', path),
                         '"id","upid","utid","async_context_id"\n0,1,2,"[NULL]"\n'
                         '1,1,3,"[NULL]"\n')
        self.assertEqual(e.query('select * from __intrinsic_profiler_execution_context', path),
                         '"id","ucpu","cpu_mode"\n0,0,"user"\n1,0,"kernel"\n')
        self.assertEqual(e.query('select count(*) as n from stack_sample_execution_context',
                                 path), '"n"\n0\n')

    def test_skipped_perf_samples_are_still_samples(self):
        def perf(ts, reason):
            body = pb_int(1, 0) + pb_int(2, 10) + pb_int(3, 11) + pb_int(18, reason)
            return pb_packet(pb_int(8, ts), pb_int(10, SEQ), pb_bytes(66, body))
        # reasons: 1 read stage and 2 unwind stage count perf_samples_skipped,
        # 3 unwind enqueue perf_samples_skipped_dataloss, 4 not in scope nothing
        path = self.trace(perf(10, 1), perf(20, 2), perf(30, 3), perf(40, 4))
        self.assertEqual(e.query('select ts, callsite_id from perf_sample order by ts', path),
                         '"ts","callsite_id"\n10,"[NULL]"\n20,"[NULL]"\n30,"[NULL]"\n'
                         '40,"[NULL]"\n')
        self.assertEqual(e.query("select name, value from stats where name like "
                                 "'perf_samples_skipped%' order by name", path),
                         '"name","value"\n"perf_samples_skipped",2\n'
                         '"perf_samples_skipped_dataloss",1\n')

    def test_streaming_samples_on_empty_or_unknown_callstacks_are_parser_errors(self):
        thread = pb_bytes(44, pb_int(1, 20) + pb_int(2, 21) + pb_int(6, 1000))
        # callstack 9 is empty, 77 unknown: both samples dropped
        samples = pb_bytes(54, pb_int(1, 9) + pb_int(1, 77) + pb_int(2, 5) + pb_int(2, 3))
        path = self.trace(interned_packet((CALLSTACKS, callstack(9))),
                          pb_packet(pb_int(10, SEQ), thread), pb_packet(pb_int(10, SEQ), samples))
        self.assertEqual(e.query("select name, value from stats where value > 0 and name "
                                 "like 'stackprofile%' order by name; "
                                 "select count(*) from cpu_profile_stack_sample", path),
                         '"name","value"\n"stackprofile_empty_callstack",1\n'
                         '"stackprofile_invalid_callstack_id",1\n'
                         '"stackprofile_parser_error",2\n\n"count(*)"\n0\n')

    def test_streaming_profile_samples(self):
        thread = pb_bytes(44, pb_int(1, 20) + pb_int(2, 21) + pb_int(6, 1000))
        samples = pb_bytes(54, pb_int(1, 1) + pb_int(1, 2) + pb_int(2, 5) + pb_int(2, 3))
        path = self.trace(libc_interned(),
                          pb_packet(pb_int(10, SEQ), thread),
                          pb_packet(pb_int(10, SEQ), samples))
        # reference 1000 us; the first sample at +5 us, the next 3 us later
        self.assertEqual(e.query('select ts, callsite_id, t.tid from cpu_profile_stack_sample '
                                 'join thread t using (utid) order by ts', path),
                         '"ts","callsite_id","tid"\n1005000,1,21\n1008000,2,21\n')

    def test_deobfuscation_renames_frames_by_package(self):
        app = '/data/app/com.example.app-XYZ==/base.apk'
        interned = interned_packet(
            (FUNCTION_NAMES, istr(1, 'a.b')), (MAPPING_PATHS, istr(1, app[1:])),
            (MAPPINGS, mapping(1, paths=(1,))), (MAPPINGS, mapping(2)),
            (FRAMES, frame(1, 1, 1, 8)), (FRAMES, frame(2, 1, 2, 8)),
            (CALLSTACKS, callstack(1, 1, 2)))

        def deobf(package, cls, member):
            member_msg = pb_bytes(1, 'b') + pb_bytes(2, member)
            klass = pb_bytes(1, 'a') + pb_bytes(2, cls) + pb_bytes(4, member_msg)
            return pb_packet(pb_bytes(64, pb_bytes(1, package) + pb_bytes(3, klass)))
        path = self.trace(interned, heap_dump(10, 1, 'h', heap_sample(1, 1, 0, 1, 0)),
                          deobf('com.other', 'Other', 'wrong'),
                          deobf('com.example.app', 'Foo', 'bar'))
        # the app's frame takes its package's renaming; the frame of no
        # package (its process has no app uid) none
        self.assertEqual(e.query('select m.name as map, f.deobfuscated_name from '
                                 'stack_profile_frame f join stack_profile_mapping m '
                                 'on f.mapping = m.id order by f.id', path),
                         '"map","deobfuscated_name"\n"%s","Foo.bar"\n"","[NULL]"\n' % app)

    def test_deobfuscated_members_already_qualified_stay_as_they_are(self):
        interned = interned_packet(
            (FUNCTION_NAMES, istr(1, 'a.b')), (FUNCTION_NAMES, istr(2, 'a.c')),
            (MAPPING_PATHS, istr(1, 'data/app/p-1/base.apk')), (MAPPINGS, mapping(1, paths=(1,))),
            (FRAMES, frame(1, 1, 1, 8)), (FRAMES, frame(2, 2, 1, 9)),
            (CALLSTACKS, callstack(1, 1, 2)))
        members = (pb_bytes(4, pb_bytes(1, 'b') + pb_bytes(2, 'bar')) +
                   pb_bytes(4, pb_bytes(1, 'c') + pb_bytes(2, 'com.A.baz')))
        klass = pb_bytes(1, 'a') + pb_bytes(2, 'com.B') + members
        path = self.trace(interned, heap_dump(10, 1, 'h', heap_sample(1, 1, 0, 1, 0)),
                          pb_packet(pb_bytes(64, pb_bytes(1, 'p') + pb_bytes(3, klass))))
        # a member merged in from class com.A keeps its own class
        self.assertEqual(e.query('select name, deobfuscated_name from stack_profile_frame '
                                 'order by id', path),
                         '"name","deobfuscated_name"\n"a.b","com.B.bar"\n'
                         '"a.c","com.A.baz"\n')


def simpleperf(*records):
    """A simpleperf_proto file: magic, version 1, length-prefixed records."""
    body = b''.join(len(r).to_bytes(4, 'little') + r for r in records)
    return b'SIMPLEPERF' + (1).to_bytes(2, 'little') + body + bytes(4)


def sp_sample(ts, tid, *chain):
    """A Record holding a Sample; chain entries (vaddr, file_id, symbol_id)
    leaf first."""
    entries = b''.join(pb_bytes(3, pb_int(1, v) + pb_int(2, f) + pb_int(3, s))
                       for v, f, s in chain)
    return pb_bytes(1, pb_int(1, ts) + pb_int(2, tid) + entries + pb_int(4, 1))


class SimpleperfTest(e.TempDirTest):
    def test_metadata(self):
        path = e.write_temp(self.dir, 'perf.data.pb', simpleperf(sp_sample(1000, 12)))
        out = e.query("select name, int_value, str_value from metadata where name != "
                      "'trace_uuid' order by id", path)
        self.assertEqual(out, '"name","int_value","str_value"\n'
                         '"trace_type","[NULL]","simpleperf_proto"\n'
                         '"trace_time_clock_id",3,"[NULL]"\n'
                         '"trace_size_bytes",%d,"[NULL]"\n' % os.path.getsize(path))

    def test_samples_files_and_threads(self):
        path = e.write_temp(self.dir, 'perf.data.pb', simpleperf(
            sp_sample(2000, 11, (0x10, 1, 0), (0x20, 1, 1), (0x30, 2, 0)),
            sp_sample(1000, 12, (0x10, 1, 0), (0x40, 1, -1)),
            # files and threads come after the samples that name them
            pb_bytes(3, pb_int(1, 1) + pb_bytes(2, '/lib/a.so') + pb_bytes(3, 'leaf') +
                     pb_bytes(3, 'mid')),
            pb_bytes(3, pb_int(1, 2) + pb_bytes(2, '/bin/main') + pb_bytes(3, 'main')),
            pb_bytes(4, pb_int(1, 11) + pb_int(2, 10) + pb_bytes(3, 'worker'))))
        # mappings in file order; the chain's last entry is the root; a
        # symbol_id of -1 has no name; a thread without record has no name
        self.assertEqual(e.query('select id, name from stack_profile_mapping', path),
                         '"id","name"\n0,"/lib/a.so"\n1,"/bin/main"\n')
        self.assertEqual(e.query(
            'select s.ts, t.tid, t.name as thread, p.pid, f.name, c.depth '
            'from cpu_profile_stack_sample s join thread t using (utid) '
            'left join process p using (upid) join stack_profile_callsite c '
            'on c.id = s.callsite_id join stack_profile_frame f on f.id = c.frame_id '
            'order by s.ts', path),
            '"ts","tid","thread","pid","name","depth"\n'
            '1000,12,"[NULL]","[NULL]","leaf",1\n2000,11,"worker",10,"leaf",2\n')
        self.assertEqual(e.query('select f.name, f.rel_pc from stack_profile_callsite c '
                                 'join stack_profile_frame f on f.id = c.frame_id '
                                 'where c.depth = 0 order by c.id', path),
                         # callsites are made in time order: ts 1000's first
                         '"name","rel_pc"\n"[NULL]",64\n"main",48\n')


    def test_threads_in_time_order_with_their_process_and_main_thread(self):
        # a sample's thread is made when the sample is parsed, callchain or
        # not; a Thread record is parsed at the time of the sample before
        # it, after that sample: a new process first gets its main thread;
        # a zero tid or pid makes nothing
        thread = lambda tid, pid, name: pb_bytes(4, pb_int(1, tid) + pb_int(2, pid) +
                                                 pb_bytes(3, name))
        path = e.write_temp(self.dir, 'perf.data.pb', simpleperf(
            pb_bytes(3, pb_int(1, 1) + pb_bytes(2, '/lib/a.so') + pb_bytes(3, 'f')),
            sp_sample(3000, 30), thread(40, 50, 'early'),
            sp_sample(1000, 20, (0x10, 1, 0)), thread(21, 99, 'late'),
            thread(0, 50, 'zero'), thread(22, 0, 'none'), sp_sample(2000, 21, (0x10, 1, 0))))
        self.assertEqual(e.query('select utid, tid, name, upid, is_main_thread from thread '
                                 'where utid > 0 order by utid', path),
                         '"utid","tid","name","upid","is_main_thread"\n'
                         '1,20,"[NULL]","[NULL]","[NULL]"\n2,99,"[NULL]",1,1\n'
                         '3,21,"late",1,0\n4,30,"[NULL]","[NULL]","[NULL]"\n'
                         '5,50,"[NULL]",2,1\n6,40,"early",2,0\n')

    def test_each_file_record_is_a_dummy_mapping_of_its_own(self):
        # three File records of one path: three mappings over the whole
        # address space (end -1), as the reference makes them
        record = lambda i: pb_bytes(3, pb_int(1, i) + pb_bytes(2, '/lib/a.so') + pb_bytes(3, 'f'))
        path = e.write_temp(self.dir, 'perf.data.pb', simpleperf(
            sp_sample(1000, 11, (0x10, 1, 0)), sp_sample(2000, 11, (0x10, 2, 0)),
            record(1), record(2), record(3)))
        self.assertEqual(e.query('select id, name, build_id, start, end '
                                 'from stack_profile_mapping', path),
                         '"id","name","build_id","start","end"\n0,"/lib/a.so","",0,-1\n'
                         '1,"/lib/a.so","",0,-1\n2,"/lib/a.so","",0,-1\n')
        self.assertEqual(e.query('select id, name, mapping, rel_pc from stack_profile_frame',
                                 path),
                         '"id","name","mapping","rel_pc"\n0,"f",0,16\n1,"f",1,16\n')


    def test_samples_naming_a_file_without_record_are_dropped_and_counted(self):
        path = e.write_temp(self.dir, 'perf.data.pb', simpleperf(
            pb_bytes(3, pb_int(1, 1) + pb_bytes(2, '/lib/a.so') + pb_bytes(3, 'f')),
            sp_sample(2000, 11, (0x10, 5, 0), (0x20, 6, 0)),
            sp_sample(3000, 11, (0x10, 1, 0), (0x20, 9, 0)),
            sp_sample(4000, 11, (0x10, 1, 0))))
        # one entry of no File record drops its whole sample, counted once
        self.assertEqual(e.query('select ts from cpu_profile_stack_sample', path),
                         '"ts"\n4000\n')
        self.assertEqual(e.query("select value from stats "
                                 "where name = 'simpleperf_missing_file_mapping'", path),
                         '"value"\n2\n')


class MappingNameTest(e.TempDirTest):
    def name_of(self, *parts):
        """The mapping name made of path components `parts`."""
        paths = [(MAPPING_PATHS, istr(i + 1, p)) for i, p in enumerate(parts)]
        ids = tuple(range(1, len(parts) + 1))
        path = e.write_temp(self.dir, 'm.pb', b''.join([
            clock_snapshot(0, 0), interned_packet(*paths, (FUNCTION_NAMES, istr(1, 'f')),
                            (MAPPINGS, mapping(1, paths=ids, start=1, end=2)),
                            (FRAMES, frame(1, 1, 1, 0)), (CALLSTACKS, callstack(1, 1))),
            heap_dump(100, 1, 'malloc', heap_sample(1, 8, 0, 1, 0))]))
        return e.query('select name from stack_profile_mapping', path).splitlines()[1]

    def test_build_ids_are_hex_but_breakpad_ids(self):
        def build_id_of(raw):
            path = e.write_temp(self.dir, 'b.pb', b''.join([
                clock_snapshot(0, 0), interned_packet((FUNCTION_NAMES, istr(1, 'f')), (BUILD_IDS, istr(1, raw)),
                                (MAPPINGS, mapping(1, build_id=1, start=1, end=2)),
                                (FRAMES, frame(1, 1, 1, 0)), (CALLSTACKS, callstack(1, 1))),
                heap_dump(100, 1, 'malloc', heap_sample(1, 8, 0, 1, 0))]))
            return e.query('select build_id from stack_profile_mapping', path).splitlines()[1]
        # the hex of the bytes; 33 bytes (a Breakpad module id) as written
        self.assertEqual(build_id_of(b'\xab\x01'), '"ab01"')
        self.assertEqual(build_id_of('62C88EB6127D4AF8C4C8F0E818D2F326'),
                         '"' + '62C88EB6127D4AF8C4C8F0E818D2F326'.encode().hex() + '"')
        self.assertEqual(build_id_of('62C88EB6127D4AF8C4C8F0E818D2F3260'),
                         '"62C88EB6127D4AF8C4C8F0E818D2F3260"')

    def test_components_are_joined_by_slash_and_made_absolute(self):
        # joined by "/"; a leading "/" only if the first part has none;
        # empty parts kept; no parts at all: ""
        self.assertEqual(self.name_of('system', 'libc.so'), '"/system/libc.so"')
        self.assertEqual(self.name_of('/bin/x'), '"/bin/x"')
        self.assertEqual(self.name_of('/bin', '/x'), '"/bin//x"')
        self.assertEqual(self.name_of('', 'x'), '"/x"')
        self.assertEqual(self.name_of('x', ''), '"/x/"')
        self.assertEqual(self.name_of(), '""')


# TrackEvent fields (callstack, callstack_iid, callstack weight) and the
# inline Callstack.Frame's (function_name, source_file, line_number)
TE_CALLSTACK, TE_CALLSTACK_IID, TE_WEIGHT = 55, 56, 57


def te_frame(name=None, source=None, line=None):
    return pb_bytes(1, b''.join(
        ([pb_bytes(1, name)] if name is not None else []) +
        ([pb_bytes(2, source)] if source is not None else []) +
        ([pb_int(3, line)] if line is not None else [])))


def track_event(ts, kind, *fields, seq=SEQ):
    """A TrackEvent of `kind` (1 begin, 2 end, 3 instant) on track 1."""
    body = pb_int(9, kind) + pb_int(11, 1) + b''.join(fields)
    return pb_packet(pb_int(8, ts), pb_int(10, seq), pb_bytes(11, body))


class TrackEventCallstackTest(e.TempDirTest):
    def trace(self):
        thread = pb_bytes(4, pb_int(1, 42) + pb_int(2, 43))
        return e.write_temp(self.dir, 'te.pb', b''.join([
            pb_packet(pb_int(8, 1), pb_bytes(60, pb_int(1, 1) + thread)),
            libc_interned(),
            # inline: outermost first; frames interned by (name, file, line)
            track_event(10, 1, pb_bytes(23, 'A'), e.pb_double(TE_WEIGHT, 2.5),
                        pb_bytes(TE_CALLSTACK, te_frame('main', 'm.cc', 1) +
                                 te_frame('leaf', line=7))),
            track_event(20, 2, e.pb_double(TE_WEIGHT, 9.0)),  # a weight alone: no row
            track_event(30, 1, pb_bytes(23, 'B'), pb_int(TE_CALLSTACK_IID, 1)),
            track_event(40, 2, pb_int(TE_CALLSTACK_IID, 2), e.pb_double(TE_WEIGHT, 4.0)),
            # the same function at another line is another frame
            track_event(50, 3, pb_bytes(23, 'C'),
                        pb_bytes(TE_CALLSTACK, te_frame('main', 'm.cc', 1) +
                                 te_frame('leaf', line=8))),
            track_event(60, 3, pb_bytes(23, 'D'), pb_bytes(TE_CALLSTACK, b'')),  # empty
            track_event(70, 3, pb_bytes(23, 'E'), pb_int(TE_CALLSTACK_IID, 99)),  # missing
        ]))

    def test_begin_and_end_callstacks_with_weights(self):
        path = self.trace()
        self.assertEqual(
            e.query('select s.name, c.callsite_id, c.end_callsite_id, c.weight '
                    'from __intrinsic_track_event_callstacks c '
                    'join slice s on s.id = c.slice_id order by c.id', path),
            '"name","callsite_id","end_callsite_id","weight"\n'
            '"A",1,"[NULL]",2.500000\n'
            '"B",3,"[NULL]","[NULL]"\n'
            '"B","[NULL]",4,4.000000\n'
            '"C",5,"[NULL]","[NULL]"\n')

    def test_inline_frames_have_a_mapping_and_symbols(self):
        path = self.trace()
        self.assertEqual(
            e.query('select f.id, f.name, m.name as mapping, f.rel_pc, s.source_file, '
                    's.line_number from stack_profile_frame f '
                    'join stack_profile_mapping m on m.id = f.mapping '
                    'left join stack_profile_symbol s on s.symbol_set_id = f.symbol_set_id '
                    'order by f.id', path),
            '"id","name","mapping","rel_pc","source_file","line_number"\n'
            '0,"main","track_event_inline",0,"m.cc",1\n'
            '1,"leaf","track_event_inline",0,"[NULL]",7\n'
            '2,"main","/system/libc.so",16,"[NULL]","[NULL]"\n'
            '3,"malloc_wrapper","/system/libc.so",32,"[NULL]","[NULL]"\n'
            '4,"other","/system/libc.so",48,"[NULL]","[NULL]"\n'
            '5,"leaf","track_event_inline",0,"[NULL]",8\n')
        self.assertEqual(e.query('select build_id, start, "end" from stack_profile_mapping '
                                 'where name = \'track_event_inline\'', path),
                         '"build_id","start","end"\n"",0,-1\n')

    def test_missing_and_empty_callstacks_are_counted(self):
        path = self.trace()
        self.assertEqual(
            e.query('select name, value from stats where value > 0 and name in '
                    '(\'interned_data_tokenizer_errors\', \'track_event_parser_errors\', '
                    '\'stackprofile_empty_callstack\') order by name', path),
            '"name","value"\n"interned_data_tokenizer_errors",1\n'
            '"track_event_parser_errors",1\n')


if __name__ == '__main__':
    e.main()
