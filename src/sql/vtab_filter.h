/* vtab_filter: the checks a scan of a weft virtual table makes in C for
 * the constraints SQLite hands it on columns that are neither sorted nor
 * indexed (`=` on an int or string column, a range on an int column).
 *
 * A scan in row order checks a block of rows at a time, a filter at a time
 * over a column's array, with no branch per row: SQLite then sees only the
 * rows that pass, and a filter that keeps few rows costs about a
 * nanosecond per row it drops. A scan through a row order checks row by
 * row. Both give the same rows. */
#ifndef WEFT_SQL_VTAB_FILTER_H
#define WEFT_SQL_VTAB_FILTER_H

#include "storage/storage.h"

typedef enum vtab_filter_kind {
  VTAB_INT_EQUAL,  /* an I64 column = i64 (NULL never matches) */
  VTAB_INT_RANGE,  /* an I64 column in [lo, hi] (NULL never matches) */
  VTAB_STR_EQUAL,  /* a STR column's string id = str (not STRING_NULL) */
  VTAB_NOTHING     /* matches no row */
} vtab_filter_kind;

typedef struct vtab_filter {
  int column;            /* of the storage table */
  vtab_filter_kind kind;
  int64_t i64;           /* VTAB_INT_EQUAL */
  int64_t lo, hi;        /* VTAB_INT_RANGE: the values accepted, both included */
  string_id str;         /* VTAB_STR_EQUAL */
} vtab_filter;

/* Whether row passes all n filters. */
int vtab_filter_row(const storage_table *t, const vtab_filter *filters, int n, size_t row);

#define VTAB_FILTER_BLOCK 1024
/* The rows of [from, from + count) (count <= VTAB_FILTER_BLOCK) that pass
 * all n filters, in order, as offsets from `from` into sel; their number. */
size_t vtab_filter_block(const storage_table *t, const vtab_filter *filters, int n, size_t from,
                         size_t count, uint16_t *sel);

#endif
