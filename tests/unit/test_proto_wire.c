/* Unit tests for src/import/proto/proto_wire: varints, zigzag, the field
 * reader and its error kinds, packed fields, nested messages, find helpers
 * and the encoder. Inputs are copied into exact-size heap buffers so that
 * ASan catches any read past the end. */
#include <stdlib.h>

#include "base/base.h"
#include "check.h"
#include "import/proto/proto_wire.h"

/* An exact-size heap copy (ASan guards its end). */
static uint8_t *dup_bytes(const void *src, size_t len) {
  uint8_t *p = malloc(len ? len : 1);
  if (len) memcpy(p, src, len);
  return p;
}

static int decode_exact(const uint8_t *bytes, size_t len, uint64_t *v) {
  uint8_t *p = dup_bytes(bytes, len);
  int n = proto_varint_decode(p, p + len, v);
  free(p);
  return n;
}

/* The byte-at-a-time definition of a varint, to compare with. */
static int reference_varint(const uint8_t *p, size_t len, uint64_t *v) {
  uint64_t x = 0;
  for (size_t i = 0; i < len && i < 10; i++) {
    x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (p[i] < 0x80) {
      *v = x;
      return (int)i + 1;
    }
  }
  return len < 10 ? 0 : -1;
}

/* Varints of every length 1..10 (values with every group set, none set,
 * padded), decoded with exactly their bytes and with room after them (the
 * eight-bytes-at-once path), agree with the reference. */
static void test_varint_every_length(void) {
  uint64_t seed = 0x9e3779b97f4a7c15ULL;
  for (int len = 1; len <= 11; len++) {
    for (int trial = 0; trial < 200; trial++) {
      uint8_t bytes[24];
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      for (int i = 0; i < 24; i++) bytes[i] = (uint8_t)(seed >> (8 * (i % 8))) ^ (uint8_t)(i * 37);
      for (int i = 0; i < len - 1; i++) bytes[i] |= 0x80;
      if (trial == 1) for (int i = 0; i < len - 1; i++) bytes[i] = 0x80;
      if (trial == 2) for (int i = 0; i < len - 1; i++) bytes[i] = 0xff;
      bytes[len - 1] &= 0x7f;
      if (trial == 3) bytes[len - 1] = 0;
      for (size_t room = (size_t)len; room <= (size_t)len + 12 && room <= sizeof bytes; room++) {
        uint64_t want = 0, got = 0;
        int n_want = reference_varint(bytes, room, &want);
        uint8_t *p = dup_bytes(bytes, room);
        int n_got = proto_varint_decode(p, p + room, &got);
        free(p);
        CHECK_EQ_INT(n_got, n_want);
        if (n_want > 0) CHECK(got == want);
      }
    }
  }
}

static void test_varint_edges(void) {
  uint64_t v = 0;
  const uint8_t one[] = {0x01};
  CHECK_EQ_INT(decode_exact(one, 1, &v), 1);
  CHECK_EQ_INT(v, 1);
  const uint8_t b300[] = {0xAC, 0x02};
  CHECK_EQ_INT(decode_exact(b300, 2, &v), 2);
  CHECK_EQ_INT(v, 300);
  /* UINT64_MAX: the maximal 10-byte varint. */
  const uint8_t max10[] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                           0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  CHECK_EQ_INT(decode_exact(max10, 10, &v), 10);
  CHECK(v == UINT64_MAX);
  /* 11 bytes: the 10th byte still has its continuation bit. */
  const uint8_t len11[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                           0x80, 0x80, 0x80, 0x80, 0x00};
  CHECK_EQ_INT(decode_exact(len11, 11, &v), -1);
  CHECK_EQ_INT(decode_exact(len11, 10, &v), -1);
  /* Truncated: continuation bit on the last available byte. */
  CHECK_EQ_INT(decode_exact(max10, 9, &v), 0);
  CHECK_EQ_INT(decode_exact(max10, 1, &v), 0);
  CHECK_EQ_INT(decode_exact(max10, 0, &v), 0);
  /* Non-canonical but valid: padded zero. */
  const uint8_t padded[] = {0x81, 0x80, 0x00};
  CHECK_EQ_INT(decode_exact(padded, 3, &v), 3);
  CHECK_EQ_INT(v, 1);
  /* Skip agrees with decode. */
  uint8_t *p = dup_bytes(max10, 10);
  CHECK_EQ_INT(proto_varint_skip(p, p + 10), 10);
  CHECK_EQ_INT(proto_varint_skip(p, p + 5), 0);
  free(p);
  p = dup_bytes(len11, 11);
  CHECK_EQ_INT(proto_varint_skip(p, p + 11), -1);
  free(p);
}

static void test_zigzag(void) {
  CHECK_EQ_INT(proto_zigzag_encode64(0), 0);
  CHECK_EQ_INT(proto_zigzag_encode64(-1), 1);
  CHECK_EQ_INT(proto_zigzag_encode64(1), 2);
  CHECK_EQ_INT(proto_zigzag_encode64(-2), 3);
  CHECK(proto_zigzag_encode64(INT64_MAX) == UINT64_MAX - 1);
  CHECK(proto_zigzag_encode64(INT64_MIN) == UINT64_MAX);
  CHECK(proto_zigzag_decode64(UINT64_MAX) == INT64_MIN);
  CHECK(proto_zigzag_decode64(UINT64_MAX - 1) == INT64_MAX);
  CHECK_EQ_INT(proto_zigzag_decode64(3), -2);
  CHECK_EQ_INT(proto_zigzag_encode32(-1), 1);
  CHECK(proto_zigzag_encode32(INT32_MIN) == UINT32_MAX);
  CHECK(proto_zigzag_decode32(UINT32_MAX) == INT32_MIN);
  CHECK(proto_zigzag_decode32(UINT32_MAX - 1) == INT32_MAX);
  int64_t samples[] = {0, 1, -1, 63, -64, 1000000, -1000000, INT64_MAX,
                       INT64_MIN, INT32_MIN, INT32_MAX};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++)
    CHECK(proto_zigzag_decode64(proto_zigzag_encode64(samples[i])) ==
          samples[i]);
}

/* Reads all fields of bytes; returns the final status (0 or <0). */
static int read_all(const uint8_t *bytes, size_t len, proto_reader *r,
                    int *count) {
  uint8_t *p = dup_bytes(bytes, len);
  proto_reader_init(r, p, len);
  proto_field f;
  int rc;
  *count = 0;
  while ((rc = proto_reader_next(r, &f)) == 1) (*count)++;
  free(p);
  return rc;
}

static void test_reader_fields(void) {
  base_buf b;
  base_buf_init(&b, 0);
  CHECK_EQ_INT(proto_put_varint_field(&b, 1, 150), 0);
  CHECK_EQ_INT(proto_put_fixed32_field(&b, 2, 0xDEADBEEF), 0);
  CHECK_EQ_INT(proto_put_fixed64_field(&b, 3, 0x0123456789ABCDEFull), 0);
  CHECK_EQ_INT(proto_put_string_field(&b, 4, "hello"), 0);
  CHECK_EQ_INT(proto_put_varint_field(&b, PROTO_MAX_FIELD_NUMBER, 7), 0);
  CHECK_EQ_INT(proto_put_double_field(&b, 6, -2.5), 0);
  CHECK_EQ_INT(proto_put_varint_field(&b, 7, (uint64_t)(int64_t)-5), 0);
  CHECK_EQ_INT(proto_put_sint_field(&b, 8, -3), 0);
  CHECK_EQ_INT(proto_put_bytes_field(&b, 9, NULL, 0), 0);
  /* 0x96 0x01 is the canonical encoding of 150. */
  CHECK_EQ_INT((uint8_t)b.data[0], 0x08);
  CHECK_EQ_INT((uint8_t)b.data[1], 0x96);
  CHECK_EQ_INT((uint8_t)b.data[2], 0x01);

  uint8_t *p = dup_bytes(b.data, b.len);
  proto_reader r;
  proto_reader_init(&r, p, b.len);
  proto_field f;
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK(f.number == 1 && f.wire_type == PROTO_WIRE_VARINT && f.value == 150);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK(f.number == 2 && f.wire_type == PROTO_WIRE_FIXED32 &&
        f.value == 0xDEADBEEF);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK(f.number == 3 && f.wire_type == PROTO_WIRE_FIXED64 &&
        f.value == 0x0123456789ABCDEFull);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK(f.number == 4 && f.wire_type == PROTO_WIRE_LEN && f.span.len == 5 &&
        memcmp(f.span.data, "hello", 5) == 0 && f.span.data >= p &&
        f.span.data + 5 <= p + b.len);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK(f.number == PROTO_MAX_FIELD_NUMBER && f.value == 7);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK(f.number == 6 && proto_field_double(&f) == -2.5);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK_EQ_INT(proto_field_int32(&f), -5);
  CHECK_EQ_INT(proto_field_int64(&f), -5);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK_EQ_INT(proto_field_sint64(&f), -3);
  CHECK_EQ_INT(proto_field_sint32(&f), -3);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 1);
  CHECK(f.number == 9 && f.span.len == 0);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 0);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 0);
  CHECK_EQ_INT(proto_reader_offset(&r), b.len);
  free(p);

  /* float and bool views */
  proto_field g = {.number = 1, .wire_type = PROTO_WIRE_FIXED32};
  float x = 1.25f;
  uint32_t bits;
  memcpy(&bits, &x, 4);
  g.value = bits;
  CHECK(proto_field_float(&g) == 1.25f);
  g.value = 2;
  CHECK(proto_field_bool(&g));

  /* Empty and NULL inputs are clean ends. */
  proto_reader_init(&r, NULL, 0);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 0);
  proto_reader_init(&r, NULL, 5);
  CHECK_EQ_INT(proto_reader_next(&r, &f), 0);
  base_buf_free(&b);
}

static void expect_error(const uint8_t *bytes, size_t len, int good_fields,
                         enum proto_wire_error why, size_t offset) {
  proto_reader r;
  int count;
  CHECK_EQ_INT(read_all(bytes, len, &r, &count), WEFT_EPARSE);
  CHECK_EQ_INT(count, good_fields);
  CHECK_EQ_INT(r.error, why);
  CHECK_EQ_INT(r.error_offset, offset);
  /* Sticky. */
  proto_field f;
  CHECK_EQ_INT(proto_reader_next(&r, &f), WEFT_EPARSE);
  base_error err = {0};
  CHECK_EQ_INT(proto_reader_error(&r, 100, &err), WEFT_EPARSE);
  CHECK(strstr(err.message, proto_wire_error_str(why)) != NULL);
}

static void test_reader_errors(void) {
  /* field number 0 */
  const uint8_t zero[] = {0x08, 0x01, 0x00, 0x01};
  expect_error(zero, sizeof zero, 1, PROTO_ERR_FIELD_ZERO, 2);
  /* wire types 6 and 7 */
  const uint8_t wt6[] = {0x0E, 0x01};
  expect_error(wt6, sizeof wt6, 0, PROTO_ERR_BAD_WIRE_TYPE, 0);
  const uint8_t wt7[] = {0x08, 0x00, 0x0F};
  expect_error(wt7, sizeof wt7, 1, PROTO_ERR_BAD_WIRE_TYPE, 2);
  /* deprecated groups (start and end) */
  const uint8_t sgroup[] = {0x0B, 0x0C};
  expect_error(sgroup, sizeof sgroup, 0, PROTO_ERR_GROUP, 0);
  const uint8_t egroup[] = {0x0C};
  expect_error(egroup, sizeof egroup, 0, PROTO_ERR_GROUP, 0);
  /* length past the end, and a huge length */
  const uint8_t past[] = {0x0A, 0x05, 'a', 'b'};
  expect_error(past, sizeof past, 0, PROTO_ERR_LENGTH_PAST_END, 0);
  const uint8_t huge[] = {0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                          0xFF, 0xFF, 0xFF, 0xFF, 0x01, 'x'};
  expect_error(huge, sizeof huge, 0, PROTO_ERR_LENGTH_PAST_END, 0);
  /* truncated varint value, fixed32, fixed64, tag, length */
  const uint8_t tv[] = {0x08, 0x80};
  expect_error(tv, sizeof tv, 0, PROTO_ERR_TRUNCATED, 0);
  const uint8_t t32[] = {0x08, 0x01, 0x15, 1, 2, 3};
  expect_error(t32, sizeof t32, 1, PROTO_ERR_TRUNCATED, 2);
  const uint8_t t64[] = {0x09, 1, 2, 3, 4, 5, 6, 7};
  expect_error(t64, sizeof t64, 0, PROTO_ERR_TRUNCATED, 0);
  const uint8_t ttag[] = {0x80};
  expect_error(ttag, sizeof ttag, 0, PROTO_ERR_TRUNCATED, 0);
  const uint8_t tlen[] = {0x0A};
  expect_error(tlen, sizeof tlen, 0, PROTO_ERR_TRUNCATED, 0);
  /* an 11-byte varint value and an 11-byte tag */
  const uint8_t v11[] = {0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                         0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  expect_error(v11, sizeof v11, 0, PROTO_ERR_VARINT_TOO_LONG, 0);
  const uint8_t tag11[] = {0x88, 0x80, 0x80, 0x80, 0x80, 0x80,
                           0x80, 0x80, 0x80, 0x80, 0x00};
  expect_error(tag11, sizeof tag11, 0, PROTO_ERR_VARINT_TOO_LONG, 0);
  /* field number 2^29 (tag needs 5 bytes) */
  base_buf b;
  base_buf_init(&b, 0);
  CHECK_EQ_INT(proto_put_varint(&b, ((uint64_t)PROTO_MAX_FIELD_NUMBER + 1) << 3),
               0);
  CHECK_EQ_INT(proto_put_varint(&b, 1), 0);
  expect_error((const uint8_t *)b.data, b.len, 0, PROTO_ERR_FIELD_TOO_BIG, 0);
  base_buf_free(&b);
}

/* Every prefix of a valid message, and every single-byte corruption, must
 * decode without reading out of bounds. */
static void test_reader_prefixes_and_noise(void) {
  base_buf b;
  base_buf_init(&b, 0);
  proto_put_varint_field(&b, 1, UINT64_MAX);
  proto_put_string_field(&b, 2, "some string payload");
  proto_put_fixed64_field(&b, 3, 42);
  proto_put_fixed32_field(&b, 4, 42);
  proto_put_varint_field(&b, 100000, 1);
  int count;
  proto_reader r;
  for (size_t n = 0; n <= b.len; n++) {
    int rc = read_all((const uint8_t *)b.data, n, &r, &count);
    CHECK(rc == 0 || rc == WEFT_EPARSE);
    CHECK(count <= 5);
  }
  CHECK_EQ_INT(read_all((const uint8_t *)b.data, b.len, &r, &count), 0);
  CHECK_EQ_INT(count, 5);
  uint32_t seed = 12345;
  for (int iter = 0; iter < 2000; iter++) {
    uint8_t *p = dup_bytes(b.data, b.len);
    seed = seed * 1103515245u + 12345u;
    p[(seed >> 8) % b.len] = (uint8_t)(seed >> 20);
    proto_reader_init(&r, p, b.len);
    proto_field f;
    int rc;
    while ((rc = proto_reader_next(&r, &f)) == 1) {
      if (f.wire_type == PROTO_WIRE_LEN)
        CHECK(f.span.data >= p && f.span.data + f.span.len <= p + b.len);
    }
    CHECK(rc == 0 || rc == WEFT_EPARSE);
    free(p);
  }
  base_buf_free(&b);
}

/* Reads `len` bytes with the inline reader and the general one side by side:
 * the same status, fields, values, spans and error, call by call. */
static int readers_agree(const uint8_t *bytes, size_t len) {
  uint8_t *p = dup_bytes(bytes, len);
  proto_reader a, b;
  proto_reader_init(&a, p, len);
  proto_reader_init(&b, p, len);
  int agree = 1;
  for (int calls = 0; calls < 64 && agree; calls++) {
    proto_field fa, fb;
    memset(&fa, 0, sizeof fa);
    memset(&fb, 0, sizeof fb);
    int ra = proto_reader_next(&a, &fa), rb = proto_reader_next_general(&b, &fb);
    agree = ra == rb && a.pos == b.pos && a.status == b.status && a.error == b.error &&
            a.error_offset == b.error_offset && memcmp(&fa, &fb, sizeof fa) == 0;
    if (ra != 1) break;
  }
  free(p);
  return agree;
}

/* The inline fast path (one- or two-byte tags with a varint or a length) and
 * the general reader agree on every prefix of a message mixing short and
 * long forms, and on random bytes biased towards small tags. */
static void test_reader_fast_path_agrees(void) {
  base_buf b;
  base_buf_init(&b, 0);
  proto_put_varint_field(&b, 1, 5);
  proto_put_varint_field(&b, 15, 300);
  proto_put_varint_field(&b, 2, UINT64_MAX);
  proto_put_string_field(&b, 3, "short");
  proto_put_bytes_field(&b, 4, "", 0);
  char big[200];
  memset(big, 'x', sizeof big);
  proto_put_bytes_field(&b, 5, big, 127);
  proto_put_bytes_field(&b, 6, big, 128);
  proto_put_fixed64_field(&b, 7, 42);
  proto_put_varint_field(&b, 16, 1);
  proto_put_string_field(&b, 2047, "two-byte tag");
  proto_put_varint_field(&b, 2048, 7);
  int all = 1;
  for (size_t n = 0; n <= b.len; n++) all &= readers_agree((const uint8_t *)b.data, n);
  CHECK(all);
  uint32_t seed = 99;
  uint8_t buf[24];
  for (int iter = 0; iter < 20000; iter++) {
    for (size_t i = 0; i < sizeof buf; i++) {
      seed = seed * 1103515245u + 12345u;
      uint8_t x = (uint8_t)(seed >> 16);
      buf[i] = (seed >> 28) < 8 ? (uint8_t)(x & 0x7f) : (seed >> 28) < 12 ? (uint8_t)(x & 0x1f) : x;
    }
    all &= readers_agree(buf, 1 + iter % sizeof buf);
  }
  CHECK(all);
  base_buf_free(&b);
}

static void test_nested(void) {
  base_buf inner, mid, outer;
  base_buf_init(&inner, 0);
  base_buf_init(&mid, 0);
  base_buf_init(&outer, 0);
  proto_put_varint_field(&inner, 1, 77);
  proto_put_string_field(&inner, 2, "leaf");
  proto_put_varint_field(&mid, 1, 5);
  proto_put_bytes_field(&mid, 3, inner.data, inner.len);
  proto_put_bytes_field(&outer, 1, mid.data, mid.len);
  proto_put_bytes_field(&outer, 1, mid.data, mid.len);

  uint8_t *p = dup_bytes(outer.data, outer.len);
  proto_reader r;
  proto_reader_init(&r, p, outer.len);
  proto_field f;
  int outer_count = 0, leaves = 0;
  while (proto_reader_next(&r, &f) == 1) {
    outer_count++;
    proto_reader rm;
    proto_reader_init_span(&rm, f.span);
    proto_field g;
    while (proto_reader_next(&rm, &g) == 1) {
      if (g.number != 3) continue;
      proto_field h;
      CHECK_EQ_INT(proto_find_first(g.span.data, g.span.len, 1, &h), 1);
      CHECK_EQ_INT(h.value, 77);
      CHECK_EQ_INT(proto_find_first(g.span.data, g.span.len, 2, &h), 1);
      CHECK(h.span.len == 4 && memcmp(h.span.data, "leaf", 4) == 0);
      leaves++;
    }
    CHECK_EQ_INT(rm.status, 0);
  }
  CHECK_EQ_INT(outer_count, 2);
  CHECK_EQ_INT(leaves, 2);
  free(p);
  base_buf_free(&inner);
  base_buf_free(&mid);
  base_buf_free(&outer);
}

static void test_find(void) {
  base_buf b;
  base_buf_init(&b, 0);
  proto_put_varint_field(&b, 1, 10);
  proto_put_string_field(&b, 2, "x");
  proto_put_varint_field(&b, 3, 1);
  proto_put_fixed64_field(&b, 4, 9);
  proto_put_varint_field(&b, 3, 2);
  uint8_t *p = dup_bytes(b.data, b.len);
  proto_field f;
  CHECK_EQ_INT(proto_find_first(p, b.len, 3, &f), 1);
  CHECK_EQ_INT(f.value, 1);
  CHECK_EQ_INT(proto_find_last(p, b.len, 3, &f), 1);
  CHECK_EQ_INT(f.value, 2);
  CHECK_EQ_INT(proto_find_first(p, b.len, 4, &f), 1);
  CHECK_EQ_INT(f.value, 9);
  CHECK_EQ_INT(proto_find_first(p, b.len, 99, &f), 0);
  CHECK_EQ_INT(proto_find_first(NULL, 0, 1, &f), 0);
  free(p);
  /* A malformed field before the match, or after it for _last. */
  const uint8_t bad[] = {0x0A, 0x09, 'a', 0x10, 0x01};
  p = dup_bytes(bad, sizeof bad);
  CHECK_EQ_INT(proto_find_first(p, sizeof bad, 2, &f), WEFT_EPARSE);
  free(p);
  const uint8_t bad_after[] = {0x10, 0x01, 0x0A, 0x09, 'a'};
  p = dup_bytes(bad_after, sizeof bad_after);
  CHECK_EQ_INT(proto_find_first(p, sizeof bad_after, 2, &f), 1);
  CHECK_EQ_INT(proto_find_last(p, sizeof bad_after, 2, &f), WEFT_EPARSE);
  free(p);
  base_buf_free(&b);
}

static void test_packed(void) {
  const uint64_t vals[] = {0, 1, 127, 128, 300, 1u << 31, UINT64_MAX,
                           (uint64_t)(int64_t)-1, 42};
  const size_t n = sizeof vals / sizeof *vals;
  base_buf payload, msg;
  base_buf_init(&payload, 0);
  base_buf_init(&msg, 0);
  for (size_t i = 0; i < n; i++) CHECK_EQ_INT(proto_put_varint(&payload, vals[i]), 0);
  proto_put_bytes_field(&msg, 5, payload.data, payload.len);
  uint8_t *p = dup_bytes(msg.data, msg.len);
  proto_field f;
  CHECK_EQ_INT(proto_find_first(p, msg.len, 5, &f), 1);
  size_t count = 0;
  CHECK_EQ_INT(proto_packed_count_varints(f.span, &count), 0);
  CHECK_EQ_INT(count, n);
  proto_packed_iter it;
  proto_packed_init(&it, f.span);
  uint64_t v;
  size_t i = 0;
  while (proto_packed_next_varint(&it, &v) == 1) {
    CHECK(i < n && v == vals[i]);
    i++;
  }
  CHECK_EQ_INT(i, n);
  CHECK_EQ_INT(it.status, 0);
  free(p);

  /* Truncated last varint; 11-byte varint. */
  const uint8_t trunc[] = {0x01, 0x80};
  p = dup_bytes(trunc, sizeof trunc);
  proto_span s = {p, sizeof trunc};
  CHECK_EQ_INT(proto_packed_count_varints(s, &count), WEFT_EPARSE);
  proto_packed_init(&it, s);
  CHECK_EQ_INT(proto_packed_next_varint(&it, &v), 1);
  CHECK_EQ_INT(proto_packed_next_varint(&it, &v), WEFT_EPARSE);
  CHECK_EQ_INT(proto_packed_next_varint(&it, &v), WEFT_EPARSE);
  free(p);
  uint8_t long11[11];
  memset(long11, 0xFF, 10);
  long11[10] = 0x01;
  p = dup_bytes(long11, 11);
  s.data = p;
  s.len = 11;
  CHECK_EQ_INT(proto_packed_count_varints(s, &count), WEFT_EPARSE);
  proto_packed_init(&it, s);
  CHECK_EQ_INT(proto_packed_next_varint(&it, &v), WEFT_EPARSE);
  free(p);

  /* Packed fixed32 / fixed64, with a partial trailing element. */
  const uint8_t f32[] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0};
  p = dup_bytes(f32, sizeof f32);
  s.data = p;
  s.len = sizeof f32;
  proto_packed_init(&it, s);
  uint32_t w;
  CHECK_EQ_INT(proto_packed_next_fixed32(&it, &w), 1);
  CHECK_EQ_INT(w, 1);
  CHECK_EQ_INT(proto_packed_next_fixed32(&it, &w), 1);
  CHECK_EQ_INT(w, 2);
  CHECK_EQ_INT(proto_packed_next_fixed32(&it, &w), WEFT_EPARSE);
  s.len = 8;
  proto_packed_init(&it, s);
  uint64_t q = 0;
  CHECK_EQ_INT(proto_packed_next_fixed64(&it, &q), 1);
  CHECK(q == 0x0000000200000001ull);
  CHECK_EQ_INT(proto_packed_next_fixed64(&it, &q), 0);
  free(p);
  /* Empty packed payload. */
  s.data = NULL;
  s.len = 0;
  proto_packed_init(&it, s);
  CHECK_EQ_INT(proto_packed_next_varint(&it, &v), 0);
  CHECK_EQ_INT(proto_packed_count_varints(s, &count), 0);
  CHECK_EQ_INT(count, 0);
  base_buf_free(&payload);
  base_buf_free(&msg);
}

static void test_encoder_roundtrip(void) {
  base_buf b;
  base_buf_init(&b, 0);
  uint64_t x = 88172645463325252ull;
  uint64_t vals[500];
  for (int i = 0; i < 500; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    vals[i] = x >> (x % 64);
    CHECK_EQ_INT(proto_put_varint_field(&b, (uint32_t)(i % 1000) + 1, vals[i]), 0);
  }
  uint8_t *p = dup_bytes(b.data, b.len);
  proto_reader r;
  proto_reader_init(&r, p, b.len);
  proto_field f;
  int i = 0;
  while (proto_reader_next(&r, &f) == 1) {
    CHECK(f.value == vals[i] && f.number == (uint32_t)(i % 1000) + 1);
    i++;
  }
  CHECK_EQ_INT(i, 500);
  free(p);
  /* Encoder honours the buffer limit. */
  base_buf small;
  base_buf_init(&small, 3);
  CHECK_EQ_INT(proto_put_string_field(&small, 1, "toolong"), WEFT_ELIMIT);
  base_buf_free(&small);
  base_buf_free(&b);
}

int main(void) {
  RUN_TEST(test_varint_edges);
  RUN_TEST(test_varint_every_length);
  RUN_TEST(test_zigzag);
  RUN_TEST(test_reader_fields);
  RUN_TEST(test_reader_errors);
  RUN_TEST(test_reader_prefixes_and_noise);
  RUN_TEST(test_reader_fast_path_agrees);
  RUN_TEST(test_nested);
  RUN_TEST(test_find);
  RUN_TEST(test_packed);
  RUN_TEST(test_encoder_roundtrip);
  return CHECK_SUMMARY();
}
