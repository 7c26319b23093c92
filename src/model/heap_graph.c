/* Heap graph dumps as they arrive: objects, references, types, names and
 * roots per sequence. See heap_graph.h; the end of a dump is in
 * heap_graph_finalize.c. */
#include <string.h>

#include "model/heap_graph_internal.h"

static const char *const hg_root_names[15] = {
    "ROOT_UNKNOWN",       "ROOT_JNI_GLOBAL",      "ROOT_JNI_LOCAL",
    "ROOT_JAVA_FRAME",    "ROOT_NATIVE_STACK",    "ROOT_STICKY_CLASS",
    "ROOT_THREAD_BLOCK",  "ROOT_MONITOR_USED",    "ROOT_THREAD_OBJECT",
    "ROOT_INTERNED_STRING", "ROOT_FINALIZING",    "ROOT_DEBUGGER",
    "ROOT_REFERENCE_CLEANUP", "ROOT_VM_INTERNAL", "ROOT_JNI_MONITOR"};
static const char *const hg_kind_names[12] = {
    "KIND_UNKNOWN",          "KIND_NORMAL",          "KIND_NOREFERENCES",
    "KIND_STRING",           "KIND_ARRAY",           "KIND_CLASS",
    "KIND_CLASSLOADER",      "KIND_DEXCACHE",        "KIND_SOFT_REFERENCE",
    "KIND_WEAK_REFERENCE",   "KIND_FINALIZER_REFERENCE", "KIND_PHANTOM_REFERENCE"};
static const char *const hg_heap_names[HEAP_GRAPH_HEAP_TYPES] = {
    "HEAP_TYPE_UNKNOWN", "HEAP_TYPE_APP", "HEAP_TYPE_ZYGOTE", "HEAP_TYPE_BOOT_IMAGE"};

static void hg_seq_free(hg_seq *q) {
  if (!q) return;
  base_map_free(&q->object_rows);
  base_map_free(&q->class_rows);
  base_map_free(&q->type_index);
  VEC_FREE(q->types);
  VEC_FREE(q->type_fields);
  base_map_free(&q->field_index);
  VEC_FREE(q->fields);
  VEC_FREE(q->pending_refs);
  base_map_free(&q->pending_heads);
  base_map_free(&q->locations);
  VEC_FREE(q->roots);
  VEC_FREE(q->root_ids);
  VEC_FREE(q->vm_internal_roots);
  VEC_FREE(q->deferred_size);
  VEC_FREE(q->deferred_refs);
  base_map_free(&q->nar_sizes);
  base_free(q);
}

void model_heap_graph_deobfuscate_end_state(heap_graph_state *s) {
  base_map_free(&s->deobf_classes);
  VEC_FREE(s->deobf_class_next);
  base_map_free(&s->deobf_fields);
  VEC_FREE(s->deobf_field_next);
}

void heap_graph_state_free(heap_graph_state *s) {
  if (!s) return;
  for (size_t i = 0; i < s->seqs.len; i++) hg_seq_free(s->seqs.data[i]);
  VEC_FREE(s->seqs);
  VEC_FREE(s->class_keys);
  model_heap_graph_deobfuscate_end_state(s);
  base_free(s);
}

static int hg_intern(trace_context *ctx, const char *s, string_id *out) {
  return ctx_intern(ctx, s, strlen(s), out);
}

static int hg_intern_names(trace_context *ctx, heap_graph_state *s) {
  int rc = WEFT_OK;
  for (int i = 0; !rc && i < 15; i++) rc = hg_intern(ctx, hg_root_names[i], &s->root_names[i]);
  for (int i = 0; !rc && i < 12; i++) rc = hg_intern(ctx, hg_kind_names[i], &s->kind_names[i]);
  for (int i = 0; !rc && i < HEAP_GRAPH_HEAP_TYPES; i++)
    rc = hg_intern(ctx, hg_heap_names[i], &s->heap_names[i]);
  if (!rc) rc = hg_intern(ctx, "java.lang.ref.Reference.referent", &s->referent);
  if (!rc) rc = hg_intern(ctx, "sun.misc.Cleaner.thunk", &s->cleaner_thunk);
  if (!rc)
    rc = hg_intern(ctx, "libcore.util.NativeAllocationRegistry$CleanerThunk.this$0",
                   &s->thunk_this0);
  if (!rc) rc = hg_intern(ctx, "sun.misc.Cleaner.next", &s->cleaner_next);
  if (!rc) rc = hg_intern(ctx, "java.lang.Class.superClass", &s->super_class);
  if (!rc) rc = hg_intern(ctx, "runtimeInternalObjects", &s->internal_refs);
  if (!rc) rc = hg_intern(ctx, "sun.misc.Cleaner", &s->cleaner_class);
  return rc;
}

int hg_state_get(trace_context *ctx, heap_graph_state **out) {
  if (!ctx->model.heap_graph) {
    heap_graph_state *s = base_calloc(1, sizeof *s);
    if (!s) return WEFT_ENOMEM;
    ctx->model.heap_graph = s;
  }
  heap_graph_state *s = ctx->model.heap_graph;
  if (!s->names_ready) {
    int rc = hg_intern_names(ctx, s);
    if (rc) return rc;
    s->names_ready = 1;
  }
  *out = s;
  return WEFT_OK;
}

int hg_seq_get(trace_context *ctx, uint64_t key, hg_seq **out) {
  heap_graph_state *s;
  int rc = hg_state_get(ctx, &s);
  *out = NULL;
  if (rc) return rc;
  for (size_t i = 0; i < s->seqs.len; i++) {
    if (s->seqs.data[i]->key == key) {
      *out = s->seqs.data[i];
      return WEFT_OK;
    }
  }
  hg_seq *q = base_calloc(1, sizeof *q);
  if (!q) return WEFT_ENOMEM;
  q->key = key;
  if (VEC_PUSH(s->seqs, q)) {
    base_free(q);
    return WEFT_ENOMEM;
  }
  *out = q;
  return WEFT_OK;
}

void hg_seq_remove(heap_graph_state *s, hg_seq *seq) {
  for (size_t i = 0; i < s->seqs.len; i++) {
    if (s->seqs.data[i] != seq) continue;
    s->seqs.data[i] = s->seqs.data[--s->seqs.len];
    break;
  }
  hg_seq_free(seq);
}

int hg_stat(trace_context *ctx, const hg_seq *seq, int stat, int64_t index) {
  stats_id id = (stats_id)stat;
  if (stats_is_global(id)) return stats_add(&ctx->stats, id, index, -1, -1, 1);
  return stats_add(&ctx->stats, id, index, seq->machine, seq->trace, 1);
}

int hg_object_row(trace_context *ctx, hg_seq *seq, uint64_t object_id, uint32_t *row) {
  uint64_t *slot;
  int ins = base_map_insert(&seq->object_rows, hg_key(object_id), 0, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (!ins) {
    *row = (uint32_t)*slot;
    return WEFT_OK;
  }
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  uint32_t r;
  int rc = storage_table_append(t, &r);
  if (rc) return rc;
  storage_set_i64(t, HEAP_GRAPH_OBJECT_upid, r, seq->upid);
  storage_set_i64(t, HEAP_GRAPH_OBJECT_graph_sample_ts, r, seq->ts);
  ctx_extend_bounds(ctx, seq->ts);
  storage_set_i64(t, HEAP_GRAPH_OBJECT_self_size, r, -1);
  storage_set_i64(t, HEAP_GRAPH_OBJECT_type_id, r, 0);
  storage_set_i64(t, HEAP_GRAPH_OBJECT_root_distance, r, -1);
  *slot = r;
  *row = r;
  return storage_table_status(t);
}

int hg_class_row(trace_context *ctx, hg_seq *seq, uint64_t type_id, uint32_t *row) {
  uint64_t *slot;
  int ins = base_map_insert(&seq->class_rows, hg_key(type_id), 0, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (!ins) {
    *row = (uint32_t)*slot;
    return WEFT_OK;
  }
  uint32_t r;
  int rc = storage_table_append(ctx_table(ctx, TABLE_HEAP_GRAPH_CLASS), &r);
  if (rc) return rc;
  *slot = r;
  *row = r;
  return WEFT_OK;
}

/* Perfetto's quirk kept: upid 0 and ts 0 read as "not set yet". */
static int hg_same_dump(trace_context *ctx, hg_seq *seq, uint32_t upid, int64_t ts,
                        int *ok) {
  *ok = 0;
  if ((seq->upid != 0 && seq->upid != upid) || (seq->ts != 0 && seq->ts != ts))
    return hg_stat(ctx, seq, stat_heap_graph_non_finalized_graph, -1);
  seq->upid = upid;
  seq->ts = ts;
  *ok = 1;
  return WEFT_OK;
}

void model_heap_graph_last(trace_context *ctx, uint64_t key, uint64_t *object_id,
                           int *heap_type) {
  hg_seq *seq;
  *object_id = 0;
  *heap_type = HEAP_GRAPH_HEAP_UNKNOWN;
  if (hg_seq_get(ctx, key, &seq) || !seq) return;
  *object_id = seq->last_object_id;
  *heap_type = seq->last_heap_type;
}

int model_heap_graph_packet_index(trace_context *ctx, uint64_t key, uint32_t machine,
                                  uint32_t trace, uint64_t index) {
  hg_seq *seq;
  int rc = hg_seq_get(ctx, key, &seq);
  if (rc) return rc;
  seq->machine = machine;
  seq->trace = trace;
  int dropped = seq->has_prev_index ? seq->prev_index + 1 != index : index != 0;
  seq->has_prev_index = 1;
  seq->prev_index = index;
  if (!dropped) return WEFT_OK;
  seq->truncated = 1;
  return hg_stat(ctx, seq, stat_heap_graph_missing_packet, seq->upid);
}

int model_heap_graph_heap_size(trace_context *ctx, uint64_t key, int64_t size) {
  hg_seq *seq;
  int rc = hg_seq_get(ctx, key, &seq);
  if (rc) return rc;
  seq->has_heap_size = 1;
  seq->heap_size = size;
  return WEFT_OK;
}

int model_heap_graph_malformed(trace_context *ctx, uint64_t key, uint32_t upid) {
  hg_seq *seq;
  int rc = hg_seq_get(ctx, key, &seq);
  return rc ? rc : hg_stat(ctx, seq, stat_heap_graph_malformed_packet, upid);
}

static int hg_pend(hg_seq *seq, uint64_t iid, uint32_t ref_row) {
  uint64_t *head;
  if (base_map_insert(&seq->pending_heads, hg_key(iid), 0, &head) < 0) return WEFT_ENOMEM;
  if (VEC_PUSH(seq->pending_refs, ((hg_pending_ref){ref_row, (uint32_t)*head})))
    return WEFT_ENOMEM;
  *head = seq->pending_refs.len;
  return WEFT_OK;
}

/* The object's field references; names wait for their field ids. */
static int hg_add_references(trace_context *ctx, hg_seq *seq, uint32_t owner,
                             const heap_graph_object_in *obj, int64_t set_id) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  for (size_t i = 0; i < obj->ref_count; i++) {
    uint32_t owned = 0, r;
    int rc = obj->refs[i] ? hg_object_row(ctx, seq, obj->refs[i], &owned) : WEFT_OK;
    if (!rc) rc = storage_table_append(t, &r);
    if (rc) return rc;
    storage_set_i64(t, HEAP_GRAPH_REFERENCE_reference_set_id, r, set_id);
    storage_set_i64(t, HEAP_GRAPH_REFERENCE_owner_id, r, owner);
    if (obj->refs[i]) storage_set_i64(t, HEAP_GRAPH_REFERENCE_owned_id, r, owned);
    if (obj->field_count && hg_pend(seq, obj->field_ids[i], r)) return WEFT_ENOMEM;
  }
  return storage_table_status(t);
}

static int hg_add_internal_references(trace_context *ctx, hg_seq *seq, uint32_t owner,
                                      const heap_graph_object_in *obj, int64_t set_id) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  string_id name = ((heap_graph_state *)ctx->model.heap_graph)->internal_refs;
  for (size_t i = 0; i < obj->internal_count; i++) {
    uint32_t owned, r;
    int rc = hg_object_row(ctx, seq, obj->internal_refs[i], &owned);
    if (!rc) rc = storage_table_append(t, &r);
    if (rc) return rc;
    storage_set_i64(t, HEAP_GRAPH_REFERENCE_reference_set_id, r, set_id);
    storage_set_i64(t, HEAP_GRAPH_REFERENCE_owner_id, r, owner);
    storage_set_i64(t, HEAP_GRAPH_REFERENCE_owned_id, r, owned);
    storage_set_str(t, HEAP_GRAPH_REFERENCE_field_name, r, name);
  }
  return storage_table_status(t);
}

static int hg_add_primitive(trace_context *ctx, int64_t set_id, const char *name,
                            const char *type, size_t col, int64_t v) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_PRIMITIVE);
  string_id n, ty;
  uint32_t r;
  int rc = hg_intern(ctx, name, &n);
  if (!rc) rc = hg_intern(ctx, type, &ty);
  if (!rc) rc = storage_table_append(t, &r);
  if (rc) return rc;
  storage_set_i64(t, HEAP_GRAPH_PRIMITIVE_field_set_id, r, set_id);
  storage_set_str(t, HEAP_GRAPH_PRIMITIVE_field_name, r, n);
  storage_set_str(t, HEAP_GRAPH_PRIMITIVE_field_type, r, ty);
  storage_set_i64(t, col, r, v);
  return storage_table_status(t);
}

/* Bitmap fields: heap_graph_primitive rows under one field set, linked
 * from the object through a heap_graph_object_data row. */
static int hg_add_bitmap(trace_context *ctx, uint32_t owner, const heap_graph_object_in *o) {
  if (!o->has_bitmap_id && !o->has_bitmap_source_id && !o->has_bitmap_width &&
      !o->has_bitmap_height)
    return WEFT_OK;
  int64_t set_id = (int64_t)ctx_table(ctx, TABLE_HEAP_GRAPH_PRIMITIVE)->row_count;
  int rc = WEFT_OK;
  if (o->has_bitmap_id)
    rc = hg_add_primitive(ctx, set_id, "android.graphics.Bitmap.mId", "long",
                          HEAP_GRAPH_PRIMITIVE_long_value, o->bitmap_id);
  if (!rc && o->has_bitmap_source_id)
    rc = hg_add_primitive(ctx, set_id, "android.graphics.Bitmap.mSourceId", "long",
                          HEAP_GRAPH_PRIMITIVE_long_value, o->bitmap_source_id);
  if (!rc && o->has_bitmap_width)
    rc = hg_add_primitive(ctx, set_id, "android.graphics.Bitmap.mWidth", "int",
                          HEAP_GRAPH_PRIMITIVE_int_value, o->bitmap_width);
  if (!rc && o->has_bitmap_height)
    rc = hg_add_primitive(ctx, set_id, "android.graphics.Bitmap.mHeight", "int",
                          HEAP_GRAPH_PRIMITIVE_int_value, o->bitmap_height);
  storage_table *data = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT_DATA);
  uint32_t r;
  if (!rc) rc = storage_table_append(data, &r);
  if (rc) return rc;
  storage_set_i64(data, HEAP_GRAPH_OBJECT_DATA_field_set_id, r, set_id);
  storage_table *objects = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  storage_set_i64(objects, HEAP_GRAPH_OBJECT_object_data_id, owner, r);
  return storage_table_status(data) ? storage_table_status(data)
                                    : storage_table_status(objects);
}

static int hg_set_object(trace_context *ctx, hg_seq *seq, uint32_t row, uint32_t cls,
                         const heap_graph_object_in *obj) {
  heap_graph_state *s = ctx->model.heap_graph;
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT);
  storage_set_i64(t, HEAP_GRAPH_OBJECT_self_size, row, (int64_t)obj->self_size);
  storage_set_i64(t, HEAP_GRAPH_OBJECT_type_id, row, cls);
  int heap = obj->heap_type;
  if (heap > 0 && heap < HEAP_GRAPH_HEAP_TYPES) {
    storage_set_str(t, HEAP_GRAPH_OBJECT_heap_type, row, s->heap_names[heap]);
    if ((heap == HEAP_GRAPH_HEAP_ZYGOTE || heap == HEAP_GRAPH_HEAP_BOOT_IMAGE) &&
        VEC_PUSH(seq->vm_internal_roots, obj->id))
      return WEFT_ENOMEM;
  }
  if (obj->self_size == 0 && VEC_PUSH(seq->deferred_size, row)) return WEFT_ENOMEM;
  return storage_table_status(t);
}

int model_heap_graph_object(trace_context *ctx, uint64_t key, uint32_t upid, int64_t ts,
                            const heap_graph_object_in *obj) {
  hg_seq *seq;
  int ok, rc = hg_seq_get(ctx, key, &seq);
  if (!rc) rc = hg_same_dump(ctx, seq, upid, ts, &ok);
  if (rc || !ok) return rc;
  seq->last_object_id = obj->id;
  seq->last_heap_type = obj->heap_type;
  uint32_t row, cls;
  rc = hg_object_row(ctx, seq, obj->id, &row);
  if (!rc) rc = hg_class_row(ctx, seq, obj->type_id, &cls);
  if (!rc) rc = hg_set_object(ctx, seq, row, cls, obj);
  int64_t set_id = (int64_t)ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE)->row_count;
  if (!rc) rc = hg_add_references(ctx, seq, row, obj, set_id);
  if (!rc) rc = hg_add_internal_references(ctx, seq, row, obj, set_id);
  if (rc) return rc;
  if (obj->ref_count || obj->internal_count)
    storage_set_i64(ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT),
                    HEAP_GRAPH_OBJECT_reference_set_id, row, set_id);
  if (obj->ref_count && !obj->field_count && VEC_PUSH(seq->deferred_refs, row))
    return WEFT_ENOMEM;
  if (obj->has_nar_size) {
    uint64_t *slot;
    if (base_map_insert(&seq->nar_sizes, row, 0, &slot) < 0) return WEFT_ENOMEM;
    *slot = (uint64_t)obj->nar_size;
  }
  rc = hg_add_bitmap(ctx, row, obj);
  return rc ? rc : storage_table_status(ctx_table(ctx, TABLE_HEAP_GRAPH_OBJECT));
}

int model_heap_graph_type(trace_context *ctx, uint64_t key, const heap_graph_type_in *in) {
  hg_seq *seq;
  int rc = hg_seq_get(ctx, key, &seq);
  if (rc) return rc;
  uint64_t *slot;
  int ins = base_map_insert(&seq->type_index, hg_key(in->id), seq->types.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins && VEC_PUSH(seq->types, ((hg_type){0}))) return WEFT_ENOMEM;
  hg_type *t = &seq->types.data[*slot];
  *t = (hg_type){in->id, in->name, in->has_location, in->location_id, in->object_size,
                 in->superclass_id, in->classloader_id, in->kind,
                 seq->type_fields.len, in->field_count};
  for (size_t i = 0; i < in->field_count; i++)
    if (VEC_PUSH(seq->type_fields, in->field_ids[i])) return WEFT_ENOMEM;
  return WEFT_OK;
}

/* "Type name" is split at the first space; the references that waited for
 * this field id are named now. */
int model_heap_graph_field_name(trace_context *ctx, uint64_t key, uint64_t iid,
                                const char *s, size_t len) {
  hg_seq *seq;
  int rc = hg_seq_get(ctx, key, &seq);
  if (rc) return rc;
  const char *space = memchr(s, ' ', len);
  size_t type_len = space ? (size_t)(space - s) : 0;
  size_t skip = space ? type_len + 1 : 0;
  hg_field f = {STRING_NULL, STRING_NULL}; /* an empty name or type is NULL */
  if (len > skip) rc = ctx_intern(ctx, s + skip, len - skip, &f.name);
  if (!rc && type_len) rc = ctx_intern(ctx, s, type_len, &f.type);
  if (rc) return rc;
  uint64_t *slot;
  int ins = base_map_insert(&seq->field_index, hg_key(iid), seq->fields.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins && VEC_PUSH(seq->fields, f)) return WEFT_ENOMEM; /* the first name stays */
  storage_table *t = ctx_table(ctx, TABLE_HEAP_GRAPH_REFERENCE);
  uint64_t *head = base_map_find(&seq->pending_heads, hg_key(iid));
  for (uint32_t i = head ? (uint32_t)*head : 0; i; i = seq->pending_refs.data[i - 1].next) {
    uint32_t r = seq->pending_refs.data[i - 1].ref_row;
    storage_set_str(t, HEAP_GRAPH_REFERENCE_field_name, r, f.name);
    storage_set_str(t, HEAP_GRAPH_REFERENCE_field_type_name, r, f.type);
  }
  return storage_table_status(t);
}

int model_heap_graph_location(trace_context *ctx, uint64_t key, uint64_t iid,
                              const char *s, size_t len) {
  hg_seq *seq;
  string_id id = STRING_NULL; /* an empty name is NULL */
  int rc = hg_seq_get(ctx, key, &seq);
  if (!rc && len) rc = ctx_intern(ctx, s, len, &id);
  if (rc) return rc;
  uint64_t *slot;
  if (base_map_insert(&seq->locations, hg_key(iid), id, &slot) < 0) return WEFT_ENOMEM;
  return WEFT_OK;
}

int model_heap_graph_root(trace_context *ctx, uint64_t key, uint32_t upid, int64_t ts,
                          int root_type, const uint64_t *ids, size_t count) {
  hg_seq *seq;
  int ok, rc = hg_seq_get(ctx, key, &seq);
  if (!rc) rc = hg_same_dump(ctx, seq, upid, ts, &ok);
  if (rc || !ok) return rc;
  if (root_type < 0 || root_type >= 15) root_type = 0;
  if (VEC_PUSH(seq->roots, ((hg_root){root_type, seq->root_ids.len, count})))
    return WEFT_ENOMEM;
  for (size_t i = 0; i < count; i++)
    if (VEC_PUSH(seq->root_ids, ids[i])) return WEFT_ENOMEM;
  return WEFT_OK;
}
