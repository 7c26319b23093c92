/* heap_graph internals shared by heap_graph.c, heap_graph_finalize.c and
 * heap_graph_deobf.c. */
#ifndef WEFT_MODEL_HEAP_GRAPH_INTERNAL_H
#define WEFT_MODEL_HEAP_GRAPH_INTERNAL_H

#include "model/heap_graph.h"

typedef VEC(uint32_t) hg_rows;

typedef struct hg_type {
  uint64_t id;
  string_id name;
  int has_location;
  uint64_t location_id;
  uint64_t object_size, superclass_id, classloader_id;
  int kind;
  size_t field_off, field_count; /* into hg_seq.type_fields */
} hg_type;

typedef struct hg_field {
  string_id name, type;
} hg_field;

/* References named by a field id, chained per id (newest first). */
typedef struct hg_pending_ref {
  uint32_t ref_row;
  uint32_t next; /* index + 1 into pending_refs, 0: end */
} hg_pending_ref;

typedef struct hg_root {
  int type;
  size_t off, count; /* into hg_seq.root_ids */
} hg_root;

typedef struct hg_seq {
  uint64_t key;
  uint32_t machine, trace; /* the stats' scope */
  uint32_t upid; /* 0: not set yet (as Perfetto) */
  int64_t ts;    /* 0: not set yet */
  int has_prev_index, truncated, has_heap_size;
  uint64_t prev_index;
  int64_t heap_size;
  uint64_t last_object_id;
  int last_heap_type;
  base_map object_rows; /* object id -> heap_graph_object row */
  base_map class_rows;  /* type id -> heap_graph_class row */
  base_map type_index;  /* type id -> index into types */
  VEC(hg_type) types;
  VEC(uint64_t) type_fields;
  base_map field_index; /* field iid -> index into fields */
  VEC(hg_field) fields;
  VEC(hg_pending_ref) pending_refs;
  base_map pending_heads; /* field iid -> index + 1 of its newest pending ref */
  base_map locations;   /* location iid -> string id */
  VEC(hg_root) roots;
  VEC(uint64_t) root_ids;
  VEC(uint64_t) vm_internal_roots;
  VEC(uint32_t) deferred_size; /* object rows of self size 0 */
  VEC(uint32_t) deferred_refs; /* object rows whose references lack names */
  base_map nar_sizes;   /* object row -> NativeAllocationRegistry.size */
} hg_seq;

/* A class row with the package and normalized name deobfuscation keys it
 * by (package STRING_NULL: unknown). */
typedef struct hg_class_key {
  uint32_t row;
  string_id package, normalized;
} hg_class_key;

struct heap_graph_state {
  VEC(hg_seq *) seqs;
  VEC(hg_class_key) class_keys;
  string_id root_names[15], kind_names[12], heap_names[HEAP_GRAPH_HEAP_TYPES];
  string_id referent, cleaner_thunk, thunk_this0, cleaner_next, super_class;
  string_id internal_refs, cleaner_class;
  int names_ready;
  /* while deobfuscating (model_heap_graph_deobfuscate_begin..end): */
  base_map deobf_classes;       /* normalized name -> index + 1 of a class key */
  hg_rows deobf_class_next; /* per class key: the next one, + 1 */
  base_map deobf_fields;        /* field name -> row + 1 of a reference */
  hg_rows deobf_field_next; /* per reference row: the next one, + 1 */
};

/* Map keys from the trace: UINT64_MAX is the maps' empty key. */
static inline uint64_t hg_key(uint64_t k) {
  return k == UINT64_MAX ? UINT64_MAX - 1 : k;
}

void model_heap_graph_deobfuscate_end_state(heap_graph_state *s);
int hg_state_get(trace_context *ctx, heap_graph_state **out);
/* The sequence's state (created when absent, *out NULL on failure). */
int hg_seq_get(trace_context *ctx, uint64_t key, hg_seq **out);
void hg_seq_remove(heap_graph_state *s, hg_seq *seq);
/* The object row of an object id, made when absent. */
int hg_object_row(trace_context *ctx, hg_seq *seq, uint64_t object_id, uint32_t *row);
int hg_class_row(trace_context *ctx, hg_seq *seq, uint64_t type_id, uint32_t *row);
int hg_stat(trace_context *ctx, const hg_seq *seq, int stat, int64_t index);

/* Type-name normalization: strips "java.lang.Class<...>" and trailing
 * "[]"s. */
typedef struct hg_normalized {
  const char *name;
  size_t len, arrays;
  int is_static_class;
} hg_normalized;
hg_normalized hg_normalize(const char *type, size_t len);
/* heap_graph_links.c: superclass_id from the static class objects'
 * superClass references; native sizes through sun.misc.Cleaner. */
int hg_link_superclasses(trace_context *ctx, hg_seq *seq);
int hg_add_native_sizes(trace_context *ctx, hg_seq *seq);
/* The first referent of obj through field `name`: 1 and *owned (-1 for
 * NULL), or 0 when obj has no such reference. */
int hg_referent(trace_context *ctx, uint32_t obj, string_id name, int64_t *owned);
/* Records a class row's deobfuscation keys (heap_graph_deobf.c). */
int hg_class_key_add(trace_context *ctx, uint32_t row, string_id name, string_id location);

#endif
