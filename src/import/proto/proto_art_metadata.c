/* ArtProcessMetadata packets. See proto_heap_graph.h. */
#include <string.h>

#include "import/proto/proto_heap_graph.h"
#include "model/columns.h"
#include "model/heap_graph.h"
#include "model/logs.h"
#include "model/model.h"

/* ArtProcessMetadata */
enum { APM_PID = 1, APM_UID = 2, APM_PROCESS_NAME = 3, APM_PACKAGE_NAME = 4,
       APM_OOM_ALLOCATION_SIZE = 5, APM_OOM_TOTAL_BYTES_FREE = 6,
       APM_OOM_FREE_BYTES_UNTIL_OOM = 7, APM_OOM_THREAD_JAVA_STACK = 8, APM_OOM_ERROR_MSG = 9 };
/* JavaStack, JavaFrame */
enum { JS_FRAMES = 1 };
enum { JF_METHOD_NAME = 1, JF_SOURCE_FILE = 2, JF_LINE_NUMBER = 3 };

#define PROTO_ART_MAX_FRAMES 65536 /* frames of a stack that are kept */

typedef struct proto_art_fields {
  int64_t pid, uid, allocation_size, total_free, until_oom;
  proto_span process_name, package_name, stack, error_msg;
  int has_uid, has_process_name, has_package_name, is_oome, has_stack, has_error_msg;
} proto_art_fields;

static void proto_art_read(proto_span msg, proto_art_fields *a) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int v = fl.wire_type == PROTO_WIRE_VARINT, s = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case APM_PID: if (v) a->pid = (int32_t)fl.value; break;
      case APM_UID: if (v) a->uid = (int32_t)fl.value, a->has_uid = 1; break;
      case APM_PROCESS_NAME: if (s) a->process_name = fl.span, a->has_process_name = 1; break;
      case APM_PACKAGE_NAME: if (s) a->package_name = fl.span, a->has_package_name = 1; break;
      case APM_OOM_ALLOCATION_SIZE: if (v) a->allocation_size = (int64_t)fl.value, a->is_oome = 1; break;
      case APM_OOM_TOTAL_BYTES_FREE: if (v) a->total_free = (int64_t)fl.value; break;
      case APM_OOM_FREE_BYTES_UNTIL_OOM: if (v) a->until_oom = (int64_t)fl.value; break;
      case APM_OOM_THREAD_JAVA_STACK: if (s) a->stack = fl.span, a->has_stack = 1; break;
      case APM_OOM_ERROR_MSG: if (s) a->error_msg = fl.span, a->has_error_msg = 1; break;
      default: break;
    }
  }
}

/* "void a.B.c(int)" -> "a.B.c": before the first '(', after the last space. */
static proto_span proto_art_method_name(proto_span raw) {
  const uint8_t *paren = memchr(raw.data, '(', raw.len);
  size_t len = paren ? (size_t)(paren - raw.data) : raw.len;
  size_t start = len;
  while (start > 0 && raw.data[start - 1] != ' ') start--;
  return (proto_span){raw.data + start, len - start};
}

/* One JavaFrame; *kept is 0 for a frame without a method name. */
static int proto_art_frame(trace_context *ctx, proto_span msg, heap_graph_java_frame *out,
                           int *kept) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  *out = (heap_graph_java_frame){STRING_NULL, STRING_NULL, -1};
  *kept = 0;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    int s = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == JF_METHOD_NAME && s) {
      proto_span name = proto_art_method_name(fl.span);
      rc = ctx_intern(ctx, (const char *)name.data, name.len, &out->method);
      *kept = 1;
    }
    if (fl.number == JF_SOURCE_FILE && s)
      rc = ctx_intern(ctx, (const char *)fl.span.data, fl.span.len, &out->file);
    if (fl.number == JF_LINE_NUMBER && fl.wire_type == PROTO_WIRE_VARINT)
      out->line = (int64_t)(uint32_t)fl.value;
  }
  return rc;
}

typedef VEC(heap_graph_java_frame) proto_art_frames;

static int proto_art_stack(trace_context *ctx, proto_span msg, proto_art_frames *frames) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && frames->len < PROTO_ART_MAX_FRAMES && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != JS_FRAMES || fl.wire_type != PROTO_WIRE_LEN) continue;
    heap_graph_java_frame frame;
    int kept;
    rc = proto_art_frame(ctx, fl.span, &frame, &kept);
    if (!rc && kept && VEC_PUSH(*frames, frame)) rc = WEFT_ENOMEM;
  }
  return rc;
}

static int proto_art_process(import_file *f, uint32_t machine, const proto_art_fields *a,
                             uint32_t *upid, uint32_t *utid) {
  trace_context *ctx = f->ctx;
  int rc = model_process_find(ctx, machine, a->pid, upid)
               ? WEFT_OK
               : model_process(ctx, machine, a->pid, upid);
  if (!rc) rc = model_thread_in_process(ctx, machine, a->pid, a->pid, utid);
  if (!rc && a->has_process_name)
    rc = model_process_set_name(ctx, *upid, (const char *)a->process_name.data,
                                a->process_name.len);
  if (!rc && a->has_uid) model_process_set_uid(ctx, *upid, a->uid);
  if (rc || !a->has_package_name || !a->has_uid) return rc;
  model_package p = {0};
  p.uid = a->uid, p.has_uid = 1;
  p.has_debuggable = p.has_profileable = p.has_version_code = 1;
  rc = ctx_intern(ctx, (const char *)a->package_name.data, a->package_name.len, &p.name);
  return rc ? rc : model_package_add(ctx, &p);
}

int proto_art_metadata_parse(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  proto_art_fields a = {0};
  proto_art_read(msg, &a);
  heap_graph_art_metadata m = {0};
  int rc = proto_art_process(f, machine, &a, &m.upid, &m.utid);
  proto_art_frames frames = {0};
  if (!rc && a.has_error_msg)
    rc = ctx_intern(f->ctx, (const char *)a.error_msg.data, a.error_msg.len, &m.error_msg);
  if (!rc && a.is_oome && a.has_stack) rc = proto_art_stack(f->ctx, a.stack, &frames);
  m.ts = ts;
  m.is_oome = a.is_oome, m.has_stack = a.has_stack;
  m.allocation_size = a.allocation_size;
  m.total_bytes_free = a.total_free, m.free_bytes_until_oom = a.until_oom;
  m.frames = frames.data, m.frame_count = frames.len;
  if (!rc) rc = model_heap_graph_art_metadata(f->ctx, &m);
  VEC_FREE(frames);
  return rc;
}
