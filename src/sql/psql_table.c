/* Perfetto tables, views and indexes (see psql.h).
 *
 * A Perfetto table is the result of its SELECT materialised into a
 * storage_table (column types inferred from the values, as Perfetto does:
 * integers and doubles make a DOUBLE column, any other mix is an error) and
 * served by the generic virtual table, so it gets the same constraint
 * pushdown as the trace's own tables. Rows are first gathered as cells, as a
 * column's type is known only once every row has been seen. An index (CREATE
 * PERFETTO INDEX) is a sorted row order the virtual table searches. */
#include "sql/psql.h"

#include <stdio.h>
#include <strings.h>

struct psql_table {
  char *name;
  char **column_names;
  storage_column_def *defs;
  size_t column_count;
  storage_table table;
  sql_vtab_aux aux; /* its indexes: aux.indexes / aux.index_count */
  sql_vtab_index *indexes;
  size_t index_count;
};

/* One gathered value. */
typedef struct psql_cell {
  int type; /* SQLITE_INTEGER / FLOAT / TEXT / NULL */
  union {
    int64_t i;
    double d;
    string_id s;
  } v;
} psql_cell;

static void psql_table_free_one(psql_table *t) {
  if (!t) return;
  sql_vtab_orders_free(&t->aux);
  storage_table_free(&t->table);
  for (size_t i = 0; i < t->column_count; i++) base_free(t->column_names[i]);
  for (size_t i = 0; i < t->index_count; i++) sql_vtab_index_free(&t->indexes[i]);
  base_free(t->indexes);
  base_free(t->column_names);
  base_free(t->defs);
  base_free(t->name);
  base_free(t);
}

void psql_tables_free(psql *ps) {
  for (size_t i = 0; i < ps->table_count; i++) psql_table_free_one(ps->tables[i]);
  base_free(ps->tables);
  ps->tables = NULL;
  ps->table_count = 0;
}

static psql_table *psql_table_find(psql *ps, const char *name) {
  for (size_t i = 0; i < ps->table_count; i++)
    if (strcasecmp(ps->tables[i]->name, name) == 0) return ps->tables[i];
  return NULL;
}

static const char *psql_sqlite_type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "LONG";
    case SQLITE_FLOAT: return "DOUBLE";
    case SQLITE_TEXT: return "STRING";
    case SQLITE_BLOB: return "BYTES";
    default: return "NULL";
  }
}

/* Checks the select's columns against a declared schema, with Perfetto's
 * message naming both differences. */
static int psql_check_schema(sqlite3_stmt *stmt, const psql_fields *schema,
                             const char *what, base_error *err) {
  if (!schema->count) return WEFT_OK;
  int n = sqlite3_column_count(stmt);
  char missing[256] = "", extra[256] = "";
  for (size_t i = 0; i < schema->count; i++) {
    int found = 0;
    for (int c = 0; c < n; c++)
      found |= strcasecmp(sqlite3_column_name(stmt, c), schema->items[i].name) == 0;
    if (!found)
      snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s",
               missing[0] ? ", " : "", schema->items[i].name);
  }
  for (int c = 0; c < n; c++) {
    int found = 0;
    for (size_t i = 0; i < schema->count; i++)
      found |= strcasecmp(sqlite3_column_name(stmt, c), schema->items[i].name) == 0;
    if (!found)
      snprintf(extra + strlen(extra), sizeof extra - strlen(extra), "%s%s",
               extra[0] ? ", " : "", sqlite3_column_name(stmt, c));
  }
  if (!missing[0] && !extra[0]) return WEFT_OK;
  if (missing[0] && extra[0])
    return base_error_set(err, WEFT_ESQL,
                          "%s: the following columns are declared in the schema, but do "
                          "not exist: %s; and the following columns exist, but are not "
                          "declared: %s",
                          what, missing, extra);
  if (missing[0])
    return base_error_set(err, WEFT_ESQL,
                          "%s: the following columns are declared in the schema, but do "
                          "not exist: %s",
                          what, missing);
  return base_error_set(err, WEFT_ESQL,
                        "%s: the following columns exist, but are not declared: %s", what,
                        extra);
}

static int psql_prepare_select(psql *ps, const char *select, sqlite3_stmt **out,
                               const char *what, base_error *err) {
  int rc = sql_views_ensure_engine(ps->engine, select, err);
  if (rc) return rc;
  if (sqlite3_prepare_v2(ps->db, select, -1, out, NULL) != SQLITE_OK)
    return base_error_set(err, sql_engine_status(ps->engine), "%s: %s", what, sqlite3_errmsg(ps->db));
  if (!*out) return base_error_set(err, WEFT_ESQL, "%s: no SELECT statement", what);
  return WEFT_OK;
}

/* ---- gathering rows ---- */

typedef struct psql_gather {
  psql_cell *cells;
  size_t rows, cap_rows;
  size_t columns;
  int *types; /* per column: the inferred SQLITE_* type, or SQLITE_NULL */
} psql_gather;

static int psql_gather_cell(psql *ps, psql_gather *g, sqlite3_stmt *stmt, int c,
                            psql_cell *cell, const char *name, base_error *err) {
  int type = sqlite3_column_type(stmt, c);
  cell->type = type;
  if (type == SQLITE_NULL) return WEFT_OK;
  int *inferred = &g->types[c];
  int numeric = (type == SQLITE_INTEGER || type == SQLITE_FLOAT) &&
                (*inferred == SQLITE_INTEGER || *inferred == SQLITE_FLOAT);
  if (*inferred != SQLITE_NULL && *inferred != type && !numeric)
    return base_error_set(err, WEFT_ESQL,
                          "CREATE PERFETTO TABLE(%s): column '%s' was inferred to be %s, "
                          "but later received a value of type %s",
                          name, sqlite3_column_name(stmt, c),
                          psql_sqlite_type_name(*inferred), psql_sqlite_type_name(type));
  if (type == SQLITE_BLOB)
    return base_error_set(err, WEFT_ESQL,
                          "CREATE PERFETTO TABLE(%s): column '%s' holds BYTES, which "
                          "Perfetto tables do not store",
                          name, sqlite3_column_name(stmt, c));
  if (*inferred != SQLITE_FLOAT) *inferred = type;
  if (type == SQLITE_INTEGER) cell->v.i = sqlite3_column_int64(stmt, c);
  else if (type == SQLITE_FLOAT) cell->v.d = sqlite3_column_double(stmt, c);
  else
    return base_string_pool_intern(sql_engine_strings(ps->engine),
                                   (const char *)sqlite3_column_text(stmt, c),
                                   (size_t)sqlite3_column_bytes(stmt, c), &cell->v.s)
               ? base_error_nomem(err)
               : WEFT_OK;
  return WEFT_OK;
}

static int psql_gather_rows(psql *ps, sqlite3_stmt *stmt, psql_gather *g,
                            const char *name, base_error *err) {
  for (;;) {
    int step = sqlite3_step(stmt);
    if (step == SQLITE_DONE) return WEFT_OK;
    if (step != SQLITE_ROW)
      return base_error_set(err, sql_engine_status(ps->engine),
                            "CREATE PERFETTO TABLE(%s): %s", name, sqlite3_errmsg(ps->db));
    if (g->rows == g->cap_rows) {
      size_t cap = g->cap_rows ? g->cap_rows * 2 : 64;
      psql_cell *grown = base_realloc(g->cells, cap * g->columns * sizeof *grown);
      if (!grown) return base_error_nomem(err);
      g->cells = grown;
      g->cap_rows = cap;
    }
    psql_cell *row = &g->cells[g->rows * g->columns];
    for (size_t c = 0; c < g->columns; c++) {
      int rc = psql_gather_cell(ps, g, stmt, (int)c, &row[c], name, err);
      if (rc) return rc;
    }
    g->rows++;
  }
}

/* ---- building the storage table ---- */

static storage_type psql_storage_type(int sqlite_type) {
  switch (sqlite_type) {
    case SQLITE_FLOAT: return STORAGE_F64;
    case SQLITE_TEXT: return STORAGE_STR;
    default: return STORAGE_I64;
  }
}

static int psql_table_define(psql_table *t, sqlite3_stmt *stmt, const psql_gather *g,
                             base_error *err) {
  t->column_count = g->columns;
  t->column_names = base_calloc(g->columns ? g->columns : 1, sizeof *t->column_names);
  t->defs = base_calloc(g->columns ? g->columns : 1, sizeof *t->defs);
  if (!t->column_names || !t->defs) return base_error_nomem(err);
  for (size_t c = 0; c < g->columns; c++) {
    const char *name = sqlite3_column_name(stmt, (int)c);
    if (!(t->column_names[c] = base_strndup(name, strlen(name)))) return base_error_nomem(err);
    storage_type type = psql_storage_type(g->types[c]);
    t->defs[c] = (storage_column_def){t->column_names[c], type,
                                      STORAGE_NULLABLE |
                                          (type == STORAGE_I64 ? STORAGE_SORTED : 0)};
  }
  if (storage_table_init(&t->table, t->name, t->defs, t->column_count) != WEFT_OK)
    return base_error_nomem(err);
  return WEFT_OK;
}

static void psql_table_set(storage_table *table, size_t c, size_t row, const psql_cell *cell) {
  switch (cell->type) {
    case SQLITE_INTEGER:
      if (table->defs[c].type == STORAGE_F64) storage_set_f64(table, c, row, (double)cell->v.i);
      else storage_set_i64(table, c, row, cell->v.i);
      break;
    case SQLITE_FLOAT: storage_set_f64(table, c, row, cell->v.d); break;
    case SQLITE_TEXT: storage_set_str(table, c, row, cell->v.s); break;
    default: storage_set_null(table, c, row); break;
  }
}

static int psql_table_fill(psql_table *t, const psql_gather *g, base_error *err) {
  if (storage_table_reserve(&t->table, g->rows) != WEFT_OK) return base_error_nomem(err);
  for (size_t r = 0; r < g->rows; r++) {
    uint32_t row;
    if (storage_table_append(&t->table, &row) != WEFT_OK) return base_error_nomem(err);
    for (size_t c = 0; c < g->columns; c++)
      psql_table_set(&t->table, c, row, &g->cells[r * g->columns + c]);
  }
  return storage_table_status(&t->table) ? base_error_nomem(err) : WEFT_OK;
}

/* The schema's declared types against the inferred ones, as Perfetto
 * checks them: strings and numbers must not be mixed; a DOUBLE column holds
 * integers as doubles; a LONG column found to hold doubles stays DOUBLE. */
static int psql_apply_schema_types(sqlite3_stmt *stmt, const psql_fields *schema,
                                   psql_gather *g, const char *name, base_error *err) {
  for (size_t i = 0; i < schema->count; i++) {
    psql_type declared = schema->items[i].type;
    for (size_t c = 0; c < g->columns; c++) {
      if (strcasecmp(sqlite3_column_name(stmt, (int)c), schema->items[i].name) != 0) continue;
      int inferred = g->types[c];
      int want_string = declared == PSQL_TYPE_STRING;
      int is_string = inferred == SQLITE_TEXT;
      if (declared != PSQL_TYPE_ANY && declared != PSQL_TYPE_BYTES &&
          inferred != SQLITE_NULL && want_string != is_string)
        return base_error_set(
            err, WEFT_ESQL,
            "CREATE PERFETTO TABLE(%s): column '%s' declared as %s in the schema, but "
            "%s found",
            name, schema->items[i].name,
            want_string ? "STRING" : declared == PSQL_TYPE_DOUBLE ? "DOUBLE" : "LONG",
            psql_sqlite_type_name(inferred));
      if (declared == PSQL_TYPE_DOUBLE && inferred != SQLITE_TEXT) g->types[c] = SQLITE_FLOAT;
    }
  }
  return WEFT_OK;
}

/* Perfetto refuses two result columns of one name. */
static int psql_check_unique_columns(sqlite3_stmt *stmt, base_error *err) {
  int n = sqlite3_column_count(stmt);
  for (int a = 0; a < n; a++)
    for (int b = a + 1; b < n; b++)
      if (strcasecmp(sqlite3_column_name(stmt, a), sqlite3_column_name(stmt, b)) == 0)
        return base_error_set(err, WEFT_ESQL,
                              "CREATE PERFETTO TABLE: multiple columns are named: %s",
                              sqlite3_column_name(stmt, a));
  return WEFT_OK;
}

static int psql_table_materialise(psql *ps, psql_table *t, sqlite3_stmt *stmt,
                                  const psql_fields *schema, base_error *err) {
  psql_gather g = {0};
  g.columns = (size_t)sqlite3_column_count(stmt);
  g.types = base_calloc(g.columns ? g.columns : 1, sizeof *g.types);
  int rc = g.types ? WEFT_OK : base_error_nomem(err);
  for (size_t c = 0; rc == WEFT_OK && c < g.columns; c++) g.types[c] = SQLITE_NULL;
  if (rc == WEFT_OK) rc = psql_gather_rows(ps, stmt, &g, t->name, err);
  if (rc == WEFT_OK) rc = psql_apply_schema_types(stmt, schema, &g, t->name, err);
  if (rc == WEFT_OK) rc = psql_table_define(t, stmt, &g, err);
  if (rc == WEFT_OK) rc = psql_table_fill(t, &g, err);
  base_free(g.cells);
  base_free(g.types);
  return rc;
}

/* Serves `t` under its name, replacing `old` (freed) if given. */
static int psql_table_publish(psql *ps, psql_table *t, psql_table *old, base_error *err) {
  if (!old) {
    psql_table **grown = base_realloc(ps->tables, (ps->table_count + 1) * sizeof *grown);
    if (!grown) return base_error_nomem(err);
    ps->tables = grown;
    ps->tables[ps->table_count++] = t;
  }
  t->aux = (sql_vtab_aux){.table = &t->table,
                          .strings = sql_engine_strings(ps->engine),
                          .stats = sql_engine_scan_stats(ps->engine),
                          .interrupted = sql_engine_interrupt_flag(ps->engine)};
  if (sql_vtab_register(ps->db, &t->aux) != WEFT_OK) {
    if (!old) ps->table_count--;
    return base_error_set(err, sql_engine_status(ps->engine), "CREATE PERFETTO TABLE(%s): %s", t->name,
                          sqlite3_errmsg(ps->db));
  }
  if (old) {
    for (size_t i = 0; i < ps->table_count; i++)
      if (ps->tables[i] == old) ps->tables[i] = t;
    psql_functions_forget_plans(ps);
    psql_table_free_one(old);
  }
  return WEFT_OK;
}

static int psql_name_taken(psql *ps, const char *name) {
  sqlite3_stmt *stmt = NULL;
  int taken = 0;
  if (sqlite3_prepare_v2(ps->db, "SELECT 1 FROM sqlite_master WHERE name = ?1 COLLATE NOCASE",
                         -1, &stmt, NULL) == SQLITE_OK) {
    sqlite3_bind_text(stmt, 1, name, -1, SQLITE_STATIC);
    taken = sqlite3_step(stmt) == SQLITE_ROW;
  }
  sqlite3_finalize(stmt);
  return taken || sql_engine_find_table(ps->engine, name) != NULL ||
         sql_engine_is_served_view(name);
}

int psql_table_create(psql *ps, const char *name, const psql_fields *schema,
                      const char *select, int replace, base_error *err) {
  char what[300];
  snprintf(what, sizeof what, "CREATE PERFETTO TABLE(%s)", name);
  psql_table *old = psql_table_find(ps, name);
  if ((old && !replace) || (!old && psql_name_taken(ps, name)))
    return base_error_set(err, WEFT_ESQL, "%s: table %s already exists", what, name);
  sqlite3_stmt *stmt = NULL;
  int rc = psql_prepare_select(ps, select, &stmt, what, err);
  if (rc == WEFT_OK) rc = psql_check_unique_columns(stmt, err);
  if (rc == WEFT_OK) rc = psql_check_schema(stmt, schema, what, err);
  psql_table *t = rc == WEFT_OK ? base_calloc(1, sizeof *t) : NULL;
  if (rc == WEFT_OK && (!t || !(t->name = base_strndup(name, strlen(name)))))
    rc = base_error_nomem(err);
  if (rc == WEFT_OK) rc = psql_table_materialise(ps, t, stmt, schema, err);
  sqlite3_finalize(stmt);
  if (rc == WEFT_OK) rc = psql_table_publish(ps, t, old, err);
  if (rc != WEFT_OK) psql_table_free_one(t);
  return rc;
}

int psql_view_create(psql *ps, const char *name, const psql_fields *schema,
                     const char *select, int replace, base_error *err) {
  char what[300];
  snprintf(what, sizeof what, "CREATE PERFETTO VIEW(%s)", name);
  sqlite3_stmt *stmt = NULL;
  int rc = psql_prepare_select(ps, select, &stmt, "CREATE PERFETTO VIEW", err);
  if (rc == WEFT_OK) rc = psql_check_schema(stmt, schema, "CREATE PERFETTO VIEW", err);
  sqlite3_finalize(stmt);
  if (rc) return rc;
  char *sql = sqlite3_mprintf("CREATE VIEW \"%w\" AS %s", name, select);
  char *drop = replace ? sqlite3_mprintf("DROP VIEW IF EXISTS \"%w\"", name) : NULL;
  if (!sql || (replace && !drop)) rc = base_error_nomem(err);
  char *msg = NULL;
  if (rc == WEFT_OK && drop && sqlite3_exec(ps->db, drop, NULL, NULL, &msg) != SQLITE_OK)
    rc = base_error_set(err, WEFT_ESQL, "%s: %s", what, msg ? msg : "?");
  if (rc == WEFT_OK && sqlite3_exec(ps->db, sql, NULL, NULL, &msg) != SQLITE_OK)
    rc = base_error_set(err, WEFT_ESQL, "%s: %s", what, msg ? msg : "?");
  sqlite3_free(msg);
  sqlite3_free(sql);
  sqlite3_free(drop);
  return rc;
}

/* ---- indexes ---- */

static int psql_index_find(const psql_table *t, const char *name) {
  for (size_t i = 0; i < t->index_count; i++)
    if (strcasecmp(t->indexes[i].name, name) == 0) return (int)i;
  return -1;
}

/* Serves `t`'s current indexes; statements kept prepared are planned
 * again, as their plans may name an index by position. */
static void psql_index_publish(psql *ps, psql_table *t) {
  t->aux.indexes = t->indexes;
  t->aux.index_count = t->index_count;
  psql_functions_forget_plans(ps);
}

/* Fills `ix` (name, columns, order) for `t`. */
static int psql_index_build(psql_table *t, sql_vtab_index *ix, const char *name,
                            char **columns, size_t column_count, base_error *err) {
  *ix = (sql_vtab_index){0};
  if (column_count == 0 || column_count > SQL_INDEX_MAX_COLUMNS)
    return base_error_set(err, WEFT_ESQL, "CREATE PERFETTO INDEX: an index has 1 to %d columns",
                          SQL_INDEX_MAX_COLUMNS);
  for (size_t i = 0; i < column_count; i++) {
    int col = storage_table_find_column(&t->table, columns[i]);
    if (col < 0)
      return base_error_set(err, WEFT_ESQL,
                            "CREATE PERFETTO INDEX: column '%s' not found in table '%s'",
                            columns[i], t->name);
    ix->columns[ix->column_count++] = col;
  }
  if (!(ix->name = base_strndup(name, strlen(name))) ||
      sql_vtab_index_build(ix, &t->table, t->aux.strings) != WEFT_OK) {
    sql_vtab_index_free(ix);
    return base_error_nomem(err);
  }
  return WEFT_OK;
}

int psql_index_create(psql *ps, const char *name, const char *table,
                      char **columns, size_t column_count, int replace,
                      base_error *err) {
  psql_table *t = psql_table_find(ps, table);
  if (!t)
    return base_error_set(err, WEFT_ESQL, "CREATE PERFETTO INDEX: table '%s' does not exist",
                          table);
  int existing = psql_index_find(t, name);
  if (existing >= 0 && !replace)
    return base_error_set(err, WEFT_ESQL, "CREATE PERFETTO INDEX: Index '%s' already exists",
                          name);
  sql_vtab_index ix;
  int rc = psql_index_build(t, &ix, name, columns, column_count, err);
  if (rc) return rc;
  if (existing >= 0) {
    sql_vtab_index_free(&t->indexes[existing]);
    t->indexes[existing] = ix;
  } else {
    sql_vtab_index *grown = base_realloc(t->indexes, (t->index_count + 1) * sizeof *grown);
    if (!grown) {
      sql_vtab_index_free(&ix);
      return base_error_nomem(err);
    }
    t->indexes = grown;
    t->indexes[t->index_count++] = ix;
  }
  psql_index_publish(ps, t);
  return WEFT_OK;
}

int psql_index_drop(psql *ps, const char *name, const char *table, base_error *err) {
  psql_table *t = psql_table_find(ps, table);
  int i = t ? psql_index_find(t, name) : -1;
  if (i < 0)
    return base_error_set(err, WEFT_ESQL, "DROP PERFETTO INDEX: Index '%s' not found", name);
  sql_vtab_index_free(&t->indexes[i]);
  t->indexes[i] = t->indexes[--t->index_count];
  psql_index_publish(ps, t);
  return WEFT_OK;
}
