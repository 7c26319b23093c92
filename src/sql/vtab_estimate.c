/* vtab_estimate: how many rows an `=` constraint leaves, for SQLite's
 * planner (see sql.h).
 *
 * A fixed guess ("a tenth of the table") makes SQLite pick join orders by
 * table size alone: a small table whose `=` keeps nearly every row (track
 * by classification) looks more selective than a sort of the join's
 * output. Here each int or string column gets, on first use, a sample of
 * up to ESTIMATE_SAMPLE values taken at evenly spaced rows, kept sorted and
 * cached while the table does not change (its row_count and generation).
 * From it:
 *  - `col = constant` keeps the constant's share of the sample (a value
 *    absent from it is rarer than one sampled row);
 *  - `col = ?` (a join's probe) keeps the non-NULL rows over the column's
 *    distinct non-NULL values, estimated from the sample by the GEE
 *    estimator: the values seen once stand for sqrt(rows / sample) values
 *    each, those seen more often for themselves. A sample of the whole
 *    table counts exactly.
 * Estimates only steer the plan, never the answer. */
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql.h"

#define ESTIMATE_SAMPLE 1024

typedef struct sql_vtab_column_sample {
  size_t row_count;    /* of the table when taken; 0: not taken */
  uint32_t generation; /* of the table when taken */
  uint32_t count;      /* values in `values` */
  double distinct;     /* estimated distinct non-NULL values of the whole column */
  double non_null;     /* the share of the sample that is not NULL */
  int64_t values[ESTIMATE_SAMPLE]; /* sorted; a STR column's string ids */
} sql_vtab_column_sample;

static int estimate_compare(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* A NULL is sampled as a value no constant equals. */
#define ESTIMATE_NULL INT64_MIN
static int64_t estimate_value(const storage_table *t, int col, size_t row) {
  if (t->defs[col].type == STORAGE_STR) {
    string_id s = storage_get_str(t, (size_t)col, row);
    return s == STRING_NULL ? ESTIMATE_NULL : (int64_t)s;
  }
  if (storage_is_null(t, (size_t)col, row)) return ESTIMATE_NULL;
  return storage_get_i64(t, (size_t)col, row);
}

static void estimate_take_sample(const storage_table *t, int col, sql_vtab_column_sample *s) {
  size_t n = t->row_count;
  uint32_t k = n < ESTIMATE_SAMPLE ? (uint32_t)n : ESTIMATE_SAMPLE;
  for (uint32_t i = 0; i < k; i++) s->values[i] = estimate_value(t, col, (size_t)i * n / k);
  qsort(s->values, k, sizeof s->values[0], estimate_compare);
  uint32_t distinct = 0, once = 0, nulls = 0;
  for (uint32_t i = 0; i < k;) {
    uint32_t j = i + 1;
    while (j < k && s->values[j] == s->values[i]) j++;
    if (s->values[i] == ESTIMATE_NULL) {
      nulls = j - i; /* sorted first; never equal to a probe */
    } else {
      distinct++;
      once += j - i == 1;
    }
    i = j;
  }
  s->non_null = k ? (double)(k - nulls) / k : 1;
  double d = k == n ? distinct : sqrt((double)n / k) * once + (distinct - once);
  s->distinct = d < 1 ? 1 : d > (double)n ? (double)n : d;
  s->count = k;
  s->row_count = n;
  s->generation = t->generation;
}

/* The column's sample, taken now if the table changed since; NULL without
 * memory. */
static const sql_vtab_column_sample *estimate_sample(sql_vtab_aux *aux, int col) {
  const storage_table *t = aux->table;
  if (!aux->samples && !(aux->samples = base_calloc(t->column_count, sizeof *aux->samples)))
    return NULL;
  sql_vtab_column_sample *s = aux->samples[col];
  if (!s && !(s = aux->samples[col] = base_malloc(sizeof *s))) return NULL;
  if (s->row_count != t->row_count || s->generation != t->generation || !s->row_count)
    estimate_take_sample(t, col, s);
  return s;
}

/* How many sampled values equal v. */
static uint32_t estimate_count_in_sample(const sql_vtab_column_sample *s, int64_t v) {
  uint32_t lo = 0, hi = s->count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->values[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  uint32_t first = lo;
  while (lo < s->count && s->values[lo] == v) lo++;
  return lo - first;
}

/* The sampled form of a constant compared with column col: 0, or -1 when
 * no row can be equal (NULL, or a string the trace never holds) or the
 * constant is not of a kind sampled (a non-integral number, a blob). */
static int estimate_constant(sql_vtab_aux *aux, int col, sqlite3_value *value, int64_t *out) {
  const storage_table *t = aux->table;
  int type = sqlite3_value_type(value);
  if (t->defs[col].type == STORAGE_STR) {
    if (type != SQLITE_TEXT) return -1;
    const char *s = (const char *)sqlite3_value_text(value);
    if (!s) return -1;
    string_id id = base_string_pool_find(aux->strings, s, (size_t)sqlite3_value_bytes(value));
    if (id == STRING_NULL) return -1;
    *out = (int64_t)id;
    return 0;
  }
  if (type == SQLITE_INTEGER) {
    *out = sqlite3_value_int64(value);
    return 0;
  }
  return -1;
}

double sql_vtab_estimate_equal(sql_vtab_aux *aux, int col, sqlite3_value *value) {
  const storage_table *t = aux->table;
  double rows = (double)t->row_count;
  assert(col >= 0 && (size_t)col < t->column_count);
  if (t->row_count == 0) return 1;
  if (t->defs[col].type != STORAGE_STR && t->defs[col].type != STORAGE_I64) return rows / 10 + 1;
  const sql_vtab_column_sample *s = estimate_sample(aux, col);
  if (!s) return rows / 10 + 1;
  if (!value) { /* a probe finds no NULL row */
    double found = rows * s->non_null / s->distinct;
    return found < 1 ? 1 : found;
  }
  int64_t v;
  if (estimate_constant(aux, col, value, &v) != 0)
    return sqlite3_value_type(value) == SQLITE_FLOAT ? rows / s->distinct : 1;
  uint32_t seen = v == ESTIMATE_NULL ? 0 : estimate_count_in_sample(s, v);
  double share = seen ? (double)seen / s->count : 0.5 / s->count;
  return rows * share < 1 ? 1 : rows * share;
}

void sql_vtab_samples_free(sql_vtab_aux *aux) {
  if (!aux->samples) return;
  for (size_t c = 0; c < aux->table->column_count; c++) base_free(aux->samples[c]);
  base_free(aux->samples);
  aux->samples = NULL;
}
