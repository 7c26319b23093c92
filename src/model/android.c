/* android: device-wide state tracks (model/android.h). */
#include "model/android.h"

#include <stdio.h>

#include "model/model.h"
#include "model/track_compressor.h"

struct android_fs_state {
  track_compressor sets;
  base_map open; /* hash(machine, ino, offset) -> the reading pid */
};

void android_fs_state_free(android_fs_state *s) {
  if (!s) return;
  track_compressor_free(&s->sets);
  base_map_free(&s->open);
  base_free(s);
}

static int model_android_track(trace_context *ctx, uint32_t machine, const char *name,
                               const char *type, int is_counter, uint32_t *track) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = is_counter;
  spec.machine = machine;
  return model_track(ctx, &spec, track);
}

int model_android_screen_state(trace_context *ctx, uint32_t machine, int64_t ts,
                               double value) {
  uint32_t track;
  int rc = model_android_track(ctx, machine, "ScreenState", "screen_state", 1, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

int model_android_battery_stats(trace_context *ctx, uint32_t machine, int64_t ts,
                                const char *name, size_t len, double value) {
  char buf[256];
  snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf ? len : sizeof buf - 1), name);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = buf;
  spec.type = "battery_stats";
  spec.is_counter = 1;
  spec.machine = machine;
  spec.dim_key = "counter_key";
  spec.dim_str = buf;
  uint32_t track;
  int rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

int model_android_device_state(trace_context *ctx, uint32_t machine, int64_t ts,
                               const char *state, size_t len) {
  uint32_t track, slice;
  string_id name;
  int rc = model_android_track(ctx, machine, "DeviceStateChanged", "android_device_state", 0,
                               &track);
  if (!rc) rc = ctx_intern(ctx, state, len, &name);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, -1, &slice);
}

int model_cpu_per_uid_track(trace_context *ctx, uint32_t track, int64_t uid, int64_t cluster,
                            uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_ANDROID_CPU_PER_UID_TRACK);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  storage_set_i64(t, ANDROID_CPU_PER_UID_TRACK_track_id, *row, track);
  storage_set_i64(t, ANDROID_CPU_PER_UID_TRACK_uid, *row, uid);
  storage_set_i64(t, ANDROID_CPU_PER_UID_TRACK_cluster, *row, cluster);
  return WEFT_OK;
}

void model_cpu_per_uid_total(trace_context *ctx, uint32_t row, int64_t total) {
  storage_set_i64(ctx_table(ctx, TABLE_ANDROID_CPU_PER_UID_TRACK),
                  ANDROID_CPU_PER_UID_TRACK_total_cpu_millis, row, total);
}

/* ---- android_fs ---- */

static uint64_t android_fs_key(uint32_t machine, uint64_t ino, int64_t offset) {
  return base_hash_u64(base_hash_u64(ino ^ (uint64_t)machine << 40) ^ (uint64_t)offset) >> 1;
}

static int android_fs_track(trace_context *ctx, android_fs_state *s, uint32_t machine,
                            int64_t pid, track_compressor_event ev, uint32_t *track) {
  uint32_t set, idx;
  int rc = track_compressor_use(&s->sets, base_hash_u64(machine), pid, ev, &set, &idx);
  if (rc) return rc;
  uint32_t *slot = track_compressor_track(&s->sets, set, idx);
  if (*slot == TRACK_COMPRESSOR_NO_TRACK) {
    model_track_spec spec;
    model_track_spec_init(&spec);
    spec.name = "android_fs";
    spec.type = "android_fs";
    spec.machine = machine;
    spec.compressor_idx = idx;
    spec.group_key = model_track_group_key(&s->sets, set);
    rc = model_track(ctx, &spec, slot);
    if (rc) return rc;
  }
  *track = *slot;
  return WEFT_OK;
}

static int android_fs_get(trace_context *ctx, android_fs_state **out) {
  if (!ctx->model.android_fs && !(ctx->model.android_fs = base_calloc(1, sizeof **out)))
    return WEFT_ENOMEM;
  *out = ctx->model.android_fs;
  return WEFT_OK;
}

int model_android_fs_read_start(trace_context *ctx, uint32_t machine, int64_t ts, int64_t pid,
                                uint64_t ino, int64_t offset, int64_t bytes, const char *path,
                                size_t path_len) {
  android_fs_state *s;
  uint64_t *slot;
  int rc = android_fs_get(ctx, &s);
  if (rc) return rc;
  uint64_t key = android_fs_key(machine, ino, offset);
  int ins = base_map_insert(&s->open, key, (uint64_t)pid, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (*slot == UINT64_MAX) *slot = (uint64_t)pid; /* an open read keeps its reader */
  uint32_t track, slice;
  int64_t args = -1;
  string_id name;
  rc = android_fs_track(ctx, s, machine, pid, TRACK_COMPRESSOR_BEGIN, &track);
  if (!rc) rc = model_arg_string(ctx, "file_path", 9, path ? path : "", path ? path_len : 0,
                                 MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "offset_start", 12, MODEL_ARG_INT, offset);
  if (!rc) rc = model_arg_int(ctx, "bytes_read_start", 16, MODEL_ARG_INT, bytes);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  if (!rc) rc = ctx_intern(ctx, "android_fs_data_read", 20, &name);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, args, &slice);
}

int model_android_fs_read_end(trace_context *ctx, uint32_t machine, int64_t ts, uint64_t ino,
                              int64_t offset, int64_t bytes) {
  android_fs_state *s;
  int rc = android_fs_get(ctx, &s);
  if (rc) return rc;
  uint64_t key = android_fs_key(machine, ino, offset);
  uint64_t *pid = base_map_find(&s->open, key);
  if (!pid || *pid == UINT64_MAX) return WEFT_OK;
  int64_t reader = (int64_t)*pid;
  *pid = UINT64_MAX; /* no longer open */
  uint32_t track;
  int64_t ended;
  rc = android_fs_track(ctx, s, machine, reader, TRACK_COMPRESSOR_END, &track);
  if (!rc) rc = model_slice_end(ctx, track, ts, &ended);
  if (rc || ended < 0) return rc;
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  rc = model_args_reopen(ctx, storage_get_i64_or(t, SLICE_arg_set_id, (size_t)ended, -1));
  if (!rc) rc = model_arg_int(ctx, "offset_end", 10, MODEL_ARG_INT, offset);
  if (!rc) rc = model_arg_int(ctx, "bytes_read_end", 14, MODEL_ARG_INT, bytes);
  int64_t args = -1;
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  if (!rc) model_slice_set_args(ctx, (uint32_t)ended, args);
  return rc;
}
