/* The clocks of a proto file (see proto_clocks.h). */
#include "import/proto/proto_clocks.h"

#include <stdint.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_misc.h"
#include "model/context.h"

#define PROTO_MAX_SNAPSHOT_CLOCKS 64

/* unit_multiplier_ns of a clock: its readings (in snapshots and packet
 * timestamps) are in units of that many ns. Keyed like interned data, by
 * sequence for sequence-scoped clock ids. */
static uint64_t proto_clock_multiplier_key(uint32_t seq, uint64_t clock_id) {
  int scoped = clock_id >= 64 && clock_id < 128;
  return proto_intern_key(scoped ? seq : 0, 0, 0x7f, clock_id);
}

static int proto_clock_set_multiplier(proto_import_state *st, uint32_t seq,
                                      uint64_t clock_id, uint64_t multiplier) {
  uint64_t *slot;
  if (base_map_insert(&st->clock_multipliers, proto_clock_multiplier_key(seq, clock_id),
                      multiplier, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = multiplier;
  return WEFT_OK;
}

int64_t proto_clock_scale(const proto_import_state *st, uint32_t seq, uint64_t clock_id,
                          int64_t value) {
  if (st->clock_multipliers.count == 0) return value;
  const uint64_t *m = base_map_find(&st->clock_multipliers,
                                    proto_clock_multiplier_key(seq, clock_id));
  int64_t scaled;
  if (!m || __builtin_mul_overflow(value, (int64_t)*m, &scaled)) return value;
  return scaled;
}

/* An incremental clock's readings are deltas from its previous reading; a
 * clock snapshot gives its absolute value (ClockSnapshot.Clock
 * is_incremental), which later deltas build on, in file order. */
static int proto_clock_set_incremental(proto_import_state *st, uint32_t seq,
                                       uint64_t clock_id, int64_t value_ns) {
  uint64_t *slot;
  if (base_map_insert(&st->incremental_clocks, proto_clock_multiplier_key(seq, clock_id),
                      (uint64_t)value_ns, &slot) < 0)
    return WEFT_ENOMEM;
  *slot = (uint64_t)value_ns;
  return WEFT_OK;
}

int64_t proto_clock_reading(proto_import_state *st, uint32_t seq, uint64_t clock_id,
                            int64_t value) {
  int64_t ns = proto_clock_scale(st, seq, clock_id, value);
  if (st->incremental_clocks.count == 0) return ns;
  uint64_t *last = base_map_find(&st->incremental_clocks,
                                 proto_clock_multiplier_key(seq, clock_id));
  if (!last) return ns;
  int64_t sum;
  if (__builtin_add_overflow((int64_t)*last, ns, &sum)) sum = ns < 0 ? INT64_MIN : INT64_MAX;
  *last = (uint64_t)sum;
  return sum;
}

/* A snapshot naming a primary clock, or holding BOOTTIME (Perfetto's
 * default), sets the trace-time clock: its metadata row, when this is the
 * first setting and no earlier ftrace event or service event of the load
 * was converted to trace time (see ctx_trace_time_row_state). */
static int proto_trace_time_row(import_file *f, const uint8_t *at, uint64_t clock_id) {
  uint64_t saved = proto_metadata_at(f, at);
  int rc = ctx_metadata_trace_time(f->ctx, clock_id);
  ctx_metadata_at(f->ctx, saved);
  return rc;
}

/* A snapshot's clock for packets without one: its primary clock (which
 * it claims as trace time while no timestamp was converted), or BOOTTIME
 * when it holds BOOTTIME and names no primary. */
static int proto_clock_set_default(import_file *f, const uint8_t *at, uint64_t clock_id,
                                   int primary) {
  proto_import_state *st = f->state;
  st->default_clock_id = clock_id;
  if (primary && !st->trace_clock_locked) {
    import_claim_trace_time(f, clock_id);
    st->claimed_clock = 1;
  }
  return proto_trace_time_row(f, at, clock_id);
}

/* The clock Perfetto calls TRACE_FILE: a file's own timeline. */
#define PROTO_CLOCK_TRACE_FILE 11

int proto_clock_used(import_file *f, int relates_boottime) {
  proto_import_state *st = f->state;
  ctx_metadata_trace_time_used(f->ctx);
  if (st->trace_clock_locked) return WEFT_OK;
  st->trace_clock_locked = 1;
  if (st->claimed_clock) return WEFT_OK;
  st->claimed_clock = 1;
  if (!import_claim_trace_time(f, PROTO_BUILTIN_CLOCK_BOOTTIME) || f->snapshot_count ||
      !relates_boottime)
    return WEFT_OK;
  /* No snapshot placed the file's BOOTTIME: Perfetto relates it to the
   * file's own timeline at zero, a snapshot its table shows. */
  uint64_t ids[2] = {PROTO_BUILTIN_CLOCK_BOOTTIME, PROTO_CLOCK_TRACE_FILE};
  int64_t values[2] = {0, 0};
  return import_clock_snapshot(f, 0, ids, values, 2);
}

uint64_t proto_clock_default(const proto_import_state *st) {
  return st->default_clock_id ? st->default_clock_id : PROTO_BUILTIN_CLOCK_BOOTTIME;
}

int proto_clock_snapshot(import_file *f, uint32_t machine, uint32_t seq_id,
                                proto_span snap) {
  proto_import_state *st = f->state;
  uint64_t ids[PROTO_MAX_SNAPSHOT_CLOCKS];
  int64_t values[PROTO_MAX_SNAPSHOT_CLOCKS];
  size_t n = 0;
  uint64_t primary = 0;
  int has_boottime = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, snap);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_CLOCK_SNAPSHOT_PRIMARY_TRACE_CLOCK &&
        fl.wire_type == PROTO_WIRE_VARINT)
      primary = fl.value;
    if (fl.number != PROTO_CLOCK_SNAPSHOT_CLOCKS || fl.wire_type != PROTO_WIRE_LEN ||
        n == PROTO_MAX_SNAPSHOT_CLOCKS)
      continue;
    proto_reader cr;
    proto_field cf;
    uint64_t id = 0, multiplier = 0;
    int64_t value = 0;
    int incremental = 0;
    proto_reader_init_span(&cr, fl.span);
    while (proto_reader_next(&cr, &cf) == 1) {
      if (cf.number == PROTO_CLOCK_CLOCK_ID) id = cf.value;
      if (cf.number == PROTO_CLOCK_TIMESTAMP) value = (int64_t)cf.value;
      if (cf.number == PROTO_CLOCK_UNIT_MULTIPLIER_NS) multiplier = cf.value;
      if (cf.number == PROTO_CLOCK_IS_INCREMENTAL) incremental = cf.value != 0;
    }
    if (multiplier > 1) {
      int rc = proto_clock_set_multiplier(st, seq_id, id, multiplier);
      if (rc) return rc;
    }
    value = proto_clock_scale(st, seq_id, id, value);
    if (incremental) {
      int rc = proto_clock_set_incremental(st, seq_id, id, value);
      if (rc) return rc;
    }
    if (id == PROTO_BUILTIN_CLOCK_MONOTONIC) st->snapshot_has_monotonic = 1;
    if (id == PROTO_BUILTIN_CLOCK_BOOTTIME) has_boottime = 1;
    ids[n] = id;
    values[n++] = value;
  }
  int rc = primary || has_boottime ? proto_clock_set_default(f, snap.data, primary ? primary
                                                          : PROTO_BUILTIN_CLOCK_BOOTTIME, primary != 0)
                                   : WEFT_OK;
  if (rc || n < 2) return rc;
  return import_clock_snapshot_on(f, machine, seq_id, ids, values, n);
}

