/* Clock-sync markers (clock.h): each half of a sync recorded by one trace,
 * related to its other half by a two-clock snapshot once both are known. */
#include "clock/clock_internal.h"

/* The snapshot {a: va, b: vb}, exempt from monotonicity tracking. */
static int marker_relate(clock_graph *g, uint32_t a, int64_t va, uint32_t b, int64_t vb,
                         base_error *err) {
  clock_key keys[2] = {g->nodes.data[a].key, g->nodes.data[b].key};
  int64_t values[2] = {va, vb};
  return clock_graph_add_snapshot(g, CLOCK_STREAM_NONE, keys, values, 2, NULL, err);
}

/* Keeps m; false when the list is full (m is then ignored). */
static int marker_keep(clock_graph *g, const clock_marker *m, bool *kept, base_error *err) {
  *kept = false;
  if (m->node >= g->nodes.len)
    return base_error_set(err, WEFT_EINVAL, "unknown clock node %u", (unsigned)m->node);
  if (g->markers.len >= CLOCK_MAX_MARKERS) return WEFT_OK;
  if (VEC_PUSH(g->markers, *m))
    return base_error_set(err, WEFT_ENOMEM, "out of memory adding a clock-sync marker");
  *kept = true;
  return WEFT_OK;
}

int clock_graph_add_named_marker(clock_graph *g, uint32_t node, const char *id,
                                 size_t id_len, int64_t value, base_error *err) {
  clock_marker m = {.id = base_hash_bytes(id, id_len), .node = node,
                    .kind = CLOCK_MARKER_NAMED, .value = value};
  bool kept;
  int rc = marker_keep(g, &m, &kept, err);
  if (rc || !kept) return rc;
  size_t self = g->markers.len - 1;
  for (size_t i = 0; i < self; i++) {
    clock_marker *o = &g->markers.data[i];
    if (o->kind != CLOCK_MARKER_NAMED || o->id != m.id || o->paired || o->node == node)
      continue;
    o->paired = g->markers.data[self].paired = true;
    return marker_relate(g, o->node, o->value, node, value, err);
  }
  return WEFT_OK;
}

int clock_graph_add_parent_marker(clock_graph *g, uint32_t node, int64_t value,
                                  int64_t parent_value, base_error *err) {
  clock_marker m = {.node = node, .kind = CLOCK_MARKER_PARENT, .value = value,
                    .parent = parent_value};
  bool kept;
  int rc = marker_keep(g, &m, &kept, err);
  for (size_t i = 0; !rc && kept && i + 1 < g->markers.len; i++) {
    const clock_marker *o = &g->markers.data[i];
    if (o->kind == CLOCK_MARKER_TRACE_EVENT_CLOCK && o->node != node)
      rc = marker_relate(g, node, value, o->node, parent_value, err);
  }
  return rc;
}

int clock_graph_add_trace_event_clock(clock_graph *g, uint32_t node, base_error *err) {
  for (size_t i = 0; i < g->markers.len; i++)
    if (g->markers.data[i].kind == CLOCK_MARKER_TRACE_EVENT_CLOCK &&
        g->markers.data[i].node == node)
      return WEFT_OK;
  clock_marker m = {.node = node, .kind = CLOCK_MARKER_TRACE_EVENT_CLOCK};
  bool kept;
  int rc = marker_keep(g, &m, &kept, err);
  for (size_t i = 0; !rc && kept && i + 1 < g->markers.len; i++) {
    const clock_marker *o = &g->markers.data[i];
    if (o->kind == CLOCK_MARKER_PARENT && o->node != node)
      rc = marker_relate(g, o->node, o->value, node, o->parent, err);
  }
  return rc;
}
