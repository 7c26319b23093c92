/* following_flow(id), preceding_flow(id), directly_connected_flow(id): flow
 * rows reached by a breadth-first walk of the flow graph from a slice.
 *
 * The walk visits slices; each slice is queued once, remembering how it was
 * reached. Visiting a slice:
 * - unless it was reached as a relative, queues its relatives not seen yet
 *   (following: its descendants; preceding: its ancestors; directly
 *   connected: none);
 * - lists its flows in the walk's direction(s) in flow-table order, each
 *   one into the result, and queues the slice at the other end if new;
 *   a slice reached by an outgoing flow does not look at its incoming flows
 *   and vice versa (the walk never turns back).
 * Result rows keep the order they were found in; their id is their position
 * in the result (as Perfetto numbers them), the other columns are the flow's.
 *
 * Flows per slice come from two CSR indexes (by slice_out, by slice_in)
 * built on first use; "seen" marks are generation stamps per slice, so a
 * call costs what it visits, not the number of slices. */
#include "sql/operators.h"
#include "storage/schema.h"

enum op_flow_mode { OP_FLOW_FOLLOWING, OP_FLOW_PRECEDING, OP_FLOW_DIRECT };
enum op_visit { OP_VISIT_START, OP_VISIT_VIA_IN, OP_VISIT_VIA_OUT, OP_VISIT_RELATIVE };

/* Flows of slice s by one end: flows[start[s]..start[s + 1]), in id order. */
typedef struct op_flow_csr {
  uint32_t *start; /* slice_count + 1 entries */
  uint32_t *flows;
} op_flow_csr;

typedef struct op_flow_state {
  sql_engine *engine;
  op_slice_index *slices;    /* owned by the slice-tree module */
  const storage_table *flow; /* NULL until built */
  size_t flow_rows, slice_rows;
  op_flow_csr by_out, by_in;
  uint32_t *seen;            /* per slice: the generation that saw it */
  uint32_t generation;
} op_flow_state;

typedef struct op_flow_table {
  sqlite3_vtab base; /* must be first */
  op_flow_state *state;
  int mode;
} op_flow_table;

typedef struct op_flow_item {
  uint32_t slice;
  uint8_t visit;
} op_flow_item;

typedef struct op_flow_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  op_row_vec flows;         /* result: flow rows */
  VEC(op_flow_item) queue;
  op_row_vec relatives;
  size_t pos;
} op_flow_cursor;

/* ---- the index ---- */

static void op_flow_index_free(op_flow_state *s) {
  base_free(s->by_out.start);
  base_free(s->by_out.flows);
  base_free(s->by_in.start);
  base_free(s->by_in.flows);
  base_free(s->seen);
  s->by_out = s->by_in = (op_flow_csr){0};
  s->seen = NULL;
  s->flow = NULL;
}

static int op_flow_csr_build(op_flow_csr *c, const storage_table *flow, size_t col,
                             size_t slice_rows) {
  c->start = base_calloc(slice_rows + 2, sizeof *c->start);
  c->flows = base_malloc((flow->row_count ? flow->row_count : 1) * sizeof *c->flows);
  if (!c->start || !c->flows) return WEFT_ENOMEM;
  for (size_t r = 0; r < flow->row_count; r++) {
    int64_t s = storage_get_i64(flow, col, r);
    if (s >= 0 && (uint64_t)s < slice_rows) c->start[s + 2]++;
  }
  for (size_t i = 2; i < slice_rows + 2; i++) c->start[i] += c->start[i - 1];
  for (size_t r = 0; r < flow->row_count; r++) {
    int64_t s = storage_get_i64(flow, col, r);
    if (s >= 0 && (uint64_t)s < slice_rows) c->flows[c->start[s + 1]++] = (uint32_t)r;
  }
  return WEFT_OK;
}

static int op_flow_index_ensure(op_flow_state *s, const storage_table *flow,
                                const storage_table *slices) {
  if (s->flow == flow && s->flow_rows == flow->row_count &&
      s->slice_rows == slices->row_count)
    return WEFT_OK;
  op_flow_index_free(s);
  size_t n = slices->row_count;
  s->seen = base_calloc(n ? n : 1, sizeof *s->seen);
  s->generation = 0;
  if (!s->seen || op_flow_csr_build(&s->by_out, flow, FLOW_slice_out, n) ||
      op_flow_csr_build(&s->by_in, flow, FLOW_slice_in, n)) {
    op_flow_index_free(s);
    return WEFT_ENOMEM;
  }
  s->flow = flow;
  s->flow_rows = flow->row_count;
  s->slice_rows = n;
  return WEFT_OK;
}

/* ---- the walk ---- */

static int op_flow_enqueue(op_flow_state *s, op_flow_cursor *cur, uint32_t slice,
                           uint8_t visit) {
  if (s->seen[slice] == s->generation) return WEFT_OK;
  s->seen[slice] = s->generation;
  return VEC_PUSH(cur->queue, ((op_flow_item){slice, visit}));
}

/* Lists the flows of `slice` by one end (outgoing: by slice_out) and queues
 * the slices at their other ends. */
static int op_flow_go(op_flow_state *s, op_flow_cursor *cur, uint32_t slice,
                      int outgoing) {
  const op_flow_csr *c = outgoing ? &s->by_out : &s->by_in;
  size_t other = outgoing ? FLOW_slice_in : FLOW_slice_out;
  for (uint32_t i = c->start[slice]; i < c->start[slice + 1]; i++) {
    uint32_t f = c->flows[i];
    if (VEC_PUSH(cur->flows, f)) return WEFT_ENOMEM;
    int64_t next = storage_get_i64(s->flow, other, f);
    if (next < 0 || (uint64_t)next >= s->slice_rows) continue;
    if (op_flow_enqueue(s, cur, (uint32_t)next,
                        outgoing ? OP_VISIT_VIA_OUT : OP_VISIT_VIA_IN))
      return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

static int op_flow_go_to_relatives(op_flow_state *s, op_flow_cursor *cur,
                                   uint32_t slice, int mode) {
  if (mode == OP_FLOW_DIRECT) return WEFT_OK;
  cur->relatives.len = 0;
  int rc = mode == OP_FLOW_FOLLOWING
               ? op_slice_descendants(s->slices, slice, &cur->relatives)
               : op_slice_ancestors(s->slices->slices, slice, &cur->relatives);
  for (size_t i = 0; rc == WEFT_OK && i < cur->relatives.len; i++)
    rc = op_flow_enqueue(s, cur, cur->relatives.data[i], OP_VISIT_RELATIVE);
  return rc;
}

/* Slices visited between two looks at the interrupt flag. */
#define OP_FLOW_INTERRUPT_STRIDE 4096

static int op_flow_walk(op_flow_state *s, op_flow_cursor *cur, uint32_t start, int mode) {
  if (++s->generation == 0) { /* stamps wrapped: clear them */
    memset(s->seen, 0, s->slice_rows * sizeof *s->seen);
    s->generation = 1;
  }
  cur->queue.len = 0;
  int rc = op_flow_enqueue(s, cur, start, OP_VISIT_START);
  const int *interrupted = sql_engine_interrupt_flag(s->engine);
  for (size_t head = 0; rc == WEFT_OK && head < cur->queue.len; head++) {
    /* A walk over a large flow graph stops when the query is interrupted. */
    if (head % OP_FLOW_INTERRUPT_STRIDE == 0 && __atomic_load_n(interrupted, __ATOMIC_RELAXED))
      return WEFT_EABORT;
    op_flow_item item = cur->queue.data[head];
    if (item.visit != OP_VISIT_RELATIVE)
      rc = op_flow_go_to_relatives(s, cur, item.slice, mode);
    if (rc == WEFT_OK && mode != OP_FLOW_FOLLOWING && item.visit != OP_VISIT_VIA_OUT)
      rc = op_flow_go(s, cur, item.slice, 0);
    if (rc == WEFT_OK && mode != OP_FLOW_PRECEDING && item.visit != OP_VISIT_VIA_IN)
      rc = op_flow_go(s, cur, item.slice, 1);
  }
  return rc;
}

/* ---- the virtual tables ---- */

static const char *const op_flow_names[] = {"following_flow", "preceding_flow",
                                            "directly_connected_flow"};

static int op_flow_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                           sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)errmsg;
  if (sqlite3_declare_vtab(db, "CREATE TABLE x(id BIGINT, slice_out BIGINT, "
                               "slice_in BIGINT, trace_id BIGINT, "
                               "arg_set_id BIGINT, start_id HIDDEN)") != SQLITE_OK)
    return SQLITE_ERROR;
  op_flow_table *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->state = aux;
  for (int m = 0; m < 3; m++)
    if (strcmp(argv[0], op_flow_names[m]) == 0) vt->mode = m;
  *out = &vt->base;
  return SQLITE_OK;
}

static int op_flow_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

static int op_flow_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  (void)base;
  return op_best_index_start_id(info, 5);
}

static int op_flow_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  op_flow_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  *out = &cur->base;
  return SQLITE_OK;
}

static int op_flow_close(sqlite3_vtab_cursor *base) {
  op_flow_cursor *cur = (op_flow_cursor *)base;
  VEC_FREE(cur->flows);
  VEC_FREE(cur->queue);
  VEC_FREE(cur->relatives);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int op_flow_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str,
                          int argc, sqlite3_value **argv) {
  (void)idx_num, (void)idx_str;
  op_flow_cursor *cur = (op_flow_cursor *)base;
  op_flow_table *vt = (op_flow_table *)base->pVtab;
  op_flow_state *s = vt->state;
  cur->flows.len = cur->pos = 0;
  int64_t id = 0;
  const char *msg = NULL;
  int arg = argc == 1 ? op_read_start_id(argv[0], &id, &msg) : 1;
  if (arg < 0) return op_vtab_error(base->pVtab, "%s", msg);
  if (arg > 0) return SQLITE_OK;
  const storage_table *slices =
      sql_engine_find_table(s->engine, schema_tables[TABLE_SLICE].name);
  const storage_table *flow =
      sql_engine_find_table(s->engine, schema_tables[TABLE_FLOW].name);
  if (!slices || !flow || id < 0 || (uint64_t)id >= slices->row_count)
    return op_vtab_error(base->pVtab, "invalid slice id %lld", (long long)id);
  int rc = op_slice_index_ensure(s->slices, slices);
  if (rc == WEFT_OK) rc = op_flow_index_ensure(s, flow, slices);
  if (rc == WEFT_OK) rc = op_flow_walk(s, cur, (uint32_t)id, vt->mode);
  if (rc == WEFT_EABORT) return SQLITE_INTERRUPT;
  return rc == WEFT_OK ? SQLITE_OK : SQLITE_NOMEM;
}

static int op_flow_next(sqlite3_vtab_cursor *base) {
  ((op_flow_cursor *)base)->pos++;
  return SQLITE_OK;
}

static int op_flow_eof(sqlite3_vtab_cursor *base) {
  op_flow_cursor *cur = (op_flow_cursor *)base;
  return cur->pos >= cur->flows.len;
}

static int op_flow_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col) {
  op_flow_cursor *cur = (op_flow_cursor *)base;
  op_flow_state *s = ((op_flow_table *)base->pVtab)->state;
  if (col == 0) {
    sqlite3_result_int64(ctx, (sqlite3_int64)cur->pos);
  } else if (col > 0 && col < FLOW_COLUMN_COUNT) {
    op_result_cell(ctx, s->flow, sql_engine_strings(s->engine), (size_t)col,
                   cur->flows.data[cur->pos]);
  }
  return SQLITE_OK;
}

static int op_flow_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((op_flow_cursor *)base)->pos;
  return SQLITE_OK;
}

static const sqlite3_module op_flow_module = {
    .iVersion = 0,
    .xConnect = op_flow_connect,
    .xBestIndex = op_flow_best_index,
    .xDisconnect = op_flow_disconnect,
    .xDestroy = op_flow_disconnect,
    .xOpen = op_flow_open,
    .xClose = op_flow_close,
    .xFilter = op_flow_filter,
    .xNext = op_flow_next,
    .xEof = op_flow_eof,
    .xColumn = op_flow_column,
    .xRowid = op_flow_rowid,
};

static void op_flow_state_free(void *p) {
  op_flow_state *s = p;
  op_flow_index_free(s);
  base_free(s);
}

int op_flow_register(sqlite3 *db, sql_engine *e, op_slice_index *slices) {
  op_flow_state *s = base_calloc(1, sizeof *s);
  if (!s) return WEFT_ENOMEM;
  s->engine = e;
  s->slices = slices;
  for (int m = 0; m < 3; m++)
    if (sqlite3_create_module_v2(db, op_flow_names[m], &op_flow_module, s,
                                 m == 0 ? op_flow_state_free : NULL) != SQLITE_OK)
      return WEFT_ESQL;
  return WEFT_OK;
}
