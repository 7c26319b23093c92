/* proto_legacy_async: see proto_legacy_async.h. */
#include "import/proto/proto_legacy_async.h"

#include "import/proto/proto_import.h"
#include "import/proto/proto_translation.h"

#include <stdio.h>

#include "model/columns.h"
#include "model/context.h"
#include "model/model.h"

#define PROTO_ASYNC_MAX_SCOPE 512

void proto_async_free(proto_async_state *s) {
  track_compressor_free(&s->sets);
  base_map_free(&s->roots);
}

static uint64_t proto_async_mix(uint64_t a, uint64_t b) {
  return base_hash_u64(a * UINT64_C(0x9e3779b97f4a7c15) + base_hash_u64(b)) >> 1;
}

/* The id scope: the name (legacy S/T/p/F) or category (nestable b/e/n), or
 * "<category>:<id_scope>" when the event names one. */
static int proto_async_scope(trace_context *ctx, const proto_async_event *e, string_id *out) {
  if (!e->has_id_scope) {
    int by_name = e->phase == 'S' || e->phase == 'T' || e->phase == 'p' || e->phase == 'F';
    *out = by_name ? e->name : e->category;
    return WEFT_OK;
  }
  char buf[PROTO_ASYNC_MAX_SCOPE];
  const char *cat = e->category != STRING_NULL ? base_string_pool_get(&ctx->strings, e->category)
                                                : "";
  int n = snprintf(buf, sizeof buf, "%s:%.*s", cat, (int)e->id_scope.len,
                   (const char *)e->id_scope.data);
  size_t len = n < 0 ? 0 : (size_t)n >= sizeof buf ? sizeof buf - 1 : (size_t)n;
  return ctx_intern(ctx, buf, len, out);
}

typedef struct proto_async_key {
  int process_scoped;
  uint32_t upid;
  string_id scope, root;
} proto_async_key;

static int proto_async_new_track(import_file *f, const proto_async_key *k, uint32_t machine,
                                 uint32_t set, uint32_t idx, string_id name, uint32_t *track) {
  trace_context *ctx = f->ctx;
  int64_t dims = -1, src = -1;
  int rc = model_legacy_async_track_args(ctx, k->process_scoped, k->upid, k->scope,
                                         k->root, idx, &dims, &src);
  if (rc) return rc;
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = k->process_scoped ? "legacy_async_process_slice" : "legacy_async_global_slice";
  s.machine = machine;
  s.extra_key = proto_async_mix(proto_async_mix(UINT64_C(0xa5a5c0ffee), f->trace_id),
                                (uint64_t)set << 32 | idx);
  s.group_key = model_track_group_key(f, set); /* the file's async track sets */
  rc = model_track(ctx, &s, track);
  if (rc) return rc;
  if (k->process_scoped)
    name = proto_translate_process_track(((proto_import_state *)f->state)->translation, name);
  model_track_set_name(ctx, *track, name);
  model_track_set_arg_sets(ctx, *track, dims, src);
  if (k->process_scoped) model_track_set_upid(ctx, *track, k->upid);
  return WEFT_OK;
}

static track_compressor_event proto_async_compressor_event(uint64_t phase) {
  if (phase == 'b' || phase == 'S') return TRACK_COMPRESSOR_BEGIN;
  if (phase == 'e' || phase == 'F') return TRACK_COMPRESSOR_END;
  return TRACK_COMPRESSOR_INSTANT;
}

int proto_async_track(import_file *f, proto_async_state *s, const proto_async_event *e,
                      uint32_t *track, int64_t *source_id) {
  trace_context *ctx = f->ctx;
  if (e->id_kind == PROTO_ASYNC_NO_ID) return 1;
  proto_async_key k = {e->id_kind == PROTO_ASYNC_LOCAL, e->upid >= 0 ? (uint32_t)e->upid : 0,
                       STRING_NULL, STRING_NULL};
  if (k.process_scoped && e->upid < 0) return 1;
  *source_id = (int64_t)e->id;
  int rc = proto_async_scope(ctx, e, &k.scope);
  if (rc) return rc;
  uint64_t root_key = proto_async_mix(proto_async_mix(e->machine, k.process_scoped),
                                      proto_async_mix(k.process_scoped ? k.upid : 0, e->id));
  uint64_t *slot;
  if (base_map_insert(&s->roots, root_key, e->name, &slot) < 0) return WEFT_ENOMEM;
  k.root = (string_id)*slot;
  uint64_t set_key = proto_async_mix(proto_async_mix(e->machine, k.process_scoped),
                                     proto_async_mix(k.process_scoped ? k.upid : 0,
                                                     proto_async_mix(k.scope, k.root)));
  uint32_t set, idx;
  rc = track_compressor_use(&s->sets, set_key, (int64_t)e->id,
                            proto_async_compressor_event(e->phase), &set, &idx);
  if (rc) return rc;
  uint32_t *slot_track = track_compressor_track(&s->sets, set, idx);
  if (*slot_track == TRACK_COMPRESSOR_NO_TRACK) {
    rc = proto_async_new_track(f, &k, e->machine, set, idx, e->name, slot_track);
    if (rc) return rc;
  }
  *track = *slot_track;
  return WEFT_OK;
}
