/* Equally short paths to trace time: among a clock's snapshot hops that all
 * lead to trace time in the fewest hops, the conversion of a timestamp takes
 * the path with the smallest total snapshot spacing at that timestamp
 * (clock.h), evaluated hop by hop on the timestamp as converted so far. */
#include "clock/clock_internal.h"

/* A path's spacing: hops outside their edge's snapshots (unbounded), then
 * the summed gaps between the two snapshots around the timestamp. */
typedef struct tie_cost {
  uint64_t unbounded, gaps;
} tie_cost;

static bool tie_cost_less(const tie_cost *a, const tie_cost *b) {
  return a->unbounded < b->unbounded || (a->unbounded == b->unbounded && a->gaps < b->gaps);
}

static void tie_cost_add(tie_cost *a, const tie_cost *b) {
  a->unbounded += b->unbounded;
  a->gaps = a->gaps + b->gaps < a->gaps ? UINT64_MAX : a->gaps + b->gaps;
}

/* The spacing of edge e around t. */
static void tie_cost_edge(clock_edge *e, int64_t t, tie_cost *c) {
  clock_edge_sort(e);
  size_t n = e->points.len, hi = clock_edge_upper_bound(e, t);
  if (hi == 0 || hi == n) {
    c->unbounded++;
    return;
  }
  tie_cost gap = {0, (uint64_t)e->points.data[hi].src - (uint64_t)e->points.data[hi - 1].src};
  tie_cost_add(c, &gap);
}

/* Edge e (from u) is a snapshot hop onto a shortest path to trace time. */
static bool tie_hop_ok(const clock_graph *g, uint32_t u, uint32_t e) {
  const clock_edge *ed = &g->edges.data[e];
  const clock_node *v = &g->nodes.data[ed->to];
  return ed->points.len && !g->nodes.data[u].non_monotonic && v->done &&
         v->result == CLOCK_OK && v->cost + CLOCK_COST_HOP == g->nodes.data[u].cost;
}

void clock_graph_mark_ties(clock_graph *g) {
  for (uint32_t u = 0; u < g->nodes.len; u++) {
    clock_node *n = &g->nodes.data[u];
    if (!n->done || n->parent_edge == CLOCK_NODE_NONE) continue;
    uint32_t hops = 0;
    for (size_t i = 0; i < n->edges.len && hops < 2; i++)
      hops += tie_hop_ok(g, u, n->edges.data[i]);
    n->ties = hops >= 2;
  }
}

/* One hop over edge e at *t: its spacing into *c, *t converted. */
static bool tie_hop(clock_graph *g, uint32_t e, int64_t *t, uint32_t *budget, tie_cost *c) {
  if (*budget == 0) return false;
  (*budget)--;
  clock_edge *ed = &g->edges.data[e];
  tie_cost_edge(ed, *t, c);
  if (clock_edge_step(g, ed, t) != CLOCK_OK) c->unbounded = UINT64_MAX / 4; /* unusable */
  return true;
}

static bool tie_best(clock_graph *g, uint32_t u, int64_t t, uint32_t *budget, tie_cost *best,
                     uint32_t *next, uint32_t *edge);

/* The cost from u onward at t: the default parents up to the next tied
 * node, then its best choice. False when the budget is spent. */
static bool tie_rest(clock_graph *g, uint32_t u, int64_t t, uint32_t *budget, tie_cost *c) {
  const clock_node *nodes = g->nodes.data;
  *c = (tie_cost){0, 0};
  for (; u != g->trace_time && !nodes[u].ties; u = nodes[u].parent)
    if (nodes[u].parent_edge != CLOCK_NODE_NONE && !tie_hop(g, nodes[u].parent_edge, &t, budget, c))
      return false;
  if (u == g->trace_time) return true;
  tie_cost rest;
  uint32_t next, edge;
  if (!tie_best(g, u, t, budget, &rest, &next, &edge)) return false;
  tie_cost_add(c, &rest);
  return true;
}

/* At tied node u: the cheapest hop (the lowest next node among equals). */
static bool tie_best(clock_graph *g, uint32_t u, int64_t t, uint32_t *budget, tie_cost *best,
                     uint32_t *next, uint32_t *edge) {
  bool found = false;
  for (size_t i = 0; i < g->nodes.data[u].edges.len; i++) {
    uint32_t e = g->nodes.data[u].edges.data[i], v = g->edges.data[e].to;
    if (!tie_hop_ok(g, u, e)) continue;
    tie_cost c = {0, 0}, rest;
    int64_t t2 = t;
    if (!tie_hop(g, e, &t2, budget, &c) || !tie_rest(g, v, t2, budget, &rest)) return false;
    tie_cost_add(&c, &rest);
    if (!found || tie_cost_less(&c, best) || (!tie_cost_less(best, &c) && v < *next)) {
      *best = c;
      *next = v;
      *edge = e;
      found = true;
    }
  }
  return found;
}

void clock_tie_choose(clock_graph *g, uint32_t u, int64_t t, uint32_t *budget,
                      uint32_t *next, uint32_t *edge) {
  tie_cost best;
  uint32_t n, e;
  if (tie_best(g, u, t, budget, &best, &n, &e)) {
    *next = n;
    *edge = e;
  } else {
    *budget = 0; /* spent: the default parents from here on */
  }
}
