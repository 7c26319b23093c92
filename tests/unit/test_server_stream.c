/* Unit tests of the RPC's stream transports (src/server/): SHA-1 and
 * base64 against published vectors, the websocket accept key of RFC 6455,
 * reading client frames (masking, lengths, every protocol error), frame
 * headers, and the RPC stream's framing (messages cut anywhere, framing
 * errors, the seq rule). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "server/rpc_sql.h"
#include "server/rpc_stream.h"
#include "server/ws.h"

static void hex(const uint8_t *d, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

static void test_sha1_vectors(void) {
  static const struct { const char *in; const char *out; } v[] = {
      {"", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
      {"abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "84983e441c3bd26ebaae4aa1f95129e5e54670f1"},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    uint8_t d[20];
    char h[41];
    ws_sha1(v[i].in, strlen(v[i].in), d);
    hex(d, 20, h);
    CHECK_EQ_STR(h, v[i].out);
  }
  /* A million 'a's: many blocks, the length padding in its own block. */
  char *a = malloc(1000000);
  memset(a, 'a', 1000000);
  uint8_t d[20];
  char h[41];
  ws_sha1(a, 1000000, d);
  hex(d, 20, h);
  CHECK_EQ_STR(h, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  free(a);
}

static void test_base64_and_accept_key(void) {
  char out[16];
  ws_base64((const uint8_t *)"f", 1, out);
  CHECK_EQ_STR(out, "Zg==");
  ws_base64((const uint8_t *)"fo", 2, out);
  CHECK_EQ_STR(out, "Zm8=");
  ws_base64((const uint8_t *)"foobar", 6, out);
  CHECK_EQ_STR(out, "Zm9vYmFy");
  char accept[29];
  ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", accept); /* RFC 6455's example */
  CHECK_EQ_STR(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

/* A masked client frame of `len` bytes of 'p' into out: its size. */
static size_t client_frame(uint8_t *out, uint8_t b0, size_t len) {
  static const uint8_t mask[4] = {1, 2, 3, 4};
  size_t n = ws_frame_header(out, 0, len);
  out[0] = b0;
  out[1] |= 0x80;
  memcpy(out + n, mask, 4);
  for (size_t i = 0; i < len; i++) out[n + 4 + i] = (uint8_t)('p' ^ mask[i & 3]);
  return n + 4 + len;
}

static void test_frames_read(void) {
  static uint8_t buf[70000];
  ws_frame f;
  int code;
  size_t sizes[] = {0, 5, 125, 126, 65535, 65536};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    size_t n = client_frame(buf, 0x82, sizes[k]);
    CHECK_EQ_INT(ws_frame_read(buf, n - 1, 1 << 20, &f, &code), 0); /* one byte short */
    CHECK_EQ_INT(ws_frame_read(buf, n, 1 << 20, &f, &code), (long)n);
    CHECK_EQ_INT(f.len, sizes[k]);
    CHECK(f.fin && f.opcode == WS_OP_BINARY);
    CHECK(sizes[k] == 0 || (f.payload[0] == 'p' && f.payload[f.len - 1] == 'p'));
  }
  size_t n = client_frame(buf, 0x82, 200);
  CHECK_EQ_INT(ws_frame_read(buf, n, 100, &f, &code), -1);
  CHECK_EQ_INT(code, WS_CLOSE_TOO_BIG);
  /* Too big is known from the length alone, before the mask arrives. */
  uint8_t huge[10] = {0x82, 0xff, 0, 0, 1, 0, 0, 0, 0, 0};
  CHECK_EQ_INT(ws_frame_read(huge, sizeof huge, 1 << 20, &f, &code), -1);
  CHECK_EQ_INT(code, WS_CLOSE_TOO_BIG);
  huge[2] = 0x80; /* the top bit of a 64-bit length */
  CHECK_EQ_INT(ws_frame_read(huge, sizeof huge, 1 << 20, &f, &code), -1);
  CHECK_EQ_INT(code, WS_CLOSE_PROTOCOL);
}

static void test_frame_protocol_errors(void) {
  uint8_t buf[300];
  ws_frame f;
  int code;
  const uint8_t bad_b0[] = {0xc2, 0x83, 0x8b, 0x09 /* ping without FIN */};
  for (size_t i = 0; i < sizeof bad_b0; i++) {
    size_t n = client_frame(buf, bad_b0[i], 3);
    CHECK_EQ_INT(ws_frame_read(buf, n, 1 << 20, &f, &code), -1);
    CHECK_EQ_INT(code, WS_CLOSE_PROTOCOL);
  }
  size_t n = client_frame(buf, 0x89, 126); /* a ping over 125 bytes */
  CHECK_EQ_INT(ws_frame_read(buf, n, 1 << 20, &f, &code), -1);
  uint8_t unmasked[3] = {0x82, 0x01, 'x'};
  CHECK_EQ_INT(ws_frame_read(unmasked, 3, 1 << 20, &f, &code), -1);
  CHECK_EQ_INT(code, WS_CLOSE_PROTOCOL);
}

static void test_frame_header_lengths(void) {
  uint8_t h[WS_MAX_HEADER];
  CHECK_EQ_INT(ws_frame_header(h, WS_OP_BINARY, 125), 2);
  CHECK(h[0] == 0x82 && h[1] == 125);
  CHECK_EQ_INT(ws_frame_header(h, WS_OP_BINARY, 126), 4);
  CHECK(h[1] == 126 && h[2] == 0 && h[3] == 126);
  CHECK_EQ_INT(ws_frame_header(h, WS_OP_CLOSE, 70000), 10);
  CHECK(h[0] == 0x88 && h[1] == 127 && h[7] == 1 && h[8] == 0x11 && h[9] == 0x70);
}

typedef struct sink {
  rpc_buf out;
} sink;

static int sink_send(void *user, const void *data, size_t len) {
  rpc_buf_append(&((sink *)user)->out, data, len);
  return 0;
}

/* The number of stream messages in the sink, and whether one holds a
 * fatal_error (field 5). */
static int count_messages(const rpc_buf *b, int *fatal) {
  size_t pos = 0;
  int n = 0;
  rpc_field f, g;
  *fatal = 0;
  while (rpc_wire_next(b->data, b->len, &pos, &f) > 0) {
    size_t at = 0;
    while (rpc_wire_next(f.data, f.len, &at, &g) > 0) *fatal |= g.number == 5;
    n++;
  }
  return n;
}

static void test_stream_cut_anywhere(void) {
  /* Two GET_STATUS requests (seq 1, 2), fed one byte at a time. */
  const uint8_t req[] = {0x0a, 0x04, 0x08, 0x01, 0x10, 0x0a,
                         0x0a, 0x04, 0x08, 0x02, 0x10, 0x0a};
  rpc_session session;
  rpc_session_init(&session, NULL, NULL, NULL);
  sink out = {{0}};
  rpc_stream s;
  rpc_stream_init(&s, &session, sink_send, &out);
  for (size_t i = 0; i < sizeof req; i++) CHECK_EQ_INT(rpc_stream_feed(&s, req + i, 1), 0);
  int fatal;
  CHECK_EQ_INT(count_messages(&out.out, &fatal), 2);
  CHECK(!fatal);
  /* seq 7 after 2: out of order, fatal, and the stream stays failed. */
  const uint8_t late[] = {0x0a, 0x04, 0x08, 0x07, 0x10, 0x0a};
  CHECK_EQ_INT(rpc_stream_feed(&s, late, sizeof late), -1);
  CHECK_EQ_INT(count_messages(&out.out, &fatal), 3);
  CHECK(fatal);
  CHECK_EQ_INT(rpc_stream_feed(&s, req, 6), -1);
  rpc_stream_free(&s);
  rpc_buf_free(&out.out);
  rpc_session_free(&session);
}

static void test_stream_framing_errors(void) {
  static const struct { const char *bytes; size_t len; } bad[] = {
      {"\x12\x00", 2},                              /* field 2, not msg */
      {"\x0a\xff\xff\xff\xff\x0f", 6},             /* a 4 GiB message */
      {"\x0a\x02\x08\xff", 4},                      /* a truncated seq inside */
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    rpc_session session;
    rpc_session_init(&session, NULL, NULL, NULL);
    sink out = {{0}};
    rpc_stream s;
    rpc_stream_init(&s, &session, sink_send, &out);
    CHECK_EQ_INT(rpc_stream_feed(&s, bad[i].bytes, bad[i].len), -1);
    int fatal;
    CHECK_EQ_INT(count_messages(&out.out, &fatal), 1);
    CHECK(fatal);
    rpc_stream_free(&s);
    rpc_buf_free(&out.out);
    rpc_session_free(&session);
  }
}

static void test_sql_statements(void) {
  static const struct { const char *sql; uint32_t count; const char *last; } v[] = {
      {"", 0, NULL},
      {" ; -- only a comment\n ;/* and another */", 0, NULL},
      {"select 1;  select 2 as b ;  ", 2, "select 2 as b"},
      {"select 'a;''b' as [x;y], `q;` from t -- c;\n", 1, "select 'a;''b' as [x;y], `q;` from t"},
      {"create trigger t after insert on x begin select 1; end; select 2", 2, "select 2"},
      {"CREATE TEMPORARY TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END", 1,
       "CREATE TEMPORARY TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END"},
      {"select 'unterminated; select 2", 1, "select 'unterminated; select 2"},
      {"select 1 /* unterminated ; select 2", 1, "select 1"},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    rpc_sql_info info;
    rpc_sql_statements(v[i].sql, &info);
    CHECK_EQ_INT(info.count, v[i].count);
    if (!v[i].last) {
      CHECK(info.last == NULL);
      continue;
    }
    char got[128] = "";
    if (info.last && info.last_len < sizeof got) memcpy(got, info.last, info.last_len);
    CHECK_EQ_STR(got, v[i].last);
  }
}

int main(void) {
  RUN_TEST(test_sql_statements);
  RUN_TEST(test_sha1_vectors);
  RUN_TEST(test_base64_and_accept_key);
  RUN_TEST(test_frames_read);
  RUN_TEST(test_frame_protocol_errors);
  RUN_TEST(test_frame_header_lengths);
  RUN_TEST(test_stream_cut_anywhere);
  RUN_TEST(test_stream_framing_errors);
  return CHECK_SUMMARY();
}
