"""End-to-end: V8 CPU profiles in Chrome traces (model/v8_profile.h), legacy
'P' events "Profile" and "ProfileChunk" in JSON args.data and in proto
debug annotations named "data", written here; the expected rows are worked
out by hand from Perfetto's rules: one mapping per (session id, pid),
frames interned per mapping by (functionName, url), callsites under the
explicit parent or the node that listed them as children, samples at the
session's running time on the event's thread, in timestamp order."""

import json

import weft_e2e as e
from weft_e2e import pb_bytes, pb_int, pb_packet


def node(nid, name, url=None, parent=None, children=None):
    frame = {'functionName': name, 'scriptId': 0, 'lineNumber': -1}
    if url is not None:
        frame['url'] = url
    n = {'id': nid, 'callFrame': frame}
    if parent is not None:
        n['parent'] = parent
    if children is not None:
        n['children'] = children
    return n


def chunk_data(nodes, samples, deltas):
    return {'cpuProfile': {'nodes': nodes, 'samples': samples}, 'timeDeltas': deltas}


def p_event(name, sid, tid, ts, data, pid=1):
    return {'ph': 'P', 'cat': 'disabled-by-default-v8.cpu_profiler', 'name': name,
            'id': sid, 'pid': pid, 'tid': tid, 'ts': ts, 'args': {'data': data}}


# File order: session 0x1 (tid 2) starts at 1000 us, session 2 (tid 3) at
# 500 us; session 2's chunk comes first in the file.
JSON_EVENTS = [
    p_event('Profile', '0x1', 2, 1000, {'startTime': 1000}),
    p_event('Profile', 2, 3, 1001, {'startTime': 500}),
    p_event('ProfileChunk', 2, 3, 1050, chunk_data([node(1, '(root)', url='')], [1, 1], [1, 2])),
    p_event('ProfileChunk', '0x1', 2, 1100, chunk_data([
        node(1, '(root)', children=[2]),          # 2's parent, by its children
        node(2, 'foo', url='a.js'),
        node(3, 'bar', url='a.js', parent=2),
        node(4, 'lost', parent=7),                # unknown parent: invalid callsite
    ], [2, 3, 9], [10, 5, 5])),                   # 9: invalid sample (time still moves)
    p_event('ProfileChunk', '0x1', 2, 1200, chunk_data(
        [node(3, 'bar', url='a.js', parent=2)],   # an id the session has: invalid
        [1], [100])),
    p_event('ProfileChunk', '0x1', 2, 1300, chunk_data([], [1, 1], [1])),  # lengths differ
    p_event('ProfileChunk', '0x9', 2, 1400, chunk_data([node(1, 'x')], [1], [1])),  # no session
    p_event('ProfileChunk', 'zz', 2, 1500, chunk_data([], [], [])),  # id not hex
]


class JsonProfileTest(e.TempDirTest):
    def load(self, sql, events=JSON_EVENTS):
        path = e.write_temp(self.dir, 'trace.json', json.dumps({'traceEvents': events}))
        return e.query(sql, path).splitlines()[1:]

    def test_one_mapping_per_session(self):
        self.assertEqual(self.load('select * from stack_profile_mapping'), [
            '0,"",0,0,0,-1,0,""',
            '1,"",0,0,0,-1,0,""',
        ])

    def test_frames_and_symbols(self):
        # session 2's chunk (mapping 1) is read first: frames in file order;
        # a repeated (name, url) on a mapping is one frame
        self.assertEqual(self.load(
            'select f.id, f.name, f.mapping, f.rel_pc, f.symbol_set_id, s.name, s.source_file '
            'from stack_profile_frame f join stack_profile_symbol s '
            'on s.symbol_set_id = f.symbol_set_id order by f.id'), [
            '0,"(root)",1,0,0,"(root)","[NULL]"',
            '1,"(root)",0,0,1,"(root)","[NULL]"',
            '2,"foo",0,0,2,"foo","a.js"',
            '3,"bar",0,0,3,"bar","a.js"',
            '4,"lost",0,0,4,"lost","[NULL]"',
        ])

    def test_callsites_follow_parents_and_children(self):
        self.assertEqual(self.load('select * from stack_profile_callsite'), [
            '0,0,"[NULL]",0',
            '1,0,"[NULL]",1',
            '2,1,1,2',
            '3,2,2,3',
        ])

    def test_samples_in_time_order_on_their_thread(self):
        self.assertEqual(self.load(
            'select s.ts, s.callsite_id, t.tid, s.process_priority '
            'from cpu_profile_stack_sample s join thread t using (utid) order by s.id'), [
            '501000,0,3,0',
            '503000,0,3,0',
            '1010000,2,2,0',
            '1015000,3,2,0',
            '1120000,1,2,0',
        ])

    def test_sample_threads_are_made_at_sample_time(self):
        # tid 3's samples (from 501 us) come before tid 2's (from 1010 us),
        # whatever the order or time of the P events themselves
        self.assertEqual(self.load('select tid from thread where tid in (2, 3) order by utid'),
                         ['3', '2'])

    def test_invalid_nodes_samples_and_chunks_are_counted(self):
        self.assertEqual(self.load(
            "select name, value from stats where name in ("
            "'legacy_v8_cpu_profile_invalid_callsite', 'legacy_v8_cpu_profile_invalid_sample', "
            "'json_tokenizer_failure') order by name"), [
            '"json_tokenizer_failure",3',
            '"legacy_v8_cpu_profile_invalid_callsite",3',
            '"legacy_v8_cpu_profile_invalid_sample",1',
        ])

    def profile(self, nodes, samples, deltas, start=10):
        events = [p_event('Profile', 1, 1, 1, {'startTime': start}),
                  p_event('ProfileChunk', 1, 1, 2, chunk_data(nodes, samples, deltas))]
        return self.load('select ts, callsite_id from cpu_profile_stack_sample', events)

    def test_numbers_are_read_as_perfetto_reads_them(self):
        nodes = [node(1, 'r'), node(2, 'a', parent=1)]
        # fractions are truncated (startTime 1.5 -> 1 us, 1.9 -> 1 us, node 2.0 -> 2)
        self.assertEqual(self.profile(nodes, [2.0, 1], [1.9, 1], start=1.5),
                         ['2000,1', '3000,0'])
        # startTime * 1000 and delta * 1000 wrap around 2^64
        self.assertEqual(self.profile(nodes, [1], [1], start=-(2 ** 63 - 1)), ['2000,0'])
        self.assertEqual(self.profile(nodes, [1, 1], [2 ** 63 - 1, 1]), ['9000,0', '10000,0'])

    def test_malformed_profiles(self):
        nodes = [node(1, 'r'), node(2, 'a', parent=1)]
        # a nested array among the nodes: the whole profile is ignored
        self.assertEqual(self.profile([[2]] + nodes, [1], [1]), [])
        # scalars among the nodes are skipped; a negative sample empties the
        # samples (then their count differs from the deltas')
        self.assertEqual(self.profile([1, 'x'] + nodes, [1, 2], [1, 1]), ['11000,0', '12000,1'])
        self.assertEqual(self.profile(nodes, [1, -2], [1, 1]), [])

    def test_profile_events_are_not_slices(self):
        self.assertEqual(self.load('select count(*) from slice'), ['0'])


# Proto field numbers.
TIMESTAMP, SEQ, TRACK_EVENT, SEQ_FLAGS, INTERNED, THREAD, SNAPSHOT = 8, 10, 11, 13, 12, 44, 6
BOOTTIME, MONOTONIC = 6, 3
ANNOTATION, LEGACY = 4, 6
PHASE, UNSCOPED_ID = 2, 6
DATA_IID, OTHER_IID = 1, 2


def proto_start():
    names = (pb_bytes(3, pb_int(1, DATA_IID) + pb_bytes(2, 'data')) +
             pb_bytes(3, pb_int(1, OTHER_IID) + pb_bytes(2, 'other')))
    return pb_packet(pb_int(TIMESTAMP, 1), pb_int(SEQ, 1), pb_int(SEQ_FLAGS, 1),
                     pb_bytes(INTERNED, names),
                     pb_bytes(THREAD, pb_int(1, 10) + pb_int(2, 11)))


def clock_snapshot():
    """CLOCK_MONOTONIC 0 is trace time (BOOTTIME) 5 ms."""
    clocks = (pb_bytes(1, pb_int(1, BOOTTIME) + pb_int(2, 5000000)) +
              pb_bytes(1, pb_int(1, MONOTONIC) + pb_int(2, 0)))
    return pb_packet(pb_int(SEQ, 2), pb_bytes(SNAPSHOT, clocks))


def proto_p(ts, sid, profile, iid=DATA_IID):
    ann = pb_bytes(ANNOTATION, pb_int(1, iid) + pb_bytes(9, json.dumps(profile)))
    legacy = pb_bytes(LEGACY, pb_int(PHASE, ord('P')) + pb_int(UNSCOPED_ID, sid))
    return pb_packet(pb_int(TIMESTAMP, ts), pb_int(SEQ, 1),
                     pb_bytes(TRACK_EVENT, ann + legacy))


class ProtoProfileTest(e.TempDirTest):
    def load(self, sql, snapshot=True):
        packets = [
            clock_snapshot() if snapshot else b'',
            proto_start(),
            proto_p(2000000, 5, {'startTime': 1000}),
            proto_p(2100000, 5, chunk_data([node(1, '(root)'), node(2, 'f', url='b.js', parent=1)],
                                           [2, 1], [3, 4])),
            proto_p(2200000, 5, chunk_data([], [1], [1, 2])),          # lengths differ
            proto_p(2300000, 5, chunk_data([], [1], [1]), iid=OTHER_IID),  # not "data"
        ]
        path = e.write_temp(self.dir, 'trace.pb', b''.join(packets))
        return e.query(sql, path).splitlines()[1:]

    def test_samples_on_the_sequence_thread(self):
        self.assertEqual(self.load(
            'select s.ts, s.callsite_id, t.tid, p.pid from cpu_profile_stack_sample s '
            'join thread t using (utid) join process p using (upid) order by s.id'), [
            '6003000,1,11,10',
            '6007000,0,11,10',
        ])

    def test_start_time_is_monotonic(self):
        # without a snapshot relating CLOCK_MONOTONIC, the Profile cannot
        # start its session: its chunks' nodes and samples are invalid
        self.assertEqual(self.load(
            "select name, value from stats where name like 'legacy_v8%' order by name",
            snapshot=False), [
            '"legacy_v8_cpu_profile_invalid_callsite",2',
            '"legacy_v8_cpu_profile_invalid_sample",3',
        ])
        self.assertEqual(self.load('select count(*) from cpu_profile_stack_sample',
                                   snapshot=False), ['0'])

    def test_frames_callsites_and_stats(self):
        self.assertEqual(self.load(
            'select f.name, f.mapping, s.source_file, c.depth, c.parent_id '
            'from stack_profile_callsite c join stack_profile_frame f on f.id = c.frame_id '
            'join stack_profile_symbol s on s.symbol_set_id = f.symbol_set_id order by c.id'), [
            '"(root)",0,"[NULL]",0,"[NULL]"',
            '"f",0,"b.js",1,0',
        ])
        self.assertEqual(self.load(
            "select value from stats where name = 'legacy_v8_cpu_profile_invalid_sample'"), ['1'])


if __name__ == '__main__':
    e.main()
