/* Kernel slices: irq/softirq cpu tracks, syscalls, binder. See kslice.h. */
#include "model/kslice.h"
#include "model/kslice_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/columns.h"
#include "model/context.h"
#include "model/flow.h"
#include "model/model.h"
#include "model/slice_stack.h"
#include "model/syscall_table.h"

typedef struct kslice_txn {
  int64_t id;
  uint32_t machine;
  uint8_t kind; /* KSLICE_TXN_* */
  uint32_t slice; /* the sender's slice, which flows to the receiver's;
                     KSLICE_NO_SLICE for a reply */
  int64_t args;   /* the transaction's arg set (a oneway's receiver gets it) */
} kslice_txn;

#define KSLICE_NO_SLICE UINT32_MAX

enum { KSLICE_TXN_SYNC = 0, KSLICE_TXN_ONEWAY, KSLICE_TXN_REPLY };
/* Where a thread is in a transaction, by the binder events seen so far. */
enum {
  KSLICE_FRAME_SND_AFTER_BC_TRANSACTION,
  KSLICE_FRAME_SND_AFTER_TRANSACTION,
  KSLICE_FRAME_SND_AFTER_BR_TRANSACTION_COMPLETE,
  KSLICE_FRAME_SND_AFTER_TRANSACTION_RECEIVED,
  KSLICE_FRAME_RCV_AFTER_TRANSACTION_RECEIVED,
  KSLICE_FRAME_RCV_AFTER_BR_TRANSACTION,
  KSLICE_FRAME_RCV_AFTER_BC_REPLY,
  KSLICE_FRAME_RCV_AFTER_TRANSACTION
};

typedef struct kslice_gpu_sync {
  uint32_t machine;
  int64_t ts;
  uint64_t ticks;
} kslice_gpu_sync;

#define KSLICE_MAX_GPU_SYNCS 256
#define KSLICE_ADRENO_TICKS_PER_SEC 19200000.0

/* A thread's binder transaction frames (its commands and returns), newest
 * last; the oldest is forgotten past KSLICE_MAX_FRAMES. */
#define KSLICE_MAX_FRAMES 8
typedef struct kslice_frame {
  uint8_t state;    /* KSLICE_FRAME_* */
  uint8_t has_txn;  /* the transaction's kind is known: */
  uint8_t oneway, reply;
} kslice_frame;
typedef struct kslice_frames {
  kslice_frame frame[KSLICE_MAX_FRAMES];
  uint32_t depth;
} kslice_frames;

struct kslice_state {
  VEC(kslice_gpu_sync) gpu_syncs; /* the latest per machine */
  VEC(kslice_frames) frames;      /* per thread, see frames_of */
  base_map frames_of;             /* (machine, tid) -> index in frames */
  base_map lock_waiting, lock_held; /* (machine, tid) -> 1 */
  base_map in_sys_write; /* utid -> 1 while its sys_write slice is open */
  size_t in_sys_write_count;
  VEC(kslice_txn) txns; /* ring of transactions in flight */
  size_t txn_next;      /* ring write position once full */
};

void kslice_state_free(kslice_state *k) {
  if (!k) return;
  base_map_free(&k->in_sys_write);
  base_map_free(&k->frames_of);
  base_map_free(&k->lock_waiting);
  base_map_free(&k->lock_held);
  VEC_FREE(k->frames);
  VEC_FREE(k->txns);
  VEC_FREE(k->gpu_syncs);
  base_free(k);
}

static kslice_state *kslice_get(trace_context *ctx) {
  if (!ctx->model.kslice) ctx->model.kslice = base_calloc(1, sizeof(kslice_state));
  return ctx->model.kslice;
}

/* ---- irq / softirq ---- */

int kslice_cpu_track(trace_context *ctx, const kernel_scope *s, uint32_t cpu,
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

/* Begins an irq or softirq slice (category "irq"). */
int kslice_begin_irq(trace_context *ctx, uint32_t track, int64_t ts,
                            const char *name, size_t len) {
  string_id id, category;
  uint32_t slice;
  int rc = ctx_intern(ctx, name, len, &id);
  if (!rc) rc = ctx_intern(ctx, "irq", 3, &category);
  return rc ? rc : model_slice_begin(ctx, track, ts, category, id, -1, &slice);
}

/* Adds an end event's arg to the slice it ended: a string (`str`) or else
 * an int of arg type `type`. */
int kslice_add_end_arg_typed(trace_context *ctx, int64_t ended, const char *key,
                                    const char *str, model_arg_type type, int64_t value) {
  int64_t args = -1;
  storage_table *t = ctx_table(ctx, TABLE_SLICE);
  int rc = model_args_reopen(ctx, storage_get_i64_or(t, SLICE_arg_set_id, (size_t)ended, -1));
  if (!rc)
    rc = str ? model_arg_string(ctx, key, strlen(key), str, strlen(str), MODEL_ARG_STRING)
             : model_arg_int(ctx, key, strlen(key), type, value);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  if (!rc) model_slice_set_args(ctx, (uint32_t)ended, args);
  return rc;
}

static int kslice_add_end_arg(trace_context *ctx, int64_t ended, const char *key,
                              const char *str, int64_t value) {
  return kslice_add_end_arg_typed(ctx, ended, key, str, MODEL_ARG_INT, value);
}

/* Ends the track's irq or softirq slice, adding the exit's arg to it. */
static int kslice_end_irq(trace_context *ctx, uint32_t track, int64_t ts, const char *key,
                          const char *str, int64_t value) {
  int64_t ended;
  int rc = model_slice_end(ctx, track, ts, &ended);
  return rc || ended < 0 ? rc : kslice_add_end_arg(ctx, ended, key, str, value);
}

int kslice_irq_entry(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     uint32_t cpu, const char *name, size_t name_len) {
  uint32_t track;
  int rc = kslice_cpu_track(ctx, s, cpu, "Irq Cpu %u", "cpu_irq", &track);
  if (rc) return rc;
  char buf[255]; /* Perfetto's buffer: longer names are cut to 254 bytes */
  int n = snprintf(buf, sizeof buf, "IRQ (%.*s)", (int)(name_len > 4096 ? 4096 : name_len),
                   name ? name : "");
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof buf) n = (int)sizeof buf - 1;
  return kslice_begin_irq(ctx, track, ts, buf, (size_t)n);
}

int kslice_irq_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    uint32_t cpu, int64_t ret) {
  uint32_t track;
  int rc = kslice_cpu_track(ctx, s, cpu, "Irq Cpu %u", "cpu_irq", &track);
  return rc ? rc
            : kslice_end_irq(ctx, track, ts, "ret", ret == 1 ? "handled" : "unhandled", 0);
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
  return rc ? rc : kslice_begin_irq(ctx, track, ts, name, strlen(name));
}

int kslice_softirq_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                        uint32_t cpu, int64_t vec) {
  uint32_t track;
  int rc = kslice_cpu_track(ctx, s, cpu, "SoftIrq Cpu %u", "cpu_softirq", &track);
  return rc ? rc : kslice_end_irq(ctx, track, ts, "vec", NULL, vec);
}

/* ---- syscalls ---- */

int kslice_thread_track(trace_context *ctx, const kernel_scope *s, int64_t tid,
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

/* The slice name of syscall `number` on the machine into buf; 0 when the
 * number makes no slice. */
static int kslice_syscall_name(trace_context *ctx, const kernel_scope *s, int64_t number,
                               char *buf, size_t cap, size_t *len) {
  number = (int64_t)(uint32_t)number; /* the kernel's id is 32 bits */
  if (number >= SYSCALL_MAX) return 0;
  const char *name = syscall_name(kslice_abi(ctx, s->machine), number);
  int n = name && *name ? snprintf(buf, cap, "sys_%s", name)
                        : snprintf(buf, cap, "sys_%" PRId64, number);
  *len = n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
  return 1;
}

/* Sets (on = 1) or clears the thread's in-sys_write flag; *was: its value
 * before. */
static int kslice_flag_write(kslice_state *k, uint32_t utid, int on, int *was) {
  uint64_t *slot = base_map_find(&k->in_sys_write, utid);
  *was = slot && *slot;
  if (!slot && !on) return WEFT_OK;
  if (!slot && base_map_insert(&k->in_sys_write, utid, 0, &slot) < 0) return WEFT_ENOMEM;
  if (*was != on) k->in_sys_write_count += on ? 1 : (size_t)-1;
  *slot = (uint64_t)on;
  return WEFT_OK;
}

/* Ends the innermost open slice of that name on the thread's track; *ended:
 * that slice, or -1. */
static int kslice_end_syscall(trace_context *ctx, uint32_t utid, int64_t ts, const char *name,
                              size_t len, int64_t *ended) {
  uint32_t track;
  string_id id;
  *ended = -1;
  int rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = ctx_intern(ctx, name, len, &id);
  return rc ? rc : slice_stack_end_matching(ctx, track, ts, STRING_NULL, id, ended);
}

/* The arg set of a syscall's arguments: "args[i]" (flat key "args"). */
static int kslice_syscall_args(trace_context *ctx, const uint64_t *args, size_t nargs,
                               int64_t *arg_set) {
  *arg_set = -1;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < nargs; i++) {
    char key[32];
    int len = snprintf(key, sizeof key, "args[%zu]", i);
    rc = model_arg_int(ctx, key, (size_t)len, MODEL_ARG_UINT, (int64_t)args[i]);
  }
  if (!rc && nargs) rc = model_args_commit(ctx, arg_set);
  else if (rc) model_args_discard(ctx);
  return rc;
}

int kslice_sys_enter(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     int64_t tid, int64_t number, const uint64_t *args, size_t nargs) {
  kslice_state *k = kslice_get(ctx);
  if (!k) return WEFT_ENOMEM;
  char buf[80];
  size_t n;
  if (!kslice_syscall_name(ctx, s, number, buf, sizeof buf, &n)) return WEFT_OK;
  uint32_t utid, track, slice;
  string_id id;
  int64_t arg_set = -1;
  int was, rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = ctx_intern(ctx, buf, n, &id);
  if (!rc) rc = kslice_syscall_args(ctx, args, nargs, &arg_set);
  if (!rc) rc = model_slice_begin(ctx, track, ts, STRING_NULL, id, arg_set, &slice);
  if (rc || strcmp(buf, "sys_write") != 0) return rc;
  return kslice_flag_write(k, utid, 1, &was);
}

int kslice_sys_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    int64_t tid, int64_t number, int has_ret, int64_t ret) {
  kslice_state *k = kslice_get(ctx);
  if (!k) return WEFT_ENOMEM;
  char buf[80];
  size_t n;
  if (!kslice_syscall_name(ctx, s, number, buf, sizeof buf, &n)) return WEFT_OK;
  uint32_t utid;
  int was, rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc && strcmp(buf, "sys_write") == 0) {
    rc = kslice_flag_write(k, utid, 0, &was);
    if (!rc && !was) return WEFT_OK; /* truncated by a print, or entered before the trace */
  }
  int64_t ended;
  if (!rc) rc = kslice_end_syscall(ctx, utid, ts, buf, n, &ended);
  /* the exit's return value joins the slice's args (Perfetto's End with args) */
  return rc || ended < 0 || !has_ret ? rc : kslice_add_end_arg(ctx, ended, "ret", NULL, ret);
}

int kslice_syscall_print(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid) {
  kslice_state *k = ctx->model.kslice;
  uint32_t utid;
  int was;
  if (!k || !k->in_sys_write_count) return WEFT_OK;
  if (model_thread_find(ctx, s->machine, tid, &utid) != 1) return WEFT_OK;
  int rc = kslice_flag_write(k, utid, 0, &was);
  if (rc || !was) return rc;
  int64_t ended;
  rc = kernel_stat(ctx, s, stat_truncated_sys_write_duration, 1);
  return rc ? rc : kslice_end_syscall(ctx, utid, ts, "sys_write", 9, &ended);
}

/* ---- binder ---- */

#define KSLICE_BINDER_ONEWAY 0x01u
#define KSLICE_BR_DEAD_REPLY 0x7205u
#define KSLICE_BR_FAILED_REPLY 0x7211u

static int kslice_txn_add(kslice_state *k, uint32_t machine, int64_t id, int kind,
                          uint32_t slice, int64_t args) {
  kslice_txn t = {id, machine, (uint8_t)kind, slice, args};
  if (k->txns.len < KSLICE_MAX_BINDER_TXNS) return VEC_PUSH(k->txns, t) ? WEFT_ENOMEM : WEFT_OK;
  k->txns.data[k->txn_next] = t;
  k->txn_next = (k->txn_next + 1) % KSLICE_MAX_BINDER_TXNS;
  return WEFT_OK;
}

/* Finds and forgets a transaction: its kind (-1 if unknown), its sender's
 * slice and its arg set. */
static int kslice_txn_take(kslice_state *k, uint32_t machine, int64_t id, uint32_t *slice,
                           int64_t *args) {
  for (size_t i = k->txns.len; i-- > 0;) {
    kslice_txn *t = &k->txns.data[i];
    if (t->id != id || t->machine != machine) continue;
    int kind = t->kind;
    *slice = t->slice;
    *args = t->args;
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

/* ---- binder transaction frames ---- */

#define KSLICE_BC_TRANSACTION 0x40406300u
#define KSLICE_BC_REPLY 0x40406301u
#define KSLICE_BC_TRANSACTION_SG 0x40486311u
#define KSLICE_BC_REPLY_SG 0x40486312u
#define KSLICE_BR_TRANSACTION 0x80407202u
#define KSLICE_BR_REPLY 0x80407203u
#define KSLICE_BR_TRANSACTION_SEC_CTX 0x80487202u
#define KSLICE_BR_TRANSACTION_COMPLETE 0x7206u
#define KSLICE_BR_FROZEN_REPLY 0x7212u
#define KSLICE_BR_ONEWAY_SPAM_SUSPECT 0x7213u
#define KSLICE_BR_TRANSACTION_PENDING_FROZEN 0x7214u

static uint64_t kslice_thread_key(uint32_t machine, int64_t tid) {
  return (uint64_t)machine << 32 | (uint32_t)tid;
}

/* The thread's frames (created empty when create); NULL if none. */
static kslice_frames *kslice_frames_of(kslice_state *k, uint32_t machine, int64_t tid,
                                       int create) {
  uint64_t key = kslice_thread_key(machine, tid), *slot;
  slot = base_map_find(&k->frames_of, key);
  if (slot) return &k->frames.data[*slot];
  if (!create) return NULL;
  kslice_frames empty;
  memset(&empty, 0, sizeof empty);
  if (VEC_PUSH(k->frames, empty)) return NULL;
  if (base_map_insert(&k->frames_of, key, k->frames.len - 1, &slot) < 0) return NULL;
  return &k->frames.data[k->frames.len - 1];
}

static kslice_frame *kslice_frame_top(kslice_state *k, uint32_t machine, int64_t tid) {
  kslice_frames *f = kslice_frames_of(k, machine, tid, 0);
  return f && f->depth ? &f->frame[f->depth - 1] : NULL;
}

/* Pushes a frame in `state`; 0 or WEFT_ENOMEM. */
static int kslice_frame_push(kslice_state *k, uint32_t machine, int64_t tid, int state) {
  kslice_frames *f = kslice_frames_of(k, machine, tid, 1);
  if (!f) return WEFT_ENOMEM;
  if (f->depth == KSLICE_MAX_FRAMES) {
    memmove(f->frame, f->frame + 1, (KSLICE_MAX_FRAMES - 1) * sizeof f->frame[0]);
    f->depth--;
  }
  memset(&f->frame[f->depth], 0, sizeof f->frame[0]);
  f->frame[f->depth++].state = (uint8_t)state;
  return WEFT_OK;
}

static void kslice_frame_pop(kslice_state *k, uint32_t machine, int64_t tid) {
  kslice_frames *f = kslice_frames_of(k, machine, tid, 0);
  if (f && f->depth) f->depth--;
}

static void kslice_frame_set_txn(kslice_frame *fr, int state, int oneway, int reply) {
  fr->state = (uint8_t)state;
  fr->has_txn = 1;
  fr->oneway = (uint8_t)oneway;
  fr->reply = (uint8_t)reply;
}

/* ---- binder slices ---- */

static int kslice_binder_slice(trace_context *ctx, uint32_t track, int64_t ts, int64_t dur,
                               const char *name, int64_t args, uint32_t *slice) {
  string_id id, category;
  int rc = ctx_intern(ctx, name, strlen(name), &id);
  if (!rc) rc = ctx_intern(ctx, "binder", 6, &category);
  if (rc) return rc;
  if (dur >= 0) return model_slice_complete(ctx, track, ts, dur, category, id, args, slice);
  return model_slice_begin(ctx, track, ts, category, id, args, slice);
}

static int kslice_end_top(trace_context *ctx, uint32_t track, int64_t ts) {
  int64_t ended;
  return model_slice_end(ctx, track, ts, &ended);
}

/* A transaction's flags as Perfetto shows them: hex, then their meaning. */
static int kslice_binder_flags_arg(trace_context *ctx, uint32_t flags) {
  static const struct {
    uint32_t bit;
    const char *text;
  } meanings[] = {{0x01, "this is a one-way call: async, no return; "},
                  {0x04, "contents are the components root object; "},
                  {0x08, "contents are a 32-bit status code; "},
                  {0x10, "allow replies with file descriptors; "}};
  char buf[256];
  size_t n = (size_t)snprintf(buf, sizeof buf, "0x%02x ", flags);
  for (size_t i = 0; i < sizeof meanings / sizeof *meanings; i++)
    if (flags & meanings[i].bit)
      n += (size_t)snprintf(buf + n, sizeof buf - n, "%s", meanings[i].text);
  if (flags == 0) n += (size_t)snprintf(buf + n, sizeof buf - n, "No Flags Set");
  return model_arg_string(ctx, "flags", 5, buf, n, MODEL_ARG_STRING);
}

/* Pends a transaction's args, in Perfetto's order. */
static int kslice_binder_txn_args(trace_context *ctx, const kslice_binder_txn *t, int64_t tid) {
  char code[96];
  int n = snprintf(code, sizeof code, "%.*s Java Layer Dependent", (int)t->code_len, t->code);
  int rc = model_arg_int(ctx, "transaction id", 14, MODEL_ARG_INT, t->id);
  if (!rc) rc = model_arg_int(ctx, "destination node", 16, MODEL_ARG_INT, t->dest_node);
  if (!rc) rc = model_arg_int(ctx, "destination process", 19, MODEL_ARG_INT, t->dest_tgid);
  if (!rc) rc = model_arg_int(ctx, "reply transaction?", 18, MODEL_ARG_BOOL, t->is_reply != 0);
  if (!rc) rc = kslice_binder_flags_arg(ctx, t->flags);
  if (!rc) rc = model_arg_string(ctx, "code", 4, code, (size_t)n, MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "calling tid", 11, MODEL_ARG_UINT, tid);
  return rc;
}

/* Pends "destination thread" (of arg type `type`) and, when the thread
 * has a name, "destination name". */
static int kslice_binder_dest_args(trace_context *ctx, uint32_t utid, int64_t tid,
                                   model_arg_type type) {
  string_id key, name = storage_get_str(ctx_table(ctx, TABLE_THREAD), THREAD_name, utid);
  int rc = model_arg_int(ctx, "destination thread", 18, type, tid);
  if (!rc && name != STRING_NULL) rc = ctx_intern(ctx, "destination name", 16, &key);
  if (!rc && name != STRING_NULL) rc = model_arg_string_id(ctx, key, name, MODEL_ARG_STRING);
  return rc;
}

/* The pending args join those of `slice`. */
static int kslice_slice_add_pending(trace_context *ctx, uint32_t slice, size_t first) {
  int64_t set = -1;
  model_args_update_from(ctx, first);
  int rc = model_args_commit(ctx, &set);
  if (!rc && set >= 0) model_slice_set_args(ctx, slice, set);
  return rc;
}

/* A reply: its dest thread's args (when the thread's top slice is a
 * binder reply) and the reply's own join that slice, which it ends. */
static int kslice_binder_reply(trace_context *ctx, const kernel_scope *s, uint32_t track,
                               int64_t ts, int64_t tid, const kslice_binder_txn *t) {
  uint32_t dest;
  int rc = sched_thread(ctx, s->machine, t->dest_tid, NULL, 0, &dest);
  int64_t top = slice_stack_top(ctx, track);
  if (rc || top < 0) return rc;
  string_id reply;
  rc = ctx_intern(ctx, "binder reply", 12, &reply);
  if (!rc) rc = model_args_reopen(ctx, model_slice_arg_set(ctx, (uint32_t)top));
  size_t first = model_args_pending(ctx);
  if (!rc && storage_get_str(ctx_table(ctx, TABLE_SLICE), SLICE_name, (size_t)top) == reply)
    rc = kslice_binder_dest_args(ctx, dest, t->dest_tid, MODEL_ARG_INT);
  if (!rc) rc = kslice_binder_txn_args(ctx, t, tid);
  if (!rc) rc = kslice_slice_add_pending(ctx, (uint32_t)top, first);
  else model_args_discard(ctx);
  return rc ? rc : kslice_end_top(ctx, track, ts);
}

int kslice_binder_transaction(trace_context *ctx, const kernel_scope *s, int64_t ts,
                              int64_t tid, const kslice_binder_txn *t) {
  kslice_state *k = kslice_get(ctx);
  uint32_t track, slice = KSLICE_NO_SLICE;
  int64_t args = -1;
  if (!k) return WEFT_ENOMEM;
  int oneway = (t->flags & KSLICE_BINDER_ONEWAY) != 0;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (rc) return rc;
  if (t->is_reply) {
    rc = kslice_binder_reply(ctx, s, track, ts, tid, t);
  } else {
    rc = kslice_binder_txn_args(ctx, t, tid);
    if (!rc) rc = model_args_commit(ctx, &args);
    else model_args_discard(ctx);
    if (!rc)
      rc = kslice_binder_slice(ctx, track, ts, oneway ? 0 : -1,
                               oneway ? "binder transaction async" : "binder transaction",
                               args, &slice);
  }
  if (!rc)
    rc = kslice_txn_add(k, s->machine, t->id,
                        t->is_reply ? KSLICE_TXN_REPLY : oneway ? KSLICE_TXN_ONEWAY : KSLICE_TXN_SYNC,
                        slice, args);
  kslice_frame *fr = kslice_frame_top(k, s->machine, tid);
  if (rc || !fr) return rc;
  if (fr->state == KSLICE_FRAME_SND_AFTER_BC_TRANSACTION)
    kslice_frame_set_txn(fr, KSLICE_FRAME_SND_AFTER_TRANSACTION, oneway, t->is_reply);
  else if (fr->state == KSLICE_FRAME_RCV_AFTER_BC_REPLY)
    kslice_frame_set_txn(fr, KSLICE_FRAME_RCV_AFTER_TRANSACTION, oneway, t->is_reply);
  else if (fr->state == KSLICE_FRAME_RCV_AFTER_TRANSACTION_RECEIVED)
    kslice_frame_pop(k, s->machine, tid); /* commands are not traced */
  return WEFT_OK;
}

/* A synchronous transaction received: the receiver joins the sender's
 * still open slice's args. */
static int kslice_binder_receiver_args(trace_context *ctx, const kernel_scope *s,
                                       uint32_t sender, int64_t tid) {
  if (sender == KSLICE_NO_SLICE || storage_get_i64(ctx_table(ctx, TABLE_SLICE), SLICE_dur,
                                                   sender) != -1)
    return WEFT_OK;
  uint32_t utid;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_args_reopen(ctx, model_slice_arg_set(ctx, sender));
  size_t first = model_args_pending(ctx);
  if (!rc) rc = kslice_binder_dest_args(ctx, utid, tid, MODEL_ARG_UINT);
  if (!rc) rc = kslice_slice_add_pending(ctx, sender, first);
  else model_args_discard(ctx);
  return rc;
}

int kslice_binder_received(trace_context *ctx, const kernel_scope *s,
                           int64_t ts, int64_t tid, int64_t txn_id) {
  kslice_state *k = kslice_get(ctx);
  uint32_t track, slice, sender;
  int64_t args;
  if (!k) return WEFT_ENOMEM;
  int kind = kslice_txn_take(k, s->machine, txn_id, &sender, &args);
  if (kind < 0) return WEFT_OK;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (!rc && kind == KSLICE_TXN_SYNC) {
    rc = kslice_frame_push(k, s->machine, tid, KSLICE_FRAME_RCV_AFTER_TRANSACTION_RECEIVED);
    if (!rc) kslice_frame_set_txn(kslice_frame_top(k, s->machine, tid),
                                  KSLICE_FRAME_RCV_AFTER_TRANSACTION_RECEIVED, 0, 0);
  } else if (!rc && kind == KSLICE_TXN_REPLY) {
    kslice_frame *fr = kslice_frame_top(k, s->machine, tid);
    if (fr && fr->state == KSLICE_FRAME_SND_AFTER_BR_TRANSACTION_COMPLETE)
      fr->state = KSLICE_FRAME_SND_AFTER_TRANSACTION_RECEIVED;
  }
  if (rc) return rc;
  if (kind == KSLICE_TXN_REPLY) return kslice_end_top(ctx, track, ts);
  /* The sender's slice flows to the receiver's, as in Perfetto. */
  if (kind == KSLICE_TXN_SYNC) rc = kslice_binder_receiver_args(ctx, s, sender, tid);
  if (!rc)
    rc = kind == KSLICE_TXN_ONEWAY
             ? kslice_binder_slice(ctx, track, ts, 0, "binder async rcv", args, &slice)
             : kslice_binder_slice(ctx, track, ts, -1, "binder reply", -1, &slice);
  if (rc || sender == KSLICE_NO_SLICE) return rc;
  return flow_link(ctx, sender, slice);
}

int kslice_binder_command(trace_context *ctx, const kernel_scope *s, int64_t tid,
                          uint64_t cmd) {
  kslice_state *k = kslice_get(ctx);
  if (!k) return WEFT_ENOMEM;
  if (cmd == KSLICE_BC_TRANSACTION || cmd == KSLICE_BC_TRANSACTION_SG)
    return kslice_frame_push(k, s->machine, tid, KSLICE_FRAME_SND_AFTER_BC_TRANSACTION);
  kslice_frame *fr = kslice_frame_top(k, s->machine, tid);
  if ((cmd == KSLICE_BC_REPLY || cmd == KSLICE_BC_REPLY_SG) && fr &&
      fr->state == KSLICE_FRAME_RCV_AFTER_BR_TRANSACTION)
    fr->state = KSLICE_FRAME_RCV_AFTER_BC_REPLY;
  return WEFT_OK;
}

/* A failed reply (BR_DEAD_REPLY, BR_FAILED_REPLY...): ends the thread's
 * "binder transaction" if its frame says one is open. */
static int kslice_binder_failed(trace_context *ctx, kslice_state *k, const kernel_scope *s,
                                int64_t ts, int64_t tid) {
  kslice_frame *fr = kslice_frame_top(k, s->machine, tid);
  if (!fr) return WEFT_OK;
  switch (fr->state) {
    case KSLICE_FRAME_SND_AFTER_BC_TRANSACTION:
      kslice_frame_pop(k, s->machine, tid);
      return WEFT_OK;
    case KSLICE_FRAME_RCV_AFTER_BC_REPLY:
    case KSLICE_FRAME_SND_AFTER_TRANSACTION:
    case KSLICE_FRAME_RCV_AFTER_TRANSACTION:
    case KSLICE_FRAME_SND_AFTER_BR_TRANSACTION_COMPLETE: {
      int open = fr->has_txn && !fr->oneway && !fr->reply;
      kslice_frame_pop(k, s->machine, tid);
      uint32_t track;
      int rc = open ? kslice_thread_track(ctx, s, tid, &track) : WEFT_OK;
      return rc || !open ? rc : kslice_end_top(ctx, track, ts);
    }
    default:
      return WEFT_OK;
  }
}

int kslice_binder_return(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         int64_t tid, uint64_t cmd) {
  kslice_state *k = kslice_get(ctx);
  if (!k) return WEFT_ENOMEM;
  if (cmd == KSLICE_BR_DEAD_REPLY || cmd == KSLICE_BR_FAILED_REPLY ||
      cmd == KSLICE_BR_FROZEN_REPLY || cmd == KSLICE_BR_TRANSACTION_PENDING_FROZEN)
    return kslice_binder_failed(ctx, k, s, ts, tid);
  kslice_frame *fr = kslice_frame_top(k, s->machine, tid);
  if (!fr) return WEFT_OK;
  if (cmd == KSLICE_BR_TRANSACTION_COMPLETE || cmd == KSLICE_BR_ONEWAY_SPAM_SUSPECT) {
    if (fr->state == KSLICE_FRAME_SND_AFTER_TRANSACTION && fr->has_txn && !fr->oneway)
      fr->state = KSLICE_FRAME_SND_AFTER_BR_TRANSACTION_COMPLETE;
    else if (fr->state == KSLICE_FRAME_RCV_AFTER_TRANSACTION ||
             fr->state == KSLICE_FRAME_SND_AFTER_BC_TRANSACTION ||
             fr->state == KSLICE_FRAME_SND_AFTER_TRANSACTION)
      kslice_frame_pop(k, s->machine, tid);
  } else if (cmd == KSLICE_BR_REPLY) {
    if (fr->state == KSLICE_FRAME_SND_AFTER_TRANSACTION_RECEIVED)
      kslice_frame_pop(k, s->machine, tid);
  } else if (cmd == KSLICE_BR_TRANSACTION || cmd == KSLICE_BR_TRANSACTION_SEC_CTX) {
    if (fr->state == KSLICE_FRAME_RCV_AFTER_TRANSACTION_RECEIVED)
      fr->state = KSLICE_FRAME_RCV_AFTER_BR_TRANSACTION;
  }
  return WEFT_OK;
}

/* binder_lock opens "binder lock waiting"; binder_locked ends it (if a lock
 * was being waited for) and opens "binder lock held"; binder_unlock ends
 * that (if held). */
int kslice_binder_lock(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                       int what) {
  kslice_state *k = kslice_get(ctx);
  uint32_t track, slice;
  uint64_t *flag;
  if (!k) return WEFT_ENOMEM;
  int rc;
  uint64_t key = kslice_thread_key(s->machine, tid);
  base_map *waiting = &k->lock_waiting, *held = &k->lock_held;
  if (what == KSLICE_BINDER_LOCK) {
    if ((rc = kslice_thread_track(ctx, s, tid, &track)) != 0) return rc;
    if (base_map_insert(waiting, key, 1, &flag) < 0) return WEFT_ENOMEM;
    *flag = 1;
    return kslice_binder_slice(ctx, track, ts, -1, "binder lock waiting", -1, &slice);
  }
  /* a lock not waited for (or not held) makes nothing, not even a track */
  if (what == KSLICE_BINDER_LOCKED) {
    flag = base_map_find(waiting, key);
    if (!flag || !*flag) return WEFT_OK;
    *flag = 0;
    rc = kslice_thread_track(ctx, s, tid, &track);
    if (!rc) rc = kslice_end_top(ctx, track, ts);
    if (!rc) rc = kslice_binder_slice(ctx, track, ts, -1, "binder lock held", -1, &slice);
    if (!rc && base_map_insert(held, key, 1, &flag) < 0) return WEFT_ENOMEM;
    if (!rc) *flag = 1;
    return rc;
  }
  flag = base_map_find(held, key);
  if (!flag || !*flag) return WEFT_OK;
  *flag = 0;
  rc = kslice_thread_track(ctx, s, tid, &track);
  return rc ? rc : kslice_end_top(ctx, track, ts);
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
  if (!rc && cpu >= 0) rc = model_arg_int(ctx, "cpu", 3, MODEL_ARG_INT, cpu);
  if (!rc && cpu >= 0) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, category, name, args, &slice);
}
