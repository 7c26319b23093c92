/* Columnar tables: lazy column arrays, adaptive int widths, growth, setters
 * with sortedness upkeep. */
#include "storage/storage.h"

#include <sys/mman.h>
#include <unistd.h>

/* ---- column arrays ----
 * Arrays of STORAGE_MAP_BYTES or more are anonymous mappings grown with
 * mremap: their pages are zero until written, so the growth slack past the
 * last row costs address space, not memory. Smaller ones come from the heap.
 * Which kind an array is follows from its size, so every call passes the
 * array's current byte size. Every array is zero past its last row. */

/* Arrays this large are advised huge (base_advise_huge): fewer faults as
 * they grow, for at most the last, partly written 2 MiB resident past
 * their last row. Tables have dozens of arrays, so the floor is higher
 * than the allocators': at 16 MiB (2 M rows of 8-byte values) a
 * 1,000-file merge's peak RSS stays what it was without the hint, while a
 * big trace's largest tables fault 2 MiB at a time. On virtual machines a
 * fault of a fresh 4 KiB page costs several times what a 2 MiB page
 * costs per byte; at 32 MiB a 300 MiB proto trace loaded 5% slower. */
#define STORAGE_HUGE_MIN_BYTES ((size_t)16 << 20)

static size_t array_mapped_size(size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (bytes + page - 1) / page * page;
}

/* A mapping counts as one allocation for the fail-Nth test hook. */
static int array_hook_allows(void) {
  void *probe = base_malloc(1);
  base_free(probe);
  return probe != NULL;
}

static void *array_map(size_t bytes) {
  if (!array_hook_allows()) return NULL;
  void *p = mmap(NULL, array_mapped_size(bytes), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  if (bytes >= STORAGE_HUGE_MIN_BYTES) base_advise_huge(p, bytes);
  return p;
}

static void array_free(void *p, size_t bytes) {
  if (!p) return;
  if (bytes >= STORAGE_MAP_BYTES) munmap(p, array_mapped_size(bytes));
  else base_free(p);
}

static void *array_alloc(size_t bytes) {
  return bytes >= STORAGE_MAP_BYTES ? array_map(bytes) : base_calloc(1, bytes ? bytes : 1);
}

/* Grows an array from old_bytes to new_bytes, zeroing the new part. */
static void *array_grow(void *p, size_t old_bytes, size_t new_bytes) {
  if (old_bytes >= STORAGE_MAP_BYTES) {
    if (!array_hook_allows()) return NULL;
    void *q = mremap(p, array_mapped_size(old_bytes), array_mapped_size(new_bytes),
                     MREMAP_MAYMOVE);
    if (q == MAP_FAILED) return NULL;
    if (old_bytes < STORAGE_HUGE_MIN_BYTES && new_bytes >= STORAGE_HUGE_MIN_BYTES)
      base_advise_huge(q, new_bytes);
    return q;
  }
  if (new_bytes >= STORAGE_MAP_BYTES) {
    void *q = array_map(new_bytes);
    if (!q) return NULL;
    memcpy(q, p, old_bytes);
    base_free(p);
    return q;
  }
  char *q = base_realloc(p, new_bytes);
  if (q) memset(q + old_bytes, 0, new_bytes - old_bytes);
  return q;
}

static size_t bitmap_words(size_t rows) { return (rows + 63) / 64; }

static size_t column_data_bytes(const storage_column *c, size_t capacity) {
  return c->data ? capacity * c->width : 0;
}

static size_t column_present_bytes(const storage_column *c, size_t capacity) {
  return c->present ? bitmap_words(capacity) * sizeof(uint64_t) : 0;
}

/* Width of the elements of a column's array once allocated (I64: the
 * narrowest that holds the first value; see i64_width). */
static uint8_t column_fixed_width(storage_type type) {
  switch (type) {
    case STORAGE_F64: return sizeof(double);
    case STORAGE_STR: return sizeof(string_id);
    default: return 0;
  }
}

static int column_is_sorted_initially(const storage_column_def *def) {
  return (def->flags & STORAGE_SORTED) != 0 || def->type == STORAGE_ID;
}

static void column_reset(storage_column *c, const storage_column_def *def,
                         size_t capacity) {
  array_free(c->data, column_data_bytes(c, capacity));
  array_free(c->present, column_present_bytes(c, capacity));
  c->def = def;
  c->data = NULL;
  c->present = NULL;
  c->width = column_fixed_width(def->type);
  c->is_unsigned = def->type == STORAGE_I64;
  c->nullable = (def->flags & STORAGE_NULLABLE) &&
                (def->type == STORAGE_I64 || def->type == STORAGE_F64);
  c->sorted = (uint8_t)column_is_sorted_initially(def);
}

/* The end of the inline append path: the capacity, or the row at which the
 * prefaulter is asked for the next window if that comes first. */
static void table_update_append_limit(storage_table *t) {
  t->append_limit = t->row_capacity;
  if (t->prefaulter && t->prefault_next < t->append_limit) t->append_limit = t->prefault_next;
}

int storage_table_init(storage_table *t, const char *name,
                       const storage_column_def *defs, size_t column_count) {
  memset(t, 0, sizeof *t);
  t->name = name;
  t->defs = defs;
  t->column_count = column_count;
  t->columns = base_calloc(column_count, sizeof *t->columns);
  if (!t->columns) return WEFT_ENOMEM;
  for (size_t i = 0; i < column_count; i++) column_reset(&t->columns[i], &defs[i], 0);
  return WEFT_OK;
}

void storage_table_free(storage_table *t) {
  if (!t->columns) return;
  for (size_t i = 0; i < t->column_count; i++) {
    storage_column *c = &t->columns[i];
    array_free(c->data, column_data_bytes(c, t->row_capacity));
    array_free(c->present, column_present_bytes(c, t->row_capacity));
  }
  base_free(t->columns);
  t->columns = NULL;
}

void storage_table_clear(storage_table *t) {
  t->row_count = 0;
  t->generation++;
  t->prefault_next = 0;
  table_update_append_limit(t);
  t->status = WEFT_OK;
  for (size_t i = 0; i < t->column_count; i++)
    column_reset(&t->columns[i], &t->defs[i], t->row_capacity);
}

static int bit_is_set(const uint64_t *bits, size_t i) {
  return (int)((bits[i >> 6] >> (i & 63)) & 1);
}

/* Moves the kept elements of one column's arrays down; zeroes the rest up
 * to `rows`. */
static void column_keep_rows(storage_column *c, const uint64_t *keep, size_t rows) {
  size_t w = c->width, out = 0;
  uint8_t *data = c->data;
  for (size_t r = 0; r < rows; r++) {
    if (!bit_is_set(keep, r)) continue;
    if (data && out != r) memcpy(data + out * w, data + r * w, w);
    if (c->present) {
      uint64_t bit = 1ULL << (out & 63);
      if (bit_is_set(c->present, r)) c->present[out >> 6] |= bit;
      else c->present[out >> 6] &= ~bit;
    }
    out++;
  }
  if (data) memset(data + out * w, 0, (rows - out) * w);
  if (c->present) {
    for (size_t r = out; r < rows && (r & 63); r++) c->present[r >> 6] &= ~(1ULL << (r & 63));
    size_t first_word = (out + 63) / 64;
    if (bitmap_words(rows) > first_word)
      memset(c->present + first_word, 0, (bitmap_words(rows) - first_word) * sizeof(uint64_t));
  }
}

void storage_table_keep_rows(storage_table *t, const uint64_t *keep) {
  size_t kept = 0;
  for (size_t r = 0; r < t->row_count; r++) kept += (size_t)bit_is_set(keep, r);
  for (size_t i = 0; i < t->column_count; i++)
    if (t->defs[i].type != STORAGE_ID) column_keep_rows(&t->columns[i], keep, t->row_count);
  t->row_count = kept;
  t->generation++;
  if (t->prefault_next > kept) t->prefault_next = kept;
  table_update_append_limit(t);
}

static int storage_fail(storage_table *t, int rc);

/* A column's arrays holding rows[0..n) of themselves, in that order; the
 * old arrays are freed. */
static int column_gather(storage_column *c, size_t capacity, const uint32_t *rows, size_t n) {
  if (c->data) {
    size_t w = c->width;
    uint8_t *to = array_alloc(capacity * w);
    if (!to) return WEFT_ENOMEM;
    const uint8_t *from = c->data;
    for (size_t r = 0; r < n; r++) memcpy(to + r * w, from + (size_t)rows[r] * w, w);
    array_free(c->data, capacity * w);
    c->data = to;
  }
  if (c->present) {
    size_t bytes = bitmap_words(capacity) * sizeof(uint64_t);
    uint64_t *to = array_alloc(bytes);
    if (!to) return WEFT_ENOMEM;
    for (size_t r = 0; r < n; r++)
      if (bit_is_set(c->present, rows[r])) to[r >> 6] |= 1ULL << (r & 63);
    array_free(c->present, bytes);
    c->present = to;
  }
  return WEFT_OK;
}

/* Sets a STORAGE_SORTED column's flag to whether its rows are in order. */
static void column_recheck_sorted(storage_table *t, size_t col) {
  storage_column *c = &t->columns[col];
  if (!(c->def->flags & STORAGE_SORTED) || c->def->type == STORAGE_STR) return;
  c->sorted = 1;
  for (size_t r = 0; r < t->row_count && c->sorted; r++) {
    if (storage_is_null(t, col, r)) c->sorted = 0;
    else if (r > 0 && c->def->type == STORAGE_I64)
      c->sorted = storage_get_i64(t, col, r - 1) <= storage_get_i64(t, col, r);
    else if (r > 0 && c->def->type == STORAGE_F64)
      c->sorted = storage_get_f64(t, col, r - 1) <= storage_get_f64(t, col, r);
  }
}

int storage_table_gather(storage_table *t, const uint32_t *rows, size_t n) {
  assert(n <= t->row_count);
  for (size_t i = 0; i < t->column_count; i++) {
    if (t->defs[i].type == STORAGE_ID) continue;
    int rc = column_gather(&t->columns[i], t->row_capacity, rows, n);
    if (rc) return storage_fail(t, rc);
  }
  t->row_count = n;
  t->generation++;
  if (t->prefault_next > n) t->prefault_next = n;
  table_update_append_limit(t);
  for (size_t i = 0; i < t->column_count; i++) column_recheck_sorted(t, i);
  return WEFT_OK;
}

/* Grows the allocated arrays of a column to new_cap rows (keeps the zero
 * tail). */
static int column_grow(storage_column *c, size_t old_cap, size_t new_cap) {
  if (c->data) {
    size_t w = c->width;
    if (new_cap > SIZE_MAX / w) return WEFT_ENOMEM;
    void *grown = array_grow(c->data, old_cap * w, new_cap * w);
    if (!grown) return WEFT_ENOMEM;
    c->data = grown;
  }
  if (c->present) {
    size_t old_bytes = bitmap_words(old_cap) * sizeof(uint64_t);
    void *bits = array_grow(c->present, old_bytes, bitmap_words(new_cap) * sizeof(uint64_t));
    if (!bits) return WEFT_ENOMEM;
    c->present = bits;
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
  if (new_cap > SIZE_MAX / sizeof(int64_t)) return WEFT_ENOMEM;
  for (size_t i = 0; i < t->column_count; i++) {
    /* A column grown before a later one failed keeps its larger array: its
     * tail is zero, and the next growth starts from row_capacity again. */
    int rc = column_grow(&t->columns[i], t->row_capacity, new_cap);
    if (rc) return rc;
  }
  t->row_capacity = new_cap;
  table_update_append_limit(t);
  return WEFT_OK;
}

/* The ranges one window asks the prefaulter for (two arrays a column at
 * most, and no table has 32 columns). */
typedef struct table_prefault_batch {
  const void *addr[64];
  size_t len[64];
  size_t n;
} table_prefault_batch;

/* Adds bytes [lo, hi) of an array of `bytes` if it is a mapping, widened
 * to whole pages and clamped to the mapping. */
static void table_prefault_array(table_prefault_batch *b, const void *array, size_t bytes,
                                 size_t lo, size_t hi) {
  if (!array || bytes < STORAGE_MAP_BYTES || b->n == 64) return;
  size_t page = (size_t)sysconf(_SC_PAGESIZE), end = array_mapped_size(bytes);
  lo = lo / page * page;
  hi = hi < end ? (hi + page - 1) / page * page : end;
  if (lo >= hi) return;
  b->addr[b->n] = (const char *)array + lo;
  b->len[b->n++] = hi - lo;
}

/* At row prefault_next: asks for the window after the one starting here,
 * for every mapped array at once. */
static void table_prefault_ahead(storage_table *t) {
  size_t from = t->prefault_next + STORAGE_PREFAULT_ROWS, to = from + STORAGE_PREFAULT_ROWS;
  if (to > t->row_capacity) to = t->row_capacity;
  table_prefault_batch b;
  b.n = 0;
  for (size_t i = 0; i < t->column_count && from < to; i++) {
    const storage_column *c = &t->columns[i];
    table_prefault_array(&b, c->data, column_data_bytes(c, t->row_capacity), from * c->width,
                         to * c->width);
    table_prefault_array(&b, c->present, column_present_bytes(c, t->row_capacity),
                         from / 64 * sizeof(uint64_t), bitmap_words(to) * sizeof(uint64_t));
  }
  storage_prefaulter_request(t->prefaulter, b.addr, b.len, b.n);
  t->prefault_next += STORAGE_PREFAULT_ROWS;
}

void storage_table_set_prefaulter(storage_table *t, storage_prefaulter *p) {
  t->prefaulter = p;
  t->prefault_next = t->row_count / STORAGE_PREFAULT_ROWS * STORAGE_PREFAULT_ROWS;
  table_update_append_limit(t);
}

#ifndef NDEBUG
/* storage.h: past row_count every allocated array is zero, so a row just
 * appended reads as the default in every column. */
static int storage_row_is_default(const storage_table *t, size_t row) {
  for (size_t i = 0; i < t->column_count; i++) {
    const storage_column *c = &t->columns[i];
    if (c->def->type == STORAGE_ID) continue;
    if (c->present && !storage_is_null(t, i, row)) return 0;
    if (c->def->type == STORAGE_I64 && storage_get_i64(t, i, row) != 0) return 0;
    if (c->def->type == STORAGE_F64 && storage_get_f64(t, i, row) != 0.0) return 0;
    if (c->def->type == STORAGE_STR && storage_get_str(t, i, row) != STRING_NULL) return 0;
  }
  return 1;
}
#endif

int storage_table_append_general(storage_table *t, uint32_t *row_out) {
  if (t->status) return t->status;
  if (t->row_count >= UINT32_MAX) return WEFT_ELIMIT;
  int rc = storage_table_reserve(t, t->row_count + 1);
  if (rc) return rc;
  if (t->prefaulter && t->row_count >= t->prefault_next) table_prefault_ahead(t);
  table_update_append_limit(t);
  /* Nothing to write: every allocated array is zero past row_count, which
   * reads as NULL / 0 / STRING_NULL. A NULL in a sorted column breaks the
   * order unless it is overwritten (its value reads as 0). */
  size_t row = t->row_count++;
  assert(t->row_count <= t->row_capacity && t->append_limit <= t->row_capacity);
  assert(storage_row_is_default(t, row));
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
    const storage_column *c = &t->columns[i];
    if (c->data) bytes += t->row_capacity * c->width;
    if (c->present) bytes += bitmap_words(t->row_capacity) * sizeof(uint64_t);
  }
  return bytes;
}

/* ---- setters ---- */

static int storage_fail(storage_table *t, int rc) {
  if (!t->status) t->status = rc;
  return rc;
}

/* Allocates the column's present bitmap (all NULL) if it has none. */
static int column_need_present(const storage_table *t, storage_column *c) {
  if (!c->nullable || c->present) return WEFT_OK;
  c->present = array_alloc(bitmap_words(t->row_capacity) * sizeof(uint64_t));
  return c->present ? WEFT_OK : WEFT_ENOMEM;
}

static void column_mark_present(storage_column *c, size_t row) {
  if (c->present) c->present[row >> 6] |= 1ULL << (row & 63);
}

/* Allocates the column's array (all default) if it has none. */
static int column_need_data(const storage_table *t, storage_column *c,
                            uint8_t width) {
  if (c->data) return WEFT_OK;
  c->data = array_alloc(t->row_capacity * width);
  if (!c->data) return WEFT_ENOMEM;
  c->width = width;
  return WEFT_OK;
}

/* Bytes an element needs to hold v: unsigned (v >= 0 only) or signed. */
static uint8_t i64_width(int64_t v, int is_unsigned) {
  if (is_unsigned) {
    uint64_t u = (uint64_t)v;
    return u <= UINT8_MAX ? 1 : u <= UINT16_MAX ? 2 : u <= UINT32_MAX ? 4 : 8;
  }
  if (v == (int8_t)v) return 1;
  if (v == (int16_t)v) return 2;
  if (v == (int32_t)v) return 4;
  return 8;
}

/* Stores v, which fits the width (the same bits signed or unsigned). */
static void i64_store(void *d, uint8_t width, size_t i, int64_t v) {
  switch (width) {
    case 1: ((uint8_t *)d)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)d)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)d)[i] = (uint32_t)v; break;
    default: ((int64_t *)d)[i] = v; break;
  }
}

/* Re-encodes an I64 column's array in place at `width` bytes per element
 * (>= its width), signed unless `is_unsigned`: the elements move from the
 * end down, so none is overwritten before it is read. Rows past row_count
 * are zero and stay zero. */
static int column_widen(const storage_table *t, storage_column *c, uint8_t width,
                        int is_unsigned) {
  char *d = array_grow(c->data, t->row_capacity * c->width, t->row_capacity * width);
  if (!d) return WEFT_ENOMEM;
  /* Rows past row_count were zero and are within the zeroed tail. */
  for (size_t i = t->row_count; i-- > 0;)
    i64_store(d, width, i, storage_i64_element(d, c->width, c->is_unsigned, i));
  c->data = d;
  c->width = width;
  c->is_unsigned = (uint8_t)is_unsigned;
  return WEFT_OK;
}

/* Makes room for v in an allocated I64 column: wider, or signed from the
 * first negative value (its unsigned elements then need twice the bytes). */
static int column_fit_i64(const storage_table *t, storage_column *c, int64_t v) {
  if (c->is_unsigned && v < 0) {
    uint8_t width = i64_width(v, 0), kept = c->width < 8 ? (uint8_t)(c->width * 2) : 8;
    return column_widen(t, c, width > kept ? width : kept, 0);
  }
  uint8_t width = i64_width(v, c->is_unsigned);
  return width > c->width ? column_widen(t, c, width, c->is_unsigned) : WEFT_OK;
}

static void check_sorted_i64(storage_table *t, storage_column *c, size_t col,
                             size_t row) {
  int64_t v = storage_get_i64(t, col, row);
  if (row > 0 && storage_get_i64(t, col, row - 1) > v) c->sorted = 0;
  if (row + 1 < t->row_count && v > storage_get_i64(t, col, row + 1))
    c->sorted = 0;
}

int storage_set_i64_general(storage_table *t, size_t col, size_t row, int64_t v) {
  assert(row < t->row_count);
  storage_column *c = &t->columns[col];
  int rc = column_need_present(t, c);
  if (!rc && (v != 0 || c->data)) {
    if (!c->data) {
      rc = column_need_data(t, c, i64_width(v, v >= 0));
      c->is_unsigned = v >= 0;
    }
    if (!rc) rc = column_fit_i64(t, c, v);
    if (!rc) i64_store(c->data, c->width, row, v);
  }
  if (rc) return storage_fail(t, rc);
  column_mark_present(c, row);
  if (c->sorted && c->def->type == STORAGE_I64) check_sorted_i64(t, c, col, row);
  return WEFT_OK;
}

int storage_set_f64(storage_table *t, size_t col, size_t row, double v) {
  assert(row < t->row_count);
  storage_column *c = &t->columns[col];
  uint64_t bits;
  memcpy(&bits, &v, sizeof bits); /* -0.0 is not the default +0.0 */
  int rc = column_need_present(t, c);
  if (!rc && (bits != 0 || c->data)) {
    rc = column_need_data(t, c, sizeof(double));
    if (!rc) ((double *)c->data)[row] = v;
  }
  if (rc) return storage_fail(t, rc);
  column_mark_present(c, row);
  if (c->sorted) {
    if ((row > 0 && storage_get_f64(t, col, row - 1) > v) ||
        (row + 1 < t->row_count && v > storage_get_f64(t, col, row + 1)))
      c->sorted = 0;
  }
  return WEFT_OK;
}

int storage_set_str_general(storage_table *t, size_t col, size_t row, string_id v) {
  assert(row < t->row_count);
  storage_column *c = &t->columns[col];
  if (v == STRING_NULL && !c->data) return WEFT_OK;
  int rc = column_need_data(t, c, sizeof(string_id));
  if (rc) return storage_fail(t, rc);
  ((string_id *)c->data)[row] = v;
  return WEFT_OK;
}

void storage_set_null(storage_table *t, size_t col, size_t row) {
  assert(row < t->row_count);
  storage_column *c = &t->columns[col];
  if (c->def->type == STORAGE_STR) {
    if (c->data) ((string_id *)c->data)[row] = STRING_NULL;
    return;
  }
  if (c->present) c->present[row >> 6] &= ~(1ULL << (row & 63));
  c->sorted = 0;
}

/* ---- searches ---- */

size_t storage_lower_bound_i64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, int64_t v, int strict) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int64_t x = storage_get_i64(t, col, mid);
    if (strict ? x <= v : x < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

size_t storage_lower_bound_f64(const storage_table *t, size_t col, size_t lo,
                               size_t hi, double v, int strict) {
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    double x = storage_get_f64(t, col, mid);
    if (strict ? x <= v : x < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
