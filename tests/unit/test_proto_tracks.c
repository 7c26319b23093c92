/* Unit tests for the track-event track model (proto_tracks) and the trace
 * config text (proto_config_text): hostile descriptor hierarchies,
 * conflicting reservations, text rendering of unknown fields, escaping and
 * deep nesting. Traces are hand-encoded. */
#include <stdlib.h>

#include "check.h"
#include "import/proto/proto_config_text.h"
#include "weft/weft.h"

#include "proto_test_util.h"

/* ---- tests ---- */

static void descriptor(pb *trace, uint64_t uuid, uint64_t parent, int64_t pid) {
  pb pkt = {0}, td = {0}, proc = {0};
  pb_int(&pkt, 8, 10);  /* timestamp */
  pb_int(&pkt, 10, 1);  /* trusted_packet_sequence_id */
  pb_int(&td, 1, uuid);
  if (parent) pb_int(&td, 5, parent);
  if (pid >= 0) {
    pb_int(&proc, 1, (uint64_t)pid);
    pb_msg(&td, 3, &proc);
  }
  pb_msg(&pkt, 60, &td);
  packet(trace, &pkt);
}

static void instant(pb *trace, uint64_t uuid, uint64_t ts) {
  pb pkt = {0}, ev = {0};
  pb_int(&pkt, 8, ts);
  pb_int(&pkt, 10, 1);
  pb_int(&ev, 9, 3); /* TYPE_INSTANT */
  pb_int(&ev, 11, uuid);
  pb_str(&ev, 23, "ev");
  pb_msg(&pkt, 11, &ev);
  packet(trace, &pkt);
}

/* A parent chain longer than the depth limit drops the event. */
static void test_deep_hierarchy(void) {
  pb trace = {0};
  for (uint64_t u = 1; u <= 150; u++) descriptor(&trace, u, u > 1 ? u - 1 : 0, -1);
  instant(&trace, 150, 100); /* 150 deep */
  instant(&trace, 50, 200);  /* 50 deep: fine */
  weft *w = load(&trace);
  CHECK(w != NULL);
  if (!w) return;
  result r;
  CHECK_EQ_STR(query(w, &r, "select ts from slice"), "200,");
  CHECK_EQ_STR(query(w, &r, "select value from stats where "
                            "name = 'track_event_track_hierarchy_too_deep'"),
               "51,"); /* descriptors 101..150 and the event: one per attempt */
  CHECK_EQ_STR(query(w, &r, "select count(*) from track where parent_id is not null"), "49,");
  weft_close(w);
}

/* A later descriptor moving a uuid to another process is ignored. */
static void test_conflicting_reservation(void) {
  pb trace = {0};
  descriptor(&trace, 7, 0, 100);
  descriptor(&trace, 7, 0, 200);
  descriptor(&trace, 0, 7, -1); /* default track with a parent */
  instant(&trace, 7, 100);
  weft *w = load(&trace);
  CHECK(w != NULL);
  if (!w) return;
  result r;
  CHECK_EQ_STR(query(w, &r, "select p.pid from slice s join process_track t "
                            "on s.track_id = t.id join process p using(upid)"), "100,");
  CHECK_EQ_STR(query(w, &r, "select value from stats where "
                            "name = 'track_descriptor_conflicting_reservation'"), "1,");
  CHECK_EQ_STR(query(w, &r, "select value from stats where "
                            "name = 'track_descriptor_default_track_with_parent'"), "1,");
  weft_close(w);
}

static void test_config_text(void) {
  pb cfg = {0}, buf = {0}, ds = {0}, dsc = {0};
  pb_int(&buf, 1, 1024);
  pb_int(&buf, 4, 9); /* enum value without a name: printed as an unknown field */
  pb_msg(&cfg, 1, &buf);
  pb_str(&dsc, 1, "a\"b\n\x01");
  pb_int(&dsc, 999, 5); /* unknown field */
  pb_msg(&ds, 1, &dsc);
  pb_msg(&cfg, 2, &ds);
  pb_int(&cfg, 30, (uint64_t)-3); /* int32, sign-extended */
  base_buf out;
  base_buf_init(&out, 1 << 16);
  proto_span span = {cfg.b, cfg.n};
  CHECK_EQ_INT(proto_config_text(span, &out), 0);
  CHECK_EQ_STR(out.data, "buffers {\n  size_kb: 1024\n  4: 9\n}\n"
                         "data_sources {\n  config {\n    name: \"a\\\"b\\n\\001\"\n"
                         "    999: 5\n  }\n}\nbugreport_score: -3");
  /* Garbage is rendered up to the first bad field, never read past. */
  const uint8_t junk[] = {0x0a, 0x7f, 0x01};
  proto_span js = {junk, sizeof junk};
  CHECK_EQ_INT(proto_config_text(js, &out), 0);
  base_buf_free(&out);
}

/* Nesting deeper than the limit is printed as bytes, with bounded output. */
static void test_config_text_deep(void) {
  static pb levels[40];
  memset(levels, 0, sizeof levels);
  pb_int(&levels[0], 1, 7);
  for (int i = 1; i < 40; i++) pb_msg(&levels[i], 2, &levels[i - 1]);
  base_buf out;
  base_buf_init(&out, 256);
  proto_span span = {levels[39].b, levels[39].n};
  CHECK_EQ_INT(proto_config_text(span, &out), 0);
  CHECK(out.len <= 256);
  base_buf_free(&out);
}

int main(void) {
  RUN_TEST(test_deep_hierarchy);
  RUN_TEST(test_conflicting_reservation);
  RUN_TEST(test_config_text);
  RUN_TEST(test_config_text_deep);
  return CHECK_SUMMARY();
}
