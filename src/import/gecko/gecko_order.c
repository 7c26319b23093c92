/* gecko: a thread's markers put in time order before they are queued.
 * A thread's markers come in any order; queued as they come, the parse
 * would read the marker table in a random order (a cache miss a marker).
 * Sorted here, each thread's while they are in cache, stably by ts (equal
 * times keep their table order, as the sorter's push order would), the
 * sorter merges the threads and the parse reads each thread's markers
 * front to back. */
#include <string.h>

#include "import/gecko/gecko_internal.h"

#define GECKO_RADIX_BITS 11
#define GECKO_RADIX (1u << GECKO_RADIX_BITS)

typedef struct gecko_order_key {
  uint64_t key; /* ts with its sign bit flipped: unsigned order is ts order */
  size_t index;
} gecko_order_key;

/* One stable counting pass on the digit at `shift`; 0 if every key has
 * the same digit there (nothing to do). */
static int gecko_radix_pass(const gecko_order_key *in, gecko_order_key *out, size_t n,
                            unsigned shift, size_t *count) {
  memset(count, 0, GECKO_RADIX * sizeof *count);
  for (size_t i = 0; i < n; i++) count[(in[i].key >> shift) & (GECKO_RADIX - 1)]++;
  if (count[(in[0].key >> shift) & (GECKO_RADIX - 1)] == n) return 0;
  size_t sum = 0;
  for (size_t d = 0; d < GECKO_RADIX; d++) {
    size_t c = count[d];
    count[d] = sum;
    sum += c;
  }
  for (size_t i = 0; i < n; i++) out[count[(in[i].key >> shift) & (GECKO_RADIX - 1)]++] = in[i];
  return 1;
}

/* The keys sorted stably (LSD radix); returns the array holding them. */
static gecko_order_key *gecko_radix_sort(gecko_order_key *a, gecko_order_key *b, size_t n,
                                         size_t *count) {
  for (unsigned shift = 0; shift < 64; shift += GECKO_RADIX_BITS) {
    if (!gecko_radix_pass(a, b, n, shift, count)) continue;
    gecko_order_key *t = a;
    a = b;
    b = t;
  }
  return a;
}

static int gecko_is_sorted(const gecko_marker *m, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (m[i].ts < m[i - 1].ts) return 0;
  return 1;
}

int gecko_order_markers(gecko_state *st, size_t first) {
  size_t n = st->markers.len - first;
  gecko_marker *m = st->markers.data + first;
  if (n < 2 || gecko_is_sorted(m, n)) return WEFT_OK;
  gecko_order_key *a = base_malloc(n * sizeof *a), *b = base_malloc(n * sizeof *b);
  size_t *count = base_malloc(GECKO_RADIX * sizeof *count);
  gecko_marker *sorted = base_malloc(n * sizeof *sorted);
  int rc = a && b && count && sorted ? WEFT_OK : WEFT_ENOMEM;
  if (!rc) {
    for (size_t i = 0; i < n; i++)
      a[i] = (gecko_order_key){(uint64_t)m[i].ts ^ (UINT64_C(1) << 63), i};
    const gecko_order_key *keys = gecko_radix_sort(a, b, n, count);
    for (size_t i = 0; i < n; i++) sorted[i] = m[keys[i].index];
    memcpy(m, sorted, n * sizeof *sorted);
  }
  base_free(a);
  base_free(b);
  base_free(count);
  base_free(sorted);
  return rc;
}
