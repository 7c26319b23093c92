/* android: Android device-wide state tracks shared by the importers that
 * report them (system properties, atrace, initial display state).
 *  - the screen state: the counter track "ScreenState" (type screen_state)
 *    of the machine;
 *  - the device state: instants named after the state on the track
 *    "DeviceStateChanged" (type android_device_state) of the machine;
 *  - battery stats: the counter track named `name` (type battery_stats,
 *    dimension counter_key = name) of the machine, one per name, fed by the
 *    debug.tracing.battery_stats.* properties and atrace counters named
 *    battery_stats.*. */
#ifndef WEFT_MODEL_ANDROID_H
#define WEFT_MODEL_ANDROID_H

#include "model/context.h"

int model_android_screen_state(trace_context *ctx, uint32_t machine, int64_t ts,
                               double value);
int model_android_device_state(trace_context *ctx, uint32_t machine, int64_t ts,
                               const char *state, size_t len);
int model_android_battery_stats(trace_context *ctx, uint32_t machine, int64_t ts,
                                const char *name, size_t len, double value);

/* android_fs data reads (ftrace android_fs_dataread_start/end): a start
 * begins "android_fs_data_read" (args file_path, offset_start,
 * bytes_read_start) on the machine's "android_fs" track set (type
 * android_fs, a track compressor keyed by the reading pid) and remembers
 * (ino, offset) -> pid (a read still open keeps its pid); the end of a
 * remembered (ino, offset) ends that
 * pid's slice, adding offset_end and bytes_read_end; other ends are
 * ignored. */
typedef struct android_fs_state android_fs_state;
void android_fs_state_free(android_fs_state *s);
int model_android_fs_read_start(trace_context *ctx, uint32_t machine, int64_t ts, int64_t pid,
                                uint64_t ino, int64_t offset, int64_t bytes, const char *path,
                                size_t path_len);
int model_android_fs_read_end(trace_context *ctx, uint32_t machine, int64_t ts, uint64_t ino,
                              int64_t offset, int64_t bytes);

/* A row of __intrinsic_android_cpu_per_uid_track (total 0) in *row. */
int model_cpu_per_uid_track(trace_context *ctx, uint32_t track, int64_t uid, int64_t cluster,
                            uint32_t *row);
void model_cpu_per_uid_total(trace_context *ctx, uint32_t row, int64_t total);

#endif
