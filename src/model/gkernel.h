/* gkernel: the generic kernel model — task state events of kernels without
 * ftrace (GenericKernelTaskStateEvent and friends) become thread_state rows,
 * sched slices and thread lifetimes.
 *
 * Owns the per-(file, machine, cpu) running task (its open sched slice),
 * the per-(file, thread) last thread_state row and the slice a thread was
 * switched out of before its own state event arrived ("hanging" slice):
 * each trace file keeps its own, as each of Perfetto's importer contexts
 * does; threads are the machine's. Rules:
 *  - states: CREATED "Created", RUNNABLE "R", RUNNING "Running",
 *    INTERRUPTIBLE_SLEEP "S", UNINTERRUPTIBLE_SLEEP "D", STOPPED "T",
 *    DEAD "Z", DESTROYED "X"; UNKNOWN or out of range: stat
 *    task_state_invalid, the event is dropped.
 *  - CREATED starts a new thread (start_ts) unless the tid is live
 *    (generic_task_state_invalid_order, dropped); DESTROYED ends the thread
 *    (end_ts; the next event of the tid is a new thread), creating it if
 *    unknown; any other state after DEAD, or RUNNING after RUNNING, is
 *    invalid (stat, dropped).
 *  - RUNNING on a cpu opens a sched slice there; the task that was running
 *    on it is switched out with an unknown end state (its thread_state gets
 *    a NULL-state row). A non-running state of the cpu's running task closes
 *    its slice with that end state; of a task switched out at this very ts
 *    it becomes that slice's end state and its NULL-state row's state.
 *  - every state row closes the thread's previous one; two rows of a thread
 *    at one ts count generic_task_state_invalid_order (both are kept).
 *  - the swapper (tid 0) gets no thread_state rows.
 * Names from these events rank as ftrace's (a process tree's name stays);
 * an empty comm names nothing. */
#ifndef WEFT_MODEL_GKERNEL_H
#define WEFT_MODEL_GKERNEL_H

#include "model/sched.h"

typedef struct gkernel_state gkernel_state;

typedef struct gkernel_task_event {
  int64_t ts;
  int64_t tid;
  int64_t cpu;   /* the field as sent (0 when absent) */
  int64_t state; /* TaskStateEnum value */
  int64_t prio;
  const char *comm; /* may be NULL */
  size_t comm_len;
} gkernel_task_event;

void gkernel_state_free(gkernel_state *g);

int gkernel_task_state(trace_context *ctx, const kernel_scope *s,
                       const gkernel_task_event *e);
/* A thread renamed (created if unknown); the main thread's process too. */
int gkernel_task_rename(trace_context *ctx, const kernel_scope *s, int64_t tid,
                        const char *comm, size_t comm_len);
/* A process-tree process: name = cmdline up to its first space, parent
 * the process of ppid (both made without a main thread if new). */
int gkernel_tree_process(trace_context *ctx, const kernel_scope *s, int64_t pid,
                         int64_t ppid, const char *cmdline, size_t cmdline_len);
/* A process-tree thread of process pid; comm NULL: unnamed. */
int gkernel_tree_thread(trace_context *ctx, const kernel_scope *s, int64_t tid,
                        int64_t pid, const char *comm, size_t comm_len,
                        int is_main, int is_idle);

#endif
