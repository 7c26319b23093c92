/* cli: the `weft` command. Uses only the public API (include/weft/weft.h).
 *
 * output.c prints query results as trace_processor_shell does (CSV-like, for
 * -q/-Q); shell*.c are the interactive SQL shell (shell.h); main.c parses flags and drives loading;
 * subcommands.c reads `weft query|interactive|server` and the RPC flags
 * and starts the server (src/server/server.h). */
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include <stdio.h>

#include "weft/weft.h"

/* The printer of -q/-Q results, as callbacks (say, for the rows of a
 * remote session): trace_processor_shell's format. */
typedef struct cli_csv {
  FILE *out;
  int result_sets;
} cli_csv;
weft_query_callbacks cli_csv_callbacks(cli_csv *printer);
/* Runs `sql` printing every result set in trace_processor_shell's format. */
int cli_run_query_csv(weft *w, const char *source, const char *sql, FILE *out);
/* The whole of file `path` ("-": standard input) as a NUL-terminated
 * string to free(), or NULL with errno set. */
char *cli_read_text(const char *path);
/* The interactive shell; returns the process exit status. */
int cli_shell(weft *w);

#endif
