/* Chrome JSON traces: {"traceEvents": [...], ...} or a bare array of events.
 *
 * scan (json_scan.c, may run on a worker thread): walks the file once. For
 * each event it reads only "ts", "dur" and "ph"; events without a usable ts
 * are dropped (json_tokenizer_failure) unless they are metadata (M, applied
 * at time 0), and the rest are put in Perfetto's push order (json_pending).
 * tokenize: acts on what the scan found: pushes the events, counts stats,
 * reads the metadata objects. Top-level keys: "displayTimeUnit" is counted
 * (json_display_time_unit) and ignored — timestamps are always us;
 * "metadata" becomes metadata rows json_metadata.<key> (with trace_type
 * and trace_size_bytes, the file's size); the raw
 * "systemTraceEvents" string is decoded and its ftrace text lines are
 * pushed through the systrace line importer (import/systrace/systrace.h);
 * lines that do not parse are counted in systrace_parse_failure.
 * parse: re-tokenizes one event object at its offset (json_event.c) and
 * applies it (json_apply.c), or applies a systrace line to the kernel model.
 * Input release: each pushed event holds its object's bytes from tokenize
 * until it is parsed; the systrace lines are a decoded copy, so nothing
 * else of the file is read after tokenize.
 * Times, JSON microseconds and systrace seconds alike, are on the file's
 * private clock (its own clock domain, as Perfetto treats it). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock/clock.h"
#include "import/json/json_internal.h"
#include "import/systrace/systrace.h"
#include "model/import_log.h"

/* ---- top-level keys ---- */

/* "metadata": {...}: each member becomes the row json_metadata.<key> of the
 * file's machine and trace, as
 * Perfetto stores it: a string as its decoded text; true/false as 1/0; an
 * object or array as its raw text in the file; a number as an int when it
 * is one (an integer literal that fits int64, else a value with no fraction
 * strictly between -2^63 and 2^63, integer literals beyond int64 wrapping
 * modulo 2^64 first), else as a string "%g"; null is skipped. A number
 * that overflows a double ends the metadata object (its later members are
 * dropped). */

static int json_metadata_number(import_file *f, const char *name, const json_token *v) {
  if (v->is_int) return ctx_metadata_set_int(f->ctx, name, v->i, f->machine, f->trace_id);
  double d = json_number_double(v);
  if (d > -9223372036854775808.0 && d < 9223372036854775808.0 && d == (double)(int64_t)d)
    return ctx_metadata_set_int(f->ctx, name, (int64_t)d, f->machine, f->trace_id);
  char text[64];
  snprintf(text, sizeof text, "%g", d);
  return ctx_metadata_set_str(f->ctx, name, text, f->machine, f->trace_id);
}

/* A string value (decoded) or a container's raw text [ptr, ptr + len). */
static int json_metadata_text(import_file *f, const char *name, const char *ptr, size_t len) {
  char *z = base_strndup(ptr, len);
  if (!z) return WEFT_ENOMEM;
  int rc = ctx_metadata_set_str(f->ctx, name, z, f->machine, f->trace_id);
  base_free(z);
  return rc;
}

/* The row of one member whose value token is v; *stop when the rest of the
 * object is to be dropped. */
static int json_metadata_member(import_file *f, json_tokenizer *tk, const char *name,
                                const json_token *v, int *stop, base_error *err) {
  int rc = WEFT_OK;
  if (v->type == JSON_TOK_OBJECT_BEGIN || v->type == JSON_TOK_ARRAY_BEGIN) {
    rc = json_skip_container(tk, err);
    if (!rc) rc = json_metadata_text(f, name, v->ptr, (size_t)(tk->p - v->ptr));
  } else if (v->type == JSON_TOK_NUMBER) {
    *stop = !v->is_integral && !isfinite(v->d);
    if (!*stop) rc = json_metadata_number(f, name, v);
  } else if (v->type == JSON_TOK_TRUE || v->type == JSON_TOK_FALSE) {
    rc = ctx_metadata_set_int(f->ctx, name, v->type == JSON_TOK_TRUE, f->machine, f->trace_id);
  } else if (v->type == JSON_TOK_STRING) {
    json_str val = {0};
    rc = json_str_from(v, &val, err);
    if (!rc) rc = json_metadata_text(f, name, val.ptr, val.len);
    base_free(val.owned);
  }
  return rc;
}

static int json_tokenize_metadata(import_file *f, json_tokenizer *tk,
                                  base_error *err) {
  json_token k, v;
  base_buf name;
  base_buf_init(&name, 1 << 16);
  int rc = WEFT_OK, stop = 0;
  while (!stop) {
    rc = json_next(tk, &k, err);
    if (rc || k.type == JSON_TOK_OBJECT_END) break;
    rc = json_next(tk, &v, err);
    if (rc) break;
    json_str key = {0};
    base_buf_reset(&name);
    rc = json_str_from(&k, &key, err);
    if (!rc) rc = base_buf_append(&name, "json_metadata.", 14);
    if (!rc) rc = base_buf_append(&name, key.ptr, key.len);
    base_free(key.owned);
    if (!rc) rc = json_metadata_member(f, tk, name.data, &v, &stop, err);
    if (rc) break;
  }
  base_buf_free(&name);
  if (rc && err && !err->code) base_error_set(err, rc, "json: metadata: out of memory");
  return rc;
}

/* ---- ordering and pushing ---- */

/* Pushes the scanned events in their order; each holds its object's bytes
 * until it is parsed. */
static int json_push_all(import_file *f, const json_scan *scan, base_error *err) {
  json_state *st = f->state;
  json_scan_cursor at = {0, 0};
  for (const json_pending *p; (p = json_scan_next(scan, &at));) {
    int rc = import_push(f, p->ts, st->clock, p->offset);
    if (rc) return base_error_alloc(err, rc);
    json_hold_event(f, p->offset, p->end);
  }
  return WEFT_OK;
}

/* Re-walks the "metadata" objects the scan found (small, and valid JSON
 * since the scan walked them). */
static int json_apply_metadata(import_file *f, const json_scan *scan, base_error *err) {
  json_state *st = f->state;
  for (size_t i = 0; i < scan->metadata.len; i++) {
    size_t off = scan->metadata.data[i];
    json_tokenizer tk;
    json_token t;
    int rc = json_trace_tokenizer_init(&tk, (const char *)f->data + off, f->len - off, &st->limits,
                                 err);
    if (!rc) rc = json_next(&tk, &t, err);
    if (!rc) rc = json_tokenize_metadata(f, &tk, err);
    json_tokenizer_free(&tk);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* The message Perfetto's tokenizer gives for a ts or dur it cannot read
 * (none for an absent one); 0 if none. */
static int json_failure_message(const json_time_value *v, char *buf, size_t cap) {
  int kind = v->type == JSON_TOK_NULL ? 0
           : v->type == JSON_TOK_TRUE || v->type == JSON_TOK_FALSE ? 1
           : v->type == JSON_TOK_OBJECT_BEGIN ? 5
           : v->type == JSON_TOK_ARRAY_BEGIN ? 6 : -1;
  if (!v->ptr) return 0;
  if (kind >= 0) return snprintf(buf, cap, "Expected a number in timestamp, got %d", kind) > 0;
  if (v->type != JSON_TOK_STRING) return 0;
  int len = v->len > 1024 ? 1024 : (int)v->len;
  char exp;
  const char *s = v->ptr;
  switch (json_string_number(s, v->len, &exp)) {
    case JSON_NUMBER_INCOMPLETE:
      return snprintf(buf, cap, "Unexpected incomplete input when parsing string timestamp ''") > 0;
    case JSON_NUMBER_EXPECTED_DIGIT:
      return snprintf(buf, cap, "Invalid number: expected digit in '%.*s\"'", len, s) > 0;
    case JSON_NUMBER_LEADING_ZERO:
      return snprintf(buf, cap, "Invalid number: leading zero in '%.*s\"'", len, s) > 0;
    case JSON_NUMBER_DIGIT_AFTER_DOT:
      return snprintf(buf, cap, "Invalid number: expected digit after '.' in '%.*s\"'", len, s) > 0;
    case JSON_NUMBER_DIGIT_AFTER_EXPONENT: /* 'e' whichever letter it was */
      return snprintf(buf, cap, "Invalid number: expected digit after 'e' in '%.*s\"'", len,
                      s) > 0;
    case JSON_NUMBER_TRAILING:
      return snprintf(buf, cap,
                      "Unexpected trailing characters when parsing string timestamp '%.*s'", len,
                      s) > 0;
    case JSON_NUMBER_OK: return 0; /* read, yet out of range */
  }
  return 0;
}

/* A _trace_import_logs row for an event the tokenizer gave up on: the
 * bytes read of it (raw_event) and why (error), at the offset it stopped. */
static int json_log_failure(import_file *f, const json_failure *fl) {
  char msg[1200];
  int64_t set = -1;
  int rc = model_arg_string(f->ctx, "raw_event", 9, (const char *)f->data + fl->start,
                            fl->end - fl->start, MODEL_ARG_STRING);
  if (!rc && json_failure_message(&fl->value, msg, sizeof msg))
    rc = model_arg_string(f->ctx, "error", 5, msg, strlen(msg), MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(f->ctx, &set);
  else model_args_discard(f->ctx);
  return rc ? rc : model_import_log_at_byte(f->ctx, f->trace_id, (int64_t)fl->end,
                                            stat_json_tokenizer_failure, set);
}

static int json_apply_scan_stats(import_file *f, const json_scan *scan) {
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < scan->failures.len; i++)
    rc = json_log_failure(f, &scan->failures.data[i]);
  if (!rc && scan->tokenizer_failures)
    rc = import_stat(f, stat_json_tokenizer_failure, scan->tokenizer_failures);
  if (!rc && scan->display_time_units)
    rc = import_stat(f, stat_json_display_time_unit, scan->display_time_units);
  return rc;
}

static int json_tokenize_systrace(import_file *f, base_error *err);

static int json_tokenize(import_file *f, base_error *err) {
  const json_scan *scan = f->scan;
  json_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  f->release_input = 1; /* events hold their own bytes; see json_parse */
  st->limits = json_limits_of(&f->ctx->options);
  st->has_systrace = scan->has_systrace;
  st->systrace_offset = scan->systrace_offset;
  st->systrace_len = scan->systrace_len;
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = json_apply_scan_stats(f, scan);
  if (rc) return base_error_alloc(err, rc);
  rc = ctx_metadata_file_type(f->ctx, f->trace_id, "json");
  /* a JSON file's timeline is its own (Perfetto's trace-file clock) */
  if (!rc) rc = ctx_metadata_trace_time(f->ctx, CLOCK_ID_TRACE_FILE);
  if (rc) return base_error_alloc(err, rc);
  rc = json_apply_metadata(f, scan, err);
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  if (rc == WEFT_ENOMEM) return base_error_nomem(err);
  if (!rc) rc = json_clock_sync_markers(f, scan, st->clock, err);
  if (!rc) rc = json_push_all(f, scan, err);
  if (!rc) rc = json_v8_tokenize(f, scan, err);
  if (!rc) rc = json_tokenize_systrace(f, err);
  return rc;
}

/* ---- systemTraceEvents ---- */

/* The decoded "systemTraceEvents" text (systrace lines, '\n'-separated) for
 * a systrace importer to tokenize on this file's clock; *text = NULL when
 * the file has none. The caller frees *text with base_free. */
int json_systrace_text(import_file *f, char **text, size_t *len, base_error *err) {
  json_state *st = f->state;
  *text = NULL;
  *len = 0;
  if (!st || !st->has_systrace) return WEFT_OK;
  char *buf = base_malloc(st->systrace_len + 1);
  if (!buf) return base_error_nomem(err);
  int rc = json_unescape((const char *)f->data + st->systrace_offset, st->systrace_len,
                         buf, len, err);
  if (rc) {
    base_free(buf);
    return rc;
  }
  buf[*len] = 0;
  *text = buf;
  return WEFT_OK;
}

/* Decodes the systemTraceEvents text and pushes its event lines. */
static int json_tokenize_systrace(import_file *f, base_error *err) {
  json_state *st = f->state;
  int rc = json_systrace_text(f, &st->systrace_text, &st->systrace_text_len, err);
  if (rc || !st->systrace_text) return rc;
  rc = systrace_text_tokenize(f, st->systrace_text, 0, st->systrace_text_len, st->clock,
                              JSON_SYSTRACE_PAYLOAD, 1, err);
  if (rc == WEFT_ELIMIT) base_error_prefix(err, "json: systemTraceEvents");
  return rc;
}

/* ---- parse ---- */

/* An event object read ahead of its parse: json_read_event's fast path
 * (which owns nothing); other objects are read by json_parse. */
static size_t json_prepare(const import_file *f, const sort_event *ev, void *out) {
  _Static_assert(sizeof(json_event) <= IMPORT_PREPARED_MAX, "json_event fits a prepared slot");
  const json_state *st = f->state;
  if (!st || json_is_v8_payload(ev->payload)) return 0;
  if (ev->payload & JSON_SYSTRACE_PAYLOAD)
    return systrace_text_prepare(st->systrace_text, st->systrace_text_len,
                                 (size_t)(ev->payload & ~JSON_SYSTRACE_PAYLOAD), out);
  json_event *e = out;
  memset(e, 0, sizeof *e);
  return json_read_flat(f, (size_t)ev->payload, e) ? sizeof *e : 0;
}

/* Where a queued event object starts (a prefetch hint): at its offset in
 * the file; none for lines of the systemTraceEvents text. */
static void json_locate_rule(const import_file *f, sort_locate_rule *rule) {
  *rule = (sort_locate_rule){f->data, f->len, ~JSON_SYSTRACE_PAYLOAD, JSON_SYSTRACE_PAYLOAD,
                             {NULL, f->state}};
}

static int json_parse(import_file *f, const sort_event *ev, void *prepared, base_error *err) {
  json_state *st = f->state;
  if (json_is_v8_payload(ev->payload)) return json_v8_apply_sample(f, ev->payload, ev->ts);
  if (ev->payload & JSON_SYSTRACE_PAYLOAD)
    return systrace_text_parse(f, st->systrace_text, st->systrace_text_len,
                               (size_t)(ev->payload & ~JSON_SYSTRACE_PAYLOAD), ev->ts,
                               prepared, err);
  json_event read, *e = prepared;
  size_t offset = (size_t)ev->payload;
  int rc = WEFT_OK;
  if (!e) {
    e = &read;
    memset(e, 0, sizeof *e);
    rc = json_read_event_tokens(f, offset, e, err);
  }
  if (rc == WEFT_OK) {
    rc = json_apply(f, e, ev->ts, err);
  } else if (rc != WEFT_ENOMEM) {
    base_error_clear(err);
    rc = import_stat(f, stat_json_parser_failure, 1);
  }
  json_event_free(e);
  /* Done with the event's bytes (tokenize held the same range). */
  json_release_event(f, offset, e->end ? e->end : json_event_extent(f, offset));
  return rc;
}

static int json_end(import_file *f, base_error *err) {
  int rc = json_counters_end(f);
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

static void json_destroy(import_file *f) {
  json_state *st = f->state;
  if (st) {
    base_free(st->systrace_text);
    json_async_free(&st->async);
    VEC_FREE(st->v8_samples);
    VEC_FREE(st->counters);
    VEC_FREE(st->sort_hints);
  }
  base_free(f->state);
  f->state = NULL;
}

const importer_ops import_json_ops = {
    .trace_type = "json",
    .scan = json_scan_run,
    .scan_free = json_scan_free,
    .tokenize = json_tokenize,
    .prepare = json_prepare,
    .locate_rule = json_locate_rule,
    .parse = json_parse,
    .end = json_end,
    .destroy = json_destroy,
};
