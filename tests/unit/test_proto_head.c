/* Unit tests for src/import/proto/proto_head: which packets get a brief,
 * that a brief stands for exactly the head proto_head_read finds, and that
 * the scan records briefs in walk order only when it runs ahead. */
#include "check.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_head.h"
#include "import/proto/proto_import.h"
/* Only its protobuf writer is used here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "proto_test_util.h"

/* The brief of a packet, checked against its head when it has one. */
static proto_brief brief_checked(const pb *pkt) {
  proto_span span = {pkt->b, pkt->n};
  proto_packet_head read, back;
  CHECK(proto_head_read(span, &read) >= 0);
  proto_brief b = proto_brief_of(&read, span);
  if (b.kind != PROTO_BRIEF_NONE) {
    proto_head_of_brief(&b, span, &back);
    CHECK(memcmp(&back, &read, sizeof back) == 0);
  }
  return b;
}

/* A TrackEvent {type: 1, name: "n"} plus `extra` as its own fields. */
static pb track_event(const pb *extra) {
  pb te = {0};
  pb_int(&te, 9, 1);
  pb_str(&te, 23, "n");
  if (extra) {
    memcpy(te.b + te.n, extra->b, extra->n);
    te.n += extra->n;
  }
  return te;
}

static void test_track_event_packets(void) {
  pb te = track_event(NULL), pkt = {0};
  pb_int(&pkt, PROTO_TRACE_PACKET_TIMESTAMP, 1234567);
  pb_int(&pkt, PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID, 7);
  pb_msg(&pkt, PROTO_TRACE_PACKET_TRACK_EVENT, &te);
  proto_brief b = brief_checked(&pkt);
  CHECK_EQ_INT(b.kind, PROTO_BRIEF_TRACK_EVENT);
  CHECK_EQ_INT(b.ts, 1234567);
  CHECK_EQ_INT(b.seq_id, 7);
  CHECK_EQ_INT(b.span_len, te.n);
  CHECK(memcmp(pkt.b + b.span_off, te.b, te.n) == 0);
  /* sequence_flags without "cleared": SEQ_NEEDS_INCREMENTAL_STATE rides
   * in the brief (brief_checked: its head has needs_state). */
  pb_int(&pkt, PROTO_TRACE_PACKET_SEQUENCE_FLAGS, 2);
  CHECK_EQ_INT(brief_checked(&pkt).kind, PROTO_BRIEF_TRACK_EVENT | PROTO_BRIEF_NEEDS_STATE);
  proto_span span = {pkt.b, pkt.n};
  proto_packet_head h;
  proto_brief nb = brief_checked(&pkt);
  proto_head_of_brief(&nb, span, &h);
  CHECK_EQ_INT(h.needs_state, 1);
}

/* Anything more in the head, or legacy time in the event: no brief. */
static void test_no_brief(void) {
  pb te = track_event(NULL);
  static const uint32_t more[] = {PROTO_TRACE_PACKET_TIMESTAMP_CLOCK_ID,
                                  PROTO_TRACE_PACKET_MACHINE_ID,
                                  PROTO_TRACE_PACKET_INCREMENTAL_STATE_CLEARED,
                                  PROTO_TRACE_PACKET_FIRST_PACKET_ON_SEQUENCE,
                                  PROTO_TRACE_PACKET_PREVIOUS_PACKET_DROPPED};
  for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) {
    pb pkt = {0};
    pb_int(&pkt, PROTO_TRACE_PACKET_TIMESTAMP, 5);
    pb_int(&pkt, more[i], 1);
    pb_msg(&pkt, PROTO_TRACE_PACKET_TRACK_EVENT, &te);
    CHECK_EQ_INT(brief_checked(&pkt).kind, PROTO_BRIEF_NONE);
  }
  pb interned = {0}, pkt = {0};
  pb_str(&interned, 1, "x");
  pb_int(&pkt, PROTO_TRACE_PACKET_TIMESTAMP, 5);
  pb_msg(&pkt, PROTO_TRACE_PACKET_INTERNED_DATA, &interned);
  pb_msg(&pkt, PROTO_TRACE_PACKET_TRACK_EVENT, &te);
  CHECK_EQ_INT(brief_checked(&pkt).kind, PROTO_BRIEF_NONE);
  /* Two TrackEvents; none without a timestamp. */
  pb two = {0}, untimed = {0};
  pb_int(&two, PROTO_TRACE_PACKET_TIMESTAMP, 5);
  pb_msg(&two, PROTO_TRACE_PACKET_TRACK_EVENT, &te);
  pb_msg(&two, PROTO_TRACE_PACKET_TRACK_EVENT, &te);
  CHECK_EQ_INT(brief_checked(&two).kind, PROTO_BRIEF_NONE);
  pb_msg(&untimed, PROTO_TRACE_PACKET_TRACK_EVENT, &te);
  CHECK_EQ_INT(brief_checked(&untimed).kind, PROTO_BRIEF_NONE);
  /* Legacy time fields, absolute (16) or delta (1). */
  for (uint32_t field = 1; field <= 16; field += 15) {
    pb legacy = {0}, with = {0};
    pb_int(&legacy, field, 3);
    pb ev = track_event(&legacy);
    pb_int(&with, PROTO_TRACE_PACKET_TIMESTAMP, 5);
    pb_msg(&with, PROTO_TRACE_PACKET_TRACK_EVENT, &ev);
    CHECK_EQ_INT(brief_checked(&with).kind, PROTO_BRIEF_NONE);
  }
  /* A TrackEvent past the offsets a brief holds. */
  static uint8_t far[70000 + 64]; /* larger than a pb: built by hand */
  size_t n = 0;
  far[n++] = (uint8_t)(PROTO_TRACE_PACKET_TIMESTAMP << 3);
  far[n++] = 5;
  far[n++] = (uint8_t)(99 << 3 | 2); /* an unknown bytes field of 70000 */
  far[n++] = 0xf0, far[n++] = 0xa2, far[n++] = 0x04;
  memset(far + n, 'x', 70000);
  n += 70000;
  far[n++] = (uint8_t)(PROTO_TRACE_PACKET_TRACK_EVENT << 3 | 2);
  far[n++] = (uint8_t)te.n;
  memcpy(far + n, te.b, te.n);
  n += te.n;
  proto_span span = {far, n};
  proto_packet_head h;
  CHECK(proto_head_read(span, &h) >= 0);
  CHECK_EQ_INT(h.track_events, 1);
  CHECK_EQ_INT(proto_brief_of(&h, span).kind, PROTO_BRIEF_NONE);
}

static void test_ftrace_packets(void) {
  pb bundle = {0}, pkt = {0};
  pb_int(&bundle, 1, 2);
  pb_int(&pkt, PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID, 3);
  pb_msg(&pkt, PROTO_TRACE_PACKET_FTRACE_EVENTS, &bundle);
  proto_brief b = brief_checked(&pkt);
  CHECK_EQ_INT(b.kind, PROTO_BRIEF_FTRACE);
  CHECK_EQ_INT(b.seq_id, 3);
  CHECK_EQ_INT(b.span_len, bundle.n);
  pb_int(&pkt, PROTO_TRACE_PACKET_TIMESTAMP, 9); /* a timestamp too: read it */
  CHECK_EQ_INT(brief_checked(&pkt).kind, PROTO_BRIEF_NONE);
}

/* The scan's briefs: one per packet the walk meets, in order, when it runs
 * ahead; none when it runs in the file's turn. */
static void test_scan_briefs(void) {
  pb te = track_event(NULL), trace = {0};
  for (int i = 0; i < 6; i++) {
    pb pkt = {0};
    if (i != 2) pb_int(&pkt, PROTO_TRACE_PACKET_TIMESTAMP, 100 + (uint64_t)i);
    pb_int(&pkt, PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID, 1);
    pb_msg(&pkt, PROTO_TRACE_PACKET_TRACK_EVENT, &te);
    pb_msg(&trace, PROTO_TRACE_PACKET, &pkt);
    if (i == 3) pb_int(&trace, 2, 1); /* not a packet: skipped by both walks */
  }
  for (int in_turn = 0; in_turn <= 1; in_turn++) {
    import_scan_input in = {trace.b, trace.n, NULL, 0, 0, in_turn};
    void *result = NULL;
    base_error err = {0};
    CHECK_EQ_INT(proto_scan(&in, &result, &err), WEFT_OK);
    size_t n = 99;
    const proto_brief *b = proto_scanned_briefs(result, &n);
    if (in_turn) {
      CHECK(b == NULL && n == 0);
    } else {
      CHECK_EQ_INT(n, 6);
      for (size_t i = 0; b && i < n; i++) {
        CHECK_EQ_INT(b[i].kind, i == 2 ? PROTO_BRIEF_NONE : PROTO_BRIEF_TRACK_EVENT);
        if (i != 2) CHECK_EQ_INT(b[i].ts, 100 + (int64_t)i);
      }
    }
    proto_scan_free(result);
  }
}

int main(void) {
  RUN_TEST(test_track_event_packets);
  RUN_TEST(test_no_brief);
  RUN_TEST(test_ftrace_packets);
  RUN_TEST(test_scan_briefs);
  return CHECK_SUMMARY();
}
