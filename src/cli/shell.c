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

static void shell_run(weft *w, const char *sql) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  if (cli_run_query_table(w, sql, stdout) != WEFT_OK)
    fprintf(stderr, "error: %s\n", weft_errmsg(w));
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
  printf("Query executed in %.3f ms\n\n", ms);
  fflush(stdout); /* a program driving the shell through a pipe sees each result */
}

static int shell_command(weft *w, const char *line) {
  if (strncmp(line, ".quit", 5) == 0 || strncmp(line, ".exit", 5) == 0) return 1;
  if (strncmp(line, ".help", 5) == 0) shell_help();
  else if (strncmp(line, ".tables", 7) == 0)
    cli_run_query_table(w, "SELECT name, type FROM sqlite_schema WHERE type IN "
                        "('table','view') ORDER BY name;", stdout);
  else if (strncmp(line, ".stats", 6) == 0)
    cli_run_query_table(w, "SELECT name, idx, severity, value, machine_id, trace_id "
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
    shell_run(w, pending);
    free(pending);
    pending = NULL;
    pending_len = 0;
  }
  free(pending);
  if (history) write_history(history);
  free(history);
  return 0;
}
