/* gecko: walking a profile's JSON values. See gecko_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/gecko/gecko_internal.h"

/* ---- walking with one tokenizer ---- */

int gecko_walk_members(gecko_reader *r, gecko_member_fn fn, void *user, base_error *err) {
  json_token key, value;
  int rc;
  while (!(rc = json_next(r->tk, &key, err)) && key.type == JSON_TOK_KEY) {
    rc = json_next(r->tk, &value, err);
    if (!rc) rc = fn(r, user, &key, &value, err);
    if (rc) return rc;
  }
  return rc;
}

int gecko_walk_elements(gecko_reader *r, gecko_element_fn fn, void *user, base_error *err) {
  json_token value;
  int rc;
  while (!(rc = json_next(r->tk, &value, err)) && value.type != JSON_TOK_ARRAY_END) {
    rc = fn(r, user, &value, err);
    if (rc) return rc;
  }
  return rc;
}

int gecko_take(gecko_reader *r, const json_token *t, gecko_span *out, base_error *err) {
  out->begin = r->base + t->offset;
  out->type = t->type;
  if (t->type == JSON_TOK_OBJECT_BEGIN || t->type == JSON_TOK_ARRAY_BEGIN) {
    int rc = json_skip_container(r->tk, err);
    if (rc) return rc;
    out->end = r->base + json_offset(r->tk);
  } else {
    out->end = r->base + (size_t)(t->ptr - r->tk->begin) + t->len +
               (t->type == JSON_TOK_STRING);
  }
  return WEFT_OK;
}

int gecko_skip(gecko_reader *r, const json_token *t, base_error *err) {
  if (t->type != JSON_TOK_OBJECT_BEGIN && t->type != JSON_TOK_ARRAY_BEGIN) return WEFT_OK;
  return json_skip_container(r->tk, err);
}

int gecko_open(import_file *f, const gecko_span *s, json_tokenizer *tk, gecko_reader *r,
               json_token *first, base_error *err) {
  gecko_state *st = f->state;
  r->f = f;
  r->tk = tk;
  r->base = s->begin;
  int rc = json_tokenizer_init(tk, (const char *)f->data + s->begin, s->end - s->begin,
                               &st->limits, err);
  if (rc) return rc;
  rc = json_next(tk, first, err);
  if (rc) json_tokenizer_free(tk);
  return rc;
}

/* ---- values as spans ---- */

typedef struct gecko_span_walk {
  gecko_span_fn fn;
  void *user;
} gecko_span_walk;

static int gecko_span_member(gecko_reader *r, void *user, const json_token *key,
                             const json_token *value, base_error *err) {
  gecko_span_walk *w = user;
  gecko_span v;
  int rc = gecko_take(r, value, &v, err);
  return rc ? rc : w->fn(r->f, w->user, key->ptr, key->len, &v, err);
}

int gecko_members(import_file *f, const gecko_span *s, gecko_span_fn fn, void *user,
                  base_error *err) {
  if (s->type != JSON_TOK_OBJECT_BEGIN) return WEFT_OK;
  json_tokenizer tk;
  gecko_reader r;
  json_token t;
  int rc = gecko_open(f, s, &tk, &r, &t, err);
  if (rc) return rc;
  gecko_span_walk w = {fn, user};
  rc = gecko_walk_members(&r, gecko_span_member, &w, err);
  json_tokenizer_free(&tk);
  return rc;
}

static int gecko_span_element(gecko_reader *r, void *user, const json_token *value,
                              base_error *err) {
  gecko_spans *out = user;
  gecko_span e;
  int rc = gecko_take(r, value, &e, err);
  if (!rc && VEC_PUSH(*out, e)) rc = base_error_nomem(err);
  return rc;
}

int gecko_read_spans(gecko_reader *r, const json_token *t, gecko_spans *out, base_error *err) {
  out->len = 0;
  if (t->type != JSON_TOK_ARRAY_BEGIN) return gecko_skip(r, t, err);
  return gecko_walk_elements(r, gecko_span_element, out, err);
}

int gecko_elements(import_file *f, const gecko_span *s, gecko_spans *out, base_error *err) {
  out->len = 0;
  if (s->type != JSON_TOK_ARRAY_BEGIN) return WEFT_OK;
  json_tokenizer tk;
  gecko_reader r;
  json_token t;
  int rc = gecko_open(f, s, &tk, &r, &t, err);
  if (rc) return rc;
  rc = gecko_walk_elements(&r, gecko_span_element, out, err);
  json_tokenizer_free(&tk);
  return rc;
}

int gecko_key_is(const char *key, size_t len, const char *name) {
  return strlen(name) == len && memcmp(key, name, len) == 0;
}

int gecko_token_key_is(const json_token *key, const char *name) {
  return gecko_key_is(key->ptr, key->len, name);
}

/* ---- scalars ---- */

/* The common forms without strtod, exactly as it reads them: an optional
 * '-', digits and at most one '.', of up to 19 significant digits (an
 * integer m < 2^64), read as m / 10^decimals by base_decimal_to_double.
 * 0 for any other text, or a value that needs strtod. */
static int gecko_fast_number(const char *p, size_t len, double *out) {
  size_t i = p[0] == '-';
  uint64_t m = 0;
  int significant = 0, decimals = 0, dot = 0, digits = 0;
  for (; i < len; i++) {
    unsigned d = (unsigned char)p[i] - '0';
    if (d < 10) {
      digits++;
      decimals += dot;
      if (m == 0 && d == 0) continue; /* a leading zero */
      if (++significant > 19) return 0;
      m = m * 10 + d;
    } else if (p[i] == '.' && !dot) {
      dot = 1;
    } else {
      return 0;
    }
  }
  double v;
  if (!digits || !base_decimal_to_double(m, -decimals, &v)) return 0;
  *out = p[0] == '-' ? -v : v;
  return 1;
}

/* The number a value's text spells (all of it, as strtod reads it). */
static int gecko_text_number(const char *p, size_t len, double *out) {
  if (len && gecko_fast_number(p, len, out)) return 1;
  char buf[64];
  if (len == 0 || len >= sizeof buf) return 0;
  memcpy(buf, p, len);
  buf[len] = 0;
  char *end;
  *out = strtod(buf, &end);
  return *end == 0 && isfinite(*out);
}

int gecko_number(import_file *f, const gecko_span *s, double *out) {
  if (s->type != JSON_TOK_NUMBER && s->type != JSON_TOK_STRING) return 0;
  const char *p = (const char *)f->data + s->begin + (s->type == JSON_TOK_STRING);
  size_t len = s->end - s->begin - 2 * (s->type == JSON_TOK_STRING);
  return gecko_text_number(p, len, out);
}

/* A NUMBER token's value is the correctly rounded one strtod gives (but
 * for the sign of a zero, which no use here tells apart). */
double gecko_token_number(const json_token *t) {
  double d;
  if (t->type == JSON_TOK_NUMBER) return t->len < 64 && isfinite(t->d) ? t->d : NAN;
  if (t->type == JSON_TOK_STRING && gecko_text_number(t->ptr, t->len, &d)) return d;
  return NAN;
}

int gecko_ms_to_ns(double ms, int64_t *ns) {
  double v = ms * 1000 * 1000;
  if (!(v > -9.2e18 && v < 9.2e18)) return 0;
  *ns = (int64_t)v;
  return 1;
}

int gecko_intern(import_file *f, const gecko_span *s, string_id *out) {
  *out = STRING_NULL;
  if (s->type != JSON_TOK_STRING) return WEFT_OK;
  const char *p = (const char *)f->data + s->begin + 1;
  size_t len = s->end - s->begin - 2;
  char small[256];
  char *tmp = len < sizeof small ? small : base_malloc(len + 1);
  if (!tmp) return WEFT_ENOMEM;
  size_t out_len = 0;
  int rc = json_unescape(p, len, tmp, &out_len, NULL) ? WEFT_OK
                                                      : ctx_intern(f->ctx, tmp, out_len, out);
  if (tmp != small) base_free(tmp);
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

/* ---- interned once ---- */

int gecko_strings_ready(gecko_strings *s) {
  s->ids.len = 0;
  if (VEC_RESERVE(s->ids, s->spans.len)) return WEFT_ENOMEM;
  for (size_t i = 0; i < s->spans.len; i++) s->ids.data[i] = GECKO_NO_INDEX;
  s->ids.len = s->spans.len;
  return WEFT_OK;
}

int gecko_strings_get(import_file *f, gecko_strings *s, size_t i, string_id *out) {
  if (s->ids.data[i] != GECKO_NO_INDEX) {
    *out = s->ids.data[i];
    return WEFT_OK;
  }
  int rc = gecko_intern(f, &s->spans.data[i], out);
  if (!rc) s->ids.data[i] = *out;
  return rc;
}

void gecko_strings_free(gecko_strings *s) {
  VEC_FREE(s->spans);
  VEC_FREE(s->ids);
}
