/* proto_misc parse phase: SystemInfo, CpuInfo, service events, triggers;
 * metadata helpers. See proto_misc.h. */
#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_process_tree.h"
#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_android.h"
#include "import/proto/proto_android_lists.h"
#include "import/proto/proto_android_fw.h"
#include "import/proto/proto_frames.h"
#include "import/proto/proto_native_symbols.h"
#include "import/proto/proto_generic_kernel.h"
#include "import/proto/proto_heap_graph.h"
#include "import/proto/proto_config_text.h"
#include "import/proto/proto_gpu.h"
#include "import/proto/proto_power.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_misc.h"
#include "import/proto/proto_sys_stats.h"
#include "import/proto/proto_translation.h"
#include "import/proto/proto_winscope.h"
#include "model/columns.h"
#include "model/import_log.h"
#include "model/flow.h"
#include "model/sched.h"

#define PROTO_MAX_CPUS 4096
#define PROTO_MAX_META_STR 65536

/* ---- metadata ---- */

int proto_metadata_int(trace_context *ctx, const char *name, int multi,
                       int64_t value, int64_t machine, int64_t trace) {
  return multi ? ctx_metadata_add_int(ctx, name, value, machine, trace)
               : ctx_metadata_set_int(ctx, name, value, machine, trace);
}

int proto_metadata_str_multi(trace_context *ctx, const char *name, const char *value,
                             int64_t machine, int64_t trace) {
  return ctx_metadata_add_str(ctx, name, value, machine, trace);
}

int proto_metadata_str(trace_context *ctx, const char *name, const char *value,
                       size_t len, int64_t machine, int64_t trace) {
  if (len > PROTO_MAX_META_STR) len = PROTO_MAX_META_STR;
  char *copy = base_malloc(len + 1);
  if (!copy) return WEFT_ENOMEM;
  memcpy(copy, value, len);
  copy[len] = '\0';
  int rc = ctx_metadata_set_str(ctx, name, copy, machine, trace);
  base_free(copy);
  return rc;
}

/* ---- SystemInfo ---- */

static const struct {
  const char *version;
  int64_t sdk;
} proto_android_versions[] = {
    {"12", 31}, {"11", 30}, {"10", 29}, {"9", 28}, {"8.1", 27},
    {"8.0", 26}, {"7.1", 25}, {"7.0", 24}, {"6.0", 23}, {"5.1", 22},
    {"5.1.1", 22}, {"5.0", 21}, {"5.0.1", 21}, {"5.0.2", 21},
};

/* fingerprint: brand/product/device:version/build_id/incremental:type/tags */
int64_t proto_fingerprint_sdk_version(const char *fp, size_t len) {
  const char *colon = memchr(fp, ':', len);
  if (!colon) return -1;
  const char *v = colon + 1;
  const char *end = fp + len;
  const char *slash = memchr(v, '/', (size_t)(end - v));
  if (!slash) return -1;
  size_t vlen = (size_t)(slash - v);
  if (vlen > 0 && (v[0] == 'S' || v[0] == 'T')) return 31;
  for (size_t i = 0; i < sizeof proto_android_versions / sizeof *proto_android_versions; i++) {
    const char *s = proto_android_versions[i].version;
    if (strlen(s) == vlen && memcmp(s, v, vlen) == 0) return proto_android_versions[i].sdk;
  }
  return -1;
}

/* The incremental build id: the third '/' component after the ':'. */
static int proto_fingerprint_incremental(proto_span fp, proto_span *out) {
  const char *s = (const char *)fp.data, *end = s + fp.len;
  const char *p = memchr(s, ':', fp.len);
  if (!p) return 0;
  for (int i = 0; i < 2; i++) {
    p = memchr(p, '/', (size_t)(end - p));
    if (!p) return 0;
    p++;
  }
  const char *stop = memchr(p, ':', (size_t)(end - p));
  if (!stop) return 0;
  out->data = (const uint8_t *)p;
  out->len = (size_t)(stop - p);
  return 1;
}

static int proto_machine_str(trace_context *ctx, uint32_t machine, int column,
                             proto_span s) {
  return machine_set_info_str(&ctx->machines, machine, (size_t)column,
                              (const char *)s.data, s.len);
}

static int proto_utsname(trace_context *ctx, uint32_t machine, proto_span msg) {
  static const struct {
    uint32_t field;
    int column;
    const char *key;
  } map[] = {
      {PROTO_UTSNAME_SYSNAME, MACHINE_sysname, "system_name"},
      {PROTO_UTSNAME_VERSION, MACHINE_version, "system_version"},
      {PROTO_UTSNAME_RELEASE, MACHINE_release, "system_release"},
      {PROTO_UTSNAME_MACHINE, MACHINE_arch, "system_machine"},
  };
  proto_field fl;
  /* in this order, whatever the wire order (as Perfetto writes them); a
   * field the utsname lacks is a NULL row */
  for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
    if (proto_find_last(msg.data, msg.len, map[i].field, &fl) != 1 ||
        fl.wire_type != PROTO_WIRE_LEN) {
      int rc = ctx_metadata_set_str(ctx, map[i].key, NULL, machine, -1);
      if (rc) return rc;
      continue;
    }
    int rc = proto_machine_str(ctx, machine, map[i].column, fl.span);
    if (!rc) rc = proto_metadata_str(ctx, map[i].key, (const char *)fl.span.data,
                                     fl.span.len, machine, -1);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* SystemInfo string fields that only go to machine-scoped metadata. */
static const char *proto_system_info_key(uint32_t field) {
  switch (field) {
    case PROTO_SYSTEM_INFO_ANDROID_SOC_MODEL: return "android_soc_model";
    case PROTO_SYSTEM_INFO_ANDROID_GUEST_SOC_MODEL: return "android_guest_soc_model";
    case PROTO_SYSTEM_INFO_ANDROID_HARDWARE_REVISION: return "android_hardware_revision";
    case PROTO_SYSTEM_INFO_ANDROID_STORAGE_MODEL: return "android_storage_model";
    case PROTO_SYSTEM_INFO_ANDROID_RAM_MODEL: return "android_ram_model";
    case PROTO_SYSTEM_INFO_ANDROID_SERIAL_CONSOLE: return "android_serial_console";
    default: return NULL;
  }
}

static int proto_fingerprint(trace_context *ctx, uint32_t machine, proto_span fp,
                             int has_sdk) {
  int rc = proto_machine_str(ctx, machine, MACHINE_android_build_fingerprint, fp);
  if (!rc) rc = proto_metadata_str(ctx, "android_build_fingerprint",
                                   (const char *)fp.data, fp.len, machine, -1);
  proto_span inc;
  if (!rc && proto_fingerprint_incremental(fp, &inc))
    rc = proto_metadata_str(ctx, "android_incremental_build", (const char *)inc.data,
                            inc.len, machine, -1);
  int64_t sdk = has_sdk ? -1 : proto_fingerprint_sdk_version((const char *)fp.data, fp.len);
  if (!rc && sdk >= 0) {
    machine_set_info_int(&ctx->machines, machine, MACHINE_android_sdk_version, sdk);
    rc = proto_metadata_int(ctx, "android_sdk_version", 0, sdk, machine, -1);
  }
  return rc;
}

static int proto_ram(trace_context *ctx, uint32_t machine, uint64_t bytes) {
  int64_t b = bytes > INT64_MAX ? INT64_MAX : (int64_t)bytes;
  int64_t gb = (int64_t)((bytes + 500000000u) / 1000000000u);
  machine_set_info_int(&ctx->machines, machine, MACHINE_system_ram_bytes, b);
  machine_set_info_int(&ctx->machines, machine, MACHINE_system_ram_gb, gb);
  int rc = proto_metadata_int(ctx, "system_ram_bytes", 0, b, machine, -1);
  return rc ? rc : proto_metadata_int(ctx, "system_ram_gb", 0, gb, machine, -1);
}

static int proto_system_info_field(trace_context *ctx, uint32_t machine,
                                   const proto_field *fl, int has_sdk) {
  int len = fl->wire_type == PROTO_WIRE_LEN;
  int var = fl->wire_type == PROTO_WIRE_VARINT;
  const char *key = proto_system_info_key(fl->number);
  if (key && len)
    return proto_metadata_str(ctx, key, (const char *)fl->span.data, fl->span.len, machine, -1);
  switch (fl->number) {
    case PROTO_SYSTEM_INFO_UTSNAME: return len ? proto_utsname(ctx, machine, fl->span) : 0;
    case PROTO_SYSTEM_INFO_ANDROID_BUILD_FINGERPRINT:
      return len ? proto_fingerprint(ctx, machine, fl->span, has_sdk) : 0;
    case PROTO_SYSTEM_INFO_ANDROID_DEVICE_MANUFACTURER:
      if (!len) return WEFT_OK;
      if (proto_machine_str(ctx, machine, MACHINE_android_device_manufacturer, fl->span))
        return WEFT_ENOMEM;
      return proto_metadata_str(ctx, "android_device_manufacturer",
                                (const char *)fl->span.data, fl->span.len, machine, -1);
    case PROTO_SYSTEM_INFO_ANDROID_SDK_VERSION:
      if (!var) return WEFT_OK;
      machine_set_info_int(&ctx->machines, machine, MACHINE_android_sdk_version,
                           (int64_t)fl->value);
      return proto_metadata_int(ctx, "android_sdk_version", 0, (int64_t)fl->value, machine, -1);
    case PROTO_SYSTEM_INFO_TRACING_SERVICE_VERSION:
      if (!len) return WEFT_OK;
      return proto_metadata_str(ctx, "tracing_service_version", (const char *)fl->span.data,
                                fl->span.len, machine, -1);
    case PROTO_SYSTEM_INFO_TIMEZONE_OFF_MINS:
      if (!var) return WEFT_OK;
      return proto_metadata_int(ctx, "timezone_off_mins", 0, proto_field_int32(fl), machine, -1);
    case PROTO_SYSTEM_INFO_NUM_CPUS:
      if (var)
        machine_set_info_int(&ctx->machines, machine, MACHINE_num_cpus,
                             (int64_t)(uint32_t)fl->value);
      return WEFT_OK;
    case PROTO_SYSTEM_INFO_SYSTEM_RAM_BYTES:
      return var ? proto_ram(ctx, machine, fl->value) : WEFT_OK;
    default: return WEFT_OK;
  }
}

/* The fields in the order Perfetto writes their rows, whatever their wire
 * order (the last of a repeated field wins). */
static const uint32_t proto_system_info_order[] = {
    PROTO_SYSTEM_INFO_UTSNAME,
    PROTO_SYSTEM_INFO_TIMEZONE_OFF_MINS,
    PROTO_SYSTEM_INFO_ANDROID_BUILD_FINGERPRINT,
    PROTO_SYSTEM_INFO_ANDROID_DEVICE_MANUFACTURER,
    PROTO_SYSTEM_INFO_ANDROID_SDK_VERSION,
    PROTO_SYSTEM_INFO_TRACING_SERVICE_VERSION,
    PROTO_SYSTEM_INFO_ANDROID_SOC_MODEL,
    PROTO_SYSTEM_INFO_ANDROID_GUEST_SOC_MODEL,
    PROTO_SYSTEM_INFO_ANDROID_HARDWARE_REVISION,
    PROTO_SYSTEM_INFO_ANDROID_STORAGE_MODEL,
    PROTO_SYSTEM_INFO_ANDROID_RAM_MODEL,
    PROTO_SYSTEM_INFO_ANDROID_SERIAL_CONSOLE,
    PROTO_SYSTEM_INFO_NUM_CPUS,
    PROTO_SYSTEM_INFO_SYSTEM_RAM_BYTES,
};

static int proto_system_info(trace_context *ctx, uint32_t machine, proto_span msg) {
  proto_field fl;
  int has_sdk = proto_find_last(msg.data, msg.len, PROTO_SYSTEM_INFO_ANDROID_SDK_VERSION,
                                &fl) == 1;
  size_t n = sizeof proto_system_info_order / sizeof *proto_system_info_order;
  for (size_t i = 0; i < n; i++) {
    if (proto_find_last(msg.data, msg.len, proto_system_info_order[i], &fl) != 1) continue;
    int rc = proto_system_info_field(ctx, machine, &fl, has_sdk);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* ---- CpuInfo ---- */

typedef struct proto_cpu {
  proto_span processor, msg;
  uint64_t capacity, max_freq, features;
  int has_capacity, has_freq, has_features, has_arm;
  uint64_t arm[5]; /* implementer, architecture, variant, part, revision */
  uint32_t cluster;
} proto_cpu;

static void proto_cpu_read(proto_span msg, proto_cpu *c) {
  memset(c, 0, sizeof *c);
  c->msg = msg;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_CPU_INFO_CPU_PROCESSOR && fl.wire_type == PROTO_WIRE_LEN) {
      c->processor = fl.span;
    } else if (fl.number == PROTO_CPU_INFO_CPU_FREQUENCIES) {
      proto_packed_iter it = {0};
      uint64_t v = fl.value;
      int packed = fl.wire_type == PROTO_WIRE_LEN;
      if (packed) proto_packed_init(&it, fl.span);
      while (packed ? proto_packed_next_varint(&it, &v) == 1 : 1) {
        if (!c->has_freq || (uint32_t)v > c->max_freq) c->max_freq = (uint32_t)v;
        c->has_freq = 1;
        if (!packed) break;
      }
    } else if (fl.number == PROTO_CPU_INFO_CPU_CAPACITY && fl.wire_type == PROTO_WIRE_VARINT) {
      c->capacity = (uint32_t)fl.value;
      c->has_capacity = 1;
    } else if (fl.number == PROTO_CPU_INFO_CPU_FEATURES && fl.wire_type == PROTO_WIRE_VARINT) {
      c->features = fl.value;
      c->has_features = 1;
    } else if (fl.number == PROTO_CPU_INFO_CPU_ARM_IDENTIFIER && fl.wire_type == PROTO_WIRE_LEN) {
      c->has_arm = 1;
      proto_reader ar;
      proto_field af;
      proto_reader_init_span(&ar, fl.span);
      while (proto_reader_next(&ar, &af) == 1)
        if (af.number >= 1 && af.number <= 5 && af.wire_type == PROTO_WIRE_VARINT)
          c->arm[af.number - 1] = (uint32_t)af.value;
    }
  }
}

/* Cluster ids: CPUs ranked by capacity (if every CPU has one), else by
 * maximum frequency (if every CPU has some); equal keys share a cluster. */
static void proto_cpu_clusters(proto_cpu *cpus, size_t n) {
  int all_cap = 1, all_freq = 1;
  for (size_t i = 0; i < n; i++) {
    all_cap &= cpus[i].has_capacity;
    all_freq &= cpus[i].has_freq;
  }
  if (!all_cap && !all_freq) return;
  for (size_t i = 0; i < n; i++) {
    uint64_t key = all_cap ? cpus[i].capacity : cpus[i].max_freq;
    /* cluster = number of distinct smaller keys */
    uint32_t rank = 0;
    for (size_t j = 0; j < n; j++) {
      uint64_t other = all_cap ? cpus[j].capacity : cpus[j].max_freq;
      int dup = 0;
      for (size_t k = 0; k < j && !dup; k++)
        dup = (all_cap ? cpus[k].capacity : cpus[k].max_freq) == other;
      if (!dup && other < key) rank++;
    }
    cpus[i].cluster = rank;
  }
}

static const char *const proto_cpu_feature_names[] = {"mte", "mte3"};

static int proto_cpu_args(trace_context *ctx, const proto_cpu *c, int64_t *arg_set,
                          int *unknown) {
  static const char *const arm_keys[5] = {"arm_cpu_implementer", "arm_cpu_architecture",
                                          "arm_cpu_variant", "arm_cpu_part",
                                          "arm_cpu_revision"};
  int rc = WEFT_OK;
  size_t known = sizeof proto_cpu_feature_names / sizeof *proto_cpu_feature_names;
  if (c->has_features) {
    for (size_t b = 0; b < known && !rc; b++) {
      if (!(c->features >> b & 1)) continue;
      char key[64];
      int n = snprintf(key, sizeof key, "cpu_features.%s", proto_cpu_feature_names[b]);
      rc = model_arg_int(ctx, key, (size_t)n, MODEL_ARG_BOOL, 1);
    }
    if (!rc) rc = model_arg_int(ctx, "cpu_features.raw_bitmap", 23, MODEL_ARG_UINT,
                                (int64_t)c->features);
    *unknown = (c->features >> known) != 0;
  }
  for (int i = 0; i < 5 && c->has_arm && !rc; i++)
    rc = model_arg_int(ctx, arm_keys[i], strlen(arm_keys[i]), MODEL_ARG_UINT,
                       (int64_t)c->arm[i]);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, arg_set);
}

/* One cpu_available_frequencies row per listed frequency. */
static int proto_cpu_freqs(trace_context *ctx, uint32_t ucpu, proto_span msg) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_CPU_INFO_CPU_FREQUENCIES) continue;
    proto_packed_iter it = {0};
    uint64_t v = fl.value;
    int packed = fl.wire_type == PROTO_WIRE_LEN;
    if (packed) proto_packed_init(&it, fl.span);
    while (packed ? proto_packed_next_varint(&it, &v) == 1 : 1) {
      int rc = model_cpu_frequency(ctx, ucpu, (uint32_t)v);
      if (rc) return rc;
      if (!packed) break;
    }
  }
  return WEFT_OK;
}

static int proto_cpu_info(import_file *f, uint32_t machine, proto_span msg) {
  trace_context *ctx = f->ctx;
  VEC(proto_cpu) cpus = {0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  int rc = WEFT_OK;
  while (!rc && proto_reader_next(&r, &fl) == 1 && cpus.len < PROTO_MAX_CPUS) {
    if (fl.number != PROTO_CPU_INFO_CPUS || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_cpu c;
    proto_cpu_read(fl.span, &c);
    rc = VEC_PUSH(cpus, c);
  }
  if (!rc) proto_cpu_clusters(cpus.data, cpus.len);
  for (size_t i = 0; i < cpus.len && !rc; i++) {
    const proto_cpu *c = &cpus.data[i];
    uint32_t ucpu, row;
    int64_t args = -1;
    int unknown = 0;
    string_id proc;
    rc = sched_cpu_row(ctx, machine, (uint32_t)i, &ucpu, &row);
    if (rc == WEFT_EINVAL) { rc = WEFT_OK; break; } /* beyond the cpu table's range */
    if (!rc) rc = ctx_intern(ctx, (const char *)c->processor.data, c->processor.len, &proc);
    if (!rc) rc = proto_cpu_args(ctx, c, &args, &unknown);
    if (rc) break;
    model_cpu_set_info(ctx, row, c->processor.data ? proc : STRING_NULL, c->cluster,
                       c->has_capacity ? (int64_t)c->capacity : -1, args);
    if (unknown) rc = model_import_log(ctx, f->trace_id, -1, stat_cpu_info_unknown_cpu_features, -1);
    if (unknown && !rc) rc = import_stat(f, stat_cpu_info_unknown_cpu_features, 1);
    if (!rc) rc = proto_cpu_freqs(ctx, row, c->msg);
  }
  VEC_FREE(cpus);
  return rc;
}

/* ---- service events and triggers ---- */

/* slow_starting_data_sources: one "producer data_source" row each. */
static int proto_slow_data_sources(import_file *f, uint32_t machine, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_SERVICE_EVENT_DATA_SOURCES_DATA_SOURCE ||
        fl.wire_type != PROTO_WIRE_LEN)
      continue;
    proto_field producer, name;
    proto_span p = {NULL, 0}, n = {NULL, 0};
    if (proto_find_last(fl.span.data, fl.span.len, 1, &producer) == 1 &&
        producer.wire_type == PROTO_WIRE_LEN)
      p = producer.span;
    if (proto_find_last(fl.span.data, fl.span.len, 2, &name) == 1 &&
        name.wire_type == PROTO_WIRE_LEN)
      n = name.span;
    char *text = base_malloc(p.len + n.len + 2);
    if (!text) return WEFT_ENOMEM;
    if (p.len) memcpy(text, p.data, p.len);
    text[p.len] = ' ';
    if (n.len) memcpy(text + p.len + 1, n.data, n.len);
    text[p.len + 1 + n.len] = '\0';
    rc = proto_metadata_str_multi(f->ctx, "slow_start_data_source", text, machine, f->trace_id);
    base_free(text);
  }
  return rc;
}

static int proto_service_event(import_file *f, uint32_t machine, int64_t ts,
                               proto_span msg) {
  static const struct {
    uint32_t field;
    const char *key;
    int multi;
  } map[] = {
      {PROTO_SERVICE_EVENT_TRACING_STARTED, "tracing_started_ns", 0},
      {PROTO_SERVICE_EVENT_ALL_DATA_SOURCES_STARTED, "all_data_source_started_ns", 0},
      {PROTO_SERVICE_EVENT_ALL_DATA_SOURCES_FLUSHED, "all_data_source_flushed_ns", 1},
      {PROTO_SERVICE_EVENT_TRACING_DISABLED, "tracing_disabled_ns", 0},
  };
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_SERVICE_EVENT_SLOW_STARTING_DATA_SOURCES &&
        fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_slow_data_sources(f, machine, fl.span);
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_SERVICE_EVENT_CLONE_STARTED)
      rc = stats_set(&f->ctx->stats, stat_traced_clone_started_timestamp_ns, -1, f->machine,
                     f->trace_id, ts);
    if (fl.number == PROTO_SERVICE_EVENT_BUFFER_CLONED)
      rc = stats_set(&f->ctx->stats, stat_traced_buf_clone_done_timestamp_ns,
                     (int64_t)(uint32_t)fl.value, f->machine, f->trace_id, ts);
    if (!fl.value) continue;
    for (size_t i = 0; !rc && i < sizeof map / sizeof *map; i++)
      if (map[i].field == fl.number)
        rc = proto_metadata_int(f->ctx, map[i].key, map[i].multi, ts, machine, f->trace_id);
  }
  return rc;
}

static int proto_trigger(import_file *f, uint32_t machine, int64_t ts, proto_span msg,
                         int is_clone) {
  trace_context *ctx = f->ctx;
  proto_span name = {NULL, 0}, producer = {NULL, 0};
  int64_t uid = 0;
  int has_uid = 0, has_producer = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_TRIGGER_TRIGGER_NAME && fl.wire_type == PROTO_WIRE_LEN) name = fl.span;
    if (fl.number == PROTO_TRIGGER_PRODUCER_NAME && fl.wire_type == PROTO_WIRE_LEN) {
      producer = fl.span;
      has_producer = 1;
    }
    if (fl.number == PROTO_TRIGGER_TRUSTED_PRODUCER_UID && fl.wire_type == PROTO_WIRE_VARINT) {
      uid = proto_field_int32(&fl);
      has_uid = 1;
    }
  }
  int rc = WEFT_OK;
  /* the first trigger in time names the trace, unless a clone snapshot
   * trigger does */
  if (name.data && (is_clone || !ctx_metadata_has(ctx, "trace_trigger")))
    rc = proto_metadata_str(ctx, "trace_trigger", (const char *)name.data, name.len, -1,
                            f->trace_id);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "Trace Triggers";
  spec.type = "triggers";
  spec.machine = machine;
  uint32_t track, slice;
  string_id name_id = STRING_NULL;
  int64_t args = -1;
  if (!rc) rc = model_track(ctx, &spec, &track);
  if (!rc) rc = ctx_intern(ctx, (const char *)name.data, name.len, &name_id);
  if (!rc && has_producer)
    rc = model_arg_string(ctx, "producer_name", 13, (const char *)producer.data,
                          producer.len, MODEL_ARG_STRING);
  if (!rc && has_uid) rc = model_arg_int(ctx, "trusted_producer_uid", 20, MODEL_ARG_INT, uid);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  rc = model_args_commit(ctx, &args);
  if (!rc) rc = model_slice_complete(ctx, track, ts, 0, STRING_NULL, name_id, args, &slice);
  if (!rc && is_clone)
    rc = stats_set(&ctx->stats, stat_traced_clone_trigger_timestamp_ns, -1, f->machine,
                   f->trace_id, ts);
  return rc;
}

#define PROTO_CHROME_TRIGGER_NAME 1
#define PROTO_CHROME_TRIGGER_NAME_HASH 2
#define PROTO_CHROME_TRIGGER_FLOW_ID 3

/* A ChromeTrigger: an instant on the "Trace Triggers" track named by its
 * trigger_name (else "chrome_trigger"), with args chrome_trigger.name_hash
 * and chrome_trigger.name (its trigger_name, else the chrome_study
 * translation of the hash); it ends an active flow flow_id; each adds a
 * cr-triggered_rule_name_hash metadata row. */
static int proto_chrome_trigger(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  trace_context *ctx = f->ctx;
  proto_span name = {NULL, 0};
  uint64_t hash = 0, flow = 0;
  int has_name = 0, has_flow = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_CHROME_TRIGGER_NAME && fl.wire_type == PROTO_WIRE_LEN)
      name = fl.span, has_name = 1;
    if (fl.number == PROTO_CHROME_TRIGGER_NAME_HASH && fl.wire_type == PROTO_WIRE_FIXED32)
      hash = (uint32_t)fl.value;
    if (fl.number == PROTO_CHROME_TRIGGER_FLOW_ID && fl.wire_type == PROTO_WIRE_FIXED64)
      flow = fl.value, has_flow = 1;
  }
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "Trace Triggers";
  spec.type = "triggers";
  spec.machine = machine;
  uint32_t track, slice;
  string_id name_id = STRING_NULL, arg_name = STRING_NULL, key;
  int64_t args = -1;
  int rc = model_track(ctx, &spec, &track);
  if (!rc) rc = has_name ? ctx_intern(ctx, (const char *)name.data, name.len, &name_id)
                         : ctx_intern(ctx, "chrome_trigger", 14, &name_id);
  if (!rc) arg_name = has_name ? name_id
                               : proto_translate(((proto_import_state *)f->state)->translation,
                                                 PROTO_TRANSLATE_STUDY, hash);
  if (!rc) rc = model_arg_int(ctx, "chrome_trigger.name_hash", 24, MODEL_ARG_UINT, (int64_t)hash);
  if (!rc && arg_name != STRING_NULL) rc = ctx_intern(ctx, "chrome_trigger.name", 19, &key);
  if (!rc && arg_name != STRING_NULL) rc = model_arg_string_id(ctx, key, arg_name, MODEL_ARG_STRING);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  rc = model_args_commit(ctx, &args);
  if (!rc) rc = model_slice_complete(ctx, track, ts, 0, STRING_NULL, name_id, args, &slice);
  flow_scope scope = {machine, f->trace_id};
  if (!rc && has_flow && flow_is_active(ctx, scope, flow_id_v2(flow)))
    rc = flow_end_at(ctx, scope, slice, flow_id_v2(flow), 1);
  if (!rc)
    rc = ctx_metadata_add_int(ctx, "cr-triggered_rule_name_hash", (int64_t)hash, -1, f->trace_id);
  return rc;
}

/* The UI state, base64-encoded. */
static int proto_ui_state(import_file *f, proto_span msg) {
  char *text = base_malloc((msg.len + 2) / 3 * 4 + 1);
  if (!text) return WEFT_ENOMEM;
  base_base64(msg.data, msg.len, text);
  int rc = ctx_metadata_set_str(f->ctx, "ui_state", text, -1, f->trace_id);
  base_free(text);
  return rc;
}

uint64_t proto_metadata_at(import_file *f, const uint8_t *at) {
  uint64_t offset = at >= f->data && at < f->data + f->len ? (uint64_t)(at - f->data) : f->len;
  return ctx_metadata_at_file(f->ctx, f->trace_id, offset);
}

/* ---- dispatch ---- */

int proto_misc_wants_field(uint32_t number) {
  switch (number) {
    case PROTO_TRACE_PACKET_CPU_INFO:
    case PROTO_TRACE_PACKET_SERVICE_EVENT:
    case PROTO_TRACE_PACKET_TRIGGER:
    case PROTO_TRACE_PACKET_CHROME_TRIGGER:
    case PROTO_TRACE_PACKET_CLONE_SNAPSHOT_TRIGGER:
    case PROTO_TRACE_PACKET_CONCURRENT_SESSION_EVENT:
    case PROTO_TRACE_PACKET_SYS_STATS:
    case PROTO_TRACE_PACKET_INITIAL_DISPLAY_STATE:
    case PROTO_TRACE_PACKET_PROCESS_STATS:
    case PROTO_TRACE_PACKET_CHROME_EVENTS:
    case PROTO_TRACE_PACKET_UI_STATE:
    case PROTO_TRACE_PACKET_CHROME_BENCHMARK_METADATA:
    case PROTO_TRACE_PACKET_TRACE_CONFIG:
      return 1;
    default:
      return proto_generic_kernel_wants_field(number) || proto_power_wants_field(number) ||
             proto_heap_graph_wants_field(number) || proto_gpu_wants_field(number) ||
             proto_android_wants_field(number) || proto_winscope_wants_field(number) ||
             proto_frames_wants_field(number) ||
             number == PROTO_TRACE_PACKET_MODULE_SYMBOLS ||
             number == PROTO_TRACE_PACKET_ANDROID_AFLAGS ||
             number == PROTO_TRACE_PACKET_USER_LIST ||
             number == PROTO_TRACE_PACKET_GAME_INTERVENTION_LIST;
  }
}

int proto_misc_parse(import_file *f, uint32_t machine, int64_t ts,
                     const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  uint64_t saved;
  int rc;
  switch (fl->number) {
    case PROTO_TRACE_PACKET_SYSTEM_INFO:
      saved = proto_metadata_at(f, fl->span.data);
      rc = proto_system_info(f->ctx, machine, fl->span);
      ctx_metadata_at(f->ctx, saved);
      return rc;
    case PROTO_TRACE_PACKET_CPU_INFO: return proto_cpu_info(f, machine, fl->span);
    case PROTO_TRACE_PACKET_SERVICE_EVENT:
      saved = proto_metadata_at(f, fl->span.data);
      rc = proto_service_event(f, machine, ts, fl->span);
      ctx_metadata_at(f->ctx, saved);
      return rc;
    case PROTO_TRACE_PACKET_TRIGGER: return proto_trigger(f, machine, ts, fl->span, 0);
    case PROTO_TRACE_PACKET_CHROME_TRIGGER: return proto_chrome_trigger(f, machine, ts, fl->span);
    case PROTO_TRACE_PACKET_CLONE_SNAPSHOT_TRIGGER:
      return proto_trigger(f, machine, ts, fl->span, 1);
    case PROTO_TRACE_PACKET_CONCURRENT_SESSION_EVENT:
      return proto_concurrent_session(f, &((proto_import_state *)f->state)->misc, machine, ts,
                                      fl->span);
    case PROTO_TRACE_PACKET_SYS_STATS:
      return proto_sys_stats_parse(f, &((proto_import_state *)f->state)->sys_stats, machine,
                                   ts, fl->span);
    case PROTO_TRACE_PACKET_INITIAL_DISPLAY_STATE:
      return proto_initial_display_state(f, machine, ts, fl->span);
    case PROTO_TRACE_PACKET_PROCESS_STATS:
      return proto_process_stats_parse(f, machine, ts, fl->span);
    case PROTO_TRACE_PACKET_CHROME_EVENTS:
      return proto_chrome_events(f, &((proto_import_state *)f->state)->misc, ts, fl->span);
    case PROTO_TRACE_PACKET_UI_STATE: return proto_ui_state(f, fl->span);
    /* the config's rows are parse rows, at the config packet's time */
    case PROTO_TRACE_PACKET_TRACE_CONFIG: return proto_config_text_metadata(f, fl->span);
    case PROTO_TRACE_PACKET_CHROME_BENCHMARK_METADATA:
      return proto_chrome_benchmark_metadata(f, fl->span);
    case PROTO_TRACE_PACKET_USER_LIST: return proto_android_user_list(f, fl->span);
    case PROTO_TRACE_PACKET_GAME_INTERVENTION_LIST:
      return proto_android_game_intervention_list(f, fl->span);
    default: return proto_generic_kernel_parse(f, machine, ts, fl);
  }
}
