/* Helpers shared by the proto unit tests: a tiny bounded protobuf writer
 * for hand-encoded traces, and loading/querying through the public API
 * with rows flattened to "v1,v2,..." text. Header-only: static inline
 * functions, so that a test need not use them all. */
#ifndef WEFT_TEST_PROTO_UTIL_H
#define WEFT_TEST_PROTO_UTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "weft/weft.h"

typedef struct pb {
  uint8_t b[4096];
  size_t n;
} pb;

static inline void pb_varint(pb *p, uint64_t v) {
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    if (p->n < sizeof p->b) p->b[p->n++] = (uint8_t)(c | (v ? 0x80 : 0));
  } while (v);
}
static inline void pb_int(pb *p, uint32_t field, uint64_t v) {
  pb_varint(p, (uint64_t)field << 3);
  pb_varint(p, v);
}
static inline void pb_bytes(pb *p, uint32_t field, const void *data, size_t len) {
  pb_varint(p, (uint64_t)field << 3 | 2);
  pb_varint(p, len);
  if (p->n + len <= sizeof p->b) {
    memcpy(p->b + p->n, data, len);
    p->n += len;
  }
}
static inline void pb_msg(pb *p, uint32_t field, const pb *m) { pb_bytes(p, field, m->b, m->n); }
static inline void pb_str(pb *p, uint32_t field, const char *s) { pb_bytes(p, field, s, strlen(s)); }

/* ---- running queries ---- */
typedef struct result {
  char text[1024];
} result;

static inline int on_row(void *user, int st, int ncols, const weft_cell *cells) {
  (void)st;
  result *r = user;
  for (int i = 0; i < ncols; i++) {
    size_t n = strlen(r->text);
    if (cells[i].type == WEFT_CELL_INT)
      snprintf(r->text + n, sizeof r->text - n, "%" PRId64 ",", cells[i].i);
    else if (cells[i].type == WEFT_CELL_DOUBLE)
      snprintf(r->text + n, sizeof r->text - n, "%.2f,", cells[i].d);
    else if (cells[i].type == WEFT_CELL_STRING)
      snprintf(r->text + n, sizeof r->text - n, "%s,", cells[i].s);
    else
      snprintf(r->text + n, sizeof r->text - n, "NULL,");
  }
  return 0;
}

static inline weft *load(const pb *trace) {
  weft *w = NULL;
  if (weft_open(&w, NULL)) return NULL;
  if (weft_file_begin(w, "t.pb") || weft_file_write(w, trace->b, trace->n) ||
      weft_file_end(w) || weft_load_finish(w)) {
    weft_close(w);
    return NULL;
  }
  return w;
}

static inline const char *query(weft *w, result *r, const char *sql) {
  r->text[0] = '\0';
  weft_query_callbacks cb = {NULL, on_row, r};
  if (weft_query(w, sql, &cb)) return "ERROR";
  return r->text;
}

static inline void packet(pb *trace, const pb *pkt) { pb_msg(trace, 1, pkt); }

#endif
