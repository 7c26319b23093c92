/* Decimal numbers in text, as C's strtoull / strtoll read a whole token,
 * and decimals to the double strtod gives (see base.h). */
#include "base.h"

#include <float.h>

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

/* ---- m * 10^e as strtod rounds it ---- */

/* Powers of ten a double holds exactly. */
static const double number_pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if defined(__x86_64__) && LDBL_MANT_DIG == 64
/* Powers of ten x87 extended precision holds exactly (5^27 < 2^64). */
static const long double number_pow10l[] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* m and 10^|e| are exact in x87 extended precision, so their quotient or
 * product is rounded once, to 64 bits. Rounding that to a double gives
 * the correctly rounded double unless the 11 bits it drops are exactly a
 * half: the exact value may then lie on either side of that midpoint, and
 * 0 leaves it to strtod. Elsewhere the exact value and the 64-bit one are
 * on the same side of every midpoint between doubles (each midpoint is a
 * 64-bit value, and rounding keeps order). */
static int number_x87(uint64_t m, int e, double *out) {
  if (e < -27 || e > 27 || !base_decimal_extended()) return 0;
  long double q = e < 0 ? (long double)m / number_pow10l[-e] : (long double)m * number_pow10l[e];
  uint64_t significand;
  memcpy(&significand, &q, sizeof significand);
  if ((significand & 0x7ff) == 0x400) return 0;
  *out = (double)q;
  return 1;
}
#endif

int base_decimal_extended(void) {
#if defined(__x86_64__) && LDBL_MANT_DIG == 64
  static int known = -1; /* -1 until checked; the same answer from any thread */
  int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (k < 0) {
    volatile long double one = 1.0L, tiny = 0x1p-63L;
    k = one + tiny != one;
    __atomic_store_n(&known, k, __ATOMIC_RELAXED);
  }
  return k;
#else
  return 0;
#endif
}

int base_decimal_to_double(uint64_t m, int e, double *out) {
  if (m == 0) {
    *out = 0;
    return 1;
  }
  if (m <= (uint64_t)1 << 53 && e >= -22 && e <= 22) {
    double d = (double)m; /* exact */
    *out = e < 0 ? d / number_pow10[-e] : d * number_pow10[e];
    return 1;
  }
#if defined(__x86_64__) && LDBL_MANT_DIG == 64
  return number_x87(m, e, out);
#else
  return 0;
#endif
}
