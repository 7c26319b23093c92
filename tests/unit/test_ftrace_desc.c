/* Tests for the ftrace event descriptor table and its field lookups. */
#include "check.h"
#include "model/ftrace_desc.h"

static int field_is(const ftrace_field_desc *f, const char *name, int type) {
  return f->name && f->name_len == strlen(name) && memcmp(f->name, name, f->name_len) == 0 &&
         f->type == type;
}

static void test_table_sorted_and_named(void) {
  for (size_t i = 1; i < ftrace_desc_event_count; i++)
    CHECK(ftrace_desc_events[i - 1].id < ftrace_desc_events[i].id);
  const ftrace_event_desc *d = ftrace_desc_by_id(45);
  CHECK(d != NULL);
  CHECK_EQ_STR(d ? d->name : NULL, "block_rq_issue");
  CHECK(ftrace_desc_by_id(331) == ftrace_desc_by_name("zero", 4));
  CHECK(ftrace_desc_by_id(326) == ftrace_desc_by_name("oom_score_adj_update", 20));
  CHECK(ftrace_desc_by_id(5) == NULL); /* common_flags, not an event */
  CHECK(ftrace_desc_by_id(100000) == NULL);
  CHECK(ftrace_desc_by_name("no_such_event", 13) == NULL);
}

static void test_fields(void) {
  const ftrace_event_desc *d = ftrace_desc_by_id(45); /* block_rq_issue */
  ftrace_field_desc f;
  CHECK(ftrace_desc_field_at(d, 1, &f) && field_is(&f, "dev", FTRACE_FIELD_UINT));
  CHECK(ftrace_desc_field_at(d, 5, &f) && field_is(&f, "rwbs", FTRACE_FIELD_STR));
  CHECK(!ftrace_desc_field_at(d, 0, &f));
  CHECK(!ftrace_desc_field_at(d, 99, &f));
  const ftrace_event_desc *g = ftrace_desc_by_id(349); /* g2d: numbers 2, 3 unused */
  CHECK(!ftrace_desc_field_at(g, 2, &f));
  CHECK(ftrace_desc_field_at(g, 4, &f) && field_is(&f, "name", FTRACE_FIELD_STR));
  CHECK_EQ_INT(ftrace_desc_field_named(g, "value", 5, &f), 6);
  CHECK(field_is(&f, "value", FTRACE_FIELD_INT));
  CHECK_EQ_INT(ftrace_desc_field_named(g, "nope", 4, NULL), 0);
}

static void test_seek(void) {
  const ftrace_event_desc *d = ftrace_desc_by_id(45);
  ftrace_desc_cursor c = {NULL, 0};
  ftrace_field_desc f;
  CHECK(ftrace_desc_field_seek(d, &c, 2, &f) && field_is(&f, "sector", FTRACE_FIELD_UINT));
  CHECK(ftrace_desc_field_seek(d, &c, 6, &f) && field_is(&f, "comm", FTRACE_FIELD_STR));
  /* backwards restarts from the first field */
  CHECK(ftrace_desc_field_seek(d, &c, 1, &f) && field_is(&f, "dev", FTRACE_FIELD_UINT));
  CHECK(ftrace_desc_field_seek(d, &c, 1, &f) && field_is(&f, "dev", FTRACE_FIELD_UINT));
  CHECK(!ftrace_desc_field_seek(d, &c, 50, &f));
  CHECK(ftrace_desc_field_seek(d, &c, 7, &f) && field_is(&f, "cmd", FTRACE_FIELD_STR));
}

int main(void) {
  RUN_TEST(test_table_sorted_and_named);
  RUN_TEST(test_fields);
  RUN_TEST(test_seek);
  return CHECK_SUMMARY();
}
