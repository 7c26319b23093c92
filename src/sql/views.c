/* Views over the storage tables (Perfetto's public table names and column
 * orders), and the stdlib modules that INCLUDE PERFETTO MODULE can load. */
#include "sql/sql.h"

#define TRACK_BASE "id, name, type, parent_id, source_arg_set_id, machine_id"
/* A view with these columns and no rows. */
#define EMPTY_VIEW(name, columns) "CREATE VIEW " name " AS SELECT " columns " LIMIT 0"
/* A track's description is its source arg "description" (the model's
 * track blueprints and track descriptors write it there). */
#define TRACK_DESCRIPTION "extract_arg(source_arg_set_id, 'description') AS description"
#define COUNTER_TRACK_BASE \
  TRACK_BASE ", counter_unit AS unit, " TRACK_DESCRIPTION

const char *const sql_view_statements[] = {
    "CREATE VIEW trace_file AS SELECT * FROM __intrinsic_trace_file",
    "CREATE VIEW clock_snapshot AS SELECT * FROM __intrinsic_clock_snapshot",
    "CREATE VIEW thread AS SELECT id AS utid, * FROM __intrinsic_thread",
    "CREATE VIEW process AS SELECT id AS upid, * FROM __intrinsic_process",
    "CREATE VIEW track AS SELECT id, name, type, dimension_arg_set_id, "
    "parent_id, source_arg_set_id, machine_id, track_group_id FROM __intrinsic_track",
    "CREATE VIEW thread_track AS SELECT " TRACK_BASE ", utid FROM "
    "__intrinsic_track WHERE event_type = 'slice' AND utid IS NOT NULL",
    "CREATE VIEW process_track AS SELECT " TRACK_BASE ", upid FROM "
    "__intrinsic_track WHERE event_type = 'slice' AND upid IS NOT NULL",
    /* __intrinsic_track.cpu is the ucpu (model/sched.h); views show the
     * cpu number, machine_id says whose. */
    "CREATE VIEW cpu_track AS SELECT " TRACK_BASE ", cpu % 4096 AS cpu FROM "
    "__intrinsic_track WHERE event_type = 'slice' AND cpu IS NOT NULL",
    "CREATE VIEW counter_track AS SELECT id, name, parent_id, type, "
    "dimension_arg_set_id, source_arg_set_id, machine_id, counter_unit AS unit, "
    TRACK_DESCRIPTION " FROM __intrinsic_track WHERE event_type = 'counter'",
    "CREATE VIEW process_counter_track AS SELECT " COUNTER_TRACK_BASE ", upid "
    "FROM __intrinsic_track WHERE event_type = 'counter' AND upid IS NOT NULL",
    "CREATE VIEW thread_counter_track AS SELECT " COUNTER_TRACK_BASE ", utid "
    "FROM __intrinsic_track WHERE event_type = 'counter' AND utid IS NOT NULL",
    "CREATE VIEW cpu_counter_track AS SELECT " COUNTER_TRACK_BASE ", cpu % 4096 AS cpu "
    "FROM __intrinsic_track WHERE event_type = 'counter' AND cpu IS NOT NULL",
    "CREATE VIEW slice AS SELECT *, category AS cat, id AS slice_id "
    "FROM __intrinsic_slice",
    "CREATE VIEW slices AS SELECT * FROM slice",
    "CREATE VIEW instant AS SELECT ts, track_id, name, arg_set_id "
    "FROM __intrinsic_slice WHERE dur = 0",
    "CREATE VIEW counter AS SELECT * FROM __intrinsic_counter",
    "CREATE VIEW counters AS SELECT c.*, t.name AS name, t.counter_unit AS unit "
    "FROM __intrinsic_counter c JOIN __intrinsic_track t ON c.track_id = t.id "
    "ORDER BY c.ts",
    "CREATE VIEW args AS SELECT *, CASE value_type "
    "WHEN 'int' THEN CAST(int_value AS TEXT) "
    /* a uint above 2^63 - 1 is stored wrapped: its decimal digits are
     * those of u / 10 and u % 10, from q = u >> 1 (u / 10 = q / 5) */
    "WHEN 'uint' THEN CASE WHEN int_value >= 0 THEN CAST(int_value AS TEXT) "
    "ELSE CAST(((int_value >> 1) & 9223372036854775807) / 5 AS TEXT) || "
    "CAST(2 * (((int_value >> 1) & 9223372036854775807) % 5) + (int_value & 1) AS TEXT) END "
    "WHEN 'string' THEN string_value "
    "WHEN 'json' THEN string_value "
    "WHEN 'real' THEN CAST(real_value AS TEXT) "
    "WHEN 'pointer' THEN printf('0x%x', int_value) "
    "WHEN 'bool' THEN CASE WHEN int_value != 0 THEN 'true' ELSE 'false' END "
    "ELSE NULL END AS display_value FROM __intrinsic_args",
    "CREATE VIEW cpu AS SELECT id, id AS ucpu, cpu, cluster_id, processor, "
    "machine_id, capacity, arg_set_id FROM __intrinsic_cpu WHERE cpu IS NOT NULL "
    "ORDER BY id", /* rows by ucpu whatever order cpus were met in */
    "CREATE VIEW sched_slice AS SELECT id, ts, dur, ucpu AS cpu, utid, "
    "end_state, priority, ucpu FROM __intrinsic_sched_slice",
    "CREATE VIEW sched AS SELECT *, ts + dur AS ts_end FROM sched_slice",
    "CREATE VIEW thread_state AS SELECT id, ts, dur, ucpu AS cpu, utid, state, "
    "io_wait, blocked_function, waker_utid, waker_id, irq_context, ucpu "
    "FROM __intrinsic_thread_state",
    "CREATE VIEW ftrace_event AS SELECT id, ts, name, ucpu AS cpu, utid, "
    "arg_set_id, common_flags, ucpu FROM __intrinsic_ftrace_event",
    "CREATE VIEW raw AS SELECT * FROM ftrace_event",
    "CREATE VIEW flow AS SELECT * FROM __intrinsic_flow",
    "CREATE VIEW logs AS SELECT * FROM __intrinsic_logs",
    "CREATE VIEW android_logs AS SELECT id, ts, utid, prio, tag, msg "
    "FROM __intrinsic_logs WHERE log_source = 'android_logcat'",
    "CREATE VIEW trace_diagnostics AS SELECT id, key AS name, title, description, "
    "remediation, confidence, trace_id FROM __intrinsic_trace_diagnostics",
    "CREATE VIEW state AS SELECT * FROM __intrinsic_state",
    "CREATE VIEW state_track AS SELECT id, name, parent_id, type, "
    "dimension_arg_set_id, source_arg_set_id, machine_id FROM __intrinsic_track "
    "WHERE event_type = 'state'",
    "CREATE VIEW process_state_track AS SELECT " TRACK_BASE ", upid FROM "
    "__intrinsic_track WHERE event_type = 'state' AND upid IS NOT NULL",
    "CREATE VIEW thread_state_track AS SELECT " TRACK_BASE ", utid FROM "
    "__intrinsic_track WHERE event_type = 'state' AND utid IS NOT NULL",
    "CREATE VIEW gpu AS SELECT id, id AS ugpu, gpu, name, vendor, model, architecture, "
    "uuid, pci_bdf, machine_id, arg_set_id FROM __intrinsic_gpu",
    "CREATE VIEW gpu_counter_group AS SELECT * FROM __intrinsic_gpu_counter_group",
    /* Tracks loosely tied to a GPU, by type (Perfetto's list). */
    "CREATE VIEW gpu_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "dimension_arg_set_id, machine_id, type AS scope, "
    "extract_arg(source_arg_set_id, 'description') AS description, "
    "extract_arg(dimension_arg_set_id, 'context_id') AS context_id FROM __intrinsic_track "
    "WHERE type IN ('drm_vblank', 'drm_sched_ring', 'drm_fence', 'mali_mcu_state', "
    "'gpu_render_stage', 'vulkan_events', 'gpu_log', 'graphics_frame_event')",
    /* Slices of GPU render stages and Vulkan API events; their columns are
     * the slices' args of those names. */
    "CREATE VIEW gpu_slice AS SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, "
    "s.depth, s.parent_id, s.arg_set_id, extract_arg(s.arg_set_id, 'context_id') AS "
    "context_id, extract_arg(s.arg_set_id, 'render_target') AS render_target, "
    "extract_arg(s.arg_set_id, 'render_target_name') AS render_target_name, "
    "extract_arg(s.arg_set_id, 'render_pass') AS render_pass, "
    "extract_arg(s.arg_set_id, 'render_pass_name') AS render_pass_name, "
    "extract_arg(s.arg_set_id, 'command_buffer') AS command_buffer, "
    "extract_arg(s.arg_set_id, 'command_buffer_name') AS command_buffer_name, "
    "extract_arg(s.arg_set_id, 'frame_id') AS frame_id, "
    "extract_arg(s.arg_set_id, 'submission_id') AS submission_id, "
    "extract_arg(s.arg_set_id, 'hw_queue_id') AS hw_queue_id, "
    "extract_arg(s.arg_set_id, 'upid') AS upid, "
    "extract_arg(s.arg_set_id, 'render_subpasses') AS render_subpasses "
    "FROM __intrinsic_slice s JOIN __intrinsic_track t ON s.track_id = t.id "
    "WHERE t.type IN ('gpu_render_stage', 'vulkan_events')",
    "CREATE VIEW gpu_counter_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "machine_id, counter_unit AS unit, extract_arg(source_arg_set_id, 'description') AS "
    "description, extract_arg(dimension_arg_set_id, 'ugpu') AS ugpu, "
    "extract_arg(dimension_arg_set_id, 'gpu') AS gpu_id FROM __intrinsic_track "
    "WHERE type = 'gpu_counter'",
    "CREATE VIEW cpu_available_frequencies AS SELECT id, ucpu AS cpu, freq, ucpu "
    "FROM __intrinsic_cpu_freq",
    /* Tables of data weft does not import (profiles, heap graphs, Android
     * and graphics packets): empty, as Perfetto's are for a trace without
     * such data. */
    EMPTY_VIEW("memory_snapshot",
               "NULL AS id, NULL AS timestamp, NULL AS track_id, NULL AS detail_level"),
    EMPTY_VIEW("process_memory_snapshot",
               "NULL AS id, NULL AS snapshot_id, NULL AS upid"),
    EMPTY_VIEW("memory_snapshot_node",
               "NULL AS id, NULL AS process_snapshot_id, NULL AS parent_node_id, NULL AS"
               " path, NULL AS size, NULL AS effective_size, NULL AS arg_set_id"),
    EMPTY_VIEW("memory_snapshot_edge",
               "NULL AS id, NULL AS source_node_id, NULL AS target_node_id, NULL AS "
               "importance"),
    /* stack_sample: the samples that captured a callstack */
    "CREATE VIEW stack_sample AS SELECT id, ts, source, task_context_id, "
    "execution_context_id, callsite_id, session_id FROM __intrinsic_stack_sample "
    "WHERE callsite_id IS NOT NULL",
    /* the counter tracks holding a value of a sample stack_sample shows */
    "CREATE VIEW stack_sample_counter_track AS SELECT t.id AS id, t.name AS name, "
    "t.type AS type, t.parent_id AS parent_id, t.source_arg_set_id AS source_arg_set_id, "
    "t.machine_id AS machine_id, t.counter_unit AS unit, "
    "extract_arg(t.source_arg_set_id, 'description') AS description, "
    "c.session_id AS session_id, c.cpu AS cpu, c.is_timebase AS is_timebase "
    "FROM __intrinsic_stack_sample_counter_track c JOIN __intrinsic_track t "
    "ON t.id = c.track_id WHERE c.track_id IN (SELECT k.track_id FROM "
    "__intrinsic_stack_sample_counter k JOIN __intrinsic_stack_sample s "
    "ON s.id = k.stack_sample_id WHERE s.callsite_id IS NOT NULL) ORDER BY c.track_id",
    /* the counters of the samples stack_sample shows */
    "CREATE VIEW stack_sample_counter AS SELECT k.counter_id AS id, k.stack_sample_id "
    "AS stack_sample_id, k.track_id AS track_id, c.value AS value FROM "
    "__intrinsic_stack_sample_counter k JOIN __intrinsic_counter c ON c.id = k.counter_id "
    "JOIN __intrinsic_stack_sample s ON s.id = k.stack_sample_id "
    "WHERE s.callsite_id IS NOT NULL ORDER BY k.counter_id",
    /* sessions, task and execution contexts: those the samples of
     * stack_sample use */
    "CREATE VIEW stack_sample_session AS SELECT id, source, timebase_unit, cmdline FROM "
    "__intrinsic_profiler_session WHERE id IN (SELECT session_id FROM "
    "__intrinsic_stack_sample WHERE callsite_id IS NOT NULL)",
    "CREATE VIEW stack_sample_task_context AS SELECT id, upid, utid, async_context_id FROM "
    "__intrinsic_stack_sample_task_context WHERE id IN (SELECT task_context_id FROM "
    "__intrinsic_stack_sample WHERE callsite_id IS NOT NULL)",
    "CREATE VIEW stack_sample_execution_context AS SELECT id, ucpu, cpu_mode FROM "
    "__intrinsic_stack_sample_execution_context WHERE id IN (SELECT execution_context_id "
    "FROM __intrinsic_stack_sample WHERE callsite_id IS NOT NULL)",
    /* every context and smaps row, under Perfetto's intrinsic names */
    "CREATE VIEW __intrinsic_profiler_execution_context AS SELECT id, ucpu, cpu_mode FROM "
    "__intrinsic_stack_sample_execution_context",
    "CREATE VIEW __intrinsic_profiler_task_context AS SELECT id, upid, utid, async_context_id "
    "FROM __intrinsic_stack_sample_task_context",
    "CREATE VIEW __intrinsic_profiler_async_context AS SELECT id, name, kind, parent_id FROM "
    "stack_sample_async_context",
    "CREATE VIEW __intrinsic_profiler_smaps AS SELECT * FROM profiler_smaps",
    /* every sample, with the counter set each read */
    "CREATE VIEW __intrinsic_profiler_sample AS SELECT id, ts, source, task_context_id, "
    "execution_context_id, callsite_id, unwind_error, session_id, counter_set_id "
    "FROM __intrinsic_stack_sample",
    /* the samples and sessions of source linux.perf, with or without callstack */
    "CREATE VIEW perf_sample AS SELECT id, ts, utid, cpu, COALESCE(cpu_mode, 'unknown') AS "
    "cpu_mode, callsite_id, unwind_error, session_id AS perf_session_id FROM "
    "__intrinsic_stack_sample WHERE source = 'linux.perf'",
    "CREATE VIEW perf_session AS SELECT id, id AS perf_session_id, cmdline FROM "
    "__intrinsic_profiler_session WHERE source = 'linux.perf'",
    /* the samples of Chrome, V8, Gecko, simpleperf and perf script text; of Instruments */
    "CREATE VIEW cpu_profile_stack_sample AS SELECT id, ts, callsite_id, utid, "
    "COALESCE(process_priority, 0) AS process_priority FROM __intrinsic_stack_sample "
    "WHERE source IN ('chrome', 'legacy_v8', 'gecko', 'simpleperf', 'perf_text') ORDER BY id",
    "CREATE VIEW instruments_sample AS SELECT id, ts, utid, callsite_id, cpu FROM "
    "__intrinsic_stack_sample WHERE source = 'instruments'",
    /* the counters of perf sessions: a timebase and its followers per cpu */
    "CREATE VIEW perf_counter_track AS SELECT id, name, type, parent_id, source_arg_set_id, "
    "machine_id, counter_unit AS unit, " TRACK_DESCRIPTION ", "
    "extract_arg(dimension_arg_set_id, 'perf_session_id') AS perf_session_id, "
    "extract_arg(dimension_arg_set_id, 'cpu') AS cpu, "
    "extract_arg(source_arg_set_id, 'is_timebase') AS is_timebase FROM __intrinsic_track "
    "WHERE type = 'perf_cpu_counter'",
    "CREATE VIEW android_game_intervention_list AS SELECT * FROM "
    "__intrinsic_android_game_intervention_list",
    EMPTY_VIEW("android_dumpstate",
               "NULL AS id, NULL AS section, NULL AS service, NULL AS line"),
    EMPTY_VIEW("process_memory_mappings",
               "NULL AS id, NULL AS upid, NULL AS ts, NULL AS path, NULL AS "
               "aggregate_count, NULL AS is_deleted, NULL AS size_kb, NULL AS rss_kb, "
               "NULL AS anonymous_kb, NULL AS swap_kb, NULL AS shared_clean_kb, NULL AS "
               "shared_dirty_kb, NULL AS private_clean_kb, NULL AS private_dirty_kb, "
               "NULL AS locked_kb, NULL AS pss_kb, NULL AS pss_dirty_kb, NULL AS "
               "swap_pss_kb"),
    "CREATE VIEW package_list AS SELECT * FROM __intrinsic_package_list",
    EMPTY_VIEW("vulkan_memory_allocations",
               "NULL AS id, NULL AS arg_set_id, NULL AS source, NULL AS operation, NULL "
               "AS timestamp, NULL AS upid, NULL AS device, NULL AS device_memory, NULL "
               "AS memory_type, NULL AS heap, NULL AS function_name, NULL AS "
               "object_handle, NULL AS memory_address, NULL AS memory_size, NULL AS "
               "scope"),
    /* GraphicsFrameEvent slices (import/proto/proto_frames.h): the slices
     * of graphics_frame_event tracks, their args as columns. */
    "CREATE VIEW frame_slice AS SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, "
    "s.depth, s.parent_id, s.arg_set_id, extract_arg(s.arg_set_id, 'layer_name') AS "
    "layer_name, extract_arg(s.arg_set_id, 'frame_number') AS frame_number, "
    "extract_arg(s.arg_set_id, 'queue_to_acquire_time') AS queue_to_acquire_time, "
    "extract_arg(s.arg_set_id, 'acquire_to_latch_time') AS acquire_to_latch_time, "
    "extract_arg(s.arg_set_id, 'latch_to_present_time') AS latch_to_present_time "
    "FROM slice s JOIN track t ON s.track_id = t.id WHERE t.type = 'graphics_frame_event'",
    /* FrameTimeline slices (model/frame_timeline.h). */
    "CREATE VIEW expected_frame_timeline_slice AS SELECT s.id, s.ts, s.dur, s.track_id, "
    "s.category, s.name, s.depth, s.parent_id, s.arg_set_id, f.display_frame_token, "
    "f.surface_frame_token, f.upid, f.layer_name FROM __intrinsic_frame_timeline f "
    "JOIN slice s ON s.id = f.slice_id WHERE f.is_actual = 0",
    "CREATE VIEW actual_frame_timeline_slice AS SELECT s.id, s.ts, s.dur, s.track_id, "
    "s.category, s.name, s.depth, s.parent_id, s.arg_set_id, f.display_frame_token, "
    "f.surface_frame_token, f.upid, f.layer_name, f.present_type, f.on_time_finish, "
    "f.gpu_composition, f.jank_type, f.jank_severity_type, f.prediction_type, f.jank_tag, "
    "f.jank_tag_experimental, f.jank_score, f.latched_unsignaled_count, "
    "f.addressable_unsignaled_latch_count, f.latched_fence_state "
    "FROM __intrinsic_frame_timeline f JOIN slice s ON s.id = f.slice_id WHERE f.is_actual = 1",
    "CREATE VIEW surfaceflinger_layers_snapshot AS SELECT id, ts, arg_set_id, "
    "base64_proto_id, sequence_id, has_invalid_elapsed_ts FROM "
    "__intrinsic_surfaceflinger_layers_snapshot",
    "CREATE VIEW surfaceflinger_layer AS SELECT id, snapshot_id, arg_set_id, "
    "base64_proto_id, layer_id, layer_name, is_visible, parent, corner_radius_tl, "
    "corner_radius_tr, corner_radius_bl, corner_radius_br, hwc_composition_type, "
    "is_hidden_by_policy, z_order_relative_of, is_missing_z_parent, layer_rect_id, "
    "input_rect_id FROM __intrinsic_surfaceflinger_layer",
    "CREATE VIEW surfaceflinger_transactions AS SELECT id, ts, arg_set_id, "
    "base64_proto_id, vsync_id FROM __intrinsic_surfaceflinger_transactions",
    "CREATE VIEW window_manager_shell_transitions AS SELECT id, ts, transition_id, "
    "arg_set_id, transition_type, send_time_ns, dispatch_time_ns, duration_ns, "
    "finish_time_ns, shell_abort_time_ns, wm_abort_time_ns, merge_time_ns, create_time_ns, "
    "handler, status, flags, start_transaction_id, finish_transaction_id FROM "
    "__intrinsic_window_manager_shell_transitions",
    "CREATE VIEW window_manager_shell_transition_handlers AS SELECT id, handler_id, "
    "handler_name, base64_proto_id FROM __intrinsic_window_manager_shell_transition_handlers",
    "CREATE VIEW protolog AS SELECT id, ts, level, tag, message, stacktrace, location "
    "FROM __intrinsic_protolog",
    /* Proto content analysis: the annotated roots only (model/proto_content.h). */
    "CREATE VIEW experimental_proto_path AS SELECT * FROM "
    "__intrinsic_experimental_proto_path",
    EMPTY_VIEW("experimental_proto_content",
               "NULL AS id, NULL AS path, NULL AS path_id, NULL AS total_size, "
               "NULL AS size, NULL AS count"),
};

const size_t sql_view_statement_count =
    sizeof sql_view_statements / sizeof *sql_view_statements;
