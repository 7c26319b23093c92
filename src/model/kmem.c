/* Kernel memory heap accounting events. See kmem.h. */
#include "model/kmem.h"

#include <stdio.h>

#include "model/context.h"
#include "model/model.h"
#include "model/track_compressor.h"

struct kmem_state {
  track_compressor buffers;
};

void kmem_state_free(kmem_state *k) {
  if (!k) return;
  track_compressor_free(&k->buffers);
  base_free(k);
}

typedef struct kmem_names {
  const char *total, *total_type, *change, *change_type, *buffer, *buffer_type;
} kmem_names;

static const kmem_names kmem_heaps[] = {
    [KMEM_HEAP_ION] = {"mem.ion", "ion", "mem.ion_change", "ion_change", "mem.ion_buffer",
                       "android_ion_allocations"},
    [KMEM_HEAP_DMA] = {"mem.dma_heap", "android_dma_heap", "mem.dma_heap_change",
                       "android_dma_heap_change", "mem.dma_buffer", "android_dma_allocations"},
};

/* The dma heap change's args: the buffer's inode. */
static int kmem_change_args(trace_context *ctx, kmem_heap heap, uint64_t buffer,
                            int64_t *args) {
  *args = -1;
  if (heap != KMEM_HEAP_DMA) return WEFT_OK;
  int rc = model_arg_int(ctx, "inode", 5, MODEL_ARG_UINT, (int64_t)buffer);
  return rc ? rc : model_args_commit(ctx, args);
}

/* A counter on the track (name, type) of the machine, or of thread utid
 * when utid >= 0 (then with the change's args, made after the track). An
 * ion heap's tracks have a heap_name dimension, NULL for ion_stat's (before
 * utid), as Perfetto's ion blueprints; the dma heap's have none. */
static int kmem_counter(trace_context *ctx, uint32_t machine, kmem_heap heap, int64_t utid,
                        int64_t ts, const char *name, const char *type, double value,
                        uint64_t buffer) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = 1;
  spec.machine = machine;
  spec.utid = utid;
  if (heap == KMEM_HEAP_ION) {
    spec.dim_key = "heap_name";
    spec.dim_null = 1;
    spec.dim_first = 2;
  }
  uint32_t track;
  int64_t args = -1;
  int rc = model_track(ctx, &spec, &track);
  if (!rc && utid >= 0) rc = kmem_change_args(ctx, heap, buffer, &args);
  return rc ? rc : model_counter(ctx, track, ts, value, args);
}

/* The track of buffer `buffer` in the heap's set, its slot's nesting
 * updated for `ev`. */
static int kmem_buffer_track(trace_context *ctx, uint32_t machine, kmem_heap heap,
                             uint64_t buffer, track_compressor_event ev, uint32_t *track) {
  if (!ctx->model.kmem && !(ctx->model.kmem = base_calloc(1, sizeof *ctx->model.kmem)))
    return WEFT_ENOMEM;
  track_compressor *c = &ctx->model.kmem->buffers;
  uint32_t set, idx;
  int rc = track_compressor_use(c, base_hash_u64((uint64_t)machine << 8 | heap) >> 1,
                                (int64_t)buffer, ev, &set, &idx);
  if (rc) return rc;
  uint32_t *slot = track_compressor_track(c, set, idx);
  if (*slot == TRACK_COMPRESSOR_NO_TRACK) {
    model_track_spec spec;
    model_track_spec_init(&spec);
    spec.name = kmem_heaps[heap].buffer;
    spec.type = kmem_heaps[heap].buffer_type;
    spec.machine = machine;
    spec.compressor_idx = idx;
    spec.group_key = model_track_group_key(c, set);
    rc = model_track(ctx, &spec, slot);
    if (rc) return rc;
  }
  *track = *slot;
  return WEFT_OK;
}

int kmem_heap_stat(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                   kmem_heap heap, uint64_t buffer, int64_t len, uint64_t total) {
  const kmem_names *n = &kmem_heaps[heap];
  uint32_t utid, track, slice;
  int rc = kmem_counter(ctx, s->machine, heap, -1, ts, n->total, n->total_type,
                        (double)total, buffer);
  if (!rc) rc = model_thread(ctx, s->machine, tid, &utid);
  if (!rc) rc = kmem_counter(ctx, s->machine, heap, utid, ts, n->change, n->change_type,
                             (double)len, buffer);
  if (!rc) rc = kmem_buffer_track(ctx, s->machine, heap, buffer,
                                  len > 0 ? TRACK_COMPRESSOR_BEGIN : TRACK_COMPRESSOR_END,
                                  &track);
  if (rc) return rc;
  if (len <= 0) {
    int64_t ended;
    return model_slice_end(ctx, track, ts, &ended);
  }
  char size[32];
  string_id name;
  int size_len = snprintf(size, sizeof size, "%lld kB", (long long)(len / 1024));
  rc = ctx_intern(ctx, size, (size_t)size_len, &name);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
}

int kmem_ion_heap_change(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                         const char *heap, size_t heap_len, int64_t change, int64_t total) {
  char total_name[255], change_name[255]; /* Perfetto's buffers: cut to 254 bytes */
  int hl = heap ? (int)(heap_len > 512 ? 512 : heap_len) : 7;
  const char *h = heap ? heap : "unknown";
  snprintf(total_name, sizeof total_name, "mem.ion.%.*s", hl, h);
  snprintf(change_name, sizeof change_name, "mem.ion_change.%.*s", hl, h);
  char heap_dim[513];
  snprintf(heap_dim, sizeof heap_dim, "%.*s", hl, h);
  uint32_t utid, track;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = total_name;
  spec.type = "ion";
  spec.is_counter = 1;
  spec.machine = s->machine;
  spec.dim_key = "heap_name";
  spec.dim_str = heap_dim;
  int rc = model_track(ctx, &spec, &track);
  if (!rc) rc = model_counter(ctx, track, ts, (double)(total + change), -1);
  if (!rc) rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (rc) return rc;
  spec.name = change_name;
  spec.type = "ion_change";
  spec.utid = utid;
  spec.dim_first = 2; /* heap_name, then utid */
  rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, (double)change, -1);
}
