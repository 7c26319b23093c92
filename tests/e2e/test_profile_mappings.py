"""End-to-end: a sequence's interned mappings resolve per process
(proto_profile.c, pp_resolver.owner). A mapping with an address range that
a sample of a process (perf, heap dump, streaming profile, StackSample, or
a track event on the process's tracks) resolves is that process's own row,
so its frames and callsites are too; a mapping with an empty range, a
ProfilePacket's own tables and events on global tracks share one row.
Each expected answer is Perfetto's trace_processor_shell's on the same
trace."""
import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet
import test_stack_sample as stack_sample

TABLES = ("select 'map', id, name, start, end from stack_profile_mapping;"
          "select 'frame', id, name, mapping, rel_pc from stack_profile_frame;"
          "select 'cs', id, depth, parent_id, frame_id from stack_profile_callsite;")
# InternedData fields
FUNCTION_NAMES, FRAMES, CALLSTACKS, MAPPING_PATHS, MAPPINGS = 5, 6, 7, 17, 19


def istr(iid, s):
    return pb_int(1, iid) + pb_bytes(2, s)


def stacks(start=4096, end=8192):
    """InternedData (number, message) pairs: libc.so over [start, end),
    frames main (pc 16) and leaf (pc 32); callstack 1 is main -> leaf,
    callstack 2 main alone."""
    return [(FUNCTION_NAMES, istr(1, 'main')), (FUNCTION_NAMES, istr(2, 'leaf')),
            (MAPPING_PATHS, istr(1, 'libc.so')),
            (MAPPINGS, pb_int(1, 1) + pb_int(4, start) + pb_int(5, end) + pb_int(7, 1)),
            (FRAMES, pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 1) + pb_int(4, 16)),
            (FRAMES, pb_int(1, 2) + pb_int(2, 2) + pb_int(3, 1) + pb_int(4, 32)),
            (CALLSTACKS, pb_int(1, 1) + pb_int(2, 1) + pb_int(2, 2)),
            (CALLSTACKS, pb_int(1, 2) + pb_int(2, 1))]


def interned(seq, start=4096, end=8192):
    """A packet clearing sequence seq's state with stacks()."""
    data = b''.join(pb_bytes(n, m) for n, m in stacks(start, end))
    return pb_packet(pb_int(8, 1), pb_int(10, seq), pb_int(13, 1), pb_bytes(12, data))


def perf(seq, ts, pid, callstack):
    body = pb_int(1, 0) + pb_int(2, pid) + pb_int(3, pid + 1) + pb_int(4, callstack)
    return pb_packet(pb_int(8, ts), pb_int(10, seq), pb_int(13, 2), pb_bytes(66, body))


def clocks(boottime, monotonic_coarse):
    c = (pb_bytes(1, pb_int(1, 6) + pb_int(2, boottime)) +
         pb_bytes(1, pb_int(1, 4) + pb_int(2, monotonic_coarse)))
    return pb_packet(pb_int(8, boottime), pb_bytes(6, c))


def heap_dumps(ts, seq, pids, tables=b''):
    """A ProfilePacket with a dump of each pid: 100 bytes at callstack 1."""
    sample = pb_int(1, 1) + pb_int(2, 100) + pb_int(3, 0) + pb_int(5, 1) + pb_int(6, 0)
    dumps = b''.join(pb_bytes(5, pb_int(1, pid) + pb_int(9, ts) + pb_bytes(2, sample))
                     for pid in pids)
    return pb_packet(pb_int(8, ts), pb_int(10, seq), pb_bytes(37, tables + dumps + pb_int(6, 0)))


def track_event(seq, uuid, descriptor, ts):
    """A track descriptor then an instant on it with callstack_iid 1."""
    desc = pb_packet(pb_int(10, seq), pb_bytes(60, pb_int(1, uuid) + descriptor))
    event = pb_bytes(11, pb_int(9, 3) + pb_int(11, uuid) + pb_bytes(23, 'ev') + pb_int(56, 1))
    return desc + pb_packet(pb_int(8, ts), pb_int(10, seq), pb_int(13, 2), event)


ONE_MAPPING = ('"map",0,"/libc.so",4096,8192\n',
               '"frame",0,"main",0,16\n"frame",1,"leaf",0,32\n',
               '"cs",0,0,"[NULL]",0\n"cs",1,1,0,1\n')
TWO_MAPPINGS = ('"map",0,"/libc.so",4096,8192\n"map",1,"/libc.so",4096,8192\n',
                '"frame",0,"main",0,16\n"frame",1,"leaf",0,32\n'
                '"frame",2,"main",1,16\n"frame",3,"leaf",1,32\n',
                '"cs",0,0,"[NULL]",0\n"cs",1,1,0,1\n"cs",2,0,"[NULL]",2\n"cs",3,1,2,3\n')


class ProfileMappingsTest(e.TempDirTest):
    def tables(self, data, sql=TABLES):
        path = e.write_temp(self.dir, 'trace.pb', data)
        return e.query(sql, path)

    def expect(self, data, mappings, frames, callsites, more_sql='', more=''):
        out = self.tables(data, TABLES + more_sql)
        self.assertEqual(out, '"\'map\'","id","name","start","end"\n' + mappings +
                         '\n"\'frame\'","id","name","mapping","rel_pc"\n' + frames +
                         '\n"\'cs\'","id","depth","parent_id","frame_id"\n' + callsites +
                         more)

    def test_perf_samples_of_two_processes_have_a_mapping_each(self):
        self.expect(interned(1) + perf(1, 10, 10, 1) + perf(1, 20, 20, 1) +
                    perf(1, 30, 10, 2) + perf(1, 40, 20, 2), *TWO_MAPPINGS,
                    more_sql='select ts, callsite_id, utid from perf_sample;',
                    more='\n"ts","callsite_id","utid"\n10,1,2\n20,3,4\n30,0,2\n40,2,4\n')

    def test_a_mapping_with_an_empty_range_is_shared(self):
        shared = ('"map",0,"/libc.so",0,0\n',) + ONE_MAPPING[1:]
        self.expect(interned(1, 0, 0) + perf(1, 10, 10, 1) + perf(1, 20, 20, 1), *shared)
        self.expect(interned(1, 0, 0) + interned(2, 0, 0) + perf(1, 10, 10, 1) +
                    perf(2, 20, 20, 1), *shared)
        same_ends = ('"map",0,"/libc.so",4096,4096\n',) + ONE_MAPPING[1:]
        self.expect(interned(1, 4096, 4096) + perf(1, 10, 10, 1) + perf(1, 20, 20, 1),
                    *same_ends)

    def test_each_sequence_and_each_generation_resolves_anew(self):
        # one process, the same mapping on two sequences: two rows
        self.expect(interned(1) + interned(2) + perf(1, 10, 10, 1) + perf(2, 20, 10, 1),
                    *TWO_MAPPINGS)
        # one sequence whose state is cleared in between: two rows
        self.expect(interned(1) + perf(1, 10, 10, 1) + interned(1) + perf(1, 20, 10, 1),
                    *TWO_MAPPINGS)

    def test_heap_dumps_resolve_in_their_process(self):
        self.expect(clocks(1, 1) + interned(1) + heap_dumps(10, 1, [10, 20]), *TWO_MAPPINGS,
                    more_sql='select ts, upid, callsite_id, count, size '
                             'from heap_profile_allocation;',
                    more='\n"ts","upid","callsite_id","count","size"\n'
                         '10,1,1,1,100\n10,2,3,1,100\n')

    def test_a_profile_packets_own_tables_are_shared(self):
        tables = (pb_bytes(1, istr(1, 'main')) + pb_bytes(1, istr(2, 'libc.so')) +
                  pb_bytes(4, pb_int(1, 1) + pb_int(4, 4096) + pb_int(5, 8192) + pb_int(7, 2)) +
                  pb_bytes(2, pb_int(1, 1) + pb_int(2, 1) + pb_int(3, 1) + pb_int(4, 16)) +
                  pb_bytes(3, pb_int(1, 1) + pb_int(2, 1)))
        self.expect(clocks(1, 1) + heap_dumps(10, 1, [10, 20], tables),
                    '"map",0,"/libc.so",4096,8192\n', '"frame",0,"main",0,16\n',
                    '"cs",0,0,"[NULL]",0\n')

    def test_streaming_profiles_of_one_process_on_two_sequences(self):
        def stream(seq, pid):
            thread = pb_bytes(44, pb_int(1, pid) + pb_int(2, pid + 1) + pb_int(6, 1000))
            samples = pb_bytes(54, pb_int(1, 1) + pb_int(2, 5))
            return (pb_packet(pb_int(10, seq), thread) +
                    pb_packet(pb_int(10, seq), pb_int(13, 2), samples))
        self.expect(interned(1) + interned(2) + stream(1, 10) + stream(2, 10), *TWO_MAPPINGS,
                    more_sql='select ts, callsite_id, utid from cpu_profile_stack_sample;',
                    more='\n"ts","callsite_id","utid"\n1005000,1,2\n1005000,3,2\n')

    def test_track_events_resolve_in_their_tracks_process(self):
        thread = pb_bytes(4, pb_int(1, 10) + pb_int(2, 11))
        process = pb_bytes(3, pb_int(1, 10))
        for desc in (thread, process):
            self.expect(interned(1) + interned(2) + track_event(1, 101, desc, 10) +
                        track_event(2, 102, desc, 20), *TWO_MAPPINGS)
        # a child of a process track is in the process too
        self.expect(interned(1) + interned(2) + track_event(1, 201, process, 5) +
                    track_event(1, 203, pb_int(5, 201) + pb_bytes(2, 'child'), 10) +
                    track_event(2, 204, pb_int(5, 201) + pb_bytes(2, 'child2'), 20),
                    *TWO_MAPPINGS)
        # global tracks have no process, even on a sequence with a thread
        thread_desc = b''.join(pb_packet(pb_int(10, s), pb_bytes(44, pb_int(1, 10) +
                                                                 pb_int(2, 11)))
                               for s in (1, 2))
        self.expect(interned(1) + interned(2) + thread_desc +
                    track_event(1, 301, pb_bytes(2, 'g1'), 10) +
                    track_event(2, 302, pb_bytes(2, 'g2'), 20), *ONE_MAPPING)

    def test_stack_samples_resolve_in_their_tasks_process(self):
        ss = stack_sample
        fields = stacks() + [(ss.TASK_CONTEXTS, pb_int(1, 1) + ss.task(10, 11)),
                             (ss.TASK_CONTEXTS, pb_int(1, 2) + ss.task(20, 21))]
        setup = ss.interned(*fields, more=ss.defaults('py.wall', ss.descriptor('wall', unit=1)))
        self.expect(setup + ss.sample(10, pb_int(2, 1), pb_int(6, 1)) +
                    ss.sample(20, pb_int(2, 2), pb_int(6, 1)), *TWO_MAPPINGS)


if __name__ == '__main__':
    e.main()
