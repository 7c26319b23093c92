/* frame_timeline: Android FrameTimeline slices — the "Expected Timeline"
 * and "Actual Timeline" track sets of a process and the per-slice columns
 * of expected_frame_timeline_slice / actual_frame_timeline_slice (the
 * __intrinsic_frame_timeline table, one row per slice, joined to the slice
 * table by the views).
 *
 * Rules (Perfetto's): each (process, expected or actual) is a set of
 * interchangeable process tracks typed android_expected_frame_timeline /
 * android_actual_frame_timeline (dimensions upid, track_compressor_idx); a
 * frame's cookie picks its track as model/track_compressor.h says. */
#ifndef WEFT_MODEL_FRAME_TIMELINE_H
#define WEFT_MODEL_FRAME_TIMELINE_H

#include "base/base.h"
#include "model/track_compressor.h"

typedef struct trace_context trace_context;
typedef struct frame_timeline_state frame_timeline_state;

void frame_timeline_state_free(frame_timeline_state *s);

/* The track of a frame's `cookie` in the set of (upid, actual), its nesting
 * updated for `ev`. */
int frame_timeline_track(trace_context *ctx, uint32_t machine, uint32_t upid, int actual,
                         int64_t cookie, track_compressor_event ev, uint32_t *track);

/* The columns of a frame timeline slice; *_set 0 leaves an int NULL,
 * STRING_NULL a string NULL. Expected slices use the first four. */
typedef struct frame_timeline_row {
  int actual;
  int64_t display_frame_token, surface_frame_token;
  int has_surface_frame_token;
  uint32_t upid;
  string_id layer_name;
  string_id present_type, jank_type, jank_severity_type, prediction_type, jank_tag,
      jank_tag_experimental, latched_fence_state;
  int64_t on_time_finish, gpu_composition;
  double jank_score;
  int64_t latched_unsignaled_count, addressable_unsignaled_latch_count;
  int has_latched_unsignaled_count, has_addressable_unsignaled_latch_count;
} frame_timeline_row;

int frame_timeline_row_add(trace_context *ctx, uint32_t slice, const frame_timeline_row *r);

#endif
