/* operators: PerfettoSQL's built-in operator tables, as SQLite virtual-table
 * modules.
 *
 * - ancestor_slice(id), descendant_slice(id) (op_slice_tree.c): rows of the
 *   slice table above / below a slice on its track.
 * - following_flow(id), preceding_flow(id), directly_connected_flow(id)
 *   (op_flow.c): flow rows reached by walking the flow graph from a slice.
 * - experimental_annotated_callstack(callsite_id) (op_annotated_callstack.c):
 *   a callsite and its ancestors with ART frame annotations.
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
int op_slice_ancestors(const storage_table *slices, uint32_t row, op_row_vec *out);
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
int op_annotated_callstack_register(sqlite3 *db, sql_engine *e);

/* ---- span join's inputs in memory (span_join_rows.c) ----
 * An input's rows, read once from its query: one list per partition
 * (ordered by partition value), each sorted by ts then input order, kept
 * in blocks of SPAN_BLOCK_ROWS; ts and dur as integers, the other columns
 * packed at `cells` (in arena blocks). An unpartitioned input is one
 * partition, INT64_MIN. */
#define SPAN_BLOCK_ROWS 4096
#define SPAN_MAX_INPUT_COLUMNS 256

typedef struct span_row {
  int64_t ts, dur;
  unsigned char *cells;
} span_row;

typedef struct span_part {
  int64_t part;
  span_row **block;   /* rows i at block[i / SPAN_BLOCK_ROWS] */
  size_t count, block_count, block_cap;
  size_t first_cap;   /* rows block 0 holds (it grows up to a full block) */
} span_part;

static inline span_row *span_part_row(const span_part *p, size_t i) {
  return &p->block[i / SPAN_BLOCK_ROWS][i % SPAN_BLOCK_ROWS];
}

typedef struct span_rows {
  span_part *parts;
  size_t part_count, part_cap, last_part;
  int64_t *slot_key;             /* partition value -> index, while reading */
  size_t *slot_part, slot_cap;
  unsigned char **arena;         /* blocks of packed columns */
  size_t arena_count, arena_cap, arena_len, arena_size; /* len/size: last block's */
  int columns;                   /* the query's */
  int ts_col, dur_col, part_col; /* in the query; part_col -1: none */
} span_rows;

/* Runs the query and keeps its rows; rows of a NULL partition are left
 * out, a non-integer partition is an error. 0 or an SQLite error code
 * (message in *msg, sqlite3_free it). */
int span_rows_load(span_rows *r, sqlite3_stmt *stmt, char **msg);
/* Sets ctx's result to column `col` (of the query) of row i of partition
 * `part` (an index into parts). */
void span_rows_result(const span_rows *r, size_t part, size_t i, int col,
                      sqlite3_context *ctx);
/* Frees the rows (the column positions stay). */
void span_rows_free(span_rows *r);

/* ---- span join's sweep (span_join_sweep.c) ----
 * Each input is read into memory sorted by (partition, ts) and seen
 * as a sequence of pieces per partition: its real spans, the gaps around
 * them (from 0 to the first span, between spans, from the last to the end
 * of time) and, between partitions, "missing" pieces covering the
 * partitions the input lacks. An input of an inner join shows only real
 * pieces; the optional side of a left/outer join shows gaps too, and missing
 * partitions as well when both inputs are partitioned. The sweep steps
 * whichever input's piece ends first (by partition, end, gap before real)
 * and emits every step where the two pieces overlap and one is real. */
enum span_piece { SPAN_REAL, SPAN_GAP, SPAN_MISSING, SPAN_END };
enum span_partitioning { SPAN_UNPARTITIONED, SPAN_SAME_PARTITION, SPAN_MIXED_PARTITION };

typedef struct span_input {
  sqlite3_stmt *stmt;  /* SELECT every column */
  span_rows rows;      /* its rows */
  size_t part_at, pos; /* the current row: rows.parts[part_at].row[pos] */
  int partitioned;
  int show_gaps, show_missing;
  int row_eof;         /* no current row */
  int kind;            /* enum span_piece */
  int64_t ts, end;     /* the piece's [ts, end); end = ts - 1 for dur -1 */
  int64_t part;        /* REAL/GAP: its partition */
  int64_t miss_lo, miss_hi; /* MISSING: partitions [lo, hi) */
} span_input;

typedef struct span_sweep {
  span_input in[2];
  int partitioning;    /* enum span_partitioning */
  int64_t mixed_part;  /* MIXED: the partitioned input's current partition */
  span_input *next;    /* the input stepped after the current row */
} span_sweep;

/* Reads both inputs and finds the first row; the inputs
 * flagged in empty_is_missing, when empty, cover everything as a missing
 * piece. 0 or an SQLite error code (message in *msg, sqlite3_free it). */
int span_sweep_start(span_sweep *s, const int empty_is_missing[2], char **msg);
int span_sweep_step(span_sweep *s, char **msg);
int span_sweep_done(const span_sweep *s);
/* The current row's ts, dur and partition. */
int64_t span_sweep_ts(const span_sweep *s);
int64_t span_sweep_dur(const span_sweep *s);
int64_t span_sweep_partition(const span_sweep *s);

#endif
