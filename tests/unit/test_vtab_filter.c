/* vtab_filter: the block check gives exactly the rows the row check
 * passes, for int columns of every width and sign, with and without
 * NULLs, never written, and string columns; and SQL over the virtual
 * table counts what a plain SQLite copy counts. */
#include <sqlite3.h>
#include <stdio.h>

#include "check.h"
#include "sql/sql.h"
#include "sql/vtab_filter.h"
#include "storage/storage.h"

static const storage_column_def defs[] = {
    {"id", STORAGE_ID, 0},
    {"small", STORAGE_I64, 0},       /* int8 */
    {"positive", STORAGE_I64, 0},    /* uint16 */
    {"mid", STORAGE_I64, 0},         /* int32 */
    {"big", STORAGE_I64, 0},         /* int64 */
    {"opt", STORAGE_I64, STORAGE_NULLABLE},
    {"never", STORAGE_I64, 0},       /* no value ever set */
    {"never_null", STORAGE_I64, STORAGE_NULLABLE},
    {"name", STORAGE_STR, 0},
};
enum { C_ID, C_SMALL, C_POSITIVE, C_MID, C_BIG, C_OPT, C_NEVER, C_NEVER_NULL, C_NAME, C_COUNT };

#define ROWS 5000

static uint32_t next_random(uint32_t *x) {
  *x = *x * 1664525u + 1013904223u;
  return *x >> 8;
}

static void fill(storage_table *t, base_string_pool *pool) {
  CHECK_EQ_INT(storage_table_init(t, "t", defs, C_COUNT), 0);
  const char *names[] = {"a", "b", "c"};
  string_id ids[3];
  for (int i = 0; i < 3; i++) base_string_pool_intern(pool, names[i], 1, &ids[i]);
  uint32_t x = 7;
  for (int i = 0; i < ROWS; i++) {
    uint32_t row;
    CHECK_EQ_INT(storage_table_append(t, &row), 0);
    storage_set_i64(t, C_SMALL, row, (int64_t)(next_random(&x) % 200) - 100);
    storage_set_i64(t, C_POSITIVE, row, (int64_t)(next_random(&x) % 60000));
    /* signed from the first row: a sign change would widen it to 8 bytes */
    storage_set_i64(t, C_MID, row, i == 0 ? -5 : (int64_t)next_random(&x) - (1 << 23));
    storage_set_i64(t, C_BIG, row, ((int64_t)next_random(&x) << 30) - ((int64_t)1 << 50));
    if (next_random(&x) % 3) storage_set_i64(t, C_OPT, row, (int64_t)(next_random(&x) % 10));
    uint32_t n = next_random(&x) % 4;
    storage_set_str(t, C_NAME, row, n < 3 ? ids[n] : STRING_NULL);
  }
  CHECK_EQ_INT(storage_column_width(t, C_SMALL), 1);
  CHECK_EQ_INT(storage_column_width(t, C_POSITIVE), 2);
  CHECK(t->columns[C_POSITIVE].is_unsigned);
  CHECK_EQ_INT(storage_column_width(t, C_MID), 4);
  CHECK_EQ_INT(storage_column_width(t, C_BIG), 8);
  CHECK_EQ_INT(storage_column_width(t, C_NEVER), 0);
}

static vtab_filter random_filter(uint32_t *x, string_id some_name) {
  static const int int_columns[] = {C_SMALL, C_POSITIVE, C_MID, C_BIG, C_OPT, C_NEVER, C_NEVER_NULL};
  vtab_filter f;
  memset(&f, 0, sizeof f);
  uint32_t pick = next_random(x) % 10;
  if (pick == 0) {
    f.column = C_NAME;
    f.kind = VTAB_STR_EQUAL;
    f.str = some_name;
    return f;
  }
  if (pick == 1) {
    f.kind = VTAB_NOTHING;
    return f;
  }
  f.column = int_columns[next_random(x) % 7];
  int64_t a = (int64_t)(next_random(x) % 200) - 100, b = a + (int64_t)(next_random(x) % 80);
  if (f.column == C_MID || f.column == C_BIG) a *= 1 << 20, b *= 1 << 22;
  if (f.column == C_POSITIVE) a = (a + 100) * 300, b = a + 9000;
  if (next_random(x) % 3 == 0) {
    f.kind = VTAB_INT_EQUAL;
    f.i64 = f.column == C_NEVER || f.column == C_OPT ? (int64_t)(next_random(x) % 3) : a;
  } else {
    f.kind = VTAB_INT_RANGE;
    f.lo = next_random(x) % 5 ? a : INT64_MIN;
    f.hi = next_random(x) % 5 ? b : INT64_MAX;
  }
  return f;
}

static void test_block_equals_rows(void) {
  base_string_pool pool;
  base_string_pool_init(&pool);
  storage_table t;
  fill(&t, &pool);
  string_id b;
  base_string_pool_intern(&pool, "b", 1, &b);
  uint32_t x = 99;
  uint16_t sel[VTAB_FILTER_BLOCK];
  for (int trial = 0; trial < 3000; trial++) {
    vtab_filter f[3];
    int n = 1 + (int)(next_random(&x) % 3);
    for (int k = 0; k < n; k++) f[k] = random_filter(&x, b);
    size_t from = next_random(&x) % ROWS;
    size_t count = 1 + next_random(&x) % VTAB_FILTER_BLOCK;
    if (from + count > ROWS) count = ROWS - from;
    size_t kept = vtab_filter_block(&t, f, n, from, count, sel);
    size_t expected = 0;
    int same = 1;
    for (size_t row = from; row < from + count; row++) {
      if (!vtab_filter_row(&t, f, n, row)) continue;
      if (expected >= kept || from + sel[expected] != row) same = 0;
      expected++;
    }
    CHECK(same && kept == expected);
  }
  storage_table_free(&t);
  base_string_pool_free(&pool);
}

/* Counts over the virtual table equal SQLite's over a plain copy, for
 * filtered scans that cross many blocks and end mid-block. */
static void test_sql_counts_match_a_copy(void) {
  base_string_pool pool;
  base_string_pool_init(&pool);
  storage_table t;
  fill(&t, &pool);
  storage_table *tables[] = {&t};
  sql_engine *e = NULL;
  base_error err;
  CHECK_EQ_INT(sql_engine_open(&e, tables, 1, &pool, &err), 0);
  sqlite3 *db = sql_engine_db(e);
  CHECK(sqlite3_exec(db,
                     "create table copy as select id, small, positive, mid, big, opt, never, "
                     "never_null, name from t",
                     NULL, NULL, NULL) == SQLITE_OK);
  static const char *where[] = {
      "small >= 3", "small between -5 and 5 and opt = 2", "positive < 1000",
      "mid > 0 and big < 0", "opt >= 1", "opt is null", "never = 0", "never_null = 0",
      "name = 'b'", "name = 'zzz'", "small = 7 and name = 'a'", "id > 100 and small < 0",
      "big >= 1e15", "opt < 2.5", "opt = 2 and positive >= 30000 and mid <= 0"};
  for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
    char sql[512];
    snprintf(sql, sizeof sql, "select (select count(*) from t where %s), "
             "(select count(*) from copy where %s), "
             "(select group_concat(id) from (select id from t where %s order by rowid)) is "
             "(select group_concat(id) from (select id from copy where %s order by rowid))",
             where[i], where[i], where[i], where[i]);
    sqlite3_stmt *st = NULL;
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    CHECK(sqlite3_step(st) == SQLITE_ROW);
    CHECK_EQ_INT(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
    if (sqlite3_column_int(st, 2) != 1) printf("differs: %s\n", where[i]);
    CHECK(sqlite3_column_int(st, 2) == 1);
    sqlite3_finalize(st);
  }
  sql_engine_close(e);
  storage_table_free(&t);
  base_string_pool_free(&pool);
}

int main(void) {
  RUN_TEST(test_block_equals_rows);
  RUN_TEST(test_sql_counts_match_a_copy);
  return CHECK_SUMMARY();
}
