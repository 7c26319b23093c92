/* Tests for the Instruments id table (import/instruments/instruments_ids). */
#include "check.h"
#include "import/instruments/instruments_internal.h"

static uint64_t found(const ins_ids *t, uint64_t id, uint32_t kind) {
  const uint64_t *v = ins_ids_find(t, id, kind);
  return v ? *v : UINT64_MAX;
}

static void test_dense_ids_are_found(void) {
  ins_ids t = {0};
  for (uint64_t id = 1; id <= 100000; id++) CHECK_EQ_INT(ins_ids_define(&t, id, 1, id * 3), 0);
  CHECK_EQ_INT(found(&t, 1, 1), 3);
  CHECK_EQ_INT(found(&t, 100000, 1), 300000);
  CHECK_EQ_INT(found(&t, 100001, 1), UINT64_MAX);
  CHECK_EQ_INT(found(&t, 5, 2), UINT64_MAX);
  CHECK(t.cap > 100000);
  CHECK_EQ_INT(t.others.count, 0);
  ins_ids_free(&t);
}

static void test_a_huge_id_does_not_grow_the_array(void) {
  ins_ids t = {0};
  CHECK_EQ_INT(ins_ids_define(&t, (uint64_t)1 << 58, 3, 7), 0);
  CHECK_EQ_INT(ins_ids_define(&t, 1000000000000ull, 3, 8), 0);
  CHECK(t.cap < 1000000);
  CHECK_EQ_INT(found(&t, (uint64_t)1 << 58, 3), 7);
  CHECK_EQ_INT(found(&t, 1000000000000ull, 3), 8);
  CHECK_EQ_INT(found(&t, 1000000000000ull, 4), UINT64_MAX);
  ins_ids_free(&t);
}

/* An id defined with two kinds keeps both; a repeated (id, kind) takes
 * the newest value, wherever it was kept. */
static void test_kinds_and_redefinitions(void) {
  ins_ids t = {0};
  CHECK_EQ_INT(ins_ids_define(&t, 9, 1, 10), 0);
  CHECK_EQ_INT(ins_ids_define(&t, 9, 2, 20), 0);
  CHECK_EQ_INT(ins_ids_define(&t, 9, 1, 11), 0);
  CHECK_EQ_INT(ins_ids_define(&t, 9, 2, 21), 0);
  CHECK_EQ_INT(found(&t, 9, 1), 11);
  CHECK_EQ_INT(found(&t, 9, 2), 21);
  /* defined while out of the array's reach, then again once inside it */
  uint64_t far = 200000;
  CHECK_EQ_INT(ins_ids_define(&t, far, 1, 1), 0);
  for (uint64_t id = 10; id < far; id++) CHECK_EQ_INT(ins_ids_define(&t, id, 4, 0), 0);
  CHECK(t.cap > far);
  CHECK_EQ_INT(found(&t, far, 1), 1);
  CHECK_EQ_INT(ins_ids_define(&t, far, 1, 2), 0);
  CHECK_EQ_INT(found(&t, far, 1), 2);
  ins_ids_free(&t);
}

int main(void) {
  RUN_TEST(test_dense_ids_are_found);
  RUN_TEST(test_a_huge_id_does_not_grow_the_array);
  RUN_TEST(test_kinds_and_redefinitions);
  return CHECK_SUMMARY();
}
