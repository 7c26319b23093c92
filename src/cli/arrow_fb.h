/* A minimal FlatBuffers builder, enough for Arrow's IPC metadata (tables
 * of scalars and offsets, strings, vectors of offsets and of structs).
 * Debian has no Arrow C library (neither libarrow-glib nor nanoarrow), so
 * weft writes the format itself from its documentation.
 *
 * Like FlatBuffers' own builders it builds back to front: children first,
 * each object known by its distance from the end of the buffer, so every
 * offset points forward as the format requires. Alignment is kept relative
 * to the end; arrow_fb_finish pads the whole to 8 bytes. */
#ifndef WEFT_CLI_ARROW_FB_H
#define WEFT_CLI_ARROW_FB_H

#include <stddef.h>
#include <stdint.h>

typedef struct arrow_fb {
  uint8_t *buf; /* the data is the last `size` bytes of buf[0..cap) */
  size_t cap, size;
  int failed;   /* an allocation failed: the result is unusable */
} arrow_fb;

enum arrow_fb_kind { ARROW_FB_ABSENT = 0, ARROW_FB_SCALAR, ARROW_FB_OFFSET };

/* One field of a table: a little-endian scalar of `size` bytes, or an
 * offset to an object made earlier. */
typedef struct arrow_fb_field {
  int kind;
  size_t size;
  uint64_t value; /* scalar */
  uint32_t target; /* offset: the object */
} arrow_fb_field;

#define ARROW_FB_FIELDS_MAX 8

uint32_t arrow_fb_string(arrow_fb *b, const char *s, size_t len);
/* A vector of offsets to `n` objects. */
uint32_t arrow_fb_offsets(arrow_fb *b, const uint32_t *targets, size_t n);
/* A vector of `n` structs of `elem_size` bytes laid out in `data`. */
uint32_t arrow_fb_structs(arrow_fb *b, const void *data, size_t elem_size, size_t n);
/* A table of `n` (at most ARROW_FB_FIELDS_MAX) fields, in field-id order. */
uint32_t arrow_fb_table(arrow_fb *b, const arrow_fb_field *fields, int n);
/* Ends the buffer with its root; the bytes are arrow_fb_data(b). */
void arrow_fb_finish(arrow_fb *b, uint32_t root);
const uint8_t *arrow_fb_data(const arrow_fb *b);
void arrow_fb_free(arrow_fb *b);

/* Little-endian stores, for structs laid out by hand. */
void arrow_fb_put64(uint8_t *p, uint64_t v);
void arrow_fb_put32(uint8_t *p, uint32_t v);

#endif
