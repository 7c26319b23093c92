/* Indexes of storage tables for the virtual table (see sql.h): a row-id
 * permutation sorted by the index's columns (a stable merge sort, so rows
 * of equal keys keep their id order), searched by binary search. */
#include <assert.h>
#include <math.h>

#include "sql/sql.h"

typedef struct index_keys {
  const sql_vtab_index *ix;
  const storage_table *t;
  const base_string_pool *strings;
} index_keys;

/* -1, 0, 1 comparing rows a and b on index column c (NULLs first). */
static int index_compare_column(const index_keys *k, size_t c, uint32_t a, uint32_t b) {
  const storage_table *t = k->t;
  size_t col = (size_t)k->ix->columns[c];
  switch (t->defs[col].type) {
    case STORAGE_ID: return a < b ? -1 : a > b;
    case STORAGE_STR: {
      string_id x = storage_get_str(t, col, a), y = storage_get_str(t, col, b);
      if (x == y) return 0;
      if (x == STRING_NULL || y == STRING_NULL) return x == STRING_NULL ? -1 : 1;
      size_t lx = base_string_pool_len(k->strings, x), ly = base_string_pool_len(k->strings, y);
      int r = memcmp(base_string_pool_get(k->strings, x), base_string_pool_get(k->strings, y),
                     lx < ly ? lx : ly);
      return r ? (r < 0 ? -1 : 1) : (lx < ly ? -1 : lx > ly);
    }
    default: {
      int na = storage_is_null(t, col, a), nb = storage_is_null(t, col, b);
      if (na || nb) return na == nb ? 0 : (na ? -1 : 1);
      if (t->defs[col].type == STORAGE_F64) {
        double x = storage_get_f64(t, col, a), y = storage_get_f64(t, col, b);
        return x < y ? -1 : x > y;
      }
      int64_t x = storage_get_i64(t, col, a), y = storage_get_i64(t, col, b);
      return x < y ? -1 : x > y;
    }
  }
}

static int index_compare_rows(const index_keys *k, uint32_t a, uint32_t b) {
  for (size_t c = 0; c < k->ix->column_count; c++) {
    int r = index_compare_column(k, c, a, b);
    if (r) return r;
  }
  return 0;
}

static void index_merge_sort(const index_keys *k, uint32_t *v, uint32_t *tmp, size_t n) {
  if (n < 2) return;
  size_t half = n / 2;
  index_merge_sort(k, v, tmp, half);
  index_merge_sort(k, v + half, tmp, n - half);
  size_t i = 0, j = half, o = 0;
  while (i < half && j < n) tmp[o++] = index_compare_rows(k, v[j], v[i]) < 0 ? v[j++] : v[i++];
  while (i < half) tmp[o++] = v[i++];
  while (j < n) tmp[o++] = v[j++];
  memcpy(v, tmp, n * sizeof *v);
}

int sql_vtab_index_build(sql_vtab_index *ix, const storage_table *t,
                         const base_string_pool *strings) {
  size_t n = t->row_count;
  uint32_t *order = base_malloc((n ? n : 1) * sizeof *order);
  uint32_t *tmp = base_malloc((n ? n : 1) * sizeof *tmp);
  if (!order || !tmp) {
    base_free(order);
    base_free(tmp);
    return WEFT_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) order[i] = (uint32_t)i;
  index_keys k = {ix, t, strings};
  index_merge_sort(&k, order, tmp, n);
  base_free(tmp);
  base_free(ix->order);
  ix->order = order;
  return WEFT_OK;
}

void sql_vtab_index_free(sql_vtab_index *ix) {
  base_free(ix->order);
  base_free(ix->name);
  ix->order = NULL;
  ix->name = NULL;
}

/* -1, 0, 1 comparing a row's column value with `value`, or 2 if the two
 * cannot be compared exactly here. */
static int index_compare_value(const storage_table *t, const base_string_pool *strings,
                               size_t col, uint32_t row, sqlite3_value *value) {
  int vtype = sqlite3_value_type(value);
  storage_type type = t->defs[col].type;
  if (type == STORAGE_STR) {
    if (vtype != SQLITE_TEXT) return 2;
    string_id s = storage_get_str(t, col, row);
    if (s == STRING_NULL) return -1;
    const char *v = (const char *)sqlite3_value_text(value);
    size_t lv = (size_t)sqlite3_value_bytes(value), ls = base_string_pool_len(strings, s);
    int r = memcmp(base_string_pool_get(strings, s), v, ls < lv ? ls : lv);
    return r ? (r < 0 ? -1 : 1) : (ls < lv ? -1 : ls > lv);
  }
  if (vtype != SQLITE_INTEGER && vtype != SQLITE_FLOAT) return 2;
  if (type != STORAGE_ID && storage_is_null(t, col, row)) return -1;
  if (type == STORAGE_F64 || vtype == SQLITE_FLOAT) {
    double x = type == STORAGE_F64 ? storage_get_f64(t, col, row)
                                   : (double)storage_get_i64(t, col, row);
    double v = sqlite3_value_double(value);
    if (isnan(v)) return 2;
    return x < v ? -1 : x > v;
  }
  int64_t x = type == STORAGE_ID ? (int64_t)row : storage_get_i64(t, col, row);
  int64_t v = sqlite3_value_int64(value);
  return x < v ? -1 : x > v;
}

/* First position in [lo, hi) whose value is > value (after) or >= value. */
static size_t index_bound(const sql_vtab_index *ix, const storage_table *t,
                          const base_string_pool *strings, size_t col,
                          sqlite3_value *value, int after, size_t lo, size_t hi) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int r = index_compare_value(t, strings, col, ix->order[mid], value);
    if (r < 0 || (after && r == 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void sql_vtab_index_narrow(const sql_vtab_index *ix, const storage_table *t,
                           const base_string_pool *strings, size_t column, int op,
                           sqlite3_value *value, size_t *lo, size_t *hi) {
  assert(column < ix->column_count);
  size_t col = (size_t)ix->columns[column];
  if (*lo >= *hi || index_compare_value(t, strings, col, ix->order[*lo], value) == 2) return;
  size_t a = *lo, b = *hi;
  if (op == 0 || op == 4) a = index_bound(ix, t, strings, col, value, 0, *lo, *hi);
  if (op == 3) a = index_bound(ix, t, strings, col, value, 1, *lo, *hi);
  if (op == 0 || op == 2) b = index_bound(ix, t, strings, col, value, 1, *lo, *hi);
  if (op == 1) b = index_bound(ix, t, strings, col, value, 0, *lo, *hi);
  *lo = a;
  *hi = b > a ? b : a;
}
