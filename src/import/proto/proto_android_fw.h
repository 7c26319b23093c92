/* proto_android_fw: the Android framework's track event extensions
 * (AndroidTrackEvent) that describe process lifetimes, and the aflags data
 * source's errors.
 *
 * Rules:
 *  - process_start_event (TrackEvent field 2010) with a pid: the live
 *    process of that pid, else a new one with its main thread; a given
 *    process_name names it, a given uid sets its uid (and app/user ids).
 *    The process's framework row (__intrinsic_android_track_event_process)
 *    is made on its first start, with fw_start_ts the event's time; every
 *    start overwrites the row's fields it gives (start_seq_id, package_uid,
 *    caller_uid, defining_uid, bind_application_delay_ms,
 *    process_start_delay_ms, hosting_name, and trigger_type / hosting_type
 *    by enum name, or the number in decimal when the name is unknown).
 *  - binder_died_event (field 2013) with a pid: the live process of that
 *    pid, if any (none is made), gets fw_end_ts (its row made, without
 *    fw_start_ts, when no start was seen) and ends at the event's time:
 *    a later start of the pid is a new process.
 *  - AndroidAflags (TracePacket field 127) with an error: the stat
 *    android_aflags_errors and an import log row at the packet's time with
 *    the arg "error", nothing else; without one, each flag is an
 *    __intrinsic_android_aflags row at the packet's time (enums by name,
 *    "unspecified" when absent or unknown). */
#ifndef WEFT_PROTO_ANDROID_FW_H
#define WEFT_PROTO_ANDROID_FW_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACK_EVENT_PROCESS_START_EVENT 2010
#define PROTO_TRACK_EVENT_BINDER_DIED_EVENT 2013
#define PROTO_TRACE_PACKET_ANDROID_AFLAGS 127

typedef struct proto_android_fw_state proto_android_fw_state;

/* A process_start_event or binder_died_event (`field`) at trace time ts. */
int proto_android_fw_event(import_file *f, proto_android_fw_state **state, uint32_t machine,
                           int64_t ts, uint32_t field, proto_span msg);
/* An AndroidAflags packet at trace time ts. */
int proto_android_aflags(import_file *f, int64_t ts, proto_span msg);
void proto_android_fw_free(proto_android_fw_state *s);

#endif
