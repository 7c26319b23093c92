/* shell_transition: shell transition tables (model/shell_transition.h). */
#include "model/shell_transition.h"

#include <string.h>

#include "model/model.h"

#define ST_TABLE(ctx) ctx_table(ctx, TABLE_SHELL_TRANSITIONS)

int model_shell_transition_row(trace_context *ctx, int64_t transition_id, uint32_t *row) {
  storage_table *t = ST_TABLE(ctx);
  int rc = storage_table_append(t, row);
  if (rc) return rc;
  storage_set_i64(t, SHELL_TRANSITIONS_ts, *row, 0);
  storage_set_i64(t, SHELL_TRANSITIONS_transition_id, *row, transition_id);
  return WEFT_OK;
}

static int st_column(uint32_t field, unsigned *column) {
  switch (field) {
    case MODEL_SHELL_CREATE_TIME: *column = SHELL_TRANSITIONS_create_time_ns; break;
    case MODEL_SHELL_SEND_TIME: *column = SHELL_TRANSITIONS_send_time_ns; break;
    case MODEL_SHELL_DISPATCH_TIME: *column = SHELL_TRANSITIONS_dispatch_time_ns; break;
    case MODEL_SHELL_MERGE_TIME: *column = SHELL_TRANSITIONS_merge_time_ns; break;
    case MODEL_SHELL_SHELL_ABORT_TIME: *column = SHELL_TRANSITIONS_shell_abort_time_ns; break;
    case MODEL_SHELL_WM_ABORT_TIME: *column = SHELL_TRANSITIONS_wm_abort_time_ns; break;
    case MODEL_SHELL_FINISH_TIME: *column = SHELL_TRANSITIONS_finish_time_ns; break;
    case MODEL_SHELL_START_TRANSACTION: *column = SHELL_TRANSITIONS_start_transaction_id; break;
    case MODEL_SHELL_FINISH_TRANSACTION: *column = SHELL_TRANSITIONS_finish_transaction_id; break;
    case MODEL_SHELL_HANDLER: *column = SHELL_TRANSITIONS_handler; break;
    case MODEL_SHELL_TYPE: *column = SHELL_TRANSITIONS_transition_type; break;
    case MODEL_SHELL_FLAGS: *column = SHELL_TRANSITIONS_flags; break;
    default: return 1;
  }
  return 0;
}

int model_shell_transition_set(trace_context *ctx, uint32_t row, uint32_t field, int64_t value) {
  unsigned column;
  if (st_column(field, &column)) return 1;
  storage_set_i64(ST_TABLE(ctx), column, row, value);
  return 0;
}

static int st_has(const storage_table *t, unsigned column, uint32_t row) {
  return !storage_is_null(t, column, row);
}

static const char *st_status(const storage_table *t, uint32_t row) {
  if (st_has(t, SHELL_TRANSITIONS_merge_time_ns, row)) return "merged";
  if (st_has(t, SHELL_TRANSITIONS_dispatch_time_ns, row))
    return st_has(t, SHELL_TRANSITIONS_finish_time_ns, row) ? "played" : NULL;
  if (st_has(t, SHELL_TRANSITIONS_shell_abort_time_ns, row) ||
      st_has(t, SHELL_TRANSITIONS_wm_abort_time_ns, row))
    return "aborted";
  return NULL;
}

int model_shell_transition_derive(trace_context *ctx, uint32_t row) {
  storage_table *t = ST_TABLE(ctx);
  int64_t send = storage_get_i64_or(t, SHELL_TRANSITIONS_send_time_ns, row, -1);
  int64_t dispatch = storage_get_i64_or(t, SHELL_TRANSITIONS_dispatch_time_ns, row, -1);
  int has_send = st_has(t, SHELL_TRANSITIONS_send_time_ns, row);
  int has_dispatch = st_has(t, SHELL_TRANSITIONS_dispatch_time_ns, row);
  storage_set_i64(t, SHELL_TRANSITIONS_ts, row, has_send ? send : has_dispatch ? dispatch : 0);
  const char *status = st_status(t, row);
  string_id id = STRING_NULL;
  if (status) {
    int rc = ctx_intern(ctx, status, strlen(status), &id);
    if (rc) return rc;
  }
  storage_set_str(t, SHELL_TRANSITIONS_status, row, id);
  if (status && status[0] == 'p') {
    int64_t finish = storage_get_i64(t, SHELL_TRANSITIONS_finish_time_ns, row);
    storage_set_i64(t, SHELL_TRANSITIONS_duration_ns, row, finish - dispatch);
  } else {
    storage_set_null(t, SHELL_TRANSITIONS_duration_ns, row);
  }
  return WEFT_OK;
}

int64_t model_shell_transition_args(trace_context *ctx, uint32_t row) {
  return storage_get_i64_or(ST_TABLE(ctx), SHELL_TRANSITIONS_arg_set_id, row, -1);
}

int model_shell_transition_set_args(trace_context *ctx, uint32_t row, int64_t arg_set) {
  int64_t old = model_shell_transition_args(ctx, row);
  if (old >= 0 && old != arg_set && VEC_PUSH(ctx->model.replaced_arg_sets, old))
    return WEFT_ENOMEM;
  if (arg_set >= 0) storage_set_i64(ST_TABLE(ctx), SHELL_TRANSITIONS_arg_set_id, row, arg_set);
  return WEFT_OK;
}

int model_shell_participant_add(trace_context *ctx, const model_shell_participant *p) {
  static const unsigned columns[MODEL_PART_COUNT] = {
      SHELL_TRANSITION_PARTICIPANTS_layer_id, SHELL_TRANSITION_PARTICIPANTS_window_id,
      SHELL_TRANSITION_PARTICIPANTS_mode, SHELL_TRANSITION_PARTICIPANTS_flags,
      SHELL_TRANSITION_PARTICIPANTS_start_display_id,
      SHELL_TRANSITION_PARTICIPANTS_end_display_id,
      SHELL_TRANSITION_PARTICIPANTS_start_rotation, SHELL_TRANSITION_PARTICIPANTS_end_rotation,
      SHELL_TRANSITION_PARTICIPANTS_start_abs_bounds_rect_id,
      SHELL_TRANSITION_PARTICIPANTS_end_abs_bounds_rect_id,
  };
  storage_table *t = ctx_table(ctx, TABLE_SHELL_TRANSITION_PARTICIPANTS);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  rc = storage_set_i64(t, SHELL_TRANSITION_PARTICIPANTS_transition_id, row, p->transition_id);
  for (unsigned i = 0; !rc && i < MODEL_PART_COUNT; i++)
    if (p->has & 1u << i) rc = storage_set_i64(t, columns[i], row, p->value[i]);
  return rc;
}

int model_winscope_rect_is(trace_context *ctx, uint32_t row, double x, double y, double w,
                           double h) {
  const storage_table *t = ctx_table(ctx, TABLE_WINSCOPE_RECT);
  return storage_get_f64(t, WINSCOPE_RECT_x, row) == x &&
         storage_get_f64(t, WINSCOPE_RECT_y, row) == y &&
         storage_get_f64(t, WINSCOPE_RECT_w, row) == w &&
         storage_get_f64(t, WINSCOPE_RECT_h, row) == h;
}
