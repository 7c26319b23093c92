/* kmem: kernel memory heap accounting events (ftrace ion_stat and
 * dma_heap_stat), Perfetto's rules:
 *  - the heap's total_allocated is a machine-wide counter ("mem.ion", type
 *    ion / "mem.dma_heap", type android_dma_heap);
 *  - the change `len` is a counter on the writing thread's track
 *    ("mem.ion_change", type ion_change / "mem.dma_heap_change", type
 *    android_dma_heap_change; dimension utid);
 *  - each buffer (ion buffer_id / dma inode) is a slice named "<len / 1024>
 *    kB", begun by a positive len and ended by any other, on the compressed
 *    track set "mem.ion_buffer" (type android_ion_allocations) /
 *    "mem.dma_buffer" (android_dma_allocations) keyed by the buffer. */
#ifndef WEFT_MODEL_KMEM_H
#define WEFT_MODEL_KMEM_H

#include "model/sched.h"

typedef enum kmem_heap {
  KMEM_HEAP_ION,
  KMEM_HEAP_DMA,
} kmem_heap;

int kmem_heap_stat(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                   kmem_heap heap, uint64_t buffer, int64_t len, uint64_t total);

/* ion_heap_grow / ion_heap_shrink (change = +len / -len): the heap's
 * total (total_allocated + change, as the event reports the total before
 * the change) on the machine's "mem.ion.<heap>" counter (type ion), the
 * change on the writing thread's "mem.ion_change.<heap>" (type ion_change);
 * both have the dimension heap_name; no heap name (heap NULL): "unknown". */
int kmem_ion_heap_change(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                         const char *heap, size_t heap_len, int64_t change, int64_t total);

/* The buffer track sets (model_state.kmem). */
typedef struct kmem_state kmem_state;
void kmem_state_free(kmem_state *k);

#endif
