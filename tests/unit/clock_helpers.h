/* Shared by the clock graph unit tests: keys, graphs built step by step
 * with each step checked, conversions checked against the cached
 * converter, and the worked examples of clock-synchronization.md. Each
 * test file has its own copy (static). */
#ifndef WEFT_TESTS_UNIT_CLOCK_HELPERS_H
#define WEFT_TESTS_UNIT_CLOCK_HELPERS_H

#include "check.h"
#include "clock/clock.h"

static inline clock_key K(uint32_t machine, uint64_t id) {
  return clock_key_make(machine, 0, 0, id);
}

static inline clock_key PRIV(uint32_t machine, uint32_t file) {
  return clock_key_make(machine, file, 0, CLOCK_ID_FILE_PRIVATE);
}

/* Every conversion of a test also goes through this cache (one graph at a
 * time: graph_init resets it), which must agree with the direct one. */
static clock_converter test_converter;

static inline void graph_init(clock_graph *g) {
  test_converter = (clock_converter){0};
  base_error err;
  CHECK_EQ_INT(clock_graph_init(g, NULL, &err), WEFT_OK);
}

static inline void snap2(clock_graph *g, uint32_t stream, clock_key a, int64_t va,
                  clock_key b, int64_t vb) {
  clock_key keys[2] = {a, b};
  int64_t values[2] = {va, vb};
  base_error err;
  CHECK_EQ_INT(clock_graph_add_snapshot(g, stream, keys, values, 2, NULL, &err),
               WEFT_OK);
}

static inline void snap1(clock_graph *g, uint32_t stream, clock_key a, int64_t va) {
  base_error err;
  CHECK_EQ_INT(clock_graph_add_snapshot(g, stream, &a, &va, 1, NULL, &err),
               WEFT_OK);
}

static inline void relate(clock_graph *g, clock_key src, clock_key ref, int64_t off) {
  base_error err;
  CHECK_EQ_INT(clock_graph_add_relation(g, &src, &ref, off, NULL, &err), WEFT_OK);
}

static inline void claim(clock_graph *g, clock_key k) {
  base_error err;
  CHECK_EQ_INT(clock_graph_claim_trace_time(g, &k, &err), 1);
}

static inline uint32_t node_of(clock_graph *g, clock_key k) {
  uint32_t n = CLOCK_NODE_NONE;
  base_error err;
  CHECK_EQ_INT(clock_graph_intern(g, &k, &n, &err), WEFT_OK);
  return n;
}

/* Converts and checks success and the value. */
/* clock_graph_convert_key, checked against the cached conversion when the
 * key is a node of the graph. */
static inline clock_result conv(clock_graph *g, clock_key k, int64_t ts, int64_t *out) {
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

static inline clock_level level_of(clock_graph *g, clock_key k) {
  clock_level level = CLOCK_LEVEL_NONE;
  clock_graph_placement(g, node_of(g, k), &level, NULL);
  return level;
}

static inline uint32_t hops_of(clock_graph *g, clock_key k) {
  uint32_t hops = 0;
  clock_graph_placement(g, node_of(g, k), NULL, &hops);
  return hops;
}

/* MONOTONIC / BOOTTIME table of clock-synchronization.md. */
static inline void build_example1(clock_graph *g) {
  graph_init(g);
  claim(g, K(0, CLOCK_ID_BOOTTIME));
  static const int64_t mono[] = {1000, 1100, 1200, 1900, 2000, 2100};
  static const int64_t boot[] = {2000, 2100, 2200, 2900, 3500, 3600};
  for (int i = 0; i < 6; i++)
    snap2(g, 1, K(0, CLOCK_ID_MONOTONIC), mono[i], K(0, CLOCK_ID_BOOTTIME),
          boot[i]);
}

/* CUSTOM / MONOTONIC / BOOTTIME table of clock-synchronization.md. */
static inline clock_key example2_custom(void) { return clock_key_make(0, 1, 7, 64); }
static inline void build_example2(clock_graph *g) {
  graph_init(g);
  claim(g, K(0, CLOCK_ID_BOOTTIME));
  clock_key custom = example2_custom(), mono = K(0, CLOCK_ID_MONOTONIC),
            boot = K(0, CLOCK_ID_BOOTTIME);
  snap2(g, 1, custom, 1000, mono, 1100);
  snap2(g, 1, mono, 1200, boot, 5200);
  snap2(g, 1, custom, 3000, mono, 3200);
  snap2(g, 1, mono, 4000, boot, 9000);
}

#endif
