/* Perf sessions, their counter tracks and samples. See
 * model/stack_profile.h. */
#include <string.h>

#include "model/context.h"
#include "model/model.h"
#include "model/sched.h"
#include "model/stack_profile.h"
#include "model/stack_sample.h"

int stack_profile_perf_session(trace_context *ctx, string_id unit, int64_t *id) {
  string_id source;
  uint32_t row;
  int rc = stack_sample_source(ctx, STACK_SAMPLE_LINUX_PERF, &source);
  if (!rc) rc = stack_sample_session_with_unit(ctx, source, unit, &row);
  if (!rc) *id = row;
  return rc;
}

/* The execution context (ucpu, mode), -1 when neither is known. */
static int sp_perf_execution_context(trace_context *ctx, const stack_profile_perf_sample *s,
                                     int64_t *id) {
  int64_t ucpu = -1;
  uint32_t row, cpu_row;
  int rc = WEFT_OK;
  *id = -1;
  if (s->cpu >= 0 && s->cpu < SCHED_MAX_CPU) {
    rc = sched_cpu_row(ctx, s->machine, (uint32_t)s->cpu, &row, &cpu_row);
    ucpu = row;
  }
  if (rc || (ucpu < 0 && s->context_mode == STRING_NULL)) return rc;
  rc = stack_sample_execution_context(ctx, ucpu, s->context_mode, &row);
  if (!rc) *id = row;
  return rc;
}

int stack_profile_perf_sample_add(trace_context *ctx, const stack_profile_perf_sample *s) {
  stack_sample_row row = {s->ts, STRING_NULL, -1, -1, s->callsite, s->session};
  int rc = stack_sample_source(ctx, STACK_SAMPLE_LINUX_PERF, &row.source);
  if (!rc) rc = stack_sample_thread_task_context(ctx, s->utid, 1, &row.task_context);
  if (!rc) rc = sp_perf_execution_context(ctx, s, &row.execution_context);
  if (rc) return rc;
  stack_sample_extras x = {.utid = s->utid, .cpu = s->cpu, .cpu_mode = s->cpu_mode,
                           .unwind_error = s->unwind_error, .counter_set = s->counter_set};
  return stack_sample_add_with(ctx, &row, &x);
}

/* The dimension (cpu, perf_session_id, name) and source (is_timebase)
 * args of a new perf counter track. */
static int sp_perf_track_args(trace_context *ctx, uint32_t track, int64_t session, uint32_t cpu,
                              string_id name, int is_timebase) {
  int64_t dims = -1, source = -1;
  int rc = model_arg_int(ctx, "cpu", 3, MODEL_ARG_INT, cpu);
  if (!rc) rc = model_arg_int(ctx, "perf_session_id", 15, MODEL_ARG_INT, session);
  const char *text = base_string_pool_get(&ctx->strings, name);
  if (!rc) rc = model_arg_string(ctx, "name", 4, text ? text : "", text ? strlen(text) : 0,
                                 MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(ctx, &dims);
  if (!rc) rc = model_arg_int(ctx, "is_timebase", 11, MODEL_ARG_BOOL, is_timebase);
  if (!rc) rc = model_args_commit(ctx, &source);
  if (!rc) model_track_set_arg_sets(ctx, track, dims, source);
  return rc;
}

int stack_profile_perf_counter_track(trace_context *ctx, uint32_t machine, int64_t session,
                                     uint32_t cpu, string_id name, int is_timebase,
                                     uint32_t *track) {
  model_track_spec s;
  model_track_spec_init(&s);
  s.name = base_string_pool_get(&ctx->strings, name);
  s.type = "perf_cpu_counter";
  s.is_counter = 1;
  s.machine = machine;
  s.extra_key = (uint64_t)session << 32 | cpu;
  size_t before = ctx_table(ctx, TABLE_TRACK)->row_count;
  int rc = model_track(ctx, &s, track);
  if (rc || *track < before) return rc;
  uint32_t ucpu; /* a cpu counter track: its cpu is a column too (cpu_counter_track) */
  if (sched_ucpu(ctx, machine, cpu, &ucpu) == WEFT_OK)
    storage_set_i64(ctx_table(ctx, TABLE_TRACK), TRACK_cpu, *track, ucpu);
  return sp_perf_track_args(ctx, *track, session, cpu, name, is_timebase);
}

int stack_profile_counter_set(trace_context *ctx, const uint32_t *counters, size_t n,
                              int64_t *set) {
  storage_table *t = ctx_table(ctx, TABLE_PROFILER_COUNTER_SET);
  *set = n ? (int64_t)t->row_count : -1;
  for (size_t i = 0; i < n; i++) {
    uint32_t row;
    int rc = storage_table_append(t, &row);
    if (rc) return rc;
    storage_set_i64(t, PROFILER_COUNTER_SET_counter_set_id, row, *set);
    storage_set_i64(t, PROFILER_COUNTER_SET_counter_id, row, counters[i]);
  }
  return storage_table_status(t);
}
