/* sql: the SQL surface — an in-memory SQLite database whose tables are
 * storage tables (through the generic virtual table in vtab.c), plus
 * Perfetto's views, functions and stdlib modules.
 *
 * Owns the sqlite3 handle. Does not own the storage tables: they must outlive
 * the engine and must not change while a query runs. */
#ifndef WEFT_SQL_H
#define WEFT_SQL_H

#include <sqlite3.h>

#include "base/base.h"
#include "storage/storage.h"

typedef struct sql_scan_stats {
  uint64_t scans;        /* xFilter calls */
  uint64_t rows_visited; /* rows handed to SQLite */
} sql_scan_stats;

typedef struct sql_vtab_aux {
  storage_table *table;
  base_string_pool *strings;
  sql_scan_stats *stats;
} sql_vtab_aux;

typedef struct sql_engine sql_engine;

/* Opens the engine over `tables`; aux entries are created per table. */
int sql_engine_open(sql_engine **out, storage_table *const *tables,
                    size_t table_count, base_string_pool *strings,
                    base_error *err);
void sql_engine_close(sql_engine *e);
/* Runs every statement in `sql`; see weft_query for the callbacks. */
int sql_engine_execute(sql_engine *e, const char *sql,
                       const weft_query_callbacks *cb, base_error *err);
sql_scan_stats *sql_engine_scan_stats(sql_engine *e);
sqlite3 *sql_engine_db(sql_engine *e);

/* Converts a trace-time timestamp to builtin clock `clock_id` of the
 * trace-time machine; 0 on success, nonzero if the clock is unknown. */
typedef int (*sql_clock_fn)(void *user, uint64_t clock_id, int64_t ts, int64_t *out);
void sql_engine_set_clock_converter(sql_engine *e, sql_clock_fn fn, void *user);
int sql_engine_to_clock(sql_engine *e, uint64_t clock_id, int64_t ts, int64_t *out);

/* The storage table served under `name`, or NULL. */
storage_table *sql_engine_find_table(sql_engine *e, const char *name);
base_string_pool *sql_engine_strings(sql_engine *e);

/* Registers one storage table as an eponymous virtual table. */
int sql_vtab_register(sqlite3 *db, sql_vtab_aux *aux);

/* Views and stdlib modules (views.c). */
int sql_views_create(sqlite3 *db, base_error *err);
/* Runs the SQL of stdlib module `name` once; unknown names are an error. */
int sql_module_include(sqlite3 *db, const char *name, base_error *err);
/* Scalar functions Perfetto offers (functions.c). */
int sql_functions_register(sqlite3 *db, sql_engine *e);
/* extract_metadata / extract_metadata_for_machine (functions_metadata.c). */
int sql_metadata_functions_register(sqlite3 *db, sql_engine *e);
/* to_ftrace(id) (to_ftrace.c). */
int sql_to_ftrace_register(sqlite3 *db, sql_engine *e);

#endif
