/* The callstacks of track events (proto_profile.h): TrackEvent.callstack
 * (frames named by function, file and line, outermost first) or
 * callstack_iid (the sequence's interned profile callstacks). */
#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_profile_internal.h"
#include "model/columns.h"
#include "model/context.h"
#include "model/stack_profile.h"

#define PTC_MAX_FRAMES 4096 /* frames of one inline callstack that are kept */

int proto_event_callstack_field(const proto_field *fl, proto_event_callstack *cs) {
  switch (fl->number) {
    case PROTO_TRACK_EVENT_CALLSTACK:
      if (fl->wire_type != PROTO_WIRE_LEN) return 0;
      cs->inline_msg = fl->span;
      cs->has_inline = 1, cs->has_iid = 0; /* a oneof: the last one set */
      return 1;
    case PROTO_TRACK_EVENT_CALLSTACK_IID:
      if (fl->wire_type != PROTO_WIRE_VARINT) return 0;
      cs->iid = fl->value;
      cs->has_iid = 1, cs->has_inline = 0;
      return 1;
    case PROTO_TRACK_EVENT_CALLSTACK_WEIGHT:
      if (fl->wire_type != PROTO_WIRE_FIXED64) return 0;
      cs->weight = proto_field_double(fl);
      cs->has_weight = 1;
      return 1;
    default: return 0;
  }
}

static int ptc_intern(import_file *f, const proto_field *fl, string_id *out) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  return ctx_intern(f->ctx, (const char *)fl->span.data, fl->span.len, out);
}

/* The frame of one TrackEvent.Callstack.Frame message. */
static int ptc_inline_frame(import_file *f, proto_span msg, uint32_t *frame) {
  string_id name = STRING_NULL, file = STRING_NULL;
  int64_t line = -1;
  proto_reader rd;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    if (fl.number == PROTO_TRACK_EVENT_FRAME_FUNCTION_NAME) rc = ptc_intern(f, &fl, &name);
    if (fl.number == PROTO_TRACK_EVENT_FRAME_SOURCE_FILE) rc = ptc_intern(f, &fl, &file);
    if (fl.number == PROTO_TRACK_EVENT_FRAME_LINE_NUMBER && fl.wire_type == PROTO_WIRE_VARINT)
      line = (int64_t)(uint32_t)fl.value;
  }
  return rc ? rc : stack_profile_inline_frame(f->ctx, name, file, line, frame);
}

/* The leaf callsite of an inline callstack; -1 if it has no frames. */
static int ptc_inline_callstack(import_file *f, proto_span msg, int64_t *leaf) {
  proto_reader rd;
  proto_field fl;
  int depth = 0;
  *leaf = -1;
  proto_reader_init_span(&rd, msg);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.number != PROTO_TRACK_EVENT_CALLSTACK_FRAMES || fl.wire_type != PROTO_WIRE_LEN)
      continue;
    if (++depth > PTC_MAX_FRAMES) break;
    uint32_t frame, callsite;
    int rc = ptc_inline_frame(f, fl.span, &frame);
    if (!rc) rc = stack_profile_callsite(f->ctx, *leaf, frame, &callsite);
    if (rc) return rc;
    *leaf = callsite;
  }
  return WEFT_OK;
}

/* The process of a track: its thread's, or its own; -1 for a global track. */
static int64_t ptc_track_process(trace_context *ctx, uint32_t track) {
  storage_table *t = ctx_table(ctx, TABLE_TRACK);
  int64_t utid = storage_get_i64_or(t, TRACK_utid, track, -1);
  return utid >= 0 ? model_thread_process(ctx, (uint32_t)utid)
                   : storage_get_i64_or(t, TRACK_upid, track, -1);
}

static int ptc_interned_callstack(import_file *f, const proto_packet_info *info, uint64_t iid,
                                  uint32_t track, int64_t *leaf) {
  pp_resolver r = pp_resolver_of(info);
  r.owner = (uint32_t)(ptc_track_process(f->ctx, track) + 1);
  int rc = pp_callstack_find(f, &r, iid, leaf);
  if (rc || *leaf >= 0) return rc;
  rc = import_stat(f, *leaf == PP_UNKNOWN_CALLSTACK ? stat_interned_data_tokenizer_errors
                                                    : stat_stackprofile_empty_callstack, 1);
  return rc ? rc : import_stat(f, stat_track_event_parser_errors, 1);
}

int proto_event_callstack_apply(import_file *f, const proto_packet_info *info,
                                const proto_event_callstack *cs, uint32_t slice,
                                uint32_t track, int at_end) {
  int64_t leaf = -1;
  int rc = WEFT_OK;
  if (cs->has_iid) rc = ptc_interned_callstack(f, info, cs->iid, track, &leaf);
  else if (cs->has_inline) rc = ptc_inline_callstack(f, cs->inline_msg, &leaf);
  if (rc || leaf < 0) return rc;
  stack_profile_event_callstack row = {slice, track, (uint32_t)leaf, at_end, cs->has_weight,
                                       cs->weight};
  return stack_profile_event_callstack_add(f->ctx, &row);
}
