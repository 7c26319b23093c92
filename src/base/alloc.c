/* Allocation wrappers with a test hook that fails the Nth allocation. */
#include <stdlib.h>

#include "base.h"

static uint64_t alloc_countdown; /* 0 = never fail */
static uint64_t alloc_total;

void base_alloc_fail_after(uint64_t n) { alloc_countdown = n; }
uint64_t base_alloc_count(void) { return alloc_total; }

static int alloc_should_fail(void) {
  alloc_total++;
  if (alloc_countdown == 0) return 0;
  if (--alloc_countdown == 0) return 1;
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
