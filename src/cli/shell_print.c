/* The shell's result printers: aligned tables (rows buffered to size the
 * columns), CSV (RFC 4180) and one line per column, each stopping after
 * .maxrows rows with a line saying how many more there were. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"

typedef struct shell_printer {
  const shell_settings *s;
  int ncols;
  char **names;    /* the current result set's column names */
  char **cells;    /* table mode: row-major text of the buffered rows */
  size_t buffered; /* rows in cells */
  size_t rows;     /* rows of the current result set */
  size_t name_width; /* line mode: the widest column name */
  int result_sets;
} shell_printer;

static char *shell_cell_text(const weft_cell *c, int exact) {
  char buf[64];
  switch (c->type) {
    case WEFT_CELL_INT: snprintf(buf, sizeof buf, "%" PRId64, c->i); break;
    case WEFT_CELL_DOUBLE:
      snprintf(buf, sizeof buf, "%.*g", exact ? 17 : 6, c->d);
      if (exact && strtod(buf, NULL) == c->d) snprintf(buf, sizeof buf, "%.15g", c->d);
      if (exact && strtod(buf, NULL) != c->d) snprintf(buf, sizeof buf, "%.17g", c->d);
      break;
    case WEFT_CELL_STRING: return strndup(c->s, c->len);
    case WEFT_CELL_BLOB: snprintf(buf, sizeof buf, "<%zu bytes>", c->len); break;
    default: snprintf(buf, sizeof buf, "%s", exact ? "" : "NULL"); break;
  }
  return strdup(buf);
}

static size_t shell_allowed_rows(const shell_printer *p) {
  return p->s->max_rows ? p->s->max_rows : SIZE_MAX;
}

static void shell_print_more(const shell_printer *p, size_t shown) {
  if (p->rows > shown)
    fprintf(p->s->out, "... %zu more row%s not shown (.maxrows %zu)\n", p->rows - shown,
            p->rows - shown == 1 ? "" : "s", p->s->max_rows);
}

/* ---- table ---- */

static size_t shell_column_width(const shell_printer *p, int c) {
  if (c < p->s->width_count && p->s->widths[c] > 0) return (size_t)p->s->widths[c];
  size_t width = strlen(p->names[c]);
  for (size_t r = 0; r < p->buffered; r++) {
    size_t len = strlen(p->cells[r * (size_t)p->ncols + (size_t)c]);
    if (len > width) width = len;
  }
  return width > SHELL_AUTO_WIDTH_MAX ? SHELL_AUTO_WIDTH_MAX : width;
}

/* `text` in `width` columns: padded, or cut ending in the marker. */
static void shell_print_fitted(FILE *out, const char *text, size_t width) {
  size_t len = strlen(text), marker = strlen(SHELL_CUT_MARKER);
  if (len <= width) {
    fprintf(out, "%s%*s", text, (int)(width - len), "");
  } else if (width > marker) {
    fwrite(text, 1, width - marker, out);
    fputs(SHELL_CUT_MARKER, out);
  } else {
    fwrite(text, 1, width, out);
  }
}

static void shell_print_table_row(const shell_printer *p, char *const *row,
                                  const size_t *width) {
  for (int c = 0; c < p->ncols; c++) {
    if (c) fputs(" | ", p->s->out);
    shell_print_fitted(p->s->out, row[c], width[c]);
  }
  fputc('\n', p->s->out);
}

static void shell_flush_table(shell_printer *p) {
  size_t *width = calloc((size_t)p->ncols + 1, sizeof *width);
  if (!width) return;
  for (int c = 0; c < p->ncols; c++) width[c] = shell_column_width(p, c);
  shell_print_table_row(p, p->names, width);
  for (int c = 0; c < p->ncols; c++) {
    fputs(c ? "-+-" : "", p->s->out);
    for (size_t i = 0; i < width[c]; i++) fputc('-', p->s->out);
  }
  fputc('\n', p->s->out);
  for (size_t r = 0; r < p->buffered; r++)
    shell_print_table_row(p, &p->cells[r * (size_t)p->ncols], width);
  free(width);
}

/* ---- per result set ---- */

static void shell_free_strings(char **list, size_t n) {
  for (size_t i = 0; list && i < n; i++) free(list[i]);
  free(list);
}

static void shell_end_result(shell_printer *p) {
  if (!p->names) return;
  size_t shown = p->rows < shell_allowed_rows(p) ? p->rows : shell_allowed_rows(p);
  if (p->s->mode == SHELL_MODE_TABLE) shell_flush_table(p);
  shell_print_more(p, shown);
  if (p->s->mode == SHELL_MODE_TABLE)
    fprintf(p->s->out, "(%zu row%s)\n", p->rows, p->rows == 1 ? "" : "s");
  shell_free_strings(p->cells, p->buffered * (size_t)p->ncols);
  shell_free_strings(p->names, (size_t)p->ncols);
  p->cells = p->names = NULL;
  p->buffered = p->rows = 0;
}

static void shell_print_csv_field(FILE *out, const char *text) {
  if (!strpbrk(text, ",\"\r\n")) {
    fputs(text, out);
    return;
  }
  fputc('"', out);
  for (const char *c = text; *c; c++) {
    if (*c == '"') fputc('"', out);
    fputc(*c, out);
  }
  fputc('"', out);
}

static int shell_on_columns(void *user, int statement, int n, const char *const *names) {
  (void)statement;
  shell_printer *p = user;
  shell_end_result(p);
  if (p->result_sets++ && p->s->mode != SHELL_MODE_TABLE) fputc('\n', p->s->out);
  p->ncols = n;
  p->names = calloc((size_t)n + 1, sizeof *p->names);
  if (!p->names) return 1;
  p->name_width = 0;
  for (int i = 0; i < n; i++) {
    p->names[i] = strdup(names[i]);
    if (!p->names[i]) return 1;
    if (strlen(names[i]) > p->name_width) p->name_width = strlen(names[i]);
    if (p->s->mode == SHELL_MODE_CSV) {
      if (i) fputc(',', p->s->out);
      shell_print_csv_field(p->s->out, names[i]);
    }
  }
  if (p->s->mode == SHELL_MODE_CSV) fputc('\n', p->s->out);
  return 0;
}

static int shell_buffer_row(shell_printer *p, int n, const weft_cell *cells) {
  if (p->buffered % 256 == 0) {
    size_t cap = (p->buffered + 256) * (size_t)(n ? n : 1);
    char **grown = realloc(p->cells, cap * sizeof *grown);
    if (!grown) return 1;
    p->cells = grown;
  }
  for (int i = 0; i < n; i++) {
    char *text = shell_cell_text(&cells[i], 0);
    if (!text) {
      while (i-- > 0) free(p->cells[p->buffered * (size_t)n + (size_t)i]);
      return 1;
    }
    p->cells[p->buffered * (size_t)n + (size_t)i] = text;
  }
  p->buffered++;
  return 0;
}

static int shell_print_row(shell_printer *p, int n, const weft_cell *cells) {
  FILE *out = p->s->out;
  if (p->s->mode == SHELL_MODE_LINE && p->rows > 1) fputc('\n', out);
  for (int i = 0; i < n; i++) {
    char *text = shell_cell_text(&cells[i], p->s->mode == SHELL_MODE_CSV);
    if (!text) return 1;
    if (p->s->mode == SHELL_MODE_CSV) {
      if (i) fputc(',', out);
      shell_print_csv_field(out, text);
    } else {
      fprintf(out, "%*s = %s\n", (int)p->name_width, p->names[i], text);
    }
    free(text);
  }
  if (p->s->mode == SHELL_MODE_CSV) fputc('\n', out);
  return 0;
}

static int shell_on_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  shell_printer *p = user;
  if (shell_interrupted) return 1;
  if (p->rows++ >= shell_allowed_rows(p)) return 0;
  if (p->s->mode == SHELL_MODE_TABLE) return shell_buffer_row(p, n, cells);
  return shell_print_row(p, n, cells);
}

int shell_print_query(weft *w, const shell_settings *s, const char *source,
                      const char *sql) {
  shell_printer p = {0};
  p.s = s;
  weft_query_callbacks cb = {shell_on_columns, shell_on_row, &p};
  int rc = weft_query_source(w, source, sql, &cb);
  if (rc == WEFT_OK) shell_end_result(&p);
  shell_free_strings(p.cells, p.buffered * (size_t)p.ncols);
  shell_free_strings(p.names, (size_t)p.ncols);
  fflush(s->out);
  return rc;
}
