/* proto_legacy_raw: TrackEvents whose legacy phase makes neither a slice
 * nor a flow, as Perfetto's trace processor keeps them.
 *
 * Metadata ('M') events named "thread_name" / "process_name" name the
 * event's thread / its process (a process already named keeps its name)
 * from the first debug annotation's string_value. Every other such event
 * (other metadata, unknown phases) becomes a __intrinsic_chrome_raw row
 * "track_event.legacy_event" of the event's thread, with args
 * legacy_event.{category, name, phase, duration_ns, thread_timestamp_ns,
 * thread_duration_ns, thread_instruction_count, thread_instruction_delta,
 * use_async_tts,
 * unscoped_id | global_id | local_id, id_scope} and then the event's own
 * args. Both need the event's thread; without one they are counted in
 * track_event_parser_errors. */
#ifndef WEFT_PROTO_LEGACY_RAW_H
#define WEFT_PROTO_LEGACY_RAW_H

#include "import/proto/proto_event_counters.h"
#include "import/proto/proto_import.h"

/* 1 for the legacy phases that proto_legacy_raw_apply takes: 'M' and the
 * phases Perfetto knows no other use for. */
int proto_legacy_raw_phase(uint64_t phase);

/* Applies TrackEvent `event` (its legacy_event `legacy`, the thread time it
 * gives `times`) of thread `utid` (or -1) at ts. */
int proto_legacy_raw_apply(import_file *f, const proto_packet_info *info, int64_t ts,
                           int64_t utid, string_id category, string_id name,
                           proto_span event, proto_span legacy,
                           const proto_thread_times *times);

#endif
