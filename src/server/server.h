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

#endif
