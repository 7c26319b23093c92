/* atrace markers: parsing and application. See atrace.h. */
#include "model/atrace.h"

#include <string.h>

#include "model/android.h"

#include "model/kslice.h"

#include "model/context.h"
#include "model/model.h"

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

static int atrace_thread_track(trace_context *ctx, const kernel_scope *sc,
                               int64_t tid, int64_t tgid, uint32_t *track) {
  uint32_t utid;
  int rc = tgid > 0 ? sched_thread_in_process(ctx, sc->machine, tid, tgid, &utid)
                    : model_thread(ctx, sc->machine, tid, &utid);
  return rc ? rc : model_thread_track(ctx, utid, track);
}

/* A process-scoped track named `name` (a copy is made NUL-terminated). */
static int atrace_process_track(trace_context *ctx, const kernel_scope *sc,
                                int64_t tgid, const char *name, size_t len,
                                const char *type, int is_counter,
                                uint64_t extra, uint32_t *track) {
  uint32_t upid;
  string_id id;
  int rc = model_process(ctx, sc->machine, tgid, &upid);
  if (!rc) rc = ctx_intern(ctx, name, len, &id);
  if (rc) return rc;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = base_string_pool_get(&ctx->strings, id);
  spec.type = type;
  spec.is_counter = is_counter;
  spec.machine = sc->machine;
  spec.upid = upid;
  spec.extra_key = extra;
  return model_track(ctx, &spec, track);
}

/* True if the track has a slice still open (dur -1) on its stack. */
static int atrace_track_open(trace_context *ctx, uint32_t track) {
  const model_stack *st = model_stack_find(ctx, track);
  if (!st) return 0;
  for (size_t i = 0; i < st->slices.len; i++)
    if (st->slices.data[i].dur < 0) return 1;
  return 0;
}

static int atrace_async(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                        const atrace_point *p, int begin) {
  uint32_t track, slice;
  int64_t ended;
  const char *tname = p->track ? p->track : p->name;
  size_t tlen = p->track ? p->track_len : p->name_len;
  uint64_t extra = base_hash_u64((uint64_t)p->value ^ 0x5a5aULL) >> 1;
  int rc = atrace_process_track(ctx, sc, p->tgid, tname, tlen,
                                p->track ? "atrace_async_track" : "atrace_async",
                                0, extra, &track);
  if (rc) return rc;
  if (!begin) return model_slice_end(ctx, track, ts, &ended);
  if (atrace_track_open(ctx, track)) return WEFT_OK;
  string_id name;
  rc = ctx_intern(ctx, p->name, p->name_len, &name);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
}

/* 1 if s[0, len) is the string `name`. */
static int atrace_is(const char *s, size_t len, const char *name) {
  return s && len == strlen(name) && memcmp(s, name, len) == 0;
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
      if (!rc && p->phase == 'B') rc = kslice_syscall_interrupt(ctx, track, ts);
      if (!rc) rc = ctx_intern(ctx, p->name, p->name_len, &name);
      if (rc) return rc;
      if (p->phase == 'B')
        return model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
      return model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, -1, &slice);
    case 'E':
      rc = atrace_thread_track(ctx, sc, tid, p->tgid, &track);
      if (!rc) rc = kslice_syscall_interrupt(ctx, track, ts);
      return rc ? rc : model_slice_end(ctx, track, ts, &ended);
    case 'S': case 'G':
      return atrace_async(ctx, sc, ts, p, 1);
    case 'F': case 'H':
      return atrace_async(ctx, sc, ts, p, 0);
    case 'N':
      if (atrace_is(p->track, p->track_len, "DeviceStateChanged"))
        return model_android_device_state(ctx, sc->machine, ts, p->name, p->name_len);
      rc = atrace_process_track(ctx, sc, p->tgid, p->track, p->track_len,
                                "atrace_instant_track", 0, 0, &track);
      if (!rc) rc = ctx_intern(ctx, p->name, p->name_len, &name);
      return rc ? rc : model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, -1, &slice);
    case 'C':
      if (atrace_is(p->name, p->name_len, "ScreenState"))
        return model_android_screen_state(ctx, sc->machine, ts, (double)p->value);
      if (p->name_len > 14 && !memcmp(p->name, "battery_stats.", 14))
        return model_android_battery_stats(ctx, sc->machine, ts, p->name, p->name_len,
                                           (double)p->value);
      rc = atrace_process_track(ctx, sc, p->tgid, p->name, p->name_len,
                                "atrace_counter", 1, 0, &track);
      return rc ? rc : model_counter(ctx, track, ts, (double)p->value, -1);
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
