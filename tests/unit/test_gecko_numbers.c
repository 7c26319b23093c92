/* Tests for the numbers of Gecko profiles (import/gecko/gecko_json.c): a
 * number written as text reads as strtod reads it, whether it takes the
 * fast paths (plain decimals of up to 15 significant digits in doubles, of
 * up to 19 in x87 extended precision) or not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "import/gecko/gecko_internal.h"

/* strtod's reading of the whole text, NaN when it stops early or is not
 * finite: what the Gecko importer must give. */
static double expected(const char *text) {
  char *end;
  double v = strtod(text, &end);
  return *text && *end == 0 && isfinite(v) ? v : NAN;
}

static int same(double a, double b) {
  return (isnan(a) && isnan(b)) || a == b;
}

static double read_text(const char *text) {
  json_token t = {.type = JSON_TOK_STRING, .ptr = text, .len = strlen(text)};
  return gecko_token_number(&t);
}

static void test_forms_read_as_strtod(void) {
  static const char *const texts[] = {
      "0", "-0", "5", "-12", "1.5", "956034.2718892494", "10.497832591105372",
      "0.000123", "123456789012345", "1234567890123456", "0.1", "-0.30000000000000004",
      "1.", ".5", "-.5", "-", ".", "", "1e5", "1E-3", "+5", " 5", "5 ", "0x10", "inf",
      "nan", "1.2.3", "00012.5000", "9007199254740993", "1.0000000000000000000001",
      "0.0000000000000000000001", "0.00000000000000000000001", "12a", "-0.0"};
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    double got = read_text(texts[i]), want = expected(texts[i]);
    if (!same(got, want)) fprintf(stderr, "  %s: %.17g, strtod %.17g\n", texts[i], got, want);
    CHECK(same(got, want));
  }
}

static void test_random_decimals_read_as_strtod(void) {
  srand(7);
  char text[64];
  int wrong = 0;
  for (int n = 0; n < 400000; n++) {
    int digits = 1 + rand() % 21, dot = rand() % (digits + 1), k = 0;
    if (rand() % 4 == 0) text[k++] = '-';
    if (rand() % 8 == 0) { /* a small number: "0.000..." */
      text[k++] = '0';
      text[k++] = '.';
      for (int z = rand() % 12; z > 0; z--) text[k++] = '0';
      dot = -1;
    }
    for (int d = 0; d < digits; d++) {
      if (d == dot && d) text[k++] = '.';
      text[k++] = (char)('0' + rand() % 10);
    }
    text[k] = 0;
    if (!same(read_text(text), expected(text)) && wrong++ < 5)
      fprintf(stderr, "  %s: %.17g, strtod %.17g\n", text, read_text(text), expected(text));
  }
  CHECK_EQ_INT(wrong, 0);
}

int main(void) {
  RUN_TEST(test_forms_read_as_strtod);
  RUN_TEST(test_random_decimals_read_as_strtod);
  return CHECK_SUMMARY();
}
