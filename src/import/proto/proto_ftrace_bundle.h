/* proto_ftrace_bundle: an FtraceEventBundle's own fields (its cpu, loss
 * flag, compact_sched, valid-from time and clock) and the clock its
 * timestamps are on. Pure readers over the bundle's bytes and the host's
 * clock services; owns nothing. */
#ifndef WEFT_PROTO_FTRACE_BUNDLE_H
#define WEFT_PROTO_FTRACE_BUNDLE_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

typedef struct proto_ftrace_bundle {
  uint32_t cpu;
  int has_cpu, lost_events, has_valid_from;
  int64_t valid_from;
  proto_span compact;
  int has_compact;
  uint64_t ftrace_clock;         /* PROTO_FTRACE_CLOCK_* */
  int has_ftrace_ts, has_boot_ts;
  int64_t ftrace_ts, boot_ts;    /* a snapshot of the ftrace clock */
} proto_ftrace_bundle;

/* The bundle's own fields (not its events). */
void proto_ftrace_bundle_read(proto_span b, proto_ftrace_bundle *out);

/* The clock of a bundle's timestamps: boottime unless ftrace_clock says
 * otherwise; the kernel's global/local trace clocks are one clock (id 64,
 * as in Perfetto) that the bundle's (ftrace_timestamp,
 * boot_timestamp) pair relates to boottime. An unknown clock fails the
 * load, as in Perfetto. */
int proto_ftrace_bundle_clock(import_file *f, const proto_ftrace_bundle *b,
                              uint32_t machine, uint32_t *clock, base_error *err);

#endif
