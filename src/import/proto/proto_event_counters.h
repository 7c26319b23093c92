/* proto_event_counters: the counter values a TrackEvent carries besides its
 * own type — extra_counter_values / extra_double_counter_values (on the
 * counter tracks listed by the event or else by the sequence's
 * TrackEventDefaults) and the absolute thread time / instruction count of
 * the event's thread ("thread_time" in ns, "thread_instruction_count").
 * Values of counter descriptor tracks go through proto_counter_absolute:
 * unit_multiplier, then per-sequence sums for incremental counters (reset
 * when the sequence's incremental state is cleared). At most
 * PROTO_MAX_EXTRA_COUNTERS values of each kind per event; more are counted
 * and dropped. */
#ifndef WEFT_PROTO_EVENT_COUNTERS_H
#define WEFT_PROTO_EVENT_COUNTERS_H

#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"

#define PROTO_MAX_EXTRA_COUNTERS 32

/* The thread time (ns) and instruction count an event gives its thread:
 * from the legacy absolute fields, or from extra counter values on tracks
 * named "thread_time" and "thread_instruction_count". */
typedef struct proto_thread_times {
  int64_t ts, instructions;
  int has_ts, has_instructions;
  /* a legacy complete event's thread_duration_us (in ns) and
   * thread_instruction_delta */
  int64_t dur, instruction_delta;
  int has_dur, has_instruction_delta;
  int instructions_from_track; /* the count came from a counter track */
} proto_thread_times;

/* Sets those columns of `slice`, the slice of an event on a thread track,
 * by the event's kind: 'B' begins the slice, 'E' ends it, 'i' an instant,
 * 'X' a complete slice. An end event's instruction count taken from a
 * counter track ends the slice's count at 0, as Perfetto does (its delta is
 * minus the begin's count). */
void proto_thread_times_apply(trace_context *ctx, const proto_thread_times *times,
                              uint32_t slice, char kind);

/* 1 with the track_uuid of the sequence's TrackEventDefaults, if it has one. */
int proto_default_track_uuid(const proto_packet_info *info, uint64_t *uuid);

/* Index of a TrackEvent's own counter_value among its counters (the extra
 * ones are 0, 1, ...). */
#define PROTO_COUNTER_OWN_VALUE 255

/* At tokenize, in the sequence's packet order, as Perfetto sums them: the
 * values of TrackEvent `event` on incremental counter tracks, summed per
 * sequence and kept for proto_counter_absolute. Does nothing unless such a
 * track was reserved. */
int proto_event_counters_tokenize(import_file *f, uint32_t seq_idx, uint32_t machine,
                                  proto_span event);

/* Turns value `index` (PROTO_COUNTER_OWN_VALUE or an extra counter's) of
 * TrackEvent `event`, on counter track `uuid`, into the value to store: an
 * incremental track's is the sum kept at tokenize. */
int proto_counter_absolute(proto_import_state *st, const proto_packet_info *info,
                           const proto_track_ref *ref, uint64_t uuid, proto_span event,
                           int index, double *v);
/* 1 if field `number` of a TrackEvent is one proto_event_counters reads:
 * an event with none of them has no counters (the caller may skip it). */
static inline int proto_event_counters_field(uint32_t number) {
  switch (number) {
    case PROTO_TRACK_EVENT_EXTRA_COUNTER_TRACK_UUIDS:
    case PROTO_TRACK_EVENT_EXTRA_COUNTER_VALUES:
    case PROTO_TRACK_EVENT_EXTRA_DOUBLE_COUNTER_TRACK_UUIDS:
    case PROTO_TRACK_EVENT_EXTRA_DOUBLE_COUNTER_VALUES:
    case PROTO_TRACK_EVENT_THREAD_TIME_ABSOLUTE_US:
    case PROTO_TRACK_EVENT_THREAD_INSTRUCTION_COUNT_ABSOLUTE: return 1;
    default: return 0;
  }
}
/* Writes the event's extra and thread-time counters at ts and fills
 * *times. utid is the thread of the event's track, or -1. An event with
 * more extra counter values than track uuids is dropped whole, as
 * Perfetto's tokenizer drops it: counted in
 * track_event_extra_counter_track_uuid_mismatch, nothing written, and
 * PROTO_COUNTERS_DROP_EVENT returned. */
#define PROTO_COUNTERS_DROP_EVENT 2
int proto_event_counters(import_file *f, const proto_packet_info *info, int64_t ts,
                         proto_span event, int64_t utid, proto_thread_times *times);

#endif
