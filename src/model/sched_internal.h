/* sched_internal: what sched.c shares with sched_counters.c. */
#ifndef WEFT_SCHED_INTERNAL_H
#define WEFT_SCHED_INTERNAL_H

#include "model/sched.h"

/* The kernel state of the context, made at its first use. */
int kernel_get(trace_context *ctx, uint32_t machine, kernel_state **out);
/* The upid of a thread, or -1 when it has none. */
int64_t sched_thread_upid(trace_context *ctx, uint32_t utid);
/* hash(machine, mm_id) -> utid of rss_stat events. */
base_map *kernel_rss_mm(kernel_state *k);

/* An rss_stat value waiting for its track (kcounter_process_memory): its
 * counter row, its thread and machine, and its track name. */
/* A counter row of a thread's value whose track (its process's, else the
 * thread's fallback) is chosen when loading ends: a process memory counter
 * `name`, an oom_score_adj, or mm_event metric `metric` of `mm_type`. */
typedef enum kernel_memory_kind {
  KERNEL_MEMORY_RSS, KERNEL_MEMORY_OOM_SCORE_ADJ, KERNEL_MEMORY_MM_EVENT
} kernel_memory_kind;
typedef struct kernel_memory_value {
  uint32_t row, utid, machine;
  kernel_memory_kind kind;
  const char *name; /* static; KERNEL_MEMORY_RSS */
  uint8_t mm_type, metric; /* KERNEL_MEMORY_MM_EVENT */
} kernel_memory_value;
typedef VEC(kernel_memory_value) kernel_memory_values;
/* The values in counter row order. */
kernel_memory_values *kernel_memory_pending(kernel_state *k);

#endif
