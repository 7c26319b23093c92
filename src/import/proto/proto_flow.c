/* TrackEvent flows and legacy-event phases onto the model. */
#include "import/proto/proto_flow.h"

#include "import/proto/proto_fields.h"
#include "model/flow.h"
#include "model/model.h"
#include "model/slice_stack.h"

#define PROTO_FLOW_DIRECTION_IN 1
#define PROTO_FLOW_DIRECTION_OUT 2
#define PROTO_FLOW_DIRECTION_INOUT 3

typedef struct proto_legacy {
  int has_phase, has_unscoped_id, has_bind_id;
  int32_t phase;
  int64_t duration_us;
  uint64_t unscoped_id, bind_id;
  int bind_to_enclosing;
  uint64_t flow_direction;
} proto_legacy;

void proto_flow_hint_of(proto_span track_event, proto_flow_hint *h) {
  proto_reader r;
  proto_field fl;
  int more;
  memset(h, 0, sizeof *h);
  proto_reader_init_span(&r, track_event);
  while ((more = proto_reader_next(&r, &fl)) == 1) proto_flow_hint_note(h, &fl);
  proto_flow_hint_end(h, more);
}

/* The event's legacy_event (the last one, if the event is well-formed). */
static int proto_legacy_read(const proto_flow_hint *h, proto_legacy *lg) {
  memset(lg, 0, sizeof *lg);
  if (!h->has_legacy) return 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, h->legacy);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    switch (fl.number) {
      case PROTO_LEGACY_EVENT_PHASE: lg->phase = (int32_t)fl.value; lg->has_phase = 1; break;
      case PROTO_LEGACY_EVENT_DURATION_US: lg->duration_us = (int64_t)fl.value; break;
      case PROTO_LEGACY_EVENT_UNSCOPED_ID:
        lg->unscoped_id = fl.value;
        lg->has_unscoped_id = 1;
        break;
      case PROTO_LEGACY_EVENT_BIND_ID: lg->bind_id = fl.value; lg->has_bind_id = 1; break;
      case PROTO_LEGACY_EVENT_BIND_TO_ENCLOSING: lg->bind_to_enclosing = fl.value != 0; break;
      case PROTO_LEGACY_EVENT_FLOW_DIRECTION: lg->flow_direction = fl.value; break;
      default: break;
    }
  }
  return 1;
}

int proto_legacy_has_phase(const proto_flow_hint *h) {
  proto_legacy lg;
  return proto_legacy_read(h, &lg) && lg.has_phase;
}

static flow_scope proto_flow_scope(const import_file *f, uint32_t machine) {
  flow_scope s = {machine, f->trace_id};
  return s;
}

/* ---- flows bound to a slice ---- */

/* One id of flow_ids / terminating_flow_ids. A terminating id of a flow
 * that is not active is ignored, without a stat (it neither starts a flow
 * nor ends one). */
static int proto_flow_point(trace_context *ctx, flow_scope scope, uint32_t slice,
                            uint64_t id, int terminating) {
  flow_id fid = flow_id_v2(id);
  if (terminating)
    return flow_is_active(ctx, scope, fid) ? flow_end_at(ctx, scope, slice, fid, 1) : WEFT_OK;
  if (!flow_is_active(ctx, scope, fid)) return flow_begin_at(ctx, scope, slice, fid);
  return flow_step_at(ctx, scope, slice, fid);
}

/* Every value of a repeated id field, packed or not. */
static int proto_flow_field(trace_context *ctx, flow_scope scope, uint32_t slice,
                            const proto_field *fl, int fixed, int terminating) {
  if (fl->wire_type != PROTO_WIRE_LEN) {
    int ok = fixed ? fl->wire_type == PROTO_WIRE_FIXED64 : fl->wire_type == PROTO_WIRE_VARINT;
    return ok ? proto_flow_point(ctx, scope, slice, fl->value, terminating) : WEFT_OK;
  }
  proto_packed_iter it = {0};
  proto_packed_init(&it, fl->span);
  uint64_t id;
  for (;;) {
    int more = fixed ? proto_packed_next_fixed64(&it, &id) : proto_packed_next_varint(&it, &id);
    if (more != 1) return WEFT_OK; /* end, or a malformed tail: ignored */
    int rc = proto_flow_point(ctx, scope, slice, id, terminating);
    if (rc) return rc;
  }
}

static int proto_flow_legacy_bind(trace_context *ctx, flow_scope scope,
                                  uint32_t slice, const proto_legacy *lg) {
  flow_id id = flow_id_v2(lg->bind_id);
  switch (lg->flow_direction) {
    case PROTO_FLOW_DIRECTION_OUT: return flow_begin_at(ctx, scope, slice, id);
    case PROTO_FLOW_DIRECTION_INOUT: return flow_step_at(ctx, scope, slice, id);
    case PROTO_FLOW_DIRECTION_IN: return flow_end_at(ctx, scope, slice, id, 0);
    default:
      return stats_add(&ctx->stats, stat_flow_without_direction, -1, scope.machine,
                       scope.trace, 1);
  }
}

int proto_flow_bind(import_file *f, uint32_t machine, proto_span track_event,
                    const proto_flow_hint *h, uint32_t slice) {
  flow_scope scope = proto_flow_scope(f, machine);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, h->has_flow_ids ? track_event : (proto_span){NULL, 0});
  int rc = WEFT_OK;
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    switch (fl.number) {
      case PROTO_TRACK_EVENT_FLOW_IDS_OLD: rc = proto_flow_field(f->ctx, scope, slice, &fl, 0, 0); break;
      case PROTO_TRACK_EVENT_FLOW_IDS: rc = proto_flow_field(f->ctx, scope, slice, &fl, 1, 0); break;
      case PROTO_TRACK_EVENT_TERMINATING_FLOW_IDS_OLD:
        rc = proto_flow_field(f->ctx, scope, slice, &fl, 0, 1);
        break;
      case PROTO_TRACK_EVENT_TERMINATING_FLOW_IDS:
        rc = proto_flow_field(f->ctx, scope, slice, &fl, 1, 1);
        break;
      default: break;
    }
  }
  proto_legacy lg;
  if (!rc && proto_legacy_read(h, &lg) && lg.has_bind_id)
    rc = proto_flow_legacy_bind(f->ctx, scope, slice, &lg);
  return rc;
}

/* ---- legacy phases ---- */

static int proto_legacy_flow_v1(import_file *f, flow_scope scope, const proto_legacy *lg,
                                uint32_t track, string_id category, string_id name) {
  if (!lg->has_unscoped_id)
    return stats_add(&f->ctx->stats, stat_flow_invalid_id, -1, scope.machine, scope.trace, 1);
  flow_id id;
  int rc = flow_v1_id(f->ctx, scope, lg->unscoped_id, category, name, &id);
  if (rc) return rc;
  if (lg->phase == 's') return flow_begin(f->ctx, scope, track, id);
  if (lg->phase == 't') return flow_step(f->ctx, scope, track, id);
  return flow_end(f->ctx, scope, track, id, lg->bind_to_enclosing, 0);
}

int proto_legacy_flow_v1_reject(import_file *f, uint32_t machine, const proto_flow_hint *h) {
  proto_legacy lg;
  if (!proto_legacy_read(h, &lg) || lg.has_unscoped_id) return 0;
  flow_scope scope = proto_flow_scope(f, machine);
  int rc = stats_add(&f->ctx->stats, stat_flow_invalid_id, -1, scope.machine, scope.trace, 1);
  if (!rc) rc = import_stat(f, stat_track_event_parser_errors, 1);
  return rc ? rc : 1;
}

int proto_legacy_negative_complete_reject(import_file *f, const proto_flow_hint *h) {
  proto_legacy lg;
  if (!proto_legacy_read(h, &lg) || !lg.has_phase || lg.phase != 'X' || lg.duration_us >= 0)
    return 0;
  int rc = import_stat(f, stat_track_event_parser_errors, 1);
  return rc ? rc : 1;
}

int proto_legacy_apply(import_file *f, uint32_t machine, proto_span track_event,
                       const proto_flow_hint *h, uint32_t track, int64_t ts,
                       string_id category, string_id name, int64_t arg_set,
                       const proto_thread_times *times) {
  proto_legacy lg;
  if (!proto_legacy_read(h, &lg) || !lg.has_phase) return WEFT_OK;
  trace_context *ctx = f->ctx;
  uint32_t slice;
  int64_t ended;
  int rc;
  switch (lg.phase) {
    case 'X': {
      int64_t dur = lg.duration_us > INT64_MAX / 1000 || lg.duration_us < 0
                        ? 0 : lg.duration_us * 1000;
      uint32_t conflict; /* would end after its parent: dropped, logged */
      if (!slice_stack_conflict(ctx, track, ts, dur, &conflict)) {
        rc = slice_stack_log_drop(ctx, f->trace_id, ts, conflict);
        return rc ? rc : import_stat(f, stat_slice_drop_overlapping_complete_event, 1);
      }
      rc = model_slice_complete(ctx, track, ts, dur, category, name, arg_set, &slice);
      break;
    }
    case 'B':
      rc = model_slice_begin(ctx, track, ts, category, name, arg_set, &slice);
      break;
    case 'I': case 'i': case 'R':
      rc = model_slice_complete(ctx, track, ts, 0, category, name, arg_set, &slice);
      break;
    case 'E':
      rc = model_slice_end(ctx, track, ts, &ended);
      if (rc || ended < 0) return rc;
      slice = (uint32_t)ended;
      break;
    case 's': case 't': case 'f':
      return proto_legacy_flow_v1(f, proto_flow_scope(f, machine), &lg, track,
                                  category, name);
    default:
      return WEFT_OK;
  }
  if (!rc && times)
    proto_thread_times_apply(ctx, times, slice, lg.phase == 'I' || lg.phase == 'R' ? 'i'
                                                                                    : (char)lg.phase);
  return rc ? rc : proto_flow_bind(f, machine, track_event, h, slice);
}
