/* GPU counters, GPU memory and frequency packets. See proto_gpu.h. */
#include "import/proto/proto_gpu.h"

#include <stdio.h>
#include <string.h>

#include "import/proto/proto_import.h"
#include "model/gpu.h"
#include "model/model.h"

/* TracePacket fields. */
enum {
  PROTO_GPU_PACKET_TIMESTAMP = 8,
  PROTO_GPU_PACKET_COUNTER_EVENT = 52,
  PROTO_GPU_PACKET_RENDER_STAGE = 53,
  PROTO_GPU_PACKET_VULKAN_API = 65,
  PROTO_GPU_PACKET_MEM_TOTAL = 71,
  PROTO_GPU_PACKET_INFO = 128,
  PROTO_GPU_PACKET_FREQUENCY = 129
};
/* GpuInfo, its Gpu and KeyValue. */
enum {
  PROTO_GPU_INFO_GPUS = 1,
  PROTO_GPU_INFO_NAME = 1, PROTO_GPU_INFO_VENDOR = 2, PROTO_GPU_INFO_MODEL = 3,
  PROTO_GPU_INFO_ARCHITECTURE = 4, PROTO_GPU_INFO_UUID = 5, PROTO_GPU_INFO_EXTRA = 6,
  PROTO_GPU_INFO_PCI_BDF = 7,
  PROTO_GPU_KV_KEY = 1, PROTO_GPU_KV_VALUE = 2,
};
/* GpuCounterEvent, GpuCounter, GpuCounterDescriptor and its messages. */
enum { PROTO_GPU_EVENT_DESCRIPTOR = 1, PROTO_GPU_EVENT_COUNTERS = 2, PROTO_GPU_EVENT_GPU_ID = 3,
       PROTO_GPU_EVENT_DESCRIPTOR_IID = 4 };
/* InternedGpuCounterDescriptor (InternedData.gpu_counter_descriptors). */
enum { PROTO_GPU_INTERNED_DESCRIPTOR = 2, PROTO_GPU_INTERNED_GPU_ID = 3 };
enum { PROTO_GPU_COUNTER_ID = 1, PROTO_GPU_COUNTER_INT = 2, PROTO_GPU_COUNTER_DOUBLE = 3 };
enum { PROTO_GPU_DESC_SPECS = 1, PROTO_GPU_DESC_GROUPS = 6 };
enum {
  PROTO_GPU_SPEC_ID = 1, PROTO_GPU_SPEC_NAME = 2, PROTO_GPU_SPEC_DESCRIPTION = 3,
  PROTO_GPU_SPEC_NUMERATOR = 7, PROTO_GPU_SPEC_DENOMINATOR = 8, PROTO_GPU_SPEC_GROUPS = 10,
  PROTO_GPU_SPEC_DIRECTION = 11
};
enum { PROTO_GPU_GROUP_ID = 1, PROTO_GPU_GROUP_NAME = 2, PROTO_GPU_GROUP_DESCRIPTION = 3,
       PROTO_GPU_GROUP_COUNTER_IDS = 4 };
#define PROTO_GPU_DIRECTION_FORWARDS 2
#define PROTO_GPU_MAX_UNITS 16

void proto_gpu_free(proto_gpu_state *g) {
  if (!g) return;
  base_map_free(&g->counters);
  base_map_free(&g->interned_descriptors);
  base_map_free(&g->stage_events);
  base_free(g->stage_nodes.data);
  VEC_FREE(g->hw_queues);
  VEC_FREE(g->stages);
  base_map_free(&g->unnamed_queues);
  base_map_free(&g->contexts);
  base_map_free(&g->debug_names);
}

int proto_gpu_wants_field(uint32_t number) {
  return number == PROTO_GPU_PACKET_COUNTER_EVENT || number == PROTO_GPU_PACKET_MEM_TOTAL ||
         number == PROTO_GPU_PACKET_FREQUENCY || number == PROTO_GPU_PACKET_RENDER_STAGE ||
         number == PROTO_GPU_PACKET_VULKAN_API || number == PROTO_GPU_PACKET_INFO;
}

/* ---- units ---- */

static const char *proto_gpu_unit_name(uint64_t unit) {
  static const char *const names[] = {
      "", "bit", "Kb", "Mb", "Gb", "Tb", "Pb", "B", "KB", "MB", "GB", "TB", "PB",
      "Hz", "KHz", "MHz", "GHz", "THz", "PHz", "ns", "us", "ms", "s", "min", "h",
      "Vertex", "Pixel", "Triangle", "mW", "W", "kW", "J", "V", "A", "C", "F", "K", "%",
      "Primitive", "Fragment", "Instruction"};
  return unit < sizeof names / sizeof *names ? names[unit] : "Unknown";
}

/* The values of a repeated varint field, packed or not, up to `cap`. */
static size_t proto_gpu_repeated(proto_span msg, uint32_t number, uint64_t *out, size_t cap) {
  size_t n = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != number) continue;
    if (fl.wire_type == PROTO_WIRE_VARINT) {
      if (n < cap) out[n++] = fl.value;
      continue;
    }
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_packed_iter it;
    uint64_t v;
    proto_packed_init(&it, fl.span);
    while (proto_packed_next_varint(&it, &v) == 1)
      if (n < cap) out[n++] = v;
  }
  return n;
}

/* The unit of a spec into buf; 0 if it has no unit fields. */
static int proto_gpu_unit(proto_span spec, char *buf, size_t cap) {
  uint64_t num[PROTO_GPU_MAX_UNITS], den[PROTO_GPU_MAX_UNITS];
  size_t nn = proto_gpu_repeated(spec, PROTO_GPU_SPEC_NUMERATOR, num, PROTO_GPU_MAX_UNITS);
  size_t nd = proto_gpu_repeated(spec, PROTO_GPU_SPEC_DENOMINATOR, den, PROTO_GPU_MAX_UNITS);
  if (!nn && !nd) return 0;
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < nn && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ":" : "", proto_gpu_unit_name(num[i]));
  char sep = '/';
  for (size_t i = 0; i < nd && len < cap; i++) {
    const char *u = proto_gpu_unit_name(den[i]);
    if (!*u) continue;
    len += (size_t)snprintf(buf + len, cap - len, "%c%s", sep, u);
    sep = ':';
  }
  return 1;
}

/* ---- descriptors ---- */

#define PROTO_GPU_MAX_GROUPS 64

typedef struct proto_gpu_group {
  int64_t id;
  string_id name, description;
  proto_span msg;
} proto_gpu_group;

typedef struct proto_gpu_groups {
  proto_gpu_group g[PROTO_GPU_MAX_GROUPS];
  size_t n;
} proto_gpu_groups;

static int proto_gpu_intern(import_file *f, proto_span s, string_id *id) {
  return ctx_intern(f->ctx, (const char *)s.data, s.len, id);
}

/* The descriptor's counter_groups that have a group_id. */
static int proto_gpu_groups_read(import_file *f, proto_span desc, proto_gpu_groups *out) {
  out->n = 0;
  proto_reader r, gr;
  proto_field fl, gf;
  proto_reader_init_span(&r, desc);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_GPU_DESC_GROUPS || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_gpu_group g = {-1, STRING_NULL, STRING_NULL, fl.span};
    int rc = WEFT_OK;
    proto_reader_init_span(&gr, fl.span);
    while (!rc && proto_reader_next(&gr, &gf) == 1) {
      if (gf.number == PROTO_GPU_GROUP_ID && gf.wire_type == PROTO_WIRE_VARINT)
        g.id = (int64_t)(int32_t)gf.value;
      else if (gf.number == PROTO_GPU_GROUP_NAME && gf.wire_type == PROTO_WIRE_LEN)
        rc = proto_gpu_intern(f, gf.span, &g.name);
      else if (gf.number == PROTO_GPU_GROUP_DESCRIPTION && gf.wire_type == PROTO_WIRE_LEN)
        rc = proto_gpu_intern(f, gf.span, &g.description);
    }
    if (rc) return rc;
    if (g.id >= 0 && out->n < PROTO_GPU_MAX_GROUPS) out->g[out->n++] = g;
  }
  return WEFT_OK;
}

static const proto_gpu_group *proto_gpu_group_find(const proto_gpu_groups *gs, int64_t id) {
  for (size_t i = 0; i < gs->n; i++)
    if (gs->g[i].id == id) return &gs->g[i];
  return NULL;
}

/* The spec's own groups' rows (group 0 when it names none). */
static int proto_gpu_spec_groups(import_file *f, proto_span spec, uint32_t track,
                                 const proto_gpu_groups *gs) {
  uint64_t ids[PROTO_GPU_MAX_GROUPS];
  size_t n = proto_gpu_repeated(spec, PROTO_GPU_SPEC_GROUPS, ids, PROTO_GPU_MAX_GROUPS);
  if (!n) return gpu_counter_group(f->ctx, 0, track, STRING_NULL, STRING_NULL);
  for (size_t i = 0; i < n; i++) {
    int64_t id = (int64_t)(int32_t)ids[i];
    const proto_gpu_group *g = proto_gpu_group_find(gs, id);
    int rc = gpu_counter_group(f->ctx, id, track, g ? g->name : STRING_NULL,
                               g ? g->description : STRING_NULL);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* A counter's key: its id in the namespace of its descriptor — the machine
 * for inline descriptors, the (sequence, iid) of an interned one. */
static uint64_t proto_gpu_counter_key(uint32_t ns, uint64_t counter_id) {
  return (uint64_t)ns << 32 | (counter_id & 0xffffffffu);
}

/* The namespace of interned descriptor iid of sequence seq (top bit set:
 * apart from the machines). */
static uint32_t proto_gpu_interned_ns(uint32_t seq, uint64_t iid) {
  return 0x80000000u | (uint32_t)(base_hash_u64(base_hash_u64(seq) ^ iid) & 0x7fffffffu);
}

typedef struct proto_gpu_spec {
  uint64_t counter_id, direction;
  int has_id;
  proto_span name, description;
  int has_name;
} proto_gpu_spec;

static void proto_gpu_spec_read(proto_span msg, proto_gpu_spec *s) {
  memset(s, 0, sizeof *s);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PROTO_GPU_SPEC_ID && !len) s->counter_id = fl.value, s->has_id = 1;
    else if (fl.number == PROTO_GPU_SPEC_NAME && len) s->name = fl.span, s->has_name = 1;
    else if (fl.number == PROTO_GPU_SPEC_DESCRIPTION && len) s->description = fl.span;
    else if (fl.number == PROTO_GPU_SPEC_DIRECTION && !len) s->direction = fl.value;
  }
}

/* A spec without id or name, or of an id declared before: logged at its
 * packet, with its id and name when it has an id. */
static int proto_gpu_invalid_spec(import_file *f, const proto_gpu_state *g,
                                  const proto_gpu_spec *s) {
  int64_t set = -1;
  int rc = s->has_id ? model_arg_int(f->ctx, "counter_id", 10, MODEL_ARG_UINT,
                                     (int64_t)s->counter_id) : WEFT_OK;
  if (!rc && s->has_id && s->has_name)
    rc = model_arg_string(f->ctx, "counter_name", 12, (const char *)s->name.data, s->name.len,
                          MODEL_ARG_STRING);
  if (!rc && model_args_pending(f->ctx)) rc = model_args_commit(f->ctx, &set);
  else if (rc) model_args_discard(f->ctx);
  if (!rc) rc = proto_log_at(f, g->packet, stat_gpu_counters_invalid_spec, set);
  return rc ? rc : import_stat(f, stat_gpu_counters_invalid_spec, 1);
}

/* Declares one spec's counter (see the rules in proto_gpu.h). */
static int proto_gpu_declare(import_file *f, proto_gpu_state *g, uint32_t machine, uint32_t ns,
                             uint32_t gpu_id, proto_span msg, const proto_gpu_groups *gs) {
  proto_gpu_spec s;
  proto_gpu_spec_read(msg, &s);
  uint64_t key = proto_gpu_counter_key(ns, s.counter_id);
  if (!s.has_id || !s.has_name || base_map_find(&g->counters, key))
    return proto_gpu_invalid_spec(f, g, &s);
  char unit[256];
  gpu_counter_spec spec = {(const char *)s.name.data, (const char *)s.description.data,
                           s.name.len, s.description.len, NULL};
  if (proto_gpu_unit(msg, unit, sizeof unit)) spec.unit = unit;
  uint32_t track;
  int created;
  int rc = gpu_counter_track(f->ctx, machine, gpu_id, &spec, &track, &created);
  if (!rc) rc = proto_gpu_spec_groups(f, msg, track, gs);
  if (rc) return rc;
  uint64_t backwards = s.direction != PROTO_GPU_DIRECTION_FORWARDS;
  return base_map_insert(&g->counters, key, (uint64_t)track << 1 | backwards, NULL) < 0
             ? WEFT_ENOMEM
             : WEFT_OK;
}

/* The rows of the descriptor's groups for the counters they list. */
static int proto_gpu_listed_groups(import_file *f, proto_gpu_state *g, uint32_t ns,
                                   const proto_gpu_groups *gs) {
  for (size_t i = 0; i < gs->n; i++) {
    uint64_t ids[256];
    size_t n = proto_gpu_repeated(gs->g[i].msg, PROTO_GPU_GROUP_COUNTER_IDS, ids, 256);
    for (size_t j = 0; j < n; j++) {
      uint64_t *v = base_map_find(&g->counters, proto_gpu_counter_key(ns, ids[j]));
      if (!v) continue;
      int rc = gpu_counter_group(f->ctx, gs->g[i].id, (uint32_t)(*v >> 1), gs->g[i].name,
                                 gs->g[i].description);
      if (rc) return rc;
    }
  }
  return WEFT_OK;
}

static int proto_gpu_descriptor(import_file *f, proto_gpu_state *g, uint32_t machine,
                                uint32_t ns, uint32_t gpu_id, proto_span desc) {
  proto_gpu_groups gs;
  int rc = proto_gpu_groups_read(f, desc, &gs);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, desc);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_GPU_DESC_SPECS && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_gpu_declare(f, g, machine, ns, gpu_id, fl.span, &gs);
  return rc ? rc : proto_gpu_listed_groups(f, g, ns, &gs);
}

/* ---- samples ---- */

static int proto_gpu_sample(import_file *f, proto_gpu_state *g, uint32_t ns, int64_t ts,
                            proto_span msg) {
  uint64_t id = 0;
  double value = 0;
  int has_id = 0, has_value = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_GPU_COUNTER_ID && fl.wire_type == PROTO_WIRE_VARINT)
      id = fl.value, has_id = 1;
    else if (fl.number == PROTO_GPU_COUNTER_INT && fl.wire_type == PROTO_WIRE_VARINT)
      value = (double)(int64_t)fl.value, has_value = 1;
    else if (fl.number == PROTO_GPU_COUNTER_DOUBLE && fl.wire_type == PROTO_WIRE_FIXED64)
      value = proto_field_double(&fl), has_value = 1;
  }
  if (!has_id || !has_value) return WEFT_OK;
  uint64_t *v = base_map_find(&g->counters, proto_gpu_counter_key(ns, id));
  if (!v) return WEFT_OK;
  return gpu_counter_value(f->ctx, (uint32_t)(*v >> 1), ts, value, (int)(*v & 1));
}

/* The interned descriptor iid of the packet's sequence, declared the first
 * time an event names it: its namespace in *ns, 0 if it is unknown. */
static int proto_gpu_interned_descriptor(import_file *f, proto_gpu_state *g,
                                         const proto_packet_info *info, uint64_t iid,
                                         uint32_t *ns) {
  proto_span msg;
  if (!proto_interned_message(f->state, info->seq, info->generation,
                              PROTO_INTERN_GPU_COUNTER_DESCRIPTOR, iid, &msg))
    return 0;
  *ns = proto_gpu_interned_ns(info->seq, iid);
  uint64_t *seen;
  int ins = base_map_insert(&g->interned_descriptors, (uint64_t)*ns, 1, &seen);
  if (ins < 0) return WEFT_ENOMEM;
  if (!ins) return 1;
  uint32_t gpu_id = 0;
  proto_span desc = {0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_GPU_INTERNED_GPU_ID && fl.wire_type == PROTO_WIRE_VARINT)
      gpu_id = (uint32_t)fl.value;
    else if (fl.number == PROTO_GPU_INTERNED_DESCRIPTOR && fl.wire_type == PROTO_WIRE_LEN)
      desc = fl.span;
  }
  int rc = desc.data ? proto_gpu_descriptor(f, g, info->machine, *ns, gpu_id, desc) : WEFT_OK;
  return rc ? rc : 1;
}

static int proto_gpu_counter_event(import_file *f, proto_gpu_state *g,
                                   const proto_packet_info *info, int64_t ts, proto_span ev) {
  uint32_t ns = info->machine;
  uint64_t iid = 0;
  int has_samples = 0, has_iid = 0, rc = WEFT_OK;
  proto_span pkt = info->data;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, ev);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_GPU_EVENT_DESCRIPTOR_IID && fl.wire_type == PROTO_WIRE_VARINT)
      iid = fl.value, has_iid = 1;
    if (fl.number == PROTO_GPU_EVENT_COUNTERS) has_samples = 1;
  }
  if (has_iid) {
    rc = proto_gpu_interned_descriptor(f, g, info, iid, &ns);
    if (rc <= 0) return rc; /* an unknown descriptor: its samples are dropped */
    rc = WEFT_OK;
  }
  /* inline descriptors were declared at tokenize time (proto_gpu_tokenize) */
  if (!has_samples) return WEFT_OK;
  proto_field tsf;
  if (proto_find_first(pkt.data, pkt.len, PROTO_GPU_PACKET_TIMESTAMP, &tsf) != 1) {
    rc = proto_log_at(f, pkt, stat_gpu_counters_missing_timestamp, -1);
    return rc ? rc : import_stat(f, stat_gpu_counters_missing_timestamp, 1);
  }
  proto_reader_init_span(&r, ev);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_GPU_EVENT_COUNTERS && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_gpu_sample(f, g, ns, ts, fl.span);
  return rc;
}

/* ---- memory and frequency ---- */

/* Fields 1..3 of a message as varints (GpuMemTotalEvent: gpu_id, pid,
 * size; the frequency packet: gpu_id, state). */
static void proto_gpu_three(proto_span msg, uint64_t v[4]) {
  memset(v, 0, 4 * sizeof *v);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number >= 1 && fl.number <= 3 && fl.wire_type == PROTO_WIRE_VARINT) v[fl.number] = fl.value;
}

static int proto_gpu_mem_total(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  uint64_t v[4];
  proto_gpu_three(msg, v);
  uint32_t gpu_id = (uint32_t)v[1];
  int64_t pid = (int64_t)(uint32_t)v[2];
  if (pid == 0)
    return gpu_counter(f->ctx, machine, gpu_id, -1, "GPU Memory", "gpu_memory", "bytes", ts,
                       (double)v[3]);
  uint32_t utid;
  int rc = model_thread_in_process(f->ctx, machine, pid, pid, &utid);
  if (rc) return rc;
  int64_t upid = storage_get_i64_or(ctx_table(f->ctx, TABLE_THREAD), THREAD_upid, utid, 0);
  return gpu_counter(f->ctx, machine, gpu_id, upid, "GPU Memory", "process_gpu_memory", "bytes",
                     ts, (double)v[3]);
}

/* ---- gpu info ---- */

/* An extra_info KeyValue as a string arg (none without a key). */
static int proto_gpu_extra_info(import_file *f, proto_span kv, int *added) {
  proto_span key = {0}, value = {0};
  int has_key = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, kv);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == PROTO_GPU_KV_KEY) key = fl.span, has_key = 1;
    else if (fl.number == PROTO_GPU_KV_VALUE) value = fl.span;
  }
  if (!has_key) return WEFT_OK;
  *added = 1;
  return model_arg_string(f->ctx, (const char *)key.data, key.len, (const char *)value.data,
                          value.len, MODEL_ARG_STRING);
}

/* A uuid's bytes as lowercase hex. */
static int proto_gpu_uuid(import_file *f, proto_span bytes, string_id *out) {
  static const char digits[] = "0123456789abcdef";
  char hex[2 * 64];
  size_t n = bytes.len < 64 ? bytes.len : 64;
  for (size_t i = 0; i < n; i++) {
    hex[2 * i] = digits[bytes.data[i] >> 4];
    hex[2 * i + 1] = digits[bytes.data[i] & 15];
  }
  return ctx_intern(f->ctx, hex, 2 * n, out);
}

/* Gpu message `index` of a GpuInfo describes gpu id `index`. */
static int proto_gpu_info_gpu(import_file *f, uint32_t machine, uint32_t index, proto_span msg) {
  gpu_description d = {STRING_NULL, STRING_NULL, STRING_NULL, STRING_NULL, STRING_NULL,
                       STRING_NULL, -1};
  string_id *strs[] = {NULL, &d.name, &d.vendor, &d.model, &d.architecture, NULL, NULL,
                       &d.pci_bdf};
  int added = 0, rc = WEFT_OK;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN || fl.number > PROTO_GPU_INFO_PCI_BDF) continue;
    if (fl.number == PROTO_GPU_INFO_UUID) rc = proto_gpu_uuid(f, fl.span, &d.uuid);
    else if (fl.number == PROTO_GPU_INFO_EXTRA) rc = proto_gpu_extra_info(f, fl.span, &added);
    else if (strs[fl.number])
      rc = ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, strs[fl.number]);
  }
  if (!rc && added) rc = model_args_commit(f->ctx, &d.arg_set);
  else if (added) model_args_discard(f->ctx);
  return rc ? rc : gpu_describe(f->ctx, machine, index, &d);
}

static int proto_gpu_info(import_file *f, uint32_t machine, proto_span msg) {
  uint32_t index = 0;
  int rc = WEFT_OK;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_GPU_INFO_GPUS && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_gpu_info_gpu(f, machine, index++, fl.span);
  return rc;
}

int proto_gpu_tokenize(import_file *f, proto_gpu_state *g, uint32_t machine,
                       proto_span packet) {
  proto_field ev, fl;
  if (proto_find_last(packet.data, packet.len, PROTO_GPU_PACKET_COUNTER_EVENT, &ev) != 1 ||
      ev.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  uint32_t gpu_id = 0;
  if (proto_find_last(ev.span.data, ev.span.len, PROTO_GPU_EVENT_GPU_ID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    gpu_id = (uint32_t)fl.value;
  proto_reader r;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, ev.span);
  g->packet = packet;
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == PROTO_GPU_EVENT_DESCRIPTOR && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_gpu_descriptor(f, g, machine, machine, gpu_id, fl.span);
  g->packet = (proto_span){NULL, 0};
  return rc;
}

int proto_gpu_parse(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                    int64_t ts, const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  uint64_t v[4];
  uint32_t machine = info->machine;
  switch (fl->number) {
    case PROTO_GPU_PACKET_RENDER_STAGE: return proto_gpu_stage_parse(f, g, info, ts, fl->span);
    case PROTO_GPU_PACKET_VULKAN_API: return proto_gpu_vulkan_parse(f, g, info, ts, fl->span);
    case PROTO_GPU_PACKET_COUNTER_EVENT:
      return proto_gpu_counter_event(f, g, info, ts, fl->span);
    case PROTO_GPU_PACKET_MEM_TOTAL: return proto_gpu_mem_total(f, machine, ts, fl->span);
    case PROTO_GPU_PACKET_INFO: return proto_gpu_info(f, machine, fl->span);
    case PROTO_GPU_PACKET_FREQUENCY:
      proto_gpu_three(fl->span, v);
      return gpu_counter(f->ctx, machine, (uint32_t)v[1], -1, "gpufreq", "gpu_frequency", "kHz",
                         ts, (double)(uint32_t)v[2]);
    default: return WEFT_OK;
  }
}
