/* The RPC over HTTP (server.h), served by libmicrohttpd on one thread, so
 * requests run one at a time on the one session, as in
 * trace_processor_shell.
 *
 * Endpoints: /status, /parse (the body is appended to the trace being
 * loaded), /notify_eof, /query (a QueryResult in chunked encoding),
 * /restore_initial_tables; /websocket, the RPC stream over a websocket as
 * the Perfetto UI uses it (httpd_ws.h); /rpc, bytes of the RPC stream per
 * POST, answered with its messages; the web view's page at / (with /app.js and
 * /style.css) and its JSON endpoints under /view/ (view.h); others
 * answer 404. CORS: a request whose
 * Origin is https://ui.perfetto.dev, http://localhost:10000,
 * http://127.0.0.1:10000 or an extra origin gets that origin back in
 * Access-Control-Allow-Origin; any other Origin is refused with 403
 * (preflight OPTIONS requests are answered 204 either way, without the
 * origin when it is not allowed). Bodies are bounded per endpoint: an
 * oversized one is answered 413 and its connection closed. */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "httpd_ws.h"
#include "rpc.h"
#include "server.h"
#include "view.h"
#include "ws.h"

#define HTTPD_MAX_PARSE_BODY (64ull << 20)
#define HTTPD_MAX_QUERY_BODY (4ull << 20)
#define HTTPD_MAX_OTHER_BODY (64ull << 10)
/* An oversized body declared up to this size is read and dropped, so
 * the client reads the 413; a larger one is answered at once. */
#define HTTPD_MAX_DRAIN (1ull << 30)
#define HTTPD_MAX_ORIGIN 256

static const char *const httpd_default_origins[] = {
    "https://ui.perfetto.dev", "http://localhost:10000", "http://127.0.0.1:10000"};

enum httpd_endpoint {
  HTTPD_NOT_FOUND, HTTPD_ASSET, HTTPD_VIEW, HTTPD_STATUS, HTTPD_PARSE, HTTPD_NOTIFY_EOF, HTTPD_QUERY,
  HTTPD_RESTORE, HTTPD_WEBSOCKET, HTTPD_RPC
};

typedef struct httpd_server {
  rpc_session session;
  view_state *view;
  char bind_host[64]; /* the address listened on, as a Host names it */
  const char *extra_origins;
  volatile uint64_t last_activity_ms;
  volatile uint32_t in_flight; /* requests begun and not completed */
  httpd_ws_host ws; /* the websockets, and the lock on the session */
  rpc_stream rpc;   /* /rpc's stream: its seq runs across requests */
  rpc_spool *rpc_out; /* the answer of the /rpc request being run */
} httpd_server;

typedef struct httpd_request {
  int endpoint;
  char path[64]; /* of an asset or a /view/ endpoint */
  int too_big;
  int is_get;
  char origin[HTTPD_MAX_ORIGIN]; /* allowed Origin to echo, or "" */
  uint64_t received;
  rpc_buf body;
} httpd_request;

static volatile sig_atomic_t httpd_stop;

static uint64_t httpd_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void httpd_touch(httpd_server *srv) {
  __atomic_store_n(&srv->last_activity_ms, httpd_now_ms(), __ATOMIC_RELAXED);
}

static int httpd_endpoint_of(const char *url) {
  static const struct { const char *path; int endpoint; } table[] = {
      {"/status", HTTPD_STATUS}, {"/parse", HTTPD_PARSE},
      {"/notify_eof", HTTPD_NOTIFY_EOF}, {"/query", HTTPD_QUERY},
      {"/restore_initial_tables", HTTPD_RESTORE}, {"/websocket", HTTPD_WEBSOCKET},
      {"/rpc", HTTPD_RPC}};
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (strcmp(url, table[i].path) == 0) return table[i].endpoint;
  if (strncmp(url, "/view/", 6) == 0) return HTTPD_VIEW;
  if (view_asset(url, NULL, NULL, NULL)) return HTTPD_ASSET;
  return HTTPD_NOT_FOUND;
}

static uint64_t httpd_body_limit(int endpoint) {
  if (endpoint == HTTPD_PARSE || endpoint == HTTPD_RPC) return HTTPD_MAX_PARSE_BODY;
  if (endpoint == HTTPD_QUERY || endpoint == HTTPD_VIEW) return HTTPD_MAX_QUERY_BODY;
  return HTTPD_MAX_OTHER_BODY;
}

/* Whether `origin` is in the comma-separated list. */
static int httpd_in_list(const char *list, const char *origin) {
  size_t len = strlen(origin);
  for (const char *p = list; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    if (n == len && strncmp(p, origin, n) == 0) return 1;
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

static int httpd_origin_allowed(const httpd_server *srv, const char *origin) {
  for (size_t i = 0; i < sizeof httpd_default_origins / sizeof *httpd_default_origins; i++)
    if (strcmp(origin, httpd_default_origins[i]) == 0) return 1;
  return httpd_in_list(srv->extra_origins, origin);
}

/* The hostname of a Host header value ("127.0.0.1:9001", "[::1]:80"). */
static int httpd_host_is(const char *host, const char *name) {
  size_t n = strlen(name);
  return strncmp(host, name, n) == 0 && (host[n] == ':' || host[n] == '\0');
}

/* The page's own requests (the web view's POSTs carry an Origin): the
 * origin is http:// plus the Host asked for, and that host is this
 * server's address or a loopback name (not a name an attacker's DNS
 * points here). */
static int httpd_same_origin(const httpd_server *srv, struct MHD_Connection *c,
                             const char *origin) {
  const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
  if (!host || strncmp(origin, "http://", 7) != 0 || strcmp(origin + 7, host) != 0) return 0;
  return httpd_host_is(host, "127.0.0.1") || httpd_host_is(host, "localhost") ||
         httpd_host_is(host, "[::1]") || httpd_host_is(host, srv->bind_host);
}

static void httpd_add_cors(struct MHD_Response *resp, const httpd_request *req) {
  if (!req->origin[0]) return;
  MHD_add_response_header(resp, "Access-Control-Allow-Origin", req->origin);
  MHD_add_response_header(resp, "Vary", "Origin");
}

/* Queues a response of `len` bytes of body (copied). */
static enum MHD_Result httpd_reply(struct MHD_Connection *c, const httpd_request *req,
                                   unsigned status, const void *body, size_t len,
                                   int close) {
  struct MHD_Response *resp = MHD_create_response_from_buffer(
      len, (void *)body, MHD_RESPMEM_MUST_COPY);
  if (!resp) return MHD_NO;
  if (status == MHD_HTTP_OK || status == MHD_HTTP_NOT_FOUND) {
    MHD_add_response_header(resp, "Cache-Control", "no-cache");
    MHD_add_response_header(resp, "Content-Type", "application/x-protobuf");
  }
  if (req) httpd_add_cors(resp, req);
  if (close) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
  enum MHD_Result r = MHD_queue_response(c, status, resp);
  MHD_destroy_response(resp);
  return r;
}

static enum MHD_Result httpd_reply_text(struct MHD_Connection *c, unsigned status,
                                        const char *text) {
  return httpd_reply(c, NULL, status, text, strlen(text), 1);
}

static enum MHD_Result httpd_preflight(struct MHD_Connection *c,
                                       const httpd_request *req) {
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, "Access-Control-Allow-Methods", "POST, GET, OPTIONS");
  MHD_add_response_header(resp, "Access-Control-Allow-Headers", "*");
  MHD_add_response_header(resp, "Access-Control-Max-Age", "86400");
  MHD_add_response_header(resp, "Access-Control-Allow-Private-Network", "true");
  httpd_add_cors(resp, req);
  enum MHD_Result r = MHD_queue_response(c, MHD_HTTP_NO_CONTENT, resp);
  MHD_destroy_response(resp);
  return r;
}

static ssize_t httpd_read_spool(void *cls, uint64_t pos, char *buf, size_t max) {
  ssize_t n = rpc_spool_read(cls, pos, buf, max);
  if (n == 0) return MHD_CONTENT_READER_END_OF_STREAM;
  return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void httpd_free_spool(void *cls) {
  rpc_spool_free(cls);
  free(cls);
}

static enum MHD_Result httpd_serve_query(httpd_server *srv, struct MHD_Connection *c,
                                         const httpd_request *req) {
  rpc_spool *spool = calloc(1, sizeof *spool);
  if (!spool) return MHD_NO;
  if (rpc_query(&srv->session, req->body.data, req->body.len, spool) != 0) {
    httpd_free_spool(spool);
    return httpd_reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
                            "Out of memory or disk space for the query result");
  }
  struct MHD_Response *resp = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, 64 * 1024, httpd_read_spool, spool, httpd_free_spool);
  if (!resp) {
    httpd_free_spool(spool);
    return MHD_NO;
  }
  MHD_add_response_header(resp, "Cache-Control", "no-cache");
  MHD_add_response_header(resp, "Content-Type", "application/x-protobuf");
  httpd_add_cors(resp, req);
  enum MHD_Result r = MHD_queue_response(c, MHD_HTTP_OK, resp);
  MHD_destroy_response(resp);
  return r;
}

static int httpd_rpc_send(void *user, const void *data, size_t len) {
  httpd_server *srv = user;
  rpc_spool_write(srv->rpc_out, data, len);
  return srv->rpc_out->failed ? -1 : 0;
}

/* POST /rpc: the body is bytes of the RPC stream, the answer its
 * messages (chunked). A fatal error starts the stream afresh for the next
 * request, after answering fatal_error and closing the connection. */
static enum MHD_Result httpd_serve_rpc(httpd_server *srv, struct MHD_Connection *c,
                                       const httpd_request *req) {
  rpc_spool *spool = calloc(1, sizeof *spool);
  if (!spool) return MHD_NO;
  srv->rpc_out = spool;
  int fatal = rpc_stream_feed(&srv->rpc, req->body.data, req->body.len) != 0;
  srv->rpc_out = NULL;
  if (fatal) {
    rpc_stream_free(&srv->rpc);
    rpc_stream_init(&srv->rpc, &srv->session, httpd_rpc_send, srv);
  }
  struct MHD_Response *resp = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, 64 * 1024, httpd_read_spool, spool, httpd_free_spool);
  if (!resp) {
    httpd_free_spool(spool);
    return MHD_NO;
  }
  MHD_add_response_header(resp, "Cache-Control", "no-cache");
  MHD_add_response_header(resp, "Content-Type", "application/x-protobuf");
  if (fatal) MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
  httpd_add_cors(resp, req);
  enum MHD_Result r = MHD_queue_response(c, MHD_HTTP_OK, resp);
  MHD_destroy_response(resp);
  return r;
}

/* An embedded asset of the web view (web/). */
static enum MHD_Result httpd_asset(struct MHD_Connection *c, const char *url) {
  const uint8_t *data;
  size_t len;
  const char *type;
  if (!view_asset(url, &data, &len, &type))
    return httpd_reply_text(c, MHD_HTTP_NOT_FOUND, "Not found");
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_PERSISTENT);
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, "Content-Type", type);
  MHD_add_response_header(resp, "Cache-Control", "no-cache");
  enum MHD_Result r = MHD_queue_response(c, MHD_HTTP_OK, resp);
  MHD_destroy_response(resp);
  return r;
}

static const char *httpd_get_arg(void *ctx, const char *key) {
  return MHD_lookup_connection_value(ctx, MHD_GET_ARGUMENT_KIND, key);
}

/* A /view/ endpoint: JSON (or the manifest as a download). */
static enum MHD_Result httpd_view(httpd_server *srv, struct MHD_Connection *c,
                                  httpd_request *req) {
  rpc_buf_append(&req->body, "", 1); /* NUL-terminates the SQL of /view/query */
  view_request vr = {req->path + 6, httpd_get_arg, c,
                     req->body.failed ? NULL : (const char *)req->body.data,
                     req->body.len ? req->body.len - 1 : 0};
  view_reply reply;
  view_handle(srv->view, &srv->session, &vr, &reply);
  /* The reply (tens of MiB for a wide summary) is handed over, not copied. */
  struct MHD_Response *resp = MHD_create_response_from_buffer(
      reply.body.len, reply.body.data, MHD_RESPMEM_MUST_FREE);
  if (!resp) {
    rpc_buf_free(&reply.body);
    return MHD_NO;
  }
  MHD_add_response_header(resp, "Content-Type", reply.content_type);
  MHD_add_response_header(resp, "Cache-Control", "no-cache");
  if (reply.attachment) {
    char disposition[128];
    snprintf(disposition, sizeof disposition, "attachment; filename=\"%s\"",
             reply.attachment);
    MHD_add_response_header(resp, "Content-Disposition", disposition);
  }
  httpd_add_cors(resp, req);
  enum MHD_Result r = MHD_queue_response(c, reply.status, resp);
  MHD_destroy_response(resp);
  return r;
}

static void httpd_on_upgrade(void *cls, struct MHD_Connection *c, void *con_cls,
                             const char *extra, size_t extra_len, MHD_socket sock,
                             struct MHD_UpgradeResponseHandle *urh) {
  (void)c;
  (void)con_cls;
  httpd_server *srv = cls;
  (void)httpd_ws_start(&srv->ws, sock, urh, extra, extra_len);
}

/* Whether the header holds `token` (case-insensitive, comma-separated). */
static int httpd_header_has(struct MHD_Connection *c, const char *name, const char *token) {
  const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
  size_t n = strlen(token);
  for (const char *p = v; p && *p; p++)
    if (strncasecmp(p, token, n) == 0 && (p == v || p[-1] == ' ' || p[-1] == ',') &&
        (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
      return 1;
  return 0;
}

/* GET /websocket: the handshake (RFC 6455), then httpd_ws.c. */
static enum MHD_Result httpd_websocket(httpd_server *srv, struct MHD_Connection *c,
                                       const httpd_request *req) {
  const char *key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Key");
  const char *version =
      MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Version");
  if (!req->is_get || !httpd_header_has(c, "Upgrade", "websocket") ||
      !httpd_header_has(c, "Connection", "upgrade") || !key || strlen(key) > 64)
    return httpd_reply_text(c, MHD_HTTP_BAD_REQUEST, "Not a websocket handshake");
  if (!version || strcmp(version, "13") != 0)
    return httpd_reply_text(c, MHD_HTTP_UPGRADE_REQUIRED,
                            "Only websocket version 13 is supported");
  char accept[29];
  ws_accept_key(key, accept);
  struct MHD_Response *resp = MHD_create_response_for_upgrade(httpd_on_upgrade, srv);
  if (!resp) return MHD_NO;
  MHD_add_response_header(resp, MHD_HTTP_HEADER_UPGRADE, "websocket");
  MHD_add_response_header(resp, "Sec-WebSocket-Accept", accept);
  httpd_add_cors(resp, req);
  enum MHD_Result r = MHD_queue_response(c, MHD_HTTP_SWITCHING_PROTOCOLS, resp);
  MHD_destroy_response(resp);
  return r;
}

/* The whole request is in: runs it. */
static enum MHD_Result httpd_dispatch(httpd_server *srv, struct MHD_Connection *c,
                                      httpd_request *req) {
  if (req->too_big)
    return httpd_reply_text(c, MHD_HTTP_CONTENT_TOO_LARGE, "Request body too big");
  rpc_buf out = {0};
  switch (req->endpoint) {
    case HTTPD_QUERY: return httpd_serve_query(srv, c, req);
    case HTTPD_ASSET: return httpd_asset(c, req->path);
    case HTTPD_VIEW: return httpd_view(srv, c, req);
    case HTTPD_WEBSOCKET: return httpd_websocket(srv, c, req);
    case HTTPD_RPC: return httpd_serve_rpc(srv, c, req);
    case HTTPD_STATUS: rpc_status(&srv->session, &out); break;
    case HTTPD_PARSE: rpc_parse_reply(&srv->session, &out); break;
    case HTTPD_NOTIFY_EOF: rpc_notify_eof(&srv->session); break;
    case HTTPD_RESTORE: rpc_restore_initial_tables(&srv->session); break;
    default: return httpd_reply(c, req, MHD_HTTP_NOT_FOUND, NULL, 0, 1);
  }
  enum MHD_Result r = httpd_reply(c, req, MHD_HTTP_OK, out.data, out.len, 0);
  rpc_buf_free(&out);
  return r;
}

/* The body is over its limit: the rest is dropped, and an oversized
 * /parse fails the trace being loaded. */
static void httpd_body_too_big(httpd_server *srv, httpd_request *req) {
  if (!req->too_big && req->endpoint == HTTPD_PARSE)
    rpc_parse_fail(&srv->session, "Request body too big");
  req->too_big = 1;
  rpc_buf_free(&req->body);
}

static void httpd_take_body(httpd_server *srv, httpd_request *req,
                            const char *data, size_t len) {
  req->received += len;
  if (req->too_big) return;
  if (req->received > httpd_body_limit(req->endpoint)) {
    httpd_body_too_big(srv, req);
    return;
  }
  if (req->endpoint == HTTPD_PARSE) rpc_parse_bytes(&srv->session, data, len);
  else rpc_buf_append(&req->body, data, len);
}

/* The first call for a request: origin, preflight and size checks. */
static enum MHD_Result httpd_begin(httpd_server *srv, struct MHD_Connection *c,
                                   const char *url, const char *method,
                                   void **con_cls) {
  httpd_touch(srv);
  httpd_request *req = calloc(1, sizeof *req);
  if (!req) return MHD_NO;
  *con_cls = req;
  __atomic_add_fetch(&srv->in_flight, 1, __ATOMIC_RELAXED);
  req->endpoint = httpd_endpoint_of(url);
  if (strlen(url) >= sizeof req->path) req->endpoint = HTTPD_NOT_FOUND;
  else snprintf(req->path, sizeof req->path, "%s", url);
  req->is_get = strcmp(method, MHD_HTTP_METHOD_GET) == 0;
  const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
  int allowed = origin && strlen(origin) < HTTPD_MAX_ORIGIN &&
                httpd_origin_allowed(srv, origin);
  if (allowed) snprintf(req->origin, sizeof req->origin, "%s", origin);
  if (origin && !allowed) allowed = httpd_same_origin(srv, c, origin);
  if (strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0) return httpd_preflight(c, req);
  if (origin && !allowed)
    return httpd_reply_text(c, MHD_HTTP_FORBIDDEN, "Origin not allowed");
  const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                                   MHD_HTTP_HEADER_CONTENT_LENGTH);
  uint64_t declared = length ? strtoull(length, NULL, 10) : 0;
  if (declared > HTTPD_MAX_DRAIN)
    return httpd_reply_text(c, MHD_HTTP_CONTENT_TOO_LARGE, "Request body too big");
  req->body.cap = (size_t)httpd_body_limit(req->endpoint);
  if (req->endpoint == HTTPD_PARSE) rpc_parse_begin(&srv->session);
  if (declared > httpd_body_limit(req->endpoint)) httpd_body_too_big(srv, req);
  return MHD_YES;
}

static enum MHD_Result httpd_on_request(void *cls, struct MHD_Connection *c,
                                        const char *url, const char *method,
                                        const char *version, const char *upload,
                                        size_t *upload_size, void **con_cls) {
  (void)version;
  httpd_server *srv = cls;
  pthread_mutex_lock(&srv->ws.lock);
  /* The view's background fill reads the trace, which a request may
   * change from its first call on (a /parse); the flows the page asks
   * for after a first summary only query it, and run alongside. */
  if (strcmp(url, "/view/flows") != 0) view_settle(srv->view);
  enum MHD_Result r = MHD_YES;
  httpd_request *req = *con_cls;
  if (!req) {
    r = httpd_begin(srv, c, url, method, con_cls);
  } else if (*upload_size) {
    httpd_take_body(srv, req, upload, *upload_size);
    *upload_size = 0;
  } else {
    r = httpd_dispatch(srv, c, req);
    httpd_touch(srv);
  }
  pthread_mutex_unlock(&srv->ws.lock);
  return r;
}

static void httpd_ws_touch(void *user) { httpd_touch(user); }

static void httpd_ws_settle(void *user) {
  httpd_server *srv = user;
  view_settle(srv->view);
}

static void httpd_on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                               enum MHD_RequestTerminationCode code) {
  (void)c;
  (void)code;
  httpd_server *srv = cls;
  httpd_request *req = *con_cls;
  if (req) {
    rpc_buf_free(&req->body);
    free(req);
    __atomic_sub_fetch(&srv->in_flight, 1, __ATOMIC_RELAXED);
  }
  *con_cls = NULL;
  httpd_touch(srv);
}

static void httpd_on_signal(int sig) {
  (void)sig;
  httpd_stop = 1;
}

static void httpd_catch_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = httpd_on_signal;
  sigemptyset(&sa.sa_mask);
  (void)sigaction(SIGINT, &sa, NULL);
  (void)sigaction(SIGTERM, &sa, NULL);
}

/* Idle: no request in flight (a long query is not idleness) and none
 * begun or completed for idle_timeout_ms. */
static int httpd_idle(httpd_server *srv, uint64_t idle_timeout_ms) {
  if (!idle_timeout_ms || __atomic_load_n(&srv->in_flight, __ATOMIC_RELAXED)) return 0;
  uint64_t last = __atomic_load_n(&srv->last_activity_ms, __ATOMIC_RELAXED);
  return httpd_now_ms() - last >= idle_timeout_ms;
}

/* The listening address: IPv4 or IPv6 text ("localhost" is 127.0.0.1). */
static int httpd_address(const char *ip, uint16_t port, struct sockaddr_storage *out,
                         int *ipv6) {
  memset(out, 0, sizeof *out);
  if (strcmp(ip, "localhost") == 0) ip = "127.0.0.1";
  struct sockaddr_in *v4 = (struct sockaddr_in *)out;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
  if (inet_pton(AF_INET, ip, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(port);
    *ipv6 = 0;
    return 0;
  }
  if (inet_pton(AF_INET6, ip, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(port);
    *ipv6 = 1;
    return 0;
  }
  return -1;
}

static void httpd_wait(httpd_server *srv, uint64_t idle_timeout_ms) {
  while (!httpd_stop && !httpd_idle(srv, idle_timeout_ms)) usleep(100 * 1000);
}

int server_http_run(const server_http_options *http, const weft_options *options,
                    weft *preloaded, const char *name, char *err, size_t err_cap) {
  const char *ip = http->ip_address ? http->ip_address : "127.0.0.1";
  uint16_t port = http->any_port ? 0 : http->port ? http->port : SERVER_DEFAULT_PORT;
  struct sockaddr_storage addr;
  int ipv6;
  if (httpd_address(ip, port, &addr, &ipv6)) {
    snprintf(err, err_cap, "bad IP address '%s' (an IPv4 or IPv6 address)", ip);
    weft_close(preloaded);
    return -1;
  }
  httpd_server *srv = calloc(1, sizeof *srv);
  if (!srv) {
    snprintf(err, err_cap, "out of memory");
    weft_close(preloaded);
    return -1;
  }
  rpc_session_init(&srv->session, options, preloaded, name);
  pthread_mutex_init(&srv->ws.lock, NULL);
  srv->ws.session = &srv->session;
  srv->ws.touch = httpd_ws_touch;
  srv->ws.settle = httpd_ws_settle;
  srv->ws.user = srv;
  rpc_stream_init(&srv->rpc, &srv->session, httpd_rpc_send, srv);
  srv->view = view_create(http->view);
  if (!srv->view) {
    snprintf(err, err_cap, "out of memory");
    rpc_session_free(&srv->session);
    free(srv);
    return -1;
  }
  srv->extra_origins = http->extra_cors_origins;
  if (http->view) view_prepare(srv->view, &srv->session);
  snprintf(srv->bind_host, sizeof srv->bind_host, ipv6 ? "[%s]" : "%s", ip);
  httpd_touch(srv);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_ALLOW_UPGRADE |
                   (ipv6 ? MHD_USE_IPv6 : 0);
  struct MHD_Daemon *d = MHD_start_daemon(
      flags, port, NULL, NULL, httpd_on_request, srv,
      MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
      MHD_OPTION_NOTIFY_COMPLETED, httpd_on_completed, srv,
      MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_END);
  if (!d) {
    snprintf(err, err_cap, "cannot listen on %s port %u (in use?)", ip, (unsigned)port);
    pthread_mutex_destroy(&srv->ws.lock);
    rpc_stream_free(&srv->rpc);
    view_free(srv->view);
    rpc_session_free(&srv->session);
    free(srv);
    return -1;
  }
  const union MHD_DaemonInfo *bound = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
  if (bound && bound->port) port = bound->port;
  httpd_stop = 0;
  httpd_catch_signals();
  if (http->on_ready) http->on_ready(http->user, ip, port);
  httpd_wait(srv, http->idle_timeout_ms);
  httpd_ws_stop_all(&srv->ws);
  MHD_stop_daemon(d);
  pthread_mutex_destroy(&srv->ws.lock);
  rpc_stream_free(&srv->rpc);
  view_free(srv->view);
  rpc_session_free(&srv->session);
  free(srv);
  return 0;
}
