/* Chrome JSON traces: {"traceEvents": [...]} or a bare array of events.
 *
 * tokenize: walks the event array once, reading each event's "ts" and
 * pushing (ts, offset of the event object) to the sorter; nothing else is
 * decoded. parse: re-tokenizes one event object at its offset and applies
 * it (phases X B E i I n C M b e). Timestamps are microseconds (or
 * nanoseconds with "displayTimeUnit": "ns") on the file's private clock. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "import/importer.h"
#include "import/json/json_tokenizer.h"
#include "model/model.h"

typedef struct json_state {
  uint32_t clock;
  int ns_units;       /* displayTimeUnit "ns" */
  json_limits limits;
} json_state;

/* ---- numbers and strings ---- */

/* Converts a JSON number token in microseconds to nanoseconds exactly when
 * the text is a plain decimal. */
static int json_us_to_ns(const json_token *t, int ns_units, int64_t *out) {
  if (ns_units) {
    if (t->is_int) { *out = t->i; return 0; }
    *out = (int64_t)llround(t->d);
    return 0;
  }
  if (t->is_int) {
    if (t->i > INT64_MAX / 1000 || t->i < INT64_MIN / 1000) return -1;
    *out = t->i * 1000;
    return 0;
  }
  if (!isfinite(t->d) || fabs(t->d) > 9.2e15) return -1;
  /* Plain decimals: integer part * 1000 + the first three fraction digits. */
  const char *p = t->ptr, *end = t->ptr + t->len;
  if (!memchr(p, 'e', t->len) && !memchr(p, 'E', t->len)) {
    int neg = *p == '-';
    if (neg) p++;
    int64_t whole = 0, frac = 0;
    while (p < end && *p != '.') whole = whole * 10 + (*p++ - '0');
    int digits = 0;
    if (p < end) p++;
    while (p < end && digits < 3) { frac = frac * 10 + (*p++ - '0'); digits++; }
    while (digits++ < 3) frac *= 10;
    *out = (whole * 1000 + frac) * (neg ? -1 : 1);
    return 0;
  }
  *out = (int64_t)llround(t->d * 1000.0);
  return 0;
}

typedef struct json_str {
  const char *ptr;
  size_t len;
  char *owned; /* unescaped copy, or NULL */
} json_str;

static int json_str_from(const json_token *t, json_str *s, base_error *err) {
  s->owned = NULL;
  if (!t->has_escapes) {
    s->ptr = t->ptr;
    s->len = t->len;
    return WEFT_OK;
  }
  s->owned = base_malloc(t->len + 1);
  if (!s->owned) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  int rc = json_unescape(t->ptr, t->len, s->owned, &s->len, err);
  s->ptr = s->owned;
  return rc;
}

static int json_key_is(const json_token *t, const char *key) {
  size_t n = strlen(key);
  return t->len == n && memcmp(t->ptr, key, n) == 0;
}

/* ---- tokenize ---- */

/* Reads the current event object (after its '{'): finds "ts"; skips the rest. */
static int json_event_ts(json_tokenizer *tk, json_state *st, int64_t *ts,
                         int *has_ts, base_error *err) {
  json_token t;
  *has_ts = 0;
  for (;;) {
    int rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_OBJECT_END) return WEFT_OK;
    if (t.type != JSON_TOK_KEY) return base_error_set(err, WEFT_EPARSE, "json: bad event");
    if (json_key_is(&t, "ts")) {
      rc = json_next(tk, &t, err);
      if (rc) return rc;
      if (t.type == JSON_TOK_NUMBER && json_us_to_ns(&t, st->ns_units, ts) == 0)
        *has_ts = 1;
      else if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN)
        rc = json_skip_container(tk, err);
      if (rc) return rc;
    } else {
      rc = json_skip_value(tk, err);
      if (rc) return rc;
    }
  }
}

/* Walks the event array; the tokenizer is just past its '['. */
static int json_tokenize_events(import_file *f, json_tokenizer *tk,
                                base_error *err) {
  json_state *st = f->state;
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
    size_t offset = t.offset;
    int64_t ts = 0;
    int has_ts = 0;
    rc = json_event_ts(tk, st, &ts, &has_ts, err);
    if (rc) return rc;
    /* Metadata events may omit ts; they apply at time 0. */
    rc = import_push(f, has_ts ? ts : 0, st->clock, offset);
    if (rc) return base_error_set(err, rc, "out of memory");
  }
}

static int json_tokenize_object(import_file *f, json_tokenizer *tk,
                                base_error *err) {
  json_state *st = f->state;
  json_token t;
  for (;;) {
    int rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_OBJECT_END) return WEFT_OK;
    if (json_key_is(&t, "traceEvents")) {
      rc = json_next(tk, &t, err);
      if (!rc && t.type == JSON_TOK_ARRAY_BEGIN) rc = json_tokenize_events(f, tk, err);
      else if (!rc && t.type == JSON_TOK_OBJECT_BEGIN) rc = json_skip_container(tk, err);
    } else if (json_key_is(&t, "displayTimeUnit")) {
      rc = json_next(tk, &t, err);
      if (!rc && t.type == JSON_TOK_STRING) st->ns_units = json_key_is(&t, "ns");
    } else {
      rc = json_skip_value(tk, err);
    }
    if (rc) return rc;
  }
}

static int json_tokenize(import_file *f, base_error *err) {
  json_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  f->state = st;
  st->limits.max_depth = f->ctx->options.max_json_depth;
  st->limits.max_string_len = f->ctx->options.max_string_bytes;
  int rc = import_clock_private(f, &st->clock);
  if (rc) return base_error_set(err, rc, "out of memory");
  json_tokenizer tk;
  rc = json_tokenizer_init(&tk, (const char *)f->data, f->len, &st->limits, err);
  if (rc) return rc;
  json_token t;
  rc = json_next(&tk, &t, err);
  if (!rc && t.type == JSON_TOK_OBJECT_BEGIN) rc = json_tokenize_object(f, &tk, err);
  else if (!rc && t.type == JSON_TOK_ARRAY_BEGIN) rc = json_tokenize_events(f, &tk, err);
  else if (!rc) rc = base_error_set(err, WEFT_EPARSE, "json: expected an object or array");
  /* A truncated array of events keeps what was read (Chrome writes
   * unterminated arrays); anything else malformed is an error. */
  if (rc && tk.hit_end) {
    import_stat(f, stat_json_tokenizer_failure, 1);
    rc = WEFT_OK;
  }
  json_tokenizer_free(&tk);
  return rc;
}

/* ---- parse ---- */

typedef struct json_event {
  char ph;
  json_str name, cat, id, scope, s_arg;
  int64_t ts, dur, pid, tid;
  int has_dur, has_pid, has_tid, has_id;
  size_t args_offset; /* offset of the args object's '{', or 0 */
} json_event;

static void json_event_free(json_event *e) {
  base_free(e->name.owned);
  base_free(e->cat.owned);
  base_free(e->id.owned);
  base_free(e->scope.owned);
  base_free(e->s_arg.owned);
}

static int json_read_int(const json_token *t, int64_t *out) {
  if (t->type == JSON_TOK_NUMBER) {
    if (t->is_int) {
      *out = t->i;
      return 1;
    }
    /* Only doubles that fit: converting others is undefined behaviour. */
    if (!(t->d > -9.2e18 && t->d < 9.2e18)) return 0;
    *out = (int64_t)t->d;
    return 1;
  }
  if (t->type == JSON_TOK_STRING && t->len > 0 && t->len < 24) {
    char buf[24];
    memcpy(buf, t->ptr, t->len);
    buf[t->len] = 0;
    char *end;
    long long v = strtoll(buf, &end, 0);
    if (*end == 0) {
      *out = v;
      return 1;
    }
  }
  return 0;
}

static int json_read_field(json_tokenizer *tk, const json_token *key,
                           json_event *e, json_state *st, base_error *err) {
  json_token t;
  int rc = json_next(tk, &t, err);
  if (rc) return rc;
  if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
    if (json_key_is(key, "args") && t.type == JSON_TOK_OBJECT_BEGIN)
      e->args_offset = t.offset + 1; /* +1: 0 means "none" */
    return json_skip_container(tk, err);
  }
  if (json_key_is(key, "ph") && t.type == JSON_TOK_STRING && t.len)
    e->ph = t.ptr[0];
  else if (json_key_is(key, "name") && t.type == JSON_TOK_STRING)
    rc = json_str_from(&t, &e->name, err);
  else if (json_key_is(key, "cat") && t.type == JSON_TOK_STRING)
    rc = json_str_from(&t, &e->cat, err);
  else if (json_key_is(key, "s") && t.type == JSON_TOK_STRING)
    rc = json_str_from(&t, &e->scope, err);
  else if (json_key_is(key, "id") || json_key_is(key, "id2")) {
    if (t.type == JSON_TOK_STRING || t.type == JSON_TOK_NUMBER) {
      rc = json_str_from(&t, &e->id, err);
      e->has_id = 1;
    }
  } else if (json_key_is(key, "dur") && t.type == JSON_TOK_NUMBER)
    e->has_dur = json_us_to_ns(&t, st->ns_units, &e->dur) == 0;
  else if (json_key_is(key, "ts") && t.type == JSON_TOK_NUMBER)
    json_us_to_ns(&t, st->ns_units, &e->ts);
  else if (json_key_is(key, "pid"))
    e->has_pid = json_read_int(&t, &e->pid);
  else if (json_key_is(key, "tid"))
    e->has_tid = json_read_int(&t, &e->tid);
  return rc;
}

static int json_read_event(import_file *f, size_t offset, json_event *e,
                           base_error *err) {
  json_state *st = f->state;
  json_tokenizer tk;
  int rc = json_tokenizer_init(&tk, (const char *)f->data + offset, f->len - offset,
                               &st->limits, err);
  if (rc) return rc;
  json_token t;
  rc = json_next(&tk, &t, err);
  while (rc == WEFT_OK) {
    rc = json_next(&tk, &t, err);
    if (rc || t.type == JSON_TOK_OBJECT_END) break;
    rc = json_read_field(&tk, &t, e, st, err);
  }
  if (e->args_offset) e->args_offset = e->args_offset - 1 + offset;
  json_tokenizer_free(&tk);
  return rc;
}

/* Flattens a JSON value into args under `prefix`. */
static int json_args_value(import_file *f, json_tokenizer *tk, base_buf *key,
                           base_error *err, int depth);

static int json_args_container(import_file *f, json_tokenizer *tk, base_buf *key,
                               int is_object, base_error *err, int depth) {
  size_t base_len = key->len;
  int index = 0;
  json_token t;
  for (;;) {
    int rc;
    if (is_object) {
      rc = json_next(tk, &t, err);
      if (rc) return rc;
      if (t.type == JSON_TOK_OBJECT_END) return WEFT_OK;
      json_str k;
      rc = json_str_from(&t, &k, err);
      if (!rc) rc = base_buf_append(key, ".", 1);
      if (!rc) rc = base_buf_append(key, k.ptr, k.len);
      base_free(k.owned);
      if (rc) return rc;
    } else {
      /* Peek for the end of the array by reading a value. */
      rc = base_buf_appendf(key, "[%d]", index++);
      if (rc) return rc;
    }
    rc = json_args_value(f, tk, key, err, depth + 1);
    key->len = base_len;
    key->data[base_len] = 0;
    if (rc == 1) return WEFT_OK; /* array end */
    if (rc) return rc;
  }
}

static int json_args_value(import_file *f, json_tokenizer *tk, base_buf *key,
                           base_error *err, int depth) {
  json_token t;
  int rc = json_next(tk, &t, err);
  if (rc) return rc;
  trace_context *ctx = f->ctx;
  switch (t.type) {
    case JSON_TOK_ARRAY_END: return 1;
    case JSON_TOK_OBJECT_BEGIN:
    case JSON_TOK_ARRAY_BEGIN:
      if (depth > 32) return json_skip_container(tk, err);
      return json_args_container(f, tk, key, t.type == JSON_TOK_OBJECT_BEGIN, err, depth);
    case JSON_TOK_STRING: {
      json_str s;
      rc = json_str_from(&t, &s, err);
      if (!rc) rc = model_arg_string(ctx, key->data, key->len, s.ptr, s.len, MODEL_ARG_STRING);
      base_free(s.owned);
      return rc;
    }
    case JSON_TOK_NUMBER:
      if (t.is_int) return model_arg_int(ctx, key->data, key->len, MODEL_ARG_INT, t.i);
      return model_arg_real(ctx, key->data, key->len, t.d);
    case JSON_TOK_TRUE:
    case JSON_TOK_FALSE:
      return model_arg_int(ctx, key->data, key->len, MODEL_ARG_BOOL, t.type == JSON_TOK_TRUE);
    default:
      return model_arg_int(ctx, key->data, key->len, MODEL_ARG_NULL, 0);
  }
}

static int json_read_args(import_file *f, const json_event *e, int64_t *arg_set,
                          base_error *err) {
  *arg_set = -1;
  if (!e->args_offset) return WEFT_OK;
  json_state *st = f->state;
  json_tokenizer tk;
  int rc = json_tokenizer_init(&tk, (const char *)f->data + e->args_offset,
                               f->len - e->args_offset, &st->limits, err);
  if (rc) return rc;
  base_buf key;
  base_buf_init(&key, 1 << 16);
  rc = base_buf_append(&key, "args", 4);
  json_token t;
  if (!rc) rc = json_next(&tk, &t, err);
  if (!rc) rc = json_args_container(f, &tk, &key, 1, err, 0);
  base_buf_free(&key);
  json_tokenizer_free(&tk);
  if (rc) {
    model_args_discard(f->ctx);
    return rc;
  }
  return model_args_commit(f->ctx, arg_set);
}

static int json_intern(import_file *f, const json_str *s, string_id *out) {
  return ctx_intern(f->ctx, s->ptr, s->ptr ? s->len : 0, out);
}

static int json_apply_metadata(import_file *f, const json_event *e,
                               base_error *err) {
  /* M events: the name says what; the value is args.name. */
  json_state *st = f->state;
  if (!e->args_offset || !e->name.ptr) return WEFT_OK;
  json_tokenizer tk;
  int rc = json_tokenizer_init(&tk, (const char *)f->data + e->args_offset,
                               f->len - e->args_offset, &st->limits, err);
  if (rc) return rc;
  json_token t;
  json_str value = {0};
  rc = json_next(&tk, &t, err);
  while (!rc) {
    rc = json_next(&tk, &t, err);
    if (rc || t.type != JSON_TOK_KEY) break;
    int is_name = json_key_is(&t, "name");
    rc = json_next(&tk, &t, err);
    if (!rc && is_name && t.type == JSON_TOK_STRING && !value.ptr)
      rc = json_str_from(&t, &value, err);
    else if (!rc && (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN))
      rc = json_skip_container(&tk, err);
  }
  json_tokenizer_free(&tk);
  if (rc || !value.ptr) {
    base_free(value.owned);
    return rc;
  }
  uint32_t upid, utid;
  const json_str *n = &e->name;
  if (n->len == 12 && !memcmp(n->ptr, "process_name", 12)) {
    rc = model_process(f->ctx, f->machine, e->pid, &upid);
    if (!rc) rc = model_process_set_name(f->ctx, upid, value.ptr, value.len);
  } else if (n->len == 11 && !memcmp(n->ptr, "thread_name", 11)) {
    rc = model_thread_in_process(f->ctx, f->machine, e->tid, e->pid, &utid);
    if (!rc) rc = model_thread_set_name(f->ctx, utid, value.ptr, value.len);
  }
  base_free(value.owned);
  return rc;
}

static int json_async_track(import_file *f, const json_event *e, uint32_t *track) {
  uint32_t upid;
  int rc = model_process(f->ctx, f->machine, e->pid, &upid);
  if (rc) return rc;
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = "process";
  s.upid = upid;
  s.machine = f->machine;
  char name[256];
  size_t n = e->name.len < sizeof name - 1 ? e->name.len : sizeof name - 1;
  if (e->name.ptr) memcpy(name, e->name.ptr, n);
  name[n] = 0;
  s.name = name;
  s.extra_key = e->id.ptr ? base_hash_bytes(e->id.ptr, e->id.len) : 0;
  if (e->cat.ptr) s.extra_key ^= base_hash_bytes(e->cat.ptr, e->cat.len);
  return model_track(f->ctx, &s, track);
}

static int json_instant_track(import_file *f, const json_event *e,
                              uint32_t utid, uint32_t *track) {
  char scope = e->scope.ptr && e->scope.len ? e->scope.ptr[0] : 't';
  if (scope == 'g') {
    model_track_spec s;
    model_track_spec_init(&s);
    s.type = "global";
    s.machine = f->machine;
    s.name = "Global Legacy Events";
    return model_track(f->ctx, &s, track);
  }
  if (scope == 'p') {
    uint32_t upid;
    int rc = model_process(f->ctx, f->machine, e->pid, &upid);
    return rc ? rc : model_process_track(f->ctx, upid, track);
  }
  return model_thread_track(f->ctx, utid, track);
}

static int json_counter(import_file *f, const json_event *e, base_error *err) {
  /* Each numeric arg is one counter track "<name> <arg>" on the process. */
  json_state *st = f->state;
  if (!e->args_offset) return WEFT_OK;
  uint32_t upid;
  int rc = model_process(f->ctx, f->machine, e->pid, &upid);
  if (rc) return rc;
  json_tokenizer tk;
  rc = json_tokenizer_init(&tk, (const char *)f->data + e->args_offset,
                           f->len - e->args_offset, &st->limits, err);
  if (rc) return rc;
  json_token t;
  rc = json_next(&tk, &t, err);
  while (!rc) {
    rc = json_next(&tk, &t, err);
    if (rc || t.type != JSON_TOK_KEY) break;
    char name[512];
    snprintf(name, sizeof name, "%.*s %.*s", (int)(e->name.ptr ? e->name.len : 0),
                     e->name.ptr ? e->name.ptr : "", (int)t.len, t.ptr);
    rc = json_next(&tk, &t, err);
    if (rc) break;
    if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
      rc = json_skip_container(&tk, err);
      continue;
    }
    double v;
    if (t.type == JSON_TOK_NUMBER) v = t.d;
    else if (t.type == JSON_TOK_STRING) v = strtod(t.ptr, NULL);
    else continue;
    model_track_spec s;
    model_track_spec_init(&s);
    s.type = "json_counter";
    s.is_counter = 1;
    s.upid = upid;
    s.machine = f->machine;
    s.name = name;
    uint32_t track;
    rc = model_track(f->ctx, &s, &track);
    if (!rc) rc = model_counter(f->ctx, track, e->ts, v, -1);
  }
  json_tokenizer_free(&tk);
  return rc;
}

static int json_apply(import_file *f, json_event *e, int64_t ts, base_error *err) {
  trace_context *ctx = f->ctx;
  e->ts = ts;
  if (e->ph == 'M') return json_apply_metadata(f, e, err);
  if (e->ph == 'C') return json_counter(f, e, err);
  uint32_t utid, track, slice;
  int rc = model_thread_in_process(ctx, f->machine, e->has_tid ? e->tid : e->pid,
                                   e->pid, &utid);
  if (rc) return rc;
  string_id name, cat;
  rc = json_intern(f, &e->name, &name);
  if (!rc) rc = json_intern(f, &e->cat, &cat);
  int64_t args = -1;
  if (!rc && e->ph != 'E') rc = json_read_args(f, e, &args, err);
  if (rc) return rc;
  switch (e->ph) {
    case 'X':
      rc = model_thread_track(ctx, utid, &track);
      if (!rc) rc = model_slice_complete(ctx, track, ts, e->has_dur ? e->dur : 0,
                                         cat, name, args, &slice);
      return rc;
    case 'B':
      rc = model_thread_track(ctx, utid, &track);
      if (!rc) rc = model_slice_begin(ctx, track, ts, cat, name, args, &slice);
      return rc;
    case 'E': {
      int64_t ended;
      rc = model_thread_track(ctx, utid, &track);
      if (!rc) rc = model_slice_end(ctx, track, ts, &ended);
      return rc;
    }
    case 'i': case 'I': case 'R':
      rc = json_instant_track(f, e, utid, &track);
      if (!rc) rc = model_slice_complete(ctx, track, ts, 0, cat, name, args, &slice);
      return rc;
    case 'b': case 'n':
      rc = json_async_track(f, e, &track);
      if (!rc && e->ph == 'b') rc = model_slice_begin(ctx, track, ts, cat, name, args, &slice);
      if (!rc && e->ph == 'n') rc = model_slice_complete(ctx, track, ts, 0, cat, name, args, &slice);
      return rc;
    case 'e': {
      int64_t ended;
      rc = json_async_track(f, e, &track);
      if (!rc) rc = model_slice_end(ctx, track, ts, &ended);
      return rc;
    }
    default:
      return WEFT_OK; /* flows and other phases: not imported yet */
  }
}

static int json_parse(import_file *f, const sort_event *ev, base_error *err) {
  json_event e;
  memset(&e, 0, sizeof e);
  int rc = json_read_event(f, (size_t)ev->payload, &e, err);
  if (rc == WEFT_OK) rc = json_apply(f, &e, ev->ts, err);
  else {
    import_stat(f, stat_json_parser_failure, 1);
    rc = WEFT_OK;
  }
  json_event_free(&e);
  return rc;
}

static void json_destroy(import_file *f) {
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
