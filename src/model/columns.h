/* columns: the single-column writes importers make to rows the model
 * created (a slice's thread times, a track's name and arg sets, a row's arg
 * set). Importers write tables only through the model: these setters are
 * the narrow way for values that arrive after the row was made.
 * Invariants: the row exists (asserted by storage in debug builds); a
 * negative id or STRING_NULL leaves the column as it is. */
#ifndef WEFT_MODEL_COLUMNS_H
#define WEFT_MODEL_COLUMNS_H

#include "model/context.h"

/* The process of a thread (its upid column; 0 when not set). */
uint32_t model_thread_upid(trace_context *ctx, uint32_t utid);
/* The same, -1 when not set. */
int64_t model_thread_process(trace_context *ctx, uint32_t utid);
/* Names a thread and, when it is its process's main thread (its tid is
 * the process's pid), the process too (Perfetto's
 * UpdateThreadNameAndMaybeProcessName). */
int model_thread_set_name_and_main_process(trace_context *ctx, uint32_t utid, string_id name);
/* Renames a slice (a name known only after it began). */
void model_slice_set_name(trace_context *ctx, uint32_t slice, string_id name);
/* The arg set of a slice, or -1. */
int64_t model_slice_arg_set(trace_context *ctx, uint32_t slice);
/* A slice's thread timestamp; an instant's thread duration is then 0. */
void model_slice_set_thread_ts(trace_context *ctx, uint32_t slice, int64_t thread_ts,
                               int instant);
void model_slice_set_thread_dur(trace_context *ctx, uint32_t slice, int64_t thread_dur);
/* Ends a slice's thread time at `thread_end` when it has a thread ts. */
void model_slice_end_thread_time(trace_context *ctx, uint32_t slice, int64_t thread_end);
/* The same for the thread's instruction count: the count at the slice's
 * start (an instant's delta is then 0), and at its end. */
void model_slice_set_thread_instructions(trace_context *ctx, uint32_t slice, int64_t count,
                                         int instant);
void model_slice_end_thread_instructions(trace_context *ctx, uint32_t slice, int64_t count_end);
void model_slice_set_thread_instruction_delta(trace_context *ctx, uint32_t slice, int64_t delta);

/* ---- process and thread facts a process tree or descriptor gives ---- */

/* Android's uids: user id * MODEL_ANDROID_PER_USER_RANGE + app id. */
#define MODEL_ANDROID_PER_USER_RANGE 100000
/* A process's parent: the first one given is kept. Returns 1 when the
 * process had another parent already (nothing changes), else 0. */
int model_process_set_parent(trace_context *ctx, uint32_t upid, uint32_t parent);
int model_process_set_cmdline(trace_context *ctx, uint32_t upid, const char *cmdline,
                              size_t len);
/* The uid, and the Android app and user ids it encodes. */
void model_process_set_uid(trace_context *ctx, uint32_t upid, int64_t uid);
void model_process_set_start(trace_context *ctx, uint32_t upid, int64_t start_ts);
string_id model_process_name(trace_context *ctx, uint32_t upid);
/* A process tree's roles of a thread: is_main_thread as given; is_idle
 * set when given (an idle tid 0 stays idle). */
void model_thread_set_roles(trace_context *ctx, uint32_t utid, int is_main, int is_idle);
/* Names a thread with an interned name as it is. */
void model_thread_set_name_id(trace_context *ctx, uint32_t utid, string_id name);

/* ---- cpus ---- */

/* The facts of a cpu row (sched_cpu_row's): processor (STRING_NULL: none),
 * cluster, capacity (-1: none), arg set (-1: none). */
void model_cpu_set_info(trace_context *ctx, uint32_t row, string_id processor,
                        int64_t cluster, int64_t capacity, int64_t arg_set);
/* A cpu_available_frequencies row. */
int model_cpu_frequency(trace_context *ctx, uint32_t cpu_row, int64_t freq);

/* ---- legacy async tracks (Chrome JSON and TrackEvent legacy events) ---- */

/* The dimension args (upid when process scoped, scope, name, compressor
 * index) and the source args (source chrome, trace_id_is_process_scoped,
 * upid, source_scope) of a legacy async track, committed to *dims and *src.
 * `scope` and `root` are interned (STRING_NULL: a null string). */
int model_legacy_async_track_args(trace_context *ctx, int process_scoped, uint32_t upid,
                                  string_id scope, string_id root, uint32_t idx,
                                  int64_t *dims, int64_t *src);

/* ---- state tracks and diagnostics ---- */

/* Marks a track as a state track (event_type "state"). */
int model_track_mark_state(trace_context *ctx, uint32_t track);
/* A state value on a state track at ts: it lasts `open_dur` until the
 * track's next value, which ends it. The open value given again continues
 * (its row keeps its category; the args join, later values winning).
 * `last`: track -> its open state row (the caller's map, one per file). */
int model_state_value(trace_context *ctx, base_map *last, uint32_t track, int64_t ts,
                      string_id category, string_id value, int64_t arg_set,
                      int64_t open_dur);
/* Ends the open state of a track at ts, if any: the next value starts a
 * new row whatever it is. */
void model_state_close(trace_context *ctx, base_map *last, uint32_t track, int64_t ts);
/* A trace_diagnostics row of trace file `trace_id`. */
int model_diagnostic(trace_context *ctx, uint32_t trace_id, const char *key,
                     const char *title, const char *description,
                     const char *remediation, double confidence);

void model_track_set_name(trace_context *ctx, uint32_t track, string_id name);
void model_track_set_upid(trace_context *ctx, uint32_t track, uint32_t upid);

/* The arg set column of row `row` of `table` (a sort-index hint of a thread
 * or process, for one). */
void model_row_set_arg_set(trace_context *ctx, schema_table_id table, size_t column,
                           uint32_t row, int64_t arg_set);

#endif
