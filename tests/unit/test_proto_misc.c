/* Unit tests for proto_misc: fingerprint parsing, trace diagnostics rules,
 * legacy delta timestamps and hostile service packets, through the public
 * API with hand-encoded traces. */
#include <stdlib.h>

#include "check.h"
#include "import/proto/proto_misc.h"
#include "weft/weft.h"

#include "proto_test_util.h"

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
  pb_int(&pkt, 41, 1); /* incremental_state_cleared: the descriptor applies */
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
