/* server: the web view's copy of the loaded trace (view.h), made once per
 * trace and kept until a re-merge replaces the trace: every slice, sched
 * slice and counter sample, grouped by track and sorted by ts, with their
 * names interned, and the machine/process/thread labels of the groups. */
#ifndef WEFT_SERVER_VIEW_INDEX_H
#define WEFT_SERVER_VIEW_INDEX_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "weft/weft.h"

/* Depths from VIEW_MAX_LANES - 1 on share the last lane. */
#define VIEW_MAX_LANES 256u

enum view_track_kind { VIEW_TRACK_SLICES, VIEW_TRACK_CPU, VIEW_TRACK_COUNTER };

/* A slice, or a sched slice (name: its thread's label; key: its utid). */
typedef struct view_slice {
  int64_t ts;
  int64_t dur;
  uint32_t id;
  uint32_t name;
  uint32_t key;
  uint32_t depth;
} view_slice;

typedef struct view_sample {
  int64_t ts;
  double value;
} view_sample;

typedef struct view_track {
  int kind;          /* enum view_track_kind */
  int64_t source_id; /* track id, or the ucpu of a CPU track */
  int64_t machine;
  int64_t upid, utid; /* -1: none */
  int64_t cpu;        /* a CPU track's cpu number */
  uint32_t name;      /* interned */
  size_t first, count; /* into slices or samples */
  int64_t max_dur;
  uint32_t max_depth;
  uint32_t lane_first, lane_count; /* slices, CPU: into lanes */
  size_t node;                     /* counter: its pyramid in ranges */
  int ready; /* sorted, max_dur and pyramids made (view_lod_ready) */
  int filled; /* enum view_fill */
  int staged; /* its fill set max_dur, its lanes' order and first pyramid
               * levels as it wrote them (view_lod_stage) */
} view_track;

/* Whether a track's slices are in ix->slices (view_columns_fill; two
 * threads fill tracks VIEW_FILLING and VIEW_FILLING + 1; a summary read
 * straight from the columns marks its tracks VIEW_STREAMING and, on a
 * second thread, VIEW_STREAMING + 1). */
enum view_fill { VIEW_FILLED = 0, VIEW_EMPTY, VIEW_FILLING, VIEW_STREAMING = VIEW_FILLING + 2 };

/* Where the slices of tracks not filled yet are read from (view_columns.c). */
typedef struct view_source view_source;

/* A lane of a slice or CPU track: its slices, by ts, and its pyramid in
 * nodes (view_lod.h; none when count <= VIEW_LOD_MIN). */
typedef struct view_lane_ix {
  size_t first, count; /* into slices */
  size_t node;
  int unsorted; /* staged: a slice was written before one it follows */
} view_lane_ix;

/* A pyramid node over slices: their latest end and longest duration. */
typedef struct view_node {
  int64_t end, dur;
} view_node;

/* A pyramid node over counter samples: their lowest and highest value. */
typedef struct view_range {
  double lo, hi;
} view_range;

/* A group label: a machine, process or thread. */
typedef struct view_label {
  int64_t id;
  int64_t parent; /* machine of a process, process of a thread; -1 */
  int64_t machine;
  uint32_t text;  /* interned */
} view_label;

typedef struct view_names {
  char **text;
  uint32_t count, cap;
  uint32_t *slots; /* open addressing: index + 1, 0 empty */
  uint32_t slot_mask;
} view_names;

typedef struct view_index {
  view_track *tracks;
  size_t track_count;
  view_slice *slices;
  size_t slice_count;
  view_sample *samples;
  size_t sample_count;
  view_lane_ix *lanes;
  size_t lane_count;
  view_node *nodes;   /* the slice lanes' pyramids */
  view_range *ranges; /* the counter tracks' pyramids */
  int exact;          /* summaries read every slice (tests compare) */
  view_label *machines, *processes, *threads;
  size_t machine_count, process_count, thread_count;
  view_names names;
  view_source *source; /* NULL: every track is filled */
  size_t fill_split;   /* fills of this many slices or more use two threads */
  int64_t start, end; /* trace bounds */
  /* Per name: the index in the reply being written (view_summary.c). */
  uint32_t *reply_stamp, *reply_name;
  uint32_t stamp;
  /* A summary of this many unwritten slices or more reads them straight
   * from the columns, and their fill follows in the background. */
  size_t stream_min;
  pthread_t filler; /* the background fill, while `filling` */
  int filling;
  uint32_t *fill_vids;
  size_t fill_count;
} view_index;

/* Copies the trace in `w` into ix: its slices, sched slices and counter
 * samples from the stored tables' columns (view_columns.h), the rest with
 * SQL; places its levels of detail, which view_lod_ready makes per track.
 * 0, or -1 with a message in err. */
int view_index_build(view_index *ix, weft *w, char *err, size_t err_cap);
/* The same, reading the slices, sched slices and samples too with SQL
 * when with_sql is set (the tests compare both). */
int view_index_build_with(view_index *ix, weft *w, int with_sql, char *err, size_t err_cap);
void view_index_free(view_index *ix);
/* Readies tracks vids[n] (view_index_ready) on a thread of its own; takes
 * vids (malloc'd). Nothing else may read or change ix until
 * view_index_settle. Without a thread, leaves them as they are. */
void view_index_ready_later(view_index *ix, uint32_t *vids, size_t n);
/* Waits for the background fill, if any (view_index_free does too). */
void view_index_settle(view_index *ix);
/* Readies tracks vids[n] (all when vids is NULL; vids past the last track
 * are skipped) for summaries: their slices written (view_columns_fill) and
 * their levels of detail made (view_lod_ready). 0, or -1 without memory. */
int view_index_ready(view_index *ix, const uint32_t *vids, size_t n);
/* An array of `bytes`, on huge pages when it is big and the kernel offers
 * them (fewer page faults in the tens of MiB a big trace's index fills);
 * freed with free(). */
void *view_big_alloc(size_t bytes);
/* The interned string `s` (len bytes): its index, or UINT32_MAX without
 * memory. */
uint32_t view_names_intern(view_names *n, const char *s, size_t len);

#endif
