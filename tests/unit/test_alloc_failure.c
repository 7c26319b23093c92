/* Allocation failure: small traces (proto with compressed packets, Chrome
 * JSON, a zip of both, a zip with a perfetto_manifest) are loaded through the
 * public API while base_alloc_fail_after(N) fails the Nth allocation, for
 * N = 1, 2, ... until a load sees no failure. Every run must end without a
 * crash, either succeeding or failing with WEFT_ENOMEM and a message; the
 * ASan build's LeakSanitizer checks that nothing leaks on any path.
 * (libarchive and SQLite allocate on their own; only weft's allocations are
 * failed.) */
#include <stdlib.h>
#include <zlib.h>

#include "check.h"
#include "base/base.h"
#include "import/proto/proto_wire.h"
#include "weft/weft.h"

/* CHECK with a formatted explanation. */
#define CHECK_MSG(cond, ...)                                              \
  do {                                                                    \
    check_count++;                                                        \
    if (!(cond)) {                                                        \
      check_failures++;                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__,   \
              #cond);                                                     \
      fprintf(stderr, __VA_ARGS__);                                       \
      fputc('\n', stderr);                                                \
    }                                                                     \
  } while (0)

/* ---- inputs, built before any failure is injected ---- */

static void put_packet(base_buf *trace, const base_buf *packet) {
  proto_put_bytes_field(trace, 1, packet->data, packet->len);
}

static void make_proto(base_buf *out) {
  base_buf p, m, c;
  base_buf_init(out, 0);
  base_buf_init(&p, 0);
  base_buf_init(&m, 0);
  base_buf_init(&c, 0);
  /* clock snapshot: BOOTTIME 1000 = REALTIME 5000 */
  proto_put_varint_field(&c, 1, 6);
  proto_put_varint_field(&c, 2, 1000);
  proto_put_bytes_field(&m, 1, c.data, c.len);
  base_buf_reset(&c);
  proto_put_varint_field(&c, 1, 1);
  proto_put_varint_field(&c, 2, 5000);
  proto_put_bytes_field(&m, 1, c.data, c.len);
  proto_put_varint_field(&p, 8, 1000);
  proto_put_varint_field(&p, 10, 1);
  proto_put_bytes_field(&p, 6, m.data, m.len);
  put_packet(out, &p);
  /* track descriptor uuid 100 "main" */
  base_buf_reset(&p);
  base_buf_reset(&m);
  proto_put_varint_field(&m, 1, 100);
  proto_put_string_field(&m, 2, "main");
  proto_put_varint_field(&p, 8, 1500);
  proto_put_varint_field(&p, 10, 1);
  proto_put_bytes_field(&p, 60, m.data, m.len);
  put_packet(out, &p);
  /* slice begin with a debug annotation, then end */
  base_buf_reset(&p);
  base_buf_reset(&m);
  base_buf_reset(&c);
  proto_put_string_field(&c, 10, "n");
  proto_put_varint_field(&c, 4, 5);
  proto_put_varint_field(&m, 9, 1);
  proto_put_varint_field(&m, 11, 100);
  proto_put_string_field(&m, 23, "slice");
  proto_put_bytes_field(&m, 4, c.data, c.len);
  proto_put_varint_field(&p, 8, 1600);
  proto_put_varint_field(&p, 10, 1);
  proto_put_bytes_field(&p, 11, m.data, m.len);
  put_packet(out, &p);
  /* the end, inside compressed_packets */
  base_buf inner;
  base_buf_init(&inner, 0);
  base_buf_reset(&p);
  base_buf_reset(&m);
  proto_put_varint_field(&m, 9, 2);
  proto_put_varint_field(&m, 11, 100);
  proto_put_varint_field(&p, 8, 1700);
  proto_put_varint_field(&p, 10, 1);
  proto_put_bytes_field(&p, 11, m.data, m.len);
  put_packet(&inner, &p);
  uLongf zlen = compressBound(inner.len);
  uint8_t *z = malloc(zlen);
  compress(z, &zlen, (const Bytef *)inner.data, inner.len);
  base_buf_reset(&p);
  proto_put_bytes_field(&p, 50, z, zlen);
  put_packet(out, &p);
  free(z);
  base_buf_free(&inner);
  base_buf_free(&p);
  base_buf_free(&m);
  base_buf_free(&c);
}

static const char json_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"app\"}},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":100,\"name\":\"outer\",\"cat\":\"c\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":30,\"name\":\"inner\","
    "\"args\":{\"n\":7,\"s\":\"x\\u00e9\",\"nested\":{\"a\":[1,2]}}},"
    "{\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":200,\"name\":\"open\"},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":300},"
    "{\"ph\":\"C\",\"pid\":1,\"ts\":50,\"name\":\"mem\",\"args\":{\"rss\":5}},"
    "{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"ts\":60,\"name\":\"a\",\"id\":\"0x1\",\"cat\":\"a\"},"
    "{\"ph\":\"e\",\"pid\":1,\"tid\":1,\"ts\":70,\"name\":\"a\",\"id\":\"0x1\",\"cat\":\"a\"}"
    "],\"displayTimeUnit\":\"ns\"}";

static const char manifest_json[] =
    "{\"perfetto_manifest\":{\"version\":1,"
    "\"trace_time\":{\"clock\":\"BOOTTIME\"},"
    "\"files\":[{\"path\":\"t.pb\",\"machine\":{\"name\":\"phone\"}},"
    "{\"path\":\"a.json\",\"machine\":{\"name\":\"watch\"},"
    "\"clocks\":{\"sync_to\":{\"file\":\"t.pb\",\"clock\":\"BOOTTIME\"},"
    "\"offset_ns\":100}}],\"attributes\":{\"k\":\"v\",\"n\":3}}}";

static void put_le(base_buf *b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) {
    uint8_t c = (uint8_t)(v >> (8 * i));
    base_buf_append(b, &c, 1);
  }
}

/* A stored (uncompressed) zip of the given members. */
static void make_zip(base_buf *out, size_t n, const char *const *names,
                     const void *const *datas, const size_t *lens) {
  base_buf central;
  base_buf_init(out, 0);
  base_buf_init(&central, 0);
  for (size_t i = 0; i < n; i++) {
    uint32_t crc = (uint32_t)crc32(0, datas[i], (uInt)lens[i]);
    size_t name_len = strlen(names[i]);
    size_t offset = out->len;
    put_le(out, 0x04034b50, 4);
    put_le(out, 20, 2);
    put_le(out, 0, 2);
    put_le(out, 0, 2); /* stored */
    put_le(out, 0, 4); /* time, date */
    put_le(out, crc, 4);
    put_le(out, lens[i], 4);
    put_le(out, lens[i], 4);
    put_le(out, name_len, 2);
    put_le(out, 0, 2);
    base_buf_append(out, names[i], name_len);
    base_buf_append(out, datas[i], lens[i]);
    put_le(&central, 0x02014b50, 4);
    put_le(&central, 20, 2);
    put_le(&central, 20, 2);
    put_le(&central, 0, 2);
    put_le(&central, 0, 2);
    put_le(&central, 0, 4);
    put_le(&central, crc, 4);
    put_le(&central, lens[i], 4);
    put_le(&central, lens[i], 4);
    put_le(&central, name_len, 2);
    for (int k = 0; k < 4; k++) put_le(&central, 0, 2); /* extra, comment, disk, attrs */
    put_le(&central, 0, 4);                              /* external attrs */
    put_le(&central, offset, 4);
    base_buf_append(&central, names[i], name_len);
  }
  size_t cd_offset = out->len;
  base_buf_append(out, central.data, central.len);
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 4);
  put_le(out, n, 2);
  put_le(out, n, 2);
  put_le(out, central.len, 4);
  put_le(out, cd_offset, 4);
  put_le(out, 0, 2);
  base_buf_free(&central);
}

/* ---- the loop ---- */

typedef struct load_input {
  const char *name;
  const void *data;
  size_t len;
} load_input;

static int count_rows(void *user, int statement, int ncols,
                      const weft_cell *cells) {
  (void)statement;
  (void)ncols;
  (void)cells;
  (*(int *)user)++;
  return 0;
}

/* One load + query with the Nth allocation failing (0 = none). Returns the
 * first failing status (WEFT_OK if all succeeded); *rows gets the row count. */
static int load_once(const load_input *in, uint64_t fail_at, int *rows,
                     char *msg, size_t msg_cap) {
  weft *w = NULL;
  *rows = 0;
  msg[0] = '\0';
  base_alloc_fail_after(fail_at);
  int rc = weft_open(&w, NULL);
  if (rc != WEFT_OK) {
    /* No instance, so no message: the status alone tells. */
    snprintf(msg, msg_cap, "weft_open: %s", w == NULL ? "no instance" : "instance left");
    base_alloc_fail_after(0);
    return rc;
  }
  rc = weft_file_begin(w, in->name);
  /* Two writes: the streaming buffer grows. */
  size_t half = in->len / 2;
  if (rc == WEFT_OK) rc = weft_file_write(w, in->data, half);
  if (rc == WEFT_OK) rc = weft_file_write(w, (const char *)in->data + half, in->len - half);
  if (rc == WEFT_OK) rc = weft_file_end(w);
  if (rc == WEFT_OK) rc = weft_load_finish(w);
  weft_query_callbacks cb = {NULL, count_rows, rows};
  if (rc == WEFT_OK)
    rc = weft_query(w, "select s.name, a.key from slice s left join args a "
                       "using (arg_set_id); select * from stats where value > 0",
                    &cb);
  if (w) snprintf(msg, msg_cap, "%s", weft_errmsg(w));
  weft_close(w);
  base_alloc_fail_after(0);
  return rc;
}

static void check_alloc_failures(const load_input *in) {
  char msg[1100];
  int expected_rows = 0;
  int rc = load_once(in, 0, &expected_rows, msg, sizeof msg);
  CHECK_MSG(rc == WEFT_OK, "%s: loads without failure: %s", in->name, msg);
  CHECK(expected_rows > 0);
  uint64_t failures = 0, tolerated = 0;
  for (uint64_t n = 1;; n++) {
    uint64_t before = base_alloc_count();
    int rows = 0;
    rc = load_once(in, n, &rows, msg, sizeof msg);
    uint64_t used = base_alloc_count() - before;
    if (used < n) { /* the Nth allocation never happened: done */
      CHECK_MSG(rc == WEFT_OK, "%s: n=%llu: %s", in->name, (unsigned long long)n, msg);
      break;
    }
    if (rc == WEFT_OK) {
      tolerated++; /* a failure some code can live without */
      if (rows != expected_rows)
        printf("  %s: allocation %llu failed silently: %d rows instead of %d\n", in->name,
               (unsigned long long)n, rows, expected_rows);
      continue;
    }
    failures++;
    CHECK_MSG(rc == WEFT_ENOMEM, "%s: allocation %llu failed, got status %d: %s",
              in->name, (unsigned long long)n, rc, msg);
    CHECK_MSG(msg[0] != 0, "%s: allocation %llu: no message (status %d)", in->name,
              (unsigned long long)n, rc);
  }
  printf("  %s: %llu failure points, %llu tolerated\n", in->name,
         (unsigned long long)(failures + tolerated), (unsigned long long)tolerated);
  CHECK(failures > 0);
}

static base_buf proto_trace;

static void test_proto(void) {
  load_input in = {"t.pb", proto_trace.data, proto_trace.len};
  check_alloc_failures(&in);
}

static void test_json(void) {
  load_input in = {"a.json", json_trace, strlen(json_trace)};
  check_alloc_failures(&in);
}

static void test_zip(void) {
  const char *names[] = {"t.pb", "a.json"};
  const void *datas[] = {proto_trace.data, json_trace};
  size_t lens[] = {proto_trace.len, strlen(json_trace)};
  base_buf zip;
  make_zip(&zip, 2, names, datas, lens);
  load_input in = {"both.zip", zip.data, zip.len};
  check_alloc_failures(&in);
  base_buf_free(&zip);
}

static void test_manifest_zip(void) {
  const char *names[] = {"t.pb", "a.json", "manifest.json"};
  const void *datas[] = {proto_trace.data, json_trace, manifest_json};
  size_t lens[] = {proto_trace.len, strlen(json_trace), strlen(manifest_json)};
  base_buf zip;
  make_zip(&zip, 3, names, datas, lens);
  load_input in = {"manifest.zip", zip.data, zip.len};
  check_alloc_failures(&in);
  base_buf_free(&zip);
}

int main(void) {
  make_proto(&proto_trace);
  RUN_TEST(test_proto);
  RUN_TEST(test_json);
  RUN_TEST(test_zip);
  RUN_TEST(test_manifest_zip);
  base_buf_free(&proto_trace);
  return CHECK_SUMMARY();
}
