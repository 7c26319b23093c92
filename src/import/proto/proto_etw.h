/* proto_etw: TracePacket.etw_events (EtwTraceEventBundle) in the proto
 * importer: Windows ETW file I/O events (model/etw.h).
 *
 * tokenize: each event of a bundle is queued on its cpu's sort lane (the
 * event's cpu, else the bundle's) at its timestamp read as this machine's
 * BOOTTIME (parse takes the timestamp itself as trace time, as Perfetto
 * does: the same unless a snapshot makes another clock the trace's); the
 * payload is PROTO_ETW_PAYLOAD
 * | the index of its record (the event's bytes). An event without a
 * timestamp or a cpu, or with a cpu of 1024 or more, is dropped and counted
 * (etw_event_invalid).
 * parse: a FileIo event (Create, DirEnum, Info, ReadWrite, SimpleOp,
 * PathOperation) starts an operation named by its opcode (CreateFile for
 * Create; an unknown opcode: the event kind's generic name), an OpEnd ends
 * one, each with Perfetto's arg names and types; other ETW events (context
 * switches, ready thread, memory info) are not read. The thread is the
 * event's thread_id (0 when absent).
 * end: operations still open end (model_etw_fileio_finish).
 * Input release: each queued event holds its bytes until parsed. */
#ifndef WEFT_PROTO_ETW_H
#define WEFT_PROTO_ETW_H

#include "import/proto/proto_import.h"

/* Payload bits of a queued ETW event: an ftrace-side pattern that
 * proto_ftrace never makes (its side indices stay far below bit 61). */
#define PROTO_ETW_PAYLOAD (PROTO_REF_FTRACE | PROTO_REF_SIDE | (UINT64_C(1) << 61))

typedef struct proto_etw_state proto_etw_state;

static inline int proto_etw_is_payload(uint64_t payload) {
  return (payload & PROTO_ETW_PAYLOAD) == PROTO_ETW_PAYLOAD;
}

/* A bundle of machine row `machine`. */
int proto_etw_tokenize(import_file *f, proto_span bundle, uint32_t machine, base_error *err);
int proto_etw_parse(import_file *f, const sort_event *event, base_error *err);
/* Once every event is parsed. */
int proto_etw_end(import_file *f);
void proto_etw_free(proto_etw_state *s);

#endif
