/* The sorter: per-source queues, conversion, stable sort, heap merge. */
#include <stdlib.h>

#include "sort/sort.h"

void sorter_init(sorter *s) { memset(s, 0, sizeof *s); }

void sorter_free(sorter *s) {
  for (size_t i = 0; i < s->queues.len; i++) VEC_FREE(s->queues.data[i].events);
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
  sort_event e = {ts, clock, source, payload};
  s->event_count++;
  return VEC_PUSH(s->queues.data[source].events, e);
}

/* Converts a queue in place, dropping events the converter rejects. */
static void sort_convert_queue(sort_queue *q, uint32_t source,
                               sort_convert_fn convert, void *user) {
  size_t kept = 0;
  for (size_t i = 0; i < q->events.len; i++) {
    sort_event e = q->events.data[i];
    if (convert(user, source, e.clock, e.ts, &e.ts) != 0) continue;
    q->events.data[kept++] = e;
  }
  q->events.len = kept;
}

/* Stable merge sort by ts (queues are usually sorted: checked first). */
static void sort_merge_pass(sort_event *a, sort_event *tmp, size_t n) {
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
      while (i < mid) tmp[k++] = a[i++];
      while (j < hi) tmp[k++] = a[j++];
    }
    memcpy(a, tmp, n * sizeof *a);
  }
}

static int sort_queue_in_order(sort_queue *q) {
  size_t n = q->events.len;
  sort_event *a = q->events.data;
  size_t i = 1;
  while (i < n && a[i - 1].ts <= a[i].ts) i++;
  if (i >= n) return WEFT_OK;
  sort_event *tmp = base_malloc(n * sizeof *tmp);
  if (!tmp) return WEFT_ENOMEM;
  sort_merge_pass(a, tmp, n);
  base_free(tmp);
  return WEFT_OK;
}

/* ---- the heap of queue heads, ordered by (ts, source) ---- */
typedef struct sort_head {
  int64_t ts;
  uint32_t source;
  size_t next; /* index of this head in its queue */
} sort_head;

static int sort_head_less(const sort_head *a, const sort_head *b) {
  return a->ts < b->ts || (a->ts == b->ts && a->source < b->source);
}

static void sort_heap_down(sort_head *h, size_t n, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && sort_head_less(&h[l], &h[m])) m = l;
    if (r < n && sort_head_less(&h[r], &h[m])) m = r;
    if (m == i) return;
    sort_head t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static int sort_merge_emit(sorter *s, sort_emit_fn emit, void *user) {
  size_t n = 0;
  sort_head *heap = base_malloc((s->queues.len + 1) * sizeof *heap);
  if (!heap) return WEFT_ENOMEM;
  for (size_t i = 0; i < s->queues.len; i++)
    if (s->queues.data[i].events.len)
      heap[n++] = (sort_head){s->queues.data[i].events.data[0].ts, (uint32_t)i, 0};
  for (size_t i = n; i-- > 0;) sort_heap_down(heap, n, i);
  int rc = WEFT_OK;
  while (n && rc == WEFT_OK) {
    sort_queue *q = &s->queues.data[heap[0].source];
    rc = emit(user, &q->events.data[heap[0].next]);
    if (++heap[0].next < q->events.len) {
      heap[0].ts = q->events.data[heap[0].next].ts;
    } else {
      heap[0] = heap[--n];
    }
    sort_heap_down(heap, n, 0);
  }
  base_free(heap);
  return rc;
}

int sorter_run(sorter *s, sort_convert_fn convert, sort_emit_fn emit,
               void *user) {
  int rc = WEFT_OK;
  for (size_t i = 0; i < s->queues.len && rc == WEFT_OK; i++) {
    sort_convert_queue(&s->queues.data[i], (uint32_t)i, convert, user);
    rc = sort_queue_in_order(&s->queues.data[i]);
  }
  if (rc == WEFT_OK) rc = sort_merge_emit(s, emit, user);
  for (size_t i = 0; i < s->queues.len; i++) VEC_FREE(s->queues.data[i].events);
  return rc;
}
