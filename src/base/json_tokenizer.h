/* json_tokenizer: a streaming (pull) JSON tokenizer over one complete
 * in-memory buffer. No DOM, no recursion, no allocation per token.
 *
 * Owns: only the container stack (inline up to 512 levels, heap above; see
 * json_tokenizer_init). Tokens point into the caller's buffer, which must
 * outlive them.
 *
 * Invariants and behaviour:
 *  - Strict RFC 8259 structure: exactly one top-level value, no trailing
 *    commas (unless trailing_commas is set), no comments, no leading zeros,
 *    literals exactly true/false/null.
 *  - String bytes are passed through unchanged (NUL bytes, raw control
 *    characters and invalid UTF-8 are accepted, never interpreted); escape
 *    syntax is validated when the string is tokenized, so json_unescape() on
 *    a span returned here can only fail on a bug, not on input.
 *  - Limits: nesting depth (default 512) and string length (default 256 MiB)
 *    fail with WEFT_ELIMIT; everything else malformed fails with WEFT_EPARSE.
 *  - Every error message has the form
 *      "json: <what> at offset N (line L, column C)"
 *    and the tokenizer then stays failed (further calls return the same code).
 *  - A buffer that ends in the middle of a value gives
 *    "json: unexpected end of input ..." and sets `hit_end` (lets importers
 *    that tolerate truncated traces tell it apart from garbage). */
#ifndef WEFT_JSON_TOKENIZER_H
#define WEFT_JSON_TOKENIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

#define JSON_DEFAULT_MAX_DEPTH 512u
#define JSON_DEFAULT_MAX_STRING_LEN ((size_t)256 << 20)

typedef enum json_token_type {
  JSON_TOK_EOF = 0,      /* the top-level value is complete; only whitespace left */
  JSON_TOK_OBJECT_BEGIN, /* '{' */
  JSON_TOK_OBJECT_END,   /* '}' */
  JSON_TOK_ARRAY_BEGIN,  /* '[' */
  JSON_TOK_ARRAY_END,    /* ']' */
  JSON_TOK_KEY,          /* an object key; its ':' is consumed with it */
  JSON_TOK_STRING,
  JSON_TOK_NUMBER,
  JSON_TOK_TRUE,
  JSON_TOK_FALSE,
  JSON_TOK_NULL
} json_token_type;

typedef struct json_token {
  json_token_type type;
  size_t offset;     /* byte offset of the token's first byte (the quote for strings) */
  const char *ptr;   /* KEY/STRING: raw bytes between the quotes (still escaped);
                        NUMBER: the number's text; others: the token's text */
  size_t len;
  bool has_escapes;  /* KEY/STRING: the raw span contains a backslash */
  bool is_integral;  /* NUMBER: no fraction and no exponent in the text */
  bool is_int;       /* NUMBER: is_integral and fits int64 -> `i` is exact */
  int64_t i;         /* NUMBER: valid when is_int */
  double d;          /* NUMBER: always set (closest double; +-inf on overflow) */
} json_token;

typedef struct json_limits {
  uint32_t max_depth;    /* 0 = JSON_DEFAULT_MAX_DEPTH */
  size_t max_string_len; /* raw bytes of one string/key; 0 = default */
} json_limits;

typedef struct json_tokenizer {
  const char *begin, *p, *end;
  uint32_t depth, max_depth;
  size_t max_string_len;
  bool trailing_commas; /* accept a ',' just before a closing bracket
                           (default false; set after init) */
  int state;     /* private */
  int status;    /* 0, or the sticky error code */
  bool hit_end;  /* the error was "unexpected end of input" */
  uint64_t *stack; /* bit i set = level i is an object; private */
  uint64_t stack_inline[8];
} json_tokenizer;

/* Prepares to tokenize buf[0, len). limits may be NULL. Fails only with
 * WEFT_ENOMEM (a max_depth above 512 needs a heap stack). */
int json_tokenizer_init(json_tokenizer *t, const char *buf, size_t len,
                        const json_limits *limits, base_error *err);
void json_tokenizer_free(json_tokenizer *t);

/* Reads the next token into *tok. Returns WEFT_OK (JSON_TOK_EOF once the
 * document is complete, repeatedly), WEFT_EPARSE or WEFT_ELIMIT. */
int json_next(json_tokenizer *t, json_token *tok, base_error *err);

/* Skips the next whole value (after a KEY, or where a value is expected),
 * validating it without converting numbers. Fails with WEFT_EINVAL if the
 * next token is not the start of a value (a closing bracket or EOF). */
int json_skip_value(json_tokenizer *t, base_error *err);

/* Skips the rest of the innermost open container, including its closing
 * bracket: call it right after an OBJECT_BEGIN/ARRAY_BEGIN token (or
 * anywhere inside) to drop that container. WEFT_EINVAL at depth 0. */
int json_skip_container(json_tokenizer *t, base_error *err);

/* The first '"' or '\\' in [p, end), or end: eight bytes at a time (a
 * byte equal to c gives a zero byte in v ^ c*ones; the lowest flagged
 * byte of the zero-byte test is always a true one, so on little-endian
 * machines it is the answer). */
static inline const char *json_find_special(const char *p, const char *end) {
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  while (end - p >= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    uint64_t hit = ((q - ones) & ~q & highs) | ((b - ones) & ~b & highs);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (hit) return p + (__builtin_ctzll(hit) >> 3);
#else
    if (hit) break;
#endif
    p += 8;
  }
  while (p < end && *p != '"' && *p != '\\') p++;
  return p;
}

/* Current nesting depth (number of open containers). */
static inline uint32_t json_depth(const json_tokenizer *t) { return t->depth; }
/* Byte offset of the next unread byte. */
/* Puts a tokenizer fresh from json_tokenizer_init (over the whole
 * document) inside `depth` (1 to 64) open containers, level i an object
 * when bit i of object_bits is set, just after a value that ended at
 * offset `end`: where the tokenizer would be had it read the document up to
 * there. Offsets and messages are then the same as a whole read's. */
void json_tokenizer_enter(json_tokenizer *t, uint32_t depth, uint64_t object_bits, size_t end);

/* The container opened by the last token ('{' or '[') was read by other
 * means up to `end` (the offset just past its closing bracket, which the
 * caller guarantees closes one well-formed value within the limits): the
 * tokenizer goes on after it, as json_skip_container would have left it. */
void json_tokenizer_resume_after(json_tokenizer *t, size_t end);
/* Puts t, fresh from json_tokenizer_init over the same buffer with the
 * same limits as `from`, where `from` is now (position, nesting, state),
 * so that it can read on from there on its own. */
void json_tokenizer_fork(json_tokenizer *t, const json_tokenizer *from);

/* The offset just past the container whose opening bracket is buf[at],
 * found from its brackets and strings alone: nothing else is checked, so
 * a caller that needs the container well formed reads it with a tokenizer
 * too (on well-formed JSON the two agree). 0 when buf[at] opens no
 * container, the end is not within len, or it nests deeper than
 * max_depth. Sixteen or eight bytes at a time outside strings. */
size_t json_container_end(const char *buf, size_t len, size_t at, uint32_t max_depth);

static inline size_t json_offset(const json_tokenizer *t) {
  return (size_t)(t->p - t->begin);
}

/* Writes the decoded bytes of a raw KEY/STRING span to dst, which must have
 * room for `len` bytes (decoding never grows a string). \uXXXX becomes UTF-8,
 * surrogate pairs are combined, a lone surrogate becomes U+FFFD, \u0000
 * becomes a NUL byte. Invalid escape syntax fails with WEFT_EPARSE. */
int json_unescape(const char *src, size_t len, char *dst, size_t *out_len,
                  base_error *err);

/* 1-based line and column (in bytes) of `offset` in buf, for messages. */
void json_line_col(const char *buf, size_t len, size_t offset, size_t *line,
                   size_t *col);

/* A NUMBER token as a double, as Perfetto reads it: a whole number beyond
 * int64 wraps through uint64 to int64 first. */
double json_number_double(const json_token *t);

/* Human-readable name of a token type ("object", "string", ...). */
const char *json_token_type_name(json_token_type type);

#endif
