/* PerfettoSQL functions (see psql.h): a scalar function is an SQLite
 * function running its body with the arguments bound as $name; a
 * table-valued function is an eponymous virtual table whose hidden columns
 * are the arguments and whose rows are the body's, streamed from its
 * statement. Arguments are checked against their declared types, as
 * Perfetto does. Prepared bodies are kept for reuse; a call while the kept
 * statement is busy (recursion, or two cursors) prepares another. */
#include "sql/psql.h"

#include <stdio.h>
#include <strings.h>

#define PSQL_IDLE_STATEMENTS 4

struct psql_function {
  psql *ps;
  char *name;
  char *prototype;
  psql_fields args;
  int returns_table;
  psql_fields columns;
  char *body;
  sqlite3_stmt *idle[PSQL_IDLE_STATEMENTS];
  size_t idle_count;
};

static void psql_function_free(psql_function *f) {
  if (!f) return;
  for (size_t i = 0; i < f->idle_count; i++) sqlite3_finalize(f->idle[i]);
  base_free(f->name);
  base_free(f->prototype);
  psql_fields_free(&f->args);
  psql_fields_free(&f->columns);
  base_free(f->body);
  base_free(f);
}

static psql_function *psql_function_find(psql *ps, const char *name) {
  for (size_t i = 0; i < ps->function_count; i++)
    if (strcasecmp(ps->functions[i]->name, name) == 0) return ps->functions[i];
  return NULL;
}

void psql_functions_forget_plans(psql *ps) {
  for (size_t i = 0; i < ps->function_count; i++) {
    psql_function *f = ps->functions[i];
    for (size_t s = 0; s < f->idle_count; s++) sqlite3_finalize(f->idle[s]);
    f->idle_count = 0;
  }
}

void psql_functions_free(psql *ps) {
  for (size_t i = 0; i < ps->function_count; i++) psql_function_free(ps->functions[i]);
  base_free(ps->functions);
  ps->functions = NULL;
  ps->function_count = 0;
}

/* The type names Perfetto reports for an argument's actual value. */
static const char *psql_value_type_name(int sqlite_type) {
  switch (sqlite_type) {
    case SQLITE_INTEGER: return "BOOL/INT/UINT/LONG";
    case SQLITE_FLOAT: return "FLOAT/DOUBLE";
    case SQLITE_TEXT: return "STRING";
    case SQLITE_BLOB: return "BYTES";
    default: return "NULL";
  }
}

static int psql_value_matches(psql_type type, int sqlite_type) {
  if (sqlite_type == SQLITE_NULL || type == PSQL_TYPE_ANY) return 1;
  switch (type) {
    case PSQL_TYPE_DOUBLE: return sqlite_type == SQLITE_FLOAT;
    case PSQL_TYPE_STRING: return sqlite_type == SQLITE_TEXT;
    case PSQL_TYPE_BYTES: return sqlite_type == SQLITE_BLOB;
    default: return sqlite_type == SQLITE_INTEGER;
  }
}

/* Checks the arguments; on a mismatch writes Perfetto's message into
 * `message` and returns nonzero. */
static int psql_check_args(const psql_function *f, sqlite3_value **argv,
                           char *message, size_t size) {
  for (size_t i = 0; i < f->args.count; i++) {
    int type = sqlite3_value_type(argv[i]);
    if (psql_value_matches(f->args.items[i].type, type)) continue;
    const unsigned char *text = sqlite3_value_text(argv[i]);
    snprintf(message, size,
             "%s[arg=%s]: argument %zu does not have expected type: expected %s, actual %s",
             f->name, text ? (const char *)text : "", i,
             psql_type_name(f->args.items[i].type), psql_value_type_name(type));
    return 1;
  }
  return 0;
}

static int psql_prepare_body(psql_function *f, sqlite3_stmt **out) {
  return sqlite3_prepare_v2(f->ps->db, f->body, -1, out, NULL);
}

static sqlite3_stmt *psql_acquire(psql_function *f) {
  if (f->idle_count) return f->idle[--f->idle_count];
  sqlite3_stmt *stmt = NULL;
  if (psql_prepare_body(f, &stmt) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return NULL;
  }
  return stmt;
}

static void psql_release(psql_function *f, sqlite3_stmt *stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  if (f->idle_count < PSQL_IDLE_STATEMENTS) f->idle[f->idle_count++] = stmt;
  else sqlite3_finalize(stmt);
}

/* Binds argument i to `$name` (or `:name` / `@name`) wherever the body
 * uses it. */
static void psql_bind_args(const psql_function *f, sqlite3_stmt *stmt,
                           sqlite3_value **argv) {
  static const char prefixes[] = "$:@";
  for (size_t i = 0; i < f->args.count; i++)
    for (const char *p = prefixes; *p; p++) {
      char param[160];
      snprintf(param, sizeof param, "%c%s", *p, f->args.items[i].name);
      int index = sqlite3_bind_parameter_index(stmt, param);
      if (index > 0) sqlite3_bind_value(stmt, index, argv[i]);
    }
}

static int psql_too_deep(const psql *ps, char *message, size_t size, const char *name) {
  if (ps->call_depth < PSQL_MAX_CALL_DEPTH) return 0;
  snprintf(message, size, "%s: function calls nested deeper than %d", name,
           PSQL_MAX_CALL_DEPTH);
  return 1;
}

/* Steps `stmt` once as a call of `f` (depth-counted). */
static int psql_step(psql_function *f, sqlite3_stmt *stmt) {
  f->ps->call_depth++;
  int rc = sqlite3_step(stmt);
  f->ps->call_depth--;
  return rc;
}

/* `f`'s name before SQLite's last message, unless a recursive call of `f`
 * already put it there. */
static void psql_body_error(const psql_function *f, char *message, size_t size) {
  const char *inner = sqlite3_errmsg(f->ps->db);
  size_t n = strlen(f->name);
  if (strncmp(inner, f->name, n) == 0 && inner[n] == ':') snprintf(message, size, "%s", inner);
  else snprintf(message, size, "%s: %s", f->name, inner);
}

/* Runs a scalar body; on failure writes the message and returns nonzero. */
static int psql_scalar_run(psql_function *f, sqlite3_context *ctx, sqlite3_stmt *stmt,
                           char *message, size_t size) {
  int rc = psql_step(f, stmt);
  if (rc == SQLITE_DONE) return 0; /* no row: NULL */
  if (rc != SQLITE_ROW) {
    psql_body_error(f, message, size);
    return 1;
  }
  if (sqlite3_column_count(stmt) != 1) {
    snprintf(message, size,
             "%s: SQL definition should only return one column: returned %d columns",
             f->name, sqlite3_column_count(stmt));
    return 1;
  }
  sqlite3_result_value(ctx, sqlite3_column_value(stmt, 0));
  rc = psql_step(f, stmt);
  if (rc == SQLITE_ROW) {
    snprintf(message, size,
             "%s: multiple values were returned when executing function body. "
             "Executed SQL was %s",
             f->name, f->body);
    return 1;
  }
  if (rc != SQLITE_DONE) {
    psql_body_error(f, message, size);
    return 1;
  }
  return 0;
}

static void psql_scalar_call(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  psql_function *f = sqlite3_user_data(ctx);
  char message[512];
  if (psql_check_args(f, argv, message, sizeof message)) {
    sqlite3_result_error(ctx, message, -1);
    return;
  }
  sqlite3_stmt *stmt = psql_acquire(f);
  if (!stmt) {
    snprintf(message, sizeof message, "%s: %s", f->name, sqlite3_errmsg(f->ps->db));
    sqlite3_result_error(ctx, message, -1);
    return;
  }
  psql_bind_args(f, stmt, argv);
  int failed = psql_too_deep(f->ps, message, sizeof message, f->name);
  if (!failed) failed = psql_scalar_run(f, ctx, stmt, message, sizeof message);
  if (failed) sqlite3_result_error(ctx, message, -1);
  psql_release(f, stmt);
}

/* ---- table-valued functions ---- */

typedef struct psql_fn_vtab {
  sqlite3_vtab base;
  psql_function *f;
} psql_fn_vtab;

typedef struct psql_fn_cursor {
  sqlite3_vtab_cursor base;
  sqlite3_stmt *stmt;
  int eof;
  sqlite3_int64 row;
  sqlite3_value *args[PSQL_MAX_ARGS];
} psql_fn_cursor;

static int psql_fn_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                           sqlite3_vtab **out, char **err_msg) {
  (void)argc;
  (void)argv;
  psql_function *f = aux;
  sqlite3_str *decl = sqlite3_str_new(db);
  sqlite3_str_appendall(decl, "CREATE TABLE x(");
  for (size_t i = 0; i < f->columns.count; i++)
    sqlite3_str_appendf(decl, "%s\"%w\"", i ? ", " : "", f->columns.items[i].name);
  for (size_t i = 0; i < f->args.count; i++)
    sqlite3_str_appendf(decl, ", \"arg_%w\" HIDDEN", f->args.items[i].name);
  sqlite3_str_appendall(decl, ")");
  char *sql = sqlite3_str_finish(decl);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_declare_vtab(db, sql);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    *err_msg = sqlite3_mprintf("%s: cannot declare its table", f->name);
    return rc;
  }
  psql_fn_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->f = f;
  *out = &v->base;
  return SQLITE_OK;
}

static int psql_fn_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

/* Every argument needs an equality constraint; they reach xFilter in
 * argument order. */
static int psql_fn_best_index(sqlite3_vtab *vt, sqlite3_index_info *info) {
  psql_function *f = ((psql_fn_vtab *)vt)->f;
  int first_arg = (int)f->columns.count;
  size_t found = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn < first_arg) continue;
    if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    info->aConstraintUsage[i].argvIndex = c->iColumn - first_arg + 1;
    info->aConstraintUsage[i].omit = 1;
    found++;
  }
  if (found < f->args.count) return SQLITE_CONSTRAINT;
  info->estimatedCost = 1000;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

static int psql_fn_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out) {
  (void)vt;
  psql_fn_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static void psql_fn_reset(psql_fn_cursor *c, psql_function *f) {
  if (c->stmt) psql_release(f, c->stmt);
  c->stmt = NULL;
  for (size_t i = 0; i < PSQL_MAX_ARGS; i++) {
    sqlite3_value_free(c->args[i]);
    c->args[i] = NULL;
  }
}

static int psql_fn_close(sqlite3_vtab_cursor *cur) {
  psql_fn_cursor *c = (psql_fn_cursor *)cur;
  psql_fn_reset(c, ((psql_fn_vtab *)cur->pVtab)->f);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int psql_fn_fail(sqlite3_vtab_cursor *cur, const char *message) {
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("%s", message);
  return SQLITE_ERROR;
}

static int psql_fn_next(sqlite3_vtab_cursor *cur) {
  psql_fn_cursor *c = (psql_fn_cursor *)cur;
  psql_function *f = ((psql_fn_vtab *)cur->pVtab)->f;
  int rc = psql_step(f, c->stmt);
  c->row++;
  if (rc == SQLITE_ROW) return SQLITE_OK;
  c->eof = 1;
  if (rc == SQLITE_DONE) return SQLITE_OK;
  char message[512];
  psql_body_error(f, message, sizeof message);
  return psql_fn_fail(cur, message);
}

static int psql_fn_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str,
                          int argc, sqlite3_value **argv) {
  (void)idx_num;
  (void)idx_str;
  psql_fn_cursor *c = (psql_fn_cursor *)cur;
  psql_function *f = ((psql_fn_vtab *)cur->pVtab)->f;
  psql_fn_reset(c, f);
  char message[512];
  if ((size_t)argc != f->args.count) return psql_fn_fail(cur, "bad arguments");
  /* Unlike a scalar function's, a table function's argument types are not
   * checked (Perfetto passes any value through). */
  if (psql_too_deep(f->ps, message, sizeof message, f->name))
    return psql_fn_fail(cur, message);
  for (int i = 0; i < argc; i++)
    if (!(c->args[i] = sqlite3_value_dup(argv[i]))) return SQLITE_NOMEM;
  if (!(c->stmt = psql_acquire(f))) {
    snprintf(message, sizeof message, "%s: %s", f->name, sqlite3_errmsg(f->ps->db));
    return psql_fn_fail(cur, message);
  }
  psql_bind_args(f, c->stmt, c->args);
  c->eof = 0;
  c->row = -1;
  return psql_fn_next(cur);
}

static int psql_fn_eof(sqlite3_vtab_cursor *cur) {
  return ((psql_fn_cursor *)cur)->eof;
}

static int psql_fn_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  psql_fn_cursor *c = (psql_fn_cursor *)cur;
  psql_function *f = ((psql_fn_vtab *)cur->pVtab)->f;
  int columns = (int)f->columns.count;
  if (i < columns) {
    if (i < sqlite3_column_count(c->stmt))
      sqlite3_result_value(ctx, sqlite3_column_value(c->stmt, i));
  } else if ((size_t)(i - columns) < f->args.count) {
    sqlite3_result_value(ctx, c->args[i - columns]);
  }
  return SQLITE_OK;
}

static int psql_fn_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out) {
  *out = ((psql_fn_cursor *)cur)->row;
  return SQLITE_OK;
}

static const sqlite3_module psql_fn_module = {
    .iVersion = 0,
    .xConnect = psql_fn_connect,
    .xBestIndex = psql_fn_best_index,
    .xDisconnect = psql_fn_disconnect,
    .xOpen = psql_fn_open,
    .xClose = psql_fn_close,
    .xFilter = psql_fn_filter,
    .xNext = psql_fn_next,
    .xEof = psql_fn_eof,
    .xColumn = psql_fn_column,
    .xRowid = psql_fn_rowid,
};

/* ---- definition ---- */

/* Prepares the body once to check it, keeping the statement. */
static int psql_function_check(psql_function *f, base_error *err) {
  int rc = sql_views_ensure_engine(f->ps->engine, f->body, err);
  if (rc) return rc;
  sqlite3_stmt *stmt = NULL;
  if (psql_prepare_body(f, &stmt) != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return base_error_set(err, sql_engine_status(f->ps->engine),
                          "CREATE PERFETTO FUNCTION[prototype=%s]: %s", f->prototype,
                          sqlite3_errmsg(f->ps->db));
  }
  if (!stmt)
    return base_error_set(err, WEFT_ESQL,
                          "CREATE PERFETTO FUNCTION[prototype=%s]: empty body", f->prototype);
  if (f->returns_table && (size_t)sqlite3_column_count(stmt) != f->columns.count) {
    sqlite3_finalize(stmt);
    return base_error_set(err, WEFT_ESQL,
                          "CREATE PERFETTO FUNCTION[prototype=%s]: the body returns %d "
                          "columns but %zu are declared",
                          f->prototype, sqlite3_column_count(stmt), f->columns.count);
  }
  f->idle[f->idle_count++] = stmt;
  return WEFT_OK;
}

static int psql_function_register(psql_function *f, base_error *err) {
  int rc;
  if (f->returns_table)
    rc = sqlite3_create_module_v2(f->ps->db, f->name, &psql_fn_module, f, NULL);
  else
    rc = sqlite3_create_function_v2(f->ps->db, f->name, (int)f->args.count, SQLITE_UTF8,
                                    f, psql_scalar_call, NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return base_error_set(err, sql_engine_status(f->ps->engine),
                          "CREATE PERFETTO FUNCTION[prototype=%s]: %s", f->prototype,
                          sqlite3_errmsg(f->ps->db));
  return WEFT_OK;
}

/* Takes `f`'s name away from SQLite (a failed definition). */
static void psql_function_unregister(psql_function *f) {
  if (f->returns_table)
    sqlite3_create_module_v2(f->ps->db, f->name, NULL, NULL, NULL);
  else
    sqlite3_create_function_v2(f->ps->db, f->name, (int)f->args.count, SQLITE_UTF8,
                               NULL, NULL, NULL, NULL, NULL);
}

/* Removes `f` (if not NULL) from the list and frees it. */
static void psql_function_remove(psql *ps, psql_function *f) {
  if (!f) return;
  for (size_t i = 0; i < ps->function_count; i++)
    if (ps->functions[i] == f) {
      ps->functions[i] = ps->functions[--ps->function_count];
      break;
    }
  psql_function_free(f);
}

static int psql_function_add(psql *ps, psql_function *f, base_error *err) {
  psql_function **grown =
      base_realloc(ps->functions, (ps->function_count + 1) * sizeof *grown);
  if (!grown) return base_error_nomem(err);
  ps->functions = grown;
  ps->functions[ps->function_count++] = f;
  return WEFT_OK;
}

int psql_function_define(psql *ps, const char *name, const char *prototype,
                         psql_fields *args, int returns_table,
                         psql_type return_type, psql_fields *columns,
                         const char *body, size_t body_len, int replace,
                         base_error *err) {
  (void)return_type; /* Perfetto does not check what the body returns */
  if (sqlite3_keyword_check(name, (int)strlen(name)))
    return base_error_set(err, WEFT_ESQL, "syntax error near '%s'", name);
  psql_function *old = psql_function_find(ps, name);
  if (old && !replace)
    return base_error_set(err, WEFT_ESQL,
                          "CREATE PERFETTO FUNCTION[prototype=%s]: function already exists",
                          prototype);
  if (old && old->returns_table != returns_table)
    return base_error_set(err, WEFT_ESQL,
                          "CREATE PERFETTO FUNCTION[prototype=%s]: cannot replace a %s "
                          "function with a %s one",
                          prototype, old->returns_table ? "table" : "scalar",
                          returns_table ? "table" : "scalar");
  psql_function *f = base_calloc(1, sizeof *f);
  if (!f) return base_error_nomem(err);
  f->ps = ps;
  f->returns_table = returns_table;
  f->args = *args;
  f->columns = *columns;
  *args = (psql_fields){0};
  *columns = (psql_fields){0};
  f->name = base_strndup(name, strlen(name));
  f->prototype = base_strndup(prototype, strlen(prototype));
  f->body = base_strndup(body, body_len);
  int rc = f->name && f->prototype && f->body ? WEFT_OK : base_error_nomem(err);
  if (rc == WEFT_OK) rc = psql_function_add(ps, f, err);
  if (rc) {
    psql_function_free(f);
    return rc;
  }
  /* Registered before its body is checked: a body may call itself. */
  rc = psql_function_register(f, err);
  if (rc == WEFT_OK) rc = psql_function_check(f, err);
  if (rc == WEFT_OK) {
    if (old && !old->returns_table && old->args.count != f->args.count)
      psql_function_unregister(old);
    psql_function_remove(ps, old);
    return WEFT_OK;
  }
  psql_function_unregister(f);
  psql_function_remove(ps, f);
  if (old) psql_function_register(old, NULL);
  return rc;
}
