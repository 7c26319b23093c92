/* proto_heap_graph: ART Java heap dumps (TracePacket.heap_graph, the
 * com.android.art.tracing.HeapGraph extension) and deobfuscation mappings
 * (TracePacket.deobfuscation_mapping), written through model/heap_graph.h.
 *
 * A HeapGraph packet is read as Perfetto reads it: objects, then types,
 * field names, location names and roots; a dump ends with a packet whose
 * `continued` is false (or at the end of the file). A repeated id field may
 * be packed or not; a malformed one counts heap_graph_malformed_packet and
 * ends the packet's objects (or roots), an object whose field ids and
 * referents differ in number is skipped and counted the same way.
 * Deobfuscation mappings are kept (copied) and applied at the end of the
 * file, when every dump is complete. */
#ifndef WEFT_PROTO_HEAP_GRAPH_H
#define WEFT_PROTO_HEAP_GRAPH_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_HEAP_GRAPH 56
#define PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING 64
#define PROTO_TRACE_PACKET_ART_PROCESS_METADATA 131

typedef struct proto_heap_graph_state proto_heap_graph_state;

int proto_heap_graph_wants_field(uint32_t number);
/* One HeapGraph or DeobfuscationMapping field of a packet of sequence
 * `seq_id`, at trace time ts. *state is created on first use. */
int proto_heap_graph_parse(import_file *f, proto_heap_graph_state **state, uint32_t machine,
                           uint32_t seq_id, int64_t ts, const proto_field *field);
/* Ends open dumps and applies the deobfuscation mappings. */
int proto_heap_graph_end(import_file *f, proto_heap_graph_state *state);
void proto_heap_graph_free(proto_heap_graph_state *s);

/* An ArtProcessMetadata packet at trace time ts (proto_art_metadata.c):
 * its process (and main thread, named, with its uid; with package_name and
 * uid, a packages_list row each time, as Perfetto adds them) gets a
 * heap_graph row; an OOME (oom_allocation_size given) its details and the
 * failing thread's Java stack (method names without a return type and
 * parameters: what follows the last space before the first '('). See
 * model/heap_graph.h. */
int proto_art_metadata_parse(import_file *f, uint32_t machine, int64_t ts, proto_span msg);

#endif
