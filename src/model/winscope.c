/* winscope: input events and winscope rows (model/winscope.h). */
#include "model/winscope.h"

static void input_set_opt(storage_table *t, unsigned col, uint32_t row, int has, int64_t v) {
  if (has) storage_set_i64(t, col, row, v);
}

static int input_dispatch_add(trace_context *ctx, const model_input_event *e) {
  storage_table *t = ctx_table(ctx, TABLE_ANDROID_INPUT_EVENT_DISPATCH);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, ANDROID_INPUT_EVENT_DISPATCH_event_id, row, e->event_id);
  input_set_opt(t, ANDROID_INPUT_EVENT_DISPATCH_arg_set_id, row, e->arg_set >= 0, e->arg_set);
  storage_set_i64(t, ANDROID_INPUT_EVENT_DISPATCH_vsync_id, row, e->vsync_id);
  storage_set_i64(t, ANDROID_INPUT_EVENT_DISPATCH_window_id, row, e->window_id);
  input_set_opt(t, ANDROID_INPUT_EVENT_DISPATCH_base64_proto_id, row,
                e->base64_proto != STRING_NULL, (int64_t)e->base64_proto);
  return WEFT_OK;
}

/* Key and motion events share their leading columns (schema.h). */
int model_input_event_add(trace_context *ctx, const model_input_event *e) {
  if (e->kind == MODEL_INPUT_DISPATCH) return input_dispatch_add(ctx, e);
  int key = e->kind == MODEL_INPUT_KEY;
  storage_table *t = ctx_table(ctx, key ? TABLE_ANDROID_KEY_EVENTS : TABLE_ANDROID_MOTION_EVENTS);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, ANDROID_MOTION_EVENTS_event_id, row, e->event_id);
  storage_set_i64(t, ANDROID_MOTION_EVENTS_ts, row, e->ts);
  input_set_opt(t, ANDROID_MOTION_EVENTS_arg_set_id, row, e->arg_set >= 0, e->arg_set);
  input_set_opt(t, ANDROID_MOTION_EVENTS_base64_proto_id, row, e->base64_proto != STRING_NULL,
                (int64_t)e->base64_proto);
  input_set_opt(t, ANDROID_MOTION_EVENTS_source, row, e->has_source, e->source);
  input_set_opt(t, ANDROID_MOTION_EVENTS_action, row, e->has_action, e->action);
  input_set_opt(t, ANDROID_MOTION_EVENTS_device_id, row, e->has_device_id, e->device_id);
  input_set_opt(t, ANDROID_MOTION_EVENTS_display_id, row, e->has_display_id, e->display_id);
  if (key) input_set_opt(t, ANDROID_KEY_EVENTS_key_code, row, e->has_key_code, e->key_code);
  return WEFT_OK;
}

/* Every dump table has the columns of TABLE_INPUTMETHOD_CLIENTS. */
int model_winscope_dump_add(trace_context *ctx, schema_table_id table, int64_t ts,
                            int64_t arg_set, string_id base64_proto) {
  storage_table *t = ctx_table(ctx, table);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, INPUTMETHOD_CLIENTS_ts, row, ts);
  input_set_opt(t, INPUTMETHOD_CLIENTS_arg_set_id, row, arg_set >= 0, arg_set);
  input_set_opt(t, INPUTMETHOD_CLIENTS_base64_proto_id, row, base64_proto != STRING_NULL,
                (int64_t)base64_proto);
  return WEFT_OK;
}

int model_shell_handler_add(trace_context *ctx, int64_t handler_id, string_id name,
                            string_id base64_proto) {
  storage_table *t = ctx_table(ctx, TABLE_SHELL_TRANSITION_HANDLERS);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, SHELL_TRANSITION_HANDLERS_handler_id, row, handler_id);
  storage_set_str(t, SHELL_TRANSITION_HANDLERS_handler_name, row, name);
  input_set_opt(t, SHELL_TRANSITION_HANDLERS_base64_proto_id, row, base64_proto != STRING_NULL,
                (int64_t)base64_proto);
  return WEFT_OK;
}

int model_shell_transition_proto_add(trace_context *ctx, int64_t transition_id,
                                     string_id base64_proto) {
  storage_table *t = ctx_table(ctx, TABLE_SHELL_TRANSITION_PROTOS);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, SHELL_TRANSITION_PROTOS_transition_id, row, transition_id);
  input_set_opt(t, SHELL_TRANSITION_PROTOS_base64_proto_id, row, base64_proto != STRING_NULL,
                (int64_t)base64_proto);
  return WEFT_OK;
}

int model_protolog_add(trace_context *ctx, int64_t ts, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_PROTOLOG);
  int rc = storage_table_append(t, row);
  if (!rc) storage_set_i64(t, PROTOLOG_ts, *row, ts);
  return rc;
}

void model_protolog_set(trace_context *ctx, uint32_t row, const model_protolog_row *r) {
  storage_table *t = ctx_table(ctx, TABLE_PROTOLOG);
  storage_set_str(t, PROTOLOG_level, row, r->level);
  storage_set_str(t, PROTOLOG_tag, row, r->tag);
  storage_set_str(t, PROTOLOG_message, row, r->message);
  storage_set_str(t, PROTOLOG_stacktrace, row, r->stacktrace);
  storage_set_str(t, PROTOLOG_location, row, r->location);
}
