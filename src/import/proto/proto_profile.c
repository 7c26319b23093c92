/* Profiles with callstacks: the callstack resolver (interned data and a
 * ProfilePacket's own tables) and heap dumps. See proto_profile.h. */
#include "import/proto/proto_profile.h"

#include "clock/clock.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_profile_internal.h"
#include "model/context.h"
#include "model/stack_profile.h"

/* ProfilePacket fields */
#define PP_STRINGS 1
#define PP_FRAMES 2
#define PP_CALLSTACKS 3
#define PP_MAPPINGS 4
#define PP_PROCESS_DUMPS 5
#define PP_CONTINUED 6
/* ProcessHeapSamples */
#define PHS_PID 1
#define PHS_SAMPLES 2
#define PHS_TIMESTAMP 9
#define PHS_HEAP_NAME 11
#define PHS_ORIG_SAMPLING_INTERVAL 13
#define PHS_START_TIMESTAMP 15
/* HeapSample */
#define HS_CALLSTACK_ID 1
#define HS_SELF_ALLOCATED 2
#define HS_SELF_FREED 3
#define HS_ALLOC_COUNT 5
#define HS_FREE_COUNT 6
#define HS_SELF_MAX 8
#define HS_SELF_MAX_COUNT 9
/* Mapping, Frame, Callstack, InternedString */
#define MAP_BUILD_ID 2
#define MAP_START_OFFSET 3
#define MAP_START 4
#define MAP_END 5
#define MAP_LOAD_BIAS 6
#define MAP_PATH_STRING_IDS 7
#define MAP_EXACT_OFFSET 8
#define FRAME_FUNCTION_NAME_ID 2
#define FRAME_MAPPING_ID 3
#define FRAME_REL_PC 4
#define FRAME_KIND 7
#define FRAME_KIND_STR 8
#define CALLSTACK_FRAME_IDS 2
#define ISTR_STR 2

#define PP_MAX_DEPTH 4096 /* frames of one callstack that are kept */

int proto_profile_wants_field(uint32_t number) {
  return number == PROTO_TRACE_PACKET_PROFILE_PACKET ||
         number == PROTO_TRACE_PACKET_PERF_SAMPLE ||
         number == PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING ||
         number == PROTO_TRACE_PACKET_STREAMING_PROFILE_PACKET ||
         number == PROTO_TRACE_PACKET_STACK_SAMPLE ||
         number == PROTO_TRACE_PACKET_SMAPS_PACKET;
}

void proto_profile_free(proto_profile_state *s) {
  if (!s) return;
  base_map_free(&s->rows);
  base_map_free(&s->epochs);
  base_map_free(&s->totals_index);
  VEC_FREE(s->totals);
  base_map_free(&s->seen);
  base_map_free(&s->corrections_index);
  VEC_FREE(s->corrections);
  base_map_free(&s->sessions);
  base_map_free(&s->perf_streams);
  VEC_FREE(s->streams);
  VEC_FREE(s->perf_tracks);
  base_map_free(&s->ss_sessions);
  base_free(s);
}

proto_profile_state *pp_state(import_file *f) {
  proto_import_state *st = f->state;
  if (!st->profile) st->profile = base_calloc(1, sizeof(proto_profile_state));
  return st->profile;
}

/* ---- the row cache: (scope, kind, iid) -> value ---- */

static uint64_t pp_row_key(pp_scope sc, int kind, uint64_t iid) {
  uint64_t k = proto_intern_key(sc.seq, sc.generation, kind, iid);
  if (sc.owner) k = base_hash_u64(k + 0x9e3779b97f4a7c15ULL * sc.owner);
  return k == UINT64_MAX ? 0 : k;
}

static uint64_t *pp_cached(const proto_profile_state *s, pp_scope sc, int kind, uint64_t iid) {
  return base_map_find(&s->rows, pp_row_key(sc, kind, iid));
}

static int pp_cache(proto_profile_state *s, pp_scope sc, int kind, uint64_t iid,
                    uint64_t value) {
  uint64_t *slot;
  if (base_map_insert(&s->rows, pp_row_key(sc, kind, iid), value, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = value;
  return WEFT_OK;
}

/* The scope of a ProfilePacket's own tables on the sequence: they hold
 * until a packet that is not continued. */
static pp_scope pp_packet_scope(proto_profile_state *s, uint32_t seq) {
  uint64_t *epoch = base_map_find(&s->epochs, (uint64_t)seq + 1);
  pp_scope sc = {seq, 0x80000000u | (uint32_t)(epoch ? *epoch : 0), 1, 0};
  return sc;
}

static int pp_end_packet_scope(proto_profile_state *s, uint32_t seq) {
  uint64_t *slot;
  if (base_map_insert(&s->epochs, (uint64_t)seq + 1, 0, &slot) < 0) return WEFT_ENOMEM;
  ++*slot;
  return WEFT_OK;
}

/* An interned message of the sequence's InternedData, or a NULL span. */
static proto_span pp_interned_msg(import_file *f, const pp_resolver *r, int kind,
                                  uint64_t iid) {
  proto_import_state *st = f->state;
  uint64_t *v = base_map_find(&st->interned,
                              proto_intern_key(r->seq, r->generation, kind, iid));
  proto_span none = {NULL, 0};
  return v && *v < st->source_locations.len ? st->source_locations.data[*v] : none;
}

/* ---- strings ---- */

static int pp_intern_bytes(import_file *f, proto_span s, string_id *out) {
  return ctx_intern(f->ctx, (const char *)s.data, s.len, out);
}

/* Where rows of `kind` resolved from the sequence's interned data are
 * cached: per process for mappings, frames and callstacks. */
static pp_scope pp_seq_scope(const pp_resolver *r, int kind) {
  int per_process = kind == PP_ROW_MAPPING || kind == PP_ROW_FRAME || kind == PP_ROW_CALLSTACK;
  pp_scope sc = {r->seq, r->generation, 0, per_process ? r->owner : 0};
  return sc;
}

/* A row cached for the packet's own tables (packet_kind), else for the
 * sequence's interned data (seq_kind); NULL if neither has it. */
static uint64_t *pp_lookup(const proto_profile_state *s, const pp_resolver *r,
                           int packet_kind, int seq_kind, uint64_t iid) {
  uint64_t *v = r->packet.packet ? pp_cached(s, r->packet, packet_kind, iid) : NULL;
  if (v) return v;
  return pp_cached(s, pp_seq_scope(r, seq_kind), seq_kind, iid);
}

/* The string `iid` of interned kind `kind` (for a ProfilePacket, its own
 * strings first); STRING_NULL if unknown. */
static int pp_string(import_file *f, const pp_resolver *r, int kind, uint64_t iid,
                     string_id *out) {
  proto_profile_state *s = pp_state(f);
  *out = STRING_NULL;
  if (!s) return WEFT_ENOMEM;
  uint64_t *v = pp_lookup(s, r, PP_ROW_STRING, PP_ROW_STRING + kind, iid);
  if (v) return (*out = (string_id)*v), WEFT_OK;
  pp_scope sc = pp_seq_scope(r, PP_ROW_STRING + kind);
  proto_span msg = pp_interned_msg(f, r, kind, iid);
  if (!msg.data) return WEFT_OK;
  proto_field fl;
  proto_span bytes = {(const uint8_t *)"", 0};
  if (proto_find_last(msg.data, msg.len, ISTR_STR, &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN)
    bytes = fl.span;
  int rc = pp_intern_bytes(f, bytes, out);
  return rc ? rc : pp_cache(s, sc, PP_ROW_STRING + kind, iid, *out);
}

/* ---- mappings ---- */

static int pp_build_id(import_file *f, const pp_resolver *r, uint64_t iid, string_id *out) {
  string_id raw;
  int rc = pp_string(f, r, PROTO_INTERN_BUILD_ID, iid, &raw);
  if (rc) return rc;
  const base_string_pool *p = &f->ctx->strings;
  return stack_profile_build_id_hex(f->ctx, (const uint8_t *)(raw ? base_string_pool_get(p, raw) : ""),
                                    base_string_pool_len(p, raw), out);
}

/* A mapping's name: its path components joined by '/', with a leading '/'
 * unless the first has one ("" for none). */
static int pp_mapping_name(import_file *f, const pp_resolver *r, proto_span msg,
                           string_id *out) {
  base_buf b;
  base_buf_init(&b, 1 << 20);
  proto_reader rd;
  proto_field fl;
  int rc = base_buf_append(&b, "/", 1), parts = 0;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    if (fl.number != MAP_PATH_STRING_IDS) continue;
    proto_packed_iter it;
    proto_span one = {NULL, 0};
    uint64_t id;
    if (fl.wire_type == PROTO_WIRE_LEN) proto_packed_init(&it, fl.span);
    else proto_packed_init(&it, one);
    int more = fl.wire_type == PROTO_WIRE_VARINT;
    while (!rc && (more ? (id = fl.value, more = 0, 1) : proto_packed_next_varint(&it, &id) == 1)) {
      string_id part;
      rc = pp_string(f, r, PROTO_INTERN_MAPPING_PATH, id, &part);
      const char *ps = base_string_pool_get(&f->ctx->strings, part);
      if (!rc && parts++) rc = base_buf_append(&b, "/", 1);
      if (!rc && ps) rc = base_buf_append(&b, ps, strlen(ps));
    }
  }
  /* b is "/" then the parts joined by '/': drop the '/' if the first part
   * already starts with one */
  size_t skip = !parts ? 1 : b.len > 1 && b.data[1] == '/'; /* no parts: "" */
  if (!rc) rc = ctx_intern(f->ctx, (const char *)b.data + skip, b.len - skip, out);
  base_buf_free(&b);
  return rc;
}

/* A mapping row for an interned Mapping message: interned by its fields,
 * or, for a resolver of a known process when its range is not empty
 * (end != start), a row of its own, as Perfetto makes a mapping of a
 * process's memory. */
static int pp_mapping_from(import_file *f, const pp_resolver *r, proto_span msg,
                           uint32_t *row) {
  stack_profile_mapping_spec m;
  memset(&m, 0, sizeof m);
  uint64_t build_iid = 0;
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    switch (fl.number) {
      case MAP_BUILD_ID: build_iid = fl.value; break;
      case MAP_START_OFFSET: m.start_offset = (int64_t)fl.value; break;
      case MAP_START: m.start = (int64_t)fl.value; break;
      case MAP_END: m.end = (int64_t)fl.value; break;
      case MAP_LOAD_BIAS: m.load_bias = (int64_t)fl.value; break;
      case MAP_EXACT_OFFSET: m.exact_offset = (int64_t)fl.value; break;
      default: break;
    }
  }
  int rc = build_iid ? pp_build_id(f, r, build_iid, &m.build_id)
                     : ctx_intern(f->ctx, "", 0, &m.build_id);
  if (!rc) rc = pp_mapping_name(f, r, msg, &m.name);
  if (rc) return rc;
  int own = r->owner && m.end != m.start;
  return own ? stack_profile_mapping_new(f->ctx, &m, row) : stack_profile_mapping(f->ctx, &m, row);
}

/* The mapping row of `iid` (0: an empty mapping); -1 if unknown. */
static int pp_mapping_of(import_file *f, const pp_resolver *r, uint64_t iid, int64_t *row) {
  proto_profile_state *s = pp_state(f);
  *row = -1;
  uint64_t *v = pp_lookup(s, r, PP_ROW_MAPPING, PP_ROW_MAPPING, iid);
  if (v) return (*row = (int64_t)*v), WEFT_OK;
  pp_scope sc = pp_seq_scope(r, PP_ROW_MAPPING);
  proto_span msg = pp_interned_msg(f, r, PROTO_INTERN_MAPPING, iid);
  if (!msg.data && iid) return import_stat(f, stat_stackprofile_invalid_mapping_id, 1);
  uint32_t id;
  int rc = pp_mapping_from(f, r, msg, &id);
  if (!rc) rc = pp_cache(s, sc, PP_ROW_MAPPING, iid, id);
  *row = id;
  return rc;
}

static int pp_mapping(import_file *f, const pp_resolver *r, uint64_t iid, int64_t *row) {
  return pp_mapping_of(f, r, iid, row);
}

/* ---- frames ---- */

static const char *const pp_frame_kinds[] = {NULL, "native", "kernel", "interpreted",
                                             "jit", "gc", "runtime"};

static int pp_frame_type(import_file *f, const proto_field *fl, string_id *type) {
  if (fl->number == FRAME_KIND_STR && fl->wire_type == PROTO_WIRE_LEN)
    return pp_intern_bytes(f, fl->span, type);
  if (fl->wire_type != PROTO_WIRE_VARINT || fl->value >= 7 || !pp_frame_kinds[fl->value]) {
    *type = STRING_NULL;
    return WEFT_OK;
  }
  const char *k = pp_frame_kinds[fl->value];
  return ctx_intern(f->ctx, k, strlen(k), type);
}

static int pp_frame_from(import_file *f, const pp_resolver *r, proto_span msg, int64_t *row) {
  uint64_t name_iid = 0, mapping_iid = 0;
  int64_t rel_pc = 0;
  string_id type = STRING_NULL;
  int rc = WEFT_OK;
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    if (fl.number == FRAME_FUNCTION_NAME_ID && fl.wire_type == PROTO_WIRE_VARINT) name_iid = fl.value;
    if (fl.number == FRAME_MAPPING_ID && fl.wire_type == PROTO_WIRE_VARINT) mapping_iid = fl.value;
    if (fl.number == FRAME_REL_PC && fl.wire_type == PROTO_WIRE_VARINT) rel_pc = (int64_t)fl.value;
    if (fl.number == FRAME_KIND || fl.number == FRAME_KIND_STR) rc = pp_frame_type(f, &fl, &type);
  }
  string_id name = STRING_NULL;
  if (!rc && name_iid) rc = pp_string(f, r, PROTO_INTERN_FUNCTION_NAME, name_iid, &name);
  int64_t mapping;
  if (!rc) rc = pp_mapping(f, r, mapping_iid, &mapping);
  if (rc || mapping < 0) return rc;
  uint32_t id;
  rc = stack_profile_frame(f->ctx, (uint32_t)mapping, name, rel_pc, type, &id);
  *row = id;
  return rc;
}

/* The frame row of `iid`; -1 if unknown (counted). */
static int pp_frame(import_file *f, const pp_resolver *r, uint64_t iid, int64_t *row) {
  proto_profile_state *s = pp_state(f);
  *row = -1;
  uint64_t *v = pp_lookup(s, r, PP_ROW_FRAME, PP_ROW_FRAME, iid);
  if (v) return (*row = (int64_t)*v), WEFT_OK;
  pp_scope sc = pp_seq_scope(r, PP_ROW_FRAME);
  proto_span msg = pp_interned_msg(f, r, PROTO_INTERN_FRAME, iid);
  if (!msg.data) return import_stat(f, stat_stackprofile_invalid_frame_id, 1);
  int rc = pp_frame_from(f, r, msg, row);
  return rc || *row < 0 ? rc : pp_cache(s, sc, PP_ROW_FRAME, iid, (uint64_t)*row);
}

/* ---- callstacks ---- */

/* The leaf callsite of a Callstack message (frames root first); -1 for an
 * empty or broken one. */
static int pp_callstack_from(import_file *f, const pp_resolver *r, proto_span msg,
                             int64_t *leaf) {
  *leaf = -1;
  proto_reader rd;
  proto_field fl;
  int depth = 0;
  proto_reader_init_span(&rd, msg);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.number != CALLSTACK_FRAME_IDS) continue;
    proto_packed_iter it;
    proto_span none = {NULL, 0};
    proto_packed_init(&it, fl.wire_type == PROTO_WIRE_LEN ? fl.span : none);
    int single = fl.wire_type == PROTO_WIRE_VARINT;
    uint64_t iid;
    while (single ? (iid = fl.value, single = 0, 1) : proto_packed_next_varint(&it, &iid) == 1) {
      if (++depth > PP_MAX_DEPTH) return WEFT_OK;
      int64_t frame;
      int rc = pp_frame(f, r, iid, &frame);
      if (rc) return rc;
      if (frame < 0) return *leaf = PP_UNKNOWN_CALLSTACK, WEFT_OK;
      uint32_t cs;
      rc = stack_profile_callsite(f->ctx, *leaf, (uint32_t)frame, &cs);
      if (rc) return rc;
      *leaf = cs;
    }
  }
  return WEFT_OK;
}

int pp_callstack_find(import_file *f, const pp_resolver *r, uint64_t iid, int64_t *leaf) {
  proto_profile_state *s = pp_state(f);
  if (!s) return WEFT_ENOMEM;
  *leaf = -1;
  uint64_t *v = pp_lookup(s, r, PP_ROW_CALLSTACK, PP_ROW_CALLSTACK, iid);
  if (v) return (*leaf = (int64_t)*v - 1), WEFT_OK;
  pp_scope sc = pp_seq_scope(r, PP_ROW_CALLSTACK);
  proto_span msg = pp_interned_msg(f, r, PROTO_INTERN_CALLSTACK, iid);
  if (!msg.data) return *leaf = PP_UNKNOWN_CALLSTACK, WEFT_OK;
  int rc = pp_callstack_from(f, r, msg, leaf);
  return rc ? rc : pp_cache(s, sc, PP_ROW_CALLSTACK, iid, (uint64_t)(*leaf + 1));
}

int pp_callstack(import_file *f, const pp_resolver *r, uint64_t iid, int64_t *leaf) {
  int rc = pp_callstack_find(f, r, iid, leaf);
  if (rc || *leaf != PP_UNKNOWN_CALLSTACK) return rc;
  return import_stat(f, stat_stackprofile_invalid_callstack_id, 1);
}

int proto_profile_mapping_row(import_file *f, const proto_packet_info *info, uint64_t iid,
                              int64_t *row) {
  pp_resolver r = pp_resolver_of(info);
  if (!pp_state(f)) return WEFT_ENOMEM;
  /* the process of the sequence's thread descriptor, if it has one */
  int64_t pid, tid;
  int has = proto_seq_thread(f->state, info->seq, info->generation, &pid, &tid);
  uint32_t upid;
  int rc = has ? model_process(f->ctx, info->machine, pid, &upid) : WEFT_OK;
  if (!rc && has) r.owner = upid + 1;
  return rc ? rc : pp_mapping_of(f, &r, iid, row);
}

pp_resolver pp_resolver_of(const proto_packet_info *info) {
  pp_resolver r;
  memset(&r, 0, sizeof r);
  r.seq = info->seq;
  r.generation = info->generation;
  return r;
}

/* ---- a ProfilePacket's own tables ---- */

static uint64_t pp_iid_of(proto_span msg) {
  proto_field fl;
  return proto_find_last(msg.data, msg.len, 1, &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT
             ? fl.value : 0;
}

/* Reads every entry of table `field` of the packet into the packet scope:
 * strings first, then mappings, frames and callstacks (each may name the
 * ones before). */
static int pp_packet_table(import_file *f, const pp_resolver *r, proto_span pkt, uint32_t field) {
  proto_profile_state *s = pp_state(f);
  proto_reader rd;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&rd, pkt);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    if (fl.number != field || fl.wire_type != PROTO_WIRE_LEN) continue;
    uint64_t iid = pp_iid_of(fl.span);
    int64_t row = -1;
    if (field == PP_STRINGS) {
      proto_field str;
      proto_span bytes = {(const uint8_t *)"", 0};
      if (proto_find_last(fl.span.data, fl.span.len, ISTR_STR, &str) == 1 &&
          str.wire_type == PROTO_WIRE_LEN)
        bytes = str.span;
      string_id id;
      rc = pp_intern_bytes(f, bytes, &id);
      if (!rc) rc = pp_cache(s, r->packet, PP_ROW_STRING, iid, id);
      continue;
    }
    if (field == PP_MAPPINGS) {
      uint32_t id;
      rc = pp_mapping_from(f, r, fl.span, &id);
      if (!rc) rc = pp_cache(s, r->packet, PP_ROW_MAPPING, iid, id);
      continue;
    }
    if (field == PP_FRAMES) {
      rc = pp_frame_from(f, r, fl.span, &row);
      if (!rc && row >= 0) rc = pp_cache(s, r->packet, PP_ROW_FRAME, iid, (uint64_t)row);
      continue;
    }
    rc = pp_callstack_from(f, r, fl.span, &row);
    if (!rc) rc = pp_cache(s, r->packet, PP_ROW_CALLSTACK, iid, (uint64_t)(row + 1));
  }
  return rc;
}

/* ---- heap dumps ---- */

typedef struct pp_heap_fields {
  uint64_t callstack, self_allocated, self_freed, alloc_count, free_count, self_max;
  uint64_t self_max_count;
  int has_max;
} pp_heap_fields;

static void pp_heap_sample_read(proto_span msg, pp_heap_fields *hs) {
  memset(hs, 0, sizeof *hs);
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    switch (fl.number) {
      case HS_CALLSTACK_ID: hs->callstack = fl.value; break;
      case HS_SELF_ALLOCATED: hs->self_allocated = fl.value; break;
      case HS_SELF_FREED: hs->self_freed = fl.value; break;
      case HS_ALLOC_COUNT: hs->alloc_count = fl.value; break;
      case HS_FREE_COUNT: hs->free_count = fl.value; break;
      case HS_SELF_MAX: hs->self_max = fl.value, hs->has_max = 1; break;
      case HS_SELF_MAX_COUNT: hs->self_max_count = fl.value; break;
      default: break;
    }
  }
}

/* The running totals of (sequence, process, callsite), whatever the heap. */
static pp_heap_totals *pp_totals(proto_profile_state *s, uint32_t seq, uint32_t upid,
                                 uint32_t callsite) {
  uint64_t key = proto_intern_key(seq, upid, 0, callsite);
  uint64_t *slot;
  int ins = base_map_insert(&s->totals_index, key, s->totals.len, &slot);
  if (ins < 0) return NULL;
  if (ins == 1) {
    pp_heap_totals t;
    memset(&t, 0, sizeof t);
    if (VEC_PUSH(s->totals, t)) return NULL;
  }
  return &s->totals.data[*slot];
}

/* A source callstack (the sample's callstack id) seen with a callsite for
 * the first time in (sequence, process, heap) takes that callsite's totals
 * so far as its correction: its cumulative values are counted on top of
 * them, so a new id that interns to a known callsite adds all it reports.
 * *row gets the correction of the source callstack, if any. */
static int pp_correct(proto_profile_state *s, uint32_t seq, uint32_t upid, string_id heap,
                      uint64_t source, uint32_t callsite, const pp_heap_totals *prev,
                      pp_heap_totals *row) {
  uint64_t seen = base_hash_u64(proto_intern_key(seq, upid, (int)heap, source) ^
                                (0x9e3779b97f4a7c15ULL * ((uint64_t)callsite + 1)));
  uint64_t *slot;
  int ins = base_map_insert(&s->seen, seen == UINT64_MAX ? 0 : seen, 1, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  uint64_t key = proto_intern_key(seq, 0, 1, source);
  if (ins == 1) {
    int cins = base_map_insert(&s->corrections_index, key, s->corrections.len, &slot);
    if (cins < 0 || (cins == 1 && VEC_PUSH(s->corrections, *prev))) return WEFT_ENOMEM;
    s->corrections.data[*slot] = *prev;
  }
  uint64_t *index = base_map_find(&s->corrections_index, key);
  if (index) {
    const pp_heap_totals *c = &s->corrections.data[*index];
    row->alloc_count += c->alloc_count, row->alloc_size += c->alloc_size;
    row->free_count += c->free_count, row->free_size += c->free_size;
  }
  return WEFT_OK;
}

typedef struct pp_dump {
  int64_t ts;
  uint32_t upid;
  string_id heap;
  int trust_max_count; /* orig_sampling_interval_bytes set: self_max_count is right */
  int art_heap; /* "com.android.art": ART reports allocations only, no frees */
} pp_dump;

/* A dump-max sample (self_max set) is its peak: the size is self_max, the
 * count self_max_count when the producer is new enough to fill it right
 * (it sets orig_sampling_interval_bytes), and nothing is freed. */
static void pp_heap_sample_as_max(pp_heap_fields *hs, int trust_max_count) {
  hs->self_allocated = hs->self_max;
  hs->alloc_count = trust_max_count ? hs->self_max_count : 0;
  hs->self_freed = hs->free_count = 0;
}

static int pp_heap_sample(import_file *f, const pp_resolver *r, const pp_dump *d,
                          proto_span msg) {
  pp_heap_fields hs;
  pp_heap_sample_read(msg, &hs);
  if (hs.has_max) pp_heap_sample_as_max(&hs, d->trust_max_count);
  int64_t leaf;
  int rc = pp_callstack(f, r, hs.callstack, &leaf);
  if (!rc && leaf == -1) rc = import_stat(f, stat_stackprofile_empty_callstack, 1);
  if (rc || leaf < 0) return rc;
  proto_profile_state *s = pp_state(f);
  pp_heap_totals *t = pp_totals(s, r->seq, d->upid, (uint32_t)leaf);
  if (!t) return WEFT_ENOMEM;
  pp_heap_totals row = {(int64_t)hs.alloc_count, (int64_t)hs.self_allocated,
                        (int64_t)hs.free_count, (int64_t)hs.self_freed};
  rc = pp_correct(s, r->seq, d->upid, d->heap, hs.callstack, (uint32_t)leaf, t, &row);
  if (rc) return rc;
  t = pp_totals(s, r->seq, d->upid, (uint32_t)leaf); /* found again: no insert */
  int64_t da_count = row.alloc_count - t->alloc_count, da_size = row.alloc_size - t->alloc_size;
  int64_t df_count = row.free_count - t->free_count, df_size = row.free_size - t->free_size;
  if (da_count < 0 || da_size < 0 || df_count < 0 || df_size < 0)
    return stats_add(&f->ctx->stats, stat_heapprofd_malformed_packet, d->upid, f->machine,
                     f->trace_id, 1);
  if (da_count || da_size)
    rc = stack_profile_heap_allocation(f->ctx, d->ts, d->upid, d->heap, (uint32_t)leaf, da_count, da_size);
  if (!rc && !d->art_heap && (df_count || df_size))
    rc = stack_profile_heap_allocation(f->ctx, d->ts, d->upid, d->heap, (uint32_t)leaf, -df_count, -df_size);
  *t = row;
  return rc;
}

/* A dump's time: ProcessHeapSamples field `number` (timestamp, or the
 * window's start_timestamp) on CLOCK_MONOTONIC_COARSE, 0 when absent. 1
 * with *ts, 0 when it cannot be converted, -1 when absent and optional. */
static int pp_dump_time(import_file *f, uint32_t machine, proto_span msg, uint32_t number,
                        int optional, int64_t *ts) {
  proto_field fl;
  int64_t raw = 0;
  if (proto_find_last(msg.data, msg.len, number, &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT)
    raw = (int64_t)fl.value;
  else if (optional)
    return -1;
  return import_clock_convert(f, machine, CLOCK_ID_MONOTONIC_COARSE, raw, ts) != 0;
}

static int pp_process_dump(import_file *f, const pp_resolver *r, uint32_t machine,
                           int64_t packet_ts, proto_span msg) {
  pp_dump d = {0, 0, STRING_NULL, 0, 0};
  if (!pp_dump_time(f, machine, msg, PHS_TIMESTAMP, 0, &d.ts))
    return import_stat(f, stat_clock_sync_failure, 1);
  int64_t start;
  if (pp_dump_time(f, machine, msg, PHS_START_TIMESTAMP, 1, &start) != 1) start = d.ts;
  proto_field fl;
  int64_t pid = 0;
  if (proto_find_last(msg.data, msg.len, PHS_PID, &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT)
    pid = (int64_t)fl.value;
  if (proto_find_last(msg.data, msg.len, PHS_ORIG_SAMPLING_INTERVAL, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    d.trust_max_count = fl.value != 0;
  string_id named = STRING_NULL;
  int rc = proto_find_last(msg.data, msg.len, PHS_HEAP_NAME, &fl) == 1 &&
                   fl.wire_type == PROTO_WIRE_LEN
               ? pp_intern_bytes(f, fl.span, &named)
               : WEFT_OK;
  d.heap = named;
  d.art_heap = named != STRING_NULL &&
               !strcmp(base_string_pool_get(&f->ctx->strings, named), "com.android.art");
  if (!rc && named == STRING_NULL) rc = ctx_intern(f->ctx, "unknown", 7, &d.heap);
  if (!rc) rc = model_process(f->ctx, machine, pid, &d.upid);
  stack_profile_heap_dump_spec dump = {start, d.ts, packet_ts, d.upid, named, machine,
                                       f->trace_id, pid};
  if (!rc) rc = stack_profile_heap_dump(f->ctx, &dump);
  pp_resolver of_process = *r;
  of_process.owner = d.upid + 1;
  proto_reader rd;
  proto_reader_init_span(&rd, msg);
  while (!rc && proto_reader_next(&rd, &fl) == 1)
    if (fl.number == PHS_SAMPLES && fl.wire_type == PROTO_WIRE_LEN)
      rc = pp_heap_sample(f, &of_process, &d, fl.span);
  return rc;
}

static int pp_profile_packet(import_file *f, const proto_packet_info *info, int64_t ts,
                             proto_span pkt) {
  proto_profile_state *s = pp_state(f);
  if (!s) return WEFT_ENOMEM;
  pp_resolver r = pp_resolver_of(info);
  r.packet = pp_packet_scope(s, info->seq);
  static const uint32_t tables[] = {PP_STRINGS, PP_MAPPINGS, PP_FRAMES, PP_CALLSTACKS};
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < sizeof tables / sizeof *tables; i++)
    rc = pp_packet_table(f, &r, pkt, tables[i]);
  proto_reader rd;
  proto_field fl;
  int continued = 0;
  proto_reader_init_span(&rd, pkt);
  while (!rc && proto_reader_next(&rd, &fl) == 1) {
    if (fl.number == PP_PROCESS_DUMPS && fl.wire_type == PROTO_WIRE_LEN)
      rc = pp_process_dump(f, &r, info->machine, ts, fl.span);
    if (fl.number == PP_CONTINUED && fl.wire_type == PROTO_WIRE_VARINT) continued = fl.value != 0;
  }
  if (!rc && !continued) rc = pp_end_packet_scope(s, info->seq);
  return rc;
}

int proto_profile_parse(import_file *f, const proto_packet_info *info, int64_t ts,
                        const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  switch (fl->number) {
    case PROTO_TRACE_PACKET_PROFILE_PACKET: return pp_profile_packet(f, info, ts, fl->span);
    case PROTO_TRACE_PACKET_PERF_SAMPLE: return pp_perf_sample(f, info, ts, fl->span);
    case PROTO_TRACE_PACKET_STREAMING_PROFILE_PACKET:
      return pp_streaming_profile(f, info, ts, fl->span);
    case PROTO_TRACE_PACKET_STACK_SAMPLE: return pp_stack_sample(f, info, ts, fl->span);
    case PROTO_TRACE_PACKET_SMAPS_PACKET: return pp_smaps(f, info, ts, fl->span);
    case PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING: return pp_deobfuscation(f, fl->span);
    default: return WEFT_OK;
  }
}

int proto_profile_end(import_file *f) {
  int rc = stack_profile_deobfuscate_frames(f->ctx);
  if (!rc) rc = stack_profile_count_tmp_without_build_id(f->ctx, f->machine, f->trace_id);
  return rc;
}
