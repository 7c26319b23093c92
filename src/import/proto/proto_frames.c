/* GraphicsFrameEvent packets. See proto_frames.h. */
#include "import/proto/proto_frames.h"

#include <stdio.h>
#include <string.h>

#include "model/columns.h"
#include "model/model.h"

enum { PROTO_FRAME_EVENT_BUFFER_EVENT = 1 };
enum {
  PROTO_BUFFER_FRAME_NUMBER = 1, PROTO_BUFFER_TYPE = 2, PROTO_BUFFER_LAYER_NAME = 3,
  PROTO_BUFFER_DURATION = 4, PROTO_BUFFER_ID = 5
};
enum {
  PROTO_BUFFER_DEQUEUE = 1, PROTO_BUFFER_QUEUE = 2, PROTO_BUFFER_ACQUIRE_FENCE = 4,
  PROTO_BUFFER_LATCH = 5, PROTO_BUFFER_PRESENT_FENCE = 8, PROTO_BUFFER_TYPES = 14
};
#define PROTO_FRAMES_NAME_MAX 4200

/* A buffer (id + layer name): the latest time of each event type and its
 * open phases. */
typedef struct proto_frame_buffer {
  int64_t type_ts[PROTO_BUFFER_TYPES];
  int64_t last_dequeued, last_acquired;
  uint32_t app_track, gpu_track, sf_track;
  int64_t app_slice; /* the APP phase slice begun last, -1 none */
  uint8_t has_app, has_gpu, has_sf;
} proto_frame_buffer;

struct proto_frames_state {
  base_map buffer_of;  /* event key string -> index into buffers */
  VEC(proto_frame_buffer) buffers;
  base_map display_of; /* layer name string -> its open Display track */
};

typedef struct proto_buffer_event {
  uint64_t frame_number, type, duration, buffer_id;
  int has_type, has_buffer, has_layer;
  proto_span layer;
  string_id layer_id; /* "no_layer_name" when absent */
} proto_buffer_event;

void proto_frames_free(proto_frames_state *s) {
  if (!s) return;
  base_map_free(&s->buffer_of);
  VEC_FREE(s->buffers);
  base_map_free(&s->display_of);
  base_free(s);
}

int proto_frames_wants_field(uint32_t number) {
  return number == PROTO_TRACE_PACKET_GRAPHICS_FRAME_EVENT ||
         number == PROTO_TRACE_PACKET_FRAME_TIMELINE_EVENT;
}

static void proto_buffer_event_read(proto_span msg, proto_buffer_event *e) {
  proto_reader r;
  proto_field fl;
  memset(e, 0, sizeof *e);
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int varint = fl.wire_type == PROTO_WIRE_VARINT;
    switch (fl.number) {
      case PROTO_BUFFER_FRAME_NUMBER: if (varint) e->frame_number = (uint32_t)fl.value; break;
      case PROTO_BUFFER_TYPE: if (varint) e->type = fl.value, e->has_type = 1; break;
      case PROTO_BUFFER_DURATION: if (varint) e->duration = fl.value; break;
      case PROTO_BUFFER_ID: if (varint) e->buffer_id = (uint32_t)fl.value, e->has_buffer = 1; break;
      case PROTO_BUFFER_LAYER_NAME:
        if (fl.wire_type == PROTO_WIRE_LEN) e->layer = fl.span, e->has_layer = 1;
        break;
      default: break;
    }
  }
}

static int proto_frames_intern(trace_context *ctx, const char *s, int n, string_id *out) {
  if (n < 0) return WEFT_EINVAL;
  return ctx_intern(ctx, s, (size_t)n < PROTO_FRAMES_NAME_MAX ? (size_t)n : PROTO_FRAMES_NAME_MAX,
                    out);
}

/* The buffer of the event: keyed by "<buffer id><layer name>". */
static int proto_frames_buffer(trace_context *ctx, proto_frames_state *s,
                               const proto_buffer_event *e, proto_frame_buffer **out) {
  char key[PROTO_FRAMES_NAME_MAX];
  int n = snprintf(key, sizeof key, "%llu%.*s", (unsigned long long)e->buffer_id,
                   (int)(e->layer.len < 4096 ? e->layer.len : 4096), (const char *)e->layer.data);
  string_id key_id;
  int rc = proto_frames_intern(ctx, key, n, &key_id);
  if (rc) return rc;
  uint64_t *slot;
  int ins = base_map_insert(&s->buffer_of, key_id, s->buffers.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins > 0) {
    proto_frame_buffer b;
    memset(&b, 0, sizeof b);
    b.app_slice = -1;
    if (VEC_PUSH(s->buffers, b)) return WEFT_ENOMEM;
  }
  *out = &s->buffers.data[*slot];
  return WEFT_OK;
}

/* The graphics_frame_event track "<prefix><id><sep><layer>" (id < 0: none). */
static int proto_frames_track(trace_context *ctx, uint32_t machine, const char *prefix,
                              const proto_buffer_event *e, int with_id, uint32_t *track) {
  char name[PROTO_FRAMES_NAME_MAX];
  int len = e->layer.len < 4096 ? (int)e->layer.len : 4096;
  int n = with_id ? snprintf(name, sizeof name, "%s%llu %.*s", prefix,
                             (unsigned long long)e->buffer_id, len, (const char *)e->layer.data)
                  : snprintf(name, sizeof name, "%s%.*s", prefix, len, (const char *)e->layer.data);
  if (n < 0) return WEFT_EINVAL;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "graphics_frame_event";
  spec.machine = machine;
  spec.dim_key = "name";
  spec.dim_str = name;
  return model_track(ctx, &spec, track);
}

static int proto_frames_key_arg(trace_context *ctx, const char *key, int64_t v) {
  return model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, v);
}

/* The args every frame slice has: frame_number, layer_name. */
static int proto_frames_base_args(trace_context *ctx, int64_t frame, string_id layer) {
  string_id key;
  int rc = proto_frames_key_arg(ctx, "frame_number", frame);
  if (!rc) rc = ctx_intern(ctx, "layer_name", strlen("layer_name"), &key);
  return rc ? rc : model_arg_string_id(ctx, key, layer, MODEL_ARG_STRING);
}

static const char *proto_buffer_type_name(const proto_buffer_event *e) {
  static const char *const names[PROTO_BUFFER_TYPES] = {
      "unspecified_event", "Dequeue", "Queue", "Post", "AcquireFenceSignaled", "Latch",
      "HWCCompositionQueued", "FallbackComposition", "PresentFenceSignaled",
      "ReleaseFenceSignaled", "Modify", "Detach", "Attach", "Cancel"};
  return e->has_type && e->type < PROTO_BUFFER_TYPES ? names[e->type] : "unknown_event";
}

/* The event's own slice on its buffer's track, with the buffer's times. */
static int proto_frames_buffer_slice(import_file *f, uint32_t machine, int64_t ts,
                                     const proto_buffer_event *e, proto_frame_buffer *b) {
  trace_context *ctx = f->ctx;
  if (e->has_type && e->type < PROTO_BUFFER_TYPES) b->type_ts[e->type] = ts;
  int64_t acquire = b->type_ts[PROTO_BUFFER_ACQUIRE_FENCE];
  int64_t queue = b->type_ts[PROTO_BUFFER_QUEUE], latch = b->type_ts[PROTO_BUFFER_LATCH];
  const char *type_name = proto_buffer_type_name(e);
  string_id name;
  uint32_t track, slice;
  int64_t args = -1;
  int rc = ctx_intern(ctx, type_name, strlen(type_name), &name);
  if (!rc) rc = proto_frames_track(ctx, machine, "Buffer: ", e, 1, &track);
  if (!rc) rc = proto_frames_base_args(ctx, (int64_t)e->frame_number, e->layer_id);
  if (!rc) rc = proto_frames_key_arg(ctx, "queue_to_acquire_time",
                                     acquire - queue > 0 ? acquire - queue : 0);
  if (!rc) rc = proto_frames_key_arg(ctx, "acquire_to_latch_time", latch - acquire);
  if (!rc) rc = proto_frames_key_arg(ctx, "latch_to_present_time", ts - latch);
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_complete(ctx, track, ts, (int64_t)e->duration, STRING_NULL, name,
                                        args, &slice);
}

/* Names a phase slice by frame number (with its args). */
static int proto_frames_rename(trace_context *ctx, uint32_t slice, uint64_t frame,
                               string_id layer) {
  char text[24];
  int n = snprintf(text, sizeof text, "%llu", (unsigned long long)frame);
  string_id name;
  int64_t args = -1;
  int rc = proto_frames_intern(ctx, text, n, &name);
  if (!rc) rc = proto_frames_base_args(ctx, (int64_t)frame, layer);
  if (!rc) rc = model_args_commit(ctx, &args);
  if (rc) return rc;
  model_slice_set_name(ctx, slice, name);
  model_slice_set_args(ctx, slice, args);
  return WEFT_OK;
}

/* Begins a phase slice: named by the frame number, or the time without one. */
static int proto_frames_phase(trace_context *ctx, uint32_t track, int64_t ts,
                              const proto_buffer_event *e, uint32_t *slice) {
  char text[24];
  int n = e->frame_number ? snprintf(text, sizeof text, "%llu", (unsigned long long)e->frame_number)
                          : snprintf(text, sizeof text, "%lld", (long long)ts);
  string_id name;
  int64_t args = -1;
  int rc = proto_frames_intern(ctx, text, n, &name);
  if (!rc) rc = proto_frames_base_args(ctx, (int64_t)e->frame_number, e->layer_id);
  if (!rc) rc = model_args_commit(ctx, &args);
  return rc ? rc : model_slice_begin(ctx, track, ts, STRING_NULL, name, args, slice);
}

/* A DEQUEUE or LATCH finding the APP phase open: it stays open, renamed "0". */
static int proto_frames_invalidate_app(trace_context *ctx, proto_frame_buffer *b,
                                       string_id layer) {
  int rc = b->has_app && b->app_slice >= 0
               ? proto_frames_rename(ctx, (uint32_t)b->app_slice, 0, layer)
               : WEFT_OK;
  b->has_app = 0;
  return rc;
}

static int proto_frames_dequeue(import_file *f, uint32_t machine, int64_t ts,
                                const proto_buffer_event *e, proto_frame_buffer *b) {
  uint32_t track, slice;
  int rc = proto_frames_track(f->ctx, machine, "APP_", e, 1, &track);
  if (!rc) rc = proto_frames_invalidate_app(f->ctx, b, e->layer_id);
  b->has_gpu = 0; /* an open GPU phase stays open as it is */
  if (!rc) rc = proto_frames_phase(f->ctx, track, ts, e, &slice);
  if (rc) return rc;
  b->app_track = track, b->app_slice = slice, b->has_app = 1;
  b->last_dequeued = ts;
  return WEFT_OK;
}

static int proto_frames_queue(import_file *f, uint32_t machine, int64_t ts,
                              const proto_buffer_event *e, proto_frame_buffer *b) {
  trace_context *ctx = f->ctx;
  int rc = WEFT_OK;
  if (b->has_app) {
    int64_t ended;
    rc = model_slice_end(ctx, b->app_track, ts, &ended);
    if (!rc && ended >= 0) {
      rc = proto_frames_rename(ctx, (uint32_t)ended, e->frame_number, e->layer_id);
      b->has_app = 0;
    }
  }
  if (rc) return rc;
  /* an acquire fence signalled before this queue: no GPU phase */
  if (b->last_acquired > b->last_dequeued && b->last_acquired < ts) return WEFT_OK;
  uint32_t track, slice;
  rc = proto_frames_track(ctx, machine, "GPU_", e, 1, &track);
  if (!rc) rc = proto_frames_phase(ctx, track, ts, e, &slice);
  if (rc) return rc;
  b->gpu_track = track, b->has_gpu = 1;
  return WEFT_OK;
}

static int proto_frames_latch(import_file *f, uint32_t machine, int64_t ts,
                              const proto_buffer_event *e, proto_frame_buffer *b) {
  uint32_t track, slice;
  int rc = proto_frames_invalidate_app(f->ctx, b, e->layer_id);
  if (!rc) rc = proto_frames_track(f->ctx, machine, "SF_", e, 1, &track);
  if (!rc) rc = proto_frames_phase(f->ctx, track, ts, e, &slice);
  if (rc) return rc;
  b->sf_track = track, b->has_sf = 1;
  return WEFT_OK;
}

static int proto_frames_present(import_file *f, proto_frames_state *s, uint32_t machine,
                                int64_t ts, const proto_buffer_event *e, proto_frame_buffer *b) {
  trace_context *ctx = f->ctx;
  int64_t ended;
  uint32_t track, slice;
  int rc = b->has_sf ? model_slice_end(ctx, b->sf_track, ts, &ended) : WEFT_OK;
  b->has_sf = 0;
  uint64_t *display = base_map_find(&s->display_of, e->layer_id);
  if (!rc && display)
    rc = model_slice_end(ctx, (uint32_t)*display, ts, &ended);
  if (!rc) rc = proto_frames_track(ctx, machine, "Display_", e, 0, &track);
  if (!rc) rc = proto_frames_phase(ctx, track, ts, e, &slice);
  if (rc) return rc;
  uint64_t *slot;
  if (base_map_insert(&s->display_of, e->layer_id, track, &slot) < 0) return WEFT_ENOMEM;
  *slot = track;
  return WEFT_OK;
}

/* The phase an event starts or ends (see proto_frames.h). */
static int proto_frames_phases(import_file *f, proto_frames_state *s, uint32_t machine,
                               int64_t ts, const proto_buffer_event *e, proto_frame_buffer *b) {
  switch (e->has_type ? e->type : 0) {
    case PROTO_BUFFER_DEQUEUE: return proto_frames_dequeue(f, machine, ts, e, b);
    case PROTO_BUFFER_QUEUE: return proto_frames_queue(f, machine, ts, e, b);
    case PROTO_BUFFER_ACQUIRE_FENCE: {
      int64_t ended;
      int rc = b->has_gpu ? model_slice_end(f->ctx, b->gpu_track, ts, &ended) : WEFT_OK;
      b->has_gpu = 0;
      b->last_acquired = ts;
      return rc;
    }
    case PROTO_BUFFER_LATCH: return proto_frames_latch(f, machine, ts, e, b);
    case PROTO_BUFFER_PRESENT_FENCE:
      import_stat(f, stat_graphics_frame_event_parser_errors, 1);
      return proto_frames_present(f, s, machine, ts, e, b);
    default: return import_stat(f, stat_graphics_frame_event_parser_errors, 1);
  }
}

int proto_frames_parse(import_file *f, proto_frames_state **state, uint32_t machine, int64_t ts,
                       const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_reader r;
  proto_field in;
  proto_span body = {NULL, 0};
  int has_body = 0;
  proto_reader_init_span(&r, fl->span);
  while (proto_reader_next(&r, &in) == 1)
    if (in.number == PROTO_FRAME_EVENT_BUFFER_EVENT && in.wire_type == PROTO_WIRE_LEN)
      body = in.span, has_body = 1;
  if (!has_body) return WEFT_OK;
  proto_buffer_event e;
  proto_buffer_event_read(body, &e);
  if (!e.has_buffer) return import_stat(f, stat_graphics_frame_event_parser_errors, 1);
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  trace_context *ctx = f->ctx;
  int rc = e.has_layer ? ctx_intern(ctx, (const char *)e.layer.data, e.layer.len, &e.layer_id)
                       : ctx_intern(ctx, "no_layer_name", strlen("no_layer_name"), &e.layer_id);
  proto_frame_buffer *b = NULL;
  if (!rc) rc = proto_frames_buffer(ctx, *state, &e, &b);
  if (!rc) rc = proto_frames_buffer_slice(f, machine, ts, &e, b);
  return rc ? rc : proto_frames_phases(f, *state, machine, ts, &e, b);
}
