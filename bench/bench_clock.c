/* Clock conversion throughput: the cached single-hop path (same clock, ts in
 * the same snapshot interval) and a 3-hop path. */
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

int main(void) {
  clock_graph g;
  base_error err;
  if (clock_graph_init(&g, NULL, &err)) return 1;
  clock_key boot = clock_key_make(0, 0, 0, CLOCK_ID_BOOTTIME);
  clock_key mono = clock_key_make(0, 0, 0, CLOCK_ID_MONOTONIC);
  clock_key c1 = clock_key_make(0, 1, 0, 200), c2 = clock_key_make(0, 1, 0, 201);
  if (clock_graph_claim_trace_time(&g, &boot, &err) != 1) return 1;
  /* 10000 snapshots 1 ms apart on every edge of MONO <- c2 <- c1 chain. */
  for (int64_t i = 0; i < 10000; i++) {
    int64_t t = i * 1000000;
    if (snap2(&g, mono, t, boot, t + 5000 + i) || snap2(&g, c2, t, mono, t + 7) ||
        snap2(&g, c1, t, c2, t + 11))
      return 1;
  }
  uint32_t n_mono, n_c1;
  clock_graph_find(&g, &mono, &n_mono);
  clock_graph_find(&g, &c1, &n_c1);
  uint32_t hops = 0;
  clock_graph_placement(&g, n_c1, NULL, &hops);
  int64_t sink = 0;
  const long iters = 50000000;
  double one = run(&g, n_mono, 5000000000 + 100, iters, &sink);
  double three = run(&g, n_c1, 5000000000 + 100, iters, &sink);
  printf("clock convert, cached 1-hop: %.1f M conversions/s (%.2f ns each)\n",
         one / 1e6, 1e9 / one);
  printf("clock convert, cached %u-hop: %.1f M conversions/s (%.2f ns each)\n",
         hops, three / 1e6, 1e9 / three);
  /* Uncached: every call lands in a different snapshot interval. */
  int64_t out = 0, acc = 0;
  double t0 = now_seconds();
  const long jumps = 5000000;
  for (long i = 0; i < jumps; i++) {
    int64_t ts = ((i * 7919) % 10000) * 1000000 + 17;
    if (clock_graph_convert(&g, n_c1, ts, &out) != CLOCK_OK) return 1;
    acc += out;
  }
  double jr = (double)jumps / (now_seconds() - t0);
  printf("clock convert, 3-hop, interval changes every call: %.1f M conversions/s\n",
         jr / 1e6);
  printf("(checksum %lld)\n", (long long)(sink + acc));
  clock_graph_free(&g);
  return 0;
}
