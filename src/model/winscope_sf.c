/* winscope_sf: SurfaceFlinger winscope rows (model/winscope_sf.h). */
#include "model/winscope_sf.h"

static void sf_set_opt(storage_table *t, unsigned col, uint32_t row, int has, int64_t v) {
  if (has) storage_set_i64(t, col, row, v);
}

int model_sf_transactions_add(trace_context *ctx, int64_t ts, int64_t arg_set,
                              string_id base64_proto, int64_t vsync_id, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_SURFACEFLINGER_TRANSACTIONS);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  storage_set_i64(t, SURFACEFLINGER_TRANSACTIONS_ts, *row, ts);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTIONS_arg_set_id, *row, arg_set >= 0, arg_set);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTIONS_base64_proto_id, *row, base64_proto != STRING_NULL,
             (int64_t)base64_proto);
  storage_set_i64(t, SURFACEFLINGER_TRANSACTIONS_vsync_id, *row, vsync_id);
  return WEFT_OK;
}

int model_sf_transaction_add(trace_context *ctx, const model_sf_transaction *x) {
  storage_table *t = ctx_table(ctx, TABLE_SURFACEFLINGER_TRANSACTION);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  int has_tx = (x->has & MODEL_SF_HAS_TRANSACTION) != 0;
  storage_set_i64(t, SURFACEFLINGER_TRANSACTION_snapshot_id, row, x->snapshot_id);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_arg_set_id, row, x->arg_set >= 0, x->arg_set);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_base64_proto_id, row, x->base64_proto != STRING_NULL,
             (int64_t)x->base64_proto);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_transaction_id, row, has_tx, x->transaction_id);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_pid, row, has_tx, x->pid);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_uid, row, has_tx, x->uid);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_layer_id, row, (x->has & MODEL_SF_HAS_LAYER) != 0,
             x->layer_id);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_display_id, row,
             (x->has & MODEL_SF_HAS_DISPLAY) != 0, x->display_id);
  sf_set_opt(t, SURFACEFLINGER_TRANSACTION_flags_id, row, (x->has & MODEL_SF_HAS_FLAGS) != 0,
             x->flags_id);
  storage_set_str(t, SURFACEFLINGER_TRANSACTION_transaction_type, row, x->type);
  return WEFT_OK;
}

int model_sf_transaction_flag_add(trace_context *ctx, int64_t flags_id, string_id flag) {
  storage_table *t = ctx_table(ctx, TABLE_SURFACEFLINGER_TRANSACTION_FLAG);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, SURFACEFLINGER_TRANSACTION_FLAG_flags_id, row, flags_id);
  storage_set_str(t, SURFACEFLINGER_TRANSACTION_FLAG_flag, row, flag);
  return WEFT_OK;
}

/* Sets optional column col when `has`; keeps the first error in *rc. */
static void sf_put(storage_table *t, unsigned col, uint32_t row, int has, int64_t v, int *rc) {
  int r = has ? storage_set_i64(t, col, row, v) : WEFT_OK;
  if (!*rc) *rc = r;
}

static void sf_put_f64(storage_table *t, unsigned col, uint32_t row, int has, double v,
                       int *rc) {
  int r = has ? storage_set_f64(t, col, row, v) : WEFT_OK;
  if (!*rc) *rc = r;
}

int model_sf_snapshot_add(trace_context *ctx, const model_sf_snapshot *s, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_SURFACEFLINGER_LAYERS_SNAPSHOT);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  sf_put(t, SURFACEFLINGER_LAYERS_SNAPSHOT_ts, *row, 1, s->ts, &rc);
  sf_put(t, SURFACEFLINGER_LAYERS_SNAPSHOT_arg_set_id, *row, s->arg_set >= 0, s->arg_set, &rc);
  sf_put(t, SURFACEFLINGER_LAYERS_SNAPSHOT_base64_proto_id, *row,
         s->base64_proto != STRING_NULL, (int64_t)s->base64_proto, &rc);
  sf_put(t, SURFACEFLINGER_LAYERS_SNAPSHOT_sequence_id, *row, s->has_sequence_id,
         s->sequence_id, &rc);
  sf_put(t, SURFACEFLINGER_LAYERS_SNAPSHOT_has_invalid_elapsed_ts, *row, 1,
         s->has_invalid_elapsed_ts, &rc);
  return rc;
}

int model_sf_layer_add(trace_context *ctx, const model_sf_layer *l) {
  storage_table *t = ctx_table(ctx, TABLE_SURFACEFLINGER_LAYER);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  sf_put(t, SURFACEFLINGER_LAYER_snapshot_id, row, 1, l->snapshot_id, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_arg_set_id, row, l->arg_set >= 0, l->arg_set, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_base64_proto_id, row, l->base64_proto != STRING_NULL,
         (int64_t)l->base64_proto, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_layer_id, row, l->has_layer_id, l->layer_id, &rc);
  if (!rc) rc = storage_set_str(t, SURFACEFLINGER_LAYER_layer_name, row, l->name);
  sf_put(t, SURFACEFLINGER_LAYER_is_visible, row, 1, l->is_visible, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_parent, row, l->has_parent, l->parent, &rc);
  for (unsigned i = 0; i < 4; i++)
    sf_put_f64(t, SURFACEFLINGER_LAYER_corner_radius_tl + i, row, 1, l->corner_radius[i], &rc);
  sf_put(t, SURFACEFLINGER_LAYER_hwc_composition_type, row, l->has_hwc_composition_type,
         l->hwc_composition_type, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_is_hidden_by_policy, row, 1, l->is_hidden_by_policy, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_z_order_relative_of, row, l->has_z_order_relative_of,
         l->z_order_relative_of, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_is_missing_z_parent, row, 1, l->is_missing_z_parent, &rc);
  sf_put(t, SURFACEFLINGER_LAYER_layer_rect_id, row, l->layer_rect_id >= 0, l->layer_rect_id,
         &rc);
  sf_put(t, SURFACEFLINGER_LAYER_input_rect_id, row, l->input_rect_id >= 0, l->input_rect_id,
         &rc);
  return rc;
}

int model_sf_display_add(trace_context *ctx, const model_sf_display *d) {
  storage_table *t = ctx_table(ctx, TABLE_SURFACEFLINGER_DISPLAY);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  sf_put(t, SURFACEFLINGER_DISPLAY_snapshot_id, row, 1, d->snapshot_id, &rc);
  sf_put(t, SURFACEFLINGER_DISPLAY_is_on, row, 1, d->is_on, &rc);
  sf_put(t, SURFACEFLINGER_DISPLAY_is_virtual, row, 1, d->is_virtual, &rc);
  sf_put(t, SURFACEFLINGER_DISPLAY_trace_rect_id, row, 1, d->trace_rect_id, &rc);
  sf_put(t, SURFACEFLINGER_DISPLAY_display_id, row, 1, d->display_id, &rc);
  if (!rc) rc = storage_set_str(t, SURFACEFLINGER_DISPLAY_display_name, row, d->name);
  return rc;
}

int model_winscope_rect_add(trace_context *ctx, double x, double y, double w, double h,
                            uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_WINSCOPE_RECT);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  sf_put_f64(t, WINSCOPE_RECT_x, *row, 1, x, &rc);
  sf_put_f64(t, WINSCOPE_RECT_y, *row, 1, y, &rc);
  sf_put_f64(t, WINSCOPE_RECT_w, *row, 1, w, &rc);
  sf_put_f64(t, WINSCOPE_RECT_h, *row, 1, h, &rc);
  return rc;
}

int model_winscope_transform_add(trace_context *ctx, const double m[6], uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_WINSCOPE_TRANSFORM);
  int rc = storage_table_append(t, row);
  for (unsigned i = 0; !rc && i < 6; i++)
    sf_put_f64(t, WINSCOPE_TRANSFORM_dsdx + i, *row, 1, m[i], &rc);
  return rc;
}

int model_winscope_trace_rect_add(trace_context *ctx, const model_winscope_trace_rect *r,
                                  uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_WINSCOPE_TRACE_RECT);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  sf_put(t, WINSCOPE_TRACE_RECT_rect_id, *row, 1, r->rect_id, &rc);
  sf_put(t, WINSCOPE_TRACE_RECT_group_id, *row, 1, r->group_id, &rc);
  sf_put(t, WINSCOPE_TRACE_RECT_depth, *row, 1, r->depth, &rc);
  sf_put(t, WINSCOPE_TRACE_RECT_is_spy, *row, 1, r->is_spy, &rc);
  sf_put(t, WINSCOPE_TRACE_RECT_is_visible, *row, 1, r->is_visible, &rc);
  sf_put_f64(t, WINSCOPE_TRACE_RECT_opacity, *row, r->has_opacity, r->opacity, &rc);
  sf_put(t, WINSCOPE_TRACE_RECT_transform_id, *row, 1, r->transform_id, &rc);
  sf_put_f64(t, WINSCOPE_TRACE_RECT_border_width, *row, r->has_border, r->border_width, &rc);
  sf_put(t, WINSCOPE_TRACE_RECT_border_color, *row, r->has_border, r->border_color, &rc);
  return rc;
}

int model_winscope_fill_region_add(trace_context *ctx, int64_t trace_rect_id, int64_t rect_id) {
  storage_table *t = ctx_table(ctx, TABLE_WINSCOPE_FILL_REGION);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  sf_put(t, WINSCOPE_FILL_REGION_trace_rect_id, row, !rc, trace_rect_id, &rc);
  sf_put(t, WINSCOPE_FILL_REGION_rect_id, row, !rc, rect_id, &rc);
  return rc;
}
