/* Queries and name-matched ends on the model's per-track slice stacks. */
#include "model/slice_stack.h"

#include <assert.h>

#include "model/context.h"


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

int slice_stack_fits(trace_context *ctx, uint32_t track, int64_t ts,
                     int64_t dur) {
  model_stack *st = model_stack_find(ctx, track);
  if (!st) return 1;
  size_t n = slice_stack_live_len(st, ts, dur);
  if (n == 0) return 1;
  int64_t parent_end = slice_stack_end_of(&st->slices.data[n - 1]);
  if (parent_end < 0) return 1;
  return ts + (dur < 0 ? 0 : dur) <= parent_end;
}
