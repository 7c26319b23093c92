/* The stack samples of the profilers cpu_profile_stack_sample and
 * instruments_sample show. See model/stack_profile.h. */
#include <string.h>

#include "model/context.h"
#include "model/model.h"
#include "model/sched.h"
#include "model/stack_profile.h"
#include "model/stack_sample.h"

static stack_sample_known_source sp_cpu_source(stack_profile_cpu_source source) {
  switch (source) {
    case STACK_PROFILE_CPU_CHROME: return STACK_SAMPLE_CHROME;
    case STACK_PROFILE_CPU_LEGACY_V8: return STACK_SAMPLE_LEGACY_V8;
    case STACK_PROFILE_CPU_GECKO: return STACK_SAMPLE_GECKO;
    case STACK_PROFILE_CPU_SIMPLEPERF: return STACK_SAMPLE_SIMPLEPERF;
    case STACK_PROFILE_CPU_PERF_TEXT: return STACK_SAMPLE_PERF_TEXT;
  }
  return STACK_SAMPLE_CHROME;
}

/* Chrome and V8 samples know the thread's process; the others its thread
 * alone. */
static int sp_cpu_source_has_process(stack_profile_cpu_source source) {
  return source == STACK_PROFILE_CPU_CHROME || source == STACK_PROFILE_CPU_LEGACY_V8;
}

int stack_profile_cpu_sample(trace_context *ctx, stack_profile_cpu_source source, int64_t ts,
                             uint32_t callsite, uint32_t utid, int64_t process_priority) {
  stack_sample_row row = {ts, STRING_NULL, -1, -1, callsite, -1};
  int rc = stack_sample_source(ctx, sp_cpu_source(source), &row.source);
  if (!rc)
    rc = stack_sample_thread_task_context(ctx, utid, sp_cpu_source_has_process(source),
                                          &row.task_context);
  if (rc) return rc;
  stack_sample_extras x = {.utid = utid, .cpu = -1, .cpu_mode = STRING_NULL,
                           .unwind_error = STRING_NULL, .counter_set = -1,
                           .has_process_priority = 1, .process_priority = process_priority};
  return stack_sample_add_with(ctx, &row, &x);
}

int stack_profile_instruments_sample(trace_context *ctx, uint32_t machine, int64_t ts,
                                     uint32_t utid, int64_t callsite, int64_t cpu) {
  stack_sample_row row = {ts, STRING_NULL, -1, -1, callsite, -1};
  int rc = stack_sample_source(ctx, STACK_SAMPLE_INSTRUMENTS, &row.source);
  if (!rc) rc = stack_sample_thread_task_context(ctx, utid, 1, &row.task_context);
  if (!rc && cpu >= 0 && cpu < SCHED_MAX_CPU) {
    uint32_t ucpu, cpu_row, ec;
    rc = sched_cpu_row(ctx, machine, (uint32_t)cpu, &ucpu, &cpu_row);
    if (!rc) rc = stack_sample_execution_context(ctx, ucpu, STRING_NULL, &ec);
    if (!rc) row.execution_context = ec;
  }
  if (rc) return rc;
  stack_sample_extras x = {.utid = utid, .cpu = cpu, .cpu_mode = STRING_NULL,
                           .unwind_error = STRING_NULL, .counter_set = -1};
  return stack_sample_add_with(ctx, &row, &x);
}

int stack_profile_aggregate_profile(trace_context *ctx, const char *scope, const char *name,
                                    const char *sample_type, const char *unit, uint32_t *id) {
  const char *values[] = {scope, name, sample_type, unit};
  const size_t columns[] = {AGGREGATE_PROFILE_scope, AGGREGATE_PROFILE_name,
                            AGGREGATE_PROFILE_sample_type_type,
                            AGGREGATE_PROFILE_sample_type_unit};
  string_id ids[4];
  for (size_t i = 0; i < 4; i++) {
    int rc = ctx_intern(ctx, values[i], strlen(values[i]), &ids[i]);
    if (rc) return rc;
  }
  storage_table *t = ctx_table(ctx, TABLE_AGGREGATE_PROFILE);
  int rc = storage_table_append(t, id);
  if (rc) return rc;
  for (size_t i = 0; i < 4; i++) storage_set_str(t, columns[i], *id, ids[i]);
  return storage_table_status(t);
}

int stack_profile_aggregate_sample(trace_context *ctx, uint32_t profile, uint32_t callsite,
                                   double value) {
  storage_table *t = ctx_table(ctx, TABLE_AGGREGATE_SAMPLE);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, AGGREGATE_SAMPLE_aggregate_profile_id, row, profile);
  storage_set_i64(t, AGGREGATE_SAMPLE_callsite_id, row, callsite);
  rc = storage_set_f64(t, AGGREGATE_SAMPLE_value, row, value);
  return rc ? rc : storage_table_status(t);
}
