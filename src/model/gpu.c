/* GPUs and GPU counters. See gpu.h. */
#include "model/gpu.h"

#include <string.h>

#include "model/context.h"
#include "model/model.h"

struct gpu_state {
  base_map ugpu_of;   /* machine << 32 | gpu id -> ugpu */
  base_map last_row;  /* counter track -> its last counter row */
};

void gpu_state_free(gpu_state *g) {
  if (!g) return;
  base_map_free(&g->ugpu_of);
  base_map_free(&g->last_row);
  base_free(g);
}

static gpu_state *gpu_get(trace_context *ctx) {
  if (!ctx->model.gpu) ctx->model.gpu = base_calloc(1, sizeof(gpu_state));
  return ctx->model.gpu;
}

int gpu_ugpu(trace_context *ctx, uint32_t machine, uint32_t gpu_id, uint32_t *ugpu) {
  gpu_state *g = gpu_get(ctx);
  if (!g) return WEFT_ENOMEM;
  uint64_t key = (uint64_t)machine << 32 | gpu_id;
  uint64_t *found = base_map_find(&g->ugpu_of, key);
  if (found) {
    *ugpu = (uint32_t)*found;
    return WEFT_OK;
  }
  storage_table *t = ctx_table(ctx, TABLE_GPU);
  int rc = storage_table_append(t, ugpu);
  if (rc) return rc;
  storage_set_i64(t, GPU_gpu, *ugpu, gpu_id);
  storage_set_i64(t, GPU_machine_id, *ugpu, model_machine_column(machine));
  return base_map_insert(&g->ugpu_of, key, *ugpu, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

static int gpu_dim_track(trace_context *ctx, model_track_spec *s, uint32_t gpu_id, int64_t upid,
                         uint32_t *track, int *created);

/* The source arg description of a new counter track. */
static int gpu_counter_track_source(trace_context *ctx, uint32_t track,
                                    const gpu_counter_spec *spec) {
  int64_t source = -1;
  int rc = model_arg_string(ctx, "description", 11, spec->description ? spec->description : "",
                            spec->description_len, MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(ctx, &source);
  if (!rc) model_track_set_arg_sets(ctx, track, -1, source);
  return rc;
}

int gpu_counter_track(trace_context *ctx, uint32_t machine, uint32_t gpu_id,
                      const gpu_counter_spec *spec, uint32_t *track, int *created) {
  char name[256];
  size_t len = spec->name_len < sizeof name - 1 ? spec->name_len : sizeof name - 1;
  memcpy(name, spec->name, len);
  name[len] = '\0';
  model_track_spec s;
  model_track_spec_init(&s);
  s.name = name;
  s.type = "gpu_counter";
  s.is_counter = 1;
  s.machine = machine;
  s.unit = spec->unit;
  int rc = gpu_dim_track(ctx, &s, gpu_id, -1, track, created);
  return rc || !*created ? rc : gpu_counter_track_source(ctx, *track, spec);
}

/* A track keyed by (spec, gpu id, upid) whose dimensions are ugpu, gpu and
 * (upid >= 0) upid; *created: 1 if it is new. */
static int gpu_dim_track(trace_context *ctx, model_track_spec *s, uint32_t gpu_id, int64_t upid,
                         uint32_t *track, int *created) {
  uint32_t ugpu;
  int rc = gpu_ugpu(ctx, s->machine, gpu_id, &ugpu);
  if (rc) return rc;
  s->extra_key = ((uint64_t)gpu_id + 1) << 32 | (uint64_t)(upid + 1);
  size_t before = ctx_table(ctx, TABLE_TRACK)->row_count;
  if ((rc = model_track(ctx, s, track)) != 0) return rc;
  *created = *track >= before;
  if (!*created) return WEFT_OK;
  int64_t dims = -1;
  rc = model_arg_int(ctx, "ugpu", 4, MODEL_ARG_INT, ugpu);
  if (!rc) rc = model_arg_int(ctx, "gpu", 3, MODEL_ARG_INT, gpu_id);
  if (!rc && upid >= 0) rc = model_arg_int(ctx, "upid", 4, MODEL_ARG_INT, upid);
  if (!rc) rc = model_args_commit(ctx, &dims);
  if (!rc) model_track_set_arg_sets(ctx, *track, dims, -1);
  return rc;
}

int gpu_counter(trace_context *ctx, uint32_t machine, uint32_t gpu_id, int64_t upid,
                const char *name, const char *type, const char *unit, int64_t ts, double value) {
  model_track_spec s;
  model_track_spec_init(&s);
  s.name = name;
  s.type = type;
  s.unit = unit;
  s.is_counter = 1;
  s.machine = machine;
  s.upid = upid;
  uint32_t track;
  int created;
  int rc = gpu_dim_track(ctx, &s, gpu_id, upid, &track, &created);
  return rc ? rc : model_counter(ctx, track, ts, value, -1);
}

int gpu_counter_group(trace_context *ctx, int64_t group_id, uint32_t track, string_id name,
                      string_id description) {
  storage_table *t = ctx_table(ctx, TABLE_GPU_COUNTER_GROUP);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, GPU_COUNTER_GROUP_group_id, row, group_id);
  storage_set_i64(t, GPU_COUNTER_GROUP_track_id, row, track);
  storage_set_str(t, GPU_COUNTER_GROUP_name, row, name);
  storage_set_str(t, GPU_COUNTER_GROUP_description, row, description);
  return WEFT_OK;
}

int gpu_counter_value(trace_context *ctx, uint32_t track, int64_t ts, double value,
                      int backwards) {
  if (!backwards) return model_counter(ctx, track, ts, value, -1);
  gpu_state *g = gpu_get(ctx);
  if (!g) return WEFT_ENOMEM;
  uint32_t row;
  int rc = model_counter_row(ctx, track, ts, 0, -1, &row);
  if (rc) return rc;
  uint64_t *slot;
  int ins = base_map_insert(&g->last_row, track, row, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 0) model_counter_set_value(ctx, (uint32_t)*slot, value);
  *slot = row;
  return WEFT_OK;
}
