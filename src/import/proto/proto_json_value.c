/* proto_json_value: see proto_json_value.h. The key is built in place: each
 * level appends ".member" or "[i]" and restores the length on return. */
#include "import/proto/proto_json_value.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/json_tokenizer.h"
#include "model/model.h"

typedef struct proto_jv {
  trace_context *ctx;
  json_tokenizer tok;
  char *key;
  size_t len, cap;
  base_error err;
} proto_jv;

static int proto_jv_value(proto_jv *j, const json_token *t, int top, int *added);

/* Appends ".part" to the key; 0 if it does not fit. */
static int proto_jv_enter(proto_jv *j, const char *part, size_t n) {
  if (j->len + 1 + n >= j->cap) return 0;
  j->key[j->len++] = '.';
  memcpy(j->key + j->len, part, n);
  j->len += n;
  return 1;
}

/* A string token's decoded bytes (in `buf` when it has escapes). */
static int proto_jv_text(const json_token *t, char **buf, const char **s, size_t *n) {
  *buf = NULL;
  *s = t->ptr;
  *n = t->len;
  if (!t->has_escapes) return WEFT_OK;
  *buf = malloc(t->len ? t->len : 1);
  if (!*buf) return WEFT_ENOMEM;
  base_error err;
  if (json_unescape(t->ptr, t->len, *buf, n, &err)) *n = 0;
  *s = *buf;
  return WEFT_OK;
}

static int proto_jv_string(proto_jv *j, const json_token *t) {
  char *buf;
  const char *s;
  size_t n;
  int rc = proto_jv_text(t, &buf, &s, &n);
  if (!rc) rc = model_arg_string(j->ctx, j->key, j->len, s, n, MODEL_ARG_STRING);
  free(buf);
  return rc;
}

/* A number: an int when integral and within int64; otherwise a real (an
 * integer above int64's range is read as uint64 and wraps, as Perfetto's). */
static int proto_jv_number(proto_jv *j, const json_token *t) {
  if (t->is_int) return model_arg_int(j->ctx, j->key, j->len, MODEL_ARG_INT, t->i);
  double d = t->d;
  if (t->is_integral && t->len && t->ptr[0] != '-' && t->len < 21) {
    char num[24];
    memcpy(num, t->ptr, t->len);
    num[t->len] = '\0';
    char *end;
    unsigned long long u = strtoull(num, &end, 10);
    if (*end == '\0' && u > (unsigned long long)INT64_MAX) d = (double)(int64_t)u;
  }
  return model_arg_real(j->ctx, j->key, j->len, d);
}

static int proto_jv_object(proto_jv *j, int *added) {
  json_token t;
  for (;;) {
    if (json_next(&j->tok, &t, &j->err) || t.type != JSON_TOK_KEY) return WEFT_OK;
    char *buf;
    const char *s;
    size_t n, saved = j->len;
    int rc = proto_jv_text(&t, &buf, &s, &n);
    int fits = !rc && proto_jv_enter(j, s, n);
    free(buf);
    if (rc) return rc;
    if (json_next(&j->tok, &t, &j->err)) return WEFT_OK;
    int a = 0;
    if (fits) rc = proto_jv_value(j, &t, 0, &a);
    else if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN)
      json_skip_container(&j->tok, &j->err);
    j->len = saved;
    if (rc) return rc;
    *added |= a;
  }
}

static int proto_jv_array(proto_jv *j, int *added) {
  json_token t;
  for (uint32_t index = 0;;) {
    if (json_next(&j->tok, &t, &j->err) || t.type == JSON_TOK_ARRAY_END ||
        t.type == JSON_TOK_EOF)
      return WEFT_OK;
    size_t saved = j->len;
    int n = snprintf(j->key + j->len, j->cap - j->len, "[%u]", index);
    int fits = n > 0 && (size_t)n < j->cap - j->len;
    int a = 0, rc = WEFT_OK;
    if (fits) {
      j->len += (size_t)n;
      rc = proto_jv_value(j, &t, 0, &a);
    } else if (t.type == JSON_TOK_OBJECT_BEGIN || t.type == JSON_TOK_ARRAY_BEGIN) {
      json_skip_container(&j->tok, &j->err);
    }
    j->len = saved;
    if (rc) return rc;
    if (t.type != JSON_TOK_NULL) index++;
    *added |= a;
  }
}

/* The value starting with token t at the current key. */
static int proto_jv_value(proto_jv *j, const json_token *t, int top, int *added) {
  int rc = WEFT_OK;
  switch (t->type) {
    case JSON_TOK_OBJECT_BEGIN: return proto_jv_object(j, added);
    case JSON_TOK_ARRAY_BEGIN: return proto_jv_array(j, added);
    case JSON_TOK_STRING: rc = proto_jv_string(j, t); break;
    case JSON_TOK_TRUE: case JSON_TOK_FALSE:
      rc = model_arg_int(j->ctx, j->key, j->len, MODEL_ARG_BOOL, t->type == JSON_TOK_TRUE);
      break;
    case JSON_TOK_NUMBER:
      if (top) return WEFT_OK;
      rc = proto_jv_number(j, t);
      break;
    default: return WEFT_OK;
  }
  if (!rc) *added = 1;
  return rc;
}

int proto_json_value_args(trace_context *ctx, char *key, size_t len, size_t cap,
                          const char *json, size_t json_len, int *added) {
  proto_jv j = {ctx, {0}, key, len, cap, {0}};
  json_limits limits = {PROTO_JSON_VALUE_MAX_DEPTH, 0};
  *added = 0;
  if (json_tokenizer_init(&j.tok, json, json_len, &limits, &j.err)) return WEFT_ENOMEM;
  j.tok.trailing_commas = true;
  json_token t;
  int rc = json_next(&j.tok, &t, &j.err) ? WEFT_OK : proto_jv_value(&j, &t, 1, added);
  json_tokenizer_free(&j.tok);
  return rc;
}
