/* The sorter: per-source queues, conversion, natural merge sort, tournament
 * tree merge. */
#include <stdlib.h>

#include "sort/sort.h"

/* Emitted count is published to other threads once per this many events. */
#define SORT_PROGRESS_EVERY 4096u
/* Items fetched ahead of a queue's head during the merge (4 per line). */
#define SORT_PREFETCH_AHEAD 8

void sorter_init(sorter *s) { memset(s, 0, sizeof *s); }

static void sort_queue_free(sort_queue *q) {
  VEC_FREE(q->items);
  VEC_FREE(q->clocks);
}

void sorter_free(sorter *s) {
  for (size_t i = 0; i < s->queues.len; i++) sort_queue_free(&s->queues.data[i]);
  VEC_FREE(s->queues);
}

int sorter_add_source(sorter *s, uint32_t *source) {
  sort_queue q = {0};
  if (s->queues.len >= UINT32_MAX) return WEFT_ELIMIT;
  int rc = VEC_PUSH(s->queues, q);
  if (!rc) *source = (uint32_t)(s->queues.len - 1);
  return rc;
}

int sorter_push(sorter *s, uint32_t source, int64_t ts, uint32_t clock,
                uint64_t payload) {
  if (source >= s->queues.len) return WEFT_EINVAL;
  sort_queue *q = &s->queues.data[source];
  sort_clock_run *run = q->clocks.len ? &q->clocks.data[q->clocks.len - 1] : NULL;
  if (!run || run->clock != clock || run->count == UINT32_MAX) {
    /* A run left at count 0 by a failed push below is harmless. */
    if (VEC_PUSH(q->clocks, ((sort_clock_run){clock, 0}))) return WEFT_ENOMEM;
    run = &q->clocks.data[q->clocks.len - 1];
  }
  if (VEC_PUSH(q->items, ((sort_item){ts, payload}))) return WEFT_ENOMEM;
  run->count++;
  __atomic_store_n(&s->event_count, s->event_count + 1, __ATOMIC_RELAXED);
  return WEFT_OK;
}

void sorter_progress(const sorter *s, uint64_t *pushed, uint64_t *emitted) {
  if (pushed) *pushed = __atomic_load_n(&s->event_count, __ATOMIC_RELAXED);
  if (emitted) *emitted = __atomic_load_n(&s->emitted, __ATOMIC_RELAXED);
}

/* Converts a queue in place, dropping events the converter rejects, and
 * frees its clock runs. Returns 1 if the kept events are in order. */
static int sort_convert_queue(sort_queue *q, uint32_t source,
                              sort_convert_fn convert, void *user) {
  size_t in = 0, kept = 0;
  int in_order = 1;
  int64_t last = INT64_MIN;
  for (size_t r = 0; r < q->clocks.len; r++) {
    const sort_clock_run run = q->clocks.data[r];
    for (uint32_t i = 0; i < run.count && in < q->items.len; i++) {
      sort_item e = q->items.data[in++];
      if (convert(user, source, run.clock, e.ts, &e.ts) != 0) continue;
      in_order &= last <= e.ts;
      last = e.ts;
      q->items.data[kept++] = e;
    }
  }
  q->items.len = kept;
  VEC_FREE(q->clocks);
  return in_order;
}

/* ---- stable natural merge sort of one queue ---- */

/* End of the non-decreasing run that starts at lo. */
static size_t sort_run_end(const sort_item *a, size_t lo, size_t n) {
  size_t i = lo + 1;
  while (i < n && a[i - 1].ts <= a[i].ts) i++;
  return i;
}

/* Merges a[lo, mid) and a[mid, hi) into out[lo, hi); ties take the left. */
static void sort_merge_runs(const sort_item *a, size_t lo, size_t mid,
                            size_t hi, sort_item *out) {
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi) out[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
  if (i < mid) memcpy(out + k, a + i, (mid - i) * sizeof *a);
  if (j < hi) memcpy(out + k, a + j, (hi - j) * sizeof *a);
}

/* One pass: merges pairs of adjacent runs of src into dst. Returns the
 * number of runs left in dst. */
static size_t sort_merge_pass(const sort_item *src, sort_item *dst, size_t n) {
  size_t lo = 0, runs = 0;
  while (lo < n) {
    size_t mid = sort_run_end(src, lo, n);
    size_t hi = mid < n ? sort_run_end(src, mid, n) : n;
    sort_merge_runs(src, lo, mid, hi, dst);
    runs++;
    lo = hi;
  }
  return runs;
}

/* Sorts the queue's items by ts, stably, with passes that alternate between
 * the items and a buffer of the same size; whichever ends sorted is kept. */
static int sort_queue_merge_sort(sort_queue *q) {
  size_t n = q->items.len;
  sort_item *a = q->items.data;
  sort_item *tmp = base_malloc(n * sizeof *tmp);
  if (!tmp) return WEFT_ENOMEM;
  sort_item *src = a, *dst = tmp;
  for (;;) {
    size_t runs = sort_merge_pass(src, dst, n);
    sort_item *t = src;
    src = dst;
    dst = t;
    if (runs <= 1) break;
  }
  base_free(dst);
  q->items.data = src;
  if (src == tmp) q->items.cap = n;
  return WEFT_OK;
}

/* ---- windowed merge of a queue's runs ----
 * A queue is a sequence of ascending runs (pushed in that order). Runs are
 * activated in push order into a heap of cursors keyed by (ts, run); the
 * heap's minimum is output once no run still to activate can hold a smaller
 * event, i.e. while it is <= the smallest first ts of the runs left (runs
 * ascend, so a run's first ts is its minimum). Only runs that overlap in
 * time are in the heap together, so a queue of interleaved sequences costs
 * O(n log overlap). Ties go to the earlier run: the order stays stable. */
typedef struct sort_span {
  size_t pos, end;     /* the run's unread part */
  int64_t later_min;   /* smallest first ts of this run and every later one */
} sort_span;

typedef struct sort_cursor {
  int64_t ts;   /* ts at the span's pos */
  uint32_t run; /* index into the spans */
} sort_cursor;

static int sort_cursor_less(sort_cursor a, sort_cursor b) {
  return a.ts < b.ts || (a.ts == b.ts && a.run < b.run);
}

static void sort_cursor_down(sort_cursor *h, size_t n, size_t i) {
  sort_cursor moving = h[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && sort_cursor_less(h[c + 1], h[c])) c++;
    if (!sort_cursor_less(h[c], moving)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = moving;
}

static void sort_cursor_up(sort_cursor *h, size_t i) {
  sort_cursor moving = h[i];
  while (i > 0 && sort_cursor_less(moving, h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = moving;
}

/* Merges the runs of a[0, n) described by spans into out. */
static void sort_window_merge(const sort_item *a, sort_span *spans, size_t runs,
                              sort_cursor *heap, sort_item *out, size_t n) {
  size_t active = 0, next = 0;
  for (size_t k = 0; k < n; k++) {
    while (next < runs && (active == 0 || spans[next].later_min < heap[0].ts)) {
      heap[active] = (sort_cursor){a[spans[next].pos].ts, (uint32_t)next};
      sort_cursor_up(heap, active++);
      next++;
    }
    sort_span *sp = &spans[heap[0].run];
    out[k] = a[sp->pos++];
    if (sp->pos < sp->end) heap[0].ts = a[sp->pos].ts;
    else heap[0] = heap[--active];
    sort_cursor_down(heap, active, 0);
  }
}

/* Sorts a queue that is out of order: windowed merge of its runs, or, when
 * the runs are short (little order to exploit), the natural merge sort. */
static int sort_queue_order(sort_queue *q) {
  size_t n = q->items.len, runs = 1;
  sort_item *a = q->items.data;
  for (size_t i = 1; i < n; i++) runs += a[i].ts < a[i - 1].ts;
  if (runs <= 1) return WEFT_OK;
  if (runs > n / 16 || runs > UINT32_MAX) return sort_queue_merge_sort(q);
  sort_span *spans = base_malloc(runs * sizeof *spans);
  sort_cursor *heap = base_malloc(runs * sizeof *heap);
  sort_item *out = base_malloc(n * sizeof *out);
  int rc = spans && heap && out ? WEFT_OK : WEFT_ENOMEM;
  if (rc == WEFT_OK) {
    size_t r = 0;
    for (size_t lo = 0; lo < n; r++) {
      size_t hi = sort_run_end(a, lo, n);
      spans[r] = (sort_span){lo, hi, a[lo].ts};
      lo = hi;
    }
    for (size_t i = runs - 1; i-- > 0;)
      if (spans[i + 1].later_min < spans[i].later_min)
        spans[i].later_min = spans[i + 1].later_min;
    sort_window_merge(a, spans, runs, heap, out, n);
    q->items.data = out;
    q->items.cap = n;
    out = a;
  }
  base_free(spans);
  base_free(heap);
  base_free(out);
  return rc;
}

/* ---- merge of the queues: a tournament tree of losers ----
 * Leaves are the non-empty queues in source order, padded to a power of two
 * with exhausted leaves; node i > 0 holds the key of the loser of the match
 * played there, node 0 the overall winner's. A key is (ts, rank) with rank =
 * leaf for a live leaf and size + leaf once exhausted, so keys order events
 * by (ts, source) and put exhausted leaves last. Keys are stored in the
 * nodes so that a match reads one node, not the leaves. */
typedef struct sort_key {
  int64_t ts;
  uint32_t rank;
} sort_key;

typedef struct sort_leaf {
  const sort_item *next;  /* the head event */
  const sort_item *end;   /* past the queue's last event */
  uint32_t source;
} sort_leaf;

typedef struct sort_tree {
  sort_leaf *leaves;
  sort_key *nodes;
  uint32_t size; /* leaves, a power of two */
} sort_tree;

static int sort_key_less(sort_key a, sort_key b) {
  return a.ts < b.ts || (a.ts == b.ts && a.rank < b.rank);
}

/* Plays the matches of a key whose leaf changed, up to the root. */
static void sort_tree_replay(sort_tree *t, sort_key k) {
  uint32_t leaf = k.rank < t->size ? k.rank : k.rank - t->size;
  for (uint32_t node = (leaf + t->size) / 2; node >= 1; node /= 2) {
    if (sort_key_less(t->nodes[node], k)) {
      sort_key loser = k;
      k = t->nodes[node];
      t->nodes[node] = loser;
    }
  }
  t->nodes[0] = k;
}

static int sort_tree_build(sort_tree *t, const sorter *s) {
  size_t filled = 0;
  for (size_t i = 0; i < s->queues.len; i++) filled += s->queues.data[i].items.len > 0;
  t->size = 1;
  while (t->size < filled) t->size *= 2;
  t->leaves = base_calloc(t->size, sizeof *t->leaves);
  t->nodes = base_calloc(t->size, sizeof *t->nodes);
  sort_key *win = base_malloc(2 * (size_t)t->size * sizeof *win);
  if (!t->leaves || !t->nodes || !win) {
    base_free(win);
    return WEFT_ENOMEM;
  }
  /* win[node]: winner of the subtree at node (leaves at size + leaf). */
  uint32_t k = 0;
  for (size_t i = 0; i < s->queues.len; i++) {
    const sort_queue *q = &s->queues.data[i];
    if (!q->items.len) continue;
    t->leaves[k] = (sort_leaf){q->items.data, q->items.data + q->items.len, (uint32_t)i};
    win[t->size + k] = (sort_key){q->items.data[0].ts, k};
    k++;
  }
  for (; k < t->size; k++) win[t->size + k] = (sort_key){INT64_MAX, t->size + k};
  for (uint32_t node = t->size - 1; node >= 1; node--) {
    sort_key a = win[2 * node], b = win[2 * node + 1];
    int b_wins = sort_key_less(b, a);
    win[node] = b_wins ? b : a;
    t->nodes[node] = b_wins ? a : b;
  }
  t->nodes[0] = win[1];
  base_free(win);
  return WEFT_OK;
}

static int sort_merge_emit(sorter *s, sort_emit_fn emit, void *user) {
  sort_tree t = {0};
  int rc = sort_tree_build(&t, s);
  uint64_t emitted = 0;
  while (rc == WEFT_OK && t.nodes[0].rank < t.size) {
    sort_key k = t.nodes[0];
    sort_leaf *leaf = &t.leaves[k.rank];
    const sort_item *it = leaf->next++;
    sort_event ev = {it->ts, 0, leaf->source, it->payload};
    rc = emit(user, &ev);
    /* With many sources each queue is visited rarely: fetch ahead. */
    if (leaf->end - leaf->next > SORT_PREFETCH_AHEAD)
      __builtin_prefetch(leaf->next + SORT_PREFETCH_AHEAD);
    if (leaf->next < leaf->end) k.ts = leaf->next->ts;
    else k = (sort_key){INT64_MAX, k.rank + t.size};
    sort_tree_replay(&t, k);
    if ((++emitted & (SORT_PROGRESS_EVERY - 1)) == 0)
      __atomic_store_n(&s->emitted, emitted, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&s->emitted, emitted, __ATOMIC_RELAXED);
  base_free(t.leaves);
  base_free(t.nodes);
  return rc;
}

int sorter_run(sorter *s, sort_convert_fn convert, sort_emit_fn emit,
               void *user) {
  int rc = WEFT_OK;
  __atomic_store_n(&s->emitted, 0, __ATOMIC_RELAXED);
  for (size_t i = 0; i < s->queues.len && rc == WEFT_OK; i++) {
    sort_queue *q = &s->queues.data[i];
    if (!sort_convert_queue(q, (uint32_t)i, convert, user)) rc = sort_queue_order(q);
  }
  if (rc == WEFT_OK) rc = sort_merge_emit(s, emit, user);
  for (size_t i = 0; i < s->queues.len; i++) sort_queue_free(&s->queues.data[i]);
  return rc;
}
