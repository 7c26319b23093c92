/* A query's result as JSON (view_sql.h). */
#include "view_sql.h"

#include <errno.h>
#include <pthread.h>
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

/* Interrupts the query on `w` if it runs past VIEW_SQL_MAX_MS, whether or
 * not it returns rows (an aggregate over a huge join returns none until
 * it ends). */
typedef struct view_sql_watchdog {
  weft *w;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t done_cond; /* on CLOCK_MONOTONIC */
  int done;
  int fired;
  int running;
} view_sql_watchdog;

static void *view_sql_watch(void *arg) {
  view_sql_watchdog *d = arg;
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += VIEW_SQL_MAX_MS / 1000;
  until.tv_nsec += (long)(VIEW_SQL_MAX_MS % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&d->lock);
  int rc = 0;
  while (!d->done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&d->done_cond, &d->lock, &until);
  if (!d->done) {
    d->fired = 1;
    weft_interrupt(d->w);
  }
  pthread_mutex_unlock(&d->lock);
  return NULL;
}

static void view_sql_watch_start(view_sql_watchdog *d, weft *w) {
  memset(d, 0, sizeof *d);
  d->w = w;
  pthread_condattr_t attr;
  if (pthread_condattr_init(&attr)) return;
  int ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
           pthread_cond_init(&d->done_cond, &attr) == 0;
  pthread_condattr_destroy(&attr);
  if (!ok) return;
  pthread_mutex_init(&d->lock, NULL);
  d->running = pthread_create(&d->thread, NULL, view_sql_watch, d) == 0;
  if (!d->running) {
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->done_cond);
  }
}

/* Stops the watchdog: whether it interrupted the query. */
static int view_sql_watch_stop(view_sql_watchdog *d) {
  if (!d->running) return 0;
  pthread_mutex_lock(&d->lock);
  d->done = 1;
  pthread_cond_signal(&d->done_cond);
  pthread_mutex_unlock(&d->lock);
  pthread_join(d->thread, NULL);
  pthread_mutex_destroy(&d->lock);
  pthread_cond_destroy(&d->done_cond);
  return d->fired;
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
  view_sql_watchdog watchdog;
  view_sql_watch_start(&watchdog, w);
  int rc = weft_query(w, sql, &cb);
  if (view_sql_watch_stop(&watchdog)) r.timed_out = 1;
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
