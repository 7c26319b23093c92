/* proto_process_tree: ProcessTree packets (a /proc scan) into the process
 * and thread tables.
 *
 * Per process: name (argv0, or the comm of kernel threads with kworker
 * workqueue suffixes redacted: "kworker/1:0-events" -> "kworker/1:0"),
 * cmdline (argv joined by spaces), parent (ppid, first one seen wins), uid
 * (with Android app id / user id), start_ts (process_start_from_boot, a
 * BOOTTIME value, placed with the packet's own BOOTTIME offset) and the
 * is_kthread arg; kernel threads get a main thread named after their comm.
 * Then per thread: tid/tgid association and name (a kernel thread's main
 * thread keeps the redacted comm). Processes are applied before threads.
 * A process the tree names first (parents too; an absent ppid is pid 0)
 * gets its main thread; a later different ppid is only counted. */
#ifndef WEFT_PROTO_PROCESS_TREE_H
#define WEFT_PROTO_PROCESS_TREE_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

/* pkt: the whole TracePacket (for its timestamp and clock); defaults: the
 * sequence's TracePacketDefaults or an empty span; ts: its trace time. */
int proto_process_tree_parse(import_file *f, uint32_t machine, int64_t ts,
                             proto_span pkt, proto_span defaults, proto_span tree);

/* The live process of pid; one seen for the first time gets its main
 * thread (tid = pid), adopting a thread of that tid without a process. */
int proto_process_get(trace_context *ctx, uint32_t machine, int64_t pid, uint32_t *upid);

/* ProcessStats (TracePacket field 9) at trace time ts: per process, its
 * memory, oom_score_adj, smaps, runtime and Chrome counters, and the
 * is_peak_rss_resettable arg (proto_process_stats.c). */
int proto_process_stats_parse(import_file *f, uint32_t machine, int64_t ts, proto_span stats);

#endif
