/* android_fw: what the Android framework reports as track event extensions
 * (AndroidTrackEvent), and its lists.
 *  - __intrinsic_android_track_event_process: a row per process life the
 *    framework announced (a process start, or the death of a process that
 *    no start was seen for), keyed by the process's upid;
 *  - __intrinsic_android_user_list: the Android users, one row per user id;
 *  - __intrinsic_android_game_intervention_list: game packages and modes. */
#ifndef WEFT_MODEL_ANDROID_FW_H
#define WEFT_MODEL_ANDROID_FW_H

#include "model/context.h"
#include "model/stats.h"

/* The fields of a process start that a row takes; has_*: which were given. */
typedef struct model_fw_process_start {
  int64_t start_seq_id, package_uid, caller_uid, defining_uid;
  int64_t bind_application_delay_ms, process_start_delay_ms;
  int has_start_seq_id, has_package_uid, has_caller_uid, has_defining_uid;
  int has_bind_application_delay_ms, has_process_start_delay_ms;
  string_id trigger_type, hosting_type, hosting_name; /* STRING_NULL: absent */
} model_fw_process_start;

/* A new row for `upid` in *row (its times NULL). */
int model_fw_process_row(trace_context *ctx, uint32_t upid, uint32_t *row);
/* Sets fw_start_ts if the row has none. */
void model_fw_process_started(trace_context *ctx, uint32_t row, int64_t ts);
/* Overwrites the row's fields that `s` gives. */
void model_fw_process_update(trace_context *ctx, uint32_t row, const model_fw_process_start *s);
void model_fw_process_ended(trace_context *ctx, uint32_t row, int64_t ts);

/* One aconfig flag of a snapshot at ts: its columns after ts, in table
 * order (STRING_NULL: NULL). */
enum { MODEL_AFLAG_COLUMNS = 10 };
int model_aflag_add(trace_context *ctx, int64_t ts, const string_id columns[MODEL_AFLAG_COLUMNS]);

/* An Android user: a row unless `user_id` has one already, which then
 * takes this type (STRING_NULL: NULL). */
int model_android_user_add(trace_context *ctx, int64_t user_id, string_id type);

/* A game package's interventions: mode 1 standard, 2 performance, 3
 * battery, each with its supported flag and settings. */
typedef struct model_game_mode {
  int supported;
  int64_t use_angle;
  double downscale, fps;
} model_game_mode;
typedef struct model_game_package {
  string_id name; /* STRING_NULL: absent */
  int64_t uid, current_mode;
  model_game_mode modes[3]; /* standard, performance, battery */
} model_game_package;
int model_game_package_add(trace_context *ctx, const model_game_package *p);

#endif
