#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"
#include "check.h"

static void test_vec_and_buf(void) {
  VEC(int) v = {0};
  for (int i = 0; i < 1000; i++) CHECK_EQ_INT(VEC_PUSH(v, i), 0);
  CHECK_EQ_INT(v.len, 1000);
  CHECK_EQ_INT(v.data[999], 999);
  VEC_FREE(v);

  base_buf b;
  base_buf_init(&b, 8);
  CHECK_EQ_INT(base_buf_append(&b, "abcd", 4), 0);
  CHECK_EQ_INT(base_buf_appendf(&b, "%d", 1234), 0);
  CHECK_EQ_STR(b.data, "abcd1234");
  CHECK_EQ_INT(base_buf_append(&b, "x", 1), WEFT_ELIMIT);
  base_buf_free(&b);
}

static void test_vec_reserve_input(void) {
  /* sized once for 1000 bytes of records of 10 or more (and a margin):
   * filling it does not move it */
  VEC(int) v = {0};
  VEC_RESERVE_INPUT(v, 1000, 10);
  CHECK_EQ_INT(v.cap, 1000 / 10 + 64);
  CHECK_EQ_INT(v.len, 0);
  const int *at = v.data;
  for (int i = 0; i < 1000 / 10 + 64; i++) CHECK_EQ_INT(VEC_PUSH(v, i), 0);
  CHECK(v.data == at);
  CHECK_EQ_INT(v.data[100], 100);
  /* a vector already larger keeps its array; a larger bound grows it,
   * keeping its elements */
  VEC_RESERVE_INPUT(v, 10, 1);
  CHECK(v.data == at && v.cap == 1000 / 10 + 64);
  VEC_RESERVE_INPUT(v, 100000, 10);
  CHECK_EQ_INT(v.cap, 100000 / 10 + 64);
  CHECK_EQ_INT(v.data[163], 163);
  VEC_FREE(v);
  /* capped at BASE_INPUT_RESERVE_MAX bytes of array */
  VEC(char) c = {0};
  VEC_RESERVE_INPUT(c, (size_t)1 << 40, 1);
  CHECK(c.cap == 0 || c.cap == BASE_INPUT_RESERVE_MAX);
  VEC_FREE(c);
  /* a hint: when the block cannot be had, the vector is as it was */
  base_alloc_fail_after(1);
  VEC_RESERVE_INPUT(v, 1000, 10);
  CHECK(v.data == NULL && v.cap == 0);
  CHECK_EQ_INT(VEC_PUSH(v, 7), 0);
  CHECK_EQ_INT(v.data[0], 7);
  VEC_FREE(v);
}

static void test_map(void) {
  base_map m = {0};
  for (uint64_t k = 0; k < 10000; k++) {
    uint64_t *slot;
    CHECK_EQ_INT(base_map_insert(&m, k * 7, k, &slot), 1);
  }
  uint64_t *slot;
  CHECK_EQ_INT(base_map_insert(&m, 14, 99, &slot), 0);
  CHECK_EQ_INT(*slot, 2);
  CHECK(base_map_find(&m, 7 * 9999) && *base_map_find(&m, 7 * 9999) == 9999);
  CHECK(base_map_find(&m, 3) == NULL);
  base_map_free(&m);
}

static void test_string_pool(void) {
  base_string_pool p;
  CHECK_EQ_INT(base_string_pool_init(&p), 0);
  string_id a, b, c, e;
  CHECK_EQ_INT(base_string_pool_intern(&p, "hello", 5, &a), 0);
  CHECK_EQ_INT(base_string_pool_intern(&p, "world", 5, &b), 0);
  CHECK_EQ_INT(base_string_pool_intern(&p, "hello", 5, &c), 0);
  CHECK_EQ_INT(base_string_pool_intern(&p, "", 0, &e), 0);
  CHECK(a == c && a != b && e == 1);
  CHECK_EQ_STR(base_string_pool_get(&p, b), "world");
  CHECK(base_string_pool_get(&p, STRING_NULL) == NULL);
  CHECK_EQ_INT(base_string_pool_find(&p, "world", 5), b);
  CHECK_EQ_INT(base_string_pool_find(&p, "nope", 4), STRING_NULL);
  char name[32];
  for (int i = 0; i < 5000; i++) {
    int n = snprintf(name, sizeof name, "s%d", i);
    string_id id;
    CHECK_EQ_INT(base_string_pool_intern(&p, name, (size_t)n, &id), 0);
  }
  CHECK_EQ_INT(base_string_pool_find(&p, "s4999", 5), base_string_pool_count(&p) - 1);
  base_string_pool_free(&p);
}

/* The pool's memo of recent ids is checked by content: strings that share
 * their first and last eight bytes (or all but one byte, or differ only in
 * length, or only after the bytes a memo entry keeps) keep their own ids
 * however they interleave. */
static void test_string_pool_recent_memo(void) {
  base_string_pool p;
  CHECK_EQ_INT(base_string_pool_init(&p), 0);
  char s[64];
  string_id ids[200];
  int distinct = 1, stable = 1;
  for (int round = 0; round < 3; round++)
    for (int i = 0; i < 200; i++) {
      /* "abcdefgh" + middle + "12345678", the middle's length and byte vary */
      int mid = 1 + i % 20;
      memcpy(s, "abcdefgh", 8);
      memset(s + 8, 'a' + i / 20, (size_t)mid);
      memcpy(s + 8 + mid, "12345678", 8);
      string_id id;
      CHECK_EQ_INT(base_string_pool_intern(&p, s, (size_t)(16 + mid), &id), 0);
      if (round == 0) {
        for (int j = 0; j < i; j++) distinct &= ids[j] != id;
        ids[i] = id;
      } else {
        stable &= ids[i] == id;
      }
      stable &= base_string_pool_len(&p, id) == (uint32_t)(16 + mid) &&
                memcmp(base_string_pool_get(&p, id), s, (size_t)(16 + mid)) == 0;
    }
  CHECK(distinct);
  CHECK(stable);
  /* 40-byte strings equal in their first 24 bytes (what a memo entry keeps
   * of a string) and their last eight, different only at byte 30 */
  string_id longs[2][2];
  for (int round = 0; round < 2; round++)
    for (int k = 0; k < 2; k++) {
      memset(s, 'x', 40);
      s[30] = (char)('0' + k);
      CHECK_EQ_INT(base_string_pool_intern(&p, s, 40, &longs[round][k]), 0);
      CHECK(memcmp(base_string_pool_get(&p, longs[round][k]), s, 40) == 0);
    }
  CHECK(longs[0][0] != longs[0][1]);
  CHECK(longs[1][0] == longs[0][0] && longs[1][1] == longs[0][1]);
  string_id x, y, z;
  CHECK_EQ_INT(base_string_pool_intern(&p, "ab", 2, &x), 0);
  CHECK_EQ_INT(base_string_pool_intern(&p, "ab\0", 3, &y), 0);
  CHECK_EQ_INT(base_string_pool_intern(&p, "ab", 2, &z), 0);
  CHECK(x != y && x == z);
  base_string_pool_free(&p);
}

/* base_equal_short agrees with memcmp for every length up to 24, on equal
 * bytes and on bytes that differ at any one position (by any bit). */
static void test_equal_short(void) {
  unsigned char a[32], b[32];
  int agree = 1;
  for (size_t n = 0; n <= 24; n++)
    for (int seed = 0; seed < 4; seed++) {
      for (size_t i = 0; i < n; i++) a[i] = b[i] = (unsigned char)(i * 37 + (size_t)seed * 11);
      agree &= base_equal_short(a, b, n) == 1;
      for (size_t at = 0; at < n; at++)
        for (int bit = 0; bit < 8; bit++) {
          b[at] ^= (unsigned char)(1u << bit);
          agree &= base_equal_short(a, b, n) == (memcmp(a, b, n) == 0);
          agree &= base_equal_short(a, b, n) == 0;
          b[at] ^= (unsigned char)(1u << bit);
        }
    }
  CHECK(agree);
}

static void test_alloc_failure_hook(void) {
  base_alloc_fail_after(1);
  void *p = base_malloc(10);
  CHECK(p == NULL);
  p = base_malloc(10);
  CHECK(p != NULL);
  base_free(p);
}

static void test_arena(void) {
  base_arena a;
  base_arena_init(&a, 64);
  char *x = base_arena_alloc(&a, 10);
  char *big = base_arena_alloc(&a, 1000);
  char *y = base_arena_alloc(&a, 10);
  CHECK(x && big && y);
  CHECK(((uintptr_t)y & 15) == 0);
  memset(big, 1, 1000);
  base_arena_free(&a);
}

static int parse_i64(const char *s, int64_t *v) { return base_parse_i64(s, strlen(s), v); }
static int parse_u64(const char *s, uint64_t *v) { return base_parse_u64(s, strlen(s), v); }

static void test_parse_numbers_as_strtol(void) {
  int64_t i;
  uint64_t u;
  CHECK(parse_i64(" \t+42", &i) && i == 42);
  CHECK(parse_i64("-9223372036854775808", &i) && i == INT64_MIN);
  CHECK(parse_i64("9223372036854775808", &i) && i == INT64_MAX);
  CHECK(parse_i64("-99999999999999999999999", &i) && i == INT64_MIN);
  CHECK(!parse_i64("", &i) && !parse_i64("-", &i) && !parse_i64("1 ", &i));
  CHECK(!parse_i64("0x10", &i) && !parse_i64("1.5", &i));
  CHECK(parse_u64("-1", &u) && u == UINT64_MAX);
  CHECK(parse_u64("18446744073709551615", &u) && u == UINT64_MAX);
  CHECK(parse_u64("18446744073709551616", &u) && u == UINT64_MAX);
  CHECK(parse_u64("\v7", &u) && u == 7);
  /* the length bounds the token: no NUL needed */
  CHECK(base_parse_u64("123456", 3, &u) && u == 123);
}

/* base_decimal_to_double gives strtod's double or declines: exact cases,
 * the largest mantissa, a value on a midpoint between two doubles (2^53 +
 * 1, which only strtod rounds right), and random m * 10^e. */
static void test_decimal_to_double(void) {
  double d = -1;
  CHECK(base_decimal_to_double(0, 5, &d) && d == 0);
  CHECK(base_decimal_to_double(15, -1, &d) && d == 1.5);
  CHECK(base_decimal_to_double(1, 22, &d) && d == 1e22);
  CHECK(!base_decimal_to_double(9007199254740993ULL, 0, &d));
  CHECK(!base_decimal_to_double(1, 400, &d));
  char text[64];
  int wrong = 0, declined = 0;
  srand(5);
  for (int n = 0; n < 200000; n++) {
    uint64_t m = ((uint64_t)rand() << 42) ^ ((uint64_t)rand() << 21) ^ (uint64_t)rand();
    m >>= rand() % 64;
    int e = rand() % 71 - 35;
    snprintf(text, sizeof text, "%llue%d", (unsigned long long)m, e);
    if (!base_decimal_to_double(m, e, &d)) {
      declined++;
      continue;
    }
    if (d != strtod(text, NULL) && wrong++ < 5) fprintf(stderr, "  %s: %.17g\n", text, d);
  }
  CHECK_EQ_INT(wrong, 0);
  /* with extended precision, |e| <= 27 is most of them */
  if (base_decimal_extended()) CHECK(declined < 200000 / 2);
}

int main(void) {
  RUN_TEST(test_vec_and_buf);
  RUN_TEST(test_vec_reserve_input);
  RUN_TEST(test_map);
  RUN_TEST(test_string_pool);
  RUN_TEST(test_string_pool_recent_memo);
  RUN_TEST(test_equal_short);
  RUN_TEST(test_alloc_failure_hook);
  RUN_TEST(test_arena);
  RUN_TEST(test_parse_numbers_as_strtol);
  RUN_TEST(test_decimal_to_double);
  return CHECK_SUMMARY();
}
