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

/* What a GpuInfo says of a gpu: the given columns (STRING_NULL: not given,
 * the row keeps its value) and its extra info args (-1: none given). */
typedef struct gpu_description {
  string_id name, vendor, model, architecture, uuid, pci_bdf;
  int64_t arg_set;
} gpu_description;
int gpu_describe(trace_context *ctx, uint32_t machine, uint32_t gpu_id,
                 const gpu_description *d);

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

/* A gpu_context row (pid < 0: NULL; api NULL: none). */
int gpu_context(trace_context *ctx, int64_t context_id, int64_t pid, const char *api);

/* The slice track of a GPU render stage set (hw queue): one track per set
 * while its slices do not overlap; a slice [ts, ts + dur] takes the first
 * track of the set whose last slice ended by ts, else a new one. `set_key`
 * names the set; `index` receives the track's index in it. */
typedef struct gpu_stage_track_spec {
  uint64_t set_key;
  uint32_t machine, gpu_id;
  const char *name;          /* the track's name */
  const char *source;        /* render_stage_source: "id" or "iid" */
  uint64_t hw_queue_id;
  string_id hw_queue_name;   /* STRING_NULL: no hwqueue_name dimension */
  string_id description;     /* STRING_NULL: no description source arg */
} gpu_stage_track_spec;
int gpu_stage_track(trace_context *ctx, const gpu_stage_track_spec *spec, int64_t ts,
                    int64_t dur, uint32_t *track);
/* The first track of a set, if it has one: 1 and *track. */
int gpu_stage_default_track(trace_context *ctx, uint64_t set_key, uint32_t *track);

#endif
