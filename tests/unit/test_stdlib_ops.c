/* The stdlib operators (sql/op_intervals.c, sql/op_graph.c, sql/op_tree.c)
 * on a bare SQLite database: each query's rows are joined into one string
 * "a,b;c,d;" (NULL as "n") and compared with answers worked out by hand. */
#include <sqlite3.h>
#include <stdlib.h>

#include "check.h"
#include "sql/stdlib_ops.h"

static char result[4096];

static const char *run(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  size_t n = 0;
  result[0] = 0;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    snprintf(result, sizeof result, "error: %s", sqlite3_errmsg(db));
    return result;
  }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int c = 0; c < sqlite3_column_count(st); c++) {
      const char *text = (const char *)sqlite3_column_text(st, c);
      n += (size_t)snprintf(result + n, sizeof result - n, "%s%s", c ? "," : "",
                            text ? text : "n");
    }
    n += (size_t)snprintf(result + n, sizeof result - n, ";");
  }
  if (rc != SQLITE_DONE) snprintf(result, sizeof result, "error: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return result;
}

static sqlite3 *open_db(void) {
  sqlite3 *db = NULL;
  CHECK_EQ_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
  CHECK_EQ_INT(sql_stdlib_ops_register(db), SQLITE_OK);
  CHECK_EQ_INT(sqlite3_exec(db,
                            "CREATE TABLE a(id, ts, dur, p);"
                            "INSERT INTO a VALUES (1, 0, 10, 1), (2, 5, 10, 1),"
                            " (3, 20, 0, 1), (4, 30, 5, 2), (5, 40, 3, 1);"
                            "CREATE TABLE b(id, ts, dur, p);"
                            "INSERT INTO b VALUES (10, 8, 4, 1), (11, 15, 10, 1),"
                            " (12, 31, 2, 2), (13, 35, 10, 2), (14, 41, 3, 1),"
                            " (15, 10, 0, 1);"
                            "CREATE TABLE g(s, d, w);"
                            "INSERT INTO g VALUES (1, 2, 3), (1, 3, 1), (2, 4, 2),"
                            " (3, 4, 5), (4, 5, 1), (3, 6, 2), (6, 1, 0), (7, 8, 0);",
                            NULL, NULL, NULL),
               SQLITE_OK);
  return db;
}

/* Pieces meet when they start together or each starts before the other
 * ends: a zero-length interval meets one starting at its point or strictly
 * around it, not one ending there; touching intervals do not meet. */
static void test_intersect_two(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(run(db, "SELECT ts, dur, id_0, id_1 FROM __weft_interval_intersect("
                       "(SELECT __weft_rows_agg(column1, column2, column3) FROM (VALUES"
                       " (1, 10, 0), (2, 20, 0), (3, 40, 0), (4, 50, 5), (5, 60, 0))),"
                       "(SELECT __weft_rows_agg(column1, column2, column3) FROM (VALUES"
                       " (10, 10, 10), (11, 40, 0), (12, 55, 5), (13, 60, 0))))"),
               "10,0,1,10;40,0,3,11;60,0,5,13;");
  CHECK_EQ_STR(run(db, "SELECT ts, dur, id_0, id_1 FROM __weft_interval_intersect("
                       "(SELECT __weft_rows_agg(id, ts, dur) FROM a),"
                       "(SELECT __weft_rows_agg(id, ts, dur) FROM b))"),
               "8,2,1,10;8,4,2,10;10,0,2,15;20,0,3,11;31,2,4,12;40,3,5,13;41,2,5,14;");
  sqlite3_close(db);
}

static void test_intersect_partitioned(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(run(db, "SELECT ts, dur, id_0, id_1, key_0 FROM __weft_interval_intersect("
                       "(SELECT __weft_rows_agg(id, ts, dur, p) FROM a),"
                       "(SELECT __weft_rows_agg(id, ts, dur, p) FROM b))"),
               "8,2,1,10,1;8,4,2,10,1;10,0,2,15,1;20,0,3,11,1;41,2,5,14,1;31,2,4,12,2;");
  /* three tables: every triple meeting pairwise, ids in table order */
  CHECK_EQ_STR(run(db, "SELECT ts, dur, id_0, id_1, id_2 FROM __weft_interval_intersect("
                       "(SELECT __weft_rows_agg(id, ts, dur, p) FROM a),"
                       "(SELECT __weft_rows_agg(id, ts, dur, p) FROM b),"
                       "(SELECT __weft_rows_agg(id, ts, dur, p) FROM a)) WHERE key_0 = 1"),
               "8,2,1,10,1;8,2,1,10,2;8,2,2,10,1;8,4,2,10,2;10,0,2,15,2;20,0,3,11,3;"
               "41,2,5,14,5;");
  sqlite3_close(db);
}

static void test_intersect_errors(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_interval_intersect("
                       "(SELECT __weft_rows_agg(1, 5, -1)),"
                       "(SELECT __weft_rows_agg(id, ts, dur) FROM b))"),
               "error: Interval intersect only works on intervals with non negative "
               "duration.");
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_interval_intersect("
                       "(SELECT __weft_rows_agg('x', 1, 2)), (SELECT __weft_rows_agg(1, 1, 2)))"),
               "error: __weft_rows_agg: columns must be integers");
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_interval_intersect(1, 2)"),
               "error: __weft_interval_intersect: argument 0 is not a table");
  /* an empty side gives no rows */
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_interval_intersect("
                       "(SELECT __weft_rows_agg(id, ts, dur) FROM a WHERE 0),"
                       "(SELECT __weft_rows_agg(id, ts, dur) FROM b))"),
               "");
  sqlite3_close(db);
}

/* Points 10 20 30 45 50 52 53 55: rows for the points each interval covers,
 * then one per interval at its end. */
static void test_self_intersect(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_interval_self_intersect((SELECT "
                       "__weft_rows_agg(column1, column2, column3) FROM (VALUES "
                       "(1, 10, 20), (2, 20, 25), (3, 50, 5), (4, 50, 0), (5, 52, 1))))"),
               "10,10,1,1,0;20,10,2,1,0;20,10,2,2,0;30,15,3,2,0;50,2,5,3,0;52,1,6,3,0;"
               "53,2,7,3,0;52,1,6,5,0;30,15,3,1,1;45,5,4,2,1;55,0,8,3,1;50,2,5,4,1;"
               "53,2,7,5,1;");
  sqlite3_close(db);
}

static void test_search(void) {
  sqlite3 *db = open_db();
  const char *edges = "(SELECT __weft_rows_agg(s, d) FROM g)";
  char sql[512];
  snprintf(sql, sizeof sql,
           "SELECT * FROM __weft_graph_dfs(%s, (SELECT __weft_rows_agg(column1) "
           "FROM (VALUES (1), (7), (3))))", edges);
  CHECK_EQ_STR(run(db, sql), "3,n;4,3;5,4;6,3;1,6;2,1;7,n;8,7;");
  snprintf(sql, sizeof sql,
           "SELECT * FROM __weft_graph_bfs(%s, (SELECT __weft_rows_agg(column1) "
           "FROM (VALUES (1), (7), (3))))", edges);
  CHECK_EQ_STR(run(db, sql), "1,n;7,n;3,n;2,1;8,7;4,3;6,3;5,4;");
  sqlite3_close(db);
}

static void test_dominator_tree(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_graph_dominator_tree((SELECT "
                       "__weft_rows_agg(column1, column2) FROM (VALUES (1, 2), (1, 3), "
                       "(2, 4), (3, 4), (4, 5), (3, 6), (6, 5), (5, 1))), 1)"),
               "1,n;2,1;4,1;5,1;3,1;6,3;");
  sqlite3_close(db);
}

/* No edges: every walk is empty; a dominator root no edge touches fails. */
static void test_graph_edges_missing(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_graph_dfs((SELECT __weft_rows_agg(s, d) "
                       "FROM g WHERE 0), (SELECT __weft_rows_agg(9)))"),
               "");
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_graph_dfs((SELECT __weft_rows_agg(s, d) "
                       "FROM g WHERE s = 1), (SELECT __weft_rows_agg(9)))"),
               "9,n;");
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_graph_dominator_tree((SELECT "
                       "__weft_rows_agg(s, d) FROM g), 99)"),
               "error: dominator_tree: root node is not in the graph");
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_graph_weight_bounded_dfs((SELECT "
                       "__weft_rows_agg(s, d, w) FROM g), (SELECT __weft_rows_agg(99, 5)), 1)"),
               "");
  sqlite3_close(db);
}

static void test_partition(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_tree_partition((SELECT "
                       "__weft_rows_agg(column1, column2, column3) FROM (VALUES "
                       "(1, NULL, 1), (2, 1, 1), (3, 2, 2), (4, 2, 2), (5, 3, 1), "
                       "(6, 3, 3), (7, 4, 2), (8, 4, 1))))"),
               "1,n,1;2,1,1;4,n,2;8,2,1;7,4,2;3,n,2;6,n,3;5,2,1;");
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_tree_partition((SELECT "
                       "__weft_rows_agg(column1, column2, column3) FROM (VALUES "
                       "(1, NULL, 1), (2, NULL, 1))))"),
               "error: tree_partition: multiple NULL parent_ids. Only one root (i.e. one "
               "NULL parent_id) expected.");
  sqlite3_close(db);
}

/* Root 1 target 5: 1 (0), 2 (3), 4 (5), then 5 would be 6: kept as a floor,
 * dropped as a ceiling, and either way that root's walk ends. */
static void test_weight_bounded(void) {
  sqlite3 *db = open_db();
  const char *base = "SELECT * FROM __weft_graph_weight_bounded_dfs("
                     "(SELECT __weft_rows_agg(s, d, w) FROM g WHERE s < 6),"
                     "(SELECT __weft_rows_agg(column1, column2) FROM (VALUES (1, 5), (3, 2))), ";
  char sql[512];
  snprintf(sql, sizeof sql, "%s1)", base);
  CHECK_EQ_STR(run(db, sql), "1,1,n;1,2,1;1,4,2;1,5,4;3,3,n;3,4,3;");
  snprintf(sql, sizeof sql, "%s0)", base);
  CHECK_EQ_STR(run(db, sql), "1,1,n;1,2,1;1,4,2;3,3,n;");
  sqlite3_close(db);
}

/* ---- __weft_tree_accumulate ---- */

static const char *accumulate(sqlite3 *db, const char *values) {
  char sql[1024];
  snprintf(sql, sizeof sql,
           "SELECT * FROM __weft_tree_accumulate((SELECT __weft_rows_agg(column1, "
           "column2, column3) FROM (VALUES %s)))",
           values);
  return run(db, sql);
}

/* Two trees; a child listed before its parent; a NULL value counts 0. */
static void test_forest(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(accumulate(db, "(5, 2, 4), (1, NULL, 1), (2, 1, 0), (3, 1, 2), (4, 2, NULL),"
                              " (10, NULL, 7), (11, 10, 1)"),
               "5,4;1,7;2,4;3,2;4,0;10,8;11,1;");
  sqlite3_close(db);
}

/* A parent naming no row is a root; a repeated id counts once; a cycle and
 * what sits above it are left out. */
static void test_odd_trees(void) {
  sqlite3 *db = open_db();
  CHECK_EQ_STR(accumulate(db, "(1, 99, 3), (2, 1, 4), (2, 1, 50)"), "1,7;2,4;");
  CHECK_EQ_STR(accumulate(db, "(1, 2, 1), (2, 1, 1), (3, 1, 1), (4, 3, 1), (5, NULL, 1),"
                              " (6, 5, 1)"),
               "3,2;4,1;5,2;6,1;");
  CHECK_EQ_STR(accumulate(db, "(1, 1, 1)"), "");
  CHECK_EQ_STR(accumulate(db, "(NULL, NULL, 1), (1, NULL, 2)"), "1,2;");
  CHECK_EQ_STR(accumulate(db, "(1, NULL, 9223372036854775807), (2, 1, 5)"),
               "1,9223372036854775807;2,5;");
  CHECK_EQ_STR(run(db, "SELECT * FROM __weft_tree_accumulate((SELECT __weft_rows_agg(1, 2)))"),
               "error: tree_accumulate: needs (id, parent_id, value) rows");
  sqlite3_close(db);
}

int main(void) {
  RUN_TEST(test_intersect_two);
  RUN_TEST(test_intersect_partitioned);
  RUN_TEST(test_intersect_errors);
  RUN_TEST(test_self_intersect);
  RUN_TEST(test_search);
  RUN_TEST(test_dominator_tree);
  RUN_TEST(test_graph_edges_missing);
  RUN_TEST(test_partition);
  RUN_TEST(test_weight_bounded);
  RUN_TEST(test_forest);
  RUN_TEST(test_odd_trees);
  return CHECK_SUMMARY();
}
