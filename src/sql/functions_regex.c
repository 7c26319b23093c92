/* regexp(pattern, input[, flags]) (and so `input REGEXP pattern`),
 * regexp_extract(input, pattern) and regexp_replace_simple(input, pattern,
 * replacement): Perfetto's regex functions. Patterns are RE2's (see
 * sql_regex_check_re2), matched with PCRE2 in UTF-8 mode, `$` only at the
 * end, leftmost-first like RE2. Arguments are read as text; a NULL one
 * gives NULL; a bad pattern is an error. A constant pattern is compiled
 * once per statement (SQLite's auxdata). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>

#include "sql/functions_prelude.h"

typedef struct regex_compiled {
  pcre2_code *code;
  pcre2_match_data *match;
  int caseless;
} regex_compiled;

static void regex_compiled_free(void *p) {
  regex_compiled *r = p;
  if (!r) return;
  pcre2_match_data_free(r->match);
  pcre2_code_free(r->code);
  base_free(r);
}

static void regex_error(sqlite3_context *ctx, const char *what) {
  char buf[600];
  snprintf(buf, sizeof buf, "RE2 compile error: %s", what);
  sqlite3_result_error(ctx, buf, -1);
}

/* Compiles the pattern `v` (not NULL), or reports the error on ctx. */
static regex_compiled *regex_compile(sqlite3_context *ctx, sqlite3_value *v,
                                     int caseless) {
  const char *pattern = (const char *)sqlite3_value_text(v);
  size_t len = (size_t)sqlite3_value_bytes(v);
  char msg[512];
  if (sql_regex_check_re2(pattern, len, msg, sizeof msg)) {
    regex_error(ctx, msg);
    return NULL;
  }
  int code;
  PCRE2_SIZE offset;
  uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
                     (caseless ? PCRE2_CASELESS : 0);
  pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, len, options, &code, &offset, NULL);
  if (!re) {
    sql_regex_describe_error(code, offset, pattern, len, msg, sizeof msg);
    regex_error(ctx, msg);
    return NULL;
  }
  regex_compiled *r = base_calloc(1, sizeof *r);
  if (r) r->match = pcre2_match_data_create_from_pattern(re, NULL);
  if (!r || !r->match) {
    pcre2_code_free(re);
    base_free(r);
    sqlite3_result_error_nomem(ctx);
    return NULL;
  }
  r->code = re;
  r->caseless = caseless;
  return r;
}

/* The compiled pattern of argument `arg`, cached for the statement when
 * the argument is constant; NULL after reporting an error. */
static regex_compiled *regex_get(sqlite3_context *ctx, sqlite3_value **argv,
                                 int arg, int caseless) {
  regex_compiled *r = sqlite3_get_auxdata(ctx, arg);
  if (r && r->caseless == caseless) return r;
  r = regex_compile(ctx, argv[arg], caseless);
  if (!r) return NULL;
  sqlite3_set_auxdata(ctx, arg, r, regex_compiled_free);
  if (sqlite3_get_auxdata(ctx, arg) == r) return r;
  sqlite3_result_error_nomem(ctx); /* set_auxdata freed r */
  return NULL;
}

/* Searches `subject` from byte `from`: 1 and r->match filled on a match, 0
 * on none, -1 after reporting an error (a PCRE2 resource limit). */
static int regex_search(sqlite3_context *ctx, regex_compiled *r, const char *subject,
                        size_t len, size_t from, uint32_t options) {
  int rc = pcre2_match(r->code, (PCRE2_SPTR)subject, len, from, options, r->match, NULL);
  if (rc >= 0) return 1;
  if (rc == PCRE2_ERROR_NOMATCH) return 0;
  PCRE2_UCHAR text[256];
  pcre2_get_error_message(rc, text, sizeof text);
  char buf[300];
  snprintf(buf, sizeof buf, "regexp: %s", (const char *)text);
  sqlite3_result_error(ctx, buf, -1);
  return -1;
}

static int regex_any_null(int argc, sqlite3_value **argv) {
  for (int i = 0; i < argc; i++)
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return 1;
  return 0;
}

/* Flags of the three-argument regexp: 'i' caseless, 'c' case-sensitive,
 * the last one wins; 0/1 for caseless, -1 after reporting an unknown one. */
static int regex_parse_flags(sqlite3_context *ctx, sqlite3_value *v) {
  const char *f = (const char *)sqlite3_value_text(v);
  int caseless = 0;
  for (; f && *f; f++) {
    if (*f == 'i' || *f == 'c') {
      caseless = *f == 'i';
      continue;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "regexp: unknown flag '%c'", *f);
    sqlite3_result_error(ctx, buf, -1);
    return -1;
  }
  return caseless;
}

static void regex_fn_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (regex_any_null(argc, argv)) return;
  int caseless = argc == 3 ? regex_parse_flags(ctx, argv[2]) : 0;
  if (caseless < 0) return;
  regex_compiled *r = regex_get(ctx, argv, 0, caseless);
  if (!r) return;
  const char *input = (const char *)sqlite3_value_text(argv[1]);
  int found = regex_search(ctx, r, input, (size_t)sqlite3_value_bytes(argv[1]), 0, 0);
  if (found >= 0) sqlite3_result_int(ctx, found);
}

/* The one capture group's text when it matched non-empty, else the whole
 * match; more than one group is an error. */
static void regex_fn_extract(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (regex_any_null(argc, argv)) return;
  regex_compiled *r = regex_get(ctx, argv, 1, 0);
  if (!r) return;
  const char *input = (const char *)sqlite3_value_text(argv[0]);
  if (regex_search(ctx, r, input, (size_t)sqlite3_value_bytes(argv[0]), 0, 0) != 1)
    return;
  uint32_t groups = 0;
  pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &groups);
  if (groups > 1) {
    sqlite3_result_error(ctx, "REGEXP_EXTRACT: pattern has more than one group.", -1);
    return;
  }
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->match);
  int use_group = groups == 1 && ov[2] != PCRE2_UNSET && ov[3] > ov[2];
  size_t from = use_group ? ov[2] : ov[0], to = use_group ? ov[3] : ov[1];
  sqlite3_result_text(ctx, input + from, (int)(to - from), SQLITE_TRANSIENT);
}

/* Bytes of the UTF-8 character at s (1 for a stray byte). */
static size_t regex_char_len(const char *s, size_t left) {
  unsigned char c = (unsigned char)*s;
  size_t n = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (n > left) return 1;
  for (size_t i = 1; i < n; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80) return 1;
  return n;
}

/* The highest group the replacement names (\\N), 0 if none. */
static uint32_t regex_rewrite_max_group(const char *rep, size_t n) {
  uint32_t max = 0;
  for (size_t i = 0; i + 1 < n; i++) {
    if (rep[i] != '\\') continue;
    if (rep[i + 1] >= '0' && rep[i + 1] <= '9' && (uint32_t)(rep[i + 1] - '0') > max)
      max = (uint32_t)(rep[i + 1] - '0');
    i++;
  }
  return max;
}

/* Appends the replacement for the current match as RE2 rewrites: \\N is
 * group N's text (empty if unset), \\\\ a backslash; any other backslash
 * ends the replacement there. */
static void regex_rewrite(sqlite3_str *out, const char *rep, size_t n, const char *in,
                          const PCRE2_SIZE *ov) {
  for (size_t i = 0; i < n; i++) {
    if (rep[i] != '\\') {
      sqlite3_str_appendchar(out, 1, rep[i]);
      continue;
    }
    if (i + 1 >= n) return;
    char c = rep[++i];
    if (c == '\\') {
      sqlite3_str_appendchar(out, 1, c);
    } else if (c >= '0' && c <= '9') {
      size_t g = (size_t)(c - '0');
      if (ov[2 * g] != PCRE2_UNSET)
        sqlite3_str_append(out, in + ov[2 * g], (int)(ov[2 * g + 1] - ov[2 * g]));
    } else {
      return;
    }
  }
}

/* Where the search goes on after a match [start, end). */
static size_t regex_next_from(const char *in, size_t len, size_t start, size_t end) {
  if (end > start) return end;
  return end < len ? end + regex_char_len(in + end, len - end) : len + 1;
}

/* Every match replaced as RE2's GlobalReplace does: the replacement is
 * rewritten per match (regex_rewrite); naming a group the pattern lacks
 * leaves the input as it is; an empty match right where the previous match
 * ended is not one. */
static void regex_fn_replace(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (regex_any_null(argc, argv)) return;
  regex_compiled *r = regex_get(ctx, argv, 1, 0);
  if (!r) return;
  const char *in = (const char *)sqlite3_value_text(argv[0]);
  size_t len = (size_t)sqlite3_value_bytes(argv[0]);
  const char *rep = (const char *)sqlite3_value_text(argv[2]);
  size_t rep_len = (size_t)sqlite3_value_bytes(argv[2]);
  uint32_t groups = 0;
  pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &groups);
  if (regex_rewrite_max_group(rep, rep_len) > groups) {
    sqlite3_result_value(ctx, argv[0]);
    return;
  }
  sqlite3_str *out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  size_t pos = 0, copied = 0, last_end = SIZE_MAX;
  while (pos <= len) {
    int found = regex_search(ctx, r, in, len, pos, 0);
    if (found < 0) {
      sqlite3_free(sqlite3_str_finish(out));
      return;
    }
    if (!found) break;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(r->match);
    if (ov[0] == ov[1] && ov[0] == last_end) {
      pos = regex_next_from(in, len, ov[0], ov[1]);
      continue;
    }
    sqlite3_str_append(out, in + copied, (int)(ov[0] - copied));
    regex_rewrite(out, rep, rep_len, in, ov);
    copied = last_end = ov[1];
    pos = regex_next_from(in, len, ov[0], ov[1]);
  }
  sqlite3_str_append(out, in + copied, (int)(len - copied));
  int n = sqlite3_str_length(out);
  char *text = sqlite3_str_finish(out);
  if (!text && n == 0) sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
  else if (!text) sqlite3_result_error_nomem(ctx);
  else sqlite3_result_text(ctx, text, n, sqlite3_free);
}

int sql_regex_functions_register(sqlite3 *db) {
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  if (sqlite3_create_function(db, "regexp", 2, flags, NULL, regex_fn_regexp, NULL,
                              NULL) != SQLITE_OK ||
      sqlite3_create_function(db, "regexp", 3, flags, NULL, regex_fn_regexp, NULL,
                              NULL) != SQLITE_OK ||
      sqlite3_create_function(db, "regexp_extract", 2, flags, NULL, regex_fn_extract,
                              NULL, NULL) != SQLITE_OK ||
      sqlite3_create_function(db, "regexp_replace_simple", 3, flags, NULL,
                              regex_fn_replace, NULL, NULL) != SQLITE_OK)
    return WEFT_ESQL;
  return WEFT_OK;
}
