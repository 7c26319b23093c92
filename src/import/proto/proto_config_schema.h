/* proto_config_schema: the schema trace_config_pbtxt is printed by, as
 * tables: each message's fields (number, name, type, nested message or
 * enum names). A TraceConfig field missing here prints under its number.
 * Read-only data, no functions. */
#ifndef WEFT_IMPORT_PROTO_CONFIG_SCHEMA_H
#define WEFT_IMPORT_PROTO_CONFIG_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

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

#define PT_FIELDS(arr) {arr, sizeof arr / sizeof arr[0]}
#define PT_ENUM_OF(arr) PT_ENUM, NULL, arr, sizeof arr / sizeof arr[0]

/* DataSourceConfig's configs in proto_config_schema_sources.c. */
extern const proto_text_msg pt_android_input_event, pt_inode_file, pt_vulkan_memory, pt_interceptor,
    pt_android_game_intervention_list, pt_system_info, pt_android_sdk_sysprop_guard, pt_etw,
    pt_protolog, pt_v8, pt_pixel_modem, pt_windowmanager, pt_chromium_system_metrics,
    pt_kernel_wakelocks, pt_gpu_renderstages, pt_chromium_histogram_samples, pt_app_wakelocks,
    pt_frozen_ftrace, pt_cpu_per_uid, pt_user_list, pt_inputmethod, pt_android_aflags,
    pt_journald, pt_display_video, pt_chromium_stack_sampling_profiler,
    pt_chromium_sampling_heap_profiler, pt_qnx;

/* TraceConfig. */
extern const proto_text_msg proto_config_schema;

#endif
