/* Thread names of thread descriptors (TrackDescriptor.thread, the legacy
 * TracePacket thread_descriptor) and of their Chrome thread types.
 *
 *  - A descriptor's name is its non-empty thread_name, else the name of its
 *    legacy ThreadDescriptor.chrome_thread_type. An empty name and an
 *    unknown type set nothing.
 *  - A TrackDescriptor's ChromeThreadDescriptor.thread_type names the
 *    thread too, one rank below: it replaces any name but one a descriptor
 *    gave (Perfetto's kTrackDescriptorThreadType below kTrackDescriptor).
 *    The map keeps, per thread, the string of the last descriptor name:
 *    a current name that is not that string came from elsewhere. */
#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_misc.h"
#include "model/model.h"

#define PROTO_CHROME_THREAD_TYPE 1

/* chrome_enums.ThreadType as Perfetto names it (the legacy
 * ThreadDescriptor.ChromeThreadType uses the same numbers). */
static const char *const proto_chrome_thread_names[] = {
    NULL,
    "CrProcessMain",
    "ChromeIOThread",
    "ThreadPoolBackgroundWorker&",
    "ThreadPoolForegroundWorker&",
    "ThreadPoolSingleThreadForegroundBlocking&",
    "ThreadPoolSingleThreadBackgroundBlocking&",
    "ThreadPoolService",
    "Compositor",
    "VizCompositorThread",
    "CompositorTileWorker&",
    "ServiceWorkerThread&",
    "NetworkService",
    "Chrome_ChildIOThread",
    "Chrome_IOThread",
    "CrBrowserMain",
    "CrRendererMain",
    "CrUtilityMain",
    "CrGpuMain",
    "CacheThread_BlockFile",
    "Media",
    "AudioOutputDevice",
    "AudioInputDevice",
    "GpuMemoryThread",
    "GpuVSyncThread",
    "DXVAVideoDecoderThread",
    "BrowserWatchdog",
    "WebRTC_Network",
    "Window owner thread",
    "WebRTC_Signaling",
    "WebRTC_Worker",
    "CrPPAPIMain",
    "GpuWatchdog",
    "swapper",
    "Gamepad polling thread",
    "WebCrypto",
    "Database thread",
    "Proxy Resolver",
    "Chrome_DevToolsADBThread",
    "NetworkConfigWatcher",
    "wasapi_render_thread",
    "LoaderLockSampler",
    "VSyncThread",
};

#define PROTO_CHROME_THREAD_MEMORY_INFRA 50

static const char *const proto_chrome_thread_names_50[] = {
    "MemoryInfra",
    "StackSamplingProfiler",
    "CompositorGpuThread",
};

const char *proto_chrome_thread_type_name(int64_t type) {
  size_t n = sizeof proto_chrome_thread_names / sizeof *proto_chrome_thread_names;
  size_t n50 = sizeof proto_chrome_thread_names_50 / sizeof *proto_chrome_thread_names_50;
  if (type >= 0 && (uint64_t)type < n) return proto_chrome_thread_names[type];
  if (type >= PROTO_CHROME_THREAD_MEMORY_INFRA &&
      (uint64_t)(type - PROTO_CHROME_THREAD_MEMORY_INFRA) < n50)
    return proto_chrome_thread_names_50[type - PROTO_CHROME_THREAD_MEMORY_INFRA];
  return NULL;
}

/* The descriptor's own name (see above), or NULL. */
static const char *proto_thread_descriptor_own_name(proto_span thread, size_t *len) {
  proto_reader r;
  proto_field fl;
  proto_span name = {NULL, 0};
  int64_t type = 0;
  int has_type = 0;
  proto_reader_init_span(&r, thread);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_THREAD_DESCRIPTOR_THREAD_NAME && fl.wire_type == PROTO_WIRE_LEN)
      name = fl.span;
    if (fl.number == PROTO_THREAD_DESCRIPTOR_CHROME_THREAD_TYPE &&
        fl.wire_type == PROTO_WIRE_VARINT) {
      type = proto_field_int32(&fl);
      has_type = 1;
    }
  }
  if (name.len) {
    *len = name.len;
    return (const char *)name.data;
  }
  const char *typed = has_type ? proto_chrome_thread_type_name(type) : NULL;
  *len = typed ? strlen(typed) : 0;
  return typed;
}

/* 1 if the thread's current name is the one a descriptor last gave it. */
static int proto_thread_named_by_descriptor(trace_context *ctx, proto_misc_state *m,
                                            uint32_t utid) {
  const uint64_t *known = base_map_find(&m->thread_name_ranks, utid);
  string_id current = storage_get_str(ctx_table(ctx, TABLE_THREAD), THREAD_name, utid);
  return known && current != STRING_NULL && (string_id)*known == current;
}

static int proto_thread_name_descriptor(trace_context *ctx, proto_misc_state *m,
                                        uint32_t utid, const char *name, size_t len) {
  int rc = model_thread_set_name(ctx, utid, name, len);
  if (rc) return rc;
  uint64_t value = (uint64_t)storage_get_str(ctx_table(ctx, TABLE_THREAD), THREAD_name, utid);
  uint64_t *slot;
  rc = base_map_insert(&m->thread_name_ranks, utid, value, &slot);
  if (rc < 0) return rc;
  *slot = value;
  return WEFT_OK;
}

int proto_thread_descriptor_name(import_file *f, proto_misc_state *m, uint32_t utid,
                                 proto_span thread, const proto_span *chrome) {
  trace_context *ctx = f->ctx;
  size_t len;
  const char *name = proto_thread_descriptor_own_name(thread, &len);
  int rc = name ? proto_thread_name_descriptor(ctx, m, utid, name, len) : WEFT_OK;
  proto_field fl;
  if (rc || !chrome ||
      proto_find_last(chrome->data, chrome->len, PROTO_CHROME_THREAD_TYPE, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT)
    return rc;
  const char *typed = proto_chrome_thread_type_name(proto_field_int32(&fl));
  if (!typed || proto_thread_named_by_descriptor(ctx, m, utid)) return WEFT_OK;
  return model_thread_set_name(ctx, utid, typed, strlen(typed));
}
