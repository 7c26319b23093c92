/* Single-column writes to rows the model made. See columns.h. */
#include "model/columns.h"

uint32_t model_thread_upid(trace_context *ctx, uint32_t utid) {
  return (uint32_t)storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, utid, 0);
}

int64_t model_slice_arg_set(trace_context *ctx, uint32_t slice) {
  return storage_get_i64_or(ctx_table(ctx, TABLE_SLICE), SLICE_arg_set_id, slice, -1);
}

void model_slice_set_thread_ts(trace_context *ctx, uint32_t slice, int64_t thread_ts,
                               int instant) {
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  storage_set_i64(t, SLICE_thread_ts, slice, thread_ts);
  if (instant) storage_set_i64(t, SLICE_thread_dur, slice, 0);
}

void model_slice_set_thread_dur(trace_context *ctx, uint32_t slice, int64_t thread_dur) {
  storage_set_i64(ctx_table(ctx, TABLE_SLICE), SLICE_thread_dur, slice, thread_dur);
}

void model_slice_end_thread_time(trace_context *ctx, uint32_t slice, int64_t thread_end) {
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  if (storage_is_null(t, SLICE_thread_ts, slice)) return;
  storage_set_i64(t, SLICE_thread_dur, slice,
                  thread_end - storage_get_i64(t, SLICE_thread_ts, slice));
}

void model_track_set_name(trace_context *ctx, uint32_t track, string_id name) {
  if (name != STRING_NULL) storage_set_str(ctx_table(ctx, TABLE_TRACK), TRACK_name, track, name);
}

void model_track_set_arg_sets(trace_context *ctx, uint32_t track, int64_t dimensions,
                              int64_t source) {
  storage_table *t = ctx_table(ctx, TABLE_TRACK);
  if (dimensions >= 0) storage_set_i64(t, TRACK_dimension_arg_set_id, track, dimensions);
  if (source >= 0) storage_set_i64(t, TRACK_source_arg_set_id, track, source);
}

void model_track_set_upid(trace_context *ctx, uint32_t track, uint32_t upid) {
  storage_set_i64(ctx_table(ctx, TABLE_TRACK), TRACK_upid, track, upid);
}

void model_row_set_arg_set(trace_context *ctx, schema_table_id table, size_t column,
                           uint32_t row, int64_t arg_set) {
  if (arg_set >= 0) storage_set_i64(ctx_table(ctx, table), column, row, arg_set);
}
