/* proto_winscope_wm: WindowManager winscope packets (proto_winscope_wm.h). */
#include "import/proto/proto_winscope_wm.h"

#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "import/proto/proto_args.h"
#include "import/proto/proto_winscope.h"
#include "import/proto/proto_winscope_wm_prune.h"
#include "model/winscope_sf.h"
#include "model/winscope_wm.h"

#define WM_MALFORMED 1 /* internal: the tree lacks a required field */
#define WM_MAX_PRUNED (1u << 30)

enum { ENTRY_ELAPSED = 1, ENTRY_SERVICE = 3 };
enum { SERVICE_ROOT = 2, SERVICE_FOCUSED_DISPLAY_ID = 9 };
enum { CONTAINER_VISIBLE = 3, CONTAINER_CHILDREN = 5, CONTAINER_IDENTIFIER = 6 };
enum { IDENTIFIER_HASH_CODE = 1, IDENTIFIER_TITLE = 3 };
enum { DC_ID = 2, DC_DISPLAY_INFO = 10, DC_ROOT_DISPLAY_AREA = 21 };
enum { INFO_LOGICAL_WIDTH = 1, INFO_LOGICAL_HEIGHT = 2, INFO_NAME = 5 };
enum { DA_CONTAINER = 1, DA_NAME = 2 };
enum { TASK_CONTAINER = 1, TASK_ID = 2, TASK_FRAGMENT = 31, TASK_NAME = 32 };
enum { ACTIVITY_NAME = 1, ACTIVITY_TOKEN = 2, ACTIVITY_VISIBLE = 24 };
enum { TOKEN_CONTAINER = 1, TOKEN_HASH_CODE = 2 };
enum { WS_CONTAINER = 1, WS_ATTRIBUTES = 5, WS_IS_VISIBLE = 38, WS_FRAMES = 41 };
enum { ATTRIBUTES_ALPHA = 12, FRAMES_FRAME = 5 };

/* Container types, in WindowContainerChildProto's field order from 2. */
typedef enum wm_type {
  WM_CONTAINER, WM_DISPLAY_CONTENT, WM_DISPLAY_AREA, WM_TASK, WM_ACTIVITY,
  WM_WINDOW_TOKEN, WM_WINDOW_STATE, WM_TASK_FRAGMENT, WM_ROOT, WM_TYPE_COUNT,
} wm_type;
static const char *const wm_type_names[WM_TYPE_COUNT] = {
    "WindowContainer", "DisplayContent", "DisplayArea", "Task", "Activity",
    "WindowToken", "WindowState", "TaskFragment", "RootWindowContainer",
};

enum { WM_RECT_NONE, WM_RECT_DISPLAY, WM_RECT_WINDOW };

/* A container found by the walk, written once the whole tree is read. */
typedef struct wm_node {
  proto_span msg; /* the root or child message */
  int32_t token, parent_token, display_id, rect[4]; /* rect: x, y, w, h */
  uint32_t child_index, depth;
  string_id title, name_override;
  float opacity;
  uint8_t type, is_visible, has_parent, rect_kind;
} wm_node;

struct proto_wm_state {
  int64_t transform_id; /* the identity transform, -1 until needed */
  int32_t display_id;   /* the display later windows are on */
  uint32_t rect_depth;  /* the next window's depth on it */
  string_id types[WM_TYPE_COUNT];
  VEC(wm_node) nodes;
  base_buf pruned;
};

void proto_wm_free(proto_wm_state *s) {
  if (!s) return;
  VEC_FREE(s->nodes);
  base_buf_free(&s->pruned);
  base_free(s);
}

static int wm_state_get(import_file *f, proto_wm_state **state) {
  if (*state) return WEFT_OK;
  proto_wm_state *s = base_calloc(1, sizeof *s);
  if (!s) return WEFT_ENOMEM;
  s->transform_id = -1;
  s->display_id = -1;
  base_buf_init(&s->pruned, WM_MAX_PRUNED);
  int rc = WEFT_OK;
  for (int i = 0; !rc && i < WM_TYPE_COUNT; i++)
    rc = ctx_intern(f->ctx, wm_type_names[i], strlen(wm_type_names[i]), &s->types[i]);
  if (rc) {
    proto_wm_free(s);
    return rc;
  }
  *state = s;
  return WEFT_OK;
}

/* ---- field access (absent fields read as empty or 0, as Perfetto's
 * decoders do) ---- */

/* The last field `number` of msg read before its end or its first
 * malformed byte; 1 when there is one. */
static int wm_find(proto_span msg, uint32_t number, proto_field *out) {
  proto_reader r;
  proto_field fl;
  int found = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == number) {
      *out = fl;
      found = 1;
    }
  return found;
}

/* Message field `number` of msg, or an empty span; 1 when present. */
static int wm_sub(proto_span msg, uint32_t number, proto_span *out) {
  proto_field fl;
  int has = wm_find(msg, number, &fl) &&
            fl.wire_type == PROTO_WIRE_LEN;
  *out = has ? fl.span : (proto_span){NULL, 0};
  return has;
}

static int64_t wm_int(proto_span msg, uint32_t number, int *has) {
  proto_field fl;
  *has = wm_find(msg, number, &fl) &&
         fl.wire_type == PROTO_WIRE_VARINT;
  return *has ? (int64_t)fl.value : 0;
}

static int32_t wm_int32(proto_span msg, uint32_t number) {
  int has;
  return (int32_t)wm_int(msg, number, &has);
}

static int wm_has(proto_span msg, uint32_t number) {
  proto_field fl;
  return wm_find(msg, number, &fl);
}

static int wm_intern(import_file *f, proto_span text, string_id *out) {
  return ctx_intern(f->ctx, text.len ? (const char *)text.data : "", text.len, out);
}

/* A container's identifier: hash_code and title, both required. */
static int wm_identifier(import_file *f, proto_span container, wm_node *n) {
  proto_span id, title;
  wm_sub(container, CONTAINER_IDENTIFIER, &id);
  int has;
  n->token = (int32_t)wm_int(id, IDENTIFIER_HASH_CODE, &has);
  if (!has || !wm_sub(id, IDENTIFIER_TITLE, &title)) return WM_MALFORMED;
  return wm_intern(f, title, &n->title);
}

/* A required hash_code field `number` of msg as n's token. */
static int wm_hash_code(proto_span msg, uint32_t number, wm_node *n) {
  int has;
  n->token = (int32_t)wm_int(msg, number, &has);
  return has ? WEFT_OK : WM_MALFORMED;
}

static int wm_visible(proto_span msg, uint32_t number) {
  int has;
  return wm_int(msg, number, &has) != 0;
}

/* ---- container kinds: each fills n and names the WindowContainerProto
 * whose children come next ---- */

static int wm_plain(import_file *f, proto_span container, wm_node *n, proto_span *next) {
  *next = container;
  n->is_visible = (uint8_t)wm_visible(container, CONTAINER_VISIBLE);
  return wm_identifier(f, container, n);
}

/* WindowContainer, TaskFragment: `field` holds the container (0: msg is
 * the container itself). */
static int wm_generic(import_file *f, proto_span msg, uint32_t field, wm_node *n,
                      proto_span *next) {
  proto_span container = msg;
  if (field) wm_sub(msg, field, &container);
  return wm_plain(f, container, n, next);
}

static int wm_display_content(import_file *f, proto_wm_state *s, proto_span dc, wm_node *n,
                              proto_span *next) {
  proto_span area, container, info, name;
  wm_sub(dc, DC_ROOT_DISPLAY_AREA, &area);
  wm_sub(area, DA_CONTAINER, &container);
  wm_sub(dc, DC_DISPLAY_INFO, &info);
  proto_span id;
  wm_sub(container, CONTAINER_IDENTIFIER, &id);
  int rc = wm_hash_code(id, IDENTIFIER_HASH_CODE, n);
  if (rc) return rc;
  if (!wm_sub(info, INFO_NAME, &name)) return WM_MALFORMED;
  n->is_visible = (uint8_t)wm_visible(container, CONTAINER_VISIBLE);
  n->rect_kind = WM_RECT_DISPLAY;
  n->rect[2] = wm_int32(info, INFO_LOGICAL_WIDTH);
  n->rect[3] = wm_int32(info, INFO_LOGICAL_HEIGHT);
  n->display_id = wm_int32(dc, DC_ID);
  s->display_id = n->display_id;
  s->rect_depth = 1;
  *next = container;
  return wm_intern(f, name, &n->title);
}

static int wm_display_area(import_file *f, proto_span da, wm_node *n, proto_span *next) {
  proto_span container, id, name;
  wm_sub(da, DA_CONTAINER, &container);
  wm_sub(container, CONTAINER_IDENTIFIER, &id);
  int rc = wm_hash_code(id, IDENTIFIER_HASH_CODE, n);
  if (rc) return rc;
  if (!wm_sub(da, DA_NAME, &name)) return WM_MALFORMED;
  n->is_visible = (uint8_t)wm_visible(container, CONTAINER_VISIBLE);
  *next = container;
  return wm_intern(f, name, &n->title);
}

/* "<id>" or "<id>(<task_name>)". */
static int wm_task_name(import_file *f, proto_span task, wm_node *n) {
  int has;
  int32_t id = (int32_t)wm_int(task, TASK_ID, &has);
  if (!has) return WEFT_OK;
  base_buf text;
  base_buf_init(&text, WM_MAX_PRUNED);
  proto_span name;
  int rc = base_buf_appendf(&text, "%d", id);
  if (!rc && wm_sub(task, TASK_NAME, &name)) {
    rc = base_buf_append(&text, "(", 1);
    if (!rc && name.len) rc = base_buf_append(&text, name.data, name.len);
    if (!rc) rc = base_buf_append(&text, ")", 1);
  }
  if (!rc) rc = ctx_intern(f->ctx, text.data, text.len, &n->name_override);
  base_buf_free(&text);
  return rc;
}

static int wm_task(import_file *f, proto_span task, wm_node *n, proto_span *next) {
  proto_span fragment, task_container, fragment_container;
  int has_fragment = wm_sub(task, TASK_FRAGMENT, &fragment);
  int has_fragment_container = wm_sub(fragment, 1, &fragment_container);
  wm_sub(task, TASK_CONTAINER, &task_container);
  proto_span named = has_fragment && has_fragment_container ? fragment_container
                                                            : task_container;
  int rc = wm_plain(f, named, n, next);
  *next = wm_has(fragment_container, CONTAINER_CHILDREN) ? fragment_container : task_container;
  return rc ? rc : wm_task_name(f, task, n);
}

static int wm_activity(import_file *f, proto_span activity, wm_node *n, proto_span *next) {
  proto_span token, name;
  wm_sub(activity, ACTIVITY_TOKEN, &token);
  int rc = wm_hash_code(token, TOKEN_HASH_CODE, n);
  if (rc) return rc;
  if (!wm_sub(activity, ACTIVITY_NAME, &name)) return WM_MALFORMED;
  n->is_visible = (uint8_t)wm_visible(activity, ACTIVITY_VISIBLE);
  wm_sub(token, TOKEN_CONTAINER, next);
  return wm_intern(f, name, &n->title);
}

static int wm_window_token(import_file *f, proto_span token, wm_node *n, proto_span *next) {
  int rc = wm_hash_code(token, TOKEN_HASH_CODE, n);
  if (rc) return rc;
  wm_sub(token, TOKEN_CONTAINER, next);
  n->is_visible = (uint8_t)wm_visible(*next, CONTAINER_VISIBLE);
  char hex[16];
  int len = snprintf(hex, sizeof hex, "0x%x", (unsigned)(uint32_t)n->token);
  return ctx_intern(f->ctx, hex, (size_t)len, &n->title);
}

/* The title without a "Starting " or "Waiting For Debugger: " prefix. */
static int wm_window_name(import_file *f, proto_span container, wm_node *n) {
  static const char *const prefixes[] = {"Starting ", "Waiting For Debugger: "};
  proto_span id, title;
  wm_sub(container, CONTAINER_IDENTIFIER, &id);
  wm_sub(id, IDENTIFIER_TITLE, &title);
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t len = strlen(prefixes[i]);
    if (title.len >= len && memcmp(title.data, prefixes[i], len) == 0)
      return ctx_intern(f->ctx, (const char *)title.data + len, title.len - len,
                        &n->name_override);
  }
  return WEFT_OK;
}

static int wm_window_state(import_file *f, proto_wm_state *s, proto_span ws, wm_node *n,
                           proto_span *next) {
  proto_span container, attributes, frames, frame;
  wm_sub(ws, WS_CONTAINER, &container);
  int rc = wm_identifier(f, container, n);
  if (rc) return rc;
  wm_sub(ws, WS_ATTRIBUTES, &attributes);
  wm_sub(ws, WS_FRAMES, &frames);
  wm_sub(frames, FRAMES_FRAME, &frame);
  int32_t left = wm_int32(frame, 1), top = wm_int32(frame, 2);
  n->rect[0] = left;
  n->rect[1] = top;
  n->rect[2] = (int32_t)((uint32_t)wm_int32(frame, 3) - (uint32_t)left);
  n->rect[3] = (int32_t)((uint32_t)wm_int32(frame, 4) - (uint32_t)top);
  n->rect_kind = WM_RECT_WINDOW;
  n->display_id = s->display_id;
  n->depth = s->rect_depth++;
  n->is_visible = (uint8_t)wm_visible(ws, WS_IS_VISIBLE);
  proto_field fl;
  if (wm_find(attributes, ATTRIBUTES_ALPHA, &fl) &&
      fl.wire_type == PROTO_WIRE_FIXED32)
    n->opacity = proto_field_float(&fl);
  *next = container;
  return wm_window_name(f, container, n);
}

/* ---- the walk ---- */

static int wm_children(import_file *f, proto_wm_state *s, proto_span container,
                       int32_t parent, uint32_t depth);

/* Fills n from child's first present kind; *next its container. */
static int wm_kind(import_file *f, proto_wm_state *s, proto_span child, wm_node *n,
                   proto_span *next) {
  proto_span body;
  uint32_t number = 2;
  while (number <= 9 && !wm_sub(child, number, &body)) number++;
  if (number > 9) return WM_MALFORMED;
  n->type = (uint8_t)(number - 2);
  switch ((wm_type)n->type) {
    case WM_CONTAINER: return wm_generic(f, body, 0, n, next);
    case WM_DISPLAY_CONTENT: return wm_display_content(f, s, body, n, next);
    case WM_DISPLAY_AREA: return wm_display_area(f, body, n, next);
    case WM_TASK: return wm_task(f, body, n, next);
    case WM_ACTIVITY: return wm_activity(f, body, n, next);
    case WM_WINDOW_TOKEN: return wm_window_token(f, body, n, next);
    case WM_WINDOW_STATE: return wm_window_state(f, s, body, n, next);
    default: return wm_generic(f, body, 1, n, next); /* task fragment */
  }
}

static int wm_child(import_file *f, proto_wm_state *s, proto_span child, int32_t parent,
                    uint32_t index, uint32_t depth) {
  if (depth > WM_MAX_DEPTH) return WM_MALFORMED;
  wm_node n;
  memset(&n, 0, sizeof n);
  n.msg = child;
  n.parent_token = parent;
  n.child_index = index;
  n.has_parent = 1;
  n.title = n.name_override = STRING_NULL;
  proto_span next = {NULL, 0};
  int rc = wm_kind(f, s, child, &n, &next);
  if (!rc) rc = VEC_PUSH(s->nodes, n);
  if (!rc) rc = wm_children(f, s, next, n.token, depth + 1);
  return rc;
}

static int wm_children(import_file *f, proto_wm_state *s, proto_span container,
                       int32_t parent, uint32_t depth) {
  proto_reader r;
  proto_field fl;
  uint32_t index = 0;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, container);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == CONTAINER_CHILDREN && fl.wire_type == PROTO_WIRE_LEN)
      rc = wm_child(f, s, fl.span, parent, index++, depth);
  return rc;
}

/* The containers of entry into s->nodes, the root first. */
static int wm_walk(import_file *f, proto_wm_state *s, proto_span entry) {
  proto_span service, root, container, next = {NULL, 0};
  wm_sub(entry, ENTRY_SERVICE, &service);
  wm_sub(service, SERVICE_ROOT, &root);
  if (!wm_sub(root, 1, &container)) return WM_MALFORMED;
  wm_node n;
  memset(&n, 0, sizeof n);
  n.msg = root;
  n.type = WM_ROOT;
  n.title = n.name_override = STRING_NULL;
  int rc = wm_plain(f, container, &n, &next);
  if (!rc) rc = VEC_PUSH(s->nodes, n);
  if (!rc) rc = wm_children(f, s, next, n.token, 1);
  return rc;
}

/* ---- rows ---- */

static int wm_rect(import_file *f, proto_wm_state *s, const wm_node *n, int64_t *trace_rect) {
  uint32_t rect, row;
  int rc = model_winscope_rect_add(f->ctx, n->rect[0], n->rect[1], n->rect[2], n->rect[3],
                                   &rect);
  if (!rc && s->transform_id < 0) {
    static const double identity[6] = {1, 0, 0, 1, 0, 0}; /* dsdx, dtdx, tx, dtdy, dsdy, ty */
    rc = model_winscope_transform_add(f->ctx, identity, &row);
    if (!rc) s->transform_id = row;
  }
  model_winscope_trace_rect tr;
  memset(&tr, 0, sizeof tr);
  tr.rect_id = rect;
  tr.group_id = (uint32_t)n->display_id;
  tr.depth = n->depth;
  tr.transform_id = s->transform_id;
  if (n->rect_kind == WM_RECT_WINDOW) {
    tr.is_visible = n->is_visible;
    tr.has_opacity = 1;
    tr.opacity = n->opacity;
  }
  if (!rc) rc = model_winscope_trace_rect_add(f->ctx, &tr, &row);
  *trace_rect = row;
  return rc;
}

static int wm_container_row(import_file *f, proto_wm_state *s, const proto_packet_info *info,
                            uint32_t snapshot, const wm_node *n) {
  model_wm_container c;
  memset(&c, 0, sizeof c);
  c.snapshot_id = snapshot;
  c.token = n->token;
  c.parent_token = n->parent_token;
  c.child_index = n->child_index;
  c.has_parent = n->has_parent;
  c.is_visible = n->is_visible;
  c.title = n->title;
  c.name_override = n->name_override;
  c.container_type = s->types[n->type];
  c.window_rect_id = -1;
  int root = n->type == WM_ROOT;
  int rc = n->rect_kind ? wm_rect(f, s, n, &c.window_rect_id) : WEFT_OK;
  if (!rc) rc = wm_prune(root ? WM_MSG_ROOT : WM_MSG_CHILD, n->msg, &s->pruned);
  proto_span pruned = {(const uint8_t *)s->pruned.data, s->pruned.len};
  if (!rc)
    rc = proto_args_message(f, info,
                            root ? ".perfetto.protos.RootWindowContainerProto"
                                 : ".perfetto.protos.WindowContainerChildProto",
                            pruned);
  if (!rc) rc = model_args_commit(f->ctx, &c.arg_set);
  if (!rc) rc = proto_winscope_base64(f, pruned, &c.base64_proto);
  if (!rc) rc = model_wm_container_add(f->ctx, &c);
  return rc;
}

static int wm_snapshot_row(import_file *f, proto_wm_state *s, const proto_packet_info *info,
                           int64_t ts, proto_span entry, uint32_t *row) {
  model_wm_snapshot snap;
  memset(&snap, 0, sizeof snap);
  snap.ts = ts;
  proto_field fl;
  snap.has_invalid_elapsed_ts =
      !(wm_find(entry, ENTRY_ELAPSED, &fl) &&
        fl.wire_type == PROTO_WIRE_FIXED64 && fl.value != 0);
  proto_span service;
  wm_sub(entry, ENTRY_SERVICE, &service);
  snap.focused_display_id = (uint32_t)wm_int32(service, SERVICE_FOCUSED_DISPLAY_ID);
  int rc = wm_prune(WM_MSG_ENTRY, entry, &s->pruned);
  proto_span pruned = {(const uint8_t *)s->pruned.data, s->pruned.len};
  if (!rc) rc = proto_args_message(f, info, ".perfetto.protos.WindowManagerTraceEntry", pruned);
  if (!rc) rc = model_args_commit(f->ctx, &snap.arg_set);
  if (!rc) rc = proto_winscope_base64(f, pruned, &snap.base64_proto);
  if (!rc) rc = model_wm_snapshot_add(f->ctx, &snap, row);
  return rc;
}

int proto_wm_parse(import_file *f, proto_wm_state **state, const proto_packet_info *info,
                   int64_t ts, proto_span msg) {
  int rc = wm_state_get(f, state);
  if (rc) return rc;
  proto_wm_state *s = *state;
  uint32_t snapshot = 0;
  rc = wm_snapshot_row(f, s, info, ts, msg, &snapshot);
  s->nodes.len = 0;
  if (!rc) rc = wm_walk(f, s, msg);
  if (rc == WM_MALFORMED)
    return stats_add(&f->ctx->stats, stat_winscope_windowmanager_parse_errors, -1, 0,
                     f->trace_id, 1);
  for (size_t i = 0; !rc && i < s->nodes.len; i++)
    rc = wm_container_row(f, s, info, snapshot, &s->nodes.data[i]);
  return rc;
}
