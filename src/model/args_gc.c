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

/* The candidate sets, as bits over the ids [lo, lo + n): arg set ids are
 * dense, so a bit test replaces a hash lookup per row scanned. */
typedef struct model_arg_bits {
  int64_t lo;
  size_t n;
  uint64_t *candidate, *used;
} model_arg_bits;

static int model_bit(const uint64_t *bits, const model_arg_bits *b, int64_t id) {
  if (id < b->lo || (uint64_t)(id - b->lo) >= b->n) return 0;
  size_t i = (size_t)(id - b->lo);
  return (int)((bits[i / 64] >> (i % 64)) & 1);
}

static void model_bit_set(uint64_t *bits, const model_arg_bits *b, int64_t id) {
  size_t i = (size_t)(id - b->lo);
  bits[i / 64] |= UINT64_C(1) << (i % 64);
}

/* Marks the candidates some row refers to. */
static void model_args_mark_used(trace_context *ctx, model_arg_bits *b) {
  for (size_t r = 0; r < sizeof model_arg_refs / sizeof *model_arg_refs; r++) {
    if (model_arg_refs[r].to != (schema_table_id)TABLE_ARG_SET) continue;
    const storage_table *t = ctx_table(ctx, model_arg_refs[r].table);
    size_t col = model_arg_refs[r].column;
    for (size_t row = 0; row < t->row_count; row++) {
      int64_t v = storage_get_i64_or(t, col, row, -1);
      if (model_bit(b->candidate, b, v)) model_bit_set(b->used, b, v);
    }
  }
}

/* 1 if some candidate is not used. */
static int model_args_some_unused(const model_arg_bits *b) {
  for (size_t w = 0; w < (b->n + 63) / 64; w++)
    if (b->candidate[w] & ~b->used[w]) return 1;
  return 0;
}

/* Removes the args rows of unused candidate sets, in place. */
static int model_args_drop_unused(trace_context *ctx, const model_arg_bits *b) {
  storage_table *args = ctx_table(ctx, TABLE_ARGS);
  uint64_t *keep = base_calloc((args->row_count + 63) / 64 + 1, sizeof *keep);
  if (!keep) return WEFT_ENOMEM;
  for (size_t row = 0; row < args->row_count; row++) {
    int64_t set = storage_get_i64(args, ARGS_arg_set_id, row);
    if (!model_bit(b->candidate, b, set) || model_bit(b->used, b, set))
      keep[row / 64] |= UINT64_C(1) << (row % 64);
  }
  storage_table_keep_rows(args, keep);
  base_free(keep);
  return WEFT_OK;
}

int model_args_collect_replaced(trace_context *ctx) {
  model_state *m = &ctx->model;
  if (!m->replaced_arg_sets.len) return WEFT_OK;
  model_arg_bits b = {INT64_MAX, 0, NULL, NULL};
  int64_t hi = -1;
  for (size_t i = 0; i < m->replaced_arg_sets.len; i++) {
    int64_t s = m->replaced_arg_sets.data[i];
    b.lo = s < b.lo ? s : b.lo;
    hi = s > hi ? s : hi;
  }
  b.n = (size_t)(hi - b.lo + 1);
  b.candidate = base_calloc((b.n + 63) / 64, sizeof(uint64_t));
  b.used = base_calloc((b.n + 63) / 64, sizeof(uint64_t));
  int rc = b.candidate && b.used ? WEFT_OK : WEFT_ENOMEM;
  for (size_t i = 0; !rc && i < m->replaced_arg_sets.len; i++)
    model_bit_set(b.candidate, &b, m->replaced_arg_sets.data[i]);
  VEC_FREE(m->replaced_arg_sets);
  if (!rc) model_args_mark_used(ctx, &b);
  int dropping = !rc && model_args_some_unused(&b);
  if (dropping) rc = model_args_drop_unused(ctx, &b);
  /* a set dropped must not be found again by a later identical commit */
  if (!rc && dropping) base_map_free(&m->arg_sets);
  base_free(b.candidate);
  base_free(b.used);
  return rc;
}
