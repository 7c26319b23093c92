/* base: allocation, errors, growable vectors, hash maps, string pool, arenas.
 *
 * Owns nothing global except the allocation hook used by tests (base_alloc_*).
 * Invariants: every function that can fail returns an int status (0 = ok,
 * negative WEFT_E* code) and, where it takes a base_error*, fills its message.
 * Nothing here prints or exits. */
#ifndef WEFT_BASE_H
#define WEFT_BASE_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weft/weft.h"

/* ---- allocation (all project allocations go through these) ---- */
void *base_malloc(size_t size);
void *base_calloc(size_t count, size_t size);
void *base_realloc(void *ptr, size_t size);
void base_free(void *ptr);
char *base_strndup(const char *s, size_t len);
/* Asks the kernel to back the pages of the mapping [p, p + bytes) with
 * huge pages when bytes is at least BASE_HUGE_MIN_BYTES (the allocators
 * above do it for every block that large). A hint: nothing fails. Each
 * first touch of a 4 KiB page is a fault, and on virtual machines a fault
 * can cost more than ten microseconds; a huge page is one fault for 512
 * of them. At most the last, partly used 2 MiB of an array is resident
 * beyond what was written, hence the floor. */
#define BASE_HUGE_MIN_BYTES ((size_t)4 << 20)
void base_advise_huge(void *p, size_t bytes);
/* A zero-filled anonymous mapping of `bytes` rounded up to a multiple of
 * 2 MiB, at a 2 MiB boundary, advised MADV_HUGEPAGE whatever its size:
 * each 2 MiB of it is one fault where transparent huge pages are on.
 * NULL when out of memory (or failed by the test hook). Given back with
 * base_unmap_huge(p, the same bytes), whole. */
#define BASE_HUGE_ALIGN ((size_t)2 << 20)
void *base_map_huge(size_t bytes);
void base_unmap_huge(void *p, size_t bytes);
/* A slab: blocks of one size (a multiple of 4 KiB), carved from mappings
 * of BASE_SLAB_REGION_BYTES in small pages. Up to `warm_max` freed blocks
 * are kept as they are, for the next allocations (pages already present
 * cost no fault); past that, freeing a block gives its pages back to the
 * system at once and keeps its address. So however many blocks are freed,
 * in whatever order, at most warm_max of them stay resident, where a heap
 * keeps resident the page holding each free chunk's header: for many
 * freed blocks of tens of KiB, a large share of them. Thread-safe.
 * Invariant: cold_cap >= every block carved, so freeing never allocates.
 * base_slab_destroy unmaps every region, blocks still out included. */
#define BASE_SLAB_REGION_BYTES ((size_t)2 << 20)
#define BASE_SLAB_WARM_MAX 256
typedef struct base_slab {
  pthread_mutex_t lock;
  size_t block_bytes;   /* divides BASE_SLAB_REGION_BYTES */
  void **regions;
  size_t region_count, region_cap;
  size_t carved;        /* blocks handed out of the last region so far */
  void *warm[BASE_SLAB_WARM_MAX]; /* freed, still resident: handed out first */
  size_t warm_count, warm_max;
  void **cold;          /* freed, pages given back */
  size_t cold_count, cold_cap;
} base_slab;
/* warm_max: at most BASE_SLAB_WARM_MAX. */
void base_slab_init(base_slab *s, size_t block_bytes, size_t warm_max);
/* A block, NULL when out of memory (or failed by the test hook). Its
 * contents are undefined (a warm block's are what they were). */
void *base_slab_alloc(base_slab *s);
void base_slab_free(base_slab *s, void *block);
void base_slab_destroy(base_slab *s);
/* Test hook: make the Nth allocation from now fail (0 disables). */
void base_alloc_fail_after(uint64_t n);
uint64_t base_alloc_count(void);

/* qsort, except that fewer than two elements (where `base` may be NULL,
 * which qsort does not allow) are left as they are. */
static inline void base_qsort(void *base, size_t count, size_t size,
                              int (*compare)(const void *, const void *)) {
  if (count > 1) qsort(base, count, size, compare);
}

/* ---- errors ---- */
typedef struct base_error {
  int code;           /* 0 or a negative WEFT_E* code */
  char message[1024]; /* one line, no trailing newline */
} base_error;

/* Sets code and formatted message; returns code so callers can
 * `return base_error_set(err, WEFT_EPARSE, "...")`. err may be NULL. */
int base_error_set(base_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes the existing message with "prefix: ". */
void base_error_prefix(base_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void base_error_clear(base_error *err);
/* Fails with WEFT_ENOMEM and the message "out of memory". */
int base_error_nomem(base_error *err);
/* The status of a call that can fail only for want of memory: 0 stays 0,
 * any other code is reported as "out of memory" under that code. */
int base_error_alloc(base_error *err, int status);
/* Puts `name` (a file's) in front of the message, unless the message
 * names it already: every failure of a load names its file once. */
void base_error_name_file(base_error *err, const char *name);

/* ---- growable vectors ----
 * VEC(T) is an anonymous struct {data, len, cap}; zero-initialise it.
 * Growth doubles; overflow and allocation failure return WEFT_ENOMEM. */
#define VEC(T) struct { T *data; size_t len; size_t cap; }
int base_vec_reserve(void **data, size_t *cap, size_t elem_size, size_t need);
#define VEC_RESERVE(v, n) \
  base_vec_reserve((void **)&(v).data, &(v).cap, sizeof *(v).data, (n))
#define VEC_PUSH(v, x)                                                  \
  (((v).len < (v).cap || VEC_RESERVE(v, (v).len + 1) == 0)              \
       ? ((v).data[(v).len++] = (x), 0)                                 \
       : WEFT_ENOMEM)
#define VEC_FREE(v) (base_free((v).data), (v).data = NULL, (v).len = (v).cap = 0)
/* Sizes an empty or small vector at once for the most records an input of
 * `bytes` bytes can hold when each takes at least `min_bytes` of it (at
 * most BASE_INPUT_RESERVE_MAX bytes of array). Address space only: the
 * allocator maps blocks this large on their own, and pages never written
 * take no memory. An array an importer fills and reads again later is
 * then never moved while it grows: on virtual machines whose hypervisor
 * shadows the guest's page tables, every page mremap moves traps again at
 * its next touch (docs/performance.md). A hint: when the block cannot be
 * had, or the input holds more, the vector grows as it goes. */
#define BASE_INPUT_RESERVE_MAX ((size_t)1 << 32)
void base_vec_reserve_input(void **data, size_t *cap, size_t elem_size, size_t bytes,
                            size_t min_bytes);
#define VEC_RESERVE_INPUT(v, bytes, min_bytes) \
  base_vec_reserve_input((void **)&(v).data, &(v).cap, sizeof *(v).data, (bytes), (min_bytes))

/* ---- bounded growable byte buffer (for untrusted input) ---- */
typedef struct base_buf {
  char *data;      /* always NUL-terminated when non-NULL */
  size_t len;
  size_t cap;
  size_t max_len;  /* appending past this fails with WEFT_ELIMIT */
} base_buf;
void base_buf_init(base_buf *b, size_t max_len);
int base_buf_append(base_buf *b, const void *data, size_t len);
int base_buf_appendf(base_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void base_buf_reset(base_buf *b);
void base_buf_free(base_buf *b);

/* Writes the base64 of `len` bytes (standard alphabet, '=' padded) and a
 * NUL into out, which holds (len + 2) / 3 * 4 + 1 bytes; returns the
 * text's length. */
size_t base_base64(const uint8_t *data, size_t len, char *out);

/* ---- arena: bump allocation, freed all at once ---- */
typedef struct base_arena_block base_arena_block;
typedef struct base_arena {
  base_arena_block *head;
  size_t block_size;
  size_t total;  /* bytes allocated from the system */
} base_arena;
void base_arena_init(base_arena *a, size_t block_size);
void *base_arena_alloc(base_arena *a, size_t size); /* 16-byte aligned */
void base_arena_free(base_arena *a);

/* ---- decimal numbers in text ----
 * A whole token s[0, n) as C's strtoull / strtoll (base 10) read it:
 * leading white space (" \t\n\v\f\r"), an optional sign, at least one
 * digit and nothing after; 1 and *out when it is one, else 0. Without a
 * NUL and without errno. Out of range, base_parse_u64 gives UINT64_MAX
 * (a '-' otherwise negates modulo 2^64, "-1" is UINT64_MAX) and
 * base_parse_i64 saturates at INT64_MIN / INT64_MAX. */
int base_parse_u64(const char *s, size_t n, uint64_t *out);
int base_parse_i64(const char *s, size_t n, int64_t *out);
/* m * 10^e rounded to the nearest double, ties to even, as strtod reads
 * the decimal it spells: 1 and *out when one exact operation gives it
 * (m <= 2^53 and |e| <= 22 in doubles; m < 2^64 and |e| <= 27 in x87
 * extended precision where there is one, unless the value lies too near
 * a midpoint between two doubles), else 0 (then strtod must read it). */
int base_decimal_to_double(uint64_t m, int e, double *out);
/* Whether long double arithmetic keeps its 64-bit significand here (an
 * emulator may run x87 code in double precision, valgrind does): without
 * it base_decimal_to_double declines what needs it. */
int base_decimal_extended(void);

/* ---- hashing ---- */
uint64_t base_hash_bytes(const void *data, size_t len);
static inline uint64_t base_hash_u64(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

/* Whether the n bytes at a and b are equal, for n <= 24 only: a few
 * fixed-size (overlapping) loads instead of a call to memcmp, for the short
 * names compared on every event. */
static inline int base_equal_short(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  if (n >= 8) {
    uint64_t x0, y0, x1, y1, x2 = 0, y2 = 0;
    memcpy(&x0, x, 8), memcpy(&y0, y, 8);
    memcpy(&x1, x + n - 8, 8), memcpy(&y1, y + n - 8, 8);
    if (n > 16) memcpy(&x2, x + 8, 8), memcpy(&y2, y + 8, 8);
    return ((x0 ^ y0) | (x1 ^ y1) | (x2 ^ y2)) == 0;
  }
  if (n >= 4) {
    uint32_t x0, y0, x1, y1;
    memcpy(&x0, x, 4), memcpy(&y0, y, 4);
    memcpy(&x1, x + n - 4, 4), memcpy(&y1, y + n - 4, 4);
    return ((x0 ^ y0) | (x1 ^ y1)) == 0;
  }
  return n == 0 || (x[0] == y[0] && x[n / 2] == y[n / 2] && x[n - 1] == y[n - 1]);
}

/* ---- u64 -> u64 hash map (open addressing; key UINT64_MAX reserved) ----
 * A key and its value share a slot, so a lookup that finds its key at the
 * first probe reads one cache line. */
typedef struct base_map_slot {
  uint64_t key, value;
} base_map_slot;
typedef struct base_map {
  base_map_slot *slots;
  size_t count;
  size_t cap; /* power of two or 0 */
} base_map;
/* Returns pointer to the value or NULL. */
uint64_t *base_map_find(const base_map *m, uint64_t key);
/* Inserts key if absent (value set to `value`); *slot receives the value
 * pointer; returns 1 if inserted, 0 if it existed, <0 on error. */
int base_map_insert(base_map *m, uint64_t key, uint64_t value, uint64_t **slot);
void base_map_free(base_map *m);

/* ---- string pool: interns byte strings to dense ids ----
 * Id 0 is reserved for NULL, id 1 is the empty string. Strings are stored
 * NUL-terminated; ids are stable for the pool's lifetime. */
typedef uint32_t string_id;
#define STRING_NULL ((string_id)0)
typedef struct base_string_pool {
  base_arena bytes;
  VEC(const char *) strings; /* id -> string */
  VEC(uint32_t) lengths;
  uint32_t *slots; /* hash slots holding ids (0 = empty) */
  size_t slot_cap;
  /* Recently interned strings by a cheap hash of their ends: a memo checked
   * by content, which holds the first bytes of each string itself so that
   * a hit on a short string reads no pool memory (NULL if it could not be
   * allocated). */
  struct base_pool_recent *recent;
} base_string_pool;
int base_string_pool_init(base_string_pool *p);
void base_string_pool_free(base_string_pool *p);
/* Interns; returns WEFT_OK and *out, or WEFT_ENOMEM. */
int base_string_pool_intern(base_string_pool *p, const char *s, size_t len,
                            string_id *out);
/* Looks up without inserting; STRING_NULL if absent. */
string_id base_string_pool_find(const base_string_pool *p, const char *s,
                                size_t len);
static inline const char *base_string_pool_get(const base_string_pool *p,
                                               string_id id) {
  return id == STRING_NULL ? NULL : p->strings.data[id];
}
static inline uint32_t base_string_pool_len(const base_string_pool *p,
                                            string_id id) {
  return id == STRING_NULL ? 0 : p->lengths.data[id];
}
static inline size_t base_string_pool_count(const base_string_pool *p) {
  return p->strings.len;
}

#endif
