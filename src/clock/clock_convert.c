/* Clock conversion: a timestamp along its clock's path to trace time, hop by
 * hop over each snapshot edge's pieces, and the conversion caches. */
#include <assert.h>
#include <stdlib.h>

#include "clock/clock_internal.h"

/* ---- conversion ---- */

static int point_cmp(const void *a, const void *b) {
  const clock_point *x = a, *y = b;
  if (x->src != y->src) return x->src < y->src ? -1 : 1;
  return (x->snapshot > y->snapshot) - (x->snapshot < y->snapshot);
}

void clock_edge_sort(clock_edge *e) {
  if (e->sorted) return;
  qsort(e->points.data, e->points.len, sizeof *e->points.data, point_cmp);
  e->sorted = true;
}

/* Index of the first point with src > t (n if none). */
size_t clock_edge_upper_bound(const clock_edge *e, int64_t t) {
  const clock_point *p = e->points.data;
  size_t lo = 0, hi = e->points.len;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p[mid].src <= t) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* The interpolated piece from p to q (p.src < q.src) as delta and slope
 * (rate ratio 1 + slope / 2^64); false when the spans do not fit int64 or
 * the ratio is outside (1/2, 3/2). */
static bool piece_slope(const clock_point *p, const clock_point *q,
                        int64_t *delta_out, int64_t *slope_out) {
  __int128 dsrc = (__int128)q->src - p->src, ddst = (__int128)q->dst - p->dst;
  __int128 delta = (__int128)p->dst - p->src, k = ddst - dsrc;
  if (dsrc > INT64_MAX || delta < INT64_MIN || delta > INT64_MAX) return false;
  if (2 * k <= -dsrc || 2 * k >= dsrc) return false;
  __int128 num = k * ((__int128)1 << 64); /* |k| < 2^62: fits */
  __int128 slope = (num >= 0 ? num + dsrc / 2 : num - dsrc / 2) / dsrc;
  if (slope > INT64_MAX) slope = INT64_MAX;
  if (slope < -INT64_MAX) slope = -INT64_MAX;
  *delta_out = (int64_t)delta;
  *slope_out = (int64_t)slope;
  return true;
}

/* Linear step between points i and i + 1 around t; false to fall back to
 * the nearest neighbour. Refills the edge's cache. */
static bool edge_convert_linear(clock_edge *e, size_t i, int64_t *t, clock_result *r) {
  const clock_point *p = &e->points.data[i], *q = p + 1;
  int64_t delta, slope, out;
  if (!piece_slope(p, q, &delta, &slope)) return false;
  e->cache_lo = p->src;
  e->cache_hi = q->src - 1;
  e->cache_delta = delta;
  e->cache_base = p->src;
  e->cache_slope = slope;
  int64_t adj = clock_slope_adjust(*t - p->src, slope);
  *r = __builtin_add_overflow(*t, delta, &out) || __builtin_add_overflow(out, adj, &out)
           ? CLOCK_OVERFLOW : CLOCK_OK;
  if (*r == CLOCK_OK) *t = out;
  return true;
}

/* One step over edge e (nearest neighbour, or linear between two points in
 * LINEAR mode); refills its interval cache. */
static clock_result edge_convert_slow(clock_edge *e, uint8_t interpolation, int64_t *t) {
  clock_edge_sort(e);
  const clock_point *p = e->points.data;
  size_t n = e->points.len, lo = clock_edge_upper_bound(e, *t);
  size_t i = lo == 0 ? 0 : lo - 1;
  clock_result lr;
  if (interpolation == CLOCK_INTERP_LINEAR && lo > 0 && lo < n &&
      edge_convert_linear(e, i, t, &lr))
    return lr;
  e->cache_base = 0;
  e->cache_slope = 0;
  int64_t range_lo = lo == 0 ? INT64_MIN : p[i].src;
  int64_t range_hi = lo == 0 ? p[0].src - 1 : lo < n ? p[lo].src - 1 : INT64_MAX;
  assert(range_lo <= *t && *t <= range_hi); /* t lies on point i's piece */
  int64_t delta, a, r;
  if (!__builtin_sub_overflow(p[i].dst, p[i].src, &delta)) {
    e->cache_lo = range_lo;
    e->cache_hi = range_hi;
    e->cache_delta = delta;
    if (__builtin_add_overflow(*t, delta, &r)) return CLOCK_OVERFLOW;
    assert(*t != p[i].src || r == p[i].dst); /* a point's source reads its destination */
    *t = r;
    return CLOCK_OK;
  }
  /* dst - src does not fit, yet t - src + dst may: one of the two orders of
   * evaluation then succeeds. */
  e->cache_lo = 1;
  e->cache_hi = 0;
  if (!__builtin_sub_overflow(*t, p[i].src, &a)) {
    if (__builtin_add_overflow(a, p[i].dst, &r)) return CLOCK_OVERFLOW;
  } else if (__builtin_add_overflow(*t, p[i].dst, &a) ||
             __builtin_sub_overflow(a, p[i].src, &r)) {
    return CLOCK_OVERFLOW;
  }
  *t = r;
  return CLOCK_OK;
}

/* The cached piece of edge ed applied to t (t within the cache). */
static inline bool edge_apply_cached(const clock_edge *ed, int64_t *t) {
  int64_t adj = ed->cache_slope ? clock_slope_adjust(*t - ed->cache_base, ed->cache_slope) : 0;
  return !__builtin_add_overflow(*t, ed->cache_delta, t) && !__builtin_add_overflow(*t, adj, t);
}

void clock_graph_set_interpolation(clock_graph *g, clock_interpolation mode) {
  if (g->interpolation == (uint8_t)mode) return;
  g->interpolation = (uint8_t)mode;
  g->point_epoch++; /* every piece changes */
  for (size_t e = 0; e < g->edges.len; e++) {
    g->edges.data[e].cache_lo = 1;
    g->edges.data[e].cache_hi = 0;
  }
}

clock_result clock_edge_step(const clock_graph *g, clock_edge *ed, int64_t *t) {
  if (ed->cache_lo <= *t && *t <= ed->cache_hi)
    return edge_apply_cached(ed, t) ? CLOCK_OK : CLOCK_OVERFLOW;
  return edge_convert_slow(ed, g->interpolation, t);
}

clock_result clock_graph_convert(clock_graph *g, uint32_t node, int64_t ts,
                                 int64_t *out) {
  if (g->resolved_version != g->version && clock_graph_resolve(g, NULL))
    return CLOCK_ERR_NOMEM;
  if (node >= g->nodes.len) return CLOCK_BAD_NODE;
  const clock_node *nodes = g->nodes.data;
  if (nodes[node].result != CLOCK_OK) return (clock_result)nodes[node].result;
  int64_t t = ts;
  uint32_t budget = CLOCK_TIE_BUDGET;
  for (uint32_t u = node, next; u != g->trace_time; u = next) {
    uint32_t e = nodes[u].parent_edge;
    next = nodes[u].parent;
    if (nodes[u].ties) clock_tie_choose(g, u, t, &budget, &next, &e);
    /* Each hop goes to a placed clock on a strictly cheaper path (so the
     * walk ends at trace time), a snapshot hop along the edge u -> next. */
    assert(next < g->nodes.len && nodes[next].result == CLOCK_OK &&
           nodes[next].cost < nodes[u].cost);
    assert(e == CLOCK_NODE_NONE ||
           (g->edges.data[e].from == u && g->edges.data[e].to == next));
    if (e == CLOCK_NODE_NONE) continue; /* zero-offset hop */
    clock_result r = clock_edge_step(g, &g->edges.data[e], &t);
    if (r != CLOCK_OK) return r;
  }
  *out = t;
  return CLOCK_OK;
}

/* True if ts converts within int64 by the converter's formula. */
static bool converter_fits(__int128 ts, __int128 delta, __int128 base, int64_t slope) {
  __int128 r = ts + delta + (slope ? clock_slope_adjust((int64_t)(ts - base), slope) : 0);
  return r >= INT64_MIN && r <= INT64_MAX;
}

/* After a successful clock_graph_convert of some ts from `node`, each edge
 * of the path caches the piece that ts went through: the ts for which every
 * edge stays on its piece form one interval, shifted by the sum of the
 * edges' deltas. An interpolated piece composes only as the path's last
 * snapshot edge (the ones after it would need its inverse): otherwise, as
 * with an empty edge cache, the converter caches nothing. Computed in 128
 * bits. */
static void clock_converter_fill(const clock_graph *g, clock_converter *c, uint32_t node) {
  const clock_node *nodes = g->nodes.data;
  __int128 lo = INT64_MIN, hi = INT64_MAX, delta = 0, base = 0;
  int64_t slope = 0;
  for (uint32_t u = node; u != g->trace_time && lo <= hi; u = nodes[u].parent) {
    uint32_t e = nodes[u].parent_edge;
    if (nodes[u].ties) hi = lo - 1; /* the path depends on ts */
    if (e == CLOCK_NODE_NONE) continue;
    const clock_edge *ed = &g->edges.data[e];
    if (ed->cache_lo - delta > lo) lo = ed->cache_lo - delta;
    if (ed->cache_hi - delta < hi) hi = ed->cache_hi - delta;
    if (ed->cache_lo > ed->cache_hi || slope) hi = lo - 1;
    if (ed->cache_slope) base = ed->cache_base - delta, slope = ed->cache_slope;
    delta += ed->cache_delta;
  }
  c->version = g->version;
  c->point_epoch = g->point_epoch;
  c->node = node;
  c->lo = 1, c->hi = 0, c->delta = 0, c->base = 0, c->slope = 0;
  if (lo > hi || delta < INT64_MIN || delta > INT64_MAX) return; /* no cache */
  if (base < INT64_MIN || base > INT64_MAX) return;
  if (!converter_fits(lo, delta, base, slope) || !converter_fits(hi, delta, base, slope))
    return;
  c->lo = (int64_t)lo; /* lo <= hi, both within int64 */
  c->hi = (int64_t)hi;
  c->delta = (int64_t)delta;
  c->base = (int64_t)base;
  c->slope = slope;
}

clock_result clock_converter_refill(clock_graph *g, clock_converter *c, uint32_t node,
                                    int64_t ts, int64_t *out) {
  clock_result r = clock_graph_convert(g, node, ts, out);
  if (r == CLOCK_OK) clock_converter_fill(g, c, node);
  else c->lo = 1, c->hi = 0;
  return r;
}

clock_result clock_graph_convert_key(clock_graph *g, const clock_key *key,
                                     int64_t ts, int64_t *out) {
  uint32_t node;
  if (clock_graph_find(g, key, &node))
    return clock_graph_convert(g, node, ts, out);
  if (g->resolved_version != g->version && clock_graph_resolve(g, NULL))
    return CLOCK_ERR_NOMEM;
  clock_node isolated;
  clock_graph_place_isolated(g, key, &isolated);
  if (isolated.result != CLOCK_OK) return (clock_result)isolated.result;
  return clock_graph_convert(g, isolated.parent, ts, out);
}

clock_result clock_graph_placement(clock_graph *g, uint32_t node,
                                   clock_level *level_out,
                                   uint32_t *hops_out) {
  if (g->resolved_version != g->version && clock_graph_resolve(g, NULL))
    return CLOCK_ERR_NOMEM;
  if (node >= g->nodes.len) return CLOCK_BAD_NODE;
  const clock_node *n = &g->nodes.data[node];
  bool ok = n->result == CLOCK_OK;
  if (level_out) *level_out = ok ? (clock_level)n->level : CLOCK_LEVEL_NONE;
  if (hops_out) *hops_out = ok ? CLOCK_COST_HOPS(n->cost) : 0;
  return (clock_result)n->result;
}

clock_result clock_graph_path(clock_graph *g, uint32_t node,
                              uint32_t *nodes_out, size_t cap,
                              size_t *len_out) {
  if (g->resolved_version != g->version && clock_graph_resolve(g, NULL))
    return CLOCK_ERR_NOMEM;
  if (node >= g->nodes.len) return CLOCK_BAD_NODE;
  const clock_node *nodes = g->nodes.data;
  if (nodes[node].result != CLOCK_OK) return (clock_result)nodes[node].result;
  size_t len = 0;
  for (uint32_t u = node;; u = nodes[u].parent) {
    if (len < cap) nodes_out[len] = u;
    len++;
    if (u == g->trace_time) break;
  }
  if (len_out) *len_out = len;
  return CLOCK_OK;
}
