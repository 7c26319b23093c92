/* Queries and name-matched ends on the model's per-track slice stacks. */
#include "model/slice_stack.h"

#include <assert.h>

#include "model/context.h"
#include "model/import_log.h"


static int64_t slice_stack_end_of(const model_stack_entry *e) {
  return e->dur < 0 ? -1 : e->ts + e->dur;
}

/* How many slices stay on the stack for a new slice at ts lasting new_dur
 * (-1: unknown): the rule model.c applies — complete slices on top that
 * ended by ts are popped, except a zero-duration one at ts when the new
 * slice is zero-duration too. */
static size_t slice_stack_live_len(const model_stack *st, int64_t ts, int64_t new_dur) {
  size_t n = st->slices.len;
  while (n) {
    const model_stack_entry *top = &st->slices.data[n - 1];
    int64_t end = slice_stack_end_of(top);
    if (end < 0 || end > ts) break;
    if (end == ts && new_dur == 0 && top->dur == 0) break;
    n--;
  }
  return n;
}

int64_t slice_stack_top(trace_context *ctx, uint32_t track) {
  model_stack *st = model_stack_find(ctx, track);
  if (!st || st->slices.len == 0) return -1;
  assert(model_stack_entry_matches_row(ctx, st, st->slices.len - 1));
  return st->slices.data[st->slices.len - 1].slice;
}

static int slice_stack_matches(storage_table *t, uint32_t slice,
                               string_id category, string_id name) {
  if (category != STRING_NULL) {
    string_id other = storage_get_str(t, SLICE_category, slice);
    if (other == STRING_NULL || other != category) return 0;
  }
  if (name != STRING_NULL) {
    string_id other = storage_get_str(t, SLICE_name, slice);
    if (other != STRING_NULL && other != name) return 0;
  }
  return 1;
}

int slice_stack_end_matching(trace_context *ctx, uint32_t track, int64_t ts,
                             string_id category, string_id name,
                             int64_t *slice) {
  *slice = -1;
  model_stack *st = model_stack_find(ctx, track);
  if (!st) return WEFT_OK;
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  int rc = model_stack_close_orphans(ctx, st, ts);
  if (rc) return rc;
  rc = model_stack_truncate(ctx, st, slice_stack_live_len(st, ts, -1));
  if (rc) return rc;
  for (size_t i = st->slices.len; i-- > 0;) {
    model_stack_entry *e = &st->slices.data[i];
    assert(model_stack_entry_matches_row(ctx, st, i)); /* depth i, parent below */
    if (e->dur >= 0) continue;
    if (!slice_stack_matches(t, e->slice, category, name)) continue;
    e->dur = ts - e->ts;
    storage_set_i64(t, SLICE_dur, e->slice, e->dur);
    ctx_extend_bounds(ctx, ts);
    *slice = e->slice;
    return i == st->slices.len - 1 ? model_stack_truncate(ctx, st, i) : WEFT_OK;
  }
  return WEFT_OK;
}

int slice_stack_conflict(trace_context *ctx, uint32_t track, int64_t ts, int64_t dur,
                         uint32_t *conflict) {
  model_stack *st = model_stack_find(ctx, track);
  if (!st) return 1;
  size_t n = slice_stack_live_len(st, ts, dur);
  if (n == 0) return 1;
  /* The parent is nested in every slice below it: fitting in it is
   * fitting in them all. An open parent (unknown end) takes anything. */
  const model_stack_entry *parent = &st->slices.data[n - 1];
  int64_t parent_end = slice_stack_end_of(parent);
  if (parent_end < 0 || ts + (dur < 0 ? 0 : dur) <= parent_end) return 1;
  *conflict = parent->slice;
  return 0;
}

int slice_stack_fits(trace_context *ctx, uint32_t track, int64_t ts,
                     int64_t dur) {
  uint32_t conflict;
  return slice_stack_conflict(ctx, track, ts, dur, &conflict);
}

int slice_stack_overlap_args(trace_context *ctx, int64_t ts, uint32_t conflict) {
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  int64_t start = storage_get_i64(t, SLICE_ts, conflict);
  int64_t dur = storage_get_i64(t, SLICE_dur, conflict);
  string_id name = storage_get_str(t, SLICE_name, conflict);
  string_id key;
  int rc = model_arg_int(ctx, "overlap_start", 13, MODEL_ARG_INT, ts);
  if (!rc) rc = model_arg_int(ctx, "overlap_end", 11, MODEL_ARG_INT, start + dur);
  if (!rc) rc = ctx_intern(ctx, "conflicting_slice_name", 22, &key);
  if (!rc) rc = model_arg_string_id(ctx, key, name, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "conflicting_slice_ts", 20, MODEL_ARG_INT, start);
  if (!rc) rc = model_arg_int(ctx, "conflicting_slice_dur", 21, MODEL_ARG_INT, dur);
  return rc;
}

int slice_stack_log_drop(trace_context *ctx, int64_t trace, int64_t ts, uint32_t conflict) {
  int64_t set = -1;
  int rc = slice_stack_overlap_args(ctx, ts, conflict);
  if (!rc) rc = model_args_commit(ctx, &set);
  else model_args_discard(ctx);
  if (!rc) rc = model_import_log(ctx, trace, ts, stat_slice_drop_overlapping_complete_event, set);
  return rc;
}
