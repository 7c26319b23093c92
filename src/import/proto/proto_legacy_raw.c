/* proto_legacy_raw: see proto_legacy_raw.h. */
#include "import/proto/proto_legacy_raw.h"

#include <string.h>

#include "import/proto/proto_args.h"
#include "import/proto/proto_fields.h"
#include "model/context.h"
#include "model/model.h"

int proto_legacy_raw_phase(uint64_t phase) {
  switch (phase) {
    case 'B': case 'E': case 'X': case 'I': case 'i': case 'R': case 's': case 't': case 'f':
    case 'b': case 'e': case 'n': case 'S': case 'T': case 'p': case 'F': return 0;
    default: return 1;
  }
}

/* The string_value of the event's first debug annotation. */
static proto_span proto_first_annotation_string(proto_span event) {
  proto_span none = {NULL, 0};
  proto_field fl;
  if (proto_find_first(event.data, event.len, PROTO_TRACK_EVENT_DEBUG_ANNOTATIONS, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN)
    return none;
  proto_span ann = fl.span;
  if (proto_find_last(ann.data, ann.len, PROTO_DEBUG_ANNOTATION_STRING_VALUE, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN)
    return none;
  return fl.span;
}

/* A thread_name / process_name metadata event: 0 when applied, 1 when
 * the name is another. */
static int proto_legacy_names(trace_context *ctx, uint32_t utid, string_id name,
                              proto_span event, int *rc) {
  const char *n = name != STRING_NULL ? base_string_pool_get(&ctx->strings, name) : "";
  int thread = strcmp(n, "thread_name") == 0, process = strcmp(n, "process_name") == 0;
  *rc = WEFT_OK;
  if (!thread && !process) return 1;
  proto_span value = proto_first_annotation_string(event);
  if (!value.len) return 0;
  if (thread) {
    *rc = model_thread_set_name(ctx, utid, (const char *)value.data, value.len);
    return 0;
  }
  int64_t upid = storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, utid, -1);
  if (upid >= 0 && storage_get_str(ctx_table(ctx, TABLE_PROCESS), PROCESS_name,
                                   (size_t)upid) == STRING_NULL)
    *rc = model_process_set_name(ctx, (uint32_t)upid, (const char *)value.data, value.len);
  return 0;
}

/* The legacy_event.* args of a raw event. */
/* The thread time args of a raw event. */
static int proto_legacy_raw_times(trace_context *ctx, const proto_thread_times *t) {
  int rc = WEFT_OK;
  if (t->has_ts) rc = model_arg_int(ctx, "legacy_event.thread_timestamp_ns", 32, MODEL_ARG_INT, t->ts);
  if (!rc && t->has_dur)
    rc = model_arg_int(ctx, "legacy_event.thread_duration_ns", 31, MODEL_ARG_INT, t->dur);
  if (!rc && t->has_instructions)
    rc = model_arg_int(ctx, "legacy_event.thread_instruction_count", 37, MODEL_ARG_INT,
                       t->instructions);
  if (!rc && t->has_instruction_delta)
    rc = model_arg_int(ctx, "legacy_event.thread_instruction_delta", 37, MODEL_ARG_INT,
                       t->instruction_delta);
  return rc;
}

static int proto_legacy_raw_args(trace_context *ctx, string_id category, string_id name,
                                 proto_span legacy, const proto_thread_times *times) {
  static const struct { uint32_t field; const char *key; } ids[] = {
      {PROTO_LEGACY_EVENT_UNSCOPED_ID, "legacy_event.unscoped_id"},
      {PROTO_LEGACY_EVENT_GLOBAL_ID, "legacy_event.global_id"},
      {PROTO_LEGACY_EVENT_LOCAL_ID, "legacy_event.local_id"}};
  string_id cat_key, name_key;
  int rc = ctx_intern(ctx, "legacy_event.category", 21, &cat_key);
  if (!rc) rc = ctx_intern(ctx, "legacy_event.name", 17, &name_key);
  if (!rc) rc = model_arg_string_id(ctx, cat_key, category, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_string_id(ctx, name_key, name, MODEL_ARG_STRING);
  proto_field fl;
  char phase = 0;
  if (proto_find_last(legacy.data, legacy.len, PROTO_LEGACY_EVENT_PHASE, &fl) == 1)
    phase = (char)fl.value;
  if (!rc) rc = model_arg_string(ctx, "legacy_event.phase", 18, &phase, 1, MODEL_ARG_STRING);
  if (!rc && proto_find_last(legacy.data, legacy.len, PROTO_LEGACY_EVENT_DURATION_US, &fl) == 1)
    rc = model_arg_int(ctx, "legacy_event.duration_ns", 24, MODEL_ARG_INT,
                       (int64_t)fl.value * 1000);
  if (!rc) rc = proto_legacy_raw_times(ctx, times);
  if (!rc && proto_find_last(legacy.data, legacy.len, PROTO_LEGACY_EVENT_USE_ASYNC_TTS, &fl) == 1 &&
      fl.value)
    rc = model_arg_int(ctx, "legacy_event.use_async_tts", 26, MODEL_ARG_BOOL, 1);
  int has_id = 0;
  for (size_t i = 0; !rc && !has_id && i < sizeof ids / sizeof *ids; i++) {
    if (proto_find_last(legacy.data, legacy.len, ids[i].field, &fl) != 1) continue;
    rc = model_arg_int(ctx, ids[i].key, strlen(ids[i].key), MODEL_ARG_UINT, (int64_t)fl.value);
    has_id = 1;
  }
  if (!rc && has_id &&
      proto_find_last(legacy.data, legacy.len, PROTO_LEGACY_EVENT_ID_SCOPE, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN && fl.span.len)
    rc = model_arg_string(ctx, "legacy_event.id_scope", 21, (const char *)fl.span.data,
                          fl.span.len, MODEL_ARG_STRING);
  return rc;
}

int proto_legacy_raw_apply(import_file *f, const proto_packet_info *info, int64_t ts,
                           int64_t utid, string_id category, string_id name,
                           proto_span event, proto_span legacy,
                           const proto_thread_times *times) {
  trace_context *ctx = f->ctx;
  if (utid < 0) return import_stat(f, stat_track_event_parser_errors, 1);
  int rc;
  proto_field fl;
  int metadata = proto_find_last(legacy.data, legacy.len, PROTO_LEGACY_EVENT_PHASE, &fl) == 1 &&
                 fl.value == 'M';
  if (metadata && !proto_legacy_names(ctx, (uint32_t)utid, name, event, &rc)) return rc;
  rc = proto_legacy_raw_args(ctx, category, name, legacy, times);
  if (!rc) rc = proto_args_track_event(f, info, event, ts, utid);
  int64_t args = -1;
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  string_id raw_name;
  if (!rc) rc = ctx_intern(ctx, "track_event.legacy_event", 24, &raw_name);
  return rc ? rc : model_chrome_raw(ctx, ts, raw_name, (uint32_t)utid, args);
}
