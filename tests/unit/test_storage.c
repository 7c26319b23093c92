#include <math.h>

#include "check.h"
#include "sql/sql.h"
#include "storage/schema.h"
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

/* ---- lazy columns and adaptive widths ---- */

static const storage_column_def lazy_defs[] = {
    {"id", STORAGE_ID, 0},
    {"ts", STORAGE_I64, STORAGE_SORTED},
    {"n", STORAGE_I64, 0},
    {"opt", STORAGE_I64, STORAGE_NULLABLE},
    {"name", STORAGE_STR, 0},
    {"real", STORAGE_F64, STORAGE_NULLABLE},
    {"d", STORAGE_F64, 0},
};
enum { L_ID, L_TS, L_N, L_OPT, L_NAME, L_REAL, L_D, L_COUNT };

static void append_rows(storage_table *t, int rows) {
  for (int i = 0; i < rows; i++) {
    uint32_t row;
    CHECK_EQ_INT(storage_table_append(t, &row), 0);
  }
}

static void test_all_default_allocates_nothing(void) {
  storage_table t;
  CHECK_EQ_INT(storage_table_init(&t, "lazy", lazy_defs, L_COUNT), 0);
  append_rows(&t, 1000);
  /* Writing defaults allocates nothing either. */
  CHECK_EQ_INT(storage_set_i64(&t, L_TS, 5, 0), 0);
  CHECK_EQ_INT(storage_set_i64(&t, L_N, 6, 0), 0);
  CHECK_EQ_INT(storage_set_str(&t, L_NAME, 7, STRING_NULL), 0);
  CHECK_EQ_INT(storage_set_f64(&t, L_D, 8, 0.0), 0);
  storage_set_null(&t, L_OPT, 9);
  storage_set_null(&t, L_NAME, 9);
  CHECK_EQ_INT(storage_table_memory(&t), 0);
  for (size_t c = 0; c < L_COUNT; c++) CHECK_EQ_INT(storage_column_width(&t, c), 0);
  for (size_t row = 0; row < 1000; row += 111) {
    CHECK_EQ_INT(storage_get_i64(&t, L_ID, row), row);
    CHECK_EQ_INT(storage_get_i64(&t, L_TS, row), 0);
    CHECK_EQ_INT(storage_get_i64(&t, L_N, row), 0);
    CHECK(storage_is_null(&t, L_OPT, row));
    CHECK_EQ_INT(storage_get_i64_or(&t, L_OPT, row, -7), -7);
    CHECK(storage_is_null(&t, L_NAME, row));
    CHECK_EQ_INT(storage_get_str(&t, L_NAME, row), STRING_NULL);
    CHECK(storage_is_null(&t, L_REAL, row));
    CHECK(storage_get_f64(&t, L_D, row) == 0.0);
    CHECK(!storage_is_null(&t, L_N, row));
    CHECK(!storage_is_null(&t, L_ID, row));
  }
  CHECK(t.columns[L_TS].sorted);
  /* A nullable column set to 0 needs its bitmap but no values. */
  CHECK_EQ_INT(storage_set_i64(&t, L_OPT, 3, 0), 0);
  CHECK_EQ_INT(storage_column_width(&t, L_OPT), 0);
  CHECK_EQ_INT(storage_table_memory(&t), (t.row_capacity + 63) / 64 * 8);
  CHECK(!storage_is_null(&t, L_OPT, 3));
  CHECK(storage_is_null(&t, L_OPT, 4));
  CHECK_EQ_INT(storage_get_i64_or(&t, L_OPT, 3, -7), 0);
  storage_table_free(&t);
}

static void test_first_set_allocates(void) {
  storage_table t;
  CHECK_EQ_INT(storage_table_init(&t, "lazy", lazy_defs, L_COUNT), 0);
  append_rows(&t, 300);
  CHECK_EQ_INT(storage_set_i64(&t, L_N, 200, 5), 0);
  CHECK_EQ_INT(storage_column_width(&t, L_N), 1);
  CHECK_EQ_INT(storage_table_memory(&t), t.row_capacity * 1);
  CHECK_EQ_INT(storage_set_str(&t, L_NAME, 250, 42), 0);
  CHECK_EQ_INT(storage_column_width(&t, L_NAME), sizeof(string_id));
  CHECK_EQ_INT(storage_set_f64(&t, L_D, 10, -0.0), 0); /* not the default */
  CHECK_EQ_INT(storage_column_width(&t, L_D), 8);
  CHECK(signbit(storage_get_f64(&t, L_D, 10)));
  CHECK_EQ_INT(storage_table_memory(&t), t.row_capacity * (1 + 4 + 8));
  for (size_t row = 0; row < 300; row++) {
    CHECK_EQ_INT(storage_get_i64(&t, L_N, row), row == 200 ? 5 : 0);
    CHECK_EQ_INT(storage_get_str(&t, L_NAME, row), row == 250 ? 42 : STRING_NULL);
    if (row != 10) CHECK(storage_get_f64(&t, L_D, row) == 0.0 && !signbit(storage_get_f64(&t, L_D, row)));
  }
  /* Rows appended later (and across growth) read as defaults too. */
  append_rows(&t, 5000);
  for (size_t row = 300; row < t.row_count; row += 7) {
    CHECK_EQ_INT(storage_get_i64(&t, L_N, row), 0);
    CHECK_EQ_INT(storage_get_str(&t, L_NAME, row), STRING_NULL);
    CHECK(storage_get_f64(&t, L_D, row) == 0.0);
  }
  CHECK_EQ_INT(storage_table_memory(&t), t.row_capacity * (1 + 4 + 8));
  storage_set_null(&t, L_NAME, 250);
  CHECK(storage_is_null(&t, L_NAME, 250));
  storage_table_free(&t);
}

/* Non-negative first (unsigned elements: 255 in 1 byte, 65535 in 2,
 * UINT32_MAX in 4), then the first negative value turns the column signed. */
static const int64_t widen_values[] = {
    0, 1, 255, 256, 65535, 65536, UINT32_MAX,
    -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769,
    INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1,
    INT64_MAX, INT64_MIN, -5, 1LL << 40, -(1LL << 40)};
#define WIDEN_COUNT (sizeof widen_values / sizeof *widen_values)

static size_t bytes_for(int64_t v, int is_unsigned) {
  if (is_unsigned) return (uint64_t)v <= 255 ? 1 : (uint64_t)v <= 65535 ? 2
                        : (uint64_t)v <= UINT32_MAX ? 4 : 8;
  return v == (int8_t)v ? 1 : v == (int16_t)v ? 2 : v == (int32_t)v ? 4 : 8;
}

/* The narrowest width holding every value so far: unsigned until the first
 * negative value, whose unsigned elements then need twice their bytes. */
static size_t expected_width(size_t count) {
  size_t width = 0;
  int is_unsigned = 1;
  for (size_t k = 0; k < count; k++) {
    int64_t v = widen_values[k];
    if (!width && v == 0) continue; /* no array yet */
    if (!width) {
      is_unsigned = v >= 0;
      width = bytes_for(v, is_unsigned);
    } else if (is_unsigned && v < 0) {
      size_t kept = width < 8 ? 2 * width : 8, need = bytes_for(v, 0);
      width = need > kept ? need : kept;
      is_unsigned = 0;
    } else if (bytes_for(v, is_unsigned) > width) {
      width = bytes_for(v, is_unsigned);
    }
  }
  return width;
}

/* Sets the values one by one (each row keeps its own), checking after each
 * that every value set so far reads back and the width is the narrowest. */
static void check_widening(size_t col, int nullable) {
  storage_table t;
  CHECK_EQ_INT(storage_table_init(&t, "widen", lazy_defs, L_COUNT), 0);
  append_rows(&t, (int)(2 * WIDEN_COUNT + 100));
  for (size_t k = 0; k < WIDEN_COUNT; k++) {
    int64_t v = widen_values[k];
    CHECK_EQ_INT(storage_set_i64(&t, col, 2 * k, v), 0);
    if (nullable) storage_set_null(&t, col, 2 * k + 1);
    CHECK_EQ_INT(storage_column_width(&t, col), expected_width(k + 1));
    for (size_t j = 0; j <= k; j++) {
      CHECK_EQ_INT(storage_get_i64(&t, col, 2 * j), widen_values[j]);
      CHECK_EQ_INT(storage_get_i64(&t, col, 2 * j + 1), 0);
      CHECK(!storage_is_null(&t, col, 2 * j));
      CHECK_EQ_INT(storage_is_null(&t, col, 2 * j + 1), nullable);
    }
    for (size_t row = 2 * k + 2; row < t.row_count; row++) {
      CHECK_EQ_INT(storage_get_i64(&t, col, row), 0);
      CHECK_EQ_INT(storage_is_null(&t, col, row), nullable);
    }
  }
  CHECK_EQ_INT(storage_column_width(&t, col), 8);
  /* The zero tail survives widening: new rows read as defaults. */
  append_rows(&t, 1000);
  for (size_t row = 2 * WIDEN_COUNT; row < t.row_count; row++) {
    CHECK_EQ_INT(storage_get_i64(&t, col, row), 0);
    CHECK_EQ_INT(storage_is_null(&t, col, row), nullable);
  }
  /* NULL after a value: NULL, the value kept underneath (as before). */
  storage_set_null(&t, col, 0);
  CHECK_EQ_INT(storage_is_null(&t, col, 0), nullable);
  CHECK_EQ_INT(storage_get_i64_or(&t, col, 4, 99), widen_values[2]);
  size_t bitmap = nullable ? (t.row_capacity + 63) / 64 * 8 : 0;
  CHECK_EQ_INT(storage_table_memory(&t), t.row_capacity * 8 + bitmap);
  storage_table_free(&t);
}

static void test_widening(void) {
  check_widening(L_N, 0);
  check_widening(L_OPT, 1);
}

/* An unsigned column of each width keeps its values when a negative one
 * turns it signed: 200 (1 byte) -> 2 bytes, 40000 (2) -> 4, 3e9 (4) -> 8. */
static void test_unsigned_to_signed(void) {
  const int64_t high[] = {200, 40000, 3000000000LL};
  const size_t before[] = {1, 2, 4}, after[] = {2, 4, 8};
  for (int i = 0; i < 3; i++) {
    storage_table t;
    CHECK_EQ_INT(storage_table_init(&t, "unsigned", lazy_defs, L_COUNT), 0);
    append_rows(&t, 300);
    for (size_t row = 0; row < 200; row++)
      CHECK_EQ_INT(storage_set_i64(&t, L_N, row, high[i] - (int64_t)row), 0);
    CHECK_EQ_INT(storage_column_width(&t, L_N), before[i]);
    CHECK_EQ_INT(storage_set_i64(&t, L_N, 250, -1), 0);
    CHECK_EQ_INT(storage_column_width(&t, L_N), after[i]);
    for (size_t row = 0; row < 200; row++)
      CHECK_EQ_INT(storage_get_i64(&t, L_N, row), high[i] - (int64_t)row);
    CHECK_EQ_INT(storage_get_i64(&t, L_N, 250), -1);
    CHECK_EQ_INT(storage_get_i64(&t, L_N, 299), 0);
    storage_table_free(&t);
  }
}

static void test_clear_and_reuse(void) {
  storage_table t;
  CHECK_EQ_INT(storage_table_init(&t, "lazy", lazy_defs, L_COUNT), 0);
  append_rows(&t, 100);
  for (size_t row = 0; row < 100; row++) {
    storage_set_i64(&t, L_TS, row, 100 - (int64_t)row); /* unsorted */
    storage_set_i64(&t, L_N, row, INT64_MAX);
    storage_set_i64(&t, L_OPT, row, 7);
    storage_set_str(&t, L_NAME, row, 3);
    storage_set_f64(&t, L_REAL, row, 1.5);
    storage_set_f64(&t, L_D, row, 2.5);
  }
  CHECK(!t.columns[L_TS].sorted);
  size_t cap = t.row_capacity;
  storage_table_clear(&t);
  CHECK_EQ_INT(t.row_count, 0);
  CHECK_EQ_INT(storage_table_memory(&t), 0);
  CHECK(t.columns[L_TS].sorted);
  append_rows(&t, 150);
  CHECK_EQ_INT(t.row_capacity, 2 * cap);
  for (size_t row = 0; row < 150; row++) {
    CHECK_EQ_INT(storage_get_i64(&t, L_TS, row), 0);
    CHECK_EQ_INT(storage_get_i64(&t, L_N, row), 0);
    CHECK(storage_is_null(&t, L_OPT, row));
    CHECK(storage_is_null(&t, L_NAME, row));
    CHECK(storage_is_null(&t, L_REAL, row));
    CHECK(storage_get_f64(&t, L_D, row) == 0.0);
  }
  CHECK_EQ_INT(storage_set_i64(&t, L_N, 149, 3), 0);
  CHECK_EQ_INT(storage_column_width(&t, L_N), 1);
  CHECK_EQ_INT(storage_get_i64(&t, L_N, 148), 0);
  storage_table_free(&t);
}

static void test_sorted_across_widths(void) {
  storage_table t;
  CHECK_EQ_INT(storage_table_init(&t, "lazy", lazy_defs, L_COUNT), 0);
  /* ts: 0, 100, 200, ... crossing 1, 2 and 4 bytes, then past int32. */
  int64_t step = 1000000;
  for (int i = 0; i < 5000; i++) {
    uint32_t row;
    CHECK_EQ_INT(storage_table_append(&t, &row), 0);
    CHECK_EQ_INT(storage_set_i64(&t, L_TS, row, (int64_t)i * step), 0);
    CHECK_EQ_INT(storage_set_f64(&t, L_D, row, i * 0.25), 0);
  }
  CHECK(t.columns[L_TS].sorted);
  CHECK(t.columns[L_D].sorted == 0); /* F64 without STORAGE_SORTED */
  CHECK_EQ_INT(storage_column_width(&t, L_TS), 8);
  CHECK_EQ_INT(storage_lower_bound_i64(&t, L_TS, 0, 5000, 2500 * step, 0), 2500);
  CHECK_EQ_INT(storage_lower_bound_i64(&t, L_TS, 0, 5000, 2500 * step, 1), 2501);
  CHECK_EQ_INT(storage_lower_bound_i64(&t, L_TS, 0, 5000, 3 * step - 1, 0), 3);
  CHECK_EQ_INT(storage_lower_bound_i64(&t, L_ID, 0, 5000, 17, 1), 18);
  CHECK_EQ_INT(storage_lower_bound_f64(&t, L_D, 0, 5000, 10.0, 0), 40);
  /* Rewriting a value in order keeps it; out of order clears it. */
  storage_set_i64(&t, L_TS, 10, 10 * step);
  CHECK(t.columns[L_TS].sorted);
  storage_set_i64(&t, L_TS, 10, 12 * step);
  CHECK(!t.columns[L_TS].sorted);
  /* A sorted column made NULL is no longer sorted (as before). */
  storage_table_clear(&t);
  append_rows(&t, 3);
  storage_set_i64(&t, L_TS, 0, 1);
  storage_set_null(&t, L_TS, 1);
  CHECK(!t.columns[L_TS].sorted);
  storage_table_free(&t);
}

/* The values a script writes, for checking what a table holds after an
 * allocation failure somewhere in it. */
typedef struct model_row {
  int64_t n, opt;
  int opt_set;
  string_id name;
  double real;
  int real_set;
} model_row;

static int64_t script_value(size_t i, int k) {
  /* Rows 0..63 are small; later ones cross each width. */
  int64_t big[] = {3, 300, 70000, 1LL << 35, INT64_MIN};
  return i < 64 ? (int64_t)i * k : big[(i + (size_t)k) % 5] ^ (k % 2 ? -1 : 0);
}

/* Appends rows and sets values, keeping going after failures (a failed
 * setter stores nothing; appends fail after it). Returns whether any step
 * failed. */
static int run_script(storage_table *t, model_row *m, size_t *rows) {
  int failed = 0;
  *rows = 0;
  for (size_t i = 0; i < 300; i++) {
    uint32_t row;
    int rc = storage_table_append(t, &row);
    if (rc) {
      CHECK_EQ_INT(rc, WEFT_ENOMEM);
      failed = 1;
      continue;
    }
    CHECK_EQ_INT(row, *rows);
    model_row *r = &m[(*rows)++];
    memset(r, 0, sizeof *r);
    int64_t n = script_value(i, 1), opt = script_value(i, 2);
    if (storage_set_i64(t, L_N, row, n) == WEFT_OK) r->n = n; else failed = 1;
    if (i % 3) {
      if (storage_set_i64(t, L_OPT, row, opt) == WEFT_OK) r->opt = opt, r->opt_set = 1;
      else failed = 1;
    }
    if (i >= 100) {
      if (storage_set_str(t, L_NAME, row, (string_id)i) == WEFT_OK) r->name = (string_id)i;
      else failed = 1;
    }
    if (i % 50 == 7) {
      if (storage_set_f64(t, L_REAL, row, (double)i) == WEFT_OK) r->real = (double)i, r->real_set = 1;
      else failed = 1;
    }
  }
  return failed;
}

static void check_model(const storage_table *t, const model_row *m, size_t rows) {
  CHECK_EQ_INT(t->row_count, rows);
  size_t expect_mem = 0;
  for (size_t c = 0; c < L_COUNT; c++) {
    expect_mem += storage_column_width(t, c) * t->row_capacity;
    if (t->columns[c].present) expect_mem += (t->row_capacity + 63) / 64 * 8;
  }
  CHECK_EQ_INT(storage_table_memory(t), expect_mem);
  for (size_t row = 0; row < rows; row++) {
    CHECK_EQ_INT(storage_get_i64(t, L_N, row), m[row].n);
    CHECK_EQ_INT(storage_is_null(t, L_OPT, row), !m[row].opt_set);
    if (m[row].opt_set) CHECK_EQ_INT(storage_get_i64(t, L_OPT, row), m[row].opt);
    CHECK_EQ_INT(storage_get_str(t, L_NAME, row), m[row].name);
    CHECK_EQ_INT(storage_is_null(t, L_REAL, row), !m[row].real_set);
    if (m[row].real_set) CHECK(storage_get_f64(t, L_REAL, row) == m[row].real);
  }
}

static void test_allocation_failure(void) {
  static model_row m[300];
  int done = 0, setter_failures = 0;
  for (uint64_t n = 1; n < 10000 && !done; n++) {
    storage_table t;
    base_alloc_fail_after(n);
    int rc = storage_table_init(&t, "fail", lazy_defs, L_COUNT);
    if (rc) {
      base_alloc_fail_after(0);
      CHECK_EQ_INT(rc, WEFT_ENOMEM);
      continue;
    }
    size_t rows;
    int failed = run_script(&t, m, &rows);
    base_alloc_fail_after(0);
    check_model(&t, m, rows);
    if (failed) {
      /* The table stays usable; the failure is sticky until cleared. */
      uint32_t row;
      setter_failures += storage_table_status(&t) != WEFT_OK;
      if (storage_table_status(&t))
        CHECK_EQ_INT(storage_table_append(&t, &row), WEFT_ENOMEM);
      storage_table_clear(&t);
      CHECK_EQ_INT(storage_table_status(&t), WEFT_OK);
      CHECK_EQ_INT(run_script(&t, m, &rows), 0);
      check_model(&t, m, rows);
    } else {
      CHECK_EQ_INT(storage_table_status(&t), WEFT_OK);
      CHECK_EQ_INT(rows, 300);
      done = 1;
    }
    storage_table_free(&t);
  }
  CHECK(done);
  CHECK(setter_failures >= 10); /* lazy allocations and each widening */
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

/* Arrays past 1 MiB are mappings grown in place: values survive growth
 * across that size, widening of a mapped array, and clear; the tail past
 * the last row reads as default. */
/* With a prefaulter from row `from` to row `until` (none if p is NULL). */
static void large_mapped_arrays_with(storage_prefaulter *p, size_t from, size_t until) {
  storage_table t;
  CHECK_EQ_INT(storage_table_init(&t, "big", test_defs, 5), 0);
  const size_t rows = 600000; /* 4.8 MB at 8 bytes, 600 KB at 1 byte */
  int ok = 1;
  for (size_t i = 0; i < rows; i++) {
    uint32_t row;
    if (i == from) storage_table_set_prefaulter(&t, p);
    if (i == until) storage_table_set_prefaulter(&t, NULL);
    if (storage_table_append(&t, &row) || row != i || t.row_count != i + 1 ||
        t.append_limit > t.row_capacity) {
      ok = 0;
      break;
    }
    storage_set_i64(&t, 1, row, (int64_t)i);          /* widens 1 -> 2 -> 4 */
    if (i % 7 == 0) storage_set_i64(&t, 4, row, (int64_t)(i % 100));
    if (i == rows - 1) storage_set_i64(&t, 4, row, INT64_MIN); /* widens a mapped array */
  }
  CHECK(ok);
  for (size_t i = 0; ok && i < rows; i++) {
    int64_t want_tag = i == rows - 1 ? INT64_MIN : (int64_t)(i % 100);
    if (storage_get_i64(&t, 1, i) != (int64_t)i ||
        storage_is_null(&t, 4, i) != (i % 7 != 0 && i != rows - 1) ||
        (!storage_is_null(&t, 4, i) && storage_get_i64(&t, 4, i) != want_tag))
      ok = 0;
  }
  CHECK(ok);
  CHECK_EQ_INT(storage_column_width(&t, 1), 4);
  CHECK_EQ_INT(storage_column_width(&t, 4), 8);
  CHECK(t.columns[1].sorted);
  CHECK(storage_table_memory(&t) >= rows * (4 + 8));
  storage_table_clear(&t);
  CHECK_EQ_INT(storage_table_memory(&t), 0);
  uint32_t row;
  CHECK_EQ_INT(storage_table_append(&t, &row), 0);
  CHECK_EQ_INT(storage_get_i64(&t, 1, row), 0);
  CHECK(storage_is_null(&t, 4, row));
  storage_table_free(&t);
}

/* The same values with a prefaulter making the arrays resident ahead of
 * the appends: from the start, from the middle of a window, and for a
 * stretch only (it is a timing hint). */
static void test_large_mapped_arrays(void) {
  large_mapped_arrays_with(NULL, 0, 0);
  storage_prefaulter *p = NULL;
  CHECK_EQ_INT(storage_prefaulter_start(&p), 0);
  large_mapped_arrays_with(p, 0, SIZE_MAX);
  large_mapped_arrays_with(p, 100001, SIZE_MAX);
  large_mapped_arrays_with(p, 5000, 300000);
  storage_prefaulter_stop(p);
  storage_prefaulter_stop(NULL);
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

/* An interrupted engine stops a scan that rejects a long run of rows
 * inside one call of the virtual table (SQLite itself looks at its own
 * flag only between rows), and the next SQL text starts afresh. */
static int step_once(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc;
}

static void test_vtab_scan_interrupted(void) {
  storage_table t;
  fill(&t, 200000);
  storage_table *tables[] = {&t};
  sql_engine *e = NULL;
  base_error err = {0};
  CHECK_EQ_INT(sql_engine_open(&e, tables, 1, &pool, &err), 0);
  const char *no_match = "select count(*) from test where tag = 7";
  CHECK_EQ_INT(step_once(sql_engine_db(e), no_match), SQLITE_ROW);
  sql_engine_interrupt(e);
  /* SQLite clears its own flag as the statement starts: only the virtual
   * table's look at the engine's flag can stop it. */
  CHECK_EQ_INT(step_once(sql_engine_db(e), no_match), SQLITE_INTERRUPT);
  CHECK_EQ_STR(query(e, no_match), "0,;");
  sql_engine_close(e);
  storage_table_free(&t);
}

/* An engine over no trace tables (as fuzz_psql opens one) still interns
 * the strings a CREATE PERFETTO TABLE materialises, into its pool. */
static void test_engine_without_tables_keeps_strings(void) {
  sql_engine *e = NULL;
  base_error err = {0};
  CHECK_EQ_INT(sql_engine_open(&e, NULL, 0, &pool, &err), 0);
  CHECK_EQ_INT(sql_engine_execute(e, "create perfetto table t as select 'x' as s, 2 as n", NULL,
                                  &err),
               0);
  CHECK_EQ_STR(query(e, "select s, n from t"), "x,2,;");
  sql_engine_close(e);
}

/* ---- references between tables (schema_check_refs) ---- */

static void refs_tables_init(storage_table *tables) {
  for (int i = 0; i < TABLE_COUNT; i++)
    CHECK_EQ_INT(storage_table_init(&tables[i], schema_tables[i].name, schema_tables[i].columns,
                                    schema_tables[i].column_count), 0);
}

static uint32_t refs_row(storage_table *t) {
  uint32_t row = 0;
  CHECK_EQ_INT(storage_table_append(t, &row), 0);
  return row;
}

/* A flow walk (following_flow) looks at the engine's interrupt flag. */
static void test_flow_walk_interrupted(void) {
  storage_table tables[TABLE_COUNT];
  refs_tables_init(tables);
  storage_table *slices = &tables[TABLE_SLICE], *flows = &tables[TABLE_FLOW];
  for (int i = 0; i < 2; i++) {
    uint32_t row = refs_row(slices);
    storage_set_i64(slices, SLICE_ts, row, i * 10);
    storage_set_i64(slices, SLICE_dur, row, 5);
    storage_set_i64(slices, SLICE_track_id, row, i);
    storage_set_i64(slices, SLICE_depth, row, 0);
  }
  uint32_t f = refs_row(flows);
  storage_set_i64(flows, FLOW_slice_out, f, 0);
  storage_set_i64(flows, FLOW_slice_in, f, 1);
  storage_table *list[TABLE_COUNT];
  for (int i = 0; i < TABLE_COUNT; i++) list[i] = &tables[i];
  sql_engine *e = NULL;
  base_error err = {0};
  CHECK_EQ_INT(sql_engine_open(&e, list, TABLE_COUNT, &pool, &err), 0);
  const char *walk = "select count(*) from following_flow(0)";
  CHECK_EQ_STR(query(e, walk), "1,;");
  sql_engine_interrupt(e);
  CHECK_EQ_INT(step_once(sql_engine_db(e), walk), SQLITE_INTERRUPT);
  CHECK_EQ_STR(query(e, walk), "1,;");
  sql_engine_close(e);
  for (int i = 0; i < TABLE_COUNT; i++) storage_table_free(&tables[i]);
}

/* Every listed column names its own table's column; valid ids pass; an id
 * past the referred table, an arg set id no args row has, and a cpu id
 * (cpu's id is a plain column, not the row index) that no cpu row holds are
 * each found and named; NULLs refer to nothing. */
static void test_schema_refs(void) {
  int named = 1;
  for (size_t i = 0; i < schema_ref_count; i++)
    named &= schema_refs[i].column < schema_tables[schema_refs[i].table].column_count &&
             schema_refs[i].to <= TABLE_ARG_SET;
  CHECK(named);
  storage_table tables[TABLE_COUNT];
  refs_tables_init(tables);
  char msg[256];
  storage_table *track = &tables[TABLE_TRACK], *slice = &tables[TABLE_SLICE];
  storage_table *args = &tables[TABLE_ARGS], *cpu = &tables[TABLE_CPU];
  storage_table *sched = &tables[TABLE_SCHED];
  refs_row(track), refs_row(track), refs_row(&tables[TABLE_THREAD]); /* utid 0 */
  uint32_t s = refs_row(slice);
  CHECK_EQ_INT(storage_set_i64(slice, SLICE_track_id, s, 1), 0);
  CHECK_EQ_INT(storage_set_i64(slice, SLICE_arg_set_id, s, 5), 0);
  uint32_t a = refs_row(args);
  CHECK_EQ_INT(storage_set_i64(args, ARGS_arg_set_id, a, 5), 0);
  uint32_t c = refs_row(cpu);
  CHECK_EQ_INT(storage_set_i64(cpu, CPU_id, c, 3), 0);
  uint32_t r = refs_row(sched);
  CHECK_EQ_INT(storage_set_i64(sched, SCHED_ucpu, r, 3), 0);
  CHECK_EQ_INT(schema_check_refs(tables, msg, sizeof msg), 0);
  CHECK_EQ_STR(msg, "");

  CHECK_EQ_INT(storage_set_i64(slice, SLICE_track_id, s, 2), 0);
  CHECK_EQ_INT(schema_check_refs(tables, msg, sizeof msg), 1);
  CHECK_EQ_STR(msg, "__intrinsic_slice.track_id = 2 (row 0): no such __intrinsic_track");
  CHECK_EQ_INT(storage_set_i64(slice, SLICE_track_id, s, 0), 0);
  CHECK_EQ_INT(storage_set_i64(slice, SLICE_arg_set_id, s, 4), 0);
  CHECK_EQ_INT(schema_check_refs(tables, msg, sizeof msg), 1);
  CHECK_EQ_STR(msg, "__intrinsic_slice.arg_set_id = 4 (row 0): no such arg set");
  storage_set_null(slice, SLICE_arg_set_id, s);
  CHECK_EQ_INT(storage_set_i64(sched, SCHED_ucpu, r, 0), 0);
  CHECK_EQ_INT(schema_check_refs(tables, msg, sizeof msg), 1);
  CHECK_EQ_STR(msg, "__intrinsic_sched_slice.ucpu = 0 (row 0): no such __intrinsic_cpu");
  for (int i = 0; i < TABLE_COUNT; i++) storage_table_free(&tables[i]);
}

/* Keeping every third row of 200: values move down in order, NULLs with
 * them, sortedness holds, and the rows past the end read as default again
 * (so appending after it starts clean). */
static void test_keep_rows(void) {
  storage_table t;
  fill(&t, 200);
  uint64_t keep[4] = {0};
  size_t kept = 0;
  for (size_t r = 0; r < 200; r += 3, kept++) keep[r / 64] |= 1ULL << (r % 64);
  storage_table_keep_rows(&t, keep);
  CHECK_EQ_INT(t.row_count, kept);
  CHECK(t.columns[1].sorted);
  for (size_t i = 0; i < kept; i++) {
    size_t old = i * 3;
    CHECK_EQ_INT(storage_get_i64(&t, 1, i), (int64_t)old * 10);
    CHECK_EQ_INT(storage_get_i64(&t, 0, i), (int64_t)i);
    CHECK_EQ_INT(storage_is_null(&t, 3, i), old % 2 != 0);
    if (old % 2 == 0) CHECK(storage_get_f64(&t, 3, i) == old / 2.0);
    CHECK_EQ_INT(storage_get_i64(&t, 4, i), (int64_t)(old % 5));
    CHECK_EQ_INT(storage_get_str(&t, 2, i), base_string_pool_find(&pool, old % 3 ? "b" : "a", 1));
  }
  for (int i = 0; i < 130; i++) {
    uint32_t row;
    CHECK_EQ_INT(storage_table_append(&t, &row), 0);
    CHECK(storage_is_null(&t, 3, row) && storage_is_null(&t, 4, row));
    CHECK_EQ_INT(storage_get_i64(&t, 1, row), 0);
    CHECK_EQ_INT(storage_get_str(&t, 2, row), STRING_NULL);
  }
  uint64_t none[4] = {0};
  storage_table_keep_rows(&t, none);
  CHECK_EQ_INT(t.row_count, 0);
  storage_table_free(&t);
}

/* gather: rows in a new order, some dropped; the sorted column's flag
 * follows its new order, both ways. */
static void test_gather(void) {
  storage_table t;
  fill(&t, 300);
  uint32_t rows[300];
  size_t n = 0;
  for (uint32_t r = 300; r-- > 0;)
    if (r % 4 != 1) rows[n++] = r;
  CHECK_EQ_INT(storage_table_gather(&t, rows, n), 0);
  CHECK_EQ_INT(t.row_count, n);
  CHECK(!t.columns[1].sorted); /* now descending */
  for (size_t i = 0; i < n; i++) {
    uint32_t old = rows[i];
    CHECK_EQ_INT(storage_get_i64(&t, 0, i), (int64_t)i);
    CHECK_EQ_INT(storage_get_i64(&t, 1, i), (int64_t)old * 10);
    CHECK_EQ_INT(storage_is_null(&t, 3, i), old % 2 != 0);
    if (old % 2 == 0) CHECK(storage_get_f64(&t, 3, i) == old / 2.0);
    CHECK_EQ_INT(storage_get_i64(&t, 4, i), (int64_t)(old % 5));
    CHECK_EQ_INT(storage_get_str(&t, 2, i), base_string_pool_find(&pool, old % 3 ? "b" : "a", 1));
  }
  /* back to ascending: sorted again */
  for (size_t i = 0; i < n; i++) rows[i] = (uint32_t)(n - 1 - i);
  CHECK_EQ_INT(storage_table_gather(&t, rows, n), 0);
  CHECK(t.columns[1].sorted);
  CHECK_EQ_INT(storage_get_i64(&t, 1, 0), 0);
  uint32_t row;
  CHECK_EQ_INT(storage_table_append(&t, &row), 0); /* past the rows: zero again */
  CHECK(storage_is_null(&t, 3, row) && storage_get_i64(&t, 1, row) == 0);
  CHECK_EQ_INT(storage_get_str(&t, 2, row), STRING_NULL);
  storage_table_free(&t);
}

int main(void) {
  base_string_pool_init(&pool);
  RUN_TEST(test_keep_rows);
  RUN_TEST(test_gather);
  RUN_TEST(test_columns);
  RUN_TEST(test_all_default_allocates_nothing);
  RUN_TEST(test_first_set_allocates);
  RUN_TEST(test_widening);
  RUN_TEST(test_unsigned_to_signed);
  RUN_TEST(test_clear_and_reuse);
  RUN_TEST(test_sorted_across_widths);
  RUN_TEST(test_allocation_failure);
  RUN_TEST(test_large_mapped_arrays);
  RUN_TEST(test_vtab_queries);
  RUN_TEST(test_vtab_scan_interrupted);
  RUN_TEST(test_engine_without_tables_keeps_strings);
  RUN_TEST(test_flow_walk_interrupted);
  RUN_TEST(test_schema_refs);
  base_string_pool_free(&pool);
  return CHECK_SUMMARY();
}
