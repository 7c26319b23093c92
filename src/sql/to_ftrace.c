/* to_ftrace(id): renders one ftrace_event row as a systrace text line,
 * "<task>-<tid> (<tgid>) [<cpu>] .... <secs>.<usecs>: <event>: <args>",
 * with Perfetto's per-event argument layouts (sched_switch, print, ...). */
#include <inttypes.h>
#include <stdio.h>

#include "model/sched.h"
#include "sql/sql.h"
#include "storage/schema.h"

#define TO_FTRACE_MAX_LINE 4096

typedef struct to_ftrace_arg {
  string_id key;
  string_id type;
  int64_t i;
  double d;
  string_id s;
  int has_i, has_d;
} to_ftrace_arg;

typedef struct to_ftrace_ctx {
  sql_engine *e;
  base_string_pool *strings;
  base_buf out;
  to_ftrace_arg args[64];
  size_t nargs;
} to_ftrace_ctx;

static const char *tf_str(to_ftrace_ctx *c, string_id id) {
  const char *s = base_string_pool_get(c->strings, id);
  return s ? s : "";
}

static int tf_str_is(to_ftrace_ctx *c, string_id id, const char *v) {
  return id != STRING_NULL && strcmp(tf_str(c, id), v) == 0;
}

static void tf_load_args(to_ftrace_ctx *c, int64_t set) {
  c->nargs = 0;
  storage_table *t = sql_engine_find_table(c->e, "__intrinsic_args");
  if (!t || set < 0) return;
  size_t row = storage_lower_bound_i64(t, ARGS_arg_set_id, 0, t->row_count, set, 0);
  for (; row < t->row_count && storage_get_i64(t, ARGS_arg_set_id, row) == set &&
         c->nargs < sizeof c->args / sizeof c->args[0]; row++) {
    to_ftrace_arg *a = &c->args[c->nargs++];
    memset(a, 0, sizeof *a);
    a->key = storage_get_str(t, ARGS_key, row);
    a->type = storage_get_str(t, ARGS_value_type, row);
    a->s = storage_get_str(t, ARGS_string_value, row);
    if (!storage_is_null(t, ARGS_int_value, row)) { a->i = storage_get_i64(t, ARGS_int_value, row); a->has_i = 1; }
    if (!storage_is_null(t, ARGS_real_value, row)) { a->d = storage_get_f64(t, ARGS_real_value, row); a->has_d = 1; }
  }
}

static const to_ftrace_arg *tf_arg(to_ftrace_ctx *c, const char *key) {
  for (size_t i = 0; i < c->nargs; i++)
    if (tf_str_is(c, c->args[i].key, key)) return &c->args[i];
  return NULL;
}

static void tf_value(to_ftrace_ctx *c, const to_ftrace_arg *a) {
  const char *type = tf_str(c, a->type);
  if (a->has_i) {
    if (strcmp(type, "uint") == 0 || strcmp(type, "pointer") == 0)
      base_buf_appendf(&c->out, "%" PRIu64, (uint64_t)a->i);
    else if (strcmp(type, "bool") == 0)
      base_buf_appendf(&c->out, "%s", a->i ? "true" : "false");
    else
      base_buf_appendf(&c->out, "%" PRId64, a->i);
  } else if (a->has_d) {
    base_buf_appendf(&c->out, "%f", a->d);
  } else if (a->s != STRING_NULL) {
    base_buf_appendf(&c->out, "%s", tf_str(c, a->s));
  } else {
    base_buf_appendf(&c->out, "[NULL]");
  }
}

static void tf_kv(to_ftrace_ctx *c, const char *key, const char *shown) {
  const to_ftrace_arg *a = tf_arg(c, key);
  if (!a) return;
  base_buf_appendf(&c->out, " %s=", shown ? shown : key);
  if (strcmp(key, "gfp_flags") == 0 && a->has_i && a->i == 0) {
    base_buf_appendf(&c->out, "GFP_NOWAIT");
    return;
  }
  tf_value(c, a);
}

static void tf_value_of(to_ftrace_ctx *c, const char *key) {
  const to_ftrace_arg *a = tf_arg(c, key);
  if (a) tf_value(c, a);
}

static void tf_kernel_fn(to_ftrace_ctx *c, const char *key) {
  const to_ftrace_arg *a = tf_arg(c, key);
  if (!a) return;
  base_buf_appendf(&c->out, " %s=", key);
  if (a->has_i) base_buf_appendf(&c->out, "%" PRIx64, (uint64_t)a->i);
  else tf_value(c, a);
}

/* prev_state as Perfetto's serializer decodes it: with the 4.4 kernel
 * layout whatever the trace's kernel. */
static void tf_sched_switch(to_ftrace_ctx *c) {
  tf_kv(c, "prev_comm", NULL);
  tf_kv(c, "prev_pid", NULL);
  tf_kv(c, "prev_prio", NULL);
  const to_ftrace_arg *st = tf_arg(c, "prev_state");
  if (st) {
    char buf[8];
    sched_task_state_str(st->i, NULL, '|', buf);
    base_buf_appendf(&c->out, " prev_state=%s", buf);
  }
  base_buf_appendf(&c->out, " ==>");
  tf_kv(c, "next_comm", NULL);
  tf_kv(c, "next_pid", NULL);
  tf_kv(c, "next_prio", NULL);
}

static void tf_print(to_ftrace_ctx *c) {
  const to_ftrace_arg *a = tf_arg(c, "buf");
  base_buf_append(&c->out, " ", 1);
  if (!a) return;
  const char *s = tf_str(c, a->s);
  size_t n = strlen(s);
  if (n && s[n - 1] == '\n') n--;
  base_buf_append(&c->out, s, n);
}

static void tf_mark(to_ftrace_ctx *c, const char *type_key, const char *name_key,
                    int with_value) {
  const to_ftrace_arg *t = tf_arg(c, type_key);
  if (t && strcmp(type_key, "trace_begin") == 0)
    base_buf_appendf(&c->out, "%c", t->i ? 'B' : 'E');
  else if (t)
    base_buf_appendf(&c->out, "%c", (char)t->i);
  base_buf_append(&c->out, "|", 1);
  tf_value_of(c, "pid");
  base_buf_append(&c->out, "|", 1);
  tf_value_of(c, name_key);
  if (with_value) {
    base_buf_append(&c->out, "|", 1);
    tf_value_of(c, "value");
  }
}

static void tf_args(to_ftrace_ctx *c, const char *event) {
  if (strcmp(event, "sched_switch") == 0) return tf_sched_switch(c);
  if (strcmp(event, "print") == 0) return tf_print(c);
  if (strcmp(event, "sched_wakeup") == 0) {
    tf_kv(c, "comm", NULL);
    tf_kv(c, "pid", NULL);
    tf_kv(c, "prio", NULL);
    const to_ftrace_arg *a = tf_arg(c, "target_cpu");
    if (a) base_buf_appendf(&c->out, " target_cpu=%03" PRId64, a->i);
    return;
  }
  if (strcmp(event, "sched_blocked_reason") == 0) {
    tf_kv(c, "pid", NULL);
    tf_kv(c, "io_wait", "iowait");
    tf_kernel_fn(c, "caller");
    return;
  }
  if (strcmp(event, "cgroup_attach_task") == 0) {
    static const char *const keys[] = {"dst_root", "dst_id", "cname", "dst_level",
                                       "dst_path", "pid", "comm"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
      tf_kv(c, keys[i], strcmp(keys[i], "cname") == 0 ? "cgroup" : NULL);
    return;
  }
  if (strcmp(event, "tracing_mark_write") == 0) return tf_mark(c, "trace_begin", "trace_name", 0);
  if (strcmp(event, "g2d_tracing_mark_write") == 0) return tf_mark(c, "type", "name", 1);
  if (strcmp(event, "irq_handler_exit") == 0) {
    tf_kv(c, "irq", NULL);
    const to_ftrace_arg *a = tf_arg(c, "ret");
    if (a) base_buf_appendf(&c->out, " ret=%s", a->i ? "handled" : "unhandled");
    return;
  }
  for (size_t i = 0; i < c->nargs; i++) tf_kv(c, tf_str(c, c->args[i].key), NULL);
}

/* "<task>-<tid> (<tgid>) [<cpu>] .... <secs>.<usecs>:" */
static void tf_prefix(to_ftrace_ctx *c, storage_table *ev, size_t row) {
  storage_table *th = sql_engine_find_table(c->e, "__intrinsic_thread");
  storage_table *pr = sql_engine_find_table(c->e, "__intrinsic_process");
  int64_t utid = storage_get_i64(ev, FTRACE_EVENT_utid, row);
  int64_t ucpu = storage_get_i64(ev, FTRACE_EVENT_ucpu, row);
  int64_t ts = storage_get_i64(ev, FTRACE_EVENT_ts, row);
  int64_t tid = 0, tgid = 0, cpu_no = ucpu;
  const char *name = NULL;
  if (th && utid >= 0 && (size_t)utid < th->row_count) {
    tid = storage_get_i64(th, THREAD_tid, utid);
    name = base_string_pool_get(c->strings, storage_get_str(th, THREAD_name, utid));
    int64_t upid = storage_get_i64_or(th, THREAD_upid, (size_t)utid, -1);
    if (pr && upid >= 0 && (size_t)upid < pr->row_count) tgid = storage_get_i64(pr, PROCESS_pid, upid);
  }
  if (ucpu >= 0) cpu_no = ucpu % SCHED_CPUS_PER_MACHINE; /* model/sched.h */
  if (tid == 0) name = "<idle>";
  else if (!name || !*name) name = "<unknown>";
  size_t n = strlen(name);
  for (size_t i = n; i < 16; i++) base_buf_append(&c->out, " ", 1);
  for (size_t i = 0; i < n; i++) base_buf_append(&c->out, name[i] == '-' ? "_" : &name[i], 1);
  base_buf_appendf(&c->out, "-%-5" PRId64 " (", tid);
  if (tgid == 0) base_buf_appendf(&c->out, "-----");
  else base_buf_appendf(&c->out, "%5" PRId64, tgid);
  int64_t secs = ts / 1000000000, usecs = (ts - secs * 1000000000) / 1000;
  base_buf_appendf(&c->out, ") [%03" PRId64 "] .... %" PRId64 ".%06" PRId64 ":", cpu_no,
                   secs, usecs);
}

static void sql_to_ftrace(sqlite3_context *sctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sql_engine *e = sqlite3_user_data(sctx);
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_error(sctx, "Usage: to_ftrace(id)", -1);
    return;
  }
  int64_t id = sqlite3_value_int64(argv[0]);
  storage_table *ev = sql_engine_find_table(e, "__intrinsic_ftrace_event");
  if (!ev || id < 0 || (uint64_t)id >= ev->row_count) {
    char msg[96];
    snprintf(msg, sizeof msg, "to_ftrace: Cannot serialize row id %" PRId64, id);
    sqlite3_result_error(sctx, msg, -1);
    return;
  }
  to_ftrace_ctx *c = base_calloc(1, sizeof *c);
  if (!c) {
    sqlite3_result_error_nomem(sctx);
    return;
  }
  c->e = e;
  c->strings = sql_engine_strings(e);
  base_buf_init(&c->out, TO_FTRACE_MAX_LINE);
  size_t row = (size_t)id;
  const char *event = base_string_pool_get(c->strings, storage_get_str(ev, FTRACE_EVENT_name, row));
  if (!event) event = "";
  tf_prefix(c, ev, row);
  int mark = strcmp(event, "print") == 0 || strcmp(event, "g2d_tracing_mark_write") == 0 ||
             strcmp(event, "dpu_tracing_mark_write") == 0;
  base_buf_appendf(&c->out, " %s:", mark ? "tracing_mark_write" : event);
  tf_load_args(c, storage_get_i64_or(ev, FTRACE_EVENT_arg_set_id, row, -1));
  tf_args(c, event);
  if (c->out.data) sqlite3_result_text(sctx, c->out.data, (int)c->out.len, SQLITE_TRANSIENT);
  else sqlite3_result_text(sctx, "", 0, SQLITE_STATIC);
  base_buf_free(&c->out);
  base_free(c);
}

int sql_to_ftrace_register(sqlite3 *db, sql_engine *e) {
  if (sqlite3_create_function(db, "to_ftrace", 1, SQLITE_UTF8, e, sql_to_ftrace,
                              NULL, NULL) != SQLITE_OK)
    return WEFT_ESQL;
  return WEFT_OK;
}
