"""End-to-end: the virtual table's row estimates for `=` (src/sql/vtab_estimate.c)
lead SQLite to join plans that need no sort, and plans never change answers.

A slice-per-thread join grouped by thread name is the case: `thread_track`
keeps nearly every track, so the plan should read threads in name order,
then their tracks, then their slices, with no temporary B-tree for the
GROUP BY. Every query is also compared with the same query over
materialized copies, which SQLite plans and sorts itself."""
import json
import random

import weft_e2e as e

COPIES = ('with s as materialized (select * from slice), '
          'tt as materialized (select * from thread_track), '
          'th as materialized (select * from thread) ')

JOIN_BY_NAME = ('select {th}.name, count(*) as n from {s} join {tt} on {s}.track_id = {tt}.id '
                'join {th} using (utid) group by {th}.name order by n desc, {th}.name')


class EstimateTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        rng = random.Random(11)
        events = []
        for tid in range(1, 41):
            events.append({'ph': 'M', 'name': 'thread_name', 'pid': 1 + tid % 3, 'tid': tid,
                           'args': {'name': 'worker-%d' % (tid % 13)}})
            for k in range(rng.randrange(200, 2000)):
                events.append({'ph': 'X', 'name': 'n%d' % rng.randrange(30), 'ts': k * 100,
                               'dur': 50, 'pid': 1 + tid % 3, 'tid': tid,
                               'cat': 'rare' if rng.random() < 0.01 else 'common'})
        # Async slices make process tracks, as real traces have: thread
        # tracks are then a part of the tracks.
        for a in range(30):
            events.append({'ph': 'b', 'name': 'async%d' % a, 'id': a, 'ts': a * 10, 'pid': 1,
                           'tid': 3, 'cat': 'c'})
            events.append({'ph': 'e', 'name': 'async%d' % a, 'id': a, 'ts': a * 10 + 5,
                           'pid': 1, 'tid': 3, 'cat': 'c'})
        self.trace = e.write_temp(self.dir, 't.json', json.dumps(events))

    def both(self, template):
        ours = e.query(template.format(s='slice', tt='thread_track', th='thread'), self.trace)
        native = e.query(COPIES + template.format(s='s', tt='tt', th='th'), self.trace)
        return ours, native

    def test_join_grouped_by_thread_name_needs_no_sort(self):
        ours, native = self.both(JOIN_BY_NAME)
        self.assertEqual(ours, native)
        self.assertGreater(ours.count('\n'), 10)
        plan = e.query('explain query plan ' +
                       JOIN_BY_NAME.format(s='slice', tt='thread_track', th='thread'),
                       self.trace)
        self.assertNotIn('B-TREE FOR GROUP BY', plan)
        first = [line for line in plan.splitlines() if 'SCAN' in line or 'SEARCH' in line][0]
        self.assertIn('SCAN thread ', first)  # threads by name first

    def test_joins_with_constants_answer_as_sqlite(self):
        for where in ("{s}.category = 'rare'", "{s}.category = 'common'",
                      "{s}.category = 'absent'", "{s}.name = 'n3' and {s}.category = 'common'",
                      '{s}.depth = 0', '{s}.depth = 1.5', "{th}.name = 'worker-3'",
                      '{s}.category is null', "{s}.name = 3"):
            template = ('select {th}.utid, count(*) as c, sum({s}.id) as t from {s} '
                        'join {tt} on {s}.track_id = {tt}.id join {th} using (utid) '
                        'where ' + where + ' group by {th}.utid order by {th}.utid')
            ours, native = self.both(template)
            self.assertEqual(ours, native, where)

    def test_estimates_follow_table_changes(self):
        # A table made by the query itself changes between statements; the
        # estimates' samples are retaken, and answers stay SQLite's.
        setup = ('create perfetto table p as select id, name, dur from slice where id < 500;\n'
                 'create perfetto table q as select id, name from slice where id >= 100;\n')
        sql = ('select p.name, count(*) from p join q on p.name = q.name '
               "where q.name = 'n7' group by p.name")
        ours = e.query(setup + sql, self.trace)
        native = e.query(setup + 'with pm as materialized (select * from p), '
                         'qm as materialized (select * from q) ' +
                         sql.replace('from p join q', 'from pm p join qm q'), self.trace)
        self.assertEqual(ours, native)
        self.assertGreater(ours.count('\n'), 1)


if __name__ == '__main__':
    e.main()
