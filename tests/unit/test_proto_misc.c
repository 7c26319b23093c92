/* Unit tests for proto_misc: fingerprint parsing, trace diagnostics rules,
 * legacy delta timestamps and hostile service packets, through the public
 * API with hand-encoded traces. */
#include <stdlib.h>

#include "check.h"
#include "import/proto/proto_misc.h"
#include "weft/weft.h"

/* ---- a tiny protobuf writer ---- */
typedef struct pb {
  uint8_t b[4096];
  size_t n;
} pb;

static void pb_varint(pb *p, uint64_t v) {
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    if (p->n < sizeof p->b) p->b[p->n++] = (uint8_t)(c | (v ? 0x80 : 0));
  } while (v);
}
static void pb_int(pb *p, uint32_t field, uint64_t v) {
  pb_varint(p, (uint64_t)field << 3);
  pb_varint(p, v);
}
static void pb_bytes(pb *p, uint32_t field, const void *data, size_t len) {
  pb_varint(p, (uint64_t)field << 3 | 2);
  pb_varint(p, len);
  if (p->n + len <= sizeof p->b) {
    memcpy(p->b + p->n, data, len);
    p->n += len;
  }
}
static void pb_msg(pb *p, uint32_t field, const pb *m) { pb_bytes(p, field, m->b, m->n); }
static void pb_str(pb *p, uint32_t field, const char *s) { pb_bytes(p, field, s, strlen(s)); }

/* ---- running queries ---- */
typedef struct result {
  char text[1024];
} result;

static int on_row(void *user, int st, int ncols, const weft_cell *cells) {
  (void)st;
  result *r = user;
  for (int i = 0; i < ncols; i++) {
    size_t n = strlen(r->text);
    if (cells[i].type == WEFT_CELL_INT)
      snprintf(r->text + n, sizeof r->text - n, "%" PRId64 ",", cells[i].i);
    else if (cells[i].type == WEFT_CELL_DOUBLE)
      snprintf(r->text + n, sizeof r->text - n, "%.2f,", cells[i].d);
    else if (cells[i].type == WEFT_CELL_STRING)
      snprintf(r->text + n, sizeof r->text - n, "%s,", cells[i].s);
    else
      snprintf(r->text + n, sizeof r->text - n, "NULL,");
  }
  return 0;
}

static weft *load(const pb *trace) {
  weft *w = NULL;
  if (weft_open(&w, NULL)) return NULL;
  if (weft_file_begin(w, "t.pb") || weft_file_write(w, trace->b, trace->n) ||
      weft_file_end(w) || weft_load_finish(w)) {
    weft_close(w);
    return NULL;
  }
  return w;
}

static const char *query(weft *w, result *r, const char *sql) {
  r->text[0] = '\0';
  weft_query_callbacks cb = {NULL, on_row, r};
  if (weft_query(w, sql, &cb)) return "ERROR";
  return r->text;
}

static void packet(pb *trace, const pb *pkt) { pb_msg(trace, 1, pkt); }

/* ---- tests ---- */

static void test_fingerprint_sdk(void) {
  const char *fp = "google/coral/coral:12/SP1A.210812.015/7679548:userdebug/dev-keys";
  CHECK_EQ_INT(proto_fingerprint_sdk_version(fp, strlen(fp)), 31);
  const char *old = "google/shamu/shamu:7.0/NBD92F/3753956:userdebug/dev-keys";
  CHECK_EQ_INT(proto_fingerprint_sdk_version(old, strlen(old)), 24);
  CHECK_EQ_INT(proto_fingerprint_sdk_version("no-colon", 8), -1);
  CHECK_EQ_INT(proto_fingerprint_sdk_version("a:99/b", 6), -1);
  CHECK_EQ_INT(proto_fingerprint_sdk_version("a:12", 4), -1); /* no '/' */
}

/* TraceConfig { data_sources { config { name, ftrace_config {...} } } } */
static void ftrace_config_trace(pb *trace, uint64_t buffer_kb, uint64_t drain_ms) {
  pb ftrace = {0}, cfg = {0}, ds = {0}, tc = {0}, pkt = {0};
  pb_int(&ftrace, 10, buffer_kb);
  if (drain_ms) pb_int(&ftrace, 11, drain_ms);
  pb_str(&cfg, 1, "linux.ftrace");
  pb_msg(&cfg, 100, &ftrace);
  pb_msg(&ds, 1, &cfg);
  pb_msg(&tc, 2, &ds);
  pb_msg(&pkt, 33, &tc);
  packet(trace, &pkt);
}

static void test_diagnostics_confidence(void) {
  pb trace = {0};
  ftrace_config_trace(&trace, 544, 0);
  weft *w = load(&trace);
  CHECK(w != NULL);
  if (!w) return;
  result r;
  CHECK_EQ_STR(query(w, &r, "select key, confidence from __intrinsic_trace_diagnostics"),
               "tiny_ftrace_buffer,0.55,");
  weft_close(w);

  pb ok = {0};
  ftrace_config_trace(&ok, 8192, 250); /* 32 MB/s, sane period */
  w = load(&ok);
  CHECK(w != NULL);
  if (!w) return;
  CHECK_EQ_STR(query(w, &r, "select count(*) from trace_diagnostics"), "0,");
  weft_close(w);

  pb slow = {0};
  ftrace_config_trace(&slow, 2048, 1000); /* 2 MB/s: 0.9 * 3/4 */
  w = load(&slow);
  CHECK(w != NULL);
  if (!w) return;
  CHECK_EQ_STR(query(w, &r, "select name, confidence from trace_diagnostics"),
               "low_ftrace_drain_bandwidth,0.68,");
  weft_close(w);
}

static void test_delta_timestamp_overflow(void) {
  pb trace = {0}, td = {0}, pkt = {0};
  /* ThreadDescriptor with a reference near INT64_MIN (in us). */
  pb_int(&td, 1, 1);
  pb_int(&td, 2, 1);
  pb_int(&td, 6, (uint64_t)(INT64_MIN / 1000 + 1));
  pb_int(&pkt, 10, 1);
  pb_msg(&pkt, 44, &td);
  packet(&trace, &pkt);
  /* TrackEvent instant with absolute time: kept. */
  pb ev = {0};
  pb_int(&ev, 9, 3);
  pb_int(&ev, 16, 5);
  pb_str(&ev, 23, "good");
  memset(&pkt, 0, sizeof pkt);
  pb_int(&pkt, 10, 1);
  pb_msg(&pkt, 11, &ev);
  packet(&trace, &pkt);
  /* TrackEvent with delta -1000 us: overflows, dropped and counted; a second
   * delta of 0 is dropped too (the reference stays invalid). */
  for (int i = 0; i < 2; i++) {
    pb bad = {0};
    pb_int(&bad, 9, 3);
    pb_int(&bad, 1, i == 0 ? (uint64_t)(int64_t)-1000 : 0);
    pb_str(&bad, 23, "bad");
    memset(&pkt, 0, sizeof pkt);
    pb_int(&pkt, 10, 1);
    pb_msg(&pkt, 11, &bad);
    packet(&trace, &pkt);
  }
  weft *w = load(&trace);
  CHECK(w != NULL);
  if (!w) return;
  result r;
  CHECK_EQ_STR(query(w, &r, "select name, ts from slice"), "good,5000,");
  CHECK_EQ_STR(query(w, &r, "select value from stats where name = "
                            "'track_event_invalid_timestamp'"), "2,");
  weft_close(w);
}

/* Garbage inside service packets is ignored, never fatal. */
static void test_hostile_packets(void) {
  static const uint8_t junk[] = {0xff, 0xff, 0xff, 0x0a, 0x80};
  static const uint32_t fields[] = {33, 35, 45, 46, 67, 69, 89, 90, 113, 134};
  pb trace = {0};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
    pb pkt = {0};
    pb_int(&pkt, 8, 100 + i);
    pb_bytes(&pkt, fields[i], junk, sizeof junk);
    packet(&trace, &pkt);
  }
  weft *w = load(&trace);
  CHECK(w != NULL);
  if (!w) return;
  result r;
  CHECK_EQ_STR(query(w, &r, "select count(*) from trace_diagnostics"), "0,");
  weft_close(w);
}

int main(void) {
  RUN_TEST(test_fingerprint_sdk);
  RUN_TEST(test_diagnostics_confidence);
  RUN_TEST(test_delta_timestamp_overflow);
  RUN_TEST(test_hostile_packets);
  return CHECK_SUMMARY();
}
