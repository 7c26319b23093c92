/* Vectors, bounded byte buffers and arenas. */
#include <assert.h>
#include <stdio.h>

#include "base.h"

int base_vec_reserve(void **data, size_t *cap, size_t elem_size, size_t need) {
  if (need <= *cap) return WEFT_OK;
  size_t new_cap = *cap ? *cap : 8;
  while (new_cap < need) {
    if (new_cap > SIZE_MAX / 2) return WEFT_ENOMEM;
    new_cap *= 2;
  }
  if (new_cap > SIZE_MAX / elem_size) return WEFT_ENOMEM;
  void *grown = base_realloc(*data, new_cap * elem_size);
  if (!grown) return WEFT_ENOMEM;
  *data = grown;
  *cap = new_cap;
  return WEFT_OK;
}

void base_vec_reserve_input(void **data, size_t *cap, size_t elem_size, size_t bytes,
                            size_t min_bytes) {
  assert(elem_size && min_bytes);
  size_t n = bytes / min_bytes + 64, most = BASE_INPUT_RESERVE_MAX / elem_size;
  if (n > most) n = most;
  if (n <= *cap) return;
  void *grown = base_realloc(*data, n * elem_size);
  if (!grown) return; /* a hint: the vector is as it was */
  *data = grown;
  *cap = n;
}

void base_buf_init(base_buf *b, size_t max_len) {
  b->data = NULL;
  b->len = b->cap = 0;
  b->max_len = max_len ? max_len : SIZE_MAX - 1;
}

int base_buf_append(base_buf *b, const void *data, size_t len) {
  if (len > b->max_len - b->len) return WEFT_ELIMIT;
  size_t cap = b->cap;
  int rc = base_vec_reserve((void **)&b->data, &cap, 1, b->len + len + 1);
  if (rc) return rc;
  b->cap = cap;
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return WEFT_OK;
}

int base_buf_appendf(base_buf *b, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return WEFT_EINVAL;
  if ((size_t)n < sizeof small) return base_buf_append(b, small, (size_t)n);
  char *big = base_malloc((size_t)n + 1);
  if (!big) return WEFT_ENOMEM;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  int rc = base_buf_append(b, big, (size_t)n);
  base_free(big);
  return rc;
}

void base_buf_reset(base_buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

void base_buf_free(base_buf *b) {
  base_free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

struct base_arena_block {
  base_arena_block *next;
  size_t used;
  size_t size;
  _Alignas(16) unsigned char bytes[];
};

void base_arena_init(base_arena *a, size_t block_size) {
  a->head = NULL;
  a->block_size = block_size ? block_size : 64 * 1024;
  a->total = 0;
}

void *base_arena_alloc(base_arena *a, size_t size) {
  size_t rounded = (size + 15) & ~(size_t)15;
  if (rounded < size) return NULL;
  base_arena_block *b = a->head;
  if (!b || b->size - b->used < rounded) {
    size_t bytes = rounded > a->block_size ? rounded : a->block_size;
    if (bytes > SIZE_MAX - sizeof *b) return NULL;
    b = base_malloc(sizeof *b + bytes);
    if (!b) return NULL;
    b->size = bytes;
    b->used = 0;
    a->total += bytes;
    /* Keep a partly used head for small allocations after a big one. */
    if (a->head && rounded > a->block_size) {
      b->next = a->head->next;
      a->head->next = b;
      b->used = rounded;
      return b->bytes;
    }
    b->next = a->head;
    a->head = b;
  }
  void *p = b->bytes + b->used;
  b->used += rounded;
  return p;
}

void base_arena_free(base_arena *a) {
  base_arena_block *b = a->head;
  while (b) {
    base_arena_block *next = b->next;
    base_free(b);
    b = next;
  }
  a->head = NULL;
  a->total = 0;
}

size_t base_base64(const uint8_t *data, size_t len, char *out) {
  static const char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t at = 0;
  for (size_t i = 0; i < len; i += 3) {
    uint32_t v = (uint32_t)data[i] << 16;
    if (i + 1 < len) v |= (uint32_t)data[i + 1] << 8;
    if (i + 2 < len) v |= data[i + 2];
    out[at++] = digits[v >> 18 & 63];
    out[at++] = digits[v >> 12 & 63];
    out[at++] = i + 1 < len ? digits[v >> 6 & 63] : '=';
    out[at++] = i + 2 < len ? digits[v & 63] : '=';
  }
  out[at] = '\0';
  return at;
}
