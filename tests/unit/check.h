/* A minimal unit-test harness: CHECK macros count failures; main() returns
 * non-zero if any check failed. Each test file defines its test functions
 * and lists them in RUN_TESTS. */
#ifndef WEFT_TEST_CHECK_H
#define WEFT_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                       \
  do {                                                                    \
    check_count++;                                                        \
    if (!(cond)) {                                                        \
      check_failures++;                                                   \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,    \
              #cond);                                                     \
    }                                                                     \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                \
  do {                                                                    \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);       \
    check_count++;                                                        \
    if (check_a_ != check_b_) {                                           \
      check_failures++;                                                   \
      fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s = %lld, %s = %lld\n", \
              __FILE__, __LINE__, #a, check_a_, #b, check_b_);            \
    }                                                                     \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                \
  do {                                                                    \
    const char *check_a_ = (a), *check_b_ = (b);                          \
    check_count++;                                                        \
    if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {      \
      check_failures++;                                                   \
      fprintf(stderr, "%s:%d: CHECK_EQ_STR failed: %s = \"%s\", %s = \"%s\"\n", \
              __FILE__, __LINE__, #a, check_a_ ? check_a_ : "(null)", #b, \
              check_b_ ? check_b_ : "(null)");                            \
    }                                                                     \
  } while (0)

#define RUN_TEST(fn)                                                      \
  do {                                                                    \
    int before_ = check_failures;                                         \
    fn();                                                                 \
    fprintf(stderr, "%s %s\n", check_failures == before_ ? "ok  " : "FAIL", #fn); \
  } while (0)

#define CHECK_SUMMARY()                                                   \
  (fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures), \
   check_failures != 0)

#endif
