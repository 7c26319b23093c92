/* kslice_internal: the helpers kslice.c shares with the other files of
 * the kslice module (kslice_events.c). Not for other modules. */
#ifndef WEFT_MODEL_KSLICE_INTERNAL_H
#define WEFT_MODEL_KSLICE_INTERNAL_H

#include "model/kslice.h"
#include "model/model.h"

/* The track "<fmt % cpu>" of type `type` of a cpu (dimension cpu). */
int kslice_cpu_track(trace_context *ctx, const kernel_scope *s, uint32_t cpu,
                     const char *fmt, const char *type, uint32_t *track);
/* Opens an irq-like slice `name` (category irq) on the track. */
int kslice_begin_irq(trace_context *ctx, uint32_t track, int64_t ts, const char *name,
                     size_t len);
/* Adds an end event's arg to the slice it ended: a string (`str`) or else
 * an int of arg type `type`. */
int kslice_add_end_arg_typed(trace_context *ctx, int64_t ended, const char *key,
                             const char *str, model_arg_type type, int64_t value);
/* The track of thread tid, made with the thread if new. */
int kslice_thread_track(trace_context *ctx, const kernel_scope *s, int64_t tid,
                        uint32_t *track);

#endif
