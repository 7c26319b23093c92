/* kdrm: the kernel's DRM events as GPU slices — vblanks, GPU scheduler
 * rings and dma_fence timelines. Shared by the kernel importers.
 *
 * Owns per machine: the scheduler rings (by name) with their running jobs
 * and the thread slices that queued each job, the pending fences of each
 * ring, and the dma_fence timelines (by fence context) with their pending
 * seqnos. Rules (Perfetto's):
 *  - drm_vblank_event / _delivered: a 0-dur "signal" / "deliver" slice on
 *    the track "vblank-<crtc>" (type drm_vblank, dimension drm_crtc), arg
 *    "vblank seqno".
 *  - a job queued (drm_sched_job, or drm_sched_job_queue since Linux 6.17)
 *    is a 0-dur slice "drm_sched_job_queue" (for both events) on the
 *    queuing thread's track,
 *    args "gpu sched ring" and the job's id ("gpu sched job", or "fence
 *    context" + "fence seqno"); a job run (drm_run_job / drm_sched_job_run)
 *    joins its ring's queue on "sched-<ring>" (type drm_sched_ring,
 *    dimension name); the queue's first job is an open "job" slice (the
 *    job's id args) with a flow from its queuing slice; the job's fence
 *    done (drm_sched_process_job / drm_sched_job_done) ends it and begins
 *    the next.
 *  - dma_fence_init / _emit on a timeline (not "unbound") queue a seqno on
 *    "fence-<timeline>-<context>" (type drm_fence, dimensions name and
 *    context); the first pending one is an open "fence" slice (arg "fence
 *    seqno"); once a timeline sees an emit, inits are ignored and its
 *    pending fences are dropped (ending the open slice). dma_fence_signaled
 *    with a seqno not below the first pending one ends it and begins the
 *    next.
 *  - dma_fence_wait_start / _end: a "dma_fence_wait" slice on the thread's
 *    track, args "fence context" and "fence seqno".
 * Queues are bounded (KDRM_MAX_QUEUE); past that new entries are dropped. */
#ifndef WEFT_MODEL_KDRM_H
#define WEFT_MODEL_KDRM_H

#include "model/sched.h"

typedef struct kdrm_state kdrm_state;

void kdrm_state_free(kdrm_state *k);

/* How a scheduler job is named: by job id (old events) or by its fence
 * (context, seqno) (Linux 6.17 events). */
typedef struct kdrm_job {
  uint64_t id;          /* job id, or fence context */
  uint64_t seqno;       /* fence seqno (by_fence only) */
  int by_fence;
} kdrm_job;

int kdrm_vblank(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t crtc,
                uint64_t seqno, int delivered);
int kdrm_job_queued(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                    const char *ring, size_t ring_len, const kdrm_job *job);
/* fence: the job's fence id (old events; ignored when job->by_fence). */
int kdrm_job_run(trace_context *ctx, const kernel_scope *s, int64_t ts, const char *ring,
                 size_t ring_len, const kdrm_job *job, uint64_t fence);
/* The job whose fence is `fence` (or job->id, job->seqno) is done. */
int kdrm_job_done(trace_context *ctx, const kernel_scope *s, int64_t ts, const kdrm_job *job);

typedef enum kdrm_fence_event { KDRM_FENCE_INIT, KDRM_FENCE_EMIT, KDRM_FENCE_SIGNALED } kdrm_fence_event;
int kdrm_fence(trace_context *ctx, const kernel_scope *s, int64_t ts, kdrm_fence_event ev,
               const char *timeline, size_t timeline_len, uint64_t context, uint64_t seqno);
int kdrm_fence_wait_start(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                          uint64_t context, uint64_t seqno);
int kdrm_fence_wait_end(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid);

#endif
