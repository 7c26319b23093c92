/* FtraceEventBundle tokenizing and FtraceEvent parsing. See proto_ftrace.h. */
#include "import/proto/proto_ftrace.h"

#include <inttypes.h>
#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_ftrace_bundle.h"
#include "import/proto/proto_ftrace_dev.h"
#include "import/proto/proto_ftrace_gpu.h"
#include "model/atrace.h"
#include "model/ftrace_desc.h"
#include "model/kcounter.h"
#include "model/kpower.h"
#include "model/kslice.h"
#include "model/sched.h"

#define PROTO_FTRACE_MAX_CPU 1024
#define PROTO_FTRACE_MAX_INTERN 65536

enum proto_ftrace_kind {
  PROTO_FTRACE_EVENT = 0,
  PROTO_FTRACE_COMPACT_SWITCH,
  PROTO_FTRACE_COMPACT_WAKING,
  PROTO_FTRACE_LATEST_START, /* a machine's ftrace_latest_data_start_ns */
  PROTO_FTRACE_ACPM_BULK     /* an acpm bulk event again, at its own time */
};

#define PROTO_FTRACE_MAX_MACHINES 256

/* The latest first-bundle valid time over a machine's cpus. */
typedef struct proto_ftrace_latest {
  uint32_t machine, clock;
  int64_t raw;
} proto_ftrace_latest;

typedef struct proto_ftrace_rec {
  proto_span event;     /* FtraceEvent (EVENT) or the comm (COMPACT_*) */
  int64_t raw_ts;
  uint32_t machine;     /* machine row (import_machine) */
  uint32_t clock;
  uint32_t cpu;
  uint32_t seq, generation;
  uint32_t buffer;      /* proto_refs buffer holding `event` */
  uint8_t kind;
  uint8_t raw_ts_unread; /* raw_ts is still in `event` (proto_ftrace_raw_ts) */
  int64_t a, b, c, d;   /* compact: prev_state/pid, pid/target_cpu, prio, flags */
} proto_ftrace_rec;

struct proto_ftrace_state {
  VEC(proto_ftrace_rec) recs;
  base_map cpu_seen;       /* cpu + 1 -> 1 once its first bundle was seen */
  int has_started, has_latest;
  int64_t started_raw, latest_raw;
  uint32_t started_clock, latest_clock;
  VEC(proto_span) intern;  /* scratch: a compact_sched intern table */
  VEC(proto_ftrace_latest) latest_by_machine;
};

void proto_ftrace_free(proto_ftrace_state *s) {
  if (!s) return;
  VEC_FREE(s->recs);
  base_map_free(&s->cpu_seen);
  VEC_FREE(s->intern);
  VEC_FREE(s->latest_by_machine);
  base_free(s);
}

static proto_ftrace_state *proto_ftrace_get(import_file *f) {
  proto_import_state *st = f->state;
  if (!st->ftrace) st->ftrace = base_calloc(1, sizeof *st->ftrace);
  return st->ftrace;
}

/* ---- tokenize ---- */

#define PROTO_FTRACE_SIDE (PROTO_REF_FTRACE | PROTO_REF_SIDE)

/* Pushes an event: by reference when it is a plain FtraceEvent that can
 * be referenced, else as a record. */
static int proto_ftrace_push(import_file *f, proto_ftrace_state *s,
                             const proto_ftrace_rec *rec) {
  proto_import_state *st = f->state;
  st->saw_timestamp = 1;
  uint64_t payload = 0;
  int made = 0;
  if (rec->kind == PROTO_FTRACE_EVENT) {
    proto_ref_ctx c = {{NULL, 0}, rec->seq, rec->generation, rec->machine, rec->cpu};
    made = proto_ref_make(&st->refs, rec->event, &c, &payload);
    if (made < 0) return made;
  }
  if (made) {
    payload |= PROTO_REF_FTRACE;
  } else {
    proto_ftrace_rec copy = *rec;
    copy.buffer = proto_input_current(f);
    if (VEC_PUSH(s->recs, copy)) return WEFT_ENOMEM;
    payload = PROTO_FTRACE_SIDE | (uint64_t)(s->recs.len - 1);
  }
  if (rec->event.data) proto_input_hold(f, rec->event);
  proto_latest_note(&st->latest, rec->clock, rec->raw_ts);
  return import_push_cpu(f, rec->machine, rec->cpu, rec->raw_ts, rec->clock, payload);
}

static int proto_ftrace_tokenize_event(import_file *f, proto_ftrace_state *s,
                                       proto_ftrace_rec *rec, proto_span ev) {
  proto_field fl;
  if (proto_find_first(ev.data, ev.len, PROTO_FTRACE_EVENT_TIMESTAMP, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT) {
    import_stat(f, stat_ftrace_bundle_tokenizer_errors, 1);
    return WEFT_OK;
  }
  rec->kind = PROTO_FTRACE_EVENT;
  rec->event = ev;
  rec->raw_ts = (int64_t)fl.value;
  int64_t own_ts;
  int acpm = proto_ftrace_acpm_time(ev, &own_ts);
  if (acpm < 0) return import_stat(f, stat_ftrace_bundle_tokenizer_errors, 1);
  int rc = proto_ftrace_push(f, s, rec);
  if (rc || !acpm) return rc;
  rec->kind = PROTO_FTRACE_ACPM_BULK;
  rec->raw_ts = own_ts;
  rc = import_clock_on(f, rec->machine, 0, PROTO_BUILTIN_CLOCK_BOOTTIME, &rec->clock);
  return rc ? rc : proto_ftrace_push(f, s, rec);
}

/* The packed columns of CompactSched. */
typedef struct proto_compact_cols {
  proto_span col[13];
  int has[13];
} proto_compact_cols;

static int proto_compact_read(proto_ftrace_state *s, proto_span msg,
                              proto_compact_cols *c) {
  memset(c, 0, sizeof *c);
  s->intern.len = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN || fl.number == 0 || fl.number > 12) continue;
    if (fl.number == PROTO_COMPACT_SCHED_INTERN_TABLE) {
      if (s->intern.len < PROTO_FTRACE_MAX_INTERN && VEC_PUSH(s->intern, fl.span))
        return WEFT_ENOMEM;
      continue;
    }
    c->col[fl.number] = fl.span;
    c->has[fl.number] = 1;
  }
  return WEFT_OK;
}

static int proto_compact_switches(import_file *f, proto_ftrace_state *s,
                                  proto_ftrace_rec *base, const proto_compact_cols *c) {
  proto_packed_iter it[5];
  static const int cols[5] = {PROTO_COMPACT_SCHED_SWITCH_TIMESTAMP,
                              PROTO_COMPACT_SCHED_SWITCH_PREV_STATE,
                              PROTO_COMPACT_SCHED_SWITCH_NEXT_PID,
                              PROTO_COMPACT_SCHED_SWITCH_NEXT_PRIO,
                              PROTO_COMPACT_SCHED_SWITCH_NEXT_COMM_INDEX};
  for (int i = 0; i < 5; i++) proto_packed_init(&it[i], c->col[cols[i]]);
  int64_t ts = 0;
  for (;;) {
    uint64_t v[5];
    int got = 0;
    for (int i = 0; i < 5; i++) got += proto_packed_next_varint(&it[i], &v[i]) == 1;
    if (got == 0) return WEFT_OK;
    if (got != 5 || v[4] >= s->intern.len) {
      import_stat(f, stat_compact_sched_has_parse_errors, 1);
      return WEFT_OK;
    }
    ts += (int64_t)v[0];
    proto_ftrace_rec rec = *base;
    rec.kind = PROTO_FTRACE_COMPACT_SWITCH;
    rec.raw_ts = ts;
    rec.event = s->intern.data[v[4]];
    rec.a = (int64_t)v[1];
    rec.b = (int32_t)(uint32_t)v[2];
    rec.c = (int32_t)(uint32_t)v[3];
    int rc = proto_ftrace_push(f, s, &rec);
    if (rc) return rc;
  }
}

static int proto_compact_wakings(import_file *f, proto_ftrace_state *s,
                                 proto_ftrace_rec *base, const proto_compact_cols *c) {
  proto_packed_iter it[6];
  static const int cols[6] = {PROTO_COMPACT_SCHED_WAKING_TIMESTAMP,
                              PROTO_COMPACT_SCHED_WAKING_PID,
                              PROTO_COMPACT_SCHED_WAKING_TARGET_CPU,
                              PROTO_COMPACT_SCHED_WAKING_PRIO,
                              PROTO_COMPACT_SCHED_WAKING_COMM_INDEX,
                              PROTO_COMPACT_SCHED_WAKING_COMMON_FLAGS};
  int has_flags = c->has[PROTO_COMPACT_SCHED_WAKING_COMMON_FLAGS];
  int n = has_flags ? 6 : 5;
  for (int i = 0; i < n; i++) proto_packed_init(&it[i], c->col[cols[i]]);
  int64_t ts = 0;
  for (;;) {
    uint64_t v[6] = {0};
    int got = 0;
    for (int i = 0; i < n; i++) got += proto_packed_next_varint(&it[i], &v[i]) == 1;
    if (got == 0) return WEFT_OK;
    if (got != n || v[4] >= s->intern.len) {
      import_stat(f, stat_compact_sched_has_parse_errors, 1);
      return WEFT_OK;
    }
    ts += (int64_t)v[0];
    proto_ftrace_rec rec = *base;
    rec.kind = PROTO_FTRACE_COMPACT_WAKING;
    rec.raw_ts = ts;
    rec.event = s->intern.data[v[4]];
    rec.a = (int32_t)(uint32_t)v[1];
    rec.b = (int32_t)(uint32_t)v[2];
    rec.c = (int32_t)(uint32_t)v[3];
    rec.d = has_flags ? (int64_t)(uint32_t)v[5] : -1;
    int rc = proto_ftrace_push(f, s, &rec);
    if (rc) return rc;
  }
}

static int proto_ftrace_machine_latest(proto_ftrace_state *s, uint32_t machine,
                                       uint32_t clock, int64_t raw) {
  for (size_t i = 0; i < s->latest_by_machine.len; i++) {
    proto_ftrace_latest *l = &s->latest_by_machine.data[i];
    if (l->machine != machine) continue;
    if (l->clock == clock && raw > l->raw) l->raw = raw;
    return WEFT_OK;
  }
  if (s->latest_by_machine.len >= PROTO_FTRACE_MAX_MACHINES) return WEFT_OK;
  proto_ftrace_latest l = {machine, clock, raw};
  return VEC_PUSH(s->latest_by_machine, l) ? WEFT_ENOMEM : WEFT_OK;
}

static int proto_ftrace_first_bundle(import_file *f, proto_ftrace_state *s,
                                     const proto_ftrace_bundle *b, uint32_t machine,
                                     uint32_t clock) {
  uint64_t *slot;
  int ins = base_map_insert(&s->cpu_seen, ((uint64_t)machine << 32 | b->cpu) + 1, 1, &slot);
  (void)f;
  if (ins < 0) return WEFT_ENOMEM;
  if (ins != 1 || !b->has_valid_from) return WEFT_OK;
  int rc = proto_ftrace_machine_latest(s, machine, clock, b->valid_from);
  if (rc) return rc;
  if (!s->has_latest || (clock == s->latest_clock && b->valid_from > s->latest_raw)) {
    s->has_latest = 1;
    s->latest_raw = b->valid_from;
    s->latest_clock = clock;
  }
  return WEFT_OK;
}

int proto_ftrace_tokenize_end(import_file *f) {
  proto_import_state *st = f->state;
  proto_ftrace_state *s = st ? st->ftrace : NULL;
  for (size_t i = 0; s && i < s->latest_by_machine.len; i++) {
    const proto_ftrace_latest *l = &s->latest_by_machine.data[i];
    proto_ftrace_rec rec;
    memset(&rec, 0, sizeof rec);
    rec.kind = PROTO_FTRACE_LATEST_START;
    rec.raw_ts = l->raw;
    rec.machine = l->machine;
    rec.clock = l->clock;
    if (VEC_PUSH(s->recs, rec)) return WEFT_ENOMEM;
    int rc = import_push_untimed(f, l->raw, l->clock,
                                 PROTO_FTRACE_SIDE | (uint64_t)(s->recs.len - 1));
    if (rc) return rc;
  }
  return WEFT_OK;
}

int proto_ftrace_tokenize(import_file *f, proto_span bundle, uint32_t seq,
                          uint32_t generation, uint32_t machine,
                          base_error *err) {
  proto_ftrace_state *s = proto_ftrace_get(f);
  if (!s) return base_error_nomem(err);
  proto_ftrace_bundle b;
  proto_ftrace_bundle_read(bundle, &b);
  if (!b.has_cpu || b.cpu >= PROTO_FTRACE_MAX_CPU) {
    import_stat(f, stat_ftrace_bundle_tokenizer_errors, 1);
    return WEFT_OK;
  }
  if (b.lost_events)
    stats_set(&f->ctx->stats, stat_ftrace_cpu_has_data_loss, b.cpu, machine,
              f->trace_id, 1);
  proto_ftrace_rec base;
  memset(&base, 0, sizeof base);
  base.cpu = b.cpu;
  base.machine = machine;
  base.seq = seq;
  base.generation = generation;
  int rc = proto_ftrace_bundle_clock(f, &b, machine, &base.clock, err);
  if (rc) return rc;
  proto_compact_cols cols;
  if (!rc && b.has_compact) rc = proto_compact_read(s, b.compact, &cols);
  if (!rc && b.has_compact) rc = proto_compact_switches(f, s, &base, &cols);
  if (!rc && b.has_compact) rc = proto_compact_wakings(f, s, &base, &cols);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, bundle);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_FTRACE_EVENT_BUNDLE_EVENT || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_ftrace_rec rec = base;
    rc = proto_ftrace_tokenize_event(f, s, &rec, fl.span);
  }
  if (!rc) rc = proto_ftrace_first_bundle(f, s, &b, machine, base.clock);
  if (rc) return base_error_alloc(err, rc);
  return WEFT_OK;
}

int proto_ftrace_service_event(import_file *f, proto_span event, int64_t ts,
                               uint32_t clock) {
  proto_field fl;
  if (proto_find_last(event.data, event.len, PROTO_SERVICE_EVENT_TRACING_STARTED, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT || !fl.value)
    return WEFT_OK;
  proto_ftrace_state *s = proto_ftrace_get(f);
  if (!s) return WEFT_ENOMEM;
  s->has_started = 1;
  s->started_raw = ts;
  s->started_clock = clock;
  return WEFT_OK;
}

/* ---- parse ---- */

static void proto_ftrace_fields_read(proto_span msg, proto_ftrace_fields *o) {
  memset(o, 0, sizeof *o);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number >= PROTO_FTRACE_MAX_FIELDS) continue;
    o->has |= 1u << fl.number;
    if (fl.wire_type == PROTO_WIRE_LEN) o->s[fl.number] = fl.span;
    else o->v[fl.number] = fl.value;
  }
}

#define HAS(fs, n) (((fs)->has >> (n)) & 1u)
#define I32(fs, n) ((int64_t)(int32_t)(uint32_t)(fs)->v[n])
#define STR(fs, n) (const char *)(fs)->s[n].data, (fs)->s[n].len

typedef struct proto_ftrace_ctx {
  import_file *f;
  const proto_ftrace_rec *rec;
  kernel_scope scope;
  int64_t ts;
  uint32_t cpu;
  int64_t pid;
  int64_t common_flags;
  proto_span payload; /* the event's message */
} proto_ftrace_ctx;

/* Fields holding a kernel function address (symbolized when interned). */
static int proto_ftrace_is_kernel_fn(uint32_t event, uint32_t field) {
  return (event == PROTO_FTRACE_EVENT_SCHED_BLOCKED_REASON && field == 2) ||
         ((event == 57 || event == 58 || event == 59) && field == 2) ||
         (event == PROTO_FTRACE_EVENT_FUNCGRAPH_ENTRY && field == PROTO_FUNCGRAPH_ENTRY_FUNC) ||
         (event == PROTO_FTRACE_EVENT_FUNCGRAPH_EXIT && field == PROTO_FUNCGRAPH_EXIT_FUNC);
}

static string_id proto_ftrace_symbol(const proto_ftrace_ctx *p, uint64_t iid) {
  return proto_interned(p->f->state, p->rec->seq, p->rec->generation,
                        PROTO_INTERN_KERNEL_SYMBOL, iid);
}

static int proto_ftrace_raw(proto_ftrace_ctx *p, const ftrace_event_desc *d,
                            proto_span payload) {
  trace_context *ctx = p->f->ctx;
  uint32_t utid;
  int rc = sched_thread(ctx, p->scope.machine, p->pid, NULL, 0, &utid);
  if (rc) return rc;
  proto_reader r;
  proto_field fl;
  ftrace_desc_cursor cursor = {NULL, 0};
  proto_reader_init_span(&r, payload);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    ftrace_field_desc field;
    if (!ftrace_desc_field_seek(d, &cursor, fl.number, &field)) continue;
    const ftrace_field_desc *fd = &field;
    size_t klen = fd->name_len;
    string_id sym = fl.wire_type == PROTO_WIRE_VARINT && proto_ftrace_is_kernel_fn(d->id, fl.number)
                        ? proto_ftrace_symbol(p, fl.value) : STRING_NULL;
    if (sym != STRING_NULL) {
      rc = model_arg_string(ctx, fd->name, klen, base_string_pool_get(&ctx->strings, sym),
                            base_string_pool_len(&ctx->strings, sym), MODEL_ARG_STRING);
    } else if (fd->type == FTRACE_FIELD_STR) {
      if (fl.wire_type == PROTO_WIRE_LEN)
        rc = model_arg_string(ctx, fd->name, klen, (const char *)fl.span.data,
                              fl.span.len, MODEL_ARG_STRING);
    } else if (fl.wire_type == PROTO_WIRE_VARINT) {
      rc = model_arg_int(ctx, fd->name, klen,
                         fd->type == FTRACE_FIELD_UINT ? MODEL_ARG_UINT : MODEL_ARG_INT,
                         (int64_t)fl.value);
    }
  }
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return sched_raw_event(ctx, p->scope.machine, p->ts, p->cpu, utid, d->name,
                         p->common_flags);
}

/* B/E/C points from the kernel's tracing_mark_write look-alikes. */
static int proto_ftrace_kernel_mark(proto_ftrace_ctx *p, char phase, int64_t tgid,
                                    const char *name, size_t len, int64_t value) {
  atrace_point pt;
  memset(&pt, 0, sizeof pt);
  pt.phase = phase;
  pt.tgid = tgid;
  pt.name = name ? name : "";
  pt.name_len = name ? len : 0;
  pt.value = value;
  if (phase != 'B' && phase != 'E' && phase != 'C')
    return kernel_stat(p->f->ctx, &p->scope, stat_systrace_parse_failure, 1);
  return atrace_apply(p->f->ctx, &p->scope, p->ts, p->pid, &pt);
}

static int proto_ftrace_sched_switch(proto_ftrace_ctx *p, const proto_ftrace_fields *fs) {
  sched_switch_event e;
  memset(&e, 0, sizeof e);
  e.ts = p->ts;
  e.cpu = p->cpu;
  e.prev_comm = (const char *)fs->s[1].data;
  e.prev_comm_len = fs->s[1].len;
  e.prev_pid = I32(fs, 2);
  e.prev_prio = I32(fs, 3);
  e.prev_state = (int64_t)fs->v[4];
  e.next_comm = (const char *)fs->s[5].data;
  e.next_comm_len = fs->s[5].len;
  e.next_pid = I32(fs, 6);
  e.next_prio = I32(fs, 7);
  return sched_switch(p->f->ctx, &p->scope, &e);
}

/* sched_cpu_util_cfs: per-cpu utilization, capacity and runnable counters. */
static int proto_ftrace_cpu_util(proto_ftrace_ctx *p, const proto_ftrace_fields *fs) {
  static const struct { const char *fmt, *type; int field; } counters[] = {
      {"Cpu %u Util", "cpu_utilization", 6},
      {"Cpu %u Cap", "cpu_capacity", 2},
      {"Cpu %u Nr Running", "cpu_nr_running", 11}};
  uint32_t cpu = (uint32_t)fs->v[4];
  for (size_t i = 0; i < sizeof counters / sizeof *counters; i++) {
    char name[64];
    snprintf(name, sizeof name, counters[i].fmt, cpu);
    int rc = sched_cpu_counter(p->f->ctx, &p->scope, p->ts, cpu, name, counters[i].type,
                               (double)fs->v[counters[i].field]);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* kprobe_event: slices on the probing thread's track. */
#define PROTO_SYS_ENTER_MAX_ARGS 64

/* sys_enter: id 1, repeated args 2 (packed or not; the kernel writes 6, and
 * more than PROTO_SYS_ENTER_MAX_ARGS are not read). */
static int proto_ftrace_sys_enter(proto_ftrace_ctx *p, int64_t number) {
  uint64_t args[PROTO_SYS_ENTER_MAX_ARGS];
  size_t n = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, p->payload);
  while (n < PROTO_SYS_ENTER_MAX_ARGS && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != 2) continue;
    if (fl.wire_type == PROTO_WIRE_VARINT) {
      args[n++] = fl.value;
    } else if (fl.wire_type == PROTO_WIRE_LEN) {
      proto_packed_iter it;
      uint64_t v;
      proto_packed_init(&it, fl.span);
      while (n < PROTO_SYS_ENTER_MAX_ARGS && proto_packed_next_varint(&it, &v) == 1) args[n++] = v;
    }
  }
  return kslice_sys_enter(p->f->ctx, &p->scope, p->ts, p->pid, number, args, n);
}

static int proto_ftrace_kprobe(proto_ftrace_ctx *p, const proto_ftrace_fields *fs) {
  trace_context *ctx = p->f->ctx;
  uint32_t utid, track, slice;
  int64_t ended;
  string_id name;
  int rc = sched_thread(ctx, p->scope.machine, p->pid, NULL, 0, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = ctx_intern(ctx, STR(fs, 1), &name);
  if (rc) return rc;
  switch (fs->v[2]) {
    case PROTO_KPROBE_TYPE_BEGIN:
      return model_slice_begin(ctx, track, p->ts, STRING_NULL, name, -1, &slice);
    case PROTO_KPROBE_TYPE_END:
      return model_slice_end(ctx, track, p->ts, &ended);
    case PROTO_KPROBE_TYPE_INSTANT:
      return model_slice_complete(ctx, track, p->ts, 0, STRING_NULL, name, -1, &slice);
    default:
      return WEFT_OK;
  }
}

/* funcgraph_entry / _exit: the function is an interned kernel symbol, or
 * its address in hex when not interned. */
static int proto_ftrace_funcgraph(proto_ftrace_ctx *p, int is_entry,
                                  const proto_ftrace_fields *fs) {
  trace_context *ctx = p->f->ctx;
  uint32_t field = is_entry ? PROTO_FUNCGRAPH_ENTRY_FUNC : PROTO_FUNCGRAPH_EXIT_FUNC;
  uint64_t func = fs->v[field];
  string_id name = proto_ftrace_symbol(p, func);
  if (name == STRING_NULL) {
    char hex[24];
    int n = func ? snprintf(hex, sizeof hex, "0x%" PRIx64, func) : snprintf(hex, sizeof hex, "0");
    int rc = ctx_intern(ctx, hex, (size_t)n, &name);
    if (rc) return rc;
  }
  return kslice_funcgraph(ctx, &p->scope, p->ts, p->cpu, p->pid, is_entry, name);
}

/* workqueue_execute_start: the work function's symbol, or its address. */
static int proto_ftrace_workqueue(proto_ftrace_ctx *p, uint64_t function) {
  trace_context *ctx = p->f->ctx;
  string_id name = proto_ftrace_symbol(p, function);
  char hex[24];
  const char *fn = hex;
  size_t len;
  if (name != STRING_NULL) {
    fn = base_string_pool_get(&ctx->strings, name);
    len = base_string_pool_len(&ctx->strings, name);
  } else {
    len = (size_t)(function ? snprintf(hex, sizeof hex, "0x%" PRIx64, function)
                            : snprintf(hex, sizeof hex, "0"));
  }
  return kslice_workqueue(ctx, &p->scope, p->ts, p->pid, p->cpu, fn, len);
}

/* Events of model/kcounter.h and the newer model/kslice.h kinds. */
static int proto_ftrace_dispatch_more(proto_ftrace_ctx *p, uint32_t id,
                                      const proto_ftrace_fields *fs) {
  trace_context *ctx = p->f->ctx;
  const kernel_scope *sc = &p->scope;
  switch (id) {
    case PROTO_FTRACE_EVENT_CLOCK_ENABLE:
    case PROTO_FTRACE_EVENT_CLOCK_DISABLE:
    case PROTO_FTRACE_EVENT_CLOCK_SET_RATE:
      return kcounter_device(ctx, sc, p->ts, id == PROTO_FTRACE_EVENT_CLOCK_SET_RATE
                                                 ? KCOUNTER_CLOCK_FREQUENCY
                                                 : KCOUNTER_CLOCK_STATE,
                             STR(fs, 1), (double)fs->v[2]);
    case PROTO_FTRACE_EVENT_THERMAL_TEMPERATURE:
      return kcounter_device(ctx, sc, p->ts, KCOUNTER_THERMAL_TEMPERATURE, STR(fs, 4),
                             (double)I32(fs, 2));
    case PROTO_FTRACE_EVENT_CDEV_UPDATE:
      return kcounter_device(ctx, sc, p->ts, KCOUNTER_COOLING_DEVICE, STR(fs, 2),
                             (double)fs->v[1]);
    case PROTO_FTRACE_EVENT_OOM_SCORE_ADJ_UPDATE:
      return kcounter_oom_score_adj(ctx, sc, p->ts, I32(fs, 3), (double)I32(fs, 2));
    case PROTO_FTRACE_EVENT_MARK_VICTIM:
      return kslice_oom_kill(ctx, sc, p->ts, I32(fs, 1));
    case PROTO_FTRACE_EVENT_SIGNAL_GENERATE:
      return kslice_signal(ctx, sc, p->ts, I32(fs, 4), 1, I32(fs, 6));
    case PROTO_FTRACE_EVENT_SIGNAL_DELIVER:
      return kslice_signal(ctx, sc, p->ts, p->pid, 0, I32(fs, 3));
    case PROTO_FTRACE_EVENT_BLOCK_IO_START:
    case PROTO_FTRACE_EVENT_BLOCK_IO_DONE:
      return kslice_block_io(ctx, sc, p->ts, fs->v[1], fs->v[2],
                             id == PROTO_FTRACE_EVENT_BLOCK_IO_START);
    case PROTO_FTRACE_EVENT_WORKQUEUE_EXECUTE_START:
      return proto_ftrace_workqueue(p, fs->v[2]);
    case PROTO_FTRACE_EVENT_BINDER_TRANSACTION: {
      char code[16];
      int n = snprintf(code, sizeof code, "0x%02x", (uint32_t)fs->v[6]);
      kslice_binder_txn t = {I32(fs, 1), I32(fs, 2), (uint32_t)I32(fs, 3), (uint32_t)I32(fs, 4),
                             I32(fs, 5) == 1, (uint32_t)fs->v[7], code, (size_t)n};
      return kslice_binder_transaction(ctx, sc, p->ts, p->pid, &t);
    }
    case PROTO_FTRACE_EVENT_BINDER_TRANSACTION_RECEIVED:
      return kslice_binder_received(ctx, sc, p->ts, p->pid, I32(fs, 1));
    case PROTO_FTRACE_EVENT_BINDER_COMMAND:
      return kslice_binder_command(ctx, sc, p->pid, (uint32_t)fs->v[1]);
    case PROTO_FTRACE_EVENT_BINDER_RETURN:
      return kslice_binder_return(ctx, sc, p->ts, p->pid, (uint32_t)fs->v[1]);
    case PROTO_FTRACE_EVENT_BINDER_LOCK:
    case PROTO_FTRACE_EVENT_BINDER_LOCKED:
    case PROTO_FTRACE_EVENT_BINDER_UNLOCK:
      return kslice_binder_lock(ctx, sc, p->ts, p->pid,
                                id == PROTO_FTRACE_EVENT_BINDER_LOCK     ? KSLICE_BINDER_LOCK
                                : id == PROTO_FTRACE_EVENT_BINDER_LOCKED ? KSLICE_BINDER_LOCKED
                                                                         : KSLICE_BINDER_UNLOCK);
    case PROTO_FTRACE_EVENT_WORKQUEUE_EXECUTE_END:
      return kslice_workqueue(ctx, sc, p->ts, p->pid, -1, NULL, 0);
    case PROTO_FTRACE_EVENT_WAKEUP_SOURCE_ACTIVATE:
    case PROTO_FTRACE_EVENT_WAKEUP_SOURCE_DEACTIVATE:
      return kpower_wakelock(ctx, sc, p->ts, STR(fs, 1),
                             id == PROTO_FTRACE_EVENT_WAKEUP_SOURCE_ACTIVATE);
    case PROTO_FTRACE_EVENT_SUSPEND_RESUME:
      return kpower_suspend_resume(ctx, sc, p->ts, p->cpu, p->pid, STR(fs, 1), I32(fs, 2),
                                   fs->v[3] != 0);
    default:
    {
      int rc = proto_ftrace_gpu(ctx, sc, p->ts, p->pid, id, fs);
      if (!rc) rc = proto_ftrace_dev(ctx, sc, p->ts, p->pid, p->cpu, id, fs, p->payload);
      return rc ? rc : proto_android_ftrace(ctx, sc->machine, p->ts, p->pid, id, fs->v, fs->s);
    }
  }
}

static int proto_ftrace_dispatch(proto_ftrace_ctx *p, uint32_t id,
                                 const proto_ftrace_fields *fs) {
  trace_context *ctx = p->f->ctx;
  const kernel_scope *sc = &p->scope;
  switch (id) {
    case PROTO_FTRACE_EVENT_PRINT: {
      int rc = kslice_syscall_print(ctx, sc, p->ts, p->pid);
      return rc ? rc : atrace_print(ctx, sc, p->ts, p->pid, STR(fs, PROTO_PRINT_BUF));
    }
    case PROTO_FTRACE_EVENT_SCHED_SWITCH:
      return proto_ftrace_sched_switch(p, fs);
    case PROTO_FTRACE_EVENT_CPU_FREQUENCY:
      return sched_cpu_counter(ctx, sc, p->ts, (uint32_t)fs->v[2], "cpufreq",
                               "cpu_frequency", (double)(uint32_t)fs->v[1]);
    case PROTO_FTRACE_EVENT_CPU_IDLE:
      return sched_cpu_counter(ctx, sc, p->ts, (uint32_t)fs->v[2], "cpuidle",
                               "cpu_idle", (double)(uint32_t)fs->v[1]);
    case PROTO_FTRACE_EVENT_CPU_FREQUENCY_LIMITS:
      return kcounter_freq_limits(ctx, sc, p->ts, (uint32_t)fs->v[3],
                                  (double)(uint32_t)fs->v[1], (double)(uint32_t)fs->v[2]);
    case PROTO_FTRACE_EVENT_SCHED_WAKING:
      return sched_waking(ctx, sc, p->ts, p->pid, I32(fs, 2), STR(fs, 1),
                          p->common_flags);
    case PROTO_FTRACE_EVENT_SCHED_BLOCKED_REASON: {
      string_id fn = HAS(fs, 2) ? proto_ftrace_symbol(p, fs->v[2]) : STRING_NULL;
      return sched_blocked_reason(ctx, sc, I32(fs, 1),
                                  HAS(fs, 3) ? (int64_t)(fs->v[3] != 0) : -1,
                                  base_string_pool_get(&ctx->strings, fn),
                                  base_string_pool_len(&ctx->strings, fn));
    }
    case PROTO_FTRACE_EVENT_TASK_NEWTASK:
      return sched_task_newtask(ctx, sc, p->ts, p->pid, I32(fs, 1), STR(fs, 2), fs->v[3]);
    case PROTO_FTRACE_EVENT_TASK_RENAME:
      return sched_task_rename(ctx, sc, I32(fs, 1), STR(fs, 3));
    case PROTO_FTRACE_EVENT_SCHED_PROCESS_FREE:
      return sched_process_free(ctx, sc, p->ts, I32(fs, 2));
    case PROTO_FTRACE_EVENT_RSS_STAT:
      return sched_rss_stat(ctx, sc, p->ts, p->pid, I32(fs, 1), (int64_t)fs->v[2],
                            HAS(fs, 3) ? (int64_t)(uint32_t)fs->v[3] : -1,
                            HAS(fs, 4) ? (int64_t)(uint32_t)fs->v[4] : -1);
    case PROTO_FTRACE_EVENT_TRACING_MARK_WRITE:
      return proto_ftrace_kernel_mark(p, fs->v[3] ? 'B' : 'E', I32(fs, 1), STR(fs, 2), 0);
    case PROTO_FTRACE_EVENT_SDE_TRACING_MARK_WRITE: {
      char phase = fs->v[3] ? (char)fs->v[3] : (fs->v[5] ? 'B' : 'E');
      return proto_ftrace_kernel_mark(p, phase, I32(fs, 1), STR(fs, 2), I32(fs, 4));
    }
    case PROTO_FTRACE_EVENT_MALI_TRACING_MARK_WRITE: /* name 1, pid 2, type 3, value 4 */
      return proto_ftrace_kernel_mark(p, (char)fs->v[3], I32(fs, 2), STR(fs, 1), I32(fs, 4));
    case PROTO_FTRACE_EVENT_LWIS_TRACING_MARK_WRITE: /* type 2, pid 3, func_name 4, value 5 */
      return proto_ftrace_kernel_mark(p, (char)fs->v[2], I32(fs, 3), STR(fs, 4), I32(fs, 5));
    case PROTO_FTRACE_EVENT_G2D_TRACING_MARK_WRITE: /* pid 1, name 4, type 5, value 6 */
    case PROTO_FTRACE_EVENT_PANEL_WRITE_GENERIC:
    case PROTO_FTRACE_EVENT_DPU_TRACING_MARK_WRITE: /* its pid: the process of counters only */
      return proto_ftrace_kernel_mark(p, (char)fs->v[5],
          id == PROTO_FTRACE_EVENT_DPU_TRACING_MARK_WRITE && fs->v[5] != 'C' ? 0 : I32(fs, 1),
          STR(fs, 4), I32(fs, 6));
    case PROTO_FTRACE_EVENT_SCHED_CPU_UTIL_CFS:
      return proto_ftrace_cpu_util(p, fs);
    case PROTO_FTRACE_EVENT_KPROBE_EVENT:
      return proto_ftrace_kprobe(p, fs);
    case PROTO_FTRACE_EVENT_FUNCGRAPH_ENTRY:
    case PROTO_FTRACE_EVENT_FUNCGRAPH_EXIT:
      return proto_ftrace_funcgraph(p, id == PROTO_FTRACE_EVENT_FUNCGRAPH_ENTRY, fs);
    case PROTO_FTRACE_EVENT_IRQ_HANDLER_ENTRY:
      return kslice_irq_entry(ctx, sc, p->ts, p->cpu, STR(fs, 2));
    case PROTO_FTRACE_EVENT_IRQ_HANDLER_EXIT:
      return kslice_irq_exit(ctx, sc, p->ts, p->cpu, I32(fs, 2));
    case PROTO_FTRACE_EVENT_SOFTIRQ_ENTRY:
      return kslice_softirq_entry(ctx, sc, p->ts, p->cpu, (int64_t)(uint32_t)fs->v[1]);
    case PROTO_FTRACE_EVENT_SOFTIRQ_EXIT:
      return kslice_softirq_exit(ctx, sc, p->ts, p->cpu, (int64_t)(uint32_t)fs->v[1]);
    case PROTO_FTRACE_EVENT_SYS_ENTER:
      return proto_ftrace_sys_enter(p, (int64_t)fs->v[1]);
    case PROTO_FTRACE_EVENT_SYS_EXIT:
      return kslice_sys_exit(ctx, sc, p->ts, p->pid, (int64_t)fs->v[1], (fs->has >> 2) & 1,
                             (int64_t)fs->v[2]);
    case PROTO_FTRACE_EVENT_KGSL_ADRENO_CMDBATCH_SYNC:
      return kslice_adreno_sync(ctx, sc, p->ts, fs->v[3]);
    case PROTO_FTRACE_EVENT_KGSL_ADRENO_CMDBATCH_RETIRED:
      return kslice_adreno_retired(ctx, sc, p->pid, (int64_t)(uint32_t)fs->v[1],
                                   (int64_t)(uint32_t)fs->v[8], fs->v[6], fs->v[7]);
    case PROTO_FTRACE_EVENT_ZERO: {
      int64_t flag = I32(fs, 1);
      char phase = (flag & 1) ? 'B' : (flag & 2) ? 'E' : (flag & 4) ? 'C' : 0;
      return proto_ftrace_kernel_mark(p, phase, I32(fs, 3), STR(fs, 2), (int64_t)fs->v[4]);
    }
    default:
      return proto_ftrace_dispatch_more(p, id, fs);
  }
}

/* An FtraceEvent's own fields: its task's pid and common_flags, and its
 * one event message (the first message field; id = its field number). */
typedef struct proto_ftrace_head {
  int64_t pid, common_flags;
  int has_pid, has_common_flags;
  uint32_t id;
  proto_span payload;
} proto_ftrace_head;

static void proto_ftrace_head_read(proto_span ev, proto_ftrace_head *h) {
  proto_reader r;
  proto_field fl;
  memset(h, 0, sizeof *h);
  proto_reader_init_span(&r, ev);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_FTRACE_EVENT_PID && fl.wire_type == PROTO_WIRE_VARINT) {
      h->pid = (int64_t)(uint32_t)fl.value;
      h->has_pid = 1;
    } else if (fl.number == PROTO_FTRACE_EVENT_COMMON_FLAGS && fl.wire_type == PROTO_WIRE_VARINT) {
      h->common_flags = (int64_t)(uint32_t)fl.value;
      h->has_common_flags = 1;
    } else if (!h->id && fl.wire_type == PROTO_WIRE_LEN) {
      h->id = fl.number;
      h->payload = fl.span;
    }
  }
}

/* An FtraceEvent decoded: its head, and its event message's fields. */
typedef struct proto_ftrace_decoded {
  proto_ftrace_head head;
  proto_ftrace_fields fields;
} proto_ftrace_decoded;

static void proto_ftrace_decode(proto_span ev, proto_ftrace_decoded *d) {
  proto_ftrace_head_read(ev, &d->head);
  proto_ftrace_fields_read(d->head.payload, &d->fields);
}

/* The event of record p->rec; `d`: it decoded ahead (proto_ftrace_prepare),
 * or NULL. */
static int proto_ftrace_event(proto_ftrace_ctx *p, proto_span ev, int soft,
                              const proto_ftrace_decoded *d) {
  proto_ftrace_decoded read;
  if (!d) {
    proto_ftrace_decode(ev, &read);
    d = &read;
  }
  const proto_ftrace_head *h = &d->head;
  if (h->has_pid) p->pid = h->pid;
  if (h->has_common_flags) p->common_flags = h->common_flags;
  if (!h->id) return import_stat(p->f, stat_ftrace_missing_event_id, 1);
  if (!h->has_pid) return WEFT_OK;
  if (p->rec->kind == PROTO_FTRACE_ACPM_BULK) /* its counters only */
    return soft ? WEFT_OK : proto_ftrace_acpm_bulk(p->f->ctx, &p->scope, p->ts, &d->fields);
  const ftrace_event_desc *desc = ftrace_desc_by_id(h->id);
  if (desc && h->id != PROTO_FTRACE_EVENT_SCHED_SWITCH) {
    int rc = proto_ftrace_raw(p, desc, h->payload);
    if (rc) return rc;
  }
  if (soft) return WEFT_OK;
  p->payload = h->payload;
  return proto_ftrace_dispatch(p, h->id, &d->fields);
}

/* The record of a queued event: its side record, or *tmp rebuilt from its
 * reference; NULL if it does not resolve. */
static const proto_ftrace_rec *proto_ftrace_rec_of(const proto_import_state *st,
                                                   const proto_ftrace_state *s,
                                                   const sort_event *event,
                                                   proto_ftrace_rec *tmp) {
  if ((event->payload & PROTO_FTRACE_SIDE) == PROTO_FTRACE_SIDE) {
    uint64_t index = event->payload & ~PROTO_FTRACE_SIDE;
    return index < s->recs.len ? &s->recs.data[index] : NULL;
  }
  const proto_ref_ctx *c;
  memset(tmp, 0, sizeof *tmp);
  if (!proto_ref_resolve(&st->refs, event->payload & ~PROTO_REF_FTRACE, &tmp->event, &c,
                         &tmp->buffer))
    return NULL;
  tmp->kind = PROTO_FTRACE_EVENT;
  tmp->raw_ts_unread = 1; /* tokenize found it there; read only if needed */
  tmp->machine = c->machine;
  tmp->clock = event->clock;
  tmp->cpu = c->cpu;
  tmp->seq = c->seq;
  tmp->generation = c->generation;
  return tmp;
}

/* What proto_ftrace_prepare decodes of an event ahead of its parse. */
typedef struct proto_ftrace_prepared {
  proto_ftrace_rec rec;       /* the event's record, resolved */
  int decoded;                /* an FtraceEvent record: */
  proto_ftrace_decoded event; /* its fields */
} proto_ftrace_prepared;

/* Records applied as an FtraceEvent (proto_ftrace_apply's default). */
static int proto_ftrace_is_event(const proto_ftrace_rec *rec) {
  return rec->kind != PROTO_FTRACE_LATEST_START && rec->kind != PROTO_FTRACE_COMPACT_SWITCH &&
         rec->kind != PROTO_FTRACE_COMPACT_WAKING;
}

size_t proto_ftrace_prepare(const import_file *f, const sort_event *event, void *out) {
  _Static_assert(sizeof(proto_ftrace_prepared) <= IMPORT_PREPARED_MAX, "fits a prepared slot");
  const proto_import_state *st = f->state;
  const proto_ftrace_state *s = st->ftrace;
  proto_ftrace_prepared *pf = out;
  const proto_ftrace_rec *rec = s ? proto_ftrace_rec_of(st, s, event, &pf->rec) : NULL;
  if (!rec) return 0;
  if (rec != &pf->rec) pf->rec = *rec;
  pf->decoded = proto_ftrace_is_event(rec);
  if (pf->decoded) proto_ftrace_decode(rec->event, &pf->event);
  return sizeof *pf;
}

static int proto_ftrace_apply(import_file *f, const proto_ftrace_rec *rec,
                              const sort_event *event, const proto_ftrace_decoded *decoded,
                              base_error *err);

int proto_ftrace_parse(import_file *f, const sort_event *event, void *prepared,
                       base_error *err) {
  proto_import_state *st = f->state;
  proto_ftrace_state *s = st->ftrace;
  proto_ftrace_prepared *pf = prepared;
  proto_ftrace_rec resolved;
  const proto_ftrace_rec *rec = pf  ? &pf->rec
                                : s ? proto_ftrace_rec_of(st, s, event, &resolved)
                                    : NULL;
  if (!rec) return WEFT_OK;
  int rc = proto_ftrace_apply(f, rec, event, pf && pf->decoded ? &pf->event : NULL, err);
  if (rec->event.data) proto_input_release(f, rec->buffer, rec->event);
  return rc;
}

/* The raw timestamp of rec (what the tracing-start checks compare). */
static int64_t proto_ftrace_raw_ts(const proto_ftrace_rec *rec) {
  proto_field fl;
  if (!rec->raw_ts_unread) return rec->raw_ts;
  if (proto_find_first(rec->event.data, rec->event.len, PROTO_FTRACE_EVENT_TIMESTAMP, &fl) != 1)
    return 0; /* not reached: tokenize queued the event by this field */
  return (int64_t)fl.value;
}

static int proto_ftrace_apply(import_file *f, const proto_ftrace_rec *rec,
                              const sort_event *event, const proto_ftrace_decoded *decoded,
                              base_error *err) {
  proto_ftrace_state *s = ((proto_import_state *)f->state)->ftrace;
  if (rec->kind == PROTO_FTRACE_LATEST_START) {
    int rc = ctx_metadata_set_int(f->ctx, "ftrace_latest_data_start_ns", event->ts,
                                  model_machine_column(rec->machine), f->trace_id);
    return base_error_alloc(err, rc);
  }
  proto_ftrace_ctx p = {f, rec, {rec->machine, f->trace_id}, event->ts, rec->cpu, 0, -1, {0}};
  if (s->has_started && rec->clock == s->started_clock &&
      proto_ftrace_raw_ts(rec) < s->started_raw)
    return import_stat(f, stat_ftrace_packet_before_tracing_start, 1);
  int soft = s->has_latest && rec->clock == s->latest_clock &&
             proto_ftrace_raw_ts(rec) < s->latest_raw;
  trace_context *ctx = f->ctx;
  int rc;
  switch (rec->kind) {
    case PROTO_FTRACE_COMPACT_SWITCH:
      rc = sched_switch_compact(ctx, &p.scope, p.ts, rec->cpu, rec->a, rec->b, rec->c,
                                (const char *)rec->event.data, rec->event.len, soft);
      break;
    case PROTO_FTRACE_COMPACT_WAKING:
      rc = sched_waking_compact(ctx, &p.scope, p.ts, rec->cpu, rec->a, rec->b, rec->c,
                                (const char *)rec->event.data, rec->event.len, rec->d, soft);
      break;
    default:
      rc = proto_ftrace_event(&p, rec->event, soft, decoded);
      break;
  }
  /* An event the kernel model cannot place (a cpu or machine out of range)
   * is skipped and counted. */
  if (rc == WEFT_EINVAL) return import_stat(f, stat_ftrace_bundle_tokenizer_errors, 1);
  if (rc) return base_error_set(err, rc, "ftrace: failed to apply event");
  return WEFT_OK;
}
