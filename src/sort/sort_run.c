/* Running the sorter: every queue converted to trace time, the queues
 * sorted (in parallel with --threads > 1), then merged and emitted (with
 * the merge and the importers' prepare step on a thread of its own, handing
 * batches of events in order to the emitting thread). The output is
 * identical at any thread count: each queue's sort depends only on that
 * queue, and the merging thread produces the same sequence, handed over in
 * order. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sort/sort_internal.h"

typedef struct sort_queues_job {
  sorter *s;
  size_t *next; /* the next queue to sort, shared by the workers (atomic) */
  int rc;
} sort_queues_job;

/* Sorts queues, taking the next one not taken yet until none is left. */
static void *sort_queues_worker(void *arg) {
  sort_queues_job *j = arg;
  while (j->rc == WEFT_OK) {
    size_t i = __atomic_fetch_add(j->next, 1, __ATOMIC_RELAXED);
    if (i >= j->s->queues.len) break;
    j->rc = sort_queue_order(&j->s->queues.data[i]);
  }
  return NULL;
}

int sort_queues_in_order(sorter *s) {
  enum { MAX_WORKERS = 64 };
  size_t queues = s->queues.len;
  size_t workers = s->threads < queues ? s->threads : queues;
  if (workers > MAX_WORKERS) workers = MAX_WORKERS;
  if (workers < 1) workers = 1;
  sort_queues_job jobs[MAX_WORKERS];
  pthread_t tids[MAX_WORKERS];
  int started[MAX_WORKERS] = {0};
  size_t next = 0;
  for (size_t t = 0; t < workers; t++) {
    jobs[t] = (sort_queues_job){s, &next, WEFT_OK};
    if (t > 0) started[t] = pthread_create(&tids[t], NULL, sort_queues_worker, &jobs[t]) == 0;
  }
  sort_queues_worker(&jobs[0]);
  int rc = jobs[0].rc;
  for (size_t t = 1; t < workers; t++) { /* (one not started: the others took its share) */
    if (started[t]) pthread_join(tids[t], NULL);
    if (rc == WEFT_OK) rc = jobs[t].rc;
  }
  return rc;
}

#define SORT_PIPE_BATCH 4096
#define SORT_PIPE_SLOTS 8
#define SORT_PIPE_ARENA ((size_t)128 << 10) /* prepared bytes per slot */
#define SORT_PIPE_NONE UINT32_MAX           /* an event without prepared data */

/* Batches of merged (and prepared) events from the merging thread to the
 * emitting one. */
typedef struct sort_pipe {
  pthread_mutex_t mu;
  pthread_cond_t filled, drained;
  sort_event *batches;            /* SORT_PIPE_SLOTS x SORT_PIPE_BATCH */
  uint32_t *prepared;             /* the same shape: offset in the slot's
                                     arena, or SORT_PIPE_NONE (NULL when the
                                     run prepares nothing) */
  unsigned char *arena;           /* SORT_PIPE_SLOTS x SORT_PIPE_ARENA */
  size_t lens[SORT_PIPE_SLOTS];
  uint64_t produced, consumed;    /* batches, monotonic */
  size_t fill;                    /* events in the batch being filled */
  size_t arena_fill;              /* bytes used in its arena */
  int done, stop, rc;             /* merge finished / emit failed / its status */
  int merger_waits;               /* the merging thread waits for slots */
  sorter *s;
  const sort_sink *sink;
} sort_pipe;

/* Hands the batch being filled over. When every slot is full (unless
 * last) it waits until half of them are free again: the emitting thread
 * then wakes it once per half a ring of batches, not once per batch. */
static int sort_pipe_publish(sort_pipe *p, int last) {
  pthread_mutex_lock(&p->mu);
  p->lens[p->produced % SORT_PIPE_SLOTS] = p->fill;
  p->produced++;
  p->fill = 0;
  p->arena_fill = 0;
  pthread_cond_signal(&p->filled);
  if (!last && p->produced - p->consumed >= SORT_PIPE_SLOTS) {
    p->merger_waits = 1;
    while (!p->stop && p->produced - p->consumed > SORT_PIPE_SLOTS / 2)
      pthread_cond_wait(&p->drained, &p->mu);
    p->merger_waits = 0;
  }
  int stop = p->stop;
  pthread_mutex_unlock(&p->mu);
  return stop ? WEFT_ELIMIT : WEFT_OK; /* any non-zero ends the merge */
}

/* Adds an event to the batch being filled, prepared into its arena; the
 * batch goes when it is full or its arena may not hold another event. */
static int sort_pipe_put(void *user, const sort_event *e) {
  sort_pipe *p = user;
  size_t slot = p->produced % SORT_PIPE_SLOTS, at = slot * SORT_PIPE_BATCH + p->fill++;
  p->batches[at] = *e;
  if (p->prepared) {
    unsigned char *out = p->arena + slot * SORT_PIPE_ARENA + p->arena_fill;
    size_t used = p->sink->prepare(p->sink->user, e, out);
    p->prepared[at] = used ? (uint32_t)p->arena_fill : SORT_PIPE_NONE;
    p->arena_fill += (used + 15) & ~(size_t)15;
    if (SORT_PIPE_ARENA - p->arena_fill < p->sink->prepare_max) return sort_pipe_publish(p, 0);
  }
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

/* Emits the events of batch slot `slot`, up to the first failure; *done:
 * how many were emitted. */
static int sort_pipe_emit_slot(sort_pipe *p, size_t slot, size_t *done) {
  const sort_sink *k = p->sink;
  const sort_event *batch = p->batches + slot * SORT_PIPE_BATCH;
  const uint32_t *prepared = p->prepared ? p->prepared + slot * SORT_PIPE_BATCH : NULL;
  unsigned char *arena = p->arena ? p->arena + slot * SORT_PIPE_ARENA : NULL;
  int rc = WEFT_OK;
  size_t i = 0;
  while (i < p->lens[slot] && rc == WEFT_OK) {
    void *data = prepared && prepared[i] != SORT_PIPE_NONE ? arena + prepared[i] : NULL;
    rc = k->emit(k->user, &batch[i], data);
    i++;
  }
  *done = i;
  return rc;
}

/* Emits the batches in order on this thread; returns emit's status. */
static int sort_pipe_drain(sort_pipe *p) {
  int rc = WEFT_OK;
  uint64_t emitted = 0;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    while (p->consumed == p->produced && !p->done) pthread_cond_wait(&p->filled, &p->mu);
    int empty = p->consumed == p->produced;
    pthread_mutex_unlock(&p->mu);
    if (empty) return rc;
    size_t done;
    rc = sort_pipe_emit_slot(p, p->consumed % SORT_PIPE_SLOTS, &done);
    emitted += done;
    __atomic_store_n(&p->s->emitted, emitted, __ATOMIC_RELAXED);
    pthread_mutex_lock(&p->mu);
    p->consumed++;
    if (rc) p->stop = 1;
    if (p->merger_waits && (rc || p->produced - p->consumed <= SORT_PIPE_SLOTS / 2))
      pthread_cond_signal(&p->drained);
    pthread_mutex_unlock(&p->mu);
    if (rc) return rc;
  }
}

/* The pipe's buffers: 0, or non-zero when one cannot be allocated. */
static int sort_pipe_alloc(sort_pipe *p) {
  p->batches = base_malloc(SORT_PIPE_SLOTS * SORT_PIPE_BATCH * sizeof *p->batches);
  if (!p->batches) return WEFT_ENOMEM;
  if (!p->sink->prepare) return WEFT_OK;
  p->prepared = base_malloc(SORT_PIPE_SLOTS * SORT_PIPE_BATCH * sizeof *p->prepared);
  p->arena = base_malloc(SORT_PIPE_SLOTS * SORT_PIPE_ARENA);
  return p->prepared && p->arena ? WEFT_OK : WEFT_ENOMEM;
}

/* Merges (and prepares) on a second thread while this one emits; falls
 * back to one thread when one cannot be started. */
int sort_merge_emit_pipelined(sorter *s, sort_sink *sink) {
  sort_pipe p;
  memset(&p, 0, sizeof p);
  p.s = s;
  p.sink = sink;
  int rc;
  if (sort_pipe_alloc(&p) != WEFT_OK) {
    rc = sort_merge_emit(s, sort_sink_emit, sink, 1);
  } else {
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.filled, NULL);
    pthread_cond_init(&p.drained, NULL);
    pthread_t merger;
    if (pthread_create(&merger, NULL, sort_pipe_merge, &p) != 0) {
      rc = sort_merge_emit(s, sort_sink_emit, sink, 1);
    } else {
      rc = sort_pipe_drain(&p);
      pthread_join(merger, NULL);
      if (rc == WEFT_OK) rc = p.rc;
    }
    pthread_cond_destroy(&p.drained);
    pthread_cond_destroy(&p.filled);
    pthread_mutex_destroy(&p.mu);
  }
  base_free(p.batches);
  base_free(p.prepared);
  base_free(p.arena);
  return rc;
}


/* One thread: prepares each event just before emitting it. */
int sort_sink_emit(void *arg, const sort_event *e) {
  sort_sink *k = arg;
  size_t used = k->prepare ? k->prepare(k->user, e, k->scratch) : 0;
  return k->emit(k->user, e, used ? k->scratch : NULL);
}

static int sort_queue_cmp(const void *a, const void *b) {
  const sort_queue *x = a, *y = b;
  if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
  if (x->source != y->source) return x->source < y->source ? -1 : 1;
  return x->segment < y->segment ? -1 : x->segment > y->segment;
}

/* Converts, orders and merges every event into `sink`. */
static int sort_run_into(sorter *s, sort_convert_fn convert, void *user, sort_sink *sink) {
  for (size_t i = 0; i < s->queues.len; i++) sort_convert_queue(&s->queues.data[i], convert, user);
  /* (lane, source, segment) order: the merge's lanes and its ties within
   * a lane. */
  if (s->queues.len > 1)
    qsort(s->queues.data, s->queues.len, sizeof *s->queues.data, sort_queue_cmp);
  base_map_free(&s->queue_index); /* indexes are stale from here on */
  memset(&s->queue_index, 0, sizeof s->queue_index);
  s->has_last = 0;
  int rc = sort_queues_in_order(s);
  if (rc == WEFT_OK)
    rc = s->threads > 1 ? sort_merge_emit_pipelined(s, sink)
                        : sort_merge_emit(s, sort_sink_emit, sink, 1);
  sorter_free_queues(s);
  return rc;
}

/* sorter_run's emit, as a sink's. */
typedef struct sort_plain {
  sort_emit_fn emit;
  void *user;
} sort_plain;

static int sort_plain_emit(void *user, const sort_event *event, void *prepared) {
  (void)prepared;
  const sort_plain *p = user;
  return p->emit(p->user, event);
}

int sorter_run(sorter *s, sort_convert_fn convert, sort_emit_fn emit,
               void *user) {
  sort_plain plain = {emit, user};
  sort_sink sink = {NULL, 0, sort_plain_emit, &plain, NULL};
  return sort_run_into(s, convert, user, &sink);
}

int sorter_run_prepared(sorter *s, sort_convert_fn convert, sort_prepare_fn prepare,
                        size_t prepare_max, sort_emit_prepared_fn emit, void *user) {
  if (prepare_max > SORT_PREPARE_MAX) prepare_max = SORT_PREPARE_MAX;
  sort_sink sink = {prepare, prepare_max, emit, user, NULL};
  if (prepare) {
    sink.scratch = base_malloc(prepare_max ? prepare_max : 1);
    if (!sink.scratch) {
      sorter_free_queues(s);
      return WEFT_ENOMEM;
    }
  }
  int rc = sort_run_into(s, convert, user, &sink);
  base_free(sink.scratch);
  return rc;
}
