/* FrameTimeline tracks and columns. See frame_timeline.h. */
#include "model/frame_timeline.h"

#include "model/context.h"
#include "model/model.h"

struct frame_timeline_state {
  track_compressor sets; /* keyed by upid << 1 | actual */
};

void frame_timeline_state_free(frame_timeline_state *s) {
  if (!s) return;
  track_compressor_free(&s->sets);
  base_free(s);
}

int frame_timeline_track(trace_context *ctx, uint32_t machine, uint32_t upid, int actual,
                         int64_t cookie, track_compressor_event ev, uint32_t *track) {
  frame_timeline_state *s = ctx->model.frame_timeline;
  if (!s && !(s = ctx->model.frame_timeline = base_calloc(1, sizeof *s))) return WEFT_ENOMEM;
  uint32_t set, idx;
  int rc = track_compressor_use(&s->sets, (uint64_t)upid << 1 | (actual != 0), cookie, ev,
                                &set, &idx);
  if (rc) return rc;
  uint32_t *slot = track_compressor_track(&s->sets, set, idx);
  if (*slot == TRACK_COMPRESSOR_NO_TRACK) {
    model_track_spec spec;
    model_track_spec_init(&spec);
    spec.name = actual ? "Actual Timeline" : "Expected Timeline";
    spec.type = actual ? "android_actual_frame_timeline" : "android_expected_frame_timeline";
    spec.machine = machine;
    spec.upid = upid;
    spec.compressor_idx = idx;
    spec.group_key = model_track_group_key(&s->sets, set);
    if ((rc = model_track(ctx, &spec, slot)) != 0) return rc;
  }
  *track = *slot;
  return WEFT_OK;
}

static int frame_timeline_set_int(storage_table *t, size_t col, uint32_t row, int has,
                                  int64_t v) {
  return has ? storage_set_i64(t, col, row, v) : WEFT_OK;
}

int frame_timeline_row_add(trace_context *ctx, uint32_t slice, const frame_timeline_row *r) {
  storage_table *t = ctx_table(ctx, TABLE_FRAME_TIMELINE);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (!rc) rc = storage_set_i64(t, FRAME_TIMELINE_slice_id, row, slice);
  if (!rc) rc = storage_set_i64(t, FRAME_TIMELINE_is_actual, row, r->actual != 0);
  if (!rc) rc = storage_set_i64(t, FRAME_TIMELINE_display_frame_token, row, r->display_frame_token);
  if (!rc) rc = frame_timeline_set_int(t, FRAME_TIMELINE_surface_frame_token, row,
                                       r->has_surface_frame_token, r->surface_frame_token);
  if (!rc) rc = storage_set_i64(t, FRAME_TIMELINE_upid, row, r->upid);
  if (!rc) rc = storage_set_str(t, FRAME_TIMELINE_layer_name, row, r->layer_name);
  if (rc || !r->actual) return rc;
  rc = storage_set_str(t, FRAME_TIMELINE_present_type, row, r->present_type);
  if (!rc) rc = storage_set_i64(t, FRAME_TIMELINE_on_time_finish, row, r->on_time_finish);
  if (!rc) rc = storage_set_i64(t, FRAME_TIMELINE_gpu_composition, row, r->gpu_composition);
  if (!rc) rc = storage_set_str(t, FRAME_TIMELINE_jank_type, row, r->jank_type);
  if (!rc) rc = storage_set_str(t, FRAME_TIMELINE_jank_severity_type, row, r->jank_severity_type);
  if (!rc) rc = storage_set_str(t, FRAME_TIMELINE_prediction_type, row, r->prediction_type);
  if (!rc) rc = storage_set_str(t, FRAME_TIMELINE_jank_tag, row, r->jank_tag);
  if (!rc) rc = storage_set_str(t, FRAME_TIMELINE_jank_tag_experimental, row,
                                r->jank_tag_experimental);
  if (!rc) rc = storage_set_f64(t, FRAME_TIMELINE_jank_score, row, r->jank_score);
  if (!rc) rc = frame_timeline_set_int(t, FRAME_TIMELINE_latched_unsignaled_count, row,
                                       r->has_latched_unsignaled_count,
                                       r->latched_unsignaled_count);
  if (!rc) rc = frame_timeline_set_int(t, FRAME_TIMELINE_addressable_unsignaled_latch_count, row,
                                       r->has_addressable_unsignaled_latch_count,
                                       r->addressable_unsignaled_latch_count);
  if (!rc) rc = storage_set_str(t, FRAME_TIMELINE_latched_fence_state, row, r->latched_fence_state);
  return rc;
}
