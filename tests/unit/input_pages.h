/* Shared by the core/input and archive unit tests: page-sized anonymous
 * arenas and what mincore says of their pages. Each test file has its own
 * copy (static); input_pages_init sets the page size before any use. */
#ifndef WEFT_TESTS_UNIT_INPUT_PAGES_H
#define WEFT_TESTS_UNIT_INPUT_PAGES_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page;
static unsigned page_shift;

/* An anonymous mapping of n pages filled with 0xAB: given-back pages read
 * as zero afterwards, untouched ones keep the pattern. */
static inline uint8_t *arena_new(size_t pages) {
  void *p = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED) return NULL;
  memset(p, 0xAB, pages * page);
  return p;
}

/* 1 if page i of the arena was given back (no longer resident; asked
 * without reading it, which AddressSanitizer would report for a poisoned
 * chunk), 0 if it is still there. */
static inline int page_given(const uint8_t *arena, size_t i) {
  unsigned char vec = 1;
  if (mincore((void *)(arena + i * page), page, &vec) != 0) return 0;
  return (vec & 1) == 0;
}

/* After input_holds_free (unpoisoned): page i reads as zeros. */
static inline int page_zero(const uint8_t *arena, size_t i) {
  const uint8_t *p = arena + i * page;
  for (size_t k = 0; k < page; k++)
    if (p[k] != 0) return 0;
  return 1;
}

static inline int bytes_untouched(const uint8_t *p, size_t n) {
  for (size_t k = 0; k < n; k++)
    if (p[k] != 0xAB) return 0;
  return 1;
}

static inline void input_pages_init(void) {
  long ps = sysconf(_SC_PAGESIZE);
  page = ps > 0 ? (size_t)ps : 4096;
  while (((size_t)1 << page_shift) < page) page_shift++;
}

#endif
