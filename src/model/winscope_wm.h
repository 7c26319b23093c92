/* winscope_wm: the WindowManager winscope tables: a row per snapshot
 * (WindowManagerTraceEntry) and one per window container of it; the
 * messages' fields are their args (the importer commits them). Window
 * rects go through model/winscope_sf.h's rect functions. */
#ifndef WEFT_MODEL_WINSCOPE_WM_H
#define WEFT_MODEL_WINSCOPE_WM_H

#include "model/context.h"
#include "model/model.h"

/* A snapshot at ts; *row its id. arg_set -1: none; base64_proto
 * STRING_NULL: none. */
typedef struct model_wm_snapshot {
  int64_t ts, arg_set, focused_display_id;
  string_id base64_proto;
  uint8_t has_invalid_elapsed_ts;
} model_wm_snapshot;
int model_wm_snapshot_add(trace_context *ctx, const model_wm_snapshot *s, uint32_t *row);

/* A window container of snapshot `snapshot_id`. The root has no parent
 * token nor child index (has_parent 0); window_rect_id -1: none;
 * name_override STRING_NULL: none. */
typedef struct model_wm_container {
  uint32_t snapshot_id;
  int64_t arg_set, token, parent_token, child_index, window_rect_id;
  string_id base64_proto, title, container_type, name_override;
  uint8_t has_parent, is_visible;
} model_wm_container;
int model_wm_container_add(trace_context *ctx, const model_wm_container *c);

#endif
