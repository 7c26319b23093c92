/* State tracks: tracks whose events are successive values (a state holds
 * until the next one). Used by TrackEvent TYPE_STATE on descriptor tracks
 * marked as state tracks, and by ConcurrentSessionEvent (one track per
 * tracing session, type 'concurrent_tracing_sessions'). See proto_misc.h. */
#include <stdio.h>

#include "import/proto/proto_misc.h"
#include "model/columns.h"

#define PROTO_SESSION_EVENT_STATE 1
#define PROTO_SESSION_EVENT_SESSION_NAME 2
#define PROTO_SESSION_EVENT_SESSION_ID 3
#define PROTO_SESSION_EVENT_CONSUMER_UID 4
#define PROTO_SESSION_EVENT_NUM_DATA_SOURCES 5
#define PROTO_SESSION_STATE_DISABLED 1
#define PROTO_SESSION_STATE_CLONED_READ_ONLY 5

int proto_state_track_mark(trace_context *ctx, uint32_t track) {
  return model_track_mark_state(ctx, track);
}

int proto_state_push(trace_context *ctx, proto_misc_state *m, uint32_t track, int64_t ts,
                     string_id category, string_id value, int64_t arg_set, int64_t open_dur) {
  return model_state_value(ctx, &m->last_state, track, ts, category, value, arg_set,
                           open_dur);
}

static const char *const proto_session_states[] = {
    "", "DISABLED", "CONFIGURED", "STARTED",
    "DISABLING_WAITING_STOP_ACKS", "CLONED_READ_ONLY"};

static int proto_session_track(import_file *f, proto_misc_state *m, uint32_t machine,
                               uint64_t id, proto_span name, uint64_t state,
                               uint32_t *track) {
  uint64_t *found = base_map_find(&m->session_tracks, id);
  if (found) {
    *track = (uint32_t)*found;
    return WEFT_OK;
  }
  char buf[256];
  if (name.len)
    snprintf(buf, sizeof buf, "%.*s%s", (int)(name.len > 200 ? 200 : name.len),
             (const char *)name.data,
             state == PROTO_SESSION_STATE_CLONED_READ_ONLY ? " (clone)" : "");
  else
    snprintf(buf, sizeof buf, "Session %llu%s", (unsigned long long)id,
             state == PROTO_SESSION_STATE_CLONED_READ_ONLY ? " (clone)" : "");
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = buf;
  spec.type = "concurrent_tracing_sessions";
  spec.machine = machine;
  spec.extra_key = id ^ UINT64_C(0x5e5510f000000000);
  spec.dim_key = "session_id";
  spec.dim_int = (int64_t)id;
  int rc = model_track(f->ctx, &spec, track);
  if (!rc) rc = proto_state_track_mark(f->ctx, *track);
  uint64_t *slot;
  if (!rc && base_map_insert(&m->session_tracks, id, *track, &slot) < 0) rc = WEFT_ENOMEM;
  return rc;
}

int proto_concurrent_session(import_file *f, proto_misc_state *m, uint32_t machine,
                             int64_t ts, proto_span msg) {
  trace_context *ctx = f->ctx;
  uint64_t state = 0, id = 0, uid = 0, sources = 0;
  proto_span name = {NULL, 0};
  proto_reader r;
  proto_field fl = {0};
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int var = fl.wire_type == PROTO_WIRE_VARINT;
    if (fl.number == PROTO_SESSION_EVENT_STATE && var) state = fl.value;
    if (fl.number == PROTO_SESSION_EVENT_SESSION_ID && var) id = fl.value;
    if (fl.number == PROTO_SESSION_EVENT_CONSUMER_UID && var) uid = fl.value;
    if (fl.number == PROTO_SESSION_EVENT_NUM_DATA_SOURCES && var) sources = fl.value;
    if (fl.number == PROTO_SESSION_EVENT_SESSION_NAME && fl.wire_type == PROTO_WIRE_LEN) name = fl.span;
  }
  /* UNSPECIFIED or a state newer than weft: dropped, as Perfetto does */
  if (state == 0 || state >= sizeof proto_session_states / sizeof *proto_session_states)
    return import_stat(f, stat_concurrent_session_event_unknown_state, 1);
  const char *state_name = proto_session_states[state];
  uint32_t track;
  string_id value;
  int64_t args = -1;
  int rc = proto_session_track(f, m, machine, id, name, state, &track);
  if (!rc) rc = ctx_intern(ctx, state_name, strlen(state_name), &value);
  if (!rc) rc = model_arg_int(ctx, "consumer_uid", 12, MODEL_ARG_INT, (int64_t)uid);
  if (!rc) rc = model_arg_int(ctx, "num_data_sources", 16, MODEL_ARG_INT, (int64_t)sources);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  rc = model_args_commit(ctx, &args);
  if (!rc) rc = proto_state_push(ctx, m, track, ts, STRING_NULL, value, args, -1);
  /* DISABLED is terminal: a zero-width marker, not an open state */
  if (!rc && state == PROTO_SESSION_STATE_DISABLED)
    model_state_close(ctx, &m->last_state, track, ts);
  return rc;
}
