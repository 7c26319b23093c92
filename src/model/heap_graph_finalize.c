/* The end of a heap graph dump: classes from the interned types, deferred
 * sizes and field names, roots and reachability, superclasses, native
 * sizes and the heap_graph row. See heap_graph.h. */
#include <stdlib.h>
#include <string.h>

#include "model/heap_graph_internal.h"

enum { HG_ROOT_STICKY_CLASS = 5, HG_ROOT_JNI_GLOBAL = 1, HG_ROOT_JNI_LOCAL = 2,
       HG_ROOT_VM_INTERNAL = 13 };
enum { HG_KIND_NOREFERENCES = 2, HG_KIND_STRING = 3, HG_KIND_ARRAY = 4,
       HG_KIND_WEAK_REFERENCE = 9, HG_KIND_FINALIZER_REFERENCE = 10,
       HG_KIND_PHANTOM_REFERENCE = 11 };

hg_normalized hg_normalize(const char *type, size_t len) {
  static const char prefix[] = "java.lang.Class<";
  size_t plen = sizeof prefix - 1;
  hg_normalized n = {type, len, 0, 0};
  if (len > plen && type[len - 1] == '>' && memcmp(type, prefix, plen) == 0) {
    n.name = type + plen;
    n.len = len - plen - 1;
    n.is_static_class = 1;
  }
  while (n.len >= 2 * (n.arrays + 1) && memcmp(n.name + n.len - 2 * (n.arrays + 1), "[]", 2) == 0)
    n.arrays++;
  n.len -= 2 * n.arrays;
  return n;
}

static const hg_type *hg_type_by_id(const hg_seq *seq, uint64_t id) {
  uint64_t *i = base_map_find(&seq->type_index, hg_key(id));
  return i ? &seq->types.data[*i] : NULL;
}

static int hg_type_order(const void *a, const void *b) {
  uint64_t x = (*(const hg_type *const *)a)->id, y = (*(const hg_type *const *)b)->id;
  return (x > y) - (x < y);
}

/* One interned type's class row: name, class loader, location, kind. */
static int hg_write_class(trace_context *ctx, hg_seq *seq, const hg_type *ty,
                          base_map *type_of_class) {
  heap_graph_state *s = ctx->model.heap_graph;
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_CLASS);
  string_id location = STRING_NULL;
  int rc = WEFT_OK;
  if (ty->has_location) {
    uint64_t *loc = base_map_find(&seq->locations, hg_key(ty->location_id));
    if (loc) location = (string_id)*loc;
    else rc = hg_stat(ctx, seq, stat_heap_graph_invalid_string_id, seq->upid);
  }
  uint32_t row, loader = 0;
  if (!rc) rc = hg_class_row(ctx, seq, ty->id, &row);
  if (!rc && ty->classloader_id) rc = hg_object_row(ctx, seq, ty->classloader_id, &loader);
  if (rc) return rc;
  uint64_t *slot;
  if (base_map_insert(type_of_class, row, (uint64_t)(ty - seq->types.data), &slot) < 0)
    return WEFT_ENOMEM;
  storage_set_str(t, HEAP_GRAPH_CLASS_name, row, ty->name);
  if (ty->classloader_id) storage_set_i64(t, HEAP_GRAPH_CLASS_classloader_id, row, loader);
  if (location) storage_set_str(t, HEAP_GRAPH_CLASS_location, row, location);
  int kind = ty->kind >= 0 && ty->kind < 12 ? ty->kind : 0;
  storage_set_str(t, HEAP_GRAPH_CLASS_kind, row, s->kind_names[kind]);
  rc = storage_table_status(t);
  return rc ? rc : hg_class_key_add(ctx, row, ty->name, location);
}

static int hg_write_classes(trace_context *ctx, hg_seq *seq, base_map *type_of_class) {
  size_t n = seq->types.len;
  const hg_type **order = base_malloc((n ? n : 1) * sizeof *order);
  if (!order) return WEFT_ENOMEM;
  for (size_t i = 0; i < n; i++) order[i] = &seq->types.data[i];
  if (n > 1) qsort(order, n, sizeof *order, hg_type_order);
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) rc = hg_write_class(ctx, seq, order[i], type_of_class);
  base_free(order);
  return rc;
}

static const hg_type *hg_type_of_object(trace_context *ctx, const hg_seq *seq,
                                        const base_map *type_of_class, uint32_t obj) {
  int64_t cls = storage_get_i64(ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT),
                                HEAP_GRAPH_OBJECT_type_id, obj);
  uint64_t *i = base_map_find(type_of_class, (uint64_t)cls);
  return i ? &seq->types.data[*i] : NULL;
}

/* Names an object's unnamed references from its type's field ids, then its
 * superclasses' (S+ dumps); 1 in *left when the type is unknown. */
static int hg_name_references(trace_context *ctx, hg_seq *seq, const hg_type *ty,
                              uint32_t obj, int *malformed) {
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  storage_table *refs = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  if (storage_is_null(objects, HEAP_GRAPH_OBJECT_reference_set_id, obj)) return WEFT_OK;
  size_t r = (size_t)storage_get_i64(objects, HEAP_GRAPH_OBJECT_reference_set_id, obj);
  size_t offset = 0;
  for (; r < refs->row_count &&
         storage_get_i64(refs, HEAP_GRAPH_REFERENCE_owner_id, r) == (int64_t)obj;
       r++) {
    while (ty && offset >= ty->field_count) {
      offset -= ty->field_count;
      const hg_type *super = ty->superclass_id ? hg_type_by_id(seq, ty->superclass_id) : NULL;
      if (!super) *malformed = 1;
      ty = super;
    }
    if (!ty) break;
    uint64_t iid = seq->type_fields.data[ty->field_off + offset++];
    uint64_t *f = base_map_find(&seq->field_index, hg_key(iid));
    if (!f) {
      *malformed = 1;
      continue;
    }
    storage_set_str(refs, HEAP_GRAPH_REFERENCE_field_name, r, seq->fields.data[*f].name);
    storage_set_str(refs, HEAP_GRAPH_REFERENCE_field_type_name, r, seq->fields.data[*f].type);
  }
  return storage_table_status(refs);
}

static int hg_resolve_deferred(trace_context *ctx, hg_seq *seq, const base_map *type_of_class) {
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  int left = 0, malformed = 0, rc = WEFT_OK;
  for (size_t i = 0; i < seq->deferred_size.len; i++) {
    uint32_t obj = seq->deferred_size.data[i];
    const hg_type *ty = hg_type_of_object(ctx, seq, type_of_class, obj);
    if (ty) storage_set_i64(objects, HEAP_GRAPH_OBJECT_self_size, obj, (int64_t)ty->object_size);
    else left = 1;
  }
  for (size_t i = 0; !rc && i < seq->deferred_refs.len; i++) {
    uint32_t obj = seq->deferred_refs.data[i];
    const hg_type *ty = hg_type_of_object(ctx, seq, type_of_class, obj);
    if (!ty) left = 1;
    else if (ty->kind != HG_KIND_NOREFERENCES && ty->kind != HG_KIND_ARRAY &&
             ty->kind != HG_KIND_STRING)
      rc = hg_name_references(ctx, seq, ty, obj, &malformed);
  }
  if (!rc && malformed) rc = hg_stat(ctx, seq, stat_heap_graph_malformed_packet, seq->upid);
  if (!rc && left) rc = hg_stat(ctx, seq, stat_heap_graph_malformed_packet, seq->upid);
  return rc ? rc : storage_table_status(objects);
}

/* ---- roots and reachability ---- */

static int hg_root_rank(int type) {
  switch (type) {
    case HG_ROOT_STICKY_CLASS: return 0;
    case HG_ROOT_JNI_GLOBAL: return 1;
    case HG_ROOT_JNI_LOCAL: return 2;
    default: return 3;
  }
}

static int hg_root_type_of(const heap_graph_state *s, string_id name) {
  for (int i = 0; i < 15; i++)
    if (s->root_names[i] == name) return i;
  return 0;
}

/* Pushes the referents of obj a walk follows: not a weak, finalizer or
 * phantom reference's referent. */
static int hg_push_children(trace_context *ctx, uint32_t obj, hg_rows *stack) {
  heap_graph_state *s = ctx->model.heap_graph;
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  storage_table *refs = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  storage_table *classes = ctx_table(ctx, TABLE_HEAP_GRAPH_CLASS);
  if (storage_is_null(objects, HEAP_GRAPH_OBJECT_reference_set_id, obj)) return WEFT_OK;
  int64_t cls = storage_get_i64(objects, HEAP_GRAPH_OBJECT_type_id, obj);
  string_id kind = (uint64_t)cls < classes->row_count
                       ? storage_get_str(classes, HEAP_GRAPH_CLASS_kind, (size_t)cls)
                       : STRING_NULL;
  int weak = kind && (kind == s->kind_names[HG_KIND_WEAK_REFERENCE] ||
                      kind == s->kind_names[HG_KIND_FINALIZER_REFERENCE] ||
                      kind == s->kind_names[HG_KIND_PHANTOM_REFERENCE]);
  size_t r = (size_t)storage_get_i64(objects, HEAP_GRAPH_OBJECT_reference_set_id, obj);
  for (; r < refs->row_count &&
         storage_get_i64(refs, HEAP_GRAPH_REFERENCE_owner_id, r) == (int64_t)obj;
       r++) {
    if (storage_is_null(refs, HEAP_GRAPH_REFERENCE_owned_id, r)) continue;
    if (weak && storage_get_str(refs, HEAP_GRAPH_REFERENCE_field_name, r) == s->referent)
      continue;
    if (VEC_PUSH(*stack, (uint32_t)storage_get_i64(refs, HEAP_GRAPH_REFERENCE_owned_id, r)))
      return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

static int hg_mark_root(trace_context *ctx, uint32_t obj, int type) {
  heap_graph_state *s = ctx->model.heap_graph;
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  string_id was = storage_get_str(objects, HEAP_GRAPH_OBJECT_root_type, obj);
  if (was) {
    if (hg_root_rank(type) < hg_root_rank(hg_root_type_of(s, was)))
      storage_set_str(objects, HEAP_GRAPH_OBJECT_root_type, obj, s->root_names[type]);
    return storage_table_status(objects);
  }
  storage_set_str(objects, HEAP_GRAPH_OBJECT_root_type, obj, s->root_names[type]);
  hg_rows stack = {0};
  int rc = VEC_PUSH(stack, obj);
  while (!rc && stack.len) {
    uint32_t cur = stack.data[--stack.len];
    if (storage_get_i64(objects, HEAP_GRAPH_OBJECT_reachable, cur)) continue;
    storage_set_i64(objects, HEAP_GRAPH_OBJECT_reachable, cur, 1);
    rc = hg_push_children(ctx, cur, &stack);
  }
  VEC_FREE(stack);
  return rc ? rc : storage_table_status(objects);
}

static int hg_mark_ids(trace_context *ctx, hg_seq *seq, const uint64_t *ids, size_t n,
                       int type) {
  for (size_t i = 0; i < n; i++) {
    uint64_t *row = base_map_find(&seq->object_rows, hg_key(ids[i]));
    if (!row) continue;
    int rc = hg_mark_root(ctx, (uint32_t)*row, type);
    if (rc) return rc;
  }
  return WEFT_OK;
}

static int hg_mark_roots(trace_context *ctx, hg_seq *seq) {
  for (size_t i = 0; i < seq->roots.len; i++) {
    const hg_root *r = &seq->roots.data[i];
    if (!r->count) continue; /* (no ids at all: root_ids has no array) */
    int rc = hg_mark_ids(ctx, seq, seq->root_ids.data + r->off, r->count, r->type);
    if (rc) return rc;
  }
  return hg_mark_ids(ctx, seq, seq->vm_internal_roots.data, seq->vm_internal_roots.len,
                     HG_ROOT_VM_INTERNAL);
}


static int hg_write_dump_row(trace_context *ctx, hg_seq *seq) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH);
  size_t row = 0;
  while (row < t->row_count &&
         (storage_get_i64(t, HEAP_GRAPH_upid, row) != seq->upid ||
          storage_get_i64(t, HEAP_GRAPH_ts, row) != seq->ts))
    row++;
  if (row == t->row_count) {
    uint32_t r;
    int rc = storage_table_append(t, &r);
    if (rc) return rc;
    storage_set_i64(t, HEAP_GRAPH_upid, r, seq->upid);
    storage_set_i64(t, HEAP_GRAPH_ts, r, seq->ts);
    ctx_extend_bounds(ctx, seq->ts);
  }
  if (seq->has_heap_size) storage_set_i64(t, HEAP_GRAPH_heap_size, row, seq->heap_size);
  if (seq->truncated) storage_set_i64(t, HEAP_GRAPH_truncated, row, 1);
  return storage_table_status(t);
}

int model_heap_graph_finalize(trace_context *ctx, uint64_t key) {
  hg_seq *seq;
  int rc = hg_seq_get(ctx, key, &seq);
  if (rc) return rc;
  base_map type_of_class = {0}; /* class row -> index into seq->types */
  rc = hg_write_classes(ctx, seq, &type_of_class);
  if (!rc) rc = hg_resolve_deferred(ctx, seq, &type_of_class);
  base_map_free(&type_of_class);
  if (!rc) rc = hg_mark_roots(ctx, seq);
  if (!rc) rc = hg_link_superclasses(ctx, seq);
  if (!rc) rc = hg_add_native_sizes(ctx, seq);
  if (!rc) rc = hg_write_dump_row(ctx, seq);
  hg_seq_remove(ctx->model.heap_graph, seq);
  return rc;
}

int model_heap_graph_finalize_all(trace_context *ctx) {
  heap_graph_state *s = ctx->model.heap_graph;
  if (!s || !s->seqs.len) return WEFT_OK;
  int rc = stats_add(&ctx->stats, stat_heap_graph_non_finalized_graph, -1, -1, -1, 1);
  while (!rc && s->seqs.len) rc = model_heap_graph_finalize(ctx, s->seqs.data[0]->key);
  return rc;
}
