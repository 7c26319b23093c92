/* Proto content annotations. See proto_content.h. */
#include "model/proto_content.h"

#include <string.h>

#include "model/context.h"
#include "model/model.h"

typedef struct proto_content_pair {
  string_id category, name;
} proto_content_pair;

struct proto_content_state {
  base_map seen;                  /* category << 32 | name -> 1 */
  uint64_t last_key;              /* the latest pair, + 1 (0: none yet) */
  VEC(proto_content_pair) pending; /* pairs not yet written, first seen first */
};

void proto_content_state_free(proto_content_state *s) {
  if (!s) return;
  base_map_free(&s->seen);
  VEC_FREE(s->pending);
  base_free(s);
}

int proto_content_annotate(trace_context *ctx, string_id category, string_id name) {
  proto_content_state *s = ctx->model.proto_content;
  if (!s && !(s = ctx->model.proto_content = base_calloc(1, sizeof *s))) return WEFT_ENOMEM;
  uint64_t key = (uint64_t)category << 32 | name;
  if (s->last_key == key + 1) return WEFT_OK; /* the usual run of one event */
  s->last_key = key + 1;
  int ins = base_map_insert(&s->seen, key, 1, NULL);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 0) return WEFT_OK;
  proto_content_pair pair = {category, name};
  return VEC_PUSH(s->pending, pair);
}

static int proto_content_arg(trace_context *ctx, const char *key, string_id value) {
  string_id k;
  int rc = ctx_intern(ctx, key, strlen(key), &k);
  return rc ? rc : model_arg_string_id(ctx, k, value, MODEL_ARG_STRING);
}

static int proto_content_root(trace_context *ctx, const proto_content_pair *pair,
                              string_id type) {
  storage_table *t = ctx_table(ctx, TABLE_EXPERIMENTAL_PROTO_PATH);
  int64_t arg_set = -1;
  uint32_t row;
  int rc = proto_content_arg(ctx, "event.category", pair->category);
  if (!rc) rc = proto_content_arg(ctx, "event.name", pair->name);
  if (!rc) rc = model_args_commit(ctx, &arg_set);
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  rc = storage_set_str(t, EXPERIMENTAL_PROTO_PATH_field_type, row, type);
  return rc ? rc : storage_set_i64(t, EXPERIMENTAL_PROTO_PATH_arg_set_id, row, arg_set);
}

int proto_content_flush(trace_context *ctx) {
  proto_content_state *s = ctx->model.proto_content;
  if (!s || !s->pending.len) return WEFT_OK;
  string_id type;
  int rc = ctx_intern(ctx, "TracePacket", strlen("TracePacket"), &type);
  for (size_t i = 0; !rc && i < s->pending.len; i++)
    rc = proto_content_root(ctx, &s->pending.data[i], type);
  s->pending.len = 0;
  return rc;
}
