/* ETW event bundles in the proto importer (proto_etw.h). */
#include "import/proto/proto_etw.h"

#include <stdio.h>

#include "clock/clock.h"
#include "model/etw.h"

/* EtwTraceEventBundle */
#define ETW_BUNDLE_CPU 1
#define ETW_BUNDLE_EVENT 2
/* EtwTraceEvent */
#define ETW_EVENT_TIMESTAMP 1
#define ETW_EVENT_CPU 4
#define ETW_EVENT_THREAD_ID 5
#define ETW_EVENT_MEM_INFO 6
#define ETW_EVENT_FILE_IO_CREATE 7
#define ETW_EVENT_FILE_IO_DIR_ENUM 8
#define ETW_EVENT_FILE_IO_INFO 9
#define ETW_EVENT_FILE_IO_READ_WRITE 10
#define ETW_EVENT_FILE_IO_SIMPLE_OP 11
#define ETW_EVENT_FILE_IO_OP_END 12
#define ETW_EVENT_FILE_IO_PATH_OPERATION 14

#define ETW_MAX_CPU 1024u
#define ETW_MAX_FIELDS 10 /* field numbers 1..9 of a FileIo message */

/* A queued event: its bytes and where they came from. */
typedef struct proto_etw_rec {
  proto_span event;
  uint32_t buffer, machine;
} proto_etw_rec;

struct proto_etw_state {
  VEC(proto_etw_rec) recs;
  string_id keys[19];  /* proto_etw_keys (ETW_KEY_COUNT), interned at the first parse */
  int has_keys;
};

void proto_etw_free(proto_etw_state *s) {
  if (!s) return;
  VEC_FREE(s->recs);
  base_free(s);
}

/* ---- tokenize ---- */

/* The bundle's cpu, if it has one. */
static int proto_etw_bundle_cpu(proto_span bundle, uint32_t *cpu) {
  proto_field fl;
  if (proto_find_last(bundle.data, bundle.len, ETW_BUNDLE_CPU, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT)
    return 0;
  *cpu = (uint32_t)fl.value;
  return 1;
}

/* Reads the event's timestamp and cpu; 0 if it has not both. */
static int proto_etw_event_place(proto_span ev, int has_bundle_cpu, uint32_t bundle_cpu,
                                 int64_t *ts, uint32_t *cpu) {
  proto_reader r;
  proto_field fl;
  int has_ts = 0, has_cpu = has_bundle_cpu;
  *cpu = bundle_cpu;
  proto_reader_init_span(&r, ev);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == ETW_EVENT_TIMESTAMP) *ts = (int64_t)fl.value, has_ts = 1;
    else if (fl.number == ETW_EVENT_CPU) *cpu = (uint32_t)fl.value, has_cpu = 1;
  }
  return has_ts && has_cpu && *cpu < ETW_MAX_CPU;
}

static int proto_etw_push(import_file *f, proto_etw_state *s, proto_span ev, uint32_t machine,
                          uint32_t cpu, int64_t ts) {
  uint32_t node;
  proto_etw_rec rec = {ev, proto_input_current(f), machine};
  if (VEC_PUSH(s->recs, rec)) return WEFT_ENOMEM;
  int rc = import_clock_on(f, machine, 0, CLOCK_ID_BOOTTIME, &node);
  if (rc) return rc;
  proto_input_hold(f, ev);
  proto_latest_note(&((proto_import_state *)f->state)->latest, node, ts);
  return import_push_cpu(f, machine, cpu, ts, node, PROTO_ETW_PAYLOAD | (s->recs.len - 1));
}

int proto_etw_tokenize(import_file *f, proto_span bundle, uint32_t machine, base_error *err) {
  proto_import_state *st = f->state;
  if (!st->etw && !(st->etw = base_calloc(1, sizeof *st->etw))) return base_error_nomem(err);
  uint32_t bundle_cpu = 0, cpu;
  int has_bundle_cpu = proto_etw_bundle_cpu(bundle, &bundle_cpu);
  int64_t invalid = 0, ts = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, bundle);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != ETW_BUNDLE_EVENT || fl.wire_type != PROTO_WIRE_LEN) continue;
    if (!proto_etw_event_place(fl.span, has_bundle_cpu, bundle_cpu, &ts, &cpu)) {
      invalid++;
      continue;
    }
    int rc = proto_etw_push(f, st->etw, fl.span, machine, cpu, ts);
    if (rc) return base_error_alloc(err, rc);
  }
  if (invalid && import_stat(f, stat_etw_event_invalid, invalid)) return base_error_nomem(err);
  return WEFT_OK;
}

/* ---- parse ---- */

enum proto_etw_key {
  ETW_KEY_IRP, ETW_KEY_FILE_OBJECT, ETW_KEY_THREAD_ID, ETW_KEY_CREATE_OPTIONS,
  ETW_KEY_FILE_ATTRIBUTES, ETW_KEY_SHARE_ACCESS, ETW_KEY_OPEN_PATH, ETW_KEY_FILE_KEY,
  ETW_KEY_INFO_CLASS, ETW_KEY_FILE_INDEX, ETW_KEY_ENUMERATION_PATH, ETW_KEY_EXTRA_INFO,
  ETW_KEY_DISPOSITION, ETW_KEY_FILE_SIZE, ETW_KEY_OFFSET, ETW_KEY_IO_SIZE, ETW_KEY_IO_FLAGS,
  ETW_KEY_NT_STATUS, ETW_KEY_FILE_NAME, ETW_KEY_COUNT
};

static const char *const proto_etw_keys[ETW_KEY_COUNT] = {
    "I/O Request Packet", "File Object", "Thread ID", "Create Options", "File Attributes",
    "Share Access", "Open Path", "File Key", "Info Class", "File Index", "Enumeration Path",
    "Extra Info", "Disposition", "File Size", "Offset", "I/O Size", "I/O Flags", "NT Status",
    "File Name"};

_Static_assert(ETW_KEY_COUNT == sizeof ((proto_etw_state *)0)->keys / sizeof(string_id),
               "a string per key");

/* How a field becomes an arg. */
enum proto_etw_kind {
  ETW_PTR,        /* a pointer arg */
  ETW_UINT,       /* an unsigned arg */
  ETW_STR,        /* a string arg */
  ETW_INFO_CLASS, /* the class's name when known, else its number */
  ETW_INFO_EXTRA  /* an unsigned arg named after the info class (Info) */
};

typedef struct proto_etw_field {
  uint8_t number, kind, key, wide; /* wide: uint64 in the proto, else uint32 */
} proto_etw_field;

/* A FileIo message: its args in Perfetto's order, where its IRP and opcode
 * are (0: none) and the name of an event whose opcode is unknown. */
typedef struct proto_etw_message {
  uint32_t field;         /* EtwTraceEvent field */
  uint8_t irp, opcode;
  const char *generic;
  proto_etw_field args[8];
  size_t n;
} proto_etw_message;

static const proto_etw_message proto_etw_messages[] = {
    {ETW_EVENT_FILE_IO_CREATE, 1, 0, "CreateFile",
     {{1, ETW_PTR, ETW_KEY_IRP, 1}, {2, ETW_PTR, ETW_KEY_FILE_OBJECT, 1},
      {3, ETW_UINT, ETW_KEY_THREAD_ID, 0}, {4, ETW_PTR, ETW_KEY_CREATE_OPTIONS, 0},
      {5, ETW_PTR, ETW_KEY_FILE_ATTRIBUTES, 0}, {6, ETW_PTR, ETW_KEY_SHARE_ACCESS, 0},
      {7, ETW_STR, ETW_KEY_OPEN_PATH, 0}}, 7},
    {ETW_EVENT_FILE_IO_DIR_ENUM, 1, 9, "DirEnum",
     {{1, ETW_PTR, ETW_KEY_IRP, 1}, {2, ETW_PTR, ETW_KEY_FILE_OBJECT, 1},
      {3, ETW_PTR, ETW_KEY_FILE_KEY, 1}, {4, ETW_UINT, ETW_KEY_THREAD_ID, 0},
      {6, ETW_INFO_CLASS, ETW_KEY_INFO_CLASS, 0}, {7, ETW_UINT, ETW_KEY_FILE_INDEX, 0},
      {8, ETW_STR, ETW_KEY_ENUMERATION_PATH, 0}}, 7},
    {ETW_EVENT_FILE_IO_INFO, 1, 7, "Info",
     {{1, ETW_PTR, ETW_KEY_IRP, 1}, {2, ETW_PTR, ETW_KEY_FILE_OBJECT, 1},
      {3, ETW_PTR, ETW_KEY_FILE_KEY, 1}, {4, ETW_INFO_EXTRA, ETW_KEY_EXTRA_INFO, 1},
      {5, ETW_UINT, ETW_KEY_THREAD_ID, 0}, {6, ETW_INFO_CLASS, ETW_KEY_INFO_CLASS, 0}}, 6},
    {ETW_EVENT_FILE_IO_READ_WRITE, 2, 8, "ReadOrWrite",
     {{2, ETW_PTR, ETW_KEY_IRP, 1}, {1, ETW_UINT, ETW_KEY_OFFSET, 1},
      {3, ETW_PTR, ETW_KEY_FILE_OBJECT, 1}, {4, ETW_PTR, ETW_KEY_FILE_KEY, 1},
      {5, ETW_UINT, ETW_KEY_THREAD_ID, 0}, {6, ETW_UINT, ETW_KEY_IO_SIZE, 0},
      {7, ETW_PTR, ETW_KEY_IO_FLAGS, 0}}, 7},
    {ETW_EVENT_FILE_IO_SIMPLE_OP, 1, 5, "SimpleOp",
     {{1, ETW_PTR, ETW_KEY_IRP, 1}, {2, ETW_PTR, ETW_KEY_FILE_OBJECT, 1},
      {3, ETW_PTR, ETW_KEY_FILE_KEY, 1}, {4, ETW_UINT, ETW_KEY_THREAD_ID, 0}}, 4},
    {ETW_EVENT_FILE_IO_OP_END, 1, 0, NULL,
     {{2, ETW_UINT, ETW_KEY_EXTRA_INFO, 1}, {3, ETW_PTR, ETW_KEY_NT_STATUS, 0}}, 2},
    {ETW_EVENT_FILE_IO_PATH_OPERATION, 1, 8, "PathOperation",
     {{1, ETW_PTR, ETW_KEY_IRP, 1}, {2, ETW_PTR, ETW_KEY_FILE_OBJECT, 1},
      {3, ETW_PTR, ETW_KEY_FILE_KEY, 1}, {4, ETW_UINT, ETW_KEY_EXTRA_INFO, 1},
      {5, ETW_UINT, ETW_KEY_THREAD_ID, 0}, {6, ETW_INFO_CLASS, ETW_KEY_INFO_CLASS, 0},
      {7, ETW_STR, ETW_KEY_FILE_NAME, 0}}, 7},
};

/* FileIo opcodes 64..86 (NULL: in range without a name: the slice has none). */
#define ETW_FIRST_OPCODE 64u
static const char *const proto_etw_opcode_names[] = {
    "CreateFile", "Cleanup", "Close", "ReadFile", "WriteFile", "SetInformation",
    "DeleteFile", "RenameFile", "DirectoryEnumeration", "Flush", "QueryFileInformation",
    "FilesystemControlEvent", "EndOperation", "DirectoryNotification", NULL, "DeletePath",
    "RenamePath", NULL, NULL, "FltRead", " FltWrite", "FltSetInfo", "FltQueryInfo"};

/* FILE_INFORMATION_CLASS values 1..81. */
static const char *const proto_etw_info_classes[] = {
    "FileDirectoryInformation", "FileFullDirectoryInformation",
    "FileBothDirectoryInformation", "FileBasicInformation", "FileStandardInformation",
    "FileInternalInformation", "FileEaInformation", "FileAccessInformation",
    "FileNameInformation", "FileRenameInformation", "FileLinkInformation",
    "FileNamesInformation", "FileDispositionInformation", "FilePositionInformation",
    "FileFullEaInformation", "FileModeInformation", "FileAlignmentInformation",
    "FileAllInformation", "FileAllocationInformation", "FileEndOfFileInformation",
    "FileAlternateNameInformation", "FileStreamInformation", "FilePipeInformation",
    "FilePipeLocalInformation", "FilePipeRemoteInformation", "FileMailslotQueryInformation",
    "FileMailslotSetInformation", "FileCompressionInformation", "FileObjectIdInformation",
    "FileCompletionInformation", "FileMoveClusterInformation", "FileQuotaInformation",
    "FileReparsePointInformation", "FileNetworkOpenInformation",
    "FileAttributeTagInformation", "FileTrackingInformation",
    "FileIdBothDirectoryInformation", "FileIdFullDirectoryInformation",
    "FileValidDataLengthInformation", "FileShortNameInformation",
    "FileIoCompletionNotificationInformation", "FileIoStatusBlockRangeInformation",
    "FileIoPriorityHintInformation", "FileSfioReserveInformation",
    "FileSfioVolumeInformation", "FileHardLinkInformation",
    "FileProcessIdsUsingFileInformation", "FileNormalizedNameInformation",
    "FileNetworkPhysicalNameInformation", "FileIdGlobalTxDirectoryInformation",
    "FileIsRemoteDeviceInformation", "FileUnusedInformation", "FileNumaNodeInformation",
    "FileStandardLinkInformation", "FileRemoteProtocolInformation",
    "FileRenameInformationBypassAccessCheck", "FileLinkInformationBypassAccessCheck",
    "FileVolumeNameInformation", "FileIdInformation", "FileIdExtdDirectoryInformation",
    "FileReplaceCompletionInformation", "FileHardLinkFullIdInformation",
    "FileIdExtdBothDirectoryInformation", "FileDispositionInformationEx",
    "FileRenameInformationEx", "FileRenameInformationExBypassAccessCheck",
    "FileDesiredStorageClassInformation", "FileStatInformation",
    "FileMemoryPartitionInformation", "FileStatLxInformation",
    "FileCaseSensitiveInformation", "FileLinkInformationEx",
    "FileLinkInformationExBypassAccessCheck", "FileStorageReserveIdInformation",
    "FileCaseSensitiveInformationForceAccessCheck", "FileKnownFolderInformation",
    "FileStatBasicInformation", "FileId64ExtdDirectoryInformation",
    "FileId64ExtdBothDirectoryInformation", "FileIdAllExtdDirectoryInformation",
    "FileIdAllExtdBothDirectoryInformation"};

#define ETW_INFO_DISPOSITION 13u
#define ETW_INFO_ALLOCATION 19u
#define ETW_INFO_END_OF_FILE 20u

/* The fields 1..ETW_MAX_FIELDS-1 of a FileIo message, last wins. */
typedef struct proto_etw_fields {
  uint64_t v[ETW_MAX_FIELDS];
  proto_span s[ETW_MAX_FIELDS];
  uint32_t has_v, has_s; /* bit n: field n present as a varint / as bytes */
} proto_etw_fields;

static void proto_etw_fields_read(proto_span msg, proto_etw_fields *out) {
  proto_reader r;
  proto_field fl;
  memset(out, 0, sizeof *out);
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == 0 || fl.number >= ETW_MAX_FIELDS) continue;
    if (fl.wire_type == PROTO_WIRE_LEN) {
      out->s[fl.number] = fl.span;
      out->has_s |= 1u << fl.number;
    } else if (fl.wire_type == PROTO_WIRE_VARINT) {
      out->v[fl.number] = fl.value;
      out->has_v |= 1u << fl.number;
    }
  }
}

/* 1 if varint field n is present (n 0: never). */
static int proto_etw_has(const proto_etw_fields *fs, uint32_t n) {
  return n && (fs->has_v >> n) & 1u;
}

/* The name of a FileIo opcode; *name STRING_NULL for one without a name. */
static int proto_etw_name(trace_context *ctx, const proto_etw_message *m,
                          const proto_etw_fields *fs, string_id *name) {
  const char *s = m->generic;
  if (proto_etw_has(fs, m->opcode)) {
    uint32_t op = (uint32_t)fs->v[m->opcode];
    size_t n = sizeof proto_etw_opcode_names / sizeof proto_etw_opcode_names[0];
    if (op >= ETW_FIRST_OPCODE && op - ETW_FIRST_OPCODE < n) {
      s = proto_etw_opcode_names[op - ETW_FIRST_OPCODE];
      if (!s) {
        *name = STRING_NULL;
        return WEFT_OK;
      }
    }
  }
  return ctx_intern(ctx, s, strlen(s), name);
}

/* "Info Class": its name when known, else its number. */
static int proto_etw_info_class(trace_context *ctx, uint32_t info_class, etw_arg *a) {
  size_t n = sizeof proto_etw_info_classes / sizeof proto_etw_info_classes[0];
  if (info_class < 1 || info_class > n) {
    a->type = MODEL_ARG_UINT;
    a->value = info_class;
    return WEFT_OK;
  }
  const char *s = proto_etw_info_classes[info_class - 1];
  a->type = MODEL_ARG_STRING;
  return ctx_intern(ctx, s, strlen(s), &a->str);
}

/* Info's extra info is the disposition or the file size for those classes. */
static uint8_t proto_etw_extra_key(const proto_etw_fields *fs) {
  if (!proto_etw_has(fs, 6)) return ETW_KEY_EXTRA_INFO;
  uint32_t info_class = (uint32_t)fs->v[6];
  if (info_class == ETW_INFO_DISPOSITION) return ETW_KEY_DISPOSITION;
  if (info_class == ETW_INFO_ALLOCATION || info_class == ETW_INFO_END_OF_FILE)
    return ETW_KEY_FILE_SIZE;
  return ETW_KEY_EXTRA_INFO;
}

/* The arg of field `spec`; 0 in *made when the field is absent. */
static int proto_etw_arg(trace_context *ctx, const proto_etw_state *s,
                         const proto_etw_field *spec, const proto_etw_fields *fs, etw_arg *a,
                         int *made) {
  uint8_t key = spec->key;
  *made = 0;
  memset(a, 0, sizeof *a);
  if (spec->kind == ETW_STR) {
    if (!((fs->has_s >> spec->number) & 1u)) return WEFT_OK;
    *made = 1;
    a->key = s->keys[key];
    a->type = MODEL_ARG_STRING;
    return ctx_intern(ctx, (const char *)fs->s[spec->number].data, fs->s[spec->number].len,
                      &a->str);
  }
  if (!proto_etw_has(fs, spec->number)) return WEFT_OK;
  *made = 1;
  uint64_t v = fs->v[spec->number];
  if (!spec->wide) v = (uint32_t)v;
  if (spec->kind == ETW_INFO_CLASS) {
    a->key = s->keys[key];
    return proto_etw_info_class(ctx, (uint32_t)v, a);
  }
  if (spec->kind == ETW_INFO_EXTRA) key = proto_etw_extra_key(fs);
  a->key = s->keys[key];
  a->type = spec->kind == ETW_PTR ? MODEL_ARG_POINTER : MODEL_ARG_UINT;
  a->value = (int64_t)v;
  return WEFT_OK;
}

static int proto_etw_keys_ready(trace_context *ctx, proto_etw_state *s) {
  for (int i = 0; !s->has_keys && i < ETW_KEY_COUNT; i++) {
    int rc = ctx_intern(ctx, proto_etw_keys[i], strlen(proto_etw_keys[i]), &s->keys[i]);
    if (rc) return rc;
  }
  s->has_keys = 1;
  return WEFT_OK;
}

/* Applies FileIo message `m` (its bytes: msg) at `at`. */
static int proto_etw_file_io(trace_context *ctx, proto_etw_state *s, const proto_etw_message *m,
                             proto_span msg, etw_fileio_at *at) {
  proto_etw_fields fs;
  etw_arg args[8];
  size_t n = 0;
  int made, rc = proto_etw_keys_ready(ctx, s);
  proto_etw_fields_read(msg, &fs);
  for (size_t i = 0; !rc && i < m->n; i++) {
    rc = proto_etw_arg(ctx, s, &m->args[i], &fs, &args[n], &made);
    n += (size_t)made;
  }
  if (rc) return rc;
  at->has_irp = proto_etw_has(&fs, m->irp);
  at->irp = fs.v[m->irp];
  if (m->field == ETW_EVENT_FILE_IO_OP_END) return model_etw_fileio_end(ctx, at, args, n);
  string_id name;
  rc = proto_etw_name(ctx, m, &fs, &name);
  return rc ? rc : model_etw_fileio_start(ctx, at, name, args, n);
}

static const proto_etw_message *proto_etw_message_of(uint32_t field) {
  for (size_t i = 0; i < sizeof proto_etw_messages / sizeof proto_etw_messages[0]; i++)
    if (proto_etw_messages[i].field == field) return &proto_etw_messages[i];
  return NULL;
}

/* The repeated page counts `field` of a MemInfo message (7: standby, 8:
 * repurposed; packed or not), one counter per priority. */
static int proto_etw_mem_info_priorities(trace_context *ctx, uint32_t machine, int64_t ts,
                                         proto_span msg, uint32_t field) {
  proto_reader r;
  proto_field fl;
  unsigned pri = 0;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != field) continue;
    proto_packed_iter it;
    memset(&it, 0, sizeof it);
    uint64_t v = fl.value;
    int packed = fl.wire_type == PROTO_WIRE_LEN;
    if (packed) proto_packed_init(&it, fl.span);
    else if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    while (!rc && (!packed || proto_packed_next_varint(&it, &v) == 1)) {
      char type[48];
      snprintf(type, sizeof type, "%s Pri-%u", field == 7 ? "Standby" : "Repurposed", pri++);
      rc = model_etw_meminfo(ctx, machine, ts, type, (double)v);
      if (!packed) break;
    }
  }
  return rc;
}

/* A MemInfo message: its page counts in Perfetto's order (an absent one is
 * 0), then one per standby and repurposed priority. */
static int proto_etw_mem_info(trace_context *ctx, uint32_t machine, int64_t ts,
                              proto_span msg) {
  static const struct {
    uint32_t field;
    const char *type;
  } counts[] = {{2, "Zero"},   {3, "Free"},      {4, "Modified"},     {5, "ModifiedNoWrite"},
                {6, "Bad"},    {9, "ModifiedPageFile"}, {10, "PagedPool"}, {11, "NonPagedPool"},
                {12, "Mdl"},   {13, "Commit"}};
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < sizeof counts / sizeof *counts; i++) {
    proto_field fl;
    uint64_t v = proto_find_last(msg.data, msg.len, counts[i].field, &fl) == 1 &&
                         fl.wire_type == PROTO_WIRE_VARINT
                     ? fl.value
                     : 0;
    rc = model_etw_meminfo(ctx, machine, ts, counts[i].type, (double)v);
  }
  for (uint32_t field = 7; !rc && field <= 8; field++)
    rc = proto_etw_mem_info_priorities(ctx, machine, ts, msg, field);
  return rc;
}

/* Applies every FileIo message of the event (one in practice) at its own
 * timestamp: Perfetto takes it as trace time without converting it (it was
 * queued as BOOTTIME, the same unless a snapshot makes another clock the
 * trace's). */
static int proto_etw_apply(import_file *f, proto_etw_state *s, const proto_etw_rec *rec) {
  etw_fileio_at at = {rec->machine, 0, 0, 0, 0};
  proto_reader r;
  proto_field fl;
  if (proto_find_last(rec->event.data, rec->event.len, ETW_EVENT_TIMESTAMP, &fl) == 1)
    at.ts = (int64_t)fl.value;
  if (proto_find_last(rec->event.data, rec->event.len, ETW_EVENT_THREAD_ID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    at.tid = (uint32_t)fl.value;
  proto_reader_init_span(&r, rec->event);
  while (proto_reader_next(&r, &fl) == 1) {
    const proto_etw_message *m = fl.wire_type == PROTO_WIRE_LEN ? proto_etw_message_of(fl.number)
                                                                : NULL;
    int rc = m ? proto_etw_file_io(f->ctx, s, m, fl.span, &at) : WEFT_OK;
    if (!rc && fl.number == ETW_EVENT_MEM_INFO && fl.wire_type == PROTO_WIRE_LEN)
      rc = proto_etw_mem_info(f->ctx, rec->machine, at.ts, fl.span);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int proto_etw_parse(import_file *f, const sort_event *event, base_error *err) {
  proto_import_state *st = f->state;
  proto_etw_state *s = st->etw;
  uint64_t index = event->payload & ~PROTO_ETW_PAYLOAD;
  if (!s || index >= s->recs.len) return WEFT_OK;
  const proto_etw_rec *rec = &s->recs.data[index];
  int rc = proto_etw_apply(f, s, rec);
  proto_input_release(f, rec->buffer, rec->event);
  if (rc) return base_error_set(err, rc, "etw: failed to apply event");
  return WEFT_OK;
}

int proto_etw_end(import_file *f) {
  proto_import_state *st = f->state;
  return st && st->etw ? model_etw_fileio_finish(f->ctx) : WEFT_OK;
}
