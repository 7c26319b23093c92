/* proto_wire: cold paths of the decoder (errors, find helpers) and the
 * encoder used by tests and synthetic data. */
#include "import/proto/proto_wire.h"

int proto_reader_fail(proto_reader *r, const uint8_t *field_start,
                      enum proto_wire_error why) {
  r->status = WEFT_EPARSE;
  r->error = (uint8_t)why;
  r->error_offset = (size_t)(field_start - r->begin);
  return WEFT_EPARSE;
}

const char *proto_wire_error_str(enum proto_wire_error e) {
  switch (e) {
    case PROTO_ERR_NONE: return "no error";
    case PROTO_ERR_VARINT_TOO_LONG: return "varint longer than 10 bytes";
    case PROTO_ERR_TRUNCATED: return "truncated field";
    case PROTO_ERR_LENGTH_PAST_END: return "length-delimited field past the end";
    case PROTO_ERR_FIELD_ZERO: return "field number 0";
    case PROTO_ERR_FIELD_TOO_BIG: return "field number too large";
    case PROTO_ERR_GROUP: return "deprecated group wire type";
    case PROTO_ERR_BAD_WIRE_TYPE: return "invalid wire type";
  }
  return "unknown error";
}

int proto_reader_error(const proto_reader *r, size_t base_offset,
                       base_error *err) {
  if (!r->status) return WEFT_OK;
  return base_error_set(err, r->status, "malformed protobuf: %s at offset %zu",
                        proto_wire_error_str((enum proto_wire_error)r->error),
                        base_offset + r->error_offset);
}

/* Skips one field whose tag starts at p; returns the position after it, or
 * NULL if malformed. Sets *number and *type from the tag. */
static const uint8_t *proto_skip_field(const uint8_t *p, const uint8_t *end,
                                       uint32_t *number, uint8_t *type) {
  uint64_t tag;
  int n = proto_varint_decode(p, end, &tag);
  if (n <= 0) return NULL;
  uint64_t num = tag >> 3;
  if (num == 0 || num > PROTO_MAX_FIELD_NUMBER) return NULL;
  *number = (uint32_t)num;
  *type = (uint8_t)(tag & 7);
  p += n;
  switch (*type) {
    case PROTO_WIRE_VARINT:
      n = proto_varint_skip(p, end);
      return n <= 0 ? NULL : p + n;
    case PROTO_WIRE_FIXED64:
      return end - p < 8 ? NULL : p + 8;
    case PROTO_WIRE_FIXED32:
      return end - p < 4 ? NULL : p + 4;
    case PROTO_WIRE_LEN: {
      uint64_t len;
      n = proto_varint_decode(p, end, &len);
      if (n <= 0) return NULL;
      p += n;
      return len > (uint64_t)(end - p) ? NULL : p + len;
    }
    default:
      return NULL;
  }
}

static int proto_find(const uint8_t *data, size_t len, uint32_t number,
                      proto_field *out, bool want_last) {
  if (!data) return 0;
  const uint8_t *p = data, *end = data + len;
  const uint8_t *hit = NULL;
  while (p < end) {
    uint32_t num;
    uint8_t type;
    const uint8_t *next = proto_skip_field(p, end, &num, &type);
    if (!next) return WEFT_EPARSE;
    if (num == number) {
      hit = p;
      if (!want_last) break;
    }
    p = next;
  }
  if (!hit) return 0;
  proto_reader r;
  proto_reader_init(&r, hit, (size_t)(end - hit));
  return proto_reader_next(&r, out);
}

int proto_find_first(const uint8_t *data, size_t len, uint32_t number,
                     proto_field *out) {
  return proto_find(data, len, number, out, false);
}

int proto_find_last(const uint8_t *data, size_t len, uint32_t number,
                    proto_field *out) {
  return proto_find(data, len, number, out, true);
}

uint64_t proto_last_varint(proto_span msg, uint32_t number, int *has) {
  proto_field fl;
  int found = proto_find_last(msg.data, msg.len, number, &fl) == 1 &&
              fl.wire_type == PROTO_WIRE_VARINT;
  if (has) *has = found;
  return found ? fl.value : 0;
}

int proto_packed_count_varints(proto_span s, size_t *count) {
  size_t n = 0, run = 0;
  for (size_t i = 0; i < s.len; i++) {
    if (s.data[i] < 0x80) {
      n++;
      run = 0;
    } else if (++run >= PROTO_MAX_VARINT_BYTES) {
      return WEFT_EPARSE;
    }
  }
  if (run) return WEFT_EPARSE;
  *count = n;
  return WEFT_OK;
}

/* ---- encoder ---- */

int proto_put_varint(base_buf *b, uint64_t v) {
  uint8_t tmp[PROTO_MAX_VARINT_BYTES];
  size_t n = 0;
  do {
    uint8_t byte = v & 0x7F;
    v >>= 7;
    tmp[n++] = byte | (v ? 0x80 : 0);
  } while (v);
  return base_buf_append(b, tmp, n);
}

int proto_put_tag(base_buf *b, uint32_t number, enum proto_wire_type type) {
  return proto_put_varint(b, ((uint64_t)number << 3) | (uint64_t)type);
}

int proto_put_varint_field(base_buf *b, uint32_t number, uint64_t v) {
  int rc = proto_put_tag(b, number, PROTO_WIRE_VARINT);
  return rc ? rc : proto_put_varint(b, v);
}

int proto_put_sint_field(base_buf *b, uint32_t number, int64_t v) {
  return proto_put_varint_field(b, number, proto_zigzag_encode64(v));
}

int proto_put_fixed32_field(base_buf *b, uint32_t number, uint32_t v) {
  uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                   (uint8_t)(v >> 24)};
  int rc = proto_put_tag(b, number, PROTO_WIRE_FIXED32);
  return rc ? rc : base_buf_append(b, le, sizeof le);
}

int proto_put_fixed64_field(base_buf *b, uint32_t number, uint64_t v) {
  uint8_t le[8];
  for (int i = 0; i < 8; i++) le[i] = (uint8_t)(v >> (8 * i));
  int rc = proto_put_tag(b, number, PROTO_WIRE_FIXED64);
  return rc ? rc : base_buf_append(b, le, sizeof le);
}

int proto_put_double_field(base_buf *b, uint32_t number, double v) {
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  return proto_put_fixed64_field(b, number, bits);
}

int proto_put_bytes_field(base_buf *b, uint32_t number, const void *data,
                          size_t len) {
  int rc = proto_put_tag(b, number, PROTO_WIRE_LEN);
  if (!rc) rc = proto_put_varint(b, len);
  if (!rc) rc = base_buf_append(b, data, len);
  return rc;
}

int proto_put_string_field(base_buf *b, uint32_t number, const char *s) {
  return proto_put_bytes_field(b, number, s, strlen(s));
}

int proto_reader_next_general(proto_reader *r, proto_field *f) {
  if (r->status) return r->status;
  const uint8_t *start = r->pos;
  if (start >= r->end) return 0;
  uint64_t tag;
  int n = proto_varint_decode(start, r->end, &tag);
  if (n <= 0)
    return proto_reader_fail(
        r, start, n == 0 ? PROTO_ERR_TRUNCATED : PROTO_ERR_VARINT_TOO_LONG);
  const uint8_t *p = start + n;
  uint64_t number = tag >> 3;
  if (number == 0) return proto_reader_fail(r, start, PROTO_ERR_FIELD_ZERO);
  if (number > PROTO_MAX_FIELD_NUMBER)
    return proto_reader_fail(r, start, PROTO_ERR_FIELD_TOO_BIG);
  f->number = (uint32_t)number;
  f->wire_type = (uint8_t)(tag & 7);
  switch (f->wire_type) {
    case PROTO_WIRE_VARINT:
      n = proto_varint_decode(p, r->end, &f->value);
      if (n <= 0)
        return proto_reader_fail(
            r, start, n == 0 ? PROTO_ERR_TRUNCATED : PROTO_ERR_VARINT_TOO_LONG);
      p += n;
      break;
    case PROTO_WIRE_FIXED64:
      if (r->end - p < 8)
        return proto_reader_fail(r, start, PROTO_ERR_TRUNCATED);
      f->value = proto_load_le64(p);
      p += 8;
      break;
    case PROTO_WIRE_FIXED32:
      if (r->end - p < 4)
        return proto_reader_fail(r, start, PROTO_ERR_TRUNCATED);
      f->value = proto_load_le32(p);
      p += 4;
      break;
    case PROTO_WIRE_LEN: {
      uint64_t len;
      n = proto_varint_decode(p, r->end, &len);
      if (n <= 0)
        return proto_reader_fail(
            r, start, n == 0 ? PROTO_ERR_TRUNCATED : PROTO_ERR_VARINT_TOO_LONG);
      p += n;
      if (len > (uint64_t)(r->end - p))
        return proto_reader_fail(r, start, PROTO_ERR_LENGTH_PAST_END);
      f->value = len;
      f->span.data = p;
      f->span.len = (size_t)len;
      p += len;
      break;
    }
    case PROTO_WIRE_SGROUP:
    case PROTO_WIRE_EGROUP:
      return proto_reader_fail(r, start, PROTO_ERR_GROUP);
    default:
      return proto_reader_fail(r, start, PROTO_ERR_BAD_WIRE_TYPE);
  }
  r->pos = p;
  return 1;
}
