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

/* Turns a value of counter track `uuid` into the value to store. */
int proto_counter_absolute(proto_import_state *st, const proto_packet_info *info,
                           const proto_track_ref *ref, uint64_t uuid, double *v);
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
/* Writes the event's extra and thread-time counters at ts. utid is the
 * thread of the event's track, or -1. */
int proto_event_counters(import_file *f, const proto_packet_info *info, int64_t ts,
                         proto_span event, int64_t utid);

#endif
