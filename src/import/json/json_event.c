/* Decoding one Chrome JSON event object: fields, times, ids. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import/json/json_internal.h"

int json_str_from(const json_token *t, json_str *s, base_error *err) {
  base_free(s->owned); /* a repeated key: the last one wins */
  s->owned = NULL;
  int escaped = (t->type == JSON_TOK_STRING || t->type == JSON_TOK_KEY) && t->has_escapes;
  if (!escaped) {
    s->ptr = t->ptr;
    s->len = t->len;
    return WEFT_OK;
  }
  s->owned = base_malloc(t->len + 1);
  if (!s->owned) return base_error_nomem(err);
  int rc = json_unescape(t->ptr, t->len, s->owned, &s->len, err);
  if (!rc) s->len = strnlen(s->owned, s->len); /* a "\u0000" ends it, as in Perfetto */
  s->ptr = s->owned;
  return rc;
}

void json_event_free(json_event *e) {
  json_str *all[] = {&e->name, &e->cat, &e->scope, &e->bp, &e->id,
                     &e->id2_local, &e->id2_global, &e->pid_str, &e->tid_str};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (all[i]->owned) base_free(all[i]->owned);
}

/* ---- numbers ---- */

int json_parse_double(const char *p, size_t len, double *out) {
  char buf[64];
  if (len == 0 || len >= sizeof buf) return -1;
  memcpy(buf, p, len);
  buf[len] = 0;
  char *end;
  double v = strtod(buf, &end);
  if (end == buf || *end != 0 || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

/* Plain decimal text ([-+]digits[.digits]) in us -> ns, exactly (the first
 * three fraction digits). -1 if the text is not plain or too large. */
static int json_decimal_us_to_ns(const char *p, size_t len, int64_t *out) {
  const char *end = p + len;
  int neg = 0;
  if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
  int64_t whole = 0, frac = 0;
  int digits = 0, any = 0;
  while (p < end && *p >= '0' && *p <= '9') {
    if (whole > (INT64_MAX / 1000 - 999) / 10) return -1;
    whole = whole * 10 + (*p++ - '0');
    any = 1;
  }
  if (p < end && *p == '.') {
    p++;
    while (p < end && *p >= '0' && *p <= '9') {
      if (digits < 3) frac = frac * 10 + (*p - '0'), digits++;
      p++;
      any = 1;
    }
  }
  if (p != end || !any) return -1;
  while (digits++ < 3) frac *= 10;
  *out = (whole * 1000 + frac) * (neg ? -1 : 1);
  return 0;
}

static int json_double_us_to_ns(double us, int64_t *out) {
  double ns = us * 1000.0;
  if (!isfinite(ns) || fabs(ns) >= 9.2e18) return -1;
  *out = (int64_t)llround(ns);
  return 0;
}

json_number_check json_string_number(const char *p, size_t n, char *exp) {
  size_t i = 0;
  if (!n) return JSON_NUMBER_INCOMPLETE;
  if (p[i] == '-') i++;
  if (i >= n || p[i] < '0' || p[i] > '9') return JSON_NUMBER_EXPECTED_DIGIT;
  if (p[i] == '0' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9')
    return JSON_NUMBER_LEADING_ZERO;
  while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  if (i < n && p[i] == '.') {
    if (++i >= n || p[i] < '0' || p[i] > '9') return JSON_NUMBER_DIGIT_AFTER_DOT;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  }
  if (i < n && (p[i] == 'e' || p[i] == 'E')) {
    *exp = p[i++];
    if (i < n && (p[i] == '+' || p[i] == '-')) i++;
    if (i >= n || p[i] < '0' || p[i] > '9') return JSON_NUMBER_DIGIT_AFTER_EXPONENT;
    while (i < n && p[i] >= '0' && p[i] <= '9') i++;
  }
  return i < n ? JSON_NUMBER_TRAILING : JSON_NUMBER_OK;
}

int json_time_from(const json_token *t, int64_t *ns) {
  if (t->type == JSON_TOK_NUMBER) {
    if (t->is_int) {
      if (t->i > INT64_MAX / 1000 || t->i < INT64_MIN / 1000) return -1;
      *ns = t->i * 1000;
      return 0;
    }
    if (json_decimal_us_to_ns(t->ptr, t->len, ns) == 0) return 0;
    return json_double_us_to_ns(t->d, ns);
  }
  if (t->type != JSON_TOK_STRING || t->has_escapes) return -1;
  char exp;
  if (json_string_number(t->ptr, t->len, &exp) != JSON_NUMBER_OK) return -1;
  double d;
  if (json_parse_double(t->ptr, t->len, &d) != 0) return -1;
  if (json_decimal_us_to_ns(t->ptr, t->len, ns) == 0) return 0;
  return json_double_us_to_ns(d, ns);
}

/* pid/tid: non-negative integers that fit 32 bits (as Perfetto coerces). */
static int json_read_id32(const json_token *t, int64_t *out) {
  if (t->type != JSON_TOK_NUMBER) return 0;
  double v = t->is_int ? (double)t->i : t->d;
  if (!(v >= 0 && v <= 4294967295.0)) return 0;
  *out = t->is_int ? t->i : (int64_t)v;
  return 1;
}

/* A flow id: numbers as unsigned integers, strings as hex ("0x402"). */
static void json_read_flow_ref(const json_token *t, json_flow_ref *r) {
  r->present = 1;
  r->valid = 0;
  if (t->type == JSON_TOK_NUMBER) {
    if (t->is_int) r->value = (uint64_t)t->i;
    else if (t->d >= 0 && t->d < 1.8446744073709552e19) r->value = (uint64_t)t->d;
    else return;
    r->valid = 1;
    return;
  }
  if (t->type != JSON_TOK_STRING || t->len == 0 || t->len > 40) return;
  char buf[48];
  memcpy(buf, t->ptr, t->len);
  buf[t->len] = 0;
  if (buf[0] == '-' || buf[0] == '+' || buf[0] == ' ') return;
  char *end;
  unsigned long long v = strtoull(buf, &end, 16);
  if (end == buf || *end != 0) return;
  r->value = v;
  r->valid = 1;
}

/* ---- the event object ---- */

/* id2: {"local": ...} or {"global": ...} (strings or numbers). */
static int json_read_id2(json_tokenizer *tk, json_event *e, base_error *err) {
  json_token k, t;
  for (;;) {
    int rc = json_next(tk, &k, err);
    if (rc) return rc;
    if (k.type == JSON_TOK_OBJECT_END) return WEFT_OK;
    rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
      rc = json_skip_container(tk, err);
    } else if (t.type == JSON_TOK_STRING || t.type == JSON_TOK_NUMBER) {
      if (json_key_is(&k, "local")) rc = json_str_from(&t, &e->id2_local, err);
      else if (json_key_is(&k, "global")) rc = json_str_from(&t, &e->id2_global, err);
    }
    if (rc) return rc;
  }
}

static void json_read_time(const json_token *t, json_time *out) {
  out->present = 1;
  out->valid = json_time_from(t, &out->ns) == 0;
}

/* The event members json_read_scalar reads (keys compared as raw bytes). */
typedef enum json_event_key {
  JSON_KEY_OTHER, JSON_KEY_PH, JSON_KEY_NAME, JSON_KEY_CAT, JSON_KEY_S, JSON_KEY_BP,
  JSON_KEY_ID, JSON_KEY_BIND_ID, JSON_KEY_FLOW_IN, JSON_KEY_FLOW_OUT, JSON_KEY_TS,
  JSON_KEY_DUR, JSON_KEY_TTS, JSON_KEY_TDUR, JSON_KEY_PID, JSON_KEY_TID
} json_event_key;

/* Fixed-size compares, which the compiler turns into a load or two. */
#define JSON_KEY_IS(k, lit) (memcmp(k, lit, sizeof lit - 1) == 0)

static json_event_key json_event_key_of(const json_token *key) {
  const char *k = key->ptr;
  switch (key->len) {
    case 1: return k[0] == 's' ? JSON_KEY_S : JSON_KEY_OTHER;
    case 2:
      if (JSON_KEY_IS(k, "ph")) return JSON_KEY_PH;
      if (JSON_KEY_IS(k, "ts")) return JSON_KEY_TS;
      if (JSON_KEY_IS(k, "id")) return JSON_KEY_ID;
      if (JSON_KEY_IS(k, "bp")) return JSON_KEY_BP;
      return JSON_KEY_OTHER;
    case 3:
      if (JSON_KEY_IS(k, "pid")) return JSON_KEY_PID;
      if (JSON_KEY_IS(k, "tid")) return JSON_KEY_TID;
      if (JSON_KEY_IS(k, "dur")) return JSON_KEY_DUR;
      if (JSON_KEY_IS(k, "cat")) return JSON_KEY_CAT;
      if (JSON_KEY_IS(k, "tts")) return JSON_KEY_TTS;
      return JSON_KEY_OTHER;
    case 4:
      if (JSON_KEY_IS(k, "name")) return JSON_KEY_NAME;
      if (JSON_KEY_IS(k, "tdur")) return JSON_KEY_TDUR;
      return JSON_KEY_OTHER;
    case 7:
      if (JSON_KEY_IS(k, "bind_id")) return JSON_KEY_BIND_ID;
      if (JSON_KEY_IS(k, "flow_in")) return JSON_KEY_FLOW_IN;
      return JSON_KEY_OTHER;
    case 8: return JSON_KEY_IS(k, "flow_out") ? JSON_KEY_FLOW_OUT : JSON_KEY_OTHER;
    default: return JSON_KEY_OTHER;
  }
}

static int json_read_scalar(const json_token *key, const json_token *t,
                            json_event *e, base_error *err) {
  int is_str = t->type == JSON_TOK_STRING;
  switch (json_event_key_of(key)) {
    case JSON_KEY_PH:
      if (is_str && t->len) e->ph = t->ptr[0];
      break;
    case JSON_KEY_NAME: return is_str ? json_str_from(t, &e->name, err) : WEFT_OK;
    case JSON_KEY_CAT: return is_str ? json_str_from(t, &e->cat, err) : WEFT_OK;
    case JSON_KEY_S: return is_str ? json_str_from(t, &e->scope, err) : WEFT_OK;
    case JSON_KEY_BP: return is_str ? json_str_from(t, &e->bp, err) : WEFT_OK;
    case JSON_KEY_ID:
      json_read_flow_ref(t, &e->flow_v1_id);
      if (is_str || t->type == JSON_TOK_NUMBER) return json_str_from(t, &e->id, err);
      break;
    case JSON_KEY_BIND_ID: json_read_flow_ref(t, &e->bind_id); break;
    case JSON_KEY_FLOW_IN: e->flow_in = t->type == JSON_TOK_TRUE; break;
    case JSON_KEY_FLOW_OUT: e->flow_out = t->type == JSON_TOK_TRUE; break;
    case JSON_KEY_TS: json_read_time(t, &e->ts); break;
    case JSON_KEY_DUR: json_read_time(t, &e->dur); break;
    case JSON_KEY_TTS: json_read_time(t, &e->tts); break;
    case JSON_KEY_TDUR: json_read_time(t, &e->tdur); break;
    case JSON_KEY_PID:
      if (is_str) {
        e->has_pid = 1;
        return json_str_from(t, &e->pid_str, err);
      }
      e->has_pid = json_read_id32(t, &e->pid);
      break;
    case JSON_KEY_TID:
      if (is_str) {
        e->has_tid = 1;
        return json_str_from(t, &e->tid_str, err);
      }
      e->has_tid = json_read_id32(t, &e->tid);
      break;
    case JSON_KEY_OTHER: break;
  }
  return WEFT_OK;
}

static int json_read_field(json_tokenizer *tk, const json_token *key,
                           json_event *e, base_error *err) {
  json_token t;
  int rc = json_next(tk, &t, err);
  if (rc) return rc;
  if (t.type == JSON_TOK_OBJECT_BEGIN && json_key_is(key, "id2"))
    return json_read_id2(tk, e, err);
  if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
    if (json_key_is(key, "args") && t.type == JSON_TOK_OBJECT_BEGIN)
      e->args_offset = t.offset + 1; /* +1: 0 means "none" */
    return json_skip_container(tk, err);
  }
  return json_read_scalar(key, &t, e, err);
}

/* ---- the flat fast path ----
 * Most event objects are flat: unescaped keys and strings, integers or
 * short plain decimals, literals, and at most an args object. Those are
 * decoded here into the same tokens json_next would give and handed to the
 * same field readers; anything else (an escape, an exponent, id2, bad
 * syntax) returns 0 and the caller starts over on the general path. */

typedef struct json_flat {
  const char *begin, *p, *end;
  size_t max_len;     /* of a string or number (the tokenizer's limit) */
  json_limits nested; /* for a container inside the event: one level less */
} json_flat;

/* Always inlined, like the walk below: the walk is then compiled once per
 * member function, which it calls directly. */
#define JSON_FLAT_INLINE static inline __attribute__((always_inline))

JSON_FLAT_INLINE void json_flat_ws(json_flat *r) {
  if (r->p < r->end && (unsigned char)*r->p > ' ') return; /* the usual case */
  while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t'))
    r->p++;
}

/* An unescaped string at the quote r->p; 0 if it has escapes or no end. */
JSON_FLAT_INLINE int json_flat_string(json_flat *r, json_token *t) {
  const char *start = r->p + 1, *q = json_find_special(start, r->end);
  if (q >= r->end || *q != '"' || (size_t)(q - start) > r->max_len) return 0;
  t->ptr = start;
  t->len = (size_t)(q - start);
  t->has_escapes = false;
  r->p = q + 1;
  return 1;
}

/* The run of ASCII digits at p, which has 8 readable bytes: how many of
 * the 8 bytes it takes, and (in *value) the number they spell. Eight bytes
 * at a time: a byte is a digit when its high nibble is 3 and its low one
 * below 10; the digits, moved to the top bytes (leading zeros below them),
 * are then combined in pairs, quads and eights. No carry crosses a byte
 * or lane at any step. */
JSON_FLAT_INLINE unsigned json_swar_digits(const char *p, uint64_t *value) {
  const uint64_t lo = 0x0F0F0F0F0F0F0F0FULL, hi = 0xF0F0F0F0F0F0F0F0ULL;
  uint64_t v;
  memcpy(&v, p, 8);
  uint64_t not_digit = ((v & hi) ^ 0x3030303030303030ULL) | (((v & lo) + 0x0606060606060606ULL) & hi);
  uint64_t flagged = (((not_digit & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL) | not_digit) &
                     0x8080808080808080ULL;
  unsigned n = flagged ? (unsigned)__builtin_ctzll(flagged) >> 3 : 8;
  if (n == 0) {
    *value = 0;
    return 0;
  }
  uint64_t d = (v & lo) << (8 * (8 - n));
  d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFULL;
  d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFULL;
  *value = (d * 10000 + (d >> 32)) & 0xFFFFFFFFULL;
  return n;
}

/* Adds the digits at q to *mant (decimal), counting them in *digits, and
 * returns where they end; stops early once more than 15 are counted (the
 * caller then gives up). */
JSON_FLAT_INLINE const char *json_flat_digits(const char *q, const char *end, uint64_t *mant,
                                          int *digits) {
  static const uint64_t scale[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                    100000000};
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (end - q >= 8 && *digits <= 15) {
    uint64_t value;
    unsigned n = json_swar_digits(q, &value);
    *mant = *mant * scale[n] + value;
    *digits += (int)n;
    q += n;
    if (n < 8) return q;
  }
#else
  (void)scale;
#endif
  for (; q < end && (unsigned char)(*q - '0') < 10 && *digits <= 15; q++, (*digits)++)
    *mant = *mant * 10 + (uint64_t)(*q - '0');
  return q;
}

/* [-]int[.frac] with at most 15 digits in all (so the value and its double
 * are exact as json_next computes them); 0 for anything else. */
JSON_FLAT_INLINE int json_flat_number(json_flat *r, json_token *t) {
  const char *q = r->p;
  int neg = q < r->end && *q == '-';
  if (neg) q++;
  if (q >= r->end || *q < '0' || *q > '9') return 0;
  if (*q == '0' && q + 1 < r->end && q[1] >= '0' && q[1] <= '9') return 0;
  uint64_t mant = 0;
  int digits = 0, frac = 0;
  q = json_flat_digits(q, r->end, &mant, &digits);
  if (q < r->end && *q == '.') {
    int whole = digits;
    q = json_flat_digits(q + 1, r->end, &mant, &digits);
    frac = digits - whole;
    if (!frac) return 0;
  }
  if (digits > 15 || (q < r->end && (*q == 'e' || *q == 'E')) ||
      (size_t)(q - r->p) > r->max_len)
    return 0;
  t->type = JSON_TOK_NUMBER;
  t->ptr = r->p;
  t->len = (size_t)(q - r->p);
  t->is_integral = frac == 0;
  t->is_int = frac == 0;
  if (frac == 0) {
    t->i = neg ? -(int64_t)mant : (int64_t)mant;
    t->d = (double)t->i;
  } else {
    static const double pow10[16] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    double d = (double)mant / pow10[frac];
    t->d = neg ? -d : d;
  }
  r->p = q;
  return 1;
}

static int json_flat_literal(json_flat *r, json_token *t, const char *word,
                             json_token_type type) {
  size_t n = strlen(word);
  if ((size_t)(r->end - r->p) < n || memcmp(r->p, word, n) != 0) return 0;
  t->type = type;
  t->ptr = r->p;
  t->len = n;
  r->p += n;
  return 1;
}

/* Skips the object or array at r->p with the general tokenizer. */
static int json_flat_skip(json_flat *r) {
  json_tokenizer tk;
  if (!r->nested.max_depth ||
      json_trace_tokenizer_init(&tk, r->p, (size_t)(r->end - r->p), &r->nested, NULL))
    return 0;
  int ok = json_skip_value(&tk, NULL) == WEFT_OK;
  if (ok) r->p += json_offset(&tk);
  json_tokenizer_free(&tk);
  return ok;
}

/* What a flat walk does with each member: 1 to go on, 0 to give up. A
 * container value comes as its OBJECT_BEGIN / ARRAY_BEGIN token (offset
 * set); the walk skips it after the call. */
typedef int (*json_flat_member_fn)(void *user, const json_token *key, const json_token *value);

/* One "key": value member; 0 to give up. */
JSON_FLAT_INLINE int json_flat_member(json_flat *r, json_flat_member_fn fn, void *user) {
  json_token key, v;
  memset(&v, 0, sizeof v);
  key.type = JSON_TOK_KEY;
  if (r->p >= r->end || *r->p != '"' || !json_flat_string(r, &key)) return 0;
  json_flat_ws(r);
  if (r->p >= r->end || *r->p != ':') return 0;
  r->p++;
  json_flat_ws(r);
  if (r->p >= r->end) return 0;
  v.offset = (size_t)(r->p - r->begin);
  int ok;
  switch (*r->p) {
    case '"':
      v.type = JSON_TOK_STRING;
      ok = json_flat_string(r, &v);
      break;
    case '{':
    case '[':
      v.type = *r->p == '{' ? JSON_TOK_OBJECT_BEGIN : JSON_TOK_ARRAY_BEGIN;
      v.ptr = r->p, v.len = 1; /* its first byte, as the tokenizer gives it */
      return fn(user, &key, &v) && json_flat_skip(r);
    case 't': ok = json_flat_literal(r, &v, "true", JSON_TOK_TRUE); break;
    case 'f': ok = json_flat_literal(r, &v, "false", JSON_TOK_FALSE); break;
    case 'n': ok = json_flat_literal(r, &v, "null", JSON_TOK_NULL); break;
    default: ok = json_flat_number(r, &v); break;
  }
  return ok && fn(user, &key, &v);
}

/* Walks the object at r->begin: 1 with *end the offset just past its '}'
 * (from r->begin), 0 if it is not flat. */
JSON_FLAT_INLINE int json_flat_object(json_flat *r, json_flat_member_fn fn, void *user,
                                      size_t *end) {
  if (r->p >= r->end || *r->p != '{') return 0;
  r->p++;
  json_flat_ws(r);
  if (r->p < r->end && *r->p == '}') {
    *end = (size_t)(r->p - r->begin) + 1;
    return 1;
  }
  for (;;) {
    if (!json_flat_member(r, fn, user)) return 0;
    json_flat_ws(r);
    if (r->p >= r->end) return 0;
    if (*r->p == '}') {
      *end = (size_t)(r->p - r->begin) + 1;
      return 1;
    }
    if (*r->p != ',') return 0;
    r->p++;
    json_flat_ws(r);
  }
}

int json_is_container(const json_token *t) {
  return t->type == JSON_TOK_OBJECT_BEGIN || t->type == JSON_TOK_ARRAY_BEGIN;
}

/* The parse's members: json_read_field's doing, for flat values. */
typedef struct json_flat_event {
  json_event *e;
  size_t offset; /* of the object in the file */
} json_flat_event;

static int json_flat_event_member(void *user, const json_token *key, const json_token *v) {
  json_flat_event *fe = user;
  if (!json_is_container(v)) return json_read_scalar(key, v, fe->e, NULL) == WEFT_OK;
  if (json_key_is(key, "id2")) return 0;
  if (v->type == JSON_TOK_OBJECT_BEGIN && json_key_is(key, "args"))
    fe->e->args_offset = fe->offset + v->offset;
  return 1;
}

/* A flat reader over data[offset, len) for an object whose nested
 * containers may open `nested_depth` more levels. */
static void json_flat_init(json_flat *r, const char *data, size_t len, size_t offset,
                           size_t max_string_len, uint32_t nested_depth) {
  r->begin = r->p = data + offset;
  r->end = data + len;
  r->max_len = max_string_len ? max_string_len : JSON_DEFAULT_MAX_STRING_LEN;
  r->nested.max_depth = nested_depth;
  r->nested.max_string_len = max_string_len;
}

int json_read_flat(const import_file *f, size_t offset, json_event *e) {
  const json_state *st = f->state;
  json_flat r;
  /* The event object is one level: nested containers get one less. */
  json_flat_init(&r, (const char *)f->data, f->len, offset, st->limits.max_string_len,
                 (st->limits.max_depth ? st->limits.max_depth : JSON_DEFAULT_MAX_DEPTH) - 1);
  json_flat_event fe = {e, offset};
  size_t end;
  if (!json_flat_object(&r, json_flat_event_member, &fe, &end)) return 0;
  e->end = offset + end;
  return 1;
}

void json_event_head_member(json_event_head *h, const json_token *key, const json_token *v) {
  h->any_key = 1;
  int is_ts = json_key_is(key, "ts"), is_dur = !is_ts && json_key_is(key, "dur");
  if (is_ts || is_dur) {
    json_time_value *tv = is_ts ? &h->ts_value : &h->dur_value;
    tv->type = v->type, tv->ptr = v->ptr, tv->len = v->len;
  }
  if (json_is_container(v)) return;
  json_time *tm = is_ts ? &h->ts : is_dur ? &h->dur : NULL;
  if (tm) {
    tm->present = 1;
    tm->valid = json_time_from(v, &tm->ns) == 0;
  } else if (json_key_is(key, "ph") && v->type == JSON_TOK_STRING && v->len) {
    h->ph = v->ptr[0];
  }
}

static int json_flat_head_member(void *user, const json_token *key, const json_token *v) {
  json_event_head_member(user, key, v);
  return 1;
}

int json_read_head_flat(const char *data, size_t len, size_t offset, size_t max_string_len,
                        uint32_t nested_depth, json_event_head *h, size_t *end) {
  json_flat r;
  json_flat_init(&r, data, len, offset, max_string_len, nested_depth);
  memset(h, 0, sizeof *h);
  size_t rel;
  if (!json_flat_object(&r, json_flat_head_member, h, &rel)) return 0;
  *end = offset + rel;
  return 1;
}

int json_read_event(import_file *f, size_t offset, json_event *e,
                    base_error *err) {
  if (json_read_flat(f, offset, e)) return WEFT_OK;
  json_event_free(e); /* nothing is owned: no escapes on that path */
  memset(e, 0, sizeof *e);
  return json_read_event_tokens(f, offset, e, err);
}

int json_read_event_tokens(import_file *f, size_t offset, json_event *e,
                           base_error *err) {
  json_state *st = f->state;
  json_tokenizer tk;
  int rc = json_trace_tokenizer_init(&tk, (const char *)f->data + offset, f->len - offset,
                               &st->limits, err);
  if (rc) return rc;
  json_token t;
  rc = json_next(&tk, &t, err);
  if (rc == WEFT_OK && t.type != JSON_TOK_OBJECT_BEGIN)
    rc = base_error_set(err, WEFT_EPARSE, "json: event at offset %zu is not an object", offset);
  while (rc == WEFT_OK) {
    rc = json_next(&tk, &t, err);
    if (rc) break;
    if (t.type == JSON_TOK_OBJECT_END) {
      e->end = offset + t.offset + 1;
      break;
    }
    rc = json_read_field(&tk, &t, e, err);
  }
  if (e->args_offset) e->args_offset = e->args_offset - 1 + offset;
  json_tokenizer_free(&tk);
  return rc;
}

/* ---- input holds ---- */

static size_t json_hold_len(const import_file *f, size_t start, size_t end) {
  if (end <= start) return 0; /* unknown */
  size_t stop = end <= f->len && f->len - end >= JSON_HOLD_PAD ? end + JSON_HOLD_PAD : f->len;
  return stop > start ? stop - start : 0;
}

void json_hold_event(import_file *f, size_t start, size_t end) {
  import_input_hold(f, start, json_hold_len(f, start, end));
}

void json_release_event(import_file *f, size_t start, size_t end) {
  import_input_release(f, start, json_hold_len(f, start, end));
}

size_t json_event_extent(import_file *f, size_t start) {
  json_state *st = f->state;
  json_tokenizer tk;
  json_token t;
  if (start >= f->len || json_trace_tokenizer_init(&tk, (const char *)f->data + start,
                                             f->len - start, &st->limits, NULL))
    return 0;
  size_t end = 0;
  if (json_next(&tk, &t, NULL) == WEFT_OK && t.type == JSON_TOK_OBJECT_BEGIN &&
      json_skip_container(&tk, NULL) == WEFT_OK)
    end = start + json_offset(&tk);
  json_tokenizer_free(&tk);
  return end;
}
