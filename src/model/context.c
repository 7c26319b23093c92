/* The trace context: set-up, tear-down and small shared helpers. */
#include "model/context.h"
#include "model/kcounter.h"
#include "model/proto_content.h"
#include "model/logs.h"
#include "model/v8_profile.h"
#include "model/model.h"

#include <assert.h>

int trace_context_init(trace_context *ctx, const weft_options *opts) {
  memset(ctx, 0, sizeof *ctx);
  ctx->options = *opts;
  int rc = base_string_pool_init(&ctx->strings);
  for (int i = 0; rc == 0 && i < TABLE_COUNT; i++)
    rc = storage_table_init(&ctx->tables[i], schema_tables[i].name,
                            schema_tables[i].columns,
                            schema_tables[i].column_count);
  stats_store_init(&ctx->stats);
  if (rc == 0)
    rc = machine_registry_init(&ctx->machines, &ctx->tables[TABLE_MACHINE],
                               &ctx->strings);
  if (rc == 0) rc = model_init(ctx);
  return rc;
}

void trace_context_free(trace_context *ctx) {
  base_map_free(&ctx->metadata_index);
  VEC_FREE(ctx->metadata_keys);
  model_free(&ctx->model);
  machine_registry_free(&ctx->machines);
  stats_store_free(&ctx->stats);
  for (int i = 0; i < TABLE_COUNT; i++) storage_table_free(&ctx->tables[i]);
  base_string_pool_free(&ctx->strings);
}

int ctx_intern(trace_context *ctx, const char *s, size_t len, string_id *out) {
  if (!s) {
    *out = STRING_NULL;
    return WEFT_OK;
  }
  return base_string_pool_intern(&ctx->strings, s, len, out);
}

void ctx_extend_bounds(trace_context *ctx, int64_t ts) {
  if (!ctx->has_bounds) {
    ctx->bounds_start = ctx->bounds_end = ts;
    ctx->has_bounds = 1;
    return;
  }
  if (ts < ctx->bounds_start) ctx->bounds_start = ts;
  if (ts > ctx->bounds_end) ctx->bounds_end = ts;
}

int ctx_add_trace_file(trace_context *ctx, int64_t parent, const char *name,
                       uint64_t size, const char *trace_type, uint32_t *id) {
  storage_table *t = ctx_table(ctx, TABLE_TRACE_FILE);
  string_id name_id, type_id;
  int rc = ctx_intern(ctx, name, name ? strlen(name) : 0, &name_id);
  if (!rc) rc = ctx_intern(ctx, trace_type, strlen(trace_type), &type_id);
  if (!rc) rc = storage_table_append(t, id);
  if (rc) return rc;
  if (parent >= 0) storage_set_i64(t, TRACE_FILE_parent_id, *id, parent);
  storage_set_str(t, TRACE_FILE_name, *id, name_id);
  storage_set_i64(t, TRACE_FILE_size, *id, (int64_t)size);
  storage_set_str(t, TRACE_FILE_trace_type, *id, type_id);
  return WEFT_OK;
}

int ctx_set_trace_file_type(trace_context *ctx, uint32_t id, const char *trace_type) {
  string_id type_id;
  int rc = ctx_intern(ctx, trace_type, strlen(trace_type), &type_id);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_TRACE_FILE), TRACE_FILE_trace_type, id, type_id);
  return rc;
}

void ctx_mark_processed(trace_context *ctx, uint32_t trace_file_id) {
  storage_set_i64(ctx_table(ctx, TABLE_TRACE_FILE),
                  TRACE_FILE_processing_order, trace_file_id,
                  ctx->next_processing_order++);
}

/* The strings every stats row shares: severity and source names. */
typedef struct ctx_stats_strings {
  string_id severity[STATS_ERROR + 1];
  string_id source[STATS_ANALYSIS + 1];
} ctx_stats_strings;

static int ctx_stats_strings_intern(trace_context *ctx, ctx_stats_strings *s) {
  int rc = WEFT_OK;
  for (int i = 0; !rc && i <= STATS_ERROR; i++) {
    const char *name = stats_severity_name((stats_severity)i);
    rc = ctx_intern(ctx, name, strlen(name), &s->severity[i]);
  }
  for (int i = 0; !rc && i <= STATS_ANALYSIS; i++) {
    const char *name = stats_source_name((stats_source)i);
    rc = ctx_intern(ctx, name, strlen(name), &s->source[i]);
  }
  return rc;
}

static int ctx_stats_row(trace_context *ctx, const ctx_stats_strings *strings,
                         const stats_entry *e) {
  storage_table *t = ctx_table(ctx, TABLE_STATS);
  const stats_info *info = &stats_infos[e->stat];
  string_id name, description;
  int rc = ctx_intern(ctx, info->name, strlen(info->name), &name);
  if (!rc) rc = ctx_intern(ctx, info->description, strlen(info->description), &description);
  uint32_t row;
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_str(t, STATS_name, row, name);
  storage_set_i64(t, STATS_key, row, (int64_t)e->stat); /* Perfetto's enum index */
  if (e->index >= 0) storage_set_i64(t, STATS_idx, row, e->index);
  storage_set_str(t, STATS_severity, row, strings->severity[info->severity]);
  storage_set_str(t, STATS_source, row, strings->source[info->source]);
  storage_set_i64(t, STATS_value, row, e->value);
  storage_set_str(t, STATS_description, row, description);
  if (e->machine >= 0) storage_set_i64(t, STATS_machine_id, row, e->machine);
  if (e->trace >= 0) storage_set_i64(t, STATS_trace_id, row, e->trace);
  return WEFT_OK;
}

/* Which bucket a single stat's value goes to: `scopes` for the global row
 * (a global stat, or no scope declared), the declared scope's index, 0 for an
 * unscoped per-trace value, or -1 for an undeclared scope (its own row). */
static int64_t ctx_stats_bucket(const stats_store *st, const stats_entry *e) {
  size_t n = st->scopes.len;
  if (stats_is_global(e->stat) || n == 0) return (int64_t)n;
  if (e->machine < 0 && e->trace < 0) return 0;
  if (e->machine < 0 || e->trace < 0) return -1;
  uint64_t *found = base_map_find(&st->scope_lookup,
                                  (uint64_t)e->machine << 32 | (uint64_t)e->trace);
  return found ? (int64_t)*found : -1;
}

static int ctx_stats_single_rows(trace_context *ctx, const ctx_stats_strings *strings,
                                 const int64_t *values, int64_t machine, int64_t trace,
                                 bool global) {
  int rc = WEFT_OK;
  for (int s = 0; !rc && s < STATS_COUNT; s++) {
    if (stats_infos[s].kind != STATS_SINGLE || stats_is_global((stats_id)s) != global)
      continue;
    stats_entry e = {(stats_id)s, -1, machine, trace, values[s]};
    rc = ctx_stats_row(ctx, strings, &e);
  }
  return rc;
}

/* stats, as Perfetto lists them: the global stats once (summed over every
 * scope); then for each declared (machine, trace file), in declaration order,
 * every other single stat (0 if never hit; a value recorded without scope
 * counts for the first); then every indexed value and any single value of an
 * undeclared scope, in first-touch order. With no scope declared, every
 * single stat is listed once, unscoped. */
int ctx_fill_stats(trace_context *ctx) {
  if (ctx->stats_filled) return WEFT_OK;
  const stats_store *st = &ctx->stats;
  size_t n = st->scopes.len;
  storage_table *t = ctx_table(ctx, TABLE_STATS);
  storage_table_clear(t);
  int64_t *values = base_calloc((n + 1) * STATS_COUNT, sizeof *values);
  if (!values) return WEFT_ENOMEM;
  for (size_t i = 0; i < st->entries.len; i++) {
    const stats_entry *e = &st->entries.data[i];
    int64_t bucket = stats_infos[e->stat].kind == STATS_SINGLE ? ctx_stats_bucket(st, e) : -1;
    if (bucket >= 0) values[(size_t)bucket * STATS_COUNT + e->stat] += e->value;
  }
  ctx_stats_strings strings;
  int rc = ctx_stats_strings_intern(ctx, &strings);
  if (!rc) rc = storage_table_reserve(t, (n + 1) * STATS_COUNT + st->entries.len);
  if (!rc) rc = ctx_stats_single_rows(ctx, &strings, values + n * STATS_COUNT, -1, -1, true);
  if (!rc && n == 0)
    rc = ctx_stats_single_rows(ctx, &strings, values, -1, -1, false);
  for (size_t i = 0; !rc && i < n; i++)
    rc = ctx_stats_single_rows(ctx, &strings, values + i * STATS_COUNT,
                               st->scopes.data[i].machine, st->scopes.data[i].trace, false);
  for (size_t i = 0; !rc && i < st->entries.len; i++) {
    const stats_entry *e = &st->entries.data[i];
    if (stats_infos[e->stat].kind != STATS_SINGLE || ctx_stats_bucket(st, e) < 0)
      rc = ctx_stats_row(ctx, &strings, e);
  }
  base_free(values);
  if (!rc) rc = storage_table_status(t);
  if (rc) storage_table_clear(t);
  ctx->stats_filled = rc == WEFT_OK;
  return rc;
}

int ctx_finalize_tables(trace_context *ctx) {
  storage_table *b = ctx_table(ctx, TABLE_TRACE_BOUNDS);
  storage_table_clear(b);
  uint32_t row;
  /* the proto content annotations' sets come after the open slices' */
  int rc = kcounter_process_memory_resolve(ctx);
  if (!rc) rc = model_args_note_end(ctx);
  if (!rc) rc = proto_content_flush(ctx);
  if (!rc) rc = model_args_finalize(ctx);
  if (!rc) rc = ctx_metadata_sort(ctx);
  if (!rc) rc = model_logs_sort(ctx);
  if (!rc) rc = v8_profile_sort_samples(ctx);
  if (!rc) rc = storage_table_append(b, &row);
  if (rc) return rc;
  storage_set_i64(b, TRACE_BOUNDS_start_ts, row, ctx->has_bounds ? ctx->bounds_start : 0);
  /* A trace whose events all share one timestamp ends one ns after it
   * (Perfetto's bounds are never empty once there is an event). */
  int64_t end = ctx->bounds_end;
  /* Events before trace time 0 (heap dumps placed by their own clock) end
   * the trace at 0 at the earliest, as Perfetto's bounds do. */
  if (ctx->has_bounds && end < 0) end = 0;
  if (ctx->has_bounds && end == ctx->bounds_start && end < INT64_MAX) end++;
  storage_set_i64(b, TRACE_BOUNDS_end_ts, row, ctx->has_bounds ? end : 0);
  /* A setter that could not allocate recorded its error in its table. */
  for (int i = 0; i < TABLE_COUNT; i++) {
    rc = storage_table_status(ctx_table(ctx, (schema_table_id)i));
    if (rc) return rc;
  }
  return WEFT_OK;
}
