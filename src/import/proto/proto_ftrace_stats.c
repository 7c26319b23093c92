/* FtraceStats packets: per-cpu ring buffer stats (begin, end and their
 * delta), setup errors and ring-buffer parse errors. See proto_misc.h. */
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_misc.h"

#define PROTO_FTRACE_STATUS_ZERO_DATA_LENGTH 12

/* The counted per-cpu fields; the begin, end and delta stats of each are
 * consecutive in stats.def (delta absent for oldest_event_ts/now_ts). */
typedef struct proto_ftrace_cpu_field {
  uint32_t field;
  stats_id begin;
  int has_delta, is_seconds;
} proto_ftrace_cpu_field;

static const proto_ftrace_cpu_field proto_ftrace_cpu_fields[] = {
    {PROTO_FTRACE_CPU_STATS_ENTRIES, stat_ftrace_cpu_entries_begin, 1, 0},
    {PROTO_FTRACE_CPU_STATS_OVERRUN, stat_ftrace_cpu_overrun_begin, 1, 0},
    {PROTO_FTRACE_CPU_STATS_COMMIT_OVERRUN, stat_ftrace_cpu_commit_overrun_begin, 1, 0},
    {PROTO_FTRACE_CPU_STATS_BYTES_READ, stat_ftrace_cpu_bytes_begin, 1, 0},
    {PROTO_FTRACE_CPU_STATS_DROPPED_EVENTS, stat_ftrace_cpu_dropped_events_begin, 1, 0},
    {PROTO_FTRACE_CPU_STATS_READ_EVENTS, stat_ftrace_cpu_read_events_begin, 1, 0},
    {PROTO_FTRACE_CPU_STATS_NOW_TS, stat_ftrace_cpu_now_ts_begin, 0, 1},
    {PROTO_FTRACE_CPU_STATS_OLDEST_EVENT_TS, stat_ftrace_cpu_oldest_event_ts_begin, 0, 1},
};
#define PROTO_FTRACE_CPU_FIELDS \
  (sizeof proto_ftrace_cpu_fields / sizeof *proto_ftrace_cpu_fields)

/* Seconds as whole nanoseconds, saturating (the kernel's oldest event time
 * can be huge). */
static int64_t proto_ftrace_seconds_ns(double s) {
  double ns = s * 1e9;
  if (ns >= 9.2233720368547758e18) return INT64_MAX;
  if (ns <= -9.2233720368547758e18) return INT64_MIN;
  if (ns != ns) return 0;
  return (int64_t)ns;
}

/* One cpu's values (absent fields are 0) as begin (phase 0) or end (1)
 * stats; at the end, each counter's delta from its begin, when one was set. */
static int proto_ftrace_cpu_stats(import_file *f, int phase, proto_span msg) {
  int64_t values[PROTO_FTRACE_CPU_FIELDS] = {0};
  int64_t cpu = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_FTRACE_CPU_STATS_CPU && fl.wire_type == PROTO_WIRE_VARINT)
      cpu = (int64_t)fl.value;
    for (size_t i = 0; i < PROTO_FTRACE_CPU_FIELDS; i++) {
      const proto_ftrace_cpu_field *d = &proto_ftrace_cpu_fields[i];
      if (d->field != fl.number) continue;
      if (d->is_seconds && fl.wire_type == PROTO_WIRE_FIXED64)
        values[i] = proto_ftrace_seconds_ns(proto_field_double(&fl));
      else if (!d->is_seconds && fl.wire_type == PROTO_WIRE_VARINT)
        values[i] = (int64_t)fl.value;
    }
  }
  /* Perfetto's row order: the counters, their deltas, the oldest event. */
  stats_store *s = &f->ctx->stats;
  const size_t oldest = PROTO_FTRACE_CPU_FIELDS - 1;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < oldest; i++)
    rc = stats_set(s, (stats_id)(proto_ftrace_cpu_fields[i].begin + phase), cpu, f->machine,
                   f->trace_id, values[i]);
  for (size_t i = 0; !rc && phase == 1 && i < oldest; i++) {
    const proto_ftrace_cpu_field *d = &proto_ftrace_cpu_fields[i];
    int64_t begin;
    if (d->has_delta && stats_get(s, d->begin, cpu, f->machine, f->trace_id, &begin))
      rc = stats_set(s, (stats_id)(d->begin + 2), cpu, f->machine, f->trace_id,
                     (int64_t)((uint64_t)values[i] - (uint64_t)begin));
  }
  if (!rc)
    rc = stats_set(s, (stats_id)(proto_ftrace_cpu_fields[oldest].begin + phase), cpu,
                   f->machine, f->trace_id, values[oldest]);
  return rc;
}

/* Failed and unknown ftrace events and atrace errors of a sequence's first
 * start-of-trace stats that has any: one ftrace_setup_errors each. */
static int proto_ftrace_setup_errors(import_file *f, proto_misc_state *m, uint32_t seq_id,
                                     proto_span msg) {
  if (base_map_find(&m->ftrace_error_seqs, seq_id)) return WEFT_OK;
  int64_t errors = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == PROTO_FTRACE_STATS_FAILED_FTRACE_EVENTS ||
        fl.number == PROTO_FTRACE_STATS_UNKNOWN_FTRACE_EVENTS)
      errors++;
    if (fl.number == PROTO_FTRACE_STATS_ATRACE_ERRORS && fl.span.len > 0) errors++;
  }
  if (errors == 0) return WEFT_OK;
  uint64_t *slot;
  int rc = base_map_insert(&m->ftrace_error_seqs, seq_id, 1, &slot);
  if (rc < 0) return rc;
  return stats_add(&f->ctx->stats, stat_ftrace_setup_errors, -1, f->machine, f->trace_id,
                   errors);
}

static int proto_ftrace_parse_error(import_file *f, proto_misc_state *m, uint64_t status) {
  if (status == PROTO_FTRACE_STATUS_ZERO_DATA_LENGTH)
    return stats_add(&f->ctx->stats, stat_ftrace_abi_errors_skipped_zero_data_length, -1,
                     f->machine, f->trace_id, 1);
  m->ftrace_critical |= status < 32 ? UINT32_C(1) << status : UINT32_C(1);
  return WEFT_OK;
}

/* The parse errors, packed or not. */
static int proto_ftrace_parse_errors(import_file *f, proto_misc_state *m, const proto_field *fl) {
  if (fl->wire_type == PROTO_WIRE_VARINT) return proto_ftrace_parse_error(f, m, fl->value);
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_packed_iter it;
  uint64_t v;
  proto_packed_init(&it, fl->span);
  while (proto_packed_next_varint(&it, &v) == 1) {
    int rc = proto_ftrace_parse_error(f, m, v);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int proto_ftrace_stats(import_file *f, proto_misc_state *m, uint32_t seq_id, proto_span msg) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_FTRACE_STATS_PHASE, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT ||
      (fl.value != PROTO_FTRACE_STATS_PHASE_START_OF_TRACE &&
       fl.value != PROTO_FTRACE_STATS_PHASE_END_OF_TRACE))
    return WEFT_OK; /* unknown phase: ignored */
  int phase = fl.value == PROTO_FTRACE_STATS_PHASE_END_OF_TRACE;
  proto_reader r;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_FTRACE_STATS_CPU_STATS && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_ftrace_cpu_stats(f, phase, fl.span);
    if (fl.number == PROTO_FTRACE_STATS_FTRACE_PARSE_ERRORS)
      rc = proto_ftrace_parse_errors(f, m, &fl);
  }
  if (!rc && !phase) rc = proto_ftrace_setup_errors(f, m, seq_id, msg);
  return rc;
}

static const char *const proto_ftrace_status_names[] = {
    "FTRACE_STATUS_UNSPECIFIED", "FTRACE_STATUS_OK",
    "FTRACE_STATUS_UNEXPECTED_READ_ERROR", "FTRACE_STATUS_PARTIAL_PAGE_READ",
    "FTRACE_STATUS_ABI_INVALID_PAGE_HEADER", "FTRACE_STATUS_ABI_SHORT_EVENT_HEADER",
    "FTRACE_STATUS_ABI_NULL_PADDING", "FTRACE_STATUS_ABI_SHORT_PADDING_LENGTH",
    "FTRACE_STATUS_ABI_INVALID_PADDING_LENGTH", "FTRACE_STATUS_ABI_SHORT_TIME_EXTEND",
    "FTRACE_STATUS_ABI_SHORT_TIME_STAMP", "FTRACE_STATUS_ABI_SHORT_DATA_LENGTH",
    "FTRACE_STATUS_ABI_ZERO_DATA_LENGTH", "FTRACE_STATUS_ABI_INVALID_DATA_LENGTH",
    "FTRACE_STATUS_ABI_SHORT_EVENT_ID", "FTRACE_STATUS_ABI_END_OVERFLOW",
    "FTRACE_STATUS_SHORT_COMPACT_EVENT", "FTRACE_STATUS_INVALID_EVENT",
};

int proto_ftrace_stats_end(const proto_misc_state *m, base_error *err) {
  if (!m->ftrace_critical) return WEFT_OK;
  char names[512] = "";
  size_t n = sizeof proto_ftrace_status_names / sizeof *proto_ftrace_status_names;
  for (size_t i = 0; i < 32; i++) {
    if (!(m->ftrace_critical & (UINT32_C(1) << i))) continue;
    const char *name = i < n ? proto_ftrace_status_names[i] : "unknown status";
    size_t used = strlen(names);
    snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", name);
  }
  return base_error_set(err, WEFT_EPARSE,
                        "the trace was recorded with critical ftrace parsing errors "
                        "(a bug in Perfetto or the kernel): %s (ERR:ftrace_parse)",
                        names);
}
