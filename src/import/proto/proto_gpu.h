/* proto_gpu: the GPU packets of the proto importer — GpuCounterEvent
 * (counter descriptors, groups and samples), GpuMemTotalEvent and the GPU
 * frequency packet, written through model/gpu.h.
 *
 * Owns per file the counters declared by inline descriptors ((machine,
 * counter id) -> track and direction). Rules (Perfetto's):
 *  - a descriptor's spec without counter_id or name, or whose counter_id
 *    was declared before, is skipped (stat gpu_counters_invalid_spec);
 *  - a spec's track is "<name>" (unit: numerator units joined by ':', then
 *    '/' and the non-empty denominator units joined by ':'; NULL with no
 *    units); it gets a gpu_counter_group row per group it names (with the
 *    descriptor's group name and description, if any), or group 0; the
 *    descriptor's counter_groups add a row per counter id they list;
 *  - samples of undeclared counters, or without a value, are dropped; a
 *    packet without a timestamp has its samples dropped (stat
 *    gpu_counters_missing_timestamp, once per packet) but its descriptor
 *    read;
 *  - an event naming counter_descriptor_iid uses the sequence's interned
 *    descriptor (InternedData.gpu_counter_descriptors: its gpu_id and
 *    descriptor), declared as above the first time an event names it; its
 *    counter ids are its own, apart from other descriptors' (a sequence
 *    and iid each); an unknown iid drops the event's samples;
 *  - a render stage slice links flows to every earlier slice that waits on
 *    its own event_id (each wait named), then, for each id it names in
 *    event_wait_ids in turn, from every earlier stage slice of that id (in
 *    slice order), across sequences; past 4M remembered slices no more are
 *    linked (memory bound);
 *  - GpuMemTotalEvent: pid 0 is the gpu's "GPU Memory" (type gpu_memory),
 *    another pid's is its process's (type process_gpu_memory). */
#ifndef WEFT_PROTO_GPU_H
#define WEFT_PROTO_GPU_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_GPU_COUNTER_EVENT 52

typedef struct proto_packet_info proto_packet_info;

typedef struct proto_gpu_desc {
  string_id name, description; /* name STRING_NULL: not described */
} proto_gpu_desc;

typedef struct proto_gpu_stage_node {
  uint32_t slice, next;
} proto_gpu_stage_node;

typedef struct proto_gpu_state {
  base_map counters; /* (namespace, counter id) -> track << 1 | backwards */
  base_map interned_descriptors; /* namespaces of interned descriptors declared */
  VEC(proto_gpu_desc) hw_queues; /* legacy Specifications, by hw_queue_id */
  VEC(proto_gpu_desc) stages;    /* legacy Specifications, by stage_id */
  base_map unnamed_queues; /* hw_queue_id -> 1 while its track has a placeholder name */
  base_map contexts;       /* graphics context ids with a gpu_context row */
  base_map debug_names;    /* hash(Vulkan object type, handle) -> name */
  /* render stage slices by event id and by the ids they wait on: key ->
   * head node + 1; nodes chain a slice to the next node (+ 1, 0: end) */
  base_map stage_events;
  VEC(proto_gpu_stage_node) stage_nodes;
  proto_span packet; /* tokenize: the packet whose descriptors are read */
} proto_gpu_state;

void proto_gpu_free(proto_gpu_state *g);
/* At tokenize time (file order): the inline counter descriptors of a
 * GpuCounterEvent declare their counters' tracks. */
int proto_gpu_tokenize(import_file *f, proto_gpu_state *g, uint32_t machine,
                       proto_span packet);
/* 1 if a TracePacket field is one proto_gpu_parse handles. */
int proto_gpu_wants_field(uint32_t number);
/* Applies TracePacket field `fl` of packet `info` at trace time ts. */
int proto_gpu_parse(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                    int64_t ts, const proto_field *fl);

/* ---- render stages and Vulkan API events (proto_gpu_stage.c) ----
 * GpuRenderStageEvent: legacy Specifications name hw queues and stages by
 * index (a queue's placeholder track "Unknown GPU Queue <id>" is renamed
 * when its name arrives); an event with an event_id is a slice on its
 * queue's render stage track set (model/gpu.h: overlapping slices get more
 * tracks) named by name_iid, name, the stage's spec or "render stage(<id>)",
 * with the stage, kernel, launch, extra data and handle args; a context
 * interned as InternedGraphicsContext gives the pid and a gpu_context row.
 * VulkanApiEvent: debug object names (for the handles' *_name args) and
 * vkQueueSubmit slices on "Vulkan Events". */
int proto_gpu_stage_parse(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                          int64_t ts, proto_span msg);
int proto_gpu_vulkan_parse(import_file *f, proto_gpu_state *g, const proto_packet_info *info,
                           int64_t ts, proto_span msg);

#endif
