/* The TraceProcessor RPC as a byte stream (rpc_stream.h). */
#include "rpc_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TraceProcessorRpc field numbers (trace_processor.proto). */
enum {
  TPR_SEQ = 1,
  TPR_REQUEST = 2,
  TPR_RESPONSE = 3,
  TPR_INVALID_REQUEST = 4,
  TPR_FATAL_ERROR = 5,
  TPR_APPEND_TRACE_DATA = 101,
  TPR_QUERY_ARGS = 103,
  TPR_APPEND_RESULT = 201,
  TPR_QUERY_RESULT = 203,
  TPR_METRIC_RESULT = 205,
  TPR_METATRACE = 209,
  TPR_STATUS = 210,
  TPR_FINALIZE_DATA_RESULT = 212,
  QR_FIELD_BATCH = 3,
  QR_FIELD_ERROR = 2,
  CMR_ERROR = 3,
  FDR_ERROR = 1
};

#define RPC_STREAM_TAG 0x0a /* field 1 (msg), length-delimited */

/* A request as read from its TraceProcessorRpc. */
typedef struct rpc_request {
  int64_t seq;
  uint64_t method;
  const uint8_t *args; /* the method's argument field, or NULL */
  size_t args_len;
} rpc_request;

void rpc_stream_init(rpc_stream *s, rpc_session *session, rpc_stream_send_fn send,
                     void *user) {
  memset(s, 0, sizeof *s);
  s->session = session;
  s->send = send;
  s->user = user;
  s->rx.cap = RPC_STREAM_MAX_MESSAGE + 16;
}

void rpc_stream_free(rpc_stream *s) { rpc_buf_free(&s->rx); }

/* ---- answers ---- */

static void rpc_stream_send_bytes(rpc_stream *s, const void *data, size_t len) {
  if (s->failed) return;
  if (s->send(s->user, data, len) != 0) s->failed = 1;
}

/* Sends msg (a TraceProcessorRpc) framed as a stream element, in one
 * piece (a websocket carries it as one message). */
static void rpc_stream_send_message(rpc_stream *s, const rpc_buf *msg) {
  rpc_buf framed = {0};
  rpc_buf_field_bytes(&framed, 1, msg->data, msg->len);
  if (msg->failed || framed.failed) s->failed = 1;
  else rpc_stream_send_bytes(s, framed.data, framed.len);
  rpc_buf_free(&framed);
}

/* The start of an answer: its seq and method. */
static void rpc_stream_answer(rpc_stream *s, rpc_buf *msg, uint64_t method) {
  rpc_buf_field_varint(msg, TPR_SEQ, (uint64_t)s->tx_seq++);
  rpc_buf_field_varint(msg, TPR_RESPONSE, method);
}

static void rpc_stream_fatal(rpc_stream *s, const char *message) {
  rpc_buf msg = {0};
  rpc_buf_field_string(&msg, TPR_FATAL_ERROR, message);
  rpc_stream_send_message(s, &msg);
  rpc_buf_free(&msg);
  s->failed = 1;
}

/* An answer with one argument field holding `arg` (none if arg is NULL). */
static void rpc_stream_reply(rpc_stream *s, uint64_t method, uint32_t field,
                             const rpc_buf *arg) {
  rpc_buf msg = {0};
  rpc_stream_answer(s, &msg, method);
  if (arg) rpc_buf_field_bytes(&msg, field, arg->data, arg->len);
  if (arg && arg->failed) msg.failed = 1;
  rpc_stream_send_message(s, &msg);
  rpc_buf_free(&msg);
}

/* ---- queries: the spooled QueryResult cut into messages ---- */

static int rpc_spool_read_all(rpc_spool *sp, uint64_t pos, uint8_t *buf, size_t len) {
  while (len > 0) {
    ssize_t n = rpc_spool_read(sp, pos, buf, len);
    if (n <= 0) return -1;
    pos += (uint64_t)n;
    buf += n;
    len -= (size_t)n;
  }
  return 0;
}

/* A varint at head[*at..n): 0, or -1 if cut off or too long. */
static int rpc_peek_varint(const uint8_t *head, size_t n, size_t *at, uint64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *at < n; shift += 7) {
    uint8_t byte = head[(*at)++];
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = v;
      return 0;
    }
  }
  return -1;
}

/* The size of the field at pos of the spool (its tag and payload), and its
 * number; 0 at the end or on a damaged spool. */
static size_t rpc_spool_field_size(rpc_spool *sp, uint64_t pos, uint32_t *number) {
  uint64_t left = rpc_spool_size(sp) - pos;
  uint8_t head[24];
  size_t n = left < sizeof head ? (size_t)left : sizeof head, at = 0;
  uint64_t tag, len = 0;
  if (n == 0 || rpc_spool_read_all(sp, pos, head, n) ||
      rpc_peek_varint(head, n, &at, &tag))
    return 0;
  switch (tag & 7) {
    case RPC_WIRE_VARINT:
      if (rpc_peek_varint(head, n, &at, &len)) return 0;
      len = 0;
      break;
    case RPC_WIRE_FIXED64: len = 8; break;
    case RPC_WIRE_FIXED32: len = 4; break;
    case RPC_WIRE_BYTES:
      if (rpc_peek_varint(head, n, &at, &len)) return 0;
      break;
    default: return 0;
  }
  if (len > left - at) return 0;
  *number = (uint32_t)(tag >> 3);
  return at + (size_t)len;
}

static void rpc_stream_query_message(rpc_stream *s, const rpc_buf *group) {
  if (group->len > RPC_STREAM_MAX_MESSAGE) {
    rpc_buf err = {0};
    rpc_buf batch = {0};
    rpc_buf_field_varint(&batch, 6, 1); /* is_last_batch */
    rpc_buf_field_bytes(&err, QR_FIELD_BATCH, batch.data, batch.len);
    rpc_buf_field_string(&err, QR_FIELD_ERROR,
                         "the query's result has a batch too big for one RPC "
                         "message (a single row of 64 MiB or more)");
    rpc_stream_reply(s, RPC_TPM_QUERY_STREAMING, TPR_QUERY_RESULT, &err);
    rpc_buf_free(&batch);
    rpc_buf_free(&err);
    return;
  }
  rpc_stream_reply(s, RPC_TPM_QUERY_STREAMING, TPR_QUERY_RESULT, group);
}

/* Sends the spooled QueryResult as messages of whole fields, one batch
 * each (the first with the column names, the last with the error and
 * time). */
static void rpc_stream_send_spool(rpc_stream *s, rpc_spool *sp) {
  rpc_buf group = {0};
  int has_batch = 0, sent_last = 0;
  uint64_t total = rpc_spool_size(sp);
  for (uint64_t pos = 0; pos < total && !s->failed;) {
    uint32_t number = 0;
    size_t size = rpc_spool_field_size(sp, pos, &number);
    if (size == 0) break;
    if (number == QR_FIELD_BATCH && has_batch) {
      rpc_stream_query_message(s, &group);
      group.len = 0;
      has_batch = 0;
    }
    if (size > RPC_STREAM_MAX_MESSAGE) {
      group.len = RPC_STREAM_MAX_MESSAGE + 1;
      rpc_stream_query_message(s, &group);
      sent_last = 1;
      break;
    }
    uint8_t *tmp = malloc(size);
    if (!tmp || rpc_spool_read_all(sp, pos, tmp, size)) {
      free(tmp);
      group.failed = 1;
      break;
    }
    rpc_buf_append(&group, tmp, size);
    free(tmp);
    has_batch |= number == QR_FIELD_BATCH;
    pos += size;
  }
  if (!sent_last) rpc_stream_query_message(s, &group);
  rpc_buf_free(&group);
}

static void rpc_stream_query(rpc_stream *s, const rpc_request *req) {
  if (!req->args) {
    rpc_buf err = {0};
    rpc_buf_field_string(&err, QR_FIELD_ERROR, "RPC error: request field not set");
    rpc_stream_reply(s, RPC_TPM_QUERY_STREAMING, TPR_QUERY_RESULT, &err);
    rpc_buf_free(&err);
    return;
  }
  rpc_spool sp = {0};
  if (rpc_query(s->session, req->args, req->args_len, &sp) != 0) {
    rpc_spool_free(&sp);
    rpc_buf err = {0};
    rpc_buf_field_string(&err, QR_FIELD_ERROR,
                         "out of memory or disk space for the query result");
    rpc_stream_reply(s, RPC_TPM_QUERY_STREAMING, TPR_QUERY_RESULT, &err);
    rpc_buf_free(&err);
    return;
  }
  rpc_stream_send_spool(s, &sp);
  rpc_spool_free(&sp);
}

/* ---- the other methods ---- */

static void rpc_stream_append(rpc_stream *s, const rpc_request *req) {
  rpc_buf result = {0};
  if (!req->args) {
    rpc_buf_field_string(&result, 2, "RPC error: request field not set");
  } else {
    rpc_parse_begin(s->session);
    rpc_parse_bytes(s->session, req->args, req->args_len);
    rpc_parse_reply(s->session, &result);
  }
  rpc_stream_reply(s, RPC_TPM_APPEND_TRACE_DATA, TPR_APPEND_RESULT, &result);
  rpc_buf_free(&result);
}

static void rpc_stream_finalize(rpc_stream *s) {
  rpc_notify_eof(s->session);
  rpc_buf result = {0};
  const char *error = rpc_session_error(s->session);
  if (error) rpc_buf_field_string(&result, FDR_ERROR, error);
  rpc_stream_reply(s, RPC_TPM_FINALIZE_TRACE_DATA, TPR_FINALIZE_DATA_RESULT,
                   error ? &result : NULL);
  rpc_buf_free(&result);
}

static void rpc_stream_unsupported(rpc_stream *s, uint64_t method, uint32_t field,
                                   uint32_t error_field, const char *what) {
  rpc_buf result = {0};
  char text[128];
  snprintf(text, sizeof text, "%s is not supported by weft", what);
  rpc_buf_field_string(&result, error_field, text);
  rpc_stream_reply(s, method, field, &result);
  rpc_buf_free(&result);
}

static void rpc_stream_dispatch(rpc_stream *s, const rpc_request *req) {
  rpc_buf result = {0};
  switch (req->method) {
    case RPC_TPM_APPEND_TRACE_DATA: rpc_stream_append(s, req); break;
    case RPC_TPM_FINALIZE_TRACE_DATA: rpc_stream_finalize(s); break;
    case RPC_TPM_QUERY_STREAMING: rpc_stream_query(s, req); break;
    case RPC_TPM_GET_STATUS:
      rpc_status(s->session, &result);
      rpc_stream_reply(s, req->method, TPR_STATUS, &result);
      break;
    case RPC_TPM_RESTORE_INITIAL_TABLES:
      rpc_restore_initial_tables(s->session);
      rpc_stream_reply(s, req->method, 0, NULL);
      break;
    case RPC_TPM_RESET_TRACE_PROCESSOR:
      rpc_session_reset(s->session);
      rpc_stream_reply(s, req->method, 0, NULL);
      break;
    case RPC_TPM_ENABLE_METATRACE: rpc_stream_reply(s, req->method, 0, NULL); break;
    case RPC_TPM_DISABLE_AND_READ_METATRACE:
      rpc_stream_unsupported(s, req->method, TPR_METATRACE, 2, "metatracing");
      break;
    case RPC_TPM_COMPUTE_METRIC:
      rpc_stream_unsupported(s, req->method, TPR_METRIC_RESULT, CMR_ERROR, "metrics");
      break;
    default: {
      rpc_buf msg = {0};
      rpc_buf_field_varint(&msg, TPR_SEQ, (uint64_t)s->tx_seq++);
      rpc_buf_field_varint(&msg, TPR_INVALID_REQUEST, req->method);
      rpc_stream_send_message(s, &msg);
      rpc_buf_free(&msg);
    }
  }
  rpc_buf_free(&result);
}

/* ---- requests ---- */

static int rpc_stream_decode(const uint8_t *data, size_t len, rpc_request *req) {
  memset(req, 0, sizeof *req);
  size_t pos = 0;
  rpc_field f;
  int more;
  while ((more = rpc_wire_next(data, len, &pos, &f)) > 0) {
    if (f.number == TPR_SEQ && f.wire_type == RPC_WIRE_VARINT) req->seq = (int64_t)f.value;
    else if (f.number == TPR_REQUEST && f.wire_type == RPC_WIRE_VARINT) req->method = f.value;
    else if (f.number >= 100 && f.number < 200 && f.wire_type == RPC_WIRE_BYTES) {
      req->args = f.data ? f.data : (const uint8_t *)"";
      req->args_len = f.len;
    }
  }
  return more;
}

static void rpc_stream_request(rpc_stream *s, const uint8_t *data, size_t len) {
  rpc_request req;
  if (rpc_stream_decode(data, len, &req) < 0) {
    rpc_stream_fatal(s, "RPC framing error: a malformed TraceProcessorRpc");
    return;
  }
  if (req.seq != 0 && s->rx_seq != 0 && req.seq != s->rx_seq + 1) {
    char text[160];
    snprintf(text, sizeof text,
             "RPC request out of order. Expected %lld, got %lld (ERR:rpc_seq)",
             (long long)(s->rx_seq + 1), (long long)req.seq);
    rpc_stream_fatal(s, text);
    return;
  }
  s->rx_seq = req.seq;
  rpc_stream_dispatch(s, &req);
}

/* The message at rx_pos: 1 and its payload, 0 if incomplete, -1 on a
 * framing error. */
static int rpc_stream_next(rpc_stream *s, const uint8_t **msg, size_t *len) {
  const uint8_t *p = s->rx.data + s->rx_pos;
  size_t avail = s->rx.len - s->rx_pos, at = 1;
  if (avail == 0) return 0;
  if (p[0] != RPC_STREAM_TAG) return -1;
  uint64_t size = 0;
  for (int shift = 0;; shift += 7) {
    if (at >= avail) return 0;
    if (shift > 28) return -1;
    size |= (uint64_t)(p[at] & 0x7f) << shift;
    if (!(p[at++] & 0x80)) break;
  }
  if (size > RPC_STREAM_MAX_MESSAGE) return -1;
  if (avail - at < size) return 0;
  *msg = p + at;
  *len = (size_t)size;
  s->rx_pos += at + (size_t)size;
  return 1;
}

static void rpc_stream_compact(rpc_stream *s) {
  if (s->rx_pos == 0) return;
  memmove(s->rx.data, s->rx.data + s->rx_pos, s->rx.len - s->rx_pos);
  s->rx.len -= s->rx_pos;
  s->rx_pos = 0;
}

int rpc_stream_feed(rpc_stream *s, const void *data, size_t len) {
  if (s->failed) return -1;
  rpc_buf_append(&s->rx, data, len);
  if (s->rx.failed) {
    rpc_stream_fatal(s, "RPC framing error: a message too big");
    return -1;
  }
  for (;;) {
    const uint8_t *msg;
    size_t msg_len;
    int got = rpc_stream_next(s, &msg, &msg_len);
    if (got < 0) rpc_stream_fatal(s, "RPC framing error");
    if (got <= 0 || s->failed) break;
    rpc_stream_request(s, msg, msg_len);
    if (s->failed) break;
  }
  rpc_stream_compact(s);
  return s->failed ? -1 : 0;
}
