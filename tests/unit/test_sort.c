#include "check.h"
#include "sort/sort.h"

static int shift_convert(void *user, uint32_t source, uint32_t clock,
                         int64_t ts, int64_t *out) {
  (void)user, (void)source;
  if (clock == 99) return 1; /* unconvertible */
  *out = ts + (int64_t)clock * 1000;
  return 0;
}

typedef struct seen {
  sort_event events[64];
  int n;
} seen;

static int record(void *user, const sort_event *e) {
  seen *s = user;
  if (s->n < 64) s->events[s->n++] = *e;
  return 0;
}

static void test_merge_is_ordered_and_stable(void) {
  sorter s;
  sorter_init(&s);
  uint32_t a, b, c;
  sorter_add_source(&s, &a);
  sorter_add_source(&s, &b);
  sorter_add_source(&s, &c); /* stays empty */
  /* a: out of order, with equal timestamps in push order 1,2 */
  sorter_push(&s, a, 30, 0, 1);
  sorter_push(&s, a, 10, 0, 2);
  sorter_push(&s, a, 10, 0, 3);
  sorter_push(&s, a, 5, 99, 4); /* dropped */
  /* b: clock 1 adds 1000 -> 1010; plus a raw 10 on clock 0 that ties with a */
  sorter_push(&s, b, 10, 0, 5);
  sorter_push(&s, b, 10, 1, 6);
  seen out = {0};
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  CHECK_EQ_INT(out.n, 5);
  uint64_t expect[] = {2, 3, 5, 1, 6}; /* ties: source a before b, push order */
  for (int i = 0; i < 5 && i < out.n; i++) CHECK_EQ_INT(out.events[i].payload, expect[i]);
  CHECK_EQ_INT(out.events[4].ts, 1010);
  sorter_free(&s);
}

static void test_many_sources(void) {
  sorter s;
  sorter_init(&s);
  for (int i = 0; i < 1000; i++) {
    uint32_t src;
    sorter_add_source(&s, &src);
    if (i % 10 == 0) sorter_push(&s, src, 1000 - i, 0, (uint64_t)i);
  }
  seen out = {0};
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  CHECK_EQ_INT(out.n, 64);
  int ordered = 1;
  for (int i = 1; i < out.n; i++) ordered &= out.events[i - 1].ts <= out.events[i].ts;
  CHECK(ordered);
  sorter_free(&s);
}

/* Perfetto's per-cpu queues: the lane with the earliest head runs up to
 * and including the other lanes' earliest head. */
static void test_lanes_drain_at_equal_timestamps(void) {
  sorter s;
  seen out = {0};
  uint32_t a;
  sorter_init(&s);
  sorter_add_source(&s, &a);
  uint32_t cpu1 = sort_lane(0, 2), cpu2 = sort_lane(0, 3), cpu3 = sort_lane(0, 4);
  sorter_push_lane(&s, a, cpu1, 50, 0, 10);
  sorter_push_lane(&s, a, cpu2, 60, 0, 20);
  sorter_push_lane(&s, a, cpu2, 999, 0, 21);
  sorter_push_lane(&s, a, cpu3, 60, 0, 30);
  sorter_push_lane(&s, a, cpu3, 999, 0, 31);
  sorter_push_lane(&s, a, cpu3, 999, 0, 32);
  sorter_push_lane(&s, a, cpu1, 1000, 0, 11);
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  static const uint64_t want[] = {10, 20, 30, 31, 32, 21, 11};
  CHECK_EQ_INT(out.n, 7);
  for (int i = 0; i < out.n && i < 7; i++) CHECK_EQ_INT(out.events[i].payload, want[i]);
  sorter_free(&s);
}

/* One lane shared by two sources is ordered by (ts, source, push order);
 * a run break stops a run so the next equal-timestamp lane goes first. */
static void test_shared_lane_and_run_break(void) {
  sorter s;
  seen out = {0};
  uint32_t a, b;
  sorter_init(&s);
  sorter_add_source(&s, &a);
  sorter_add_source(&s, &b);
  sorter_push_lane(&s, b, sort_lane(0, 0), 4, 0, 1);
  sorter_push_lane(&s, b, sort_lane(0, 0), 5, 0, 2);
  sorter_push_lane(&s, a, sort_lane(0, 0), 5, 0, 3);
  sorter_push_lane(&s, a, sort_lane(2, 0), 0, 0, 4);
  sorter_mark_break(&s);
  sorter_push_lane(&s, a, sort_lane(2, 0), 5, 0, 5);
  sorter_push_lane(&s, b, sort_lane(1, 0), 5, 0, 6);
  CHECK_EQ_INT(sorter_run(&s, shift_convert, record, &out), 0);
  static const uint64_t want[] = {4, 1, 3, 2, 6, 5};
  CHECK_EQ_INT(out.n, 6);
  for (int i = 0; i < out.n && i < 6; i++) {
    CHECK_EQ_INT(out.events[i].payload, want[i]);
    CHECK(out.events[i].source == a || out.events[i].source == b);
  }
  sorter_free(&s);
}

int main(void) {
  RUN_TEST(test_merge_is_ordered_and_stable);
  RUN_TEST(test_many_sources);
  RUN_TEST(test_lanes_drain_at_equal_timestamps);
  RUN_TEST(test_shared_lane_and_run_break);
  return CHECK_SUMMARY();
}
