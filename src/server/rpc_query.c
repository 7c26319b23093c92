/* QueryResult serialization of query rows (rpc_query.h). */
#include "rpc_query.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* QueryResult and CellsBatch field numbers (trace_processor.proto). */
enum {
  QR_COLUMN_NAMES = 1,
  QR_ERROR = 2,
  QR_BATCH = 3,
  QR_STATEMENT_COUNT = 4,
  QR_STATEMENT_WITH_OUTPUT_COUNT = 5,
  QR_LAST_STATEMENT_SQL = 6,
  QR_ELAPSED_TIME_MS = 7,
  CB_CELLS = 1,
  CB_VARINT_CELLS = 2,
  CB_FLOAT64_CELLS = 3,
  CB_BLOB_CELLS = 4,
  CB_STRING_CELLS = 5,
  CB_IS_LAST_BATCH = 6,
  CB_PADDING = 7
};

enum { CELL_NULL = 1, CELL_VARINT = 2, CELL_FLOAT64 = 3, CELL_STRING = 4, CELL_BLOB = 5 };

/* ---- spool ---- */

static void rpc_spool_to_file(rpc_spool *s, const uint8_t *data, size_t len) {
  if (!s->file && !(s->file = tmpfile())) {
    s->failed = 1;
    return;
  }
  int fd = fileno(s->file);
  while (len > 0) {
    ssize_t n = pwrite(fd, data, len, (off_t)s->file_len);
    if (n <= 0) {
      s->failed = 1;
      return;
    }
    data += n;
    len -= (size_t)n;
    s->file_len += (uint64_t)n;
  }
}

void rpc_spool_write(rpc_spool *s, const void *data, size_t len) {
  if (s->failed || len == 0) return;
  if (!s->file && s->mem.len + len <= RPC_SPOOL_MEMORY) {
    rpc_buf_append(&s->mem, data, len);
    if (s->mem.failed) s->failed = 1;
    return;
  }
  rpc_spool_to_file(s, data, len);
}

void rpc_spool_reset(rpc_spool *s) {
  s->mem.len = 0;
  s->mem.failed = 0;
  s->file_len = 0;
  s->failed = 0;
  if (s->file && ftruncate(fileno(s->file), 0) != 0) s->failed = 1;
}

uint64_t rpc_spool_size(const rpc_spool *s) {
  return (uint64_t)s->mem.len + s->file_len;
}

ssize_t rpc_spool_read(rpc_spool *s, uint64_t pos, void *buf, size_t max) {
  if (pos < s->mem.len) {
    size_t n = s->mem.len - (size_t)pos;
    if (n > max) n = max;
    memcpy(buf, s->mem.data + pos, n);
    return (ssize_t)n;
  }
  pos -= s->mem.len;
  if (pos >= s->file_len) return 0;
  uint64_t left = s->file_len - pos;
  if (left < max) max = (size_t)left;
  ssize_t n = pread(fileno(s->file), buf, max, (off_t)pos);
  return n > 0 ? n : -1;
}

void rpc_spool_free(rpc_spool *s) {
  rpc_buf_free(&s->mem);
  if (s->file) fclose(s->file);
  s->file = NULL;
  s->file_len = 0;
}

/* ---- serializer ---- */

struct rpc_query_result {
  rpc_spool *out;
  int statement;     /* of the columns being serialized; -1 before any */
  uint32_t ncols;
  uint32_t outputs;  /* statements that returned columns so far */
  uint32_t statements; /* in the SQL (rpc_sql.h) */
  const char *last_sql; /* the last statement's text, not NUL-terminated */
  size_t last_sql_len;
  int head_sent;     /* column_names written (first batch) */
  rpc_buf head;      /* column_names fields */
  uint8_t *cell_types;
  uint32_t ncells;
  size_t approx_bytes;
  rpc_buf varints, doubles, strings, blobs;
  rpc_buf body, chunk; /* scratch for one batch message */
  int failed;
};

rpc_query_result *rpc_query_result_new(rpc_spool *out) {
  rpc_query_result *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->cell_types = malloc(RPC_CELLS_PER_BATCH);
  if (!r->cell_types) {
    free(r);
    return NULL;
  }
  r->out = out;
  r->statement = -1;
  return r;
}

void rpc_query_result_free(rpc_query_result *r) {
  if (!r) return;
  rpc_buf *bufs[] = {&r->head, &r->varints, &r->doubles, &r->strings,
                     &r->blobs, &r->body, &r->chunk};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) rpc_buf_free(bufs[i]);
  free(r->cell_types);
  free(r);
}

static void rpc_batch_clear(rpc_query_result *r) {
  r->ncells = 0;
  r->approx_bytes = 16;
  r->varints.len = r->doubles.len = r->strings.len = r->blobs.len = 0;
}

/* The padding before the float64 field that puts its payload at an
 * 8-byte-aligned offset of the chunk, given where the batch body starts,
 * the body's bytes before the field and the payload's size. A padding
 * field takes at least two bytes, so one byte of padding becomes nine. */
static size_t rpc_float_padding(size_t body_start, size_t prefix, size_t payload) {
  size_t offset = body_start + prefix + 1 + rpc_varint_size(payload);
  size_t pad = (8 - offset % 8) % 8;
  return pad == 1 ? 9 : pad;
}

static void rpc_write_padding(rpc_buf *b, size_t pad) {
  if (pad == 0) return;
  uint8_t bytes[16];
  bytes[0] = (uint8_t)(CB_PADDING << 3 | RPC_WIRE_VARINT);
  for (size_t i = 1; i + 1 < pad; i++) bytes[i] = 0x80;
  bytes[pad - 1] = 0;
  rpc_buf_append(b, bytes, pad);
}

/* The batch body's size and padding once its length prefix is placed:
 * the prefix's size moves the float payload, so try each size. */
static size_t rpc_batch_layout(const rpc_query_result *r, size_t prefix,
                               size_t tail, size_t *pad_out) {
  size_t dlen = r->doubles.len;
  size_t fixed = prefix + tail;
  if (dlen == 0) {
    *pad_out = 0;
    return fixed;
  }
  fixed += 1 + rpc_varint_size(dlen) + dlen;
  for (size_t s = 1; s <= 5; s++) {
    size_t pad = rpc_float_padding(r->chunk.len + 1 + s, prefix, dlen);
    if (rpc_varint_size(fixed + pad) == s) {
      *pad_out = pad;
      return fixed + pad;
    }
  }
  *pad_out = 0; /* cannot happen for sizes below 2^35 */
  return fixed;
}

/* Writes the batch being filled as one QueryResult message to the spool. */
static void rpc_batch_flush(rpc_query_result *r, int last) {
  rpc_buf *body = &r->body, *chunk = &r->chunk;
  body->len = chunk->len = 0;
  if (!r->head_sent) {
    rpc_buf_append(chunk, r->head.data, r->head.len);
    rpc_buf_field_varint(chunk, QR_STATEMENT_COUNT, r->statements);
    rpc_buf_field_varint(chunk, QR_STATEMENT_WITH_OUTPUT_COUNT, r->outputs);
    rpc_buf_field_bytes(chunk, QR_LAST_STATEMENT_SQL, r->last_sql, r->last_sql_len);
    r->head_sent = 1;
  }
  rpc_buf_field_bytes(body, CB_STRING_CELLS, r->strings.data, r->strings.len);
  if (r->ncells) rpc_buf_field_bytes(body, CB_CELLS, r->cell_types, r->ncells);
  if (r->varints.len)
    rpc_buf_field_bytes(body, CB_VARINT_CELLS, r->varints.data, r->varints.len);
  size_t pad;
  size_t tail = r->blobs.len + (last ? 2 : 0);
  size_t body_len = rpc_batch_layout(r, body->len, tail, &pad);
  rpc_buf_tag(chunk, QR_BATCH, RPC_WIRE_BYTES);
  rpc_buf_varint(chunk, body_len);
  rpc_buf_append(chunk, body->data, body->len);
  if (r->doubles.len) {
    rpc_write_padding(chunk, pad);
    rpc_buf_field_bytes(chunk, CB_FLOAT64_CELLS, r->doubles.data, r->doubles.len);
  }
  rpc_buf_append(chunk, r->blobs.data, r->blobs.len);
  if (last) rpc_buf_field_varint(chunk, CB_IS_LAST_BATCH, 1);
  if (body->failed || chunk->failed || r->varints.failed || r->doubles.failed ||
      r->strings.failed || r->blobs.failed)
    r->failed = 1;
  else
    rpc_spool_write(r->out, chunk->data, chunk->len);
  rpc_batch_clear(r);
}

static int rpc_on_columns(void *user, int statement, int n,
                          const char *const *names) {
  rpc_query_result *r = user;
  rpc_spool_reset(r->out);
  r->statement = statement;
  r->ncols = (uint32_t)n;
  /* One column named suppress_query_output is not output (Perfetto's
   * escape hatch for statements run for their effect). */
  if (n != 1 || strcmp(names[0], "suppress_query_output") != 0) r->outputs++;
  r->head_sent = 0;
  r->head.len = 0;
  for (int i = 0; i < n; i++) rpc_buf_field_string(&r->head, QR_COLUMN_NAMES, names[i]);
  rpc_batch_clear(r);
  return r->head.failed;
}

static void rpc_add_cell(rpc_query_result *r, const weft_cell *c) {
  uint8_t type = CELL_NULL;
  switch (c->type) {
    case WEFT_CELL_INT:
      type = CELL_VARINT;
      rpc_buf_varint(&r->varints, (uint64_t)c->i);
      r->approx_bytes += 4;
      break;
    case WEFT_CELL_DOUBLE: {
      uint8_t le[8];
      uint64_t bits;
      memcpy(&bits, &c->d, sizeof bits);
      for (int i = 0; i < 8; i++) le[i] = (uint8_t)(bits >> (8 * i));
      type = CELL_FLOAT64;
      rpc_buf_append(&r->doubles, le, sizeof le);
      r->approx_bytes += 8;
      break;
    }
    case WEFT_CELL_STRING:
      type = CELL_STRING;
      rpc_buf_append(&r->strings, c->s, c->len);
      rpc_buf_append(&r->strings, "", 1);
      r->approx_bytes += c->len + 5;
      break;
    case WEFT_CELL_BLOB:
      type = CELL_BLOB;
      rpc_buf_field_bytes(&r->blobs, CB_BLOB_CELLS, c->s, c->len);
      r->approx_bytes += c->len + 4;
      break;
    default:
      break;
  }
  r->cell_types[r->ncells++] = type;
}

static int rpc_on_row(void *user, int statement, int n, const weft_cell *cells) {
  rpc_query_result *r = user;
  if (statement != r->statement || (uint32_t)n != r->ncols) return 1;
  if (r->ncells + (uint32_t)n > RPC_CELLS_PER_BATCH ||
      r->approx_bytes > RPC_BATCH_BYTES)
    rpc_batch_flush(r, 0);
  if ((uint32_t)n > RPC_CELLS_PER_BATCH) return 1;
  for (int i = 0; i < n; i++) rpc_add_cell(r, &cells[i]);
  return r->failed || r->out->failed;
}

void rpc_query_result_statements(rpc_query_result *r, uint32_t count, const char *last_sql,
                                 size_t last_len) {
  r->statements = count;
  r->last_sql = last_sql;
  r->last_sql_len = last_sql ? last_len : 0;
}

weft_query_callbacks rpc_query_result_callbacks(rpc_query_result *r) {
  weft_query_callbacks cb = {rpc_on_columns, rpc_on_row, r};
  return cb;
}

int rpc_query_result_finish(rpc_query_result *r, const char *error,
                            double elapsed_ms) {
  if (error) {
    rpc_spool_reset(r->out);
    r->head.len = 0;
    r->outputs = r->statements = 0;
    r->last_sql_len = 0;
    r->head_sent = 0;
    rpc_batch_clear(r);
  }
  rpc_batch_flush(r, 1);
  rpc_buf *tail = &r->chunk;
  tail->len = 0;
  if (error) rpc_buf_field_string(tail, QR_ERROR, *error ? error : "Unknown error");
  rpc_buf_field_double(tail, QR_ELAPSED_TIME_MS, elapsed_ms);
  rpc_spool_write(r->out, tail->data, tail->len);
  return r->failed || tail->failed || r->out->failed ? -1 : 0;
}
