/* Allocation wrappers with a test hook that fails the Nth allocation. */
#include <stdlib.h>

#include "base.h"

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

void *base_malloc(size_t size) {
  if (alloc_should_fail()) return NULL;
  return malloc(size ? size : 1);
}

void *base_calloc(size_t count, size_t size) {
  if (alloc_should_fail()) return NULL;
  return calloc(count ? count : 1, size ? size : 1);
}

void *base_realloc(void *ptr, size_t size) {
  if (alloc_should_fail()) return NULL;
  return realloc(ptr, size ? size : 1);
}

void base_free(void *ptr) { free(ptr); }

char *base_strndup(const char *s, size_t len) {
  char *copy = base_malloc(len + 1);
  if (!copy) return NULL;
  memcpy(copy, s, len);
  copy[len] = '\0';
  return copy;
}
