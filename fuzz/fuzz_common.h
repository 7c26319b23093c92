/* fuzz_common: helpers shared by the libFuzzer targets in fuzz/.
 *
 * Every target is a libFuzzer entry point (LLVMFuzzerTestOneInput) built with
 * ASan+UBSan; a crash, leak, sanitizer report or a broken API invariant
 * (FUZZ_CHECK) is a finding. Limits are the defaults, lowered where a
 * default would let a tiny input legitimately allocate more than libFuzzer's
 * 2 GiB RSS limit (the hostile-input e2e test covers the defaults). */
#ifndef WEFT_FUZZ_COMMON_H
#define WEFT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/weft.h"

#define FUZZ_CHECK(cond)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__,         \
              __LINE__, #cond);                                           \
      abort();                                                            \
    }                                                                     \
  } while (0)

static inline void fuzz_options(weft_options *o) {
  weft_options_default(o);
  o->max_memory_bytes = UINT64_C(256) << 20;
  o->max_decompressed_bytes = UINT64_C(64) << 20;
  o->max_compression_ratio = 100;
  o->threads = 1;
}

/* A status returned by the API is OK or a known code, and a failure always
 * comes with a message. */
static inline void fuzz_check_status(weft *w, int rc) {
  FUZZ_CHECK(rc <= 0 && rc >= WEFT_EABORT);
  if (rc != WEFT_OK) FUZZ_CHECK(weft_errmsg(w)[0] != '\0');
}

static inline int fuzz_on_row(void *user, int statement, int ncols,
                              const weft_cell *cells) {
  (void)statement;
  size_t *n = user;
  for (int i = 0; i < ncols; i++) {
    if (cells[i].type == WEFT_CELL_STRING) FUZZ_CHECK(cells[i].s != NULL);
    if (cells[i].type == WEFT_CELL_STRING || cells[i].type == WEFT_CELL_BLOB)
      *n += cells[i].len;
  }
  return 0;
}

/* Feeds `count` files (names[i], data[i], lens[i]) through the public API,
 * finishes loading and runs `queries` (NULL-terminated, may be NULL). Each
 * file is written in pieces of varying size to exercise streaming. */
static inline void fuzz_load_files(size_t count, const char *const *names,
                                   const uint8_t *const *datas,
                                   const size_t *lens,
                                   const char *const *queries) {
  weft_options o;
  fuzz_options(&o);
  weft *w = NULL;
  int rc = weft_open(&w, &o);
  if (rc != WEFT_OK) {
    FUZZ_CHECK(rc == WEFT_ENOMEM && w == NULL);
    return;
  }
  for (size_t i = 0; rc == WEFT_OK && i < count; i++) {
    rc = weft_file_begin(w, names[i]);
    size_t pos = 0, piece = 1;
    while (rc == WEFT_OK && pos < lens[i]) {
      size_t n = lens[i] - pos < piece ? lens[i] - pos : piece;
      rc = weft_file_write(w, datas[i] + pos, n);
      pos += n;
      piece = piece * 7 + 3;
    }
    if (rc == WEFT_OK) rc = weft_file_end(w);
    fuzz_check_status(w, rc);
  }
  if (rc == WEFT_OK) {
    rc = weft_load_finish(w);
    fuzz_check_status(w, rc);
  }
  size_t bytes = 0;
  weft_query_callbacks cb = {NULL, fuzz_on_row, &bytes};
  for (size_t q = 0; rc == WEFT_OK && queries && queries[q]; q++) {
    int qrc = weft_query(w, queries[q], &cb);
    FUZZ_CHECK(qrc == WEFT_OK);
  }
  weft_close(w);
}

static inline void fuzz_load_one(const char *name, const uint8_t *data,
                                 size_t len, const char *const *queries) {
  fuzz_load_files(1, &name, &data, &len, queries);
}

/* Queries every loaded trace must answer without error. */
static const char *const fuzz_queries[] = {
    "select count(*), min(ts), max(ts + dur), max(depth) from slice",
    "select s.name, t.name, a.key, a.display_value from slice s "
    "join track t on s.track_id = t.id left join args a using (arg_set_id) "
    "order by s.ts limit 200",
    "select * from stats where value != 0",
    "select * from trace_file; select * from machine; select * from "
    "clock_snapshot limit 50",
    "select upid, pid, name from process; select utid, tid, name from thread",
    "select c.ts, c.value, t.name from counter c join counter_track t on "
    "c.track_id = t.id limit 100",
    "select * from trace_bounds; select * from metadata",
    NULL};

#endif
