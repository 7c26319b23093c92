/* Process/thread, track, slice and counter trackers (args: args.c). */
#include "model/model.h"

#include <assert.h>

#include "model/gkernel.h"
#include "model/heap_graph.h"
#include "model/android.h"
#include "model/atrace.h"
#include "model/kmem.h"
#include "model/ki2c.h"
#include "model/kpower.h"
#include "model/kdev.h"
#include "model/knet.h"
#include "model/kv4l2.h"
#include "model/kvirtio.h"
#include "model/stack_profile.h"
#include "model/stack_sample.h"
#include "model/v8_profile.h"
#include "model/etw.h"
#include "model/kdrm.h"
#include "model/gpu.h"
#include "model/kslice.h"
#include "model/frame_timeline.h"
#include "model/proto_content.h"

#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/flow.h"
#include "model/sched.h"

static uint64_t model_key2(uint64_t a, uint64_t b) {
  uint64_t parts[2] = {a, b};
  return base_hash_bytes(parts, sizeof parts) >> 1;
}

/* ---- processes and threads ---- */

/* Forgets every memoized thread lookup (live_threads or live_processes is
 * about to change). */
static void model_thread_memo_clear(model_state *m) {
  if (++m->thread_generation == 0) {
    if (m->thread_memo) memset(m->thread_memo, 0, MODEL_THREAD_MEMO * sizeof *m->thread_memo);
    if (m->membership_memo)
      memset(m->membership_memo, 0, MODEL_MEMBERSHIP_MEMO * sizeof *m->membership_memo);
    m->thread_generation = 1;
  }
}

static int model_new_process(trace_context *ctx, uint32_t machine, int64_t pid,
                             uint32_t *upid) {
  storage_table *t = ctx_table(ctx, TABLE_PROCESS);
  int rc = storage_table_append(t, upid);
  if (rc) return rc;
  storage_set_i64(t, PROCESS_pid, *upid, pid);
  int64_t m = model_machine_column(machine);
  if (m >= 0) storage_set_i64(t, PROCESS_machine_id, *upid, m);
  uint64_t *slot;
  model_thread_memo_clear(&ctx->model);
  rc = base_map_insert(&ctx->model.live_processes, model_key2(machine, (uint64_t)pid),
                       *upid, &slot);
  if (rc < 0) return rc;
  *slot = *upid;
  return WEFT_OK;
}

/* The memo slot of (machine, tid); NULL without a memo (out of memory). */
static model_thread_memo *model_thread_memo_slot(model_state *m, uint32_t machine,
                                                 int64_t tid) {
  if (!m->thread_memo) {
    m->thread_memo = base_calloc(MODEL_THREAD_MEMO, sizeof *m->thread_memo);
    if (!m->thread_memo) return NULL;
  }
  uint64_t h = ((uint64_t)tid * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)machine * 0xc2b2ae3d27d4eb4fULL);
  return &m->thread_memo[(h >> 40) & (MODEL_THREAD_MEMO - 1)];
}

static int model_new_thread(trace_context *ctx, uint32_t machine, int64_t tid,
                            uint32_t *utid) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  int rc = storage_table_append(t, utid);
  if (rc) return rc;
  storage_set_i64(t, THREAD_tid, *utid, tid);
  storage_set_i64(t, THREAD_is_idle, *utid, 0); /* 1 only for a machine's idle thread */
  int64_t m = model_machine_column(machine);
  if (m >= 0) storage_set_i64(t, THREAD_machine_id, *utid, m);
  model_state *ms = &ctx->model;
  if (VEC_RESERVE(ms->earlier_same_tid, (size_t)*utid + 1)) return WEFT_ENOMEM;
  while (ms->earlier_same_tid.len <= *utid) ms->earlier_same_tid.data[ms->earlier_same_tid.len++] = 0;
  uint64_t *slot;
  model_thread_memo_clear(ms);
  rc = base_map_insert(&ms->live_threads, model_key2(machine, (uint64_t)tid), *utid, &slot);
  if (rc < 0) return rc;
  /* rc 0: the key was there, *slot its newest thread (UINT32_MAX: none) */
  if (rc == 0 && *slot != UINT32_MAX) ms->earlier_same_tid.data[*utid] = (uint32_t)*slot + 1;
  *slot = *utid;
  return WEFT_OK;
}

/* Whether thread utid can still be the one its tid names: not ended, and
 * its process (if known) neither ended nor replaced by a newer process of
 * the same pid. */
static int model_thread_is_alive(trace_context *ctx, uint32_t utid) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  if (!storage_is_null(t, THREAD_end_ts, utid)) return 0;
  int64_t upid = storage_get_i64_or(t, THREAD_upid, utid, -1);
  if (upid < 0) return 1;
  storage_table *p = ctx_table(ctx, TABLE_PROCESS);
  if (!storage_is_null(p, PROCESS_end_ts, (size_t)upid)) return 0;
  int64_t pid = storage_get_i64(p, PROCESS_pid, (size_t)upid);
  int64_t machine = storage_get_i64_or(p, PROCESS_machine_id, (size_t)upid, 0);
  uint64_t *found = base_map_find(&ctx->model.live_processes,
                                  model_key2((uint64_t)machine, (uint64_t)pid));
  return !found || *found == (uint64_t)upid;
}

/* The thread made before utid for the same tid, or UINT32_MAX. */
static uint32_t model_thread_earlier(const model_state *m, uint32_t utid) {
  uint32_t earlier = utid < m->earlier_same_tid.len ? m->earlier_same_tid.data[utid] : 0;
  return earlier ? earlier - 1 : UINT32_MAX;
}

/* The idle process and thread (pid and tid 0) of a machine. */
static int model_new_idle(trace_context *ctx, uint32_t machine, uint32_t *utid) {
  uint32_t upid;
  int rc = model_new_process(ctx, machine, 0, &upid);
  if (!rc) rc = model_new_thread(ctx, machine, 0, utid);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  storage_set_i64(t, THREAD_upid, *utid, upid);
  storage_set_i64(t, THREAD_is_main_thread, *utid, 1);
  storage_set_i64(t, THREAD_is_idle, *utid, 1);
  return WEFT_OK;
}

int model_init(trace_context *ctx) {
  memset(&ctx->model, 0, sizeof ctx->model);
  ctx->model.thread_generation = 1;
  uint32_t utid; /* 0, row 0's until a machine begins */
  return model_new_idle(ctx, 0, &utid);
}

/* (row 0, 0) -> 0 becomes (machine, 0) -> 0 in a live map; row 0 is left
 * with none (UINT32_MAX). */
static int model_live_move(base_map *map, uint32_t machine) {
  uint64_t *from = base_map_find(map, model_key2(0, 0)), *to;
  assert(from && *from == 0); /* nothing is parsed before a machine begins */
  if (from) *from = UINT32_MAX;
  if (base_map_insert(map, model_key2(machine, 0), 0, &to) < 0) return WEFT_ENOMEM;
  *to = 0;
  return WEFT_OK;
}

/* Moves upid 0 and utid 0 (made on row 0) to `machine`. */
static int model_rebind_idle(trace_context *ctx, uint32_t machine) {
  int64_t column = model_machine_column(machine);
  storage_set_i64(ctx_table(ctx, TABLE_PROCESS), PROCESS_machine_id, 0, column);
  storage_set_i64(ctx_table(ctx, TABLE_THREAD), THREAD_machine_id, 0, column);
  model_thread_memo_clear(&ctx->model);
  int rc = model_live_move(&ctx->model.live_processes, machine);
  return rc ? rc : model_live_move(&ctx->model.live_threads, machine);
}

int model_machine_begin(trace_context *ctx, uint32_t machine) {
  model_state *m = &ctx->model;
  if (machine < m->idle_threads.len && m->idle_threads.data[machine]) return WEFT_OK;
  if (VEC_RESERVE(m->idle_threads, (size_t)machine + 1)) return WEFT_ENOMEM;
  while (m->idle_threads.len <= machine) m->idle_threads.data[m->idle_threads.len++] = 0;
  uint32_t utid = 0;
  int rc = WEFT_OK;
  if (!m->idle_bound) {
    m->idle_bound = 1;
    if (machine) rc = model_rebind_idle(ctx, machine);
  } else {
    rc = model_new_idle(ctx, machine, &utid);
  }
  if (!rc) m->idle_threads.data[machine] = utid + 1;
  return rc;
}

void model_free(model_state *m) {
  base_map_free(&m->live_threads);
  base_free(m->thread_memo);
  m->thread_memo = NULL;
  base_free(m->membership_memo);
  m->membership_memo = NULL;
  base_map_free(&m->live_processes);
  VEC_FREE(m->pending_joins);
  VEC_FREE(m->earlier_same_tid);
  VEC_FREE(m->idle_threads);
  VEC_FREE(m->thread_tracks);
  VEC_FREE(m->process_tracks);
  base_map_free(&m->keyed_tracks);
  VEC_FREE(m->stack_by_track);
  for (size_t i = 0; i < m->stack_list.len; i++) VEC_FREE(m->stack_list.data[i].slices);
  VEC_FREE(m->stack_list);
  base_map_free(&m->arg_sets);
  VEC_FREE(m->replaced_arg_sets);
  VEC_FREE(m->args_log);
  base_map_free(&m->cpu_rows);
  base_map_free(&m->track_groups);
  VEC_FREE(m->pending_args);
  flow_state_free(m->flow);
  m->flow = NULL;
  kernel_state_free(m->kernel);
  m->kernel = NULL;
  kslice_state_free(m->kslice);
  m->kslice = NULL;
  gkernel_state_free(m->gkernel);
  m->gkernel = NULL;
  kpower_state_free(m->kpower);
  ki2c_state_free(m->ki2c);
  m->kpower = NULL;
  heap_graph_state_free(m->heap_graph);
  m->heap_graph = NULL;
  stack_profile_state_free(m->stack_profile);
  m->stack_profile = NULL;
  stack_sample_state_free(m->stack_sample);
  m->stack_sample = NULL;
  v8_profile_state_free(m->v8_profile);
  m->v8_profile = NULL;
  etw_state_free(m->etw);
  m->etw = NULL;
  kdrm_state_free(m->kdrm);
  m->kdrm = NULL;
  knet_state_free(m->knet);
  m->knet = NULL;
  kdev_state_free(m->kdev);
  m->kdev = NULL;
  kv4l2_state_free(m->kv4l2);
  m->kv4l2 = NULL;
  kvirtio_state_free(m->kvirtio);
  m->kvirtio = NULL;
  gpu_state_free(m->gpu);
  m->gpu = NULL;
  android_fs_state_free(m->android_fs);
  m->android_fs = NULL;
  atrace_state_free(m->atrace);
  m->atrace = NULL;
  kmem_state_free(m->kmem);
  m->kmem = NULL;
  frame_timeline_state_free(m->frame_timeline);
  m->frame_timeline = NULL;
  proto_content_state_free(m->proto_content);
  m->proto_content = NULL;
  model_process_args_free(m);
}

int model_process(trace_context *ctx, uint32_t machine, int64_t pid,
                  uint32_t *upid) {
  uint64_t *found = base_map_find(&ctx->model.live_processes,
                                  model_key2(machine, (uint64_t)pid));
  if (found && *found != UINT32_MAX) {
    *upid = (uint32_t)*found;
    return WEFT_OK;
  }
  return model_new_process(ctx, machine, pid, upid);
}

int model_process_start(trace_context *ctx, uint32_t machine, int64_t pid,
                        int64_t ts, uint32_t *upid) {
  int rc = model_new_process(ctx, machine, pid, upid);
  if (!rc && ts >= 0)
    storage_set_i64(ctx_table(ctx, TABLE_PROCESS), PROCESS_start_ts, *upid, ts);
  return rc;
}

int model_thread(trace_context *ctx, uint32_t machine, int64_t tid,
                 uint32_t *utid) {
  model_state *m = &ctx->model;
  model_thread_memo *memo = model_thread_memo_slot(m, machine, tid);
  /* thread_generation >= 1: a zeroed slot never matches */
  if (memo && memo->generation == m->thread_generation && memo->tid == tid &&
      memo->machine == machine) {
    *utid = memo->utid;
    return WEFT_OK;
  }
  uint64_t *found = base_map_find(&m->live_threads, model_key2(machine, (uint64_t)tid));
  if (found && *found != UINT32_MAX) {
    *utid = (uint32_t)*found;
    if (!memo) return WEFT_OK;
    memo->tid = tid;
    memo->machine = machine;
    memo->utid = *utid;
    memo->generation = m->thread_generation;
    return WEFT_OK;
  }
  return model_new_thread(ctx, machine, tid, utid);
}

int model_thread_find(trace_context *ctx, uint32_t machine, int64_t tid,
                      uint32_t *utid) {
  uint64_t *found = base_map_find(&ctx->model.live_threads, model_key2(machine, (uint64_t)tid));
  if (!found || *found == UINT32_MAX) return 0;
  *utid = (uint32_t)*found;
  return 1;
}

int model_thread_start(trace_context *ctx, uint32_t machine, int64_t tid,
                       int64_t ts, uint32_t *utid) {
  int rc = model_new_thread(ctx, machine, tid, utid);
  if (!rc && ts >= 0)
    storage_set_i64(ctx_table(ctx, TABLE_THREAD), THREAD_start_ts, *utid, ts);
  return rc;
}

static int model_thread_in_process_lookup(trace_context *ctx, uint32_t machine, int64_t tid,
                                          int64_t pid, uint32_t *utid);

/* The memo slot of (machine, tid, pid); NULL without a memo. */
static model_membership_memo *model_membership_memo_slot(model_state *m, uint32_t machine,
                                                         int64_t tid, int64_t pid) {
  if (!m->membership_memo) {
    m->membership_memo = base_calloc(MODEL_MEMBERSHIP_MEMO, sizeof *m->membership_memo);
    if (!m->membership_memo) return NULL;
  }
  uint64_t h = ((uint64_t)tid * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)pid * 0x165667b19e3779f9ULL) ^
               ((uint64_t)machine * 0xc2b2ae3d27d4eb4fULL);
  return &m->membership_memo[(h >> 40) & (MODEL_MEMBERSHIP_MEMO - 1)];
}

int model_thread_in_process(trace_context *ctx, uint32_t machine, int64_t tid,
                            int64_t pid, uint32_t *utid) {
  model_state *m = &ctx->model;
  model_membership_memo *memo = model_membership_memo_slot(m, machine, tid, pid);
  /* thread_generation >= 1: a zeroed slot never matches */
  if (memo && memo->generation == m->thread_generation && memo->tid == tid &&
      memo->pid == pid && memo->machine == machine) {
    *utid = memo->utid;
    return WEFT_OK;
  }
  int rc = model_thread_in_process_lookup(ctx, machine, tid, pid, utid);
  if (rc || !memo) return rc;
  memo->tid = tid;
  memo->pid = pid;
  memo->machine = machine;
  memo->utid = *utid;
  memo->generation = m->thread_generation;
  return WEFT_OK;
}

/* Earlier threads of one tid a (tid, pid) lookup looks through: a tid
 * reused by ever more processes (only a hostile trace does that) costs a
 * new thread past this, never a walk over all of them per event. */
#define MODEL_EARLIER_THREADS_MAX 256

/* Of the threads made before `newest` for its tid, newest first, the first
 * alive one that is in no process yet or in a process of `pid`; UINT32_MAX
 * if none. */
static uint32_t model_thread_of_process(trace_context *ctx, uint32_t newest, int64_t pid) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  storage_table *p = ctx_table(ctx, TABLE_PROCESS);
  int steps = 0;
  for (uint32_t u = model_thread_earlier(&ctx->model, newest);
       u != UINT32_MAX && steps < MODEL_EARLIER_THREADS_MAX;
       u = model_thread_earlier(&ctx->model, u), steps++) {
    if (!model_thread_is_alive(ctx, u)) continue;
    int64_t upid = storage_get_i64_or(t, THREAD_upid, u, -1);
    if (upid < 0 || storage_get_i64(p, PROCESS_pid, (size_t)upid) == pid) return u;
  }
  return UINT32_MAX;
}

/* Makes `found`, a thread made before `newest` for the same (machine, tid),
 * the one the tid names from now on: it moves to the front of the tid's
 * threads. Perfetto's lookups behave so: once a (tid, pid) lookup picks an
 * older thread, later lookups by tid alone pick it too. */
static void model_thread_promote(trace_context *ctx, uint32_t machine, int64_t tid,
                                 uint32_t newest, uint32_t found) {
  model_state *m = &ctx->model;
  uint32_t before = newest; /* the thread whose earlier one is `found` */
  while (model_thread_earlier(m, before) != found) {
    before = model_thread_earlier(m, before);
    if (before == UINT32_MAX) return; /* not in the chain: leave it as it is */
  }
  m->earlier_same_tid.data[before] = m->earlier_same_tid.data[found];
  m->earlier_same_tid.data[found] = newest + 1;
  uint64_t *slot = base_map_find(&m->live_threads, model_key2(machine, (uint64_t)tid));
  assert(slot && *slot == newest);
  *slot = found;
  model_thread_memo_clear(m);
}

/* model_thread_in_process without the memo. */
static int model_thread_in_process_lookup(trace_context *ctx, uint32_t machine, int64_t tid,
                                          int64_t pid, uint32_t *utid) {
  uint32_t upid;
  int rc = model_thread(ctx, machine, tid, utid);
  if (!rc) rc = model_process(ctx, machine, pid, &upid);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  int64_t current = storage_get_i64_or(t, THREAD_upid, *utid, -1);
  if (current >= 0 && current != upid) {
    /* The newest thread of this tid is another process's: an earlier one
     * still alive may be this process's (or of no process yet); else the
     * tid is new to the process, a new thread. */
    uint32_t found = model_thread_of_process(ctx, *utid, pid);
    if (found != UINT32_MAX) {
      model_thread_promote(ctx, machine, tid, *utid, found);
      *utid = found;
      current = storage_get_i64_or(t, THREAD_upid, found, -1);
    } else {
      rc = model_new_thread(ctx, machine, tid, utid);
      if (rc) return rc;
      current = -1;
    }
  }
  if (current < 0) model_thread_attach(ctx, *utid, upid);
  else if (tid == pid) storage_set_i64(t, THREAD_is_main_thread, *utid, 1);
  return WEFT_OK;
}

int model_thread_update(trace_context *ctx, uint32_t machine, int64_t tid, int64_t pid,
                        uint32_t *utid) {
  uint32_t upid;
  if (tid != pid && model_process_find(ctx, machine, pid, &upid) != 1) {
    int rc = model_process(ctx, machine, pid, &upid);
    if (!rc) rc = model_thread_in_process(ctx, machine, pid, pid, utid);
    if (rc) return rc;
  }
  return model_thread_in_process(ctx, machine, tid, pid, utid);
}

int model_process_and_main_thread(trace_context *ctx, uint32_t machine, int64_t pid,
                                  uint32_t *upid) {
  uint32_t utid;
  if (model_process_find(ctx, machine, pid, upid) == 1) return WEFT_OK;
  int rc = model_process(ctx, machine, pid, upid);
  return rc ? rc : model_thread_in_process(ctx, machine, pid, pid, &utid);
}

static void model_thread_set_process(trace_context *ctx, uint32_t utid, uint32_t upid) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  int64_t pid = storage_get_i64(ctx_table(ctx, TABLE_PROCESS), PROCESS_pid, upid);
  storage_set_i64(t, THREAD_upid, utid, upid);
  storage_set_i64(t, THREAD_is_main_thread, utid, storage_get_i64(t, THREAD_tid, utid) == pid);
}

void model_thread_attach(trace_context *ctx, uint32_t utid, uint32_t upid) {
  model_state *m = &ctx->model;
  model_thread_set_process(ctx, utid, upid);
  /* A pair waiting on a newly attached thread attaches its other thread,
   * which may free more pairs: repeat until a pass attaches nothing. The
   * list only holds threads of processes not yet seen, so it stays short. */
  int changed = m->pending_joins.len > 0;
  while (changed) {
    changed = 0;
    storage_table *t = ctx_table(ctx, TABLE_THREAD);
    for (size_t i = 0; i < m->pending_joins.len;) {
      model_thread_pair p = m->pending_joins.data[i];
      int64_t ua = storage_get_i64_or(t, THREAD_upid, p.a, -1);
      int64_t ub = storage_get_i64_or(t, THREAD_upid, p.b, -1);
      if (ua < 0 && ub < 0) {
        i++;
        continue;
      }
      if (ua < 0) model_thread_set_process(ctx, p.a, (uint32_t)ub);
      if (ub < 0) model_thread_set_process(ctx, p.b, (uint32_t)ua);
      m->pending_joins.data[i] = m->pending_joins.data[--m->pending_joins.len];
      changed = 1;
    }
  }
}

int model_threads_join(trace_context *ctx, uint32_t a, uint32_t b) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  int64_t ua = storage_get_i64_or(t, THREAD_upid, a, -1);
  int64_t ub = storage_get_i64_or(t, THREAD_upid, b, -1);
  if (ua >= 0 && ub >= 0) return ua != ub;
  if (ua >= 0) model_thread_attach(ctx, b, (uint32_t)ua);
  else if (ub >= 0) model_thread_attach(ctx, a, (uint32_t)ub);
  else {
    model_thread_pair p = {a, b};
    return VEC_PUSH(ctx->model.pending_joins, p);
  }
  return WEFT_OK;
}

int model_thread_set_name(trace_context *ctx, uint32_t utid, const char *name,
                          size_t len) {
  string_id id;
  int rc = ctx_intern(ctx, name, len, &id);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_THREAD), THREAD_name, utid, id);
  return rc;
}

int model_process_set_name(trace_context *ctx, uint32_t upid, const char *name,
                           size_t len) {
  string_id id;
  int rc = ctx_intern(ctx, name, len, &id);
  if (!rc) storage_set_str(ctx_table(ctx, TABLE_PROCESS), PROCESS_name, upid, id);
  return rc;
}

void model_process_set_start_if_unset(trace_context *ctx, uint32_t upid, int64_t ts) {
  storage_table *t = ctx_table(ctx, TABLE_PROCESS);
  if (storage_is_null(t, PROCESS_start_ts, upid)) storage_set_i64(t, PROCESS_start_ts, upid, ts);
}

void model_process_set_args(trace_context *ctx, uint32_t upid, int64_t arg_set) {
  storage_table *t = ctx_table(ctx, TABLE_PROCESS);
  if (arg_set >= 0) storage_set_i64(t, PROCESS_arg_set_id, upid, arg_set);
  else storage_set_null(t, PROCESS_arg_set_id, upid);
}

int model_process_find(trace_context *ctx, uint32_t machine, int64_t pid,
                       uint32_t *upid) {
  uint64_t *found = base_map_find(&ctx->model.live_processes,
                                  model_key2(machine, (uint64_t)pid));
  if (!found || *found == UINT32_MAX) return 0;
  *upid = (uint32_t)*found;
  return 1;
}

void model_process_end(trace_context *ctx, uint32_t upid, int64_t ts) {
  storage_table *t = ctx_table(ctx, TABLE_PROCESS);
  storage_set_i64(t, PROCESS_end_ts, upid, ts);
  int64_t pid = storage_get_i64(t, PROCESS_pid, upid);
  int64_t machine = storage_get_i64_or(t, PROCESS_machine_id, upid, 0);
  uint64_t *found = base_map_find(&ctx->model.live_processes,
                                  model_key2((uint64_t)machine, (uint64_t)pid));
  if (found && *found == upid) {
    model_thread_memo_clear(&ctx->model);
    *found = UINT32_MAX; /* dead: recreate on use */
  }
}

void model_thread_end(trace_context *ctx, uint32_t utid, int64_t ts) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  storage_set_i64(t, THREAD_end_ts, utid, ts);
  int64_t tid = storage_get_i64(t, THREAD_tid, utid);
  int64_t machine = storage_get_i64_or(t, THREAD_machine_id, utid, 0);
  uint64_t *found = base_map_find(&ctx->model.live_threads,
                                  model_key2((uint64_t)machine, (uint64_t)tid));
  if (found && *found == utid) {
    model_thread_memo_clear(&ctx->model);
    *found = UINT32_MAX; /* dead: recreate on use */
  }
}

/* ---- tracks ---- */

void model_track_spec_init(model_track_spec *s) {
  memset(s, 0, sizeof *s);
  s->utid = s->upid = s->cpu = s->cpu_number = s->parent_id = s->compressor_idx = -1;
}

/* The key of a track of spec s in trace file `trace` (each file has tracks
 * of its own, as each of Perfetto's per-file contexts interns its own): a
 * hash of the spec's numbers, the file, type and name, laid out one after
 * another (in a stack buffer unless the strings are long). */
static uint64_t model_track_key(const model_track_spec *s, int64_t trace) {
  int64_t nums[9] = {s->is_counter, s->machine, s->utid, s->upid, s->cpu,
                     s->parent_id, (int64_t)s->extra_key, s->compressor_idx, trace};
  const char *type = s->type ? s->type : "", *name = s->name ? s->name : "\x01";
  size_t type_len = s->type ? strlen(s->type) + 1 : 1, name_len = s->name ? strlen(s->name) + 1 : 1;
  size_t len = sizeof nums + type_len + name_len;
  char local[256];
  char *key = len <= sizeof local ? local : base_malloc(len);
  if (!key) return UINT64_MAX >> 1; /* no memory: a key every such track shares */
  memcpy(key, nums, sizeof nums);
  memcpy(key + sizeof nums, type, type_len);
  memcpy(key + sizeof nums + type_len, name, name_len);
  uint64_t h = base_hash_bytes(key, len) >> 1;
  if (key != local) base_free(key);
  return h;
}

/* The spec's dim_key arg (a string, a NULL string, else an int), if any. */
static int model_track_dim(trace_context *ctx, const model_track_spec *s) {
  if (!s->dim_key) return WEFT_OK;
  if (s->dim_null) return model_arg_string(ctx, s->dim_key, strlen(s->dim_key), NULL, 0,
                                           MODEL_ARG_STRING);
  if (s->dim_str)
    return model_arg_string(ctx, s->dim_key, strlen(s->dim_key), s->dim_str,
                            strlen(s->dim_str), MODEL_ARG_STRING);
  return model_arg_int(ctx, s->dim_key, strlen(s->dim_key), MODEL_ARG_INT, s->dim_int);
}

static int model_track_dimensions(trace_context *ctx, const model_track_spec *s,
                                  int64_t *arg_set) {
  int rc = s->dim_first == 2 ? model_track_dim(ctx, s) : WEFT_OK;
  if (!rc && s->utid >= 0) rc = model_arg_int(ctx, "utid", 4, MODEL_ARG_INT, s->utid);
  if (!rc && s->upid >= 0) rc = model_arg_int(ctx, "upid", 4, MODEL_ARG_INT, s->upid);
  if (!rc && s->cpu >= 0)
    rc = model_arg_int(ctx, "cpu", 3, MODEL_ARG_INT, s->cpu_number >= 0 ? s->cpu_number : s->cpu);
  if (!rc && s->dim_first == 1) rc = model_track_dim(ctx, s);
  if (!rc && s->compressor_idx >= 0)
    rc = model_arg_int(ctx, "track_compressor_idx", 20, MODEL_ARG_INT, s->compressor_idx);
  if (!rc && !s->dim_first) rc = model_track_dim(ctx, s);
  if (!rc && s->dim2_key && s->dim2_str)
    rc = model_arg_string(ctx, s->dim2_key, strlen(s->dim2_key), s->dim2_str,
                          strlen(s->dim2_str), MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(ctx, arg_set);
  return rc;
}

static int model_track_source(trace_context *ctx, const model_track_spec *s, int64_t *arg_set) {
  if (!s->source) return WEFT_OK;
  const char *key = s->source_key ? s->source_key : "source";
  int rc = model_arg_string(ctx, key, strlen(key), s->source, strlen(s->source), MODEL_ARG_STRING);
  return rc ? rc : model_args_commit(ctx, arg_set);
}

static int model_set_optional_str(trace_context *ctx, storage_table *t, size_t col,
                                  uint32_t row, const char *s) {
  if (!s) return WEFT_OK;
  string_id id;
  int rc = ctx_intern(ctx, s, strlen(s), &id);
  if (!rc) storage_set_str(t, col, row, id);
  return rc;
}

uint64_t model_track_group_key(const void *owner, uint64_t set) {
  return base_hash_u64(base_hash_u64((uint64_t)(uintptr_t)owner) ^ set) >> 1 | 1;
}

/* The track's track_group_id from its spec's group key, if it has one. */
static int model_track_group(trace_context *ctx, const model_track_spec *s, uint32_t track) {
  if (!s->group_key) return WEFT_OK;
  base_map *groups = &ctx->model.track_groups;
  uint64_t *id;
  if (base_map_insert(groups, s->group_key, groups->count, &id) < 0) return WEFT_ENOMEM;
  return storage_set_i64(ctx_table(ctx, TABLE_TRACK), TRACK_track_group_id, track, (int64_t)*id);
}

static int model_new_track(trace_context *ctx, const model_track_spec *s,
                           uint32_t *track) {
  storage_table *t = ctx_table(ctx, TABLE_TRACK);
  int64_t dims = -1, source = -1;
  int rc = s->own_dims ? WEFT_OK : model_track_dimensions(ctx, s, &dims);
  if (!rc) rc = model_track_source(ctx, s, &source);
  if (!rc) rc = storage_table_append(t, track);
  if (!rc) rc = model_set_optional_str(ctx, t, TRACK_name, *track, s->name);
  if (!rc) rc = model_set_optional_str(ctx, t, TRACK_type, *track, s->type);
  if (!rc) rc = model_set_optional_str(ctx, t, TRACK_event_type, *track,
                                       s->is_counter ? "counter" : "slice");
  if (!rc) rc = model_set_optional_str(ctx, t, TRACK_counter_unit, *track, s->unit);
  if (rc) return rc;
  if (dims >= 0) storage_set_i64(t, TRACK_dimension_arg_set_id, *track, dims);
  if (source >= 0) storage_set_i64(t, TRACK_source_arg_set_id, *track, source);
  if (s->parent_id >= 0) storage_set_i64(t, TRACK_parent_id, *track, s->parent_id);
  int64_t m = model_machine_column(s->machine);
  if (m >= 0) storage_set_i64(t, TRACK_machine_id, *track, m);
  if (s->utid >= 0) storage_set_i64(t, TRACK_utid, *track, s->utid);
  if (s->upid >= 0) storage_set_i64(t, TRACK_upid, *track, s->upid);
  if (s->cpu >= 0) storage_set_i64(t, TRACK_cpu, *track, s->cpu);
  return model_track_group(ctx, s, *track);
}

/* Notes a set a row stopped using (see model_args_finalize); if it
 * cannot be noted, the set is kept. */
static void model_args_note_replaced(trace_context *ctx, int64_t old, int64_t now) {
  if (old >= 0 && old != now) (void)VEC_PUSH(ctx->model.replaced_arg_sets, old);
}

void model_track_set_arg_sets(trace_context *ctx, uint32_t track, int64_t dims, int64_t src) {
  storage_table *t = ctx_table(ctx, TABLE_TRACK);
  if (dims >= 0) {
    model_args_note_replaced(ctx, storage_get_i64_or(t, TRACK_dimension_arg_set_id, track, -1),
                             dims);
    storage_set_i64(t, TRACK_dimension_arg_set_id, track, dims);
  }
  if (src >= 0) {
    model_args_note_replaced(ctx, storage_get_i64_or(t, TRACK_source_arg_set_id, track, -1), src);
    storage_set_i64(t, TRACK_source_arg_set_id, track, src);
  }
}

int model_track(trace_context *ctx, const model_track_spec *spec,
                uint32_t *track) {
  uint64_t key = model_track_key(spec, ctx->model.scope_trace);
  uint64_t *found = base_map_find(&ctx->model.keyed_tracks, key);
  if (found) {
    *track = (uint32_t)*found;
    return WEFT_OK;
  }
  int rc = model_new_track(ctx, spec, track);
  if (rc) return rc;
  return base_map_insert(&ctx->model.keyed_tracks, key, *track, NULL) < 0
             ? WEFT_ENOMEM : WEFT_OK;
}

uint32_t model_idle_thread(const trace_context *ctx, uint32_t machine) {
  const model_state *m = &ctx->model;
  if (machine < m->idle_threads.len && m->idle_threads.data[machine])
    return m->idle_threads.data[machine] - 1;
  return !m->idle_bound && machine == 0 ? 0 : UINT32_MAX; /* row 0's until a machine begins */
}

int model_name_idle_thread(trace_context *ctx, uint32_t machine) {
  uint32_t utid = model_idle_thread(ctx, machine);
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  if (utid >= t->row_count || !storage_is_null(t, THREAD_name, utid)) return WEFT_OK;
  return model_thread_set_name(ctx, utid, "swapper", 7);
}

/* ---- slices ---- */

model_stack *model_stack_find(trace_context *ctx, uint32_t track) {
  const model_state *m = &ctx->model;
  if (track >= m->stack_by_track.len || !m->stack_by_track.data[track]) return NULL;
  return &m->stack_list.data[m->stack_by_track.data[track] - 1];
}

int model_stack_entry_matches_row(trace_context *ctx, const model_stack *st, size_t i) {
  const storage_table *t = ctx_table(ctx, TABLE_SLICE);
  if (storage_table_status(t)) return 1; /* a setter failed: so will the load */
  const model_stack_entry *e = &st->slices.data[i];
  int parent_ok = i == 0 ? storage_is_null(t, SLICE_parent_id, e->slice)
                          : storage_get_i64_or(t, SLICE_parent_id, e->slice, -1) ==
                                st->slices.data[i - 1].slice;
  return parent_ok && storage_get_i64(t, SLICE_depth, e->slice) == (int64_t)i &&
         storage_get_i64(t, SLICE_ts, e->slice) == e->ts &&
         (e->dur < 0 || storage_get_i64(t, SLICE_dur, e->slice) == e->dur);
}

/* The slice stack of a track, created empty on first use. */
static model_stack *model_stack_for(trace_context *ctx, uint32_t track) {
  model_stack *found = model_stack_find(ctx, track);
  if (found) return found;
  model_state *m = &ctx->model;
  if (track >= m->stack_by_track.len) {
    if (track == UINT32_MAX || VEC_RESERVE(m->stack_by_track, (size_t)track + 1)) return NULL;
    memset(m->stack_by_track.data + m->stack_by_track.len, 0,
           ((size_t)track + 1 - m->stack_by_track.len) * sizeof *m->stack_by_track.data);
    m->stack_by_track.len = (size_t)track + 1;
  }
  model_stack empty = {0};
  if (m->stack_list.len >= UINT32_MAX - 1 || VEC_PUSH(m->stack_list, empty)) return NULL;
  m->stack_by_track.data[track] = (uint32_t)m->stack_list.len;
  return &m->stack_list.data[m->stack_list.len - 1];
}

/* Perfetto's rule (see model.h): from the top down, a complete slice with
 * a still-open slice above it that ended before ts closes those above it at
 * its end, and they all leave the stack. Complete slices with nothing open
 * above them are left to model_stack_pop_ended. */
int model_stack_close_orphans(trace_context *ctx, model_stack *st, int64_t ts) {
  int open_above = 0;
  for (size_t i = st->slices.len; i-- > 0;) {
    const model_stack_entry *e = &st->slices.data[i];
    if (e->dur < 0) {
      open_above = 1;
      continue;
    }
    int64_t end = e->ts + e->dur;
    if (!open_above || end >= ts) continue;
    storage_table *t = ctx_table(ctx, TABLE_SLICE);
    for (size_t j = i + 1; j < st->slices.len; j++) {
      model_stack_entry *x = &st->slices.data[j];
      if (x->dur >= 0) continue;
      x->dur = end > x->ts ? end - x->ts : 0;
      storage_set_i64(t, SLICE_dur, x->slice, x->dur);
    }
    int rc = model_stack_truncate(ctx, st, i);
    if (rc) return rc;
    open_above = 0;
    rc = stats_add(&ctx->stats, stat_misplaced_end_event, -1, ctx->model.scope_machine,
                       ctx->model.scope_trace, 1);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int model_stack_truncate(trace_context *ctx, model_stack *st, size_t len) {
  assert(len <= st->slices.len);
  while (st->slices.len > len) {
    uint32_t slice = st->slices.data[--st->slices.len].slice;
    int rc = model_args_note_pop(ctx, slice);
    if (rc) return rc;
  }
  return WEFT_OK;
}

static int model_stack_pop_ended(trace_context *ctx, model_stack *st, int64_t ts,
                                 int64_t new_dur) {
  size_t n = st->slices.len;
  while (n) {
    const model_stack_entry *top = &st->slices.data[n - 1];
    int64_t end = top->ts + top->dur;
    if (top->dur < 0 || end > ts || (end == ts && top->dur == 0 && new_dur == 0)) break;
    n--;
  }
  return model_stack_truncate(ctx, st, n);
}

static int model_slice_push(trace_context *ctx, uint32_t track, int64_t ts,
                            int64_t dur, string_id category, string_id name,
                            int64_t arg_set, uint32_t *slice) {
  model_stack *st = model_stack_for(ctx, track);
  if (!st) return WEFT_ENOMEM;
  int rc = model_stack_close_orphans(ctx, st, ts);
  if (!rc) rc = model_stack_pop_ended(ctx, st, ts, dur);
  if (rc) return rc;
  /* model.h: the new slice nests in the slices still open at ts, its
   * parent the top of the stack, which agrees with its row. */
  assert(!st->slices.len || (st->slices.data[st->slices.len - 1].ts <= ts &&
                             model_stack_entry_matches_row(ctx, st, st->slices.len - 1)));
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  rc = storage_table_append(t, slice);
  if (rc) return rc;
  storage_set_i64(t, SLICE_ts, *slice, ts);
  storage_set_i64(t, SLICE_dur, *slice, dur);
  storage_set_i64(t, SLICE_track_id, *slice, track);
  storage_set_str(t, SLICE_category, *slice, category);
  storage_set_str(t, SLICE_name, *slice, name);
  storage_set_i64(t, SLICE_depth, *slice, (int64_t)st->slices.len);
  if (st->slices.len)
    storage_set_i64(t, SLICE_parent_id, *slice, st->slices.data[st->slices.len - 1].slice);
  if (arg_set >= 0) storage_set_i64(t, SLICE_arg_set_id, *slice, arg_set);
  ctx_extend_bounds(ctx, ts);
  if (dur > 0) ctx_extend_bounds(ctx, ts + dur);
  model_stack_entry entry = {ts, dur, *slice};
  rc = VEC_PUSH(st->slices, entry);
  assert(rc || model_stack_entry_matches_row(ctx, st, st->slices.len - 1));
  return rc ? rc : flow_slice_started(ctx, track, *slice);
}

int model_slice_begin(trace_context *ctx, uint32_t track, int64_t ts,
                      string_id category, string_id name, int64_t arg_set,
                      uint32_t *slice) {
  return model_slice_push(ctx, track, ts, -1, category, name, arg_set, slice);
}

int model_slice_complete(trace_context *ctx, uint32_t track, int64_t ts,
                         int64_t dur, string_id category, string_id name,
                         int64_t arg_set, uint32_t *slice) {
  return model_slice_push(ctx, track, ts, dur < 0 ? 0 : dur, category, name,
                          arg_set, slice);
}

int model_slice_end(trace_context *ctx, uint32_t track, int64_t ts,
                    int64_t *slice) {
  *slice = -1;
  /* a track that never had a slice has nothing to end (and, as Perfetto's
   * slice tracker, gets no stack for it) */
  model_stack *st = model_stack_find(ctx, track);
  if (!st) return WEFT_OK;
  int rc = model_stack_close_orphans(ctx, st, ts);
  if (!rc) rc = model_stack_pop_ended(ctx, st, ts, -1);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  /* The innermost slice still open (unknown duration) is the one ending. */
  while (st->slices.len) {
    assert(model_stack_entry_matches_row(ctx, st, st->slices.len - 1));
    const model_stack_entry *top = &st->slices.data[st->slices.len - 1];
    int64_t top_ts = top->ts, top_dur = top->dur;
    uint32_t top_slice = top->slice;
    rc = model_stack_truncate(ctx, st, st->slices.len - 1);
    if (rc) return rc;
    if (top_dur >= 0) continue;
    storage_set_i64(t, SLICE_dur, top_slice, ts - top_ts);
    ctx_extend_bounds(ctx, ts);
    *slice = top_slice;
    break;
  }
  return WEFT_OK;
}

void model_slice_set_args(trace_context *ctx, uint32_t slice, int64_t arg_set) {
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  if (arg_set < 0) return;
  int64_t old = storage_get_i64_or(t, SLICE_arg_set_id, slice, -1);
  storage_set_i64(t, SLICE_arg_set_id, slice, arg_set);
  model_args_note_replaced(ctx, old, arg_set); /* may be left unused */
}
