/* The Arrow IPC file writer (arrow_ipc.h). Metadata versions, type ids and
 * field ids are those of Arrow's Schema.fbs, Message.fbs and File.fbs. */
#include "arrow_ipc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_fb.h"

enum {
  IPC_METADATA_V5 = 4,
  IPC_HEADER_SCHEMA = 1,
  IPC_HEADER_RECORD_BATCH = 3,
  IPC_TYPE_INT = 2,
  IPC_TYPE_FLOATING_POINT = 3,
  IPC_TYPE_UTF8 = 5,
  IPC_PRECISION_DOUBLE = 2
};

struct arrow_ipc_column {
  uint8_t *validity; /* a bit per row, least significant first */
  uint8_t *values;   /* int64/double: 8 bytes a row; utf8: int32 offsets */
  char *chars;
  size_t chars_len, chars_cap;
  int64_t nulls;
};

#define IPC_SCALAR(size, v) {ARROW_FB_SCALAR, (size), (uint64_t)(v), 0}
#define IPC_OFFSET(target) {ARROW_FB_OFFSET, 0, 0, (target)}
#define IPC_ABSENT {ARROW_FB_ABSENT, 0, 0, 0}

static void ipc_write(arrow_ipc_writer *w, const void *p, size_t n) {
  if (n && fwrite(p, 1, n, w->out) != n) w->failed = 1;
  w->offset += n;
}

static void ipc_pad(arrow_ipc_writer *w, size_t n) {
  static const uint8_t zeros[8];
  ipc_write(w, zeros, (8 - n % 8) % 8);
}

/* ---- metadata ---- */

static uint32_t ipc_type(arrow_fb *b, int type) {
  if (type == ARROW_IPC_INT64) {
    arrow_fb_field f[] = {IPC_SCALAR(4, 64), IPC_SCALAR(1, 1)};
    return arrow_fb_table(b, f, 2);
  }
  if (type == ARROW_IPC_DOUBLE) {
    arrow_fb_field f[] = {IPC_SCALAR(2, IPC_PRECISION_DOUBLE)};
    return arrow_fb_table(b, f, 1);
  }
  return arrow_fb_table(b, NULL, 0);
}

static uint32_t ipc_schema(arrow_fb *b, const arrow_ipc_writer *w) {
  uint32_t *fields = malloc(((size_t)w->ncols + 1) * sizeof *fields);
  if (!fields) {
    b->failed = 1;
    return 0;
  }
  static const uint8_t type_ids[] = {IPC_TYPE_INT, IPC_TYPE_FLOATING_POINT, IPC_TYPE_UTF8};
  for (int i = 0; i < w->ncols; i++) {
    uint32_t name = arrow_fb_string(b, w->names[i], strlen(w->names[i]));
    uint32_t type = ipc_type(b, w->types[i]);
    uint32_t children = arrow_fb_offsets(b, NULL, 0);
    arrow_fb_field f[] = {IPC_OFFSET(name), IPC_SCALAR(1, 1), IPC_SCALAR(1, type_ids[w->types[i]]),
                          IPC_OFFSET(type), IPC_ABSENT, IPC_OFFSET(children)};
    fields[i] = arrow_fb_table(b, f, 6);
  }
  uint32_t list = arrow_fb_offsets(b, fields, (size_t)w->ncols);
  free(fields);
  arrow_fb_field schema[] = {IPC_SCALAR(2, 0), IPC_OFFSET(list)};
  return arrow_fb_table(b, schema, 2);
}

/* A message: continuation marker, metadata size, metadata (8-aligned);
 * its Block (offset, metadata length, body length) is remembered when it
 * heads a record batch. */
static void ipc_write_message(arrow_ipc_writer *w, int header_type, uint32_t header,
                              arrow_fb *b, uint64_t body_length) {
  arrow_fb_field message[] = {IPC_SCALAR(2, IPC_METADATA_V5), IPC_SCALAR(1, header_type),
                              IPC_OFFSET(header), IPC_SCALAR(8, body_length)};
  arrow_fb_finish(b, arrow_fb_table(b, message, 4));
  if (b->failed) {
    w->failed = 1;
    return;
  }
  if (header_type == IPC_HEADER_RECORD_BATCH) {
    uint8_t *grown = realloc(w->blocks, (w->block_count + 1) * 24);
    if (!grown) {
      w->failed = 1;
      return;
    }
    w->blocks = grown;
    uint8_t *block = grown + 24 * w->block_count++;
    memset(block, 0, 24);
    arrow_fb_put64(block, w->offset);
    arrow_fb_put32(block + 8, (uint32_t)(8 + b->size));
    arrow_fb_put64(block + 16, body_length);
  }
  uint8_t prefix[8];
  arrow_fb_put32(prefix, 0xFFFFFFFFu);
  arrow_fb_put32(prefix + 4, (uint32_t)b->size);
  ipc_write(w, prefix, 8);
  ipc_write(w, arrow_fb_data(b), b->size);
}

/* ---- batches ---- */

static size_t ipc_padded(size_t n) { return (n + 7) / 8 * 8; }

/* The lengths of column c's buffers in the current batch. */
static void ipc_buffer_lengths(const arrow_ipc_writer *w, int c, size_t len[3]) {
  size_t rows = (size_t)w->rows;
  len[0] = (rows + 7) / 8;
  len[1] = w->types[c] == ARROW_IPC_UTF8 ? (rows + 1) * 4 : rows * 8;
  len[2] = w->types[c] == ARROW_IPC_UTF8 ? w->columns[c].chars_len : 0;
}

static int ipc_buffer_count(const arrow_ipc_writer *w, int c) {
  return w->types[c] == ARROW_IPC_UTF8 ? 3 : 2;
}

static uint32_t ipc_record_batch(arrow_ipc_writer *w, arrow_fb *b, uint64_t *body) {
  size_t nbuf = 0;
  for (int c = 0; c < w->ncols; c++) nbuf += (size_t)ipc_buffer_count(w, c);
  uint8_t *nodes = calloc((size_t)w->ncols + 1, 16), *buffers = calloc(nbuf + 1, 16);
  if (!nodes || !buffers) b->failed = 1;
  size_t k = 0;
  *body = 0;
  for (int c = 0; nodes && buffers && c < w->ncols; c++) {
    arrow_fb_put64(nodes + 16 * c, (uint64_t)w->rows);
    arrow_fb_put64(nodes + 16 * c + 8, (uint64_t)w->columns[c].nulls);
    size_t len[3];
    ipc_buffer_lengths(w, c, len);
    for (int i = 0; i < ipc_buffer_count(w, c); i++, k++) {
      arrow_fb_put64(buffers + 16 * k, *body);
      arrow_fb_put64(buffers + 16 * k + 8, len[i]);
      *body += ipc_padded(len[i]);
    }
  }
  uint32_t node_list = arrow_fb_structs(b, nodes, 16, nodes ? (size_t)w->ncols : 0);
  uint32_t buffer_list = arrow_fb_structs(b, buffers, 16, buffers ? nbuf : 0);
  free(nodes);
  free(buffers);
  arrow_fb_field batch[] = {IPC_SCALAR(8, w->rows), IPC_OFFSET(node_list),
                            IPC_OFFSET(buffer_list)};
  return arrow_fb_table(b, batch, 3);
}

static void ipc_write_batch(arrow_ipc_writer *w) {
  arrow_fb b = {0};
  uint64_t body;
  uint32_t batch = ipc_record_batch(w, &b, &body);
  ipc_write_message(w, IPC_HEADER_RECORD_BATCH, batch, &b, body);
  arrow_fb_free(&b);
  for (int c = 0; c < w->ncols; c++) {
    arrow_ipc_column *col = &w->columns[c];
    const void *data[3] = {col->validity, col->values, col->chars};
    size_t len[3];
    ipc_buffer_lengths(w, c, len);
    for (int i = 0; i < ipc_buffer_count(w, c); i++) {
      ipc_write(w, data[i], len[i]);
      ipc_pad(w, len[i]);
    }
    memset(col->validity, 0, (ARROW_IPC_BATCH_ROWS + 7) / 8);
    col->chars_len = 0;
    col->nulls = 0;
  }
  w->rows = 0;
}

/* ---- rows ---- */

static int ipc_store_text(arrow_ipc_column *col, const char *s, size_t len) {
  if (col->chars_len + len > col->chars_cap) {
    size_t cap = col->chars_cap ? col->chars_cap : 4096;
    while (cap < col->chars_len + len) cap *= 2;
    char *grown = realloc(col->chars, cap);
    if (!grown) return -1;
    col->chars = grown;
    col->chars_cap = cap;
  }
  if (len) memcpy(col->chars + col->chars_len, s, len);
  col->chars_len += len;
  return 0;
}

/* Stores cell `c` at row `row` of a column of `type`; 1 when it is NULL. */
static int ipc_store(arrow_ipc_column *col, int type, int64_t row, const weft_cell *c,
                     int *failed) {
  uint8_t *slot = col->values + 8 * row;
  if (type == ARROW_IPC_INT64) {
    if (c->type != WEFT_CELL_INT && c->type != WEFT_CELL_DOUBLE) return 1;
    arrow_fb_put64(slot, (uint64_t)(c->type == WEFT_CELL_INT ? c->i : (int64_t)c->d));
  } else if (type == ARROW_IPC_DOUBLE) {
    if (c->type != WEFT_CELL_INT && c->type != WEFT_CELL_DOUBLE) return 1;
    double d = c->type == WEFT_CELL_INT ? (double)c->i : c->d;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    arrow_fb_put64(slot, bits);
  } else {
    char buf[32];
    const char *s = c->s;
    size_t len = c->len;
    if (c->type == WEFT_CELL_INT || c->type == WEFT_CELL_DOUBLE) {
      int n = c->type == WEFT_CELL_INT ? snprintf(buf, sizeof buf, "%" PRId64, c->i)
                                       : snprintf(buf, sizeof buf, "%.17g", c->d);
      s = buf;
      len = (size_t)n;
    } else if (c->type != WEFT_CELL_STRING) {
      s = "", len = 0;
    }
    if (ipc_store_text(col, s, len)) *failed = 1;
    arrow_fb_put32(col->values + 4 * (row + 1), (uint32_t)col->chars_len);
    return c->type == WEFT_CELL_NULL || c->type == WEFT_CELL_BLOB;
  }
  return 0;
}

int arrow_ipc_append(arrow_ipc_writer *w, const weft_cell *cells) {
  size_t chars = 0;
  for (int c = 0; c < w->ncols; c++) {
    arrow_ipc_column *col = &w->columns[c];
    if (ipc_store(col, w->types[c], w->rows, &cells[c], &w->failed)) col->nulls++;
    else col->validity[w->rows / 8] |= (uint8_t)(1u << (w->rows % 8));
    chars += col->chars_len;
  }
  w->rows++;
  if (w->rows == ARROW_IPC_BATCH_ROWS || chars > ARROW_IPC_BATCH_CHARS) ipc_write_batch(w);
  return w->failed ? -1 : 0;
}

/* ---- the file ---- */

int arrow_ipc_begin(arrow_ipc_writer *w, FILE *out, int ncols, const char *const *names,
                    const int *types) {
  memset(w, 0, sizeof *w);
  w->out = out;
  w->ncols = ncols;
  w->names = calloc((size_t)ncols + 1, sizeof *w->names);
  w->types = calloc((size_t)ncols + 1, sizeof *w->types);
  w->columns = calloc((size_t)ncols + 1, sizeof *w->columns);
  if (!w->names || !w->types || !w->columns) w->failed = 1;
  for (int c = 0; !w->failed && c < ncols; c++) {
    arrow_ipc_column *col = &w->columns[c];
    w->types[c] = types[c];
    w->names[c] = strdup(names[c]);
    col->validity = calloc((ARROW_IPC_BATCH_ROWS + 7) / 8, 1);
    col->values = calloc(ARROW_IPC_BATCH_ROWS + 1, 8);
    if (!w->names[c] || !col->validity || !col->values) w->failed = 1;
  }
  ipc_write(w, "ARROW1\0\0", 8);
  arrow_fb b = {0};
  uint32_t schema = w->failed ? 0 : ipc_schema(&b, w);
  if (!w->failed) ipc_write_message(w, IPC_HEADER_SCHEMA, schema, &b, 0);
  arrow_fb_free(&b);
  return w->failed ? -1 : 0;
}

static void ipc_write_footer(arrow_ipc_writer *w) {
  arrow_fb b = {0};
  uint32_t schema = ipc_schema(&b, w);
  uint32_t dictionaries = arrow_fb_structs(&b, NULL, 24, 0);
  uint32_t batches = arrow_fb_structs(&b, w->blocks, 24, w->block_count);
  arrow_fb_field footer[] = {IPC_SCALAR(2, IPC_METADATA_V5), IPC_OFFSET(schema),
                             IPC_OFFSET(dictionaries), IPC_OFFSET(batches)};
  arrow_fb_finish(&b, arrow_fb_table(&b, footer, 4));
  if (b.failed) w->failed = 1;
  uint8_t size[4];
  arrow_fb_put32(size, (uint32_t)b.size);
  if (!b.failed) ipc_write(w, arrow_fb_data(&b), b.size);
  ipc_write(w, size, 4);
  ipc_write(w, "ARROW1", 6);
  arrow_fb_free(&b);
}

int arrow_ipc_end(arrow_ipc_writer *w) {
  if (w->rows && !w->failed) ipc_write_batch(w);
  static const uint8_t end_of_stream[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0};
  ipc_write(w, end_of_stream, 8);
  if (!w->failed) ipc_write_footer(w);
  int rc = w->failed ? -1 : 0;
  arrow_ipc_free(w);
  return rc;
}

void arrow_ipc_free(arrow_ipc_writer *w) {
  for (int c = 0; c < w->ncols; c++) {
    if (w->names) free(w->names[c]);
    if (!w->columns) continue;
    free(w->columns[c].validity);
    free(w->columns[c].values);
    free(w->columns[c].chars);
  }
  free(w->names);
  free(w->types);
  free(w->columns);
  free(w->blocks);
  memset(w, 0, sizeof *w);
}
