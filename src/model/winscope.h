/* winscope: Android input events and the winscope traces (window manager,
 * SurfaceFlinger, shell transitions, protolog, ...), one row per traced
 * message; the message's fields are its args (the importer commits them). */
#ifndef WEFT_MODEL_WINSCOPE_H
#define WEFT_MODEL_WINSCOPE_H

#include "model/context.h"
#include "model/model.h"

typedef enum model_input_kind {
  MODEL_INPUT_MOTION,
  MODEL_INPUT_KEY,
  MODEL_INPUT_DISPATCH,
} model_input_kind;

/* One AndroidInputEvent's event. The has_* flags give the nullable
 * columns; `key_code` is for keys only; ts, source, action, device_id and
 * display_id are not used for a dispatch, vsync_id and window_id only for
 * one. */
typedef struct model_input_event {
  model_input_kind kind;
  int64_t event_id, ts;
  int64_t arg_set;         /* -1: none */
  string_id base64_proto;  /* STRING_NULL: none */
  int64_t source, action, device_id, display_id, key_code, vsync_id, window_id;
  uint8_t has_source, has_action, has_device_id, has_display_id, has_key_code;
} model_input_event;

int model_input_event_add(trace_context *ctx, const model_input_event *e);

/* A state dump at ts: a row of `table`, one with WINSCOPE_DUMP_COLUMNS
 * (TABLE_INPUTMETHOD_*). arg_set -1: none; base64_proto STRING_NULL: none. */
int model_winscope_dump_add(trace_context *ctx, schema_table_id table, int64_t ts,
                            int64_t arg_set, string_id base64_proto);

/* A shell transition handler's name; base64_proto the mappings message. */
int model_shell_handler_add(trace_context *ctx, int64_t handler_id, string_id name,
                            string_id base64_proto);
/* A ShellTransition message of transition `transition_id`. */
int model_shell_transition_proto_add(trace_context *ctx, int64_t transition_id,
                                     string_id base64_proto);

/* A protolog row's text, known once loading ends (STRING_NULL: NULL). */
typedef struct model_protolog_row {
  string_id level, tag, message, stacktrace, location;
} model_protolog_row;

/* A protolog row at ts with its text NULL for now; *row its index. */
int model_protolog_add(trace_context *ctx, int64_t ts, uint32_t *row);
void model_protolog_set(trace_context *ctx, uint32_t row, const model_protolog_row *r);

#endif
