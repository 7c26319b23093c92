/* Protobuf wire helpers for the RPC messages (rpc_wire.h). */
#include "rpc_wire.h"

#include <stdlib.h>
#include <string.h>

void rpc_buf_free(rpc_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->alloc = 0;
  b->failed = 0;
}

static int rpc_buf_reserve(rpc_buf *b, size_t more) {
  if (b->failed) return -1;
  if (more > SIZE_MAX - b->len || (b->cap && b->len + more > b->cap)) {
    b->failed = 1;
    return -1;
  }
  size_t need = b->len + more;
  if (need <= b->alloc) return 0;
  size_t grown = b->alloc ? b->alloc : 256;
  while (grown < need) grown = grown > SIZE_MAX / 2 ? need : grown * 2;
  uint8_t *p = realloc(b->data, grown);
  if (!p) {
    b->failed = 1;
    return -1;
  }
  b->data = p;
  b->alloc = grown;
  return 0;
}

void rpc_buf_append(rpc_buf *b, const void *data, size_t len) {
  if (len == 0 || rpc_buf_reserve(b, len)) return;
  memcpy(b->data + b->len, data, len);
  b->len += len;
}

size_t rpc_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

void rpc_buf_varint(rpc_buf *b, uint64_t v) {
  uint8_t tmp[10];
  size_t n = 0;
  while (v >= 0x80) {
    tmp[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  tmp[n++] = (uint8_t)v;
  rpc_buf_append(b, tmp, n);
}

void rpc_buf_tag(rpc_buf *b, uint32_t field, int wire_type) {
  rpc_buf_varint(b, (uint64_t)field << 3 | (uint64_t)wire_type);
}

void rpc_buf_field_varint(rpc_buf *b, uint32_t field, uint64_t v) {
  rpc_buf_tag(b, field, RPC_WIRE_VARINT);
  rpc_buf_varint(b, v);
}

void rpc_buf_field_bytes(rpc_buf *b, uint32_t field, const void *data, size_t len) {
  rpc_buf_tag(b, field, RPC_WIRE_BYTES);
  rpc_buf_varint(b, len);
  rpc_buf_append(b, data, len);
}

void rpc_buf_field_string(rpc_buf *b, uint32_t field, const char *s) {
  rpc_buf_field_bytes(b, field, s, strlen(s));
}

void rpc_buf_field_double(rpc_buf *b, uint32_t field, double v) {
  uint8_t le[8];
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits);
  for (int i = 0; i < 8; i++) le[i] = (uint8_t)(bits >> (8 * i));
  rpc_buf_tag(b, field, RPC_WIRE_FIXED64);
  rpc_buf_append(b, le, sizeof le);
}

static int rpc_wire_varint(const uint8_t *data, size_t len, size_t *pos,
                           uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= len) return -1;
    uint8_t byte = data[(*pos)++];
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1; /* more than 10 bytes */
}

static uint64_t rpc_wire_le(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

int rpc_wire_next(const uint8_t *data, size_t len, size_t *pos, rpc_field *out) {
  if (*pos >= len) return 0;
  uint64_t tag;
  if (rpc_wire_varint(data, len, pos, &tag)) return -1;
  memset(out, 0, sizeof *out);
  out->number = (uint32_t)(tag >> 3);
  out->wire_type = (int)(tag & 7);
  if (out->number == 0 || tag >> 3 > UINT32_MAX) return -1;
  switch (out->wire_type) {
    case RPC_WIRE_VARINT:
      return rpc_wire_varint(data, len, pos, &out->value) ? -1 : 1;
    case RPC_WIRE_FIXED64:
    case RPC_WIRE_FIXED32: {
      int bytes = out->wire_type == RPC_WIRE_FIXED64 ? 8 : 4;
      if (len - *pos < (size_t)bytes) return -1;
      out->value = rpc_wire_le(data + *pos, bytes);
      *pos += (size_t)bytes;
      return 1;
    }
    case RPC_WIRE_BYTES: {
      uint64_t n;
      if (rpc_wire_varint(data, len, pos, &n) || n > len - *pos) return -1;
      out->data = data + *pos;
      out->len = (size_t)n;
      *pos += (size_t)n;
      return 1;
    }
    default:
      return -1; /* groups (3, 4) and unknown wire types */
  }
}
