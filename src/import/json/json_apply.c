/* Applying decoded Chrome JSON events to the model, phase by phase:
 * B E X (thread slices), i I R (instants), b e n (async), C (counters),
 * s t f (flow v1), M (process/thread names and sort hints), T (thread
 * states and sched slices, model/sched.h). */
#include <stdio.h>

#include "import/json/json_internal.h"
#include "model/import_log.h"
#include "model/model.h"
#include "model/sched.h"
#include "model/slice_stack.h"
#include "model/v8_profile.h"
#include "model/stack_profile.h"

#define JSON_MAX_OVERFLOW_TRACKS 64

/* ---- strings, processes, threads ---- */

/* Interns a JSON string; absent and empty strings are NULL (Perfetto's
 * string pool has no separate empty string). */
static int json_intern(import_file *f, const json_str *s, string_id *out) {
  if (!s->ptr || s->len == 0) {
    *out = STRING_NULL;
    return WEFT_OK;
  }
  return ctx_intern(f->ctx, s->ptr, s->len, out);
}

/* A json_parser_failure: counted, and logged in _trace_import_logs at the
 * event's time with its name and phase as args, as Perfetto logs it. */
/* Pends the event's name and phase, the args of its import logs. */
static int json_event_log_args(import_file *f, const json_event *e) {
  trace_context *ctx = f->ctx;
  char ph = e->ph;
  string_id name, phase, name_key, phase_key;
  int rc = json_intern(f, &e->name, &name);
  if (!rc) rc = ctx_intern(ctx, &ph, 1, &phase);
  if (!rc) rc = ctx_intern(ctx, "event_name", 10, &name_key);
  if (!rc) rc = ctx_intern(ctx, "event_phase", 11, &phase_key);
  if (!rc) rc = model_arg_string_id(ctx, name_key, name, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_string_id(ctx, phase_key, phase, MODEL_ARG_STRING);
  return rc;
}

/* Logs `stat` in _trace_import_logs at ts with the pending args. */
static int json_log(import_file *f, int rc, int64_t ts, stats_id stat) {
  int64_t arg_set = -1;
  if (!rc) rc = model_args_commit(f->ctx, &arg_set);
  else model_args_discard(f->ctx);
  return rc ? rc : model_import_log(f->ctx, f->trace_id, ts, stat, arg_set);
}

static int json_fail(import_file *f, const json_event *e, int64_t ts) {
  int rc = json_log(f, json_event_log_args(f, e), ts, stat_json_parser_failure);
  return rc ? rc : import_stat(f, stat_json_parser_failure, 1);
}

/* The process and its main thread (tid = pid), as JSON processes get.
 * In a load of JSON files only, pid 0 is not the machine's idle process:
 * its first use starts a process of its own, which later pid 0 events (of
 * any JSON file of the machine) share. Beside a proto or systrace file it
 * is the idle process (trace_context.pid_zero_is_idle). */
static int json_process(import_file *f, int64_t pid, uint32_t *upid) {
  uint32_t utid, live, idle;
  int rc = WEFT_OK;
  if (pid == 0 && !f->ctx->pid_zero_is_idle &&
      model_process_find(f->ctx, f->machine, 0, &live) &&
      (idle = model_idle_thread(f->ctx, f->machine)) != UINT32_MAX &&
      live == model_thread_upid(f->ctx, idle))
    rc = model_process_start(f->ctx, f->machine, 0, -1, &live);
  if (!rc) rc = model_thread_in_process(f->ctx, f->machine, pid, pid, &utid);
  if (rc) return rc;
  *upid = model_thread_upid(f->ctx, utid);
  return WEFT_OK;
}

/* pid/tid given as strings: the string's id is the number, the string the
 * name (a shorthand some tools write); the process or thread so named is
 * made here, before the event's own. Perfetto's string ids are large; ours
 * are small, so they are moved above any kernel pid (pid_max is at most
 * 2^22) where they cannot take a numeric pid's or tid's place. */
#define JSON_STRING_ID_BASE (INT64_C(1) << 30)

static int json_resolve_ids(import_file *f, json_event *e) {
  string_id id;
  int rc = WEFT_OK;
  if (e->pid_str.ptr) {
    rc = ctx_intern(f->ctx, e->pid_str.ptr, e->pid_str.len, &id);
    if (rc) return rc;
    e->pid = JSON_STRING_ID_BASE + id;
    uint32_t upid;
    rc = json_process(f, e->pid, &upid);
    if (!rc) rc = model_process_set_name(f->ctx, upid, e->pid_str.ptr, e->pid_str.len);
    if (rc) return rc;
  }
  if (e->tid_str.ptr) {
    rc = ctx_intern(f->ctx, e->tid_str.ptr, e->tid_str.len, &id);
    if (rc) return rc;
    e->tid = JSON_STRING_ID_BASE + id;
    uint32_t utid;
    rc = model_thread(f->ctx, f->machine, e->tid, &utid);
    if (!rc) rc = model_thread_set_name(f->ctx, utid, e->tid_str.ptr, e->tid_str.len);
  }
  return rc;
}

/* The event's pid (0 when absent) and tid (its pid when absent or 0). */
static void json_event_ids(const json_event *e, int64_t *pid, int64_t *tid) {
  *pid = e->has_pid ? e->pid : 0;
  *tid = e->has_tid && e->tid != 0 ? e->tid : *pid;
}

/* The thread tid of process pid (json_process's, for pid 0). */
static int json_thread(import_file *f, int64_t pid, int64_t tid, uint32_t *utid) {
  uint32_t upid;
  int rc = json_process(f, pid, &upid);
  return rc ? rc : model_thread_in_process(f->ctx, f->machine, tid, pid, utid);
}

static int json_event_thread(import_file *f, const json_event *e, uint32_t *utid) {
  int64_t pid, tid;
  json_event_ids(e, &pid, &tid);
  return json_thread(f, pid, tid, utid);
}

static uint32_t json_thread_upid(import_file *f, uint32_t utid) {
  return model_thread_upid(f->ctx, utid);
}

/* ---- args ---- */

/* Adds the event's args to the pending args (none without "args"). */
static int json_pend_args(import_file *f, const json_event *e, base_error *err) {
  if (!e->args_offset) return WEFT_OK;
  json_state *st = f->state;
  json_tokenizer tk;
  int rc = json_trace_tokenizer_init(&tk, (const char *)f->data + e->args_offset,
                                     f->len - e->args_offset, &st->limits, err);
  if (rc) return rc;
  base_buf key;
  base_buf_init(&key, 1 << 16);
  rc = base_buf_append(&key, "args", 4);
  json_token t;
  if (!rc) rc = json_next(&tk, &t, err);
  if (!rc) rc = model_args_json_value(f->ctx, &tk, &t, &key, err);
  base_buf_free(&key);
  json_tokenizer_free(&tk);
  return rc;
}

static int json_read_args(import_file *f, const json_event *e, int64_t *arg_set,
                          base_error *err) {
  *arg_set = -1;
  int rc = json_pend_args(f, e, err);
  if (rc) {
    model_args_discard(f->ctx);
    return rc;
  }
  return model_args_commit(f->ctx, arg_set);
}

/* An end event's args join those of the slice it ends: a key the slice
 * has takes the end's value in its place, others are appended. */
static int json_end_args(import_file *f, const json_event *e, int64_t slice,
                         base_error *err) {
  if (!e->args_offset || slice < 0) return WEFT_OK;
  trace_context *ctx = f->ctx;
  int rc = model_args_reopen(ctx, model_slice_arg_set(ctx, (uint32_t)slice));
  size_t first = model_args_pending(ctx);
  if (!rc) rc = json_pend_args(f, e, err);
  if (!rc) model_args_update_from(ctx, first);
  int64_t arg_set = -1;
  if (!rc) rc = model_args_commit(ctx, &arg_set);
  else model_args_discard(ctx);
  if (!rc && arg_set >= 0) model_slice_set_args(ctx, (uint32_t)slice, arg_set);
  return rc;
}

/* Finds args.<key> (a scalar) in the event; 1 if found. */
static int json_args_lookup(import_file *f, const json_event *e, const char *key,
                            json_token *out, base_error *err) {
  if (!e->args_offset) return 0;
  json_state *st = f->state;
  json_tokenizer tk;
  if (json_trace_tokenizer_init(&tk, (const char *)f->data + e->args_offset,
                          f->len - e->args_offset, &st->limits, err))
    return 0;
  json_token t;
  int found = 0;
  int rc = json_next(&tk, &t, err);
  while (!rc && !found) {
    rc = json_next(&tk, &t, err);
    if (rc || t.type != JSON_TOK_KEY) break;
    int match = json_key_is(&t, key);
    rc = json_next(&tk, &t, err);
    if (rc) break;
    if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN)
      rc = json_skip_container(&tk, err);
    else if (match) {
      *out = t;
      found = 1;
    }
  }
  json_tokenizer_free(&tk);
  return found;
}

/* ---- slices ---- */

typedef struct json_slice_ctx {
  uint32_t utid;
  string_id name, cat;
  int64_t args;
} json_slice_ctx;

/* A slice's tts (an instant's thread_dur stays NULL, unlike a proto
 * instant's 0) and, for B/X, its tdur. */
static void json_set_thread_time(import_file *f, const json_event *e,
                                 uint32_t slice, int instant) {
  if (e->tts.valid) model_slice_set_thread_ts(f->ctx, slice, e->tts.ns, 0);
  if (!instant && e->tdur.valid) model_slice_set_thread_dur(f->ctx, slice, e->tdur.ns);
}

/* A complete slice on the thread track, or on an overflow track when it
 * would partially overlap its parent (slice_spill_overlapping_complete_event,
 * logged with the event's name and phase and the overlap):
 * the thread's first "thread_overlapping_slice" track where it fits, the
 * n-th with dimensions {utid, track_compressor_idx = n - 1}. */
static int json_complete_track(import_file *f, const json_event *e, uint32_t utid,
                               int64_t ts, uint32_t *track) {
  uint32_t conflict;
  int rc = model_thread_track(f->ctx, utid, track);
  if (rc || slice_stack_conflict(f->ctx, *track, ts, e->dur.ns, &conflict)) return rc;
  rc = json_event_log_args(f, e);
  if (!rc) rc = slice_stack_overlap_args(f->ctx, ts, conflict);
  rc = json_log(f, rc, ts, stat_slice_spill_overlapping_complete_event);
  if (!rc) rc = import_stat(f, stat_slice_spill_overlapping_complete_event, 1);
  for (int64_t idx = 0; !rc && idx < JSON_MAX_OVERFLOW_TRACKS; idx++) {
    model_track_spec s;
    model_track_spec_init(&s);
    s.type = "thread_overlapping_slice";
    s.utid = utid;
    s.compressor_idx = idx;
    s.group_key = model_track_group_key(f->ctx, utid); /* the thread's overflow tracks */
    s.machine = f->machine;
    rc = model_track(f->ctx, &s, track);
    if (!rc && slice_stack_fits(f->ctx, *track, ts, e->dur.ns)) return WEFT_OK;
  }
  return rc; /* every overflow track overlaps too: the last one takes it */
}

/* The track of a B, X or instant event (*track = UINT32_MAX: the event is
 * dropped, a parser failure for instants of an unknown scope or without
 * the pid/tid their scope needs). Instants: scope "g" on the global
 * instant track, "p" on the process's "chrome_process_instant" track,
 * "t" (the default) on the thread track. */
static int json_slice_track(import_file *f, const json_event *e, int64_t ts,
                            const json_slice_ctx *c, uint32_t *track) {
  *track = UINT32_MAX;
  if (e->ph == 'X') /* without a dur: a parser failure */
    return e->dur.valid ? json_complete_track(f, e, c->utid, ts, track) : json_fail(f, e, ts);
  if (e->ph == 'B') return model_thread_track(f->ctx, c->utid, track);
  char scope = e->scope.ptr ? (e->scope.len == 1 ? e->scope.ptr[0] : '?') : 't';
  if (scope == 't') {
    if (!e->has_tid) return json_fail(f, e, ts);
    return model_thread_track(f->ctx, c->utid, track);
  }
  if (scope != 'g' && scope != 'p') return json_fail(f, e, ts);
  if (scope == 'p' && !e->has_pid) return json_fail(f, e, ts);
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = scope == 'g' ? "legacy_chrome_global_instants" : "chrome_process_instant";
  if (scope == 'p') s.upid = json_thread_upid(f, c->utid);
  s.source = "chrome";
  s.machine = f->machine;
  return model_track(f->ctx, &s, track);
}

/* The name of a thread's slice or an async begin: "[No name]" for an
 * event without one (empty or absent), as Perfetto names them. */
static int json_named(import_file *f, string_id name, string_id *out) {
  *out = name;
  return name == STRING_NULL ? ctx_intern(f->ctx, "[No name]", 9, out) : WEFT_OK;
}

/* A B, X or instant event: its track first (as Perfetto, whose track's
 * arg sets come before the slice's), then its args and slice. */
static int json_slice(import_file *f, const json_event *e, int64_t ts, json_slice_ctx *c,
                      base_error *err) {
  uint32_t track, slice;
  int rc = json_slice_track(f, e, ts, c, &track);
  if (rc || track == UINT32_MAX) return rc;
  if (e->ph == 'X' && e->dur.ns < 0) { /* dropped with its args; its track stays */
    rc = model_import_log(f->ctx, f->trace_id, ts, stat_slice_negative_duration, -1);
    return rc ? rc : import_stat(f, stat_slice_negative_duration, 1);
  }
  rc = json_read_args(f, e, &c->args, err);
  int on_thread = e->ph == 'B' || e->ph == 'X' || !e->scope.ptr ||
                  (e->scope.len == 1 && e->scope.ptr[0] == 't');
  string_id name = c->name;
  if (!rc && on_thread) rc = json_named(f, c->name, &name);
  if (rc) return rc;
  if (e->ph == 'B') {
    rc = model_slice_begin(f->ctx, track, ts, c->cat, name, c->args, &slice);
  } else {
    int64_t dur = e->ph == 'X' ? e->dur.ns : 0;
    rc = model_slice_complete(f->ctx, track, ts, dur, c->cat, name, c->args, &slice);
  }
  if (rc) return rc;
  if (on_thread) json_set_thread_time(f, e, slice, e->ph != 'B' && e->ph != 'X');
  return e->ph == 'B' || e->ph == 'X' ? json_flow_v2(f, e, track) : WEFT_OK;
}

/* An end that matches no open slice (by category and name, null matching
 * anything) is dropped silently, its args unread, as Perfetto does; one
 * that matches adds its args to the slice's (json_end_args). */
static int json_thread_end(import_file *f, const json_event *e, int64_t ts,
                           json_slice_ctx *c, base_error *err) {
  uint32_t track;
  int64_t slice;
  int rc = model_thread_track(f->ctx, c->utid, &track);
  if (!rc) rc = slice_stack_end_matching(f->ctx, track, ts, c->cat, c->name, &slice);
  if (rc || slice < 0) return rc;
  rc = json_end_args(f, e, slice, err);
  if (rc) return rc;
  if (e->tts.valid) model_slice_end_thread_time(f->ctx, (uint32_t)slice, e->tts.ns);
  return WEFT_OK;
}

/* ---- async (b e n) ---- */

/* The track first (its args come before the slice's), then the slice;
 * without a pid or any id the event is a parser failure. */
static int json_async(import_file *f, json_event *e, int64_t ts, json_slice_ctx *c,
                      base_error *err) {
  if (!e->has_pid || (!e->id.ptr && !e->id2_global.ptr && !e->id2_local.ptr))
    return json_fail(f, e, ts);
  uint32_t track, slice;
  int rc = json_async_track(f, e, c->cat, c->name, json_thread_upid(f, c->utid), &track);
  if (rc) return rc;
  if (e->ph == 'e') {
    int64_t ended;
    rc = slice_stack_end_matching(f->ctx, track, ts, c->cat, c->name, &ended);
    return rc ? rc : json_end_args(f, e, ended, err);
  }
  rc = json_read_args(f, e, &c->args, err);
  string_id name = c->name;
  if (!rc && e->ph == 'b') rc = json_named(f, c->name, &name);
  if (rc) return rc;
  if (e->ph == 'b')
    rc = model_slice_begin(f->ctx, track, ts, c->cat, name, c->args, &slice);
  else
    rc = model_slice_complete(f->ctx, track, ts, 0, c->cat, c->name, c->args, &slice);
  return rc ? rc : json_flow_v2(f, e, track);
}

/* ---- counters ---- */

static int json_counter_value(const json_token *t, double *v) {
  if (t->type == JSON_TOK_NUMBER) {
    *v = t->d;
    return 0;
  }
  if (t->type == JSON_TOK_STRING && !t->has_escapes)
    return json_parse_double(t->ptr, t->len, v);
  return -1;
}

static int json_counter_add(import_file *f, const json_event *e, int64_t ts,
                            uint32_t upid, int64_t arg_set, const json_token *key,
                            double value) {
  base_buf name;
  base_buf_init(&name, 1 << 16);
  int rc = base_buf_append(&name, "", 0);
  if (!rc && e->name.ptr) rc = base_buf_append(&name, e->name.ptr, e->name.len);
  if (!rc && e->id.ptr && e->id.len) {
    rc = base_buf_append(&name, " id: ", 5);
    if (!rc) rc = base_buf_append(&name, e->id.ptr, e->id.len);
  }
  json_str k = {0};
  if (!rc) rc = json_str_from(key, &k, NULL);
  if (!rc) rc = base_buf_append(&name, " ", 1);
  if (!rc) rc = base_buf_append(&name, k.ptr, k.len);
  base_free(k.owned);
  json_counter_sample sample = {ts, arg_set, value, upid, STRING_NULL};
  if (!rc) rc = ctx_intern(f->ctx, name.data, name.len, &sample.name);
  base_buf_free(&name);
  json_state *st = f->state;
  return rc ? rc : VEC_PUSH(st->counters, sample);
}

static int json_sort_hints_end(import_file *f);

int json_counters_end(import_file *f) {
  json_state *st = f->state;
  if (!st) return WEFT_OK;
  int rc = json_sort_hints_end(f);
  for (size_t i = 0; !rc && i < st->counters.len; i++) {
    const json_counter_sample *c = &st->counters.data[i];
    model_track_spec s;
    model_track_spec_init(&s);
    s.type = "json_counter";
    s.is_counter = 1;
    s.upid = c->upid;
    s.machine = f->machine;
    s.name = base_string_pool_get(&f->ctx->strings, c->name);
    s.dim_key = "name"; /* the track's dimensions: its process and name */
    s.dim_str = s.name;
    uint32_t track;
    rc = model_track(f->ctx, &s, &track);
    if (!rc) rc = model_counter(f->ctx, track, c->ts, c->value, c->arg_set);
  }
  VEC_FREE(st->counters);
  return rc;
}

/* Each numeric arg (or numeric string) is a sample of the process counter
 * "<name>[ id: <id>] <arg>"; anything else counts a json_parser_failure. */
static int json_counter(import_file *f, const json_event *e, int64_t ts,
                        uint32_t utid, base_error *err) {
  if (!e->args_offset) return json_fail(f, e, ts);
  json_state *st = f->state;
  uint32_t upid = json_thread_upid(f, utid);
  /* every sample of the event carries its thread */
  int64_t arg_set;
  int rc = model_arg_int(f->ctx, "utid", 4, MODEL_ARG_UINT, utid);
  if (!rc) rc = model_args_commit(f->ctx, &arg_set);
  if (rc) return rc;
  json_tokenizer tk;
  rc = json_trace_tokenizer_init(&tk, (const char *)f->data + e->args_offset,
                                 f->len - e->args_offset, &st->limits, err);
  if (rc) return rc;
  json_token key, t;
  rc = json_next(&tk, &t, err);
  while (!rc) {
    rc = json_next(&tk, &key, err);
    if (rc || key.type != JSON_TOK_KEY) break;
    rc = json_next(&tk, &t, err);
    if (rc) break;
    double v;
    if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN)
      rc = json_skip_container(&tk, err);
    if (!rc && json_counter_value(&t, &v) != 0)
      rc = json_fail(f, e, ts);
    else if (!rc)
      rc = json_counter_add(f, e, ts, upid, arg_set, &key, v);
  }
  json_tokenizer_free(&tk);
  return rc;
}

/* ---- metadata (M) ---- */

static int json_sort_hint_add(import_file *f, int is_process, uint32_t row,
                              const json_token *t) {
  if (t->type != JSON_TOK_NUMBER || !t->is_int) return WEFT_OK;
  json_state *st = f->state;
  json_sort_hint hint = {t->i, st->sort_hints.len, row, is_process};
  return VEC_PUSH(st->sort_hints, hint);
}

/* Processes first, then threads, each by row; equal rows in event order. */
static int json_sort_hint_cmp(const void *a, const void *b) {
  const json_sort_hint *x = a, *y = b;
  if (x->is_process != y->is_process) return x->is_process ? -1 : 1;
  if (x->row != y->row) return x->row < y->row ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static int json_sort_hints_end(import_file *f) {
  json_state *st = f->state;
  int rc = WEFT_OK;
  if (st->sort_hints.len > 1)
    qsort(st->sort_hints.data, st->sort_hints.len, sizeof *st->sort_hints.data,
          json_sort_hint_cmp);
  for (size_t i = 0; !rc && i < st->sort_hints.len; i++) {
    const json_sort_hint *h = &st->sort_hints.data[i];
    const char *key = h->is_process ? "process_sort_index_hint" : "thread_sort_index_hint";
    int64_t set;
    rc = model_arg_int(f->ctx, key, strlen(key), MODEL_ARG_INT, h->value);
    if (!rc) rc = model_args_commit(f->ctx, &set);
    if (!rc)
      model_row_set_arg_set(f->ctx, h->is_process ? TABLE_PROCESS : TABLE_THREAD,
                            h->is_process ? PROCESS_arg_set_id : THREAD_arg_set_id, h->row, set);
  }
  VEC_FREE(st->sort_hints);
  return rc;
}

/* Phase M: every metadata event makes its thread (and process) first, as
 * any event does, whatever its name; then the names and sort indexes. */
static int json_metadata(import_file *f, const json_event *e, base_error *err) {
  const json_str *n = &e->name;
  int64_t pid, tid;
  json_event_ids(e, &pid, &tid);
  uint32_t utid = 0;
  int rc = json_thread(f, pid, tid, &utid);
  if (rc || !n->ptr) return rc;
  int is_process = n->len == 12 && !memcmp(n->ptr, "process_name", 12);
  int is_thread = n->len == 11 && !memcmp(n->ptr, "thread_name", 11);
  int is_psort = n->len == 18 && !memcmp(n->ptr, "process_sort_index", 18);
  int is_tsort = n->len == 17 && !memcmp(n->ptr, "thread_sort_index", 17);
  if (!is_process && !is_thread && !is_psort && !is_tsort) return WEFT_OK;
  json_token v;
  if (!json_args_lookup(f, e, is_process || is_thread ? "name" : "sort_index", &v, err))
    return WEFT_OK;
  uint32_t upid = 0;
  if (is_process || is_psort) rc = json_process(f, pid, &upid);
  if (rc) return rc;
  if (is_psort) return json_sort_hint_add(f, 1, upid, &v);
  if (is_tsort) return json_sort_hint_add(f, 0, utid, &v);
  if (v.type != JSON_TOK_STRING || v.len == 0) return WEFT_OK;
  json_str s = {0};
  rc = json_str_from(&v, &s, err);
  if (!rc && is_process) rc = model_process_set_name(f->ctx, upid, s.ptr, s.len);
  if (!rc && is_thread) rc = model_thread_set_name(f->ctx, utid, s.ptr, s.len);
  base_free(s.owned);
  return rc;
}

/* ---- thread states (T) ---- */

/* An integer arg of the event; 0 if absent or not an integer. */
static int json_arg_int(import_file *f, const json_event *e, const char *key,
                        int64_t *out, base_error *err) {
  json_token v;
  if (!json_args_lookup(f, e, key, &v, err)) return 0;
  if (v.type == JSON_TOK_NUMBER && v.is_int) *out = v.i;
  else if (v.type == JSON_TOK_TRUE || v.type == JSON_TOK_FALSE) *out = v.type == JSON_TOK_TRUE;
  else return 0;
  return 1;
}

/* Phase T: the thread spent [ts, ts + dur) in state `name`; args.cpu places
 * a "Running" interval on a cpu (a sched slice), args.io_wait qualifies a
 * blocked one. Without a name or a valid dur it is a parser failure. */
static int json_thread_state(import_file *f, const json_event *e, int64_t ts,
                             uint32_t utid, base_error *err) {
  if (!e->name.ptr || !e->name.len || !e->dur.valid || e->dur.ns < 0)
    return json_fail(f, e, ts);
  int64_t cpu = -1, io_wait = -1;
  if (!json_arg_int(f, e, "cpu", &cpu, err) || cpu < 0) cpu = -1;
  if (!json_arg_int(f, e, "io_wait", &io_wait, err)) io_wait = -1;
  kernel_scope scope = {f->machine, f->trace_id};
  return sched_state_interval(f->ctx, &scope, ts, e->dur.ns, utid, e->name.ptr,
                              e->name.len, cpu, io_wait);
}

/* ---- V8 CPU profiles ---- */

/* Hands a sample to the sorter at its time on the file's clock. */
static int json_v8_push(void *arg, const v8_profile_event *ev, int64_t ts, uint32_t callsite) {
  import_file *f = arg;
  json_state *st = f->state;
  json_v8_sample s = {callsite, ev->pid, ev->tid};
  if (VEC_PUSH(st->v8_samples, s)) return WEFT_ENOMEM;
  return import_push(f, ts, st->clock, JSON_V8_PAYLOAD | (st->v8_samples.len - 1));
}

/* pid or tid given as a string: its number (json_resolve_ids's), without
 * making the process or thread. */
static int json_v8_string_id(import_file *f, const json_str *s, int64_t *id) {
  string_id sid;
  int rc = s->ptr ? ctx_intern(f->ctx, s->ptr, s->len, &sid) : WEFT_OK;
  if (!rc && s->ptr) *id = JSON_STRING_ID_BASE + sid;
  return rc;
}

/* Phase P: a V8 CPU profile's "Profile" or "ProfileChunk" in args.data
 * (model/v8_profile.h), of session id (a number, or a string read as hex;
 * another string is a tokenizer failure) and the event's pid. */
static int json_v8_event(import_file *f, json_event *e) {
  if (!e->id.ptr || !e->args_offset || !e->end) return WEFT_OK;
  if (!e->flow_v1_id.valid) return import_stat(f, stat_json_tokenizer_failure, 1);
  int rc = json_v8_string_id(f, &e->pid_str, &e->pid);
  if (!rc) rc = json_v8_string_id(f, &e->tid_str, &e->tid);
  if (rc) return rc;
  int64_t pid, tid;
  json_event_ids(e, &pid, &tid);
  v8_profile_event ev = {e->flow_v1_id.value, pid, tid, 0, f->machine, f->trace_id,
                         stat_json_tokenizer_failure, 1};
  v8_profile_clock hooks = {NULL, NULL, json_v8_push, f};
  return v8_profile_apply(f->ctx, &ev, &hooks, (const char *)f->data + e->args_offset,
                          e->end - e->args_offset);
}

int json_v8_tokenize(import_file *f, const json_scan *scan, base_error *err) {
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < scan->v8_events.len; i++) {
    json_event e;
    memset(&e, 0, sizeof e);
    rc = json_read_event(f, scan->v8_events.data[i].offset, &e, err);
    if (rc == WEFT_OK) {
      rc = json_v8_event(f, &e);
    } else if (rc != WEFT_ENOMEM) {
      base_error_clear(err);
      rc = import_stat(f, stat_json_parser_failure, 1);
    }
    json_event_free(&e);
  }
  return rc ? (err->code ? rc : base_error_alloc(err, rc)) : WEFT_OK;
}

int json_v8_apply_sample(import_file *f, uint64_t payload, int64_t ts) {
  json_state *st = f->state;
  size_t i = (size_t)(payload & ~JSON_V8_PAYLOAD);
  if (i >= st->v8_samples.len) return WEFT_OK;
  const json_v8_sample *s = &st->v8_samples.data[i];
  uint32_t utid;
  int rc = json_thread(f, s->pid, s->tid, &utid);
  return rc ? rc
            : stack_profile_cpu_sample(f->ctx, STACK_PROFILE_CPU_LEGACY_V8, ts, s->callsite,
                                       utid, 0);
}

/* ---- dispatch ---- */

int json_apply(import_file *f, json_event *e, int64_t ts, base_error *err) {
  int rc = json_resolve_ids(f, e);
  if (rc) return rc;
  if (e->ph == 'M') return json_metadata(f, e, err);
  json_slice_ctx c = {0, STRING_NULL, STRING_NULL, -1};
  rc = json_event_thread(f, e, &c.utid);
  if (!rc) rc = json_intern(f, &e->name, &c.name);
  if (!rc) rc = json_intern(f, &e->cat, &c.cat);
  if (rc) return rc;
  switch (e->ph) {
    case 'C':
      return json_counter(f, e, ts, c.utid, err);
    case 'T':
      return json_thread_state(f, e, ts, c.utid, err);
    case 's': case 't': case 'f': {
      uint32_t track;
      rc = model_thread_track(f->ctx, c.utid, &track);
      return rc ? rc : json_flow_v1(f, e, track, c.cat, c.name);
    }
    case 'b': case 'e': case 'n':
      return json_async(f, e, ts, &c, err);
    case 'B': case 'E': case 'X': case 'i': case 'I': case 'R':
      break;
    default:
      return WEFT_OK; /* other phases are not imported */
  }
  if (e->ph == 'E') return json_thread_end(f, e, ts, &c, err);
  return json_slice(f, e, ts, &c, err);
}
