/* gecko: a thread's markers put in time order before they are queued.
 * A thread's markers come in any order; queued as they come, the parse
 * would read the marker table in a random order (a cache miss a marker).
 * Sorted here, each thread's while they are in cache, stably by ts (equal
 * times keep their table order, as the sorter's push order would), the
 * sorter merges the threads and the parse reads each thread's markers
 * front to back. */
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
 * same order, so the sorter finds its queue sorted and has nothing to do. */

typedef struct gecko_run {
  size_t at, end;
  int sample; /* indices into st->samples, not st->markers */
} gecko_run;
typedef VEC(gecko_run) gecko_runs;

typedef struct gecko_head {
  int64_t ts;
  size_t run; /* ties: the earlier run first */
} gecko_head;

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

static int gecko_head_less(const gecko_head *a, const gecko_head *b) {
  return a->ts < b->ts || (a->ts == b->ts && a->run < b->run);
}

static void gecko_heap_down(gecko_head *h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    if (l < n && gecko_head_less(&h[l], &h[m])) m = l;
    if (l + 1 < n && gecko_head_less(&h[l + 1], &h[m])) m = l + 1;
    if (m == i) return;
    gecko_head t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* The runs are read in step, one record each in turn: with more runs than
 * the hardware follows, each read would miss the cache; the record a few
 * ahead in the run is asked for now, to be there on the run's next turns. */
#define GECKO_RUN_AHEAD 4

static int gecko_push_run_head(import_file *f, gecko_run *r) {
  gecko_state *st = f->state;
  size_t i = r->at++;
  if (r->sample) {
    if (i + GECKO_RUN_AHEAD < r->end) __builtin_prefetch(&st->samples.data[i + GECKO_RUN_AHEAD]);
    return import_push(f, st->samples.data[i].ts, st->clock, GECKO_SAMPLE_BIT | i);
  }
  if (i + GECKO_RUN_AHEAD < r->end) __builtin_prefetch(&st->markers.data[i + GECKO_RUN_AHEAD]);
  const gecko_marker *m = &st->markers.data[i];
  return import_push(f, m->ts, st->clock, gecko_marker_payload(m, i));
}

int gecko_push_ordered(import_file *f, size_t n) {
  gecko_state *st = f->state;
  gecko_runs runs = {0};
  int rc = gecko_add_runs(st, 0, n, st->markers.len, &runs);
  if (!rc) rc = gecko_add_runs(st, 0, 0, n, &runs);
  if (!rc) rc = gecko_add_runs(st, 1, 0, st->samples.len, &runs);
  gecko_head *heap = rc || !runs.len ? NULL : base_malloc(runs.len * sizeof *heap);
  if (!rc && runs.len && !heap) rc = WEFT_ENOMEM;
  size_t count = rc ? 0 : runs.len;
  for (size_t i = 0; i < count; i++) heap[i] = (gecko_head){gecko_run_ts(st, &runs.data[i]), i};
  for (size_t i = count / 2; i-- > 0;) gecko_heap_down(heap, count, i);
  while (!rc && count) {
    gecko_run *r = &runs.data[heap[0].run];
    rc = gecko_push_run_head(f, r);
    if (r->at < r->end) heap[0].ts = gecko_run_ts(st, r);
    else heap[0] = heap[--count];
    gecko_heap_down(heap, count, 0);
  }
  base_free(heap);
  VEC_FREE(runs);
  return rc;
}
