/* The Chrome JSON importer's scan (importer_ops.scan): one walk of the whole
 * file that finds every event's ts/dur/ph and puts the events in push
 * order, and notes the top-level keys tokenize acts on. It reads only the
 * bytes and options, so it may run on a worker thread (core/scan.h). */
#include <pthread.h>

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

static const char *json_scan_skip_space(const char *q, const char *end) {
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
  return q;
}

/* Where Perfetto's tokenizer stops after the value v of an event: past the
 * closing quote of a string or the text of another value, then past a
 * comma that follows and the white space after it (not past a '}'). */
static size_t json_scan_value_end(const json_scan *s, const json_time_value *v) {
  const char *data = (const char *)s->in->data, *end = data + s->in->len;
  const char *value_end = v->ptr + v->len + (v->type == JSON_TOK_STRING);
  const char *q = json_scan_skip_space(value_end, end);
  return (size_t)((q < end && *q == ',' ? json_scan_skip_space(q + 1, end) : value_end) - data);
}

/* An event the tokenizer gives up on: counted, and noted for its log. */
static int json_scan_fail(json_scan *s, size_t start, size_t end, json_time_value value,
                          base_error *err) {
  json_failure fl = {start, end, value};
  s->tokenizer_failures++;
  s->event_failures++;
  return VEC_PUSH(s->failures, fl) ? base_error_nomem(err) : WEFT_OK;
}

/* One event object read: its place in push order, if it has one. */
static int json_scan_event(json_scan *s, json_pending p, const json_event_head *h,
                           base_error *err) {
  import_scan_passed(s->in, &s->given, p.end);
  if (!h->any_key || s->events_cut) return WEFT_OK; /* {}: nothing to import */
  if (h->ph == 'X' && h->dur.present && !h->dur.valid) {
    /* Perfetto's tokenizer gives up on the events here: this one and every
     * later one are dropped (the file's other keys are still read); it
     * read the event up to its dur */
    s->events_cut = 1;
    return json_scan_fail(s, p.offset, json_scan_value_end(s, &h->dur_value), h->dur_value,
                          err);
  }
  if (h->ts.valid) {
    p.ts = h->ts.ns;
  } else if (h->ph != 'M') {
    return json_scan_fail(s, p.offset, p.end, h->ts_value, err);
  }
  if (h->ph == 'c' && h->ts.valid && VEC_PUSH(s->clock_syncs, p))
    return base_error_nomem(err);
  if (h->ph == 'P') /* V8 CPU profiles: read in file order by tokenize */
    return VEC_PUSH(s->v8_events, p) ? base_error_nomem(err) : WEFT_OK;
  if (h->ph == 'E') {
    p.key = INT64_MIN;
  } else if (h->ph == 'X' && h->dur.valid) {
    p.key = h->dur.ns < 0 ? INT64_MAX : INT64_MAX - h->dur.ns;
    s->has_complete = 1;
  }
  if (VEC_PUSH(s->events, p)) return base_error_nomem(err);
  return WEFT_OK;
}

/* Whether the walk has reached the split (an event ending exactly there, in
 * the events array); a walk that passes it otherwise reads on alone. */
static int json_scan_at_split(json_scan *s, const json_tokenizer *tk, size_t end) {
  if (!s->stop_at || end < s->stop_at) return 0;
  s->stopped = end == s->stop_at && tk->depth == s->stop_depth;
  s->stop_at = 0;
  return s->stopped;
}

/* Walks the event array; the tokenizer is just past its '[' (or an
 * element). */
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
    rc = json_scan_event(s, p, &h, err);
    if (rc || json_scan_at_split(s, tk, p.end)) return rc;
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
      if (!rc && s->stopped) return WEFT_OK;
    } else if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
      if (is_meta && t.type == JSON_TOK_OBJECT_BEGIN && VEC_PUSH(s->metadata, t.offset))
        return base_error_nomem(err);
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

/* Order at equal ts (Perfetto's): sync end events (E) first, then complete
 * events (X) longest first, then everything else (async ends 'e'
 * included), each in file order. The
 * key applies only when the file has a complete event; else file order.
 * The events come in file order, so a stable sort by (ts, key) gives it. */
static inline int json_pending_before(const json_pending *x, const json_pending *y,
                                      int keyed) {
  if (x->ts != y->ts) return x->ts < y->ts;
  return keyed && x->key < y->key;
}

/* Merges the sorted runs a[lo, mid) and a[mid, hi) in place, the first
 * run's event first at a tie, through `buf`, which holds the shorter run
 * (at most half the events): the longer one stays in place. */
static void json_pending_merge(json_pending *a, json_pending *buf, size_t lo, size_t mid,
                               size_t hi, int keyed) {
  if (!json_pending_before(&a[mid], &a[mid - 1], keyed)) return; /* in order already */
  if (mid - lo <= hi - mid) {
    size_t n = mid - lo, i = 0, j = mid, k = lo;
    memcpy(buf, a + lo, n * sizeof *buf);
    while (i < n && j < hi) a[k++] = json_pending_before(&a[j], &buf[i], keyed) ? a[j++] : buf[i++];
    while (i < n) a[k++] = buf[i++];
    return;
  }
  size_t n = hi - mid, i = mid, j = n, k = hi; /* from the back: i, j, k one past */
  memcpy(buf, a + mid, n * sizeof *buf);
  while (j > 0 && i > lo)
    a[--k] = json_pending_before(&buf[j - 1], &a[i - 1], keyed) ? a[--i] : buf[--j];
  while (j > 0) a[--k] = buf[--j];
}

/* A stable natural merge sort: the ascending runs the file already has
 * (a thread's or a block's events mostly are) merged in pairs, pass after
 * pass; a file in order costs one comparison an event, and the scratch is
 * at most half the events. */
static int json_scan_order(json_scan *s) {
  size_t n = s->events.len, runs = 1;
  json_pending *events = s->events.data;
  int keyed = s->has_complete;
  for (size_t i = 1; i < n; i++) runs += json_pending_before(&events[i], &events[i - 1], keyed);
  if (runs <= 1) return WEFT_OK;
  size_t *bounds = base_malloc((runs + 1) * sizeof *bounds);
  json_pending *scratch = base_malloc((n / 2 + 1) * sizeof *scratch);
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
  while (runs > 1) {
    size_t merged = 0;
    for (size_t k = 0; k < runs; k += 2) {
      size_t lo = bounds[k];
      if (k + 2 <= runs) json_pending_merge(events, scratch, lo, bounds[k + 1], bounds[k + 2], keyed);
      bounds[merged++] = lo; /* merged <= k: read before written */
    }
    bounds[merged] = n;
    runs = merged;
  }
  base_free(bounds);
  base_free(scratch);
  return WEFT_OK;
}

const json_pending *json_scan_next(const json_scan *s, json_scan_cursor *c) {
  const json_pending *a = c->a < s->events.len ? &s->events.data[c->a] : NULL;
  const json_pending *b = c->b < s->later.len ? &s->later.data[c->b] : NULL;
  if (a && (!b || !json_pending_before(b, a, s->has_complete))) {
    c->a++;
    return a;
  }
  if (b) c->b++;
  return b;
}

/* ---- the scan ---- */

void json_scan_free(void *result) {
  json_scan *s = result;
  if (!s) return;
  VEC_FREE(s->events);
  VEC_FREE(s->later);
  VEC_FREE(s->clock_syncs);
  VEC_FREE(s->v8_events);
  VEC_FREE(s->metadata);
  VEC_FREE(s->failures);
  base_free(s);
}

/* A truncated array of events keeps what was read (Chrome writes
 * unterminated arrays); anything else malformed is an error. */
static int json_scan_ending(json_scan *s, const json_tokenizer *tk, int rc, base_error *err) {
  if (rc && rc != WEFT_ENOMEM && tk->hit_end) {
    base_error_clear(err);
    s->tokenizer_failures++;
    rc = WEFT_OK;
  }
  return rc;
}

static int json_scan_walk(json_scan *s, const import_scan_input *in, base_error *err) {
  json_limits limits = json_limits_of(in->options);
  json_tokenizer tk;
  int rc = json_trace_tokenizer_init(&tk, (const char *)in->data, in->len, &limits, err);
  if (rc) return rc;
  json_token t;
  rc = json_next(&tk, &t, err);
  if (!rc && t.type == JSON_TOK_OBJECT_BEGIN) rc = json_scan_object(s, &tk, in->data, err);
  else if (!rc && t.type == JSON_TOK_ARRAY_BEGIN) rc = json_scan_events(s, &tk, err);
  else if (!rc) rc = base_error_set(err, WEFT_EPARSE, "json: expected an object or array");
  rc = json_scan_ending(s, &tk, rc, err);
  json_tokenizer_free(&tk);
  return rc;
}

/* ---- a large file scanned by two threads ----
 * The first thread walks from the start as usual; the second starts at a
 * guessed boundary between two events of the events array ("}" "," "{")
 * halfway through, with the tokenizer set as a whole walk would have it
 * there. The guess holds when the first walk ends an event exactly at the
 * boundary, at the events array's depth: everything after it is then what
 * the second thread read, byte for byte the same walk. Otherwise (a guess
 * inside a string or a nested value, or no events array there) the first
 * walk reads on to the end alone and the second one's result is dropped.
 * Each thread sorts its part (json_scan_order) before the join, and the
 * result keeps the two runs, merged as they are pushed (json_scan_next):
 * the same order as one stable sort of all the events. A part sorted
 * without the tie key (it had no complete event, the other part has)
 * makes the join sort the whole instead. */

#define JSON_SCAN_SPLIT_BYTES ((size_t)8 << 20)
#define JSON_SCAN_GUESS_SPAN ((size_t)4 << 20)

static size_t json_skip_blank(const uint8_t *d, size_t len, size_t i) {
  while (i < len && (d[i] == ' ' || d[i] == '\n' || d[i] == '\r' || d[i] == '\t')) i++;
  return i;
}

/* The offset just past the first '}' at or after `from` that is followed
 * by ',' and '{' (blanks allowed); 0 if there is none nearby. */
static size_t json_scan_guess(const uint8_t *d, size_t len, size_t from) {
  size_t stop = len - from > JSON_SCAN_GUESS_SPAN ? from + JSON_SCAN_GUESS_SPAN : len;
  for (size_t i = from; i < stop; i++) {
    const uint8_t *brace = memchr(d + i, '}', stop - i);
    if (!brace) return 0;
    i = (size_t)(brace - d);
    size_t j = json_skip_blank(d, len, i + 1);
    if (j >= len || d[j] != ',') continue;
    j = json_skip_blank(d, len, j + 1);
    if (j < len && d[j] == '{') return i + 1;
  }
  return 0;
}

/* The events of `bytes` of input get their array at once
 * (VEC_RESERVE_INPUT), sized for events of JSON_SCAN_EVENT_BYTES or more
 * (any real event is longer), so it is not moved while it grows nor when
 * the second thread's events are joined to it. */
#define JSON_SCAN_EVENT_BYTES 24

static void json_scan_reserve(json_scan *s, size_t bytes) {
  VEC_RESERVE_INPUT(s->events, bytes, JSON_SCAN_EVENT_BYTES);
}

typedef struct json_scan_rest {
  json_scan part;
  const import_scan_input *in;
  size_t from;
  int in_object; /* the events array is the top-level object's */
  int keyed;     /* the part was ordered with the tie key */
  int rc;
  base_error err;
} json_scan_rest;

/* The second thread: the walk from just after the event ending at `from`. */
static void *json_scan_rest_run(void *arg) {
  json_scan_rest *r = arg;
  json_limits limits = json_limits_of(r->in->options);
  json_tokenizer tk;
  r->part.in = r->in;
  r->part.given = r->from;
  json_scan_reserve(&r->part, r->in->len - r->from);
  r->rc = json_trace_tokenizer_init(&tk, (const char *)r->in->data, r->in->len, &limits, &r->err);
  if (r->rc) return NULL;
  json_tokenizer_enter(&tk, r->in_object ? 2 : 1, r->in_object ? 1 : 0, r->from);
  int rc = json_scan_events(&r->part, &tk, &r->err);
  if (!rc && r->in_object) rc = json_scan_object(&r->part, &tk, r->in->data, &r->err);
  r->rc = json_scan_ending(&r->part, &tk, rc, &r->err);
  json_tokenizer_free(&tk);
  r->keyed = r->part.has_complete;
  if (!r->rc && json_scan_order(&r->part)) r->rc = base_error_nomem(&r->err);
  return NULL;
}

/* Appends what the second thread found after the split; its events are
 * kept apart as the later run when `apart`. */
static int json_scan_join(json_scan *s, json_scan *rest, int apart) {
  if (s->events_cut) { /* the events after the split do not count */
    rest->events.len = rest->clock_syncs.len = rest->v8_events.len = 0;
    rest->tokenizer_failures -= rest->event_failures;
    rest->event_failures = 0;
    rest->failures.len = 0;
  }
  s->events_cut |= rest->events_cut;
  if (apart) {
    s->later.data = rest->events.data; /* taken whole: no copy */
    s->later.len = rest->events.len;
    s->later.cap = rest->events.cap;
    rest->events.data = NULL;
    rest->events.len = rest->events.cap = 0;
  }
  if (VEC_RESERVE(s->events, s->events.len + rest->events.len) ||
      VEC_RESERVE(s->metadata, s->metadata.len + rest->metadata.len))
    return WEFT_ENOMEM;
  if (rest->events.len)
    memcpy(s->events.data + s->events.len, rest->events.data,
           rest->events.len * sizeof *rest->events.data);
  s->events.len += rest->events.len;
  if (rest->metadata.len)
    memcpy(s->metadata.data + s->metadata.len, rest->metadata.data,
           rest->metadata.len * sizeof *rest->metadata.data);
  s->metadata.len += rest->metadata.len;
  for (size_t i = 0; i < rest->clock_syncs.len; i++)
    if (VEC_PUSH(s->clock_syncs, rest->clock_syncs.data[i])) return WEFT_ENOMEM;
  for (size_t i = 0; i < rest->v8_events.len; i++)
    if (VEC_PUSH(s->v8_events, rest->v8_events.data[i])) return WEFT_ENOMEM;
  for (size_t i = 0; i < rest->failures.len; i++)
    if (VEC_PUSH(s->failures, rest->failures.data[i])) return WEFT_ENOMEM;
  s->has_complete |= rest->has_complete;
  s->tokenizer_failures += rest->tokenizer_failures;
  s->event_failures += rest->event_failures;
  s->display_time_units += rest->display_time_units;
  if (rest->has_systrace) {
    s->has_systrace = 1;
    s->systrace_offset = rest->systrace_offset;
    s->systrace_len = rest->systrace_len;
  }
  s->split = 1;
  return WEFT_OK;
}

static int json_scan_split(json_scan *s, const import_scan_input *in, size_t guess,
                           base_error *err) {
  size_t first = json_skip_blank(in->data, in->len, 0);
  size_t from = guess < in->len ? json_scan_guess(in->data, in->len, guess) : 0;
  json_limits limits = json_limits_of(in->options);
  uint32_t depth = limits.max_depth ? limits.max_depth : JSON_DEFAULT_MAX_DEPTH;
  if (first >= in->len || (in->data[first] != '{' && in->data[first] != '[') || !from ||
      depth < 3)
    return json_scan_walk(s, in, err);
  json_scan_rest *rest = base_calloc(1, sizeof *rest);
  if (!rest) return json_scan_walk(s, in, err);
  rest->in = in;
  rest->from = from;
  rest->in_object = in->data[first] == '{';
  pthread_t thread;
  if (pthread_create(&thread, NULL, json_scan_rest_run, rest) != 0) {
    base_free(rest);
    return json_scan_walk(s, in, err);
  }
  s->stop_at = from;
  s->stop_depth = rest->in_object ? 2 : 1;
  int rc = json_scan_walk(s, in, err);
  /* each thread orders its own part: the two are the result's two runs */
  int keyed = s->has_complete;
  if (!rc && s->stopped && json_scan_order(s)) rc = base_error_nomem(err);
  pthread_join(thread, NULL);
  if (!rc && s->stopped) {
    rc = rest->rc;
    if (rc && err) *err = rest->err;
    /* a part ordered without the tie key the whole needs: one array,
     * ordered again */
    int whole_keyed = keyed | rest->part.has_complete;
    int apart = !s->events_cut && keyed == whole_keyed && rest->keyed == whole_keyed;
    if (!rc && json_scan_join(s, &rest->part, apart))
      rc = base_error_nomem(err);
    if (!rc && !apart && json_scan_order(s))
      rc = base_error_nomem(err);
  }
  s->stop_at = 0;
  s->stopped = 0;
  VEC_FREE(rest->part.events);
  VEC_FREE(rest->part.clock_syncs);
  VEC_FREE(rest->part.v8_events);
  VEC_FREE(rest->part.metadata);
  VEC_FREE(rest->part.failures);
  base_free(rest);
  return rc;
}

static int json_scan_start(const import_scan_input *in, int split, size_t guess,
                           void **result, base_error *err) {
  json_scan *s = base_calloc(1, sizeof *s);
  if (!s) return base_error_nomem(err);
  *result = s;
  s->in = in;
  json_scan_reserve(s, in->len);
  int rc = split ? json_scan_split(s, in, guess, err) : json_scan_walk(s, in, err);
  s->in = NULL;
  if (!rc && !s->split && json_scan_order(s)) rc = base_error_nomem(err);
  return rc;
}

int json_scan_run(const import_scan_input *in, void **result, base_error *err) {
  int split = in->may_split && in->len >= JSON_SCAN_SPLIT_BYTES;
  return json_scan_start(in, split, in->len / 2, result, err);
}

int json_scan_run_split(const import_scan_input *in, size_t guess, void **result,
                        base_error *err) {
  return json_scan_start(in, 1, guess, result, err);
}
