/* The FlatBuffers builder (arrow_fb.h). */
#include "arrow_fb.h"

#include <stdlib.h>
#include <string.h>

void arrow_fb_put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void arrow_fb_put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static int fb_grow(arrow_fb *b, size_t need) {
  if (b->failed) return -1;
  if (b->size + need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->size + need) cap *= 2;
  uint8_t *grown = malloc(cap);
  if (!grown) {
    b->failed = 1;
    return -1;
  }
  if (b->size) memcpy(grown + cap - b->size, b->buf + b->cap - b->size, b->size);
  free(b->buf);
  b->buf = grown;
  b->cap = cap;
  return 0;
}

/* Puts n bytes in front of what was built. */
static void fb_push(arrow_fb *b, const void *p, size_t n) {
  if (!n || fb_grow(b, n)) return;
  b->size += n;
  memcpy(b->buf + b->cap - b->size, p, n);
}

/* Zero bytes so that, once `additional` more are pushed, the size is a
 * multiple of `align`. */
static void fb_align(arrow_fb *b, size_t align, size_t additional) {
  static const uint8_t zeros[8];
  fb_push(b, zeros, (align - (b->size + additional) % align) % align);
}

static void fb_scalar(arrow_fb *b, uint64_t v, size_t size) {
  uint8_t le[8];
  arrow_fb_put64(le, v);
  fb_push(b, le, size);
}

/* An offset stored here to `target`: the distance forward to it. */
static void fb_offset(arrow_fb *b, uint32_t target) {
  fb_align(b, 4, 4);
  fb_scalar(b, (uint32_t)(b->size + 4 - target), 4);
}

uint32_t arrow_fb_string(arrow_fb *b, const char *s, size_t len) {
  fb_align(b, 4, len + 1);
  fb_push(b, "", 1);
  fb_push(b, s, len);
  fb_scalar(b, (uint32_t)len, 4);
  return (uint32_t)b->size;
}

uint32_t arrow_fb_offsets(arrow_fb *b, const uint32_t *targets, size_t n) {
  fb_align(b, 4, 4 * n);
  for (size_t i = n; i-- > 0;) fb_offset(b, targets[i]);
  fb_scalar(b, (uint32_t)n, 4);
  return (uint32_t)b->size;
}

uint32_t arrow_fb_structs(arrow_fb *b, const void *data, size_t elem_size, size_t n) {
  fb_align(b, 8, elem_size * n);
  fb_push(b, data, elem_size * n);
  fb_scalar(b, (uint32_t)n, 4);
  return (uint32_t)b->size;
}

uint32_t arrow_fb_table(arrow_fb *b, const arrow_fb_field *f, int n) {
  size_t at[ARROW_FB_FIELDS_MAX] = {0}, start = b->size;
  if (n > ARROW_FB_FIELDS_MAX) n = ARROW_FB_FIELDS_MAX;
  for (int i = n; i-- > 0;) {
    if (f[i].kind == ARROW_FB_OFFSET) {
      fb_offset(b, f[i].target);
    } else if (f[i].kind == ARROW_FB_SCALAR) {
      fb_align(b, f[i].size, f[i].size);
      fb_scalar(b, f[i].value, f[i].size);
    }
    at[i] = b->size;
  }
  fb_align(b, 4, 4);
  fb_scalar(b, 0, 4); /* the distance to the vtable, set below */
  size_t table = b->size;
  for (int i = n; i-- > 0;) fb_scalar(b, f[i].kind ? table - at[i] : 0, 2);
  fb_scalar(b, table - start, 2);
  fb_scalar(b, 4 + 2 * (uint64_t)n, 2);
  if (!b->failed) /* the vtable is before the table: a positive distance */
    arrow_fb_put32(b->buf + b->cap - table, (uint32_t)(b->size - table));
  return (uint32_t)table;
}

void arrow_fb_finish(arrow_fb *b, uint32_t root) {
  fb_align(b, 8, 4);
  fb_offset(b, root);
}

const uint8_t *arrow_fb_data(const arrow_fb *b) { return b->buf + b->cap - b->size; }

void arrow_fb_free(arrow_fb *b) {
  free(b->buf);
  memset(b, 0, sizeof *b);
}
