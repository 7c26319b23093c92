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
#include <assert.h>
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

/* Frames are interned and chained this many at a time (a backtrace's
 * lookups overlap within a batch; see stack_profile_frames). */
#define INS_CHUNK 32

/* 1 and *row when frame `index`'s kept row holds for process upid, its
 * use (leaf or caller) and the count of mappings now: a new mapping could
 * hold the frame. Finding it again gives the same row (the mappings are
 * only added to, frames interned), so a kept row can be replaced by
 * another process's or use's (one kept per frame). */
static int ins_frame_memo(const ins_state *st, uint32_t index, uint32_t upid, int leaf,
                          uint32_t *row) {
  const ins_memo *memo = &st->frames.data[index].row;
  uint32_t key = (uint32_t)st->mappings.len << 1 | (leaf != 0);
  if (!st->mappings.len || st->mappings.len >= INT32_MAX) return 0; /* key must fit */
  if (memo->gen != key || memo->upid != upid) return 0;
  *row = memo->row;
  return 1;
}

/* The key of frame `index` in process upid (see the file's comment); may
 * make its mapping. */
static int ins_frame_key(import_file *f, uint32_t index, uint32_t upid, int leaf,
                         stack_profile_frame_key *key) {
  ins_state *st = f->state;
  const ins_frame *fr = &st->frames.data[index];
  /* Addresses are 64-bit unsigned: their arithmetic wraps. */
  uint64_t pc = (uint64_t)fr->addr;
  if (fr->binary != INS_NONE) pc -= (uint64_t)st->binaries.data[fr->binary].load_addr;
  if (pc != 0 && !leaf) pc--;
  ins_mapping *m;
  int rc = ins_mapping_for(f, upid, fr->binary, (int64_t)pc, &m);
  if (rc) return rc;
  uint64_t rel_pc = pc - (uint64_t)m->start + (uint64_t)m->exact_offset;
  *key = (stack_profile_frame_key){m->id, fr->name, (int64_t)rel_pc};
  return WEFT_OK;
}

/* The stack_profile_frame rows of frames[0..n) (indexes; frames[leaf_at]
 * is the leaf, none when leaf_at >= n) in process upid, into rows. The
 * frames without a kept row are interned together, each then kept with
 * the count of mappings there was when its mapping was found. */
static int ins_frame_rows(import_file *f, const uint32_t *frames, uint32_t n, uint32_t leaf_at,
                          uint32_t upid, uint32_t *rows) {
  ins_state *st = f->state;
  stack_profile_frame_key keys[INS_CHUNK];
  uint32_t missed[INS_CHUNK], gens[INS_CHUNK], found[INS_CHUNK], m = 0;
  int rc = WEFT_OK;
  assert(n <= INS_CHUNK);
  for (uint32_t k = 0; !rc && k < n; k++) {
    if (ins_frame_memo(st, frames[k], upid, k == leaf_at, &rows[k])) continue;
    rc = ins_frame_key(f, frames[k], upid, k == leaf_at, &keys[m]);
    gens[m] = (uint32_t)st->mappings.len;
    missed[m++] = k;
  }
  if (!rc) rc = stack_profile_frames(f->ctx, keys, m, found);
  for (uint32_t j = 0; !rc && j < m; j++) {
    uint32_t k = missed[j];
    rows[k] = found[j];
    if (gens[j] < INT32_MAX)
      st->frames.data[frames[k]].row = (ins_memo){upid, gens[j] << 1 | (k == leaf_at), found[j]};
  }
  return rc;
}

/* The callsite of backtrace bt's leaf in process upid (-1: no frames).
 * A backtrace walked without a mapping made on the way keeps its leaf's
 * callsite: walking it again while the mappings are the same finds the
 * same frames and callsites. Its frames, leaf first in the pool, are
 * walked root first, INS_CHUNK at a time. */
static int ins_leaf_callsite(import_file *f, uint32_t bt, uint32_t upid, int64_t *leaf) {
  ins_state *st = f->state;
  ins_backtrace *b = &st->backtraces.data[bt];
  ins_memo *memo = &b->leaf;
  uint32_t gen = (uint32_t)st->mappings.len;
  if (memo->gen && memo->gen == gen && memo->upid == upid) {
    *leaf = memo->row;
    return WEFT_OK;
  }
  int64_t parent = -1;
  int rc = WEFT_OK;
  for (uint32_t left = b->count; !rc && left;) {
    uint32_t n = left < INS_CHUNK ? left : INS_CHUNK, frames[INS_CHUNK], rows[INS_CHUNK];
    for (uint32_t k = 0; k < n; k++) frames[k] = st->frame_pool.data[b->first + left - 1 - k];
    left -= n;
    rc = ins_frame_rows(f, frames, n, left == 0 ? n - 1 : INS_CHUNK, upid, rows);
    if (!rc) rc = stack_profile_callsite_chain(f->ctx, parent, rows, n, &parent);
  }
  if (!rc && parent >= 0 && gen == st->mappings.len)
    *memo = (ins_memo){upid, gen, (uint32_t)parent};
  *leaf = parent;
  return rc;
}

/* The stack_profile indexes, sized at the first sample for the file's
 * frames (all read by then): an export defines each distinct frame once,
 * and every frame it defines sits in a backtrace, so the file makes about
 * as many frame rows and at least as many callsites (a lower bound: more
 * grow the index later, none is reserved for nothing). */
static int ins_reserve_rows(import_file *f, ins_state *st) {
  if (st->reserved) return WEFT_OK;
  st->reserved = 1;
  return stack_profile_reserve(f->ctx, st->frames.len, st->frames.len);
}

/* Samples are parsed about in the order they were read (an export lists
 * them by time), so while sample i is parsed, the backtrace of sample
 * i + INS_AHEAD is fetched, and the frames the walk of sample
 * i + INS_AHEAD / 2 reads first when its leaf's callsite is not kept. A
 * hint: any order of samples parses the same. */
#define INS_AHEAD 8
#define INS_AHEAD_FRAMES 8

/* Always inlined: gcc 12 finds a separate function of prefetches alone
 * free of effects and drops its calls. */
__attribute__((always_inline)) static inline void ins_prefetch(const ins_state *st, size_t i) {
  if (i + INS_AHEAD < st->samples.len)
    __builtin_prefetch(&st->backtraces.data[st->samples.data[i + INS_AHEAD].backtrace]);
  if (i + INS_AHEAD / 2 >= st->samples.len) return;
  const ins_backtrace *b = &st->backtraces.data[st->samples.data[i + INS_AHEAD / 2].backtrace];
  if (b->leaf.gen && b->leaf.gen == st->mappings.len) return;
  uint32_t root = b->first + b->count;
  for (uint32_t k = b->count < INS_AHEAD_FRAMES ? b->count : INS_AHEAD_FRAMES; k > 0; k--)
    __builtin_prefetch(&st->frames.data[st->frame_pool.data[root - k]]);
}

static int ins_parse(import_file *f, const sort_event *event, void *prepared,
                     base_error *err) {
  (void)prepared;
  ins_state *st = f->state;
  if (!st || event->payload >= st->samples.len) return WEFT_OK;
  const ins_sample *s = &st->samples.data[event->payload];
  uint32_t upid;
  int64_t leaf = -1;
  ins_prefetch(st, event->payload);
  int rc = ins_reserve_rows(f, st);
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
  base_free(st);
  f->state = NULL;
}

const importer_ops import_instruments_ops = {
    .trace_type = "instruments_xml",
    .tokenize = ins_tokenize,
    .parse = ins_parse,
    .destroy = ins_destroy,
};
