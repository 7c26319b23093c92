/* ancestor_slice(id) / descendant_slice(id): the slices above / below a
 * slice on its track, with the slice table's columns; and
 * experimental_slice_layout(track_ids), the slice trees of several tracks
 * laid out together.
 *
 * Ancestors follow parent_id (O(depth)). Descendants come from a per-track
 * index of rows sorted by ts, built once: a binary search finds the slice's
 * ts on its track and the walk stops at its end (O(log n + rows in the
 * slice's time range)). A NULL id gives no rows; an id that is not an
 * integer or names no slice is an error, with Perfetto's message. */
#include <stdarg.h>
#include <stdlib.h>

#include "sql/op_flamegraph.h"
#include "sql/operators.h"
#include "storage/schema.h"

/* ---- shared helpers ---- */

int op_read_start_id(sqlite3_value *v, int64_t *id, const char **msg) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return 1;
  if (type != SQLITE_INTEGER) {
    *msg = "start id should be an integer.";
    return -1;
  }
  *id = sqlite3_value_int64(v);
  return 0;
}

void op_result_cell(sqlite3_context *ctx, const storage_table *t,
                    base_string_pool *strings, size_t col, size_t row) {
  switch (t->defs[col].type) {
    case STORAGE_ID: sqlite3_result_int64(ctx, (sqlite3_int64)row); break;
    case STORAGE_I64:
      if (!storage_is_null(t, col, row))
        sqlite3_result_int64(ctx, storage_get_i64(t, col, row));
      break;
    case STORAGE_F64:
      if (!storage_is_null(t, col, row))
        sqlite3_result_double(ctx, storage_get_f64(t, col, row));
      break;
    case STORAGE_STR: {
      string_id id = storage_get_str(t, col, row);
      if (id != STRING_NULL)
        sqlite3_result_text(ctx, base_string_pool_get(strings, id),
                            (int)base_string_pool_len(strings, id), SQLITE_STATIC);
      break;
    }
  }
}

int op_vtab_error(sqlite3_vtab *vt, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  sqlite3_free(vt->zErrMsg);
  vt->zErrMsg = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  return SQLITE_ERROR;
}

/* ---- the per-track index ---- */

void op_slice_index_free(op_slice_index *x) {
  base_free(x->rows);
  base_free(x->track_start);
  memset(x, 0, sizeof *x);
}

typedef struct op_ts_row {
  int64_t ts;
  uint32_t row;
} op_ts_row;

static int op_compare_ts_row(const void *a, const void *b) {
  const op_ts_row *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* Sorts each track's rows by (ts, row); for tables whose ts is not sorted
 * in row order. */
static int op_slice_index_sort_tracks(op_slice_index *x, const storage_table *t) {
  op_ts_row *keys = base_malloc((t->row_count ? t->row_count : 1) * sizeof *keys);
  if (!keys) return WEFT_ENOMEM;
  for (size_t i = 0; i < x->track_count; i++) {
    size_t lo = x->track_start[i], n = x->track_start[i + 1] - lo;
    for (size_t k = 0; k < n; k++)
      keys[k] = (op_ts_row){storage_get_i64(t, SLICE_ts, x->rows[lo + k]), x->rows[lo + k]};
    base_qsort(keys, n, sizeof *keys, op_compare_ts_row);
    for (size_t k = 0; k < n; k++) x->rows[lo + k] = keys[k].row;
  }
  base_free(keys);
  return WEFT_OK;
}

/* Counting sort by track (rows stay in row order within a track), then, if
 * ts is not sorted in row order, a sort of each track's rows by ts. */
static int op_slice_index_build(op_slice_index *x, const storage_table *t) {
  size_t n = t->row_count, tracks = 0;
  for (size_t r = 0; r < n; r++) {
    int64_t track = storage_get_i64(t, SLICE_track_id, r);
    if (track >= 0 && (size_t)track >= tracks) tracks = (size_t)track + 1;
  }
  x->rows = base_malloc((n ? n : 1) * sizeof *x->rows);
  x->track_start = base_calloc(tracks + 2, sizeof *x->track_start);
  if (!x->rows || !x->track_start) return WEFT_ENOMEM;
  for (size_t r = 0; r < n; r++) {
    int64_t track = storage_get_i64(t, SLICE_track_id, r);
    if (track >= 0) x->track_start[track + 2]++;
  }
  for (size_t i = 2; i < tracks + 2; i++) x->track_start[i] += x->track_start[i - 1];
  for (size_t r = 0; r < n; r++) { /* track_start[t + 1] is t's fill point */
    int64_t track = storage_get_i64(t, SLICE_track_id, r);
    if (track >= 0) x->rows[x->track_start[track + 1]++] = (uint32_t)r;
  }
  x->track_count = tracks;
  if (!t->columns[SLICE_ts].sorted && op_slice_index_sort_tracks(x, t) != WEFT_OK)
    return WEFT_ENOMEM;
  x->slices = t;
  x->row_count = n;
  return WEFT_OK;
}

int op_slice_index_ensure(op_slice_index *x, const storage_table *slices) {
  if (x->slices == slices && x->row_count == slices->row_count) return WEFT_OK;
  op_slice_index_free(x);
  int rc = op_slice_index_build(x, slices);
  if (rc != WEFT_OK) op_slice_index_free(x);
  return rc;
}

static int op_compare_rows(const void *a, const void *b) {
  uint32_t ra = *(const uint32_t *)a, rb = *(const uint32_t *)b;
  return ra < rb ? -1 : ra > rb;
}

int op_slice_ancestors(const storage_table *t, uint32_t row, op_row_vec *out) {
  size_t first = out->len;
  /* A parent chain is at most row_count long; a longer one is a cycle. */
  for (size_t steps = 0; steps < t->row_count; steps++) {
    if (storage_is_null(t, SLICE_parent_id, row)) break;
    int64_t parent = storage_get_i64(t, SLICE_parent_id, row);
    if (parent < 0 || (uint64_t)parent >= t->row_count) break;
    row = (uint32_t)parent;
    if (VEC_PUSH(*out, row)) return WEFT_ENOMEM;
  }
  if (out->len - first > 1)
    base_qsort(out->data + first, out->len - first, sizeof *out->data, op_compare_rows);
  return WEFT_OK;
}

/* The first position in rows[lo, hi) whose ts is >= ts. */
static size_t op_lower_bound_ts(const op_slice_index *x, size_t lo, size_t hi,
                                int64_t ts) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (storage_get_i64(x->slices, SLICE_ts, x->rows[mid]) < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int op_slice_descendants(const op_slice_index *x, uint32_t row, op_row_vec *out) {
  const storage_table *t = x->slices;
  int64_t track = storage_get_i64(t, SLICE_track_id, row);
  if (track < 0 || (size_t)track >= x->track_count) return WEFT_OK;
  int64_t ts = storage_get_i64(t, SLICE_ts, row);
  int64_t dur = storage_get_i64(t, SLICE_dur, row);
  int64_t depth = storage_get_i64(t, SLICE_depth, row);
  /* A slice's descendants start before its end; a zero-duration slice's
   * start at its ts; an unfinished one's (dur < 0) at any time after. */
  int64_t end = dur >= 0 && ts <= INT64_MAX - dur ? ts + dur : INT64_MAX;
  int end_inclusive = dur <= 0;
  size_t hi = x->track_start[track + 1];
  size_t first = out->len, unsorted = 0;
  for (size_t i = op_lower_bound_ts(x, x->track_start[track], hi, ts); i < hi; i++) {
    uint32_t r = x->rows[i];
    int64_t r_ts = storage_get_i64(t, SLICE_ts, r);
    if (r_ts > end || (r_ts == end && !end_inclusive)) break;
    if (storage_get_i64(t, SLICE_depth, r) <= depth) continue;
    if (out->len > first && out->data[out->len - 1] > r) unsorted = 1;
    if (VEC_PUSH(*out, r)) return WEFT_ENOMEM;
  }
  if (unsorted && out->len - first > 1)
    base_qsort(out->data + first, out->len - first, sizeof *out->data, op_compare_rows);
  return WEFT_OK;
}

/* ---- the virtual tables ---- */

typedef struct op_tree_state {
  sql_engine *engine;
  op_slice_index index;
} op_tree_state;

typedef struct op_tree_table {
  sqlite3_vtab base; /* must be first */
  op_tree_state *state;
  int descendants;   /* 0 = ancestor_slice */
} op_tree_table;

typedef struct op_tree_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  const storage_table *slices; /* read by the last filter */
  op_row_vec rows;
  size_t pos;
} op_tree_cursor;

/* The slice columns, then the start id as the hidden argument column. */
static int op_tree_declare(sqlite3 *db) {
  base_buf sql;
  base_buf_init(&sql, 0);
  int rc = base_buf_append(&sql, "CREATE TABLE x(", 15);
  for (size_t i = 0; rc == 0 && i < schema_tables[TABLE_SLICE].column_count; i++) {
    const storage_column_def *d = &schema_tables[TABLE_SLICE].columns[i];
    rc = base_buf_appendf(&sql, "\"%s\" %s, ", d->name,
                          d->type == STORAGE_STR ? "TEXT" : "BIGINT");
  }
  if (rc == 0) rc = base_buf_appendf(&sql, "start_id HIDDEN)");
  if (rc == 0) rc = sqlite3_declare_vtab(db, sql.data) == SQLITE_OK ? 0 : -1;
  base_buf_free(&sql);
  return rc == WEFT_ENOMEM ? SQLITE_NOMEM : rc ? SQLITE_ERROR : SQLITE_OK;
}

static int op_tree_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                           sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)errmsg;
  int rc = op_tree_declare(db);
  if (rc != SQLITE_OK) return rc;
  op_tree_table *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->state = aux;
  vt->descendants = strcmp(argv[0], "descendant_slice") == 0;
  *out = &vt->base;
  return SQLITE_OK;
}

static int op_tree_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* The one hidden column (the start id) must be given by `=`; without it
 * there is no plan (SQLite reports "no query solution"). */
int op_best_index_start_id(sqlite3_index_info *info, int start_column) {
  int found = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn != start_column || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c->usable) return SQLITE_CONSTRAINT;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    found = 1;
    break;
  }
  if (!found) return SQLITE_CONSTRAINT;
  info->estimatedCost = 10;
  info->estimatedRows = 10;
  return SQLITE_OK;
}

static int op_tree_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  (void)base;
  return op_best_index_start_id(info, (int)schema_tables[TABLE_SLICE].column_count);
}

static int op_tree_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  op_tree_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  *out = &cur->base;
  return SQLITE_OK;
}

static int op_tree_close(sqlite3_vtab_cursor *base) {
  op_tree_cursor *cur = (op_tree_cursor *)base;
  VEC_FREE(cur->rows);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static const storage_table *op_tree_slices(op_tree_table *vt) {
  return sql_engine_find_table(vt->state->engine, schema_tables[TABLE_SLICE].name);
}

static int op_tree_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str,
                          int argc, sqlite3_value **argv) {
  (void)idx_num, (void)idx_str;
  op_tree_cursor *cur = (op_tree_cursor *)base;
  op_tree_table *vt = (op_tree_table *)base->pVtab;
  cur->rows.len = cur->pos = 0;
  int64_t id = 0;
  const char *msg = NULL;
  int arg = argc == 1 ? op_read_start_id(argv[0], &id, &msg) : 1;
  if (arg < 0) return op_vtab_error(base->pVtab, "%s", msg);
  if (arg > 0) return SQLITE_OK;
  const storage_table *slices = op_tree_slices(vt);
  if (!slices || id < 0 || (uint64_t)id >= slices->row_count)
    return op_vtab_error(base->pVtab, "no row with id %lld", (long long)id);
  cur->slices = slices;
  if (!vt->descendants)
    return op_slice_ancestors(slices, (uint32_t)id, &cur->rows) ? SQLITE_NOMEM : SQLITE_OK;
  op_slice_index *x = &vt->state->index;
  int rc = op_slice_index_ensure(x, slices);
  if (rc == WEFT_OK) rc = op_slice_descendants(x, (uint32_t)id, &cur->rows);
  return rc == WEFT_OK ? SQLITE_OK : SQLITE_NOMEM;
}

static int op_tree_next(sqlite3_vtab_cursor *base) {
  ((op_tree_cursor *)base)->pos++;
  return SQLITE_OK;
}

static int op_tree_eof(sqlite3_vtab_cursor *base) {
  op_tree_cursor *cur = (op_tree_cursor *)base;
  return cur->pos >= cur->rows.len;
}

static int op_tree_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col) {
  op_tree_cursor *cur = (op_tree_cursor *)base;
  op_tree_table *vt = (op_tree_table *)base->pVtab;
  const storage_table *t = cur->slices;
  if (!t || col < 0 || (size_t)col >= t->column_count) return SQLITE_OK;
  op_result_cell(ctx, t, sql_engine_strings(vt->state->engine), (size_t)col,
                 cur->rows.data[cur->pos]);
  return SQLITE_OK;
}

static int op_tree_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((op_tree_cursor *)base)->pos;
  return SQLITE_OK;
}

static const sqlite3_module op_tree_module = {
    .iVersion = 0,
    .xConnect = op_tree_connect,
    .xBestIndex = op_tree_best_index,
    .xDisconnect = op_tree_disconnect,
    .xDestroy = op_tree_disconnect,
    .xOpen = op_tree_open,
    .xClose = op_tree_close,
    .xFilter = op_tree_filter,
    .xNext = op_tree_next,
    .xEof = op_tree_eof,
    .xColumn = op_tree_column,
    .xRowid = op_tree_rowid,
};

/* ---- experimental_slice_layout(track_ids) ----
 * Lays the slice trees ("stalactites": a depth-0 slice and everything under
 * it) of the listed tracks out on one set of rows: each tree keeps its
 * shape and time and gets a base depth. Trees are placed deepest first
 * (then by start, then root id), each at the lowest base at which its rows
 * [base, base + its max depth] miss those of every tree placed before that
 * overlaps it in time (latest start < earliest end; a tree runs from its
 * root's ts to the latest end of its slices, an unfinished slice never
 * ending). A slice's layout_depth is its depth plus its tree's base. The
 * argument is a string of comma-separated track ids (tokens that are not
 * ids are skipped). */

typedef struct op_layout_tree {
  int64_t start, end;
  uint32_t max_depth, base, root;
  uint8_t placed;
} op_layout_tree;

typedef VEC(op_layout_tree) op_layout_trees;

/* A placed tree's rows, [lo, hi]. */
typedef struct op_layout_band {
  uint32_t lo, hi;
} op_layout_band;

typedef struct op_layout_work {
  op_layout_tree **by_start;   /* every tree, by start */
  op_layout_tree **unfinished; /* placed trees that never end */
  size_t unfinished_n;
  int64_t max_dur;             /* of the finished trees */
  VEC(op_layout_band) bands;   /* scratch: bands of the overlapping trees */
} op_layout_work;

/* Marks the tracks named in `list` in selected[0..track_count). */
static void op_layout_parse_tracks(const char *list, uint8_t *selected,
                                   size_t track_count) {
  const char *p = list;
  while (*p) {
    const char *tok = p;
    while (*p && *p != ',') p++;
    uint64_t v = 0;
    int ok = p > tok && p - tok <= 10;
    for (const char *c = tok; ok && c < p; c++) {
      if (*c < '0' || *c > '9') ok = 0;
      else v = v * 10 + (uint64_t)(*c - '0');
    }
    if (ok && v <= UINT32_MAX && v < track_count) selected[v] = 1;
    if (*p == ',') p++;
  }
}

static int op_layout_by_start(const void *a, const void *b) {
  const op_layout_tree *x = *(op_layout_tree *const *)a, *y = *(op_layout_tree *const *)b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->root < y->root ? -1 : x->root > y->root;
}

static int op_layout_by_depth(const void *a, const void *b) {
  const op_layout_tree *x = *(op_layout_tree *const *)a, *y = *(op_layout_tree *const *)b;
  if (x->max_depth != y->max_depth) return x->max_depth > y->max_depth ? -1 : 1;
  return op_layout_by_start(a, b);
}

static int op_layout_compare_bands(const void *a, const void *b) {
  const op_layout_band *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int op_layout_overlap(const op_layout_tree *a, const op_layout_tree *b) {
  int64_t start = a->start > b->start ? a->start : b->start;
  int64_t end = a->end < b->end ? a->end : b->end;
  return start < end;
}

static int op_layout_add_band(op_layout_work *w, const op_layout_tree *tree,
                              const op_layout_tree *other) {
  if (!other->placed || other == tree || !op_layout_overlap(tree, other)) return WEFT_OK;
  return VEC_PUSH(w->bands, ((op_layout_band){other->base, other->base + other->max_depth}));
}

/* The bands of the placed trees overlapping `tree`: those starting in
 * (start - longest finished duration, end), and the unfinished ones. */
static int op_layout_collect(op_layout_work *w, size_t n, const op_layout_tree *tree) {
  w->bands.len = 0;
  int64_t from = tree->start >= INT64_MIN + w->max_dur ? tree->start - w->max_dur : INT64_MIN;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (w->by_start[mid]->start <= from) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i < n && w->by_start[i]->start < tree->end; i++)
    if (op_layout_add_band(w, tree, w->by_start[i])) return WEFT_ENOMEM;
  for (size_t i = 0; i < w->unfinished_n; i++)
    if (op_layout_add_band(w, tree, w->unfinished[i])) return WEFT_ENOMEM;
  return WEFT_OK;
}

/* The lowest base whose rows [base, base + max_depth] miss every band. */
static uint32_t op_layout_lowest_base(op_layout_work *w, uint32_t max_depth) {
  base_qsort(w->bands.data, w->bands.len, sizeof *w->bands.data, op_layout_compare_bands);
  uint32_t base = 0;
  for (size_t i = 0; i < w->bands.len; i++) {
    if (w->bands.data[i].lo > base + max_depth) break;
    if (w->bands.data[i].hi + 1 > base) base = w->bands.data[i].hi + 1;
  }
  return base;
}

static int op_layout_place_all(op_layout_work *w, op_layout_tree **order, size_t n) {
  for (size_t i = 0; i < n; i++) {
    op_layout_tree *tree = order[i];
    if (op_layout_collect(w, n, tree)) return WEFT_ENOMEM;
    tree->base = op_layout_lowest_base(w, tree->max_depth);
    tree->placed = 1;
    if (tree->end == INT64_MAX) w->unfinished[w->unfinished_n++] = tree;
  }
  return WEFT_OK;
}

static int op_layout_place(op_layout_trees *trees) {
  size_t n = trees->len, bytes = (n ? n : 1) * sizeof(op_layout_tree *);
  op_layout_work w = {base_malloc(bytes), base_malloc(bytes), 0, 0, {0}};
  op_layout_tree **order = base_malloc(bytes);
  int rc = w.by_start && w.unfinished && order ? WEFT_OK : WEFT_ENOMEM;
  for (size_t i = 0; rc == WEFT_OK && i < n; i++) {
    op_layout_tree *tree = &trees->data[i];
    w.by_start[i] = order[i] = tree;
    uint64_t dur = (uint64_t)tree->end - (uint64_t)tree->start;
    if (tree->end != INT64_MAX && tree->end > tree->start && dur > (uint64_t)w.max_dur)
      w.max_dur = dur > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)dur;
  }
  if (rc == WEFT_OK) {
    base_qsort(w.by_start, n, sizeof *w.by_start, op_layout_by_start);
    base_qsort(order, n, sizeof *order, op_layout_by_depth);
    rc = op_layout_place_all(&w, order, n);
  }
  base_free(w.by_start);
  base_free(w.unfinished);
  base_free(order);
  VEC_FREE(w.bands);
  return rc;
}

/* Groups the selected rows into trees: tree_of[row] indexes trees. */
static int op_layout_group(const storage_table *t, const uint8_t *selected,
                           size_t track_count, uint32_t *tree_of, op_row_vec *rows,
                           op_layout_trees *trees) {
  for (size_t r = 0; r < t->row_count; r++) {
    int64_t track = storage_get_i64(t, SLICE_track_id, r);
    tree_of[r] = UINT32_MAX;
    if (track < 0 || (size_t)track >= track_count || !selected[track]) continue;
    int64_t parent = storage_get_i64_or(t, SLICE_parent_id, r, -1);
    int64_t ts = storage_get_i64(t, SLICE_ts, r), dur = storage_get_i64(t, SLICE_dur, r);
    int64_t end = dur == -1 ? INT64_MAX : (int64_t)((uint64_t)ts + (uint64_t)dur);
    uint32_t depth = (uint32_t)storage_get_i64(t, SLICE_depth, r);
    if (VEC_PUSH(*rows, (uint32_t)r)) return WEFT_ENOMEM;
    if (parent >= 0 && (uint64_t)parent < r && tree_of[parent] != UINT32_MAX) {
      op_layout_tree *tree = &trees->data[tree_of[parent]];
      tree_of[r] = tree_of[parent];
      if (depth > tree->max_depth) tree->max_depth = depth;
      if (end > tree->end) tree->end = end;
      continue;
    }
    tree_of[r] = (uint32_t)trees->len;
    if (VEC_PUSH(*trees, ((op_layout_tree){ts, end, depth, 0, (uint32_t)r, 0})))
      return WEFT_ENOMEM;
  }
  return WEFT_OK;
}

/* rows: the listed tracks' slices in row order; depths: their layout_depth. */
static int op_slice_layout(const op_slice_index *x, const char *list, op_row_vec *rows,
                           op_row_vec *depths) {
  const storage_table *t = x->slices;
  uint8_t *selected = base_calloc(x->track_count + 1, 1);
  uint32_t *tree_of = base_malloc((t->row_count + 1) * sizeof *tree_of);
  op_layout_trees trees = {0};
  int rc = selected && tree_of ? WEFT_OK : WEFT_ENOMEM;
  if (rc == WEFT_OK) {
    op_layout_parse_tracks(list, selected, x->track_count);
    rc = op_layout_group(t, selected, x->track_count, tree_of, rows, &trees);
  }
  if (rc == WEFT_OK) rc = op_layout_place(&trees);
  for (size_t i = 0; rc == WEFT_OK && i < rows->len; i++) {
    uint32_t r = rows->data[i];
    uint32_t depth = (uint32_t)storage_get_i64(t, SLICE_depth, r);
    rc = VEC_PUSH(*depths, depth + trees.data[tree_of[r]].base);
  }
  base_free(selected);
  base_free(tree_of);
  VEC_FREE(trees);
  return rc;
}

typedef struct op_layout_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  op_row_vec rows, depths;
  size_t pos;
} op_layout_cursor;

static int op_layout_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                             sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)argv, (void)errmsg;
  if (sqlite3_declare_vtab(db, "CREATE TABLE x(id BIGINT, layout_depth BIGINT, "
                               "filter_track_ids HIDDEN)") != SQLITE_OK)
    return SQLITE_ERROR;
  op_tree_table *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->state = aux;
  *out = &vt->base;
  return SQLITE_OK;
}

static int op_layout_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  (void)base;
  return op_best_index_start_id(info, 2);
}

static int op_layout_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  op_layout_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  *out = &cur->base;
  return SQLITE_OK;
}

static int op_layout_close(sqlite3_vtab_cursor *base) {
  op_layout_cursor *cur = (op_layout_cursor *)base;
  VEC_FREE(cur->rows);
  VEC_FREE(cur->depths);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int op_layout_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str,
                            int argc, sqlite3_value **argv) {
  (void)idx_num, (void)idx_str;
  op_layout_cursor *cur = (op_layout_cursor *)base;
  op_tree_table *vt = (op_tree_table *)base->pVtab;
  cur->rows.len = cur->depths.len = cur->pos = 0;
  if (argc != 1 || sqlite3_value_type(argv[0]) != SQLITE_TEXT)
    return op_vtab_error(base->pVtab, "invalid input track id list");
  const storage_table *slices = op_tree_slices(vt);
  if (!slices) return SQLITE_OK;
  op_slice_index *x = &vt->state->index;
  int rc = op_slice_index_ensure(x, slices);
  if (rc == WEFT_OK)
    rc = op_slice_layout(x, (const char *)sqlite3_value_text(argv[0]), &cur->rows,
                         &cur->depths);
  return rc == WEFT_OK ? SQLITE_OK : SQLITE_NOMEM;
}

static int op_layout_next(sqlite3_vtab_cursor *base) {
  ((op_layout_cursor *)base)->pos++;
  return SQLITE_OK;
}

static int op_layout_eof(sqlite3_vtab_cursor *base) {
  op_layout_cursor *cur = (op_layout_cursor *)base;
  return cur->pos >= cur->rows.len;
}

static int op_layout_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col) {
  op_layout_cursor *cur = (op_layout_cursor *)base;
  if (col == 0) sqlite3_result_int64(ctx, cur->rows.data[cur->pos]);
  else if (col == 1) sqlite3_result_int64(ctx, cur->depths.data[cur->pos]);
  return SQLITE_OK;
}

static int op_layout_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((op_layout_cursor *)base)->pos;
  return SQLITE_OK;
}

static const sqlite3_module op_layout_module = {
    .iVersion = 0,
    .xConnect = op_layout_connect,
    .xBestIndex = op_layout_best_index,
    .xDisconnect = op_tree_disconnect,
    .xDestroy = op_tree_disconnect,
    .xOpen = op_layout_open,
    .xClose = op_layout_close,
    .xFilter = op_layout_filter,
    .xNext = op_layout_next,
    .xEof = op_layout_eof,
    .xColumn = op_layout_column,
    .xRowid = op_layout_rowid,
};

static void op_tree_state_free(void *p) {
  op_tree_state *s = p;
  op_slice_index_free(&s->index);
  base_free(s);
}

int sql_operators_register(sqlite3 *db, sql_engine *e) {
  op_tree_state *s = base_calloc(1, sizeof *s);
  if (!s) return WEFT_ENOMEM;
  s->engine = e;
  /* The descendant module shares the state the ancestor one owns. */
  if (sqlite3_create_module_v2(db, "ancestor_slice", &op_tree_module, s,
                               op_tree_state_free) != SQLITE_OK ||
      sqlite3_create_module_v2(db, "descendant_slice", &op_tree_module, s, NULL) !=
          SQLITE_OK ||
      sqlite3_create_module_v2(db, "experimental_slice_layout", &op_layout_module, s,
                               NULL) != SQLITE_OK)
    return WEFT_ESQL;
  int rc = op_flow_register(db, e, &s->index);
  if (!rc) rc = op_flamegraph_register(db, e);
  if (!rc) rc = op_annotated_callstack_register(db, e);
  return rc ? rc : span_join_register(db, e);
}
