/* clock: names and keys, the worked examples of clock-synchronization.md,
 * scoping of clock ids and the placement rules. Caching, arithmetic and
 * hostile input are in test_clock_robust.c. */
#include <stdlib.h>

#include "check.h"
#include "clock/clock.h"
#include "clock_helpers.h"

/* ---- names and keys ---- */

static void test_names(void) {
  CHECK_EQ_STR(clock_name_from_id(CLOCK_ID_BOOTTIME), "BOOTTIME");
  CHECK_EQ_STR(clock_name_from_id(CLOCK_ID_REALTIME_COARSE), "REALTIME_COARSE");
  CHECK_EQ_STR(clock_name_from_id(CLOCK_ID_MONOTONIC_RAW), "MONOTONIC_RAW");
  CHECK(clock_name_from_id(CLOCK_ID_TSC) == NULL);
  CHECK(clock_name_from_id(128) == NULL);
  CHECK(clock_name_from_id(CLOCK_ID_FILE_PRIVATE) == NULL);
  static const char *names[] = {"REALTIME", "REALTIME_COARSE", "MONOTONIC",
                                "MONOTONIC_COARSE", "MONOTONIC_RAW",
                                "BOOTTIME"};
  for (uint64_t i = 0; i < 6; i++) {
    uint64_t id = 0;
    CHECK(clock_id_from_name(names[i], strlen(names[i]), &id));
    CHECK_EQ_INT(id, i + 1);
    CHECK_EQ_STR(clock_name_from_id(id), names[i]);
  }
  uint64_t id = 99;
  CHECK(!clock_id_from_name("boottime", 8, &id));
  CHECK(!clock_id_from_name("BOOT", 4, &id));
  CHECK(!clock_id_from_name("BOOTTIMEX", 9, &id));
  CHECK(!clock_id_from_name("TSC", 3, &id));
  CHECK(!clock_id_from_name(NULL, 0, &id));
  CHECK_EQ_INT(id, 99);
  CHECK(clock_id_from_name("BOOTTIME_extra", 8, &id) && id == 6);
  CHECK_EQ_STR(clock_level_name(CLOCK_LEVEL_REALTIME), "REALTIME rendezvous");
  CHECK_EQ_STR(clock_result_name(CLOCK_UNRELATABLE_DOMAINS),
               "unrelatable clock domains");
}

static void test_key_scope(void) {
  clock_key b = clock_key_make(3, 4, 5, CLOCK_ID_BOOTTIME);
  CHECK(b.machine == 3 && b.file == 0 && b.sequence == 0 && b.clock_id == 6);
  clock_key s = clock_key_make(3, 4, 5, 64);
  CHECK(s.machine == 3 && s.file == 4 && s.sequence == 5);
  clock_key s2 = clock_key_make(3, 4, 5, 127);
  CHECK(s2.file == 4 && s2.sequence == 5);
  clock_key gl = clock_key_make(3, 4, 5, 128);
  CHECK(gl.machine == 3 && gl.file == 4 && gl.sequence == 0);
  clock_key big = clock_key_make(3, 4, 5, 0x80001234u);
  CHECK(big.file == 4 && big.sequence == 0);
  clock_key p = clock_key_make(3, 4, 5, CLOCK_ID_FILE_PRIVATE);
  CHECK(p.machine == 3 && p.file == 4 && p.sequence == 0);
  clock_key b63 = clock_key_make(1, 2, 3, 63);
  CHECK(b63.file == 0 && b63.sequence == 0);
  CHECK(clock_key_equal(&b, &b) && !clock_key_equal(&b, &s));
}

/* ---- the worked examples ---- */

static void test_worked_example_single_hop(void) {
  clock_graph g;
  build_example1(&g);
  clock_key mono = K(0, CLOCK_ID_MONOTONIC);
  CHECK_CONV(&g, mono, 1104, 2104);
  CHECK_CONV(&g, mono, 1000, 2000);
  CHECK_CONV(&g, mono, 999, 1999);   /* before the first: first point */
  CHECK_CONV(&g, mono, 1950, 2950);
  CHECK_CONV(&g, mono, 2000, 3500);  /* out of sync after suspend */
  CHECK_CONV(&g, mono, 2050, 3550);
  CHECK_CONV(&g, mono, 5000, 6500);  /* after the last: last point */
  CHECK_EQ_INT(level_of(&g, mono), CLOCK_LEVEL_SNAPSHOTS);
  CHECK_EQ_INT(hops_of(&g, mono), 1);
  CHECK_EQ_INT(level_of(&g, K(0, CLOCK_ID_BOOTTIME)), CLOCK_LEVEL_TRACE_TIME);
  CHECK_EQ_INT(hops_of(&g, K(0, CLOCK_ID_BOOTTIME)), 0);
  CHECK_CONV(&g, K(0, CLOCK_ID_BOOTTIME), 12345, 12345);
  clock_graph_free(&g);
}

static void test_worked_example_multi_hop(void) {
  clock_graph g;
  build_example2(&g);
  CHECK_CONV(&g, example2_custom(), 3503, 7703);
  CHECK_CONV(&g, K(0, CLOCK_ID_MONOTONIC), 3703, 7703);
  uint32_t path[8];
  size_t len = 0;
  CHECK_EQ_INT(clock_graph_path(&g, node_of(&g, example2_custom()), path, 8, &len),
               CLOCK_OK);
  CHECK_EQ_INT(len, 3);
  CHECK_EQ_INT(path[0], node_of(&g, example2_custom()));
  CHECK_EQ_INT(path[1], node_of(&g, K(0, CLOCK_ID_MONOTONIC)));
  CHECK_EQ_INT(path[2], node_of(&g, K(0, CLOCK_ID_BOOTTIME)));
  /* A short buffer still reports the full length. */
  CHECK_EQ_INT(clock_graph_path(&g, node_of(&g, example2_custom()), path, 1, &len),
               CLOCK_OK);
  CHECK_EQ_INT(len, 3);
  CHECK_EQ_INT(hops_of(&g, example2_custom()), 2);
  clock_graph_free(&g);
}

static void test_non_monotonic_realtime(void) {
  static const int64_t boot[] = {1000, 2000, 3000, 4000};
  static const int64_t real[] = {5000, 6000, 5500, 6500}; /* jumps back */
  clock_key b = K(0, CLOCK_ID_BOOTTIME), r = K(0, CLOCK_ID_REALTIME);

  /* REALTIME as target (trace time): allowed. */
  clock_graph g;
  graph_init(&g);
  claim(&g, r);
  for (int i = 0; i < 4; i++) snap2(&g, 1, b, boot[i], r, real[i]);
  CHECK(!clock_graph_node_is_monotonic(&g, node_of(&g, r)));
  CHECK(clock_graph_node_is_monotonic(&g, node_of(&g, b)));
  CHECK_CONV(&g, b, 2500, 6500);
  CHECK_CONV(&g, b, 3200, 5700); /* two BOOTTIMEs may map to one REALTIME */
  CHECK_CONV(&g, b, 3500, 6000);
  clock_graph_free(&g);

  /* REALTIME as source: refused. */
  graph_init(&g);
  claim(&g, b);
  for (int i = 0; i < 4; i++) snap2(&g, 1, b, boot[i], r, real[i]);
  CHECK_CONV_FAILS(&g, r, 5700, CLOCK_NO_PATH);
  CHECK_CONV(&g, b, 1500, 1500);
  /* ... and as an intermediate hop. */
  clock_key custom = clock_key_make(0, 1, 0, 200);
  snap2(&g, 2, custom, 10, r, 5000);
  CHECK_CONV_FAILS(&g, custom, 20, CLOCK_NO_PATH);
  clock_graph_free(&g);

  /* Before it went backwards it was usable as a source. */
  graph_init(&g);
  claim(&g, b);
  for (int i = 0; i < 2; i++) snap2(&g, 1, b, boot[i], r, real[i]);
  CHECK_CONV(&g, r, 5500, 1500);
  snap2(&g, 1, b, boot[2], r, real[2]);
  CHECK_CONV_FAILS(&g, r, 5500, CLOCK_NO_PATH);
  clock_graph_free(&g);
}

static void test_monotonic_per_stream(void) {
  clock_graph g;
  graph_init(&g);
  clock_key b = K(0, CLOCK_ID_BOOTTIME), m = K(0, CLOCK_ID_MONOTONIC);
  claim(&g, b);
  /* Two files of the same machine, the later-recorded one loaded first. */
  snap2(&g, 1, b, 5000, m, 4000);
  snap2(&g, 1, b, 6000, m, 5000);
  snap2(&g, 2, b, 1000, m, 0);
  snap2(&g, 2, b, 2000, m, 1000);
  CHECK(clock_graph_node_is_monotonic(&g, node_of(&g, b)));
  CHECK(clock_graph_node_is_monotonic(&g, node_of(&g, m)));
  CHECK_CONV(&g, m, 500, 1500);
  CHECK_CONV(&g, m, 1500, 2500);
  CHECK_CONV(&g, m, 4500, 5500);
  CHECK_CONV(&g, m, 5500, 6500);
  /* Relations are exempt from monotonicity tracking. */
  relate(&g, K(1, CLOCK_ID_BOOTTIME), b, 100);
  relate(&g, K(2, CLOCK_ID_BOOTTIME), b, -100);
  CHECK(clock_graph_node_is_monotonic(&g, node_of(&g, b)));
  /* Backwards within one stream is detected. */
  snap2(&g, 2, b, 1500, m, 1600);
  CHECK(!clock_graph_node_is_monotonic(&g, node_of(&g, b)));
  CHECK(clock_graph_node_is_monotonic(&g, node_of(&g, m)));
  CHECK_CONV(&g, m, 4500, 5500);
  clock_graph_free(&g);
}

/* ---- scoping ---- */

static void test_sequence_scoped_ids(void) {
  clock_graph g;
  graph_init(&g);
  clock_key b = K(0, CLOCK_ID_BOOTTIME);
  claim(&g, b);
  clock_key s1 = clock_key_make(0, 1, 1, 64), s2 = clock_key_make(0, 1, 2, 64);
  snap2(&g, 1, s1, 0, b, 1000);
  snap2(&g, 2, s2, 0, b, 5000);
  CHECK_CONV(&g, s1, 10, 1010);
  CHECK_CONV(&g, s2, 10, 5010);
  CHECK_EQ_INT(clock_graph_node_count(&g), 3);
  /* Same id and sequence in another file is yet another clock. */
  CHECK_CONV_FAILS(&g, clock_key_make(0, 2, 1, 64), 10, CLOCK_NO_PATH);
  /* A builtin id ignores file and sequence. */
  CHECK_CONV(&g, clock_key_make(0, 9, 9, CLOCK_ID_BOOTTIME), 77, 77);
  clock_graph_free(&g);
}

static void test_global_custom_clock_per_file(void) {
  clock_graph g;
  graph_init(&g);
  clock_key b = K(0, CLOCK_ID_BOOTTIME);
  claim(&g, b);
  clock_key f1 = clock_key_make(0, 1, 3, 128), f2 = clock_key_make(0, 2, 4, 128);
  CHECK(clock_key_equal(&f1, &(clock_key){0, 1, 0, 128}));
  snap2(&g, 1, f1, 100, b, 1100);
  snap2(&g, 2, f2, 100, b, 10100);
  CHECK_CONV(&g, f1, 200, 1200);
  CHECK_CONV(&g, f2, 200, 10200);
  /* Other sequences of file 1 see file 1's clock. */
  CHECK_CONV(&g, clock_key_make(0, 1, 99, 128), 200, 1200);
  clock_graph_free(&g);
}

/* ---- placement rules ---- */

static void test_snapshot_path_beats_rendezvous(void) {
  clock_key b1 = K(1, CLOCK_ID_BOOTTIME), r1 = K(1, CLOCK_ID_REALTIME);
  clock_key b2 = K(2, CLOCK_ID_BOOTTIME), r2 = K(2, CLOCK_ID_REALTIME);
  clock_graph g;
  graph_init(&g);
  claim(&g, b1);
  snap2(&g, 1, b1, 1000, r1, 1000000);
  snap2(&g, 2, b2, 5000, r2, 1000000);
  CHECK_CONV(&g, b2, 5000, 1000);
  CHECK_EQ_INT(level_of(&g, b2), CLOCK_LEVEL_REALTIME);
  relate(&g, b2, b1, 300); /* manifest: server BOOTTIME + 300 = phone */
  CHECK_CONV(&g, b2, 5000, 5300);
  CHECK_EQ_INT(level_of(&g, b2), CLOCK_LEVEL_SNAPSHOTS);
  /* REALTIME@2 now also goes through the relation: a 2-hop snapshot path
   * beats a 2-hop rendezvous path. */
  CHECK_CONV(&g, r2, 1000000, 5300);
  CHECK_EQ_INT(level_of(&g, r2), CLOCK_LEVEL_SNAPSHOTS);
  clock_graph_free(&g);
}

static void test_realtime_rendezvous(void) {
  /* conformance trace_manifest/realtime_three_machines */
  clock_graph g;
  graph_init(&g);
  claim(&g, K(1, CLOCK_ID_BOOTTIME));
  for (uint32_t m = 1; m <= 3; m++)
    snap2(&g, m, K(m, CLOCK_ID_BOOTTIME), 1000000000, K(m, CLOCK_ID_REALTIME),
          1700000000000000000 + (int64_t)m * 1000000000);
  CHECK_CONV(&g, K(1, CLOCK_ID_BOOTTIME), 1100000000, 1100000000);
  CHECK_CONV(&g, K(2, CLOCK_ID_BOOTTIME), 1100000000, 2100000000);
  CHECK_CONV(&g, K(3, CLOCK_ID_BOOTTIME), 1100000000, 3100000000);
  CHECK_EQ_INT(level_of(&g, K(1, CLOCK_ID_BOOTTIME)), CLOCK_LEVEL_TRACE_TIME);
  CHECK_EQ_INT(level_of(&g, K(1, CLOCK_ID_REALTIME)), CLOCK_LEVEL_SNAPSHOTS);
  CHECK_EQ_INT(level_of(&g, K(2, CLOCK_ID_BOOTTIME)), CLOCK_LEVEL_REALTIME);
  CHECK_EQ_INT(hops_of(&g, K(2, CLOCK_ID_BOOTTIME)), 3);
  clock_graph_free(&g);

  /* conformance realtime_beats_boottime: the BOOTTIMEs differ by 4 s but
   * REALTIME agrees, and REALTIME wins over the same-domain guess. */
  graph_init(&g);
  claim(&g, K(1, CLOCK_ID_BOOTTIME));
  snap2(&g, 1, K(1, CLOCK_ID_BOOTTIME), 1000000000, K(1, CLOCK_ID_REALTIME),
        1700000001000000000);
  snap2(&g, 2, K(2, CLOCK_ID_BOOTTIME), 5000000000, K(2, CLOCK_ID_REALTIME),
        1700000001000000000);
  CHECK_CONV(&g, K(2, CLOCK_ID_BOOTTIME), 5100000000, 1100000000);
  CHECK_EQ_INT(level_of(&g, K(2, CLOCK_ID_BOOTTIME)), CLOCK_LEVEL_REALTIME);
  clock_graph_free(&g);
}

static void test_same_domain_fallback(void) {
  /* conformance no_realtime_on_trace_time_machine_falls_back */
  clock_graph g;
  graph_init(&g);
  clock_key b1 = K(1, CLOCK_ID_BOOTTIME), b2 = K(2, CLOCK_ID_BOOTTIME);
  clock_key r2 = K(2, CLOCK_ID_REALTIME);
  claim(&g, b1);
  snap1(&g, 1, b1, 1000000000);
  snap2(&g, 2, b2, 1000000000, r2, 1700000002000000000);
  CHECK_CONV(&g, b2, 1100000000, 1100000000);
  CHECK_EQ_INT(level_of(&g, b2), CLOCK_LEVEL_SAME_DOMAIN);
  CHECK_CONV(&g, r2, 1700000002100000000, 1100000000);
  CHECK_EQ_INT(level_of(&g, r2), CLOCK_LEVEL_SAME_DOMAIN);
  CHECK_EQ_INT(hops_of(&g, r2), 2);
  /* A machine with no snapshot at all: BOOTTIME overlays. */
  CHECK_CONV(&g, K(3, CLOCK_ID_BOOTTIME), 3000000000, 3000000000);
  /* Same domain but a different real domain from trace time: dropped. */
  CHECK_CONV_FAILS(&g, K(3, CLOCK_ID_MONOTONIC), 5, CLOCK_UNRELATABLE_DOMAINS);
  clock_graph_free(&g);
}

static void test_same_domain_once_per_group(void) {
  /* A relay: host (machine 1) and VM (machine 2) BOOTTIMEs related by a
   * snapshot, neither related to trace time (machine 3). The same-domain
   * assumption places the group once (at its first clock, the host's); the
   * VM follows through its snapshot instead of being overlaid too. */
  clock_graph g;
  graph_init(&g);
  clock_key tt = K(3, CLOCK_ID_BOOTTIME);
  clock_key host = K(1, CLOCK_ID_BOOTTIME), vm = K(2, CLOCK_ID_BOOTTIME);
  claim(&g, tt);
  node_of(&g, host);
  relate(&g, vm, host, -48000000000);
  CHECK_CONV(&g, host, 1100000000, 1100000000);
  CHECK_CONV(&g, vm, 50100000000, 2100000000);
  CHECK_EQ_INT(level_of(&g, vm), CLOCK_LEVEL_SAME_DOMAIN);
  CHECK_EQ_INT(hops_of(&g, vm), 2);
  clock_graph_free(&g);
}

static void test_private_clock_pinned(void) {
  clock_graph g;
  graph_init(&g);
  clock_key b1 = K(1, CLOCK_ID_BOOTTIME);
  claim(&g, b1);
  snap2(&g, 1, b1, 1000, K(1, CLOCK_ID_MONOTONIC), 500);
  /* An isolated private clock: pinned at zero offset. */
  clock_key p = PRIV(2, 5);
  node_of(&g, p);
  CHECK_CONV(&g, p, 2000000, 2000000);
  CHECK_EQ_INT(level_of(&g, p), CLOCK_LEVEL_PINNED);
  /* Never interned: placed the same way. */
  CHECK_CONV(&g, PRIV(2, 6), -5, -5);
  /* conformance clockless_manual_cross_machine: a manifest relation wins. */
  clock_key q = PRIV(3, 7);
  relate(&g, q, b1, 500);
  CHECK_CONV(&g, q, 2000000, 2000500);
  CHECK_EQ_INT(level_of(&g, q), CLOCK_LEVEL_SNAPSHOTS);
  /* Pinned through its reference clock, which is related by same domain. */
  clock_key q2 = PRIV(4, 8);
  relate(&g, q2, K(4, CLOCK_ID_BOOTTIME), 250);
  CHECK_CONV(&g, q2, 1000, 1250);
  CHECK_EQ_INT(level_of(&g, q2), CLOCK_LEVEL_SAME_DOMAIN);
  clock_graph_free(&g);
}

static void test_private_trace_time(void) {
  /* A clockless file owns trace time; another file's clocks need an anchor
   * (its main clock) to be pinned, and then keep their relative offsets. */
  clock_graph g;
  graph_init(&g);
  clock_key tt = PRIV(0, 1);
  claim(&g, tt);
  clock_key b2 = K(2, CLOCK_ID_BOOTTIME), m2 = K(2, CLOCK_ID_MONOTONIC);
  snap2(&g, 1, b2, 1000, m2, 100);
  CHECK_CONV_FAILS(&g, m2, 100, CLOCK_NO_PATH);
  base_error err;
  CHECK_EQ_INT(clock_graph_set_anchor(&g, node_of(&g, b2), &err), WEFT_OK);
  CHECK_CONV(&g, b2, 1000, 1000);
  CHECK_CONV(&g, m2, 100, 1000);
  CHECK_EQ_INT(level_of(&g, m2), CLOCK_LEVEL_PINNED);
  /* An isolated clock of any domain is pinned to a private trace time. */
  CHECK_CONV(&g, K(3, CLOCK_ID_REALTIME), 42, 42);
  CHECK_EQ_INT(clock_graph_set_anchor(&g, 999, &err), WEFT_EINVAL);
  clock_graph_free(&g);
}

static void test_unrelatable_domains(void) {
  /* conformance cross_domain_drop_is_logged: trace time is REALTIME of the
   * host; the phone has REALTIME, the server only BOOTTIME. */
  clock_graph g;
  graph_init(&g);
  claim(&g, K(0, CLOCK_ID_REALTIME));
  snap2(&g, 1, K(1, CLOCK_ID_BOOTTIME), 1000000000, K(1, CLOCK_ID_REALTIME),
        1700000001500000000);
  snap1(&g, 2, K(2, CLOCK_ID_BOOTTIME), 1000000000);
  CHECK_CONV(&g, K(1, CLOCK_ID_BOOTTIME), 1100000000, 1700000001600000000);
  CHECK_EQ_INT(level_of(&g, K(1, CLOCK_ID_BOOTTIME)), CLOCK_LEVEL_REALTIME);
  CHECK_CONV_FAILS(&g, K(2, CLOCK_ID_BOOTTIME), 1100000000,
                   CLOCK_UNRELATABLE_DOMAINS);
  clock_level level = CLOCK_LEVEL_SNAPSHOTS;
  CHECK_EQ_INT(clock_graph_placement(&g, node_of(&g, K(2, CLOCK_ID_BOOTTIME)),
                                     &level, NULL),
               CLOCK_UNRELATABLE_DOMAINS);
  CHECK_EQ_INT(level, CLOCK_LEVEL_NONE);
  /* A custom clock without snapshots is a plain sync failure. */
  CHECK_CONV_FAILS(&g, clock_key_make(2, 2, 0, 200), 5, CLOCK_NO_PATH);
  clock_key c3 = clock_key_make(3, 3, 0, 300);
  node_of(&g, c3);
  CHECK_CONV_FAILS(&g, c3, 5, CLOCK_NO_PATH);
  /* ... but tied to an unrelatable real domain it is unrelatable too. */
  clock_key c2 = clock_key_make(2, 2, 0, 201);
  snap2(&g, 3, c2, 0, K(2, CLOCK_ID_BOOTTIME), 0);
  CHECK_CONV_FAILS(&g, c2, 5, CLOCK_UNRELATABLE_DOMAINS);
  clock_graph_free(&g);

  /* BOOTTIME here, REALTIME there, nothing relating them. */
  graph_init(&g);
  claim(&g, K(1, CLOCK_ID_BOOTTIME));
  snap1(&g, 1, K(1, CLOCK_ID_BOOTTIME), 10);
  snap1(&g, 2, K(2, CLOCK_ID_REALTIME), 10);
  CHECK_CONV_FAILS(&g, K(2, CLOCK_ID_REALTIME), 10, CLOCK_UNRELATABLE_DOMAINS);
  /* Rendezvous needs REALTIME on the trace-time machine. */
  snap2(&g, 3, K(3, CLOCK_ID_REALTIME), 0, K(3, CLOCK_ID_MONOTONIC), 0);
  CHECK_CONV_FAILS(&g, K(3, CLOCK_ID_MONOTONIC), 10, CLOCK_UNRELATABLE_DOMAINS);
  snap2(&g, 1, K(1, CLOCK_ID_BOOTTIME), 20, K(1, CLOCK_ID_REALTIME), 1020);
  CHECK_CONV(&g, K(2, CLOCK_ID_REALTIME), 1030, 30);
  CHECK_CONV(&g, K(3, CLOCK_ID_MONOTONIC), 5, 20 - 1020 + 5);
  clock_graph_free(&g);
}

static void test_manual_offsets(void) {
  clock_graph g;
  graph_init(&g);
  clock_key b = K(0, CLOCK_ID_BOOTTIME);
  claim(&g, b);
  clock_key s1 = PRIV(1, 1), s2 = PRIV(1, 2), y = K(3, CLOCK_ID_BOOTTIME);
  relate(&g, s1, b, 250000000);
  relate(&g, s2, b, -500);
  CHECK_CONV(&g, s1, 1000, 250001000);
  CHECK_CONV(&g, s1, -1000, 249999000);
  CHECK_CONV(&g, s2, 1000, 500);
  CHECK_CONV(&g, s2, 0, -500);
  /* Trace time as the relation's source: converted backwards. */
  relate(&g, b, y, -700);
  CHECK_CONV(&g, y, 1000, 1700);
  /* The relation is recorded as a 2-clock snapshot {source: 0, ref: off}. */
  clock_snapshot_view v;
  CHECK(clock_graph_snapshot_get(&g, 1, &v));
  CHECK_EQ_INT(v.count, 2);
  CHECK(clock_key_equal(&v.keys[0], &s2) && clock_key_equal(&v.keys[1], &b));
  CHECK_EQ_INT(v.values[0], 0);
  CHECK_EQ_INT(v.values[1], -500);
  CHECK_EQ_INT(v.stream, CLOCK_STREAM_NONE);
  base_error err;
  CHECK_EQ_INT(clock_graph_add_relation(&g, &b, &b, 5, NULL, &err), WEFT_EPARSE);
  clock_graph_free(&g);
}

int main(void) {
  RUN_TEST(test_names);
  RUN_TEST(test_key_scope);
  RUN_TEST(test_worked_example_single_hop);
  RUN_TEST(test_worked_example_multi_hop);
  RUN_TEST(test_non_monotonic_realtime);
  RUN_TEST(test_monotonic_per_stream);
  RUN_TEST(test_sequence_scoped_ids);
  RUN_TEST(test_global_custom_clock_per_file);
  RUN_TEST(test_snapshot_path_beats_rendezvous);
  RUN_TEST(test_realtime_rendezvous);
  RUN_TEST(test_same_domain_fallback);
  RUN_TEST(test_same_domain_once_per_group);
  RUN_TEST(test_private_clock_pinned);
  RUN_TEST(test_private_trace_time);
  RUN_TEST(test_unrelatable_domains);
  RUN_TEST(test_manual_offsets);
  return CHECK_SUMMARY();
}
