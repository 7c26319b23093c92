/* Perfetto's views that join tables, filter by another table or have no
 * rows, as SQL views (the one-table views are virtual tables: see
 * vtab_view.h). */
#include "sql/sql.h"

/* A view with these columns and no rows. */
#define EMPTY_VIEW(name, columns) "CREATE VIEW " name " AS SELECT " columns " LIMIT 0"

const char *const sql_view_statements[] = {
    "CREATE VIEW counters AS SELECT c.*, t.name AS name, t.counter_unit AS unit "
    "FROM __intrinsic_counter c JOIN __intrinsic_track t ON c.track_id = t.id "
    "ORDER BY c.ts",
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
    "CREATE VIEW __intrinsic_profiler_async_context AS SELECT id, name, kind, parent_id FROM "
    "stack_sample_async_context",
    "CREATE VIEW __intrinsic_profiler_smaps AS SELECT * FROM profiler_smaps",
    /* every sample, with the counter set each read */
    EMPTY_VIEW("android_dumpstate",
               "NULL AS id, NULL AS section, NULL AS service, NULL AS line"),
    EMPTY_VIEW("process_memory_mappings",
               "NULL AS id, NULL AS upid, NULL AS ts, NULL AS path, NULL AS "
               "aggregate_count, NULL AS is_deleted, NULL AS size_kb, NULL AS rss_kb, "
               "NULL AS anonymous_kb, NULL AS swap_kb, NULL AS shared_clean_kb, NULL AS "
               "shared_dirty_kb, NULL AS private_clean_kb, NULL AS private_dirty_kb, "
               "NULL AS locked_kb, NULL AS pss_kb, NULL AS pss_dirty_kb, NULL AS "
               "swap_pss_kb"),
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
    EMPTY_VIEW("experimental_proto_content",
               "NULL AS id, NULL AS path, NULL AS path_id, NULL AS total_size, "
               "NULL AS size, NULL AS count"),
};

const size_t sql_view_statement_count =
    sizeof sql_view_statements / sizeof *sql_view_statements;
