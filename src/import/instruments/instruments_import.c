/* instruments: Apple Instruments XML exports (rules in instruments_xml.c
 * for the reading, here for the tables).
 *
 * The export is clockless: sample times are nanoseconds on the file's own
 * timeline, placed on a merge by the manifest or --sync like Chrome JSON.
 * Each sample, in time order:
 *  - its thread (tid) joins its process (pid), the process made with its
 *    main thread first; the thread takes its fmt as name, the process its
 *    fmt when it has no name yet;
 *  - its frames, root first, are interned: pc = addr, less the binary's
 *    load address when the frame has one, and less 1 for every frame but
 *    the leaf (a return address) unless 0; a binary mapping made by a
 *    sample of the same process whose [start, end) holds pc is the
 *    frame's, else the binary's one mapping (made by the first process
 *    that needs it, shared by all: build id the UUID, start and
 *    exact_offset the load address, end the binary's largest frame
 *    address, name its path), else the process's dummy mapping (all 0,
 *    end -1, name ""); the frame's
 *    rel_pc is pc - start + exact_offset; callsites chain root to leaf;
 *  - an instruments_sample row: ts, utid, the leaf callsite, cpu. */
#include <string.h>

#include "clock/clock.h"
#include "import/instruments/instruments_internal.h"
#include "model/columns.h"
#include "model/stack_profile.h"

/* ---- tokenize ---- */

static int ins_tokenize(import_file *f, base_error *err) {
  ins_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = ctx_metadata_file_type(f->ctx, f->trace_id, "instruments_xml");
  if (!rc) rc = ctx_metadata_trace_time(f->ctx, CLOCK_ID_TRACE_FILE);
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  if (rc) return base_error_alloc(err, rc);
  rc = instruments_read_xml(f, st, err);
  for (size_t i = 0; !rc && i < st->samples.len; i++)
    rc = import_push(f, st->samples.data[i].ts, st->clock, i);
  return rc && !err->code ? base_error_alloc(err, rc) : rc;
}

/* ---- parse ---- */

static int ins_make_thread(import_file *f, ins_thread *t, uint32_t *upid) {
  ins_state *st = f->state;
  const ins_process *p = t->process != INS_NONE ? &st->processes.data[t->process] : NULL;
  int64_t pid = p ? p->pid : 0;
  uint32_t main_thread;
  int rc = WEFT_OK;
  if (!t->made) {
    rc = model_thread_in_process(f->ctx, f->machine, pid, pid, &main_thread);
    if (!rc) rc = model_thread_in_process(f->ctx, f->machine, t->tid, pid, &t->utid);
    if (!rc && t->fmt) model_thread_set_name_id(f->ctx, t->utid, t->fmt);
    t->made = !rc;
  }
  *upid = model_thread_upid(f->ctx, t->utid);
  if (!rc && p && p->fmt && model_process_name(f->ctx, *upid) == STRING_NULL) {
    const char *name = base_string_pool_get(&f->ctx->strings, p->fmt);
    rc = model_process_set_name(f->ctx, *upid, name, strlen(name));
  }
  return rc;
}

static int ins_new_mapping(import_file *f, uint32_t upid, uint32_t binary, ins_mapping **out) {
  ins_state *st = f->state;
  stack_profile_mapping_spec spec = {0};
  ins_mapping m = {upid, binary, 0, 0, -1, 0};
  int rc = WEFT_OK;
  if (binary == INS_NONE) {
    rc = ctx_intern(f->ctx, "", 0, &spec.build_id);
    spec.name = spec.build_id;
  } else {
    const ins_binary *b = &st->binaries.data[binary];
    m.start = m.exact_offset = b->load_addr;
    m.end = b->max_addr;
    spec.build_id = b->uuid;
    spec.name = b->path;
  }
  spec.start = m.start;
  spec.end = m.end;
  spec.exact_offset = m.exact_offset;
  if (!rc) rc = stack_profile_mapping_new(f->ctx, &spec, &m.id);
  if (!rc && VEC_PUSH(st->mappings, m)) rc = WEFT_ENOMEM;
  if (!rc) *out = &st->mappings.data[st->mappings.len - 1];
  return rc;
}

/* The mapping of pc in process upid (see the header comment). */
static int ins_mapping_for(import_file *f, uint32_t upid, uint32_t binary, int64_t pc,
                           ins_mapping **out) {
  ins_state *st = f->state;
  ins_mapping *own = NULL;
  for (size_t i = 0; i < st->mappings.len; i++) {
    ins_mapping *m = &st->mappings.data[i];
    if (m->upid == upid && m->binary != INS_NONE && (uint64_t)pc >= (uint64_t)m->start &&
        (uint64_t)pc < (uint64_t)m->end) {
      *out = m;
      return WEFT_OK;
    }
    if (m->binary == binary && (binary != INS_NONE || m->upid == upid)) own = m;
  }
  if (own) {
    *out = own;
    return WEFT_OK;
  }
  return ins_new_mapping(f, upid, binary, out);
}

/* The stack_profile_frame row of frame `index` in process upid. The row
 * found is kept (one per frame, for its use as leaf or as caller) until
 * the process, the use or the count of mappings differs: a new mapping
 * could hold the frame. Finding it again gives the same row (the mappings
 * are only added to, frames interned), so a kept row can be replaced by
 * another process's or use's. */
static int ins_frame_row(import_file *f, uint32_t index, uint32_t upid, int leaf,
                         uint32_t *row) {
  ins_state *st = f->state;
  ins_memo *memo = &st->frame_rows[index];
  int memo_ok = st->mappings.len && st->mappings.len < INT32_MAX; /* gen << 1 | leaf fits */
  uint32_t key = (uint32_t)st->mappings.len << 1 | (leaf != 0);
  if (memo_ok && memo->gen == key && memo->upid == upid) {
    *row = memo->row;
    return WEFT_OK;
  }
  const ins_frame *fr = &st->frames.data[index];
  int64_t pc = fr->addr;
  if (fr->binary != INS_NONE) pc -= st->binaries.data[fr->binary].load_addr;
  if (pc != 0 && !leaf) pc--;
  ins_mapping *m;
  int rc = ins_mapping_for(f, upid, fr->binary, pc, &m);
  if (!rc) rc = stack_profile_frame(f->ctx, m->id, fr->name, pc - m->start + m->exact_offset,
                                    STRING_NULL, row);
  if (!rc && st->mappings.len < INT32_MAX)
    *memo = (ins_memo){upid, (uint32_t)st->mappings.len << 1 | (leaf != 0), *row};
  return rc;
}

/* The callsite of backtrace bt's leaf in process upid (-1: no frames).
 * A backtrace walked without a mapping made on the way keeps its leaf's
 * callsite: walking it again while the mappings are the same finds the
 * same frames and callsites. */
static int ins_leaf_callsite(import_file *f, uint32_t bt, uint32_t upid, int64_t *leaf) {
  ins_state *st = f->state;
  const ins_backtrace *b = &st->backtraces.data[bt];
  ins_memo *memo = &st->leaf_callsites[bt];
  uint32_t gen = (uint32_t)st->mappings.len;
  if (memo->gen && memo->gen == gen && memo->upid == upid) {
    *leaf = memo->row;
    return WEFT_OK;
  }
  int64_t parent = -1;
  int rc = WEFT_OK;
  for (uint32_t i = b->count; !rc && i-- > 0;) {
    uint32_t frame, callsite = 0;
    rc = ins_frame_row(f, st->frame_pool.data[b->first + i], upid, i == 0, &frame);
    if (!rc) rc = stack_profile_callsite(f->ctx, parent, frame, &callsite);
    parent = callsite;
  }
  if (!rc && parent >= 0 && gen == st->mappings.len)
    *memo = (ins_memo){upid, gen, (uint32_t)parent};
  *leaf = parent;
  return rc;
}

/* The memos, made at the first sample (the frames and backtraces are all
 * read by then). The stack_profile indexes are sized for the file's
 * frames then: an export defines each distinct frame once, and every frame
 * it defines sits in a backtrace, so the file makes about as many frame
 * rows and at least as many callsites (a lower bound: more grow the index
 * later, none is reserved for nothing). */
static int ins_memos_make(import_file *f, ins_state *st) {
  if (st->frame_rows) return WEFT_OK;
  st->frame_rows = base_calloc(st->frames.len + 1, sizeof *st->frame_rows);
  st->leaf_callsites = base_calloc(st->backtraces.len + 1, sizeof *st->leaf_callsites);
  if (!st->frame_rows || !st->leaf_callsites) return WEFT_ENOMEM;
  return stack_profile_reserve(f->ctx, st->frames.len, st->frames.len);
}

static int ins_parse(import_file *f, const sort_event *event, void *prepared,
                     base_error *err) {
  (void)prepared;
  ins_state *st = f->state;
  if (!st || event->payload >= st->samples.len) return WEFT_OK;
  const ins_sample *s = &st->samples.data[event->payload];
  uint32_t upid;
  int64_t leaf = -1;
  int rc = ins_memos_make(f, st);
  if (!rc) rc = ins_make_thread(f, &st->threads.data[s->thread], &upid);
  if (!rc) rc = ins_leaf_callsite(f, s->backtrace, upid, &leaf);
  const ins_thread *t = &st->threads.data[s->thread];
  if (!rc) rc = stack_profile_instruments_sample(f->ctx, f->machine, event->ts, t->utid, leaf,
                                                s->cpu);
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

static void ins_destroy(import_file *f) {
  ins_state *st = f->state;
  if (!st) return;
  VEC_FREE(st->processes);
  VEC_FREE(st->threads);
  VEC_FREE(st->binaries);
  VEC_FREE(st->frames);
  VEC_FREE(st->backtraces);
  VEC_FREE(st->frame_pool);
  VEC_FREE(st->samples);
  VEC_FREE(st->mappings);
  ins_ids_free(&st->ids);
  base_free(st->frame_rows);
  base_free(st->leaf_callsites);
  base_free(st);
  f->state = NULL;
}

const importer_ops import_instruments_ops = {
    .trace_type = "instruments_xml",
    .tokenize = ins_tokenize,
    .parse = ins_parse,
    .destroy = ins_destroy,
};
