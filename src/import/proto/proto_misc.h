/* proto_misc: the Perfetto service and system packets that are not trace
 * events — SystemInfo (machine table + metadata), CpuInfo (cpu table),
 * TraceConfig / TraceUuid (metadata, trace diagnostics), TraceStats and
 * per-sequence packet loss (stats), service events, triggers.
 *
 * Split by phase:
 *  - proto_misc_tokenize sees every packet in file order (the only place
 *    where packet loss and trace_stats can be related, whatever the
 *    timestamps); it records, never writes time-dependent rows;
 *  - proto_misc_parse handles one timestamped packet field in trace-time
 *    order (proto_system.c);
 *  - proto_misc_end writes what needs the whole file (loss stats, uuid,
 *    diagnostics).
 * Invariants: `config` points into the file's bytes or an inflated buffer
 * kept alive by the importer until destroy; every vector is bounded by the
 * number of packets. */
#ifndef WEFT_PROTO_MISC_H
#define WEFT_PROTO_MISC_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_LOSS_CAUSES 8 /* bits 1..8 of previous_packet_dropped */

typedef struct proto_seq_loss {
  uint32_t seq_id;
  uint64_t packets;               /* packets seen on the sequence */
  uint64_t drops;                 /* non-first packets flagged dropped */
  uint64_t causes[PROTO_LOSS_CAUSES];
  int all_needing_state_skipped;  /* every packet needing incremental state was skipped */
} proto_seq_loss;

typedef struct proto_writer_buffer {
  uint32_t seq_id;
  uint32_t buffer;
} proto_writer_buffer;

typedef struct proto_misc_state {
  base_map loss_by_seq;           /* sequence id -> index into losses */
  VEC(proto_seq_loss) losses;
  VEC(proto_writer_buffer) writers; /* TraceStats.writer_stats */
  proto_span config;              /* the last TraceConfig */
  int has_config;
  uint64_t uuid_msb, uuid_lsb;
  int uuid_source;                /* 0 none, 1 trace_config, 2 trace_uuid */
  int64_t roi_start_ns;           /* track event range of interest */
  int has_roi;
  base_map last_state;            /* track id -> its latest state row */
  base_map session_tracks;        /* tracing session id -> track id */
  base_map ftrace_error_seqs;     /* sequences whose ftrace setup errors counted */
  uint32_t ftrace_critical;       /* bit n: FtraceParseStatus n seen (not 12) */
  uint32_t chrome_bundles;        /* ChromeEventBundles with metadata parsed */
  uint32_t chrome_packets;        /* ChromeMetadataPackets tokenized */
  base_map process_name_ranks;    /* upid -> descriptor name << 8 | its rank */
  base_map comm_processes;        /* upids the process tree gave with cmdline_is_comm */
  base_map thread_name_ranks;     /* utid -> the name a thread descriptor last gave */
} proto_misc_state;

/* Observes one (non-compressed) TracePacket in file order. */
int proto_misc_tokenize(import_file *f, proto_misc_state *m, proto_span pkt,
                        uint32_t seq_id);
/* The same for a packet already read without a trace_config, trace_uuid
 * or range of interest: its previous_packet_dropped (0 if absent) and its
 * last trace_stats (data NULL if absent). */
int proto_misc_tokenize_common(import_file *f, proto_misc_state *m, uint32_t seq_id,
                               uint64_t dropped, proto_span stats);
/* 1 if proto_misc_tokenize reads more of a packet with this (length-
 * delimited) field than proto_misc_tokenize_common is given. */
int proto_misc_tokenize_reads(uint32_t number);
/* 1 if a TracePacket field is handled by proto_misc_parse (such packets
 * must be pushed to the sorter even without a timestamp). */
int proto_misc_wants_field(uint32_t number);
/* Applies one top-level TracePacket field at trace time `ts`. */
int proto_misc_parse(import_file *f, uint32_t machine, int64_t ts,
                     const proto_field *field);
/* Records that `skipped` of the `total` packets of a sequence that need
 * incremental state were skipped for want of it. */
int proto_misc_note_skipped(proto_misc_state *m, uint32_t seq_id, uint64_t total,
                            uint64_t skipped);
/* Writes the whole-file results (stats, metadata, diagnostics). */
int proto_misc_end(import_file *f, proto_misc_state *m, base_error *err);
void proto_misc_free(proto_misc_state *m);

/* ---- shared helpers (proto_system.c) ---- */
/* Appends one metadata row; key_type "single" replaces an existing row of
 * the same scope, "multi" always appends. machine/trace -1 = NULL. */
int proto_metadata_int(trace_context *ctx, const char *name, int multi,
                       int64_t value, int64_t machine, int64_t trace);
int proto_metadata_str(trace_context *ctx, const char *name, const char *value,
                       size_t len, int64_t machine, int64_t trace);
/* Appends a "multi" string metadata row. */
int proto_metadata_str_multi(trace_context *ctx, const char *name, const char *value,
                             int64_t machine, int64_t trace);
/* Android SDK version from a build fingerprint's version component, or -1. */
int64_t proto_fingerprint_sdk_version(const char *fp, size_t len);

/* ---- FtraceStats (proto_ftrace_stats.c) ---- */
/* Applies one FtraceStats in file order (cpu stats, setup errors, parse
 * errors: a zero data length is counted, the others remembered). */
int proto_ftrace_stats(import_file *f, proto_misc_state *m, uint32_t seq_id, proto_span msg);
/* A parse error if any critical ftrace parse status was seen. */
int proto_ftrace_stats_end(const proto_misc_state *m, base_error *err);

/* ---- state tracks (proto_state.c) ---- */
/* Makes `track` a state track (event_type 'state'). */
int proto_state_track_mark(trace_context *ctx, uint32_t track);
/* Appends a state value (of `category`, or STRING_NULL) at ts, its dur
 * `open_dur` until the track's next state ends it (then next ts - ts). */
int proto_state_push(trace_context *ctx, proto_misc_state *m, uint32_t track, int64_t ts,
                     string_id category, string_id value, int64_t arg_set, int64_t open_dur);
/* A ConcurrentSessionEvent (TracePacket field 134). */
int proto_concurrent_session(import_file *f, proto_misc_state *m, uint32_t machine,
                             int64_t ts, proto_span msg);

/* ---- Chrome metadata (proto_chrome_metadata.c) ---- */
/* A ChromeEventBundle at trace time: cr-* metadata and chrome_raw rows. */
int proto_chrome_events(import_file *f, proto_misc_state *m, int64_t ts, proto_span msg);
/* A ChromeMetadataPacket, in file order: cr-<letter>-* metadata. */
int proto_chrome_metadata_packet(import_file *f, proto_misc_state *m, proto_span msg);
/* Metadata rows made from now on sort as Perfetto's tokenizer writes them
 * reading the byte `at` of this file (SystemInfo, ServiceEvent and
 * ChromeMetadataPacket rows, which weft writes at other moments). Bytes of
 * an inflated compressed packet sort after the file's own. Returns the
 * position that ctx_metadata_at restores. */
uint64_t proto_metadata_at(import_file *f, const uint8_t *at);

/* A ChromeBenchmarkMetadata: benchmark_* metadata. */
int proto_chrome_benchmark_metadata(import_file *f, proto_span msg);

/* ---- process descriptors (proto_chrome_process.c) ---- */
/* A ProcessDescriptor of process upid (with its TrackDescriptor's
 * ChromeProcessDescriptor, or NULL): the process's name, start and args. */
int proto_process_descriptor_apply(import_file *f, proto_misc_state *m, uint32_t upid,
                                   proto_span process, const proto_span *chrome);
/* The name of a Chrome ProcessType value, or NULL. */
const char *proto_chrome_process_type_name(int64_t type);

/* ---- thread descriptors (proto_chrome_thread.c) ---- */
/* A ThreadDescriptor of thread utid (with its TrackDescriptor's
 * ChromeThreadDescriptor, or NULL): the thread's name. */
int proto_thread_descriptor_name(import_file *f, proto_misc_state *m, uint32_t utid,
                                 proto_span thread, const proto_span *chrome);
/* The name of a Chrome ThreadType value, or NULL. */
const char *proto_chrome_thread_type_name(int64_t type);

/* ---- trace diagnostics (proto_diagnostics.c) ---- */
/* Runs the trace-config rules over `config` and appends to
 * __intrinsic_trace_diagnostics. */
int proto_diagnostics_run(import_file *f, proto_span config);

#endif
