/* Graphics ftrace events. See proto_ftrace_gpu.h. */
#include "import/proto/proto_ftrace_gpu.h"

#include "model/gpu.h"
#include "model/kdrm.h"
#include "model/model.h"

/* FtraceEvent field numbers (ftrace_event.proto). */
enum {
  PROTO_FTRACE_GPU_FREQUENCY = 332,
  PROTO_FTRACE_GPU_MEM_TOTAL = 340,
  PROTO_FTRACE_DRM_VBLANK_EVENT = 409,
  PROTO_FTRACE_DRM_VBLANK_EVENT_DELIVERED = 410,
  PROTO_FTRACE_DRM_SCHED_JOB = 411,
  PROTO_FTRACE_DRM_RUN_JOB = 412,
  PROTO_FTRACE_DRM_SCHED_PROCESS_JOB = 413,
  PROTO_FTRACE_DMA_FENCE_INIT = 414,
  PROTO_FTRACE_DMA_FENCE_EMIT = 415,
  PROTO_FTRACE_DMA_FENCE_SIGNALED = 416,
  PROTO_FTRACE_DMA_FENCE_WAIT_START = 417,
  PROTO_FTRACE_DMA_FENCE_WAIT_END = 418,
  PROTO_FTRACE_DRM_SCHED_JOB_DONE = 592,
  PROTO_FTRACE_DRM_SCHED_JOB_QUEUE = 593,
  PROTO_FTRACE_DRM_SCHED_JOB_RUN = 594
};

#define FIELD_STR(fs, n) (const char *)(fs)->s[n].data, (fs)->s[n].len

/* gpu_mem_total: pid 0 is the gpu's total; another pid's value is dropped
 * unless that thread is known (kworkers report processes after death). */
static int proto_ftrace_gpu_mem_total(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                      const proto_ftrace_fields *fs) {
  uint32_t gpu_id = (uint32_t)fs->v[1];
  int64_t pid = (int64_t)(uint32_t)fs->v[2];
  double size = (double)fs->v[3];
  if (pid == 0)
    return gpu_counter(ctx, sc->machine, gpu_id, -1, "GPU Memory", "gpu_memory", "bytes", ts,
                       size);
  uint32_t ugpu, found, utid;
  int rc = gpu_ugpu(ctx, sc->machine, gpu_id, &ugpu); /* the gpu's row even when dropped */
  if (rc || !model_thread_find(ctx, sc->machine, pid, &found)) return rc;
  /* the process pid is made (as Perfetto does), but the counter is the
   * process of the live thread pid */
  rc = model_thread_in_process(ctx, sc->machine, pid, pid, &utid);
  if (rc) return rc;
  storage_table *threads = ctx_table(ctx, TABLE_THREAD);
  int64_t upid = storage_get_i64_or(threads, THREAD_upid, found, -1);
  if (upid < 0) upid = storage_get_i64_or(threads, THREAD_upid, utid, 0);
  return gpu_counter(ctx, sc->machine, gpu_id, upid, "GPU Memory", "process_gpu_memory", "bytes",
                     ts, size);
}

static int proto_ftrace_drm_sched(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                                  int64_t pid, uint32_t id, const proto_ftrace_fields *fs) {
  kdrm_job old = {fs->v[4], 0, 0}, by_fence = {fs->v[5], fs->v[6], 1};
  switch (id) {
    case PROTO_FTRACE_DRM_SCHED_JOB:
      return kdrm_job_queued(ctx, sc, ts, pid, FIELD_STR(fs, 6), &old);
    case PROTO_FTRACE_DRM_RUN_JOB:
      return kdrm_job_run(ctx, sc, ts, FIELD_STR(fs, 6), &old, fs->v[2]);
    case PROTO_FTRACE_DRM_SCHED_PROCESS_JOB: {
      kdrm_job done = {fs->v[1], 0, 0};
      return kdrm_job_done(ctx, sc, ts, &done);
    }
    case PROTO_FTRACE_DRM_SCHED_JOB_QUEUE:
      return kdrm_job_queued(ctx, sc, ts, pid, FIELD_STR(fs, 1), &by_fence);
    case PROTO_FTRACE_DRM_SCHED_JOB_RUN:
      return kdrm_job_run(ctx, sc, ts, FIELD_STR(fs, 1), &by_fence, 0);
    case PROTO_FTRACE_DRM_SCHED_JOB_DONE: {
      kdrm_job done = {fs->v[1], fs->v[2], 1};
      return kdrm_job_done(ctx, sc, ts, &done);
    }
    default: return WEFT_OK;
  }
}

int proto_ftrace_gpu(trace_context *ctx, const kernel_scope *sc, int64_t ts, int64_t pid,
                     uint32_t id, const proto_ftrace_fields *fs) {
  switch (id) {
    case PROTO_FTRACE_GPU_FREQUENCY:
      return gpu_counter(ctx, sc->machine, (uint32_t)fs->v[1], -1, "gpufreq", "gpu_frequency",
                         "kHz", ts, (double)(uint32_t)fs->v[2]);
    case PROTO_FTRACE_GPU_MEM_TOTAL: return proto_ftrace_gpu_mem_total(ctx, sc, ts, fs);
    case PROTO_FTRACE_DRM_VBLANK_EVENT:
    case PROTO_FTRACE_DRM_VBLANK_EVENT_DELIVERED:
      return kdrm_vblank(ctx, sc, ts, (int64_t)(int32_t)fs->v[1], (uint32_t)fs->v[3],
                         id == PROTO_FTRACE_DRM_VBLANK_EVENT_DELIVERED);
    case PROTO_FTRACE_DMA_FENCE_INIT:
    case PROTO_FTRACE_DMA_FENCE_EMIT:
    case PROTO_FTRACE_DMA_FENCE_SIGNALED:
      return kdrm_fence(ctx, sc, ts,
                        id == PROTO_FTRACE_DMA_FENCE_INIT   ? KDRM_FENCE_INIT
                        : id == PROTO_FTRACE_DMA_FENCE_EMIT ? KDRM_FENCE_EMIT
                                                            : KDRM_FENCE_SIGNALED,
                        FIELD_STR(fs, 4), (uint32_t)fs->v[1], (uint32_t)fs->v[3]);
    case PROTO_FTRACE_DMA_FENCE_WAIT_START:
      return kdrm_fence_wait_start(ctx, sc, ts, pid, (uint32_t)fs->v[1], (uint32_t)fs->v[3]);
    case PROTO_FTRACE_DMA_FENCE_WAIT_END: return kdrm_fence_wait_end(ctx, sc, ts, pid);
    default: return proto_ftrace_drm_sched(ctx, sc, ts, pid, id, fs);
  }
}
