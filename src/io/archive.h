/* io/archive: unpacks container buffers (zip, tar, gzip, zstd, ctrace) into
 * members, one at a time, under resource limits; and orders members the way
 * Perfetto processes archive contents.
 *
 * Owns: decompression (zlib for gzip/ctrace, libarchive for zip/tar/zstd),
 * the member skip rules, the resource-limit checks and the processing order.
 * Invariants:
 *  - Input is one complete in-memory buffer (never modified), or for zip
 *    and tar a file read block by block (io_archive_each_file), whose stored
 *    members may be yielded as views into a mapping of it (..._view).
 *  - At most one member is held at a time (the one passed to the callback),
 *    unless the callback takes ownership of its bytes (io_member_take).
 *  - Every member's decompressed size is <= limits.max_member_bytes; the
 *    decompressed bytes produced from one container (sum over its members)
 *    are <= max_ratio * container size once past ratio_floor_bytes. Limits
 *    are checked while decompressing, so bombs stop early (WEFT_ELIMIT).
 *  - zip/tar: directories, non-regular entries and hidden paths (any path
 *    component starting with '.', other than "." and "..": "__MACOSX/._x",
 *    ".DS_Store", "d/.git/x") are skipped silently; every entry, skipped or
 *    not, counts towards max_members. Names are passed through as libarchive
 *    returns them (raw bytes up to the first NUL, not validated as UTF-8).
 *  - gzip / zstd / ctrace yield exactly one member with name NULL: the whole
 *    decompressed stream (concatenated gzip members or zstd frames decompress
 *    to their concatenation; a ctrace is "...TRACE:\n" + a zlib stream).
 *  - Errors: the callback has seen every member read intact before the error.
 *    A zip/tar member whose data cannot be read is not yielded; the error
 *    names it ("zip member 'a.pb': ..."). A gzip/zstd/ctrace stream that is
 *    truncated or corrupt is yielded with `truncated` set, then the call
 *    fails with WEFT_EPARSE. Limit violations yield nothing for that member.
 * Nesting: the caller sniffs each member (io_sniff) and, for containers
 * (io_trace_type_is_container), recurses after io_depth_check. */
#ifndef WEFT_IO_ARCHIVE_H
#define WEFT_IO_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "io/sniff.h"

typedef struct io_limits {
  uint64_t max_member_bytes;  /* decompressed bytes of one member/stream */
  uint32_t max_ratio;         /* decompressed / container bytes; 0 = off */
  uint64_t ratio_floor_bytes; /* ratio not enforced below this output size */
  uint32_t max_members;       /* entries per archive (incl. skipped) */
  uint32_t max_depth;         /* containers nested, the outermost is 1 */
  uint64_t max_total_bytes;   /* decompressed bytes one io_archive_each call
                                 may produce over all its members; 0 = off
                                 (the loader's budget for the whole input) */
} io_limits;

/* Defaults: 2 GiB per member, ratio 1000 past 64 MiB, 10000 members,
 * depth 8, no total. */
void io_limits_default(io_limits *limits);

/* A deflated zip member left in its archive's mapping, or a whole gzip
 * stream left in its bytes, for the caller to inflate later, on any thread
 * (io_deflated_inflate): plain data, valid as long as those bytes. */
typedef struct io_deflated {
  const uint8_t *map;  /* the archive's mapping */
  uint64_t map_len;
  uint64_t at;         /* offset of the first compressed byte */
  uint64_t compressed; /* compressed bytes */
  uint64_t size;       /* inflated bytes: the member's len */
  uint32_t crc;        /* the local header's CRC-32 of the inflated bytes */
  uint8_t gzip;        /* 1: map is a gzip stream of one member (at 0,
                          `compressed` bytes), whose own trailer the
                          inflate checks (crc unused); its bytes are not
                          given back, since they need not be a mapping */
} io_deflated;

typedef struct io_member {
  const char *name; /* path as stored; NULL for gzip/zstd/ctrace streams */
  uint8_t *data;    /* len bytes + a NUL not counted; NULL if taken or if
                       `view` or `deflated` is set */
  const uint8_t *view; /* instead of data: the member's len bytes inside the
                          mapping given to io_archive_each_file_view (a
                          stored member); not owned, not followed by a NUL */
  size_t len;
  uint32_t index;   /* entry position in the archive, counting skipped ones */
  bool truncated;   /* stream ended early (gzip/zstd/ctrace only) */
  /* With IO_EACH_DEFER_INFLATE, instead of data: a deflated member not
   * inflated yet, and `head`, its first min(len, IO_SNIFF_PREFIX_BYTES)
   * bytes inflated (io_sniff reads no further). */
  const io_deflated *deflated;
  const uint8_t *head;
  size_t head_len;
} io_member;

/* Transfers ownership of member->data to the caller (free with base_free);
 * valid only inside the callback. Returns NULL if already taken. */
uint8_t *io_member_take(io_member *member);

/* Called once per member, in archive order. Both the member and its name are
 * valid only during the call. Return WEFT_OK to continue; any other value
 * stops the walk and is returned by io_archive_each (set err when returning
 * an error code; WEFT_EABORT means "stop, no error"). */
typedef int (*io_member_fn)(void *ctx, io_member *member, base_error *err);

/* Walks the members of a container of the given (sniffed) type. Returns
 * WEFT_OK, the callback's status, WEFT_ELIMIT (limits), WEFT_EPARSE
 * (corrupt/truncated), WEFT_ENOMEM, or WEFT_EINVAL (not a container type).
 * flags: IO_EACH_DEFER_INFLATE (below) defers a gzip stream that libdeflate
 * may inflate in one call (one member, a size within the limits); the
 * other types ignore it here. */
int io_archive_each(io_trace_type type, const uint8_t *data, size_t len, unsigned flags,
                    const io_limits *limits, io_member_fn fn, void *ctx,
                    base_error *err);

/* The same for a container read from the file at `path` (of `size` bytes,
 * for the ratio limit), block by block: the archive itself is never held in
 * memory, only the member being decompressed. For the types for which
 * io_archive_streams_from_file is true (zip, tar). */
int io_archive_each_file(io_trace_type type, const char *path, uint64_t size,
                         const io_limits *limits, io_member_fn fn, void *ctx,
                         base_error *err);
bool io_archive_streams_from_file(io_trace_type type);
/* The same, with `view` the file mapped whole (`size` bytes; or NULL): a
 * member stored uncompressed is yielded as a view into it, without copying,
 * once its place is verified (zip: the local header ending where libarchive
 * puts the data, method 0, no encryption or data descriptor, sizes equal to
 * the entry's, CRC-32 of the bytes equal to the header's; tar: a valid
 * header block right before the data for a regular file of that size).
 * A deflated zip member whose local header checks out the same way (method
 * 8, its compressed bytes inside the mapping) is inflated from the mapping
 * with libdeflate and yielded as a copy if it inflates to exactly the
 * entry's size with the header's CRC-32.
 * Anything else is read through libarchive, so a corrupt member fails
 * with libarchive's words whichever path it would have taken. The bytes checked are given back to the OS
 * (MADV_DONTNEED) after the check. */
int io_archive_each_file_view(io_trace_type type, const char *path,
                              const uint8_t *view, uint64_t size, unsigned flags,
                              const io_limits *limits, io_member_fn fn, void *ctx,
                              base_error *err);
/* flags: yield deflated members that would be inflated from the mapping
 * as io_member.deflated instead (their limits checked on their declared
 * size, as for an inflate), so that the caller inflates them where and
 * when it likes. A member whose first bytes do not inflate is read as
 * without the flag. */
#define IO_EACH_DEFER_INFLATE 1u

/* Inflates a deferred member into a new buffer of d->size bytes and a NUL
 * not counted (*out; free with base_free), then gives back the pages of
 * a zip member's compressed bytes. Safe on any thread. WEFT_OK;
 * WEFT_ENOMEM; or WEFT_EPARSE when the stream is corrupt, ends early or
 * late, or fails its CRC-32 (nothing is set then): read the member with
 * io_archive_member_file (a gzip stream: io_archive_each without the
 * flag), which reads or fails as without deferral. */
int io_deflated_inflate(const io_deflated *d, uint8_t **out);
/* The same into `out`, d->size bytes the caller owns (no NUL is added);
 * on failure their content is undefined. */
int io_deflated_inflate_into(const io_deflated *d, uint8_t *out);

/* Whether io_archive_each with IO_EACH_DEFER_INFLATE would defer the gzip
 * stream data: 1 with what it would yield (*out, and its first bytes in
 * head: *head_len of them, at most IO_SNIFF_PREFIX_BYTES), else 0.
 * Inflates only those first bytes. */
int io_gzip_deferred(const uint8_t *data, size_t len, const io_limits *l, io_deflated *out,
                     uint8_t *head, size_t *head_len);

/* Calls fn once with member number `index` (io_member.index) of the zip
 * or tar at `path`, read through libarchive alone, under `limits` as for
 * that member alone; an error if it cannot be read. */
int io_archive_member_file(io_trace_type type, const char *path, uint64_t size,
                           uint32_t index, const io_limits *limits, io_member_fn fn,
                           void *ctx, base_error *err);

/* True if any '/'-separated component of path starts with '.' and is not
 * "." or "..". NULL is not hidden. */
bool io_is_hidden_path(const char *path);

/* Before unpacking a container found at nesting `depth` (1 = the input file
 * itself, 2 = a container inside it, ...): WEFT_OK or WEFT_ELIMIT with
 * "archive nesting depth D exceeds limit of N". */
int io_depth_check(uint32_t depth, const io_limits *limits, base_error *err);

/* ---- processing order ----
 * Members of one archive are processed in order of
 *   (priority(type), name (byte-wise, NULL = ""), index)
 * with priority: perfetto_manifest -1 (must be parsed before the files it
 * describes), proto 0 (may carry clock snapshots the others need),
 * containers 1 (gzip, zip, tar, zstd, ctrace), everything else 2,
 * symbols 3 (last). Types are sniffed on the *decompressed member bytes*, so
 * a gzipped manifest ("meta.json.gz") is a container and sorts after protos.
 * Perfetto's trace ids follow archive order; processing_order follows this. */
typedef struct io_order_entry {
  const char *name;
  io_trace_type type;
  uint32_t index; /* archive position: the final tie-break */
  void *user;     /* carried along, untouched */
} io_order_entry;

int io_archive_priority(io_trace_type type);
/* Sorts entries in place into processing order (no allocation). */
void io_order_members(io_order_entry *entries, size_t count);

#endif
