/* The flow tracker: binds flow points to slices and writes `flow` rows. */
#include "model/flow.h"

#include "model/context.h"
#include "model/slice_stack.h"

#define FLOW_MAX_PROBES 16

/* A flow, keyed by (trace, value): v1 ids (counted from 0) and v2 ids
 * share one space, as Perfetto's flow tracker keys them, so a v1 flow can
 * meet a v2 flow of the same number (flow_duplicate_id). */
typedef struct flow_entry {
  uint32_t trace;
  uint64_t value;
  int64_t slice; /* the flow's last slice; -1 once closed */
} flow_entry;

typedef struct flow_v1_entry {
  uint32_t trace;
  uint64_t source_id;
  string_id category, name;
} flow_v1_entry;

typedef struct flow_pending {
  uint32_t entry; /* index into entries */
  flow_scope scope;
} flow_pending;

typedef struct flow_pending_list {
  VEC(flow_pending) items;
} flow_pending_list;

struct flow_state {
  base_map entry_index; /* probed hash of (trace, kind, value) -> entry */
  VEC(flow_entry) entries;
  base_map v1_index; /* probed hash of a v1 key -> index into v1 (= id) */
  VEC(flow_v1_entry) v1;
  base_map pending_index; /* track -> index into pending */
  VEC(flow_pending_list) pending;
};

void flow_state_free(flow_state *st) {
  if (!st) return;
  base_map_free(&st->entry_index);
  VEC_FREE(st->entries);
  base_map_free(&st->v1_index);
  VEC_FREE(st->v1);
  base_map_free(&st->pending_index);
  for (size_t i = 0; i < st->pending.len; i++) VEC_FREE(st->pending.data[i].items);
  VEC_FREE(st->pending);
  base_free(st);
}

static flow_state *flow_state_get(trace_context *ctx) {
  if (!ctx->model.flow) ctx->model.flow = base_calloc(1, sizeof(flow_state));
  return ctx->model.flow;
}

/* ---- exact-key lookups over a u64 map: probe hashed keys, compare ---- */

typedef int (*flow_eq_fn)(const flow_state *st, uint64_t index, const void *key);

/* 1 = found (*index), 0 = absent (*free_key is where to insert),
 * WEFT_ELIMIT when every probe collides. */
static int flow_probe(const flow_state *st, const base_map *map, uint64_t hash,
                      flow_eq_fn eq, const void *key, uint64_t *index,
                      uint64_t *free_key) {
  for (uint64_t i = 0; i < FLOW_MAX_PROBES; i++) {
    uint64_t k = base_hash_u64(hash + i) >> 1;
    uint64_t *v = base_map_find(map, k);
    if (!v) {
      *free_key = k;
      return 0;
    }
    if (eq(st, *v, key)) {
      *index = *v;
      return 1;
    }
  }
  return WEFT_ELIMIT;
}

typedef struct flow_entry_key {
  uint32_t trace;
  flow_id id;
} flow_entry_key;

static int flow_entry_eq(const flow_state *st, uint64_t index, const void *key) {
  const flow_entry_key *k = key;
  const flow_entry *e = &st->entries.data[index];
  return e->trace == k->trace && e->value == k->id.value;
}

static uint64_t flow_entry_hash(const flow_entry_key *k) {
  uint64_t parts[2] = {k->trace, k->id.value};
  return base_hash_bytes(parts, sizeof parts);
}

/* Finds the flow's entry; with `create`, adds an inactive one if absent.
 * *index = UINT64_MAX when absent and not created. */
static int flow_entry_find(flow_state *st, uint32_t trace, flow_id id,
                           int create, uint64_t *index) {
  flow_entry_key k = {trace, id};
  uint64_t free_key = 0;
  *index = UINT64_MAX;
  int found = flow_probe(st, &st->entry_index, flow_entry_hash(&k), flow_entry_eq,
                         &k, index, &free_key);
  if (found != 0) return found < 0 ? found : WEFT_OK;
  if (!create) return WEFT_OK;
  flow_entry e = {trace, id.value, -1};
  if (VEC_PUSH(st->entries, e)) return WEFT_ENOMEM;
  if (base_map_insert(&st->entry_index, free_key, st->entries.len - 1, NULL) < 0) {
    st->entries.len--;
    return WEFT_ENOMEM;
  }
  *index = st->entries.len - 1;
  return WEFT_OK;
}

/* ---- v1 ids ---- */

static int flow_v1_eq(const flow_state *st, uint64_t index, const void *key) {
  const flow_v1_entry *k = key, *e = &st->v1.data[index];
  return e->trace == k->trace && e->source_id == k->source_id &&
         e->category == k->category && e->name == k->name;
}

int flow_v1_id(trace_context *ctx, flow_scope scope, uint64_t source_id,
               string_id category, string_id name, flow_id *out) {
  flow_state *st = flow_state_get(ctx);
  if (!st) return WEFT_ENOMEM;
  flow_v1_entry k = {scope.trace, source_id, category, name};
  uint64_t parts[4] = {scope.trace, source_id, category, name};
  uint64_t index = 0, free_key = 0;
  int found = flow_probe(st, &st->v1_index, base_hash_bytes(parts, sizeof parts),
                         flow_v1_eq, &k, &index, &free_key);
  if (found < 0) return found;
  if (!found) {
    if (VEC_PUSH(st->v1, k)) return WEFT_ENOMEM;
    index = st->v1.len - 1;
    if (base_map_insert(&st->v1_index, free_key, index, NULL) < 0) {
      st->v1.len--;
      return WEFT_ENOMEM;
    }
  }
  out->value = index;
  return WEFT_OK;
}

/* ---- rows ---- */

static int flow_v1_args(trace_context *ctx, const flow_v1_entry *v1,
                        int64_t *arg_set) {
  const base_string_pool *p = &ctx->strings;
  int rc = model_arg_string(ctx, "name", 4, base_string_pool_get(p, v1->name),
                            base_string_pool_len(p, v1->name), MODEL_ARG_STRING);
  if (!rc)
    rc = model_arg_string(ctx, "cat", 3, base_string_pool_get(p, v1->category),
                          base_string_pool_len(p, v1->category), MODEL_ARG_STRING);
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, arg_set);
}

/* Writes a row between the two slices, the earlier one first. */
static int flow_insert(trace_context *ctx, const flow_entry *e, uint32_t a,
                       uint32_t b) {
  storage_table *slices = ctx_table(ctx, TABLE_SLICE);
  if (storage_get_i64(slices, SLICE_ts, a) > storage_get_i64(slices, SLICE_ts, b)) {
    uint32_t t = a;
    a = b;
    b = t;
  }
  int64_t args = -1;
  if (e->value < ctx->model.flow->v1.len) { /* a v1 id's number, whoever uses it */
    int rc = flow_v1_args(ctx, &ctx->model.flow->v1.data[e->value], &args);
    if (rc) return rc;
  }
  storage_table *t = ctx_table(ctx, TABLE_FLOW);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, FLOW_slice_out, row, a);
  storage_set_i64(t, FLOW_slice_in, row, b);
  storage_set_i64(t, FLOW_trace_id, row, (int64_t)e->value);
  if (args >= 0) storage_set_i64(t, FLOW_arg_set_id, row, args);
  return WEFT_OK;
}

int flow_link(trace_context *ctx, uint32_t out, uint32_t in) {
  storage_table *t = ctx_table(ctx, TABLE_FLOW);
  uint32_t row;
  int rc = storage_table_append(t, &row);
  if (rc) return rc;
  storage_set_i64(t, FLOW_slice_out, row, out);
  storage_set_i64(t, FLOW_slice_in, row, in);
  return WEFT_OK;
}

static int flow_stat(trace_context *ctx, flow_scope scope, stats_id stat) {
  return stats_add(&ctx->stats, stat, -1, scope.machine, scope.trace, 1);
}

/* The topmost slice on the track, or -1 after counting the miss. */
static int flow_enclosing(trace_context *ctx, flow_scope scope, uint32_t track,
                          int64_t *slice) {
  *slice = slice_stack_top(ctx, track);
  return *slice < 0 ? flow_stat(ctx, scope, stat_flow_no_enclosing_slice) : WEFT_OK;
}

/* ---- flow points ---- */

int flow_begin_at(trace_context *ctx, flow_scope scope, uint32_t slice,
                  flow_id id) {
  flow_state *st = flow_state_get(ctx);
  if (!st) return WEFT_ENOMEM;
  uint64_t index;
  int rc = flow_entry_find(st, scope.trace, id, 1, &index);
  if (rc == WEFT_ELIMIT) return WEFT_OK; /* unresolvable collision: drop */
  if (rc) return rc;
  flow_entry *e = &st->entries.data[index];
  if (e->slice >= 0) return flow_stat(ctx, scope, stat_flow_duplicate_id);
  e->slice = slice;
  return WEFT_OK;
}

int flow_begin(trace_context *ctx, flow_scope scope, uint32_t track,
               flow_id id) {
  int64_t slice;
  int rc = flow_enclosing(ctx, scope, track, &slice);
  if (rc || slice < 0) return rc;
  return flow_begin_at(ctx, scope, (uint32_t)slice, id);
}

/* A hop from the flow's last slice to `slice`; step moves the flow on. */
static int flow_hop(trace_context *ctx, flow_scope scope, flow_id id,
                    uint32_t slice, int is_step, int close_flow) {
  flow_state *st = flow_state_get(ctx);
  if (!st) return WEFT_ENOMEM;
  uint64_t index;
  int rc = flow_entry_find(st, scope.trace, id, 0, &index);
  if (rc == WEFT_ELIMIT) rc = WEFT_OK;
  if (rc) return rc;
  if (index == UINT64_MAX || st->entries.data[index].slice < 0)
    return flow_stat(ctx, scope, is_step ? stat_flow_step_without_start
                                         : stat_flow_end_without_start);
  flow_entry *e = &st->entries.data[index];
  uint32_t from = (uint32_t)e->slice;
  if (is_step) e->slice = slice;
  if (close_flow) e->slice = -1;
  return flow_insert(ctx, e, from, slice);
}

int flow_step_at(trace_context *ctx, flow_scope scope, uint32_t slice,
                 flow_id id) {
  return flow_hop(ctx, scope, id, slice, 1, 0);
}

int flow_end_at(trace_context *ctx, flow_scope scope, uint32_t slice,
                flow_id id, int close_flow) {
  return flow_hop(ctx, scope, id, slice, 0, close_flow);
}

int flow_step(trace_context *ctx, flow_scope scope, uint32_t track,
              flow_id id) {
  int64_t slice;
  int rc = flow_enclosing(ctx, scope, track, &slice);
  if (rc || slice < 0) return rc;
  return flow_hop(ctx, scope, id, (uint32_t)slice, 1, 0);
}

static int flow_add_pending(flow_state *st, flow_scope scope, uint32_t track,
                            uint64_t entry) {
  /* Room for a new list first, so the map never points past the vector. */
  if (VEC_RESERVE(st->pending, st->pending.len + 1)) return WEFT_ENOMEM;
  uint64_t *slot;
  int inserted = base_map_insert(&st->pending_index, track, st->pending.len, &slot);
  if (inserted < 0) return WEFT_ENOMEM;
  if (inserted == 1) {
    flow_pending_list empty = {0};
    if (VEC_PUSH(st->pending, empty)) return WEFT_ENOMEM;
  }
  flow_pending p = {(uint32_t)entry, scope};
  return VEC_PUSH(st->pending.data[*slot].items, p);
}

int flow_end(trace_context *ctx, flow_scope scope, uint32_t track, flow_id id,
             int bind_enclosing, int close_flow) {
  flow_state *st = flow_state_get(ctx);
  if (!st) return WEFT_ENOMEM;
  if (!bind_enclosing) {
    uint64_t index;
    int rc = flow_entry_find(st, scope.trace, id, 1, &index);
    if (rc == WEFT_ELIMIT) return WEFT_OK;
    return rc ? rc : flow_add_pending(st, scope, track, index);
  }
  int64_t slice;
  int rc = flow_enclosing(ctx, scope, track, &slice);
  if (rc || slice < 0) return rc;
  return flow_hop(ctx, scope, id, (uint32_t)slice, 0, close_flow);
}

int flow_is_active(trace_context *ctx, flow_scope scope, flow_id id) {
  flow_state *st = ctx->model.flow;
  if (!st) return 0;
  uint64_t index;
  if (flow_entry_find(st, scope.trace, id, 0, &index) != WEFT_OK) return 0;
  return index != UINT64_MAX && st->entries.data[index].slice >= 0;
}

int flow_slice_started(trace_context *ctx, uint32_t track, uint32_t slice) {
  flow_state *st = ctx->model.flow;
  if (!st) return WEFT_OK;
  uint64_t *list_index = base_map_find(&st->pending_index, track);
  if (!list_index) return WEFT_OK;
  flow_pending_list *list = &st->pending.data[*list_index];
  int rc = WEFT_OK;
  for (size_t i = 0; i < list->items.len && !rc; i++) {
    const flow_pending *p = &list->items.data[i];
    const flow_entry *e = &st->entries.data[p->entry];
    if (e->slice < 0)
      rc = flow_stat(ctx, p->scope, stat_flow_end_without_start);
    else
      rc = flow_insert(ctx, e, (uint32_t)e->slice, slice);
  }
  list->items.len = 0;
  return rc;
}
