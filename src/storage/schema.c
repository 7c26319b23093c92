/* The storage_column_def arrays generated from schema.h's X-macro lists,
 * the reference list, and its check. */
#include "storage/schema.h"

#include <stdio.h>
#include <stdlib.h>

#define N STORAGE_NULLABLE
#define S STORAGE_SORTED
#define H STORAGE_HIDDEN
#define SCHEMA_DEF_ITEM(TAB, col, type, flags) {#col, STORAGE_##type, flags},
#define SCHEMA_DEFINE_ARRAY(TAB, NAME, COLS) \
  static const storage_column_def TAB##_defs[] = {COLS(SCHEMA_DEF_ITEM, TAB)};
WEFT_TABLES(SCHEMA_DEFINE_ARRAY)

#define SCHEMA_TABLE_ENTRY(TAB, NAME, COLS) \
  {NAME, TAB##_defs, sizeof TAB##_defs / sizeof TAB##_defs[0]},
const schema_table_def schema_tables[TABLE_COUNT] = {
    WEFT_TABLES(SCHEMA_TABLE_ENTRY)};

#define SCHEMA_REF_ENTRY(TAB, col, TO) {TABLE_##TAB, TAB##_##col, TABLE_##TO},
const schema_ref schema_refs[] = {WEFT_REFS(SCHEMA_REF_ENTRY)};
const size_t schema_ref_count = sizeof schema_refs / sizeof schema_refs[0];

/* The values a reference to `to` may hold, when they are not simply the
 * row indexes 0..row_count-1: sorted and distinct. */
typedef struct ref_values {
  int64_t *v;
  size_t n;
  int dense; /* the row indexes of `rows` rows */
  size_t rows;
} ref_values;

static int ref_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int ref_values_of(const storage_table tables[TABLE_COUNT], unsigned to, ref_values *out) {
  const storage_table *t = &tables[to == TABLE_ARG_SET ? TABLE_ARGS : to];
  size_t col = to == TABLE_ARG_SET ? ARGS_arg_set_id : 0;
  memset(out, 0, sizeof *out);
  if (to != TABLE_ARG_SET && t->defs[0].type == STORAGE_ID) {
    out->dense = 1;
    out->rows = t->row_count;
    return 0;
  }
  if (t->row_count && !(out->v = base_malloc(t->row_count * sizeof *out->v))) return -1;
  for (size_t r = 0; r < t->row_count; r++)
    if (!storage_is_null(t, col, r)) out->v[out->n++] = storage_get_i64(t, col, r);
  if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, ref_cmp);
  size_t k = 0;
  for (size_t i = 0; i < out->n; i++)
    if (k == 0 || out->v[i] != out->v[k - 1]) out->v[k++] = out->v[i];
  out->n = k;
  return 0;
}

static int ref_values_hold(const ref_values *rv, int64_t x) {
  if (rv->dense) return x >= 0 && (uint64_t)x < rv->rows;
  return rv->n && bsearch(&x, rv->v, rv->n, sizeof *rv->v, ref_cmp) != NULL;
}

long schema_check_refs(const storage_table tables[TABLE_COUNT], char *msg, size_t cap) {
  /* each target's values, built at its first reference (14 refs share the
   * arg sets': one sorted copy of args.arg_set_id serves them all) */
  ref_values values[TABLE_COUNT + 1];
  int built[TABLE_COUNT + 1] = {0};
  long bad = 0;
  if (cap) msg[0] = '\0';
  for (size_t i = 0; i < schema_ref_count; i++) {
    const schema_ref *ref = &schema_refs[i];
    const storage_table *t = &tables[ref->table];
    ref_values *rv = &values[ref->to];
    if (!built[ref->to] && ref_values_of(tables, ref->to, rv)) {
      bad = -1;
      break;
    }
    built[ref->to] = 1;
    for (size_t r = 0; r < t->row_count; r++) {
      if (storage_is_null(t, ref->column, r)) continue;
      int64_t x = storage_get_i64(t, ref->column, r);
      if (ref_values_hold(rv, x)) continue;
      if (bad++ == 0 && cap)
        snprintf(msg, cap, "%s.%s = %lld (row %zu): no such %s", t->name,
                 t->defs[ref->column].name, (long long)x, r,
                 ref->to == TABLE_ARG_SET ? "arg set" : schema_tables[ref->to].name);
    }
  }
  for (int k = 0; k <= TABLE_COUNT; k++)
    if (built[k]) base_free(values[k].v);
  return bad;
}
