/* kvirtio: virtio-video buffers and commands (model/kvirtio.h). */
#include "model/kvirtio.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/model.h"
#include "model/track_compressor.h"

struct kvirtio_state {
  track_compressor sets;
};

enum { KVIRTIO_QUEUE_INPUT = 0x100, KVIRTIO_QUEUE_OUTPUT = 0x101 };
#define KVIRTIO_CMD_DUR 100000

static const char *const kvirtio_commands[] = {
    "QUERY_CAPABILITY", "STREAM_CREATE",  "STREAM_DESTROY", "STREAM_DRAIN",
    "RESOURCE_CREATE",  "RESOURCE_QUEUE", "RESOURCE_DESTROY_ALL", "QUEUE_CLEAR",
    "GET_PARAMS",       "SET_PARAMS",     "QUERY_CONTROL",  "GET_CONTROL",
    "SET_CONTROL",      "GET_PARAMS_EXT", "SET_PARAMS_EXT"};

void kvirtio_state_free(kvirtio_state *k) {
  if (!k) return;
  track_compressor_free(&k->sets);
  base_free(k);
}

static int kvirtio_get(trace_context *ctx, kvirtio_state **out) {
  if (!ctx->model.kvirtio && !(ctx->model.kvirtio = base_calloc(1, sizeof **out)))
    return WEFT_ENOMEM;
  *out = ctx->model.kvirtio;
  return WEFT_OK;
}

static const char *kvirtio_queue_name(uint32_t queue_type) {
  return queue_type == KVIRTIO_QUEUE_INPUT    ? "INPUT"
         : queue_type == KVIRTIO_QUEUE_OUTPUT ? "OUTPUT"
                                              : "Unknown";
}

/* What identifies a track set: its kind (0 queue, 1 command), machine,
 * stream and queue type or is_response. */
typedef struct kvirtio_set {
  int command;
  uint32_t machine;
  int64_t stream_id, second; /* virtio_queue_type or is_response */
  const char *name;
} kvirtio_set;

static uint64_t kvirtio_set_key(const kvirtio_set *k) {
  uint64_t h = base_hash_u64((uint64_t)k->command << 40 ^ k->machine);
  h = base_hash_u64(h ^ (uint64_t)k->stream_id);
  return base_hash_u64(h ^ (uint64_t)k->second);
}

/* The track of slot `idx` of set k, made with its dimensions when new. */
static int kvirtio_track(trace_context *ctx, const kvirtio_set *k, uint32_t idx,
                         uint32_t *track) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = k->name;
  spec.type = k->command ? "virtio_video_command" : "virtio_video_queue_event";
  spec.machine = k->machine;
  spec.extra_key = kvirtio_set_key(k) ^ idx;
  spec.group_key = model_track_group_key(k, kvirtio_set_key(k));
  int64_t dims = -1;
  int rc = model_track(ctx, &spec, track);
  if (!rc) rc = model_arg_int(ctx, "virtio_stream_id", 16, MODEL_ARG_INT, k->stream_id);
  if (!rc)
    rc = k->command ? model_arg_int(ctx, "is_response", 11, MODEL_ARG_INT, k->second)
                    : model_arg_int(ctx, "virtio_queue_type", 17, MODEL_ARG_INT, k->second);
  if (!rc) rc = model_arg_int(ctx, "track_compressor_idx", 20, MODEL_ARG_INT, idx);
  if (!rc) rc = model_args_commit(ctx, &dims);
  else model_args_discard(ctx);
  if (!rc) model_track_set_arg_sets(ctx, *track, dims, -1);
  return rc;
}

/* The track of set k a cookie event (ev) or, scoped, a command uses. */
static int kvirtio_set_track(trace_context *ctx, const kvirtio_set *k, int scoped, int64_t ts,
                             int64_t cookie, track_compressor_event ev, uint32_t *track) {
  kvirtio_state *s;
  uint32_t set, idx;
  int rc = kvirtio_get(ctx, &s);
  if (rc) return rc;
  uint64_t key = kvirtio_set_key(k);
  rc = scoped ? track_compressor_use_scoped(&s->sets, key, ts, KVIRTIO_CMD_DUR, &set, &idx)
              : track_compressor_use(&s->sets, key, cookie, ev, &set, &idx);
  if (rc) return rc;
  uint32_t *slot = track_compressor_track(&s->sets, set, idx);
  if (*slot == TRACK_COMPRESSOR_NO_TRACK) {
    uint32_t made;
    rc = kvirtio_track(ctx, k, idx, &made);
    if (rc) return rc;
    slot = track_compressor_track(&s->sets, set, idx);
    *slot = made;
  }
  *track = *slot;
  return WEFT_OK;
}

static int kvirtio_done_args(trace_context *ctx, const kvirtio_queue_event *e, int64_t *args) {
  static const char *const sizes[] = {"data_size0", "data_size1", "data_size2", "data_size3"};
  const char *queue = kvirtio_queue_name(e->queue_type);
  int rc = model_arg_int(ctx, "stream_id", 9, MODEL_ARG_INT, e->stream_id);
  if (!rc) rc = model_arg_int(ctx, "resource_id", 11, MODEL_ARG_INT, e->resource_id);
  if (!rc) rc = model_arg_string(ctx, "queue_type", 10, queue, strlen(queue), MODEL_ARG_STRING);
  for (int i = 0; !rc && i < 4; i++)
    rc = model_arg_int(ctx, sizes[i], 10, MODEL_ARG_INT, e->data_size[i]);
  if (!rc) rc = model_arg_int(ctx, "timestamp", 9, MODEL_ARG_UINT, (int64_t)e->timestamp);
  if (!rc) return model_args_commit(ctx, args);
  model_args_discard(ctx);
  return rc;
}

int kvirtio_queue(trace_context *ctx, const kernel_scope *s, int64_t ts,
                  const kvirtio_queue_event *e) {
  char name[64];
  snprintf(name, sizeof name, "virtio_video stream #%" PRId32 " %s", e->stream_id,
           kvirtio_queue_name(e->queue_type));
  kvirtio_set k = {0, s->machine, e->stream_id, e->queue_type, name};
  uint64_t h = base_hash_u64((uint64_t)(uint32_t)e->stream_id);
  h = base_hash_u64(h ^ (uint64_t)(uint32_t)e->resource_id);
  int64_t cookie = (int64_t)base_hash_u64(h ^ e->queue_type);
  uint32_t track;
  int rc = kvirtio_set_track(ctx, &k, 0, ts, cookie,
                             e->done ? TRACK_COMPRESSOR_END : TRACK_COMPRESSOR_BEGIN, &track);
  if (rc) return rc;
  if (!e->done) {
    char slice_name[64];
    string_id name_id;
    uint32_t slice;
    int n = snprintf(slice_name, sizeof slice_name, "Resource #%" PRId32, e->resource_id);
    rc = ctx_intern(ctx, slice_name, (size_t)n, &name_id);
    return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name_id, -1, &slice);
  }
  int64_t slice, args = -1;
  rc = model_slice_end(ctx, track, ts, &slice);
  if (rc || slice < 0) return rc;
  rc = kvirtio_done_args(ctx, e, &args);
  if (!rc) model_slice_set_args(ctx, (uint32_t)slice, args);
  return rc;
}

int kvirtio_command(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t stream_id,
                    uint32_t type, int response) {
  char name[64];
  snprintf(name, sizeof name, "virtio_video stream #%" PRId32 " %s", (int32_t)stream_id,
           response ? "Responses" : "Requests");
  kvirtio_set k = {1, s->machine, stream_id, response, name};
  uint32_t track, slice;
  int rc = kvirtio_set_track(ctx, &k, 1, ts, 0, TRACK_COMPRESSOR_INSTANT, &track);
  size_t n = sizeof kvirtio_commands / sizeof *kvirtio_commands;
  const char *cmd = type >= 0x100 && type - 0x100 < n ? kvirtio_commands[type - 0x100]
                                                      : "Unknown";
  string_id name_id;
  if (!rc) rc = ctx_intern(ctx, cmd, strlen(cmd), &name_id);
  return rc ? rc
            : model_slice_complete(ctx, track, ts, KVIRTIO_CMD_DUR, STRING_NULL, name_id, -1,
                                   &slice);
}
