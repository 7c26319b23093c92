/* Arg sets left behind when a slice's set is replaced (model_slice_set_args:
 * an end event's args joined to its begin's make a new set), removed once
 * loading ends if no row refers to them any more — Perfetto's args table
 * holds only the sets rows use. See model.h. */
#include "model/context.h"
#include "model/model.h"

typedef struct model_arg_ref {
  schema_table_id table, to;
  size_t column;
} model_arg_ref;

#define MODEL_ARG_REF(TAB, col, TO) {TABLE_##TAB, (schema_table_id)TABLE_##TO, TAB##_##col},
static const model_arg_ref model_arg_refs[] = {WEFT_REFS(MODEL_ARG_REF)};

/* Marks (value 1) the candidates some row refers to. */
static void model_args_mark_used(trace_context *ctx, base_map *cand, int64_t lo, int64_t hi) {
  for (size_t r = 0; r < sizeof model_arg_refs / sizeof *model_arg_refs; r++) {
    if (model_arg_refs[r].to != (schema_table_id)TABLE_ARG_SET) continue;
    const storage_table *t = ctx_table(ctx, model_arg_refs[r].table);
    size_t col = model_arg_refs[r].column;
    for (size_t row = 0; row < t->row_count; row++) {
      int64_t v = storage_get_i64_or(t, col, row, -1);
      if (v < lo || v > hi) continue;
      uint64_t *used = base_map_find(cand, (uint64_t)v);
      if (used) *used = 1;
    }
  }
}

/* Appends row `row` of `from` to `to` (same schema). */
static int model_copy_row(const storage_table *from, storage_table *to, size_t row) {
  uint32_t out;
  int rc = storage_table_append(to, &out);
  for (size_t c = 0; !rc && c < from->column_count; c++) {
    if (storage_is_null(from, c, row)) continue;
    switch (from->defs[c].type) {
      case STORAGE_I64: rc = storage_set_i64(to, c, out, storage_get_i64(from, c, row)); break;
      case STORAGE_F64: rc = storage_set_f64(to, c, out, storage_get_f64(from, c, row)); break;
      case STORAGE_STR: rc = storage_set_str(to, c, out, storage_get_str(from, c, row)); break;
      default: break;
    }
  }
  return rc;
}

/* Rewrites the args table without the rows of unused candidate sets. */
static int model_args_drop_unused(trace_context *ctx, const base_map *cand) {
  storage_table *args = ctx_table(ctx, TABLE_ARGS), kept;
  int rc = storage_table_init(&kept, args->name, args->defs, args->column_count);
  if (!rc) rc = storage_table_reserve(&kept, args->row_count);
  for (size_t row = 0; !rc && row < args->row_count; row++) {
    uint64_t *used = base_map_find(cand, (uint64_t)storage_get_i64(args, ARGS_arg_set_id, row));
    if (!used || *used) rc = model_copy_row(args, &kept, row);
  }
  if (rc) {
    storage_table_free(&kept);
    return rc;
  }
  storage_table_free(args);
  *args = kept;
  return WEFT_OK;
}

int model_args_collect_replaced(trace_context *ctx) {
  model_state *m = &ctx->model;
  if (!m->replaced_arg_sets.len) return WEFT_OK;
  base_map cand = {0};
  int64_t lo = INT64_MAX, hi = -1;
  uint64_t *slot;
  int rc = WEFT_OK;
  for (size_t i = 0; i < m->replaced_arg_sets.len && !rc; i++) {
    int64_t s = m->replaced_arg_sets.data[i];
    if (base_map_insert(&cand, (uint64_t)s, 0, &slot) < 0) rc = WEFT_ENOMEM;
    lo = s < lo ? s : lo;
    hi = s > hi ? s : hi;
  }
  VEC_FREE(m->replaced_arg_sets);
  if (!rc) {
    model_args_mark_used(ctx, &cand, lo, hi);
    rc = model_args_drop_unused(ctx, &cand);
  }
  /* a set dropped must not be found again by a later identical commit */
  if (!rc) base_map_free(&m->arg_sets);
  base_map_free(&cand);
  return rc;
}
