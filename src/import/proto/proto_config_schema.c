/* The schema trace_config_pbtxt is printed by. See proto_config_schema.h.
 * Field numbers, names, types and enum names are those of Perfetto's config
 * protos; the tables of the data source configs marked below are written by
 * scripts/config_schema_probe.py from what the reference prints. */
#include "import/proto/proto_config_schema.h"


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

/* The data source configs below, up to chrome_config's tables: field
 * numbers, names, types and enum value names of Perfetto's config protos as
 * the reference prints them (scripts/config_schema_probe.py asks the
 * reference and writes them). */
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

static const proto_text_field pt_heapprofd_continuous_dump_config_fields[] = {
    {5, "dump_phase_ms", PT_UINT, NULL, NULL, 0},
    {6, "dump_interval_ms", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_heapprofd_continuous_dump_config =
    PT_FIELDS(pt_heapprofd_continuous_dump_config_fields);

static const proto_text_field pt_heapprofd_fields[] = {
    {1, "sampling_interval_bytes", PT_UINT, NULL, NULL, 0},
    {2, "process_cmdline", PT_STRING, NULL, NULL, 0},
    {4, "pid", PT_UINT, NULL, NULL, 0},
    {5, "all", PT_BOOL, NULL, NULL, 0},
    {6, "continuous_dump_config", PT_MSG, &pt_heapprofd_continuous_dump_config, NULL, 0},
    {7, "skip_symbol_prefix", PT_STRING, NULL, NULL, 0},
    {8, "shmem_size_bytes", PT_UINT, NULL, NULL, 0},
    {9, "block_client", PT_BOOL, NULL, NULL, 0},
    {10, "no_startup", PT_BOOL, NULL, NULL, 0},
    {11, "no_running", PT_BOOL, NULL, NULL, 0},
    {13, "dump_at_max", PT_BOOL, NULL, NULL, 0},
    {14, "block_client_timeout_us", PT_UINT, NULL, NULL, 0},
    {15, "min_anonymous_memory_kb", PT_UINT, NULL, NULL, 0},
    {16, "max_heapprofd_memory_kb", PT_UINT, NULL, NULL, 0},
    {17, "max_heapprofd_cpu_secs", PT_UINT, NULL, NULL, 0},
    {18, "disable_fork_teardown", PT_BOOL, NULL, NULL, 0},
    {19, "disable_vfork_detection", PT_BOOL, NULL, NULL, 0},
    {20, "heaps", PT_STRING, NULL, NULL, 0},
    {21, "all_heaps", PT_BOOL, NULL, NULL, 0},
    {22, "heap_sampling_intervals", PT_UINT, NULL, NULL, 0},
    {23, "stream_allocations", PT_BOOL, NULL, NULL, 0},
    {24, "adaptive_sampling_shmem_threshold", PT_UINT, NULL, NULL, 0},
    {25, "adaptive_sampling_max_sampling_interval_bytes", PT_UINT, NULL, NULL, 0},
    {26, "target_installed_by", PT_STRING, NULL, NULL, 0},
    {27, "exclude_heaps", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_heapprofd = PT_FIELDS(pt_heapprofd_fields);

static const char *const
    pt_gpu_counter_instrumented_sampling_config_activity_name_filters_name_base[] = {
    "MANGLED_KERNEL_NAME", "DEMANGLED_KERNEL_NAME", "FUNCTION_NAME"
};
static const proto_text_field
    pt_gpu_counter_instrumented_sampling_config_activity_name_filters_fields[] = {
    {1, "name_glob", PT_STRING, NULL, NULL, 0},
    {2, "name_base",
     PT_ENUM_OF(pt_gpu_counter_instrumented_sampling_config_activity_name_filters_name_base)},
};
static const proto_text_msg pt_gpu_counter_instrumented_sampling_config_activity_name_filters =
    PT_FIELDS(pt_gpu_counter_instrumented_sampling_config_activity_name_filters_fields);

static const proto_text_field
    pt_gpu_counter_instrumented_sampling_config_activity_ranges_fields[] = {
    {1, "skip", PT_UINT, NULL, NULL, 0},
    {2, "count", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_gpu_counter_instrumented_sampling_config_activity_ranges =
    PT_FIELDS(pt_gpu_counter_instrumented_sampling_config_activity_ranges_fields);

static const proto_text_field pt_gpu_counter_instrumented_sampling_config_fields[] = {
    {3, "activity_name_filters", PT_MSG,
     &pt_gpu_counter_instrumented_sampling_config_activity_name_filters, NULL, 0},
    {5, "activity_ranges", PT_MSG,
     &pt_gpu_counter_instrumented_sampling_config_activity_ranges, NULL, 0},
    {6, "activity_tx_include_globs", PT_STRING, NULL, NULL, 0},
    {7, "activity_tx_exclude_globs", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_gpu_counter_instrumented_sampling_config =
    PT_FIELDS(pt_gpu_counter_instrumented_sampling_config_fields);

static const proto_text_field pt_gpu_counter_fields[] = {
    {1, "counter_period_ns", PT_UINT, NULL, NULL, 0},
    {2, "counter_ids", PT_UINT, NULL, NULL, 0},
    {3, "instrumented_sampling", PT_BOOL, NULL, NULL, 0},
    {4, "fix_gpu_clock", PT_BOOL, NULL, NULL, 0},
    {5, "instrumented_sampling_config", PT_MSG,
     &pt_gpu_counter_instrumented_sampling_config, NULL, 0},
    {6, "counter_names", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_gpu_counter = PT_FIELDS(pt_gpu_counter_fields);

static const proto_text_field pt_java_hprof_continuous_dump_config_fields[] = {
    {1, "dump_phase_ms", PT_UINT, NULL, NULL, 0},
    {2, "dump_interval_ms", PT_UINT, NULL, NULL, 0},
    {3, "scan_pids_only_on_start", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_java_hprof_continuous_dump_config =
    PT_FIELDS(pt_java_hprof_continuous_dump_config_fields);

static const char *const pt_java_hprof_smaps_config_vma_fields[] = {
    "VMA_FIELD_UNKNOWN", "VMA_FIELD_SIZE", "VMA_FIELD_RSS", "VMA_FIELD_ANONYMOUS",
    "VMA_FIELD_SWAP", "VMA_FIELD_SHARED_CLEAN", "VMA_FIELD_SHARED_DIRTY",
    "VMA_FIELD_PRIVATE_CLEAN", "VMA_FIELD_PRIVATE_DIRTY", "VMA_FIELD_LOCKED",
    "VMA_FIELD_PSS", "VMA_FIELD_PSS_DIRTY", "VMA_FIELD_SWAP_PSS"
};
static const char *const pt_java_hprof_smaps_config_name_redaction_rules_match_mode[] = {
    "MATCH_MODE_UNKNOWN", "MATCH_MODE_PREFIX", "MATCH_MODE_GLOB_PATH",
    "MATCH_MODE_GLOB_STRING"
};
static const proto_text_field pt_java_hprof_smaps_config_name_redaction_rules_fields[] = {
    {1, "pattern", PT_STRING, NULL, NULL, 0},
    {2, "match_mode", PT_ENUM_OF(pt_java_hprof_smaps_config_name_redaction_rules_match_mode)},
    {3, "keep_full", PT_BOOL, NULL, NULL, 0},
    {4, "replacement_name", PT_STRING, NULL, NULL, 0},
    {5, "keep_file_extension", PT_BOOL, NULL, NULL, 0},
    {6, "keep_path_elements", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_java_hprof_smaps_config_name_redaction_rules =
    PT_FIELDS(pt_java_hprof_smaps_config_name_redaction_rules_fields);

static const proto_text_field pt_java_hprof_smaps_config_fields[] = {
    {1, "vma_fields", PT_ENUM_OF(pt_java_hprof_smaps_config_vma_fields)},
    {2, "unaggregated", PT_BOOL, NULL, NULL, 0},
    {3, "name_redaction_rules", PT_MSG,
     &pt_java_hprof_smaps_config_name_redaction_rules, NULL, 0},
};
static const proto_text_msg pt_java_hprof_smaps_config =
    PT_FIELDS(pt_java_hprof_smaps_config_fields);

static const proto_text_field pt_java_hprof_fields[] = {
    {1, "process_cmdline", PT_STRING, NULL, NULL, 0},
    {2, "pid", PT_UINT, NULL, NULL, 0},
    {3, "continuous_dump_config", PT_MSG, &pt_java_hprof_continuous_dump_config, NULL, 0},
    {4, "min_anonymous_memory_kb", PT_UINT, NULL, NULL, 0},
    {5, "dump_smaps", PT_BOOL, NULL, NULL, 0},
    {6, "ignored_types", PT_STRING, NULL, NULL, 0},
    {7, "target_installed_by", PT_STRING, NULL, NULL, 0},
    {8, "smaps_config", PT_MSG, &pt_java_hprof_smaps_config, NULL, 0},
    {9, "min_java_heap_size_kb", PT_UINT, NULL, NULL, 0},
    {10, "dump_oome_callstack", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_java_hprof = PT_FIELDS(pt_java_hprof_fields);

static const proto_text_field pt_perf_event_timebase_tracepoint_fields[] = {
    {1, "name", PT_STRING, NULL, NULL, 0},
    {2, "filter", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_perf_event_timebase_tracepoint =
    PT_FIELDS(pt_perf_event_timebase_tracepoint_fields);

static const char *const pt_perf_event_timebase_counter[] = {
    "UNKNOWN_COUNTER", "SW_CPU_CLOCK", "SW_PAGE_FAULTS", "SW_TASK_CLOCK",
    "SW_CONTEXT_SWITCHES", "SW_CPU_MIGRATIONS", "SW_PAGE_FAULTS_MIN", "SW_PAGE_FAULTS_MAJ",
    "SW_ALIGNMENT_FAULTS", "SW_EMULATION_FAULTS", "HW_CPU_CYCLES", "HW_INSTRUCTIONS",
    "HW_CACHE_REFERENCES", "HW_CACHE_MISSES", "HW_BRANCH_INSTRUCTIONS", "HW_BRANCH_MISSES",
    "HW_BUS_CYCLES", "HW_STALLED_CYCLES_FRONTEND", "HW_STALLED_CYCLES_BACKEND",
    "HW_REF_CPU_CYCLES", "SW_DUMMY"
};
static const proto_text_field pt_perf_event_timebase_raw_event_fields[] = {
    {1, "type", PT_UINT, NULL, NULL, 0},
    {2, "config", PT_UINT, NULL, NULL, 0},
    {3, "config1", PT_UINT, NULL, NULL, 0},
    {4, "config2", PT_UINT, NULL, NULL, 0},
    {5, "pmu_name", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_perf_event_timebase_raw_event =
    PT_FIELDS(pt_perf_event_timebase_raw_event_fields);

static const char *const pt_perf_event_timebase_timestamp_clock[] = {
    "UNKNOWN_PERF_CLOCK", "PERF_CLOCK_REALTIME", "PERF_CLOCK_MONOTONIC",
    "PERF_CLOCK_MONOTONIC_RAW", "PERF_CLOCK_BOOTTIME"
};
static const char *const pt_perf_event_timebase_modifiers[] = {
    "UNKNOWN_EVENT_MODIFIER", "EVENT_MODIFIER_COUNT_USERSPACE",
    "EVENT_MODIFIER_COUNT_KERNEL", "EVENT_MODIFIER_COUNT_HYPERVISOR"
};
static const proto_text_field pt_perf_event_timebase_fields[] = {
    {1, "period", PT_UINT, NULL, NULL, 0},
    {2, "frequency", PT_UINT, NULL, NULL, 0},
    {3, "tracepoint", PT_MSG, &pt_perf_event_timebase_tracepoint, NULL, 0},
    {4, "counter", PT_ENUM_OF(pt_perf_event_timebase_counter)},
    {5, "raw_event", PT_MSG, &pt_perf_event_timebase_raw_event, NULL, 0},
    {6, "poll_period_ms", PT_UINT, NULL, NULL, 0},
    {10, "name", PT_STRING, NULL, NULL, 0},
    {11, "timestamp_clock", PT_ENUM_OF(pt_perf_event_timebase_timestamp_clock)},
    {12, "modifiers", PT_ENUM_OF(pt_perf_event_timebase_modifiers)},
};
static const proto_text_msg pt_perf_event_timebase = PT_FIELDS(pt_perf_event_timebase_fields);

static const proto_text_field pt_perf_event_callstack_sampling_scope_fields[] = {
    {1, "target_pid", PT_INT64, NULL, NULL, 0},
    {2, "target_cmdline", PT_STRING, NULL, NULL, 0},
    {3, "exclude_pid", PT_INT64, NULL, NULL, 0},
    {4, "exclude_cmdline", PT_STRING, NULL, NULL, 0},
    {5, "additional_cmdline_count", PT_UINT, NULL, NULL, 0},
    {6, "process_shard_count", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_perf_event_callstack_sampling_scope =
    PT_FIELDS(pt_perf_event_callstack_sampling_scope_fields);

static const char *const pt_perf_event_callstack_sampling_user_frames[] = {
    "UNWIND_UNKNOWN", "UNWIND_SKIP", "UNWIND_DWARF", "UNWIND_FRAME_POINTER",
    "UNWIND_KERNEL_FRAME_POINTER"
};
static const proto_text_field pt_perf_event_callstack_sampling_fields[] = {
    {1, "scope", PT_MSG, &pt_perf_event_callstack_sampling_scope, NULL, 0},
    {2, "kernel_frames", PT_BOOL, NULL, NULL, 0},
    {3, "user_frames", PT_ENUM_OF(pt_perf_event_callstack_sampling_user_frames)},
};
static const proto_text_msg pt_perf_event_callstack_sampling =
    PT_FIELDS(pt_perf_event_callstack_sampling_fields);

static const char *const pt_perf_event_followers_counter[] = {
    "UNKNOWN_COUNTER", "SW_CPU_CLOCK", "SW_PAGE_FAULTS", "SW_TASK_CLOCK",
    "SW_CONTEXT_SWITCHES", "SW_CPU_MIGRATIONS", "SW_PAGE_FAULTS_MIN", "SW_PAGE_FAULTS_MAJ",
    "SW_ALIGNMENT_FAULTS", "SW_EMULATION_FAULTS", "HW_CPU_CYCLES", "HW_INSTRUCTIONS",
    "HW_CACHE_REFERENCES", "HW_CACHE_MISSES", "HW_BRANCH_INSTRUCTIONS", "HW_BRANCH_MISSES",
    "HW_BUS_CYCLES", "HW_STALLED_CYCLES_FRONTEND", "HW_STALLED_CYCLES_BACKEND",
    "HW_REF_CPU_CYCLES", "SW_DUMMY"
};
static const proto_text_field pt_perf_event_followers_tracepoint_fields[] = {
    {1, "name", PT_STRING, NULL, NULL, 0},
    {2, "filter", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_perf_event_followers_tracepoint =
    PT_FIELDS(pt_perf_event_followers_tracepoint_fields);

static const proto_text_field pt_perf_event_followers_raw_event_fields[] = {
    {1, "type", PT_UINT, NULL, NULL, 0},
    {2, "config", PT_UINT, NULL, NULL, 0},
    {3, "config1", PT_UINT, NULL, NULL, 0},
    {4, "config2", PT_UINT, NULL, NULL, 0},
    {5, "pmu_name", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_perf_event_followers_raw_event =
    PT_FIELDS(pt_perf_event_followers_raw_event_fields);

static const char *const pt_perf_event_followers_modifiers[] = {
    "UNKNOWN_EVENT_MODIFIER", "EVENT_MODIFIER_COUNT_USERSPACE",
    "EVENT_MODIFIER_COUNT_KERNEL", "EVENT_MODIFIER_COUNT_HYPERVISOR"
};
static const proto_text_field pt_perf_event_followers_fields[] = {
    {1, "counter", PT_ENUM_OF(pt_perf_event_followers_counter)},
    {2, "tracepoint", PT_MSG, &pt_perf_event_followers_tracepoint, NULL, 0},
    {3, "raw_event", PT_MSG, &pt_perf_event_followers_raw_event, NULL, 0},
    {4, "name", PT_STRING, NULL, NULL, 0},
    {5, "modifiers", PT_ENUM_OF(pt_perf_event_followers_modifiers)},
};
static const proto_text_msg pt_perf_event_followers = PT_FIELDS(pt_perf_event_followers_fields);

static const proto_text_field pt_perf_event_fields[] = {
    {1, "all_cpus", PT_BOOL, NULL, NULL, 0},
    {2, "sampling_frequency", PT_UINT, NULL, NULL, 0},
    {3, "ring_buffer_pages", PT_UINT, NULL, NULL, 0},
    {4, "target_pid", PT_INT64, NULL, NULL, 0},
    {5, "target_cmdline", PT_STRING, NULL, NULL, 0},
    {6, "exclude_pid", PT_INT64, NULL, NULL, 0},
    {7, "exclude_cmdline", PT_STRING, NULL, NULL, 0},
    {8, "ring_buffer_read_period_ms", PT_UINT, NULL, NULL, 0},
    {9, "remote_descriptor_timeout_ms", PT_UINT, NULL, NULL, 0},
    {10, "unwind_state_clear_period_ms", PT_UINT, NULL, NULL, 0},
    {11, "additional_cmdline_count", PT_UINT, NULL, NULL, 0},
    {12, "kernel_frames", PT_BOOL, NULL, NULL, 0},
    {13, "max_daemon_memory_kb", PT_UINT, NULL, NULL, 0},
    {15, "timebase", PT_MSG, &pt_perf_event_timebase, NULL, 0},
    {16, "callstack_sampling", PT_MSG, &pt_perf_event_callstack_sampling, NULL, 0},
    {17, "max_enqueued_footprint_kb", PT_UINT, NULL, NULL, 0},
    {18, "target_installed_by", PT_STRING, NULL, NULL, 0},
    {19, "followers", PT_MSG, &pt_perf_event_followers, NULL, 0},
    {20, "target_cpu", PT_UINT, NULL, NULL, 0},
    {21, "ignore_open_failure", PT_BOOL, NULL, NULL, 0},
    {22, "cpuid", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_perf_event = PT_FIELDS(pt_perf_event_fields);

static const proto_text_field pt_android_polled_state_fields[] = {
    {1, "poll_ms", PT_UINT, NULL, NULL, 0},
};
static const proto_text_msg pt_android_polled_state = PT_FIELDS(pt_android_polled_state_fields);

static const proto_text_field pt_statsd_tracing_pull_config_fields[] = {
    {2, "raw_pull_atom_id", PT_INT64, NULL, NULL, 0},
    {3, "pull_frequency_ms", PT_INT64, NULL, NULL, 0},
    {4, "packages", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_statsd_tracing_pull_config =
    PT_FIELDS(pt_statsd_tracing_pull_config_fields);

static const proto_text_field pt_statsd_tracing_fields[] = {
    {2, "raw_push_atom_id", PT_INT64, NULL, NULL, 0},
    {3, "pull_config", PT_MSG, &pt_statsd_tracing_pull_config, NULL, 0},
};
static const proto_text_msg pt_statsd_tracing = PT_FIELDS(pt_statsd_tracing_fields);

static const proto_text_field pt_android_system_property_fields[] = {
    {1, "poll_ms", PT_UINT, NULL, NULL, 0},
    {2, "property_name", PT_STRING, NULL, NULL, 0},
};
static const proto_text_msg pt_android_system_property =
    PT_FIELDS(pt_android_system_property_fields);

static const proto_text_field pt_network_packet_trace_fields[] = {
    {1, "poll_ms", PT_UINT, NULL, NULL, 0},
    {2, "aggregation_threshold", PT_UINT, NULL, NULL, 0},
    {3, "intern_limit", PT_UINT, NULL, NULL, 0},
    {4, "drop_local_port", PT_BOOL, NULL, NULL, 0},
    {5, "drop_remote_port", PT_BOOL, NULL, NULL, 0},
    {6, "drop_tcp_flags", PT_BOOL, NULL, NULL, 0},
};
static const proto_text_msg pt_network_packet_trace = PT_FIELDS(pt_network_packet_trace_fields);

static const char *const pt_surfaceflinger_layers_mode[] = {
    "MODE_UNSPECIFIED", "MODE_ACTIVE", "MODE_GENERATED", "MODE_DUMP",
    "MODE_GENERATED_BUGREPORT_ONLY", "MODE_PROTOVM"
};
static const proto_text_field pt_surfaceflinger_layers_fields[] = {
    {1, "mode", PT_ENUM_OF(pt_surfaceflinger_layers_mode)},
};
static const proto_text_msg pt_surfaceflinger_layers =
    PT_FIELDS(pt_surfaceflinger_layers_fields);

static const char *const pt_surfaceflinger_transactions_mode[] = {
    "MODE_UNSPECIFIED", "MODE_CONTINUOUS", "MODE_ACTIVE"
};
static const proto_text_field pt_surfaceflinger_transactions_fields[] = {
    {1, "mode", PT_ENUM_OF(pt_surfaceflinger_transactions_mode)},
};
static const proto_text_msg pt_surfaceflinger_transactions =
    PT_FIELDS(pt_surfaceflinger_transactions_fields);

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
    {102, "inode_file_config", PT_MSG, &pt_inode_file, NULL, 0},
    {103, "process_stats_config", PT_MSG, &pt_process_stats, NULL, 0},
    {104, "sys_stats_config", PT_MSG, &pt_sys_stats, NULL, 0},
    {105, "heapprofd_config", PT_MSG, &pt_heapprofd, NULL, 0},
    {106, "android_power_config", PT_MSG, &pt_android_power, NULL, 0},
    {107, "android_log_config", PT_MSG, &pt_android_log, NULL, 0},
    {108, "gpu_counter_config", PT_MSG, &pt_gpu_counter, NULL, 0},
    {109, "packages_list_config", PT_MSG, &pt_packages_list, NULL, 0},
    {110, "java_hprof_config", PT_MSG, &pt_java_hprof, NULL, 0},
    {111, "perf_event_config", PT_MSG, &pt_perf_event, NULL, 0},
    {112, "vulkan_memory_config", PT_MSG, &pt_vulkan_memory, NULL, 0},
    {113, "track_event_config", PT_MSG, &pt_track_event, NULL, 0},
    {114, "android_polled_state_config", PT_MSG, &pt_android_polled_state, NULL, 0},
    {115, "interceptor_config", PT_MSG, &pt_interceptor, NULL, 0},
    {116, "android_game_intervention_list_config", PT_MSG,
     &pt_android_game_intervention_list, NULL, 0},
    {117, "statsd_tracing_config", PT_MSG, &pt_statsd_tracing, NULL, 0},
    {118, "android_system_property_config", PT_MSG, &pt_android_system_property, NULL, 0},
    {119, "system_info_config", PT_MSG, &pt_system_info, NULL, 0},
    {120, "network_packet_trace_config", PT_MSG, &pt_network_packet_trace, NULL, 0},
    {121, "surfaceflinger_layers_config", PT_MSG, &pt_surfaceflinger_layers, NULL, 0},
    {123, "surfaceflinger_transactions_config", PT_MSG, &pt_surfaceflinger_transactions, NULL,
     0},
    {124, "android_sdk_sysprop_guard_config", PT_MSG, &pt_android_sdk_sysprop_guard, NULL, 0},
    {125, "etw_config", PT_MSG, &pt_etw, NULL, 0},
    {126, "protolog_config", PT_MSG, &pt_protolog, NULL, 0},
    {127, "v8_config", PT_MSG, &pt_v8, NULL, 0},
    {128, "android_input_event_config", PT_MSG, &pt_android_input_event, NULL, 0},
    {129, "pixel_modem_config", PT_MSG, &pt_pixel_modem, NULL, 0},
    {130, "windowmanager_config", PT_MSG, &pt_windowmanager, NULL, 0},
    {131, "chromium_system_metrics_config", PT_MSG, &pt_chromium_system_metrics, NULL, 0},
    {132, "kernel_wakelocks_config", PT_MSG, &pt_kernel_wakelocks, NULL, 0},
    {133, "gpu_renderstages_config", PT_MSG, &pt_gpu_renderstages, NULL, 0},
    {134, "chromium_histogram_samples_config", PT_MSG, &pt_chromium_histogram_samples, NULL, 0},
    {135, "app_wakelocks_config", PT_MSG, &pt_app_wakelocks, NULL, 0},
    {136, "frozen_ftrace_config", PT_MSG, &pt_frozen_ftrace, NULL, 0},
    {137, "cpu_per_uid_config", PT_MSG, &pt_cpu_per_uid, NULL, 0},
    {138, "user_list_config", PT_MSG, &pt_user_list, NULL, 0},
    {139, "inputmethod_config", PT_MSG, &pt_inputmethod, NULL, 0},
    {140, "android_aflags_config", PT_MSG, &pt_android_aflags, NULL, 0},
    {141, "journald_config", PT_MSG, &pt_journald, NULL, 0},
    {142, "display_video_config", PT_MSG, &pt_display_video, NULL, 0},
    {143, "chromium_stack_sampling_profiler_config", PT_MSG,
     &pt_chromium_stack_sampling_profiler, NULL, 0},
    {144, "chromium_sampling_heap_profiler_config", PT_MSG,
     &pt_chromium_sampling_heap_profiler, NULL, 0},
    {150, "qnx_config", PT_MSG, &pt_qnx, NULL, 0},
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
const proto_text_msg proto_config_schema = PT_FIELDS(pt_config_fields);
