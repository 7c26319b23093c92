/* GPU render stage and Vulkan API events. See proto_gpu.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import/proto/proto_gpu.h"
#include "import/proto/proto_import.h"
#include "model/columns.h"
#include "model/flow.h"
#include "model/gpu.h"
#include "model/model.h"

#define PROTO_GPU_MAX_QUEUES 4096
#define PROTO_GPU_MAX_MASKS 64
/* VkObjectType values of the handles render stages name. */
enum { PROTO_VK_RENDER_PASS = 18, PROTO_VK_FRAMEBUFFER = 24, PROTO_VK_COMMAND_BUFFER = 6 };

/* The GpuRenderStageEvent fields read. */
typedef struct proto_gpu_stage {
  uint64_t event_id, duration, hw_queue_iid, stage_iid, context, render_target;
  uint64_t render_pass, render_pass_instance_id, command_buffer, name_iid, kernel_iid;
  int64_t submission_id, hw_queue_id, stage_id;
  uint32_t gpu_id;
  proto_span name, launch, specifications;
  int has_event_id, has_hw_queue_iid, has_stage_iid, has_context, has_name, has_name_iid;
  int has_kernel, has_launch, has_specifications, has_stage_id, has_masks;
  proto_span msg; /* the event, for its repeated event_wait_ids (18) */
} proto_gpu_stage;

static void proto_gpu_stage_read(proto_span msg, proto_gpu_stage *e) {
  memset(e, 0, sizeof *e);
  e->msg = msg;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    uint64_t v = fl.value;
    switch (fl.number) {
      case 1: e->event_id = v, e->has_event_id = 1; break;
      case 2: e->duration = v; break;
      case 3: e->hw_queue_id = (int64_t)(int32_t)v; break;
      case 4: e->stage_id = (int64_t)(int32_t)v, e->has_stage_id = 1; break;
      case 5: e->context = v, e->has_context = 1; break;
      case 7: if (len) e->specifications = fl.span, e->has_specifications = 1; break;
      case 8: e->render_target = v; break;
      case 9: e->render_pass = v; break;
      case 10: e->submission_id = (int64_t)(uint32_t)v; break;
      case 11: e->gpu_id = (uint32_t)v; break;
      case 12: e->command_buffer = v; break;
      case 13: e->hw_queue_iid = v, e->has_hw_queue_iid = 1; break;
      case 14: e->stage_iid = v, e->has_stage_iid = 1; break;
      case 15: e->has_masks = 1; break;
      case 16: e->render_pass_instance_id = v; break;
      case 17: if (len) e->name = fl.span, e->has_name = 1; break;
      case 19: e->kernel_iid = v, e->has_kernel = 1; break;
      case 20: e->name_iid = v, e->has_name_iid = 1; break;
      case 21: if (len) e->launch = fl.span, e->has_launch = 1; break;
      default: break;
    }
  }
}

/* String field `number` of msg, interned (STRING_NULL when absent). */
static int proto_gpu_str(import_file *f, proto_span msg, uint32_t number, string_id *out) {
  proto_field fl;
  *out = STRING_NULL;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1 || fl.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  return ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, out);
}

static int proto_gpu_interned(import_file *f, const proto_packet_info *info, int kind,
                              uint64_t iid, proto_span *msg) {
  return proto_interned_message(f->state, info->seq, info->generation, kind, iid, msg);
}

/* ---- legacy specifications ---- */

static uint64_t proto_gpu_set_key(uint32_t machine, uint32_t gpu_id, int by_iid,
                                  uint64_t hw_queue, string_id dimension) {
  uint64_t parts[4] = {(uint64_t)machine << 32 | gpu_id, (uint64_t)by_iid, hw_queue, dimension};
  return base_hash_bytes(parts, sizeof parts);
}

/* A placeholder track of this queue takes the name it now has. */
static int proto_gpu_rename_queue(import_file *f, proto_gpu_state *g, uint32_t machine,
                                  uint32_t gpu_id, uint64_t id, const proto_gpu_desc *d) {
  uint64_t *pending = base_map_find(&g->unnamed_queues, id);
  uint32_t track;
  if (!pending || !*pending) return WEFT_OK;
  *pending = 0;
  if (!gpu_stage_default_track(f->ctx, proto_gpu_set_key(machine, gpu_id, 0, id, STRING_NULL),
                               &track))
    return WEFT_OK;
  model_track_set_name(f->ctx, track, d->name);
  int64_t source = -1;
  string_id key;
  int rc = ctx_intern(f->ctx, "description", 11, &key);
  if (!rc) rc = model_arg_string_id(f->ctx, key, d->description, MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(f->ctx, &source);
  if (!rc) model_track_set_arg_sets(f->ctx, track, -1, source);
  return rc;
}

static int proto_gpu_specifications(import_file *f, proto_gpu_state *g, uint32_t machine,
                                    uint32_t gpu_id, proto_span specs, int64_t *pid) {
  proto_reader r;
  proto_field fl;
  uint64_t queue = 0;
  int rc = WEFT_OK, has;
  proto_reader_init_span(&r, specs);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == 1) {
      uint64_t v = proto_last_varint(fl.span, 2, &has);
      if (has) *pid = (int64_t)(int32_t)v;
      continue;
    }
    if (fl.number != 2 && fl.number != 3) continue;
    proto_gpu_desc d;
    rc = proto_gpu_str(f, fl.span, 1, &d.name);
    if (!rc) rc = proto_gpu_str(f, fl.span, 2, &d.description);
    if (rc || !d.name) {
      if (fl.number == 2) queue++;
      continue;
    }
    if (fl.number == 3) {
      rc = VEC_PUSH(g->stages, d);
      continue;
    }
    uint64_t id = queue++;
    if (id >= PROTO_GPU_MAX_QUEUES) continue;
    proto_gpu_desc none = {STRING_NULL, STRING_NULL};
    while (!rc && g->hw_queues.len <= id) rc = VEC_PUSH(g->hw_queues, none);
    if (!rc) g->hw_queues.data[id] = d;
    if (!rc) rc = proto_gpu_rename_queue(f, g, machine, gpu_id, id, &d);
  }
  return rc;
}

/* ---- contexts and names ---- */

static const char *proto_gpu_api_name(uint64_t api) {
  static const char *const names[] = {"UNDEFINED", "OPEN_GL", "VULKAN", "OPEN_CL", "CUDA", "HIP"};
  return api < sizeof names / sizeof *names ? names[api] : "UNDEFINED";
}

/* The pid of an interned graphics context (and its gpu_context row, once). */
static int proto_gpu_context(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                             uint64_t context, int64_t *pid) {
  proto_span msg;
  if (!proto_gpu_interned(f, info, PROTO_INTERN_GRAPHICS_CONTEXT, context, &msg)) return WEFT_OK;
  int has_pid, has_api;
  uint64_t p = proto_last_varint(msg, 2, &has_pid), api = proto_last_varint(msg, 3, &has_api);
  *pid = (int64_t)(int32_t)p;
  int ins = base_map_insert(&g->contexts, context, 1, NULL);
  if (ins <= 0) return ins < 0 ? WEFT_ENOMEM : WEFT_OK;
  return gpu_context(f->ctx, (int64_t)(uint32_t)context, has_pid ? *pid : -1,
                     has_api ? proto_gpu_api_name(api) : NULL);
}

static uint64_t proto_gpu_debug_key(uint64_t type, uint64_t handle) {
  uint64_t parts[2] = {type, handle};
  return base_hash_bytes(parts, sizeof parts) >> 1;
}

static string_id proto_gpu_debug_name(const proto_gpu_state *g, uint64_t type, uint64_t handle) {
  uint64_t *v = base_map_find(&g->debug_names, proto_gpu_debug_key(type, handle));
  return v ? (string_id)*v : STRING_NULL;
}

/* ---- the stage's track and name ---- */

static int proto_gpu_stage_track(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                                 const proto_gpu_stage *e, int64_t ts, uint32_t *track,
                                 uint64_t *hw_queue) {
  gpu_stage_track_spec s = {0};
  char placeholder[64];
  string_id name = STRING_NULL;
  int rc = WEFT_OK, by_iid = e->has_hw_queue_iid;
  proto_span spec;
  if (by_iid) {
    *hw_queue = e->hw_queue_iid;
    if (!proto_gpu_interned(f, info, PROTO_INTERN_GPU_SPECIFICATION, *hw_queue, &spec)) return 1;
    rc = proto_gpu_str(f, spec, 2, &name);
    if (!rc) rc = proto_gpu_str(f, spec, 3, &s.description);
    if (!rc && s.description && !base_string_pool_len(&f->ctx->strings, s.description))
      s.description = STRING_NULL;
    s.hw_queue_name = name;
  } else {
    *hw_queue = (uint32_t)e->hw_queue_id;
    if (*hw_queue < g->hw_queues.len && g->hw_queues.data[*hw_queue].name) {
      name = g->hw_queues.data[*hw_queue].name;
      s.description = g->hw_queues.data[*hw_queue].description;
      s.hw_queue_name = name;
    } else {
      snprintf(placeholder, sizeof placeholder, "Unknown GPU Queue %" PRIu64, *hw_queue);
      s.name = placeholder;
      if (base_map_insert(&g->unnamed_queues, *hw_queue, 1, NULL) < 0) return WEFT_ENOMEM;
    }
  }
  if (rc) return rc;
  if (!s.name) s.name = name ? base_string_pool_get(&f->ctx->strings, name) : "";
  s.set_key = proto_gpu_set_key(info->machine, e->gpu_id, by_iid, *hw_queue, s.hw_queue_name);
  s.machine = info->machine;
  s.gpu_id = e->gpu_id;
  s.source = by_iid ? "iid" : "id";
  s.hw_queue_id = *hw_queue;
  return gpu_stage_track(f->ctx, &s, ts, (int64_t)e->duration, track);
}

static int proto_gpu_stage_name(import_file *f, const proto_gpu_state *g,
                                const proto_packet_info *info, const proto_gpu_stage *e,
                                string_id *name) {
  proto_span spec;
  *name = STRING_NULL;
  if (e->has_name_iid) {
    *name = proto_interned(f->state, info->seq, info->generation, PROTO_INTERN_EVENT_NAME,
                           e->name_iid);
    return WEFT_OK;
  }
  if (e->has_name)
    return ctx_intern(f->ctx, (const char *)e->name.data, e->name.len, name);
  if (e->has_stage_iid)
    return proto_gpu_interned(f, info, PROTO_INTERN_GPU_SPECIFICATION, e->stage_iid, &spec)
               ? proto_gpu_str(f, spec, 2, name)
               : WEFT_OK;
  uint64_t id = (uint64_t)e->stage_id;
  if (id < g->stages.len) {
    *name = g->stages.data[id].name;
    return WEFT_OK;
  }
  char buf[48];
  int n = snprintf(buf, sizeof buf, "render stage(%" PRIu64 ")", id);
  return ctx_intern(f->ctx, buf, (size_t)n, name);
}

/* ---- args ---- */

static int proto_gpu_arg_uint(import_file *f, const char *key, uint64_t v) {
  return model_arg_int(f->ctx, key, strlen(key), MODEL_ARG_UINT, (int64_t)v);
}

static int proto_gpu_arg_str(import_file *f, const char *key, string_id v) {
  string_id k;
  int rc = ctx_intern(f->ctx, key, strlen(key), &k);
  return rc ? rc : model_arg_string_id(f->ctx, k, v, MODEL_ARG_STRING);
}

/* An ExtraComputeArg: a typed value under its (interned) name. */
static int proto_gpu_compute_arg(import_file *f, const proto_packet_info *info, proto_span msg) {
  string_id name = STRING_NULL, value;
  proto_span named;
  int has, rc = WEFT_OK;
  uint64_t iid = proto_last_varint(msg, 1, &has);
  if (has && proto_gpu_interned(f, info, PROTO_INTERN_COMPUTE_ARG_NAME, iid, &named))
    rc = proto_gpu_str(f, named, 2, &name);
  else if (!has)
    rc = proto_gpu_str(f, msg, 2, &name);
  if (rc || !name) return rc;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    switch (fl.number) {
      case 3: return model_arg_int_id(f->ctx, name, MODEL_ARG_INT, (int64_t)fl.value);
      case 4: return model_arg_int_id(f->ctx, name, MODEL_ARG_UINT, (int64_t)fl.value);
      case 5: {
        const char *k = base_string_pool_get(&f->ctx->strings, name);
        return model_arg_real(f->ctx, k, strlen(k), proto_field_double(&fl));
      }
      case 6:
        rc = ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, &value);
        return rc ? rc : model_arg_string_id(f->ctx, name, value, MODEL_ARG_STRING);
      case 7:
        value = proto_interned(f->state, info->seq, info->generation, PROTO_INTERN_DEBUG_STRING,
                               fl.value);
        return value ? model_arg_string_id(f->ctx, name, value, MODEL_ARG_STRING) : WEFT_OK;
      default: break;
    }
  }
  return WEFT_OK;
}

static int proto_gpu_kernel_args(import_file *f, const proto_packet_info *info, uint64_t iid) {
  proto_span k;
  if (!proto_gpu_interned(f, info, PROTO_INTERN_COMPUTE_KERNEL, iid, &k)) return WEFT_OK;
  static const char *const keys[] = {NULL, NULL, "kernel_name", "kernel_demangled_name", "arch"};
  int rc = WEFT_OK;
  for (uint32_t n = 2; !rc && n <= 4; n++) {
    string_id v;
    rc = proto_gpu_str(f, k, n, &v);
    if (!rc && v) rc = proto_gpu_arg_str(f, keys[n], v);
  }
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, k);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == 5 && fl.wire_type == PROTO_WIRE_LEN) rc = proto_gpu_compute_arg(f, info, fl.span);
  return rc;
}

static int proto_gpu_dim3(import_file *f, proto_span msg, const char *prefix) {
  static const char axes[] = "xyz";
  int rc = WEFT_OK, has;
  for (uint32_t n = 1; !rc && n <= 3; n++) {
    uint64_t v = proto_last_varint(msg, n, &has);
    char key[48];
    snprintf(key, sizeof key, "%s.%c", prefix, axes[n - 1]);
    if (has) rc = proto_gpu_arg_uint(f, key, (uint32_t)v);
  }
  return rc;
}

static int proto_gpu_launch_args(import_file *f, const proto_packet_info *info, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == 1) rc = proto_gpu_dim3(f, fl.span, "launch.grid_size");
    else if (fl.number == 2) rc = proto_gpu_dim3(f, fl.span, "launch.workgroup_size");
    else if (fl.number == 3) rc = proto_gpu_compute_arg(f, info, fl.span);
  }
  return rc;
}

/* The indexes of the set bits of the subpass masks, "i,j,..." (each mask
 * word after the first starts at the next multiple of 64). */
static int proto_gpu_subpasses(import_file *f, proto_span msg, string_id *out) {
  uint64_t masks[PROTO_GPU_MAX_MASKS];
  size_t n = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == 15 && fl.wire_type == PROTO_WIRE_VARINT && n < PROTO_GPU_MAX_MASKS)
      masks[n++] = fl.value;
  char buf[256];
  size_t len = 0;
  uint64_t bit = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t m = masks[i];
    do {
      if ((m & 1) && len < sizeof buf - 24)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%" PRIu64, len ? "," : "", bit);
      m >>= 1;
      bit++;
    } while (m);
    bit = ((bit - 1) / 64 + 1) * 64;
  }
  return ctx_intern(f->ctx, buf, len, out);
}

static int proto_gpu_stage_desc_args(import_file *f, const proto_gpu_state *g,
                                     const proto_packet_info *info, const proto_gpu_stage *e) {
  proto_span spec;
  string_id desc;
  int rc = WEFT_OK, has;
  if (e->has_stage_iid) {
    if (!proto_gpu_interned(f, info, PROTO_INTERN_GPU_SPECIFICATION, e->stage_iid, &spec))
      return WEFT_OK;
    uint64_t category = proto_last_varint(spec, 4, &has);
    rc = model_arg_int(f->ctx, "render_stage_category", 21, MODEL_ARG_INT, (int64_t)category);
    if (!rc) rc = proto_gpu_str(f, spec, 3, &desc);
    return rc ? rc : proto_gpu_arg_str(f, "description", desc);
  }
  uint64_t id = (uint64_t)e->stage_id;
  if (e->has_stage_id && id < g->stages.len && g->stages.data[id].description)
    rc = proto_gpu_arg_str(f, "description", g->stages.data[id].description);
  return rc;
}

static int proto_gpu_extra_data(import_file *f, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != 6 || fl.wire_type != PROTO_WIRE_LEN) continue;
    string_id key, value;
    rc = proto_gpu_str(f, fl.span, 1, &key);
    if (!rc) rc = proto_gpu_str(f, fl.span, 2, &value);
    if (!rc && key) rc = model_arg_string_id(f->ctx, key, value, MODEL_ARG_STRING);
  }
  return rc;
}

/* A Vulkan handle and its debug name (a NULL string when it has none). */
static int proto_gpu_handle_args(import_file *f, const proto_gpu_state *g, const char *key,
                                 const char *name_key, uint64_t type, uint64_t handle) {
  int rc = proto_gpu_arg_uint(f, key, handle);
  string_id name = proto_gpu_debug_name(g, type, handle);
  return rc ? rc : proto_gpu_arg_str(f, name_key, name);
}

static int proto_gpu_stage_args(import_file *f, const proto_gpu_state *g,
                                const proto_packet_info *info, const proto_gpu_stage *e,
                                proto_span msg, uint64_t hw_queue, int64_t pid, int64_t *args) {
  int rc = proto_gpu_stage_desc_args(f, g, info, e);
  if (!rc && e->has_kernel) rc = proto_gpu_kernel_args(f, info, e->kernel_iid);
  if (!rc && e->has_launch) rc = proto_gpu_launch_args(f, info, e->launch);
  if (!rc && e->render_pass_instance_id) {
    char buf[48];
    string_id id;
    int n = snprintf(buf, sizeof buf, "rp:#%" PRIu64, e->render_pass_instance_id);
    rc = ctx_intern(f->ctx, buf, (size_t)n, &id);
    if (!rc) rc = proto_gpu_arg_str(f, "correlation_id", id);
  }
  if (!rc) rc = proto_gpu_extra_data(f, msg);
  if (!rc) rc = proto_gpu_arg_uint(f, "context_id", e->context);
  if (!rc)
    rc = proto_gpu_handle_args(f, g, "render_target", "render_target_name", PROTO_VK_FRAMEBUFFER,
                               e->render_target);
  if (!rc)
    rc = proto_gpu_handle_args(f, g, "render_pass", "render_pass_name", PROTO_VK_RENDER_PASS,
                               e->render_pass);
  string_id subpasses = STRING_NULL;
  if (!rc && e->has_masks) rc = proto_gpu_subpasses(f, msg, &subpasses);
  if (!rc) rc = proto_gpu_arg_str(f, "render_subpasses", subpasses);
  if (!rc)
    rc = proto_gpu_handle_args(f, g, "command_buffer", "command_buffer_name",
                               PROTO_VK_COMMAND_BUFFER, e->command_buffer);
  if (!rc) rc = model_arg_int(f->ctx, "submission_id", 13, MODEL_ARG_INT, e->submission_id);
  if (!rc) rc = proto_gpu_arg_uint(f, "hw_queue_id", hw_queue);
  /* the process, new with its main thread (Perfetto's GetOrCreateProcess) */
  uint32_t upid, main_thread;
  if (!rc && model_process_find(f->ctx, info->machine, pid, &upid) != 1) {
    rc = model_thread_in_process(f->ctx, info->machine, pid, pid, &main_thread);
    if (!rc) upid = model_thread_upid(f->ctx, main_thread);
  }
  if (!rc) rc = model_arg_int(f->ctx, "upid", 4, MODEL_ARG_INT, upid);
  return rc ? rc : model_args_commit(f->ctx, args);
}

/* ---- flows between stages (event_wait_ids) ---- */

#define PROTO_GPU_STAGE_WAIT_IDS 18
#define PROTO_GPU_STAGE_MAX_NODES (1u << 22) /* past it no more stages are linked */
#define PROTO_GPU_STAGE_MAX_WAITS 64

/* The key of the slices with event id `id` (waiting: 0) or waiting on it (1). */
static uint64_t proto_gpu_stage_key(int waiting, uint64_t id) {
  return base_hash_u64(id) << 1 | (uint64_t)waiting;
}

static int proto_gpu_stage_remember(proto_gpu_state *g, uint64_t key, uint32_t slice) {
  if (g->stage_nodes.len >= PROTO_GPU_STAGE_MAX_NODES) return WEFT_OK;
  uint64_t *head;
  int ins = base_map_insert(&g->stage_events, key, 0, &head);
  if (ins < 0) return WEFT_ENOMEM;
  proto_gpu_stage_node n = {slice, (uint32_t)*head};
  VEC_PUSH(g->stage_nodes, n);
  if (!g->stage_nodes.data) return WEFT_ENOMEM;
  *head = g->stage_nodes.len; /* the new node + 1 */
  return WEFT_OK;
}

static int proto_gpu_u32_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* The slices remembered under key, in creation order, into out (at most cap). */
static size_t proto_gpu_stage_slices(const proto_gpu_state *g, uint64_t key, uint32_t *out,
                                     size_t cap) {
  const uint64_t *head = base_map_find(&g->stage_events, key);
  size_t n = 0;
  uint32_t i = head ? (uint32_t)*head : 0;
  for (; i && n < cap; i = g->stage_nodes.data[i - 1].next)
    out[n++] = g->stage_nodes.data[i - 1].slice;
  qsort(out, n, sizeof *out, proto_gpu_u32_cmp);
  return n;
}

/* Links slice s (event e): a flow to each earlier slice waiting on its own
 * event id, then, for each id it waits on in turn (a repeated id again),
 * one from each earlier slice of that id; then remembers s under both. */
static int proto_gpu_stage_flows(import_file *f, proto_gpu_state *g, const proto_gpu_stage *e,
                                 uint32_t s) {
  uint64_t waits[PROTO_GPU_STAGE_MAX_WAITS];
  size_t nw = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, e->msg);
  while (nw < PROTO_GPU_STAGE_MAX_WAITS && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_GPU_STAGE_WAIT_IDS && fl.wire_type == PROTO_WIRE_VARINT)
      waits[nw++] = fl.value;
  uint32_t found[1024];
  int rc = WEFT_OK;
  size_t n = proto_gpu_stage_slices(g, proto_gpu_stage_key(1, e->event_id), found, 1024);
  for (size_t k = 0; !rc && k < n; k++) rc = flow_link(f->ctx, s, found[k]);
  for (size_t i = 0; !rc && i < nw; i++) {
    n = proto_gpu_stage_slices(g, proto_gpu_stage_key(0, waits[i]), found, 1024);
    for (size_t k = 0; !rc && k < n; k++) rc = flow_link(f->ctx, found[k], s);
  }
  if (!rc) rc = proto_gpu_stage_remember(g, proto_gpu_stage_key(0, e->event_id), s);
  for (size_t i = 0; !rc && i < nw; i++)
    rc = proto_gpu_stage_remember(g, proto_gpu_stage_key(1, waits[i]), s);
  return rc;
}

int proto_gpu_stage_parse(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                          int64_t ts, proto_span msg) {
  proto_gpu_stage e;
  proto_gpu_stage_read(msg, &e);
  int64_t pid = 0;
  int rc = WEFT_OK;
  if (e.has_specifications)
    rc = proto_gpu_specifications(f, g, info->machine, e.gpu_id, e.specifications, &pid);
  if (!rc && e.has_context) rc = proto_gpu_context(f, g, info, e.context, &pid);
  if (rc || !e.has_event_id) return rc;
  uint32_t track;
  uint64_t hw_queue;
  rc = proto_gpu_stage_track(f, g, info, &e, ts, &track, &hw_queue);
  if (rc) return rc > 0 ? WEFT_OK : rc; /* 1: an unknown interned queue */
  string_id name;
  int64_t args = -1;
  uint32_t slice;
  rc = proto_gpu_stage_name(f, g, info, &e, &name);
  if (!rc) rc = proto_gpu_stage_args(f, g, info, &e, msg, hw_queue, pid, &args);
  if (!rc)
    rc = model_slice_complete(f->ctx, track, ts, (int64_t)e.duration, STRING_NULL, name, args,
                              &slice);
  return rc ? rc : proto_gpu_stage_flows(f, g, &e, slice);
}

/* ---- Vulkan API events ---- */

static int proto_gpu_debug_object_name(import_file *f, proto_gpu_state *g, proto_span msg) {
  int has_type, has_object;
  uint64_t type = proto_last_varint(msg, 3, &has_type), object = proto_last_varint(msg, 4, &has_object);
  string_id name;
  int rc = proto_gpu_str(f, msg, 5, &name);
  if (rc || !name) return rc;
  uint64_t *slot;
  if (base_map_insert(&g->debug_names, proto_gpu_debug_key(type, object), name, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = name;
  return WEFT_OK;
}

static int proto_gpu_queue_submit(import_file *f, const proto_packet_info *info, int64_t ts,
                                  proto_span msg) {
  int64_t args = -1;
  int rc = WEFT_OK, has, buffers = 0;
  uint64_t duration = proto_last_varint(msg, 1, &has);
  rc = model_arg_int(f->ctx, "pid", 3, MODEL_ARG_INT, (int32_t)proto_last_varint(msg, 2, &has));
  if (!rc) rc = model_arg_int(f->ctx, "tid", 3, MODEL_ARG_INT, (int32_t)proto_last_varint(msg, 3, &has));
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != 5 || fl.wire_type != PROTO_WIRE_VARINT) continue;
    char key[40];
    if (!buffers) rc = proto_gpu_arg_uint(f, "command_buffer", fl.value);
    snprintf(key, sizeof key, "command_buffers[%d]", buffers++);
    if (!rc) rc = model_arg_int(f->ctx, key, strlen(key), MODEL_ARG_UINT, (int64_t)fl.value);
  }
  if (!rc)
    rc = model_arg_int(f->ctx, "submission_id", 13, MODEL_ARG_INT,
                       (int64_t)(int32_t)proto_last_varint(msg, 6, &has));
  if (!rc) rc = model_args_commit(f->ctx, &args);
  model_track_spec s;
  model_track_spec_init(&s);
  s.name = "Vulkan Events";
  s.type = "vulkan_events";
  s.machine = info->machine;
  uint32_t track, slice;
  string_id name;
  if (!rc) rc = model_track(f->ctx, &s, &track);
  if (!rc) rc = ctx_intern(f->ctx, "vkQueueSubmit", 13, &name);
  return rc ? rc
            : model_slice_complete(f->ctx, track, ts, (int64_t)duration, STRING_NULL, name, args,
                                   &slice);
}

int proto_gpu_vulkan_parse(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                           int64_t ts, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == 1) rc = proto_gpu_debug_object_name(f, g, fl.span);
    else if (fl.number == 2) rc = proto_gpu_queue_submit(f, info, ts, fl.span);
  }
  return rc;
}
