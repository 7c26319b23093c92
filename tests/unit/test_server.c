/* Unit tests of the RPC server's codec (src/server/): the wire reader on
 * malformed input, QueryResult batches (cell encoding, whole rows per
 * batch, the float64 payload's alignment, the last statement only,
 * errors) and the spool's spill to a file. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "server/rpc.h"
#include "server/rpc_query.h"
#include "server/rpc_wire.h"

static void test_wire_reader_rejects_malformed(void) {
  static const struct { const char *bytes; size_t len; } bad[] = {
      {"\x0a\x05" "ab", 4},          /* length past the end */
      {"\x08", 1},                   /* varint missing */
      {"\x0b\x00", 2},               /* group start */
      {"\x00\x01", 2},               /* field 0 */
      {"\x09\x01\x02", 3},           /* truncated fixed64 */
      {"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12}, /* 11-byte varint */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t pos = 0;
    rpc_field f;
    CHECK_EQ_INT(rpc_wire_next((const uint8_t *)bad[i].bytes, bad[i].len, &pos, &f), -1);
  }
  const char *error = NULL;
  CHECK(rpc_decode_query_args((const uint8_t *)"\x0a\x05" "ab", 4, &error) == NULL);
  CHECK(error && strncmp(error, "malformed QueryArgs", 19) == 0);
  error = NULL;
  CHECK(rpc_decode_query_args((const uint8_t *)"\x08\x05", 2, &error) == NULL);
  CHECK(error != NULL);
  /* unknown fields are skipped; the last sql_query wins */
  const uint8_t ok[] = {0x1a, 0x01, 't', 0x0a, 0x01, 'a', 0x0a, 0x03, 'x', 'y', 'z',
                        0x21, 0, 0, 0, 0, 0, 0, 0, 0};
  char *sql = rpc_decode_query_args(ok, sizeof ok, &error);
  CHECK_EQ_STR(sql, "xyz");
  free(sql);
}

/* The whole spool as one buffer. */
static uint8_t *spool_bytes(rpc_spool *s, size_t *len) {
  *len = (size_t)rpc_spool_size(s);
  uint8_t *out = malloc(*len ? *len : 1);
  size_t got = 0;
  ssize_t n;
  while (out && (n = rpc_spool_read(s, got, out + got, *len - got)) > 0) got += (size_t)n;
  CHECK_EQ_INT(got, *len);
  return out;
}

typedef struct batch_view {
  size_t cells, varints_len, float_offset, doubles_len;
  int last;
} batch_view;

/* The batches of a QueryResult (up to cap), with the float64 payload's
 * offset from the start of `whole`. */
static int read_batches(const uint8_t *whole, size_t len, batch_view *out, int cap,
                        char *error, size_t error_cap) {
  size_t pos = 0;
  rpc_field f;
  int n = 0;
  error[0] = '\0';
  while (rpc_wire_next(whole, len, &pos, &f) > 0) {
    if (f.number == 2) snprintf(error, error_cap, "%.*s", (int)f.len, (const char *)f.data);
    if (f.number != 3 || n == cap) continue;
    batch_view *b = &out[n++];
    memset(b, 0, sizeof *b);
    size_t bpos = 0;
    rpc_field g;
    while (rpc_wire_next(f.data, f.len, &bpos, &g) > 0) {
      if (g.number == 1) b->cells = g.len;
      if (g.number == 2) b->varints_len = g.len;
      if (g.number == 3) {
        b->float_offset = (size_t)(g.data - whole);
        b->doubles_len = g.len;
      }
      if (g.number == 6) b->last = (int)g.value;
    }
  }
  return n;
}

static void feed_rows(weft_query_callbacks *cb, int statement, int rows) {
  const char *names[] = {"i", "d", "s"};
  cb->on_columns(cb->user, statement, 3, names);
  for (int r = 0; r < rows; r++) {
    weft_cell cells[3] = {{WEFT_CELL_INT, -r, 0, NULL, 0},
                          {WEFT_CELL_DOUBLE, 0, r * 0.5, NULL, 0},
                          {WEFT_CELL_STRING, 0, 0, "ab", 2}};
    cb->on_row(cb->user, statement, 3, cells);
  }
}

static void test_batches_hold_whole_rows_aligned(void) {
  rpc_spool spool = {0};
  rpc_query_result *r = rpc_query_result_new(&spool);
  weft_query_callbacks cb = rpc_query_result_callbacks(r);
  feed_rows(&cb, 0, 5);      /* an earlier statement: dropped */
  feed_rows(&cb, 1, 20000);  /* 60000 cells: two batches */
  CHECK_EQ_INT(rpc_query_result_finish(r, NULL, 1.0), 0);
  rpc_query_result_free(r);
  size_t len;
  uint8_t *bytes = spool_bytes(&spool, &len);
  batch_view b[8];
  char error[64];
  int n = read_batches(bytes, len, b, 8, error, sizeof error);
  CHECK(n >= 2);
  size_t cells = 0;
  for (int i = 0; i < n; i++) {
    cells += b[i].cells;
    CHECK_EQ_INT(b[i].cells % 3, 0);
    CHECK(b[i].cells <= RPC_CELLS_PER_BATCH);
    CHECK_EQ_INT(b[i].last, i == n - 1);
    CHECK_EQ_INT(b[i].doubles_len, b[i].cells / 3 * 8);
  }
  CHECK_EQ_INT(cells, 60000);
  CHECK_EQ_INT(b[0].float_offset % 8, 0); /* the first message starts at 0 */
  CHECK_EQ_STR(error, "");
  free(bytes);
  rpc_spool_free(&spool);
}

static void test_negative_varint_and_error(void) {
  rpc_spool spool = {0};
  rpc_query_result *r = rpc_query_result_new(&spool);
  weft_query_callbacks cb = rpc_query_result_callbacks(r);
  feed_rows(&cb, 0, 2);
  CHECK_EQ_INT(rpc_query_result_finish(r, "boom", 0.5), 0);
  rpc_query_result_free(r);
  size_t len;
  uint8_t *bytes = spool_bytes(&spool, &len);
  batch_view b[4];
  char error[64];
  int n = read_batches(bytes, len, b, 4, error, sizeof error);
  CHECK_EQ_INT(n, 1); /* the rows are dropped: one empty, last batch */
  CHECK_EQ_INT(b[0].cells, 0);
  CHECK_EQ_INT(b[0].last, 1);
  CHECK_EQ_STR(error, "boom");
  free(bytes);
  rpc_spool_free(&spool);

  /* -1 is a ten-byte varint (two's complement, as int64 on the wire) */
  rpc_spool spool2 = {0};
  r = rpc_query_result_new(&spool2);
  cb = rpc_query_result_callbacks(r);
  const char *names[] = {"v"};
  cb.on_columns(cb.user, 0, 1, names);
  weft_cell minus_one = {WEFT_CELL_INT, -1, 0, NULL, 0};
  cb.on_row(cb.user, 0, 1, &minus_one);
  rpc_query_result_finish(r, NULL, 0);
  rpc_query_result_free(r);
  bytes = spool_bytes(&spool2, &len);
  n = read_batches(bytes, len, b, 4, error, sizeof error);
  CHECK_EQ_INT(n, 1);
  CHECK_EQ_INT(b[0].varints_len, 10);
  free(bytes);
  rpc_spool_free(&spool2);
}

static void test_spool_spills_to_a_file(void) {
  rpc_spool spool = {0};
  static uint8_t block[1 << 20];
  for (size_t i = 0; i < sizeof block; i++) block[i] = (uint8_t)(i * 7);
  for (int k = 0; k < 10; k++) rpc_spool_write(&spool, block, sizeof block);
  CHECK(!spool.failed);
  CHECK(spool.file != NULL);
  CHECK(spool.mem.len <= RPC_SPOOL_MEMORY);
  CHECK_EQ_INT(rpc_spool_size(&spool), 10 << 20);
  uint8_t got[100];
  uint64_t at = (9u << 20) + 12345;
  CHECK_EQ_INT(rpc_spool_read(&spool, at, got, sizeof got), sizeof got);
  CHECK(memcmp(got, block + 12345, sizeof got) == 0);
  CHECK_EQ_INT(rpc_spool_read(&spool, 10u << 20, got, sizeof got), 0);
  rpc_spool_reset(&spool);
  CHECK_EQ_INT(rpc_spool_size(&spool), 0);
  rpc_spool_free(&spool);
}

int main(void) {
  RUN_TEST(test_wire_reader_rejects_malformed);
  RUN_TEST(test_batches_hold_whole_rows_aligned);
  RUN_TEST(test_negative_varint_and_error);
  RUN_TEST(test_spool_spills_to_a_file);
  return CHECK_SUMMARY();
}
