/* The generic kernel model: task state events to thread states, sched
 * slices and thread lifetimes. See gkernel.h. */
#include "model/gkernel.h"

#include <string.h>

#include "model/columns.h"
#include "model/context.h"
#include "model/model.h"
#include "model/sched_internal.h"

enum {
  GK_UNKNOWN, GK_CREATED, GK_RUNNABLE, GK_RUNNING, GK_SLEEP, GK_UNINTERRUPTIBLE,
  GK_STOPPED, GK_DEAD, GK_DESTROYED, GK_STATE_COUNT
};

static const char *const gkernel_state_names[GK_STATE_COUNT] = {
    "Unknown", "Created", "R", "Running", "S", "D", "T", "Z", "X"};

/* A thread's state in one file. */
typedef struct gkernel_thread {
  int64_t last_row;      /* last thread_state row, -1: none */
  int64_t hanging_slice; /* sched row it was switched out of, -1: none */
  uint32_t owner;        /* trace + 1 of the file it is of; 0: none yet */
} gkernel_thread;

typedef struct gkernel_cpu {
  int64_t slice; /* the open sched row, -1: none */
  int64_t tid;
  uint32_t utid;
} gkernel_cpu;

struct gkernel_state {
  string_id states[GK_STATE_COUNT];
  /* Each file keeps its own running tasks and thread states (as each of
   * Perfetto's importer contexts does). */
  VEC(gkernel_thread) threads; /* by utid, of the first file to use it */
  base_map thread_other;       /* trace << 32 | utid -> index into other */
  VEC(gkernel_thread) other;   /* threads of the other files */
  VEC(gkernel_cpu) cpus;
  base_map cpu_index; /* trace << 32 | ucpu -> index into cpus */
};

void gkernel_state_free(gkernel_state *g) {
  if (!g) return;
  VEC_FREE(g->threads);
  VEC_FREE(g->other);
  base_map_free(&g->thread_other);
  VEC_FREE(g->cpus);
  base_map_free(&g->cpu_index);
  base_free(g);
}

static int gkernel_get(trace_context *ctx, uint32_t machine, gkernel_state **out) {
  kernel_state *k;
  int rc = kernel_get(ctx, machine, &k); /* names the swapper, as kernel data does */
  if (rc) return rc;
  if (!ctx->model.gkernel) {
    gkernel_state *g = base_calloc(1, sizeof *g);
    if (!g) return WEFT_ENOMEM;
    for (int i = 0; i < GK_STATE_COUNT; i++) {
      if (ctx_intern(ctx, gkernel_state_names[i], strlen(gkernel_state_names[i]),
                     &g->states[i])) {
        gkernel_state_free(g);
        return WEFT_ENOMEM;
      }
    }
    ctx->model.gkernel = g;
  }
  *out = ctx->model.gkernel;
  return WEFT_OK;
}

/* Thread utid's state in file `trace`, created empty on first use; NULL
 * when out of memory. Valid until the next call. */
static gkernel_thread *gkernel_thread_of(gkernel_state *g, uint32_t trace, uint32_t utid) {
  gkernel_thread none = {-1, -1, trace + 1};
  if (utid >= g->threads.len) {
    if (VEC_RESERVE(g->threads, (size_t)utid + 1)) return NULL;
    while (g->threads.len <= utid) {
      gkernel_thread unused = {-1, -1, 0};
      g->threads.data[g->threads.len++] = unused;
    }
  }
  gkernel_thread *t = &g->threads.data[utid];
  if (!t->owner) t->owner = trace + 1;
  if (t->owner == trace + 1) return t;
  uint64_t key = (uint64_t)trace << 32 | utid;
  uint64_t *found = base_map_find(&g->thread_other, key);
  if (found) return &g->other.data[*found];
  if (VEC_PUSH(g->other, none)) return NULL;
  if (base_map_insert(&g->thread_other, key, g->other.len - 1, NULL) < 0) return NULL;
  return &g->other.data[g->other.len - 1];
}

static gkernel_cpu *gkernel_cpu_of(gkernel_state *g, uint32_t trace, uint32_t ucpu) {
  uint64_t key = (uint64_t)trace << 32 | ucpu;
  uint64_t *found = base_map_find(&g->cpu_index, key);
  if (found) return &g->cpus.data[*found];
  gkernel_cpu c = {-1, 0, 0};
  if (VEC_PUSH(g->cpus, c)) return NULL;
  if (base_map_insert(&g->cpu_index, key, g->cpus.len - 1, NULL) < 0) return NULL;
  return &g->cpus.data[g->cpus.len - 1];
}

/* The state of the thread's last row in file `trace`, STRING_NULL if none
 * (or out of memory). */
static string_id gkernel_last_state(trace_context *ctx, gkernel_state *g, uint32_t trace,
                                    uint32_t utid) {
  gkernel_thread *t = gkernel_thread_of(g, trace, utid);
  if (!t || t->last_row < 0) return STRING_NULL;
  return storage_get_str(ctx_table(ctx, TABLE_THREAD_STATE), THREAD_STATE_state,
                         (size_t)t->last_row);
}

/* ---- thread_state rows ---- */

/* Closes the thread's last row at ts and opens one in `state` (ucpu < 0:
 * none). */
static int gkernel_push_state(trace_context *ctx, gkernel_state *g, const kernel_scope *s,
                              int64_t ts, uint32_t utid, string_id state, int64_t ucpu) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD_STATE);
  gkernel_thread *th = gkernel_thread_of(g, s->trace, utid);
  if (!th) return WEFT_ENOMEM;
  if (th->last_row >= 0) {
    int64_t last_ts = storage_get_i64(t, THREAD_STATE_ts, (size_t)th->last_row);
    storage_set_i64(t, THREAD_STATE_dur, (size_t)th->last_row, ts - last_ts);
    if (last_ts == ts) kernel_stat(ctx, s, stat_generic_task_state_invalid_order, 1);
  }
  ctx_extend_bounds(ctx, ts);
  if (storage_get_i64(ctx_table(ctx, TABLE_THREAD), THREAD_tid, utid) == 0) return WEFT_OK;
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, THREAD_STATE_ts, row, ts);
  storage_set_i64(t, THREAD_STATE_dur, row, -1);
  storage_set_i64(t, THREAD_STATE_utid, row, utid);
  if (state != STRING_NULL) storage_set_str(t, THREAD_STATE_state, row, state);
  if (ucpu >= 0) storage_set_i64(t, THREAD_STATE_ucpu, row, ucpu);
  th->last_row = row;
  return WEFT_OK;
}

/* ---- sched slices ---- */

static int gkernel_open_slice(trace_context *ctx, int64_t ts, uint32_t ucpu, uint32_t utid,
                              int64_t prio, int64_t *row_out) {
  storage_table *t = ctx_table(ctx, TABLE_SCHED);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, SCHED_ts, row, ts);
  storage_set_i64(t, SCHED_dur, row, -1);
  storage_set_i64(t, SCHED_utid, row, utid);
  storage_set_i64(t, SCHED_priority, row, prio);
  storage_set_i64(t, SCHED_ucpu, row, ucpu);
  *row_out = row;
  return WEFT_OK;
}

static void gkernel_close_slice(trace_context *ctx, int64_t row, int64_t ts,
                                string_id end_state) {
  storage_table *t = ctx_table(ctx, TABLE_SCHED);
  storage_set_i64(t, SCHED_dur, (size_t)row, ts - storage_get_i64(t, SCHED_ts, (size_t)row));
  if (end_state != STRING_NULL) storage_set_str(t, SCHED_end_state, (size_t)row, end_state);
}

/* Whether the sched row ends at ts. */
static int gkernel_slice_ends_at(trace_context *ctx, int64_t row, int64_t ts) {
  storage_table *t = ctx_table(ctx, TABLE_SCHED);
  return storage_get_i64(t, SCHED_ts, (size_t)row) + storage_get_i64(t, SCHED_dur, (size_t)row) ==
         ts;
}

/* RUNNING on the cpu: the running task (if any) is switched out with an
 * unknown state, the new one's slice opens. */
static int gkernel_switch_in(trace_context *ctx, gkernel_state *g, const kernel_scope *s,
                             const gkernel_task_event *e, uint32_t utid, uint32_t ucpu) {
  gkernel_cpu *c = gkernel_cpu_of(g, s->trace, ucpu);
  if (!c) return WEFT_ENOMEM;
  if (c->slice >= 0) {
    uint32_t prev = c->utid;
    gkernel_close_slice(ctx, c->slice, e->ts, STRING_NULL);
    gkernel_thread *pt = gkernel_thread_of(g, s->trace, prev);
    if (!pt) return WEFT_ENOMEM;
    pt->hanging_slice = c->slice;
    int rc = gkernel_push_state(ctx, g, s, e->ts, prev, STRING_NULL, -1);
    if (rc) return rc;
    c = gkernel_cpu_of(g, s->trace, ucpu);
  }
  int64_t row;
  int rc = gkernel_open_slice(ctx, e->ts, ucpu, utid, e->prio, &row);
  if (rc) return rc;
  c->slice = row;
  c->tid = e->tid;
  c->utid = utid;
  return gkernel_push_state(ctx, g, s, e->ts, utid, g->states[GK_RUNNING], ucpu);
}

/* A non-running state: ends the task's slice on the cpu, or names the end
 * state of the slice it was switched out of at this ts. */
static int gkernel_switch_out(trace_context *ctx, gkernel_state *g, const kernel_scope *s,
                              const gkernel_task_event *e, uint32_t utid, uint32_t ucpu,
                              string_id state) {
  gkernel_cpu *c = gkernel_cpu_of(g, s->trace, ucpu);
  if (!c) return WEFT_ENOMEM;
  if (c->slice >= 0 && c->tid == e->tid) {
    gkernel_close_slice(ctx, c->slice, e->ts, state);
    c->slice = -1;
    return gkernel_push_state(ctx, g, s, e->ts, utid, state, -1);
  }
  gkernel_thread *th = gkernel_thread_of(g, s->trace, utid);
  if (!th) return WEFT_ENOMEM;
  if (th->hanging_slice >= 0 && gkernel_slice_ends_at(ctx, th->hanging_slice, e->ts)) {
    storage_set_str(ctx_table(ctx, TABLE_SCHED), SCHED_end_state, (size_t)th->hanging_slice,
                    state);
    th->hanging_slice = -1;
    if (th->last_row >= 0)
      storage_set_str(ctx_table(ctx, TABLE_THREAD_STATE), THREAD_STATE_state,
                      (size_t)th->last_row, state);
    return WEFT_OK;
  }
  return gkernel_push_state(ctx, g, s, e->ts, utid, state, -1);
}

/* ---- threads ---- */

static int gkernel_live_thread(trace_context *ctx, uint32_t machine, int64_t tid,
                               uint32_t *utid) {
  /* model_thread on a tid with no live thread would create one: look first */
  return model_thread_find(ctx, machine, tid, utid);
}

static int gkernel_named_thread(trace_context *ctx, const kernel_scope *s,
                                const gkernel_task_event *e, uint32_t *utid) {
  return sched_thread(ctx, s->machine, e->tid, e->comm_len ? e->comm : NULL, e->comm_len,
                      utid);
}

/* The thread the event is about, or 0 when the event is dropped (counted). */
static int gkernel_event_thread(trace_context *ctx, gkernel_state *g, const kernel_scope *s,
                                const gkernel_task_event *e, uint32_t *utid) {
  uint32_t live;
  int known = gkernel_live_thread(ctx, s->machine, e->tid, &live);
  int rc;
  switch (e->state) {
    case GK_CREATED:
      if (known) return kernel_stat(ctx, s, stat_generic_task_state_invalid_order, 1);
      rc = model_thread_start(ctx, s->machine, e->tid, e->ts, &live);
      if (!rc) rc = gkernel_named_thread(ctx, s, e, utid);
      return rc ? rc : 1;
    case GK_DESTROYED:
      if (known) *utid = live;
      else if ((rc = gkernel_named_thread(ctx, s, e, utid))) return rc;
      model_thread_end(ctx, *utid, e->ts);
      return 1;
    case GK_DEAD: case GK_RUNNING: case GK_RUNNABLE: case GK_SLEEP:
    case GK_UNINTERRUPTIBLE: case GK_STOPPED: {
      string_id prev = known ? gkernel_last_state(ctx, g, s->trace, live) : STRING_NULL;
      if (prev != STRING_NULL && (prev == g->states[GK_DEAD] ||
                                  (e->state == GK_RUNNING && prev == g->states[GK_RUNNING])))
        return kernel_stat(ctx, s, stat_generic_task_state_invalid_order, 1);
      rc = gkernel_named_thread(ctx, s, e, utid);
      return rc ? rc : 1;
    }
    default: return kernel_stat(ctx, s, stat_task_state_invalid, 1);
  }
}

int gkernel_task_state(trace_context *ctx, const kernel_scope *s,
                       const gkernel_task_event *e) {
  gkernel_state *g;
  uint32_t utid, ucpu;
  int rc = gkernel_get(ctx, s->machine, &g);
  if (rc) return rc;
  int found = gkernel_event_thread(ctx, g, s, e, &utid);
  if (found <= 0) return found;
  if (e->cpu < 0 || e->cpu >= SCHED_MAX_CPU) return kernel_stat(ctx, s, stat_task_state_invalid, 1);
  /* only a running task makes its cpu's row, as a sched slice does */
  rc = e->state == GK_RUNNING ? sched_ucpu(ctx, s->machine, (uint32_t)e->cpu, &ucpu)
                              : sched_ucpu_number(s->machine, (uint32_t)e->cpu, &ucpu);
  if (rc) return rc == WEFT_EINVAL ? kernel_stat(ctx, s, stat_task_state_invalid, 1) : rc;
  if (e->state == GK_RUNNING) return gkernel_switch_in(ctx, g, s, e, utid, ucpu);
  return gkernel_switch_out(ctx, g, s, e, utid, ucpu, g->states[e->state]);
}

int gkernel_task_rename(trace_context *ctx, const kernel_scope *s, int64_t tid,
                        const char *comm, size_t comm_len) {
  gkernel_state *g;
  int rc = gkernel_get(ctx, s->machine, &g);
  if (rc) return rc;
  if (comm_len) return sched_task_rename(ctx, s, tid, comm, comm_len);
  uint32_t utid;
  return sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
}

int gkernel_tree_process(trace_context *ctx, const kernel_scope *s, int64_t pid,
                         int64_t ppid, const char *cmdline, size_t cmdline_len) {
  gkernel_state *g;
  uint32_t parent, upid;
  int rc = gkernel_get(ctx, s->machine, &g);
  if (!rc) rc = model_process(ctx, s->machine, ppid, &parent);
  if (!rc) rc = model_process(ctx, s->machine, pid, &upid);
  if (rc) return rc;
  model_process_set_parent(ctx, upid, parent);
  const char *space = cmdline_len ? memchr(cmdline, ' ', cmdline_len) : NULL;
  size_t name_len = space ? (size_t)(space - cmdline) : cmdline_len;
  rc = model_process_set_name(ctx, upid, cmdline, name_len);
  return rc ? rc : model_process_set_cmdline(ctx, upid, cmdline, cmdline_len);
}

int gkernel_tree_thread(trace_context *ctx, const kernel_scope *s, int64_t tid,
                        int64_t pid, const char *comm, size_t comm_len,
                        int is_main, int is_idle) {
  gkernel_state *g;
  uint32_t utid;
  int rc = gkernel_get(ctx, s->machine, &g);
  if (!rc) rc = model_thread_in_process(ctx, s->machine, tid, pid, &utid);
  if (rc) return rc;
  model_thread_set_roles(ctx, utid, is_main, is_idle);
  return comm ? model_thread_set_name(ctx, utid, comm, comm_len) : WEFT_OK;
}
