/* io/order: limits defaults, hidden-path rule, depth check, processing
 * order and the shared sink/limit helpers (see archive.h, io_internal.h). */
#include <stdio.h>
#include <stdlib.h>

#include "io/io_internal.h"

void io_limits_default(io_limits *l) {
  l->max_member_bytes = (uint64_t)2 << 30;
  l->max_ratio = 1000;
  l->ratio_floor_bytes = (uint64_t)64 << 20;
  l->max_members = 10000;
  l->max_depth = 8;
  l->max_total_bytes = 0;
}

static bool component_hidden(const char *c, size_t n) {
  if (n == 0 || c[0] != '.') return false;
  if (n == 1 || (n == 2 && c[1] == '.')) return false;
  return true;
}

bool io_is_hidden_path(const char *path) {
  if (path == NULL) return false;
  const char *start = path;
  for (const char *p = path;; p++) {
    if (*p == '/' || *p == '\0') {
      if (component_hidden(start, (size_t)(p - start))) return true;
      if (*p == '\0') return false;
      start = p + 1;
    }
  }
}

int io_depth_check(uint32_t depth, const io_limits *l, base_error *err) {
  if (depth > l->max_depth) {
    return base_error_set(err, WEFT_ELIMIT,
                          "archive nesting depth %u exceeds limit of %u",
                          depth, l->max_depth);
  }
  return WEFT_OK;
}

int io_archive_priority(io_trace_type type) {
  if (type == IO_TRACE_PERFETTO_MANIFEST) return -1;
  if (type == IO_TRACE_SYMBOLS) return 3;
  if (type == IO_TRACE_PROTO) return 0;
  if (io_trace_type_is_container(type)) return 1;
  return 2;
}

static int order_cmp(const void *pa, const void *pb) {
  const io_order_entry *a = pa, *b = pb;
  int pa_ = io_archive_priority(a->type), pb_ = io_archive_priority(b->type);
  if (pa_ != pb_) return pa_ < pb_ ? -1 : 1;
  int c = strcmp(a->name ? a->name : "", b->name ? b->name : "");
  if (c != 0) return c;
  if (a->index != b->index) return a->index < b->index ? -1 : 1;
  return 0;
}

void io_order_members(io_order_entry *entries, size_t count) {
  if (entries != NULL && count > 1) {
    qsort(entries, count, sizeof *entries, order_cmp);
  }
}

/* ---- shared helpers ---- */

int io_sink_reserve(io_sink *s, size_t want, uint64_t max_len) {
  /* Room for up to max_len + 1 bytes (to detect overflow) plus the NUL. */
  uint64_t hard = max_len + 2;
  uint64_t need = (uint64_t)s->len + want + 1;
  if (need > hard) need = hard;
  if (need <= s->cap) return WEFT_OK;
  /* Exactly what is asked for the first time (a declared size), then
   * doubling, so a stream of unknown length grows in amortized O(1). */
  uint64_t cap = s->cap ? s->cap * 2 : need;
  if (cap < need) cap = need;
  if (cap > hard) cap = hard;
  if (cap > SIZE_MAX) return WEFT_ENOMEM;
  uint8_t *p = base_realloc(s->data, (size_t)cap);
  if (p == NULL) return WEFT_ENOMEM;
  s->data = p;
  s->cap = (size_t)cap;
  return WEFT_OK;
}

void io_sink_free(io_sink *s) {
  base_free(s->data);
  s->data = NULL;
  s->len = s->cap = 0;
}

int io_check_limits(const io_limits *l, uint64_t out, uint64_t total_out,
                    uint64_t in_len, const char *what, base_error *err) {
  if (out > l->max_member_bytes) {
    return base_error_set(err, WEFT_ELIMIT,
                          "%s: data exceeds decompressed size limit of %llu "
                          "bytes",
                          what, (unsigned long long)l->max_member_bytes);
  }
  if (l->max_total_bytes != 0 && total_out > l->max_total_bytes) {
    return base_error_set(err, WEFT_ELIMIT,
                          "%s: data exceeds the limit of %llu decompressed "
                          "bytes for the whole input (compression ratio "
                          "limit over all nested containers)",
                          what, (unsigned long long)l->max_total_bytes);
  }
  if (l->max_ratio != 0 && total_out > l->ratio_floor_bytes &&
      total_out / (in_len ? in_len : 1) >= l->max_ratio) {
    return base_error_set(err, WEFT_ELIMIT,
                          "%s: data exceeds compression ratio limit of %u "
                          "(%llu bytes from %llu compressed bytes)",
                          what, l->max_ratio, (unsigned long long)total_out,
                          (unsigned long long)in_len);
  }
  return WEFT_OK;
}

void io_describe(char *buf, size_t cap, const char *kind, const char *name) {
  if (name == NULL) {
    snprintf(buf, cap, "%s stream", kind);
    return;
  }
  char clean[200];
  size_t n = 0, i = 0;
  for (; name[i] != '\0' && n + 1 < sizeof clean - 3; i++) {
    unsigned char c = (unsigned char)name[i];
    clean[n++] = (c < 0x20 || c == 0x7f || c == '\'') ? '?' : (char)c;
  }
  if (name[i] != '\0') clean[n++] = '.', clean[n++] = '.', clean[n++] = '.';
  clean[n] = '\0';
  snprintf(buf, cap, "%s member '%s'", kind, clean);
}

uint8_t *io_member_take(io_member *m) {
  uint8_t *p = m->data;
  m->data = NULL;
  return p;
}

int io_yield(io_sink *s, const char *name, uint32_t index, bool truncated,
             io_member_fn fn, void *ctx, base_error *err) {
  if (s->data == NULL) {
    int rc = io_sink_reserve(s, 0, 0);
    if (rc != WEFT_OK) return base_error_alloc(err, rc);
  }
  s->data[s->len] = 0;
  io_member m = {name, s->data, NULL, s->len, index, truncated, NULL, NULL, 0};
  int rc = fn(ctx, &m, err);
  if (m.data == NULL) {
    s->data = NULL; /* taken: the caller owns it now */
    s->cap = 0;
  }
  io_sink_free(s);
  return rc;
}
