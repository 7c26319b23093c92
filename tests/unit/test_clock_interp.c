/* Clock graph: LINEAR interpolation between snapshots, and the 50 ppm drift
 * error model of docs/clocks.md. */
#include <stdlib.h>

#include "check.h"
#include "clock/clock.h"

static clock_key K(uint32_t machine, uint64_t id) {
  return clock_key_make(machine, 0, 0, id);
}

static clock_converter test_converter;

static void graph_init(clock_graph *g, clock_interpolation mode) {
  test_converter = (clock_converter){0};
  base_error err;
  CHECK_EQ_INT(clock_graph_init(g, NULL, &err), WEFT_OK);
  clock_graph_set_interpolation(g, mode);
}

static void snap2_on(clock_graph *g, uint32_t stream, clock_key a, int64_t va,
                     clock_key b, int64_t vb) {
  clock_key keys[2] = {a, b};
  int64_t values[2] = {va, vb};
  base_error err;
  CHECK_EQ_INT(clock_graph_add_snapshot(g, stream, keys, values, 2, NULL, &err), WEFT_OK);
}

static void snap2(clock_graph *g, clock_key a, int64_t va, clock_key b, int64_t vb) {
  snap2_on(g, 1, a, va, b, vb);
}

static void claim(clock_graph *g, clock_key k) {
  base_error err;
  CHECK_EQ_INT(clock_graph_claim_trace_time(g, &k, &err), 1);
}

/* Direct conversion, checked against the converter cache. */
static int64_t conv(clock_graph *g, clock_key k, int64_t ts) {
  uint32_t node = CLOCK_NODE_NONE;
  CHECK(clock_graph_find(g, &k, &node));
  int64_t direct = 0, cached = 0;
  CHECK_EQ_INT(clock_graph_convert(g, node, ts, &direct), CLOCK_OK);
  CHECK_EQ_INT(clock_converter_convert(g, &test_converter, node, ts, &cached), CLOCK_OK);
  CHECK_EQ_INT(cached, direct);
  return direct;
}

/* MONOTONIC 1000 -> BOOTTIME 2000 and MONOTONIC 2000 -> BOOTTIME 3100: the
 * clocks drift 10 %. */
static void build_two_points(clock_graph *g, clock_interpolation mode) {
  graph_init(g, mode);
  claim(g, K(0, CLOCK_ID_BOOTTIME));
  snap2(g, K(0, CLOCK_ID_MONOTONIC), 1000, K(0, CLOCK_ID_BOOTTIME), 2000);
  snap2(g, K(0, CLOCK_ID_MONOTONIC), 2000, K(0, CLOCK_ID_BOOTTIME), 3100);
}

static void test_nearest_is_default(void) {
  clock_graph g;
  base_error err;
  CHECK_EQ_INT(clock_graph_init(&g, NULL, &err), WEFT_OK);
  CHECK_EQ_INT(clock_graph_interpolation(&g), CLOCK_INTERP_NEAREST);
  clock_graph_free(&g);
  build_two_points(&g, CLOCK_INTERP_NEAREST);
  CHECK_EQ_INT(conv(&g, K(0, CLOCK_ID_MONOTONIC), 1500), 2500);
  clock_graph_free(&g);
}

static void test_linear_between_points(void) {
  clock_graph g;
  build_two_points(&g, CLOCK_INTERP_LINEAR);
  clock_key mono = K(0, CLOCK_ID_MONOTONIC);
  CHECK_EQ_INT(conv(&g, mono, 1000), 2000); /* on the points: exact */
  CHECK_EQ_INT(conv(&g, mono, 2000), 3100);
  CHECK_EQ_INT(conv(&g, mono, 1500), 2550);
  CHECK_EQ_INT(conv(&g, mono, 1001), 2001); /* 2001.1 */
  CHECK_EQ_INT(conv(&g, mono, 1005), 2005); /* 2005.5, rounded down */
  CHECK_EQ_INT(conv(&g, mono, 1999), 3098); /* 3098.9 */
  /* Outside the points: the nearest one, as NEAREST does. */
  CHECK_EQ_INT(conv(&g, mono, 900), 1900);
  CHECK_EQ_INT(conv(&g, mono, 2500), 3600);
  /* Back to NEAREST: the caches follow. */
  clock_graph_set_interpolation(&g, CLOCK_INTERP_NEAREST);
  CHECK_EQ_INT(conv(&g, mono, 1500), 2500);
  clock_graph_set_interpolation(&g, CLOCK_INTERP_LINEAR);
  CHECK_EQ_INT(conv(&g, mono, 1500), 2550);
  clock_graph_free(&g);
}

/* The reverse edge interpolates too (BOOTTIME as the source clock). */
static void test_linear_reverse_and_multi_hop(void) {
  clock_graph g;
  graph_init(&g, CLOCK_INTERP_LINEAR);
  clock_key boot = K(0, CLOCK_ID_BOOTTIME), mono = K(0, CLOCK_ID_MONOTONIC);
  clock_key custom = clock_key_make(0, 1, 0, 200);
  claim(&g, mono);
  snap2(&g, mono, 1000, boot, 2000);
  snap2(&g, mono, 2000, boot, 3100);
  CHECK_EQ_INT(conv(&g, boot, 2550), 1500);
  /* custom -> BOOTTIME -> MONOTONIC: two interpolated pieces (no converter
   * cache, still the same answer). */
  snap2_on(&g, 2, custom, 0, boot, 2000);
  snap2_on(&g, 2, custom, 2000, boot, 3100);
  CHECK_EQ_INT(conv(&g, custom, 1000), 1500);
  clock_graph_free(&g);
}

/* A piece whose rate ratio is outside (1/2, 3/2) is not a drifting clock:
 * it converts by the nearest point. */
static void test_linear_fallback_on_wild_slope(void) {
  clock_graph g;
  graph_init(&g, CLOCK_INTERP_LINEAR);
  claim(&g, K(0, CLOCK_ID_BOOTTIME));
  clock_key mono = K(0, CLOCK_ID_MONOTONIC);
  snap2(&g, mono, 1000, K(0, CLOCK_ID_BOOTTIME), 2000);
  snap2(&g, mono, 2000, K(0, CLOCK_ID_BOOTTIME), 3500); /* ratio 1.5 */
  CHECK_EQ_INT(conv(&g, mono, 1500), 2500);
  clock_graph_free(&g);
}

/* Every ts of a random graph converts within 1 ns of the exact rational
 * interpolation; the converter agrees with the direct conversion. */
static void test_linear_random_against_exact(void) {
  clock_graph g;
  graph_init(&g, CLOCK_INTERP_LINEAR);
  claim(&g, K(0, CLOCK_ID_BOOTTIME));
  clock_key mono = K(0, CLOCK_ID_MONOTONIC);
  srand(7);
  int64_t src[64], dst[64], s = 1000000, d = 5000000000;
  for (int i = 0; i < 64; i++) {
    s += 1 + rand() % 100000000;
    d += s - (i ? src[i - 1] : 1000000) + (rand() % 2001 - 1000);
    src[i] = s;
    dst[i] = d;
    snap2(&g, mono, src[i], K(0, CLOCK_ID_BOOTTIME), dst[i]);
  }
  int worst = 0;
  for (int k = 0; k < 20000; k++) {
    int i = rand() % 63;
    int64_t ts = src[i] + (int64_t)((double)rand() / RAND_MAX * (double)(src[i + 1] - src[i] - 1));
    double exact = (double)dst[i] + (double)(ts - src[i]) * (double)(dst[i + 1] - dst[i]) /
                                        (double)(src[i + 1] - src[i]);
    double diff = (double)conv(&g, mono, ts) - exact;
    if (diff < 0) diff = -diff;
    if (diff > worst) worst = (int)(diff + 0.5);
  }
  CHECK(worst <= 1);
  clock_graph_free(&g);
}

/* Machine B's BOOTTIME runs 50 ppm fast against machine A's; the two are
 * synchronized every 10 s for 100 s. The alignment error of B's timestamps:
 * NEAREST up to 10 s * 50 ppm = 500 us just before each snapshot, LINEAR
 * within 1 ns. */
static int64_t drift_max_error(clock_interpolation mode) {
  clock_graph g;
  graph_init(&g, mode);
  clock_key a = K(0, CLOCK_ID_BOOTTIME), b = K(1, CLOCK_ID_BOOTTIME);
  claim(&g, a);
  const int64_t start = 1000000000, step = 10000000000;
  for (int i = 0; i <= 10; i++) {
    int64_t ta = start + i * step;
    snap2(&g, b, ta + (ta - start) / 20000 + 777, a, ta);
  }
  int64_t worst = 0;
  for (int64_t ta = start; ta <= start + 10 * step; ta += 7777777) {
    int64_t tb = ta + (ta - start) / 20000 + 777;
    int64_t err = conv(&g, b, tb) - ta;
    if (err < 0) err = -err;
    if (err > worst) worst = err;
  }
  clock_graph_free(&g);
  return worst;
}

static void test_drift_50ppm(void) {
  int64_t nearest = drift_max_error(CLOCK_INTERP_NEAREST);
  int64_t linear = drift_max_error(CLOCK_INTERP_LINEAR);
  fprintf(stderr, "50 ppm drift, snapshots every 10 s: max error nearest %lld ns, "
          "linear %lld ns\n", (long long)nearest, (long long)linear);
  CHECK(nearest > 400000);
  CHECK(linear < 1000);
}

int main(void) {
  RUN_TEST(test_nearest_is_default);
  RUN_TEST(test_linear_between_points);
  RUN_TEST(test_linear_reverse_and_multi_hop);
  RUN_TEST(test_linear_fallback_on_wild_slope);
  RUN_TEST(test_linear_random_against_exact);
  RUN_TEST(test_drift_50ppm);
  return CHECK_SUMMARY();
}
