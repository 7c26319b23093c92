/* op_intervals: the table-passing machinery of stdlib_ops.h (rows, the
 * __weft_rows_agg aggregate, a generic eponymous table-valued function) and
 * the interval operators.
 *
 * Interval intersection of k tables folds pairwise: each step sorts both
 * sides by (partition keys, ts) and sweeps them together keeping, per side,
 * the intervals still open at the sweep point. Two intervals a, b meet iff
 * they start together, or each starts before the other ends: so a
 * zero-length interval meets one starting at its point or strictly around
 * it, not one ending there, and intervals that only touch do not meet. The
 * piece is [max ts, min end). Cost is O(n log n) plus the output. */
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "sql/stdlib_ops.h"

#define OPS_POINTER_TYPE "weft_rows"

/* ---- rows ---- */

void stdlib_rows_init(stdlib_rows *r, int cols) {
  memset(r, 0, sizeof *r);
  r->cols = cols;
}

void stdlib_rows_free(stdlib_rows *r) {
  free(r->value);
  free(r->null);
  r->value = NULL;
  r->null = NULL;
  r->count = r->cap = 0;
}

int stdlib_rows_push(stdlib_rows *r, const int64_t *value, const uint8_t *null) {
  size_t cols = (size_t)r->cols;
  if (r->count == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 64;
    int64_t *v = realloc(r->value, cap * cols * sizeof *v);
    if (!v) return -1;
    r->value = v;
    uint8_t *n = realloc(r->null, cap * cols);
    if (!n) return -1;
    r->null = n;
    r->cap = cap;
  }
  memcpy(r->value + r->count * cols, value, cols * sizeof *value);
  if (null)
    memcpy(r->null + r->count * cols, null, cols);
  else
    memset(r->null + r->count * cols, 0, cols);
  r->count++;
  return 0;
}

const stdlib_rows *stdlib_rows_arg(sqlite3_value *v) {
  return sqlite3_value_pointer(v, OPS_POINTER_TYPE);
}

static void ops_rows_destroy(void *p) {
  stdlib_rows_free(p);
  free(p);
}

/* ---- __weft_rows_agg ---- */

typedef struct ops_agg {
  stdlib_rows *rows;
} ops_agg;

static void ops_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  ops_agg *agg = sqlite3_aggregate_context(ctx, sizeof *agg);
  if (!agg) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (argc < 1 || argc > STDLIB_ROWS_MAX_COLS) {
    sqlite3_result_error(ctx, "__weft_rows_agg: 1 to 12 columns", -1);
    return;
  }
  if (!agg->rows) {
    agg->rows = malloc(sizeof *agg->rows);
    if (!agg->rows) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    stdlib_rows_init(agg->rows, argc);
  }
  int64_t value[STDLIB_ROWS_MAX_COLS];
  uint8_t null[STDLIB_ROWS_MAX_COLS];
  for (int i = 0; i < argc; i++) {
    int type = sqlite3_value_type(argv[i]);
    if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
      sqlite3_result_error(ctx, "__weft_rows_agg: columns must be integers", -1);
      return;
    }
    null[i] = type == SQLITE_NULL;
    value[i] = null[i] ? 0 : sqlite3_value_int64(argv[i]);
  }
  if (stdlib_rows_push(agg->rows, value, null)) sqlite3_result_error_nomem(ctx);
}

static void ops_agg_final(sqlite3_context *ctx) {
  ops_agg *agg = sqlite3_aggregate_context(ctx, 0);
  stdlib_rows *rows = agg ? agg->rows : NULL;
  if (!rows) {
    rows = malloc(sizeof *rows);
    if (!rows) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    stdlib_rows_init(rows, 0);
  }
  if (agg) agg->rows = NULL;
  sqlite3_result_pointer(ctx, rows, OPS_POINTER_TYPE, ops_rows_destroy);
}

/* ---- generic table-valued function ---- */

typedef struct ops_vtab {
  sqlite3_vtab base; /* must be first */
  const stdlib_op_def *def;
} ops_vtab;

typedef struct ops_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  stdlib_rows rows;
  size_t row;
} ops_cursor;

static int ops_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)argv, (void)errmsg;
  const stdlib_op_def *def = aux;
  char *sql = sqlite3_mprintf("CREATE TABLE x(%s", def->columns);
  for (int i = 0; sql && i < def->max_args; i++) {
    char *next = sqlite3_mprintf("%s, arg%d HIDDEN", sql, i);
    sqlite3_free(sql);
    sql = next;
  }
  char *full = sql ? sqlite3_mprintf("%s)", sql) : NULL;
  sqlite3_free(sql);
  if (!full) return SQLITE_NOMEM;
  int rc = sqlite3_declare_vtab(db, full);
  sqlite3_free(full);
  if (rc != SQLITE_OK) return rc;
  ops_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->def = def;
  *out = &v->base;
  return SQLITE_OK;
}

static int ops_disconnect(sqlite3_vtab *vtab) {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

/* Every hidden argument given by `=` is passed, in argument order; fewer
 * than min_args makes the plan unusable. */
static int ops_best_index(sqlite3_vtab *vtab, sqlite3_index_info *info) {
  const stdlib_op_def *def = ((ops_vtab *)vtab)->def;
  int slot[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    int arg = c->iColumn - def->column_count;
    if (arg < 0 || arg >= def->max_args || arg >= 8) continue;
    if (c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c->usable) return SQLITE_CONSTRAINT;
    slot[arg] = i;
  }
  int given = 0;
  while (given < def->max_args && slot[given] >= 0) given++;
  if (given < def->min_args) return SQLITE_CONSTRAINT;
  for (int a = 0; a < given; a++) {
    info->aConstraintUsage[slot[a]].argvIndex = a + 1;
    info->aConstraintUsage[slot[a]].omit = 1;
  }
  info->idxNum = given;
  info->estimatedCost = 1000;
  return SQLITE_OK;
}

static int ops_open(sqlite3_vtab *vtab, sqlite3_vtab_cursor **out) {
  ops_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  stdlib_rows_init(&c->rows, ((ops_vtab *)vtab)->def->column_count);
  *out = &c->base;
  return SQLITE_OK;
}

static int ops_close(sqlite3_vtab_cursor *cur) {
  ops_cursor *c = (ops_cursor *)cur;
  stdlib_rows_free(&c->rows);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int ops_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str,
                      int argc, sqlite3_value **argv) {
  (void)idx_num, (void)idx_str;
  ops_cursor *c = (ops_cursor *)cur;
  ops_vtab *v = (ops_vtab *)cur->pVtab;
  stdlib_rows_free(&c->rows);
  stdlib_rows_init(&c->rows, v->def->column_count);
  c->row = 0;
  char *msg = NULL;
  if (v->def->compute(argv, argc, &c->rows, &msg) == 0) return SQLITE_OK;
  sqlite3_free(v->base.zErrMsg);
  v->base.zErrMsg = msg;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

static int ops_next(sqlite3_vtab_cursor *cur) {
  ((ops_cursor *)cur)->row++;
  return SQLITE_OK;
}

static int ops_eof(sqlite3_vtab_cursor *cur) {
  ops_cursor *c = (ops_cursor *)cur;
  return c->row >= c->rows.count;
}

static int ops_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  ops_cursor *c = (ops_cursor *)cur;
  if (col >= c->rows.cols || stdlib_rows_is_null(&c->rows, c->row, col)) return SQLITE_OK;
  sqlite3_result_int64(ctx, stdlib_rows_get(&c->rows, c->row, col));
  return SQLITE_OK;
}

static int ops_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = (sqlite3_int64)((ops_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module ops_module = {
    .iVersion = 0,
    .xConnect = ops_connect,
    .xBestIndex = ops_best_index,
    .xDisconnect = ops_disconnect,
    .xOpen = ops_open,
    .xClose = ops_close,
    .xFilter = ops_filter,
    .xNext = ops_next,
    .xEof = ops_eof,
    .xColumn = ops_column,
    .xRowid = ops_rowid,
};

int stdlib_op_register(sqlite3 *db, const stdlib_op_def *def) {
  return sqlite3_create_module_v2(db, def->name, &ops_module, (void *)def, NULL);
}

/* ---- interval intersection ---- */

#define II_MAX_TABLES 8
#define II_MAX_KEYS 4

typedef struct ii_item {
  int64_t ts, end;
  int64_t key[II_MAX_KEYS];
  uint8_t key_null[II_MAX_KEYS];
  int64_t id[II_MAX_TABLES];
  uint8_t id_null[II_MAX_TABLES];
} ii_item;

typedef struct ii_list {
  ii_item *item;
  size_t count, cap;
} ii_list;

static int ii_push(ii_list *l, const ii_item *it) {
  if (l->count == l->cap) {
    size_t cap = l->cap ? l->cap * 2 : 64;
    ii_item *p = realloc(l->item, cap * sizeof *p);
    if (!p) return -1;
    l->item = p;
    l->cap = cap;
  }
  l->item[l->count++] = *it;
  return 0;
}

/* Unused key slots are zero in every item, so comparing all of them is
 * comparing the used ones. */
static int ii_compare_keys(const ii_item *a, const ii_item *b) {
  for (int k = 0; k < II_MAX_KEYS; k++) {
    if (a->key_null[k] != b->key_null[k]) return a->key_null[k] ? -1 : 1;
    if (a->key[k] != b->key[k]) return a->key[k] < b->key[k] ? -1 : 1;
  }
  return 0;
}

static int ii_compare(const void *pa, const void *pb) {
  const ii_item *a = pa, *b = pb;
  int c = ii_compare_keys(a, b);
  if (c) return c;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return (a->end > b->end) - (a->end < b->end);
}

/* Reads one input table as items whose ids sit in slot 0. */
static int ii_read(const stdlib_rows *r, int keys, ii_list *out, char **errmsg) {
  for (size_t i = 0; i < r->count; i++) {
    if (stdlib_rows_is_null(r, i, 1) || stdlib_rows_is_null(r, i, 2) ||
        stdlib_rows_get(r, i, 2) < 0) {
      *errmsg = sqlite3_mprintf(
          "Interval intersect only works on intervals with non negative duration.");
      return -1;
    }
    ii_item it;
    memset(&it, 0, sizeof it);
    it.ts = stdlib_rows_get(r, i, 1);
    it.end = stdlib_add_saturating(it.ts, stdlib_rows_get(r, i, 2));
    it.id[0] = stdlib_rows_get(r, i, 0);
    it.id_null[0] = (uint8_t)stdlib_rows_is_null(r, i, 0);
    for (int k = 0; k < keys; k++) {
      it.key[k] = stdlib_rows_get(r, i, 3 + k);
      it.key_null[k] = (uint8_t)stdlib_rows_is_null(r, i, 3 + k);
    }
    if (ii_push(out, &it)) return -1;
  }
  return 0;
}

/* The open set of one side of the sweep: indexes into that side's items. */
typedef struct ii_open {
  size_t *at;
  size_t count, cap;
} ii_open;

static int ii_open_add(ii_open *o, size_t index) {
  if (o->count == o->cap) {
    size_t cap = o->cap ? o->cap * 2 : 16;
    size_t *p = realloc(o->at, cap * sizeof *p);
    if (!p) return -1;
    o->at = p;
    o->cap = cap;
  }
  o->at[o->count++] = index;
  return 0;
}

/* Pairs item x (just reached) with every still-open item of the other side,
 * dropping those that started before x and ended at or before x's start. `x_left` tells which
 * side x is on, so ids keep their table order (left: slots 0..width-1). */
static int ii_meet(const ii_item *x, int x_left, const ii_list *other,
                   ii_open *open, int width, ii_list *out) {
  size_t kept = 0;
  for (size_t i = 0; i < open->count; i++) {
    const ii_item *y = &other->item[open->at[i]];
    int same_start = y->ts == x->ts;
    if (y->end <= x->ts && !same_start) continue;
    open->at[kept++] = open->at[i];
    if (!same_start && !(x->ts < y->end && y->ts < x->end)) continue;
    const ii_item *left = x_left ? x : y, *right = x_left ? y : x;
    ii_item piece = *left;
    piece.ts = x->ts;
    piece.end = x->end < y->end ? x->end : y->end;
    piece.id[width] = right->id[0];
    piece.id_null[width] = right->id_null[0];
    if (ii_push(out, &piece)) return -1;
  }
  open->count = kept;
  return 0;
}

/* Intersects `left` (ids in slots 0..width-1) with `right` (id in slot 0);
 * both sorted by (keys, ts). */
static int ii_intersect_pair(const ii_list *left, const ii_list *right, int width,
                             ii_list *out) {
  ii_open open_left = {0}, open_right = {0};
  size_t l = 0, r = 0;
  int rc = 0;
  while (rc == 0 && (l < left->count || r < right->count)) {
    int take_left;
    if (l == left->count) take_left = 0;
    else if (r == right->count) take_left = 1;
    else {
      int c = ii_compare_keys(&left->item[l], &right->item[r]);
      if (c == 0) c = (left->item[l].ts > right->item[r].ts) ? 1 : -1;
      take_left = c < 0;
    }
    const ii_item *x = take_left ? &left->item[l] : &right->item[r];
    ii_open *mine = take_left ? &open_left : &open_right;
    ii_open *theirs = take_left ? &open_right : &open_left;
    const ii_list *other = take_left ? right : left;
    if (theirs->count && ii_compare_keys(x, &other->item[theirs->at[0]]) != 0)
      theirs->count = 0;
    if (mine->count) {
      const ii_list *own = take_left ? left : right;
      if (ii_compare_keys(x, &own->item[mine->at[0]]) != 0) mine->count = 0;
    }
    rc = ii_meet(x, take_left, other, theirs, width, out);
    if (rc == 0) rc = ii_open_add(mine, take_left ? l : r);
    if (take_left) l++;
    else r++;
  }
  free(open_left.at);
  free(open_right.at);
  return rc;
}

static int ii_compare_output(const void *pa, const void *pb) {
  const ii_item *a = pa, *b = pb;
  int c = ii_compare_keys(a, b);
  if (c) return c;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  for (int t = 0; t < II_MAX_TABLES; t++)
    if (a->id[t] != b->id[t]) return a->id[t] < b->id[t] ? -1 : 1;
  return 0;
}

static int ii_emit(const ii_list *result, int tables, int keys, stdlib_rows *out) {
  for (size_t i = 0; i < result->count; i++) {
    const ii_item *it = &result->item[i];
    int64_t v[2 + II_MAX_TABLES + II_MAX_KEYS] = {0};
    uint8_t n[2 + II_MAX_TABLES + II_MAX_KEYS];
    memset(n, 1, sizeof n);
    v[0] = it->ts, n[0] = 0;
    v[1] = it->end - it->ts, n[1] = 0;
    for (int t = 0; t < tables; t++) v[2 + t] = it->id[t], n[2 + t] = it->id_null[t];
    for (int k = 0; k < keys; k++)
      v[2 + II_MAX_TABLES + k] = it->key[k], n[2 + II_MAX_TABLES + k] = it->key_null[k];
    if (stdlib_rows_push(out, v, n)) return -1;
  }
  return 0;
}

static int ii_check_inputs(sqlite3_value **args, int count, int *keys, char **errmsg) {
  *keys = -1;
  for (int t = 0; t < count; t++) {
    const stdlib_rows *r = stdlib_rows_arg(args[t]);
    if (!r) {
      *errmsg = sqlite3_mprintf("__weft_interval_intersect: argument %d is not a table", t);
      return -1;
    }
    if (r->count == 0) continue;
    int k = r->cols - 3;
    if (k < 0 || k > II_MAX_KEYS || (*keys >= 0 && k != *keys)) {
      *errmsg = sqlite3_mprintf(
          "__weft_interval_intersect: tables need (id, ts, dur) and the same "
          "0 to 4 partition columns");
      return -1;
    }
    *keys = k;
  }
  if (*keys < 0) *keys = 0;
  return 0;
}

static int ii_compute(sqlite3_value **args, int count, stdlib_rows *out, char **errmsg) {
  int keys;
  if (ii_check_inputs(args, count, &keys, errmsg)) return -1;
  ii_list acc = {0}, next = {0}, right = {0};
  int rc = ii_read(stdlib_rows_arg(args[0]), keys, &acc, errmsg);
  base_qsort(acc.item, acc.count, sizeof *acc.item, ii_compare);
  for (int t = 1; rc == 0 && t < count; t++) {
    right.count = 0;
    rc = ii_read(stdlib_rows_arg(args[t]), keys, &right, errmsg);
    if (rc) break;
    base_qsort(right.item, right.count, sizeof *right.item, ii_compare);
    next.count = 0;
    rc = ii_intersect_pair(&acc, &right, t, &next);
    ii_list swap = acc;
    acc = next;
    next = swap;
    base_qsort(acc.item, acc.count, sizeof *acc.item, ii_compare);
  }
  if (rc == 0) {
    base_qsort(acc.item, acc.count, sizeof *acc.item, ii_compare_output);
    rc = ii_emit(&acc, count, keys, out);
  }
  free(acc.item);
  free(next.item);
  free(right.item);
  return rc;
}

/* ---- self intersection ---- */

static int si_compare_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* Index of `ts` in the sorted distinct points (it is always there). */
static size_t si_find(const int64_t *points, size_t count, int64_t ts) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (points[mid] < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static int si_push(stdlib_rows *out, const int64_t *points, size_t count, size_t at,
                   int64_t id, uint8_t id_null, int ends) {
  uint64_t gap = at + 1 < count ? (uint64_t)points[at + 1] - (uint64_t)points[at] : 0;
  int64_t dur = (int64_t)gap; /* unsigned: no overflow on hostile input */
  int64_t v[5] = {points[at], dur, (int64_t)at + 1, id, ends};
  uint8_t n[5] = {0, 0, 0, id_null, 0};
  return stdlib_rows_push(out, v, n);
}

/* Distinct start and end points of `r`'s intervals, sorted. */
static int64_t *si_points(const stdlib_rows *r, size_t *count) {
  int64_t *p = malloc((r->count * 2 + 1) * sizeof *p);
  if (!p) return NULL;
  size_t n = 0;
  for (size_t i = 0; i < r->count; i++) {
    p[n++] = stdlib_rows_get(r, i, 1);
    p[n++] = stdlib_add_saturating(stdlib_rows_get(r, i, 1), stdlib_rows_get(r, i, 2));
  }
  base_qsort(p, n, sizeof *p, si_compare_i64);
  size_t w = 0;
  for (size_t i = 0; i < n; i++)
    if (w == 0 || p[w - 1] != p[i]) p[w++] = p[i];
  *count = w;
  return p;
}

static int si_compute(sqlite3_value **args, int count, stdlib_rows *out, char **errmsg) {
  (void)count;
  const stdlib_rows *r = stdlib_rows_arg(args[0]);
  if (!r || (r->count && r->cols < 3)) {
    *errmsg = sqlite3_mprintf("__weft_interval_self_intersect: needs (id, ts, dur) rows");
    return -1;
  }
  for (size_t i = 0; i < r->count; i++) {
    if (stdlib_rows_is_null(r, i, 1) || stdlib_rows_is_null(r, i, 2) ||
        stdlib_rows_get(r, i, 2) < 0) {
      *errmsg = sqlite3_mprintf(
          "Interval intersect only works on intervals with non negative duration.");
      return -1;
    }
  }
  size_t n = 0;
  int64_t *points = si_points(r, &n);
  if (!points) return -1;
  int rc = 0;
  for (int ends = 0; ends <= 1 && rc == 0; ends++) {
    for (size_t i = 0; i < r->count && rc == 0; i++) {
      int64_t ts = stdlib_rows_get(r, i, 1);
      int64_t end = stdlib_add_saturating(ts, stdlib_rows_get(r, i, 2));
      int64_t id = stdlib_rows_get(r, i, 0);
      uint8_t id_null = (uint8_t)stdlib_rows_is_null(r, i, 0);
      size_t at = si_find(points, n, ends ? end : ts);
      if (ends) {
        rc = si_push(out, points, n, at, id, id_null, 1);
        continue;
      }
      for (; at < n && points[at] < end && rc == 0; at++)
        rc = si_push(out, points, n, at, id, id_null, 0);
    }
  }
  free(points);
  return rc;
}

static const stdlib_op_def ops_interval_defs[] = {
    {"__weft_interval_intersect",
     "ts, dur, id_0, id_1, id_2, id_3, id_4, id_5, id_6, id_7, key_0, key_1, key_2, key_3",
     2 + II_MAX_TABLES + II_MAX_KEYS, 1, II_MAX_TABLES, ii_compute},
    {"__weft_interval_self_intersect", "ts, dur, group_id, id, interval_ends_at_ts", 5,
     1, 1, si_compute},
};

int stdlib_ops_register_intervals(sqlite3 *db) {
  int rc = sqlite3_create_function(db, "__weft_rows_agg", -1, SQLITE_UTF8, NULL, NULL,
                                   ops_agg_step, ops_agg_final);
  size_t count = sizeof ops_interval_defs / sizeof *ops_interval_defs;
  for (size_t i = 0; rc == SQLITE_OK && i < count; i++)
    rc = stdlib_op_register(db, &ops_interval_defs[i]);
  return rc;
}

int sql_stdlib_ops_register(sqlite3 *db) {
  int rc = stdlib_ops_register_intervals(db);
  if (rc == SQLITE_OK) rc = stdlib_ops_register_graph(db);
  if (rc == SQLITE_OK) rc = stdlib_ops_register_tree(db);
  return rc;
}
