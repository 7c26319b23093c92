/* Kernel slices of timers, memory reclaim, cpu hotplug, signals and
 * secure monitor calls (the kslice module, see kslice.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/kslice_internal.h"
#include "model/model.h"

int kslice_local_timer(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                       int entry) {
  uint32_t track;
  int64_t ended;
  int rc = kslice_cpu_track(ctx, s, cpu, "Irq Cpu %u", "cpu_irq", &track);
  if (rc) return rc;
  return entry ? kslice_begin_irq(ctx, track, ts, "IRQ (LocalTimer)", 16)
               : model_slice_end(ctx, track, ts, &ended);
}

int kslice_hrtimer(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                   int entry, uint64_t function) {
  uint32_t track, slice;
  int64_t ended;
  int rc = kslice_cpu_track(ctx, s, cpu, "Hrtimer Cpu %u", "cpu_hrtimer", &track);
  if (rc || !entry) return rc ? rc : model_slice_end(ctx, track, ts, &ended);
  char buf[24];
  int n = snprintf(buf, sizeof buf, "0x%" PRIx64, function);
  string_id name, category;
  rc = ctx_intern(ctx, buf, (size_t)n, &name);
  if (!rc) rc = ctx_intern(ctx, "hrtimer", 7, &category);
  return rc ? rc : model_slice_begin(ctx, track, ts, category, name, -1, &slice);
}

int kslice_reclaim_event(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                         const kslice_reclaim *r) {
  uint32_t track, slice;
  int64_t ended, args = -1;
  string_id name;
  const char *kind = r->memcg ? "memcg_reclaim" : "direct_reclaim";
  char key[48];
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (rc) return rc;
  if (!r->begin) {
    rc = model_slice_end(ctx, track, ts, &ended);
    snprintf(key, sizeof key, "%s_nr_reclaimed", kind);
    return rc || ended < 0 ? rc : kslice_add_end_arg_typed(ctx, ended, key, NULL,
                                                           MODEL_ARG_UINT, r->nr_reclaimed);
  }
  snprintf(key, sizeof key, "mm_vmscan_%s", kind);
  rc = ctx_intern(ctx, key, strlen(key), &name);
  snprintf(key, sizeof key, "%s_order", kind);
  if (!rc) rc = model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, r->order);
  snprintf(key, sizeof key, "%s_may_writepage", kind);
  if (!rc) rc = model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, r->may_writepage);
  snprintf(key, sizeof key, "%s_gfp_flags", kind);
  if (!rc) rc = model_arg_int(ctx, key, strlen(key), MODEL_ARG_UINT, r->gfp_flags);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, args, &slice);
}

int kslice_cpuhp(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t cpu,
                 uint32_t action_cpu, int enter, int64_t idx) {
  uint32_t track, slice;
  int64_t ended, args = -1;
  string_id name, category;
  int rc = kslice_cpu_track(ctx, s, cpu, "CPU Hotplug %u", "cpu_hotplug", &track);
  if (rc || !enter) return rc ? rc : model_slice_end(ctx, track, ts, &ended);
  char buf[32];
  int n = snprintf(buf, sizeof buf, "cpuhp(%" PRId64 ")", idx);
  rc = ctx_intern(ctx, buf, (size_t)n, &name);
  if (!rc) rc = ctx_intern(ctx, "cpu", 3, &category);
  if (!rc) rc = model_arg_int(ctx, "action_cpu", 10, MODEL_ARG_UINT, action_cpu);
  if (!rc) rc = model_arg_int(ctx, "cpuhp_idx", 9, MODEL_ARG_INT, idx);
  if (!rc) rc = model_args_commit(ctx, &args);
  else model_args_discard(ctx);
  return rc ? rc : model_slice_begin(ctx, track, ts, category, name, args, &slice);
}

int kslice_signal(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                  int generated, int64_t sig) {
  uint32_t track, slice;
  string_id name;
  int64_t args = -1;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  const char *n = generated ? "signal_generate" : "signal_deliver";
  if (!rc) rc = ctx_intern(ctx, n, strlen(n), &name);
  if (!rc) rc = model_arg_int(ctx, "signal.sig", 10, MODEL_ARG_INT, sig);
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, args, &slice);
}

int kslice_scm_call(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                    int start, uint64_t x0) {
  uint32_t track, slice;
  int64_t ended;
  int rc = kslice_thread_track(ctx, s, tid, &track);
  if (rc || !start) return rc ? rc : model_slice_end(ctx, track, ts, &ended);
  char buf[48];
  int n = snprintf(buf, sizeof buf, "scm id=%#" PRIx64, x0);
  string_id name;
  rc = ctx_intern(ctx, buf, (size_t)n, &name);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, -1, &slice);
}
