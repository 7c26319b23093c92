/* proto_winscope_sf_geom: the geometry of SurfaceFlinger layers snapshots
 * (rects, transforms) and the per-snapshot computation of layer order,
 * visibility and the layer and input trace rects (proto_winscope_sf.h
 * lists the rules). Internal to proto_winscope_sf*.c. */
#ifndef WEFT_PROTO_WINSCOPE_SF_GEOM_H
#define WEFT_PROTO_WINSCOPE_SF_GEOM_H

#include "base/base.h"
#include "import/importer.h"
#include "import/proto/proto_winscope_sf.h"

typedef struct sf_rect {
  double x, y, w, h;
} sf_rect;

/* A RectProto (int32 left, top, right, bottom; absent 0) as x, y, w, h. */
sf_rect sf_geom_rect_proto(proto_span msg);
int sf_geom_rect_empty(sf_rect r);
/* The row of rect r in __intrinsic_winscope_rect, added once per value. */
int sf_geom_rect_id(import_file *f, proto_sf_state *s, sf_rect r, int64_t *id);

/* What the computation found for one layer (in proto order). */
typedef struct sf_layer_result {
  uint8_t ordered;    /* reached from a root layer: has a visibility */
  uint8_t is_visible;
  int64_t layer_rect, input_rect; /* -1: none */
  uint32_t blocking[3][2];        /* occluded_by, partially_, covered_by: start, count */
} sf_layer_result;

struct sf_layer;

/* A snapshot's layers (raw and decoded), their ids and the results. */
typedef struct sf_layer_set {
  VEC(proto_span) layers;
  VEC(struct sf_layer) items;
  VEC(sf_layer_result) res;
  VEC(int32_t) blocking; /* the ids the results' `blocking` ranges index */
  base_map by_id;        /* layer id -> last index with it */
  uint8_t *hidden;       /* per layer: hidden by an ancestor (geom.c states) */
} sf_layer_set;

int sf_layer_set_build(proto_span layers, sf_layer_set *set);
int sf_layer_set_has_id(const sf_layer_set *set, int32_t id);
/* An ancestor of layer i (parent chain) is hidden by policy (known once
 * sf_layer_set_compute ran). */
int sf_layer_set_hidden_by_parent(const sf_layer_set *set, size_t i);
/* Orders the layers, computes visibility and adds the trace rects. */
int sf_layer_set_compute(import_file *f, proto_sf_state *s, proto_span snapshot,
                         sf_layer_set *set);
/* Adds layer i's visibility args (reasons, blocking layers) to the pending args. */
int sf_layer_set_args(import_file *f, proto_span snapshot, const sf_layer_set *set, size_t i);
void sf_layer_set_free(sf_layer_set *set);

#endif
