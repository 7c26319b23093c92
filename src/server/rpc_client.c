/* `weft query --remote`: a query sent to a unix-socket session and its
 * QueryResult messages decoded into rows (server.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpc_stream.h"
#include "server.h"

enum { CELL_NULL = 1, CELL_VARINT = 2, CELL_FLOAT64 = 3, CELL_STRING = 4, CELL_BLOB = 5 };

typedef struct client_result {
  const weft_query_callbacks *cb;
  char **names;
  size_t ncols;
  int columns_sent;
  int last;       /* the last batch was read */
  char *error;    /* the query's error, to free() */
  weft_cell *row;
  int aborted;
} client_result;

static int client_add_name(client_result *r, const rpc_field *f) {
  char **grown = realloc(r->names, (r->ncols + 1) * sizeof *grown);
  if (!grown) return -1;
  r->names = grown;
  r->names[r->ncols] = strndup((const char *)f->data, f->len);
  return r->names[r->ncols++] ? 0 : -1;
}

static int client_send_columns(client_result *r) {
  if (r->columns_sent || !r->ncols) return 0;
  r->columns_sent = 1;
  r->row = calloc(r->ncols, sizeof *r->row);
  if (!r->row) return -1;
  if (r->cb->on_columns &&
      r->cb->on_columns(r->cb->user, 0, (int)r->ncols, (const char *const *)r->names))
    r->aborted = 1;
  return 0;
}

/* The parts of one CellsBatch. */
typedef struct client_batch {
  const uint8_t *cells, *varints, *doubles, *strings;
  size_t ncells, varints_len, doubles_len, strings_len;
  const uint8_t *blob_msg; /* the batch, to walk its blob fields */
  size_t blob_msg_len;
} client_batch;

static int client_read_batch(client_result *r, const uint8_t *data, size_t len,
                             client_batch *b) {
  memset(b, 0, sizeof *b);
  b->blob_msg = data;
  b->blob_msg_len = len;
  size_t pos = 0;
  rpc_field f;
  int more;
  while ((more = rpc_wire_next(data, len, &pos, &f)) > 0) {
    if (f.number == 1) b->cells = f.data, b->ncells = f.len;
    else if (f.number == 2) b->varints = f.data, b->varints_len = f.len;
    else if (f.number == 3) b->doubles = f.data, b->doubles_len = f.len;
    else if (f.number == 5) b->strings = f.data, b->strings_len = f.len;
    else if (f.number == 6 && f.value) r->last = 1;
  }
  return more;
}

static int client_next_varint(client_batch *b, size_t *pos, int64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *pos < b->varints_len; shift += 7) {
    uint8_t byte = b->varints[(*pos)++];
    v |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = (int64_t)v;
      return 0;
    }
  }
  return -1;
}

static int client_next_blob(client_batch *b, size_t *pos, weft_cell *c) {
  rpc_field f;
  while (rpc_wire_next(b->blob_msg, b->blob_msg_len, pos, &f) > 0) {
    if (f.number != 4 || f.wire_type != RPC_WIRE_BYTES) continue;
    c->s = (const char *)f.data;
    c->len = f.len;
    return 0;
  }
  return -1;
}

/* One cell of type t from the batch's payloads. */
static int client_cell(client_batch *b, uint8_t t, size_t at[4], weft_cell *c) {
  memset(c, 0, sizeof *c);
  switch (t) {
    case CELL_NULL: return 0;
    case CELL_VARINT: c->type = WEFT_CELL_INT; return client_next_varint(b, &at[0], &c->i);
    case CELL_FLOAT64: {
      if (at[1] + 8 > b->doubles_len) return -1;
      uint64_t bits = 0;
      for (int i = 0; i < 8; i++) bits |= (uint64_t)b->doubles[at[1] + (size_t)i] << (8 * i);
      at[1] += 8;
      memcpy(&c->d, &bits, sizeof c->d);
      c->type = WEFT_CELL_DOUBLE;
      return 0;
    }
    case CELL_STRING: {
      const uint8_t *end = at[2] < b->strings_len
                               ? memchr(b->strings + at[2], 0, b->strings_len - at[2]) : NULL;
      if (!end) return -1;
      c->type = WEFT_CELL_STRING;
      c->s = (const char *)b->strings + at[2];
      c->len = (size_t)(end - (b->strings + at[2]));
      at[2] += c->len + 1;
      return 0;
    }
    case CELL_BLOB: c->type = WEFT_CELL_BLOB; return client_next_blob(b, &at[3], c);
    default: return -1;
  }
}

static int client_batch_rows(client_result *r, const uint8_t *data, size_t len) {
  client_batch b;
  if (client_read_batch(r, data, len, &b) < 0) return -1;
  if (b.ncells && (!r->ncols || b.ncells % r->ncols)) return -1;
  if (client_send_columns(r)) return -1;
  size_t at[4] = {0, 0, 0, 0};
  for (size_t k = 0; k < b.ncells && !r->aborted; k += r->ncols) {
    for (size_t c = 0; c < r->ncols; c++)
      if (client_cell(&b, b.cells[k + c], at, &r->row[c])) return -1;
    if (r->cb->on_row && r->cb->on_row(r->cb->user, 0, (int)r->ncols, r->row))
      r->aborted = 1;
  }
  return 0;
}

/* One QueryResult message. */
static int client_query_result(client_result *r, const uint8_t *data, size_t len) {
  size_t pos = 0;
  rpc_field f;
  int more;
  while ((more = rpc_wire_next(data, len, &pos, &f)) > 0) {
    if (f.number == 1 && f.wire_type == RPC_WIRE_BYTES && !r->columns_sent) {
      if (client_add_name(r, &f)) return -1;
    } else if (f.number == 2 && f.wire_type == RPC_WIRE_BYTES && !r->error) {
      r->error = strndup((const char *)f.data, f.len);
    } else if (f.number == 3 && f.wire_type == RPC_WIRE_BYTES) {
      if (client_batch_rows(r, f.data, f.len)) return -1;
    }
  }
  return more < 0 ? -1 : 0;
}

/* One answer message: 1 when the query's last batch was read, 0 for more,
 * -1 on a fatal error or a malformed answer. */
static int client_answer(client_result *r, const uint8_t *data, size_t len, char *err,
                         size_t err_cap) {
  size_t pos = 0;
  rpc_field f;
  while (rpc_wire_next(data, len, &pos, &f) > 0) {
    if (f.number == 5 && f.wire_type == RPC_WIRE_BYTES) {
      snprintf(err, err_cap, "the server answered: %.*s", (int)f.len, (const char *)f.data);
      return -1;
    }
    if (f.number == 203 && f.wire_type == RPC_WIRE_BYTES &&
        client_query_result(r, f.data, f.len)) {
      snprintf(err, err_cap, "a malformed answer from the server");
      return -1;
    }
  }
  return r->last || r->error;
}

static int client_send_query(int fd, const char *sql) {
  rpc_buf args = {0}, msg = {0}, framed = {0};
  rpc_buf_field_string(&args, 1, sql);
  rpc_buf_field_varint(&msg, 1, 1);
  rpc_buf_field_varint(&msg, 2, RPC_TPM_QUERY_STREAMING);
  rpc_buf_field_bytes(&msg, 103, args.data, args.len);
  rpc_buf_field_bytes(&framed, 1, msg.data, msg.len);
  int rc = args.failed || msg.failed || framed.failed ? -1 : 0;
  for (size_t off = 0; rc == 0 && off < framed.len;) {
    ssize_t n = write(fd, framed.data + off, framed.len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) rc = -1;
    else off += (size_t)n;
  }
  rpc_buf_free(&args);
  rpc_buf_free(&msg);
  rpc_buf_free(&framed);
  return rc;
}

/* Reads answer messages until the query's last one: 0, or -1. */
static int client_read_answers(int fd, client_result *r, char *err, size_t err_cap) {
  rpc_buf rx = {0};
  rx.cap = RPC_STREAM_MAX_MESSAGE + 16;
  int done = 0;
  uint8_t buf[64 * 1024];
  while (!done) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      snprintf(err, err_cap, "the server closed the connection");
      done = -1;
      break;
    }
    rpc_buf_append(&rx, buf, (size_t)n);
    size_t pos = 0, next = 0;
    rpc_field f;
    while (!done && rpc_wire_next(rx.data, rx.len, &pos, &f) > 0) {
      if (f.number != 1 || f.wire_type != RPC_WIRE_BYTES) done = -1;
      else done = client_answer(r, f.data, f.len, err, err_cap);
      next = pos;
    }
    memmove(rx.data, rx.data + next, rx.len - next);
    rx.len -= next;
    if (rx.failed && !done) {
      snprintf(err, err_cap, "an answer too big from the server");
      done = -1;
    }
  }
  rpc_buf_free(&rx);
  return done < 0 ? -1 : 0;
}

static void client_result_free(client_result *r) {
  for (size_t i = 0; i < r->ncols; i++) free(r->names[i]);
  free(r->names);
  free(r->row);
  free(r->error);
}

int server_remote_query(const char *name, const char *sql, const weft_query_callbacks *cb,
                        char *err, size_t err_cap) {
  char path[256];
  if (server_unix_path(name, 0, path, sizeof path, err, err_cap)) return -1;
  int fd = server_unix_connect(path);
  if (fd < 0) {
    snprintf(err, err_cap, "no weft session '%s' (no server at %s)", name, path);
    return -1;
  }
  client_result r = {cb, NULL, 0, 0, 0, NULL, NULL, 0};
  int rc = client_send_query(fd, sql);
  if (rc) snprintf(err, err_cap, "cannot send the query: %s", strerror(errno));
  else rc = client_read_answers(fd, &r, err, err_cap);
  close(fd);
  if (rc == 0 && client_send_columns(&r) == 0 && r.error) {
    snprintf(err, err_cap, "%s", r.error);
    rc = -1;
  }
  client_result_free(&r);
  return rc;
}
