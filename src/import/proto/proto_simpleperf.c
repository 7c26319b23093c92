/* proto_simpleperf: the simpleperf_proto importer, for the output of
 * `simpleperf report-sample --protobuf`.
 *
 * The file is "SIMPLEPERF", a 16-bit version, then records, each a 32-bit
 * little-endian length and a Record message, up to a zero length. Records:
 *  - File (id, path, symbols): a stack_profile_mapping named by the path;
 *  - Thread (thread_id, process_id, thread_name): the thread, in its
 *    process (Perfetto's UpdateThread: a new process then gets its main
 *    thread), with its name; none for a zero tid or pid. A thread record
 *    is parsed in time order, at the time of the last sample or context
 *    switch before it in the file (0 before any), after that sample;
 *  - Sample (time, thread_id, callchain): a cpu_profile_stack_sample on the
 *    callsite of its callchain, whose first entry is the sampled (leaf)
 *    frame and the last the root; each entry's frame is (the file's
 *    mapping, vaddr_in_file, the file's symbol symbol_id, NULL if none).
 * Files are usually written after the samples, so tokenize keeps them
 * and the first parse (or the end, without samples) applies them all, in
 * file order, before any sample. Sample times are
 * CLOCK_MONOTONIC (perf's clock), the file's own timeline.
 * A truncated file keeps what came before; records past 16 MiB are
 * counted in perf_record_skipped and dropped. */
#include "import/importer.h"
#include "import/proto/proto_wire.h"
#include "model/stack_profile.h"

#define SP_MAGIC_LEN 10
#define SP_HEADER_LEN 12
#define SP_MAX_RECORD (16u << 20) /* records of this size or more are skipped */
/* A sample's payload: its record's offset and length (below
 * SP_MAX_RECORD); a thread record's: SP_THREAD and its index. */
#define SP_OFFSET_BITS 39
#define SP_THREAD (UINT64_C(1) << 63)
#define SP_CLOCK_MONOTONIC 3
/* Record */
#define REC_SAMPLE 1
#define REC_FILE 3
#define REC_THREAD 4
#define REC_CONTEXT_SWITCH 6
#define CONTEXT_SWITCH_TIME 2
/* Sample and its CallChainEntry */
#define SAMPLE_TIME 1
#define SAMPLE_THREAD_ID 2
#define SAMPLE_CALLCHAIN 3
#define ENTRY_VADDR 1
#define ENTRY_FILE_ID 2
#define ENTRY_SYMBOL_ID 3
/* File, Thread */
#define FILE_ID 1
#define FILE_PATH 2
#define FILE_SYMBOL 3
#define THREAD_ID 1
#define THREAD_PROCESS_ID 2
#define THREAD_NAME 3
#define SP_MAX_CHAIN 4096

typedef struct sp_file {
  uint64_t id;
  proto_span msg;
  uint32_t mapping; /* once applied */
  size_t first_symbol, symbol_count; /* into sp_state.symbols, once applied */
} sp_file;

typedef struct sp_state {
  uint32_t clock;
  VEC(sp_file) files;
  VEC(proto_span) symbols; /* every file's symbols, in order */
  VEC(proto_span) threads;
  base_map file_index; /* file id + 1 -> index into files */
  int applied;
  int64_t last_ts; /* of the last sample or context switch tokenized */
} sp_state;

static int sp_tokenize_record(import_file *f, sp_state *st, size_t off, size_t len) {
  proto_reader rd;
  proto_field fl;
  proto_reader_init(&rd, f->data + off, len);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == REC_FILE) {
      proto_field id;
      sp_file file = {0, fl.span, 0, 0, 0};
      if (proto_find_last(fl.span.data, fl.span.len, FILE_ID, &id) == 1) file.id = id.value;
      if (VEC_PUSH(st->files, file)) return WEFT_ENOMEM;
    } else if (fl.number == REC_THREAD) {
      if (VEC_PUSH(st->threads, fl.span)) return WEFT_ENOMEM;
      int rc = import_push(f, st->last_ts, st->clock, SP_THREAD | (st->threads.len - 1));
      if (rc) return rc;
    } else if (fl.number == REC_CONTEXT_SWITCH) {
      proto_field t;
      if (proto_find_last(fl.span.data, fl.span.len, CONTEXT_SWITCH_TIME, &t) == 1)
        st->last_ts = (int64_t)t.value;
    } else if (fl.number == REC_SAMPLE) {
      proto_field t;
      int64_t ts = 0;
      if (proto_find_last(fl.span.data, fl.span.len, SAMPLE_TIME, &t) == 1)
        st->last_ts = ts = (int64_t)t.value;
      size_t at = (size_t)(fl.span.data - f->data);
      uint64_t payload = (uint64_t)at | ((uint64_t)fl.span.len << SP_OFFSET_BITS);
      int rc = import_push(f, ts, st->clock, payload);
      if (rc) return rc;
    }
  }
  return WEFT_OK;
}

static int sp_tokenize(import_file *f, base_error *err) {
  sp_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = import_clock_alias(f, SP_CLOCK_MONOTONIC);
  if (!rc) rc = import_clock_anchor(f, st->clock);
  if (!rc) rc = ctx_metadata_file_type(f->ctx, f->trace_id, "simpleperf_proto");
  if (!rc) rc = ctx_metadata_trace_time(f->ctx, SP_CLOCK_MONOTONIC);
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  size_t at = SP_HEADER_LEN;
  while (!rc && at + 4 <= f->len) {
    uint32_t len = proto_load_le32(f->data + at);
    at += 4;
    if (len == 0) break;
    if (len > f->len - at) break; /* truncated: keep what came before */
    if (len >= SP_MAX_RECORD || at >= (UINT64_C(1) << SP_OFFSET_BITS))
      rc = import_stat(f, stat_perf_record_skipped, 1);
    else rc = sp_tokenize_record(f, st, at, len);
    at += len;
  }
  return rc ? base_error_set(err, rc, "simpleperf: tokenize failed") : WEFT_OK;
}

/* ---- files and threads ---- */

/* Indexes a file's symbols (so that a lookup is one step). */
static int sp_index_symbols(sp_state *st, sp_file *file) {
  proto_reader rd;
  proto_field fl;
  file->first_symbol = st->symbols.len;
  proto_reader_init_span(&rd, file->msg);
  while (proto_reader_next(&rd, &fl) == 1)
    if (fl.number == FILE_SYMBOL && fl.wire_type == PROTO_WIRE_LEN && VEC_PUSH(st->symbols, fl.span))
      return WEFT_ENOMEM;
  file->symbol_count = st->symbols.len - file->first_symbol;
  return WEFT_OK;
}

static int sp_apply_file(import_file *f, sp_state *st, size_t i) {
  sp_file *file = &st->files.data[i];
  if (sp_index_symbols(st, file)) return WEFT_ENOMEM;
  stack_profile_mapping_spec m;
  memset(&m, 0, sizeof m);
  proto_field fl;
  int rc = ctx_intern(f->ctx, "", 0, &m.build_id);
  if (!rc && proto_find_last(file->msg.data, file->msg.len, FILE_PATH, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_LEN)
    rc = ctx_intern(f->ctx, (const char *)fl.span.data, fl.span.len, &m.name);
  else if (!rc)
    m.name = m.build_id;
  m.end = -1; /* a dummy mapping: the whole address space */
  if (!rc) rc = stack_profile_mapping_new(f->ctx, &m, &file->mapping);
  uint64_t *slot;
  if (!rc && base_map_insert(&st->file_index, file->id + 1, i, &slot) < 0) rc = WEFT_ENOMEM;
  else if (!rc) *slot = i;
  return rc;
}

static int sp_apply_thread(import_file *f, proto_span msg) {
  uint64_t tid = 0, pid = 0;
  proto_span name = {NULL, 0};
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, msg);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.number == THREAD_ID && fl.wire_type == PROTO_WIRE_VARINT) tid = fl.value;
    if (fl.number == THREAD_PROCESS_ID && fl.wire_type == PROTO_WIRE_VARINT) pid = fl.value;
    if (fl.number == THREAD_NAME && fl.wire_type == PROTO_WIRE_LEN) name = fl.span;
  }
  uint32_t utid;
  if (tid == 0 || pid == 0) return WEFT_OK;
  int rc = model_thread_update(f->ctx, f->machine, (int64_t)tid, (int64_t)pid, &utid);
  if (!rc && name.data)
    rc = model_thread_set_name(f->ctx, utid, (const char *)name.data, name.len);
  return rc;
}

static int sp_apply_all(import_file *f, sp_state *st) {
  if (st->applied) return WEFT_OK;
  st->applied = 1;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < st->files.len; i++) rc = sp_apply_file(f, st, i);
  return rc;
}

/* ---- samples ---- */

/* The symbol_id-th symbol of a file, or STRING_NULL. */
static int sp_symbol(import_file *f, const sp_state *st, const sp_file *file, int64_t symbol_id,
                     string_id *out) {
  *out = STRING_NULL;
  if (symbol_id < 0 || (uint64_t)symbol_id >= file->symbol_count) return WEFT_OK;
  proto_span sym = st->symbols.data[file->first_symbol + (size_t)symbol_id];
  return ctx_intern(f->ctx, (const char *)sym.data, sym.len, out);
}

/* The frame of one CallChainEntry; -1 if its file is unknown (counted). */
static int sp_entry_frame(import_file *f, sp_state *st, proto_span entry, int64_t *frame) {
  uint64_t vaddr = 0, file_id = 0;
  int64_t symbol_id = -1;
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, entry);
  while (proto_reader_next(&rd, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == ENTRY_VADDR) vaddr = fl.value;
    if (fl.number == ENTRY_FILE_ID) file_id = fl.value;
    if (fl.number == ENTRY_SYMBOL_ID) symbol_id = proto_field_int32(&fl);
  }
  *frame = -1;
  uint64_t *index = base_map_find(&st->file_index, file_id + 1);
  if (!index) return import_stat(f, stat_simpleperf_missing_file_mapping, 1);
  const sp_file *file = &st->files.data[*index];
  string_id name;
  uint32_t id = 0;
  int rc = sp_symbol(f, st, file, symbol_id, &name);
  if (!rc) rc = stack_profile_frame(f->ctx, file->mapping, name, (int64_t)vaddr, STRING_NULL, &id);
  *frame = id;
  return rc;
}

/* The callsite of a callchain (leaf first): built from its last entry. */
static int sp_callchain(import_file *f, sp_state *st, proto_span sample, int64_t *leaf) {
  proto_span entries[SP_MAX_CHAIN];
  size_t n = 0;
  proto_reader rd;
  proto_field fl;
  proto_reader_init_span(&rd, sample);
  while (n < SP_MAX_CHAIN && proto_reader_next(&rd, &fl) == 1)
    if (fl.number == SAMPLE_CALLCHAIN && fl.wire_type == PROTO_WIRE_LEN) entries[n++] = fl.span;
  *leaf = -1;
  while (n--) {
    int64_t frame;
    int rc = sp_entry_frame(f, st, entries[n], &frame);
    if (rc || frame < 0) return *leaf = -1, rc;
    uint32_t cs;
    rc = stack_profile_callsite(f->ctx, *leaf, (uint32_t)frame, &cs);
    if (rc) return rc;
    *leaf = cs;
  }
  return WEFT_OK;
}

static int sp_parse(import_file *f, const sort_event *event, void *prepared, base_error *err) {
  (void)prepared;
  sp_state *st = f->state;
  int rc = sp_apply_all(f, st);
  if (!rc && (event->payload & SP_THREAD)) {
    size_t index = (size_t)(event->payload & ~SP_THREAD);
    rc = index < st->threads.len ? sp_apply_thread(f, st->threads.data[index]) : WEFT_OK;
    return rc ? base_error_set(err, rc, "simpleperf: failed to apply a thread") : WEFT_OK;
  }
  size_t at = (size_t)(event->payload & ((UINT64_C(1) << SP_OFFSET_BITS) - 1));
  size_t len = (size_t)(event->payload >> SP_OFFSET_BITS);
  proto_span sample = {f->data + at, len};
  proto_field fl;
  uint64_t tid = 0;
  if (proto_find_last(sample.data, sample.len, SAMPLE_THREAD_ID, &fl) == 1) tid = fl.value;
  int64_t leaf = -1;
  uint32_t utid;
  /* the thread first, whether or not the sample has a callsite */
  if (!rc) rc = model_thread(f->ctx, f->machine, (int64_t)(uint32_t)tid, &utid);
  if (!rc) rc = sp_callchain(f, st, sample, &leaf);
  if (!rc && leaf >= 0)
    rc = stack_profile_cpu_sample(f->ctx, STACK_PROFILE_CPU_SIMPLEPERF, event->ts, (uint32_t)leaf,
                                  utid, 0);
  return rc ? base_error_set(err, rc, "simpleperf: failed to apply a sample") : WEFT_OK;
}

static int sp_end(import_file *f, base_error *err) {
  int rc = f->state ? sp_apply_all(f, f->state) : WEFT_OK;
  return rc ? base_error_set(err, rc, "simpleperf: failed to apply files") : WEFT_OK;
}

static void sp_destroy(import_file *f) {
  sp_state *st = f->state;
  if (!st) return;
  VEC_FREE(st->files);
  VEC_FREE(st->threads);
  VEC_FREE(st->symbols);
  base_map_free(&st->file_index);
  base_free(st);
  f->state = NULL;
}

const importer_ops import_simpleperf_ops = {
    .trace_type = "simpleperf_proto",
    .tokenize = sp_tokenize,
    .parse = sp_parse,
    .end = sp_end,
    .destroy = sp_destroy,
};
