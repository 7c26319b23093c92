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
