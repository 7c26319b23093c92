/* Tests for the atrace marker parser and the task-state text helpers. */
#include "check.h"
#include "model/atrace.h"
#include "model/sched.h"

static atrace_result parse(const char *s, atrace_point *p) {
  return atrace_parse(s, strlen(s), p);
}

static int name_is(const atrace_point *p, const char *n) {
  return p->name_len == strlen(n) && memcmp(p->name, n, p->name_len) == 0;
}

static int track_is(const atrace_point *p, const char *n) {
  return p->track_len == strlen(n) && memcmp(p->track, n, p->track_len) == 0;
}

static void test_begin_end(void) {
  atrace_point p;
  CHECK_EQ_INT(parse("B|1636|pokeUserActivity\n", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.phase, 'B');
  CHECK_EQ_INT(p.tgid, 1636);
  CHECK(name_is(&p, "pokeUserActivity"));
  CHECK_EQ_INT(parse("B|10|name|with|bars", &p), ATRACE_SUCCESS);
  CHECK(name_is(&p, "name|with|bars"));
  CHECK_EQ_INT(parse("B|10|", &p), ATRACE_SUCCESS);
  CHECK(name_is(&p, "[empty slice name]"));
  CHECK_EQ_INT(parse("B|x|n", &p), ATRACE_FAILURE);
  /* fuzz_proto finding: an empty print buffer arrives as (NULL, 0). */
  CHECK_EQ_INT(atrace_parse(NULL, 0, &p), ATRACE_FAILURE);
  CHECK_EQ_INT(parse("E|1636", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.tgid, 1636);
  CHECK_EQ_INT(parse("E\n\0", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.tgid, 0);
}

static void test_counters_and_async(void) {
  atrace_point p;
  CHECK_EQ_INT(parse("C|3209|TransfersBytesPendingOnDisk-value|0|Blob", &p), ATRACE_SUCCESS);
  CHECK(name_is(&p, "TransfersBytesPendingOnDisk-value"));
  CHECK_EQ_INT(p.value, 0);
  CHECK_EQ_INT(parse("C|1|c|-42", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.value, -42);
  CHECK_EQ_INT(parse("C|1|c|", &p), ATRACE_FAILURE);
  CHECK_EQ_INT(parse("C|1|c|1.5", &p), ATRACE_FAILURE);
  CHECK_EQ_INT(parse("S|1636|frame_capture|123", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.value, 123);
  CHECK_EQ_INT(parse("F|1636|frame_capture|456\n", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.phase, 'F');
  CHECK_EQ_INT(parse("S|1636||1", &p), ATRACE_FAILURE);
}

static void test_tracks(void) {
  atrace_point p;
  CHECK_EQ_INT(parse("I|4820|instant", &p), ATRACE_SUCCESS);
  CHECK(name_is(&p, "instant"));
  CHECK_EQ_INT(parse("N|1938|track_name|instant_name", &p), ATRACE_SUCCESS);
  CHECK(track_is(&p, "track_name"));
  CHECK(name_is(&p, "instant_name"));
  CHECK_EQ_INT(parse("G|1339|track_name|slice_name|789", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.value, 789);
  CHECK(name_is(&p, "slice_name"));
  CHECK_EQ_INT(parse("H|6890|track_name|slice_name|135", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.value, 135);
  CHECK_EQ_INT(parse("H|6890|track_name|135", &p), ATRACE_SUCCESS);
  CHECK_EQ_INT(p.value, 135);
  CHECK(track_is(&p, "track_name"));
  CHECK_EQ_INT(parse("N|1|t|", &p), ATRACE_FAILURE);
}

static void test_other_text(void) {
  atrace_point p;
  CHECK_EQ_INT(parse("another random print message\n", &p), ATRACE_FAILURE);
  CHECK_EQ_INT(parse("trace_event_clock_sync: parent_ts=1", &p), ATRACE_UNSUPPORTED);
  CHECK_EQ_INT(parse("", &p), ATRACE_FAILURE);
  CHECK_EQ_INT(parse("|||", &p), ATRACE_FAILURE);
}

static void test_task_states(void) {
  char buf[8];
  sched_task_state_str(0, NULL, 0, buf);
  CHECK_EQ_STR(buf, "R");
  sched_task_state_str(0x800, NULL, 0, buf);
  CHECK_EQ_STR(buf, "R+");
  sched_task_state_str(1, NULL, 0, buf);
  CHECK_EQ_STR(buf, "S");
  sched_task_state_str(2 | 0x80, NULL, 0, buf);
  CHECK_EQ_STR(buf, "DK");
  sched_task_state_str(2 | 0x80, NULL, '|', buf); /* to_ftrace's form */
  CHECK_EQ_STR(buf, "D|K");
  sched_task_state_str(2 | 0x40 | 0x80 | 0x100 | 0x200, NULL, 0, buf);
  CHECK_EQ_STR(buf, "DPx"); /* at most three flags */
  sched_task_state_str(2 | 0x400, NULL, 0, buf);
  CHECK_EQ_STR(buf, "I");
  sched_task_state_str(0x100, "5.10.0", 0, buf);
  CHECK_EQ_STR(buf, "R+");
  sched_task_state_str(0x80, "4.19", 0, buf);
  CHECK_EQ_STR(buf, "I");
  sched_task_state_str(0x200, "5.4", 0, buf);
  CHECK_EQ_STR(buf, "?");
  sched_task_state_str(-1, NULL, 0, buf); /* read as 16 bits: 0xffff */
  CHECK_EQ_STR(buf, "SDT");
  sched_task_state_str(0x10000, NULL, 0, buf);
  CHECK_EQ_STR(buf, "R");
  /* the 4.4 layout, marked as read from text */
  CHECK_EQ_INT(sched_task_state_from_text("R+", 2), 0x800 | SCHED_STATE_FROM_TEXT);
  CHECK_EQ_INT(sched_task_state_from_text("D|K", 3), 0x82 | SCHED_STATE_FROM_TEXT);
  CHECK_EQ_INT(sched_task_state_from_text("S", 1), 1 | SCHED_STATE_FROM_TEXT);
  CHECK_EQ_INT(sched_task_state_from_text("Q", 1), -1);
  CHECK_EQ_INT(sched_task_state_from_text("", 0), -1);
}

int main(void) {
  RUN_TEST(test_begin_end);
  RUN_TEST(test_counters_and_async);
  RUN_TEST(test_tracks);
  RUN_TEST(test_other_text);
  RUN_TEST(test_task_states);
  return CHECK_SUMMARY();
}
