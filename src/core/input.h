/* input: giving a trace file's bytes back to the OS while it is parsed.
 *
 * Owns the per-chunk hold counts of one file's bytes (import_input_hold /
 * import_input_release in import/importer.h) and the page give-back.
 * Invariants:
 *  - The bytes [base, base + len) are divided into chunks of 1 << shift
 *    bytes (the last may be shorter); each has a count of holds.
 *  - Once input_holds_tokenized was called (and release is enabled), a chunk
 *    whose count is 0 is given back at once, and when its count drops to 0
 *    later; a given-back chunk is never read again by its importer.
 *  - Give-back touches only whole pages inside [base, base + len): the
 *    inward page-aligned range of the chunk, widened to the page boundary on
 *    a side whose neighbouring chunk was given back already (so runs of
 *    given-back chunks release every page between them). Works the same for
 *    heap buffers (the pages read as zero afterwards) and read-only file
 *    mappings (they come back from the page cache if touched).
 *  - For a mapping (input_holds_set_mapped), holds arriving in increasing
 *    offsets during tokenize also give back the pages of the chunks more
 *    than one chunk behind them (they come back from the page cache when
 *    parse reads them), in runs of pending_max bytes: tokenize keeps about
 *    two chunks and one run resident.
 *  - Pages of consecutive given-back chunks are handed to the OS in one
 *    madvise of up to pending_max bytes (4 MiB for a large file; 1/64 of
 *    a smaller file, at least one chunk), flushed when the run breaks, when
 *    every chunk is given back and in input_holds_free: each madvise costs
 *    a TLB shoot-down on every core running the process, so fewer, larger
 *    calls cost the parse less; what stays resident meanwhile is at most
 *    pending_max per file.
 *  - Under AddressSanitizer a given-back chunk is also poisoned byte-exactly,
 *    so any later read is reported; input_holds_free unpoisons.
 *  - hold/release cost O(chunks touched); ranges are clamped to the file. */
#ifndef WEFT_CORE_INPUT_H
#define WEFT_CORE_INPUT_H

#include <stddef.h>
#include <stdint.h>

#define INPUT_CHUNK_SHIFT_DEFAULT 18u /* 256 KiB */

typedef struct input_holds {
  const uint8_t *base;
  size_t len;
  unsigned shift;
  size_t chunks;
  uint32_t *counts;   /* per chunk */
  uint8_t *given;     /* per chunk: 1 once given back */
  int tokenized;      /* input_holds_tokenized was called */
  int give_back;      /* 0: count only, never give back (comparisons) */
  int mapped;         /* base is a file mapping (pages come back on fault) */
  size_t scanned;     /* mapped: chunks below this were given back while
                         tokenize was past them */
  uint64_t given_bytes; /* chunk bytes given back so far */
  size_t given_chunks;  /* chunks given back so far */
  uintptr_t pending_lo, pending_hi; /* pages given back but not yet madvised */
  size_t pending_max;   /* bytes of pages batched into one madvise */
} input_holds;

/* Prepares the counts for [base, base + len). WEFT_ENOMEM on failure (h is
 * then safe to free). give_back = 0 keeps every byte (counts still run). */
int input_holds_init(input_holds *h, const uint8_t *base, size_t len,
                     unsigned shift, int give_back);
void input_holds_free(input_holds *h);

void input_holds_set_mapped(input_holds *h);
void input_holds_hold(input_holds *h, size_t off, size_t len);
void input_holds_release(input_holds *h, size_t off, size_t len);
/* Tokenize ended: gives back every chunk whose count is 0. */
void input_holds_tokenized(input_holds *h);

/* Maps a whole file (`size` bytes of fd) read-only and private for input,
 * or returns NULL. The mapping asks for small pages only: the kernel may
 * otherwise map page-cache folios 2 MiB at a time, and giving back a
 * smaller range (a stored archive member of a few hundred KiB) unmaps the
 * whole 2 MiB only for the next read to map it again. */
void *input_map_file(int fd, size_t size);
/* Maps `len` bytes of fd from `offset` (any alignment) the same way, as a
 * mapping of its own: returns the mapping's start (*map_len bytes, to
 * munmap) and sets *data to the first requested byte; NULL on failure.
 * A mapping per archive member also keeps a read fault from mapping a
 * whole large page-cache folio, which the kernel does when the folio lies
 * inside the mapping (ext4 may cache a freshly read archive in 2 MiB
 * folios): through one whole-file mapping, reading the first bytes of
 * every small member would make most of the archive resident at once. */
void *input_map_range(int fd, uint64_t offset, size_t len, const uint8_t **data,
                      size_t *map_len);

/* Gives the whole pages inside [lo, hi) back to the OS (madvise
 * MADV_DONTNEED), touching nothing outside it. For mappings whose pages
 * come back from the page cache, e.g. after a file was tokenized. */
void input_give_back_pages(const uint8_t *lo, const uint8_t *hi);

#endif
