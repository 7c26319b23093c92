/* logs: log entries and the packages list (model/logs.h). */
#include "model/logs.h"

#include <string.h>

int model_log(trace_context *ctx, const model_log_entry *e) {
  storage_table *t = ctx_table(ctx, TABLE_LOGS);
  string_id source;
  uint32_t row;
  int rc = ctx_intern(ctx, e->source, strlen(e->source), &source);
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, LOGS_ts, row, e->ts);
  if (e->utid >= 0) storage_set_i64(t, LOGS_utid, row, e->utid);
  storage_set_i64(t, LOGS_prio, row, e->prio);
  storage_set_str(t, LOGS_log_source, row, source);
  storage_set_str(t, LOGS_tag, row, e->tag);
  storage_set_str(t, LOGS_msg, row, e->msg);
  if (e->arg_set >= 0) storage_set_i64(t, LOGS_arg_set_id, row, e->arg_set);
  return WEFT_OK;
}

int model_package_add(trace_context *ctx, const model_package *p) {
  storage_table *t = ctx_table(ctx, TABLE_PACKAGE_LIST);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_str(t, PACKAGE_LIST_package_name, row, p->name);
  if (p->has_uid) storage_set_i64(t, PACKAGE_LIST_uid, row, p->uid);
  if (p->has_debuggable) storage_set_i64(t, PACKAGE_LIST_debuggable, row, p->debuggable);
  if (p->has_profileable)
    storage_set_i64(t, PACKAGE_LIST_profileable_from_shell, row, p->profileable_from_shell);
  if (p->has_version_code)
    storage_set_i64(t, PACKAGE_LIST_version_code, row, p->version_code);
  return WEFT_OK;
}

/* ---- ordering ---- */

/* One row of the logs table, to be put back in order. */
typedef struct model_log_row {
  model_log_entry e;
  string_id source;
  uint32_t row;
} model_log_row;

static int model_log_row_cmp(const void *a, const void *b) {
  const model_log_row *x = a, *y = b;
  if (x->e.ts != y->e.ts) return x->e.ts < y->e.ts ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

static void model_log_row_read(const storage_table *t, uint32_t row, model_log_row *out) {
  out->row = row;
  out->e.ts = storage_get_i64(t, LOGS_ts, row);
  out->e.utid = storage_get_i64_or(t, LOGS_utid, row, -1);
  out->e.prio = storage_get_i64(t, LOGS_prio, row);
  out->source = storage_get_str(t, LOGS_log_source, row);
  out->e.tag = storage_get_str(t, LOGS_tag, row);
  out->e.msg = storage_get_str(t, LOGS_msg, row);
  out->e.arg_set = storage_get_i64_or(t, LOGS_arg_set_id, row, -1);
}

static int model_log_row_write(storage_table *t, const model_log_row *r) {
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, LOGS_ts, row, r->e.ts);
  if (r->e.utid >= 0) storage_set_i64(t, LOGS_utid, row, r->e.utid);
  storage_set_i64(t, LOGS_prio, row, r->e.prio);
  storage_set_str(t, LOGS_log_source, row, r->source);
  storage_set_str(t, LOGS_tag, row, r->e.tag);
  storage_set_str(t, LOGS_msg, row, r->e.msg);
  if (r->e.arg_set >= 0) storage_set_i64(t, LOGS_arg_set_id, row, r->e.arg_set);
  return WEFT_OK;
}

int model_logs_sort(trace_context *ctx) {
  storage_table *t = ctx_table(ctx, TABLE_LOGS);
  size_t n = t->row_count, i = 1;
  while (i < n && storage_get_i64(t, LOGS_ts, i - 1) <= storage_get_i64(t, LOGS_ts, i)) i++;
  if (i >= n) return WEFT_OK; /* already in order */
  model_log_row *rows = base_malloc(n * sizeof *rows);
  if (!rows) return WEFT_ENOMEM;
  for (i = 0; i < n; i++) model_log_row_read(t, (uint32_t)i, &rows[i]);
  base_qsort(rows, n, sizeof *rows, model_log_row_cmp);
  storage_table_clear(t);
  int rc = WEFT_OK;
  for (i = 0; !rc && i < n; i++) rc = model_log_row_write(t, &rows[i]);
  base_free(rows);
  return rc;
}
