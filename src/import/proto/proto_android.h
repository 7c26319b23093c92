/* proto_android: Android probes that are not power data — logcat
 * (AndroidLogPacket), the packages list (PackagesList) and systemd journald
 * entries (JournaldEvent) — into the logs and package_list tables
 * (model/logs.h).
 *
 * Rules:
 *  - logcat: each event is queued on its own at tokenize time, at its
 *    timestamp on CLOCK_REALTIME (so events are parsed, and their threads
 *    made, in time order among the other events); its
 *    thread is (tid, pid) when tid is set, else utid 0; priority 0 reads as
 *    INFO (4); an absent tag or message is ""; each named-or-not arg
 *    appends " name=value" to the message (strings quoted, floats "%f"),
 *    within 4096 bytes. Stats num_total/failed/skipped set the
 *    android_log_num_* stats.
 *  - packages: one row per name not seen before; absent fields are 0;
 *    parse_error/read_error set packages_list_has_{parse,read}_errors.
 *  - system properties ("debug.tracing.*"): device_state is an instant on
 *    the device state track (model/android.h); the others need a whole
 *    int32 value: profile_boot_classpath / profile_system_server are
 *    metadata, screen_state the screen state counter, battery_stats.<x> a
 *    "battery_stats" counter named and keyed (counter_key) "battery_stats.
 *    <x>", battery_status / plug_type / mcc / mnc /
 *    desktop_mode_visible_tasks "sysprop_counter"s (dimension sysprop_name,
 *    the full name) named BatteryStatus / PlugType / the short name.
 *  - CPU per uid (CpuPerUidData, per file): total_time_ms values go to the
 *    uids in turn, cluster_count (the last given) each; a (uid, cluster)'s
 *    first value is absolute, the next ones increments. Its increase (0 the
 *    first time) adds to its group's total (uids whose app id is in
 *    50000-59999 or 90000-99999 group by ten thousands) and to the System
 *    (app id < 10000) or Apps total of the cluster. Each packet writes the
 *    System then Apps totals ("CPU for System|Apps CL<c>", type
 *    android_cpu_per_uid_totals, dimensions type, cluster), the groups'
 *    totals and the other uids' values ("CPU for UID <uid> CL<c>", type
 *    android_cpu_per_uid, dimensions uid, cluster, unit ms), sparsely: a
 *    value equal to the track's last is written only just before a
 *    different one. __intrinsic_android_cpu_per_uid_track has a row per
 *    uid track with its total.
 *  - journald: at the packet's time; thread tid (pid when absent) of pid,
 *    NULL without either; absent prio is 0, absent tag/message NULL; the
 *    present ones of uid, comm, systemd_unit, hostname, transport are args.
 * Owns the set of package names seen (bounded by the packages read). */
#ifndef WEFT_PROTO_ANDROID_H
#define WEFT_PROTO_ANDROID_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_ANDROID_LOG 39
#define PROTO_TRACE_PACKET_PACKAGES_LIST 47
#define PROTO_TRACE_PACKET_ANDROID_SYSTEM_PROPERTY 86
#define PROTO_TRACE_PACKET_CPU_PER_UID_DATA 119
#define PROTO_TRACE_PACKET_JOURNALD_EVENT 132

typedef struct proto_android_state proto_android_state;

/* Payload bits of a queued logcat event: an ftrace-side pattern that
 * neither proto_ftrace (side indices far below bit 60) nor ETW (bit 61)
 * makes; the low bits index the event's record. */
#define PROTO_ANDROID_LOG_PAYLOAD (UINT64_C(0xd) << 60)

static inline int proto_android_log_is_payload(uint64_t payload) {
  return (payload >> 60) == (PROTO_ANDROID_LOG_PAYLOAD >> 60);
}

/* At tokenize time: queues each LogEvent of the packet's AndroidLogPacket
 * (if any); *state is created on first use. */
int proto_android_log_tokenize(import_file *f, proto_android_state **state, uint32_t machine,
                               proto_span packet);
/* A queued LogEvent (payload made by proto_android_log_tokenize). */
int proto_android_log_parse(import_file *f, proto_android_state *state, uint64_t payload,
                            int64_t ts);
typedef struct proto_android_cpu_state proto_android_cpu_state;

/* A CpuPerUidData (proto_android_cpu.c); *state is created on first use. */
int proto_android_cpu_per_uid(import_file *f, proto_android_cpu_state **state, uint32_t machine,
                              int64_t ts, proto_span msg);
void proto_android_cpu_free(proto_android_cpu_state *s);

int proto_android_wants_field(uint32_t number);
/* One such TracePacket field at trace time ts on machine row `machine`;
 * *state is created on first use. */
int proto_android_parse(import_file *f, proto_android_state **state, uint32_t machine,
                        int64_t ts, const proto_field *field);
void proto_android_free(proto_android_state *s);

#endif
