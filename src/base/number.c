/* Decimal numbers in text, as C's strtoull / strtoll read a whole token
 * (see base.h). */
#include "base.h"

static int number_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* The token's sign and magnitude; *over when the digits pass 2^64 - 1. */
static int number_scan(const char *s, size_t n, int *neg, uint64_t *magnitude, int *over) {
  size_t i = 0;
  while (i < n && number_is_space(s[i])) i++;
  *neg = i < n && s[i] == '-';
  if (i < n && (s[i] == '-' || s[i] == '+')) i++;
  if (i == n) return 0;
  uint64_t v = 0;
  *over = 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    uint64_t d = (uint64_t)(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) *over = 1;
    else if (!*over) v = v * 10 + d;
  }
  *magnitude = v;
  return 1;
}

int base_parse_u64(const char *s, size_t n, uint64_t *out) {
  int neg, over;
  uint64_t v;
  if (!number_scan(s, n, &neg, &v, &over)) return 0;
  *out = over ? UINT64_MAX : neg ? (uint64_t)0 - v : v;
  return 1;
}

int base_parse_i64(const char *s, size_t n, int64_t *out) {
  int neg, over;
  uint64_t v;
  if (!number_scan(s, n, &neg, &v, &over)) return 0;
  if (neg) *out = over || v > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v;
  else *out = over || v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
  return 1;
}
