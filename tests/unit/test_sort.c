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

/* A sorter using `threads`, with two sources. */
static void sorter_with_two_sources(sorter *s, uint32_t threads, uint32_t *a, uint32_t *b) {
  sorter_init(s);
  sorter_set_threads(s, threads);
  sorter_add_source(s, a);
  sorter_add_source(s, b);
}

static void emit_error_stops_on(uint32_t threads) {
  sorter s;
  uint32_t a, b;
  sorter_with_two_sources(&s, threads, &a, &b);
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

/* Every allocation of a run fails in turn: an error, never a crash or leak.
 * Shapes: interleaved stretches on one lane (windowed merge), and short
 * stretches over two lanes with clock changes and breaks (chunk-wise sort,
 * rebuilt clock runs), over several chunks. */
static void allocation_failures_of(int shape, size_t n, uint64_t max_nth) {
  size_t ok_runs = 0;
  for (uint64_t nth = 1; nth < max_nth; nth++) {
    sorter s;
    sorter_init(&s);
    sorter_set_threads(&s, nth % 2 ? 1 : 2);
    int rc = WEFT_OK;
    base_alloc_fail_after(nth);
    for (uint32_t src = 0; src < 3 && rc == WEFT_OK; src++) {
      uint32_t id;
      rc = sorter_add_source(&s, &id);
      for (size_t i = 0; i < n && rc == WEFT_OK; i++) {
        if (shape == 0) {
          rc = sorter_push(&s, id, gen_interleaved(i, n), (uint32_t)(i / 50), 1);
        } else {
          rc = sorter_push_lane(&s, id, sort_lane(0, (uint32_t)(i % 2)), gen_random_dups(i, n),
                                (uint32_t)(i / 3 % 2), 1);
          if (rc == WEFT_OK && i % 5 == 0) sorter_mark_break(&s);
        }
      }
    }
    sort_event buf[1];
    collect c = {buf, 0, 0, 0};
    if (rc == WEFT_OK) rc = sorter_run(&s, identity_convert, collect_emit, &c);
    base_alloc_fail_after(0);
    CHECK(rc == WEFT_OK || rc == WEFT_ENOMEM);
    CHECK(rc != WEFT_OK || c.n == 3 * n);
    ok_runs += rc == WEFT_OK;
    sorter_free(&s);
  }
  CHECK(ok_runs > 0); /* max_nth goes past the last allocation */
}

static void test_allocation_failures(void) {
  allocation_failures_of(0, 300, 128);
  allocation_failures_of(1, 5000, 400);
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

/* ---- a model of the whole order: lanes, clocks, drops, breaks ---- */

typedef struct model_event {
  int64_t ts; /* converted */
  uint32_t source, lane, clock;
  uint64_t seq;
  int brk;
} model_event;

static int model_less(const void *pa, const void *pb) {
  const model_event *a = pa, *b = pb;
  if (a->lane != b->lane) return a->lane < b->lane ? -1 : 1;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  if (a->source != b->source) return a->source < b->source ? -1 : 1;
  return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ts + clock, clock 99 dropped. */
static int model_convert(void *user, uint32_t source, uint32_t clock,
                         int64_t ts, int64_t *out) {
  (void)user, (void)source;
  if (clock == 99) return 1;
  *out = ts + clock;
  return 0;
}

/* The merge done plainly: each lane in (ts, source, push order); the lane
 * with the earliest head (lowest on ties) runs up to and including the
 * other lanes' earliest head, a break ending the run. */
static size_t model_order(model_event *ev, size_t n, model_event *out) {
  qsort(ev, n, sizeof *ev, model_less);
  size_t starts[64], ends[64], lanes = 0, emitted = 0;
  for (size_t i = 0; i < n; i++) {
    if (i == 0 || ev[i].lane != ev[i - 1].lane) starts[lanes++] = i;
    ends[lanes - 1] = i + 1;
  }
  for (;;) {
    size_t best = SIZE_MAX;
    for (size_t l = 0; l < lanes; l++)
      if (starts[l] < ends[l] && (best == SIZE_MAX || ev[starts[l]].ts < ev[starts[best]].ts))
        best = l;
    if (best == SIZE_MAX) return emitted;
    int64_t limit = INT64_MAX;
    for (size_t l = 0; l < lanes; l++)
      if (l != best && starts[l] < ends[l] && ev[starts[l]].ts < limit) limit = ev[starts[l]].ts;
    int brk;
    do {
      brk = ev[starts[best]].brk;
      out[emitted++] = ev[starts[best]++];
    } while (starts[best] < ends[best] && !brk && ev[starts[best]].ts <= limit);
  }
}

typedef struct model_case {
  uint32_t sources, lanes;
  size_t n;                       /* events per source */
  int64_t (*gen)(size_t i, size_t n);
  uint32_t clock_every;           /* a clock change every this many events */
  uint32_t drop_every;            /* clock 99 (dropped) every this many (0: none) */
  uint32_t break_every;           /* a run break every this many (0: none) */
} model_case;

/* Events per segment in model_check_on (0: the default). */
static size_t model_segment_items;

static void model_check_on(const model_case *mc, uint32_t threads) {
  sorter s;
  sorter_init(&s);
  sorter_set_threads(&s, threads);
  sorter_set_segment_items(&s, model_segment_items);
  size_t total = (size_t)mc->sources * mc->n, kept = 0;
  model_event *ev = malloc(total * sizeof *ev), *want = malloc(total * sizeof *want);
  collect c = {malloc(total * sizeof(sort_event)), 0, total, 0};
  for (uint32_t src = 0; src < mc->sources; src++) {
    uint32_t id;
    CHECK_EQ_INT(sorter_add_source(&s, &id), 0);
    for (size_t i = 0; i < mc->n; i++) {
      int64_t raw = mc->gen(i, mc->n) + src % 3;
      uint32_t lane = (uint32_t)((i * 7 + src) % mc->lanes);
      uint32_t clock = (uint32_t)(i / mc->clock_every % 3);
      if (mc->drop_every && i % mc->drop_every == mc->drop_every - 1) clock = 99;
      int brk = mc->break_every && i % mc->break_every == 0;
      CHECK_EQ_INT(sorter_push_lane(&s, id, sort_lane(0, lane), raw, clock,
                                    (uint64_t)src << 32 | i), 0);
      if (brk) sorter_mark_break(&s);
      if (clock != 99)
        ev[kept++] = (model_event){raw + clock, src, lane, clock, i, brk};
    }
  }
  size_t wanted = model_order(ev, kept, want);
  CHECK_EQ_INT(sorter_run(&s, model_convert, collect_emit, &c), 0);
  CHECK_EQ_INT(c.n, wanted);
  size_t bad = 0;
  for (size_t i = 0; i < wanted && i < c.n; i++) {
    const sort_event *e = &c.events[i];
    bad += e->ts != want[i].ts || e->source != want[i].source ||
           e->clock != want[i].clock ||
           e->payload != ((uint64_t)want[i].source << 32 | want[i].seq);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(sorter_memory(&s), 0);
  free(ev);
  free(want);
  free(c.events);
  sorter_free(&s);
}

static void model_check(const model_case *mc) {
  uint64_t seed = rng_state;
  model_check_on(mc, 1);
  rng_state = seed;
  model_check_on(mc, 3);
}

/* Several sources per lane, several lanes; clocks in runs of every length
 * (1 = a change at every event) through out-of-order queues (the sort
 * carries each event's clock and break along); drops; queues of many
 * chunks (windowed merge, chunk-wise sort of short stretches). */
static void test_model_orders(void) {
  static const model_case cases[] = {
      {4, 1, 3000, gen_interleaved, 7, 0, 0},
      {6, 3, 3000, gen_interleaved, 1, 11, 13},
      {5, 4, 4000, gen_random_dups, 5, 0, 9},     /* short stretches */
      {3, 2, 20000, gen_reversed, 1, 0, 3},       /* one stretch an event */
      {8, 5, 9000, gen_late, 300, 17, 64},        /* long tails */
      {2, 1, 30000, gen_sorted, 1000, 0, 1},      /* in order: a break at each */
      {20, 3, 2000, gen_random_dups, 2, 5, 0},
      {1, 1, 70000, gen_interleaved, 1, 0, 2},    /* one big queue, many chunks */
      /* queues past their 64 small chunks, into large ones: items past
       * 131,072 and, with a clock change at every event, runs past 262,144 */
      {1, 1, 300000, gen_random_dups, 1, 0, 7},   /* chunk-wise sort, large chunks */
      {1, 1, 280000, gen_late, 1, 19, 0},         /* windowed merge over both sizes */
      {2, 1, 150000, gen_sorted, 4, 0, 0},        /* in order: chunks kept as pushed */
      {40, 6, 700, gen_late, 3, 0, 5},
      /* many lanes: ties across lanes, lanes running dry at different
       * times */
      {50, 37, 300, gen_random_dups, 3, 7, 11},
      {64, 64, 200, gen_interleaved, 1, 0, 5},
      {9, 33, 1500, gen_sorted, 2, 0, 0},
      {3, 17, 900, gen_late, 5, 13, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) model_check(&cases[i]);
}

/* With several threads a large queue goes on in segments, sorted apart
 * and merged with ties in push order: the same order as one queue, with
 * out-of-order events, clock runs, drops and breaks across segment ends
 * (segments of 1 to 1,000 events). */
static void test_segments(void) {
  static const model_case cases[] = {
      {1, 1, 20000, gen_random_dups, 3, 7, 11},
      {3, 2, 9000, gen_reversed, 1, 0, 3},
      {4, 3, 6000, gen_interleaved, 5, 13, 0},
      {2, 1, 8000, gen_late, 300, 17, 64},
      {5, 4, 3000, gen_sorted, 2, 0, 5},
  };
  static const size_t segments[] = {1000, 333, 64, 1};
  for (size_t k = 0; k < sizeof segments / sizeof *segments; k++) {
    model_segment_items = segments[k];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) model_check(&cases[i]);
  }
  model_segment_items = 0;
}

/* ---- memory given back during the merge ---- */

typedef struct release_watch {
  const sorter *s;
  uint64_t total, seen, start;
  uint64_t at[4]; /* sorter_memory at 1/4, 1/2, 3/4, at the last event */
} release_watch;

static int release_emit(void *user, const sort_event *e) {
  release_watch *w = user;
  (void)e;
  uint64_t i = w->seen++;
  if (i == 0) w->start = sorter_memory(w->s);
  if (i + 1 == w->total) w->at[3] = sorter_memory(w->s);
  else if (i && i % (w->total / 4) == 0 && i / (w->total / 4) <= 3)
    w->at[i / (w->total / 4) - 1] = sorter_memory(w->s);
  return 0;
}

/* The sorter's memory falls as it emits: by the 1/4 point at most ~3/4 of
 * it is left (plus a chunk a queue and the merge thread's head start), and
 * at the last event nothing but that queue's last chunk. */
static void release_during_merge_on(uint32_t threads, uint32_t sources, int clocks,
                                    size_t n, uint64_t chunk_bytes) {
  sorter s;
  sorter_init(&s);
  sorter_set_threads(&s, threads);
  for (uint32_t src = 0; src < sources; src++) {
    uint32_t id;
    CHECK_EQ_INT(sorter_add_source(&s, &id), 0);
    for (size_t i = 0; i < n / sources; i++) {
      uint32_t lane = sort_lane(0, (uint32_t)(i % 3));
      CHECK_EQ_INT(sorter_push_lane(&s, id, lane, gen_interleaved(i, n), clocks ? (uint32_t)(i % 2) : 0, i), 0);
    }
  }
  uint64_t pushed = sorter_memory(&s);
  CHECK(pushed >= n * 16);
  CHECK(pushed <= n * (clocks ? 24 : 16) * 2);
  release_watch w = {&s, n, 0, 0, {0}};
  CHECK_EQ_INT(sorter_run(&s, identity_convert, release_emit, &w), 0);
  CHECK_EQ_INT(w.seen, n);
  uint64_t slack = (uint64_t)sources * 3 * 2 * chunk_bytes + (threads > 1 ? 40000ull * 24 : 0);
  if (threads == 1) CHECK(w.start >= n * 16); /* (else the merge may be ahead) */
  for (int q = 0; q < 3; q++) CHECK(w.at[q] <= pushed / 4 * (uint64_t)(3 - q) + slack);
  CHECK(w.at[3] <= 2 * chunk_bytes);
  CHECK_EQ_INT(sorter_memory(&s), 0);
  sorter_free(&s);
}

static void test_release_during_merge(void) {
  /* Queues under 2 MiB: their memory falls 32 KiB at a time. */
  const uint64_t small = SORT_CHUNK_BYTES / 16;
  release_during_merge_on(1, 1, 0, 200000, small);
  release_during_merge_on(1, 4, 1, 200000, small);
  release_during_merge_on(2, 2, 0, 200000, small);
  /* Queues of 21 MB: past their first 2 MiB, a large chunk at a time. */
  release_during_merge_on(1, 1, 0, 4000000, SORT_CHUNK_BYTES);
  release_during_merge_on(2, 1, 1, 4000000, SORT_CHUNK_BYTES);
}

/* ---- the prepare step ---- */

/* What prepare writes for an event: its payload and size in every 8-byte
 * word of a size that depends on the payload (0 for every 7th: nothing). */
static size_t prepared_size_of(uint64_t payload) {
  return payload % 7 == 0 ? 0 : 8 * (1 + payload % 13) + (payload % 3 == 0 ? 3968 : 0);
}

typedef struct prepare_check {
  uint64_t prepared;   /* prepare calls (atomic: the merging thread) */
  uint64_t emitted, bad, stop_after;
  uint64_t sum;        /* of payloads emitted, in order (position-weighted) */
} prepare_check;

static size_t fill_prepared(void *user, const sort_event *e, void *out) {
  prepare_check *c = user;
  __atomic_fetch_add(&c->prepared, 1, __ATOMIC_RELAXED);
  size_t size = prepared_size_of(e->payload);
  uint64_t *w = out;
  for (size_t i = 0; i < size / 8; i++) w[i] = e->payload * 31 + size;
  return size;
}

static int check_prepared(void *user, const sort_event *e, void *prepared) {
  prepare_check *c = user;
  size_t size = prepared_size_of(e->payload);
  c->bad += ((uintptr_t)prepared & 15) != 0;
  if (size == 0) {
    c->bad += prepared != NULL;
  } else if (!prepared) {
    c->bad++;
  } else {
    const uint64_t *w = prepared;
    for (size_t i = 0; i < size / 8; i++) c->bad += w[i] != e->payload * 31 + size;
  }
  c->emitted++;
  c->sum = c->sum * 1000003 + e->payload;
  return c->stop_after && c->emitted >= c->stop_after ? 9 : 0;
}

static prepare_check run_prepared(uint32_t threads, size_t n, uint64_t stop_after) {
  sorter s;
  uint32_t a, b;
  sorter_with_two_sources(&s, threads, &a, &b);
  for (size_t i = 0; i < n; i++) {
    sorter_push(&s, a, (int64_t)(rng_next() % 100000), 0, 2 * i);
    sorter_push(&s, b, (int64_t)(rng_next() % 100000), 0, 2 * i + 1);
  }
  prepare_check c = {0, 0, 0, stop_after, 0};
  int rc = sorter_run_prepared(&s, identity_convert, fill_prepared, 4096, check_prepared, &c);
  CHECK_EQ_INT(rc, stop_after ? 9 : 0);
  sorter_free(&s);
  return c;
}

/* Every event is prepared once, before it is emitted, into aligned data
 * that emit receives intact (NULL when nothing was written), with one
 * thread and with a merging thread, whose batches end early when large
 * prepared data fills their arena; the order is the same either way. An
 * emit error stops the run, the merging thread's preparing too. */
static void test_prepare_step(void) {
  uint64_t state = rng_state;
  prepare_check one = run_prepared(1, 30000, 0);
  rng_state = state;
  prepare_check two = run_prepared(2, 30000, 0);
  CHECK_EQ_INT(one.emitted, 60000);
  CHECK_EQ_INT(one.prepared, 60000);
  CHECK_EQ_INT(one.bad, 0);
  CHECK_EQ_INT(two.emitted, 60000);
  CHECK_EQ_INT(two.prepared, 60000);
  CHECK_EQ_INT(two.bad, 0);
  CHECK(one.sum == two.sum);
  prepare_check stopped = run_prepared(2, 30000, 1234);
  CHECK_EQ_INT(stopped.emitted, 1234);
  CHECK_EQ_INT(stopped.bad, 0);
  CHECK(stopped.prepared < 60000);
}

/* ---- the locate hint ---- */

/* sort_locate: the offset under the mask from the base, none past len or
 * with a rejected bit; a zeroed rule gives none. */
static void test_locate_rule(void) {
  static const uint8_t bytes[100];
  sort_locate_rule rule = {bytes, 100, 0xff, UINT64_C(1) << 63, {NULL, NULL}};
  CHECK(sort_locate(&rule, 5) == bytes + 5);
  CHECK(sort_locate(&rule, 0x1205) == bytes + 5);  /* bits outside the mask */
  CHECK(sort_locate(&rule, 99) == bytes + 99);
  CHECK(sort_locate(&rule, 100) == NULL);          /* past len */
  CHECK(sort_locate(&rule, (UINT64_C(1) << 63) | 5) == NULL);
  sort_locate_rule none;
  memset(&none, 0, sizeof none);
  CHECK(sort_locate(&none, 0) == NULL);
  CHECK(sort_locate(&none, 12345) == NULL);
}

typedef struct locate_check {
  uint64_t emitted, emit_bad;
  uint64_t next[3];    /* per source: the next push index to be emitted */
} locate_check;

static int emit_in_source_order(void *user, const sort_event *e) {
  locate_check *c = user;
  c->emit_bad += (e->payload & 0xffffffffu) != c->next[e->source];
  c->next[e->source]++;
  c->emitted++;
  return 0;
}

/* Hints change nothing: rules for some sources (one pointing past its
 * bytes for most payloads, one zeroed), none for the last, every event
 * emitted in order. */
static void test_locate_hint(void) {
  static uint8_t bytes[20000];
  for (uint32_t threads = 1; threads <= 2; threads++) {
    sorter s;
    sorter_init(&s);
    sorter_set_threads(&s, threads);
    locate_check c;
    memset(&c, 0, sizeof c);
    sort_locate_rule rules[2] = {{bytes, sizeof bytes, 0xffffffffu, 0, {&c, NULL}},
                                 {0, 0, 0, 0, {NULL, NULL}}};
    sorter_set_locate_rules(&s, rules, 2);
    for (uint32_t src = 0; src < 3; src++) {
      uint32_t id;
      CHECK_EQ_INT(sorter_add_source(&s, &id), 0);
      for (uint64_t i = 0; i < 20000; i++)
        CHECK_EQ_INT(sorter_push(&s, id, (int64_t)(i * 3 + src), 0, (uint64_t)id << 32 | i), 0);
    }
    CHECK_EQ_INT(sorter_run(&s, identity_convert, emit_in_source_order, &c), 0);
    CHECK_EQ_INT(c.emitted, 60000);
    CHECK_EQ_INT(c.emit_bad, 0);
    sorter_free(&s);
  }
}

int main(void) {
  RUN_TEST(test_merge_is_ordered_and_stable);
  RUN_TEST(test_many_sources);
  RUN_TEST(test_reference_orders);
  RUN_TEST(test_segments);
  RUN_TEST(test_clock_runs_and_drops);
  RUN_TEST(test_emit_error_stops_and_progress);
  RUN_TEST(test_allocation_failures);
  RUN_TEST(test_lanes_drain_at_equal_timestamps);
  RUN_TEST(test_shared_lane_and_run_break);
  RUN_TEST(test_model_orders);
  RUN_TEST(test_release_during_merge);
  RUN_TEST(test_prepare_step);
  RUN_TEST(test_locate_rule);
  RUN_TEST(test_locate_hint);
  return CHECK_SUMMARY();
}
