/* atrace markers: parsing and application. See atrace.h. */
#include "model/atrace.h"

#include <stdlib.h>
#include <string.h>

#include "model/android.h"

#include "model/kcounter.h"

#include "model/context.h"
#include "model/model.h"
#include "model/track_compressor.h"

/* Reads the field at *off up to '|' or the end; advances past the '|'. */
static void atrace_field(const char *s, size_t len, size_t *off,
                         const char **out, size_t *out_len) {
  size_t start = *off < len ? *off : len, i = start;
  while (i < len && s[i] != '|') i++;
  *out = s + start;
  *out_len = i - start;
  *off = i + 1;
}

/* Whole-field decimal parse (optional leading '-'); 0 on failure. */
static int atrace_int(const char *s, size_t len, int unsigned_only, int64_t *out) {
  size_t i = 0;
  int neg = 0;
  if (len && s[0] == '-' && !unsigned_only) { neg = 1; i = 1; }
  if (i == len || len - i > 19) return 0;
  uint64_t v = 0;
  for (; i < len; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    v = v * 10 + (uint64_t)(s[i] - '0');
  }
  if (unsigned_only && v > UINT32_MAX) return 0;
  if (v > (uint64_t)INT64_MAX + (uint64_t)neg) return 0;
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 1;
}

atrace_result atrace_parse(const char *s, size_t len, atrace_point *out) {
  if (!s) s = "", len = 0; /* an empty print buffer may come as NULL */
  memset(out, 0, sizeof *out);
  while (len && (s[len - 1] == '\n' || s[len - 1] == '\0')) len--;
  size_t off = 0, n, tn;
  const char *f, *tg;
  atrace_field(s, len, &off, &f, &n);
  if (n == 0) return ATRACE_FAILURE;
  out->phase = f[0];
  atrace_field(s, len, &off, &tg, &tn);
  int has_tgid = atrace_int(tg, tn, 1, &out->tgid);
  if (!has_tgid) out->tgid = 0;
  const char *a, *b, *c;
  size_t an, bn, cn;
  switch (out->phase) {
    case 'B':
      if (!has_tgid) return ATRACE_FAILURE;
      out->name = off < len ? s + off : "";
      out->name_len = off < len ? len - off : 0;
      if (out->name_len == 0) {
        out->name = "[empty slice name]";
        out->name_len = 18;
      }
      return ATRACE_SUCCESS;
    case 'E':
      return ATRACE_SUCCESS;
    case 'S': case 'F': case 'C':
      atrace_field(s, len, &off, &a, &an);
      atrace_field(s, len, &off, &b, &bn);
      if (!has_tgid || an == 0 || !atrace_int(b, bn, 0, &out->value))
        return ATRACE_FAILURE;
      out->name = a;
      out->name_len = an;
      return ATRACE_SUCCESS;
    case 'I':
      atrace_field(s, len, &off, &a, &an);
      if (!has_tgid || an == 0) return ATRACE_FAILURE;
      out->name = a;
      out->name_len = an;
      return ATRACE_SUCCESS;
    case 'N': case 'G':
      atrace_field(s, len, &off, &a, &an);
      atrace_field(s, len, &off, &b, &bn);
      if (!has_tgid || an == 0 || bn == 0) return ATRACE_FAILURE;
      if (out->phase == 'G') {
        atrace_field(s, len, &off, &c, &cn);
        if (!atrace_int(c, cn, 0, &out->value)) return ATRACE_FAILURE;
      }
      out->track = a;
      out->track_len = an;
      out->name = b;
      out->name_len = bn;
      return ATRACE_SUCCESS;
    case 'H':
      atrace_field(s, len, &off, &a, &an);
      atrace_field(s, len, &off, &b, &bn);
      atrace_field(s, len, &off, &c, &cn);
      if (cn == 0) { c = b; cn = bn; }
      if (!has_tgid || an == 0 || !atrace_int(c, cn, 0, &out->value))
        return ATRACE_FAILURE;
      out->track = a;
      out->track_len = an;
      return ATRACE_SUCCESS;
    default:
      if (len >= 23 && memcmp(s, "trace_event_clock_sync:", 23) == 0)
        return ATRACE_UNSUPPORTED;
      return ATRACE_FAILURE;
  }
}

/* ---- application ---- */

/* The process `tgid` names; a new one gets its main thread (tid = pid). */
static int atrace_process(trace_context *ctx, const kernel_scope *sc, int64_t tgid,
                          uint32_t *upid) {
  if (model_process_find(ctx, sc->machine, tgid, upid) == 1) return WEFT_OK;
  uint32_t main_utid;
  int rc = model_process(ctx, sc->machine, tgid, upid);
  return rc ? rc : model_thread_in_process(ctx, sc->machine, tgid, tgid, &main_utid);
}

static int atrace_thread_track(trace_context *ctx, const kernel_scope *sc,
                               int64_t tid, int64_t tgid, uint32_t *track) {
  uint32_t utid;
  int rc = tgid > 0 ? sched_thread_in_process(ctx, sc->machine, tid, tgid, &utid)
                    : model_thread(ctx, sc->machine, tid, &utid);
  return rc ? rc : model_thread_track(ctx, utid, track);
}

/* ---- async slices ----
 * S/F slices share the tracks of a (process, name) set, G/H slices and N
 * instants those of a (process, track name) set, through a track
 * compressor keyed by the cookie (N: scoped, never sharing a cookie's
 * track). S slices do not nest: a begin on a track with an open slice is
 * dropped but counted, and each end reports the track's begin count and
 * last begin ts. */

typedef struct atrace_unnestable {
  uint32_t begins;
  int64_t last_begin_ts;
} atrace_unnestable;

struct atrace_state {
  track_compressor sets;
  base_map unnestable_of; /* track -> index into unnestable */
  VEC(atrace_unnestable) unnestable;
};

void atrace_state_free(atrace_state *s) {
  if (!s) return;
  track_compressor_free(&s->sets);
  base_map_free(&s->unnestable_of);
  VEC_FREE(s->unnestable);
  base_free(s);
}

static int atrace_state_get(trace_context *ctx, atrace_state **out) {
  if (!ctx->model.atrace && !(ctx->model.atrace = base_calloc(1, sizeof **out)))
    return WEFT_ENOMEM;
  *out = ctx->model.atrace;
  return WEFT_OK;
}

/* The track of an async event of process upid: p->track names the set of
 * G/H/N events, else p->name that of S/F ones; cookie p->value (N: a scoped
 * instant at ts). */
static int atrace_async_track(trace_context *ctx, const kernel_scope *sc, uint32_t upid,
                              const atrace_point *p, track_compressor_event ev, int64_t ts,
                              uint32_t *track) {
  atrace_state *s;
  int rc = atrace_state_get(ctx, &s);
  if (rc) return rc;
  int for_track = p->track != NULL;
  const char *name = for_track ? p->track : p->name;
  size_t len = for_track ? p->track_len : p->name_len;
  uint64_t key = base_hash_u64(base_hash_bytes(name, len) ^ ((uint64_t)upid << 1 | (uint64_t)for_track));
  uint32_t set, idx;
  rc = ev == TRACK_COMPRESSOR_INSTANT
           ? track_compressor_use_scoped(&s->sets, key, ts, 0, &set, &idx)
           : track_compressor_use(&s->sets, key, p->value, ev, &set, &idx);
  if (rc) return rc;
  uint32_t *slot = track_compressor_track(&s->sets, set, idx);
  if (*slot == TRACK_COMPRESSOR_NO_TRACK) {
    string_id id;
    rc = ctx_intern(ctx, name, len, &id);
    if (rc) return rc;
    model_track_spec spec;
    model_track_spec_init(&spec);
    spec.name = base_string_pool_get(&ctx->strings, id);
    spec.type = for_track ? "atrace_async_slice_for_track" : "atrace_async_slice";
    spec.machine = sc->machine;
    spec.upid = upid;
    spec.dim_key = "name";
    spec.dim_str = spec.name;
    spec.dim_first = 1;
    spec.compressor_idx = idx;
    spec.group_key = model_track_group_key(&s->sets, set);
    rc = model_track(ctx, &spec, slot);
    if (rc) return rc;
  }
  *track = *slot;
  return WEFT_OK;
}

/* The begin count and last begin ts of an S/F track, created at zero. */
static int atrace_unnestable_of(trace_context *ctx, uint32_t track, atrace_unnestable **out) {
  atrace_state *s;
  uint64_t *slot;
  int rc = atrace_state_get(ctx, &s);
  if (rc) return rc;
  int ins = base_map_insert(&s->unnestable_of, track, s->unnestable.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 1 && VEC_PUSH(s->unnestable, ((atrace_unnestable){0, 0}))) {
    *slot = UINT64_MAX; /* not recorded: retried on the next event */
    return WEFT_ENOMEM;
  }
  *out = &s->unnestable.data[*slot];
  return WEFT_OK;
}

/* Adds args to an ended slice's set: an int arg `a` (and `b` when given). */
static int atrace_end_args(trace_context *ctx, int64_t slice, const char *a, int64_t av,
                           model_arg_type at, const char *b, int64_t bv) {
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  int rc = model_args_reopen(ctx, storage_get_i64_or(t, SLICE_arg_set_id, (size_t)slice, -1));
  if (!rc && !model_args_pending_has(ctx, a, strlen(a)))
    rc = model_arg_int(ctx, a, strlen(a), at, av);
  if (!rc && b) rc = model_arg_int(ctx, b, strlen(b), MODEL_ARG_INT, bv);
  int64_t args = -1;
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  if (!rc) model_slice_set_args(ctx, (uint32_t)slice, args);
  return rc;
}

/* One int arg committed as a set (*set = -1 on error paths too). */
static int atrace_one_arg(trace_context *ctx, const char *key, model_arg_type type,
                          int64_t value, int64_t *set) {
  *set = -1;
  int rc = model_arg_int(ctx, key, strlen(key), type, value);
  return rc ? rc : model_args_commit(ctx, set);
}

/* S (begin) / F (end): an unnestable slice with a cookie arg. */
static int atrace_async(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                        const atrace_point *p, int begin) {
  uint32_t upid, track, slice;
  atrace_unnestable *u;
  int rc = atrace_process(ctx, sc, p->tgid, &upid);
  if (!rc) rc = atrace_async_track(ctx, sc, upid, p,
                                   begin ? TRACK_COMPRESSOR_BEGIN : TRACK_COMPRESSOR_END, ts,
                                   &track);
  if (!rc) rc = atrace_unnestable_of(ctx, track, &u);
  if (rc) return rc;
  if (!begin) {
    int64_t ended;
    uint32_t begins = u->begins;
    int64_t last = u->last_begin_ts;
    rc = model_slice_end(ctx, track, ts, &ended);
    if (rc || ended < 0) return rc;
    return atrace_end_args(ctx, ended, "legacy_unnestable_begin_count", begins, MODEL_ARG_INT,
                           "legacy_unnestable_last_begin_ts", last);
  }
  u->begins++;
  u->last_begin_ts = ts;
  const model_stack *st = model_stack_find(ctx, track);
  for (size_t i = 0; st && i < st->slices.len; i++)
    if (st->slices.data[i].dur < 0) return WEFT_OK;
  string_id name;
  int64_t args;
  rc = ctx_intern(ctx, p->name, p->name_len, &name);
  if (!rc) rc = atrace_one_arg(ctx, "cookie", MODEL_ARG_INT, p->value, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, args, &slice);
}

/* G (begin), H (end) and N (instant) on a process's named track set; the
 * writing thread is the slice's utid (H: end_utid) arg. */
static int atrace_for_track(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                            int64_t tid, const atrace_point *p) {
  track_compressor_event ev = p->phase == 'G'   ? TRACK_COMPRESSOR_BEGIN
                              : p->phase == 'H' ? TRACK_COMPRESSOR_END
                                                : TRACK_COMPRESSOR_INSTANT;
  uint32_t upid, track, utid, slice;
  int rc = atrace_process(ctx, sc, p->tgid, &upid);
  if (!rc) rc = atrace_async_track(ctx, sc, upid, p, ev, ts, &track);
  if (!rc) rc = model_thread(ctx, sc->machine, tid, &utid);
  if (rc) return rc;
  if (ev == TRACK_COMPRESSOR_END) {
    int64_t ended;
    rc = model_slice_end(ctx, track, ts, &ended);
    if (rc || ended < 0) return rc;
    return atrace_end_args(ctx, ended, "end_utid", utid, MODEL_ARG_UINT, NULL, 0);
  }
  string_id name;
  int64_t args;
  rc = ctx_intern(ctx, p->name, p->name_len, &name);
  if (!rc) rc = atrace_one_arg(ctx, "utid", MODEL_ARG_UINT, utid, &args);
  if (rc) return rc;
  if (ev == TRACK_COMPRESSOR_INSTANT)
    return model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, args, &slice);
  return model_slice_begin(ctx, track, ts, STRING_NULL, name, args, &slice);
}

/* C: a counter on the process's track of that name (dimensions upid and
 * name), the writing thread (if known) its utid arg. */
static int atrace_counter(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                          int64_t tid, const atrace_point *p) {
  uint32_t upid, utid, track;
  string_id id;
  int rc = atrace_process(ctx, sc, p->tgid, &upid);
  if (!rc) rc = ctx_intern(ctx, p->name, p->name_len, &id);
  if (rc) return rc;
  int has_thread = model_thread_find(ctx, sc->machine, tid, &utid);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = base_string_pool_get(&ctx->strings, id);
  spec.type = "atrace_counter";
  spec.is_counter = 1;
  spec.machine = sc->machine;
  spec.upid = upid;
  spec.dim_key = "name";
  spec.dim_str = spec.name;
  rc = model_track(ctx, &spec, &track);
  int64_t args = -1;
  if (!rc && has_thread == 1) rc = atrace_one_arg(ctx, "utid", MODEL_ARG_UINT, utid, &args);
  return rc ? rc : model_counter(ctx, track, ts, (double)p->value, args);
}

/* 1 if s[0, len) is the string `name`. */
static int atrace_is(const char *s, size_t len, const char *name) {
  return s && len == strlen(name) && memcmp(s, name, len) == 0;
}

/* ---- low memory killer markers ----
 * lmkd reports a kill two ways: a "kill_one_process" counter whose value is
 * the killed pid (0: the kill is over), and a slice named
 * "lmk,<pid>,<reason>,<oom_score_adj>,...". Either becomes a "mem.lmk"
 * instant on the killed process's "LMK" track (type android_lmk), as kernel
 * kills are shown; the slice also records the process's oom_score_adj. */

static int atrace_lmk_instant(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                              uint32_t upid) {
  uint32_t track, slice;
  string_id name;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "LMK";
  spec.type = "android_lmk";
  spec.machine = sc->machine;
  spec.upid = upid;
  int rc = model_track(ctx, &spec, &track);
  if (!rc) rc = ctx_intern(ctx, "mem.lmk", 7, &name);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, -1, &slice);
}

/* strtol-style parse of a whole token (leading blanks and a sign allowed,
 * wrapping as a C cast does); 0 if the token is empty or has other text. */
static int atrace_lmk_number(const char *s, size_t len, int is_unsigned, int64_t *out) {
  char buf[32];
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, s, len);
  buf[len] = '\0';
  char *end = NULL;
  if (is_unsigned) *out = (int64_t)(uint32_t)strtoul(buf, &end, 10);
  else *out = (int64_t)(int32_t)strtol(buf, &end, 10);
  return *end == '\0';
}

/* The non-empty ','-separated tokens 1 and 3 of name; 0 if fewer than 4. */
static int atrace_lmk_tokens(const char *name, size_t len, const char **t1, size_t *n1,
                             const char **t3, size_t *n3) {
  size_t i = 0, k = 0;
  while (i < len) {
    size_t start = i;
    while (i < len && name[i] != ',') i++;
    if (i > start) {
      if (k == 1) { *t1 = name + start; *n1 = i - start; }
      if (k == 3) { *t3 = name + start; *n3 = i - start; }
      k++;
    }
    i++;
  }
  return k >= 4;
}

static int atrace_lmk_slice(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                            const char *name, size_t len) {
  const char *t1 = NULL, *t3 = NULL;
  size_t n1 = 0, n3 = 0;
  int64_t pid, adj;
  uint32_t upid;
  if (!atrace_lmk_tokens(name, len, &t1, &n1, &t3, &n3) ||
      !atrace_lmk_number(t1, n1, 1, &pid) || !atrace_lmk_number(t3, n3, 0, &adj))
    return WEFT_OK;
  int rc = atrace_process(ctx, sc, pid, &upid);
  if (!rc) rc = kcounter_process_oom_score_adj(ctx, sc, ts, upid, (double)adj);
  return rc ? rc : atrace_lmk_instant(ctx, sc, ts, upid);
}

static int atrace_kill_one_process(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                   int64_t value) {
  uint32_t upid;
  uint32_t pid = (uint32_t)value;
  if (pid == 0) return WEFT_OK;
  int rc = atrace_process(ctx, sc, pid, &upid);
  return rc ? rc : atrace_lmk_instant(ctx, sc, ts, upid);
}

int atrace_apply(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                 int64_t tid, const atrace_point *p) {
  uint32_t track, slice;
  int64_t ended;
  string_id name = STRING_NULL;
  int rc = WEFT_OK;
  switch (p->phase) {
    case 'B': case 'I':
      rc = atrace_thread_track(ctx, sc, tid, p->tgid, &track);
      if (!rc) rc = ctx_intern(ctx, p->name, p->name_len, &name);
      if (rc) return rc;
      if (p->phase == 'B') {
        rc = model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
        if (rc || p->name_len < 4 || memcmp(p->name, "lmk,", 4) != 0) return rc;
        return atrace_lmk_slice(ctx, sc, ts, p->name, p->name_len);
      }
      return model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, -1, &slice);
    case 'E':
      rc = atrace_thread_track(ctx, sc, tid, p->tgid, &track);
      return rc ? rc : model_slice_end(ctx, track, ts, &ended);
    case 'S':
      return atrace_async(ctx, sc, ts, p, 1);
    case 'F':
      return atrace_async(ctx, sc, ts, p, 0);
    case 'G': case 'H':
      return atrace_for_track(ctx, sc, ts, tid, p);
    case 'N':
      if (atrace_is(p->track, p->track_len, "DeviceStateChanged"))
        return model_android_device_state(ctx, sc->machine, ts, p->name, p->name_len);
      return atrace_for_track(ctx, sc, ts, tid, p);
    case 'C':
      if (atrace_is(p->name, p->name_len, "ScreenState"))
        return model_android_screen_state(ctx, sc->machine, ts, (double)p->value);
      if (p->name_len > 14 && !memcmp(p->name, "battery_stats.", 14))
        return model_android_battery_stats(ctx, sc->machine, ts, p->name, p->name_len,
                                           (double)p->value);
      if (atrace_is(p->name, p->name_len, "kill_one_process"))
        rc = atrace_kill_one_process(ctx, sc, ts, p->value);
      return rc ? rc : atrace_counter(ctx, sc, ts, tid, p);
    default:
      return WEFT_OK;
  }
}

int atrace_apply_parsed(trace_context *ctx, const kernel_scope *sc, int64_t ts, int64_t tid,
                        atrace_result parsed, const atrace_point *p) {
  switch (parsed) {
    case ATRACE_SUCCESS: return atrace_apply(ctx, sc, ts, tid, p);
    case ATRACE_FAILURE: return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    default: return WEFT_OK;
  }
}

int atrace_print(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                 int64_t tid, const char *buf, size_t len) {
  atrace_point p;
  atrace_result parsed = atrace_parse(buf, len, &p);
  return atrace_apply_parsed(ctx, sc, ts, tid, parsed, &p);
}
