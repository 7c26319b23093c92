/* Extra and thread-time counters of track events. See proto_event_counters.h. */
#include "import/proto/proto_event_counters.h"

#include "import/proto/proto_fields.h"
#include "model/columns.h"

typedef struct proto_extra_list {
  uint64_t uuids[PROTO_MAX_EXTRA_COUNTERS];
  double values[PROTO_MAX_EXTRA_COUNTERS];
  size_t n_uuids, n_values;
  int has_uuids, overflow;
} proto_extra_list;

static uint64_t proto_counter_value_key(proto_span event, int index) {
  return (uint64_t)(uintptr_t)event.data << 8 | (uint64_t)index;
}

int proto_counter_absolute(proto_import_state *st, const proto_packet_info *info,
                           const proto_track_ref *ref, uint64_t uuid, proto_span event,
                           int index, double *v) {
  if (ref->is_incremental) {
    const uint64_t *kept = base_map_find(&st->counter_values, proto_counter_value_key(event, index));
    if (kept) return memcpy(v, kept, sizeof *v), WEFT_OK;
  }
  if (ref->multiplier > 0) *v *= (double)ref->multiplier;
  if (!ref->is_incremental) return WEFT_OK;
  uint64_t *slot;
  uint64_t key = proto_intern_key(info->seq, info->generation, 0, uuid);
  if (base_map_insert(&st->counter_sums, key, 0, &slot) < 0) return WEFT_ENOMEM;
  double sum;
  memcpy(&sum, slot, sizeof sum);
  sum += *v;
  memcpy(slot, &sum, sizeof sum);
  *v = sum;
  return WEFT_OK;
}

static void proto_extra_add_uuid(proto_extra_list *l, uint64_t uuid) {
  l->has_uuids = 1;
  if (l->n_uuids < PROTO_MAX_EXTRA_COUNTERS) l->uuids[l->n_uuids++] = uuid;
  else l->overflow = 1;
}

static void proto_extra_add_value(proto_extra_list *l, double v) {
  if (l->n_values < PROTO_MAX_EXTRA_COUNTERS) l->values[l->n_values++] = v;
  else l->overflow = 1;
}

/* Reads a repeated uint64 (packed or not) into the uuid list. */
static void proto_extra_read_uuids(const proto_field *fl, proto_extra_list *l) {
  if (fl->wire_type == PROTO_WIRE_VARINT) { proto_extra_add_uuid(l, fl->value); return; }
  if (fl->wire_type != PROTO_WIRE_LEN) return;
  proto_packed_iter it;
  uint64_t v;
  proto_packed_init(&it, fl->span);
  while (proto_packed_next_varint(&it, &v) == 1) proto_extra_add_uuid(l, v);
}

static void proto_extra_read_ints(const proto_field *fl, proto_extra_list *l) {
  if (fl->wire_type == PROTO_WIRE_VARINT) {
    proto_extra_add_value(l, (double)(int64_t)fl->value);
    return;
  }
  if (fl->wire_type != PROTO_WIRE_LEN) return;
  proto_packed_iter it;
  uint64_t v;
  proto_packed_init(&it, fl->span);
  while (proto_packed_next_varint(&it, &v) == 1) proto_extra_add_value(l, (double)(int64_t)v);
}

static void proto_extra_read_doubles(const proto_field *fl, proto_extra_list *l) {
  if (fl->wire_type == PROTO_WIRE_FIXED64) { proto_extra_add_value(l, proto_field_double(fl)); return; }
  if (fl->wire_type != PROTO_WIRE_LEN) return;
  proto_packed_iter it;
  uint64_t v;
  proto_packed_init(&it, fl->span);
  while (proto_packed_next_fixed64(&it, &v) == 1) {
    double d;
    memcpy(&d, &v, sizeof d);
    proto_extra_add_value(l, d);
  }
}

/* The TrackEventDefaults' uuid list `number`, when the event has none. */
static void proto_extra_default_uuids(const proto_packet_info *info, uint32_t number,
                                      proto_extra_list *l) {
  proto_field fl;
  if (l->has_uuids || !info->defaults.data ||
      proto_find_last(info->defaults.data, info->defaults.len,
                      PROTO_TRACE_PACKET_DEFAULTS_TRACK_EVENT_DEFAULTS, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN)
    return;
  proto_reader r;
  proto_field uf;
  proto_reader_init_span(&r, fl.span);
  while (proto_reader_next(&r, &uf) == 1)
    if (uf.number == number) proto_extra_read_uuids(&uf, l);
}

/* Notes a value of an extra counter track named thread_time or
 * thread_instruction_count in *times. */
static void proto_extra_note_thread(trace_context *ctx, uint32_t track, double v,
                                    proto_thread_times *times) {
  string_id name = storage_get_str(ctx_table(ctx, TABLE_TRACK), TRACK_name, track);
  const char *s = name ? base_string_pool_get(&ctx->strings, name) : NULL;
  if (!s || !(v > -9.2e18 && v < 9.2e18)) return; /* not an int64 (or NaN) */
  if (!strcmp(s, "thread_time")) times->ts = (int64_t)v, times->has_ts = 1;
  else if (!strcmp(s, "thread_instruction_count"))
    times->instructions = (int64_t)v, times->has_instructions = times->instructions_from_track = 1;
}

/* `first`: the index of the list's first value among the event's counters
 * (proto_counter_absolute). */
static int proto_extra_write(import_file *f, const proto_packet_info *info, int64_t ts,
                             proto_span event, int first, const proto_extra_list *l,
                             proto_thread_times *times) {
  proto_import_state *st = f->state;
  if (l->overflow) {
    int rc = import_stat(f, stat_track_event_extra_counter_exceeds_max, 1);
    if (rc) return rc;
  }
  int64_t seq_id = st->seqs.data[info->seq].id;
  for (size_t i = 0; i < l->n_values && i < l->n_uuids; i++) {
    proto_track_ref ref;
    int rc = proto_tracks_intern(f, &st->track_model, info->machine, l->uuids[i], STRING_NULL,
                                 seq_id, TRACK_COMPRESSOR_INSTANT, &ref);
    if (rc > 0 || (!rc && !ref.is_counter)) {
      rc = import_stat(f, stat_track_event_extra_counter_invalid_track, 1);
      if (rc) return rc;
      continue;
    }
    double v = l->values[i];
    if (!rc) rc = proto_counter_absolute(st, info, &ref, l->uuids[i], event, first + (int)i, &v);
    if (!rc) rc = model_counter(f->ctx, ref.track, ts, v, -1);
    if (rc) return rc;
    if (times) proto_extra_note_thread(f->ctx, ref.track, v, times);
  }
  return WEFT_OK;
}

/* A counter of the event's thread: `type` is Perfetto's classification of
 * the track ("thread_time", "thread_instructions"). */
static int proto_thread_counter(import_file *f, uint32_t utid, const char *name,
                                const char *type, int64_t ts, double v) {
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.name = name;
  spec.type = type;
  spec.is_counter = 1;
  spec.utid = utid;
  spec.machine = (uint32_t)storage_get_i64_or(ctx_table(f->ctx, TABLE_THREAD),
                                              THREAD_machine_id, utid, 0);
  uint32_t track;
  int rc = model_track(f->ctx, &spec, &track);
  return rc ? rc : model_counter(f->ctx, track, ts, v, -1);
}

int proto_event_counters(import_file *f, const proto_packet_info *info, int64_t ts,
                         proto_span event, int64_t utid, proto_thread_times *times) {
  proto_extra_list ints, doubles;
  int64_t thread_time_us = 0, instructions = 0;
  int has_thread_time = 0, has_instructions = 0;
  memset(&ints, 0, sizeof ints);
  memset(&doubles, 0, sizeof doubles);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, event);
  while (proto_reader_next(&r, &fl) == 1) {
    switch (fl.number) {
      case PROTO_TRACK_EVENT_EXTRA_COUNTER_TRACK_UUIDS: proto_extra_read_uuids(&fl, &ints); break;
      case PROTO_TRACK_EVENT_EXTRA_COUNTER_VALUES: proto_extra_read_ints(&fl, &ints); break;
      case PROTO_TRACK_EVENT_EXTRA_DOUBLE_COUNTER_TRACK_UUIDS: proto_extra_read_uuids(&fl, &doubles); break;
      case PROTO_TRACK_EVENT_EXTRA_DOUBLE_COUNTER_VALUES: proto_extra_read_doubles(&fl, &doubles); break;
      case PROTO_TRACK_EVENT_THREAD_TIME_ABSOLUTE_US:
        thread_time_us = (int64_t)fl.value;
        has_thread_time = fl.wire_type == PROTO_WIRE_VARINT;
        break;
      case PROTO_TRACK_EVENT_THREAD_INSTRUCTION_COUNT_ABSOLUTE:
        instructions = (int64_t)fl.value;
        has_instructions = fl.wire_type == PROTO_WIRE_VARINT;
        break;
      default: break;
    }
  }
  proto_extra_default_uuids(info, PROTO_TRACK_EVENT_DEFAULTS_EXTRA_COUNTER_TRACK_UUIDS, &ints);
  proto_extra_default_uuids(info, PROTO_TRACK_EVENT_DEFAULTS_EXTRA_DOUBLE_COUNTER_TRACK_UUIDS,
                            &doubles);
  if (ints.n_values > ints.n_uuids || doubles.n_values > doubles.n_uuids) {
    int rc = import_stat(f, stat_track_event_extra_counter_track_uuid_mismatch, 1);
    return rc ? rc : PROTO_COUNTERS_DROP_EVENT;
  }
  /* the thread's own counters first, then the extra ones, as Perfetto */
  int rc = WEFT_OK;
  /* the legacy event's dur stays */
  times->has_ts = times->has_instructions = times->instructions_from_track = 0;
  if (has_thread_time && thread_time_us < INT64_MAX / 1000 && thread_time_us > -INT64_MAX / 1000)
    times->ts = thread_time_us * 1000, times->has_ts = 1;
  if (has_instructions) times->instructions = instructions, times->has_instructions = 1;
  if (utid >= 0 && times->has_ts)
    rc = proto_thread_counter(f, (uint32_t)utid, "thread_time", "thread_time", ts,
                              (double)times->ts);
  if (!rc && utid >= 0 && has_instructions)
    rc = proto_thread_counter(f, (uint32_t)utid, "thread_instruction_count",
                              "thread_instructions", ts, (double)instructions);
  if (!rc && ints.n_values) rc = proto_extra_write(f, info, ts, event, 0, &ints, times);
  /* the tokenizer keeps only the ints' sums: the doubles' indexes are apart */
  if (!rc && doubles.n_values)
    rc = proto_extra_write(f, info, ts, event, PROTO_MAX_EXTRA_COUNTERS, &doubles, NULL);
  return rc;
}

void proto_thread_times_apply(trace_context *ctx, const proto_thread_times *times,
                              uint32_t slice, char kind) {
  if (kind == 'E') {
    if (times->has_ts) model_slice_end_thread_time(ctx, slice, times->ts);
    if (times->has_instructions)
      model_slice_end_thread_instructions(ctx, slice,
                                          times->instructions_from_track ? 0 : times->instructions);
    return;
  }
  if (times->has_ts) model_slice_set_thread_ts(ctx, slice, times->ts, kind == 'i');
  if (times->has_instructions)
    model_slice_set_thread_instructions(ctx, slice, times->instructions, kind == 'i');
  if (kind != 'X') return;
  if (times->has_dur) model_slice_set_thread_dur(ctx, slice, times->dur);
  if (times->has_instruction_delta)
    model_slice_set_thread_instruction_delta(ctx, slice, times->instruction_delta);
}

int proto_default_track_uuid(const proto_packet_info *info, uint64_t *uuid) {
  proto_field fl;
  if (!info->defaults.data ||
      proto_find_last(info->defaults.data, info->defaults.len,
                      PROTO_TRACE_PACKET_DEFAULTS_TRACK_EVENT_DEFAULTS, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_LEN)
    return 0;
  proto_span d = fl.span;
  if (proto_find_last(d.data, d.len, PROTO_TRACK_EVENT_DEFAULTS_TRACK_UUID, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT)
    return 0;
  *uuid = fl.value;
  return 1;
}

/* ---- tokenize: incremental counters in packet order ---- */

/* Sums value v of incremental track `uuid` into the sequence's running sum
 * and keeps the result as value `index` of `event`. */
static int proto_counter_keep(proto_import_state *st, uint32_t seq_idx, uint32_t machine,
                              uint64_t uuid, proto_span event, int index, double v) {
  int64_t multiplier;
  if (!proto_tracks_incremental_counter(&st->track_model, machine, uuid, &multiplier))
    return WEFT_OK;
  if (multiplier > 0) v *= (double)multiplier;
  uint64_t *slot;
  uint64_t key = proto_intern_key(seq_idx, st->seqs.data[seq_idx].generation, 0, uuid);
  if (base_map_insert(&st->token_sums, key, 0, &slot) < 0) return WEFT_ENOMEM;
  double sum;
  memcpy(&sum, slot, sizeof sum);
  sum += v;
  memcpy(slot, &sum, sizeof sum);
  if (base_map_insert(&st->counter_values, proto_counter_value_key(event, index), 0, &slot) < 0)
    return WEFT_ENOMEM;
  memcpy(slot, &sum, sizeof sum);
  return WEFT_OK;
}

int proto_event_counters_tokenize(import_file *f, uint32_t seq_idx, uint32_t machine,
                                  proto_span event) {
  proto_import_state *st = f->state;
  if (!st->track_model.has_incremental) return WEFT_OK;
  proto_extra_list ints;
  memset(&ints, 0, sizeof ints);
  uint64_t type = 0, track = 0;
  int has_track = 0, has_value = 0;
  double value = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, event);
  while (proto_reader_next(&r, &fl) == 1) {
    switch (fl.number) {
      case PROTO_TRACK_EVENT_TYPE: type = fl.value; break;
      case PROTO_TRACK_EVENT_TRACK_UUID: track = fl.value, has_track = 1; break;
      case PROTO_TRACK_EVENT_COUNTER_VALUE:
        if (fl.wire_type == PROTO_WIRE_VARINT) value = (double)(int64_t)fl.value, has_value = 1;
        break;
      case PROTO_TRACK_EVENT_DOUBLE_COUNTER_VALUE:
        if (fl.wire_type == PROTO_WIRE_FIXED64) value = proto_field_double(&fl), has_value = 1;
        break;
      case PROTO_TRACK_EVENT_EXTRA_COUNTER_TRACK_UUIDS: proto_extra_read_uuids(&fl, &ints); break;
      case PROTO_TRACK_EVENT_EXTRA_COUNTER_VALUES: proto_extra_read_ints(&fl, &ints); break;
      default: break;
    }
  }
  const proto_seq *seq = &st->seqs.data[seq_idx];
  proto_packet_info info = {{NULL, 0}, seq->defaults, seq_idx, seq->generation, machine, 0};
  int rc = WEFT_OK;
  if (type == PROTO_TRACK_EVENT_TYPE_COUNTER && has_value) {
    if (!has_track) proto_default_track_uuid(&info, &track);
    rc = proto_counter_keep(st, seq_idx, machine, track, event, PROTO_COUNTER_OWN_VALUE, value);
  }
  if (!ints.n_values) return rc;
  proto_extra_default_uuids(&info, PROTO_TRACK_EVENT_DEFAULTS_EXTRA_COUNTER_TRACK_UUIDS, &ints);
  for (size_t i = 0; !rc && i < ints.n_values && i < ints.n_uuids; i++)
    rc = proto_counter_keep(st, seq_idx, machine, ints.uuids[i], event, (int)i, ints.values[i]);
  return rc;
}
