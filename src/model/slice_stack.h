/* slice_stack: queries and Perfetto-style matching on the model's per-track
 * slice stacks (model_state.stacks), beyond what model.h offers.
 *
 * Owns nothing: it reads and pops the stacks model.c keeps. Same invariant
 * as model.h: a stack holds the slices open at the last event's time, bottom
 * first; complete slices (known dur) are popped lazily once a later event
 * starts at or after their end. */
#ifndef WEFT_MODEL_SLICE_STACK_H
#define WEFT_MODEL_SLICE_STACK_H

#include "base/base.h"

typedef struct trace_context trace_context;

/* The topmost slice on the track's stack (no lazy popping, as Perfetto's
 * "topmost slice on track"), or -1 when the stack is empty. */
int64_t slice_stack_top(trace_context *ctx, uint32_t track);

/* Ends the innermost still-open (dur -1) slice whose category and name
 * match: a STRING_NULL category or name in the end event matches anything;
 * otherwise it must equal the open slice's. Sets the slice's dur to
 * ts - start and pops it when it is the top. *slice = -1 when nothing
 * matched (the caller counts misplaced_end_event). */
int slice_stack_end_matching(trace_context *ctx, uint32_t track, int64_t ts,
                             string_id category, string_id name,
                             int64_t *slice);

/* 1 if a complete slice [ts, ts + dur] would nest inside the slices open on
 * the track at ts (after those that ended by ts are popped), 0 if it would
 * end after its would-be parent ends (a partial overlap). */
int slice_stack_fits(trace_context *ctx, uint32_t track, int64_t ts,
                     int64_t dur);
/* The same; 0 with *conflict = the open slice it would overlap (the
 * would-be parent, whose end it passes). */
int slice_stack_conflict(trace_context *ctx, uint32_t track, int64_t ts, int64_t dur,
                         uint32_t *conflict);
/* Pends Perfetto's overlap args of a slice at ts overlapping `conflict`:
 * overlap_start (ts), overlap_end (conflict's end), conflicting_slice_name,
 * conflicting_slice_ts and conflicting_slice_dur. */
int slice_stack_overlap_args(trace_context *ctx, int64_t ts, uint32_t conflict);
/* A complete slice at ts dropped for overlapping `conflict`: its
 * slice_drop_overlapping_complete_event row in _trace_import_logs, with
 * the overlap args, in trace file `trace` (the caller counts the stat). */
int slice_stack_log_drop(trace_context *ctx, int64_t trace, int64_t ts, uint32_t conflict);

#endif
