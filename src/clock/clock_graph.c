/* Clock graph construction: nodes, edges, snapshots, relations, trace time. */
#include <assert.h>
#include <stdlib.h>

#include "clock/clock_internal.h"

#define DEFAULT_MAX_SNAPSHOT_CLOCKS 64u
#define MAX_SNAPSHOT_CLOCKS_CEILING 1024u
#define DEFAULT_MAX_POINTS (1ULL << 24)

int clock_graph_init(clock_graph *g, const clock_graph_limits *limits,
                     base_error *err) {
  memset(g, 0, sizeof *g);
  clock_graph_limits l = {0};
  if (limits) l = *limits;
  if (l.max_clocks == 0) l.max_clocks = CLOCK_MAX_CLOCKS_CEILING;
  if (l.max_snapshot_clocks == 0) l.max_snapshot_clocks = DEFAULT_MAX_SNAPSHOT_CLOCKS;
  if (l.max_points == 0) l.max_points = DEFAULT_MAX_POINTS;
  if (l.max_clocks > CLOCK_MAX_CLOCKS_CEILING ||
      l.max_snapshot_clocks > MAX_SNAPSHOT_CLOCKS_CEILING)
    return base_error_set(err, WEFT_EINVAL, "clock graph limits out of range");
  g->limits = l;
  g->trace_time = CLOCK_NODE_NONE;
  g->version = 1; /* resolved_version 0: placement is stale */
  return WEFT_OK;
}

void clock_graph_free(clock_graph *g) {
  for (size_t i = 0; i < g->nodes.len; i++) VEC_FREE(g->nodes.data[i].edges);
  for (size_t i = 0; i < g->edges.len; i++) VEC_FREE(g->edges.data[i].points);
  VEC_FREE(g->nodes);
  VEC_FREE(g->edges);
  base_map_free(&g->node_by_hash);
  base_map_free(&g->edge_by_pair);
  base_map_free(&g->stream_last);
  VEC_FREE(g->snapshots);
  VEC_FREE(g->snap_keys);
  VEC_FREE(g->snap_values);
  VEC_FREE(g->snap_nodes);
  VEC_FREE(g->heap);
  VEC_FREE(g->markers);
  memset(g, 0, sizeof *g);
  g->trace_time = CLOCK_NODE_NONE;
}

/* ---- nodes ---- */

static uint64_t key_hash(const clock_key *k) {
  uint64_t h = base_hash_u64(((uint64_t)k->machine << 32) | k->file);
  h = base_hash_u64(h ^ k->sequence ^ 0x9e3779b97f4a7c15ULL);
  h = base_hash_u64(h ^ k->clock_id);
  return h == UINT64_MAX ? h - 1 : h;
}

bool clock_graph_find(const clock_graph *g, const clock_key *key,
                      uint32_t *node_out) {
  const uint64_t *head = base_map_find(&g->node_by_hash, key_hash(key));
  if (!head) return false;
  for (uint32_t i = (uint32_t)*head; i != CLOCK_NODE_NONE;
       i = g->nodes.data[i].hash_next) {
    if (clock_key_equal(&g->nodes.data[i].key, key)) {
      if (node_out) *node_out = i;
      return true;
    }
  }
  return false;
}

static void node_reset_resolution(clock_node *n, uint32_t self) {
  n->cost = CLOCK_COST_INF;
  n->parent = CLOCK_NODE_NONE;
  n->parent_edge = CLOCK_NODE_NONE;
  n->component = self;
  n->hop_kind = CLOCK_HOP_NONE;
  n->level = CLOCK_LEVEL_NONE;
  n->result = CLOCK_NO_TRACE_TIME;
  n->done = 0;
  n->comp_flags = clock_id_is_builtin(n->key.clock_id) ? CLOCK_COMP_BUILTIN : 0;
}

/* A new node is isolated: when placement is current it can be placed
 * directly instead of invalidating every other node's placement. */
static void node_place_new(clock_graph *g, uint32_t idx) {
  clock_node *n = &g->nodes.data[idx];
  if (g->resolved_version != g->version) return;
  if (clock_graph_is_rendezvous_hub(g, &n->key)) {
    clock_graph_touch(g); /* other REALTIME clocks may now be placed */
    return;
  }
  clock_graph_place_isolated(g, &n->key, n);
}

int clock_graph_intern(clock_graph *g, const clock_key *key,
                       uint32_t *node_out, base_error *err) {
  if (clock_graph_find(g, key, node_out)) return WEFT_OK;
  if (g->nodes.len >= g->limits.max_clocks)
    return base_error_set(err, WEFT_ELIMIT, "too many clocks (limit %u)",
                          (unsigned)g->limits.max_clocks);
  if (VEC_RESERVE(g->nodes, g->nodes.len + 1))
    return base_error_set(err, WEFT_ENOMEM, "out of memory adding a clock");
  uint32_t idx = (uint32_t)g->nodes.len;
  uint64_t *slot;
  int inserted = base_map_insert(&g->node_by_hash, key_hash(key), idx, &slot);
  if (inserted < 0)
    return base_error_set(err, WEFT_ENOMEM, "out of memory adding a clock");
  clock_node n;
  memset(&n, 0, sizeof n);
  n.key = *key;
  n.hash_next = inserted ? CLOCK_NODE_NONE : (uint32_t)*slot;
  *slot = idx;
  node_reset_resolution(&n, idx);
  g->nodes.data[g->nodes.len++] = n;
  node_place_new(g, idx);
  if (node_out) *node_out = idx;
  return WEFT_OK;
}

const clock_key *clock_graph_node_key(const clock_graph *g, uint32_t node) {
  return node < g->nodes.len ? &g->nodes.data[node].key : NULL;
}

bool clock_graph_node_is_monotonic(const clock_graph *g, uint32_t node) {
  return node < g->nodes.len && !g->nodes.data[node].non_monotonic;
}

int clock_graph_set_anchor(clock_graph *g, uint32_t node, base_error *err) {
  if (node >= g->nodes.len)
    return base_error_set(err, WEFT_EINVAL, "unknown clock node %u",
                          (unsigned)node);
  if (!g->nodes.data[node].anchor) {
    g->nodes.data[node].anchor = true;
    clock_graph_touch(g);
  }
  return WEFT_OK;
}

/* ---- edges ---- */

static uint64_t pair_key(uint32_t a, uint32_t b) {
  return a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
}

/* Index of the directed edge a->b, or CLOCK_NODE_NONE. */
static uint32_t edge_find(const clock_graph *g, uint32_t a, uint32_t b) {
  const uint64_t *v = base_map_find(&g->edge_by_pair, pair_key(a, b));
  if (!v) return CLOCK_NODE_NONE;
  return a < b ? (uint32_t)*v : (uint32_t)*v ^ 1u;
}

/* Finds or creates the edge pair of a and b and reserves one more point in
 * each direction. All-or-nothing with respect to visible state. */
static int edge_prepare(clock_graph *g, uint32_t a, uint32_t b) {
  uint32_t e = edge_find(g, a, b);
  if (e == CLOCK_NODE_NONE) {
    if (g->edges.len > UINT32_MAX - 4) return WEFT_ELIMIT;
    if (VEC_RESERVE(g->edges, g->edges.len + 2) ||
        VEC_RESERVE(g->nodes.data[a].edges, g->nodes.data[a].edges.len + 1) ||
        VEC_RESERVE(g->nodes.data[b].edges, g->nodes.data[b].edges.len + 1))
      return WEFT_ENOMEM;
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    e = (uint32_t)g->edges.len;
    if (base_map_insert(&g->edge_by_pair, pair_key(a, b), e, NULL) < 0)
      return WEFT_ENOMEM;
    clock_edge fwd = {.from = lo, .to = hi, .sorted = true,
                      .cache_lo = 1, .cache_hi = 0};
    clock_edge rev = fwd;
    rev.from = hi;
    rev.to = lo;
    g->edges.data[g->edges.len++] = fwd;
    g->edges.data[g->edges.len++] = rev;
    clock_node *nl = &g->nodes.data[lo], *nh = &g->nodes.data[hi];
    nl->edges.data[nl->edges.len++] = e;
    nh->edges.data[nh->edges.len++] = e + 1;
    e = a < b ? e : e + 1;
  }
  clock_edge *ab = &g->edges.data[e], *ba = &g->edges.data[e ^ 1u];
  if (VEC_RESERVE(ab->points, ab->points.len + 1) ||
      VEC_RESERVE(ba->points, ba->points.len + 1))
    return WEFT_ENOMEM;
  return WEFT_OK;
}

#ifndef NDEBUG
/* clock.h: a clock pair's correspondences are a pair of directed edges,
 * e and e ^ 1, each the other reversed, holding the same points with
 * source and destination swapped. */
static bool edge_pair_is_symmetric(const clock_graph *g, uint32_t e) {
  const clock_edge *ab = &g->edges.data[e], *ba = &g->edges.data[e ^ 1u];
  if (ab->from != ba->to || ab->to != ba->from || ab->points.len != ba->points.len) return false;
  if (ab->points.len == 0) return true;
  const clock_point *p = &ab->points.data[ab->points.len - 1];
  const clock_point *q = &ba->points.data[ba->points.len - 1];
  return p->src == q->dst && p->dst == q->src && p->snapshot == q->snapshot;
}
#endif

static void edge_push(clock_graph *g, uint32_t e, int64_t src, int64_t dst,
                      uint32_t snapshot) {
  clock_edge *ed = &g->edges.data[e];
  if (ed->points.len == 0) {
    g->nodes.data[ed->from].live_edges++;
    clock_graph_touch(g);
  } else if (src < ed->points.data[ed->points.len - 1].src) {
    ed->sorted = false;
  }
  ed->points.data[ed->points.len++] = (clock_point){src, dst, snapshot};
  g->point_epoch++;
  ed->cache_lo = 1;
  ed->cache_hi = 0;
}

/* ---- snapshots ---- */

static int snapshot_validate(const clock_graph *g, const clock_key *keys,
                             const int64_t *values, size_t n, base_error *err) {
  if (n == 0 || !keys || !values)
    return base_error_set(err, WEFT_EPARSE, "empty clock snapshot");
  if (n > g->limits.max_snapshot_clocks)
    return base_error_set(err, WEFT_ELIMIT,
                          "clock snapshot has %zu clocks (limit %u)", n,
                          (unsigned)g->limits.max_snapshot_clocks);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (clock_key_equal(&keys[i], &keys[j]))
        return base_error_set(err, WEFT_EPARSE,
                              "clock snapshot lists clock %llu twice",
                              (unsigned long long)keys[i].clock_id);
  uint64_t new_points = (uint64_t)n * (n - 1);
  if (g->total_points + new_points > g->limits.max_points)
    return base_error_set(err, WEFT_ELIMIT,
                          "too many clock snapshot points (limit %llu)",
                          (unsigned long long)g->limits.max_points);
  if (g->snapshots.len >= UINT32_MAX - 1)
    return base_error_set(err, WEFT_ELIMIT, "too many clock snapshots");
  return WEFT_OK;
}

/* Every allocation the snapshot needs, before anything visible changes. */
static int snapshot_reserve(clock_graph *g, uint32_t stream,
                            const uint32_t *nodes, const int64_t *values,
                            size_t n) {
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      int rc = edge_prepare(g, nodes[i], nodes[j]);
      if (rc) return rc;
    }
  if (VEC_RESERVE(g->snapshots, g->snapshots.len + 1) ||
      VEC_RESERVE(g->snap_keys, g->snap_keys.len + n) ||
      VEC_RESERVE(g->snap_values, g->snap_values.len + n) ||
      VEC_RESERVE(g->snap_nodes, g->snap_nodes.len + n))
    return WEFT_ENOMEM;
  if (stream == CLOCK_STREAM_NONE) return WEFT_OK;
  for (size_t i = 0; i < n; i++) {
    uint64_t key = ((uint64_t)nodes[i] << 32) | stream;
    if (base_map_insert(&g->stream_last, key, (uint64_t)values[i], NULL) < 0)
      return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

static void snapshot_track_monotonic(clock_graph *g, uint32_t stream,
                                     const uint32_t *nodes,
                                     const int64_t *values, size_t n) {
  if (stream == CLOCK_STREAM_NONE) return;
  for (size_t i = 0; i < n; i++) {
    uint64_t *last =
        base_map_find(&g->stream_last, ((uint64_t)nodes[i] << 32) | stream);
    clock_node *node = &g->nodes.data[nodes[i]];
    if (values[i] < (int64_t)*last && !node->non_monotonic) {
      node->non_monotonic = true;
      clock_graph_touch(g);
    }
    *last = (uint64_t)values[i];
  }
}

int clock_graph_add_snapshot(clock_graph *g, uint32_t stream,
                             const clock_key *keys, const int64_t *values,
                             size_t n, uint32_t *snapshot_id_out,
                             base_error *err) {
  int rc = snapshot_validate(g, keys, values, n, err);
  if (rc) return rc;
  uint32_t nodes[MAX_SNAPSHOT_CLOCKS_CEILING];
  for (size_t i = 0; i < n; i++) {
    rc = clock_graph_intern(g, &keys[i], &nodes[i], err);
    if (rc) return rc;
  }
  rc = snapshot_reserve(g, stream, nodes, values, n);
  if (rc == WEFT_ELIMIT)
    return base_error_set(err, rc, "too many clock graph edges");
  if (rc) return base_error_set(err, rc, "out of memory adding a clock snapshot");

  uint32_t id = (uint32_t)g->snapshots.len;
  snapshot_track_monotonic(g, stream, nodes, values, n);
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++) {
      uint32_t e = edge_find(g, nodes[i], nodes[j]);
      edge_push(g, e, values[i], values[j], id);
      edge_push(g, e ^ 1u, values[j], values[i], id);
      assert(edge_pair_is_symmetric(g, e));
    }
  g->total_points += (uint64_t)n * (n - 1);
  g->snapshots.data[g->snapshots.len++] =
      (clock_snapshot_rec){g->snap_keys.len, (uint32_t)n, stream, false};
  memcpy(g->snap_keys.data + g->snap_keys.len, keys, n * sizeof *keys);
  memcpy(g->snap_values.data + g->snap_values.len, values, n * sizeof *values);
  memcpy(g->snap_nodes.data + g->snap_nodes.len, nodes, n * sizeof *nodes);
  g->snap_keys.len += n;
  g->snap_values.len += n;
  g->snap_nodes.len += n;
  if (snapshot_id_out) *snapshot_id_out = id;
  return WEFT_OK;
}

int clock_graph_add_relation(clock_graph *g, const clock_key *source,
                             const clock_key *reference, int64_t offset_ns,
                             uint32_t *snapshot_id_out, base_error *err) {
  clock_key keys[2] = {*source, *reference};
  int64_t values[2] = {0, offset_ns};
  return clock_graph_add_snapshot(g, CLOCK_STREAM_NONE, keys, values, 2,
                                  snapshot_id_out, err);
}

int clock_graph_add_alias(clock_graph *g, const clock_key *source,
                          const clock_key *reference, base_error *err) {
  uint32_t id;
  int rc = clock_graph_add_relation(g, source, reference, 0, &id, err);
  if (!rc) g->snapshots.data[id].hidden = true;
  return rc;
}

bool clock_graph_snapshot_get(const clock_graph *g, uint32_t id,
                              clock_snapshot_view *out) {
  if (id >= g->snapshots.len) return false;
  const clock_snapshot_rec *r = &g->snapshots.data[id];
  out->id = id;
  out->stream = r->stream;
  out->hidden = r->hidden;
  out->count = r->count;
  out->keys = g->snap_keys.data + r->first;
  out->values = g->snap_values.data + r->first;
  out->nodes = g->snap_nodes.data + r->first;
  return true;
}

/* ---- trace time ---- */

int clock_graph_claim_trace_time(clock_graph *g, const clock_key *key,
                                 base_error *err) {
  if (g->trace_time != CLOCK_NODE_NONE) return 0;
  uint32_t node;
  int rc = clock_graph_intern(g, key, &node, err);
  if (rc) return rc;
  g->trace_time = node;
  clock_graph_touch(g);
  return 1;
}

bool clock_graph_trace_time(const clock_graph *g, clock_key *key_out,
                            uint32_t *node_out) {
  if (g->trace_time == CLOCK_NODE_NONE) return false;
  if (key_out) *key_out = g->nodes.data[g->trace_time].key;
  if (node_out) *node_out = g->trace_time;
  return true;
}
