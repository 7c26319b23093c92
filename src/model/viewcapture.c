/* viewcapture: view capture tables (model/viewcapture.h). */
#include "model/viewcapture.h"

#include <string.h>

#include "model/model.h"

int model_viewcapture_add(trace_context *ctx, int64_t ts, string_id package_name,
                          string_id window_name, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_VIEWCAPTURE);
  int rc = storage_table_append(t, row);
  if (!rc) rc = storage_set_i64(t, VIEWCAPTURE_ts, *row, ts);
  if (!rc) rc = storage_set_str(t, VIEWCAPTURE_package_name, *row, package_name);
  if (!rc) rc = storage_set_str(t, VIEWCAPTURE_window_name, *row, window_name);
  return rc;
}

void model_viewcapture_set_args(trace_context *ctx, uint32_t row, int64_t arg_set,
                                string_id base64_proto) {
  storage_table *t = ctx_table(ctx, TABLE_VIEWCAPTURE);
  if (arg_set >= 0) storage_set_i64(t, VIEWCAPTURE_arg_set_id, row, arg_set);
  if (base64_proto != STRING_NULL)
    storage_set_i64(t, VIEWCAPTURE_base64_proto_id, row, (int64_t)base64_proto);
}

int model_viewcapture_view_add(trace_context *ctx, const model_viewcapture_view *v) {
  storage_table *t = ctx_table(ctx, TABLE_VIEWCAPTURE_VIEW);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (!rc) rc = storage_set_i64(t, VIEWCAPTURE_VIEW_snapshot_id, row, v->snapshot_id);
  if (!rc && v->arg_set >= 0) rc = storage_set_i64(t, VIEWCAPTURE_VIEW_arg_set_id, row, v->arg_set);
  if (!rc && v->base64_proto != STRING_NULL)
    rc = storage_set_i64(t, VIEWCAPTURE_VIEW_base64_proto_id, row, (int64_t)v->base64_proto);
  if (!rc) rc = storage_set_i64(t, VIEWCAPTURE_VIEW_node_id, row, v->node_id);
  if (!rc) rc = storage_set_i64(t, VIEWCAPTURE_VIEW_hashcode, row, v->hashcode);
  if (!rc) rc = storage_set_i64(t, VIEWCAPTURE_VIEW_parent_id, row, v->parent_id);
  if (!rc) rc = storage_set_str(t, VIEWCAPTURE_VIEW_view_id, row, v->view_id);
  if (!rc) rc = storage_set_str(t, VIEWCAPTURE_VIEW_class_name, row, v->class_name);
  return rc;
}

/* ---- pending args edits ---- */

int64_t model_args_pending_find(const trace_context *ctx, size_t first, string_id key) {
  const model_state *m = &ctx->model;
  for (size_t i = first; i < m->pending_args.len; i++)
    if (m->pending_args.data[i].key == key) return (int64_t)i;
  return -1;
}

int64_t model_args_pending_int(const trace_context *ctx, size_t i) {
  return ctx->model.pending_args.data[i].int_value;
}

void model_args_pending_to_string(trace_context *ctx, size_t i, string_id key, string_id value) {
  model_arg *a = &ctx->model.pending_args.data[i];
  memset(a, 0, sizeof *a);
  a->key = a->flat_key = key;
  a->type = MODEL_ARG_STRING;
  a->string_value = value;
}

int model_args_pending_insert_string(trace_context *ctx, size_t i, string_id key,
                                     string_id value) {
  model_state *m = &ctx->model;
  model_arg a = {0};
  if (VEC_PUSH(m->pending_args, a)) return WEFT_ENOMEM;
  model_arg *args = m->pending_args.data;
  memmove(args + i + 1, args + i, (m->pending_args.len - 1 - i) * sizeof *args);
  model_args_pending_to_string(ctx, i, key, value);
  return WEFT_OK;
}
