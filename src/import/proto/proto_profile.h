/* proto_profile: profiles with callstacks — ProfilePacket (heapprofd heap
 * dumps), PerfSample, StreamingProfilePacket and DeobfuscationMapping — and
 * the callstacks of track events (proto_track_callstack.c).
 *
 * Callstacks come from the sequence's InternedData (mappings, frames,
 * callstacks, function_names, build_ids, mapping_paths; kept whole at
 * tokenize, proto_import.c) or, for a ProfilePacket, from its own tables
 * first (strings, mappings, frames, callstacks), which hold until the
 * packet that is not `continued`. Rows are made on first use and written
 * through model/stack_profile.h.
 *
 * Heap dumps are at the packet's time (Perfetto converts the dump's own
 * CLOCK_MONOTONIC_COARSE timestamp at parse time, which weft's importers
 * cannot: see the report of issue 34); each sample's totals are
 * cumulative per (sequence, process, callsite), and a row is written for
 * what changed: allocations (count, size >= 0) and frees (negated; none on
 * ART's heap "com.android.art"). A callstack id first seen with a callsite
 * in (sequence, process, heap) counts on top of the callsite's totals so
 * far. A total that shrinks is counted in heapprofd_malformed_packet. A dump at
 * max (self_max) has size self_max and count alloc_count.
 *
 * Owns the parse-side row cache and heap totals. */
#ifndef WEFT_PROTO_PROFILE_H
#define WEFT_PROTO_PROFILE_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_PROFILE_PACKET 37
#define PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING 64
#define PROTO_TRACE_PACKET_PERF_SAMPLE 66
#define PROTO_TRACE_PACKET_STACK_SAMPLE 135
#define PROTO_TRACE_PACKET_SMAPS_PACKET 68

struct proto_packet_info;
typedef struct proto_profile_state proto_profile_state;

/* The callstack a TrackEvent carries: inline (TrackEvent.Callstack) or
 * interned (callstack_iid into the sequence's InternedData.callstacks),
 * with an optional weight. */
typedef struct proto_event_callstack {
  proto_span inline_msg;
  uint64_t iid;
  double weight;
  int has_inline, has_iid, has_weight;
} proto_event_callstack;

/* Reads TrackEvent field `fl` into cs; 1 if it was a callstack field. */
int proto_event_callstack_field(const proto_field *fl, proto_event_callstack *cs);
/* Records the event's callstack, if any, for `slice` on `track` (at_end:
 * the event ended the slice). An interned callstack that is missing counts
 * interned_data_tokenizer_errors, an empty one stackprofile_empty_callstack;
 * both also count track_event_parser_errors. An empty inline one is
 * ignored. An interned callstack resolves in the memory of the process of
 * the event's track (its thread's, or its own; none for a global track). */
int proto_event_callstack_apply(import_file *f, const struct proto_packet_info *info,
                                const proto_event_callstack *cs, uint32_t slice,
                                uint32_t track, int at_end);

/* The stack_profile_mapping row of the sequence's interned mapping `iid`
 * (made on first use: a row of its own when it has an address range and
 * the sequence a thread, as Perfetto makes a process's memory mappings,
 * else interned by its fields); -1
 * when unknown (counted in stackprofile_invalid_mapping_id). */
int proto_profile_mapping_row(import_file *f, const struct proto_packet_info *info, uint64_t iid,
                              int64_t *row);

int proto_profile_wants_field(uint32_t number);
/* One such field of a packet at trace time ts. */
int proto_profile_parse(import_file *f, const struct proto_packet_info *info, int64_t ts,
                        const proto_field *field);
/* At end of file: applies the deobfuscation mappings to the frames. */
int proto_profile_end(import_file *f);
void proto_profile_free(proto_profile_state *s);

#endif
