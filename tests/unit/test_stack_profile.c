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

/* The parent of callsite row `id`. */
static int64_t leaf_parent(int64_t id) {
  const storage_table *c = ctx_table(&ctx, TABLE_STACK_PROFILE_CALLSITE);
  return storage_get_i64_or(c, STACK_PROFILE_CALLSITE_parent_id, (size_t)id, -1);
}

/* Interns n random stacks (shared prefixes, repeated frames, lengths
 * across several batches) in ctx: one call per frame and per callsite,
 * or by stack_profile_frames and stack_profile_callsite_chain. The rows'
 * sum of columns, weighted by row, is the result. */
static uint64_t intern_random_stacks(int batched, size_t n) {
  setup();
  uint64_t seed = 12345;
  uint32_t prev[80] = {0};
  size_t prev_len = 0;
  for (size_t s = 0; s < n; s++) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    size_t len = (size_t)(seed >> 33) % 80, keep = prev_len ? (size_t)(seed >> 20) % prev_len : 0;
    stack_profile_frame_key keys[80];
    uint32_t ids[80];
    for (size_t i = 0; i < len; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t pick = i < keep ? prev[i] : (uint32_t)(seed >> 40) % 3000;
      prev[i] = pick;
      keys[i] = (stack_profile_frame_key){pick % 3, (string_id)(pick % 7), (int64_t)pick * 16};
    }
    prev_len = len;
    int64_t leaf = -1;
    if (batched) {
      CHECK_EQ_INT(stack_profile_frames(&ctx, keys, len, ids), 0);
      CHECK_EQ_INT(stack_profile_callsite_chain(&ctx, -1, ids, len, &leaf), 0);
    } else {
      for (size_t i = 0; i < len; i++) {
        ids[i] = frame_of(keys[i].mapping, keys[i].name, keys[i].rel_pc);
        leaf = callsite_of(leaf, ids[i]);
      }
    }
    if (len) CHECK_EQ_INT(leaf, callsite_of(len > 1 ? leaf_parent(leaf) : -1, ids[len - 1]));
  }
  const storage_table *f = ctx_table(&ctx, TABLE_STACK_PROFILE_FRAME);
  const storage_table *c = ctx_table(&ctx, TABLE_STACK_PROFILE_CALLSITE);
  uint64_t sum = f->row_count * 1000003u + c->row_count;
  for (size_t r = 0; r < f->row_count; r++)
    sum += (r + 1) * (uint64_t)(storage_get_i64(f, STACK_PROFILE_FRAME_mapping, r) * 7 +
                                storage_get_str(f, STACK_PROFILE_FRAME_name, r) * 131 +
                                storage_get_i64(f, STACK_PROFILE_FRAME_rel_pc, r));
  for (size_t r = 0; r < c->row_count; r++)
    sum += (r + 1) * (uint64_t)(storage_get_i64(c, STACK_PROFILE_CALLSITE_frame_id, r) * 7 +
                                storage_get_i64_or(c, STACK_PROFILE_CALLSITE_parent_id, r, -1) * 131 +
                                storage_get_i64(c, STACK_PROFILE_CALLSITE_depth, r));
  trace_context_free(&ctx);
  return sum;
}

static void test_batches_intern_as_single_calls_do(void) {
  CHECK(intern_random_stacks(0, 20000) == intern_random_stacks(1, 20000));
  /* an empty batch changes nothing and gives the parent */
  setup();
  int64_t leaf = 7;
  CHECK_EQ_INT(stack_profile_frames(&ctx, NULL, 0, NULL), 0);
  CHECK_EQ_INT(stack_profile_callsite_chain(&ctx, 5, NULL, 0, &leaf), 0);
  CHECK_EQ_INT(leaf, 5);
  CHECK_EQ_INT(ctx_table(&ctx, TABLE_STACK_PROFILE_CALLSITE)->row_count, 0);
  trace_context_free(&ctx);
}

int main(void) {
  RUN_TEST(test_interning_across_growth);
  RUN_TEST(test_reserve_below_and_above_the_truth);
  RUN_TEST(test_callsite_depth_and_roots);
  RUN_TEST(test_mappings_by_all_columns);
  RUN_TEST(test_batches_intern_as_single_calls_do);
  return CHECK_SUMMARY();
}
