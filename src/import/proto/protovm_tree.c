/* The state tree of a protovm (see protovm_tree.h). */
#include "import/proto/protovm_tree.h"

static int protovm_charge(protovm_tree *t, size_t bytes) {
  if (bytes > t->limit - t->used) return PROTOVM_ABORT;
  t->used += bytes;
  return PROTOVM_OK;
}

int protovm_tree_node(protovm_tree *t, protovm_node **out) {
  int rc = protovm_charge(t, PROTOVM_NODE_COST);
  if (rc) return rc;
  *out = base_calloc(1, sizeof **out);
  if (*out) return PROTOVM_OK;
  t->used -= PROTOVM_NODE_COST;
  return WEFT_ENOMEM;
}

/* A charged copy of data (NULL for no bytes). */
static int protovm_copy(protovm_tree *t, proto_span data, uint8_t **out) {
  *out = NULL;
  if (data.len == 0) return PROTOVM_OK;
  int rc = protovm_charge(t, data.len);
  if (rc) return rc;
  *out = base_malloc(data.len);
  if (!*out) {
    t->used -= data.len;
    return WEFT_ENOMEM;
  }
  memcpy(*out, data.data, data.len);
  return PROTOVM_OK;
}

int protovm_tree_node_of(protovm_tree *t, const proto_field *fl, protovm_node **out) {
  protovm_node *n;
  int rc = protovm_tree_node(t, &n);
  if (rc) return rc;
  if (fl->wire_type == PROTO_WIRE_LEN) {
    rc = protovm_copy(t, fl->span, &n->bytes);
    if (rc) {
      protovm_tree_free_node(t, n);
      return rc;
    }
    n->kind = PROTOVM_BYTES;
    n->len = fl->span.len;
  } else {
    n->kind = PROTOVM_SCALAR;
    n->wire_type = fl->wire_type;
    n->value = fl->value;
  }
  *out = n;
  return PROTOVM_OK;
}

void protovm_tree_clear(protovm_tree *t, protovm_node *n) {
  if (n->bytes) {
    base_free(n->bytes);
    t->used -= n->len;
  }
  for (size_t i = 0; i < n->count; i++) protovm_tree_free_node(t, n->entries[i].node);
  base_free(n->entries);
  memset(n, 0, sizeof *n);
}

void protovm_tree_free_node(protovm_tree *t, protovm_node *n) {
  if (!n) return;
  protovm_tree_clear(t, n);
  base_free(n);
  t->used -= PROTOVM_NODE_COST;
}

int protovm_tree_set_bytes(protovm_tree *t, protovm_node *n, proto_span data) {
  uint8_t *copy;
  int rc = protovm_copy(t, data, &copy);
  if (rc) return rc;
  protovm_tree_clear(t, n);
  n->kind = PROTOVM_BYTES;
  n->bytes = copy;
  n->len = data.len;
  return PROTOVM_OK;
}

size_t protovm_tree_lower(const protovm_node *n, uint64_t key) {
  size_t lo = 0, hi = n->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (n->entries[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

long protovm_tree_find(const protovm_node *n, uint64_t key) {
  size_t i = protovm_tree_lower(n, key);
  return i < n->count && n->entries[i].key == key ? (long)i : -1;
}

int protovm_tree_insert(protovm_tree *t, protovm_node *n, uint64_t key, protovm_node *child) {
  size_t i = protovm_tree_lower(n, key);
  if (i < n->count && n->entries[i].key == key) {
    protovm_tree_free_node(t, child);
    return PROTOVM_ABORT; /* a duplicated key */
  }
  if (n->count == n->cap) {
    size_t cap = n->cap ? n->cap * 2 : 4;
    protovm_entry *grown = base_realloc(n->entries, cap * sizeof *grown);
    if (!grown) {
      protovm_tree_free_node(t, child);
      return WEFT_ENOMEM;
    }
    n->entries = grown;
    n->cap = cap;
  }
  memmove(&n->entries[i + 1], &n->entries[i], (n->count - i) * sizeof *n->entries);
  n->entries[i] = (protovm_entry){key, child};
  n->count++;
  return PROTOVM_OK;
}

int protovm_tree_remove(protovm_tree *t, protovm_node *n, size_t i) {
  if (VEC_PUSH(t->removed, n->entries[i].node)) return WEFT_ENOMEM;
  memmove(&n->entries[i], &n->entries[i + 1], (n->count - i - 1) * sizeof *n->entries);
  n->count--;
  return PROTOVM_OK;
}

void protovm_tree_reap(protovm_tree *t) {
  for (size_t i = 0; i < t->removed.len; i++) protovm_tree_free_node(t, t->removed.data[i]);
  t->removed.len = 0;
}

/* Moves n's content into a new child, leaving n empty. */
static int protovm_tree_push_down(protovm_tree *t, protovm_node *n, protovm_node **child) {
  int rc = protovm_tree_node(t, child);
  if (rc) return rc;
  **child = *n;
  memset(n, 0, sizeof *n);
  return PROTOVM_OK;
}

int protovm_tree_to_indexed(protovm_tree *t, protovm_node *n) {
  if (n->kind == PROTOVM_INDEXED) return PROTOVM_OK;
  if (n->kind == PROTOVM_MAPPED) return PROTOVM_ABORT;
  if (n->kind == PROTOVM_EMPTY) {
    n->kind = PROTOVM_INDEXED;
    return PROTOVM_OK;
  }
  protovm_node *child;
  int rc = protovm_tree_push_down(t, n, &child);
  if (rc) return rc;
  n->kind = PROTOVM_INDEXED;
  return protovm_tree_insert(t, n, 0, child);
}

/* Adds a decoded field to message m: a new entry, or the next element of
 * the repeated field its id already holds. */
static int protovm_tree_add_field(protovm_tree *t, protovm_node *m, const proto_field *fl) {
  protovm_node *child;
  int rc = protovm_tree_node_of(t, fl, &child);
  if (rc) return rc;
  long at = protovm_tree_find(m, fl->number);
  if (at < 0) return protovm_tree_insert(t, m, fl->number, child);
  protovm_node *field = m->entries[at].node;
  rc = protovm_tree_to_indexed(t, field);
  if (rc) {
    protovm_tree_free_node(t, child);
    return rc;
  }
  return protovm_tree_insert(t, field, field->count, child);
}

int protovm_tree_to_message(protovm_tree *t, protovm_node *n) {
  if (n->kind == PROTOVM_MESSAGE) return PROTOVM_OK;
  if (n->kind == PROTOVM_EMPTY) {
    n->kind = PROTOVM_MESSAGE;
    return PROTOVM_OK;
  }
  if (n->kind != PROTOVM_BYTES) return PROTOVM_ABORT;
  protovm_node m = {.kind = PROTOVM_MESSAGE};
  proto_reader r;
  proto_field fl;
  int rc = PROTOVM_OK, more;
  proto_reader_init_span(&r, (proto_span){n->bytes, n->len});
  while (!rc && (more = proto_reader_next(&r, &fl)) == 1) rc = protovm_tree_add_field(t, &m, &fl);
  if (!rc && r.status) rc = PROTOVM_ABORT; /* not a message */
  if (rc) {
    protovm_tree_clear(t, &m);
    return rc;
  }
  protovm_tree_clear(t, n);
  *n = m;
  return PROTOVM_OK;
}

/* The scalar field `id` of a message or of bytes (its first occurrence). */
static int protovm_tree_key_of(const protovm_node *n, uint32_t id, uint64_t *key) {
  if (n->kind == PROTOVM_MESSAGE) {
    long at = protovm_tree_find(n, id);
    if (at < 0 || n->entries[at].node->kind != PROTOVM_SCALAR) return PROTOVM_ABORT;
    *key = n->entries[at].node->value;
    return PROTOVM_OK;
  }
  if (n->kind != PROTOVM_BYTES) return PROTOVM_ABORT;
  proto_field fl;
  if (proto_find_first(n->bytes, n->len, id, &fl) != 1 || fl.wire_type == PROTO_WIRE_LEN)
    return PROTOVM_ABORT;
  *key = fl.value;
  return PROTOVM_OK;
}

/* An element of an indexed field being re-keyed, and its place. */
typedef struct protovm_keyed {
  uint64_t key;
  size_t pos;
  protovm_node *node;
} protovm_keyed;

static int protovm_keyed_order(const void *a, const void *b) {
  const protovm_keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* An indexed repeated field becomes mapped: its elements re-keyed (all or
 * none); of elements with the same key the first is kept, the others are
 * dropped. */
static int protovm_tree_rekey(protovm_tree *t, protovm_node *n, uint32_t key_field) {
  protovm_keyed *tmp = base_malloc((n->count ? n->count : 1) * sizeof *tmp);
  if (!tmp || VEC_RESERVE(t->removed, t->removed.len + n->count)) {
    base_free(tmp);
    return WEFT_ENOMEM;
  }
  for (size_t i = 0; i < n->count; i++) {
    int rc = protovm_tree_key_of(n->entries[i].node, key_field, &tmp[i].key);
    if (rc) {
      base_free(tmp);
      return rc;
    }
    tmp[i].pos = i;
    tmp[i].node = n->entries[i].node;
  }
  base_qsort(tmp, n->count, sizeof *tmp, protovm_keyed_order);
  size_t kept = 0;
  for (size_t i = 0; i < n->count; i++) {
    if (kept && n->entries[kept - 1].key == tmp[i].key)
      t->removed.data[t->removed.len++] = tmp[i].node; /* reserved above */
    else
      n->entries[kept++] = (protovm_entry){tmp[i].key, tmp[i].node};
  }
  n->count = kept;
  n->kind = PROTOVM_MAPPED;
  base_free(tmp);
  return PROTOVM_OK;
}

int protovm_tree_to_mapped(protovm_tree *t, protovm_node *n, uint32_t key_field) {
  if (n->kind == PROTOVM_MAPPED) return PROTOVM_OK;
  if (n->kind == PROTOVM_EMPTY) {
    n->kind = PROTOVM_MAPPED;
    return PROTOVM_OK;
  }
  if (n->kind == PROTOVM_INDEXED) return protovm_tree_rekey(t, n, key_field);
  uint64_t key;
  int rc = protovm_tree_key_of(n, key_field, &key);
  if (rc) return rc;
  protovm_node *child;
  rc = protovm_tree_push_down(t, n, &child);
  if (rc) return rc;
  n->kind = PROTOVM_MAPPED;
  return protovm_tree_insert(t, n, key, child);
}

int protovm_tree_field(protovm_tree *t, protovm_node *n, uint32_t field_id, protovm_node **out) {
  int rc = protovm_tree_to_message(t, n);
  if (rc) return rc;
  long at = protovm_tree_find(n, field_id);
  if (at >= 0) {
    *out = n->entries[at].node;
    return PROTOVM_OK;
  }
  rc = protovm_tree_node(t, out);
  if (!rc) rc = protovm_tree_insert(t, n, field_id, *out);
  return rc;
}

/* ---- serialization ---- */

static size_t protovm_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

static size_t protovm_body_size(const protovm_node *n);

/* Encoded size of node n as field `id` (each element of a repeated one). */
static size_t protovm_field_size(const protovm_node *n, uint32_t id) {
  size_t tag = protovm_varint_size((uint64_t)id << 3), body;
  switch (n->kind) {
    case PROTOVM_BYTES: return tag + protovm_varint_size(n->len) + n->len;
    case PROTOVM_MESSAGE:
      body = protovm_body_size(n);
      return tag + protovm_varint_size(body) + body;
    case PROTOVM_SCALAR:
      if (n->wire_type == PROTO_WIRE_FIXED32) return tag + 4;
      if (n->wire_type == PROTO_WIRE_FIXED64) return tag + 8;
      return tag + protovm_varint_size(n->value);
    case PROTOVM_INDEXED:
    case PROTOVM_MAPPED:
      body = 0;
      for (size_t i = 0; i < n->count; i++) body += protovm_field_size(n->entries[i].node, id);
      return body;
    default: return 0;
  }
}

static size_t protovm_body_size(const protovm_node *n) {
  size_t size = 0;
  for (size_t i = 0; i < n->count; i++)
    size += protovm_field_size(n->entries[i].node, (uint32_t)n->entries[i].key);
  return size;
}

static int protovm_write_body(const protovm_node *n, base_buf *out) {
  for (size_t i = 0; i < n->count; i++) {
    int rc = protovm_tree_write(n->entries[i].node, (uint32_t)n->entries[i].key, out);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int protovm_tree_write(const protovm_node *n, uint32_t field_id, base_buf *out) {
  int rc;
  switch (n->kind) {
    case PROTOVM_BYTES: return proto_put_bytes_field(out, field_id, n->bytes, n->len);
    case PROTOVM_MESSAGE:
      rc = proto_put_tag(out, field_id, PROTO_WIRE_LEN);
      if (!rc) rc = proto_put_varint(out, protovm_body_size(n));
      return rc ? rc : protovm_write_body(n, out);
    case PROTOVM_SCALAR:
      if (n->wire_type == PROTO_WIRE_FIXED32)
        return proto_put_fixed32_field(out, field_id, (uint32_t)n->value);
      if (n->wire_type == PROTO_WIRE_FIXED64) return proto_put_fixed64_field(out, field_id, n->value);
      return proto_put_varint_field(out, field_id, n->value);
    case PROTOVM_INDEXED:
    case PROTOVM_MAPPED:
      for (size_t i = 0; i < n->count; i++) {
        rc = protovm_tree_write(n->entries[i].node, field_id, out);
        if (rc) return rc;
      }
      return WEFT_OK;
    default: return WEFT_OK;
  }
}

int protovm_tree_write_root(const protovm_tree *t, base_buf *out) {
  if (t->root.kind == PROTOVM_BYTES) return base_buf_append(out, t->root.bytes, t->root.len);
  if (t->root.kind == PROTOVM_MESSAGE) return protovm_write_body(&t->root, out);
  return WEFT_OK;
}
