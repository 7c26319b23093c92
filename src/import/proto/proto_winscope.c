/* proto_winscope: input events and winscope packets (proto_winscope.h). */
#include "import/proto/proto_winscope.h"

#include <string.h>

#include "base/base.h"
#include "clock/clock.h"
#include "import/proto/proto_args.h"
#include "import/proto/proto_shell_transition.h"
#include "import/proto/proto_viewcapture.h"
#include "import/proto/proto_winscope_sf.h"
#include "import/proto/proto_winscope_wm.h"
#include "model/winscope.h"

/* WinscopeExtensions' extensions. */
enum {
  WINSCOPE_EXT_INPUTMETHOD_CLIENTS = 1, WINSCOPE_EXT_INPUTMETHOD_SERVICE = 2,
  WINSCOPE_EXT_INPUTMETHOD_MANAGER_SERVICE = 3, WINSCOPE_EXT_ANDROID_INPUT_EVENT = 5,
};
enum { WINSCOPE_EXT_VIEWCAPTURE = 4, WINSCOPE_EXT_WINDOWMANAGER = 6 };

/* AndroidInputEvent's events, in the order they are looked for. */
enum {
  INPUT_MOTION = 1, INPUT_MOTION_REDACTED = 2, INPUT_KEY = 3, INPUT_KEY_REDACTED = 4,
  INPUT_DISPATCH = 5, INPUT_DISPATCH_REDACTED = 6,
};
/* AndroidMotionEvent and AndroidKeyEvent fields read for columns. */
enum {
  MOTION_EVENT_ID = 1, MOTION_EVENT_TIME = 2, MOTION_SOURCE = 3, MOTION_ACTION = 4,
  MOTION_DEVICE_ID = 5, MOTION_DISPLAY_ID = 6, MOTION_DOWN_TIME = 17,
};
enum {
  KEY_EVENT_ID = 1, KEY_EVENT_TIME = 2, KEY_DOWN_TIME = 3, KEY_SOURCE = 4, KEY_ACTION = 5,
  KEY_DEVICE_ID = 6, KEY_DISPLAY_ID = 7, KEY_KEY_CODE = 8,
};
enum { DISPATCH_EVENT_ID = 1, DISPATCH_VSYNC_ID = 2, DISPATCH_WINDOW_ID = 3 };

int proto_winscope_wants_field(uint32_t number) {
  return number == PROTO_TRACE_PACKET_WINSCOPE_EXTENSIONS ||
         number == PROTO_TRACE_PACKET_SHELL_TRANSITION ||
         number == PROTO_TRACE_PACKET_SHELL_HANDLER_MAPPINGS ||
         number == PROTO_TRACE_PACKET_PROTOLOG_MESSAGE ||
         number == PROTO_TRACE_PACKET_PROTOLOG_VIEWER_CONFIG ||
         number == PROTO_TRACE_PACKET_SURFACEFLINGER_TRANSACTIONS ||
         number == PROTO_TRACE_PACKET_SURFACEFLINGER_LAYERS;
}

/* The string id of the base64 of `msg` (STRING_NULL when out of memory:
 * the caller's interning reports it). */
static int winscope_base64(import_file *f, proto_span msg, string_id *out) {
  char small[1024];
  size_t need = (msg.len + 2) / 3 * 4 + 1;
  char *text = need <= sizeof small ? small : base_malloc(need);
  if (!text) return WEFT_ENOMEM;
  size_t n = base_base64(msg.data, msg.len, text);
  int rc = ctx_intern(f->ctx, text, n, out);
  if (text != small) base_free(text);
  return rc;
}

/* ---- input events ---- */

/* The value of varint or fixed32 field `number` of msg (0 when absent). */
static int64_t input_field(proto_span msg, uint32_t number, int zigzag, int *has) {
  proto_field fl;
  *has = proto_find_last(msg.data, msg.len, number, &fl) == 1 &&
         (fl.wire_type == PROTO_WIRE_VARINT || fl.wire_type == PROTO_WIRE_FIXED32);
  if (!*has) return 0;
  if (fl.wire_type == PROTO_WIRE_FIXED32) return (uint32_t)fl.value;
  return zigzag ? proto_field_sint32(&fl) : proto_field_int32(&fl);
}

/* Adds arg `key`: the CLOCK_MONOTONIC time in field `number` of msg (0 when
 * absent), in trace time, when it converts. */
static int input_time_arg(import_file *f, const proto_packet_info *info, proto_span msg,
                          uint32_t number, const char *key) {
  proto_field fl;
  int64_t ts, value = 0;
  if (proto_find_last(msg.data, msg.len, number, &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT)
    value = (int64_t)fl.value;
  if (import_clock_convert(f, info->machine, CLOCK_ID_MONOTONIC, value, &ts) != 1)
    return WEFT_OK;
  return model_arg_int(f->ctx, key, strlen(key), MODEL_ARG_INT, ts);
}

static void input_key_columns(proto_span msg, model_input_event *e) {
  int has;
  e->event_id = input_field(msg, KEY_EVENT_ID, 0, &has);
  e->source = input_field(msg, KEY_SOURCE, 0, &has);
  e->action = input_field(msg, KEY_ACTION, 0, &has);
  e->device_id = input_field(msg, KEY_DEVICE_ID, 0, &has);
  e->display_id = input_field(msg, KEY_DISPLAY_ID, 1, &has);
  e->key_code = input_field(msg, KEY_KEY_CODE, 0, &has);
}

static void input_motion_columns(proto_span msg, model_input_event *e) {
  int has;
  e->event_id = input_field(msg, MOTION_EVENT_ID, 0, &has);
  e->source = input_field(msg, MOTION_SOURCE, 0, &has);
  e->action = input_field(msg, MOTION_ACTION, 0, &has);
  e->device_id = input_field(msg, MOTION_DEVICE_ID, 0, &has);
  e->display_id = input_field(msg, MOTION_DISPLAY_ID, 1, &has);
}

static void input_dispatch_columns(proto_span msg, model_input_event *e) {
  int has;
  e->event_id = input_field(msg, DISPATCH_EVENT_ID, 0, &has);
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, DISPATCH_VSYNC_ID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    e->vsync_id = (int64_t)fl.value;
  e->window_id = input_field(msg, DISPATCH_WINDOW_ID, 0, &has);
}

static int input_args(import_file *f, const proto_packet_info *info, model_input_kind kind,
                      proto_span msg) {
  static const char *const types[] = {".perfetto.protos.AndroidMotionEvent",
                                      ".perfetto.protos.AndroidKeyEvent",
                                      ".perfetto.protos.AndroidWindowInputDispatchEvent"};
  int rc = proto_args_message(f, info, types[kind], msg);
  if (rc || kind == MODEL_INPUT_DISPATCH) return rc;
  int key = kind == MODEL_INPUT_KEY;
  rc = input_time_arg(f, info, msg, key ? KEY_EVENT_TIME : MOTION_EVENT_TIME, "kernel_time");
  if (!rc)
    rc = input_time_arg(f, info, msg, key ? KEY_DOWN_TIME : MOTION_DOWN_TIME, "down_time");
  return rc;
}

static int input_event(import_file *f, const proto_packet_info *info, int64_t ts,
                       model_input_kind kind, proto_span msg) {
  model_input_event e;
  memset(&e, 0, sizeof e);
  e.kind = kind;
  e.ts = ts;
  e.has_source = e.has_action = e.has_device_id = e.has_display_id = 1;
  e.has_key_code = kind == MODEL_INPUT_KEY;
  if (kind == MODEL_INPUT_KEY) input_key_columns(msg, &e);
  else if (kind == MODEL_INPUT_MOTION) input_motion_columns(msg, &e);
  else input_dispatch_columns(msg, &e);
  int rc = input_args(f, info, kind, msg);
  if (!rc) rc = model_args_commit(f->ctx, &e.arg_set);
  if (!rc) rc = winscope_base64(f, msg, &e.base64_proto);
  if (!rc) rc = model_input_event_add(f->ctx, &e);
  return rc;
}

static int input_event_packet(import_file *f, const proto_packet_info *info, int64_t ts,
                              proto_span msg) {
  static const model_input_kind kinds[] = {MODEL_INPUT_MOTION, MODEL_INPUT_MOTION,
                                           MODEL_INPUT_KEY,    MODEL_INPUT_KEY,
                                           MODEL_INPUT_DISPATCH, MODEL_INPUT_DISPATCH};
  for (uint32_t number = INPUT_MOTION; number <= INPUT_DISPATCH_REDACTED; number++) {
    proto_field fl;
    if (proto_find_last(msg.data, msg.len, number, &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN)
      return input_event(f, info, ts, kinds[number - 1], fl.span);
  }
  return WEFT_OK;
}

/* ---- state dumps ---- */

/* A state dump: a row of its table with the message's fields as args. */
static int winscope_dump(import_file *f, const proto_packet_info *info, int64_t ts,
                         uint32_t extension, proto_span msg) {
  static const struct {
    schema_table_id table;
    const char *type;
  } dumps[] = {
      [WINSCOPE_EXT_INPUTMETHOD_CLIENTS] = {TABLE_INPUTMETHOD_CLIENTS,
                                            ".perfetto.protos.InputMethodClientsTraceProto"},
      [WINSCOPE_EXT_INPUTMETHOD_SERVICE] = {TABLE_INPUTMETHOD_SERVICE,
                                            ".perfetto.protos.InputMethodServiceTraceProto"},
      [WINSCOPE_EXT_INPUTMETHOD_MANAGER_SERVICE] = {
          TABLE_INPUTMETHOD_MANAGER_SERVICE,
          ".perfetto.protos.InputMethodManagerServiceTraceProto"},
  };
  int64_t arg_set;
  string_id base64;
  int rc = proto_args_message(f, info, dumps[extension].type, msg);
  if (!rc) rc = model_args_commit(f->ctx, &arg_set);
  if (!rc) rc = winscope_base64(f, msg, &base64);
  if (!rc) rc = model_winscope_dump_add(f->ctx, dumps[extension].table, ts, arg_set, base64);
  return rc;
}

/* ---- shell transitions ---- */

enum { SHELL_MAPPING = 1, SHELL_MAPPING_ID = 1, SHELL_MAPPING_NAME = 2, SHELL_TRANSITION_ID = 1 };

static int shell_handler_mappings(import_file *f, proto_span msg) {
  string_id base64;
  int rc = winscope_base64(f, msg, &base64);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != SHELL_MAPPING || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_field id, name;
    int64_t handler = 0;
    string_id name_id;
    if (proto_find_last(fl.span.data, fl.span.len, SHELL_MAPPING_ID, &id) == 1 &&
        id.wire_type == PROTO_WIRE_VARINT)
      handler = proto_field_int32(&id);
    if (proto_find_last(fl.span.data, fl.span.len, SHELL_MAPPING_NAME, &name) != 1 ||
        name.wire_type != PROTO_WIRE_LEN)
      name.span = (proto_span){(const uint8_t *)"", 0};
    rc = ctx_intern(f->ctx, (const char *)name.span.data, name.span.len, &name_id);
    if (!rc) rc = model_shell_handler_add(f->ctx, handler, name_id, base64);
  }
  return rc;
}

static int shell_transition(import_file *f, proto_span msg) {
  proto_field id;
  int64_t transition = 0;
  string_id base64;
  if (proto_find_last(msg.data, msg.len, SHELL_TRANSITION_ID, &id) == 1 &&
      id.wire_type == PROTO_WIRE_VARINT)
    transition = proto_field_int32(&id);
  int rc = winscope_base64(f, msg, &base64);
  if (!rc) rc = model_shell_transition_proto_add(f->ctx, transition, base64);
  return rc;
}

/* ---- dispatch ---- */

/* WinscopeExtensions: each data source is an extension of its own. */
static int winscope_extensions(import_file *f, const proto_packet_info *info, int64_t ts,
                               proto_span msg) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  int rc = WEFT_OK;
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == WINSCOPE_EXT_ANDROID_INPUT_EVENT)
      rc = input_event_packet(f, info, ts, fl.span);
    else if (fl.number == WINSCOPE_EXT_VIEWCAPTURE)
      rc = proto_viewcapture(f, info, ts, fl.span);
    else if (fl.number == WINSCOPE_EXT_WINDOWMANAGER)
      rc = proto_wm_parse(f, &((proto_import_state *)f->state)->wm, info, ts, fl.span);
    else if (fl.number >= WINSCOPE_EXT_INPUTMETHOD_CLIENTS &&
             fl.number <= WINSCOPE_EXT_INPUTMETHOD_MANAGER_SERVICE)
      rc = winscope_dump(f, info, ts, fl.number, fl.span);
  }
  return rc;
}

int proto_winscope_parse(import_file *f, const proto_packet_info *info, int64_t ts,
                         const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  switch (fl->number) {
    case PROTO_TRACE_PACKET_WINSCOPE_EXTENSIONS: return winscope_extensions(f, info, ts, fl->span);
    case PROTO_TRACE_PACKET_SHELL_HANDLER_MAPPINGS: return shell_handler_mappings(f, fl->span);
    case PROTO_TRACE_PACKET_SHELL_TRANSITION: {
      int rc = shell_transition(f, fl->span);
      return rc ? rc : proto_shell_transition(f, &((proto_import_state *)f->state)->shell,
                                              info, fl->span);
    }
    case PROTO_TRACE_PACKET_PROTOLOG_MESSAGE:
    case PROTO_TRACE_PACKET_PROTOLOG_VIEWER_CONFIG:
      return proto_protolog_parse(f, &((proto_import_state *)f->state)->winscope, info, ts, fl);
    case PROTO_TRACE_PACKET_SURFACEFLINGER_LAYERS:
      return proto_sf_layers_parse(f, &((proto_import_state *)f->state)->sf, info, ts, fl->span);
    case PROTO_TRACE_PACKET_SURFACEFLINGER_TRANSACTIONS:
      return proto_sf_transactions_parse(f, &((proto_import_state *)f->state)->sf, info, ts,
                                         fl->span);
    default: return WEFT_OK;
  }
}

int proto_winscope_base64(import_file *f, proto_span msg, string_id *out) {
  return winscope_base64(f, msg, out);
}
