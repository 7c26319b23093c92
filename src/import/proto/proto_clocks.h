/* proto_clocks: how a proto file's timestamps reach trace time, as
 * Perfetto reads them.
 *
 *  - Units: a clock's readings are in units of its unit_multiplier_ns, and
 *    an is_incremental clock's readings are deltas from its last value
 *    (a snapshot gives the absolute value), in file order.
 *  - Snapshots relate the clocks of a sequence or of the machine.
 *  - The default clock: a packet with neither timestamp_clock_id nor a
 *    sequence default is on the clock of the latest snapshot that named a
 *    primary_trace_clock, or held BOOTTIME and named none; BOOTTIME before
 *    any such snapshot.
 *  - The trace-time clock: a snapshot's primary clock claims trace time,
 *    but only while no timestamp was converted yet. The first conversion
 *    (a packet on an explicit clock, an ftrace or ETW bundle, a service
 *    event, a legacy MONOTONIC time) fixes trace time as it then is:
 *    BOOTTIME unless a primary clock was claimed before. A later primary
 *    clock is then only the default clock, converted to trace time like
 *    any other.
 *
 * Invariants: the state lives in proto_import_state (default_clock_id,
 * trace_clock_locked, claimed_clock); once trace_clock_locked is set this
 * file claims nothing more. */
#ifndef WEFT_PROTO_CLOCKS_H
#define WEFT_PROTO_CLOCKS_H

#include <stdint.h>

#include "import/proto/proto_import.h"

/* A packet timestamp of `clock_id` in ns: the clock's unit_multiplier_ns
 * applied and, for a clock a snapshot marked is_incremental, the delta
 * added to the clock's last value (which it then becomes). */
int64_t proto_clock_reading(proto_import_state *st, uint32_t seq, uint64_t clock_id,
                            int64_t value);

/* A reading of `clock_id` in ns (applies the clock's unit_multiplier_ns). */
int64_t proto_clock_scale(const proto_import_state *st, uint32_t seq, uint64_t clock_id,
                          int64_t value);

/* A ClockSnapshot of sequence seq_id on machine row `machine`: its edges,
 * the default clock, the trace-time claim and metadata row. */
int proto_clock_snapshot(import_file *f, uint32_t machine, uint32_t seq_id, proto_span snap);

/* A timestamp is converted: trace time is fixed from now on. When this
 * file fixes it, has no snapshot yet and relates_boottime (ftrace, a
 * packet's own clock, a service event; not ETW), its BOOTTIME is related
 * to its own timeline (TRACE_FILE, clock 11) at zero, a snapshot the
 * clock_snapshot table shows, as Perfetto's does. */
int proto_clock_used(import_file *f, int relates_boottime);

/* The clock of a packet with no clock id of its own or its sequence's. */
uint64_t proto_clock_default(const proto_import_state *st);

#endif
