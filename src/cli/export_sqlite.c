/* `weft export sqlite`: every table and view of the trace as a table of an
 * SQLite database (views materialised), written by SQLite itself: the file
 * is attached to weft's database and each table copied with INSERT ...
 * SELECT, which streams rows. Column types come from the declared types
 * (INT, DOUBLE, TEXT); a view's computed column takes the type of its
 * first non-NULL value. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "tables.h"

#define EXPORT_SQLITE_SCHEMA "weft_export"

typedef struct sqlite_sql {
  char *text;
  size_t len, cap;
} sqlite_sql;

static int sqlite_sql_add(sqlite_sql *b, const char *text) {
  size_t n = strlen(text);
  if (b->len + n + 1 > b->cap) {
    size_t cap = (b->len + n + 1) * 2;
    char *grown = realloc(b->text, cap);
    if (!grown) return -1;
    b->text = grown;
    b->cap = cap;
  }
  memcpy(b->text + b->len, text, n + 1);
  b->len += n;
  return 0;
}

/* `text` between `quote` characters, each inner one doubled. */
static int sqlite_sql_quoted(sqlite_sql *b, const char *text, char quote) {
  char one[2] = {quote, 0}, two[3] = {quote, quote, 0};
  if (sqlite_sql_add(b, one)) return -1;
  for (const char *p = text; *p; p++) {
    char c[2] = {*p, 0};
    if (sqlite_sql_add(b, *p == quote ? two : c)) return -1;
  }
  return sqlite_sql_add(b, one);
}

/* The storage type of a declared column type, or "" when undeclared. */
static const char *sqlite_type_of(const char *declared, size_t len) {
  char upper[32] = "";
  for (size_t i = 0; i < len && i < sizeof upper - 1; i++)
    upper[i] = (char)(declared[i] >= 'a' && declared[i] <= 'z' ? declared[i] - 32 : declared[i]);
  if (strstr(upper, "INT")) return "INT";
  if (strstr(upper, "DOUB") || strstr(upper, "REAL") || strstr(upper, "FLOA")) return "DOUBLE";
  if (strstr(upper, "TEXT") || strstr(upper, "CHAR") || strstr(upper, "STR")) return "TEXT";
  if (strstr(upper, "BLOB") || strstr(upper, "BYTES")) return "BLOB";
  if (!strcmp(upper, "INTEGER")) return "INT";
  if (!strcmp(upper, "REAL")) return "DOUBLE";
  if (!strcmp(upper, "TEXT")) return "TEXT";
  if (!strcmp(upper, "BLOB")) return "BLOB";
  return "";
}

/* One answer: the text of the first row's first cell. */
static int sqlite_on_text(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  char *out = user;
  if (n >= 1 && cells[0].type == WEFT_CELL_STRING && !out[0])
    snprintf(out, 32, "%.*s", (int)cells[0].len, cells[0].s);
  return 0;
}

/* The type of a column declared without one: its first non-NULL value's. */
static const char *sqlite_value_type(weft *w, const char *table, const char *column) {
  sqlite_sql q = {0};
  int rc = sqlite_sql_add(&q, "SELECT typeof(");
  rc = rc || sqlite_sql_quoted(&q, column, '"') || sqlite_sql_add(&q, ") FROM main.");
  rc = rc || sqlite_sql_quoted(&q, table, '"') || sqlite_sql_add(&q, " WHERE ");
  rc = rc || sqlite_sql_quoted(&q, column, '"') || sqlite_sql_add(&q, " IS NOT NULL LIMIT 1");
  char type[32] = "";
  weft_query_callbacks cb = {NULL, sqlite_on_text, type};
  if (!rc) weft_query(w, q.text, &cb);
  free(q.text);
  if (!strcmp(type, "integer")) return "INT";
  if (!strcmp(type, "real")) return "DOUBLE";
  if (!strcmp(type, "text")) return "TEXT";
  return !strcmp(type, "blob") ? "BLOB" : "";
}

/* CREATE TABLE export."name"(columns with types); INSERT ... SELECT. */
static int sqlite_copy_statements(weft *w, const char *name, sqlite_sql *out) {
  cli_table_columns columns = {0};
  int rc = cli_table_columns_list(w, name, &columns) || columns.count == 0;
  rc = rc || sqlite_sql_add(out, "CREATE TABLE " EXPORT_SQLITE_SCHEMA ".");
  rc = rc || sqlite_sql_quoted(out, name, '"') || sqlite_sql_add(out, "(");
  for (size_t i = 0; !rc && i < columns.count; i++) {
    const char *type = sqlite_type_of(columns.types[i], strlen(columns.types[i]));
    if (!type[0]) type = sqlite_value_type(w, name, columns.names[i]);
    rc = (i && sqlite_sql_add(out, ", ")) || sqlite_sql_quoted(out, columns.names[i], '"') ||
         (type[0] && (sqlite_sql_add(out, " ") || sqlite_sql_add(out, type)));
  }
  cli_table_columns_free(&columns);
  rc = rc || sqlite_sql_add(out, "); INSERT INTO " EXPORT_SQLITE_SCHEMA ".");
  rc = rc || sqlite_sql_quoted(out, name, '"') || sqlite_sql_add(out, " SELECT * FROM main.");
  return rc || sqlite_sql_quoted(out, name, '"') ? -1 : 0;
}

static int sqlite_run(weft *w, const char *sql, char *err, size_t err_size) {
  if (weft_query(w, sql, NULL) == WEFT_OK) return 0;
  snprintf(err, err_size, "%s", weft_errmsg(w));
  return -1;
}

static int sqlite_copy_table(weft *w, const char *name, char *err, size_t err_size) {
  sqlite_sql copy = {0};
  int rc = sqlite_copy_statements(w, name, &copy);
  if (rc) snprintf(err, err_size, "%s: cannot read its columns", name);
  else rc = sqlite_run(w, copy.text, err, err_size);
  free(copy.text);
  return rc;
}

int cli_export_sqlite(weft *w, const char *path, char *err, size_t err_size) {
  cli_table_names tables;
  if (cli_table_names_list(w, &tables)) {
    cli_table_names_free(&tables);
    snprintf(err, err_size, "out of memory");
    return -1;
  }
  remove(path); /* a fresh database, as the export's own */
  sqlite_sql attach = {0};
  int rc = sqlite_sql_add(&attach, "ATTACH ") || sqlite_sql_quoted(&attach, path, '\'') ||
           sqlite_sql_add(&attach, " AS " EXPORT_SQLITE_SCHEMA "; PRAGMA " EXPORT_SQLITE_SCHEMA
                                   ".journal_mode = OFF; BEGIN");
  if (rc) snprintf(err, err_size, "out of memory");
  else rc = sqlite_run(w, attach.text, err, err_size);
  free(attach.text);
  int attached = rc == 0;
  for (size_t i = 0; !rc && i < tables.count; i++)
    rc = sqlite_copy_table(w, tables.names[i], err, err_size);
  if (!rc) rc = sqlite_run(w, "COMMIT", err, err_size);
  else if (attached) weft_query(w, "ROLLBACK", NULL);
  if (attached) weft_query(w, "DETACH " EXPORT_SQLITE_SCHEMA, NULL);
  cli_table_names_free(&tables);
  return rc;
}
