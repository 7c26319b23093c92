/* proto_winscope_sf_layers: SurfaceFlinger layers snapshots
 * (proto_winscope_sf.h). */
#include <string.h>

#include "base/base.h"
#include "import/proto/proto_args.h"
#include "import/proto/proto_winscope.h"
#include "import/proto/proto_winscope_sf.h"
#include "import/proto/proto_winscope_sf_geom.h"
#include "model/winscope_sf.h"

#define SF_LAYERS_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define SF_INVALID_LAYER_STACK 0xffffffffu
#define SF_OFFSCREEN_ROOT_ID 0x7ffffffd
#define SF_LAYER_FLAG_HIDDEN 0x1

enum { PACKET_SEQUENCE_ID = 10 };
enum {
  SNAP_ELAPSED = 1, SNAP_LAYERS = 3, SNAP_DISPLAYS = 7, LAYERS_LAYER = 1,
};
enum {
  DISPLAY_ID = 1, DISPLAY_NAME = 2, DISPLAY_LAYER_STACK = 3, DISPLAY_SIZE = 4,
  DISPLAY_LAYER_STACK_SPACE_RECT = 5, DISPLAY_TRANSFORM = 6, DISPLAY_IS_VIRTUAL = 7,
};
enum {
  LAYER_ID = 1, LAYER_NAME = 2, LAYER_FLAGS = 22, LAYER_PARENT = 25,
  LAYER_Z_ORDER_RELATIVE_OF = 26, LAYER_HWC_COMPOSITION_TYPE = 35, LAYER_CORNER_RADIUS = 41,
  LAYER_CORNER_RADII = 61,
};
enum { TRANSFORM_TYPE = 5, TRANSFORM_ROT_90 = 0x400 };

/* Field `number` of msg when present with wire type `wire`. */
static int sf_field(proto_span msg, uint32_t number, int wire, proto_field *fl) {
  return proto_find_last(msg.data, msg.len, number, fl) == 1 && fl->wire_type == wire;
}

static int64_t sf_int(proto_span msg, uint32_t number, int *has) {
  proto_field fl;
  *has = sf_field(msg, number, PROTO_WIRE_VARINT, &fl);
  return *has ? (int64_t)fl.value : 0;
}

static float sf_float(proto_span msg, uint32_t number) {
  proto_field fl;
  return sf_field(msg, number, PROTO_WIRE_FIXED32, &fl) ? proto_field_float(&fl) : 0.0f;
}

/* ---- displays ---- */

/* A display's rect: its layer stack space rect, or when that is empty its
 * size (w and h swapped by a 90 or 270 degree rotation). */
static sf_rect sf_display_rect(proto_span d) {
  proto_field fl;
  sf_rect r = {0, 0, 0, 0};
  if (sf_field(d, DISPLAY_LAYER_STACK_SPACE_RECT, PROTO_WIRE_LEN, &fl)) r = sf_geom_rect_proto(fl.span);
  if (!sf_geom_rect_empty(r)) return r;
  r = (sf_rect){0, 0, 0, 0};
  if (!sf_field(d, DISPLAY_SIZE, PROTO_WIRE_LEN, &fl)) return r;
  int has;
  r.w = (int32_t)sf_int(fl.span, 1, &has);
  r.h = (int32_t)sf_int(fl.span, 2, &has);
  proto_field tf;
  if (sf_field(d, DISPLAY_TRANSFORM, PROTO_WIRE_LEN, &tf) &&
      (sf_int(tf.span, TRANSFORM_TYPE, &has) & TRANSFORM_ROT_90)) {
    double w = r.w;
    r.w = r.h;
    r.h = w;
  }
  return r;
}

static int sf_display(import_file *f, proto_sf_state *s, uint32_t snapshot, uint32_t index,
                      proto_span d) {
  model_sf_display disp;
  memset(&disp, 0, sizeof disp);
  disp.snapshot_id = snapshot;
  int has;
  disp.is_virtual = sf_int(d, DISPLAY_IS_VIRTUAL, &has) != 0;
  uint32_t stack = (uint32_t)sf_int(d, DISPLAY_LAYER_STACK, &has);
  disp.is_on = stack != SF_INVALID_LAYER_STACK; /* absent: stack 0, on */
  disp.display_id = sf_int(d, DISPLAY_ID, &has);
  proto_field fl;
  int rc = WEFT_OK;
  if (sf_field(d, DISPLAY_NAME, PROTO_WIRE_LEN, &fl))
    rc = ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, &disp.name);
  model_winscope_trace_rect tr;
  memset(&tr, 0, sizeof tr);
  tr.group_id = stack;
  tr.depth = index;
  uint32_t trace_rect = 0;
  if (!rc) rc = sf_geom_rect_id(f, s, sf_display_rect(d), &tr.rect_id);
  if (!rc) rc = model_winscope_trace_rect_add(f->ctx, &tr, &trace_rect);
  disp.trace_rect_id = trace_rect;
  if (!rc) rc = model_sf_display_add(f->ctx, &disp);
  return rc;
}

/* ---- layers ---- */

/* The four corner radii: corner_radii's when present, else corner_radius. */
static void sf_corner_radii(proto_span layer, double out[4]) {
  proto_field fl;
  if (sf_field(layer, LAYER_CORNER_RADII, PROTO_WIRE_LEN, &fl)) {
    for (uint32_t i = 0; i < 4; i++) out[i] = sf_float(fl.span, i + 1);
    return;
  }
  double r = sf_float(layer, LAYER_CORNER_RADIUS);
  for (int i = 0; i < 4; i++) out[i] = r;
}

static int sf_layer(import_file *f, const proto_packet_info *info, proto_span snap,
                    const sf_layer_set *set, size_t index, uint32_t snapshot) {
  proto_span layer = set->layers.data[index];
  const sf_layer_result *res = &set->res.data[index];
  model_sf_layer l;
  memset(&l, 0, sizeof l);
  l.snapshot_id = snapshot;
  l.is_visible = res->is_visible;
  l.layer_rect_id = res->layer_rect;
  l.input_rect_id = res->input_rect;
  int has;
  l.layer_id = (int32_t)sf_int(layer, LAYER_ID, &has);
  l.has_layer_id = (uint8_t)has;
  l.parent = (int32_t)sf_int(layer, LAYER_PARENT, &has);
  l.has_parent = (uint8_t)has;
  l.hwc_composition_type = (int32_t)sf_int(layer, LAYER_HWC_COMPOSITION_TYPE, &has);
  l.has_hwc_composition_type = (uint8_t)has;
  l.z_order_relative_of = (int32_t)sf_int(layer, LAYER_Z_ORDER_RELATIVE_OF, &has);
  l.has_z_order_relative_of = (uint8_t)has;
  l.is_missing_z_parent = has && l.z_order_relative_of > 0 &&
                          !sf_layer_set_has_id(set, (int32_t)l.z_order_relative_of);
  uint32_t flags = (uint32_t)sf_int(layer, LAYER_FLAGS, &has);
  l.is_hidden_by_policy = (flags & SF_LAYER_FLAG_HIDDEN) || l.layer_id == SF_OFFSCREEN_ROOT_ID;
  sf_corner_radii(layer, l.corner_radius);
  proto_field fl;
  int rc = WEFT_OK;
  if (sf_field(layer, LAYER_NAME, PROTO_WIRE_LEN, &fl))
    rc = ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, &l.name);
  if (!rc) rc = proto_args_message(f, info, ".perfetto.protos.LayerProto", layer);
  if (!rc) rc = sf_layer_set_args(f, snap, set, index);
  if (!rc) rc = model_args_commit(f->ctx, &l.arg_set);
  if (!rc) rc = proto_winscope_base64(f, layer, &l.base64_proto);
  if (!rc) rc = model_sf_layer_add(f->ctx, &l);
  return rc;
}

/* ---- snapshot ---- */

static int sf_snapshot_row(import_file *f, const proto_packet_info *info, int64_t ts,
                           proto_span msg, uint32_t *row) {
  /* every field but the layers */
  static const uint32_t arg_fields[] = {1, 2, 4, 5, 6, 7, 8};
  model_sf_snapshot snap;
  memset(&snap, 0, sizeof snap);
  snap.ts = ts;
  proto_field fl;
  snap.has_invalid_elapsed_ts = !sf_field(msg, SNAP_ELAPSED, PROTO_WIRE_FIXED64, &fl) ||
                                fl.value == 0;
  int has;
  snap.sequence_id = (uint32_t)sf_int(info->data, PACKET_SEQUENCE_ID, &has);
  snap.has_sequence_id = (uint8_t)has;
  int rc = proto_args_message_fields(f, info, ".perfetto.protos.LayersSnapshotProto", msg,
                                     arg_fields, SF_LAYERS_COUNT(arg_fields));
  if (!rc) rc = model_args_commit(f->ctx, &snap.arg_set);
  if (!rc) rc = proto_winscope_base64(f, msg, &snap.base64_proto);
  if (!rc) rc = model_sf_snapshot_add(f->ctx, &snap, row);
  return rc;
}

static int sf_displays(import_file *f, proto_sf_state *s, uint32_t snapshot, proto_span msg) {
  proto_reader r;
  proto_field fl;
  uint32_t index = 0;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == SNAP_DISPLAYS && fl.wire_type == PROTO_WIRE_LEN)
      rc = sf_display(f, s, snapshot, index++, fl.span);
  return rc;
}

/* Ordering, visibility and rects compare each layer with those above it
 * and look its display up among the snapshot's: quadratic, so past this
 * many layers or displays (a phone's snapshot holds hundreds of layers on
 * a few displays) a snapshot keeps its layer rows only. */
#define SF_MAX_ORDERED_LAYERS 16384u
#define SF_MAX_ORDERED_DISPLAYS 1024u

static size_t sf_display_count(proto_span snap) {
  proto_reader r;
  proto_field fl;
  size_t n = 0;
  proto_reader_init_span(&r, snap);
  while (proto_reader_next(&r, &fl) == 1)
    n += fl.number == SNAP_DISPLAYS && fl.wire_type == PROTO_WIRE_LEN;
  return n;
}

static int sf_layers(import_file *f, proto_sf_state *s, const proto_packet_info *info,
                     uint32_t snapshot, proto_span snap, proto_span layers) {
  sf_layer_set set;
  memset(&set, 0, sizeof set);
  int rc = sf_layer_set_build(layers, &set);
  if (!rc && (set.layers.len > SF_MAX_ORDERED_LAYERS ||
              sf_display_count(snap) > SF_MAX_ORDERED_DISPLAYS))
    rc = stats_add(&f->ctx->stats, stat_winscope_sf_layers_visibility_skipped, -1, 0,
                   f->trace_id, 1);
  else if (!rc)
    rc = sf_layer_set_compute(f, s, snap, &set);
  for (size_t i = 0; !rc && i < set.layers.len; i++)
    rc = sf_layer(f, info, snap, &set, i, snapshot);
  sf_layer_set_free(&set);
  return rc;
}

int proto_sf_layers_parse(import_file *f, proto_sf_state **state, const proto_packet_info *info,
                          int64_t ts, proto_span msg) {
  int rc = proto_sf_state_get(f, state);
  uint32_t snapshot = 0;
  if (!rc) rc = sf_snapshot_row(f, info, ts, msg, &snapshot);
  if (!rc) rc = sf_displays(f, *state, snapshot, msg);
  proto_field fl;
  if (!rc && sf_field(msg, SNAP_LAYERS, PROTO_WIRE_LEN, &fl))
    rc = sf_layers(f, *state, info, snapshot, msg, fl.span);
  return rc;
}
