/* android_fw: framework process lifetimes (model/android_fw.h). */
#include "model/android_fw.h"

#include <string.h>

#include "model/model.h"

#define FW_TABLE(ctx) ctx_table(ctx, TABLE_ANDROID_TRACK_EVENT_PROCESS)

int model_fw_process_row(trace_context *ctx, uint32_t upid, uint32_t *row) {
  storage_table *t = FW_TABLE(ctx);
  int rc = storage_table_append(t, row);
  if (!rc) storage_set_i64(t, ANDROID_TRACK_EVENT_PROCESS_upid, *row, upid);
  return rc;
}

void model_fw_process_started(trace_context *ctx, uint32_t row, int64_t ts) {
  storage_table *t = FW_TABLE(ctx);
  if (storage_get_i64_or(t, ANDROID_TRACK_EVENT_PROCESS_fw_start_ts, row, -1) < 0)
    storage_set_i64(t, ANDROID_TRACK_EVENT_PROCESS_fw_start_ts, row, ts);
}

static void fw_set_int(storage_table *t, unsigned column, uint32_t row, int given,
                       int64_t value) {
  if (given) storage_set_i64(t, column, row, value);
}

static void fw_set_str(storage_table *t, unsigned column, uint32_t row, string_id value) {
  if (value != STRING_NULL) storage_set_str(t, column, row, value);
}

void model_fw_process_update(trace_context *ctx, uint32_t row, const model_fw_process_start *s) {
  storage_table *t = FW_TABLE(ctx);
  fw_set_int(t, ANDROID_TRACK_EVENT_PROCESS_start_seq_id, row, s->has_start_seq_id,
             s->start_seq_id);
  fw_set_int(t, ANDROID_TRACK_EVENT_PROCESS_package_uid, row, s->has_package_uid,
             s->package_uid);
  fw_set_int(t, ANDROID_TRACK_EVENT_PROCESS_caller_uid, row, s->has_caller_uid, s->caller_uid);
  fw_set_int(t, ANDROID_TRACK_EVENT_PROCESS_defining_uid, row, s->has_defining_uid,
             s->defining_uid);
  fw_set_int(t, ANDROID_TRACK_EVENT_PROCESS_bind_application_delay_ms, row,
             s->has_bind_application_delay_ms, s->bind_application_delay_ms);
  fw_set_int(t, ANDROID_TRACK_EVENT_PROCESS_process_start_delay_ms, row,
             s->has_process_start_delay_ms, s->process_start_delay_ms);
  fw_set_str(t, ANDROID_TRACK_EVENT_PROCESS_trigger_type, row, s->trigger_type);
  fw_set_str(t, ANDROID_TRACK_EVENT_PROCESS_hosting_type, row, s->hosting_type);
  fw_set_str(t, ANDROID_TRACK_EVENT_PROCESS_hosting_name, row, s->hosting_name);
}

void model_fw_process_ended(trace_context *ctx, uint32_t row, int64_t ts) {
  storage_set_i64(FW_TABLE(ctx), ANDROID_TRACK_EVENT_PROCESS_fw_end_ts, row, ts);
}

/* ---- aflags ---- */

int model_aflag_add(trace_context *ctx, int64_t ts, const string_id columns[MODEL_AFLAG_COLUMNS]) {
  storage_table *t = ctx_table(ctx, TABLE_ANDROID_AFLAGS);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (!rc) rc = storage_set_i64(t, ANDROID_AFLAGS_ts, row, ts);
  for (unsigned i = 0; !rc && i < MODEL_AFLAG_COLUMNS; i++)
    rc = storage_set_str(t, ANDROID_AFLAGS_package + i, row, columns[i]);
  return rc;
}

/* ---- users and game packages ---- */

int model_android_user_add(trace_context *ctx, int64_t user_id, string_id type) {
  storage_table *t = ctx_table(ctx, TABLE_ANDROID_USER_LIST);
  /* a device has a handful of users: a scan keeps no index */
  for (size_t r = 0; r < t->row_count; r++) /* a user named again takes its new type */
    if (storage_get_i64(t, ANDROID_USER_LIST_android_user_id, r) == user_id)
      return storage_set_str(t, ANDROID_USER_LIST_type, (uint32_t)r, type);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (!rc) rc = storage_set_str(t, ANDROID_USER_LIST_type, row, type);
  return rc ? rc : storage_set_i64(t, ANDROID_USER_LIST_android_user_id, row, user_id);
}

/* The four columns of each mode, from standard_mode_supported on. */
enum { GAME_MODE_COLUMNS = 4 };

static int game_mode_set(storage_table *t, uint32_t row, size_t col, const model_game_mode *m) {
  int rc = storage_set_i64(t, col, row, m->supported);
  if (rc || !m->supported) return rc;
  rc = storage_set_f64(t, col + 1, row, m->downscale);
  if (!rc) rc = storage_set_i64(t, col + 2, row, m->use_angle);
  return rc ? rc : storage_set_f64(t, col + 3, row, m->fps);
}

int model_game_package_add(trace_context *ctx, const model_game_package *p) {
  storage_table *t = ctx_table(ctx, TABLE_ANDROID_GAME_INTERVENTION_LIST);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (!rc) rc = storage_set_str(t, ANDROID_GAME_INTERVENTION_LIST_package_name, row, p->name);
  if (!rc) rc = storage_set_i64(t, ANDROID_GAME_INTERVENTION_LIST_uid, row, p->uid);
  if (!rc) rc = storage_set_i64(t, ANDROID_GAME_INTERVENTION_LIST_current_mode, row,
                                p->current_mode);
  for (size_t m = 0; !rc && m < 3; m++)
    rc = game_mode_set(t, row,
                       ANDROID_GAME_INTERVENTION_LIST_standard_mode_supported +
                           m * GAME_MODE_COLUMNS,
                       &p->modes[m]);
  return rc;
}
