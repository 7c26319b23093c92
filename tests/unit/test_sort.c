#include <stdlib.h>

#include "check.h"
#include "sort/sort.h"

static int shift_convert(void *user, uint32_t source, uint32_t clock,
                         int64_t ts, int64_t *out) {
  (void)user, (void)source;
  if (clock == 99) return 1; /* unconvertible */
  *out = ts + (int64_t)clock * 1000;
  return 0;
}

typedef struct seen {
  sort_event events[64];
  int n;
} seen;

static int record(void *user, const sort_event *e) {
  seen *s = user;
  if (s->n < 64) s->events[s->n++] = *e;
  return 0;
}

static void test_merge_is_ordered_and_stable(void) {
  sorter s;
  sorter_init(&s);
  uint32_t a, b, c;
  sorter_add_source(&s, &a);
  sorter_add_source(&s, &b);
  sorter_add_source(&s, &c); /* stays empty */
  /* a: out of order, with equal timestamps in push order 1,2 */
  sorter_push(&s, a, 30, 0, 1);
  sorter_push(&s, a, 10, 0, 2);
  sorter_push(&s, a, 10, 0, 3);
  sorter_push(&s, a, 5, 99, 4); /* dropped */
  /* b: clock 1 adds 1000 -> 1010; plus a raw 10 on clock 0 that ties with a */
  sorter_push(&s, b, 10, 0, 5);
  sorter_push(&s, b, 10, 1, 6);
  seen out = {0};
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  CHECK_EQ_INT(out.n, 5);
  uint64_t expect[] = {2, 3, 5, 1, 6}; /* ties: source a before b, push order */
  for (int i = 0; i < 5 && i < out.n; i++) CHECK_EQ_INT(out.events[i].payload, expect[i]);
  CHECK_EQ_INT(out.events[4].ts, 1010);
  sorter_free(&s);
}

static void test_many_sources(void) {
  sorter s;
  sorter_init(&s);
  for (int i = 0; i < 1000; i++) {
    uint32_t src;
    sorter_add_source(&s, &src);
    if (i % 10 == 0) sorter_push(&s, src, 1000 - i, 0, (uint64_t)i);
  }
  seen out = {0};
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  CHECK_EQ_INT(out.n, 64);
  int ordered = 1;
  for (int i = 1; i < out.n; i++) ordered &= out.events[i - 1].ts <= out.events[i].ts;
  CHECK(ordered);
  sorter_free(&s);
}


/* ---- larger checks against a reference order ---- */

typedef struct ref_event {
  int64_t ts;
  uint32_t source;
  uint64_t seq; /* push order within the source */
} ref_event;

static int ref_less(const void *pa, const void *pb) {
  const ref_event *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->source != b->source) return a->source < b->source ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

typedef struct collect {
  sort_event *events;
  size_t n, cap;
  int stop_after; /* emit returns 7 after this many (0 = never) */
} collect;

static int collect_emit(void *user, const sort_event *e) {
  collect *c = user;
  if (c->n < c->cap) c->events[c->n] = *e;
  c->n++;
  return c->stop_after && (int)c->n >= c->stop_after ? 7 : 0;
}

static int identity_convert(void *user, uint32_t source, uint32_t clock,
                            int64_t ts, int64_t *out) {
  (void)user, (void)source, (void)clock;
  *out = ts;
  return 0;
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rng_next(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Pushes `n` events per source made by `gen`, runs the sorter and compares
 * with a stable reference sort (payload = source << 32 | push index). */
static void check_against_reference_on(uint32_t threads, uint32_t sources, size_t n,
                                       int64_t (*gen)(size_t i, size_t n)) {
  sorter s;
  sorter_init(&s);
  sorter_set_threads(&s, threads);
  size_t total = (size_t)sources * n;
  ref_event *ref = malloc(total * sizeof *ref);
  collect c = {malloc(total * sizeof(sort_event)), 0, total, 0};
  for (uint32_t src = 0; src < sources; src++) {
    uint32_t id;
    CHECK_EQ_INT(sorter_add_source(&s, &id), 0);
    for (size_t i = 0; i < n; i++) {
      int64_t ts = gen(i, n) + src % 3;
      ref[src * n + i] = (ref_event){ts, src, i};
      CHECK_EQ_INT(sorter_push(&s, id, ts, 0, (uint64_t)src << 32 | i), 0);
    }
  }
  qsort(ref, total, sizeof *ref, ref_less);
  CHECK_EQ_INT(sorter_run(&s, identity_convert, collect_emit, &c), 0);
  CHECK_EQ_INT(c.n, total);
  size_t bad = 0;
  for (size_t i = 0; i < total && i < c.n; i++) {
    const sort_event *e = &c.events[i];
    bad += e->ts != ref[i].ts || e->source != ref[i].source ||
           e->payload != ((uint64_t)ref[i].source << 32 | ref[i].seq);
  }
  CHECK_EQ_INT(bad, 0);
  free(ref);
  free(c.events);
  sorter_free(&s);
}

/* The same order with one thread and with several (parallel lane sorts,
 * merge on a second thread). */
static void check_against_reference(uint32_t sources, size_t n,
                                    int64_t (*gen)(size_t i, size_t n)) {
  uint64_t seed = rng_state;
  check_against_reference_on(1, sources, n, gen);
  rng_state = seed;
  check_against_reference_on(3, sources, n, gen);
}

static int64_t gen_sorted(size_t i, size_t n) { (void)n; return (int64_t)i / 3; }
static int64_t gen_reversed(size_t i, size_t n) { return (int64_t)(n - i); }
static int64_t gen_random_dups(size_t i, size_t n) {
  (void)i, (void)n;
  return (int64_t)(rng_next() % 50); /* many equal timestamps */
}
/* Interleaved runs: windows of 4 runs of 64, each run spanning the window. */
static int64_t gen_interleaved(size_t i, size_t n) {
  (void)n;
  size_t window = i / 256, in = i % 256;
  return (int64_t)(window * 256 + (in % 64) * 4 + in / 64) / 2;
}
/* Mostly ordered with rare events far in the past (long tails). */
static int64_t gen_late(size_t i, size_t n) {
  (void)n;
  return i % 97 == 0 ? (int64_t)(i / 2) : (int64_t)i;
}

static void test_reference_orders(void) {
  check_against_reference(1, 5000, gen_sorted);
  check_against_reference(3, 5000, gen_reversed);      /* merge sort fallback */
  check_against_reference(5, 3000, gen_random_dups);
  check_against_reference(7, 4096, gen_interleaved);   /* tail insertion */
  check_against_reference(2, 20000, gen_late);
  check_against_reference(1000, 20, gen_random_dups);
  check_against_reference(33, 1, gen_sorted);           /* tree padding */
}

/* Clocks change mid-queue; each event converts through its own clock and
 * dropped events leave their neighbours intact. */
static void test_clock_runs_and_drops(void) {
  sorter s;
  sorter_init(&s);
  uint32_t a;
  sorter_add_source(&s, &a);
  uint32_t clocks[] = {0, 0, 1, 99, 99, 1, 0, 2, 2, 99};
  for (int i = 0; i < 10; i++)
    CHECK_EQ_INT(sorter_push(&s, a, 10 * i, clocks[i], (uint64_t)i), 0);
  sort_event buf[16];
  collect c = {buf, 0, 16, 0};
  CHECK_EQ_INT(sorter_run(&s, shift_convert, collect_emit, &c), 0);
  /* kept: 0:0 1:10 2:1020 5:1050 6:60 7:2070 8:2080 -> sorted by ts */
  uint64_t expect[] = {0, 1, 6, 2, 5, 7, 8};
  CHECK_EQ_INT(c.n, 7);
  for (size_t i = 0; i < 7 && i < c.n; i++) {
    CHECK_EQ_INT(buf[i].payload, expect[i]);
    CHECK_EQ_INT(buf[i].source, a);
  }
  sorter_free(&s);
}

static void emit_error_stops_on(uint32_t threads) {
  sorter s;
  sorter_init(&s);
  sorter_set_threads(&s, threads);
  uint32_t a, b;
  sorter_add_source(&s, &a);
  sorter_add_source(&s, &b);
  for (int i = 0; i < 100000; i++) sorter_push(&s, i % 2 ? a : b, 100000 - i, 0, 0);
  CHECK_EQ_INT(sorter_push(&s, 5, 0, 0, 0), WEFT_EINVAL); /* no such source */
  uint64_t pushed, emitted;
  sorter_progress(&s, &pushed, &emitted);
  CHECK_EQ_INT(pushed, 100000);
  CHECK_EQ_INT(emitted, 0);
  sort_event buf[1];
  collect c = {buf, 0, 1, 5000};
  CHECK_EQ_INT(sorter_run(&s, identity_convert, collect_emit, &c), 7);
  CHECK_EQ_INT(c.n, 5000);
  sorter_progress(&s, NULL, &emitted);
  CHECK_EQ_INT(emitted, 5000);
  sorter_free(&s);
}

/* emit failing stops the run (the merging thread too, while it waits for
 * the parser); progress counts what was really emitted. */
static void test_emit_error_stops_and_progress(void) {
  emit_error_stops_on(1);
  emit_error_stops_on(2);
}

/* Every allocation of a run fails in turn: an error, never a crash or leak. */
static void test_allocation_failures(void) {
  for (uint64_t nth = 1; nth < 128; nth++) {
    sorter s;
    sorter_init(&s);
    sorter_set_threads(&s, nth % 2 ? 1 : 2);
    int rc = WEFT_OK;
    base_alloc_fail_after(nth);
    for (uint32_t src = 0; src < 3 && rc == WEFT_OK; src++) {
      uint32_t id;
      rc = sorter_add_source(&s, &id);
      for (int i = 0; i < 300 && rc == WEFT_OK; i++)
        rc = sorter_push(&s, id, gen_interleaved((size_t)i, 300), (uint32_t)(i / 50), 1);
    }
    sort_event buf[1];
    collect c = {buf, 0, 0, 0};
    if (rc == WEFT_OK) rc = sorter_run(&s, identity_convert, collect_emit, &c);
    base_alloc_fail_after(0);
    CHECK(rc == WEFT_OK || rc == WEFT_ENOMEM);
    CHECK(rc != WEFT_OK || c.n == 900);
    sorter_free(&s);
  }
}

/* Perfetto's per-cpu queues: the lane with the earliest head runs up to
 * and including the other lanes' earliest head. */
static void test_lanes_drain_at_equal_timestamps(void) {
  sorter s;
  seen out = {0};
  uint32_t a;
  sorter_init(&s);
  sorter_add_source(&s, &a);
  uint32_t cpu1 = sort_lane(0, 2), cpu2 = sort_lane(0, 3), cpu3 = sort_lane(0, 4);
  sorter_push_lane(&s, a, cpu1, 50, 0, 10);
  sorter_push_lane(&s, a, cpu2, 60, 0, 20);
  sorter_push_lane(&s, a, cpu2, 999, 0, 21);
  sorter_push_lane(&s, a, cpu3, 60, 0, 30);
  sorter_push_lane(&s, a, cpu3, 999, 0, 31);
  sorter_push_lane(&s, a, cpu3, 999, 0, 32);
  sorter_push_lane(&s, a, cpu1, 1000, 0, 11);
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  static const uint64_t want[] = {10, 20, 30, 31, 32, 21, 11};
  CHECK_EQ_INT(out.n, 7);
  for (int i = 0; i < out.n && i < 7; i++) CHECK_EQ_INT(out.events[i].payload, want[i]);
  sorter_free(&s);
}

/* One lane shared by two sources is ordered by (ts, source, push order);
 * a run break stops a run so the next equal-timestamp lane goes first. */
static void test_shared_lane_and_run_break(void) {
  sorter s;
  seen out = {0};
  uint32_t a, b;
  sorter_init(&s);
  sorter_add_source(&s, &a);
  sorter_add_source(&s, &b);
  sorter_push_lane(&s, b, sort_lane(0, 0), 4, 0, 1);
  sorter_push_lane(&s, b, sort_lane(0, 0), 5, 0, 2);
  sorter_push_lane(&s, a, sort_lane(0, 0), 5, 0, 3);
  sorter_push_lane(&s, a, sort_lane(2, 0), 0, 0, 4);
  sorter_mark_break(&s);
  sorter_push_lane(&s, a, sort_lane(2, 0), 5, 0, 5);
  sorter_push_lane(&s, b, sort_lane(1, 0), 5, 0, 6);
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  static const uint64_t want[] = {4, 1, 3, 2, 6, 5};
  CHECK_EQ_INT(out.n, 6);
  for (int i = 0; i < out.n && i < 6; i++) {
    CHECK_EQ_INT(out.events[i].payload, want[i]);
    CHECK(out.events[i].source == a || out.events[i].source == b);
  }
  sorter_free(&s);
}

int main(void) {
  RUN_TEST(test_merge_is_ordered_and_stable);
  RUN_TEST(test_many_sources);
  RUN_TEST(test_reference_orders);
  RUN_TEST(test_clock_runs_and_drops);
  RUN_TEST(test_emit_error_stops_and_progress);
  RUN_TEST(test_allocation_failures);
  RUN_TEST(test_lanes_drain_at_equal_timestamps);
  RUN_TEST(test_shared_lane_and_run_break);
  return CHECK_SUMMARY();
}
