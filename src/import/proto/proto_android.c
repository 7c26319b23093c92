/* proto_android: logcat, packages list and journald. See proto_android.h. */
#include "import/proto/proto_android.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "clock/clock.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_ftrace.h"
#include "import/proto/proto_misc.h"
#include "model/android.h"
#include "model/logs.h"

/* AndroidLogPacket and its LogEvent, Arg and Stats. */
enum {
  LOG_PACKET_EVENTS = 1, LOG_PACKET_STATS = 2,
  LOG_EVENT_PID = 2, LOG_EVENT_TID = 3, LOG_EVENT_TIMESTAMP = 5, LOG_EVENT_TAG = 6,
  LOG_EVENT_PRIO = 7, LOG_EVENT_MESSAGE = 8, LOG_EVENT_ARGS = 9,
  LOG_ARG_NAME = 1, LOG_ARG_INT = 2, LOG_ARG_FLOAT = 3, LOG_ARG_STRING = 4,
  LOG_STATS_TOTAL = 1, LOG_STATS_FAILED = 2, LOG_STATS_SKIPPED = 3,
  LOG_PRIO_INFO = 4,
  LOG_MSG_MAX = 4096,
};

/* AndroidSystemProperty and its PropertyValue. */
enum { SYSPROP_VALUES = 1, SYSPROP_NAME = 1, SYSPROP_VALUE = 2 };

/* PackagesList and its Package. */
enum {
  PACKAGES_PACKAGE = 1, PACKAGES_PARSE_ERROR = 2, PACKAGES_READ_ERROR = 3,
  PACKAGE_NAME = 1, PACKAGE_UID = 2, PACKAGE_DEBUGGABLE = 3, PACKAGE_PROFILEABLE = 4,
  PACKAGE_VERSION_CODE = 5,
};

/* JournaldEvent (a TracePacket field of its own). */
enum {
  JOURNALD_PID = 1, JOURNALD_TID = 2, JOURNALD_UID = 3, JOURNALD_PRIO = 5,
  JOURNALD_TAG = 6, JOURNALD_MESSAGE = 7, JOURNALD_COMM = 8, JOURNALD_SYSTEMD_UNIT = 10,
  JOURNALD_HOSTNAME = 11, JOURNALD_TRANSPORT = 12, JOURNALD_NUM_TOTAL = 20,
  JOURNALD_NUM_FAILED = 21,
};

/* A queued LogEvent: its bytes, their buffer, its machine row. */
typedef struct android_log_rec {
  proto_span event;
  uint32_t buffer, machine;
} android_log_rec;

struct proto_android_state {
  base_map packages; /* hash of a package name -> 1 */
  proto_android_cpu_state *cpu;
  VEC(android_log_rec) logs; /* queued LogEvents, by payload index */
};

int proto_android_wants_field(uint32_t number) {
  return number == PROTO_TRACE_PACKET_ANDROID_LOG ||
         number == PROTO_TRACE_PACKET_ANDROID_SYSTEM_PROPERTY ||
         number == PROTO_TRACE_PACKET_CPU_PER_UID_DATA ||
         number == PROTO_TRACE_PACKET_PACKAGES_LIST ||
         number == PROTO_TRACE_PACKET_JOURNALD_EVENT;
}

void proto_android_free(proto_android_state *s) {
  if (!s) return;
  base_map_free(&s->packages);
  proto_android_cpu_free(s->cpu);
  VEC_FREE(s->logs);
  base_free(s);
}

/* The thread tid of process pid, the process's main thread made first when
 * the process is new (as Perfetto's process tracker does). */
static int proto_android_thread(import_file *f, uint32_t machine, int64_t tid, int64_t pid,
                                uint32_t *utid) {
  uint32_t upid;
  int rc = WEFT_OK;
  if (tid != pid && !model_process_find(f->ctx, machine, pid, &upid))
    rc = model_thread_in_process(f->ctx, machine, pid, pid, utid);
  return rc ? rc : model_thread_in_process(f->ctx, machine, tid, pid, utid);
}

static int proto_android_intern(import_file *f, proto_span s, string_id *out) {
  return ctx_intern(f->ctx, (const char *)s.data, s.len, out);
}

/* ---- logcat ---- */

/* What one LogEvent holds. */
typedef struct android_log_event {
  int64_t pid, tid, ts, prio;
  proto_span tag, message;
  char msg[LOG_MSG_MAX];
  size_t msg_len;
} android_log_event;

/* Appends printf output to the message, truncated at LOG_MSG_MAX - 1. */
__attribute__((format(printf, 2, 3))) static void android_log_append(android_log_event *e,
                                                                     const char *fmt, ...) {
  size_t room = sizeof e->msg - e->msg_len;
  if (room <= 1) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(e->msg + e->msg_len, room, fmt, ap);
  va_end(ap);
  if (n > 0) e->msg_len += (size_t)n < room ? (size_t)n : room - 1;
}

/* " name=value" of one Arg (the last value field wins). */
static void android_log_arg(android_log_event *e, proto_span arg) {
  proto_span name = {(const uint8_t *)"", 0};
  proto_field value = {0};
  int has_value = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, arg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == LOG_ARG_NAME && fl.wire_type == PROTO_WIRE_LEN) name = fl.span;
    else if (fl.number >= LOG_ARG_INT && fl.number <= LOG_ARG_STRING) value = fl, has_value = 1;
  }
  android_log_append(e, " %.*s=", (int)name.len, (const char *)name.data);
  if (!has_value) return;
  if (value.number == LOG_ARG_STRING && value.wire_type == PROTO_WIRE_LEN)
    android_log_append(e, "\"%.*s\"", (int)value.span.len, (const char *)value.span.data);
  else if (value.number == LOG_ARG_INT && value.wire_type == PROTO_WIRE_VARINT)
    android_log_append(e, "%lld", (long long)(int64_t)value.value);
  else if (value.number == LOG_ARG_FLOAT && value.wire_type == PROTO_WIRE_FIXED32) {
    float v;
    uint32_t bits = (uint32_t)value.value;
    memcpy(&v, &bits, sizeof v);
    android_log_append(e, "%f", (double)v);
  }
}

static void android_log_read(proto_span msg, android_log_event *e) {
  memset(e, 0, offsetof(android_log_event, msg));
  e->tag = e->message = (proto_span){(const uint8_t *)"", 0};
  e->msg_len = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case LOG_EVENT_PID: if (!len) e->pid = (int32_t)fl.value; break;
      case LOG_EVENT_TID: if (!len) e->tid = (int32_t)fl.value; break;
      case LOG_EVENT_TIMESTAMP: if (!len) e->ts = (int64_t)fl.value; break;
      case LOG_EVENT_PRIO: if (!len) e->prio = (int32_t)fl.value; break;
      case LOG_EVENT_TAG: if (len) e->tag = fl.span; break;
      case LOG_EVENT_MESSAGE: if (len) e->message = fl.span; break;
      case LOG_EVENT_ARGS: if (len) android_log_arg(e, fl.span); break;
      default: break;
    }
  }
}

/* A LogEvent at trace time ts (its own timestamp, converted by the sort). */
static int android_log_event_parse(import_file *f, uint32_t machine, proto_span msg,
                                   int64_t ts, android_log_event *e) {
  android_log_read(msg, e);
  uint32_t utid = 0;
  int rc = e->tid ? proto_android_thread(f, machine, e->tid, e->pid, &utid) : WEFT_OK;
  model_log_entry row = {ts, utid, e->prio ? e->prio : LOG_PRIO_INFO, MODEL_LOG_ANDROID,
                         STRING_NULL, STRING_NULL, -1};
  if (!rc) rc = proto_android_intern(f, e->tag, &row.tag);
  if (!rc && e->msg_len) {
    /* the args follow the message */
    size_t n = e->message.len < LOG_MSG_MAX ? e->message.len : LOG_MSG_MAX;
    base_buf b;
    base_buf_init(&b, 0);
    rc = base_buf_append(&b, e->message.data, n);
    if (!rc) rc = base_buf_append(&b, e->msg, e->msg_len);
    if (!rc) rc = ctx_intern(f->ctx, b.data, b.len, &row.msg);
    base_buf_free(&b);
  } else if (!rc) {
    rc = proto_android_intern(f, e->message, &row.msg);
  }
  return rc ? rc : model_log(f->ctx, &row);
}

static int android_log_stats(import_file *f, uint32_t machine, proto_span msg) {
  static const stats_id ids[] = {0, stat_android_log_num_total, stat_android_log_num_failed,
                                 stat_android_log_num_skipped};
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number >= LOG_STATS_TOTAL && fl.number <= LOG_STATS_SKIPPED &&
        fl.wire_type == PROTO_WIRE_VARINT)
      rc = stats_set(&f->ctx->stats, ids[fl.number], -1, machine, f->trace_id,
                     (int64_t)fl.value);
  return rc;
}

/* The packet's stats (its events were queued at tokenize time). */
static int android_log_packet(import_file *f, uint32_t machine, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.wire_type == PROTO_WIRE_LEN && fl.number == LOG_PACKET_STATS)
      rc = android_log_stats(f, machine, fl.span);
  return rc;
}

static int android_log_queue(import_file *f, proto_android_state *s, uint32_t machine,
                             proto_span event) {
  proto_field fl;
  int64_t raw = 0; /* an event without a timestamp is at REALTIME 0 */
  if (proto_find_last(event.data, event.len, LOG_EVENT_TIMESTAMP, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    raw = (int64_t)fl.value;
  uint32_t node;
  int rc = import_clock_on(f, machine, 0, CLOCK_ID_REALTIME, &node);
  android_log_rec rec = {event, proto_input_current(f), machine};
  if (!rc && VEC_PUSH(s->logs, rec)) rc = WEFT_ENOMEM;
  if (rc) return rc;
  proto_input_hold(f, event);
  proto_latest_note(&((proto_import_state *)f->state)->latest, node, raw);
  return import_push(f, raw, node, PROTO_ANDROID_LOG_PAYLOAD | (uint64_t)(s->logs.len - 1));
}

int proto_android_log_tokenize(import_file *f, proto_android_state **state, uint32_t machine,
                               proto_span packet) {
  proto_field log, fl;
  if (proto_find_last(packet.data, packet.len, PROTO_TRACE_PACKET_ANDROID_LOG, &log) != 1 ||
      log.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  proto_reader r;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, log.span);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    if (fl.number == LOG_PACKET_EVENTS && fl.wire_type == PROTO_WIRE_LEN)
      rc = android_log_queue(f, *state, machine, fl.span);
  return rc;
}

int proto_android_log_parse(import_file *f, proto_android_state *s, uint64_t payload,
                            int64_t ts) {
  uint64_t index = payload & ~PROTO_ANDROID_LOG_PAYLOAD;
  if (!s || index >= s->logs.len) return WEFT_OK;
  const android_log_rec *rec = &s->logs.data[index];
  android_log_event *e = base_malloc(sizeof *e);
  int rc = e ? android_log_event_parse(f, rec->machine, rec->event, ts, e) : WEFT_ENOMEM;
  base_free(e);
  proto_input_release(f, rec->buffer, rec->event);
  return rc;
}

/* ---- packages list ---- */

static int android_package(import_file *f, proto_android_state *s, proto_span msg) {
  model_package p = {0};
  p.has_uid = p.has_debuggable = p.has_profileable = p.has_version_code = 1;
  proto_span name = {(const uint8_t *)"", 0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PACKAGE_NAME && len) name = fl.span;
    else if (len) continue;
    else if (fl.number == PACKAGE_UID) p.uid = (int64_t)fl.value;
    else if (fl.number == PACKAGE_DEBUGGABLE) p.debuggable = fl.value != 0;
    else if (fl.number == PACKAGE_PROFILEABLE) p.profileable_from_shell = fl.value != 0;
    else if (fl.number == PACKAGE_VERSION_CODE) p.version_code = (int64_t)fl.value;
  }
  uint64_t *slot;
  int ins = base_map_insert(&s->packages, base_hash_bytes(name.data, name.len) >> 1, 1, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 0) return WEFT_OK; /* a package already listed */
  int rc = proto_android_intern(f, name, &p.name);
  return rc ? rc : model_package_add(f->ctx, &p);
}

static int android_packages_list(import_file *f, proto_android_state *s, uint32_t machine,
                                 proto_span msg) {
  int64_t parse_error = 0, read_error = 0;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PACKAGES_PACKAGE && len) rc = android_package(f, s, fl.span);
    else if (fl.number == PACKAGES_PARSE_ERROR && !len) parse_error = fl.value != 0;
    else if (fl.number == PACKAGES_READ_ERROR && !len) read_error = fl.value != 0;
  }
  if (!rc) rc = stats_set(&f->ctx->stats, stat_packages_list_has_read_errors, -1, machine,
                          f->trace_id, read_error);
  if (!rc) rc = stats_set(&f->ctx->stats, stat_packages_list_has_parse_errors, -1, machine,
                          f->trace_id, parse_error);
  return rc;
}

/* ---- journald ---- */

typedef struct journald_event {
  int64_t pid, tid, uid, prio;
  int has_tid, has_uid, has_tag, has_msg;
  proto_span tag, msg;
  proto_span comm, unit, hostname, transport;
  int has_comm, has_unit, has_hostname, has_transport;
  int64_t num_total, num_failed; /* the collection's stats, sent at a flush */
  int has_num_total, has_num_failed;
} journald_event;

static void journald_read(proto_span msg, journald_event *e) {
  memset(e, 0, sizeof *e);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case JOURNALD_PID: if (!len) e->pid = (uint32_t)fl.value; break;
      case JOURNALD_TID: if (!len) e->tid = (uint32_t)fl.value, e->has_tid = 1; break;
      case JOURNALD_UID: if (!len) e->uid = (uint32_t)fl.value, e->has_uid = 1; break;
      case JOURNALD_PRIO: if (!len) e->prio = (uint32_t)fl.value; break;
      case JOURNALD_TAG: if (len) e->tag = fl.span, e->has_tag = 1; break;
      case JOURNALD_MESSAGE: if (len) e->msg = fl.span, e->has_msg = 1; break;
      case JOURNALD_COMM: if (len) e->comm = fl.span, e->has_comm = 1; break;
      case JOURNALD_SYSTEMD_UNIT: if (len) e->unit = fl.span, e->has_unit = 1; break;
      case JOURNALD_HOSTNAME: if (len) e->hostname = fl.span, e->has_hostname = 1; break;
      case JOURNALD_TRANSPORT: if (len) e->transport = fl.span, e->has_transport = 1; break;
      case JOURNALD_NUM_TOTAL:
        if (!len) e->num_total = (int64_t)fl.value, e->has_num_total = 1;
        break;
      case JOURNALD_NUM_FAILED:
        if (!len) e->num_failed = (int64_t)fl.value, e->has_num_failed = 1;
        break;
      default: break;
    }
  }
}

static int journald_arg(trace_context *ctx, const char *key, int has, proto_span v) {
  if (!has) return WEFT_OK;
  return model_arg_string(ctx, key, strlen(key), (const char *)v.data, v.len, MODEL_ARG_STRING);
}

/* The args of the present fields, in Perfetto's order; -1 if none. */
static int journald_args(trace_context *ctx, const journald_event *e, int64_t *arg_set) {
  int rc = e->has_uid ? model_arg_int(ctx, "uid", 3, MODEL_ARG_INT, e->uid) : WEFT_OK;
  if (!rc) rc = journald_arg(ctx, "comm", e->has_comm, e->comm);
  if (!rc) rc = journald_arg(ctx, "systemd_unit", e->has_unit, e->unit);
  if (!rc) rc = journald_arg(ctx, "hostname", e->has_hostname, e->hostname);
  if (!rc) rc = journald_arg(ctx, "transport", e->has_transport, e->transport);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, arg_set);
}

/* A flush's stats event: its counts replace the stats, it is no log entry. */
static int journald_stats(import_file *f, uint32_t machine, const journald_event *e) {
  int rc = WEFT_OK;
  if (e->has_num_failed)
    rc = stats_set(&f->ctx->stats, stat_systemd_journal_num_failed, -1, machine, f->trace_id,
                   e->num_failed);
  if (!rc && e->has_num_total)
    rc = stats_set(&f->ctx->stats, stat_systemd_journal_num_total, -1, machine, f->trace_id,
                   e->num_total);
  return rc;
}

static int journald_event_parse(import_file *f, uint32_t machine, int64_t ts, proto_span msg) {
  journald_event e;
  journald_read(msg, &e);
  if (e.has_num_total || e.has_num_failed) return journald_stats(f, machine, &e);
  model_log_entry row = {ts, -1, e.prio, MODEL_LOG_JOURNALD, STRING_NULL, STRING_NULL, -1};
  uint32_t utid;
  int rc = WEFT_OK;
  if (e.pid) { /* no thread without a pid (absent or 0), whatever the tid */
    rc = proto_android_thread(f, machine, e.has_tid ? e.tid : e.pid, e.pid, &utid);
    row.utid = utid;
  }
  if (!rc && e.has_tag) rc = proto_android_intern(f, e.tag, &row.tag);
  if (!rc && e.has_msg) rc = proto_android_intern(f, e.msg, &row.msg);
  if (!rc) rc = journald_args(f->ctx, &e, &row.arg_set);
  if (!rc) rc = model_log(f->ctx, &row);
  if (!rc) ctx_extend_bounds(f->ctx, ts);
  return rc;
}

/* ---- system properties ---- */

#define SYSPROP_PREFIX "debug.tracing."

/* 1 and *out if s is a whole int32 (leading spaces and a sign allowed). */
static int sysprop_int(proto_span s, int32_t *out) {
  char buf[32];
  if (s.len == 0 || s.len >= sizeof buf) return 0;
  memcpy(buf, s.data, s.len);
  buf[s.len] = '\0';
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (end == buf || *end || errno || v < INT32_MIN || v > INT32_MAX) return 0;
  *out = (int32_t)v;
  return 1;
}

static int sysprop_is(proto_span name, const char *s) {
  return name.len == strlen(s) && memcmp(name.data, s, name.len) == 0;
}

/* A counter of a property: type and name given, the dimension `dim_key`
 * holding `dim`. */
static int sysprop_counter(import_file *f, uint32_t machine, int64_t ts, const char *type,
                           const char *dim_key, proto_span dim, const char *name,
                           int32_t value) {
  char dim_buf[256], name_buf[256];
  snprintf(dim_buf, sizeof dim_buf, "%.*s", (int)dim.len, (const char *)dim.data);
  snprintf(name_buf, sizeof name_buf, "%s", name);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name_buf;
  spec.type = type;
  spec.is_counter = 1;
  spec.machine = machine;
  spec.dim_key = dim_key;
  spec.dim_str = dim_buf;
  uint32_t track;
  int rc = model_track(f->ctx, &spec, &track);
  return rc ? rc : model_counter(f->ctx, track, ts, value, -1);
}

/* One property: the device state, boot profiling metadata, the screen
 * state, or a counter of the properties Perfetto tracks; others are
 * ignored, as are values that are not integers (but the device state). */
static int sysprop_value(import_file *f, uint32_t machine, int64_t ts, proto_span name,
                         proto_span value) {
  const size_t prefix = sizeof SYSPROP_PREFIX - 1;
  if (sysprop_is(name, SYSPROP_PREFIX "device_state"))
    return model_android_device_state(f->ctx, machine, ts, (const char *)value.data,
                                      value.len);
  int32_t v;
  if (name.len < prefix || memcmp(name.data, SYSPROP_PREFIX, prefix) || !sysprop_int(value, &v))
    return WEFT_OK;
  char short_name[256];
  snprintf(short_name, sizeof short_name, "%.*s", (int)(name.len - prefix),
           (const char *)name.data + prefix);
  if (sysprop_is(name, SYSPROP_PREFIX "profile_boot_classpath") ||
      sysprop_is(name, SYSPROP_PREFIX "profile_system_server"))
    return proto_metadata_int(f->ctx, sysprop_is(name, SYSPROP_PREFIX "profile_boot_classpath")
                                          ? "android_profile_boot_classpath"
                                          : "android_profile_system_server",
                              0, v, -1, f->trace_id);
  if (sysprop_is(name, SYSPROP_PREFIX "screen_state"))
    return model_android_screen_state(f->ctx, machine, ts, v);
  if (name.len > prefix + 14 && !memcmp(name.data, SYSPROP_PREFIX "battery_stats.", prefix + 14))
    return model_android_battery_stats(f->ctx, machine, ts, short_name, strlen(short_name), v);
  const char *mapped = sysprop_is(name, SYSPROP_PREFIX "battery_status") ? "BatteryStatus"
                       : sysprop_is(name, SYSPROP_PREFIX "plug_type")    ? "PlugType"
                       : sysprop_is(name, SYSPROP_PREFIX "mcc") ||
                               sysprop_is(name, SYSPROP_PREFIX "mnc") ||
                               sysprop_is(name, SYSPROP_PREFIX "desktop_mode_visible_tasks")
                           ? short_name
                           : NULL;
  if (!mapped) return WEFT_OK;
  return sysprop_counter(f, machine, ts, "sysprop_counter", "sysprop_name", name, mapped, v);
}

static int android_system_property(import_file *f, uint32_t machine, int64_t ts,
                                   proto_span msg) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != SYSPROP_VALUES || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_field name = {0}, value = {0};
    if (proto_find_last(fl.span.data, fl.span.len, SYSPROP_NAME, &name) != 1 ||
        name.wire_type != PROTO_WIRE_LEN)
      continue;
    if (proto_find_last(fl.span.data, fl.span.len, SYSPROP_VALUE, &value) != 1 ||
        value.wire_type != PROTO_WIRE_LEN)
      value.span = (proto_span){(const uint8_t *)"", 0};
    rc = sysprop_value(f, machine, ts, name.span, value.span);
  }
  return rc;
}

/* ---- ftrace ---- */

int proto_android_ftrace(trace_context *ctx, uint32_t machine, int64_t ts, int64_t pid,
                         uint32_t id, const uint64_t *v, const proto_span *s) {
  /* android_fs_dataread_start: bytes 1, ino 4, offset 5, pathbuf 6;
   * android_fs_dataread_end: bytes 1, ino 2, offset 3 */
  if (id == PROTO_FTRACE_EVENT_ANDROID_FS_DATAREAD_START)
    return model_android_fs_read_start(ctx, machine, ts, pid, v[4], (int64_t)v[5],
                                       (int32_t)(uint32_t)v[1], (const char *)s[6].data,
                                       s[6].len);
  if (id == PROTO_FTRACE_EVENT_ANDROID_FS_DATAREAD_END)
    return model_android_fs_read_end(ctx, machine, ts, v[2], (int64_t)v[3],
                                     (int32_t)(uint32_t)v[1]);
  return WEFT_OK;
}

/* ---- dispatch ---- */

int proto_android_parse(import_file *f, proto_android_state **state, uint32_t machine,
                        int64_t ts, const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  switch (fl->number) {
    case PROTO_TRACE_PACKET_ANDROID_LOG: return android_log_packet(f, machine, fl->span);
    case PROTO_TRACE_PACKET_CPU_PER_UID_DATA:
      return proto_android_cpu_per_uid(f, &(*state)->cpu, machine, ts, fl->span);
    case PROTO_TRACE_PACKET_JOURNALD_EVENT:
      return journald_event_parse(f, machine, ts, fl->span);
    case PROTO_TRACE_PACKET_ANDROID_SYSTEM_PROPERTY:
      return android_system_property(f, machine, ts, fl->span);
    case PROTO_TRACE_PACKET_PACKAGES_LIST:
      return android_packages_list(f, *state, machine, fl->span);
    default: return WEFT_OK;
  }
}
