/* Allocation wrappers with a test hook that fails the Nth allocation, the
 * huge-page hint for large blocks, and slabs of blocks whose pages go
 * back to the system when freed. */
#include <assert.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "base.h"

#define BASE_PAGE ((size_t)4096) /* the smallest page size: rounding to it never
                                      reaches past a larger page */

/* Atomic: allocations may come from several threads (sort/sort.h). */
static uint64_t alloc_countdown; /* 0 = never fail */
static uint64_t alloc_total;

void base_alloc_fail_after(uint64_t n) { __atomic_store_n(&alloc_countdown, n, __ATOMIC_SEQ_CST); }
uint64_t base_alloc_count(void) { return __atomic_load_n(&alloc_total, __ATOMIC_RELAXED); }

static int alloc_should_fail(void) {
  __atomic_fetch_add(&alloc_total, 1, __ATOMIC_RELAXED);
  uint64_t left = __atomic_load_n(&alloc_countdown, __ATOMIC_RELAXED);
  while (left != 0) {
    if (__atomic_compare_exchange_n(&alloc_countdown, &left, left - 1, 0,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
      return left == 1;
  }
  return 0;
}

void base_advise_huge(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  if (!p || bytes < BASE_HUGE_MIN_BYTES) return;
  uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(BASE_PAGE - 1);
  uintptr_t hi = ((uintptr_t)p + bytes + BASE_PAGE - 1) & ~(uintptr_t)(BASE_PAGE - 1);
  (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* a hint */
#else
  (void)p, (void)bytes;
#endif
}

/* A large block is advised up to its usable end: one the allocator mapped
 * on its own is then advised whole, as one mapping, which a partial range
 * would split (and realloc cannot grow a split mapping with mremap: it
 * would copy the block instead). */
static void alloc_advise(void *p, size_t bytes) {
  if (!p || bytes < BASE_HUGE_MIN_BYTES) return;
  size_t usable = malloc_usable_size(p);
  base_advise_huge(p, usable > bytes ? usable : bytes);
}

/* A mapping of `bytes` at an address that is a multiple of `align` (a
 * power of two at least the page size): the kernel's, when it is aligned
 * already (Linux aligns large anonymous mappings to 2 MiB), else cut out
 * of one twice as large. */
static void *alloc_map_aligned(size_t bytes, size_t align) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  if (((uintptr_t)p & (align - 1)) == 0) return p;
  munmap(p, bytes);
  if (bytes > SIZE_MAX - align) return NULL;
  char *wide = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  if (wide == MAP_FAILED) return NULL;
  char *at = (char *)(((uintptr_t)wide + align - 1) & ~(uintptr_t)(align - 1));
  if (at > wide) munmap(wide, (size_t)(at - wide));
  size_t tail = (size_t)(wide + align - at);
  if (tail) munmap(at + bytes, tail);
  return at;
}

void *base_map_huge(size_t bytes) {
  if (alloc_should_fail() || bytes > SIZE_MAX - BASE_HUGE_ALIGN) return NULL;
  bytes = (bytes + BASE_HUGE_ALIGN - 1) & ~(BASE_HUGE_ALIGN - 1);
  void *p = alloc_map_aligned(bytes ? bytes : BASE_HUGE_ALIGN, BASE_HUGE_ALIGN);
#ifdef MADV_HUGEPAGE
  if (p) (void)madvise(p, bytes, MADV_HUGEPAGE); /* a hint */
#endif
  return p;
}

void base_unmap_huge(void *p, size_t bytes) {
  if (!p) return;
  bytes = (bytes + BASE_HUGE_ALIGN - 1) & ~(BASE_HUGE_ALIGN - 1);
  munmap(p, bytes ? bytes : BASE_HUGE_ALIGN);
}

void *base_malloc(size_t size) {
  if (alloc_should_fail()) return NULL;
  void *p = malloc(size ? size : 1);
  alloc_advise(p, size);
  return p;
}

void *base_calloc(size_t count, size_t size) {
  if (alloc_should_fail()) return NULL;
  void *p = calloc(count ? count : 1, size ? size : 1);
  if (p && size && count <= SIZE_MAX / size) alloc_advise(p, count * size);
  return p;
}

void *base_realloc(void *ptr, size_t size) {
  if (alloc_should_fail()) return NULL;
  void *p = realloc(ptr, size ? size : 1);
  alloc_advise(p, size);
  return p;
}

void base_free(void *ptr) { free(ptr); }

char *base_strndup(const char *s, size_t len) {
  char *copy = base_malloc(len + 1);
  if (!copy) return NULL;
  memcpy(copy, s, len);
  copy[len] = '\0';
  return copy;
}

/* ---- slabs ---- */

void base_slab_init(base_slab *s, size_t block_bytes, size_t warm_max) {
  assert(block_bytes >= BASE_PAGE && block_bytes % BASE_PAGE == 0 &&
         BASE_SLAB_REGION_BYTES % block_bytes == 0 && warm_max <= BASE_SLAB_WARM_MAX);
  memset(s, 0, sizeof *s);
  s->block_bytes = block_bytes;
  s->warm_max = warm_max;
  pthread_mutex_init(&s->lock, NULL);
}

/* A new region, with room in the cold list for every block of it. */
static int slab_add_region(base_slab *s) {
  size_t per = BASE_SLAB_REGION_BYTES / s->block_bytes;
  if (s->region_count == s->region_cap) {
    size_t cap = s->region_cap ? s->region_cap * 2 : 8;
    void **grown = realloc(s->regions, cap * sizeof *grown);
    if (!grown) return WEFT_ENOMEM;
    s->regions = grown;
    s->region_cap = cap;
  }
  size_t need = (s->region_count + 1) * per;
  if (need > s->cold_cap) {
    size_t cap = s->cold_cap * 2 > need ? s->cold_cap * 2 : need;
    void **grown = realloc(s->cold, cap * sizeof *grown);
    if (!grown) return WEFT_ENOMEM;
    s->cold = grown;
    s->cold_cap = cap;
  }
  void *region = mmap(NULL, BASE_SLAB_REGION_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return WEFT_ENOMEM;
#ifdef MADV_NOHUGEPAGE
  (void)madvise(region, BASE_SLAB_REGION_BYTES, MADV_NOHUGEPAGE); /* blocks go back whole */
#endif
  s->regions[s->region_count++] = region;
  s->carved = 0;
  return WEFT_OK;
}

void *base_slab_alloc(base_slab *s) {
  if (alloc_should_fail()) return NULL;
  void *block = NULL;
  pthread_mutex_lock(&s->lock);
  size_t per = BASE_SLAB_REGION_BYTES / s->block_bytes;
  if (s->warm_count) {
    block = s->warm[--s->warm_count];
  } else if (s->cold_count) {
    block = s->cold[--s->cold_count];
  } else if ((s->region_count && s->carved < per) || slab_add_region(s) == WEFT_OK) {
    block = (char *)s->regions[s->region_count - 1] + s->carved++ * s->block_bytes;
  }
  pthread_mutex_unlock(&s->lock);
  return block;
}

void base_slab_free(base_slab *s, void *block) {
  if (!block) return;
  pthread_mutex_lock(&s->lock);
  int warm = s->warm_count < s->warm_max;
  if (warm) s->warm[s->warm_count++] = block;
  pthread_mutex_unlock(&s->lock);
  if (warm) return;
  /* the block is still this caller's: no one else can reach it yet */
  (void)madvise(block, s->block_bytes, MADV_DONTNEED);
  pthread_mutex_lock(&s->lock);
  assert(s->cold_count < s->cold_cap);
  s->cold[s->cold_count++] = block;
  pthread_mutex_unlock(&s->lock);
}

void base_slab_destroy(base_slab *s) {
  if (!s->block_bytes) return;
  for (size_t i = 0; i < s->region_count; i++) munmap(s->regions[i], BASE_SLAB_REGION_BYTES);
  free(s->regions);
  free(s->cold);
  pthread_mutex_destroy(&s->lock);
  memset(s, 0, sizeof *s);
}
