/* Unit tests: the interning of stack_profile mappings, frames and
 * callsites finds each key's first row again across index growths, with
 * or without a reservation, and makes a new row for every new key. */
#include "check.h"
#include "model/columns.h"
#include "model/context.h"
#include "model/model.h"
#include "model/stack_profile.h"

static trace_context ctx;

static void setup(void) {
  weft_options o;
  weft_options_default(&o);
  CHECK_EQ_INT(trace_context_init(&ctx, &o), 0);
}

static uint32_t frame_of(uint32_t mapping, string_id name, int64_t rel_pc) {
  uint32_t id = UINT32_MAX;
  CHECK_EQ_INT(stack_profile_frame(&ctx, mapping, name, rel_pc, STRING_NULL, &id), 0);
  return id;
}

static uint32_t callsite_of(int64_t parent, uint32_t frame) {
  uint32_t id = UINT32_MAX;
  CHECK_EQ_INT(stack_profile_callsite(&ctx, parent, frame, &id), 0);
  return id;
}

/* n frames of `mapping` (two names, n / 2 pcs) and a chain of callsites
 * over them, each interned twice. Frame i is row frame0 + i and callsite i
 * row callsite0 + i (UINT32_MAX: the rows appended now, numbered in order
 * of first use); the tables end with one row per key. */
static void intern_chain(uint32_t mapping, size_t n, uint32_t frame0, uint32_t callsite0) {
  string_id names[2];
  CHECK_EQ_INT(ctx_intern(&ctx, "a", 1, &names[0]), 0);
  CHECK_EQ_INT(ctx_intern(&ctx, "b", 1, &names[1]), 0);
  const storage_table *frames = ctx_table(&ctx, TABLE_STACK_PROFILE_FRAME);
  const storage_table *callsites = ctx_table(&ctx, TABLE_STACK_PROFILE_CALLSITE);
  size_t frame_rows = frames->row_count, callsite_rows = callsites->row_count;
  if (frame0 == UINT32_MAX) frame0 = (uint32_t)frame_rows, frame_rows += n;
  if (callsite0 == UINT32_MAX) callsite0 = (uint32_t)callsite_rows, callsite_rows += n;
  int as_expected = 1;
  for (int round = 0; round < 2; round++) {
    int64_t parent = -1;
    for (size_t i = 0; i < n; i++) {
      uint32_t f = frame_of(mapping, names[i & 1], (int64_t)(i / 2) * 4096);
      uint32_t c = callsite_of(parent, f);
      as_expected &= f == frame0 + i && c == callsite0 + i;
      parent = c;
    }
  }
  CHECK(as_expected);
  CHECK_EQ_INT(frames->row_count, frame_rows);
  CHECK_EQ_INT(callsites->row_count, callsite_rows);
}

static void test_interning_across_growth(void) {
  setup();
  intern_chain(1, 100000, UINT32_MAX, UINT32_MAX);
  CHECK_EQ_INT(frame_of(2, STRING_NULL, 0), 100000);
  CHECK_EQ_INT(frame_of(2, STRING_NULL, 0), 100000);
  CHECK_EQ_INT(frame_of(1, STRING_NULL, 0), 100001); /* no name: another key */
  /* another mapping, the same pcs and names: new rows */
  intern_chain(2, 1000, UINT32_MAX, UINT32_MAX);
  intern_chain(1, 100000, 0, 0);
  trace_context_free(&ctx);
}

static void test_reserve_below_and_above_the_truth(void) {
  setup();
  CHECK_EQ_INT(stack_profile_reserve(&ctx, 1000, 1000), 0);
  intern_chain(1, 30000, UINT32_MAX, UINT32_MAX); /* past the reservation: grows */
  CHECK_EQ_INT(stack_profile_reserve(&ctx, 50000, 50000), 0);
  intern_chain(2, 20000, UINT32_MAX, UINT32_MAX); /* within it */
  intern_chain(1, 30000, 0, 0);                   /* the first keys: their rows */
  CHECK_EQ_INT(stack_profile_reserve(&ctx, 0, 0), 0);
  trace_context_free(&ctx);
}

static void test_callsite_depth_and_roots(void) {
  setup();
  uint32_t f0 = frame_of(0, STRING_NULL, 1), f1 = frame_of(0, STRING_NULL, 2);
  uint32_t root = callsite_of(-1, f0), child = callsite_of(root, f1);
  CHECK(callsite_of(-5, f0) == root); /* any negative parent is a root */
  CHECK(callsite_of(-1, f1) != child);
  const storage_table *t = ctx_table(&ctx, TABLE_STACK_PROFILE_CALLSITE);
  CHECK_EQ_INT(storage_get_i64(t, STACK_PROFILE_CALLSITE_depth, child), 1);
  CHECK_EQ_INT(storage_get_i64_or(t, STACK_PROFILE_CALLSITE_parent_id, root, -1), -1);
  trace_context_free(&ctx);
}

static void test_mappings_by_all_columns(void) {
  setup();
  stack_profile_mapping_spec a = {0};
  a.end = 100;
  uint32_t ida, idb, again;
  CHECK_EQ_INT(stack_profile_mapping(&ctx, &a, &ida), 0);
  stack_profile_mapping_spec b = a;
  b.load_bias = 1;
  CHECK_EQ_INT(stack_profile_mapping(&ctx, &b, &idb), 0);
  CHECK(ida != idb);
  CHECK_EQ_INT(stack_profile_mapping(&ctx, &a, &again), 0);
  CHECK_EQ_INT(again, ida);
  CHECK_EQ_INT(stack_profile_mapping_new(&ctx, &a, &again), 0);
  CHECK(again != ida); /* a new row even with the same columns ... */
  CHECK_EQ_INT(stack_profile_mapping(&ctx, &a, &again), 0);
  CHECK_EQ_INT(again, ida); /* ... which interning does not find */
  trace_context_free(&ctx);
}

int main(void) {
  RUN_TEST(test_interning_across_growth);
  RUN_TEST(test_reserve_below_and_above_the_truth);
  RUN_TEST(test_callsite_depth_and_roots);
  RUN_TEST(test_mappings_by_all_columns);
  return CHECK_SUMMARY();
}
