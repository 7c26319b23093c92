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
  C(T, id, ID, 0) C(T, name, STR, 0) C(T, key, I64, 0) C(T, idx, I64, N)              \
  C(T, severity, STR, 0) C(T, source, STR, 0)                                          \
  C(T, value, I64, 0) C(T, description, STR, 0) C(T, machine_id, I64, N)       \
  C(T, trace_id, I64, N)

#define TRACE_BOUNDS_COLUMNS(C, T) C(T, start_ts, I64, 0) C(T, end_ts, I64, 0)

#define TRACE_FILE_COLUMNS(C, T)                                      \
  C(T, id, ID, 0) C(T, parent_id, I64, N) C(T, name, STR, 0)          \
  C(T, size, I64, 0) C(T, trace_type, STR, 0)                         \
  C(T, processing_order, I64, N) C(T, is_container, I64, 0)

/* weft's own: how each trace file was placed on the timeline (core/placement.c). */
#define PLACEMENT_COLUMNS(C, T)                                            \
  C(T, trace_file_id, I64, 0) C(T, file_name, STR, 0) C(T, trace_type, STR, 0) \
  C(T, machine_id, I64, N) C(T, machine_name, STR, 0) C(T, clock_name, STR, 0) \
  C(T, rule, STR, 0) C(T, is_guess, I64, 0) C(T, clock_path, STR, 0)        \
  C(T, offset_ns, I64, N) C(T, dropped_events, I64, 0) C(T, detail, STR, 0)

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

/* ---- Java heap graphs (model/heap_graph.c) ----
 * One dump is the rows with the same (upid, graph_sample_ts). Objects and
 * classes get rows when first met (as an owner, a referent or a type); a
 * reference row per reference field, its owner's rows contiguous from the
 * owner's reference_set_id. */
#define HEAP_GRAPH_COLUMNS(C, T)                                      \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, upid, I64, 0)                 \
  C(T, dump_reason, STR, 0) C(T, heap_size, I64, N) C(T, truncated, I64, 0)

#define HEAP_GRAPH_CLASS_COLUMNS(C, T)                                \
  C(T, id, ID, 0) C(T, name, STR, 0) C(T, deobfuscated_name, STR, 0)  \
  C(T, location, STR, 0) C(T, superclass_id, I64, N)                  \
  C(T, classloader_id, I64, N) C(T, kind, STR, 0)

#define HEAP_GRAPH_OBJECT_COLUMNS(C, T)                               \
  C(T, id, ID, 0) C(T, upid, I64, 0) C(T, graph_sample_ts, I64, 0)    \
  C(T, self_size, I64, 0) C(T, native_size, I64, 0)                   \
  C(T, reference_set_id, I64, N) C(T, reachable, I64, 0)              \
  C(T, heap_type, STR, 0) C(T, type_id, I64, N) C(T, root_type, STR, 0) \
  C(T, root_distance, I64, N) C(T, object_data_id, I64, N)

#define HEAP_GRAPH_OBJECT_DATA_COLUMNS(C, T)                          \
  C(T, id, ID, 0) C(T, field_set_id, I64, N) C(T, value_string, STR, 0) \
  C(T, array_element_type, STR, 0) C(T, array_element_count, I64, N)  \
  C(T, array_data_id, I64, N) C(T, array_data_hash, I64, N)

#define HEAP_GRAPH_REFERENCE_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, reference_set_id, I64, 0) C(T, owner_id, I64, 0) \
  C(T, owned_id, I64, N) C(T, field_name, STR, 0)                     \
  C(T, field_type_name, STR, 0) C(T, deobfuscated_field_name, STR, 0)

#define HEAP_GRAPH_PRIMITIVE_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, field_set_id, I64, 0) C(T, field_name, STR, 0) \
  C(T, field_type, STR, 0) C(T, bool_value, I64, N) C(T, byte_value, I64, N) \
  C(T, char_value, I64, N) C(T, short_value, I64, N) C(T, int_value, I64, N) \
  C(T, long_value, I64, N) C(T, float_value, F64, N) C(T, double_value, F64, N)

/* ART process metadata (model/heap_graph_oome.c): the details of the
 * OutOfMemoryError of an OOME heap_graph row, and the failing thread's
 * Java stack. */
#define HEAP_GRAPH_JAVA_OOME_DETAILS_COLUMNS(C, T)                    \
  C(T, id, ID, 0) C(T, heap_graph_id, I64, 0)                         \
  C(T, allocation_size_bytes, I64, 0) C(T, total_bytes_free, I64, 0) \
  C(T, free_bytes_until_oom, I64, 0) C(T, error_msg, STR, 0)
#define HEAP_GRAPH_THREAD_CALLSITE_COLUMNS(C, T)                      \
  C(T, id, ID, 0) C(T, heap_graph_id, I64, 0) C(T, utid, I64, 0)      \
  C(T, callsite_id, I64, N)
/* Callstacks (model/stack_profile.h): interned mappings, frames and
 * callsites, shared by every profile kind. */
#define STACK_PROFILE_MAPPING_COLUMNS(C, T)                           \
  C(T, id, ID, 0) C(T, build_id, STR, 0) C(T, exact_offset, I64, 0)   \
  C(T, start_offset, I64, 0) C(T, start, I64, 0) C(T, end, I64, 0)    \
  C(T, load_bias, I64, 0) C(T, name, STR, 0)

#define STACK_PROFILE_FRAME_COLUMNS(C, T)                             \
  C(T, id, ID, 0) C(T, name, STR, 0) C(T, mapping, I64, 0)            \
  C(T, rel_pc, I64, 0) C(T, symbol_set_id, I64, N)                    \
  C(T, deobfuscated_name, STR, 0) C(T, type, STR, 0)

/* Profiles of counts per callstack without times (collapsed stacks): a
 * profile per file and a sample per (profile, callsite) line. */
#define AGGREGATE_PROFILE_COLUMNS(C, T)                               \
  C(T, id, ID, 0) C(T, scope, STR, 0) C(T, name, STR, 0)              \
  C(T, sample_type_type, STR, 0) C(T, sample_type_unit, STR, 0)
#define AGGREGATE_SAMPLE_COLUMNS(C, T)                                \
  C(T, id, ID, 0) C(T, aggregate_profile_id, I64, 0) C(T, callsite_id, I64, 0) \
  C(T, value, F64, 0)

#define STACK_PROFILE_CALLSITE_COLUMNS(C, T)                          \
  C(T, id, ID, 0) C(T, depth, I64, 0) C(T, parent_id, I64, N)         \
  C(T, frame_id, I64, 0)

/* A frame's source: the rows of one symbol_set_id (a frame's
 * stack_profile_frame.symbol_set_id). */
#define STACK_PROFILE_SYMBOL_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, symbol_set_id, I64, 0) C(T, name, STR, 0)      \
  C(T, source_file, STR, 0) C(T, line_number, I64, N) C(T, inlined, I64, N)

/* The callstacks of track events: a row per event that carries one, the
 * begin's (callsite_id) or the end's (end_callsite_id) with its weight. */
#define TRACK_EVENT_CALLSTACKS_COLUMNS(C, T)                          \
  C(T, id, ID, 0) C(T, slice_id, I64, 0) C(T, track_id, I64, 0)       \
  C(T, callsite_id, I64, N) C(T, end_callsite_id, I64, N) C(T, weight, F64, N)

/* Heap profiles: one row per change of a callsite's allocated (count,
 * size > 0) or freed (< 0) total between dumps. */
#define HEAP_PROFILE_ALLOCATION_COLUMNS(C, T)                         \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, upid, I64, 0)                 \
  C(T, heap_name, STR, 0) C(T, callsite_id, I64, 0) C(T, count, I64, 0) \
  C(T, size, I64, 0)

/* Heap profiles: one row per process dump (heap_name NULL when the dump
 * names none). */
#define HEAP_PROFILE_COLUMNS(C, T)                                    \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, ts_end, I64, 0) C(T, dur, I64, 0) \
  C(T, upid, I64, 0) C(T, heap_name, STR, 0)

/* The counters a sample read: the rows of one counter_set_id (the id of
 * its first row). */
#define PROFILER_COUNTER_SET_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, counter_set_id, I64, 0) C(T, counter_id, I64, 0)
/* SmapsPacket entries of a process at a time (path_trimmed: path without a
 * " (deleted)" suffix, is_deleted when it had one). */
#define PROFILER_SMAPS_COLUMNS(C, T)                                  \
  C(T, id, ID, 0) C(T, upid, I64, 0) C(T, ts, I64, 0) C(T, path, STR, 0) \
  C(T, path_trimmed, STR, 0) C(T, aggregate_count, I64, 0)            \
  C(T, is_deleted, I64, 0) C(T, size_kb, I64, 0)                      \
  C(T, private_dirty_kb, I64, 0) C(T, swap_kb, I64, 0)                \
  C(T, file_name, STR, 0) C(T, start_address, I64, 0)                 \
  C(T, module_timestamp, I64, 0) C(T, module_debugid, STR, 0)         \
  C(T, module_debug_path, STR, 0) C(T, protection_flags, I64, 0)      \
  C(T, private_clean_resident_kb, I64, 0)                             \
  C(T, shared_dirty_resident_kb, I64, 0)                              \
  C(T, shared_clean_resident_kb, I64, 0) C(T, locked_kb, I64, 0)      \
  C(T, proportional_resident_kb, I64, 0) C(T, rss_kb, I64, 0)         \
  C(T, anonymous_kb, I64, 0) C(T, pss_dirty_kb, I64, 0)               \
  C(T, swap_pss_kb, I64, 0)

/* Stack samples (model/stack_sample.h): sessions (one per sequence, of
 * StackSample packets or perf samples),
 * async / task / execution contexts (interned by value), samples, and the
 * counter tracks and values recorded with them. */
#define STACK_SAMPLE_SESSION_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, source, STR, 0) C(T, timebase_unit, STR, 0)    \
  C(T, cmdline, STR, 0)
#define STACK_SAMPLE_ASYNC_CONTEXT_COLUMNS(C, T)                      \
  C(T, id, ID, 0) C(T, name, STR, 0) C(T, kind, STR, 0)               \
  C(T, parent_id, I64, N)
#define STACK_SAMPLE_TASK_CONTEXT_COLUMNS(C, T)                       \
  C(T, id, ID, 0) C(T, upid, I64, N) C(T, utid, I64, N)               \
  C(T, async_context_id, I64, N)
#define STACK_SAMPLE_EXECUTION_CONTEXT_COLUMNS(C, T)                  \
  C(T, id, ID, 0) C(T, ucpu, I64, N) C(T, cpu_mode, STR, 0)
/* Samples of every profiler source (perf samples: source "linux.perf";
 * chrome, legacy_v8, gecko, simpleperf, instruments); utid, cpu and
 * cpu_mode repeat those of the sample's contexts so the per-source views
 * need no join. */
#define STACK_SAMPLE_COLUMNS(C, T)                                    \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, source, STR, 0)               \
  C(T, task_context_id, I64, N) C(T, execution_context_id, I64, N)    \
  C(T, callsite_id, I64, N) C(T, session_id, I64, N)                  \
  C(T, utid, I64, N) C(T, cpu, I64, N) C(T, cpu_mode, STR, 0)         \
  C(T, unwind_error, STR, 0) C(T, counter_set_id, I64, N)            \
  C(T, process_priority, I64, N)
#define STACK_SAMPLE_COUNTER_TRACK_COLUMNS(C, T)                      \
  C(T, id, ID, 0) C(T, track_id, I64, 0) C(T, session_id, I64, 0)     \
  C(T, cpu, I64, N) C(T, is_timebase, I64, 0)
#define STACK_SAMPLE_COUNTER_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, counter_id, I64, 0) C(T, stack_sample_id, I64, 0) \
  C(T, track_id, I64, 0)
/* GPUs (ugpu = id), as Perfetto's gpu table; created by the first event
 * naming a gpu (model/gpu.h). */
#define GPU_COLUMNS(C, T)                                             \
  C(T, id, ID, 0) C(T, gpu, I64, 0) C(T, name, STR, 0)                \
  C(T, vendor, STR, 0) C(T, model, STR, 0) C(T, architecture, STR, 0) \
  C(T, uuid, STR, 0) C(T, pci_bdf, STR, 0) C(T, machine_id, I64, N)   \
  C(T, arg_set_id, I64, N)

/* The groups of GPU counter tracks (GpuCounterDescriptor groups). */
#define GPU_COUNTER_GROUP_COLUMNS(C, T)                               \
  C(T, id, ID, 0) C(T, group_id, I64, 0) C(T, track_id, I64, 0)       \
  C(T, name, STR, 0) C(T, description, STR, 0)

/* Graphics contexts (InternedGraphicsContext) that GPU events used. */
#define GPU_CONTEXT_COLUMNS(C, T)                                     \
  C(T, id, ID, 0) C(T, context_id, I64, 0) C(T, pid, I64, N) C(T, api, STR, 0)
/* Log entries of every source (Android logcat, Chrome's TrackEvent log
 * messages, systemd journald), in parse order; journald's extra fields are
 * args. */
#define LOGS_COLUMNS(C, T)                                            \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, utid, I64, N) C(T, prio, I64, 0) \
  C(T, log_source, STR, 0) C(T, tag, STR, 0) C(T, msg, STR, 0)        \
  C(T, arg_set_id, I64, N)

/* Open file descriptors of a process (ProcessStats fds), one row each;
 * ufd is always 0, as in Perfetto. */
#define FILEDESCRIPTOR_COLUMNS(C, T)                                  \
  C(T, id, ID, 0) C(T, ufd, I64, 0) C(T, fd, I64, 0) C(T, ts, I64, 0)  \
  C(T, upid, I64, 0) C(T, path, STR, 0)

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

/* Process lifetimes the Android framework reports as track events
 * (AndroidTrackEvent process_start_event / binder_died_event): one row per
 * process life, trigger_type and hosting_type by enum name. */
#define ANDROID_TRACK_EVENT_PROCESS_COLUMNS(C, T)                     \
  C(T, id, ID, 0) C(T, upid, I64, 0) C(T, start_seq_id, I64, N)       \
  C(T, package_uid, I64, N) C(T, caller_uid, I64, N)                  \
  C(T, defining_uid, I64, N) C(T, fw_start_ts, I64, N)                \
  C(T, fw_end_ts, I64, N) C(T, trigger_type, STR, 0)                  \
  C(T, hosting_type, STR, 0) C(T, hosting_name, STR, 0)               \
  C(T, bind_application_delay_ms, I64, N)                             \
  C(T, process_start_delay_ms, I64, N)

/* Android aconfig flags (AndroidAflags snapshots), one row per flag; the
 * enums by name. */
#define ANDROID_AFLAGS_COLUMNS(C, T)                                  \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, package, STR, 0) C(T, name, STR, 0) \
  C(T, flag_namespace, STR, 0) C(T, container, STR, 0) C(T, value, STR, 0) \
  C(T, staged_value, STR, 0) C(T, permission, STR, 0)                 \
  C(T, value_picked_from, STR, 0) C(T, storage_backend, STR, 0) C(T, type, STR, 0)

/* Android users (AndroidUserList), one row per android user id. */
#define ANDROID_USER_LIST_COLUMNS(C, T)                               \
  C(T, id, ID, 0) C(T, type, STR, 0) C(T, android_user_id, I64, 0)

/* Game packages and their modes (AndroidGameInterventionList), one row per
 * package of each packet; a mode's columns are NULL when it is absent. */
#define ANDROID_GAME_INTERVENTION_LIST_COLUMNS(C, T)                  \
  C(T, id, ID, 0) C(T, package_name, STR, 0) C(T, uid, I64, 0)        \
  C(T, current_mode, I64, 0) C(T, standard_mode_supported, I64, 0)    \
  C(T, standard_mode_downscale, F64, N) C(T, standard_mode_use_angle, I64, N) \
  C(T, standard_mode_fps, F64, N) C(T, perf_mode_supported, I64, 0)   \
  C(T, perf_mode_downscale, F64, N) C(T, perf_mode_use_angle, I64, N) \
  C(T, perf_mode_fps, F64, N) C(T, battery_mode_supported, I64, 0)    \
  C(T, battery_mode_downscale, F64, N) C(T, battery_mode_use_angle, I64, N) \
  C(T, battery_mode_fps, F64, N)

/* Import log entries: a stat hit at a point of the trace, with args. */
#define TRACE_IMPORT_LOGS_COLUMNS(C, T)                               \
  C(T, id, ID, 0) C(T, trace_id, I64, N) C(T, ts, I64, N)             \
  C(T, byte_offset, I64, N) C(T, severity, STR, 0) C(T, name, STR, 0) \
  C(T, arg_set_id, I64, N)

/* Android input tracing (AndroidInputEvent): key and motion events and
 * their dispatch to windows; base64_proto_id is the string id of the
 * event's message in base64. */
#define ANDROID_MOTION_EVENTS_COLUMNS(C, T)                           \
  C(T, id, ID, 0) C(T, event_id, I64, 0) C(T, ts, I64, 0)             \
  C(T, arg_set_id, I64, N) C(T, base64_proto_id, I64, N)              \
  C(T, source, I64, N) C(T, action, I64, N) C(T, device_id, I64, N)   \
  C(T, display_id, I64, N)
#define ANDROID_KEY_EVENTS_COLUMNS(C, T)                              \
  ANDROID_MOTION_EVENTS_COLUMNS(C, T) C(T, key_code, I64, N)
#define ANDROID_INPUT_EVENT_DISPATCH_COLUMNS(C, T)                    \
  C(T, id, ID, 0) C(T, event_id, I64, 0) C(T, arg_set_id, I64, N)     \
  C(T, vsync_id, I64, 0) C(T, window_id, I64, 0)                      \
  C(T, base64_proto_id, I64, N)

/* A winscope state dump (input method clients, service, manager service):
 * its message's fields are its args. */
#define WINSCOPE_DUMP_COLUMNS(C, T)                                   \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, arg_set_id, I64, N)           \
  C(T, base64_proto_id, I64, N)

/* Shell transition handlers (ShellHandlerMappings): one row per mapping,
 * base64_proto_id the whole mappings message; and every ShellTransition
 * message kept with its transition id. */
#define SHELL_TRANSITION_HANDLERS_COLUMNS(C, T)                       \
  C(T, id, ID, 0) C(T, handler_id, I64, 0) C(T, handler_name, STR, 0) \
  C(T, base64_proto_id, I64, N)
#define SHELL_TRANSITION_PROTOS_COLUMNS(C, T)                         \
  C(T, id, ID, 0) C(T, transition_id, I64, 0) C(T, base64_proto_id, I64, N)
/* A shell transition, its messages merged (proto_shell_transition.h);
 * status "merged", "played", "aborted" or NULL. */
#define SHELL_TRANSITIONS_COLUMNS(C, T)                               \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, transition_id, I64, 0)        \
  C(T, arg_set_id, I64, N) C(T, transition_type, I64, N)              \
  C(T, send_time_ns, I64, N) C(T, dispatch_time_ns, I64, N)           \
  C(T, duration_ns, I64, N) C(T, finish_time_ns, I64, N)              \
  C(T, shell_abort_time_ns, I64, N) C(T, wm_abort_time_ns, I64, N)    \
  C(T, merge_time_ns, I64, N) C(T, create_time_ns, I64, N)            \
  C(T, handler, I64, N) C(T, status, STR, 0) C(T, flags, I64, N)      \
  C(T, start_transaction_id, I64, N) C(T, finish_transaction_id, I64, N)
/* A change of a shell transition message: one row each. */
#define SHELL_TRANSITION_PARTICIPANTS_COLUMNS(C, T)                   \
  C(T, id, ID, 0) C(T, transition_id, I64, 0) C(T, layer_id, I64, N)  \
  C(T, window_id, I64, N) C(T, mode, I64, N) C(T, flags, I64, N)      \
  C(T, start_display_id, I64, N) C(T, end_display_id, I64, N)         \
  C(T, start_rotation, I64, N) C(T, end_rotation, I64, N)             \
  C(T, start_abs_bounds_rect_id, I64, N) C(T, end_abs_bounds_rect_id, I64, N)
/* View capture snapshots (WinscopeExtensions viewcapture) and their views;
 * the de-interned names as columns. */
#define VIEWCAPTURE_COLUMNS(C, T)                                     \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, arg_set_id, I64, N)           \
  C(T, base64_proto_id, I64, N) C(T, package_name, STR, 0)            \
  C(T, window_name, STR, 0)
#define VIEWCAPTURE_VIEW_COLUMNS(C, T)                                \
  C(T, id, ID, 0) C(T, snapshot_id, I64, 0) C(T, arg_set_id, I64, N)  \
  C(T, base64_proto_id, I64, N) C(T, node_id, I64, 0)                 \
  C(T, hashcode, I64, 0) C(T, is_visible, I64, N) C(T, parent_id, I64, 0) \
  C(T, view_id, STR, 0) C(T, class_name, STR, 0) C(T, trace_rect_id, I64, N)
/* SurfaceFlinger transactions (TransactionTraceEntry): one row per entry,
 * one per change in it (transaction_type LAYER_CHANGED, DISPLAY_CHANGED,
 * NOOP, LAYER_ADDED, LAYER_DESTROYED, DISPLAY_ADDED, DISPLAY_REMOVED,
 * LAYER_HANDLE_DESTROYED) and the flag names of each distinct `what`. */
#define SURFACEFLINGER_TRANSACTIONS_COLUMNS(C, T)                     \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, arg_set_id, I64, N)           \
  C(T, base64_proto_id, I64, N) C(T, vsync_id, I64, N)
#define SURFACEFLINGER_TRANSACTION_COLUMNS(C, T)                      \
  C(T, id, ID, 0) C(T, snapshot_id, I64, 0) C(T, arg_set_id, I64, N)  \
  C(T, base64_proto_id, I64, N) C(T, transaction_id, I64, N)          \
  C(T, pid, I64, N) C(T, uid, I64, N) C(T, layer_id, I64, N)          \
  C(T, display_id, I64, N) C(T, flags_id, I64, N)                     \
  C(T, transaction_type, STR, 0)
#define SURFACEFLINGER_TRANSACTION_FLAG_COLUMNS(C, T)                 \
  C(T, id, ID, 0) C(T, flags_id, I64, 0) C(T, flag, STR, 0)

/* SurfaceFlinger layers snapshots (LayersSnapshotProto): a row per
 * snapshot, per layer and per display; and the winscope rects they draw:
 * rects (deduplicated), transforms, the trace rects that place them and
 * the fill regions of input rects. */
#define SURFACEFLINGER_LAYERS_SNAPSHOT_COLUMNS(C, T)                  \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, arg_set_id, I64, N)           \
  C(T, base64_proto_id, I64, N) C(T, sequence_id, I64, N)             \
  C(T, has_invalid_elapsed_ts, I64, 0)
#define SURFACEFLINGER_LAYER_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, snapshot_id, I64, 0) C(T, arg_set_id, I64, N)  \
  C(T, base64_proto_id, I64, N) C(T, layer_id, I64, N)                \
  C(T, layer_name, STR, 0) C(T, is_visible, I64, 0) C(T, parent, I64, N) \
  C(T, corner_radius_tl, F64, N) C(T, corner_radius_tr, F64, N)       \
  C(T, corner_radius_bl, F64, N) C(T, corner_radius_br, F64, N)       \
  C(T, hwc_composition_type, I64, N) C(T, is_hidden_by_policy, I64, 0) \
  C(T, z_order_relative_of, I64, N) C(T, is_missing_z_parent, I64, 0) \
  C(T, layer_rect_id, I64, N) C(T, input_rect_id, I64, N)
#define SURFACEFLINGER_DISPLAY_COLUMNS(C, T)                          \
  C(T, id, ID, 0) C(T, snapshot_id, I64, 0) C(T, is_on, I64, 0)       \
  C(T, is_virtual, I64, 0) C(T, trace_rect_id, I64, 0)                \
  C(T, display_id, I64, 0) C(T, display_name, STR, 0)
/* WindowManager snapshots (WindowManagerTraceEntry) and one row per window
 * container of each, walked depth first from the root. */
#define WINDOWMANAGER_COLUMNS(C, T)                                   \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, arg_set_id, I64, N)           \
  C(T, base64_proto_id, I64, N) C(T, focused_display_id, I64, 0)      \
  C(T, has_invalid_elapsed_ts, I64, 0)
#define WINDOWMANAGER_WINDOWCONTAINER_COLUMNS(C, T)                   \
  C(T, id, ID, 0) C(T, snapshot_id, I64, 0) C(T, arg_set_id, I64, N)  \
  C(T, base64_proto_id, I64, N) C(T, title, STR, 0) C(T, token, I64, 0) \
  C(T, parent_token, I64, N) C(T, child_index, I64, N)                \
  C(T, is_visible, I64, 0) C(T, window_rect_id, I64, N)               \
  C(T, container_type, STR, 0) C(T, name_override, STR, N)
#define WINSCOPE_RECT_COLUMNS(C, T)                                   \
  C(T, id, ID, 0) C(T, x, F64, 0) C(T, y, F64, 0) C(T, w, F64, 0)     \
  C(T, h, F64, 0)
#define WINSCOPE_TRANSFORM_COLUMNS(C, T)                              \
  C(T, id, ID, 0) C(T, dsdx, F64, 0) C(T, dtdx, F64, 0) C(T, tx, F64, 0) \
  C(T, dtdy, F64, 0) C(T, dsdy, F64, 0) C(T, ty, F64, 0)
#define WINSCOPE_TRACE_RECT_COLUMNS(C, T)                             \
  C(T, id, ID, 0) C(T, rect_id, I64, 0) C(T, group_id, I64, 0)        \
  C(T, depth, I64, 0) C(T, is_spy, I64, 0) C(T, is_visible, I64, 0)   \
  C(T, opacity, F64, N) C(T, transform_id, I64, 0)                    \
  C(T, border_width, F64, N) C(T, border_color, I64, N)
#define WINSCOPE_FILL_REGION_COLUMNS(C, T)                            \
  C(T, id, ID, 0) C(T, trace_rect_id, I64, 0) C(T, rect_id, I64, 0)

/* ProtoLog messages, formatted with their viewer config. */
#define PROTOLOG_COLUMNS(C, T)                                        \
  C(T, id, ID, 0) C(T, ts, I64, 0) C(T, level, STR, 0) C(T, tag, STR, 0) \
  C(T, message, STR, 0) C(T, stacktrace, STR, 0) C(T, location, STR, 0)

/* The list of tables: (enum suffix, SQL name, column list). */
/* FrameTimeline columns of a slice (model/frame_timeline.h); the
 * expected/actual_frame_timeline_slice views join them to slice. */
#define FRAME_TIMELINE_COLUMNS(C, T)                                        \
  C(T, slice_id, I64, 0) C(T, is_actual, I64, 0)                            \
  C(T, display_frame_token, I64, N) C(T, surface_frame_token, I64, N)      \
  C(T, upid, I64, N) C(T, layer_name, STR, 0) C(T, present_type, STR, 0)   \
  C(T, on_time_finish, I64, N) C(T, gpu_composition, I64, N)              \
  C(T, jank_type, STR, 0) C(T, jank_severity_type, STR, 0)                \
  C(T, prediction_type, STR, 0) C(T, jank_tag, STR, 0)                    \
  C(T, jank_tag_experimental, STR, 0) C(T, jank_score, F64, N)            \
  C(T, latched_unsignaled_count, I64, N)                                  \
  C(T, addressable_unsignaled_latch_count, I64, N)                        \
  C(T, latched_fence_state, STR, 0)

/* Proto content analysis: only the annotated roots (model/proto_content.h). */
#define EXPERIMENTAL_PROTO_PATH_COLUMNS(C, T)                              \
  C(T, id, ID, 0) C(T, parent_id, I64, N) C(T, field_type, STR, 0)         \
  C(T, field_name, STR, 0) C(T, arg_set_id, I64, N)

#define WEFT_TABLES(T)                                                \
  T(MACHINE, "machine", MACHINE_COLUMNS)                              \
  T(METADATA, "metadata", METADATA_COLUMNS)                           \
  T(STATS, "stats", STATS_COLUMNS)                                    \
  T(TRACE_BOUNDS, "trace_bounds", TRACE_BOUNDS_COLUMNS)               \
  T(TRACE_FILE, "__intrinsic_trace_file", TRACE_FILE_COLUMNS)         \
  T(CLOCK_SNAPSHOT, "__intrinsic_clock_snapshot", CLOCK_SNAPSHOT_COLUMNS) \
  T(PLACEMENT, "weft_placement", PLACEMENT_COLUMNS)                       \
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
  T(HEAP_GRAPH, "heap_graph", HEAP_GRAPH_COLUMNS)                     \
  T(HEAP_GRAPH_CLASS, "heap_graph_class", HEAP_GRAPH_CLASS_COLUMNS)   \
  T(HEAP_GRAPH_OBJECT, "heap_graph_object", HEAP_GRAPH_OBJECT_COLUMNS) \
  T(HEAP_GRAPH_OBJECT_DATA, "heap_graph_object_data", HEAP_GRAPH_OBJECT_DATA_COLUMNS) \
  T(HEAP_GRAPH_REFERENCE, "heap_graph_reference", HEAP_GRAPH_REFERENCE_COLUMNS) \
  T(HEAP_GRAPH_PRIMITIVE, "heap_graph_primitive", HEAP_GRAPH_PRIMITIVE_COLUMNS) \
  T(HEAP_GRAPH_JAVA_OOME_DETAILS, "__intrinsic_heap_graph_java_oome_details", \
    HEAP_GRAPH_JAVA_OOME_DETAILS_COLUMNS)                               \
  T(HEAP_GRAPH_THREAD_CALLSITE, "heap_graph_thread_callsite",           \
    HEAP_GRAPH_THREAD_CALLSITE_COLUMNS)                                 \
  T(STACK_PROFILE_MAPPING, "stack_profile_mapping", STACK_PROFILE_MAPPING_COLUMNS) \
  T(STACK_PROFILE_FRAME, "stack_profile_frame", STACK_PROFILE_FRAME_COLUMNS) \
  T(STACK_PROFILE_CALLSITE, "stack_profile_callsite", STACK_PROFILE_CALLSITE_COLUMNS) \
  T(STACK_PROFILE_SYMBOL, "stack_profile_symbol", STACK_PROFILE_SYMBOL_COLUMNS) \
  T(AGGREGATE_PROFILE, "__intrinsic_aggregate_profile", AGGREGATE_PROFILE_COLUMNS) \
  T(AGGREGATE_SAMPLE, "__intrinsic_aggregate_sample", AGGREGATE_SAMPLE_COLUMNS) \
  T(TRACK_EVENT_CALLSTACKS, "__intrinsic_track_event_callstacks",       \
    TRACK_EVENT_CALLSTACKS_COLUMNS)                                     \
  T(HEAP_PROFILE_ALLOCATION, "heap_profile_allocation", HEAP_PROFILE_ALLOCATION_COLUMNS) \
  T(HEAP_PROFILE, "heap_profile", HEAP_PROFILE_COLUMNS)               \
  T(PROFILER_COUNTER_SET, "__intrinsic_profiler_counter_set",           \
    PROFILER_COUNTER_SET_COLUMNS)                                       \
  T(PROFILER_SMAPS, "profiler_smaps", PROFILER_SMAPS_COLUMNS)         \
  T(STACK_SAMPLE_SESSION, "__intrinsic_profiler_session",              \
    STACK_SAMPLE_SESSION_COLUMNS)                                       \
  T(STACK_SAMPLE_ASYNC_CONTEXT, "stack_sample_async_context",           \
    STACK_SAMPLE_ASYNC_CONTEXT_COLUMNS)                                 \
  T(STACK_SAMPLE_TASK_CONTEXT, "__intrinsic_stack_sample_task_context", \
    STACK_SAMPLE_TASK_CONTEXT_COLUMNS)                                  \
  T(STACK_SAMPLE_EXECUTION_CONTEXT,                                     \
    "__intrinsic_stack_sample_execution_context",                       \
    STACK_SAMPLE_EXECUTION_CONTEXT_COLUMNS)                             \
  T(STACK_SAMPLE, "__intrinsic_stack_sample", STACK_SAMPLE_COLUMNS)   \
  T(STACK_SAMPLE_COUNTER_TRACK, "__intrinsic_stack_sample_counter_track", \
    STACK_SAMPLE_COUNTER_TRACK_COLUMNS)                                 \
  T(STACK_SAMPLE_COUNTER, "__intrinsic_stack_sample_counter", STACK_SAMPLE_COUNTER_COLUMNS) \
  T(GPU, "__intrinsic_gpu", GPU_COLUMNS)                              \
  T(GPU_COUNTER_GROUP, "__intrinsic_gpu_counter_group", GPU_COUNTER_GROUP_COLUMNS) \
  T(GPU_CONTEXT, "__intrinsic_gpu_context", GPU_CONTEXT_COLUMNS) \
  T(LOGS, "__intrinsic_logs", LOGS_COLUMNS)                           \
  T(PACKAGE_LIST, "__intrinsic_package_list", PACKAGE_LIST_COLUMNS)   \
  T(FILEDESCRIPTOR, "__intrinsic_filedescriptor", FILEDESCRIPTOR_COLUMNS) \
  T(ANDROID_CPU_PER_UID_TRACK, "__intrinsic_android_cpu_per_uid_track", \
    ANDROID_CPU_PER_UID_TRACK_COLUMNS)                                \
  T(ANDROID_TRACK_EVENT_PROCESS, "__intrinsic_android_track_event_process", \
    ANDROID_TRACK_EVENT_PROCESS_COLUMNS)                              \
  T(TRACE_IMPORT_LOGS, "_trace_import_logs", TRACE_IMPORT_LOGS_COLUMNS) \
  T(ANDROID_AFLAGS, "__intrinsic_android_aflags", ANDROID_AFLAGS_COLUMNS) \
  T(ANDROID_MOTION_EVENTS, "__intrinsic_android_motion_events",       \
    ANDROID_MOTION_EVENTS_COLUMNS)                                    \
  T(ANDROID_KEY_EVENTS, "__intrinsic_android_key_events", ANDROID_KEY_EVENTS_COLUMNS) \
  T(ANDROID_INPUT_EVENT_DISPATCH, "__intrinsic_android_input_event_dispatch", \
    ANDROID_INPUT_EVENT_DISPATCH_COLUMNS)                             \
  T(INPUTMETHOD_CLIENTS, "__intrinsic_inputmethod_clients", WINSCOPE_DUMP_COLUMNS) \
  T(INPUTMETHOD_SERVICE, "__intrinsic_inputmethod_service", WINSCOPE_DUMP_COLUMNS) \
  T(INPUTMETHOD_MANAGER_SERVICE, "__intrinsic_inputmethod_manager_service", \
    WINSCOPE_DUMP_COLUMNS)                                            \
  T(SHELL_TRANSITION_HANDLERS, "__intrinsic_window_manager_shell_transition_handlers", \
    SHELL_TRANSITION_HANDLERS_COLUMNS)                                \
  T(SHELL_TRANSITION_PROTOS, "__intrinsic_window_manager_shell_transition_protos", \
    SHELL_TRANSITION_PROTOS_COLUMNS)                                  \
  T(SHELL_TRANSITIONS, "__intrinsic_window_manager_shell_transitions", \
    SHELL_TRANSITIONS_COLUMNS)                                        \
  T(SHELL_TRANSITION_PARTICIPANTS, "__intrinsic_window_manager_shell_transition_participants", \
    SHELL_TRANSITION_PARTICIPANTS_COLUMNS)                            \
  T(VIEWCAPTURE, "__intrinsic_viewcapture", VIEWCAPTURE_COLUMNS)      \
  T(VIEWCAPTURE_VIEW, "__intrinsic_viewcapture_view", VIEWCAPTURE_VIEW_COLUMNS) \
  T(PROTOLOG, "__intrinsic_protolog", PROTOLOG_COLUMNS)               \
  T(SURFACEFLINGER_TRANSACTIONS, "__intrinsic_surfaceflinger_transactions", \
    SURFACEFLINGER_TRANSACTIONS_COLUMNS)                              \
  T(SURFACEFLINGER_TRANSACTION, "__intrinsic_surfaceflinger_transaction", \
    SURFACEFLINGER_TRANSACTION_COLUMNS)                               \
  T(SURFACEFLINGER_TRANSACTION_FLAG, "__intrinsic_surfaceflinger_transaction_flag", \
    SURFACEFLINGER_TRANSACTION_FLAG_COLUMNS)                          \
  T(SURFACEFLINGER_LAYERS_SNAPSHOT, "__intrinsic_surfaceflinger_layers_snapshot", \
    SURFACEFLINGER_LAYERS_SNAPSHOT_COLUMNS)                           \
  T(SURFACEFLINGER_LAYER, "__intrinsic_surfaceflinger_layer", SURFACEFLINGER_LAYER_COLUMNS) \
  T(SURFACEFLINGER_DISPLAY, "__intrinsic_surfaceflinger_display",     \
    SURFACEFLINGER_DISPLAY_COLUMNS)                                   \
  T(WINDOWMANAGER, "__intrinsic_windowmanager", WINDOWMANAGER_COLUMNS) \
  T(WINDOWMANAGER_WINDOWCONTAINER, "__intrinsic_windowmanager_windowcontainer", \
    WINDOWMANAGER_WINDOWCONTAINER_COLUMNS)                            \
  T(WINSCOPE_RECT, "__intrinsic_winscope_rect", WINSCOPE_RECT_COLUMNS) \
  T(WINSCOPE_TRANSFORM, "__intrinsic_winscope_transform", WINSCOPE_TRANSFORM_COLUMNS) \
  T(WINSCOPE_TRACE_RECT, "__intrinsic_winscope_trace_rect", WINSCOPE_TRACE_RECT_COLUMNS) \
  T(WINSCOPE_FILL_REGION, "__intrinsic_winscope_fill_region", WINSCOPE_FILL_REGION_COLUMNS) \
  T(EXPERIMENTAL_PROTO_PATH, "__intrinsic_experimental_proto_path",      \
    EXPERIMENTAL_PROTO_PATH_COLUMNS)                                   \
  T(FRAME_TIMELINE, "__intrinsic_frame_timeline", FRAME_TIMELINE_COLUMNS) \
  T(ANDROID_USER_LIST, "__intrinsic_android_user_list", ANDROID_USER_LIST_COLUMNS) \
  T(ANDROID_GAME_INTERVENTION_LIST, "__intrinsic_android_game_intervention_list", \
    ANDROID_GAME_INTERVENTION_LIST_COLUMNS)

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
  R(HEAP_GRAPH, upid, PROCESS) R(HEAP_GRAPH_CLASS, superclass_id, HEAP_GRAPH_CLASS) \
  R(HEAP_GRAPH_OBJECT, upid, PROCESS) R(HEAP_GRAPH_OBJECT, type_id, HEAP_GRAPH_CLASS) \
  R(HEAP_GRAPH_OBJECT, object_data_id, HEAP_GRAPH_OBJECT_DATA)                  \
  R(HEAP_GRAPH_REFERENCE, owner_id, HEAP_GRAPH_OBJECT)                          \
  R(HEAP_GRAPH_REFERENCE, owned_id, HEAP_GRAPH_OBJECT)                          \
  R(STACK_PROFILE_FRAME, mapping, STACK_PROFILE_MAPPING)                       \
  R(STACK_PROFILE_CALLSITE, parent_id, STACK_PROFILE_CALLSITE)                 \
  R(STACK_PROFILE_CALLSITE, frame_id, STACK_PROFILE_FRAME)                     \
  R(TRACK_EVENT_CALLSTACKS, slice_id, SLICE) R(TRACK_EVENT_CALLSTACKS, track_id, TRACK) \
  R(TRACK_EVENT_CALLSTACKS, callsite_id, STACK_PROFILE_CALLSITE)               \
  R(TRACK_EVENT_CALLSTACKS, end_callsite_id, STACK_PROFILE_CALLSITE)           \
  R(HEAP_PROFILE_ALLOCATION, upid, PROCESS) R(HEAP_PROFILE, upid, PROCESS)     \
  R(HEAP_PROFILE_ALLOCATION, callsite_id, STACK_PROFILE_CALLSITE)              \
  R(AGGREGATE_SAMPLE, aggregate_profile_id, AGGREGATE_PROFILE)                 \
  R(AGGREGATE_SAMPLE, callsite_id, STACK_PROFILE_CALLSITE)                     \
  R(PROFILER_SMAPS, upid, PROCESS)                                             \
  R(STACK_SAMPLE_ASYNC_CONTEXT, parent_id, STACK_SAMPLE_ASYNC_CONTEXT)         \
  R(STACK_SAMPLE_TASK_CONTEXT, upid, PROCESS) R(STACK_SAMPLE_TASK_CONTEXT, utid, THREAD) \
  R(STACK_SAMPLE_TASK_CONTEXT, async_context_id, STACK_SAMPLE_ASYNC_CONTEXT)    \
  R(STACK_SAMPLE_EXECUTION_CONTEXT, ucpu, CPU)                                 \
  R(STACK_SAMPLE, task_context_id, STACK_SAMPLE_TASK_CONTEXT)                  \
  R(STACK_SAMPLE, execution_context_id, STACK_SAMPLE_EXECUTION_CONTEXT)        \
  R(STACK_SAMPLE, callsite_id, STACK_PROFILE_CALLSITE)                         \
  R(STACK_SAMPLE, session_id, STACK_SAMPLE_SESSION)                            \
  R(STACK_SAMPLE, utid, THREAD)                                                \
  R(STACK_SAMPLE_COUNTER_TRACK, track_id, TRACK)                               \
  R(STACK_SAMPLE_COUNTER_TRACK, session_id, STACK_SAMPLE_SESSION)              \
  R(STACK_SAMPLE_COUNTER, counter_id, COUNTER)                                 \
  R(STACK_SAMPLE_COUNTER, stack_sample_id, STACK_SAMPLE)                       \
  R(STACK_SAMPLE_COUNTER, track_id, TRACK)                                     \
  R(GPU, machine_id, MACHINE) R(GPU, arg_set_id, ARG_SET)                        \
  R(GPU_COUNTER_GROUP, track_id, TRACK) \
  R(LOGS, utid, THREAD) R(LOGS, arg_set_id, ARG_SET)                            \
  R(ANDROID_CPU_PER_UID_TRACK, track_id, TRACK)                                \
  R(ANDROID_TRACK_EVENT_PROCESS, upid, PROCESS)                                \
  R(FILEDESCRIPTOR, upid, PROCESS)                                             \
  R(TRACE_IMPORT_LOGS, trace_id, TRACE_FILE) R(TRACE_IMPORT_LOGS, arg_set_id, ARG_SET) \
  R(SHELL_TRANSITIONS, arg_set_id, ARG_SET)                                    \
  R(SHELL_TRANSITION_PARTICIPANTS, start_abs_bounds_rect_id, WINSCOPE_RECT)    \
  R(SHELL_TRANSITION_PARTICIPANTS, end_abs_bounds_rect_id, WINSCOPE_RECT)      \
  R(VIEWCAPTURE, arg_set_id, ARG_SET) R(VIEWCAPTURE_VIEW, arg_set_id, ARG_SET)  \
  R(VIEWCAPTURE_VIEW, snapshot_id, VIEWCAPTURE)                                \
  R(WINDOWMANAGER, arg_set_id, ARG_SET)                                        \
  R(WINDOWMANAGER_WINDOWCONTAINER, arg_set_id, ARG_SET)                        \
  R(WINDOWMANAGER_WINDOWCONTAINER, snapshot_id, WINDOWMANAGER)                 \
  R(WINDOWMANAGER_WINDOWCONTAINER, window_rect_id, WINSCOPE_TRACE_RECT)        \
  R(ANDROID_MOTION_EVENTS, arg_set_id, ARG_SET) R(ANDROID_KEY_EVENTS, arg_set_id, ARG_SET) \
  R(ANDROID_INPUT_EVENT_DISPATCH, arg_set_id, ARG_SET)                         \
  R(INPUTMETHOD_CLIENTS, arg_set_id, ARG_SET) R(INPUTMETHOD_SERVICE, arg_set_id, ARG_SET) \
  R(INPUTMETHOD_MANAGER_SERVICE, arg_set_id, ARG_SET)                          \
  R(EXPERIMENTAL_PROTO_PATH, arg_set_id, ARG_SET)                              \
  R(SURFACEFLINGER_LAYERS_SNAPSHOT, arg_set_id, ARG_SET)                       \
  R(SURFACEFLINGER_LAYER, arg_set_id, ARG_SET)                                 \
  R(SURFACEFLINGER_TRANSACTIONS, arg_set_id, ARG_SET)                          \
  R(SURFACEFLINGER_TRANSACTION, arg_set_id, ARG_SET)

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
