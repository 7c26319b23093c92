/* proto_packets: TracePacket framing, streaming tokenizer, inflation. */
#include "import/proto/proto_packets.h"

#include <inttypes.h>
#include <zlib.h>

#include "import/proto/proto_fields.h"

#define PROTO_STREAM_DEFAULT_MAX ((uint64_t)256 << 20)

/* ---- in-memory iteration ---- */

void proto_packets_init(proto_packet_iter *it, const void *data, size_t len,
                        uint64_t base_offset) {
  proto_reader_init(&it->reader, data, len);
  it->base_offset = base_offset;
  it->error = PROTO_PACKETS_ERR_NONE;
  it->error_offset = 0;
  it->error_field = 0;
}

static int proto_packets_fail_reader(proto_packet_iter *it, base_error *err) {
  const proto_reader *r = &it->reader;
  it->error_offset = it->base_offset + r->error_offset;
  bool truncated = r->error == PROTO_ERR_TRUNCATED ||
                   r->error == PROTO_ERR_LENGTH_PAST_END;
  it->error = truncated ? PROTO_PACKETS_ERR_TRUNCATED
                        : PROTO_PACKETS_ERR_GARBAGE;
  if (truncated)
    return base_error_set(err, WEFT_EPARSE,
                          "trace truncated: last packet at offset %" PRIu64
                          " is incomplete",
                          it->error_offset);
  return base_error_set(err, WEFT_EPARSE,
                        "not a valid trace: %s at offset %" PRIu64,
                        proto_wire_error_str((enum proto_wire_error)r->error),
                        it->error_offset);
}

int proto_packets_next(proto_packet_iter *it, proto_packet *out,
                       base_error *err) {
  proto_reader *r = &it->reader;
  size_t start = proto_reader_offset(r);
  proto_field f;
  int rc = proto_reader_next(r, &f);
  if (rc == 0) return 0;
  if (rc < 0) return proto_packets_fail_reader(it, err);
  if (f.number == PROTO_TRACE_PACKET && f.wire_type == PROTO_WIRE_LEN) {
    out->data = f.span;
    out->offset = it->base_offset + start;
    return 1;
  }
  it->error = PROTO_PACKETS_ERR_UNEXPECTED_FIELD;
  it->error_offset = it->base_offset + start;
  it->error_field = f.number;
  return base_error_set(err, WEFT_EPARSE,
                        "unexpected top-level field %u (wire type %u) at "
                        "offset %" PRIu64 " skipped",
                        f.number, f.wire_type, it->error_offset);
}

/* ---- streaming ---- */

void proto_packet_stream_init(proto_packet_stream *s,
                              uint64_t max_field_bytes) {
  memset(s, 0, sizeof *s);
  s->max_field_bytes = max_field_bytes ? max_field_bytes
                                       : PROTO_STREAM_DEFAULT_MAX;
  base_buf_init(&s->carry, 0);
}

void proto_packet_stream_free(proto_packet_stream *s) {
  base_buf_free(&s->carry);
}

/* Total size (tag included) of the top-level field starting at p: 1 with
 * *total, 0 if more bytes are needed to know, WEFT_EPARSE if garbage. */
static int proto_field_total(const uint8_t *p, const uint8_t *end,
                             uint64_t *total) {
  uint64_t tag, len;
  int n = proto_varint_decode(p, end, &tag);
  if (n < 0) return WEFT_EPARSE;
  if (n == 0) return 0;
  uint64_t number = tag >> 3;
  if (number == 0 || number > PROTO_MAX_FIELD_NUMBER) return WEFT_EPARSE;
  const uint8_t *q = p + n;
  switch (tag & 7) {
    case PROTO_WIRE_VARINT: {
      int m = proto_varint_skip(q, end);
      if (m <= 0) return m;
      *total = (uint64_t)n + (uint64_t)m;
      return 1;
    }
    case PROTO_WIRE_FIXED64: *total = (uint64_t)n + 8; return 1;
    case PROTO_WIRE_FIXED32: *total = (uint64_t)n + 4; return 1;
    case PROTO_WIRE_LEN: {
      int m = proto_varint_decode(q, end, &len);
      if (m <= 0) return m;
      if (len > UINT64_MAX - 32) return WEFT_EPARSE;
      *total = (uint64_t)n + (uint64_t)m + len;
      return 1;
    }
    default:
      return WEFT_EPARSE;
  }
}

static int proto_stream_fail(proto_packet_stream *s, int code,
                             base_error *err, const char *what,
                             uint64_t offset) {
  s->status = code;
  return base_error_set(err, code, "%s at offset %" PRIu64, what, offset);
}

/* Handles one complete top-level field of `len` bytes at stream `offset`. */
static int proto_stream_emit(proto_packet_stream *s, const uint8_t *p,
                             size_t len, uint64_t offset, proto_packet_fn fn,
                             void *ctx, base_error *err) {
  proto_packet_iter it;
  proto_packets_init(&it, p, len, offset);
  proto_packet pkt;
  int rc = proto_packets_next(&it, &pkt, err);
  if (rc == 1) return fn(ctx, &pkt);
  if (it.error == PROTO_PACKETS_ERR_UNEXPECTED_FIELD) {
    if (s->unexpected_fields++ == 0) {
      s->first_unexpected_offset = offset;
      s->first_unexpected_field = it.error_field;
    }
    base_error_clear(err);
    return WEFT_OK;
  }
  s->status = rc < 0 ? rc : WEFT_EPARSE;
  return s->status;
}

/* Feeds bytes into a non-empty carry. Consumes from *data and *len; emits the
 * carried field once complete. */
static int proto_stream_fill_carry(proto_packet_stream *s, const uint8_t **data,
                                   size_t *len, proto_packet_fn fn, void *ctx,
                                   base_error *err) {
  while (*len > 0) {
    const uint8_t *c = (const uint8_t *)s->carry.data;
    uint64_t total = 0;
    int rc = proto_field_total(c, c + s->carry.len, &total);
    if (rc < 0)
      return proto_stream_fail(s, WEFT_EPARSE, err, "not a valid trace",
                               s->offset);
    if (rc == 1 && total > s->max_field_bytes)
      return proto_stream_fail(s, WEFT_ELIMIT, err, "packet too large",
                               s->offset);
    /* Header incomplete: add one byte at a time (a header is <= 15 bytes)
     * so the carry never takes bytes of the following field. */
    size_t want = rc == 0 ? 1 : (size_t)(total - s->carry.len);
    size_t take = want < *len ? want : *len;
    if ((rc = base_buf_append(&s->carry, *data, take)) != 0)
      return proto_stream_fail(s, rc, err, "cannot buffer packet", s->offset);
    *data += take;
    *len -= take;
    if (total && s->carry.len == total) {
      rc = proto_stream_emit(s, (const uint8_t *)s->carry.data,
                             s->carry.len, s->offset, fn, ctx, err);
      s->offset += s->carry.len;
      base_buf_reset(&s->carry);
      return rc;
    }
  }
  return WEFT_OK;
}

int proto_packet_stream_feed(proto_packet_stream *s, const void *data,
                             size_t len, proto_packet_fn fn, void *ctx,
                             base_error *err) {
  if (s->status) return s->status;
  if (!data) len = 0;
  const uint8_t *p = (const uint8_t *)data;
  int rc;
  if (s->carry.len &&
      (rc = proto_stream_fill_carry(s, &p, &len, fn, ctx, err)) != 0)
    return rc;
  while (len > 0) {
    uint64_t total = 0;
    rc = proto_field_total(p, p + len, &total);
    if (rc < 0)
      return proto_stream_fail(s, WEFT_EPARSE, err, "not a valid trace",
                               s->offset);
    if (rc == 1 && total > s->max_field_bytes)
      return proto_stream_fail(s, WEFT_ELIMIT, err, "packet too large",
                               s->offset);
    if (rc == 0 || total > len) {
      if ((rc = base_buf_append(&s->carry, p, len)) != 0)
        return proto_stream_fail(s, rc, err, "cannot buffer packet",
                                 s->offset);
      return WEFT_OK;
    }
    rc = proto_stream_emit(s, p, (size_t)total, s->offset, fn, ctx, err);
    s->offset += total;
    p += total;
    len -= (size_t)total;
    if (rc) return rc;
  }
  return WEFT_OK;
}

int proto_packet_stream_finish(proto_packet_stream *s, base_error *err) {
  if (s->status) return s->status;
  if (s->carry.len)
    return proto_stream_fail(s, WEFT_EPARSE, err,
                             "trace truncated: last packet is incomplete",
                             s->offset);
  return WEFT_OK;
}

/* ---- inflation ---- */

static voidpf proto_zalloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return base_calloc(items, size);
}

static void proto_zfree(voidpf opaque, voidpf ptr) {
  (void)opaque;
  base_free(ptr);
}

/* Effective cap on output bytes (UINT64_MAX if none). */
static uint64_t proto_inflate_cap(const proto_inflate_limits *lim, size_t len,
                                  bool *by_ratio) {
  uint64_t cap = UINT64_MAX;
  *by_ratio = false;
  if (lim && lim->max_bytes) cap = lim->max_bytes;
  if (lim && lim->max_ratio) {
    uint64_t r = lim->max_ratio;
    uint64_t by = (uint64_t)len > UINT64_MAX / r ? UINT64_MAX : (uint64_t)len * r;
    if (by < cap) {
      cap = by;
      *by_ratio = true;
    }
  }
  return cap;
}

/* Grows out so at least one free byte is available, never beyond cap+1. */
static int proto_inflate_grow(base_buf *out, uint64_t cap) {
  size_t want = out->cap < 4096 ? 4096
                : out->cap > SIZE_MAX / 2 ? SIZE_MAX : out->cap * 2;
  uint64_t hard = cap == UINT64_MAX ? UINT64_MAX : cap + 2; /* +1 +NUL */
  if (hard > (uint64_t)out->max_len + 1) hard = (uint64_t)out->max_len + 1;
  if ((uint64_t)want > hard) want = (size_t)hard;
  if (want <= out->len + 1) return WEFT_ELIMIT;
  char *grown = base_realloc(out->data, want); /* exact: no overshoot */
  if (!grown) return WEFT_ENOMEM;
  out->data = grown;
  out->cap = want;
  return WEFT_OK;
}

static int proto_inflate_run(z_stream *zs, const uint8_t *data, size_t len,
                             uint64_t cap, base_buf *out) {
  zs->next_in = (Bytef *)(uintptr_t)data;
  zs->avail_in = 0;
  size_t left = len;
  for (;;) {
    if (zs->avail_in == 0 && left) {
      uInt chunk = left > (1u << 30) ? (1u << 30) : (uInt)left;
      zs->avail_in = chunk;
      left -= chunk;
    }
    if (out->cap <= out->len + 1) {
      int rc = proto_inflate_grow(out, cap);
      if (rc) return rc;
    }
    size_t room = out->cap - out->len - 1;
    if (room > (1u << 30)) room = 1u << 30;
    zs->next_out = (Bytef *)out->data + out->len;
    zs->avail_out = (uInt)room;
    int z = inflate(zs, Z_NO_FLUSH);
    out->len += room - zs->avail_out;
    out->data[out->len] = '\0';
    if ((uint64_t)out->len > cap) return WEFT_ELIMIT;
    if (z == Z_STREAM_END) return WEFT_OK;
    if (z == Z_MEM_ERROR) return WEFT_ENOMEM;
    if (z == Z_BUF_ERROR && zs->avail_in == 0 && left == 0)
      return WEFT_EPARSE; /* truncated */
    if (z != Z_OK && z != Z_BUF_ERROR) return WEFT_EPARSE;
  }
}

/* zlib/gzip header (auto-detected) or raw deflate. */
static int proto_inflate_window_bits(const uint8_t *data, size_t len) {
  if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) return 15 + 32;
  if (len >= 2 && (data[0] & 0x0f) == 8 &&
      ((unsigned)data[0] << 8 | data[1]) % 31 == 0)
    return 15 + 32;
  return -15;
}

int proto_inflate(const uint8_t *data, size_t len,
                  const proto_inflate_limits *limits, base_buf *out,
                  base_error *err) {
  base_buf_reset(out);
  if (!data || len == 0)
    return base_error_set(err, WEFT_EPARSE, "empty compressed packets");
  bool by_ratio;
  uint64_t cap = proto_inflate_cap(limits, len, &by_ratio);
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  zs.zalloc = proto_zalloc;
  zs.zfree = proto_zfree;
  int z = inflateInit2(&zs, proto_inflate_window_bits(data, len));
  if (z != Z_OK)
    return base_error_set(err, z == Z_MEM_ERROR ? WEFT_ENOMEM : WEFT_EPARSE,
                          "cannot start inflating compressed packets");
  int rc = proto_inflate_run(&zs, data, len, cap, out);
  inflateEnd(&zs);
  if (rc == WEFT_OK) return WEFT_OK;
  base_buf_reset(out);
  if (rc == WEFT_ELIMIT) {
    if ((uint64_t)out->max_len < cap)
      return base_error_set(err, rc, "compressed packets exceed buffer limit");
    return base_error_set(err, rc,
                          "compressed packets exceed the %s limit (%" PRIu64
                          " bytes from %zu compressed)",
                          by_ratio ? "compression ratio" : "decompressed size",
                          cap, len);
  }
  if (rc == WEFT_ENOMEM)
    return base_error_set(err, rc, "out of memory inflating packets");
  return base_error_set(err, rc, "corrupt or truncated compressed packets");
}

int proto_packet_compressed_payload(const proto_packet *packet,
                                    proto_span *out) {
  proto_field f;
  int rc = proto_find_first(packet->data.data, packet->data.len,
                            PROTO_TRACE_PACKET_COMPRESSED_PACKETS, &f);
  if (rc != 1) return rc;
  if (f.wire_type != PROTO_WIRE_LEN) return WEFT_EPARSE;
  *out = f.span;
  return 1;
}
