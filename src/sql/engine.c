/* The SQL engine: database setup, and the execution of one SQLite
 * statement; PerfettoSQL's statements are psql's (psql.h). */
#include <stdio.h>

#include "sql/operators.h"
#include "sql/psql.h"
#include "sql/stdlib_ops.h"
#include "sql/vtab_view.h"

struct sql_engine {
  sqlite3 *db;
  sql_views views; /* created on first use */
  psql psql;       /* what PerfettoSQL statements defined */
  sql_vtab_aux *aux; /* one per table, referenced by SQLite */
  size_t aux_count;
  sql_view *table_views; /* sql_view_specs served as tables (vtab_view.h) */
  base_string_pool *strings; /* the trace's; set even with no tables */
  sql_scan_stats stats;
  sql_clock_fn to_clock; /* trace time -> a builtin clock, or NULL */
  void *to_clock_user;
  int interrupted; /* atomic: sql_engine_interrupt */
  char denied[64]; /* the view name a CREATE was refused, for its message */
};

void sql_engine_set_clock_converter(sql_engine *e, sql_clock_fn fn, void *user) {
  e->to_clock = fn;
  e->to_clock_user = user;
}

void sql_engine_set_packages(sql_engine *e, const struct sql_packages *packages) {
  e->psql.packages = packages;
}

int sql_engine_to_clock(sql_engine *e, uint64_t clock_id, int64_t ts, int64_t *out) {
  return e->to_clock ? e->to_clock(e->to_clock_user, clock_id, ts, out) : -1;
}

static sql_vtab_aux *sql_engine_aux(sql_engine *e, const char *name) {
  for (size_t i = 0; i < e->aux_count; i++)
    if (strcmp(e->aux[i].table->name, name) == 0) return &e->aux[i];
  return NULL;
}

/* __intrinsic_table_is_view(name): 1 if `name` is one of the views served
 * as a virtual table (the table lists show them as views), else 0. */
static void sql_engine_is_view(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_int(ctx, sql_engine_is_served_view((const char *)sqlite3_value_text(argv[0])));
}

int sql_engine_is_served_view(const char *name) {
  for (size_t i = 0; name && i < sql_view_spec_count; i++)
    if (!sqlite3_stricmp(name, sql_view_specs[i].name)) return 1;
  return 0;
}

/* The views served as virtual tables hold their names as the SQL views
 * did: creating a table, view or index table of that name is refused
 * (sql_engine_refusal gives SQLite's message for it). */
static int sql_engine_authorize(void *user, int action, const char *a, const char *b,
                                const char *db, const char *trigger) {
  (void)b, (void)trigger;
  sql_engine *e = user;
  int creates = action == SQLITE_CREATE_TABLE || action == SQLITE_CREATE_VIEW ||
                action == SQLITE_CREATE_TEMP_TABLE || action == SQLITE_CREATE_TEMP_VIEW ||
                action == SQLITE_CREATE_VTABLE;
  if (!creates || (db && strcmp(db, "main") && strcmp(db, "temp")) || !sql_engine_is_served_view(a))
    return SQLITE_OK;
  snprintf(e->denied, sizeof e->denied, "%s", a);
  return SQLITE_DENY;
}

const char *sql_engine_refusal(sql_engine *e, char *buf, size_t size) {
  if (sqlite3_errcode(e->db) != SQLITE_AUTH || !e->denied[0]) return sqlite3_errmsg(e->db);
  snprintf(buf, size, "view %s already exists", e->denied);
  e->denied[0] = 0;
  return buf;
}

/* Perfetto's one-table views, served by the tables' module; a view whose
 * table this engine lacks (a test's engine of a few tables) is left out. */
static int sql_engine_register_views(sql_engine *e, base_error *err) {
  e->table_views = base_calloc(sql_view_spec_count, sizeof *e->table_views);
  if (!e->table_views) return base_error_nomem(err);
  if (sqlite3_create_function(e->db, "__intrinsic_table_is_view", 1,
                              SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, sql_engine_is_view,
                              NULL, NULL) != SQLITE_OK)
    return base_error_set(err, WEFT_ESQL, "cannot register __intrinsic_table_is_view");
  if (sqlite3_set_authorizer(e->db, sql_engine_authorize, e) != SQLITE_OK)
    return base_error_set(err, WEFT_ESQL, "cannot set the authorizer");
  sql_vtab_aux *args = sql_engine_aux(e, "__intrinsic_args");
  for (size_t i = 0; i < sql_view_spec_count; i++) {
    sql_vtab_aux *aux = sql_engine_aux(e, sql_view_specs[i].table);
    if (!aux) continue;
    sql_view *v = &e->table_views[i];
    int rc = sql_view_parse(&sql_view_specs[i], aux, args ? args->table : NULL, v, err);
    if (rc) return rc;
    if (sql_view_register(e->db, v) != WEFT_OK)
      return base_error_set(err, WEFT_ESQL, "cannot register view %s: %s", v->name,
                            sqlite3_errmsg(e->db));
  }
  return WEFT_OK;
}

int sql_engine_open(sql_engine **out, storage_table *const *tables,
                    size_t table_count, base_string_pool *strings,
                    base_error *err) {
  sql_engine *e = base_calloc(1, sizeof *e);
  if (!e) return base_error_nomem(err);
  e->aux = base_calloc(table_count, sizeof *e->aux);
  if (!e->aux) {
    sql_engine_close(e);
    return base_error_nomem(err);
  }
  if (sqlite3_open_v2(":memory:", &e->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
          SQLITE_OK) {
    sql_engine_close(e);
    return base_error_set(err, WEFT_ESQL, "cannot open SQLite");
  }
  e->aux_count = table_count;
  e->strings = strings;
  for (size_t i = 0; i < table_count; i++) {
    e->aux[i] = (sql_vtab_aux){.table = tables[i], .strings = strings, .stats = &e->stats,
                               .interrupted = &e->interrupted};
    if (sql_vtab_register(e->db, &e->aux[i]) != WEFT_OK) {
      base_error_set(err, WEFT_ESQL, "cannot register table %s: %s",
                     tables[i]->name, sqlite3_errmsg(e->db));
      sql_engine_close(e);
      return WEFT_ESQL;
    }
  }
  int rc = sql_engine_register_views(e, err);
  if (rc == WEFT_OK) rc = sql_functions_register(e->db, e);
  if (rc == WEFT_OK) rc = sql_operators_register(e->db, e);
  if (rc == WEFT_OK && sql_stdlib_ops_register(e->db) != SQLITE_OK) rc = WEFT_ESQL;
  if (rc == WEFT_OK) rc = sql_views_init(&e->views, e->db, err);
  if (rc == WEFT_OK) rc = psql_init(&e->psql, e, e->db);
  if (rc == WEFT_OK) rc = psql_run_prelude(&e->psql, err);
  if (rc != WEFT_OK) {
    if (!err || !err->message[0])
      base_error_set(err, rc, "cannot set up SQL: %s", sqlite3_errmsg(e->db));
    sql_engine_close(e);
    return rc;
  }
  *out = e;
  return WEFT_OK;
}

void sql_engine_close(sql_engine *e) {
  if (!e) return;
  psql_free(&e->psql);
  sqlite3_close(e->db);
  for (size_t i = 0; i < e->aux_count; i++) sql_vtab_orders_free(&e->aux[i]);
  base_free(e->aux);
  base_free(e->table_views);
  base_free(e);
}

sql_scan_stats *sql_engine_scan_stats(sql_engine *e) { return &e->stats; }

storage_table *sql_engine_find_table(sql_engine *e, const char *name) {
  for (size_t i = 0; i < e->aux_count; i++)
    if (strcmp(e->aux[i].table->name, name) == 0) return e->aux[i].table;
  return NULL;
}

int sql_engine_set_table_fill(sql_engine *e, const char *name,
                              sql_table_fill_fn fn, void *user) {
  for (size_t i = 0; i < e->aux_count; i++) {
    if (strcmp(e->aux[i].table->name, name) != 0) continue;
    e->aux[i].fill = fn;
    e->aux[i].fill_user = user;
    return WEFT_OK;
  }
  return WEFT_EINVAL;
}

base_string_pool *sql_engine_strings(sql_engine *e) { return e->strings; }
sqlite3 *sql_engine_db(sql_engine *e) { return e->db; }

void sql_engine_interrupt(sql_engine *e) {
  __atomic_store_n(&e->interrupted, 1, __ATOMIC_RELAXED);
  sqlite3_interrupt(e->db);
}

const int *sql_engine_interrupt_flag(const sql_engine *e) { return &e->interrupted; }

int sql_views_ensure_engine(sql_engine *e, const char *sql, base_error *err) {
  return sql_views_ensure(&e->views, sql, err);
}

static int sql_report_columns(sqlite3_stmt *stmt, int statement,
                              const weft_query_callbacks *cb) {
  int n = sqlite3_column_count(stmt);
  const char *names[256];
  const char **list = n <= 256 ? names : base_malloc((size_t)n * sizeof *list);
  if (!list) return WEFT_ENOMEM;
  for (int i = 0; i < n; i++) {
    const char *name = sqlite3_column_name(stmt, i);
    list[i] = name ? name : "";
  }
  int stop = cb->on_columns(cb->user, statement, n, list);
  if (list != names) base_free(list);
  return stop ? WEFT_EABORT : WEFT_OK;
}

static int sql_report_row(sqlite3_stmt *stmt, int statement,
                          const weft_query_callbacks *cb) {
  int n = sqlite3_column_count(stmt);
  weft_cell cells_small[64];
  weft_cell *cells = n <= 64 ? cells_small : base_calloc((size_t)n, sizeof *cells);
  if (!cells) return WEFT_ENOMEM;
  for (int i = 0; i < n; i++) {
    weft_cell *c = &cells[i];
    memset(c, 0, sizeof *c);
    switch (sqlite3_column_type(stmt, i)) {
      case SQLITE_INTEGER:
        c->type = WEFT_CELL_INT;
        c->i = sqlite3_column_int64(stmt, i);
        break;
      case SQLITE_FLOAT:
        c->type = WEFT_CELL_DOUBLE;
        c->d = sqlite3_column_double(stmt, i);
        break;
      case SQLITE_TEXT:
        c->type = WEFT_CELL_STRING;
        c->s = (const char *)sqlite3_column_text(stmt, i);
        c->len = (size_t)sqlite3_column_bytes(stmt, i);
        break;
      case SQLITE_BLOB:
        c->type = WEFT_CELL_BLOB;
        c->s = sqlite3_column_blob(stmt, i);
        c->len = (size_t)sqlite3_column_bytes(stmt, i);
        break;
      default: c->type = WEFT_CELL_NULL; break;
    }
  }
  int stop = cb->on_row(cb->user, statement, n, cells);
  if (cells != cells_small) base_free(cells);
  return stop ? WEFT_EABORT : WEFT_OK;
}

int sql_engine_status(sql_engine *e) {
  int code = sqlite3_errcode(e->db);
  if (code == SQLITE_INTERRUPT) return WEFT_EABORT;
  return code == SQLITE_NOMEM ? WEFT_ENOMEM : WEFT_ESQL;
}

int sql_engine_run_statement(sql_engine *e, sqlite3_stmt *stmt, int statement,
                             const weft_query_callbacks *cb, base_error *err) {
  int has_columns = sqlite3_column_count(stmt) > 0;
  int rc = WEFT_OK;
  if (has_columns && cb && cb->on_columns)
    rc = sql_report_columns(stmt, statement, cb);
  while (rc == WEFT_OK) {
    int step = sqlite3_step(stmt);
    if (step == SQLITE_DONE) break;
    if (step != SQLITE_ROW)
      return base_error_set(err, sql_engine_status(e), "%s", sqlite3_errmsg(e->db));
    if (cb && cb->on_row) rc = sql_report_row(stmt, statement, cb);
  }
  if (rc == WEFT_EABORT) base_error_set(err, rc, "query stopped by caller");
  else base_error_alloc(err, rc);
  return rc;
}

int sql_engine_execute(sql_engine *e, const char *sql,
                       const weft_query_callbacks *cb, base_error *err) {
  return sql_engine_execute_source(e, "stdin", sql, cb, err);
}

int sql_engine_execute_source(sql_engine *e, const char *source, const char *sql,
                              const weft_query_callbacks *cb, base_error *err) {
  __atomic_store_n(&e->interrupted, 0, __ATOMIC_RELAXED);
  int rc = sql_views_ensure(&e->views, sql, err);
  return rc ? rc : psql_execute(&e->psql, source, sql, cb, err);
}
