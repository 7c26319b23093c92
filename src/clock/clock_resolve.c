/* Clock placement (cheapest paths to trace time) and conversion.
 *
 * Placement is one Dijkstra search from the trace-time clock over reversed
 * hops; costs are the packed (assumptions, rendezvous, hops) triples of
 * clock_internal.h, so the lexicographic order is plain integer order. */
#include <assert.h>
#include <stdlib.h>

#include "clock/clock_internal.h"

/* ---- binary heap of (cost, node) ---- */

static bool heap_less(const clock_heap_item *a, const clock_heap_item *b) {
  return a->cost < b->cost || (a->cost == b->cost && a->node < b->node);
}

/* Capacity is reserved up front by resolve, so pushing cannot fail. */
static void heap_push(clock_graph *g, uint64_t cost, uint32_t node) {
  clock_heap_item *h = g->heap.data;
  size_t i = g->heap.len++;
  h[i] = (clock_heap_item){cost, node};
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!heap_less(&h[i], &h[p])) break;
    clock_heap_item t = h[i];
    h[i] = h[p];
    h[p] = t;
    i = p;
  }
}

static bool heap_pop(clock_graph *g, clock_heap_item *out) {
  if (g->heap.len == 0) return false;
  clock_heap_item *h = g->heap.data;
  *out = h[0];
  h[0] = h[--g->heap.len];
  size_t i = 0, n = g->heap.len;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && heap_less(&h[l], &h[m])) m = l;
    if (r < n && heap_less(&h[r], &h[m])) m = r;
    if (m == i) break;
    clock_heap_item t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
  return true;
}

/* ---- placement ---- */

static uint8_t hop_level(uint8_t kind) {
  switch (kind) {
    case CLOCK_HOP_SNAPSHOT: return CLOCK_LEVEL_SNAPSHOTS;
    case CLOCK_HOP_RENDEZVOUS: return CLOCK_LEVEL_REALTIME;
    case CLOCK_HOP_SAME_DOMAIN: return CLOCK_LEVEL_SAME_DOMAIN;
    case CLOCK_HOP_PIN: return CLOCK_LEVEL_PINNED;
  }
  return CLOCK_LEVEL_TRACE_TIME;
}

bool clock_graph_is_rendezvous_hub(const clock_graph *g, const clock_key *key) {
  if (g->trace_time == CLOCK_NODE_NONE) return false;
  const clock_key *tt = &g->nodes.data[g->trace_time].key;
  return key->clock_id == CLOCK_ID_REALTIME && key->machine == tt->machine &&
         key->file == 0 && key->sequence == 0;
}

static uint32_t rendezvous_hub(const clock_graph *g) {
  if (g->trace_time == CLOCK_NODE_NONE) return CLOCK_NODE_NONE;
  clock_key hub = {g->nodes.data[g->trace_time].key.machine, 0, 0,
                   CLOCK_ID_REALTIME};
  uint32_t node;
  return clock_graph_find(g, &hub, &node) ? node : CLOCK_NODE_NONE;
}

/* Hop kind allowed from a clock straight to trace time, or CLOCK_HOP_NONE. */
static uint8_t assumed_hop(const clock_graph *g, const clock_key *key,
                           bool isolated_or_anchor) {
  const clock_key *tt = &g->nodes.data[g->trace_time].key;
  bool tt_private = clock_key_is_private(tt);
  if ((clock_key_is_private(key) || tt_private) && isolated_or_anchor)
    return CLOCK_HOP_PIN;
  if (!tt_private && key->clock_id == tt->clock_id) return CLOCK_HOP_SAME_DOMAIN;
  return CLOCK_HOP_NONE;
}

static bool rendezvous_source(const clock_key *key, const clock_key *hub) {
  return key->clock_id == CLOCK_ID_REALTIME && key->machine != hub->machine;
}

/* Offers node u the path `cost` through `parent`; keeps the cheaper, and on
 * equal cost the lower parent index. */
static void relax(clock_graph *g, uint32_t u, uint64_t cost, uint32_t parent,
                  uint32_t edge, uint8_t kind) {
  clock_node *n = &g->nodes.data[u];
  if (n->done) return;
  if (cost > n->cost || (cost == n->cost && parent >= n->parent)) return;
  bool improved = cost < n->cost;
  n->cost = cost;
  n->parent = parent;
  n->parent_edge = edge;
  n->hop_kind = kind;
  if (improved) heap_push(g, cost, u);
}

static void relax_snapshot_edges(clock_graph *g, uint32_t v, uint64_t cost) {
  const clock_node *n = &g->nodes.data[v];
  for (size_t i = 0; i < n->edges.len; i++) {
    uint32_t e = n->edges.data[i];     /* v -> u */
    uint32_t rev = e ^ 1u;             /* u -> v, the hop we would take */
    uint32_t u = g->edges.data[e].to;
    if (g->edges.data[rev].points.len == 0 || g->nodes.data[u].non_monotonic)
      continue;
    relax(g, u, cost + CLOCK_COST_HOP, v, rev, CLOCK_HOP_SNAPSHOT);
  }
}

static void relax_rendezvous(clock_graph *g, uint32_t hub, uint64_t cost) {
  const clock_key *hub_key = &g->nodes.data[hub].key;
  for (uint32_t u = 0; u < g->nodes.len; u++)
    if (rendezvous_source(&g->nodes.data[u].key, hub_key))
      relax(g, u, cost + CLOCK_COST_RENDEZVOUS, hub, CLOCK_NODE_NONE,
            CLOCK_HOP_RENDEZVOUS);
}

static uint32_t comp_find(clock_graph *g, uint32_t x);

/* Assumed hops straight to trace time. A same-domain assumption is made once
 * per group of clocks related by snapshots (for the lowest-numbered clock of
 * the domain in the group): the others follow through their snapshots, so
 * an assumption never breaks relations the traces recorded (e.g. a relayed
 * machine's clocks against its host's). */
static void relax_assumed(clock_graph *g) {
  for (uint32_t u = 0; u < g->nodes.len; u++) {
    const clock_node *n = &g->nodes.data[u];
    uint8_t kind = assumed_hop(g, &n->key, n->live_edges == 0 || n->anchor);
    if (kind == CLOCK_HOP_NONE) continue;
    if (kind == CLOCK_HOP_SAME_DOMAIN) {
      clock_node *root = &g->nodes.data[comp_find(g, u)];
      if (root->comp_flags & CLOCK_COMP_ASSUMED) continue;
      root->comp_flags |= CLOCK_COMP_ASSUMED;
    }
    relax(g, u, CLOCK_COST_ASSUMED, g->trace_time, CLOCK_NODE_NONE, kind);
  }
}

static void place_from_trace_time(clock_graph *g) {
  uint32_t tt = g->trace_time, hub = rendezvous_hub(g);
  g->heap.len = 0;
  g->nodes.data[tt].cost = 0;
  heap_push(g, 0, tt);
  clock_heap_item it;
  while (heap_pop(g, &it)) {
    clock_node *n = &g->nodes.data[it.node];
    if (n->done || it.cost != n->cost) continue;
    n->done = 1;
    n->result = CLOCK_OK;
    n->level = it.node == tt ? CLOCK_LEVEL_TRACE_TIME : hop_level(n->hop_kind);
    if (it.node != tt && g->nodes.data[n->parent].level > n->level)
      n->level = g->nodes.data[n->parent].level;
    relax_snapshot_edges(g, it.node, it.cost);
    if (it.node == hub) relax_rendezvous(g, hub, it.cost);
    if (it.node == tt) relax_assumed(g);
  }
}

/* ---- components (for telling unrelatable domains from missing paths) ---- */

static uint32_t comp_find(clock_graph *g, uint32_t x) {
  clock_node *n = g->nodes.data;
  while (n[x].component != x) {
    n[x].component = n[n[x].component].component;
    x = n[x].component;
  }
  return x;
}

static void build_components(clock_graph *g) {
  for (size_t e = 0; e < g->edges.len; e += 2) {
    if (g->edges.data[e].points.len == 0) continue;
    uint32_t a = comp_find(g, g->edges.data[e].from);
    uint32_t b = comp_find(g, g->edges.data[e].to);
    if (a != b) g->nodes.data[a > b ? a : b].component = a < b ? a : b;
  }
  for (uint32_t v = 0; v < g->nodes.len; v++) {
    clock_node *n = &g->nodes.data[v];
    uint8_t flags = (clock_id_is_builtin(n->key.clock_id) ? CLOCK_COMP_BUILTIN : 0) |
                    (n->non_monotonic ? CLOCK_COMP_NONMONO : 0);
    g->nodes.data[comp_find(g, v)].comp_flags |= flags;
  }
}

static clock_result classify_failure(const clock_graph *g, uint8_t comp_flags) {
  if (g->trace_time == CLOCK_NODE_NONE) return CLOCK_NO_TRACE_TIME;
  if (clock_key_is_private(&g->nodes.data[g->trace_time].key))
    return CLOCK_NO_PATH;
  if ((comp_flags & CLOCK_COMP_BUILTIN) && !(comp_flags & CLOCK_COMP_NONMONO))
    return CLOCK_UNRELATABLE_DOMAINS;
  return CLOCK_NO_PATH;
}

int clock_graph_resolve(clock_graph *g, base_error *err) {
  if (g->resolved_version == g->version) return WEFT_OK;
  /* Pushes <= 1 + one per directed edge + two scans of all nodes. */
  if (VEC_RESERVE(g->heap, 1 + g->edges.len + 2 * g->nodes.len))
    return base_error_set(err, WEFT_ENOMEM, "out of memory placing clocks");
  for (uint32_t v = 0; v < g->nodes.len; v++) {
    clock_node *n = &g->nodes.data[v];
    n->cost = CLOCK_COST_INF;
    n->parent = n->parent_edge = CLOCK_NODE_NONE;
    n->component = v;
    n->hop_kind = CLOCK_HOP_NONE;
    n->level = CLOCK_LEVEL_NONE;
    n->done = 0;
    n->comp_flags = 0;
    n->ties = 0;
  }
  build_components(g);
  if (g->trace_time != CLOCK_NODE_NONE) place_from_trace_time(g);
  for (uint32_t v = 0; v < g->nodes.len; v++) {
    clock_node *n = &g->nodes.data[v];
    if (!n->done)
      n->result = classify_failure(g, g->nodes.data[comp_find(g, v)].comp_flags);
  }
  clock_graph_mark_ties(g);
  g->resolved_version = g->version;
  return WEFT_OK;
}

void clock_graph_place_isolated(const clock_graph *g, const clock_key *key,
                                clock_node *out) {
  out->cost = CLOCK_COST_INF;
  out->parent = out->parent_edge = CLOCK_NODE_NONE;
  out->hop_kind = CLOCK_HOP_NONE;
  out->level = CLOCK_LEVEL_NONE;
  out->done = 0;
  out->comp_flags = clock_id_is_builtin(key->clock_id) ? CLOCK_COMP_BUILTIN : 0;
  if (g->trace_time == CLOCK_NODE_NONE) {
    out->result = CLOCK_NO_TRACE_TIME;
    return;
  }
  uint32_t hub = rendezvous_hub(g);
  if (hub != CLOCK_NODE_NONE && g->nodes.data[hub].done &&
      rendezvous_source(key, &g->nodes.data[hub].key)) {
    out->cost = g->nodes.data[hub].cost + CLOCK_COST_RENDEZVOUS;
    out->parent = hub;
    out->hop_kind = CLOCK_HOP_RENDEZVOUS;
  }
  uint8_t kind = assumed_hop(g, key, true);
  if (kind != CLOCK_HOP_NONE &&
      (CLOCK_COST_ASSUMED < out->cost ||
       (CLOCK_COST_ASSUMED == out->cost && g->trace_time < out->parent))) {
    out->cost = CLOCK_COST_ASSUMED;
    out->parent = g->trace_time;
    out->hop_kind = kind;
  }
  if (out->parent == CLOCK_NODE_NONE) {
    out->result = classify_failure(g, out->comp_flags);
    return;
  }
  out->done = 1;
  out->result = CLOCK_OK;
  out->level = hop_level(out->hop_kind);
  if (g->nodes.data[out->parent].level > out->level)
    out->level = g->nodes.data[out->parent].level;
}
