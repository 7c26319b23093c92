/* JSON tokenizer + Chrome JSON import. The tokenizer runs three ways over the
 * raw bytes (token by token with json_unescape of every string; skipping
 * values after keys; skipping containers), then the bytes go through the
 * whole pipeline as a .json trace. */
#include "fuzz_common.h"

#include "base/json_tokenizer.h"

static char fuzz_unescaped[1 << 16];

static void fuzz_unescape(const json_token *t) {
  if (t->len > sizeof fuzz_unescaped) return;
  size_t out = 0;
  base_error err = {0};
  int rc = json_unescape(t->ptr, t->len, fuzz_unescaped, &out, &err);
  /* The tokenizer validated the escapes: unescaping cannot fail. */
  FUZZ_CHECK(rc == WEFT_OK);
  FUZZ_CHECK(out <= t->len);
}

/* mode 0: every token; 1: skip values after keys; 2: skip containers at
 * depth 2. Returns the final status. */
static int fuzz_tokenize(const uint8_t *data, size_t size, int mode,
                         const json_limits *limits) {
  json_tokenizer t;
  base_error err = {0};
  int rc = json_tokenizer_init(&t, (const char *)data, size, limits, &err);
  if (rc != WEFT_OK) return rc;
  for (size_t steps = 0; steps < 4 * size + 8; steps++) {
    json_token tok;
    rc = json_next(&t, &tok, &err);
    if (rc != WEFT_OK || tok.type == JSON_TOK_EOF) break;
    FUZZ_CHECK(tok.offset <= size);
    if (tok.type == JSON_TOK_KEY || tok.type == JSON_TOK_STRING) fuzz_unescape(&tok);
    if (mode == 1 && tok.type == JSON_TOK_KEY) rc = json_skip_value(&t, &err);
    if (mode == 2 && json_depth(&t) == 2 &&
        (tok.type == JSON_TOK_OBJECT_BEGIN || tok.type == JSON_TOK_ARRAY_BEGIN))
      rc = json_skip_container(&t, &err);
    if (rc != WEFT_OK) break;
  }
  if (rc != WEFT_OK) {
    FUZZ_CHECK(rc == WEFT_EPARSE || rc == WEFT_ELIMIT || rc == WEFT_ENOMEM ||
               rc == WEFT_EINVAL);
    FUZZ_CHECK(strncmp(err.message, "json: ", 6) == 0 || rc == WEFT_EINVAL);
    size_t line, col;
    json_line_col((const char *)data, size, json_offset(&t), &line, &col);
    FUZZ_CHECK(line >= 1 && col >= 1);
  }
  json_tokenizer_free(&t);
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int rc0 = fuzz_tokenize(data, size, 0, NULL);
  int rc1 = fuzz_tokenize(data, size, 1, NULL);
  /* Skipping validates exactly as much as reading token by token. */
  FUZZ_CHECK((rc0 == WEFT_OK) == (rc1 == WEFT_OK));
  fuzz_tokenize(data, size, 2, NULL);
  json_limits deep = {4096, 64};
  fuzz_tokenize(data, size, 0, &deep);
  fuzz_load_one("trace.json", data, size, NULL);
  return 0;
}
