#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "base/base.h"
#include "check.h"
#include "base/json_tokenizer.h"

/* Tokenizes `json` into a compact text: { } [ ] K:key S:str N:num T F Z. */
static int dump_tokens(const char *json, size_t len, char *out, size_t cap,
                       base_error *err) {
  json_tokenizer t;
  int rc = json_tokenizer_init(&t, json, len, NULL, err);
  if (rc) return rc;
  size_t n = 0;
  out[0] = 0;
  for (;;) {
    json_token tok;
    rc = json_next(&t, &tok, err);
    if (rc || tok.type == JSON_TOK_EOF) break;
    const char *sep = n ? " " : "";
    int w = 0;
    switch (tok.type) {
      case JSON_TOK_OBJECT_BEGIN: w = snprintf(out + n, cap - n, "%s{", sep); break;
      case JSON_TOK_OBJECT_END: w = snprintf(out + n, cap - n, "%s}", sep); break;
      case JSON_TOK_ARRAY_BEGIN: w = snprintf(out + n, cap - n, "%s[", sep); break;
      case JSON_TOK_ARRAY_END: w = snprintf(out + n, cap - n, "%s]", sep); break;
      case JSON_TOK_KEY:
        w = snprintf(out + n, cap - n, "%sK:%.*s", sep, (int)tok.len, tok.ptr);
        break;
      case JSON_TOK_STRING:
        w = snprintf(out + n, cap - n, "%sS:%.*s", sep, (int)tok.len, tok.ptr);
        break;
      case JSON_TOK_NUMBER:
        w = snprintf(out + n, cap - n, "%sN:%.*s", sep, (int)tok.len, tok.ptr);
        break;
      case JSON_TOK_TRUE: w = snprintf(out + n, cap - n, "%sT", sep); break;
      case JSON_TOK_FALSE: w = snprintf(out + n, cap - n, "%sF", sep); break;
      case JSON_TOK_NULL: w = snprintf(out + n, cap - n, "%sZ", sep); break;
      default: break;
    }
    if (w > 0) n += (size_t)w;
    if (n >= cap) n = cap - 1;
  }
  json_tokenizer_free(&t);
  return rc;
}

static const char *tokens(const char *json) {
  static char out[4096];
  base_error err = {0};
  int rc = dump_tokens(json, strlen(json), out, sizeof out, &err);
  if (rc) snprintf(out, sizeof out, "ERR(%d) %s", rc, err.message);
  return out;
}

static void test_all_token_types(void) {
  CHECK_EQ_STR(tokens("{}"), "{ }");
  CHECK_EQ_STR(tokens("[]"), "[ ]");
  CHECK_EQ_STR(tokens(" \t\r\n[ ] \n"), "[ ]");
  CHECK_EQ_STR(tokens("{\"a\":1,\"b\":\"x\",\"c\":[true,false,null],\"d\":{}}"),
               "{ K:a N:1 K:b S:x K:c [ T F Z ] K:d { } }");
  CHECK_EQ_STR(tokens("[1, -2.5e3 ,\"s\" , [[]], {\"k\" : {\"z\":null}}]"),
               "[ N:1 N:-2.5e3 S:s [ [ ] ] { K:k { K:z Z } } ]");
  CHECK_EQ_STR(tokens("\"top\""), "S:top");
  CHECK_EQ_STR(tokens("42"), "N:42");
  CHECK_EQ_STR(tokens("true"), "T");
  CHECK_EQ_STR(tokens("null"), "Z");
}

/* With trailing_commas set (the JSON importer's json_trace_tokenizer_init),
 * a comma before a closing bracket is accepted at any depth; without (the
 * default), it is an error (test_errors). */
static void test_trailing_commas(void) {
  const char *doc = "[{\"a\":[1 , ] ,\"b\":{\"c\":2,},} ,\n]";
  json_tokenizer t;
  json_token tok;
  base_error err = {0};
  char out[256] = {0};
  size_t n = 0;
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, strlen(doc), NULL, &err), 0);
  t.trailing_commas = true;
  while (json_next(&t, &tok, &err) == 0 && tok.type != JSON_TOK_EOF && n < 200)
    out[n++] = tok.type == JSON_TOK_NUMBER ? 'N' : tok.type == JSON_TOK_KEY ? 'K' : *tok.ptr;
  CHECK_EQ_INT(t.status, 0);
  CHECK_EQ_STR(out, "[{K[N]K{KN}}]");
  json_tokenizer_free(&t);
  /* a comma right after an opening bracket, or two commas, stay errors */
  const char *bad[] = {"[,1]", "{\"a\":1,,}", "[1,,]"};
  for (size_t i = 0; i < 3; i++) {
    CHECK_EQ_INT(json_tokenizer_init(&t, bad[i], strlen(bad[i]), NULL, &err), 0);
    t.trailing_commas = true;
    int rc = 0;
    tok.type = JSON_TOK_NULL;
    while (!rc && tok.type != JSON_TOK_EOF) rc = json_next(&t, &tok, &err);
    CHECK_EQ_INT(rc, WEFT_EPARSE);
    json_tokenizer_free(&t);
  }
}

static void test_offsets_and_eof(void) {
  const char *doc = "{\n  \"key\": [1, \"v\"]\n}";
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, strlen(doc), NULL, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.offset, 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_KEY);
  CHECK_EQ_INT(tok.offset, 4);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_ARRAY_BEGIN);
  CHECK_EQ_INT(tok.offset, 11);
  CHECK_EQ_INT(json_depth(&t), 2);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.offset, 12);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_STRING);
  CHECK_EQ_INT(tok.offset, 15);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_ARRAY_END);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_OBJECT_END);
  CHECK_EQ_INT(tok.offset, 20);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_EOF);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_EOF);
  json_tokenizer_free(&t);
}

static void test_errors(void) {
  CHECK_EQ_STR(tokens("[1,]"),
               "ERR(-4) json: trailing comma before ']' at offset 3 (line 1, column 4)");
  CHECK_EQ_STR(tokens("{\"a\":1,}"),
               "ERR(-4) json: trailing comma before '}' at offset 7 (line 1, column 8)");
  CHECK_EQ_STR(tokens("{\"a\":1,\n\"b\" 2}"),
               "ERR(-4) json: unexpected character '2', expected ':' after a key at "
               "offset 12 (line 2, column 5)");
  CHECK_EQ_STR(tokens("[1 2]"),
               "ERR(-4) json: unexpected character '2', expected ',' or ']' at offset 3 "
               "(line 1, column 4)");
  CHECK_EQ_STR(tokens("{1:2}"),
               "ERR(-4) json: unexpected character '1', expected a string key at offset 1 "
               "(line 1, column 2)");
  CHECK_EQ_STR(tokens("[1]x"),
               "ERR(-4) json: unexpected character 'x', expected end of input after the "
               "top-level value at offset 3 (line 1, column 4)");
  CHECK_EQ_STR(tokens(""),
               "ERR(-4) json: unexpected end of input at offset 0 (line 1, column 1)");
  CHECK_EQ_STR(tokens("  \n "),
               "ERR(-4) json: unexpected end of input at offset 4 (line 2, column 2)");
  CHECK_EQ_STR(tokens("[tru]"),
               "ERR(-4) json: invalid literal (expected true) at offset 1 (line 1, column 2)");
  CHECK_EQ_STR(tokens("[nul"),
               "ERR(-4) json: unexpected end of input at offset 4 (line 1, column 5)");
  CHECK_EQ_STR(tokens("[01]"),
               "ERR(-4) json: invalid number (leading zero) at offset 1 (line 1, column 2)");
  CHECK_EQ_STR(tokens("[-]"),
               "ERR(-4) json: unexpected character ']', expected a digit at offset 2 "
               "(line 1, column 3)");
  CHECK_EQ_STR(tokens("[1.]"),
               "ERR(-4) json: unexpected character ']', expected a digit after '.' at "
               "offset 3 (line 1, column 4)");
  CHECK_EQ_STR(tokens("[1e+]"),
               "ERR(-4) json: unexpected character ']', expected a digit in the exponent "
               "at offset 4 (line 1, column 5)");
  CHECK_EQ_STR(tokens("[.5]"),
               "ERR(-4) json: unexpected character '.', expected a value at offset 1 "
               "(line 1, column 2)");
  CHECK_EQ_STR(tokens("[\"a\\x\"]"),
               "ERR(-4) json: invalid escape sequence at offset 3 (line 1, column 4)");
  CHECK_EQ_STR(tokens("[\"\\u12G4\"]"),
               "ERR(-4) json: invalid \\u escape (expected 4 hex digits) at offset 2 "
               "(line 1, column 3)");
  CHECK_EQ_STR(tokens("[\"abc"),
               "ERR(-4) json: unexpected end of input at offset 5 (line 1, column 6)");
  CHECK_EQ_STR(tokens("[\x01]"),
               "ERR(-4) json: unexpected byte 0x01, expected a value at offset 1 "
               "(line 1, column 2)");
  CHECK_EQ_STR(tokens("{\"a\" 1}"),
               "ERR(-4) json: unexpected character '1', expected ':' after a key at "
               "offset 5 (line 1, column 6)");
  CHECK_EQ_STR(tokens("[1,,2]"),
               "ERR(-4) json: unexpected character ',', expected a value at offset 3 "
               "(line 1, column 4)");
  CHECK_EQ_STR(tokens("{\"a\":1]"),
               "ERR(-4) json: unexpected character ']', expected ',' or '}' at offset 6 "
               "(line 1, column 7)");
  CHECK_EQ_STR(tokens("// c\n[]"),
               "ERR(-4) json: unexpected character '/', expected a value at offset 0 "
               "(line 1, column 1)");

  /* The error is sticky and hit_end is set only for truncation. */
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  CHECK_EQ_INT(json_tokenizer_init(&t, "[1", 2, NULL, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), WEFT_EPARSE);
  CHECK(t.hit_end);
  CHECK_EQ_INT(json_next(&t, &tok, &err), WEFT_EPARSE);
  json_tokenizer_free(&t);
  CHECK_EQ_INT(json_tokenizer_init(&t, "[x", 2, NULL, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), WEFT_EPARSE);
  CHECK(!t.hit_end);
  json_tokenizer_free(&t);
}

static json_token number(const char *text) {
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  memset(&tok, 0, sizeof tok);
  json_tokenizer_init(&t, text, strlen(text), NULL, &err);
  int rc = json_next(&t, &tok, &err);
  if (rc || tok.type != JSON_TOK_NUMBER) {
    fprintf(stderr, "number(%s): %s\n", text, err.message);
    tok.type = JSON_TOK_EOF;
  }
  json_tokenizer_free(&t);
  return tok;
}

static void test_numbers(void) {
  json_token n = number("0");
  CHECK(n.is_int && n.is_integral && n.i == 0 && n.d == 0.0);
  n = number("-0");
  CHECK(n.is_int && n.i == 0);
  n = number("123456789");
  CHECK(n.is_int && n.i == 123456789 && n.d == 123456789.0);
  n = number("-42");
  CHECK(n.is_int && n.i == -42);
  n = number("9223372036854775807");
  CHECK(n.is_int && n.i == INT64_MAX);
  n = number("-9223372036854775808");
  CHECK(n.is_int && n.i == INT64_MIN);
  n = number("9223372036854775808");
  CHECK(!n.is_int && n.is_integral && n.d == 9223372036854775808.0);
  n = number("-9223372036854775809");
  CHECK(!n.is_int && n.is_integral && n.d == -9223372036854775808.0);
  n = number("18446744073709551616");
  CHECK(!n.is_int && n.is_integral && n.d == 18446744073709551616.0);
  n = number("123456789012345678901234567890");
  CHECK(!n.is_int && n.d == 123456789012345678901234567890.0);
  n = number("1.5");
  CHECK(!n.is_int && !n.is_integral && n.d == 1.5);
  n = number("-0.000123");
  CHECK(!n.is_int && n.d == -0.000123);
  n = number("1e3");
  CHECK(!n.is_int && !n.is_integral && n.d == 1000.0);
  n = number("1E+3");
  CHECK(n.d == 1000.0);
  n = number("25e-1");
  CHECK(n.d == 2.5);
  n = number("1.0");
  CHECK(!n.is_int && n.d == 1.0);
  n = number("12345.678");
  CHECK(n.d == 12345.678);
  n = number("0.1");
  CHECK(n.d == 0.1);
  n = number("3.141592653589793238462643383279");
  CHECK(n.d == 3.141592653589793);
  n = number("1.7976931348623157e308");
  CHECK(n.d == 1.7976931348623157e308);
  n = number("1e400");
  CHECK(isinf(n.d) && n.d > 0);
  n = number("-1e400");
  CHECK(isinf(n.d) && n.d < 0);
  n = number("1e-400");
  CHECK(n.d == 0.0);
  n = number("4.9e-324");
  CHECK(n.d == 4.9e-324);
  n = number("1e99999999999999999999");
  CHECK(isinf(n.d));
  n = number("123456789.123456789e-5");
  CHECK(n.d == 123456789.123456789e-5);
  /* a very long number goes through the heap copy */
  char big[600];
  memset(big, '7', sizeof big - 1);
  big[0] = '1';
  big[1] = '.';
  big[sizeof big - 1] = 0;
  n = number(big);
  CHECK(n.type == JSON_TOK_NUMBER && fabs(n.d - 1.7777777777777777) < 1e-15);
  {
    json_tokenizer t;
    base_error err = {0};
    json_token tok;
    json_tokenizer_init(&t, big, strlen(big), NULL, &err);
    base_alloc_fail_after(1);
    CHECK_EQ_INT(json_next(&t, &tok, &err), WEFT_ENOMEM);
    base_alloc_fail_after(0);
    json_tokenizer_free(&t);
  }
  /* numbers compared with strtod over many generated values */
  char text[64];
  uint64_t x = 88172645463325252ULL;
  int mismatches = 0;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    int e = (int)(x % 60) - 30;
    snprintf(text, sizeof text, "%llu.%llue%d", (unsigned long long)(x % 100000000),
             (unsigned long long)((x >> 20) % 1000000), e);
    n = number(text);
    if (n.d != strtod(text, NULL)) mismatches++;
  }
  CHECK_EQ_INT(mismatches, 0);
}

static const char *unescaped(const char *json_string) {
  static char out[2048];
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  json_tokenizer_init(&t, json_string, strlen(json_string), NULL, &err);
  int rc = json_next(&t, &tok, &err);
  json_tokenizer_free(&t);
  if (rc) {
    snprintf(out, sizeof out, "ERR %s", err.message);
    return out;
  }
  size_t len = 0;
  char buf[256];
  rc = json_unescape(tok.ptr, tok.len, buf, &len, &err);
  if (rc) {
    snprintf(out, sizeof out, "UERR %s", err.message);
    return out;
  }
  CHECK(len <= tok.len);
  memcpy(out, buf, len);
  out[len] = 0;
  return out;
}

static void test_strings_and_escapes(void) {
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  const char *plain = "\"hello world, this is a longer plain string\"";
  json_tokenizer_init(&t, plain, strlen(plain), NULL, &err);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK(!tok.has_escapes);
  CHECK(tok.ptr == plain + 1 && tok.len == strlen(plain) - 2);
  json_tokenizer_free(&t);

  const char *esc = "\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"";
  json_tokenizer_init(&t, esc, strlen(esc), NULL, &err);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK(tok.has_escapes);
  json_tokenizer_free(&t);
  CHECK_EQ_STR(unescaped(esc), "a\"b\\c/d\b\f\n\r\t");
  CHECK_EQ_STR(unescaped("\"\\u0041\\u00e9\\u20AC\""), "A\xc3\xa9\xe2\x82\xac");
  CHECK_EQ_STR(unescaped("\"\\ud83d\\ude00!\""), "\xf0\x9f\x98\x80!");
  CHECK_EQ_STR(unescaped("\"x\\ud83dy\""), "x\xef\xbf\xbdy");        /* lone high */
  CHECK_EQ_STR(unescaped("\"\\ude00\""), "\xef\xbf\xbd");            /* lone low */
  CHECK_EQ_STR(unescaped("\"\\ud83d\\u0041\""), "\xef\xbf\xbd" "A"); /* bad pair */
  CHECK_EQ_STR(unescaped("\"\\\"quoted\\\" end of a string longer than 8\""),
               "\"quoted\" end of a string longer than 8");
  CHECK_EQ_STR(unescaped("\"\\\\\""), "\\");
  /* invalid escapes are rejected by the tokenizer and by json_unescape */
  CHECK_EQ_STR(unescaped("\"\\q\""),
               "ERR json: invalid escape sequence at offset 1 (line 1, column 2)");
  size_t len;
  char buf[16];
  CHECK_EQ_INT(json_unescape("\\q", 2, buf, &len, &err), WEFT_EPARSE);
  CHECK_EQ_INT(json_unescape("ab\\", 3, buf, &len, &err), WEFT_EPARSE);
  CHECK_EQ_INT(json_unescape("\\u12", 4, buf, &len, &err), WEFT_EPARSE);
  /* \u0000 decodes to a NUL byte inside the length */
  CHECK_EQ_INT(json_unescape("a\\u0000b", 8, buf, &len, &err), 0);
  CHECK(len == 3 && buf[0] == 'a' && buf[1] == 0 && buf[2] == 'b');

  /* NUL bytes and invalid UTF-8 pass through untouched. */
  const char raw[] = "[\"a\0b\xff\xfe\xc3\", \"\x80\"]";
  char out[128];
  CHECK_EQ_INT(dump_tokens(raw, sizeof raw - 1, out, sizeof out, &err), 0);
  json_tokenizer_init(&t, raw, sizeof raw - 1, NULL, &err);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK(tok.type == JSON_TOK_STRING && tok.len == 6 && memcmp(tok.ptr, "a\0b\xff\xfe\xc3", 6) == 0);
  json_tokenizer_free(&t);

  /* Keys are strings too, with escapes. */
  CHECK_EQ_STR(tokens("{\"k\\u0041\":1}"), "{ K:k\\u0041 N:1 }");
}

static void test_string_limit(void) {
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  json_limits lim = {.max_depth = 0, .max_string_len = 4};
  const char *doc = "[\"abcd\", \"abcde\"]";
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, strlen(doc), &lim, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), WEFT_ELIMIT);
  CHECK_EQ_STR(err.message,
               "json: string of 5 bytes is longer than the limit of 4 at offset 9 "
               "(line 1, column 10)");
  json_tokenizer_free(&t);
}

static void test_depth_limit(void) {
  size_t depth = 200000;
  char *doc = base_malloc(depth * 2);
  CHECK(doc != NULL);
  if (!doc) return;
  memset(doc, '[', depth);
  memset(doc + depth, ']', depth);
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, depth * 2, NULL, &err), 0);
  int rc;
  size_t n = 0;
  while ((rc = json_next(&t, &tok, &err)) == 0) n++;
  CHECK_EQ_INT(rc, WEFT_ELIMIT);
  CHECK_EQ_INT(n, 512);
  CHECK_EQ_STR(err.message,
               "json: nesting deeper than the limit of 512 at offset 512 (line 1, column 513)");
  json_tokenizer_free(&t);

  /* skip_value hits the same limit, without recursion */
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, depth * 2, NULL, &err), 0);
  CHECK_EQ_INT(json_skip_value(&t, &err), WEFT_ELIMIT);
  json_tokenizer_free(&t);

  /* objects nest too */
  size_t obj_len = depth * 6 + 1;
  char *obj = base_malloc(obj_len);
  CHECK(obj != NULL);
  if (obj) {
    for (size_t i = 0; i < depth; i++) memcpy(obj + i * 5, "{\"a\":", 5);
    obj[depth * 5] = '1';
    memset(obj + depth * 5 + 1, '}', depth);
    CHECK_EQ_INT(json_tokenizer_init(&t, obj, obj_len, NULL, &err), 0);
    while ((rc = json_next(&t, &tok, &err)) == 0) {}
    CHECK_EQ_INT(rc, WEFT_ELIMIT);
    json_tokenizer_free(&t);
  }

  /* a configured deeper limit (heap stack) accepts the whole document */
  json_limits lim = {.max_depth = 250000, .max_string_len = 0};
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, depth * 2, &lim, &err), 0);
  n = 0;
  while ((rc = json_next(&t, &tok, &err)) == 0 && tok.type != JSON_TOK_EOF) n++;
  CHECK_EQ_INT(rc, 0);
  CHECK_EQ_INT(n, depth * 2);
  json_tokenizer_free(&t);
  if (obj) {
    CHECK_EQ_INT(json_tokenizer_init(&t, obj, obj_len, &lim, &err), 0);
    CHECK_EQ_INT(json_skip_value(&t, &err), 0);
    CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
    CHECK_EQ_INT(tok.type, JSON_TOK_EOF);
    json_tokenizer_free(&t);
  }
  base_free(obj);
  base_free(doc);

  /* the heap stack allocation can fail cleanly */
  base_alloc_fail_after(1);
  CHECK_EQ_INT(json_tokenizer_init(&t, "[]", 2, &lim, &err), WEFT_ENOMEM);
  base_alloc_fail_after(0);
  json_tokenizer_free(&t);
}

static const char sample_doc[] =
    "{\"traceEvents\": [\n"
    "  {\"name\": \"f\\u00e9\\n\", \"ph\": \"X\", \"ts\": 1234.5, \"dur\": 10,\n"
    "   \"pid\": 1, \"tid\": -2, \"args\": {\"a\": [true, false, null, 1e-3]}},\n"
    "  {\"name\": \"\\ud83d\\ude00\", \"ph\": \"B\", \"ts\": 0, \"cat\": \"\"}\n"
    "], \"displayTimeUnit\": \"ns\", \"x\": -0.5E+2}\n";

static void test_truncation_everywhere(void) {
  size_t full = sizeof sample_doc - 1;
  char out[2048];
  base_error err = {0};
  CHECK_EQ_INT(dump_tokens(sample_doc, full, out, sizeof out, &err), 0);
  /* The document ends in "}\n": every prefix shorter than the '}' fails. */
  size_t last = full - 2;
  int bad = 0, wrong_message = 0;
  for (size_t cut = 0; cut <= last; cut++) {
    /* a heap copy of exactly `cut` bytes so ASan catches any over-read */
    char *copy = base_malloc(cut ? cut : 1);
    memcpy(copy, sample_doc, cut);
    int rc = dump_tokens(copy, cut, out, sizeof out, &err);
    if (rc != WEFT_EPARSE) bad++;
    if (!strstr(err.message, "unexpected end of input")) wrong_message++;
    base_free(copy);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(wrong_message, 0);
}

static void test_skip_value(void) {
  const char *doc =
      "{\"skip\": {\"a\": [1, {\"b\": \"]}\\\"\"}, 2.5], \"c\": {}}, \"keep\": 7,"
      " \"s\": \"str\", \"arr\": [[1], [2]], \"n\": null}";
  json_tokenizer t;
  base_error err = {0};
  json_token tok;
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, strlen(doc), NULL, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_skip_value(&t, &err), WEFT_EINVAL); /* a key comes next */
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK(tok.type == JSON_TOK_KEY && tok.len == 4);
  CHECK_EQ_INT(json_skip_value(&t, &err), 0);
  CHECK_EQ_INT(json_depth(&t), 1);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK(tok.type == JSON_TOK_KEY && memcmp(tok.ptr, "keep", 4) == 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK(tok.type == JSON_TOK_NUMBER && tok.i == 7);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_skip_value(&t, &err), 0); /* scalar string */
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK(tok.type == JSON_TOK_KEY && memcmp(tok.ptr, "arr", 3) == 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_ARRAY_BEGIN);
  CHECK_EQ_INT(json_skip_value(&t, &err), 0); /* first element [1] */
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_ARRAY_BEGIN);
  CHECK_EQ_INT(json_skip_container(&t, &err), 0); /* rest of [2] */
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_ARRAY_END);
  CHECK_EQ_INT(json_skip_container(&t, &err), 0); /* rest of the document */
  CHECK_EQ_INT(json_depth(&t), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_EOF);
  CHECK_EQ_INT(json_skip_container(&t, &err), WEFT_EINVAL);
  json_tokenizer_free(&t);

  /* skipping validates: malformed content inside a skipped value fails */
  const char *bad = "{\"skip\": [1, 2,], \"x\": 1}";
  CHECK_EQ_INT(json_tokenizer_init(&t, bad, strlen(bad), NULL, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_skip_value(&t, &err), WEFT_EPARSE);
  CHECK(strstr(err.message, "trailing comma") != NULL);
  json_tokenizer_free(&t);

  /* skip_value on an empty array position is refused without consuming */
  CHECK_EQ_INT(json_tokenizer_init(&t, "[]", 2, NULL, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(json_skip_value(&t, &err), WEFT_EINVAL);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_ARRAY_END);
  json_tokenizer_free(&t);

  /* whole document */
  CHECK_EQ_INT(json_tokenizer_init(&t, doc, strlen(doc), NULL, &err), 0);
  CHECK_EQ_INT(json_skip_value(&t, &err), 0);
  CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
  CHECK_EQ_INT(tok.type, JSON_TOK_EOF);
  json_tokenizer_free(&t);
}

/* ---- json_container_end, json_tokenizer_fork ---- */

static uint64_t rng_next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Appends a random well-formed value: strings full of brackets, quotes
 * and backslashes (escaped), the letters that look like brackets to the
 * eight-byte test, and runs of blanks that move everything across word
 * boundaries. */
static void random_value(base_buf *b, uint64_t *x, int depth) {
  static const char *const pieces[] = {"{", "}", "[", "]", "\\\"", "\\\\", "Y", "y",
                                       "_", "\x7f", "ab", " ", "\\u005d", "\\\\\\\""};
  uint64_t r = rng_next(x) % (depth > 5 ? 3 : 6);
  size_t blanks = rng_next(x) % 9;
  for (size_t i = 0; i < blanks; i++) base_buf_append(b, " ", 1);
  if (r == 0) {
    base_buf_append(b, "-12.5e3", 7);
  } else if (r == 1) {
    base_buf_append(b, "\"", 1);
    for (uint64_t n = rng_next(x) % 12; n > 0; n--) {
      const char *piece = pieces[rng_next(x) % (sizeof pieces / sizeof *pieces)];
      base_buf_append(b, piece, strlen(piece));
    }
    base_buf_append(b, "\"", 1);
  } else if (r == 2) {
    base_buf_append(b, rng_next(x) & 1 ? "true" : "null", 4);
  } else {
    int object = r == 3;
    base_buf_append(b, object ? "{" : "[", 1);
    for (uint64_t n = rng_next(x) % 5, i = 0; i < n; i++) {
      if (i) base_buf_append(b, ",", 1);
      if (object) base_buf_append(b, "\"k}\\\"\":", 7);
      random_value(b, x, depth + 1);
    }
    base_buf_append(b, object ? "}" : "]", 1);
  }
}

/* On well-formed documents it agrees with the tokenizer at every
 * container of every document. */
static void test_container_end_agrees(void) {
  uint64_t x = 0x2545f4914f6cdd1dULL;
  base_error err = {0};
  size_t containers = 0;
  for (int doc = 0; doc < 400; doc++) {
    base_buf b;
    base_buf_init(&b, 1 << 20);
    base_buf_append(&b, "[", 1);
    random_value(&b, &x, 0);
    base_buf_append(&b, "]", 1);
    json_tokenizer t;
    json_token tok;
    CHECK_EQ_INT(json_tokenizer_init(&t, b.data, b.len, NULL, &err), 0);
    while (json_next(&t, &tok, &err) == 0 && tok.type != JSON_TOK_EOF) {
      if (tok.type != JSON_TOK_OBJECT_BEGIN && tok.type != JSON_TOK_ARRAY_BEGIN) continue;
      json_tokenizer skip;
      CHECK_EQ_INT(json_tokenizer_init(&skip, b.data, b.len, NULL, &err), 0);
      json_tokenizer_fork(&skip, &t);
      CHECK_EQ_INT(json_skip_container(&skip, &err), 0);
      CHECK_EQ_INT(json_container_end(b.data, b.len, tok.offset, 512), json_offset(&skip));
      json_tokenizer_free(&skip);
      containers++;
    }
    CHECK_EQ_INT(t.status, 0);
    json_tokenizer_free(&t);
    base_buf_free(&b);
  }
  CHECK(containers > 1000);
}

static void test_container_end_edges(void) {
  const char *doc = "{\"a\": [1, \"]\\\\\"], \"b\": {\"c\": \"}\"}}";
  size_t len = strlen(doc);
  CHECK_EQ_INT(json_container_end(doc, len, 0, 512), len);
  CHECK_EQ_INT(json_container_end(doc, len, 6, 512), 16); /* [1, "]\\"] */
  CHECK_EQ_INT(json_container_end(doc, len, 1, 512), 0);  /* not a bracket */
  CHECK_EQ_INT(json_container_end(doc, len, len, 512), 0);
  for (size_t cut = 1; cut < len; cut++) /* no end within the bytes given */
    CHECK_EQ_INT(json_container_end(doc, cut, 0, 512), 0);
  CHECK_EQ_INT(json_container_end("[\"\\", 3, 0, 512), 0); /* a backslash last */
  CHECK_EQ_INT(json_container_end("[[[]]]", 6, 0, 3), 6);
  CHECK_EQ_INT(json_container_end("[[[]]]", 6, 0, 2), 0); /* deeper than allowed */
  /* a closing bracket of the other kind still closes: nothing else is checked */
  CHECK_EQ_INT(json_container_end("[1}, 2]", 7, 0, 512), 3);
}

/* Byte soup: never reads outside the bytes given, never hangs. */
static void test_container_end_garbage(void) {
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  const char alphabet[] = "{}[]\"\\ y_1";
  for (int iter = 0; iter < 20000; iter++) {
    size_t len = 1 + rng_next(&x) % 40;
    char *buf = base_malloc(len);
    for (size_t i = 0; i < len; i++) buf[i] = alphabet[rng_next(&x) % (sizeof alphabet - 1)];
    buf[0] = iter & 1 ? '{' : '[';
    size_t end = json_container_end(buf, len, 0, 4);
    CHECK(end <= len);
    if (end) CHECK(buf[end - 1] == '}' || buf[end - 1] == ']');
    base_free(buf);
  }
}

/* A fork reads on from where its source is, nesting and state included. */
static void test_fork(void) {
  json_tokenizer a, b;
  json_token ta, tb;
  base_error err = {0};
  json_limits deep = {.max_depth = 1000, .max_string_len = 0};
  base_buf doc;
  base_buf_init(&doc, 1 << 20);
  for (int i = 0; i < 70; i++) base_buf_append(&doc, i % 2 ? "[" : "{\"k\":", i % 2 ? 1 : 5);
  base_buf_append(&doc, "7", 1);
  for (int i = 69; i >= 0; i--) base_buf_append(&doc, i % 2 ? "]" : "}", 1);
  CHECK_EQ_INT(json_tokenizer_init(&a, doc.data, doc.len, &deep, &err), 0);
  for (int i = 0; i < 100; i++) CHECK_EQ_INT(json_next(&a, &ta, &err), 0);
  CHECK_EQ_INT(json_tokenizer_init(&b, doc.data, doc.len, &deep, &err), 0);
  json_tokenizer_fork(&b, &a);
  for (;;) {
    CHECK_EQ_INT(json_next(&a, &ta, &err), 0);
    CHECK_EQ_INT(json_next(&b, &tb, &err), 0);
    CHECK_EQ_INT(tb.type, ta.type);
    CHECK_EQ_INT(tb.offset, ta.offset);
    if (ta.type == JSON_TOK_EOF) break;
  }
  json_tokenizer_free(&a);
  json_tokenizer_free(&b);
  base_buf_free(&doc);
}

/* Random byte soup and mutations of the sample: never crash, always end. */
static void test_garbage_never_crashes(void) {
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  char buf[96];
  char out[4096];
  base_error err = {0};
  const char alphabet[] = "{}[]\":,\\u0123456789eE+-.tfnrl \n\xff";
  for (int iter = 0; iter < 30000; iter++) {
    size_t len;
    if (iter & 1) {
      len = sizeof sample_doc - 1 < sizeof buf ? sizeof sample_doc - 1 : sizeof buf;
      memcpy(buf, sample_doc, len);
      for (int m = 0; m < 3; m++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[x % len] = alphabet[(x >> 32) % (sizeof alphabet - 1)];
      }
    } else {
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;
      len = x % sizeof buf;
      for (size_t i = 0; i < len; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        buf[i] = alphabet[x % (sizeof alphabet - 1)];
      }
    }
    char *copy = base_malloc(len ? len : 1);
    memcpy(copy, buf, len);
    dump_tokens(copy, len, out, sizeof out, &err);
    json_tokenizer t;
    json_tokenizer_init(&t, copy, len, NULL, &err);
    json_skip_value(&t, &err);
    json_tokenizer_free(&t);
    base_free(copy);
  }
  CHECK(1);
}

/* The value of a NUMBER token is strtod's reading of its text, whichever
 * path gives it (an exact double operation, x87 extended precision, or
 * strtod itself): random integers, decimals and exponents of 1 to 21
 * digits. */
static void test_numbers_read_as_strtod(void) {
  /* runs of eight digits (read eight at a time) at every place */
  static const char *const fixed[] = {
      "12345678", "123456789", "1234567890123456", "1234567890123456789",
      "12345678901234567890", "0.12345678", "0.000000001234567890123", "1.23456789e-5",
      "99999999.99999999", "-18446744073709551615", "12345678.9", "0.00000000"};
  char text[80];
  int wrong = 0;
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
    json_tokenizer t;
    base_error err = {0};
    json_token tok;
    CHECK_EQ_INT(json_tokenizer_init(&t, fixed[i], strlen(fixed[i]), NULL, &err), 0);
    CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
    if (tok.d != strtod(fixed[i], NULL) && wrong++ < 5) fprintf(stderr, "  %s: %.17g\n", fixed[i], tok.d);
  }
  srand(11);
  for (int n = 0; n < 300000; n++) {
    int digits = 1 + rand() % 21, dot = rand() % (digits + 1), k = 0;
    if (rand() % 4 == 0) text[k++] = '-';
    if (rand() % 8 == 0) { /* a small number: "0.000..." */
      k += sprintf(text + k, "0.");
      for (int z = rand() % 12; z > 0; z--) text[k++] = '0';
      dot = -1;
    }
    for (int d = 0; d < digits; d++) {
      if (d == dot && d) text[k++] = '.';
      int lead = d == 0 && dot != -1 && digits > 1; /* no leading zero */
      text[k++] = (char)((lead ? '1' : '0') + rand() % (lead ? 9 : 10));
    }
    if (rand() % 3 == 0) k += sprintf(text + k, "e%d", rand() % 61 - 30);
    text[k] = 0;
    json_tokenizer t;
    base_error err = {0};
    json_token tok;
    CHECK_EQ_INT(json_tokenizer_init(&t, text, (size_t)k, NULL, &err), 0);
    CHECK_EQ_INT(json_next(&t, &tok, &err), 0);
    CHECK_EQ_INT(tok.type, JSON_TOK_NUMBER);
    double want = strtod(text, NULL);
    if (tok.d != want && wrong++ < 5) fprintf(stderr, "  %s: %.17g, strtod %.17g\n", text, tok.d, want);
  }
  CHECK_EQ_INT(wrong, 0);
}

int main(void) {
  RUN_TEST(test_all_token_types);
  RUN_TEST(test_trailing_commas);
  RUN_TEST(test_offsets_and_eof);
  RUN_TEST(test_errors);
  RUN_TEST(test_numbers);
  RUN_TEST(test_numbers_read_as_strtod);
  RUN_TEST(test_strings_and_escapes);
  RUN_TEST(test_string_limit);
  RUN_TEST(test_depth_limit);
  RUN_TEST(test_truncation_everywhere);
  RUN_TEST(test_skip_value);
  RUN_TEST(test_garbage_never_crashes);
  RUN_TEST(test_container_end_agrees);
  RUN_TEST(test_container_end_edges);
  RUN_TEST(test_container_end_garbage);
  RUN_TEST(test_fork);
  return CHECK_SUMMARY();
}
