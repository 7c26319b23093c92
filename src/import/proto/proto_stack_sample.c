/* StackSample packets: a callstack sample attributed to a task and an
 * execution context, with the counter values read at it (model/stack_sample.h).
 * Contexts and counter descriptors are inline or interned (InternedData 48,
 * 49, 50; async context descriptors 51); the sequence's StackSampleDefaults
 * give the source and default descriptors. */
#include "clock/clock.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_profile_internal.h"
#include "model/context.h"
#include "model/sched.h"
#include "model/stack_profile.h"
#include "model/stack_sample.h"

/* StackSample */
#define SS_TASK_CONTEXT 1
#define SS_TASK_CONTEXT_IID 2
#define SS_EXECUTION_CONTEXT 3
#define SS_EXECUTION_CONTEXT_IID 4
#define SS_CALLSTACK 5
#define SS_CALLSTACK_IID 6
#define SS_PRIMARY_DESCRIPTOR 9
#define SS_PRIMARY_DESCRIPTOR_IID 10
#define SS_PRIMARY_WEIGHT 11
#define SS_FOLLOWER_DESCRIPTORS 12
#define SS_FOLLOWER_DESCRIPTOR_IIDS 13
#define SS_FOLLOWER_WEIGHTS 14
/* TaskContext, ExecutionContext, AsyncContextDescriptor */
#define TC_PID 2
#define TC_TID 3
#define TC_ASYNC_ID 4
#define EC_CPU 2
#define EC_MODE 3
#define AC_NAME 2
#define AC_KIND 3
#define AC_PARENT_IID 4
/* CounterDescriptor */
#define CD_NAME 2
#define CD_UNIT 3
#define CD_UNIT_STR 4
#define CD_UNIT_MULTIPLIER 5
#define CD_DESCRIPTION 6
/* InlineCallstack and its frames */
#define IC_FRAMES 1
#define IF_FUNCTION_NAME 1
#define IF_SOURCE_FILE 2
#define IF_LINE_NUMBER 3
/* TracePacketDefaults.stack_sample_defaults and its fields */
#define DEFAULTS_STACK_SAMPLE 100
#define SSD_SOURCE 1
#define SSD_PRIMARY_DESCRIPTOR 2
#define SSD_FOLLOWER_DESCRIPTORS 3

#define SS_MAX_FOLLOWERS 64   /* follower counters of a sample that are read */
#define SS_MAX_ASYNC_DEPTH 64 /* async contexts resolved up one chain */
#define SS_ROW_ASYNC 120      /* cached async context rows (+ 1) */

/* What one sample is read against. */
typedef struct ss_sample {
  import_file *f;
  const proto_packet_info *info;
  int64_t ts;
  proto_span msg, defaults; /* defaults: StackSampleDefaults, or empty */
  string_id source;
  int64_t upid, cpu; /* -1: none */
  uint32_t session;
} ss_sample;

static int ss_intern(import_file *f, proto_span bytes, string_id *out) {
  return ctx_intern(f->ctx, (const char *)bytes.data, bytes.len, out);
}

/* The last LEN / VARINT field `number` of msg: 1 with *fl, else 0. */
static int ss_find(proto_span msg, uint32_t number, int wire, proto_field *fl) {
  return proto_find_last(msg.data, msg.len, number, fl) == 1 && fl->wire_type == wire;
}

static int ss_interned(const ss_sample *s, int kind, uint64_t iid, proto_span *msg) {
  const proto_import_state *st = s->f->state;
  return proto_interned_message(st, s->info->seq, s->info->generation, kind, iid, msg);
}

/* ---- async and task contexts ---- */

/* The row of async context `iid` (made with its ancestors first), -1 if
 * the sequence has no such descriptor. */
static int ss_async_context(const ss_sample *s, uint64_t iid, int depth, int64_t *row) {
  proto_profile_state *ps = pp_state(s->f);
  uint64_t key = proto_intern_key(s->info->seq, s->info->generation, SS_ROW_ASYNC, iid);
  uint64_t *cached = base_map_find(&ps->rows, key);
  proto_span msg;
  *row = -1;
  if (cached) return *row = (int64_t)*cached - 1, WEFT_OK;
  if (depth >= SS_MAX_ASYNC_DEPTH || !ss_interned(s, PROTO_INTERN_SS_ASYNC_CONTEXT, iid, &msg))
    return WEFT_OK;
  proto_field fl;
  int64_t parent = -1;
  string_id name = STRING_NULL, kind = STRING_NULL;
  int rc = WEFT_OK;
  if (ss_find(msg, AC_PARENT_IID, PROTO_WIRE_VARINT, &fl) && fl.value && fl.value != iid)
    rc = ss_async_context(s, fl.value, depth + 1, &parent);
  if (!rc && ss_find(msg, AC_NAME, PROTO_WIRE_LEN, &fl) && fl.span.len)
    rc = ss_intern(s->f, fl.span, &name);
  if (!rc && ss_find(msg, AC_KIND, PROTO_WIRE_LEN, &fl) && fl.span.len)
    rc = ss_intern(s->f, fl.span, &kind);
  uint32_t id;
  if (!rc) rc = stack_sample_async_context_new(s->f->ctx, name, kind, parent, &id);
  if (rc) return rc;
  uint64_t *slot;
  if (base_map_insert(&ps->rows, key, (uint64_t)id + 1, &slot) < 0) return WEFT_ENOMEM;
  *row = id;
  return WEFT_OK;
}

static int ss_task_context_of(ss_sample *s, proto_span msg, int64_t *row) {
  proto_field pid, tid, async;
  int has_pid = ss_find(msg, TC_PID, PROTO_WIRE_VARINT, &pid);
  int has_tid = ss_find(msg, TC_TID, PROTO_WIRE_VARINT, &tid);
  int64_t utid = -1, async_row = -1;
  uint32_t id, machine = s->info->machine;
  int rc = WEFT_OK;
  if (has_pid && !(rc = model_process_and_main_thread(s->f->ctx, machine, (uint32_t)pid.value, &id)))
    s->upid = id;
  if (!rc && has_tid) {
    rc = has_pid ? model_thread_in_process(s->f->ctx, machine, (uint32_t)tid.value,
                                           (uint32_t)pid.value, &id)
                 : model_thread(s->f->ctx, machine, (uint32_t)tid.value, &id);
    utid = id;
  }
  if (!rc && ss_find(msg, TC_ASYNC_ID, PROTO_WIRE_VARINT, &async) && async.value)
    rc = ss_async_context(s, async.value, 0, &async_row);
  if (!rc) rc = stack_sample_task_context(s->f->ctx, s->upid, utid, async_row, &id);
  if (!rc) *row = id;
  return rc;
}

/* ---- execution contexts ---- */

static const char *const ss_modes[] = {NULL, "user", "kernel", "hypervisor", "guest_user",
                                       "guest_kernel"};

static int ss_execution_context_of(ss_sample *s, proto_span msg, int64_t *row) {
  proto_field fl;
  int64_t ucpu = -1;
  string_id mode = STRING_NULL;
  uint32_t id, cpu_row;
  int rc = WEFT_OK;
  if (ss_find(msg, EC_CPU, PROTO_WIRE_VARINT, &fl) && fl.value < SCHED_MAX_CPU) {
    rc = sched_cpu_row(s->f->ctx, s->info->machine, (uint32_t)fl.value, &id, &cpu_row);
    if (!rc) ucpu = id, s->cpu = (int64_t)fl.value;
  }
  if (!rc && ss_find(msg, EC_MODE, PROTO_WIRE_VARINT, &fl) && fl.value < 6 && ss_modes[fl.value])
    rc = ctx_intern(s->f->ctx, ss_modes[fl.value], strlen(ss_modes[fl.value]), &mode);
  if (!rc) rc = stack_sample_execution_context(s->f->ctx, ucpu, mode, &id);
  if (!rc) *row = id;
  return rc;
}

/* The context given inline (field `inline_no`) or interned (`iid_no`, of
 * kind), or -1. */
typedef int (*ss_context_fn)(ss_sample *s, proto_span msg, int64_t *row);
static int ss_context(ss_sample *s, uint32_t inline_no, uint32_t iid_no, int kind,
                      ss_context_fn fn, int64_t *row) {
  proto_field fl;
  proto_span msg;
  *row = -1;
  if (ss_find(s->msg, inline_no, PROTO_WIRE_LEN, &fl)) return fn(s, fl.span, row);
  if (ss_find(s->msg, iid_no, PROTO_WIRE_VARINT, &fl) && ss_interned(s, kind, fl.value, &msg))
    return fn(s, msg, row);
  return WEFT_OK;
}

/* ---- counters ---- */

static const char *const ss_units[] = {NULL, "ns", "cycles", "instructions", "bytes",
                                       "page-faults", "cache-misses", "cache-references",
                                       "branch-misses", "count"};

/* The track of counter descriptor `desc` (timebase or follower). */
static int ss_counter_track(const ss_sample *s, proto_span desc, int is_timebase,
                            uint32_t *track) {
  stack_sample_counter_spec spec = {s->session, s->source, STRING_NULL, STRING_NULL,
                                    STRING_NULL, is_timebase, 0, 0, s->info->machine};
  proto_field fl;
  int rc = ss_find(desc, CD_NAME, PROTO_WIRE_LEN, &fl) ? ss_intern(s->f, fl.span, &spec.name)
                                                       : ctx_intern(s->f->ctx, "", 0, &spec.name);
  if (!rc && ss_find(desc, CD_UNIT, PROTO_WIRE_VARINT, &fl) && fl.value &&
      fl.value < sizeof ss_units / sizeof *ss_units)
    rc = ctx_intern(s->f->ctx, ss_units[fl.value], strlen(ss_units[fl.value]), &spec.unit);
  else if (!rc && ss_find(desc, CD_UNIT_STR, PROTO_WIRE_LEN, &fl) && fl.span.len)
    rc = ss_intern(s->f, fl.span, &spec.unit);
  if (!rc && ss_find(desc, CD_UNIT_MULTIPLIER, PROTO_WIRE_VARINT, &fl))
    spec.has_unit_multiplier = 1, spec.unit_multiplier = (int64_t)fl.value;
  if (!rc && ss_find(desc, CD_DESCRIPTION, PROTO_WIRE_LEN, &fl) && fl.span.len)
    rc = ss_intern(s->f, fl.span, &spec.description);
  return rc ? rc : stack_sample_counter_track(s->f->ctx, &spec, track);
}

/* The timebase descriptor: inline, interned or the defaults'; 0 if none. */
static int ss_primary_descriptor(const ss_sample *s, proto_span *desc) {
  proto_field fl;
  if (ss_find(s->msg, SS_PRIMARY_DESCRIPTOR, PROTO_WIRE_LEN, &fl)) return *desc = fl.span, 1;
  if (ss_find(s->msg, SS_PRIMARY_DESCRIPTOR_IID, PROTO_WIRE_VARINT, &fl))
    return ss_interned(s, PROTO_INTERN_SS_COUNTER_DESCRIPTOR, fl.value, desc);
  if (ss_find(s->defaults, SSD_PRIMARY_DESCRIPTOR, PROTO_WIRE_LEN, &fl))
    return *desc = fl.span, 1;
  return 0;
}

static int ss_primary(const ss_sample *s) {
  proto_span desc;
  proto_field weight;
  uint32_t track;
  if (!ss_primary_descriptor(s, &desc)) return WEFT_OK;
  int rc = ss_counter_track(s, desc, 1, &track);
  if (rc || !ss_find(s->msg, SS_PRIMARY_WEIGHT, PROTO_WIRE_VARINT, &weight)) return rc;
  return stack_sample_counter_value(s->f->ctx, track, s->ts, (double)weight.value);
}

/* Follower tracks, positional (-1: a descriptor iid the sequence lacks):
 * the sample's inline descriptors, else its interned ones, else the
 * defaults'. */
static int ss_follower_tracks(const ss_sample *s, int64_t *tracks, size_t *n) {
  proto_reader rd;
  proto_field fl;
  uint32_t track;
  int rc = WEFT_OK;
  *n = 0;
  proto_reader_init_span(&rd, s->msg);
  while (!rc && *n < SS_MAX_FOLLOWERS && proto_reader_next(&rd, &fl) == 1)
    if (fl.number == SS_FOLLOWER_DESCRIPTORS && fl.wire_type == PROTO_WIRE_LEN &&
        !(rc = ss_counter_track(s, fl.span, 0, &track)))
      tracks[(*n)++] = track;
  if (rc || *n) return rc;
  pp_varints it;
  uint64_t iid;
  proto_span desc;
  pp_varints_init(&it, s->msg, SS_FOLLOWER_DESCRIPTOR_IIDS);
  while (!rc && *n < SS_MAX_FOLLOWERS && pp_varints_next(&it, &iid)) {
    tracks[*n] = -1;
    if (ss_interned(s, PROTO_INTERN_SS_COUNTER_DESCRIPTOR, iid, &desc) &&
        !(rc = ss_counter_track(s, desc, 0, &track)))
      tracks[*n] = track;
    ++*n;
  }
  if (rc || *n) return rc;
  proto_reader_init_span(&rd, s->defaults);
  while (!rc && *n < SS_MAX_FOLLOWERS && proto_reader_next(&rd, &fl) == 1)
    if (fl.number == SSD_FOLLOWER_DESCRIPTORS && fl.wire_type == PROTO_WIRE_LEN &&
        !(rc = ss_counter_track(s, fl.span, 0, &track)))
      tracks[(*n)++] = track;
  return rc;
}

static int ss_followers(const ss_sample *s) {
  int64_t tracks[SS_MAX_FOLLOWERS];
  size_t n, i = 0;
  int rc = ss_follower_tracks(s, tracks, &n);
  pp_varints it;
  uint64_t weight;
  pp_varints_init(&it, s->msg, SS_FOLLOWER_WEIGHTS);
  for (; !rc && i < n && pp_varints_next(&it, &weight); i++)
    if (tracks[i] >= 0)
      rc = stack_sample_counter_value(s->f->ctx, (uint32_t)tracks[i], s->ts, (double)weight);
  return rc;
}

/* ---- callstacks ---- */

/* The dummy mapping inline frames live on (build id "", range 0..-1). */
static int ss_inline_mapping(import_file *f, uint32_t *mapping) {
  proto_profile_state *ps = pp_state(f);
  if (ps->ss_inline_mapping) return *mapping = (uint32_t)(ps->ss_inline_mapping - 1), WEFT_OK;
  stack_profile_mapping_spec spec = {0};
  spec.end = -1;
  int rc = ctx_intern(f->ctx, "", 0, &spec.build_id);
  if (!rc) rc = ctx_intern(f->ctx, "stack_sample_inline", 19, &spec.name);
  if (!rc) rc = stack_profile_mapping_new(f->ctx, &spec, mapping);
  if (!rc) ps->ss_inline_mapping = (int64_t)*mapping + 1;
  return rc;
}

static int ss_inline_frame(import_file *f, uint32_t mapping, proto_span msg, uint32_t *frame) {
  proto_field fl;
  string_id name = STRING_NULL, file = STRING_NULL;
  int64_t line = -1;
  int rc = ss_find(msg, IF_FUNCTION_NAME, PROTO_WIRE_LEN, &fl) ? ss_intern(f, fl.span, &name)
                                                               : ctx_intern(f->ctx, "", 0, &name);
  if (!rc && ss_find(msg, IF_SOURCE_FILE, PROTO_WIRE_LEN, &fl)) rc = ss_intern(f, fl.span, &file);
  if (ss_find(msg, IF_LINE_NUMBER, PROTO_WIRE_VARINT, &fl)) line = (int64_t)(uint32_t)fl.value;
  return rc ? rc : stack_profile_symbol_frame(f->ctx, mapping, name, file, line, frame);
}

/* The leaf callsite of an inline callstack (bottom frame first), -1 if it
 * has no frames. */
static int ss_inline_callstack(import_file *f, proto_span msg, int64_t *leaf) {
  proto_reader rd;
  proto_field fl;
  uint32_t mapping, frame, callsite;
  int rc = WEFT_OK;
  *leaf = -1;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    if (fl.number != IC_FRAMES || fl.wire_type != PROTO_WIRE_LEN) continue;
    rc = ss_inline_mapping(f, &mapping);
    if (!rc) rc = ss_inline_frame(f, mapping, fl.span, &frame);
    if (!rc) rc = stack_profile_callsite(f->ctx, *leaf, frame, &callsite);
    if (!rc) *leaf = callsite;
  }
  return rc;
}

/* The sample's leaf callsite, or -1. */
static int ss_callstack(const ss_sample *s, int64_t *leaf) {
  proto_field fl;
  *leaf = -1;
  if (ss_find(s->msg, SS_CALLSTACK_IID, PROTO_WIRE_VARINT, &fl)) {
    pp_resolver r = pp_resolver_of(s->info);
    r.owner = s->upid >= 0 ? (uint32_t)s->upid + 1 : 0; /* the task's memory */
    int rc = pp_callstack(s->f, &r, fl.value, leaf);
    if (*leaf < 0) *leaf = -1;
    return rc;
  }
  if (ss_find(s->msg, SS_CALLSTACK, PROTO_WIRE_LEN, &fl))
    return ss_inline_callstack(s->f, fl.span, leaf);
  return WEFT_OK;
}

/* ---- the sample ---- */

/* The sequence's session, made on its first sample. */
static int ss_session(ss_sample *s) {
  proto_profile_state *ps = pp_state(s->f);
  uint64_t key = (uint64_t)s->info->seq + 1, *slot = base_map_find(&ps->ss_sessions, key);
  if (slot) return s->session = (uint32_t)*slot, WEFT_OK;
  int rc = stack_sample_session_new(s->f->ctx, s->source, &s->session);
  if (!rc && base_map_insert(&ps->ss_sessions, key, s->session, &slot) < 0) rc = WEFT_ENOMEM;
  return rc;
}

static void ss_read_defaults(ss_sample *s) {
  proto_field fl;
  s->defaults.data = NULL;
  s->defaults.len = 0;
  if (s->info->defaults.len && ss_find(s->info->defaults, DEFAULTS_STACK_SAMPLE, PROTO_WIRE_LEN, &fl))
    s->defaults = fl.span;
}

int pp_stack_sample(import_file *f, const proto_packet_info *info, int64_t ts, proto_span msg) {
  if (!pp_state(f)) return WEFT_ENOMEM;
  ss_sample s = {f, info, ts, msg, {NULL, 0}, STRING_NULL, -1, -1, 0};
  ss_read_defaults(&s);
  proto_field fl;
  int rc = ss_find(s.defaults, SSD_SOURCE, PROTO_WIRE_LEN, &fl) && fl.span.len
               ? ss_intern(f, fl.span, &s.source)
               : WEFT_OK;
  stack_sample_row row = {ts, STRING_NULL, -1, -1, -1, 0};
  if (!rc) rc = ss_context(&s, SS_TASK_CONTEXT, SS_TASK_CONTEXT_IID, PROTO_INTERN_SS_TASK_CONTEXT,
                           ss_task_context_of, &row.task_context);
  if (!rc)
    rc = ss_context(&s, SS_EXECUTION_CONTEXT, SS_EXECUTION_CONTEXT_IID,
                    PROTO_INTERN_SS_EXECUTION_CONTEXT, ss_execution_context_of,
                    &row.execution_context);
  if (!rc) rc = ss_session(&s);
  if (!rc) rc = ss_primary(&s);
  if (!rc) rc = ss_followers(&s);
  if (!rc) rc = ss_callstack(&s, &row.callsite);
  if (rc) return rc;
  row.source = s.source;
  row.session = s.session;
  return stack_sample_add(f->ctx, &row);
}
