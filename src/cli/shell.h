/* The interactive shell's parts: its settings (changed by dot-commands),
 * the printers of results in its modes, and the dot-commands.
 *
 * shell.c reads lines and runs them; shell_print.c prints a query's
 * results as a table, CSV or one line per column; shell_commands.c runs
 * the dot-commands (.help lists them). */
#ifndef WEFT_CLI_SHELL_H
#define WEFT_CLI_SHELL_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

#include "weft/weft.h"

enum shell_mode { SHELL_MODE_TABLE, SHELL_MODE_CSV, SHELL_MODE_LINE };

#define SHELL_MAX_WIDTHS 64
#define SHELL_DEFAULT_MAX_ROWS 10000
/* A column sized from its cells is at most this wide; longer cells are
 * cut, ending in SHELL_CUT_MARKER. */
#define SHELL_AUTO_WIDTH_MAX 80
#define SHELL_CUT_MARKER "..."

typedef struct shell_settings {
  int mode;                      /* enum shell_mode */
  int widths[SHELL_MAX_WIDTHS];  /* .width: per column, 0 = from the cells */
  int width_count;
  size_t max_rows;               /* rows printed per result; 0 = all */
  int timer;                     /* print each query's time */
  FILE *out;                     /* stdout, or the file of .output */
} shell_settings;

/* Set by the SIGINT handler while a query runs: printing stops too. */
extern volatile sig_atomic_t shell_interrupted;

void shell_settings_init(shell_settings *s);
/* Closes the .output file, if any. */
void shell_settings_free(shell_settings *s);

/* Runs `sql` printing every result set to s->out in s->mode. */
int shell_print_query(weft *w, const shell_settings *s, const char *source,
                      const char *sql);

/* Runs the SQL text (the shell's statements, .read files), timing it and
 * reporting errors; Ctrl-C interrupts it. */
void shell_run(weft *w, const shell_settings *s, const char *source, const char *sql);

/* Runs the dot-command `line`: 1 when it asks to leave, else 0. */
int shell_command(weft *w, shell_settings *s, const char *line);

#endif
