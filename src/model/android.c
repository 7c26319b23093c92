/* android: device-wide state tracks (model/android.h). */
#include "model/android.h"

#include "model/model.h"

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
