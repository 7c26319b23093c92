/* The subtree-sum operator (sql/op_tree.c) on a bare SQLite database: each
 * query's rows are joined into one string "a,b;c,d;" (NULL as "n") and
 * compared with answers worked out by hand. */
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
  return db;
}

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
  RUN_TEST(test_forest);
  RUN_TEST(test_odd_trees);
  return CHECK_SUMMARY();
}
