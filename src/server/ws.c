/* WebSocket handshake and framing (ws.h). */
#include "ws.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- SHA-1 (FIPS 180-4) ---- */

typedef struct ws_sha1_state {
  uint32_t h[5];
  uint8_t block[64];
  size_t used;
  uint64_t total;
} ws_sha1_state;

static uint32_t ws_rotl(uint32_t v, int n) { return v << n | v >> (32 - n); }

static void ws_sha1_block(ws_sha1_state *s, const uint8_t *p) {
  uint32_t w[80];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
           (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 80; i++) w[i] = ws_rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
  for (int i = 0; i < 80; i++) {
    uint32_t f, k;
    if (i < 20) f = (b & c) | (~b & d), k = 0x5a827999;
    else if (i < 40) f = b ^ c ^ d, k = 0x6ed9eba1;
    else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
    else f = b ^ c ^ d, k = 0xca62c1d6;
    uint32_t t = ws_rotl(a, 5) + f + e + k + w[i];
    e = d;
    d = c;
    c = ws_rotl(b, 30);
    b = a;
    a = t;
  }
  s->h[0] += a;
  s->h[1] += b;
  s->h[2] += c;
  s->h[3] += d;
  s->h[4] += e;
}

static void ws_sha1_update(ws_sha1_state *s, const uint8_t *p, size_t len) {
  s->total += len;
  while (len > 0) {
    size_t n = 64 - s->used < len ? 64 - s->used : len;
    memcpy(s->block + s->used, p, n);
    s->used += n;
    p += n;
    len -= n;
    if (s->used == 64) {
      ws_sha1_block(s, s->block);
      s->used = 0;
    }
  }
}

void ws_sha1(const void *data, size_t len, uint8_t out[20]) {
  ws_sha1_state s = {{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}, {0}, 0, 0};
  ws_sha1_update(&s, data, len);
  uint64_t bits = s.total * 8;
  uint8_t pad[72] = {0x80};
  size_t pad_len = (s.used < 56 ? 56 : 120) - s.used;
  for (int i = 0; i < 8; i++) pad[pad_len + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
  ws_sha1_update(&s, pad, pad_len + 8);
  for (int i = 0; i < 5; i++)
    for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(s.h[i] >> (24 - 8 * j));
}

void ws_base64(const uint8_t *data, size_t len, char *out) {
  static const char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t o = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16;
    if (i + 1 < len) v |= (uint32_t)data[i + 1] << 8;
    if (i + 2 < len) v |= data[i + 2];
    out[o++] = digits[v >> 18 & 63];
    out[o++] = digits[v >> 12 & 63];
    out[o++] = i + 1 < len ? digits[v >> 6 & 63] : '=';
    out[o++] = i + 2 < len ? digits[v & 63] : '=';
  }
  out[o] = '\0';
}

void ws_accept_key(const char *key, char out[29]) {
  static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  char joined[256];
  int n = snprintf(joined, sizeof joined, "%.200s%s", key, guid);
  uint8_t digest[20];
  ws_sha1(joined, (size_t)n, digest);
  ws_base64(digest, sizeof digest, out);
}

/* ---- frames ---- */

static int ws_opcode_known(int op) {
  return op == WS_OP_CONTINUATION || op == WS_OP_TEXT || op == WS_OP_BINARY ||
         op == WS_OP_CLOSE || op == WS_OP_PING || op == WS_OP_PONG;
}

/* The payload length and the header's size, or 0 if more bytes are
 * needed; -1 for a length with its top bit set. */
static int ws_frame_length(const uint8_t *data, size_t avail, uint64_t *len,
                           size_t *header) {
  uint8_t short_len = data[1] & 0x7f;
  size_t ext = short_len == 126 ? 2 : short_len == 127 ? 8 : 0;
  if (avail < 2 + ext) return 0;
  uint64_t v = short_len;
  if (ext) {
    v = 0;
    for (size_t i = 0; i < ext; i++) v = v << 8 | data[2 + i];
    if (v >> 63) return -1;
  }
  *len = v;
  *header = 2 + ext + 4;
  return 1;
}

long ws_frame_read(uint8_t *data, size_t avail, size_t max_payload, ws_frame *out,
                   int *close_code) {
  *close_code = WS_CLOSE_PROTOCOL;
  if (avail < 2) return 0;
  int fin = data[0] >> 7, opcode = data[0] & 0x0f;
  if ((data[0] & 0x70) || !ws_opcode_known(opcode) || !(data[1] & 0x80)) return -1;
  uint64_t len;
  size_t header;
  int got = ws_frame_length(data, avail, &len, &header);
  if (got <= 0) return got;
  if (opcode >= WS_OP_CLOSE && (!fin || len > 125)) return -1;
  if (len > max_payload || len > (uint64_t)(LONG_MAX / 2)) {
    *close_code = WS_CLOSE_TOO_BIG;
    return -1;
  }
  if (avail < header || avail - header < len) return 0;
  const uint8_t *mask = data + header - 4;
  uint8_t *payload = data + header;
  for (size_t i = 0; i < (size_t)len; i++) payload[i] ^= mask[i & 3];
  out->fin = fin;
  out->opcode = opcode;
  out->payload = payload;
  out->len = (size_t)len;
  return (long)(header + (size_t)len);
}

size_t ws_frame_header(uint8_t out[WS_MAX_HEADER], int opcode, uint64_t len) {
  out[0] = (uint8_t)(0x80 | (opcode & 0x0f));
  if (len < 126) {
    out[1] = (uint8_t)len;
    return 2;
  }
  if (len <= 0xffff) {
    out[1] = 126;
    out[2] = (uint8_t)(len >> 8);
    out[3] = (uint8_t)len;
    return 4;
  }
  out[1] = 127;
  for (int i = 0; i < 8; i++) out[2 + i] = (uint8_t)(len >> (56 - 8 * i));
  return 10;
}
