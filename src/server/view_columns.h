/* server: the web view's columnar read (view_index.h): the slices, sched
 * slices and counter samples of a loaded trace taken straight from the
 * stored tables' columns, in bulk, grouped by track and lane as they are
 * read. No SQL, no per-row allocation or string copy: a slice's name is
 * interned once per distinct string of the trace's pool. */
#ifndef WEFT_SERVER_VIEW_COLUMNS_H
#define WEFT_SERVER_VIEW_COLUMNS_H

#include <stddef.h>
#include <stdint.h>

#include "model/context.h"
#include "view_index.h"

/* What the index read with SQL before (its tracks, CPUs and threads). */
typedef struct view_keys {
  const int32_t *vid_of_track; /* track id -> track index, -1 */
  size_t track_cap;
  const int32_t *vid_of_cpu; /* ucpu -> track index, -1 */
  size_t cpu_cap;
  const uint32_t *thread_name; /* utid -> interned label */
  size_t thread_cap;
} view_keys;

/* Reads ix's counter samples, grouped by track, and sizes its slices (the
 * slice table's rows, then the sched table's, of threads that are not
 * idle) and their lanes (view_index_set_lanes), interning their names;
 * keeps in ix->source what view_columns_fill needs. Rows of tracks ix does
 * not have are skipped. 0, or -1 without memory. */
int view_columns_read(view_index *ix, const trace_context *ctx, const view_keys *keys);

/* Writes the slices of the tracks among vids[n] (all when vids is NULL)
 * that have none yet (VIEW_EMPTY) to their lanes, in one pass over the
 * tables holding them. Allocates nothing but its chunk buffers: 0, or -1
 * without memory (the tracks stay VIEW_EMPTY). */
int view_columns_fill(view_index *ix, const uint32_t *vids, size_t n);

/* Called with each slice a fill would write (track vid, its lane `lane`
 * of the track); nonzero stops the stream. */
typedef int (*view_stream_fn)(void *arg, uint32_t vid, uint32_t lane, const view_slice *s);

/* Hands every slice of the tracks marked VIEW_STREAMING + k to
 * visit(arg[k], ...), as view_columns_fill would write it, in the tables'
 * row order (so each lane's slices in the order a fill writes them),
 * writing nothing; part 1 on a thread of its own. 0, or -1 without memory
 * or when visit stopped it. */
int view_columns_stream(view_index *ix, view_stream_fn visit, void *const arg[2]);

void view_source_free(view_source *src);

/* Sets the lanes of the slice and CPU tracks from their (track, lane)
 * buckets: track t's lanes are buckets base[t] to base[t + 1] - 1, bucket
 * k holds slices at[k] to at[k + 1] - 1; max_depth[t] its deepest depth.
 * 0, or -1 without memory. */
int view_index_set_lanes(view_index *ix, const size_t *base, const size_t *at,
                         const uint32_t *max_depth);

/* The lane of a slice at `depth`. */
static inline uint32_t view_lane_key(uint32_t depth) {
  return depth < VIEW_MAX_LANES ? depth : VIEW_MAX_LANES - 1;
}

#endif
