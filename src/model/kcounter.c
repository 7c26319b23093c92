/* Kernel counters beyond the scheduler's. See kcounter.h. */
#include "model/kcounter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/columns.h"
#include "model/context.h"
#include "model/model.h"
#include "model/sched_internal.h"

int kcounter_freq_limits(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, double min_freq, double max_freq) {
  char name[64];
  int rc = WEFT_OK;
  if (!isnan(max_freq)) {
    snprintf(name, sizeof name, "Cpu %u Max Freq Limit", cpu);
    rc = sched_cpu_counter(ctx, s, ts, cpu, name, "cpu_max_frequency_limit", max_freq);
  }
  if (rc || isnan(min_freq)) return rc;
  snprintf(name, sizeof name, "Cpu %u Min Freq Limit", cpu);
  return sched_cpu_counter(ctx, s, ts, cpu, name, "cpu_min_frequency_limit", min_freq);
}

int kcounter_process_oom_score_adj(trace_context *ctx, const kernel_scope *s, int64_t ts,
                                   uint32_t upid, double value) {
  uint32_t track;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "oom_score_adj";
  spec.type = "oom_score_adj";
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.upid = upid;
  int rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

/* A thread's value as a counter row now, with the thread as its "utid"
 * arg, and its track when loading ends (kcounter_process_memory_resolve),
 * as Perfetto's process counters for a thread. */
static int kcounter_for_thread(trace_context *ctx, const kernel_scope *s, int64_t ts,
                               uint32_t utid, double value, kernel_memory_value v) {
  kernel_state *k;
  int64_t args = -1;
  int rc = kernel_get(ctx, s->machine, &k);
  if (!rc) rc = model_arg_int(ctx, "utid", 4, MODEL_ARG_UINT, utid);
  if (!rc) rc = model_args_commit(ctx, &args);
  if (!rc) rc = model_counter_row(ctx, 0, ts, value, args, &v.row);
  v.utid = utid;
  v.machine = s->machine;
  if (!rc && VEC_PUSH(*kernel_memory_pending(k), v) < 0) rc = WEFT_ENOMEM;
  return rc;
}

int kcounter_oom_score_adj(trace_context *ctx, const kernel_scope *s, int64_t ts,
                           int64_t pid, double value) {
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, pid, NULL, 0, &utid);
  kernel_memory_value v = {0, 0, 0, KERNEL_MEMORY_OOM_SCORE_ADJ, NULL, 0, 0};
  return rc ? rc : kcounter_for_thread(ctx, s, ts, utid, value, v);
}

static int kcounter_oom_score_adj_track(trace_context *ctx, uint32_t machine, int64_t upid,
                                        uint32_t utid, uint32_t *track) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "oom_score_adj";
  spec.is_counter = 1;
  spec.machine = machine;
  spec.type = upid >= 0 ? "oom_score_adj" : "oom_score_adj_thread_fallback";
  if (upid >= 0) spec.upid = upid;
  else spec.utid = utid;
  return model_track(ctx, &spec, track);
}

/* The descriptions Perfetto gives process_memory tracks, by key (the
 * track's source arg "description"); they name Perfetto's documentation. */
#define KCOUNTER_MEMORY_DOC "https://perfetto.dev/docs/data-sources/memory-counters"
#define KCOUNTER_FTRACE_DOC KCOUNTER_MEMORY_DOC "#per-process-memory-events-ftrace"
#define KCOUNTER_POLLED_DOC KCOUNTER_MEMORY_DOC "#per-process-polled-counters"

static const struct {
  const char *key, *description;
} kcounter_memory_descriptions[] = {
    {"virt",
     "Virtual memory size (VmSize): Total virtual address space reserved by "
     "the process. Useful for understanding address space layout and "
     "detecting excessive memory reservations. WARNING: Polled periodically,"
     " so may miss short-lived changes. See "
     KCOUNTER_POLLED_DOC
     " for information."},
    {"rss",
     "Resident set size (VmRSS): Total physical memory currently used by the"
     " process (rss.anon + rss.file + rss.shmem). Key metric for "
     "understanding actual memory pressure and OOM risk. WARNING: Polled "
     "periodically, so use rss.anon + rss.file + rss.shmem from ftrace for "
     "complementary high-resolution tracking. See "
     KCOUNTER_POLLED_DOC
     " for information."},
    {"rss.anon",
     "Anonymous resident memory (RssAnon): Physical memory for heap and "
     "stack allocations not backed by files. High values indicate memory "
     "allocations from malloc/new. Most important for app memory usage and "
     "detecting memory leaks. See "
     KCOUNTER_FTRACE_DOC
     " for information."},
    {"rss.file",
     "File-backed resident memory (RssFile): Physical memory used for "
     "memory-mapped files (e.g., code, libraries, mmap'd files). Useful for "
     "understanding shared library overhead. Can be reclaimed under memory "
     "pressure. See "
     KCOUNTER_FTRACE_DOC
     " for information."},
    {"rss.shmem",
     "Shared memory resident pages (RssShmem): Physical memory in shared "
     "memory regions (shmem/tmpfs). Used for IPC and shared data. Important "
     "for identifying inter-process memory usage. See "
     KCOUNTER_FTRACE_DOC
     " for information."},
    {"swap",
     "Swapped memory (VmSwap): Memory moved to swap storage. Does not "
     "necessarily indicate severe pressure - kswapd may swap out inactive "
     "memory proactively. However, if actively used and swap/anon ratio is "
     "high, this suggests inefficient memory usage or leaks. Accessing "
     "swapped memory causes major page faults and performance degradation. "
     "Available from both ftrace and polling for complementary views. See "
     KCOUNTER_FTRACE_DOC
     " or "
     KCOUNTER_POLLED_DOC
     " for information."},
    {"locked",
     "Locked memory pages (VmLocked): Memory pinned in RAM that cannot be "
     "swapped out or reclaimed (via mlock). High values prevent memory "
     "reclamation during pressure. Typically set via profiler-guided "
     "optimization to minimize faults on critical paths. WARNING: Polled "
     "periodically, so may miss short-lived changes. See "
     KCOUNTER_POLLED_DOC
     " for information."},
    {"rss.watermark",
     "Peak RSS (VmHWM): Historical maximum RSS reached by the process. "
     "Useful for capacity planning and detecting memory usage spikes that "
     "may have triggered OOM or performance issues. WARNING: Polled "
     "periodically, so the time of the spike may not be accurate. Prefer "
     "relying on rss.anon + rss.file + rss.shmem which have pushed ftrace "
     "events so are more time accurate. See "
     KCOUNTER_POLLED_DOC
     " for information."},
    {"dmabuf_rss",
     "DMA buffer RSS: Physical memory used for DMA buffers (successor to "
     "Android ION). Used for surfaces, hardware bitmaps, media/camera "
     "buffers, and other GPU/hardware accelerator memory. Critical for "
     "graphics/camera apps. High values indicate GPU memory pressure or "
     "resource leaks in graphics/media pipelines. See dmabuf ftrace events "
     "or /proc/[pid]/fdinfo polling for information."},
    {"unreclaimable",
     "Unreclaimable memory: KGSL driver specific event, rarely useful."},
    {"unknown",
     "Unknown memory type: Memory category not recognized by the tracer. May"
     " indicate new kernel memory types or parsing errors. Should be "
     "investigated if non-zero."},
};

const char *kcounter_memory_description(const char *key) {
  size_t n = sizeof kcounter_memory_descriptions / sizeof *kcounter_memory_descriptions;
  for (size_t i = 0; i < n; i++)
    if (!strcmp(kcounter_memory_descriptions[i].key, key))
      return kcounter_memory_descriptions[i].description;
  return NULL;
}

int kcounter_process_memory_track(trace_context *ctx, uint32_t machine, int64_t upid,
                                  int64_t utid, const char *name, uint32_t *track) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.is_counter = 1;
  spec.machine = machine;
  spec.dim_key = "process_memory_key";
  spec.dim_str = strncmp(name, "mem.", 4) == 0 ? name + 4 : name;
  if (upid >= 0) {
    spec.type = "process_memory";
    spec.upid = upid;
    spec.source_key = "description";
    spec.source = kcounter_memory_description(spec.dim_str);
  } else {
    spec.type = "process_memory_thread_fallback";
    spec.utid = utid;
  }
  return model_track(ctx, &spec, track);
}

int kcounter_process_memory(trace_context *ctx, const kernel_scope *s, int64_t ts,
                            uint32_t utid, const char *name, double value) {
  kernel_memory_value v = {0, 0, 0, KERNEL_MEMORY_RSS, name, 0, 0};
  return kcounter_for_thread(ctx, s, ts, utid, value, v);
}

static int kcounter_mm_event_track(trace_context *ctx, uint32_t machine, int64_t upid,
                                   uint32_t utid, uint32_t type, uint32_t metric,
                                   uint32_t *track);

/* The track of a pending value, now that its thread's process is known. */
static int kcounter_pending_track(trace_context *ctx, const kernel_memory_value *v,
                                  uint32_t *track) {
  int64_t upid = model_thread_process(ctx, v->utid);
  switch (v->kind) {
    case KERNEL_MEMORY_OOM_SCORE_ADJ:
      return kcounter_oom_score_adj_track(ctx, v->machine, upid, v->utid, track);
    case KERNEL_MEMORY_MM_EVENT:
      return kcounter_mm_event_track(ctx, v->machine, upid, v->utid, v->mm_type, v->metric,
                                     track);
    default:
      return kcounter_process_memory_track(ctx, v->machine, upid, v->utid, v->name, track);
  }
}

int kcounter_process_memory_resolve(trace_context *ctx) {
  kernel_state *k = ctx->model.kernel;
  kernel_memory_values *pending = k ? kernel_memory_pending(k) : NULL;
  if (!pending) return WEFT_OK;
  storage_table *counters = ctx_table(ctx, TABLE_COUNTER);
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < pending->len; i++) {
    const kernel_memory_value *v = &pending->data[i];
    uint32_t track;
    rc = kcounter_pending_track(ctx, v, &track);
    if (!rc) storage_set_i64(counters, COUNTER_track_id, v->row, track);
  }
  VEC_FREE(*pending);
  return rc;
}

static const struct {
  const char *prefix, *suffix, *type, *dim_key;
} kcounter_device_kinds[] = {
    [KCOUNTER_CLOCK_FREQUENCY] = {"", " Frequency", "clock_frequency", "linux_device"},
    [KCOUNTER_CLOCK_STATE] = {"", " State", "clock_state", "linux_device"},
    [KCOUNTER_THERMAL_TEMPERATURE] = {"", " Temperature", "thermal_temperature", "thermal_zone"},
    [KCOUNTER_COOLING_DEVICE] = {"", " Cooling Device", "cooling_device_counter", "linux_device"},
    [KCOUNTER_DEVICE_FREQUENCY] = {"devfreq_", "", "linux_device_frequency", "linux_device"},
};

#define KCOUNTER_MAX_DEVICE 200

int kcounter_device(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    kcounter_device_kind kind, const char *device, size_t len,
                    double value) {
  char dev[KCOUNTER_MAX_DEVICE + 1], name[KCOUNTER_MAX_DEVICE + 32];
  if (len > KCOUNTER_MAX_DEVICE) len = KCOUNTER_MAX_DEVICE;
  memcpy(dev, device ? device : "", device ? len : 0);
  dev[device ? len : 0] = '\0';
  snprintf(name, sizeof name, "%s%s%s", kcounter_device_kinds[kind].prefix, dev,
           kcounter_device_kinds[kind].suffix);
  uint32_t track;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = kcounter_device_kinds[kind].type;
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.dim_key = kcounter_device_kinds[kind].dim_key;
  spec.dim_str = dev;
  int rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

static const char *const kcounter_acpm_zones[] = {"BIG", "MID", "LITTLE", "GPU",
                                                  "ISP", "TPU", "AUR"};
#define KCOUNTER_ACPM_ZONES (sizeof kcounter_acpm_zones / sizeof *kcounter_acpm_zones)

static int kcounter_acpm_one(trace_context *ctx, const kernel_scope *s, int64_t ts,
                             uint32_t tz_id, const char *name, const char *type,
                             double value) {
  uint32_t track;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.dim_key = "thermal_zone";
  spec.dim_str = kcounter_acpm_zones[tz_id];
  int64_t args = -1;
  int rc = model_track(ctx, &spec, &track);
  if (!rc) rc = model_arg_int(ctx, "thermal_zone_id", 15, MODEL_ARG_INT, tz_id);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  return rc ? rc : model_counter(ctx, track, ts, value, args);
}

int kcounter_acpm(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t tz_id,
                  double temperature, double cdev_state) {
  if (tz_id >= KCOUNTER_ACPM_ZONES)
    return stats_add(&ctx->stats, stat_ftrace_thermal_exynos_acpm_unknown_tz_id, -1,
                     s->machine, s->trace, 1);
  char name[32];
  snprintf(name, sizeof name, "%s Temperature", kcounter_acpm_zones[tz_id]);
  int rc = kcounter_acpm_one(ctx, s, ts, tz_id, name, "acpm_thermal_temperature", temperature);
  if (rc) return rc;
  snprintf(name, sizeof name, "Tj-%s Cooling Device", kcounter_acpm_zones[tz_id]);
  return kcounter_acpm_one(ctx, s, ts, tz_id, name, "acpm_cooling_device_counter", cdev_state);
}

static const char *const kcounter_mm_event_types[] = {
    "min_flt", "maj_flt", "read_io", "compaction", "reclaim", "swp_flt", "kern_alloc"};

static const char *const kcounter_mm_metrics[] = {"count", "max_lat", "avg_lat"};

static int kcounter_mm_event_track(trace_context *ctx, uint32_t machine, int64_t upid,
                                   uint32_t utid, uint32_t type, uint32_t metric,
                                   uint32_t *track) {
  char name[64];
  snprintf(name, sizeof name, "mem.mm.%s.%s", kcounter_mm_event_types[type],
           kcounter_mm_metrics[metric]);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = upid >= 0 ? "mm_event" : "mm_event_thread_fallback";
  spec.is_counter = 1;
  spec.machine = machine;
  if (upid >= 0) spec.upid = upid;
  else spec.utid = utid;
  spec.dim_key = "mm_event_type";
  spec.dim_str = kcounter_mm_event_types[type];
  spec.dim2_key = "mm_event_metric";
  spec.dim2_str = kcounter_mm_metrics[metric];
  return model_track(ctx, &spec, track);
}

int kcounter_mm_event(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                      uint32_t type, double count, double max_lat, double avg_lat) {
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (rc) return rc;
  if (type >= sizeof kcounter_mm_event_types / sizeof *kcounter_mm_event_types)
    return kernel_stat(ctx, s, stat_mm_unknown_type, 1);
  double values[] = {count, max_lat, avg_lat};
  for (uint8_t i = 0; i < 3 && !rc; i++) {
    kernel_memory_value v = {0, 0, 0, KERNEL_MEMORY_MM_EVENT, NULL, (uint8_t)type, i};
    rc = kcounter_for_thread(ctx, s, ts, utid, values[i], v);
  }
  return rc;
}
