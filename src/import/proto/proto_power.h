/* proto_power: Android power data — BatteryCounters (battery_counter
 * tracks "batt[.<name>].<counter>", charge derived from energy / voltage,
 * power from current * voltage), PowerRails (a "power_rails" counter track
 * per rail descriptor, keyed by machine, session uuid and index; energy
 * samples at their own timestamp_ms, with the packet's time as arg
 * packet_ts) and AndroidEnergyEstimationBreakdown (consumer descriptors,
 * "android_energy_estimation_breakdown" and per-uid tracks).
 * Owns the rail and consumer descriptors seen (bounded: rail indices up to
 * PROTO_POWER_MAX_RAIL_INDEX, consumers by distinct id). */
#ifndef WEFT_PROTO_POWER_H
#define WEFT_PROTO_POWER_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_BATTERY 38
#define PROTO_TRACE_PACKET_POWER_RAILS 40
#define PROTO_TRACE_PACKET_ENERGY_ESTIMATION_BREAKDOWN 77
#define PROTO_POWER_MAX_RAIL_INDEX 256

typedef struct proto_power_state proto_power_state;

int proto_power_wants_field(uint32_t number);
/* Reads the descriptors (rails, energy consumers) of a packet in file
 * order, as they precede the data they describe whatever its time. */
int proto_power_tokenize(import_file *f, proto_power_state **state, uint32_t machine,
                         proto_span packet);
/* One such field of `packet` (the whole TracePacket) at trace time ts on
 * machine row `machine`. *state is created on first use. */
int proto_power_parse(import_file *f, proto_power_state **state, uint32_t machine,
                      int64_t ts, proto_span packet, const proto_field *field);
void proto_power_free(proto_power_state *s);

#endif
