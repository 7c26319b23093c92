/* proto_flow: TrackEvent flows and legacy-event phases.
 *
 * Flows (model/flow.h) bound to the slice a track event begins or ends:
 * flow_ids (47, fixed64; 36 as varint) begin a flow or step it when it is
 * active; terminating_flow_ids (48; 42) end and close it; a legacy event's
 * bind_id with flow_direction IN/OUT/INOUT ends (without closing), begins or
 * steps it. Legacy events without a TrackEvent type are applied by phase:
 * X (complete, duration_us), B, E, I/i/R (instants), and the v1 flow phases
 * s/t/f keyed by (unscoped_id, category, name); other phases are ignored.
 * Flow ids are scoped by trace file; problems are counted, never fatal. */
#ifndef WEFT_PROTO_FLOW_H
#define WEFT_PROTO_FLOW_H

#include "import/importer.h"
#include "import/proto/proto_event_counters.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_wire.h"

/* What the flow code needs from a TrackEvent, gathered while the caller
 * reads the event once: proto_flow_hint_note on every field it reads (in
 * order, from the start), then proto_flow_hint_end with the reader's last
 * result (0 at a clean end, WEFT_EPARSE if malformed). */
typedef struct proto_flow_hint {
  int has_flow_ids;  /* a flow_ids / terminating_flow_ids field (any form) */
  int has_legacy;    /* well-formed event whose last legacy_event is a message */
  int legacy_is_len; /* while reading: the last legacy_event is a message */
  proto_span legacy; /* that legacy_event */
} proto_flow_hint;

static inline void proto_flow_hint_note(proto_flow_hint *h, const proto_field *fl) {
  switch (fl->number) {
    case PROTO_TRACK_EVENT_FLOW_IDS_OLD:
    case PROTO_TRACK_EVENT_TERMINATING_FLOW_IDS_OLD:
    case PROTO_TRACK_EVENT_FLOW_IDS:
    case PROTO_TRACK_EVENT_TERMINATING_FLOW_IDS: h->has_flow_ids = 1; break;
    case PROTO_TRACK_EVENT_LEGACY_EVENT:
      h->legacy_is_len = fl->wire_type == PROTO_WIRE_LEN;
      if (h->legacy_is_len) h->legacy = fl->span;
      break;
    default: break;
  }
}

static inline void proto_flow_hint_end(proto_flow_hint *h, int reader_result) {
  h->has_legacy = reader_result == 0 && h->legacy_is_len;
}

/* The hint of a whole TrackEvent message (one pass). */
void proto_flow_hint_of(proto_span track_event, proto_flow_hint *h);

/* 1 if the TrackEvent carries a legacy_event with a phase. */
int proto_legacy_has_phase(const proto_flow_hint *h);

/* Applies an untyped TrackEvent by its legacy phase on `track`; `times`:
 * the thread time it gives a slice of a thread track, or NULL. */
/* 1 (after counting flow_invalid_id and track_event_parser_errors) if a
 * v1 flow event (legacy phase s, t or f, typed or not) has no unscoped_id: Perfetto
 * drops it before resolving its track. 0 otherwise, <0 on error. */
int proto_legacy_flow_v1_reject(import_file *f, uint32_t machine, const proto_flow_hint *h);
/* 1 (after counting track_event_parser_errors) if an untyped event's
 * legacy phase X has a negative duration_us: Perfetto drops it before
 * resolving its track. 0 otherwise, <0 on error. */
int proto_legacy_negative_complete_reject(import_file *f, const proto_flow_hint *h);

int proto_legacy_apply(import_file *f, uint32_t machine, proto_span track_event,
                       const proto_flow_hint *h, uint32_t track, int64_t ts,
                       string_id category, string_id name, int64_t arg_set,
                       const proto_thread_times *times);

/* Binds the event's flows to `slice` (just begun, or just ended). */
int proto_flow_bind(import_file *f, uint32_t machine, proto_span track_event,
                    const proto_flow_hint *h, uint32_t slice);

#endif
