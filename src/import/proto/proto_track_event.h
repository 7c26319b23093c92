/* proto_track_event: TrackEvents onto the model — their tracks (descriptor,
 * default, legacy pid/tid and instant scopes), slices, counters, args,
 * flows, callstacks and thread times, and legacy async events. The
 * packet dispatch (proto_import_parse.c) decodes an event ahead with
 * proto_event_read and applies it with proto_track_event. */
#ifndef WEFT_PROTO_TRACK_EVENT_H
#define WEFT_PROTO_TRACK_EVENT_H

#include "base/base.h"
#include "import/proto/proto_event_counters.h"
#include "import/proto/proto_flow.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_profile.h"

/* What parsing one packet knows: its file, the packet, its machine and time. */
typedef struct proto_parse_ctx {
  import_file *f;
  const proto_packet_info *info;
  uint32_t machine;
  int64_t ts;
} proto_parse_ctx;

typedef struct proto_event {
  uint64_t type, name_iid, track_uuid;
  int has_type, has_name, has_name_iid, has_track, has_int_counter, has_dbl_counter;
  proto_span name;
  int64_t int_counter;
  double dbl_counter;
  /* categories, as read: the first `categories` string, how many there
   * are, and whether category_iids came too (proto_event_categories joins
   * them when the event is applied) */
  proto_span category;
  uint32_t category_fields;
  int has_category_iids;
  base_buf *categories; /* the joined list, set when applied: the
                           importer's reused buffer */
  /* legacy_event */
  int has_legacy, has_phase, has_pid_override, has_tid_override, has_duration;
  uint64_t phase, scope;
  int64_t pid_override, tid_override, duration_us;
  uint64_t unscoped_id, global_id, local_id, legacy_name_iid;
  int has_unscoped_id, has_global_id, has_local_id, has_id_scope;
  proto_span id_scope;
  int64_t passthrough_utid; /* the thread a legacy global/process instant
                               was emitted on, or -1 */
  int scoped_instant;       /* a legacy instant moved to its scope's track */
  proto_span active_processes; /* chrome_active_processes */
  int has_active_processes;
  /* what the later steps read, learned in the same pass */
  int has_counters;    /* a field proto_event_counters reads */
  int has_args; /* a field that args are derived from (proto_args.h) */
  proto_flow_hint flow;
  proto_span fw_event; /* an AndroidTrackEvent process event, its field */
  uint32_t fw_field;
  proto_event_callstack callstack; /* TrackEvent.callstack(_iid), its weight */
  proto_thread_times times; /* the thread time and instructions it gives */
  string_id name_id;   /* `name` interned, once name_interned */
  int name_interned;
} proto_event;

/* Decodes a TrackEvent's fields into e (zeroed by the caller). Pure: it
 * reads only `msg`, so that it may run ahead of the parse. */
void proto_event_read(proto_span msg, proto_event *e);
/* A TrackEvent; `read`: its fields decoded ahead (proto_event_read), or NULL. */
int proto_track_event(proto_parse_ctx *p, proto_span msg, proto_event *read);
/* proto_v8_profile.c: queues the V8 CPU profile of a legacy 'P' event;
 * proto_v8_end applies the queue once parsing ends. */
int proto_v8_profile(proto_parse_ctx *p, proto_span msg, const proto_event *e);
int proto_v8_end(import_file *f);

#endif
