/* atrace: userspace trace markers written to trace_marker (ftrace `print`
 * and the kernel tracing_mark_write look-alikes) and what they become.
 *
 * atrace_parse is a pure parser of one marker:
 *   B|tgid|name          begin a slice on the writing thread
 *   E|tgid  (or just E)  end the innermost slice on the writing thread
 *   C|tgid|name|value[|category]   process-scoped counter
 *   S|tgid|name|cookie / F|tgid|name|cookie   async slice begin / end
 *   I|tgid|name          instant on the writing thread
 *   N|tgid|track|name    instant on a process-scoped named track
 *   G|tgid|track|name|cookie / H|tgid|track[|name]|cookie  async slice on a
 *                        process-scoped named track, begin / end
 * Trailing '\n' and '\0' are ignored. Owns no state; the parsed strings point
 * into the input. atrace_apply writes the model (slices, counters, tracks)
 * through model/ and model/sched.h. Async slices go on Perfetto's
 * compressed track sets (see atrace.c): S/F on "atrace_async_slice", G/H/N
 * on "atrace_async_slice_for_track" tracks (dimensions upid, name,
 * track_compressor_idx); counters on "atrace_counter" tracks (upid, name).
 * lmkd's markers (a "kill_one_process" counter, a B slice named
 * "lmk,<pid>,<reason>,<oom_score_adj>,...") also put a "mem.lmk" instant on
 * the killed process's "LMK" track; the slice sets its oom_score_adj too. */
#ifndef WEFT_MODEL_ATRACE_H
#define WEFT_MODEL_ATRACE_H

#include "base/base.h"
#include "model/sched.h"

typedef enum atrace_result {
  ATRACE_FAILURE = 0,
  ATRACE_UNSUPPORTED,
  ATRACE_SUCCESS
} atrace_result;

typedef struct atrace_point {
  char phase;           /* B E C S F I N G H */
  int64_t tgid;         /* 0 when absent */
  const char *name;     /* B C S F I N G */
  size_t name_len;
  const char *track;    /* N G H */
  size_t track_len;
  int64_t value;        /* C: value; S F G H: cookie */
} atrace_point;

atrace_result atrace_parse(const char *s, size_t len, atrace_point *out);

/* Applies a parsed point written by thread `tid` at ts. */
int atrace_apply(trace_context *ctx, const kernel_scope *scope, int64_t ts,
                 int64_t tid, const atrace_point *p);
/* What atrace_parse returned for a print buffer, applied: the point, a
 * systrace_parse_failure count, or nothing (unsupported). */
int atrace_apply_parsed(trace_context *ctx, const kernel_scope *scope, int64_t ts,
                        int64_t tid, atrace_result parsed, const atrace_point *p);
/* Parses and applies a print buffer; counts systrace_parse_failure. */
int atrace_print(trace_context *ctx, const kernel_scope *scope, int64_t ts,
                 int64_t tid, const char *buf, size_t len);

/* The async track sets and unnestable-track counts (model_state.atrace). */
typedef struct atrace_state atrace_state;
void atrace_state_free(atrace_state *s);

#endif
