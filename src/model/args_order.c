/* Arg sets in the order Perfetto writes them (model.h, model_args_finalize).
 *
 * While loading, a set is written to the args table when it is committed,
 * and its id is the row of its first arg. Perfetto writes most sets at the
 * same point (a track's dimensions when the track is made, an event's args
 * once the event is parsed), but a slice's args only when the slice leaves
 * its track's stack, and the slices still on stacks at the end of the trace
 * in the order of its slice tracker's hash map of tracks (each stack bottom
 * first). The model logs commits and pops (model_state.args_log, with
 * the end of the trace logged as pops in that order); once loading ends
 * this file walks the log, places every set at the first point
 * Perfetto would write it, rebuilds the args table in that order and
 * renumbers every column that holds an arg set id (WEFT_REFS). Identical
 * sets share one id, as they do in Perfetto: the first place wins. Sets no
 * row uses any more after a slice or row replaced them are dropped. */
#include <assert.h>
#include <string.h>

#include "model/context.h"
#include "model/model.h"

enum {
  ARGS_USED_BY_SLICE = 1, /* a slice row refers to the set */
  ARGS_USED_BY_OTHER = 2, /* a row of another table refers to it */
  ARGS_REPLACED = 4,      /* a row stopped using it (model_args_note_replaced) */
};

#define ARGS_UNPLACED UINT32_MAX

/* The sets of the args table, by ordinal (their order in the table). */
typedef struct args_order {
  size_t rows;      /* args rows */
  size_t count;     /* sets */
  uint32_t *set_at; /* args row -> ordinal of the set starting there, or UINT32_MAX */
  uint32_t *first;  /* ordinal -> its first row; first[count] = rows */
  uint8_t *flags;   /* ordinal -> ARGS_* */
  uint32_t *place;  /* ordinal -> place in the new order, or ARGS_UNPLACED */
  uint32_t placed;  /* sets placed so far */
} args_order;

static void args_order_free(args_order *o) {
  base_free(o->set_at);
  base_free(o->first);
  base_free(o->flags);
  base_free(o->place);
}

/* The ordinal of the set whose id is `id`, or UINT32_MAX if none has it. */
static uint32_t args_order_ordinal(const args_order *o, int64_t id) {
  if (id < 0 || (uint64_t)id >= o->rows) return UINT32_MAX;
  return o->set_at[id];
}

/* Finds the sets (runs of equal arg_set_id) and checks that each id is the
 * row of its first arg; 0 if one is not (the table is then left as is). */
static int args_order_find_sets(trace_context *ctx, args_order *o, int *ok) {
  const storage_table *args = ctx_table(ctx, TABLE_ARGS);
  o->rows = args->row_count;
  o->set_at = base_malloc((o->rows ? o->rows : 1) * sizeof *o->set_at);
  o->first = base_malloc((o->rows + 1) * sizeof *o->first);
  if (!o->set_at || !o->first) return WEFT_ENOMEM;
  *ok = 1;
  int64_t previous = -1;
  for (size_t row = 0; row < o->rows; row++) {
    int64_t id = storage_get_i64(args, ARGS_arg_set_id, row);
    o->set_at[row] = UINT32_MAX;
    if (row > 0 && id == previous) continue;
    if (id != (int64_t)row) *ok = 0;
    o->set_at[row] = (uint32_t)o->count;
    o->first[o->count++] = (uint32_t)row;
    previous = id;
  }
  o->first[o->count] = (uint32_t)o->rows;
  o->flags = base_calloc(o->count + 1, sizeof *o->flags);
  o->place = base_malloc((o->count + 1) * sizeof *o->place);
  if (!o->flags || !o->place) return WEFT_ENOMEM;
  for (size_t k = 0; k < o->count; k++) o->place[k] = ARGS_UNPLACED;
  return WEFT_OK;
}

/* Flags each set with who refers to it. */
static void args_order_mark_users(trace_context *ctx, args_order *o) {
  for (size_t r = 0; r < schema_ref_count; r++) {
    if (schema_refs[r].to != TABLE_ARG_SET) continue;
    const storage_table *t = ctx_table(ctx, schema_refs[r].table);
    uint8_t flag = schema_refs[r].table == TABLE_SLICE ? ARGS_USED_BY_SLICE : ARGS_USED_BY_OTHER;
    for (size_t row = 0; row < t->row_count; row++) {
      uint32_t k = args_order_ordinal(o, storage_get_i64_or(t, schema_refs[r].column, row, -1));
      if (k != UINT32_MAX) o->flags[k] |= flag;
    }
  }
  const model_state *m = &ctx->model;
  for (size_t i = 0; i < m->replaced_arg_sets.len; i++) {
    uint32_t k = args_order_ordinal(o, m->replaced_arg_sets.data[i]);
    if (k != UINT32_MAX) o->flags[k] |= ARGS_REPLACED;
  }
}

static void args_order_place(args_order *o, uint32_t k) {
  if (k == UINT32_MAX || o->place[k] != ARGS_UNPLACED) return;
  o->place[k] = o->placed++;
}

static void args_order_place_slice_set(trace_context *ctx, args_order *o, uint32_t slice) {
  const storage_table *t = ctx_table(ctx, TABLE_SLICE);
  if (slice >= t->row_count) return;
  args_order_place(o, args_order_ordinal(o, storage_get_i64_or(t, SLICE_arg_set_id, slice, -1)));
}

/* A set is written when committed unless only slices use it (then when
 * the first of them leaves its stack) or it was replaced and nothing uses
 * it (then never). */
static int args_order_written_at_commit(uint8_t flags) {
  return (flags & ARGS_USED_BY_OTHER) || !(flags & (ARGS_USED_BY_SLICE | ARGS_REPLACED));
}

static void args_order_walk_log(trace_context *ctx, args_order *o) {
  const model_state *m = &ctx->model;
  for (size_t i = 0; i < m->args_log.len; i++) {
    uint32_t entry = m->args_log.data[i];
    if (entry & MODEL_ARGS_LOG_POP) {
      args_order_place_slice_set(ctx, o, entry & ~MODEL_ARGS_LOG_POP);
      continue;
    }
    uint32_t k = args_order_ordinal(o, entry);
    if (k != UINT32_MAX && args_order_written_at_commit(o->flags[k])) args_order_place(o, k);
  }
}

/* ---- the end of the trace: Perfetto's slice tracker map of tracks ----
 * An open-addressing table of track ids (hash: a MurmurHash combine of the
 * id; quadratic probing; 1,024 slots at first, grown past 75% load eight
 * times while its slots take under 1 MiB, else twice, reinserting in slot
 * order); its slots, in order, are the order of the final flush. */
#define ARGS_TRACKER_SLOT_BYTES (4 + 48) /* a track id and its stack state */

static uint64_t args_order_track_hash(uint32_t track) {
  uint64_t h = track;
  h ^= h >> 33;
  h *= UINT64_C(0xff51afd7ed558ccd);
  h ^= h >> 33;
  h *= UINT64_C(0xc4ceb9fe1a85ec53);
  h ^= h >> 33;
  const uint64_t seed = UINT64_C(0xe17a1465);
  return seed ^ (h + UINT64_C(0x9e3779b9) + (seed << 6) + (seed >> 2));
}

typedef struct args_track_map {
  uint64_t *slots; /* track id + 1; 0: free */
  size_t cap, size;
} args_track_map;

static void args_track_map_put(args_track_map *t, uint64_t key) {
  uint64_t h = args_order_track_hash((uint32_t)(key - 1));
  for (size_t step = 0;; step++) {
    size_t i = (size_t)(h + 2 * step * step + step) & (t->cap - 1);
    if (!t->slots[i]) {
      t->slots[i] = key;
      t->size++;
      return;
    }
  }
}

static int args_track_map_insert(args_track_map *t, uint32_t track) {
  if (t->size >= t->cap * 75 / 100) {
    size_t factor = t->cap * ARGS_TRACKER_SLOT_BYTES < ((size_t)1 << 20) ? 8 : 2;
    size_t cap = t->cap * factor > 1024 ? t->cap * factor : 1024;
    args_track_map grown = {base_calloc(cap, sizeof *grown.slots), cap, 0};
    if (!grown.slots) return WEFT_ENOMEM;
    for (size_t i = 0; i < t->cap; i++)
      if (t->slots[i]) args_track_map_put(&grown, t->slots[i]);
    base_free(t->slots);
    *t = grown;
  }
  args_track_map_put(t, (uint64_t)track + 1);
  return WEFT_OK;
}

int model_args_note_end(trace_context *ctx) {
  model_state *m = &ctx->model;
  if (m->args_end_noted || m->args_final) return WEFT_OK;
  m->args_end_noted = 1;
  args_track_map map = {0};
  int rc = WEFT_OK;
  /* stacks are made in the order Perfetto's tracker meets their tracks */
  uint32_t *track_of = base_malloc((m->stack_list.len + 1) * sizeof *track_of);
  if (!track_of) return WEFT_ENOMEM;
  for (size_t track = 0; track < m->stack_by_track.len; track++)
    if (m->stack_by_track.data[track]) track_of[m->stack_by_track.data[track] - 1] = (uint32_t)track;
  for (size_t s = 0; !rc && s < m->stack_list.len; s++) rc = args_track_map_insert(&map, track_of[s]);
  for (size_t i = 0; !rc && i < map.cap; i++) {
    if (!map.slots[i]) continue;
    const model_stack *st = model_stack_find(ctx, (uint32_t)(map.slots[i] - 1));
    for (size_t e = 0; !rc && st && e < st->slices.len; e++)
      rc = model_args_note_pop(ctx, st->slices.data[e].slice);
  }
  base_free(track_of);
  base_free(map.slots);
  return rc;
}

/* ---- the rebuild ---- */

/* Places the sets not placed yet that are kept (with a log, none in
 * practice: every slice leaves a stack or is on one at the end), in table
 * order. */
static void args_order_place_rest(args_order *o) {
  for (size_t k = 0; k < o->count; k++)
    if ((o->flags[k] & (ARGS_USED_BY_SLICE | ARGS_USED_BY_OTHER)) ||
        args_order_written_at_commit(o->flags[k]))
      args_order_place(o, (uint32_t)k);
}

/* 1 if the sets stay where they are: every one placed, in table order. */
static int args_order_is_identity(const args_order *o) {
  for (size_t k = 0; k < o->count; k++)
    if (o->place[k] != k) return 0;
  return 1;
}

/* Rewrites every arg set id column through new_id (by ordinal). */
static void args_order_renumber_users(trace_context *ctx, const args_order *o,
                                      const uint32_t *new_id) {
  for (size_t r = 0; r < schema_ref_count; r++) {
    if (schema_refs[r].to != TABLE_ARG_SET) continue;
    storage_table *t = ctx_table(ctx, schema_refs[r].table);
    size_t col = schema_refs[r].column;
    for (size_t row = 0; row < t->row_count; row++) {
      uint32_t k = args_order_ordinal(o, storage_get_i64_or(t, col, row, -1));
      if (k == UINT32_MAX) continue;
      assert(new_id[k] != UINT32_MAX); /* a set in use is placed */
      storage_set_i64(t, col, row, new_id[k]);
    }
  }
}

/* The commit map's ids follow their sets; it is dropped if a set went
 * (a later identical commit must not find it). */
static void args_order_renumber_map(model_state *m, const args_order *o,
                                    const uint32_t *new_id, int dropped) {
  if (dropped) {
    base_map_free(&m->arg_sets);
    return;
  }
  for (size_t i = 0; i < m->arg_sets.cap; i++) {
    base_map_slot *slot = &m->arg_sets.slots[i];
    if (slot->key == UINT64_MAX) continue;
    uint32_t k = args_order_ordinal(o, (int64_t)slot->value);
    if (k != UINT32_MAX) slot->value = new_id[k];
  }
}

/* Moves the sets to their places: new ids, the args rows in the new order,
 * every user renumbered. */
static int args_order_rebuild(trace_context *ctx, const args_order *o) {
  uint32_t *by_place = base_malloc((o->placed + 1) * sizeof *by_place);
  uint32_t *new_id = base_malloc((o->count + 1) * sizeof *new_id);
  uint32_t *rows = base_malloc((o->rows + 1) * sizeof *rows);
  int rc = by_place && new_id && rows ? WEFT_OK : WEFT_ENOMEM;
  size_t n = 0;
  for (size_t k = 0; !rc && k < o->count; k++) {
    new_id[k] = UINT32_MAX;
    if (o->place[k] != ARGS_UNPLACED) by_place[o->place[k]] = (uint32_t)k;
  }
  for (uint32_t p = 0; !rc && p < o->placed; p++) {
    uint32_t k = by_place[p];
    new_id[k] = (uint32_t)n;
    for (uint32_t row = o->first[k]; row < o->first[k + 1]; row++) rows[n++] = row;
  }
  storage_table *args = ctx_table(ctx, TABLE_ARGS);
  for (size_t k = 0; !rc && k < o->count; k++) {
    if (new_id[k] == UINT32_MAX) continue;
    for (uint32_t row = o->first[k]; row < o->first[k + 1]; row++)
      storage_set_i64(args, ARGS_arg_set_id, row, new_id[k]);
  }
  if (!rc) rc = storage_table_gather(args, rows, n);
  if (!rc) args_order_renumber_users(ctx, o, new_id);
  if (!rc) args_order_renumber_map(&ctx->model, o, new_id, o->placed < o->count);
  base_free(by_place);
  base_free(new_id);
  base_free(rows);
  return rc;
}

int model_args_finalize(trace_context *ctx) {
  model_state *m = &ctx->model;
  if (m->args_final) return WEFT_OK;
  args_order o = {0};
  int ok = 0;
  int rc = model_args_note_end(ctx);
  if (!rc) rc = args_order_find_sets(ctx, &o, &ok);
  if (!rc && ok) {
    args_order_mark_users(ctx, &o);
    if (!m->args_log_overflow) args_order_walk_log(ctx, &o);
    /* with no log, the sets keep their order: only the unused ones go */
    args_order_place_rest(&o);
  }
  if (!rc && ok && !args_order_is_identity(&o)) rc = args_order_rebuild(ctx, &o);
  args_order_free(&o);
  VEC_FREE(m->args_log);
  VEC_FREE(m->replaced_arg_sets);
  m->args_final = 1;
  return rc ? rc : storage_table_status(ctx_table(ctx, TABLE_ARGS));
}
