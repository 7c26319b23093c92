/* Trace diagnostics: known-bad TraceConfig settings, one row per finding in
 * __intrinsic_trace_diagnostics (key, title, description, remediation,
 * confidence in [0, 1]). Each rule reads the config and, for some, the stats
 * or machine info already loaded; confidence rises to 0.9 where the trace
 * shows the data loss the setting risks. See proto_misc.h. */
#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_misc.h"
#include "model/columns.h"

#define DIAG_MAX_DESC 512
#define DIAG_MAX_BUFFERS 64

typedef struct diag_ctx {
  import_file *f;
  int ftrace_data_loss; /* the trace recorded ftrace data loss */
  int rc;               /* first error */
} diag_ctx;

static void diag_add(diag_ctx *d, const char *key, const char *title, const char *desc,
                     const char *remediation, double confidence) {
  if (d->rc) return;
  d->rc = model_diagnostic(d->f->ctx, d->f->trace_id, key, title, desc, remediation,
                           confidence);
}

/* ---- config views ---- */

typedef struct diag_ftrace {
  uint64_t buffer_kb, drain_ms;
  int has_buffer_kb, has_drain_ms;
  int symbolize_ksyms, function_graph, has_syscall_filter;
  int has_raw_syscalls;
  const char *ksym_event; /* first enabled event that needs symbolize_ksyms */
} diag_ftrace;

static int diag_span_is(proto_span s, const char *lit) {
  size_t n = strlen(lit);
  return s.len == n && memcmp(s.data, lit, n) == 0;
}

static void diag_ftrace_read(proto_span msg, diag_ftrace *c) {
  static const char *const ksym_events[] = {"workqueue/workqueue_execute_start",
                                            "sched/sched_blocked_reason"};
  memset(c, 0, sizeof *c);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int var = fl.wire_type == PROTO_WIRE_VARINT, len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_FTRACE_CONFIG_FTRACE_EVENTS:
        if (!len) break;
        if (diag_span_is(fl.span, "raw_syscalls/sys_enter") ||
            diag_span_is(fl.span, "raw_syscalls/sys_exit"))
          c->has_raw_syscalls = 1;
        for (size_t i = 0; i < 2 && !c->ksym_event; i++)
          if (diag_span_is(fl.span, ksym_events[i])) c->ksym_event = ksym_events[i];
        break;
      case PROTO_FTRACE_CONFIG_BUFFER_SIZE_KB:
        if (var) { c->buffer_kb = (uint32_t)fl.value; c->has_buffer_kb = 1; }
        break;
      case PROTO_FTRACE_CONFIG_DRAIN_PERIOD_MS:
        if (var) { c->drain_ms = (uint32_t)fl.value; c->has_drain_ms = 1; }
        break;
      case PROTO_FTRACE_CONFIG_SYMBOLIZE_KSYMS: if (var) c->symbolize_ksyms = fl.value != 0; break;
      case PROTO_FTRACE_CONFIG_ENABLE_FUNCTION_GRAPH: if (var) c->function_graph = fl.value != 0; break;
      case PROTO_FTRACE_CONFIG_SYSCALL_EVENTS: if (len) c->has_syscall_filter = 1; break;
      default: break;
    }
  }
}

/* Calls fn for each DataSourceConfig of the TraceConfig. */
typedef void (*diag_ds_fn)(diag_ctx *d, proto_span ds_config, void *user);

static void diag_each_data_source(diag_ctx *d, proto_span config, diag_ds_fn fn, void *user) {
  proto_reader r;
  proto_field fl, cfg;
  proto_reader_init_span(&r, config);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_TRACE_CONFIG_DATA_SOURCES || fl.wire_type != PROTO_WIRE_LEN) continue;
    if (proto_find_last(fl.span.data, fl.span.len, PROTO_TRACE_CONFIG_DATA_SOURCE_CONFIG, &cfg) != 1 ||
        cfg.wire_type != PROTO_WIRE_LEN)
      continue;
    fn(d, cfg.span, user);
  }
}

/* ---- ftrace rules ---- */

static void diag_tiny_buffer(diag_ctx *d, const diag_ftrace *c) {
  const double ok_kb = 1024, severe_kb = 64;
  if (!c->has_buffer_kb || c->buffer_kb == 0 || c->buffer_kb >= (uint64_t)ok_kb) return;
  double kb = (double)c->buffer_kb;
  double conf = kb <= severe_kb ? 0.9 : 0.9 - 0.7 * (kb - severe_kb) / (ok_kb - severe_kb);
  if (d->ftrace_data_loss) conf = 0.9;
  char desc[DIAG_MAX_DESC];
  snprintf(desc, sizeof desc,
           "ftrace buffer_size_kb is only %llu KB (< 1 MB); the per-CPU kernel buffer can "
           "overrun and drop events under load.",
           (unsigned long long)c->buffer_kb);
  diag_add(d, "tiny_ftrace_buffer", "Ftrace buffer too small", desc,
           "Leave buffer_size_kb unset to get the default size, or raise it to at least 1 MB.",
           conf);
}

static void diag_drain_bandwidth(diag_ctx *d, const diag_ftrace *c) {
  const double ok = 5.0, severe = 1.0; /* MB/s */
  if (!c->has_buffer_kb || !c->has_drain_ms || !c->buffer_kb || !c->drain_ms) return;
  double mb_per_s = ((double)c->buffer_kb / 1024.0) / ((double)c->drain_ms / 1000.0);
  if (mb_per_s >= ok) return;
  double conf = mb_per_s <= severe ? 0.9 : 0.9 * (ok - mb_per_s) / (ok - severe);
  if (d->ftrace_data_loss) conf = 0.9;
  char desc[DIAG_MAX_DESC];
  snprintf(desc, sizeof desc,
           "ftrace can drain at most %.2f MB/s (buffer_size_kb=%llu every drain_period_ms=%llu), "
           "under 5 MB/s; a burst of events can fill the buffer before it is read.",
           mb_per_s, (unsigned long long)c->buffer_kb, (unsigned long long)c->drain_ms);
  diag_add(d, "low_ftrace_drain_bandwidth", "Low ftrace drain bandwidth", desc,
           "Leave buffer_size_kb and drain_period_ms unset, or enlarge the buffer / shorten "
           "the drain period so that more than 5 MB/s can be drained.",
           conf);
}

static void diag_drain_period(diag_ctx *d, const diag_ftrace *c) {
  if (!c->has_drain_ms || (c->drain_ms >= 100 && c->drain_ms <= 60000)) return;
  char desc[DIAG_MAX_DESC];
  snprintf(desc, sizeof desc,
           "ftrace drain_period_ms is %llu, outside [100, 60000]: either many wake-ups or "
           "buffers left unread for too long.",
           (unsigned long long)c->drain_ms);
  diag_add(d, "extreme_ftrace_drain_period", "Extreme ftrace drain period", desc,
           "Leave drain_period_ms unset, or keep it between 100 ms and 60 s.", 0.6);
}

static void diag_syscalls(diag_ctx *d, const diag_ftrace *c) {
  if (!c->has_raw_syscalls || c->has_syscall_filter) return;
  diag_add(d, "syscalls_without_filter", "Unfiltered syscall tracing",
           "raw_syscalls sys_enter/sys_exit are enabled with no syscall_events filter, so "
           "every syscall is recorded; traces get large and costly.",
           "List the syscalls of interest in syscall_events.",
           d->ftrace_data_loss ? 0.9 : 0.3);
}

static void diag_ksyms(diag_ctx *d, const diag_ftrace *c) {
  if (c->symbolize_ksyms) return;
  if (c->function_graph)
    diag_add(d, "function_graph_requires_symbolize_ksyms", "Function graph needs symbolize_ksyms",
             "enable_function_graph records kernel addresses, which cannot be named later "
             "without symbolize_ksyms.",
             "Set symbolize_ksyms: true in the ftrace config.", 1.0);
  if (!c->ksym_event) return;
  char desc[DIAG_MAX_DESC];
  snprintf(desc, sizeof desc,
           "ftrace event %s is enabled without symbolize_ksyms; its kernel symbol fields "
           "stay raw addresses that cannot be resolved later.",
           c->ksym_event);
  diag_add(d, "events_require_symbolize_ksyms", "Events need symbolize_ksyms", desc,
           "Set symbolize_ksyms: true in the ftrace config.", 0.6);
}

static void diag_ftrace_source(diag_ctx *d, proto_span ds, void *user) {
  (void)user;
  proto_field fl;
  if (proto_find_last(ds.data, ds.len, PROTO_DATA_SOURCE_CONFIG_FTRACE_CONFIG, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN)
    return;
  diag_ftrace c;
  diag_ftrace_read(fl.span, &c);
  diag_tiny_buffer(d, &c);
  diag_drain_bandwidth(d, &c);
  diag_drain_period(d, &c);
  diag_syscalls(d, &c);
  diag_ksyms(d, &c);
}

/* ---- buffer / other data source rules ---- */

typedef struct diag_discard {
  uint8_t is_discard[DIAG_MAX_BUFFERS];
  size_t buffers;
} diag_discard;

static void diag_discard_source(diag_ctx *d, proto_span ds, void *user) {
  diag_discard *b = user;
  proto_field fl;
  proto_span name = {NULL, 0};
  uint64_t target = 0;
  if (proto_find_last(ds.data, ds.len, PROTO_DATA_SOURCE_CONFIG_NAME, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN)
    name = fl.span;
  if (proto_find_last(ds.data, ds.len, PROTO_DATA_SOURCE_CONFIG_TARGET_BUFFER, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    target = (uint32_t)fl.value;
  int streamed = diag_span_is(name, "linux.ftrace") || diag_span_is(name, "track_event");
  if (!streamed || target >= b->buffers || !b->is_discard[target]) return;
  char desc[DIAG_MAX_DESC];
  snprintf(desc, sizeof desc,
           "data source \"%.*s\" writes into a DISCARD buffer while the trace is streamed to "
           "a file; recording stops once that buffer first fills.",
           (int)name.len, (const char *)name.data);
  diag_add(d, "discard_buffer_for_streaming", "DISCARD buffer for streaming", desc,
           "Use the RING_BUFFER fill policy for buffers of ftrace or track_event in long "
           "(streamed) traces.",
           0.8);
}

static void diag_discard_buffers(diag_ctx *d, proto_span config) {
  proto_field fl;
  if (proto_find_last(config.data, config.len, PROTO_TRACE_CONFIG_WRITE_INTO_FILE, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT || !fl.value)
    return;
  /* A period of a week or more is a single final write, not streaming. */
  if (proto_find_last(config.data, config.len, PROTO_TRACE_CONFIG_FILE_WRITE_PERIOD_MS, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT && (uint32_t)fl.value >= 604800000u)
    return;
  diag_discard b;
  memset(&b, 0, sizeof b);
  proto_reader r;
  proto_reader_init_span(&r, config);
  while (proto_reader_next(&r, &fl) == 1 && b.buffers < DIAG_MAX_BUFFERS) {
    if (fl.number != PROTO_TRACE_CONFIG_BUFFERS || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_field p;
    b.is_discard[b.buffers++] =
        proto_find_last(fl.span.data, fl.span.len, PROTO_BUFFER_CONFIG_FILL_POLICY, &p) == 1 &&
        p.wire_type == PROTO_WIRE_VARINT && p.value == PROTO_FILL_POLICY_DISCARD;
  }
  diag_each_data_source(d, config, diag_discard_source, &b);
}

static int diag_heapprofd_errors(const trace_context *ctx) {
  static const stats_id errors[] = {
      stat_heapprofd_buffer_corrupted, stat_heapprofd_hit_guardrail,
      stat_heapprofd_buffer_overran,   stat_heapprofd_client_error,
      stat_heapprofd_malformed_packet, stat_heapprofd_missing_packet,
      stat_heapprofd_rejected_concurrent};
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (stats_total(&ctx->stats, errors[i]) > 0) return 1;
  return 0;
}

static void diag_heapprofd_source(diag_ctx *d, proto_span ds, void *user) {
  (void)user;
  proto_field fl, iv;
  if (proto_find_last(ds.data, ds.len, PROTO_DATA_SOURCE_CONFIG_HEAPPROFD_CONFIG, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN ||
      proto_find_last(fl.span.data, fl.span.len, PROTO_HEAPPROFD_CONFIG_SAMPLING_INTERVAL_BYTES,
                      &iv) != 1 ||
      iv.wire_type != PROTO_WIRE_VARINT || iv.value == 0 || iv.value >= 100 * 1024)
    return;
  char desc[DIAG_MAX_DESC];
  snprintf(desc, sizeof desc,
           "heapprofd sampling_interval_bytes is %llu (< 100 KB); such small intervals add "
           "overhead without making the profile meaningfully more accurate.",
           (unsigned long long)iv.value);
  diag_add(d, "heapprofd_sampling_interval_too_low", "Heapprofd sampling interval too low",
           desc, "Use a sampling_interval_bytes of at least 100 KB.",
           diag_heapprofd_errors(d->f->ctx) ? 0.9 : 0.3);
}

static void diag_has_display_video(diag_ctx *d, proto_span ds, void *user) {
  (void)d;
  proto_field fl;
  if (proto_find_last(ds.data, ds.len, PROTO_DATA_SOURCE_CONFIG_NAME, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN && diag_span_is(fl.span, "android.display.video"))
    *(int *)user = 1;
}

/* A "user" (production) Android build: fingerprint build type "user". */
static int diag_android_user_build(trace_context *ctx) {
  storage_table *m = ctx_table(ctx, TABLE_MACHINE);
  for (size_t i = 0; i < m->row_count; i++) {
    string_id fp = storage_get_str(m, MACHINE_android_build_fingerprint, i);
    if (fp == STRING_NULL) continue;
    const char *s = base_string_pool_get(&ctx->strings, fp);
    const char *last_colon = strrchr(s, ':');
    if (last_colon && strncmp(last_colon + 1, "user/", 5) == 0) return 1;
  }
  return 0;
}

static int diag_video_errors(const trace_context *ctx) {
  static const stats_id errors[] = {
      stat_android_video_codec_error, stat_android_video_display_gone,
      stat_android_video_no_encoder, stat_android_video_display_not_found,
      stat_android_video_encoder_setup_failed, stat_android_video_virtual_display_failed};
  for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
    if (stats_total(&ctx->stats, errors[i]) > 0) return 1;
  return 0;
}

/* Display video was requested on a user build and nothing (frames or
 * errors) came of it: the gating system property was probably off. weft
 * does not import video frames, so only the error stats can clear it. */
static void diag_display_video(diag_ctx *d, proto_span config) {
  int wanted = 0;
  diag_each_data_source(d, config, diag_has_display_video, &wanted);
  if (!wanted || !diag_android_user_build(d->f->ctx) || diag_video_errors(d->f->ctx)) return;
  diag_add(d, "display_video_not_enabled", "Display video not captured",
           "android.display.video was requested but produced neither frames nor errors; on "
           "user builds it stays off until the debug.tracing_video_allowed property is set.",
           "Run `adb shell setprop debug.tracing_video_allowed true` before recording (again "
           "after every reboot).",
           0.7);
}

static int diag_ftrace_data_loss(const trace_context *ctx) {
  return stats_total(&ctx->stats, stat_ftrace_cpu_has_data_loss) > 0 ||
         stats_total(&ctx->stats, stat_ftrace_cpu_overrun_delta) > 0 ||
         stats_total(&ctx->stats, stat_ftrace_cpu_dropped_events_delta) > 0;
}

int proto_diagnostics_run(import_file *f, proto_span config) {
  diag_ctx d = {f, diag_ftrace_data_loss(f->ctx), WEFT_OK};
  diag_each_data_source(&d, config, diag_ftrace_source, NULL);
  diag_discard_buffers(&d, config);
  diag_each_data_source(&d, config, diag_heapprofd_source, NULL);
  diag_display_video(&d, config);
  return d.rc;
}
