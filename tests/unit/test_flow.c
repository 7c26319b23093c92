/* Unit tests: flow tracker (model/flow.h), slice_stack queries and the JSON
 * number/time helpers. */
#include "check.h"
#include "model/context.h"
#include "import/json/json_internal.h"
#include "model/flow.h"
#include "model/model.h"
#include "model/slice_stack.h"

static trace_context ctx;
static const flow_scope scope = {0, 0};

static void setup(void) {
  weft_options o;
  weft_options_default(&o);
  CHECK_EQ_INT(trace_context_init(&ctx, &o), 0);
}

static uint32_t track_for(int64_t n) {
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = "test";
  s.extra_key = (uint64_t)n;
  uint32_t t = 0;
  CHECK_EQ_INT(model_track(&ctx, &s, &t), 0);
  return t;
}

static uint32_t begin(uint32_t track, int64_t ts) {
  uint32_t s = 0;
  CHECK_EQ_INT(model_slice_begin(&ctx, track, ts, STRING_NULL, STRING_NULL, -1, &s), 0);
  return s;
}

static uint32_t complete(uint32_t track, int64_t ts, int64_t dur) {
  uint32_t s = 0;
  CHECK_EQ_INT(model_slice_complete(&ctx, track, ts, dur, STRING_NULL, STRING_NULL, -1, &s), 0);
  return s;
}

static size_t flow_rows(void) { return ctx_table(&ctx, TABLE_FLOW)->row_count; }
static int64_t flow_col(size_t col, size_t row) {
  return storage_get_i64(ctx_table(&ctx, TABLE_FLOW), col, row);
}
static int64_t stat(stats_id id) { return stats_total(&ctx.stats, id); }

static void test_begin_step_end(void) {
  setup();
  uint32_t t1 = track_for(1), t2 = track_for(2), t3 = track_for(3);
  uint32_t a = complete(t1, 10, 5);
  CHECK_EQ_INT(flow_begin(&ctx, scope, t1, flow_id_v2(42)), 0);
  CHECK(flow_is_active(&ctx, scope, flow_id_v2(42)));
  uint32_t b = complete(t2, 20, 5);
  CHECK_EQ_INT(flow_step(&ctx, scope, t2, flow_id_v2(42)), 0);
  uint32_t c = complete(t3, 30, 5);
  CHECK_EQ_INT(flow_end(&ctx, scope, t3, flow_id_v2(42), 1, 1), 0);
  CHECK(!flow_is_active(&ctx, scope, flow_id_v2(42)));
  CHECK_EQ_INT(flow_rows(), 2);
  CHECK_EQ_INT(flow_col(FLOW_slice_out, 0), a);
  CHECK_EQ_INT(flow_col(FLOW_slice_in, 0), b);
  CHECK_EQ_INT(flow_col(FLOW_slice_out, 1), b);
  CHECK_EQ_INT(flow_col(FLOW_slice_in, 1), c);
  CHECK_EQ_INT(flow_col(FLOW_trace_id, 1), 42);
  /* Closed: a further end has no start. */
  CHECK_EQ_INT(flow_end(&ctx, scope, t3, flow_id_v2(42), 1, 0), 0);
  CHECK_EQ_INT(stat(stat_flow_end_without_start), 1);
  trace_context_free(&ctx);
}

static void test_pending_end_binds_next_slice(void) {
  setup();
  uint32_t t1 = track_for(1), t2 = track_for(2);
  uint32_t a = begin(t1, 0);
  CHECK_EQ_INT(flow_begin(&ctx, scope, t1, flow_id_v2(1)), 0);
  CHECK_EQ_INT(flow_end(&ctx, scope, t2, flow_id_v2(1), 0, 0), 0);
  CHECK_EQ_INT(flow_rows(), 0);
  uint32_t b = complete(t2, 5, 1);
  CHECK_EQ_INT(flow_rows(), 1);
  CHECK_EQ_INT(flow_col(FLOW_slice_out, 0), a);
  CHECK_EQ_INT(flow_col(FLOW_slice_in, 0), b);
  complete(t2, 10, 1); /* the pending list was consumed */
  CHECK_EQ_INT(flow_rows(), 1);
  trace_context_free(&ctx);
}

static void test_direction_follows_time(void) {
  setup();
  uint32_t t1 = track_for(1), t2 = track_for(2);
  uint32_t early = begin(t1, 50);
  uint32_t late = begin(t2, 100);
  CHECK_EQ_INT(flow_begin_at(&ctx, scope, late, flow_id_v2(9)), 0);
  CHECK_EQ_INT(flow_step_at(&ctx, scope, early, flow_id_v2(9)), 0);
  CHECK_EQ_INT(flow_col(FLOW_slice_out, 0), early);
  CHECK_EQ_INT(flow_col(FLOW_slice_in, 0), late);
  trace_context_free(&ctx);
}

static void test_errors_are_counted(void) {
  setup();
  uint32_t t1 = track_for(1);
  CHECK_EQ_INT(flow_begin(&ctx, scope, t1, flow_id_v2(1)), 0); /* no slice */
  CHECK_EQ_INT(stat(stat_flow_no_enclosing_slice), 1);
  begin(t1, 0);
  CHECK_EQ_INT(flow_step(&ctx, scope, t1, flow_id_v2(3)), 0);
  CHECK_EQ_INT(stat(stat_flow_step_without_start), 1);
  CHECK_EQ_INT(flow_begin(&ctx, scope, t1, flow_id_v2(1)), 0);
  CHECK_EQ_INT(flow_begin(&ctx, scope, t1, flow_id_v2(1)), 0);
  CHECK_EQ_INT(stat(stat_flow_duplicate_id), 1);
  /* Another trace file: another namespace. */
  flow_scope other = {0, 1};
  CHECK(!flow_is_active(&ctx, other, flow_id_v2(1)));
  trace_context_free(&ctx);
}

static void test_v1_ids_and_args(void) {
  setup();
  string_id cat, name, other;
  CHECK_EQ_INT(ctx_intern(&ctx, "cat", 3, &cat), 0);
  CHECK_EQ_INT(ctx_intern(&ctx, "ipc", 3, &name), 0);
  CHECK_EQ_INT(ctx_intern(&ctx, "x", 1, &other), 0);
  flow_id a, b, c;
  CHECK_EQ_INT(flow_v1_id(&ctx, scope, 5, cat, name, &a), 0);
  CHECK_EQ_INT(flow_v1_id(&ctx, scope, 5, cat, name, &b), 0);
  CHECK_EQ_INT(flow_v1_id(&ctx, scope, 5, cat, other, &c), 0);
  CHECK(a.value == b.value && a.value != c.value);
  CHECK(a.value == 0 && c.value == 1); /* counted from 0 */
  uint32_t t = track_for(1);
  begin(t, 0);
  CHECK_EQ_INT(flow_begin(&ctx, scope, t, a), 0);
  begin(t, 1);
  CHECK_EQ_INT(flow_step(&ctx, scope, t, a), 0);
  CHECK_EQ_INT(flow_rows(), 1);
  CHECK(!storage_is_null(ctx_table(&ctx, TABLE_FLOW), FLOW_arg_set_id, 0));
  CHECK_EQ_INT(ctx_table(&ctx, TABLE_ARGS)->row_count, 2);
  /* v2 id 1 is v1 flow c's number: one flow, whose rows get c's args */
  CHECK_EQ_INT(flow_begin(&ctx, scope, t, c), 0);
  CHECK(flow_is_active(&ctx, scope, flow_id_v2(c.value)));
  begin(t, 2);
  CHECK_EQ_INT(flow_step(&ctx, scope, t, flow_id_v2(c.value)), 0);
  CHECK_EQ_INT(flow_rows(), 2);
  CHECK_EQ_INT(ctx_table(&ctx, TABLE_ARGS)->row_count, 4);
  trace_context_free(&ctx);
}

static void test_slice_stack(void) {
  setup();
  uint32_t t = track_for(1);
  string_id n1, n2;
  CHECK_EQ_INT(ctx_intern(&ctx, "one", 3, &n1), 0);
  CHECK_EQ_INT(ctx_intern(&ctx, "two", 3, &n2), 0);
  CHECK_EQ_INT(slice_stack_top(&ctx, t), -1);
  uint32_t s1 = 0;
  CHECK_EQ_INT(model_slice_begin(&ctx, t, 0, STRING_NULL, n1, -1, &s1), 0);
  CHECK_EQ_INT(slice_stack_top(&ctx, t), s1);
  int64_t ended;
  CHECK_EQ_INT(slice_stack_end_matching(&ctx, t, 5, STRING_NULL, n2, &ended), 0);
  CHECK_EQ_INT(ended, -1);
  CHECK_EQ_INT(slice_stack_end_matching(&ctx, t, 5, STRING_NULL, n1, &ended), 0);
  CHECK_EQ_INT(ended, s1);
  CHECK_EQ_INT(storage_get_i64(ctx_table(&ctx, TABLE_SLICE), SLICE_dur, s1), 5);
  /* Overlap checks against an open complete slice. */
  complete(t, 10, 10);
  CHECK(slice_stack_fits(&ctx, t, 12, 8));
  CHECK(!slice_stack_fits(&ctx, t, 12, 9));
  CHECK(slice_stack_fits(&ctx, t, 20, 50)); /* the parent ended at 20 */
  /* Zero-duration slices at one ts nest; a begin there does not. */
  uint32_t z1 = complete(t, 30, 0), z2 = complete(t, 30, 0);
  CHECK_EQ_INT(storage_get_i64(ctx_table(&ctx, TABLE_SLICE), SLICE_depth, z2), 1);
  (void)z1;
  uint32_t b = begin(t, 30);
  CHECK_EQ_INT(storage_get_i64(ctx_table(&ctx, TABLE_SLICE), SLICE_depth, b), 0);
  trace_context_free(&ctx);
}

static void test_json_times(void) {
  json_token t;
  memset(&t, 0, sizeof t);
  int64_t ns = 0;
  t.type = JSON_TOK_STRING;
  t.ptr = "200.5";
  t.len = 5;
  CHECK_EQ_INT(json_time_from(&t, &ns), 0);
  CHECK_EQ_INT(ns, 200500);
  t.ptr = "-1.0004";
  t.len = 7;
  CHECK_EQ_INT(json_time_from(&t, &ns), 0);
  CHECK_EQ_INT(ns, -1000);
  t.ptr = "1e3";
  t.len = 3;
  CHECK_EQ_INT(json_time_from(&t, &ns), 0);
  CHECK_EQ_INT(ns, 1000000);
  const char *bad[] = {"100a", "", ".", "+", "invalid", "1e999", "nan"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    t.ptr = bad[i];
    t.len = strlen(bad[i]);
    CHECK_EQ_INT(json_time_from(&t, &ns), -1);
  }
  t.type = JSON_TOK_NUMBER;
  t.is_int = 1;
  t.i = INT64_MAX / 100;
  CHECK_EQ_INT(json_time_from(&t, &ns), -1);
  t.type = JSON_TOK_TRUE;
  CHECK_EQ_INT(json_time_from(&t, &ns), -1);
  double d = 0;
  CHECK_EQ_INT(json_parse_double(".75", 3, &d), 0);
  CHECK(d == 0.75);
  CHECK_EQ_INT(json_parse_double("2e+", 3, &d), -1);
  CHECK_EQ_INT(json_parse_double("050", 3, &d), 0);
  CHECK(d == 50.0);
}

static void test_flow_alloc_failures(void) {
  /* Every allocation failure is reported, never crashes or leaks. */
  for (uint64_t n = 1; n < 60; n++) {
    setup();
    uint32_t t1 = track_for(1), t2 = track_for(2);
    begin(t1, 0);
    base_alloc_fail_after(n);
    int rc = flow_begin(&ctx, scope, t1, flow_id_v2(1));
    if (!rc) rc = flow_end(&ctx, scope, t2, flow_id_v2(1), 0, 0);
    uint32_t s;
    if (!rc) rc = model_slice_begin(&ctx, t2, 1, STRING_NULL, STRING_NULL, -1, &s);
    base_alloc_fail_after(0);
    CHECK(rc == 0 || rc == WEFT_ENOMEM);
    trace_context_free(&ctx);
  }
}

int main(void) {
  RUN_TEST(test_begin_step_end);
  RUN_TEST(test_pending_end_binds_next_slice);
  RUN_TEST(test_direction_follows_time);
  RUN_TEST(test_errors_are_counted);
  RUN_TEST(test_v1_ids_and_args);
  RUN_TEST(test_slice_stack);
  RUN_TEST(test_json_times);
  RUN_TEST(test_flow_alloc_failures);
  return CHECK_SUMMARY();
}
