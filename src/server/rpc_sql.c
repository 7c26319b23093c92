/* The statements of a query's SQL, for QueryResult's statement fields
 * (rpc_sql.h). */
#include "rpc_sql.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

typedef struct rpc_sql_scan {
  const char *p;
} rpc_sql_scan;

/* Skips whitespace and comments. */
static void rpc_sql_skip_blank(rpc_sql_scan *s) {
  for (;;) {
    while (isspace((unsigned char)*s->p)) s->p++;
    if (s->p[0] == '-' && s->p[1] == '-') {
      while (*s->p && *s->p != '\n') s->p++;
    } else if (s->p[0] == '/' && s->p[1] == '*') {
      const char *end = strstr(s->p + 2, "*/");
      s->p = end ? end + 2 : s->p + strlen(s->p);
    } else {
      return;
    }
  }
}

/* Moves past one token: a quoted string or name, a word, or one
 * character. Returns the word's length (0 for other tokens). */
static size_t rpc_sql_token(rpc_sql_scan *s) {
  char c = *s->p;
  char close = c == '\'' ? '\'' : c == '"' ? '"' : c == '`' ? '`' : c == '[' ? ']' : 0;
  if (close) {
    for (s->p++; *s->p; s->p++) {
      if (*s->p != close) continue;
      if (close != ']' && s->p[1] == close) { /* a doubled quote */
        s->p++;
        continue;
      }
      s->p++;
      return 0;
    }
    return 0;
  }
  if (isalnum((unsigned char)c) || c == '_') {
    const char *start = s->p;
    while (isalnum((unsigned char)*s->p) || *s->p == '_') s->p++;
    return (size_t)(s->p - start);
  }
  s->p++;
  return 0;
}

static int rpc_sql_word_is(const char *word, size_t len, const char *keyword) {
  return len == strlen(keyword) && strncasecmp(word, keyword, len) == 0;
}

/* Whether the statement's first words are CREATE [TEMP|TEMPORARY] TRIGGER,
 * whose body holds semicolons up to END. */
static int rpc_sql_is_trigger(const char *start) {
  rpc_sql_scan s = {start};
  int words = 0;
  while (words < 3) {
    rpc_sql_skip_blank(&s);
    const char *word = s.p;
    size_t len = rpc_sql_token(&s);
    if (!len) return 0;
    if (words == 0 && !rpc_sql_word_is(word, len, "create")) return 0;
    if (words > 0 && rpc_sql_word_is(word, len, "trigger")) return 1;
    if (words > 0 && !rpc_sql_word_is(word, len, "temp") &&
        !rpc_sql_word_is(word, len, "temporary"))
      return 0;
    words++;
  }
  return 0;
}

/* Scans one statement from s->p (not blank): where its last token ends. */
static const char *rpc_sql_statement(rpc_sql_scan *s) {
  int trigger = rpc_sql_is_trigger(s->p);
  const char *end = s->p, *last_word = NULL;
  size_t last_len = 0;
  for (;;) {
    rpc_sql_skip_blank(s);
    if (!*s->p) return end;
    if (*s->p == ';' && (!trigger || (last_word && rpc_sql_word_is(last_word, last_len, "end")))) {
      s->p++;
      return end;
    }
    const char *token = s->p;
    size_t len = rpc_sql_token(s);
    last_word = len ? token : NULL;
    last_len = len;
    end = s->p;
  }
}

void rpc_sql_statements(const char *sql, rpc_sql_info *out) {
  memset(out, 0, sizeof *out);
  rpc_sql_scan s = {sql};
  for (;;) {
    rpc_sql_skip_blank(&s);
    if (!*s.p) return;
    if (*s.p == ';') {
      s.p++;
      continue;
    }
    const char *start = s.p;
    const char *end = rpc_sql_statement(&s);
    out->count++;
    out->last = start;
    out->last_len = (size_t)(end - start);
  }
}
