/* experimental_flamegraph(profile_type, ts, ts_constraint, upid, upid_group,
 * focus_str): a profile as a flamegraph, one row per merged node, listed
 * depth first.
 *
 * 'graph' (a Java heap dump: ts and upid required): the shortest-path tree
 * of the dump's objects — a breadth-first walk from the roots (ordered by
 * class name, then id; a referent's children in id order), not through the
 * referent of weak, finalizer or phantom references — merged by name: a
 * node per (parent node, "<class, deobfuscated if known>[ [<root type>]]"),
 * count objects and size self sizes; an object with a native size adds a
 * child "[native] <name>" of that size. A dump with no roots gives the row
 * "ERROR: INCOMPLETE GRAPH (try increasing buffer size)" when its
 * heap_graph row is truncated, else an error.
 * Siblings are listed by the least id merged into them: the object's id,
 * for a native node one past every object's.
 * focus_str keeps the nodes whose name contains it (case-insensitively),
 * their ancestors and their descendants, with the cumulative values
 * recomputed. Other profile types are errors here. */
#ifndef WEFT_OP_FLAMEGRAPH_H
#define WEFT_OP_FLAMEGRAPH_H

#include "sql/operators.h"

typedef struct fg_node_row {
  int64_t parent, first_child, last_child, next_sibling; /* node indexes, -1 none */
  size_t name_off, name_len; /* in fg_nodes.names */
  int64_t count, size;
  int64_t first; /* the least input id merged into it (siblings' order) */
} fg_node_row;

typedef struct fg_nodes {
  VEC(fg_node_row) rows;
  base_buf names;
  int64_t first_top, last_top;
} fg_nodes;

/* The merged heap graph tree of the dump (ts, upid) (op_flamegraph_graph.c). */
int fg_build_graph(sql_engine *e, int64_t ts, int64_t upid, fg_nodes *out);
int op_flamegraph_register(sqlite3 *db, sql_engine *e);

#endif
