/* Chrome JSON traces: {"traceEvents": [...], ...} or a bare array of events.
 *
 * tokenize: walks the file once. For each event it reads only "ts", "dur"
 * and "ph"; events without a usable ts are dropped (json_tokenizer_failure)
 * unless they are metadata (M, applied at time 0). Events are pushed to the
 * sorter in Perfetto's order (see json_pending). Top-level keys: "displayTimeUnit" is counted
 * (json_display_time_unit) and ignored — timestamps are always us;
 * "metadata" becomes metadata rows json_metadata.<key>; the raw
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
#include <stdlib.h>

#include "import/json/json_internal.h"
#include "import/systrace/systrace.h"

/* Order at equal ts (Perfetto's): end events (E, e) first, then complete
 * events (X) longest first, then everything else, each in file order. The
 * key applies only when the file has a complete event; else file order. */
typedef struct json_pending {
  int64_t ts;
  int64_t key; /* INT64_MIN for ends, INT64_MAX - dur for X, else INT64_MAX */
  size_t offset;
} json_pending;

typedef struct json_order {
  VEC(json_pending) events;
  int has_complete;
} json_order;

/* ---- one event's ts/dur/ph ---- */

typedef struct json_event_head {
  json_time ts, dur;
  char ph;
  int any_key;
} json_event_head;

/* Reads the current event object (after its '{'): ts, dur, ph; *end is
 * the offset just past its '}'. */
static int json_event_head_read(json_tokenizer *tk, json_event_head *h,
                                size_t *end, base_error *err) {
  json_token t;
  memset(h, 0, sizeof *h);
  for (;;) {
    int rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_OBJECT_END) {
      *end = t.offset + 1;
      return WEFT_OK;
    }
    if (t.type != JSON_TOK_KEY) return base_error_set(err, WEFT_EPARSE, "json: bad event");
    h->any_key = 1;
    int is_ts = json_key_is(&t, "ts"), is_dur = json_key_is(&t, "dur");
    int is_ph = json_key_is(&t, "ph");
    rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
      rc = json_skip_container(tk, err);
      if (rc) return rc;
      continue;
    }
    json_time *tm = is_ts ? &h->ts : is_dur ? &h->dur : NULL;
    if (tm) {
      tm->present = 1;
      tm->valid = json_time_from(&t, &tm->ns) == 0;
    } else if (is_ph && t.type == JSON_TOK_STRING && t.len) {
      h->ph = t.ptr[0];
    }
  }
}

/* Walks the event array; the tokenizer is just past its '['. */
static int json_tokenize_events(import_file *f, json_tokenizer *tk,
                                json_order *out, base_error *err) {
  json_token t;
  for (;;) {
    int rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_ARRAY_END) return WEFT_OK;
    if (t.type != JSON_TOK_OBJECT_BEGIN) {
      rc = t.type == JSON_TOK_ARRAY_BEGIN ? json_skip_container(tk, err) : WEFT_OK;
      if (rc) return rc;
      continue;
    }
    json_pending p = {0, INT64_MAX, t.offset};
    json_event_head h;
    size_t end = 0;
    rc = json_event_head_read(tk, &h, &end, err);
    if (rc) return rc;
    if (!h.any_key) continue; /* {}: nothing to import, not an error */
    if (h.ts.valid) {
      p.ts = h.ts.ns;
    } else if (h.ph != 'M') {
      rc = import_stat(f, stat_json_tokenizer_failure, 1);
      if (rc) return base_error_set(err, rc, "out of memory");
      continue;
    }
    if (h.ph == 'E' || h.ph == 'e') {
      p.key = INT64_MIN;
    } else if (h.ph == 'X' && h.dur.valid) {
      p.key = h.dur.ns < 0 ? INT64_MAX : INT64_MAX - h.dur.ns;
      out->has_complete = 1;
    }
    if (VEC_PUSH(out->events, p)) return base_error_set(err, WEFT_ENOMEM, "out of memory");
    json_hold_event(f, p.offset, end);
  }
}

/* ---- top-level keys ---- */

/* "metadata": {...}: scalar values become json_metadata.<key> rows. */
static int json_tokenize_metadata(import_file *f, json_tokenizer *tk,
                                  base_error *err) {
  json_token k, v;
  base_buf name;
  base_buf_init(&name, 1 << 16);
  int rc = WEFT_OK;
  for (;;) {
    rc = json_next(tk, &k, err);
    if (rc || k.type == JSON_TOK_OBJECT_END) break;
    rc = json_next(tk, &v, err);
    if (rc) break;
    if (v.type == JSON_TOK_OBJECT_BEGIN || v.type == JSON_TOK_ARRAY_BEGIN) {
      rc = json_skip_container(tk, err);
      if (rc) break;
      continue;
    }
    json_str key = {0}, val = {0};
    base_buf_reset(&name);
    rc = json_str_from(&k, &key, err);
    if (!rc) rc = base_buf_append(&name, "json_metadata.", 14);
    if (!rc) rc = base_buf_append(&name, key.ptr, key.len);
    if (!rc && v.type == JSON_TOK_NUMBER && v.is_int)
      rc = ctx_metadata_set_int(f->ctx, name.data, v.i, -1, f->trace_id);
    else if (!rc && (v.type == JSON_TOK_TRUE || v.type == JSON_TOK_FALSE))
      rc = ctx_metadata_set_int(f->ctx, name.data, v.type == JSON_TOK_TRUE, -1, f->trace_id);
    else if (!rc && (v.type == JSON_TOK_STRING || v.type == JSON_TOK_NUMBER)) {
      rc = json_str_from(&v, &val, err);
      char *z = rc ? NULL : base_strndup(val.ptr, val.len);
      if (!rc && !z) rc = WEFT_ENOMEM;
      if (!rc) rc = ctx_metadata_set_str(f->ctx, name.data, z, -1, f->trace_id);
      base_free(z);
    }
    base_free(key.owned);
    base_free(val.owned);
    if (rc) break;
  }
  base_buf_free(&name);
  if (rc && err && !err->code) base_error_set(err, rc, "json: metadata: out of memory");
  return rc;
}

static int json_tokenize_object(import_file *f, json_tokenizer *tk,
                                json_order *out, base_error *err) {
  json_state *st = f->state;
  json_token t;
  for (;;) {
    int rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_OBJECT_END) return WEFT_OK;
    int is_events = json_key_is(&t, "traceEvents");
    int is_unit = json_key_is(&t, "displayTimeUnit");
    int is_meta = json_key_is(&t, "metadata");
    int is_sys = json_key_is(&t, "systemTraceEvents");
    rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (is_events && t.type == JSON_TOK_ARRAY_BEGIN) {
      rc = json_tokenize_events(f, tk, out, err);
    } else if (is_meta && t.type == JSON_TOK_OBJECT_BEGIN) {
      rc = json_tokenize_metadata(f, tk, err);
    } else if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
      rc = json_skip_container(tk, err);
    } else if (is_unit) {
      rc = import_stat(f, stat_json_display_time_unit, 1);
    } else if (is_sys && t.type == JSON_TOK_STRING) {
      st->has_systrace = 1;
      st->systrace_offset = (size_t)(t.ptr - (const char *)f->data);
      st->systrace_len = t.len;
    }
    if (rc) return rc;
  }
}

/* ---- ordering and pushing ---- */

static int json_pending_cmp_keyed(const void *a, const void *b) {
  const json_pending *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int json_pending_cmp_plain(const void *a, const void *b) {
  const json_pending *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int json_push_all(import_file *f, json_order *v, base_error *err) {
  json_state *st = f->state;
  if (v->events.len > 1)
    qsort(v->events.data, v->events.len, sizeof *v->events.data,
          v->has_complete ? json_pending_cmp_keyed : json_pending_cmp_plain);
  for (size_t i = 0; i < v->events.len; i++) {
    int rc = import_push(f, v->events.data[i].ts, st->clock, v->events.data[i].offset);
    if (rc) return base_error_set(err, rc, "out of memory");
  }
  return WEFT_OK;
}

static int json_tokenize_systrace(import_file *f, base_error *err);

static int json_tokenize(import_file *f, base_error *err) {
  json_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  f->state = st;
  f->release_input = 1; /* events hold their own bytes; see json_parse */
  st->limits.max_depth = f->ctx->options.max_json_depth;
  st->limits.max_string_len = f->ctx->options.max_string_bytes;
  int rc = import_clock_private(f, &st->clock);
  if (rc) return base_error_set(err, rc, "out of memory");
  json_tokenizer tk;
  rc = json_tokenizer_init(&tk, (const char *)f->data, f->len, &st->limits, err);
  if (rc) return rc;
  json_order events = {0};
  json_token t;
  rc = json_next(&tk, &t, err);
  if (!rc && t.type == JSON_TOK_OBJECT_BEGIN) rc = json_tokenize_object(f, &tk, &events, err);
  else if (!rc && t.type == JSON_TOK_ARRAY_BEGIN) rc = json_tokenize_events(f, &tk, &events, err);
  else if (!rc) rc = base_error_set(err, WEFT_EPARSE, "json: expected an object or array");
  /* A truncated array of events keeps what was read (Chrome writes
   * unterminated arrays); anything else malformed is an error. */
  if (rc && tk.hit_end) {
    base_error_clear(err);
    rc = import_stat(f, stat_json_tokenizer_failure, 1);
    if (rc) base_error_set(err, rc, "out of memory");
  }
  json_tokenizer_free(&tk);
  if (!rc) rc = json_push_all(f, &events, err);
  VEC_FREE(events.events);
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
  if (!buf) return base_error_set(err, WEFT_ENOMEM, "out of memory");
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

static int json_parse(import_file *f, const sort_event *ev, base_error *err) {
  json_state *st = f->state;
  if (ev->payload & JSON_SYSTRACE_PAYLOAD)
    return systrace_text_parse(f, st->systrace_text, st->systrace_text_len,
                               (size_t)(ev->payload & ~JSON_SYSTRACE_PAYLOAD), ev->ts, err);
  json_event e;
  memset(&e, 0, sizeof e);
  size_t offset = (size_t)ev->payload;
  int rc = json_read_event(f, offset, &e, err);
  if (rc == WEFT_OK) {
    rc = json_apply(f, &e, ev->ts, err);
  } else if (rc != WEFT_ENOMEM) {
    base_error_clear(err);
    rc = import_stat(f, stat_json_parser_failure, 1);
  }
  json_event_free(&e);
  /* Done with the event's bytes (tokenize held the same range). */
  json_release_event(f, offset, e.end ? e.end : json_event_extent(f, offset));
  return rc;
}

static void json_destroy(import_file *f) {
  json_state *st = f->state;
  if (st) base_free(st->systrace_text);
  base_free(f->state);
  f->state = NULL;
}

const importer_ops import_json_ops = {
    .trace_type = "json",
    .tokenize = json_tokenize,
    .parse = json_parse,
    .end = NULL,
    .destroy = json_destroy,
};
