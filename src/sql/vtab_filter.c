/* The C-side checks of a virtual table scan: row by row, and a block of
 * rows at a time (see vtab_filter.h). */
#include "sql/vtab_filter.h"

int vtab_filter_row(const storage_table *t, const vtab_filter *filters, int n, size_t row) {
  for (int i = 0; i < n; i++) {
    const vtab_filter *f = &filters[i];
    size_t col = (size_t)f->column;
    int64_t v;
    switch (f->kind) {
      case VTAB_INT_EQUAL:
        if (storage_is_null(t, col, row) || storage_get_i64(t, col, row) != f->i64) return 0;
        break;
      case VTAB_INT_RANGE:
        if (storage_is_null(t, col, row)) return 0;
        v = storage_get_i64(t, col, row);
        if (v < f->lo || v > f->hi) return 0;
        break;
      case VTAB_STR_EQUAL:
        if (storage_get_str(t, col, row) != f->str) return 0;
        break;
      default: return 0;
    }
  }
  return 1;
}

/* Keeps the candidates whose value is in [lo, hi] (and present, when the
 * column has a bitmap): each candidate is written back and counted only
 * if it passes, so no branch depends on the data. */
#define VTAB_KEEP_IN_RANGE(type, with_bitmap)                               \
  do {                                                                      \
    const type *values = (const type *)c->data;                             \
    for (size_t i = 0; i < n; i++) {                                        \
      size_t row = from + sel[i];                                           \
      int64_t v = (int64_t)values[row];                                     \
      int ok = (v >= lo) & (v <= hi);                                       \
      if (with_bitmap) ok &= (int)((present[row >> 6] >> (row & 63)) & 1);  \
      sel[kept] = sel[i];                                                   \
      kept += (size_t)ok;                                                   \
    }                                                                       \
  } while (0)

static size_t vtab_keep_ints(const storage_table *t, const vtab_filter *f, size_t from,
                             uint16_t *sel, size_t n) {
  const storage_column *c = &t->columns[f->column];
  int64_t lo = f->kind == VTAB_INT_EQUAL ? f->i64 : f->lo;
  int64_t hi = f->kind == VTAB_INT_EQUAL ? f->i64 : f->hi;
  const uint64_t *present = c->nullable ? c->present : NULL;
  size_t kept = 0;
  if (c->nullable && !present) return 0; /* every row NULL */
  if (!c->data) { /* every row holds the column's default */
    for (size_t i = 0; i < n; i++) {
      sel[kept] = sel[i];
      kept += (size_t)vtab_filter_row(t, f, 1, from + sel[i]);
    }
    return kept;
  }
  switch (c->width | c->is_unsigned << 4) {
    case 1: if (present) VTAB_KEEP_IN_RANGE(int8_t, 1); else VTAB_KEEP_IN_RANGE(int8_t, 0); break;
    case 2: if (present) VTAB_KEEP_IN_RANGE(int16_t, 1); else VTAB_KEEP_IN_RANGE(int16_t, 0); break;
    case 4: if (present) VTAB_KEEP_IN_RANGE(int32_t, 1); else VTAB_KEEP_IN_RANGE(int32_t, 0); break;
    case 0x11: if (present) VTAB_KEEP_IN_RANGE(uint8_t, 1); else VTAB_KEEP_IN_RANGE(uint8_t, 0); break;
    case 0x12: if (present) VTAB_KEEP_IN_RANGE(uint16_t, 1); else VTAB_KEEP_IN_RANGE(uint16_t, 0); break;
    case 0x14: if (present) VTAB_KEEP_IN_RANGE(uint32_t, 1); else VTAB_KEEP_IN_RANGE(uint32_t, 0); break;
    default: if (present) VTAB_KEEP_IN_RANGE(int64_t, 1); else VTAB_KEEP_IN_RANGE(int64_t, 0); break;
  }
  return kept;
}

static size_t vtab_keep_strings(const storage_table *t, const vtab_filter *f, size_t from,
                                uint16_t *sel, size_t n) {
  const string_id *ids = (const string_id *)t->columns[f->column].data;
  if (!ids) return 0; /* every row NULL, and f->str is not */
  size_t kept = 0;
  for (size_t i = 0; i < n; i++) {
    sel[kept] = sel[i];
    kept += (size_t)(ids[from + sel[i]] == f->str);
  }
  return kept;
}

size_t vtab_filter_block(const storage_table *t, const vtab_filter *filters, int n, size_t from,
                         size_t count, uint16_t *sel) {
  assert(count <= VTAB_FILTER_BLOCK && from + count <= t->row_count);
  for (size_t i = 0; i < count; i++) sel[i] = (uint16_t)i;
  size_t left = count;
  for (int k = 0; k < n && left; k++) {
    const vtab_filter *f = &filters[k];
    switch (f->kind) {
      case VTAB_INT_EQUAL:
      case VTAB_INT_RANGE: left = vtab_keep_ints(t, f, from, sel, left); break;
      case VTAB_STR_EQUAL: left = vtab_keep_strings(t, f, from, sel, left); break;
      default: left = 0; break;
    }
  }
  return left;
}
