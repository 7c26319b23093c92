/* vtab: one read-only, eponymous SQLite virtual-table module serving any
 * storage_table from its schema.
 *
 * Pushdown: `=` on the id column (one row), `= < <= > >=` on an id column or a
 * column whose `sorted` flag holds (binary search to a row range), and
 * equality on any other int/string column checked in C before SQLite sees the
 * row. No constraint is omitted: SQLite re-checks every one, so the narrowing
 * only has to keep a superset of the answer (this keeps type-affinity rules
 * SQLite's own). ORDER BY on the id or a sorted column, ascending, is reported
 * as consumed so SQLite skips its sort. A table with indexes (sql.h) is read
 * through the one whose leading columns the constraints cover best: rows
 * then come in that index's order. A scan of the whole table for another
 * ORDER BY or a GROUP BY reads the rows through a row order made once and
 * cached (vtab_order.c), so SQLite neither sorts nor builds a B-tree. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>

#include "sql/sql.h"
#include "sql/vtab_filter.h"
#include "sql/vtab_view.h"

/* One planned constraint, encoded in idxStr as "<col>:<op>," repeated. */
enum vtab_op { OP_EQ, OP_LT, OP_LE, OP_GT, OP_GE };

typedef struct vtab_table {
  sqlite3_vtab base;       /* must be first */
  storage_table *table;    /* the served table; owned by the engine */
  base_string_pool *strings;
  sql_scan_stats *stats;   /* rows visited, for benchmarks; may be NULL */
  sql_vtab_aux *aux;       /* its current indexes, its cached orders */
  sql_view *view;          /* served as this view of the table, or NULL */
} vtab_table;

typedef struct vtab_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  size_t row;               /* current row */
  size_t end;               /* one past the last candidate row (or position) */
  const uint32_t *order;    /* an index's or a row order's rows: row = order[pos]; or NULL */
  size_t pos;               /* with an index: the current position */
  size_t row_lo, row_hi;    /* with an index: the rows other constraints allow */
  vtab_filter filters[16];  /* per-row checks (constraints on unordered columns) */
  int filter_count;
  /* A scan in row order with filters checks them a block at a time: the
   * rows of [block_from, block_to) that pass are block_from + passed[i]
   * for i < passed_count; row is the passed_at'th. */
  int by_block;
  int checks_rows; /* vtab_checks_rows, fixed by xFilter */
  size_t block_from, block_to;
  uint16_t passed_count, passed_at;
  uint16_t passed[VTAB_FILTER_BLOCK];
  const sql_vtab_order *row_order; /* the row order read, or NULL */
  sql_vtab_order *owned_order;     /* an order made for this scan alone, or NULL */
  string_id view_strings[SQL_VIEW_MAX_CHECKS][SQL_VIEW_MAX_IN]; /* of the view's checks */
} vtab_cursor;

/* ---- schema declaration ---- */

static const char *vtab_sql_type(storage_type type) {
  switch (type) {
    case STORAGE_F64: return "DOUBLE";
    case STORAGE_STR: return "TEXT";
    default: return "BIGINT";
  }
}

static int vtab_declare(sqlite3 *db, const storage_table *t, const sql_view *view) {
  base_buf sql;
  base_buf_init(&sql, 0);
  if (view) {
    int rc = sql_view_declaration(view, &sql);
    if (rc == 0) rc = sqlite3_declare_vtab(db, sql.data) == SQLITE_OK ? 0 : -1;
    base_buf_free(&sql);
    return rc;
  }
  int rc = base_buf_append(&sql, "CREATE TABLE x(", 15);
  for (size_t i = 0; rc == 0 && i < t->column_count; i++) {
    rc = base_buf_appendf(&sql, "%s\"%s\" %s%s", i ? ", " : "",
                          t->defs[i].name, vtab_sql_type(t->defs[i].type),
                          (t->defs[i].flags & STORAGE_HIDDEN) ? " HIDDEN" : "");
  }
  if (rc == 0) rc = base_buf_append(&sql, ")", 1);
  if (rc == 0) rc = sqlite3_declare_vtab(db, sql.data) == SQLITE_OK ? 0 : -1;
  base_buf_free(&sql);
  return rc;
}

/* xConnect: eponymous tables are connected, never created; a table filled
 * on demand is filled first (connecting precedes any planning or read). A
 * view connects to its table's aux. */
static int vtab_connect_to(sqlite3 *db, sql_vtab_aux *a, sql_view *view,
                           sqlite3_vtab **out) {
  if (a->fill) {
    int filled = a->fill(a->fill_user);
    if (filled) return filled == WEFT_ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
  }
  int declared = vtab_declare(db, a->table, view);
  if (declared != 0) return declared == WEFT_ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
  vtab_table *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->table = a->table;
  vt->strings = a->strings;
  vt->stats = a->stats;
  vt->aux = a;
  vt->view = view;
  *out = &vt->base;
  return SQLITE_OK;
}

static int vtab_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)argv, (void)errmsg;
  return vtab_connect_to(db, aux, NULL, out);
}

static int vtab_view_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                             sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)argv, (void)errmsg;
  sql_view *view = aux;
  return vtab_connect_to(db, view->aux, view, out);
}

static int vtab_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* ---- planning ---- */

static int vtab_op_from_sqlite(unsigned char op) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return OP_EQ;
    case SQLITE_INDEX_CONSTRAINT_LT: return OP_LT;
    case SQLITE_INDEX_CONSTRAINT_LE: return OP_LE;
    case SQLITE_INDEX_CONSTRAINT_GT: return OP_GT;
    case SQLITE_INDEX_CONSTRAINT_GE: return OP_GE;
    default: return -1;
  }
}

/* The table's column behind column `col` of the virtual table (-1: the
 * rowid), or -2 for a view's computed column, whose constraints and order
 * SQLite handles itself. */
static int vtab_base_column(const vtab_table *vt, int col) {
  if (!vt->view || col < 0) return col;
  if ((size_t)col >= vt->view->column_count) return -2;
  const sql_view_column *c = &vt->view->columns[col];
  return c->kind == SQL_VIEW_BASE ? c->base : -2;
}

/* The share of the table's rows a view's checks keep (1 for a table),
 * counted once per size of the table. Only the checks of values count,
 * as they did when SQLite passed them to the table as constraints: a
 * NOT NULL check is left out of the estimate, which keeps SQLite reading
 * a join's small ordered table first (thread by name, then its tracks)
 * rather than sorting the join's rows for a GROUP BY. */
static double vtab_view_share(vtab_table *vt) {
  sql_view *v = vt->view;
  size_t n = vt->table->row_count;
  if (!v || !v->check_count || n == 0) return 1;
  if (v->share_rows != n) {
    string_id strs[SQL_VIEW_MAX_CHECKS][SQL_VIEW_MAX_IN];
    sql_view_check_strings(v, vt->strings, strs);
    size_t kept = 0;
    for (size_t row = 0; row < n; row++) kept += (size_t)sql_view_row_values_pass(v, strs, row);
    v->share = (double)(kept ? kept : 1) / (double)n;
    v->share_rows = n;
  }
  return v->share;
}

static int vtab_column_is_ordered(const storage_table *t, int col) {
  if (col < 0) return 1; /* rowid = id */
  return t->columns[col].sorted &&
         (t->defs[col].type == STORAGE_ID || t->defs[col].type == STORAGE_I64 ||
          t->defs[col].type == STORAGE_F64);
}

static int vtab_index_has_column(const sql_vtab_aux *a, int col) {
  for (size_t k = 0; k < a->index_count; k++)
    for (size_t c = 0; c < a->indexes[k].column_count; c++)
      if (a->indexes[k].columns[c] == col) return 1;
  return 0;
}

/* How many leading columns of index `ix` the usable constraints cover
 * (equalities, then one range), as a score; 0 if none. */
static int vtab_index_score(const sql_vtab_index *ix, const sqlite3_index_info *info) {
  int score = 0;
  for (size_t c = 0; c < ix->column_count; c++) {
    int eq = 0, range = 0;
    for (int i = 0; i < info->nConstraint; i++) {
      const struct sqlite3_index_constraint *k = &info->aConstraint[i];
      int op = vtab_op_from_sqlite(k->op);
      if (!k->usable || op < 0 || k->iColumn != ix->columns[c]) continue;
      if (op == OP_EQ) eq = 1;
      else range = 1;
    }
    if (eq) score += 2;
    else return score + range;
  }
  return score;
}

/* The index to read through (its number + 1), or 0. */
static int vtab_choose_index(const sql_vtab_aux *a, const sqlite3_index_info *info) {
  int best = 0, best_score = 0;
  for (size_t k = 0; k < a->index_count; k++) {
    int score = vtab_index_score(&a->indexes[k], info);
    if (score > best_score) {
      best_score = score;
      best = (int)k + 1;
    }
  }
  return best;
}

/* A whole-table scan asked for an ORDER BY or GROUP BY of its columns
 * reads the rows through a sorted row order (vtab_order.c) instead of
 * SQLite's sorter: the plan is "O" and a "<col>:<desc>," per term in
 * idxStr. A GROUP BY gets fully sorted rows too, not only grouped ones:
 * SQLite may use them for an ORDER BY of the same columns. DISTINCT is left
 * to SQLite. */
static int vtab_plan_order(sqlite3_index_info *info, const vtab_table *vt) {
  const storage_table *t = vt->table;
  int mode = sqlite3_vtab_distinct(info);
  if ((mode != 0 && mode != 1) || info->nOrderBy < 1 ||
      info->nOrderBy > SQL_ORDER_MAX_COLUMNS)
    return SQLITE_OK;
  char plan[8 + SQL_ORDER_MAX_COLUMNS * 16];
  size_t len = (size_t)snprintf(plan, sizeof plan, "O");
  for (int i = 0; i < info->nOrderBy; i++) {
    int col = vtab_base_column(vt, info->aOrderBy[i].iColumn);
    if (col >= (int)t->column_count || col < -1) return SQLITE_OK;
    len += (size_t)snprintf(plan + len, sizeof plan - len, "%d:%d,", col,
                            info->aOrderBy[i].desc ? 1 : 0);
  }
  info->idxStr = sqlite3_mprintf("%s", plan);
  if (!info->idxStr) return SQLITE_NOMEM;
  info->needToFreeIdxStr = 1;
  info->orderByConsumed = 1;
  return SQLITE_OK;
}

/* The order spec of a plan made by vtab_plan_order; 0 if `plan` is not
 * one. */
static int vtab_parse_order(const char *plan, sql_order_spec *spec) {
  if (!plan || plan[0] != 'O') return 0;
  memset(spec, 0, sizeof *spec);
  const char *p = plan + 1;
  while (*p && spec->count < SQL_ORDER_MAX_COLUMNS) {
    int col = 0, desc = 0, used = 0;
    if (sscanf(p, "%d:%d,%n", &col, &desc, &used) != 2 || used == 0) return 0;
    p += used;
    spec->columns[spec->count] = col;
    spec->desc[spec->count++] = (uint8_t)desc;
  }
  return spec->count > 0;
}

/* Whether constraint i, narrowed in xFilter by binary search, leaves
 * exactly the rows it accepts, so SQLite need not check it again: an
 * integer constant compared with the id, or with a sorted int column that
 * holds no NULL (SQLite's own comparison of an int column with an int
 * is the same as ours). */
static int vtab_constraint_is_exact(sqlite3_index_info *info, int i, const storage_table *t,
                                    int col, int ordered) {
  sqlite3_value *rhs = NULL;
  if (!ordered || sqlite3_vtab_rhs_value(info, i, &rhs) != SQLITE_OK || !rhs ||
      sqlite3_value_type(rhs) != SQLITE_INTEGER)
    return 0;
  if (col < 0 || t->defs[col].type == STORAGE_ID) return 1;
  return t->defs[col].type == STORAGE_I64 && !(t->defs[col].flags & STORAGE_NULLABLE);
}

/* Whether constraint i, a range on an unordered column, can be checked per
 * row in C: an int column against a constant number (against another
 * table's column it stays SQLite's, as it was). */
static int vtab_range_filter_usable(sqlite3_index_info *info, int i, const storage_table *t,
                                    int col) {
  sqlite3_value *rhs = NULL;
  if (col < 0 || t->defs[col].type != STORAGE_I64) return 0;
  if (sqlite3_vtab_rhs_value(info, i, &rhs) != SQLITE_OK || !rhs) return 0;
  int type = sqlite3_value_type(rhs);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}

/* The share of the table's rows that constraint i, `col = x`, keeps: its
 * estimate for the constant x, or for any one value when x is another
 * table's column. */
static double vtab_equal_share(vtab_table *vt, sqlite3_index_info *info, int i, int col) {
  sqlite3_value *rhs = NULL;
  if (sqlite3_vtab_rhs_value(info, i, &rhs) != SQLITE_OK) rhs = NULL;
  double total = (double)vt->table->row_count;
  if (total < 1) return 1;
  return sql_vtab_estimate_equal(vt->aux, col, rhs) / total;
}

/* xBestIndex: choose the usable constraints and estimate the cost. */
static int vtab_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  vtab_table *vt = (vtab_table *)base;
  const storage_table *t = vt->table;
  double rows = (double)t->row_count + 1;
  char plan[16 * 16];
  size_t plan_len = 0;
  int argc = 0, unique = 0;
  for (int i = 0; i < info->nConstraint && argc < 16; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int op = vtab_op_from_sqlite(c->op);
    if (!c->usable || op < 0) continue;
    int col = vtab_base_column(vt, c->iColumn);
    if (col >= (int)t->column_count || col == -2) continue;
    int ordered = vtab_column_is_ordered(t, col);
    int is_id = col < 0 || t->defs[col].type == STORAGE_ID;
    int indexed = col >= 0 && vtab_index_has_column(vt->aux, col);
    int range_filter = !ordered && !indexed && op != OP_EQ;
    if (range_filter && !vtab_range_filter_usable(info, i, t, col)) continue;
    if (col >= 0 && t->defs[col].type == STORAGE_F64 && !ordered && !indexed) continue;
    info->aConstraintUsage[i].argvIndex = ++argc;
    info->aConstraintUsage[i].omit = vtab_constraint_is_exact(info, i, t, col, ordered || range_filter);
    plan_len += (size_t)snprintf(plan + plan_len, sizeof plan - plan_len,
                                 "%d:%d,", col < 0 ? -1 : col, op);
    if (op == OP_EQ && is_id) {
      unique = 1;
      rows = 1;
    } else if (op == OP_EQ) {
      rows *= vtab_equal_share(vt, info, i, col);
    } else {
      rows = rows / 3 + 1;
    }
  }
  int index = unique || vt->view ? 0 : vtab_choose_index(vt->aux, info);
  if (index) rows = rows / 100 + 1;
  info->idxNum = index;
  if (unique) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  if (rows < 1) rows = 1;
  /* A view's checks keep a share of the rows a scan visits: its cost is
   * the rows visited, its result fewer. Rows an `=` finds are taken to be
   * the view's (thread_track's rows of a utid are thread tracks). */
  double kept = argc ? rows : rows * vtab_view_share(vt);
  info->estimatedRows = (sqlite3_int64)(kept < 1 ? 1 : kept);
  info->estimatedCost = rows;
  if (argc) {
    info->idxStr = sqlite3_mprintf("%s", plan);
    if (!info->idxStr) return SQLITE_NOMEM;
    info->needToFreeIdxStr = 1;
  }
  /* Through an index rows come in its order, which is also the order of
   * its first column. */
  int order_col = info->nOrderBy == 1 && !info->aOrderBy[0].desc
                      ? vtab_base_column(vt, info->aOrderBy[0].iColumn)
                      : -2;
  if (order_col != -2 && (index ? vt->aux->indexes[index - 1].columns[0] == order_col
                                : vtab_column_is_ordered(t, order_col)))
    info->orderByConsumed = 1;
  else if (!argc && !index)
    return vtab_plan_order(info, vt);
  return SQLITE_OK;
}

/* ---- scanning ---- */

static int vtab_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  vtab_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  *out = &cur->base;
  return SQLITE_OK;
}

static int vtab_close(sqlite3_vtab_cursor *base) {
  vtab_cursor *cur = (vtab_cursor *)base;
  sql_vtab_order_free(cur->owned_order);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* Narrows [*lo, *hi) for `col op value` on an ordered column. Values that are
 * not numbers leave the range as it is (SQLite re-checks). */
static void vtab_narrow_range(const storage_table *t, int col, int op,
                              sqlite3_value *value, size_t *lo, size_t *hi) {
  int vtype = sqlite3_value_numeric_type(value);
  if (vtype != SQLITE_INTEGER && vtype != SQLITE_FLOAT) return;
  int is_double_col = col >= 0 && t->defs[col].type == STORAGE_F64;
  size_t (*bound_i)(const storage_table *, size_t, size_t, size_t, int64_t,
                    int) = storage_lower_bound_i64;
  int64_t iv = 0;
  double dv = sqlite3_value_double(value);
  if (!is_double_col) {
    if (vtype == SQLITE_INTEGER) {
      iv = sqlite3_value_int64(value);
    } else {
      /* Round outwards so the range stays a superset. */
      double r = (op == OP_LT || op == OP_LE) ? ceil(dv) : floor(dv);
      if (isnan(r)) return;
      if (r >= 9.2e18) iv = INT64_MAX;
      else if (r <= -9.2e18) iv = INT64_MIN;
      else iv = (int64_t)r;
      if (op == OP_LT) op = OP_LE;
      if (op == OP_GT) op = OP_GE;
      if (op == OP_EQ) { /* floor(dv)..ceil(dv) */
        size_t a = bound_i(t, (size_t)(col < 0 ? 0 : col), *lo, *hi, (int64_t)floor(dv), 0);
        size_t b = bound_i(t, (size_t)(col < 0 ? 0 : col), *lo, *hi, (int64_t)ceil(dv), 1);
        *lo = a, *hi = b > a ? b : a;
        return;
      }
    }
  }
  size_t c = (size_t)(col < 0 ? 0 : col);
  if (col < 0 || t->defs[col].type == STORAGE_ID) {
    /* id column: rows are their own ids. */
    int64_t n = (int64_t)t->row_count;
    int64_t first = 0, last = n; /* [first, last) */
    switch (op) {
      case OP_EQ: first = iv; last = iv < INT64_MAX ? iv + 1 : iv; break;
      case OP_LT: last = iv; break;
      case OP_LE: last = iv < INT64_MAX ? iv + 1 : iv; break;
      case OP_GT: first = iv < INT64_MAX ? iv + 1 : iv; break;
      case OP_GE: first = iv; break;
    }
    if (first < 0) first = 0;
    if (last > n) last = n;
    if ((size_t)first > *lo) *lo = first > last ? (size_t)last : (size_t)first;
    if (last >= 0 && (size_t)last < *hi) *hi = (size_t)last;
    if (*lo > *hi) *lo = *hi;
    return;
  }
  size_t a = *lo, b = *hi;
  if (is_double_col) {
    if (op == OP_EQ || op == OP_GE) a = storage_lower_bound_f64(t, c, *lo, *hi, dv, 0);
    if (op == OP_GT) a = storage_lower_bound_f64(t, c, *lo, *hi, dv, 1);
    if (op == OP_EQ || op == OP_LE) b = storage_lower_bound_f64(t, c, *lo, *hi, dv, 1);
    if (op == OP_LT) b = storage_lower_bound_f64(t, c, *lo, *hi, dv, 0);
  } else {
    if (op == OP_EQ || op == OP_GE) a = bound_i(t, c, *lo, *hi, iv, 0);
    if (op == OP_GT) a = bound_i(t, c, *lo, *hi, iv, 1);
    if (op == OP_EQ || op == OP_LE) b = bound_i(t, c, *lo, *hi, iv, 1);
    if (op == OP_LT) b = bound_i(t, c, *lo, *hi, iv, 0);
  }
  *lo = a;
  *hi = b > a ? b : a;
}

/* The int values x with `x op v` for a number v, as [*lo, *hi]; 0, or -1
 * when v is not a number SQLite compares the same way (NaN). */
static int vtab_int_range(int op, sqlite3_value *value, int64_t *lo, int64_t *hi) {
  *lo = INT64_MIN;
  *hi = INT64_MAX;
  if (sqlite3_value_type(value) == SQLITE_INTEGER) {
    int64_t v = sqlite3_value_int64(value);
    switch (op) {
      case OP_LT:
        if (v == INT64_MIN) *lo = 1, *hi = 0;
        else *hi = v - 1;
        break;
      case OP_LE: *hi = v; break;
      case OP_GT:
        if (v == INT64_MAX) *lo = 1, *hi = 0;
        else *lo = v + 1;
        break;
      case OP_GE: *lo = v; break;
      default: return -1;
    }
    return 0;
  }
  double d = sqlite3_value_double(value);
  if (sqlite3_value_type(value) != SQLITE_FLOAT || d != d) return -1;
  /* Below -2^63 every int is above d, from 2^63 on every int below; in
   * between floor(d) and ceil(d) are ints. */
  const double top = 9223372036854775808.0;
  int ints_above = d < -top, ints_below = d >= top, empty = 0;
  switch (op) {
    case OP_LT: /* x < d: x <= ceil(d) - 1 */
      if (ints_above || ceil(d) == -top) empty = 1;
      else if (!ints_below) *hi = (int64_t)ceil(d) - 1;
      break;
    case OP_LE:
      if (ints_above) empty = 1;
      else if (!ints_below) *hi = (int64_t)floor(d);
      break;
    case OP_GT: /* x > d: x >= floor(d) + 1 */
      if (ints_below) empty = 1;
      else if (!ints_above) *lo = (int64_t)floor(d) + 1;
      break;
    case OP_GE:
      if (ints_below) empty = 1;
      else if (!ints_above) *lo = (int64_t)ceil(d);
      break;
    default: return -1;
  }
  if (empty) *lo = 1, *hi = 0;
  return 0;
}

/* Prepares a range check done in C for an unordered int column; 0, or -1
 * to leave it to SQLite. */
static int vtab_prepare_range_filter(vtab_table *vt, int col, int op, sqlite3_value *value,
                                     vtab_filter *f) {
  if (vt->table->defs[col].type != STORAGE_I64) return -1;
  if (vtab_int_range(op, value, &f->lo, &f->hi)) return -1;
  f->column = col;
  f->kind = VTAB_INT_RANGE;
  return 0;
}

/* Prepares an equality check done in C for a non-ordered column. Returns 0
 * when the check is exact enough to use, -1 to leave it to SQLite. */
static int vtab_prepare_filter(vtab_table *vt, int col, sqlite3_value *value,
                               vtab_filter *f) {
  const storage_table *t = vt->table;
  f->column = col;
  if (t->defs[col].type == STORAGE_STR) {
    if (sqlite3_value_type(value) != SQLITE_TEXT) return -1;
    const char *s = (const char *)sqlite3_value_text(value);
    int len = sqlite3_value_bytes(value);
    f->str = base_string_pool_find(vt->strings, s, (size_t)len);
    f->kind = f->str == STRING_NULL ? VTAB_NOTHING : VTAB_STR_EQUAL;
    return 0;
  }
  if (t->defs[col].type == STORAGE_I64 &&
      sqlite3_value_type(value) == SQLITE_INTEGER) {
    f->i64 = sqlite3_value_int64(value);
    f->kind = VTAB_INT_EQUAL;
    return 0;
  }
  return -1;
}

static int vtab_row_matches(const vtab_table *vt, const vtab_cursor *cur,
                            size_t row) {
  if (vt->view && !sql_view_row_passes(vt->view, cur->view_strings, row)) return 0;
  return vtab_filter_row(vt->table, cur->filters, cur->filter_count, row);
}

/* Rows skipped between two looks at the interrupt flag. */
#define VTAB_INTERRUPT_STRIDE 65536

static int vtab_interrupted(const vtab_table *vt) {
  return vt->aux->interrupted && __atomic_load_n(vt->aux->interrupted, __ATOMIC_RELAXED);
}

/* Whether rows are checked one by one (filters, or a view's checks). */
static inline int vtab_checks_rows(const vtab_table *vt, const vtab_cursor *cur) {
  return cur->filter_count || (vt->view && vt->view->check_count);
}

/* Moves to the next row the filters accept; SQLITE_INTERRUPT when the
 * engine was interrupted during a long run of rejected rows. */
static int vtab_skip_non_matching(vtab_cursor *cur) {
  const vtab_table *vt = (const vtab_table *)cur->base.pVtab;
  size_t skipped = 0;
  if (cur->order) {
    for (; cur->pos < cur->end; cur->pos++) {
      cur->row = cur->order[cur->pos];
      if (cur->row >= cur->row_lo && cur->row < cur->row_hi &&
          (!vtab_checks_rows(vt, cur) || vtab_row_matches(vt, cur, cur->row)))
        return SQLITE_OK;
      if (++skipped % VTAB_INTERRUPT_STRIDE == 0 && vtab_interrupted(vt))
        return SQLITE_INTERRUPT;
    }
    return SQLITE_OK;
  }
  while (cur->row < cur->end && vtab_checks_rows(vt, cur) &&
         !vtab_row_matches(vt, cur, cur->row)) {
    cur->row++;
    if (++skipped % VTAB_INTERRUPT_STRIDE == 0 && vtab_interrupted(vt))
      return SQLITE_INTERRUPT;
  }
  return SQLITE_OK;
}

/* In a scan by blocks: moves to the next row that passes, filling the
 * next blocks as needed (a view's own checks, if any, row by row); row
 * is end when none is left. */
static int vtab_next_passed(vtab_cursor *cur) {
  const vtab_table *vt = (const vtab_table *)cur->base.pVtab;
  int view_checks = vt->view && vt->view->check_count;
  for (;;) {
    while (++cur->passed_at < cur->passed_count) {
      cur->row = cur->block_from + cur->passed[cur->passed_at];
      if (!view_checks || sql_view_row_passes(vt->view, cur->view_strings, cur->row))
        return SQLITE_OK;
    }
    size_t from = cur->block_to;
    if (from >= cur->end) {
      cur->row = cur->end;
      return SQLITE_OK;
    }
    if (vtab_interrupted(vt)) return SQLITE_INTERRUPT;
    size_t count = cur->end - from < VTAB_FILTER_BLOCK ? cur->end - from : VTAB_FILTER_BLOCK;
    cur->block_from = from;
    cur->block_to = from + count;
    cur->passed_count = (uint16_t)vtab_filter_block(vt->table, cur->filters, cur->filter_count,
                                                    from, count, cur->passed);
    cur->passed_at = UINT16_MAX; /* the loop's ++ makes it 0 */
  }
}

/* Narrows the positions of index `ix` with the plan's constraints on its
 * leading columns: equalities, then the ranges of the next column. */
static void vtab_index_narrow(const vtab_table *vt, const sql_vtab_index *ix,
                              const int *cols, const int *ops, sqlite3_value **argv,
                              int argc, size_t *lo, size_t *hi) {
  for (size_t c = 0; c < ix->column_count; c++) {
    int has_eq = 0, has_range = 0;
    for (int i = 0; i < argc; i++) {
      if (cols[i] != ix->columns[c]) continue;
      if (ops[i] == OP_EQ) has_eq = 1;
      else has_range = 1;
    }
    if (!has_eq && !has_range) return;
    for (int i = 0; i < argc; i++)
      if (cols[i] == ix->columns[c] && (has_eq ? ops[i] == OP_EQ : 1))
        sql_vtab_index_narrow(ix, vt->table, vt->strings, c, ops[i], argv[i], lo, hi);
    if (!has_eq) return;
  }
}

/* Tables smaller than this are scanned; their rows are cheap to check. */
#define VTAB_LOOKUP_MIN_ROWS 4096
/* Scans checking `=` on a column row by row before it gets a row order to
 * look values up in (a join probes one table many times; a single query
 * should not pay for a sort it needs once). */
#define VTAB_LOOKUP_AFTER_SCANS 3

/* Reads the rows of the cursor's first `=` check through the row order of
 * its column, from the first equal row to the last, when the column has
 * been scanned for `=` often enough. Rows keep their id order. */
static int vtab_lookup_equal(vtab_table *vt, vtab_cursor *cur, size_t lo, size_t hi) {
  const storage_table *t = vt->table;
  sql_vtab_aux *aux = vt->aux;
  const vtab_filter *f = NULL;
  for (int i = 0; i < cur->filter_count && !f; i++)
    if (cur->filters[i].kind == VTAB_INT_EQUAL || cur->filters[i].kind == VTAB_STR_EQUAL)
      f = &cur->filters[i];
  if (!f || t->row_count < VTAB_LOOKUP_MIN_ROWS) return SQLITE_OK;
  if (!aux->equality_scans &&
      !(aux->equality_scans = base_calloc(t->column_count, sizeof *aux->equality_scans)))
    return SQLITE_OK; /* no memory for counting: scan */
  if (aux->equality_scans[f->column] < VTAB_LOOKUP_AFTER_SCANS) {
    aux->equality_scans[f->column]++;
    return SQLITE_OK;
  }
  sql_order_spec spec = {.columns = {f->column}, .count = 1};
  int rc = sql_vtab_order_get(aux, &spec, &cur->row_order, &cur->owned_order);
  if (rc != WEFT_OK) return rc == WEFT_ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
  cur->order = cur->row_order->rows;
  sql_vtab_order_equal_range(aux, f->column, cur->order, f->i64, f->str, &cur->pos, &cur->end);
  cur->row_lo = lo;
  cur->row_hi = hi;
  return SQLITE_OK;
}

/* xFilter: decode the plan, narrow the row range, set per-row checks. */
static int vtab_filter_fn(sqlite3_vtab_cursor *base, int idx_num,
                          const char *idx_str, int argc,
                          sqlite3_value **argv) {
  (void)idx_num;
  vtab_cursor *cur = (vtab_cursor *)base;
  vtab_table *vt = (vtab_table *)base->pVtab;
  const storage_table *t = vt->table;
  size_t lo = 0, hi = t->row_count;
  cur->filter_count = 0;
  if (vt->view) sql_view_check_strings(vt->view, vt->strings, cur->view_strings);
  const sql_vtab_index *ix =
      idx_num > 0 && (size_t)idx_num <= vt->aux->index_count ? &vt->aux->indexes[idx_num - 1]
                                                             : NULL;
  int cols[16], ops[16], planned = 0;
  const char *p = idx_str;
  for (int i = 0; p && *p && i < argc && i < 16; i++) {
    int col = 0, op = 0, used = 0;
    if (sscanf(p, "%d:%d,%n", &col, &op, &used) != 2 || used == 0) break;
    p += used;
    cols[planned] = col;
    ops[planned++] = op;
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) {
      lo = hi; /* comparison with NULL matches nothing */
      continue;
    }
    if (vtab_column_is_ordered(t, col)) {
      vtab_narrow_range(t, col, op, argv[i], &lo, &hi);
    } else if (op == OP_EQ && cur->filter_count < 16 &&
               vtab_prepare_filter(vt, col, argv[i],
                                   &cur->filters[cur->filter_count]) == 0) {
      cur->filter_count++;
    } else if (op != OP_EQ && cur->filter_count < 16 && col >= 0 &&
               !(ix && vtab_index_has_column(vt->aux, col)) &&
               vtab_prepare_range_filter(vt, col, op, argv[i],
                                         &cur->filters[cur->filter_count]) == 0) {
      cur->filter_count++;
    }
  }
  cur->order = NULL;
  cur->row = lo;
  cur->end = hi;
  cur->row_order = NULL;
  sql_vtab_order_free(cur->owned_order);
  cur->owned_order = NULL;
  sql_order_spec spec;
  if (!planned && vtab_parse_order(idx_str, &spec)) {
    int rc = sql_vtab_order_get(vt->aux, &spec, &cur->row_order, &cur->owned_order);
    if (rc != WEFT_OK) return rc == WEFT_ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
    cur->order = cur->row_order->rows;
    cur->pos = 0;
    cur->row_lo = 0;
    cur->row_hi = cur->end = t->row_count;
  } else if (ix && ix->order && lo < hi) {
    size_t plo = 0, phi = t->row_count;
    vtab_index_narrow(vt, ix, cols, ops, argv, planned, &plo, &phi);
    cur->order = ix->order;
    cur->pos = plo;
    cur->end = phi;
    cur->row_lo = lo;
    cur->row_hi = hi;
  } else if (lo < hi) {
    int rc = vtab_lookup_equal(vt, cur, lo, hi);
    if (rc != SQLITE_OK) return rc;
  }
  if (vt->stats) vt->stats->scans++;
  cur->by_block = !cur->order && cur->filter_count > 0;
  cur->checks_rows = vtab_checks_rows(vt, cur);
  if (cur->by_block) {
    cur->block_from = cur->block_to = cur->row;
    cur->passed_count = cur->passed_at = 0;
    return vtab_next_passed(cur);
  }
  return vtab_skip_non_matching(cur);
}

static int vtab_next(sqlite3_vtab_cursor *base) {
  vtab_cursor *cur = (vtab_cursor *)base;
  if (cur->by_block) return vtab_next_passed(cur);
  if (cur->order) {
    cur->pos++;
    return vtab_skip_non_matching(cur);
  }
  cur->row++;
  return cur->checks_rows ? vtab_skip_non_matching(cur) : SQLITE_OK;
}

static int vtab_eof(sqlite3_vtab_cursor *base) {
  vtab_cursor *cur = (vtab_cursor *)base;
  vtab_table *vt = (vtab_table *)base->pVtab;
  int eof = (cur->order ? cur->pos : cur->row) >= cur->end;
  if (!eof && vt->stats) vt->stats->rows_visited++;
  return eof;
}

/* A column of the row order read, whose values are copied in its order:
 * read in sequence at the cursor's position. 1 if it was. */
static int vtab_ordered_column(const vtab_cursor *cur, const vtab_table *vt,
                               sqlite3_context *ctx, int col) {
  const sql_vtab_order *o = cur->row_order;
  for (unsigned c = 0; c < o->spec.count; c++) {
    if (o->spec.columns[c] != col || !o->values[c]) continue;
    if (vt->table->defs[col].type != STORAGE_STR) {
      sqlite3_result_int64(ctx, ((const int64_t *)o->values[c])[cur->pos]);
      return 1;
    }
    string_id id = ((const uint32_t *)o->values[c])[cur->pos];
    if (id != STRING_NULL)
      sqlite3_result_text(ctx, base_string_pool_get(vt->strings, id),
                          (int)base_string_pool_len(vt->strings, id), SQLITE_STATIC);
    return 1;
  }
  return 0;
}

static int vtab_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx,
                       int col) {
  vtab_cursor *cur = (vtab_cursor *)base;
  vtab_table *vt = (vtab_table *)base->pVtab;
  size_t row = cur->row;
  if (vt->view) {
    int base = vtab_base_column(vt, col);
    if (base < 0) {
      sql_view_result(vt->view, vt->strings, (size_t)col, row, ctx);
      return SQLITE_OK;
    }
    col = base;
  }
  if (cur->row_order && vtab_ordered_column(cur, vt, ctx, col)) return SQLITE_OK;
  sql_vtab_cell(ctx, vt->table, vt->strings, (size_t)col, row);
  return SQLITE_OK;
}

void sql_vtab_cell(sqlite3_context *ctx, const storage_table *t,
                   const base_string_pool *strings, size_t col, size_t row) {
  const storage_column *c = &t->columns[col];
  switch (t->defs[col].type) {
    case STORAGE_ID:
      sqlite3_result_int64(ctx, (sqlite3_int64)row);
      break;
    case STORAGE_I64: /* storage_is_null and storage_get_i64, read once */
      assert(row < t->row_count);
      if (c->nullable && (!c->present || !((c->present[row >> 6] >> (row & 63)) & 1))) break;
      sqlite3_result_int64(ctx, c->data ? storage_i64_element(c->data, c->width,
                                                              c->is_unsigned, row)
                                        : 0);
      break;
    case STORAGE_F64:
      if (storage_is_null(t, col, row)) break;
      sqlite3_result_double(ctx, storage_get_f64(t, col, row));
      break;
    case STORAGE_STR: {
      string_id id = storage_get_str(t, col, row);
      if (id == STRING_NULL) break;
      sqlite3_result_text(ctx, base_string_pool_get(strings, id),
                          (int)base_string_pool_len(strings, id), SQLITE_STATIC);
      break;
    }
  }
}

static int vtab_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((vtab_cursor *)base)->row;
  return SQLITE_OK;
}

/* The module: read-only, eponymous-only (xCreate NULL), no transactions;
 * the same for the tables and for the views of one table (vtab_view.h),
 * but for the connection. */
#define VTAB_MODULE(connect)                                                          \
  {                                                                                   \
    .iVersion = 0, .xCreate = NULL, .xConnect = (connect), .xBestIndex = vtab_best_index, \
    .xDisconnect = vtab_disconnect, .xDestroy = vtab_disconnect, .xOpen = vtab_open,  \
    .xClose = vtab_close, .xFilter = vtab_filter_fn, .xNext = vtab_next,              \
    .xEof = vtab_eof, .xColumn = vtab_column, .xRowid = vtab_rowid,                   \
  }
static const sqlite3_module vtab_module = VTAB_MODULE(vtab_connect);
static const sqlite3_module vtab_view_module = VTAB_MODULE(vtab_view_connect);

int sql_view_register(sqlite3 *db, sql_view *v) {
  return sqlite3_create_module_v2(db, v->name, &vtab_view_module, v, NULL) == SQLITE_OK
             ? WEFT_OK
             : WEFT_ESQL;
}

int sql_vtab_register(sqlite3 *db, sql_vtab_aux *aux) {
  return sqlite3_create_module_v2(db, aux->table->name, &vtab_module, aux,
                                  NULL) == SQLITE_OK
             ? WEFT_OK
             : WEFT_ESQL;
}
