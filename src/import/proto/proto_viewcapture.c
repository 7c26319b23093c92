/* proto_viewcapture: view capture snapshots. See proto_viewcapture.h for
 * the rules. */
#include "import/proto/proto_viewcapture.h"

#include <string.h>

#include "import/proto/proto_args.h"
#include "import/proto/proto_import.h"
#include "model/model.h"
#include "model/viewcapture.h"

enum { VC_PACKAGE_NAME_IID = 1, VC_WINDOW_NAME_IID = 2, VC_VIEWS = 3 };
enum { VIEW_ID = 1, VIEW_PARENT_ID = 2, VIEW_HASHCODE = 3, VIEW_VIEW_ID_IID = 4,
       VIEW_CLASS_NAME_IID = 5 };

static const char vc_error[] = "STRING DE-INTERNING ERROR";

/* An interned field: its arg key without "_iid" and its string kind. */
typedef struct vc_interned_field {
  const char *name;
  int kind;
} vc_interned_field;

static const vc_interned_field vc_snapshot_strings[] = {
    {"package_name", PROTO_INTERN_VC_PACKAGE_NAME},
    {"window_name", PROTO_INTERN_VC_WINDOW_NAME},
};
static const vc_interned_field vc_view_strings[] = {
    {"view_id", PROTO_INTERN_VC_VIEW_ID},
    {"class_name", PROTO_INTERN_VC_CLASS_NAME},
    {"content_description", PROTO_INTERN_VC_CONTENT_DESCRIPTION},
    {"text", PROTO_INTERN_VC_TEXT},
};

int proto_viewcapture_intern_kind(uint32_t number) {
  switch (number) {
    case 38: return PROTO_INTERN_VC_PACKAGE_NAME;
    case 39: return PROTO_INTERN_VC_WINDOW_NAME;
    case 40: return PROTO_INTERN_VC_VIEW_ID;
    case 41: return PROTO_INTERN_VC_CLASS_NAME;
    case 45: return PROTO_INTERN_VC_CONTENT_DESCRIPTION;
    case 46: return PROTO_INTERN_VC_TEXT;
    default: return 0;
  }
}

static string_id vc_lookup(import_file *f, const struct proto_packet_info *info, int kind,
                           uint64_t iid) {
  return proto_interned(f->state, info->seq, info->generation, kind, iid);
}

static int vc_base64(import_file *f, proto_span msg, string_id *out) {
  size_t need = (msg.len + 2) / 3 * 4 + 1;
  char *text = base_malloc(need);
  if (!text) return WEFT_ENOMEM;
  size_t n = base_base64(msg.data, msg.len, text);
  int rc = ctx_intern(f->ctx, text, n, out);
  base_free(text);
  return rc;
}

static int vc_intern(import_file *f, const char *s, size_t len, string_id *out) {
  return ctx_intern(f->ctx, s, len, out);
}

/* Replaces the pending arg <name>_iid (from `first` on) by its string. */
static int vc_deintern_arg(import_file *f, const struct proto_packet_info *info, size_t first,
                           const vc_interned_field *field) {
  char iid_key[64];
  size_t len = strlen(field->name);
  memcpy(iid_key, field->name, len);
  memcpy(iid_key + len, "_iid", 4);
  string_id key, iid_key_id, value;
  int rc = vc_intern(f, iid_key, len + 4, &iid_key_id);
  if (rc) return rc;
  int64_t i = model_args_pending_find(f->ctx, first, iid_key_id);
  if (i < 0) return WEFT_OK;
  if ((rc = vc_intern(f, field->name, len, &key)) != 0) return rc;
  value = vc_lookup(f, info, field->kind, (uint64_t)model_args_pending_int(f->ctx, (size_t)i));
  if (value != STRING_NULL) {
    model_args_pending_to_string(f->ctx, (size_t)i, key, value);
    return WEFT_OK;
  }
  rc = import_stat(f, stat_winscope_viewcapture_missing_interned_string_parse_errors, 1);
  if (!rc) rc = vc_intern(f, vc_error, sizeof vc_error - 1, &value);
  return rc ? rc : model_args_pending_insert_string(f->ctx, (size_t)i, key, value);
}

/* The message's args, interned fields de-interned, committed. */
static int vc_args(import_file *f, const struct proto_packet_info *info, const char *type,
                   proto_span msg, const vc_interned_field *fields, size_t n, int64_t *arg_set) {
  size_t first = model_args_pending(f->ctx);
  int rc = proto_args_message(f, info, type, msg);
  for (size_t i = 0; !rc && i < n; i++) rc = vc_deintern_arg(f, info, first, &fields[i]);
  return rc ? rc : model_args_commit(f->ctx, arg_set);
}

/* The string of interned field `number` of msg, STRING_NULL if absent or
 * unknown. */
static string_id vc_field_string(import_file *f, const struct proto_packet_info *info,
                                 proto_span msg, uint32_t number, int kind) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1 || fl.wire_type != PROTO_WIRE_VARINT)
    return STRING_NULL;
  return vc_lookup(f, info, kind, fl.value);
}

static int64_t vc_field_int(proto_span msg, uint32_t number) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1 || fl.wire_type != PROTO_WIRE_VARINT)
    return 0;
  return proto_field_int32(&fl);
}

static int vc_view(import_file *f, const struct proto_packet_info *info, uint32_t snapshot,
                   proto_span msg) {
  model_viewcapture_view v;
  memset(&v, 0, sizeof v);
  v.snapshot_id = snapshot;
  v.node_id = vc_field_int(msg, VIEW_ID);
  v.hashcode = vc_field_int(msg, VIEW_HASHCODE);
  v.parent_id = (uint32_t)vc_field_int(msg, VIEW_PARENT_ID);
  v.view_id = vc_field_string(f, info, msg, VIEW_VIEW_ID_IID, PROTO_INTERN_VC_VIEW_ID);
  v.class_name = vc_field_string(f, info, msg, VIEW_CLASS_NAME_IID, PROTO_INTERN_VC_CLASS_NAME);
  int rc = vc_args(f, info, ".perfetto.protos.ViewCapture.View", msg, vc_view_strings,
                   sizeof vc_view_strings / sizeof *vc_view_strings, &v.arg_set);
  if (!rc) rc = vc_base64(f, msg, &v.base64_proto);
  return rc ? rc : model_viewcapture_view_add(f->ctx, &v);
}

int proto_viewcapture(import_file *f, const struct proto_packet_info *info, int64_t ts,
                      proto_span msg) {
  string_id package = vc_field_string(f, info, msg, VC_PACKAGE_NAME_IID,
                                      PROTO_INTERN_VC_PACKAGE_NAME);
  string_id window = vc_field_string(f, info, msg, VC_WINDOW_NAME_IID,
                                     PROTO_INTERN_VC_WINDOW_NAME);
  uint32_t row;
  int rc = model_viewcapture_add(f->ctx, ts, package, window, &row);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == VC_VIEWS && fl.wire_type == PROTO_WIRE_LEN)
      rc = vc_view(f, info, row, fl.span);
  int64_t arg_set = -1;
  string_id base64 = STRING_NULL;
  if (!rc)
    rc = vc_args(f, info, ".perfetto.protos.ViewCapture", msg, vc_snapshot_strings,
                 sizeof vc_snapshot_strings / sizeof *vc_snapshot_strings, &arg_set);
  if (!rc) rc = vc_base64(f, msg, &base64);
  if (!rc) model_viewcapture_set_args(f->ctx, row, arg_set, base64);
  return rc;
}
