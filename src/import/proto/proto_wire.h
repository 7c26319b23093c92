/* proto_wire: a zero-copy protobuf wire-format decoder (plus a tiny encoder).
 *
 * Owns nothing: a proto_reader walks a caller-owned byte range and yields one
 * proto_field at a time; length-delimited payloads are spans pointing into the
 * caller's bytes (valid as long as those bytes are). No allocation, ever, on
 * the decode side.
 *
 * Invariants:
 *  - Every read is bounds-checked against the range given to init; malformed
 *    input (varint > 10 bytes, truncated varint/fixed, length past the end,
 *    field number 0 or > 2^29-1, wire types 3/4 (deprecated groups), 6, 7)
 *    stops the reader with a sticky WEFT_EPARSE and a proto_wire_error kind
 *    plus the byte offset of the offending field's tag.
 *  - A varint's 10th byte must not have its continuation bit set; bits beyond
 *    64 are discarded (like the reference implementation).
 *  - The small hot functions are static inline here; proto_wire.c holds the
 *    cold paths (error strings, find helpers, encoder).
 */
#ifndef WEFT_IMPORT_PROTO_WIRE_H
#define WEFT_IMPORT_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

enum proto_wire_type {
  PROTO_WIRE_VARINT = 0,
  PROTO_WIRE_FIXED64 = 1,
  PROTO_WIRE_LEN = 2,
  PROTO_WIRE_SGROUP = 3, /* deprecated; rejected */
  PROTO_WIRE_EGROUP = 4, /* deprecated; rejected */
  PROTO_WIRE_FIXED32 = 5
};

#define PROTO_MAX_FIELD_NUMBER 0x1FFFFFFFu
#define PROTO_MAX_VARINT_BYTES 10

/* Why a reader stopped (PROTO_ERR_NONE while it is healthy). */
enum proto_wire_error {
  PROTO_ERR_NONE = 0,
  PROTO_ERR_VARINT_TOO_LONG,  /* continuation bit set on the 10th byte */
  PROTO_ERR_TRUNCATED,        /* input ends inside a tag, varint or fixed */
  PROTO_ERR_LENGTH_PAST_END,  /* length-delimited field longer than input */
  PROTO_ERR_FIELD_ZERO,       /* field number 0 */
  PROTO_ERR_FIELD_TOO_BIG,    /* field number > 2^29-1 */
  PROTO_ERR_GROUP,            /* wire type 3 or 4 */
  PROTO_ERR_BAD_WIRE_TYPE     /* wire type 6 or 7 */
};

/* A byte range inside the caller's buffer. */
typedef struct proto_span {
  const uint8_t *data;
  size_t len;
} proto_span;

/* One decoded field. For VARINT `value` is the raw 64-bit varint; for FIXED32
 * and FIXED64 it holds the raw little-endian bits; for LEN `span` is set and
 * `value` is the payload length. */
typedef struct proto_field {
  uint32_t number;
  uint8_t wire_type;
  uint64_t value;
  proto_span span;
} proto_field;

typedef struct proto_reader {
  const uint8_t *begin; /* start of the range (for offsets) */
  const uint8_t *pos;
  const uint8_t *end;
  int status;           /* WEFT_OK or WEFT_EPARSE (sticky) */
  uint8_t error;        /* enum proto_wire_error */
  size_t error_offset;  /* offset from begin of the failing field's tag */
} proto_reader;

/* ---- varints and scalar helpers ---- */

/* Decodes a varint at *pp (< end). Returns the number of bytes consumed
 * (1..10) and stores the value, or 0 if truncated and -1 if longer than 10
 * bytes. Does not advance *pp. */
static inline int proto_varint_decode(const uint8_t *p, const uint8_t *end,
                                      uint64_t *out) {
  if (p < end && p[0] < 0x80) {
    *out = p[0];
    return 1;
  }
  uint64_t v = 0;
  size_t avail = (size_t)(end - p);
  if (avail >= PROTO_MAX_VARINT_BYTES) {
    /* Room for the longest varint: the first eight bytes at once, their
     * 7-bit groups gathered without a branch per byte. */
    uint64_t w;
    memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t stops = ~w & 0x8080808080808080ULL;
    if (stops) {
      int n = (__builtin_ctzll(stops) >> 3) + 1;
      uint64_t x = n == 8 ? w : w & ((1ULL << (8 * n)) - 1);
      *out = (x & 0x7fULL) | ((x >> 1) & (0x7fULL << 7)) | ((x >> 2) & (0x7fULL << 14)) |
             ((x >> 3) & (0x7fULL << 21)) | ((x >> 4) & (0x7fULL << 28)) |
             ((x >> 5) & (0x7fULL << 35)) | ((x >> 6) & (0x7fULL << 42)) |
             ((x >> 7) & (0x7fULL << 49));
      return n;
    }
#endif
    for (int i = 0; i < PROTO_MAX_VARINT_BYTES; i++) {
      uint8_t b = p[i];
      v |= (uint64_t)(b & 0x7F) << (7 * i);
      if (b < 0x80) {
        *out = v;
        return i + 1;
      }
    }
    return -1;
  }
  for (size_t i = 0; i < avail; i++) {
    uint8_t b = p[i];
    v |= (uint64_t)(b & 0x7F) << (7 * i);
    if (b < 0x80) {
      *out = v;
      return (int)i + 1;
    }
  }
  return 0;
}

/* Skips a varint; same return convention as proto_varint_decode. */
static inline int proto_varint_skip(const uint8_t *p, const uint8_t *end) {
  size_t avail = (size_t)(end - p);
  size_t lim = avail < PROTO_MAX_VARINT_BYTES ? avail : PROTO_MAX_VARINT_BYTES;
  for (size_t i = 0; i < lim; i++)
    if (p[i] < 0x80) return (int)i + 1;
  return avail < PROTO_MAX_VARINT_BYTES ? 0 : -1;
}

static inline int32_t proto_zigzag_decode32(uint32_t v) {
  return (int32_t)((v >> 1) ^ (~(v & 1) + 1));
}
static inline int64_t proto_zigzag_decode64(uint64_t v) {
  return (int64_t)((v >> 1) ^ (~(v & 1) + 1));
}
static inline uint32_t proto_zigzag_encode32(int32_t v) {
  return ((uint32_t)v << 1) ^ (uint32_t)(0 - ((uint32_t)v >> 31));
}
static inline uint64_t proto_zigzag_encode64(int64_t v) {
  return ((uint64_t)v << 1) ^ (uint64_t)(0 - ((uint64_t)v >> 63));
}

static inline uint32_t proto_load_le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static inline uint64_t proto_load_le64(const uint8_t *p) {
  return (uint64_t)proto_load_le32(p) | (uint64_t)proto_load_le32(p + 4) << 32;
}

/* Typed views of a field's value (the caller checks the wire type). int32 and
 * enum fields are sign-extended varints: truncation to 32 bits is intended. */
static inline int32_t proto_field_int32(const proto_field *f) {
  return (int32_t)(uint32_t)f->value;
}
static inline int64_t proto_field_int64(const proto_field *f) {
  return (int64_t)f->value;
}
static inline uint32_t proto_field_uint32(const proto_field *f) {
  return (uint32_t)f->value;
}
static inline int32_t proto_field_sint32(const proto_field *f) {
  return proto_zigzag_decode32((uint32_t)f->value);
}
static inline int64_t proto_field_sint64(const proto_field *f) {
  return proto_zigzag_decode64(f->value);
}
static inline bool proto_field_bool(const proto_field *f) {
  return f->value != 0;
}
static inline double proto_field_double(const proto_field *f) {
  double d;
  memcpy(&d, &f->value, sizeof d);
  return d;
}
static inline float proto_field_float(const proto_field *f) {
  uint32_t bits = (uint32_t)f->value;
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

/* ---- the field reader ---- */

static inline void proto_reader_init(proto_reader *r, const void *data,
                                     size_t len) {
  r->begin = r->pos = (const uint8_t *)data;
  r->end = data ? r->begin + len : r->begin;
  r->status = WEFT_OK;
  r->error = PROTO_ERR_NONE;
  r->error_offset = 0;
}

static inline void proto_reader_init_span(proto_reader *r, proto_span s) {
  proto_reader_init(r, s.data, s.len);
}

/* Marks the reader failed; returns WEFT_EPARSE. Cold path in proto_wire.c. */
int proto_reader_fail(proto_reader *r, const uint8_t *field_start,
                      enum proto_wire_error why);

/* proto_reader_next for any field (out of line, in proto_wire.c). */
int proto_reader_next_general(proto_reader *r, proto_field *f);

/* Reads the next field. Returns 1 and fills *f, 0 at the clean end of the
 * range, or WEFT_EPARSE (sticky: later calls return it again). Inline: the
 * common fields, a one- or two-byte tag (fields 1-2047) with a varint or a
 * length that fits; everything else, errors included, goes to
 * proto_reader_next_general, which reads those the same way. */
static inline int proto_reader_next(proto_reader *r, proto_field *f) {
  const uint8_t *p = r->pos, *end = r->end;
  if (p >= end) return r->status; /* the end, clean or after an error */
  if (r->status || end - p < 3 || (p[0] >= 0x80 && p[1] >= 0x80))
    return proto_reader_next_general(r, f);
  uint32_t tag = p[0];
  const uint8_t *q = p + 1;
  if (tag >= 0x80) tag = (tag & 0x7f) | (uint32_t)*q++ << 7;
  if (tag < 8) return proto_reader_next_general(r, f); /* field 0 */
  if ((tag & 7) == PROTO_WIRE_VARINT) {
    int n = proto_varint_decode(q, end, &f->value);
    if (n > 0) {
      f->number = tag >> 3;
      f->wire_type = PROTO_WIRE_VARINT;
      r->pos = q + n;
      return 1;
    }
  } else if ((tag & 7) == PROTO_WIRE_LEN) {
    uint64_t len;
    int n = proto_varint_decode(q, end, &len);
    if (n > 0 && len <= (uint64_t)(end - q - n)) {
      f->number = tag >> 3;
      f->wire_type = PROTO_WIRE_LEN;
      f->value = len;
      f->span.data = q + n;
      f->span.len = (size_t)len;
      r->pos = q + n + len;
      return 1;
    }
  }
  return proto_reader_next_general(r, f);
}


/* Offset of the reader's position from the start of its range. */
static inline size_t proto_reader_offset(const proto_reader *r) {
  return (size_t)(r->pos - r->begin);
}

/* Human-readable name of an error kind ("varint longer than 10 bytes"...). */
const char *proto_wire_error_str(enum proto_wire_error e);

/* Fills err from a failed reader: "<what> at offset N" (offset shifted by
 * base_offset, for nested ranges). Returns r->status. */
int proto_reader_error(const proto_reader *r, size_t base_offset,
                       base_error *err);

/* ---- find helpers ----
 * Scan a message for field `number` without decoding the others (varints are
 * skipped, not decoded). Return 1 if found (fills *out), 0 if absent,
 * WEFT_EPARSE if the bytes up to the match (first) or anywhere (last) are
 * malformed. `_first` stops at the first occurrence (fastest); `_last`
 * returns the last one (protobuf "last wins" semantics for scalars). */
int proto_find_first(const uint8_t *data, size_t len, uint32_t number,
                     proto_field *out);
int proto_find_last(const uint8_t *data, size_t len, uint32_t number,
                    proto_field *out);
/* The last varint field `number` of msg, or 0; *has (may be NULL): whether
 * there is one (a field of another wire type is none). */
uint64_t proto_last_varint(proto_span msg, uint32_t number, int *has);

/* ---- packed repeated fields ----
 * Iterate the payload of a packed field (a LEN field). */
typedef struct proto_packed_iter {
  const uint8_t *pos;
  const uint8_t *end;
  int status; /* WEFT_OK or WEFT_EPARSE */
} proto_packed_iter;

static inline void proto_packed_init(proto_packed_iter *it, proto_span s) {
  it->pos = s.data;
  it->end = s.data ? s.data + s.len : NULL;
  it->status = WEFT_OK;
}

/* Next varint: 1 with *out, 0 at end, WEFT_EPARSE (sticky) on a truncated or
 * over-long varint. */
static inline int proto_packed_next_varint(proto_packed_iter *it,
                                           uint64_t *out) {
  if (it->status) return it->status;
  if (it->pos >= it->end) return 0;
  int n = proto_varint_decode(it->pos, it->end, out);
  if (n <= 0) return it->status = WEFT_EPARSE;
  it->pos += n;
  return 1;
}

/* Next fixed32 / fixed64; a trailing partial element is WEFT_EPARSE. */
static inline int proto_packed_next_fixed32(proto_packed_iter *it,
                                            uint32_t *out) {
  if (it->status) return it->status;
  if (it->pos >= it->end) return 0;
  if (it->end - it->pos < 4) return it->status = WEFT_EPARSE;
  *out = proto_load_le32(it->pos);
  it->pos += 4;
  return 1;
}
static inline int proto_packed_next_fixed64(proto_packed_iter *it,
                                            uint64_t *out) {
  if (it->status) return it->status;
  if (it->pos >= it->end) return 0;
  if (it->end - it->pos < 8) return it->status = WEFT_EPARSE;
  *out = proto_load_le64(it->pos);
  it->pos += 8;
  return 1;
}

/* Number of varints in a packed payload (counts terminator bytes); returns
 * WEFT_EPARSE if the payload does not end on a varint boundary or holds a
 * varint longer than 10 bytes. */
int proto_packed_count_varints(proto_span s, size_t *count);

/* ---- encoder (tests, synthetic data; appends to a base_buf) ----
 * Each returns WEFT_OK or the base_buf error (WEFT_ENOMEM / WEFT_ELIMIT). */
int proto_put_varint(base_buf *b, uint64_t v);
int proto_put_tag(base_buf *b, uint32_t number, enum proto_wire_type type);
int proto_put_varint_field(base_buf *b, uint32_t number, uint64_t v);
int proto_put_sint_field(base_buf *b, uint32_t number, int64_t v);
int proto_put_fixed32_field(base_buf *b, uint32_t number, uint32_t v);
int proto_put_fixed64_field(base_buf *b, uint32_t number, uint64_t v);
int proto_put_double_field(base_buf *b, uint32_t number, double v);
int proto_put_bytes_field(base_buf *b, uint32_t number, const void *data,
                          size_t len);
int proto_put_string_field(base_buf *b, uint32_t number, const char *s);

#endif
