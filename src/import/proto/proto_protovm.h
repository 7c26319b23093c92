/* proto_protovm: ProtoVM incremental tracing in the proto importer
 * (tokenize side), on weft's interpreter (protovm.h).
 *
 * Rules, in file order, before anything else reads a packet:
 *  - a trace_provenance packet maps each producer_id to the sequence ids of
 *    its Sequences (every buffer's);
 *  - a protovms packet creates a machine per Instance (its program, its
 *    state as initial state, memory_limit_kb x 1024 bytes) and attaches it
 *    to the sequences mapped so far to each of its producer_ids (a producer
 *    with none counts protovm_registration_error);
 *  - any other packet of a sequence with machines is a patch: each machine
 *    in creation order runs it until one succeeds (an abort counts
 *    protovm_abort; what it changed stays); the packet is then replaced by that
 *    machine's state followed by the patch's trusted_uid, trusted_pid,
 *    trusted_packet_sequence_id and (when set) machine_id, which is
 *    tokenized and parsed as any packet (its timestamp is the state's). A
 *    patch no machine took is an ordinary packet.
 * Bounds: at most PROTO_PROTOVM_MAX_MACHINES machines (more count
 * protovm_registration_error), PROTO_PROTOVM_MAX_LINKS producer-sequence
 * and sequence-machine pairs each, and all machines' memory limits summed
 * within PROTO_PROTOVM_BUDGET; rebuilt packets share the decompression
 * budget of compressed_packets (past it they are dropped and counted in
 * protovm_snapshots_over_limit). */
#ifndef WEFT_PROTO_PROTOVM_H
#define WEFT_PROTO_PROTOVM_H

#include "import/importer.h"
#include "import/proto/proto_head.h"

#define PROTO_PROTOVM_MAX_MACHINES 64
#define PROTO_PROTOVM_MAX_LINKS 4096
#define PROTO_PROTOVM_BUDGET (UINT64_C(256) << 20)

typedef struct proto_protovm_state proto_protovm_state;

/* Whether the packet of head h is one proto_protovm_packet must see. */
int proto_protovm_wants(const proto_protovm_state *s, const proto_packet_head *h);
/* Handles the packet at pkt (head h). *taken: 1 when a machine took it as
 * a patch; *rebuilt then holds the framed replacement (a Trace of one
 * packet; its data NULL when dropped). *state is created on first use.
 * Returns WEFT_OK or WEFT_ENOMEM. */
int proto_protovm_packet(import_file *f, proto_protovm_state **state, proto_span pkt,
                         const proto_packet_head *h, int *taken, base_buf *rebuilt);
void proto_protovm_free(proto_protovm_state *s);

#endif
