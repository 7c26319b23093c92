/* server: the web view's levels of detail (view_index.h), made once per
 * index so that a summary costs what its pixels cost, not what its
 * tracks hold.
 *
 * Each lane (a depth of a slice or CPU track) keeps its slices together,
 * by ts; a lane of more than VIEW_LOD_MIN slices has a pyramid of
 * 16-slice blocks: level 0 holds, per block, the latest end and the
 * longest duration of its slices, each level above the same of 16 nodes
 * of the one below, up to a level of at most 16 nodes. A counter track of
 * more than VIEW_LOD_MIN samples has the same pyramid of the lowest and
 * highest value. About one node per 15 items: a 16-byte node per 240
 * bytes of slices. view_summary.c uses them to skip, in one step, a run of
 * slices none of which can change what a lane shows, and to take a
 * pixel's lowest and highest counter value without reading its samples. */
#ifndef WEFT_SERVER_VIEW_LOD_H
#define WEFT_SERVER_VIEW_LOD_H

#include <stddef.h>
#include <stdint.h>

#include "view_index.h"

#define VIEW_LOD_MIN 64u
#define VIEW_LOD_FAN 16u
#define VIEW_LOD_MAX_LEVELS 16u

/* Where the levels of a pyramid over n items start (in nodes from its
 * first) and how many nodes each has. */
typedef struct view_lod_layout {
  uint32_t levels;
  size_t at[VIEW_LOD_MAX_LEVELS];
  size_t count[VIEW_LOD_MAX_LEVELS];
  size_t total;
} view_lod_layout;

void view_lod_layout_of(size_t n, view_lod_layout *out);

/* The time a slice covers to, as the summary counts it: ts + dur, or
 * ts + 1 for an instant (saturating). */
static inline int64_t view_slice_end(const view_slice *s) {
  int64_t e;
  if (__builtin_add_overflow(s->ts, s->dur > 0 ? s->dur : 1, &e)) e = INT64_MAX;
  return e;
}

/* Before a fill writes track t's slices: its longest duration 0, its
 * lanes in order and their pyramids' first levels empty (t->staged). */
void view_lod_stage_begin(view_index *ix, view_track *t);

/* As a fill writes slice `slot` of a lane of staged track t (each lane's
 * slots in order): keeps t's longest duration, whether the lane is still
 * by ts then depth, and the lane's first pyramid level up to date, so
 * that view_lod_ready reads the slices again only for a lane out of
 * order. */
static inline void view_lod_stage(view_index *ix, view_track *t, view_lane_ix *lane,
                                  size_t slot) {
  const view_slice *s = &ix->slices[slot];
  if (s->dur > t->max_dur) t->max_dur = s->dur;
  if (slot > lane->first) {
    const view_slice *prev = s - 1;
    if (s->ts < prev->ts || (s->ts == prev->ts && s->depth < prev->depth)) lane->unsorted = 1;
  }
  if (lane->count <= VIEW_LOD_MIN) return;
  view_node *n = &ix->nodes[lane->node + (slot - lane->first) / VIEW_LOD_FAN];
  int64_t end = view_slice_end(s);
  if (end > n->end) n->end = end;
  if (s->dur > n->dur) n->dur = s->dur;
}

/* Sorts each slice and CPU track into lanes (by depth, then ts) and sets
 * the tracks' lanes, longest durations and deepest depths; builds the
 * pyramids (view_lod_plan, then view_lod_ready of every track). 0, or -1
 * without memory. */
int view_lod_build(view_index *ix);

/* For an index whose lanes are made (ix->lanes, each track's lanes and
 * deepest depth): places each lane's and counter track's pyramid and
 * allocates their nodes, to be filled track by track by view_lod_ready.
 * 0, or -1 without memory. */
int view_lod_plan(view_index *ix);

/* Readies track t for summaries, once (t->ready): sorts its lanes by ts
 * then depth (a counter's samples by ts) where they are not, sets its
 * longest duration and builds its pyramids. Allocates nothing. */
void view_lod_ready(view_index *ix, view_track *t);

/* The first slice s[k], k >= i, of a lane of n slices whose end is after
 * `after` or whose duration is over `longer`; n when none. */
size_t view_lod_find(const view_slice *s, size_t n, const view_node *nodes, size_t i,
                     int64_t after, int64_t longer);

/* The lowest and highest value of samples [a, b) of a counter track of n
 * samples (values not finite count as 0). */
void view_lod_range(const view_sample *s, size_t n, const view_range *nodes, size_t a,
                    size_t b, double *lo, double *hi);

#endif
