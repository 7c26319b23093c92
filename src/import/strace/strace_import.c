/* strace text traces, `strace -f -ttt` output (import_strace_ops).
 *
 * tokenize: walks the newline-terminated lines (a last line without a
 * newline is not read, as Perfetto's line reader leaves it), parses each
 * (import/strace/strace_line.h) and pushes (epoch ns, line offset) for a
 * syscall line with a pid. Others are counted, and logged in
 * _trace_import_logs at the byte after their newline: strace_parse_failure (signal and exit lines,
 * anything else), strace_unsupported_timestamp_format (`-t`/`-tt` time of
 * day) and strace_missing_pid (no leading pid: without `-f` nothing names
 * the thread). Timestamps are REALTIME: read on the
 * file's private clock, aliased to REALTIME and anchored.
 * parse: re-parses the line and makes the call a slice of category
 * "strace" named after the syscall on its thread's track, with args "args"
 * (when not empty) and "ret": a complete call is a slice of dur 0, an
 * unfinished one opens a slice that its "resumed" line ends (matched by
 * name; its args then join the slice's, a key it has taking the new
 * value); a resumed line with no open slice of its name is dropped.
 * Input release: each pushed line holds its bytes until parsed. */
#include "clock/clock.h"
#include "import/importer.h"
#include "import/strace/strace_line.h"
#include "model/columns.h"
#include "model/import_log.h"
#include "model/model.h"
#include "model/slice_stack.h"

typedef struct strace_state {
  uint32_t clock;
  string_id category, args_key, ret_key;
} strace_state;

/* What a walk of the lines counts. */
typedef struct strace_counts {
  int64_t failures, time_of_day, missing_pid;
} strace_counts;

static int strace_count(import_file *f, const strace_counts *c) {
  int rc = WEFT_OK;
  if (c->failures) rc = import_stat(f, stat_strace_parse_failure, c->failures);
  if (!rc && c->time_of_day)
    rc = import_stat(f, stat_strace_unsupported_timestamp_format, c->time_of_day);
  if (!rc && c->missing_pid) rc = import_stat(f, stat_strace_missing_pid, c->missing_pid);
  return rc;
}

/* Pushes the line at data[off, nl), or counts it and logs it
 * (_trace_import_logs) at the byte after its newline, as Perfetto does. */
static int strace_tokenize_line(import_file *f, uint32_t clock, size_t off, size_t nl,
                                strace_counts *c) {
  strace_line l;
  strace_status st = strace_line_parse((const char *)f->data + off, nl - off, &l);
  stats_id dropped;
  if (st == STRACE_LINE_FAILURE) dropped = stat_strace_parse_failure, c->failures++;
  else if (st == STRACE_LINE_TIME_OF_DAY)
    dropped = stat_strace_unsupported_timestamp_format, c->time_of_day++;
  else if (!l.has_pid) dropped = stat_strace_missing_pid, c->missing_pid++;
  else {
    if (import_push(f, l.ts, clock, off)) return WEFT_ENOMEM;
    import_input_hold(f, off, nl + 1 - off);
    return WEFT_OK;
  }
  /* the offset the line reader reached: just past the line's newline */
  return model_import_log_at_byte(f->ctx, f->trace_id, (int64_t)nl + 1, dropped, -1);
}

static int strace_walk(import_file *f, uint32_t clock) {
  strace_counts c = {0, 0, 0};
  const uint8_t *d = f->data;
  size_t off = 0;
  const uint8_t *nl;
  while (off < f->len && (nl = memchr(d + off, '\n', f->len - off))) {
    size_t end = (size_t)(nl - d);
    int rc = strace_tokenize_line(f, clock, off, end, &c);
    if (rc) return rc;
    off = end + 1;
  }
  return strace_count(f, &c);
}

static int strace_intern(trace_context *ctx, const char *s, string_id *out) {
  return ctx_intern(ctx, s, strlen(s), out);
}

static int strace_tokenize(import_file *f, base_error *err) {
  strace_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = import_clock_alias(f, CLOCK_ID_REALTIME);
  if (!rc) rc = import_clock_anchor(f, st->clock);
  if (!rc) rc = ctx_metadata_file_type(f->ctx, f->trace_id, "strace");
  if (!rc) rc = ctx_metadata_trace_time(f->ctx, CLOCK_ID_REALTIME);
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  if (!rc) rc = strace_intern(f->ctx, "strace", &st->category);
  if (!rc) rc = strace_intern(f->ctx, "args", &st->args_key);
  if (!rc) rc = strace_intern(f->ctx, "ret", &st->ret_key);
  if (rc) return base_error_alloc(err, rc);
  f->release_input = 1;
  rc = strace_walk(f, st->clock);
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

/* ---- parse ---- */

/* Adds the line's "args" (when not empty) and "ret" to the pending args. */
static int strace_pend_args(trace_context *ctx, const strace_state *st, const strace_line *l,
                            int with_ret) {
  string_id v;
  int rc = WEFT_OK;
  if (l->args_len) {
    rc = ctx_intern(ctx, l->args, l->args_len, &v);
    if (!rc) rc = model_arg_string_id(ctx, st->args_key, v, MODEL_ARG_STRING);
  }
  if (!rc && with_ret && l->has_ret) {
    rc = ctx_intern(ctx, l->ret, l->ret_len, &v);
    if (!rc) rc = model_arg_string_id(ctx, st->ret_key, v, MODEL_ARG_STRING);
  }
  return rc;
}

static int strace_args(trace_context *ctx, const strace_state *st, const strace_line *l,
                       int64_t *arg_set) {
  *arg_set = -1;
  int rc = strace_pend_args(ctx, st, l, 1);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, arg_set);
}

/* Ends the innermost open slice of the call's name; its args join. */
static int strace_end(trace_context *ctx, const strace_state *st, uint32_t track, int64_t ts,
                      string_id name, const strace_line *l) {
  int64_t slice;
  int rc = slice_stack_end_matching(ctx, track, ts, st->category, name, &slice);
  if (rc || slice < 0 || (!l->args_len && !l->has_ret)) return rc;
  rc = model_args_reopen(ctx, model_slice_arg_set(ctx, (uint32_t)slice));
  size_t first = model_args_pending(ctx);
  if (!rc) rc = strace_pend_args(ctx, st, l, 1);
  if (!rc) model_args_update_from(ctx, first);
  int64_t arg_set = -1;
  if (!rc) rc = model_args_commit(ctx, &arg_set);
  else model_args_discard(ctx);
  if (!rc && arg_set >= 0) model_slice_set_args(ctx, (uint32_t)slice, arg_set);
  return rc;
}

static int strace_apply(import_file *f, const strace_line *l, int64_t ts) {
  trace_context *ctx = f->ctx;
  const strace_state *st = f->state;
  uint32_t utid, track, slice;
  string_id name;
  int64_t arg_set;
  int rc = model_thread(ctx, f->machine, l->pid, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = ctx_intern(ctx, l->call, l->call_len, &name);
  if (rc) return rc;
  if (l->kind == STRACE_RESUMED || l->kind == STRACE_RESUMED_UNFINISHED) {
    rc = strace_end(ctx, st, track, ts, name, l);
    if (rc || l->kind == STRACE_RESUMED) return rc;
  }
  rc = strace_args(ctx, st, l, &arg_set);
  if (rc) return rc;
  if (l->kind == STRACE_COMPLETE)
    return model_slice_complete(ctx, track, ts, 0, st->category, name, arg_set, &slice);
  return model_slice_begin(ctx, track, ts, st->category, name, arg_set, &slice);
}

static int strace_parse(import_file *f, const sort_event *ev, void *prepared,
                        base_error *err) {
  (void)prepared;
  size_t off = (size_t)ev->payload;
  const char *s = (const char *)f->data + off;
  const char *nl = memchr(s, '\n', f->len - off);
  size_t len = (size_t)(nl - s); /* tokenize pushed newline-terminated lines only */
  strace_line l;
  int rc = WEFT_OK;
  if (strace_line_parse(s, len, &l) == STRACE_LINE_OK && l.has_pid)
    rc = strace_apply(f, &l, ev->ts);
  import_input_release(f, off, len + 1);
  if (rc) return base_error_set(err, rc, "strace: failed to apply a line");
  return WEFT_OK;
}

/* Where a queued line starts (a prefetch hint): at its offset. */
static void strace_locate_rule(const import_file *f, sort_locate_rule *rule) {
  *rule = (sort_locate_rule){f->data, f->len, ~UINT64_C(0), 0, {NULL, NULL}};
}

static void strace_destroy(import_file *f) {
  base_free(f->state);
  f->state = NULL;
}

const importer_ops import_strace_ops = {
    .trace_type = "strace",
    .tokenize = strace_tokenize,
    .locate_rule = strace_locate_rule,
    .parse = strace_parse,
    .destroy = strace_destroy,
};
