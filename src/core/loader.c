/* The loading pipeline. */
#include "core/loader.h"

struct loader {
  trace_context *ctx;
  VEC(char *) names; /* top-level names, for messages */
  VEC(uint8_t *) blobs; /* bytes kept until finish */
};

int loader_create(loader **out, trace_context *ctx) {
  loader *l = base_calloc(1, sizeof *l);
  if (!l) return WEFT_ENOMEM;
  l->ctx = ctx;
  *out = l;
  return WEFT_OK;
}

void loader_destroy(loader *l) {
  if (!l) return;
  for (size_t i = 0; i < l->names.len; i++) base_free(l->names.data[i]);
  for (size_t i = 0; i < l->blobs.len; i++) base_free(l->blobs.data[i]);
  VEC_FREE(l->names);
  VEC_FREE(l->blobs);
  base_free(l);
}

int loader_add_file(loader *l, const char *name, uint8_t *data, size_t len,
                    base_error *err) {
  if (VEC_PUSH(l->blobs, data)) {
    base_free(data);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", name);
  }
  uint32_t id;
  int rc = ctx_add_trace_file(l->ctx, -1, NULL, len, "unknown", &id);
  if (rc) return base_error_set(err, rc, "%s: out of memory", name);
  ctx_mark_processed(l->ctx, id);
  return base_error_set(err, WEFT_EUNSUPPORTED,
                        "%s: unknown trace format", name);
}

int loader_finish(loader *l, base_error *err) {
  (void)err;
  return ctx_finalize_tables(l->ctx);
}
