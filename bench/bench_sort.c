/* Sorter throughput: the same total of events split over 10 sources and over
 * 1,000 sources, to show that the cost per event does not grow with the
 * number of files. Each source's events come in runs of 256 that interleave
 * in time the way a proto trace's sequences do (8 runs cover one window),
 * and the sources overlap in time. Timed: pushing, then sorter_run
 * (conversion, per-queue sort, heap merge, emit).
 *
 * Usage: bench_sort [total_events]   (default 100,000,000: 10 x 10 M) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sort/sort.h"

static double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_convert(void *user, uint32_t source, uint32_t clock,
                         int64_t ts, int64_t *out) {
  (void)user, (void)clock;
  *out = ts + (int64_t)(source % 7) * 1000; /* a per-source clock offset */
  return 0;
}

typedef struct bench_check {
  int64_t last_ts;
  uint64_t count;
  uint64_t disorder;
  uint64_t payload_sum;
} bench_check;

static int bench_emit(void *user, const sort_event *e) {
  bench_check *c = user;
  c->disorder += e->ts < c->last_ts;
  c->last_ts = e->ts;
  c->count++;
  c->payload_sum += e->payload;
  return 0;
}

/* Event i of a source: windows of 8 runs x 256 events; run r of a window
 * holds the window's events r, r+8, r+16... so the queue is out of order. */
static int64_t bench_ts(uint64_t i, uint32_t source) {
  uint64_t window = i / 2048, in = i % 2048;
  uint64_t run = in / 256, k = in % 256;
  return (int64_t)(window * 2048 * 10 + (k * 8 + run) * 10 + source % 10);
}

static int bench_case(uint32_t sources, uint64_t total) {
  sorter s;
  sorter_init(&s);
  uint64_t per = total / sources;
  double t0 = bench_now();
  int rc = WEFT_OK;
  for (uint32_t i = 0; i < sources && rc == WEFT_OK; i++) {
    uint32_t id;
    rc = sorter_add_source(&s, &id);
  }
  /* Sources are fed one after another, as files are tokenized. */
  for (uint32_t src = 0; src < sources && rc == WEFT_OK; src++)
    for (uint64_t i = 0; i < per && rc == WEFT_OK; i++)
      rc = sorter_push(&s, src, bench_ts(i, src), 0, i);
  double t1 = bench_now();
  bench_check check = {INT64_MIN, 0, 0, 0};
  if (rc == WEFT_OK) rc = sorter_run(&s, bench_convert, bench_emit, &check);
  double t2 = bench_now();
  sorter_free(&s);
  if (rc != WEFT_OK) {
    fprintf(stderr, "bench_sort: error %d\n", rc);
    return 1;
  }
  uint64_t n = per * sources;
  printf("%5u sources x %9llu: push %6.1f M ev/s, run %6.1f M ev/s, "
         "total %6.1f M ev/s (%.2f s)%s\n",
         sources, (unsigned long long)per, (double)n / (t1 - t0) / 1e6,
         (double)n / (t2 - t1) / 1e6, (double)n / (t2 - t0) / 1e6, t2 - t0,
         check.count == n && check.disorder == 0 ? "" : "  WRONG ORDER/COUNT");
  return check.count == n && check.disorder == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  uint64_t total = argc > 1 ? strtoull(argv[1], NULL, 10) : 100000000ull;
  int rc = bench_case(10, total);
  rc |= bench_case(1000, total);
  return rc;
}
