/* kpower: kernel power-management events that become slices — wakeup
 * sources (wakelocks) and suspend/resume phases. Shared by the kernel
 * importers.
 *
 * Owns the active count per (machine, wakeup source name) and, per machine,
 * the suspend/resume track set (a track compressor keyed by the slice name)
 * and the suspend_enter error-path state. Rules:
 *  - wakeup_source_activate opens "Wakelock(<name>)" (at most 31 bytes) on
 *    the source's track (type wakesource_wakelock, dimension
 *    wakelock_event) when the source was inactive; deactivate ends it when
 *    the count falls from 1 (activations nest by count).
 *  - suspend_resume: the slice "<action>(<val>)" (val 0 for
 *    timekeeping_freeze, whose val is a cpu; at most 63 bytes) begins on a
 *    "Suspend/Resume Latency" track (type suspend_resume) of the set, args
 *    utid, event_type "Main Kernel Suspend Event", cpu and NULL
 *    device_name, driver_name, callback_phase; the end of the same name
 *    ends it. An end of thaw_processes while a freeze_processes began inside
 *    a suspend_enter also ends that suspend_enter (the kernel's error path
 *    never ends it). */
#ifndef WEFT_MODEL_KPOWER_H
#define WEFT_MODEL_KPOWER_H

#include "model/sched.h"

typedef struct kpower_state kpower_state;

void kpower_state_free(kpower_state *k);

int kpower_wakelock(trace_context *ctx, const kernel_scope *s, int64_t ts,
                    const char *name, size_t len, int activate);
int kpower_suspend_resume(trace_context *ctx, const kernel_scope *s, int64_t ts,
                          uint32_t cpu, int64_t tid, const char *action,
                          size_t len, int64_t val, int start);
/* suspend_resume_minimal: a nonzero start opens a "Suspended" slice on the
 * machine's "Suspend/Resume Minimal" track (type suspend_resume_minimal),
 * zero ends its top slice. */
int kpower_suspend_resume_minimal(trace_context *ctx, const kernel_scope *s, int64_t ts,
                                  int start);
/* rpm_status of a device: its "linux_rpm" track (dimension linux_device)
 * ends the previous status and, unless the device is now suspended, opens
 * a slice of the new one: Active (0), Resuming (1), Suspending (3), or
 * Invalid State (any other). */
#define KPOWER_RPM_SUSPENDED 2
int kpower_rpm_status(trace_context *ctx, const kernel_scope *s, int64_t ts, const char *device,
                      size_t len, int64_t status);

#endif
