/* Tests for the Instruments id table (import/instruments/instruments_ids). */
#include "check.h"
#include "import/instruments/instruments_internal.h"

static uint64_t found(const ins_ids *t, uint64_t id, uint32_t kind) {
  uint64_t v = 12345;
  return ins_ids_find(t, id, kind, &v) ? v : UINT64_MAX;
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

/* Values of 60 bits and more, negative ones too, in slots and beyond. */
static void test_wide_and_negative_values(void) {
  ins_ids t = {0};
  const uint64_t big = (uint64_t)1 << 59, small = (uint64_t)-((int64_t)1 << 59);
  CHECK_EQ_INT(ins_ids_define(&t, 1, 1, big - 1), 0);  /* fits */
  CHECK_EQ_INT(ins_ids_define(&t, 2, 1, big), 0);      /* does not */
  CHECK_EQ_INT(ins_ids_define(&t, 3, 1, small), 0);    /* fits */
  CHECK_EQ_INT(ins_ids_define(&t, 4, 1, small - 1), 0); /* does not */
  CHECK_EQ_INT(ins_ids_define(&t, 5, 1, (uint64_t)-1), 0);
  CHECK_EQ_INT(ins_ids_define(&t, 6, 1, UINT64_MAX / 2), 0);
  CHECK(found(&t, 1, 1) == big - 1);
  CHECK(found(&t, 2, 1) == big);
  CHECK(found(&t, 3, 1) == small);
  CHECK(found(&t, 4, 1) == small - 1);
  CHECK(found(&t, 5, 1) == (uint64_t)-1);
  CHECK(found(&t, 6, 1) == UINT64_MAX / 2);
  CHECK_EQ_INT(found(&t, 2, 2), UINT64_MAX);
  /* id 2's values are in the map from then on, whatever their size */
  CHECK_EQ_INT(ins_ids_define(&t, 2, 1, 7), 0);
  CHECK_EQ_INT(ins_ids_define(&t, 2, 3, 8), 0);
  CHECK_EQ_INT(found(&t, 2, 1), 7);
  CHECK_EQ_INT(found(&t, 2, 3), 8);
  /* a slot's value replaced by one too wide, then by a narrow one */
  CHECK_EQ_INT(ins_ids_define(&t, 1, 1, big + 5), 0);
  CHECK(found(&t, 1, 1) == big + 5);
  CHECK_EQ_INT(t.slots[1], 15); /* the id is in the map now */
  CHECK_EQ_INT(ins_ids_define(&t, 1, 1, 9), 0);
  CHECK_EQ_INT(found(&t, 1, 1), 9);
  CHECK_EQ_INT(found(&t, 7, 1), UINT64_MAX);
  ins_ids_free(&t);
}

int main(void) {
  RUN_TEST(test_dense_ids_are_found);
  RUN_TEST(test_a_huge_id_does_not_grow_the_array);
  RUN_TEST(test_kinds_and_redefinitions);
  RUN_TEST(test_wide_and_negative_values);
  return CHECK_SUMMARY();
}
