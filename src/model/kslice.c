/* Kernel slices: irq/softirq cpu tracks, syscalls, binder. See kslice.h. */
#include "model/kslice.h"

#include <inttypes.h>
#include <stdio.h>

#include "model/context.h"
#include "model/model.h"
#include "model/slice_stack.h"
#include "model/syscall_table.h"

typedef struct kslice_txn {
  int64_t id;
  uint32_t machine;
  uint8_t kind; /* KSLICE_TXN_* */
} kslice_txn;

enum { KSLICE_TXN_SYNC = 0, KSLICE_TXN_ONEWAY, KSLICE_TXN_REPLY };
enum { KSLICE_OPEN_SYSCALL = 0, KSLICE_OPEN_BINDER_TXN, KSLICE_OPEN_BINDER_REPLY };

typedef struct kslice_gpu_sync {
  uint32_t machine;
  int64_t ts;
  uint64_t ticks;
} kslice_gpu_sync;

#define KSLICE_MAX_GPU_SYNCS 256
#define KSLICE_ADRENO_TICKS_PER_SEC 19200000.0

struct kslice_state {
  VEC(kslice_gpu_sync) gpu_syncs; /* the latest per machine */
  base_map open;        /* track << 2 | KSLICE_OPEN_* -> slice id */
  VEC(kslice_txn) txns; /* ring of transactions in flight */
  size_t txn_next;      /* ring write position once full */
};

void kslice_state_free(kslice_state *k) {
  if (!k) return;
  base_map_free(&k->open);
  VEC_FREE(k->txns);
  VEC_FREE(k->gpu_syncs);
  base_free(k);
}

static kslice_state *kslice_get(trace_context *ctx) {
  if (!ctx->model.kslice) ctx->model.kslice = base_calloc(1, sizeof(kslice_state));
  return ctx->model.kslice;
}

/* ---- open slices remembered per (track, kind) ---- */

static int kslice_remember(kslice_state *k, uint32_t track, int kind, uint32_t slice) {
  uint64_t *slot;
  int ins = base_map_insert(&k->open, (uint64_t)track << 2 | (uint64_t)kind, slice, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  *slot = slice;
  return WEFT_OK;
}

/* Ends the remembered slice of (track, kind) at ts if it is still the
 * innermost open slice there; forgets it either way. */
static int kslice_end_remembered(trace_context *ctx, kslice_state *k, uint32_t track,
                                 int kind, int64_t ts) {
  uint64_t *slot = base_map_find(&k->open, (uint64_t)track << 2 | (uint64_t)kind);
  if (!slot || *slot == UINT64_MAX - 1) return WEFT_OK;
  int64_t slice = (int64_t)*slot, ended;
  *slot = UINT64_MAX - 1; /* forgotten */
  if (slice_stack_top(ctx, track) != slice) return WEFT_OK;
  return model_slice_end(ctx, track, ts, &ended);
}

/* ---- irq / softirq ---- */

static int kslice_cpu_track(trace_context *ctx, const kernel_scope *s, uint32_t cpu,
                            const char *fmt, const char *type, uint32_t *track) {
  uint32_t ucpu;
  int rc = sched_ucpu(ctx, s->machine, cpu, &ucpu);
  if (rc) return rc;
  char name[48];
  snprintf(name, sizeof name, fmt, cpu);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.machine = s->machine;
  spec.cpu = ucpu;
  spec.cpu_number = cpu;
  return model_track(ctx, &spec, track);
}

static int kslice_begin_named(trace_context *ctx, uint32_t track, int64_t ts,
                              const char *name, size_t len) {
  string_id id;
  uint32_t slice;
  int rc = ctx_intern(ctx, name, len, &id);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, id, -1, &slice);
}

int kslice_irq_entry(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     uint32_t cpu, const char *name, size_t name_len) {
  uint32_t track;
  int rc = kslice_cpu_track(ctx, s, cpu, "Irq Cpu %u", "cpu_irq", &track);
  if (rc) return rc;
  char buf[256];
  int n = snprintf(buf, sizeof buf, "IRQ (%.*s)", (int)(name_len > 200 ? 200 : name_len),
                   name ? name : "");
  return kslice_begin_named(ctx, track, ts, buf, (size_t)n);
}

int kslice_irq_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    uint32_t cpu) {
  uint32_t track;
  int64_t ended;
  int rc = kslice_cpu_track(ctx, s, cpu, "Irq Cpu %u", "cpu_irq", &track);
  return rc ? rc : model_slice_end(ctx, track, ts, &ended);
}

static const char *const kslice_softirq_names[] = {
    "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED",
    "HRTIMER", "RCU"};

int kslice_softirq_entry(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, int64_t vec) {
  if (vec < 0 || vec >= (int64_t)(sizeof kslice_softirq_names / sizeof *kslice_softirq_names))
    return WEFT_OK;
  uint32_t track;
  int rc = kslice_cpu_track(ctx, s, cpu, "SoftIrq Cpu %u", "cpu_softirq", &track);
  const char *name = kslice_softirq_names[vec];
  return rc ? rc : kslice_begin_named(ctx, track, ts, name, strlen(name));
}

int kslice_softirq_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                        uint32_t cpu) {
  uint32_t track;
  int64_t ended;
  int rc = kslice_cpu_track(ctx, s, cpu, "SoftIrq Cpu %u", "cpu_softirq", &track);
  return rc ? rc : model_slice_end(ctx, track, ts, &ended);
}

/* ---- syscalls ---- */

static int kslice_thread_track(trace_context *ctx, const kernel_scope *s, int64_t tid,
                               uint32_t *track) {
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  return rc ? rc : model_thread_track(ctx, utid, track);
}

static syscall_abi kslice_abi(trace_context *ctx, uint32_t machine) {
  storage_table *t = ctx_table(ctx, TABLE_MACHINE);
  if (machine >= t->row_count) return syscall_abi_from_machine(NULL);
  return syscall_abi_from_machine(
      base_string_pool_get(&ctx->strings, storage_get_str(t, MACHINE_arch, machine)));
}

int kslice_sys_enter(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     int64_t tid, int64_t number) {
  kslice_state *k = kslice_get(ctx);
  if (!k) return WEFT_ENOMEM;
  const char *name = syscall_name(kslice_abi(ctx, s->machine), number);
  if (!name) return WEFT_OK;
  char buf[80];
  int n = snprintf(buf, sizeof buf, "sys_%s", name);
  uint32_t track, slice;
  string_id id;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (!rc) rc = ctx_intern(ctx, buf, (size_t)n, &id);
  if (!rc) rc = model_slice_begin(ctx, track, ts, STRING_NULL, id, -1, &slice);
  return rc ? rc : kslice_remember(k, track, KSLICE_OPEN_SYSCALL, slice);
}

int kslice_sys_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    int64_t tid) {
  kslice_state *k = kslice_get(ctx);
  uint32_t track;
  if (!k) return WEFT_ENOMEM;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  return rc ? rc : kslice_end_remembered(ctx, k, track, KSLICE_OPEN_SYSCALL, ts);
}

int kslice_syscall_interrupt(trace_context *ctx, uint32_t track, int64_t ts) {
  kslice_state *k = ctx->model.kslice;
  return k ? kslice_end_remembered(ctx, k, track, KSLICE_OPEN_SYSCALL, ts) : WEFT_OK;
}

/* ---- binder ---- */

#define KSLICE_BINDER_ONEWAY 0x01u
#define KSLICE_BR_DEAD_REPLY 0x7205u
#define KSLICE_BR_FAILED_REPLY 0x7211u

static int kslice_txn_add(kslice_state *k, uint32_t machine, int64_t id, int kind) {
  kslice_txn t = {id, machine, (uint8_t)kind};
  if (k->txns.len < KSLICE_MAX_BINDER_TXNS) return VEC_PUSH(k->txns, t) ? WEFT_ENOMEM : WEFT_OK;
  k->txns.data[k->txn_next] = t;
  k->txn_next = (k->txn_next + 1) % KSLICE_MAX_BINDER_TXNS;
  return WEFT_OK;
}

/* Finds and forgets a transaction; -1 if unknown. */
static int kslice_txn_take(kslice_state *k, uint32_t machine, int64_t id) {
  for (size_t i = k->txns.len; i-- > 0;) {
    kslice_txn *t = &k->txns.data[i];
    if (t->id != id || t->machine != machine) continue;
    int kind = t->kind;
    t->id = INT64_MIN; /* consumed */
    return kind;
  }
  return -1;
}

static int kslice_instant(trace_context *ctx, uint32_t track, int64_t ts, const char *name) {
  string_id id;
  uint32_t slice;
  int rc = ctx_intern(ctx, name, strlen(name), &id);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, STRING_NULL, id, -1, &slice);
}

static int kslice_open(trace_context *ctx, kslice_state *k, uint32_t track, int64_t ts,
                       const char *name, int kind) {
  string_id id;
  uint32_t slice;
  int rc = ctx_intern(ctx, name, strlen(name), &id);
  if (!rc) rc = model_slice_begin(ctx, track, ts, STRING_NULL, id, -1, &slice);
  return rc ? rc : kslice_remember(k, track, kind, slice);
}

int kslice_binder_transaction(trace_context *ctx, const kernel_scope *s,
                              int64_t ts, int64_t tid, int64_t txn_id,
                              int is_reply, uint64_t flags) {
  kslice_state *k = kslice_get(ctx);
  uint32_t track;
  if (!k) return WEFT_ENOMEM;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (rc) return rc;
  if (is_reply) {
    rc = kslice_end_remembered(ctx, k, track, KSLICE_OPEN_BINDER_REPLY, ts);
    return rc ? rc : kslice_txn_add(k, s->machine, txn_id, KSLICE_TXN_REPLY);
  }
  if (flags & KSLICE_BINDER_ONEWAY) {
    rc = kslice_instant(ctx, track, ts, "binder transaction async");
    return rc ? rc : kslice_txn_add(k, s->machine, txn_id, KSLICE_TXN_ONEWAY);
  }
  rc = kslice_open(ctx, k, track, ts, "binder transaction", KSLICE_OPEN_BINDER_TXN);
  return rc ? rc : kslice_txn_add(k, s->machine, txn_id, KSLICE_TXN_SYNC);
}

int kslice_binder_received(trace_context *ctx, const kernel_scope *s,
                           int64_t ts, int64_t tid, int64_t txn_id) {
  kslice_state *k = kslice_get(ctx);
  uint32_t track;
  if (!k) return WEFT_ENOMEM;
  int kind = kslice_txn_take(k, s->machine, txn_id);
  if (kind < 0) return WEFT_OK;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (rc) return rc;
  switch (kind) {
    case KSLICE_TXN_ONEWAY: return kslice_instant(ctx, track, ts, "binder async rcv");
    case KSLICE_TXN_SYNC:
      return kslice_open(ctx, k, track, ts, "binder reply", KSLICE_OPEN_BINDER_REPLY);
    default: return kslice_end_remembered(ctx, k, track, KSLICE_OPEN_BINDER_TXN, ts);
  }
}

int kslice_binder_return(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         int64_t tid, uint64_t cmd) {
  kslice_state *k = kslice_get(ctx);
  uint32_t track;
  if (!k) return WEFT_ENOMEM;
  if ((cmd & 0xffffu) != KSLICE_BR_FAILED_REPLY && (cmd & 0xffffu) != KSLICE_BR_DEAD_REPLY)
    return WEFT_OK;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  return rc ? rc : kslice_end_remembered(ctx, k, track, KSLICE_OPEN_BINDER_TXN, ts);
}

/* ---- adreno command batches ---- */

int kslice_adreno_sync(trace_context *ctx, const kernel_scope *s, int64_t ts,
                       uint64_t ticks) {
  kslice_state *k = kslice_get(ctx);
  if (!k) return WEFT_ENOMEM;
  for (size_t i = 0; i < k->gpu_syncs.len; i++) {
    if (k->gpu_syncs.data[i].machine != s->machine) continue;
    k->gpu_syncs.data[i].ts = ts;
    k->gpu_syncs.data[i].ticks = ticks;
    return WEFT_OK;
  }
  if (k->gpu_syncs.len >= KSLICE_MAX_GPU_SYNCS) return WEFT_OK;
  kslice_gpu_sync g = {s->machine, ts, ticks};
  return VEC_PUSH(k->gpu_syncs, g) ? WEFT_ENOMEM : WEFT_OK;
}

/* Trace time of a GPU tick count, from the machine's sync; 0 if none. */
static int kslice_adreno_time(const kslice_state *k, uint32_t machine, uint64_t ticks,
                              int64_t *ts) {
  for (size_t i = 0; i < k->gpu_syncs.len; i++) {
    const kslice_gpu_sync *g = &k->gpu_syncs.data[i];
    if (g->machine != machine) continue;
    double delta = ((double)ticks - (double)g->ticks) * 1e9 / KSLICE_ADRENO_TICKS_PER_SEC;
    double t = (double)g->ts + delta;
    if (t < 0 || t > 9.2e18) return 0;
    *ts = (int64_t)(t + 0.5);
    return 1;
  }
  return 0;
}

int kslice_adreno_retired(trace_context *ctx, const kernel_scope *s, int64_t tid,
                          int64_t context_id, int64_t prio, uint64_t start,
                          uint64_t retire) {
  kslice_state *k = kslice_get(ctx);
  if (!k) return WEFT_ENOMEM;
  int64_t begin, end;
  if (retire < start || !kslice_adreno_time(k, s->machine, start, &begin) ||
      !kslice_adreno_time(k, s->machine, retire, &end))
    return WEFT_OK;
  uint32_t utid, track, slice;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (rc) return rc;
  int64_t upid = storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, utid, -1);
  const char *pname = NULL;
  if (upid >= 0)
    pname = base_string_pool_get(&ctx->strings,
                                 storage_get_str(ctx_table(ctx, TABLE_PROCESS), PROCESS_name, upid));
  char name[256];
  if (pname && *pname)
    snprintf(name, sizeof name, "GPU %.180s (Ctx=%" PRId64 ", Prio=%" PRId64 ")", pname,
             context_id, prio);
  else
    snprintf(name, sizeof name, "GPU %" PRId64 " (Ctx=%" PRId64 ", Prio=%" PRId64 ")", tid,
             context_id, prio);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "adreno_gpu_cmdbatch";
  spec.machine = s->machine;
  string_id gpu;
  rc = model_track(ctx, &spec, &track);
  if (!rc) rc = ctx_intern(ctx, "GPU", 3, &gpu);
  return rc ? rc : model_slice_complete(ctx, track, begin, end - begin, STRING_NULL, gpu, -1,
                                        &slice);
}

/* ---- funcgraph ---- */

static int kslice_funcgraph_track(trace_context *ctx, const kernel_scope *s, uint32_t cpu,
                                  int64_t pid, uint32_t *track) {
  if (pid == 0)
    return kslice_cpu_track(ctx, s, cpu, "swapper%u -funcgraph", "cpu_funcgraph", track);
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, pid, NULL, 0, &utid);
  if (rc) return rc;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = "Funcgraph";
  spec.type = "thread_funcgraph";
  spec.machine = s->machine;
  spec.utid = utid;
  return model_track(ctx, &spec, track);
}

int kslice_funcgraph(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                     int64_t pid, int is_entry, string_id name) {
  uint32_t track, slice;
  int64_t ended;
  int rc = kslice_funcgraph_track(ctx, s, cpu, pid, &track);
  if (rc) return rc;
  if (is_entry) return model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
  return model_slice_end(ctx, track, ts, &ended);
}

/* ---- block I/O, OOM kills, workqueues ---- */

static int kslice_block_track(trace_context *ctx, const kernel_scope *s, uint64_t dev,
                              uint32_t *track) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.type = "block_io";
  spec.machine = s->machine;
  spec.extra_key = dev;
  spec.dim_key = "block_device";
  spec.dim_int = (int64_t)dev;
  return model_track(ctx, &spec, track);
}

int kslice_block_io(trace_context *ctx, const kernel_scope *s, int64_t ts, uint64_t dev,
                    uint64_t sector, int is_start) {
  uint32_t track, slice;
  int64_t ended, args;
  int rc = kslice_block_track(ctx, s, dev, &track);
  if (rc) return rc;
  if (!is_start) return model_slice_end(ctx, track, ts, &ended);
  string_id name;
  rc = ctx_intern(ctx, "block_io", 8, &name);
  if (!rc) rc = model_arg_int(ctx, "sector", 6, MODEL_ARG_UINT, (int64_t)sector);
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, args, &slice);
}

int kslice_oom_kill(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t pid) {
  uint32_t track;
  int rc = kslice_thread_track(ctx, s, pid, &track);
  return rc ? rc : kslice_instant(ctx, track, ts, "mem.oom_kill");
}

int kslice_workqueue(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                     int64_t cpu, const char *function, size_t len) {
  uint32_t track, slice;
  int64_t ended, args = -1;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (rc || !function) return rc ? rc : model_slice_end(ctx, track, ts, &ended);
  string_id name, category;
  rc = ctx_intern(ctx, function, len, &name);
  if (!rc) rc = ctx_intern(ctx, "workqueue", 9, &category);
  if (!rc && cpu >= 0) rc = model_arg_int(ctx, "cpu", 3, MODEL_ARG_UINT, cpu);
  if (!rc && cpu >= 0) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, category, name, args, &slice);
}
