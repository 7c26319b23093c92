/* winscope_sf: the SurfaceFlinger winscope tables (transactions; layers
 * snapshots), one row per traced message or change; the message's fields
 * are its args (the importer commits them). */
#ifndef WEFT_MODEL_WINSCOPE_SF_H
#define WEFT_MODEL_WINSCOPE_SF_H

#include "model/context.h"
#include "model/model.h"

/* A TransactionTraceEntry at ts; *row its id. arg_set -1: none;
 * base64_proto STRING_NULL: none. */
int model_sf_transactions_add(trace_context *ctx, int64_t ts, int64_t arg_set,
                              string_id base64_proto, int64_t vsync_id, uint32_t *row);

/* Which optional columns of a transaction change are set. */
enum {
  MODEL_SF_HAS_TRANSACTION = 1, /* transaction_id, pid, uid */
  MODEL_SF_HAS_LAYER = 2,
  MODEL_SF_HAS_DISPLAY = 4,
  MODEL_SF_HAS_FLAGS = 8,
};

/* One change of entry `snapshot_id`. */
typedef struct model_sf_transaction {
  uint32_t snapshot_id;
  unsigned has; /* MODEL_SF_HAS_* */
  int64_t arg_set;         /* -1: none */
  string_id base64_proto;  /* STRING_NULL: none */
  string_id type;
  int64_t transaction_id, pid, uid, layer_id, display_id, flags_id;
} model_sf_transaction;

int model_sf_transaction_add(trace_context *ctx, const model_sf_transaction *t);
/* Flag `flag` is one of those of flags_id. */
int model_sf_transaction_flag_add(trace_context *ctx, int64_t flags_id, string_id flag);

/* A LayersSnapshotProto at ts; *row its id. */
typedef struct model_sf_snapshot {
  int64_t ts, arg_set, sequence_id; /* arg_set -1: none */
  string_id base64_proto;
  uint8_t has_sequence_id, has_invalid_elapsed_ts;
} model_sf_snapshot;
int model_sf_snapshot_add(trace_context *ctx, const model_sf_snapshot *s, uint32_t *row);

/* A layer of snapshot `snapshot_id`; the has_* flags give the nullable
 * columns (rect ids: -1 none). */
typedef struct model_sf_layer {
  uint32_t snapshot_id;
  int64_t arg_set;
  string_id base64_proto, name;
  int64_t layer_id, parent, hwc_composition_type, z_order_relative_of;
  int64_t layer_rect_id, input_rect_id;
  double corner_radius[4]; /* tl, tr, bl, br */
  uint8_t has_layer_id, has_parent, has_hwc_composition_type, has_z_order_relative_of;
  uint8_t is_visible, is_hidden_by_policy, is_missing_z_parent;
} model_sf_layer;
int model_sf_layer_add(trace_context *ctx, const model_sf_layer *l);

typedef struct model_sf_display {
  uint32_t snapshot_id;
  int64_t trace_rect_id, display_id;
  string_id name;
  uint8_t is_on, is_virtual;
} model_sf_display;
int model_sf_display_add(trace_context *ctx, const model_sf_display *d);

/* A winscope rect (the caller deduplicates); *row its id. */
int model_winscope_rect_add(trace_context *ctx, double x, double y, double w, double h,
                            uint32_t *row);
/* A transform: dsdx, dtdx, tx, dtdy, dsdy, ty; *row its id. */
int model_winscope_transform_add(trace_context *ctx, const double m[6], uint32_t *row);

/* A trace rect: where rect `rect_id` is drawn. opacity and border are
 * optional (has_*). */
typedef struct model_winscope_trace_rect {
  int64_t rect_id, group_id, depth, transform_id, border_color;
  double opacity, border_width;
  uint8_t is_spy, is_visible, has_opacity, has_border;
} model_winscope_trace_rect;
int model_winscope_trace_rect_add(trace_context *ctx, const model_winscope_trace_rect *r,
                                  uint32_t *row);
/* Rect `rect_id` is part of the fill region of trace rect `trace_rect_id`. */
int model_winscope_fill_region_add(trace_context *ctx, int64_t trace_rect_id, int64_t rect_id);

#endif
