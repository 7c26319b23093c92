/* ln, exp, sqrt and to_timecode as Perfetto defines them. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "sql/functions_prelude.h"

/* The argument as a number (an integer, a real, or text that reads as one),
 * or 0 when it is NULL, a blob or other text. */
static int math_number(sqlite3_value *v, double *out) {
  int type = sqlite3_value_numeric_type(v);
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) return 0;
  *out = sqlite3_value_double(v);
  return 1;
}

/* ln(x): NULL unless x > 0. */
static void math_fn_ln(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  double x;
  if (math_number(argv[0], &x) && x > 0.0) sqlite3_result_double(ctx, log(x));
}

static void math_fn_exp(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  double x;
  if (math_number(argv[0], &x)) sqlite3_result_double(ctx, exp(x));
}

/* sqrt(x): a negative x gives NaN, which SQLite returns as NULL. */
static void math_fn_sqrt(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  double x;
  if (math_number(argv[0], &x)) sqlite3_result_double(ctx, sqrt(x));
}

/* to_timecode(ns): "HH:MM:SS mmm uuu nnn", hours unbounded; each part is
 * the truncated quotient / remainder, so a negative time shows negative
 * parts. Only an integer is accepted. */
static void math_fn_to_timecode(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "TO_TIMECODE: first argument should be timestamp", -1);
    return;
  }
  int64_t t = sqlite3_value_int64(argv[0]);
  int64_t ns = t % 1000, us = t / 1000 % 1000, ms = t / 1000000 % 1000;
  int64_t s = t / 1000000000;
  char buf[96];
  int n = snprintf(buf, sizeof buf,
                   "%02" PRId64 ":%02" PRId64 ":%02" PRId64 " %03" PRId64 " %03" PRId64
                   " %03" PRId64,
                   s / 3600, s / 60 % 60, s % 60, ms, us, ns);
  sqlite3_result_text(ctx, buf, n, SQLITE_TRANSIENT);
}

int sql_math_functions_register(sqlite3 *db) {
  static const struct {
    const char *name;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
  } fns[] = {{"ln", math_fn_ln},
             {"exp", math_fn_exp},
             {"sqrt", math_fn_sqrt},
             {"to_timecode", math_fn_to_timecode}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (sqlite3_create_function(db, fns[i].name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                NULL, fns[i].fn, NULL, NULL) != SQLITE_OK)
      return WEFT_ESQL;
  return WEFT_OK;
}
