/* gecko: a thread's markers put in time order before they are queued.
 * A thread's markers come in any order; queued as they come, the parse
 * would read the marker table in a random order (a cache miss a marker).
 * Sorted here, each thread's while they are in cache, stably by ts (equal
 * times keep their table order, as the sorter's push order would), the
 * sorter merges the threads and the parse reads each thread's markers
 * front to back. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "import/gecko/gecko_internal.h"

#define GECKO_RADIX_BITS 11
#define GECKO_RADIX (1u << GECKO_RADIX_BITS)

/* One stable counting pass on the digit at `shift`; 0 if every key has
 * the same digit there (nothing to do). */
static int gecko_radix_pass(const gecko_order_key *in, gecko_order_key *out, size_t n,
                            unsigned shift, size_t *count) {
  memset(count, 0, GECKO_RADIX * sizeof *count);
  for (size_t i = 0; i < n; i++) count[(in[i].key >> shift) & (GECKO_RADIX - 1)]++;
  if (count[(in[0].key >> shift) & (GECKO_RADIX - 1)] == n) return 0;
  size_t sum = 0;
  for (size_t d = 0; d < GECKO_RADIX; d++) {
    size_t c = count[d];
    count[d] = sum;
    sum += c;
  }
  for (size_t i = 0; i < n; i++) out[count[(in[i].key >> shift) & (GECKO_RADIX - 1)]++] = in[i];
  return 1;
}

/* The keys sorted stably (LSD radix); returns the array holding them. */
static gecko_order_key *gecko_radix_sort(gecko_order_key *a, gecko_order_key *b, size_t n,
                                         size_t *count) {
  for (unsigned shift = 0; shift < 64; shift += GECKO_RADIX_BITS) {
    if (!gecko_radix_pass(a, b, n, shift, count)) continue;
    gecko_order_key *t = a;
    a = b;
    b = t;
  }
  return a;
}

static int gecko_is_sorted(const gecko_marker *m, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (m[i].ts < m[i - 1].ts) return 0;
  return 1;
}

int gecko_order_markers(gecko_order *o, gecko_marker *m, size_t n) {
  if (n < 2 || gecko_is_sorted(m, n)) return WEFT_OK;
  if (!o->count) o->count = base_malloc(GECKO_RADIX * sizeof *o->count);
  if (!o->count || VEC_RESERVE(o->a, n) || VEC_RESERVE(o->b, n) || VEC_RESERVE(o->sorted, n))
    return WEFT_ENOMEM;
  gecko_order_key *a = o->a.data;
  gecko_marker *sorted = o->sorted.data;
  for (size_t i = 0; i < n; i++)
    a[i] = (gecko_order_key){(uint64_t)m[i].ts ^ (UINT64_C(1) << 63), i};
  const gecko_order_key *keys = gecko_radix_sort(a, o->b.data, n, o->count);
  for (size_t i = 0; i < n; i++) sorted[i] = m[keys[i].index];
  memcpy(m, sorted, n * sizeof *sorted);
  return WEFT_OK;
}

void gecko_order_free(gecko_order *o) {
  VEC_FREE(o->a);
  VEC_FREE(o->b);
  VEC_FREE(o->sorted);
  base_free(o->count);
  o->count = NULL;
}

/* ---- queueing in time order ----
 * The events were queued in three sequences: the thread events (st->markers
 * from `n` on), the markers (below n) and the samples; the sorter orders
 * them by (ts, that order). Each sequence is cut into its ascending
 * stretches, which are merged here, ties going to the earlier stretch: the
 * same order, so the sorter finds its queue sorted and has nothing to do
 * (were the merge wrong, the sorter would still order the events; only
 * its speed depends on this). The markers' stretches were noted as they
 * were appended (marker_breaks), the others are found by a scan. */

typedef struct gecko_run {
  size_t at, end;
  int sample; /* indices into st->samples, not st->markers */
} gecko_run;
typedef VEC(gecko_run) gecko_runs;

static int64_t gecko_run_ts(const gecko_state *st, const gecko_run *r) {
  return r->sample ? st->samples.data[r->at].ts : st->markers.data[r->at].ts;
}

static int64_t gecko_item_ts(const gecko_state *st, int sample, size_t i) {
  return sample ? st->samples.data[i].ts : st->markers.data[i].ts;
}

static int gecko_add_runs(const gecko_state *st, int sample, size_t begin, size_t end,
                          gecko_runs *runs) {
  size_t start = begin;
  for (size_t i = begin + 1; i <= end; i++) {
    if (i < end && gecko_item_ts(st, sample, i) >= gecko_item_ts(st, sample, i - 1)) continue;
    if (VEC_PUSH(*runs, ((gecko_run){start, i, sample}))) return WEFT_ENOMEM;
    start = i;
  }
  return WEFT_OK;
}

/* The runs of the markers before n, from the breaks kept as they were
 * appended: what gecko_add_runs finds, without reading them again (a
 * read of the whole table from memory). */
static int gecko_add_marker_runs(const gecko_state *st, size_t n, gecko_runs *runs) {
  size_t start = 0;
  for (size_t k = 0; k <= st->marker_breaks.len; k++) {
    size_t end = k < st->marker_breaks.len ? st->marker_breaks.data[k] : n;
    assert(end > start && end <= n);
    if (VEC_PUSH(*runs, ((gecko_run){start, end, 0}))) return WEFT_ENOMEM;
    start = end;
  }
  return WEFT_OK;
}

/* The runs are read in step, one record each in turn: with more runs than
 * the hardware follows, each read would miss the cache; the record a few
 * ahead in the run is asked for now, to be there on the run's next turns. */
#define GECKO_RUN_AHEAD 4

/* The next record of run r: its time and the payload it is queued with. */
static void gecko_run_take(const gecko_state *st, gecko_run *r, int64_t *ts, uint64_t *payload) {
  size_t i = r->at++;
  if (r->sample) {
    if (i + GECKO_RUN_AHEAD < r->end) __builtin_prefetch(&st->samples.data[i + GECKO_RUN_AHEAD]);
    *ts = st->samples.data[i].ts;
    *payload = GECKO_SAMPLE_BIT | i;
    return;
  }
  if (i + GECKO_RUN_AHEAD < r->end) __builtin_prefetch(&st->markers.data[i + GECKO_RUN_AHEAD]);
  const gecko_marker *m = &st->markers.data[i];
  *ts = m->ts;
  *payload = gecko_marker_payload(m, i);
}

/* A merge of runs[i].at .. runs[i].end as a tree of losers: node 0 holds
 * the run whose head comes first, node j (1 <= j < n) the run that lost
 * the match played there, the runs being the leaves n .. 2n - 1. Taking
 * the first record replays only the matches on its run's path to the
 * root: one comparison a level, where a heap compares two children and
 * its own head at each. Heads compare by (time, run), a run at its end
 * after every other. */
typedef struct gecko_merge {
  const gecko_state *st;
  gecko_run *runs;
  int64_t *head;  /* runs[r]'s next time */
  uint32_t *tree; /* 2n slots: the n - 1 losers and the winner */
  size_t n, left; /* runs; records not yet taken */
} gecko_merge;

/* Whether run a's head comes before run b's: by time, then run. A run at
 * its end has the time INT64_MAX, which no record has (gecko_ms_to_ns
 * bounds them below 9.2e18), so it comes after every other. Without
 * branches: the outcome of each match is as good as random. */
static inline int gecko_merge_less(const gecko_merge *g, uint32_t a, uint32_t b) {
  int64_t ha = g->head[a], hb = g->head[b];
  return (ha < hb) | ((ha == hb) & (a < b));
}

/* The next time of run r, or INT64_MAX at its end. */
static int64_t gecko_merge_head(const gecko_merge *g, const gecko_run *r) {
  if (r->at >= r->end) return INT64_MAX;
  int64_t ts = gecko_run_ts(g->st, r);
  assert(ts < INT64_MAX);
  return ts;
}

/* The winner of the matches below node j (n <= j: leaf j - n). */
static uint32_t gecko_merge_build(gecko_merge *g, size_t j) {
  if (j >= g->n) return (uint32_t)(j - g->n);
  uint32_t a = gecko_merge_build(g, 2 * j), b = gecko_merge_build(g, 2 * j + 1);
  int a_wins = gecko_merge_less(g, a, b);
  g->tree[j] = a_wins ? b : a;
  return a_wins ? a : b;
}

static int gecko_merge_init(gecko_merge *g, const gecko_state *st, gecko_run *runs, size_t n) {
  *g = (gecko_merge){st, runs, NULL, NULL, n, 0};
  if (!n) return WEFT_OK;
  g->head = base_malloc(n * sizeof *g->head);
  g->tree = base_malloc(2 * n * sizeof *g->tree);
  if (!g->head || !g->tree) return WEFT_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    g->head[i] = gecko_merge_head(g, &runs[i]);
    g->left += runs[i].end - runs[i].at;
  }
  g->tree[0] = n == 1 ? 0 : gecko_merge_build(g, 1);
  return WEFT_OK;
}

static void gecko_merge_free(gecko_merge *g) {
  base_free(g->head);
  base_free(g->tree);
}

/* The merge's next record (0 when it is done). */
static int gecko_merge_next(gecko_merge *g, int64_t *ts, uint64_t *payload) {
  if (!g->left) return 0;
  g->left--;
  uint32_t winner = g->tree[0];
  gecko_run *r = &g->runs[winner];
  gecko_run_take(g->st, r, ts, payload);
  g->head[winner] = gecko_merge_head(g, r);
  for (size_t j = (winner + g->n) / 2; j > 0; j /= 2) {
    uint32_t other = g->tree[j];
    uint32_t mask = 0u - (uint32_t)gecko_merge_less(g, other, winner);
    g->tree[j] = (winner & mask) | (other & ~mask);
    winner = (other & mask) | (winner & ~mask);
  }
  g->tree[0] = winner;
  return 1;
}

/* ---- the merge split in two at a time ----
 * With a worker, the records from time `split` on are merged there into a
 * buffer while this thread merges and queues those before it, then queues
 * the buffer: the same order, as every record before `split` comes before
 * every record from it. */

#define GECKO_SPLIT_MIN 65536 /* records: fewer are merged here alone */
#define GECKO_SPLIT_PROBES 255

typedef struct gecko_queued {
  int64_t ts;
  uint64_t payload;
} gecko_queued;

typedef struct gecko_upper {
  const gecko_state *st;
  gecko_run *runs; /* the runs' parts from `split` on (their own copies) */
  size_t nruns, total;
  gecko_queued *out;
} gecko_upper;

static int gecko_upper_run(void *arg, void **result, base_error *err) {
  (void)result;
  gecko_upper *u = arg;
  gecko_merge g;
  if (gecko_merge_init(&g, u->st, u->runs, u->nruns)) {
    gecko_merge_free(&g);
    return base_error_nomem(err);
  }
  size_t n = 0;
  while (gecko_merge_next(&g, &u->out[n].ts, &u->out[n].payload)) n++;
  assert(n == u->total);
  gecko_merge_free(&g);
  return WEFT_OK;
}

static int gecko_ts_less(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* A time about halfway through the records, by the median of probes
 * spread over the runs in proportion to their lengths. */
static int64_t gecko_split_time(const gecko_state *st, const gecko_runs *runs, size_t total) {
  int64_t probes[GECKO_SPLIT_PROBES];
  size_t n = 0, seen = 0, next = total / (2 * GECKO_SPLIT_PROBES);
  for (size_t k = 0; k < runs->len && n < GECKO_SPLIT_PROBES; k++) {
    const gecko_run *r = &runs->data[k];
    size_t len = r->end - r->at;
    while (next < seen + len && n < GECKO_SPLIT_PROBES) {
      probes[n++] = gecko_item_ts(st, r->sample, r->at + (next - seen));
      next += total / GECKO_SPLIT_PROBES;
    }
    seen += len;
  }
  if (!n) return INT64_MAX; /* (no records: nothing from the split on) */
  qsort(probes, n, sizeof *probes, gecko_ts_less);
  return probes[n / 2];
}

/* The first index of run r whose time is at least ts. */
static size_t gecko_run_lower_bound(const gecko_state *st, const gecko_run *r, int64_t ts) {
  size_t lo = r->at, hi = r->end;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (gecko_item_ts(st, r->sample, mid) < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Cuts every run at time `split`: runs keep the part before it, u->runs
 * get the part from it. */
static int gecko_split_runs(const gecko_state *st, gecko_runs *runs, int64_t split,
                            gecko_upper *u) {
  u->runs = base_malloc(runs->len * sizeof *u->runs);
  if (!u->runs) return WEFT_ENOMEM;
  u->nruns = runs->len;
  u->total = 0;
  for (size_t k = 0; k < runs->len; k++) {
    gecko_run *r = &runs->data[k];
    size_t cut = gecko_run_lower_bound(st, r, split);
    u->runs[k] = (gecko_run){cut, r->end, r->sample};
    u->total += r->end - cut;
    r->end = cut;
  }
  return WEFT_OK;
}

/* Queues the merge of runs. */
static int gecko_queue_merge(import_file *f, gecko_run *runs, size_t n) {
  gecko_state *st = f->state;
  gecko_merge g;
  int rc = gecko_merge_init(&g, st, runs, n);
  int64_t ts;
  uint64_t payload;
  while (!rc && gecko_merge_next(&g, &ts, &payload)) rc = import_push(f, ts, st->clock, payload);
  gecko_merge_free(&g);
  return rc;
}

/* Queues the runs merged, the part from a time about halfway merged on a
 * worker meanwhile when the load has one. */
static int gecko_queue_runs(import_file *f, gecko_runs *runs, size_t total) {
  gecko_state *st = f->state;
  gecko_upper u = {st, NULL, 0, 0, NULL};
  scan_job *job = NULL;
  int rc = WEFT_OK;
  if (total >= GECKO_SPLIT_MIN) {
    rc = gecko_split_runs(st, runs, gecko_split_time(st, runs, total), &u);
    u.out = rc || !u.total ? NULL : base_malloc(u.total * sizeof *u.out);
    if (!rc && u.total && !u.out) rc = WEFT_ENOMEM;
    scan_task task = {gecko_upper_run, NULL, &u};
    if (!rc && u.total && import_task_submit(f, &task, &job)) job = NULL;
  }
  if (!rc) rc = gecko_queue_merge(f, runs->data, runs->len);
  void *unused;
  base_error err;
  if (job && rc) {
    import_task_drop(f, job);
  } else if (job) {
    rc = import_task_take(f, job, &unused, &err);
    for (size_t i = 0; !rc && i < u.total; i++)
      rc = import_push(f, u.out[i].ts, st->clock, u.out[i].payload);
  } else if (!rc && u.total) { /* no worker: the later part queued as merged */
    rc = gecko_queue_merge(f, u.runs, u.nruns);
  }
  base_free(u.out);
  base_free(u.runs);
  return rc;
}

int gecko_push_ordered(import_file *f, size_t n) {
  gecko_state *st = f->state;
  gecko_runs runs = {0};
  int rc = gecko_add_runs(st, 0, n, st->markers.len, &runs);
  if (!rc && n) rc = gecko_add_marker_runs(st, n, &runs);
  if (!rc) rc = gecko_add_runs(st, 1, 0, st->samples.len, &runs);
  if (!rc) rc = gecko_queue_runs(f, &runs, st->markers.len + st->samples.len);
  VEC_FREE(runs);
  return rc;
}
