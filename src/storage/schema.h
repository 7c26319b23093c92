/* schema: every table weft stores, with Perfetto's names and column order.
 *
 * Each table is an X-macro list of (column, type, flags); from it come the
 * column-index enums (e.g. SLICE_ts) and the storage_column_def arrays. Column
 * order is the order `SELECT *` shows. Tables whose name starts with
 * "__intrinsic_" are exposed through views defined in src/sql/views.c. */
#ifndef WEFT_SCHEMA_H
#define WEFT_SCHEMA_H

#include "storage/storage.h"

#define N STORAGE_NULLABLE
#define S STORAGE_SORTED
#define H STORAGE_HIDDEN

#define MACHINE_COLUMNS(C, T)                                            \
  C(T, id, ID, 0) C(T, raw_id, I64, 0) C(T, name, STR, 0) C(T, sysname, STR, 0)   \
  C(T, release, STR, 0) C(T, version, STR, 0) C(T, arch, STR, 0)               \
  C(T, num_cpus, I64, N) C(T, android_build_fingerprint, STR, 0)            \
  C(T, android_device_manufacturer, STR, 0) C(T, android_sdk_version, I64, N) \
  C(T, system_ram_bytes, I64, N) C(T, system_ram_gb, I64, N) C(T, label_index, I64, N)

#define METADATA_COLUMNS(C, T)                                           \
  C(T, id, ID, 0) C(T, name, STR, 0) C(T, key_type, STR, 0) C(T, int_value, I64, N) \
  C(T, str_value, STR, 0) C(T, machine_id, I64, N) C(T, trace_id, I64, N)

#define STATS_COLUMNS(C, T)                                              \
  C(T, name, STR, 0) C(T, idx, I64, N) C(T, severity, STR, 0) C(T, source, STR, 0) \
  C(T, value, I64, 0) C(T, description, STR, 0) C(T, machine_id, I64, N)       \
  C(T, trace_id, I64, N)

#define TRACE_BOUNDS_COLUMNS(C, T) C(T, start_ts, I64, 0) C(T, end_ts, I64, 0)

#define TRACE_FILE_COLUMNS(C, T)                                      \
  C(T, id, ID, 0) C(T, parent_id, I64, N) C(T, name, STR, 0)          \
  C(T, size, I64, 0) C(T, trace_type, STR, 0)                         \
  C(T, processing_order, I64, N) C(T, is_container, I64, 0)

#define CLOCK_SNAPSHOT_COLUMNS(C, T)                                     \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, clock_id, I64, 0) C(T, clock_name, STR, 0) \
  C(T, clock_value, I64, 0) C(T, snapshot_id, I64, 0) C(T, machine_id, I64, N)


/* ---- the trace model (Perfetto's __intrinsic_* tables) ---- */

#define THREAD_COLUMNS(C, T)                                          \
  C(T, id, ID, 0) C(T, tid, I64, 0) C(T, name, STR, 0)                \
  C(T, start_ts, I64, N) C(T, end_ts, I64, N) C(T, upid, I64, N)      \
  C(T, is_main_thread, I64, N) C(T, is_idle, I64, 0)                  \
  C(T, machine_id, I64, N) C(T, arg_set_id, I64, N)

#define PROCESS_COLUMNS(C, T)                                         \
  C(T, id, ID, 0) C(T, pid, I64, 0) C(T, name, STR, 0)                \
  C(T, start_ts, I64, N) C(T, end_ts, I64, N) C(T, parent_upid, I64, N) \
  C(T, uid, I64, N) C(T, android_appid, I64, N)                       \
  C(T, android_user_id, I64, N) C(T, cmdline, STR, 0)                 \
  C(T, arg_set_id, I64, N) C(T, machine_id, I64, N)

/* Tracks: dimensions (utid/upid/cpu) are kept as columns for fast views and
 * also as args under dimension_arg_set_id. event_type: 'slice'|'counter'. */
#define TRACK_COLUMNS(C, T)                                           \
  C(T, id, ID, 0) C(T, name, STR, 0) C(T, parent_id, I64, N)          \
  C(T, source_arg_set_id, I64, N) C(T, machine_id, I64, N)            \
  C(T, type, STR, 0) C(T, dimension_arg_set_id, I64, N)               \
  C(T, track_group_id, I64, N) C(T, event_type, STR, 0)               \
  C(T, counter_unit, STR, 0) C(T, utid, I64, N) C(T, upid, I64, N)    \
  C(T, cpu, I64, N) C(T, description, STR, 0)

#define SLICE_COLUMNS(C, T)                                           \
  C(T, id, ID, 0) C(T, ts, I64, S) C(T, dur, I64, 0)                  \
  C(T, track_id, I64, 0) C(T, category, STR, 0) C(T, name, STR, 0)    \
  C(T, depth, I64, 0) C(T, parent_id, I64, N) C(T, arg_set_id, I64, N) \
  C(T, thread_ts, I64, N) C(T, thread_dur, I64, N)                    \
  C(T, thread_instruction_count, I64, N)                              \
  C(T, thread_instruction_delta, I64, N)

#define COUNTER_COLUMNS(C, T)                                         \
  C(T, id, ID, 0) C(T, ts, I64, S) C(T, track_id, I64, 0)             \
  C(T, value, F64, 0) C(T, arg_set_id, I64, N)

#define ARGS_COLUMNS(C, T)                                            \
  C(T, id, ID, 0) C(T, arg_set_id, I64, S) C(T, flat_key, STR, 0)     \
  C(T, key, STR, 0) C(T, int_value, I64, N) C(T, string_value, STR, 0) \
  C(T, real_value, F64, N) C(T, value_type, STR, 0)

#define CPU_COLUMNS(C, T)                                             \
  C(T, id, I64, 0) C(T, cpu, I64, N) C(T, cluster_id, I64, 0)         \
  C(T, processor, STR, 0) C(T, machine_id, I64, N) C(T, capacity, I64, N) \
  C(T, arg_set_id, I64, N)

#define SCHED_COLUMNS(C, T)                                           \
  C(T, id, ID, 0) C(T, ts, I64, S) C(T, dur, I64, 0) C(T, utid, I64, 0) \
  C(T, end_state, STR, 0) C(T, priority, I64, 0) C(T, ucpu, I64, 0)

#define THREAD_STATE_COLUMNS(C, T)                                    \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, dur, I64, 0) C(T, utid, I64, 0) \
  C(T, state, STR, 0) C(T, io_wait, I64, N) C(T, blocked_function, STR, 0) \
  C(T, waker_utid, I64, N) C(T, waker_id, I64, N) C(T, irq_context, I64, N) \
  C(T, ucpu, I64, N)

#define FTRACE_EVENT_COLUMNS(C, T)                                    \
  C(T, id, ID, 0) C(T, ts, I64, S) C(T, name, STR, 0) C(T, utid, I64, 0) \
  C(T, arg_set_id, I64, N) C(T, common_flags, I64, N) C(T, ucpu, I64, 0)

#define FLOW_COLUMNS(C, T)                                            \
  C(T, id, ID, 0) C(T, slice_out, I64, 0) C(T, slice_in, I64, 0)      \
  C(T, trace_id, I64, N) C(T, arg_set_id, I64, N)

#define CPU_FREQ_COLUMNS(C, T)                                        \
  C(T, id, ID, 0) C(T, ucpu, I64, 0) C(T, freq, I64, 0)

/* Values of state tracks (track event TYPE_STATE, tracing sessions); dur
 * runs to the next state of the same track, 0 for the last. */
#define STATE_COLUMNS(C, T)                                           \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, dur, I64, 0) C(T, track_id, I64, 0) \
  C(T, category, STR, 0) C(T, value, STR, 0) C(T, arg_set_id, I64, N)

/* Chrome legacy events kept for JSON export (ChromeEventBundle metadata,
 * legacy ftrace output, legacy user JSON traces); the payload is in args. */
#define CHROME_RAW_COLUMNS(C, T)                                      \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, name, STR, 0) C(T, utid, I64, 0) \
  C(T, arg_set_id, I64, N)

/* Problems detected in a trace's config (see import/proto/proto_misc.h). */
#define TRACE_DIAGNOSTICS_COLUMNS(C, T)                               \
  C(T, id, ID, 0) C(T, key, STR, 0) C(T, title, STR, 0)               \
  C(T, description, STR, 0) C(T, remediation, STR, 0)                 \
  C(T, confidence, F64, 0) C(T, trace_id, I64, N)

/* Log entries of every source (Android logcat, Chrome's TrackEvent log
 * messages, systemd journald), in parse order; journald's extra fields are
 * args. */
#define LOGS_COLUMNS(C, T)                                            \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, utid, I64, N) C(T, prio, I64, 0) \
  C(T, log_source, STR, 0) C(T, tag, STR, 0) C(T, msg, STR, 0)        \
  C(T, arg_set_id, I64, N)

/* Android's packages.list (PackagesList packets). */
#define PACKAGE_LIST_COLUMNS(C, T)                                    \
  C(T, id, ID, 0) C(T, package_name, STR, 0) C(T, uid, I64, N)        \
  C(T, debuggable, I64, N) C(T, profileable_from_shell, I64, N)       \
  C(T, version_code, I64, N)

/* One row per (uid, cluster) CPU-time track of CpuPerUidData, with the
 * total of its increases. */
#define ANDROID_CPU_PER_UID_TRACK_COLUMNS(C, T)                       \
  C(T, id, ID, 0) C(T, track_id, I64, 0) C(T, uid, I64, 0)            \
  C(T, cluster, I64, 0) C(T, total_cpu_millis, I64, 0)

/* The list of tables: (enum suffix, SQL name, column list). */
#define WEFT_TABLES(T)                                                \
  T(MACHINE, "machine", MACHINE_COLUMNS)                              \
  T(METADATA, "metadata", METADATA_COLUMNS)                           \
  T(STATS, "stats", STATS_COLUMNS)                                    \
  T(TRACE_BOUNDS, "trace_bounds", TRACE_BOUNDS_COLUMNS)               \
  T(TRACE_FILE, "__intrinsic_trace_file", TRACE_FILE_COLUMNS)         \
  T(CLOCK_SNAPSHOT, "__intrinsic_clock_snapshot", CLOCK_SNAPSHOT_COLUMNS) \
  T(THREAD, "__intrinsic_thread", THREAD_COLUMNS)                     \
  T(PROCESS, "__intrinsic_process", PROCESS_COLUMNS)                  \
  T(TRACK, "__intrinsic_track", TRACK_COLUMNS)                        \
  T(SLICE, "__intrinsic_slice", SLICE_COLUMNS)                        \
  T(COUNTER, "__intrinsic_counter", COUNTER_COLUMNS)                  \
  T(ARGS, "__intrinsic_args", ARGS_COLUMNS)                           \
  T(CPU, "__intrinsic_cpu", CPU_COLUMNS)                              \
  T(SCHED, "__intrinsic_sched_slice", SCHED_COLUMNS)                  \
  T(THREAD_STATE, "__intrinsic_thread_state", THREAD_STATE_COLUMNS)   \
  T(FTRACE_EVENT, "__intrinsic_ftrace_event", FTRACE_EVENT_COLUMNS)   \
  T(FLOW, "__intrinsic_flow", FLOW_COLUMNS)                           \
  T(TRACE_DIAGNOSTICS, "__intrinsic_trace_diagnostics", TRACE_DIAGNOSTICS_COLUMNS) \
  T(CPU_FREQ, "__intrinsic_cpu_freq", CPU_FREQ_COLUMNS)                \
  T(STATE, "__intrinsic_state", STATE_COLUMNS)                        \
  T(CHROME_RAW, "__intrinsic_chrome_raw", CHROME_RAW_COLUMNS)        \
  T(LOGS, "__intrinsic_logs", LOGS_COLUMNS)                           \
  T(PACKAGE_LIST, "__intrinsic_package_list", PACKAGE_LIST_COLUMNS)   \
  T(ANDROID_CPU_PER_UID_TRACK, "__intrinsic_android_cpu_per_uid_track", \
    ANDROID_CPU_PER_UID_TRACK_COLUMNS)

/* Column index enums: MACHINE_raw_id, SLICE_ts, ..., MACHINE_COLUMN_COUNT. */
#define SCHEMA_ENUM_ITEM(TAB, col, type, flags) TAB##_##col,
#define SCHEMA_DEFINE_ENUM(TAB, NAME, COLS) \
  enum { COLS(SCHEMA_ENUM_ITEM, TAB) TAB##_COLUMN_COUNT };
WEFT_TABLES(SCHEMA_DEFINE_ENUM)

#define SCHEMA_TABLE_ENUM(TAB, NAME, COLS) TABLE_##TAB,
typedef enum schema_table_id {
  WEFT_TABLES(SCHEMA_TABLE_ENUM) TABLE_COUNT
} schema_table_id;

typedef struct schema_table_def {
  const char *name;
  const storage_column_def *columns;
  size_t column_count;
} schema_table_def;

extern const schema_table_def schema_tables[TABLE_COUNT];

/* ---- references between tables ----
 * Every column that holds another table's id (the value of that table's
 * first column: its row index where that column is an ID) or an arg set id
 * (TABLE_ARG_SET: a value of args.arg_set_id). A NULL refers to nothing.
 * Debug builds check them all after every load (schema_check_refs). */
#define TABLE_ARG_SET TABLE_COUNT /* a pseudo-table: the arg sets */
#define WEFT_REFS(R)                                                            \
  R(THREAD, upid, PROCESS) R(THREAD, machine_id, MACHINE) R(THREAD, arg_set_id, ARG_SET) \
  R(PROCESS, parent_upid, PROCESS) R(PROCESS, arg_set_id, ARG_SET)                \
  R(PROCESS, machine_id, MACHINE)                                               \
  R(TRACK, parent_id, TRACK) R(TRACK, source_arg_set_id, ARG_SET)                \
  R(TRACK, machine_id, MACHINE) R(TRACK, dimension_arg_set_id, ARG_SET)          \
  R(TRACK, utid, THREAD) R(TRACK, upid, PROCESS)                                 \
  R(SLICE, track_id, TRACK) R(SLICE, parent_id, SLICE) R(SLICE, arg_set_id, ARG_SET) \
  R(COUNTER, track_id, TRACK) R(COUNTER, arg_set_id, ARG_SET)                    \
  R(CPU, machine_id, MACHINE) R(CPU, arg_set_id, ARG_SET)                        \
  R(SCHED, utid, THREAD) R(SCHED, ucpu, CPU)                                     \
  R(THREAD_STATE, utid, THREAD) R(THREAD_STATE, waker_utid, THREAD)              \
  R(THREAD_STATE, waker_id, THREAD_STATE) R(THREAD_STATE, ucpu, CPU)             \
  R(FTRACE_EVENT, utid, THREAD) R(FTRACE_EVENT, arg_set_id, ARG_SET)             \
  R(FTRACE_EVENT, ucpu, CPU)                                                    \
  R(FLOW, slice_out, SLICE) R(FLOW, slice_in, SLICE) R(FLOW, arg_set_id, ARG_SET) \
  R(CPU_FREQ, ucpu, CPU) R(STATE, track_id, TRACK) R(STATE, arg_set_id, ARG_SET) \
  R(CHROME_RAW, utid, THREAD) R(CHROME_RAW, arg_set_id, ARG_SET)                \
  R(METADATA, machine_id, MACHINE) R(METADATA, trace_id, TRACE_FILE)             \
  R(STATS, machine_id, MACHINE) R(STATS, trace_id, TRACE_FILE)                   \
  R(CLOCK_SNAPSHOT, machine_id, MACHINE) R(TRACE_FILE, parent_id, TRACE_FILE)    \
  R(TRACE_DIAGNOSTICS, trace_id, TRACE_FILE)                                    \
  R(LOGS, utid, THREAD) R(LOGS, arg_set_id, ARG_SET)                            \
  R(ANDROID_CPU_PER_UID_TRACK, track_id, TRACK)

typedef struct schema_ref {
  schema_table_id table; /* the referring column's table */
  unsigned column;       /* and its index */
  unsigned to;           /* the table referred to, or TABLE_ARG_SET */
} schema_ref;

extern const schema_ref schema_refs[];
extern const size_t schema_ref_count;

/* Counts the values of reference columns that refer to nothing (-1 if
 * memory ran out), and describes the first one in msg (cap bytes, may be 0),
 * e.g. "__intrinsic_slice.track_id = 7 (row 3): no such __intrinsic_track". */
long schema_check_refs(const storage_table tables[TABLE_COUNT], char *msg, size_t cap);

#undef N
#undef S
#undef H
#endif
