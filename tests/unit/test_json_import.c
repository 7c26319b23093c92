/* Unit tests: Chrome JSON event decoding (json_event.c) and the
 * systemTraceEvents accessor. */
#include "check.h"
#include "import/json/json_internal.h"

static json_state state;

static import_file file_for(const char *json) {
  import_file f;
  memset(&f, 0, sizeof f);
  memset(&state, 0, sizeof state);
  f.state = &state;
  f.data = (const uint8_t *)json;
  f.len = strlen(json);
  f.name = "test.json";
  return f;
}

static int str_is(const json_str *s, const char *want) {
  return s->ptr && s->len == strlen(want) && memcmp(s->ptr, want, s->len) == 0;
}

static void test_read_fields(void) {
  const char *json =
      "{\"ph\":\"b\",\"name\":\"n\\u0041\",\"cat\":\"c\",\"pid\":7,\"tid\":\"worker\","
      "\"ts\":\"1.5\",\"dur\":2,\"tts\":\"x\",\"id2\":{\"local\":12,\"global\":\"g\"},"
      "\"bind_id\":\"0x1f\",\"flow_in\":true,\"flow_out\":false,\"bp\":\"e\","
      "\"args\":{\"a\":1},\"id\":\"0x10\"}";
  import_file f = file_for(json);
  json_event e;
  memset(&e, 0, sizeof e);
  base_error err = {0};
  CHECK_EQ_INT(json_read_event(&f, 0, &e, &err), 0);
  CHECK_EQ_INT(e.ph, 'b');
  CHECK(str_is(&e.name, "nA"));
  CHECK(str_is(&e.cat, "c"));
  CHECK(e.has_pid && e.pid == 7);
  CHECK(e.has_tid && str_is(&e.tid_str, "worker"));
  CHECK(e.ts.valid && e.ts.ns == 1500);
  CHECK(e.dur.valid && e.dur.ns == 2000);
  CHECK(e.tts.present && !e.tts.valid);
  CHECK(!e.tdur.present);
  CHECK(str_is(&e.id2_local, "12"));
  CHECK(str_is(&e.id2_global, "g"));
  CHECK(e.bind_id.valid && e.bind_id.value == 0x1f);
  CHECK(e.flow_in && !e.flow_out);
  CHECK(str_is(&e.bp, "e"));
  CHECK(e.args_offset > 0 && json[e.args_offset] == '{');
  CHECK(str_is(&e.id, "0x10"));
  CHECK(e.flow_v1_id.valid && e.flow_v1_id.value == 16);
  json_event_free(&e);
}

static void test_flow_ids(void) {
  const char *cases[] = {"{\"id\":\"zz\"}", "{\"id\":\"-1\"}", "{\"id\":true}",
                         "{\"id\":\"\"}"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    import_file f = file_for(cases[i]);
    json_event e;
    memset(&e, 0, sizeof e);
    CHECK_EQ_INT(json_read_event(&f, 0, &e, NULL), 0);
    CHECK(e.flow_v1_id.present && !e.flow_v1_id.valid);
    json_event_free(&e);
  }
  import_file f = file_for("{\"id\":4096,\"pid\":-1,\"tid\":1.5e10}");
  json_event e;
  memset(&e, 0, sizeof e);
  CHECK_EQ_INT(json_read_event(&f, 0, &e, NULL), 0);
  CHECK(e.flow_v1_id.valid && e.flow_v1_id.value == 4096);
  CHECK(str_is(&e.id, "4096"));
  CHECK(!e.has_pid && !e.has_tid); /* out of the 32-bit range */
  json_event_free(&e);
}

static void test_repeated_keys_do_not_leak(void) {
  import_file f = file_for("{\"name\":\"a\\n\",\"name\":\"b\\t\",\"cat\":\"\\\"\"}");
  json_event e;
  memset(&e, 0, sizeof e);
  CHECK_EQ_INT(json_read_event(&f, 0, &e, NULL), 0);
  CHECK(str_is(&e.name, "b\t"));
  CHECK(str_is(&e.cat, "\""));
  json_event_free(&e);
}

static void test_truncated_event_fails(void) {
  import_file f = file_for("{\"ph\":\"X\",\"name\":\"a");
  json_event e;
  memset(&e, 0, sizeof e);
  base_error err = {0};
  CHECK(json_read_event(&f, 0, &e, &err) != 0);
  json_event_free(&e);
}

static void test_systrace_text(void) {
  const char *json = "{\"systemTraceEvents\":\"# tracer\\nline one\\n\"}";
  import_file f = file_for(json);
  char *text = NULL;
  size_t len = 0;
  CHECK_EQ_INT(json_systrace_text(&f, &text, &len, NULL), 0);
  CHECK(text == NULL); /* nothing located yet */
  state.has_systrace = 1;
  state.systrace_offset = strlen("{\"systemTraceEvents\":\"");
  state.systrace_len = strlen("# tracer\\nline one\\n");
  CHECK_EQ_INT(json_systrace_text(&f, &text, &len, NULL), 0);
  CHECK_EQ_STR(text, "# tracer\nline one\n");
  CHECK_EQ_INT(len, 18);
  base_free(text);
}

int main(void) {
  RUN_TEST(test_read_fields);
  RUN_TEST(test_flow_ids);
  RUN_TEST(test_repeated_keys_do_not_leak);
  RUN_TEST(test_truncated_event_fails);
  RUN_TEST(test_systrace_text);
  return CHECK_SUMMARY();
}
