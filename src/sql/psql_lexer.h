/* psql_lexer: splits SQL text into tokens for the PerfettoSQL preprocessor.
 *
 * Owns nothing: a token is a span of the caller's text. The lexer knows
 * SQLite's lexical rules well enough to find statement ends, macro calls and
 * PerfettoSQL keywords: quoted strings and identifiers ('..', "..", `..`,
 * [..]), blob literals, comments, numbers, variables ($x, :x, @x, ?N) and
 * punctuation. It never fails: an unterminated string or comment runs to the
 * end of the text, and SQLite reports it when the statement is prepared.
 *
 * Invariant: tokens tile the text; every token has len >= 1 except
 * PSQL_TOK_END, which has len 0 at the end of the text. */
#ifndef WEFT_SQL_PSQL_LEXER_H
#define WEFT_SQL_PSQL_LEXER_H

#include <stddef.h>

typedef enum psql_token_kind {
  PSQL_TOK_END,
  PSQL_TOK_SPACE, /* whitespace or a comment */
  PSQL_TOK_WORD,  /* keyword or bare identifier */
  PSQL_TOK_QUOTED_NAME, /* "x", `x`, [x] */
  PSQL_TOK_STRING,      /* 'x' */
  PSQL_TOK_NUMBER,      /* also blob literals x'..' */
  PSQL_TOK_VARIABLE,    /* $x, :x, @x, ?, ?N */
  PSQL_TOK_PUNCT        /* one operator or punctuation character, or || << >> etc. */
} psql_token_kind;

typedef struct psql_token {
  psql_token_kind kind;
  const char *text;
  size_t len;
} psql_token;

/* The token that starts at `p` (which must point into a NUL-terminated
 * text). */
psql_token psql_lex(const char *p);

/* The next token at or after `p` that is not PSQL_TOK_SPACE. */
psql_token psql_lex_skip_space(const char *p);

/* Nonzero if `t` is the word `word`, compared case-insensitively. */
int psql_token_is(const psql_token *t, const char *word);

/* Nonzero if `t` is the one-character punctuation `c`. */
static inline int psql_token_is_punct(const psql_token *t, char c) {
  return t->kind == PSQL_TOK_PUNCT && t->len == 1 && t->text[0] == c;
}

/* The 1-based line and column of `at` in `text`. */
void psql_line_col(const char *text, const char *at, int *line, int *col);

#endif
