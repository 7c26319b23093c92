/* The span join's inputs held in memory (see span_rows in operators.h).
 * Each input's query is read once and its rows are put, as they come, in
 * one list per partition (no global sort: SQLite's sorter, which an ORDER
 * BY would use, spills large inputs to temporary files); the partitions
 * are then ordered by value and a partition's rows sorted by ts only when
 * they did not come in ts order. The columns other than ts, dur and the
 * partition are packed into arena blocks for the output. Nothing that
 * grows is copied: a partition's rows sit in blocks of SPAN_BLOCK_ROWS (the
 * first grown up to that size), packed columns in SPAN_ARENA_BLOCK bytes. */
#include <stdlib.h>

#include "sql/operators.h"

#define SPAN_ARENA_BLOCK ((size_t)1 << 20)

enum span_cell { SPAN_CELL_NULL, SPAN_CELL_INT, SPAN_CELL_FLOAT, SPAN_CELL_TEXT,
                 SPAN_CELL_BLOB };

static void span_part_free(span_part *p) {
  for (size_t b = 0; b < p->block_count; b++) free(p->block[b]);
  free(p->block);
}

void span_rows_free(span_rows *r) {
  for (size_t i = 0; i < r->part_count; i++) span_part_free(&r->parts[i]);
  free(r->parts);
  free(r->slot_key);
  free(r->slot_part);
  for (size_t b = 0; b < r->arena_count; b++) free(r->arena[b]);
  free(r->arena);
  int columns = r->columns, ts = r->ts_col, dur = r->dur_col, part = r->part_col;
  memset(r, 0, sizeof *r);
  r->columns = columns, r->ts_col = ts, r->dur_col = dur, r->part_col = part;
}

/* ---- partitions by value: open addressing, grown at half load ---- */

static size_t span_slot(const span_rows *r, int64_t key) {
  uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ull;
  size_t i = (size_t)(h >> 20) & (r->slot_cap - 1);
  while (r->slot_part[i] != SIZE_MAX && r->slot_key[i] != key) i = (i + 1) & (r->slot_cap - 1);
  return i;
}

static int span_rehash(span_rows *r) {
  size_t cap = r->slot_cap ? r->slot_cap * 2 : 64;
  int64_t *keys = malloc(cap * sizeof *keys);
  size_t *parts = malloc(cap * sizeof *parts);
  if (!keys || !parts) {
    free(keys);
    free(parts);
    return SQLITE_NOMEM;
  }
  for (size_t i = 0; i < cap; i++) parts[i] = SIZE_MAX;
  int64_t *old_keys = r->slot_key;
  size_t *old_parts = r->slot_part, old_cap = r->slot_cap;
  r->slot_key = keys, r->slot_part = parts, r->slot_cap = cap;
  for (size_t i = 0; i < old_cap; i++) {
    if (old_parts[i] == SIZE_MAX) continue;
    size_t s = span_slot(r, old_keys[i]);
    keys[s] = old_keys[i];
    parts[s] = old_parts[i];
  }
  free(old_keys);
  free(old_parts);
  return SQLITE_OK;
}

static int span_new_part(span_rows *r, int64_t value, size_t *index) {
  if (r->part_count == r->part_cap) {
    size_t cap = r->part_cap ? r->part_cap * 2 : 16;
    span_part *p = realloc(r->parts, cap * sizeof *p);
    if (!p) return SQLITE_NOMEM;
    r->parts = p;
    r->part_cap = cap;
  }
  r->parts[r->part_count] = (span_part){.part = value};
  *index = r->part_count++;
  return SQLITE_OK;
}

/* The list of partition `value`, made if new. */
static int span_part_of(span_rows *r, int64_t value, span_part **out) {
  if (r->part_count && r->parts[r->last_part].part == value) {
    *out = &r->parts[r->last_part];
    return SQLITE_OK;
  }
  if ((r->part_count + 1) * 2 > r->slot_cap && span_rehash(r) != SQLITE_OK)
    return SQLITE_NOMEM;
  size_t s = span_slot(r, value);
  if (r->slot_part[s] == SIZE_MAX) {
    size_t index;
    if (span_new_part(r, value, &index) != SQLITE_OK) return SQLITE_NOMEM;
    r->slot_key[s] = value;
    r->slot_part[s] = index;
  }
  r->last_part = r->slot_part[s];
  *out = &r->parts[r->last_part];
  return SQLITE_OK;
}

/* ---- a partition's rows ---- */

static int span_part_grow_first(span_part *p) {
  size_t cap = p->first_cap ? p->first_cap * 4 : 16;
  if (cap > SPAN_BLOCK_ROWS) cap = SPAN_BLOCK_ROWS;
  if (!p->block && !(p->block = malloc(8 * sizeof *p->block))) return SQLITE_NOMEM;
  if (!p->block_cap) p->block_cap = 8;
  span_row *grown = realloc(p->block_count ? p->block[0] : NULL, cap * sizeof *grown);
  if (!grown) return SQLITE_NOMEM;
  p->block[0] = grown;
  p->block_count = 1;
  p->first_cap = cap;
  return SQLITE_OK;
}

static int span_part_add_block(span_part *p) {
  if (p->block_count == p->block_cap) {
    span_row **grown = realloc(p->block, 2 * p->block_cap * sizeof *grown);
    if (!grown) return SQLITE_NOMEM;
    p->block = grown;
    p->block_cap *= 2;
  }
  if (!(p->block[p->block_count] = malloc(SPAN_BLOCK_ROWS * sizeof **p->block)))
    return SQLITE_NOMEM;
  p->block_count++;
  return SQLITE_OK;
}

static int span_part_add(span_part *p, const span_row *row) {
  size_t b = p->count / SPAN_BLOCK_ROWS, at = p->count % SPAN_BLOCK_ROWS;
  int rc = SQLITE_OK;
  if (b == 0 && at == p->first_cap) rc = span_part_grow_first(p);
  else if (b > 0 && at == 0) rc = span_part_add_block(p);
  if (rc != SQLITE_OK) return rc;
  p->block[b][at] = *row;
  p->count++;
  return SQLITE_OK;
}

/* ---- packed columns ---- */

/* `need` bytes at the end of the current arena block, or in a new block
 * (one of its own for a larger value). */
static unsigned char *span_arena_take(span_rows *r, size_t need) {
  if (r->arena_count && r->arena_len + need <= r->arena_size) {
    unsigned char *p = r->arena[r->arena_count - 1] + r->arena_len;
    r->arena_len += need;
    return p;
  }
  if (r->arena_count == r->arena_cap) {
    size_t cap = r->arena_cap ? r->arena_cap * 2 : 16;
    unsigned char **grown = realloc(r->arena, cap * sizeof *grown);
    if (!grown) return NULL;
    r->arena = grown;
    r->arena_cap = cap;
  }
  size_t size = need > SPAN_ARENA_BLOCK ? need : SPAN_ARENA_BLOCK;
  unsigned char *block = malloc(size);
  if (!block) return NULL;
  r->arena[r->arena_count++] = block;
  r->arena_size = size;
  r->arena_len = need;
  return block;
}

static int span_value_is_sized(int type) {
  return type == SQLITE_TEXT || type == SQLITE_BLOB;
}

/* A packed value: a type byte, then 8 bytes for a number or a 4-byte
 * length and the bytes for text and blobs. */
static size_t span_cell_size(sqlite3_value *v) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) return 9;
  if (span_value_is_sized(type)) return 5 + (size_t)sqlite3_value_bytes(v);
  return 1;
}

static unsigned char *span_cell_pack(unsigned char *p, sqlite3_value *v) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_INTEGER) {
    int64_t i = sqlite3_value_int64(v);
    p[0] = SPAN_CELL_INT;
    memcpy(p + 1, &i, 8);
    return p + 9;
  }
  if (type == SQLITE_FLOAT) {
    double d = sqlite3_value_double(v);
    p[0] = SPAN_CELL_FLOAT;
    memcpy(p + 1, &d, 8);
    return p + 9;
  }
  if (span_value_is_sized(type)) {
    const void *bytes = type == SQLITE_TEXT ? (const void *)sqlite3_value_text(v)
                                            : sqlite3_value_blob(v);
    uint32_t len = (uint32_t)sqlite3_value_bytes(v);
    p[0] = type == SQLITE_TEXT ? SPAN_CELL_TEXT : SPAN_CELL_BLOB;
    memcpy(p + 1, &len, 4);
    if (len) memcpy(p + 5, bytes, len);
    return p + 5 + len;
  }
  p[0] = SPAN_CELL_NULL;
  return p + 1;
}

static int span_rows_is_kept(const span_rows *r, int col) {
  return col != r->ts_col && col != r->dur_col && col != r->part_col;
}

/* ---- reading ---- */

/* The row's partition: INT64_MIN when unpartitioned; 1 in *skip when NULL
 * (the row is left out); an error when not an integer. */
static int span_read_part(const span_rows *r, sqlite3_stmt *stmt, int64_t *part, int *skip,
                          char **msg) {
  *part = INT64_MIN;
  *skip = 0;
  if (r->part_col < 0) return SQLITE_OK;
  sqlite3_value *v = sqlite3_column_value(stmt, r->part_col);
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) {
    *skip = 1;
    return SQLITE_OK;
  }
  if (type != SQLITE_INTEGER) {
    *msg = sqlite3_mprintf("SPAN_JOIN: partition is not an INT column");
    return SQLITE_ERROR;
  }
  *part = sqlite3_value_int64(v);
  return SQLITE_OK;
}

/* Reads the statement's current row. A row's cells are contiguous, in one
 * arena block. */
static int span_rows_read(span_rows *r, sqlite3_stmt *stmt, char **msg) {
  int64_t part;
  int skip;
  int rc = span_read_part(r, stmt, &part, &skip, msg);
  if (rc != SQLITE_OK || skip) return rc;
  sqlite3_value *values[SPAN_MAX_INPUT_COLUMNS];
  size_t bytes = 0;
  span_row row = {0};
  for (int c = 0; c < r->columns; c++) {
    values[c] = sqlite3_column_value(stmt, c);
    if (c == r->ts_col) row.ts = sqlite3_value_int64(values[c]);
    else if (c == r->dur_col) row.dur = sqlite3_value_int64(values[c]);
    else if (span_rows_is_kept(r, c)) bytes += span_cell_size(values[c]);
  }
  if (bytes && !(row.cells = span_arena_take(r, bytes))) return SQLITE_NOMEM;
  unsigned char *cell = row.cells;
  for (int c = 0; c < r->columns; c++)
    if (span_rows_is_kept(r, c)) cell = span_cell_pack(cell, values[c]);
  span_part *p = NULL;
  rc = span_part_of(r, part, &p);
  return rc == SQLITE_OK ? span_part_add(p, &row) : rc;
}

static int span_part_compare(const void *pa, const void *pb) {
  const span_part *a = pa, *b = pb;
  return (a->part > b->part) - (a->part < b->part);
}

/* A row's place in the ts order of its partition: ts, then input order. */
typedef struct span_order {
  int64_t ts;
  size_t index;
} span_order;

static int span_order_compare(const void *pa, const void *pb) {
  const span_order *a = pa, *b = pb;
  if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* Puts the partition's rows in ts order (input order among equals) when
 * they did not come so. */
static int span_part_sort(span_part *p) {
  size_t i = 1;
  while (i < p->count && span_part_row(p, i - 1)->ts <= span_part_row(p, i)->ts) i++;
  if (i >= p->count) return SQLITE_OK;
  span_order *order = malloc(p->count * sizeof *order);
  span_part sorted = {.part = p->part};
  int rc = order ? SQLITE_OK : SQLITE_NOMEM;
  for (i = 0; rc == SQLITE_OK && i < p->count; i++)
    order[i] = (span_order){span_part_row(p, i)->ts, i};
  if (rc == SQLITE_OK) qsort(order, p->count, sizeof *order, span_order_compare);
  for (i = 0; rc == SQLITE_OK && i < p->count; i++)
    rc = span_part_add(&sorted, span_part_row(p, order[i].index));
  free(order);
  if (rc != SQLITE_OK) {
    span_part_free(&sorted);
    return rc;
  }
  span_part_free(p);
  *p = sorted;
  return SQLITE_OK;
}

int span_rows_load(span_rows *r, sqlite3_stmt *stmt, char **msg) {
  span_rows_free(r);
  r->columns = sqlite3_column_count(stmt);
  if (r->columns > SPAN_MAX_INPUT_COLUMNS) {
    *msg = sqlite3_mprintf("SPAN_JOIN: an input has too many columns");
    return SQLITE_ERROR;
  }
  sqlite3_reset(stmt);
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW)
    if ((rc = span_rows_read(r, stmt, msg)) != SQLITE_OK) break;
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  else if (rc != SQLITE_OK && !*msg)
    *msg = sqlite3_mprintf("%s", sqlite3_errmsg(sqlite3_db_handle(stmt)));
  sqlite3_reset(stmt);
  if (rc == SQLITE_OK && r->part_count > 1) /* no parts: parts may be NULL */
    qsort(r->parts, r->part_count, sizeof *r->parts, span_part_compare);
  for (size_t i = 0; rc == SQLITE_OK && i < r->part_count; i++)
    rc = span_part_sort(&r->parts[i]);
  return rc;
}

/* ---- output ---- */

/* The cell of column `col` among the row's packed cells. */
static const unsigned char *span_rows_cell(const span_rows *r, const span_row *row, int col) {
  const unsigned char *p = row->cells;
  for (int c = 0; c < col; c++) {
    if (!span_rows_is_kept(r, c)) continue;
    if (p[0] == SPAN_CELL_INT || p[0] == SPAN_CELL_FLOAT) {
      p += 9;
    } else if (p[0] == SPAN_CELL_TEXT || p[0] == SPAN_CELL_BLOB) {
      uint32_t len;
      memcpy(&len, p + 1, 4);
      p += 5 + len;
    } else {
      p += 1;
    }
  }
  return p;
}

static void span_cell_result(const unsigned char *p, sqlite3_context *ctx) {
  int64_t v;
  double d;
  uint32_t len;
  switch (p[0]) {
    case SPAN_CELL_INT:
      memcpy(&v, p + 1, 8);
      sqlite3_result_int64(ctx, v);
      break;
    case SPAN_CELL_FLOAT:
      memcpy(&d, p + 1, 8);
      sqlite3_result_double(ctx, d);
      break;
    case SPAN_CELL_TEXT:
      memcpy(&len, p + 1, 4);
      sqlite3_result_text(ctx, (const char *)p + 5, (int)len, SQLITE_TRANSIENT);
      break;
    case SPAN_CELL_BLOB:
      memcpy(&len, p + 1, 4);
      sqlite3_result_blob(ctx, p + 5, (int)len, SQLITE_TRANSIENT);
      break;
    default: sqlite3_result_null(ctx);
  }
}

void span_rows_result(const span_rows *r, size_t part, size_t i, int col,
                      sqlite3_context *ctx) {
  const span_part *p = &r->parts[part];
  const span_row *row = span_part_row(p, i);
  if (col == r->ts_col) sqlite3_result_int64(ctx, row->ts);
  else if (col == r->dur_col) sqlite3_result_int64(ctx, row->dur);
  else if (col == r->part_col) sqlite3_result_int64(ctx, p->part);
  else span_cell_result(span_rows_cell(r, row, col), ctx);
}
