/* Packet timestamps on sequence-scoped clocks (ids 64-127): unit
 * multipliers and incremental clocks, whose readings are deltas from the
 * clock's previous reading and whose absolute value a ClockSnapshot sets
 * (the way Perfetto's SDK and Chrome write track events). */
#include "check.h"
#include "weft/weft.h"

#include "proto_test_util.h"

enum {
  F_TIMESTAMP = 8,
  F_SEQ_ID = 10,
  F_TRACK_EVENT = 11,
  F_SEQ_FLAGS = 13,
  F_CLOCK_SNAPSHOT = 6,
  F_CLOCK_ID = 58,
  F_DEFAULTS = 59,
  TE_TYPE_INSTANT = 3,
  CLOCK_BOOTTIME = 6,
  CLOCK_SEQ = 64,
};

/* Sequence `seq` starts: incremental state cleared, its packets on clock 64. */
static void seq_start(pb *trace, uint32_t seq) {
  pb pkt = {0}, defaults = {0};
  pb_int(&defaults, F_CLOCK_ID, CLOCK_SEQ);
  pb_int(&pkt, F_SEQ_ID, seq);
  pb_int(&pkt, F_SEQ_FLAGS, 1);
  pb_msg(&pkt, F_DEFAULTS, &defaults);
  packet(trace, &pkt);
}

/* A snapshot on `seq`: BOOTTIME at boot_ns, clock 64 at seq_us (in us,
 * incremental or not). The packet's own timestamp is on the sequence's
 * default clock (no timestamp_clock_id): it must not count as a delta. */
static void seq_snapshot(pb *trace, uint32_t seq, uint64_t boot_ns, uint64_t seq_us,
                         int incremental) {
  pb pkt = {0}, snap = {0}, boot = {0}, inc = {0};
  pb_int(&boot, 1, CLOCK_BOOTTIME);
  pb_int(&boot, 2, boot_ns);
  pb_int(&inc, 1, CLOCK_SEQ);
  pb_int(&inc, 2, seq_us);
  if (incremental) pb_int(&inc, 3, 1);
  pb_int(&inc, 4, 1000);
  pb_msg(&snap, 1, &boot);
  pb_msg(&snap, 1, &inc);
  pb_int(&pkt, F_TIMESTAMP, 999);
  pb_int(&pkt, F_SEQ_ID, seq);
  pb_msg(&pkt, F_CLOCK_SNAPSHOT, &snap);
  packet(trace, &pkt);
}

/* An instant named `name` on `seq`, `delta_us` after the previous reading. */
static void seq_instant(pb *trace, uint32_t seq, uint64_t delta_us, const char *name) {
  pb pkt = {0}, ev = {0};
  pb_int(&ev, 9, TE_TYPE_INSTANT);
  pb_str(&ev, 23, name);
  pb_int(&pkt, F_TIMESTAMP, delta_us);
  pb_int(&pkt, F_SEQ_ID, seq);
  pb_msg(&pkt, F_TRACK_EVENT, &ev);
  packet(trace, &pkt);
}

/* The slices as "name@ts name@ts ...,", ordered by name. */
static const char *slice_times(weft *w, result *r) {
  return query(w, r, "select group_concat(name || '@' || ts, ' ') "
                     "from (select name, ts from slice order by name)");
}

static void test_incremental_sequence_clocks(void) {
  pb trace = {0};
  seq_start(&trace, 1);
  seq_snapshot(&trace, 1, 1000000000, 1000000, 1); /* clock 64 = BOOTTIME */
  seq_instant(&trace, 1, 10, "a");              /* 1e9 + 10 us */
  seq_instant(&trace, 1, 5, "b");               /* + 5 us */
  seq_start(&trace, 2);                         /* its own clock 64 */
  seq_snapshot(&trace, 2, 2000000000, 500, 1);     /* 500 us = 2e9 ns boot */
  seq_instant(&trace, 2, 7, "c");
  seq_instant(&trace, 1, 1, "d"); /* sequence 1's deltas go on */
  seq_snapshot(&trace, 1, 3000000000, 2000000, 1); /* a new base, offset 1 s */
  seq_instant(&trace, 1, 2, "e");
  weft *w = load(&trace);
  CHECK(w != NULL);
  if (!w) return;
  result r;
  CHECK_EQ_STR(slice_times(w, &r),
               "a@1000010000 b@1000015000 c@2000007000 d@1000016000 e@3000002000,");
  /* The snapshots are not events: the bounds are the slices'. */
  CHECK_EQ_STR(query(w, &r, "select start_ts, end_ts from trace_bounds"),
               "1000010000,3000002000,");
  weft_close(w);
}

/* Without is_incremental, readings of a clock with a unit multiplier are
 * absolute: scaled, never summed. */
static void test_absolute_sequence_clock(void) {
  pb trace = {0};
  seq_start(&trace, 1);
  seq_snapshot(&trace, 1, 5000000000, 100, 0);
  seq_instant(&trace, 1, 110, "x"); /* 110 us: 10 us after the snapshot */
  seq_instant(&trace, 1, 120, "y");
  weft *w = load(&trace);
  CHECK(w != NULL);
  if (!w) return;
  result r;
  CHECK_EQ_STR(slice_times(w, &r), "x@5000010000 y@5000020000,");
  weft_close(w);
}

int main(void) {
  RUN_TEST(test_incremental_sequence_clocks);
  RUN_TEST(test_absolute_sequence_clock);
  return CHECK_SUMMARY();
}
