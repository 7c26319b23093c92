"""End-to-end: Firefox Profiler (Gecko) profiles (src/import/gecko): markers
as slices on per-(thread, category, name) tracks, their data as args, the
threads made in the order of their first event, and a profile pinned to a
proto trace by a merge."""
import json
import os

import weft_e2e as e

CATEGORIES = [{'name': 'Other', 'color': 'grey'}, {'name': 'DOM', 'color': 'blue'}]


def thread(name, tid, pid, markers, sample_times=()):
    """A processed-format thread; markers: (name, start, end, phase,
    category index, data) tuples."""
    strings, cols = [], {k: [] for k in ('name', 'startTime', 'endTime', 'phase',
                                         'category', 'data')}
    for m_name, start, end, phase, cat, data in markers:
        if m_name not in strings:
            strings.append(m_name)
        for k, v in zip(cols, (strings.index(m_name), start, end, phase, cat, data)):
            cols[k].append(v)
    cols['length'] = len(markers)
    return {'name': name, 'tid': tid, 'pid': pid, 'stringArray': strings,
            'frameTable': {'func': []}, 'funcTable': {'name': []},
            'stackTable': {'prefix': [], 'frame': []},
            'samples': {'stack': [None] * len(sample_times), 'time': list(sample_times)},
            'markers': cols}


def profile(*threads):
    return json.dumps({'meta': {'categories': CATEGORIES}, 'threads': list(threads)})


class GeckoTest(e.TempDirTest):
    def load(self, text, sql, *options):
        path = e.write_temp(self.dir, 'p.json', text)
        return e.query(sql, path, options=options)

    def test_overlapping_intervals_are_dropped_and_lengths_read_in_ms(self):
        # An interval ending after the one open around it on its track (a
        # name's) is dropped, with its data (as Perfetto drops such complete
        # slices); another name's is on a track of its own; a duration is the interval's
        # length in ms times 10^6, truncated (here one less than the
        # difference of the truncated start and end).
        text = profile(thread('main', 1, 1, [
            ('A', 0.0, 5.0, 1, 0, {'k': 1}), ('A', 1.0, 7.0, 1, 0, {'k': 2}),
            ('B', 1.0, 7.0, 1, 0, None), ('A', 6.0, 6.0, 0, 0, None),
            ('D', 10.497832591105372, 21.58581738006626, 1, 0, None)]))
        out = self.load(text, "select name, ts, dur, depth from slice order by ts; "
                        "select value from stats where name = "
                        "'slice_drop_overlapping_complete_event'; "
                        "select count(*) from args where key glob 'data.*'")
        self.assertEqual(out, '"name","ts","dur","depth"\n"A",0,5000000,0\n'
                         '"B",1000000,6000000,0\n"A",6000000,0,0\n'
                         '"D",10497832,11087984,0\n\n"value"\n1\n\n"count(*)"\n1\n')

    def test_marker_phases_make_slices(self):
        text = profile(thread('main', 100, 100, [
            ('Click', 10.0, 10.0, 0, 0, {'flow': 7}),      # instant
            ('Boot', 20.0, 25.0, 1, 0, None),              # interval
            ('DOMEvent', 30.0, 0.0, 2, 1, {'target': 'btn'}),  # start ...
            ('DOMEvent', 0.0, 35.0, 3, 1, {'extra': 1}),   # ... and end
            ('Back', 40.0, 39.0, 1, 0, None),              # end before start: 0
        ]))
        out = self.load(text, 'select s.ts, s.dur, s.category, s.name, t.type, '
                        "extract_arg(s.arg_set_id, 'data.flow') as flow, "
                        "extract_arg(s.arg_set_id, 'data.target') as target, "
                        "extract_arg(s.arg_set_id, 'data.extra') as extra "
                        'from slice s join thread_track t on s.track_id = t.id order by s.ts')
        self.assertEqual(out.splitlines()[1:], [
            '10000000,0,"Other","Click","firefox_marker",7,"[NULL]","[NULL]"',
            '20000000,5000000,"Other","Boot","firefox_marker","[NULL]","[NULL]","[NULL]"',
            '30000000,5000000,"DOM","DOMEvent","firefox_marker","[NULL]","btn",1',
            '40000000,0,"Other","Back","firefox_marker","[NULL]","[NULL]","[NULL]"'])

    def test_one_track_per_thread_category_and_name(self):
        text = profile(thread('main', 1, 1, [
            ('A', 1.0, 4.0, 1, 0, None), ('A', 2.0, 3.0, 1, 0, None),  # nested
            ('A', 5.0, 6.0, 1, 1, None), ('B', 7.0, 8.0, 1, 0, None)]))
        out = self.load(text, 'select t.name, '
                        "extract_arg(t.dimension_arg_set_id, 'firefox_marker_category') as c, "
                        "extract_arg(t.dimension_arg_set_id, 'firefox_marker_name') as n, "
                        "extract_arg(t.dimension_arg_set_id, 'utid') as utid, "
                        'group_concat(s.depth) as depths '
                        'from track t join slice s on s.track_id = t.id group by t.id '
                        'order by t.id')
        self.assertEqual(out.splitlines()[1:], ['"A","Other","A",1,"0,1"',
                                                '"A","DOM","A",1,"0"',
                                                '"B","Other","B",1,"0"'])

    def test_marker_data_flattened_into_args(self):
        text = profile(thread('main', 1, 1, [
            ('M', 1.0, 2.0, 1, 0, {'a': 1, 'b': 'x', 'c': 1.5, 'd': True, 'e': [1, None, 2],
                                   'f': {'g': 2}})]))
        out = self.load(text, 'select key, value_type, display_value from args '
                        "where key glob 'data.*' order by key")
        self.assertEqual(out.splitlines()[1:], [
            '"data.a","int","1"', '"data.b","string","x"', '"data.c","real","1.5"',
            '"data.d","bool","true"', '"data.e[0]","int","1"', '"data.e[1]","int","2"',
            '"data.f.g","int","2"'])

    def test_threads_made_in_order_of_first_event(self):
        # The worker's marker (2 ms) is earlier than the main thread's (5 ms)
        # but the main thread's first sample (1 ms) is earlier still; the
        # worker's process gets its main thread as well.
        text = profile(thread('GeckoMain', 10, 10, [('A', 5.0, 9.0, 1, 0, None)],
                              sample_times=(1.0, 2.0)),
                       thread('Worker', 20, 11, [('w', 2.0, 3.0, 1, 0, None)]))
        out = self.load(text, 'select utid, tid, name, upid, is_main_thread from thread '
                        'order by utid')
        self.assertEqual(out.splitlines()[1:], [
            '0,0,"[NULL]",0,1', '1,10,"GeckoMain",1,1', '2,11,"[NULL]",2,1',
            '3,20,"Worker",2,0'])

    def test_missing_times_are_dropped_and_counted(self):
        text = profile(thread('main', 1, 1, [
            ('ok', 1.0, 2.0, 1, 0, None),
            ('no_start', None, 2.0, 1, 0, None),
            ('no_end', 1.0, None, 1, 0, None),
            ('end_only', None, None, 3, 0, None)]))
        out = self.load(text, "select (select group_concat(name) from slice) as names, "
                        "(select value from stats where name = 'gecko_marker_dropped') "
                        'as dropped')
        self.assertEqual(out, '"names","dropped"\n"ok",3\n')

    def test_gecko_format_rows_and_child_processes(self):
        schema = {'name': 0, 'startTime': 1, 'endTime': 2, 'phase': 3, 'category': 4,
                  'data': 5}
        child = {'meta': {'categories': [{'name': 'Net'}]}, 'threads': [
            {'name': 'Child', 'tid': 7, 'pid': 6, 'stringTable': ['Req'],
             'markers': {'schema': schema, 'data': [[0, 1.0, 2.0, 1, 0, None]]}}]}
        text = json.dumps({'meta': {'categories': CATEGORIES}, 'threads': [
            {'name': 'GeckoMain', 'tid': '5', 'pid': '5', 'stringTable': ['Paint'],
             'markers': {'schema': schema, 'data': [[0, 1.5, 2.5, 1, 1, {'x': 1}]]}}],
            'processes': [child]})
        out = self.load(text, 'select s.ts, s.dur, s.category, s.name, t.tid, '
                        "extract_arg(s.arg_set_id, 'data.x') as x from slice s "
                        'join thread_track tt on s.track_id = tt.id join thread t using(utid) '
                        'order by s.ts')
        self.assertEqual(out.splitlines()[1:], ['1000000,1000000,"Net","Req",7,"[NULL]"',
                                                '1500000,1000000,"DOM","Paint",5,1'])

    def test_members_in_any_order(self):
        # "threads" before "meta", "stringArray" and "tid" after "markers",
        # a "schema" after its rows, child "processes" before "threads":
        # read the same as in the usual order.
        schema = {'name': 0, 'startTime': 1, 'endTime': 2, 'phase': 3, 'category': 4,
                  'data': 5}
        child = {'threads': [{'markers': {'data': [[0, 3.0, 4.0, 1, 0, {'k': 2}]],
                                          'schema': schema},
                              'stringTable': ['Net'], 'tid': 9, 'pid': 8}],
                 'meta': {'categories': [{'name': 'C'}]}}
        text = '{"libs": [], ' + json.dumps({
            'processes': [child],
            'threads': [{'markers': {'name': [0], 'startTime': [1.0], 'endTime': [2.0],
                                     'phase': [1], 'category': [1], 'data': [{'k': 1}]},
                         'stringArray': ['Paint'], 'name': 'main', 'tid': 1, 'pid': 1}],
            'meta': {'categories': CATEGORIES}})[1:]
        out = self.load(text, 'select s.ts, s.dur, s.category, s.name, t.tid, '
                        "extract_arg(s.arg_set_id, 'data.k') as k from slice s "
                        'join thread_track tt on s.track_id = tt.id join thread t using(utid) '
                        'order by s.ts')
        self.assertEqual(out.splitlines()[1:], ['1000000,1000000,"DOM","Paint",1,1',
                                                '3000000,1000000,"C","Net",9,2'])

    def test_repeated_members_last_wins(self):
        # A repeated key replaces the value before it, "threads" included
        # (the first list's threads and markers are not read).
        text = ('{"meta": {"categories": [{"name": "A"}]}, "threads": [{"tid": 1, '
                '"stringArray": ["x"], "markers": {"name": [0], "startTime": [1], '
                '"endTime": [2], "phase": [1], "category": [0]}}], "threads": [{"tid": 2, '
                '"tid": 3, "stringArray": ["n"], "stringArray": ["k", "j"], "markers": '
                '{"name": [1], "startTime": [3], "endTime": [4], "phase": [1], '
                '"category": [0], "name": [1, 0]}}], "meta": {"categories": [{"name": "B"}]}}')
        out = self.load(text, 'select s.ts, s.category, s.name, t.tid from slice s '
                        'join thread_track tt on s.track_id = tt.id join thread t using(utid) '
                        'order by s.ts')
        self.assertEqual(out.splitlines()[1:], ['3000000,"B","j",3'])

    def test_unordered_markers_keep_their_order_at_equal_times(self):
        # Markers out of time order; at equal times their order in the
        # table is kept (it decides which slice nests in which).
        text = profile(thread('main', 1, 1, [
            ('Late', 9.0, 10.0, 1, 0, None), ('X', 1.0, 4.0, 1, 0, {'i': 1}),
            ('X', 1.0, 2.0, 1, 0, {'i': 2}), ('X', 1.0, 0.0, 2, 0, {'i': 3}),
            ('X', 0.0, 5.0, 3, 0, None)]))
        out = self.load(text, "select ts, dur, name, depth, extract_arg(arg_set_id, 'data.i') "
                        'as i from slice order by id')
        self.assertEqual(out.splitlines()[1:], ['1000000,3000000,"X",0,1',
                                                '1000000,1000000,"X",1,2',
                                                '1000000,1000000,"X",2,3',
                                                '9000000,1000000,"Late",0,"[NULL]"'])
        # The interval end at 5 ms finds X 3 still open above X 2, which
        # ended at 2 ms: X 3 is closed where X 2 ended (the nearest ended
        # slice below it), a misplaced end.
        self.assertEqual(self.load(text, "select value from stats "
                                   "where name = 'misplaced_end_event'"), '"value"\n1\n')

    def test_threads_read_together_give_the_same_tables(self):
        # Thread objects are read several at a time when the load has
        # workers; the tables must be those of a read one after the other:
        # both formats, names with brackets and quotes, data, threads
        # without a tid, markers out of order.
        schema = {'name': 0, 'startTime': 1, 'endTime': 2, 'phase': 3, 'category': 4,
                  'data': 5}
        threads = []
        for i in range(40):
            names = ['n]%d' % (i % 3), 'x"}{', 'same']
            if i % 4 == 3:
                rows = [[j % 3, 50.0 - j, 51.0 - j, 1, j % 2, {'k': '[%d' % j}]
                        for j in range(20)]
                threads.append({'name': 'R%d' % i, 'tid': 1000 + i, 'stringTable': names,
                                'markers': {'schema': schema, 'data': rows}})
                continue
            markers = [(names[j % 3], 100.0 - j * 0.5, 101.0, j % 4 and 1, j % 2,
                        {'i': j, 's': ']\\'} if j % 5 == 0 else None) for j in range(25)]
            t = thread('T%d' % i, 1000 + i, 10 + i // 8, markers)
            if i % 7 == 6:
                del t['tid']
            threads.append(t)
        text = json.dumps({'meta': {'categories': CATEGORIES}, 'threads': threads})
        path = e.write_temp(self.dir, 'p.json', text)
        sql = ("select s.ts, s.dur, s.name, s.category, t.utid, "
               "(select group_concat(key || '=' || display_value) from args a "
               "where a.arg_set_id = s.arg_set_id) as args "
               'from slice s join thread_track t on s.track_id = t.id order by s.id;'
               'select utid, tid, name, upid from thread order by utid;'
               "select value from stats where name = 'gecko_marker_dropped'")
        outs = [e.query(sql, path, threads=n) for n in (1, 2, 3)]
        self.assertEqual(outs[0], outs[1])
        self.assertEqual(outs[0], outs[2])
        # 26 threads of columns with a tid, 10 of rows
        self.assertEqual(e.query('select count(*) from slice', path, threads=2),
                         '"count(*)"\n%d\n' % (26 * 25 + 10 * 20))
        self.assertIn('data.s=]', outs[0])

    def test_a_large_profile_is_queued_in_time_order(self):
        # Past 65,536 records the threads' markers are merged in two halves
        # of time, the later one on a worker: the slices must still come in
        # (time, thread in file order, marker order) order, ties included,
        # at any thread count. Times repeat a lot; half the markers carry
        # data (queued by record), half travel whole in their events.
        threads, expected = [], []
        for i in range(6):
            markers = []
            for j in range(12000):
                ms = (j * 7919 + i * 13) % 500
                name = 'n%d' % (j % 50)
                markers.append((name, float(ms), float(ms), 0, 0,
                                {'j': j} if j % 2 else None))
                expected.append((ms, i, j, name, j if j % 2 else None))
            threads.append(thread('T%d' % i, 100 + i, 1, markers))
        expected.sort(key=lambda m: (m[0], m[1]))  # stable: marker order kept
        path = e.write_temp(self.dir, 'big.json', json.dumps(
            {'meta': {'categories': CATEGORIES}, 'threads': threads}))
        sql = ("select s.ts, t.tid, s.name, extract_arg(s.arg_set_id, 'data.j') as j "
               'from slice s join thread_track k on s.track_id = k.id '
               'join thread t using (utid) order by s.id')
        outs = [e.query(sql, path, threads=n) for n in (1, 2)]
        self.assertEqual(outs[0], outs[1])
        want = ['%d,%d,"%s",%s' % (ms * 1000000, 100 + i, name,
                                   '"[NULL]"' if j is None else j)
                for ms, i, _, name, j in expected]
        self.assertEqual(outs[0].splitlines()[1:], want)

    def test_long_and_short_markers_beside_each_other(self):
        # A marker of a 32-bit dur travels whole in its event, a longer one
        # (or one with data) through its record: both read the same.
        text = profile(thread('main', 1, 1, [
            ('long', 1.0, 6001.0, 1, 0, None),        # 6 s: past 2^32 ns
            ('short', 2.0, 3.0, 1, 1, None),
            ('edge', 3.0, 3.0 + 4294.967295, 1, 0, None),  # 2^32 - 1 ns
            ('data', 4.0, 5.0, 1, 0, {'k': 1}),
            ('open', 5.0, 0.0, 2, 0, None), ('open', 0.0, 7.5, 3, 0, None)]))
        out = self.load(text, 'select ts, dur, name, category from slice order by ts')
        self.assertEqual(out.splitlines()[1:], [
            '1000000,6000000000,"long","Other"', '2000000,1000000,"short","DOM"',
            '3000000,4294967295,"edge","Other"', '4000000,1000000,"data","Other"',
            '5000000,2500000,"open","Other"'])

    def test_a_malformed_thread_fails_the_same_at_any_thread_count(self):
        good = json.dumps(thread('T', 1, 1, [('a', 1.0, 2.0, 1, 0, None)]))
        cases = {
            # brackets balanced, content not: found by the thread's read
            'inside': '{"threads": [%s, {"tid": 2, "markers": {"name": [1,,2]}}, %s]}'
                      % (good, good),
            # more brackets opened than closed: no end found, so read in
            # place, after the threads before it
            'unended': '{"threads": [%s, %s, {"tid": 2, "m": [[[[1]}]}' % (good, good),
            # two bad threads: the first one's error, as one read gives
            'first': '{"threads": [%s, {"tid": 2, "pid": 01}, {"tid": [1,]}]}' % good,
        }
        for name, text in cases.items():
            path = e.write_temp(self.dir, name + '.json', text)
            results = [e.run('--threads', str(n), '-Q', 'select 1', path) for n in (1, 2)]
            for rc, out, err in results:
                self.assertNotEqual(rc, 0, name)
                self.assertIn(name + '.json', err, name)
            self.assertEqual(results[0][2], results[1][2], name)

    def test_samples_become_callstacks(self):
        # "name (in lib)" frames belong to mapping lib, others to "gecko";
        # a sample without a stack is skipped.
        t = thread('GeckoMain', 10, 10, [])
        t['stringArray'] = ['main', 'foo (in libxul.so)', 'bar']
        t['funcTable'] = {'name': [0, 1, 2], 'length': 3}
        t['frameTable'] = {'func': [0, 1, 2], 'length': 3}
        t['stackTable'] = {'prefix': [None, 0, 1], 'frame': [0, 1, 2], 'length': 3}
        t['samples'] = {'stack': [0, 2, None, 1], 'time': [1.5, 2.25, 3.0, 4.5], 'length': 4}
        text = json.dumps({'meta': {'categories': CATEGORIES}, 'threads': [t]})
        out = self.load(text, 'select s.ts, t.tid, s.callsite_id, c.depth, f.name, m.name '
                        'from cpu_profile_stack_sample s join thread t using(utid) '
                        'join stack_profile_callsite c on c.id = s.callsite_id '
                        'join stack_profile_frame f on f.id = c.frame_id '
                        'join stack_profile_mapping m on m.id = f.mapping order by s.ts')
        self.assertEqual(out.splitlines()[1:], [
            '1500000,10,0,0,"main","gecko"', '2250000,10,2,2,"bar","gecko"',
            '4500000,10,1,1,"foo","libxul.so"'])
        # each frame has a symbol set of one symbol named as the frame
        out = self.load(text, 'select f.name, s.name from stack_profile_frame f '
                        'join stack_profile_symbol s on s.symbol_set_id = f.symbol_set_id '
                        'where s.source_file is null and s.line_number is null order by f.id')
        self.assertEqual(out.splitlines()[1:], ['"main","main"', '"foo","foo"', '"bar","bar"'])

    def test_metadata_rows(self):
        text = profile(thread('main', 1, 1, [('A', 1.0, 2.0, 1, 0, None)]))
        out = self.load(text, "select name, int_value, str_value from metadata "
                        "where name != 'trace_uuid'")
        self.assertEqual(out.splitlines()[1:], [
            '"trace_type","[NULL]","gecko"', '"trace_time_clock_id",11,"[NULL]"',
            '"trace_size_bytes",%d,"[NULL]"' % len(text)])

    def test_pinned_to_a_proto_trace(self):
        # The profile is clockless: --sync/--offset place it against the
        # proto trace's BOOTTIME, like a Chrome JSON trace.
        snapshot = e.pb_bytes(6, e.pb_bytes(1, e.pb_int(1, 6) + e.pb_int(2, 1000)) +
                              e.pb_bytes(1, e.pb_int(1, 1) + e.pb_int(2, 5000)))
        phone = os.path.join(self.dir, 'phone.pb')
        with open(phone, 'wb') as f:
            f.write(e.pb_packet(snapshot, e.pb_int(10, 1)))
        prof = e.write_temp(self.dir, 'prof.json', profile(thread('main', 1, 1, [
            ('A', 1.0, 2.0, 1, 0, None)])))
        out = e.query('select ts, dur, name from slice', phone, prof,
                      options=('--sync', 'prof.json=phone.pb', '--offset', 'prof.json=3s'))
        self.assertEqual(out, '"ts","dur","name"\n3001000000,1000000,"A"\n')


if __name__ == '__main__':
    e.main()
