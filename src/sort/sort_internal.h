/* sort_internal: what sort.c, sort_chunks.c and sort_run.c share.
 *
 * sort_chunks.c owns the arrays in chunks that hold the queues; sort.c
 * owns the queues, their conversion and order, and the merge of lanes;
 * sort_run.c runs them: the queues' sorts on several threads and
 * the merge on a thread of its own, ahead of the emitting one, with output
 * identical to one thread's. */
#ifndef WEFT_SORT_INTERNAL_H
#define WEFT_SORT_INTERNAL_H

#include "sort/sort.h"

/* ---- arrays in chunks (sort_chunks.c) ---- */

/* A queue's first 64 chunks are of 32 KiB (2,048 items or 4,096 runs), its
 * later ones 64 times larger (2 MiB). Each chunk goes back to the system
 * in one call once emitted, and each such call costs a TLB shoot-down on
 * every core running the process: a large queue's large chunks make 64
 * times fewer of them, while a queue of up to 2 MiB, which is what many
 * small files make, gives its memory back 32 KiB at a time (its unfreed
 * tail stays small while the tables grow). A large chunk is a mapping of
 * its own, made whole at a 2 MiB boundary and advised huge
 * (base_map_huge): where transparent huge pages are on it is one page
 * fault, not 512, and it is unmapped whole. A small chunk is a block of
 * the sorter's slab: whole from the start (its pages are written only as
 * events come), given back whole when freed. In the heap, the page holding
 * each freed chunk's header would stay resident, with the heap blocks
 * that growing chunks leave behind: a fifth of a merge's sorter memory,
 * kept while the tables grow. Runs are the exception: most queues have a
 * few, so their small chunks grow in the heap by doubling and move to the
 * slab once full. */
#define SORT_ITEM_SHIFT 11
#define SORT_RUN_SHIFT 12
#define SORT_SMALL_CHUNKS 64
#define SORT_LARGE_EXTRA 6 /* log2 of a large chunk's size over a small one's */
_Static_assert(sizeof(sort_item) << (SORT_ITEM_SHIFT + SORT_LARGE_EXTRA) == SORT_CHUNK_BYTES,
               "item chunk size");
_Static_assert(sizeof(sort_run) << (SORT_RUN_SHIFT + SORT_LARGE_EXTRA) == SORT_CHUNK_BYTES,
               "run chunk size");
/* Freed small chunks kept resident for the next ones (the sort of a
 * queue takes new chunks as it frees old ones): 4 MiB. */
#define SORT_WARM_CHUNKS 128
/* A chunk of unknown final size starts with this many elements. */
#define SORT_FIRST_CAP 32

/* Chunk geometry for small chunks of 1 << shift elements: the chunk that
 * holds element i, the first element of chunk k, and chunk k's full size. */
static inline size_t sort_chunk_index(unsigned shift, size_t i) {
  size_t small_end = (size_t)SORT_SMALL_CHUNKS << shift;
  if (i < small_end) return i >> shift;
  return SORT_SMALL_CHUNKS + ((i - small_end) >> (shift + SORT_LARGE_EXTRA));
}

static inline size_t sort_chunk_first(unsigned shift, size_t k) {
  if (k < SORT_SMALL_CHUNKS) return k << shift;
  return ((size_t)SORT_SMALL_CHUNKS << shift) +
         ((k - SORT_SMALL_CHUNKS) << (shift + SORT_LARGE_EXTRA));
}

static inline size_t sort_chunk_per(unsigned shift, size_t k) {
  return (size_t)1 << (k < SORT_SMALL_CHUNKS ? shift : shift + SORT_LARGE_EXTRA);
}

/* 1 if element i is the first of its chunk. */
static inline int sort_chunk_starts(unsigned shift, size_t i) {
  return sort_chunk_first(shift, sort_chunk_index(shift, i)) == i;
}

/* Capacity of chunk k in elements. */
static inline size_t sort_chunks_cap(const sort_chunks *c, unsigned shift, size_t k) {
  return k + 1 == c->chunks ? c->tail_cap : sort_chunk_per(shift, k);
}

static inline void *sort_chunks_at(const sort_chunks *c, size_t es, unsigned shift, size_t i) {
  size_t k = sort_chunk_index(shift, i);
  return (char *)c->chunk[k] + (i - sort_chunk_first(shift, k)) * es;
}

/* Appends an element: returns its slot (to be written), NULL when out of
 * memory (nothing changed then). */
void *sort_chunks_grow(sort_chunks *c, size_t es, unsigned shift);
static inline void *sort_chunks_push(sort_chunks *c, size_t es, unsigned shift) {
  size_t off = c->len - c->tail_first;
  if (!c->chunks || off == c->tail_cap) return sort_chunks_grow(c, es, shift);
  c->len++;
  return (char *)c->chunk[c->chunks - 1] + off * es;
}

/* The last element (len > 0). */
static inline void *sort_chunks_last(const sort_chunks *c, size_t es) {
  return (char *)c->chunk[c->chunks - 1] + (c->len - 1 - c->tail_first) * es;
}

/* Frees chunks [released, upto). */
void sort_chunks_release(sort_chunks *c, size_t es, unsigned shift, size_t upto);
/* Frees every chunk; c stays usable, empty, counted where it was. */
void sort_chunks_free(sort_chunks *c, size_t es, unsigned shift);
/* An empty array counted where c is, its chunks in c's slab. */
sort_chunks sort_chunks_like(const sort_chunks *c);
/* Keeps the first n elements (n <= len) and cuts the last chunk to size. */
void sort_chunks_truncate(sort_chunks *c, size_t es, unsigned shift, size_t n);

/* Where merged events go: prepared (when the run has a prepare step),
 * then emitted. */
typedef struct sort_sink {
  sort_prepare_fn prepare;   /* NULL: events are emitted as merged */
  size_t prepare_max;
  sort_emit_prepared_fn emit;
  void *user;
  void *scratch;             /* prepare's output on one thread */
} sort_sink;

/* Frees every queue (after a run, or when it cannot start). */
void sorter_free_queues(sorter *s);
/* Converts a queue's timestamps to trace time, dropping what convert
 * refuses. */
void sort_convert_queue(sort_queue *q, sort_convert_fn convert, void *user);
/* Emits one merged event into a sink on this thread (prepared first). */
int sort_sink_emit(void *arg, const sort_event *e);
/* Sorts one queue's events into trace time order. */
int sort_queue_order(sort_queue *q);
/* Emits every event in merge order. `publish`: keep s->emitted current
 * (else the caller does, as the events are really parsed). */
int sort_merge_emit(sorter *s, sort_emit_fn emit, void *user, int publish);
/* Sorts every queue, on up to s->threads threads. */
int sort_queues_in_order(sorter *s);
/* Merges (and prepares) on a second thread while this one emits into
 * `sink`; falls back to one thread when one cannot be started. */
int sort_merge_emit_pipelined(sorter *s, sort_sink *sink);

#endif
