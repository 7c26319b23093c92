/* The sorter: per-(source, lane) queues of 16-byte events in chunks,
 * conversion, a sort of each queue (windowed merge of its ascending
 * stretches), Perfetto's lane merge freeing what it has emitted. See sort.h. */
#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sort/sort_internal.h"

/* Sources are numbered below this. */
#define SORT_MAX_SOURCES 0x7fffffffu
/* sort_run.count: the break flag and the largest count. */
#define SORT_RUN_BREAK 0x80000000u
#define SORT_RUN_MAX 0x7fffffffu

/* Queues with more ascending stretches than 1/this of their events are
 * sorted chunk by chunk before the windowed merge. */
#define SORT_SHORT_STRETCHES 16

static sort_item *sort_item_at(const sort_chunks *c, size_t i) {
  return sort_chunks_at(c, sizeof(sort_item), SORT_ITEM_SHIFT, i);
}

static sort_run *sort_run_at(const sort_chunks *c, size_t i) {
  return sort_chunks_at(c, sizeof(sort_run), SORT_RUN_SHIFT, i);
}

static void sort_queue_free(sort_queue *q) {
  sort_chunks_free(&q->items, sizeof(sort_item), SORT_ITEM_SHIFT);
  sort_chunks_free(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT);
}

/* ---- pushing ---- */

void sorter_init(sorter *s) {
  memset(s, 0, sizeof *s);
  s->threads = 1;
  s->segment_items = SORT_SEGMENT_ITEMS;
  base_slab_init(&s->small_chunks, SORT_CHUNK_BYTES >> SORT_LARGE_EXTRA, SORT_WARM_CHUNKS);
}

void sorter_set_locate_rules(sorter *s, const sort_locate_rule *rules, size_t count) {
  s->locate = rules;
  s->locate_count = rules ? count : 0;
}

void sorter_set_threads(sorter *s, uint32_t threads) {
  s->threads = threads ? threads : 1;
}

void sorter_set_segment_items(sorter *s, size_t items) {
  s->segment_items = items ? items : SORT_SEGMENT_ITEMS;
}

void sorter_free_queues(sorter *s) {
  for (size_t i = 0; i < s->queues.len; i++) sort_queue_free(&s->queues.data[i]);
  s->queues.len = 0;
  base_map_free(&s->queue_index);
  memset(&s->queue_index, 0, sizeof s->queue_index);
  s->has_last = 0;
}

void sorter_free(sorter *s) {
  sorter_free_queues(s);
  VEC_FREE(s->queues);
  base_slab_destroy(&s->small_chunks);
}

int sorter_add_source(sorter *s, uint32_t *source) {
  if (s->source_count >= SORT_MAX_SOURCES) return WEFT_ELIMIT;
  *source = s->source_count++;
  return WEFT_OK;
}

static int sorter_new_queue(sorter *s, uint32_t source, uint32_t lane, uint32_t segment) {
  sort_queue q;
  memset(&q, 0, sizeof q);
  q.source = source;
  q.lane = lane;
  q.segment = segment;
  q.items.held = q.runs.held = &s->held;
  q.items.slab = q.runs.slab = &s->small_chunks;
  q.runs.heap_until_full = 1; /* most queues have a few runs: a few bytes */
  return VEC_PUSH(s->queues, q);
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
    if (sorter_new_queue(s, source, lane, 0)) {
      *slot = UINT64_MAX - 1; /* never a valid index: re-created next time */
      return WEFT_ENOMEM;
    }
  } else if (*slot >= s->queues.len) {
    if (sorter_new_queue(s, source, lane, 0)) return WEFT_ENOMEM;
    *slot = s->queues.len - 1;
  }
  s->last_key = key;
  s->last_queue = (uint32_t)*slot;
  s->has_last = 1;
  *out = s->last_queue;
  return WEFT_OK;
}

/* Ends queue *qi, full, for its (source, lane): later pushes go to a new
 * segment, its index in *qi. */
static int sorter_next_segment(sorter *s, uint32_t *qi) {
  sort_queue *full = &s->queues.data[*qi];
  uint64_t key = (uint64_t)full->source << 32 | full->lane, *slot;
  if (s->queues.len >= UINT32_MAX ||
      sorter_new_queue(s, full->source, full->lane, full->segment + 1))
    return WEFT_ENOMEM;
  if (base_map_insert(&s->queue_index, key, s->queues.len - 1, &slot) < 0) {
    s->queues.len--; /* the new segment, still empty */
    return WEFT_ENOMEM;
  }
  *slot = s->queues.len - 1;
  *qi = s->last_queue = (uint32_t)(s->queues.len - 1);
  return WEFT_OK;
}

int sorter_push_lane(sorter *s, uint32_t source, uint32_t lane, int64_t ts,
                     uint32_t clock, uint64_t payload) {
  uint32_t qi;
  if (source >= s->source_count) return WEFT_EINVAL;
  int rc = sorter_queue(s, source, lane, &qi);
  if (rc) return rc;
  if (s->threads > 1 && s->queues.data[qi].items.len >= s->segment_items) {
    rc = sorter_next_segment(s, &qi);
    if (rc) return rc;
  }
  sort_queue *q = &s->queues.data[qi];
  sort_run *run = q->runs.len ? sort_chunks_last(&q->runs, sizeof *run) : NULL;
  if (!run || run->clock != clock || run->count >= SORT_RUN_MAX) {
    /* (a flagged run's count is above SORT_RUN_MAX: it ends there) */
    run = sort_chunks_push(&q->runs, sizeof *run, SORT_RUN_SHIFT);
    if (!run) return WEFT_ENOMEM;
    *run = (sort_run){clock, 0};
  }
  sort_item *item = sort_chunks_push(&q->items, sizeof *item, SORT_ITEM_SHIFT);
  if (!item) return WEFT_ENOMEM; /* a run left at count 0 is harmless */
  *item = (sort_item){ts, payload};
  run->count++;
  __atomic_store_n(&s->event_count, s->event_count + 1, __ATOMIC_RELAXED);
  return WEFT_OK;
}

void sorter_mark_break(sorter *s) {
  if (!s->has_last) return;
  sort_queue *q = &s->queues.data[s->last_queue];
  if (!q->runs.len) return;
  sort_run *run = sort_run_at(&q->runs, q->runs.len - 1);
  if (run->count & SORT_RUN_MAX) run->count |= SORT_RUN_BREAK;
}

int sorter_push(sorter *s, uint32_t source, int64_t ts, uint32_t clock,
                uint64_t payload) {
  return sorter_push_lane(s, source, 0, ts, clock, payload);
}

uint64_t sorter_memory(const sorter *s) {
  return __atomic_load_n(&s->held, __ATOMIC_RELAXED);
}

void sorter_progress(const sorter *s, uint64_t *pushed, uint64_t *emitted) {
  if (pushed) *pushed = __atomic_load_n(&s->event_count, __ATOMIC_RELAXED);
  if (emitted) *emitted = __atomic_load_n(&s->emitted, __ATOMIC_RELAXED);
}

/* ---- runs of clocks: appending and walking ---- */

/* Appends one event's (clock, break) to runs, extending the last run. */
static int sort_runs_append(sort_chunks *runs, uint32_t clock, int brk) {
  sort_run *last = runs->len ? sort_run_at(runs, runs->len - 1) : NULL;
  if (!last || last->clock != clock || last->count >= SORT_RUN_MAX) {
    last = sort_chunks_push(runs, sizeof *last, SORT_RUN_SHIFT);
    if (!last) return WEFT_ENOMEM;
    *last = (sort_run){clock, 0};
  }
  last->count++;
  if (brk) last->count |= SORT_RUN_BREAK;
  return WEFT_OK;
}

/* A position in a queue's runs: run index and events left in it. After
 * conversion no run is empty. */
typedef struct sort_walk {
  size_t run;
  uint32_t left;
} sort_walk;

static sort_walk sort_walk_start(const sort_chunks *runs) {
  sort_walk w = {0, runs->len ? sort_run_at(runs, 0)->count & SORT_RUN_MAX : 0};
  return w;
}

/* The event's (clock, break) packed as clock | break << 32. */
static uint64_t sort_walk_meta(const sort_chunks *runs, sort_walk w) {
  const sort_run *r = sort_run_at(runs, w.run);
  return r->clock | (uint64_t)(w.left == 1 && (r->count & SORT_RUN_BREAK)) << 32;
}

static void sort_walk_skip(const sort_chunks *runs, sort_walk *w, size_t events) {
  while (events && w->run < runs->len) {
    if (events < w->left) {
      w->left -= (uint32_t)events;
      return;
    }
    events -= w->left;
    if (w->run + 1 >= runs->len) { /* past the end */
      w->left = 0;
      return;
    }
    w->run++;
    w->left = sort_run_at(runs, w->run)->count & SORT_RUN_MAX;
  }
}

/* ---- conversion (on the caller's thread: the converter counts drops) ---- */

/* Converts a queue in place, dropping events the converter rejects (a
 * dropped break takes its flag along), and counts its ascending stretches. */
void sort_convert_queue(sort_queue *q, sort_convert_fn convert, void *user) {
  size_t in = 0, kept = 0, runs_out = 0, ascents = 0;
  int64_t last = INT64_MIN;
  for (size_t r = 0; r < q->runs.len; r++) {
    sort_run run = *sort_run_at(&q->runs, r);
    uint32_t count = run.count & SORT_RUN_MAX, k = 0, brk = 0;
    for (uint32_t i = 0; i < count && in < q->items.len; i++) {
      sort_item e = *sort_item_at(&q->items, in++);
      brk = 0;
      if (convert(user, q->source, run.clock, e.ts, &e.ts) != 0) continue;
      ascents += kept == 0 || e.ts < last;
      last = e.ts;
      *sort_item_at(&q->items, kept++) = e;
      k++;
      brk = i + 1 == count && (run.count & SORT_RUN_BREAK);
    }
    if (!k) continue;
    sort_run *prev = runs_out ? sort_run_at(&q->runs, runs_out - 1) : NULL;
    if (prev && prev->clock == run.clock && !(prev->count & SORT_RUN_BREAK) &&
        (uint64_t)prev->count + k <= SORT_RUN_MAX) {
      prev->count += k;
    } else {
      prev = sort_run_at(&q->runs, runs_out++);
      *prev = (sort_run){run.clock, k};
    }
    if (brk) prev->count |= SORT_RUN_BREAK;
  }
  sort_chunks_truncate(&q->items, sizeof(sort_item), SORT_ITEM_SHIFT, kept);
  sort_chunks_truncate(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT, runs_out);
  q->ascents = ascents;
}

/* ---- sorting one queue ---- */

/* Stable bottom-up merge sort of a[0, n) by ts, with each event's meta in
 * m (or m NULL); ta and tm are scratch of n. */
static void sort_block(sort_item *a, uint64_t *m, sort_item *ta, uint64_t *tm, size_t n) {
  sort_item *src = a, *dst = ta;
  uint64_t *msrc = m, *mdst = tm;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = lo + width < n ? lo + width : n;
      size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t i = lo, j = mid, k = lo;
      while (i < mid || j < hi) {
        size_t from = j < hi && (i >= mid || src[j].ts < src[i].ts) ? j++ : i++;
        dst[k] = src[from];
        if (m) mdst[k] = msrc[from];
        k++;
      }
    }
    sort_item *t = src;
    src = dst;
    dst = t;
    uint64_t *mt = msrc;
    msrc = mdst;
    mdst = mt;
  }
  if (src != a) {
    memcpy(a, src, n * sizeof *a);
    if (m) memcpy(m, msrc, n * sizeof *m);
  }
}

static size_t sort_count_ascents(const sort_chunks *items) {
  size_t ascents = items->len ? 1 : 0;
  for (size_t i = 1; i < items->len; i++)
    ascents += sort_item_at(items, i)->ts < sort_item_at(items, i - 1)->ts;
  return ascents;
}

/* Sorts each chunk of the queue in place (runs rebuilt to follow), so the
 * windowed merge then sees at most one stretch a chunk. */
static int sort_queue_by_chunk(sort_queue *q, int uniform) {
  /* Scratch for the largest chunk. */
  size_t per = q->items.chunks ? sort_chunk_per(SORT_ITEM_SHIFT, q->items.chunks - 1) : 1;
  sort_item *ta = base_malloc(per * sizeof *ta);
  uint64_t *m = uniform ? NULL : base_malloc(2 * per * sizeof *m);
  sort_chunks runs = sort_chunks_like(&q->runs);
  int rc = ta && (uniform || m) ? WEFT_OK : WEFT_ENOMEM;
  sort_walk w = sort_walk_start(&q->runs);
  for (size_t k = 0; rc == WEFT_OK && k < q->items.chunks; k++) {
    size_t first = sort_chunk_first(SORT_ITEM_SHIFT, k);
    size_t k_per = sort_chunk_per(SORT_ITEM_SHIFT, k);
    size_t n = q->items.len - first < k_per ? q->items.len - first : k_per;
    sort_item *a = q->items.chunk[k];
    for (size_t i = 0; m && i < n; i++) {
      m[i] = sort_walk_meta(&q->runs, w);
      sort_walk_skip(&q->runs, &w, 1);
    }
    sort_block(a, m, ta, m ? m + per : NULL, n);
    for (size_t i = 0; m && i < n && rc == WEFT_OK; i++)
      rc = sort_runs_append(&runs, (uint32_t)m[i], (int)(m[i] >> 32));
    if (m) sort_chunks_release(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT, sort_chunk_index(SORT_RUN_SHIFT, w.run));
  }
  base_free(ta);
  base_free(m);
  if (rc == WEFT_OK && !uniform) {
    sort_chunks_free(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT);
    q->runs = runs;
    sort_chunks_truncate(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT, q->runs.len);
  } else {
    sort_chunks_free(&runs, sizeof(sort_run), SORT_RUN_SHIFT);
  }
  if (rc == WEFT_OK) q->ascents = sort_count_ascents(&q->items);
  return rc;
}

/* An ascending stretch of a queue: its unread part, where its events'
 * runs are, and the smallest first ts of it and every later stretch. */
typedef struct sort_span {
  size_t pos, end;
  int64_t later_min;
  sort_walk walk;
} sort_span;

/* Heap entries: a key and what it belongs to (a span, queue or lane). */
typedef struct sort_key {
  int64_t ts;
  uint32_t idx;
} sort_key;

/* Without short-circuits, so that the compiler can pick without a branch
 * (which one is less is what the merge cannot predict). */
static int sort_key_less(sort_key a, sort_key b) {
  return (a.ts < b.ts) | ((a.ts == b.ts) & (a.idx < b.idx));
}

static void sort_key_down(sort_key *h, size_t n, size_t i) {
  sort_key moving = h[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    size_t r = c + 1 < n ? c + 1 : c; /* the right child, or c again */
    c += (size_t)sort_key_less(h[r], h[c]);
    if (!sort_key_less(h[c], moving)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = moving;
}

static void sort_key_up(sort_key *h, size_t i) {
  sort_key moving = h[i];
  while (i > 0 && sort_key_less(moving, h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = moving;
}

/* The queue's ascending stretches, with later_min filled in. */
static sort_span *sort_spans(const sort_queue *q, size_t count) {
  sort_span *spans = base_malloc(count * sizeof *spans);
  if (!spans) return NULL;
  size_t n = q->items.len, k = 0;
  spans[0].pos = 0;
  for (size_t i = 1; i < n && k + 1 < count; i++)
    if (sort_item_at(&q->items, i)->ts < sort_item_at(&q->items, i - 1)->ts) {
      spans[k].end = i;
      spans[++k].pos = i;
    }
  spans[k].end = n;
  int64_t later = INT64_MAX;
  for (size_t i = count; i-- > 0;) {
    int64_t first = sort_item_at(&q->items, spans[i].pos)->ts;
    later = first < later ? first : later;
    spans[i].later_min = later;
  }
  return spans;
}

/* Frees the input chunks no span still reads: before the earliest active
 * span's position and the next span to activate. */
static void sort_release_behind(sort_queue *q, const sort_span *spans, const sort_key *heap,
                                size_t active, const sort_span *next, sort_walk w, int uniform) {
  size_t pos = next ? next->pos : SIZE_MAX, run = next ? w.run : SIZE_MAX;
  for (size_t i = 0; i < active; i++) {
    const sort_span *sp = &spans[heap[i].idx];
    if (sp->pos < pos) pos = sp->pos;
    if (sp->walk.run < run) run = sp->walk.run;
  }
  if (pos != SIZE_MAX)
    sort_chunks_release(&q->items, sizeof(sort_item), SORT_ITEM_SHIFT, sort_chunk_index(SORT_ITEM_SHIFT, pos));
  if (!uniform && run != SIZE_MAX)
    sort_chunks_release(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT, sort_chunk_index(SORT_RUN_SHIFT, run));
}

/* Merges the queue's ascending stretches into new chunks, stretches
 * activated in push order into a heap of (ts, stretch): the heap's minimum
 * is output once no stretch still to activate can hold a smaller event
 * (a stretch's first ts is its minimum). Only stretches that overlap in
 * time are in the heap together; ties go to the earlier stretch, so the
 * order is stable. Input chunks are freed behind the oldest unread event. */
static int sort_queue_window_merge(sort_queue *q, int uniform) {
  size_t n = q->items.len, count = q->ascents, active = 0, next = 0;
  if (count > UINT32_MAX) return WEFT_ELIMIT;
  sort_span *spans = sort_spans(q, count);
  sort_key *heap = spans ? base_malloc(count * sizeof *heap) : NULL;
  sort_chunks items = sort_chunks_like(&q->items), runs = sort_chunks_like(&q->runs);
  items.expect = n;
  int rc = heap ? WEFT_OK : WEFT_ENOMEM;
  sort_walk w = sort_walk_start(&q->runs);
  size_t walked = 0; /* the event w points at */
  for (size_t k = 0; k < n && rc == WEFT_OK; k++) {
    while (next < count && (active == 0 || spans[next].later_min < heap[0].ts)) {
      sort_span *sp = &spans[next];
      if (!uniform) {
        sort_walk_skip(&q->runs, &w, sp->pos - walked);
        walked = sp->pos;
        sp->walk = w;
      }
      heap[active] = (sort_key){sort_item_at(&q->items, sp->pos)->ts, (uint32_t)next++};
      sort_key_up(heap, active++);
    }
    sort_span *sp = &spans[heap[0].idx];
    sort_item *out = sort_chunks_push(&items, sizeof *out, SORT_ITEM_SHIFT);
    if (!out) {
      rc = WEFT_ENOMEM;
      break;
    }
    *out = *sort_item_at(&q->items, sp->pos++);
    if (!uniform) {
      uint64_t meta = sort_walk_meta(&q->runs, sp->walk);
      sort_walk_skip(&q->runs, &sp->walk, 1);
      rc = sort_runs_append(&runs, (uint32_t)meta, (int)(meta >> 32));
    }
    if (sp->pos < sp->end) heap[0].ts = sort_item_at(&q->items, sp->pos)->ts;
    else heap[0] = heap[--active];
    sort_key_down(heap, active, 0);
    if (sort_chunk_starts(SORT_ITEM_SHIFT, items.len))
      sort_release_behind(q, spans, heap, active, next < count ? &spans[next] : NULL, w,
                          uniform);
  }
  base_free(spans);
  base_free(heap);
  if (rc != WEFT_OK) {
    sort_chunks_free(&items, sizeof(sort_item), SORT_ITEM_SHIFT);
    sort_chunks_free(&runs, sizeof(sort_run), SORT_RUN_SHIFT);
    return rc;
  }
  sort_chunks_free(&q->items, sizeof(sort_item), SORT_ITEM_SHIFT);
  q->items = items;
  if (!uniform) {
    sort_chunks_free(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT);
    q->runs = runs;
    sort_chunks_truncate(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT, q->runs.len);
  }
  q->ascents = 1;
  return WEFT_OK;
}

/* Sorts a queue by ts, stably. */
int sort_queue_order(sort_queue *q) {
  if (q->ascents <= 1) return WEFT_OK;
  int uniform = q->runs.len == 1 && !(sort_run_at(&q->runs, 0)->count & SORT_RUN_BREAK);
  if (q->ascents > q->items.len / SORT_SHORT_STRETCHES) {
    int rc = sort_queue_by_chunk(q, uniform);
    if (rc || q->ascents <= 1) return rc;
  }
  return sort_queue_window_merge(q, uniform);
}

/* ---- the merge: lanes of queues ---- */

/* A lane: queues [first, first + n) of the queue array, whose heads form a
 * heap at keys[first...]. */
typedef struct sort_lane_heap {
  size_t first, n;
} sort_lane_heap;

/* A queue's merge cursor: what the merge reads of a queue at every event,
 * in one cache line (the cursors are 64-byte aligned), apart from the
 * queue itself, whose chunks it touches only at chunk and run ends. */
typedef struct sort_cursor {
  const sort_item *at, *stop; /* the next item; the end of its chunk */
  size_t next, end;           /* at's index in the queue; the item count */
  size_t run;                 /* the clock run of at */
  uint32_t run_left, clock;   /* that run's events from at on; its clock */
  uint32_t source;
  int run_breaks;             /* the run's last event is a run break */
  uint64_t unused;            /* to 64 bytes */
} sort_cursor;
_Static_assert(sizeof(sort_cursor) == 64, "a cursor is one cache line");

/* Points cursor c of queue q at item c->next (< end) and its chunk's end. */
static void sort_cursor_seek(sort_cursor *c, const sort_queue *q) {
  size_t k = sort_chunk_index(SORT_ITEM_SHIFT, c->next), left = c->end - c->next;
  size_t in_chunk = sort_chunk_first(SORT_ITEM_SHIFT, k) + sort_chunk_per(SORT_ITEM_SHIFT, k) - c->next;
  c->at = sort_item_at(&q->items, c->next);
  c->stop = c->at + (left < in_chunk ? left : in_chunk);
}

/* Points the cursor at run c->run of q. */
static void sort_cursor_seek_run(sort_cursor *c, const sort_queue *q) {
  const sort_run *run = sort_run_at(&q->runs, c->run);
  c->run_left = run->count & SORT_RUN_MAX;
  c->clock = run->clock;
  c->run_breaks = (run->count & SORT_RUN_BREAK) != 0;
}

/* Takes the queue's next event, freeing what lies behind it; returns 1 if
 * it is a run break. */
static int sort_cursor_take(sort_cursor *c, sort_queue *q, sort_event *e) {
  const sort_item *item = c->at++;
  /* The merge reads hundreds of queues in turn, more streams than the
   * hardware prefetcher follows: ask for the queue's line after next. */
  if (((uintptr_t)c->at & 63) == 0 && c->at + 8 < c->stop) __builtin_prefetch(c->at + 8);
  *e = (sort_event){item->ts, c->clock, c->source, item->payload};
  int brk = c->run_left == 1 && c->run_breaks;
  if (++c->next == c->end) {
    sort_queue_free(q);
    return brk;
  }
  if (c->at == c->stop) { /* the cursor leaves a chunk: it goes */
    sort_chunks_release(&q->items, sizeof(sort_item), SORT_ITEM_SHIFT,
                        sort_chunk_index(SORT_ITEM_SHIFT, c->next));
    sort_cursor_seek(c, q);
  }
  if (--c->run_left == 0 && c->run + 1 < q->runs.len) {
    c->run++;
    if (sort_chunk_starts(SORT_RUN_SHIFT, c->run))
      sort_chunks_release(&q->runs, sizeof(sort_run), SORT_RUN_SHIFT,
                          sort_chunk_index(SORT_RUN_SHIFT, c->run));
    sort_cursor_seek_run(c, q);
  }
  return brk;
}

/* Per lane, a heap of its queues' heads (keyed by ts, then queue index:
 * the queues are in (lane, source) order), and each queue's cursor.
 * Returns the lane count. */
static size_t sort_lanes_init(sorter *s, sort_key *keys, sort_lane_heap *lanes,
                              sort_cursor *cursors) {
  size_t count = 0;
  for (size_t i = 0; i < s->queues.len; i++) {
    sort_queue *q = &s->queues.data[i];
    sort_cursor *c = &cursors[i];
    if (i == 0 || q->lane != s->queues.data[i - 1].lane) lanes[count++] = (sort_lane_heap){i, 0};
    sort_lane_heap *l = &lanes[count - 1];
    *c = (sort_cursor){.end = q->items.len, .source = q->source};
    if (!q->items.len) continue;
    sort_cursor_seek(c, q);
    sort_cursor_seek_run(c, q);
    keys[l->first + l->n++] = (sort_key){c->at->ts, (uint32_t)i};
  }
  for (size_t k = 0; k < count; k++)
    for (size_t i = lanes[k].n; i-- > 0;) sort_key_down(keys + lanes[k].first, lanes[k].n, i);
  return count;
}

/* Asks for the cursor of the queue at the head of lane `lane`: of the
 * lanes the merge may turn to next. */
static void sort_prefetch_lane(const sort_lane_heap *lanes, const sort_key *keys,
                               const sort_cursor *cursors, uint32_t lane) {
  const sort_lane_heap *l = &lanes[lane];
  if (l->n) __builtin_prefetch(&cursors[keys[l->first].idx]);
}

/* Events merged but not yet emitted: with a locate hint the merge runs
 * SORT_EMIT_LAG events ahead of emit and prefetches each event's data as
 * it is merged, so that its bytes are on their way before emit (or
 * prepare) reads them, however the lanes interleave. */
#define SORT_EMIT_LAG 8 /* a power of two */
typedef struct sort_lag {
  sort_event ring[SORT_EMIT_LAG];
  size_t head, len;
  uint64_t emitted;
} sort_lag;

/* Queues e behind the merged events; emits the oldest once the ring is
 * full. Without a locate hint, emits e at once. */
static int sort_lag_put(sorter *s, sort_lag *g, const sort_event *e, sort_emit_fn emit,
                        void *user) {
  if (!s->locate) {
    g->emitted++;
    return emit(user, e);
  }
  const char *data = NULL;
  if (e->source < s->locate_count) {
    const sort_locate_rule *rule = &s->locate[e->source];
    data = (const char *)sort_locate(rule, e->payload);
    if (rule->warm[0]) __builtin_prefetch(rule->warm[0]);
    if (rule->warm[1]) __builtin_prefetch(rule->warm[1]);
  }
  if (data) { /* three lines: a JSON event of about 100 bytes spans three half the time */
    __builtin_prefetch(data);
    __builtin_prefetch(data + 64);
    __builtin_prefetch(data + 128);
  }
  if (g->len < SORT_EMIT_LAG) {
    g->ring[(g->head + g->len++) % SORT_EMIT_LAG] = *e;
    return WEFT_OK;
  }
  sort_event oldest = g->ring[g->head];
  g->ring[g->head] = *e;
  g->head = (g->head + 1) % SORT_EMIT_LAG;
  g->emitted++;
  return emit(user, &oldest);
}

/* Emits what the ring still holds, in order. */
static int sort_lag_flush(sort_lag *g, sort_emit_fn emit, void *user) {
  int rc = WEFT_OK;
  while (g->len && rc == WEFT_OK) {
    sort_event oldest = g->ring[g->head];
    g->head = (g->head + 1) % SORT_EMIT_LAG;
    g->len--;
    g->emitted++;
    rc = emit(user, &oldest);
  }
  return rc;
}

/* sort_internal.h */
int sort_merge_emit(sorter *s, sort_emit_fn emit, void *user, int publish) {
  size_t nq = s->queues.len, n = 0;
  sort_key *keys = base_malloc((nq + 1) * sizeof *keys);
  sort_lane_heap *lanes = base_malloc((nq + 1) * sizeof *lanes);
  sort_key *heap = base_malloc((nq + 1) * sizeof *heap);
  void *cursor_bytes = base_malloc((nq + 1) * sizeof(sort_cursor) + 63);
  sort_cursor *cursors = (sort_cursor *)(((uintptr_t)cursor_bytes + 63) & ~(uintptr_t)63);
  int rc = keys && lanes && heap && cursor_bytes ? WEFT_OK : WEFT_ENOMEM;
  size_t lane_count = rc == WEFT_OK ? sort_lanes_init(s, keys, lanes, cursors) : 0;
  for (size_t k = 0; k < lane_count; k++)
    if (lanes[k].n) heap[n++] = (sort_key){keys[lanes[k].first].ts, (uint32_t)k};
  for (size_t i = n; i-- > 0;) sort_key_down(heap, n, i);
  sort_lag lag = {.head = 0};
#ifndef NDEBUG
  int64_t last_ts = INT64_MIN; /* the order sort.h states, checked */
#endif
  while (n && rc == WEFT_OK) {
    /* The earliest head of any other lane: a child of the root. (A heap,
     * not a loser tree: a lane's next head is most often near the front,
     * so the sift-down stops within a few levels, where a tournament
     * replays all of them.) One of the two is most often the next lane
     * to run: its cursor is asked for while this run is emitted. */
    int64_t limit = INT64_MAX;
    if (n > 1) {
      limit = heap[1].ts;
      sort_prefetch_lane(lanes, keys, cursors, heap[1].idx);
    }
    if (n > 2) {
      if (heap[2].ts < limit) limit = heap[2].ts;
      sort_prefetch_lane(lanes, keys, cursors, heap[2].idx);
    }
    sort_lane_heap *l = &lanes[heap[0].idx];
    sort_key *top = &keys[l->first];
    int brk;
    do {
      sort_cursor *c = &cursors[top->idx];
      sort_event e;
      brk = sort_cursor_take(c, &s->queues.data[top->idx], &e);
#ifndef NDEBUG
      /* Events leave in non-decreasing trace time, a lane's run never past
       * the earliest head of another lane. */
      assert(e.ts >= last_ts && e.ts <= limit);
      last_ts = e.ts;
#endif
      if (c->next < c->end) top->ts = c->at->ts;
      else *top = top[--l->n];
      sort_key_down(top, l->n, 0);
      rc = sort_lag_put(s, &lag, &e, emit, user);
    } while (rc == WEFT_OK && l->n && !brk && top->ts <= limit);
    if (publish) __atomic_store_n(&s->emitted, lag.emitted, __ATOMIC_RELAXED);
    if (l->n) heap[0].ts = top->ts;
    else heap[0] = heap[--n];
    sort_key_down(heap, n, 0);
  }
  if (rc == WEFT_OK) rc = sort_lag_flush(&lag, emit, user);
  if (publish) __atomic_store_n(&s->emitted, lag.emitted, __ATOMIC_RELAXED);
  base_free(keys);
  base_free(lanes);
  base_free(heap);
  base_free(cursor_bytes);
  return rc;
}

