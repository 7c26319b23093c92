/* Result printers: trace_processor_shell's CSV-like format and aligned
 * tables. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- CSV-like (-q / -Q) ----
 * Header: quoted names joined by ','; rows: integers bare, reals as "%f",
 * strings quoted verbatim, NULL as "[NULL]", blobs as "<raw bytes>"; one
 * blank line between result sets. */

typedef struct csv_printer {
  FILE *out;
  int result_sets;
} csv_printer;

static int csv_on_columns(void *user, int statement, int n,
                          const char *const *names) {
  (void)statement;
  csv_printer *p = user;
  if (p->result_sets++ > 0) fputc('\n', p->out);
  for (int i = 0; i < n; i++) fprintf(p->out, "%s\"%s\"", i ? "," : "", names[i]);
  fputc('\n', p->out);
  return 0;
}

static void csv_print_cell(FILE *out, const weft_cell *c) {
  switch (c->type) {
    case WEFT_CELL_INT: fprintf(out, "%" PRId64, c->i); break;
    case WEFT_CELL_DOUBLE: fprintf(out, "%f", c->d); break;
    case WEFT_CELL_STRING:
      fputc('"', out);
      fwrite(c->s, 1, c->len, out);
      fputc('"', out);
      break;
    case WEFT_CELL_BLOB: fputs("\"<raw bytes>\"", out); break;
    default: fputs("\"[NULL]\"", out); break;
  }
}

static int csv_on_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  csv_printer *p = user;
  for (int i = 0; i < n; i++) {
    if (i) fputc(',', p->out);
    csv_print_cell(p->out, &cells[i]);
  }
  fputc('\n', p->out);
  return 0;
}

int cli_run_query_csv(weft *w, const char *source, const char *sql, FILE *out) {
  csv_printer p = {out, 0};
  weft_query_callbacks cb = {csv_on_columns, csv_on_row, &p};
  return weft_query_source(w, source, sql, &cb);
}

/* ---- aligned tables ----
 * Rows of a result set are buffered (up to a cap) to size the columns. */

#define TABLE_MAX_ROWS 10000

typedef struct table_printer {
  FILE *out;
  int ncols;
  char **cells; /* row-major text of buffered rows, header first */
  size_t rows;  /* including the header */
  size_t total_rows;
  int failed;
} table_printer;

static char *table_cell_text(const weft_cell *c) {
  char buf[64];
  switch (c->type) {
    case WEFT_CELL_INT: snprintf(buf, sizeof buf, "%" PRId64, c->i); break;
    case WEFT_CELL_DOUBLE: snprintf(buf, sizeof buf, "%g", c->d); break;
    case WEFT_CELL_STRING: return strndup(c->s, c->len);
    case WEFT_CELL_BLOB: snprintf(buf, sizeof buf, "<%zu bytes>", c->len); break;
    default: snprintf(buf, sizeof buf, "NULL"); break;
  }
  return strdup(buf);
}

static void table_flush(table_printer *p) {
  if (!p->cells) return;
  size_t *width = calloc((size_t)p->ncols, sizeof *width);
  for (size_t r = 0; width && r < p->rows; r++)
    for (int c = 0; c < p->ncols; c++) {
      size_t len = strlen(p->cells[r * (size_t)p->ncols + (size_t)c]);
      if (len > width[c]) width[c] = len > 80 ? 80 : len;
    }
  for (size_t r = 0; width && r < p->rows; r++) {
    for (int c = 0; c < p->ncols; c++)
      fprintf(p->out, "%s%-*.*s", c ? " | " : "", (int)width[c], (int)width[c],
              p->cells[r * (size_t)p->ncols + (size_t)c]);
    fputc('\n', p->out);
    if (r == 0) {
      for (int c = 0; c < p->ncols; c++) {
        fputs(c ? "-+-" : "", p->out);
        for (size_t i = 0; i < width[c]; i++) fputc('-', p->out);
      }
      fputc('\n', p->out);
    }
  }
  if (p->total_rows + 1 > p->rows)
    fprintf(p->out, "... %zu more rows not shown\n", p->total_rows + 1 - p->rows);
  fprintf(p->out, "(%zu row%s)\n", p->total_rows, p->total_rows == 1 ? "" : "s");
  for (size_t i = 0; i < p->rows * (size_t)p->ncols; i++) free(p->cells[i]);
  free(p->cells);
  free(width);
  p->cells = NULL;
  p->rows = p->total_rows = 0;
}

static int table_on_columns(void *user, int statement, int n,
                            const char *const *names) {
  (void)statement;
  table_printer *p = user;
  table_flush(p);
  p->ncols = n;
  p->cells = calloc((size_t)(TABLE_MAX_ROWS + 1) * (size_t)(n ? n : 1), sizeof(char *));
  if (!p->cells) return 1;
  for (int i = 0; i < n; i++) p->cells[i] = strdup(names[i]);
  p->rows = 1;
  return 0;
}

static int table_on_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  table_printer *p = user;
  p->total_rows++;
  if (p->rows > TABLE_MAX_ROWS) return 0;
  for (int i = 0; i < n; i++)
    p->cells[p->rows * (size_t)n + (size_t)i] = table_cell_text(&cells[i]);
  p->rows++;
  return 0;
}

int cli_run_query_table(weft *w, const char *source, const char *sql, FILE *out) {
  table_printer p = {0};
  p.out = out;
  weft_query_callbacks cb = {table_on_columns, table_on_row, &p};
  int rc = weft_query_source(w, source, sql, &cb);
  table_flush(&p);
  return rc;
}
