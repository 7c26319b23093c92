/* The data source configs of DataSourceConfig fields 102 to 150 that
 * the other tables do not hold: field numbers, names, types and enum value
 * names as the reference prints them (written by
 * scripts/config_schema_probe.py). See proto_config_schema.h. */
#include "import/proto/proto_config_schema.h"

static const proto_text_field pt_inode_file_mount_point_mapping_fields[] = {
    {1, "mountpoint", PT_STRING, NULL, NULL, 0},
    {2, "scan_roots", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_inode_file_mount_point_mapping =
    PT_FIELDS(pt_inode_file_mount_point_mapping_fields);

static const proto_text_field pt_inode_file_fields[] = {
    {1, "scan_interval_ms", PT_UINT, NULL, NULL, 0},
    {2, "scan_delay_ms", PT_UINT, NULL, NULL, 0},
    {3, "scan_batch_size", PT_UINT, NULL, NULL, 0},
    {4, "do_not_scan", PT_BOOL, NULL, NULL, 0},
    {5, "scan_mount_points", PT_STRING, NULL, NULL, 0},
    {6, "mount_point_mapping", PT_MSG, &pt_inode_file_mount_point_mapping, NULL, 0},
};
const proto_text_msg pt_inode_file = PT_FIELDS(pt_inode_file_fields);

static const proto_text_field pt_vulkan_memory_fields[] = {
    {1, "track_driver_memory_usage", PT_BOOL, NULL, NULL, 0},
    {2, "track_device_memory_usage", PT_BOOL, NULL, NULL, 0},
};
const proto_text_msg pt_vulkan_memory = PT_FIELDS(pt_vulkan_memory_fields);

static const proto_text_field pt_interceptor_fields[] = {
    {1, "name", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_interceptor = PT_FIELDS(pt_interceptor_fields);

static const proto_text_field pt_android_game_intervention_list_fields[] = {
    {1, "package_name_filter", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_android_game_intervention_list =
    PT_FIELDS(pt_android_game_intervention_list_fields);

static const proto_text_field pt_system_info_fields[] = {
    {1, "irq_names", PT_BOOL, NULL, NULL, 0},
};
const proto_text_msg pt_system_info = PT_FIELDS(pt_system_info_fields);

static const proto_text_field pt_android_sdk_sysprop_guard_fields[] = {
    {1, "surfaceflinger_skia_track_events", PT_BOOL, NULL, NULL, 0},
    {2, "hwui_skia_track_events", PT_BOOL, NULL, NULL, 0},
    {3, "hwui_package_name_filter", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_android_sdk_sysprop_guard =
    PT_FIELDS(pt_android_sdk_sysprop_guard_fields);

static const char *const pt_etw_kernel_flags[] = {
    "CSWITCH", "DISPATCHER"
};
static const proto_text_field pt_etw_fields[] = {
    {1, "kernel_flags", PT_ENUM_OF(pt_etw_kernel_flags)},
    {2, "scheduler_provider_events", PT_STRING, NULL, NULL, 0},
    {3, "memory_provider_events", PT_STRING, NULL, NULL, 0},
    {4, "file_provider_events", PT_STRING, NULL, NULL, 0},
    {5, "stack_sampling_events", PT_STRING, NULL, NULL, 0},
    {6, "disk_provider_events", PT_STRING, NULL, NULL, 0},
    {7, "system_io_provider_events", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_etw = PT_FIELDS(pt_etw_fields);

static const char *const pt_protolog_group_overrides_log_from[] = {
    "PROTOLOG_LEVEL_UNDEFINED", "PROTOLOG_LEVEL_DEBUG", "PROTOLOG_LEVEL_VERBOSE",
    "PROTOLOG_LEVEL_INFO", "PROTOLOG_LEVEL_WARN", "PROTOLOG_LEVEL_ERROR",
    "PROTOLOG_LEVEL_WTF"
};
static const proto_text_field pt_protolog_group_overrides_fields[] = {
    {1, "group_name", PT_STRING, NULL, NULL, 0},
    {2, "log_from", PT_ENUM_OF(pt_protolog_group_overrides_log_from)},
    {3, "collect_stacktrace", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_protolog_group_overrides =
    PT_FIELDS(pt_protolog_group_overrides_fields);

static const char *const pt_protolog_tracing_mode[] = {
    "DEFAULT", "ENABLE_ALL"
};
static const char *const pt_protolog_default_log_from_level[] = {
    "PROTOLOG_LEVEL_UNDEFINED", "PROTOLOG_LEVEL_DEBUG", "PROTOLOG_LEVEL_VERBOSE",
    "PROTOLOG_LEVEL_INFO", "PROTOLOG_LEVEL_WARN", "PROTOLOG_LEVEL_ERROR",
    "PROTOLOG_LEVEL_WTF"
};
static const proto_text_field pt_protolog_fields[] = {
    {1, "group_overrides", PT_MSG, &pt_protolog_group_overrides, NULL, 0},
    {2, "tracing_mode", PT_ENUM_OF(pt_protolog_tracing_mode)},
    {3, "default_log_from_level", PT_ENUM_OF(pt_protolog_default_log_from_level)},
};
const proto_text_msg pt_protolog = PT_FIELDS(pt_protolog_fields);

static const proto_text_field pt_v8_fields[] = {
    {1, "log_script_sources", PT_BOOL, NULL, NULL, 0},
    {2, "log_instructions", PT_BOOL, NULL, NULL, 0},
};
const proto_text_msg pt_v8 = PT_FIELDS(pt_v8_fields);

static const char *const pt_pixel_modem_event_group[] = {
    "EVENT_GROUP_UNKNOWN", "EVENT_GROUP_LOW_BANDWIDTH", "EVENT_GROUP_HIGH_AND_LOW_BANDWIDTH"
};
static const proto_text_field pt_pixel_modem_fields[] = {
    {1, "event_group", PT_ENUM_OF(pt_pixel_modem_event_group)},
    {2, "pigweed_hash_allow_list", PT_INT64, NULL, NULL, 0},
    {3, "pigweed_hash_deny_list", PT_INT64, NULL, NULL, 0},
};
const proto_text_msg pt_pixel_modem = PT_FIELDS(pt_pixel_modem_fields);

static const char *const pt_windowmanager_log_frequency[] = {
    "LOG_FREQUENCY_UNSPECIFIED", "LOG_FREQUENCY_FRAME", "LOG_FREQUENCY_TRANSACTION",
    "LOG_FREQUENCY_SINGLE_DUMP"
};
static const char *const pt_windowmanager_log_level[] = {
    "LOG_LEVEL_UNSPECIFIED", "LOG_LEVEL_VERBOSE", "LOG_LEVEL_DEBUG", "LOG_LEVEL_CRITICAL"
};
static const char *const pt_windowmanager_log_mode[] = {
    "LOG_MODE_UNSPECIFIED", "LOG_MODE_FULL_STATE", "LOG_MODE_INCREMENTAL"
};
static const proto_text_field pt_windowmanager_fields[] = {
    {1, "log_frequency", PT_ENUM_OF(pt_windowmanager_log_frequency)},
    {2, "log_level", PT_ENUM_OF(pt_windowmanager_log_level)},
    {3, "log_mode", PT_ENUM_OF(pt_windowmanager_log_mode)},
};
const proto_text_msg pt_windowmanager = PT_FIELDS(pt_windowmanager_fields);

static const proto_text_field pt_chromium_system_metrics_fields[] = {
    {1, "sampling_interval_ms", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_chromium_system_metrics =
    PT_FIELDS(pt_chromium_system_metrics_fields);

static const proto_text_field pt_kernel_wakelocks_fields[] = {
    {1, "poll_ms", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_kernel_wakelocks = PT_FIELDS(pt_kernel_wakelocks_fields);

static const proto_text_field pt_gpu_renderstages_fields[] = {
    {1, "full_loadstore", PT_BOOL, NULL, NULL, 0},
    {2, "low_overhead", PT_BOOL, NULL, NULL, 0},
    {3, "trace_metrics", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_gpu_renderstages = PT_FIELDS(pt_gpu_renderstages_fields);

static const proto_text_field pt_chromium_histogram_samples_histograms_fields[] = {
    {1, "histogram_name", PT_STRING, NULL, NULL, 0},
    {2, "min_value", PT_INT64, NULL, NULL, 0},
    {3, "max_value", PT_INT64, NULL, NULL, 0},
};
static const proto_text_msg pt_chromium_histogram_samples_histograms =
    PT_FIELDS(pt_chromium_histogram_samples_histograms_fields);

static const proto_text_field pt_chromium_histogram_samples_fields[] = {
    {1, "histograms", PT_MSG, &pt_chromium_histogram_samples_histograms, NULL, 0},
    {2, "filter_histogram_names", PT_BOOL, NULL, NULL, 0},
};
const proto_text_msg pt_chromium_histogram_samples =
    PT_FIELDS(pt_chromium_histogram_samples_fields);

static const proto_text_field pt_app_wakelocks_fields[] = {
    {1, "write_delay_ms", PT_INT64, NULL, NULL, 0},
    {2, "filter_duration_below_ms", PT_INT64, NULL, NULL, 0},
    {3, "drop_owner_pid", PT_BOOL, NULL, NULL, 0},
};
const proto_text_msg pt_app_wakelocks = PT_FIELDS(pt_app_wakelocks_fields);

static const proto_text_field pt_frozen_ftrace_fields[] = {
    {1, "instance_name", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_frozen_ftrace = PT_FIELDS(pt_frozen_ftrace_fields);

static const proto_text_field pt_cpu_per_uid_fields[] = {
    {1, "poll_ms", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_cpu_per_uid = PT_FIELDS(pt_cpu_per_uid_fields);

static const proto_text_field pt_user_list_fields[] = {
    {1, "user_type_filter", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_user_list = PT_FIELDS(pt_user_list_fields);

static const proto_text_field pt_inputmethod_fields[] = {
    {1, "client", PT_BOOL, NULL, NULL, 0},
    {2, "service", PT_BOOL, NULL, NULL, 0},
    {3, "manager_service", PT_BOOL, NULL, NULL, 0},
};
const proto_text_msg pt_inputmethod = PT_FIELDS(pt_inputmethod_fields);

static const proto_text_field pt_android_aflags_fields[] = {
    {1, "poll_ms", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_android_aflags = PT_FIELDS(pt_android_aflags_fields);

static const proto_text_field pt_journald_fields[] = {
    {1, "min_prio", PT_UINT, NULL, NULL, 0},
    {2, "filter_identifiers", PT_STRING, NULL, NULL, 0},
    {3, "filter_units", PT_STRING, NULL, NULL, 0},
};
const proto_text_msg pt_journald = PT_FIELDS(pt_journald_fields);

static const char *const pt_display_video_format[] = {
    "FORMAT_UNSPECIFIED", "FORMAT_H264", "FORMAT_HEVC"
};
static const proto_text_field pt_display_video_fields[] = {
    {2, "format", PT_ENUM_OF(pt_display_video_format)},
    {3, "key_frame_interval_secs", PT_UINT, NULL, NULL, 0},
    {4, "max_stream_size_bytes", PT_UINT, NULL, NULL, 0},
    {5, "bitrate_bps", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_display_video = PT_FIELDS(pt_display_video_fields);

static const proto_text_field pt_chromium_stack_sampling_profiler_fields[] = {
    {1, "sampling_interval_ms", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_chromium_stack_sampling_profiler =
    PT_FIELDS(pt_chromium_stack_sampling_profiler_fields);

static const proto_text_field pt_chromium_sampling_heap_profiler_fields[] = {
    {1, "sampling_interval_bytes", PT_UINT, NULL, NULL, 0},
    {2, "sampling_interval_ms", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_chromium_sampling_heap_profiler =
    PT_FIELDS(pt_chromium_sampling_heap_profiler_fields);

static const proto_text_field pt_qnx_fields[] = {
    {1, "qnx_kernel_buffers", PT_UINT, NULL, NULL, 0},
    {2, "qnx_kernel_kbuffers", PT_UINT, NULL, NULL, 0},
    {3, "qnx_kernel_wide_events", PT_BOOL, NULL, NULL, 0},
    {4, "qnx_cache_pages", PT_UINT, NULL, NULL, 0},
    {5, "qnx_cache_max_pages", PT_INT64, NULL, NULL, 0},
    {6, "qnx_trace_buffer_init_bytes", PT_UINT, NULL, NULL, 0},
};
const proto_text_msg pt_qnx = PT_FIELDS(pt_qnx_fields);

static const char *const pt_android_input_event_mode[] = {
    "TRACE_MODE_TRACE_ALL", "TRACE_MODE_USE_RULES"
};
static const char *const pt_android_input_event_rules_trace_level[] = {
    "TRACE_LEVEL_NONE", "TRACE_LEVEL_REDACTED", "TRACE_LEVEL_COMPLETE"
};
static const proto_text_field pt_android_input_event_rules_fields[] = {
    {1, "trace_level", PT_ENUM_OF(pt_android_input_event_rules_trace_level)},
    {2, "match_all_packages", PT_STRING, NULL, NULL, 0},
    {3, "match_any_packages", PT_STRING, NULL, NULL, 0},
    {4, "match_secure", PT_BOOL, NULL, NULL, 0},
    {5, "match_ime_connection_active", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_android_input_event_rules =
    PT_FIELDS(pt_android_input_event_rules_fields);

static const proto_text_field pt_android_input_event_fields[] = {
    {1, "mode", PT_ENUM_OF(pt_android_input_event_mode)},
    {2, "rules", PT_MSG, &pt_android_input_event_rules, NULL, 0},
    {3, "trace_dispatcher_input_events", PT_BOOL, NULL, NULL, 0},
    {4, "trace_dispatcher_window_dispatch", PT_BOOL, NULL, NULL, 0},
    {5, "trace_evdev_events", PT_BOOL, NULL, NULL, 0},
};
const proto_text_msg pt_android_input_event = PT_FIELDS(pt_android_input_event_fields);
