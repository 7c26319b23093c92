/* TrackEvents onto the model. See proto_track_event.h. */
#include "import/proto/proto_track_event.h"

#include <stdio.h>

#include "import/proto/proto_android_fw.h"
#include "import/proto/proto_args.h"
#include "import/proto/proto_event_counters.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_legacy_async.h"
#include "import/proto/proto_legacy_raw.h"
#include "import/proto/proto_process_tree.h"
#include "import/proto/proto_translation.h"
#include "model/columns.h"
#include "model/proto_content.h"
#include "model/slice_stack.h"

#define PROTO_MAX_CATEGORIES_BYTES 4096




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
      case PROTO_LEGACY_EVENT_THREAD_DURATION_US:
        if ((int64_t)fl.value >= 0 && (int64_t)fl.value < INT64_MAX / 1000)
          e->times.dur = (int64_t)fl.value * 1000, e->times.has_dur = 1;
        break;
      case PROTO_LEGACY_EVENT_THREAD_INSTRUCTION_DELTA:
        e->times.instruction_delta = (int64_t)fl.value, e->times.has_instruction_delta = 1;
        break;
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
void proto_event_read(proto_span msg, proto_event *e) {
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
      case PROTO_TRACK_EVENT_CHROME_ACTIVE_PROCESSES:
        if (len) e->active_processes = fl.span, e->has_active_processes = 1;
        e->has_args = 1;
        break;
      case PROTO_TRACK_EVENT_CALLSTACK: case PROTO_TRACK_EVENT_CALLSTACK_IID:
      case PROTO_TRACK_EVENT_CALLSTACK_WEIGHT:
        proto_event_callstack_field(&fl, &e->callstack);
        break;
      case PROTO_TRACK_EVENT_PROCESS_START_EVENT: case PROTO_TRACK_EVENT_BINDER_DIED_EVENT:
        if (len) e->fw_event = fl.span, e->fw_field = fl.number;
        if (proto_args_field(fl.number)) e->has_args = 1;
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

/* The (pid, tid) legacy events on this sequence belong to: the sequence's
 * ThreadDescriptor, else the thread of its default track's descriptor. */
static int proto_sequence_ids(proto_parse_ctx *p, int64_t *pid, int64_t *tid) {
  proto_import_state *st = p->f->state;
  if (proto_seq_thread(st, p->info->seq, p->info->generation, pid, tid)) return 1;
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
/* The track of a legacy instant scoped global (upid -1) or to process
 * `upid`; `utid` (or -1) is the thread it was emitted on, passed through. */
static int proto_scoped_instant_track(proto_parse_ctx *p, proto_event *e, int64_t upid,
                                      int64_t utid, uint32_t *track) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.machine = p->machine;
  spec.source = "chrome";
  spec.type = upid < 0 ? "legacy_chrome_global_instants" : "chrome_process_instant";
  if (upid >= 0) spec.upid = (uint32_t)upid;
  e->passthrough_utid = utid;
  e->scoped_instant = 1;
  return model_track(p->f->ctx, &spec, track);
}

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
  int has_ids = proto_sequence_ids(p, &pid, &tid);
  int rc = has_ids ? model_thread_in_process(ctx, p->machine, tid, pid, &utid) : WEFT_OK;
  if (rc) return rc;
  if (e->scope == 1) /* global; the thread is passed through in an arg */
    return proto_scoped_instant_track(p, e, -1, has_ids ? (int64_t)utid : -1, track);
  if (!has_ids) return 1;
  if (e->scope == 2) { /* process: the live process of the sequence's pid */
    rc = model_process(ctx, p->machine, pid, &upid);
    return rc ? rc : proto_scoped_instant_track(p, e, upid, utid, track);
  }
  return model_thread_track(ctx, utid, track);
}

/* Whether a state event's track (a uuid other than 0, its own or the
 * sequence's default) is a described state track; otherwise the event is
 * an error and makes no track. */
static int proto_state_event_has_track(proto_parse_ctx *p, const proto_event *e) {
  proto_import_state *st = p->f->state;
  uint64_t uuid = e->track_uuid;
  if (!(e->has_track || proto_default_track_uuid(p->info, &uuid)) || uuid == 0) return 0;
  const proto_track_resv *r = proto_tracks_find(&st->track_model, p->machine, uuid);
  return r && r->is_state;
}

/* Legacy phases on a track a uuid (or the default track) gave, by
 * Perfetto's rules: an instant scoped global or process moves to the
 * global instants track or its process's instant track, with the thread
 * passed through; B, E, X and thread-scoped instants need a thread track.
 * Returns 1 to drop the event (counted in track_event_parser_errors). */
static int proto_legacy_on_track(proto_parse_ctx *p, proto_event *e, uint32_t *track) {
  trace_context *ctx = p->f->ctx;
  int64_t utid = storage_get_i64_or(ctx_table(ctx, TABLE_TRACK), TRACK_utid, *track, -1);
  int64_t upid = utid >= 0 ? storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid,
                                                (size_t)utid, -1)
                           : storage_get_i64_or(ctx_table(ctx, TABLE_TRACK), TRACK_upid,
                                                *track, -1);
  int instant = e->phase == 'i' || e->phase == 'I';
  if (instant && e->scope == 1) return proto_scoped_instant_track(p, e, -1, utid, track);
  if (instant && e->scope == 2)
    return upid < 0 ? 1 : proto_scoped_instant_track(p, e, upid, utid, track);
  if (instant || e->phase == 'B' || e->phase == 'E' || e->phase == 'X') return utid < 0;
  return WEFT_OK;
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
  string_id translated = proto_translate(st->translation, PROTO_TRANSLATE_SLICE_NAME, name);
  return translated != STRING_NULL ? translated : name;
}

/* Notes the event's proto content annotations (model/proto_content.h):
 * its joined categories and its untranslated name, if it has a type or a
 * legacy phase. */
static int proto_event_annotate(proto_parse_ctx *p, proto_event *e) {
  trace_context *ctx = p->f->ctx;
  string_id cat = STRING_NULL, name = STRING_NULL;
  int rc = WEFT_OK;
  if (!(e->has_type && e->type) && !e->has_phase) return WEFT_OK;
  if (e->categories->len) rc = ctx_intern(ctx, e->categories->data, e->categories->len, &cat);
  if (e->has_name_iid && e->name_iid)
    name = proto_interned(p->f->state, p->info->seq, p->info->generation,
                          PROTO_INTERN_EVENT_NAME, e->name_iid);
  else if (!rc && e->has_name)
    rc = proto_event_intern_name(ctx, e, &name);
  return rc ? rc : proto_content_annotate(ctx, cat, name);
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
  int64_t seq_pid, seq_tid;
  if (!has_uuid && !e->has_track &&
      proto_seq_thread(st, p->info->seq, p->info->generation, &seq_pid, &seq_tid)) {
    uint32_t utid;
    rc = model_thread_in_process(ctx, p->machine, seq_tid, seq_pid, &utid);
    return rc ? rc : model_thread_track(ctx, utid, track);
  }
  string_id name = has_uuid ? proto_event_name(p, e, &rc) : STRING_NULL;
  if (!rc)
    rc = proto_tracks_intern(p->f, &st->track_model, p->machine, has_uuid ? uuid : 0, name,
                             st->seqs.data[p->info->seq].id, proto_compressor_event(type), ref_buf);
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
  int64_t seq_pid, seq_tid;
  int rc = WEFT_OK;
  /* an ended slice keeps the thread its begin named */
  if (ending && model_args_pending_has(ctx, passthrough, sizeof passthrough - 1)) ref = NULL;
  if (ref && !e->scoped_instant && ref->utid < 0 && (ref->upid >= 0 || ref->uuid != 0) &&
      proto_seq_thread(st, p->info->seq, p->info->generation, &seq_pid, &seq_tid)) {
    uint32_t utid;
    rc = model_thread_in_process(ctx, p->machine, seq_tid, seq_pid, &utid);
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
  int64_t seq_pid = 0, seq_tid = 0;
  int seq_has = proto_seq_thread(st, p->info->seq, p->info->generation, &seq_pid, &seq_tid);
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
  } else if (e->has_pid_override || (seq_has && (!e->has_track || !e->has_type))) {
    int64_t pid = e->has_pid_override ? e->pid_override : seq_pid;
    uint32_t u;
    if (e->has_tid_override || !e->has_pid_override)
      rc = model_thread_in_process(ctx, p->machine, e->has_tid_override ? e->tid_override
                                                                        : seq_tid, pid, &u);
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
static int proto_event_counters_first(proto_parse_ctx *p, proto_span msg, proto_event *e) {
  int64_t utid, upid;
  int rc = proto_event_owner(p, e, &utid, &upid);
  if (rc) return rc;
  if (e->has_phase && (e->phase == 'i' || e->phase == 'I') && (e->scope == 1 || e->scope == 2))
    utid = -1;
  return proto_event_counters(p->f, p->info, p->ts, msg, utid, &e->times);
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

/* The descriptor track an async event names (its track_uuid, or its
 * sequence's default), interned before the event moves to its async
 * track as Perfetto resolves every event's track first. */
static int proto_async_named_track(proto_parse_ctx *p, proto_event *e) {
  proto_import_state *st = p->f->state;
  uint64_t uuid = e->track_uuid;
  if (!e->has_track && !proto_default_track_uuid(p->info, &uuid)) return WEFT_OK;
  if (uuid == 0) return WEFT_OK;
  proto_track_ref ref;
  int rc = WEFT_OK;
  string_id name = proto_event_name(p, e, &rc);
  if (!rc)
    rc = proto_tracks_intern(p->f, &st->track_model, p->machine, uuid, name,
                             st->seqs.data[p->info->seq].id,
                             proto_compressor_event(proto_legacy_type(e->phase)), &ref);
  return rc > 0 ? WEFT_OK : rc; /* an unknown uuid: the async track still takes it */
}

/* A TrackEvent with a legacy async phase, on its async track. */
static int proto_async_apply(proto_parse_ctx *p, proto_span msg, proto_event *e) {
  proto_import_state *st = p->f->state;
  trace_context *ctx = p->f->ctx;
  proto_async_event a = {p->machine, e->phase, PROTO_ASYNC_NO_ID, 0, e->has_id_scope,
                         e->id_scope, -1, STRING_NULL, STRING_NULL};
  int64_t utid;
  int rc = proto_async_named_track(p, e);
  if (rc) return rc;
  rc = proto_event_owner(p, e, &utid, &a.upid);
  if (rc) return rc > 0 ? import_stat(p->f, stat_track_event_parser_errors, 1) : rc;
  if (e->has_unscoped_id) a.id_kind = PROTO_ASYNC_UNSCOPED, a.id = e->unscoped_id;
  else if (e->has_global_id) a.id_kind = PROTO_ASYNC_GLOBAL, a.id = e->global_id;
  else if (e->has_local_id) a.id_kind = PROTO_ASYNC_LOCAL, a.id = e->local_id;
  a.name = proto_event_name(p, e, &rc);
  if (!rc && e->categories->len)
    rc = ctx_intern(ctx, e->categories->data, e->categories->len, &a.category);
  uint32_t track, slice;
  int64_t source_id = 0, args = -1, ended;
  if (!rc && e->has_counters)
    rc = proto_event_counters(p->f, p->info, p->ts, msg, utid, &e->times);
  if (rc == PROTO_COUNTERS_DROP_EVENT) return WEFT_OK;
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

/* ChromeActiveProcesses: each pid's process (with its main thread) exists. */
static int proto_active_processes(proto_parse_ctx *p, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_CHROME_ACTIVE_PROCESSES_PID) continue;
    proto_packed_iter it;
    proto_span one = {NULL, 0};
    proto_packed_init(&it, fl.wire_type == PROTO_WIRE_LEN ? fl.span : one);
    int single = fl.wire_type == PROTO_WIRE_VARINT;
    uint64_t v = fl.value;
    uint32_t upid;
    while (!rc && (single ? (single = 0, 1) : proto_packed_next_varint(&it, &v) == 1))
      rc = proto_process_get(p->f->ctx, p->machine, (int32_t)v, &upid);
  }
  return rc;
}

/* A legacy event of a raw phase (proto_legacy_raw.h): a chrome_raw row of
 * the thread it was emitted on; no track is made for it. */
static int proto_event_raw(proto_parse_ctx *p, proto_span msg, proto_event *e) {
  int64_t utid, upid;
  int rc = proto_event_owner(p, e, &utid, &upid);
  if (rc) return rc > 0 ? import_stat(p->f, stat_track_event_parser_errors, 1) : rc;
  string_id name = proto_event_name(p, e, &rc), cat = STRING_NULL;
  if (!rc && e->categories->len)
    rc = ctx_intern(p->f->ctx, e->categories->data, e->categories->len, &cat);
  return rc ? rc : proto_legacy_raw_apply(p->f, p->info, p->ts, utid, cat, name, msg,
                                          e->flow.legacy, &e->times);
}

static int proto_event_apply(proto_parse_ctx *p, proto_span msg, proto_event *e) {
  proto_import_state *st = p->f->state;
  trace_context *ctx = p->f->ctx;
  uint32_t track, slice;
  int is_counter;
  proto_track_ref ref_buf;
  const proto_track_ref *ref = NULL;
  uint64_t uuid = 0;
  int rc;
  proto_event_categories(p, msg, e);
  if ((rc = proto_event_annotate(p, e)) != 0) return rc;
  if (e->fw_field && (rc = proto_android_fw_event(p->f, &st->android_fw, p->machine, p->ts,
                                                  e->fw_field, e->fw_event)) != 0)
    return rc;
  if (e->has_phase && e->phase == 'P' && (rc = proto_v8_profile(p, msg, e)) != 0) return rc;
  if (e->has_phase && proto_async_phase(e->phase)) return proto_async_apply(p, msg, e);
  uint64_t type = e->has_type ? e->type
                 : e->has_phase ? proto_legacy_type(e->phase)
                                : PROTO_TRACK_EVENT_TYPE_UNSPECIFIED;
  rc = e->has_counters ? proto_event_counters_first(p, msg, e) : WEFT_OK;
  if (rc == PROTO_COUNTERS_DROP_EVENT) return WEFT_OK;
  if (rc > 0) return import_stat(p->f, stat_track_event_parser_errors, 1);
  int legacy = !e->has_type && proto_legacy_has_phase(&e->flow);
  if (!rc && legacy && proto_legacy_raw_phase(e->phase)) return proto_event_raw(p, msg, e);
  if (!rc && e->has_phase && (e->phase == 's' || e->phase == 't' || e->phase == 'f')) {
    rc = proto_legacy_flow_v1_reject(p->f, p->machine, &e->flow);
    if (rc) return rc > 0 ? WEFT_OK : rc;
  }
  if (!rc && legacy && e->phase == 'X') {
    rc = proto_legacy_negative_complete_reject(p->f, &e->flow);
    if (rc) return rc > 0 ? WEFT_OK : rc;
  }
  if (!rc && type == PROTO_TRACK_EVENT_TYPE_STATE && !proto_state_event_has_track(p, e)) {
    int64_t utid, upid; /* its threads are made, no track */
    if ((rc = proto_event_owner(p, e, &utid, &upid)) < 0) return rc;
    return import_stat(p->f, stat_track_event_parser_errors, 1);
  }
  if (!rc) rc = proto_event_track(p, e, type, &track, &is_counter, &ref_buf, &ref, &uuid);
  if (rc || track == UINT32_MAX) return rc;
  if (e->has_active_processes && (rc = proto_active_processes(p, e->active_processes)) != 0)
    return rc;
  if (legacy && ref && (rc = proto_legacy_on_track(p, e, &track)) != 0)
    return rc > 0 ? import_stat(p->f, stat_track_event_parser_errors, 1) : rc;
  /* slices of thread tracks take the thread time the event gives */
  int thread = storage_get_i64_or(ctx_table(ctx, TABLE_TRACK), TRACK_utid, track, -1) >= 0;
  if (type == PROTO_TRACK_EVENT_TYPE_COUNTER) {
    if (!is_counter) return WEFT_OK;
    double v = e->has_dbl_counter ? e->dbl_counter : (double)e->int_counter;
    if (!e->has_dbl_counter && !e->has_int_counter) return WEFT_OK;
    if (ref)
      rc = proto_counter_absolute(st, p->info, ref, uuid, msg, PROTO_COUNTER_OWN_VALUE, &v);
    int64_t args = -1;
    if (!rc) rc = proto_event_args(p, msg, e, ref, &args);
    return rc ? rc : model_counter(ctx, track, p->ts, v, args);
  }
  if (type == PROTO_TRACK_EVENT_TYPE_STATE) {
    if (!ref || !ref->is_state) return import_stat(p->f, stat_track_event_parser_errors, 1);
    string_id value = proto_event_name(p, e, &rc), cat = STRING_NULL;
    if (!rc && value == STRING_NULL) { /* no value: the state ends */
      model_state_close(ctx, &st->misc.last_state, track, p->ts);
      return WEFT_OK;
    }
    int64_t args = -1;
    if (!rc && e->categories->len)
      rc = ctx_intern(ctx, e->categories->data, e->categories->len, &cat);
    if (!rc) rc = proto_event_args(p, msg, e, ref, &args);
    return rc ? rc : proto_state_push(ctx, &st->misc, track, p->ts, cat, value, args, -1);
  }
  if (type == PROTO_TRACK_EVENT_TYPE_SLICE_END) {
    /* Ends the innermost open slice of the event's categories and name,
     * when it has them (not, say, an atrace slice open inside it); slices
     * open above that one are cut at its end by the next event. */
    int64_t ended;
    string_id category = STRING_NULL, name = proto_event_name(p, e, &rc);
    if (!rc && e->categories->len)
      rc = ctx_intern(ctx, e->categories->data, e->categories->len, &category);
    if (!rc) rc = slice_stack_end_matching(ctx, track, p->ts, category, name, &ended);
    if (rc || ended < 0) return rc;
    if (thread) proto_thread_times_apply(ctx, &e->times, (uint32_t)ended, 'E');
    if (e->has_args || (ref && ref->utid < 0 && (ref->upid >= 0 || ref->uuid != 0)))
      rc = proto_end_args(p, msg, e, ref, (uint32_t)ended);
    if (!rc)
      rc = proto_event_callstack_apply(p->f, p->info, &e->callstack, (uint32_t)ended, track, 1);
    return rc ? rc : proto_flow_bind(p->f, p->machine, msg, &e->flow, (uint32_t)ended);
  }
  if (type != PROTO_TRACK_EVENT_TYPE_SLICE_BEGIN && type != PROTO_TRACK_EVENT_TYPE_INSTANT &&
      !legacy)
    return WEFT_OK;
  string_id name = proto_event_name(p, e, &rc), cat = STRING_NULL;
  if (!rc && e->categories->len)
    rc = ctx_intern(ctx, e->categories->data, e->categories->len, &cat);
  int64_t args = -1;
  if (!rc) rc = proto_event_args(p, msg, e, ref, &args);
  if (rc) return rc;
  if (legacy)
    return proto_legacy_apply(p->f, p->machine, msg, &e->flow, track, p->ts, cat, name, args,
                              thread ? &e->times : NULL);
  int begin = type == PROTO_TRACK_EVENT_TYPE_SLICE_BEGIN;
  if (begin) rc = model_slice_begin(ctx, track, p->ts, cat, name, args, &slice);
  else rc = model_slice_complete(ctx, track, p->ts, 0, cat, name, args, &slice);
  if (!rc && thread) proto_thread_times_apply(ctx, &e->times, slice, begin ? 'B' : 'i');
  if (!rc) rc = proto_event_callstack_apply(p->f, p->info, &e->callstack, slice, track, 0);
  return rc ? rc : proto_flow_bind(p->f, p->machine, msg, &e->flow, slice);
}

/* A TrackEvent; `read`: its fields decoded ahead (proto_prepare), or NULL. */
int proto_track_event(proto_parse_ctx *p, proto_span msg, proto_event *read) {
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
