/* DRM vblank, GPU scheduler and dma_fence slices. See kdrm.h. */
#include "model/kdrm.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/flow.h"
#include "model/model.h"

#define KDRM_MAX_QUEUE 4096
#define KDRM_GONE (UINT64_MAX - 1) /* a map value that was taken */

/* A FIFO of u64 (job indexes or seqnos): live entries are [head, len). */
typedef struct kdrm_queue {
  VEC(uint64_t) items;
  size_t head;
} kdrm_queue;

typedef struct kdrm_ring {
  uint32_t track;
  kdrm_queue running; /* indexes into kdrm_state.jobs */
} kdrm_ring;

typedef struct kdrm_timeline {
  uint32_t track;
  int has_emit;
  kdrm_queue pending; /* seqnos */
} kdrm_timeline;

struct kdrm_state {
  VEC(kdrm_ring) rings;
  base_map ring_of;       /* machine << 32 | ring name id -> index in rings */
  VEC(kdrm_timeline) timelines;
  base_map timeline_of;   /* hash(machine, context) -> index in timelines */
  VEC(kdrm_job) jobs;     /* jobs run, for their slices' args */
  base_map queued_slice;  /* hash(machine, ring, job) -> queuing slice */
  base_map fence_ring;    /* hash(machine, fence) -> ring index */
};

static void kdrm_queue_free(kdrm_queue *q) { VEC_FREE(q->items); }

void kdrm_state_free(kdrm_state *k) {
  if (!k) return;
  for (size_t i = 0; i < k->rings.len; i++) kdrm_queue_free(&k->rings.data[i].running);
  for (size_t i = 0; i < k->timelines.len; i++) kdrm_queue_free(&k->timelines.data[i].pending);
  VEC_FREE(k->rings);
  VEC_FREE(k->timelines);
  VEC_FREE(k->jobs);
  base_map_free(&k->ring_of);
  base_map_free(&k->timeline_of);
  base_map_free(&k->queued_slice);
  base_map_free(&k->fence_ring);
  base_free(k);
}

static kdrm_state *kdrm_get(trace_context *ctx) {
  if (!ctx->model.kdrm) ctx->model.kdrm = base_calloc(1, sizeof(kdrm_state));
  return ctx->model.kdrm;
}

/* ---- queues ---- */

static size_t kdrm_queue_size(const kdrm_queue *q) { return q->items.len - q->head; }

static int kdrm_queue_push(kdrm_queue *q, uint64_t v) {
  if (kdrm_queue_size(q) >= KDRM_MAX_QUEUE) return WEFT_OK; /* dropped */
  if (q->head && q->head == q->items.len) q->head = q->items.len = 0;
  if (q->head > 64 && q->head * 2 > q->items.len) {
    memmove(q->items.data, q->items.data + q->head, kdrm_queue_size(q) * sizeof(uint64_t));
    q->items.len -= q->head;
    q->head = 0;
  }
  return VEC_PUSH(q->items, v);
}

static uint64_t kdrm_queue_front(const kdrm_queue *q) { return q->items.data[q->head]; }

static void kdrm_queue_pop(kdrm_queue *q) { q->head++; }

/* ---- keys and args ---- */

static uint64_t kdrm_key(uint32_t machine, uint64_t kind, uint64_t a, uint64_t b) {
  uint64_t parts[4] = {machine, kind, a, b};
  return base_hash_bytes(parts, sizeof parts) >> 1;
}

static uint64_t kdrm_job_key(uint32_t machine, uint32_t ring, const kdrm_job *job) {
  return kdrm_key(machine, (uint64_t)ring << 1 | (uint64_t)(job->by_fence != 0), job->id,
                  job->seqno);
}

static int kdrm_arg_uint(trace_context *ctx, const char *key, uint64_t v) {
  return model_arg_int(ctx, key, strlen(key), MODEL_ARG_UINT, (int64_t)v);
}

static int kdrm_job_args(trace_context *ctx, const kdrm_job *job) {
  if (!job->by_fence) return kdrm_arg_uint(ctx, "gpu sched job", job->id);
  int rc = kdrm_arg_uint(ctx, "fence context", job->id);
  return rc ? rc : kdrm_arg_uint(ctx, "fence seqno", job->seqno);
}

static int kdrm_name(trace_context *ctx, const char *s, string_id *id) {
  return ctx_intern(ctx, s, strlen(s), id);
}

/* A GPU track (created with the dimensions pending as args). */
static int kdrm_track(trace_context *ctx, const kernel_scope *s, const char *name,
                      const char *type, uint32_t *track) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.machine = s->machine;
  int rc = model_track(ctx, &spec, track);
  if (rc) return rc;
  return WEFT_OK;
}

static int kdrm_track_dims(trace_context *ctx, uint32_t track) {
  int64_t dims = -1;
  int rc = model_args_commit(ctx, &dims);
  if (!rc) model_track_set_arg_sets(ctx, track, dims, -1);
  return rc;
}

/* ---- vblank ---- */

int kdrm_vblank(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t crtc,
                uint64_t seqno, int delivered) {
  char name[48];
  snprintf(name, sizeof name, "vblank-%" PRId64, crtc);
  uint32_t track, slice;
  string_id slice_name;
  int64_t args = -1;
  int rc = kdrm_track(ctx, s, name, "drm_vblank", &track);
  if (!rc) rc = model_arg_int(ctx, "drm_crtc", 8, MODEL_ARG_INT, crtc);
  if (!rc) rc = kdrm_track_dims(ctx, track);
  if (!rc) rc = kdrm_name(ctx, delivered ? "deliver" : "signal", &slice_name);
  if (!rc) rc = kdrm_arg_uint(ctx, "vblank seqno", seqno);
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, STRING_NULL, slice_name, args, &slice);
}

/* ---- scheduler rings ---- */

static int kdrm_ring_of(trace_context *ctx, kdrm_state *k, const kernel_scope *s, const char *ring,
                     size_t len, uint32_t *index) {
  string_id id;
  int rc = ctx_intern(ctx, ring, len, &id);
  if (rc) return rc;
  uint64_t key = (uint64_t)s->machine << 32 | id;
  uint64_t *found = base_map_find(&k->ring_of, key);
  if (found) {
    *index = (uint32_t)*found;
    return WEFT_OK;
  }
  char name[160];
  snprintf(name, sizeof name, "sched-%.*s", (int)(len > 140 ? 140 : len), ring);
  kdrm_ring r = {0};
  rc = kdrm_track(ctx, s, name, "drm_sched_ring", &r.track);
  if (!rc) rc = model_arg_string(ctx, "name", 4, ring, len, MODEL_ARG_STRING);
  if (!rc) rc = kdrm_track_dims(ctx, r.track);
  if (!rc) rc = VEC_PUSH(k->rings, r);
  if (rc) return rc;
  *index = (uint32_t)(k->rings.len - 1);
  return base_map_insert(&k->ring_of, key, *index, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

int kdrm_job_queued(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                    const char *ring, size_t ring_len, const kdrm_job *job) {
  kdrm_state *k = kdrm_get(ctx);
  if (!k) return WEFT_ENOMEM;
  uint32_t utid, track, slice, r;
  string_id name;
  int64_t args = -1;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = kdrm_name(ctx, "drm_sched_job_queue", &name);
  if (!rc) rc = model_arg_string(ctx, "gpu sched ring", 14, ring, ring_len, MODEL_ARG_STRING);
  if (!rc) rc = kdrm_job_args(ctx, job);
  if (!rc) rc = model_args_commit(ctx, &args);
  if (!rc) rc = model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, args, &slice);
  if (!rc) rc = kdrm_ring_of(ctx, k, s, ring, ring_len, &r);
  if (rc) return rc;
  uint64_t *slot;
  if (base_map_insert(&k->queued_slice, kdrm_job_key(s->machine, r, job), slice, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = slice;
  return WEFT_OK;
}

/* Begins the "job" slice of the ring's first running job, with a flow from
 * the slice that queued it. */
static int kdrm_ring_begin(trace_context *ctx, kdrm_state *k, const kernel_scope *s,
                           uint32_t r, int64_t ts) {
  kdrm_ring *ring = &k->rings.data[r];
  const kdrm_job *job = &k->jobs.data[kdrm_queue_front(&ring->running)];
  string_id name;
  int64_t args = -1;
  uint32_t slice;
  int rc = kdrm_name(ctx, "job", &name);
  if (!rc) rc = kdrm_job_args(ctx, job);
  if (!rc) rc = model_args_commit(ctx, &args);
  if (!rc) rc = model_slice_begin(ctx, ring->track, ts, STRING_NULL, name, args, &slice);
  if (rc) return rc;
  uint64_t *queued = base_map_find(&k->queued_slice, kdrm_job_key(s->machine, r, job));
  if (!queued || *queued == KDRM_GONE) return WEFT_OK;
  uint32_t from = (uint32_t)*queued;
  *queued = KDRM_GONE;
  return flow_link(ctx, from, slice);
}

static uint64_t kdrm_fence_key(uint32_t machine, const kdrm_job *job, uint64_t fence) {
  return job->by_fence ? kdrm_key(machine, 1, job->id, job->seqno) : kdrm_key(machine, 0, fence, 0);
}

int kdrm_job_run(trace_context *ctx, const kernel_scope *s, int64_t ts, const char *ring,
                 size_t ring_len, const kdrm_job *job, uint64_t fence) {
  kdrm_state *k = kdrm_get(ctx);
  if (!k) return WEFT_ENOMEM;
  uint32_t r;
  int rc = kdrm_ring_of(ctx, k, s, ring, ring_len, &r);
  if (rc) return rc;
  kdrm_queue *q = &k->rings.data[r].running;
  if (kdrm_queue_size(q) >= KDRM_MAX_QUEUE) return WEFT_OK;
  if ((rc = VEC_PUSH(k->jobs, *job)) != 0) return rc;
  if ((rc = kdrm_queue_push(q, k->jobs.len - 1)) != 0) return rc;
  uint64_t *slot;
  if (base_map_insert(&k->fence_ring, kdrm_fence_key(s->machine, job, fence), r, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = r;
  return kdrm_queue_size(q) == 1 ? kdrm_ring_begin(ctx, k, s, r, ts) : WEFT_OK;
}

int kdrm_job_done(trace_context *ctx, const kernel_scope *s, int64_t ts, const kdrm_job *job) {
  kdrm_state *k = kdrm_get(ctx);
  if (!k) return WEFT_ENOMEM;
  uint64_t *slot = base_map_find(&k->fence_ring, kdrm_fence_key(s->machine, job, job->id));
  if (!slot || *slot == KDRM_GONE) return WEFT_OK;
  uint32_t r = (uint32_t)*slot;
  *slot = KDRM_GONE;
  kdrm_queue *q = &k->rings.data[r].running;
  if (!kdrm_queue_size(q)) return WEFT_OK;
  kdrm_queue_pop(q);
  int64_t ended;
  int rc = model_slice_end(ctx, k->rings.data[r].track, ts, &ended);
  if (rc) return rc;
  return kdrm_queue_size(q) ? kdrm_ring_begin(ctx, k, s, r, ts) : WEFT_OK;
}

/* ---- dma_fence timelines ---- */

static int kdrm_timeline_of(trace_context *ctx, kdrm_state *k, const kernel_scope *s,
                         const char *timeline, size_t len, uint64_t context, uint32_t *index) {
  uint64_t key = kdrm_key(s->machine, 2, context, 0);
  uint64_t *found = base_map_find(&k->timeline_of, key);
  if (found) {
    *index = (uint32_t)*found;
    return WEFT_OK;
  }
  char name[192];
  snprintf(name, sizeof name, "fence-%.*s-%" PRIu64, (int)(len > 160 ? 160 : len), timeline,
           context);
  kdrm_timeline t = {0};
  int rc = kdrm_track(ctx, s, name, "drm_fence", &t.track);
  if (!rc) rc = model_arg_string(ctx, "name", 4, timeline, len, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "context", 7, MODEL_ARG_INT, (int64_t)context);
  if (!rc) rc = kdrm_track_dims(ctx, t.track);
  if (!rc) rc = VEC_PUSH(k->timelines, t);
  if (rc) return rc;
  *index = (uint32_t)(k->timelines.len - 1);
  return base_map_insert(&k->timeline_of, key, *index, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

static int kdrm_timeline_begin(trace_context *ctx, const kdrm_timeline *t, int64_t ts) {
  string_id name;
  int64_t args = -1;
  uint32_t slice;
  int rc = kdrm_name(ctx, "fence", &name);
  if (!rc) rc = kdrm_arg_uint(ctx, "fence seqno", kdrm_queue_front(&t->pending));
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_begin(ctx, t->track, ts, STRING_NULL, name, args, &slice);
}

static int kdrm_timeline_queue(trace_context *ctx, kdrm_timeline *t, int64_t ts,
                               uint64_t seqno) {
  size_t before = kdrm_queue_size(&t->pending);
  int rc = kdrm_queue_push(&t->pending, seqno);
  if (rc || before != 0 || kdrm_queue_size(&t->pending) != 1) return rc;
  return kdrm_timeline_begin(ctx, t, ts);
}

int kdrm_fence(trace_context *ctx, const kernel_scope *s, int64_t ts, kdrm_fence_event ev,
               const char *timeline, size_t timeline_len, uint64_t context, uint64_t seqno) {
  if (timeline_len == 7 && memcmp(timeline, "unbound", 7) == 0) return WEFT_OK;
  kdrm_state *k = kdrm_get(ctx);
  if (!k) return WEFT_ENOMEM;
  uint32_t i;
  int64_t ended;
  int rc = kdrm_timeline_of(ctx, k, s, timeline, timeline_len, context, &i);
  if (rc) return rc;
  kdrm_timeline *t = &k->timelines.data[i];
  if (ev == KDRM_FENCE_INIT)
    return t->has_emit ? WEFT_OK : kdrm_timeline_queue(ctx, t, ts, seqno);
  if (ev == KDRM_FENCE_EMIT) {
    if (!t->has_emit) {
      t->has_emit = 1;
      if (kdrm_queue_size(&t->pending)) {
        t->pending.head = t->pending.items.len = 0;
        if ((rc = model_slice_end(ctx, t->track, ts, &ended)) != 0) return rc;
      }
    }
    return kdrm_timeline_queue(ctx, t, ts, seqno);
  }
  if (!kdrm_queue_size(&t->pending) || seqno < kdrm_queue_front(&t->pending)) return WEFT_OK;
  kdrm_queue_pop(&t->pending);
  if ((rc = model_slice_end(ctx, t->track, ts, &ended)) != 0) return rc;
  return kdrm_queue_size(&t->pending) ? kdrm_timeline_begin(ctx, t, ts) : WEFT_OK;
}

int kdrm_fence_wait_start(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                          uint64_t context, uint64_t seqno) {
  uint32_t utid, track, slice;
  string_id name;
  int64_t args = -1;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = kdrm_name(ctx, "dma_fence_wait", &name);
  if (!rc) rc = kdrm_arg_uint(ctx, "fence context", context);
  if (!rc) rc = kdrm_arg_uint(ctx, "fence seqno", seqno);
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, args, &slice);
}

int kdrm_fence_wait_end(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid) {
  uint32_t utid, track;
  int64_t ended;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  return rc ? rc : model_slice_end(ctx, track, ts, &ended);
}
