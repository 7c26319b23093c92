"""End-to-end: a range constraint on an unordered int column against a
constant (`dur > 1e6`, `depth >= 3`) is checked per row by the virtual
table (src/sql/vtab.c) and gives SQLite's own answers: each query is
compared with the same one over a materialized copy, on ints with NULLs
and the ends of int64, against int and double constants, on both sides of
every bound."""
import json
import random

import weft_e2e as e

NATIVE = 'with m as materialized (select * from %s) '


class RangeFilterTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        rng = random.Random(11)
        events = [{'ph': 'X', 'name': 'n%d' % (k % 7), 'ts': k * 10,
                   'dur': rng.choice([0, 1, 5, 9, 100, 2500]), 'pid': 1,
                   'tid': rng.choice([1, 2])} for k in range(300)]
        self.trace = e.write_temp(self.dir, 't.json', json.dumps(events))
        ints = ['NULL', '0', '-1', '1', '2', '3', '4611686018427387904',
                '-4611686018427387904', '9223372036854775807', '-9223372036854775808']
        rows = ', '.join('(%s)' % rng.choice(ints) for _ in range(400))
        self.setup = ('create perfetto table r as select column1 as i from (values %s);\n'
                      % rows)

    def same(self, sql, table):
        ours = e.query(self.setup + sql.replace('%s', table), self.trace)
        native = e.query(self.setup + NATIVE % table + sql.replace('%s', 'm'), self.trace)
        # (The header names the table: the rows only.)
        self.assertEqual(ours.split('\n')[1:], native.split('\n')[1:], sql)
        return e.query(self.setup + 'explain query plan ' + sql.replace('%s', table),
                       self.trace)

    def test_every_bound_against_int_and_double_constants(self):
        values = ['0', '1', '-1', '2', '3', '2.5', '-2.5', '0.0', '3.0', '1e30', '-1e30',
                  '9223372036854775807', '-9223372036854775808', '9223372036854775807.0',
                  '-9223372036854775808.0', '4611686018427387904', '4611686018427387904.5']
        # One query of a scalar subquery per bound, each answered on its own.
        cases = ['(select count(*) || \',\' || count(i) || \',\' || sum(i > 0) '
                 'from %%s where i %s %s)' % (op, v)
                 for op in ('<', '<=', '>', '>=') for v in values]
        self.same('select ' + ', '.join(cases), 'r')
        for op in ('<', '>='):
            plan = self.same('select count(*) from %%s where i %s 2.5' % op, 'r')
            self.assertIn('INDEX 0:0:', plan)

    def test_two_bounds_and_a_constant_on_the_left(self):
        self.same('select (select count(*) from %s where i between -1 and 2), '
                  '(select count(*) from %s where i > -2 and i < 2.5 and i <> 0), '
                  '(select count(*) from %s where 2 > i), '
                  '(select count(*) from %s where i >= 3 or i < -1)', 'r')

    def test_slice_columns(self):
        self.same("select (select count(*) || ',' || sum(dur) from %s where dur > 9), "
                  "(select count(*) || ',' || sum(dur) from %s where dur >= 1e2), "
                  "(select count(*) from %s where depth >= 0 and dur < 5), "
                  "(select count(*) from %s where dur > '5')", 'slice')

    def test_a_column_of_another_table_is_left_to_sqlite(self):
        sql = ('select count(*) from %s a join slice b on a.dur > b.dur '
               'where b.ts < 200')
        self.same(sql, 'slice')


if __name__ == '__main__':
    e.main()
