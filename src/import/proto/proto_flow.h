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
#include "import/proto/proto_wire.h"

/* 1 if the TrackEvent message carries a legacy_event with a phase. */
int proto_legacy_has_phase(proto_span track_event);

/* Applies an untyped TrackEvent by its legacy phase on `track`. */
int proto_legacy_apply(import_file *f, uint32_t machine, proto_span track_event,
                       uint32_t track, int64_t ts, string_id category,
                       string_id name, int64_t arg_set);

/* Binds the event's flows to `slice` (just begun, or just ended). */
int proto_flow_bind(import_file *f, uint32_t machine, proto_span track_event,
                    uint32_t slice);

#endif
