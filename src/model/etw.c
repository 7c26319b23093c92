/* etw: ETW file I/O operations as slices (model/etw.h). */
#include "model/etw.h"

#include <stdio.h>

#include "model/columns.h"
#include "model/slice_stack.h"
#include "model/track_compressor.h"

/* An operation started by an IRP; `open` until it ends. Records are
 * reused by their IRP, so they grow with the distinct IRPs only. */
typedef struct etw_started {
  uint64_t irp;
  int64_t ts;
  uint32_t utid, machine;
  string_id name;
  int open;
} etw_started;

struct etw_state {
  track_compressor sets;        /* per utid */
  base_map started_by_irp;      /* irp -> index into started + 1 */
  int has_max_irp;              /* UINT64_MAX (a reserved map key): */
  uint32_t max_irp_index;       /* its index into started */
  VEC(etw_started) started;
  string_id end_operation, missing_event, missing_start, missing_end;
};

void etw_state_free(etw_state *s) {
  if (!s) return;
  track_compressor_free(&s->sets);
  base_map_free(&s->started_by_irp);
  VEC_FREE(s->started);
  base_free(s);
}

static int etw_intern(trace_context *ctx, const char *s, string_id *out) {
  return ctx_intern(ctx, s, strlen(s), out);
}

static int etw_get(trace_context *ctx, etw_state **out) {
  etw_state *s = ctx->model.etw;
  if (!s) {
    if (!(s = base_calloc(1, sizeof *s))) return WEFT_ENOMEM;
    ctx->model.etw = s;
    int rc = etw_intern(ctx, "EndOperation", &s->end_operation);
    if (!rc) rc = etw_intern(ctx, "Missing Event", &s->missing_event);
    if (!rc) rc = etw_intern(ctx, "Start", &s->missing_start);
    if (!rc) rc = etw_intern(ctx, "End", &s->missing_end);
    if (rc) return rc;
  }
  *out = s;
  return WEFT_OK;
}

/* The open operation of irp, or NULL; *index: its record when it has one
 * (open or not), else UINT32_MAX. */
static etw_started *etw_find(etw_state *s, uint64_t irp, uint32_t *index) {
  *index = UINT32_MAX;
  if (irp == UINT64_MAX) {
    if (s->has_max_irp) *index = s->max_irp_index;
  } else {
    uint64_t *v = base_map_find(&s->started_by_irp, irp);
    if (v) *index = (uint32_t)(*v - 1);
  }
  if (*index == UINT32_MAX || !s->started.data[*index].open) return NULL;
  return &s->started.data[*index];
}

/* Records irp as open (reusing its record when it has one). */
static int etw_remember(etw_state *s, const etw_fileio_at *at, uint32_t utid, string_id name) {
  uint32_t index;
  uint64_t irp = at->irp;
  etw_find(s, irp, &index);
  etw_started rec = {irp, at->ts, utid, at->machine, name, 1};
  if (index != UINT32_MAX) {
    s->started.data[index] = rec;
    return WEFT_OK;
  }
  if (s->started.len >= UINT32_MAX - 1 || VEC_PUSH(s->started, rec)) return WEFT_ENOMEM;
  index = (uint32_t)(s->started.len - 1);
  if (irp == UINT64_MAX) {
    s->has_max_irp = 1;
    s->max_irp_index = index;
    return WEFT_OK;
  }
  uint64_t *slot;
  return base_map_insert(&s->started_by_irp, irp, index + 1, &slot) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

/* The etw_fileio track of (set, slot), made when new. */
static int etw_slot_track(trace_context *ctx, etw_state *s, uint32_t machine, uint32_t utid,
                          uint32_t set, uint32_t slot, uint32_t *track) {
  uint32_t *row = track_compressor_track(&s->sets, set, slot);
  if (*row == TRACK_COMPRESSOR_NO_TRACK) {
    model_track_spec spec;
    model_track_spec_init(&spec);
    spec.type = "etw_fileio";
    spec.utid = utid;
    spec.machine = machine;
    spec.compressor_idx = slot;
    spec.group_key = model_track_group_key(&s->sets, set);
    int rc = model_track(ctx, &spec, row);
    if (rc) return rc;
  }
  *track = *row;
  return WEFT_OK;
}

/* A thread of the model: its machine and utid. */
typedef struct etw_thread {
  uint32_t machine, utid;
} etw_thread;

static int etw_cookie_track(trace_context *ctx, etw_state *s, etw_thread t, uint64_t irp,
                            track_compressor_event ev, uint32_t *track) {
  uint32_t set, slot;
  int rc = track_compressor_use(&s->sets, base_hash_u64(t.utid), (int64_t)irp, ev, &set, &slot);
  return rc ? rc : etw_slot_track(ctx, s, t.machine, t.utid, set, slot, track);
}

/* Pends the args, then `extra` (a "Missing Event" value) unless STRING_NULL. */
static int etw_pend(trace_context *ctx, const etw_state *s, const etw_arg *args, size_t n,
                    string_id extra) {
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    const etw_arg *a = &args[i];
    rc = a->type == MODEL_ARG_STRING ? model_arg_string_id(ctx, a->key, a->str, a->type)
                                     : model_arg_int_id(ctx, a->key, a->type, a->value);
  }
  if (!rc && extra != STRING_NULL)
    rc = model_arg_string_id(ctx, s->missing_event, extra, MODEL_ARG_STRING);
  return rc;
}

static int etw_commit(trace_context *ctx, int rc, int64_t *arg_set) {
  *arg_set = -1;
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return model_args_commit(ctx, arg_set);
}

/* A slice of dur 0 on the thread's scoped track. */
static int etw_instant(trace_context *ctx, etw_state *s, etw_thread t, int64_t ts,
                       string_id name, const etw_arg *args, size_t n, string_id extra) {
  uint32_t set, slot, track, slice;
  int64_t arg_set;
  int rc = track_compressor_use_scoped(&s->sets, base_hash_u64(t.utid), ts, 0, &set, &slot);
  if (!rc) rc = etw_slot_track(ctx, s, t.machine, t.utid, set, slot, &track);
  if (rc) return rc;
  rc = etw_commit(ctx, etw_pend(ctx, s, args, n, extra), &arg_set);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, STRING_NULL, name, arg_set, &slice);
}

/* Ends the open operation `op` at ts on the track of utid and its IRP. */
static int etw_close(trace_context *ctx, etw_state *s, etw_started *op, etw_thread t,
                     int64_t ts, const etw_arg *args, size_t n, string_id extra) {
  uint32_t track;
  int64_t slice;
  string_id name = op->name;
  op->open = 0;
  int rc = etw_cookie_track(ctx, s, t, op->irp, TRACK_COMPRESSOR_END, &track);
  if (!rc) rc = slice_stack_end_matching(ctx, track, ts, STRING_NULL, name, &slice);
  if (rc || slice < 0) return rc;
  rc = model_args_reopen(ctx, model_slice_arg_set(ctx, (uint32_t)slice));
  size_t first = model_args_pending(ctx);
  if (!rc) rc = etw_pend(ctx, s, args, n, extra);
  if (!rc) model_args_update_from(ctx, first);
  int64_t arg_set;
  rc = etw_commit(ctx, rc, &arg_set);
  if (!rc && arg_set >= 0) model_slice_set_args(ctx, (uint32_t)slice, arg_set);
  return rc;
}

/* The state and the thread of an event. */
static int etw_event_thread(trace_context *ctx, const etw_fileio_at *at, etw_state **s,
                            etw_thread *t) {
  t->machine = at->machine;
  int rc = etw_get(ctx, s);
  return rc ? rc : model_thread(ctx, at->machine, at->tid, &t->utid);
}

static etw_thread etw_started_thread(const etw_started *op) {
  return (etw_thread){op->machine, op->utid};
}

int model_etw_fileio_start(trace_context *ctx, const etw_fileio_at *at, string_id name,
                           const etw_arg *args, size_t n) {
  etw_state *s;
  etw_thread t;
  uint32_t index, track, slice;
  int rc = etw_event_thread(ctx, at, &s, &t);
  if (rc) return rc;
  if (!at->has_irp) return etw_instant(ctx, s, t, at->ts, name, args, n, STRING_NULL);
  etw_started *prev = etw_find(s, at->irp, &index);
  if (prev) { /* the IRP is reused: its previous operation's end was lost */
    rc = etw_close(ctx, s, prev, etw_started_thread(prev), prev->ts, NULL, 0, s->missing_end);
    if (rc) return rc;
  }
  rc = etw_cookie_track(ctx, s, t, at->irp, TRACK_COMPRESSOR_BEGIN, &track);
  int64_t arg_set;
  if (!rc) rc = etw_commit(ctx, etw_pend(ctx, s, args, n, STRING_NULL), &arg_set);
  if (!rc) rc = model_slice_begin(ctx, track, at->ts, STRING_NULL, name, arg_set, &slice);
  return rc ? rc : etw_remember(s, at, t.utid, name);
}

int model_etw_fileio_end(trace_context *ctx, const etw_fileio_at *at, const etw_arg *args,
                         size_t n) {
  etw_state *s;
  etw_thread t;
  uint32_t index;
  int rc = etw_event_thread(ctx, at, &s, &t);
  if (rc) return rc;
  if (!at->has_irp)
    return etw_instant(ctx, s, t, at->ts, s->end_operation, args, n, STRING_NULL);
  etw_started *op = etw_find(s, at->irp, &index);
  if (!op)
    return etw_instant(ctx, s, t, at->ts, s->end_operation, args, n, s->missing_start);
  return etw_close(ctx, s, op, t, at->ts, args, n, STRING_NULL);
}

int model_etw_fileio_finish(trace_context *ctx) {
  etw_state *s = ctx->model.etw;
  if (!s) return WEFT_OK;
  for (size_t i = 0; i < s->started.len; i++) {
    etw_started *op = &s->started.data[i];
    if (!op->open) continue;
    int rc = etw_close(ctx, s, op, etw_started_thread(op), op->ts, NULL, 0, s->missing_end);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int model_etw_meminfo(trace_context *ctx, uint32_t machine, int64_t ts, const char *type,
                      double pages) {
  char name[64];
  snprintf(name, sizeof name, "%s Page Count", type);
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = "etw_meminfo";
  spec.is_counter = 1;
  spec.machine = machine;
  spec.unit = "pages";
  spec.dim_key = "counter_type";
  spec.dim_str = type;
  uint32_t track;
  int rc = model_track(ctx, &spec, &track);
  return rc ? rc : model_counter(ctx, track, ts, pages, -1);
}
