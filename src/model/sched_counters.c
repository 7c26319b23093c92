/* The kernel model's process ends and counters: renames and frees of
 * tasks, cpu/process/global counters and rss_stat. See sched.h. */
#include "model/sched.h"
#include "model/sched_internal.h"

#include "model/context.h"
#include "model/kcounter.h"
#include "model/model.h"

/* ---- process ends ---- */

int sched_task_rename(trace_context *ctx, const kernel_scope *s, int64_t tid,
                      const char *comm, size_t comm_len) {
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, tid, comm, comm_len, &utid);
  if (rc) return rc;
  int64_t upid = sched_thread_upid(ctx, utid);
  /* Renaming a main thread renames its process. */
  if (upid >= 0 && storage_get_i64(ctx_table(ctx, TABLE_PROCESS), PROCESS_pid, upid) == tid)
    rc = model_process_set_name(ctx, (uint32_t)upid, comm, comm_len);
  return rc;
}

int sched_process_free(trace_context *ctx, const kernel_scope *s, int64_t ts,
                       int64_t tid) {
  uint32_t utid;
  if (model_thread_find(ctx, s->machine, tid, &utid) != 1) return WEFT_OK; /* makes none */
  int64_t upid = sched_thread_upid(ctx, utid);
  if (upid >= 0 && storage_get_i64(ctx_table(ctx, TABLE_PROCESS), PROCESS_pid, upid) == tid)
    model_process_end(ctx, (uint32_t)upid, ts);
  model_thread_end(ctx, utid, ts);
  return WEFT_OK;
}

/* ---- counters ---- */

int sched_cpu_counter(trace_context *ctx, const kernel_scope *s, int64_t ts,
                      uint32_t cpu, const char *name, const char *type,
                      double value) {
  uint32_t ucpu, track;
  int rc = sched_ucpu(ctx, s->machine, cpu, &ucpu);
  if (rc) return rc;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.cpu = ucpu;
  spec.cpu_number = cpu;
  rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

int sched_process_counter(trace_context *ctx, const kernel_scope *s,
                          int64_t ts, uint32_t upid, const char *name,
                          double value) {
  uint32_t track;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "process_counter";
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.upid = upid;
  int rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

int sched_global_counter(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         const char *name, double value) {
  uint32_t track;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "global_counter";
  spec.is_counter = 1;
  spec.machine = s->machine;
  int rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

/* by member; any other member (above 4, or negative) is "mem.unknown" */
static const char *const sched_rss_names[] = {
    "mem.rss.file", "mem.rss.anon", "mem.swap", "mem.rss.shmem",
    "mem.unreclaimable", "mem.unknown"};
#define SCHED_RSS_UNKNOWN 5

/* The thread an rss_stat belongs to; 0 with *found = 0 when unknown. */
static int sched_rss_thread(trace_context *ctx, const kernel_scope *s,
                            kernel_state *k, int64_t tid, int64_t curr,
                            int64_t mm_id, uint32_t *utid, int *found) {
  *found = 0;
  uint64_t key = base_hash_u64(((uint64_t)s->machine << 32) ^ (uint64_t)mm_id) >> 1;
  if (mm_id < 0 || curr > 0) {
    int rc = model_thread(ctx, s->machine, tid, utid);
    if (rc) return rc;
    if (mm_id >= 0 && base_map_insert(kernel_rss_mm(k), key, *utid, NULL) < 0) return WEFT_ENOMEM;
    uint64_t *slot = mm_id >= 0 ? base_map_find(kernel_rss_mm(k), key) : NULL;
    if (slot) *slot = *utid;
    *found = 1;
    return WEFT_OK;
  }
  uint64_t *slot = base_map_find(kernel_rss_mm(k), key);
  if (!slot || *slot == UINT64_MAX - 1) {
    kernel_stat(ctx, s, stat_rss_stat_unknown_thread_for_mm_id, 1);
    return WEFT_OK;
  }
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  if (!storage_is_null(t, THREAD_end_ts, (size_t)*slot)) {
    *slot = UINT64_MAX - 1; /* the thread died: forget the mm */
    kernel_stat(ctx, s, stat_rss_stat_unknown_thread_for_mm_id, 1);
    return WEFT_OK;
  }
  *utid = (uint32_t)*slot;
  *found = 1;
  return WEFT_OK;
}

int sched_rss_stat(trace_context *ctx, const kernel_scope *s, int64_t ts,
                   int64_t tid, int64_t member, int64_t size, int64_t curr,
                   int64_t mm_id) {
  kernel_state *k;
  int rc = kernel_get(ctx, s->machine, &k);
  if (rc) return rc;
  if (member < 0 || member > SCHED_RSS_UNKNOWN) member = SCHED_RSS_UNKNOWN;
  if (size < 0) return kernel_stat(ctx, s, stat_rss_stat_negative_size, 1);
  uint32_t utid;
  int found;
  rc = sched_rss_thread(ctx, s, k, tid, curr, mm_id, &utid, &found);
  if (rc || !found) return rc;
  return kcounter_process_memory(ctx, s, ts, utid, sched_rss_names[member], (double)size);
}

int sched_dmabuf_rss(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                     double rss) {
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  return rc ? rc : kcounter_process_memory(ctx, s, ts, utid, "mem.dmabuf_rss", rss);
}
