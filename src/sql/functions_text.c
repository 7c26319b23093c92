/* Perfetto's text and byte functions: reverse, base64_encode,
 * base64_decode, unhex, demangle, str_split, __intrinsic_strip_hex. NULL in, NULL out; an argument of the
 * wrong type is an error with Perfetto's text. */
#include <libiberty/demangle.h>
#include <stdio.h>
#include <stdlib.h>

#include "sql/functions_prelude.h"

/* reverse(text): its bytes in reverse order. */
static void text_fn_reverse(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "REVERSE: argument should be string", -1);
    return;
  }
  const char *in = (const char *)sqlite3_value_text(argv[0]);
  size_t n = strlen(in); /* as Perfetto: up to the first NUL */
  char *out = sqlite3_malloc64(n + 1);
  if (!out) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  for (size_t i = 0; i < n; i++) out[i] = in[n - 1 - i];
  out[n] = '\0';
  sqlite3_result_text(ctx, out, (int)n, sqlite3_free);
}

/* base64_encode(blob): standard alphabet, '=' padded. */
static void text_fn_base64_encode(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_BLOB) {
    sqlite3_result_error(ctx, "Base64Encode only supports bytes argument", -1);
    return;
  }
  const unsigned char *in = sqlite3_value_blob(argv[0]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  char *out = sqlite3_malloc64((n + 2) / 3 * 4 + 1);
  if (!out) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  size_t w = base_base64(in, n, out);
  sqlite3_result_text(ctx, out, (int)w, sqlite3_free);
}

/* The 6-bit value of a base64 character (both the standard and the
 * URL-safe alphabet; '=' reads as 0), or -1. */
static int text_b64_value(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+' || c == '-') return 62;
  if (c == '/' || c == '_') return 63;
  if (c == '=') return 0;
  return -1;
}

/* Decodes base64 as Perfetto does: groups of four characters, each three
 * bytes; a group cut short may lack its last two characters (taken as
 * padding); the last group's padding in its 3rd/4th place drops bytes.
 * Returns the decoded length, or -1 on a bad character or short group. */
static long text_b64_decode(const unsigned char *in, size_t n, unsigned char *out) {
  size_t w = 0, i = 0;
  int pad = 0;
  while (i < n) {
    uint32_t v = 0;
    pad = 0;
    for (int j = 0; j < 4; j++, i++) {
      int c = i < n ? in[i] : j < 2 ? -1 : '=';
      int d = c < 0 ? -1 : text_b64_value((unsigned char)c);
      if (d < 0) return -1;
      if (c == '=' && j >= 2) pad++;
      v = v << 6 | (uint32_t)d;
    }
    out[w++] = (unsigned char)(v >> 16);
    out[w++] = (unsigned char)(v >> 8);
    out[w++] = (unsigned char)v;
  }
  return (long)(w - (size_t)pad);
}

/* base64_decode(text or blob) -> blob. */
static void text_fn_base64_decode(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_TEXT && type != SQLITE_BLOB) {
    sqlite3_result_error(ctx, "BASE64: argument must be string or blob", -1);
    return;
  }
  const unsigned char *in = type == SQLITE_TEXT ? sqlite3_value_text(argv[0])
                                                : sqlite3_value_blob(argv[0]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  unsigned char *out = sqlite3_malloc64((n + 3) / 4 * 3 + 1);
  if (!out) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  long len = text_b64_decode(in, n, out);
  if (len < 0) {
    sqlite3_free(out);
    sqlite3_result_error(ctx, "BASE64: Invalid input", -1);
    return;
  }
  sqlite3_result_blob(ctx, out, (int)len, sqlite3_free);
}

static int text_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int text_hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') return (c | 0x20) - 'a' + 10;
  return -1;
}

/* A whole signed hexadecimal integer (an optional sign, then digits) into
 * *out; 0 on success, -1 if malformed or outside int64. */
static int text_parse_hex_i64(const char *s, size_t n, int64_t *out) {
  int neg = n && s[0] == '-';
  size_t i = n && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == n) return -1;
  uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
  for (; i < n; i++) {
    int d = text_hex_digit(s[i]);
    if (d < 0 || v > (limit - (uint64_t)d) / 16) return -1;
    v = v * 16 + (uint64_t)d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 0;
}

/* unhex(text): the integer a hex string spells, surrounding whitespace and
 * a 0x / 0X prefix allowed (a sign goes after the prefix). */
static void text_fn_unhex(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "UNHEX: argument must be text", -1);
    return;
  }
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  size_t n = strlen(s);
  while (n && text_is_space(s[n - 1])) n--;
  while (n && text_is_space(*s)) s++, n--;
  if (!n) {
    sqlite3_result_error(ctx, "UNHEX: input is empty or only whitespace", -1);
    return;
  }
  if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2, n -= 2;
  if (!n) {
    sqlite3_result_error(ctx, "UNHEX: hex string is empty after prefix", -1);
    return;
  }
  int64_t v;
  if (text_parse_hex_i64(s, n, &v)) {
    sqlite3_result_error(ctx, "UNHEX: invalid or out of range hex string", -1);
    return;
  }
  sqlite3_result_int64(ctx, v);
}

/* demangle(text): an Itanium C++ symbol (or type) demangled, NULL when it
 * is not one. */
static void text_fn_demangle(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "Unsupported type of arg passed to DEMANGLE", -1);
    return;
  }
  char *out = cplus_demangle_v3((const char *)sqlite3_value_text(argv[0]),
                                DMGL_PARAMS | DMGL_ANSI | DMGL_TYPES);
  if (!out) return;
  sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
  free(out); /* libiberty allocates with malloc */
}

/* str_split(str, delimiter, n): the n-th (from 0) part of str split at
 * each delimiter ("" between two delimiters), NULL past the last or for a
 * str that is not text; Perfetto's errors for an empty or NULL delimiter and
 * for n that is not a non-negative integer. */
static void text_fn_str_split(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[1]) != SQLITE_TEXT || sqlite3_value_bytes(argv[1]) == 0) {
    sqlite3_result_error(ctx, "str_split: delimiter must be a non-empty string", -1);
    return;
  }
  if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER || sqlite3_value_int64(argv[2]) < 0) {
    sqlite3_result_error(ctx, "str_split: field number must be a non-negative integer", -1);
    return;
  }
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) return;
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  const char *delim = (const char *)sqlite3_value_text(argv[1]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]), dn = (size_t)sqlite3_value_bytes(argv[1]);
  sqlite3_int64 want = sqlite3_value_int64(argv[2]);
  size_t part = 0; /* offsets into s */
  for (sqlite3_int64 i = 0;; i++) {
    size_t next = part;
    while (n - next >= dn && memcmp(s + next, delim, dn) != 0) next++;
    if (n - next < dn) next = n; /* no delimiter left: the last part */
    if (i == want) {
      sqlite3_result_text(ctx, s + part, (int)(next - part), SQLITE_TRANSIENT);
      return;
    }
    if (next == n) return; /* past the last part */
    part = next + dn;
  }
}

/* ---- __intrinsic_strip_hex ---- */

static int text_is_hex(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int text_is_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Writes s[0, n) to out with number-like runs replaced by "<num>"; returns
 * the length written (out holds at least 5 * n + 5 bytes). A run is the
 * longest stretch of hex digits starting at a decimal digit, at a hex digit
 * that begins the text or follows a character that is not a letter or
 * digit, or right after "0x" / "0X" (there possibly empty). It is replaced
 * when it is at least min_len long and holds a decimal digit or follows
 * "0x"; these are the answers of Perfetto's function. */
static size_t text_strip_hex(const unsigned char *s, size_t n, int64_t min_len, char *out) {
  size_t w = 0, i = 0;
  int forced = 0;
  for (;;) {
    int starts = forced || (i < n && ((s[i] >= '0' && s[i] <= '9') ||
                                     (text_is_hex(s[i]) && (i == 0 || !text_is_alnum(s[i - 1])))));
    if (starts) {
      size_t j = i;
      int digit = 0;
      for (; j < n && text_is_hex(s[j]); j++) digit |= s[j] >= '0' && s[j] <= '9';
      if ((digit || forced) && (int64_t)(j - i) >= min_len) {
        memcpy(out + w, "<num>", 5);
        w += 5;
      } else {
        memcpy(out + w, s + i, j - i);
        w += j - i;
      }
      forced = 0;
      i = j;
      continue;
    }
    if (i >= n) return w;
    forced = (s[i] == 'x' || s[i] == 'X') && i >= 1 && s[i - 1] == '0';
    out[w++] = (char)s[i++];
  }
}

/* __intrinsic_strip_hex(text, min_repeated_digits): see text_strip_hex. */
static void text_fn_strip_hex(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "__intrinsic_strip_hex: first argument must be string", -1);
    return;
  }
  if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "__intrinsic_strip_hex: second argument must be integer", -1);
    return;
  }
  int64_t min_len = sqlite3_value_int64(argv[1]);
  if (min_len < 0) {
    sqlite3_result_error(ctx, "__intrinsic_strip_hex: min_repeated_digits must be positive",
                         -1);
    return;
  }
  const unsigned char *s = sqlite3_value_text(argv[0]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  char *out = sqlite3_malloc64(5 * (sqlite3_uint64)n + 6);
  if (!out) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  size_t w = text_strip_hex(s, n, min_len, out);
  sqlite3_result_text(ctx, out, (int)w, sqlite3_free);
}

int sql_text_functions_register(sqlite3 *db) {
  static const struct {
    const char *name;
    int args;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
  } fns[] = {{"reverse", 1, text_fn_reverse},
             {"base64_encode", 1, text_fn_base64_encode},
             {"base64_decode", 1, text_fn_base64_decode},
             {"unhex", 1, text_fn_unhex},
             {"demangle", 1, text_fn_demangle},
             {"str_split", 3, text_fn_str_split},
             {"__intrinsic_strip_hex", 2, text_fn_strip_hex}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (sqlite3_create_function(db, fns[i].name, fns[i].args, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                NULL, fns[i].fn, NULL, NULL) != SQLITE_OK)
      return WEFT_ESQL;
  return WEFT_OK;
}
