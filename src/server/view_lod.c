/* The web view's levels of detail (view_lod.h). */
#include "view_lod.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void view_lod_layout_of(size_t n, view_lod_layout *out) {
  memset(out, 0, sizeof *out);
  if (n <= VIEW_LOD_MIN) return;
  out->count[0] = (n + VIEW_LOD_FAN - 1) / VIEW_LOD_FAN;
  out->levels = 1;
  while (out->count[out->levels - 1] > VIEW_LOD_FAN && out->levels < VIEW_LOD_MAX_LEVELS) {
    uint32_t k = out->levels++;
    out->at[k] = out->at[k - 1] + out->count[k - 1];
    out->count[k] = (out->count[k - 1] + VIEW_LOD_FAN - 1) / VIEW_LOD_FAN;
  }
  out->total = out->at[out->levels - 1] + out->count[out->levels - 1];
}

/* ---- sorting into lanes ---- */

static int view_lod_cmp_slice(const void *a, const void *b) {
  const view_slice *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static int view_lod_cmp_sample(const void *a, const void *b) {
  const view_sample *x = a, *y = b;
  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static uint32_t view_lane_of_depth(uint32_t depth) {
  return depth < VIEW_MAX_LANES ? depth : VIEW_MAX_LANES - 1;
}

static uint32_t view_lane_of(const view_slice *s) {
  return view_lane_of_depth(s->depth);
}

/* A track's longest slice and deepest depth. */
static void view_lod_track_stats(const view_index *ix, view_track *t) {
  const view_slice *s = ix->slices + t->first;
  t->max_dur = 0;
  t->max_depth = 0;
  for (size_t i = 0; i < t->count; i++) {
    if (s[i].dur > t->max_dur) t->max_dur = s[i].dur;
    if (s[i].depth > t->max_depth) t->max_depth = s[i].depth;
  }
}

static int view_lod_lane_major(const view_slice *s, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (view_lane_of(&s[i]) < view_lane_of(&s[i - 1])) return 0;
  return 1;
}

/* Appends the track's lanes to ix->lanes (room made by the caller), its
 * slices put lane after lane first when they are not (a stable counting
 * sort through tmp, made on first need). 0, or -1 without memory. */
static int view_lod_lanes(view_index *ix, view_track *t, view_slice **tmp, size_t tmp_size) {
  size_t at[VIEW_MAX_LANES + 1] = {0};
  view_slice *s = ix->slices + t->first;
  t->lane_first = (uint32_t)ix->lane_count;
  t->lane_count = t->count ? view_lane_of_depth(t->max_depth) + 1 : 0;
  for (size_t i = 0; i < t->count; i++) at[view_lane_of(&s[i]) + 1]++;
  for (uint32_t l = 0; l < t->lane_count; l++) at[l + 1] += at[l];
  if (!view_lod_lane_major(s, t->count)) {
    if (!*tmp && !(*tmp = view_big_alloc(tmp_size * sizeof **tmp))) return -1;
    size_t fill[VIEW_MAX_LANES];
    memcpy(fill, at, sizeof fill);
    for (size_t i = 0; i < t->count; i++) (*tmp)[fill[view_lane_of(&s[i])]++] = s[i];
    memcpy(s, *tmp, t->count * sizeof *s);
  }
  for (uint32_t l = 0; l < t->lane_count; l++)
    ix->lanes[ix->lane_count++] = (view_lane_ix){t->first + at[l], at[l + 1] - at[l], 0, 0};
  return 0;
}

/* Sorts a lane by ts then depth, unless it is. */
static void view_lod_sort_lane(view_slice *lane, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (view_lod_cmp_slice(&lane[i], &lane[i - 1]) < 0) {
      qsort(lane, n, sizeof *lane, view_lod_cmp_slice);
      return;
    }
}

/* ---- pyramids ---- */

/* The levels above the first of the pyramid over n slices. */
static void view_lod_slice_upper(size_t n, view_node *nodes) {
  view_lod_layout lay;
  view_lod_layout_of(n, &lay);
  for (uint32_t k = 1; k < lay.levels; k++) {
    const view_node *below = nodes + lay.at[k - 1];
    for (size_t b = 0; b < lay.count[k]; b++) {
      view_node m = {INT64_MIN, INT64_MIN};
      for (size_t i = b * VIEW_LOD_FAN; i < lay.count[k - 1] && i < (b + 1) * VIEW_LOD_FAN; i++) {
        if (below[i].end > m.end) m.end = below[i].end;
        if (below[i].dur > m.dur) m.dur = below[i].dur;
      }
      nodes[lay.at[k] + b] = m;
    }
  }
}

static void view_lod_slice_pyramid(const view_slice *s, size_t n, view_node *nodes) {
  view_lod_layout lay;
  view_lod_layout_of(n, &lay);
  for (size_t b = 0; b < lay.count[0]; b++) {
    view_node m = {INT64_MIN, INT64_MIN};
    for (size_t i = b * VIEW_LOD_FAN; i < n && i < (b + 1) * VIEW_LOD_FAN; i++) {
      int64_t e = view_slice_end(&s[i]);
      if (e > m.end) m.end = e;
      if (s[i].dur > m.dur) m.dur = s[i].dur;
    }
    nodes[b] = m;
  }
  view_lod_slice_upper(n, nodes);
}

static double view_lod_value(const view_sample *s) {
  return isfinite(s->value) ? s->value : 0;
}

static void view_lod_counter_pyramid(const view_sample *s, size_t n, view_range *nodes) {
  view_lod_layout lay;
  view_lod_layout_of(n, &lay);
  for (size_t b = 0; b < lay.count[0]; b++) {
    view_range m = {INFINITY, -INFINITY};
    for (size_t i = b * VIEW_LOD_FAN; i < n && i < (b + 1) * VIEW_LOD_FAN; i++) {
      double v = view_lod_value(&s[i]);
      if (v < m.lo) m.lo = v;
      if (v > m.hi) m.hi = v;
    }
    nodes[b] = m;
  }
  for (uint32_t k = 1; k < lay.levels; k++) {
    const view_range *below = nodes + lay.at[k - 1];
    for (size_t b = 0; b < lay.count[k]; b++) {
      view_range m = {INFINITY, -INFINITY};
      for (size_t i = b * VIEW_LOD_FAN; i < lay.count[k - 1] && i < (b + 1) * VIEW_LOD_FAN; i++) {
        if (below[i].lo < m.lo) m.lo = below[i].lo;
        if (below[i].hi > m.hi) m.hi = below[i].hi;
      }
      nodes[lay.at[k] + b] = m;
    }
  }
}

/* Where each lane's and counter track's pyramid goes in ix->nodes and
 * ix->ranges, which it allocates (filled by view_lod_ready). */
int view_lod_plan(view_index *ix) {
  size_t nodes = 0, ranges = 0;
  view_lod_layout lay;
  for (size_t l = 0; l < ix->lane_count; l++) {
    view_lod_layout_of(ix->lanes[l].count, &lay);
    ix->lanes[l].node = nodes;
    nodes += lay.total;
  }
  for (size_t t = 0; t < ix->track_count; t++) {
    view_track *tr = &ix->tracks[t];
    tr->ready = 0;
    if (tr->kind != VIEW_TRACK_COUNTER) continue;
    view_lod_layout_of(tr->count, &lay);
    tr->node = ranges;
    ranges += lay.total;
  }
  ix->nodes = view_big_alloc(nodes * sizeof *ix->nodes);
  ix->ranges = view_big_alloc(ranges * sizeof *ix->ranges);
  return ix->nodes && ix->ranges ? 0 : -1;
}

void view_lod_stage_begin(view_index *ix, view_track *t) {
  t->max_dur = 0;
  t->staged = 1;
  for (uint32_t k = 0; k < t->lane_count; k++) {
    view_lane_ix *lane = &ix->lanes[t->lane_first + k];
    lane->unsorted = 0;
    view_lod_layout lay;
    view_lod_layout_of(lane->count, &lay);
    for (size_t b = 0; b < lay.count[0]; b++)
      ix->nodes[lane->node + b] = (view_node){INT64_MIN, INT64_MIN};
  }
}

/* A staged track's lanes in order have their first pyramid level: only
 * the levels above are left (the others are sorted and built whole). */
static void view_lod_ready_slices(view_index *ix, view_track *t) {
  if (!t->staged) {
    t->max_dur = 0;
    for (size_t i = 0; i < t->count; i++)
      if (ix->slices[t->first + i].dur > t->max_dur) t->max_dur = ix->slices[t->first + i].dur;
  }
  for (uint32_t k = 0; k < t->lane_count; k++) {
    const view_lane_ix *lane = &ix->lanes[t->lane_first + k];
    view_node *nodes = ix->nodes + lane->node;
    if (t->staged && !lane->unsorted) {
      if (lane->count > VIEW_LOD_MIN) view_lod_slice_upper(lane->count, nodes);
      continue;
    }
    view_lod_sort_lane(ix->slices + lane->first, lane->count);
    if (lane->count > VIEW_LOD_MIN) view_lod_slice_pyramid(ix->slices + lane->first, lane->count, nodes);
  }
  t->staged = 0;
}

static void view_lod_ready_counter(view_index *ix, view_track *t) {
  view_sample *s = ix->samples + t->first;
  for (size_t i = 1; i < t->count; i++)
    if (s[i].ts < s[i - 1].ts) {
      qsort(s, t->count, sizeof *s, view_lod_cmp_sample);
      break;
    }
  if (t->count > VIEW_LOD_MIN) view_lod_counter_pyramid(s, t->count, ix->ranges + t->node);
}

void view_lod_ready(view_index *ix, view_track *t) {
  if (t->ready) return;
  if (t->kind == VIEW_TRACK_COUNTER) view_lod_ready_counter(ix, t);
  else view_lod_ready_slices(ix, t);
  t->ready = 1;
}

/* The lanes of every slice and CPU track, from their slices. */
static int view_lod_all_lanes(view_index *ix) {
  size_t lanes = 0, biggest = 0;
  for (size_t t = 0; t < ix->track_count; t++) {
    view_track *tr = &ix->tracks[t];
    if (tr->kind == VIEW_TRACK_COUNTER) continue;
    view_lod_track_stats(ix, tr);
    if (tr->count) lanes += view_lane_of_depth(tr->max_depth) + 1;
    if (tr->count > biggest) biggest = tr->count;
  }
  ix->lanes = malloc((lanes ? lanes : 1) * sizeof *ix->lanes);
  if (!ix->lanes) return -1;
  ix->lane_count = 0;
  view_slice *tmp = NULL;
  int rc = 0;
  for (size_t t = 0; t < ix->track_count && rc == 0; t++)
    if (ix->tracks[t].kind != VIEW_TRACK_COUNTER)
      rc = view_lod_lanes(ix, &ix->tracks[t], &tmp, biggest);
  free(tmp);
  return rc;
}

int view_lod_build(view_index *ix) {
  if (view_lod_all_lanes(ix) || view_lod_plan(ix)) return -1;
  for (size_t t = 0; t < ix->track_count; t++) view_lod_ready(ix, &ix->tracks[t]);
  return 0;
}

/* ---- reading ---- */

static int view_lod_slice_hit(const view_slice *s, int64_t after, int64_t longer) {
  return view_slice_end(s) > after || s->dur > longer;
}

static int view_lod_node_hit(const view_node *n, int64_t after, int64_t longer) {
  return n->end > after || n->dur > longer;
}

size_t view_lod_find(const view_slice *s, size_t n, const view_node *nodes, size_t i,
                     int64_t after, int64_t longer) {
  view_lod_layout lay;
  view_lod_layout_of(n, &lay);
  /* Up to a block's start one slice at a time (every slice without a
   * pyramid). */
  for (; i < n && (!lay.levels || i % VIEW_LOD_FAN); i++)
    if (view_lod_slice_hit(&s[i], after, longer)) return i;
  if (i >= n) return n;
  /* Then by nodes: along a level, up one whenever a node starts its
   * parent's block, until a node holds a hit... */
  uint32_t k = 0;
  size_t at = i / VIEW_LOD_FAN;
  for (;;) {
    if (at >= lay.count[k]) return n;
    if (view_lod_node_hit(&nodes[lay.at[k] + at], after, longer)) break;
    at++;
    if (at % VIEW_LOD_FAN == 0 && k + 1 < lay.levels) {
      at /= VIEW_LOD_FAN;
      k++;
    }
  }
  /* ...and down to its first hit. */
  while (k > 0) {
    k--;
    at *= VIEW_LOD_FAN;
    while (!view_lod_node_hit(&nodes[lay.at[k] + at], after, longer)) at++;
  }
  for (i = at * VIEW_LOD_FAN; !view_lod_slice_hit(&s[i], after, longer); i++) {
  }
  return i;
}

static void view_lod_take(double v, double *lo, double *hi) {
  if (v < *lo) *lo = v;
  if (v > *hi) *hi = v;
}

void view_lod_range(const view_sample *s, size_t n, const view_range *nodes, size_t a,
                    size_t b, double *lo, double *hi) {
  view_lod_layout lay;
  view_lod_layout_of(n, &lay);
  *lo = INFINITY;
  *hi = -INFINITY;
  /* The samples outside whole blocks one by one, the rest by nodes: at each
   * level the nodes outside whole blocks of the level above, the rest one
   * level up; the top level node by node. */
  for (; a < b && (!lay.levels || a % VIEW_LOD_FAN); a++) {
    double v = view_lod_value(&s[a]);
    view_lod_take(v, lo, hi);
  }
  for (; b > a && b % VIEW_LOD_FAN; b--) view_lod_take(view_lod_value(&s[b - 1]), lo, hi);
  a /= VIEW_LOD_FAN;
  b /= VIEW_LOD_FAN;
  for (uint32_t k = 0; a < b && k < lay.levels; k++) {
    const view_range *level = nodes + lay.at[k];
    int top = k + 1 == lay.levels;
    for (; a < b && (top || a % VIEW_LOD_FAN); a++) {
      view_lod_take(level[a].lo, lo, hi);
      view_lod_take(level[a].hi, lo, hi);
    }
    for (; b > a && b % VIEW_LOD_FAN; b--) {
      view_lod_take(level[b - 1].lo, lo, hi);
      view_lod_take(level[b - 1].hi, lo, hi);
    }
    a /= VIEW_LOD_FAN;
    b /= VIEW_LOD_FAN;
  }
}
