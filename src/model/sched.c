/* The kernel model: cpus, sched slices, thread states, raw ftrace events,
 * process lifetimes and kernel counters. See sched.h. */
#include "model/sched.h"
#include "model/sched_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/context.h"
#include "model/kcounter.h"
#include "model/model.h"

/* A comm and its string id, with its bytes kept here when they fit, so that
 * comparing a switch's comm with it reads no pool memory. */
#define SCHED_COMM_BYTES 16

typedef struct sched_comm {
  string_id id; /* STRING_NULL: none */
  uint32_t len;
  char bytes[SCHED_COMM_BYTES]; /* the first min(len, SCHED_COMM_BYTES) */
} sched_comm;

typedef struct sched_cpu_state {
  int64_t last_pid;
  int64_t last_utid;     /* -1: no switch seen on this cpu yet */
  int64_t last_prio;
  int64_t pending_slice; /* open sched row, or -1 */
  sched_comm prev_comm, next_comm; /* of its last raw sched_switch (a cache) */
  int has_cpu_row; /* sched_ucpu ran for it: its cpu row exists */
  uint32_t trace;  /* the file whose state this is */
} sched_cpu_state;

/* One machine's cpus: cpu -> index into kernel_state.cpus + 1, or 0. */
typedef struct sched_machine_cpus {
  uint32_t *index;
  uint32_t cap;
} sched_machine_cpus;

/* A thread's open thread_state bookkeeping in one file. */
typedef struct sched_open_rows {
  int64_t last;    /* last thread_state row, -1 if none */
  int64_t blocked; /* last blocked row, -1 if none */
} sched_open_rows;

typedef struct sched_thread_rows {
  sched_open_rows rows; /* of the file `owner` - 1 */
  uint32_t owner;       /* trace + 1 of the file the rows are of; 0: none yet */
  sched_comm comm; /* the last comm a raw sched_switch gave it (a cache) */
  int ftrace_named; /* its name came from ftrace */
} sched_thread_rows;

/* A raw sched_switch's args and the arg set they were committed to. Equal
 * args always commit to the same set (model_args_commit), so a hit stands
 * for a commit. */
typedef struct sched_switch_args {
  string_id prev_comm, next_comm;
  int64_t prev_pid, prev_prio, prev_state, next_pid, next_prio;
  int64_t arg_set; /* -1: empty slot */
} sched_switch_args;

#define SCHED_SWITCH_ARGS_CACHE 4096 /* entries, a power of two */

/* The task state string of a raw prev_state under a kernel release (the
 * string depends on nothing else). */
typedef struct sched_state_memo {
  string_id release; /* the machine's release string, or STRING_NULL */
  int64_t prev_state;
  string_id state;   /* STRING_NULL: empty slot */
  int invalid;       /* the state is "?" */
} sched_state_memo;

#define SCHED_STATE_MEMO 16 /* entries, a power of two */

struct kernel_state {
  uint32_t idle_named; /* machine + 1 of the last idle thread kernel data named */
  VEC(sched_machine_cpus) machine_cpus; /* by machine row */
  VEC(sched_cpu_state) cpus;
  VEC(sched_thread_rows) threads; /* index: utid */
  /* Each file keeps its own open sched slices and thread states (as each of
   * Perfetto's importer contexts does); a (file, cpu) or (file, thread)
   * whose slot above belongs to another file is found here. */
  base_map cpu_other;             /* trace << 32 | ucpu -> index into cpus */
  base_map rows_other;            /* trace << 32 | utid -> index into other_rows */
  VEC(sched_open_rows) other_rows;
  base_map rss_mm;                /* hash(machine, mm_id) -> utid */
  kernel_memory_values memory_pending; /* rss_stat values without a track */
  string_id running, runnable;
  string_id switch_keys[7]; /* the args of a raw sched_switch, in order */
  string_id switch_name;    /* "sched_switch" */
  sched_switch_args *switch_args; /* direct-mapped cache; NULL if none */
  sched_state_memo states[SCHED_STATE_MEMO]; /* by prev_state */
};

static const char *const sched_switch_arg_keys[7] = {
    "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"};

static int kernel_intern_names(trace_context *ctx, kernel_state *k) {
  int rc = ctx_intern(ctx, "Running", 7, &k->running);
  if (!rc) rc = ctx_intern(ctx, "R", 1, &k->runnable);
  if (!rc) rc = ctx_intern(ctx, "sched_switch", 12, &k->switch_name);
  for (int i = 0; !rc && i < 7; i++)
    rc = ctx_intern(ctx, sched_switch_arg_keys[i], strlen(sched_switch_arg_keys[i]),
                    &k->switch_keys[i]);
  return rc;
}

void kernel_state_free(kernel_state *k) {
  if (!k) return;
  for (size_t i = 0; i < k->machine_cpus.len; i++) base_free(k->machine_cpus.data[i].index);
  VEC_FREE(k->machine_cpus);
  VEC_FREE(k->cpus);
  VEC_FREE(k->threads);
  VEC_FREE(k->other_rows);
  base_map_free(&k->cpu_other);
  base_map_free(&k->rows_other);
  base_free(k->switch_args);
  base_map_free(&k->rss_mm);
  VEC_FREE(k->memory_pending);
  base_free(k);
}

/* The kernel state, made on first use, without naming the idle thread. */
static int kernel_get_unnamed(trace_context *ctx, kernel_state **out) {
  if (!ctx->model.kernel) {
    kernel_state *k = base_calloc(1, sizeof *k);
    if (!k) return WEFT_ENOMEM;
    if (kernel_intern_names(ctx, k)) {
      base_free(k);
      return WEFT_ENOMEM;
    }
    ctx->model.kernel = k;
  }
  *out = ctx->model.kernel;
  return WEFT_OK;
}

int kernel_get(trace_context *ctx, uint32_t machine, kernel_state **out) {
  int rc = kernel_get_unnamed(ctx, out);
  if (rc || (*out)->idle_named == machine + 1) return rc;
  /* Kernel data names the idle thread of its machine. */
  (*out)->idle_named = machine + 1;
  return model_name_idle_thread(ctx, machine) ? WEFT_ENOMEM : WEFT_OK;
}

base_map *kernel_rss_mm(kernel_state *k) { return &k->rss_mm; }
kernel_memory_values *kernel_memory_pending(kernel_state *k) { return &k->memory_pending; }

int kernel_stat(trace_context *ctx, const kernel_scope *s, stats_id stat,
                int64_t delta) {
  return stats_add(&ctx->stats, stat, -1, s->machine, s->trace, delta);
}

/* ---- cpus and threads ---- */

int sched_ucpu_number(uint32_t machine, uint32_t cpu, uint32_t *ucpu) {
  if (cpu >= SCHED_MAX_CPU || machine >= SCHED_MAX_MACHINE) return WEFT_EINVAL;
  *ucpu = machine * SCHED_CPUS_PER_MACHINE + cpu;
  return WEFT_OK;
}

int sched_cpu_row(trace_context *ctx, uint32_t machine, uint32_t cpu,
                  uint32_t *ucpu, uint32_t *row) {
  if (sched_ucpu_number(machine, cpu, ucpu)) return WEFT_EINVAL;
  storage_table *t = ctx_table(ctx, TABLE_CPU);
  const uint64_t *found = base_map_find(&ctx->model.cpu_rows, (uint64_t)*ucpu + 1);
  if (found) {
    *row = (uint32_t)*found;
    return WEFT_OK;
  }
  int rc = storage_table_append(t, row);
  if (!rc && base_map_insert(&ctx->model.cpu_rows, (uint64_t)*ucpu + 1, *row, NULL) < 0)
    rc = WEFT_ENOMEM;
  if (rc) return rc;
  storage_set_i64(t, CPU_id, *row, *ucpu);
  storage_set_i64(t, CPU_cpu, *row, cpu);
  int64_t m = model_machine_column(machine);
  if (m >= 0) storage_set_i64(t, CPU_machine_id, *row, m);
  return WEFT_OK;
}

int sched_ucpu(trace_context *ctx, uint32_t machine, uint32_t cpu,
               uint32_t *ucpu) {
  uint32_t row;
  return sched_cpu_row(ctx, machine, cpu, ucpu, &row);
}

/* Whether string `id` (STRING_NULL: no) is the bytes comm[0, len). */
static int sched_comm_is(trace_context *ctx, string_id id, const char *comm, size_t len) {
  return id != STRING_NULL && base_string_pool_len(&ctx->strings, id) == len &&
         memcmp(base_string_pool_get(&ctx->strings, id), comm, len) == 0;
}

static void sched_comm_set(sched_comm *c, string_id id, const char *comm, size_t len) {
  c->id = id;
  c->len = (uint32_t)len;
  memcpy(c->bytes, comm, len < SCHED_COMM_BYTES ? len : SCHED_COMM_BYTES);
}

/* Whether c holds the bytes comm[0, len) (from its own copy when they fit). */
static int sched_comm_holds(trace_context *ctx, const sched_comm *c, const char *comm,
                            size_t len) {
  if (c->id == STRING_NULL || c->len != len) return 0;
  if (len <= SCHED_COMM_BYTES) return base_equal_short(c->bytes, comm, len);
  return sched_comm_is(ctx, c->id, comm, len);
}

static sched_thread_rows *sched_rows(kernel_state *k, uint32_t utid);

/* Whether ftrace may name thread utid, now named `current`: it has no name
 * or ftrace gave it (a higher-priority source's name stays). 1 marks the
 * name as ftrace's; 0: leave it; WEFT_ENOMEM. */
static int sched_ftrace_may_name(kernel_state *k, uint32_t utid, string_id current) {
  if (current != STRING_NULL && !(utid < k->threads.len && k->threads.data[utid].ftrace_named))
    return 0;
  sched_thread_rows *r = sched_rows(k, utid);
  if (!r) return WEFT_ENOMEM;
  r->ftrace_named = 1;
  return 1;
}

static int sched_set_ftrace_name(trace_context *ctx, kernel_state *k,
                                 uint32_t utid, const char *name, size_t len) {
  string_id current = storage_get_str(ctx_table(ctx, TABLE_THREAD), THREAD_name, utid);
  if (sched_comm_is(ctx, current, name, len))
    return WEFT_OK; /* already so named (by ftrace or not): nothing changes */
  int may = sched_ftrace_may_name(k, utid, current);
  return may == 1 ? model_thread_set_name(ctx, utid, name, len) : may;
}

/* sched_set_ftrace_name for an interned name: equal ids are equal bytes. */
static int sched_set_ftrace_name_id(trace_context *ctx, kernel_state *k, uint32_t utid,
                                    string_id name) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  string_id current = storage_get_str(t, THREAD_name, utid);
  if (current == name) return WEFT_OK;
  int may = sched_ftrace_may_name(k, utid, current);
  return may == 1 ? storage_set_str(t, THREAD_name, utid, name) : may;
}

/* A thread without a process is the main thread of the live process whose
 * pid is its tid, if there is one. */
static void sched_adopt_main_thread(trace_context *ctx, uint32_t machine,
                                    int64_t tid, uint32_t utid) {
  storage_table *t = ctx_table(ctx, TABLE_THREAD);
  uint32_t upid;
  if (tid == 0 || !storage_is_null(t, THREAD_upid, utid) ||
      !model_process_find(ctx, machine, tid, &upid))
    return;
  model_thread_attach(ctx, utid, upid);
}

int sched_thread(trace_context *ctx, uint32_t machine, int64_t tid,
                 const char *name, size_t name_len, uint32_t *utid) {
  kernel_state *k;
  int rc = kernel_get(ctx, machine, &k);
  if (!rc) rc = model_thread(ctx, machine, tid, utid);
  if (rc) return rc;
  sched_adopt_main_thread(ctx, machine, tid, *utid);
  if (name) rc = sched_set_ftrace_name(ctx, k, *utid, name, name_len);
  return rc;
}

int sched_thread_in_process(trace_context *ctx, uint32_t machine, int64_t tid,
                            int64_t pid, uint32_t *utid) {
  return model_thread_update(ctx, machine, tid, pid, utid);
}

/* Appends the raw row (args: its committed arg set or -1; common_flags
 * -1: none, 0 in the row as in Perfetto's). */
static int sched_raw_row(trace_context *ctx, int64_t ts, uint32_t ucpu, uint32_t utid,
                         string_id name_id, int64_t common_flags, int64_t args) {
  uint32_t row;
  storage_table *t = ctx_table(ctx, TABLE_FTRACE_EVENT);
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, FTRACE_EVENT_ts, row, ts);
  storage_set_str(t, FTRACE_EVENT_name, row, name_id);
  storage_set_i64(t, FTRACE_EVENT_utid, row, utid);
  if (args >= 0) storage_set_i64(t, FTRACE_EVENT_arg_set_id, row, args);
  storage_set_i64(t, FTRACE_EVENT_common_flags, row, common_flags >= 0 ? common_flags : 0);
  storage_set_i64(t, FTRACE_EVENT_ucpu, row, ucpu);
  ctx_extend_bounds(ctx, ts);
  return WEFT_OK;
}

static int sched_raw_event_named(trace_context *ctx, uint32_t machine, int64_t ts,
                                 uint32_t cpu, uint32_t utid, string_id name_id,
                                 int64_t common_flags) {
  uint32_t ucpu;
  int64_t args = -1;
  int rc = sched_ucpu(ctx, machine, cpu, &ucpu);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  rc = model_args_commit(ctx, &args);
  if (rc) return rc;
  return sched_raw_row(ctx, ts, ucpu, utid, name_id, common_flags, args);
}

int sched_raw_event(trace_context *ctx, uint32_t machine, int64_t ts,
                    uint32_t cpu, uint32_t utid, const char *name,
                    int64_t common_flags) {
  string_id name_id;
  if (ctx_intern(ctx, name, strlen(name), &name_id)) {
    model_args_discard(ctx);
    return WEFT_ENOMEM;
  }
  return sched_raw_event_named(ctx, machine, ts, cpu, utid, name_id, common_flags);
}

static string_id sched_machine_release(trace_context *ctx, uint32_t machine) {
  storage_table *t = ctx_table(ctx, TABLE_MACHINE);
  if (machine >= t->row_count) return STRING_NULL;
  return storage_get_str(t, MACHINE_release, machine);
}

static int sched_state_id(trace_context *ctx, kernel_state *k, const kernel_scope *s,
                          int64_t prev_state, string_id *out) {
  string_id release = sched_machine_release(ctx, s->machine);
  sched_state_memo *m = &k->states[(uint64_t)prev_state & (SCHED_STATE_MEMO - 1)];
  if (m->state != STRING_NULL && m->release == release && m->prev_state == prev_state) {
    if (m->invalid) kernel_stat(ctx, s, stat_task_state_invalid, 1);
    *out = m->invalid ? STRING_NULL : m->state;
    return WEFT_OK;
  }
  char buf[8];
  if (prev_state & SCHED_STATE_FROM_TEXT)
    sched_task_state_str(prev_state & ~SCHED_STATE_FROM_TEXT, NULL, '\0', buf);
  else
    sched_task_state_str(prev_state, base_string_pool_get(&ctx->strings, release), '\0', buf);
  if (buf[0] == '?') kernel_stat(ctx, s, stat_task_state_invalid, 1);
  int rc = ctx_intern(ctx, buf, strlen(buf), out);
  if (!rc) {
    m->release = release;
    m->prev_state = prev_state;
    m->state = *out;
    m->invalid = buf[0] == '?';
    if (m->invalid) *out = STRING_NULL; /* an invalid state is NULL, as in Perfetto */
  }
  return rc;
}

/* ---- thread_state rows ---- */

static sched_thread_rows *sched_rows(kernel_state *k, uint32_t utid) {
  if (utid >= k->threads.len) {
    if (VEC_RESERVE(k->threads, (size_t)utid + 1)) return NULL;
    while (k->threads.len <= utid) {
      sched_thread_rows r = {.rows = {-1, -1}};
      k->threads.data[k->threads.len++] = r;
    }
  }
  return &k->threads.data[utid];
}

/* The open rows of thread utid in file `trace`: NULL when it has none there
 * and !create, or when out of memory. The pointer is valid until the next
 * call. */
static sched_open_rows *sched_open_rows_of(kernel_state *k, uint32_t trace, uint32_t utid,
                                           int create) {
  sched_thread_rows *r = utid < k->threads.len ? &k->threads.data[utid] : NULL;
  if (r && r->owner == trace + 1) return (create || r->rows.last >= 0) ? &r->rows : NULL;
  if (!r || !r->owner) { /* no file's rows in the slot yet */
    if (!create || (!r && !(r = sched_rows(k, utid)))) return NULL;
    r->owner = trace + 1;
    return &r->rows;
  }
  uint64_t key = (uint64_t)trace << 32 | utid;
  uint64_t *found = base_map_find(&k->rows_other, key);
  if (found) return (create || k->other_rows.data[*found].last >= 0)
                        ? &k->other_rows.data[*found] : NULL;
  sched_open_rows none = {-1, -1};
  if (!create || VEC_PUSH(k->other_rows, none)) return NULL;
  if (base_map_insert(&k->rows_other, key, k->other_rows.len - 1, NULL) < 0) return NULL;
  return &k->other_rows.data[k->other_rows.len - 1];
}

static int sched_has_rows(kernel_state *k, uint32_t trace, uint32_t utid) {
  return sched_open_rows_of(k, trace, utid, 0) != NULL;
}

static int sched_is_swapper(trace_context *ctx, uint32_t utid) {
  return storage_get_i64(ctx_table(ctx, TABLE_THREAD), THREAD_tid, utid) == 0;
}

typedef struct sched_open_state {
  string_id state;
  int64_t ucpu, waker_utid, common_flags;
} sched_open_state;

static int sched_add_open_state(trace_context *ctx, kernel_state *k, uint32_t trace,
                                int64_t ts, uint32_t utid, const sched_open_state *o) {
  if (sched_is_swapper(ctx, utid)) return WEFT_OK;
  storage_table *t = ctx_table(ctx, TABLE_THREAD_STATE);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, THREAD_STATE_ts, row, ts);
  storage_set_i64(t, THREAD_STATE_dur, row, -1);
  storage_set_i64(t, THREAD_STATE_utid, row, utid);
  storage_set_str(t, THREAD_STATE_state, row, o->state);
  if (o->ucpu >= 0) storage_set_i64(t, THREAD_STATE_ucpu, row, o->ucpu);
  if (o->common_flags >= 0)
    storage_set_i64(t, THREAD_STATE_irq_context, row, (o->common_flags & 0x18) ? 1 : 0);
  if (o->waker_utid >= 0) {
    storage_set_i64(t, THREAD_STATE_waker_utid, row, o->waker_utid);
    sched_open_rows *w = sched_open_rows_of(k, trace, (uint32_t)o->waker_utid, 0);
    if (w) {
      int64_t wrow = w->last;
      if (storage_get_str(t, THREAD_STATE_state, wrow) == k->running)
        storage_set_i64(t, THREAD_STATE_waker_id, row, wrow);
    }
  }
  ctx_extend_bounds(ctx, ts);
  sched_open_rows *r = sched_open_rows_of(k, trace, utid, 1);
  if (!r) return WEFT_ENOMEM;
  r->last = row;
  if (o->state == k->running) r->blocked = -1;
  else if (o->state != k->runnable) r->blocked = row;
  return WEFT_OK;
}

static void sched_close_state(trace_context *ctx, kernel_state *k, uint32_t trace,
                              int64_t ts, uint32_t utid) {
  sched_open_rows *r = sched_open_rows_of(k, trace, utid, 0);
  if (!r) return;
  storage_table *t = ctx_table(ctx, TABLE_THREAD_STATE);
  int64_t row = r->last;
  storage_set_i64(t, THREAD_STATE_dur, (size_t)row,
                  ts - storage_get_i64(t, THREAD_STATE_ts, row));
  ctx_extend_bounds(ctx, ts);
}

static string_id sched_last_state(trace_context *ctx, kernel_state *k, uint32_t trace,
                                  uint32_t utid) {
  sched_open_rows *r = sched_open_rows_of(k, trace, utid, 0);
  if (!r) return STRING_NULL;
  return storage_get_str(ctx_table(ctx, TABLE_THREAD_STATE), THREAD_STATE_state, r->last);
}

static int sched_push_switch_state(trace_context *ctx, kernel_state *k, uint32_t trace,
                                   int64_t ts, uint32_t ucpu, uint32_t prev_utid,
                                   string_id prev_state, uint32_t next_utid) {
  int data_loss = sched_has_rows(k, trace, prev_utid) &&
                  sched_last_state(ctx, k, trace, prev_utid) != k->running;
  if (!data_loss) sched_close_state(ctx, k, trace, ts, prev_utid);
  sched_open_state o = {prev_state, -1, -1, -1};
  int rc = sched_add_open_state(ctx, k, trace, ts, prev_utid, &o);
  if (rc) return rc;
  sched_close_state(ctx, k, trace, ts, next_utid);
  sched_open_state n = {k->running, ucpu, -1, -1};
  return sched_add_open_state(ctx, k, trace, ts, next_utid, &n);
}

static int sched_push_waking_state(trace_context *ctx, kernel_state *k, uint32_t trace,
                                   int64_t ts, uint32_t utid, int64_t waker,
                                   int64_t common_flags) {
  sched_open_state o = {k->runnable, -1, waker, common_flags};
  if (!sched_has_rows(k, trace, utid)) return sched_add_open_state(ctx, k, trace, ts, utid, &o);
  string_id last = sched_last_state(ctx, k, trace, utid);
  if (last == k->running || last == k->runnable) return WEFT_OK; /* spurious */
  sched_close_state(ctx, k, trace, ts, utid);
  return sched_add_open_state(ctx, k, trace, ts, utid, &o);
}

/* ---- sched slices ---- */

/* The index of (machine, cpu)'s slot in `index` (grown to hold it), or NULL
 * when out of range or out of memory. */
static uint32_t *sched_cpu_slot(kernel_state *k, uint32_t machine, uint32_t cpu) {
  if (machine >= SCHED_MAX_MACHINE || cpu >= SCHED_MAX_CPU) return NULL;
  if (machine >= k->machine_cpus.len) {
    if (VEC_RESERVE(k->machine_cpus, (size_t)machine + 1)) return NULL;
    while (k->machine_cpus.len <= machine) {
      sched_machine_cpus none = {NULL, 0};
      k->machine_cpus.data[k->machine_cpus.len++] = none;
    }
  }
  sched_machine_cpus *m = &k->machine_cpus.data[machine];
  if (cpu >= m->cap) {
    uint32_t cap = m->cap ? m->cap : 8;
    while (cap <= cpu) cap *= 2;
    uint32_t *grown = base_realloc(m->index, (size_t)cap * sizeof *grown);
    if (!grown) return NULL;
    memset(grown + m->cap, 0, (size_t)(cap - m->cap) * sizeof *grown);
    m->index = grown;
    m->cap = cap;
  }
  return &m->index[cpu];
}

/* A new empty cpu state of file `trace`: its index + 1, or 0 when out of
 * memory. */
static uint32_t sched_cpu_new(kernel_state *k, uint32_t trace) {
  sched_cpu_state c = {.last_utid = -1, .pending_slice = -1, .trace = trace};
  return VEC_PUSH(k->cpus, c) ? 0 : (uint32_t)k->cpus.len;
}

/* The scheduling state of (machine, cpu) in file `trace`, created empty on
 * first use; NULL when out of memory or out of range (see SCHED_MAX_*). The
 * pointer is valid until the next cpu is added. */
static sched_cpu_state *sched_cpu(kernel_state *k, uint32_t trace, uint32_t machine,
                                  uint32_t cpu) {
  uint32_t *slot = sched_cpu_slot(k, machine, cpu);
  if (!slot) return NULL;
  if (!*slot && !(*slot = sched_cpu_new(k, trace))) return NULL;
  if (k->cpus.data[*slot - 1].trace == trace) return &k->cpus.data[*slot - 1];
  uint64_t key = (uint64_t)trace << 32 | (machine * SCHED_CPUS_PER_MACHINE + cpu);
  uint64_t *found = base_map_find(&k->cpu_other, key);
  if (found) return &k->cpus.data[*found];
  uint32_t index = sched_cpu_new(k, trace);
  if (!index || base_map_insert(&k->cpu_other, key, index - 1, NULL) < 0) return NULL;
  return &k->cpus.data[index - 1];
}

/* sched_ucpu for the cpu of state c: the cpu row is looked up (or made)
 * once per state. */
static int sched_cpu_ucpu(trace_context *ctx, sched_cpu_state *c, uint32_t machine,
                          uint32_t cpu, uint32_t *ucpu) {
  if (!c->has_cpu_row) {
    int rc = sched_ucpu(ctx, machine, cpu, ucpu);
    if (rc) return rc;
    c->has_cpu_row = 1;
  }
  *ucpu = machine * SCHED_CPUS_PER_MACHINE + cpu;
  return WEFT_OK;
}

static void sched_close_slice(trace_context *ctx, int64_t row, int64_t ts,
                              string_id end_state) {
  storage_table *t = ctx_table(ctx, TABLE_SCHED);
  storage_set_i64(t, SCHED_dur, (size_t)row, ts - storage_get_i64(t, SCHED_ts, row));
  storage_set_str(t, SCHED_end_state, (size_t)row, end_state);
}

static int sched_open_slice(trace_context *ctx, int64_t ts, uint32_t ucpu,
                            uint32_t utid, int64_t prio, int64_t *row_out) {
  storage_table *t = ctx_table(ctx, TABLE_SCHED);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, SCHED_ts, row, ts);
  storage_set_i64(t, SCHED_dur, row, -1);
  storage_set_i64(t, SCHED_utid, row, utid);
  storage_set_i64(t, SCHED_priority, row, prio);
  storage_set_i64(t, SCHED_ucpu, row, ucpu);
  ctx_extend_bounds(ctx, ts);
  *row_out = row;
  return WEFT_OK;
}

/* The comm of thread utid: `hint` (a comm of the cpu's last
 * switch) or the thread's last comm when the bytes match (the usual case),
 * else interned. The thread's last comm becomes this one. */
static int sched_comm_id(trace_context *ctx, kernel_state *k, uint32_t utid,
                         const sched_comm *hint, const char *comm, size_t len,
                         sched_comm *out) {
  sched_thread_rows *r = utid < k->threads.len ? &k->threads.data[utid] : NULL;
  if (sched_comm_holds(ctx, hint, comm, len)) {
    *out = *hint;
  } else if (r && sched_comm_holds(ctx, &r->comm, comm, len)) {
    *out = r->comm;
  } else {
    string_id id;
    int rc = ctx_intern(ctx, comm, len, &id);
    if (rc) return rc;
    sched_comm_set(out, id, comm, len);
  }
  if (r) r->comm = *out;
  return WEFT_OK;
}

static sched_switch_args *sched_switch_args_slot(kernel_state *k, const sched_switch_args *a) {
  if (!k->switch_args) {
    k->switch_args = base_malloc(SCHED_SWITCH_ARGS_CACHE * sizeof *k->switch_args);
    if (!k->switch_args) return NULL; /* no cache: every switch commits */
    for (size_t i = 0; i < SCHED_SWITCH_ARGS_CACHE; i++) k->switch_args[i].arg_set = -1;
  }
  uint64_t h = (uint64_t)a->prev_pid * 0x9e3779b97f4a7c15ULL;
  h ^= (uint64_t)a->next_pid * 0xc2b2ae3d27d4eb4fULL;
  h ^= (uint64_t)a->prev_state * 0x165667b19e3779f9ULL;
  h ^= ((uint64_t)a->prev_comm << 32 | a->next_comm) * 0x27d4eb2f165667c5ULL;
  h ^= ((uint64_t)a->prev_prio * 31 + (uint64_t)a->next_prio) * 0x85ebca77c2b2ae63ULL;
  h ^= h >> 29;
  return &k->switch_args[h & (SCHED_SWITCH_ARGS_CACHE - 1)];
}

static int sched_switch_args_equal(const sched_switch_args *x, const sched_switch_args *y) {
  return x->prev_comm == y->prev_comm && x->next_comm == y->next_comm &&
         x->prev_pid == y->prev_pid && x->prev_prio == y->prev_prio &&
         x->prev_state == y->prev_state && x->next_pid == y->next_pid &&
         x->next_prio == y->next_prio;
}

/* The arg set of a raw sched_switch: from the cache, else committed. */
static int sched_switch_arg_set(trace_context *ctx, kernel_state *k, sched_switch_args *a) {
  const string_id *key = k->switch_keys;
  int cacheable = ctx->model.pending_args.len == 0;
  sched_switch_args *slot = cacheable ? sched_switch_args_slot(k, a) : NULL;
  if (slot && slot->arg_set >= 0 && sched_switch_args_equal(slot, a)) {
    a->arg_set = slot->arg_set;
    return WEFT_OK;
  }
  int rc = model_arg_string_id(ctx, key[0], a->prev_comm, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int_id(ctx, key[1], MODEL_ARG_INT, a->prev_pid);
  if (!rc) rc = model_arg_int_id(ctx, key[2], MODEL_ARG_INT, a->prev_prio);
  if (!rc) rc = model_arg_int_id(ctx, key[3], MODEL_ARG_INT, a->prev_state);
  if (!rc) rc = model_arg_string_id(ctx, key[4], a->next_comm, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int_id(ctx, key[5], MODEL_ARG_INT, a->next_pid);
  if (!rc) rc = model_arg_int_id(ctx, key[6], MODEL_ARG_INT, a->next_prio);
  if (!rc) rc = model_args_commit(ctx, &a->arg_set);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  if (slot && a->arg_set >= 0) *slot = *a;
  return WEFT_OK;
}

/* The raw row of a sched_switch with args `a`, whose comms become `prev`
 * and `next` (c: the cpu's state, whose comm cache becomes them too). */
static int sched_raw_switch_row(trace_context *ctx, kernel_state *k, int64_t ts,
                                uint32_t ucpu, sched_cpu_state *c, uint32_t prev_utid,
                                const sched_comm *prev, const sched_comm *next,
                                sched_switch_args *a) {
  c->prev_comm = *prev;
  c->next_comm = *next;
  a->prev_comm = prev->id;
  a->next_comm = next->id;
  int rc = sched_switch_arg_set(ctx, k, a);
  if (rc) return rc;
  return sched_raw_row(ctx, ts, ucpu, prev_utid, k->switch_name, -1, a->arg_set);
}

/* A sched_switch's thread `tid` (as sched_thread) and the string id of its
 * comm, found through `hint` (see sched_comm_id); a NULL comm reads as ""
 * and leaves the thread's name alone. */
static int sched_switch_thread(trace_context *ctx, kernel_state *k, uint32_t machine,
                               int64_t tid, const char *comm, size_t len,
                               const sched_comm *hint, uint32_t *utid, sched_comm *comm_out) {
  int rc = model_thread(ctx, machine, tid, utid);
  if (rc) return rc;
  sched_adopt_main_thread(ctx, machine, tid, *utid);
  rc = sched_comm_id(ctx, k, *utid, hint, comm ? comm : "", comm ? len : 0, comm_out);
  if (rc || !comm) return rc;
  return sched_set_ftrace_name_id(ctx, k, *utid, comm_out->id);
}

int sched_switch(trace_context *ctx, const kernel_scope *s,
                 const sched_switch_event *e) {
  kernel_state *k;
  uint32_t ucpu, next_utid, prev_utid;
  string_id prev_state;
  sched_comm prev_comm, next_comm;
  int rc = kernel_get(ctx, s->machine, &k);
  if (rc) return rc;
  if (s->machine >= SCHED_MAX_MACHINE || e->cpu >= SCHED_MAX_CPU) return WEFT_EINVAL;
  sched_cpu_state *c = sched_cpu(k, s->trace, s->machine, e->cpu);
  if (!c) return WEFT_ENOMEM;
  /* c stays valid: nothing below adds a cpu */
  sched_switch_args a = {STRING_NULL, STRING_NULL, e->prev_pid, e->prev_prio,
                         e->prev_state & ~SCHED_STATE_FROM_TEXT, e->next_pid, e->next_prio,
                         -1};
  rc = sched_cpu_ucpu(ctx, c, s->machine, e->cpu, &ucpu);
  if (!rc)
    rc = sched_switch_thread(ctx, k, s->machine, e->next_pid, e->next_comm,
                             e->next_comm_len, &c->prev_comm, &next_utid, &next_comm);
  if (!rc) rc = sched_state_id(ctx, k, s, e->prev_state, &prev_state);
  if (rc) return rc;
  if (c->pending_slice >= 0) {
    if (e->prev_pid == c->last_pid) sched_close_slice(ctx, c->pending_slice, e->ts, prev_state);
    else kernel_stat(ctx, s, stat_mismatched_sched_switch_tids, 1);
  }
  rc = sched_switch_thread(ctx, k, s->machine, e->prev_pid, e->prev_comm, e->prev_comm_len,
                           &c->next_comm, &prev_utid, &prev_comm);
  if (!rc)
    rc = sched_raw_switch_row(ctx, k, e->ts, ucpu, c, prev_utid, &prev_comm, &next_comm, &a);
  int64_t slice = -1;
  if (!rc) rc = sched_open_slice(ctx, e->ts, ucpu, next_utid, e->next_prio, &slice);
  if (rc) return rc;
  c->pending_slice = slice;
  c->last_pid = e->next_pid;
  c->last_utid = next_utid;
  c->last_prio = e->next_prio;
  return sched_push_switch_state(ctx, k, s->trace, e->ts, ucpu, prev_utid, prev_state,
                                 next_utid);
}

int sched_switch_compact(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, int64_t prev_state, int64_t next_pid,
                         int64_t next_prio, const char *comm, size_t comm_len,
                         int raw_only) {
  kernel_state *k;
  uint32_t ucpu, next_utid;
  int rc = kernel_get(ctx, s->machine, &k);
  if (!rc) rc = sched_ucpu(ctx, s->machine, cpu, &ucpu);
  if (!rc) rc = sched_thread(ctx, s->machine, next_pid, comm, comm_len, &next_utid);
  if (rc) return rc;
  sched_cpu_state *c = sched_cpu(k, s->trace, s->machine, cpu);
  if (!c) return WEFT_ENOMEM;
  if (c->last_utid < 0) {
    kernel_stat(ctx, s, stat_compact_sched_switch_skipped, 1);
    c->last_pid = next_pid;
    c->last_utid = next_utid;
    c->last_prio = next_prio;
    return WEFT_OK;
  }
  string_id prev_state_id;
  rc = sched_state_id(ctx, k, s, prev_state, &prev_state_id);
  if (rc) return rc;
  if (c->pending_slice >= 0 && !raw_only)
    sched_close_slice(ctx, c->pending_slice, ts, prev_state_id);
  uint32_t prev_utid = (uint32_t)c->last_utid;
  string_id prev_name = storage_get_str(ctx_table(ctx, TABLE_THREAD), THREAD_name, prev_utid);
  sched_switch_args a = {STRING_NULL, STRING_NULL, c->last_pid, c->last_prio,
                         prev_state, next_pid, next_prio, -1};
  const char *prev_bytes = base_string_pool_get(&ctx->strings, prev_name);
  sched_comm prev_comm, next_comm;
  rc = sched_comm_id(ctx, k, prev_utid, &c->next_comm, prev_bytes ? prev_bytes : "",
                     prev_bytes ? base_string_pool_len(&ctx->strings, prev_name) : 0,
                     &prev_comm);
  if (!rc)
    rc = sched_comm_id(ctx, k, next_utid, &c->prev_comm, comm ? comm : "",
                       comm ? comm_len : 0, &next_comm);
  if (!rc)
    rc = sched_raw_switch_row(ctx, k, ts, ucpu, c, prev_utid, &prev_comm, &next_comm, &a);
  int64_t slice = -1;
  if (!rc && !raw_only) rc = sched_open_slice(ctx, ts, ucpu, next_utid, next_prio, &slice);
  if (rc) return rc;
  c = sched_cpu(k, s->trace, s->machine, cpu);
  if (!c) return WEFT_ENOMEM;
  c->pending_slice = slice;
  c->last_pid = next_pid;
  c->last_utid = next_utid;
  c->last_prio = next_prio;
  if (raw_only) return WEFT_OK;
  return sched_push_switch_state(ctx, k, s->trace, ts, ucpu, prev_utid, prev_state_id,
                                 next_utid);
}

int sched_waking(trace_context *ctx, const kernel_scope *s, int64_t ts,
                 int64_t waker_tid, int64_t wakee_tid, const char *comm,
                 size_t comm_len, int64_t common_flags) {
  kernel_state *k;
  uint32_t wakee, waker;
  int rc = kernel_get(ctx, s->machine, &k);
  if (!rc) rc = sched_thread(ctx, s->machine, wakee_tid, comm, comm_len, &wakee);
  if (!rc) rc = sched_thread(ctx, s->machine, waker_tid, NULL, 0, &waker);
  if (rc) return rc;
  return sched_push_waking_state(ctx, k, s->trace, ts, wakee, waker, common_flags);
}

int sched_waking_compact(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, int64_t pid, int64_t target_cpu,
                         int64_t prio, const char *comm, size_t comm_len,
                         int64_t common_flags, int raw_only) {
  kernel_state *k;
  int rc = kernel_get(ctx, s->machine, &k);
  if (rc) return rc;
  if (s->machine >= SCHED_MAX_MACHINE || cpu >= SCHED_MAX_CPU) /* no switch there */
    return kernel_stat(ctx, s, stat_compact_sched_waking_skipped, 1);
  sched_cpu_state *c = sched_cpu(k, s->trace, s->machine, cpu);
  if (!c) return WEFT_ENOMEM;
  if (c->last_utid < 0) return kernel_stat(ctx, s, stat_compact_sched_waking_skipped, 1);
  uint32_t curr = (uint32_t)c->last_utid, wakee;
  rc = model_arg_string(ctx, "comm", 4, comm ? comm : "", comm_len, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "pid", 3, MODEL_ARG_INT, pid);
  if (!rc) rc = model_arg_int(ctx, "prio", 4, MODEL_ARG_INT, prio);
  if (!rc) rc = model_arg_int(ctx, "target_cpu", 10, MODEL_ARG_INT, target_cpu);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  rc = sched_raw_event(ctx, s->machine, ts, cpu, curr, "sched_waking", common_flags);
  if (rc || raw_only) return rc;
  rc = model_thread(ctx, s->machine, pid, &wakee);
  if (rc) return rc;
  return sched_push_waking_state(ctx, k, s->trace, ts, wakee, curr, common_flags);
}

int sched_blocked_reason(trace_context *ctx, const kernel_scope *s,
                         int64_t tid, int64_t io_wait, const char *function,
                         size_t function_len) {
  kernel_state *k;
  uint32_t utid;
  int rc = kernel_get(ctx, s->machine, &k);
  if (!rc) rc = model_thread(ctx, s->machine, tid, &utid);
  if (rc) return rc;
  sched_open_rows *r = sched_open_rows_of(k, s->trace, utid, 0);
  if (!r || r->blocked < 0) return WEFT_OK;
  storage_table *t = ctx_table(ctx, TABLE_THREAD_STATE);
  size_t row = (size_t)r->blocked;
  if (io_wait >= 0) storage_set_i64(t, THREAD_STATE_io_wait, row, io_wait != 0);
  if (function) {
    string_id f;
    rc = ctx_intern(ctx, function, function_len, &f);
    if (rc) return rc;
    storage_set_str(t, THREAD_STATE_blocked_function, row, f);
  }
  return WEFT_OK;
}

/* ---- whole intervals ---- */

int sched_state_interval(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         int64_t dur, uint32_t utid, const char *state,
                         size_t state_len, int64_t cpu, int64_t io_wait) {
  kernel_state *k;
  string_id state_id;
  uint32_t ucpu = 0, row;
  int rc = kernel_get_unnamed(ctx, &k); /* JSON thread states name no idle thread */
  if (!rc) rc = ctx_intern(ctx, state, state_len, &state_id);
  if (cpu >= SCHED_MAX_CPU) cpu = -1; /* out of range: unknown */
  if (!rc && cpu >= 0) rc = sched_ucpu(ctx, s->machine, (uint32_t)cpu, &ucpu);
  if (rc) return rc;
  if (cpu >= 0 && state_id == k->running) {
    int64_t slice;
    rc = sched_open_slice(ctx, ts, ucpu, utid, -1, &slice);
    if (rc) return rc;
    storage_table *st = ctx_table(ctx, TABLE_SCHED);
    storage_set_i64(st, SCHED_dur, (size_t)slice, dur);
    storage_set_i64(st, SCHED_priority, (size_t)slice, 0);
  }
  storage_table *t = ctx_table(ctx, TABLE_THREAD_STATE);
  rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, THREAD_STATE_ts, row, ts);
  storage_set_i64(t, THREAD_STATE_dur, row, dur);
  storage_set_i64(t, THREAD_STATE_utid, row, utid);
  storage_set_str(t, THREAD_STATE_state, row, state_id);
  if (io_wait >= 0) storage_set_i64(t, THREAD_STATE_io_wait, row, io_wait != 0);
  ctx_extend_bounds(ctx, ts);
  if (dur > 0) ctx_extend_bounds(ctx, ts + dur);
  return WEFT_OK;
}

/* ---- process lifetime ---- */

#define SCHED_CLONE_THREAD 0x00010000u

int64_t sched_thread_upid(trace_context *ctx, uint32_t utid) {
  return storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, utid, -1);
}

int sched_task_newtask(trace_context *ctx, const kernel_scope *s, int64_t ts,
                       int64_t source_tid, int64_t new_tid, const char *comm,
                       size_t comm_len, uint64_t clone_flags) {
  kernel_state *k;
  uint32_t source, utid, upid;
  int rc = kernel_get(ctx, s->machine, &k);
  if (rc) return rc;
  if (new_tid == 0) return WEFT_OK; /* the idle task is never created */
  rc = model_thread(ctx, s->machine, source_tid, &source);
  if (rc) return rc;
  if (clone_flags & SCHED_CLONE_THREAD) {
    rc = model_thread_start(ctx, s->machine, new_tid, ts, &utid);
    if (!rc) rc = sched_set_ftrace_name(ctx, k, utid, comm, comm_len);
    if (rc) return rc;
    rc = model_threads_join(ctx, source, utid);
    if (rc > 0) rc = kernel_stat(ctx, s, stat_process_tracker_errors, 1);
    if (rc) return rc;
  } else {
    int64_t parent_upid = sched_thread_upid(ctx, source);
    rc = model_process_start(ctx, s->machine, new_tid, ts, &upid);
    if (!rc) rc = model_process_set_name(ctx, upid, comm, comm_len);
    if (!rc) rc = model_thread_start(ctx, s->machine, new_tid, ts, &utid);
    if (!rc) rc = sched_set_ftrace_name(ctx, k, utid, comm, comm_len);
    if (rc) return rc;
    storage_table *t = ctx_table(ctx, TABLE_THREAD);
    storage_set_i64(t, THREAD_upid, utid, upid);
    storage_set_i64(t, THREAD_is_main_thread, utid, 1);
    if (parent_upid >= 0)
      storage_set_i64(ctx_table(ctx, TABLE_PROCESS), PROCESS_parent_upid, upid, parent_upid);
  }
  sched_open_state o = {k->runnable, -1, source, 0};
  return sched_add_open_state(ctx, k, s->trace, ts, utid, &o);
}
