/* proto_import: the Perfetto protobuf trace importer (import_proto_ops).
 *
 * tokenize (proto_import.c) walks every TracePacket (inflating
 * compressed_packets one level deep), feeds clock snapshots to the clock
 * graph, applies per-sequence incremental state that must be resolved in
 * packet order (TracePacketDefaults, interned strings, generations) and
 * pushes each packet with a proto_ref payload (its bytes and context; a
 * proto_packet_info side record only where no reference fits). parse (proto_import_parse.c) re-decodes the packet
 * and writes process trees, track descriptors and track events to the model.
 * Invariants: every span in `packets` points into f->data or into one of
 * `inflated` (kept alive until destroy); interned strings are keyed by
 * (sequence index, generation, kind, iid). */
#ifndef WEFT_PROTO_IMPORT_H
#define WEFT_PROTO_IMPORT_H

#include "import/importer.h"
#include "import/proto/proto_gpu.h"
#include "import/proto/proto_latest.h"
#include "import/proto/proto_misc.h"
#include "import/proto/proto_ref.h"
#include "import/proto/proto_tracks.h"
#include "import/proto/proto_wire.h"
#include "model/v8_profile.h"

enum proto_intern_kind {
  PROTO_INTERN_EVENT_CATEGORY = 1,
  PROTO_INTERN_EVENT_NAME = 2,
  PROTO_INTERN_DEBUG_NAME = 3,
  PROTO_INTERN_KERNEL_SYMBOL = 4,
  PROTO_INTERN_DEBUG_STRING = 5,     /* debug_annotation_string_values */
  PROTO_INTERN_LOG_BODY = 6,         /* log_message_body */
  PROTO_INTERN_HISTOGRAM_NAME = 7,   /* histogram_names */
  PROTO_INTERN_DEBUG_TYPE_NAME = 8,  /* debug_annotation_value_type_names */
  PROTO_INTERN_SOURCE_LOCATION = 9,  /* source_locations: index into
                                        proto_import_state.source_locations */
  /* profiles (proto_profile.h): kept messages, as source_locations */
  PROTO_INTERN_FUNCTION_NAME = 10,
  PROTO_INTERN_BUILD_ID = 11,
  PROTO_INTERN_MAPPING_PATH = 12,
  PROTO_INTERN_MAPPING = 13,
  PROTO_INTERN_FRAME = 14,
  PROTO_INTERN_CALLSTACK = 15,
  /* Kept messages too (proto_interned_message): */
  PROTO_INTERN_GRAPHICS_CONTEXT = 16, /* graphics_contexts */
  PROTO_INTERN_GPU_SPECIFICATION = 17, /* gpu_specifications */
  PROTO_INTERN_COMPUTE_KERNEL = 18,  /* GpuInternedData.compute_kernels */
  PROTO_INTERN_COMPUTE_ARG_NAME = 19, /* GpuInternedData.compute_arg_names */
  PROTO_INTERN_UNSYMBOLIZED_LOCATION = 20, /* unsymbolized_source_locations */
  PROTO_INTERN_PROTOLOG_STRING_ARG = 21, /* protolog_string_args */
  PROTO_INTERN_PROTOLOG_STACKTRACE = 22, /* protolog_stacktrace */
  PROTO_INTERN_SS_TASK_CONTEXT = 23,  /* StackSample task contexts (48) */
  PROTO_INTERN_SS_EXECUTION_CONTEXT = 24, /* StackSample execution contexts (49) */
  PROTO_INTERN_SS_COUNTER_DESCRIPTOR = 25, /* StackSample counter descriptors (50) */
  PROTO_INTERN_SS_ASYNC_CONTEXT = 26, /* StackSample async context descriptors (51) */
  /* view capture strings (proto_viewcapture.h), InternedData 38-41, 45, 46 */
  PROTO_INTERN_VC_PACKAGE_NAME = 27,
  PROTO_INTERN_VC_WINDOW_NAME = 28,
  PROTO_INTERN_VC_VIEW_ID = 29,
  PROTO_INTERN_VC_CLASS_NAME = 30,
  PROTO_INTERN_VC_CONTENT_DESCRIPTION = 31,
  PROTO_INTERN_VC_TEXT = 32,
  PROTO_INTERN_GPU_COUNTER_DESCRIPTOR = 33, /* gpu_counter_descriptors (47), kept */
};

typedef struct proto_packet_info {
  proto_span data;         /* the TracePacket's bytes */
  proto_span defaults;     /* the sequence's TracePacketDefaults, if any */
  uint32_t seq;            /* index into proto_import_state.seqs */
  uint32_t generation;     /* incremental-state generation of the sequence */
  uint32_t machine;        /* machine row of the packet (import_machine) */
  uint32_t buffer;         /* proto_refs buffer holding `data` */
} proto_packet_info;

typedef struct proto_seq {
  uint32_t id;             /* trusted_packet_sequence_id */
  uint32_t generation;
  proto_span defaults;
  uint64_t default_clock;  /* TracePacketDefaults.timestamp_clock_id or 0 */
  int64_t last_ts;
  uint32_t last_clock;     /* clock node of last_ts */
  int has_last;
  int64_t ref_ts;          /* legacy delta-timestamp reference (ns) */
  int ref_invalid;         /* the reference overflowed: deltas are dropped */
  /* tokenize-side: the sequence's thread, set by a ThreadDescriptor packet
   * or a thread's TrackDescriptor while the state is valid; a generation
   * starts with its predecessor's. The parse reads the last one set in a
   * packet's generation (proto_seq_thread), even one set after the packet,
   * as Perfetto's sequence state gives it. */
  int64_t pid, tid;
  int has_thread;
  /* tokenize-side: incremental state valid (cleared, and no packet lost
   * since), which a TrackDescriptor of a thread needs to set pid/tid */
  int state_valid;
  /* tokenize-side: packets needing incremental state, and those of them
   * skipped for want of it (traced_buf_incremental_sequences_dropped) */
  uint64_t needs_state_total, needs_state_skipped;
  /* tokenize-side: the clock node last looked up for this sequence */
  uint64_t cached_clock_id;
  uint32_t cached_clock_machine, cached_clock_node;
  int has_cached_clock;
} proto_seq;

typedef struct proto_import_state {
  VEC(base_buf) inflated;
  base_arena kept;         /* proto_input_keep's copies */
  proto_span last_kept;    /* the latest of them */
  uint64_t inflated_bytes; /* sum of inflated lens (see proto_inflate_cap) */
  proto_refs refs;          /* payloads of queued packets (proto_ref.h) */
  void *brief_scan;        /* tokenize: the scan result whose briefs it uses */
  VEC(proto_packet_info) packets; /* side records: PROTO_REF_SIDE | index */
  VEC(proto_seq) seqs;
  base_map seq_by_id;      /* sequence id -> index into seqs */
  base_map seq_threads;    /* seq index << 32 | generation -> pid << 32 | tid */
  uint32_t last_seq;       /* index into seqs of the last sequence looked up */
  base_map interned;       /* proto_intern_key -> string_id */
  VEC(proto_span) source_locations; /* interned SourceLocation messages (kept) */
  proto_tracks track_model; /* descriptor tracks (proto_tracks.h) */
  base_map counter_sums;   /* proto_intern_key(seq, gen, 0, uuid) -> double bits */
  /* incremental counters summed at tokenize (proto_event_counters.h): */
  base_map token_sums;     /* proto_intern_key(seq, gen, 0, uuid) -> double bits */
  base_map counter_values; /* (event bytes << 8 | index) -> absolute value bits */
  int claimed_clock;        /* this file claimed the trace-time clock */
  int trace_clock_locked;   /* a timestamp was converted (proto_clocks.h) */
  uint64_t default_clock_id; /* clock of packets without one; 0: BOOTTIME */
  int saw_timestamp;
  proto_latest latest;     /* the time untimed packets are placed at */
  base_map clock_multipliers; /* clock -> unit_multiplier_ns (when > 1) */
  base_map incremental_clocks; /* incremental clock -> its last value in ns */
  uint64_t last_raw_machine; /* cache of the last import_machine lookup */
  uint32_t last_machine;
  int snapshot_has_monotonic; /* a clock snapshot related CLOCK_MONOTONIC */
  proto_misc_state misc;   /* service/system packets (proto_misc.h) */
  base_buf categories;     /* parse: a track event's categories, reused */
  struct proto_ftrace_state *ftrace; /* proto_ftrace.h; NULL until needed */
  struct proto_etw_state *etw; /* ETW bundles (proto_etw.h); NULL until needed */
  struct proto_sys_stats_state *sys_stats; /* proto_sys_stats.h; lazy */
  struct proto_power_state *power; /* proto_power.h; lazy */
  struct proto_heap_graph_state *heap_graph; /* proto_heap_graph.h; lazy */
  struct proto_profile_state *profile; /* proto_profile.h; lazy */
  proto_gpu_state gpu;     /* GPU counter/memory packets (proto_gpu.h) */
  struct proto_android_state *android; /* proto_android.h; lazy */
  struct proto_android_fw_state *android_fw; /* proto_android_fw.h; lazy */
  struct proto_shell_state *shell; /* proto_shell_transition.h; lazy */
  struct proto_winscope_state *winscope; /* proto_winscope.h; lazy */
  struct proto_sf_state *sf; /* proto_winscope_sf.h; lazy */
  struct proto_wm_state *wm; /* proto_winscope_wm.h; lazy */
  struct proto_protovm_state *protovm; /* proto_protovm.h; lazy */
  int protovm_replay;      /* tokenizing a packet a ProtoVM rebuilt */
  struct proto_frames_state *frames; /* proto_frames.h; lazy */
  struct proto_frame_timeline_state *frame_timeline; /* proto_frames.h; lazy */
  struct proto_native_symbols *native_symbols; /* proto_native_symbols.h; lazy */
  struct proto_translation *translation; /* proto_translation.h; lazy */
  v8_profile_queue v8;     /* V8 CPU profile events (proto_v8_profile.c) */
} proto_import_state;

uint64_t proto_intern_key(uint32_t seq, uint32_t generation, int kind,
                          uint64_t iid);
/* Looks up an interned string; STRING_NULL if unknown. */
string_id proto_interned(const proto_import_state *st, uint32_t seq,
                         uint32_t generation, int kind, uint64_t iid);
/* An interned message kept whole (PROTO_INTERN_SOURCE_LOCATION and the
 * kinds after it): 1 and *msg, or 0 if unknown. */
/* The thread (pid, tid) of generation `generation` of sequence index `seq`:
 * 1 if it has one, else 0. */
int proto_seq_thread(const proto_import_state *st, uint32_t seq, uint32_t generation,
                     int64_t *pid, int64_t *tid);
int proto_interned_message(const proto_import_state *st, uint32_t seq, uint32_t generation,
                           int kind, uint64_t iid, proto_span *msg);
/* proto_scan.c: the scan (importer_ops.scan) collects the embedded
 * machine ids of the top-level packets, which tokenize declares to the
 * loader (import_declare_machines; ids that appear only inside
 * compressed_packets are resolved when met), and the packets' briefs
 * (proto_head.h), which tokenize uses instead of reading their heads. */
int proto_scan(const import_scan_input *in, void **result, base_error *err);
void proto_scan_free(void *result);
int proto_declare_scanned_machines(import_file *f, const void *scan, base_error *err);
/* The briefs of the top-level packets in walk order (*count of them; the
 * walk of tokenize meets the same packets in the same order), or NULL
 * when the scan recorded none. */
struct proto_brief;
const struct proto_brief *proto_scanned_briefs(const void *scan, size_t *count);
/* The scan's inflation of the compressed_packets payload of brief `index`
 * (its span_len), where tokenize has inflated_bytes so far: moves the
 * bytes to *out and returns WEFT_OK, or returns the status that dropped it
 * (WEFT_ELIMIT, WEFT_EPARSE), or PROTO_SCANNED_REDO when a chunk's scan
 * cannot tell what tokenize's inflation would give (tokenize inflates). */
#define PROTO_SCANNED_REDO 1
int proto_scanned_inflated(void *scan, uint32_t index, uint64_t inflated_bytes,
                           base_buf *out);
/* For a file above the briefs' size, the offsets of the first packets of
 * chunks of about 4 MiB of whole packets, in walk order, starting at 0;
 * NULL when the scan recorded none. Tokenize has workers make each
 * chunk's briefs (a proto_chunk_scan task) ahead of its turn. */
const uint64_t *proto_scanned_chunks(const void *scan, size_t *count);
/* A chunk's scan: briefs of the packets of data[0, len), the chunk of a
 * file of file_len bytes; its result is a scan result (proto_scanned_briefs,
 * proto_scanned_inflated, proto_scan_free). run is a scan_task's. */
typedef struct proto_chunk_scan {
  const uint8_t *data;
  size_t len, file_len;
  const weft_options *options;
} proto_chunk_scan;
int proto_chunk_scan_run(void *arg, void **result, base_error *err);
/* Output cap for one compressed_packets payload of in_len bytes of a file
 * of file_len bytes after inflated_bytes inflated from its earlier
 * payloads: the per-stream size limit, the compression ratio (past 1 MiB),
 * and what is left of the file's budget over all its payloads (ratio x
 * file size, at least 64 MiB), so many small bombs cannot add up either. */
uint64_t proto_inflate_cap(const weft_options *o, size_t file_len, uint64_t inflated_bytes,
                           size_t in_len);
/* Inflates a payload under `cap` into *out (a new buffer): WEFT_OK;
 * WEFT_ELIMIT (cap 0 or exceeded) or WEFT_EPARSE (corrupt), the payload
 * dropped; WEFT_ENOMEM. Pure: the scan runs it too. */
int proto_inflate_payload(proto_span payload, uint64_t cap, base_buf *out);
/* A RemoteClockSync packet of relayed machine row `machine`: relates its
 * builtin clocks to the same clocks of the file's base (host) machine. */
int proto_remote_clock_sync(import_file *f, uint32_t machine, proto_span sync,
                            base_error *err);
/* Resolves a queued packet and decodes its TrackEvent ahead of the parse
 * (importer_ops.prepare; ftrace events: proto_ftrace_prepare). */
size_t proto_import_prepare(const import_file *f, const sort_event *event, void *out);
/* Where queued packets and ftrace events lie in the file (importer_ops.
 * locate_rule; no hint for side records and inflated buffers). */
void proto_import_locate_rule(const import_file *f, sort_locate_rule *rule);
int proto_import_parse(import_file *f, const sort_event *event, void *prepared,
                       base_error *err);
/* Input release (import_input_hold): `s` lies in the buffer being
 * tokenized. hold: a queued event reads it when parsed, and calls
 * proto_input_release with the buffer's index once parsed. An inflated
 * buffer is freed once nothing holds or pins it. */
void proto_input_hold(import_file *f, proto_span s);
/* Bytes read until loading ends (sequence defaults, the trace config): a
 * copy owned by the file's state (in an arena, so never more bytes than the
 * input's rounded to 16; the latest copy is reused for equal bytes), so
 * that the chunk holding them can still be given back; if the copy cannot
 * be made, `s` itself, pinned (kept until loading ends). */
proto_span proto_input_keep(import_file *f, proto_span s);
uint32_t proto_input_current(const import_file *f);
/* A _trace_import_logs row of `stat` (its args in arg_set, -1: none) at the
 * file offset of `at`, the bytes of the packet it was found in (NULL when
 * they are not the file's, e.g. inflated). The caller counts the stat. */
int proto_log_at(import_file *f, proto_span at, stats_id stat, int64_t arg_set);
void proto_input_release(import_file *f, uint32_t buffer, proto_span s);
/* Legacy track-event time of a packet (proto_track_time.c): sets *result to
 * 1 with *ts (ns), 0 if the packet timestamp applies, -1 if invalid (counted;
 * drop the packet). Returns WEFT_OK or WEFT_ENOMEM. */
int proto_legacy_time(import_file *f, proto_seq *seq, proto_span pkt, int64_t *ts,
                      int *result);
/* The same for a packet whose only field proto_legacy_time reads is this
 * TrackEvent. */
int proto_legacy_event_time(import_file *f, proto_seq *seq, proto_span event, int64_t *ts,
                            int *result);
/* 1 if the TrackEvent has no legacy time (proto_legacy_event_time leaves
 * it untimed whatever its sequence): pure, for proto_brief_of. */
int proto_event_time_is_none(proto_span event);

#endif
