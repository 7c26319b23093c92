/* clock: determinism (tie breaks), the conversion cache against the
 * direct conversion and a brute force, overflow, hostile input, trace-time
 * claims, long chains and allocation failures. */
#include <stdlib.h>

#include "check.h"
#include "clock/clock.h"
#include "clock_helpers.h"

/* ---- determinism and caching ---- */

static int64_t tie_break_case(bool a_first) {
  clock_graph g;
  graph_init(&g);
  clock_key tt = K(0, CLOCK_ID_BOOTTIME);
  clock_key a = clock_key_make(0, 1, 0, 130), b = clock_key_make(0, 1, 0, 131);
  clock_key s = clock_key_make(0, 1, 0, 132);
  claim(&g, tt);
  node_of(&g, a_first ? a : b);
  node_of(&g, a_first ? b : a);
  snap2(&g, 1, s, 0, b, 100);
  snap2(&g, 2, s, 0, a, 200);
  snap2(&g, 3, a, 0, tt, 0);
  snap2(&g, 4, b, 0, tt, 0);
  int64_t out = 0;
  CHECK_EQ_INT(clock_graph_convert_key(&g, &s, 10, &out), CLOCK_OK);
  uint32_t path[4];
  size_t len = 0;
  clock_graph_path(&g, node_of(&g, s), path, 4, &len);
  CHECK_EQ_INT(len, 3);
  CHECK_EQ_INT(path[1], 1); /* the neighbour created first */
  clock_graph_free(&g);
  return out;
}

static void test_tie_break(void) {
  CHECK_EQ_INT(tie_break_case(true), 210);
  CHECK_EQ_INT(tie_break_case(false), 110);
  CHECK_EQ_INT(tie_break_case(true), 210);
}

static void test_cache_across_intervals(void) {
  clock_graph g;
  build_example1(&g);
  clock_key mono = K(0, CLOCK_ID_MONOTONIC), boot = K(0, CLOCK_ID_BOOTTIME);
  static const int64_t seq[][2] = {
      {1104, 2104}, {1150, 2150}, {1950, 2950}, {1104, 2104}, {2050, 3550},
      {500, 1500},  {1104, 2104}, {1199, 2199}, {1200, 2200}, {1099, 2099},
      {INT64_MIN + 5000, INT64_MIN + 6000}, {2100, 3600}, {1104, 2104}};
  for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
    CHECK_CONV(&g, mono, seq[i][0], seq[i][1]);
  /* New points invalidate cached intervals. */
  CHECK_CONV(&g, mono, 2250, 3750); /* caches [2100, +inf) */
  snap2(&g, 1, mono, 2200, boot, 4000);
  CHECK_CONV(&g, mono, 2250, 4050);
  CHECK_CONV(&g, mono, 2150, 3650);
  /* An out-of-order point from another stream lands in the middle. */
  snap2(&g, 2, mono, 1150, boot, 2160);
  CHECK_CONV(&g, mono, 1160, 2170);
  CHECK_CONV(&g, mono, 1104, 2104);
  CHECK_CONV(&g, mono, 2250, 4050);
  /* Equal source values: the latest snapshot wins. */
  snap2(&g, 3, mono, 1150, boot, 9150);
  CHECK_CONV(&g, mono, 1160, 9160);
  CHECK_CONV(&g, mono, 1149, 2149);
  clock_graph_free(&g);

  build_example2(&g);
  clock_key custom = example2_custom();
  static const int64_t seq2[][2] = {
      {3503, 7703}, {1500, 5600}, {500, 4600}, {3503, 7703}, {3000, 7200},
      {2999, 7099}, {3503, 7703}};
  for (size_t i = 0; i < sizeof seq2 / sizeof seq2[0]; i++)
    CHECK_CONV(&g, custom, seq2[i][0], seq2[i][1]);
  clock_graph_free(&g);
}

/* Nearest neighbour computed the slow way from the recorded snapshots. */
static int64_t brute_force(const clock_graph *g, uint32_t src, uint32_t dst,
                           int64_t ts) {
  int64_t best_src = 0, best_dst = 0, first_src = 0, first_dst = 0;
  bool have_best = false, have_first = false;
  for (uint32_t id = 0; id < clock_graph_snapshot_count(g); id++) {
    clock_snapshot_view v;
    clock_graph_snapshot_get(g, id, &v);
    int64_t vs = 0, vd = 0;
    int found = 0;
    for (size_t i = 0; i < v.count; i++) {
      if (v.nodes[i] == src) vs = v.values[i], found |= 1;
      if (v.nodes[i] == dst) vd = v.values[i], found |= 2;
    }
    if (found != 3) continue;
    if (!have_first || vs < first_src) {
      first_src = vs, first_dst = vd, have_first = true;
    }
    if (vs <= ts && (!have_best || vs >= best_src)) {
      best_src = vs, best_dst = vd, have_best = true;
    }
  }
  return have_best ? ts - best_src + best_dst : ts - first_src + first_dst;
}

static void test_cache_random_against_brute_force(void) {
  clock_graph g;
  graph_init(&g);
  clock_key mono = K(0, CLOCK_ID_MONOTONIC), boot = K(0, CLOCK_ID_BOOTTIME);
  claim(&g, boot);
  uint32_t src = node_of(&g, mono), dst = node_of(&g, boot);
  srand(12345);
  int64_t base[4] = {0, 0, 0, 0};
  int mismatches = 0;
  for (int step = 0; step < 3000; step++) {
    if (step % 7 == 0) {
      uint32_t stream = (uint32_t)(rand() % 4);
      base[stream] += rand() % 50;
      int64_t m = base[stream] + (int64_t)stream * 100;
      snap2(&g, stream, mono, m, boot, m * 2 + rand() % 10);
    }
    if (clock_graph_snapshot_count(&g) == 0) continue;
    int64_t ts = rand() % 3000 - 100, out = 0;
    if (clock_graph_convert(&g, src, ts, &out) != CLOCK_OK ||
        out != brute_force(&g, src, dst, ts))
      mismatches++;
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK(clock_graph_node_is_monotonic(&g, src));
  clock_graph_free(&g);
}

/* A random 64-bit value, often near the ends of int64 or near zero. */
static int64_t random_value(void) {
  uint64_t v = (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand();
  switch (rand() % 4) {
  case 0: return INT64_MAX - (int64_t)(v % 1000);
  case 1: return INT64_MIN + (int64_t)(v % 1000);
  case 2: return (int64_t)(v % 100000) - 50000;
  default: return (int64_t)v;
  }
}

/* a + d, wrapping around the ends of int64. */
static int64_t wrapping_add(int64_t a, int64_t d) {
  return (int64_t)((uint64_t)a + (uint64_t)d);
}

/* The cached conversion equals the direct one along multi-hop paths, near
 * every piece boundary, at the ends of int64 (overflowing offsets, results
 * that do not fit), and after new points change the pieces. */
static void test_converter_against_direct(void) {
  for (unsigned seed = 1; seed <= 20; seed++) {
    srand(seed);
    clock_graph g;
    graph_init(&g);
    clock_key chain[4] = {K(0, CLOCK_ID_BOOTTIME), K(0, CLOCK_ID_MONOTONIC),
                          K(0, CLOCK_ID_MONOTONIC_RAW), clock_key_make(0, 1, 0, 500)};
    claim(&g, chain[0]);
    int mismatches = 0;
    int64_t near[64]; /* piece boundaries, to convert timestamps around */
    size_t nears = 0;
    for (int step = 0; step < 4000; step++) {
      if (step % 100 == 0) { /* a snapshot on one link of the chain */
        int link = rand() % 3;
        int64_t a = rand() % 4 ? (int64_t)(rand() % 100000) : random_value();
        int64_t b = rand() % 4 ? wrapping_add(a, rand() % 60000 - 30000) : random_value();
        snap2(&g, (uint32_t)(step % 3), chain[link], b, chain[link + 1], a);
        near[nears++ % 64] = a;
      }
      clock_key k = chain[1 + rand() % 3];
      uint32_t node;
      if (!clock_graph_find(&g, &k, &node)) continue;
      int64_t ts = rand() % 3 ? (int64_t)(rand() % 120000) - 10000 : random_value();
      if (rand() % 2)
        ts = wrapping_add(near[(size_t)rand() % (nears < 64 ? nears : 64)], rand() % 60001 - 30000);
      int64_t direct = 0, cached = 0;
      clock_result r = clock_graph_convert(&g, node, ts, &direct);
      clock_result rc = clock_converter_convert(&g, &test_converter, node, ts, &cached);
      if (r != rc || (r == CLOCK_OK && direct != cached)) mismatches++;
    }
    CHECK_EQ_INT(mismatches, 0);
    clock_graph_free(&g);
  }
}

/* ---- arithmetic and hostile input ---- */

static void test_overflow(void) {
  clock_graph g;
  graph_init(&g);
  clock_key b = K(0, CLOCK_ID_BOOTTIME), m = K(0, CLOCK_ID_MONOTONIC);
  claim(&g, b);
  snap2(&g, 1, m, 0, b, INT64_MAX - 10);
  CHECK_CONV(&g, m, 5, INT64_MAX - 5);
  CHECK_CONV(&g, m, 10, INT64_MAX);
  CHECK_CONV_FAILS(&g, m, 11, CLOCK_OVERFLOW);
  CHECK_CONV_FAILS(&g, m, INT64_MAX, CLOCK_OVERFLOW);
  CHECK_CONV(&g, m, INT64_MIN, -11);
  /* dst - src itself does not fit in int64. */
  clock_key r = K(0, CLOCK_ID_MONOTONIC_RAW);
  snap2(&g, 1, r, INT64_MIN + 100, b, INT64_MAX - 100);
  CHECK_CONV(&g, r, INT64_MIN + 150, INT64_MAX - 50);
  CHECK_CONV(&g, r, INT64_MIN + 100, INT64_MAX - 100);
  CHECK_CONV_FAILS(&g, r, INT64_MIN + 300, CLOCK_OVERFLOW);
  CHECK_CONV_FAILS(&g, r, INT64_MAX, CLOCK_OVERFLOW);
  clock_key c = K(0, CLOCK_ID_REALTIME_COARSE);
  snap2(&g, 1, c, INT64_MAX - 1, b, INT64_MIN + 1);
  CHECK_CONV(&g, c, INT64_MAX - 1, INT64_MIN + 1);
  CHECK_CONV(&g, c, INT64_MAX, INT64_MIN + 2);
  CHECK_CONV_FAILS(&g, c, 0, CLOCK_OVERFLOW);
  /* Overflow on the second hop of a path. */
  clock_key x = clock_key_make(0, 1, 0, 500);
  snap2(&g, 2, x, 0, m, 100);
  CHECK_CONV(&g, x, -90, INT64_MAX);
  CHECK_CONV_FAILS(&g, x, -89, CLOCK_OVERFLOW);
  clock_graph_free(&g);
}

static void test_bad_input(void) {
  base_error err;
  clock_graph g;
  clock_graph_limits limits = {.max_clocks = 4, .max_snapshot_clocks = 3,
                               .max_points = 10};
  CHECK_EQ_INT(clock_graph_init(&g, &limits, &err), WEFT_OK);
  int64_t out;
  CHECK_EQ_INT(clock_graph_convert(&g, 0, 1, &out), CLOCK_BAD_NODE);
  clock_key keys[4] = {K(0, 1), K(0, 3), K(0, 6), K(0, 5)};
  int64_t values[4] = {1, 2, 3, 4};
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 0, NULL, &err),
               WEFT_EPARSE);
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 4, NULL, &err),
               WEFT_ELIMIT);
  clock_key dup[2] = {K(0, 6), clock_key_make(0, 7, 7, 6)};
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, dup, values, 2, NULL, &err),
               WEFT_EPARSE);
  CHECK(strstr(err.message, "twice") != NULL);
  uint32_t id = 99;
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 3, &id, &err),
               WEFT_OK);
  CHECK_EQ_INT(id, 0);
  CHECK_EQ_INT(clock_graph_convert(&g, 0, 1, &out), CLOCK_NO_TRACE_TIME);
  CHECK_CONV_FAILS(&g, K(0, 6), 1, CLOCK_NO_TRACE_TIME);
  /* 6 points used, 4 left: a 3-clock snapshot needs 6. */
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 3, NULL, &err),
               WEFT_ELIMIT);
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 2, NULL, &err),
               WEFT_OK);
  uint32_t node;
  CHECK_EQ_INT(clock_graph_intern(&g, &keys[3], &node, &err), WEFT_OK);
  clock_key fifth = K(0, 2);
  CHECK_EQ_INT(clock_graph_intern(&g, &fifth, &node, &err), WEFT_ELIMIT);
  CHECK_EQ_INT(clock_graph_claim_trace_time(&g, &fifth, &err), WEFT_ELIMIT);
  CHECK(!clock_graph_trace_time(&g, NULL, NULL));
  CHECK(clock_graph_node_key(&g, 4) == NULL);
  CHECK(clock_graph_node_key(&g, 3) != NULL);
  CHECK(!clock_graph_node_is_monotonic(&g, 77));
  CHECK_EQ_INT(clock_graph_placement(&g, 77, NULL, NULL), CLOCK_BAD_NODE);
  size_t len;
  CHECK_EQ_INT(clock_graph_path(&g, 77, NULL, 0, &len), CLOCK_BAD_NODE);
  clock_graph_free(&g);

  clock_graph_limits bad = {.max_clocks = (1u << 20) + 1};
  CHECK_EQ_INT(clock_graph_init(&g, &bad, &err), WEFT_EINVAL);
  clock_graph_free(&g);
  bad = (clock_graph_limits){.max_snapshot_clocks = 5000};
  CHECK_EQ_INT(clock_graph_init(&g, &bad, &err), WEFT_EINVAL);
  clock_graph_free(&g);
}

static void test_trace_time_claim_and_records(void) {
  clock_graph g;
  graph_init(&g);
  base_error err;
  clock_key b = K(1, CLOCK_ID_BOOTTIME), r = K(1, CLOCK_ID_REALTIME);
  CHECK_EQ_INT(clock_graph_claim_trace_time(&g, &b, &err), 1);
  CHECK_EQ_INT(clock_graph_claim_trace_time(&g, &r, &err), 0);
  clock_key got;
  uint32_t node;
  CHECK(clock_graph_trace_time(&g, &got, &node));
  CHECK(clock_key_equal(&got, &b));
  CHECK_EQ_INT(node, 0);
  clock_key keys[3] = {b, r, K(1, CLOCK_ID_MONOTONIC)};
  int64_t values[3] = {10, 20, 30};
  uint32_t id;
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 7, keys, values, 3, &id, &err), 0);
  CHECK_EQ_INT(id, 0);
  values[0] = 11;
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 7, keys, values, 1, &id, &err), 0);
  CHECK_EQ_INT(id, 1);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 2);
  clock_snapshot_view v;
  CHECK(clock_graph_snapshot_get(&g, 0, &v));
  CHECK_EQ_INT(v.id, 0);
  CHECK_EQ_INT(v.stream, 7);
  CHECK_EQ_INT(v.count, 3);
  CHECK(clock_key_equal(&v.keys[2], &keys[2]));
  CHECK_EQ_INT(v.values[1], 20);
  CHECK_EQ_INT(v.nodes[0], 0);
  CHECK_EQ_INT(v.nodes[1], 1);
  CHECK(clock_graph_snapshot_get(&g, 1, &v));
  CHECK_EQ_INT(v.count, 1);
  CHECK_EQ_INT(v.values[0], 11);
  CHECK(!clock_graph_snapshot_get(&g, 2, &v));
  CHECK_CONV(&g, K(1, CLOCK_ID_MONOTONIC), 35, 15);
  CHECK_CONV(&g, r, 25, 15); /* REALTIME 20 <-> BOOTTIME 10 */
  clock_graph_free(&g);
}

/* Clocks that appear after placement are placed without recomputing it. */
static void test_incremental_isolated_clocks(void) {
  clock_graph g;
  build_example1(&g);
  base_error err;
  CHECK_EQ_INT(clock_graph_resolve(&g, &err), WEFT_OK);
  uint64_t version = g.version;
  for (uint32_t seq = 1; seq <= 50000; seq++) {
    clock_key k = clock_key_make(0, 1, seq, 64);
    uint32_t node;
    int64_t out;
    CHECK_EQ_INT(clock_graph_intern(&g, &k, &node, &err), WEFT_OK);
    if (clock_graph_convert(&g, node, 5, &out) != CLOCK_NO_PATH) CHECK(0);
  }
  CHECK_EQ_INT(g.version, version);
  CHECK_CONV(&g, K(4, CLOCK_ID_BOOTTIME), 5, 5);
  node_of(&g, K(4, CLOCK_ID_BOOTTIME));
  CHECK_EQ_INT(level_of(&g, K(4, CLOCK_ID_BOOTTIME)), CLOCK_LEVEL_SAME_DOMAIN);
  CHECK_CONV_FAILS(&g, K(4, CLOCK_ID_REALTIME), 5, CLOCK_UNRELATABLE_DOMAINS);
  node_of(&g, K(4, CLOCK_ID_REALTIME));
  CHECK_EQ_INT(g.version, version);
  /* REALTIME of the trace-time machine opens the rendezvous for others. */
  snap2(&g, 1, K(0, CLOCK_ID_BOOTTIME), 3600, K(0, CLOCK_ID_REALTIME), 10000);
  CHECK(g.version != version);
  CHECK_CONV(&g, K(4, CLOCK_ID_REALTIME), 10005, 3605);
  CHECK_EQ_INT(level_of(&g, K(4, CLOCK_ID_REALTIME)), CLOCK_LEVEL_REALTIME);
  clock_graph_free(&g);
}

static void test_long_chain(void) {
  clock_graph g;
  graph_init(&g);
  clock_key tt = K(0, CLOCK_ID_BOOTTIME);
  claim(&g, tt);
  clock_key prev = tt;
  const uint32_t n = 20000;
  for (uint32_t i = 0; i < n; i++) {
    clock_key k = clock_key_make(0, 1, 0, 1000 + i);
    snap2(&g, 1, k, 0, prev, 1);
    prev = k;
  }
  CHECK_CONV(&g, prev, 0, n);
  CHECK_EQ_INT(hops_of(&g, prev), n);
  CHECK_CONV(&g, prev, 7, n + 7);
  clock_graph_free(&g);
}

/* Fails every allocation in turn: each failure is reported, nothing leaks
 * (checked by LSan), and the run that completes gives the right answers. */
static int alloc_scenario(void) {
  clock_graph g;
  base_error err;
  int rc = clock_graph_init(&g, NULL, &err);
  if (rc) return rc;
  clock_key b = K(0, CLOCK_ID_BOOTTIME), m = K(0, CLOCK_ID_MONOTONIC);
  clock_key r = K(0, CLOCK_ID_REALTIME), c = clock_key_make(0, 1, 2, 64);
  clock_key keys[3] = {b, m, r};
  int64_t values[3] = {2000, 1000, 9000};
  int64_t out = 0;
  rc = clock_graph_claim_trace_time(&g, &b, &err);
  if (rc < 0) goto done;
  for (int i = 0; i < 20 && rc >= 0; i++) {
    values[0] += 100, values[1] += 100, values[2] += 100;
    rc = clock_graph_add_snapshot(&g, 1, keys, values, 3, NULL, &err);
  }
  if (rc < 0) goto done;
  rc = clock_graph_add_relation(&g, &c, &m, 50, NULL, &err);
  if (rc < 0) goto done;
  clock_result cr = clock_graph_convert_key(&g, &c, 1000, &out);
  if (cr == CLOCK_ERR_NOMEM) {
    rc = WEFT_ENOMEM;
    goto done;
  }
  rc = (cr == CLOCK_OK && out == 1000 + 50 - 2000 + 3000) ? 0 : 1;
done:
  clock_graph_free(&g);
  return rc;
}

static void test_allocation_failures(void) {
  int completed = 0;
  for (uint64_t n = 1; n < 500 && !completed; n++) {
    base_alloc_fail_after(n);
    int rc = alloc_scenario();
    base_alloc_fail_after(0);
    if (rc == 0) completed = 1;
    else CHECK_EQ_INT(rc, WEFT_ENOMEM);
  }
  CHECK(completed);
  CHECK_EQ_INT(alloc_scenario(), 0);
}

int main(void) {
  RUN_TEST(test_converter_against_direct);
  RUN_TEST(test_tie_break);
  RUN_TEST(test_cache_across_intervals);
  RUN_TEST(test_cache_random_against_brute_force);
  RUN_TEST(test_overflow);
  RUN_TEST(test_bad_input);
  RUN_TEST(test_trace_time_claim_and_records);
  RUN_TEST(test_incremental_isolated_clocks);
  RUN_TEST(test_long_chain);
  RUN_TEST(test_allocation_failures);
  return CHECK_SUMMARY();
}
