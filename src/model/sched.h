/* sched: the kernel side of the trace model, shared by the ftrace importers
 * (Perfetto proto ftrace bundles and systrace text).
 *
 * Owns the per-(file, machine, cpu) scheduling state (the open sched slice
 * and the task last switched in), the per-(file, thread) thread_state
 * bookkeeping (last row, last blocked row), which thread names came from
 * ftrace, and the cpu rows. Each trace file (kernel_scope.trace) keeps its
 * own scheduling state, as each of Perfetto's importer contexts does; threads
 * are the machine's.
 * Writes the sched, thread_state, ftrace_event (raw) and cpu tables, kernel
 * counters (cpufreq, cpuidle, rss, ion) and process/thread lifetimes.
 * Invariants: ucpu = machine * SCHED_CPUS_PER_MACHINE + cpu (the host is
 * machine 0, so its ucpu is the cpu), as Perfetto numbers them; the cpu
 * table has a row only for cpus seen, its id column is the ucpu;
 * a thread has at most one open thread_state row (dur -1) per file and it
 * is its last row there; the swapper (tid 0) never gets thread_state rows; events must arrive
 * in timestamp order. Its memos (comm string ids per thread and cpu, raw
 * sched_switch arg sets, task state strings) only stand for lookups: a hit
 * gives exactly what the lookup would. */
#ifndef WEFT_MODEL_SCHED_H
#define WEFT_MODEL_SCHED_H

#include "base/base.h"
#include "model/stats.h"

typedef struct trace_context trace_context;
typedef struct kernel_state kernel_state;

#define SCHED_MAX_CPU 4096
#define SCHED_CPUS_PER_MACHINE 4096
/* Machines with cpu rows: ucpu = machine * 4096 + cpu must fit 32 bits. */
#define SCHED_MAX_MACHINE (1u << 19)

/* Where an event comes from: stats are scoped to this machine and file. */
typedef struct kernel_scope {
  uint32_t machine;
  uint32_t trace;
} kernel_scope;

void kernel_state_free(kernel_state *k);
int kernel_stat(trace_context *ctx, const kernel_scope *s, stats_id stat,
                int64_t delta);

/* The cpu table row of (machine, cpu); WEFT_EINVAL for cpu >= SCHED_MAX_CPU
 * or machine >= SCHED_MAX_MACHINE. */
int sched_ucpu(trace_context *ctx, uint32_t machine, uint32_t cpu,
               uint32_t *ucpu);
/* The number sched_ucpu gives (machine, cpu), without making its row:
 * Perfetto makes a cpu row only for what runs or is recorded on it. */
int sched_ucpu_number(uint32_t machine, uint32_t cpu, uint32_t *ucpu);
/* The same, with the __intrinsic_cpu row holding it (created if new). */
int sched_cpu_row(trace_context *ctx, uint32_t machine, uint32_t cpu,
                  uint32_t *ucpu, uint32_t *row);
/* The live thread `tid`; a non-NULL name is applied unless the thread got
 * its name from a non-ftrace source (process tree, descriptors). */
int sched_thread(trace_context *ctx, uint32_t machine, int64_t tid,
                 const char *name, size_t name_len, uint32_t *utid);
/* Thread `tid` of process `pid` (Perfetto's UpdateThread). */
int sched_thread_in_process(trace_context *ctx, uint32_t machine, int64_t tid,
                            int64_t pid, uint32_t *utid);

/* A raw ftrace_event row; the args must already be pending (model_arg_*);
 * they are committed here. common_flags < 0 means NULL. */
int sched_raw_event(trace_context *ctx, uint32_t machine, int64_t ts,
                    uint32_t cpu, uint32_t utid, const char *name,
                    int64_t common_flags);

/* Task state text of a raw sched_switch prev_state (kernel 4.4 layout unless
 * `release` names a newer kernel, e.g. "5.10.0"): its atoms in a fixed order,
 * at most three chars, `separator` between atoms ('\0': none, as the tables
 * show it, "DK"; '|' as to_ftrace writes it, "D|K"); "?" for invalid
 * states. out must hold 8 bytes. */
void sched_task_state_str(int64_t prev_state, const char *release, char separator,
                          char *out);
/* Raw 4.4-layout bits of a systrace state text ("S", "R+", "D|K"...) with
 * SCHED_STATE_FROM_TEXT set; -1 if invalid. The flag makes the state read
 * in that layout whatever the machine's kernel release (a text trace beside
 * a proto trace of a 4.14+ kernel keeps its "I" and "R+"). */
#define SCHED_STATE_FROM_TEXT (INT64_C(1) << 32)
int64_t sched_task_state_from_text(const char *s, size_t len);

typedef struct sched_switch_event {
  int64_t ts;
  uint32_t cpu;
  int64_t prev_pid, prev_prio, prev_state;
  const char *prev_comm; size_t prev_comm_len;
  int64_t next_pid, next_prio;
  const char *next_comm; size_t next_comm_len;
} sched_switch_event;

int sched_switch(trace_context *ctx, const kernel_scope *s,
                 const sched_switch_event *e);
/* A compact sched_switch: prev_* are inferred from the cpu's last switch;
 * the first one per cpu is skipped. raw_only: update state and the raw
 * table only (data before all cpus are valid). */
int sched_switch_compact(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, int64_t prev_state, int64_t next_pid,
                         int64_t next_prio, const char *comm, size_t comm_len,
                         int raw_only);
/* waker_tid woke wakee_tid: a runnable thread_state (irq context from
 * common_flags when >= 0). */
int sched_waking(trace_context *ctx, const kernel_scope *s, int64_t ts,
                 int64_t waker_tid, int64_t wakee_tid, const char *comm,
                 size_t comm_len, int64_t common_flags);
/* A compact sched_waking on cpu: the waker is the task running there. */
int sched_waking_compact(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, int64_t pid, int64_t target_cpu,
                         int64_t prio, const char *comm, size_t comm_len,
                         int64_t common_flags, int raw_only);
/* io_wait < 0: unknown; function may be NULL. */
int sched_blocked_reason(trace_context *ctx, const kernel_scope *s,
                         int64_t tid, int64_t io_wait, const char *function,
                         size_t function_len);

/* A whole interval in one thread state, from formats that state them
 * directly (Chrome JSON phase T): a thread_state row [ts, ts + dur) with
 * `state` ("Running", "S", "D"...) and no cpu, and for "Running" on a cpu
 * (cpu >= 0) a sched slice there too, of priority 0. io_wait < 0: unknown. Independent of the
 * switch-driven bookkeeping (no open rows are closed or opened). Unlike
 * kernel data, it does not name the idle thread "swapper". */
int sched_state_interval(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         int64_t dur, uint32_t utid, const char *state,
                         size_t state_len, int64_t cpu, int64_t io_wait);

/* ---- process lifetime ---- */
int sched_task_newtask(trace_context *ctx, const kernel_scope *s, int64_t ts,
                       int64_t source_tid, int64_t new_tid, const char *comm,
                       size_t comm_len, uint64_t clone_flags);
int sched_task_rename(trace_context *ctx, const kernel_scope *s, int64_t tid,
                      const char *comm, size_t comm_len);
int sched_process_free(trace_context *ctx, const kernel_scope *s, int64_t ts,
                       int64_t tid);

/* ---- counters ---- */
/* A counter on the cpu track (name, type) of cpu, e.g. ("cpufreq",
 * "cpu_frequency"). */
int sched_cpu_counter(trace_context *ctx, const kernel_scope *s, int64_t ts,
                      uint32_t cpu, const char *name, const char *type,
                      double value);
/* A counter on a process track of the process of `tid`, created if needed. */
int sched_process_counter(trace_context *ctx, const kernel_scope *s,
                          int64_t ts, uint32_t upid, const char *name,
                          double value);
int sched_global_counter(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         const char *name, double value);
/* rss_stat and rss_stat_throttled: member, size; curr/mm_id < 0 when absent. */
int sched_rss_stat(trace_context *ctx, const kernel_scope *s, int64_t ts,
                   int64_t tid, int64_t member, int64_t size, int64_t curr,
                   int64_t mm_id);
/* dmabuf_rss_stat of thread tid: its rss (bytes) on its process's
 * mem.dmabuf_rss counter, as rss_stat's values (track when loading ends). */
int sched_dmabuf_rss(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                     double rss);

#endif
