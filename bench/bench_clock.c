/* Clock conversion throughput, NEAREST against LINEAR interpolation in the
 * same run: the cached single-hop path (same clock, ts in the same snapshot
 * interval), a 3-hop path, the per-node converter cache, and a 3-hop path
 * whose interval changes every call. Prints each LINEAR/NEAREST time ratio
 * (the budget is 1.5x). */
#include <stdio.h>
#include <time.h>

#include "clock/clock.h"

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int snap2(clock_graph *g, clock_key a, int64_t va, clock_key b,
                 int64_t vb) {
  clock_key keys[2] = {a, b};
  int64_t values[2] = {va, vb};
  base_error err;
  return clock_graph_add_snapshot(g, 1, keys, values, 2, NULL, &err);
}

static double run(clock_graph *g, uint32_t node, int64_t start, long iters,
                  int64_t *sink) {
  int64_t acc = 0, out = 0;
  double t0 = now_seconds();
  for (long i = 0; i < iters; i++) {
    if (clock_graph_convert(g, node, start + (i & 1023), &out) != CLOCK_OK)
      return -1;
    acc += out;
  }
  double dt = now_seconds() - t0;
  *sink += acc;
  return (double)iters / dt;
}

static double run_converter(clock_graph *g, uint32_t node, int64_t start, long iters,
                           int64_t *sink) {
  clock_converter c = {0};
  int64_t acc = 0, out = 0;
  double t0 = now_seconds();
  for (long i = 0; i < iters; i++) {
    if (clock_converter_convert(g, &c, node, start + (i & 1023), &out) != CLOCK_OK)
      return -1;
    acc += out;
  }
  double dt = now_seconds() - t0;
  *sink += acc;
  return (double)iters / dt;
}

static double run_jumps(clock_graph *g, uint32_t node, long jumps, int64_t *sink) {
  int64_t out = 0, acc = 0;
  double t0 = now_seconds();
  for (long i = 0; i < jumps; i++) {
    int64_t ts = ((i * 7919) % 10000) * 1000000 + 17;
    if (clock_graph_convert(g, node, ts, &out) != CLOCK_OK) return -1;
    acc += out;
  }
  *sink += acc;
  return (double)jumps / (now_seconds() - t0);
}

enum { CASES = 4 };
static const char *const case_names[CASES] = {
    "cached 1-hop", "cached 3-hop", "converter 1-hop", "3-hop, new interval every call"};

/* The benchmark graph under `mode`. */
static int build(clock_graph *g, clock_interpolation mode, uint32_t *n_mono, uint32_t *n_c1) {
  base_error err;
  if (clock_graph_init(g, NULL, &err)) return 1;
  clock_graph_set_interpolation(g, mode);
  clock_key boot = clock_key_make(0, 0, 0, CLOCK_ID_BOOTTIME);
  clock_key mono = clock_key_make(0, 0, 0, CLOCK_ID_MONOTONIC);
  clock_key c1 = clock_key_make(0, 1, 0, 200), c2 = clock_key_make(0, 1, 0, 201);
  if (clock_graph_claim_trace_time(g, &boot, &err) != 1) return 1;
  /* 10000 snapshots 1 ms apart on every edge of MONO <- c2 <- c1 chain; the
   * clocks drift (1 ppm, 2 ppm, 3 ppm) so LINEAR has real slopes. */
  for (int64_t i = 0; i < 10000; i++) {
    int64_t t = i * 1000000;
    if (snap2(g, mono, t, boot, t + 5000 + i) || snap2(g, c2, t, mono, t + 7 + 2 * i) ||
        snap2(g, c1, t, c2, t + 11 + 3 * i))
      return 1;
  }
  clock_graph_find(g, &mono, n_mono);
  clock_graph_find(g, &c1, n_c1);
  return 0;
}

/* Conversions per second of case `which`. */
static double measure(clock_graph *g, uint32_t n_mono, uint32_t n_c1, int which,
                      int64_t *sink) {
  const long iters = 5000000;
  switch (which) {
    case 0: return run(g, n_mono, 5000000000 + 100, iters, sink);
    case 1: return run(g, n_c1, 5000000000 + 100, iters, sink);
    case 2: return run_converter(g, n_mono, 5000000000 + 100, iters, sink);
    default: return run_jumps(g, n_c1, 500000, sink);
  }
}

/* The machine is shared: each case runs 7 times per mode, interleaved, and
 * the best rate of each counts. */
int main(void) {
  clock_graph graphs[2];
  uint32_t mono[2], c1[2];
  if (build(&graphs[0], CLOCK_INTERP_NEAREST, &mono[0], &c1[0]) ||
      build(&graphs[1], CLOCK_INTERP_LINEAR, &mono[1], &c1[1]))
    return 1;
  double best[2][CASES] = {{0}};
  int64_t sink = 0;
  for (int rep = 0; rep < 7; rep++)
    for (int c = 0; c < CASES; c++)
      for (int m = 0; m < 2; m++) {
        double r = measure(&graphs[m], mono[m], c1[m], c, &sink);
        if (r < 0) return 1;
        if (r > best[m][c]) best[m][c] = r;
      }
  for (int c = 0; c < CASES; c++)
    printf("clock convert, %-31s nearest %7.2f ns, linear %7.2f ns: ratio %.2fx\n",
           case_names[c], 1e9 / best[0][c], 1e9 / best[1][c], best[0][c] / best[1][c]);
  printf("(checksum %lld)\n", (long long)sink);
  clock_graph_free(&graphs[0]);
  clock_graph_free(&graphs[1]);
  return 0;
}
