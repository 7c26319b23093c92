/* io internals shared by archive.c (libarchive) and gzip.c (zlib): the
 * bounded output sink and the limit checks. Not part of the module API. */
#ifndef WEFT_IO_INTERNAL_H
#define WEFT_IO_INTERNAL_H

#include "io/archive.h"

/* Growable member buffer; always keeps one spare byte for a trailing NUL. */
typedef struct io_sink {
  uint8_t *data;
  size_t len;
  size_t cap;
} io_sink;

/* Ensures at least `want` free bytes (fewer if that would pass `max_len`,
 * but at least 1 while len <= max_len). WEFT_ENOMEM on failure. */
int io_sink_reserve(io_sink *s, size_t want, uint64_t max_len);
void io_sink_free(io_sink *s);

/* Checks `out` decompressed bytes of one member against max_member_bytes and
 * `total_out` (all members so far) against the ratio to `in_len`. On failure
 * sets "<what>: ..." and returns WEFT_ELIMIT. */
int io_check_limits(const io_limits *l, uint64_t out, uint64_t total_out,
                    uint64_t in_len, const char *what, base_error *err);

/* Writes a printable, bounded rendering of a member for messages:
 * "zip member 'a.pb'" or "gzip stream". */
void io_describe(char *buf, size_t cap, const char *kind, const char *name);

/* Hands a finished sink to the callback as a member, then frees what the
 * callback did not take. */
int io_yield(io_sink *s, const char *name, uint32_t index, bool truncated,
             io_member_fn fn, void *ctx, base_error *err);

/* Stored members in a mapping of their archive (stored.c): the member's
 * bytes at data_off if verified (see io_archive_each_file_view), else NULL.
 * A verified member's whole pages are given back by the check (they come
 * back from the page cache when read): the zip CRC check window by window
 * as it passes them, so a member is never resident all at once; the tar
 * check (header only) after it. */
const uint8_t *io_stored_zip(const uint8_t *map, uint64_t map_len, uint64_t data_off,
                             const char *name, uint64_t size);
/* A deflated zip member's compressed bytes at data_off in the mapping, if
 * its local header checks out as for io_stored_zip (name, no encryption or
 * data descriptor, uncompressed size `size`) with method 8 and compressed
 * bytes inside the mapping: sets *compressed (their length) and *crc (the
 * header's CRC-32 of the inflated bytes). NULL: let libarchive read it. */
const uint8_t *io_deflated_zip(const uint8_t *map, uint64_t map_len, uint64_t data_off,
                               const char *name, uint64_t size, uint64_t *compressed,
                               uint32_t *crc);
/* Inflates in_len bytes of raw deflate into exactly `size` bytes at out and
 * checks their CRC-32: 0, or -1 if the stream is corrupt, ends early or
 * late, or the CRC differs (out's contents are then undefined). */
struct libdeflate_decompressor;
int io_inflate_exact(struct libdeflate_decompressor *d, const uint8_t *in, size_t in_len,
                     uint8_t *out, size_t size, uint32_t crc);
const uint8_t *io_stored_tar(const uint8_t *map, uint64_t map_len, uint64_t data_off,
                             uint64_t size);
/* After a check of the header before data_off, whatever its outcome: gives
 * back the pages it may have made resident. A read fault can map a whole
 * large page-cache folio (up to 2 MiB) of the archive, so this is the
 * 2 MiB-aligned window around the header and data_off, clipped to the
 * mapping; pages of it read again later come back from the page cache. */
void io_stored_header_done(const uint8_t *map, uint64_t map_len, uint64_t data_off);
/* The same for any range [lo, hi) of the mapping that was read once: every
 * page of the 2 MiB-aligned blocks it touches, clipped to the mapping. */
void io_stored_window_done(const uint8_t *map, uint64_t map_len, uint64_t lo, uint64_t hi);

/* The first `want` bytes of a zlib stream (inflateInit2's window_bits:
 * -15 raw deflate, 31 gzip) inflated into head: 1, or 0 if they do not
 * inflate. Reads only as much input as they need. */
int io_inflate_head(const uint8_t *in, uint64_t in_len, int window_bits, uint8_t *head,
                    size_t want);
/* A whole gzip stream of one member (nothing after it) inflated into
 * exactly `size` bytes at out, its trailer's CRC-32 and size checked:
 * WEFT_OK, WEFT_ENOMEM, or WEFT_EPARSE (out's contents undefined). */
int io_gzip_inflate_exact(const uint8_t *in, size_t in_len, uint8_t *out, size_t size);

/* zlib-based single-stream containers (gzip.c); flags as for
 * io_archive_each. */
int io_gzip_each(const uint8_t *data, size_t len, unsigned flags, const io_limits *l,
                 io_member_fn fn, void *ctx, base_error *err);
int io_ctrace_each(const uint8_t *data, size_t len, const io_limits *l,
                   io_member_fn fn, void *ctx, base_error *err);

#endif
