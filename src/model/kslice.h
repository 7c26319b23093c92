/* kslice: kernel activity that becomes slices — irq and softirq handlers
 * on per-cpu tracks, syscalls (raw_syscalls sys_enter/sys_exit) and binder
 * transactions on thread tracks. Shared by the proto ftrace and systrace
 * text importers.
 *
 * Owns the open syscall slice per thread track and the binder transactions
 * in flight (bounded by KSLICE_MAX_BINDER_TXNS; the oldest are forgotten).
 * Rules:
 *  - irq: "IRQ (<name>)" on "Irq Cpu N" (type cpu_irq) until the exit;
 *    softirq: the action name ("TIMER", "NET_RX"...) on "SoftIrq Cpu N".
 *  - syscall: "sys_<name>" on the thread from sys_enter to sys_exit, names
 *    by the machine's ABI (model/syscall_table.h; "sys_<number>" where the
 *    ABI is unknown or has no name for it; numbers from SYSCALL_MAX on make
 *    no slice). A sys_exit ends the thread's innermost open slice of its
 *    syscall's name (none: nothing ends). A print event of a thread inside
 *    sys_write ends that sys_write slice first (atrace markers are written
 *    from inside write(2); counted as truncated_sys_write_duration); the
 *    sys_exit of a sys_write that was cut so, or entered before the trace,
 *    ends nothing.
 *  - binder (category "binder"): a oneway transaction is an instant
 *    "binder transaction async" on the sender and "binder async rcv" on the
 *    receiver; a synchronous one opens "binder transaction" on the sender,
 *    "binder reply" on the receiver when received; the reply transaction
 *    ends the receiver's innermost slice, its reception the sender's. Each
 *    thread keeps a stack of transaction frames driven by its commands
 *    (BC_TRANSACTION, BC_REPLY) and returns (BR_TRANSACTION_COMPLETE,
 *    BR_REPLY...): a failed reply (BR_DEAD_REPLY, BR_FAILED_REPLY,
 *    BR_FROZEN_REPLY...) ends the sender's "binder transaction" only when
 *    its frame says one is open (without traced commands, never). Lock
 *    events make "binder lock waiting" and "binder lock held" slices.
 *  - adreno: kgsl_adreno_cmdbatch_sync relates the GPU's 19.2 MHz tick
 *    counter to trace time (per machine); a retired command batch becomes
 *    "GPU" [start, retire] on "GPU <process> (Ctx=<id>, Prio=<prio>)"
 *    (type adreno_gpu_cmdbatch); without a sync it is dropped.
 *  - funcgraph: a function's entry opens a slice named after it on the
 *    thread's "Funcgraph" track (type thread_funcgraph), or for pid 0 (the
 *    idle tasks of all cpus share it) on "swapper<cpu> -funcgraph" (type
 *    cpu_funcgraph); its exit ends the innermost slice there.
 *  - block I/O, OOM kills and workqueue work: see their functions below.
 * A slice is ended only while it is the innermost open slice of its track. */
#ifndef WEFT_MODEL_KSLICE_H
#define WEFT_MODEL_KSLICE_H

#include "model/sched.h"

#define KSLICE_MAX_BINDER_TXNS 65536

typedef struct kslice_state kslice_state;
void kslice_state_free(kslice_state *k);

/* irq and softirq slices ("IRQ (<name>)", the softirq's action name) of
 * category "irq" on the cpu's "Irq Cpu N" / "SoftIrq Cpu N" track; the exit
 * adds the arg ret ("handled" if ret is 1, else "unhandled") / vec (int). */
int kslice_irq_entry(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     uint32_t cpu, const char *name, size_t name_len);
int kslice_irq_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    uint32_t cpu, int64_t ret);
/* vec: the softirq number (0..9). */
int kslice_softirq_entry(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, int64_t vec);
int kslice_softirq_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                        uint32_t cpu, int64_t vec);

/* args: the syscall's arguments, the slice's args "args[i]" (uint). */
int kslice_sys_enter(trace_context *ctx, const kernel_scope *s, int64_t ts,
                     int64_t tid, int64_t number, const uint64_t *args, size_t nargs);
/* has_ret: the exit's return value, which joins the ended slice's args
 * as "ret". */
int kslice_sys_exit(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    int64_t tid, int64_t number, int has_ret, int64_t ret);
/* Called for each ftrace print event of thread tid, before it is parsed
 * (see the rules above). */
int kslice_syscall_print(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid);

/* A binder_transaction event: its slice (a reply ends the thread's binder
 * reply) with Perfetto's args, "transaction id", "destination node",
 * "destination process", "reply transaction?", "flags", "code" (the code as
 * the trace shows it + " Java Layer Dependent") and "calling tid"; a
 * synchronous transaction's receiver adds "destination thread" and
 * "destination name" to its slice, a reply's to the binder reply. */
typedef struct kslice_binder_txn {
  int64_t id, dest_node, dest_tgid, dest_tid;
  int is_reply;
  uint32_t flags;
  const char *code; /* "0x03" (proto: printf "0x%02x"), as the trace writes it */
  size_t code_len;
} kslice_binder_txn;
int kslice_binder_transaction(trace_context *ctx, const kernel_scope *s, int64_t ts,
                              int64_t tid, const kslice_binder_txn *t);
int kslice_binder_received(trace_context *ctx, const kernel_scope *s,
                           int64_t ts, int64_t tid, int64_t txn_id);
/* binder_return: cmd is the BR_* command code. */
int kslice_binder_return(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         int64_t tid, uint64_t cmd);
/* binder_command: cmd is the BC_* command code. */
int kslice_binder_command(trace_context *ctx, const kernel_scope *s, int64_t tid,
                          uint64_t cmd);
enum { KSLICE_BINDER_LOCK, KSLICE_BINDER_LOCKED, KSLICE_BINDER_UNLOCK };
/* binder_lock / binder_locked / binder_unlock (what: KSLICE_BINDER_*). */
int kslice_binder_lock(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                       int what);

/* funcgraph_entry (is_entry) / funcgraph_exit of the function `name`. */
int kslice_funcgraph(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                     int64_t pid, int is_entry, string_id name);
int kslice_adreno_sync(trace_context *ctx, const kernel_scope *s, int64_t ts,
                       uint64_t ticks);
int kslice_adreno_retired(trace_context *ctx, const kernel_scope *s, int64_t tid,
                          int64_t context_id, int64_t prio, uint64_t start,
                          uint64_t retire);

/* block_io_start (is_start) / block_io_done on the device's track (type
 * block_io, dimension block_device): a "block_io" slice with arg sector. */
int kslice_block_io(trace_context *ctx, const kernel_scope *s, int64_t ts, uint64_t dev,
                    uint64_t sector, int is_start);
/* mark_victim: an instant "mem.oom_kill" on the victim thread's track. */
int kslice_oom_kill(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t pid);
/* local_timer_entry / _exit: an "IRQ (LocalTimer)" slice (category irq)
 * on the cpu's "Irq Cpu N" track. */
int kslice_local_timer(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                       int entry);
/* hrtimer_expire_entry / _exit: a slice named by the function's address in
 * hex (category hrtimer) on the cpu's "Hrtimer Cpu N" track. */
int kslice_hrtimer(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                   int entry, uint64_t function);
/* mm_vmscan_direct_reclaim_begin (memcg: mm_vmscan_memcg_reclaim_begin)
 * opens "mm_vmscan_direct_reclaim" ("mm_vmscan_memcg_reclaim") on the
 * thread with args direct_reclaim_order, _may_writepage (int) and
 * _gfp_flags (uint) (memcg_reclaim_*); _end ends the thread's top slice,
 * adding uint direct_reclaim_nr_reclaimed (memcg_reclaim_nr_reclaimed). */
typedef struct kslice_reclaim {
  int begin, memcg;
  int64_t order, may_writepage;
  uint64_t gfp_flags, nr_reclaimed;
} kslice_reclaim;
int kslice_reclaim_event(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                         const kslice_reclaim *r);
/* cpuhp_enter / cpuhp_multi_enter (enter) open "cpuhp(<idx>)" (category
 * cpu, args action_cpu (uint): the cpu it ran on, cpuhp_idx) on the track
 * "CPU Hotplug <cpu>" (type cpu_hotplug) of the cpu it acts on;
 * cpuhp_exit ends that track's top slice. */
int kslice_cpuhp(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                 uint32_t action_cpu, int enter, int64_t idx);
/* scm_call_start opens "scm id=<x0 as %#x>" on the thread; scm_call_end
 * (start 0) ends the thread's top slice. */
int kslice_scm_call(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                    int start, uint64_t x0);
/* signal_generate (of thread tid, the signal's target) / signal_deliver (of
 * the thread it is delivered on): a zero-length slice of that name on the
 * thread's track with the int arg signal.sig. */
int kslice_signal(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                  int generated, int64_t sig);
/* workqueue_execute_start (function: the work's name; cpu: the event's cpu
 * as arg "cpu", or -1 for none) opens a slice of category "workqueue" on the
 * thread's track; workqueue_execute_end (function NULL) ends the innermost. */
int kslice_workqueue(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                     int64_t cpu, const char *function, size_t len);

#endif
