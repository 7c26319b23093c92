/* Views over the storage tables, and the stdlib modules that
 * INCLUDE PERFETTO MODULE can load. */
#include "sql/sql.h"

static const char *const sql_view_statements[] = {
    "CREATE VIEW trace_file AS SELECT * FROM __intrinsic_trace_file",
};

typedef struct sql_module {
  const char *name;
  const char *sql; /* run once, on first include */
} sql_module;

static const sql_module sql_modules[] = {
    {"slices.with_context", ""},
};

int sql_views_create(sqlite3 *db, base_error *err) {
  for (size_t i = 0; i < sizeof sql_view_statements / sizeof *sql_view_statements; i++) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql_view_statements[i], NULL, NULL, &msg) != SQLITE_OK) {
      base_error_set(err, WEFT_ESQL, "creating views: %s", msg ? msg : "?");
      sqlite3_free(msg);
      return WEFT_ESQL;
    }
  }
  return WEFT_OK;
}

int sql_module_include(sqlite3 *db, const char *name, base_error *err) {
  for (size_t i = 0; i < sizeof sql_modules / sizeof *sql_modules; i++) {
    if (strcmp(sql_modules[i].name, name) != 0) continue;
    char *msg = NULL;
    /* IF NOT EXISTS in the module SQL makes repeated includes harmless. */
    if (sqlite3_exec(db, sql_modules[i].sql, NULL, NULL, &msg) != SQLITE_OK) {
      base_error_set(err, WEFT_ESQL, "module %s: %s", name, msg ? msg : "?");
      sqlite3_free(msg);
      return WEFT_ESQL;
    }
    return WEFT_OK;
  }
  return base_error_set(err, WEFT_ESQL, "Unknown module name provided - %s",
                        name);
}
