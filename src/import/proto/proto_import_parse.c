/* Perfetto proto importer: parse phase — process trees, track descriptors,
 * legacy thread/process descriptors, and the dispatch of every packet to
 * its parser (track events: proto_track_event.h). See proto_import.h. */
#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_etw.h"
#include "import/proto/proto_ftrace.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_heap_graph.h"
#include "import/proto/proto_android.h"
#include "import/proto/proto_android_fw.h"
#include "import/proto/proto_frames.h"
#include "import/proto/proto_native_symbols.h"
#include "import/proto/proto_power.h"
#include "import/proto/proto_profile.h"
#include "import/proto/proto_track_event.h"
#include "import/proto/proto_process_tree.h"
#include "import/proto/proto_winscope.h"
#include "import/proto/proto_winscope_sf.h"
#include "model/columns.h"

/* ---- descriptors ---- */

typedef struct proto_desc {
  int64_t pid, tid;
  int has_pid, has_tid;
  proto_span name;
  int has_name;
} proto_desc;

/* Reads ProcessDescriptor / ThreadDescriptor (pid, tid, name field). */
static void proto_desc_read(proto_span msg, uint32_t pid_field, uint32_t tid_field,
                            uint32_t name_field, proto_desc *d) {
  memset(d, 0, sizeof *d);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == pid_field && fl.wire_type == PROTO_WIRE_VARINT) {
      d->pid = proto_field_int32(&fl);
      d->has_pid = 1;
    } else if (tid_field && fl.number == tid_field && fl.wire_type == PROTO_WIRE_VARINT) {
      d->tid = proto_field_int32(&fl);
      d->has_tid = 1;
    } else if (fl.number == name_field && fl.wire_type == PROTO_WIRE_LEN) {
      d->name = fl.span;
      d->has_name = 1;
    }
  }
}

static int proto_desc_thread(proto_parse_ctx *p, const proto_desc *d, uint32_t *utid) {
  trace_context *ctx = p->f->ctx;
  uint32_t main_utid;
  /* A process seen through a thread descriptor gets its main thread too. */
  int rc = d->has_pid && d->pid != d->tid
               ? model_thread_in_process(ctx, p->machine, d->pid, d->pid, &main_utid)
               : WEFT_OK;
  if (!rc)
    rc = d->has_pid ? model_thread_in_process(ctx, p->machine, d->tid, d->pid, utid)
                    : model_thread(ctx, p->machine, d->tid, utid);
  return rc;
}

/* Sets a process's / thread's arg set to {key: value} (sort index hints of
 * descriptor tracks). */
static int proto_sort_index_hint(trace_context *ctx, schema_table_id table, int column,
                                 uint32_t row, const char *key, int64_t value) {
  int64_t args;
  int rc = model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, value);
  if (!rc) rc = model_args_commit(ctx, &args);
  if (!rc) model_row_set_arg_set(ctx, table, (size_t)column, row, args);
  return rc;
}

/* A TrackDescriptor at its trace time: resolves the track's thread/process
 * (proto_tracks.h; the track row itself is made on first use) and applies
 * the thread/process names it carries and, when the root descriptor orders
 * processes / threads explicitly, its sibling_order_rank as their sort
 * index hint. */
static int proto_track_descriptor(proto_parse_ctx *p, proto_span msg) {
  trace_context *ctx = p->f->ctx;
  proto_import_state *st = p->f->state;
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_UUID, &fl) != 1) return WEFT_OK;
  proto_track_ref ref;
  int rc = proto_tracks_resolve(p->f, &st->track_model, p->machine, fl.value, &ref);
  if (rc) return rc > 0 ? WEFT_OK : rc;
  int64_t rank = 0;
  int has_rank = proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_SIBLING_ORDER_RANK,
                                 &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT;
  if (has_rank) rank = proto_field_int32(&fl);
  if (ref.utid >= 0 &&
      proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_THREAD, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN) {
    proto_span thread = fl.span;
    uint32_t utid = (uint32_t)ref.utid;
    int has_chrome = proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_CHROME_THREAD,
                                     &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN;
    rc = proto_thread_descriptor_name(p->f, &st->misc, utid, thread, has_chrome ? &fl.span : NULL);
    if (!rc && has_rank && st->track_model.thread_ranked)
      rc = proto_sort_index_hint(ctx, TABLE_THREAD, THREAD_arg_set_id, utid,
                                 "thread_sort_index_hint", rank);
  } else if (ref.upid >= 0 &&
             proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_PROCESS, &fl) == 1 &&
             fl.wire_type == PROTO_WIRE_LEN) {
    proto_span process = fl.span;
    uint32_t upid = (uint32_t)ref.upid;
    int has_chrome = proto_find_last(msg.data, msg.len, PROTO_TRACK_DESCRIPTOR_CHROME_PROCESS,
                                     &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN;
    rc = proto_process_descriptor_apply(p->f, &st->misc, upid, process,
                                        has_chrome ? &fl.span : NULL);
    int ranked = has_rank && st->track_model.process_ranked;
    if (!rc && ranked) /* joins the process args (model_process_args_add) */
      rc = model_arg_int(ctx, "process_sort_index_hint", 23, MODEL_ARG_INT, rank);
    if (!rc && ranked) rc = model_process_args_add(ctx, upid);
  }
  return rc;
}

static int proto_thread_descriptor(proto_parse_ctx *p, proto_span msg) {
  proto_import_state *st = p->f->state;
  proto_desc d;
  proto_desc_read(msg, PROTO_THREAD_DESCRIPTOR_PID, PROTO_THREAD_DESCRIPTOR_TID,
                  PROTO_THREAD_DESCRIPTOR_THREAD_NAME, &d);
  uint32_t utid;
  int rc = proto_desc_thread(p, &d, &utid);
  if (!rc) rc = proto_thread_descriptor_name(p->f, &st->misc, utid, msg, NULL);
  return rc; /* the sequence's thread was set when the packet was tokenized */
}

static int proto_process_descriptor(proto_parse_ctx *p, proto_span msg) {
  proto_desc d;
  proto_desc_read(msg, PROTO_PROCESS_DESCRIPTOR_PID, 0,
                  PROTO_PROCESS_DESCRIPTOR_PROCESS_NAME, &d);
  if (!d.has_pid) return WEFT_OK;
  uint32_t upid;
  int rc = proto_process_get(p->f->ctx, p->machine, d.pid, &upid); /* and its main thread */
  return rc ? rc
            : proto_process_descriptor_apply(p->f, &((proto_import_state *)p->f->state)->misc,
                                             upid, msg, NULL);
}

/* ---- dispatch ---- */

/* The packet a payload refers to (a side record, or *tmp filled from its
 * reference); NULL if it does not resolve. */
static const proto_packet_info *proto_packet_of(const proto_import_state *st, uint64_t payload,
                                                proto_packet_info *tmp) {
  if (payload & PROTO_REF_SIDE) {
    uint64_t index = payload & ~PROTO_REF_SIDE;
    return index < st->packets.len ? &st->packets.data[index] : NULL;
  }
  const proto_ref_ctx *c;
  if (!proto_ref_resolve(&st->refs, payload, &tmp->data, &c, &tmp->buffer)) return NULL;
  tmp->defaults = c->defaults;
  tmp->seq = c->seq;
  tmp->generation = c->generation;
  tmp->machine = c->machine;
  return tmp;
}

/* What proto_import_prepare decodes of a packet ahead of its parse. */
typedef struct proto_prepared_packet {
  proto_packet_info info; /* the packet, resolved */
  int sole_event;         /* its only message field is a TrackEvent: */
  proto_span msg;         /* that TrackEvent, */
  proto_event event;      /* decoded */
} proto_prepared_packet;

/* 1 with *msg when the packet's only message field (as far as it reads) is
 * a TrackEvent: applying the packet is then applying that event. */
static int proto_sole_track_event(proto_span pkt, proto_span *msg) {
  proto_reader r;
  proto_field fl;
  int found = 0;
  proto_reader_init_span(&r, pkt);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (found || fl.number != PROTO_TRACE_PACKET_TRACK_EVENT) return 0;
    *msg = fl.span;
    found = 1;
  }
  return found;
}

void proto_import_locate_rule(const import_file *f, sort_locate_rule *rule) {
  const proto_import_state *st = f->state;
  if (!st) return;
  proto_ref_locate_rule(&st->refs, rule);
  rule->warm[1] = &st->refs;
}

size_t proto_import_prepare(const import_file *f, const sort_event *event, void *out) {
  _Static_assert(sizeof(proto_prepared_packet) <= IMPORT_PREPARED_MAX, "fits a prepared slot");
  const proto_import_state *st = f->state;
  if (!st) return 0;
  if (proto_etw_is_payload(event->payload) || proto_android_log_is_payload(event->payload))
    return 0;
  if (event->payload & PROTO_REF_FTRACE) return proto_ftrace_prepare(f, event, out);
  proto_prepared_packet *pp = out;
  const proto_packet_info *info = proto_packet_of(st, event->payload, &pp->info);
  if (!info) return 0;
  if (info != &pp->info) pp->info = *info;
  pp->sole_event = proto_sole_track_event(info->data, &pp->msg);
  if (pp->sole_event) {
    memset(&pp->event, 0, sizeof pp->event);
    proto_event_read(pp->msg, &pp->event);
  }
  return sizeof *pp;
}

static int proto_packet_apply(import_file *f, const proto_packet_info *info, int64_t ts,
                              proto_prepared_packet *prepared, base_error *err);

int proto_import_parse(import_file *f, const sort_event *event, void *prepared,
                       base_error *err) {
  proto_import_state *st = f->state;
  if (st && proto_android_log_is_payload(event->payload)) {
    int rc = proto_android_log_parse(f, st->android, event->payload, event->ts);
    return rc ? base_error_set(err, rc, "android log: failed to apply event") : WEFT_OK;
  }
  if (st && (event->payload & PROTO_REF_FTRACE))
    return proto_etw_is_payload(event->payload) ? proto_etw_parse(f, event, err)
                                                : proto_ftrace_parse(f, event, prepared, err);
  proto_prepared_packet *pp = prepared;
  proto_packet_info resolved;
  const proto_packet_info *info = pp   ? &pp->info
                                  : st ? proto_packet_of(st, event->payload, &resolved)
                                       : NULL;
  if (!info) return WEFT_OK;
  int rc = proto_packet_apply(f, info, event->ts, pp, err);
  proto_input_release(f, info->buffer, info->data);
  return rc;
}

static int proto_packet_apply(import_file *f, const proto_packet_info *info, int64_t ts,
                              proto_prepared_packet *prepared, base_error *err) {
  proto_parse_ctx p = {f, info, info->machine, ts};
  if (prepared && prepared->sole_event) {
    int rc = proto_track_event(&p, prepared->msg, &prepared->event);
    return rc ? base_error_set(err, rc, "proto: failed to apply packet") : WEFT_OK;
  }
  proto_field fl;
  proto_reader r;
  proto_reader_init_span(&r, p.info->data);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    int rc = WEFT_OK;
    switch (fl.number) {
      case PROTO_TRACE_PACKET_PROCESS_TREE:
        rc = proto_process_tree_parse(f, p.machine, p.ts, info->data, info->defaults, fl.span);
        break;
      case PROTO_TRACE_PACKET_TRACK_DESCRIPTOR: rc = proto_track_descriptor(&p, fl.span); break;
      case PROTO_TRACE_PACKET_THREAD_DESCRIPTOR: rc = proto_thread_descriptor(&p, fl.span); break;
      case PROTO_TRACE_PACKET_PROCESS_DESCRIPTOR: rc = proto_process_descriptor(&p, fl.span); break;
      case PROTO_TRACE_PACKET_TRACK_EVENT: rc = proto_track_event(&p, fl.span, NULL); break;
      case PROTO_TRACE_PACKET_BATTERY:
      case PROTO_TRACE_PACKET_POWER_RAILS:
      case PROTO_TRACE_PACKET_ENERGY_ESTIMATION_BREAKDOWN:
        rc = proto_power_parse(f, &((proto_import_state *)f->state)->power, p.machine, p.ts,
                               info->data, &fl);
        break;
      case PROTO_TRACE_PACKET_HEAP_GRAPH: {
        proto_import_state *st = f->state;
        rc = proto_heap_graph_parse(f, &st->heap_graph, p.machine, st->seqs.data[info->seq].id,
                                    p.ts, &fl);
        break;
      }
      case PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING: { /* classes and fields; frames */
        proto_import_state *st = f->state;
        rc = proto_heap_graph_parse(f, &st->heap_graph, p.machine, st->seqs.data[info->seq].id,
                                    p.ts, &fl);
        if (!rc) rc = proto_profile_parse(f, info, p.ts, &fl);
        if (!rc) rc = proto_native_symbols_classes(f, &st->native_symbols, &fl);
        break;
      }
      case PROTO_TRACE_PACKET_ART_PROCESS_METADATA:
        rc = proto_art_metadata_parse(f, p.machine, p.ts, fl.span);
        break;
      case PROTO_TRACE_PACKET_PROFILE_PACKET:
      case PROTO_TRACE_PACKET_PERF_SAMPLE:
      case PROTO_TRACE_PACKET_STREAMING_PROFILE_PACKET:
      case PROTO_TRACE_PACKET_STACK_SAMPLE:
      case PROTO_TRACE_PACKET_SMAPS_PACKET:
        rc = proto_profile_parse(f, info, p.ts, &fl);
        break;
      case PROTO_TRACE_PACKET_ANDROID_LOG:
      case PROTO_TRACE_PACKET_PACKAGES_LIST:
      case PROTO_TRACE_PACKET_JOURNALD_EVENT:
      case PROTO_TRACE_PACKET_ANDROID_SYSTEM_PROPERTY:
      case PROTO_TRACE_PACKET_CPU_PER_UID_DATA:
        rc = proto_android_parse(f, &((proto_import_state *)f->state)->android, p.machine, p.ts,
                                 &fl);
        break;
      case PROTO_TRACE_PACKET_WINSCOPE_EXTENSIONS:
      case PROTO_TRACE_PACKET_SHELL_TRANSITION:
      case PROTO_TRACE_PACKET_SHELL_HANDLER_MAPPINGS:
      case PROTO_TRACE_PACKET_PROTOLOG_MESSAGE:
      case PROTO_TRACE_PACKET_PROTOLOG_VIEWER_CONFIG:
      case PROTO_TRACE_PACKET_SURFACEFLINGER_TRANSACTIONS:
      case PROTO_TRACE_PACKET_SURFACEFLINGER_LAYERS:
        rc = proto_winscope_parse(f, info, p.ts, &fl);
        break;
      case PROTO_TRACE_PACKET_GRAPHICS_FRAME_EVENT:
        rc = proto_frames_parse(f, &((proto_import_state *)f->state)->frames, p.machine, p.ts,
                                &fl);
        break;
      case PROTO_TRACE_PACKET_MODULE_SYMBOLS:
        rc = proto_module_symbols_parse(f, &((proto_import_state *)f->state)->native_symbols, &fl);
        break;
      case PROTO_TRACE_PACKET_ANDROID_AFLAGS: rc = proto_android_aflags(f, p.ts, fl.span); break;
      case PROTO_TRACE_PACKET_FRAME_TIMELINE_EVENT:
        rc = proto_frame_timeline_parse(f, &((proto_import_state *)f->state)->frame_timeline,
                                        p.machine, p.ts, &fl);
        break;
      default:
        rc = proto_gpu_wants_field(fl.number)
                 ? proto_gpu_parse(f, &((proto_import_state *)f->state)->gpu, info, p.ts, &fl)
                 : proto_misc_parse(f, p.machine, p.ts, &fl);
        break;
    }
    if (rc) return base_error_set(err, rc, "proto: failed to apply packet");
  }
  return WEFT_OK;
}
