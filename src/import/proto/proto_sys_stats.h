/* proto_sys_stats: SysStats packets (polled /proc and /sys counters) and
 * InitialDisplayState, written as counters the way Perfetto names them.
 *
 * A SysStats packet is read kind by kind in Perfetto's order (meminfo,
 * devfreq, cpufreq, vmstat, cpu_stat, irqs, totals, buddyinfo, disk_stat,
 * psi, thermal_zone, cpuidle_state, gpufreq_mhz), so tracks are made in the
 * same order. Each counter's track is machine-wide (or a cpu's) and told
 * apart by its dimension args: meminfo_key (values in bytes), vmstat_key,
 * linux_device, cpu + cpustat_key, irq, buddyinfo node/zone/chunk size,
 * device_name + counter_name, psi_resource, thermal_zone, cpu + state, and
 * gpu 0. disk_stat counters are the change since the device's previous
 * sample (amounts in MB, throughputs in MB/s, flush count and time). A psi
 * sample of an unknown resource ends the packet, as in Perfetto.
 *
 * Owns the previous disk samples per (machine, device), bounded by
 * PROTO_SYS_STATS_MAX_DISKS, and the file's page size from SystemInfo
 * (read when the packet is tokenized, so it applies to every sample). */
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
/* A SystemInfo message seen while tokenizing: its page size (4096 when
 * unset) sizes buddyinfo chunks. *state is created on first use. */
int proto_sys_stats_system_info(proto_sys_stats_state **state, proto_span system_info);

/* /proc key names by MeminfoCounters / VmstatCounters value
 * (proto_sys_stats_keys.c, written by scripts/sys_stats_keys_probe.py). */
#define PROTO_SYS_STATS_MEMINFO_KEYS 39
#define PROTO_SYS_STATS_VMSTAT_KEYS 189
extern const char *const proto_sys_stats_meminfo_keys[PROTO_SYS_STATS_MEMINFO_KEYS];
extern const char *const proto_sys_stats_vmstat_keys[PROTO_SYS_STATS_VMSTAT_KEYS];

#endif
