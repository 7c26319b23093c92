/* The sorter: per-(source, lane) queues, conversion, stable sort, Perfetto's
 * lane merge. See sort.h. */
#include <pthread.h>
#include <stdlib.h>

#include "sort/sort.h"

/* Top bit of sort_event.source inside the queues: a run break. */
#define SORT_BREAK 0x80000000u

void sorter_init(sorter *s) {
  memset(s, 0, sizeof *s);
  s->threads = 1;
}

void sorter_set_threads(sorter *s, uint32_t threads) {
  s->threads = threads ? threads : 1;
}

static void sorter_free_queues(sorter *s) {
  for (size_t i = 0; i < s->queues.len; i++) VEC_FREE(s->queues.data[i].events);
  s->queues.len = 0;
  base_map_free(&s->queue_index);
  memset(&s->queue_index, 0, sizeof s->queue_index);
  s->has_last = 0;
}

void sorter_free(sorter *s) {
  sorter_free_queues(s);
  VEC_FREE(s->queues);
}

int sorter_add_source(sorter *s, uint32_t *source) {
  if (s->source_count >= SORT_BREAK - 1) return WEFT_ELIMIT;
  *source = s->source_count++;
  return WEFT_OK;
}

static int sorter_queue(sorter *s, uint32_t source, uint32_t lane, uint32_t *out) {
  uint64_t key = (uint64_t)source << 32 | lane;
  if (s->has_last && s->last_key == key) {
    *out = s->last_queue;
    return WEFT_OK;
  }
  uint64_t *slot;
  int ins = base_map_insert(&s->queue_index, key, s->queues.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 1) {
    sort_queue q = {{0}, source, lane};
    if (VEC_PUSH(s->queues, q)) {
      *slot = UINT64_MAX - 1; /* never a valid index: re-created next time */
      return WEFT_ENOMEM;
    }
  } else if (*slot >= s->queues.len) {
    sort_queue q = {{0}, source, lane};
    if (VEC_PUSH(s->queues, q)) return WEFT_ENOMEM;
    *slot = s->queues.len - 1;
  }
  s->last_key = key;
  s->last_queue = (uint32_t)*slot;
  s->has_last = 1;
  *out = s->last_queue;
  return WEFT_OK;
}

int sorter_push_lane(sorter *s, uint32_t source, uint32_t lane, int64_t ts,
                     uint32_t clock, uint64_t payload) {
  uint32_t q;
  if (source >= s->source_count) return WEFT_EINVAL;
  int rc = sorter_queue(s, source, lane, &q);
  if (rc) return rc;
  sort_event e = {ts, clock, source, payload};
  __atomic_store_n(&s->event_count, s->event_count + 1, __ATOMIC_RELAXED);
  return VEC_PUSH(s->queues.data[q].events, e);
}

void sorter_mark_break(sorter *s) {
  if (!s->has_last) return;
  sort_queue *q = &s->queues.data[s->last_queue];
  if (q->events.len) q->events.data[q->events.len - 1].source |= SORT_BREAK;
}

int sorter_push(sorter *s, uint32_t source, int64_t ts, uint32_t clock,
                uint64_t payload) {
  return sorter_push_lane(s, source, 0, ts, clock, payload);
}

/* Converts a queue in place, dropping events the converter rejects. */
static void sort_convert_queue(sort_queue *q, sort_convert_fn convert, void *user) {
  size_t kept = 0;
  for (size_t i = 0; i < q->events.len; i++) {
    sort_event e = q->events.data[i];
    if (convert(user, q->source, e.clock, e.ts, &e.ts) != 0) continue;
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

/* ---- joining each lane's queues ---- */

static int sort_queue_cmp(const void *a, const void *b) {
  const sort_queue *x = a, *y = b;
  if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
  return x->source < y->source ? -1 : x->source > y->source;
}

/* Sorts the queues by (lane, source) and appends the queues of a lane to
 * its first one (source order), so each lane is one queue; returns the
 * number of lanes, which are then queues[0, n). */
static int sort_join_lanes(sorter *s, size_t *lanes) {
  if (s->queues.len > 1)
    qsort(s->queues.data, s->queues.len, sizeof *s->queues.data, sort_queue_cmp);
  base_map_free(&s->queue_index); /* indexes are stale from here on */
  memset(&s->queue_index, 0, sizeof s->queue_index);
  s->has_last = 0;
  size_t n = 0;
  for (size_t i = 0; i < s->queues.len; i++) {
    sort_queue *q = &s->queues.data[i];
    if (n > 0 && s->queues.data[n - 1].lane == q->lane) {
      sort_queue *into = &s->queues.data[n - 1];
      if (VEC_RESERVE(into->events, into->events.len + q->events.len)) return WEFT_ENOMEM;
      if (q->events.len)
        memcpy(into->events.data + into->events.len, q->events.data,
               q->events.len * sizeof *q->events.data);
      into->events.len += q->events.len;
      VEC_FREE(q->events);
      continue;
    }
    if (n != i) {
      s->queues.data[n] = *q;
      memset(&q->events, 0, sizeof q->events);
    }
    n++;
  }
  for (size_t i = n; i < s->queues.len; i++) VEC_FREE(s->queues.data[i].events);
  s->queues.len = n;
  *lanes = n;
  return WEFT_OK;
}

/* ---- the heap of lane heads, ordered by (ts, lane position) ---- */
typedef struct sort_head {
  int64_t ts;
  uint32_t lane;  /* index into queues (lane order) */
  size_t next;    /* index of this head in its queue */
} sort_head;

static int sort_head_less(const sort_head *a, const sort_head *b) {
  return a->ts < b->ts || (a->ts == b->ts && a->lane < b->lane);
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

/* Emits every event in merge order. `publish`: keep s->emitted current
 * (else the caller does, as the events are really parsed). */
static int sort_merge_emit(sorter *s, sort_emit_fn emit, void *user, int publish) {
  size_t n = 0;
  sort_head *heap = base_malloc((s->queues.len + 1) * sizeof *heap);
  if (!heap) return WEFT_ENOMEM;
  for (size_t i = 0; i < s->queues.len; i++)
    if (s->queues.data[i].events.len)
      heap[n++] = (sort_head){s->queues.data[i].events.data[0].ts, (uint32_t)i, 0};
  for (size_t i = n; i-- > 0;) sort_heap_down(heap, n, i);
  int rc = WEFT_OK;
  uint64_t emitted = 0;
  while (n && rc == WEFT_OK) {
    /* The earliest head of any other lane: a child of the root. */
    int64_t limit = INT64_MAX;
    if (n > 1) limit = heap[1].ts;
    if (n > 2 && heap[2].ts < limit) limit = heap[2].ts;
    sort_queue *q = &s->queues.data[heap[0].lane];
    int brk;
    do {
      sort_event e = q->events.data[heap[0].next];
      brk = (e.source & SORT_BREAK) != 0;
      e.source &= ~SORT_BREAK;
      rc = emit(user, &e);
      emitted++;
    } while (rc == WEFT_OK && ++heap[0].next < q->events.len && !brk &&
             q->events.data[heap[0].next].ts <= limit);
    if (publish) __atomic_store_n(&s->emitted, emitted, __ATOMIC_RELAXED);
    if (heap[0].next < q->events.len) heap[0].ts = q->events.data[heap[0].next].ts;
    else heap[0] = heap[--n];
    sort_heap_down(heap, n, 0);
  }
  base_free(heap);
  return rc;
}

/* ---- several threads: lanes sorted in parallel, merge ahead of emit ----
 * Both keep the output identical to one thread's: each lane's sort depends
 * only on that lane, and the merging thread produces the same sequence,
 * handed over in order. */

typedef struct sort_lanes_job {
  sorter *s;
  size_t lanes, first, stride;
  int rc;
} sort_lanes_job;

static void *sort_lanes_worker(void *arg) {
  sort_lanes_job *j = arg;
  for (size_t i = j->first; i < j->lanes && j->rc == WEFT_OK; i += j->stride)
    j->rc = sort_queue_in_order(&j->s->queues.data[i]);
  return NULL;
}

static int sort_lanes_in_order(sorter *s, size_t lanes) {
  enum { MAX_WORKERS = 64 };
  size_t workers = s->threads < lanes ? s->threads : lanes;
  if (workers > MAX_WORKERS) workers = MAX_WORKERS;
  if (workers < 1) workers = 1;
  sort_lanes_job jobs[MAX_WORKERS];
  pthread_t tids[MAX_WORKERS];
  int started[MAX_WORKERS] = {0};
  for (size_t t = 0; t < workers; t++) {
    jobs[t] = (sort_lanes_job){s, lanes, t, workers, WEFT_OK};
    if (t > 0) started[t] = pthread_create(&tids[t], NULL, sort_lanes_worker, &jobs[t]) == 0;
  }
  sort_lanes_worker(&jobs[0]);
  int rc = jobs[0].rc;
  for (size_t t = 1; t < workers; t++) {
    if (started[t]) pthread_join(tids[t], NULL);
    else sort_lanes_worker(&jobs[t]); /* no thread: do its share here */
    if (rc == WEFT_OK) rc = jobs[t].rc;
  }
  return rc;
}

#define SORT_PIPE_BATCH 4096
#define SORT_PIPE_SLOTS 8

/* Batches of merged events from the merging thread to the emitting one. */
typedef struct sort_pipe {
  pthread_mutex_t mu;
  pthread_cond_t filled, drained;
  sort_event *batches;            /* SORT_PIPE_SLOTS x SORT_PIPE_BATCH */
  size_t lens[SORT_PIPE_SLOTS];
  uint64_t produced, consumed;    /* batches, monotonic */
  size_t fill;                    /* events in the batch being filled */
  int done, stop, rc;             /* merge finished / emit failed / its status */
  sorter *s;
} sort_pipe;

/* Hands the batch being filled over; waits for a free slot unless last. */
static int sort_pipe_publish(sort_pipe *p, int last) {
  pthread_mutex_lock(&p->mu);
  p->lens[p->produced % SORT_PIPE_SLOTS] = p->fill;
  p->produced++;
  p->fill = 0;
  pthread_cond_signal(&p->filled);
  while (!last && !p->stop && p->produced - p->consumed >= SORT_PIPE_SLOTS)
    pthread_cond_wait(&p->drained, &p->mu);
  int stop = p->stop;
  pthread_mutex_unlock(&p->mu);
  return stop ? WEFT_ELIMIT : WEFT_OK; /* any non-zero ends the merge */
}

static int sort_pipe_put(void *user, const sort_event *e) {
  sort_pipe *p = user;
  p->batches[(p->produced % SORT_PIPE_SLOTS) * SORT_PIPE_BATCH + p->fill++] = *e;
  return p->fill == SORT_PIPE_BATCH ? sort_pipe_publish(p, 0) : WEFT_OK;
}

static void *sort_pipe_merge(void *arg) {
  sort_pipe *p = arg;
  int rc = sort_merge_emit(p->s, sort_pipe_put, p, 0);
  if (rc == WEFT_OK && p->fill) rc = sort_pipe_publish(p, 1);
  pthread_mutex_lock(&p->mu);
  if (!p->stop) p->rc = rc;
  p->done = 1;
  pthread_cond_signal(&p->filled);
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

/* Emits the batches in order on this thread; returns emit's status. */
static int sort_pipe_drain(sort_pipe *p, sort_emit_fn emit, void *user) {
  int rc = WEFT_OK;
  uint64_t emitted = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (p->consumed == p->produced && !p->done) pthread_cond_wait(&p->filled, &p->mu);
    int empty = p->consumed == p->produced;
    pthread_mutex_unlock(&p->mu);
    if (empty) return rc;
    size_t slot = p->consumed % SORT_PIPE_SLOTS;
    const sort_event *batch = p->batches + slot * SORT_PIPE_BATCH;
    size_t i = 0;
    while (i < p->lens[slot] && rc == WEFT_OK) rc = emit(user, &batch[i++]);
    emitted += i;
    __atomic_store_n(&p->s->emitted, emitted, __ATOMIC_RELAXED);
    pthread_mutex_lock(&p->mu);
    p->consumed++;
    if (rc) p->stop = 1;
    pthread_cond_signal(&p->drained);
    pthread_mutex_unlock(&p->mu);
    if (rc) return rc;
  }
}

/* Merges on a second thread while this one emits; falls back to one
 * thread when one cannot be started. */
static int sort_merge_emit_pipelined(sorter *s, sort_emit_fn emit, void *user) {
  sort_pipe p;
  memset(&p, 0, sizeof p);
  p.s = s;
  p.batches = base_malloc(SORT_PIPE_SLOTS * SORT_PIPE_BATCH * sizeof *p.batches);
  if (!p.batches) return sort_merge_emit(s, emit, user, 1);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.filled, NULL);
  pthread_cond_init(&p.drained, NULL);
  pthread_t merger;
  int rc;
  if (pthread_create(&merger, NULL, sort_pipe_merge, &p) != 0) {
    rc = sort_merge_emit(s, emit, user, 1);
  } else {
    rc = sort_pipe_drain(&p, emit, user);
    pthread_join(merger, NULL);
    if (rc == WEFT_OK) rc = p.rc;
  }
  pthread_cond_destroy(&p.drained);
  pthread_cond_destroy(&p.filled);
  pthread_mutex_destroy(&p.mu);
  base_free(p.batches);
  return rc;
}

int sorter_run(sorter *s, sort_convert_fn convert, sort_emit_fn emit,
               void *user) {
  int rc = WEFT_OK;
  size_t lanes = 0;
  for (size_t i = 0; i < s->queues.len; i++) sort_convert_queue(&s->queues.data[i], convert, user);
  rc = sort_join_lanes(s, &lanes);
  if (rc == WEFT_OK) rc = sort_lanes_in_order(s, lanes);
  if (rc == WEFT_OK)
    rc = s->threads > 1 ? sort_merge_emit_pipelined(s, emit, user)
                        : sort_merge_emit(s, emit, user, 1);
  sorter_free_queues(s);
  return rc;
}

void sorter_progress(const sorter *s, uint64_t *pushed, uint64_t *emitted) {
  if (pushed) *pushed = __atomic_load_n(&s->event_count, __ATOMIC_RELAXED);
  if (emitted) *emitted = __atomic_load_n(&s->emitted, __ATOMIC_RELAXED);
}
