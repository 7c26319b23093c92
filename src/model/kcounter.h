/* kcounter: kernel counters beyond the scheduler's (model/sched.h), shared
 * by the proto ftrace and systrace text importers. Owns nothing.
 * Rules (Perfetto's):
 *  - cpu_frequency_limits: "Cpu N Max Freq Limit" (type
 *    cpu_max_frequency_limit) and "Cpu N Min Freq Limit"
 *    (cpu_min_frequency_limit), cpu counter tracks of the machine's cpu N.
 *  - oom_score_adj_update: "oom_score_adj" on the process of the thread
 *    (type oom_score_adj), or on the thread itself while it has no process
 *    (type oom_score_adj_thread_fallback).
 *  - rss_stat: see kcounter_process_memory; members 0..4 are mem.rss.file,
 *    mem.rss.anon, mem.swap, mem.rss.shmem, mem.unreclaimable, any other
 *    mem.unknown.
 *  - device counters: one global counter track per name, with the device as
 *    a string dimension (clock_set_rate "<clk> Frequency" / clock_enable and
 *    clock_disable "<clk> State", thermal_temperature "<zone> Temperature",
 *    cdev_update "<type> Cooling Device").
 *  - Exynos ACPM thermal zones (thermal_exynos_acpm_bulk and _high_overhead):
 *    zone tz_id 0..6 is BIG, MID, LITTLE, GPU, ISP, TPU, AUR; its
 *    temperature goes to "<zone> Temperature" (type acpm_thermal_temperature)
 *    and its cooling device state to "Tj-<zone> Cooling Device" (type
 *    acpm_cooling_device_counter), global tracks with the zone name as the
 *    thermal_zone dimension, each value with the arg thermal_zone_id. Any
 *    other tz_id counts ftrace_thermal_exynos_acpm_unknown_tz_id. */
#ifndef WEFT_MODEL_KCOUNTER_H
#define WEFT_MODEL_KCOUNTER_H

#include "model/sched.h"

/* The cpu's max and min frequency limit counters; a NAN value is not
 * recorded. */
int kcounter_freq_limits(trace_context *ctx, const kernel_scope *s, int64_t ts,
                         uint32_t cpu, double min_freq, double max_freq);
/* oom_score_adj_update of thread pid: an "oom_score_adj" counter of its
 * process (type oom_score_adj), or of the thread when it has none
 * (oom_score_adj_thread_fallback); the value has the thread as its utid arg
 * and takes its track when loading ends, as rss_stat's. */
int kcounter_oom_score_adj(trace_context *ctx, const kernel_scope *s, int64_t ts,
                           int64_t pid, double value);
/* mm_event_record: counters "mem.mm.<type>.count", ".max_lat", ".avg_lat"
 * (type 0..6: min_flt maj_flt read_io compaction reclaim swp_flt
 * kern_alloc; others count mm_unknown_type) on the writing thread's process
 * (type mm_event, dimensions upid, mm_event_type, mm_event_metric), or on
 * the thread when it has none (mm_event_thread_fallback, utid instead);
 * each value has the thread as its utid arg and takes its track when
 * loading ends, as rss_stat's. */
int kcounter_mm_event(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                      uint32_t type, double count, double max_lat, double avg_lat);
/* The "oom_score_adj" counter of process upid (type oom_score_adj). */
int kcounter_process_oom_score_adj(trace_context *ctx, const kernel_scope *s, int64_t ts,
                                   uint32_t upid, double value);

/* A memory counter value `name` ("mem.rss.anon"...) of thread utid, as
 * rss_stat gives it: the row is made now, with the thread as its utid arg;
 * its track waits for kcounter_process_memory_resolve. */
int kcounter_process_memory(trace_context *ctx, const kernel_scope *s, int64_t ts,
                            uint32_t utid, const char *name, double value);
/* Gives each waiting memory value its track, in row order: the process
 * memory track of the thread's process as it is then, or of the thread
 * while it has none (see kcounter_process_memory_track). Called when the
 * events are parsed, before the open slices' args are written. */
int kcounter_process_memory_resolve(trace_context *ctx);
/* The memory counter track `name` of process upid (type process_memory,
 * dimensions upid and process_memory_key: the name without "mem.", source
 * arg its description), or with upid -1 of thread utid (type
 * process_memory_thread_fallback, dimension utid instead of upid, no
 * description). */
int kcounter_process_memory_track(trace_context *ctx, uint32_t machine, int64_t upid,
                                  int64_t utid, const char *name, uint32_t *track);
/* Perfetto's description of a process_memory key ("rss.anon"...), or NULL. */
const char *kcounter_memory_description(const char *key);

/* The kinds of device counter. */
typedef enum kcounter_device_kind {
  KCOUNTER_CLOCK_FREQUENCY,
  KCOUNTER_CLOCK_STATE,
  KCOUNTER_THERMAL_TEMPERATURE,
  KCOUNTER_COOLING_DEVICE,
  KCOUNTER_DEVICE_FREQUENCY /* devfreq_frequency: "<device>", linux_device_frequency */
} kcounter_device_kind;

/* A device counter; device: the clock, thermal zone or cooling device type. */
int kcounter_device(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    kcounter_device_kind kind, const char *device, size_t len,
                    double value);

/* The two ACPM counters of zone tz_id (see above) at ts. */
int kcounter_acpm(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t tz_id,
                  double temperature, double cdev_state);

#endif
