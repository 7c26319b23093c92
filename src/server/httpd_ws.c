/* The RPC over a websocket (httpd_ws.h). */
#include "httpd_ws.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ws.h"

#define HTTPD_WS_POLL_MS 100
#define HTTPD_WS_STALL_MS 30000

typedef struct httpd_ws {
  httpd_ws_host *host;
  int fd;
  struct MHD_UpgradeResponseHandle *urh;
  rpc_buf rx;        /* frame bytes received */
  rpc_buf message;   /* the binary message being assembled */
  int in_message;    /* a fragmented message is open */
  int closed;        /* a close frame went out (or the socket failed) */
  rpc_stream stream;
} httpd_ws;

/* Writes all of data, waiting while the socket is full, but not past
 * HTTPD_WS_STALL_MS without progress: a client that stops reading would
 * otherwise hold the session (and every other client) forever. */
static int httpd_ws_write(httpd_ws *ws, const void *data, size_t len) {
  const uint8_t *p = data;
  int stalled_ms = 0;
  while (len > 0) {
    ssize_t n = send(ws->fd, p, len, MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      len -= (size_t)n;
      stalled_ms = 0;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      struct pollfd pfd = {ws->fd, POLLOUT, 0};
      if (ws->host->stopping || stalled_ms >= HTTPD_WS_STALL_MS) return -1;
      if (poll(&pfd, 1, HTTPD_WS_POLL_MS) == 0) stalled_ms += HTTPD_WS_POLL_MS;
      continue;
    }
    return -1;
  }
  return 0;
}

static int httpd_ws_send_frame(httpd_ws *ws, int opcode, const void *data, size_t len) {
  uint8_t head[WS_MAX_HEADER];
  size_t n = ws_frame_header(head, opcode, len);
  if (httpd_ws_write(ws, head, n) || (len && httpd_ws_write(ws, data, len))) {
    ws->closed = 1;
    return -1;
  }
  return 0;
}

static void httpd_ws_close(httpd_ws *ws, int code) {
  if (ws->closed) return;
  uint8_t payload[2] = {(uint8_t)(code >> 8), (uint8_t)code};
  (void)httpd_ws_send_frame(ws, WS_OP_CLOSE, payload, sizeof payload);
  ws->closed = 1;
}

/* The RPC stream's answers: one binary message each. */
static int httpd_ws_send_rpc(void *user, const void *data, size_t len) {
  return httpd_ws_send_frame(user, WS_OP_BINARY, data, len);
}

static void httpd_ws_deliver(httpd_ws *ws) {
  httpd_ws_host *host = ws->host;
  pthread_mutex_lock(&host->lock);
  if (host->settle) host->settle(host->user);
  int rc = rpc_stream_feed(&ws->stream, ws->message.data, ws->message.len);
  pthread_mutex_unlock(&host->lock);
  if (host->touch) host->touch(host->user);
  ws->message.len = 0;
  ws->in_message = 0;
  if (rc != 0) httpd_ws_close(ws, WS_CLOSE_PROTOCOL);
}

/* A data frame: starts or continues the binary message. */
static void httpd_ws_data(httpd_ws *ws, const ws_frame *f) {
  if (f->opcode == WS_OP_TEXT) {
    httpd_ws_close(ws, WS_CLOSE_UNSUPPORTED);
    return;
  }
  int starts = f->opcode == WS_OP_BINARY;
  if (starts == ws->in_message) { /* a new message inside one, or a stray continuation */
    httpd_ws_close(ws, WS_CLOSE_PROTOCOL);
    return;
  }
  ws->in_message = 1;
  if (f->len > HTTPD_WS_MAX_MESSAGE - ws->message.len) {
    httpd_ws_close(ws, WS_CLOSE_TOO_BIG);
    return;
  }
  rpc_buf_append(&ws->message, f->payload, f->len);
  if (ws->message.failed) {
    httpd_ws_close(ws, WS_CLOSE_INTERNAL);
    return;
  }
  if (f->fin) httpd_ws_deliver(ws);
}

static void httpd_ws_frame(httpd_ws *ws, const ws_frame *f) {
  switch (f->opcode) {
    case WS_OP_PING: (void)httpd_ws_send_frame(ws, WS_OP_PONG, f->payload, f->len); break;
    case WS_OP_PONG: break;
    case WS_OP_CLOSE:
      if (f->len >= 2) (void)httpd_ws_send_frame(ws, WS_OP_CLOSE, f->payload, 2);
      else (void)httpd_ws_send_frame(ws, WS_OP_CLOSE, NULL, 0);
      ws->closed = 1;
      break;
    default: httpd_ws_data(ws, f); break;
  }
}

/* Reads every whole frame in rx. */
static void httpd_ws_frames(httpd_ws *ws) {
  size_t pos = 0;
  while (!ws->closed) {
    ws_frame f;
    int code;
    long used = ws_frame_read(ws->rx.data + pos, ws->rx.len - pos, HTTPD_WS_MAX_MESSAGE,
                              &f, &code);
    if (used < 0) httpd_ws_close(ws, code);
    if (used <= 0) break;
    pos += (size_t)used;
    httpd_ws_frame(ws, &f);
  }
  memmove(ws->rx.data, ws->rx.data + pos, ws->rx.len - pos);
  ws->rx.len -= pos;
}

static int httpd_ws_receive(httpd_ws *ws) {
  uint8_t buf[64 * 1024];
  ssize_t n = recv(ws->fd, buf, sizeof buf, 0);
  if (n == 0) return -1;
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
  rpc_buf_append(&ws->rx, buf, (size_t)n);
  if (ws->rx.failed) {
    httpd_ws_close(ws, WS_CLOSE_TOO_BIG);
    return -1;
  }
  httpd_ws_frames(ws);
  return 0;
}

static void httpd_ws_free(httpd_ws *ws) {
  rpc_stream_free(&ws->stream);
  rpc_buf_free(&ws->rx);
  rpc_buf_free(&ws->message);
  free(ws);
}

static void *httpd_ws_main(void *arg) {
  httpd_ws *ws = arg;
  httpd_ws_host *host = ws->host;
  if (ws->rx.len) httpd_ws_frames(ws);
  while (!ws->closed && !host->stopping) {
    struct pollfd pfd = {ws->fd, POLLIN, 0};
    int ready = poll(&pfd, 1, HTTPD_WS_POLL_MS);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0 && httpd_ws_receive(ws) != 0) break;
  }
  if (host->stopping) httpd_ws_close(ws, 1001); /* going away */
  MHD_upgrade_action(ws->urh, MHD_UPGRADE_ACTION_CLOSE);
  httpd_ws_free(ws);
  __atomic_sub_fetch(&host->open, 1, __ATOMIC_SEQ_CST);
  return NULL;
}

int httpd_ws_start(httpd_ws_host *host, MHD_socket fd,
                   struct MHD_UpgradeResponseHandle *urh, const char *extra,
                   size_t extra_len) {
  httpd_ws *ws = calloc(1, sizeof *ws);
  if (!ws) {
    MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
    return -1;
  }
  ws->host = host;
  ws->fd = fd;
  ws->urh = urh;
  ws->rx.cap = HTTPD_WS_MAX_MESSAGE + WS_MAX_HEADER + 64 * 1024;
  rpc_buf_append(&ws->rx, extra, extra_len);
  rpc_stream_init(&ws->stream, host->session, httpd_ws_send_rpc, ws);
  __atomic_add_fetch(&host->open, 1, __ATOMIC_SEQ_CST);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attr, httpd_ws_main, ws);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    __atomic_sub_fetch(&host->open, 1, __ATOMIC_SEQ_CST);
    MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
    httpd_ws_free(ws);
    return -1;
  }
  return 0;
}

void httpd_ws_stop_all(httpd_ws_host *host) {
  host->stopping = 1;
  while (__atomic_load_n(&host->open, __ATOMIC_SEQ_CST)) usleep(10 * 1000);
}
