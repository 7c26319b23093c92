/* Perfetto proto importer: tokenize phase and the ops table. See
 * proto_import.h. */
#include "import/proto/proto_import.h"
#include "import/proto/proto_clocks.h"
#include "import/proto/proto_winscope.h"
#include "import/proto/proto_winscope_sf.h"
#include "import/proto/proto_winscope_wm.h"

#include "import/proto/proto_event_counters.h"


#include "import/proto/proto_fields.h"
#include "import/proto/proto_etw.h"
#include "import/proto/proto_ftrace.h"
#include "import/proto/proto_head.h"
#include "import/proto/proto_heap_graph.h"
#include "import/proto/proto_android.h"
#include "import/proto/proto_android_fw.h"
#include "import/proto/proto_shell_transition.h"
#include "import/proto/proto_viewcapture.h"
#include "import/proto/proto_frames.h"
#include "import/proto/proto_native_symbols.h"
#include "import/proto/proto_gpu.h"
#include "import/proto/proto_power.h"
#include "import/proto/proto_profile.h"
#include "import/proto/proto_sys_stats.h"
#include "import/proto/proto_translation.h"
#include "import/proto/proto_track_event.h"
#include "import/proto/proto_packets.h"
#include "import/proto/proto_protovm.h"
#include "model/import_log.h"
#include "model/proto_content.h"

#define PROTO_MAX_INFLATED_BYTES (UINT64_C(1) << 30)


uint64_t proto_intern_key(uint32_t seq, uint32_t generation, int kind,
                          uint64_t iid) {
  /* Chained (not xor-combined) so (generation, iid) pairs cannot cancel. */
  uint64_t k = base_hash_u64(((uint64_t)seq << 32) | generation);
  k = base_hash_u64(k + 0x9e3779b97f4a7c15ULL * (uint64_t)(kind + 1));
  k = base_hash_u64(k ^ iid);
  return k == UINT64_MAX ? 0 : k;
}

string_id proto_interned(const proto_import_state *st, uint32_t seq,
                         uint32_t generation, int kind, uint64_t iid) {
  uint64_t *v = base_map_find(&st->interned,
                              proto_intern_key(seq, generation, kind, iid));
  return v ? (string_id)*v : STRING_NULL;
}

int proto_interned_message(const proto_import_state *st, uint32_t seq, uint32_t generation,
                           int kind, uint64_t iid, proto_span *msg) {
  uint64_t *v = base_map_find(&st->interned, proto_intern_key(seq, generation, kind, iid));
  if (!v || *v >= st->source_locations.len) return 0;
  *msg = st->source_locations.data[*v];
  return 1;
}

static int proto_seq_get(proto_import_state *st, uint32_t id, uint32_t *idx) {
  if (st->last_seq < st->seqs.len && st->seqs.data[st->last_seq].id == id) {
    *idx = st->last_seq; /* consecutive packets mostly share a sequence */
    return WEFT_OK;
  }
  uint64_t *slot;
  int ins = base_map_insert(&st->seq_by_id, id, st->seqs.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 1) {
    proto_seq s;
    memset(&s, 0, sizeof s);
    s.id = id;
    if (VEC_PUSH(st->seqs, s)) return WEFT_ENOMEM;
  }
  *idx = (uint32_t)*slot;
  st->last_seq = *idx;
  return WEFT_OK;
}

static int proto_intern_entries(import_file *f, proto_seq *seq, uint32_t seq_idx,
                                proto_span list, int kind) {
  proto_import_state *st = f->state;
  proto_reader r;
  proto_field fl;
  uint64_t iid = 0;
  proto_span name = {NULL, 0};
  int has_name = 0;
  proto_reader_init_span(&r, list);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_INTERNED_IID && fl.wire_type == PROTO_WIRE_VARINT) iid = fl.value;
    if (fl.number == PROTO_INTERNED_NAME && fl.wire_type == PROTO_WIRE_LEN) {
      name = fl.span;
      has_name = 1;
    }
  }
  if (!has_name) return WEFT_OK;
  string_id id;
  int rc = ctx_intern(f->ctx, (const char *)name.data, name.len, &id);
  if (rc) return rc;
  uint64_t *slot;
  rc = base_map_insert(&st->interned,
                       proto_intern_key(seq_idx, seq->generation, kind, iid), id, &slot);
  if (rc < 0) return WEFT_ENOMEM;
  *slot = id;
  return WEFT_OK;
}

/* An interned message kept whole (its iid is field 1): the map holds its
 * index in st->source_locations. */
static int proto_intern_message(import_file *f, uint32_t seq_idx, proto_span msg, int kind) {
  proto_import_state *st = f->state;
  proto_field fl;
  if (proto_find_last(msg.data, msg.len, PROTO_INTERNED_IID, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT)
    return WEFT_OK;
  proto_span kept = proto_input_keep(f, msg);
  if (VEC_PUSH(st->source_locations, kept)) return WEFT_ENOMEM;
  uint64_t *slot;
  uint64_t key = proto_intern_key(seq_idx, st->seqs.data[seq_idx].generation, kind, fl.value);
  if (base_map_insert(&st->interned, key, st->source_locations.len - 1, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = st->source_locations.len - 1;
  return WEFT_OK;
}

/* The kept-message kind of an InternedData field of profiles, or 0. */
static int proto_profile_intern_kind(uint32_t number) {
  switch (number) {
    case PROTO_INTERNED_DATA_FUNCTION_NAMES: return PROTO_INTERN_FUNCTION_NAME;
    case PROTO_INTERNED_DATA_BUILD_IDS: return PROTO_INTERN_BUILD_ID;
    case PROTO_INTERNED_DATA_MAPPING_PATHS: return PROTO_INTERN_MAPPING_PATH;
    case PROTO_INTERNED_DATA_MAPPINGS: return PROTO_INTERN_MAPPING;
    case PROTO_INTERNED_DATA_FRAMES: return PROTO_INTERN_FRAME;
    case PROTO_INTERNED_DATA_CALLSTACKS: return PROTO_INTERN_CALLSTACK;
    default: return 0;
  }
}

/* The kind of the interned messages kept whole in InternedData field
 * `number`, or 0. */
static int proto_intern_message_kind(uint32_t number) {
  switch (number) {
    case PROTO_INTERNED_DATA_SOURCE_LOCATIONS: return PROTO_INTERN_SOURCE_LOCATION;
    case 23: return PROTO_INTERN_GRAPHICS_CONTEXT;
    case 24: return PROTO_INTERN_GPU_SPECIFICATION;
    case 47: return PROTO_INTERN_GPU_COUNTER_DESCRIPTOR;
    case 28: return PROTO_INTERN_UNSYMBOLIZED_LOCATION;
    case 48: return PROTO_INTERN_SS_TASK_CONTEXT;
    case 49: return PROTO_INTERN_SS_EXECUTION_CONTEXT;
    case 50: return PROTO_INTERN_SS_COUNTER_DESCRIPTOR;
    case 51: return PROTO_INTERN_SS_ASYNC_CONTEXT;
    case 1000: return PROTO_INTERN_COMPUTE_KERNEL;
    case 1001: return PROTO_INTERN_COMPUTE_ARG_NAME;
    default: return 0;
  }
}

static int proto_intern_data(import_file *f, uint32_t seq_idx, proto_span data) {
  proto_import_state *st = f->state;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, data);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    int kind = 0;
    if (fl.number == PROTO_INTERNED_DATA_EVENT_CATEGORIES) kind = PROTO_INTERN_EVENT_CATEGORY;
    else if (fl.number == PROTO_INTERNED_DATA_EVENT_NAMES) kind = PROTO_INTERN_EVENT_NAME;
    else if (fl.number == PROTO_INTERNED_DATA_DEBUG_ANNOTATION_NAMES) kind = PROTO_INTERN_DEBUG_NAME;
    else if (fl.number == PROTO_INTERNED_DATA_KERNEL_SYMBOLS) kind = PROTO_INTERN_KERNEL_SYMBOL;
    else if (fl.number == PROTO_INTERNED_DATA_DEBUG_ANNOTATION_STRING_VALUES)
      kind = PROTO_INTERN_DEBUG_STRING;
    else if (fl.number == PROTO_INTERNED_DATA_LOG_MESSAGE_BODY) kind = PROTO_INTERN_LOG_BODY;
    else if (fl.number == PROTO_INTERNED_DATA_PROTOLOG_STRING_ARGS)
      kind = PROTO_INTERN_PROTOLOG_STRING_ARG;
    else if (fl.number == PROTO_INTERNED_DATA_PROTOLOG_STACKTRACE)
      kind = PROTO_INTERN_PROTOLOG_STACKTRACE;
    else if (fl.number == PROTO_INTERNED_DATA_HISTOGRAM_NAMES) kind = PROTO_INTERN_HISTOGRAM_NAME;
    else if (fl.number == PROTO_INTERNED_DATA_DEBUG_ANNOTATION_VALUE_TYPE_NAMES)
      kind = PROTO_INTERN_DEBUG_TYPE_NAME;
    else if (proto_intern_message_kind(fl.number)) {
      int rc = proto_intern_message(f, seq_idx, fl.span, proto_intern_message_kind(fl.number));
      if (rc) return rc;
      continue;
    } else if ((kind = proto_profile_intern_kind(fl.number)) != 0) {
      int rc = proto_intern_message(f, seq_idx, fl.span, kind);
      if (rc) return rc;
      continue;
    }
    if (!kind) kind = proto_viewcapture_intern_kind(fl.number);
    if (!kind) continue;
    int rc = proto_intern_entries(f, &st->seqs.data[seq_idx], seq_idx, fl.span, kind);
    if (rc) return rc;
  }
  return WEFT_OK;
}

static void proto_seq_set_defaults(proto_seq *seq, proto_span defaults) {
  seq->defaults = defaults;
  seq->default_clock = 0;
  proto_field fl;
  if (proto_find_last(defaults.data, defaults.len,
                      PROTO_TRACE_PACKET_DEFAULTS_TIMESTAMP_CLOCK_ID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    seq->default_clock = fl.value;
}

static int proto_tokenize_buffer(import_file *f, const uint8_t *data, size_t len,
                                 const proto_brief *briefs, size_t n_briefs, int depth,
                                 base_error *err);

static uint64_t proto_mul_sat(uint64_t a, uint64_t b) {
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

uint64_t proto_inflate_cap(const weft_options *o, size_t file_len, uint64_t inflated_bytes,
                           size_t in_len) {
  uint64_t ratio = o->max_compression_ratio ? o->max_compression_ratio : UINT32_MAX;
  uint64_t cap = PROTO_MAX_INFLATED_BYTES;
  if (o->max_decompressed_bytes && o->max_decompressed_bytes < cap)
    cap = o->max_decompressed_bytes;
  uint64_t by_ratio = proto_mul_sat(in_len, ratio);
  if (by_ratio < (UINT64_C(1) << 20)) by_ratio = UINT64_C(1) << 20;
  if (by_ratio < cap) cap = by_ratio;
  uint64_t budget = proto_mul_sat(file_len, ratio);
  if (budget < (UINT64_C(64) << 20)) budget = UINT64_C(64) << 20;
  uint64_t left = budget > inflated_bytes ? budget - inflated_bytes : 0;
  return cap < left ? cap : left;
}

int proto_inflate_payload(proto_span payload, uint64_t cap, base_buf *out) {
  if (cap == 0) return WEFT_ELIMIT; /* the file's budget is used up */
  base_buf_init(out, cap > SIZE_MAX - 2 ? SIZE_MAX - 2 : (size_t)cap);
  proto_inflate_limits lim = {cap, 0};
  base_error ierr;
  memset(&ierr, 0, sizeof ierr);
  int rc = proto_inflate(payload.data, payload.len, &lim, out, &ierr);
  if (rc) base_buf_free(out);
  return rc;
}

/* Counts a compressed_packets payload that is not decoded: over a limit
 * (WEFT_ELIMIT) or corrupt. */
static int proto_compressed_dropped(import_file *f, int why, base_error *err) {
  int rc = import_stat(f, why == WEFT_ELIMIT ? stat_compressed_packets_over_limit
                                             : stat_compressed_packets_corrupt, 1);
  return base_error_alloc(err, rc);
}

/* Tokenizes the packets of an inflated compressed_packets payload (buf,
 * taken), or counts the payload dropped (status: WEFT_ELIMIT or
 * WEFT_EPARSE). */
static int proto_tokenize_inflated(import_file *f, int status, base_buf buf, int depth,
                                   base_error *err) {
  proto_import_state *st = f->state;
  if (status == WEFT_ENOMEM) return base_error_nomem(err);
  if (status) return proto_compressed_dropped(f, status, err); /* skipped */
  if (VEC_PUSH(st->inflated, buf)) {
    base_buf_free(&buf);
    return base_error_nomem(err);
  }
  st->inflated_bytes += buf.len;
  return proto_tokenize_buffer(f, (const uint8_t *)buf.data, buf.len, NULL, 0, depth + 1, err);
}

/* A packet a ProtoVM rebuilt from a patch (proto_protovm.h), framed as a
 * Trace in buf (taken; NULL data: dropped), tokenized as any packet except
 * that it is no patch itself. */
static int proto_tokenize_rebuilt(import_file *f, base_buf buf, int depth, base_error *err) {
  proto_import_state *st = f->state;
  if (!buf.data) return WEFT_OK;
  st->protovm_replay = 1;
  int rc = proto_tokenize_inflated(f, WEFT_OK, buf, depth, err);
  st->protovm_replay = 0;
  return rc;
}

static int proto_tokenize_compressed(import_file *f, proto_span payload,
                                     int depth, base_error *err) {
  proto_import_state *st = f->state;
  if (depth > 0) return proto_compressed_dropped(f, WEFT_EPARSE, err); /* not followed */
  base_buf buf = {0};
  int rc = proto_inflate_payload(
      payload, proto_inflate_cap(&f->ctx->options, f->len, st->inflated_bytes, payload.len),
      &buf);
  return proto_tokenize_inflated(f, rc, buf, depth, err);
}

/* The machine row of a packet; the last lookup is cached. */
static int proto_packet_machine(import_file *f, uint64_t raw, uint32_t *machine,
                                base_error *err) {
  proto_import_state *st = f->state;
  if (raw == 0) {
    *machine = f->machine;
    return WEFT_OK;
  }
  if (raw == st->last_raw_machine) {
    *machine = st->last_machine;
    return WEFT_OK;
  }
  int rc = import_machine(f, raw, machine, err);
  if (rc) return rc;
  st->last_raw_machine = raw;
  st->last_machine = *machine;
  return WEFT_OK;
}

/* ---- input release ---- */

/* The file range held for a span: the span and the bytes of its length
 * prefix before it, which a reference reads first (proto_ref_resolve); the
 * same range for its hold and its release. */
#define PROTO_INPUT_PREFIX_MAX 10 /* a varint's most bytes */
static void proto_input_range(const import_file *f, proto_span s, size_t *off, size_t *len) {
  size_t at = (size_t)(s.data - f->data);
  size_t back = at < PROTO_INPUT_PREFIX_MAX ? at : PROTO_INPUT_PREFIX_MAX;
  *off = at - back;
  *len = s.len + back;
}

/* A file range is held at the loader (a pin is a hold never released); an
 * inflated buffer counts its holds itself, or is marked pinned. */
static void proto_input_count(import_file *f, proto_span s, int pin) {
  proto_refs *r = &((proto_import_state *)f->state)->refs;
  proto_ref_buffer *b = &r->buffers.data[r->current];
  size_t off, len;
  proto_input_range(f, s, &off, &len);
  if (r->current == 0) import_input_hold(f, off, len);
  else if (pin) b->pinned = 1;
  else b->holds++;
}

void proto_input_hold(import_file *f, proto_span s) { proto_input_count(f, s, 0); }

proto_span proto_input_keep(import_file *f, proto_span s) {
  proto_import_state *st = f->state;
  if (st->last_kept.data && st->last_kept.len == s.len &&
      memcmp(st->last_kept.data, s.data, s.len) == 0)
    return st->last_kept;
  if (!st->kept.block_size) base_arena_init(&st->kept, 4096);
  uint8_t *copy = base_arena_alloc(&st->kept, s.len ? s.len : 1);
  if (!copy) {
    proto_input_count(f, s, 1);
    return s;
  }
  if (s.len) memcpy(copy, s.data, s.len);
  proto_span kept = {copy, s.len};
  st->last_kept = kept;
  return kept;
}

uint32_t proto_input_current(const import_file *f) {
  return ((const proto_import_state *)f->state)->refs.current;
}

/* Buffer i > 0 of the refs is inflated[i - 1] (entered in that order). */
static void proto_input_free_inflated(proto_import_state *st, uint32_t buffer) {
  proto_ref_buffer *b = &st->refs.buffers.data[buffer];
  if (buffer == 0 || b->holds || b->pinned || buffer > st->inflated.len) return;
  base_buf_free(&st->inflated.data[buffer - 1]);
  b->len = 0; /* nothing resolves into it any more */
}

void proto_input_release(import_file *f, uint32_t buffer, proto_span s) {
  proto_import_state *st = f->state;
  if (buffer == 0) {
    size_t off, len;
    proto_input_range(f, s, &off, &len);
    import_input_release(f, off, len);
    return;
  }
  if (buffer >= st->refs.buffers.len) return;
  proto_ref_buffer *b = &st->refs.buffers.data[buffer];
  if (b->holds && --b->holds == 0) proto_input_free_inflated(st, buffer);
}

/* The sort payload of a packet: a reference, or a side record. */
static int proto_packet_payload(import_file *f, proto_span pkt, uint32_t seq_idx,
                                uint32_t machine, uint64_t *payload) {
  proto_import_state *st = f->state;
  const proto_seq *seq = &st->seqs.data[seq_idx];
  proto_ref_ctx c = {seq->defaults, seq_idx, seq->generation, machine, 0};
  int made = proto_ref_make(&st->refs, pkt, &c, payload);
  if (made < 0) return made;
  proto_input_hold(f, pkt);
  if (made) return WEFT_OK;
  proto_packet_info info = {pkt, seq->defaults, seq_idx, seq->generation, machine,
                            st->refs.current};
  if (VEC_PUSH(st->packets, info)) return WEFT_ENOMEM;
  *payload = PROTO_REF_SIDE | (uint64_t)(st->packets.len - 1);
  return WEFT_OK;
}

static uint64_t proto_seq_thread_key(uint32_t seq, uint32_t generation) {
  return (uint64_t)seq << 32 | generation;
}

int proto_seq_thread(const proto_import_state *st, uint32_t seq, uint32_t generation,
                     int64_t *pid, int64_t *tid) {
  const uint64_t *v = base_map_find(&st->seq_threads, proto_seq_thread_key(seq, generation));
  if (!v) return 0;
  *pid = (int32_t)(uint32_t)(*v >> 32);
  *tid = (int32_t)(uint32_t)*v;
  return 1;
}

/* Records the sequence's thread as its current generation's. */
static int proto_seq_note_thread(proto_import_state *st, uint32_t seq_idx) {
  const proto_seq *seq = &st->seqs.data[seq_idx];
  if (!seq->has_thread) return WEFT_OK;
  uint64_t *slot, v = (uint64_t)(uint32_t)seq->pid << 32 | (uint32_t)seq->tid;
  if (base_map_insert(&st->seq_threads, proto_seq_thread_key(seq_idx, seq->generation), v,
                      &slot) < 0)
    return WEFT_ENOMEM;
  *slot = v;
  return WEFT_OK;
}

/* A ThreadDescriptor packet makes its thread the sequence's (an absent pid
 * or tid is 0); so does a thread's TrackDescriptor (`in_track`) that sets
 * both. */
static int proto_seq_adopt_thread(proto_import_state *st, uint32_t seq_idx, proto_span desc,
                                  int in_track) {
  proto_field fl, pid, tid;
  if (in_track) {
    if (proto_find_last(desc.data, desc.len, PROTO_TRACK_DESCRIPTOR_THREAD, &fl) != 1 ||
        fl.wire_type != PROTO_WIRE_LEN)
      return WEFT_OK;
    desc = fl.span;
  }
  int has_pid = proto_find_last(desc.data, desc.len, PROTO_THREAD_DESCRIPTOR_PID, &pid) == 1;
  int has_tid = proto_find_last(desc.data, desc.len, PROTO_THREAD_DESCRIPTOR_TID, &tid) == 1;
  if (in_track && (!has_pid || !has_tid)) return WEFT_OK; /* a packet's: absent is 0 */
  proto_seq *seq = &st->seqs.data[seq_idx];
  seq->pid = has_pid ? proto_field_int32(&pid) : 0;
  seq->tid = has_tid ? proto_field_int32(&tid) : 0;
  seq->has_thread = 1;
  return proto_seq_note_thread(st, seq_idx);
}

/* import_clock_on for a packet of `seq`, remembering the last node (the
 * clock graph never renumbers nodes). */
static int proto_seq_clock(import_file *f, proto_seq *seq, uint32_t machine, uint64_t clock_id,
                           uint32_t *node) {
  if (seq->has_cached_clock && seq->cached_clock_id == clock_id &&
      seq->cached_clock_machine == machine) {
    *node = seq->cached_clock_node;
    return WEFT_OK;
  }
  int rc = import_clock_on(f, machine, seq->id, clock_id, node);
  if (rc) return rc;
  seq->cached_clock_id = clock_id;
  seq->cached_clock_machine = machine;
  seq->cached_clock_node = *node;
  seq->has_cached_clock = 1;
  return WEFT_OK;
}

int proto_log_at(import_file *f, proto_span at, stats_id stat, int64_t arg_set) {
  int64_t offset = at.data >= f->data && at.data < f->data + f->len ? at.data - f->data : -1;
  return model_import_log_at_byte(f->ctx, f->trace_id, offset, stat, arg_set);
}

/* A packet of sequence seq_id skipped for want of incremental state:
 * counted, and logged at the packet with its sequence id. */
static int proto_log_skipped(import_file *f, proto_span pkt, uint32_t seq_id, stats_id stat) {
  int64_t set = -1;
  int rc = model_arg_int(f->ctx, "packet_sequence_id", 18, MODEL_ARG_UINT, seq_id);
  if (!rc) rc = model_args_commit(f->ctx, &set);
  else model_args_discard(f->ctx);
  if (!rc) rc = proto_log_at(f, pkt, stat, set);
  return rc ? rc : import_stat(f, stat, 1);
}

/* A packet's SystemInfo, read before sorting (Perfetto reads it while
 * tokenizing, so its page size applies to every sample of the file). */
static int proto_system_info_tokenize(proto_import_state *st, proto_span pkt) {
  proto_field fl;
  if (proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_SYSTEM_INFO, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN)
    return WEFT_OK;
  return proto_sys_stats_system_info(&st->sys_stats, fl.span);
}

/* One packet; `brief`: what the scan read of it (proto_head.h), or NULL. */
static int proto_tokenize_packet(import_file *f, proto_span pkt, const proto_brief *brief,
                                 int depth, base_error *err) {
  proto_import_state *st = f->state;
  if (brief && brief->kind == PROTO_BRIEF_COMPRESSED) { /* inflated by a scan */
    base_buf buf = {0};
    int status = proto_scanned_inflated(st->brief_scan, brief->span_len, st->inflated_bytes, &buf);
    if (status != PROTO_SCANNED_REDO) return proto_tokenize_inflated(f, status, buf, depth, err);
    brief = NULL; /* inflated here after all */
  }
  proto_packet_head h;
  if (brief) proto_head_of_brief(brief, pkt, &h);
  else if (proto_head_read(pkt, &h) < 0) return WEFT_OK; /* malformed: skip */
  if (h.has_compressed) return proto_tokenize_compressed(f, h.compressed, depth, err);
  if (!st->protovm_replay && proto_protovm_wants(st->protovm, &h)) {
    int taken;
    base_buf rebuilt;
    int rc = proto_protovm_packet(f, &st->protovm, pkt, &h, &taken, &rebuilt);
    if (rc) return base_error_alloc(err, rc);
    if (taken) return proto_tokenize_rebuilt(f, rebuilt, depth, err);
  }
  uint32_t machine;
  int rc = proto_packet_machine(f, h.raw_machine, &machine, err);
  if (rc) return rc;
  if (h.has_remote_sync) {
    rc = proto_remote_clock_sync(f, machine, h.remote_sync, err);
    if (rc) return rc;
  }
  rc = h.misc_reads_more ? proto_misc_tokenize(f, &st->misc, pkt, h.seq_id)
                         : proto_misc_tokenize_common(f, &st->misc, h.seq_id, h.dropped, h.stats);
  if (!rc && h.misc_reads_more) rc = proto_power_tokenize(f, &st->power, machine, pkt);
  if (!rc && h.misc_reads_more) rc = proto_gpu_tokenize(f, &st->gpu, machine, pkt);
  if (!rc && h.misc_reads_more) rc = proto_android_log_tokenize(f, &st->android, machine, pkt);
  if (!rc && h.misc_reads_more) rc = proto_system_info_tokenize(st, pkt);
  if (rc) return base_error_alloc(err, rc);
  uint32_t seq_idx;
  rc = proto_seq_get(st, h.seq_id, &seq_idx);
  if (rc) return base_error_alloc(err, rc);
  proto_seq *seq = &st->seqs.data[seq_idx];
  if (h.cleared) {
    seq->state_valid = 1;
    seq->generation++;
    seq->defaults.data = NULL;
    seq->defaults.len = 0;
    seq->default_clock = 0;
    rc = proto_seq_note_thread(st, seq_idx); /* the new generation keeps the thread */
    if (rc) return base_error_alloc(err, rc);
  }
  else if (h.dropped)
    seq->state_valid = 0;
  seq->needs_state_total += (uint64_t)h.needs_state;
  if (h.needs_state && !seq->state_valid) { /* its interned data, defaults... are gone */
    seq->needs_state_skipped++;
    rc = proto_log_skipped(f, pkt, h.seq_id,
                           stat_packet_skipped_seq_needs_incremental_state_invalid);
    return base_error_alloc(err, rc);
  }
  if (h.has_thread_desc && !seq->state_valid) { /* its delta times would be wrong */
    rc = proto_log_skipped(f, pkt, h.seq_id,
                           stat_thread_descriptor_skipped_incremental_state_invalid);
    return base_error_alloc(err, rc);
  }
  if (h.has_thread_desc) {
    proto_field td;
    if (proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_THREAD_DESCRIPTOR, &td) == 1 &&
        td.wire_type == PROTO_WIRE_LEN &&
        (rc = proto_seq_adopt_thread(st, seq_idx, td.span, 0)) != 0)
      return base_error_alloc(err, rc);
  }
  if (h.has_defaults) proto_seq_set_defaults(seq, proto_input_keep(f, h.defaults));
  if (h.has_interned) {
    rc = proto_intern_data(f, seq_idx, h.interned);
    if (rc) return base_error_alloc(err, rc);
    seq = &st->seqs.data[seq_idx];
  }
  if (h.first_on_sequence) rc = proto_tracks_first_packet(&st->track_model, h.seq_id);
  if (!rc && h.has_track_desc) rc = proto_tracks_reserve(f, &st->track_model, machine, h.track_desc);
  if (!rc && h.has_track_desc && seq->state_valid)
    rc = proto_seq_adopt_thread(st, seq_idx, h.track_desc, 1);
  if (rc) return base_error_alloc(err, rc);
  if (h.has_translation) {
    rc = proto_translation_read(f, &st->translation, proto_input_keep(f, h.translation));
    if (rc) return base_error_alloc(err, rc);
  }
  if (h.has_snapshot) {
    rc = proto_clock_snapshot(f, machine, h.seq_id, h.snapshot);
    if (rc) return base_error_set(err, rc, "clock snapshot failed");
  }
  if (h.has_ftrace) {
    if ((rc = proto_clock_used(f, 1)) != 0) return base_error_alloc(err, rc);
    return proto_ftrace_tokenize(f, h.ftrace, seq_idx, seq->generation, machine, err);
  }
  if (h.has_etw) {
    if ((rc = proto_clock_used(f, 0)) != 0) return base_error_alloc(err, rc);
    return proto_etw_tokenize(f, h.etw, machine, err);
  }
  int explicit_clock = h.has_clock_id || seq->default_clock;
  uint64_t clock_id = h.has_clock_id ? h.clock_id
                      : seq->default_clock ? seq->default_clock
                                           : proto_clock_default(st);
  int64_t ts = 0, legacy_ts = 0;
  uint32_t node;
  int legacy = 0;
  if (brief) /* a TrackEvent without legacy time, or ftrace (returned above) */
    legacy = 0;
  else if (h.legacy_fields == 1 && h.track_events == 1)
    rc = proto_legacy_event_time(f, seq, h.track_event, &legacy_ts, &legacy);
  else if (h.legacy_fields)
    rc = proto_legacy_time(f, seq, pkt, &legacy_ts, &legacy);
  if (rc) return base_error_alloc(err, rc);
  if (legacy < 0) return WEFT_OK; /* invalid legacy timestamp: dropped */
  if (legacy > 0) {
    /* Legacy track-event times are CLOCK_MONOTONIC; without a snapshot
     * relating that clock they are taken as trace time. */
    h.has_ts = 1;
    h.ts = legacy_ts;
    if (st->snapshot_has_monotonic) clock_id = PROTO_BUILTIN_CLOCK_MONOTONIC;
    explicit_clock = st->snapshot_has_monotonic;
  }
  if (h.has_ts) {
    rc = proto_seq_clock(f, seq, machine, clock_id, &node);
    if (rc) return base_error_set(err, rc, "bad clock %llu", (unsigned long long)clock_id);
    ts = h.has_snapshot ? proto_clock_scale(st, h.seq_id, clock_id, h.ts)
                        : proto_clock_reading(st, h.seq_id, clock_id, h.ts);
    st->saw_timestamp = 1;
    if (!h.has_snapshot) { /* Perfetto reads a snapshot before its sorter */
      seq->last_ts = ts;
      seq->last_clock = node;
      seq->has_last = 1;
      proto_latest_note(&st->latest, node, ts);
    }
    if ((explicit_clock || h.has_service) && (rc = proto_clock_used(f, 1)) != 0)
      return base_error_alloc(err, rc);
    if (h.has_service && proto_ftrace_service_event(f, h.service, ts, node))
      return base_error_nomem(err);
  } else if (h.relevant) {
    if (proto_latest_pick(f, &st->latest, &ts, &node)) {
      /* at the latest time the file reached (see proto_latest.h) */
    } else if (seq->has_last) {
      ts = seq->last_ts;
      node = seq->last_clock;
    } else {
      rc = import_clock_on(f, machine, 0, proto_clock_default(st), &node);
      if (rc) return base_error_alloc(err, rc);
    }
  } else {
    return WEFT_OK;
  }
  if (h.track_events == 1) { /* incremental counters are summed in packet order */
    rc = proto_event_counters_tokenize(f, seq_idx, machine, h.track_event);
    if (rc) return base_error_alloc(err, rc);
  }
  uint64_t payload;
  rc = proto_packet_payload(f, pkt, seq_idx, machine, &payload);
  if (!rc) rc = h.has_ts ? import_push(f, ts, node, payload)
                         : import_push_untimed(f, ts, node, payload);
  if (rc) return base_error_alloc(err, rc);
  return WEFT_OK;
}

/* The packets of a buffer; briefs[i] (i < n_briefs) is the brief of the
 * i-th packet the walk meets (the scan's walk met the same ones). */
static int proto_tokenize_packets(import_file *f, const uint8_t *data, size_t len,
                                  const proto_brief *briefs, size_t n_briefs, int depth,
                                  base_error *err);

static int proto_tokenize_buffer(import_file *f, const uint8_t *data, size_t len,
                                 const proto_brief *briefs, size_t n_briefs, int depth,
                                 base_error *err) {
  proto_import_state *st = f->state;
  uint32_t saved;
  if (proto_ref_enter(&st->refs, data, len, &saved))
    return base_error_nomem(err);
  int rc = proto_tokenize_packets(f, data, len, briefs, n_briefs, depth, err);
  proto_ref_leave(&st->refs, saved);
  return rc;
}

static int proto_tokenize_packets(import_file *f, const uint8_t *data, size_t len,
                                  const proto_brief *briefs, size_t n_briefs, int depth,
                                  base_error *err) {
  proto_packet_iter it;
  proto_packet pkt;
  proto_packets_init(&it, data, len, 0);
  for (size_t i = 0;;) {
    int rc = proto_packets_next(&it, &pkt, NULL); /* why it stopped: it.error */
    if (rc == 0) return WEFT_OK;
    if (rc < 0) {
      if (it.error == PROTO_PACKETS_ERR_UNEXPECTED_FIELD) continue; /* as in the scan */
      if (it.error == PROTO_PACKETS_ERR_TRUNCATED && depth == 0) /* counted, kept */
        return import_stat(f, stat_proto_truncated_tail, (int64_t)(len - it.error_offset));
      return WEFT_OK; /* garbage tail: keep what was read */
    }
    const proto_brief *brief = i < n_briefs && briefs[i].kind ? &briefs[i] : NULL;
    i++;
    rc = proto_tokenize_packet(f, pkt.data, brief, depth, err);
    if (rc) return rc;
  }
}

/* Chunks of a large file whose briefs workers make ahead of tokenize
 * (proto_scanned_chunks): at most PROTO_CHUNKS_AHEAD submitted at once. */
#define PROTO_CHUNKS_AHEAD 3
typedef struct proto_chunk_jobs {
  const uint64_t *starts;
  size_t count, submitted;
  proto_chunk_scan *args; /* one per chunk: a job's arg lives until taken */
  scan_job **jobs;        /* NULL: no job (no workers, or not submitted) */
} proto_chunk_jobs;

static void proto_chunk_range(const import_file *f, const proto_chunk_jobs *c, size_t i,
                              size_t *start, size_t *end) {
  *start = (size_t)c->starts[i];
  *end = i + 1 < c->count ? (size_t)c->starts[i + 1] : f->len;
}

/* Submits chunk jobs up to PROTO_CHUNKS_AHEAD past chunk `at`. */
static void proto_chunks_submit(import_file *f, proto_chunk_jobs *c, size_t at) {
  while (c->submitted < c->count && c->submitted < at + PROTO_CHUNKS_AHEAD) {
    size_t i = c->submitted++, start, end;
    proto_chunk_range(f, c, i, &start, &end);
    c->args[i] = (proto_chunk_scan){f->data + start, end - start, f->len, &f->ctx->options};
    scan_task task = {proto_chunk_scan_run, proto_scan_free, &c->args[i]};
    if (import_task_submit(f, &task, &c->jobs[i])) c->jobs[i] = NULL; /* read alone */
  }
}

/* The packets of chunk i, with the briefs its job made when it has one. */
static int proto_tokenize_chunk(import_file *f, proto_chunk_jobs *c, size_t i, base_error *err) {
  proto_import_state *st = f->state;
  void *scan = NULL;
  base_error jerr = {0};
  if (c->jobs[i] && import_task_take(f, c->jobs[i], &scan, &jerr)) scan = NULL; /* read alone */
  c->jobs[i] = NULL;
  size_t start, end, n_briefs = 0;
  proto_chunk_range(f, c, i, &start, &end);
  const proto_brief *briefs = proto_scanned_briefs(scan, &n_briefs);
  st->brief_scan = scan;
  int rc = proto_tokenize_packets(f, f->data + start, end - start, briefs, n_briefs, 0, err);
  st->brief_scan = NULL;
  proto_scan_free(scan);
  return rc;
}

/* The whole file, chunk by chunk, workers making the briefs of the chunks
 * ahead: the same packets in the same order as one walk (chunks start
 * where that walk met a packet), the same pushes. */
static int proto_tokenize_chunked(import_file *f, const uint64_t *starts, size_t count,
                                  base_error *err) {
  proto_import_state *st = f->state;
  proto_chunk_jobs c = {starts, count, 0, base_calloc(count, sizeof(proto_chunk_scan)),
                        base_calloc(count, sizeof(scan_job *))};
  uint32_t saved;
  int rc = c.args && c.jobs ? WEFT_OK : WEFT_ENOMEM;
  if (!rc && proto_ref_enter(&st->refs, f->data, f->len, &saved)) rc = WEFT_ENOMEM;
  if (rc) {
    base_free(c.args);
    base_free(c.jobs);
    return base_error_alloc(err, rc);
  }
  for (size_t i = 0; i < count && !rc; i++) {
    proto_chunks_submit(f, &c, i);
    rc = proto_tokenize_chunk(f, &c, i, err);
  }
  for (size_t i = 0; i < c.submitted; i++) import_task_drop(f, c.jobs[i]);
  proto_ref_leave(&st->refs, saved);
  base_free(c.args);
  base_free(c.jobs);
  return rc;
}

static int proto_tokenize(import_file *f, base_error *err) {
  proto_import_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  f->release_input = 1;
  f->ctx->pid_zero_is_idle = 1;
  int rc = proto_declare_scanned_machines(f, f->scan, err);
  size_t n_briefs = 0, n_chunks = 0;
  const proto_brief *briefs = rc ? NULL : proto_scanned_briefs(f->scan, &n_briefs);
  const uint64_t *chunks = rc ? NULL : proto_scanned_chunks(f->scan, &n_chunks);
  st->brief_scan = f->scan;
  if (!rc && !briefs && n_chunks > 1) rc = proto_tokenize_chunked(f, chunks, n_chunks, err);
  else if (!rc) rc = proto_tokenize_buffer(f, f->data, f->len, briefs, n_briefs, 0, err);
  st->brief_scan = NULL;
  for (uint32_t i = 1; !rc && i < st->refs.buffers.len; i++) proto_input_free_inflated(st, i);
  if (!rc && proto_ftrace_tokenize_end(f)) rc = base_error_nomem(err);
  if (rc) return rc;
  if (!st->claimed_clock && st->saw_timestamp)
    import_claim_trace_time(f, PROTO_BUILTIN_CLOCK_BOOTTIME);
  rc = ctx_metadata_file_type(f->ctx, f->trace_id, "proto");
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  if (rc) return base_error_alloc(err, rc);
  return WEFT_OK;
}

/* A proto file names the idle thread of each machine it has data on. */
static int proto_name_idle_threads(import_file *f) {
  const stats_store *stats = &f->ctx->stats;
  int rc = model_name_idle_thread(f->ctx, f->machine);
  for (size_t i = 0; !rc && i < stats->scopes.len; i++)
    if (stats->scopes.data[i].trace == f->trace_id)
      rc = model_name_idle_thread(f->ctx, stats->scopes.data[i].machine);
  return rc;
}

static int proto_end(import_file *f, base_error *err) {
  proto_import_state *st = f->state;
  int rc;
  if (proto_name_idle_threads(f)) return base_error_nomem(err);
  if (st && proto_heap_graph_end(f, st->heap_graph))
    return base_error_set(err, WEFT_ENOMEM, "proto: failed to finish heap graphs");
  if (st && (rc = proto_native_symbols_frames(f, st->native_symbols)) != 0)
    return base_error_alloc(err, rc);
  if (st && st->profile && proto_profile_end(f)) return base_error_nomem(err);
  if (st && (rc = proto_v8_end(f)) != 0) return base_error_alloc(err, rc);
  if ((rc = proto_etw_end(f)) != 0) return base_error_alloc(err, rc);
  if (st && (rc = proto_winscope_end(f, st->winscope)) != 0) return base_error_alloc(err, rc);
  if (st && (rc = proto_native_symbols_end(f, st->native_symbols)) != 0)
    return base_error_alloc(err, rc);
  if (!st) return WEFT_OK;
  for (size_t i = 0; i < st->seqs.len; i++) {
    const proto_seq *seq = &st->seqs.data[i];
    if (!seq->needs_state_skipped) continue;
    rc = proto_misc_note_skipped(&st->misc, seq->id, seq->needs_state_total,
                                 seq->needs_state_skipped);
    if (rc) return base_error_alloc(err, rc);
  }
  return proto_misc_end(f, &st->misc, err);
}

static void proto_destroy(import_file *f) {
  proto_import_state *st = f->state;
  if (!st) return;
  for (size_t i = 0; i < st->inflated.len; i++) base_buf_free(&st->inflated.data[i]);
  VEC_FREE(st->inflated);
  base_arena_free(&st->kept);
  VEC_FREE(st->packets);
  proto_refs_free(&st->refs);
  VEC_FREE(st->seqs);
  base_map_free(&st->seq_by_id);
  base_map_free(&st->seq_threads);
  base_map_free(&st->interned);
  proto_tracks_free(&st->track_model);
  base_map_free(&st->counter_sums);
  base_map_free(&st->token_sums);
  base_map_free(&st->counter_values);
  base_map_free(&st->clock_multipliers);
  base_map_free(&st->incremental_clocks);
  VEC_FREE(st->source_locations);
  proto_misc_free(&st->misc);
  v8_profile_queue_free(&st->v8);
  base_buf_free(&st->categories);
  proto_ftrace_free(st->ftrace);
  proto_etw_free(st->etw);
  proto_sys_stats_free(st->sys_stats);
  proto_power_free(st->power);
  proto_heap_graph_free(st->heap_graph);
  proto_translation_free(st->translation);
  proto_profile_free(st->profile);
  proto_gpu_free(&st->gpu);
  proto_android_free(st->android);
  proto_android_fw_free(st->android_fw);
  proto_shell_state_free(st->shell);
  proto_winscope_free(st->winscope);
  proto_sf_free(st->sf);
  proto_wm_free(st->wm);
  proto_protovm_free(st->protovm);
  proto_frames_free(st->frames);
  proto_frame_timeline_free(st->frame_timeline);
  proto_native_symbols_free(st->native_symbols);
  base_free(st);
  f->state = NULL;
}

const importer_ops import_proto_ops = {
    .trace_type = "proto",
    .scan = proto_scan,
    .scan_free = proto_scan_free,
    .tokenize = proto_tokenize,
    .prepare = proto_import_prepare,
    .locate_rule = proto_import_locate_rule,
    .parse = proto_import_parse,
    .end = proto_end,
    .destroy = proto_destroy,
};
