/* Interned mappings, frames and callsites; Java deobfuscation. See
 * model/stack_profile.h. */
#include "model/stack_profile.h"

#include "model/context.h"
#include "model/stack_profile_internal.h"

/* A key whose tag (see sp_index) SP_MAX_PROBES rows of other keys share
 * is refused (WEFT_ELIMIT): crafted keys cannot make a lookup walk them
 * all. */
#define SP_MAX_PROBES 32
/* Lookups whose first slots are fetched together (stack_profile_frames,
 * stack_profile_callsite_chain). */
#define SP_BATCH 16

/* An index of a table's rows by the hash of their key, without the keys:
 * open addressing with linear probing over 8-byte slots, each
 * (tag << 32 | row + 1), 0 for an empty slot. The tag is the high half of
 * the key's hash and places the slot: its home is tag * cap >> 32, so
 * growing needs only the slots, and homes follow the tags' order (a
 * growth writes the new array nearly in order). A lookup compares tags and
 * reads the row's columns only when they agree. An importer that knows
 * about how many rows are coming sizes it once (stack_profile_reserve). */
typedef struct sp_index {
  uint64_t *slots;   /* calloc'd: pages no slot was written to stay untouched */
  size_t cap, count; /* count <= cap * 3 / 4 */
} sp_index;

struct stack_profile_state {
  sp_index mappings;  /* a mapping's columns -> row */
  sp_index frames;    /* (mapping, rel_pc, name) -> row */
  sp_index callsites; /* (parent, frame) -> row */
  stack_profile_deobf *deobf; /* model/stack_profile_deobf.c; lazy */
  sp_index inline_frames; /* (mapping, name, file, line) -> frame row */
  int64_t inline_mapping; /* the "track_event_inline" mapping row, or -1 */
};

static void sp_index_free(sp_index *x) {
  base_free(x->slots);
  memset(x, 0, sizeof *x);
}

void stack_profile_state_free(stack_profile_state *st) {
  if (!st) return;
  sp_index_free(&st->mappings);
  sp_index_free(&st->frames);
  sp_index_free(&st->callsites);
  stack_profile_deobf_free(st->deobf);
  sp_index_free(&st->inline_frames);
  base_free(st);
}

static stack_profile_state *sp_state(trace_context *ctx) {
  if (!ctx->model.stack_profile) {
    stack_profile_state *st = base_calloc(1, sizeof(stack_profile_state));
    if (st) st->inline_mapping = -1;
    ctx->model.stack_profile = st;
  }
  return ctx->model.stack_profile;
}

static uint64_t sp_mix(uint64_t h, uint64_t v) { return base_hash_u64(h ^ base_hash_u64(v)); }

/* ---- the indexes ---- */

static size_t sp_home(const sp_index *x, uint32_t tag) {
  return (size_t)(((uint64_t)tag * x->cap) >> 32);
}

/* The empty slot where a row of `tag` goes (the index has one). */
static size_t sp_index_free_slot(const sp_index *x, uint32_t tag) {
  size_t i = sp_home(x, tag);
  while (x->slots[i]) i = i + 1 == x->cap ? 0 : i + 1;
  return i;
}

/* Moves the slots into a new array of `cap` slots (cap > count * 4 / 3). */
static int sp_index_resize(sp_index *x, size_t cap) {
  if (cap > (size_t)1 << 32) return WEFT_ELIMIT; /* homes are 32-bit fractions */
  sp_index grown = {base_calloc(cap, sizeof(uint64_t)), cap, x->count};
  if (!grown.slots) return WEFT_ENOMEM;
  for (size_t j = 0; j < x->cap; j++) {
    uint64_t s = x->slots[j];
    if (s) grown.slots[sp_index_free_slot(&grown, (uint32_t)(s >> 32))] = s;
  }
  base_free(x->slots);
  *x = grown;
  return WEFT_OK;
}

/* The capacity that holds n slots within the load limit of 3/4. */
static size_t sp_index_cap_for(size_t n) { return n + n / 3 + 16; }

/* Makes room for `more` rows beyond those indexed. */
static int sp_index_reserve(sp_index *x, size_t more) {
  size_t need = x->count + more;
  if (more > SIZE_MAX / 4 - x->count) return WEFT_ENOMEM;
  return need * 4 <= x->cap * 3 ? WEFT_OK : sp_index_resize(x, sp_index_cap_for(need));
}

typedef int (*sp_row_eq)(trace_context *ctx, uint32_t row, const void *key);

/* 1 = found (*row), 0 = absent (*at: the empty slot where it goes),
 * WEFT_ELIMIT for a key whose tag too many other rows have. */
static int sp_find(trace_context *ctx, const sp_index *x, uint64_t hash, sp_row_eq eq,
                   const void *key, uint32_t *row, size_t *at) {
  uint32_t tag = (uint32_t)(hash >> 32), mismatches = 0;
  *at = SIZE_MAX;
  if (!x->cap) return 0;
  for (size_t i = sp_home(x, tag);; i = i + 1 == x->cap ? 0 : i + 1) {
    uint64_t s = x->slots[i];
    if (!s) {
      *at = i;
      return 0;
    }
    if ((uint32_t)(s >> 32) != tag) continue;
    if (eq(ctx, (uint32_t)s - 1, key)) {
      *row = (uint32_t)s - 1;
      return 1;
    }
    if (++mismatches == SP_MAX_PROBES) return WEFT_ELIMIT;
  }
}

/* Appends a row to `table` and indexes it in slot `at` (from sp_find, or
 * SIZE_MAX) of `x`, growing x first when it is full. */
static int sp_insert(trace_context *ctx, schema_table_id table, sp_index *x, uint64_t hash,
                     size_t at, uint32_t *row) {
  uint32_t tag = (uint32_t)(hash >> 32);
  if ((x->count + 1) * 4 > x->cap * 3) {
    int rc = sp_index_resize(x, x->cap ? x->cap * 2 : 64);
    if (rc) return rc;
    at = SIZE_MAX;
  }
  int rc = storage_table_append(ctx_table(ctx, table), row);
  if (rc) return rc;
  if (at == SIZE_MAX) at = sp_index_free_slot(x, tag);
  x->slots[at] = (uint64_t)tag << 32 | ((uint64_t)*row + 1);
  x->count++;
  return WEFT_OK;
}

int stack_profile_reserve(trace_context *ctx, size_t frames, size_t callsites) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  storage_table *f = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  storage_table *c = ctx_table(ctx, TABLE_STACK_PROFILE_CALLSITE);
  int rc = sp_index_reserve(&st->frames, frames);
  if (!rc) rc = sp_index_reserve(&st->callsites, callsites);
  if (!rc && frames <= SIZE_MAX - f->row_count) rc = storage_table_reserve(f, f->row_count + frames);
  if (!rc && callsites <= SIZE_MAX - c->row_count)
    rc = storage_table_reserve(c, c->row_count + callsites);
  return rc;
}

/* ---- mappings ---- */

static int sp_mapping_eq(trace_context *ctx, uint32_t row, const void *key) {
  const stack_profile_mapping_spec *m = key;
  const storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  return storage_get_str(t, STACK_PROFILE_MAPPING_build_id, row) == m->build_id &&
         storage_get_str(t, STACK_PROFILE_MAPPING_name, row) == m->name &&
         storage_get_i64(t, STACK_PROFILE_MAPPING_exact_offset, row) == m->exact_offset &&
         storage_get_i64(t, STACK_PROFILE_MAPPING_start_offset, row) == m->start_offset &&
         storage_get_i64(t, STACK_PROFILE_MAPPING_start, row) == m->start &&
         storage_get_i64(t, STACK_PROFILE_MAPPING_end, row) == m->end &&
         storage_get_i64(t, STACK_PROFILE_MAPPING_load_bias, row) == m->load_bias;
}

/* Sets the columns of mapping row `id`. */
static int sp_mapping_write(storage_table *t, uint32_t id, const stack_profile_mapping_spec *spec) {
  storage_set_str(t, STACK_PROFILE_MAPPING_build_id, id, spec->build_id);
  storage_set_str(t, STACK_PROFILE_MAPPING_name, id, spec->name);
  storage_set_i64(t, STACK_PROFILE_MAPPING_exact_offset, id, spec->exact_offset);
  storage_set_i64(t, STACK_PROFILE_MAPPING_start_offset, id, spec->start_offset);
  storage_set_i64(t, STACK_PROFILE_MAPPING_start, id, spec->start);
  storage_set_i64(t, STACK_PROFILE_MAPPING_end, id, spec->end);
  storage_set_i64(t, STACK_PROFILE_MAPPING_load_bias, id, spec->load_bias);
  return storage_table_status(t);
}

int stack_profile_mapping(trace_context *ctx, const stack_profile_mapping_spec *spec,
                          uint32_t *id) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  uint64_t h = sp_mix(sp_mix(spec->build_id, spec->name), (uint64_t)spec->exact_offset);
  h = sp_mix(sp_mix(h, (uint64_t)spec->start_offset), (uint64_t)spec->start);
  h = sp_mix(sp_mix(h, (uint64_t)spec->end), (uint64_t)spec->load_bias);
  size_t at;
  int rc = sp_find(ctx, &st->mappings, h, sp_mapping_eq, spec, id, &at);
  if (rc != 0) return rc == 1 ? WEFT_OK : rc;
  rc = sp_insert(ctx, TABLE_STACK_PROFILE_MAPPING, &st->mappings, h, at, id);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  return sp_mapping_write(t, *id, spec);
}

int stack_profile_mapping_new(trace_context *ctx, const stack_profile_mapping_spec *spec,
                              uint32_t *id) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  int rc = storage_table_append(t, id);
  if (rc) return rc;
  return sp_mapping_write(t, *id, spec);
}

/* ---- frames ---- */

static int sp_frame_eq(trace_context *ctx, uint32_t row, const void *key) {
  const stack_profile_frame_key *f = key;
  const storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  return storage_get_i64(t, STACK_PROFILE_FRAME_mapping, row) == f->mapping &&
         storage_get_i64(t, STACK_PROFILE_FRAME_rel_pc, row) == f->rel_pc &&
         storage_get_str(t, STACK_PROFILE_FRAME_name, row) == f->name;
}

static uint64_t sp_frame_hash(uint32_t mapping, string_id name, int64_t rel_pc) {
  return sp_mix(sp_mix(sp_mix(0x5f, mapping), name), (uint64_t)rel_pc);
}

int stack_profile_frame(trace_context *ctx, uint32_t mapping, string_id name,
                        int64_t rel_pc, string_id type, uint32_t *id) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  stack_profile_frame_key key = {mapping, name, rel_pc};
  uint64_t h = sp_frame_hash(mapping, name, rel_pc);
  size_t at;
  int rc = sp_find(ctx, &st->frames, h, sp_frame_eq, &key, id, &at);
  if (rc != 0) return rc == 1 ? WEFT_OK : rc;
  rc = sp_insert(ctx, TABLE_STACK_PROFILE_FRAME, &st->frames, h, at, id);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  storage_set_str(t, STACK_PROFILE_FRAME_name, *id, name);
  storage_set_i64(t, STACK_PROFILE_FRAME_mapping, *id, mapping);
  storage_set_i64(t, STACK_PROFILE_FRAME_rel_pc, *id, rel_pc);
  storage_set_str(t, STACK_PROFILE_FRAME_type, *id, type);
  return storage_table_status(t);
}

/* Starts loading the slot where a key of `hash` is looked up first: a
 * batch of lookups then waits for memory once, not once per key. */
static void sp_prefetch_home(const sp_index *x, uint64_t hash) {
  if (x->cap) __builtin_prefetch(&x->slots[sp_home(x, (uint32_t)(hash >> 32))]);
}

int stack_profile_frames(trace_context *ctx, const stack_profile_frame_key *keys, size_t n,
                         uint32_t *ids) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  int rc = WEFT_OK;
  for (size_t done = 0; !rc && done < n; done += SP_BATCH) {
    size_t m = n - done < SP_BATCH ? n - done : SP_BATCH;
    const stack_profile_frame_key *k = keys + done;
    for (size_t i = 0; i < m; i++)
      sp_prefetch_home(&st->frames, sp_frame_hash(k[i].mapping, k[i].name, k[i].rel_pc));
    for (size_t i = 0; !rc && i < m; i++)
      rc = stack_profile_frame(ctx, k[i].mapping, k[i].name, k[i].rel_pc, STRING_NULL,
                               &ids[done + i]);
  }
  return rc;
}

/* ---- callsites ---- */

typedef struct sp_callsite_key {
  int64_t parent;
  uint32_t frame;
} sp_callsite_key;

static int sp_callsite_eq(trace_context *ctx, uint32_t row, const void *key) {
  const sp_callsite_key *c = key;
  const storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_CALLSITE);
  return storage_get_i64(t, STACK_PROFILE_CALLSITE_frame_id, row) == c->frame &&
         storage_get_i64_or(t, STACK_PROFILE_CALLSITE_parent_id, row, -1) == c->parent;
}

static uint64_t sp_callsite_hash(int64_t parent, uint32_t frame) {
  return sp_mix(sp_mix(0xca11, (uint64_t)parent), frame);
}

/* Appends callsite (parent, frame), absent from the index, in slot `at`
 * (from sp_find, or SIZE_MAX). */
static int sp_callsite_new_at(trace_context *ctx, stack_profile_state *st, int64_t parent,
                              uint32_t frame, int64_t depth, size_t at, uint32_t *id) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_CALLSITE);
  int rc = sp_insert(ctx, TABLE_STACK_PROFILE_CALLSITE, &st->callsites,
                     sp_callsite_hash(parent, frame), at, id);
  if (rc) return rc;
  storage_set_i64(t, STACK_PROFILE_CALLSITE_depth, *id, depth);
  if (parent >= 0) storage_set_i64(t, STACK_PROFILE_CALLSITE_parent_id, *id, parent);
  storage_set_i64(t, STACK_PROFILE_CALLSITE_frame_id, *id, frame);
  return storage_table_status(t);
}

/* sp_callsite_new_at with the depth of its parent + 1 (a root's: 0). */
static int sp_callsite_new(trace_context *ctx, stack_profile_state *st, int64_t parent,
                           uint32_t frame, size_t at, uint32_t *id) {
  const storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_CALLSITE);
  int64_t depth = parent < 0 ? 0
                  : storage_get_i64(t, STACK_PROFILE_CALLSITE_depth, (size_t)parent) + 1;
  return sp_callsite_new_at(ctx, st, parent, frame, depth, at, id);
}

/* 1 and *id when callsite (parent, frame) exists, 0 when not (*at: where
 * it goes), or a failure. */
static int sp_callsite_find(trace_context *ctx, stack_profile_state *st, int64_t parent,
                            uint32_t frame, uint32_t *id, size_t *at) {
  sp_callsite_key key = {parent, frame};
  return sp_find(ctx, &st->callsites, sp_callsite_hash(parent, frame), sp_callsite_eq, &key,
                 id, at);
}

/* Interns callsite (parent, frame); a new one is at `depth`, or at its
 * parent's + 1 (a root's: 0) when depth < 0. */
static int sp_callsite_intern(trace_context *ctx, int64_t parent, uint32_t frame,
                              int64_t depth, uint32_t *id) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  if (parent < 0) parent = -1;
  size_t at;
  int rc = sp_callsite_find(ctx, st, parent, frame, id, &at);
  if (rc != 0) return rc == 1 ? WEFT_OK : rc;
  if (depth < 0) return sp_callsite_new(ctx, st, parent, frame, at, id);
  return sp_callsite_new_at(ctx, st, parent, frame, depth, at, id);
}

int stack_profile_callsite(trace_context *ctx, int64_t parent, uint32_t frame,
                           uint32_t *id) {
  return sp_callsite_intern(ctx, parent, frame, -1, id);
}

int stack_profile_callsite_at_depth(trace_context *ctx, int64_t parent, uint32_t frame,
                                    int64_t depth, uint32_t *id) {
  assert(depth >= 0);
  return sp_callsite_intern(ctx, parent, frame, depth, id);
}

/* Appends the callsites of frames[0..n) under `parent`, none of which
 * can exist: the first's lookup missed, and each next one's parent is the
 * row appended just before it. Their rows are the table's next ones, so
 * every key is known ahead and the slots of a batch are fetched together.
 * `at`: the first's slot (from its lookup). */
static int sp_callsite_new_chain(trace_context *ctx, stack_profile_state *st, int64_t parent,
                                 const uint32_t *frames, size_t n, size_t at, int64_t *leaf) {
  const storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_CALLSITE);
  int rc = WEFT_OK;
  for (size_t done = 0; !rc && done < n; done += SP_BATCH) {
    size_t m = n - done < SP_BATCH ? n - done : SP_BATCH;
    int64_t next = (int64_t)t->row_count, p = parent;
    for (size_t i = 0; i < m; i++, p = next++)
      sp_prefetch_home(&st->callsites, sp_callsite_hash(p, frames[done + i]));
    for (size_t i = 0; !rc && i < m; i++, at = SIZE_MAX) {
      uint32_t id;
      rc = sp_callsite_new(ctx, st, parent, frames[done + i], at, &id);
      assert(rc || id == t->row_count - 1);
      parent = id;
    }
  }
  *leaf = parent;
  return rc;
}

int stack_profile_callsite_chain(trace_context *ctx, int64_t parent, const uint32_t *frames,
                                 size_t n, int64_t *leaf) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  if (parent < 0) parent = -1;
  for (size_t i = 0; i < n; i++) {
    uint32_t id;
    size_t at;
    int rc = sp_callsite_find(ctx, st, parent, frames[i], &id, &at);
    if (rc < 0) return rc;
    if (rc == 0) return sp_callsite_new_chain(ctx, st, parent, frames + i, n - i, at, leaf);
    parent = id;
  }
  *leaf = parent;
  return WEFT_OK;
}

int stack_profile_build_id_hex(trace_context *ctx, const uint8_t *bytes, size_t len,
                               string_id *out) {
  static const char digits[] = "0123456789abcdef";
  /* 33 bytes: a Breakpad module id (32 hex digits and the age), kept as
   * written, as Perfetto keeps it */
  if (len == 33) return ctx_intern(ctx, (const char *)bytes, len, out);
  char small[128];
  char *hex = len * 2 <= sizeof small ? small : base_calloc(len * 2 + 1, 1);
  if (!hex) return WEFT_ENOMEM;
  for (size_t i = 0; i < len; i++) {
    hex[2 * i] = digits[bytes[i] >> 4];
    hex[2 * i + 1] = digits[bytes[i] & 15];
  }
  int rc = ctx_intern(ctx, hex, len * 2, out);
  if (hex != small) base_free(hex);
  return rc;
}

stack_profile_deobf **stack_profile_deobf_slot(trace_context *ctx) {
  stack_profile_state *st = sp_state(ctx);
  return st ? &st->deobf : NULL;
}

int stack_profile_count_tmp_without_build_id(trace_context *ctx, int64_t machine,
                                             int64_t trace) {
  static const char tmp[] = "/data/local/tmp/";
  const storage_table *maps = ctx_table(ctx, TABLE_STACK_PROFILE_MAPPING);
  int64_t n = 0;
  for (size_t row = 0; row < maps->row_count; row++) {
    string_id name_id = storage_get_str(maps, STACK_PROFILE_MAPPING_name, row);
    string_id build_id = storage_get_str(maps, STACK_PROFILE_MAPPING_build_id, row);
    const char *name = base_string_pool_get(&ctx->strings, name_id);
    const char *build = base_string_pool_get(&ctx->strings, build_id);
    if (name && !strncmp(name, tmp, sizeof tmp - 1) && (!build || !*build)) n++;
  }
  return n ? stats_add(&ctx->stats, stat_symbolization_tmp_build_id_not_found, -1, machine, trace, n)
           : WEFT_OK;
}

/* ---- samples ---- */

int stack_profile_heap_dump(trace_context *ctx, const stack_profile_heap_dump_spec *d) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_PROFILE);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, HEAP_PROFILE_ts, row, d->start);
  storage_set_i64(t, HEAP_PROFILE_ts_end, row, d->ts);
  storage_set_i64(t, HEAP_PROFILE_dur, row, d->ts - d->start);
  storage_set_i64(t, HEAP_PROFILE_upid, row, d->upid);
  storage_set_str(t, HEAP_PROFILE_heap_name, row, d->heap);
  rc = storage_table_status(t);
  return rc ? rc : stats_set(&ctx->stats, stat_heapprofd_last_profile_timestamp, d->pid,
                             d->machine, d->trace, d->packet_ts);
}

int stack_profile_heap_allocation(trace_context *ctx, int64_t ts, uint32_t upid,
                                  string_id heap, uint32_t callsite, int64_t count,
                                  int64_t size) {
  storage_table *t = ctx_table(ctx, TABLE_HEAP_PROFILE_ALLOCATION);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, HEAP_PROFILE_ALLOCATION_ts, row, ts);
  ctx_extend_bounds(ctx, ts);
  storage_set_i64(t, HEAP_PROFILE_ALLOCATION_upid, row, upid);
  storage_set_str(t, HEAP_PROFILE_ALLOCATION_heap_name, row, heap);
  storage_set_i64(t, HEAP_PROFILE_ALLOCATION_callsite_id, row, callsite);
  storage_set_i64(t, HEAP_PROFILE_ALLOCATION_count, row, count);
  storage_set_i64(t, HEAP_PROFILE_ALLOCATION_size, row, size);
  return storage_table_status(t);
}

/* ---- track-event callstacks ---- */

typedef struct sp_inline_key {
  uint32_t mapping;
  string_id name, file;
  int64_t line;
} sp_inline_key;

static int sp_inline_eq(trace_context *ctx, uint32_t row, const void *key) {
  const sp_inline_key *k = key;
  const storage_table *sym = ctx_table(ctx, TABLE_STACK_PROFILE_SYMBOL);
  const storage_table *frames = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  if (storage_get_i64(frames, STACK_PROFILE_FRAME_mapping, row) != k->mapping) return 0;
  int64_t set = storage_get_i64_or(frames, STACK_PROFILE_FRAME_symbol_set_id, row, -1);
  assert(set >= 0); /* every symbol frame has its symbol */
  return storage_get_str(sym, STACK_PROFILE_SYMBOL_name, (size_t)set) == k->name &&
         storage_get_str(sym, STACK_PROFILE_SYMBOL_source_file, (size_t)set) == k->file &&
         storage_get_i64_or(sym, STACK_PROFILE_SYMBOL_line_number, (size_t)set, -1) == k->line;
}

static int sp_inline_mapping(trace_context *ctx, stack_profile_state *st, uint32_t *mapping) {
  if (st->inline_mapping >= 0) return *mapping = (uint32_t)st->inline_mapping, WEFT_OK;
  stack_profile_mapping_spec spec = {0};
  spec.end = -1;
  int rc = ctx_intern(ctx, "", 0, &spec.build_id);
  if (!rc) rc = ctx_intern(ctx, "track_event_inline", 18, &spec.name);
  if (!rc) rc = stack_profile_mapping(ctx, &spec, mapping);
  if (!rc) st->inline_mapping = *mapping;
  return rc;
}

/* Appends the symbol row of a new inline frame; its id is the set's id. */
static int sp_inline_symbol(trace_context *ctx, const sp_inline_key *k, uint32_t *set) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_SYMBOL);
  int rc = storage_table_append(t, set);
  if (rc) return rc;
  storage_set_i64(t, STACK_PROFILE_SYMBOL_symbol_set_id, *set, *set);
  storage_set_str(t, STACK_PROFILE_SYMBOL_name, *set, k->name);
  storage_set_str(t, STACK_PROFILE_SYMBOL_source_file, *set, k->file);
  if (k->line >= 0) storage_set_i64(t, STACK_PROFILE_SYMBOL_line_number, *set, k->line);
  return storage_table_status(t);
}

int stack_profile_frame_symbol(trace_context *ctx, uint32_t frame, string_id name,
                               string_id file, int64_t line) {
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  if (storage_get_i64_or(t, STACK_PROFILE_FRAME_symbol_set_id, frame, -1) >= 0) return WEFT_OK;
  sp_inline_key key = {0, name, file, line < 0 ? -1 : line};
  uint32_t set;
  int rc = sp_inline_symbol(ctx, &key, &set);
  if (rc) return rc;
  storage_set_i64(t, STACK_PROFILE_FRAME_symbol_set_id, frame, set);
  return storage_table_status(t);
}

int stack_profile_symbol_frame(trace_context *ctx, uint32_t mapping, string_id name,
                               string_id file, int64_t line, uint32_t *frame) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  sp_inline_key key = {mapping, name, file, line < 0 ? -1 : line};
  uint64_t h = sp_mix(sp_mix(sp_mix(sp_mix(0x1f1e, mapping), name), file), (uint64_t)key.line);
  size_t at;
  int rc = sp_find(ctx, &st->inline_frames, h, sp_inline_eq, &key, frame, &at);
  if (rc != 0) return rc == 1 ? WEFT_OK : rc;
  uint32_t set;
  rc = sp_inline_symbol(ctx, &key, &set);
  if (!rc) rc = sp_insert(ctx, TABLE_STACK_PROFILE_FRAME, &st->inline_frames, h, at, frame);
  if (rc) return rc;
  storage_table *t = ctx_table(ctx, TABLE_STACK_PROFILE_FRAME);
  storage_set_str(t, STACK_PROFILE_FRAME_name, *frame, name);
  storage_set_i64(t, STACK_PROFILE_FRAME_mapping, *frame, mapping);
  storage_set_i64(t, STACK_PROFILE_FRAME_rel_pc, *frame, 0);
  storage_set_i64(t, STACK_PROFILE_FRAME_symbol_set_id, *frame, set);
  return storage_table_status(t);
}

int stack_profile_inline_frame(trace_context *ctx, string_id name, string_id file, int64_t line,
                               uint32_t *frame) {
  stack_profile_state *st = sp_state(ctx);
  if (!st) return WEFT_ENOMEM;
  uint32_t mapping;
  int rc = sp_inline_mapping(ctx, st, &mapping);
  return rc ? rc : stack_profile_symbol_frame(ctx, mapping, name, file, line, frame);
}

int stack_profile_event_callstack_add(trace_context *ctx, const stack_profile_event_callstack *cs) {
  storage_table *t = ctx_table(ctx, TABLE_TRACK_EVENT_CALLSTACKS);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, TRACK_EVENT_CALLSTACKS_slice_id, row, cs->slice);
  storage_set_i64(t, TRACK_EVENT_CALLSTACKS_track_id, row, cs->track);
  storage_set_i64(t, cs->at_end ? TRACK_EVENT_CALLSTACKS_end_callsite_id
                                : TRACK_EVENT_CALLSTACKS_callsite_id, row, cs->callsite);
  if (cs->has_weight) storage_set_f64(t, TRACK_EVENT_CALLSTACKS_weight, row, cs->weight);
  return storage_table_status(t);
}

/* ---- smaps ---- */

/* path without its " (deleted)" suffix (*deleted set), or path itself. */
static int sp_smaps_trim(trace_context *ctx, string_id path, string_id *out, int *deleted) {
  static const char suffix[] = " (deleted)";
  const size_t n = sizeof suffix - 1;
  const char *s = base_string_pool_get(&ctx->strings, path);
  size_t len = s ? strlen(s) : 0;
  *out = path;
  *deleted = s && len >= n && !memcmp(s + len - n, suffix, n);
  return *deleted ? ctx_intern(ctx, s, len - n, out) : WEFT_OK;
}

int stack_profile_smaps_add(trace_context *ctx, const stack_profile_smaps_entry *e) {
  storage_table *t = ctx_table(ctx, TABLE_PROFILER_SMAPS);
  string_id trimmed;
  int deleted;
  uint32_t row;
  int rc = sp_smaps_trim(ctx, e->path, &trimmed, &deleted);
  if (!rc) rc = storage_table_append(t, &row);
  if (rc) return rc;
  const struct { size_t col; int64_t v; } ints[] = {
      {PROFILER_SMAPS_upid, e->upid}, {PROFILER_SMAPS_ts, e->ts},
      {PROFILER_SMAPS_aggregate_count, 1}, {PROFILER_SMAPS_is_deleted, deleted},
      {PROFILER_SMAPS_size_kb, e->size_kb}, {PROFILER_SMAPS_private_dirty_kb, e->private_dirty_kb},
      {PROFILER_SMAPS_swap_kb, e->swap_kb}, {PROFILER_SMAPS_start_address, e->start_address},
      {PROFILER_SMAPS_module_timestamp, e->module_timestamp},
      {PROFILER_SMAPS_protection_flags, e->protection_flags},
      {PROFILER_SMAPS_private_clean_resident_kb, e->private_clean_resident_kb},
      {PROFILER_SMAPS_shared_dirty_resident_kb, e->shared_dirty_resident_kb},
      {PROFILER_SMAPS_shared_clean_resident_kb, e->shared_clean_resident_kb},
      {PROFILER_SMAPS_locked_kb, e->locked_kb},
      {PROFILER_SMAPS_proportional_resident_kb, e->proportional_resident_kb}};
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
    storage_set_i64(t, ints[i].col, row, ints[i].v);
  storage_set_str(t, PROFILER_SMAPS_path, row, e->path);
  storage_set_str(t, PROFILER_SMAPS_path_trimmed, row, trimmed);
  storage_set_str(t, PROFILER_SMAPS_file_name, row, e->file_name);
  storage_set_str(t, PROFILER_SMAPS_module_debugid, row, e->module_debugid);
  storage_set_str(t, PROFILER_SMAPS_module_debug_path, row, e->module_debug_path);
  ctx_extend_bounds(ctx, e->ts);
  return storage_table_status(t);
}
