/* Clock graph: clock-sync markers become two-clock snapshots once both
 * halves are known, in either order. */
#include "check.h"
#include "clock/clock.h"

static uint32_t node(clock_graph *g, clock_key k) {
  uint32_t n = CLOCK_NODE_NONE;
  base_error err;
  CHECK_EQ_INT(clock_graph_intern(g, &k, &n, &err), WEFT_OK);
  return n;
}

static void graph_init(clock_graph *g) {
  base_error err;
  CHECK_EQ_INT(clock_graph_init(g, NULL, &err), WEFT_OK);
}

/* Snapshot `id` relates a at va and b at vb. */
static void check_pair(clock_graph *g, uint32_t id, uint32_t a, int64_t va, uint32_t b,
                       int64_t vb) {
  clock_snapshot_view v;
  CHECK(clock_graph_snapshot_get(g, id, &v));
  CHECK_EQ_INT(v.count, 2);
  CHECK(!v.hidden);
  CHECK_EQ_INT(v.nodes[0], a);
  CHECK_EQ_INT(v.values[0], va);
  CHECK_EQ_INT(v.nodes[1], b);
  CHECK_EQ_INT(v.values[1], vb);
}

static void test_named_markers_pair_once(void) {
  clock_graph g;
  graph_init(&g);
  base_error err;
  uint32_t json = node(&g, clock_key_make(0, 1, 0, CLOCK_ID_FILE_PRIVATE));
  uint32_t mono = node(&g, clock_key_make(0, 0, 0, CLOCK_ID_MONOTONIC));
  CHECK_EQ_INT(clock_graph_add_named_marker(&g, json, "a", 1, 4500, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_add_named_marker(&g, json, "a", 1, 9999, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_add_named_marker(&g, mono, "b", 1, 1, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 0); /* same clock, other id */
  CHECK_EQ_INT(clock_graph_add_named_marker(&g, mono, "a", 1, 2001000, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 1);
  check_pair(&g, 0, json, 4500, mono, 2001000);
  /* The relation places the JSON clock: trace time MONOTONIC. */
  clock_key mk = clock_key_make(0, 0, 0, CLOCK_ID_MONOTONIC);
  CHECK_EQ_INT(clock_graph_claim_trace_time(&g, &mk, &err), 1);
  int64_t out = 0;
  CHECK_EQ_INT(clock_graph_convert(&g, json, 1000, &out), CLOCK_OK);
  CHECK_EQ_INT(out, 1997500);
  clock_graph_free(&g);
}

static void test_parent_markers_in_either_order(void) {
  clock_graph g;
  graph_init(&g);
  base_error err;
  uint32_t json1 = node(&g, clock_key_make(0, 1, 0, CLOCK_ID_FILE_PRIVATE));
  uint32_t mono = node(&g, clock_key_make(0, 0, 0, CLOCK_ID_MONOTONIC));
  uint32_t json2 = node(&g, clock_key_make(0, 3, 0, CLOCK_ID_FILE_PRIVATE));
  CHECK_EQ_INT(clock_graph_add_parent_marker(&g, mono, 2001000, 4500, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 0); /* no trace-event clock yet */
  CHECK_EQ_INT(clock_graph_add_trace_event_clock(&g, json1, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_add_trace_event_clock(&g, json1, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 1);
  check_pair(&g, 0, mono, 2001000, json1, 4500);
  CHECK_EQ_INT(clock_graph_add_trace_event_clock(&g, json2, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_add_parent_marker(&g, mono, 3001000, 1004500, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 4);
  check_pair(&g, 1, mono, 2001000, json2, 4500);
  check_pair(&g, 3, mono, 3001000, json2, 1004500);
  CHECK_EQ_INT(clock_graph_add_named_marker(&g, 99, "x", 1, 0, &err), WEFT_EINVAL);
  clock_graph_free(&g);
}

/* Markers past CLOCK_MAX_MARKERS are ignored, not an error. */
static void test_marker_limit(void) {
  clock_graph g;
  graph_init(&g);
  base_error err;
  uint32_t a = node(&g, clock_key_make(0, 1, 0, CLOCK_ID_FILE_PRIVATE));
  uint32_t b = node(&g, clock_key_make(0, 0, 0, CLOCK_ID_MONOTONIC));
  char id[16];
  for (unsigned i = 0; i < CLOCK_MAX_MARKERS; i++) {
    int n = snprintf(id, sizeof id, "m%u", i);
    CHECK_EQ_INT(clock_graph_add_named_marker(&g, a, id, (size_t)n, i, &err), WEFT_OK);
  }
  CHECK_EQ_INT(clock_graph_add_named_marker(&g, b, "m1", 2, 5, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 0);
  clock_graph_free(&g);
}

int main(void) {
  RUN_TEST(test_named_markers_pair_once);
  RUN_TEST(test_parent_markers_in_either_order);
  RUN_TEST(test_marker_limit);
  return CHECK_SUMMARY();
}
