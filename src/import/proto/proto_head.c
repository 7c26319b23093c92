/* TracePacket heads and their briefs (see proto_head.h). */
#include "import/proto/proto_head.h"

#include "import/proto/proto_profile.h"

#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"

int proto_head_read(proto_span pkt, proto_packet_head *h) {
  memset(h, 0, sizeof *h);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, pkt);
  int rc;
  while ((rc = proto_reader_next(&r, &fl)) == 1) {
    int is_len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_TRACE_PACKET_TIMESTAMP: h->ts = (int64_t)fl.value; h->has_ts = 1; break;
      case PROTO_TRACE_PACKET_TIMESTAMP_CLOCK_ID: h->clock_id = fl.value; h->has_clock_id = 1; break;
      case PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID: h->seq_id = (uint32_t)fl.value; break;
      case PROTO_TRACE_PACKET_MACHINE_ID: if (!is_len) h->raw_machine = fl.value; break;
      case PROTO_TRACE_PACKET_REMOTE_CLOCK_SYNC:
        if (is_len) { h->remote_sync = fl.span; h->has_remote_sync = 1; }
        break;
      case PROTO_TRACE_PACKET_INCREMENTAL_STATE_CLEARED: if (fl.value) h->cleared = 1; break;
      case PROTO_TRACE_PACKET_SEQUENCE_FLAGS:
        if (fl.value & PROTO_SEQ_INCREMENTAL_STATE_CLEARED) h->cleared = 1;
        if (fl.value & PROTO_SEQ_NEEDS_INCREMENTAL_STATE) h->needs_state = 1;
        break;
      case PROTO_TRACE_PACKET_TRACE_PACKET_DEFAULTS:
        if (is_len) { h->defaults = fl.span; h->has_defaults = 1; }
        break;
      case PROTO_TRACE_PACKET_INTERNED_DATA:
        if (is_len) { h->interned = fl.span; h->has_interned = 1; }
        break;
      case PROTO_TRACE_PACKET_CLOCK_SNAPSHOT:
        if (is_len) { h->snapshot = fl.span; h->has_snapshot = 1; }
        break;
      case PROTO_TRACE_PACKET_COMPRESSED_PACKETS:
        if (is_len) { h->compressed = fl.span; h->has_compressed = 1; }
        break;
      case PROTO_TRACE_PACKET_FTRACE_EVENTS:
        if (is_len) { h->ftrace = fl.span; h->has_ftrace = 1; }
        break;
      case PROTO_TRACE_PACKET_ETW_EVENTS:
        if (is_len) { h->etw = fl.span; h->has_etw = 1; }
        break;
      case PROTO_TRACE_PACKET_SERVICE_EVENT:
        if (is_len) { h->service = fl.span; h->has_service = 1; }
        break;
      case PROTO_TRACE_PACKET_FIRST_PACKET_ON_SEQUENCE: h->first_on_sequence = fl.value != 0; break;
      case PROTO_TRACE_PACKET_TRACK_DESCRIPTOR:
        if (is_len) { h->track_desc = fl.span; h->has_track_desc = 1; }
        h->relevant = 1;
        break;
      case PROTO_TRACE_PACKET_TRACK_EVENT:
        if (is_len) { h->track_event = fl.span; h->track_events++; h->legacy_fields++; }
        h->relevant = 1;
        break;
      case PROTO_TRACE_PACKET_THREAD_DESCRIPTOR:
        if (is_len) h->legacy_fields++;
        h->has_thread_desc |= is_len;
        h->relevant = 1;
        break;
      case PROTO_TRACE_PACKET_SYSTEM_INFO:
        h->misc_reads_more |= is_len; /* its page size, read before sorting */
        h->relevant = 1;
        break;
      case PROTO_TRACE_PACKET_PROCESS_TREE:
      case PROTO_TRACE_PACKET_PROCESS_DESCRIPTOR:
        h->relevant = 1;
        break;
      case PROTO_TRACE_PACKET_STREAMING_PROFILE_PACKET:
        if (is_len) h->legacy_fields++;
        if (is_len) h->relevant = 1;
        break;
      case PROTO_TRACE_PACKET_PROFILE_PACKET:
      case PROTO_TRACE_PACKET_PERF_SAMPLE:
      case PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING:
        if (is_len) h->relevant = 1;
        break;
      case PROTO_TRACE_PACKET_PREVIOUS_PACKET_DROPPED: if (!is_len) h->dropped = fl.value; break;
      case PROTO_TRACE_PACKET_TRACE_STATS: if (is_len) h->stats = fl.span; break;
      case PROTO_TRACE_PACKET_TRANSLATION_TABLE:
        if (is_len) { h->translation = fl.span; h->has_translation = 1; }
        break;
      case PROTO_TRACE_PACKET_TRACE_PROVENANCE:
        if (is_len) { h->provenance = fl.span; h->has_provenance = 1; }
        break;
      case PROTO_TRACE_PACKET_PROTOVMS:
        if (is_len) { h->protovms = fl.span; h->has_protovms = 1; }
        break;
      default:
        if (is_len && proto_misc_wants_field(fl.number)) h->relevant = 1;
        if (is_len && proto_misc_tokenize_reads(fl.number)) h->misc_reads_more = 1;
        break;
    }
  }
  return rc;
}

/* The head of a packet with only the fields a brief keeps. */
static void proto_head_plain(proto_packet_head *h, int64_t ts, int has_ts, uint32_t seq_id) {
  memset(h, 0, sizeof *h);
  h->ts = ts;
  h->has_ts = has_ts;
  h->seq_id = seq_id;
}

void proto_head_of_brief(const proto_brief *b, proto_span pkt, proto_packet_head *h) {
  proto_span span = {pkt.data + b->span_off, b->span_len};
  if ((b->kind & PROTO_BRIEF_KIND_MASK) == PROTO_BRIEF_TRACK_EVENT) {
    proto_head_plain(h, b->ts, 1, b->seq_id);
    h->track_event = span;
    h->track_events = 1;
    h->legacy_fields = 1;
    h->relevant = 1;
  } else {
    proto_head_plain(h, 0, 0, b->seq_id);
    h->ftrace = span;
    h->has_ftrace = 1;
  }
  h->needs_state = (b->kind & PROTO_BRIEF_NEEDS_STATE) != 0;
}

/* The span's place in the packet, if a brief can hold it. */
static int proto_brief_span(proto_span pkt, proto_span span, proto_brief *b) {
  if (span.data < pkt.data || (size_t)(span.data - pkt.data) > UINT16_MAX - 1 ||
      span.len > UINT32_MAX)
    return 0;
  b->span_off = (uint16_t)(span.data - pkt.data);
  b->span_len = (uint32_t)span.len;
  return 1;
}

proto_brief proto_brief_of(const proto_packet_head *h, proto_span pkt) {
  proto_brief b = {0};
  b.seq_id = h->seq_id;
  if (h->track_events == 1 && h->has_ts && proto_event_time_is_none(h->track_event) &&
      proto_brief_span(pkt, h->track_event, &b)) {
    b.kind = PROTO_BRIEF_TRACK_EVENT;
    b.ts = h->ts;
  } else if (h->has_ftrace && !h->has_ts && proto_brief_span(pkt, h->ftrace, &b)) {
    b.kind = PROTO_BRIEF_FTRACE;
  } else {
    return (proto_brief){0};
  }
  if (h->needs_state) b.kind |= PROTO_BRIEF_NEEDS_STATE;
  /* Only if the head is exactly the one the brief stands for. */
  proto_packet_head back;
  proto_head_of_brief(&b, pkt, &back);
  return memcmp(&back, h, sizeof back) == 0 ? b : (proto_brief){0};
}
