/* proto_head: the top-level fields of a TracePacket that tokenize reads
 * (proto_head_read), and their brief form: what the importer's scan
 * (importer_ops.scan, on a worker thread) records of a packet holding
 * nothing else than a timestamp, a sequence id and one TrackEvent or one
 * FtraceEventBundle, so that tokenize need not read such packets' heads.
 * Invariant: proto_head_of_brief(b) equals proto_head_read of the packet
 * whenever proto_brief_of made b, byte for byte. Pure functions. */
#ifndef WEFT_PROTO_HEAD_H
#define WEFT_PROTO_HEAD_H

#include "import/proto/proto_wire.h"

/* The top-level fields of one TracePacket tokenize cares about. */
typedef struct proto_packet_head {
  int64_t ts;
  uint64_t clock_id;
  uint32_t seq_id;
  uint64_t raw_machine;  /* TracePacket.machine_id, 0 when absent */
  int has_ts, has_clock_id, cleared, relevant;
  int needs_state; /* sequence_flags has SEQ_NEEDS_INCREMENTAL_STATE */
  proto_span defaults, interned, snapshot, compressed, remote_sync, track_desc;
  int has_defaults, has_interned, has_snapshot, has_compressed, has_remote_sync;
  proto_span ftrace, service, etw;
  int has_ftrace, has_service, has_etw;
  proto_span translation; /* translation_table, read at tokenize */
  int has_translation;
  proto_span provenance, protovms; /* trace_provenance, protovms (proto_protovm.h) */
  int has_provenance, has_protovms;
  int has_track_desc, first_on_sequence;
  int has_thread_desc; /* a legacy thread_descriptor */
  /* for proto_misc_tokenize_common, unless misc_reads_more */
  uint64_t dropped;
  proto_span stats;
  int misc_reads_more;
  /* for proto_legacy_time: its fields seen, and the last TrackEvent */
  int legacy_fields, track_events;
  proto_span track_event;
} proto_packet_head;

/* Reads the packet's fields into *h (zeroed first); < 0 if malformed. */
int proto_head_read(proto_span pkt, proto_packet_head *h);

enum proto_brief_kind {
  PROTO_BRIEF_NONE = 0,    /* tokenize reads the packet itself */
  PROTO_BRIEF_TRACK_EVENT, /* ts, seq_id, the TrackEvent at span_*, which
                              has no legacy time fields */
  PROTO_BRIEF_FTRACE,      /* seq_id, the FtraceEventBundle at span_* */
  PROTO_BRIEF_COMPRESSED,  /* compressed_packets, already inflated by the
                              scan: span_len is the inflation's index in
                              the scan result (proto_scanned_inflated) */
};

/* Or'ed into a brief's kind: the packet's sequence_flags has
 * SEQ_NEEDS_INCREMENTAL_STATE (its only other field a brief keeps). */
#define PROTO_BRIEF_NEEDS_STATE 0x100
#define PROTO_BRIEF_KIND_MASK 0xff

/* 24 bytes; offsets inside the packet, so independent of where it lies. */
typedef struct proto_brief {
  int64_t ts;
  uint32_t seq_id;
  uint32_t span_len;
  uint16_t span_off;
  uint16_t kind; /* enum proto_brief_kind */
} proto_brief;

/* The brief of the packet at pkt whose head is h (read from it):
 * kind PROTO_BRIEF_NONE when the head holds anything else. */
proto_brief proto_brief_of(const proto_packet_head *h, proto_span pkt);
/* The head a brief (kind not NONE) stands for, for the packet at pkt. */
void proto_head_of_brief(const proto_brief *b, proto_span pkt, proto_packet_head *h);

#endif
