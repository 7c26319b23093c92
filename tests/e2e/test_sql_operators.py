"""End-to-end: PerfettoSQL's operator tables (ancestor_slice,
descendant_slice, following_flow, preceding_flow, directly_connected_flow,
SPAN_JOIN and its left/outer forms) on small JSON traces."""
import json
import random

import weft_e2e as e

SLICE_COLUMNS = ('"id","ts","dur","track_id","category","name","depth","parent_id",'
                 '"arg_set_id","thread_ts","thread_dur","thread_instruction_count",'
                 '"thread_instruction_delta"\n')


def x(name, ts, dur, tid=1, **extra):
    return dict({'ph': 'X', 'name': name, 'ts': ts, 'dur': dur, 'pid': 1,
                 'tid': tid}, **extra)


# Thread 1: A[0,100) > B[10,60) > C[20,30); A > D[70,90); E[200,210).
# Thread 2: F[5,305) > G[15,45). Ids follow ts: A0 F1 B2 G3 C4 D5 E6.
TREE = [x('A', 0, 100), x('B', 10, 50), x('C', 20, 10), x('D', 70, 20),
        x('E', 200, 10), x('F', 5, 300, tid=2), x('G', 15, 30, tid=2)]

# Edges of a slice's time range: P[0,300) > A[10,100), B[100,150) > Bc >
# instant I at 100 (ids P0 A1 B2 Bc3 I4); Z (5), a zero-duration slice on
# thread 2, with a zero-duration child (6); U (7) unfinished (dur -1) at 400
# with children Uc, Uc2 (8, 9).
EDGES = [x('P', 0, 300), x('A', 10, 90), x('B', 100, 50), x('Bc', 100, 10),
         {'ph': 'i', 'name': 'I', 'ts': 100, 'pid': 1, 'tid': 1, 's': 't'},
         {'ph': 'B', 'name': 'U', 'ts': 400, 'pid': 1, 'tid': 1},
         x('Uc', 410, 10), x('Uc2', 500, 10),
         x('Z', 100, 0, tid=2), x('Zc', 100, 0, tid=2)]

# Flows: B(1) -> D(3), C(2) -> F(5), E(4) -> G(6), H(7) -> I(8).
# Slices: A0 > B1 > C2 on tid 1, D3 > E4 on tid 2, F5, G6 > H7 on tid 3, I8.
FLOWS = [x('A', 0, 100), x('B', 10, 50, bind_id='0x1', flow_out=True),
         x('C', 20, 10, bind_id='0x2', flow_out=True),
         x('D', 110, 50, tid=2, bind_id='0x1', flow_in=True),
         x('E', 120, 10, tid=2, bind_id='0x3', flow_out=True),
         x('F', 130, 50, tid=3, bind_id='0x2', flow_in=True),
         x('G', 200, 50, tid=3, bind_id='0x3', flow_in=True),
         x('H', 210, 10, tid=3, bind_id='0x4', flow_out=True),
         x('I', 300, 10, bind_id='0x4', flow_in=True)]


class SliceTreeTest(e.TempDirTest):
    def load(self, events, sql):
        return e.query(sql, e.write_temp(self.dir, 't.json', json.dumps(events)))

    def fails(self, events, sql):
        path = e.write_temp(self.dir, 't.json', json.dumps(events))
        rc, _, err = e.run('-Q', sql, path)
        self.assertNotEqual(rc, 0)
        return err

    def test_ancestors_root_first_with_slice_columns(self):
        out = self.load(TREE, 'select * from ancestor_slice(4)')
        self.assertEqual(out, SLICE_COLUMNS +
                         '0,0,100000,0,"[NULL]","A",0,"[NULL]","[NULL]","[NULL]",'
                         '"[NULL]","[NULL]","[NULL]"\n'
                         '2,10000,50000,0,"[NULL]","B",1,0,"[NULL]","[NULL]",'
                         '"[NULL]","[NULL]","[NULL]"\n')

    def test_descendants_in_row_order_on_own_track_only(self):
        out = self.load(TREE, 'select id, name, depth from descendant_slice(0)')
        self.assertEqual(out, '"id","name","depth"\n2,"B",1\n4,"C",2\n5,"D",1\n')
        out = self.load(TREE, 'select id from descendant_slice(1)')
        self.assertEqual(out, '"id"\n3\n')

    def test_correlated_use_and_where(self):
        out = self.load(TREE, 'select s.id, a.id from slice s '
                        'join ancestor_slice(s.id) a order by s.id, a.id')
        self.assertEqual(out, '"id","id"\n2,0\n3,1\n4,0\n4,2\n5,0\n')
        out = self.load(TREE, 'select name from ancestor_slice(4) where depth = 0')
        self.assertEqual(out, '"name"\n"A"\n')

    def test_time_range_edges(self):
        sql = ('select s.name, (select group_concat(id) from descendant_slice(s.id)), '
               '(select group_concat(id) from ancestor_slice(s.id)) from slice s')
        out = self.load(EDGES, sql).splitlines()[1:]
        self.assertEqual(out, [
            '"P","1,2,3,4","[NULL]"',
            '"A","[NULL]","0"',       # Bc and I start at A's end: not A's
            '"B","3,4","0"', '"Bc","4","0,2"', '"I","[NULL]","0,2,3"',
            '"Z","6","[NULL]"',       # zero duration: children at its ts
            '"Zc","[NULL]","5"',
            '"U","8,9","[NULL]"',     # unfinished: children from its ts on
            '"Uc","[NULL]","7"', '"Uc2","[NULL]","7"'])

    def test_slice_layout_stacks_trees_of_several_tracks(self):
        # Deepest first: A (rows 0-2) at 0; F (rows 0-1) overlaps A in
        # time, so goes to 3; E overlaps only F, whose rows 3-4 it misses
        # at 0.
        out = self.load(TREE, "select l.id, s.name, l.layout_depth from "
                        "experimental_slice_layout('0,1') l join slice s using (id)")
        self.assertEqual(out.splitlines()[1:], [
            '0,"A",0', '1,"F",3', '2,"B",1', '3,"G",4', '4,"C",2', '5,"D",1', '6,"E",0'])
        # Deepest trees first: Z (rows 0-3) at 0; X (rows 0-2) overlaps it
        # in time, so goes to 4; Y (a row) ends before Z starts and misses
        # X's rows at 0.
        deep = [x('X', 0, 100), x('X1', 1, 90), x('X2', 2, 80), x('Y', 5, 10, tid=2),
                x('Z', 20, 60, tid=2), x('Z1', 21, 50, tid=2), x('Z2', 22, 40, tid=2),
                x('Z3', 23, 30, tid=2)]
        out = self.load(deep, "select s.name, l.layout_depth from experimental_slice_layout("
                        "'0,1') l join slice s using (id) where s.depth = 0")
        self.assertEqual(out.splitlines()[1:], ['"X",4', '"Y",0', '"Z",0'])
        out = self.load(TREE, "select id, layout_depth from "
                        "experimental_slice_layout('1,x,,99')")
        self.assertEqual(out.splitlines()[1:], ['1,0', '3,1'])
        self.assertIn('invalid input track id list',
                      self.fails(TREE, 'select * from experimental_slice_layout(1)'))

    def test_null_is_empty_and_bad_ids_are_errors(self):
        self.assertEqual(self.load(TREE, 'select count(*) from ancestor_slice(NULL)'),
                         '"count(*)"\n0\n')
        self.assertIn('no row with id 100',
                      self.fails(TREE, 'select * from descendant_slice(100)'))
        self.assertIn('no row with id -1',
                      self.fails(TREE, 'select * from ancestor_slice(-1)'))
        self.assertIn('start id should be an integer.',
                      self.fails(TREE, "select * from ancestor_slice('a')"))


class FlowTest(e.TempDirTest):
    def load(self, sql):
        return e.query(sql, e.write_temp(self.dir, 't.json', json.dumps(FLOWS)))

    def pairs(self, fn, slice_id):
        out = self.load('select id, slice_out, slice_in from %s(%d)' % (fn, slice_id))
        return out.splitlines()[1:]

    def test_following_goes_through_descendants(self):
        # From A: its descendants B and C send flows; D's child E -> G, and
        # G's child H -> I. Ids number the result rows.
        self.assertEqual(self.pairs('following_flow', 0),
                         ['0,1,3', '1,2,5', '2,4,6', '3,7,8'])
        self.assertEqual(self.pairs('following_flow', 4), ['0,4,6', '1,7,8'])
        self.assertEqual(self.pairs('following_flow', 8), [])

    def test_preceding_goes_through_ancestors(self):
        self.assertEqual(self.pairs('preceding_flow', 8), ['0,7,8', '1,4,6', '2,1,3'])
        self.assertEqual(self.pairs('preceding_flow', 7), ['0,4,6', '1,1,3'])

    def test_directly_connected_follows_only_the_chain(self):
        self.assertEqual(self.pairs('directly_connected_flow', 6), ['0,4,6'])
        self.assertEqual(self.pairs('directly_connected_flow', 3), ['0,1,3'])
        out = self.load('select s.id, count(f.id) from slice s '
                        'left join directly_connected_flow(s.id) f group by s.id')
        self.assertEqual(out.splitlines()[1:],
                         ['0,0', '1,1', '2,1', '3,1', '4,1', '5,1', '6,1', '7,1', '8,1'])

    def test_flow_columns_and_errors(self):
        out = self.load('select * from following_flow(7)')
        self.assertEqual(out, '"id","slice_out","slice_in","trace_id","arg_set_id"\n'
                         '0,7,8,4,"[NULL]"\n')
        self.assertEqual(self.load('select count(*) from preceding_flow(NULL)'),
                         '"count(*)"\n0\n')
        rc, _, err = e.run('-Q', 'select * from following_flow(99)',
                           e.write_temp(self.dir, 'f.json', json.dumps(FLOWS)))
        self.assertNotEqual(rc, 0)
        self.assertIn('invalid slice id 99', err)


# Span join inputs: a is partitioned by p (p 1: [0,10) [20,30); p 2: [5,15)
# and an unfinished span at 30 (dur -1); p 4: [100,110)); b by p too (p 1:
# [5,15) and a zero-duration span at 25; p 2: [0,100); p 3: [0,50)); c has
# no partition: [5,15), [25,25], [28,128).
SPANS = ("create table a(ts BIGINT, dur BIGINT, p BIGINT, x TEXT); "
         "insert into a values (0,10,1,'a0'), (20,10,1,'a1'), (5,10,2,'a2'), "
         "(30,-1,2,'a3'), (100,10,4,'a4'); "
         "create table b(ts BIGINT, dur BIGINT, p BIGINT, y BIGINT); "
         "insert into b values (5,10,1,10), (25,0,1,11), (0,100,2,12), (0,50,3,13); "
         "create table c(ts BIGINT, dur BIGINT, z BIGINT); "
         "insert into c values (5,10,10), (25,0,11), (28,100,12); ")


def sched_switch(t, prev, prev_pid, prev_state, nxt, next_pid):
    return ('          %s-%d     [000] d..2 %12.6f: sched_switch: prev_comm=%s '
            'prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%d '
            'next_prio=120\n' % (prev, prev_pid, t, prev, prev_pid, prev_state, nxt,
                                 next_pid))


def machine_systrace(offset):
    """Thread a (5) runs [100, 300) and [400, 600) us past 10 s (+ offset),
    b (6) runs in between; a then sleeps uninterruptibly, b stays runnable."""
    return ('# tracer: nop\n' +
            sched_switch(10.000100 + offset, 'swapper/0', 0, 'R', 'a', 5) +
            sched_switch(10.000300 + offset, 'a', 5, 'S', 'b', 6) +
            sched_switch(10.000400 + offset, 'b', 6, 'R', 'a', 5) +
            sched_switch(10.000600 + offset, 'a', 5, 'D', 'swapper/0', 0))


def typed(i):
    """typeof() and quote() of the i-th random value, as weft prints them."""
    return [('"integer"', '"%d"' % i), ('"text"', '"\'v%d\'"' % i),
            ('"real"', '"%r"' % (i + 0.5)), ('"null"', '"NULL"'),
            ('"blob"', '"X\'%02X\'"' % (i % 256))][i % 5]


class SpanJoinTest(e.TempDirTest):
    def trace(self):
        return e.write_temp(self.dir, 't.json', json.dumps(TREE))

    def rows(self, join, sql='select * from j'):
        out = e.query(SPANS + 'create virtual table j using %s; %s' % (join, sql),
                      self.trace())
        return out.splitlines()

    def fails(self, sql):
        rc, _, err = e.run('-Q', SPANS + sql, self.trace())
        self.assertNotEqual(rc, 0)
        return err

    def test_inner_join_per_partition(self):
        # p 1: a0 meets b's [5,15) over [5,10); a1 meets the instant at 25
        # (dur 0). p 2: a2 within [0,100); the unfinished a3 comes out with
        # dur -1. Partitions 3 and 4 are in one input only.
        self.assertEqual(self.rows('span_join(a partitioned p, b partitioned p)'), [
            '"ts","dur","p","x","y"', '5,5,1,"a0",10', '25,0,1,"a1",11',
            '5,10,2,"a2",12', '30,-1,2,"a3",12'])

    def test_left_join_keeps_the_rest_of_the_left_spans(self):
        self.assertEqual(self.rows('span_left_join(a partitioned p, b partitioned p)'), [
            '"ts","dur","p","x","y"', '0,5,1,"a0","[NULL]"', '5,5,1,"a0",10',
            '20,5,1,"a1","[NULL]"', '25,0,1,"a1",11', '25,5,1,"a1","[NULL]"',
            '5,10,2,"a2",12', '30,-1,2,"a3",12', '100,10,4,"a4","[NULL]"'])

    def test_outer_join_keeps_both_sides(self):
        # b's [0,100) on p 2 shows around a's spans (from a3's start on, as
        # an unfinished span ends where it starts); p 3 is b's alone.
        self.assertEqual(self.rows('span_outer_join(a partitioned p, b partitioned p)'), [
            '"ts","dur","p","x","y"', '0,5,1,"a0","[NULL]"', '5,5,1,"a0",10',
            '10,5,1,"[NULL]",10', '20,5,1,"a1","[NULL]"', '25,0,1,"a1",11',
            '25,5,1,"a1","[NULL]"', '0,5,2,"[NULL]",12', '5,10,2,"a2",12',
            '15,15,2,"[NULL]",12', '30,-1,2,"a3",12', '30,70,2,"[NULL]",12',
            '0,50,3,"[NULL]",13', '100,10,4,"a4","[NULL]"'])

    def test_one_side_partitioned(self):
        # c, unpartitioned, is matched against every partition of a.
        self.assertEqual(self.rows('span_join(a partitioned p, c)'), [
            '"ts","dur","p","x","z"', '5,5,1,"a0",10', '25,0,1,"a1",11',
            '28,2,1,"a1",12', '5,10,2,"a2",10', '30,-1,2,"a3",12',
            '100,10,4,"a4",12'])
        # Unpartitioned on both sides, p is one of a's columns.
        self.assertEqual(self.rows('span_join(c, a)', 'select * from j where p = 1'), [
            '"ts","dur","z","p","x"', '5,5,10,1,"a0"', '25,0,11,1,"a1"',
            '28,2,12,1,"a1"'])

    def test_empty_partitioned_side_of_an_outer_join(self):
        out = e.query(SPANS + 'create table none(ts BIGINT, dur BIGINT, p BIGINT, w BIGINT); '
                      'create virtual table j using span_outer_join(none partitioned p, '
                      'b partitioned p); select * from j', self.trace())
        self.assertEqual(out.splitlines(), [
            '"ts","dur","p","w","y"', '5,10,1,"[NULL]",10', '25,0,1,"[NULL]",11',
            '0,100,2,"[NULL]",12', '0,50,3,"[NULL]",13'])

    def test_where_order_and_aggregates(self):
        self.assertEqual(self.rows('span_join(a partitioned p, b partitioned p)',
                                   'select ts, x from j where p = 2 and ts > 5'),
                         ['"ts","x"', '30,"a3"'])
        self.assertEqual(self.rows('span_join(a partitioned p, b partitioned p)',
                                   'select p, sum(dur) from j group by p order by p desc'),
                         ['"p","sum(dur)"', '2,9', '1,5'])

    def test_random_spans_match_a_brute_force_join(self):
        # Per partition non-overlapping spans in shuffled order (a partition
        # of more than 4096 rows: several row blocks), values of every type,
        # some rows of a NULL partition (left out).
        rng = random.Random(7)

        def spans(count, parts):
            rows, ends = [], {}
            for _ in range(count):
                p = rng.choice(parts)
                ts = ends.get(p, 0) + rng.randint(0, 20)
                dur = rng.randint(1, 30)
                ends[p] = ts + dur
                rows.append((ts, dur, p))
            rng.shuffle(rows)
            return rows

        def value(i):
            return [str(i), repr('v%d' % i), repr(i + 0.5), 'NULL', "x'%02x'" % (i % 256)][i % 5]

        def insert(table, rows, first):
            return 'insert into %s values %s; ' % (table, ', '.join(
                '(%d, %d, %d, %s)' % (r + (value(first + i),)) for i, r in enumerate(rows)))

        a, b = spans(9000, (1, 2)) + spans(300, (3, 4, 5)), spans(9000, (1, 2)) + spans(300, (3, 4, 6))
        sql = ('create table ra(ts BIGINT, dur BIGINT, p BIGINT, x); '
               'create table rb(ts BIGINT, dur BIGINT, p BIGINT, y); ' + insert('ra', a, 0) +
               insert('rb', b, 1) +
               'insert into ra values (3, 5, NULL, 1); insert into rb values (3, 5, NULL, 1); ')
        x_of = {(r[0], r[2]): i for i, r in enumerate(a)}
        y_of = {(r[0], r[2]): i + 1 for i, r in enumerate(b)}
        b_by_part = {}
        for bts, bdur, bp in b:
            b_by_part.setdefault(bp, []).append((bts, bdur))
        for spans_of_part in b_by_part.values():
            spans_of_part.sort()
        inner, left = [], []
        for ats, adur, p in a:
            pieces = [(max(ats, bts), min(ats + adur, bts + bdur), bts)
                      for bts, bdur in b_by_part.get(p, [])
                      if bts < ats + adur + 40 and bts + bdur > ats - 40
                      and max(ats, bts) < min(ats + adur, bts + bdur)]
            at = ats
            for start, end, bts in sorted(pieces):
                row = (p, start, end - start, x_of[(ats, p)], y_of[(bts, p)])
                inner.append(row)
                if start > at:
                    left.append((p, at, start - at, x_of[(ats, p)], None))
                left.append(row)
                at = end
            if at < ats + adur:
                left.append((p, at, ats + adur - at, x_of[(ats, p)], None))
        for join, expected in (('span_join', inner), ('span_left_join', left)):
            path = e.write_temp(self.dir, 'q.sql', sql + 'create virtual table j using '
                                '%s(ra partitioned p, rb partitioned p); select ts, dur, p, '
                                'typeof(x), quote(x), typeof(y), quote(y) from j' % join)
            rc, out, err = e.run('-q', path, self.trace())
            self.assertEqual(rc, 0, err)
            out = out.splitlines()[1:]
            want = []
            for p, ts, dur, xi, yi in sorted(expected):
                want.append('%d,%d,%d,%s,%s' % (ts, dur, p, *typed(xi)) +
                            (',%s,%s' % typed(yi) if yi is not None else ',"null","NULL"'))
            self.assertEqual(out, want, join)

    def test_definition_errors(self):
        self.assertIn('SPAN_JOIN: mismatching partitions between the two tables; '
                      '(partition p in table a, partition z in table c)',
                      self.fails('create virtual table j using '
                                 'span_join(a partitioned p, c partitioned z)'))
        self.assertIn('SPAN_JOIN: column x present in both tables a and a',
                      self.fails('create virtual table j using '
                                 'span_join(a partitioned p, a partitioned p)'))
        self.assertIn('SPAN_JOIN: partition column cannot be any of {ts, dur} for table a',
                      self.fails('create virtual table j using '
                                 'span_join(a partitioned ts, b partitioned ts)'))
        self.assertIn("Unknown table or view name 'nope'",
                      self.fails('create virtual table j using span_join(a, nope)'))
        self.assertIn('SPAN_JOIN: Missing one of columns {ts, dur} in table n',
                      self.fails('create table n(ts BIGINT, k BIGINT); '
                                 'create virtual table j using span_join(c, n)'))
        self.assertIn('SPAN_JOIN: expected exactly two arguments',
                      self.fails('create virtual table j using span_join(a)'))
        self.assertIn('SPAN_JOIN: partition is not an INT column',
                      self.fails("insert into b values (1, 1, 'x', 1); create virtual "
                                 "table j using span_join(a partitioned p, b partitioned p); "
                                 "select * from j"))

    def test_input_reading_the_join_itself_is_an_error(self):
        # c replaced, after j was made, by a view over j: reading j would
        # read j again without end.
        self.assertIn('SPAN_JOIN: an input reads the span join itself',
                      self.fails('create virtual table j using span_join(a partitioned p, c); '
                                 'drop table c; create view c as select ts, dur, x as z '
                                 'from j; select * from j'))

    def test_sched_and_thread_state_of_two_machines_by_utid(self):
        # The same thread ids on two machines (B 50 us later) are different
        # utids: each thread's runs meet only its own Running states, and a
        # left join of its states shows its sleeps without a cpu.
        a = e.write_temp(self.dir, 'a.systrace', machine_systrace(0))
        b = e.write_temp(self.dir, 'b.systrace', machine_systrace(0.000050))
        sql = ('create view s as select ts, dur, utid, ucpu from sched '
               'where utid in (select id from thread where tid != 0); '
               'create view st as select ts, dur, utid, state from thread_state; '
               'create virtual table j using span_join(s partitioned utid, '
               'st partitioned utid); '
               'create virtual table k using span_left_join(st partitioned utid, '
               's partitioned utid); '
               'select t.tid, m.name, j.ts - 10000000000 as ts, j.dur, j.state from j '
               'join thread t on t.id = j.utid join machine m on m.id = t.machine_id '
               'order by m.name, t.tid, j.ts; '
               'select t.tid, m.name, k.ts - 10000000000 as ts, k.dur, k.state, '
               'k.ucpu is null from k join thread t on t.id = k.utid '
               'join machine m on m.id = t.machine_id where k.state != \'Running\' '
               'order by m.name, t.tid, k.ts')
        out = e.query(sql, '--machine', 'a.systrace=A', '--machine', 'b.systrace=B', a, b)
        self.assertEqual(out.split('\n\n'), [
            '"tid","name","ts","dur","state"\n'
            '5,"A",100000,200000,"Running"\n5,"A",400000,200000,"Running"\n'
            '6,"A",300000,100000,"Running"\n'
            '5,"B",150000,200000,"Running"\n5,"B",450000,200000,"Running"\n'
            '6,"B",350000,100000,"Running"',
            '"tid","name","ts","dur","state","k.ucpu is null"\n'
            '5,"A",300000,100000,"S",1\n5,"A",600000,-1,"D",1\n'
            '6,"A",400000,-1,"R",1\n'
            '5,"B",350000,100000,"S",1\n5,"B",650000,-1,"D",1\n'
            '6,"B",450000,-1,"R",1\n'])


if __name__ == '__main__':
    e.main()
