/* The heap graph flamegraph: one dump's shortest-path tree merged by class.
 * See op_flamegraph.h. */
#include <stdlib.h>
#include <string.h>

#include "sql/op_flamegraph.h"
#include "storage/schema.h"

typedef VEC(uint32_t) fg_u32s;

/* One dump's objects: local index -> object row, and the walk over them. */
typedef struct fg_dump {
  const storage_table *objects, *classes, *refs;
  const base_string_pool *strings;
  fg_u32s rows;     /* local index -> object row */
  base_map local;   /* object row -> local index */
  int64_t *parent;  /* per local index: BFS parent (local), -1 root/unreached */
  uint8_t *seen;
  fg_u32s order;    /* BFS order (local indexes) */
  string_id referent, weak_kinds[3];
} fg_dump;

static void fg_dump_free(fg_dump *d) {
  VEC_FREE(d->rows);
  base_map_free(&d->local);
  base_free(d->parent);
  base_free(d->seen);
  VEC_FREE(d->order);
}

static const char *fg_str(const fg_dump *d, string_id id, size_t *len) {
  const char *s = base_string_pool_get(d->strings, id);
  *len = base_string_pool_len(d->strings, id);
  return s ? s : "";
}

static int fg_collect(fg_dump *d, int64_t ts, int64_t upid) {
  for (size_t r = 0; r < d->objects->row_count; r++) {
    if (storage_get_i64(d->objects, HEAP_GRAPH_OBJECT_upid, r) != upid ||
        storage_get_i64(d->objects, HEAP_GRAPH_OBJECT_graph_sample_ts, r) != ts)
      continue;
    uint64_t *slot;
    if (base_map_insert(&d->local, r, d->rows.len, &slot) < 0 ||
        VEC_PUSH(d->rows, (uint32_t)r))
      return WEFT_ENOMEM;
  }
  size_t n = d->rows.len ? d->rows.len : 1;
  d->parent = base_malloc(n * sizeof *d->parent);
  d->seen = base_calloc(n, 1);
  if (!d->parent || !d->seen) return WEFT_ENOMEM;
  for (size_t i = 0; i < d->rows.len; i++) d->parent[i] = -1;
  return WEFT_OK;
}

static string_id fg_class_name(const fg_dump *d, uint32_t row) {
  int64_t cls = storage_get_i64(d->objects, HEAP_GRAPH_OBJECT_type_id, row);
  if ((uint64_t)cls >= d->classes->row_count) return STRING_NULL;
  return storage_get_str(d->classes, HEAP_GRAPH_CLASS_name, (size_t)cls);
}

/* A root with its sort key: class name, then row. */
typedef struct fg_root_key {
  const char *name;
  size_t len;
  uint32_t row, local;
} fg_root_key;

static int fg_root_order(const void *a, const void *b) {
  const fg_root_key *x = a, *y = b;
  int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
  if (c) return c;
  if (x->len != y->len) return x->len < y->len ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

static int fg_u32_order(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* The children of a local object: referents in the dump, in id order,
 * without a weak, finalizer or phantom reference's referent. */
static int fg_children(const fg_dump *d, uint32_t local, fg_u32s *out) {
  uint32_t row = d->rows.data[local];
  out->len = 0;
  if (storage_is_null(d->objects, HEAP_GRAPH_OBJECT_reference_set_id, row)) return WEFT_OK;
  int64_t cls = storage_get_i64(d->objects, HEAP_GRAPH_OBJECT_type_id, row);
  string_id kind = (uint64_t)cls < d->classes->row_count
                       ? storage_get_str(d->classes, HEAP_GRAPH_CLASS_kind, (size_t)cls)
                       : STRING_NULL;
  int weak = kind && (kind == d->weak_kinds[0] || kind == d->weak_kinds[1] ||
                      kind == d->weak_kinds[2]);
  size_t r = (size_t)storage_get_i64(d->objects, HEAP_GRAPH_OBJECT_reference_set_id, row);
  for (; r < d->refs->row_count &&
         storage_get_i64(d->refs, HEAP_GRAPH_REFERENCE_owner_id, r) == (int64_t)row;
       r++) {
    if (storage_is_null(d->refs, HEAP_GRAPH_REFERENCE_owned_id, r)) continue;
    if (weak && d->referent &&
        storage_get_str(d->refs, HEAP_GRAPH_REFERENCE_field_name, r) == d->referent)
      continue;
    uint64_t *l = base_map_find(&d->local,
                                (uint64_t)storage_get_i64(d->refs, HEAP_GRAPH_REFERENCE_owned_id, r));
    if (l && VEC_PUSH(*out, (uint32_t)*l)) return WEFT_ENOMEM;
  }
  if (out->len > 1) qsort(out->data, out->len, sizeof *out->data, fg_u32_order);
  return WEFT_OK;
}

/* Breadth-first from the roots (all queued first, by class name and id):
 * each object's parent is the object it was first reached from. */
static int fg_walk(fg_dump *d) {
  VEC(fg_root_key) roots = {0};
  for (uint32_t i = 0; i < d->rows.len; i++) {
    uint32_t row = d->rows.data[i];
    if (!storage_get_str(d->objects, HEAP_GRAPH_OBJECT_root_type, row)) continue;
    fg_root_key k = {NULL, 0, row, i};
    k.name = fg_str(d, fg_class_name(d, row), &k.len);
    if (VEC_PUSH(roots, k)) {
      VEC_FREE(roots);
      return WEFT_ENOMEM;
    }
  }
  if (roots.len > 1) qsort(roots.data, roots.len, sizeof *roots.data, fg_root_order);
  int rc = VEC_RESERVE(d->order, roots.len + 1);
  for (size_t i = 0; !rc && i < roots.len; i++) {
    d->order.data[d->order.len++] = roots.data[i].local;
    d->seen[roots.data[i].local] = 1;
  }
  VEC_FREE(roots);
  fg_u32s kids = {0};
  for (size_t head = 0; !rc && head < d->order.len; head++) {
    uint32_t cur = d->order.data[head];
    rc = fg_children(d, cur, &kids);
    for (size_t k = 0; !rc && k < kids.len; k++) {
      uint32_t c = kids.data[k];
      if (d->seen[c]) continue;
      d->seen[c] = 1;
      d->parent[c] = cur;
      rc = VEC_PUSH(d->order, c);
    }
  }
  VEC_FREE(kids);
  return rc;
}

/* ---- merging the tree by name ---- */

typedef struct fg_merge {
  fg_nodes *nodes;
  base_map index;    /* hash(parent, name) -> node + 1 (chained by hash_next) */
  fg_u32s hash_next; /* per node */
  int64_t *merged;   /* per local object: its node */
} fg_merge;

static uint64_t fg_hash(int64_t parent, const char *name, size_t len) {
  return (base_hash_bytes(name, len) ^ base_hash_u64((uint64_t)parent)) >> 1;
}

/* The node named `name` under `parent` (-1: top), made when absent. */
static int fg_node(fg_merge *m, int64_t parent, const char *name, size_t len, uint32_t *out) {
  uint64_t h = fg_hash(parent, name, len), *head;
  if (base_map_insert(&m->index, h, 0, &head) < 0) return WEFT_ENOMEM;
  for (uint64_t i = *head; i; i = m->hash_next.data[i - 1]) {
    fg_node_row *n = &m->nodes->rows.data[i - 1];
    if (n->parent == parent && n->name_len == len &&
        memcmp(m->nodes->names.data + n->name_off, name, len) == 0) {
      *out = (uint32_t)(i - 1);
      return WEFT_OK;
    }
  }
  fg_node_row n = {0};
  n.parent = parent;
  n.name_off = m->nodes->names.len;
  n.name_len = len;
  n.first_child = n.last_child = n.next_sibling = -1;
  n.first = INT64_MAX;
  if (base_buf_append(&m->nodes->names, name, len) || VEC_PUSH(m->nodes->rows, n) ||
      VEC_PUSH(m->hash_next, (uint32_t)*head))
    return WEFT_ENOMEM;
  uint32_t id = (uint32_t)(m->nodes->rows.len - 1);
  *head = (uint64_t)id + 1;
  *out = id;
  return WEFT_OK;
}

/* "<deobfuscated or plain class name>[ [<root type>]]", prefixed. */
static int fg_object_name(const fg_dump *d, uint32_t row, const char *prefix, base_buf *out) {
  int64_t cls = storage_get_i64(d->objects, HEAP_GRAPH_OBJECT_type_id, row);
  string_id name = STRING_NULL;
  if ((uint64_t)cls < d->classes->row_count) {
    name = storage_get_str(d->classes, HEAP_GRAPH_CLASS_deobfuscated_name, (size_t)cls);
    if (!name) name = storage_get_str(d->classes, HEAP_GRAPH_CLASS_name, (size_t)cls);
  }
  string_id root = storage_get_str(d->objects, HEAP_GRAPH_OBJECT_root_type, row);
  size_t len;
  const char *s = fg_str(d, name, &len);
  base_buf_reset(out);
  int rc = base_buf_append(out, prefix, strlen(prefix));
  if (!rc) rc = base_buf_append(out, s, len);
  if (!rc && root) {
    s = fg_str(d, root, &len);
    rc = base_buf_append(out, " [", 2);
    if (!rc) rc = base_buf_append(out, s, len);
    if (!rc) rc = base_buf_append(out, "]", 1);
  }
  return rc;
}

static int fg_add(fg_merge *m, const fg_dump *d, uint32_t local, int native, base_buf *name) {
  uint32_t row = d->rows.data[local];
  int64_t parent = native ? m->merged[local]
                          : (d->parent[local] >= 0 ? m->merged[d->parent[local]] : -1);
  int64_t size = storage_get_i64(d->objects, native ? HEAP_GRAPH_OBJECT_native_size
                                                    : HEAP_GRAPH_OBJECT_self_size, row);
  if (native && size == 0) return WEFT_OK;
  uint32_t node;
  int rc = fg_object_name(d, row, native ? "[native] " : "", name);
  if (!rc) rc = fg_node(m, parent, name->data, name->len, &node);
  if (rc) return rc;
  fg_node_row *n = &m->nodes->rows.data[node];
  int64_t id = native ? (int64_t)(d->objects->row_count + local) : (int64_t)row;
  n->count++;
  n->size += size;
  if (id < n->first) n->first = id;
  if (!native) m->merged[local] = node;
  return WEFT_OK;
}

typedef struct fg_first_key {
  int64_t first;
  uint32_t node;
} fg_first_key;

static int fg_first_order(const void *a, const void *b) {
  const fg_first_key *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

/* Relinks every sibling list in the order of the nodes' least ids. */
static int fg_order_siblings(fg_nodes *t) {
  size_t n = t->rows.len;
  fg_first_key *order = base_malloc((n ? n : 1) * sizeof *order);
  if (!order) return WEFT_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    fg_node_row *r = &t->rows.data[i];
    order[i] = (fg_first_key){r->first, (uint32_t)i};
    r->first_child = r->last_child = r->next_sibling = -1;
  }
  if (n > 1) qsort(order, n, sizeof *order, fg_first_order);
  t->first_top = t->last_top = -1;
  for (size_t i = 0; i < n; i++) {
    int64_t id = order[i].node, p = t->rows.data[id].parent;
    int64_t *first = p >= 0 ? &t->rows.data[p].first_child : &t->first_top;
    int64_t *last = p >= 0 ? &t->rows.data[p].last_child : &t->last_top;
    if (*last >= 0) t->rows.data[*last].next_sibling = id;
    else *first = id;
    *last = id;
  }
  base_free(order);
  return WEFT_OK;
}

static int fg_merge_tree(const fg_dump *d, fg_nodes *out) {
  fg_merge m = {out, {0}, {0}, base_malloc((d->rows.len ? d->rows.len : 1) * sizeof(int64_t))};
  base_buf name;
  base_buf_init(&name, (size_t)1 << 20);
  int rc = m.merged ? WEFT_OK : WEFT_ENOMEM;
  for (size_t i = 0; !rc && i < d->order.len; i++) rc = fg_add(&m, d, d->order.data[i], 0, &name);
  for (size_t i = 0; !rc && i < d->order.len; i++) rc = fg_add(&m, d, d->order.data[i], 1, &name);
  if (!rc) rc = fg_order_siblings(out);
  base_buf_free(&name);
  base_map_free(&m.index);
  VEC_FREE(m.hash_next);
  base_free(m.merged);
  return rc;
}

int fg_build_graph(sql_engine *e, int64_t ts, int64_t upid, fg_nodes *out) {
  fg_dump d = {0};
  d.objects = sql_engine_find_table(e, schema_tables[TABLE_HEAP_GRAPH_OBJECT].name);
  d.classes = sql_engine_find_table(e, schema_tables[TABLE_HEAP_GRAPH_CLASS].name);
  d.refs = sql_engine_find_table(e, schema_tables[TABLE_HEAP_GRAPH_REFERENCE].name);
  d.strings = sql_engine_strings(e);
  if (!d.objects || !d.classes || !d.refs) return WEFT_OK;
  static const char *const weak[3] = {"KIND_WEAK_REFERENCE", "KIND_FINALIZER_REFERENCE",
                                      "KIND_PHANTOM_REFERENCE"};
  static const char referent[] = "java.lang.ref.Reference.referent";
  d.referent = base_string_pool_find(d.strings, referent, sizeof referent - 1);
  for (int i = 0; i < 3; i++) d.weak_kinds[i] = base_string_pool_find(d.strings, weak[i], strlen(weak[i]));
  int rc = fg_collect(&d, ts, upid);
  if (!rc) rc = fg_walk(&d);
  if (!rc) rc = fg_merge_tree(&d, out);
  fg_dump_free(&d);
  return rc;
}
