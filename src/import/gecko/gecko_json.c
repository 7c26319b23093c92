/* gecko: reading the spans of a profile's JSON values. See gecko_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/gecko/gecko_internal.h"

int gecko_tokenizer(import_file *f, const gecko_span *s, json_tokenizer *t,
                           base_error *err) {
  gecko_state *st = f->state;
  return json_tokenizer_init(t, (const char *)f->data + s->begin, s->end - s->begin,
                             &st->limits, err);
}

/* The span of the value whose first token `t` was just read. */
int gecko_value_span(json_tokenizer *tk, size_t base, const json_token *t,
                            gecko_span *out, base_error *err) {
  out->begin = base + t->offset;
  out->type = t->type;
  if (t->type == JSON_TOK_OBJECT_BEGIN || t->type == JSON_TOK_ARRAY_BEGIN) {
    int rc = json_skip_container(tk, err);
    if (rc) return rc;
    out->end = base + json_offset(tk);
  } else {
    out->end = base + (size_t)(t->ptr - tk->begin) + t->len + (t->type == JSON_TOK_STRING);
  }
  return WEFT_OK;
}

/* Calls fn for each member of the object `s` (keys as raw bytes). */
int gecko_members(import_file *f, const gecko_span *s, gecko_member_fn fn, void *user,
                         base_error *err) {
  if (s->type != JSON_TOK_OBJECT_BEGIN) return WEFT_OK;
  json_tokenizer tk;
  json_token key, t;
  int rc = gecko_tokenizer(f, s, &tk, err);
  if (!rc) rc = json_next(&tk, &t, err);
  while (!rc && !(rc = json_next(&tk, &key, err)) && key.type == JSON_TOK_KEY) {
    gecko_span value;
    rc = json_next(&tk, &t, err);
    if (!rc) rc = gecko_value_span(&tk, s->begin, &t, &value, err);
    if (!rc) rc = fn(f, user, key.ptr, key.len, &value, err);
  }
  json_tokenizer_free(&tk);
  return rc;
}

/* The elements of the array `s` (none when it is not an array). */
int gecko_elements(import_file *f, const gecko_span *s, gecko_spans *out,
                          base_error *err) {
  out->len = 0;
  if (s->type != JSON_TOK_ARRAY_BEGIN) return WEFT_OK;
  json_tokenizer tk;
  json_token t;
  int rc = gecko_tokenizer(f, s, &tk, err);
  if (!rc) rc = json_next(&tk, &t, err);
  while (!rc && !(rc = json_next(&tk, &t, err)) && t.type != JSON_TOK_ARRAY_END) {
    gecko_span e;
    rc = gecko_value_span(&tk, s->begin, &t, &e, err);
    if (!rc && VEC_PUSH(*out, e)) rc = base_error_nomem(err);
  }
  json_tokenizer_free(&tk);
  return rc;
}

int gecko_key_is(const char *key, size_t len, const char *name) {
  return strlen(name) == len && memcmp(key, name, len) == 0;
}

/* A number or numeric string value; 0 if it is neither. */
int gecko_number(import_file *f, const gecko_span *s, double *out) {
  if (s->type != JSON_TOK_NUMBER && s->type != JSON_TOK_STRING) return 0;
  const char *p = (const char *)f->data + s->begin + (s->type == JSON_TOK_STRING);
  size_t len = s->end - s->begin - 2 * (s->type == JSON_TOK_STRING);
  char buf[64];
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, p, len);
  buf[len] = 0;
  char *end;
  *out = strtod(buf, &end);
  return *end == 0 && isfinite(*out);
}

/* Milliseconds to ns as Perfetto converts them; 0 when out of range. */
int gecko_ms_to_ns(double ms, int64_t *ns) {
  double v = ms * 1000 * 1000;
  if (!(v > -9.2e18 && v < 9.2e18)) return 0;
  *ns = (int64_t)v;
  return 1;
}

/* Interns a string value's text (unescaped). */
int gecko_intern(import_file *f, const gecko_span *s, string_id *out) {
  *out = STRING_NULL;
  if (s->type != JSON_TOK_STRING) return WEFT_OK;
  const char *p = (const char *)f->data + s->begin + 1;
  size_t len = s->end - s->begin - 2;
  char *tmp = base_malloc(len + 1);
  if (!tmp) return WEFT_ENOMEM;
  size_t out_len = 0;
  int rc = json_unescape(p, len, tmp, &out_len, NULL) ? WEFT_OK
                                                      : ctx_intern(f->ctx, tmp, out_len, out);
  base_free(tmp);
  return rc;
}

int gecko_index(import_file *f, const gecko_span *s, size_t n, size_t *out) {
  double d;
  if (!s || !gecko_number(f, s, &d) || d < 0 || d >= (double)n) return 0;
  *out = (size_t)d;
  return 1;
}

int gecko_time(import_file *f, const gecko_span *s, int64_t *ns) {
  double ms;
  return s && gecko_number(f, s, &ms) && gecko_ms_to_ns(ms, ns);
}

