/* The Chrome JSON importer's scan (importer_ops.scan): one walk of the whole
 * file that finds every event's ts/dur/ph and puts the events in push
 * order, and notes the top-level keys tokenize acts on. It reads only the
 * bytes and options, so it may run on a worker thread (core/scan.h). */
#include <stdlib.h>

#include "import/json/json_internal.h"

/* ---- one event's ts/dur/ph ---- */

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
    json_token key = t;
    rc = json_next(tk, &t, err);
    if (rc) return rc;
    json_event_head_member(h, &key, &t);
    if (json_is_container(&t)) {
      rc = json_skip_container(tk, err);
      if (rc) return rc;
    }
  }
}

/* Walks the event array; the tokenizer is just past its '['. */
static int json_scan_events(json_scan *s, json_tokenizer *tk, base_error *err) {
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
    json_pending p = {0, INT64_MAX, t.offset, 0};
    json_event_head h;
    if (json_read_head_flat(tk->begin, (size_t)(tk->end - tk->begin), t.offset,
                            tk->max_string_len, tk->max_depth - tk->depth, &h, &p.end)) {
      json_tokenizer_resume_after(tk, p.end); /* the object, read flat */
    } else {
      rc = json_event_head_read(tk, &h, &p.end, err);
      if (rc) return rc;
    }
    import_scan_passed(s->in, &s->given, p.end);
    if (!h.any_key) continue; /* {}: nothing to import, not an error */
    if (h.ts.valid) {
      p.ts = h.ts.ns;
    } else if (h.ph != 'M') {
      s->tokenizer_failures++;
      continue;
    }
    if (h.ph == 'E' || h.ph == 'e') {
      p.key = INT64_MIN;
    } else if (h.ph == 'X' && h.dur.valid) {
      p.key = h.dur.ns < 0 ? INT64_MAX : INT64_MAX - h.dur.ns;
      s->has_complete = 1;
    }
    if (VEC_PUSH(s->events, p)) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  }
}

/* The top-level object; the tokenizer is just past its '{'. */
static int json_scan_object(json_scan *s, json_tokenizer *tk, const uint8_t *in_data,
                            base_error *err) {
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
      rc = json_scan_events(s, tk, err);
    } else if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
      if (is_meta && t.type == JSON_TOK_OBJECT_BEGIN && VEC_PUSH(s->metadata, t.offset))
        return base_error_set(err, WEFT_ENOMEM, "out of memory");
      rc = json_skip_container(tk, err);
    } else if (is_unit) {
      s->display_time_units++;
    } else if (is_sys && t.type == JSON_TOK_STRING) {
      s->has_systrace = 1;
      s->systrace_offset = (size_t)(t.ptr - (const char *)in_data);
      s->systrace_len = t.len;
    }
    if (rc) return rc;
  }
}

/* ---- push order ---- */

/* Order at equal ts (Perfetto's): end events (E, e) first, then complete
 * events (X) longest first, then everything else, each in file order. The
 * key applies only when the file has a complete event; else file order. */
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

static void json_scan_order(json_scan *s) {
  if (s->events.len > 1)
    qsort(s->events.data, s->events.len, sizeof *s->events.data,
          s->has_complete ? json_pending_cmp_keyed : json_pending_cmp_plain);
}

/* ---- the scan ---- */

void json_scan_free(void *result) {
  json_scan *s = result;
  if (!s) return;
  VEC_FREE(s->events);
  VEC_FREE(s->metadata);
  base_free(s);
}

static int json_scan_walk(json_scan *s, const import_scan_input *in, base_error *err) {
  json_limits limits = json_limits_of(in->options);
  json_tokenizer tk;
  int rc = json_tokenizer_init(&tk, (const char *)in->data, in->len, &limits, err);
  if (rc) return rc;
  json_token t;
  rc = json_next(&tk, &t, err);
  if (!rc && t.type == JSON_TOK_OBJECT_BEGIN) rc = json_scan_object(s, &tk, in->data, err);
  else if (!rc && t.type == JSON_TOK_ARRAY_BEGIN) rc = json_scan_events(s, &tk, err);
  else if (!rc) rc = base_error_set(err, WEFT_EPARSE, "json: expected an object or array");
  /* A truncated array of events keeps what was read (Chrome writes
   * unterminated arrays); anything else malformed is an error. */
  if (rc && rc != WEFT_ENOMEM && tk.hit_end) {
    base_error_clear(err);
    s->tokenizer_failures++;
    rc = WEFT_OK;
  }
  json_tokenizer_free(&tk);
  return rc;
}

int json_scan_run(const import_scan_input *in, void **result, base_error *err) {
  json_scan *s = base_calloc(1, sizeof *s);
  if (!s) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  *result = s;
  s->in = in;
  int rc = json_scan_walk(s, in, err);
  s->in = NULL;
  if (!rc) json_scan_order(s);
  return rc;
}
