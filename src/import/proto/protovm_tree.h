/* protovm_tree: the read-write state of a protovm (protovm.h), a tree of
 * nodes, and its charges against the memory limit.
 *
 * A node is empty, a scalar (wire type and raw value), bytes (not yet
 * decoded: a message, a string...), a message (its fields by id), an
 * indexed repeated field (elements by index) or a mapped one (elements by
 * the value of a key field). Containers keep their entries sorted by key.
 * Bytes are decoded into a message only when a cursor enters them; a
 * field met again while decoding becomes an indexed repeated field.
 * Invariants: `used` is the sum of PROTOVM_NODE_COST per live node and
 * the bytes of live copies, never above `limit`; a node removed while a
 * patch runs (protovm_tree_remove) stays allocated (in `removed`) until
 * protovm_tree_reap, so that no cursor of the patch ever points at freed
 * memory. Functions return a protovm_status or WEFT_ENOMEM. */
#ifndef WEFT_PROTOVM_TREE_H
#define WEFT_PROTOVM_TREE_H

#include "import/proto/protovm.h"

enum protovm_kind {
  PROTOVM_EMPTY = 0,
  PROTOVM_SCALAR,
  PROTOVM_BYTES,
  PROTOVM_MESSAGE,
  PROTOVM_INDEXED,
  PROTOVM_MAPPED,
};

typedef struct protovm_node protovm_node;
typedef struct protovm_entry {
  uint64_t key;
  protovm_node *node;
} protovm_entry;

struct protovm_node {
  uint8_t kind;        /* enum protovm_kind */
  uint8_t wire_type;   /* scalar: PROTO_WIRE_VARINT, _FIXED32 or _FIXED64 */
  uint8_t merged;      /* indexed: emptied by the merge running now */
  uint64_t value;      /* scalar */
  uint8_t *bytes;      /* bytes */
  size_t len;
  protovm_entry *entries; /* containers: sorted by key */
  size_t count, cap;
};

typedef struct protovm_tree {
  protovm_node root;
  size_t used, limit;
  VEC(protovm_node *) removed;
} protovm_tree;

/* A new empty node (charged). */
int protovm_tree_node(protovm_tree *t, protovm_node **out);
/* A node for one decoded field: a scalar, or bytes copied. */
int protovm_tree_node_of(protovm_tree *t, const proto_field *fl, protovm_node **out);
/* Replaces the node's content by a copy of `data` as bytes. */
int protovm_tree_set_bytes(protovm_tree *t, protovm_node *n, proto_span data);
/* Frees what the node holds (it becomes empty); a node and its subtree. */
void protovm_tree_clear(protovm_tree *t, protovm_node *n);
void protovm_tree_free_node(protovm_tree *t, protovm_node *n);
/* Entry of `key` in a container: its index, or -1. */
long protovm_tree_find(const protovm_node *n, uint64_t key);
/* Index of the first entry whose key is >= key (count if none). */
size_t protovm_tree_lower(const protovm_node *n, uint64_t key);
/* Inserts child under key (ABORT if the key is there already; the child
 * is then freed). */
int protovm_tree_insert(protovm_tree *t, protovm_node *n, uint64_t key, protovm_node *child);
/* Detaches entry i: freed at protovm_tree_reap. */
int protovm_tree_remove(protovm_tree *t, protovm_node *n, size_t i);
void protovm_tree_reap(protovm_tree *t);
/* Makes the node a message (decoding bytes), an indexed repeated field
 * or a mapped one keyed by field key_field (ABORT when it cannot be; of
 * elements with equal keys the first stays, the others are removed). */
int protovm_tree_to_message(protovm_tree *t, protovm_node *n);
int protovm_tree_to_indexed(protovm_tree *t, protovm_node *n);
int protovm_tree_to_mapped(protovm_tree *t, protovm_node *n, uint32_t key_field);
/* The entry of field_id in message n, created empty when absent. */
int protovm_tree_field(protovm_tree *t, protovm_node *n, uint32_t field_id, protovm_node **out);
/* Appends node n as field `field_id` (each element for a repeated one). */
int protovm_tree_write(const protovm_node *n, uint32_t field_id, base_buf *out);
/* Appends the root: bytes as they are, a message's fields; else nothing. */
int protovm_tree_write_root(const protovm_tree *t, base_buf *out);

#endif
