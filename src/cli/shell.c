/* The interactive SQL shell: libedit line editing, history, dot-commands,
 * statements accumulated until a terminating ';'. */
#include <editline/readline.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static void shell_help(void) {
  printf("Enter SQL terminated by ';'. Commands:\n"
         "  .help         this text\n"
         "  .tables       list tables and views\n"
         "  .schema [T]   the columns of table or view T (all of them without T)\n"
         "  .read FILE    run the SQL in FILE\n"
         "  .stats        non-zero error and data-loss stats\n"
         "  .quit         leave (also Ctrl-D)\n");
}

static char *shell_history_path(void) {
  const char *home = getenv("HOME");
  if (!home) return NULL;
  size_t n = strlen(home) + 32;
  char *path = malloc(n);
  if (path) snprintf(path, n, "%s/.weft_history", home);
  return path;
}

static int shell_is_complete(const char *sql) {
  const char *end = sql + strlen(sql);
  while (end > sql && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\t')) end--;
  return end > sql && end[-1] == ';';
}

static void shell_run(weft *w, const char *source, const char *sql) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (cli_run_query_table(w, source, sql, stdout) != WEFT_OK)
    fprintf(stderr, "error: %s\n", weft_errmsg(w));
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
  printf("Query executed in %.3f ms\n\n", ms);
  fflush(stdout); /* a program driving the shell through a pipe sees each result */
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

static void shell_read(weft *w, const char *path) {
  char *sql = path[0] ? cli_read_text(path) : NULL;
  if (!sql) {
    fprintf(stderr, "error: cannot read '%s'\n", path);
    return;
  }
  shell_run(w, path, sql);
  free(sql);
}

/* `CREATE TABLE name(column type, ...)` for one table or view, or for each
 * one the database lists. */
static void shell_schema(weft *w, const char *table) {
  static const char columns[] =
      "SELECT 'CREATE TABLE ' || t.name || '(' || (SELECT group_concat(c.name || "
      "iif(c.type = '', '', ' ' || c.type), ', ') FROM pragma_table_info(t.name) c) "
      "|| ');' AS schema FROM (SELECT %s AS name%s) t";
  char sql[1024];
  if (table[0]) {
    char quoted[300];
    size_t q = 0;
    quoted[q++] = '\'';
    for (const char *p = table; *p && q < sizeof quoted - 3; p++) {
      if (*p == '\'') quoted[q++] = '\'';
      quoted[q++] = *p;
    }
    quoted[q++] = '\'';
    quoted[q] = '\0';
    snprintf(sql, sizeof sql, columns, quoted, "");
  } else {
    snprintf(sql, sizeof sql, columns, "name",
             " FROM sqlite_schema WHERE type IN ('table', 'view') ORDER BY name");
  }
  cli_run_query_table(w, "stdin", sql, stdout);
}

static int shell_command(weft *w, const char *line) {
  char arg[256];
  if (strncmp(line, ".quit", 5) == 0 || strncmp(line, ".exit", 5) == 0) return 1;
  if (strncmp(line, ".help", 5) == 0) shell_help();
  else if (strncmp(line, ".read", 5) == 0) shell_read(w, shell_argument(line, arg, sizeof arg));
  else if (strncmp(line, ".schema", 7) == 0) shell_schema(w, shell_argument(line, arg, sizeof arg));
  else if (strncmp(line, ".tables", 7) == 0)
    cli_run_query_table(w, "stdin", "SELECT name, type FROM sqlite_schema WHERE type IN "
                        "('table','view') ORDER BY name;", stdout);
  else if (strncmp(line, ".stats", 6) == 0)
    cli_run_query_table(w, "stdin", "SELECT name, idx, severity, value, machine_id, trace_id "
                        "FROM stats WHERE value > 0 AND severity != 'info';", stdout);
  else fprintf(stderr, "unknown command %s (try .help)\n", line);
  return 0;
}

int cli_shell(weft *w) {
  char *history = shell_history_path();
  using_history();
  if (history) read_history(history);
  printf("weft %s. Enter SQL terminated by ';' (.help for help).\n",
         WEFT_VERSION_STRING);
  char *pending = NULL;
  size_t pending_len = 0;
  for (;;) {
    char *line = readline(pending ? "   ...> " : "> ");
    if (!line) break;
    if (!pending && line[0] == '.') {
      add_history(line);
      int quit = shell_command(w, line);
      free(line);
      if (quit) break;
      continue;
    }
    size_t len = strlen(line);
    char *grown = realloc(pending, pending_len + len + 2);
    if (!grown) {
      free(line);
      break;
    }
    pending = grown;
    memcpy(pending + pending_len, line, len);
    pending_len += len;
    pending[pending_len++] = '\n';
    pending[pending_len] = '\0';
    free(line);
    if (!shell_is_complete(pending)) continue;
    pending[pending_len - 1] = '\0';
    add_history(pending);
    shell_run(w, "stdin", pending);
    free(pending);
    pending = NULL;
    pending_len = 0;
  }
  free(pending);
  if (history) write_history(history);
  free(history);
  return 0;
}
