/* Columnar tables: allocation, growth, setters with sortedness upkeep. */
#include "storage/storage.h"

static size_t column_elem_size(storage_type type) {
  switch (type) {
    case STORAGE_I64: return sizeof(int64_t);
    case STORAGE_F64: return sizeof(double);
    case STORAGE_STR: return sizeof(string_id);
    default: return 0;
  }
}

int storage_table_init(storage_table *t, const char *name,
                       const storage_column_def *defs, size_t column_count) {
  memset(t, 0, sizeof *t);
  t->name = name;
  t->defs = defs;
  t->column_count = column_count;
  t->columns = base_calloc(column_count, sizeof *t->columns);
  if (!t->columns) return WEFT_ENOMEM;
  for (size_t i = 0; i < column_count; i++) {
    t->columns[i].def = &defs[i];
    t->columns[i].sorted = (defs[i].flags & STORAGE_SORTED) != 0 ||
                           defs[i].type == STORAGE_ID;
  }
  return WEFT_OK;
}

void storage_table_free(storage_table *t) {
  if (!t->columns) return;
  for (size_t i = 0; i < t->column_count; i++) {
    base_free(t->columns[i].data);
    base_free(t->columns[i].null_bits);
  }
  base_free(t->columns);
  t->columns = NULL;
}

void storage_table_clear(storage_table *t) {
  t->row_count = 0;
  for (size_t i = 0; i < t->column_count; i++)
    t->columns[i].sorted = (t->defs[i].flags & STORAGE_SORTED) != 0 ||
                           t->defs[i].type == STORAGE_ID;
}

static int column_grow(storage_column *c, size_t old_cap, size_t new_cap) {
  size_t elem = column_elem_size(c->def->type);
  if (elem) {
    if (new_cap > SIZE_MAX / elem) return WEFT_ENOMEM;
    void *grown = base_realloc(c->data, new_cap * elem);
    if (!grown) return WEFT_ENOMEM;
    c->data = grown;
  }
  int nullable = (c->def->flags & STORAGE_NULLABLE) &&
                 (c->def->type == STORAGE_I64 || c->def->type == STORAGE_F64);
  if (nullable) {
    size_t old_words = (old_cap + 63) / 64, new_words = (new_cap + 63) / 64;
    uint64_t *bits = base_realloc(c->null_bits, new_words * sizeof *bits);
    if (!bits) return WEFT_ENOMEM;
    memset(bits + old_words, 0, (new_words - old_words) * sizeof *bits);
    c->null_bits = bits;
  }
  return WEFT_OK;
}

int storage_table_reserve(storage_table *t, size_t rows) {
  if (rows <= t->row_capacity) return WEFT_OK;
  size_t new_cap = t->row_capacity ? t->row_capacity : 64;
  while (new_cap < rows) {
    if (new_cap > SIZE_MAX / 2) return WEFT_ENOMEM;
    new_cap = new_cap < (1u << 20) ? new_cap * 2 : new_cap + new_cap / 2;
  }
  for (size_t i = 0; i < t->column_count; i++) {
    int rc = column_grow(&t->columns[i], t->row_capacity, new_cap);
    if (rc) return rc;
  }
  t->row_capacity = new_cap;
  return WEFT_OK;
}

int storage_table_append(storage_table *t, uint32_t *row_out) {
  if (t->row_count >= UINT32_MAX) return WEFT_ELIMIT;
  int rc = storage_table_reserve(t, t->row_count + 1);
  if (rc) return rc;
  size_t row = t->row_count++;
  for (size_t i = 0; i < t->column_count; i++) {
    storage_column *c = &t->columns[i];
    switch (c->def->type) {
      case STORAGE_I64: ((int64_t *)c->data)[row] = 0; break;
      case STORAGE_F64: ((double *)c->data)[row] = 0; break;
      case STORAGE_STR: ((string_id *)c->data)[row] = STRING_NULL; break;
      default: break;
    }
    if (c->null_bits) c->null_bits[row >> 6] |= 1ULL << (row & 63);
    /* A NULL in a sorted column breaks the order unless it is overwritten. */
  }
  if (row_out) *row_out = (uint32_t)row;
  return WEFT_OK;
}

int storage_table_find_column(const storage_table *t, const char *name) {
  for (size_t i = 0; i < t->column_count; i++)
    if (strcmp(t->defs[i].name, name) == 0) return (int)i;
  return -1;
}

size_t storage_table_memory(const storage_table *t) {
  size_t bytes = 0;
  for (size_t i = 0; i < t->column_count; i++) {
    bytes += t->row_capacity * column_elem_size(t->defs[i].type);
    if (t->columns[i].null_bits) bytes += (t->row_capacity + 63) / 64 * 8;
  }
  return bytes;
}

static void clear_null(storage_column *c, size_t row) {
  if (c->null_bits) c->null_bits[row >> 6] &= ~(1ULL << (row & 63));
}

static void check_sorted_i64(storage_table *t, storage_column *c, size_t row) {
  const int64_t *v = c->data;
  if (row > 0 && v[row - 1] > v[row]) c->sorted = 0;
  if (row + 1 < t->row_count && v[row] > v[row + 1]) c->sorted = 0;
}

void storage_set_i64(storage_table *t, size_t col, size_t row, int64_t v) {
  storage_column *c = &t->columns[col];
  ((int64_t *)c->data)[row] = v;
  clear_null(c, row);
  if (c->sorted && c->def->type == STORAGE_I64) check_sorted_i64(t, c, row);
}

void storage_set_f64(storage_table *t, size_t col, size_t row, double v) {
  storage_column *c = &t->columns[col];
  ((double *)c->data)[row] = v;
  clear_null(c, row);
  if (c->sorted) {
    const double *d = c->data;
    if ((row > 0 && d[row - 1] > v) ||
        (row + 1 < t->row_count && v > d[row + 1]))
      c->sorted = 0;
  }
}

void storage_set_str(storage_table *t, size_t col, size_t row, string_id v) {
  ((string_id *)t->columns[col].data)[row] = v;
}

void storage_set_null(storage_table *t, size_t col, size_t row) {
  storage_column *c = &t->columns[col];
  if (c->def->type == STORAGE_STR) {
    ((string_id *)c->data)[row] = STRING_NULL;
    return;
  }
  if (c->null_bits) c->null_bits[row >> 6] |= 1ULL << (row & 63);
  c->sorted = 0;
}

int64_t storage_get_i64_or(const storage_table *t, size_t col, size_t row,
                           int64_t fallback) {
  if (t->defs[col].type == STORAGE_ID) return (int64_t)row;
  if (storage_is_null(t, col, row)) return fallback;
  return storage_i64(t, col)[row];
}

static int64_t column_value_as_i64(const storage_table *t, size_t col,
                                   size_t row) {
  return t->defs[col].type == STORAGE_ID ? (int64_t)row
                                         : storage_i64(t, col)[row];
}

size_t storage_lower_bound_i64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, int64_t v, int strict) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t x = column_value_as_i64(t, col, mid);
    if (strict ? x <= v : x < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

size_t storage_lower_bound_f64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, double v, int strict) {
  const double *d = storage_f64(t, col);
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strict ? d[mid] <= v : d[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
