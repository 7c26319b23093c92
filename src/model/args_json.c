/* Args from JSON values: the flattening Perfetto applies to a JSON event's
 * "args" and to a Firefox profile's marker data. See model.h. */
#include "model/model.h"

#include <string.h>

static int args_json_container(trace_context *ctx, json_tokenizer *tk, base_buf *key,
                               int is_object, base_error *err, int depth);

static int args_json_value(trace_context *ctx, json_tokenizer *tk, const json_token *t,
                           base_buf *key, base_error *err, int depth) {
  switch (t->type) {
    case JSON_TOK_OBJECT_BEGIN:
    case JSON_TOK_ARRAY_BEGIN:
      if (depth > 32) return json_skip_container(tk, err);
      return args_json_container(ctx, tk, key, t->type == JSON_TOK_OBJECT_BEGIN, err, depth);
    case JSON_TOK_STRING: {
      if (!t->has_escapes)
        return model_arg_string(ctx, key->data, key->len, t->ptr, t->len, MODEL_ARG_STRING);
      char *s = base_malloc(t->len + 1);
      if (!s) return base_error_nomem(err);
      size_t len = 0;
      int rc = json_unescape(t->ptr, t->len, s, &len, err);
      /* a "\u0000" ends the string, as Perfetto keeps it (a C string) */
      if (!rc) rc = model_arg_string(ctx, key->data, key->len, s, strnlen(s, len), MODEL_ARG_STRING);
      base_free(s);
      return rc;
    }
    case JSON_TOK_NUMBER:
      if (t->is_int) return model_arg_int(ctx, key->data, key->len, MODEL_ARG_INT, t->i);
      return model_arg_real(ctx, key->data, key->len, json_number_double(t));
    case JSON_TOK_TRUE:
    case JSON_TOK_FALSE:
      return model_arg_int(ctx, key->data, key->len, MODEL_ARG_BOOL, t->type == JSON_TOK_TRUE);
    default:
      return WEFT_OK;
  }
}

/* Appends an object member's name (unescaped) to the key after a '.'. */
static int args_json_member_key(const json_token *t, base_buf *key, base_error *err) {
  int rc = base_buf_append(key, ".", 1);
  if (rc || !t->has_escapes) return rc ? base_error_nomem(err) : base_buf_append(key, t->ptr, t->len);
  char *s = base_malloc(t->len + 1);
  if (!s) return base_error_nomem(err);
  size_t len = 0;
  rc = json_unescape(t->ptr, t->len, s, &len, err);
  if (!rc) rc = base_buf_append(key, s, strnlen(s, len)); /* ends at a "\u0000" */
  base_free(s);
  return rc;
}

/* Flattens an object or array into args under `key`; null values are
 * skipped and do not take an array index. */
static int args_json_container(trace_context *ctx, json_tokenizer *tk, base_buf *key,
                               int is_object, base_error *err, int depth) {
  size_t base_len = key->len;
  int index = 0;
  json_token t;
  for (;;) {
    int rc = json_next(tk, &t, err);
    if (rc) return rc;
    if (t.type == JSON_TOK_OBJECT_END || t.type == JSON_TOK_ARRAY_END) return WEFT_OK;
    if (is_object) {
      rc = args_json_member_key(&t, key, err);
      if (!rc) rc = json_next(tk, &t, err);
      if (rc) return rc;
    }
    if (t.type != JSON_TOK_NULL) {
      if (!is_object) rc = base_buf_appendf(key, "[%d]", index++);
      if (!rc) rc = args_json_value(ctx, tk, &t, key, err, depth + 1);
    }
    key->len = base_len;
    key->data[base_len] = 0;
    if (rc) return rc;
  }
}

int model_args_json_value(trace_context *ctx, json_tokenizer *tk, const json_token *t,
                          base_buf *key, base_error *err) {
  size_t base_len = key->len;
  int rc = args_json_value(ctx, tk, t, key, err, 0);
  key->len = base_len;
  if (key->data) key->data[base_len] = 0;
  return rc;
}
