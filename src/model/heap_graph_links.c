/* Links found by following named references at the end of a heap graph
 * dump: superclasses and native sizes. See heap_graph.h. */
#include "model/heap_graph_internal.h"

int hg_referent(trace_context *ctx, uint32_t obj, string_id name, int64_t *owned) {
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  storage_table *refs = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  if (storage_is_null(objects, HEAP_GRAPH_OBJECT_reference_set_id, obj)) return 0;
  size_t r = (size_t)storage_get_i64(objects, HEAP_GRAPH_OBJECT_reference_set_id, obj);
  for (; r < refs->row_count &&
         storage_get_i64(refs, HEAP_GRAPH_REFERENCE_owner_id, r) == (int64_t)obj;
       r++) {
    if (storage_get_str(refs, HEAP_GRAPH_REFERENCE_field_name, r) != name) continue;
    *owned = storage_get_i64_or(refs, HEAP_GRAPH_REFERENCE_owned_id, r, -1);
    return 1;
  }
  return 0;
}

static int hg_in_dump(storage_table *objects, const hg_seq *seq, size_t row) {
  return storage_get_i64(objects, HEAP_GRAPH_OBJECT_upid, row) == seq->upid &&
         storage_get_i64(objects, HEAP_GRAPH_OBJECT_graph_sample_ts, row) == seq->ts;
}

/* An object's class: its normalized name (interned unless only static,
 * array-free classes are wanted and it is not one) and location. */
static int hg_class_of(trace_context *ctx, size_t obj, int only_static, hg_normalized *n,
                       string_id *norm, string_id *location) {
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  storage_table *classes = ctx_table(ctx, TABLE_HEAP_GRAPH_CLASS);
  int64_t cls = storage_get_i64(objects, HEAP_GRAPH_OBJECT_type_id, obj);
  *norm = *location = STRING_NULL;
  *n = (hg_normalized){"", 0, 0, 0};
  if ((uint64_t)cls >= classes->row_count) return WEFT_OK;
  string_id name = storage_get_str(classes, HEAP_GRAPH_CLASS_name, (size_t)cls);
  *location = storage_get_str(classes, HEAP_GRAPH_CLASS_location, (size_t)cls);
  const char *s = base_string_pool_get(&ctx->strings, name);
  *n = hg_normalize(s ? s : "", base_string_pool_len(&ctx->strings, name));
  if (only_static && (!n->is_static_class || n->arrays)) return WEFT_OK;
  return ctx_intern(ctx, n->name, n->len, norm);
}

static uint64_t hg_pair(string_id a, string_id b) {
  return (uint64_t)a << 32 | b;
}

/* (class name, location) -> (superclass name, location), from the
 * java.lang.Class.superClass reference of each static class object. */
static int hg_superclass_map(trace_context *ctx, hg_seq *seq, base_map *out) {
  heap_graph_state *s = ctx->model.heap_graph;
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  for (size_t o = 0; o < objects->row_count; o++) {
    if (!hg_in_dump(objects, seq, o)) continue;
    hg_normalized n;
    string_id name, loc, super_name, super_loc;
    int rc = hg_class_of(ctx, o, 1, &n, &name, &loc);
    if (rc) return rc;
    if (!n.is_static_class || n.arrays) continue;
    int64_t super = -1;
    if (!hg_referent(ctx, (uint32_t)o, s->super_class, &super) || super < 0) continue;
    rc = hg_class_of(ctx, (size_t)super, 0, &n, &super_name, &super_loc);
    uint64_t *slot;
    if (!rc && base_map_insert(out, hg_pair(name, loc), 0, &slot) < 0) rc = WEFT_ENOMEM;
    if (rc) return rc;
    *slot = hg_pair(super_name, super_loc);
  }
  return WEFT_OK;
}

/* Every class (of any dump) that is neither static nor an array gets the
 * superclass the map names, when a class row has that name and location. */
static int hg_set_superclasses(trace_context *ctx, const base_map *supers) {
  storage_table *classes = ctx_table(ctx, TABLE_HEAP_GRAPH_CLASS);
  base_map by_name = {0};
  int rc = WEFT_OK;
  for (size_t c = 0; !rc && c < classes->row_count; c++) {
    uint64_t *slot;
    uint64_t k = hg_pair(storage_get_str(classes, HEAP_GRAPH_CLASS_name, c),
                         storage_get_str(classes, HEAP_GRAPH_CLASS_location, c));
    if (base_map_insert(&by_name, k, 0, &slot) < 0) rc = WEFT_ENOMEM;
    else *slot = c;
  }
  for (size_t c = 0; !rc && c < classes->row_count; c++) {
    string_id name = storage_get_str(classes, HEAP_GRAPH_CLASS_name, c);
    const char *s = base_string_pool_get(&ctx->strings, name);
    hg_normalized n = hg_normalize(s ? s : "", base_string_pool_len(&ctx->strings, name));
    if (n.is_static_class || n.arrays) continue;
    uint64_t *super = base_map_find(
        supers, hg_pair(name, storage_get_str(classes, HEAP_GRAPH_CLASS_location, c)));
    uint64_t *row = super ? base_map_find(&by_name, *super) : NULL;
    if (row) storage_set_i64(classes, HEAP_GRAPH_CLASS_superclass_id, c, (int64_t)*row);
  }
  base_map_free(&by_name);
  return rc ? rc : storage_table_status(classes);
}

int hg_link_superclasses(trace_context *ctx, hg_seq *seq) {
  base_map supers = {0};
  int rc = hg_superclass_map(ctx, seq, &supers);
  if (!rc && supers.count) rc = hg_set_superclasses(ctx, &supers);
  base_map_free(&supers);
  return rc;
}

/* A live sun.misc.Cleaner's native size goes to its referent: the size of
 * the NativeAllocationRegistry its thunk's this$0 names. */
static int hg_cleaner(trace_context *ctx, hg_seq *seq, uint32_t cleaner) {
  heap_graph_state *s = ctx->model.heap_graph;
  int64_t referent = -1, thunk = -1, next = -1, registry = -1;
  if (!hg_referent(ctx, cleaner, s->referent, &referent) || referent < 0) return WEFT_OK;
  if (!hg_referent(ctx, cleaner, s->cleaner_thunk, &thunk) || thunk < 0) return WEFT_OK;
  if (hg_referent(ctx, cleaner, s->cleaner_next, &next) && next == (int64_t)cleaner)
    return WEFT_OK; /* already cleaned */
  if (!hg_referent(ctx, (uint32_t)thunk, s->thunk_this0, &registry) || registry < 0)
    return WEFT_OK;
  uint64_t *size = base_map_find(&seq->nar_sizes, (uint64_t)registry);
  if (!size) return WEFT_OK;
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  int64_t native = (int64_t)(*size & ~(uint64_t)1); /* low bit: malloced */
  int64_t was = storage_get_i64(objects, HEAP_GRAPH_OBJECT_native_size, (size_t)referent);
  storage_set_i64(objects, HEAP_GRAPH_OBJECT_native_size, (size_t)referent, was + native);
  return storage_table_status(objects);
}

int hg_add_native_sizes(trace_context *ctx, hg_seq *seq) {
  heap_graph_state *s = ctx->model.heap_graph;
  if (!seq->nar_sizes.count) return WEFT_OK;
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  storage_table *classes = ctx_table(ctx, TABLE_HEAP_GRAPH_CLASS);
  hg_rows cleaners = {0};
  int rc = WEFT_OK;
  for (size_t o = 0; !rc && o < objects->row_count; o++) {
    int64_t cls = storage_get_i64(objects, HEAP_GRAPH_OBJECT_type_id, o);
    if (!hg_in_dump(objects, seq, o) || (uint64_t)cls >= classes->row_count ||
        storage_get_str(classes, HEAP_GRAPH_CLASS_name, (size_t)cls) != s->cleaner_class)
      continue;
    rc = VEC_PUSH(cleaners, (uint32_t)o);
  }
  for (size_t i = 0; !rc && i < cleaners.len; i++) rc = hg_cleaner(ctx, seq, cleaners.data[i]);
  VEC_FREE(cleaners);
  return rc;
}
