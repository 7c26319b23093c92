/* proto_import: the Perfetto protobuf trace importer (import_proto_ops).
 *
 * tokenize (proto_import.c) walks every TracePacket (inflating
 * compressed_packets one level deep), feeds clock snapshots to the clock
 * graph, applies per-sequence incremental state that must be resolved in
 * packet order (TracePacketDefaults, interned strings, generations) and
 * records one proto_packet_info per pushed packet; the sort payload is the
 * index of that record. parse (proto_import_parse.c) re-decodes the packet
 * and writes process trees, track descriptors and track events to the model.
 * Invariants: every span in `packets` points into f->data or into one of
 * `inflated` (kept alive until destroy); interned strings are keyed by
 * (sequence index, generation, kind, iid). */
#ifndef WEFT_PROTO_IMPORT_H
#define WEFT_PROTO_IMPORT_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

enum proto_intern_kind {
  PROTO_INTERN_EVENT_CATEGORY = 1,
  PROTO_INTERN_EVENT_NAME = 2,
  PROTO_INTERN_DEBUG_NAME = 3
};

typedef struct proto_packet_info {
  proto_span data;         /* the TracePacket's bytes */
  proto_span defaults;     /* the sequence's TracePacketDefaults, if any */
  uint32_t seq;            /* index into proto_import_state.seqs */
  uint32_t generation;     /* incremental-state generation of the sequence */
} proto_packet_info;

typedef struct proto_seq {
  uint32_t id;             /* trusted_packet_sequence_id */
  uint32_t generation;
  proto_span defaults;
  uint64_t default_clock;  /* TracePacketDefaults.timestamp_clock_id or 0 */
  int64_t last_ts;
  uint32_t last_clock;     /* clock node of last_ts */
  int has_last;
  /* parse-side: the thread of a legacy ThreadDescriptor on this sequence */
  int64_t pid, tid;
  int has_thread;
} proto_seq;

/* What a track uuid resolved to. */
typedef struct proto_track_ref {
  uint32_t track;
  int is_counter;
  int64_t utid, upid;  /* the thread / process the track belongs to, or -1 */
  int is_incremental;  /* counter values are deltas, summed per sequence */
  int64_t multiplier;  /* counter unit_multiplier, 0 if unset */
} proto_track_ref;

typedef struct proto_import_state {
  VEC(base_buf) inflated;
  uint64_t inflated_bytes; /* sum of inflated lens (see proto_inflate_cap) */
  VEC(proto_packet_info) packets;
  VEC(proto_seq) seqs;
  base_map seq_by_id;      /* sequence id -> index into seqs */
  base_map interned;       /* proto_intern_key -> string_id */
  base_map tracks;         /* uuid -> index into track_refs */
  VEC(proto_track_ref) track_refs;
  base_map counter_sums;   /* proto_intern_key(seq, gen, 0, uuid) -> double bits */
  int claimed_clock;
  int saw_timestamp;
} proto_import_state;

uint64_t proto_intern_key(uint32_t seq, uint32_t generation, int kind,
                          uint64_t iid);
/* Looks up an interned string; STRING_NULL if unknown. */
string_id proto_interned(const proto_import_state *st, uint32_t seq,
                         uint32_t generation, int kind, uint64_t iid);
int proto_import_parse(import_file *f, const sort_event *event,
                       base_error *err);

#endif
