/* The PerfettoSQL preprocessor's lexer (see psql_lexer.h). */
#include "sql/psql_lexer.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static int psql_is_word_char(unsigned char c) {
  return isalnum(c) || c == '_' || c >= 0x80;
}

/* Length of a quoted run starting at p (p[0] is the opening quote); a
 * doubled closing quote is an escaped one. Runs to the end if unclosed. */
static size_t psql_quoted_len(const char *p, char close) {
  size_t i = 1;
  for (;;) {
    if (!p[i]) return i;
    if (p[i] == close) {
      if (close != ']' && p[i + 1] == close) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
}

static size_t psql_space_len(const char *p) {
  size_t i = 0;
  for (;;) {
    if (isspace((unsigned char)p[i])) {
      i++;
    } else if (p[i] == '-' && p[i + 1] == '-') {
      while (p[i] && p[i] != '\n') i++;
    } else if (p[i] == '/' && p[i + 1] == '*') {
      const char *end = strstr(p + i + 2, "*/");
      i = end ? (size_t)(end - p) + 2 : strlen(p);
    } else {
      return i;
    }
  }
}

static size_t psql_number_len(const char *p) {
  size_t i = 0;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    i = 2;
    while (isxdigit((unsigned char)p[i])) i++;
    return i;
  }
  while (isdigit((unsigned char)p[i]) || p[i] == '.' || p[i] == '_') i++;
  if ((p[i] == 'e' || p[i] == 'E') &&
      (isdigit((unsigned char)p[i + 1]) ||
       ((p[i + 1] == '+' || p[i + 1] == '-') && isdigit((unsigned char)p[i + 2]))))
    for (i += 2; isdigit((unsigned char)p[i]);) i++;
  return i;
}

static size_t psql_punct_len(const char *p) {
  static const char *const pairs[] = {"||", "<<", ">>", "<=", ">=", "==",
                                      "!=", "<>", "->"};
  for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++)
    if (p[0] == pairs[k][0] && p[1] == pairs[k][1]) {
      if (p[0] == '-' && p[2] == '>') return 3; /* ->> */
      return 2;
    }
  return 1;
}

psql_token psql_lex(const char *p) {
  psql_token t = {PSQL_TOK_END, p, 0};
  unsigned char c = (unsigned char)*p;
  if (!c) return t;
  size_t space = psql_space_len(p);
  if (space) {
    t.kind = PSQL_TOK_SPACE;
    t.len = space;
  } else if ((c == 'x' || c == 'X') && p[1] == '\'') {
    t.kind = PSQL_TOK_NUMBER;
    t.len = 1 + psql_quoted_len(p + 1, '\'');
  } else if (psql_is_word_char(c) && !isdigit(c)) {
    t.kind = PSQL_TOK_WORD;
    while (psql_is_word_char((unsigned char)p[t.len]) || p[t.len] == '$') t.len++;
  } else if (isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]))) {
    t.kind = PSQL_TOK_NUMBER;
    t.len = psql_number_len(p);
  } else if (c == '\'') {
    t.kind = PSQL_TOK_STRING;
    t.len = psql_quoted_len(p, '\'');
  } else if (c == '"' || c == '`' || c == '[') {
    t.kind = PSQL_TOK_QUOTED_NAME;
    t.len = psql_quoted_len(p, c == '[' ? ']' : (char)c);
  } else if (c == '$' || c == ':' || c == '@' || c == '?') {
    t.kind = PSQL_TOK_VARIABLE;
    t.len = 1;
    while (psql_is_word_char((unsigned char)p[t.len])) t.len++;
    if (t.len == 1 && c != '?') t.kind = PSQL_TOK_PUNCT;
  } else {
    t.kind = PSQL_TOK_PUNCT;
    t.len = psql_punct_len(p);
  }
  return t;
}

psql_token psql_lex_skip_space(const char *p) {
  psql_token t = psql_lex(p);
  while (t.kind == PSQL_TOK_SPACE) t = psql_lex(t.text + t.len);
  return t;
}

int psql_token_is(const psql_token *t, const char *word) {
  size_t n = strlen(word);
  return t->kind == PSQL_TOK_WORD && t->len == n && strncasecmp(t->text, word, n) == 0;
}

void psql_line_col(const char *text, const char *at, int *line, int *col) {
  int l = 1;
  const char *line_start = text;
  for (const char *p = text; p < at && *p; p++)
    if (*p == '\n') {
      l++;
      line_start = p + 1;
    }
  *line = l;
  *col = (int)(at - line_start) + 1;
}
