/* proto_args internals shared by proto_args.c (TrackEvent args) and
 * proto_args_chrome.c (Chrome's interned and hashed fields): the walk's
 * state and the key buffer's helpers. */
#ifndef WEFT_PROTO_ARGS_INTERNAL_H
#define WEFT_PROTO_ARGS_INTERNAL_H

#include <stdio.h>
#include <string.h>

#include "import/proto/proto_args.h"
#include "import/proto/proto_descriptor.h"
#include "model/context.h"
#include "model/model.h"

#define ARGS_MAX_SYMBOLS 4 /* native symbols of one event that are kept */

typedef struct proto_args {
  import_file *f;
  const proto_import_state *st;
  const proto_packet_info *info;
  const proto_descriptor_pool *pool;
  int32_t debug_annotation_type; /* message index of DebugAnnotation, or -1 */
  int64_t ts, utid;               /* the event's time and thread (-1: none) */
  int depth;
  size_t len;
  char key[PROTO_ARGS_MAX_KEY];
  /* native symbols (an interned mojo method's mapping and pc), added after
   * the event's other args as Perfetto adds them */
  struct {
    size_t prefix; /* bytes of `keys` before this symbol's key */
    int64_t mapping, rel_pc;
  } symbols[ARGS_MAX_SYMBOLS];
  int n_symbols;
  size_t keys_len;
  char keys[ARGS_MAX_SYMBOLS * PROTO_ARGS_MAX_KEY];
} proto_args;

/* ---- keys ---- */

/* Appends ".part" (or "part" at the root); 0 if it does not fit. */
static inline int args_enter(proto_args *a, const char *part, size_t n, size_t *saved) {
  *saved = a->len;
  size_t dot = a->len ? 1 : 0;
  if (a->len + dot + n >= sizeof a->key) return 0;
  if (dot) a->key[a->len++] = '.';
  memcpy(a->key + a->len, part, n);
  a->len += n;
  return 1;
}

static inline int args_enter_index(proto_args *a, uint32_t index, size_t *saved) {
  *saved = a->len;
  int n = snprintf(a->key + a->len, sizeof a->key - a->len, "[%u]", index);
  if (n < 0 || (size_t)n >= sizeof a->key - a->len) return 0;
  a->len += (size_t)n;
  return 1;
}

static inline void args_leave(proto_args *a, size_t saved) { a->len = saved; }

/* ---- values ---- */

static inline int args_int(proto_args *a, model_arg_type type, int64_t v) {
  return model_arg_int(a->f->ctx, a->key, a->len, type, v);
}

static inline int args_str(proto_args *a, const void *s, size_t n) {
  return model_arg_string(a->f->ctx, a->key, a->len, (const char *)s, n, MODEL_ARG_STRING);
}

static inline int args_str_id(proto_args *a, string_id s) {
  trace_context *ctx = a->f->ctx;
  return args_str(a, base_string_pool_get(&ctx->strings, s),
                  base_string_pool_len(&ctx->strings, s));
}

static inline int args_null(proto_args *a) {
  return model_arg_int(a->f->ctx, a->key, a->len, MODEL_ARG_NULL, 0);
}

/* Chrome's fields that are more than their value (proto_args_chrome.c). */
/* 1 if the field is ChromeMojoEventInfo.mojo_interface_method_iid and was
 * put aside as a native symbol (*rc: a failure). */
int args_native_symbol_override(proto_args *a, const proto_desc_field *d, const proto_field *fl,
                                int *rc);
/* Adds the native symbols put aside, after the event's other args. */
int args_native_symbols(proto_args *a);
/* Adds the translated name of a hash field just written (its key's parent
 * ends at `parent`). */
int args_translated_hash(proto_args *a, const proto_desc_field *d, const proto_field *fl,
                         size_t parent);

#endif
