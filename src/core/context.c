/* The trace context: set-up, tear-down and small shared helpers. */
#include "core/context.h"

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

void ctx_mark_processed(trace_context *ctx, uint32_t trace_file_id) {
  storage_set_i64(ctx_table(ctx, TABLE_TRACE_FILE),
                  TRACE_FILE_processing_order, trace_file_id,
                  ctx->next_processing_order++);
}

static int ctx_metadata_row(trace_context *ctx, const char *name,
                            int64_t machine, int64_t trace, uint32_t *row) {
  storage_table *t = ctx_table(ctx, TABLE_METADATA);
  string_id name_id, single;
  int rc = ctx_intern(ctx, name, strlen(name), &name_id);
  if (!rc) rc = ctx_intern(ctx, "single", 6, &single);
  if (rc) return rc;
  /* A single key is replaced in place when set again for the same scope. */
  for (size_t i = 0; i < t->row_count; i++) {
    if (storage_str(t, METADATA_name)[i] == name_id &&
        storage_get_i64_or(t, METADATA_machine_id, i, -1) == machine &&
        storage_get_i64_or(t, METADATA_trace_id, i, -1) == trace) {
      *row = (uint32_t)i;
      return WEFT_OK;
    }
  }
  rc = storage_table_append(t, row);
  if (rc) return rc;
  storage_set_str(t, METADATA_name, *row, name_id);
  storage_set_str(t, METADATA_key_type, *row, single);
  if (machine >= 0) storage_set_i64(t, METADATA_machine_id, *row, machine);
  if (trace >= 0) storage_set_i64(t, METADATA_trace_id, *row, trace);
  return WEFT_OK;
}

int ctx_metadata_set_int(trace_context *ctx, const char *name, int64_t value,
                         int64_t machine, int64_t trace) {
  uint32_t row;
  int rc = ctx_metadata_row(ctx, name, machine, trace, &row);
  if (!rc) storage_set_i64(ctx_table(ctx, TABLE_METADATA), METADATA_int_value, row, value);
  return rc;
}

int ctx_metadata_set_str(trace_context *ctx, const char *name,
                         const char *value, int64_t machine, int64_t trace) {
  uint32_t row;
  string_id v;
  int rc = ctx_intern(ctx, value, strlen(value), &v);
  if (!rc) rc = ctx_metadata_row(ctx, name, machine, trace, &row);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_METADATA), METADATA_str_value, row, v);
  return rc;
}

static int ctx_stats_row(trace_context *ctx, stats_id stat, int64_t index,
                         int64_t machine, int64_t trace, int64_t value) {
  storage_table *t = ctx_table(ctx, TABLE_STATS);
  const stats_info *info = &stats_infos[stat];
  string_id name, severity, source, description;
  const char *sev = stats_severity_name(info->severity);
  const char *src = stats_source_name(info->source);
  int rc = ctx_intern(ctx, info->name, strlen(info->name), &name);
  if (!rc) rc = ctx_intern(ctx, sev, strlen(sev), &severity);
  if (!rc) rc = ctx_intern(ctx, src, strlen(src), &source);
  if (!rc) rc = ctx_intern(ctx, info->description, strlen(info->description), &description);
  uint32_t row;
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_str(t, STATS_name, row, name);
  if (index >= 0) storage_set_i64(t, STATS_idx, row, index);
  storage_set_str(t, STATS_severity, row, severity);
  storage_set_str(t, STATS_source, row, source);
  storage_set_i64(t, STATS_value, row, value);
  storage_set_str(t, STATS_description, row, description);
  if (machine >= 0) storage_set_i64(t, STATS_machine_id, row, machine);
  if (trace >= 0) storage_set_i64(t, STATS_trace_id, row, trace);
  return WEFT_OK;
}

/* stats: every single stat once with its global value (0 if never hit), then
 * every scoped or indexed value that was recorded, in first-touch order. */
static int ctx_fill_stats(trace_context *ctx) {
  storage_table_clear(ctx_table(ctx, TABLE_STATS));
  for (int s = 0; s < STATS_COUNT; s++) {
    if (stats_infos[s].kind != STATS_SINGLE) continue;
    int64_t value = 0;
    int scoped = 0;
    for (size_t i = 0; i < ctx->stats.entries.len; i++) {
      const stats_entry *e = &ctx->stats.entries.data[i];
      if (e->stat != (stats_id)s) continue;
      if (e->machine < 0 && e->trace < 0) value += e->value;
      else scoped = 1;
    }
    if (!scoped || value) {
      int rc = ctx_stats_row(ctx, (stats_id)s, -1, -1, -1, value);
      if (rc) return rc;
    }
  }
  for (size_t i = 0; i < ctx->stats.entries.len; i++) {
    const stats_entry *e = &ctx->stats.entries.data[i];
    if (stats_infos[e->stat].kind == STATS_SINGLE && e->machine < 0 && e->trace < 0)
      continue;
    int rc = ctx_stats_row(ctx, e->stat, e->index, e->machine, e->trace, e->value);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int ctx_finalize_tables(trace_context *ctx) {
  storage_table *b = ctx_table(ctx, TABLE_TRACE_BOUNDS);
  storage_table_clear(b);
  uint32_t row;
  int rc = storage_table_append(b, &row);
  if (rc) return rc;
  storage_set_i64(b, TRACE_BOUNDS_start_ts, row, ctx->has_bounds ? ctx->bounds_start : 0);
  storage_set_i64(b, TRACE_BOUNDS_end_ts, row, ctx->has_bounds ? ctx->bounds_end : 0);
  return ctx_fill_stats(ctx);
}
