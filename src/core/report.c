/* The after-load drop summary. See report.h. */
#include "core/report.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "clock/clock.h"

typedef struct report_out {
  char *buf;
  size_t cap, used;
  const char *single_name; /* a lone input's name (its row's name is NULL) */
} report_out;

/* What a loss stat means and what to do about it, in words. */
typedef struct report_hint {
  stats_id stat;
  const char *what;  /* after "<count> <what> of <file>" */
  const char *fix;
} report_hint;

static const report_hint report_hints[] = {
    {stat_json_tokenizer_failure, "JSON event(s) could not be read",
     "the file is malformed or cut short (truncated): copy or export it again, "
     "complete"},
    {stat_json_parser_failure, "JSON event(s) could not be parsed",
     "the events are malformed: check the file's traceEvents"},
    {stat_proto_truncated_tail, "trailing byte(s) are an incomplete packet and were "
     "not read", "the file is cut short (truncated): copy it again once it is "
     "complete"},
};

static void report_printf(report_out *o, const char *fmt, ...) {
  if (o->used + 1 >= o->cap) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->buf + o->used, o->cap - o->used, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  o->used += (size_t)n < o->cap - o->used ? (size_t)n : o->cap - o->used - 1;
}

static const char *report_string(trace_context *ctx, string_id id) {
  return id == STRING_NULL ? NULL : base_string_pool_get(&ctx->strings, id);
}

/* "app.json", the lone input's name, or "the trace". */
static const char *report_file_name(const report_out *o, trace_context *ctx,
                                    int64_t trace) {
  storage_table *t = ctx_table(ctx, TABLE_TRACE_FILE);
  const char *name = NULL;
  if (trace >= 0 && (size_t)trace < t->row_count)
    name = report_string(ctx, storage_get_str(t, TRACE_FILE_name, trace));
  if (!name) name = o->single_name;
  return name ? name : "the trace";
}

static void report_machine(report_out *o, trace_context *ctx, int64_t machine) {
  storage_table *t = ctx_table(ctx, TABLE_MACHINE);
  if (machine <= 0 || (size_t)machine >= t->row_count) {
    report_printf(o, "the host machine");
    return;
  }
  const char *name = report_string(ctx, storage_get_str(t, MACHINE_name, machine));
  if (name) report_printf(o, "machine %s", name);
  else report_printf(o, "machine %" PRId64, machine);
}

static void report_clock_failure(report_out *o, trace_context *ctx,
                                 const stats_entry *e) {
  const char *clock = clock_name_from_id(ctx->trace_time_clock);
  report_printf(o, "%" PRId64 " event%s of %s could not be placed: no clock path "
                "from its clocks on ", e->value, e->value == 1 ? "" : "s",
                report_file_name(o, ctx, e->trace));
  report_machine(o, ctx, e->machine);
  report_printf(o, " to trace time (%s on ", clock ? clock : "a custom clock");
  report_machine(o, ctx, (int64_t)ctx->trace_time_machine);
  report_printf(o, "); add a manifest clocks entry relating them\n");
}

static void report_entry(report_out *o, trace_context *ctx, const stats_entry *e) {
  const stats_info *info = &stats_infos[e->stat];
  if (e->stat == stat_clock_sync_failure) {
    report_clock_failure(o, ctx, e);
    return;
  }
  if (e->stat == stat_trace_sorter_negative_timestamp_dropped) {
    report_printf(o, "%" PRId64 " event%s of %s fell before the start of trace time "
                  "and were dropped (trace_sorter_negative_timestamp_dropped): check --offset or the "
                  "manifest's offset_ns\n", e->value,
                  e->value == 1 ? "" : "s", report_file_name(o, ctx, e->trace));
    return;
  }
  for (size_t i = 0; i < sizeof report_hints / sizeof *report_hints; i++) {
    const report_hint *h = &report_hints[i];
    if (h->stat != e->stat) continue;
    report_printf(o, "%s: %" PRId64 " %s (%s); %s\n", report_file_name(o, ctx, e->trace),
                  e->value, h->what, info->name, h->fix);
    return;
  }
  report_printf(o, "%s", info->name);
  if (e->index >= 0) report_printf(o, "[%" PRId64 "]", e->index);
  report_printf(o, " = %" PRId64, e->value);
  if (e->trace >= 0) report_printf(o, " in %s", report_file_name(o, ctx, e->trace));
  if (e->machine > 0) {
    report_printf(o, " on ");
    report_machine(o, ctx, e->machine);
  }
  if (info->description && info->description[0])
    report_printf(o, ": %s", info->description);
  report_printf(o, " (see the stats table)\n");
}

int report_error_stats(trace_context *ctx, const char *single_name, char *buf,
                       size_t cap) {
  if (!buf || cap == 0) return 0;
  buf[0] = '\0';
  report_out o = {buf, cap, 0, single_name};
  int count = 0;
  for (size_t i = 0; i < ctx->stats.entries.len; i++) {
    const stats_entry *e = &ctx->stats.entries.data[i];
    stats_severity severity = stats_infos[e->stat].severity;
    if (e->value == 0 || (severity != STATS_ERROR && severity != STATS_DATA_LOSS))
      continue;
    count++;
    report_entry(&o, ctx, e);
  }
  return count;
}
