/* track_compressor: Perfetto's compression of interchangeable tracks.
 *
 * Some events name a "cookie" (a TrackDescriptor uuid merged by name with
 * its siblings, an async event's id) inside a set of interchangeable
 * tracks (same parent, same name or merge key). They do not get a track per
 * cookie: a cookie takes the first track of its set that is free — no open
 * slice of any cookie on it — so that slices that never overlap share a
 * row, and a new track is added only when every track of the set is busy.
 *
 * Rules (those of Perfetto's TrackCompressor), per set, tracks in creation
 * order, each holding the last cookie that took it and a nesting count:
 *   - an event of cookie C uses the track holding C if any; otherwise the
 *     first track whose nesting count is 0, which takes C; otherwise a new
 *     track, which takes C;
 *   - a begin then adds one to that track's count; an end subtracts one
 *     (never below 0); an instant is a begin and an end;
 *   - a scoped slice [ts, ts + dur] (no cookie) uses the first scoped track
 *     of its set whose last slice ended by ts, else a new scoped track;
 *     scoped and cookie tracks are never shared.
 * The index of a track in its set is its `track_compressor_idx`.
 *
 * Owns its sets; the track rows are the caller's, recorded in the slots
 * (TRACK_COMPRESSOR_NO_TRACK until the caller creates one). Invariant: a
 * set's slots only grow, so a (set, slot) pair stays valid. */
#ifndef WEFT_MODEL_TRACK_COMPRESSOR_H
#define WEFT_MODEL_TRACK_COMPRESSOR_H

#include "base/base.h"

#define TRACK_COMPRESSOR_NO_TRACK UINT32_MAX

typedef enum track_compressor_event {
  TRACK_COMPRESSOR_BEGIN,
  TRACK_COMPRESSOR_END,
  TRACK_COMPRESSOR_INSTANT,
} track_compressor_event;

typedef struct track_compressor_slot {
  int64_t cookie;
  uint32_t nest;
  uint32_t track; /* the caller's track row, or TRACK_COMPRESSOR_NO_TRACK */
  int scoped;     /* a track of scoped slices: */
  int64_t ts_end; /* the end of its last one */
} track_compressor_slot;

typedef struct track_compressor_set {
  VEC(track_compressor_slot) slots;
} track_compressor_set;

typedef struct track_compressor {
  base_map set_by_key; /* the caller's set key -> index into sets */
  VEC(track_compressor_set) sets;
} track_compressor;

/* The slot an event of `cookie` uses in the set named `set_key` (created
 * when new), its nesting count updated for `ev`. */
int track_compressor_use(track_compressor *c, uint64_t set_key, int64_t cookie,
                         track_compressor_event ev, uint32_t *set, uint32_t *slot);

/* The slot a scoped slice [ts, ts + dur] uses in the set named `set_key`. */
int track_compressor_use_scoped(track_compressor *c, uint64_t set_key, int64_t ts,
                                int64_t dur, uint32_t *set, uint32_t *slot);

/* The track row recorded for (set, slot); the caller may write it. */
uint32_t *track_compressor_track(track_compressor *c, uint32_t set, uint32_t slot);

void track_compressor_free(track_compressor *c);

#endif
