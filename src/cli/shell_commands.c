/* The shell's dot-commands. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "shell.h"
#include "tables.h"

void shell_settings_init(shell_settings *s) {
  memset(s, 0, sizeof *s);
  s->mode = SHELL_MODE_TABLE;
  s->max_rows = SHELL_DEFAULT_MAX_ROWS;
  s->timer = 1;
  s->out = stdout;
}

void shell_settings_free(shell_settings *s) {
  if (s->out && s->out != stdout) fclose(s->out);
  s->out = stdout;
}

static void shell_help(void) {
  printf("Enter SQL terminated by ';'. Ctrl-C stops a running query. Commands:\n"
         "  .help              this text\n"
         "  .tables            list tables and views\n"
         "  .schema [T]        the columns of table or view T (all of them without T)\n"
         "  .read FILE         run the SQL in FILE\n"
         "  .stats             non-zero error and data-loss stats\n"
         "  .mode table|csv|line  how results print (default: table)\n"
         "  .width N...        widths of the table's columns, in order (0: from the\n"
         "                     cells, at most %d); .width alone: all from the cells\n"
         "  .maxrows N         rows printed per result (default %d; 0: all)\n"
         "  .output [FILE]     write results to FILE; alone: back to the terminal\n"
         "  .timer on|off      print each query's time (default: on)\n"
         "  .quit              leave (also .exit, Ctrl-D)\n"
         "Cells wider than their column end in '%s'; a result cut by .maxrows ends\n"
         "with '... N more rows not shown'.\n",
         SHELL_AUTO_WIDTH_MAX, SHELL_DEFAULT_MAX_ROWS, SHELL_CUT_MARKER);
}

/* The argument of a dot-command: the text after its name, trimmed. */
static const char *shell_argument(const char *line, char *buf, size_t size) {
  const char *p = line + strcspn(line, " \t");
  p += strspn(p, " \t");
  size_t n = strlen(p);
  while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == ';')) n--;
  if (n >= size) n = size - 1;
  memcpy(buf, p, n);
  buf[n] = '\0';
  return buf;
}


static void shell_read(weft *w, const shell_settings *s, const char *path) {
  char *sql = path[0] ? cli_read_text(path) : NULL;
  if (!sql) {
    fprintf(stderr, "error: cannot read '%s'\n", path);
    return;
  }
  shell_run(w, s, path, sql);
  free(sql);
}

/* `CREATE TABLE name(column type, ...)` for one table or view, or for each
 * one the database lists. */
static void shell_schema(weft *w, const shell_settings *s, const char *table) {
  static const char columns[] =
      "SELECT 'CREATE TABLE ' || t.name || '(' || (SELECT group_concat(c.name || "
      "iif(c.type = '', '', ' ' || c.type), ', ') FROM pragma_table_info(t.name) c) "
      "|| ');' AS schema FROM (SELECT %s AS name%s) t";
  char sql[1024], quoted[300];
  if (table[0])
    snprintf(sql, sizeof sql, columns, cli_sql_quote(table, quoted, sizeof quoted), "");
  else
    snprintf(sql, sizeof sql, columns, "name",
             " FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name");
  if (shell_print_query(w, s, "stdin", sql) != WEFT_OK)
    fprintf(stderr, "error: %s\n", weft_errmsg(w));
}

static void shell_tables(weft *w, const shell_settings *s) {
  cli_table_names tables;
  if (cli_table_names_list(w, &tables)) fprintf(stderr, "error: out of memory\n");
  for (size_t i = 0; i < tables.count; i++) fprintf(s->out, "%s\n", tables.names[i]);
  fflush(s->out);
  cli_table_names_free(&tables);
}

/* ---- settings ---- */

static void shell_set_widths(shell_settings *s, const char *arg) {
  int count = 0, widths[SHELL_MAX_WIDTHS];
  for (const char *p = arg; *p && count < SHELL_MAX_WIDTHS;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 0 || v > 100000) {
      fprintf(stderr, "error: .width takes numbers >= 0\n");
      return;
    }
    widths[count++] = (int)v;
    p = end + strspn(end, " \t");
  }
  memcpy(s->widths, widths, sizeof widths);
  s->width_count = count;
}

static void shell_set_mode(shell_settings *s, const char *arg) {
  if (!strcmp(arg, "table") || !strcmp(arg, "column")) s->mode = SHELL_MODE_TABLE;
  else if (!strcmp(arg, "csv")) s->mode = SHELL_MODE_CSV;
  else if (!strcmp(arg, "line")) s->mode = SHELL_MODE_LINE;
  else fprintf(stderr, "error: .mode table|csv|line\n");
}

static void shell_set_output(shell_settings *s, const char *path) {
  FILE *f = stdout;
  if (path[0] && !(f = fopen(path, "w"))) {
    fprintf(stderr, "error: cannot write '%s'\n", path);
    return;
  }
  shell_settings_free(s);
  s->out = f;
}

static void shell_set_max_rows(shell_settings *s, const char *arg) {
  char *end;
  long long v = strtoll(arg, &end, 10);
  if (end == arg || *end || v < 0) fprintf(stderr, "error: .maxrows N (0: all)\n");
  else s->max_rows = (size_t)v;
}

static void shell_set_timer(shell_settings *s, const char *arg) {
  if (!strcmp(arg, "on")) s->timer = 1;
  else if (!strcmp(arg, "off")) s->timer = 0;
  else fprintf(stderr, "error: .timer on|off\n");
}

/* Whether `line` is dot-command `name` (followed by nothing or a blank). */
static int shell_is(const char *line, const char *name) {
  size_t n = strlen(name);
  return !strncmp(line, name, n) && strchr(" \t;", line[n]);
}

static void shell_stats(weft *w, const shell_settings *s) {
  if (shell_print_query(w, s, "stdin",
                        "SELECT name, idx, severity, value, machine_id, trace_id "
                        "FROM stats WHERE value > 0 AND severity != 'info';") != WEFT_OK)
    fprintf(stderr, "error: %s\n", weft_errmsg(w));
}

int shell_command(weft *w, shell_settings *s, const char *line) {
  char arg[1024];
  shell_argument(line, arg, sizeof arg);
  if (shell_is(line, ".quit") || shell_is(line, ".exit")) return 1;
  if (shell_is(line, ".help")) shell_help();
  else if (shell_is(line, ".read")) shell_read(w, s, arg);
  else if (shell_is(line, ".schema")) shell_schema(w, s, arg);
  else if (shell_is(line, ".tables")) shell_tables(w, s);
  else if (shell_is(line, ".stats")) shell_stats(w, s);
  else if (shell_is(line, ".width")) shell_set_widths(s, arg);
  else if (shell_is(line, ".mode")) shell_set_mode(s, arg);
  else if (shell_is(line, ".output")) shell_set_output(s, arg);
  else if (shell_is(line, ".maxrows")) shell_set_max_rows(s, arg);
  else if (shell_is(line, ".timer")) shell_set_timer(s, arg);
  else fprintf(stderr, "unknown command %s (try .help)\n", line);
  return 0;
}
