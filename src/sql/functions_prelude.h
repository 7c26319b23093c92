/* The built-in functions of Perfetto's prelude that functions.c registers
 * (functions_*.c), and what those files share. */
#ifndef WEFT_SQL_FUNCTIONS_PRELUDE_H
#define WEFT_SQL_FUNCTIONS_PRELUDE_H

#include "sql/sql.h"

/* regexp (2 and 3 args, and so the REGEXP operator), regexp_extract,
 * regexp_replace_simple (functions_regex.c). */
int sql_regex_functions_register(sqlite3 *db);
/* reverse, base64_encode, base64_decode, unhex, demangle
 * (functions_text.c). */
int sql_text_functions_register(sqlite3 *db);
/* ln, exp, sqrt, to_timecode (functions_math.c). */
int sql_math_functions_register(sqlite3 *db);
/* trace_start, trace_end, trace_dur, to_realtime, to_monotonic,
 * abs_time_str (functions_clock.c). */
int sql_clock_functions_register(sqlite3 *db, sql_engine *e);
/* __intrinsic_arg_set_to_json (functions_args_json.c). */
int sql_args_json_functions_register(sqlite3 *db, sql_engine *e);
/* slice_is_ancestor (functions_slice.c). */
int sql_slice_functions_register(sqlite3 *db, sql_engine *e);

/* Perfetto's patterns are RE2's: weft matches them with PCRE2, after
 * refusing what RE2 refuses and PCRE2 would accept (lookaround,
 * backreferences, possessive or doubled repetition, repetition counts over
 * 1000, unknown escapes and (?...) groups). 0 if `pattern` is RE2 syntax as
 * far as that check goes, else 1 with RE2's error text ("<what>: <where>")
 * in msg. */
int sql_regex_check_re2(const char *pattern, size_t len, char *msg,
                        size_t msg_size);
/* RE2's text for a PCRE2 compile error `code` at byte `offset` of
 * `pattern`, written to msg. */
void sql_regex_describe_error(int code, size_t offset, const char *pattern,
                              size_t len, char *msg, size_t msg_size);

#endif
