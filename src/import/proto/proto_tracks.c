/* Track-event track model: descriptor reservations, lazy resolution and
 * track interning. See proto_tracks.h. */
#include "import/proto/proto_tracks.h"

#include "import/proto/proto_process_tree.h"

#include <assert.h>

#include "model/context.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_misc.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_translation.h"

#define PROTO_TRACKS_MAX_PROBES 8

/* TrackDescriptor fields not in proto_fields*.h */
#define PROTO_TRACK_DESCRIPTOR_ATRACE_NAME 13
#define PROTO_TRACK_DESCRIPTOR_SIBLING_MERGE_KEY 16
#define PROTO_SIBLING_MERGE_BY_NAME 1
#define PROTO_SIBLING_MERGE_NONE 2
#define PROTO_SIBLING_MERGE_BY_KEY 3
#define PROTO_COUNTER_THREAD_TIME_NS 1
#define PROTO_COUNTER_THREAD_INSTRUCTION_COUNT 2

/* ---- lookup by (machine, uuid) ---- */

static uint64_t proto_tracks_key(uint32_t machine, uint64_t uuid, uint32_t probe) {
  uint64_t k = base_hash_u64(uuid ^ base_hash_u64(((uint64_t)machine << 8) | probe));
  return k == UINT64_MAX ? 0 : k;
}

static int64_t proto_tracks_index(const proto_tracks *t, uint32_t machine, uint64_t uuid) {
  for (uint32_t probe = 0; probe < PROTO_TRACKS_MAX_PROBES; probe++) {
    uint64_t *v = base_map_find(&t->by_key, proto_tracks_key(machine, uuid, probe));
    if (!v) return -1;
    const proto_track_resv *r = &t->resv.data[*v];
    if (r->machine == machine && r->uuid == uuid) return (int64_t)*v;
  }
  return -1;
}

/* proto_tracks_index through the memo of recent lookups. */
static int64_t proto_tracks_index_memo(proto_tracks *t, uint32_t machine, uint64_t uuid) {
  uint64_t h = ((uuid ^ machine) * 0x9e3779b97f4a7c15ULL) >> 58;
  proto_tracks_memo *m = &t->memo[h & (PROTO_TRACKS_MEMO - 1)];
  if (m->used && m->uuid == uuid && m->machine == machine) return m->index;
  int64_t i = proto_tracks_index(t, machine, uuid);
  if (i >= 0) {
    m->uuid = uuid;
    m->machine = machine;
    m->used = 1;
    m->index = i;
  }
  return i;
}

const proto_track_resv *proto_tracks_find(const proto_tracks *t, uint32_t machine,
                                          uint64_t uuid) {
  int64_t i = proto_tracks_index(t, machine, uuid);
  return i < 0 ? NULL : &t->resv.data[i];
}

/* Adds a reservation; *idx = its index, or -1 if the key space is
 * exhausted (hash collisions only). */
static int proto_tracks_add(proto_tracks *t, const proto_track_resv *r, int64_t *idx) {
  *idx = -1;
  for (uint32_t probe = 0; probe < PROTO_TRACKS_MAX_PROBES; probe++) {
    uint64_t *slot;
    int ins = base_map_insert(&t->by_key, proto_tracks_key(r->machine, r->uuid, probe),
                              t->resv.len, &slot);
    if (ins < 0) return WEFT_ENOMEM;
    if (ins == 0) continue; /* another (machine, uuid): next probe */
    if (VEC_PUSH(t->resv, *r)) {
      *slot = UINT64_MAX - 1; /* unreachable index: never matches */
      return WEFT_ENOMEM;
    }
    *idx = (int64_t)(t->resv.len - 1);
    return WEFT_OK;
  }
  return WEFT_OK;
}

/* ---- tokenize: reading descriptors ---- */

static void proto_resv_init(proto_track_resv *r, uint32_t machine, uint64_t uuid) {
  memset(r, 0, sizeof *r);
  r->machine = machine;
  r->uuid = uuid;
  r->utid = r->upid = -1;
}

static int proto_resv_str(trace_context *ctx, proto_span s, string_id *out) {
  return ctx_intern(ctx, (const char *)s.data, s.len, out);
}

static const char *proto_counter_unit_name(uint64_t unit) {
  switch (unit) {
    case 1: return "ns";
    case 2: return "count";
    case 3: return "bytes";
    default: return NULL;
  }
}

static int proto_resv_intern_c(trace_context *ctx, const char *s, string_id *out) {
  return s ? ctx_intern(ctx, s, strlen(s), out) : WEFT_OK;
}

static int proto_resv_counter(trace_context *ctx, proto_span msg, proto_track_resv *r) {
  proto_reader rd;
  proto_field fl;
  uint64_t type = 0, unit = 0;
  int rc = WEFT_OK;
  r->is_counter = 1;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_COUNTER_DESCRIPTOR_TYPE: type = fl.value; break;
      case PROTO_COUNTER_DESCRIPTOR_UNIT: unit = fl.value; break;
      case PROTO_COUNTER_DESCRIPTOR_UNIT_MULTIPLIER: r->multiplier = (int64_t)fl.value; break;
      case PROTO_COUNTER_DESCRIPTOR_IS_INCREMENTAL: r->is_incremental = fl.value != 0; break;
      case PROTO_COUNTER_DESCRIPTOR_UNIT_NAME:
        if (len) rc = proto_resv_str(ctx, fl.span, &r->unit);
        break;
      case PROTO_COUNTER_DESCRIPTOR_Y_AXIS_SHARE_KEY:
        if (len) rc = proto_resv_str(ctx, fl.span, &r->y_axis_key);
        break;
      case PROTO_COUNTER_DESCRIPTOR_CATEGORIES:
        if (len && r->category == STRING_NULL) rc = proto_resv_str(ctx, fl.span, &r->category);
        break;
      default: break;
    }
  }
  if (rc) return rc;
  const char *builtin = type == PROTO_COUNTER_THREAD_TIME_NS ? "thread_time"
                        : type == PROTO_COUNTER_THREAD_INSTRUCTION_COUNT ? "thread_instruction_count"
                                                                        : NULL;
  if (builtin) {
    rc = proto_resv_intern_c(ctx, builtin, &r->builtin_type);
    if (!rc && r->name == STRING_NULL) r->name = r->builtin_type;
    if (!rc && r->unit == STRING_NULL && !unit)
      unit = type == PROTO_COUNTER_THREAD_TIME_NS ? 1 : 2;
  }
  if (!rc && r->unit == STRING_NULL) rc = proto_resv_intern_c(ctx, proto_counter_unit_name(unit), &r->unit);
  return rc;
}

/* Reads pid/tid of a Process/ThreadDescriptor; 0 if a required id is absent. */
static int proto_resv_ids(proto_span msg, int is_thread, proto_track_resv *r) {
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_THREAD_DESCRIPTOR_PID) { r->pid = proto_field_int32(&fl); r->has_pid = 1; }
    if (is_thread && fl.number == PROTO_THREAD_DESCRIPTOR_TID) {
      r->tid = proto_field_int32(&fl);
      r->has_tid = 1;
    }
  }
  return r->has_pid && (!is_thread || r->has_tid);
}

static int proto_resv_read(import_file *f, proto_span msg, proto_track_resv *r, int *has_uuid) {
  trace_context *ctx = f->ctx;
  proto_reader rd;
  proto_field fl;
  proto_span name = {NULL, 0}, static_name = {NULL, 0}, atrace_name = {NULL, 0};
  int rc = WEFT_OK;
  *has_uuid = 0;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_TRACK_DESCRIPTOR_UUID: r->uuid = fl.value; *has_uuid = 1; break;
      case PROTO_TRACK_DESCRIPTOR_PARENT_UUID: r->parent_uuid = fl.value; break;
      case PROTO_TRACK_DESCRIPTOR_NAME: if (len) name = fl.span; break;
      case PROTO_TRACK_DESCRIPTOR_STATIC_NAME: if (len) static_name = fl.span; break;
      case PROTO_TRACK_DESCRIPTOR_ATRACE_NAME: if (len) atrace_name = fl.span; break;
      case PROTO_TRACK_DESCRIPTOR_PROCESS:
        if (len && !r->has_tid && !proto_resv_ids(fl.span, 0, r))
          return import_stat(f, stat_track_descriptor_process_missing_pid, 1) ? WEFT_ENOMEM : 1;
        break;
      case PROTO_TRACK_DESCRIPTOR_THREAD:
        if (len && !proto_resv_ids(fl.span, 1, r))
          return import_stat(f, stat_track_descriptor_thread_missing_pid_tid, 1) ? WEFT_ENOMEM : 1;
        break;
      case PROTO_TRACK_DESCRIPTOR_COUNTER:
        rc = len ? proto_resv_counter(ctx, fl.span, r) : WEFT_OK;
        r->is_counter = 1;
        break;
      case PROTO_TRACK_DESCRIPTOR_DISALLOW_MERGING_WITH_SYSTEM_TRACKS:
        r->use_separate = fl.value != 0;
        break;
      case PROTO_TRACK_DESCRIPTOR_CHILD_ORDERING: r->ordering = (uint8_t)(fl.value <= 3 ? fl.value : 0); break;
      case PROTO_TRACK_DESCRIPTOR_SIBLING_ORDER_RANK:
        r->rank = proto_field_int32(&fl);
        r->has_rank = 1;
        break;
      case PROTO_TRACK_DESCRIPTOR_DESCRIPTION:
        if (len) rc = proto_resv_str(ctx, fl.span, &r->description);
        break;
      case PROTO_TRACK_DESCRIPTOR_SIBLING_MERGE_BEHAVIOR:
        r->merge = fl.value == PROTO_SIBLING_MERGE_NONE ? PROTO_MERGE_NONE
                   : fl.value == PROTO_SIBLING_MERGE_BY_KEY ? PROTO_MERGE_BY_KEY
                                                            : PROTO_MERGE_BY_NAME;
        break;
      case PROTO_TRACK_DESCRIPTOR_SIBLING_MERGE_KEY:
        if (len) rc = proto_resv_str(ctx, fl.span, &r->merge_key);
        break;
      case PROTO_TRACK_DESCRIPTOR_STATE: r->is_state = 1; break;
      default: break;
    }
  }
  if (rc) return rc;
  proto_span n = name.data ? name : static_name.data ? static_name : atrace_name;
  if (n.data) {
    string_id id;
    rc = proto_resv_str(ctx, n, &id);
    if (!rc) r->name = id; /* the descriptor's name wins over a builtin one */
  }
  if (!rc && r->merge == PROTO_MERGE_BY_KEY && r->merge_key == STRING_NULL)
    r->merge = PROTO_MERGE_BY_NAME;
  return rc;
}

static int proto_resv_same_track(const proto_track_resv *a, const proto_track_resv *b) {
  return a->parent_uuid == b->parent_uuid && a->has_pid == b->has_pid &&
         a->has_tid == b->has_tid && (!a->has_pid || a->pid == b->pid) &&
         (!a->has_tid || a->tid == b->tid) && a->is_counter == b->is_counter;
}

/* The root descriptor's process_ordering / thread_ordering. */
static void proto_tracks_root_ordering(proto_tracks *t, proto_span desc) {
  proto_field fl;
  if (proto_find_last(desc.data, desc.len, PROTO_TRACK_DESCRIPTOR_PROCESS_ORDERING, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    t->process_ranked = fl.value == PROTO_TRACK_ORDERING_EXPLICIT;
  if (proto_find_last(desc.data, desc.len, PROTO_TRACK_DESCRIPTOR_THREAD_ORDERING, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    t->thread_ranked = fl.value == PROTO_TRACK_ORDERING_EXPLICIT;
}

int proto_tracks_incremental_counter(proto_tracks *t, uint32_t machine, uint64_t uuid,
                                     int64_t *multiplier) {
  int64_t i = proto_tracks_index_memo(t, machine, uuid);
  if (i < 0 || !t->resv.data[i].is_counter || !t->resv.data[i].is_incremental) return 0;
  *multiplier = t->resv.data[i].multiplier;
  return 1;
}

int proto_tracks_reserve(import_file *f, proto_tracks *t, uint32_t machine,
                         proto_span desc) {
  proto_track_resv r;
  int has_uuid;
  proto_resv_init(&r, machine, 0);
  int rc = proto_resv_read(f, desc, &r, &has_uuid);
  if (rc) return rc > 0 ? WEFT_OK : rc;
  if (!has_uuid) return import_stat(f, stat_track_descriptor_missing_uuid, 1);
  if (r.uuid == 0 && r.parent_uuid != 0)
    return import_stat(f, stat_track_descriptor_default_track_with_parent, 1);
  if (r.uuid == 0) proto_tracks_root_ordering(t, desc);
  int64_t i = proto_tracks_index(t, machine, r.uuid);
  if (r.is_counter && r.is_incremental) t->has_incremental = 1;
  if (i < 0) return proto_tracks_add(t, &r, &i);
  proto_track_resv *old = &t->resv.data[i];
  if (!proto_resv_same_track(old, &r))
    return import_stat(f, stat_track_descriptor_conflicting_reservation, 1);
  if (r.name != STRING_NULL && (old->name == STRING_NULL || r.merge == PROTO_MERGE_NONE))
    old->name = r.name;
  return WEFT_OK;
}

int proto_tracks_first_packet(proto_tracks *t, uint32_t seq_id) {
  uint64_t *slot;
  return base_map_insert(&t->first_packet_seqs, seq_id, 1, &slot) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

void proto_tracks_free(proto_tracks *t) {
  base_map_free(&t->by_key);
  VEC_FREE(t->resv);
  base_map_free(&t->first_packet_seqs);
  base_map_free(&t->claimed_threads);
  base_map_free(&t->claimed_processes);
  track_compressor_free(&t->merged);
  proto_async_free(&t->async);
}

/* ---- parse: resolution ---- */

/* 1 if the parent chain of reservation i ends at the root (uuid 0 / no
 * parent) within PROTO_TRACKS_MAX_DEPTH steps without loops. */
static int proto_tracks_hierarchy_ok(import_file *f, const proto_tracks *t, int64_t i) {
  int64_t seen[PROTO_TRACKS_MAX_DEPTH];
  uint32_t machine = t->resv.data[i].machine;
  for (size_t n = 0; n < PROTO_TRACKS_MAX_DEPTH; n++) {
    for (size_t j = 0; j < n; j++) {
      if (seen[j] == i) {
        import_stat(f, stat_track_event_track_hierarchy_loop, 1);
        return 0;
      }
    }
    seen[n] = i;
    uint64_t parent = t->resv.data[i].parent_uuid;
    if (parent == 0) return 1;
    i = proto_tracks_index(t, machine, parent);
    if (i < 0) {
      import_stat(f, stat_track_hierarchy_missing_uuid, 1);
      return 0;
    }
  }
  import_stat(f, stat_track_event_track_hierarchy_too_deep, 1);
  return 0;
}

/* Claims `row` (a utid or upid) for reservation i; *reused = 1 if another
 * reservation claimed it first (the id was reused: start a new one). */
static int proto_tracks_claim(base_map *claims, uint32_t row, int64_t i, int *reused) {
  uint64_t *slot;
  int ins = base_map_insert(claims, row, (uint64_t)i, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  *reused = ins == 0 && *slot != (uint64_t)i;
  *slot = (uint64_t)i;
  return WEFT_OK;
}

static int proto_tracks_resolve_thread(trace_context *ctx, proto_tracks *t, int64_t i) {
  proto_track_resv r = t->resv.data[i];
  uint32_t utid, main_utid;
  int reused = 0;
  /* A process seen through a thread descriptor gets its main thread too. */
  int rc = r.pid != r.tid
               ? model_thread_in_process(ctx, r.machine, r.pid, r.pid, &main_utid)
               : WEFT_OK;
  if (!rc) rc = model_thread_in_process(ctx, r.machine, r.tid, r.pid, &utid);
  if (!rc) rc = proto_tracks_claim(&t->claimed_threads, utid, i, &reused);
  if (!rc && reused) {
    rc = model_thread_start(ctx, r.machine, r.tid, -1, &utid);
    if (!rc) rc = model_thread_in_process(ctx, r.machine, r.tid, r.pid, &utid);
    if (!rc) rc = proto_tracks_claim(&t->claimed_threads, utid, i, &reused);
  }
  if (rc) return rc;
  proto_track_resv *w = &t->resv.data[i];
  w->scope = PROTO_SCOPE_THREAD;
  w->utid = utid;
  w->upid = storage_get_i64_or(ctx_table(ctx, TABLE_THREAD), THREAD_upid, utid, -1);
  w->is_root = 1;
  return WEFT_OK;
}

static int proto_tracks_resolve_process(trace_context *ctx, proto_tracks *t, int64_t i) {
  proto_track_resv r = t->resv.data[i];
  uint32_t upid, main_utid;
  int reused = 0;
  int rc = proto_process_get(ctx, r.machine, r.pid, &upid); /* with its main thread */
  if (!rc) rc = proto_tracks_claim(&t->claimed_processes, upid, i, &reused);
  if (!rc && reused) {
    rc = model_process_start(ctx, r.machine, r.pid, -1, &upid);
    if (!rc) rc = model_thread_start(ctx, r.machine, r.pid, -1, &main_utid);
    if (!rc) rc = model_thread_in_process(ctx, r.machine, r.pid, r.pid, &main_utid);
    if (!rc) rc = proto_tracks_claim(&t->claimed_processes, upid, i, &reused);
  }
  if (rc) return rc;
  proto_track_resv *w = &t->resv.data[i];
  w->scope = PROTO_SCOPE_PROCESS;
  w->upid = upid;
  w->is_root = 1;
  return WEFT_OK;
}

/* Resolves reservation i and its ancestors (the hierarchy is valid, so the
 * recursion is at most PROTO_TRACKS_MAX_DEPTH deep). */
static int proto_tracks_resolve_index(trace_context *ctx, proto_tracks *t, int64_t i) {
  if (t->resv.data[i].resolved) return WEFT_OK;
  int64_t parent = -1;
  if (t->resv.data[i].parent_uuid != 0) {
    parent = proto_tracks_index(t, t->resv.data[i].machine, t->resv.data[i].parent_uuid);
    if (parent >= 0) {
      int rc = proto_tracks_resolve_index(ctx, t, parent);
      if (rc) return rc;
    }
  }
  int rc = WEFT_OK;
  proto_track_resv *r = &t->resv.data[i];
  if (r->has_tid) {
    rc = proto_tracks_resolve_thread(ctx, t, i);
  } else if (r->has_pid) {
    rc = proto_tracks_resolve_process(ctx, t, i);
  } else if (parent >= 0 && t->resv.data[parent].scope != PROTO_SCOPE_GLOBAL) {
    const proto_track_resv *p = &t->resv.data[parent];
    r->scope = p->scope;
    r->utid = p->utid;
    r->upid = p->upid;
  } else {
    r->scope = PROTO_SCOPE_GLOBAL;
  }
  if (!rc) t->resv.data[i].resolved = 1;
  return rc;
}

/* The index of uuid's reservation, resolved; -1 if unresolvable. */
static int proto_tracks_lookup(import_file *f, proto_tracks *t, uint32_t machine,
                               uint64_t uuid, int64_t *idx) {
  *idx = proto_tracks_index_memo(t, machine, uuid);
  if (*idx < 0) {
    proto_track_resv r;
    proto_resv_init(&r, machine, uuid);
    int rc = uuid == 0 ? ctx_intern(f->ctx, "Default Track", 13, &r.name) : WEFT_OK;
    if (!rc) rc = proto_tracks_add(t, &r, idx);
    if (rc || *idx < 0) return rc;
  }
  if (!t->resv.data[*idx].resolved && !proto_tracks_hierarchy_ok(f, t, *idx)) {
    *idx = -1;
    return WEFT_OK;
  }
  return proto_tracks_resolve_index(f->ctx, t, *idx);
}

static void proto_tracks_fill_ref(const proto_track_resv *r, proto_track_ref *ref) {
  ref->uuid = r->uuid;
  ref->track = r->track;
  ref->is_counter = r->is_counter;
  ref->utid = r->scope == PROTO_SCOPE_THREAD ? r->utid : -1;
  ref->upid = r->scope == PROTO_SCOPE_PROCESS ? r->upid : -1;
  ref->is_incremental = r->is_incremental;
  ref->multiplier = r->multiplier;
  ref->is_state = r->is_state;
}

int proto_tracks_resolve(import_file *f, proto_tracks *t, uint32_t machine,
                         uint64_t uuid, proto_track_ref *ref) {
  int64_t i;
  int rc = proto_tracks_lookup(f, t, machine, uuid, &i);
  if (rc) return rc;
  if (i < 0) return 1;
  proto_tracks_fill_ref(&t->resv.data[i], ref);
  return WEFT_OK;
}

/* ---- parse: interning ---- */

typedef struct proto_track_dims {
  int64_t utid, upid;     /* -1 when not a dimension */
  int has_uuid, merged;
  uint64_t uuid, parent_uuid;
  int merge_type;
  string_id merge_value;
  uint32_t compressor_idx;
} proto_track_dims;

static int proto_arg_str(trace_context *ctx, const char *key, string_id value) {
  return model_arg_string(ctx, key, strlen(key), base_string_pool_get(&ctx->strings, value),
                          base_string_pool_len(&ctx->strings, value), MODEL_ARG_STRING);
}

static int proto_arg_cstr(trace_context *ctx, const char *key, const char *value) {
  return model_arg_string(ctx, key, strlen(key), value, strlen(value), MODEL_ARG_STRING);
}

static int proto_arg_i64(trace_context *ctx, const char *key, model_arg_type type, int64_t v) {
  return model_arg_int(ctx, key, strlen(key), type, v);
}

static int proto_tracks_dims_commit(trace_context *ctx, const proto_track_dims *d,
                                    int64_t *set) {
  int rc = WEFT_OK;
  if (d->utid >= 0) rc = proto_arg_i64(ctx, "utid", MODEL_ARG_INT, d->utid);
  if (!rc && d->upid >= 0) rc = proto_arg_i64(ctx, "upid", MODEL_ARG_INT, d->upid);
  if (!rc && d->has_uuid) rc = proto_arg_i64(ctx, "track_uuid", MODEL_ARG_INT, (int64_t)d->uuid);
  if (!rc && d->merged) {
    rc = proto_arg_i64(ctx, "parent_track_uuid", MODEL_ARG_INT, (int64_t)d->parent_uuid);
    if (!rc) rc = proto_arg_i64(ctx, "merge_key_type", MODEL_ARG_INT, d->merge_type);
    if (!rc && d->merge_value != STRING_NULL) rc = proto_arg_str(ctx, "merge_key_value", d->merge_value);
    if (!rc) rc = proto_arg_i64(ctx, "track_compressor_idx", MODEL_ARG_INT, d->compressor_idx);
  }
  if (rc) { model_args_discard(ctx); return rc; }
  return model_args_commit(ctx, set);
}

static const char *const proto_ordering_names[] = {NULL, "lexicographic", "chronological",
                                                   "explicit"};

static int proto_tracks_source_commit(trace_context *ctx, const proto_tracks *t,
                                      const proto_track_resv *r, int is_root,
                                      int64_t seq_id, int64_t *set) {
  int rc = proto_arg_cstr(ctx, "source", "descriptor");
  if (!rc) rc = proto_arg_i64(ctx, "trace_id", MODEL_ARG_INT, (int64_t)r->uuid);
  if (!rc) rc = proto_arg_i64(ctx, "is_root_in_scope", MODEL_ARG_BOOL, is_root);
  if (!rc && r->category != STRING_NULL) rc = proto_arg_str(ctx, "category", r->category);
  if (!rc && r->builtin_type != STRING_NULL)
    rc = proto_arg_str(ctx, "builtin_counter_type", r->builtin_type);
  if (!rc && r->y_axis_key != STRING_NULL) rc = proto_arg_str(ctx, "y_axis_share_key", r->y_axis_key);
  if (!rc && seq_id >= 0 && base_map_find(&t->first_packet_seqs, (uint64_t)seq_id))
    rc = proto_arg_i64(ctx, "has_first_packet_on_sequence", MODEL_ARG_BOOL, 1);
  if (!rc && r->ordering && r->ordering < 4)
    rc = proto_arg_cstr(ctx, "child_ordering", proto_ordering_names[r->ordering]);
  if (!rc && r->has_rank) rc = proto_arg_i64(ctx, "sibling_order_rank", MODEL_ARG_INT, r->rank);
  if (!rc && r->description != STRING_NULL)
    rc = proto_arg_str(ctx, "description", r->description);
  if (rc) { model_args_discard(ctx); return rc; }
  return model_args_commit(ctx, set);
}

/* How reservation r becomes a track row: its type, name, dimensions. */
typedef struct proto_track_plan {
  model_track_spec spec;
  proto_track_dims dims;
  int is_root_args;
  int plain_thread; /* the thread's own default track (no args) */
} proto_track_plan;

static void proto_tracks_plan_scoped(const proto_track_resv *r, string_id name,
                                     proto_track_plan *p) {
  int thread = r->scope == PROTO_SCOPE_THREAD;
  p->dims.utid = thread ? r->utid : -1;
  p->dims.upid = thread ? -1 : r->upid;
  p->spec.utid = p->dims.utid;
  p->spec.upid = p->dims.upid;
  if (r->is_counter) {
    p->spec.type = thread ? "thread_counter_track_event" : "process_counter_track_event";
    p->dims.has_uuid = 1;
  } else if (r->is_state) {
    p->spec.type = thread ? "thread_state_track_event" : "process_state_track_event";
    p->dims.has_uuid = 1;
  } else if (r->is_root || r->merge == PROTO_MERGE_NONE) {
    p->spec.type = thread ? "thread_track_event" : "process_track_event";
    p->dims.has_uuid = 1;
  } else {
    p->spec.type = thread ? "thread_merged_track_event" : "process_merged_track_event";
    p->dims.merged = 1;
    p->dims.merge_value = r->merge == PROTO_MERGE_BY_KEY ? r->merge_key : name;
  }
}

static void proto_tracks_plan(const proto_track_resv *r, string_id name, proto_track_plan *p) {
  memset(p, 0, sizeof *p);
  model_track_spec_init(&p->spec);
  p->spec.machine = r->machine;
  p->spec.is_counter = r->is_counter;
  p->spec.extra_key = r->uuid;
  p->dims.utid = p->dims.upid = -1;
  p->dims.uuid = r->uuid;
  p->dims.parent_uuid = r->parent_uuid;
  p->dims.merge_type = r->merge == PROTO_MERGE_BY_KEY ? PROTO_MERGE_BY_KEY : PROTO_MERGE_BY_NAME;
  p->is_root_args = r->is_root;
  if (r->is_root && r->scope == PROTO_SCOPE_THREAD && !r->is_counter && !r->use_separate) {
    p->plain_thread = 1;
    return;
  }
  if (r->scope != PROTO_SCOPE_GLOBAL) {
    proto_tracks_plan_scoped(r, name, p);
    return;
  }
  p->is_root_args = r->uuid == 0;
  if (r->is_counter) {
    p->spec.type = "global_counter_track_event";
    p->dims.has_uuid = 1;
  } else if (r->is_state) {
    p->spec.type = "global_state_track_event";
    p->dims.has_uuid = 1;
  } else if (r->merge == PROTO_MERGE_NONE) {
    p->spec.type = "global_track_event";
    p->dims.has_uuid = 1;
  } else {
    p->spec.type = "global_merged_track_event";
    p->dims.merged = 1;
    p->dims.merge_value = r->merge == PROTO_MERGE_BY_KEY ? r->merge_key : name;
  }
}

/* Creates the row planned for reservation i (dimension and source args on a
 * new row); sets its track. */
static int proto_tracks_create(import_file *f, proto_tracks *t, int64_t i,
                               proto_track_plan *p, string_id name, int64_t seq_id) {
  trace_context *ctx = f->ctx;
  storage_table *tt = ctx_table(ctx, TABLE_TRACK);
  const proto_track_resv r = t->resv.data[i];
  uint32_t track;
  int rc;
  if (p->plain_thread) {
    rc = model_thread_track(ctx, (uint32_t)r.utid, &track);
  } else {
    p->spec.name = base_string_pool_get(&ctx->strings, name);
    p->spec.unit = base_string_pool_get(&ctx->strings, r.unit);
    p->spec.own_dims = 1; /* proto_tracks_dims_commit's, made once the track is */
    size_t before = tt->row_count;
    rc = model_track(ctx, &p->spec, &track);
    if (!rc && tt->row_count > before) {
      int64_t dims = -1, src = -1;
      rc = proto_tracks_dims_commit(ctx, &p->dims, &dims);
      if (!rc) rc = proto_tracks_source_commit(ctx, t, &r, p->is_root_args, seq_id, &src);
      if (!rc) model_track_set_arg_sets(ctx, track, dims, src);
      if (!rc && r.is_state) rc = proto_state_track_mark(ctx, track);
    }
  }
  if (rc) return rc;
  t->resv.data[i].track = track;
  t->resv.data[i].has_track = 1;
  return WEFT_OK;
}

/* The name track r shows: a non-root track of a process takes the
 * process_track_name translation of its name. */
static string_id proto_tracks_shown_name(import_file *f, const proto_track_resv *r,
                                         string_id name) {
  if (r->scope != PROTO_SCOPE_PROCESS || r->is_root) return name;
  return proto_translate_process_track(((proto_import_state *)f->state)->translation, name);
}

static int proto_tracks_intern_index(import_file *f, proto_tracks *t, int64_t i,
                                     string_id event_name, int64_t seq_id) {
  if (t->resv.data[i].has_track) return WEFT_OK;
  int64_t parent = -1;
  if (t->resv.data[i].parent_uuid != 0)
    parent = proto_tracks_index(t, t->resv.data[i].machine, t->resv.data[i].parent_uuid);
  if (parent >= 0) {
    int rc = proto_tracks_intern_index(f, t, parent, STRING_NULL, seq_id);
    if (rc) return rc;
  }
  const proto_track_resv *r = &t->resv.data[i];
  string_id name = r->name;
  if (name == STRING_NULL && !r->is_root && !r->is_counter) name = event_name;
  name = proto_tracks_shown_name(f, r, name);
  proto_track_plan plan;
  proto_tracks_plan(r, name, &plan);
  /* A child of a root thread/process track hangs off the thread/process
   * itself, not off that track. */
  if (parent >= 0 && !t->resv.data[parent].is_root)
    plan.spec.parent_id = t->resv.data[parent].track;
  return proto_tracks_create(f, t, i, &plan, name, seq_id);
}

/* 1 if reservation r (resolved) is merged with its siblings. */
static int proto_resv_merges(const proto_track_resv *r) {
  return !r->is_counter && !r->is_state && r->merge != PROTO_MERGE_NONE &&
         (r->scope == PROTO_SCOPE_GLOBAL || !r->is_root);
}

/* The compressor set of a merged track: its parent reservation (or, with
 * none, its machine), merge key type and merge key value. */
static uint64_t proto_tracks_merge_set(const proto_track_resv *r, int64_t parent,
                                       const proto_track_plan *p) {
  assert(parent < INT32_MAX && p->dims.merge_value < (UINT32_C(1) << 31));
  uint64_t owner = parent >= 0 ? (uint64_t)parent : (UINT64_C(1) << 31) | r->machine;
  uint64_t by_key = p->dims.merge_type == PROTO_MERGE_BY_KEY;
  return owner << 32 | by_key << 31 | p->dims.merge_value;
}

/* The row of merged reservation i that an event `ev` uses. */
static int proto_tracks_intern_merged(import_file *f, proto_tracks *t, int64_t i,
                                      string_id event_name, int64_t seq_id,
                                      track_compressor_event ev) {
  proto_track_resv *r = &t->resv.data[i];
  if (r->name == STRING_NULL && r->first_event_name == STRING_NULL)
    r->first_event_name = event_name;
  string_id name = proto_tracks_shown_name(
      f, r, r->name != STRING_NULL ? r->name : r->first_event_name);
  int64_t parent = -1;
  if (r->parent_uuid != 0) parent = proto_tracks_index(t, r->machine, r->parent_uuid);
  if (parent >= 0) {
    int rc = proto_tracks_intern_index(f, t, parent, STRING_NULL, seq_id);
    if (rc) return rc;
  }
  proto_track_plan plan;
  proto_tracks_plan(&t->resv.data[i], name, &plan);
  if (parent >= 0 && !t->resv.data[parent].is_root)
    plan.spec.parent_id = t->resv.data[parent].track;
  uint64_t set_key = proto_tracks_merge_set(&t->resv.data[i], parent, &plan);
  uint32_t set, slot;
  int rc = track_compressor_use(&t->merged, set_key, (int64_t)t->resv.data[i].uuid, ev,
                                &set, &slot);
  if (rc) return rc;
  uint32_t row = *track_compressor_track(&t->merged, set, slot);
  if (row == TRACK_COMPRESSOR_NO_TRACK) {
    plan.dims.compressor_idx = slot;
    plan.spec.group_key = model_track_group_key(&t->merged, set);
    plan.spec.extra_key = (uint64_t)set << 32 | slot;
    rc = proto_tracks_create(f, t, i, &plan, name, seq_id);
    if (rc) return rc;
    *track_compressor_track(&t->merged, set, slot) = t->resv.data[i].track;
    return WEFT_OK;
  }
  t->resv.data[i].track = row;
  t->resv.data[i].has_track = 1;
  return WEFT_OK;
}

int proto_tracks_intern(import_file *f, proto_tracks *t, uint32_t machine,
                        uint64_t uuid, string_id event_name, int64_t seq_id,
                        track_compressor_event ev, proto_track_ref *ref) {
  int64_t i;
  int rc = proto_tracks_lookup(f, t, machine, uuid, &i);
  if (rc) return rc;
  if (i < 0) return 1;
  if (proto_resv_merges(&t->resv.data[i]))
    rc = proto_tracks_intern_merged(f, t, i, event_name, uuid == 0 ? -1 : seq_id, ev);
  else
    rc = proto_tracks_intern_index(f, t, i, event_name, uuid == 0 ? -1 : seq_id);
  if (rc) return rc;
  proto_tracks_fill_ref(&t->resv.data[i], ref);
  return WEFT_OK;
}
