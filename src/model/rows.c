/* Rows that no tracker of the model owns: Chrome's raw events, file
 * descriptors and counter values (see model.h). */
#include "model/model.h"

#include "model/context.h"

/* ---- chrome raw events ---- */

int model_chrome_raw(trace_context *ctx, int64_t ts, string_id name, uint32_t utid,
                     int64_t arg_set) {
  storage_table *t = ctx_table(ctx, TABLE_CHROME_RAW);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, CHROME_RAW_ts, row, ts);
  storage_set_str(t, CHROME_RAW_name, row, name);
  storage_set_i64(t, CHROME_RAW_utid, row, utid);
  if (arg_set >= 0) storage_set_i64(t, CHROME_RAW_arg_set_id, row, arg_set);
  return WEFT_OK;
}

/* ---- file descriptors ---- */

int model_filedescriptor(trace_context *ctx, uint32_t upid, int64_t ts, int64_t fd,
                         string_id path) {
  storage_table *t = ctx_table(ctx, TABLE_FILEDESCRIPTOR);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, FILEDESCRIPTOR_ufd, row, 0);
  storage_set_i64(t, FILEDESCRIPTOR_fd, row, fd);
  storage_set_i64(t, FILEDESCRIPTOR_ts, row, ts);
  storage_set_i64(t, FILEDESCRIPTOR_upid, row, upid);
  storage_set_str(t, FILEDESCRIPTOR_path, row, path);
  return WEFT_OK;
}

/* ---- counters ---- */

int model_counter(trace_context *ctx, uint32_t track, int64_t ts, double value,
                  int64_t arg_set) {
  uint32_t row;
  return model_counter_row(ctx, track, ts, value, arg_set, &row);
}

int model_counter_row(trace_context *ctx, uint32_t track, int64_t ts, double value,
                      int64_t arg_set, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_COUNTER);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  storage_set_i64(t, COUNTER_ts, *row, ts);
  storage_set_i64(t, COUNTER_track_id, *row, track);
  storage_set_f64(t, COUNTER_value, *row, value);
  if (arg_set >= 0) storage_set_i64(t, COUNTER_arg_set_id, *row, arg_set);
  ctx_extend_bounds(ctx, ts);
  return WEFT_OK;
}

void model_counter_set_value(trace_context *ctx, uint32_t row, double value) {
  storage_set_f64(ctx_table(ctx, TABLE_COUNTER), COUNTER_value, row, value);
}
