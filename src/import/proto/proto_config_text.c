/* TraceConfig text rendering. See proto_config_text.h. */
#include "import/proto/proto_config_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "model/context.h"

typedef enum proto_text_type {
  PT_INT32, PT_INT64, PT_UINT, PT_BOOL, PT_STRING, PT_ENUM, PT_MSG, PT_DOUBLE
} proto_text_type;

typedef struct proto_text_msg proto_text_msg;
typedef struct proto_text_field {
  uint32_t number;
  const char *name;
  proto_text_type type;
  const proto_text_msg *msg;       /* PT_MSG */
  const char *const *enum_names;   /* PT_ENUM, indexed by value */
  size_t enum_count;
} proto_text_field;

struct proto_text_msg {
  const proto_text_field *fields;
  size_t count;
};

#define PROTO_TRACE_CONFIG_STATSD_METADATA 7
#define PROTO_TRACE_CONFIG_UNIQUE_SESSION_NAME 22
#define PROTO_STATSD_METADATA_SUBSCRIPTION_ID 4

#define PT_FIELDS(arr) {arr, sizeof arr / sizeof arr[0]}
#define PT_ENUM_OF(arr) PT_ENUM, NULL, arr, sizeof arr / sizeof arr[0]

static const char *const pt_fill_policy[] = {"UNSPECIFIED", "RING_BUFFER", "DISCARD"};
static const char *const pt_lockdown[] = {"LOCKDOWN_UNCHANGED", "LOCKDOWN_CLEAR", "LOCKDOWN_SET"};
static const char *const pt_clocks[] = {
    "BUILTIN_CLOCK_UNKNOWN", "BUILTIN_CLOCK_REALTIME", "BUILTIN_CLOCK_REALTIME_COARSE",
    "BUILTIN_CLOCK_MONOTONIC", "BUILTIN_CLOCK_MONOTONIC_COARSE", "BUILTIN_CLOCK_MONOTONIC_RAW",
    "BUILTIN_CLOCK_BOOTTIME"};

static const proto_text_field pt_buffer_fields[] = {
    {1, "size_kb", PT_UINT, NULL, NULL, 0},
    {4, "fill_policy", PT_ENUM_OF(pt_fill_policy)},
    {5, "transfer_on_clone", PT_BOOL, NULL, NULL, 0},
    {6, "clear_before_clone", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_buffer = PT_FIELDS(pt_buffer_fields);

/* The data source configs below (ftrace, process_stats, sys_stats,
 * android_power, android_log, packages_list): field numbers, names, types and
 * enum value names of Perfetto's config protos as the reference prints them
 * (scripts/config_schema_probe.py asks the reference and writes them). */
static const proto_text_field pt_ftrace_compact_sched_fields[] = {
    {1, "enabled", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_ftrace_compact_sched = PT_FIELDS(pt_ftrace_compact_sched_fields);

static const char *const pt_ftrace_ksyms_mem_policy[] = {
    "KSYMS_UNSPECIFIED", "KSYMS_CLEANUP_ON_STOP", "KSYMS_RETAIN"
};
static const proto_text_field pt_ftrace_print_filter_rules_atrace_msg_fields[] = {
    {1, "type", PT_STRING, NULL, NULL, 0},
    {2, "prefix", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_ftrace_print_filter_rules_atrace_msg =
    PT_FIELDS(pt_ftrace_print_filter_rules_atrace_msg_fields);

static const proto_text_field pt_ftrace_print_filter_rules_fields[] = {
    {1, "prefix", PT_STRING, NULL, NULL, 0},
    {2, "allow", PT_BOOL, NULL, NULL, 0},
    {3, "atrace_msg", PT_MSG, &pt_ftrace_print_filter_rules_atrace_msg, NULL, 0},
};
static const proto_text_msg pt_ftrace_print_filter_rules =
    PT_FIELDS(pt_ftrace_print_filter_rules_fields);

static const proto_text_field pt_ftrace_print_filter_fields[] = {
    {1, "rules", PT_MSG, &pt_ftrace_print_filter_rules, NULL, 0},
};
static const proto_text_msg pt_ftrace_print_filter = PT_FIELDS(pt_ftrace_print_filter_fields);

static const char *const pt_ftrace_kprobe_events_type[] = {
    "KPROBE_TYPE_UNKNOWN", "KPROBE_TYPE_KPROBE", "KPROBE_TYPE_KRETPROBE", "KPROBE_TYPE_BOTH"
};
static const proto_text_field pt_ftrace_kprobe_events_fields[] = {
    {1, "probe", PT_STRING, NULL, NULL, 0},
    {2, "type", PT_ENUM_OF(pt_ftrace_kprobe_events_type)},
};
static const proto_text_msg pt_ftrace_kprobe_events = PT_FIELDS(pt_ftrace_kprobe_events_fields);

static const char *const pt_ftrace_tracefs_options_state[] = {
    "STATE_UNKNOWN", "STATE_ENABLED", "STATE_DISABLED"
};
static const proto_text_field pt_ftrace_tracefs_options_fields[] = {
    {1, "name", PT_STRING, NULL, NULL, 0},
    {2, "state", PT_ENUM_OF(pt_ftrace_tracefs_options_state)},
};
static const proto_text_msg pt_ftrace_tracefs_options =
    PT_FIELDS(pt_ftrace_tracefs_options_fields);

static const proto_text_field pt_ftrace_fields[] = {
    {1, "ftrace_events", PT_STRING, NULL, NULL, 0},
    {2, "atrace_categories", PT_STRING, NULL, NULL, 0},
    {3, "atrace_apps", PT_STRING, NULL, NULL, 0},
    {10, "buffer_size_kb", PT_UINT, NULL, NULL, 0},
    {11, "drain_period_ms", PT_UINT, NULL, NULL, 0},
    {12, "compact_sched", PT_MSG, &pt_ftrace_compact_sched, NULL, 0},
    {13, "symbolize_ksyms", PT_BOOL, NULL, NULL, 0},
    {14, "initialize_ksyms_synchronously_for_testing", PT_BOOL, NULL, NULL, 0},
    {15, "throttle_rss_stat", PT_BOOL, NULL, NULL, 0},
    {16, "disable_generic_events", PT_BOOL, NULL, NULL, 0},
    {17, "ksyms_mem_policy", PT_ENUM_OF(pt_ftrace_ksyms_mem_policy)},
    {18, "syscall_events", PT_STRING, NULL, NULL, 0},
    {19, "enable_function_graph", PT_BOOL, NULL, NULL, 0},
    {20, "function_filters", PT_STRING, NULL, NULL, 0},
    {21, "function_graph_roots", PT_STRING, NULL, NULL, 0},
    {22, "print_filter", PT_MSG, &pt_ftrace_print_filter, NULL, 0},
    {23, "preserve_ftrace_buffer", PT_BOOL, NULL, NULL, 0},
    {24, "use_monotonic_raw_clock", PT_BOOL, NULL, NULL, 0},
    {25, "instance_name", PT_STRING, NULL, NULL, 0},
    {27, "buffer_size_lower_bound", PT_BOOL, NULL, NULL, 0},
    {28, "atrace_categories_prefer_sdk", PT_STRING, NULL, NULL, 0},
    {29, "drain_buffer_percent", PT_UINT, NULL, NULL, 0},
    {30, "kprobe_events", PT_MSG, &pt_ftrace_kprobe_events, NULL, 0},
    {31, "debug_ftrace_abi", PT_BOOL, NULL, NULL, 0},
    {32, "denser_generic_event_encoding", PT_BOOL, NULL, NULL, 0},
    {33, "function_graph_max_depth", PT_UINT, NULL, NULL, 0},
    {34, "atrace_userspace_only", PT_BOOL, NULL, NULL, 0},
    {35, "tids_to_trace", PT_UINT, NULL, NULL, 0},
    {36, "tracefs_options", PT_MSG, &pt_ftrace_tracefs_options, NULL, 0},
    {37, "tracing_cpumask", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_ftrace = PT_FIELDS(pt_ftrace_fields);

static const char *const pt_process_stats_quirks[] = {
    "QUIRKS_UNSPECIFIED", "DISABLE_INITIAL_DUMP", "DISABLE_ON_DEMAND"
};
static const proto_text_field pt_process_stats_fields[] = {
    {1, "quirks", PT_ENUM_OF(pt_process_stats_quirks)},
    {2, "scan_all_processes_on_start", PT_BOOL, NULL, NULL, 0},
    {3, "record_thread_names", PT_BOOL, NULL, NULL, 0},
    {4, "proc_stats_poll_ms", PT_UINT, NULL, NULL, 0},
    {6, "proc_stats_cache_ttl_ms", PT_UINT, NULL, NULL, 0},
    {9, "resolve_process_fds", PT_BOOL, NULL, NULL, 0},
    {10, "scan_smaps_rollup", PT_BOOL, NULL, NULL, 0},
    {11, "record_process_age", PT_BOOL, NULL, NULL, 0},
    {12, "record_process_runtime", PT_BOOL, NULL, NULL, 0},
    {13, "record_process_dmabuf_rss", PT_BOOL, NULL, NULL, 0},
    {14, "skip_main_thread_message", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_process_stats = PT_FIELDS(pt_process_stats_fields);

static const char *const pt_sys_stats_meminfo_counters[] = {
    "MEMINFO_UNSPECIFIED", "MEMINFO_MEM_TOTAL", "MEMINFO_MEM_FREE", "MEMINFO_MEM_AVAILABLE",
    "MEMINFO_BUFFERS", "MEMINFO_CACHED", "MEMINFO_SWAP_CACHED", "MEMINFO_ACTIVE",
    "MEMINFO_INACTIVE", "MEMINFO_ACTIVE_ANON", "MEMINFO_INACTIVE_ANON",
    "MEMINFO_ACTIVE_FILE", "MEMINFO_INACTIVE_FILE", "MEMINFO_UNEVICTABLE",
    "MEMINFO_MLOCKED", "MEMINFO_SWAP_TOTAL", "MEMINFO_SWAP_FREE", "MEMINFO_DIRTY",
    "MEMINFO_WRITEBACK", "MEMINFO_ANON_PAGES", "MEMINFO_MAPPED", "MEMINFO_SHMEM",
    "MEMINFO_SLAB", "MEMINFO_SLAB_RECLAIMABLE", "MEMINFO_SLAB_UNRECLAIMABLE",
    "MEMINFO_KERNEL_STACK", "MEMINFO_PAGE_TABLES", "MEMINFO_COMMIT_LIMIT",
    "MEMINFO_COMMITED_AS", "MEMINFO_VMALLOC_TOTAL", "MEMINFO_VMALLOC_USED",
    "MEMINFO_VMALLOC_CHUNK", "MEMINFO_CMA_TOTAL", "MEMINFO_CMA_FREE", "MEMINFO_GPU",
    "MEMINFO_ZRAM", "MEMINFO_MISC", "MEMINFO_ION_HEAP", "MEMINFO_ION_HEAP_POOL"
};
static const char *const pt_sys_stats_vmstat_counters[] = {
    "VMSTAT_UNSPECIFIED", "VMSTAT_NR_FREE_PAGES", "VMSTAT_NR_ALLOC_BATCH",
    "VMSTAT_NR_INACTIVE_ANON", "VMSTAT_NR_ACTIVE_ANON", "VMSTAT_NR_INACTIVE_FILE",
    "VMSTAT_NR_ACTIVE_FILE", "VMSTAT_NR_UNEVICTABLE", "VMSTAT_NR_MLOCK",
    "VMSTAT_NR_ANON_PAGES", "VMSTAT_NR_MAPPED", "VMSTAT_NR_FILE_PAGES", "VMSTAT_NR_DIRTY",
    "VMSTAT_NR_WRITEBACK", "VMSTAT_NR_SLAB_RECLAIMABLE", "VMSTAT_NR_SLAB_UNRECLAIMABLE",
    "VMSTAT_NR_PAGE_TABLE_PAGES", "VMSTAT_NR_KERNEL_STACK", "VMSTAT_NR_OVERHEAD",
    "VMSTAT_NR_UNSTABLE", "VMSTAT_NR_BOUNCE", "VMSTAT_NR_VMSCAN_WRITE",
    "VMSTAT_NR_VMSCAN_IMMEDIATE_RECLAIM", "VMSTAT_NR_WRITEBACK_TEMP",
    "VMSTAT_NR_ISOLATED_ANON", "VMSTAT_NR_ISOLATED_FILE", "VMSTAT_NR_SHMEM",
    "VMSTAT_NR_DIRTIED", "VMSTAT_NR_WRITTEN", "VMSTAT_NR_PAGES_SCANNED",
    "VMSTAT_WORKINGSET_REFAULT", "VMSTAT_WORKINGSET_ACTIVATE",
    "VMSTAT_WORKINGSET_NODERECLAIM", "VMSTAT_NR_ANON_TRANSPARENT_HUGEPAGES",
    "VMSTAT_NR_FREE_CMA", "VMSTAT_NR_SWAPCACHE", "VMSTAT_NR_DIRTY_THRESHOLD",
    "VMSTAT_NR_DIRTY_BACKGROUND_THRESHOLD", "VMSTAT_PGPGIN", "VMSTAT_PGPGOUT",
    "VMSTAT_PGPGOUTCLEAN", "VMSTAT_PSWPIN", "VMSTAT_PSWPOUT", "VMSTAT_PGALLOC_DMA",
    "VMSTAT_PGALLOC_NORMAL", "VMSTAT_PGALLOC_MOVABLE", "VMSTAT_PGFREE", "VMSTAT_PGACTIVATE",
    "VMSTAT_PGDEACTIVATE", "VMSTAT_PGFAULT", "VMSTAT_PGMAJFAULT", "VMSTAT_PGREFILL_DMA",
    "VMSTAT_PGREFILL_NORMAL", "VMSTAT_PGREFILL_MOVABLE", "VMSTAT_PGSTEAL_KSWAPD_DMA",
    "VMSTAT_PGSTEAL_KSWAPD_NORMAL", "VMSTAT_PGSTEAL_KSWAPD_MOVABLE",
    "VMSTAT_PGSTEAL_DIRECT_DMA", "VMSTAT_PGSTEAL_DIRECT_NORMAL",
    "VMSTAT_PGSTEAL_DIRECT_MOVABLE", "VMSTAT_PGSCAN_KSWAPD_DMA",
    "VMSTAT_PGSCAN_KSWAPD_NORMAL", "VMSTAT_PGSCAN_KSWAPD_MOVABLE",
    "VMSTAT_PGSCAN_DIRECT_DMA", "VMSTAT_PGSCAN_DIRECT_NORMAL",
    "VMSTAT_PGSCAN_DIRECT_MOVABLE", "VMSTAT_PGSCAN_DIRECT_THROTTLE", "VMSTAT_PGINODESTEAL",
    "VMSTAT_SLABS_SCANNED", "VMSTAT_KSWAPD_INODESTEAL",
    "VMSTAT_KSWAPD_LOW_WMARK_HIT_QUICKLY", "VMSTAT_KSWAPD_HIGH_WMARK_HIT_QUICKLY",
    "VMSTAT_PAGEOUTRUN", "VMSTAT_ALLOCSTALL", "VMSTAT_PGROTATED", "VMSTAT_DROP_PAGECACHE",
    "VMSTAT_DROP_SLAB", "VMSTAT_PGMIGRATE_SUCCESS", "VMSTAT_PGMIGRATE_FAIL",
    "VMSTAT_COMPACT_MIGRATE_SCANNED", "VMSTAT_COMPACT_FREE_SCANNED",
    "VMSTAT_COMPACT_ISOLATED", "VMSTAT_COMPACT_STALL", "VMSTAT_COMPACT_FAIL",
    "VMSTAT_COMPACT_SUCCESS", "VMSTAT_COMPACT_DAEMON_WAKE", "VMSTAT_UNEVICTABLE_PGS_CULLED",
    "VMSTAT_UNEVICTABLE_PGS_SCANNED", "VMSTAT_UNEVICTABLE_PGS_RESCUED",
    "VMSTAT_UNEVICTABLE_PGS_MLOCKED", "VMSTAT_UNEVICTABLE_PGS_MUNLOCKED",
    "VMSTAT_UNEVICTABLE_PGS_CLEARED", "VMSTAT_UNEVICTABLE_PGS_STRANDED",
    "VMSTAT_NR_ZSPAGES", "VMSTAT_NR_ION_HEAP", "VMSTAT_NR_GPU_HEAP",
    "VMSTAT_ALLOCSTALL_DMA", "VMSTAT_ALLOCSTALL_MOVABLE", "VMSTAT_ALLOCSTALL_NORMAL",
    "VMSTAT_COMPACT_DAEMON_FREE_SCANNED", "VMSTAT_COMPACT_DAEMON_MIGRATE_SCANNED",
    "VMSTAT_NR_FASTRPC", "VMSTAT_NR_INDIRECTLY_RECLAIMABLE", "VMSTAT_NR_ION_HEAP_POOL",
    "VMSTAT_NR_KERNEL_MISC_RECLAIMABLE", "VMSTAT_NR_SHADOW_CALL_STACK_BYTES",
    "VMSTAT_NR_SHMEM_HUGEPAGES", "VMSTAT_NR_SHMEM_PMDMAPPED",
    "VMSTAT_NR_UNRECLAIMABLE_PAGES", "VMSTAT_NR_ZONE_ACTIVE_ANON",
    "VMSTAT_NR_ZONE_ACTIVE_FILE", "VMSTAT_NR_ZONE_INACTIVE_ANON",
    "VMSTAT_NR_ZONE_INACTIVE_FILE", "VMSTAT_NR_ZONE_UNEVICTABLE",
    "VMSTAT_NR_ZONE_WRITE_PENDING", "VMSTAT_OOM_KILL", "VMSTAT_PGLAZYFREE",
    "VMSTAT_PGLAZYFREED", "VMSTAT_PGREFILL", "VMSTAT_PGSCAN_DIRECT", "VMSTAT_PGSCAN_KSWAPD",
    "VMSTAT_PGSKIP_DMA", "VMSTAT_PGSKIP_MOVABLE", "VMSTAT_PGSKIP_NORMAL",
    "VMSTAT_PGSTEAL_DIRECT", "VMSTAT_PGSTEAL_KSWAPD", "VMSTAT_SWAP_RA",
    "VMSTAT_SWAP_RA_HIT", "VMSTAT_WORKINGSET_RESTORE", "VMSTAT_ALLOCSTALL_DEVICE",
    "VMSTAT_ALLOCSTALL_DMA32", "VMSTAT_BALLOON_DEFLATE", "VMSTAT_BALLOON_INFLATE",
    "VMSTAT_BALLOON_MIGRATE", "VMSTAT_CMA_ALLOC_FAIL", "VMSTAT_CMA_ALLOC_SUCCESS",
    "VMSTAT_NR_FILE_HUGEPAGES", "VMSTAT_NR_FILE_PMDMAPPED", "VMSTAT_NR_FOLL_PIN_ACQUIRED",
    "VMSTAT_NR_FOLL_PIN_RELEASED", "VMSTAT_NR_SEC_PAGE_TABLE_PAGES",
    "VMSTAT_NR_SHADOW_CALL_STACK", "VMSTAT_NR_SWAPCACHED", "VMSTAT_NR_THROTTLED_WRITTEN",
    "VMSTAT_PGALLOC_DEVICE", "VMSTAT_PGALLOC_DMA32", "VMSTAT_PGDEMOTE_DIRECT",
    "VMSTAT_PGDEMOTE_KSWAPD", "VMSTAT_PGREUSE", "VMSTAT_PGSCAN_ANON", "VMSTAT_PGSCAN_FILE",
    "VMSTAT_PGSKIP_DEVICE", "VMSTAT_PGSKIP_DMA32", "VMSTAT_PGSTEAL_ANON",
    "VMSTAT_PGSTEAL_FILE", "VMSTAT_THP_COLLAPSE_ALLOC", "VMSTAT_THP_COLLAPSE_ALLOC_FAILED",
    "VMSTAT_THP_DEFERRED_SPLIT_PAGE", "VMSTAT_THP_FAULT_ALLOC", "VMSTAT_THP_FAULT_FALLBACK",
    "VMSTAT_THP_FAULT_FALLBACK_CHARGE", "VMSTAT_THP_FILE_ALLOC", "VMSTAT_THP_FILE_FALLBACK",
    "VMSTAT_THP_FILE_FALLBACK_CHARGE", "VMSTAT_THP_FILE_MAPPED",
    "VMSTAT_THP_MIGRATION_FAIL", "VMSTAT_THP_MIGRATION_SPLIT",
    "VMSTAT_THP_MIGRATION_SUCCESS", "VMSTAT_THP_SCAN_EXCEED_NONE_PTE",
    "VMSTAT_THP_SCAN_EXCEED_SHARE_PTE", "VMSTAT_THP_SCAN_EXCEED_SWAP_PTE",
    "VMSTAT_THP_SPLIT_PAGE", "VMSTAT_THP_SPLIT_PAGE_FAILED", "VMSTAT_THP_SPLIT_PMD",
    "VMSTAT_THP_SWPOUT", "VMSTAT_THP_SWPOUT_FALLBACK", "VMSTAT_THP_ZERO_PAGE_ALLOC",
    "VMSTAT_THP_ZERO_PAGE_ALLOC_FAILED", "VMSTAT_VMA_LOCK_ABORT", "VMSTAT_VMA_LOCK_MISS",
    "VMSTAT_VMA_LOCK_RETRY", "VMSTAT_VMA_LOCK_SUCCESS", "VMSTAT_WORKINGSET_ACTIVATE_ANON",
    "VMSTAT_WORKINGSET_ACTIVATE_FILE", "VMSTAT_WORKINGSET_NODES",
    "VMSTAT_WORKINGSET_REFAULT_ANON", "VMSTAT_WORKINGSET_REFAULT_FILE",
    "VMSTAT_WORKINGSET_RESTORE_ANON", "VMSTAT_WORKINGSET_RESTORE_FILE"
};
static const char *const pt_sys_stats_stat_counters[] = {
    "STAT_UNSPECIFIED", "STAT_CPU_TIMES", "STAT_IRQ_COUNTS", "STAT_SOFTIRQ_COUNTS",
    "STAT_FORK_COUNT"
};
static const proto_text_field pt_sys_stats_fields[] = {
    {1, "meminfo_period_ms", PT_UINT, NULL, NULL, 0},
    {2, "meminfo_counters", PT_ENUM_OF(pt_sys_stats_meminfo_counters)},
    {3, "vmstat_period_ms", PT_UINT, NULL, NULL, 0},
    {4, "vmstat_counters", PT_ENUM_OF(pt_sys_stats_vmstat_counters)},
    {5, "stat_period_ms", PT_UINT, NULL, NULL, 0},
    {6, "stat_counters", PT_ENUM_OF(pt_sys_stats_stat_counters)},
    {7, "devfreq_period_ms", PT_UINT, NULL, NULL, 0},
    {8, "cpufreq_period_ms", PT_UINT, NULL, NULL, 0},
    {9, "buddyinfo_period_ms", PT_UINT, NULL, NULL, 0},
    {10, "diskstat_period_ms", PT_UINT, NULL, NULL, 0},
    {11, "psi_period_ms", PT_UINT, NULL, NULL, 0},
    {12, "thermal_period_ms", PT_UINT, NULL, NULL, 0},
    {13, "cpuidle_period_ms", PT_UINT, NULL, NULL, 0},
    {14, "gpufreq_period_ms", PT_UINT, NULL, NULL, 0},
    {15, "slab_period_ms", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_sys_stats = PT_FIELDS(pt_sys_stats_fields);

static const char *const pt_android_power_battery_counters[] = {
    "BATTERY_COUNTER_UNSPECIFIED", "BATTERY_COUNTER_CHARGE",
    "BATTERY_COUNTER_CAPACITY_PERCENT", "BATTERY_COUNTER_CURRENT",
    "BATTERY_COUNTER_CURRENT_AVG", "BATTERY_COUNTER_VOLTAGE"
};
static const proto_text_field pt_android_power_fields[] = {
    {1, "battery_poll_ms", PT_UINT, NULL, NULL, 0},
    {2, "battery_counters", PT_ENUM_OF(pt_android_power_battery_counters)},
    {3, "collect_power_rails", PT_BOOL, NULL, NULL, 0},
    {4, "collect_energy_estimation_breakdown", PT_BOOL, NULL, NULL, 0},
    {5, "collect_entity_state_residency", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_android_power = PT_FIELDS(pt_android_power_fields);

static const char *const pt_android_log_log_ids[] = {
    "LID_DEFAULT", "LID_RADIO", "LID_EVENTS", "LID_SYSTEM", "LID_CRASH", "LID_STATS",
    "LID_SECURITY", "LID_KERNEL"
};
static const char *const pt_android_log_min_prio[] = {
    "PRIO_UNSPECIFIED", "PRIO_UNUSED", "PRIO_VERBOSE", "PRIO_DEBUG", "PRIO_INFO",
    "PRIO_WARN", "PRIO_ERROR", "PRIO_FATAL"
};
static const proto_text_field pt_android_log_fields[] = {
    {1, "log_ids", PT_ENUM_OF(pt_android_log_log_ids)},
    {3, "min_prio", PT_ENUM_OF(pt_android_log_min_prio)},
    {4, "filter_tags", PT_STRING, NULL, NULL, 0},
    {5, "preserve_log_buffer", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_android_log = PT_FIELDS(pt_android_log_fields);

static const proto_text_field pt_packages_list_fields[] = {
    {1, "package_name_filter", PT_STRING, NULL, NULL, 0},
    {2, "only_write_on_cpu_use_every_ms", PT_UINT, NULL, NULL, 0},
    {3, "package_name_regex_filter", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_packages_list = PT_FIELDS(pt_packages_list_fields);

static const char *const pt_chrome_priority[] = {"UNKNOWN", "BACKGROUND", "USER_INITIATED"};
static const proto_text_field pt_chrome_fields[] = {
    {1, "trace_config", PT_STRING, NULL, NULL, 0},
    {2, "privacy_filtering_enabled", PT_BOOL, NULL, NULL, 0},
    {3, "convert_to_legacy_json", PT_BOOL, NULL, NULL, 0},
    {4, "client_priority", PT_ENUM_OF(pt_chrome_priority)},
    {5, "json_agent_label_filter", PT_STRING, NULL, NULL, 0},
    {6, "event_package_name_filter_enabled", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_chrome = PT_FIELDS(pt_chrome_fields);

static const proto_text_field pt_track_event_fields[] = {
    {1, "disabled_categories", PT_STRING, NULL, NULL, 0},
    {2, "enabled_categories", PT_STRING, NULL, NULL, 0},
    {3, "disabled_tags", PT_STRING, NULL, NULL, 0},
    {4, "enabled_tags", PT_STRING, NULL, NULL, 0},
    {5, "disable_incremental_timestamps", PT_BOOL, NULL, NULL, 0},
    {6, "timestamp_unit_multiplier", PT_UINT, NULL, NULL, 0},
    {7, "filter_debug_annotations", PT_BOOL, NULL, NULL, 0},
    {8, "enable_thread_time_sampling", PT_BOOL, NULL, NULL, 0},
    {9, "filter_dynamic_event_names", PT_BOOL, NULL, NULL, 0},
    {10, "thread_time_subsampling_ns", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_track_event = PT_FIELDS(pt_track_event_fields);

static const proto_text_field pt_ds_config_fields[] = {
    {1, "name", PT_STRING, NULL, NULL, 0},
    {2, "target_buffer", PT_UINT, NULL, NULL, 0},
    {3, "trace_duration_ms", PT_UINT, NULL, NULL, 0},
    {4, "tracing_session_id", PT_UINT, NULL, NULL, 0},
    {100, "ftrace_config", PT_MSG, &pt_ftrace, NULL, 0},
    {101, "chrome_config", PT_MSG, &pt_chrome, NULL, 0},
    {103, "process_stats_config", PT_MSG, &pt_process_stats, NULL, 0},
    {104, "sys_stats_config", PT_MSG, &pt_sys_stats, NULL, 0},
    {106, "android_power_config", PT_MSG, &pt_android_power, NULL, 0},
    {107, "android_log_config", PT_MSG, &pt_android_log, NULL, 0},
    {109, "packages_list_config", PT_MSG, &pt_packages_list, NULL, 0},
    {113, "track_event_config", PT_MSG, &pt_track_event, NULL, 0},
};
static const proto_text_msg pt_ds_config = PT_FIELDS(pt_ds_config_fields);

static const proto_text_field pt_data_source_fields[] = {
    {1, "config", PT_MSG, &pt_ds_config, NULL, 0},
    {2, "producer_name_filter", PT_STRING, NULL, NULL, 0},
    {3, "producer_name_regex_filter", PT_STRING, NULL, NULL, 0},
    {4, "machine_name_filter", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_data_source = PT_FIELDS(pt_data_source_fields);

static const proto_text_field pt_builtin_fields[] = {
    {1, "disable_clock_snapshotting", PT_BOOL, NULL, NULL, 0},
    {2, "disable_trace_config", PT_BOOL, NULL, NULL, 0},
    {3, "disable_system_info", PT_BOOL, NULL, NULL, 0},
    {4, "disable_service_events", PT_BOOL, NULL, NULL, 0},
    {5, "primary_trace_clock", PT_ENUM_OF(pt_clocks)},
    {6, "snapshot_interval_ms", PT_UINT, NULL, NULL, 0},
    {7, "prefer_suspend_clock_for_snapshot", PT_BOOL, NULL, NULL, 0},
    {8, "disable_chunk_usage_histograms", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_builtin = PT_FIELDS(pt_builtin_fields);

static const proto_text_field pt_producer_fields[] = {
    {1, "producer_name", PT_STRING, NULL, NULL, 0},
    {2, "shm_size_kb", PT_UINT, NULL, NULL, 0},
    {3, "page_size_kb", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_producer = PT_FIELDS(pt_producer_fields);

static const char *const pt_trigger_mode[] = {"UNSPECIFIED", "START_TRACING", "STOP_TRACING",
                                              NULL, "CLONE_SNAPSHOT"};
static const char *const pt_compression[] = {"COMPRESSION_TYPE_UNSPECIFIED",
                                             "COMPRESSION_TYPE_DEFLATE"};
static const char *const pt_statsd_logging[] = {
    "STATSD_LOGGING_UNSPECIFIED", "STATSD_LOGGING_ENABLED", "STATSD_LOGGING_DISABLED"};
static const char *const pt_filter_policy[] = {
    "SFP_UNSPECIFIED", "SFP_MATCH_REDACT_GROUPS", "SFP_ATRACE_MATCH_REDACT_GROUPS",
    "SFP_MATCH_BREAK", "SFP_ATRACE_MATCH_BREAK", "SFP_ATRACE_REPEATED_SEARCH_REDACT_GROUPS"};
static const char *const pt_boost_policy[] = {"POLICY_UNSPECIFIED", "POLICY_SCHED_OTHER",
                                              "POLICY_SCHED_FIFO"};

static const proto_text_field pt_statsd_fields[] = {
    {1, "triggering_alert_id", PT_INT64, NULL, NULL, 0},
    {2, "triggering_config_uid", PT_INT32, NULL, NULL, 0},
    {3, "triggering_config_id", PT_INT64, NULL, NULL, 0},
    {4, "triggering_subscription_id", PT_INT64, NULL, NULL, 0},
};
static const proto_text_msg pt_statsd = PT_FIELDS(pt_statsd_fields);

static const proto_text_field pt_guardrail_fields[] = {
    {1, "max_upload_per_day_bytes", PT_UINT, NULL, NULL, 0},
    {2, "max_tracing_buffer_size_kb", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_guardrail = PT_FIELDS(pt_guardrail_fields);

static const proto_text_field pt_trigger_fields[] = {
    {1, "name", PT_STRING, NULL, NULL, 0},
    {2, "producer_name_regex", PT_STRING, NULL, NULL, 0},
    {3, "stop_delay_ms", PT_UINT, NULL, NULL, 0},
    {4, "max_per_24_h", PT_UINT, NULL, NULL, 0},
    {5, "skip_probability", PT_DOUBLE, NULL, NULL, 0},
};
static const proto_text_msg pt_trigger = PT_FIELDS(pt_trigger_fields);

static const proto_text_field pt_trigger_config_fields[] = {
    {1, "trigger_mode", PT_ENUM_OF(pt_trigger_mode)},
    {2, "triggers", PT_MSG, &pt_trigger, NULL, 0},
    {3, "trigger_timeout_ms", PT_UINT, NULL, NULL, 0},
    {5, "use_clone_snapshot_if_available", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_trigger_config = PT_FIELDS(pt_trigger_config_fields);

static const proto_text_field pt_incremental_fields[] = {
    {1, "clear_period_ms", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_incremental = PT_FIELDS(pt_incremental_fields);

static const proto_text_field pt_incident_fields[] = {
    {1, "destination_package", PT_STRING, NULL, NULL, 0},
    {2, "destination_class", PT_STRING, NULL, NULL, 0},
    {3, "privacy_level", PT_INT32, NULL, NULL, 0},
    {4, "skip_dropbox", PT_BOOL, NULL, NULL, 0},
    {5, "skip_incidentd", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_incident = PT_FIELDS(pt_incident_fields);

static const proto_text_field pt_filter_rule_fields[] = {
    {1, "policy", PT_ENUM_OF(pt_filter_policy)},
    {2, "regex_pattern", PT_STRING, NULL, NULL, 0},
    {3, "atrace_payload_starts_with", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_filter_rule = PT_FIELDS(pt_filter_rule_fields);

static const proto_text_field pt_filter_chain_fields[] = {
    {1, "rules", PT_MSG, &pt_filter_rule, NULL, 0},
};
static const proto_text_msg pt_filter_chain = PT_FIELDS(pt_filter_chain_fields);

static const proto_text_field pt_filter_fields[] = {
    {1, "bytecode", PT_STRING, NULL, NULL, 0},
    {2, "bytecode_v2", PT_STRING, NULL, NULL, 0},
    {3, "string_filter_chain", PT_MSG, &pt_filter_chain, NULL, 0},
};
static const proto_text_msg pt_filter = PT_FIELDS(pt_filter_fields);

static const proto_text_field pt_android_report_fields[] = {
    {1, "reporter_service_package", PT_STRING, NULL, NULL, 0},
    {2, "reporter_service_class", PT_STRING, NULL, NULL, 0},
    {3, "skip_report", PT_BOOL, NULL, NULL, 0},
    {4, "use_pipe_in_framework_for_testing", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_android_report = PT_FIELDS(pt_android_report_fields);

static const proto_text_field pt_start_delay_fields[] = {
    {1, "min_delay_ms", PT_UINT, NULL, NULL, 0},
    {2, "max_delay_ms", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_start_delay = PT_FIELDS(pt_start_delay_fields);

static const proto_text_field pt_semaphore_fields[] = {
    {1, "name", PT_STRING, NULL, NULL, 0},
    {2, "max_other_session_count", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_semaphore = PT_FIELDS(pt_semaphore_fields);

static const proto_text_field pt_boost_fields[] = {
    {1, "policy", PT_ENUM_OF(pt_boost_policy)},
    {2, "priority", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_boost = PT_FIELDS(pt_boost_fields);

static const proto_text_field pt_config_fields[] = {
    {1, "buffers", PT_MSG, &pt_buffer, NULL, 0},
    {2, "data_sources", PT_MSG, &pt_data_source, NULL, 0},
    {3, "duration_ms", PT_UINT, NULL, NULL, 0},
    {4, "enable_extra_guardrails", PT_BOOL, NULL, NULL, 0},
    {5, "lockdown_mode", PT_ENUM_OF(pt_lockdown)},
    {6, "producers", PT_MSG, &pt_producer, NULL, 0},
    {7, "statsd_metadata", PT_MSG, &pt_statsd, NULL, 0},
    {8, "write_into_file", PT_BOOL, NULL, NULL, 0},
    {9, "file_write_period_ms", PT_UINT, NULL, NULL, 0},
    {10, "max_file_size_bytes", PT_UINT, NULL, NULL, 0},
    {11, "guardrail_overrides", PT_MSG, &pt_guardrail, NULL, 0},
    {12, "deferred_start", PT_BOOL, NULL, NULL, 0},
    {13, "flush_period_ms", PT_UINT, NULL, NULL, 0},
    {14, "flush_timeout_ms", PT_UINT, NULL, NULL, 0},
    {16, "notify_traceur", PT_BOOL, NULL, NULL, 0},
    {17, "trigger_config", PT_MSG, &pt_trigger_config, NULL, 0},
    {18, "activate_triggers", PT_STRING, NULL, NULL, 0},
    {19, "allow_user_build_tracing", PT_BOOL, NULL, NULL, 0},
    {20, "builtin_data_sources", PT_MSG, &pt_builtin, NULL, 0},
    {21, "incremental_state_config", PT_MSG, &pt_incremental, NULL, 0},
    {22, "unique_session_name", PT_STRING, NULL, NULL, 0},
    {23, "data_source_stop_timeout_ms", PT_UINT, NULL, NULL, 0},
    {24, "compression_type", PT_ENUM_OF(pt_compression)},
    {25, "incident_report_config", PT_MSG, &pt_incident, NULL, 0},
    {27, "trace_uuid_msb", PT_INT64, NULL, NULL, 0},
    {28, "trace_uuid_lsb", PT_INT64, NULL, NULL, 0},
    {29, "output_path", PT_STRING, NULL, NULL, 0},
    {30, "bugreport_score", PT_INT32, NULL, NULL, 0},
    {31, "statsd_logging", PT_ENUM_OF(pt_statsd_logging)},
    {33, "trace_filter", PT_MSG, &pt_filter, NULL, 0},
    {34, "android_report_config", PT_MSG, &pt_android_report, NULL, 0},
    {35, "cmd_trace_start_delay", PT_MSG, &pt_start_delay, NULL, 0},
    {36, "prefer_suspend_clock_for_duration", PT_BOOL, NULL, NULL, 0},
    {38, "bugreport_filename", PT_STRING, NULL, NULL, 0},
    {39, "session_semaphores", PT_MSG, &pt_semaphore, NULL, 0},
    {40, "priority_boost", PT_MSG, &pt_boost, NULL, 0},
    {41, "exclusive_prio", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_config = PT_FIELDS(pt_config_fields);

/* The output and its sticky allocation failure (hitting the byte cap only
 * truncates). */
typedef struct pt_writer {
  base_buf *buf;
  int rc;
} pt_writer;

static void pt_note(pt_writer *w, int rc) {
  if (rc == WEFT_ENOMEM) w->rc = rc;
}

static void pt_put(pt_writer *w, const void *s, size_t n) { pt_note(w, base_buf_append(w->buf, s, n)); }

static void pt_putf(pt_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pt_putf(pt_writer *w, const char *fmt, ...) {
  char tmp[64];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) pt_put(w, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static const proto_text_field *pt_lookup(const proto_text_msg *m, uint32_t number) {
  for (size_t i = 0; m && i < m->count; i++)
    if (m->fields[i].number == number) return &m->fields[i];
  return NULL;
}

/* The field's description if the value is one it describes (an enum value
 * outside the enum, or a wrong wire type, prints as an unknown field). */
static const proto_text_field *pt_known(const proto_text_field *d, const proto_field *fl) {
  if (!d) return NULL;
  int len = fl->wire_type == PROTO_WIRE_LEN;
  switch (d->type) {
    case PT_STRING: case PT_MSG: return len ? d : NULL;
    case PT_DOUBLE: return fl->wire_type == PROTO_WIRE_FIXED64 ? d : NULL;
    case PT_ENUM:
      return !len && fl->value < d->enum_count && d->enum_names[fl->value] ? d : NULL;
    default: return len ? NULL : d;
  }
}

/* The letter of a control character's C escape (\a \b \t \n \v \f \r),
 * or 0 for one written in octal. */
static char pt_escape_letter(uint8_t c) {
  static const char letters[] = "abtnvfr"; /* 7..13 */
  return c >= 7 && c <= 13 ? letters[c - 7] : 0;
}

/* Appends a quoted, C-escaped string, as Perfetto's text printer escapes it:
 * quotes, apostrophes and backslashes escaped, \a..\r by letter, other
 * bytes below 0x20 or from 0x7f in octal. */
static void pt_quoted(pt_writer *out, const uint8_t *s, size_t len) {
  pt_put(out, "\"", 1);
  for (size_t i = 0; i < len; i++) {
    uint8_t c = s[i];
    char letter = pt_escape_letter(c);
    if (c == '"' || c == '\\' || c == '\'') pt_putf(out, "\\%c", c);
    else if (letter) pt_putf(out, "\\%c", letter);
    else if (c < 0x20 || c >= 0x7f) pt_putf(out, "\\%03o", c);
    else pt_put(out, &c, 1);
  }
  pt_put(out, "\"", 1);
}

static void pt_value(pt_writer *out, const proto_text_field *d, const proto_field *fl) {
  if (fl->wire_type == PROTO_WIRE_LEN) {
    pt_quoted(out, fl->span.data, fl->span.len);
    return;
  }
  uint64_t v = fl->value;
  switch (d ? d->type : PT_UINT) {
    case PT_INT32: pt_putf(out, "%" PRId32, (int32_t)(uint32_t)v); break;
    case PT_INT64: pt_putf(out, "%" PRId64, (int64_t)v); break;
    case PT_BOOL: pt_putf(out, "%s", v ? "true" : "false"); break;
    case PT_ENUM: pt_putf(out, "%s", d->enum_names[v]); break; /* known: pt_known */
    case PT_DOUBLE: {
      double x;
      memcpy(&x, &v, sizeof x);
      pt_putf(out, "%f", x);
      break;
    }
    default: pt_putf(out, "%" PRIu64, v); break;
  }
}

static void pt_indent(pt_writer *out, int depth) {
  if (out->buf->len) pt_put(out, "\n", 1);
  for (int i = 0; i < depth; i++) pt_put(out, "  ", 2);
}

static void pt_message(pt_writer *out, proto_span msg, const proto_text_msg *schema, int depth) {
  proto_reader r;
  proto_field fl = {0};
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    const proto_text_field *d = pt_known(pt_lookup(schema, fl.number), &fl);
    pt_indent(out, depth);
    if (d) pt_putf(out, "%s", d->name);
    else pt_putf(out, "%" PRIu32, fl.number);
    if (d && d->type == PT_MSG && fl.wire_type == PROTO_WIRE_LEN && depth < PROTO_TEXT_MAX_DEPTH) {
      pt_put(out, " {", 2);
      pt_message(out, fl.span, d->msg, depth + 1);
      pt_indent(out, depth);
      pt_put(out, "}", 1);
      continue;
    }
    pt_put(out, ": ", 2);
    pt_value(out, d, &fl);
  }
}

int proto_config_text(proto_span config, base_buf *out) {
  base_buf_reset(out);
  pt_writer w = {out, WEFT_OK};
  pt_message(&w, config, &pt_config, 0);
  return w.rc;
}

/* The config's unique_session_name and statsd triggering subscription. */
static int proto_config_fields_metadata(import_file *f, proto_span config) {
  proto_field fl;
  int rc = WEFT_OK;
  if (proto_find_last(config.data, config.len, PROTO_TRACE_CONFIG_UNIQUE_SESSION_NAME, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN) {
    char *name = base_malloc(fl.span.len + 1);
    if (!name) return WEFT_ENOMEM;
    memcpy(name, fl.span.data, fl.span.len);
    name[fl.span.len] = '\0';
    rc = ctx_metadata_set_str(f->ctx, "unique_session_name", name, -1, f->trace_id);
    base_free(name);
  }
  proto_field sub;
  if (!rc &&
      proto_find_last(config.data, config.len, PROTO_TRACE_CONFIG_STATSD_METADATA, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN &&
      proto_find_last(fl.span.data, fl.span.len, PROTO_STATSD_METADATA_SUBSCRIPTION_ID, &sub) ==
          1 &&
      sub.wire_type == PROTO_WIRE_VARINT)
    rc = ctx_metadata_set_int(f->ctx, "statsd_triggering_subscription_id", (int64_t)sub.value,
                              -1, f->trace_id);
  return rc;
}

int proto_config_text_metadata(import_file *f, proto_span config) {
  int rc = proto_config_fields_metadata(f, config);
  if (rc) return rc;
  base_buf out;
  base_buf_init(&out, PROTO_TEXT_MAX_BYTES);
  rc = proto_config_text(config, &out);
  if (!rc) rc = ctx_metadata_set_str(f->ctx, "trace_config_pbtxt", out.data ? out.data : "", -1,
                                     f->trace_id);
  base_buf_free(&out);
  return rc;
}
