/* ProcessStats packets. See proto_process_tree.h. */
#include "model/context.h"
#include "model/kcounter.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_process_tree.h"

#define PROTO_PROCESS_STATS_MAX_FIELD 25 /* fields 1..24 */
#define PROTO_PROCESS_STATS_DMABUF_RSS_KB 24

/* A counter field of ProcessStats.Process: its track name and type, and
 * whether its value is in KiB (the counter is in bytes). The track's
 * dimensions are the process and (but for oom_score_adj) a key: the name
 * without its type's prefix. */
typedef struct proto_pstat_counter {
  const char *name, *type;
  int kib;
} proto_pstat_counter;

/* The key dimension of each type: its arg key and the prefix the name drops. */
static const struct {
  const char *type, *key, *prefix;
} proto_pstat_keys[] = {
    {"chrome_process_stats", "key", "chrome."},
    {"smaps", "smaps_key", "mem.smaps."},
    {"proc_stat_runtime", "proc_stat_runtime_key", "runtime."},
};

static const proto_pstat_counter proto_pstat_counters[PROTO_PROCESS_STATS_MAX_FIELD] = {
    [PROTO_PROCESS_STATS_VM_SIZE_KB] = {"mem.virt", "process_memory", 1},
    [PROTO_PROCESS_STATS_VM_RSS_KB] = {"mem.rss", "process_memory", 1},
    [PROTO_PROCESS_STATS_RSS_ANON_KB] = {"mem.rss.anon", "process_memory", 1},
    [PROTO_PROCESS_STATS_RSS_FILE_KB] = {"mem.rss.file", "process_memory", 1},
    [PROTO_PROCESS_STATS_RSS_SHMEM_KB] = {"mem.rss.shmem", "process_memory", 1},
    [PROTO_PROCESS_STATS_VM_SWAP_KB] = {"mem.swap", "process_memory", 1},
    [PROTO_PROCESS_STATS_VM_LOCKED_KB] = {"mem.locked", "process_memory", 1},
    [PROTO_PROCESS_STATS_VM_HWM_KB] = {"mem.rss.watermark", "process_memory", 1},
    [PROTO_PROCESS_STATS_OOM_SCORE_ADJ] = {"oom_score_adj", "oom_score_adj", 0},
    [PROTO_PROCESS_STATS_CHROME_PRIVATE_FOOTPRINT_KB] =
        {"chrome.private_footprint_kb", "chrome_process_stats", 1},
    [PROTO_PROCESS_STATS_CHROME_PEAK_RESIDENT_SET_KB] =
        {"chrome.peak_resident_set_kb", "chrome_process_stats", 1},
    [PROTO_PROCESS_STATS_SMR_RSS_KB] = {"mem.smaps.rss", "smaps", 1},
    [PROTO_PROCESS_STATS_SMR_PSS_KB] = {"mem.smaps.pss", "smaps", 1},
    [PROTO_PROCESS_STATS_SMR_PSS_ANON_KB] = {"mem.smaps.pss.anon", "smaps", 1},
    [PROTO_PROCESS_STATS_SMR_PSS_FILE_KB] = {"mem.smaps.pss.file", "smaps", 1},
    [PROTO_PROCESS_STATS_SMR_PSS_SHMEM_KB] = {"mem.smaps.pss.smem", "smaps", 1},
    [PROTO_PROCESS_STATS_RUNTIME_USER_MODE] = {"runtime.user_ns", "proc_stat_runtime", 0},
    [PROTO_PROCESS_STATS_RUNTIME_KERNEL_MODE] = {"runtime.kernel_ns", "proc_stat_runtime", 0},
    [PROTO_PROCESS_STATS_SMR_SWAP_PSS_KB] = {"mem.smaps.swap.pss", "smaps", 1},
    [PROTO_PROCESS_STATS_DMABUF_RSS_KB] = {"mem.dmabuf_rss", "process_memory", 1},
};

typedef struct proto_pstat_proc {
  int64_t pid;
  int has_pid, has_resettable, resettable;
  uint64_t values[PROTO_PROCESS_STATS_MAX_FIELD];
  uint32_t has; /* bit n: counter field n present */
  uint8_t chrome_order[2]; /* the Chrome fields in the order they came */
  int chrome_count;
  int unknown; /* fields counted as proc_stat_unknown_counters */
} proto_pstat_proc;

#define PROTO_PROCESS_STATS_THREADS 11
#define PROTO_PROCESS_STATS_FDS 15

/* Whether Perfetto's process stats parser counts field n as unknown: every
 * field but the pid, threads, fds, is_peak_rss_resettable,
 * chrome_private_footprint_kb and its counter fields. Its check names the
 * private footprint twice and not chrome_peak_resident_set_kb, so that one
 * is counted (and still read as a counter). */
static int proto_pstat_unknown(uint32_t n) {
  if (n == PROTO_PROCESS_STATS_PID || n == PROTO_PROCESS_STATS_THREADS ||
      n == PROTO_PROCESS_STATS_FDS || n == PROTO_PROCESS_STATS_IS_PEAK_RSS_RESETTABLE ||
      n == PROTO_PROCESS_STATS_CHROME_PRIVATE_FOOTPRINT_KB)
    return 0;
  if (n == PROTO_PROCESS_STATS_CHROME_PEAK_RESIDENT_SET_KB) return 1;
  return n >= PROTO_PROCESS_STATS_MAX_FIELD || !proto_pstat_counters[n].name;
}

static void proto_pstat_read(proto_span msg, proto_pstat_proc *pr) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    pr->unknown += proto_pstat_unknown(fl.number);
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_PROCESS_STATS_PID) {
      pr->pid = proto_field_int32(&fl);
      pr->has_pid = 1;
    } else if (fl.number == PROTO_PROCESS_STATS_IS_PEAK_RSS_RESETTABLE) {
      pr->resettable = fl.value != 0;
      pr->has_resettable = 1;
    } else if (fl.number < PROTO_PROCESS_STATS_MAX_FIELD && proto_pstat_counters[fl.number].name) {
      int chrome = fl.number == PROTO_PROCESS_STATS_CHROME_PRIVATE_FOOTPRINT_KB ||
                   fl.number == PROTO_PROCESS_STATS_CHROME_PEAK_RESIDENT_SET_KB;
      if (chrome && !(pr->has >> fl.number & 1u) && pr->chrome_count < 2)
        pr->chrome_order[pr->chrome_count++] = (uint8_t)fl.number;
      pr->values[fl.number] = fl.value;
      pr->has |= 1u << fl.number;
    }
  }
}

static int proto_pstat_push(trace_context *ctx, uint32_t machine, int64_t ts, uint32_t upid,
                            const proto_pstat_proc *pr, uint32_t field) {
  const proto_pstat_counter *c = &proto_pstat_counters[field];
  double value = field == PROTO_PROCESS_STATS_OOM_SCORE_ADJ ? (double)(int64_t)pr->values[field]
                                                            : (double)pr->values[field];
  if (c->kib) value *= 1024.0;
  uint32_t track;
  int rc;
  if (!strcmp(c->type, "process_memory")) {
    rc = kcounter_process_memory_track(ctx, machine, upid, -1, c->name, &track);
    return rc ? rc : model_counter(ctx, track, ts, value, -1);
  }
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = c->name;
  spec.type = c->type;
  spec.is_counter = 1;
  spec.machine = machine;
  spec.upid = upid;
  for (size_t i = 0; i < sizeof proto_pstat_keys / sizeof *proto_pstat_keys; i++) {
    if (strcmp(c->type, proto_pstat_keys[i].type)) continue;
    spec.dim_key = proto_pstat_keys[i].key;
    spec.dim_str = c->name + strlen(proto_pstat_keys[i].prefix);
  }
  rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

static int proto_pstat_resettable(trace_context *ctx, uint32_t upid, int resettable) {
  int rc = model_arg_int(ctx, "is_peak_rss_resettable", 22, MODEL_ARG_BOOL, resettable);
  return rc ? rc : model_process_args_add(ctx, upid);
}

/* The Chrome counters first, in the order they came, then the others by
 * field number. */
static int proto_pstat_apply(trace_context *ctx, uint32_t machine, int64_t ts,
                             const proto_pstat_proc *pr) {
  uint32_t upid;
  int rc = proto_process_get(ctx, machine, pr->pid, &upid);
  for (int i = 0; !rc && i < pr->chrome_count; i++)
    rc = proto_pstat_push(ctx, machine, ts, upid, pr, pr->chrome_order[i]);
  for (uint32_t n = 1; !rc && n < PROTO_PROCESS_STATS_MAX_FIELD; n++) {
    if (!(pr->has >> n & 1u) || n == PROTO_PROCESS_STATS_CHROME_PRIVATE_FOOTPRINT_KB ||
        n == PROTO_PROCESS_STATS_CHROME_PEAK_RESIDENT_SET_KB)
      continue;
    rc = proto_pstat_push(ctx, machine, ts, upid, pr, n);
  }
  if (!rc && pr->has_resettable) rc = proto_pstat_resettable(ctx, upid, pr->resettable);
  return rc;
}

/* A process's threads (Thread: tid 1) join it as Perfetto's UpdateThread
 * does, and its fds (FDInfo: fd 1, path 2) are filedescriptor rows, each
 * in the order they came. */
static int proto_pstat_threads_and_fds(trace_context *ctx, uint32_t machine, int64_t ts,
                                       const proto_pstat_proc *pr, proto_span msg) {
  uint32_t upid;
  int rc = proto_process_get(ctx, machine, pr->pid, &upid);
  proto_reader r;
  proto_field fl, v;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == PROTO_PROCESS_STATS_THREADS) {
      int64_t tid = proto_find_last(fl.span.data, fl.span.len, 1, &v) == 1 &&
                            v.wire_type == PROTO_WIRE_VARINT ? proto_field_int32(&v) : 0;
      uint32_t utid;
      rc = model_thread_update(ctx, machine, (uint32_t)tid, (uint32_t)pr->pid, &utid);
    } else if (fl.number == PROTO_PROCESS_STATS_FDS) {
      int64_t fd = proto_find_last(fl.span.data, fl.span.len, 1, &v) == 1 &&
                           v.wire_type == PROTO_WIRE_VARINT ? (int64_t)v.value : 0;
      string_id path = STRING_NULL;
      if (proto_find_last(fl.span.data, fl.span.len, 2, &v) == 1 && v.wire_type == PROTO_WIRE_LEN)
        rc = ctx_intern(ctx, (const char *)v.span.data, v.span.len, &path);
      if (!rc) rc = model_filedescriptor(ctx, upid, ts, fd, path);
    }
  }
  return rc;
}

int proto_process_stats_parse(import_file *f, uint32_t machine, int64_t ts, proto_span stats) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, stats);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_PROCESS_STATS_PROCESSES || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_pstat_proc pr;
    memset(&pr, 0, sizeof pr);
    proto_pstat_read(fl.span, &pr);
    int rc = pr.unknown ? import_stat(f, stat_proc_stat_unknown_counters, pr.unknown) : WEFT_OK;
    if (rc) return rc;
    if (!pr.has_pid) continue;
    rc = proto_pstat_apply(f->ctx, machine, ts, &pr);
    if (!rc) rc = proto_pstat_threads_and_fds(f->ctx, machine, ts, &pr, fl.span);
    if (rc) return rc;
  }
  return WEFT_OK;
}
