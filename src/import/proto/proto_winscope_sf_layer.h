/* proto_winscope_sf_layer: a SurfaceFlinger LayerProto decoded once for
 * the snapshot computations, and the geometry they use (rects as x, y, w,
 * h; 2D affine transforms). Internal to proto_winscope_sf*.c. */
#ifndef WEFT_PROTO_WINSCOPE_SF_LAYER_H
#define WEFT_PROTO_WINSCOPE_SF_LAYER_H

#include "import/proto/proto_wire.h"
#include "import/proto/proto_winscope_sf_geom.h"

enum {
  SF_SNAPSHOT_EXCLUDES_COMPOSITION = 5, SF_SNAPSHOT_DISPLAYS = 7,
  SF_DISPLAY_LAYER_STACK = 3, SF_DISPLAY_SIZE = 4, SF_DISPLAY_LAYER_STACK_SPACE_RECT = 5,
  SF_DISPLAY_TRANSFORM = 6,
};
/* TransformProto.type flags. */
enum {
  SF_TRANSFORM_SCALE = 0x4, SF_TRANSFORM_FLIP_H = 0x100, SF_TRANSFORM_FLIP_V = 0x200,
  SF_TRANSFORM_ROT_90 = 0x400, SF_TRANSFORM_ROT_INVALID = 0x8000,
};

/* dsdx, dtdx, tx, dtdy, dsdy, ty: x' = dsdx x + dtdx y + tx,
 * y' = dtdy x + dsdy y + ty. */
typedef struct sf_matrix {
  double dsdx, dtdx, tx, dtdy, dsdy, ty;
} sf_matrix;

typedef struct sf_layer {
  proto_span input_window_info, border_settings, visible_region;
  int32_t id, parent, z, z_relative_of, transform_type, background_blur_radius;
  uint32_t layer_stack, flags;
  float color[4], corner_radius, shadow_radius, position[2], transform[4];
  int32_t buffer[4]; /* width, height, stride, format */
  sf_rect bounds, screen_bounds;
  uint8_t has_id, has_parent, has_layer_stack, has_color, has_color_alpha, has_bounds;
  uint8_t has_screen_bounds, has_visible_region, has_buffer, has_is_opaque, is_opaque;
  uint8_t has_transform, has_position, has_input_window_info, has_border_settings;
} sf_layer;

void sf_layer_read(proto_span msg, sf_layer *l);
int sf_layer_is_root(const sf_layer *l);
int sf_layer_hidden_by_policy(const sf_layer *l);
int sf_layer_buffer_empty(const sf_layer *l);
int sf_layer_has_effects(const sf_layer *l);
int sf_layer_has_zero_alpha(const sf_layer *l);
int sf_layer_color_empty(const sf_layer *l);
int sf_layer_is_opaque(const sf_layer *l);
int sf_layer_has_nonempty_visible_region(const sf_layer *l);
/* The layer's transform from its position and transform. */
sf_matrix sf_layer_matrix(const sf_layer *l);

/* Helpers on raw messages: field `number` with wire type `wire`; a varint
 * field's value (absent 0); a float field's (absent 0). */
int sf_msg_field(proto_span msg, uint32_t number, int wire, proto_field *fl);
uint64_t sf_msg_int(proto_span msg, uint32_t number);
float sf_msg_float(proto_span msg, uint32_t number);

/* ---- geometry ---- */
sf_rect sf_geom_float_rect(proto_span msg); /* FloatRectProto */
sf_rect sf_geom_crop(sf_rect a, sf_rect crop);
int sf_geom_contains(sf_rect a, sf_rect b);
int sf_geom_intersects(sf_rect a, sf_rect b);
int sf_geom_almost_equal(sf_rect a, sf_rect b);
sf_matrix sf_matrix_from_type(int32_t type, double x, double y);
sf_rect sf_matrix_apply(const sf_matrix *m, sf_rect r);
sf_matrix sf_matrix_inverse(const sf_matrix *m);
int sf_matrix_valid(const sf_matrix *m);

/* The layer and input trace rects, bottom to top (proto_winscope_sf_rects.c). */
int sf_rects_compute(import_file *f, proto_sf_state *s, proto_span snapshot, sf_layer_set *set,
                     const uint32_t *top_to_bottom, size_t n);

#endif
