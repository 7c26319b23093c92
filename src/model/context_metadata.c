/* The metadata table: single and multi keys, scoped by machine and trace,
 * and the order of its rows.
 *
 * Perfetto's rows appear in the order it writes them: trace_uuid first,
 * then what each file's tokenizer writes (files in processing order, a
 * file's rows in the byte order of what they come from), then what the
 * sorted parse writes, in parse order, then each file's trace_size_bytes,
 * written as files end, so in reverse processing order. weft writes some of
 * these rows at other moments (a SystemInfo packet is read in the parse, a
 * proto's trace_type after its tokenize), so every row is given a sort key
 * when it is made, from the context's position or from the call, and the
 * table is sorted by it, stably, when loading ends. A single key set again
 * keeps its row and its key, as Perfetto's row keeps its place. */
#include "model/context.h"

#include <assert.h>

/* key = stage << 60 | major << 40 | minor */
#define META_MAJOR_MAX ((UINT64_C(1) << 20) - 1)
#define META_MINOR_MAX ((UINT64_C(1) << 40) - 1)

static uint64_t metadata_key(ctx_metadata_stage stage, uint64_t major, uint64_t minor) {
  if (major > META_MAJOR_MAX) major = META_MAJOR_MAX;
  if (minor > META_MINOR_MAX) minor = META_MINOR_MAX;
  return (uint64_t)stage << 60 | major << 40 | minor;
}

/* A file's place in processing order (0 for no file). */
static uint64_t metadata_file_order(trace_context *ctx, int64_t trace_id) {
  const storage_table *t = ctx_table(ctx, TABLE_TRACE_FILE);
  if (trace_id < 0 || (uint64_t)trace_id >= t->row_count) return 0;
  return (uint64_t)storage_get_i64_or(t, TRACE_FILE_processing_order, (size_t)trace_id, 0);
}

uint64_t ctx_metadata_at_file(trace_context *ctx, int64_t trace_id, uint64_t offset) {
  uint64_t saved = ctx->metadata_pos;
  ctx->metadata_pos =
      metadata_key(CTX_METADATA_TOKENIZE, metadata_file_order(ctx, trace_id), offset);
  return saved;
}

void ctx_metadata_at(trace_context *ctx, uint64_t position) { ctx->metadata_pos = position; }

void ctx_metadata_at_parse(trace_context *ctx) {
  ctx->metadata_pos = metadata_key(CTX_METADATA_PARSE, 0, 0);
}

/* The columns every metadata row has: name, key type and scope. */
static void ctx_metadata_fill(storage_table *t, uint32_t row, string_id name,
                              string_id key_type, int64_t machine, int64_t trace) {
  storage_set_str(t, METADATA_name, row, name);
  storage_set_str(t, METADATA_key_type, row, key_type);
  if (machine >= 0) storage_set_i64(t, METADATA_machine_id, row, machine);
  if (trace >= 0) storage_set_i64(t, METADATA_trace_id, row, trace);
}

/* A new row at the current position (trace_uuid always first). */
static int ctx_metadata_append(trace_context *ctx, string_id name, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  const char *text = base_string_pool_get(&ctx->strings, name);
  uint64_t key = strcmp(text, "trace_uuid") == 0 ? 0 : ctx->metadata_pos;
  if (VEC_PUSH(ctx->metadata_keys, key)) return WEFT_ENOMEM;
  int rc = storage_table_append(t, row);
  if (rc) ctx->metadata_keys.len--;
  assert(rc || ctx->metadata_keys.len == t->row_count);
  return rc;
}

static uint64_t ctx_metadata_hash(string_id name, int64_t machine, int64_t trace) {
  return base_hash_u64((uint64_t)name ^ base_hash_u64((uint64_t)machine) ^
                       base_hash_u64((uint64_t)trace << 1)) >> 1;
}

static int ctx_metadata_same(const storage_table *t, size_t i, string_id name,
                             int64_t machine, int64_t trace) {
  return storage_get_str(t, METADATA_name, i) == name &&
         storage_get_i64_or(t, METADATA_machine_id, i, -1) == machine &&
         storage_get_i64_or(t, METADATA_trace_id, i, -1) == trace;
}

/* The index slot of a single key's scope: *slot holds its row, or was just
 * inserted holding `new_row` (returns 1 then). */
static int ctx_metadata_slot(trace_context *ctx, string_id name, int64_t machine,
                             int64_t trace, uint64_t new_row, uint64_t **slot) {
  const storage_table *t = ctx_table(ctx, TABLE_METADATA);
  /* probing past hash collisions */
  for (uint64_t key = ctx_metadata_hash(name, machine, trace);;
       key = (key + 1) & (UINT64_MAX >> 1)) {
    int inserted = base_map_insert(&ctx->metadata_index, key, new_row, slot);
    if (inserted < 0) return WEFT_ENOMEM;
    if (inserted) return 1;
    if (ctx_metadata_same(t, (size_t)**slot, name, machine, trace)) return 0;
  }
}

static int ctx_metadata_row(trace_context *ctx, const char *name,
                            int64_t machine, int64_t trace, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  string_id name_id, single;
  int rc = ctx_intern(ctx, name, strlen(name), &name_id);
  if (!rc) rc = ctx_intern(ctx, "single", 6, &single);
  if (rc) return rc;
  /* A single key is replaced in place when set again for the same scope. */
  uint64_t *slot;
  int inserted = ctx_metadata_slot(ctx, name_id, machine, trace, t->row_count, &slot);
  if (inserted < 0) return inserted;
  if (!inserted) {
    *row = (uint32_t)*slot;
    return WEFT_OK;
  }
  rc = ctx_metadata_append(ctx, name_id, row);
  if (rc) return rc;
  assert(*row == *slot);
  ctx_metadata_fill(t, *row, name_id, single, machine, trace);
  return WEFT_OK;
}

/* A new row of `key_type` ("multi" or "single"), never one set before: a
 * multi key's rows accumulate, and so do a dynamic key's (see
 * ctx_metadata_dynamic_int). */
static int ctx_metadata_new_row(trace_context *ctx, const char *name, const char *key_type,
                                int64_t machine, int64_t trace, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  string_id name_id, type_id;
  int rc = ctx_intern(ctx, name, strlen(name), &name_id);
  if (!rc) rc = ctx_intern(ctx, key_type, strlen(key_type), &type_id);
  if (!rc) rc = ctx_metadata_append(ctx, name_id, row);
  if (!rc) ctx_metadata_fill(t, *row, name_id, type_id, machine, trace);
  return rc;
}

static int ctx_metadata_multi_row(trace_context *ctx, const char *name,
                                  int64_t machine, int64_t trace, uint32_t *row) {
  return ctx_metadata_new_row(ctx, name, "multi", machine, trace, row);
}

int ctx_metadata_add_int(trace_context *ctx, const char *name, int64_t value,
                         int64_t machine, int64_t trace) {
  uint32_t row;
  int rc = ctx_metadata_multi_row(ctx, name, machine, trace, &row);
  if (!rc) storage_set_i64(ctx_table(ctx, TABLE_METADATA), METADATA_int_value, row, value);
  return rc;
}

int ctx_metadata_add_str(trace_context *ctx, const char *name, const char *value,
                         int64_t machine, int64_t trace) {
  uint32_t row;
  string_id id;
  int rc = ctx_intern(ctx, value, strlen(value), &id);
  if (!rc) rc = ctx_metadata_multi_row(ctx, name, machine, trace, &row);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_METADATA), METADATA_str_value, row, id);
  return rc;
}

/* The row a set writes: the scope's row of `name` (made on first use), or
 * for a dynamic key a new single-key row per value, as Perfetto inserts one
 * per SetDynamicMetadata. */
static int ctx_metadata_set_row(trace_context *ctx, const char *name, int64_t machine,
                                int64_t trace, int dynamic, uint32_t *row) {
  return dynamic ? ctx_metadata_new_row(ctx, name, "single", machine, trace, row)
                 : ctx_metadata_row(ctx, name, machine, trace, row);
}

/* A value set replaces the row's value: the other value column is cleared. */
static int ctx_metadata_put_int(trace_context *ctx, const char *name, int64_t value,
                                int64_t machine, int64_t trace, int dynamic) {
  uint32_t row;
  int rc = ctx_metadata_set_row(ctx, name, machine, trace, dynamic, &row);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  storage_set_null(t, METADATA_str_value, row);
  storage_set_i64(t, METADATA_int_value, row, value);
  return WEFT_OK;
}

static int ctx_metadata_put_str(trace_context *ctx, const char *name, const char *value,
                                int64_t machine, int64_t trace, int dynamic) {
  uint32_t row;
  string_id v = STRING_NULL;
  int rc = value ? ctx_intern(ctx, value, strlen(value), &v) : WEFT_OK;
  if (!rc) rc = ctx_metadata_set_row(ctx, name, machine, trace, dynamic, &row);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  storage_set_null(t, METADATA_int_value, row);
  storage_set_str(t, METADATA_str_value, row, v);
  return WEFT_OK;
}

int ctx_metadata_set_int(trace_context *ctx, const char *name, int64_t value,
                         int64_t machine, int64_t trace) {
  return ctx_metadata_put_int(ctx, name, value, machine, trace, 0);
}

int ctx_metadata_set_str(trace_context *ctx, const char *name,
                         const char *value, int64_t machine, int64_t trace) {
  return ctx_metadata_put_str(ctx, name, value, machine, trace, 0);
}

int ctx_metadata_dynamic_int(trace_context *ctx, const char *name, int64_t value,
                             int64_t machine, int64_t trace) {
  return ctx_metadata_put_int(ctx, name, value, machine, trace, 1);
}

int ctx_metadata_dynamic_str(trace_context *ctx, const char *name, const char *value,
                             int64_t machine, int64_t trace) {
  return ctx_metadata_put_str(ctx, name, value, machine, trace, 1);
}

int ctx_metadata_has(trace_context *ctx, const char *name) {
  const storage_table *t = ctx_table(ctx, TABLE_METADATA);
  size_t len = strlen(name);
  for (size_t row = 0; row < t->row_count; row++) {
    string_id id = storage_get_str(t, METADATA_name, row);
    if (base_string_pool_len(&ctx->strings, id) == len &&
        memcmp(base_string_pool_get(&ctx->strings, id), name, len) == 0)
      return 1;
  }
  return 0;
}

/* ---- a file's own rows ---- */

int ctx_metadata_file_type(trace_context *ctx, int64_t trace_id, const char *type) {
  uint64_t saved = ctx_metadata_at_file(ctx, trace_id, 0);
  int rc = ctx_metadata_set_str(ctx, "trace_type", type, -1, trace_id);
  ctx_metadata_at(ctx, saved);
  return rc;
}

int ctx_metadata_file_size(trace_context *ctx, int64_t trace_id, uint64_t size) {
  uint64_t saved = ctx->metadata_pos;
  ctx->metadata_pos = metadata_key(CTX_METADATA_END,
                                   META_MAJOR_MAX - metadata_file_order(ctx, trace_id), 0);
  int rc = ctx_metadata_set_int(ctx, "trace_size_bytes", (int64_t)size, -1, trace_id);
  ctx_metadata_at(ctx, saved);
  return rc;
}

int ctx_metadata_trace_time(trace_context *ctx, uint64_t clock_id) {
  if (ctx->trace_time_row != CTX_TRACE_TIME_ROW_OPEN) return WEFT_OK;
  ctx->trace_time_row = CTX_TRACE_TIME_ROW_WRITTEN;
  return ctx_metadata_set_int(ctx, "trace_time_clock_id", (int64_t)clock_id, -1, -1);
}

void ctx_metadata_trace_time_used(trace_context *ctx) {
  if (ctx->trace_time_row == CTX_TRACE_TIME_ROW_OPEN)
    ctx->trace_time_row = CTX_TRACE_TIME_ROW_CLOSED;
}

/* ---- sorting the rows ---- */

typedef struct metadata_row {
  uint64_t key;
  uint32_t row;
} metadata_row;

static int metadata_row_cmp(const void *a, const void *b) {
  const metadata_row *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->row > y->row) - (x->row < y->row);
}

/* The values of one row, while the table is rewritten. */
typedef struct metadata_values {
  string_id name, key_type, str;
  int64_t value, machine, trace;
  uint8_t has_value;
} metadata_values;

static void metadata_read(const storage_table *t, size_t i, metadata_values *v) {
  v->name = storage_get_str(t, METADATA_name, i);
  v->key_type = storage_get_str(t, METADATA_key_type, i);
  v->str = storage_get_str(t, METADATA_str_value, i);
  v->has_value = !storage_is_null(t, METADATA_int_value, i);
  v->value = v->has_value ? storage_get_i64(t, METADATA_int_value, i) : 0;
  v->machine = storage_get_i64_or(t, METADATA_machine_id, i, -1);
  v->trace = storage_get_i64_or(t, METADATA_trace_id, i, -1);
}

static int metadata_write(trace_context *ctx, const metadata_values *v) {
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  ctx_metadata_fill(t, row, v->name, v->key_type, v->machine, v->trace);
  if (v->str != STRING_NULL) storage_set_str(t, METADATA_str_value, row, v->str);
  if (v->has_value) storage_set_i64(t, METADATA_int_value, row, v->value);
  if (strcmp(base_string_pool_get(&ctx->strings, v->key_type), "single") != 0)
    return WEFT_OK;
  uint64_t *slot;
  int inserted = ctx_metadata_slot(ctx, v->name, v->machine, v->trace, row, &slot);
  return inserted < 0 ? inserted : WEFT_OK;
}

/* Rewrites the table in key order (it holds tens of rows). */
static int metadata_rewrite(trace_context *ctx, const metadata_row *order, size_t n) {
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  metadata_values *values = base_malloc(n * sizeof *values);
  if (!values) return WEFT_ENOMEM;
  for (size_t i = 0; i < n; i++) metadata_read(t, order[i].row, &values[i]);
  storage_table_clear(t);
  base_map_free(&ctx->metadata_index);
  memset(&ctx->metadata_index, 0, sizeof ctx->metadata_index);
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    rc = metadata_write(ctx, &values[i]);
    ctx->metadata_keys.data[i] = order[i].key;
  }
  base_free(values);
  return rc;
}

int ctx_metadata_sort(trace_context *ctx) {
  size_t n = ctx->metadata_keys.len;
  assert(n == ctx_table(ctx, TABLE_METADATA)->row_count);
  int sorted = 1;
  for (size_t i = 1; sorted && i < n; i++)
    sorted = ctx->metadata_keys.data[i - 1] <= ctx->metadata_keys.data[i];
  if (sorted) return WEFT_OK;
  metadata_row *order = base_malloc(n * sizeof *order);
  if (!order) return WEFT_ENOMEM;
  for (size_t i = 0; i < n; i++) order[i] = (metadata_row){ctx->metadata_keys.data[i], (uint32_t)i};
  base_qsort(order, n, sizeof *order, metadata_row_cmp);
  int rc = metadata_rewrite(ctx, order, n);
  base_free(order);
  return rc;
}
