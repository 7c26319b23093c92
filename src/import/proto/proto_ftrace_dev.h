/* proto_ftrace_dev: the network, device and memory ftrace events of the
 * proto importer — TCP states, NAPI GRO, device byte counters, kfree_skb
 * (model/knet.h); UFS, f2fs iostat, cros_ec sensors, CMA allocations
 * (model/kdev.h); ion / dma heap stats (model/kmem.h); V4L2 buffers
 * (model/kv4l2.h); virtio-video (model/kvirtio.h). Called by proto_ftrace.c's
 * dispatch for the events it does not handle itself. */
#ifndef WEFT_PROTO_FTRACE_DEV_H
#define WEFT_PROTO_FTRACE_DEV_H

#include "import/proto/proto_ftrace.h"
#include "model/sched.h"

/* Event `id` (FtraceEvent field number) of task `pid` on `cpu`, its fields
 * below PROTO_FTRACE_MAX_FIELDS in `fs` and its message in `payload` (the
 * wider events are read from it); WEFT_OK for events it does not know. */
int proto_ftrace_dev(trace_context *ctx, const kernel_scope *sc, int64_t ts, int64_t pid,
                     uint32_t cpu, uint32_t id, const proto_ftrace_fields *fs,
                     proto_span payload);

#endif
