/* proto_ftrace: TracePacket.ftrace_events (FtraceEventBundle) in the proto
 * importer.
 *
 * tokenize: each bundle's events become one sort event each, its payload a
 * proto_ref to the event (PROTO_REF_FTRACE set) with the bundle's cpu in its
 * context; compact_sched columns (timestamps delta-decoded) and what cannot
 * be referenced become one record each (PROTO_REF_FTRACE | PROTO_REF_SIDE |
 * record index). The first bundle of every
 * cpu gives the time from which that cpu's data is valid
 * (previous_bundle_end_timestamp / last_read_event_timestamp); a
 * TracingServiceEvent.tracing_started gives the tracing start. The latest
 * of a machine's cpus' valid times is its ftrace_latest_data_start_ns.
 * parse: events before tracing start are dropped
 * (ftrace_packet_before_tracing_start); events before the latest per-cpu
 * valid time only reach the raw ftrace_event table; the rest are applied
 * through model/sched.h and model/atrace.h. Every described event (see
 * model/ftrace_desc.h) gets a raw row with its fields as args.
 * Invariants: record spans point into bytes the proto importer keeps alive;
 * the state is owned by proto_import_state and freed by proto_ftrace_free. */
#ifndef WEFT_PROTO_FTRACE_H
#define WEFT_PROTO_FTRACE_H

#include "import/proto/proto_import.h"

#define PROTO_FTRACE_MAX_FIELDS 16

/* The fields 1..PROTO_FTRACE_MAX_FIELDS-1 of an event message, last wins. */
typedef struct proto_ftrace_fields {
  uint64_t v[PROTO_FTRACE_MAX_FIELDS];
  proto_span s[PROTO_FTRACE_MAX_FIELDS];
  uint32_t has; /* bit n: field n present */
} proto_ftrace_fields;

typedef struct proto_ftrace_state proto_ftrace_state;

/* A bundle seen while tokenizing on sequence index `seq` (its interned
 * kernel symbols are looked up with `generation`), from machine row
 * `machine` (import_machine of the packet's machine_id). */
int proto_ftrace_tokenize(import_file *f, proto_span bundle, uint32_t seq,
                          uint32_t generation, uint32_t machine,
                          base_error *err);
/* After the last bundle: pushes each machine's latest first-bundle valid
 * time, written as metadata ftrace_latest_data_start_ns (trace time) when
 * parsed. */
int proto_ftrace_tokenize_end(import_file *f);
/* TracingServiceEvent of a packet at raw ts on clock node `clock`. */
int proto_ftrace_service_event(import_file *f, proto_span event, int64_t ts,
                               uint32_t clock);
/* Resolves and decodes a queued ftrace event ahead of its parse
 * (importer_ops.prepare); proto_ftrace_parse takes what it wrote. */
size_t proto_ftrace_prepare(const import_file *f, const sort_event *event, void *out);
int proto_ftrace_parse(import_file *f, const sort_event *event, void *prepared,
                       base_error *err);
void proto_ftrace_free(proto_ftrace_state *s);

/* Ftrace events of Android probes (proto_android.c): android_fs data reads;
 * v and s are the event's varint and length-delimited fields by number
 * (PROTO_FTRACE_MAX_FIELDS of each); other ids are ignored. */
int proto_android_ftrace(trace_context *ctx, uint32_t machine, int64_t ts, int64_t pid,
                         uint32_t id, const uint64_t *v, const proto_span *s);

#endif
