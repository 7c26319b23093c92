/* Perfetto proto importer: parse phase (process trees, track descriptors,
 * legacy thread/process descriptors, track events). See proto_import.h. */
#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_event_counters.h"
#include "import/proto/proto_flow.h"
#include "import/proto/proto_ftrace.h"
#include "import/proto/proto_args.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_legacy_async.h"
#include "import/proto/proto_legacy_raw.h"
#include "import/proto/proto_heap_graph.h"
#include "import/proto/proto_android.h"
#include "import/proto/proto_power.h"
#include "import/proto/proto_profile.h"
#include "model/columns.h"
#include "import/proto/proto_process_tree.h"
#include "model/slice_stack.h"

#define PROTO_MAX_CATEGORIES_BYTES 4096

typedef struct proto_parse_ctx {
  import_file *f;
  const proto_packet_info *info;
  uint32_t machine;
  int64_t ts;
} proto_parse_ctx;

/* ---- descriptors ---- */

typedef struct proto_desc {
  int64_t pid, tid;
  int has_pid, has_tid;
  proto_span name;
  int has_name;
} proto_desc;

/* Reads ProcessDescriptor / ThreadDescriptor (pid, tid, name field). */
static void proto_desc_read(proto_span msg, uint32_t pid_field, uint32_t tid_field,
                            uint32_t name_field, proto_desc *d) {
  memset(d, 0, sizeof *d);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == pid_field && fl.wire_type == PROTO_WIRE_VARINT) {
      d->pid = proto_field_int32(&fl);
      d->has_pid = 1;
    } else if (tid_field && fl.number == tid_field && fl.wire_type == PROTO_WIRE_VARINT) {
      d->tid = proto_field_int32(&fl);
      d->has_tid = 1;
    } else if (fl.number == name_field && fl.wire_type == PROTO_WIRE_LEN) {
      d->name = fl.span;
      d->has_name = 1;
    }
  }
}

static int proto_desc_thread(proto_parse_ctx *p, const proto_desc *d, uint32_t *utid) {
  trace_context *ctx = p->f->ctx;
  uint32_t main_utid;
  /* A process seen through a thread descriptor gets its main thread too. */
  int rc = d->has_pid && d->pid != d->tid
               ? model_thread_in_process(ctx, p->machine, d->pid, d->pid, &main_utid)
               : WEFT_OK;
  if (!rc)
    rc = d->has_pid ? model_thread_in_process(ctx, p->machine, d->tid, d->pid, utid)
                    : model_thread(ctx, p->machine, d->tid, utid);
  if (!rc && d->has_name)
    rc = model_thread_set_name(ctx, *utid, (const char *)d->name.data, d->name.len);
  return rc;
}

/* Sets a process's / thread's arg set to {key: value} (sort index hints of
 * descriptor tracks). */
static int proto_sort_index_hint(trace_context *ctx, schema_table_id table, int column,
                                 uint32_t row, const char *key, int64_t value) {
  int64_t args;
  int rc = model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, value);
  if (!rc) rc = model_args_commit(ctx, &args);
  if (!rc) model_row_set_arg_set(ctx, table, (size_t)column, row, args);
  return rc;
}

/* A TrackDescriptor at its trace time: resolves the track's thread/process
 * (proto_tracks.h; the track row itself is made on first use) and applies
 * the thread/process names it carries and, when the root descriptor orders
 * processes / threads explicitly, its sibling_order_rank as their sort
 * index hint. */
static int proto_track_descriptor(proto_parse_ctx *p, proto_span msg) {
  trace_context *ctx = p->f->ctx;
  proto_import_state *st = p->f->state;
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_UUID, &fl) != 1) return WEFT_OK;
  proto_track_ref ref;
  int rc = proto_tracks_resolve(p->f, &st->track_model, p->machine, fl.value, &ref);
  if (rc) return rc > 0 ? WEFT_OK : rc;
  int64_t rank = 0;
  int has_rank = proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_SIBLING_ORDER_RANK,
                                 &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT;
  if (has_rank) rank = proto_field_int32(&fl);
  proto_desc d;
  if (ref.utid >= 0 &&
      proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_THREAD, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN) {
    proto_desc_read(fl.span, PROTO_THREAD_DESCRIPTOR_PID, PROTO_THREAD_DESCRIPTOR_TID,
                    PROTO_THREAD_DESCRIPTOR_THREAD_NAME, &d);
    uint32_t utid = (uint32_t)ref.utid;
    if (d.has_name) rc = model_thread_set_name(ctx, utid, (const char *)d.name.data, d.name.len);
    if (!rc && has_rank && st->track_model.thread_ranked)
      rc = proto_sort_index_hint(ctx, TABLE_THREAD, THREAD_arg_set_id, utid,
                                 "thread_sort_index_hint", rank);
  } else if (ref.upid >= 0 &&
             proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_PROCESS, &fl) == 1 &&
             fl.wire_type == PROTO_WIRE_LEN) {
    proto_span process = fl.span;
    uint32_t upid = (uint32_t)ref.upid;
    int has_chrome = proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_CHROME_PROCESS,
                                     &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN;
    rc = proto_process_descriptor_apply(p->f, &st->misc, upid, process,
                                        has_chrome ? &fl.span : NULL);
    int ranked = has_rank && st->track_model.process_ranked;
    if (!rc && ranked) /* joins the process args (model_process_args_add) */
      rc = model_arg_int(ctx, "process_sort_index_hint", 23, MODEL_ARG_INT, rank);
    if (!rc && ranked) rc = model_process_args_add(ctx, upid);
  }
  return rc;
}

static int proto_thread_descriptor(proto_parse_ctx *p, proto_span msg) {
  proto_import_state *st = p->f->state;
  proto_desc d;
  proto_desc_read(msg, PROTO_THREAD_DESCRIPTOR_PID, PROTO_THREAD_DESCRIPTOR_TID,
                  PROTO_THREAD_DESCRIPTOR_THREAD_NAME, &d);
  uint32_t utid;
  int rc = proto_desc_thread(p, &d, &utid);
  if (rc) return rc;
  proto_seq *seq = &st->seqs.data[p->info->seq];
  seq->pid = d.pid;
  seq->tid = d.tid;
  seq->has_thread = 1;
  return WEFT_OK;
}

static int proto_process_descriptor(proto_parse_ctx *p, proto_span msg) {
  proto_desc d;
  proto_desc_read(msg, PROTO_PROCESS_DESCRIPTOR_PID, 0,
                  PROTO_PROCESS_DESCRIPTOR_PROCESS_NAME, &d);
  if (!d.has_pid) return WEFT_OK;
  uint32_t upid;
  int rc = model_process(p->f->ctx, p->machine, d.pid, &upid);
  return rc ? rc
            : proto_process_descriptor_apply(p->f, &((proto_import_state *)p->f->state)->misc,
                                             upid, msg, NULL);
}

/* ---- track events ---- */

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
  /* what the later steps read, learned in the same pass */
  int has_counters;    /* a field proto_event_counters reads */
  int has_args; /* a field that args are derived from (proto_args.h) */
  proto_flow_hint flow;
  proto_event_callstack callstack; /* TrackEvent.callstack(_iid), its weight */
  string_id name_id;   /* `name` interned, once name_interned */
  int name_interned;
} proto_event;

static void proto_legacy_read(proto_span msg, proto_event *e) {
  proto_reader r;
  proto_field fl;
  e->has_legacy = 1;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_LEGACY_EVENT_ID_SCOPE && fl.wire_type == PROTO_WIRE_LEN) {
      e->id_scope = fl.span;
      e->has_id_scope = 1;
    }
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    switch (fl.number) {
      case PROTO_LEGACY_EVENT_PHASE: e->phase = fl.value; e->has_phase = 1; break;
      case PROTO_LEGACY_EVENT_UNSCOPED_ID: e->unscoped_id = fl.value; e->has_unscoped_id = 1; break;
      case PROTO_LEGACY_EVENT_NAME_IID: e->legacy_name_iid = fl.value; break;
      case PROTO_LEGACY_EVENT_GLOBAL_ID: e->global_id = fl.value; e->has_global_id = 1; break;
      case PROTO_LEGACY_EVENT_LOCAL_ID: e->local_id = fl.value; e->has_local_id = 1; break;
      case PROTO_LEGACY_EVENT_DURATION_US: e->duration_us = (int64_t)fl.value; e->has_duration = 1; break;
      case PROTO_LEGACY_EVENT_INSTANT_EVENT_SCOPE: e->scope = fl.value; break;
      case PROTO_LEGACY_EVENT_PID_OVERRIDE: e->pid_override = proto_field_int32(&fl); e->has_pid_override = 1; break;
      case PROTO_LEGACY_EVENT_TID_OVERRIDE: e->tid_override = proto_field_int32(&fl); e->has_tid_override = 1; break;
      default: break;
    }
  }
}

/* A legacy phase as a TrackEvent type (0 if not a slice/instant phase). */
static uint64_t proto_legacy_type(uint64_t phase) {
  switch (phase) {
    case 'B': return PROTO_TRACK_EVENT_TYPE_SLICE_BEGIN;
    case 'E': return PROTO_TRACK_EVENT_TYPE_SLICE_END;
    case 'X': case 'I': case 'i': case 'R': return PROTO_TRACK_EVENT_TYPE_INSTANT;
    default: return PROTO_TRACK_EVENT_TYPE_UNSPECIFIED;
  }
}

static int proto_event_add_category(proto_event *e, const char *s, size_t len) {
  if (e->categories->len && base_buf_append(e->categories, ",", 1)) return WEFT_OK;
  base_buf_append(e->categories, s, len); /* over the cap: truncated */
  return WEFT_OK;
}

/* Decodes a TrackEvent's fields into e (zeroed by the caller). Pure: it
 * reads only `msg`, so that it may run ahead of the parse (proto_prepare);
 * what needs the parse's state (interned categories) is left for
 * proto_event_categories. */
static void proto_event_read(proto_span msg, proto_event *e) {
  proto_reader r;
  proto_field fl;
  int more;
  proto_reader_init_span(&r, msg);
  while ((more = proto_reader_next(&r, &fl)) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    proto_flow_hint_note(&e->flow, &fl);
    if (proto_event_counters_field(fl.number)) e->has_counters = 1;
    switch (fl.number) {
      case PROTO_TRACK_EVENT_TYPE: e->type = fl.value; e->has_type = 1; break;
      case PROTO_TRACK_EVENT_NAME: if (len) { e->name = fl.span; e->has_name = 1; } break;
      case PROTO_TRACK_EVENT_NAME_IID: e->name_iid = fl.value; e->has_name_iid = 1; break;
      case PROTO_TRACK_EVENT_TRACK_UUID: e->track_uuid = fl.value; e->has_track = 1; break;
      case PROTO_TRACK_EVENT_LEGACY_EVENT: if (len) proto_legacy_read(fl.span, e); break;
      case PROTO_TRACK_EVENT_COUNTER_VALUE:
        e->int_counter = (int64_t)fl.value;
        e->has_int_counter = 1;
        break;
      case PROTO_TRACK_EVENT_DOUBLE_COUNTER_VALUE:
        if (fl.wire_type == PROTO_WIRE_FIXED64) {
          e->dbl_counter = proto_field_double(&fl);
          e->has_dbl_counter = 1;
        }
        break;
      case PROTO_TRACK_EVENT_CATEGORIES:
        if (len && e->category_fields++ == 0) e->category = fl.span;
        break;
      case PROTO_TRACK_EVENT_CATEGORY_IIDS: e->has_category_iids = 1; break;
      case PROTO_TRACK_EVENT_CALLSTACK: case PROTO_TRACK_EVENT_CALLSTACK_IID:
      case PROTO_TRACK_EVENT_CALLSTACK_WEIGHT:
        proto_event_callstack_field(&fl, &e->callstack);
        break;
      default: if (proto_args_field(fl.number)) e->has_args = 1; break;
    }
  }
  proto_flow_hint_end(&e->flow, more);
  /* a name_iid of 0 or none: the legacy event's */
  if (e->legacy_name_iid && !e->name_iid) e->name_iid = e->legacy_name_iid, e->has_name_iid = 1;
  e->passthrough_utid = -1;
}

/* Adds the interned categories of a category_iids field (packed or not). */
static void proto_event_category_iids(proto_parse_ctx *p, const proto_field *fl,
                                      proto_event *e) {
  proto_import_state *st = p->f->state;
  trace_context *ctx = p->f->ctx;
  int len = fl->wire_type == PROTO_WIRE_LEN;
  proto_packed_iter it = {0};
  uint64_t iid;
  if (len) proto_packed_init(&it, fl->span);
  for (int more = 1; more;) {
    if (len) more = proto_packed_next_varint(&it, &iid) == 1;
    else { iid = fl->value; more = 0; }
    if (!len || more) {
      string_id s = proto_interned(st, p->info->seq, p->info->generation,
                                   PROTO_INTERN_EVENT_CATEGORY, iid);
      if (s != STRING_NULL)
        proto_event_add_category(e, base_string_pool_get(&ctx->strings, s),
                                 base_string_pool_len(&ctx->strings, s));
    }
  }
}

/* Joins the event's categories (strings and interned ids, in field order,
 * comma-separated) into the importer's reused buffer: e->categories. */
static void proto_event_categories(proto_parse_ctx *p, proto_span msg, proto_event *e) {
  proto_import_state *st = p->f->state;
  if (!st->categories.max_len) base_buf_init(&st->categories, PROTO_MAX_CATEGORIES_BYTES);
  base_buf_reset(&st->categories);
  e->categories = &st->categories;
  if (!e->has_category_iids) { /* the usual case: at most one string */
    if (e->category_fields == 1)
      proto_event_add_category(e, (const char *)e->category.data, e->category.len);
    if (e->category_fields <= 1) return;
  }
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_TRACK_EVENT_CATEGORIES && fl.wire_type == PROTO_WIRE_LEN)
      proto_event_add_category(e, (const char *)fl.span.data, fl.span.len);
    else if (fl.number == PROTO_TRACK_EVENT_CATEGORY_IIDS)
      proto_event_category_iids(p, &fl, e);
  }
}

/* The track_uuid from the sequence's TrackEventDefaults, if any. */
static int proto_default_track_uuid(const proto_packet_info *info, uint64_t *uuid) {
  proto_field fl;
  if (!info->defaults.data ||
      proto_find_last(info->defaults.data, info->defaults.len,
                      PROTO_TRACE_PACKET_DEFAULTS_TRACK_EVENT_DEFAULTS, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN)
    return 0;
  proto_span d = fl.span;
  if (proto_find_last(d.data, d.len, PROTO_TRACK_EVENT_DEFAULTS_TRACK_UUID, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT)
    return 0;
  *uuid = fl.value;
  return 1;
}

/* The (pid, tid) legacy events on this sequence belong to: the sequence's
 * ThreadDescriptor, else the thread of its default track's descriptor. */
static int proto_sequence_ids(proto_parse_ctx *p, int64_t *pid, int64_t *tid) {
  proto_import_state *st = p->f->state;
  const proto_seq *seq = &st->seqs.data[p->info->seq];
  if (seq->has_thread) {
    *pid = seq->pid;
    *tid = seq->tid;
    return 1;
  }
  uint64_t uuid;
  const proto_track_resv *r = proto_default_track_uuid(p->info, &uuid)
                                  ? proto_tracks_find(&st->track_model, p->machine, uuid)
                                  : NULL;
  if (!r || !r->has_tid) return 0;
  *pid = r->pid;
  *tid = r->tid;
  return 1;
}

/* The pseudo thread (tid -1) of a legacy event's pid_override, in that
 * process, whose main thread is made too (Perfetto's thread for it). */
static int proto_override_thread(proto_parse_ctx *p, int64_t pid, uint32_t *utid) {
  uint32_t main_utid;
  int rc = model_thread_in_process(p->f->ctx, p->machine, pid, pid, &main_utid);
  return rc ? rc : model_thread_in_process(p->f->ctx, p->machine, -1, pid, utid);
}

/* Legacy track selection: pid/tid overrides (any event) and, for events
 * typed only by a legacy phase on the default track, instant scopes and the
 * sequence's thread. Returns 0 with *track set, 1 if not applicable, or a
 * WEFT_E* error. */
static int proto_legacy_track(proto_parse_ctx *p, proto_event *e, int on_default,
                              uint32_t *track) {
  trace_context *ctx = p->f->ctx;
  uint32_t utid, upid;
  int64_t pid, tid;
  if (!e->has_legacy) return 1;
  if (e->has_tid_override) {
    int rc = e->has_pid_override
                 ? model_thread_in_process(ctx, p->machine, e->tid_override, e->pid_override, &utid)
                 : model_thread(ctx, p->machine, e->tid_override, &utid);
    return rc ? rc : model_thread_track(ctx, utid, track);
  }
  if (e->has_pid_override && on_default) { /* a process-wide pseudo thread (tid -1) */
    int rc = proto_override_thread(p, e->pid_override, &utid);
    return rc ? rc : model_thread_track(ctx, utid, track);
  }
  if (e->has_type || !e->has_phase || (e->has_track && e->track_uuid != 0)) return 1;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.machine = p->machine;
  spec.source = "chrome";
  int has_ids = proto_sequence_ids(p, &pid, &tid);
  int rc = has_ids ? model_thread_in_process(ctx, p->machine, tid, pid, &utid) : WEFT_OK;
  if (rc) return rc;
  if (e->scope == 1) { /* global; the thread is passed through in an arg */
    if (has_ids) e->passthrough_utid = utid;
    spec.type = "legacy_chrome_global_instants";
    return model_track(ctx, &spec, track);
  }
  if (!has_ids) return 1;
  if (e->scope == 2) { /* process: the live process of the sequence's pid */
    e->passthrough_utid = utid;
    rc = model_process(ctx, p->machine, pid, &upid);
    spec.type = "chrome_process_instant";
    spec.upid = upid;
    return rc ? rc : model_track(ctx, &spec, track);
  }
  return model_thread_track(ctx, utid, track);
}

/* The event's `name` string interned (once per event). */
static int proto_event_intern_name(trace_context *ctx, proto_event *e, string_id *out) {
  if (!e->name_interned) {
    int rc = ctx_intern(ctx, (const char *)e->name.data, e->name.len, &e->name_id);
    if (rc) return rc;
    e->name_interned = 1;
  }
  *out = e->name_id;
  return WEFT_OK;
}

/* The event's name (for naming an unnamed descriptor track). */
static string_id proto_event_name(proto_parse_ctx *p, proto_event *e, int *rc) {
  proto_import_state *st = p->f->state;
  string_id name = STRING_NULL;
  *rc = WEFT_OK;
  if (e->has_name_iid && e->name_iid) /* an interned name wins */
    name = proto_interned(st, p->info->seq, p->info->generation, PROTO_INTERN_EVENT_NAME,
                          e->name_iid);
  else if (e->has_name)
    *rc = proto_event_intern_name(p->f->ctx, e, &name);
  return name;
}

/* What an event of `type` does on a track merged with its siblings. */
static track_compressor_event proto_compressor_event(uint64_t type) {
  if (type == PROTO_TRACK_EVENT_TYPE_SLICE_BEGIN) return TRACK_COMPRESSOR_BEGIN;
  if (type == PROTO_TRACK_EVENT_TYPE_SLICE_END) return TRACK_COMPRESSOR_END;
  return TRACK_COMPRESSOR_INSTANT;
}

/* Resolves the event's track; *is_counter tells a counter track. *track is
 * UINT32_MAX when the event's track cannot be resolved (counted; drop it). */
static int proto_event_track(proto_parse_ctx *p, proto_event *e, uint64_t type,
                             uint32_t *track, int *is_counter, proto_track_ref *ref_buf,
                             const proto_track_ref **out_ref, uint64_t *out_uuid) {
  proto_import_state *st = p->f->state;
  trace_context *ctx = p->f->ctx;
  uint64_t uuid = e->track_uuid;
  int has_uuid = e->has_track || proto_default_track_uuid(p->info, &uuid);
  int rc = proto_legacy_track(p, e, !has_uuid || uuid == 0, track);
  *is_counter = 0;
  *out_ref = NULL;
  *out_uuid = 0;
  if (rc <= 0) return rc;
  rc = WEFT_OK;
  if (has_uuid && uuid == 0) has_uuid = 0; /* explicit 0: the default track */
  const proto_seq *seq = &st->seqs.data[p->info->seq];
  if (!has_uuid && !e->has_track && seq->has_thread) {
    uint32_t utid;
    rc = model_thread_in_process(ctx, p->machine, seq->tid, seq->pid, &utid);
    return rc ? rc : model_thread_track(ctx, utid, track);
  }
  string_id name = has_uuid ? proto_event_name(p, e, &rc) : STRING_NULL;
  if (!rc)
    rc = proto_tracks_intern(p->f, &st->track_model, p->machine, has_uuid ? uuid : 0, name,
                             seq->id, proto_compressor_event(type), ref_buf);
  if (rc > 0) {
    *track = UINT32_MAX;
    return import_stat(p->f, stat_track_event_parser_errors, 1);
  }
  if (rc) return rc;
  *out_ref = ref_buf;
  *out_uuid = uuid;
  *track = ref_buf->track;
  *is_counter = ref_buf->is_counter;
  return WEFT_OK;
}

/* The args Perfetto adds for its legacy JSON export: the phase of a MARK
 * ('R') event, and the sequence's thread for an event on a track of that
 * thread's process or on a global descriptor track. */
static int proto_event_legacy_args(proto_parse_ctx *p, const proto_event *e,
                                   const proto_track_ref *ref, int ending) {
  static const char passthrough[] = "legacy_event.passthrough_utid";
  trace_context *ctx = p->f->ctx;
  proto_import_state *st = p->f->state;
  const proto_seq *seq = &st->seqs.data[p->info->seq];
  int rc = WEFT_OK;
  /* an ended slice keeps the thread its begin named */
  if (ending && model_args_pending_has(ctx, passthrough, sizeof passthrough - 1)) ref = NULL;
  if (ref && ref->utid < 0 && seq->has_thread && (ref->upid >= 0 || ref->uuid != 0)) {
    uint32_t utid;
    rc = model_thread_in_process(ctx, p->machine, seq->tid, seq->pid, &utid);
    if (!rc && (ref->upid < 0 || storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid,
                                                    utid, -1) == ref->upid))
      rc = model_arg_int(ctx, "legacy_event.passthrough_utid", 29, MODEL_ARG_UINT, utid);
  }
  if (!rc && e->passthrough_utid >= 0)
    rc = model_arg_int(ctx, "legacy_event.passthrough_utid", 29, MODEL_ARG_UINT,
                       e->passthrough_utid);
  if (!rc && e->has_phase && e->phase == 'R')
    rc = model_arg_string(ctx, "legacy_event.phase", 18, "R", 1, MODEL_ARG_STRING);
  return rc;
}

static int proto_event_args(proto_parse_ctx *p, proto_span msg, const proto_event *e,
                            const proto_track_ref *ref, int64_t *arg_set) {
  *arg_set = -1;
  int64_t utid = ref ? ref->utid : -1;
  int rc = e->has_args ? proto_args_track_event(p->f, p->info, msg, p->ts, utid) : WEFT_OK;
  if (!rc) rc = proto_event_legacy_args(p, e, ref, 0);
  if (rc) { model_args_discard(p->f->ctx); return rc; }
  return model_args_commit(p->f->ctx, arg_set);
}

/* The args of an end event join those of the slice it ends; a key the
 * slice has already takes the end event's value. */
static int proto_end_args(proto_parse_ctx *p, proto_span msg, const proto_event *e,
                          const proto_track_ref *ref, uint32_t slice) {
  trace_context *ctx = p->f->ctx;
  storage_table *st = ctx_table(ctx, TABLE_SLICE);
  int rc = model_args_reopen(ctx, storage_get_i64_or(st, SLICE_arg_set_id, slice, -1));
  size_t first = model_args_pending(ctx);
  int64_t utid = ref ? ref->utid : -1;
  if (!rc && e->has_args) rc = proto_args_track_event(p->f, p->info, msg, p->ts, utid);
  if (!rc) rc = proto_event_legacy_args(p, e, ref, 1);
  if (!rc) rc = model_args_merge_from(ctx, first);
  int64_t arg_set = -1;
  if (!rc) rc = model_args_commit(ctx, &arg_set);
  else model_args_discard(ctx);
  if (!rc) model_slice_set_args(ctx, slice, arg_set);
  return rc;
}

/* ---- legacy async events ---- */

/* The thread and process of an event by Perfetto's initial association:
 * those of its descriptor track, else (no track uuid) the sequence's thread
 * or the legacy pid/tid overrides; -1 when none. Returns 1 when its track
 * uuid does not resolve. */
static int proto_event_owner(proto_parse_ctx *p, const proto_event *e, int64_t *utid,
                             int64_t *upid) {
  proto_import_state *st = p->f->state;
  trace_context *ctx = p->f->ctx;
  const proto_seq *seq = &st->seqs.data[p->info->seq];
  uint64_t uuid = e->track_uuid;
  int has_uuid = e->has_track || proto_default_track_uuid(p->info, &uuid);
  *utid = *upid = -1;
  int rc = WEFT_OK;
  if (has_uuid && uuid != 0) {
    proto_track_ref ref;
    rc = proto_tracks_resolve(p->f, &st->track_model, p->machine, uuid, &ref);
    if (rc) return rc;
    *utid = ref.utid;
    *upid = ref.upid;
  } else if (e->has_pid_override || (seq->has_thread && (!e->has_track || !e->has_type))) {
    int64_t pid = e->has_pid_override ? e->pid_override : seq->pid;
    uint32_t u;
    if (e->has_tid_override || !e->has_pid_override)
      rc = model_thread_in_process(ctx, p->machine, e->has_tid_override ? e->tid_override
                                                                        : seq->tid, pid, &u);
    else
      rc = proto_override_thread(p, pid, &u);
    if (!rc) *utid = u;
  }
  if (!rc && *utid >= 0)
    *upid = storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, (size_t)*utid, -1);
  return rc;
}

/* The counters an event carries (proto_event_counters), written before its
 * track is interned, as Perfetto does, for the thread the event is
 * associated with (none for a legacy global or process-scoped instant). */
static int proto_event_counters_first(proto_parse_ctx *p, proto_span msg, const proto_event *e) {
  int64_t utid, upid;
  int rc = proto_event_owner(p, e, &utid, &upid);
  if (rc) return rc;
  if (e->has_phase && (e->phase == 'i' || e->phase == 'I') && (e->scope == 1 || e->scope == 2))
    utid = -1;
  return proto_event_counters(p->f, p->info, p->ts, msg, utid);
}

/* The args of an async event: its source id, the event's own args, the
 * thread it was emitted on (an ended slice keeps its begin's) and, for the
 * legacy phases S/T/p, the phase. `ended`: the slice an end event ends, whose
 * args these join (a key it has takes the new value), or -1. */
static int proto_async_args(proto_parse_ctx *p, proto_span msg, const proto_event *e,
                            int64_t source_id, int64_t utid, int64_t ended,
                            int64_t *arg_set) {
  static const char passthrough[] = "legacy_event.passthrough_utid";
  trace_context *ctx = p->f->ctx;
  int rc = ended >= 0 ? model_args_reopen(ctx, storage_get_i64_or(ctx_table(ctx, TABLE_SLICE),
                                                                  SLICE_arg_set_id,
                                                                  (size_t)ended, -1))
                      : WEFT_OK;
  size_t first = model_args_pending(ctx);
  if (!rc) rc = model_arg_int(ctx, "legacy_trace_source_id", 22, MODEL_ARG_INT, source_id);
  if (!rc && e->has_args) rc = proto_args_track_event(p->f, p->info, msg, p->ts, utid);
  if (!rc && utid >= 0 && !model_args_pending_has(ctx, passthrough, sizeof passthrough - 1))
    rc = model_arg_int(ctx, passthrough, sizeof passthrough - 1, MODEL_ARG_UINT, utid);
  char phase = (char)e->phase;
  if (!rc && (phase == 'S' || phase == 'T' || phase == 'p'))
    rc = model_arg_string(ctx, "legacy_event.phase", 18, &phase, 1, MODEL_ARG_STRING);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  if (ended >= 0) rc = model_args_merge_from(ctx, first);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, arg_set);
}

/* A TrackEvent with a legacy async phase, on its async track. */
static int proto_async_apply(proto_parse_ctx *p, proto_span msg, proto_event *e) {
  proto_import_state *st = p->f->state;
  trace_context *ctx = p->f->ctx;
  proto_async_event a = {p->machine, e->phase, PROTO_ASYNC_NO_ID, 0, e->has_id_scope,
                         e->id_scope, -1, STRING_NULL, STRING_NULL};
  int64_t utid;
  int rc = proto_event_owner(p, e, &utid, &a.upid);
  if (rc) return rc > 0 ? import_stat(p->f, stat_track_event_parser_errors, 1) : rc;
  if (e->has_unscoped_id) a.id_kind = PROTO_ASYNC_UNSCOPED, a.id = e->unscoped_id;
  else if (e->has_global_id) a.id_kind = PROTO_ASYNC_GLOBAL, a.id = e->global_id;
  else if (e->has_local_id) a.id_kind = PROTO_ASYNC_LOCAL, a.id = e->local_id;
  a.name = proto_event_name(p, e, &rc);
  if (!rc && e->categories->len)
    rc = ctx_intern(ctx, e->categories->data, e->categories->len, &a.category);
  uint32_t track, slice;
  int64_t source_id = 0, args = -1, ended;
  if (!rc && e->has_counters) rc = proto_event_counters(p->f, p->info, p->ts, msg, utid);
  if (!rc) rc = proto_async_track(p->f, &st->track_model.async, &a, &track, &source_id);
  if (rc > 0) return import_stat(p->f, stat_track_event_parser_errors, 1);
  if (rc) return rc;
  if (e->phase == 'e' || e->phase == 'F') {
    rc = model_slice_end(ctx, track, p->ts, &ended);
    if (rc || ended < 0) return rc;
    slice = (uint32_t)ended;
    rc = proto_async_args(p, msg, e, source_id, utid, ended, &args);
    if (!rc) model_slice_set_args(ctx, slice, args);
    return rc ? rc : proto_flow_bind(p->f, p->machine, msg, &e->flow, slice);
  }
  rc = proto_async_args(p, msg, e, source_id, utid, -1, &args);
  if (rc) return rc;
  if (e->phase == 'b' || e->phase == 'S')
    rc = model_slice_begin(ctx, track, p->ts, a.category, a.name, args, &slice);
  else
    rc = model_slice_complete(ctx, track, p->ts, 0, a.category, a.name, args, &slice);
  if (rc || e->phase == 'T' || e->phase == 'p') return rc;
  return proto_flow_bind(p->f, p->machine, msg, &e->flow, slice);
}

static int proto_event_apply(proto_parse_ctx *p, proto_span msg, proto_event *e) {
  proto_import_state *st = p->f->state;
  trace_context *ctx = p->f->ctx;
  uint32_t track, slice;
  int is_counter;
  proto_track_ref ref_buf;
  const proto_track_ref *ref = NULL;
  uint64_t uuid = 0;
  proto_event_categories(p, msg, e);
  if (e->has_phase && proto_async_phase(e->phase)) return proto_async_apply(p, msg, e);
  uint64_t type = e->has_type ? e->type
                 : e->has_phase ? proto_legacy_type(e->phase)
                                : PROTO_TRACK_EVENT_TYPE_UNSPECIFIED;
  int rc = e->has_counters ? proto_event_counters_first(p, msg, e) : WEFT_OK;
  if (rc > 0) return import_stat(p->f, stat_track_event_parser_errors, 1);
  if (!rc) rc = proto_event_track(p, e, type, &track, &is_counter, &ref_buf, &ref, &uuid);
  if (rc || track == UINT32_MAX) return rc;
  if (type == PROTO_TRACK_EVENT_TYPE_COUNTER) {
    if (!is_counter) return WEFT_OK;
    double v = e->has_dbl_counter ? e->dbl_counter : (double)e->int_counter;
    if (!e->has_dbl_counter && !e->has_int_counter) return WEFT_OK;
    if (ref) rc = proto_counter_absolute(st, p->info, ref, uuid, &v);
    int64_t args = -1;
    if (!rc) rc = proto_event_args(p, msg, e, ref, &args);
    return rc ? rc : model_counter(ctx, track, p->ts, v, args);
  }
  if (type == PROTO_TRACK_EVENT_TYPE_STATE) {
    if (!ref || !ref->is_state) return import_stat(p->f, stat_track_event_parser_errors, 1);
    string_id value = proto_event_name(p, e, &rc), cat = STRING_NULL;
    int64_t args = -1;
    if (!rc && e->categories->len)
      rc = ctx_intern(ctx, e->categories->data, e->categories->len, &cat);
    if (!rc) rc = proto_event_args(p, msg, e, ref, &args);
    return rc ? rc : proto_state_push(ctx, &st->misc, track, p->ts, cat, value, args, -1);
  }
  if (type == PROTO_TRACK_EVENT_TYPE_SLICE_END) {
    /* Ends the innermost open slice of the event's categories (not, say,
     * an atrace slice open inside it). */
    int64_t ended;
    string_id category = STRING_NULL;
    if (e->categories->len)
      rc = ctx_intern(ctx, e->categories->data, e->categories->len, &category);
    if (!rc) rc = slice_stack_end_matching(ctx, track, p->ts, category, STRING_NULL, &ended);
    if (rc || ended < 0) return rc;
    if (e->has_args || (ref && ref->utid < 0 && (ref->upid >= 0 || ref->uuid != 0)))
      rc = proto_end_args(p, msg, e, ref, (uint32_t)ended);
    if (!rc)
      rc = proto_event_callstack_apply(p->f, p->info, &e->callstack, (uint32_t)ended, track, 1);
    return rc ? rc : proto_flow_bind(p->f, p->machine, msg, &e->flow, (uint32_t)ended);
  }
  int legacy = !e->has_type && proto_legacy_has_phase(&e->flow);
  if (type != PROTO_TRACK_EVENT_TYPE_SLICE_BEGIN && type != PROTO_TRACK_EVENT_TYPE_INSTANT &&
      !legacy)
    return WEFT_OK;
  string_id name = proto_event_name(p, e, &rc), cat = STRING_NULL;
  if (!rc && e->categories->len)
    rc = ctx_intern(ctx, e->categories->data, e->categories->len, &cat);
  if (!rc && legacy && proto_legacy_raw_phase(e->phase))
    return proto_legacy_raw_apply(p->f, p->info, p->ts,
                                  storage_get_i64_or(ctx_table(ctx, TABLE_TRACK), TRACK_utid,
                                                     track, -1),
                                  cat, name, msg, e->flow.legacy);
  int64_t args = -1;
  if (!rc) rc = proto_event_args(p, msg, e, ref, &args);
  if (rc) return rc;
  if (legacy)
    return proto_legacy_apply(p->f, p->machine, msg, &e->flow, track, p->ts, cat, name, args);
  if (type == PROTO_TRACK_EVENT_TYPE_SLICE_BEGIN)
    rc = model_slice_begin(ctx, track, p->ts, cat, name, args, &slice);
  else
    rc = model_slice_complete(ctx, track, p->ts, 0, cat, name, args, &slice);
  if (!rc) rc = proto_event_callstack_apply(p->f, p->info, &e->callstack, slice, track, 0);
  return rc ? rc : proto_flow_bind(p->f, p->machine, msg, &e->flow, slice);
}

/* A TrackEvent; `read`: its fields decoded ahead (proto_prepare), or NULL. */
static int proto_track_event(proto_parse_ctx *p, proto_span msg, proto_event *read) {
  const proto_misc_state *misc = &((proto_import_state *)p->f->state)->misc;
  if (misc->has_roi && p->ts < misc->roi_start_ns) return WEFT_OK; /* cropped */
  proto_event e;
  if (!read) {
    memset(&e, 0, sizeof e);
    proto_event_read(msg, &e);
    read = &e;
  }
  return proto_event_apply(p, msg, read);
}

/* ---- dispatch ---- */

/* The packet a payload refers to (a side record, or *tmp filled from its
 * reference); NULL if it does not resolve. */
static const proto_packet_info *proto_packet_of(const proto_import_state *st, uint64_t payload,
                                                proto_packet_info *tmp) {
  if (payload & PROTO_REF_SIDE) {
    uint64_t index = payload & ~PROTO_REF_SIDE;
    return index < st->packets.len ? &st->packets.data[index] : NULL;
  }
  const proto_ref_ctx *c;
  if (!proto_ref_resolve(&st->refs, payload, &tmp->data, &c, &tmp->buffer)) return NULL;
  tmp->defaults = c->defaults;
  tmp->seq = c->seq;
  tmp->generation = c->generation;
  tmp->machine = c->machine;
  return tmp;
}

/* What proto_import_prepare decodes of a packet ahead of its parse. */
typedef struct proto_prepared_packet {
  proto_packet_info info; /* the packet, resolved */
  int sole_event;         /* its only message field is a TrackEvent: */
  proto_span msg;         /* that TrackEvent, */
  proto_event event;      /* decoded */
} proto_prepared_packet;

/* 1 with *msg when the packet's only message field (as far as it reads) is
 * a TrackEvent: applying the packet is then applying that event. */
static int proto_sole_track_event(proto_span pkt, proto_span *msg) {
  proto_reader r;
  proto_field fl;
  int found = 0;
  proto_reader_init_span(&r, pkt);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (found || fl.number != PROTO_TRACE_PACKET_TRACK_EVENT) return 0;
    *msg = fl.span;
    found = 1;
  }
  return found;
}

void proto_import_locate_rule(const import_file *f, sort_locate_rule *rule) {
  const proto_import_state *st = f->state;
  if (!st) return;
  proto_ref_locate_rule(&st->refs, rule);
  rule->warm[1] = &st->refs;
}

size_t proto_import_prepare(const import_file *f, const sort_event *event, void *out) {
  _Static_assert(sizeof(proto_prepared_packet) <= IMPORT_PREPARED_MAX, "fits a prepared slot");
  const proto_import_state *st = f->state;
  if (!st) return 0;
  if (event->payload & PROTO_REF_FTRACE) return proto_ftrace_prepare(f, event, out);
  proto_prepared_packet *pp = out;
  const proto_packet_info *info = proto_packet_of(st, event->payload, &pp->info);
  if (!info) return 0;
  if (info != &pp->info) pp->info = *info;
  pp->sole_event = proto_sole_track_event(info->data, &pp->msg);
  if (pp->sole_event) {
    memset(&pp->event, 0, sizeof pp->event);
    proto_event_read(pp->msg, &pp->event);
  }
  return sizeof *pp;
}

static int proto_packet_apply(import_file *f, const proto_packet_info *info, int64_t ts,
                              proto_prepared_packet *prepared, base_error *err);

int proto_import_parse(import_file *f, const sort_event *event, void *prepared,
                       base_error *err) {
  proto_import_state *st = f->state;
  if (st && (event->payload & PROTO_REF_FTRACE))
    return proto_ftrace_parse(f, event, prepared, err);
  proto_prepared_packet *pp = prepared;
  proto_packet_info resolved;
  const proto_packet_info *info = pp   ? &pp->info
                                  : st ? proto_packet_of(st, event->payload, &resolved)
                                       : NULL;
  if (!info) return WEFT_OK;
  int rc = proto_packet_apply(f, info, event->ts, pp, err);
  proto_input_release(f, info->buffer, info->data);
  return rc;
}

static int proto_packet_apply(import_file *f, const proto_packet_info *info, int64_t ts,
                              proto_prepared_packet *prepared, base_error *err) {
  proto_parse_ctx p = {f, info, info->machine, ts};
  if (prepared && prepared->sole_event) {
    int rc = proto_track_event(&p, prepared->msg, &prepared->event);
    return rc ? base_error_set(err, rc, "proto: failed to apply packet") : WEFT_OK;
  }
  proto_field fl;
  proto_reader r;
  proto_reader_init_span(&r, p.info->data);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    int rc = WEFT_OK;
    switch (fl.number) {
      case PROTO_TRACE_PACKET_PROCESS_TREE:
        rc = proto_process_tree_parse(f, p.machine, p.ts, info->data, info->defaults, fl.span);
        break;
      case PROTO_TRACE_PACKET_TRACK_DESCRIPTOR: rc = proto_track_descriptor(&p, fl.span); break;
      case PROTO_TRACE_PACKET_THREAD_DESCRIPTOR: rc = proto_thread_descriptor(&p, fl.span); break;
      case PROTO_TRACE_PACKET_PROCESS_DESCRIPTOR: rc = proto_process_descriptor(&p, fl.span); break;
      case PROTO_TRACE_PACKET_TRACK_EVENT: rc = proto_track_event(&p, fl.span, NULL); break;
      case PROTO_TRACE_PACKET_BATTERY:
      case PROTO_TRACE_PACKET_POWER_RAILS:
      case PROTO_TRACE_PACKET_ENERGY_ESTIMATION_BREAKDOWN:
        rc = proto_power_parse(f, &((proto_import_state *)f->state)->power, p.machine, p.ts,
                               info->data, &fl);
        break;
      case PROTO_TRACE_PACKET_HEAP_GRAPH: {
        proto_import_state *st = f->state;
        rc = proto_heap_graph_parse(f, &st->heap_graph, p.machine, st->seqs.data[info->seq].id,
                                    p.ts, &fl);
        break;
      }
      case PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING: { /* classes and fields; frames */
        proto_import_state *st = f->state;
        rc = proto_heap_graph_parse(f, &st->heap_graph, p.machine, st->seqs.data[info->seq].id,
                                    p.ts, &fl);
        if (!rc) rc = proto_profile_parse(f, info, p.ts, &fl);
        break;
      }
      case PROTO_TRACE_PACKET_PROFILE_PACKET:
      case PROTO_TRACE_PACKET_PERF_SAMPLE:
      case PROTO_TRACE_PACKET_STREAMING_PROFILE_PACKET:
        rc = proto_profile_parse(f, info, p.ts, &fl);
        break;
      case PROTO_TRACE_PACKET_ANDROID_LOG:
      case PROTO_TRACE_PACKET_PACKAGES_LIST:
      case PROTO_TRACE_PACKET_JOURNALD_EVENT:
      case PROTO_TRACE_PACKET_ANDROID_SYSTEM_PROPERTY:
      case PROTO_TRACE_PACKET_CPU_PER_UID_DATA:
        rc = proto_android_parse(f, &((proto_import_state *)f->state)->android, p.machine, p.ts,
                                 &fl);
        break;
      default:
        rc = proto_gpu_wants_field(fl.number)
                 ? proto_gpu_parse(f, &((proto_import_state *)f->state)->gpu, info, p.ts, &fl)
                 : proto_misc_parse(f, p.machine, p.ts, &fl);
        break;
    }
    if (rc) return base_error_set(err, rc, "proto: failed to apply packet");
  }
  return WEFT_OK;
}
