/* proto_winscope_sf_geom: layer order and visibility of a SurfaceFlinger
 * layers snapshot (proto_winscope_sf_geom.h). */
#include "import/proto/proto_winscope_sf_geom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/proto/proto_wire.h"
#include "model/model.h"
#include "model/winscope_sf.h"
#include "import/proto/proto_winscope_sf_layer.h"

/* ---- rects ---- */

sf_rect sf_geom_rect_proto(proto_span msg) {
  double l = (int32_t)sf_msg_int(msg, 1), t = (int32_t)sf_msg_int(msg, 2);
  double r = (int32_t)sf_msg_int(msg, 3), b = (int32_t)sf_msg_int(msg, 4);
  return (sf_rect){l, t, r - l, b - t};
}

int sf_geom_rect_empty(sf_rect r) { return r.w <= 0 || r.h <= 0; }

int sf_geom_rect_id(import_file *f, proto_sf_state *s, sf_rect r, int64_t *id) {
  double v[4] = {r.x + 0.0, r.y + 0.0, r.w + 0.0, r.h + 0.0}; /* -0 is 0 */
  uint64_t key = base_hash_bytes(v, sizeof v), *slot;
  if (key == UINT64_MAX) key = 0;
  int inserted = base_map_insert(proto_sf_rects(s), key, 0, &slot);
  if (inserted < 0) return WEFT_ENOMEM;
  if (!inserted) {
    *id = (int64_t)*slot;
    return WEFT_OK;
  }
  uint32_t row;
  int rc = model_winscope_rect_add(f->ctx, v[0], v[1], v[2], v[3], &row);
  *slot = row;
  *id = row;
  return rc;
}

/* ---- the layer set ---- */

int sf_layer_set_build(proto_span layers, sf_layer_set *set) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, layers);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != 1 || fl.wire_type != PROTO_WIRE_LEN) continue;
    sf_layer_result res;
    memset(&res, 0, sizeof res);
    res.layer_rect = res.input_rect = -1;
    if (VEC_PUSH(set->layers, fl.span) || VEC_PUSH(set->res, res)) return WEFT_ENOMEM;
    sf_layer l;
    sf_layer_read(fl.span, &l);
    if (VEC_PUSH(set->items, l)) return WEFT_ENOMEM;
    uint64_t *slot;
    if (l.has_id && base_map_insert(&set->by_id, (uint32_t)l.id, 0, &slot) < 0)
      return WEFT_ENOMEM;
    if (l.has_id) *slot = set->layers.len - 1;
  }
  return WEFT_OK;
}

int sf_layer_set_has_id(const sf_layer_set *set, int32_t id) {
  return base_map_find(&set->by_id, (uint32_t)id) != NULL;
}

void sf_layer_set_free(sf_layer_set *set) {
  VEC_FREE(set->layers);
  VEC_FREE(set->res);
  VEC_FREE(set->items);
  base_free(set->hidden);
  set->hidden = NULL;
  VEC_FREE(set->blocking);
  base_map_free(&set->by_id);
}

/* ---- order: top to bottom ---- */

typedef VEC(uint32_t) sf_index_vec;

typedef struct sf_order {
  sf_index_vec top_to_bottom;
  VEC(uint64_t) links;  /* (z parent or parent) << 32 | index, sorted */
  sf_index_vec stack;  /* index << 1 | added */
  uint8_t *seen;
} sf_order;

/* a before b: higher z first, then higher id. */
static const sf_layer_set *sf_sort_set;
static int sf_cmp_z_desc(const void *pa, const void *pb) {
  sf_layer a, b;
  a = sf_sort_set->items.data[*(const uint32_t *)pa];
  b = sf_sort_set->items.data[*(const uint32_t *)pb];
  if (a.z != b.z) return a.z > b.z ? -1 : 1;
  return a.id > b.id ? -1 : a.id < b.id;
}

static int sf_cmp_u64(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

/* The layers linked under `id` (z-order relative first, else parent), in
 * top-first order, into *out. */
static int sf_children(const sf_layer_set *set, sf_order *o, int32_t id, sf_index_vec *out) {
  out->len = 0;
  uint64_t key = (uint64_t)(uint32_t)id << 32;
  size_t lo = 0, hi = o->links.len;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (o->links.data[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < o->links.len && (o->links.data[lo] >> 32) == (uint32_t)id; lo++)
    if (VEC_PUSH(*out, (uint32_t)o->links.data[lo])) return WEFT_ENOMEM;
  sf_sort_set = set;
  if (out->len > 1) qsort(out->data, out->len, sizeof *out->data, sf_cmp_z_desc);
  return WEFT_OK;
}

static int sf_order_links(const sf_layer_set *set, sf_order *o, sf_index_vec *roots) {
  for (size_t i = 0; i < set->layers.len; i++) {
    sf_layer l;
    l = set->items.data[i];
    if (sf_layer_is_root(&l) && l.z_relative_of <= 0 && VEC_PUSH(*roots, (uint32_t)i))
      return WEFT_ENOMEM;
    if (!l.has_id) continue;
    int32_t up = l.z_relative_of > 0 ? l.z_relative_of : l.parent > 0 ? l.parent : 0;
    if (up > 0 && VEC_PUSH(o->links, (uint64_t)(uint32_t)up << 32 | i)) return WEFT_ENOMEM;
  }
  if (o->links.len > 1) qsort(o->links.data, o->links.len, sizeof *o->links.data, sf_cmp_u64);
  sf_sort_set = set;
  if (roots->len > 1) qsort(roots->data, roots->len, sizeof *roots->data, sf_cmp_z_desc);
  return WEFT_OK;
}

/* Pushes the children on one side of z (at or above when `above`) so the
 * first is popped first. */
static int sf_push_children(const sf_layer_set *set, sf_order *o, const sf_index_vec *kids,
                            int32_t z, int above) {
  for (size_t k = kids->len; k-- > 0;) {
    sf_layer c;
    c = set->items.data[kids->data[k]];
    if ((c.z >= z) == above && VEC_PUSH(o->stack, kids->data[k] << 1)) return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

/* Top to bottom: a layer's children at or above its z, itself, then those
 * below; each layer once. */
static int sf_order_walk(const sf_layer_set *set, sf_order *o, sf_index_vec *kids) {
  int rc = WEFT_OK;
  while (!rc && o->stack.len) {
    uint32_t top = o->stack.data[--o->stack.len], i = top >> 1;
    sf_layer l;
    l = set->items.data[i];
    if (!l.has_id) continue;
    if (!(top & 1) && o->seen[i]) continue;
    o->seen[i] = 1;
    rc = sf_children(set, o, l.id, kids);
    if (rc) break;
    if (!(top & 1)) {
      rc = VEC_PUSH(o->stack, i << 1 | 1);
      if (!rc) rc = sf_push_children(set, o, kids, l.z, 1);
    } else {
      rc = VEC_PUSH(o->top_to_bottom, i);
      if (!rc) rc = sf_push_children(set, o, kids, l.z, 0);
    }
  }
  return rc;
}

static int sf_order_build(const sf_layer_set *set, sf_order *o) {
  sf_index_vec roots = {0}, kids = {0};
  o->seen = base_calloc(set->layers.len + 1, 1);
  int rc = o->seen ? sf_order_links(set, o, &roots) : WEFT_ENOMEM;
  for (size_t k = roots.len; !rc && k-- > 0;) rc = VEC_PUSH(o->stack, roots.data[k] << 1);
  if (!rc) rc = sf_order_walk(set, o, &kids);
  VEC_FREE(roots);
  VEC_FREE(kids);
  return rc;
}

static void sf_order_free(sf_order *o) {
  VEC_FREE(o->top_to_bottom);
  VEC_FREE(o->links);
  VEC_FREE(o->stack);
  base_free(o->seen);
}

/* ---- visibility ---- */

/* The index of layer i's parent, or -1 for a root or a missing parent. */
static int64_t sf_parent_index(const sf_layer_set *set, size_t i) {
  const sf_layer *l = &set->items.data[i];
  if (sf_layer_is_root(l)) return -1;
  uint64_t *idx = base_map_find(&set->by_id, (uint32_t)l->parent);
  return idx ? (int64_t)*idx : -1;
}

enum { SF_HIDDEN_UNKNOWN, SF_HIDDEN_NO, SF_HIDDEN_YES, SF_HIDDEN_PENDING };

/* Resolves set->hidden for i and the ancestors it needs, once each: up the
 * parent chain to a known state, then back down; a cycle is not hidden. */
static int sf_hidden_resolve(sf_layer_set *set, size_t i, sf_index_vec *path) {
  path->len = 0;
  int64_t cur = (int64_t)i;
  uint8_t state = SF_HIDDEN_NO;
  while (set->hidden[cur] == SF_HIDDEN_UNKNOWN) {
    set->hidden[cur] = SF_HIDDEN_PENDING;
    if (VEC_PUSH(*path, (uint32_t)cur)) return WEFT_ENOMEM;
    int64_t p = sf_parent_index(set, (size_t)cur);
    if (p < 0) break;
    if (sf_layer_hidden_by_policy(&set->items.data[p])) {
      state = SF_HIDDEN_YES;
      break;
    }
    cur = p;
  }
  if (set->hidden[cur] == SF_HIDDEN_YES) state = SF_HIDDEN_YES;
  for (size_t k = path->len; k-- > 0;) {
    uint32_t n = path->data[k];
    int64_t p = sf_parent_index(set, n);
    if (p >= 0 && sf_layer_hidden_by_policy(&set->items.data[p])) state = SF_HIDDEN_YES;
    set->hidden[n] = state;
  }
  return WEFT_OK;
}

static int sf_hidden_compute(sf_layer_set *set) {
  set->hidden = base_calloc(set->layers.len + 1, 1);
  if (!set->hidden) return WEFT_ENOMEM;
  sf_index_vec path = {0};
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < set->layers.len; i++)
    if (set->hidden[i] == SF_HIDDEN_UNKNOWN) rc = sf_hidden_resolve(set, i, &path);
  VEC_FREE(path);
  return rc;
}

int sf_layer_set_hidden_by_parent(const sf_layer_set *set, size_t i) {
  return set->hidden && set->hidden[i] == SF_HIDDEN_YES;
}

static int sf_has_visible_region(const sf_layer *l, int excludes_composition_state) {
  if (excludes_composition_state) return l->has_bounds && !sf_geom_rect_empty(l->bounds);
  return sf_layer_has_nonempty_visible_region(l);
}

static int sf_visible_in_isolation(const sf_layer_set *set, size_t i, int excludes) {
  const sf_layer *l = &set->items.data[i];
  if (sf_layer_set_hidden_by_parent(set, i) || sf_layer_hidden_by_policy(l)) return 0;
  if (!l->has_color || l->color[3] <= 0) return 0;
  if (sf_layer_buffer_empty(l) && !sf_layer_has_effects(l)) return 0;
  return sf_has_visible_region(l, excludes);
}

/* The screen bounds of l cropped by a non-empty crop; 0 when it has none. */
static int sf_cropped_screen_bounds(const sf_layer *l, const sf_rect *crop, sf_rect *out) {
  if (!l->has_screen_bounds) return 0;
  *out = l->screen_bounds;
  if (crop && !sf_geom_rect_empty(*crop)) *out = sf_geom_crop(*out, *crop);
  return 1;
}

static int sf_same_stack(const sf_layer *a, const sf_layer *b) {
  if (a->has_layer_stack != b->has_layer_stack) return 0;
  return !a->has_layer_stack || a->layer_stack == b->layer_stack;
}

/* Occluder `o` contains l (only o's rotation is checked). */
static int sf_contains(const sf_layer *o, const sf_layer *l, const sf_rect *crop) {
  if (o->transform_type & SF_TRANSFORM_ROT_INVALID) return 0;
  sf_rect a, b;
  return sf_cropped_screen_bounds(o, crop, &a) && sf_cropped_screen_bounds(l, crop, &b) &&
         sf_geom_contains(a, b);
}

static int sf_overlaps(const sf_layer *o, const sf_layer *l, const sf_rect *crop) {
  sf_rect a, b;
  return sf_cropped_screen_bounds(o, crop, &a) && sf_cropped_screen_bounds(l, crop, &b) &&
         sf_geom_intersects(a, b);
}

typedef struct sf_vis {
  sf_index_vec opaque, translucent;
} sf_vis;

static int sf_block(sf_layer_set *set, sf_layer_result *res, int kind, int32_t id) {
  if (!res->blocking[kind][1]) res->blocking[kind][0] = (uint32_t)set->blocking.len;
  res->blocking[kind][1]++;
  return VEC_PUSH(set->blocking, id);
}

/* Checks l against the layers above it; `res` is re-fetched by index as
 * set->blocking grows. */
static int sf_occlusion(sf_layer_set *set, sf_vis *v, uint32_t i, const sf_layer *l,
                        const sf_rect *crop) {
  int rc = WEFT_OK;
  sf_layer_result *res = &set->res.data[i];
  uint32_t occ_start = (uint32_t)set->blocking.len;
  for (size_t k = 0; !rc && k < v->opaque.len; k++) {
    sf_layer o;
    o = set->items.data[v->opaque.data[k]];
    if (!sf_same_stack(&o, l) || !sf_contains(&o, l, crop)) continue;
    if (o.corner_radius <= l->corner_radius) {
      res->is_visible = 0;
      rc = sf_block(set, res, 0, o.id);
    }
  }
  uint32_t occ_end = (uint32_t)set->blocking.len;
  for (size_t k = 0; !rc && k < v->opaque.len; k++) {
    sf_layer o;
    o = set->items.data[v->opaque.data[k]];
    if (!sf_same_stack(&o, l) || !sf_overlaps(&o, l, crop)) continue;
    int occluding = 0;
    for (uint32_t j = occ_start; j < occ_end; j++) occluding |= set->blocking.data[j] == o.id;
    if (!occluding) rc = sf_block(set, res, 1, o.id);
  }
  for (size_t k = 0; !rc && k < v->translucent.len; k++) {
    sf_layer t;
    t = set->items.data[v->translucent.data[k]];
    if (sf_same_stack(&t, l) && sf_overlaps(&t, l, crop)) rc = sf_block(set, res, 2, t.id);
  }
  return rc;
}

/* The layer stack space rect of the last display on l's layer stack that has one. */
static sf_rect sf_display_crop(proto_span snapshot, const sf_layer *l) {
  sf_rect crop = {0, 0, 0, 0};
  if (!l->has_layer_stack) return crop;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, snapshot);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != SF_SNAPSHOT_DISPLAYS || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_field st, rect;
    if (!sf_msg_field(fl.span, SF_DISPLAY_LAYER_STACK, PROTO_WIRE_VARINT, &st) ||
        (uint32_t)st.value != l->layer_stack ||
        !sf_msg_field(fl.span, SF_DISPLAY_LAYER_STACK_SPACE_RECT, PROTO_WIRE_LEN, &rect))
      continue;
    crop = sf_geom_rect_proto(rect.span);
  }
  return crop;
}

static int sf_visibility(sf_layer_set *set, proto_span snapshot, const sf_order *o) {
  proto_field fl;
  int excludes = !sf_msg_field(snapshot, SF_SNAPSHOT_EXCLUDES_COMPOSITION, PROTO_WIRE_VARINT,
                               &fl) || fl.value != 0;
  sf_vis v;
  memset(&v, 0, sizeof v);
  int rc = WEFT_OK;
  for (size_t k = 0; !rc && k < o->top_to_bottom.len; k++) {
    uint32_t i = o->top_to_bottom.data[k];
    sf_layer l;
    l = set->items.data[i];
    sf_rect crop = sf_display_crop(snapshot, &l);
    set->res.data[i].ordered = 1;
    set->res.data[i].is_visible = (uint8_t)sf_visible_in_isolation(set, i, excludes);
    if (!set->res.data[i].is_visible) continue;
    rc = sf_occlusion(set, &v, i, &l, &crop);
    if (!rc) rc = sf_layer_is_opaque(&l) ? VEC_PUSH(v.opaque, i) : VEC_PUSH(v.translucent, i);
  }
  VEC_FREE(v.opaque);
  VEC_FREE(v.translucent);
  return rc;
}

int sf_layer_set_compute(import_file *f, proto_sf_state *s, proto_span snapshot,
                         sf_layer_set *set) {
  sf_order o;
  memset(&o, 0, sizeof o);
  int rc = sf_order_build(set, &o);
  if (!rc) rc = sf_hidden_compute(set);
  if (!rc) rc = sf_visibility(set, snapshot, &o);
  if (!rc) rc = sf_rects_compute(f, s, snapshot, set, o.top_to_bottom.data,
                                 o.top_to_bottom.len);
  sf_order_free(&o);
  return rc;
}
