/* Views created on first use (sql/views_lazy.c): which views a piece of SQL
 * creates, everything for schema reads, and views a rollback dropped are
 * created again. Runs on a bare SQLite database (a
 * view need not have its tables to be created). */
#include <sqlite3.h>

#include "check.h"
#include "sql/sql.h"

/* Views in the schema, read straight from SQLite (not through ensure). */
static int view_count(sqlite3 *db) {
  sqlite3_stmt *st = NULL;
  int n = -1;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'view'",
                         -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n;
}

static int view_exists(sqlite3 *db, const char *name) {
  sqlite3_stmt *st = NULL;
  int n = -1;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'view' "
                         "AND name = ?", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n == 1;
}

static sqlite3 *open_db(sql_views *v) {
  sqlite3 *db = NULL;
  base_error err = {0};
  CHECK_EQ_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
  CHECK_EQ_INT(sql_views_init(v, db, &err), WEFT_OK);
  return db;
}

static int ensure(sql_views *v, const char *sql) {
  base_error err = {0};
  int rc = sql_views_ensure(v, sql, &err);
  if (rc) fprintf(stderr, "  ensure(%s): %s\n", sql, err.message);
  return rc;
}

static void test_words_name_views(void) {
  sql_views v;
  sqlite3 *db = open_db(&v);
  CHECK_EQ_INT(ensure(&v, "select 1"), WEFT_OK);
  CHECK_EQ_INT(view_count(db), 0);
  /* whole words only, any case, quoted or not, in strings too */
  CHECK_EQ_INT(ensure(&v, "select * from counters_x, xcounters, __intrinsic_counters"), WEFT_OK);
  CHECK_EQ_INT(view_count(db), 0);
  CHECK_EQ_INT(ensure(&v, "select * from \"COUNTERS\""), WEFT_OK);
  CHECK(view_exists(db, "counters"));
  CHECK_EQ_INT(view_count(db), 1);
  CHECK_EQ_INT(ensure(&v, "select 'gpu_slice' as [frame_slice]"), WEFT_OK);
  CHECK(view_exists(db, "gpu_slice") && view_exists(db, "frame_slice"));
  CHECK_EQ_INT(view_count(db), 3);
  /* again: nothing new, no error */
  CHECK_EQ_INT(ensure(&v, "select * from counters join gpu_slice"), WEFT_OK);
  CHECK_EQ_INT(view_count(db), 3);
  /* the one-table views are virtual tables (vtab_view.h), never created */
  CHECK_EQ_INT(ensure(&v, "select * from slice join thread using (utid)"), WEFT_OK);
  CHECK_EQ_INT(view_count(db), 3);
  sqlite3_close(db);
}

static void test_schema_reads_create_all(void) {
  const char *const all[] = {"select name from sqlite_master", "PRAGMA table_list",
                             "select * from pragma_table_info('x')",
                             "select * from SQLITE_SCHEMA"};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
    sql_views v;
    sqlite3 *db = open_db(&v);
    CHECK_EQ_INT(ensure(&v, all[i]), WEFT_OK);
    CHECK_EQ_INT(view_count(db), (int)sql_view_statement_count);
    CHECK_EQ_INT(ensure(&v, all[i]), WEFT_OK);
    sqlite3_close(db);
  }
}

static void test_rollback_recreates(void) {
  sql_views v;
  sqlite3 *db = open_db(&v);
  /* created inside the caller's transaction, then rolled back */
  CHECK_EQ_INT(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(ensure(&v, "select * from counters"), WEFT_OK);
  CHECK(view_exists(db, "counters"));
  CHECK_EQ_INT(sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
  CHECK(!view_exists(db, "counters"));
  CHECK_EQ_INT(ensure(&v, "select * from counters"), WEFT_OK);
  CHECK(view_exists(db, "counters"));
  /* a savepoint rolled back (no rollback hook sees this one) */
  CHECK_EQ_INT(sqlite3_exec(db, "SAVEPOINT a", NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(ensure(&v, "select * from gpu_slice"), WEFT_OK);
  CHECK_EQ_INT(sqlite3_exec(db, "ROLLBACK TO a", NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(sqlite3_exec(db, "RELEASE a", NULL, NULL, NULL), SQLITE_OK);
  CHECK(!view_exists(db, "gpu_slice"));
  CHECK_EQ_INT(ensure(&v, "select * from gpu_slice"), WEFT_OK);
  CHECK(view_exists(db, "gpu_slice"));
  /* committed inside a transaction: kept, and not created twice */
  CHECK_EQ_INT(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(ensure(&v, "select * from frame_slice"), WEFT_OK);
  CHECK_EQ_INT(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(ensure(&v, "select * from frame_slice"), WEFT_OK);
  CHECK(view_exists(db, "frame_slice"));
  CHECK_EQ_INT(view_count(db), 3);
  sqlite3_close(db);
}

/* A name SQLite already holds (a table the caller created first) fails
 * nothing: the view is IF NOT EXISTS, as when every view was created up
 * front the caller's CREATE TABLE would have failed instead. */
static void test_existing_name(void) {
  sql_views v;
  sqlite3 *db = open_db(&v);
  CHECK_EQ_INT(sqlite3_exec(db, "CREATE TABLE counters(x)", NULL, NULL, NULL), SQLITE_OK);
  CHECK_EQ_INT(ensure(&v, "select * from counters"), WEFT_OK);
  CHECK(!view_exists(db, "counters"));
  sqlite3_close(db);
}

int main(void) {
  RUN_TEST(test_words_name_views);
  RUN_TEST(test_schema_reads_create_all);
  RUN_TEST(test_rollback_recreates);
  RUN_TEST(test_existing_name);
  return CHECK_SUMMARY();
}
