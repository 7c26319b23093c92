/* proto_android_fw: framework process events and aflags errors. See
 * proto_android_fw.h for the rules. */
#include "import/proto/proto_android_fw.h"

#include <stdio.h>
#include <string.h>

#include "model/android_fw.h"
#include "model/import_log.h"
#include "model/columns.h"
#include "model/model.h"

/* AndroidProcessStartEvent / AndroidBinderDiedEvent fields. */
enum {
  FW_UID = 1, FW_PID = 2, FW_PROCESS_NAME = 3, FW_BIND_APPLICATION_DELAY_MS = 4,
  FW_PROCESS_START_DELAY_MS = 5, FW_HOSTING_NAME = 6, FW_HOSTING_TYPE = 7,
  FW_TRIGGER_TYPE = 8, FW_START_SEQ_ID = 10, FW_PACKAGE_UID = 11, FW_CALLER_UID = 12,
  FW_DEFINING_UID = 13,
};

enum { AFLAGS_ERROR = 2 };

struct proto_android_fw_state {
  base_map rows; /* upid -> its __intrinsic_android_track_event_process row */
};

static const char *const fw_trigger_types[] = {
  "TRIGGER_TYPE_UNKNOWN", "TRIGGER_TYPE_ALARM", "TRIGGER_TYPE_PUSH_MESSAGE",
  "TRIGGER_TYPE_PUSH_MESSAGE_OVER_QUOTA", "TRIGGER_TYPE_JOB",
};

static const char *const fw_hosting_types[] = {
  "HOSTING_TYPE_UNKNOWN", "HOSTING_TYPE_ACTIVITY", "HOSTING_TYPE_ADDED_APPLICATION",
  "HOSTING_TYPE_BACKUP", "HOSTING_TYPE_BROADCAST", "HOSTING_TYPE_CONTENT_PROVIDER",
  "HOSTING_TYPE_LINK_FAIL", "HOSTING_TYPE_ON_HOLD", "HOSTING_TYPE_NEXT_ACTIVITY",
  "HOSTING_TYPE_NEXT_TOP_ACTIVITY", "HOSTING_TYPE_RESTART", "HOSTING_TYPE_SERVICE",
  "HOSTING_TYPE_SYSTEM", "HOSTING_TYPE_TOP_ACTIVITY", "HOSTING_TYPE_EMPTY",
};

/* What one event gives. */
typedef struct fw_event {
  int64_t pid, uid;
  int has_pid, has_uid;
  proto_span name;
  int has_name;
  model_fw_process_start start;
} fw_event;

void proto_android_fw_free(proto_android_fw_state *s) {
  if (!s) return;
  base_map_free(&s->rows);
  base_free(s);
}

/* An enum value by name from `names`, else in decimal. */
static int fw_enum_name(import_file *f, const char *const *names, size_t count, int32_t v,
                        string_id *out) {
  char num[16];
  const char *s = num;
  if (v >= 0 && (size_t)v < count) s = names[v];
  else snprintf(num, sizeof num, "%d", (int)v);
  return ctx_intern(f->ctx, s, strlen(s), out);
}

static int fw_event_field(import_file *f, const proto_field *fl, fw_event *e) {
  model_fw_process_start *s = &e->start;
  int64_t v = proto_field_int64(fl);
  switch (fl->number) {
    case FW_UID: e->uid = proto_field_int32(fl), e->has_uid = 1; break;
    case FW_PID: e->pid = proto_field_int32(fl), e->has_pid = 1; break;
    case FW_PROCESS_NAME: e->name = fl->span, e->has_name = 1; break;
    case FW_BIND_APPLICATION_DELAY_MS:
      s->bind_application_delay_ms = v, s->has_bind_application_delay_ms = 1;
      break;
    case FW_PROCESS_START_DELAY_MS:
      s->process_start_delay_ms = v, s->has_process_start_delay_ms = 1;
      break;
    case FW_START_SEQ_ID: s->start_seq_id = v, s->has_start_seq_id = 1; break;
    case FW_PACKAGE_UID: s->package_uid = proto_field_int32(fl), s->has_package_uid = 1; break;
    case FW_CALLER_UID: s->caller_uid = proto_field_int32(fl), s->has_caller_uid = 1; break;
    case FW_DEFINING_UID: s->defining_uid = proto_field_int32(fl), s->has_defining_uid = 1; break;
    case FW_HOSTING_NAME:
      return ctx_intern(f->ctx, (const char *)fl->span.data, fl->span.len, &s->hosting_name);
    case FW_HOSTING_TYPE:
      return fw_enum_name(f, fw_hosting_types, sizeof fw_hosting_types / sizeof *fw_hosting_types,
                          proto_field_int32(fl), &s->hosting_type);
    case FW_TRIGGER_TYPE:
      return fw_enum_name(f, fw_trigger_types, sizeof fw_trigger_types / sizeof *fw_trigger_types,
                          proto_field_int32(fl), &s->trigger_type);
    default: break;
  }
  return WEFT_OK;
}

/* Reads the event; a malformed one counts track_event_parser_errors (1). */
static int fw_event_read(import_file *f, proto_span msg, fw_event *e) {
  proto_reader r;
  proto_field fl;
  int more, rc = WEFT_OK;
  memset(e, 0, sizeof *e);
  e->start.trigger_type = e->start.hosting_type = e->start.hosting_name = STRING_NULL;
  proto_reader_init_span(&r, msg);
  while (!rc && (more = proto_reader_next(&r, &fl)) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    int string_field = fl.number == FW_PROCESS_NAME || fl.number == FW_HOSTING_NAME;
    if (len == string_field) rc = fw_event_field(f, &fl, e);
  }
  if (rc) return rc;
  return more < 0 ? 1 : WEFT_OK;
}

/* The process's framework row: *row, 1 if it has one, else 0. */
static int fw_row_find(proto_android_fw_state *s, uint32_t upid, uint32_t *row) {
  uint64_t *found = base_map_find(&s->rows, upid);
  if (!found) return 0;
  *row = (uint32_t)*found;
  return 1;
}

static int fw_row_get(import_file *f, proto_android_fw_state *s, uint32_t upid, uint32_t *row) {
  if (fw_row_find(s, upid, row)) return WEFT_OK;
  uint64_t *slot;
  int rc = model_fw_process_row(f->ctx, upid, row);
  if (!rc) rc = base_map_insert(&s->rows, upid, *row, &slot);
  return rc < 0 ? rc : WEFT_OK;
}

static int fw_process_start(import_file *f, proto_android_fw_state *s, uint32_t machine,
                            int64_t ts, const fw_event *e) {
  trace_context *ctx = f->ctx;
  uint32_t upid, utid, row;
  int rc = WEFT_OK;
  if (!model_process_find(ctx, machine, e->pid, &upid)) {
    rc = model_thread_in_process(ctx, machine, e->pid, e->pid, &utid);
    if (!rc) rc = model_process(ctx, machine, e->pid, &upid);
  }
  if (!rc && e->has_name)
    rc = model_process_set_name(ctx, upid, (const char *)e->name.data, e->name.len);
  if (rc) return rc;
  if (e->has_uid) model_process_set_uid(ctx, upid, e->uid);
  if ((rc = fw_row_get(f, s, upid, &row)) != 0) return rc;
  model_fw_process_started(ctx, row, ts);
  model_fw_process_update(ctx, row, &e->start);
  return WEFT_OK;
}

static int fw_binder_died(import_file *f, proto_android_fw_state *s, uint32_t machine,
                          int64_t ts, const fw_event *e) {
  uint32_t upid, row;
  if (!model_process_find(f->ctx, machine, e->pid, &upid)) return WEFT_OK;
  int rc = fw_row_get(f, s, upid, &row);
  if (rc) return rc;
  model_fw_process_ended(f->ctx, row, ts);
  /* Perfetto ends the process's main thread, which ends the process */
  uint32_t main_thread;
  if (model_thread_find(f->ctx, machine, e->pid, &main_thread) == 1 &&
      model_thread_process(f->ctx, main_thread) == (int64_t)upid)
    model_thread_end(f->ctx, main_thread, ts);
  model_process_end(f->ctx, upid, ts);
  return WEFT_OK;
}

int proto_android_fw_event(import_file *f, proto_android_fw_state **state, uint32_t machine,
                           int64_t ts, uint32_t field, proto_span msg) {
  fw_event e;
  int rc = fw_event_read(f, msg, &e);
  if (rc) return rc > 0 ? import_stat(f, stat_track_event_parser_errors, 1) : rc;
  if (!e.has_pid) return WEFT_OK;
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  if (field == PROTO_TRACK_EVENT_PROCESS_START_EVENT)
    return fw_process_start(f, *state, machine, ts, &e);
  return fw_binder_died(f, *state, machine, ts, &e);
}

/* ---- aflags ---- */

enum { AFLAGS_FLAG = 1 };
enum { AFLAG_PERMISSION = 7, AFLAG_VALUE_PICKED_FROM = 8, AFLAG_STORAGE_BACKEND = 9,
       AFLAG_TYPE = 10, AFLAG_FIELDS = 10 };

/* Flag field n -> its column (model_aflag_add order), n in 1..10. */
static const uint8_t aflag_column[AFLAG_FIELDS + 1] = {0, 2, 1, 0, 3, 4, 5, 6, 7, 8, 9};

static const char *const aflag_permissions[] = {"unspecified", "read-only", "read-write"};
static const char *const aflag_picked_from[] = {"unspecified", "default", "server", "local"};
static const char *const aflag_backends[] = {"unspecified", "none", "aconfigd", "device_config"};
static const char *const aflag_types[] = {"unspecified", "boolean", "integer"};

/* An enum field's name; values out of the list read "unspecified". */
static int aflag_enum(import_file *f, uint32_t field, uint64_t v, string_id *out) {
  const char *const *names = field == AFLAG_PERMISSION ? aflag_permissions
                             : field == AFLAG_VALUE_PICKED_FROM ? aflag_picked_from
                             : field == AFLAG_STORAGE_BACKEND ? aflag_backends
                                                              : aflag_types;
  size_t n = field == AFLAG_PERMISSION ? 3 : field == AFLAG_TYPE ? 3 : 4;
  const char *s = v < n ? names[v] : names[0];
  return ctx_intern(f->ctx, s, strlen(s), out);
}

static int aflag_row(import_file *f, int64_t ts, proto_span msg) {
  string_id columns[MODEL_AFLAG_COLUMNS] = {STRING_NULL};
  int rc = WEFT_OK;
  for (uint32_t field = AFLAG_PERMISSION; !rc && field <= AFLAG_TYPE; field++)
    rc = aflag_enum(f, field, 0, &columns[aflag_column[field]]);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number < 1 || fl.number > AFLAG_FIELDS) continue;
    string_id *out = &columns[aflag_column[fl.number]];
    if (fl.number >= AFLAG_PERMISSION && fl.wire_type == PROTO_WIRE_VARINT)
      rc = aflag_enum(f, fl.number, fl.value, out);
    else if (fl.number < AFLAG_PERMISSION && fl.wire_type == PROTO_WIRE_LEN)
      rc = ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, out);
  }
  return rc ? rc : model_aflag_add(f->ctx, ts, columns);
}

static int aflags_error(import_file *f, int64_t ts, proto_span error) {
  static const char key[] = "error";
  int64_t args = -1;
  int rc = model_arg_string(f->ctx, key, sizeof key - 1, (const char *)error.data, error.len,
                            MODEL_ARG_STRING);
  if (!rc) rc = model_args_commit(f->ctx, &args);
  if (!rc) rc = import_stat(f, stat_android_aflags_errors, 1);
  return rc ? rc : model_import_log(f->ctx, f->trace_id, ts, stat_android_aflags_errors, args);
}

int proto_android_aflags(import_file *f, int64_t ts, proto_span msg) {
  proto_field error;
  if (proto_find_last(msg.data, msg.len, AFLAGS_ERROR, &error) == 1 &&
      error.wire_type == PROTO_WIRE_LEN)
    return aflags_error(f, ts, error.span);
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == AFLAGS_FLAG && fl.wire_type == PROTO_WIRE_LEN) rc = aflag_row(f, ts, fl.span);
  return rc;
}
