/* PerfSample, StreamingProfilePacket and DeobfuscationMapping packets (see
 * proto_profile.h). */
#include "import/proto/proto_import.h"
#include "import/proto/proto_profile_internal.h"
#include "model/columns.h"
#include "model/context.h"
#include "model/stack_profile.h"

/* PerfSample */
#define PS_CPU 1
#define PS_PID 2
#define PS_TID 3
#define PS_CALLSTACK_IID 4
#define PS_CPU_MODE 5
#define PS_TIMEBASE_COUNT 6
#define PS_FOLLOWER_COUNTS 7
#define PS_UNWIND_ERROR 16
#define PS_KERNEL_RECORDS_LOST 17
#define PS_SAMPLE_SKIPPED_REASON 18
/* PerfSample.SampleSkipReason */
#define PS_SKIP_READ_STAGE 1
#define PS_SKIP_UNWIND_STAGE 2
#define PS_SKIP_UNWIND_ENQUEUE 3
/* StreamingProfilePacket */
#define SPP_CALLSTACK_IID 1
#define SPP_TIMESTAMP_DELTA_US 2
#define SPP_PROCESS_PRIORITY 3
/* DeobfuscationMapping and its ObfuscatedClass / ObfuscatedMember */
#define DM_PACKAGE_NAME 1
#define DM_OBFUSCATED_CLASSES 3
#define OC_OBFUSCATED_NAME 1
#define OC_DEOBFUSCATED_NAME 2
#define OC_OBFUSCATED_METHODS 4
#define OM_OBFUSCATED_LINE_START 3
#define OM_OBFUSCATED_LINE_END 4
#define OM_SOURCE_LINE_START 5

#define PP_MAX_COUNTERS 64 /* counters of one perf sample kept in its counter set */
#define PP_MAX_MEMBERS 65536 /* renamed members of one class that are kept */

typedef struct pp_perf_fields {
  uint64_t cpu, pid, tid, callstack, cpu_mode, unwind_error, records_lost, skip_reason;
  uint64_t timebase_count;
  int has_cpu, has_callstack, has_unwind_error, has_timebase_count;
} pp_perf_fields;

static void pp_perf_read(proto_span msg, pp_perf_fields *p) {
  memset(p, 0, sizeof *p);
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    switch (fl.number) {
      case PS_CPU: p->cpu = fl.value, p->has_cpu = 1; break;
      case PS_PID: p->pid = fl.value; break;
      case PS_TID: p->tid = fl.value; break;
      case PS_CALLSTACK_IID: p->callstack = fl.value, p->has_callstack = 1; break;
      case PS_CPU_MODE: p->cpu_mode = fl.value; break;
      case PS_UNWIND_ERROR: p->unwind_error = fl.value, p->has_unwind_error = 1; break;
      case PS_KERNEL_RECORDS_LOST: p->records_lost = fl.value; break;
      case PS_SAMPLE_SKIPPED_REASON: p->skip_reason = fl.value; break;
      case PS_TIMEBASE_COUNT: p->timebase_count = fl.value, p->has_timebase_count = 1; break;
      default: break;
    }
  }
}

static const char *const pp_cpu_modes[] = {"unknown", "kernel", "user", "hypervisor",
                                           "guest_kernel", "guest_user"};
static const char *const pp_unwind_errors[] = {
    "unknown", "none", "memory_invalid", "unwind_info", "unsupported",
    "invalid_map", "max_frames_exceeded", "repeated_frame", "invalid_elf"};

static int pp_enum_name(import_file *f, const char *const *names, size_t n, uint64_t v,
                        string_id *out) {
  const char *s = v < n ? names[v] : names[0];
  return ctx_intern(f->ctx, s, strlen(s), out);
}

/* The sample's thread tid of process pid; a process new to the trace gets
 * its main thread (tid pid) first, as Perfetto's process tracker does. */
static int pp_sample_thread(import_file *f, uint32_t machine, int64_t tid, int64_t pid,
                            uint32_t *utid) {
  uint32_t upid;
  int rc = WEFT_OK;
  if (tid != pid && !model_process_find(f->ctx, machine, pid, &upid))
    rc = model_thread_in_process(f->ctx, machine, pid, pid, utid);
  return rc ? rc : model_thread_in_process(f->ctx, machine, tid, pid, utid);
}

/* The sample's counter values: the timebase count on the stream's first
 * track, the follower counts in order on the others (extra ones dropped);
 * *set is the counter set of the rows (-1: none). */
static int pp_perf_counters(import_file *f, const pp_perf_fields *p, const pp_perf_stream *st,
                            int64_t ts, proto_span msg, int64_t *set) {
  const uint32_t *tracks = pp_state(f)->perf_tracks.data + st->first;
  uint32_t rows[PP_MAX_COUNTERS];
  size_t n = 0;
  int rc = p->has_timebase_count ? model_counter_row(f->ctx, tracks[0], ts,
                                                     (double)p->timebase_count, -1, &rows[n++])
                                 : WEFT_OK;
  pp_varints it;
  uint64_t v;
  pp_varints_init(&it, msg, PS_FOLLOWER_COUNTS);
  for (size_t i = 1; !rc && i < st->count && pp_varints_next(&it, &v); i++) {
    uint32_t row;
    rc = model_counter_row(f->ctx, tracks[i], ts, (double)v, -1, &row);
    if (!rc && n < PP_MAX_COUNTERS) rows[n++] = row;
  }
  return rc ? rc : stack_profile_counter_set(f->ctx, rows, n, set);
}

int pp_perf_sample(import_file *f, const proto_packet_info *info, int64_t ts, proto_span msg) {
  proto_profile_state *s = pp_state(f);
  if (!s) return WEFT_ENOMEM;
  pp_perf_fields p;
  pp_perf_stream stream;
  int64_t counter_set = -1;
  pp_perf_read(msg, &p);
  int rc = pp_perf_stream_of(f, info, (uint32_t)p.cpu, &stream);
  if (rc) return rc;
  if (p.records_lost) /* records the kernel dropped, per cpu: not a sample */
    return stats_add(&f->ctx->stats, stat_perf_cpu_lost_records, (int64_t)(uint32_t)p.cpu,
                     info->machine, f->trace_id, (int64_t)p.records_lost);
  /* a skipped sample lacks (part of) its stack, yet it is a sample: the
   * unwinder failing counts, a process out of scope is as intended */
  if (p.skip_reason == PS_SKIP_READ_STAGE || p.skip_reason == PS_SKIP_UNWIND_STAGE)
    rc = import_stat(f, stat_perf_samples_skipped, 1);
  if (p.skip_reason == PS_SKIP_UNWIND_ENQUEUE)
    rc = import_stat(f, stat_perf_samples_skipped_dataloss, 1);
  if (!rc) rc = pp_perf_counters(f, &p, &stream, ts, msg, &counter_set);
  if (rc) return rc;
  pp_resolver r = pp_resolver_of(info);
  int64_t leaf = -1;
  uint32_t utid;
  string_id mode, unwind = STRING_NULL;
  rc = pp_sample_thread(f, info->machine, (int64_t)p.tid, (int64_t)p.pid, &utid);
  if (!rc) r.owner = (uint32_t)(model_thread_process(f->ctx, utid) + 1);
  if (!rc && p.has_callstack) rc = pp_callstack(f, &r, p.callstack, &leaf);
  /* an empty callstack is counted; the sample stays, without a callsite */
  if (!rc && p.has_callstack && leaf == -1) rc = import_stat(f, stat_stackprofile_empty_callstack, 1);
  if (!rc) rc = pp_enum_name(f, pp_cpu_modes, 6, p.cpu_mode, &mode);
  if (!rc && p.has_unwind_error) rc = pp_enum_name(f, pp_unwind_errors, 9, p.unwind_error, &unwind);
  if (rc) return rc;
  /* the execution context knows no mode for MODE_UNKNOWN */
  string_id context_mode = p.cpu_mode ? mode : STRING_NULL;
  stack_profile_perf_sample row = {ts, utid, info->machine, p.has_cpu ? (int64_t)p.cpu : -1,
                                   mode, context_mode, leaf, unwind, stream.session,
                                   counter_set};
  return stack_profile_perf_sample_add(f->ctx, &row);
}

/* ---- StreamingProfilePacket ---- */

void pp_varints_init(pp_varints *it, proto_span msg, uint32_t number) {
  memset(it, 0, sizeof *it);
  proto_reader_init_span(&it->rd, msg);
  it->number = number;
}

int pp_varints_next(pp_varints *it, uint64_t *out) {
  for (;;) {
    if (it->in_packed && proto_packed_next_varint(&it->packed, out) == 1) return 1;
    it->in_packed = 0;
    proto_field fl;
    do {
      if (proto_reader_next(&it->rd, &fl) != 1) return 0;
    } while (fl.number != it->number);
    if (fl.wire_type == PROTO_WIRE_VARINT) return *out = fl.value, 1;
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_packed_init(&it->packed, fl.span);
    it->in_packed = 1;
  }
}

/* Samples at the packet's time (its first sample's, see
 * proto_track_time.c) and then each at the previous one plus its delta. */
int pp_streaming_profile(import_file *f, const proto_packet_info *info, int64_t ts,
                         proto_span msg) {
  int64_t pid, tid;
  if (!proto_seq_thread(f->state, info->seq, info->generation, &pid, &tid))
    return import_stat(f, stat_stackprofile_parser_error, 1);
  uint32_t utid;
  int rc = model_thread_in_process(f->ctx, info->machine, tid, pid, &utid);
  uint64_t priority = 0, iid, delta_us;
  pp_varints prio, iids, deltas;
  pp_varints_init(&prio, msg, SPP_PROCESS_PRIORITY);
  pp_varints_next(&prio, &priority);
  pp_varints_init(&iids, msg, SPP_CALLSTACK_IID);
  pp_varints_init(&deltas, msg, SPP_TIMESTAMP_DELTA_US);
  pp_resolver r = pp_resolver_of(info);
  if (!rc) r.owner = (uint32_t)(model_thread_process(f->ctx, utid) + 1);
  for (size_t i = 0; !rc && pp_varints_next(&iids, &iid); i++) {
    int has_delta = pp_varints_next(&deltas, &delta_us);
    int64_t step;
    if (i > 0 && has_delta &&
        (__builtin_mul_overflow((int64_t)delta_us, 1000, &step) ||
         __builtin_add_overflow(ts, step, &ts)))
      return import_stat(f, stat_streaming_profile_invalid_timestamp, 1);
    int64_t leaf;
    rc = pp_callstack(f, &r, iid, &leaf);
    /* a sample whose callstack is empty or unknown is dropped, counted as
     * a parser error (and an empty one as such) */
    if (!rc && leaf == -1) rc = import_stat(f, stat_stackprofile_empty_callstack, 1);
    if (!rc && leaf < 0) rc = import_stat(f, stat_stackprofile_parser_error, 1);
    if (!rc && leaf >= 0)
      rc = stack_profile_cpu_sample(f->ctx, STACK_PROFILE_CPU_CHROME, ts, (uint32_t)leaf, utid,
                                    (int64_t)priority);
  }
  return rc;
}

/* ---- DeobfuscationMapping ---- */

static int pp_string_field(import_file *f, proto_span msg, uint32_t number, string_id *out) {
  proto_field fl;
  *out = STRING_NULL;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1 || fl.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  return ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, out);
}

/* A varint field of msg (its last), or -1 when absent. */
static int64_t pp_line_field(proto_span msg, uint32_t number) {
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, number, &fl) != 1 || fl.wire_type != PROTO_WIRE_VARINT)
    return -1;
  return (int64_t)(uint32_t)fl.value;
}

static int pp_obfuscated_method(import_file *f, proto_span msg, stack_profile_member *m) {
  int rc = pp_string_field(f, msg, OC_OBFUSCATED_NAME, &m->obfuscated);
  if (!rc) rc = pp_string_field(f, msg, OC_DEOBFUSCATED_NAME, &m->deobfuscated);
  m->obfuscated_line_start = pp_line_field(msg, OM_OBFUSCATED_LINE_START);
  m->obfuscated_line_end = pp_line_field(msg, OM_OBFUSCATED_LINE_END);
  m->source_line_start = pp_line_field(msg, OM_SOURCE_LINE_START);
  return rc;
}

/* A class and its methods (its fields rename heap graph references only). */
static int pp_obfuscated_class(import_file *f, string_id package, proto_span msg) {
  string_id obf, deobf;
  int rc = pp_string_field(f, msg, OC_OBFUSCATED_NAME, &obf);
  if (!rc) rc = pp_string_field(f, msg, OC_DEOBFUSCATED_NAME, &deobf);
  if (rc || obf == STRING_NULL) return rc;
  VEC(stack_profile_member) members = {0};
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (!rc && members.len < PP_MAX_MEMBERS && proto_reader_next(&rd, &fl) == 1) {
    if (fl.number != OC_OBFUSCATED_METHODS || fl.wire_type != PROTO_WIRE_LEN) continue;
    stack_profile_member m;
    rc = pp_obfuscated_method(f, fl.span, &m);
    if (!rc && VEC_PUSH(members, m)) rc = WEFT_ENOMEM;
  }
  if (!rc) rc = stack_profile_add_class(f->ctx, package, obf, deobf, members.data, members.len);
  VEC_FREE(members);
  return rc;
}

int pp_deobfuscation(import_file *f, proto_span msg) {
  string_id package;
  if (!pp_state(f)) return WEFT_ENOMEM; /* the frames are renamed at its end */
  int rc = pp_string_field(f, msg, DM_PACKAGE_NAME, &package);
  if (!rc) rc = stack_profile_deobfuscation_mapping(f->ctx);
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1)
    if (fl.number == DM_OBFUSCATED_CLASSES && fl.wire_type == PROTO_WIRE_LEN)
      rc = pp_obfuscated_class(f, package, fl.span);
  return rc;
}

/* ---- SmapsPacket ---- */

#define SMAPS_PID 1
#define SMAPS_ENTRIES 2
#define SMAPS_PATH 1
#define SMAPS_FILE_NAME 5
#define SMAPS_MODULE_DEBUGID 8
#define SMAPS_MODULE_DEBUG_PATH 9

/* Where each varint field of SmapsEntry goes (0: none). */
static int64_t *pp_smaps_int(stack_profile_smaps_entry *e, uint32_t number) {
  switch (number) {
    case 2: return &e->size_kb;
    case 3: return &e->private_dirty_kb;
    case 4: return &e->swap_kb;
    case 6: return &e->start_address;
    case 7: return &e->module_timestamp;
    case 10: return &e->protection_flags;
    case 11: return &e->private_clean_resident_kb;
    case 12: return &e->shared_dirty_resident_kb;
    case 13: return &e->shared_clean_resident_kb;
    case 14: return &e->locked_kb;
    case 15: return &e->proportional_resident_kb;
    default: return NULL;
  }
}

static string_id *pp_smaps_str(stack_profile_smaps_entry *e, uint32_t number) {
  switch (number) {
    case SMAPS_PATH: return &e->path;
    case SMAPS_FILE_NAME: return &e->file_name;
    case SMAPS_MODULE_DEBUGID: return &e->module_debugid;
    case SMAPS_MODULE_DEBUG_PATH: return &e->module_debug_path;
    default: return NULL;
  }
}

static int pp_smaps_entry(import_file *f, int64_t ts, uint32_t upid, proto_span msg) {
  stack_profile_smaps_entry e;
  memset(&e, 0, sizeof e);
  e.ts = ts;
  e.upid = upid;
  e.path = e.file_name = e.module_debugid = e.module_debug_path = STRING_NULL;
  proto_reader rd;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    int64_t *i = fl.wire_type == PROTO_WIRE_VARINT ? pp_smaps_int(&e, fl.number) : NULL;
    string_id *s = fl.wire_type == PROTO_WIRE_LEN ? pp_smaps_str(&e, fl.number) : NULL;
    if (i) *i = (int64_t)fl.value;
    if (s) rc = ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, s);
  }
  return rc ? rc : stack_profile_smaps_add(f->ctx, &e);
}

int pp_smaps(import_file *f, const proto_packet_info *info, int64_t ts, proto_span msg) {
  proto_field fl;
  int64_t pid = 0;
  if (proto_find_last(msg.data, msg.len, SMAPS_PID, &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT)
    pid = (int64_t)(uint32_t)fl.value;
  uint32_t upid;
  int rc = model_process_and_main_thread(f->ctx, info->machine, pid, &upid);
  proto_reader rd;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1)
    if (fl.number == SMAPS_ENTRIES && fl.wire_type == PROTO_WIRE_LEN)
      rc = pp_smaps_entry(f, ts, upid, fl.span);
  return rc;
}
