/* vtab_view: Perfetto's views of one storage table (thread, slice, args,
 * thread_track, sched, ...) served by the storage tables' virtual-table
 * module (vtab.c) as eponymous tables of their own, not as SQL views.
 *
 * Why: SQLite does not flatten a view whose FROM holds a virtual table
 * when the view is the right side of a LEFT JOIN. It copies the whole view
 * into a temporary table and builds an index on it, for every such query:
 * `slice LEFT JOIN args USING (arg_set_id)` paid for every arg of the
 * trace, and rows of one arg set came in the index's order, not in id
 * order. Served by the module, the view is read like its table: the same
 * pushdown, row orders, estimates and id order.
 *
 * A view is a projection of its table's rows that pass fixed checks. Its
 * columns are base columns (renamed or not) or one of a few computed ones:
 *   *                every column of the table SELECT * shows, in order
 *   x  or  a=x       base column x (named a)
 *   a=cpu(x)         x % 4096 (a ucpu's cpu number)
 *   a=end(x,y)       x + y (SQLite's sum: a REAL when it overflows)
 *   a=arg(x,key)     EXTRACT_ARG(x, 'key')
 *   a=ifnull(x,lit)  COALESCE(x, lit), lit an integer or 'text'
 *   a=display()      the args table's display_value (Perfetto's CASE)
 * Its checks (all must hold) are `x=s` (string column x equal to s),
 * `x=s|t|u` (to one of them), `x#n` (int column x equal to n) and `x!`
 * (x not NULL).
 *
 * Invariants: base column indexes are the table's; a view's checks are
 * applied on every scan before any other constraint, so a query sees only
 * the view's rows. The engine owns the views; they point to its tables'
 * sql_vtab_aux, which must outlive them. */
#ifndef WEFT_SQL_VTAB_VIEW_H
#define WEFT_SQL_VTAB_VIEW_H

#include "sql/sql.h"

#define SQL_VIEW_MAX_COLUMNS 64
#define SQL_VIEW_MAX_CHECKS 3
#define SQL_VIEW_MAX_IN 10

typedef enum sql_view_kind {
  SQL_VIEW_BASE,    /* base column `base` */
  SQL_VIEW_CPU,     /* base % 4096 */
  SQL_VIEW_END,     /* base + base2 */
  SQL_VIEW_ARG,     /* EXTRACT_ARG(base, key) */
  SQL_VIEW_IFNULL,  /* COALESCE(base, literal) */
  SQL_VIEW_DISPLAY, /* args display_value */
} sql_view_kind;

typedef struct sql_view_column {
  char name[48];
  sql_view_kind kind;
  int base, base2;
  char text[48];    /* ARG: the key; IFNULL: a text literal */
  int literal_is_text;
  int64_t literal;  /* IFNULL: an integer literal */
} sql_view_column;

typedef enum sql_view_check_kind {
  SQL_VIEW_CHECK_STR_IN, /* column is one of strs */
  SQL_VIEW_CHECK_INT_EQ, /* column == value */
  SQL_VIEW_CHECK_NOT_NULL,
} sql_view_check_kind;

typedef struct sql_view_check {
  sql_view_check_kind kind;
  int column;
  const char *strs[SQL_VIEW_MAX_IN]; /* into the spec's text */
  size_t str_lens[SQL_VIEW_MAX_IN];
  size_t str_count;
  int64_t value;
} sql_view_check;

typedef struct sql_view {
  const char *name;
  sql_vtab_aux *aux; /* the base table's */
  sql_view_column columns[SQL_VIEW_MAX_COLUMNS];
  size_t column_count;
  sql_view_check checks[SQL_VIEW_MAX_CHECKS];
  size_t check_count;
  /* the checks' string ids, taken when the pool held check_ids_pool_len */
  string_id check_ids[SQL_VIEW_MAX_CHECKS][SQL_VIEW_MAX_IN];
  size_t check_ids_pool_len;
  int check_ids_taken;
  sql_args_table args; /* args.table NULL: no args table */
  /* the share of the table's rows the checks keep, for estimates; taken
   * when the table had share_rows rows */
  size_t share_rows;
  double share;
} sql_view;

/* The views served this way, with their tables (vtab_view.c). */
typedef struct sql_view_spec {
  const char *name, *table, *columns, *checks;
} sql_view_spec;
extern const sql_view_spec sql_view_specs[];
extern const size_t sql_view_spec_count;

/* Reads `spec` over `aux`'s table into *v (args: the args table, for
 * computed columns); WEFT_EINVAL with a message naming the view when the
 * spec names a column the table lacks or cannot be read. */
int sql_view_parse(const sql_view_spec *spec, sql_vtab_aux *aux,
                   const storage_table *args, sql_view *v, base_error *err);

/* The `CREATE TABLE x(...)` text that declares the view's columns. */
int sql_view_declaration(const sql_view *v, base_buf *out);

/* Registers the view as an eponymous virtual table (vtab.c's module). */
int sql_view_register(sqlite3 *db, sql_view *v);

/* Whether row `row` of the table passes the view's checks (strings: the
 * ids of each check's strings, STRING_NULL where the pool has none). */
int sql_view_row_passes(const sql_view *v, const string_id (*strs)[SQL_VIEW_MAX_IN], size_t row);
/* The same with the NOT NULL checks left out (for estimates). */
int sql_view_row_values_pass(const sql_view *v, const string_id (*strs)[SQL_VIEW_MAX_IN],
                             size_t row);
/* The string ids of the view's checks, looked up in the pool. */
void sql_view_check_strings(sql_view *v, const base_string_pool *strings,
                            string_id (*out)[SQL_VIEW_MAX_IN]);

/* Sets ctx's result to computed column `col` of row `row`. */
void sql_view_result(const sql_view *v, const base_string_pool *strings, size_t col,
                     size_t row, sqlite3_context *ctx);

#endif
