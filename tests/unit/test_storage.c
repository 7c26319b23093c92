#include "check.h"
#include "sql/sql.h"
#include "storage/storage.h"

static const storage_column_def test_defs[] = {
    {"id", STORAGE_ID, 0},
    {"ts", STORAGE_I64, STORAGE_SORTED},
    {"name", STORAGE_STR, 0},
    {"value", STORAGE_F64, STORAGE_NULLABLE},
    {"tag", STORAGE_I64, STORAGE_NULLABLE},
};

static base_string_pool pool;

static void fill(storage_table *t, int rows) {
  CHECK_EQ_INT(storage_table_init(t, "test", test_defs, 5), 0);
  for (int i = 0; i < rows; i++) {
    uint32_t row;
    CHECK_EQ_INT(storage_table_append(t, &row), 0);
    storage_set_i64(t, 1, row, i * 10);
    string_id s;
    const char *name = (i % 3 == 0) ? "a" : "b";
    base_string_pool_intern(&pool, name, 1, &s);
    storage_set_str(t, 2, row, s);
    if (i % 2 == 0) storage_set_f64(t, 3, row, i / 2.0);
    storage_set_i64(t, 4, row, i % 5);
  }
}

static void test_columns(void) {
  storage_table t;
  fill(&t, 100);
  CHECK_EQ_INT(t.row_count, 100);
  CHECK(t.columns[1].sorted);
  CHECK(storage_is_null(&t, 3, 1));
  CHECK(!storage_is_null(&t, 3, 2));
  CHECK_EQ_INT(storage_lower_bound_i64(&t, 1, 0, 100, 55, 0), 6);
  CHECK_EQ_INT(storage_lower_bound_i64(&t, 1, 0, 100, 50, 1), 6);
  storage_set_i64(&t, 1, 50, 1); /* breaks the order */
  CHECK(!t.columns[1].sorted);
  storage_table_free(&t);
}

typedef struct collected {
  char text[4096];
  size_t len;
} collected;

static int on_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  collected *c = user;
  for (int i = 0; i < n; i++) {
    int w = 0;
    if (cells[i].type == WEFT_CELL_INT)
      w = snprintf(c->text + c->len, sizeof c->text - c->len, "%lld,", (long long)cells[i].i);
    else if (cells[i].type == WEFT_CELL_STRING)
      w = snprintf(c->text + c->len, sizeof c->text - c->len, "%s,", cells[i].s);
    else if (cells[i].type == WEFT_CELL_DOUBLE)
      w = snprintf(c->text + c->len, sizeof c->text - c->len, "%g,", cells[i].d);
    else
      w = snprintf(c->text + c->len, sizeof c->text - c->len, "N,");
    if (w > 0) c->len += (size_t)w;
  }
  if (c->len < sizeof c->text - 1) c->text[c->len++] = ';';
  c->text[c->len] = 0;
  return 0;
}

static const char *query(sql_engine *e, const char *sql) {
  static collected c;
  memset(&c, 0, sizeof c);
  weft_query_callbacks cb = {NULL, on_row, &c};
  base_error err = {0};
  if (sql_engine_execute(e, sql, &cb, &err) != 0) {
    snprintf(c.text, sizeof c.text, "ERROR %s", err.message);
  }
  return c.text;
}

static void test_vtab_queries(void) {
  storage_table t;
  fill(&t, 100);
  storage_table *tables[] = {&t};
  sql_engine *e = NULL;
  base_error err = {0};
  CHECK_EQ_INT(sql_engine_open(&e, tables, 1, &pool, &err), 0);
  CHECK_EQ_STR(query(e, "select count(*) from test"), "100,;");
  CHECK_EQ_STR(query(e, "select id, ts from test where id = 7"), "7,70,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where ts between 100 and 199"), "10,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where ts > 985.5"), "1,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where ts < 10.5"), "2,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where ts = 10.5"), "0,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where ts = '20'"), "1,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where name = 'a'"), "34,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where name = 'zzz'"), "0,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where tag = 3"), "20,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where value is null"), "50,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where id > 95 and id <= 97"), "2,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where id = -1 or id = 1000"), "0,;");
  CHECK_EQ_STR(query(e, "select count(*) from test where ts = null"), "0,;");
  CHECK_EQ_STR(query(e, "select id from test where ts >= 960 order by ts"), "96,;97,;98,;99,;");
  CHECK_EQ_STR(query(e, "select id from test where ts >= 970 order by ts desc"), "99,;98,;97,;");
  CHECK_EQ_STR(query(e, "select value from test where id in (2, 3)"), "1,;N,;");
  /* Multiple statements and errors. */
  CHECK_EQ_STR(query(e, "create table x(a); insert into x values (5); select a from x;"), "5,;");
  CHECK(strncmp(query(e, "select nope from test"), "ERROR", 5) == 0);
  CHECK(strncmp(query(e, "INCLUDE PERFETTO MODULE does.not.exist;"), "ERROR", 5) == 0);
  sql_engine_close(e);
  storage_table_free(&t);
}

int main(void) {
  base_string_pool_init(&pool);
  RUN_TEST(test_columns);
  RUN_TEST(test_vtab_queries);
  base_string_pool_free(&pool);
  return CHECK_SUMMARY();
}
