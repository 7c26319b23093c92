"""End-to-end: Chrome JSON behaviours and flows (JSON and proto track events)."""
import json

import weft_e2e as e



class JsonImportTest(e.TempDirTest):
    def load(self, events, sql, name='t.json'):
        data = events if isinstance(events, str) else json.dumps(events)
        return e.query(sql, e.write_temp(self.dir, name, data))

    def stat(self, events, name):
        return self.load(events, "select value from stats where name = '%s'" % name)

    def test_complete_event_of_negative_duration_is_dropped_and_logged(self):
        # its thread's track is made, its args are not; zero is a slice
        events = [{'ph': 'X', 'name': 'neg', 'pid': 1, 'tid': 2, 'ts': 400, 'dur': -3,
                   'args': {'a': 1}},
                  {'ph': 'X', 'name': 'negf', 'pid': 1, 'tid': 2, 'ts': 600, 'dur': -0.5},
                  {'ph': 'X', 'name': 'zero', 'pid': 1, 'tid': 3, 'ts': 500, 'dur': 0}]
        self.assertEqual(self.load(events, 'select name, ts, dur from slice'),
                         '"name","ts","dur"\n"zero",500000,0\n')
        self.assertEqual(self.load(events, 'select count(*) from thread_track'),
                         '"count(*)"\n2\n')
        self.assertEqual(self.load(events, "select count(*) from args where key = 'args.a'"),
                         '"count(*)"\n0\n')
        self.assertEqual(self.load(events, 'select ts, severity, name, arg_set_id '
                                           'from _trace_import_logs'),
                         '"ts","severity","name","arg_set_id"\n'
                         '400000,"error","slice_negative_duration","[NULL]"\n'
                         '600000,"error","slice_negative_duration","[NULL]"\n')
        self.assertEqual(self.stat(events, 'slice_negative_duration'), '"value"\n2\n')

    def test_extract_arg_over_many_arg_sets_equals_the_args_rows(self):
        # more arg sets than EXTRACT_ARG's per-statement cache of their
        # first rows has slots, in an order that revisits them
        n = 40000
        events = [{'ph': 'X', 'name': 's', 'pid': 1, 'tid': 1, 'ts': i, 'dur': 0,
                   'args': {'k': (i * 7919) % (n // 2), 'other': 'x'}} for i in range(n)]
        events += [{'ph': 'X', 'name': 'again', 'pid': 1, 'tid': 2, 'ts': i, 'dur': 0,
                    'args': {'k': (i * 104729) % (n // 2), 'other': 'x'}} for i in range(n)]
        sql = ("select count(*), sum(extract_arg(s.arg_set_id, 'args.k') is a.int_value), "
               "count(distinct s.arg_set_id) "
               "from slice s join args a on a.arg_set_id = s.arg_set_id and a.key = 'args.k'")
        self.assertEqual(self.load(events, sql),
                         '"count(*)","sum(extract_arg(s.arg_set_id, \'args.k\') is a.int_value)",'
                         '"count(distinct s.arg_set_id)"\n80000,80000,20000\n')

    def test_an_escaped_nul_ends_a_string(self):
        events = '[{"ph": "X", "name": "a\\u0000b", "pid": 1, "tid": 1, "ts": 1, "dur": 1, ' \
                 '"args": {"s": "\\u00e9\\u0000x", "k\\u0000z": 1}}]'
        self.assertEqual(self.load(events, 'select name from slice'), '"name"\n"a"\n')
        self.assertEqual(self.load(events, "select key, hex(string_value) from args "
                                           "where key glob 'args.*' order by key"),
                         '"key","hex(string_value)"\n"args.k",""\n"args.s","C3A9"\n')

    def test_string_times_and_thread_time(self):
        out = self.load([
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': '10.25', 'dur': '5',
             'tts': '3.5', 'tdur': 2, 'name': 'a'},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': '11x', 'dur': 1, 'name': 'bad_ts'},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 12, 'dur': '1x', 'name': 'bad_dur'},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 13, 'name': 'no_dur'},
        ], 'select ts, dur, name, thread_ts, thread_dur from slice')
        self.assertEqual(out, '"ts","dur","name","thread_ts","thread_dur"\n'
                         '10250,5000,"a",3500,2000\n')

    def test_every_metadata_event_makes_its_thread(self):
        # Whatever its name (one unknown, one absent), an M event makes its
        # process, main thread and thread first, as other events do; a
        # missing tid is the pid's, a missing pid a process of pid 0.
        events = [
            {'pid': 10, 'tid': 11, 'ts': 0, 'ph': 'M', 'name': 'process_name',
             'args': {'name': 'P10'}},
            {'pid': 20, 'tid': 21, 'ts': 0, 'ph': 'M', 'name': 'process_labels',
             'args': {'labels': 'L'}},
            {'pid': 30, 'tid': 31, 'ts': 0, 'ph': 'M', 'name': 'other', 'args': {}},
            {'pid': 40, 'tid': 41, 'ts': 0, 'ph': 'M'},
            {'pid': 50, 'ts': 0, 'ph': 'M', 'name': 'process_name', 'args': {'name': 'P50'}},
            {'tid': 61, 'ts': 0, 'ph': 'M', 'name': 'thread_name', 'args': {'name': 'T61'}},
            {'pid': 10, 'tid': 12, 'ts': 0, 'ph': 'M', 'name': 'thread_name',
             'args': {'name': 'T12'}}]
        self.assertEqual(
            self.load(events, 'select utid, tid, upid, thread.name, pid, process.name as p '
                      'from thread left join process using (upid) order by utid'),
            '"utid","tid","upid","name","pid","p"\n0,0,0,"[NULL]",0,"[NULL]"\n'
            '1,10,1,"[NULL]",10,"P10"\n2,11,1,"[NULL]",10,"P10"\n'
            '3,20,2,"[NULL]",20,"[NULL]"\n4,21,2,"[NULL]",20,"[NULL]"\n'
            '5,30,3,"[NULL]",30,"[NULL]"\n6,31,3,"[NULL]",30,"[NULL]"\n'
            '7,40,4,"[NULL]",40,"[NULL]"\n8,41,4,"[NULL]",40,"[NULL]"\n'
            '9,50,5,"[NULL]",50,"P50"\n10,0,6,"[NULL]",0,"[NULL]"\n'
            '11,61,6,"T61",0,"[NULL]"\n12,12,1,"T12",10,"P10"\n')

    def test_unnamed_thread_slices_and_async_begins_are_no_name(self):
        # the reference's answer: thread slices (X, B, thread instants, R)
        # and async begins without a name are "[No name]"; async instants,
        # global and process instants keep a NULL name, async tracks too
        ev = lambda ph, ts, **kw: dict(ph=ph, ts=ts, pid=1, tid=1, **kw)
        out = self.load([
            ev('X', 1, name='', dur=2), ev('X', 4, dur=2),
            ev('B', 10, name=''), ev('E', 11),
            ev('i', 12, name='', s='t'), ev('I', 13, s='t'), ev('R', 14),
            ev('b', 20, name='', id='1', cat='c'), ev('e', 21, name='', id='1', cat='c'),
            ev('n', 22, name='', id='2', cat='c'),
            ev('i', 23, name='', s='g'), ev('i', 24, name='', s='p'),
            ev('B', 30, name='x'), ev('E', 31, name='')],
            'select s.ts, s.dur, s.name, t.name as track from slice s '
            'join track t on s.track_id = t.id order by s.ts')
        self.assertEqual(out, '"ts","dur","name","track"\n'
                         '1000,2000,"[No name]","[NULL]"\n4000,2000,"[No name]","[NULL]"\n'
                         '10000,1000,"[No name]","[NULL]"\n12000,0,"[No name]","[NULL]"\n'
                         '13000,0,"[No name]","[NULL]"\n14000,0,"[No name]","[NULL]"\n'
                         '20000,1000,"[No name]","[NULL]"\n22000,0,"[NULL]","[NULL]"\n'
                         '23000,0,"[NULL]","[NULL]"\n24000,0,"[NULL]","[NULL]"\n'
                         '30000,1000,"x","[NULL]"\n')

    def test_tokenizer_failures_are_logged_with_the_event_and_the_error(self):
        # the reference's answers: the bytes read of the event, Perfetto's
        # message, and the offset where the tokenizer stopped (the event's
        # end for a ts; past the dur and the comma after it for an X's dur,
        # which also ends the events)
        events = ['{"ph":"B","name":"a","pid":1,"tid":1}',
                  '{"ph":"B","name":"a","ts":"1.5.5","pid":1,"tid":1}',
                  '{"ph":"B","name":"a","ts":" 5","pid":1,"tid":1}',
                  '{"ph":"B","name":"a","ts":"","pid":1,"tid":1}',
                  '{"ph":"B","name":"a","ts":null,"pid":1,"tid":1}',
                  '{"ph":"B","name":"a","ts":[1],"pid":1,"tid":1}',
                  '{"ph":"X","name":"a","ts":1, "dur" : "abc" , "pid":1,"tid":1}',
                  '{"ph":"X","name":"b","ts":2,"dur":1,"pid":1,"tid":1}']
        out = self.load('[' + ','.join(events) + ']',
                        "select byte_offset, ts, severity, name, "
                        "extract_arg(arg_set_id, 'raw_event') as raw, "
                        "extract_arg(arg_set_id, 'error') as error "
                        "from _trace_import_logs order by id; select count(*) from slice")
        self.assertEqual(out.splitlines(), [
            '"byte_offset","ts","severity","name","raw","error"',
            '38,"[NULL]","error","json_tokenizer_failure",'
            '"{"ph":"B","name":"a","pid":1,"tid":1}","[NULL]"',
            '89,"[NULL]","error","json_tokenizer_failure",'
            '"{"ph":"B","name":"a","ts":"1.5.5","pid":1,"tid":1}",'
            '"Unexpected trailing characters when parsing string timestamp \'1.5.5\'"',
            '137,"[NULL]","error","json_tokenizer_failure",'
            '"{"ph":"B","name":"a","ts":" 5","pid":1,"tid":1}",'
            '"Invalid number: expected digit in \' 5"\'"',
            '183,"[NULL]","error","json_tokenizer_failure",'
            '"{"ph":"B","name":"a","ts":"","pid":1,"tid":1}",'
            '"Unexpected incomplete input when parsing string timestamp \'\'"',
            '231,"[NULL]","error","json_tokenizer_failure",'
            '"{"ph":"B","name":"a","ts":null,"pid":1,"tid":1}",'
            '"Expected a number in timestamp, got 0"',
            '278,"[NULL]","error","json_tokenizer_failure",'
            '"{"ph":"B","name":"a","ts":[1],"pid":1,"tid":1}",'
            '"Expected a number in timestamp, got 6"',
            '324,"[NULL]","error","json_tokenizer_failure",'
            '"{"ph":"X","name":"a","ts":1, "dur" : "abc" , ",'
            '"Invalid number: expected digit in \'abc"\'"',
            '', '"count(*)"', '0'])

    def test_string_times_are_json_numbers(self):
        # the reference reads a string ts as JSON writes a number: no
        # leading space, plus or zero, digits after '.' and the exponent
        ok = ['"0"', '"0.5"', '"-0"', '"1.5e3"', '"1E2"']
        bad = ['" 5"', '"+5"', '"00012"', '"-05"', '"5."', '"1e"', '"1E+"', '"-"']
        events = ','.join('{"ph":"i","s":"t","name":"e%d","ts":%s,"pid":1,"tid":1}' % (i, v)
                          for i, v in enumerate(ok + bad))
        out = self.load('[' + events + ']', "select name, ts from slice order by name; "
                        "select extract_arg(arg_set_id, 'error') from _trace_import_logs "
                        "order by id")
        self.assertEqual(out.splitlines(), [
            '"name","ts"', '"e0",0', '"e1",500', '"e2",0', '"e3",1500000', '"e4",100000', '',
            '"extract_arg(arg_set_id, \'error\')"',
            '"Invalid number: expected digit in \' 5"\'"',
            '"Invalid number: expected digit in \'+5"\'"',
            '"Invalid number: leading zero in \'00012"\'"',
            '"Invalid number: leading zero in \'-05"\'"',
            '"Invalid number: expected digit after \'.\' in \'5."\'"',
            '"Invalid number: expected digit after \'e\' in \'1e"\'"',
            '"Invalid number: expected digit after \'e\' in \'1E+"\'"',
            '"Invalid number: expected digit in \'-"\'"'])

    def test_unreadable_dur_ends_the_events(self):
        # an X event whose dur does not read (a string with trailing text,
        # null, a bool) drops itself and every later event of the array,
        # before any thread is made; the earlier events stay
        for dur in ('5 ', None, True, 'abc'):
            trace = [
                {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 1, 'dur': 1, 'name': 'before'},
                {'ph': 'X', 'pid': 1, 'tid': 3, 'ts': 3, 'dur': dur, 'name': 'bad'},
                {'ph': 'X', 'pid': 1, 'tid': 4, 'ts': 2, 'dur': 1, 'name': 'after'},
                {'ph': 'X', 'pid': 1, 'tid': 5, 'ts': 'x', 'dur': 1, 'name': 'bad_ts'}]
            out = self.load(trace, "select (select group_concat(name) from slice), "
                            "(select group_concat(tid) from thread), "
                            "(select value from stats where name = 'json_tokenizer_failure')")
            self.assertEqual(out.splitlines()[1], '"before","0,1,2",1', dur)

    def test_thread_states_leave_the_idle_thread_unnamed(self):
        out = self.load([
            {'ph': 'T', 'cat': 'thread_state', 'name': 'Running', 'ts': 1, 'dur': 5,
             'pid': 1, 'tid': 2, 'args': {'cpu': 0}},
            {'ph': 'T', 'cat': 'thread_state', 'name': 'S', 'ts': 6, 'dur': 5,
             'pid': 1, 'tid': 2}],
            'select (select name from thread where utid = 0), (select count(*) from sched), '
            '(select count(*) from thread_state)')
        self.assertEqual(out.splitlines()[1], '"[NULL]",1,2')
        # the sched slice has priority 0; the thread states name no cpu
        out = self.load([
            {'ph': 'T', 'cat': 'thread_state', 'name': 'Running', 'ts': 1, 'dur': 5,
             'pid': 1, 'tid': 2, 'args': {'cpu': 3}}],
            'select s.cpu, s.priority, t.cpu as state_cpu, t.state from sched s, thread_state t')
        self.assertEqual(out.splitlines()[1], '3,0,"[NULL]","Running"')

    def test_thread_time_of_instants_and_begin_end(self):
        # an instant's tts is its thread_ts, its thread_dur NULL (tdur
        # ignored); X without tdur: NULL; B/E: the end's tts - the begin's;
        # a process-scoped instant has no thread time
        out = self.load({'traceEvents': [
            {'ph': 'I', 'pid': 1, 'tid': 1, 'ts': 1, 'tts': 2, 'name': 'i1', 's': 't'},
            {'ph': 'I', 'pid': 1, 'tid': 1, 'ts': 2, 'tts': 3, 'tdur': 4, 'name': 'i2'},
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 3, 'dur': 5, 'tts': 4, 'name': 'x1'},
            {'ph': 'B', 'pid': 1, 'tid': 1, 'ts': 10, 'tts': 10, 'name': 'b1'},
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 12, 'tts': 15, 'name': 'b1'},
            {'ph': 'i', 'pid': 1, 'tid': 1, 'ts': 30, 'tts': 31, 'name': 'i3', 's': 'p'}]},
            'select name, thread_ts, thread_dur from slice order by ts')
        self.assertEqual(out.splitlines()[1:], [
            '"i1",2000,"[NULL]"', '"i2",3000,"[NULL]"', '"x1",4000,"[NULL]"',
            '"b1",10000,5000', '"i3","[NULL]","[NULL]"'])

    def test_invalid_ts_counts_tokenizer_failure_but_metadata_kept(self):
        events = [{'ph': 'X', 'pid': 1, 'ts': 'nope', 'dur': 1, 'name': 'x'},
                  {'ph': 'M', 'pid': 5, 'ts': 'nope', 'name': 'process_name',
                   'args': {'name': 'p5'}}, {}]
        self.assertEqual(self.stat(events, 'json_tokenizer_failure'), '"value"\n1\n')
        self.assertEqual(self.load(events, 'select name from process where pid = 5'),
                         '"name"\n"p5"\n')

    def test_display_time_unit_is_ignored_and_counted(self):
        trace = {'displayTimeUnit': 'ns', 'traceEvents': [
            {'ph': 'X', 'pid': 1, 'ts': 7, 'dur': 1, 'name': 'x'}]}
        self.assertEqual(self.load(trace, 'select ts from slice'), '"ts"\n7000\n')
        self.assertEqual(self.stat(trace, 'json_display_time_unit'), '"value"\n1\n')

    def test_end_must_match_name(self):
        out = self.load([
            {'ph': 'B', 'pid': 1, 'tid': 1, 'ts': 1, 'name': 'outer', 'cat': 'c'},
            {'ph': 'B', 'pid': 1, 'tid': 1, 'ts': 2, 'name': 'inner', 'cat': 'c'},
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 3, 'name': 'outer', 'cat': 'c'},
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 4, 'name': 'other'},
        ], 'select name, dur from slice order by id')
        # Slices left open above a slice that ended end where it ended, on
        # the track's next event (Perfetto's rule); with none, they stay open.
        self.assertEqual(out, '"name","dur"\n"outer",2000\n"inner",1000\n')
        out = self.load([
            {'ph': 'B', 'pid': 1, 'tid': 1, 'ts': 1, 'name': 'outer', 'cat': 'c'},
            {'ph': 'B', 'pid': 1, 'tid': 1, 'ts': 2, 'name': 'inner', 'cat': 'c'},
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 3, 'name': 'outer', 'cat': 'c'},
        ], 'select name, dur from slice order by id')
        self.assertEqual(out, '"name","dur"\n"outer",2000\n"inner",-1\n')

    def test_instant_and_overflow_track_types(self):
        events = [
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 0, 'dur': 10, 'name': 'a'},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 5, 'dur': 10, 'name': 'b'},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 7, 'dur': 10, 'name': 'c'},
            {'ph': 'i', 's': 'p', 'pid': 1, 'tid': 2, 'ts': 20, 'name': 'p'},
            {'ph': 'i', 's': 'g', 'pid': 1, 'tid': 2, 'ts': 21, 'name': 'g'},
        ]
        out = self.load(events, "select t.type, group_concat(d.key || '=' || d.int_value), "
                        "s.string_value from track t "
                        "left join args d on d.arg_set_id = t.dimension_arg_set_id "
                        "left join args s on s.arg_set_id = t.source_arg_set_id "
                        "group by t.id order by t.id")
        self.assertEqual(out.splitlines()[1:], [
            '"thread_execution","utid=2","[NULL]"',
            '"thread_overlapping_slice","utid=2,track_compressor_idx=0","[NULL]"',
            '"thread_overlapping_slice","utid=2,track_compressor_idx=1","[NULL]"',
            '"chrome_process_instant","upid=1","chrome"',
            '"legacy_chrome_global_instants","[NULL]","chrome"'])

    def test_spilled_slices_are_logged_with_the_overlap(self):
        # b and c end after the slice they start in: each moves to an
        # overflow track, logged with its name, phase and the overlap, the
        # log's args before the overflow track's.
        events = [
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 0, 'dur': 10, 'name': 'a'},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 5, 'dur': 10, 'name': 'b'},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 7, 'dur': 10, 'name': 'c'}]
        self.assertEqual(
            self.load(events, 'select l.ts, l.severity, l.name, l.arg_set_id, a.key, '
                      'a.display_value from _trace_import_logs l join args a '
                      'using (arg_set_id) order by l.id, a.id'),
            '"ts","severity","name","arg_set_id","key","display_value"\n' +
            ''.join('%d,"error","slice_spill_overlapping_complete_event",%d,%s\n' % (ts, set_id, kv)
                    for ts, set_id, kvs in (
                        (5000, 1, ('"event_name","b"', '"event_phase","X"',
                                   '"overlap_start","5000"', '"overlap_end","10000"',
                                   '"conflicting_slice_name","a"',
                                   '"conflicting_slice_ts","0"',
                                   '"conflicting_slice_dur","10000"')),
                        (7000, 10, ('"event_name","c"', '"event_phase","X"',
                                    '"overlap_start","7000"', '"overlap_end","10000"',
                                    '"conflicting_slice_name","a"',
                                    '"conflicting_slice_ts","0"',
                                    '"conflicting_slice_dur","10000"')))
                    for kv in kvs))

    def test_v1_and_v2_flow_ids_share_one_space(self):
        # The first v1 flow (s/f, id 77) is flow 0, the second (id 78) flow
        # 1; v2 bind id 1 was begun on "bind" and never closed, so the
        # second v1 flow's begin is a duplicate (flow_duplicate_id) and its
        # end goes from "bind", with the v1 flow's name and cat.
        events = [
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 1, 'dur': 2, 'name': 'bind',
             'bind_id': '0x1', 'flow_out': True},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 5, 'dur': 2, 'name': 'bindin',
             'bind_id': '0x1', 'flow_in': True},
            {'ph': 'X', 'pid': 1, 'tid': 3, 'ts': 10, 'dur': 5, 'name': 'src0'},
            {'ph': 's', 'pid': 1, 'tid': 3, 'ts': 11, 'cat': 'f', 'name': 'flow', 'id': 77},
            {'ph': 'X', 'pid': 1, 'tid': 3, 'ts': 20, 'dur': 5, 'name': 'dst0'},
            {'ph': 'f', 'bp': 'e', 'pid': 1, 'tid': 3, 'ts': 21, 'cat': 'f', 'name': 'flow',
             'id': 77},
            {'ph': 'X', 'pid': 1, 'tid': 3, 'ts': 30, 'dur': 5, 'name': 'src1'},
            {'ph': 's', 'pid': 1, 'tid': 3, 'ts': 31, 'cat': 'f', 'name': 'flow', 'id': 78},
            {'ph': 'X', 'pid': 1, 'tid': 3, 'ts': 40, 'dur': 5, 'name': 'dst1'},
            {'ph': 'f', 'bp': 'e', 'pid': 1, 'tid': 3, 'ts': 41, 'cat': 'f', 'name': 'flow',
             'id': 78}]
        self.assertEqual(
            self.load(events, "select o.name, i.name as i, f.trace_id, "
                      "extract_arg(f.arg_set_id, 'name') as n from flow f "
                      "join slice o on o.id = f.slice_out join slice i on i.id = f.slice_in "
                      "order by f.id"),
            '"name","i","trace_id","n"\n"bind","bindin",1,"[NULL]"\n'
            '"src0","dst0",0,"flow"\n"bind","dst1",1,"flow"\n')
        self.assertEqual(self.stat(events, 'flow_duplicate_id'), '"value"\n1\n')

    def test_track_arg_sets_come_before_slice_args(self):
        out = self.load([{'ph': 'i', 's': 'p', 'pid': 1, 'tid': 2, 'ts': 4, 'name': 'p',
                          'args': {'y': 1}}],
                        'select arg_set_id, key from args order by arg_set_id')
        self.assertEqual(out, '"arg_set_id","key"\n0,"upid"\n1,"source"\n2,"args.y"\n')

    def test_end_args_join_the_slice_args(self):
        out = self.load([
            {'ph': 'B', 'pid': 1, 'tid': 2, 'ts': 0, 'name': 'a', 'args': {'x': 1, 'y': 2}},
            {'ph': 'E', 'pid': 1, 'tid': 2, 'ts': 10, 'args': {'z': 3, 'x': 9}},
            {'ph': 'B', 'pid': 1, 'tid': 2, 'ts': 20, 'name': 'b'},
            {'ph': 'E', 'pid': 1, 'tid': 2, 'ts': 30, 'args': {'w': {'k': 1}}},
            {'ph': 'b', 'id': '5', 'pid': 1, 'ts': 0, 'name': 'as', 'cat': 'c',
             'args': {'x': 1}},
            {'ph': 'e', 'id': '5', 'pid': 1, 'ts': 10, 'name': 'as', 'cat': 'c',
             'args': {'x': 's', 'q': True}},
            {'ph': 'E', 'pid': 1, 'tid': 2, 'ts': 40, 'args': {'unmatched': 1}},
        ], "select s.name, a.key, coalesce(a.int_value, a.string_value) v from slice s "
           "left join args a using(arg_set_id) order by s.id, a.id")
        self.assertEqual(out.splitlines()[1:], [
            '"a","args.x",9', '"a","args.y",2', '"a","args.z",3',
            '"as","args.x","s"', '"as","args.q",1', '"b","args.w.k",1'])

    def test_async_scopes(self):
        out = self.load([
            {'ph': 'b', 'pid': 1, 'ts': 1, 'name': 'g', 'cat': 'c', 'id': 7},
            {'ph': 'e', 'pid': 1, 'ts': 3, 'name': 'g', 'cat': 'c', 'id': 7},
            {'ph': 'b', 'pid': 1, 'ts': 1, 'name': 'l', 'cat': 'c', 'id2': {'local': 'x'}},
            {'ph': 'e', 'pid': 1, 'ts': 2, 'name': 'l', 'cat': 'c', 'id2': {'local': 'x'}},
            {'ph': 'b', 'pid': 1, 'ts': 1, 'name': 'none', 'cat': 'c', 'id': ''},
            {'ph': 'b', 'ts': 1, 'name': 'nopid', 'cat': 'c', 'id': 1},
        ], 'select s.name, s.dur, t.type, t.name as track from slice s '
           'join track t on s.track_id = t.id order by s.name')
        # an id given as "" is an id; no pid: dropped
        self.assertEqual(out, '"name","dur","type","track"\n'
                         '"g",2000,"legacy_async_global_slice","g"\n'
                         '"l",1000,"legacy_async_process_slice","l"\n'
                         '"none",-1,"legacy_async_global_slice","none"\n')

    def test_track_group_ids_number_the_sets_of_interchangeable_tracks(self):
        out = self.load([
            {'ph': 'b', 'pid': 1, 'tid': 1, 'ts': 1, 'name': 'A', 'cat': 'c', 'id': 1},
            {'ph': 'b', 'pid': 1, 'tid': 1, 'ts': 2, 'name': 'A', 'cat': 'c', 'id': 2},
            {'ph': 'b', 'pid': 1, 'tid': 1, 'ts': 3, 'name': 'B', 'cat': 'c', 'id': 3},
            {'ph': 'e', 'pid': 1, 'tid': 1, 'ts': 4, 'name': 'A', 'cat': 'c', 'id': 1},
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 5, 'dur': 10, 'name': 'P'},
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 6, 'dur': 20, 'name': 'Q'},
            {'ph': 'b', 'pid': 1, 'tid': 1, 'ts': 7, 'name': 'A', 'cat': 'c',
             'id2': {'local': 5}},
        ], 'select id, name, type, track_group_id from track order by id')
        # the two tracks of root A share a group; B's set, the thread's
        # overflow tracks and the process-scoped A set are groups of their
        # own, numbered as each set gets its first track (Perfetto's answer)
        self.assertEqual(out, '"id","name","type","track_group_id"\n'
                         '0,"A","legacy_async_global_slice",0\n'
                         '1,"A","legacy_async_global_slice",0\n'
                         '2,"B","legacy_async_global_slice",1\n'
                         '3,"[NULL]","thread_execution","[NULL]"\n'
                         '4,"[NULL]","thread_overlapping_slice",2\n'
                         '5,"A","legacy_async_process_slice",3\n')

    def test_async_tracks_are_shared_by_root_name(self):
        # A cookie is (cat, id); its first name is its root name. Cookies
        # with one root name (and process, for local ids) share tracks: a
        # cookie keeps its track while it has an open slice, a new cookie
        # takes the first track with none open, else a new one.
        def ev(ph, pid, ts, name, cat, **ids):
            return dict(ph=ph, pid=pid, tid=pid, ts=ts, name=name, cat=cat, **ids)
        events = [
            ev('b', 1, 1, 'A', 'c', id='0x1'),
            ev('b', 1, 2, 'A', 'c', id='0x2'),   # 0x1 open: a second track
            ev('e', 1, 3, 'A', 'c', id='0x1'),
            ev('b', 1, 4, 'A', 'c', id='0x3'),   # takes the free first track
            ev('b', 1, 5, 'B', 'c', id='0x3'),   # root name A: same track
            ev('e', 1, 6, 'B', 'c', id='0x3'),
            ev('e', 1, 7, 'A', 'c', id='0x3'),
            ev('b', 2, 8, 'A', 'c', id='0x1'),   # global: any pid, track 0
            ev('b', 2, 8, 'A', 'd', id='0x1'),   # other category: new cookie
            ev('b', 2, 9, 'L', 'd', id2={'local': '0x1'}),
            ev('b', 3, 9, 'L', 'd', id2={'local': '0x1'}),
            ev('b', 3, 9, 'G', 'd', id2={'global': '0x1'}),  # = (d, id 0x1)
            ev('n', 3, 10, 'N', 'd', id='0x9'),
        ]
        out = self.load(events, 'select s.name, s.ts, s.depth, s.track_id from slice s '
                        'order by s.id')
        self.assertEqual(out, '"name","ts","depth","track_id"\n'
                         '"A",1000,0,0\n"A",2000,0,1\n"A",4000,0,0\n"B",5000,1,0\n'
                         '"A",8000,0,0\n"A",8000,0,2\n"L",9000,0,3\n"L",9000,0,4\n'
                         '"G",9000,1,2\n"N",10000,0,5\n')
        dims = ("(select group_concat(key || '=' || ifnull(display_value, 'null'), ' ') "
                "from args a where a.arg_set_id = t.%s)")
        out = self.load(events, 'select t.id, t.name, t.type, %s as dims, %s as src '
                        'from track t order by t.id' % (dims % 'dimension_arg_set_id',
                                                        dims % 'source_arg_set_id'))
        g, p = 'legacy_async_global_slice', 'legacy_async_process_slice'
        src = 'source=chrome trace_id_is_process_scoped=%s upid=%d source_scope=null'
        rows = [(0, 'A', g, 'scope=null name=A track_compressor_idx=0', src % ('false', 1)),
                (1, 'A', g, 'scope=null name=A track_compressor_idx=1', src % ('false', 1)),
                (2, 'A', g, 'scope=null name=A track_compressor_idx=2', src % ('false', 2)),
                (3, 'L', p, 'upid=2 scope=null name=L track_compressor_idx=0', src % ('true', 2)),
                (4, 'L', p, 'upid=3 scope=null name=L track_compressor_idx=0', src % ('true', 3)),
                (5, 'N', g, 'scope=null name=N track_compressor_idx=0', src % ('false', 3))]
        self.assertEqual(out, '"id","name","type","dims","src"\n' + ''.join(
            '%d,"%s","%s","%s","%s"\n' % r for r in rows))
        out = self.load(events, 'select id, upid from process_track order by id')
        self.assertEqual(out, '"id","upid"\n3,2\n4,3\n')

    def test_unmatched_ends_are_dropped_silently(self):
        # An E or e that matches no open slice (category and name; a null
        # one matches anything) is no misplaced_end_event, and its args are
        # not read.
        events = [
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 1, 'name': 'Z', 'args': {'k': 1}},
            {'ph': 'B', 'pid': 1, 'tid': 1, 'ts': 2, 'name': 'A', 'cat': 'c'},
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 3, 'name': 'A', 'cat': 'd',
             'args': {'k': 2}},
            {'ph': 'e', 'pid': 1, 'tid': 1, 'ts': 3, 'name': 'Q', 'cat': 'x', 'id': '1'},
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 4, 'args': {'k': 3}},
        ]
        self.assertEqual(self.load(events, "select count(*) from stats where "
                                   "name = 'misplaced_end_event' and value > 0"),
                         '"count(*)"\n0\n')
        self.assertEqual(self.load(events, "select s.name, s.dur, a.key, a.int_value from "
                                   "slice s join args a using (arg_set_id)"),
                         '"name","dur","key","int_value"\n"A",2000,"args.k",3\n')
        self.assertEqual(self.load(events, "select count(*) from args where key = 'args.k'"),
                         '"count(*)"\n1\n')

    def test_counters_with_strings_and_ids(self):
        events = [{'ph': 'C', 'pid': 3, 'ts': 1, 'name': 'mem', 'id': 'a',
                   'args': {'x': '1.5', 'y': '1.5e', 'z': True, 'w': 2}}]
        out = self.load(events, 'select t.name, c.value from counter c join '
                        'process_counter_track t on c.track_id = t.id order by t.name')
        self.assertEqual(out, '"name","value"\n"mem id: a w",2.000000\n'
                         '"mem id: a x",1.500000\n')
        self.assertEqual(self.stat(events, 'json_parser_failure'), '"value"\n2\n')

    def test_counter_tracks_rows_and_arg_sets(self):
        events = [
            {'pid': 1, 'tid': 5, 'ts': 10, 'ph': 'X', 'name': 'a', 'dur': 1},
            {'pid': 1, 'tid': 5, 'ts': 12, 'ph': 'C', 'name': 'ctr', 'args': {'v': 1, 'u': 2}},
            {'pid': 1, 'tid': 6, 'ts': 13, 'ph': 'C', 'name': 'ctr', 'args': {'v': 3}},
            {'pid': 1, 'tid': 6, 'ts': 14, 'ph': 'C', 'name': 'ctr', 'id': '7', 'args': {'v': 3}},
            {'pid': 2, 'ts': 15, 'ph': 'C', 'name': 'ctr2', 'args': {'v': 3}},
            {'pid': 1, 'tid': 6, 'ts': 16, 'ph': 'X', 'name': 'b', 'dur': 1},
        ]
        out = self.load(events, 'select id, ts, track_id, value, arg_set_id from counter; '
                        'select arg_set_id, key, value_type, display_value from args; '
                        'select id, name, type, dimension_arg_set_id from track')
        # each sample's row has its thread (utid, unsigned) as args, written
        # when it is parsed; the tracks and rows are made after the file's
        # other events, each track's dimensions its process and its name
        # (the answer of Perfetto's trace_processor_shell)
        self.assertEqual(out, (
            '"id","ts","track_id","value","arg_set_id"\n'
            '0,12000,2,1.000000,1\n1,12000,3,2.000000,1\n2,13000,2,3.000000,2\n'
            '3,14000,4,3.000000,2\n4,15000,5,3.000000,3\n\n'
            '"arg_set_id","key","value_type","display_value"\n'
            '0,"utid","int","2"\n1,"utid","uint","2"\n2,"utid","uint","3"\n'
            '3,"utid","uint","4"\n4,"utid","int","3"\n'
            '5,"upid","int","1"\n5,"name","string","ctr v"\n'
            '7,"upid","int","1"\n7,"name","string","ctr u"\n'
            '9,"upid","int","1"\n9,"name","string","ctr id: 7 v"\n'
            '11,"upid","int","2"\n11,"name","string","ctr2 v"\n\n'
            '"id","name","type","dimension_arg_set_id"\n'
            '0,"[NULL]","thread_execution",0\n1,"[NULL]","thread_execution",4\n'
            '2,"ctr v","json_counter",5\n3,"ctr u","json_counter",7\n'
            '4,"ctr id: 7 v","json_counter",9\n5,"ctr2 v","json_counter",11\n'))

    def test_parser_failures_are_logged_with_the_event_name_and_phase(self):
        events = [
            {'ph': 'b', 'pid': 1, 'ts': 1, 'cat': 'c'},                   # no id
            {'ph': 'C', 'pid': 1, 'ts': 2, 'name': 'n\u00e9'},            # no args
            {'ph': 'i', 'pid': 1, 'ts': 3, 'name': 'x', 's': 'q'},        # bad scope
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 4, 'name': 'y'},        # no dur
        ]
        out = self.load(events, 'select ts, severity, name, arg_set_id from _trace_import_logs; '
                        'select arg_set_id, key, string_value from args; '
                        "select value from stats where name = 'json_parser_failure'")
        # Perfetto's answer on the same events
        self.assertEqual(out, '"ts","severity","name","arg_set_id"\n'
                         '1000,"error","json_parser_failure",0\n'
                         '2000,"error","json_parser_failure",2\n'
                         '3000,"error","json_parser_failure",4\n'
                         '4000,"error","json_parser_failure",6\n\n'
                         '"arg_set_id","key","string_value"\n'
                         '0,"event_name","[NULL]"\n0,"event_phase","b"\n'
                         '2,"event_name","n\u00e9"\n2,"event_phase","C"\n'
                         '4,"event_name","x"\n4,"event_phase","i"\n'
                         '6,"event_name","y"\n6,"event_phase","X"\n\n'
                         '"value"\n4\n')

    def test_sort_hints_are_written_after_the_events_processes_first(self):
        events = [
            {'ph': 'M', 'ts': 100, 'pid': 30, 'tid': 0, 'name': 'process_sort_index',
             'args': {'sort_index': -2}},
            {'ph': 'M', 'ts': 110, 'pid': 30, 'tid': 31, 'name': 'thread_sort_index',
             'args': {'sort_index': 5}},
            {'ph': 'M', 'ts': 120, 'pid': 40, 'tid': 0, 'name': 'process_sort_index',
             'args': {'sort_index': 10}},
            {'ph': 'X', 'ts': 200, 'pid': 30, 'tid': 31, 'dur': 1, 'name': 'e'},
        ]
        out = self.load(events, 'select arg_set_id, key, int_value from args')
        # Perfetto's answer: the thread track's dimensions first
        self.assertEqual(out, '"arg_set_id","key","int_value"\n0,"utid",2\n'
                         '1,"process_sort_index_hint",-2\n2,"process_sort_index_hint",10\n'
                         '3,"thread_sort_index_hint",5\n')

    def test_null_args_skipped_and_array_indexes(self):
        out = self.load([{'ph': 'X', 'pid': 1, 'ts': 1, 'dur': 1, 'name': 'a',
                          'args': {'n': None, 'v': [1, None, 'two']}}],
                        "select key, flat_key, display_value from args "
                        "where key glob 'args.*' order by key")
        self.assertEqual(out, '"key","flat_key","display_value"\n'
                         '"args.v[0]","args.v","1"\n"args.v[1]","args.v","two"\n')

    def test_trace_metadata_and_sort_hints(self):
        trace = {'metadata': {'a': 1, 's': 'x', 'nested': {'no': 1}},
                 'traceEvents': [
                     {'ph': 'M', 'pid': 4, 'name': 'process_sort_index',
                      'args': {'sort_index': -3}},
                     {'ph': 'M', 'pid': 4, 'tid': 6, 'name': 'thread_sort_index',
                      'args': {'sort_index': 9}}]}
        # rows of the file's machine and trace
        out = self.load(trace, "select name, int_value, str_value, machine_id, trace_id "
                        "from metadata where name glob 'json_metadata.*' order by name")
        self.assertEqual(out, '"name","int_value","str_value","machine_id","trace_id"\n'
                         '"json_metadata.a",1,"[NULL]",0,0\n'
                         '"json_metadata.nested","[NULL]","{"no": 1}",0,0\n'
                         '"json_metadata.s","[NULL]","x",0,0\n')
        out = self.load(trace, "select tid, extract_arg(p.arg_set_id, "
                        "'process_sort_index_hint') as ph, extract_arg(t.arg_set_id, "
                        "'thread_sort_index_hint') as th from thread t join process p "
                        "using(upid) where pid = 4 order by tid")
        self.assertEqual(out, '"tid","ph","th"\n4,-3,"[NULL]"\n6,-3,9\n')

    def test_metadata_values_as_perfetto_stores_them(self):
        text = ('{"traceEvents": [], "metadata": {"o": { "z": 1 ,"a":[ "\\u0041" ]},'
                '"e": {}, "f": 1.25, "g": 1e20, "h": 2.0, "i": 1e6, "j": 1.0000001,'
                '"k": 9223372036854775808, "l": 18446744073709551615, "m": null,'
                '"n": -9223372036854775809, "s": "\\u0041\\/", "t": true,'
                '"u": 1e400, "v": 1}}')
        out = self.load(text, "select name, int_value, str_value from metadata "
                        "where name not in ('trace_time_clock_id', 'trace_uuid')")
        self.assertEqual(out.splitlines()[1:], [
            '"trace_type","[NULL]","json"',
            '"json_metadata.o","[NULL]","{ "z": 1 ,"a":[ "\\u0041" ]}"',
            '"json_metadata.e","[NULL]","{}"',
            '"json_metadata.f","[NULL]","1.25"',
            '"json_metadata.g","[NULL]","1e+20"',
            '"json_metadata.h",2,"[NULL]"',
            '"json_metadata.i",1000000,"[NULL]"',
            '"json_metadata.j","[NULL]","1"',
            '"json_metadata.k","[NULL]","-9.22337e+18"',
            '"json_metadata.l",-1,"[NULL]"',
            '"json_metadata.n","[NULL]","9.22337e+18"',
            '"json_metadata.s","[NULL]","A/"',
            '"json_metadata.t",1,"[NULL]"',
            '"trace_size_bytes",%d,"[NULL]"' % len(text)])

    def test_a_repeated_metadata_key_keeps_its_place_and_takes_the_last_value(self):
        text = '{"traceEvents": [], "metadata": {"b": 1, "a": "x", "c": {"z": 1}, "a": 3}}'
        out = self.load(text, "select name, int_value, str_value from metadata "
                        "where name glob 'json_metadata.*' order by id")
        self.assertEqual(out, '"name","int_value","str_value"\n'
                         '"json_metadata.b",1,"[NULL]"\n'
                         '"json_metadata.a",3,"[NULL]"\n'
                         '"json_metadata.c","[NULL]","{"z": 1}"\n')

    def test_pid_0_is_not_the_swapper_and_tid_0_is_the_pid(self):
        out = self.load([
            {'ph': 'X', 'pid': 0, 'tid': 0, 'ts': 0, 'dur': 10, 'name': 'a'},
            {'ph': 'X', 'pid': 0, 'tid': 5, 'ts': 1, 'dur': 1, 'name': 'b'},
            {'ph': 'X', 'pid': 7, 'tid': 0, 'ts': 2, 'dur': 1, 'name': 'c'},
            {'ph': 'X', 'ts': 3, 'dur': 1, 'name': 'd'},
            {'ph': 'M', 'pid': 0, 'name': 'process_name', 'args': {'name': 'P0'}},
            {'ph': 'M', 'pid': 7, 'tid': 0, 'name': 'thread_name', 'args': {'name': 'T7'}},
        ], "select utid, tid, upid, thread.name, is_main_thread, process.name, "
           "(select group_concat(s.name) from slice s join thread_track t "
           "on s.track_id = t.id where t.utid = thread.utid) as slices "
           "from thread left join process using(upid) order by utid")
        self.assertEqual(out.splitlines()[1:], [
            '0,0,0,"[NULL]",1,"[NULL]","[NULL]"',
            '1,0,1,"[NULL]",1,"P0","a,d"',
            '2,7,2,"T7",1,"[NULL]","c"',
            '3,5,1,"[NULL]",0,"P0","b"'])

    def test_a_tid_equal_to_another_pid_keeps_one_thread_per_process(self):
        # tid 1 of process 2 and the main thread of process 1 (tid 1) take
        # turns: each event finds its own process's thread among the tid's
        # threads, newest first, instead of making a new one at each turn.
        events = []
        for k in range(4):
            events.append({'ph': 'X', 'pid': 2, 'tid': 1, 'ts': k * 10, 'dur': 5, 'name': 'a'})
            events.append({'ph': 'X', 'pid': 1, 'tid': 3, 'ts': k * 10, 'dur': 5, 'name': 'b'})
            events.append({'ph': 'X', 'pid': 1, 'tid': 1, 'ts': k * 10 + 6, 'dur': 1,
                           'name': 'm'})
        out = self.load(events,
                        "select utid, tid, upid, is_main_thread, "
                        "(select count(*) || ':' || group_concat(distinct s.name) from slice s "
                        "join thread_track t on s.track_id = t.id where t.utid = thread.utid) "
                        "from thread order by utid")
        self.assertEqual(out.splitlines()[1:], [
            '0,0,0,1,"[NULL]"', '1,2,1,1,"[NULL]"', '2,1,1,0,"4:a"', '3,1,2,1,"4:m"',
            '4,3,2,0,"4:b"'])

    def test_string_tid_names_its_thread_before_the_event_thread(self):
        out = self.load([{'ph': 'X', 'pid': 8, 'tid': 'w', 'ts': 3, 'dur': 1, 'name': 'f'}],
                        'select utid, upid, name, is_main_thread from thread order by utid')
        self.assertEqual(out.splitlines()[1:], ['0,0,"[NULL]",1', '1,1,"w",0',
                                                '2,1,"[NULL]",1'])

    def test_integer_args_beyond_int64_wrap(self):
        text = ('[{"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "name": "a", "args": '
                '{"u": 18446744073709551615, "v": 9223372036854775807, "w": 1.5}}]')
        out = self.load(text, "select key, value_type, display_value from args "
                        "where key glob 'args.*' order by key")
        self.assertEqual(out.splitlines()[1:], ['"args.u","real","-1.0"',
                                                '"args.v","int","9223372036854775807"',
                                                '"args.w","real","1.5"'])

    def test_overlapping_complete_spills(self):
        events = [{'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 0, 'dur': 10, 'name': 'a'},
                  {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 5, 'dur': 10, 'name': 'b'},
                  {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 6, 'dur': 1, 'name': 'c'}]
        out = self.load(events, 'select name, depth, track_id != (select track_id '
                        "from slice where name = 'a') as spilled from slice order by id")
        self.assertEqual(out, '"name","depth","spilled"\n"a",0,0\n"b",0,1\n"c",1,0\n')
        self.assertEqual(self.stat(events, 'slice_spill_overlapping_complete_event'),
                         '"value"\n1\n')

    def test_equal_ts_order(self):
        # End first, then complete events longest first, then the rest.
        out = self.load([
            {'ph': 'B', 'pid': 1, 'tid': 1, 'ts': 0, 'name': 'b'},
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 5, 'dur': 1, 'name': 'short'},
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 5, 'dur': 3, 'name': 'long'},
            {'ph': 'E', 'pid': 1, 'tid': 1, 'ts': 5},
        ], 'select name, depth, dur from slice order by id')
        self.assertEqual(out, '"name","depth","dur"\n"b",0,5000\n"long",0,3000\n'
                         '"short",1,1000\n')

    def test_an_async_end_keeps_its_file_place_at_equal_ts(self):
        # Only sync ends (E) go first: an async end ('e') sorts with the rest,
        # so an async instant and a begin before it in the file, at its
        # time, still fall inside the slice it ends (as Chrome's navigation
        # events do). Ending A below the top leaves B open above it: C, at
        # A's very end, still nests in B; the next event after A's end
        # closes B and C where A ended (a misplaced_end_event), so C's own
        # end finds nothing open.
        ev = lambda ph, ts, name, **kw: dict(ph=ph, pid=1, tid=1, ts=ts, name=name, **kw)
        out = self.load([
            ev('X', 0, 'x', dur=1),
            ev('b', 10, 'A', cat='c', id='0x1'),
            ev('n', 20, 'N', cat='c', id='0x1'),
            ev('b', 20, 'B', cat='c', id='0x1'),
            ev('e', 20, 'A', cat='c', id='0x1'),
            ev('b', 20, 'C', cat='c', id='0x1'),
            ev('e', 30, 'C', cat='c', id='0x1'),
        ], 'select name, ts, dur, depth from slice order by id; '
           "select value from stats where name = 'misplaced_end_event'")
        self.assertEqual(out, '"name","ts","dur","depth"\n"x",0,1000,0\n'
                         '"A",10000,10000,0\n"N",20000,0,1\n"B",20000,0,1\n'
                         '"C",20000,0,2\n\n"value"\n1\n')

    def test_flows_v1_and_v2(self):
        out = self.load([
            {'ph': 'X', 'pid': 1, 'tid': 1, 'ts': 0, 'dur': 10, 'name': 'A', 'cat': 'c'},
            {'ph': 's', 'pid': 1, 'tid': 1, 'ts': 1, 'name': 'f', 'cat': 'c', 'id': '0x10'},
            {'ph': 'f', 'pid': 1, 'tid': 2, 'ts': 19, 'name': 'f', 'cat': 'c', 'id': 16},
            {'ph': 'X', 'pid': 1, 'tid': 2, 'ts': 20, 'dur': 10, 'name': 'B'},
            {'ph': 'X', 'pid': 1, 'tid': 3, 'ts': 40, 'dur': 10, 'name': 'C',
             'bind_id': '0x5', 'flow_out': True},
            {'ph': 'X', 'pid': 1, 'tid': 4, 'ts': 60, 'dur': 10, 'name': 'D',
             'bind_id': 5, 'flow_in': True},
            {'ph': 'X', 'pid': 1, 'tid': 4, 'ts': 80, 'dur': 10, 'name': 'E',
             'bind_id': 6},
            {'ph': 't', 'pid': 1, 'tid': 9, 'ts': 90, 'name': 'f', 'cat': 'c', 'id': 'zz'},
        ], 'select o.name as src, i.name as dst, f.trace_id, '
           "extract_arg(f.arg_set_id, 'name') as n from flow f "
           'join slice o on f.slice_out = o.id join slice i on f.slice_in = i.id '
           'order by f.id')
        self.assertEqual(out, '"src","dst","trace_id","n"\n"A","B",0,"f"\n'
                         '"C","D",5,"[NULL]"\n')
        events = [{'ph': 'X', 'pid': 1, 'tid': 4, 'ts': 80, 'dur': 10, 'name': 'E',
                   'bind_id': 6},
                  {'ph': 't', 'pid': 1, 'tid': 9, 'ts': 90, 'name': 'f', 'id': 'zz'},
                  {'ph': 's', 'pid': 1, 'tid': 9, 'ts': 91, 'name': 'f', 'id': 1}]
        self.assertEqual(self.stat(events, 'flow_without_direction'), '"value"\n1\n')
        self.assertEqual(self.stat(events, 'flow_invalid_id'), '"value"\n1\n')
        self.assertEqual(self.stat(events, 'flow_no_enclosing_slice'), '"value"\n1\n')

    def test_malformed_event_object_is_counted(self):
        out = self.load('[{"ph":"X","ts":1,"dur":1,"pid":1,"name":"ok"},'
                        '{"ph":"X","ts":2,"dur":1,"pid":1,"name":"cut"',
                        'select name from slice')
        self.assertEqual(out, '"name"\n"ok"\n')


PROTO_FLOWS = '''
packet { trusted_packet_sequence_id: 1 timestamp: 0
  track_descriptor { uuid: 1 thread { pid: 1 tid: 1 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 100
  track_event { type: TYPE_SLICE_BEGIN track_uuid: 1 name: "A" flow_ids: 7 } }
packet { trusted_packet_sequence_id: 1 timestamp: 200
  track_event { type: TYPE_SLICE_END track_uuid: 1 } }
packet { trusted_packet_sequence_id: 1 timestamp: 300
  track_event { type: TYPE_INSTANT track_uuid: 1 name: "B" flow_ids: 7 } }
packet { trusted_packet_sequence_id: 1 timestamp: 400
  track_event { type: TYPE_INSTANT track_uuid: 1 name: "C" terminating_flow_ids: 7 } }
packet { trusted_packet_sequence_id: 1 timestamp: 500
  track_event { type: TYPE_INSTANT track_uuid: 1 name: "D" terminating_flow_ids: 7 } }
packet { trusted_packet_sequence_id: 1 timestamp: 600
  track_event { track_uuid: 1 name: "L" legacy_event { phase: 88 duration_us: 1
    bind_id: 9 flow_direction: FLOW_OUT } } }
packet { trusted_packet_sequence_id: 1 timestamp: 2000
  track_event { track_uuid: 1 name: "M" legacy_event { phase: 88 duration_us: 1
    bind_id: 9 flow_direction: FLOW_IN } } }
'''


class ProtoFlowTest(e.TempDirTest):
    def test_track_event_flows(self):
        out = e.textproto_trace(self.dir, 'flows.pb', PROTO_FLOWS)
        rc, res, err = e.run('-Q', 'select o.name as src, i.name as dst, f.trace_id '
                             'from flow f join slice o on f.slice_out = o.id '
                             'join slice i on f.slice_in = i.id order by f.id', out)
        self.assertEqual(rc, 0, err)
        self.assertEqual(res, '"src","dst","trace_id"\n"A","B",7\n"B","C",7\n'
                         '"L","M",9\n')
        # D's terminating id names a flow C closed: ignored, without a stat
        rc, res, err = e.run('-Q', "select value from stats where name = "
                             "'flow_end_without_start'", out)
        self.assertEqual(res, '"value"\n0\n')


if __name__ == '__main__':
    e.main()
