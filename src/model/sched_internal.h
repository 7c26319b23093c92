/* sched_internal: what sched.c shares with sched_counters.c. */
#ifndef WEFT_SCHED_INTERNAL_H
#define WEFT_SCHED_INTERNAL_H

#include "model/sched.h"

/* The kernel state of the context, made at its first use. */
int kernel_get(trace_context *ctx, kernel_state **out);
/* The upid of a thread, or -1 when it has none. */
int64_t sched_thread_upid(trace_context *ctx, uint32_t utid);
/* hash(machine, mm_id) -> utid of rss_stat events. */
base_map *kernel_rss_mm(kernel_state *k);

#endif
