/* ki2c: i2c transfers as slices, as Perfetto's I2cTracker makes them.
 *
 * i2c_read / i2c_write of a thread (adapter_nr, msg_nr) open an "i2c-<N>"
 * slice on the thread's track when the thread has no transfer in flight,
 * noting it with msg_nr + 1 messages; while one is in flight they only
 * raise its message count to msg_nr + 1. i2c_result (adapter_nr, nr_msgs)
 * ends the thread's in-flight transfer when both match it; otherwise it
 * does nothing. Adapters 0..KI2C_MAX_ADAPTERS-1 are read; others are
 * ignored (Perfetto's table has that many names and reads past it).
 *
 * Owns the in-flight transfers per (machine, thread): a stack whose top is
 * the one results match, bounded by the threads that write i2c events. */
#ifndef WEFT_MODEL_KI2C_H
#define WEFT_MODEL_KI2C_H

#include "model/sched.h"

#define KI2C_MAX_ADAPTERS 256

typedef struct ki2c_state ki2c_state;

void ki2c_state_free(ki2c_state *k);
/* i2c_read or i2c_write of thread tid. */
int ki2c_enter(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
               uint32_t adapter_nr, uint32_t msg_nr);
/* i2c_result of thread tid. */
int ki2c_exit(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
              uint32_t adapter_nr, uint32_t nr_msgs);

#endif
