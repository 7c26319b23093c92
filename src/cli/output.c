/* The result printer of -q/-Q: trace_processor_shell's CSV-like format
 * (the shell's printers are shell_print.c). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* ---- CSV-like (-q / -Q) ----
 * Header: quoted names joined by ','; rows: integers bare, reals as "%f"
 * (at most 255 characters),
 * strings quoted verbatim, NULL as "[NULL]", blobs as "<raw bytes>"; one
 * blank line between result sets. */

typedef cli_csv csv_printer;

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
    case WEFT_CELL_DOUBLE: {
      /* as the shell prints them: "%f" cut to 255 characters */
      char buf[256];
      snprintf(buf, sizeof buf, "%f", c->d);
      fputs(buf, out);
      break;
    }
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

weft_query_callbacks cli_csv_callbacks(cli_csv *printer) {
  weft_query_callbacks cb = {csv_on_columns, csv_on_row, printer};
  return cb;
}

int cli_run_query_csv(weft *w, const char *source, const char *sql, FILE *out) {
  csv_printer p = {out, 0};
  weft_query_callbacks cb = {csv_on_columns, csv_on_row, &p};
  return weft_query_source(w, source, sql, &cb);
}
