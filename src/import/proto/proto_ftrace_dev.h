/* proto_ftrace_dev: the network, device and memory ftrace events of the
 * proto importer — TCP states, NAPI GRO, device byte counters, kfree_skb
 * (model/knet.h); UFS, f2fs iostat, cros_ec sensors, CMA allocations
 * (model/kdev.h); ion / dma heap stats (model/kmem.h); V4L2 buffers
 * (model/kv4l2.h); Exynos ACPM thermal zones (model/kcounter.h);
 * virtio-video (model/kvirtio.h); devfreq and kgsl frequencies, local
 * timer, hrtimer and direct reclaim slices, rss_stat_throttled and
 * dmabuf_rss_stat, suspend_resume_minimal, i2c transfers (model/kslice.h,
 * gpu.h, sched.h, kpower.h, ki2c.h). Called by proto_ftrace.c's dispatch
 * for the events it does not handle itself. */
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

/* thermal_exynos_acpm_bulk carries the time its values were read in its
 * own `timestamp` field: the FtraceEvent is queued at its kernel timestamp
 * (its ftrace_event row) and once more at that time (its counters, as
 * trace time). 1 and *ts: `event` is one with that field; -1: one without
 * it (the event is dropped, counted in ftrace_bundle_tokenizer_errors);
 * 0: another event. */
int proto_ftrace_acpm_time(proto_span event, int64_t *ts);
/* The counters of the thermal_exynos_acpm_bulk event `fs` at ts. */
int proto_ftrace_acpm_bulk(trace_context *ctx, const kernel_scope *sc, int64_t ts,
                           const proto_ftrace_fields *fs);

#endif
