/* proto_profile internals shared by proto_profile.c (callstacks, heap
 * dumps) and proto_profile_samples.c (perf and streaming samples,
 * deobfuscation mappings). */
#ifndef WEFT_PROTO_PROFILE_INTERNAL_H
#define WEFT_PROTO_PROFILE_INTERNAL_H

#include "import/proto/proto_profile.h"

struct proto_packet_info;

/* Kinds of cached rows (kept apart from the interned kinds). */
enum {
  PP_ROW_MAPPING = 100,
  PP_ROW_FRAME = 101,
  PP_ROW_CALLSTACK = 102, /* leaf callsite + 1; 0 for an empty callstack */
  PP_ROW_STRING = 110,    /* + interned kind; a ProfilePacket's strings: + 0 */
};

/* Where rows are cached: a sequence's InternedData generation, or a
 * ProfilePacket's own tables (packet = 1, generation has bit 31 set). */
typedef struct pp_scope {
  uint32_t seq, generation;
  int packet;
  uint32_t owner; /* the process (upid + 1) whose memory the rows are, 0: none */
} pp_scope;

/* What a lookup may use: the sequence's interned data and, for a
 * ProfilePacket, its tables first. */
typedef struct pp_resolver {
  uint32_t seq, generation;
  pp_scope packet; /* .packet = 0: none */
  /* upid + 1 of the process the samples are of, 0: unknown. The sequence's
   * interned mappings, frames and callstacks then resolve per process: a
   * mapping with an address range is that process's own row (as Perfetto
   * makes a user memory mapping per process), so its frames and callsites
   * are too. A ProfilePacket's own tables are shared by its processes. */
  uint32_t owner;
} pp_resolver;

typedef struct pp_heap_totals {
  int64_t alloc_count, alloc_size, free_count, free_size;
} pp_heap_totals;

/* A PerfSample sampling stream (a sequence's cpu): its session, and its
 * counter tracks (timebase first, then the followers) at
 * perf_tracks[first .. first + count). */
typedef struct pp_perf_stream {
  int64_t session;
  size_t first, count;
} pp_perf_stream;

struct proto_profile_state {
  base_map rows;         /* proto_intern_key(scope, kind, iid) -> value */
  base_map epochs;       /* seq + 1 -> ProfilePacket table epoch */
  base_map totals_index; /* (seq, upid, callsite) -> index into totals */
  VEC(pp_heap_totals) totals;
  base_map seen;         /* (seq, upid, source callstack, heap, callsite) -> 1 */
  base_map corrections_index; /* (seq, source callstack) -> index into corrections */
  VEC(pp_heap_totals) corrections;
  base_map sessions;     /* seq + 1 -> perf session id + 1 */
  base_map perf_streams; /* (seq + 1) << 32 | cpu -> index into streams */
  VEC(pp_perf_stream) streams;
  VEC(uint32_t) perf_tracks;
  base_map ss_sessions;  /* seq + 1 -> StackSample session id */
  int64_t ss_inline_mapping; /* the "stack_sample_inline" mapping row + 1, or 0 */
  /* StreamingProfilePacket: the running time per sequence */
};

proto_profile_state *pp_state(import_file *f);
pp_resolver pp_resolver_of(const struct proto_packet_info *info);
#define PP_UNKNOWN_CALLSTACK (-2)
/* The leaf callsite of callstack `iid`: -1 if it is empty, -2
 * (PP_UNKNOWN_CALLSTACK, counted) if no table holds it. */
int pp_callstack(import_file *f, const pp_resolver *r, uint64_t iid, int64_t *leaf);
/* pp_callstack without counting a missing callstack. */
int pp_callstack_find(import_file *f, const pp_resolver *r, uint64_t iid, int64_t *leaf);

/* The sampling stream of a PerfSample of this sequence and cpu, made on
 * first use (proto_perf_counters.c). */
int pp_perf_stream_of(import_file *f, const struct proto_packet_info *info, uint32_t cpu,
                      pp_perf_stream *out);
int pp_perf_sample(import_file *f, const struct proto_packet_info *info, int64_t ts,
                   proto_span msg);
int pp_streaming_profile(import_file *f, const struct proto_packet_info *info, int64_t ts,
                         proto_span msg);
int pp_deobfuscation(import_file *f, proto_span msg);
int pp_smaps(import_file *f, const struct proto_packet_info *info, int64_t ts, proto_span msg);
/* proto_stack_sample.c */
int pp_stack_sample(import_file *f, const struct proto_packet_info *info, int64_t ts,
                    proto_span msg);

/* The elements of a repeated varint field, packed or not, in order. */
typedef struct pp_varints {
  proto_reader rd;
  uint32_t number;
  proto_packed_iter packed;
  int in_packed;
} pp_varints;
void pp_varints_init(pp_varints *it, proto_span msg, uint32_t number);
/* 1 with *out, 0 at the end. */
int pp_varints_next(pp_varints *it, uint64_t *out);

#endif
