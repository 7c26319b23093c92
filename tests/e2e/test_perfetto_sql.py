"""End-to-end: PerfettoSQL's statements, one test per example of
perfetto-sql-syntax.md (functions, tables, schemas, indexes, views, macros,
includes), with the results the document describes, and the errors and
limits around them."""
import os

import weft_e2e as e
from test_stdlib_android_startup import SDK33, textproto

# Two threads of one process; slices 'foo' (twice) and 'bar' (JSON times
# are in us: ts 100000 ns and so on); sched rows
# come from nowhere in JSON, so sched_by_utid is checked on an empty table.
TRACE = ('[{"ph":"X","pid":1,"tid":2,"ts":100,"dur":50,"name":"foo"},'
         '{"ph":"X","pid":1,"tid":2,"ts":110,"dur":10,"name":"bar"},'
         '{"ph":"X","pid":1,"tid":3,"ts":200,"dur":20,"name":"foo"}]')


class PerfettoSqlTest(e.TempDirTest):
    def setUp(self):
        super().setUp()
        self.trace = e.write_temp(self.dir, 't.json', TRACE)

    def q(self, sql):
        return e.query(sql, self.trace)

    def error(self, sql):
        rc, out, err = e.run('-Q', sql, self.trace)
        self.assertNotEqual(rc, 0, out)
        return err

    # --- functions ---
    def test_scalar_functions(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO FUNCTION constant_fn() RETURNS LONG AS SELECT 1;'
            'CREATE PERFETTO FUNCTION add_fn(x LONG, y LONG) RETURNS LONG AS SELECT $x + $y;'
            'SELECT constant_fn() AS c, add_fn(2, 3) AS s, add_fn(NULL, 1) AS n'),
            '"c","s","n"\n1,5,"[NULL]"\n')
        # The document's `add` is an SQL keyword: Perfetto refuses it too.
        err = self.error('CREATE PERFETTO FUNCTION add(x LONG, y LONG) RETURNS LONG AS '
                         'SELECT $x + $y')
        self.assertIn("syntax error near 'add'", err)

    def test_table_functions(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO FUNCTION constant_tab_fn() '
            'RETURNS TABLE(ts LONG, dur LONG) AS '
            'SELECT column1 as ts, column2 as dur FROM (VALUES (100, 10), (200, 20));'
            'SELECT * FROM constant_tab_fn()'),
            '"ts","dur"\n100,10\n200,20\n')
        self.assertEqual(self.q(
            'CREATE PERFETTO FUNCTION sched_by_utid(utid LONG) '
            'RETURNS TABLE(ts LONG, dur LONG, utid LONG) AS '
            'SELECT ts, dur, utid FROM sched WHERE utid = $utid;'
            'SELECT count(*) AS n FROM sched_by_utid(1)'), '"n"\n0\n')
        # Arguments from a join, one call per outer row.
        self.assertEqual(self.q(
            'CREATE PERFETTO FUNCTION named(n STRING) RETURNS TABLE(id LONG) AS '
            'SELECT id FROM slice WHERE name = $n;'
            "SELECT v.column1 AS name, count(f.id) AS n FROM (VALUES ('foo'), ('bar')) v "
            'LEFT JOIN named(v.column1) f GROUP BY 1 ORDER BY 1'),
            '"name","n"\n"bar",1\n"foo",2\n')

    def test_function_argument_types_are_checked(self):
        err = self.error('CREATE PERFETTO FUNCTION f(x LONG) RETURNS LONG AS SELECT $x;'
                         "SELECT f('a')")
        self.assertIn("f[arg=a]: argument 0 does not have expected type: "
                      "expected LONG, actual STRING", err)
        err = self.error('CREATE PERFETTO FUNCTION f(x DOUBLE) RETURNS DOUBLE AS SELECT $x;'
                         'SELECT f(1)')
        self.assertIn('expected DOUBLE, actual BOOL/INT/UINT/LONG', err)
        # A table function's arguments are passed through unchecked.
        self.assertEqual(self.q('CREATE PERFETTO FUNCTION g(x DOUBLE, y STRING) '
                                'RETURNS TABLE(v DOUBLE, w STRING) AS SELECT $x AS v, $y AS w;'
                                'SELECT * FROM g(1, 2)'), '"v","w"\n1,2\n')
        err = self.error('CREATE PERFETTO FUNCTION f(x BADTYPE) RETURNS LONG AS SELECT 1')
        self.assertIn("unknown type 'BADTYPE'", err)

    def test_function_body_rules(self):
        err = self.error('CREATE PERFETTO FUNCTION f() RETURNS LONG AS SELECT 1, 2;'
                         'SELECT f()')
        self.assertIn('f: SQL definition should only return one column: '
                      'returned 2 columns', err)
        err = self.error('CREATE PERFETTO FUNCTION f() RETURNS LONG AS '
                         'SELECT 5 UNION ALL SELECT 6; SELECT f()')
        self.assertIn('f: multiple values were returned', err)
        self.assertEqual(self.q('CREATE PERFETTO FUNCTION f() RETURNS LONG AS '
                                'SELECT 5 WHERE 0; SELECT f() AS v'), '"v"\n"[NULL]"\n')
        err = self.error('CREATE PERFETTO FUNCTION f() RETURNS LONG AS SELECT nosuch()')
        self.assertIn('no such function: nosuch', err)

    def test_function_exists_and_replace(self):
        err = self.error('CREATE PERFETTO FUNCTION f(x LONG) RETURNS LONG AS SELECT 1;'
                         'CREATE PERFETTO FUNCTION f(x LONG) RETURNS LONG AS SELECT 2')
        self.assertIn('CREATE PERFETTO FUNCTION[prototype=f(x LONG)]: '
                      'function already exists', err)
        self.assertEqual(self.q(
            'CREATE PERFETTO FUNCTION f(x LONG) RETURNS LONG AS SELECT 1;'
            'CREATE OR REPLACE PERFETTO FUNCTION f(x LONG) RETURNS LONG AS SELECT 2;'
            'SELECT f(0) AS v'), '"v"\n2\n')

    def test_recursion_works_and_is_bounded(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO FUNCTION tri(n LONG) RETURNS LONG AS '
            'SELECT iif($n <= 0, 0, $n + tri($n - 1)); SELECT tri(10) AS v'),
            '"v"\n55\n')
        err = self.error('CREATE PERFETTO FUNCTION f(n LONG) RETURNS LONG AS '
                         'SELECT f($n); SELECT f(1)')
        self.assertIn('function calls nested deeper than', err)

    # --- tables ---
    def test_tables(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO TABLE constant_table AS SELECT column1 as ts, column2 as dur '
            'FROM (VALUES (100, 10), (200, 20));'
            'SELECT * FROM constant_table'), '"ts","dur"\n100,10\n200,20\n')
        self.assertEqual(self.q(
            "CREATE PERFETTO TABLE slice_sub_table AS SELECT * FROM slice WHERE name = 'foo';"
            'SELECT ts, name FROM slice_sub_table WHERE ts > 150000'),
            '"ts","name"\n200000,"foo"\n')

    def test_table_types_are_inferred(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO TABLE t AS SELECT 1 AS a UNION ALL SELECT 2.5;'
            'SELECT a, typeof(a) AS t FROM t'),
            '"a","t"\n1.000000,"real"\n2.500000,"real"\n')
        err = self.error("CREATE PERFETTO TABLE t AS SELECT 1 AS a UNION ALL SELECT 'x'")
        self.assertIn("CREATE PERFETTO TABLE(t): column 'a' was inferred to be LONG, "
                      "but later received a value of type STRING", err)
        self.assertEqual(self.q(
            'CREATE PERFETTO TABLE t AS SELECT NULL AS a, 1 AS b UNION ALL SELECT "s", 2;'
            'SELECT a, b FROM t WHERE b = 2'), '"a","b"\n"s",2\n')

    def test_table_schema(self):
        self.assertEqual(self.q("CREATE PERFETTO TABLE foo(x LONG, y STRING) AS "
                                "SELECT 1 as x, 'test' as y; SELECT * FROM foo"),
                         '"x","y"\n1,"test"\n')
        err = self.error("CREATE PERFETTO TABLE foo(x LONG, z STRING) AS "
                         "SELECT 1 as x, 'test' as y")
        self.assertIn('the following columns are declared in the schema, but do not '
                      'exist: z; and the following columns exist, but are not declared: y',
                      err)

    def test_table_schema_types(self):
        self.assertEqual(self.q('CREATE PERFETTO TABLE foo(x DOUBLE) AS SELECT 1 AS x;'
                                'SELECT x, typeof(x) AS t FROM foo'),
                         '"x","t"\n1.000000,"real"\n')
        self.assertEqual(self.q('CREATE PERFETTO TABLE foo(x LONG) AS SELECT 1.5 AS x;'
                                'SELECT x FROM foo'), '"x"\n1.500000\n')
        err = self.error('CREATE PERFETTO TABLE foo(x TIMESTAMP) AS SELECT "a" AS x')
        self.assertIn("CREATE PERFETTO TABLE(foo): column 'x' declared as LONG in the "
                      "schema, but STRING found", err)
        err = self.error('CREATE PERFETTO TABLE foo(x STRING) AS SELECT 1 AS x')
        self.assertIn("declared as STRING in the schema, but LONG found", err)
        err = self.error('CREATE PERFETTO TABLE foo AS SELECT 1 AS a, 2 AS a')
        self.assertIn('CREATE PERFETTO TABLE: multiple columns are named: a', err)

    def test_table_replace(self):
        self.assertEqual(self.q('CREATE PERFETTO TABLE foo AS SELECT 1 AS a;'
                                'CREATE OR REPLACE PERFETTO TABLE foo AS SELECT 2 AS b;'
                                'SELECT * FROM foo'), '"b"\n2\n')
        err = self.error('CREATE PERFETTO TABLE foo AS SELECT 1 AS a;'
                         'CREATE PERFETTO TABLE foo AS SELECT 2 AS a')
        self.assertIn('already exists', err)

    def test_indexes(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO TABLE foo AS SELECT * FROM slice;'
            'CREATE PERFETTO INDEX foo_track ON foo(track_id);'
            'CREATE OR REPLACE PERFETTO INDEX foo_track_and_name ON foo(track_id, name);'
            "SELECT count(*) AS n FROM foo WHERE track_id = "
            "(SELECT track_id FROM slice WHERE name = 'bar') AND name > 'b';"
            'DROP PERFETTO INDEX foo_track ON foo;'
            'SELECT count(*) AS n FROM foo JOIN track ON foo.track_id = track.id'),
            '"n"\n2\n\n"n"\n3\n')
        err = self.error('CREATE PERFETTO TABLE foo AS SELECT * FROM slice;'
                         'CREATE PERFETTO INDEX i ON foo(ts); CREATE PERFETTO INDEX i ON foo(ts)')
        self.assertIn("CREATE PERFETTO INDEX: Index 'i' already exists", err)
        err = self.error('CREATE PERFETTO TABLE foo AS SELECT * FROM slice;'
                         'DROP PERFETTO INDEX i ON foo')
        self.assertIn("DROP PERFETTO INDEX: Index 'i' not found", err)
        err = self.error('CREATE PERFETTO INDEX i ON nosuch(ts)')
        self.assertIn("CREATE PERFETTO INDEX: table 'nosuch' does not exist", err)

    def test_index_answers_as_a_scan(self):
        # 500 rows of pseudo-random a (0..9, some NULL), b (0..99), s
        # (strings); each query gives the same rows through the index as
        # through a copy of the table without one.
        rows = ('WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n '
                'WHERE i < 499) SELECT i AS id2, iif(i % 17 = 0, NULL, (i * 7) % 10) AS a, '
                "(i * 31) % 100 AS b, 'k' || ((i * 13) % 20) AS s, i * 0.5 AS d FROM n")
        queries = [
            'SELECT id2 FROM %s WHERE a = 5 ORDER BY id2',
            'SELECT id2 FROM %s WHERE a = 5 AND b > 40 ORDER BY id2',
            'SELECT id2, a FROM %s WHERE a BETWEEN 2 AND 4 ORDER BY a, id2',
            'SELECT count(*) FROM %s WHERE a IS NULL',
            "SELECT id2 FROM %s WHERE s = 'k7' ORDER BY id2",
            "SELECT id2 FROM %s WHERE s > 'k3' AND s <= 'k5' ORDER BY id2",
            'SELECT id2 FROM %s WHERE a = 3 AND s = \'k9\' ORDER BY id2',
            'SELECT id2 FROM %s WHERE d >= 100.25 AND d < 110 ORDER BY id2',
            'SELECT a FROM %s WHERE a > 6 ORDER BY a',
            'SELECT count(*) FROM %s WHERE a = 2.5',
        ]
        setup = ('CREATE PERFETTO TABLE plain AS %s; CREATE PERFETTO TABLE ix AS %s;'
                 'CREATE PERFETTO INDEX ix_a_b ON ix(a, b); CREATE PERFETTO INDEX ix_s ON ix(s);'
                 'CREATE PERFETTO INDEX ix_d ON ix(d);' % (rows, rows))
        plain = self.q(setup + ';'.join(q % 'plain' for q in queries))
        indexed = self.q(setup + ';'.join(q % 'ix' for q in queries))
        self.assertEqual(indexed, plain)
        self.assertIn('"count(*)"\n30\n', plain)  # the NULLs: i % 17 == 0
        # Replaced and dropped indexes leave the answers alone too.
        again = self.q(setup + 'CREATE OR REPLACE PERFETTO INDEX ix_a_b ON ix(b);'
                       'DROP PERFETTO INDEX ix_s ON ix;' +
                       ';'.join(q % 'ix' for q in queries))
        self.assertEqual(again, plain)

    # --- views ---
    def test_views(self):
        self.assertEqual(self.q("CREATE PERFETTO VIEW foo(x LONG, y STRING) AS "
                                "SELECT 1 as x, 'test' as y; SELECT * FROM foo"),
                         '"x","y"\n1,"test"\n')
        self.assertEqual(self.q('CREATE PERFETTO VIEW v AS SELECT 1 AS a;'
                                'CREATE OR REPLACE PERFETTO VIEW v AS SELECT 2 AS a;'
                                'SELECT a FROM v'), '"a"\n2\n')

    # --- macros ---
    def test_macros(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO MACRO constant_macro() RETURNS Expr AS (SELECT 1);'
            'SELECT constant_macro!();'
            'CREATE PERFETTO MACRO constant_macro_no_bracket() RETURNS Expr AS 2;'
            'SELECT constant_macro_no_bracket!();'
            'CREATE PERFETTO MACRO single_arg_macro(x Expr) RETURNS Expr AS (SELECT $x);'
            'SELECT constant_macro!() + single_arg_macro!(100)'),
            '"(SELECT 1)"\n1\n\n"2"\n2\n\n"(SELECT 1) + (SELECT 100)"\n101\n')

    def test_table_macro_and_nesting(self):
        self.assertEqual(self.q(
            'CREATE PERFETTO MACRO multi_arg_macro(x TableOrSubquery, y Expr) '
            'RETURNS TableOrSubquery AS '
            '(SELECT input_tab.input_col + $y AS v FROM $x AS input_tab);'
            'SELECT v FROM multi_arg_macro!((SELECT dur AS input_col FROM slice), 1) '
            'ORDER BY v'), '"v"\n10001\n20001\n50001\n')
        self.assertEqual(self.q(
            'CREATE PERFETTO MACRO inc(x Expr) RETURNS Expr AS $x + 1;'
            'CREATE PERFETTO MACRO col(t TableOrSubquery, c ColumnName) '
            'RETURNS TableOrSubquery AS (SELECT $c FROM $t);'
            'SELECT inc!(2), inc!(inc!(3)); SELECT * FROM col!(slice, name) ORDER BY 1'),
            '"2 + 1","3 + 1 + 1"\n3,5\n\n"name"\n"bar"\n"foo"\n"foo"\n')

    def test_builtin_list_macros(self):
        # weft's list macros, for macros over any number of tables/columns.
        self.assertEqual(self.q('CREATE PERFETTO MACRO m(x Expr, i Expr, k Expr) RETURNS Expr '
                                'AS $x * $k + $i;'
                                'CREATE PERFETTO MACRO plus(x Expr, i Expr) RETURNS Expr AS + $x;'
                                'SELECT __weft_list_map!(m, (1, 2), 10) AS a, '
                                '__weft_list_count!((a, (b, c))) AS n, '
                                '__weft_list_count!(()) AS z, __weft_paste!(1, 2) AS p, '
                                '0 __weft_list_each!(plus, (1, 2, 3)) AS s, '
                                '__weft_list_unparen!((4, 5))'),
                         '"1 * 10 + 0","a","n","z","p","s","4","5"\n'
                         '10,21,2,0,12,6,4,5\n')
        err = self.error('SELECT __weft_list_count!(a)')
        self.assertIn("__weft_list_count: expected a parenthesised list, got 'a'", err)

    def test_macro_errors_and_limits(self):
        self.assertIn("unknown macro 'nope'", self.error('SELECT nope!(1)'))
        err = self.error('CREATE PERFETTO MACRO m(x Expr) RETURNS Expr AS $x; SELECT m!(1, 2)')
        self.assertIn('macro m: expected 1 arguments, got 2', err)
        err = self.error('CREATE PERFETTO MACRO m(x Expr) RETURNS Expr AS m!($x); SELECT m!(1)')
        self.assertIn('macro expansion deeper than', err)
        # Each level quadruples: stopped by the size bound, not memory.
        err = self.error('CREATE PERFETTO MACRO m(x Expr) RETURNS Expr AS '
                         'm!($x || $x || $x || $x); SELECT m!(1)')
        self.assertIn('macro expansion', err)
        # != is not a macro call.
        self.assertEqual(self.q('SELECT 1!=2 AS v'), '"v"\n1\n')

    # --- includes ---
    def test_include(self):
        self.assertEqual(self.q('INCLUDE PERFETTO MODULE slices.with_context;'
                                'INCLUDE PERFETTO MODULE slices.with_context;'
                                'SELECT count(*) AS n FROM thread_slice'), '"n"\n3\n')
        self.assertEqual(self.q('INCLUDE PERFETTO MODULE *; SELECT 1 AS v'), '"v"\n1\n')
        err = self.error('INCLUDE PERFETTO MODULE nope.nope')
        self.assertIn("INCLUDE: Package 'nope.nope' not found", err)
        err = self.error('INCLUDE PERFETTO MODULE slices.nope')
        self.assertIn("INCLUDE: unknown module 'slices.nope'", err)

    def test_include_example_android_startups(self):
        # The syntax doc's INCLUDE example, on an Android 13 trace with one
        # cold startup of com.example (see test_stdlib_android_startup).
        trace = e.textproto_trace(self.dir, 'startup', textproto(SDK33[:18]))
        self.assertEqual(e.query('INCLUDE PERFETTO MODULE android.startup.startups;\n'
                                 'SELECT *\nFROM android_startups;', trace),
                         '"startup_id","ts","ts_end","dur","dur_without_trampoline",'
                         '"package","startup_type"\n'
                         '1,1000000000,1500000000,500000000,500000000,"com.example","cold"\n')

    def test_prelude_macros(self):
        self.assertEqual(self.q('SELECT cast_int!(2.7) AS i, cast_double!(2) AS d, '
                                'cast_string!(3) AS s'), '"i","d","s"\n2,2.000000,"3"\n')

    # --- errors name the statement ---
    def test_traceback_names_line_and_column(self):
        err = self.error('SELECT 1;\n\nSELECT nope FROM slice')
        self.assertIn('  File "stdin" line 3 col 8\n    SELECT nope FROM slice\n'
                      '           ^\nno such column: nope', err)

    def test_query_file_errors_name_the_file(self):
        path = e.write_temp(self.dir, 'q.sql', 'SELECT 1;\nSELECT * FROM nosuch;\n')
        rc, out, err = e.run('-q', path, self.trace)
        self.assertEqual(rc, 1)
        self.assertIn('File "%s" line 2 col 1' % path, err)
        self.assertIn('no such table: nosuch', err)

    def test_query_from_standard_input(self):
        rc, out, err = e.run('-q', '-', self.trace,
                             stdin=b'CREATE PERFETTO FUNCTION f() RETURNS LONG AS SELECT 7;\n'
                                   b'SELECT f() AS v;\n')
        self.assertEqual((rc, out), (0, '"v"\n7\n'), err)

    def test_shell_read_and_schema(self):
        path = e.write_temp(self.dir, 'r.sql',
                            'CREATE PERFETTO TABLE t AS SELECT 1 AS a, \'x\' AS b;\n'
                            'SELECT a FROM t;\n')
        rc, out, err = e.run(self.trace, stdin=('.read %s\n.schema t\n.quit\n' % path)
                             .encode())
        self.assertEqual(rc, 0, err)
        self.assertIn('CREATE TABLE t(a BIGINT, b TEXT);', out)
        lines = [l.strip() for l in out.splitlines()]
        self.assertIn('a', lines)
        self.assertIn('1', lines)


if __name__ == '__main__':
    e.main()
