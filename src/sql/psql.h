/* psql: PerfettoSQL, the dialect on top of SQLite's SQL.
 *
 * Owns what PerfettoSQL statements define on one engine: macros, functions
 * (scalar and table-valued), Perfetto tables (materialised into storage
 * tables, served by the generic virtual table) and the set of stdlib modules
 * already included. The engine owns the psql state; psql borrows the
 * engine's sqlite3 handle and string pool.
 *
 * Execution: psql_execute splits text into statements with the lexer,
 * handles `INCLUDE PERFETTO MODULE`, `CREATE [OR REPLACE] PERFETTO
 * TABLE|VIEW|FUNCTION|MACRO|INDEX` and `DROP PERFETTO INDEX` itself, and
 * hands every other statement, its macros expanded, to SQLite. An error
 * carries a Perfetto-style traceback naming the source, line and column of
 * the statement (and of each module include it came through).
 *
 * Hostile SQL is bounded: macro expansion depth (PSQL_MAX_MACRO_DEPTH) and
 * size (PSQL_MAX_EXPANSION_BYTES), include depth (PSQL_MAX_INCLUDE_DEPTH)
 * and nested function calls (PSQL_MAX_CALL_DEPTH) stop with an error. */
#ifndef WEFT_SQL_PSQL_H
#define WEFT_SQL_PSQL_H

#include <sqlite3.h>

#include "base/base.h"
#include "sql/psql_lexer.h"
#include "sql/sql.h"

#define PSQL_MAX_MACRO_DEPTH 64
#define PSQL_MAX_EXPANSION_BYTES ((size_t)4 << 20)
#define PSQL_MAX_INCLUDE_DEPTH 32
#define PSQL_MAX_CALL_DEPTH 128
#define PSQL_MAX_ARGS 64

/* The documented PerfettoSQL types. */
typedef enum psql_type {
  PSQL_TYPE_ANY, /* a column without a declared type */
  PSQL_TYPE_LONG,
  PSQL_TYPE_INT,
  PSQL_TYPE_BOOL,
  PSQL_TYPE_DOUBLE,
  PSQL_TYPE_STRING,
  PSQL_TYPE_BYTES,
  PSQL_TYPE_TIMESTAMP,
  PSQL_TYPE_DURATION,
  PSQL_TYPE_ARGSETID,
  PSQL_TYPE_ID,
  PSQL_TYPE_JOINID
} psql_type;

/* One `name TYPE` of an argument list or schema. */
typedef struct psql_field {
  char *name;
  psql_type type;
} psql_field;

typedef struct psql_fields {
  psql_field *items;
  size_t count;
} psql_fields;

typedef struct psql_macro psql_macro;
typedef struct psql_function psql_function;
typedef struct psql_table psql_table;

typedef struct sql_packages sql_packages;

typedef struct psql {
  sql_engine *engine;
  const sql_packages *packages; /* user packages (packages.h), borrowed; or NULL */
  sqlite3 *db;
  psql_macro **macros;
  size_t macro_count;
  psql_function **functions;
  size_t function_count;
  psql_table **tables;
  size_t table_count;
  char **included; /* module names already run */
  size_t included_count;
  int include_depth;
  int call_depth; /* nested PerfettoSQL function calls */
} psql;

int psql_init(psql *ps, sql_engine *engine, sqlite3 *db);
void psql_free(psql *ps);

/* Runs every statement of `sql`; `source` names the text in errors ("stdin"
 * for a query, a file's path for `-q FILE`). */
int psql_execute(psql *ps, const char *source, const char *sql,
                 const weft_query_callbacks *cb, base_error *err);

/* --- between the psql files --- */

/* Parses `( name TYPE, ... )` at *pp (the opening parenthesis); an empty
 * list is allowed. On success *pp is after the closing parenthesis. */
int psql_parse_fields(const char **pp, psql_fields *out, base_error *err);
void psql_fields_free(psql_fields *f);
const char *psql_type_name(psql_type t);
/* A copy of the token's text, with quotes removed from a quoted name. */
char *psql_token_name(const psql_token *t);

/* Macros (psql_macro.c). `body` is the text after AS. */
int psql_macro_define(psql *ps, const char *name, psql_fields *args,
                      const char *body, size_t body_len, int replace,
                      base_error *err);
/* Expands every macro call in text[0..len) into a new NUL-terminated
 * string (*out, owned by the caller); *out is NULL when there is none. */
int psql_macro_expand(psql *ps, const char *text, size_t len, char **out,
                      base_error *err);
void psql_macros_free(psql *ps);

/* Functions (psql_function.c). Takes ownership of args/columns. */
int psql_function_define(psql *ps, const char *name, const char *prototype,
                         psql_fields *args, int returns_table,
                         psql_type return_type, psql_fields *columns,
                         const char *body, size_t body_len, int replace,
                         base_error *err);
void psql_functions_free(psql *ps);
/* Finalizes the bodies kept prepared (their plans may name an index that
 * changed); they are prepared again on their next call. */
void psql_functions_forget_plans(psql *ps);

/* Perfetto tables and indexes (psql_table.c). `select` is a NUL-terminated
 * SELECT statement; `schema` may have count 0. */
int psql_table_create(psql *ps, const char *name, const psql_fields *schema,
                      const char *select, int replace, base_error *err);
int psql_view_create(psql *ps, const char *name, const psql_fields *schema,
                     const char *select, int replace, base_error *err);
int psql_index_create(psql *ps, const char *name, const char *table,
                      char **columns, size_t column_count, int replace,
                      base_error *err);
int psql_index_drop(psql *ps, const char *name, const char *table,
                    base_error *err);
void psql_tables_free(psql *ps);

/* Stdlib modules (modules.c): runs module `name` (or every module matching a
 * `prefix.*` / `*` pattern) unless already included. */
int psql_include(psql *ps, const char *name, base_error *err);
/* Runs every `prelude.*` module (at engine open). */
int psql_run_prelude(psql *ps, base_error *err);

/* The engine's services to psql (engine.c). */
/* Creates the built-in views that `sql` names (see sql_views_ensure). */
int sql_views_ensure_engine(sql_engine *e, const char *sql, base_error *err);

/* Runs one prepared SQLite statement, reporting its rows to `cb`. */
int sql_engine_run_statement(sql_engine *e, sqlite3_stmt *stmt, int statement,
                             const weft_query_callbacks *cb, base_error *err);

#endif
