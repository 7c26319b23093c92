/* experimental_flamegraph as a table-valued function. See op_flamegraph.h. */
#include <ctype.h>
#include <string.h>

#include "sql/op_flamegraph.h"
#include "storage/schema.h"

enum { FG_COLUMNS = 20, FG_ARGS = 6 };

typedef struct fg_out {
  uint32_t node;
  int64_t depth, parent; /* parent: output id, -1 none */
  int64_t cum_count, cum_size;
} fg_out;

typedef struct fg_table {
  sqlite3_vtab base; /* must be first */
  sql_engine *engine;
} fg_table;

typedef struct fg_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  fg_nodes nodes;
  VEC(fg_out) rows;
  size_t pos;
  int64_t ts, upid;
  char *focus;
  int incomplete; /* the one "INCOMPLETE GRAPH" row */
} fg_cursor;

static void fg_cursor_reset(fg_cursor *c) {
  VEC_FREE(c->nodes.rows);
  base_buf_free(&c->nodes.names);
  base_buf_init(&c->nodes.names, (size_t)1 << 31);
  c->nodes.first_top = c->nodes.last_top = -1;
  VEC_FREE(c->rows);
  base_free(c->focus);
  c->focus = NULL;
  c->pos = 0;
  c->incomplete = 0;
}

/* The nodes depth first, children in the order they were made. */
static int fg_preorder(fg_cursor *c) {
  fg_node_row *n = c->nodes.rows.data;
  int64_t *out_id = base_malloc((c->nodes.rows.len ? c->nodes.rows.len : 1) * sizeof *out_id);
  if (!out_id) return WEFT_ENOMEM;
  int64_t cur = c->nodes.first_top;
  while (cur >= 0) {
    int64_t p = n[cur].parent;
    fg_out o = {(uint32_t)cur, p >= 0 ? c->rows.data[out_id[p]].depth + 1 : 0,
                p >= 0 ? out_id[p] : -1, 0, 0};
    out_id[cur] = (int64_t)c->rows.len;
    if (VEC_PUSH(c->rows, o)) {
      base_free(out_id);
      return WEFT_ENOMEM;
    }
    int64_t next = n[cur].first_child;
    while (next < 0 && cur >= 0) {
      next = n[cur].next_sibling;
      if (next < 0) cur = n[cur].parent;
    }
    cur = next;
  }
  base_free(out_id);
  return WEFT_OK;
}

static void fg_cumulate(fg_cursor *c) {
  for (size_t i = c->rows.len; i-- > 0;) {
    fg_out *o = &c->rows.data[i];
    o->cum_count += c->nodes.rows.data[o->node].count;
    o->cum_size += c->nodes.rows.data[o->node].size;
    if (o->parent >= 0) {
      c->rows.data[o->parent].cum_count += o->cum_count;
      c->rows.data[o->parent].cum_size += o->cum_size;
    }
  }
}

static int fg_matches(const fg_cursor *c, const fg_out *o) {
  const fg_node_row *n = &c->nodes.rows.data[o->node];
  const char *s = c->nodes.names.data + n->name_off;
  size_t len = n->name_len, flen = strlen(c->focus);
  for (size_t i = 0; flen <= len && i <= len - flen; i++) {
    size_t k = 0;
    while (k < flen && tolower((unsigned char)s[i + k]) == tolower((unsigned char)c->focus[k])) k++;
    if (k == flen) return 1;
  }
  return 0;
}

/* Keeps the focused rows (a match, its ancestors, its descendants), with
 * ids and cumulative values recomputed. */
static int fg_focus(fg_cursor *c) {
  enum { OFF, PROPAGATING, ON };
  size_t n = c->rows.len;
  uint8_t *state = base_calloc(n ? n : 1, 1);
  int64_t *new_id = base_malloc((n ? n : 1) * sizeof *new_id);
  if (!state || !new_id) {
    base_free(state);
    base_free(new_id);
    return WEFT_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    int64_t p = c->rows.data[i].parent;
    if (fg_matches(c, &c->rows.data[i])) {
      state[i] = PROPAGATING;
      for (; p >= 0 && state[p] == OFF; p = c->rows.data[p].parent) state[p] = ON;
    } else if (p >= 0 && state[p] == PROPAGATING) {
      state[i] = PROPAGATING;
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    if (state[i] == OFF) continue;
    fg_out o = c->rows.data[i];
    o.parent = o.parent >= 0 ? new_id[o.parent] : -1;
    o.cum_count = o.cum_size = 0;
    new_id[i] = (int64_t)kept;
    c->rows.data[kept++] = o;
  }
  c->rows.len = kept;
  base_free(state);
  base_free(new_id);
  fg_cumulate(c);
  return WEFT_OK;
}

/* 1 when the dump's heap_graph row says it is incomplete. */
static int fg_truncated(sql_engine *e, int64_t ts, int64_t upid) {
  const storage_table *t = sql_engine_find_table(e, schema_tables[TABLE_HEAP_GRAPH].name);
  for (size_t r = 0; t && r < t->row_count; r++)
    if (storage_get_i64(t, HEAP_GRAPH_ts, r) == ts && storage_get_i64(t, HEAP_GRAPH_upid, r) == upid &&
        storage_get_i64(t, HEAP_GRAPH_truncated, r))
      return 1;
  return 0;
}

static int fg_is(sqlite3_value *v, int type) {
  return sqlite3_value_type(v) == type || sqlite3_value_type(v) == SQLITE_NULL;
}

/* Perfetto's argument checks; NULL when they pass. */
static const char *fg_check_args(sqlite3_value **a) {
  if (sqlite3_value_type(a[0]) != SQLITE_TEXT)
    return "experimental_flamegraph: profile_type must be an string";
  if (!fg_is(a[1], SQLITE_INTEGER)) return "experimental_flamegraph: ts must be an integer";
  if (!fg_is(a[2], SQLITE_TEXT)) return "experimental_flamegraph: ts constraint must be an string";
  if (!fg_is(a[3], SQLITE_INTEGER)) return "experimental_flamegraph: upid must be an integer";
  if (!fg_is(a[4], SQLITE_TEXT)) return "experimental_flamegraph: upid_group must be an string";
  if (!fg_is(a[5], SQLITE_TEXT)) return "experimental_flamegraph: focus_str must be an string";
  if (sqlite3_value_type(a[1]) == SQLITE_NULL && sqlite3_value_type(a[2]) == SQLITE_NULL)
    return "experimental_flamegraph: one of ts and ts_constraints must not be null";
  if (sqlite3_value_type(a[3]) == SQLITE_NULL && sqlite3_value_type(a[4]) == SQLITE_NULL)
    return "experimental_flamegraph: one of upid or upid_group must not be null";
  return NULL;
}

static int fg_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str, int argc,
                     sqlite3_value **argv) {
  (void)idx_num, (void)idx_str;
  fg_cursor *c = (fg_cursor *)base;
  sql_engine *e = ((fg_table *)base->pVtab)->engine;
  fg_cursor_reset(c);
  if (argc != FG_ARGS) return op_vtab_error(base->pVtab, "experimental_flamegraph: 6 arguments");
  const char *msg = fg_check_args(argv);
  if (msg) return op_vtab_error(base->pVtab, "%s", msg);
  const char *type = (const char *)sqlite3_value_text(argv[0]);
  if (strcmp(type, "graph") != 0)
    return op_vtab_error(base->pVtab, "experimental_flamegraph: profile type %s is not supported",
                         type);
  if (sqlite3_value_type(argv[1]) == SQLITE_NULL || sqlite3_value_type(argv[3]) == SQLITE_NULL)
    return op_vtab_error(base->pVtab,
                         "experimental_flamegraph: ts and upid must be present for heap graph");
  c->ts = sqlite3_value_int64(argv[1]);
  c->upid = sqlite3_value_int64(argv[3]);
  int rc = fg_build_graph(e, c->ts, c->upid, &c->nodes);
  if (!rc) rc = fg_preorder(c);
  if (!rc) fg_cumulate(c);
  const char *focus = (const char *)sqlite3_value_text(argv[5]);
  if (!rc && focus && *focus && c->rows.len) {
    size_t len = strlen(focus);
    c->focus = base_malloc(len + 1);
    if (!c->focus) return SQLITE_NOMEM;
    memcpy(c->focus, focus, len + 1);
    rc = fg_focus(c);
  }
  if (rc) return SQLITE_NOMEM;
  if (c->nodes.rows.len) return SQLITE_OK;
  if (!fg_truncated(e, c->ts, c->upid))
    return op_vtab_error(base->pVtab, "Failed to build flamegraph");
  c->incomplete = 1;
  return SQLITE_OK;
}

static void fg_result_text(sqlite3_context *ctx, const char *s, size_t len) {
  sqlite3_result_text(ctx, s, (int)len, SQLITE_TRANSIENT);
}

static int fg_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col) {
  fg_cursor *c = (fg_cursor *)base;
  static const char incomplete[] = "ERROR: INCOMPLETE GRAPH (try increasing buffer size)";
  const fg_out *o = c->incomplete ? NULL : &c->rows.data[c->pos];
  const fg_node_row *n = o ? &c->nodes.rows.data[o->node] : NULL;
  switch (col) {
    case 0: sqlite3_result_int64(ctx, (sqlite3_int64)c->pos); break;
    case 1: case 21: sqlite3_result_int64(ctx, c->ts); break;
    case 2: case 23: sqlite3_result_int64(ctx, c->upid); break;
    case 3: case 20: fg_result_text(ctx, "graph", 5); break;
    case 5: sqlite3_result_int64(ctx, o ? o->depth : 0); break;
    case 6:
      if (n) fg_result_text(ctx, c->nodes.names.data + n->name_off, n->name_len);
      else fg_result_text(ctx, incomplete, sizeof incomplete - 1);
      break;
    case 7: fg_result_text(ctx, "JAVA", 4); break;
    case 8: sqlite3_result_int64(ctx, n ? n->count : 1); break;
    case 9: sqlite3_result_int64(ctx, o ? o->cum_count : 1); break;
    case 10: sqlite3_result_int64(ctx, n ? n->size : 1); break;
    case 11: sqlite3_result_int64(ctx, o ? o->cum_size : 1); break;
    case 12: case 13: case 14: case 15: sqlite3_result_int64(ctx, 0); break;
    case 16:
      if (o && o->parent >= 0) sqlite3_result_int64(ctx, o->parent);
      else sqlite3_result_null(ctx);
      break;
    case 4: case 25:
      if (c->focus) fg_result_text(ctx, c->focus, strlen(c->focus));
      else sqlite3_result_null(ctx);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int fg_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **out, char **errmsg) {
  (void)argc, (void)argv, (void)errmsg;
  if (sqlite3_declare_vtab(
          db, "CREATE TABLE x(id BIGINT, ts BIGINT, upid BIGINT, profile_type TEXT, "
              "focus_str TEXT, depth BIGINT, name TEXT, map_name TEXT, count BIGINT, "
              "cumulative_count BIGINT, size BIGINT, cumulative_size BIGINT, "
              "alloc_count BIGINT, cumulative_alloc_count BIGINT, alloc_size BIGINT, "
              "cumulative_alloc_size BIGINT, parent_id BIGINT, source_file TEXT, "
              "line_number BIGINT, upid_group TEXT, profile_type_arg HIDDEN, ts_in HIDDEN, "
              "ts_constraint HIDDEN, upid_in HIDDEN, upid_group_in HIDDEN, "
              "focus_str_in HIDDEN)") != SQLITE_OK)
    return SQLITE_ERROR;
  fg_table *vt = sqlite3_malloc(sizeof *vt);
  if (!vt) return SQLITE_NOMEM;
  memset(vt, 0, sizeof *vt);
  vt->engine = aux;
  *out = &vt->base;
  return SQLITE_OK;
}

static int fg_disconnect(sqlite3_vtab *vt) {
  sqlite3_free(vt);
  return SQLITE_OK;
}

/* Every argument must be given by `=` (a NULL too). */
static int fg_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  (void)base;
  int given = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    int arg = k->iColumn - FG_COLUMNS;
    if (arg < 0 || arg >= FG_ARGS || k->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!k->usable) return SQLITE_CONSTRAINT;
    info->aConstraintUsage[i].argvIndex = arg + 1;
    info->aConstraintUsage[i].omit = 1;
    given |= 1 << arg;
  }
  if (given != (1 << FG_ARGS) - 1) return SQLITE_CONSTRAINT;
  info->estimatedCost = 1000;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

static int fg_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  (void)base;
  fg_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  fg_cursor_reset(c);
  *out = &c->base;
  return SQLITE_OK;
}

static int fg_close(sqlite3_vtab_cursor *base) {
  fg_cursor *c = (fg_cursor *)base;
  fg_cursor_reset(c);
  base_buf_free(&c->nodes.names);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int fg_next(sqlite3_vtab_cursor *base) {
  ((fg_cursor *)base)->pos++;
  return SQLITE_OK;
}

static int fg_eof(sqlite3_vtab_cursor *base) {
  fg_cursor *c = (fg_cursor *)base;
  return c->incomplete ? c->pos >= 1 : c->pos >= c->rows.len;
}

static int fg_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((fg_cursor *)base)->pos;
  return SQLITE_OK;
}

static const sqlite3_module fg_module = {
    .iVersion = 0,
    .xConnect = fg_connect,
    .xBestIndex = fg_best_index,
    .xDisconnect = fg_disconnect,
    .xDestroy = fg_disconnect,
    .xOpen = fg_open,
    .xClose = fg_close,
    .xFilter = fg_filter,
    .xNext = fg_next,
    .xEof = fg_eof,
    .xColumn = fg_column,
    .xRowid = fg_rowid,
};

int op_flamegraph_register(sqlite3 *db, sql_engine *e) {
  return sqlite3_create_module_v2(db, "experimental_flamegraph", &fg_module, e, NULL) == SQLITE_OK
             ? WEFT_OK
             : WEFT_ESQL;
}
