/* Perfetto's one-table views as virtual tables (see vtab_view.h). */
#include "sql/vtab_view.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TRACK_BASE "id,name,type,parent_id,source_arg_set_id,machine_id"
#define DESCRIPTION "description=arg(source_arg_set_id,description)"
#define COUNTER_TRACK_BASE TRACK_BASE ",unit=counter_unit," DESCRIPTION

const sql_view_spec sql_view_specs[] = {
    {"trace_file", "__intrinsic_trace_file", "*", ""},
    {"clock_snapshot", "__intrinsic_clock_snapshot", "*", ""},
    {"thread", "__intrinsic_thread", "utid=id,*", ""},
    {"process", "__intrinsic_process", "upid=id,*", ""},
    {"track", "__intrinsic_track",
     "id,name,type,dimension_arg_set_id,parent_id,source_arg_set_id,machine_id,track_group_id",
     ""},
    {"thread_track", "__intrinsic_track", TRACK_BASE ",utid", "event_type=slice utid!"},
    {"process_track", "__intrinsic_track", TRACK_BASE ",upid", "event_type=slice upid!"},
    /* __intrinsic_track.cpu is the ucpu (model/sched.h): views show the cpu
     * number, machine_id says whose */
    {"cpu_track", "__intrinsic_track", TRACK_BASE ",cpu=cpu(cpu)", "event_type=slice cpu!"},
    {"counter_track", "__intrinsic_track",
     "id,name,parent_id,type,dimension_arg_set_id,source_arg_set_id,machine_id,"
     "unit=counter_unit," DESCRIPTION,
     "event_type=counter"},
    {"process_counter_track", "__intrinsic_track", COUNTER_TRACK_BASE ",upid",
     "event_type=counter upid!"},
    {"thread_counter_track", "__intrinsic_track", COUNTER_TRACK_BASE ",utid",
     "event_type=counter utid!"},
    {"cpu_counter_track", "__intrinsic_track", COUNTER_TRACK_BASE ",cpu=cpu(cpu)",
     "event_type=counter cpu!"},
    {"slice", "__intrinsic_slice", "*,cat=category,slice_id=id", ""},
    {"slices", "__intrinsic_slice", "*,cat=category,slice_id=id", ""},
    {"instant", "__intrinsic_slice", "ts,track_id,name,arg_set_id", "dur#0"},
    {"counter", "__intrinsic_counter", "*", ""},
    {"args", "__intrinsic_args", "*,display_value=display()", ""},
    /* rows by ucpu whatever order cpus were met in */
    {"cpu", "__intrinsic_cpu",
     "id,ucpu=id,cpu,cluster_id,processor,machine_id,capacity,arg_set_id", "cpu!"},
    {"sched_slice", "__intrinsic_sched_slice",
     "id,ts,dur,cpu=ucpu,utid,end_state,priority,ucpu", ""},
    {"sched", "__intrinsic_sched_slice",
     "id,ts,dur,cpu=ucpu,utid,end_state,priority,ucpu,ts_end=end(ts,dur)", ""},
    {"thread_state", "__intrinsic_thread_state",
     "id,ts,dur,cpu=ucpu,utid,state,io_wait,blocked_function,waker_utid,waker_id,"
     "irq_context,ucpu",
     ""},
    {"ftrace_event", "__intrinsic_ftrace_event",
     "id,ts,name,cpu=ucpu,utid,arg_set_id,common_flags,ucpu", ""},
    {"raw", "__intrinsic_ftrace_event", "id,ts,name,cpu=ucpu,utid,arg_set_id,common_flags,ucpu",
     ""},
    {"flow", "__intrinsic_flow", "*", ""},
    {"logs", "__intrinsic_logs", "*", ""},
    {"android_logs", "__intrinsic_logs", "id,ts,utid,prio,tag,msg", "log_source=android_logcat"},
    {"filedescriptor", "__intrinsic_filedescriptor", "*", ""},
    {"trace_diagnostics", "__intrinsic_trace_diagnostics",
     "id,name=key,title,description,remediation,confidence,trace_id", ""},
    {"state", "__intrinsic_state", "*", ""},
    {"state_track", "__intrinsic_track",
     "id,name,parent_id,type,dimension_arg_set_id,source_arg_set_id,machine_id",
     "event_type=state"},
    {"process_state_track", "__intrinsic_track", TRACK_BASE ",upid", "event_type=state upid!"},
    {"thread_state_track", "__intrinsic_track", TRACK_BASE ",utid", "event_type=state utid!"},
    {"gpu", "__intrinsic_gpu",
     "id,ugpu=id,gpu,name,vendor,model,architecture,uuid,pci_bdf,machine_id,arg_set_id", ""},
    {"gpu_counter_group", "__intrinsic_gpu_counter_group", "*", ""},
    /* tracks loosely tied to a GPU, by type (Perfetto's list) */
    {"gpu_track", "__intrinsic_track",
     "id,name,type,parent_id,source_arg_set_id,dimension_arg_set_id,machine_id,scope=type,"
     DESCRIPTION ",context_id=arg(dimension_arg_set_id,context_id)",
     "type=drm_vblank|drm_sched_ring|drm_fence|mali_mcu_state|gpu_render_stage|"
     "vulkan_events|gpu_log|graphics_frame_event"},
    {"gpu_counter_track", "__intrinsic_track",
     "id,name,type,parent_id,source_arg_set_id,machine_id,unit=counter_unit," DESCRIPTION
     ",ugpu=arg(dimension_arg_set_id,ugpu),gpu_id=arg(dimension_arg_set_id,gpu)",
     "type=gpu_counter"},
    {"cpu_available_frequencies", "__intrinsic_cpu_freq", "id,cpu=ucpu,freq,ucpu", ""},
    /* the samples that captured a callstack */
    {"stack_sample", "__intrinsic_stack_sample",
     "id,ts,source,task_context_id,execution_context_id,callsite_id,session_id",
     "callsite_id!"},
    {"__intrinsic_profiler_execution_context", "__intrinsic_stack_sample_execution_context",
     "id,ucpu,cpu_mode", ""},
    {"__intrinsic_profiler_task_context", "__intrinsic_stack_sample_task_context",
     "id,upid,utid,async_context_id", ""},
    /* every sample, with the counter set each read */
    {"__intrinsic_profiler_sample", "__intrinsic_stack_sample",
     "id,ts,source,task_context_id,execution_context_id,callsite_id,unwind_error,"
     "session_id,counter_set_id",
     ""},
    /* the samples and sessions of source linux.perf, with or without callstack */
    {"perf_sample", "__intrinsic_stack_sample",
     "id,ts,utid,cpu,cpu_mode=ifnull(cpu_mode,'unknown'),callsite_id,unwind_error,"
     "perf_session_id=session_id",
     "source=linux.perf"},
    {"perf_session", "__intrinsic_profiler_session", "id,perf_session_id=id,cmdline",
     "source=linux.perf"},
    /* the samples of Chrome, V8, Gecko, simpleperf and perf script text */
    {"cpu_profile_stack_sample", "__intrinsic_stack_sample",
     "id,ts,callsite_id,utid,process_priority=ifnull(process_priority,0)",
     "source=chrome|legacy_v8|gecko|simpleperf|perf_text"},
    {"instruments_sample", "__intrinsic_stack_sample", "id,ts,utid,callsite_id,cpu",
     "source=instruments"},
    /* the counters of perf sessions: a timebase and its followers per cpu */
    {"perf_counter_track", "__intrinsic_track",
     "id,name,type,parent_id,source_arg_set_id,machine_id,unit=counter_unit," DESCRIPTION
     ",perf_session_id=arg(dimension_arg_set_id,perf_session_id),"
     "cpu=arg(dimension_arg_set_id,cpu),is_timebase=arg(source_arg_set_id,is_timebase)",
     "type=perf_cpu_counter"},
    {"android_game_intervention_list", "__intrinsic_android_game_intervention_list", "*", ""},
    {"package_list", "__intrinsic_package_list", "*", ""},
    {"protolog", "__intrinsic_protolog", "id,ts,level,tag,message,stacktrace,location", ""},
    {"surfaceflinger_layers_snapshot", "__intrinsic_surfaceflinger_layers_snapshot",
     "id,ts,arg_set_id,base64_proto_id,sequence_id,has_invalid_elapsed_ts", ""},
    {"surfaceflinger_layer", "__intrinsic_surfaceflinger_layer",
     "id,snapshot_id,arg_set_id,base64_proto_id,layer_id,layer_name,is_visible,parent,"
     "corner_radius_tl,corner_radius_tr,corner_radius_bl,corner_radius_br,"
     "hwc_composition_type,is_hidden_by_policy,z_order_relative_of,is_missing_z_parent,"
     "layer_rect_id,input_rect_id",
     ""},
    {"surfaceflinger_transactions", "__intrinsic_surfaceflinger_transactions",
     "id,ts,arg_set_id,base64_proto_id,vsync_id", ""},
    {"window_manager_shell_transitions", "__intrinsic_window_manager_shell_transitions",
     "id,ts,transition_id,arg_set_id,transition_type,send_time_ns,dispatch_time_ns,"
     "duration_ns,finish_time_ns,shell_abort_time_ns,wm_abort_time_ns,merge_time_ns,"
     "create_time_ns,handler,status,flags,start_transaction_id,finish_transaction_id",
     ""},
    {"window_manager_shell_transition_handlers",
     "__intrinsic_window_manager_shell_transition_handlers",
     "id,handler_id,handler_name,base64_proto_id", ""},
    /* proto content analysis: the annotated roots only (model/proto_content.h) */
    {"experimental_proto_path", "__intrinsic_experimental_proto_path", "*", ""},
};

const size_t sql_view_spec_count = sizeof sql_view_specs / sizeof *sql_view_specs;

/* ---- reading a spec ---- */

typedef struct view_reader {
  const sql_view_spec *spec;
  const storage_table *table;
  base_error *err;
} view_reader;

static int view_fail(const view_reader *r, const char *what, const char *at, size_t len) {
  return base_error_set(r->err, WEFT_EINVAL, "view %s: %s '%.*s'", r->spec->name, what,
                        (int)len, at);
}

/* The base column named by [at, at + len), or -1. */
static int view_base(const view_reader *r, const char *at, size_t len) {
  char name[64];
  if (len == 0 || len >= sizeof name) return -1;
  memcpy(name, at, len);
  name[len] = 0;
  return storage_table_find_column(r->table, name);
}

static int view_copy(char *dst, size_t cap, const char *at, size_t len) {
  if (len >= cap) return -1;
  memcpy(dst, at, len);
  dst[len] = 0;
  return 0;
}

static int view_add(sql_view *v, const sql_view_column *c) {
  if (v->column_count == SQL_VIEW_MAX_COLUMNS) return -1;
  v->columns[v->column_count++] = *c;
  return 0;
}

/* `*`: the table's columns SELECT * shows. */
static int view_add_star(sql_view *v, const storage_table *t) {
  for (size_t i = 0; i < t->column_count; i++) {
    if (t->defs[i].flags & STORAGE_HIDDEN) continue;
    sql_view_column c = {.kind = SQL_VIEW_BASE, .base = (int)i};
    if (view_copy(c.name, sizeof c.name, t->defs[i].name, strlen(t->defs[i].name)) ||
        view_add(v, &c))
      return -1;
  }
  return 0;
}

/* The arguments of fn(a,b) in [at, end): a and b (b empty if absent). */
static int view_call_args(const char *at, const char *end, const char **a, size_t *alen,
                          const char **b, size_t *blen) {
  const char *open = memchr(at, '(', (size_t)(end - at));
  if (!open || end[-1] != ')') return -1;
  const char *inner = open + 1, *close = end - 1;
  const char *comma = memchr(inner, ',', (size_t)(close - inner));
  *a = inner;
  *alen = (size_t)((comma ? comma : close) - inner);
  *b = comma ? comma + 1 : close;
  *blen = comma ? (size_t)(close - comma - 1) : 0;
  return (int)(open - at);
}

/* A computed column `fn(...)` in [at, end) into *c. */
static int view_computed(const view_reader *r, const char *at, const char *end,
                         sql_view_column *c) {
  const char *a, *b;
  size_t alen, blen;
  int fn_len = view_call_args(at, end, &a, &alen, &b, &blen);
  if (fn_len < 0) return view_fail(r, "cannot read column", at, (size_t)(end - at));
  c->base = view_base(r, a, alen);
  c->base2 = -1;
#define FN_IS(s) ((size_t)fn_len == strlen(s) && !memcmp(at, s, strlen(s)))
  if (FN_IS("display")) {
    c->kind = SQL_VIEW_DISPLAY;
    return WEFT_OK;
  }
  if (c->base < 0) return view_fail(r, "no such column", a, alen);
  if (FN_IS("cpu")) {
    c->kind = SQL_VIEW_CPU;
  } else if (FN_IS("end")) {
    c->kind = SQL_VIEW_END;
    if ((c->base2 = view_base(r, b, blen)) < 0) return view_fail(r, "no such column", b, blen);
  } else if (FN_IS("arg")) {
    c->kind = SQL_VIEW_ARG;
    if (view_copy(c->text, sizeof c->text, b, blen)) return view_fail(r, "long key", b, blen);
  } else if (FN_IS("ifnull")) {
    c->kind = SQL_VIEW_IFNULL;
    c->literal_is_text = blen >= 2 && b[0] == '\'' && b[blen - 1] == '\'';
    if (c->literal_is_text && view_copy(c->text, sizeof c->text, b + 1, blen - 2))
      return view_fail(r, "long literal", b, blen);
    if (!c->literal_is_text) c->literal = strtoll(b, NULL, 10);
  } else {
    return view_fail(r, "unknown function", at, (size_t)fn_len);
  }
#undef FN_IS
  return WEFT_OK;
}

/* One item of the column list: `*`, `x`, `a=x` or `a=fn(...)`. */
static int view_column_item(const view_reader *r, sql_view *v, const char *at,
                            const char *end) {
  size_t len = (size_t)(end - at);
  if (len == 1 && at[0] == '*') {
    if (view_add_star(v, r->table)) return view_fail(r, "too many columns", at, len);
    return WEFT_OK;
  }
  sql_view_column c = {.kind = SQL_VIEW_BASE};
  const char *eq = memchr(at, '=', len);
  const char *name_end = eq ? eq : end, *src = eq ? eq + 1 : at;
  if (view_copy(c.name, sizeof c.name, at, (size_t)(name_end - at)))
    return view_fail(r, "long name", at, len);
  if (memchr(src, '(', (size_t)(end - src))) {
    int rc = view_computed(r, src, end, &c);
    if (rc) return rc;
  } else if ((c.base = view_base(r, src, (size_t)(end - src))) < 0) {
    return view_fail(r, "no such column", src, (size_t)(end - src));
  }
  if (view_add(v, &c)) return view_fail(r, "too many columns", at, len);
  return WEFT_OK;
}

/* Items separated by `sep`, outside parentheses. */
static const char *view_item_end(const char *p, char sep) {
  int depth = 0;
  for (; *p; p++) {
    if (*p == '(') depth++;
    if (*p == ')') depth--;
    if (*p == sep && depth == 0) break;
  }
  return p;
}

/* One check: `x=s|t`, `x#n` or `x!`. */
static int view_check_item(const view_reader *r, sql_view *v, const char *at,
                           const char *end) {
  size_t len = (size_t)(end - at);
  if (v->check_count == SQL_VIEW_MAX_CHECKS) return view_fail(r, "too many checks", at, len);
  sql_view_check *k = &v->checks[v->check_count];
  size_t name_len = strcspn(at, "=#!");
  if (name_len >= len) return view_fail(r, "cannot read check", at, len);
  k->column = view_base(r, at, name_len);
  if (k->column < 0) return view_fail(r, "no such column", at, name_len);
  const char *p = at + name_len + 1;
  if (at[name_len] == '!') {
    k->kind = SQL_VIEW_CHECK_NOT_NULL;
  } else if (at[name_len] == '#') {
    k->kind = SQL_VIEW_CHECK_INT_EQ;
    k->value = strtoll(p, NULL, 10);
  } else {
    k->kind = SQL_VIEW_CHECK_STR_IN;
    while (p < end) {
      const char *bar = memchr(p, '|', (size_t)(end - p));
      const char *stop = bar ? bar : end;
      if (k->str_count == SQL_VIEW_MAX_IN) return view_fail(r, "too many strings", at, len);
      k->strs[k->str_count] = p;
      k->str_lens[k->str_count++] = (size_t)(stop - p);
      p = bar ? bar + 1 : end;
    }
  }
  v->check_count++;
  return WEFT_OK;
}

int sql_view_parse(const sql_view_spec *spec, sql_vtab_aux *aux,
                   const storage_table *args, sql_view *v, base_error *err) {
  memset(v, 0, sizeof *v);
  v->name = spec->name;
  v->aux = aux;
  if (!sql_args_table_of(args, &v->args)) v->args.table = NULL;
  view_reader r = {spec, aux->table, err};
  int rc = WEFT_OK;
  for (const char *p = spec->columns; !rc && *p;) {
    const char *end = view_item_end(p, ',');
    rc = view_column_item(&r, v, p, end);
    p = *end ? end + 1 : end;
  }
  for (const char *p = spec->checks; !rc && *p;) {
    const char *end = view_item_end(p, ' ');
    rc = view_check_item(&r, v, p, end);
    p = *end ? end + 1 : end;
  }
  for (size_t i = 0; !rc && i < v->column_count; i++) {
    sql_view_kind k = v->columns[i].kind;
    if ((k == SQL_VIEW_ARG || k == SQL_VIEW_DISPLAY) && !v->args.table)
      rc = view_fail(&r, "needs the args table for", v->columns[i].name,
                     strlen(v->columns[i].name));
  }
  return rc;
}

/* ---- declaring and registering ---- */

static const char *view_sql_type(const sql_view *v, const sql_view_column *c) {
  switch (c->kind) {
    case SQL_VIEW_BASE:
      switch (v->aux->table->defs[c->base].type) {
        case STORAGE_F64: return " DOUBLE";
        case STORAGE_STR: return " TEXT";
        default: return " BIGINT";
      }
    case SQL_VIEW_CPU: return " BIGINT";
    case SQL_VIEW_DISPLAY: return " TEXT";
    default: return ""; /* an expression's column: no affinity */
  }
}

int sql_view_declaration(const sql_view *v, base_buf *out) {
  int rc = base_buf_append(out, "CREATE TABLE x(", 15);
  for (size_t i = 0; rc == 0 && i < v->column_count; i++)
    rc = base_buf_appendf(out, "%s\"%s\"%s", i ? ", " : "", v->columns[i].name,
                          view_sql_type(v, &v->columns[i]));
  if (rc == 0) rc = base_buf_append(out, ")", 1);
  return rc;
}

/* ---- checks ---- */

void sql_view_check_strings(sql_view *v, const base_string_pool *strings,
                            string_id (*out)[SQL_VIEW_MAX_IN]) {
  /* looked up again only once the pool has grown (ids never change) */
  if (v->check_ids_pool_len != base_string_pool_count(strings) || !v->check_ids_taken) {
    for (size_t i = 0; i < v->check_count; i++)
      for (size_t k = 0; k < v->checks[i].str_count; k++)
        v->check_ids[i][k] = base_string_pool_find(strings, v->checks[i].strs[k],
                                                   v->checks[i].str_lens[k]);
    v->check_ids_pool_len = base_string_pool_count(strings);
    v->check_ids_taken = 1;
  }
  memcpy(out, v->check_ids, sizeof v->check_ids);
}

/* Whether the row passes the checks; NOT NULL ones only with not_null. */
static int view_row_passes(const sql_view *v, const string_id (*strs)[SQL_VIEW_MAX_IN],
                           size_t row, int not_null) {
  const storage_table *t = v->aux->table;
  for (size_t i = 0; i < v->check_count; i++) {
    const sql_view_check *k = &v->checks[i];
    size_t col = (size_t)k->column;
    if (k->kind == SQL_VIEW_CHECK_NOT_NULL) {
      if (!not_null) continue;
      if (t->defs[col].type == STORAGE_STR ? storage_get_str(t, col, row) == STRING_NULL
                                           : storage_is_null(t, col, row))
        return 0;
    } else if (k->kind == SQL_VIEW_CHECK_INT_EQ) {
      if (storage_is_null(t, col, row) || storage_get_i64(t, col, row) != k->value) return 0;
    } else {
      string_id s = storage_get_str(t, col, row);
      size_t j = 0;
      while (j < k->str_count && (strs[i][j] == STRING_NULL || strs[i][j] != s)) j++;
      if (j == k->str_count) return 0;
    }
  }
  return 1;
}

int sql_view_row_passes(const sql_view *v, const string_id (*strs)[SQL_VIEW_MAX_IN], size_t row) {
  return view_row_passes(v, strs, row, 1);
}

int sql_view_row_values_pass(const sql_view *v, const string_id (*strs)[SQL_VIEW_MAX_IN],
                             size_t row) {
  return view_row_passes(v, strs, row, 0);
}

/* ---- computed columns ---- */

static int view_is_null(const storage_table *t, int col, size_t row) {
  if (t->defs[col].type == STORAGE_STR) return storage_get_str(t, (size_t)col, row) == STRING_NULL;
  return t->defs[col].type != STORAGE_ID && storage_is_null(t, (size_t)col, row);
}

/* EXTRACT_ARG(set, key) of the args table. */
static void view_result_arg(sqlite3_context *ctx, const sql_view *v,
                            const base_string_pool *strings, const sql_view_column *c,
                            size_t row) {
  const storage_table *t = v->aux->table;
  if (view_is_null(t, c->base, row)) return;
  string_id key = base_string_pool_find(strings, c->text, strlen(c->text));
  if (key != STRING_NULL)
    sql_args_extract(ctx, &v->args, strings, storage_get_i64(t, (size_t)c->base, row), key);
}

static void view_result_printf(sqlite3_context *ctx, char *s) {
  if (s) sqlite3_result_text(ctx, s, -1, sqlite3_free);
  else sqlite3_result_error_nomem(ctx);
}

/* The decimal digits of a uint stored wrapped in an int64. */
static void view_result_uint(sqlite3_context *ctx, int64_t v) {
  view_result_printf(ctx, sqlite3_mprintf("%llu", (unsigned long long)v));
}

/* The args table's display_value: its value as text, by value_type. */
static void view_result_display(sqlite3_context *ctx, const sql_view *v,
                                const base_string_pool *strings, size_t row) {
  const sql_args_table *a = &v->args;
  const storage_table *t = a->table;
  string_id type_id = storage_get_str(t, a->value_type, row);
  if (type_id == STRING_NULL) return;
  const char *type = base_string_pool_get(strings, type_id);
  int has_int = !storage_is_null(t, a->int_value, row);
  int64_t i = has_int ? storage_get_i64(t, a->int_value, row) : 0;
  if (!strcmp(type, "string") || !strcmp(type, "json")) {
    sql_vtab_cell(ctx, t, strings, a->string_value, row);
  } else if (!strcmp(type, "int")) {
    if (has_int) view_result_printf(ctx, sqlite3_mprintf("%lld", (long long)i));
  } else if (!strcmp(type, "uint")) {
    if (has_int) view_result_uint(ctx, i);
  } else if (!strcmp(type, "real")) {
    double d = storage_is_null(t, a->real_value, row)
                   ? NAN : storage_get_f64(t, a->real_value, row);
    if (d == d) view_result_printf(ctx, sqlite3_mprintf("%!.15g", d)); /* NaN: NULL */
  } else if (!strcmp(type, "pointer")) {
    view_result_printf(ctx, sqlite3_mprintf("0x%llx", (unsigned long long)i));
  } else if (!strcmp(type, "bool")) {
    sqlite3_result_text(ctx, has_int && i != 0 ? "true" : "false", -1, SQLITE_STATIC);
  }
}

void sql_view_result(const sql_view *v, const base_string_pool *strings, size_t col,
                     size_t row, sqlite3_context *ctx) {
  const sql_view_column *c = &v->columns[col];
  const storage_table *t = v->aux->table;
  switch (c->kind) {
    case SQL_VIEW_BASE: sql_vtab_cell(ctx, t, strings, (size_t)c->base, row); return;
    case SQL_VIEW_CPU:
      if (!view_is_null(t, c->base, row))
        sqlite3_result_int64(ctx, storage_get_i64(t, (size_t)c->base, row) % 4096);
      return;
    case SQL_VIEW_END: {
      if (view_is_null(t, c->base, row) || view_is_null(t, c->base2, row)) return;
      int64_t x = storage_get_i64(t, (size_t)c->base, row);
      int64_t y = storage_get_i64(t, (size_t)c->base2, row), sum;
      if (__builtin_add_overflow(x, y, &sum)) sqlite3_result_double(ctx, (double)x + (double)y);
      else sqlite3_result_int64(ctx, sum);
      return;
    }
    case SQL_VIEW_ARG: view_result_arg(ctx, v, strings, c, row); return;
    case SQL_VIEW_IFNULL:
      if (!view_is_null(t, c->base, row)) sql_vtab_cell(ctx, t, strings, (size_t)c->base, row);
      else if (c->literal_is_text) sqlite3_result_text(ctx, c->text, -1, SQLITE_STATIC);
      else sqlite3_result_int64(ctx, c->literal);
      return;
    case SQL_VIEW_DISPLAY: view_result_display(ctx, v, strings, row); return;
  }
}
