/* clock: weft's global clock graph.
 *
 * Owns every clock seen while loading (nodes, interned by clock_key to dense
 * indexes in creation order), the correspondences between them (ClockSnapshots
 * and manual relations, stored as a pair of directed edges per clock pair whose
 * points are kept sorted by source value), the recorded snapshots (for the
 * clock_snapshot table), the trace-time clock, and the conversion of any
 * clock's timestamp to trace time.
 *
 * Invariants:
 *  - node indexes are dense, never reused, in creation order; keys are stored
 *    exactly as given (use clock_key_make for the standard scope rule).
 *  - a clock whose value goes backwards within one stream is non-monotonic for
 *    the rest of the graph's life.
 *  - placement (a path to trace time for every node) is recomputed lazily,
 *    once per graph version, for all nodes at once; adding points to existing
 *    edges does not change the version (paths depend only on topology).
 *  - conversion never allocates once the graph is resolved.
 * Not thread-safe: conversion updates caches inside the graph.
 *
 * Placement rules. A clock is placed by the cheapest path from it to the
 * trace-time clock TT over these hops (each zero-offset except snapshot hops):
 *   snapshot    u -> v when some snapshot/relation holds both; nearest
 *               neighbour: the point with the largest source value <= ts (the
 *               latest snapshot among equal values; before the first point,
 *               the first point); result = ts - src + dst. Forbidden when u is
 *               non-monotonic, so such a clock is only ever a path's target.
 *   rendezvous  REALTIME@m -> REALTIME@M, M = TT's machine, m != M
 *               (REALTIME reads the same on every machine).
 *   same domain X -> TT when X has TT's clock id (e.g. BOOTTIME@server ->
 *               BOOTTIME@phone = TT).
 *   pin         X -> TT when X or TT is a CLOCK_ID_FILE_PRIVATE clock and X has
 *               no snapshot edge or was declared an anchor.
 * Two different real domains are never equated. Paths are compared by
 * (same-domain + pin hops, rendezvous hops, total hops): a pure snapshot path
 * beats any rendezvous path, which beats any same-domain/pin path; then fewest
 * hops. Tie-break: among equally cheap paths, the conversion of a timestamp
 * takes the one with the smallest total snapshot spacing at that timestamp
 * (in both interpolation modes): each snapshot hop costs the gap between its
 * edge's two points around the timestamp as converted so far, and a hop
 * outside its edge's points counts as unbounded (fewest unbounded hops
 * first, then the smallest sum of gaps). Among equal spacings, and for
 * placement (clock_graph_path, clock_graph_placement), the next hop is the
 * neighbour with the lowest node index (created first), recursively. The
 * choice spends at most CLOCK_TIE_BUDGET edge evaluations per conversion;
 * past that, the lowest-index path. A conversion through such a choice is
 * not cached by clock_converter.
 */
#ifndef WEFT_CLOCK_H
#define WEFT_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/base.h"

/* Builtin clock ids (perfetto.protos.BuiltinClock). */
#define CLOCK_ID_REALTIME 1
#define CLOCK_ID_REALTIME_COARSE 2
#define CLOCK_ID_MONOTONIC 3
#define CLOCK_ID_MONOTONIC_COARSE 4
#define CLOCK_ID_MONOTONIC_RAW 5
#define CLOCK_ID_BOOTTIME 6
#define CLOCK_ID_TSC 9
#define CLOCK_ID_PERF 10
#define CLOCK_ID_TRACE_FILE 11 /* a file's own timeline (JSON, Gecko) */
#define CLOCK_ID_MAX_BUILTIN 63        /* ids <= 63: scoped to the machine */
#define CLOCK_ID_FIRST_SEQUENCE 64     /* 64..127: machine + file + sequence */
#define CLOCK_ID_FIRST_GLOBAL 128      /* >= 128: machine + file */
/* The private per-file timeline of a clockless format (machine + file). */
#define CLOCK_ID_FILE_PRIVATE (1ULL << 40)

#define CLOCK_NODE_NONE UINT32_MAX
/* Stream id for snapshots exempt from monotonicity tracking (relations). */
#define CLOCK_STREAM_NONE UINT32_MAX

typedef struct clock_key {
  uint32_t machine;
  uint32_t file;
  uint32_t sequence;
  uint64_t clock_id;
} clock_key;

/* Applies the scope rule: builtin ids keep only the machine, sequence-scoped
 * ids keep machine+file+sequence, everything else machine+file. */
clock_key clock_key_make(uint32_t machine, uint32_t file, uint32_t sequence,
                         uint64_t clock_id);
bool clock_key_equal(const clock_key *a, const clock_key *b);
static inline bool clock_id_is_builtin(uint64_t id) {
  return id <= CLOCK_ID_MAX_BUILTIN;
}

/* Manifest / clock_snapshot.clock_name names: REALTIME, REALTIME_COARSE,
 * MONOTONIC, MONOTONIC_COARSE, MONOTONIC_RAW, BOOTTIME. clock_name_from_id
 * returns NULL for every other id (as Perfetto's clock_name column does). */
const char *clock_name_from_id(uint64_t clock_id);
/* Exact, case-sensitive; returns false for unknown names. */
bool clock_id_from_name(const char *name, size_t len, uint64_t *clock_id_out);

/* Outcome of a conversion or placement query. */
typedef enum clock_result {
  CLOCK_OK = 0,
  CLOCK_NO_TRACE_TIME,       /* no clock has claimed trace time */
  CLOCK_NO_PATH,             /* stat clock_sync_failure (e.g. custom clock
                                without snapshots, non-monotonic source) */
  CLOCK_UNRELATABLE_DOMAINS, /* a real (builtin) domain that no rule relates
                                to trace time: clock_sync_unrelatable_... */
  CLOCK_OVERFLOW,            /* the result does not fit in int64 */
  CLOCK_BAD_NODE,            /* node index out of range */
  CLOCK_ERR_NOMEM            /* resolving the graph ran out of memory */
} clock_result;
const char *clock_result_name(clock_result r);

/* Which rule placed a clock: the highest-level hop on its path. */
typedef enum clock_level {
  CLOCK_LEVEL_NONE = 0,        /* not placed */
  CLOCK_LEVEL_TRACE_TIME,      /* the clock is trace time itself */
  CLOCK_LEVEL_SNAPSHOTS,       /* snapshot/relation hops only */
  CLOCK_LEVEL_REALTIME,        /* used the REALTIME rendezvous */
  CLOCK_LEVEL_SAME_DOMAIN,     /* used the same-domain assumption */
  CLOCK_LEVEL_PINNED           /* pinned a private clock at zero offset */
} clock_level;
const char *clock_level_name(clock_level l); /* e.g. "REALTIME rendezvous" */

typedef struct clock_graph_limits {
  uint32_t max_clocks;          /* nodes; default and ceiling 1<<20 */
  uint32_t max_snapshot_clocks; /* clocks in one snapshot; default 64, max 1024 */
  uint64_t max_points;          /* directed edge points in total; default 1<<24 */
} clock_graph_limits;

/* How a snapshot hop converts a timestamp between two snapshots of its pair
 * of clocks. NEAREST (Perfetto's rule, the default) uses the point described
 * above. LINEAR interpolates between the two points around ts, p <= ts < q:
 * result = p.dst + (ts - p.src) * (q.dst - p.dst) / (q.src - p.src), within
 * 1 ns of the exact quotient (the rate ratio is kept as a 64-bit binary
 * fraction, the result rounded down). Before the first point, after the
 * last, and on a piece whose rate ratio is outside (1/2, 3/2) (not the same
 * time base drifting) or whose spans do not fit int64, LINEAR falls back to
 * NEAREST. */
typedef enum clock_interpolation {
  CLOCK_INTERP_NEAREST = 0,
  CLOCK_INTERP_LINEAR = 1
} clock_interpolation;

/* floor(x * slope / 2^64): the correction a piece of rate ratio
 * 1 + slope / 2^64 adds to x ns past its start point (one multiply, its high
 * half). */
static inline int64_t clock_slope_adjust(int64_t x, int64_t slope) {
  return (int64_t)(((__int128)x * slope) >> 64);
}

/* ---- internal representation (read through the functions below) ---- */
typedef struct clock_point {
  int64_t src;
  int64_t dst;
  uint32_t snapshot;
} clock_point;

typedef struct clock_edge {
  uint32_t from, to;
  VEC(clock_point) points; /* sorted by (src, snapshot) when `sorted` */
  bool sorted;
  /* Interval cache: for cache_lo <= ts <= cache_hi the result is
   * ts + cache_delta + clock_slope_adjust(ts - cache_base, cache_slope)
   * (cache_slope is 0 on a nearest-neighbour piece). Empty when
   * cache_lo > cache_hi. */
  int64_t cache_lo, cache_hi, cache_delta, cache_base, cache_slope;
} clock_edge;

typedef struct clock_node {
  clock_key key;
  uint32_t hash_next;  /* next node with the same key hash */
  bool non_monotonic;
  bool anchor;
  uint32_t live_edges; /* outgoing edges holding at least one point */
  VEC(uint32_t) edges; /* outgoing edge indexes (edge ^ 1 is the reverse) */
  /* Resolution, valid while graph->resolved_version == graph->version. */
  uint64_t cost;
  uint32_t parent;      /* next node towards trace time */
  uint32_t parent_edge; /* snapshot edge to parent, or CLOCK_NODE_NONE */
  uint32_t component;   /* union-find over snapshot edges */
  uint8_t hop_kind;
  uint8_t level;        /* clock_level */
  uint8_t result;       /* clock_result */
  uint8_t done;
  uint8_t comp_flags;   /* at a component root */
  uint8_t ties;         /* several equally short snapshot hops onward */
} clock_node;

typedef struct clock_snapshot_rec {
  size_t first;
  uint32_t count;
  uint32_t stream;
  bool hidden; /* an alias weft added, not a snapshot of the trace */
} clock_snapshot_rec;

/* A clock-sync marker waiting for, or matched with, its other half. */
typedef struct clock_marker {
  uint64_t id;     /* sync id hash (NAMED) */
  uint32_t node;
  uint8_t kind;    /* clock_marker_kind */
  bool paired;     /* NAMED: already related to its other half */
  int64_t value;   /* node's reading */
  int64_t parent;  /* PARENT: the trace-event clock's reading */
} clock_marker;

typedef struct clock_heap_item {
  uint64_t cost;
  uint32_t node;
} clock_heap_item;

typedef struct clock_graph {
  clock_graph_limits limits;
  VEC(clock_node) nodes;
  VEC(clock_edge) edges;
  base_map node_by_hash;    /* key hash -> first node in its chain */
  base_map edge_by_pair;    /* (a << 32 | b), a < b -> edge a->b */
  base_map stream_last;     /* (node << 32 | stream) -> last value */
  VEC(clock_snapshot_rec) snapshots;
  VEC(clock_key) snap_keys;
  VEC(int64_t) snap_values;
  VEC(uint32_t) snap_nodes;
  uint64_t total_points;
  uint32_t trace_time;      /* node or CLOCK_NODE_NONE */
  uint64_t version;
  uint64_t resolved_version;
  uint64_t point_epoch;     /* bumped by every point added (pieces change) */
  uint8_t interpolation;    /* clock_interpolation */
  VEC(clock_heap_item) heap;
  VEC(clock_marker) markers;
} clock_graph;

/* ---- life cycle ---- */
/* limits may be NULL for defaults; zero fields take their default. */
int clock_graph_init(clock_graph *g, const clock_graph_limits *limits,
                     base_error *err);
void clock_graph_free(clock_graph *g);

/* ---- nodes ---- */
/* Interns key (stored exactly as given). WEFT_ELIMIT past max_clocks. */
int clock_graph_intern(clock_graph *g, const clock_key *key,
                       uint32_t *node_out, base_error *err);
bool clock_graph_find(const clock_graph *g, const clock_key *key,
                      uint32_t *node_out);
static inline size_t clock_graph_node_count(const clock_graph *g) {
  return g->nodes.len;
}
/* NULL if node is out of range. */
const clock_key *clock_graph_node_key(const clock_graph *g, uint32_t node);
bool clock_graph_node_is_monotonic(const clock_graph *g, uint32_t node);
/* Declares node a file's main clock: it may then be pinned to a private
 * trace-time clock (or, if private, to trace time) even when it has snapshot
 * edges. Use for the reference clock of a manifest override and for a file's
 * default clock. */
int clock_graph_set_anchor(clock_graph *g, uint32_t node, base_error *err);

/* ---- snapshots ---- */
/* Records a snapshot of n clocks (n >= 1, at most max_snapshot_clocks, no
 * key twice) and adds its points to both directed edges of every pair.
 * `stream` is the ordering domain the caller vouches for (e.g. the file, or
 * file+sequence): a clock whose value decreases between two snapshots of the
 * same stream becomes non-monotonic; CLOCK_STREAM_NONE exempts the snapshot.
 * Errors: WEFT_EPARSE (duplicate clock, n == 0), WEFT_ELIMIT, WEFT_ENOMEM; on
 * error no point is added (interned nodes may remain). */
int clock_graph_add_snapshot(clock_graph *g, uint32_t stream,
                             const clock_key *keys, const int64_t *values,
                             size_t n, uint32_t *snapshot_id_out,
                             base_error *err);
/* A manual relation: at a common instant `source` reads T when `reference`
 * reads T + offset_ns. Recorded as the 2-clock snapshot {source: 0,
 * reference: offset_ns} on CLOCK_STREAM_NONE. */
int clock_graph_add_relation(clock_graph *g, const clock_key *source,
                             const clock_key *reference, int64_t offset_ns,
                             uint32_t *snapshot_id_out, base_error *err);
/* An alias: `source` reads what `reference` reads. A relation at offset 0
 * that weft states itself (e.g. a text format's timestamps being a builtin
 * clock), not one the trace records: its snapshot is marked hidden. */
int clock_graph_add_alias(clock_graph *g, const clock_key *source,
                          const clock_key *reference, base_error *err);

typedef struct clock_snapshot_view {
  uint32_t id;
  uint32_t stream;
  bool hidden;
  size_t count;
  const clock_key *keys;
  const int64_t *values;
  const uint32_t *nodes;
} clock_snapshot_view;
/* Snapshot ids are dense from 0 in the order they were added. */
static inline size_t clock_graph_snapshot_count(const clock_graph *g) {
  return g->snapshots.len;
}
/* Pointers stay valid until the next add. False if id is out of range. */
bool clock_graph_snapshot_get(const clock_graph *g, uint32_t id,
                              clock_snapshot_view *out);

/* ---- clock-sync markers ----
 * Two traces of one run may each record the instant of a clock sync on their
 * own clock. Markers become snapshots of two clocks (clock_snapshot rows of
 * their non-private clocks) as soon as both halves are known, whatever the
 * order of the files:
 *  - NAMED (Chrome JSON "ph": "c" with args.sync_id; ftrace
 *    "trace_event_clock_sync: name=ID"): the first marker of an id on one
 *    clock and the first on another clock are one instant;
 *  - PARENT (ftrace "trace_event_clock_sync: parent_ts=S"): at the line's
 *    time, the trace-event clock read S; it relates the marker's clock to
 *    every clock declared a trace-event clock (each Chrome JSON file's).
 * At most CLOCK_MAX_MARKERS markers are kept; later ones are ignored. */
#define CLOCK_MAX_MARKERS 4096u
typedef enum clock_marker_kind {
  CLOCK_MARKER_NAMED = 1,
  CLOCK_MARKER_PARENT,
  CLOCK_MARKER_TRACE_EVENT_CLOCK
} clock_marker_kind;

int clock_graph_add_named_marker(clock_graph *g, uint32_t node, const char *id,
                                 size_t id_len, int64_t value, base_error *err);
int clock_graph_add_parent_marker(clock_graph *g, uint32_t node, int64_t value,
                                  int64_t parent_value, base_error *err);
/* Declares node a trace-event clock (what PARENT markers relate to). */
int clock_graph_add_trace_event_clock(clock_graph *g, uint32_t node, base_error *err);

/* ---- trace time ---- */
/* The first claimer wins: returns 1 if key became trace time, 0 if another
 * clock already was, negative WEFT_E* on error. */
int clock_graph_claim_trace_time(clock_graph *g, const clock_key *key,
                                 base_error *err);
/* False if nothing claimed trace time yet. Either output may be NULL. */
bool clock_graph_trace_time(const clock_graph *g, clock_key *key_out,
                            uint32_t *node_out);

/* ---- placement and conversion ---- */
/* Selects the interpolation of snapshot hops (default NEAREST); changing it
 * invalidates every conversion cache. */
void clock_graph_set_interpolation(clock_graph *g, clock_interpolation mode);
static inline clock_interpolation clock_graph_interpolation(const clock_graph *g) {
  return (clock_interpolation)g->interpolation;
}

/* Recomputes placement if the graph changed. Called lazily by the functions
 * below; call it explicitly to get WEFT_ENOMEM as a status. */
int clock_graph_resolve(clock_graph *g, base_error *err);

/* Converts ts of clock `node` to trace time. */
clock_result clock_graph_convert(clock_graph *g, uint32_t node, int64_t ts,
                                 int64_t *out);
/* A conversion cache for one node, for converting many timestamps of few
 * clocks: while the graph's version and point epoch are the recorded ones,
 * every ts in [lo, hi] of clock `node` converts to
 * ts + delta + clock_slope_adjust(ts - base, slope), exactly as
 * clock_graph_convert does (the pieces its path's edges are on compose to
 * one offset and at most one interpolated piece). Zero it to start; it holds
 * no memory. */
typedef struct clock_converter {
  uint64_t version, point_epoch;
  uint32_t node;
  int64_t lo, hi, delta; /* lo > hi: empty */
  int64_t base, slope;   /* slope 0: a plain offset */
} clock_converter;

/* clock_graph_convert through the cache, refilling it on a miss. */
clock_result clock_converter_refill(clock_graph *g, clock_converter *c, uint32_t node,
                                    int64_t ts, int64_t *out);
static inline clock_result clock_converter_convert(clock_graph *g, clock_converter *c,
                                                   uint32_t node, int64_t ts, int64_t *out) {
  /* c->version was recorded right after a resolve: equal, it is resolved */
  /* The fill checked that every ts in [lo, hi] converts within int64 (the
   * map is nondecreasing): wrapping sums give the exact result. */
  if (node == c->node && c->version == g->version && c->point_epoch == g->point_epoch &&
      ts >= c->lo && ts <= c->hi) {
    uint64_t r = (uint64_t)ts + (uint64_t)c->delta;
    if (c->slope) r += (uint64_t)clock_slope_adjust(ts - c->base, c->slope);
    *out = (int64_t)r;
    return CLOCK_OK;
  }
  return clock_converter_refill(g, c, node, ts, out);
}

/* Same for a key; a key never interned is placed as an isolated clock would
 * be (it is not added to the graph). */
clock_result clock_graph_convert_key(clock_graph *g, const clock_key *key,
                                     int64_t ts, int64_t *out);

/* How node is placed: level and number of hops (either may be NULL). */
clock_result clock_graph_placement(clock_graph *g, uint32_t node,
                                   clock_level *level_out,
                                   uint32_t *hops_out);
/* The nodes of node's path, from node to trace time inclusive; writes at most
 * cap of them and the full length to *len_out. */
clock_result clock_graph_path(clock_graph *g, uint32_t node,
                              uint32_t *nodes_out, size_t cap,
                              size_t *len_out);

#endif
