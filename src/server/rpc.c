/* The TraceProcessor RPC on one weft instance (rpc.h). */
#include "rpc.h"
#include "rpc_sql.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum rpc_state { RPC_EMPTY, RPC_LOADING, RPC_READY, RPC_FAILED };

/* QueryArgs, StatusResult and AppendTraceDataResult field numbers. */
enum {
  QA_SQL_QUERY = 1,
  SR_LOADED_TRACE_NAME = 1,
  SR_HUMAN_READABLE_VERSION = 2,
  SR_API_VERSION = 3,
  SR_VERSION_CODE = 4,
  AR_ERROR = 2
};

#define RPC_TRACE_FILE_NAME "trace"

static void rpc_set_text(char *dst, size_t cap, const char *text) {
  snprintf(dst, cap, "%s", text && *text ? text : "unknown error");
}

static void rpc_free_initial_objects(rpc_session *s) {
  for (size_t i = 0; i < s->initial_count; i++) free(s->initial_objects[i]);
  free(s->initial_objects);
  s->initial_objects = NULL;
  s->initial_count = 0;
}

static void rpc_drop_instance(rpc_session *s) {
  if (s->w) s->generation++;
  weft_close(s->w);
  s->w = NULL;
  s->state = RPC_EMPTY;
  s->trace_name[0] = '\0';
  rpc_free_initial_objects(s);
}

/* ---- the objects a trace starts with, for restore_initial_tables ---- */

typedef struct rpc_name_list {
  char **names;
  size_t count;
  int failed;
} rpc_name_list;

static int rpc_collect_name(void *user, int statement, int n, const weft_cell *c) {
  (void)statement;
  rpc_name_list *l = user;
  if (n < 1 || c[0].type != WEFT_CELL_STRING) return 0;
  char **grown = realloc(l->names, (l->count + 1) * sizeof *grown);
  char *copy = strndup(c[0].s, c[0].len);
  if (!grown || !copy) {
    if (grown) l->names = grown;
    free(copy);
    l->failed = 1;
    return 1;
  }
  l->names = grown;
  l->names[l->count++] = copy;
  return 0;
}

/* Names of the schema's objects, as "type name" strings. */
static rpc_name_list rpc_schema_objects(weft *w) {
  rpc_name_list l = {0};
  weft_query_callbacks cb = {NULL, rpc_collect_name, &l};
  (void)weft_query(w, "select type || ' ' || name from sqlite_master "
                      "where type in ('table', 'view', 'trigger')", &cb);
  return l;
}

static void rpc_snapshot_objects(rpc_session *s) {
  rpc_free_initial_objects(s);
  rpc_name_list l = rpc_schema_objects(s->w);
  s->initial_objects = l.names;
  s->initial_count = l.count;
}

static int rpc_is_initial(const rpc_session *s, const char *object) {
  for (size_t i = 0; i < s->initial_count; i++)
    if (strcmp(s->initial_objects[i], object) == 0) return 1;
  return 0;
}

void rpc_restore_initial_tables(rpc_session *s) {
  if (s->state != RPC_READY) return;
  rpc_name_list now = rpc_schema_objects(s->w);
  for (size_t i = 0; i < now.count; i++) {
    const char *object = now.names[i];
    const char *space = strchr(object, ' ');
    if (!space || rpc_is_initial(s, object) || strchr(space + 1, '"')) continue;
    char sql[512];
    int n = snprintf(sql, sizeof sql, "drop %.*s if exists \"%s\"",
                     (int)(space - object), object, space + 1);
    if (n > 0 && (size_t)n < sizeof sql) (void)weft_query(s->w, sql, NULL);
  }
  for (size_t i = 0; i < now.count; i++) free(now.names[i]);
  free(now.names);
}

/* ---- session ---- */

void rpc_session_init(rpc_session *s, const weft_options *options,
                      weft *preloaded, const char *name) {
  memset(s, 0, sizeof *s);
  if (options) s->options = *options;
  else weft_options_default(&s->options);
  s->w = preloaded;
  if (preloaded) {
    s->state = RPC_READY;
    rpc_set_text(s->trace_name, sizeof s->trace_name, name);
    rpc_snapshot_objects(s);
  }
}

void rpc_session_free(rpc_session *s) { rpc_drop_instance(s); }

int rpc_session_ready(const rpc_session *s) { return s->state == RPC_READY && s->w; }

void rpc_session_replace(rpc_session *s, weft *loaded, const char *name) {
  rpc_drop_instance(s);
  s->w = loaded;
  s->state = RPC_READY;
  s->load_error[0] = s->parse_error[0] = '\0';
  s->generation++;
  rpc_set_text(s->trace_name, sizeof s->trace_name, name);
  rpc_snapshot_objects(s);
}

void rpc_session_reset(rpc_session *s) {
  rpc_drop_instance(s);
  s->load_error[0] = s->parse_error[0] = '\0';
}

const char *rpc_session_error(const rpc_session *s) {
  return s->state == RPC_FAILED ? s->load_error : NULL;
}

void rpc_parse_begin(rpc_session *s) {
  s->parse_error[0] = '\0';
  if (s->state == RPC_LOADING) return;
  rpc_drop_instance(s);
  s->bytes_parsed = 0;
  if (weft_open(&s->w, &s->options) != WEFT_OK) {
    rpc_parse_fail(s, "cannot create a trace processor instance (out of memory)");
    return;
  }
  if (weft_file_begin(s->w, RPC_TRACE_FILE_NAME) != WEFT_OK) {
    rpc_parse_fail(s, weft_errmsg(s->w));
    return;
  }
  s->state = RPC_LOADING;
}

void rpc_parse_bytes(rpc_session *s, const void *data, size_t len) {
  if (s->state != RPC_LOADING || s->parse_error[0] || len == 0) return;
  if (weft_file_write(s->w, data, len) != WEFT_OK) {
    rpc_parse_fail(s, weft_errmsg(s->w));
    return;
  }
  s->bytes_parsed += len;
}

/* The trace failed to load: it is dropped, queries answer `message`
 * until the next /parse starts a new one. */
static void rpc_load_failed(rpc_session *s, const char *message) {
  char text[sizeof s->load_error];
  rpc_set_text(text, sizeof text, message); /* message may be weft_errmsg */
  rpc_drop_instance(s);
  snprintf(s->load_error, sizeof s->load_error, "%s", text);
  s->state = RPC_FAILED;
}

void rpc_parse_fail(rpc_session *s, const char *message) {
  if (!s->parse_error[0]) rpc_set_text(s->parse_error, sizeof s->parse_error, message);
  rpc_load_failed(s, message);
}

void rpc_parse_reply(rpc_session *s, rpc_buf *out) {
  if (s->parse_error[0]) rpc_buf_field_string(out, AR_ERROR, s->parse_error);
}

void rpc_notify_eof(rpc_session *s) {
  if (s->state != RPC_LOADING) return;
  if (weft_file_end(s->w) != WEFT_OK || weft_load_finish(s->w) != WEFT_OK) {
    rpc_load_failed(s, weft_errmsg(s->w));
    return;
  }
  s->state = RPC_READY;
  snprintf(s->trace_name, sizeof s->trace_name, "Unnamed trace (%llu MB)",
           (unsigned long long)(s->bytes_parsed / (1024 * 1024)));
  rpc_snapshot_objects(s);
}

void rpc_status(rpc_session *s, rpc_buf *out) {
  rpc_buf_field_string(out, SR_LOADED_TRACE_NAME, s->trace_name);
  rpc_buf_field_string(out, SR_HUMAN_READABLE_VERSION, "weft " WEFT_VERSION_STRING);
  rpc_buf_field_varint(out, SR_API_VERSION, RPC_API_VERSION);
  rpc_buf_field_string(out, SR_VERSION_CODE, WEFT_VERSION_STRING);
}

/* ---- queries ---- */

char *rpc_decode_query_args(const uint8_t *body, size_t len, const char **error) {
  const uint8_t *sql = NULL;
  size_t sql_len = 0, pos = 0;
  rpc_field f;
  int more;
  while ((more = rpc_wire_next(body, len, &pos, &f)) > 0) {
    if (f.number != QA_SQL_QUERY) continue;
    if (f.wire_type != RPC_WIRE_BYTES) {
      *error = "malformed QueryArgs: sql_query is not a string";
      return NULL;
    }
    sql = f.data; /* the last one wins, as protobuf merges */
    sql_len = f.len;
  }
  if (more < 0) {
    *error = "malformed QueryArgs: the protobuf is truncated or invalid";
    return NULL;
  }
  if (sql && memchr(sql, '\0', sql_len)) {
    *error = "malformed QueryArgs: sql_query holds a NUL byte";
    return NULL;
  }
  char *text = malloc(sql_len + 1);
  if (!text) {
    *error = "out of memory";
    return NULL;
  }
  if (sql_len) memcpy(text, sql, sql_len);
  text[sql_len] = '\0';
  return text;
}

static int rpc_blank(const char *sql) {
  while (*sql && isspace((unsigned char)*sql)) sql++;
  return *sql == '\0';
}

/* A loaded instance to query: the load still open is finished, and with
 * no trace at all an empty one is made. NULL with *error set on failure. */
static weft *rpc_ready_instance(rpc_session *s, const char **error) {
  if (s->state == RPC_LOADING) rpc_notify_eof(s);
  if (s->state == RPC_FAILED) {
    *error = s->load_error;
    return NULL;
  }
  if (!s->w) {
    if (weft_open(&s->w, &s->options) != WEFT_OK) {
      *error = "cannot create a trace processor instance (out of memory)";
      return NULL;
    }
    if (weft_load_finish(s->w) == WEFT_OK) {
      s->state = RPC_READY;
      rpc_snapshot_objects(s);
    }
  }
  return s->w;
}

static double rpc_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int rpc_query(rpc_session *s, const uint8_t *body, size_t len, rpc_spool *out) {
  double start = rpc_now_ms();
  rpc_query_result *r = rpc_query_result_new(out);
  if (!r) return -1;
  const char *error = NULL;
  char *sql = rpc_decode_query_args(body, len, &error);
  weft *w = sql ? rpc_ready_instance(s, &error) : NULL;
  if (!w && !error) error = "no trace could be loaded";
  if (w && rpc_blank(sql)) error = "No valid SQL to run";
  if (w && !error) {
    rpc_sql_info info;
    rpc_sql_statements(sql, &info);
    rpc_query_result_statements(r, info.count, info.last, info.last_len);
    weft_query_callbacks cb = rpc_query_result_callbacks(r);
    int rc = weft_query(w, sql, &cb);
    if (rc == WEFT_EABORT) error = "out of memory or disk space for the result";
    else if (rc != WEFT_OK) error = weft_errmsg(w);
  }
  int result = rpc_query_result_finish(r, error, rpc_now_ms() - start);
  rpc_query_result_free(r);
  free(sql);
  return result;
}
