/* storage: columnar in-memory tables.
 *
 * Owns every table's column arrays and the string pool they refer to. A table
 * is described by a schema (storage_column_def[]): the id column is the row
 * index and takes no memory; int64/double columns are arrays with an optional
 * "present" bitmap (nullable columns); string columns hold string_ids
 * (STRING_NULL = NULL).
 *
 * Memory: a column costs nothing until it holds a non-default value. `data`
 * stays NULL while every row is 0 / STRING_NULL, `present` stays NULL while
 * every row of a nullable column is NULL; the first non-default set allocates
 * the array (zeroed, row_capacity long). I64 columns store the narrowest
 * width that has held every value set so far (1, 2, 4 or 8 bytes), unsigned
 * while no value set was negative (ids and counts: 2 bytes up to 65535),
 * signed from the first negative one; a value that does not fit widens the
 * array in place. Read through the accessors only, never through `data`.
 *
 * Invariants: all columns of a table have exactly `row_count` rows; in every
 * allocated array the elements at rows >= row_count are zero (so appending a
 * row writes nothing: it reads as the default). A column flagged
 * STORAGE_SORTED keeps `sorted` = 1 only while its values are non-decreasing
 * in row order (maintained by every setter), so readers may binary-search it
 * exactly when `sorted` is set. A setter that cannot allocate stores nothing,
 * returns WEFT_ENOMEM and records it in `status`, which every later
 * storage_table_append also returns (until storage_table_clear): a lost value
 * always surfaces as an error. */
#ifndef WEFT_STORAGE_H
#define WEFT_STORAGE_H

#include <assert.h>

#include "base/base.h"

typedef enum storage_type {
  STORAGE_ID,  /* the row index; read-only */
  STORAGE_I64,
  STORAGE_F64,
  STORAGE_STR
} storage_type;

enum storage_flags {
  STORAGE_NULLABLE = 1, /* int/double may be NULL (strings always may) */
  STORAGE_SORTED = 2,   /* try to keep sorted; readers check column.sorted */
  STORAGE_HIDDEN = 4    /* not shown by SELECT * */
};

typedef struct storage_column_def {
  const char *name;
  storage_type type;
  unsigned flags;
} storage_column_def;

typedef struct storage_column {
  const storage_column_def *def;
  void *data;        /* NULL while every row is 0 / STRING_NULL (and for ID) */
  uint64_t *present; /* nullable numeric: bit set = not NULL; NULL = all NULL */
  uint8_t width;     /* bytes per element of data (I64: 1, 2, 4 or 8) */
  uint8_t is_unsigned; /* I64 of width < 8: elements are unsigned */
  uint8_t nullable;  /* numeric column with STORAGE_NULLABLE */
  uint8_t sorted;
} storage_column;

/* A helper thread that makes pages of mapped column arrays resident ahead
 * of the rows appended (prefault.c). A table given one (storage_table_set_
 * prefaulter) asks it, every STORAGE_PREFAULT_ROWS rows, for the pages of
 * the next window of rows of each array of STORAGE_MAP_BYTES or more. Only
 * timing changes: the values stored are the same. */
typedef struct storage_prefaulter storage_prefaulter;
#define STORAGE_MAP_BYTES ((size_t)1 << 20) /* arrays this large are mappings */
#define STORAGE_PREFAULT_ROWS ((size_t)1 << 13)

typedef struct storage_table {
  const char *name;
  const storage_column_def *defs;
  size_t column_count;
  storage_column *columns;
  size_t row_count;
  size_t row_capacity;
  size_t append_limit; /* appends below it take the inline path (<= capacity) */
  size_t prefault_next; /* the row at which the next window is asked for */
  storage_prefaulter *prefaulter; /* NULL: none */
  int status; /* first failed setter's error (WEFT_ENOMEM), else WEFT_OK */
  uint32_t generation; /* changes when rows are cleared or dropped */
} storage_table;

/* Starts the helper thread; *out stays NULL where the system has no way to
 * prefault (appends then fault as usual). WEFT_ENOMEM if it cannot start. */
int storage_prefaulter_start(storage_prefaulter **out);
/* Stops and frees it (NULL: nothing). No table may use it afterwards. */
void storage_prefaulter_stop(storage_prefaulter *p);
/* Asks for the pages of the n ranges [addrs[i], addrs[i] + lens[i])
 * (page-aligned addresses); hints, dropped when too many are pending. */
void storage_prefaulter_request(storage_prefaulter *p, const void *const *addrs,
                                const size_t *lens, size_t n);
/* Uses p (NULL: stops using one) for this table's later appends. */
void storage_table_set_prefaulter(storage_table *t, storage_prefaulter *p);

int storage_table_init(storage_table *t, const char *name,
                       const storage_column_def *defs, size_t column_count);
void storage_table_free(storage_table *t);
/* Appends one row with every column NULL (or 0 when not nullable). Fails with
 * the table's `status` once a setter failed. */
int storage_table_append_general(storage_table *t, uint32_t *row_out);
static inline int storage_table_append(storage_table *t, uint32_t *row_out) {
  if (t->status || t->row_count >= t->append_limit || t->row_count >= UINT32_MAX)
    return storage_table_append_general(t, row_out);
  size_t row = t->row_count++; /* the arrays read as default there already */
  assert(t->row_count <= t->row_capacity); /* every column has the row */
  if (row_out) *row_out = (uint32_t)row;
  return WEFT_OK;
}
int storage_table_reserve(storage_table *t, size_t rows);
/* Drops every row and every column array (the capacity is kept); resets
 * `status` and the sorted flags. */
void storage_table_clear(storage_table *t);
/* Keeps only the rows whose bit is set in `keep` (bit r of keep[r / 64]),
 * in order, moving them down in place; the rows past the new row_count are
 * zeroed again. A column sorted before stays sorted (a subsequence of a
 * sorted sequence is). Row ids (the ID column) are the new positions. */
void storage_table_keep_rows(storage_table *t, const uint64_t *keep);
/* Makes the table rows[0..n) of itself, in that order (each row listed at
 * most once; rows not listed are dropped). A STORAGE_SORTED column's flag
 * is then set to whether its new order is sorted. Needs a new array per
 * column, one column at a time; when one cannot be allocated the table is
 * left part-way and its status records the error. */
int storage_table_gather(storage_table *t, const uint32_t *rows, size_t n);
/* WEFT_OK, or the error of the first setter that failed since init/clear. */
static inline int storage_table_status(const storage_table *t) {
  return t->status;
}
/* Column index by name, or -1. */
int storage_table_find_column(const storage_table *t, const char *name);
/* Bytes held by the table's column arrays (allocated ones only). */
size_t storage_table_memory(const storage_table *t);

/* ---- reads (row < row_count) ---- */

/* Element i of an I64 array of `width` bytes (unsigned or signed ones). */
static inline int64_t storage_i64_element(const void *d, uint8_t width, uint8_t is_unsigned,
                                          size_t i) {
  switch (width | is_unsigned << 4) {
    case 1: return ((const int8_t *)d)[i];
    case 2: return ((const int16_t *)d)[i];
    case 4: return ((const int32_t *)d)[i];
    case 0x11: return ((const uint8_t *)d)[i];
    case 0x12: return ((const uint16_t *)d)[i];
    case 0x14: return ((const uint32_t *)d)[i];
    default: return ((const int64_t *)d)[i];
  }
}

/* An ID/I64 column's value; the stored value of a NULL row (0 unless it was
 * set before being set NULL). */
static inline int64_t storage_get_i64(const storage_table *t, size_t col,
                                      size_t row) {
  assert(row < t->row_count);
  const storage_column *c = &t->columns[col];
  if (!c->data) return c->def->type == STORAGE_ID ? (int64_t)row : 0;
  return storage_i64_element(c->data, c->width, c->is_unsigned, row);
}
static inline double storage_get_f64(const storage_table *t, size_t col,
                                     size_t row) {
  assert(row < t->row_count);
  const double *d = (const double *)t->columns[col].data;
  return d ? d[row] : 0.0;
}
static inline string_id storage_get_str(const storage_table *t, size_t col,
                                        size_t row) {
  assert(row < t->row_count);
  const string_id *d = (const string_id *)t->columns[col].data;
  return d ? d[row] : STRING_NULL;
}
static inline int storage_is_null(const storage_table *t, size_t col,
                                  size_t row) {
  assert(row < t->row_count);
  const storage_column *c = &t->columns[col];
  if (c->def->type == STORAGE_STR) return storage_get_str(t, col, row) == STRING_NULL;
  if (!c->nullable) return 0;
  return !c->present || !((c->present[row >> 6] >> (row & 63)) & 1);
}
/* Reads an int column, returning `fallback` for NULL. */
static inline int64_t storage_get_i64_or(const storage_table *t, size_t col,
                                         size_t row, int64_t fallback) {
  return storage_is_null(t, col, row) ? fallback : storage_get_i64(t, col, row);
}
/* Bytes per element a column stores now (0 while unallocated). */
static inline size_t storage_column_width(const storage_table *t, size_t col) {
  return t->columns[col].data ? t->columns[col].width : 0;
}

/* ---- writes (row < row_count): WEFT_OK or WEFT_ENOMEM (see above) ---- */

/* storage_set_i64's general path: allocation, widening, sortedness. */
int storage_set_i64_general(storage_table *t, size_t col, size_t row, int64_t v);
/* Whether v fits an allocated I64 column's elements as they are. */
static inline int storage_i64_fits(const storage_column *c, int64_t v) {
  if (c->width == 8) return 1;
  if (c->is_unsigned) return (uint64_t)v <= (UINT64_MAX >> (64 - 8 * c->width));
  int shift = 64 - 8 * c->width;
  return (int64_t)((uint64_t)v << shift) >> shift == v;
}
/* The common case inline: an allocated column that holds v as it is, its
 * bitmap (if nullable) allocated; a sorted column stays sorted while v is
 * between its neighbours. */
static inline __attribute__((always_inline)) int storage_set_i64(storage_table *t, size_t col,
                                                                 size_t row, int64_t v) {
  assert(row < t->row_count); /* writes go to rows every column has */
  storage_column *c = &t->columns[col];
  if (!c->data || (c->nullable && !c->present) || !storage_i64_fits(c, v))
    return storage_set_i64_general(t, col, row, v);
  if (c->sorted && ((row > 0 && storage_i64_element(c->data, c->width, c->is_unsigned, row - 1) > v) ||
                    (row + 1 < t->row_count &&
                     v > storage_i64_element(c->data, c->width, c->is_unsigned, row + 1))))
    c->sorted = 0;
  switch (c->width) {
    case 1: ((uint8_t *)c->data)[row] = (uint8_t)v; break;
    case 2: ((uint16_t *)c->data)[row] = (uint16_t)v; break;
    case 4: ((uint32_t *)c->data)[row] = (uint32_t)v; break;
    default: ((int64_t *)c->data)[row] = v; break;
  }
  if (c->present) c->present[row >> 6] |= 1ULL << (row & 63);
  return WEFT_OK;
}
int storage_set_f64(storage_table *t, size_t col, size_t row, double v);
/* storage_set_str's general path: the column's first allocation. */
int storage_set_str_general(storage_table *t, size_t col, size_t row, string_id v);
static inline int storage_set_str(storage_table *t, size_t col, size_t row, string_id v) {
  assert(row < t->row_count);
  string_id *d = (string_id *)t->columns[col].data;
  if (!d) return storage_set_str_general(t, col, row, v);
  d[row] = v;
  return WEFT_OK;
}
/* Never allocates; on a non-nullable numeric column it only clears `sorted`
 * (the stored value is kept). */
void storage_set_null(storage_table *t, size_t col, size_t row);

/* Binary search on a sorted column (ID/I64, resp. F64): the first row in
 * [lo, hi) whose value is >= v (or > v when `strict`). */
size_t storage_lower_bound_i64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, int64_t v, int strict);
size_t storage_lower_bound_f64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, double v, int strict);

#endif
