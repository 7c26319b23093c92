/* A writer of Arrow IPC files (the random-access "file" format: magic,
 * schema message, record batches, footer), for columns of the three types
 * weft has: int64, float64 (double) and utf8, each nullable with a
 * validity bitmap. Written from the format's documentation with the
 * FlatBuffers builder of arrow_fb.h (no Arrow C library in Debian).
 *
 * Rows are appended one at a time and written in record batches of at
 * most ARROW_IPC_BATCH_ROWS rows, so memory stays bounded. */
#ifndef WEFT_CLI_ARROW_IPC_H
#define WEFT_CLI_ARROW_IPC_H

#include <stdint.h>
#include <stdio.h>

#include "weft/weft.h"

enum arrow_ipc_type { ARROW_IPC_INT64, ARROW_IPC_DOUBLE, ARROW_IPC_UTF8 };

#define ARROW_IPC_BATCH_ROWS 65536
/* A batch's string bytes beyond which it is written early (offsets are
 * 32-bit). */
#define ARROW_IPC_BATCH_CHARS (256u << 20)

typedef struct arrow_ipc_column arrow_ipc_column;

typedef struct arrow_ipc_writer {
  FILE *out;
  uint64_t offset;   /* bytes written */
  int ncols;
  char **names;
  int *types;        /* enum arrow_ipc_type */
  arrow_ipc_column *columns;
  int64_t rows;      /* in the current batch */
  uint8_t *blocks;   /* the footer's Block structs, 24 bytes each */
  size_t block_count;
  int failed;        /* out of memory or a write failed */
} arrow_ipc_writer;

/* Starts a file on `out` with the columns' names and types; 0 or -1. */
int arrow_ipc_begin(arrow_ipc_writer *w, FILE *out, int ncols, const char *const *names,
                    const int *types);
/* Appends a row (ncols cells; a cell of another type is converted, or
 * NULL when it cannot be); 0 or -1. */
int arrow_ipc_append(arrow_ipc_writer *w, const weft_cell *cells);
/* Writes the last batch and the footer; 0 or -1. Frees the writer. */
int arrow_ipc_end(arrow_ipc_writer *w);
void arrow_ipc_free(arrow_ipc_writer *w);

#endif
