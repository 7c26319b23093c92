/* Unit tests for the track-event track model (proto_tracks) and the trace
 * config text (proto_config_text): hostile descriptor hierarchies,
 * conflicting reservations, text rendering of unknown fields, escaping and
 * deep nesting. Traces are hand-encoded. */
#include <stdlib.h>

#include "check.h"
#include "import/proto/proto_config_text.h"
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
  pb_int(&buf, 4, 9); /* enum value without a name */
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
  CHECK_EQ_STR(out.data, "buffers {\n  size_kb: 1024\n  fill_policy: 9\n}\n"
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
