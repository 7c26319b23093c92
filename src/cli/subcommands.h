/* The subcommands of trace_processor_shell's interface (`weft query`,
 * `weft interactive`, `weft server http`) and the classic RPC flags
 * (-D/--httpd, --http-port), read beside main.c's flags. */
#ifndef WEFT_CLI_SUBCOMMANDS_H
#define WEFT_CLI_SUBCOMMANDS_H

#include <stdint.h>
#include <stdio.h>

#include "server/server.h"
#include "weft/weft.h"

enum cli_command {
  CLI_COMMAND_NONE = 0, /* flags alone: -q/-Q, -D, or the shell */
  CLI_COMMAND_QUERY,
  CLI_COMMAND_INTERACTIVE,
  CLI_COMMAND_SERVER,
  CLI_COMMAND_VIEW, /* the web view (view.h) */
  CLI_COMMAND_EXPORT
};

typedef struct cli_mode {
  int command;            /* enum cli_command */
  int httpd;              /* serve the RPC over HTTP */
  const char *ip_address; /* NULL: 127.0.0.1 */
  unsigned port;          /* 0: 9001 */
  int any_port;           /* `view --port 0`: a free port */
  uint64_t idle_timeout_ms;
  const char *cors_origins;
  const char *query_file; /* `query -f FILE` */
  int then_interactive;   /* -i: the shell after the queries */
  const char *export_format; /* `export FORMAT`, "sqlite" for -e */
  const char *export_path;   /* `export -o OUT`, -e/--export OUT */
  int transport;             /* enum cli_transport of `server` */
  const char *name;          /* `server unix --name NAME` */
  int daemonize;             /* `server unix --daemonize` */
  int ready_fd;              /* the daemon's pipe to its parent, or -1 */
  const char *remote;        /* `query --remote NAME` */
} cli_mode;

enum cli_transport { CLI_TRANSPORT_NONE = 0, CLI_TRANSPORT_STDIO, CLI_TRANSPORT_UNIX };

/* Reads the subcommand at argv[1] (and `server`'s transport): the index
 * of the first argument after them, or -1 on a bad one (message printed). */
int cli_mode_take_command(cli_mode *m, int argc, char **argv);
/* A flag of the subcommands or the classic RPC flags at argv[*i]: 1 if
 * taken (*i moved past its value), 0 if not one, -1 on a bad value. */
int cli_mode_take_flag(cli_mode *m, int argc, char **argv, int *i);
/* After the flags: `query`'s SQL (-f FILE, the last positional argument
 * when it is not a file, or standard input). */
void cli_mode_finish(cli_mode *m, const char **traces, int *trace_count,
                     const char **query_string, const char **query_file);
/* After the flags: whether the subcommand has what it needs (`export`:
 * -o OUT and a trace); 0, or -1 with a message printed. */
int cli_mode_check(const cli_mode *m, int trace_count);
/* Writes the export asked for by `export` or -e; the exit status. */
int cli_mode_export(const cli_mode *m, weft *w);
/* Help for the subcommand being run: 1 if printed, 0 for the main help. */
int cli_mode_usage(const cli_mode *m, FILE *out);
/* The lines of the main help about the subcommands and RPC flags. */
void cli_mode_usage_lines(FILE *out);
/* The server options of the mode's flags. */
void cli_mode_http_options(const cli_mode *m, server_http_options *http);
/* Whether the mode serves the RPC (HTTP, stdio or a unix socket). */
int cli_mode_serving(const cli_mode *m);
/* `server unix --daemonize`, before loading: 1 in the child (go on), 0 in
 * the parent, which is to exit with *status. */
int cli_mode_daemonize(cli_mode *m, int *status);
/* `query --remote NAME`: runs the SQL on the session, printing CSV; the
 * process exit status. */
int cli_mode_remote_query(const cli_mode *m, const char *sql);
/* Serves the RPC over the mode's transport until stopped; `w` (loaded, or
 * NULL) is the first trace and is closed. Returns the process exit status. */
int cli_mode_serve(const cli_mode *m, weft *w, const weft_options *options,
                   const char *name, int quiet);

#endif
