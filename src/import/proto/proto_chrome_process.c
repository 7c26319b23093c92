/* Process descriptors (TrackDescriptor.process, the legacy TracePacket
 * process_descriptor) and their Chrome fields.
 *
 *  - names: a descriptor's process_name, or the name of a Chrome process
 *    type (ChromeProcessDescriptor.process_type or the legacy
 *    ProcessDescriptor.chrome_process_type). A name from elsewhere (the
 *    process tree, ftrace: "system" names) is never replaced. Among
 *    descriptor names, a new one replaces the current one unless the
 *    current one ranks higher: a type name ranks lowest, then process_name,
 *    then the renderer type names. Empty and unknown names set nothing.
 *  - args: process_labels become chrome.process_label[i]; a Chrome process
 *    descriptor adds chrome.process_type (the type's name, NULL when the
 *    type is unknown), chrome.host_app_package_name, chrome.crash_trace_id.
 *    They join the process's other args (model_process_args_add: a key
 *    given again takes the new value in its place). */
#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_misc.h"
#include "model/model.h"

#define PROTO_CHROME_PROCESS_TYPE 1
#define PROTO_CHROME_PROCESS_HOST_APP_PACKAGE_NAME 4
#define PROTO_CHROME_PROCESS_CRASH_TRACE_ID 5
#define PROTO_CHROME_LABEL_KEY_MAX 48

/* Name ranks of descriptor names (see above); a name set by anything else
 * ranks above them all. */
enum { PROTO_RANK_TYPE = 1, PROTO_RANK_DESCRIPTOR = 2, PROTO_RANK_RENDERER = 3 };

/* Chrome's ProcessType (chrome_enums.proto) as Perfetto names it: the
 * display name where there is one, else the enum value's name. */
static const char *const proto_chrome_process_names[] = {
    NULL,
    "Browser",
    "Renderer",
    "Utility",
    "SandboxHelper",
    "PROCESS_SANDBOX_HELPER",
    "Gpu",
    "PpapiPlugin",
    "PpapiBroker",
    "Service: network.mojom.NetworkService",
    "Service: tracing.mojom.TracingService",
    "Service: storage.mojom.StorageService",
    "Service: audio.mojom.AudioService",
    "Service: data_decoder.mojom.DataDecoderService",
    "Service: chrome.mojom.UtilWin",
    "Service: proxy_resolver.mojom.ProxyResolverFactory",
    "Service: media.mojom.CdmServiceBroker",
    "Service: video_capture.mojom.VideoCaptureService",
    "Service: unzip.mojom.Unzipper",
    "Service: mirroring.mojom.MirroringService",
    "Service: patch.mojom.FilePatcher",
    "Service: chromeos.tts.mojom.TtsService",
    "Service: printing.mojom.PrintingService",
    "Service: quarantine.mojom.Quarantine",
    "Service: chromeos.local_search_service.mojom.LocalSearchService",
    "Service: chromeos.assistant.mojom.AssistantAudioDecoderFactory",
    "Service: chrome.mojom.FileUtilService",
    "Service: printing.mojom.PrintCompositor",
    "Service: paint_preview.mojom.PaintPreviewCompositorCollection",
    "Service: media.mojom.SpeechRecognitionService",
    "Service: device.mojom.XRDeviceService",
    "Service: chrome.mojom.UtilReadIcon",
    "Service: language_detection.mojom.LanguageDetectionService",
    "Service: sharing.mojom.Sharing",
    "Service: chrome.mojom.MediaParserFactory",
    "Service: qrcode_generator.mojom.QRCodeService",
    "Service: chrome.mojom.ProfileImport",
    "Service: chromeos.ime.mojom.ImeService",
    "Service: recording.mojom.RecordingService",
    "Service: shape_detection.mojom.ShapeDetectionService",
    "Extension Renderer",
    "Service: media.mojom.MediaFoundationServiceBroker",
    "PROCESS_RENDERER_TOP_WEBUI",
};

#define PROTO_CHROME_RENDERER 2
#define PROTO_CHROME_RENDERER_EXTENSION 40

/* The name of a Chrome process type, or NULL if it has none. */
const char *proto_chrome_process_type_name(int64_t type) {
  size_t n = sizeof proto_chrome_process_names / sizeof *proto_chrome_process_names;
  return type >= 0 && (uint64_t)type < n ? proto_chrome_process_names[type] : NULL;
}

static int proto_chrome_type_rank(int64_t type) {
  return type == PROTO_CHROME_RENDERER || type == PROTO_CHROME_RENDERER_EXTENSION
             ? PROTO_RANK_RENDERER
             : PROTO_RANK_TYPE;
}

/* Names the process unless its current name ranks higher. The map keeps,
 * per process, the rank and the string of the last descriptor name: a
 * current name that is not that string came from elsewhere. */
static int proto_process_rank_name(trace_context *ctx, proto_misc_state *m, uint32_t upid,
                                   const char *name, size_t len, int rank) {
  if (!name || !len) return WEFT_OK;
  storage_table *t = ctx_table(ctx, TABLE_PROCESS);
  string_id current = storage_get_str(t, PROCESS_name, upid);
  uint64_t *known = base_map_find(&m->process_name_ranks, upid);
  if (current != STRING_NULL) {
    if (!known || (string_id)(*known >> 8) != current) return WEFT_OK; /* a system name */
    if ((int)(*known & 0xff) > rank) return WEFT_OK;
  }
  int rc = model_process_set_name(ctx, upid, name, len);
  if (rc) return rc;
  uint64_t value = (uint64_t)storage_get_str(t, PROCESS_name, upid) << 8 | (uint64_t)rank;
  uint64_t *slot;
  rc = base_map_insert(&m->process_name_ranks, upid, value, &slot);
  if (rc < 0) return rc;
  *slot = value;
  return WEFT_OK;
}

typedef struct proto_process_fields {
  proto_span name;
  int64_t legacy_type, start_ns;
  int has_legacy_type, has_start, has_labels;
} proto_process_fields;

static void proto_process_fields_read(proto_span msg, proto_process_fields *p) {
  proto_reader r;
  proto_field fl;
  memset(p, 0, sizeof *p);
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_PROCESS_DESCRIPTOR_PROCESS_NAME: if (len) p->name = fl.span; break;
      case PROTO_PROCESS_DESCRIPTOR_CHROME_PROCESS_TYPE:
        if (!len) { p->legacy_type = proto_field_int32(&fl); p->has_legacy_type = 1; }
        break;
      case PROTO_PROCESS_DESCRIPTOR_START_TIMESTAMP_NS:
        if (!len) { p->start_ns = (int64_t)fl.value; p->has_start = 1; }
        break;
      case PROTO_PROCESS_DESCRIPTOR_PROCESS_LABELS: p->has_labels |= len; break;
      default: break;
    }
  }
}

/* process_labels as chrome.process_label[i], i from 0 per descriptor. */
static int proto_process_labels(trace_context *ctx, proto_span msg) {
  proto_reader r;
  proto_field fl;
  uint32_t index = 0;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_PROCESS_DESCRIPTOR_PROCESS_LABELS || fl.wire_type != PROTO_WIRE_LEN)
      continue;
    char key[PROTO_CHROME_LABEL_KEY_MAX];
    int n = snprintf(key, sizeof key, "chrome.process_label[%u]", index++);
    rc = model_arg_string(ctx, key, (size_t)n, (const char *)fl.span.data, fl.span.len,
                          MODEL_ARG_STRING);
  }
  return rc;
}

/* The ChromeProcessDescriptor's args; *type: its process type (0 if none). */
static int proto_chrome_process_args(trace_context *ctx, proto_span msg, int64_t *type) {
  proto_field fl;
  *type = 0;
  if (proto_find_last(msg.data, msg.len, PROTO_CHROME_PROCESS_TYPE, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    *type = proto_field_int32(&fl);
  const char *name = proto_chrome_process_type_name(*type);
  string_id key, value = STRING_NULL;
  int rc = ctx_intern(ctx, "chrome.process_type", 19, &key);
  if (!rc && name) rc = ctx_intern(ctx, name, strlen(name), &value);
  if (!rc) rc = model_arg_string_id(ctx, key, value, MODEL_ARG_STRING);
  if (!rc &&
      proto_find_last(msg.data, msg.len, PROTO_CHROME_PROCESS_HOST_APP_PACKAGE_NAME, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN)
    rc = model_arg_string(ctx, "chrome.host_app_package_name", 28, (const char *)fl.span.data,
                          fl.span.len, MODEL_ARG_STRING);
  if (!rc && proto_find_last(msg.data, msg.len, PROTO_CHROME_PROCESS_CRASH_TRACE_ID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    rc = model_arg_int(ctx, "chrome.crash_trace_id", 21, MODEL_ARG_UINT, (int64_t)fl.value);
  return rc;
}

int proto_process_descriptor_apply(import_file *f, proto_misc_state *m, uint32_t upid,
                                   proto_span process, const proto_span *chrome) {
  trace_context *ctx = f->ctx;
  proto_process_fields p;
  proto_process_fields_read(process, &p);
  int rc = proto_process_rank_name(ctx, m, upid, (const char *)p.name.data, p.name.len,
                                   PROTO_RANK_DESCRIPTOR);
  if (!rc && p.has_start && p.start_ns > 0)
    model_process_set_start_if_unset(ctx, upid, p.start_ns);
  if (!rc && p.has_legacy_type) {
    const char *name = proto_chrome_process_type_name(p.legacy_type);
    rc = proto_process_rank_name(ctx, m, upid, name, name ? strlen(name) : 0,
                                 proto_chrome_type_rank(p.legacy_type));
  }
  if (rc || (!p.has_labels && !chrome)) return rc;
  int64_t type = 0;
  rc = proto_process_labels(ctx, process);
  if (!rc && chrome) rc = proto_chrome_process_args(ctx, *chrome, &type);
  if (!rc) rc = model_process_args_add(ctx, upid);
  else model_args_discard(ctx);
  if (!rc && chrome) {
    const char *name = proto_chrome_process_type_name(type);
    rc = proto_process_rank_name(ctx, m, upid, name, name ? strlen(name) : 0,
                                 proto_chrome_type_rank(type));
  }
  return rc;
}
