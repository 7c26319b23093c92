/* Stack sample sessions, contexts, samples and their counters. See
 * model/stack_sample.h. */
#include "model/stack_sample.h"

#include <string.h>

#include "model/model.h"

#define SS_MAX_PROBES 32

struct stack_sample_state {
  base_map task_contexts;      /* probed hash of (upid, utid, async) -> row */
  base_map execution_contexts; /* probed hash of (ucpu, mode) -> row */
  base_map counter_tracks;     /* probed hash of (session, name) -> counter track row */
  string_id sources[STACK_SAMPLE_KNOWN_SOURCES]; /* interned names + 1; 0: not yet */
};

void stack_sample_state_free(stack_sample_state *st) {
  if (!st) return;
  base_map_free(&st->task_contexts);
  base_map_free(&st->execution_contexts);
  base_map_free(&st->counter_tracks);
  base_free(st);
}

static stack_sample_state *ss_state(trace_context *ctx) {
  if (!ctx->model.stack_sample) ctx->model.stack_sample = base_calloc(1, sizeof(stack_sample_state));
  return ctx->model.stack_sample;
}

int stack_sample_source(trace_context *ctx, stack_sample_known_source which, string_id *out) {
  static const char *const names[STACK_SAMPLE_KNOWN_SOURCES] = {
      "linux.perf", "chrome", "legacy_v8", "gecko", "simpleperf", "instruments",
      "perf_text"};
  stack_sample_state *st = ss_state(ctx);
  if (!st) return WEFT_ENOMEM;
  if (!st->sources[which]) {
    string_id id;
    int rc = ctx_intern(ctx, names[which], strlen(names[which]), &id);
    if (rc) return rc;
    st->sources[which] = id + 1;
  }
  *out = st->sources[which] - 1;
  return WEFT_OK;
}

static uint64_t ss_hash3(int64_t a, int64_t b, int64_t c) {
  uint64_t h = base_hash_u64((uint64_t)a);
  h = base_hash_u64(h ^ base_hash_u64((uint64_t)b));
  return base_hash_u64(h ^ base_hash_u64((uint64_t)c));
}

typedef int (*ss_row_eq)(trace_context *ctx, uint32_t row, const int64_t *key);

/* Finds the row equal to key among the probes of hash: 1 and *row; else
 * 0 and *slot_key, the first free probe. */
static int ss_probe(trace_context *ctx, const base_map *map, uint64_t hash, ss_row_eq eq,
                    const int64_t *key, uint32_t *row, uint64_t *slot_key) {
  for (uint64_t i = 0; i < SS_MAX_PROBES; i++) {
    uint64_t k = base_hash_u64(hash + i);
    uint64_t *v = base_map_find(map, k);
    if (!v) return *slot_key = k, 0;
    if (eq(ctx, (uint32_t)*v, key)) return *row = (uint32_t)*v, 1;
  }
  *slot_key = base_hash_u64(hash + SS_MAX_PROBES); /* overflow: a row of its own */
  return 0;
}

static int ss_nullable_eq(const storage_table *t, size_t col, uint32_t row, int64_t v) {
  return storage_get_i64_or(t, col, row, -1) == v;
}

static void ss_set_nullable(storage_table *t, size_t col, uint32_t row, int64_t v) {
  if (v >= 0) storage_set_i64(t, col, row, v);
}

int stack_sample_session_new(trace_context *ctx, string_id source, uint32_t *id) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_SESSION);
  int rc = storage_table_append(t, id);
  if (rc) return rc;
  storage_set_str(t, STACK_SAMPLE_SESSION_source, *id, source);
  return storage_table_status(t);
}

int stack_sample_session_with_unit(trace_context *ctx, string_id source, string_id unit,
                                   uint32_t *id) {
  int rc = stack_sample_session_new(ctx, source, id);
  if (!rc && unit != STRING_NULL)
    storage_set_str(ctx_table(ctx, TABLE_STACK_SAMPLE_SESSION), STACK_SAMPLE_SESSION_timebase_unit,
                    *id, unit);
  return rc;
}

int stack_sample_async_context_new(trace_context *ctx, string_id name, string_id kind,
                                   int64_t parent, uint32_t *id) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_ASYNC_CONTEXT);
  int rc = storage_table_append(t, id);
  if (rc) return rc;
  storage_set_str(t, STACK_SAMPLE_ASYNC_CONTEXT_name, *id, name);
  storage_set_str(t, STACK_SAMPLE_ASYNC_CONTEXT_kind, *id, kind);
  ss_set_nullable(t, STACK_SAMPLE_ASYNC_CONTEXT_parent_id, *id, parent);
  return storage_table_status(t);
}

static int ss_task_eq(trace_context *ctx, uint32_t row, const int64_t *key) {
  const storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_TASK_CONTEXT);
  return ss_nullable_eq(t, STACK_SAMPLE_TASK_CONTEXT_upid, row, key[0]) &&
         ss_nullable_eq(t, STACK_SAMPLE_TASK_CONTEXT_utid, row, key[1]) &&
         ss_nullable_eq(t, STACK_SAMPLE_TASK_CONTEXT_async_context_id, row, key[2]);
}

int stack_sample_task_context(trace_context *ctx, int64_t upid, int64_t utid, int64_t async,
                              uint32_t *id) {
  stack_sample_state *st = ss_state(ctx);
  if (!st) return WEFT_ENOMEM;
  const int64_t key[3] = {upid, utid, async};
  uint64_t slot;
  if (ss_probe(ctx, &st->task_contexts, ss_hash3(upid, utid, async), ss_task_eq, key, id, &slot))
    return WEFT_OK;
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_TASK_CONTEXT);
  int rc = storage_table_append(t, id);
  if (rc) return rc;
  ss_set_nullable(t, STACK_SAMPLE_TASK_CONTEXT_upid, *id, upid);
  ss_set_nullable(t, STACK_SAMPLE_TASK_CONTEXT_utid, *id, utid);
  ss_set_nullable(t, STACK_SAMPLE_TASK_CONTEXT_async_context_id, *id, async);
  uint64_t *v;
  if (base_map_insert(&st->task_contexts, slot, *id, &v) < 0) return WEFT_ENOMEM;
  return storage_table_status(t);
}

int stack_sample_thread_task_context(trace_context *ctx, uint32_t utid, int with_process,
                                     int64_t *id) {
  const storage_table *threads = ctx_table(ctx, TABLE_THREAD);
  int64_t upid = with_process && utid < threads->row_count
                     ? storage_get_i64_or(threads, THREAD_upid, utid, -1)
                     : -1;
  uint32_t row;
  int rc = stack_sample_task_context(ctx, upid, utid, -1, &row);
  if (!rc) *id = row;
  return rc;
}

static int ss_execution_eq(trace_context *ctx, uint32_t row, const int64_t *key) {
  const storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_EXECUTION_CONTEXT);
  return ss_nullable_eq(t, STACK_SAMPLE_EXECUTION_CONTEXT_ucpu, row, key[0]) &&
         (int64_t)storage_get_str(t, STACK_SAMPLE_EXECUTION_CONTEXT_cpu_mode, row) == key[1];
}

int stack_sample_execution_context(trace_context *ctx, int64_t ucpu, string_id mode,
                                   uint32_t *id) {
  stack_sample_state *st = ss_state(ctx);
  if (!st) return WEFT_ENOMEM;
  const int64_t key[2] = {ucpu, (int64_t)mode};
  uint64_t slot;
  if (ss_probe(ctx, &st->execution_contexts, ss_hash3(ucpu, (int64_t)mode, 0), ss_execution_eq,
               key, id, &slot))
    return WEFT_OK;
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_EXECUTION_CONTEXT);
  int rc = storage_table_append(t, id);
  if (rc) return rc;
  ss_set_nullable(t, STACK_SAMPLE_EXECUTION_CONTEXT_ucpu, *id, ucpu);
  storage_set_str(t, STACK_SAMPLE_EXECUTION_CONTEXT_cpu_mode, *id, mode);
  uint64_t *v;
  if (base_map_insert(&st->execution_contexts, slot, *id, &v) < 0) return WEFT_ENOMEM;
  return storage_table_status(t);
}

/* ---- counter tracks ---- */

static int ss_counter_track_eq(trace_context *ctx, uint32_t row, const int64_t *key) {
  const storage_table *c = ctx_table(ctx, TABLE_STACK_SAMPLE_COUNTER_TRACK);
  const storage_table *t = ctx_table(ctx, TABLE_TRACK);
  int64_t track = storage_get_i64(c, STACK_SAMPLE_COUNTER_TRACK_track_id, row);
  return storage_get_i64(c, STACK_SAMPLE_COUNTER_TRACK_session_id, row) == key[0] &&
         (int64_t)storage_get_str(t, TRACK_name, (size_t)track) == key[1];
}

static int ss_arg_str(trace_context *ctx, const char *key, string_id value) {
  const char *s = base_string_pool_get(&ctx->strings, value);
  if (!s) s = "";
  return model_arg_string(ctx, key, strlen(key), s, strlen(s), MODEL_ARG_STRING);
}

/* The track's dimension args (session_id, source, counter_name) and source
 * args (is_timebase, unit_multiplier, description). */
static int ss_counter_track_args(trace_context *ctx, const stack_sample_counter_spec *spec,
                                 uint32_t track) {
  int64_t dims = -1, src = -1;
  int rc = model_arg_int(ctx, "session_id", 10, MODEL_ARG_INT, spec->session);
  if (!rc) rc = ss_arg_str(ctx, "source", spec->source);
  if (!rc) rc = ss_arg_str(ctx, "counter_name", spec->name);
  if (!rc) rc = model_args_commit(ctx, &dims);
  if (!rc) rc = model_arg_int(ctx, "is_timebase", 11, MODEL_ARG_BOOL, spec->is_timebase);
  if (!rc && spec->has_unit_multiplier)
    rc = model_arg_int(ctx, "unit_multiplier", 15, MODEL_ARG_INT, spec->unit_multiplier);
  if (!rc && spec->description != STRING_NULL)
    rc = ss_arg_str(ctx, "description", spec->description);
  if (!rc) rc = model_args_commit(ctx, &src);
  if (!rc) model_track_set_arg_sets(ctx, track, dims, src);
  return rc;
}

/* A session's timebase unit is its first timebase track's unit. */
static void ss_session_unit(trace_context *ctx, uint32_t session, string_id unit) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_SESSION);
  if (unit != STRING_NULL && session < t->row_count &&
      storage_get_str(t, STACK_SAMPLE_SESSION_timebase_unit, session) == STRING_NULL)
    storage_set_str(t, STACK_SAMPLE_SESSION_timebase_unit, session, unit);
}

static int ss_counter_track_new(trace_context *ctx, const stack_sample_counter_spec *spec,
                                uint32_t *track) {
  model_track_spec ts;
  model_track_spec_init(&ts);
  ts.name = base_string_pool_get(&ctx->strings, spec->name);
  ts.type = "stack_sample_session_counter";
  ts.is_counter = 1;
  ts.machine = spec->machine;
  ts.unit = base_string_pool_get(&ctx->strings, spec->unit);
  ts.extra_key = ss_hash3(spec->session, (int64_t)spec->name, 0x55);
  int rc = model_track(ctx, &ts, track);
  if (!rc) rc = ss_counter_track_args(ctx, spec, *track);
  if (rc) return rc;
  storage_table *c = ctx_table(ctx, TABLE_STACK_SAMPLE_COUNTER_TRACK);
  uint32_t row;
  rc = storage_table_append(c, &row);
  if (rc) return rc;
  storage_set_i64(c, STACK_SAMPLE_COUNTER_TRACK_track_id, row, *track);
  storage_set_i64(c, STACK_SAMPLE_COUNTER_TRACK_session_id, row, spec->session);
  storage_set_i64(c, STACK_SAMPLE_COUNTER_TRACK_is_timebase, row, spec->is_timebase);
  if (spec->is_timebase) ss_session_unit(ctx, spec->session, spec->unit);
  return storage_table_status(c);
}

int stack_sample_counter_track(trace_context *ctx, const stack_sample_counter_spec *spec,
                               uint32_t *track) {
  stack_sample_state *st = ss_state(ctx);
  if (!st) return WEFT_ENOMEM;
  const int64_t key[2] = {spec->session, (int64_t)spec->name};
  uint64_t slot;
  uint32_t row;
  if (ss_probe(ctx, &st->counter_tracks, ss_hash3(key[0], key[1], 1), ss_counter_track_eq, key,
               &row, &slot)) {
    const storage_table *c = ctx_table(ctx, TABLE_STACK_SAMPLE_COUNTER_TRACK);
    *track = (uint32_t)storage_get_i64(c, STACK_SAMPLE_COUNTER_TRACK_track_id, row);
    return WEFT_OK;
  }
  int rc = ss_counter_track_new(ctx, spec, track);
  if (rc) return rc;
  uint64_t *v;
  row = (uint32_t)(ctx_table(ctx, TABLE_STACK_SAMPLE_COUNTER_TRACK)->row_count - 1);
  return base_map_insert(&st->counter_tracks, slot, row, &v) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

/* ---- samples ---- */

uint32_t stack_sample_next_id(trace_context *ctx) {
  return (uint32_t)ctx_table(ctx, TABLE_STACK_SAMPLE)->row_count;
}

int stack_sample_counter_value(trace_context *ctx, uint32_t track, int64_t ts, double value) {
  uint32_t counter, row;
  int rc = model_counter_row(ctx, track, ts, value, -1, &counter);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE_COUNTER);
  rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, STACK_SAMPLE_COUNTER_counter_id, row, counter);
  storage_set_i64(t, STACK_SAMPLE_COUNTER_stack_sample_id, row, stack_sample_next_id(ctx));
  storage_set_i64(t, STACK_SAMPLE_COUNTER_track_id, row, track);
  return storage_table_status(t);
}

int stack_sample_add_with(trace_context *ctx, const stack_sample_row *r,
                          const stack_sample_extras *x) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_SAMPLE);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, STACK_SAMPLE_ts, row, r->ts);
  ctx_extend_bounds(ctx, r->ts);
  storage_set_str(t, STACK_SAMPLE_source, row, r->source);
  ss_set_nullable(t, STACK_SAMPLE_task_context_id, row, r->task_context);
  ss_set_nullable(t, STACK_SAMPLE_execution_context_id, row, r->execution_context);
  ss_set_nullable(t, STACK_SAMPLE_callsite_id, row, r->callsite);
  ss_set_nullable(t, STACK_SAMPLE_session_id, row, r->session);
  ss_set_nullable(t, STACK_SAMPLE_utid, row, x->utid);
  ss_set_nullable(t, STACK_SAMPLE_cpu, row, x->cpu);
  storage_set_str(t, STACK_SAMPLE_cpu_mode, row, x->cpu_mode);
  storage_set_str(t, STACK_SAMPLE_unwind_error, row, x->unwind_error);
  ss_set_nullable(t, STACK_SAMPLE_counter_set_id, row, x->counter_set);
  if (x->has_process_priority)
    storage_set_i64(t, STACK_SAMPLE_process_priority, row, x->process_priority);
  return storage_table_status(t);
}

/* The extras a sample's contexts give: utid, cpu (the ucpu) and mode. */
static void ss_extras_of_contexts(trace_context *ctx, const stack_sample_row *r,
                                  stack_sample_extras *x) {
  *x = (stack_sample_extras){.utid = -1, .cpu = -1, .cpu_mode = STRING_NULL,
                             .unwind_error = STRING_NULL, .counter_set = -1};
  const storage_table *tasks = ctx_table(ctx, TABLE_STACK_SAMPLE_TASK_CONTEXT);
  if (r->task_context >= 0 && (size_t)r->task_context < tasks->row_count)
    x->utid = storage_get_i64_or(tasks, STACK_SAMPLE_TASK_CONTEXT_utid, (size_t)r->task_context, -1);
  const storage_table *ecs = ctx_table(ctx, TABLE_STACK_SAMPLE_EXECUTION_CONTEXT);
  if (r->execution_context >= 0 && (size_t)r->execution_context < ecs->row_count) {
    size_t ec = (size_t)r->execution_context;
    x->cpu = storage_get_i64_or(ecs, STACK_SAMPLE_EXECUTION_CONTEXT_ucpu, ec, -1);
    x->cpu_mode = storage_get_str(ecs, STACK_SAMPLE_EXECUTION_CONTEXT_cpu_mode, ec);
  }
}

int stack_sample_add(trace_context *ctx, const stack_sample_row *r) {
  stack_sample_extras x;
  ss_extras_of_contexts(ctx, r, &x);
  return stack_sample_add_with(ctx, r, &x);
}
