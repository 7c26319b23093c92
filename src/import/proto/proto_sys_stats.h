/* proto_sys_stats: SysStats packets (polled /proc and /sys counters) and
 * InitialDisplayState, written as counters.
 *
 * cpu_stat -> per-cpu "cpu.times.<mode>_ns" counters; gpufreq_mhz ->
 * "gpufreq"; thermal_zone -> a counter named by the zone's type; disk_stat
 * -> "diskstat.[<dev>].<metric>" counters derived from the change since the
 * device's previous sample (amounts in MB, throughputs in MB/s, flush count
 * and time), tracks carrying a device_name dimension; initial_display_state
 * -> the "ScreenState" counter. Owns the previous disk samples per (machine,
 * device); bounded by PROTO_SYS_STATS_MAX_DISKS. */
#ifndef WEFT_PROTO_SYS_STATS_H
#define WEFT_PROTO_SYS_STATS_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_SYS_STATS 7
#define PROTO_TRACE_PACKET_INITIAL_DISPLAY_STATE 70
#define PROTO_SYS_STATS_MAX_DISKS 1024

typedef struct proto_sys_stats_state proto_sys_stats_state;

/* A SysStats message at trace time ts on machine row `machine`. *state is
 * created on first use. */
int proto_sys_stats_parse(import_file *f, proto_sys_stats_state **state,
                          uint32_t machine, int64_t ts, proto_span msg);
int proto_initial_display_state(import_file *f, uint32_t machine, int64_t ts,
                                proto_span msg);
void proto_sys_stats_free(proto_sys_stats_state *s);

#endif
