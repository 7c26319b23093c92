/* proto_packets: TracePacket framing of a Perfetto `Trace` and inflation of
 * `compressed_packets`.
 *
 * A Trace is a sequence of field-1 length-delimited TracePackets. This module
 * owns only the framing:
 *  - proto_packets_*: iterate the packets of an in-memory Trace buffer,
 *    zero-copy (packet spans point into the caller's buffer);
 *  - proto_packet_stream_*: the same over data arriving in chunks of any size
 *    (only a packet straddling two chunks is copied, bounded by a cap);
 *  - proto_inflate: decompress a compressed_packets payload (zlib stream as
 *    written by Perfetto's tracing service; gzip and raw deflate accepted too)
 *    into a caller-owned buffer, bounded by a byte cap and a ratio cap. The
 *    result is itself a Trace: iterate it with proto_packets_*. Callers must
 *    not inflate packets found inside an inflated buffer again without a
 *    depth bound of their own.
 *
 * Error policy (iteration never reads out of bounds and never aborts):
 *  - a top-level field other than field 1 (or field 1 with a non-LEN wire
 *    type) is skipped and reported as PROTO_PACKETS_ERR_UNEXPECTED_FIELD with
 *    its offset; iteration can continue with the next call;
 *  - bytes that are not a valid field (bad tag, bad wire type, over-long
 *    varint) are PROTO_PACKETS_ERR_GARBAGE and stop iteration (sticky);
 *  - a final field cut short is PROTO_PACKETS_ERR_TRUNCATED (sticky).
 * All offsets are byte offsets from the start of the buffer/stream plus the
 * base_offset given at init. */
#ifndef WEFT_IMPORT_PROTO_PACKETS_H
#define WEFT_IMPORT_PROTO_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#include "base/base.h"
#include "import/proto/proto_wire.h"

enum proto_packets_error {
  PROTO_PACKETS_ERR_NONE = 0,
  PROTO_PACKETS_ERR_UNEXPECTED_FIELD, /* recoverable: skipped */
  PROTO_PACKETS_ERR_GARBAGE,          /* fatal */
  PROTO_PACKETS_ERR_TRUNCATED         /* fatal */
};

/* One TracePacket: its payload and where its tag starts. */
typedef struct proto_packet {
  proto_span data;
  uint64_t offset;
} proto_packet;

typedef struct proto_packet_iter {
  proto_reader reader;
  uint64_t base_offset;
  uint8_t error;         /* enum proto_packets_error of the last failure */
  uint64_t error_offset; /* offset (incl. base) of the last failure */
  uint32_t error_field;  /* field number, for UNEXPECTED_FIELD */
} proto_packet_iter;

void proto_packets_init(proto_packet_iter *it, const void *data, size_t len,
                        uint64_t base_offset);

/* Returns 1 with *out set, 0 at the clean end, or WEFT_EPARSE with it->error,
 * it->error_offset and err filled. After ERR_UNEXPECTED_FIELD the next call
 * continues after the skipped field; after GARBAGE/TRUNCATED it returns the
 * same error again. */
int proto_packets_next(proto_packet_iter *it, proto_packet *out,
                       base_error *err);

/* ---- streaming ---- */

/* Called for each packet; a non-zero return stops feeding and is returned by
 * proto_packet_stream_feed. The packet's bytes are valid only during the
 * call. */
typedef int (*proto_packet_fn)(void *ctx, const proto_packet *packet);

typedef struct proto_packet_stream {
  base_buf carry;             /* the start of a field cut by a chunk end */
  uint64_t offset;            /* stream offset of the first carried byte, or
                                 else of the next unconsumed byte */
  uint64_t max_field_bytes;   /* cap on one top-level field (tag included) */
  uint64_t unexpected_fields; /* skipped non-packet top-level fields */
  uint64_t first_unexpected_offset;
  uint32_t first_unexpected_field;
  int status;                 /* sticky failure */
} proto_packet_stream;

/* max_field_bytes: a packet larger than this fails with WEFT_ELIMIT (0 means
 * 256 MiB). */
void proto_packet_stream_init(proto_packet_stream *s, uint64_t max_field_bytes);
/* Feeds the next chunk; calls fn for every complete packet. Returns WEFT_OK,
 * fn's non-zero result, WEFT_EPARSE (garbage), WEFT_ELIMIT or WEFT_ENOMEM.
 * Unexpected top-level fields are counted, not failed. */
int proto_packet_stream_feed(proto_packet_stream *s, const void *data,
                             size_t len, proto_packet_fn fn, void *ctx,
                             base_error *err);
/* Ends the stream: WEFT_EPARSE ("truncated") if a partial field remains. */
int proto_packet_stream_finish(proto_packet_stream *s, base_error *err);
void proto_packet_stream_free(proto_packet_stream *s);

/* ---- compressed_packets ---- */

typedef struct proto_inflate_limits {
  uint64_t max_bytes; /* max decompressed bytes; 0 = unlimited */
  uint32_t max_ratio; /* max decompressed/compressed; 0 = unlimited */
} proto_inflate_limits;

/* Inflates `data` into `out` (reset first; caller-owned, reusable; its own
 * max_len also applies). Returns WEFT_OK, WEFT_ELIMIT if a limit would be
 * exceeded, WEFT_EPARSE for corrupt or truncated streams, WEFT_ENOMEM. zlib's
 * allocations go through base_malloc. */
int proto_inflate(const uint8_t *data, size_t len,
                  const proto_inflate_limits *limits, base_buf *out,
                  base_error *err);

/* If the packet carries compressed_packets (TracePacket field 50), sets *out
 * to its payload and returns 1; 0 if absent; WEFT_EPARSE if malformed. */
int proto_packet_compressed_payload(const proto_packet *packet,
                                    proto_span *out);

#endif
