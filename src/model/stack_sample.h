/* Stack samples of every profiler (StackSample packets, perf samples):
 * sampling sessions, the contexts samples are attributed to, the samples,
 * and the counters read with them.
 *
 * Invariants:
 *  - task contexts are interned by (upid, utid, async context), execution
 *    contexts by (ucpu, cpu mode), each NULL part a value of its own;
 *  - a counter track is interned by (session, counter name); its type is
 *    "stack_sample_session_counter", its dimension args session_id, source
 *    and counter_name, its source args is_timebase (and unit_multiplier,
 *    description when given);
 *  - a session's timebase_unit is the unit of its first timebase counter
 *    track that has one;
 *  - every sample is stored; the stack_sample view shows those with a
 *    callsite, and stack_sample_session and the context views only the
 *    rows such samples use;
 *  - a sample's utid, cpu and cpu_mode columns repeat those of its
 *    contexts (perf_sample and the other per-source views read them). */
#ifndef WEFT_MODEL_STACK_SAMPLE_H
#define WEFT_MODEL_STACK_SAMPLE_H

#include "model/context.h"

typedef struct stack_sample_state stack_sample_state;
void stack_sample_state_free(stack_sample_state *st);

/* The profilers weft itself names as sample sources. */
typedef enum stack_sample_known_source {
  STACK_SAMPLE_LINUX_PERF,
  STACK_SAMPLE_CHROME,
  STACK_SAMPLE_LEGACY_V8,
  STACK_SAMPLE_GECKO,
  STACK_SAMPLE_SIMPLEPERF,
  STACK_SAMPLE_INSTRUMENTS,
  STACK_SAMPLE_PERF_TEXT,
  STACK_SAMPLE_KNOWN_SOURCES
} stack_sample_known_source;
/* The interned name of a known source ("linux.perf", "chrome", ...),
 * interned once per trace. */
int stack_sample_source(trace_context *ctx, stack_sample_known_source which, string_id *out);

/* A new stack_sample_session row. */
int stack_sample_session_new(trace_context *ctx, string_id source, uint32_t *id);
/* A new session whose timebase unit is known up front (STRING_NULL:
 * unknown), as a perf session's is from its timebase event. */
int stack_sample_session_with_unit(trace_context *ctx, string_id source, string_id unit,
                                   uint32_t *id);
/* A new stack_sample_async_context row (parent -1: none). */
int stack_sample_async_context_new(trace_context *ctx, string_id name, string_id kind,
                                   int64_t parent, uint32_t *id);
/* The task context (upid, utid, async context; -1 for none of each). */
int stack_sample_task_context(trace_context *ctx, int64_t upid, int64_t utid, int64_t async,
                              uint32_t *id);
/* The task context of thread utid: (its process, itself), or (NULL,
 * itself) when with_process is 0. */
int stack_sample_thread_task_context(trace_context *ctx, uint32_t utid, int with_process,
                                     int64_t *id);
/* The execution context (ucpu -1 for none, mode STRING_NULL for none). */
int stack_sample_execution_context(trace_context *ctx, int64_t ucpu, string_id mode,
                                   uint32_t *id);

typedef struct stack_sample_counter_spec {
  uint32_t session;
  string_id source, name, unit, description; /* STRING_NULL for none */
  int is_timebase;
  int has_unit_multiplier;
  int64_t unit_multiplier;
  uint32_t machine;
} stack_sample_counter_spec;
/* The counter track of (session, name), made on first use. */
int stack_sample_counter_track(trace_context *ctx, const stack_sample_counter_spec *spec,
                               uint32_t *track);

typedef struct stack_sample_row {
  int64_t ts;
  string_id source;
  int64_t task_context, execution_context, callsite; /* -1 for none */
  int64_t session;                                   /* -1 for none */
} stack_sample_row;
/* The id the next stack sample will have. */
uint32_t stack_sample_next_id(trace_context *ctx);
/* A counter value on `track` recorded with the next sample. */
int stack_sample_counter_value(trace_context *ctx, uint32_t track, int64_t ts, double value);
/* Appends a sample; its utid, cpu and cpu_mode come from its contexts. */
int stack_sample_add(trace_context *ctx, const stack_sample_row *row);

/* What a sample source knows beyond the contexts (perf samples). */
typedef struct stack_sample_extras {
  int64_t utid, cpu;                 /* -1 for none */
  string_id cpu_mode, unwind_error;  /* STRING_NULL for none */
  int64_t counter_set;               /* -1 for none */
  int has_process_priority;          /* cpu_profile_stack_sample sources */
  int64_t process_priority;
} stack_sample_extras;
/* Appends a sample with the given extras. */
int stack_sample_add_with(trace_context *ctx, const stack_sample_row *row,
                          const stack_sample_extras *extras);

#endif
