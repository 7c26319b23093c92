/* The interactive SQL shell: libedit line editing, history (saved after
 * every command), dot-commands (shell_commands.c), statements accumulated
 * until a terminating ';'. Ctrl-C stops a running query and returns to the
 * prompt; at the prompt it leaves, as usual. */
#include <editline/readline.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "shell.h"

#define SHELL_HISTORY_LINES 2000

volatile sig_atomic_t shell_interrupted;
static weft *volatile shell_running;

static void shell_on_sigint(int sig) {
  (void)sig;
  shell_interrupted = 1;
  weft *w = shell_running;
  if (w) weft_interrupt(w);
}

static char *shell_history_path(void) {
  const char *home = getenv("HOME");
  if (!home) return NULL;
  size_t n = strlen(home) + 32;
  char *path = malloc(n);
  if (path) snprintf(path, n, "%s/.weft_history", home);
  return path;
}

static void shell_remember(const char *history, const char *entry) {
  add_history(entry);
  if (history) write_history(history);
}

static int shell_is_complete(const char *sql) {
  const char *end = sql + strlen(sql);
  while (end > sql && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\t')) end--;
  return end > sql && end[-1] == ';';
}

void shell_run(weft *w, const shell_settings *s, const char *source, const char *sql) {
  struct sigaction on_int, previous;
  memset(&on_int, 0, sizeof on_int);
  on_int.sa_handler = shell_on_sigint; /* no SA_RESTART: a blocked write ends */
  sigemptyset(&on_int.sa_mask);
  shell_interrupted = 0;
  shell_running = w;
  sigaction(SIGINT, &on_int, &previous);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  int rc = shell_print_query(w, s, source, sql);
  clock_gettime(CLOCK_MONOTONIC, &b);
  sigaction(SIGINT, &previous, NULL);
  shell_running = NULL;
  if (rc == WEFT_EABORT && shell_interrupted) fprintf(stderr, "Query interrupted\n");
  else if (rc != WEFT_OK) fprintf(stderr, "error: %s\n", weft_errmsg(w));
  double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
  if (s->timer) printf("Query executed in %.3f ms\n\n", ms);
  fflush(stdout); /* a program driving the shell through a pipe sees each result */
  fflush(stderr);
}

/* Appends `line` and a newline to the statement being typed. */
static int shell_append(char **pending, size_t *len, const char *line) {
  size_t n = strlen(line);
  char *grown = realloc(*pending, *len + n + 2);
  if (!grown) return -1;
  memcpy(grown + *len, line, n);
  *len += n;
  grown[(*len)++] = '\n';
  grown[*len] = '\0';
  *pending = grown;
  return 0;
}

static void shell_loop(weft *w, shell_settings *s, const char *history) {
  char *pending = NULL;
  size_t pending_len = 0;
  for (;;) {
    char *line = readline(pending ? "   ...> " : "> ");
    if (!line) break;
    if (!pending && line[0] == '.') {
      shell_remember(history, line);
      int quit = shell_command(w, s, line);
      free(line);
      if (quit) break;
      continue;
    }
    int failed = shell_append(&pending, &pending_len, line);
    free(line);
    if (failed) break;
    if (!shell_is_complete(pending)) continue;
    pending[pending_len - 1] = '\0';
    shell_remember(history, pending);
    shell_run(w, s, "stdin", pending);
    free(pending);
    pending = NULL;
    pending_len = 0;
  }
  free(pending);
}

int cli_shell(weft *w) {
  char *history = shell_history_path();
  using_history();
  stifle_history(SHELL_HISTORY_LINES);
  if (history) read_history(history);
  printf("weft %s. Enter SQL terminated by ';' (.help for help).\n",
         WEFT_VERSION_STRING);
  shell_settings settings;
  shell_settings_init(&settings);
  shell_loop(w, &settings, history);
  shell_settings_free(&settings);
  if (history) write_history(history);
  free(history);
  return 0;
}
