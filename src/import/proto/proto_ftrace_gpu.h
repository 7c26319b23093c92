/* proto_ftrace_gpu: the graphics ftrace events of the proto importer — DRM
 * vblank / GPU scheduler / dma_fence events (model/kdrm.h), gpu_mem_total
 * and gpu_frequency (model/gpu.h). Called by proto_ftrace.c's dispatch for
 * the events it does not handle itself. */
#ifndef WEFT_PROTO_FTRACE_GPU_H
#define WEFT_PROTO_FTRACE_GPU_H

#include "import/proto/proto_ftrace.h"
#include "model/sched.h"

/* Event `id` (FtraceEvent field number) with fields `fs`, of task `pid`;
 * WEFT_OK for events it does not know. */
int proto_ftrace_gpu(trace_context *ctx, const kernel_scope *sc, int64_t ts, int64_t pid,
                     uint32_t id, const proto_ftrace_fields *fs);

#endif
