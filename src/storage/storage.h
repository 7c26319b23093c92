/* storage: columnar in-memory tables.
 *
 * Owns every table's column arrays and the string pool they refer to. A table
 * is described by a schema (storage_column_def[]): the id column is the row
 * index and takes no memory; int64/double columns are dense arrays with an
 * optional null bitmap; string columns hold string_ids (STRING_NULL = NULL).
 * Invariants: all columns of a table have exactly `row_count` rows; a column
 * flagged STORAGE_SORTED keeps `sorted` = 1 only while its values are
 * non-decreasing in row order (maintained by every setter), so readers may
 * binary-search it exactly when `sorted` is set. */
#ifndef WEFT_STORAGE_H
#define WEFT_STORAGE_H

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
  void *data;          /* int64_t*, double* or string_id*; NULL for ID */
  uint64_t *null_bits; /* bit set = NULL; only for nullable numeric columns */
  int sorted;
} storage_column;

typedef struct storage_table {
  const char *name;
  const storage_column_def *defs;
  size_t column_count;
  storage_column *columns;
  size_t row_count;
  size_t row_capacity;
} storage_table;

int storage_table_init(storage_table *t, const char *name,
                       const storage_column_def *defs, size_t column_count);
void storage_table_free(storage_table *t);
/* Appends one row with every column NULL (or 0 when not nullable). */
int storage_table_append(storage_table *t, uint32_t *row_out);
int storage_table_reserve(storage_table *t, size_t rows);
void storage_table_clear(storage_table *t);
/* Column index by name, or -1. */
int storage_table_find_column(const storage_table *t, const char *name);
/* Bytes held by the table's columns. */
size_t storage_table_memory(const storage_table *t);

static inline int64_t *storage_i64(const storage_table *t, size_t col) {
  return (int64_t *)t->columns[col].data;
}
static inline double *storage_f64(const storage_table *t, size_t col) {
  return (double *)t->columns[col].data;
}
static inline string_id *storage_str(const storage_table *t, size_t col) {
  return (string_id *)t->columns[col].data;
}
static inline int storage_is_null(const storage_table *t, size_t col,
                                  size_t row) {
  const storage_column *c = &t->columns[col];
  switch (c->def->type) {
    case STORAGE_ID: return 0;
    case STORAGE_STR: return ((string_id *)c->data)[row] == STRING_NULL;
    default:
      return c->null_bits && ((c->null_bits[row >> 6] >> (row & 63)) & 1);
  }
}

void storage_set_i64(storage_table *t, size_t col, size_t row, int64_t v);
void storage_set_f64(storage_table *t, size_t col, size_t row, double v);
void storage_set_str(storage_table *t, size_t col, size_t row, string_id v);
void storage_set_null(storage_table *t, size_t col, size_t row);
/* Reads an int column, returning `fallback` for NULL. */
int64_t storage_get_i64_or(const storage_table *t, size_t col, size_t row,
                           int64_t fallback);

/* Binary search on a sorted column (ID/I64, resp. F64): the first row in
 * [lo, hi) whose value is >= v (or > v when `strict`). */
size_t storage_lower_bound_i64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, int64_t v, int strict);
size_t storage_lower_bound_f64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, double v, int strict);

#endif
