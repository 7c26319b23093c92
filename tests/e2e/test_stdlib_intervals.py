"""End-to-end: the stdlib modules intervals.* and graphs.* on small inputs
(subqueries over a tiny trace, or its slices), answers worked out by hand."""
import json
import os
import zipfile

import weft_e2e as e
from test_stdlib_slices import json_trace, x


def values(columns, rows):
    """A subquery with the given column names over constant rows."""
    head = 'select ' + ', '.join('%s as %s' % (v, c) for v, c in zip(rows[0], columns))
    rest = ''.join(' union all select ' + ', '.join(str(v) for v in r) for r in rows[1:])
    return '(' + head + rest + ')'


# Overlaps: (0,10) (5,10) (10,5) (20,0) (30,3) (30,2), groups a b a a b a.
SEGMENTS = values(('ts', 'dur', 'g'), [(0, 10, "'a'"), (5, 10, "'b'"), (10, 5, "'a'"),
                                       (20, 0, "'a'"), (30, 3, "'b'"), (30, 2, "'a'")])
A = values(('id', 'ts', 'dur', 'p'), [(1, 0, 10, 1), (2, 5, 10, 1), (3, 20, 0, 1),
                                      (4, 30, 5, 2), (5, 40, 3, 1)])
B = values(('id', 'ts', 'dur', 'p'), [(10, 8, 4, 1), (11, 15, 10, 1), (12, 31, 2, 2),
                                      (13, 35, 10, 2), (14, 41, 3, 1), (15, 10, 0, 1)])
EDGES = values(('source_node_id', 'dest_node_id'),
               [(1, 2), (1, 3), (2, 4), (3, 4), (4, 5), (3, 6), (6, 1), (7, 8)])


class StdlibIntervalsTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.t = e.write_temp(self.dir, 't.json', json_trace([x('a', 0, 1)]))

    def q(self, module, sql, trace=None):
        return e.query('INCLUDE PERFETTO MODULE %s; %s' % (module, sql), trace or self.t)

    def test_overlap_count(self):
        # +1 at each start, -1 at each end, summed per point.
        out = self.q('intervals.overlap',
                     'select * from intervals_overlap_count!(%s, ts, dur)' % SEGMENTS)
        self.assertEqual(out, '"ts","value"\n0,1\n5,2\n10,2\n15,0\n20,0\n30,2\n32,1\n33,0\n')
        # an unfinished interval (dur -1) never closes
        out = self.q('intervals.overlap', 'select * from intervals_overlap_count!(%s, ts, dur)'
                     % values(('ts', 'dur'), [(0, -1), (5, 10), (10, -5)]))
        self.assertEqual(out, '"ts","value"\n0,1\n5,1\n10,2\n15,1\n')

    def test_overlap_count_by_group(self):
        out = self.q('intervals.overlap',
                     'select * from intervals_overlap_count_by_group!(%s, ts, dur, g)'
                     % SEGMENTS)
        self.assertEqual(out, '"ts","value","group_name"\n0,1,"a"\n5,1,"b"\n10,1,"a"\n'
                         '15,0,"a"\n15,0,"b"\n20,0,"a"\n30,1,"a"\n30,1,"b"\n32,0,"a"\n'
                         '33,0,"b"\n')

    def test_merge_overlapping(self):
        rows = values(('ts', 'dur', 'p'), [(0, 10, 1), (5, 10, 2), (16, 2, 1), (15, 0, 1),
                                           (40, 5, 1), (45, 1, 1)])
        # closed intervals: [0,15] takes in the point 15; 16 is 1 away
        out = self.q('intervals.overlap',
                     'select * from interval_merge_overlapping!(%s, 0)' % rows)
        self.assertEqual(out, '"ts","dur"\n0,15\n16,2\n40,6\n')
        out = self.q('intervals.overlap',
                     'select * from interval_merge_overlapping!(%s, 1)' % rows)
        self.assertEqual(out, '"ts","dur"\n0,18\n40,6\n')
        # a run of zero length reaches back to the end of the run before it
        for zero_rows, expected in (([(0, 10), (20, 0)], '0,10\n10,10\n'),
                               ([(0, 10), (20, 5), (40, 0), (40, 0)], '0,10\n20,5\n25,15\n'),
                               ([(5, 0)], '"[NULL]","[NULL]"\n'), ([(5, 0), (5, 3)], '5,3\n')):
            out = self.q('intervals.overlap', 'select * from interval_merge_overlapping!(%s, 0)'
                         % values(('ts', 'dur'), zero_rows))
            self.assertEqual(out, '"ts","dur"\n' + expected)
        out = self.q('intervals.overlap', 'select ts, dur, p from '
                     'interval_merge_overlapping_partitioned!(%s, (p))' % rows)
        self.assertEqual(out, '"ts","dur","p"\n0,10,1\n15,0,1\n16,2,1\n40,6,1\n5,10,2\n')
        # the result's columns are ts, dur and the partition columns
        two_keys = values(('ts', 'dur', 'c', 'd'), [(0, 10, 1, 5), (5, 10, 1, 5), (30, 5, 2, 5)])
        out = self.q('intervals.overlap', 'select * from '
                     'interval_merge_overlapping_partitioned!(%s, (c, d))' % two_keys)
        self.assertEqual(out, '"ts","dur","c","d"\n0,15,1,5\n30,5,2,5\n')

    def test_interval_intersect(self):
        # Meeting: same start, or each starts before the other ends.
        out = self.q('intervals.intersect', 'select ts, dur, id_0, id_1 from '
                     '_interval_intersect!((%s, %s), ())' % (A, B))
        self.assertEqual(out, '"ts","dur","id_0","id_1"\n8,2,1,10\n8,4,2,10\n10,0,2,15\n'
                         '20,0,3,11\n31,2,4,12\n40,3,5,13\n41,2,5,14\n')
        out = self.q('intervals.intersect', 'select ts, dur, id_0, id_1, p from '
                     '_interval_intersect!((%s, %s), (p)) order by p, ts' % (A, B))
        self.assertEqual(out, '"ts","dur","id_0","id_1","p"\n8,2,1,10,1\n8,4,2,10,1\n'
                         '10,0,2,15,1\n20,0,3,11,1\n41,2,5,14,1\n31,2,4,12,2\n')
        out = self.q('intervals.intersect',
                     'select * from _interval_intersect_single!(5, 30, %s)' % A)
        self.assertEqual(out, '"id","ts","dur"\n1,5,5\n2,5,10\n3,20,0\n4,30,5\n')

    def test_interval_intersect_any_number_of_tables(self):
        a = values(('id', 'ts', 'dur', 'p', 'q'), [(1, 0, 10, 1, 7), (2, 5, 10, 2, 7)])
        b = values(('id', 'ts', 'dur', 'p', 'q'), [(10, 2, 5, 1, 7), (11, 8, 10, 2, 7)])
        c = values(('id', 'ts', 'dur', 'p', 'q'), [(20, 3, 20, 1, 7)])
        # Three tables, no partition: every triple whose intervals all meet,
        # over the piece common to the three.
        out = self.q('intervals.intersect', 'select * from _interval_intersect!'
                     '((%s, %s, %s), ()) order by ts, id_0' % (a, b, c))
        self.assertEqual(out, '"ts","dur","id_0","id_1","id_2"\n3,4,1,10,20\n5,2,2,10,20\n'
                         '8,2,1,11,20\n8,7,2,11,20\n')
        # Partitioned by p (and by p, q): only partition 1 has all three.
        out = self.q('intervals.intersect', 'select * from _interval_intersect!'
                     '((%s, %s, %s), (p))' % (a, b, c))
        self.assertEqual(out, '"ts","dur","id_0","id_1","id_2","p"\n3,4,1,10,20,1\n')
        out = self.q('intervals.intersect', 'select * from _interval_intersect!'
                     '((%s, %s, %s), (p, q))' % (a, b, c))
        self.assertEqual(out, '"ts","dur","id_0","id_1","id_2","p","q"\n3,4,1,10,20,1,7\n')
        # One table: its own intervals.
        out = self.q('intervals.intersect', 'select * from _interval_intersect!((%s), ())' % a)
        self.assertEqual(out, '"ts","dur","id_0"\n0,10,1\n5,10,2\n')
        # Eight tables at most.
        eight = ', '.join([a] * 8)
        out = self.q('intervals.intersect', 'select count(*) as n, max(id_7) as m from '
                     '_interval_intersect!((%s), (p))' % eight)
        self.assertEqual(out, '"n","m"\n2,2\n')

    def test_metasql_unparenthesize(self):
        out = self.q('std.metasql.unparenthesize',
                     'select p, count(*) as n from %s group by '
                     'metasql_unparenthesize_exprlist!((p)) order by '
                     'metasql_unparenthesize_exprlist!((n, p))' % A)
        self.assertEqual(out, '"p","n"\n2,1\n1,4\n')

    def test_interval_intersect_negative_dur(self):
        rc, _, err = e.run('-Q', 'INCLUDE PERFETTO MODULE intervals.intersect; select * from '
                           '_interval_intersect!((%s, %s), ())'
                           % (values(('id', 'ts', 'dur'), [(1, 0, -1)]), B), self.t)
        self.assertNotEqual(rc, 0)
        self.assertIn('Interval intersect only works on intervals with non negative duration.',
                      err)

    def test_self_intersect(self):
        rows = values(('id', 'ts', 'dur'), [(1, 10, 20), (2, 20, 25), (3, 50, 5), (4, 50, 0),
                                            (5, 52, 1)])
        out = self.q('intervals.intersect',
                     'select * from interval_self_intersect!(%s)' % rows)
        self.assertEqual(out, '"ts","dur","group_id","id","interval_ends_at_ts"\n'
                         '10,10,1,1,0\n20,10,2,1,0\n20,10,2,2,0\n30,15,3,2,0\n50,2,5,3,0\n'
                         '52,1,6,3,0\n53,2,7,3,0\n52,1,6,5,0\n30,15,3,1,1\n45,5,4,2,1\n'
                         '55,0,8,3,1\n50,2,5,4,1\n53,2,7,5,1\n')

    def test_graph_search(self):
        starts = values(('node_id',), [(1,), (7,), (3,)])
        out = self.q('graphs.search', 'select * from graph_reachable_dfs!(%s, %s)'
                     % (EDGES, starts))
        self.assertEqual(out, '"node_id","parent_node_id"\n3,"[NULL]"\n4,3\n5,4\n6,3\n1,6\n'
                         '2,1\n7,"[NULL]"\n8,7\n')
        out = self.q('graphs.search', 'select * from graph_reachable_bfs!(%s, %s)'
                     % (EDGES, starts))
        self.assertEqual(out, '"node_id","parent_node_id"\n1,"[NULL]"\n7,"[NULL]"\n'
                         '3,"[NULL]"\n2,1\n8,7\n4,3\n6,3\n5,4\n')
        # a start node no edge touches is listed, unless there are no edges
        one_edge = values(('source_node_id', 'dest_node_id'), [(1, 2)])
        starts = values(('node_id',), [(9,), (1,), (1,)])
        for walk, rows in (('dfs', '1,"[NULL]"\n2,1\n9,"[NULL]"\n'),
                           ('bfs', '9,"[NULL]"\n1,"[NULL]"\n2,1\n')):
            out = self.q('graphs.search', 'select * from graph_reachable_%s!(%s, %s)'
                         % (walk, one_edge, starts))
            self.assertEqual(out, '"node_id","parent_node_id"\n' + rows)
            out = self.q('graphs.search', 'select * from graph_reachable_%s!('
                         '(select * from %s where 0), %s)' % (walk, one_edge, starts))
            self.assertEqual(out, '"node_id","parent_node_id"\n')

    def test_graph_weight_bounded_dfs(self):
        edges = values(('source_node_id', 'dest_node_id', 'edge_weight'),
                       [(1, 2, 3), (1, 3, 1), (2, 4, 2), (3, 4, 5), (4, 5, 1), (3, 6, 2)])
        roots = values(('root_node_id', 'root_target_weight'), [(1, 5), (3, 2)])
        out = self.q('graphs.search', 'select * from graph_reachable_weight_bounded_dfs!'
                     '(%s, %s, TRUE)' % (edges, roots))
        self.assertEqual(out, '"root_node_id","node_id","parent_node_id"\n1,1,"[NULL]"\n'
                         '1,2,1\n1,4,2\n1,5,4\n3,3,"[NULL]"\n3,4,3\n')
        out = self.q('graphs.search', 'select * from graph_reachable_weight_bounded_dfs!'
                     '(%s, %s, FALSE)' % (edges, roots))
        self.assertEqual(out, '"root_node_id","node_id","parent_node_id"\n1,1,"[NULL]"\n'
                         '1,2,1\n1,4,2\n3,3,"[NULL]"\n')
        # a root no edge touches reaches nothing, not even itself
        out = self.q('graphs.search', 'select * from graph_reachable_weight_bounded_dfs!'
                     '(%s, %s, TRUE)' % (edges, values(('root_node_id', 'root_target_weight'),
                                                       [(9, 3)])))
        self.assertEqual(out, '"root_node_id","node_id","parent_node_id"\n')

    def test_graph_next_sibling(self):
        t = e.write_temp(self.dir, 'n.json', json_trace([
            x('a', 0, 100), x('b', 10, 10), x('c', 30, 10), x('d', 50, 10), x('e', 200, 5)]))
        out = self.q('graphs.search', 'select * from graph_next_sibling!((select id as '
                     'node_id, parent_id as node_parent_id, ts as sort_key from slice))', t)
        self.assertEqual(out, '"node_id","next_node_id"\n0,4\n4,"[NULL]"\n1,2\n2,3\n'
                         '3,"[NULL]"\n')

    def test_dominator_tree(self):
        edges = values(('source_node_id', 'dest_node_id'),
                       [(1, 2), (1, 3), (2, 4), (3, 4), (4, 5), (3, 6), (6, 5), (5, 1)])
        out = self.q('graphs.dominator_tree',
                     'select * from graph_dominator_tree!(%s, 1)' % edges)
        self.assertEqual(out, '"node_id","dominator_node_id"\n1,"[NULL]"\n2,1\n4,1\n5,1\n'
                         '3,1\n6,3\n')
        rc, _, err = e.run('-Q', 'INCLUDE PERFETTO MODULE graphs.dominator_tree; '
                           'select * from graph_dominator_tree!(%s, 9)' % edges, self.t)
        self.assertNotEqual(rc, 0)
        self.assertIn('dominator_tree: root node is not in the graph', err)
        out = self.q('graphs.dominator_tree', 'select * from graph_dominator_tree!('
                     '(select * from %s where 0), 9)' % edges)
        self.assertEqual(out, '"node_id","dominator_node_id"\n')

    def test_tree_partition(self):
        tree = values(('id', 'parent_id', 'group_key'),
                      [(1, 'NULL', 1), (2, 1, 1), (3, 2, 2), (4, 2, 2), (5, 3, 1), (6, 3, 3),
                       (7, 4, 2), (8, 4, 1)])
        out = self.q('graphs.partition',
                     'select * from tree_structural_partition_by_group!(%s)' % tree)
        self.assertEqual(out, '"id","parent_id","group_key"\n1,"[NULL]",1\n2,1,1\n'
                         '4,"[NULL]",2\n8,2,1\n7,4,2\n3,"[NULL]",2\n6,"[NULL]",3\n5,2,1\n')

    def test_overlap_by_machine(self):
        # Two machines' slices at the same times: counted per machine.
        z = os.path.join(self.dir, 'two.zip')
        with zipfile.ZipFile(z, 'w') as f:
            f.writestr('perfetto_manifest.json', json.dumps({'perfetto_manifest': {
                'version': 1, 'files': [
                    {'path': 'a.json', 'machine': {'name': 'A'}},
                    {'path': 'b.json', 'machine': {'name': 'B'}}]}}))
            f.writestr('a.json', json_trace([x('a1', 0, 10), x('a2', 5, 10, tid=2)]))
            f.writestr('b.json', json_trace([x('b1', 0, 10)]))
        out = self.q('intervals.overlap', 'select o.ts, o.value, m.name from '
                     'intervals_overlap_count_by_group!((select s.ts, s.dur, t.machine_id '
                     'from slice s join track t on s.track_id = t.id), ts, dur, machine_id) o '
                     'join machine m on m.id = o.group_name order by m.name, o.ts', z)
        self.assertEqual(out, '"ts","value","name"\n0,1,"A"\n5000,2,"A"\n10000,1,"A"\n'
                         '15000,0,"A"\n0,1,"B"\n10000,0,"B"\n')
        # intersecting the machines' slices per machine finds only a1 x a2
        out = self.q('intervals.intersect', 'select ts, dur, machine_id from '
                     '_interval_intersect!(((select s.id, s.ts, s.dur, t.machine_id from slice s '
                     'join track t on s.track_id = t.id where s.name != \'a2\'), '
                     '(select s.id, s.ts, s.dur, t.machine_id from slice s '
                     'join track t on s.track_id = t.id where s.name != \'a1\')), (machine_id)) '
                     'where id_0 != id_1 order by ts', z)
        self.assertEqual(out, '"ts","dur","machine_id"\n5000,5000,0\n')


if __name__ == '__main__':
    e.main()
