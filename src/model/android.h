/* android: Android device-wide state tracks shared by the importers that
 * report them (system properties, atrace, initial display state).
 *  - the screen state: the counter track "ScreenState" (type screen_state)
 *    of the machine;
 *  - the device state: instants named after the state on the track
 *    "DeviceStateChanged" (type android_device_state) of the machine. */
#ifndef WEFT_MODEL_ANDROID_H
#define WEFT_MODEL_ANDROID_H

#include "model/context.h"

int model_android_screen_state(trace_context *ctx, uint32_t machine, int64_t ts,
                               double value);
int model_android_device_state(trace_context *ctx, uint32_t machine, int64_t ts,
                               const char *state, size_t len);

/* A row of __intrinsic_android_cpu_per_uid_track (total 0) in *row. */
int model_cpu_per_uid_track(trace_context *ctx, uint32_t track, int64_t uid, int64_t cluster,
                            uint32_t *row);
void model_cpu_per_uid_total(trace_context *ctx, uint32_t row, int64_t total);

#endif
