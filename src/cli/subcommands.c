/* Subcommands and the classic RPC flags (subcommands.h). */
#include "subcommands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "export.h"
#include "server/server.h"

/* `export FORMAT`: the index after the format. */
static int cli_mode_take_export(cli_mode *m, int argc, char **argv) {
  m->command = CLI_COMMAND_EXPORT;
  const char *format = argc > 2 ? argv[2] : "";
  if (strcmp(format, "--help") == 0 || strcmp(format, "-h") == 0) return 2;
  if (!cli_export_format_known(format)) {
    fprintf(stderr, "weft export: needs a format: sqlite, arrow_tar or json%s%s\n",
            format[0] ? ", not " : "", format);
    return -1;
  }
  m->export_format = format;
  return 3;
}

int cli_mode_take_command(cli_mode *m, int argc, char **argv) {
  if (argc < 2) return 1;
  const char *cmd = argv[1];
  if (strcmp(cmd, "query") == 0) m->command = CLI_COMMAND_QUERY;
  else if (strcmp(cmd, "interactive") == 0) m->command = CLI_COMMAND_INTERACTIVE;
  else if (strcmp(cmd, "view") == 0) m->command = CLI_COMMAND_VIEW;
  else if (strcmp(cmd, "export") == 0) return cli_mode_take_export(m, argc, argv);
  else if (strcmp(cmd, "server") != 0) return 1;
  if (m->command) return 2;
  m->command = CLI_COMMAND_SERVER;
  const char *transport = argc > 2 ? argv[2] : "";
  if (strcmp(transport, "--help") == 0 || strcmp(transport, "-h") == 0) return 2;
  if (strcmp(transport, "http") == 0) {
    m->httpd = 1;
    return 3;
  }
  if (strcmp(transport, "stdio") == 0) {
    m->transport = CLI_TRANSPORT_STDIO;
    return 3;
  }
  if (strcmp(transport, "unix") == 0) {
    m->transport = CLI_TRANSPORT_UNIX;
    return 3;
  }
  fprintf(stderr, "weft server: needs a transport: http, stdio or unix\n");
  return -1;
}

/* "90", "90s", "30m", "2h", "0", "never" or "auto" (never, for http). */
static int cli_parse_duration_ms(const char *s, uint64_t *out) {
  if (strcmp(s, "never") == 0 || strcmp(s, "auto") == 0) {
    *out = 0;
    return 0;
  }
  char *end;
  if (*s < '0' || *s > '9') return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  uint64_t unit = 1000;
  if (*end == 'm') unit = 60 * 1000;
  else if (*end == 'h') unit = 3600 * 1000;
  else if (*end == 's' || *end == '\0') unit = 1000;
  else return -1;
  if (*end && end[1]) return -1;
  if (errno || v > UINT64_MAX / unit) return -1;
  *out = v * unit;
  return 0;
}

static int cli_mode_value_flag(cli_mode *m, const char *arg, const char *value) {
  if (!strcmp(arg, "--http-port") || !strcmp(arg, "--port")) {
    char *end;
    long port = strtol(value, &end, 10);
    int zero_ok = m->command == CLI_COMMAND_VIEW && port == 0;
    if (*end || end == value || (port < 1 && !zero_ok) || port > 65535) return -1;
    m->port = (unsigned)port;
    m->any_port = zero_ok;
  } else if (!strcmp(arg, "--ip-address") || !strcmp(arg, "--http-ip-address") ||
             !strcmp(arg, "--bind")) {
    m->ip_address = value;
  } else if (!strcmp(arg, "--additional-cors-origins") ||
             !strcmp(arg, "--http-additional-cors-origins")) {
    m->cors_origins = value;
  } else if (!strcmp(arg, "--idle-timeout")) {
    if (cli_parse_duration_ms(value, &m->idle_timeout_ms)) return -1;
  } else if (m->transport == CLI_TRANSPORT_UNIX && !strcmp(arg, "--name")) {
    m->name = value;
  } else if (m->command == CLI_COMMAND_QUERY && !strcmp(arg, "--remote")) {
    m->remote = value;
  } else if (m->command == CLI_COMMAND_QUERY && !strcmp(arg, "-f")) {
    m->query_file = value;
  } else if (m->command == CLI_COMMAND_EXPORT && (!strcmp(arg, "-o") || !strcmp(arg, "--output"))) {
    m->export_path = value;
  } else if (m->command != CLI_COMMAND_EXPORT && (!strcmp(arg, "-e") || !strcmp(arg, "--export"))) {
    m->export_path = value;
    m->export_format = "sqlite";
  } else {
    return 0;
  }
  return 1;
}

static const char *const cli_value_flags[] = {
    "--http-port", "--port", "--ip-address", "--http-ip-address", "--bind",
    "--additional-cors-origins", "--http-additional-cors-origins",
    "--idle-timeout", "-f", "-o", "--output", "-e", "--export", "--name", "--remote"};

/* trace_processor_shell flags weft accepts and needs nothing for: weft
 * always sorts fully, has no raw ftrace table to skip, and no
 * development-only features. -W is for table output, which CSV ignores. */
static const char *const cli_ignored_flags[] = {
    "--full-sort", "--no-ftrace-raw", "--dev", "-W", "--wide"};

int cli_mode_take_flag(cli_mode *m, int argc, char **argv, int *i) {
  const char *arg = argv[*i];
  if (!strcmp(arg, "-D") || !strcmp(arg, "--httpd")) {
    m->httpd = 1;
    return 1;
  }
  if (m->transport == CLI_TRANSPORT_UNIX && !strcmp(arg, "--daemonize")) {
    m->daemonize = 1;
    return 1;
  }
  if (!strcmp(arg, "-i") || !strcmp(arg, "--interactive")) {
    m->then_interactive = 1;
    return 1;
  }
  for (size_t k = 0; k < sizeof cli_ignored_flags / sizeof *cli_ignored_flags; k++)
    if (!strcmp(arg, cli_ignored_flags[k])) return 1;
  for (size_t k = 0; k < sizeof cli_value_flags / sizeof *cli_value_flags; k++) {
    if (strcmp(arg, cli_value_flags[k])) continue;
    const char *value = *i + 1 < argc ? argv[*i + 1] : NULL;
    int r = value ? cli_mode_value_flag(m, arg, value) : -1;
    if (r == 0) return 0; /* -f outside `query`, -o outside `export` */
    if (r < 0) {
      fprintf(stderr, "weft: %s: %s '%s'\n", arg, value ? "bad value" : "needs a value",
              value ? value : "");
      return -1;
    }
    (*i)++;
    return 1;
  }
  return 0;
}

static int cli_is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

void cli_mode_finish(cli_mode *m, const char **traces, int *trace_count,
                     const char **query_string, const char **query_file) {
  if (m->command != CLI_COMMAND_QUERY) return;
  if (m->query_file) *query_file = m->query_file;
  if (*query_file || *query_string) return;
  if (m->remote && *trace_count == 1 && !cli_is_file(traces[0]))
    *query_string = traces[--*trace_count];
  else if (*trace_count >= 2 && !cli_is_file(traces[*trace_count - 1]))
    *query_string = traces[--*trace_count];
  else
    *query_file = "-";
}

void cli_mode_usage_lines(FILE *out) {
  fprintf(out,
      "subcommands (trace_processor_shell's; weft's flags apply to each):\n"
      "  weft query [-f FILE|-] [-i] TRACE... [SQL]\n"
      "                           run SQL (the last argument, FILE, or standard\n"
      "                           input), print results as CSV; -i: then the shell\n"
      "  weft interactive TRACE...  the interactive SQL shell\n"
      "  weft server http [--port N] [--ip-address A] [--idle-timeout DUR] [TRACE...]\n"
      "                           serve the TraceProcessor RPC over HTTP (Perfetto's\n"
      "                           UI and Python API), the traces preloaded\n"
      "  weft server stdio [TRACE...]  the RPC stream on standard input/output\n"
      "  weft server unix --name NAME [--daemonize] [--idle-timeout DUR] [TRACE...]\n"
      "                           a session keeping the trace loaded, on the socket\n"
      "                           $XDG_RUNTIME_DIR/weft/NAME.sock (else\n"
      "                           /tmp/weft-UID/NAME.sock); see docs/rpc.md\n"
      "  weft query --remote NAME [-f FILE] [SQL]  run SQL on that session\n"
      "  weft view [--port N] [--bind ADDR] [--idle-timeout DUR] [merge flags] TRACE...\n"
      "                           a web timeline of the merge on http://127.0.0.1:9001\n"
      "                           (--port 0: a free port); see docs/view.md\n"
      "  -D, --httpd              the same as `server http`; --http-port N sets the\n"
      "                           port (default 9001, on 127.0.0.1)\n"
      "      --additional-cors-origins O1,O2  browser origins allowed on top of\n"
      "                           https://ui.perfetto.dev and localhost:10000\n"
      "      --idle-timeout DUR   stop the server after DUR without a request\n"
      "                           (90, 90s, 30m, 2h; default: never)\n"
      "  weft export sqlite|arrow_tar|json -o OUT TRACE...\n"
      "                           write the trace as an SQLite database, a tar of\n"
      "                           Arrow files, or one Chrome JSON trace of every\n"
      "                           machine (weft export --help)\n"
      "  -e, --export FILE        write the trace as an SQLite database (after any\n"
      "                           -q/-Q queries; without them, no shell)\n"
      "  -i, --interactive        the interactive shell after -q/-Q queries\n"
      "      --full-sort, --no-ftrace-raw, --dev, -W  accepted (weft always\n"
      "                           sorts fully; no raw ftrace table)\n");
}

int cli_mode_check(const cli_mode *m, int trace_count) {
  if (m->remote && trace_count > 0) {
    fprintf(stderr, "weft query --remote: the session has the trace; give only SQL\n");
    return -1;
  }
  if (m->transport == CLI_TRANSPORT_UNIX && !m->name) {
    fprintf(stderr, "weft server unix: needs --name NAME\n");
    return -1;
  }
  if (m->command != CLI_COMMAND_EXPORT) return 0;
  if (m->export_path && trace_count > 0) return 0;
  fprintf(stderr, "weft export: needs -o OUT and at least one trace\n");
  return -1;
}

int cli_mode_export(const cli_mode *m, weft *w) {
  return cli_export_run(w, m->export_format, m->export_path);
}

int cli_mode_usage(const cli_mode *m, FILE *out) {
  switch (m->command) {
    case CLI_COMMAND_QUERY:
      fprintf(out, "usage: weft query [flags] [-f FILE|-] [-i] TRACE... [SQL]\n"
                   "Loads the traces (merged onto one timeline), runs SQL and prints\n"
                   "every result set as CSV. SQL is the last argument when it does not\n"
                   "name a file, else -f FILE, else standard input. -i opens the\n"
                   "interactive shell after the queries. See weft --help for the flags.\n");
      return 1;
    case CLI_COMMAND_INTERACTIVE:
      fprintf(out, "usage: weft interactive [flags] TRACE...\n"
                   "Loads the traces and opens the interactive SQL shell.\n");
      return 1;
    case CLI_COMMAND_VIEW:
      fprintf(out, "usage: weft view [--port N] [--bind ADDR] [--idle-timeout DUR]\n"
                   "         [merge flags] [flags] TRACE...\n"
                   "Loads the traces as the query mode does (merge flags, --manifest)\n"
                   "and serves a web timeline of them on 127.0.0.1:9001 unless told\n"
                   "otherwise (--port 0: a free port). Prints the URL; stops on Ctrl-C\n"
                   "or after --idle-timeout without a request.\n");
      return 1;
    case CLI_COMMAND_EXPORT:
      fprintf(out, "usage: weft export sqlite|arrow_tar|json -o OUT [flags] TRACE...\n"
                   "Loads the traces (merged onto one timeline) and writes them to OUT:\n"
                   "  sqlite     every table and view (views materialised) as tables of\n"
                   "             an SQLite database\n"
                   "  arrow_tar  a tar of one Arrow IPC file per table (TABLE.arrow)\n"
                   "  json       one Chrome JSON trace of every machine (pids kept apart\n"
                   "             per machine, machine names in process names)\n"
                   "See weft --help for the flags.\n");
      return 1;
    case CLI_COMMAND_SERVER:
      fprintf(out, "usage: weft server http [--port N] [--ip-address A]\n"
                   "         [--idle-timeout DUR] [--additional-cors-origins O1,O2]\n"
                   "         [flags] [TRACE...]\n"
                   "       weft server stdio [flags] [TRACE...]\n"
                   "       weft server unix --name NAME [--daemonize] [--idle-timeout DUR]\n"
                   "         [flags] [TRACE...]\n"
                   "http: Perfetto's TraceProcessor RPC over HTTP (/status, /parse,\n"
                   "/notify_eof, /query, /restore_initial_tables, /websocket) on\n"
                   "127.0.0.1:9001 unless told otherwise. stdio: the RPC stream on\n"
                   "standard input and output. unix: the RPC stream on the socket\n"
                   "$XDG_RUNTIME_DIR/weft/NAME.sock (else /tmp/weft-UID/NAME.sock),\n"
                   "keeping the trace loaded for `weft query --remote NAME`; prints a\n"
                   "startup record line; --daemonize returns once it serves. The\n"
                   "traces (if any) are preloaded. See docs/rpc.md.\n");
      return 1;
    default:
      return 0;
  }
}

static void cli_mode_on_ready(void *user, const char *ip, unsigned port) {
  if (*(const int *)user) return;
  fprintf(stderr, "weft: serving the TraceProcessor RPC on http://%s%s%s:%u\n",
          strchr(ip, ':') ? "[" : "", ip, strchr(ip, ':') ? "]" : "", port);
}

void cli_mode_http_options(const cli_mode *m, server_http_options *http) {
  memset(http, 0, sizeof *http);
  http->ip_address = m->ip_address;
  http->port = (uint16_t)m->port;
  http->any_port = m->any_port;
  http->idle_timeout_ms = m->idle_timeout_ms;
  http->extra_cors_origins = m->cors_origins;
}

int cli_mode_serving(const cli_mode *m) { return m->httpd || m->transport; }

int cli_mode_daemonize(cli_mode *m, int *status) {
  m->ready_fd = -1;
  if (m->transport != CLI_TRANSPORT_UNIX || !m->daemonize) return 1;
  int fd;
  int parent_status = server_daemonize(&fd);
  if (parent_status >= 0) {
    *status = parent_status;
    return 0;
  }
  m->ready_fd = fd;
  return 1;
}

int cli_mode_remote_query(const cli_mode *m, const char *sql) {
  cli_csv printer = {stdout, 0};
  weft_query_callbacks cb = cli_csv_callbacks(&printer);
  char err[1024];
  int rc = server_remote_query(m->remote, sql, &cb, err, sizeof err);
  fflush(stdout);
  if (rc != 0) {
    fprintf(stderr, "weft: query failed: %s\n", err);
    return 1;
  }
  return 0;
}

/* The stdio and unix transports. */
static int cli_mode_serve_local(const cli_mode *m, weft *w, const weft_options *options,
                                const char *name, int quiet) {
  char err[512];
  int rc;
  if (m->transport == CLI_TRANSPORT_STDIO) {
    rc = server_stdio_run(options, w, name, err, sizeof err);
  } else {
    server_unix_options u = {m->name, m->idle_timeout_ms, m->ready_fd, quiet};
    rc = server_unix_run(&u, options, w, name, err, sizeof err);
  }
  if (rc != 0) {
    fprintf(stderr, "weft: %s\n", err);
    return 1;
  }
  return 0;
}

int cli_mode_serve(const cli_mode *m, weft *w, const weft_options *options,
                   const char *name, int quiet) {
  if (m->transport) return cli_mode_serve_local(m, w, options, name, quiet);
  server_http_options http;
  cli_mode_http_options(m, &http);
  http.on_ready = cli_mode_on_ready;
  http.user = &quiet;
  char err[256];
  if (server_http_run(&http, options, w, name, err, sizeof err) != 0) {
    fprintf(stderr, "weft: %s\n", err);
    return 1;
  }
  return 0;
}
