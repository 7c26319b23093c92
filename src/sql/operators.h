/* operators: PerfettoSQL's built-in operator tables, as SQLite virtual-table
 * modules.
 *
 * - ancestor_slice(id), descendant_slice(id) (op_slice_tree.c): rows of the
 *   slice table above / below a slice on its track.
 * - following_flow(id), preceding_flow(id), directly_connected_flow(id)
 *   (op_flow.c): flow rows reached by walking the flow graph from a slice.
 * - SPAN_JOIN, SPAN_LEFT_JOIN, SPAN_OUTER_JOIN (span_join*.c): the
 *   intersection of two tables' time spans, optionally per partition.
 *
 * The slice and flow indexes are built on first use and rebuilt when the
 * tables they index have grown; they are owned by the module registered in
 * sql_operators_register and freed when the database closes. */
#ifndef WEFT_SQL_OPERATORS_H
#define WEFT_SQL_OPERATORS_H

#include "sql/sql.h"

/* Registers every operator module; WEFT_OK or WEFT_ESQL / WEFT_ENOMEM. */
int sql_operators_register(sqlite3 *db, sql_engine *e);

/* ---- shared by the operators (op_slice_tree.c) ---- */

/* Per-track slice order: the rows of track t are rows[start[t]..start[t+1])
 * sorted by (ts, row). */
typedef struct op_slice_index {
  const storage_table *slices; /* NULL until built */
  size_t row_count;            /* slices->row_count when built */
  uint32_t *rows;
  uint32_t *track_start;       /* track_count + 1 entries */
  size_t track_count;
} op_slice_index;

typedef VEC(uint32_t) op_row_vec;

/* Builds (or rebuilds, when the table grew) the index; WEFT_OK/WEFT_ENOMEM. */
int op_slice_index_ensure(op_slice_index *x, const storage_table *slices);
void op_slice_index_free(op_slice_index *x);
/* Appends the ancestors of `row`, root first, to out. */
int op_slice_ancestors(const op_slice_index *x, uint32_t row, op_row_vec *out);
/* Appends the descendants of `row` (same track, depth greater, ts within
 * [ts, ts + dur), [ts, ts] when dur is 0, from ts on when dur < 0), in row
 * order, to out. */
int op_slice_descendants(const op_slice_index *x, uint32_t row, op_row_vec *out);

/* Reads a start-id argument the way Perfetto does: 0 = id in *id, 1 = NULL
 * (empty result), -1 = not an integer (message in *msg). */
int op_read_start_id(sqlite3_value *v, int64_t *id, const char **msg);
/* xBestIndex for a table function whose one argument is hidden column
 * `start_column`: SQLITE_CONSTRAINT unless it is given by `=`. */
int op_best_index_start_id(sqlite3_index_info *info, int start_column);
/* Reports a storage cell to SQLite. */
void op_result_cell(sqlite3_context *ctx, const storage_table *t,
                    base_string_pool *strings, size_t col, size_t row);
/* Sets the virtual table's error message (printf-style); returns SQLITE_ERROR. */
int op_vtab_error(sqlite3_vtab *vt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Flow operators (op_flow.c) and span join (span_join.c). */
int op_flow_register(sqlite3 *db, sql_engine *e, op_slice_index *slices);
int span_join_register(sqlite3 *db, sql_engine *e);

#endif
