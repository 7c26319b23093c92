/* The Chrome JSON importer's scan (importer_ops.scan): one walk of the whole
 * file that finds every event's ts/dur/ph and puts the events in push
 * order, and notes the top-level keys tokenize acts on. It reads only the
 * bytes and options, so it may run on a worker thread (core/scan.h). */
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
 * key applies only when the file has a complete event; else file order.
 * The events come in file order, so a stable sort by (ts, key) gives it. */
static inline int json_pending_before(const json_pending *x, const json_pending *y,
                                      int keyed) {
  if (x->ts != y->ts) return x->ts < y->ts;
  return keyed && x->key < y->key;
}

/* Merges the sorted runs src[lo, mid) and src[mid, hi) into dst[lo, hi),
 * the first run's event first at a tie. */
static void json_pending_merge(const json_pending *src, json_pending *dst, size_t lo,
                               size_t mid, size_t hi, int keyed) {
  size_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    dst[k++] = json_pending_before(&src[j], &src[i], keyed) ? src[j++] : src[i++];
  while (i < mid) dst[k++] = src[i++];
  while (j < hi) dst[k++] = src[j++];
}

/* A stable natural merge sort: the ascending runs the file already has
 * (a thread's or a block's events mostly are) merged in pairs, pass after
 * pass; a file in order costs one comparison an event. */
static int json_scan_order(json_scan *s) {
  size_t n = s->events.len, runs = 1;
  json_pending *events = s->events.data;
  int keyed = s->has_complete;
  for (size_t i = 1; i < n; i++) runs += json_pending_before(&events[i], &events[i - 1], keyed);
  if (runs <= 1) return WEFT_OK;
  size_t *bounds = base_malloc((runs + 1) * sizeof *bounds);
  json_pending *scratch = base_malloc(n * sizeof *scratch);
  if (!bounds || !scratch) {
    base_free(bounds);
    base_free(scratch);
    return WEFT_ENOMEM;
  }
  size_t r = 0;
  bounds[r++] = 0;
  for (size_t i = 1; i < n; i++)
    if (json_pending_before(&events[i], &events[i - 1], keyed)) bounds[r++] = i;
  bounds[runs] = n;
  json_pending *src = events, *dst = scratch;
  while (runs > 1) {
    size_t merged = 0;
    for (size_t k = 0; k < runs; k += 2) {
      size_t lo = bounds[k], mid = bounds[k + 1], hi = k + 2 <= runs ? bounds[k + 2] : mid;
      json_pending_merge(src, dst, lo, mid, hi, keyed);
      bounds[merged++] = lo; /* merged <= k: read before written */
    }
    bounds[merged] = n;
    runs = merged;
    json_pending *t = src;
    src = dst;
    dst = t;
  }
  if (src != events) memcpy(events, src, n * sizeof *events);
  base_free(bounds);
  base_free(scratch);
  return WEFT_OK;
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
  if (!rc && json_scan_order(s)) rc = base_error_set(err, WEFT_ENOMEM, "out of memory");
  return rc;
}
