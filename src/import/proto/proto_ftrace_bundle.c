/* FtraceEventBundle fields and clock. See proto_ftrace_bundle.h. */
#include "import/proto/proto_ftrace_bundle.h"

#include <string.h>

#include "import/proto/proto_fields.h"

/* The clock id Perfetto gives the kernel's global/local trace clock. */
#define PROTO_FTRACE_GLOBAL_CLOCK 64

void proto_ftrace_bundle_read(proto_span b, proto_ftrace_bundle *out) {
  memset(out, 0, sizeof *out);
  proto_reader r;
  proto_field fl;
  int has_prev_end = 0;
  proto_reader_init_span(&r, b);
  while (proto_reader_next(&r, &fl) == 1) {
    switch (fl.number) {
      case PROTO_FTRACE_EVENT_BUNDLE_CPU: out->cpu = (uint32_t)fl.value; out->has_cpu = 1; break;
      case PROTO_FTRACE_EVENT_BUNDLE_LOST_EVENTS: out->lost_events = fl.value != 0; break;
      case PROTO_FTRACE_EVENT_BUNDLE_COMPACT_SCHED:
        if (fl.wire_type == PROTO_WIRE_LEN) { out->compact = fl.span; out->has_compact = 1; }
        break;
      case PROTO_FTRACE_EVENT_BUNDLE_PREVIOUS_BUNDLE_END_TIMESTAMP:
        out->valid_from = (int64_t)fl.value;
        out->has_valid_from = has_prev_end = 1;
        break;
      case PROTO_FTRACE_EVENT_BUNDLE_FTRACE_CLOCK: out->ftrace_clock = fl.value; break;
      case PROTO_FTRACE_EVENT_BUNDLE_FTRACE_TIMESTAMP:
        out->ftrace_ts = (int64_t)fl.value;
        out->has_ftrace_ts = 1;
        break;
      case PROTO_FTRACE_EVENT_BUNDLE_BOOT_TIMESTAMP:
        out->boot_ts = (int64_t)fl.value;
        out->has_boot_ts = 1;
        break;
      case PROTO_FTRACE_EVENT_BUNDLE_LAST_READ_EVENT_TIMESTAMP:
        if (!has_prev_end) { out->valid_from = (int64_t)fl.value; out->has_valid_from = 1; }
        break;
      default: break;
    }
  }
}

int proto_ftrace_bundle_clock(import_file *f, const proto_ftrace_bundle *b,
                                     uint32_t machine, uint32_t *clock, base_error *err) {
  uint64_t id;
  switch (b->ftrace_clock) {
    case PROTO_FTRACE_CLOCK_UNSPECIFIED: id = PROTO_BUILTIN_CLOCK_BOOTTIME; break;
    case PROTO_FTRACE_CLOCK_GLOBAL:
    case PROTO_FTRACE_CLOCK_LOCAL: id = PROTO_FTRACE_GLOBAL_CLOCK; break;
    case PROTO_FTRACE_CLOCK_MONO_RAW: id = PROTO_BUILTIN_CLOCK_MONOTONIC_RAW; break;
    default:
      return base_error_set(err, WEFT_EINVAL,
                            "Unable to parse ftrace packets with unknown clock");
  }
  int rc = import_clock_on(f, machine, 0, id, clock);
  if (!rc && id == PROTO_FTRACE_GLOBAL_CLOCK && b->has_ftrace_ts && b->has_boot_ts) {
    const uint64_t ids[2] = {PROTO_FTRACE_GLOBAL_CLOCK, PROTO_BUILTIN_CLOCK_BOOTTIME};
    const int64_t values[2] = {b->ftrace_ts, b->boot_ts};
    rc = import_clock_snapshot_on(f, machine, 0, ids, values, 2);
  }
  return base_error_alloc(err, rc);
}
