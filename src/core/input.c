/* input: chunk hold counts and page give-back (see input.h). */
#include "core/input.h"

#include <sys/mman.h>
#include <unistd.h>

#include "base/base.h"

#if defined(__SANITIZE_ADDRESS__)
#define INPUT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INPUT_ASAN 1
#endif
#endif
#ifdef INPUT_ASAN
#include <sanitizer/asan_interface.h>
#define INPUT_POISON(p, n) __asan_poison_memory_region((p), (n))
#define INPUT_UNPOISON(p, n) __asan_unpoison_memory_region((p), (n))
#else
#define INPUT_POISON(p, n) ((void)(p), (void)(n))
#define INPUT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static uintptr_t input_page_size(void) {
  static uintptr_t page;
  if (!page) {
    long p = sysconf(_SC_PAGESIZE);
    page = p > 0 ? (uintptr_t)p : 4096;
  }
  return page;
}

void input_give_back_pages(const uint8_t *lo, const uint8_t *hi) {
  uintptr_t page = input_page_size();
  uintptr_t a = ((uintptr_t)lo + page - 1) & ~(page - 1);
  uintptr_t b = (uintptr_t)hi & ~(page - 1);
  if (lo && a < b) madvise((void *)a, b - a, MADV_DONTNEED);
}

#define INPUT_BATCH_MAX ((size_t)4 << 20)

/* Bytes of pages one madvise gives back: 1/64 of the file, at least a
 * chunk, at most 4 MiB. */
static size_t input_batch_bytes(size_t len, unsigned shift) {
  size_t batch = len / 64, chunk = (size_t)1 << shift;
  if (batch < chunk) batch = chunk;
  return batch < INPUT_BATCH_MAX ? batch : INPUT_BATCH_MAX;
}

static void input_flush_pending(input_holds *h) {
  if (h->pending_lo < h->pending_hi)
    madvise((void *)h->pending_lo, h->pending_hi - h->pending_lo, MADV_DONTNEED);
  h->pending_lo = h->pending_hi = 0;
}

/* Adds the pages [a, b) to the pending run, flushing the run first if
 * [a, b) does not continue it, and after if one more chunk would take it
 * past its size (at once when the size is one chunk). */
static void input_give_back_range(input_holds *h, uintptr_t a, uintptr_t b) {
  if (h->pending_lo < h->pending_hi && a != h->pending_hi) input_flush_pending(h);
  if (h->pending_lo == h->pending_hi) h->pending_lo = a;
  h->pending_hi = b;
  if (h->pending_hi - h->pending_lo + ((size_t)1 << h->shift) > h->pending_max)
    input_flush_pending(h);
}

int input_holds_init(input_holds *h, const uint8_t *base, size_t len,
                     unsigned shift, int give_back) {
  memset(h, 0, sizeof *h);
  h->base = base;
  h->len = len;
  h->shift = shift < 63 ? shift : 62;
  h->give_back = give_back;
  h->pending_max = input_batch_bytes(len, h->shift);
  h->chunks = len ? ((len - 1) >> h->shift) + 1 : 0;
  if (!h->chunks) return WEFT_OK;
  h->counts = base_calloc(h->chunks, sizeof *h->counts);
  h->given = base_calloc(h->chunks, 1);
  if (!h->counts || !h->given) {
    input_holds_free(h);
    return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

void input_holds_free(input_holds *h) {
  input_flush_pending(h);
  for (size_t i = 0; h->given && i < h->chunks; i++) {
    if (!h->given[i]) continue;
    size_t lo = i << h->shift, hi = lo + ((size_t)1 << h->shift);
    if (hi > h->len) hi = h->len;
    INPUT_UNPOISON(h->base + lo, hi - lo);
  }
  base_free(h->counts);
  base_free(h->given);
  h->counts = NULL;
  h->given = NULL;
  h->chunks = 0;
}

/* 1 if the page at p lies inside the bytes and every chunk it overlaps was
 * given back. */
static int input_page_free(const input_holds *h, uintptr_t p) {
  uintptr_t page = input_page_size(), b0 = (uintptr_t)h->base;
  if (p < b0 || p - b0 > h->len || h->len - (p - b0) < page) return 0;
  size_t first = (p - b0) >> h->shift, last = (p - b0 + page - 1) >> h->shift;
  for (size_t k = first; k <= last; k++)
    if (!h->given[k]) return 0;
  return 1;
}

static void input_give_back_chunk(input_holds *h, size_t i) {
  size_t lo = i << h->shift, hi = lo + ((size_t)1 << h->shift);
  if (hi > h->len) hi = h->len;
  h->given[i] = 1;
  h->given_bytes += hi - lo;
  h->given_chunks++;
  INPUT_POISON(h->base + lo, hi - lo);
  uintptr_t page = input_page_size();
  uintptr_t a = (uintptr_t)(h->base + lo) & ~(page - 1);
  uintptr_t b = ((uintptr_t)(h->base + hi) + page - 1) & ~(page - 1);
  if (!input_page_free(h, a)) a += page;
  if (b > a && !input_page_free(h, b - page)) b -= page;
  if (a < b) input_give_back_range(h, a, b);
  if (h->given_chunks == h->chunks) input_flush_pending(h);
}

/* The chunks [first, last] of the clamped range [off, off + len), or 0 if
 * the range is empty. */
static int input_range(const input_holds *h, size_t off, size_t len,
                       size_t *first, size_t *last) {
  if (!h->chunks || len == 0 || off >= h->len) return 0;
  size_t end = len > h->len - off ? h->len : off + len;
  *first = off >> h->shift;
  *last = (end - 1) >> h->shift;
  return 1;
}

void input_holds_set_mapped(input_holds *h) { h->mapped = 1; }

/* Mapped, during tokenize: the pages of chunks before `chunk - 1`. */
static void input_scan_past(input_holds *h, size_t chunk) {
  size_t batch_chunks = h->pending_max >> h->shift;
  if (chunk < h->scanned + 1 + (batch_chunks ? batch_chunks : 1)) return;
  input_give_back_pages(h->base + (h->scanned << h->shift),
                        h->base + ((chunk - 1) << h->shift));
  h->scanned = chunk - 1;
}

void input_holds_hold(input_holds *h, size_t off, size_t len) {
  size_t first, last;
  if (!input_range(h, off, len, &first, &last)) return;
  if (h->mapped && h->give_back && !h->tokenized) input_scan_past(h, first);
  for (size_t k = first; k <= last; k++)
    if (h->counts[k] < UINT32_MAX) h->counts[k]++;
}

void input_holds_release(input_holds *h, size_t off, size_t len) {
  size_t first, last;
  if (!input_range(h, off, len, &first, &last)) return;
  for (size_t k = first; k <= last; k++) {
    if (h->counts[k] == 0 || h->counts[k] == UINT32_MAX) continue; /* pinned */
    if (--h->counts[k] == 0 && h->tokenized && h->give_back && !h->given[k])
      input_give_back_chunk(h, k);
  }
}

void input_holds_tokenized(input_holds *h) {
  h->tokenized = 1;
  if (!h->give_back) return;
  for (size_t k = 0; k < h->chunks; k++)
    if (h->counts[k] == 0 && !h->given[k]) input_give_back_chunk(h, k);
}

void *input_map_range(int fd, uint64_t offset, size_t len, const uint8_t **data,
                      size_t *map_len) {
  uint64_t lead = offset & (uint64_t)(input_page_size() - 1);
  if (len == 0 || len > SIZE_MAX - lead) return NULL;
  size_t total = len + (size_t)lead;
  void *map = mmap(NULL, total, PROT_READ, MAP_PRIVATE, fd, (off_t)(offset - lead));
  if (map == MAP_FAILED) return NULL;
  (void)madvise(map, total, MADV_NOHUGEPAGE); /* advisory: fine if refused */
  *data = (const uint8_t *)map + lead;
  *map_len = total;
  return map;
}

void *input_map_file(int fd, size_t size) {
  const uint8_t *data;
  size_t map_len;
  return input_map_range(fd, 0, size, &data, &map_len); /* offset 0: data is the start */
}
