/* Async JSON events (b e n) onto as few tracks as their overlap allows.
 *
 * An event's cookie is its category with its id ("id", else id2.global:
 * global; else id2.local: scoped to the process). The first name a cookie
 * is seen with (per process for local ids) is its root name; events whose
 * cookies share a root name (and process, for local ids) share a set of
 * tracks, shared as model/track_compressor.h rules (its index in the set
 * is its track_compressor_idx). A track is created when first used, named after
 * the event that used it, with dimensions {[upid,] scope, name,
 * track_compressor_idx} and source args {source, trace_id_is_process_scoped,
 * upid, source_scope}; "scope" is always null for JSON. */
#include "import/json/json_internal.h"
#include "model/model.h"

void json_async_free(json_async_state *a) {
  track_compressor_free(&a->tracks);
  base_map_free(&a->root_names);
}

static uint64_t json_async_mix(uint64_t a, uint64_t b) {
  return base_hash_u64(a * UINT64_C(0x9e3779b97f4a7c15) + base_hash_u64(b)) >> 1;
}

/* The cookie of (category, id string). */
static uint64_t json_async_cookie(string_id cat, const json_str *id) {
  return json_async_mix(cat, base_hash_bytes(id->ptr, id->len));
}

/* The root name of the cookie: the name it was first seen with. */
static int json_async_root(json_async_state *a, uint64_t root_key, string_id name,
                           string_id *root) {
  uint64_t *slot;
  if (base_map_insert(&a->root_names, root_key, name, &slot) < 0) return WEFT_ENOMEM;
  *root = (string_id)*slot;
  return WEFT_OK;
}

typedef struct json_async_key {
  int process_scoped;
  uint32_t upid;
  string_id root, name;
} json_async_key;

static int json_async_new_track(import_file *f, const json_async_key *k, uint32_t set_id,
                                uint32_t idx, uint32_t *track) {
  trace_context *ctx = f->ctx;
  int64_t dims = -1, src = -1;
  int rc = model_legacy_async_track_args(ctx, k->process_scoped, k->upid, STRING_NULL,
                                         k->root, idx, &dims, &src);
  if (rc) return rc;
  model_track_spec s;
  model_track_spec_init(&s);
  s.type = k->process_scoped ? "legacy_async_process_slice" : "legacy_async_global_slice";
  s.machine = f->machine;
  s.extra_key = ((uint64_t)set_id << 32 | idx) + 1;
  s.group_key = model_track_group_key(&((json_state *)f->state)->async.tracks, set_id);
  rc = model_track(ctx, &s, track);
  if (rc) return rc;
  model_track_set_name(ctx, *track, k->name);
  model_track_set_arg_sets(ctx, *track, dims, src);
  if (k->process_scoped) model_track_set_upid(ctx, *track, k->upid);
  return WEFT_OK;
}

int json_async_track(import_file *f, const json_event *e, string_id cat, string_id name,
                     uint32_t upid, uint32_t *track) {
  json_state *st = f->state;
  json_async_state *a = &st->async;
  /* an id given as "" is an id (the empty one) */
  const json_str *id = e->id.ptr ? &e->id : e->id2_global.ptr ? &e->id2_global : NULL;
  json_async_key k = {0, upid, STRING_NULL, name};
  if (!id) {
    id = &e->id2_local;
    k.process_scoped = 1;
  }
  uint64_t cookie = json_async_cookie(cat, id);
  uint64_t root_key = k.process_scoped ? json_async_mix(json_async_mix(2, upid), cookie)
                                       : json_async_mix(1, cookie);
  int rc = json_async_root(a, root_key, name, &k.root);
  uint32_t set = 0, idx = 0;
  uint64_t set_key = json_async_mix(json_async_mix(k.process_scoped, k.process_scoped ? upid : 0),
                                    k.root);
  track_compressor_event ev = e->ph == 'b'   ? TRACK_COMPRESSOR_BEGIN
                              : e->ph == 'e' ? TRACK_COMPRESSOR_END
                                             : TRACK_COMPRESSOR_INSTANT;
  if (!rc) rc = track_compressor_use(&a->tracks, set_key, (int64_t)cookie, ev, &set, &idx);
  if (rc) return rc;
  uint32_t *slot_track = track_compressor_track(&a->tracks, set, idx);
  if (*slot_track == TRACK_COMPRESSOR_NO_TRACK) {
    rc = json_async_new_track(f, &k, set, idx, slot_track);
    if (rc) return rc;
  }
  *track = *slot_track;
  return WEFT_OK;
}
