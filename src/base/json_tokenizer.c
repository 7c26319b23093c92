/* Streaming JSON tokenizer: a flat state machine over a byte buffer. */
#include "base/json_tokenizer.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <assert.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum json_state {
  JSON_ST_VALUE,     /* a value is expected (document start, after ':' or ",") */
  JSON_ST_ARR_FIRST, /* after '[': a value or ']' */
  JSON_ST_OBJ_FIRST, /* after '{': a key or '}' */
  JSON_ST_KEY,       /* after ',' in an object: a key */
  JSON_ST_AFTER,     /* after a value: ',' or a closing bracket (or EOF at depth 0) */
  JSON_ST_DONE       /* EOF has been returned */
};

#define JSON_INLINE static inline __attribute__((always_inline))

/* ---- character classes ---- */

enum { JSON_C_WS = 1, JSON_C_DIGIT = 2, JSON_C_HEX = 4 };

static const uint8_t json_class[256] = {
    [' '] = JSON_C_WS, ['\t'] = JSON_C_WS, ['\n'] = JSON_C_WS, ['\r'] = JSON_C_WS,
    ['0'] = 6, ['1'] = 6, ['2'] = 6, ['3'] = 6, ['4'] = 6,
    ['5'] = 6, ['6'] = 6, ['7'] = 6, ['8'] = 6, ['9'] = 6,
    ['a'] = 4, ['b'] = 4, ['c'] = 4, ['d'] = 4, ['e'] = 4, ['f'] = 4,
    ['A'] = 4, ['B'] = 4, ['C'] = 4, ['D'] = 4, ['E'] = 4, ['F'] = 4,
};

JSON_INLINE bool json_is_digit(char c) {
  return (json_class[(uint8_t)c] & JSON_C_DIGIT) != 0;
}
JSON_INLINE bool json_is_hex(char c) {
  return (json_class[(uint8_t)c] & JSON_C_HEX) != 0;
}

JSON_INLINE const char *json_skip_ws(const char *p, const char *end) {
  while (p < end && (json_class[(uint8_t)*p] & JSON_C_WS)) p++;
  return p;
}

/* ---- errors ---- */

void json_line_col(const char *buf, size_t len, size_t offset, size_t *line,
                   size_t *col) {
  if (offset > len) offset = len;
  size_t ln = 1, line_start = 0;
  const char *p = buf, *stop = buf + offset;
  while (p < stop) {
    const char *nl = memchr(p, '\n', (size_t)(stop - p));
    if (!nl) break;
    ln++;
    p = nl + 1;
    line_start = (size_t)(p - buf);
  }
  *line = ln;
  *col = offset - line_start + 1;
}

__attribute__((format(printf, 5, 6))) static int json_fail(
    json_tokenizer *t, base_error *err, int code, const char *at,
    const char *fmt, ...) {
  char what[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  size_t offset = (size_t)(at - t->begin), line, col;
  json_line_col(t->begin, (size_t)(t->end - t->begin), offset, &line, &col);
  t->status = code;
  t->p = at;
  return base_error_set(err, code, "json: %s at offset %zu (line %zu, column %zu)",
                        what, offset, line, col);
}

static int json_fail_eof(json_tokenizer *t, base_error *err) {
  t->hit_end = true;
  return json_fail(t, err, WEFT_EPARSE, t->end, "unexpected end of input");
}

static int json_fail_char(json_tokenizer *t, base_error *err, const char *at,
                          const char *expected) {
  unsigned char c = (unsigned char)*at;
  if (c >= 0x21 && c < 0x7f)
    return json_fail(t, err, WEFT_EPARSE, at, "unexpected character '%c', expected %s",
                     c, expected);
  return json_fail(t, err, WEFT_EPARSE, at,
                   "unexpected byte 0x%02x, expected %s", c, expected);
}

/* ---- init ---- */

int json_tokenizer_init(json_tokenizer *t, const char *buf, size_t len,
                        const json_limits *limits, base_error *err) {
  memset(t, 0, sizeof *t);
  t->begin = t->p = buf;
  t->end = buf + len;
  t->state = JSON_ST_VALUE;
  t->max_depth = limits && limits->max_depth ? limits->max_depth
                                             : JSON_DEFAULT_MAX_DEPTH;
  t->max_string_len = limits && limits->max_string_len
                          ? limits->max_string_len
                          : JSON_DEFAULT_MAX_STRING_LEN;
  size_t words = ((size_t)t->max_depth + 63) / 64;
  if (words <= sizeof t->stack_inline / sizeof t->stack_inline[0]) {
    t->stack = t->stack_inline;
    return WEFT_OK;
  }
  t->stack = base_calloc(words, sizeof *t->stack);
  if (!t->stack) {
    t->status = WEFT_ENOMEM;
    return base_error_set(err, WEFT_ENOMEM, "json: out of memory");
  }
  return WEFT_OK;
}

void json_tokenizer_free(json_tokenizer *t) {
  if (t->stack && t->stack != t->stack_inline) base_free(t->stack);
  t->stack = NULL;
}

/* ---- container stack ---- */

JSON_INLINE bool json_in_object(const json_tokenizer *t) {
  uint32_t top = t->depth - 1;
  return (t->stack[top >> 6] >> (top & 63)) & 1;
}

JSON_INLINE int json_push(json_tokenizer *t, bool is_object, const char *at,
                          base_error *err) {
  if (t->depth >= t->max_depth)
    return json_fail(t, err, WEFT_ELIMIT, at,
                     "nesting deeper than the limit of %u", t->max_depth);
  uint32_t d = t->depth++;
  uint64_t bit = (uint64_t)1 << (d & 63);
  if (is_object)
    t->stack[d >> 6] |= bit;
  else
    t->stack[d >> 6] &= ~bit;
  return WEFT_OK;
}

/* ---- strings ---- */

/* Scans the string whose opening quote is at `quote`; fills span fields and
 * returns the position after the closing quote, or NULL on error. */
JSON_INLINE const char *json_scan_string(json_tokenizer *t, const char *quote,
                                         json_token *tok, base_error *err) {
  const char *start = quote + 1, *p = start, *end = t->end;
  bool escapes = false;
  for (;;) {
    p = json_find_special(p, end);
    if (p == end) return json_fail_eof(t, err), NULL;
    if (*p == '"') break;
    escapes = true;
    if (end - p < 2) return json_fail_eof(t, err), NULL;
    switch (p[1]) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r':
      case 't':
        p += 2;
        continue;
      case 'u':
        for (int i = 2; i < 6; i++) {
          if (p + i >= end) return json_fail_eof(t, err), NULL;
          if (!json_is_hex(p[i]))
            return json_fail(t, err, WEFT_EPARSE, p,
                             "invalid \\u escape (expected 4 hex digits)"),
                   NULL;
        }
        p += 6;
        continue;
      default:
        return json_fail(t, err, WEFT_EPARSE, p, "invalid escape sequence"),
               NULL;
    }
  }
  size_t len = (size_t)(p - start);
  if (len > t->max_string_len)
    return json_fail(t, err, WEFT_ELIMIT, quote,
                     "string of %zu bytes is longer than the limit of %zu",
                     len, t->max_string_len),
           NULL;
  tok->ptr = start;
  tok->len = len;
  tok->has_escapes = escapes;
  return p + 1;
}

/* ---- numbers ---- */

static locale_t json_c_locale;
static pthread_once_t json_c_locale_once = PTHREAD_ONCE_INIT;
static void json_c_locale_init(void) {
  json_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

/* Correctly rounded conversion of a number's text of `len` bytes; false
 * only if the copy of a number longer than 127 bytes cannot be allocated. */
static bool json_strtod(const char *s, size_t len, double *out) {
  char small[128];
  char *copy = len < sizeof small ? small : base_malloc(len + 1);
  if (!copy) return false;
  memcpy(copy, s, len);
  copy[len] = '\0';
  pthread_once(&json_c_locale_once, json_c_locale_init);
  *out = json_c_locale ? strtod_l(copy, NULL, json_c_locale) : strtod(copy, NULL);
  if (copy != small) base_free(copy);
  return true;
}

/* Eight digits at *p folded into *mant (mant * 10^8 + their value) and *p
 * moved past them; false, with nothing changed, unless the next eight
 * bytes are all digits. SWAR on little-endian machines; byte by byte
 * elsewhere. */
static inline bool json_take8(const char **p, const char *end, uint64_t *mant) {
  if (end - *p < 8) return false;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  memcpy(&v, *p, 8);
  const uint64_t highs = 0xF0F0F0F0F0F0F0F0ULL;
  /* every byte 0x30..0x39: its high nibble 3, and adding 6 keeps it 3 */
  if (((v & highs) | (((v + 0x0606060606060606ULL) & highs) >> 4)) != 0x3333333333333333ULL)
    return false;
  v -= 0x3030303030303030ULL;           /* the digits, first in the lowest byte */
  v = v * 10 + (v >> 8);                /* pairs: each 16-bit lane's low byte */
  const uint64_t pairs = 0x000000FF000000FFULL;
  v = ((v & pairs) * (100 + (UINT64_C(1000000) << 32)) +
       ((v >> 16) & pairs) * (1 + (UINT64_C(10000) << 32))) >> 32;
  *mant = *mant * 100000000u + v;
#else
  uint64_t m = 0;
  for (int i = 0; i < 8; i++) {
    unsigned d = (unsigned char)(*p)[i] - '0';
    if (d > 9) return false;
    m = m * 10 + d;
  }
  *mant = *mant * 100000000u + m;
#endif
  *p += 8;
  return true;
}

/* Scans a number starting at p (a '-' or digit). With `convert`, sets
 * i/d/is_int. Returns the position after the number or NULL on error. */
JSON_INLINE const char *json_scan_number(json_tokenizer *t, const char *p,
                                         json_token *tok, bool convert,
                                         base_error *err) {
  const char *start = p, *end = t->end;
  bool neg = false;
  if (*p == '-') {
    neg = true;
    if (++p == end) return json_fail_eof(t, err), NULL;
  }
  uint64_t mant = 0;     /* significant digits (integer and fraction) */
  int sig_digits = 0;    /* digits in mant from the first non-zero one */
  int64_t frac_digits = 0; /* fraction digits folded into mant */
  bool inexact = false;  /* digits were dropped: mant is not the value */
  if (*p == '0') {
    p++;
    if (p < end && json_is_digit(*p))
      return json_fail(t, err, WEFT_EPARSE, start,
                       "invalid number (leading zero)"),
             NULL;
  } else if (json_is_digit(*p)) {
    while (sig_digits <= 19 - 8 && json_take8(&p, end, &mant)) sig_digits += 8;
    while (p < end && json_is_digit(*p)) {
      if (sig_digits < 19) {
        mant = mant * 10 + (uint64_t)(*p - '0');
        sig_digits++;
      } else {
        inexact = true;
      }
      p++;
    }
  } else {
    return json_fail_char(t, err, p, "a digit"), NULL;
  }
  bool integral = true;
  if (p < end && *p == '.') {
    integral = false;
    if (++p == end) return json_fail_eof(t, err), NULL;
    if (!json_is_digit(*p))
      return json_fail_char(t, err, p, "a digit after '.'"), NULL;
    /* (leading zeros of a fraction are no significant digits: eight at a
     * time only once the mantissa has begun) */
    while (mant && sig_digits <= 19 - 8 && frac_digits <= 400 - 8 && json_take8(&p, end, &mant)) {
      sig_digits += 8;
      frac_digits += 8;
    }
    while (p < end && json_is_digit(*p)) {
      if (sig_digits < 19 && frac_digits < 400) {
        mant = mant * 10 + (uint64_t)(*p - '0');
        frac_digits++;
        if (mant) sig_digits++;
      } else {
        inexact = true;
      }
      p++;
    }
  }
  int64_t exp10 = 0;
  if (p < end && (*p == 'e' || *p == 'E')) {
    integral = false;
    if (++p == end) return json_fail_eof(t, err), NULL;
    bool exp_neg = false;
    if (*p == '+' || *p == '-') {
      exp_neg = *p == '-';
      if (++p == end) return json_fail_eof(t, err), NULL;
    }
    if (!json_is_digit(*p))
      return json_fail_char(t, err, p, "a digit in the exponent"), NULL;
    while (p < end && json_is_digit(*p)) {
      if (exp10 < 100000) exp10 = exp10 * 10 + (*p - '0');
      p++;
    }
    if (exp_neg) exp10 = -exp10;
  }
  size_t len = (size_t)(p - start);
  if (len > t->max_string_len)
    return json_fail(t, err, WEFT_ELIMIT, start,
                     "number of %zu bytes is longer than the limit of %zu", len,
                     t->max_string_len),
           NULL;
  tok->ptr = start;
  tok->len = len;
  tok->is_integral = integral;
  tok->is_int = false;
  if (!convert) return p;
  if (integral && !inexact &&
      mant <= (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
    tok->is_int = true;
    tok->i = neg ? (int64_t)(0 - mant) : (int64_t)mant;
    tok->d = (double)tok->i;
    return p;
  }
  int64_t e = exp10 - frac_digits;
  double d;
  if (!inexact && e >= -400 && e <= 400 && base_decimal_to_double(mant, (int)e, &d)) {
    tok->d = neg ? -d : d;
    return p;
  }
  if (!json_strtod(start, len, &tok->d))
    return json_fail(t, err, WEFT_ENOMEM, start, "out of memory"), NULL;
  return p;
}

/* ---- literals ---- */

JSON_INLINE const char *json_scan_literal(json_tokenizer *t, const char *p,
                                          const char *word, size_t n,
                                          json_token *tok, base_error *err) {
  size_t avail = (size_t)(t->end - p);
  size_t cmp = avail < n ? avail : n;
  if (memcmp(p, word, cmp) != 0)
    return json_fail(t, err, WEFT_EPARSE, p, "invalid literal (expected %s)",
                     word),
           NULL;
  if (avail < n) return json_fail_eof(t, err), NULL;
  tok->ptr = p;
  tok->len = n;
  return p + n;
}

/* ---- the state machine ---- */

JSON_INLINE int json_emit(json_tokenizer *t, json_token *tok,
                          json_token_type type, const char *at,
                          const char *next, int state) {
  tok->type = type;
  tok->offset = (size_t)(at - t->begin);
  t->p = next;
  t->state = state;
  return WEFT_OK;
}

/* Reads a value starting at p (non-whitespace, p < end). */
JSON_INLINE int json_read_value(json_tokenizer *t, const char *p,
                                json_token *tok, bool convert,
                                base_error *err) {
  const char *next;
  switch (*p) {
    case '"':
      if (!(next = json_scan_string(t, p, tok, err))) return t->status;
      return json_emit(t, tok, JSON_TOK_STRING, p, next, JSON_ST_AFTER);
    case '{':
      if (json_push(t, true, p, err)) return t->status;
      tok->ptr = p;
      tok->len = 1;
      return json_emit(t, tok, JSON_TOK_OBJECT_BEGIN, p, p + 1, JSON_ST_OBJ_FIRST);
    case '[':
      if (json_push(t, false, p, err)) return t->status;
      tok->ptr = p;
      tok->len = 1;
      return json_emit(t, tok, JSON_TOK_ARRAY_BEGIN, p, p + 1, JSON_ST_ARR_FIRST);
    case 't':
      if (!(next = json_scan_literal(t, p, "true", 4, tok, err))) return t->status;
      return json_emit(t, tok, JSON_TOK_TRUE, p, next, JSON_ST_AFTER);
    case 'f':
      if (!(next = json_scan_literal(t, p, "false", 5, tok, err))) return t->status;
      return json_emit(t, tok, JSON_TOK_FALSE, p, next, JSON_ST_AFTER);
    case 'n':
      if (!(next = json_scan_literal(t, p, "null", 4, tok, err))) return t->status;
      return json_emit(t, tok, JSON_TOK_NULL, p, next, JSON_ST_AFTER);
    case '-': case '0': case '1': case '2': case '3': case '4': case '5':
    case '6': case '7': case '8': case '9':
      if (!(next = json_scan_number(t, p, tok, convert, err))) return t->status;
      return json_emit(t, tok, JSON_TOK_NUMBER, p, next, JSON_ST_AFTER);
    default:
      return json_fail_char(t, err, p, "a value");
  }
}

/* Reads a key (p at non-whitespace, p < end) and its ':'. */
JSON_INLINE int json_read_key(json_tokenizer *t, const char *p,
                              json_token *tok, base_error *err) {
  if (*p != '"') {
    if (*p == '}' && t->state == JSON_ST_KEY)
      return json_fail(t, err, WEFT_EPARSE, p, "trailing comma before '}'");
    return json_fail_char(t, err, p, "a string key");
  }
  const char *next = json_scan_string(t, p, tok, err);
  if (!next) return t->status;
  next = json_skip_ws(next, t->end);
  if (next == t->end) return json_fail_eof(t, err);
  if (*next != ':') return json_fail_char(t, err, next, "':' after a key");
  return json_emit(t, tok, JSON_TOK_KEY, p, next + 1, JSON_ST_VALUE);
}

JSON_INLINE int json_close(json_tokenizer *t, json_token *tok, const char *p,
                           json_token_type type) {
  t->depth--;
  tok->ptr = p;
  tok->len = 1;
  return json_emit(t, tok, type, p, p + 1, JSON_ST_AFTER);
}

JSON_INLINE int json_next_impl(json_tokenizer *t, json_token *tok,
                               bool convert, base_error *err) {
  if (t->status) return t->status;
  const char *end = t->end;
  const char *p = json_skip_ws(t->p, end);
  switch (t->state) {
    case JSON_ST_AFTER:
      if (t->depth == 0) {
        if (p != end)
          return json_fail_char(t, err, p, "end of input after the top-level value");
        return json_emit(t, tok, JSON_TOK_EOF, p, p, JSON_ST_DONE);
      }
      if (p == end) return json_fail_eof(t, err);
      if (*p == ',') {
        p = json_skip_ws(p + 1, end);
        if (p == end) return json_fail_eof(t, err);
        if (json_in_object(t)) {
          if (*p == '}' && t->trailing_commas)
            return json_close(t, tok, p, JSON_TOK_OBJECT_END);
          t->state = JSON_ST_KEY;
          return json_read_key(t, p, tok, err);
        }
        if (*p == ']') {
          if (t->trailing_commas) return json_close(t, tok, p, JSON_TOK_ARRAY_END);
          return json_fail(t, err, WEFT_EPARSE, p, "trailing comma before ']'");
        }
        return json_read_value(t, p, tok, convert, err);
      }
      if (json_in_object(t)) {
        if (*p == '}') return json_close(t, tok, p, JSON_TOK_OBJECT_END);
        return json_fail_char(t, err, p, "',' or '}'");
      }
      if (*p == ']') return json_close(t, tok, p, JSON_TOK_ARRAY_END);
      return json_fail_char(t, err, p, "',' or ']'");
    case JSON_ST_VALUE:
      if (p == end) return json_fail_eof(t, err);
      return json_read_value(t, p, tok, convert, err);
    case JSON_ST_OBJ_FIRST:
      if (p == end) return json_fail_eof(t, err);
      if (*p == '}') return json_close(t, tok, p, JSON_TOK_OBJECT_END);
      return json_read_key(t, p, tok, err);
    case JSON_ST_ARR_FIRST:
      if (p == end) return json_fail_eof(t, err);
      if (*p == ']') return json_close(t, tok, p, JSON_TOK_ARRAY_END);
      return json_read_value(t, p, tok, convert, err);
    case JSON_ST_KEY:
      if (p == end) return json_fail_eof(t, err);
      return json_read_key(t, p, tok, err);
    default: /* JSON_ST_DONE */
      return json_emit(t, tok, JSON_TOK_EOF, p, p, JSON_ST_DONE);
  }
}

int json_next(json_tokenizer *t, json_token *tok, base_error *err) {
  return json_next_impl(t, tok, true, err);
}

/* Skips tokens until the depth drops back to `target`. */
static int json_skip_to_depth(json_tokenizer *t, uint32_t target,
                              base_error *err) {
  json_token tok;
  while (t->depth > target) {
    int rc = json_next_impl(t, &tok, false, err);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int json_skip_value(json_tokenizer *t, base_error *err) {
  if (t->status) return t->status;
  bool expecting = t->state == JSON_ST_VALUE;
  if (t->state == JSON_ST_ARR_FIRST) {
    const char *p = json_skip_ws(t->p, t->end);
    expecting = p == t->end || *p != ']';
  }
  if (!expecting)
    return base_error_set(err, WEFT_EINVAL,
                          "json: json_skip_value called where no value is expected");
  uint32_t depth = t->depth;
  json_token tok;
  int rc = json_next_impl(t, &tok, false, err);
  if (rc) return rc;
  return json_skip_to_depth(t, depth, err);
}

void json_tokenizer_enter(json_tokenizer *t, uint32_t depth, uint64_t object_bits, size_t end) {
  t->depth = depth;
  t->stack[0] = object_bits;
  t->p = t->begin + end;
  t->state = JSON_ST_AFTER;
}

void json_tokenizer_resume_after(json_tokenizer *t, size_t end) {
  t->depth--;
  t->p = t->begin + end;
  t->state = JSON_ST_AFTER;
}

void json_tokenizer_fork(json_tokenizer *t, const json_tokenizer *from) {
  assert(t->begin == from->begin && t->end == from->end);
  assert(t->max_depth == from->max_depth && t->stack != from->stack);
  size_t words = ((size_t)from->depth + 63) / 64;
  if (words) memcpy(t->stack, from->stack, words * sizeof *t->stack);
  t->p = from->p;
  t->depth = from->depth;
  t->state = from->state;
  t->status = from->status;
  t->hit_end = from->hit_end;
  t->trailing_commas = from->trailing_commas;
}

/* ---- finding a container's end ---- */

/* '"' and the four brackets: (c & 0xD9) == 0x59 holds for '[' ']' '{' '}'
 * and, of other bytes, only for 'Y' '_' 'y' and DEL, which outside a string
 * belong to no JSON token (the caller steps over them). */
static int json_is_structural(unsigned char c) {
  return c == '"' || (c & 0xD9) == 0x59;
}

/* The first byte in [p, end) that may be structural (above), or end:
 * sixteen bytes at a time with SSE2, else eight. */
static const char *json_find_structural(const char *p, const char *end) {
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), mask = _mm_set1_epi8((char)0xD9),
                bracket = _mm_set1_epi8(0x59);
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                               _mm_cmpeq_epi8(_mm_and_si128(v, mask), bracket));
    unsigned bits = (unsigned)_mm_movemask_epi8(hit);
    if (bits) return p + __builtin_ctz(bits);
    p += 16;
  }
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (end - p >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t q = v ^ (ones * '"'), b = (v & (ones * 0xD9)) ^ (ones * 0x59);
    uint64_t hit = ((q - ones) & ~q & highs) | ((b - ones) & ~b & highs);
    if (hit) return p + (__builtin_ctzll(hit) >> 3); /* the lowest is exact */
    p += 8;
  }
#else
  (void)ones, (void)highs;
#endif
  while (p < end && !json_is_structural((unsigned char)*p)) p++;
  return p;
}

/* Just past the string whose opening quote was at p - 1, or NULL. */
static const char *json_string_past(const char *p, const char *end) {
  for (;;) {
    p = json_find_special(p, end);
    if (p >= end) return NULL;
    if (*p == '"') return p + 1;
    p += 2; /* a backslash and the byte it escapes */
  }
}

size_t json_container_end(const char *buf, size_t len, size_t at, uint32_t max_depth) {
  const char *p = buf + at, *end = buf + len;
  if (at >= len || (*p != '{' && *p != '[')) return 0;
  uint32_t depth = 0;
  while ((p = json_find_structural(p, end)) < end) {
    char c = *p++;
    if (c == '"') {
      if (!(p = json_string_past(p, end))) return 0;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return 0;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return (size_t)(p - buf);
    }
  }
  return 0;
}

int json_skip_container(json_tokenizer *t, base_error *err) {
  if (t->status) return t->status;
  if (t->depth == 0)
    return base_error_set(err, WEFT_EINVAL,
                          "json: json_skip_container called outside a container");
  return json_skip_to_depth(t, t->depth - 1, err);
}

/* ---- unescaping ---- */

static unsigned json_hex4(const char *s) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = s[i];
    unsigned d = c <= '9' ? (unsigned)(c - '0')
                 : c <= 'F' ? (unsigned)(c - 'A' + 10)
                            : (unsigned)(c - 'a' + 10);
    v = v << 4 | d;
  }
  return v;
}

static bool json_hex4_valid(const char *s, const char *end) {
  if (end - s < 4) return false;
  return json_is_hex(s[0]) && json_is_hex(s[1]) && json_is_hex(s[2]) &&
         json_is_hex(s[3]);
}

static char *json_put_utf8(char *d, uint32_t cp) {
  if (cp < 0x80) {
    *d++ = (char)cp;
  } else if (cp < 0x800) {
    *d++ = (char)(0xc0 | cp >> 6);
    *d++ = (char)(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    *d++ = (char)(0xe0 | cp >> 12);
    *d++ = (char)(0x80 | ((cp >> 6) & 0x3f));
    *d++ = (char)(0x80 | (cp & 0x3f));
  } else {
    *d++ = (char)(0xf0 | cp >> 18);
    *d++ = (char)(0x80 | ((cp >> 12) & 0x3f));
    *d++ = (char)(0x80 | ((cp >> 6) & 0x3f));
    *d++ = (char)(0x80 | (cp & 0x3f));
  }
  return d;
}

/* Decodes the \u escape at s (s[0] == '\\', s[1] == 'u'), combining a
 * following low surrogate. Returns the input consumed, or 0 if invalid. */
static size_t json_decode_u(const char *s, const char *end, uint32_t *cp) {
  if (!json_hex4_valid(s + 2, end)) return 0;
  uint32_t u = json_hex4(s + 2);
  if (u >= 0xd800 && u <= 0xdbff && end - s >= 12 && s[6] == '\\' &&
      s[7] == 'u' && json_hex4_valid(s + 8, end)) {
    uint32_t lo = json_hex4(s + 8);
    if (lo >= 0xdc00 && lo <= 0xdfff) {
      *cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
      return 12;
    }
  }
  *cp = (u >= 0xd800 && u <= 0xdfff) ? 0xfffd : u;
  return 6;
}

int json_unescape(const char *src, size_t len, char *dst, size_t *out_len,
                  base_error *err) {
  const char *s = src, *end = src + len;
  char *d = dst;
  while (s < end) {
    const char *bs = memchr(s, '\\', (size_t)(end - s));
    size_t run = (size_t)((bs ? bs : end) - s);
    memmove(d, s, run);
    d += run;
    if (!bs) break;
    s = bs;
    if (end - s < 2)
      return base_error_set(err, WEFT_EPARSE, "json: truncated escape sequence");
    char c = s[1], out;
    switch (c) {
      case '"': out = '"'; break;
      case '\\': out = '\\'; break;
      case '/': out = '/'; break;
      case 'b': out = '\b'; break;
      case 'f': out = '\f'; break;
      case 'n': out = '\n'; break;
      case 'r': out = '\r'; break;
      case 't': out = '\t'; break;
      case 'u': {
        uint32_t cp;
        size_t used = json_decode_u(s, end, &cp);
        if (!used)
          return base_error_set(err, WEFT_EPARSE, "json: invalid \\u escape");
        d = json_put_utf8(d, cp);
        s += used;
        continue;
      }
      default:
        return base_error_set(err, WEFT_EPARSE, "json: invalid escape sequence");
    }
    *d++ = out;
    s += 2;
  }
  *out_len = (size_t)(d - dst);
  return WEFT_OK;
}

const char *json_token_type_name(json_token_type type) {
  switch (type) {
    case JSON_TOK_EOF: return "end of input";
    case JSON_TOK_OBJECT_BEGIN: return "object";
    case JSON_TOK_OBJECT_END: return "'}'";
    case JSON_TOK_ARRAY_BEGIN: return "array";
    case JSON_TOK_ARRAY_END: return "']'";
    case JSON_TOK_KEY: return "key";
    case JSON_TOK_STRING: return "string";
    case JSON_TOK_NUMBER: return "number";
    case JSON_TOK_TRUE: case JSON_TOK_FALSE: return "boolean";
    case JSON_TOK_NULL: return "null";
  }
  return "?";
}

double json_number_double(const json_token *t) {
  if (t->is_int || !t->is_integral) return t->d;
  uint64_t u = 0;
  size_t first = t->len && t->ptr[0] == '-' ? 1 : 0;
  for (size_t i = first; i < t->len; i++) u = u * 10 + (uint64_t)(t->ptr[i] - '0');
  if (first) u = 0 - u;
  return (double)(int64_t)u;
}
