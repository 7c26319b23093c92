/* The tables and views of a loaded trace (tables.h). */
#include "tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tables_add(cli_table_names *t, const char *name, size_t len, int is_view) {
  if (t->count == t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    char **names = realloc(t->names, cap * sizeof *names);
    if (!names) return 1;
    t->names = names;
    char *views = realloc(t->is_view, cap);
    if (!views) return 1;
    t->is_view = views;
    t->cap = cap;
  }
  t->names[t->count] = strndup(name, len);
  if (!t->names[t->count]) return 1;
  t->is_view[t->count++] = (char)is_view;
  return 0;
}

/* Rows (name, is_view). */
static int tables_on_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  if (n < 2 || cells[0].type != WEFT_CELL_STRING) return 0;
  return tables_add(user, cells[0].s, cells[0].len, cells[1].type == WEFT_CELL_INT && cells[1].i);
}

static int tables_on_check(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  *(int *)user = n == 2 && cells[0].type == WEFT_CELL_INT && cells[0].i > 0 &&
                 cells[1].type == WEFT_CELL_INT && cells[1].i == 1;
  return 0;
}

const char *cli_sql_quote(const char *text, char *buf, size_t size) {
  size_t q = 0;
  buf[q++] = '\'';
  for (const char *p = text; *p && q < size - 3; p++) {
    if (*p == '\'') buf[q++] = '\'';
    buf[q++] = *p;
  }
  buf[q++] = '\'';
  buf[q] = '\0';
  return buf;
}

static int tables_is_plain(weft *w, const char *name) {
  char sql[512], quoted[300];
  snprintf(sql, sizeof sql,
           "SELECT count(*), total(hidden != 0) = 0 FROM pragma_table_xinfo(%s)",
           cli_sql_quote(name, quoted, sizeof quoted));
  int plain = 0;
  weft_query_callbacks cb = {NULL, tables_on_check, &plain};
  /* Modules that cannot be read without arguments fail here: not tables. */
  return weft_query(w, sql, &cb) == WEFT_OK && plain;
}

static int tables_compare(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts by name, keeping each once (with its view flag). */
static void tables_sort(cli_table_names *t) {
  if (t->count < 2) return;
  char **pairs = malloc(t->count * sizeof *pairs);
  if (!pairs) return;
  for (size_t i = 0; i < t->count; i++) { /* the flag rides after the NUL */
    size_t len = strlen(t->names[i]);
    char *grown = realloc(t->names[i], len + 2);
    if (!grown) {
      free(pairs);
      return;
    }
    grown[len + 1] = t->is_view[i];
    pairs[i] = grown;
  }
  qsort(pairs, t->count, sizeof *pairs, tables_compare);
  size_t kept = 0;
  for (size_t i = 0; i < t->count; i++) {
    if (kept && !strcmp(pairs[i], t->names[kept - 1])) {
      free(pairs[i]);
      continue;
    }
    t->names[kept] = pairs[i];
    t->is_view[kept++] = pairs[i][strlen(pairs[i]) + 1];
  }
  t->count = kept;
  free(pairs);
}

int cli_table_names_list(weft *w, cli_table_names *out) {
  memset(out, 0, sizeof *out);
  cli_table_names modules = {0};
  weft_query_callbacks cb = {NULL, tables_on_row, out};
  weft_query(w, "SELECT name, type = 'view' FROM sqlite_schema WHERE type IN ('table', "
                "'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'", &cb);
  cb.user = &modules;
  /* Perfetto's one-table views are modules of the engine's own: views. */
  weft_query(w, "SELECT name, __intrinsic_table_is_view(name) FROM pragma_module_list "
                "WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'pragma\\_%' "
                "ESCAPE '\\' AND name NOT LIKE 'fts%'", &cb);
  int rc = 0;
  for (size_t i = 0; i < modules.count && !rc; i++)
    if (tables_is_plain(w, modules.names[i]))
      rc = tables_add(out, modules.names[i], strlen(modules.names[i]), modules.is_view[i]);
  cli_table_names_free(&modules);
  tables_sort(out);
  return rc ? -1 : 0;
}

void cli_table_names_free(cli_table_names *t) {
  for (size_t i = 0; i < t->count; i++) free(t->names[i]);
  free(t->names);
  free(t->is_view);
  memset(t, 0, sizeof *t);
}

static int tables_on_column(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  cli_table_columns *c = user;
  if (n < 2 || cells[0].type != WEFT_CELL_STRING) return 0;
  if (c->count == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    char **names = realloc(c->names, cap * sizeof *names);
    if (names) c->names = names;
    char **types = names ? realloc(c->types, cap * sizeof *types) : NULL;
    if (types) c->types = types;
    if (!names || !types) return c->failed = 1;
    c->cap = cap;
  }
  c->names[c->count] = strndup(cells[0].s, cells[0].len);
  c->types[c->count] = cells[1].type == WEFT_CELL_STRING ? strndup(cells[1].s, cells[1].len)
                                                          : strdup("");
  if (!c->names[c->count] || !c->types[c->count]) {
    free(c->names[c->count]);
    free(c->types[c->count]);
    return c->failed = 1;
  }
  c->count++;
  return 0;
}

void cli_table_columns_free(cli_table_columns *c) {
  for (size_t i = 0; i < c->count; i++) {
    free(c->names[i]);
    free(c->types[i]);
  }
  free(c->names);
  free(c->types);
}

int cli_table_columns_list(weft *w, const char *table, cli_table_columns *out) {
  char sql[512], quoted[300];
  snprintf(sql, sizeof sql, "SELECT name, type FROM pragma_table_info(%s)",
           cli_sql_quote(table, quoted, sizeof quoted));
  weft_query_callbacks cb = {NULL, tables_on_column, out};
  return weft_query(w, sql, &cb) == WEFT_OK && !out->failed ? 0 : -1;
}
