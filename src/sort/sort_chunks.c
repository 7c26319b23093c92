/* Arrays in chunks: the storage of the sorter's queues (see
 * sort_internal.h for their geometry), and where each chunk lives. */
#include <sys/mman.h>
#include <unistd.h>

#include "sort/sort_internal.h"

static size_t sort_page_size(void) {
  static size_t page;
  size_t p = __atomic_load_n(&page, __ATOMIC_RELAXED);
  if (!p) {
    long v = sysconf(_SC_PAGESIZE);
    p = v > 0 ? (size_t)v : 4096;
    __atomic_store_n(&page, p, __ATOMIC_RELAXED);
  }
  return p;
}

/* Where chunk k of `cap` elements lives: a large one in a mapping of its
 * own; a small one in the slab, except in an array without one, or while
 * it is below its full size in an array whose chunks grow in the heap. */
typedef enum { SORT_IN_HEAP, SORT_IN_SLAB, SORT_IN_MAPPING } sort_home;

static sort_home sort_chunk_home(const sort_chunks *c, unsigned shift, size_t k, size_t cap) {
  if (k >= SORT_SMALL_CHUNKS) return SORT_IN_MAPPING;
  if (!c->slab || (c->heap_until_full && cap < sort_chunk_per(shift, k))) return SORT_IN_HEAP;
  return SORT_IN_SLAB;
}

/* Frees a chunk. A heap one first gives its whole pages back to the
 * system: a chunk of the middle of the heap would otherwise stay
 * resident. */
static void sort_chunk_release(const sort_chunks *c, void *chunk, size_t bytes, sort_home home) {
  if (home == SORT_IN_MAPPING) {
    base_unmap_huge(chunk, bytes);
    return;
  }
  if (home == SORT_IN_SLAB) {
    base_slab_free(c->slab, chunk);
    return;
  }
#ifdef MADV_DONTNEED
  size_t page = sort_page_size();
  uintptr_t lo = ((uintptr_t)chunk + page - 1) & ~(uintptr_t)(page - 1);
  uintptr_t hi = ((uintptr_t)chunk + bytes) & ~(uintptr_t)(page - 1);
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
#else
  (void)bytes;
#endif
  base_free(chunk);
}

/* A heap chunk of `bytes` grown to `want` bytes where a chunk of that
 * size lives (the old one freed); NULL when out of memory (nothing
 * changed then). */
static void *sort_chunk_grow_to(const sort_chunks *c, void *chunk, size_t bytes, size_t want,
                                sort_home home) {
  if (home == SORT_IN_HEAP) return base_realloc(chunk, want);
  void *moved = base_slab_alloc(c->slab);
  if (moved) {
    memcpy(moved, chunk, bytes);
    base_free(chunk);
  }
  return moved;
}

static void sort_chunks_count(sort_chunks *c, size_t add, size_t sub) {
  if (c->held) __atomic_add_fetch(c->held, (uint64_t)add - (uint64_t)sub, __ATOMIC_RELAXED);
}

/* Appends an element: returns its slot (to be written), NULL when out of
 * memory (nothing changed then). */
void *sort_chunks_grow(sort_chunks *c, size_t es, unsigned shift) {
  size_t idx = sort_chunk_index(shift, c->len), per = sort_chunk_per(shift, idx);
  size_t off = c->len - sort_chunk_first(shift, idx);
  if (off == 0) {
    if (c->chunks == c->chunk_cap) {
      size_t cap = c->chunk_cap ? c->chunk_cap * 2 : 4;
      void **grown = base_realloc(c->chunk, cap * sizeof *grown);
      if (!grown) return NULL;
      c->chunk = grown;
      c->chunk_cap = cap;
    }
    size_t cap = SORT_FIRST_CAP < per ? SORT_FIRST_CAP : per;
    if (c->expect > c->len) cap = c->expect - c->len < per ? c->expect - c->len : per;
    sort_home home = sort_chunk_home(c, shift, idx, cap);
    if (home != SORT_IN_HEAP) cap = per; /* made whole: never grown by realloc */
    void *chunk = home == SORT_IN_MAPPING ? base_map_huge(cap * es)
                  : home == SORT_IN_SLAB  ? base_slab_alloc(c->slab)
                                          : base_malloc(cap * es);
    if (!chunk) return NULL;
    sort_chunks_count(c, cap * es, 0);
    c->chunk[c->chunks++] = chunk;
    c->tail_cap = cap;
    c->tail_first = c->len;
  } else if (off == c->tail_cap) {
    size_t cap = c->tail_cap * 2 < per ? c->tail_cap * 2 : per;
    void *grown = sort_chunk_grow_to(c, c->chunk[idx], c->tail_cap * es, cap * es,
                                     sort_chunk_home(c, shift, idx, cap));
    if (!grown) return NULL;
    sort_chunks_count(c, cap * es, c->tail_cap * es);
    c->chunk[idx] = grown;
    c->tail_cap = cap;
  }
  c->len++;
  return (char *)c->chunk[idx] + off * es;
}

/* Frees chunks [released, upto). */
void sort_chunks_release(sort_chunks *c, size_t es, unsigned shift, size_t upto) {
  if (upto > c->chunks) upto = c->chunks;
  for (size_t k = c->released; k < upto; k++) {
    size_t cap = sort_chunks_cap(c, shift, k), bytes = cap * es;
    if (c->chunk[k]) {
      sort_chunk_release(c, c->chunk[k], bytes, sort_chunk_home(c, shift, k, cap));
      sort_chunks_count(c, 0, bytes);
    }
    c->chunk[k] = NULL;
  }
  if (upto > c->released) c->released = upto;
}

void sort_chunks_free(sort_chunks *c, size_t es, unsigned shift) {
  sort_chunks like = sort_chunks_like(c);
  sort_chunks_release(c, es, shift, c->chunks);
  base_free(c->chunk);
  *c = like;
}

/* An empty array counted where c is. */
sort_chunks sort_chunks_like(const sort_chunks *c) {
  sort_chunks fresh;
  memset(&fresh, 0, sizeof fresh);
  fresh.held = c->held;
  fresh.slab = c->slab;
  fresh.heap_until_full = c->heap_until_full;
  return fresh;
}

/* Keeps the first n elements (n <= len) and cuts the last chunk to size. */
void sort_chunks_truncate(sort_chunks *c, size_t es, unsigned shift, size_t n) {
  size_t keep = n ? sort_chunk_index(shift, n - 1) + 1 : 0;
  if (keep < c->chunks) {
    for (size_t k = keep; k < c->chunks; k++) {
      size_t cap = sort_chunks_cap(c, shift, k), bytes = cap * es;
      sort_chunk_release(c, c->chunk[k], bytes, sort_chunk_home(c, shift, k, cap));
      sort_chunks_count(c, 0, bytes);
    }
    c->chunks = keep;
    c->tail_cap = keep ? sort_chunk_per(shift, keep - 1) : 0;
    c->tail_first = keep ? sort_chunk_first(shift, keep - 1) : 0;
  }
  c->len = n;
  if (!keep) return;
  size_t used = n - c->tail_first;
  /* a slab or large chunk keeps its size: its pages never written take
   * no memory */
  if (used < c->tail_cap && sort_chunk_home(c, shift, keep - 1, c->tail_cap) == SORT_IN_HEAP) {
    void *cut = base_realloc(c->chunk[keep - 1], used * es);
    if (cut) { /* else it keeps its slack */
      sort_chunks_count(c, used * es, c->tail_cap * es);
      c->chunk[keep - 1] = cut;
      c->tail_cap = used;
    }
  }
}
