"""End-to-end: PerfettoSQL's operator tables (ancestor_slice,
descendant_slice, following_flow, preceding_flow, directly_connected_flow,
SPAN_JOIN and its left/outer forms) on small JSON traces."""
import json

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


if __name__ == '__main__':
    e.main()
