/* viewcapture: view capture snapshots and their views
 * (__intrinsic_viewcapture, __intrinsic_viewcapture_view), and the edit of
 * pending args that replaces an interned id by its string. */
#ifndef WEFT_MODEL_VIEWCAPTURE_H
#define WEFT_MODEL_VIEWCAPTURE_H

#include "model/context.h"

typedef struct model_viewcapture_view {
  int64_t snapshot_id, arg_set, node_id, hashcode, parent_id;
  string_id base64_proto, view_id, class_name; /* STRING_NULL: none */
} model_viewcapture_view;

int model_viewcapture_add(trace_context *ctx, int64_t ts, string_id package_name,
                          string_id window_name, uint32_t *row);
void model_viewcapture_set_args(trace_context *ctx, uint32_t row, int64_t arg_set,
                                string_id base64_proto);
int model_viewcapture_view_add(trace_context *ctx, const model_viewcapture_view *v);

/* The pending arg (from index `first` on) keyed `key`: its index, or -1. */
int64_t model_args_pending_find(const trace_context *ctx, size_t first, string_id key);
int64_t model_args_pending_int(const trace_context *ctx, size_t i);
/* Pending arg i becomes the string arg key = value. */
void model_args_pending_to_string(trace_context *ctx, size_t i, string_id key, string_id value);
/* Inserts the string arg key = value before pending arg i. */
int model_args_pending_insert_string(trace_context *ctx, size_t i, string_id key,
                                     string_id value);

#endif
