/* The _trace_import_logs rows (see import_log.h). */
#include "model/import_log.h"

#include <string.h>

#include "model/context.h"

static int import_log_intern(trace_context *ctx, const char *s, string_id *out) {
  return ctx_intern(ctx, s, strlen(s), out);
}

/* A log row; ts and byte_offset -1 when unknown. */
static int import_log_row(trace_context *ctx, int64_t trace, int64_t ts, int64_t byte_offset,
                          stats_id stat, int64_t arg_set) {
  storage_table *t = ctx_table(ctx, TABLE_TRACE_IMPORT_LOGS);
  const stats_info *info = &stats_infos[stat];
  string_id name, severity;
  uint32_t row;
  int rc = import_log_intern(ctx, info->name, &name);
  if (!rc) rc = import_log_intern(ctx, stats_severity_name(info->severity), &severity);
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  if (trace >= 0) storage_set_i64(t, TRACE_IMPORT_LOGS_trace_id, row, trace);
  if (ts >= 0) storage_set_i64(t, TRACE_IMPORT_LOGS_ts, row, ts);
  if (byte_offset >= 0) storage_set_i64(t, TRACE_IMPORT_LOGS_byte_offset, row, byte_offset);
  storage_set_str(t, TRACE_IMPORT_LOGS_severity, row, severity);
  storage_set_str(t, TRACE_IMPORT_LOGS_name, row, name);
  if (arg_set >= 0) storage_set_i64(t, TRACE_IMPORT_LOGS_arg_set_id, row, arg_set);
  return WEFT_OK;
}

int model_import_log(trace_context *ctx, int64_t trace, int64_t ts, stats_id stat,
                     int64_t arg_set) {
  return import_log_row(ctx, trace, ts, -1, stat, arg_set);
}

int model_import_log_at_byte(trace_context *ctx, int64_t trace, int64_t byte_offset,
                             stats_id stat, int64_t arg_set) {
  return import_log_row(ctx, trace, -1, byte_offset, stat, arg_set);
}
