/* server: the RPC over a websocket, as the Perfetto UI speaks it to
 * trace_processor_shell's /websocket: each binary message carries bytes
 * of the RPC stream (rpc_stream.h), and each answer goes out as one
 * binary message. httpd.c upgrades the connection and hands its socket
 * here; each websocket is served by a thread of its own, with its own
 * stream (sequence numbers) on the server's one session, which `lock`
 * guards against the HTTP requests.
 *
 * Limits and errors: a message (all its fragments) is at most
 * HTTPD_WS_MAX_MESSAGE bytes, else the connection is closed with code
 * 1009; a protocol error (an unmasked frame, RSV bits, a bad opcode, a
 * fragmented control frame, a continuation out of place) closes it with
 * 1002, a text message with 1003, an RPC fatal error with 1002 after its
 * fatal_error message. Pings are answered with pongs, a close frame with
 * a close frame. A client that reads nothing of an answer for 30 s is
 * dropped, so it cannot hold the session from the others. */
#ifndef WEFT_SERVER_HTTPD_WS_H
#define WEFT_SERVER_HTTPD_WS_H

#include <microhttpd.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "rpc.h"
#include "rpc_stream.h"

#define HTTPD_WS_MAX_MESSAGE (RPC_STREAM_MAX_MESSAGE + 64u)

typedef struct httpd_ws_host {
  pthread_mutex_t lock;     /* held while the session is used */
  rpc_session *session;
  volatile int stopping;    /* set when the server stops */
  volatile uint32_t open;   /* websockets being served */
  void (*touch)(void *user); /* a message was handled */
  void (*settle)(void *user); /* before a message is handled, under the lock */
  void *user;
} httpd_ws_host;

/* Serves the upgraded connection `fd` on a new thread; `extra` holds bytes
 * already read after the handshake. The connection is closed through urh
 * when done. Returns 0, or -1 (connection closed) if no thread started. */
int httpd_ws_start(httpd_ws_host *host, MHD_socket fd,
                   struct MHD_UpgradeResponseHandle *urh, const char *extra,
                   size_t extra_len);
/* Stops every websocket and waits for their threads. */
void httpd_ws_stop_all(httpd_ws_host *host);

#endif
