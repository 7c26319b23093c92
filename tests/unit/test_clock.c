#include <stdlib.h>

#include "check.h"
#include "clock/clock.h"

/* ---- helpers ---- */

static clock_key K(uint32_t machine, uint64_t id) {
  return clock_key_make(machine, 0, 0, id);
}

static clock_key PRIV(uint32_t machine, uint32_t file) {
  return clock_key_make(machine, file, 0, CLOCK_ID_FILE_PRIVATE);
}

/* Every conversion of a test also goes through this cache (one graph at a
 * time: graph_init resets it), which must agree with the direct one. */
static clock_converter test_converter;

static void graph_init(clock_graph *g) {
  test_converter = (clock_converter){0};
  base_error err;
  CHECK_EQ_INT(clock_graph_init(g, NULL, &err), WEFT_OK);
}

static void snap2(clock_graph *g, uint32_t stream, clock_key a, int64_t va,
                  clock_key b, int64_t vb) {
  clock_key keys[2] = {a, b};
  int64_t values[2] = {va, vb};
  base_error err;
  CHECK_EQ_INT(clock_graph_add_snapshot(g, stream, keys, values, 2, NULL, &err),
               WEFT_OK);
}

static void snap1(clock_graph *g, uint32_t stream, clock_key a, int64_t va) {
  base_error err;
  CHECK_EQ_INT(clock_graph_add_snapshot(g, stream, &a, &va, 1, NULL, &err),
               WEFT_OK);
}

static void relate(clock_graph *g, clock_key src, clock_key ref, int64_t off) {
  base_error err;
  CHECK_EQ_INT(clock_graph_add_relation(g, &src, &ref, off, NULL, &err), WEFT_OK);
}

static void claim(clock_graph *g, clock_key k) {
  base_error err;
  CHECK_EQ_INT(clock_graph_claim_trace_time(g, &k, &err), 1);
}

static uint32_t node_of(clock_graph *g, clock_key k) {
  uint32_t n = CLOCK_NODE_NONE;
  base_error err;
  CHECK_EQ_INT(clock_graph_intern(g, &k, &n, &err), WEFT_OK);
  return n;
}

/* Converts and checks success and the value. */
/* clock_graph_convert_key, checked against the cached conversion when the
 * key is a node of the graph. */
static clock_result conv(clock_graph *g, clock_key k, int64_t ts, int64_t *out) {
  clock_result r = clock_graph_convert_key(g, &k, ts, out);
  uint32_t node;
  if (clock_graph_find(g, &k, &node)) {
    int64_t cached = 0;
    CHECK_EQ_INT(clock_converter_convert(g, &test_converter, node, ts, &cached), r);
    if (r == CLOCK_OK) CHECK_EQ_INT(cached, *out);
  }
  return r;
}

#define CHECK_CONV(g, key, ts, expect)                  \
  do {                                                  \
    int64_t out_ = 0;                                   \
    CHECK_EQ_INT(conv((g), (key), (ts), &out_), CLOCK_OK); \
    CHECK_EQ_INT(out_, (expect));                       \
  } while (0)

#define CHECK_CONV_FAILS(g, key, ts, result)             \
  do {                                                   \
    int64_t out_ = 0;                                    \
    CHECK_EQ_INT(conv((g), (key), (ts), &out_), (result)); \
  } while (0)

static clock_level level_of(clock_graph *g, clock_key k) {
  clock_level level = CLOCK_LEVEL_NONE;
  clock_graph_placement(g, node_of(g, k), &level, NULL);
  return level;
}

static uint32_t hops_of(clock_graph *g, clock_key k) {
  uint32_t hops = 0;
  clock_graph_placement(g, node_of(g, k), NULL, &hops);
  return hops;
}

/* MONOTONIC / BOOTTIME table of clock-synchronization.md. */
static void build_example1(clock_graph *g) {
  graph_init(g);
  claim(g, K(0, CLOCK_ID_BOOTTIME));
  static const int64_t mono[] = {1000, 1100, 1200, 1900, 2000, 2100};
  static const int64_t boot[] = {2000, 2100, 2200, 2900, 3500, 3600};
  for (int i = 0; i < 6; i++)
    snap2(g, 1, K(0, CLOCK_ID_MONOTONIC), mono[i], K(0, CLOCK_ID_BOOTTIME),
          boot[i]);
}

/* CUSTOM / MONOTONIC / BOOTTIME table of clock-synchronization.md. */
static clock_key example2_custom(void) { return clock_key_make(0, 1, 7, 64); }
static void build_example2(clock_graph *g) {
  graph_init(g);
  claim(g, K(0, CLOCK_ID_BOOTTIME));
  clock_key custom = example2_custom(), mono = K(0, CLOCK_ID_MONOTONIC),
            boot = K(0, CLOCK_ID_BOOTTIME);
  snap2(g, 1, custom, 1000, mono, 1100);
  snap2(g, 1, mono, 1200, boot, 5200);
  snap2(g, 1, custom, 3000, mono, 3200);
  snap2(g, 1, mono, 4000, boot, 9000);
}

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

/* ---- determinism and caching ---- */

static int64_t tie_break_case(bool a_first) {
  clock_graph g;
  graph_init(&g);
  clock_key tt = K(0, CLOCK_ID_BOOTTIME);
  clock_key a = clock_key_make(0, 1, 0, 130), b = clock_key_make(0, 1, 0, 131);
  clock_key s = clock_key_make(0, 1, 0, 132);
  claim(&g, tt);
  node_of(&g, a_first ? a : b);
  node_of(&g, a_first ? b : a);
  snap2(&g, 1, s, 0, b, 100);
  snap2(&g, 2, s, 0, a, 200);
  snap2(&g, 3, a, 0, tt, 0);
  snap2(&g, 4, b, 0, tt, 0);
  int64_t out = 0;
  CHECK_EQ_INT(clock_graph_convert_key(&g, &s, 10, &out), CLOCK_OK);
  uint32_t path[4];
  size_t len = 0;
  clock_graph_path(&g, node_of(&g, s), path, 4, &len);
  CHECK_EQ_INT(len, 3);
  CHECK_EQ_INT(path[1], 1); /* the neighbour created first */
  clock_graph_free(&g);
  return out;
}

static void test_tie_break(void) {
  CHECK_EQ_INT(tie_break_case(true), 210);
  CHECK_EQ_INT(tie_break_case(false), 110);
  CHECK_EQ_INT(tie_break_case(true), 210);
}

static void test_cache_across_intervals(void) {
  clock_graph g;
  build_example1(&g);
  clock_key mono = K(0, CLOCK_ID_MONOTONIC), boot = K(0, CLOCK_ID_BOOTTIME);
  static const int64_t seq[][2] = {
      {1104, 2104}, {1150, 2150}, {1950, 2950}, {1104, 2104}, {2050, 3550},
      {500, 1500},  {1104, 2104}, {1199, 2199}, {1200, 2200}, {1099, 2099},
      {INT64_MIN + 5000, INT64_MIN + 6000}, {2100, 3600}, {1104, 2104}};
  for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
    CHECK_CONV(&g, mono, seq[i][0], seq[i][1]);
  /* New points invalidate cached intervals. */
  CHECK_CONV(&g, mono, 2250, 3750); /* caches [2100, +inf) */
  snap2(&g, 1, mono, 2200, boot, 4000);
  CHECK_CONV(&g, mono, 2250, 4050);
  CHECK_CONV(&g, mono, 2150, 3650);
  /* An out-of-order point from another stream lands in the middle. */
  snap2(&g, 2, mono, 1150, boot, 2160);
  CHECK_CONV(&g, mono, 1160, 2170);
  CHECK_CONV(&g, mono, 1104, 2104);
  CHECK_CONV(&g, mono, 2250, 4050);
  /* Equal source values: the latest snapshot wins. */
  snap2(&g, 3, mono, 1150, boot, 9150);
  CHECK_CONV(&g, mono, 1160, 9160);
  CHECK_CONV(&g, mono, 1149, 2149);
  clock_graph_free(&g);

  build_example2(&g);
  clock_key custom = example2_custom();
  static const int64_t seq2[][2] = {
      {3503, 7703}, {1500, 5600}, {500, 4600}, {3503, 7703}, {3000, 7200},
      {2999, 7099}, {3503, 7703}};
  for (size_t i = 0; i < sizeof seq2 / sizeof seq2[0]; i++)
    CHECK_CONV(&g, custom, seq2[i][0], seq2[i][1]);
  clock_graph_free(&g);
}

/* Nearest neighbour computed the slow way from the recorded snapshots. */
static int64_t brute_force(const clock_graph *g, uint32_t src, uint32_t dst,
                           int64_t ts) {
  int64_t best_src = 0, best_dst = 0, first_src = 0, first_dst = 0;
  bool have_best = false, have_first = false;
  for (uint32_t id = 0; id < clock_graph_snapshot_count(g); id++) {
    clock_snapshot_view v;
    clock_graph_snapshot_get(g, id, &v);
    int64_t vs = 0, vd = 0;
    int found = 0;
    for (size_t i = 0; i < v.count; i++) {
      if (v.nodes[i] == src) vs = v.values[i], found |= 1;
      if (v.nodes[i] == dst) vd = v.values[i], found |= 2;
    }
    if (found != 3) continue;
    if (!have_first || vs < first_src) {
      first_src = vs, first_dst = vd, have_first = true;
    }
    if (vs <= ts && (!have_best || vs >= best_src)) {
      best_src = vs, best_dst = vd, have_best = true;
    }
  }
  return have_best ? ts - best_src + best_dst : ts - first_src + first_dst;
}

static void test_cache_random_against_brute_force(void) {
  clock_graph g;
  graph_init(&g);
  clock_key mono = K(0, CLOCK_ID_MONOTONIC), boot = K(0, CLOCK_ID_BOOTTIME);
  claim(&g, boot);
  uint32_t src = node_of(&g, mono), dst = node_of(&g, boot);
  srand(12345);
  int64_t base[4] = {0, 0, 0, 0};
  int mismatches = 0;
  for (int step = 0; step < 3000; step++) {
    if (step % 7 == 0) {
      uint32_t stream = (uint32_t)(rand() % 4);
      base[stream] += rand() % 50;
      int64_t m = base[stream] + (int64_t)stream * 100;
      snap2(&g, stream, mono, m, boot, m * 2 + rand() % 10);
    }
    if (clock_graph_snapshot_count(&g) == 0) continue;
    int64_t ts = rand() % 3000 - 100, out = 0;
    if (clock_graph_convert(&g, src, ts, &out) != CLOCK_OK ||
        out != brute_force(&g, src, dst, ts))
      mismatches++;
  }
  CHECK_EQ_INT(mismatches, 0);
  CHECK(clock_graph_node_is_monotonic(&g, src));
  clock_graph_free(&g);
}

/* A random 64-bit value, often near the ends of int64 or near zero. */
static int64_t random_value(void) {
  uint64_t v = (uint64_t)rand() << 42 ^ (uint64_t)rand() << 21 ^ (uint64_t)rand();
  switch (rand() % 4) {
  case 0: return INT64_MAX - (int64_t)(v % 1000);
  case 1: return INT64_MIN + (int64_t)(v % 1000);
  case 2: return (int64_t)(v % 100000) - 50000;
  default: return (int64_t)v;
  }
}

/* a + d, wrapping around the ends of int64. */
static int64_t wrapping_add(int64_t a, int64_t d) {
  return (int64_t)((uint64_t)a + (uint64_t)d);
}

/* The cached conversion equals the direct one along multi-hop paths, near
 * every piece boundary, at the ends of int64 (overflowing offsets, results
 * that do not fit), and after new points change the pieces. */
static void test_converter_against_direct(void) {
  for (unsigned seed = 1; seed <= 20; seed++) {
    srand(seed);
    clock_graph g;
    graph_init(&g);
    clock_key chain[4] = {K(0, CLOCK_ID_BOOTTIME), K(0, CLOCK_ID_MONOTONIC),
                          K(0, CLOCK_ID_MONOTONIC_RAW), clock_key_make(0, 1, 0, 500)};
    claim(&g, chain[0]);
    int mismatches = 0;
    int64_t near[64]; /* piece boundaries, to convert timestamps around */
    size_t nears = 0;
    for (int step = 0; step < 4000; step++) {
      if (step % 100 == 0) { /* a snapshot on one link of the chain */
        int link = rand() % 3;
        int64_t a = rand() % 4 ? (int64_t)(rand() % 100000) : random_value();
        int64_t b = rand() % 4 ? wrapping_add(a, rand() % 60000 - 30000) : random_value();
        snap2(&g, (uint32_t)(step % 3), chain[link], b, chain[link + 1], a);
        near[nears++ % 64] = a;
      }
      clock_key k = chain[1 + rand() % 3];
      uint32_t node;
      if (!clock_graph_find(&g, &k, &node)) continue;
      int64_t ts = rand() % 3 ? (int64_t)(rand() % 120000) - 10000 : random_value();
      if (rand() % 2)
        ts = wrapping_add(near[(size_t)rand() % (nears < 64 ? nears : 64)], rand() % 60001 - 30000);
      int64_t direct = 0, cached = 0;
      clock_result r = clock_graph_convert(&g, node, ts, &direct);
      clock_result rc = clock_converter_convert(&g, &test_converter, node, ts, &cached);
      if (r != rc || (r == CLOCK_OK && direct != cached)) mismatches++;
    }
    CHECK_EQ_INT(mismatches, 0);
    clock_graph_free(&g);
  }
}

/* ---- arithmetic and hostile input ---- */

static void test_overflow(void) {
  clock_graph g;
  graph_init(&g);
  clock_key b = K(0, CLOCK_ID_BOOTTIME), m = K(0, CLOCK_ID_MONOTONIC);
  claim(&g, b);
  snap2(&g, 1, m, 0, b, INT64_MAX - 10);
  CHECK_CONV(&g, m, 5, INT64_MAX - 5);
  CHECK_CONV(&g, m, 10, INT64_MAX);
  CHECK_CONV_FAILS(&g, m, 11, CLOCK_OVERFLOW);
  CHECK_CONV_FAILS(&g, m, INT64_MAX, CLOCK_OVERFLOW);
  CHECK_CONV(&g, m, INT64_MIN, -11);
  /* dst - src itself does not fit in int64. */
  clock_key r = K(0, CLOCK_ID_MONOTONIC_RAW);
  snap2(&g, 1, r, INT64_MIN + 100, b, INT64_MAX - 100);
  CHECK_CONV(&g, r, INT64_MIN + 150, INT64_MAX - 50);
  CHECK_CONV(&g, r, INT64_MIN + 100, INT64_MAX - 100);
  CHECK_CONV_FAILS(&g, r, INT64_MIN + 300, CLOCK_OVERFLOW);
  CHECK_CONV_FAILS(&g, r, INT64_MAX, CLOCK_OVERFLOW);
  clock_key c = K(0, CLOCK_ID_REALTIME_COARSE);
  snap2(&g, 1, c, INT64_MAX - 1, b, INT64_MIN + 1);
  CHECK_CONV(&g, c, INT64_MAX - 1, INT64_MIN + 1);
  CHECK_CONV(&g, c, INT64_MAX, INT64_MIN + 2);
  CHECK_CONV_FAILS(&g, c, 0, CLOCK_OVERFLOW);
  /* Overflow on the second hop of a path. */
  clock_key x = clock_key_make(0, 1, 0, 500);
  snap2(&g, 2, x, 0, m, 100);
  CHECK_CONV(&g, x, -90, INT64_MAX);
  CHECK_CONV_FAILS(&g, x, -89, CLOCK_OVERFLOW);
  clock_graph_free(&g);
}

static void test_bad_input(void) {
  base_error err;
  clock_graph g;
  clock_graph_limits limits = {.max_clocks = 4, .max_snapshot_clocks = 3,
                               .max_points = 10};
  CHECK_EQ_INT(clock_graph_init(&g, &limits, &err), WEFT_OK);
  int64_t out;
  CHECK_EQ_INT(clock_graph_convert(&g, 0, 1, &out), CLOCK_BAD_NODE);
  clock_key keys[4] = {K(0, 1), K(0, 3), K(0, 6), K(0, 5)};
  int64_t values[4] = {1, 2, 3, 4};
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 0, NULL, &err),
               WEFT_EPARSE);
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 4, NULL, &err),
               WEFT_ELIMIT);
  clock_key dup[2] = {K(0, 6), clock_key_make(0, 7, 7, 6)};
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, dup, values, 2, NULL, &err),
               WEFT_EPARSE);
  CHECK(strstr(err.message, "twice") != NULL);
  uint32_t id = 99;
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 3, &id, &err),
               WEFT_OK);
  CHECK_EQ_INT(id, 0);
  CHECK_EQ_INT(clock_graph_convert(&g, 0, 1, &out), CLOCK_NO_TRACE_TIME);
  CHECK_CONV_FAILS(&g, K(0, 6), 1, CLOCK_NO_TRACE_TIME);
  /* 6 points used, 4 left: a 3-clock snapshot needs 6. */
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 3, NULL, &err),
               WEFT_ELIMIT);
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 0, keys, values, 2, NULL, &err),
               WEFT_OK);
  uint32_t node;
  CHECK_EQ_INT(clock_graph_intern(&g, &keys[3], &node, &err), WEFT_OK);
  clock_key fifth = K(0, 2);
  CHECK_EQ_INT(clock_graph_intern(&g, &fifth, &node, &err), WEFT_ELIMIT);
  CHECK_EQ_INT(clock_graph_claim_trace_time(&g, &fifth, &err), WEFT_ELIMIT);
  CHECK(!clock_graph_trace_time(&g, NULL, NULL));
  CHECK(clock_graph_node_key(&g, 4) == NULL);
  CHECK(clock_graph_node_key(&g, 3) != NULL);
  CHECK(!clock_graph_node_is_monotonic(&g, 77));
  CHECK_EQ_INT(clock_graph_placement(&g, 77, NULL, NULL), CLOCK_BAD_NODE);
  size_t len;
  CHECK_EQ_INT(clock_graph_path(&g, 77, NULL, 0, &len), CLOCK_BAD_NODE);
  clock_graph_free(&g);

  clock_graph_limits bad = {.max_clocks = (1u << 20) + 1};
  CHECK_EQ_INT(clock_graph_init(&g, &bad, &err), WEFT_EINVAL);
  clock_graph_free(&g);
  bad = (clock_graph_limits){.max_snapshot_clocks = 5000};
  CHECK_EQ_INT(clock_graph_init(&g, &bad, &err), WEFT_EINVAL);
  clock_graph_free(&g);
}

static void test_trace_time_claim_and_records(void) {
  clock_graph g;
  graph_init(&g);
  base_error err;
  clock_key b = K(1, CLOCK_ID_BOOTTIME), r = K(1, CLOCK_ID_REALTIME);
  CHECK_EQ_INT(clock_graph_claim_trace_time(&g, &b, &err), 1);
  CHECK_EQ_INT(clock_graph_claim_trace_time(&g, &r, &err), 0);
  clock_key got;
  uint32_t node;
  CHECK(clock_graph_trace_time(&g, &got, &node));
  CHECK(clock_key_equal(&got, &b));
  CHECK_EQ_INT(node, 0);
  clock_key keys[3] = {b, r, K(1, CLOCK_ID_MONOTONIC)};
  int64_t values[3] = {10, 20, 30};
  uint32_t id;
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 7, keys, values, 3, &id, &err), 0);
  CHECK_EQ_INT(id, 0);
  values[0] = 11;
  CHECK_EQ_INT(clock_graph_add_snapshot(&g, 7, keys, values, 1, &id, &err), 0);
  CHECK_EQ_INT(id, 1);
  CHECK_EQ_INT(clock_graph_snapshot_count(&g), 2);
  clock_snapshot_view v;
  CHECK(clock_graph_snapshot_get(&g, 0, &v));
  CHECK_EQ_INT(v.id, 0);
  CHECK_EQ_INT(v.stream, 7);
  CHECK_EQ_INT(v.count, 3);
  CHECK(clock_key_equal(&v.keys[2], &keys[2]));
  CHECK_EQ_INT(v.values[1], 20);
  CHECK_EQ_INT(v.nodes[0], 0);
  CHECK_EQ_INT(v.nodes[1], 1);
  CHECK(clock_graph_snapshot_get(&g, 1, &v));
  CHECK_EQ_INT(v.count, 1);
  CHECK_EQ_INT(v.values[0], 11);
  CHECK(!clock_graph_snapshot_get(&g, 2, &v));
  CHECK_CONV(&g, K(1, CLOCK_ID_MONOTONIC), 35, 15);
  CHECK_CONV(&g, r, 25, 15); /* REALTIME 20 <-> BOOTTIME 10 */
  clock_graph_free(&g);
}

/* Clocks that appear after placement are placed without recomputing it. */
static void test_incremental_isolated_clocks(void) {
  clock_graph g;
  build_example1(&g);
  base_error err;
  CHECK_EQ_INT(clock_graph_resolve(&g, &err), WEFT_OK);
  uint64_t version = g.version;
  for (uint32_t seq = 1; seq <= 50000; seq++) {
    clock_key k = clock_key_make(0, 1, seq, 64);
    uint32_t node;
    int64_t out;
    CHECK_EQ_INT(clock_graph_intern(&g, &k, &node, &err), WEFT_OK);
    if (clock_graph_convert(&g, node, 5, &out) != CLOCK_NO_PATH) CHECK(0);
  }
  CHECK_EQ_INT(g.version, version);
  CHECK_CONV(&g, K(4, CLOCK_ID_BOOTTIME), 5, 5);
  node_of(&g, K(4, CLOCK_ID_BOOTTIME));
  CHECK_EQ_INT(level_of(&g, K(4, CLOCK_ID_BOOTTIME)), CLOCK_LEVEL_SAME_DOMAIN);
  CHECK_CONV_FAILS(&g, K(4, CLOCK_ID_REALTIME), 5, CLOCK_UNRELATABLE_DOMAINS);
  node_of(&g, K(4, CLOCK_ID_REALTIME));
  CHECK_EQ_INT(g.version, version);
  /* REALTIME of the trace-time machine opens the rendezvous for others. */
  snap2(&g, 1, K(0, CLOCK_ID_BOOTTIME), 3600, K(0, CLOCK_ID_REALTIME), 10000);
  CHECK(g.version != version);
  CHECK_CONV(&g, K(4, CLOCK_ID_REALTIME), 10005, 3605);
  CHECK_EQ_INT(level_of(&g, K(4, CLOCK_ID_REALTIME)), CLOCK_LEVEL_REALTIME);
  clock_graph_free(&g);
}

static void test_long_chain(void) {
  clock_graph g;
  graph_init(&g);
  clock_key tt = K(0, CLOCK_ID_BOOTTIME);
  claim(&g, tt);
  clock_key prev = tt;
  const uint32_t n = 20000;
  for (uint32_t i = 0; i < n; i++) {
    clock_key k = clock_key_make(0, 1, 0, 1000 + i);
    snap2(&g, 1, k, 0, prev, 1);
    prev = k;
  }
  CHECK_CONV(&g, prev, 0, n);
  CHECK_EQ_INT(hops_of(&g, prev), n);
  CHECK_CONV(&g, prev, 7, n + 7);
  clock_graph_free(&g);
}

/* Fails every allocation in turn: each failure is reported, nothing leaks
 * (checked by LSan), and the run that completes gives the right answers. */
static int alloc_scenario(void) {
  clock_graph g;
  base_error err;
  int rc = clock_graph_init(&g, NULL, &err);
  if (rc) return rc;
  clock_key b = K(0, CLOCK_ID_BOOTTIME), m = K(0, CLOCK_ID_MONOTONIC);
  clock_key r = K(0, CLOCK_ID_REALTIME), c = clock_key_make(0, 1, 2, 64);
  clock_key keys[3] = {b, m, r};
  int64_t values[3] = {2000, 1000, 9000};
  int64_t out = 0;
  rc = clock_graph_claim_trace_time(&g, &b, &err);
  if (rc < 0) goto done;
  for (int i = 0; i < 20 && rc >= 0; i++) {
    values[0] += 100, values[1] += 100, values[2] += 100;
    rc = clock_graph_add_snapshot(&g, 1, keys, values, 3, NULL, &err);
  }
  if (rc < 0) goto done;
  rc = clock_graph_add_relation(&g, &c, &m, 50, NULL, &err);
  if (rc < 0) goto done;
  clock_result cr = clock_graph_convert_key(&g, &c, 1000, &out);
  if (cr == CLOCK_ERR_NOMEM) {
    rc = WEFT_ENOMEM;
    goto done;
  }
  rc = (cr == CLOCK_OK && out == 1000 + 50 - 2000 + 3000) ? 0 : 1;
done:
  clock_graph_free(&g);
  return rc;
}

static void test_allocation_failures(void) {
  int completed = 0;
  for (uint64_t n = 1; n < 500 && !completed; n++) {
    base_alloc_fail_after(n);
    int rc = alloc_scenario();
    base_alloc_fail_after(0);
    if (rc == 0) completed = 1;
    else CHECK_EQ_INT(rc, WEFT_ENOMEM);
  }
  CHECK(completed);
  CHECK_EQ_INT(alloc_scenario(), 0);
}

int main(void) {
  RUN_TEST(test_names);
  RUN_TEST(test_converter_against_direct);
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
  RUN_TEST(test_tie_break);
  RUN_TEST(test_cache_across_intervals);
  RUN_TEST(test_cache_random_against_brute_force);
  RUN_TEST(test_overflow);
  RUN_TEST(test_bad_input);
  RUN_TEST(test_trace_time_claim_and_records);
  RUN_TEST(test_incremental_isolated_clocks);
  RUN_TEST(test_long_chain);
  RUN_TEST(test_allocation_failures);
  return CHECK_SUMMARY();
}
