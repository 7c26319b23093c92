/* server: weft's TraceProcessor RPC server, the stage between the command
 * line and the library. It uses only the public API (weft/weft.h).
 *
 * rpc_wire.c reads and writes the protobuf messages, rpc_query.c turns
 * query rows into QueryResult batches, rpc.c is the RPC on one instance,
 * httpd.c carries it over HTTP with libmicrohttpd as trace_processor_shell
 * does (the endpoints, CORS and limits are described there). */
#ifndef WEFT_SERVER_SERVER_H
#define WEFT_SERVER_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "view.h"
#include "weft/weft.h"

#define SERVER_DEFAULT_PORT 9001

typedef struct server_http_options {
  const char *ip_address;       /* NULL: 127.0.0.1 */
  uint16_t port;                /* 0: SERVER_DEFAULT_PORT */
  int any_port;                 /* listen on a free port (port ignored) */
  uint64_t idle_timeout_ms;     /* stop after this long without a request; 0: never */
  const char *extra_cors_origins; /* comma-separated, or NULL */
  /* Called once the server listens, with the address it serves. */
  void (*on_ready)(void *user, const char *ip_address, unsigned port);
  void *user;
  /* What the web view may ask of the command (re-merge, manifest), or
   * NULL. */
  const view_host *view;
} server_http_options;

/* Serves the RPC until SIGINT or SIGTERM, or the idle timeout. `preloaded`
 * (a loaded instance named `name`, or NULL) is the first trace; it is
 * closed on return. New traces sent with /parse are opened with
 * `options`. Returns 0, or -1 with a message in err. */
int server_http_run(const server_http_options *http, const weft_options *options,
                    weft *preloaded, const char *name, char *err, size_t err_cap);

/* `weft server stdio`: the RPC stream (rpc_stream.h) on standard input
 * and output until input ends. `preloaded` as for server_http_run. */
int server_stdio_run(const weft_options *options, weft *preloaded, const char *name,
                     char *err, size_t err_cap);

typedef struct server_unix_options {
  const char *name;         /* the session's name */
  uint64_t idle_timeout_ms; /* stop after this long without a client; 0: never */
  int ready_fd;             /* -1, or server_daemonize's pipe */
  int quiet;                /* no how-to-query line on stderr */
} server_unix_options;

/* The socket of session `name`: $XDG_RUNTIME_DIR/weft/NAME.sock, else
 * /tmp/weft-UID/NAME.sock (the folder made, mode 0700, if create_dir).
 * 0, or -1 with a message for a bad name or path. */
int server_unix_path(const char *name, int create_dir, char *out, size_t cap, char *err,
                     size_t err_cap);
/* A connected socket to the server at path, or -1. */
int server_unix_connect(const char *path);
/* `weft server unix`: the RPC stream on a unix-domain socket, one client
 * at a time, each with a stream of its own on one session that keeps the
 * trace loaded. Prints the startup record ("weft-session pid=P session=N
 * socket-path=S idle-timeout=T") once listening; stops on SIGINT/SIGTERM
 * or after the idle timeout, removing the socket. A live socket of the
 * same name is an error; a stale one is replaced. */
int server_unix_run(const server_unix_options *u, const weft_options *options,
                    weft *preloaded, const char *name, char *err, size_t err_cap);
/* --daemonize, before loading: forks. The child returns -1 with the pipe
 * for server_unix_options.ready_fd, in a session of its own; the parent
 * waits for the child's startup record, prints it and returns 0, or
 * returns 1 if the child ended first (its error is on stderr). */
int server_daemonize(int *ready_fd);

/* `weft query --remote NAME`: runs sql on the session's trace, giving the
 * answer (the last statement's columns and rows, as the RPC returns them)
 * to cb. 0, or -1 with a message (no such session, a query error). */
int server_remote_query(const char *name, const char *sql, const weft_query_callbacks *cb,
                        char *err, size_t err_cap);

#endif
