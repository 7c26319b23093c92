/* Single-column writes to rows the model made. See columns.h. */
#include "model/columns.h"

#include <string.h>

#include "model/model.h"

uint32_t model_thread_upid(trace_context *ctx, uint32_t utid) {
  return (uint32_t)storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, utid, 0);
}

int64_t model_thread_process(trace_context *ctx, uint32_t utid) {
  return storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, utid, -1);
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
  /* wrapping, as the int64 arithmetic of a hostile trace may overflow */
  storage_set_i64(t, SLICE_thread_dur, slice,
                  (int64_t)((uint64_t)thread_end - (uint64_t)storage_get_i64(t, SLICE_thread_ts, slice)));
}

void model_slice_set_thread_instructions(trace_context *ctx, uint32_t slice, int64_t count,
                                         int instant) {
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  storage_set_i64(t, SLICE_thread_instruction_count, slice, count);
  if (instant) storage_set_i64(t, SLICE_thread_instruction_delta, slice, 0);
}

void model_slice_end_thread_instructions(trace_context *ctx, uint32_t slice, int64_t count_end) {
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  if (storage_is_null(t, SLICE_thread_instruction_count, slice)) return;
  storage_set_i64(t, SLICE_thread_instruction_delta, slice,
                  (int64_t)((uint64_t)count_end -
                            (uint64_t)storage_get_i64(t, SLICE_thread_instruction_count, slice)));
}

void model_slice_set_thread_instruction_delta(trace_context *ctx, uint32_t slice, int64_t delta) {
  storage_set_i64(ctx_table(ctx, TABLE_SLICE), SLICE_thread_instruction_delta, slice, delta);
}

int model_process_set_parent(trace_context *ctx, uint32_t upid, uint32_t parent) {
  storage_table *t = ctx_table(ctx, TABLE_PROCESS);
  int64_t current = storage_get_i64_or(t, PROCESS_parent_upid, upid, -1);
  if (current < 0) storage_set_i64(t, PROCESS_parent_upid, upid, parent);
  return current >= 0 && current != parent;
}

int model_process_set_cmdline(trace_context *ctx, uint32_t upid, const char *cmdline,
                              size_t len) {
  string_id id;
  int rc = ctx_intern(ctx, cmdline, len, &id);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_PROCESS), PROCESS_cmdline, upid, id);
  return rc;
}

void model_process_set_uid(trace_context *ctx, uint32_t upid, int64_t uid) {
  storage_table *t = ctx_table(ctx, TABLE_PROCESS);
  storage_set_i64(t, PROCESS_uid, upid, uid);
  storage_set_i64(t, PROCESS_android_appid, upid, uid % MODEL_ANDROID_PER_USER_RANGE);
  storage_set_i64(t, PROCESS_android_user_id, upid, uid / MODEL_ANDROID_PER_USER_RANGE);
}

void model_process_set_start(trace_context *ctx, uint32_t upid, int64_t start_ts) {
  storage_set_i64(ctx_table(ctx, TABLE_PROCESS), PROCESS_start_ts, upid, start_ts);
}

string_id model_process_name(trace_context *ctx, uint32_t upid) {
  return storage_get_str(ctx_table(ctx, TABLE_PROCESS), PROCESS_name, upid);
}

void model_thread_set_name_id(trace_context *ctx, uint32_t utid, string_id name) {
  storage_set_str(ctx_table(ctx, TABLE_THREAD), THREAD_name, utid, name);
}

void model_cpu_set_info(trace_context *ctx, uint32_t row, string_id processor,
                        int64_t cluster, int64_t capacity, int64_t arg_set) {
  storage_table *t = ctx_table(ctx, TABLE_CPU);
  storage_set_str(t, CPU_processor, row, processor);
  storage_set_i64(t, CPU_cluster_id, row, cluster);
  if (capacity >= 0) storage_set_i64(t, CPU_capacity, row, capacity);
  if (arg_set >= 0) storage_set_i64(t, CPU_arg_set_id, row, arg_set);
}

int model_cpu_frequency(trace_context *ctx, uint32_t cpu_row, int64_t freq) {
  storage_table *t = ctx_table(ctx, TABLE_CPU_FREQ);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, CPU_FREQ_ucpu, row, cpu_row);
  storage_set_i64(t, CPU_FREQ_freq, row, freq);
  return WEFT_OK;
}

/* A string arg whose value is an interned id. */
static int model_arg_id(trace_context *ctx, const char *key, string_id value) {
  string_id key_id;
  int rc = ctx_intern(ctx, key, strlen(key), &key_id);
  return rc ? rc : model_arg_string_id(ctx, key_id, value, MODEL_ARG_STRING);
}

int model_legacy_async_track_args(trace_context *ctx, int process_scoped, uint32_t upid,
                                  string_id scope, string_id root, uint32_t idx,
                                  int64_t *dims, int64_t *src) {
  int rc = WEFT_OK;
  if (process_scoped) rc = model_arg_int(ctx, "upid", 4, MODEL_ARG_INT, upid);
  if (!rc) rc = model_arg_id(ctx, "scope", scope);
  if (!rc) rc = model_arg_id(ctx, "name", root);
  if (!rc) rc = model_arg_int(ctx, "track_compressor_idx", 20, MODEL_ARG_INT, idx);
  if (!rc) rc = model_args_commit(ctx, dims);
  if (!rc) rc = model_arg_string(ctx, "source", 6, "chrome", 6, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "trace_id_is_process_scoped", 26, MODEL_ARG_BOOL,
                              process_scoped);
  if (!rc) rc = model_arg_int(ctx, "upid", 4, MODEL_ARG_UINT, upid);
  if (!rc) rc = model_arg_id(ctx, "source_scope", scope);
  if (!rc) rc = model_args_commit(ctx, src);
  if (rc) model_args_discard(ctx);
  return rc;
}

int model_track_mark_state(trace_context *ctx, uint32_t track) {
  string_id state;
  int rc = ctx_intern(ctx, "state", 5, &state);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_TRACK), TRACK_event_type, track, state);
  return rc;
}

/* `last` maps a track to its open state row, or to MODEL_STATE_CLOSED. */
#define MODEL_STATE_CLOSED UINT64_MAX

/* A repeated value continues the open row: its args join the row's, a key
 * both have taking the later value. The sets left unused go to the
 * collector (args_order.c). */
static int model_state_join_args(trace_context *ctx, uint32_t row, int64_t arg_set) {
  storage_table *t = ctx_table(ctx, TABLE_STATE);
  if (arg_set < 0) return WEFT_OK;
  int64_t old = storage_get_i64_or(t, STATE_arg_set_id, row, -1);
  if (old < 0) {
    storage_set_i64(t, STATE_arg_set_id, row, arg_set);
    return WEFT_OK;
  }
  int64_t joined = -1;
  int rc = model_args_reopen(ctx, old);
  size_t first = model_args_pending(ctx);
  if (!rc) rc = model_args_reopen(ctx, arg_set);
  if (!rc) model_args_update_from(ctx, first);
  if (!rc) rc = model_args_commit(ctx, &joined);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  storage_set_i64(t, STATE_arg_set_id, row, joined);
  if (VEC_PUSH(ctx->model.replaced_arg_sets, old)) return WEFT_ENOMEM;
  if (joined != arg_set && VEC_PUSH(ctx->model.replaced_arg_sets, arg_set)) return WEFT_ENOMEM;
  return WEFT_OK;
}

int model_state_value(trace_context *ctx, base_map *last, uint32_t track, int64_t ts,
                      string_id category, string_id value, int64_t arg_set,
                      int64_t open_dur) {
  storage_table *t = ctx_table(ctx, TABLE_STATE);
  uint64_t *open = base_map_find(last, track);
  if (open && *open != MODEL_STATE_CLOSED) {
    uint32_t prev = (uint32_t)*open;
    ctx_extend_bounds(ctx, ts);
    if (storage_get_str(t, STATE_value, prev) == value)
      return model_state_join_args(ctx, prev, arg_set);
    storage_set_i64(t, STATE_dur, prev, ts - storage_get_i64(t, STATE_ts, prev));
  }
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, STATE_ts, row, ts);
  storage_set_i64(t, STATE_dur, row, open_dur);
  storage_set_i64(t, STATE_track_id, row, track);
  storage_set_str(t, STATE_category, row, category);
  storage_set_str(t, STATE_value, row, value);
  if (arg_set >= 0) storage_set_i64(t, STATE_arg_set_id, row, arg_set);
  uint64_t *slot;
  if (base_map_insert(last, track, row, &slot) < 0) return WEFT_ENOMEM;
  *slot = row;
  ctx_extend_bounds(ctx, ts);
  return WEFT_OK;
}

void model_state_close(trace_context *ctx, base_map *last, uint32_t track, int64_t ts) {
  storage_table *t = ctx_table(ctx, TABLE_STATE);
  uint64_t *open = base_map_find(last, track);
  if (!open || *open == MODEL_STATE_CLOSED) return;
  uint32_t prev = (uint32_t)*open;
  storage_set_i64(t, STATE_dur, prev, ts - storage_get_i64(t, STATE_ts, prev));
  *open = MODEL_STATE_CLOSED;
}

int model_diagnostic(trace_context *ctx, uint32_t trace_id, const char *key,
                     const char *title, const char *description,
                     const char *remediation, double confidence) {
  storage_table *t = ctx_table(ctx, TABLE_TRACE_DIAGNOSTICS);
  string_id k, ti, de, re;
  uint32_t row;
  int rc = ctx_intern(ctx, key, strlen(key), &k);
  if (!rc) rc = ctx_intern(ctx, title, strlen(title), &ti);
  if (!rc) rc = ctx_intern(ctx, description, strlen(description), &de);
  if (!rc) rc = ctx_intern(ctx, remediation, strlen(remediation), &re);
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_str(t, TRACE_DIAGNOSTICS_key, row, k);
  storage_set_str(t, TRACE_DIAGNOSTICS_title, row, ti);
  storage_set_str(t, TRACE_DIAGNOSTICS_description, row, de);
  storage_set_str(t, TRACE_DIAGNOSTICS_remediation, row, re);
  storage_set_f64(t, TRACE_DIAGNOSTICS_confidence, row, confidence);
  storage_set_i64(t, TRACE_DIAGNOSTICS_trace_id, row, trace_id);
  return WEFT_OK;
}

void model_slice_set_name(trace_context *ctx, uint32_t slice, string_id name) {
  if (name != STRING_NULL) storage_set_str(ctx_table(ctx, TABLE_SLICE), SLICE_name, slice, name);
}

void model_track_set_name(trace_context *ctx, uint32_t track, string_id name) {
  if (name != STRING_NULL) storage_set_str(ctx_table(ctx, TABLE_TRACK), TRACK_name, track, name);
}

void model_track_set_upid(trace_context *ctx, uint32_t track, uint32_t upid) {
  storage_set_i64(ctx_table(ctx, TABLE_TRACK), TRACK_upid, track, upid);
}

void model_row_set_arg_set(trace_context *ctx, schema_table_id table, size_t column,
                           uint32_t row, int64_t arg_set) {
  if (arg_set >= 0) storage_set_i64(ctx_table(ctx, table), column, row, arg_set);
}

void model_thread_set_roles(trace_context *ctx, uint32_t utid, int is_main, int is_idle) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  storage_set_i64(t, THREAD_is_main_thread, utid, is_main != 0);
  if (is_idle) storage_set_i64(t, THREAD_is_idle, utid, 1);
}

int model_thread_set_name_and_main_process(trace_context *ctx, uint32_t utid, string_id name) {
  if (name == STRING_NULL) return WEFT_OK;
  storage_table *threads = ctx_table(ctx, TABLE_THREAD);
  storage_set_str(threads, THREAD_name, utid, name);
  if (storage_is_null(threads, THREAD_upid, utid)) return storage_table_status(threads);
  uint32_t upid = (uint32_t)storage_get_i64(threads, THREAD_upid, utid);
  storage_table *processes = ctx_table(ctx, TABLE_PROCESS);
  if (storage_get_i64_or(processes, PROCESS_pid, upid, -1) ==
      storage_get_i64(threads, THREAD_tid, utid))
    storage_set_str(processes, PROCESS_name, upid, name);
  return storage_table_status(processes);
}
