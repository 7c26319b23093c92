"""End-to-end: ORDER BY and GROUP BY over a whole table read through the
virtual table's row orders (src/sql/vtab_order.c) give SQLite's own
answers: each query is compared with the same query over a subquery, which
SQLite sorts itself, on random data with NULLs, ties, negative and extreme
ints, doubles and strings that are prefixes of each other."""
import json
import random

import weft_e2e as e

# A materialized copy of the table, which SQLite sorts itself.
NATIVE = 'with m as materialized (select * from %s) '


def sql_value(v):
    if v is None:
        return 'NULL'
    if isinstance(v, str):
        return "'%s'" % v.replace("'", "''")
    return repr(v)


class RowOrderTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        rng = random.Random(7)
        events = []
        names = ['a', 'ab', 'abc', 'B', 'b', '', 'z\u00e9', 'zz', 'Zz']
        for k in range(400):
            event = {'ph': 'X', 'name': rng.choice(names), 'ts': k * 10,
                     'dur': rng.choice([0, 1, 5, 5, 9, 100]), 'pid': 1,
                     'tid': rng.choice([1, 2, 3])}
            if rng.random() < 0.7:
                event['cat'] = rng.choice(['c1', 'c2', 'C', 'c'])
            events.append(event)
        self.trace = e.write_temp(self.dir, 't.json', json.dumps(events))
        ints = [None, 0, -1, 1, 2**62, -2**62, 9223372036854775807, -9223372036854775808, 7]
        # (No -0.0: SQLite's own copy would store it as the integer 0.)
        doubles = [None, 0.0, -1.5, 1.5, 1e300, -1e300, 2.25, 1e-300]
        strs = [None, '', 'a', 'a\u00ff', 'ab', 'B', 'b']
        rows = ['(%s, %s, %s)' % (sql_value(rng.choice(ints)), sql_value(rng.choice(doubles)),
                                  sql_value(rng.choice(strs))) for _ in range(300)]
        self.table = ('create perfetto table r as select column1 as i, column2 as d, '
                      'column3 as s from (values %s);\n' % ', '.join(rows))

    def answers(self, sql, table, setup=''):
        """(through the virtual table, through SQLite's sorter, the plan)."""
        ours = e.query(setup + sql % table, self.trace)
        native = e.query(setup + NATIVE % table + sql % 'm', self.trace)
        native_plan = e.query(setup + 'explain query plan ' + NATIVE % table + sql % 'm',
                              self.trace)
        self.assertNotIn('INDEX 0:O', native_plan)
        plan = e.query(setup + 'explain query plan ' + sql % table, self.trace)
        return ours, native, plan

    def check(self, sql, table, setup=''):
        ours, native, plan = self.answers(sql, table, setup)
        self.assertEqual(ours, native, sql)
        self.assertGreater(ours.count('\n'), 2, sql)
        self.assertIn('VIRTUAL TABLE INDEX 0:O', plan, sql)

    def test_order_by_slice_columns(self):
        for order in ('name', 'name desc', 'category, name', 'category desc, name',
                      'dur desc, name', 'name, dur, id desc', 'track_id, dur desc, name'):
            # The id makes the order total, so rows must match exactly.
            self.check('select name, category, dur, id from %%s order by %s, id' % order,
                       'slice')

    def test_order_by_ints_doubles_strings_with_nulls(self):
        for order in ('i', 'i desc', 'd', 'd desc', 's', 's desc', 'd, s desc, i',
                      's, i desc, d'):
            # Ties of the key keep no order in SQLite: compare the keys only.
            cols = order.replace(' desc', '')
            self.check('select %s from %%s order by %s' % (cols, order), 'r', self.table)

    def test_group_by(self):
        for sql in ('select name, count(*), sum(dur) from %s group by name',
                    'select name, count(*) from %s group by name order by name desc',
                    'select category, count(*) from %s group by category order by category',
                    'select track_id, name, max(dur) from %s group by track_id, name'):
            self.check(sql, 'slice')
        for sql in ('select s, count(*) from %s group by s order by s',
                    'select d, count(*) from %s group by d',
                    'select i, s, count(*) from %s group by i, s order by i desc, s'):
            self.check(sql, 'r', self.table)

    def test_constrained_scans_keep_their_plan(self):
        # A constraint narrows the rows first; SQLite sorts those few.
        ours, native, plan = self.answers(
            'select name, id from %s where ts >= 100 and ts < 2000 order by name, id', 'slice')
        self.assertEqual(ours, native)
        self.assertNotIn('INDEX 0:O', plan)

    def test_repeated_equality_probes_look_rows_up(self):
        # A table of over 4096 rows probed by `=` on an unsorted column more
        # than three times reads the equal rows through the column's order.
        rng = random.Random(3)
        events = [{'ph': 'X', 'name': 'n%d' % rng.randrange(50), 'ts': k * 10,
                   'dur': rng.randrange(5), 'pid': 1, 'tid': rng.randrange(1, 9)}
                  for k in range(6000)]
        trace = e.write_temp(self.dir, 'big.json', json.dumps(events))
        probes = ("p(v) as (values ('n1'), ('n7'), ('n49'), ('n0'), ('n13'), ('nx'), "
                  "(NULL), ('n1')) ")
        for ctes, sql in (('', 'select t.utid, group_concat(s.id) from thread_track t join %s s '
                           'on s.track_id = t.id group by t.utid order by t.utid'),
                          (probes, 'select p.v, count(s.id), sum(s.id), min(s.id), max(s.id) '
                           'from p left join %s s on s.name = p.v group by p.v order by p.v'),
                          (probes, 'select p.v, group_concat(s.id) from p join %s s '
                           'on s.name = p.v and s.dur = 2000 group by p.v order by p.v')):
            ours = e.query(('with ' + ctes if ctes else '') + sql % 'slice', trace)
            native = e.query(NATIVE % 'slice' + (', ' + ctes if ctes else '') + sql % 'm',
                             trace)
            self.assertEqual(ours, native, sql)
            self.assertGreater(ours.count('\n'), 3, sql)

    def test_exact_ranges_on_sorted_columns(self):
        # Int constants against ts and id are answered by binary search alone
        # (SQLite does not check them again); other values are re-checked.
        # (Slices start every 10,000 ns.)
        for where in ('ts >= 100000 and ts < 2000000', 'ts > 100000 and ts <= 2000000 and id >= 3',
                      'ts = 150000', 'ts >= 99999.5 and ts < 2000000.5', "ts >= '100000'",
                      'id > 10 and id <= 20', 'ts < -5', 'ts >= 9223372036854775807',
                      'ts > 100000 and dur = 5000'):
            sql = 'select count(*), sum(id), min(ts), max(ts) from %s where ' + where
            ours, native, _ = self.answers(sql, 'slice')
            self.assertEqual(ours, native, where)
        ours, _, _ = self.answers('select count(*) from %s where ts >= 100000 and ts < 2000000',
                                  'slice')
        self.assertEqual(ours, '"count(*)"\n190\n')

    def test_distinct_is_left_to_sqlite(self):
        ours, native, plan = self.answers('select distinct name from %s order by name', 'slice')
        self.assertEqual(ours, native)


if __name__ == '__main__':
    e.main()
