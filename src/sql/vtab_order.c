/* vtab_order: row orders the virtual table hands SQLite so that an ORDER BY
 * or GROUP BY over a whole table needs no sorter (sql.h).
 *
 * An order is a permutation of the table's row ids, made by stable LSD
 * radix sorts, one per key column from the last to the first: each column's
 * values become 64-bit keys whose unsigned order is SQL's order (ints with
 * the sign bit flipped, doubles by their bits, strings by their rank among
 * the distinct strings of the column), NULL rows are moved first (last when
 * descending) without reordering them, and only the bytes in which the
 * keys differ are sorted on. Ties keep the order of the columns after, and
 * then the row id order. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"

/* Orders a table caches; past this, scans own theirs (freed at close). */
#define ORDER_CACHE_MAX 16

/* The buffers of one build: rows and their keys, and their scatter
 * targets. */
typedef struct order_build {
  const storage_table *t;
  const base_string_pool *strings;
  size_t n;
  uint32_t *rows, *rows_tmp;
  uint64_t *keys, *keys_tmp;
} order_build;

#define ORDER_SIGN (UINT64_C(1) << 63)

static int order_row_is_null(const order_build *b, int col, uint32_t row) {
  if (col < 0) return 0;
  const storage_table *t = b->t;
  if (t->defs[col].type == STORAGE_STR) return storage_get_str(t, (size_t)col, row) == STRING_NULL;
  if (t->defs[col].type == STORAGE_ID) return 0;
  return storage_is_null(t, (size_t)col, row);
}

/* Moves NULL rows to the front (or the back), keeping both groups' order;
 * returns the non-NULL rows' range in *lo, *hi. */
static void order_partition_nulls(order_build *b, int col, int nulls_last, size_t *lo,
                                  size_t *hi) {
  size_t nulls = 0;
  for (size_t i = 0; i < b->n; i++) nulls += (size_t)order_row_is_null(b, col, b->rows[i]);
  *lo = nulls_last ? 0 : nulls;
  *hi = nulls_last ? b->n - nulls : b->n;
  if (nulls == 0 || nulls == b->n) return;
  size_t at_null = nulls_last ? *hi : 0, at_value = *lo;
  for (size_t i = 0; i < b->n; i++) {
    uint32_t row = b->rows[i];
    b->rows_tmp[order_row_is_null(b, col, row) ? at_null++ : at_value++] = row;
  }
  uint32_t *swap = b->rows;
  b->rows = b->rows_tmp;
  b->rows_tmp = swap;
}

/* A distinct string of a column, to rank. */
typedef struct order_string {
  const char *s;
  uint32_t len, id;
} order_string;

static int order_compare_strings(const void *x, const void *y) {
  const order_string *a = x, *c = y;
  uint32_t n = a->len < c->len ? a->len : c->len;
  int r = memcmp(a->s, c->s, n);
  return r ? r : (a->len > c->len) - (a->len < c->len);
}

/* rank[id] for every string id of column `col` in rows [lo, hi): its
 * place, from 1, among them in byte order. NULL if memory runs out. */
static uint32_t *order_string_ranks(const order_build *b, int col, size_t lo, size_t hi) {
  size_t ids = base_string_pool_count(b->strings);
  uint32_t *rank = base_calloc(ids ? ids : 1, sizeof *rank);
  if (!rank) return NULL;
  size_t distinct = 0;
  for (size_t i = lo; i < hi; i++) {
    string_id id = storage_get_str(b->t, (size_t)col, b->rows[i]);
    assert(id < ids);
    if (!rank[id]) rank[id] = 1, distinct++;
  }
  order_string *sorted = base_malloc((distinct ? distinct : 1) * sizeof *sorted);
  if (!sorted) {
    base_free(rank);
    return NULL;
  }
  size_t k = 0;
  for (size_t id = 1; id < ids; id++)
    if (rank[id])
      sorted[k++] = (order_string){base_string_pool_get(b->strings, (string_id)id),
                                      base_string_pool_len(b->strings, (string_id)id),
                                      (uint32_t)id};
  qsort(sorted, distinct, sizeof *sorted, order_compare_strings);
  for (size_t i = 0; i < distinct; i++) rank[sorted[i].id] = (uint32_t)i + 1;
  base_free(sorted);
  return rank;
}

static uint64_t order_double_key(double v) {
  if (v == 0) v = 0; /* -0.0 sorts with 0.0, as SQL compares them */
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return bits & ORDER_SIGN ? ~bits : bits | ORDER_SIGN;
}

/* Keys of rows [lo, hi) on column `col`; 0, or WEFT_ENOMEM. */
static int order_fill_keys(order_build *b, int col, int desc, size_t lo, size_t hi) {
  const storage_table *t = b->t;
  storage_type type = col < 0 ? STORAGE_ID : t->defs[col].type;
  uint32_t *rank = NULL;
  if (type == STORAGE_STR && !(rank = order_string_ranks(b, col, lo, hi)))
    return WEFT_ENOMEM;
  for (size_t i = lo; i < hi; i++) {
    uint32_t row = b->rows[i];
    uint64_t key;
    switch (type) {
      case STORAGE_ID: key = row; break;
      case STORAGE_STR: {
        string_id id = storage_get_str(t, (size_t)col, row);
        key = rank[id];
        break;
      }
      case STORAGE_F64: key = order_double_key(storage_get_f64(t, (size_t)col, row)); break;
      default: key = (uint64_t)storage_get_i64(t, (size_t)col, row) ^ ORDER_SIGN; break;
    }
    b->keys[i] = desc ? ~key : key;
  }
  base_free(rank);
  return WEFT_OK;
}

/* Stable LSD radix sort of rows [lo, hi) by their keys, a byte at a time,
 * skipping the bytes every key shares. */
static void order_radix_sort(order_build *b, size_t lo, size_t hi) {
  size_t len = hi - lo;
  if (len < 2) return;
  enum { BUCKETS = 256 };
  size_t count[8][BUCKETS];
  memset(count, 0, sizeof count);
  for (size_t i = lo; i < hi; i++)
    for (unsigned byte = 0; byte < 8; byte++) count[byte][(b->keys[i] >> (8 * byte)) & 0xff]++;
  for (unsigned byte = 0; byte < 8; byte++) {
    size_t *c = count[byte], at = 0, single = 0;
    for (size_t v = 0; v < BUCKETS; v++) single |= c[v] == len;
    if (single) continue;
    for (size_t v = 0; v < BUCKETS; v++) {
      size_t k = c[v];
      c[v] = at;
      at += k;
    }
    for (size_t i = lo; i < hi; i++) {
      size_t to = lo + c[(b->keys[i] >> (8 * byte)) & 0xff]++;
      b->keys_tmp[to] = b->keys[i];
      b->rows_tmp[to] = b->rows[i];
    }
    memcpy(b->keys + lo, b->keys_tmp + lo, len * sizeof *b->keys);
    memcpy(b->rows + lo, b->rows_tmp + lo, len * sizeof *b->rows);
  }
}

static int order_make(const storage_table *t, const base_string_pool *strings,
                      const sql_order_spec *spec, uint32_t **out) {
  order_build b = {.t = t, .strings = strings, .n = t->row_count};
  size_t n = b.n ? b.n : 1;
  b.rows = base_malloc(n * sizeof *b.rows);
  b.rows_tmp = base_malloc(n * sizeof *b.rows_tmp);
  b.keys = base_malloc(n * sizeof *b.keys);
  b.keys_tmp = base_malloc(n * sizeof *b.keys_tmp);
  int rc = b.rows && b.rows_tmp && b.keys && b.keys_tmp ? WEFT_OK : WEFT_ENOMEM;
  for (size_t i = 0; rc == WEFT_OK && i < b.n; i++) b.rows[i] = (uint32_t)i;
  for (int c = (int)spec->count - 1; rc == WEFT_OK && c >= 0; c--) {
    size_t lo, hi;
    int desc = spec->desc[c];
    order_partition_nulls(&b, spec->columns[c], desc, &lo, &hi);
    rc = order_fill_keys(&b, spec->columns[c], desc, lo, hi);
    if (rc == WEFT_OK) order_radix_sort(&b, lo, hi);
  }
  base_free(b.rows_tmp);
  base_free(b.keys);
  base_free(b.keys_tmp);
  if (rc != WEFT_OK) {
    base_free(b.rows);
    return rc;
  }
  *out = b.rows;
  return WEFT_OK;
}

/* Copies the values of the spec's string and non-nullable int columns in
 * the order's row order; WEFT_ENOMEM. */
static int order_copy_values(const storage_table *t, sql_vtab_order *o) {
  size_t n = t->row_count;
  for (unsigned c = 0; c < o->spec.count; c++) {
    int col = o->spec.columns[c];
    if (col < 0) continue;
    if (t->defs[col].type == STORAGE_STR) {
      uint32_t *v = base_malloc((n ? n : 1) * sizeof *v);
      if (!v) return WEFT_ENOMEM;
      for (size_t i = 0; i < n; i++) v[i] = storage_get_str(t, (size_t)col, o->rows[i]);
      o->values[c] = v;
    } else if (t->defs[col].type == STORAGE_I64 && !(t->defs[col].flags & STORAGE_NULLABLE)) {
      int64_t *v = base_malloc((n ? n : 1) * sizeof *v);
      if (!v) return WEFT_ENOMEM;
      for (size_t i = 0; i < n; i++) v[i] = storage_get_i64(t, (size_t)col, o->rows[i]);
      o->values[c] = v;
    }
  }
  return WEFT_OK;
}

void sql_vtab_order_free(sql_vtab_order *o) {
  if (!o) return;
  for (unsigned c = 0; c < SQL_ORDER_MAX_COLUMNS; c++) base_free(o->values[c]);
  base_free(o->rows);
  base_free(o);
}

static int order_spec_equal(const sql_order_spec *a, const sql_order_spec *b) {
  if (a->count != b->count) return 0;
  for (unsigned i = 0; i < a->count; i++)
    if (a->columns[i] != b->columns[i] || a->desc[i] != b->desc[i]) return 0;
  return 1;
}

/* Drops cached orders made before the table last changed. */
static void order_cache_prune(sql_vtab_aux *aux) {
  const storage_table *t = aux->table;
  sql_vtab_order **link = &aux->orders;
  while (*link) {
    sql_vtab_order *o = *link;
    if (o->row_count == t->row_count && o->generation == t->generation) {
      link = &o->next;
      continue;
    }
    *link = o->next;
    sql_vtab_order_free(o);
  }
}

int sql_vtab_order_get(sql_vtab_aux *aux, const sql_order_spec *spec,
                       const sql_vtab_order **order, sql_vtab_order **owned) {
  assert(spec->count >= 1 && spec->count <= SQL_ORDER_MAX_COLUMNS);
  *owned = NULL;
  order_cache_prune(aux);
  size_t cached = 0;
  for (sql_vtab_order *o = aux->orders; o; o = o->next, cached++)
    if (order_spec_equal(&o->spec, spec)) {
      *order = o;
      return WEFT_OK;
    }
  sql_vtab_order *o = base_calloc(1, sizeof *o);
  if (!o) return WEFT_ENOMEM;
  *o = (sql_vtab_order){.spec = *spec, .row_count = aux->table->row_count,
                        .generation = aux->table->generation};
  int rc = order_make(aux->table, aux->strings, spec, &o->rows);
  if (rc == WEFT_OK) rc = order_copy_values(aux->table, o);
  if (rc != WEFT_OK) {
    sql_vtab_order_free(o);
    return rc;
  }
  if (cached < ORDER_CACHE_MAX) {
    o->next = aux->orders;
    aux->orders = o;
  } else {
    *owned = o;
  }
  *order = o;
  return WEFT_OK;
}

void sql_vtab_orders_free(sql_vtab_aux *aux) {
  base_free(aux->equality_scans);
  aux->equality_scans = NULL;
  sql_vtab_samples_free(aux);
  while (aux->orders) {
    sql_vtab_order *o = aux->orders;
    aux->orders = o->next;
    sql_vtab_order_free(o);
  }
}

/* -1, 0 or 1 comparing row `row`'s value of `col` with the int v or the
 * string s (NULL below everything), in the order of an ascending spec. */
static int order_compare_value(const storage_table *t, const base_string_pool *strings, int col,
                               uint32_t row, int64_t v, string_id s) {
  if (t->defs[col].type == STORAGE_STR) {
    string_id id = storage_get_str(t, (size_t)col, row);
    if (id == s) return 0;
    if (id == STRING_NULL) return -1;
    order_string a = {base_string_pool_get(strings, id), base_string_pool_len(strings, id), id};
    order_string b = {base_string_pool_get(strings, s), base_string_pool_len(strings, s), s};
    int r = order_compare_strings(&a, &b);
    return (r > 0) - (r < 0);
  }
  if (storage_is_null(t, (size_t)col, row)) return -1;
  int64_t x = storage_get_i64(t, (size_t)col, row);
  return (x > v) - (x < v);
}

void sql_vtab_order_equal_range(const sql_vtab_aux *aux, int col, const uint32_t *rows,
                                int64_t v, string_id s, size_t *lo, size_t *hi) {
  const storage_table *t = aux->table;
  assert(col >= 0 && (t->defs[col].type == STORAGE_STR || t->defs[col].type == STORAGE_I64));
  size_t a = 0, b = t->row_count;
  while (a < b) { /* first row not below the value */
    size_t mid = a + (b - a) / 2;
    if (order_compare_value(t, aux->strings, col, rows[mid], v, s) < 0) a = mid + 1;
    else b = mid;
  }
  size_t first = a;
  b = t->row_count;
  while (a < b) { /* first row above it */
    size_t mid = a + (b - a) / 2;
    if (order_compare_value(t, aux->strings, col, rows[mid], v, s) <= 0) a = mid + 1;
    else b = mid;
  }
  *lo = first;
  *hi = a;
}
