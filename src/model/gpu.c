/* GPUs and GPU counters. See gpu.h. */
#include "model/gpu.h"

#include <string.h>

#include "model/context.h"
#include "model/model.h"

typedef struct gpu_stage_slot {
  uint32_t track;
  int64_t end; /* the end of its last slice */
} gpu_stage_slot;

typedef struct gpu_stage_set {
  VEC(gpu_stage_slot) slots;
} gpu_stage_set;

struct gpu_state {
  base_map ugpu_of;   /* machine << 32 | gpu id -> ugpu */
  base_map last_row;  /* counter track -> its last counter row */
  base_map set_of;    /* render stage set key -> index in sets */
  VEC(gpu_stage_set) sets;
};

void gpu_state_free(gpu_state *g) {
  if (!g) return;
  base_map_free(&g->ugpu_of);
  base_map_free(&g->last_row);
  base_map_free(&g->set_of);
  for (size_t i = 0; i < g->sets.len; i++) VEC_FREE(g->sets.data[i].slots);
  VEC_FREE(g->sets);
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

int gpu_describe(trace_context *ctx, uint32_t machine, uint32_t gpu_id,
                 const gpu_description *d) {
  uint32_t ugpu;
  int rc = gpu_ugpu(ctx, machine, gpu_id, &ugpu);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_GPU);
  const string_id cols[] = {d->name, d->vendor, d->model, d->architecture, d->uuid, d->pci_bdf};
  for (size_t i = 0; !rc && i < sizeof cols / sizeof *cols; i++)
    if (cols[i] != STRING_NULL) rc = storage_set_str(t, GPU_name + i, ugpu, cols[i]);
  if (!rc && d->arg_set >= 0) rc = storage_set_i64(t, GPU_arg_set_id, ugpu, d->arg_set);
  return rc;
}

static int gpu_dim_track(trace_context *ctx, model_track_spec *s, uint32_t gpu_id, int64_t upid,
                         int name_dim, uint32_t *track, int *created);

/* The source arg description of a new counter track: a NULL string when
 * the spec has none (as Perfetto interns an absent string field). */
static int gpu_counter_track_source(trace_context *ctx, uint32_t track,
                                    const gpu_counter_spec *spec) {
  int64_t source = -1;
  int rc = model_arg_string(ctx, "description", 11, spec->description, spec->description_len,
                            MODEL_ARG_STRING);
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
  int rc = gpu_dim_track(ctx, &s, gpu_id, -1, 1, track, created);
  return rc || !*created ? rc : gpu_counter_track_source(ctx, *track, spec);
}

/* A track keyed by (spec, gpu id, upid) whose dimensions are ugpu, gpu,
 * (upid >= 0) upid and (name_dim) its name; *created: 1 if it is new. */
static int gpu_dim_track(trace_context *ctx, model_track_spec *s, uint32_t gpu_id, int64_t upid,
                         int name_dim, uint32_t *track, int *created) {
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
  if (!rc && name_dim) rc = model_arg_string(ctx, "name", 4, s->name, strlen(s->name), MODEL_ARG_STRING);
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
  int rc = gpu_dim_track(ctx, &s, gpu_id, upid, 0, &track, &created);
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

int gpu_context(trace_context *ctx, int64_t context_id, int64_t pid, const char *api) {
  storage_table *t = ctx_table(ctx, TABLE_GPU_CONTEXT);
  uint32_t row;
  string_id a = STRING_NULL;
  int rc = api ? ctx_intern(ctx, api, strlen(api), &a) : WEFT_OK;
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, GPU_CONTEXT_context_id, row, context_id);
  if (pid >= 0) storage_set_i64(t, GPU_CONTEXT_pid, row, pid);
  storage_set_str(t, GPU_CONTEXT_api, row, a);
  return WEFT_OK;
}

/* ---- render stage tracks ---- */

static int gpu_stage_set_of(gpu_state *g, uint64_t key, gpu_stage_set **set) {
  uint64_t *slot;
  int ins = base_map_insert(&g->set_of, key, g->sets.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 1) {
    gpu_stage_set empty = {0};
    if (VEC_PUSH(g->sets, empty)) return WEFT_ENOMEM;
  }
  *set = &g->sets.data[*slot];
  return WEFT_OK;
}

static int gpu_arg_string(trace_context *ctx, const char *key, string_id value) {
  return model_arg_string(ctx, key, strlen(key), base_string_pool_get(&ctx->strings, value),
                          base_string_pool_len(&ctx->strings, value), MODEL_ARG_STRING);
}

static int gpu_stage_new_track(trace_context *ctx, const gpu_stage_track_spec *spec,
                               uint32_t index, uint32_t *track) {
  uint32_t ugpu;
  int rc = gpu_ugpu(ctx, spec->machine, spec->gpu_id, &ugpu);
  if (rc) return rc;
  model_track_spec s;
  model_track_spec_init(&s);
  s.name = spec->name;
  s.type = "gpu_render_stage";
  s.machine = spec->machine;
  s.extra_key = base_hash_u64(spec->set_key) ^ index;
  if ((rc = model_track(ctx, &s, track)) != 0) return rc;
  int64_t dims = -1, source = -1;
  rc = model_arg_int(ctx, "ugpu", 4, MODEL_ARG_INT, ugpu);
  if (!rc) rc = model_arg_int(ctx, "gpu", 3, MODEL_ARG_INT, spec->gpu_id);
  if (!rc) rc = model_arg_string(ctx, "render_stage_source", 19, spec->source,
                                 strlen(spec->source), MODEL_ARG_STRING);
  if (!rc) rc = model_arg_int(ctx, "hwqueue_id", 10, MODEL_ARG_INT, (int64_t)spec->hw_queue_id);
  if (!rc) rc = gpu_arg_string(ctx, "hwqueue_name", spec->hw_queue_name); /* NULL: unnamed */
  if (!rc) rc = model_arg_int(ctx, "track_compressor_idx", 20, MODEL_ARG_INT, index);
  if (!rc) rc = model_args_commit(ctx, &dims);
  if (!rc && spec->description) {
    rc = gpu_arg_string(ctx, "description", spec->description);
    if (!rc) rc = model_args_commit(ctx, &source);
  }
  if (!rc) model_track_set_arg_sets(ctx, *track, dims, source);
  return rc;
}

int gpu_stage_track(trace_context *ctx, const gpu_stage_track_spec *spec, int64_t ts,
                    int64_t dur, uint32_t *track) {
  gpu_state *g = gpu_get(ctx);
  gpu_stage_set *set;
  if (!g) return WEFT_ENOMEM;
  int rc = gpu_stage_set_of(g, spec->set_key, &set);
  if (rc) return rc;
  int64_t end = dur > 0 ? ts + dur : ts;
  for (size_t i = 0; i < set->slots.len; i++) {
    if (set->slots.data[i].end > ts) continue;
    set->slots.data[i].end = end;
    *track = set->slots.data[i].track;
    return WEFT_OK;
  }
  gpu_stage_slot slot = {0, end};
  rc = gpu_stage_new_track(ctx, spec, (uint32_t)set->slots.len, &slot.track);
  if (!rc) rc = VEC_PUSH(set->slots, slot);
  if (!rc) *track = slot.track;
  return rc;
}

int gpu_stage_default_track(trace_context *ctx, uint64_t set_key, uint32_t *track) {
  gpu_state *g = ctx->model.gpu;
  uint64_t *found = g ? base_map_find(&g->set_of, set_key) : NULL;
  if (!found || !g->sets.data[*found].slots.len) return 0;
  *track = g->sets.data[*found].slots.data[0].track;
  return 1;
}
