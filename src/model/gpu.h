/* gpu: GPUs and GPU counters — the gpu table (one row per (machine, gpu
 * id), created by the first event naming the gpu), GPU counter tracks
 * (type gpu_counter, dimensions ugpu, gpu and name, source arg
 * description) with their groups, and counter values.
 *
 * Owns the (machine, gpu id) -> ugpu map and, per counter track, its last
 * row. Rules (Perfetto's):
 *  - a GPU counter value is "backwards looking" unless its spec says
 *    otherwise: it is the value the counter had until the sample's time, so
 *    each sample writes 0 at its time and sets the track's previous row to
 *    the reported value; a forwards-looking value is written as is. */
#ifndef WEFT_MODEL_GPU_H
#define WEFT_MODEL_GPU_H

#include "base/base.h"

typedef struct trace_context trace_context;
typedef struct gpu_state gpu_state;

void gpu_state_free(gpu_state *g);

/* The ugpu (gpu table row) of (machine, gpu id), created if new. */
int gpu_ugpu(trace_context *ctx, uint32_t machine, uint32_t gpu_id, uint32_t *ugpu);

typedef struct gpu_counter_spec {
  const char *name, *description; /* not NUL-terminated */
  size_t name_len, description_len;
  const char *unit;               /* NUL-terminated, NULL for none */
} gpu_counter_spec;

/* The counter track of (machine, gpu id, name); *created: 1 if it is new. */
int gpu_counter_track(trace_context *ctx, uint32_t machine, uint32_t gpu_id,
                      const gpu_counter_spec *spec, uint32_t *track, int *created);
/* A value of the counter `name` (type, unit) of (machine, gpu id) or, with
 * upid >= 0, of that process too (dimensions ugpu, gpu[, upid]). */
int gpu_counter(trace_context *ctx, uint32_t machine, uint32_t gpu_id, int64_t upid,
                const char *name, const char *type, const char *unit, int64_t ts, double value);
/* A gpu_counter_group row (name/description STRING_NULL for none). */
int gpu_counter_group(trace_context *ctx, int64_t group_id, uint32_t track, string_id name,
                      string_id description);
/* A sample of a GPU counter (see the backwards-looking rule above). */
int gpu_counter_value(trace_context *ctx, uint32_t track, int64_t ts, double value,
                      int backwards);

#endif
