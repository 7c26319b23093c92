/* The part of RE2's syntax that PCRE2 is more lenient about: patterns RE2
 * refuses are refused here with RE2's error text, before PCRE2 sees them. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "sql/functions_prelude.h"

#define RE2_MAX_REPEAT 1000

typedef struct re2_scan {
  const char *start, *p, *end;
  int can_repeat;      /* an atom precedes: a repetition may follow */
  const char *rep;     /* the repetition just read (its first byte), or NULL */
  int rep_lazy;        /* that repetition already has its lazy '?' */
  char *msg;
  size_t msg_size;
} re2_scan;

static int re2_fail(re2_scan *s, const char *what, const char *from, size_t n) {
  snprintf(s->msg, s->msg_size, "%s: %.*s", what, (int)n, from);
  return 1;
}

/* Letters RE2 knows after a backslash (digits are handled apart). */
static int re2_escape_letter_ok(char c) {
  return c && strchr("aftnrvxpPdDsSwWbBAzCQE", c) != NULL;
}

/* Checks the escape at s->p (a backslash); leaves s->p after it. */
static int re2_scan_escape(re2_scan *s) {
  const char *at = s->p++;
  if (s->p >= s->end) {
    snprintf(s->msg, s->msg_size, "trailing \\");
    return 1;
  }
  unsigned char c = (unsigned char)*s->p++;
  if (c >= '1' && c <= '7' && (s->p >= s->end || *s->p < '0' || *s->p > '9'))
    return re2_fail(s, "invalid escape sequence", at, 2); /* a backreference */
  if (c == '8' || c == '9') return re2_fail(s, "invalid escape sequence", at, 2);
  if (c >= 0x80 || (((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !re2_escape_letter_ok((char)c)))
    return re2_fail(s, "invalid escape sequence", at, c >= 0x80 ? (size_t)(s->end - at) : 2);
  if (c == 'Q') { /* literal text up to \E */
    while (s->p < s->end && !(s->p[0] == '\\' && s->p + 1 < s->end && s->p[1] == 'E'))
      s->p++;
    s->p = s->p < s->end ? s->p + 2 : s->end;
  }
  return 0;
}

/* Skips a bracketed class starting at s->p ('['), checking its escapes. */
static int re2_scan_class(re2_scan *s) {
  const char *open = s->p++;
  if (s->p < s->end && *s->p == '^') s->p++;
  if (s->p < s->end && *s->p == ']') s->p++;
  while (s->p < s->end && *s->p != ']') {
    if (*s->p == '[' && s->p + 1 < s->end && s->p[1] == ':') {
      const char *close = strstr(s->p + 2, ":]");
      if (close && close < s->end) {
        s->p = close + 2;
        continue;
      }
    }
    if (*s->p == '\\') {
      if (re2_scan_escape(s)) return 1;
      continue;
    }
    s->p++;
  }
  if (s->p >= s->end) return re2_fail(s, "missing ]", open, (size_t)(s->end - open));
  s->p++;
  return 0;
}

/* Reads the "(?" group opener at s->p: RE2 knows (?P<name>, (?: and flag
 * groups (?flags) / (?flags:. */
static int re2_scan_group_opener(re2_scan *s) {
  const char *at = s->p;
  s->p += 2;
  if (s->p < s->end && *s->p == 'P') return 0;
  while (s->p < s->end && *s->p && strchr("imsU-", *s->p)) s->p++;
  if (s->p < s->end && (*s->p == ')' || (*s->p == ':'))) {
    if (*s->p == ':' || s->p > at + 2) {
      s->p++;
      return 0;
    }
  }
  size_t n = (size_t)(s->p - at) + (s->p < s->end ? 1 : 0);
  return re2_fail(s, "invalid perl operator", at, n);
}

/* Length of a counted repetition {n}, {n,} or {n,m} at s->p, or 0 when the
 * brace is a literal; its bounds go to *lo / *hi (-1: none). */
static size_t re2_counted_repeat(const re2_scan *s, long *lo, long *hi) {
  const char *q = s->p + 1;
  long v[2] = {-1, -1};
  int part = 0;
  while (q < s->end) {
    if (*q >= '0' && *q <= '9') {
      v[part] = (v[part] < 0 ? 0 : v[part]) * 10 + (*q - '0');
      if (v[part] > 100000) v[part] = 100000;
    } else if (*q == ',' && part == 0 && v[0] >= 0) {
      part = 1;
    } else if (*q == '}' && v[0] >= 0) {
      *lo = v[0];
      *hi = part ? v[1] : v[0];
      return (size_t)(q - s->p) + 1;
    } else {
      return 0;
    }
    q++;
  }
  return 0;
}

/* A repetition operator of `n` bytes at s->p. */
static int re2_scan_repeat(re2_scan *s, size_t n) {
  if (*s->p == '?' && s->rep && !s->rep_lazy) {
    s->rep_lazy = 1;
    s->p++;
    return 0;
  }
  if (s->rep) return re2_fail(s, "bad repetition operator", s->rep,
                              (size_t)(s->p - s->rep) + n);
  if (!s->can_repeat)
    return re2_fail(s, "no argument for repetition operator", s->p, n);
  s->rep = s->p;
  s->rep_lazy = 0;
  s->p += n;
  return 0;
}

static int re2_scan_one(re2_scan *s) {
  char c = *s->p;
  if (c == '*' || c == '+' || c == '?') return re2_scan_repeat(s, 1);
  if (c == '{') {
    long lo, hi;
    size_t n = re2_counted_repeat(s, &lo, &hi);
    if (n && (lo > RE2_MAX_REPEAT || hi > RE2_MAX_REPEAT || (hi >= 0 && hi < lo)))
      return re2_fail(s, "invalid repetition size", s->p, n);
    if (n) return re2_scan_repeat(s, n);
  }
  s->rep = NULL;
  s->can_repeat = 1;
  if (c == '\\') return re2_scan_escape(s);
  if (c == '[') return re2_scan_class(s);
  if (c == '(' || c == '|') {
    s->can_repeat = 0;
    if (c == '(' && s->p + 1 < s->end && s->p[1] == '?') return re2_scan_group_opener(s);
  }
  s->p++;
  return 0;
}

int sql_regex_check_re2(const char *pattern, size_t len, char *msg,
                        size_t msg_size) {
  re2_scan s = {pattern, pattern, pattern + len, 0, NULL, 0, msg, msg_size};
  while (s.p < s.end)
    if (re2_scan_one(&s)) return 1;
  return 0;
}

void sql_regex_describe_error(int code, size_t offset, const char *pattern,
                              size_t len, char *msg, size_t msg_size) {
  if (offset > len) offset = len;
  switch (code) {
    case PCRE2_ERROR_MISSING_CLOSING_PARENTHESIS:
      snprintf(msg, msg_size, "missing ): %.*s", (int)len, pattern);
      return;
    case PCRE2_ERROR_UNMATCHED_CLOSING_PARENTHESIS:
      snprintf(msg, msg_size, "unexpected ): %.*s", (int)len, pattern);
      return;
    case PCRE2_ERROR_CLASS_RANGE_ORDER: {
      /* offset is at the range's last character: show "a-b" */
      size_t from = offset >= 2 ? offset - 2 : 0;
      size_t to = offset < len ? offset + 1 : len;
      snprintf(msg, msg_size, "invalid character class range: %.*s",
               (int)(to - from), pattern + from);
      return;
    }
    default: {
      PCRE2_UCHAR text[256];
      if (pcre2_get_error_message(code, text, sizeof text) < 0)
        snprintf((char *)text, sizeof text, "error %d", code);
      snprintf(msg, msg_size, "%s at offset %zu", (const char *)text, offset);
    }
  }
}
