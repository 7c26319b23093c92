/* The names of every table and view a loaded trace answers for: the
 * schema's tables and views, and the trace's own tables (eponymous virtual
 * tables whose columns are all visible: table-valued functions and
 * operators have hidden argument columns; SQLite's own modules, sqlite_*,
 * pragma_* and fts*, are left out). Used by the shell's .tables and by
 * the exports. */
#ifndef WEFT_CLI_TABLES_H
#define WEFT_CLI_TABLES_H

#include <stddef.h>

#include "weft/weft.h"

typedef struct cli_table_names {
  char **names;   /* sorted, each once */
  char *is_view;  /* per name: 1 for a view */
  size_t count, cap;
} cli_table_names;

/* Fills `out` (zeroed first); 0, or -1 when out of memory. */
int cli_table_names_list(weft *w, cli_table_names *out);
void cli_table_names_free(cli_table_names *t);

/* The columns of a table or view, with their declared types ("" when
 * none). */
typedef struct cli_table_columns {
  char **names;
  char **types;
  size_t count, cap;
  int failed;
} cli_table_columns;

/* Fills `out` (zeroed by the caller); 0, or -1 on failure. */
int cli_table_columns_list(weft *w, const char *table, cli_table_columns *out);
void cli_table_columns_free(cli_table_columns *c);

/* `text` as an SQL string literal into buf (of `size` bytes; a longer
 * text is cut); returns buf. */
const char *cli_sql_quote(const char *text, char *buf, size_t size);

#endif
