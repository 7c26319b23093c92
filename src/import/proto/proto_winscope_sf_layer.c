/* proto_winscope_sf_layer: LayerProto decoding and the geometry of layers
 * snapshots (proto_winscope_sf_layer.h). */
#include "import/proto/proto_winscope_sf_layer.h"

#include <math.h>
#include <string.h>

#define SF_OFFSCREEN_ROOT_ID 0x7ffffffd
#define SF_LAYER_FLAG_HIDDEN 0x1

/* LayerProto fields read by the computations. */
enum {
  L_ID = 1, L_VISIBLE_REGION = 7, L_LAYER_STACK = 9, L_Z = 10, L_POSITION = 11,
  L_IS_OPAQUE = 16, L_COLOR = 20, L_FLAGS = 22, L_TRANSFORM = 23, L_PARENT = 25,
  L_Z_ORDER_RELATIVE_OF = 26, L_ACTIVE_BUFFER = 27, L_CORNER_RADIUS = 41, L_BOUNDS = 45,
  L_SCREEN_BOUNDS = 46, L_INPUT_WINDOW_INFO = 47, L_SHADOW_RADIUS = 49,
  L_BACKGROUND_BLUR_RADIUS = 52, L_BORDER_SETTINGS = 66,
};

int sf_msg_field(proto_span msg, uint32_t number, int wire, proto_field *fl) {
  return proto_find_last(msg.data, msg.len, number, fl) == 1 && fl->wire_type == wire;
}

uint64_t sf_msg_int(proto_span msg, uint32_t number) {
  proto_field fl;
  return sf_msg_field(msg, number, PROTO_WIRE_VARINT, &fl) ? fl.value : 0;
}

float sf_msg_float(proto_span msg, uint32_t number) {
  proto_field fl;
  return sf_msg_field(msg, number, PROTO_WIRE_FIXED32, &fl) ? proto_field_float(&fl) : 0.0f;
}

static void sf_read_color(sf_layer *l, proto_span c) {
  l->has_color = 1;
  for (uint32_t i = 0; i < 4; i++) l->color[i] = sf_msg_float(c, i + 1);
  proto_field fl;
  l->has_color_alpha = (uint8_t)sf_msg_field(c, 4, PROTO_WIRE_FIXED32, &fl);
}

static void sf_read_transform(sf_layer *l, proto_span t) {
  l->has_transform = 1;
  for (uint32_t i = 0; i < 4; i++) l->transform[i] = sf_msg_float(t, i + 1);
  l->transform_type = (int32_t)sf_msg_int(t, 5);
}

static void sf_read_buffer(sf_layer *l, proto_span b) {
  l->has_buffer = 1;
  l->buffer[0] = (int32_t)sf_msg_int(b, 1);
  l->buffer[1] = (int32_t)sf_msg_int(b, 2);
  l->buffer[2] = (int32_t)sf_msg_int(b, 3);
  l->buffer[3] = (int32_t)sf_msg_int(b, 4);
}

static void sf_read_len(sf_layer *l, const proto_field *fl) {
  switch (fl->number) {
    case L_VISIBLE_REGION: l->visible_region = fl->span; l->has_visible_region = 1; break;
    case L_POSITION:
      l->has_position = 1;
      l->position[0] = sf_msg_float(fl->span, 1);
      l->position[1] = sf_msg_float(fl->span, 2);
      break;
    case L_COLOR: sf_read_color(l, fl->span); break;
    case L_TRANSFORM: sf_read_transform(l, fl->span); break;
    case L_ACTIVE_BUFFER: sf_read_buffer(l, fl->span); break;
    case L_BOUNDS: l->bounds = sf_geom_float_rect(fl->span); l->has_bounds = 1; break;
    case L_SCREEN_BOUNDS:
      l->screen_bounds = sf_geom_float_rect(fl->span);
      l->has_screen_bounds = 1;
      break;
    case L_INPUT_WINDOW_INFO: l->input_window_info = fl->span; l->has_input_window_info = 1; break;
    case L_BORDER_SETTINGS: l->border_settings = fl->span; l->has_border_settings = 1; break;
    default: break;
  }
}

static void sf_read_scalar(sf_layer *l, const proto_field *fl) {
  int32_t v = (int32_t)fl->value;
  switch (fl->number) {
    case L_ID: l->id = v; l->has_id = 1; break;
    case L_LAYER_STACK: l->layer_stack = (uint32_t)fl->value; l->has_layer_stack = 1; break;
    case L_Z: l->z = v; break;
    case L_IS_OPAQUE: l->is_opaque = fl->value != 0; l->has_is_opaque = 1; break;
    case L_FLAGS: l->flags = (uint32_t)fl->value; break;
    case L_PARENT: l->parent = v; l->has_parent = 1; break;
    case L_Z_ORDER_RELATIVE_OF: l->z_relative_of = v; break;
    case L_BACKGROUND_BLUR_RADIUS: l->background_blur_radius = v; break;
    default: break;
  }
}

void sf_layer_read(proto_span msg, sf_layer *l) {
  memset(l, 0, sizeof *l);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type == PROTO_WIRE_LEN) sf_read_len(l, &fl);
    else if (fl.wire_type == PROTO_WIRE_VARINT) sf_read_scalar(l, &fl);
    else if (fl.wire_type == PROTO_WIRE_FIXED32 && fl.number == L_CORNER_RADIUS)
      l->corner_radius = proto_field_float(&fl);
    else if (fl.wire_type == PROTO_WIRE_FIXED32 && fl.number == L_SHADOW_RADIUS)
      l->shadow_radius = proto_field_float(&fl);
  }
}

int sf_layer_is_root(const sf_layer *l) { return !l->has_parent || l->parent == -1; }

int sf_layer_hidden_by_policy(const sf_layer *l) {
  return (l->flags & SF_LAYER_FLAG_HIDDEN) || l->id == SF_OFFSCREEN_ROOT_ID;
}

int sf_layer_buffer_empty(const sf_layer *l) {
  return !l->has_buffer || (l->buffer[3] <= 0 && l->buffer[1] <= 0 && l->buffer[2] <= 0 &&
                            l->buffer[0] <= 0);
}

int sf_layer_has_effects(const sf_layer *l) {
  if (l->shadow_radius > 0) return 1;
  if (!l->has_color || l->color[3] <= 0) return 0;
  return !(l->color[0] < 0 || l->color[1] < 0 || l->color[2] < 0);
}

int sf_layer_has_zero_alpha(const sf_layer *l) {
  return !l->has_color || (l->color[3] <= 0 && l->color[3] > -1);
}

int sf_layer_color_empty(const sf_layer *l) {
  if (!l->has_color) return 1;
  return (l->color[3] <= 0 && l->color[3] > -1) || l->color[0] < 0 || l->color[1] < 0 ||
         l->color[2] < 0;
}

int sf_layer_is_opaque(const sf_layer *l) {
  return l->has_color && l->color[3] >= 1 && l->has_is_opaque && l->is_opaque;
}

int sf_layer_has_nonempty_visible_region(const sf_layer *l) {
  if (!l->has_visible_region) return 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, l->visible_region);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == 2 && fl.wire_type == PROTO_WIRE_LEN &&
        !sf_geom_rect_empty(sf_geom_rect_proto(fl.span)))
      return 1;
  return 0;
}

sf_matrix sf_layer_matrix(const sf_layer *l) {
  sf_matrix m = {1, 0, 0, 0, 1, 0};
  if (l->has_position) {
    m.tx = l->position[0];
    m.ty = l->position[1];
  }
  if (!l->has_transform) return m;
  if (!(l->transform_type & (SF_TRANSFORM_ROT_INVALID | SF_TRANSFORM_SCALE)))
    return sf_matrix_from_type(l->transform_type, m.tx, m.ty);
  /* as winscope reads a TransformProto: fields 1, 3, 2, 4 */
  m.dsdx = l->transform[0];
  m.dtdx = l->transform[2];
  m.dtdy = l->transform[1];
  m.dsdy = l->transform[3];
  return m;
}

/* ---- geometry ---- */

sf_rect sf_geom_float_rect(proto_span msg) {
  double l = sf_msg_float(msg, 1), t = sf_msg_float(msg, 2);
  double r = sf_msg_float(msg, 3), b = sf_msg_float(msg, 4);
  return (sf_rect){l, t, r - l, b - t};
}

/* The first argument unless the second is ordered past it (so a NaN first
 * argument stays). */
static double sf_max(double a, double b) { return a < b ? b : a; }
static double sf_min(double a, double b) { return b < a ? b : a; }
static int sf_close(double a, double b) { return fabs(a - b) < 0.01; }

sf_rect sf_geom_crop(sf_rect a, sf_rect c) {
  double l = sf_max(a.x, c.x), t = sf_max(a.y, c.y);
  double r = sf_min(a.x + a.w, c.x + c.w), b = sf_min(a.y + a.h, c.y + c.h);
  return (sf_rect){l, t, r - l, b - t};
}

int sf_geom_contains(sf_rect a, sf_rect b) {
  double ar = a.x + a.w, br = b.x + b.w, ab = a.y + a.h, bb = b.y + b.h;
  return !sf_geom_rect_empty(a) && (a.x <= b.x || sf_close(a.x, b.x)) &&
         (a.y <= b.y || sf_close(a.y, b.y)) && (ar >= br || sf_close(ar, br)) &&
         (ab >= bb || sf_close(ab, bb));
}

/* Overlap as winscope computes it: x strictly, y touching edges included,
 * then a non-empty clipped size (width and height of b when a exceeds it). */
int sf_geom_intersects(sf_rect a, sf_rect b) {
  if (!(a.x < b.x + b.w && b.x < a.x + a.w && a.y <= b.y + b.h && b.y <= a.y + a.h)) return 0;
  sf_rect n = a;
  if (a.x < b.x) n.x = b.x;
  if (a.y < b.y) n.y = b.y;
  if (a.x + a.w > b.x + b.w) n.w = b.w;
  if (a.y + a.h > b.y + b.h) n.h = b.h;
  return !sf_geom_rect_empty(n);
}

int sf_geom_almost_equal(sf_rect a, sf_rect b) {
  return sf_close(a.x, b.x) && sf_close(a.y, b.y) && sf_close(a.w, b.w) && sf_close(a.h, b.h);
}

sf_matrix sf_matrix_from_type(int32_t type, double x, double y) {
  const int32_t flips = SF_TRANSFORM_FLIP_H | SF_TRANSFORM_FLIP_V;
  if ((type & (SF_TRANSFORM_ROT_90 | flips)) == (SF_TRANSFORM_ROT_90 | flips) && type)
    return (sf_matrix){0, -1, x, 1, 0, y};
  if ((type & flips) == flips && type) return (sf_matrix){-1, 0, x, 0, -1, y};
  if (type & SF_TRANSFORM_ROT_90) return (sf_matrix){0, 1, x, -1, 0, y};
  return (sf_matrix){1, 0, x, 0, 1, y};
}

static void sf_matrix_point(const sf_matrix *m, double x, double y, double *ox, double *oy) {
  *ox = m->dsdx * x + m->dtdx * y + m->tx;
  *oy = m->dtdy * x + m->dsdy * y + m->ty;
}

sf_rect sf_matrix_apply(const sf_matrix *m, sf_rect r) {
  double x1, y1, x2, y2;
  sf_matrix_point(m, r.x, r.y, &x1, &y1);
  sf_matrix_point(m, r.x + r.w, r.y + r.h, &x2, &y2);
  double l = sf_min(x1, x2), t = sf_min(y1, y2);
  return (sf_rect){l, t, sf_max(x1, x2) - l, sf_max(y1, y2) - t};
}

sf_matrix sf_matrix_inverse(const sf_matrix *m) {
  double k = 1.0 / (m->dsdx * m->dsdy - m->dtdx * m->dtdy);
  sf_matrix inv = {m->dsdy * k, -m->dtdx * k, 0, -m->dtdy * k, m->dsdx * k, 0};
  double tx, ty;
  sf_matrix_point(&inv, -m->tx, -m->ty, &tx, &ty);
  inv.tx = tx;
  inv.ty = ty;
  return inv;
}

int sf_matrix_valid(const sf_matrix *m) {
  return !(fabs(m->dsdx * m->dsdy - m->dtdx * m->dtdy) < 0.000001);
}
