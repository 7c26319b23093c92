/* flow: the flow tracker — arrows between slices (the `flow` table).
 *
 * Importers report flow points on a track; the tracker binds each to the
 * topmost slice open on that track and writes one flow row per hop:
 *  - begin: the flow starts at the enclosing slice;
 *  - step:  a row from the flow's last slice to the enclosing slice, which
 *           becomes the flow's last slice;
 *  - end:   a row from the last slice to the enclosing slice (bind_enclosing)
 *           or to the next slice that begins on the track (pending); with
 *           close_flow the flow is forgotten, otherwise later hops still
 *           start from the same last slice.
 * Each row goes from the earlier slice to the later one (by slice ts), so a
 * flow reported on a slice's end event still points forward in time.
 *
 * Owns: the active flows (flow -> last slice), v1 ids (source id, category,
 * name -> flow id), and the pending ends per track. Flow ids are scoped by
 * trace file: the same id in two files names two flows. Problems are counted
 * in the stats Perfetto uses (flow_no_enclosing_slice, flow_duplicate_id,
 * flow_step_without_start, flow_end_without_start), scoped to the caller's
 * machine and trace; they never fail the import. */
#ifndef WEFT_MODEL_FLOW_H
#define WEFT_MODEL_FLOW_H

#include "base/base.h"

typedef struct trace_context trace_context;
typedef struct flow_state flow_state;

/* Where a flow event comes from: stats scope and id namespace. */
typedef struct flow_scope {
  uint32_t machine;
  uint32_t trace;
} flow_scope;

/* A flow id: a v2 id as written in the trace (bind_id, flow_ids), or a v1
 * flow's id from flow_v1_id (counted from 0 per load). The two share one
 * space, as in Perfetto: v1 flow n and v2 id n are one flow, and a row of
 * a flow whose number a v1 flow has gets that flow's name and cat args.
 * The flow table's trace_id is `value`. */
typedef struct flow_id {
  uint64_t value;
} flow_id;

static inline flow_id flow_id_v2(uint64_t value) {
  flow_id id = {value};
  return id;
}

/* The flow of a v1 event (ph s/t/f): same source id, category and name in
 * one trace = same flow. v1 flow rows get args "name" and "cat". */
int flow_v1_id(trace_context *ctx, flow_scope scope, uint64_t source_id,
               string_id category, string_id name, flow_id *out);

int flow_begin(trace_context *ctx, flow_scope scope, uint32_t track,
               flow_id id);
int flow_step(trace_context *ctx, flow_scope scope, uint32_t track,
              flow_id id);
int flow_end(trace_context *ctx, flow_scope scope, uint32_t track, flow_id id,
             int bind_enclosing, int close_flow);
/* The same points bound to a given slice instead of the track's topmost
 * (track events bind flows to the slice they begin or end). */
int flow_begin_at(trace_context *ctx, flow_scope scope, uint32_t slice,
                  flow_id id);
int flow_step_at(trace_context *ctx, flow_scope scope, uint32_t slice,
                 flow_id id);
int flow_end_at(trace_context *ctx, flow_scope scope, uint32_t slice,
                flow_id id, int close_flow);

/* A flow row from slice `out` to slice `in` with no trace id (arrows an
 * importer links itself, e.g. a GPU job to the slice that queued it). */
int flow_link(trace_context *ctx, uint32_t out, uint32_t in);

/* 1 if the flow has begun and was not closed. */
int flow_is_active(trace_context *ctx, flow_scope scope, flow_id id);

/* Called by the model when `slice` begins on `track`: binds pending ends. */
int flow_slice_started(trace_context *ctx, uint32_t track, uint32_t slice);

void flow_state_free(flow_state *st);

#endif
