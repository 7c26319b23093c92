/* proto_tracks: the track-event track model of one Perfetto proto file.
 *
 * TrackDescriptors are reserved in file order while tokenizing: a uuid's
 * later descriptors may only fill in a missing name (or rename a track that
 * opted out of sibling merging); a descriptor that changes the track's
 * identity (parent, pid/tid, counter-ness) is counted and ignored. At parse
 * time (trace-time order) a reservation is resolved once to its scope: a
 * thread (a second uuid claiming a live tid starts a new thread), a process
 * (likewise a new process on pid reuse), its parent's scope, or global. A
 * track row is interned on first use — by an event or as a parent — with
 * Perfetto's type, dimension args and source args (source, trace_id,
 * is_root_in_scope, has_first_packet_on_sequence, child_ordering,
 * sibling_order_rank, description); an unnamed non-root track takes the
 * name of its first event. An event on an unknown uuid reserves a global
 * track for it.
 *
 * Invariants: reservations are keyed by (machine, uuid); parent chains are
 * walked at most PROTO_TRACKS_MAX_DEPTH deep, loops and missing parents make
 * the track unresolvable (counted; the caller drops the event); indices,
 * never pointers, are kept across calls that can grow `resv`. */
#ifndef WEFT_PROTO_TRACKS_H
#define WEFT_PROTO_TRACKS_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"
#include "import/proto/proto_legacy_async.h"
#include "model/track_compressor.h"

#define PROTO_TRACKS_MAX_DEPTH 100

enum proto_track_scope { PROTO_SCOPE_GLOBAL, PROTO_SCOPE_THREAD, PROTO_SCOPE_PROCESS };
/* Sibling merge behaviour; the values are the merge_key_type dimension. */
enum proto_track_merge { PROTO_MERGE_BY_NAME = 0, PROTO_MERGE_BY_KEY = 1, PROTO_MERGE_NONE = 2 };

typedef struct proto_track_resv {
  uint64_t uuid, parent_uuid;
  uint32_t machine;
  int64_t pid, tid;
  uint8_t has_pid, has_tid, is_counter, is_incremental, is_state, use_separate;
  uint8_t merge, ordering, has_rank;
  int64_t rank, multiplier;
  string_id name, description, unit, merge_key, builtin_type, category;
  string_id y_axis_key; /* CounterDescriptor.y_axis_share_key */
  string_id first_event_name; /* names an unnamed track: its first event's */
  /* parse-time resolution */
  uint8_t resolved, is_root, scope, has_track;
  int64_t utid, upid;
  uint32_t track;
} proto_track_resv;

/* What an event's track resolved to. */
typedef struct proto_track_ref {
  uint64_t uuid;       /* the descriptor's (0: the Default Track) */
  uint32_t track;
  int is_counter;
  int64_t utid, upid;  /* the thread / process the track belongs to, or -1 */
  int is_incremental;  /* counter values are deltas, summed per sequence */
  int64_t multiplier;  /* counter unit_multiplier, 0 if unset */
  int is_state;        /* a state track (TrackEvent TYPE_STATE values) */
} proto_track_ref;

/* A (machine, uuid) found in by_key: its index never changes. */
typedef struct proto_tracks_memo {
  uint64_t uuid;
  uint32_t machine, used;
  int64_t index;
} proto_tracks_memo;

#define PROTO_TRACKS_MEMO 64 /* entries, a power of two */

typedef struct proto_tracks {
  base_map by_key;           /* hash(machine, uuid, probe) -> index into resv */
  proto_tracks_memo memo[PROTO_TRACKS_MEMO]; /* recent lookups (zeroed: empty) */
  VEC(proto_track_resv) resv;
  base_map first_packet_seqs; /* trusted sequence id -> 1 */
  base_map claimed_threads;  /* utid -> index of the reservation owning it */
  base_map claimed_processes; /* upid -> index of the reservation owning it */
  track_compressor merged;   /* rows of tracks merged with their siblings */
  proto_async_state async;   /* legacy async events' tracks */
  /* the root descriptor (uuid 0) asks for processes / threads ordered by
   * their sibling_order_rank: only then is a rank their sort index hint */
  uint8_t process_ranked, thread_ranked;
  uint8_t has_incremental; /* an incremental counter track was reserved */
} proto_tracks;

/* At tokenize: 1 with its unit multiplier (0 if unset) when the track
 * reserved for (machine, uuid) is an incremental counter, else 0. */
int proto_tracks_incremental_counter(proto_tracks *t, uint32_t machine, uint64_t uuid,
                                     int64_t *multiplier);


/* ---- tokenize (file order) ---- */
int proto_tracks_reserve(import_file *f, proto_tracks *t, uint32_t machine,
                         proto_span desc);
/* A packet with first_packet_on_sequence on this trusted sequence id. */
int proto_tracks_first_packet(proto_tracks *t, uint32_t seq_id);

/* ---- parse (trace-time order) ---- */
/* The reservation of (machine, uuid), or NULL. */
const proto_track_resv *proto_tracks_find(const proto_tracks *t, uint32_t machine,
                                          uint64_t uuid);
/* Resolves the scope of uuid (creating threads/processes) without interning
 * a track; ref->track is unset. Returns WEFT_OK, 1 when the uuid cannot be
 * resolved (unknown or bad hierarchy; counted), or a WEFT_E* error. */
int proto_tracks_resolve(import_file *f, proto_tracks *t, uint32_t machine,
                         uint64_t uuid, proto_track_ref *ref);
/* Interns the track of uuid (0 = the trace's Default Track). event_name
 * names an unnamed non-root track; seq_id is the trusted sequence id of the
 * packet using it, or -1. A track merged with its siblings (same parent and
 * name or merge key, sibling_merge_behavior not NONE) is one row of its
 * set's track_compressor, chosen by `ev` (what the event does there) with
 * the uuid as cookie. Same returns as proto_tracks_resolve. */
int proto_tracks_intern(import_file *f, proto_tracks *t, uint32_t machine,
                        uint64_t uuid, string_id event_name, int64_t seq_id,
                        track_compressor_event ev, proto_track_ref *ref);
void proto_tracks_free(proto_tracks *t);

#endif
