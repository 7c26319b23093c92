/* Private helpers shared by the clock module's .c files. */
#ifndef WEFT_CLOCK_INTERNAL_H
#define WEFT_CLOCK_INTERNAL_H

#include "clock/clock.h"

/* Hop kinds, ordered like the clock_level they imply. */
enum {
  CLOCK_HOP_NONE = 0,
  CLOCK_HOP_SNAPSHOT,
  CLOCK_HOP_RENDEZVOUS,
  CLOCK_HOP_SAME_DOMAIN,
  CLOCK_HOP_PIN
};

/* Path cost packs (assumption hops, rendezvous hops, hops) as 21-bit fields;
 * max_clocks <= 1<<20 keeps every field below 1<<21. */
#define CLOCK_COST_INF UINT64_MAX
#define CLOCK_COST_HOP 1ULL
#define CLOCK_COST_RENDEZVOUS ((1ULL << 21) + 1)
#define CLOCK_COST_ASSUMED ((1ULL << 42) + 1)
#define CLOCK_COST_HOPS(c) ((uint32_t)((c) & ((1ULL << 21) - 1)))
#define CLOCK_MAX_CLOCKS_CEILING (1u << 20)

/* Component flags (valid at a union-find root). */
#define CLOCK_COMP_BUILTIN 1
#define CLOCK_COMP_NONMONO 2
#define CLOCK_COMP_ASSUMED 4 /* a same-domain assumption placed this group */

static inline bool clock_key_is_private(const clock_key *k) {
  return k->clock_id == CLOCK_ID_FILE_PRIVATE;
}

/* Marks the topology as changed: placement must be recomputed. */
static inline void clock_graph_touch(clock_graph *g) { g->version++; }

/* True if key is the REALTIME clock of the trace-time machine. */
bool clock_graph_is_rendezvous_hub(const clock_graph *g, const clock_key *key);

/* Fills the resolution fields of `out` (an isolated clock with `key`) from the
 * current resolution; the graph must be resolved. */
void clock_graph_place_isolated(const clock_graph *g, const clock_key *key,
                                clock_node *out);

/* ---- clock_convert.c ---- */
void clock_edge_sort(clock_edge *e);
/* Index of the first point of the sorted edge with src > t (len if none). */
size_t clock_edge_upper_bound(const clock_edge *e, int64_t t);
/* One conversion step of t over edge ed (its cache, else its pieces). */
clock_result clock_edge_step(const clock_graph *g, clock_edge *ed, int64_t *t);

/* ---- clock_ties.c: equally short paths ---- */
/* Edge evaluations one conversion may spend choosing among equally short
 * paths; past it, the remaining choices are the default parents. */
#define CLOCK_TIE_BUDGET 64u
/* Marks the placed nodes with more than one equally short snapshot hop
 * towards trace time (clock_node.ties). */
void clock_graph_mark_ties(clock_graph *g);
/* At tied node u, for ts t: the next node and edge of the path with the
 * smallest total snapshot spacing at t (see clock.h). */
void clock_tie_choose(clock_graph *g, uint32_t u, int64_t t, uint32_t *budget,
                      uint32_t *next, uint32_t *edge);

#endif
