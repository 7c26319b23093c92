/* Trace bounds and clock conversions: trace_start(), trace_end(),
 * trace_dur(), and to_realtime / to_monotonic / abs_time_str of a trace
 * timestamp.
 *
 * Conversions follow Perfetto's rule over the clock_snapshot table: the
 * snapshots of the target clock, keyed by trace time (the first row of a
 * repeated trace time wins), give the clock's value at the first snapshot
 * at or after `ts`; between two snapshots the earlier one's value plus the
 * elapsed time, capped by the later one's value (a clock never appears to
 * go back); past the last one, its value plus the elapsed time. A time at
 * or before the first snapshot gets the first snapshot's value. NULL when
 * the trace has no snapshot of that clock. Snapshots of the host machine
 * (machine_id 0 or NULL) are used when there are any. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sql/functions_prelude.h"

#define CLOCK_REALTIME_ID 1  /* BUILTIN_CLOCK_REALTIME */
#define CLOCK_MONOTONIC_ID 3 /* BUILTIN_CLOCK_MONOTONIC */

typedef struct clock_point {
  int64_t ts, value;
  size_t row;
} clock_point;

typedef struct clock_timeline {
  clock_point *points; /* sorted by ts, one per ts */
  size_t count;
} clock_timeline;

typedef struct clock_functions {
  sql_engine *engine;
  size_t rows_seen; /* clock_snapshot's row count when built; SIZE_MAX: never */
  clock_timeline real, mono;
} clock_functions;

static void clock_functions_free(void *p) {
  clock_functions *c = p;
  if (!c) return;
  base_free(c->real.points);
  base_free(c->mono.points);
  base_free(c);
}

static int clock_point_cmp(const void *a, const void *b) {
  const clock_point *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;
}

/* Whether row is a snapshot of clock_id on the wanted machines. */
static int clock_row_wanted(const storage_table *t, const int *col, size_t row,
                            int64_t clock_id, int host_only) {
  if (storage_get_i64(t, (size_t)col[1], row) != clock_id) return 0;
  return !host_only || storage_get_i64_or(t, (size_t)col[3], row, 0) == 0;
}

/* Fills `tl` with clock_id's snapshots; 0, or WEFT_ENOMEM. */
static int clock_timeline_build(clock_timeline *tl, const storage_table *t,
                                const int *col, int64_t clock_id) {
  size_t host = 0;
  for (size_t r = 0; r < t->row_count; r++)
    host += (size_t)clock_row_wanted(t, col, r, clock_id, 1);
  base_free(tl->points);
  tl->count = 0;
  tl->points = base_calloc(t->row_count ? t->row_count : 1, sizeof *tl->points);
  if (!tl->points) return WEFT_ENOMEM;
  for (size_t r = 0; r < t->row_count; r++) {
    if (!clock_row_wanted(t, col, r, clock_id, host > 0)) continue;
    tl->points[tl->count++] = (clock_point){storage_get_i64(t, (size_t)col[0], r),
                                            storage_get_i64(t, (size_t)col[2], r), r};
  }
  base_qsort(tl->points, tl->count, sizeof *tl->points, clock_point_cmp);
  size_t kept = 0;
  for (size_t i = 0; i < tl->count; i++)
    if (!kept || tl->points[kept - 1].ts != tl->points[i].ts) tl->points[kept++] = tl->points[i];
  tl->count = kept;
  return WEFT_OK;
}

/* The timelines, built on first use; NULL if the table is missing or on
 * allocation failure (*nomem set). */
static clock_functions *clock_prepare(sqlite3_context *ctx, int *nomem) {
  clock_functions *c = sqlite3_user_data(ctx);
  storage_table *t = sql_engine_find_table(c->engine, "__intrinsic_clock_snapshot");
  *nomem = 0;
  if (!t) return NULL;
  if (c->rows_seen == t->row_count) return c;
  int col[4] = {storage_table_find_column(t, "ts"), storage_table_find_column(t, "clock_id"),
                storage_table_find_column(t, "clock_value"),
                storage_table_find_column(t, "machine_id")};
  if (col[0] < 0 || col[1] < 0 || col[2] < 0 || col[3] < 0) return NULL;
  if (clock_timeline_build(&c->real, t, col, CLOCK_REALTIME_ID) ||
      clock_timeline_build(&c->mono, t, col, CLOCK_MONOTONIC_ID)) {
    c->rows_seen = SIZE_MAX;
    *nomem = 1;
    return NULL;
  }
  c->rows_seen = t->row_count;
  return c;
}

/* Converts ts on the timeline; 0 when the clock has no snapshot. */
static int clock_convert(const clock_timeline *tl, int64_t ts, int64_t *out) {
  if (!tl->count) return 0;
  size_t lo = 0, hi = tl->count; /* first point with ts >= the query */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (tl->points[mid].ts < ts) lo = mid + 1;
    else hi = mid;
  }
  if (lo == tl->count) {
    const clock_point *last = &tl->points[tl->count - 1];
    *out = last->value + (ts - last->ts);
  } else if (lo == 0 || tl->points[lo].ts == ts) {
    *out = tl->points[lo].value;
  } else {
    const clock_point *prev = &tl->points[lo - 1];
    int64_t v = prev->value + (ts - prev->ts);
    *out = v < tl->points[lo].value ? v : tl->points[lo].value;
  }
  return 1;
}

/* Reads the timestamp argument of function `name`: 1 and *ts when it is an
 * integer; 0 when NULL or after reporting a wrong type. */
static int clock_ts_arg(sqlite3_context *ctx, sqlite3_value *v, const char *name,
                        int64_t *ts) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return 0;
  if (type != SQLITE_INTEGER) {
    char buf[96];
    snprintf(buf, sizeof buf, "%s: first argument should be timestamp", name);
    sqlite3_result_error(ctx, buf, -1);
    return 0;
  }
  *ts = sqlite3_value_int64(v);
  return 1;
}

/* The converted time into *out: 1, or 0 (NULL result or error set). */
static int clock_to(sqlite3_context *ctx, sqlite3_value *v, const char *name,
                    int realtime, int64_t *out) {
  int64_t ts;
  if (!clock_ts_arg(ctx, v, name, &ts)) return 0;
  int nomem;
  clock_functions *c = clock_prepare(ctx, &nomem);
  if (nomem) sqlite3_result_error_nomem(ctx);
  if (!c) return 0;
  return clock_convert(realtime ? &c->real : &c->mono, ts, out);
}

static void clock_fn_to_realtime(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int64_t out;
  if (clock_to(ctx, argv[0], "TO_REALTIME", 1, &out)) sqlite3_result_int64(ctx, out);
}

static void clock_fn_to_monotonic(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int64_t out;
  if (clock_to(ctx, argv[0], "TO_MONOTONIC", 0, &out)) sqlite3_result_int64(ctx, out);
}

/* abs_time_str(ts): the realtime of ts as "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn"
 * (UTC, no zone suffix). */
static void clock_fn_abs_time_str(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int64_t real;
  if (!clock_to(ctx, argv[0], "ABS_TIME_STR", 1, &real)) return;
  time_t secs = (time_t)(real / 1000000000);
  int64_t ns = real % 1000000000;
  struct tm tm;
  if (!gmtime_r(&secs, &tm)) return;
  char buf[96];
  int n = snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64,
                   tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                   tm.tm_sec, ns);
  sqlite3_result_text(ctx, buf, n, SQLITE_TRANSIENT);
}

/* trace_bounds' start_ts (which 0) / end_ts (1), or their difference (2). */
static void clock_bounds(sqlite3_context *ctx, int which) {
  clock_functions *c = sqlite3_user_data(ctx);
  storage_table *t = sql_engine_find_table(c->engine, "trace_bounds");
  if (!t || !t->row_count) return;
  int start_col = storage_table_find_column(t, "start_ts");
  int end_col = storage_table_find_column(t, "end_ts");
  if (start_col < 0 || end_col < 0) return;
  int64_t start = storage_get_i64(t, (size_t)start_col, 0);
  int64_t end = storage_get_i64(t, (size_t)end_col, 0);
  sqlite3_result_int64(ctx, which == 0 ? start : which == 1 ? end : end - start);
}

static void clock_fn_trace_start(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  clock_bounds(ctx, 0);
}

static void clock_fn_trace_end(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  clock_bounds(ctx, 1);
}

static void clock_fn_trace_dur(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  clock_bounds(ctx, 2);
}

int sql_clock_functions_register(sqlite3 *db, sql_engine *e) {
  static const struct {
    const char *name;
    int args;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
  } fns[] = {{"to_realtime", 1, clock_fn_to_realtime},
             {"to_monotonic", 1, clock_fn_to_monotonic},
             {"abs_time_str", 1, clock_fn_abs_time_str},
             {"trace_start", 0, clock_fn_trace_start},
             {"trace_end", 0, clock_fn_trace_end},
             {"trace_dur", 0, clock_fn_trace_dur}};
  clock_functions *c = base_calloc(1, sizeof *c);
  if (!c) return WEFT_ENOMEM;
  c->engine = e;
  c->rows_seen = SIZE_MAX;
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++) {
    /* The first registration owns c: SQLite frees it with the function
     * (also when registering fails). */
    int rc = sqlite3_create_function_v2(db, fns[i].name, fns[i].args,
                                        SQLITE_UTF8 | SQLITE_DETERMINISTIC, c, fns[i].fn,
                                        NULL, NULL, i == 0 ? clock_functions_free : NULL);
    if (rc != SQLITE_OK) return WEFT_ESQL;
  }
  return WEFT_OK;
}
