/* Clock graph: among equally short paths to trace time, a timestamp takes
 * the one with the smallest total snapshot spacing around it, in both
 * interpolation modes. */
#include "check.h"
#include "clock/clock.h"

static void snap2(clock_graph *g, uint32_t stream, clock_key a, int64_t va, clock_key b,
                  int64_t vb) {
  clock_key keys[2] = {a, b};
  int64_t values[2] = {va, vb};
  base_error err;
  CHECK_EQ_INT(clock_graph_add_snapshot(g, stream, keys, values, 2, NULL, &err), WEFT_OK);
}

static int64_t conv(clock_graph *g, clock_converter *c, clock_key k, int64_t ts) {
  uint32_t node = CLOCK_NODE_NONE;
  CHECK(clock_graph_find(g, &k, &node));
  int64_t direct = 0, cached = 0;
  CHECK_EQ_INT(clock_graph_convert(g, node, ts, &direct), CLOCK_OK);
  CHECK_EQ_INT(clock_converter_convert(g, c, node, ts, &cached), CLOCK_OK);
  CHECK_EQ_INT(cached, direct);
  return direct;
}

/* X reaches BOOTTIME through B (created first, snapshots every 10 s from
 * 0 to 100 s, X + 200) or through A (every 1 s from 40 s to 60 s, X + 100):
 * two hops either way. */
static void build(clock_graph *g, clock_interpolation mode) {
  base_error err;
  CHECK_EQ_INT(clock_graph_init(g, NULL, &err), WEFT_OK);
  clock_graph_set_interpolation(g, mode);
  clock_key boot = clock_key_make(0, 0, 0, CLOCK_ID_BOOTTIME);
  clock_key x = clock_key_make(0, 1, 0, 200), b = clock_key_make(0, 1, 0, 202),
            a = clock_key_make(0, 1, 0, 201);
  CHECK_EQ_INT(clock_graph_claim_trace_time(g, &boot, &err), 1);
  const int64_t s = 1000000000;
  for (int64_t i = 0; i <= 10; i++) {
    snap2(g, 1, x, i * 10 * s, b, i * 10 * s + 200);
    snap2(g, 2, b, i * 10 * s, boot, i * 10 * s);
  }
  for (int64_t i = 40; i <= 60; i++) {
    snap2(g, 3, x, i * s, a, i * s + 100);
    snap2(g, 4, a, i * s, boot, i * s);
  }
}

static void check_choice(clock_interpolation mode) {
  clock_graph g;
  clock_converter c = {0};
  build(&g, mode);
  clock_key x = clock_key_make(0, 1, 0, 200);
  const int64_t s = 1000000000;
  uint32_t hops = 0, node;
  CHECK(clock_graph_find(&g, &x, &node));
  clock_graph_placement(&g, node, NULL, &hops);
  CHECK_EQ_INT(hops, 2);
  /* Within A's snapshots, A's spacing (2 s) beats B's (20 s). */
  CHECK_EQ_INT(conv(&g, &c, x, 45 * s + 7), 45 * s + 7 + 100);
  CHECK_EQ_INT(conv(&g, &c, x, 59 * s), 59 * s + 100);
  /* Outside them, B's bounded spacing wins. */
  CHECK_EQ_INT(conv(&g, &c, x, 75 * s), 75 * s + 200);
  CHECK_EQ_INT(conv(&g, &c, x, 5 * s), 5 * s + 200);
  /* The same answer every time (and through the converter). */
  CHECK_EQ_INT(conv(&g, &c, x, 45 * s + 7), 45 * s + 7 + 100);
  clock_graph_free(&g);
}

static void test_smallest_spacing_nearest(void) { check_choice(CLOCK_INTERP_NEAREST); }
static void test_smallest_spacing_linear(void) { check_choice(CLOCK_INTERP_LINEAR); }

int main(void) {
  RUN_TEST(test_smallest_spacing_nearest);
  RUN_TEST(test_smallest_spacing_linear);
  return CHECK_SUMMARY();
}
