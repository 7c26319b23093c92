/* Unit tests for src/import/proto/proto_packets: TracePacket iteration over
 * generated traces (good, unexpected fields, garbage, truncation), the
 * chunked stream tokenizer, compressed_packets inflation (zlib, gzip, raw
 * deflate round trips, bombs hitting the byte and ratio caps, corrupt
 * streams, allocation failures) and, when protoc is installed, the example
 * textprotos in tests/data/proto decoded with the proto_fields.h numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

#include "base/base.h"
#include "check.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_packets.h"

/* A TracePacket {timestamp: ts, trusted_packet_sequence_id: seq}. */
static void put_packet(base_buf *trace, uint64_t ts, uint32_t seq) {
  base_buf pkt;
  base_buf_init(&pkt, 0);
  proto_put_varint_field(&pkt, PROTO_TRACE_PACKET_TIMESTAMP, ts);
  proto_put_varint_field(&pkt, PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID,
                         seq);
  proto_put_bytes_field(trace, PROTO_TRACE_PACKET, pkt.data, pkt.len);
  base_buf_free(&pkt);
}

static uint64_t packet_ts(const proto_packet *p) {
  proto_field f;
  if (proto_find_first(p->data.data, p->data.len,
                       PROTO_TRACE_PACKET_TIMESTAMP, &f) != 1)
    return UINT64_MAX;
  return f.value;
}

static uint8_t *dup_bytes(const void *src, size_t len) {
  uint8_t *p = malloc(len ? len : 1);
  if (len) memcpy(p, src, len);
  return p;
}

static void test_iterate_good(void) {
  base_buf t;
  base_buf_init(&t, 0);
  for (int i = 0; i < 50; i++) put_packet(&t, 1000 + (uint64_t)i, 1);
  put_packet(&t, 0, 0); /* an empty-ish packet is still a packet */
  proto_put_bytes_field(&t, PROTO_TRACE_PACKET, NULL, 0);
  uint8_t *p = dup_bytes(t.data, t.len);
  proto_packet_iter it;
  proto_packets_init(&it, p, t.len, 0);
  proto_packet pkt;
  base_error err = {0};
  int n = 0;
  uint64_t last_off = 0;
  while (proto_packets_next(&it, &pkt, &err) == 1) {
    if (n < 50) CHECK_EQ_INT(packet_ts(&pkt), 1000 + n);
    CHECK(n == 0 || pkt.offset > last_off);
    CHECK(pkt.data.data == NULL || pkt.data.data >= p);
    last_off = pkt.offset;
    n++;
  }
  CHECK_EQ_INT(n, 52);
  CHECK_EQ_INT(it.error, PROTO_PACKETS_ERR_NONE);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), 0);
  free(p);
  /* Empty trace. */
  proto_packets_init(&it, NULL, 0, 0);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), 0);
  base_buf_free(&t);
}

static void test_iterate_unexpected_field(void) {
  base_buf t;
  base_buf_init(&t, 0);
  put_packet(&t, 1, 1);
  size_t bad1 = t.len;
  proto_put_varint_field(&t, 2, 5); /* not a packet */
  put_packet(&t, 2, 1);
  size_t bad2 = t.len;
  proto_put_varint_field(&t, PROTO_TRACE_PACKET, 9); /* field 1, varint */
  put_packet(&t, 3, 1);
  uint8_t *p = dup_bytes(t.data, t.len);
  proto_packet_iter it;
  proto_packets_init(&it, p, t.len, 1000);
  proto_packet pkt;
  base_error err = {0};
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), 1);
  CHECK_EQ_INT(pkt.offset, 1000);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), WEFT_EPARSE);
  CHECK_EQ_INT(it.error, PROTO_PACKETS_ERR_UNEXPECTED_FIELD);
  CHECK_EQ_INT(it.error_offset, 1000 + bad1);
  CHECK_EQ_INT(it.error_field, 2);
  CHECK(strstr(err.message, "unexpected top-level field 2") != NULL);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), 1);
  CHECK_EQ_INT(packet_ts(&pkt), 2);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), WEFT_EPARSE);
  CHECK_EQ_INT(it.error_offset, 1000 + bad2);
  CHECK_EQ_INT(it.error_field, 1);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), 1);
  CHECK_EQ_INT(packet_ts(&pkt), 3);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), 0);
  free(p);
  base_buf_free(&t);
}

static void test_iterate_garbage_and_truncation(void) {
  base_buf t;
  base_buf_init(&t, 0);
  put_packet(&t, 1, 1);
  size_t good = t.len;
  const uint8_t junk[] = {0x00, 0x01, 0x02};
  base_buf_append(&t, junk, sizeof junk);
  put_packet(&t, 2, 1);
  uint8_t *p = dup_bytes(t.data, t.len);
  proto_packet_iter it;
  proto_packets_init(&it, p, t.len, 0);
  proto_packet pkt;
  base_error err = {0};
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), 1);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), WEFT_EPARSE);
  CHECK_EQ_INT(it.error, PROTO_PACKETS_ERR_GARBAGE);
  CHECK_EQ_INT(it.error_offset, good);
  CHECK(strstr(err.message, "field number 0") != NULL);
  CHECK_EQ_INT(proto_packets_next(&it, &pkt, &err), WEFT_EPARSE); /* sticky */
  free(p);

  /* Every truncation of a two-packet trace: packets then TRUNCATED or end. */
  base_buf_reset(&t);
  put_packet(&t, 1, 1);
  size_t first = t.len;
  put_packet(&t, 123456789, 7);
  for (size_t n = 0; n <= t.len; n++) {
    p = dup_bytes(t.data, n);
    proto_packets_init(&it, p, n, 0);
    int count = 0, rc;
    while ((rc = proto_packets_next(&it, &pkt, &err)) == 1) count++;
    if (n == 0 || n == first || n == t.len) {
      CHECK_EQ_INT(rc, 0);
    } else {
      CHECK_EQ_INT(rc, WEFT_EPARSE);
      CHECK_EQ_INT(it.error, PROTO_PACKETS_ERR_TRUNCATED);
      CHECK_EQ_INT(it.error_offset, n < first ? 0 : first);
      CHECK(strstr(err.message, "truncated") != NULL);
    }
    CHECK_EQ_INT(count, n < first ? 0 : n < t.len ? 1 : 2);
    free(p);
  }
  base_buf_free(&t);
}

/* ---- streaming ---- */

typedef struct collected {
  uint64_t ts[256];
  uint64_t off[256];
  int n;
  int stop_at; /* return WEFT_EABORT at this packet (0 = never) */
} collected;

static int collect_packet(void *ctx, const proto_packet *pkt) {
  collected *c = ctx;
  if (c->n < 256) {
    c->ts[c->n] = packet_ts(pkt);
    c->off[c->n] = pkt->offset;
  }
  c->n++;
  return c->stop_at && c->n == c->stop_at ? WEFT_EABORT : WEFT_OK;
}

static void build_stream_trace(base_buf *t) {
  base_buf_init(t, 0);
  for (int i = 0; i < 20; i++) {
    put_packet(t, 100 + (uint64_t)i, 1);
    if (i == 5) proto_put_varint_field(t, 3, 1); /* unexpected */
    if (i == 9) {                               /* a big packet */
      base_buf pkt;
      base_buf_init(&pkt, 0);
      proto_put_varint_field(&pkt, PROTO_TRACE_PACKET_TIMESTAMP, 999);
      char blob[3000];
      memset(blob, 'z', sizeof blob);
      proto_put_bytes_field(&pkt, PROTO_TRACE_PACKET_SYNCHRONIZATION_MARKER,
                            blob, sizeof blob);
      proto_put_bytes_field(t, PROTO_TRACE_PACKET, pkt.data, pkt.len);
      base_buf_free(&pkt);
    }
  }
}

static void test_stream_chunks(void) {
  base_buf t;
  build_stream_trace(&t);
  /* Reference: in-memory iteration. */
  collected ref = {0};
  proto_packet_iter it;
  proto_packets_init(&it, t.data, t.len, 0);
  proto_packet pkt;
  base_error err = {0};
  int rc;
  while ((rc = proto_packets_next(&it, &pkt, &err)) != 0)
    if (rc == 1) collect_packet(&ref, &pkt);
  CHECK_EQ_INT(ref.n, 21);

  const size_t chunks[] = {1, 2, 3, 7, 64, 1000, 4096, 1 << 20};
  for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
    proto_packet_stream s;
    proto_packet_stream_init(&s, 0);
    collected got = {0};
    for (size_t off = 0; off < t.len; off += chunks[c]) {
      size_t n = t.len - off < chunks[c] ? t.len - off : chunks[c];
      uint8_t *p = dup_bytes(t.data + off, n);
      rc = proto_packet_stream_feed(&s, p, n, collect_packet, &got, &err);
      free(p);
      CHECK_EQ_INT(rc, 0);
    }
    CHECK_EQ_INT(proto_packet_stream_finish(&s, &err), 0);
    CHECK_EQ_INT(got.n, ref.n);
    for (int i = 0; i < ref.n && i < got.n; i++) {
      CHECK(got.ts[i] == ref.ts[i]);
      CHECK(got.off[i] == ref.off[i]);
    }
    CHECK_EQ_INT(s.unexpected_fields, 1);
    CHECK_EQ_INT(s.first_unexpected_field, 3);
    proto_packet_stream_free(&s);
  }
  base_buf_free(&t);
}

static void test_stream_errors(void) {
  base_buf t;
  build_stream_trace(&t);
  base_error err = {0};
  collected got = {0};
  proto_packet_stream s;

  /* Truncated: all but the last byte. */
  proto_packet_stream_init(&s, 0);
  CHECK_EQ_INT(proto_packet_stream_feed(&s, t.data, t.len - 1, collect_packet,
                                        &got, &err), 0);
  CHECK_EQ_INT(proto_packet_stream_finish(&s, &err), WEFT_EPARSE);
  CHECK(strstr(err.message, "truncated") != NULL);
  CHECK_EQ_INT(got.n, 20);
  proto_packet_stream_free(&s);

  /* Garbage after some packets, fed byte by byte. */
  proto_packet_stream_init(&s, 0);
  base_buf g;
  base_buf_init(&g, 0);
  put_packet(&g, 1, 1);
  const uint8_t junk[] = {0x0F, 0x00};
  base_buf_append(&g, junk, 2);
  got.n = 0;
  int rc = 0;
  for (size_t i = 0; i < g.len && rc == 0; i++)
    rc = proto_packet_stream_feed(&s, g.data + i, 1, collect_packet, &got,
                                  &err);
  CHECK_EQ_INT(rc, WEFT_EPARSE);
  CHECK_EQ_INT(got.n, 1);
  CHECK_EQ_INT(proto_packet_stream_feed(&s, "x", 1, collect_packet, &got, &err),
               WEFT_EPARSE);
  proto_packet_stream_free(&s);
  base_buf_free(&g);

  /* Packet size cap. */
  proto_packet_stream_init(&s, 100);
  got.n = 0;
  rc = proto_packet_stream_feed(&s, t.data, t.len, collect_packet, &got, &err);
  CHECK_EQ_INT(rc, WEFT_ELIMIT);
  CHECK_EQ_INT(got.n, 10);
  proto_packet_stream_free(&s);
  proto_packet_stream_init(&s, 100);
  got.n = 0;
  for (size_t i = 0; i < t.len && rc != WEFT_ELIMIT; i += 5)
    rc = proto_packet_stream_feed(&s, t.data + i, 5, collect_packet, &got,
                                  &err);
  CHECK_EQ_INT(rc, WEFT_ELIMIT);
  proto_packet_stream_free(&s);

  /* Callback abort is returned as is. */
  proto_packet_stream_init(&s, 0);
  got.n = 0;
  got.stop_at = 3;
  CHECK_EQ_INT(proto_packet_stream_feed(&s, t.data, t.len, collect_packet, &got,
                                        &err),
               WEFT_EABORT);
  CHECK_EQ_INT(got.n, 3);
  proto_packet_stream_free(&s);

  /* Allocation failure while carrying a split packet. */
  for (uint64_t fail = 1; fail < 6; fail++) {
    proto_packet_stream_init(&s, 0);
    got.n = 0;
    got.stop_at = 0;
    base_alloc_fail_after(fail);
    rc = 0;
    for (size_t i = 0; i < t.len && rc == 0; i += 100)
      rc = proto_packet_stream_feed(&s, t.data + i,
                                    t.len - i < 100 ? t.len - i : 100,
                                    collect_packet, &got, &err);
    base_alloc_fail_after(0);
    CHECK(rc == 0 || rc == WEFT_ENOMEM);
    proto_packet_stream_free(&s);
  }
  base_buf_free(&t);
}

/* ---- compressed packets ---- */

static void deflate_with(const void *src, size_t len, int window_bits,
                         base_buf *out) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  CHECK_EQ_INT(deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8,
                            Z_DEFAULT_STRATEGY),
               Z_OK);
  uLong bound = deflateBound(&zs, (uLong)len);
  uint8_t *buf = malloc(bound);
  zs.next_in = (Bytef *)(uintptr_t)src;
  zs.avail_in = (uInt)len;
  zs.next_out = buf;
  zs.avail_out = (uInt)bound;
  CHECK_EQ_INT(deflate(&zs, Z_FINISH), Z_STREAM_END);
  base_buf_append(out, buf, bound - zs.avail_out);
  deflateEnd(&zs);
  free(buf);
}

static void test_compressed_roundtrip(void) {
  base_buf inner;
  base_buf_init(&inner, 0);
  for (int i = 0; i < 200; i++) put_packet(&inner, 5000 + (uint64_t)i, 2);
  const int windows[] = {15, 15 + 16, -15}; /* zlib, gzip, raw deflate */
  for (int w = 0; w < 3; w++) {
    base_buf z, outer, out;
    base_buf_init(&z, 0);
    base_buf_init(&outer, 0);
    base_buf_init(&out, 0);
    deflate_with(inner.data, inner.len, windows[w], &z);
    /* outer trace: a normal packet, then one carrying compressed_packets */
    put_packet(&outer, 1, 1);
    base_buf pkt;
    base_buf_init(&pkt, 0);
    proto_put_varint_field(&pkt, PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID,
                           2);
    proto_put_bytes_field(&pkt, PROTO_TRACE_PACKET_COMPRESSED_PACKETS, z.data,
                          z.len);
    proto_put_bytes_field(&outer, PROTO_TRACE_PACKET, pkt.data, pkt.len);
    base_buf_free(&pkt);

    proto_packet_iter it;
    proto_packets_init(&it, outer.data, outer.len, 0);
    proto_packet p;
    base_error err = {0};
    proto_span payload;
    CHECK_EQ_INT(proto_packets_next(&it, &p, &err), 1);
    CHECK_EQ_INT(proto_packet_compressed_payload(&p, &payload), 0);
    CHECK_EQ_INT(proto_packets_next(&it, &p, &err), 1);
    CHECK_EQ_INT(proto_packet_compressed_payload(&p, &payload), 1);
    CHECK_EQ_INT(payload.len, z.len);
    uint8_t *zc = dup_bytes(payload.data, payload.len);
    proto_inflate_limits lim = {.max_bytes = 1 << 20, .max_ratio = 1000};
    CHECK_EQ_INT(proto_inflate(zc, payload.len, &lim, &out, &err), 0);
    CHECK_EQ_INT(out.len, inner.len);
    CHECK(memcmp(out.data, inner.data, inner.len) == 0);
    proto_packet_iter in_it;
    proto_packets_init(&in_it, out.data, out.len, 0);
    int n = 0;
    while (proto_packets_next(&in_it, &p, &err) == 1) {
      CHECK_EQ_INT(packet_ts(&p), 5000 + n);
      n++;
    }
    CHECK_EQ_INT(n, 200);
    /* The output buffer is reusable. */
    CHECK_EQ_INT(proto_inflate(zc, payload.len, NULL, &out, &err), 0);
    CHECK_EQ_INT(out.len, inner.len);
    free(zc);
    base_buf_free(&z);
    base_buf_free(&outer);
    base_buf_free(&out);
  }
  base_buf_free(&inner);
}

static void test_compressed_bombs(void) {
  const size_t big = 8u << 20;
  uint8_t *zeros = calloc(1, big);
  base_buf z, out;
  base_buf_init(&z, 0);
  base_buf_init(&out, 0);
  deflate_with(zeros, big, 15, &z);
  free(zeros);
  base_error err = {0};
  CHECK(z.len < big / 500);

  proto_inflate_limits lim = {.max_bytes = 1 << 20, .max_ratio = 0};
  CHECK_EQ_INT(proto_inflate((uint8_t *)z.data, z.len, &lim, &out, &err),
               WEFT_ELIMIT);
  CHECK(strstr(err.message, "decompressed size") != NULL);
  CHECK_EQ_INT(out.len, 0);
  CHECK(out.cap <= (1u << 20) + 2);

  lim.max_bytes = 0;
  lim.max_ratio = 100;
  CHECK_EQ_INT(proto_inflate((uint8_t *)z.data, z.len, &lim, &out, &err),
               WEFT_ELIMIT);
  CHECK(strstr(err.message, "compression ratio") != NULL);

  /* Exactly at the byte cap is fine; one below is not. */
  lim.max_ratio = 0;
  lim.max_bytes = big;
  CHECK_EQ_INT(proto_inflate((uint8_t *)z.data, z.len, &lim, &out, &err), 0);
  CHECK_EQ_INT(out.len, big);
  lim.max_bytes = big - 1;
  CHECK_EQ_INT(proto_inflate((uint8_t *)z.data, z.len, &lim, &out, &err),
               WEFT_ELIMIT);
  base_buf_free(&out);

  /* The caller's buffer limit applies too. */
  base_buf_init(&out, 4096);
  CHECK_EQ_INT(proto_inflate((uint8_t *)z.data, z.len, NULL, &out, &err),
               WEFT_ELIMIT);
  base_buf_free(&out);
  base_buf_free(&z);
}

static void test_compressed_corrupt(void) {
  base_buf inner, z, out;
  base_buf_init(&inner, 0);
  base_buf_init(&z, 0);
  base_buf_init(&out, 0);
  for (int i = 0; i < 50; i++) put_packet(&inner, (uint64_t)i, 1);
  deflate_with(inner.data, inner.len, 15, &z);
  base_error err = {0};
  /* Every truncation fails cleanly. */
  for (size_t n = 0; n < z.len; n++) {
    uint8_t *p = dup_bytes(z.data, n);
    int rc = proto_inflate(p, n, NULL, &out, &err);
    CHECK_EQ_INT(rc, WEFT_EPARSE);
    free(p);
  }
  /* Flipped bytes never crash; most fail. */
  for (size_t i = 0; i < z.len; i++) {
    uint8_t *p = dup_bytes(z.data, z.len);
    p[i] ^= 0x5A;
    int rc = proto_inflate(p, z.len, NULL, &out, &err);
    CHECK(rc == 0 || rc == WEFT_EPARSE);
    free(p);
  }
  const uint8_t garbage[] = "this is not deflate data at all";
  CHECK_EQ_INT(proto_inflate(garbage, sizeof garbage, NULL, &out, &err),
               WEFT_EPARSE);
  CHECK_EQ_INT(proto_inflate(NULL, 0, NULL, &out, &err), WEFT_EPARSE);
  /* Allocation failures: ENOMEM or success, never a leak or a crash. */
  for (uint64_t fail = 1; fail < 8; fail++) {
    base_buf o2;
    base_buf_init(&o2, 0);
    base_alloc_fail_after(fail);
    int rc = proto_inflate((uint8_t *)z.data, z.len, NULL, &o2, &err);
    base_alloc_fail_after(0);
    CHECK(rc == 0 || rc == WEFT_ENOMEM);
    base_buf_free(&o2);
  }
  base_buf_free(&inner);
  base_buf_free(&z);
  base_buf_free(&out);
}

/* ---- example textprotos, encoded by protoc (scripts/deps.sh installs it) ---- */

/* ctest runs in tests/; a manual run may be from the repository root. */
static int encode_example(const char *name, base_buf *out) {
  const char *root = "..";
  FILE *probe = fopen("../protos/weft_trace.proto", "r");
  if (!probe) root = ".";
  else fclose(probe);
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "protoc --encode=perfetto.protos.Trace -I %s/protos "
           "%s/protos/weft_trace.proto < %s/tests/data/proto/%s",
           root, root, root, name);
  FILE *f = popen(cmd, "r");
  if (!f) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) base_buf_append(out, buf, n);
  return pclose(f) == 0 && out->len > 0 ? 0 : -1;
}

static int count_fields(proto_span s, uint32_t number) {
  proto_reader r;
  proto_reader_init_span(&r, s);
  proto_field f;
  int n = 0;
  while (proto_reader_next(&r, &f) == 1) n += f.number == number;
  return r.status ? -1 : n;
}

static void test_example_track_events(void) {
  base_buf t;
  base_buf_init(&t, 0);
  CHECK_EQ_INT(encode_example("track_events.textproto", &t), 0);
  proto_packet_iter it;
  proto_packets_init(&it, t.data, t.len, 0);
  proto_packet p;
  base_error err = {0};
  int n = 0, events = 0, descriptors = 0, clocks = 0;
  proto_field f;
  while (proto_packets_next(&it, &p, &err) == 1) {
    n++;
    if (proto_find_first(p.data.data, p.data.len,
                         PROTO_TRACE_PACKET_CLOCK_SNAPSHOT, &f) == 1)
      clocks = count_fields(f.span, PROTO_CLOCK_SNAPSHOT_CLOCKS);
    if (proto_find_first(p.data.data, p.data.len,
                         PROTO_TRACE_PACKET_TRACK_DESCRIPTOR, &f) == 1)
      descriptors++;
    if (proto_find_first(p.data.data, p.data.len,
                         PROTO_TRACE_PACKET_TRACK_EVENT, &f) == 1) {
      events++;
      proto_field type;
      CHECK_EQ_INT(proto_find_first(f.span.data, f.span.len,
                                    PROTO_TRACK_EVENT_TYPE, &type), 1);
      CHECK(type.value >= PROTO_TRACK_EVENT_TYPE_SLICE_BEGIN &&
            type.value <= PROTO_TRACK_EVENT_TYPE_COUNTER);
    }
    if (proto_find_first(p.data.data, p.data.len,
                         PROTO_TRACE_PACKET_PROCESS_TREE, &f) == 1) {
      CHECK_EQ_INT(count_fields(f.span, PROTO_PROCESS_TREE_PROCESSES), 2);
      CHECK_EQ_INT(count_fields(f.span, PROTO_PROCESS_TREE_THREADS), 2);
    }
  }
  CHECK_EQ_INT(it.error, PROTO_PACKETS_ERR_NONE);
  CHECK_EQ_INT(n, 9);
  CHECK_EQ_INT(clocks, 3);
  CHECK_EQ_INT(descriptors, 3);
  CHECK_EQ_INT(events, 4);
  base_buf_free(&t);
}

static void test_example_ftrace(void) {
  base_buf t;
  base_buf_init(&t, 0);
  CHECK_EQ_INT(encode_example("ftrace_sched.textproto", &t), 0);
  proto_packet_iter it;
  proto_packets_init(&it, t.data, t.len, 0);
  proto_packet p;
  base_error err = {0};
  int events = 0, switches = 0, compact_switches = 0, wakings = 0;
  proto_field bundle;
  while (proto_packets_next(&it, &p, &err) == 1) {
    if (proto_find_first(p.data.data, p.data.len,
                         PROTO_TRACE_PACKET_FTRACE_EVENTS, &bundle) != 1)
      continue;
    proto_reader r;
    proto_reader_init_span(&r, bundle.span);
    proto_field f;
    while (proto_reader_next(&r, &f) == 1) {
      if (f.number == PROTO_FTRACE_EVENT_BUNDLE_EVENT) {
        events++;
        proto_field e;
        if (proto_find_first(f.span.data, f.span.len,
                             PROTO_FTRACE_EVENT_SCHED_SWITCH, &e) == 1) {
          switches++;
          proto_field pid;
          CHECK_EQ_INT(proto_find_first(e.span.data, e.span.len,
                                        PROTO_SCHED_SWITCH_NEXT_PID, &pid), 1);
          CHECK(pid.value == 11 || pid.value == 0);
        }
      } else if (f.number == PROTO_FTRACE_EVENT_BUNDLE_COMPACT_SCHED) {
        proto_field col;
        CHECK_EQ_INT(proto_find_first(f.span.data, f.span.len,
                                      PROTO_COMPACT_SCHED_SWITCH_TIMESTAMP,
                                      &col), 1);
        size_t cnt = 0;
        CHECK_EQ_INT(proto_packed_count_varints(col.span, &cnt), 0);
        compact_switches += (int)cnt;
        CHECK_EQ_INT(proto_find_first(f.span.data, f.span.len,
                                      PROTO_COMPACT_SCHED_WAKING_PID, &col), 1);
        proto_packed_iter pi;
        proto_packed_init(&pi, col.span);
        uint64_t v;
        while (proto_packed_next_varint(&pi, &v) == 1) {
          CHECK_EQ_INT(v, 21);
          wakings++;
        }
        CHECK_EQ_INT(count_fields(f.span, PROTO_COMPACT_SCHED_INTERN_TABLE), 2);
      }
    }
    CHECK_EQ_INT(r.status, 0);
  }
  CHECK_EQ_INT(events, 10);
  CHECK_EQ_INT(switches, 2);
  CHECK_EQ_INT(compact_switches, 2);
  CHECK_EQ_INT(wakings, 1);
  base_buf_free(&t);
}

int main(void) {
  RUN_TEST(test_iterate_good);
  RUN_TEST(test_iterate_unexpected_field);
  RUN_TEST(test_iterate_garbage_and_truncation);
  RUN_TEST(test_stream_chunks);
  RUN_TEST(test_stream_errors);
  RUN_TEST(test_compressed_roundtrip);
  RUN_TEST(test_compressed_bombs);
  RUN_TEST(test_compressed_corrupt);
  RUN_TEST(test_example_track_events);
  RUN_TEST(test_example_ftrace);
  return CHECK_SUMMARY();
}
