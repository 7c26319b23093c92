/* Legacy track-event timestamps: TrackEvent.timestamp_absolute_us and
 * timestamp_delta_us (relative to the sequence's reference time, set by
 * ThreadDescriptor.reference_timestamp_us and advanced by deltas, including
 * StreamingProfilePacket.timestamp_delta_us). See proto_import.h.
 * An overflow makes the reference invalid: that packet and every later
 * delta on the sequence are dropped and counted until a new reference. */
#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"

#define PROTO_STREAMING_PROFILE_TIMESTAMP_DELTA_US 2

static int proto_us_to_ns(int64_t us, int64_t *ns) {
  if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000) return 0;
  *ns = us * 1000;
  return 1;
}

/* Advances the reference by delta_us; 0 (and invalidates it) on overflow. */
static int proto_ref_advance(proto_seq *seq, int64_t delta_us) {
  int64_t delta;
  if (seq->ref_invalid || !proto_us_to_ns(delta_us, &delta) ||
      (delta > 0 && seq->ref_ts > INT64_MAX - delta) ||
      (delta < 0 && seq->ref_ts < INT64_MIN - delta)) {
    seq->ref_invalid = 1;
    return 0;
  }
  seq->ref_ts += delta;
  return 1;
}

static void proto_ref_set(proto_seq *seq, proto_span desc) {
  proto_field fl;
  if (proto_find_last(desc.data, desc.len, PROTO_THREAD_DESCRIPTOR_REFERENCE_TIMESTAMP_US,
                      &fl) != 1 || fl.wire_type != PROTO_WIRE_VARINT)
    return;
  int64_t ns;
  seq->ref_invalid = !proto_us_to_ns((int64_t)fl.value, &ns);
  seq->ref_ts = seq->ref_invalid ? 0 : ns;
}

/* Advances the sequence's reference time by every sample's delta; a
 * packet without a timestamp of its own is at its first sample's time
 * (*result 1 with *ts; `timed`: it has one). */
static int proto_profile_deltas(import_file *f, proto_seq *seq, proto_span msg, int timed,
                                int64_t *ts, int *result) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_STREAMING_PROFILE_TIMESTAMP_DELTA_US) continue;
    proto_packed_iter it = {0};
    uint64_t v = fl.value;
    int packed = fl.wire_type == PROTO_WIRE_LEN;
    if (packed) proto_packed_init(&it, fl.span);
    while (packed ? proto_packed_next_varint(&it, &v) == 1 : 1) {
      if (!proto_ref_advance(seq, (int64_t)v)) {
        int rc = import_stat(f, stat_streaming_profile_invalid_timestamp, 1);
        if (rc) return rc;
      } else if (*result == 0 && !timed) {
        *ts = seq->ref_ts;
        *result = 1;
      }
      if (!packed) break;
    }
  }
  return WEFT_OK;
}

/* The event's legacy time fields: timestamp_absolute_us and
 * timestamp_delta_us, each its last occurrence (protobuf "last wins"), set
 * only if that one is a varint. A malformed event has neither. One pass. */
typedef struct proto_event_times {
  uint64_t abs_us, delta_us;
  int has_abs, has_delta;
} proto_event_times;

static proto_event_times proto_event_times_read(proto_span ev) {
  proto_reader r;
  proto_field fl;
  proto_event_times t = {0};
  int more;
  proto_reader_init_span(&r, ev);
  while ((more = proto_reader_next(&r, &fl)) == 1) {
    if (fl.number == PROTO_TRACK_EVENT_TIMESTAMP_ABSOLUTE_US) {
      t.has_abs = fl.wire_type == PROTO_WIRE_VARINT;
      t.abs_us = fl.value;
    } else if (fl.number == PROTO_TRACK_EVENT_TIMESTAMP_DELTA_US) {
      t.has_delta = fl.wire_type == PROTO_WIRE_VARINT;
      t.delta_us = fl.value;
    }
  }
  if (more != 0) t.has_abs = t.has_delta = 0;
  return t;
}

int proto_event_time_is_none(proto_span ev) {
  proto_event_times t = proto_event_times_read(ev);
  return !t.has_abs && !t.has_delta;
}

/* The event's own time: 1 with *ts, 0 if it has none, -1 if invalid.
 * timestamp_absolute_us wins over timestamp_delta_us. */
static int proto_event_time(proto_seq *seq, proto_span ev, int64_t *ts) {
  proto_event_times t = proto_event_times_read(ev);
  if (t.has_abs) return proto_us_to_ns((int64_t)t.abs_us, ts) ? 1 : -1;
  if (t.has_delta) {
    if (!proto_ref_advance(seq, (int64_t)t.delta_us)) return -1;
    *ts = seq->ref_ts;
    return 1;
  }
  return 0;
}

int proto_legacy_event_time(import_file *f, proto_seq *seq, proto_span event, int64_t *ts,
                            int *result) {
  *result = proto_event_time(seq, event, ts);
  return *result < 0 ? import_stat(f, stat_track_event_invalid_timestamp, 1) : WEFT_OK;
}

static int proto_packet_timed(proto_span pkt) {
  proto_field fl;
  return proto_find_first(pkt.data, pkt.len, PROTO_TRACE_PACKET_TIMESTAMP, &fl) == 1;
}

int proto_legacy_time(import_file *f, proto_seq *seq, proto_span pkt, int64_t *ts,
                      int *result) {
  proto_reader r;
  proto_field fl;
  *result = 0;
  proto_reader_init_span(&r, pkt);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    int rc = WEFT_OK;
    if (fl.number == PROTO_TRACE_PACKET_THREAD_DESCRIPTOR) proto_ref_set(seq, fl.span);
    if (fl.number == PROTO_TRACE_PACKET_STREAMING_PROFILE_PACKET)
      rc = proto_profile_deltas(f, seq, fl.span, proto_packet_timed(pkt), ts, result);
    if (fl.number == PROTO_TRACE_PACKET_TRACK_EVENT)
      rc = proto_legacy_event_time(f, seq, fl.span, ts, result);
    if (rc) return rc;
  }
  return WEFT_OK;
}
