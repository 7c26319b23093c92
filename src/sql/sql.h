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

/* Fills a table on demand; 0 or a WEFT_E* code. */
typedef int (*sql_table_fill_fn)(void *user);

/* An index of a storage table (CREATE PERFETTO INDEX): its row ids ordered
 * by some columns, NULLs first, numbers by value, strings by their bytes.
 * The virtual table narrows constraints on a prefix of the columns by
 * binary search over `order` (equalities on the leading columns, then a
 * range on the next). Valid while the table does not change. */
#define SQL_INDEX_MAX_COLUMNS 8
typedef struct sql_vtab_index {
  char *name;
  int columns[SQL_INDEX_MAX_COLUMNS];
  size_t column_count;
  uint32_t *order; /* row_count row ids */
} sql_vtab_index;

/* Builds ix->order for ix->columns over `t`; WEFT_ENOMEM on failure. */
int sql_vtab_index_build(sql_vtab_index *ix, const storage_table *t,
                         const base_string_pool *strings);
void sql_vtab_index_free(sql_vtab_index *ix);
/* Narrows [*lo, *hi), positions of ix->order whose first `column` index
 * columns are equal, to those whose index column `column` satisfies
 * `op value` (op: 0 =, 1 <, 2 <=, 3 >, 4 >=). Values it cannot compare
 * exactly leave the range as it is: the caller re-checks every row. */
void sql_vtab_index_narrow(const sql_vtab_index *ix, const storage_table *t,
                           const base_string_pool *strings, size_t column, int op,
                           sqlite3_value *value, size_t *lo, size_t *hi);

struct sql_vtab_order; /* vtab_order.c */

typedef struct sql_vtab_aux {
  storage_table *table;
  base_string_pool *strings;
  sql_scan_stats *stats;
  sql_table_fill_fn fill; /* run before the table is first read, or NULL */
  void *fill_user;
  const sql_vtab_index *indexes; /* NULL for the trace's own tables */
  size_t index_count;
  const int *interrupted; /* the engine's interrupt flag, or NULL */
  struct sql_vtab_order *orders; /* cached row orders (vtab_order.c) */
  uint32_t *equality_scans;      /* per column: scans that checked `=` row by row */
  struct sql_vtab_column_sample **samples; /* per column: values sampled for estimates */
} sql_vtab_aux;

/* The rows of aux's table estimated to have column col (an int or string
 * column) equal to `value`, or to one value of the column when value is
 * NULL (a join's probe); at least 1. For the planner only
 * (vtab_estimate.c). */
double sql_vtab_estimate_equal(sql_vtab_aux *aux, int col, sqlite3_value *value);
/* Frees the samples the estimates took. */
void sql_vtab_samples_free(sql_vtab_aux *aux);

/* A row order of a whole table that the virtual table hands SQLite in
 * place of its sorter (vtab_order.c): rows by `columns` (-1: the id),
 * NULLs first, numbers by value, strings by their bytes, `desc` columns
 * reversed (NULLs last), ties by row id. */
#define SQL_ORDER_MAX_COLUMNS 4
typedef struct sql_order_spec {
  int columns[SQL_ORDER_MAX_COLUMNS];
  uint8_t desc[SQL_ORDER_MAX_COLUMNS];
  uint8_t count; /* 1..SQL_ORDER_MAX_COLUMNS */
} sql_order_spec;

/* A row order made for a spec: the rows, and the spec's columns' values
 * copied in that order (values[c]: the string ids of a STR column, the
 * ints of a non-nullable I64 column, else NULL) so that a scan reads them
 * in sequence rather than by row. */
typedef struct sql_vtab_order {
  sql_order_spec spec;
  size_t row_count;    /* of the table when made */
  uint32_t generation; /* of the table when made */
  uint32_t *rows;
  void *values[SQL_ORDER_MAX_COLUMNS];
  struct sql_vtab_order *next; /* in sql_vtab_aux.orders */
} sql_vtab_order;

/* Sets *order to the table's rows in `spec`'s order, made on first use and
 * cached in `aux` while the table does not change (its row_count and
 * generation); when the cache is full the order is made for the caller,
 * who owns it in *owned (sql_vtab_order_free; else *owned = NULL).
 * WEFT_ENOMEM if it cannot be made. */
int sql_vtab_order_get(sql_vtab_aux *aux, const sql_order_spec *spec,
                       const sql_vtab_order **order, sql_vtab_order **owned);
void sql_vtab_order_free(sql_vtab_order *o);
/* Positions [*lo, *hi) of `rows`, the order of the spec {col ascending},
 * whose value of `col` is v (an I64 column) or the string s (a STR column;
 * s != STRING_NULL). */
void sql_vtab_order_equal_range(const sql_vtab_aux *aux, int col, const uint32_t *rows,
                                int64_t v, string_id s, size_t *lo, size_t *hi);
/* Frees the cached orders and the scan counts (no scan may be using
 * them). */
void sql_vtab_orders_free(sql_vtab_aux *aux);

typedef struct sql_engine sql_engine;

/* Opens the engine over `tables`; aux entries are created per table. */
int sql_engine_open(sql_engine **out, storage_table *const *tables,
                    size_t table_count, base_string_pool *strings,
                    base_error *err);
void sql_engine_close(sql_engine *e);
/* Runs every statement in `sql`; see weft_query for the callbacks. */
int sql_engine_execute(sql_engine *e, const char *sql,
                       const weft_query_callbacks *cb, base_error *err);
/* The same, naming the text `source` in error tracebacks (a file's path;
 * "stdin" for sql_engine_execute). */
int sql_engine_execute_source(sql_engine *e, const char *source, const char *sql,
                              const weft_query_callbacks *cb, base_error *err);
sql_scan_stats *sql_engine_scan_stats(sql_engine *e);
/* WEFT_ENOMEM when SQLite's last error was an allocation failure (ours, in
 * a virtual table, or its own), else WEFT_ESQL. */
int sql_engine_status(sql_engine *e);
/* The message of the engine's last error: SQLite's, or for a CREATE the
 * engine refused because a view served as a table holds the name,
 * "view NAME already exists" (buf holds it). */
const char *sql_engine_refusal(sql_engine *e, char *buf, size_t size);
/* 1 if `name` is one of Perfetto's views served as a virtual table. */
int sql_engine_is_served_view(const char *name);
sqlite3 *sql_engine_db(sql_engine *e);
/* Makes the statement running on `e` stop soon with SQLITE_INTERRUPT
 * (sql_engine_status: WEFT_EABORT), from another thread or a signal
 * handler (async-signal-safe); the flag is cleared when the next SQL text
 * starts. Virtual tables look at it in their long loops. */
void sql_engine_interrupt(sql_engine *e);
const int *sql_engine_interrupt_flag(const sql_engine *e);

/* Converts a trace-time timestamp to builtin clock `clock_id` of the
 * trace-time machine; 0 on success, nonzero if the clock is unknown. */
typedef int (*sql_clock_fn)(void *user, uint64_t clock_id, int64_t ts, int64_t *out);
void sql_engine_set_clock_converter(sql_engine *e, sql_clock_fn fn, void *user);
int sql_engine_to_clock(sql_engine *e, uint64_t clock_id, int64_t ts, int64_t *out);

/* The user PerfettoSQL packages INCLUDE PERFETTO MODULE also finds
 * (sql/packages.h); borrowed, they must outlive the engine. */
struct sql_packages;
void sql_engine_set_packages(sql_engine *e, const struct sql_packages *packages);

/* Makes `fn` run before SQL first reads table `name` (when the first
 * statement naming it, directly or through a view, is prepared), for a
 * table that costs more to build than most queries need; `fn` must fill it
 * once and may run again. Its failure fails that statement. WEFT_EINVAL if
 * there is no such table. */
int sql_engine_set_table_fill(sql_engine *e, const char *name,
                              sql_table_fill_fn fn, void *user);
/* The storage table served under `name`, or NULL. */
storage_table *sql_engine_find_table(sql_engine *e, const char *name);
base_string_pool *sql_engine_strings(sql_engine *e);

/* Registers one storage table as an eponymous virtual table. */
int sql_vtab_register(sqlite3 *db, sql_vtab_aux *aux);
/* Sets ctx's result to a storage cell as the virtual tables give it
 * (NULL, an int, a double or the string's text). */
void sql_vtab_cell(sqlite3_context *ctx, const storage_table *t,
                   const base_string_pool *strings, size_t col, size_t row);

/* The args table's columns EXTRACT_ARG reads (functions.c). */
typedef struct sql_args_table {
  const storage_table *table;
  size_t set, key, int_value, string_value, real_value, value_type;
} sql_args_table;
/* Finds them in t; 0 when t is NULL or lacks one. */
int sql_args_table_of(const storage_table *t, sql_args_table *out);
/* EXTRACT_ARG: sets ctx's result to the typed value of `key` in arg set
 * `set` (left NULL when the set has no such key). */
void sql_args_extract(sqlite3_context *ctx, const sql_args_table *a,
                      const base_string_pool *strings, int64_t set, string_id key);

/* Perfetto's views (views.c): `CREATE VIEW name AS ...` statements. */
extern const char *const sql_view_statements[];
extern const size_t sql_view_statement_count;

/* Views are created on first use (views_lazy.c), as creating all of them
 * costs more than a small trace's whole load: before SQL text runs,
 * sql_views_ensure creates every view whose name appears in it as a word
 * (and, first, the views those use); text that may read the schema itself
 * (a word starting with sqlite_ or pragma) creates them all. A view created
 * while a transaction was open is re-checked on next use, as a rollback may
 * have dropped it. Query results are as if every view existed from the
 * start. */
#define SQL_VIEWS_MAX 128
typedef struct sql_views {
  sqlite3 *db;
  uint8_t state[SQL_VIEWS_MAX];    /* sql_view_state */
  uint8_t name_len[SQL_VIEWS_MAX]; /* of each view's name */
} sql_views;
int sql_views_init(sql_views *v, sqlite3 *db, base_error *err);
int sql_views_ensure(sql_views *v, const char *sql, base_error *err);
/* Scalar functions Perfetto offers (functions.c). */
int sql_functions_register(sqlite3 *db, sql_engine *e);
/* extract_metadata / extract_metadata_for_machine (functions_metadata.c). */
int sql_metadata_functions_register(sqlite3 *db, sql_engine *e);
/* to_ftrace(id) (to_ftrace.c). */
int sql_to_ftrace_register(sqlite3 *db, sql_engine *e);

#endif
