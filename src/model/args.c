/* The model's args: pending args collected by model_arg_*, committed to
 * deduplicated arg sets, reopened and updated when an end event adds to a
 * begin's. See model.h. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/model.h"
/* ---- args ---- */

/* flat_key: the key with array indexes ("[N]") removed. */
static int model_flat_key(trace_context *ctx, const char *key, size_t len,
                          string_id *out) {
  char small[256];
  char *flat = len < sizeof small ? small : base_malloc(len + 1);
  if (!flat) return WEFT_ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (key[i] == '[') {
      while (i < len && key[i] != ']') i++;
      continue;
    }
    flat[n++] = key[i];
  }
  int rc = ctx_intern(ctx, flat, n, out);
  if (flat != small) base_free(flat);
  return rc;
}

static int model_arg_push(trace_context *ctx, const char *key, size_t key_len,
                          model_arg *arg) {
  int rc = ctx_intern(ctx, key, key_len, &arg->key);
  if (rc) return rc;
  arg->flat_key = arg->key; /* the same unless the key has indexes */
  /* a key the input left out (NULL) stays a NULL key, as Perfetto keeps it */
  if (key && memchr(key, '[', key_len)) rc = model_flat_key(ctx, key, key_len, &arg->flat_key);
  return rc ? rc : VEC_PUSH(ctx->model.pending_args, *arg);
}

int model_arg_int(trace_context *ctx, const char *key, size_t key_len,
                  model_arg_type type, int64_t value) {
  model_arg a = {0};
  a.type = type;
  a.int_value = value;
  return model_arg_push(ctx, key, key_len, &a);
}

int model_arg_real(trace_context *ctx, const char *key, size_t key_len,
                   double value) {
  model_arg a = {0};
  a.type = MODEL_ARG_REAL;
  a.real_value = value;
  return model_arg_push(ctx, key, key_len, &a);
}

int model_arg_string(trace_context *ctx, const char *key, size_t key_len,
                     const char *value, size_t value_len, model_arg_type type) {
  model_arg a = {0};
  a.type = type;
  int rc = ctx_intern(ctx, value, value_len, &a.string_value);
  return rc ? rc : model_arg_push(ctx, key, key_len, &a);
}

int model_arg_int_id(trace_context *ctx, string_id key, model_arg_type type,
                     int64_t value) {
  model_arg a = {0};
  a.key = a.flat_key = key;
  a.type = type;
  a.int_value = value;
  return VEC_PUSH(ctx->model.pending_args, a);
}

int model_arg_string_id(trace_context *ctx, string_id key, string_id value,
                        model_arg_type type) {
  model_arg a = {0};
  a.key = a.flat_key = key;
  a.type = type;
  a.string_value = value;
  return VEC_PUSH(ctx->model.pending_args, a);
}

int model_arg_row_set_string(trace_context *ctx, uint32_t row, string_id key,
                             string_id value) {
  storage_table *t = ctx_table(ctx, TABLE_ARGS);
  string_id *type_id = &ctx->model.arg_type_names[MODEL_ARG_STRING];
  int rc = *type_id ? WEFT_OK : ctx_intern(ctx, "string", strlen("string"), type_id);
  if (!rc) rc = storage_set_str(t, ARGS_key, row, key);
  if (!rc) rc = storage_set_str(t, ARGS_flat_key, row, key);
  if (!rc) rc = storage_set_str(t, ARGS_value_type, row, *type_id);
  if (!rc) rc = storage_set_str(t, ARGS_string_value, row, value);
  if (!rc) storage_set_null(t, ARGS_int_value, row);
  return rc;
}

int model_arg_row_set_string_value(trace_context *ctx, uint32_t row, string_id value) {
  return storage_set_str(ctx_table(ctx, TABLE_ARGS), ARGS_string_value, row, value);
}

void model_args_discard(trace_context *ctx) { ctx->model.pending_args.len = 0; }

static const char *model_arg_type_name(model_arg_type t) {
  static const char *const names[] = {"int", "uint", "string", "real",
                                      "pointer", "bool", "json", "null"};
  return names[t];
}

static int model_args_write(trace_context *ctx, int64_t set) {
  storage_table *t = ctx_table(ctx, TABLE_ARGS);
  model_state *m = &ctx->model;
  for (size_t i = 0; i < m->pending_args.len; i++) {
    const model_arg *a = &m->pending_args.data[i];
    uint32_t row;
    string_id *type_id = &m->arg_type_names[a->type];
    const char *tn = model_arg_type_name(a->type);
    int rc = *type_id ? WEFT_OK : ctx_intern(ctx, tn, strlen(tn), type_id);
    if (!rc) rc = storage_table_append(t, &row);
    if (rc) return rc;
    storage_set_i64(t, ARGS_arg_set_id, row, set);
    storage_set_str(t, ARGS_flat_key, row, a->flat_key);
    storage_set_str(t, ARGS_key, row, a->key);
    storage_set_str(t, ARGS_value_type, row, *type_id);
    switch (a->type) {
      case MODEL_ARG_STRING: case MODEL_ARG_JSON:
        storage_set_str(t, ARGS_string_value, row, a->string_value);
        break;
      case MODEL_ARG_REAL: storage_set_f64(t, ARGS_real_value, row, a->real_value); break;
      case MODEL_ARG_NULL: break;
      default: storage_set_i64(t, ARGS_int_value, row, a->int_value); break;
    }
  }
  return WEFT_OK;
}

/* The model_arg_type whose value_type string is `type`. */
static model_arg_type model_arg_type_of(const model_state *m, string_id type) {
  for (int k = 0; k < (int)(sizeof m->arg_type_names / sizeof *m->arg_type_names); k++)
    if (m->arg_type_names[k] == type && type != STRING_NULL) return (model_arg_type)k;
  return MODEL_ARG_NULL;
}

int model_args_reopen(trace_context *ctx, int64_t arg_set) {
  if (arg_set < 0) return WEFT_OK;
  model_state *m = &ctx->model;
  const storage_table *t = ctx_table(ctx, TABLE_ARGS);
  size_t i = storage_lower_bound_i64(t, ARGS_arg_set_id, 0, t->row_count, arg_set, 0);
  for (; i < t->row_count && storage_get_i64(t, ARGS_arg_set_id, i) == arg_set; i++) {
    model_arg a = {0};
    a.key = storage_get_str(t, ARGS_key, i);
    a.flat_key = storage_get_str(t, ARGS_flat_key, i);
    a.type = model_arg_type_of(m, storage_get_str(t, ARGS_value_type, i));
    switch (a.type) {
      case MODEL_ARG_STRING: case MODEL_ARG_JSON:
        a.string_value = storage_get_str(t, ARGS_string_value, i);
        break;
      case MODEL_ARG_REAL: a.real_value = storage_get_f64(t, ARGS_real_value, i); break;
      case MODEL_ARG_NULL: break;
      default: a.int_value = storage_get_i64(t, ARGS_int_value, i); break;
    }
    if (VEC_PUSH(m->pending_args, a)) return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

void model_args_update_from(trace_context *ctx, size_t first) {
  model_state *m = &ctx->model;
  size_t out = first;
  for (size_t i = first; i < m->pending_args.len; i++) {
    model_arg *a = &m->pending_args.data[i];
    size_t j = 0;
    while (j < first && m->pending_args.data[j].key != a->key) j++;
    if (j < first) m->pending_args.data[j] = *a;
    else m->pending_args.data[out++] = *a;
  }
  m->pending_args.len = out;
}

/* The index of key "p[i]..." when it starts with prefix p (plen bytes,
 * up to its first '['), else -1; *rest: what follows "]". */
static int64_t model_arg_index_after(const char *key, size_t len, const char *p, size_t plen,
                                     size_t *rest) {
  if (len <= plen + 2 || memcmp(key, p, plen) != 0 || key[plen] != '[') return -1;
  int64_t v = 0;
  size_t i = plen + 1;
  for (; i < len && key[i] >= '0' && key[i] <= '9' && v < INT32_MAX; i++) v = v * 10 + (key[i] - '0');
  if (i == plen + 1 || i >= len || key[i] != ']') return -1;
  *rest = i + 1;
  return v;
}

/* Shifts the first index of pending arg i past the elements that args
 * before `first` have in the same array. */
static int model_arg_continue_array(trace_context *ctx, size_t first, size_t i) {
  model_state *m = &ctx->model;
  const char *key = base_string_pool_get(&ctx->strings, m->pending_args.data[i].key);
  size_t len = base_string_pool_len(&ctx->strings, m->pending_args.data[i].key);
  const char *open = memchr(key, '[', len);
  if (!open) return WEFT_OK;
  size_t plen = (size_t)(open - key), rest;
  int64_t index = model_arg_index_after(key, len, key, plen, &rest), next = 0;
  if (index < 0) return WEFT_OK;
  for (size_t j = 0; j < first; j++) {
    string_id k = m->pending_args.data[j].key;
    size_t r;
    int64_t e = model_arg_index_after(base_string_pool_get(&ctx->strings, k),
                                      base_string_pool_len(&ctx->strings, k), key, plen, &r);
    if (e >= next) next = e + 1;
  }
  if (next == 0) return WEFT_OK;
  char buf[1100];
  int n = snprintf(buf, sizeof buf, "%.*s[%lld]%.*s", (int)plen, key,
                   (long long)(index + next), (int)(len - rest), key + rest);
  if (n < 0 || (size_t)n >= sizeof buf) return WEFT_OK;
  return ctx_intern(ctx, buf, (size_t)n, &m->pending_args.data[i].key);
}

int model_args_merge_from(trace_context *ctx, size_t first) {
  /* a shift reads only the args before `first`: rewriting in place is safe */
  for (size_t i = first; i < ctx->model.pending_args.len; i++) {
    int rc = model_arg_continue_array(ctx, first, i);
    if (rc) return rc;
  }
  model_args_update_from(ctx, first);
  return WEFT_OK;
}

size_t model_args_pending(const trace_context *ctx) { return ctx->model.pending_args.len; }

int model_args_pending_has(trace_context *ctx, const char *key, size_t key_len) {
  string_id id;
  if (ctx_intern(ctx, key, key_len, &id)) return 0;
  const model_state *m = &ctx->model;
  for (size_t i = 0; i < m->pending_args.len; i++)
    if (m->pending_args.data[i].key == id) return 1;
  return 0;
}

/* A key given twice in one set keeps its first place and takes its last
 * value, as Perfetto's args tracker updates a key it already holds. Small
 * sets are compared pairwise; larger ones through a map of their keys. */
static int model_args_unique_keys(model_state *m) {
  model_arg *args = m->pending_args.data;
  size_t n = m->pending_args.len, out = 0;
  /* a set whose keys fall in distinct bits of a 64-bit mask has none twice
   * (the common case, one pass) */
  uint64_t bits = 0, clash = 0;
  for (size_t i = 0; i < n && !clash; i++) {
    uint64_t bit = 1ull << (args[i].key & 63);
    clash = bits & bit;
    bits |= bit;
  }
  if (!clash) return WEFT_OK;
  base_map seen = {0};
  int big = n > 32;
  for (size_t i = 0; i < n; i++) {
    size_t j = out;
    if (big) {
      uint64_t *slot;
      int inserted = base_map_insert(&seen, args[i].key, out, &slot);
      if (inserted < 0) return base_map_free(&seen), WEFT_ENOMEM;
      if (!inserted) j = (size_t)*slot;
    } else {
      for (j = 0; j < out && args[j].key != args[i].key; j++) {}
    }
    if (j < out) args[j] = args[i];
    else args[out++] = args[i];
  }
  base_map_free(&seen);
  m->pending_args.len = out;
  return WEFT_OK;
}

/* Appends an entry to the args log (model.h); an id too large for it
 * turns the reordering off rather than failing the load. */
static int model_args_log(model_state *m, uint64_t id, uint32_t pop_flag) {
  if (id >= MODEL_ARGS_LOG_POP) m->args_log_overflow = 1;
  if (m->args_log_overflow) return WEFT_OK;
  return VEC_PUSH(m->args_log, (uint32_t)id | pop_flag);
}

int model_args_commit(trace_context *ctx, int64_t *arg_set) {
  model_state *m = &ctx->model;
  *arg_set = -1;
  if (m->pending_args.len == 0) return WEFT_OK;
  if (m->pending_args.len > 1 && model_args_unique_keys(m)) return WEFT_ENOMEM;
  /* Identical sets share one id: key the set by a hash of its contents. */
  uint64_t h = 0;
  for (size_t i = 0; i < m->pending_args.len; i++) {
    const model_arg *a = &m->pending_args.data[i];
    uint64_t real_bits;
    memcpy(&real_bits, &a->real_value, sizeof real_bits);
    h = base_hash_u64(h ^ ((uint64_t)a->key << 8 | (uint64_t)a->type));
    h = base_hash_u64(h ^ (uint64_t)a->int_value);
    h = base_hash_u64(h ^ ((uint64_t)a->string_value << 32 ^ real_bits));
  }
  h >>= 1;
  /* model.h: a set's id is the row of its first arg */
  uint64_t id = ctx_table(ctx, TABLE_ARGS)->row_count, *slot;
  int inserted = base_map_insert(&m->arg_sets, h, id, &slot);
  if (inserted < 0) return WEFT_ENOMEM;
  if (inserted == 0) {
    *arg_set = (int64_t)*slot;
    m->pending_args.len = 0;
    return WEFT_OK;
  }
  int rc = model_args_write(ctx, (int64_t)id);
  m->pending_args.len = 0;
  if (!rc && !m->args_final) rc = model_args_log(m, id, 0);
  if (rc) return rc;
  *arg_set = (int64_t)id;
  return WEFT_OK;
}

int model_args_note_pop(trace_context *ctx, uint32_t slice) {
  model_state *m = &ctx->model;
  return m->args_final ? WEFT_OK : model_args_log(m, slice, MODEL_ARGS_LOG_POP);
}
