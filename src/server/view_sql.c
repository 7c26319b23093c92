/* A query's result as JSON (view_sql.h). */
#include "view_sql.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "view_json.h"

typedef struct view_sql_run {
  rpc_buf *out;
  size_t base;     /* where this result starts in out */
  size_t rows, max_rows;
  int truncated;
  int timed_out;
  uint64_t deadline_ms;
} view_sql_run;

static uint64_t view_sql_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int view_sql_on_columns(void *user, int statement, int n, const char *const *names) {
  (void)statement;
  view_sql_run *r = user;
  r->out->len = r->base; /* a later statement's result replaces an earlier one */
  r->rows = 0;
  r->truncated = 0;
  view_json_add(r->out, "{\"columns\":[");
  for (int i = 0; i < n; i++) {
    if (i) view_json_add(r->out, ",");
    view_json_cstr(r->out, names[i]);
  }
  view_json_add(r->out, "],\"rows\":[");
  return r->out->failed;
}

static int view_sql_on_row(void *user, int statement, int n, const weft_cell *c) {
  (void)statement;
  view_sql_run *r = user;
  if ((r->rows & 255) == 0 && view_sql_now_ms() > r->deadline_ms) {
    r->timed_out = 1;
    return 1;
  }
  if (r->rows >= r->max_rows) {
    r->truncated = 1;
    return 0; /* keep reading: later statements may follow */
  }
  view_json_add(r->out, "%s[", r->rows++ ? "," : "");
  for (int i = 0; i < n; i++) {
    if (i) view_json_add(r->out, ",");
    view_json_cell(r->out, &c[i]);
  }
  view_json_add(r->out, "]");
  return r->out->failed;
}

int view_sql_json(weft *w, const char *sql, size_t max_rows, rpc_buf *out, char *err,
                  size_t err_cap) {
  view_sql_run r = {out, out->len, 0, max_rows, 0, 0, view_sql_now_ms() + VIEW_SQL_MAX_MS};
  weft_query_callbacks cb = {view_sql_on_columns, view_sql_on_row, &r};
  int rc = weft_query(w, sql, &cb);
  if (r.timed_out) {
    snprintf(err, err_cap, "the query ran longer than %u s", VIEW_SQL_MAX_MS / 1000);
    return -1;
  }
  if (out->failed) {
    snprintf(err, err_cap, "the result is too big (bounded to %zu bytes)", out->cap);
    return -1;
  }
  if (rc != WEFT_OK) {
    snprintf(err, err_cap, "%s", weft_errmsg(w));
    return -1;
  }
  if (out->len == r.base) view_json_add(out, "{\"columns\":[],\"rows\":[");
  view_json_add(out, "],\"truncated\":%s}", r.truncated ? "true" : "false");
  return out->failed ? -1 : 0;
}
