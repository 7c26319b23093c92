/* stdlib_ops: the C operators behind stdlib macros that plain SQL cannot do
 * within O(n log n) (interval intersection) or at all (graph walks).
 *
 * Tables travel from SQL to C as a pointer value: the aggregate
 * `__weft_rows_agg(c1, ..., cN)` (1 <= N <= 8 integer-or-NULL columns)
 * collects its input rows, in input order, into one stdlib_rows and returns
 * it as an SQLite pointer of type "weft_rows". Table-valued functions take
 * such pointers as their (hidden) arguments:
 *
 *   __weft_interval_intersect(r0, r1 [, r2, r3, r4])
 *       each ri is rows (id, ts, dur, k0..kM-1) with the same M <= 4;
 *       columns ts, dur, id_0..id_4, key_0..key_3.
 *   __weft_interval_self_intersect(r)   r is rows (id, ts, dur);
 *       columns ts, dur, group_id, id, interval_ends_at_ts.
 *   __weft_graph_dfs(edges, starts), __weft_graph_bfs(edges, starts)
 *       edges rows (src, dst), starts rows (node); columns node_id,
 *       parent_node_id.
 *   __weft_graph_dominator_tree(edges, root)   root an integer; columns
 *       node_id, dominator_node_id.
 *   __weft_tree_partition(tree)   tree rows (id, parent_id, group_key);
 *       columns id, parent_id, group_key.
 *   __weft_graph_weight_bounded_dfs(edges, roots, is_floor)   edges rows
 *       (src, dst, weight), roots rows (node, target_weight); columns
 *       root_node_id, node_id, parent_node_id.
 *   __weft_tree_accumulate(tree)   tree rows (id, parent_id, value);
 *       columns id, cumulative: the sum of value over the node's subtree.
 *
 * Node ids may be any integers: the graph operators renumber them.
 *
 * Also the scalar HASH(args...) (64-bit FNV-1a, as Perfetto's), which names
 * slice stacks. */
#ifndef WEFT_SQL_STDLIB_OPS_H
#define WEFT_SQL_STDLIB_OPS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define STDLIB_ROWS_MAX_COLS 12

/* A table of integer-or-NULL cells, row-major. */
typedef struct stdlib_rows {
  int cols;
  size_t count, cap;
  int64_t *value; /* count * cols */
  uint8_t *null;  /* count * cols; 1 = NULL */
} stdlib_rows;

void stdlib_rows_init(stdlib_rows *r, int cols);
void stdlib_rows_free(stdlib_rows *r);
/* Appends one row of `cols` cells (null may be NULL: none is NULL); 0 or
 * -1 for want of memory. */
int stdlib_rows_push(stdlib_rows *r, const int64_t *value, const uint8_t *null);
static inline int64_t stdlib_rows_get(const stdlib_rows *r, size_t row, int col) {
  return r->value[row * (size_t)r->cols + (size_t)col];
}
static inline int stdlib_rows_is_null(const stdlib_rows *r, size_t row, int col) {
  return r->null[row * (size_t)r->cols + (size_t)col];
}
/* a + b, held at INT64_MIN / INT64_MAX instead of overflowing. */
static inline int64_t stdlib_add_saturating(int64_t a, int64_t b) {
  if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
  if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
  return a + b;
}
/* The stdlib_rows behind a "weft_rows" pointer argument, or NULL. */
const stdlib_rows *stdlib_rows_arg(sqlite3_value *v);

/* Computes an operator's rows from its arguments; on failure returns nonzero
 * and sets *errmsg (sqlite3_mprintf'd). */
typedef int (*stdlib_op_fn)(sqlite3_value **args, int arg_count,
                            stdlib_rows *out, char **errmsg);

typedef struct stdlib_op_def {
  const char *name;
  const char *columns; /* output columns, comma-separated */
  int column_count;
  int min_args, max_args;
  stdlib_op_fn compute;
} stdlib_op_def;

/* Registers one operator as an eponymous table-valued function. */
int stdlib_op_register(sqlite3 *db, const stdlib_op_def *def);

/* Registers __weft_rows_agg and every operator above; SQLITE_OK or an
 * SQLite error code. */
int sql_stdlib_ops_register(sqlite3 *db);
int stdlib_ops_register_intervals(sqlite3 *db);
int stdlib_ops_register_graph(sqlite3 *db);
int stdlib_ops_register_tree(sqlite3 *db);

#endif
