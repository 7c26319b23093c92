/* proto_winscope_sf_rects: the layer and input trace rects of a
 * SurfaceFlinger layers snapshot and its layers' visibility args
 * (proto_winscope_sf_geom.h). */
#include <stdio.h>
#include <string.h>

#include "import/proto/proto_winscope_sf_geom.h"
#include "import/proto/proto_winscope_sf_layer.h"
#include "model/model.h"
#include "model/winscope_sf.h"

/* InputWindowInfoProto fields and InputConfig flags. */
enum { INPUT_FRAME = 3, INPUT_TOUCHABLE_REGION = 4, INPUT_VISIBLE = 6, INPUT_CONFIG = 17 };
enum { INPUT_NOT_TOUCHABLE = 1 << 3, INPUT_IS_WALLPAPER = 1 << 6, INPUT_SPY = 1 << 14 };
enum { SF_MAX_INVALID_BOUNDS = 64 };

/* Per layer stack: the display rect (when a display has the stack) and the
 * display transform; and the next depth of layer and input rects. */
typedef struct sf_stack {
  int64_t stack;
  uint8_t has_display, has_transform;
  sf_rect display;
  sf_matrix transform;
  int64_t depth_bounds, depth_input;
} sf_stack;

typedef struct sf_rects {
  import_file *f;
  proto_sf_state *s;
  sf_layer_set *set;
  VEC(sf_stack) stacks;
  sf_rect invalid[SF_MAX_INVALID_BOUNDS];
  size_t n_invalid;
} sf_rects;

static sf_stack *sf_stack_get(sf_rects *c, int64_t stack) {
  for (size_t i = 0; i < c->stacks.len; i++)
    if (c->stacks.data[i].stack == stack) return &c->stacks.data[i];
  sf_stack st;
  memset(&st, 0, sizeof st);
  st.stack = stack;
  if (VEC_PUSH(c->stacks, st)) return NULL;
  return &c->stacks.data[c->stacks.len - 1];
}

/* A display's size, w and h swapped by a 90 or 270 degree rotation. */
static void sf_display_size(proto_span d, double *w, double *h) {
  proto_field fl;
  *w = *h = 0;
  if (!sf_msg_field(d, SF_DISPLAY_SIZE, PROTO_WIRE_LEN, &fl)) return;
  *w = (int32_t)sf_msg_int(fl.span, 1);
  *h = (int32_t)sf_msg_int(fl.span, 2);
  if (sf_msg_field(d, SF_DISPLAY_TRANSFORM, PROTO_WIRE_LEN, &fl) &&
      ((int32_t)sf_msg_int(fl.span, 5) & SF_TRANSFORM_ROT_90)) {
    double t = *w;
    *w = *h;
    *h = t;
  }
}

/* The bounds SurfaceFlinger gives layers without any: +-10 times a size,
 * as is and rotated. */
static void sf_invalid_from_size(sf_rects *c, double w, double h) {
  double x = w * 10, y = h * 10;
  if (c->n_invalid + 2 > SF_MAX_INVALID_BOUNDS) return;
  c->invalid[c->n_invalid++] = (sf_rect){-x, -y, 2 * x, 2 * y};
  c->invalid[c->n_invalid++] = (sf_rect){-y, -x, 2 * y, 2 * x};
}

/* A display's transform (identity without a layer stack), moved by its
 * layer stack space rect's size when it flips both ways (180 and 270
 * degrees: right and down) or else rotates by 90 (down). */
static sf_matrix sf_display_matrix(proto_span d, int has_stack) {
  proto_field fl, type_fl, rect;
  sf_matrix m = {1, 0, 0, 0, 1, 0};
  if (!sf_msg_field(d, SF_DISPLAY_TRANSFORM, PROTO_WIRE_LEN, &fl)) return m;
  int32_t type = (int32_t)sf_msg_int(fl.span, 5);
  if (has_stack && !(type & (SF_TRANSFORM_ROT_INVALID | SF_TRANSFORM_SCALE))) {
    m = sf_matrix_from_type(type, 0, 0);
  } else if (has_stack) {
    m.dsdx = sf_msg_float(fl.span, 1);
    m.dtdx = sf_msg_float(fl.span, 3);
    m.dtdy = sf_msg_float(fl.span, 2);
    m.dsdy = sf_msg_float(fl.span, 4);
  }
  if (!sf_msg_field(fl.span, 5, PROTO_WIRE_VARINT, &type_fl) ||
      !sf_msg_field(d, SF_DISPLAY_LAYER_STACK_SPACE_RECT, PROTO_WIRE_LEN, &rect))
    return m;
  sf_rect r = sf_geom_rect_proto(rect.span);
  const int32_t flips = SF_TRANSFORM_FLIP_H | SF_TRANSFORM_FLIP_V;
  if ((type & flips) == flips) {
    m.tx = r.w;
    m.ty = r.h;
  } else if (type & SF_TRANSFORM_ROT_90) {
    m.ty = r.h;
  }
  return m;
}

static int sf_displays_scan(sf_rects *c, proto_span snapshot) {
  double max_w = 0, max_h = 0;
  int any = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, snapshot);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != SF_SNAPSHOT_DISPLAYS || fl.wire_type != PROTO_WIRE_LEN) continue;
    any = 1;
    double w, h;
    sf_display_size(fl.span, &w, &h);
    sf_invalid_from_size(c, w, h);
    if (w > max_w) max_w = w;
    if (h > max_h) max_h = h;
    proto_field st, rect;
    int has_stack = sf_msg_field(fl.span, SF_DISPLAY_LAYER_STACK, PROTO_WIRE_VARINT, &st);
    sf_stack *s = sf_stack_get(c, has_stack ? (uint32_t)st.value : 0);
    if (!s) return WEFT_ENOMEM;
    s->has_transform = 1;
    s->transform = sf_display_matrix(fl.span, has_stack);
    if (!has_stack) continue;
    s->has_display = 1;
    s->display = (sf_rect){0, 0, 0, 0};
    if (sf_msg_field(fl.span, SF_DISPLAY_LAYER_STACK_SPACE_RECT, PROTO_WIRE_LEN, &rect))
      s->display = sf_geom_rect_proto(rect.span);
    s->depth_bounds = s->depth_input = 1;
  }
  if (any) sf_invalid_from_size(c, max_w, max_h);
  return WEFT_OK;
}

static int sf_is_invalid_bounds(const sf_rects *c, sf_rect r) {
  for (size_t i = 0; i < c->n_invalid; i++)
    if (sf_geom_almost_equal(r, c->invalid[i])) return 1;
  return 0;
}

/* The row of transform m, added once per value. */
static int sf_transform_id(sf_rects *c, const sf_matrix *m, int64_t *id) {
  double v[6] = {m->dsdx + 0.0, m->dtdx + 0.0, m->tx + 0.0, m->dtdy + 0.0, m->dsdy + 0.0,
                 m->ty + 0.0};
  uint64_t key = base_hash_bytes(v, sizeof v), *slot;
  if (key == UINT64_MAX) key = 0;
  int inserted = base_map_insert(proto_sf_transforms(c->s), key, 0, &slot);
  if (inserted < 0) return WEFT_ENOMEM;
  if (inserted) {
    uint32_t row;
    int rc = model_winscope_transform_add(c->f->ctx, v, &row);
    if (rc) return rc;
    *slot = row;
  }
  *id = (int64_t)*slot;
  return WEFT_OK;
}

/* ---- layer (bounds) rects ---- */

static int sf_bounds_rect_row(sf_rects *c, const sf_layer *l, int visible, int64_t depth,
                              int64_t *out) {
  model_winscope_trace_rect tr;
  memset(&tr, 0, sizeof tr);
  tr.group_id = l->layer_stack;
  tr.depth = depth;
  tr.is_visible = (uint8_t)visible;
  tr.has_opacity = (l->has_color && l->has_color_alpha) || visible;
  tr.opacity = l->has_color && l->has_color_alpha ? l->color[3] : 0;
  if (l->has_border_settings && sf_msg_float(l->border_settings, 1) > 0) {
    tr.has_border = 1;
    tr.border_width = sf_msg_float(l->border_settings, 1);
    tr.border_color = (uint32_t)sf_msg_int(l->border_settings, 2);
  }
  sf_matrix m = sf_layer_matrix(l);
  sf_rect bounds = l->has_bounds ? l->bounds : (sf_rect){0, 0, 0, 0};
  int rc = sf_geom_rect_id(c->f, c->s, bounds, &tr.rect_id);
  if (!rc) rc = sf_transform_id(c, &m, &tr.transform_id);
  uint32_t row = 0;
  if (!rc) rc = model_winscope_trace_rect_add(c->f->ctx, &tr, &row);
  *out = row;
  return rc;
}

static int sf_bounds_rect(sf_rects *c, const sf_layer *l, sf_layer_result *res) {
  if (!l->has_id || !l->has_screen_bounds) return WEFT_OK;
  sf_stack *st = sf_stack_get(c, l->layer_stack); /* absent: 0 */
  if (!st) return WEFT_ENOMEM;
  static const sf_rect default_invalid = {-50000, -50000, 100000, 100000};
  if (!res->is_visible && (sf_is_invalid_bounds(c, l->screen_bounds) ||
                           sf_geom_almost_equal(l->screen_bounds, default_invalid)))
    return WEFT_OK;
  int64_t depth = st->depth_bounds;
  st->depth_bounds = depth + 1;
  return sf_bounds_rect_row(c, l, res->is_visible, depth, &res->layer_rect);
}

/* ---- input rects ---- */

static sf_rect sf_to_layer_space(sf_rect r, const sf_stack *st, const sf_matrix *inverse) {
  if (st->has_transform) r = sf_matrix_apply(&st->transform, r);
  return sf_matrix_apply(inverse, r);
}

/* The fill region of an input rect: empty (one empty rect) when not
 * touchable, else its touchable region's rects in layer space, cropped to
 * the display when the frame was. */
static int sf_fill_region(sf_rects *c, const sf_layer *l, const sf_stack *st,
                          const sf_matrix *inverse, const sf_rect *crop, int64_t trace_rect) {
  uint32_t config = (uint32_t)sf_msg_int(l->input_window_info, INPUT_CONFIG);
  proto_field region;
  int touchable = !(config & INPUT_NOT_TOUCHABLE);
  if (touchable && !sf_msg_field(l->input_window_info, INPUT_TOUCHABLE_REGION, PROTO_WIRE_LEN,
                                 &region))
    return WEFT_OK;
  int rc = WEFT_OK, n = 0;
  int64_t rect_id;
  if (touchable) {
    proto_reader r;
    proto_field fl;
    proto_reader_init_span(&r, region.span);
    while (!rc && proto_reader_next(&r, &fl) == 1) {
      if (fl.number != 2 || fl.wire_type != PROTO_WIRE_LEN) continue;
      sf_rect rect = sf_to_layer_space(sf_geom_rect_proto(fl.span), st, inverse);
      if (crop) rect = sf_geom_crop(rect, *crop);
      rc = sf_geom_rect_id(c->f, c->s, rect, &rect_id);
      if (!rc) rc = model_winscope_fill_region_add(c->f->ctx, trace_rect, rect_id);
      n++;
    }
  }
  if (rc || n) return rc;
  rc = sf_geom_rect_id(c->f, c->s, (sf_rect){0, 0, 0, 0}, &rect_id);
  return rc ? rc : model_winscope_fill_region_add(c->f->ctx, trace_rect, rect_id);
}

static int sf_input_rect(sf_rects *c, const sf_layer *l, sf_layer_result *res) {
  if (!l->has_id || !l->has_input_window_info) return WEFT_OK;
  sf_stack *st = sf_stack_get(c, l->layer_stack); /* absent: 0 */
  if (!st) return WEFT_ENOMEM;
  proto_span info = l->input_window_info;
  sf_matrix m = sf_layer_matrix(l), inverse = sf_matrix_inverse(&m);
  sf_rect frame = {0, 0, 0, 0};
  proto_field fl;
  if (sf_msg_field(info, INPUT_FRAME, PROTO_WIRE_LEN, &fl))
    frame = sf_to_layer_space(sf_geom_rect_proto(fl.span), st, &inverse);
  uint32_t config = (uint32_t)sf_msg_int(info, INPUT_CONFIG);
  int crop = st->has_display && (sf_geom_rect_empty(frame) || (config & INPUT_IS_WALLPAPER) ||
                                 sf_is_invalid_bounds(c, frame));
  if (crop) frame = sf_geom_crop(frame, st->display);
  model_winscope_trace_rect tr;
  memset(&tr, 0, sizeof tr);
  tr.group_id = l->layer_stack;
  tr.depth = st->depth_input++;
  tr.is_spy = (config & INPUT_SPY) != 0;
  tr.is_visible = sf_msg_field(info, INPUT_VISIBLE, PROTO_WIRE_VARINT, &fl) ? fl.value != 0
                                                                            : res->is_visible;
  int rc = sf_geom_rect_id(c->f, c->s, frame, &tr.rect_id);
  if (!rc) rc = sf_transform_id(c, &m, &tr.transform_id);
  uint32_t row = 0;
  if (!rc) rc = model_winscope_trace_rect_add(c->f->ctx, &tr, &row);
  res->input_rect = row;
  if (!rc) rc = sf_fill_region(c, l, st, &inverse, crop ? &st->display : NULL, row);
  return rc;
}

int sf_rects_compute(import_file *f, proto_sf_state *s, proto_span snapshot, sf_layer_set *set,
                     const uint32_t *top_to_bottom, size_t n) {
  sf_rects c;
  memset(&c, 0, sizeof c);
  c.f = f;
  c.s = s;
  c.set = set;
  int rc = sf_displays_scan(&c, snapshot);
  for (size_t k = n; !rc && k-- > 0;) {
    uint32_t i = top_to_bottom[k];
    const sf_layer *l = &set->items.data[i];
    rc = sf_bounds_rect(&c, l, &set->res.data[i]);
    if (!rc) rc = sf_input_rect(&c, l, &set->res.data[i]);
  }
  VEC_FREE(c.stacks);
  return rc;
}

/* ---- visibility args ---- */

static int sf_reason(import_file *f, int *n, const char *text) {
  char key[48];
  int len = snprintf(key, sizeof key, "visibility_reason[%d]", (*n)++);
  return model_arg_string(f->ctx, key, (size_t)len, text, strlen(text), MODEL_ARG_STRING);
}

static int sf_reasons(import_file *f, const sf_layer_set *set, size_t i,
                      const sf_layer_result *res, int excludes);

int sf_layer_set_args(import_file *f, proto_span snapshot, const sf_layer_set *set, size_t i) {
  static const char *const names[3] = {"occluded_by", "partially_occluded_by", "covered_by"};
  const sf_layer_result *res = &set->res.data[i];
  if (!res->ordered) return WEFT_OK;
  proto_field fl;
  int excludes = !sf_msg_field(snapshot, SF_SNAPSHOT_EXCLUDES_COMPOSITION, PROTO_WIRE_VARINT,
                               &fl) || fl.value != 0;
  int rc = res->is_visible ? WEFT_OK : sf_reasons(f, set, i, res, excludes);
  for (int kind = 0; !rc && kind < 3; kind++)
    for (uint32_t j = 0; !rc && j < res->blocking[kind][1]; j++) {
      char key[48];
      int len = snprintf(key, sizeof key, "%s[%u]", names[kind], j);
      rc = model_arg_int(f->ctx, key, (size_t)len, MODEL_ARG_INT,
                         set->blocking.data[res->blocking[kind][0] + j]);
    }
  return rc;
}

static int sf_reasons(import_file *f, const sf_layer_set *set, size_t i,
                      const sf_layer_result *res, int excludes) {
  const sf_layer *l = &set->items.data[i];
  int n = 0, rc = WEFT_OK;
  if (sf_layer_hidden_by_policy(l)) rc = sf_reason(f, &n, "flag is hidden");
  if (!rc && sf_layer_set_hidden_by_parent(set, i)) {
    char text[48];
    snprintf(text, sizeof text, "hidden by parent %d", (int)l->parent);
    rc = sf_reason(f, &n, text);
  }
  int buffer_empty = sf_layer_buffer_empty(l);
  if (!rc && buffer_empty) rc = sf_reason(f, &n, "buffer is empty");
  if (!rc && sf_layer_has_zero_alpha(l)) rc = sf_reason(f, &n, "alpha is 0");
  if (!rc && (!l->has_bounds || sf_geom_rect_empty(l->bounds))) {
    rc = sf_reason(f, &n, "bounds is 0x0");
    if (!rc && sf_layer_color_empty(l)) rc = sf_reason(f, &n, "crop is 0x0");
  }
  sf_matrix m = sf_layer_matrix(l);
  if (!rc && !sf_matrix_valid(&m)) rc = sf_reason(f, &n, "transform is invalid");
  if (!rc && buffer_empty && !sf_layer_has_effects(l) && !(l->background_blur_radius > 0))
    rc = sf_reason(f, &n, "does not have color fill, shadow or blur");
  if (!rc && l->has_visible_region && !sf_layer_has_nonempty_visible_region(l))
    rc = sf_reason(f, &n, "visible region calculated by Composition Engine is empty");
  if (!rc && !l->has_visible_region && !excludes) rc = sf_reason(f, &n, "null visible region");
  if (!rc && res->blocking[0][1]) rc = sf_reason(f, &n, "occluded");
  return rc;
}
