/* proto_misc tokenize and end phases: packet loss per sequence, TraceStats,
 * trace uuid / config metadata, diagnostics hand-off. See proto_misc.h. */
#include <inttypes.h>
#include <stdio.h>

#include "import/proto/proto_fields.h"
#include "import/proto/proto_fields_misc.h"
#include "import/proto/proto_config_text.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_android.h"
#include "import/proto/proto_gpu.h"
#include "import/proto/proto_misc.h"
#include "import/proto/proto_power.h"

#define PROTO_MAX_WRITERS 65536
#define PROTO_MAX_BUFFERS 4096

static int proto_loss_get(proto_misc_state *m, uint32_t seq_id, proto_seq_loss **out) {
  uint64_t *slot;
  int ins = base_map_insert(&m->loss_by_seq, seq_id, m->losses.len, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 1) {
    proto_seq_loss l;
    memset(&l, 0, sizeof l);
    l.seq_id = seq_id;
    if (VEC_PUSH(m->losses, l)) return WEFT_ENOMEM;
  }
  *out = &m->losses.data[*slot];
  return WEFT_OK;
}

/* previous_packet_dropped: any non-zero value on a packet other than the
 * sequence's first counts as one loss; bits 1..8 name its causes. */
static int proto_loss_observe(proto_misc_state *m, uint32_t seq_id, uint64_t dropped) {
  proto_seq_loss *l;
  int rc = proto_loss_get(m, seq_id, &l);
  if (rc) return rc;
  if (l->packets++ == 0 || dropped == 0) return WEFT_OK;
  l->drops++;
  for (int b = 0; b < PROTO_LOSS_CAUSES; b++)
    if (dropped >> (b + 1) & 1) l->causes[b]++;
  return WEFT_OK;
}

int proto_misc_note_skipped(proto_misc_state *m, uint32_t seq_id, uint64_t total,
                            uint64_t skipped) {
  proto_seq_loss *l;
  int rc = proto_loss_get(m, seq_id, &l);
  if (rc) return rc;
  l->all_needing_state_skipped = skipped > 0 && skipped == total;
  return WEFT_OK;
}

static void proto_uuid_read(proto_span msg, uint32_t msb_field, uint32_t lsb_field,
                            uint64_t *msb, uint64_t *lsb, int *found) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == msb_field) { *msb = fl.value; *found = 1; }
    if (fl.number == lsb_field) { *lsb = fl.value; *found = 1; }
  }
}

static void proto_writer_stats(proto_misc_state *m, proto_span msg) {
  proto_reader r;
  proto_field fl;
  proto_writer_buffer w = {0, 0};
  int has_seq = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_WRITER_STATS_SEQUENCE_ID) { w.seq_id = (uint32_t)fl.value; has_seq = 1; }
    if (fl.number == PROTO_WRITER_STATS_BUFFER) w.buffer = (uint32_t)fl.value;
  }
  if (has_seq && m->writers.len < PROTO_MAX_WRITERS && w.buffer < PROTO_MAX_BUFFERS)
    (void)VEC_PUSH(m->writers, w); /* on ENOMEM the loss is just not attributed */
}

/* ---- TraceStats -> stats ---- */

static const struct {
  uint32_t field;
  stats_id stat;
} proto_buffer_stats[] = {
    {PROTO_BUFFER_STATS_BYTES_WRITTEN, stat_traced_buf_bytes_written},
    {PROTO_BUFFER_STATS_CHUNKS_WRITTEN, stat_traced_buf_chunks_written},
    {PROTO_BUFFER_STATS_CHUNKS_OVERWRITTEN, stat_traced_buf_chunks_overwritten},
    {PROTO_BUFFER_STATS_WRITE_WRAP_COUNT, stat_traced_buf_write_wrap_count},
    {PROTO_BUFFER_STATS_PATCHES_SUCCEEDED, stat_traced_buf_patches_succeeded},
    {PROTO_BUFFER_STATS_PATCHES_FAILED, stat_traced_buf_patches_failed},
    {PROTO_BUFFER_STATS_READAHEADS_SUCCEEDED, stat_traced_buf_readaheads_succeeded},
    {PROTO_BUFFER_STATS_READAHEADS_FAILED, stat_traced_buf_readaheads_failed},
    {PROTO_BUFFER_STATS_ABI_VIOLATIONS, stat_traced_buf_abi_violations},
    {PROTO_BUFFER_STATS_CHUNKS_REWRITTEN, stat_traced_buf_chunks_rewritten},
    {PROTO_BUFFER_STATS_CHUNKS_COMMITTED_OUT_OF_ORDER,
     stat_traced_buf_chunks_committed_out_of_order},
    {PROTO_BUFFER_STATS_BUFFER_SIZE, stat_traced_buf_buffer_size},
    {PROTO_BUFFER_STATS_BYTES_OVERWRITTEN, stat_traced_buf_bytes_overwritten},
    {PROTO_BUFFER_STATS_BYTES_READ, stat_traced_buf_bytes_read},
    {PROTO_BUFFER_STATS_PADDING_BYTES_WRITTEN, stat_traced_buf_padding_bytes_written},
    {PROTO_BUFFER_STATS_PADDING_BYTES_CLEARED, stat_traced_buf_padding_bytes_cleared},
    {PROTO_BUFFER_STATS_CHUNKS_READ, stat_traced_buf_chunks_read},
    {PROTO_BUFFER_STATS_CHUNKS_DISCARDED, stat_traced_buf_chunks_discarded},
    {PROTO_BUFFER_STATS_TRACE_WRITER_PACKET_LOSS, stat_traced_buf_trace_writer_packet_loss},
};

static int proto_set_stat(import_file *f, stats_id stat, int64_t idx, uint64_t v) {
  int64_t value = v > INT64_MAX ? INT64_MAX : (int64_t)v;
  return stats_set(&f->ctx->stats, stat, idx, f->machine, f->trace_id, value);
}

/* The TraceConfig says the trace was streamed into a file (long trace). */
static int proto_config_long_trace(const proto_misc_state *m) {
  proto_field fl;
  return m->has_config &&
         proto_find_last(m->config.data, m->config.len, PROTO_TRACE_CONFIG_WRITE_INTO_FILE,
                         &fl) == 1 &&
         fl.wire_type == PROTO_WIRE_VARINT && fl.value;
}

static int proto_buffer_stat(import_file *f, const proto_misc_state *m, int64_t idx,
                             proto_span msg) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    size_t i = 0, n = sizeof proto_buffer_stats / sizeof *proto_buffer_stats;
    while (i < n && proto_buffer_stats[i].field != fl.number) i++;
    if (i == n) continue;
    int rc = proto_set_stat(f, proto_buffer_stats[i].stat, idx, fl.value);
    if (!rc && fl.number == PROTO_BUFFER_STATS_BYTES_OVERWRITTEN && fl.value &&
        proto_config_long_trace(m))
      rc = proto_set_stat(f, stat_long_trace_mode_bytes_overwritten, idx, fl.value);
    if (rc) return rc;
  }
  return WEFT_OK;
}

static int proto_filter_stats(import_file *f, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int64_t buffer = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int rc = WEFT_OK;
    if (fl.number == PROTO_FILTER_STATS_BYTES_DISCARDED_PER_BUFFER) {
      proto_packed_iter it = {0};
      uint64_t v = fl.value;
      int packed = fl.wire_type == PROTO_WIRE_LEN;
      if (packed) proto_packed_init(&it, fl.span);
      while (!rc && buffer < PROTO_MAX_BUFFERS &&
             (packed ? proto_packed_next_varint(&it, &v) == 1 : 1)) {
        rc = proto_set_stat(f, stat_traced_buf_bytes_filtered_out, buffer++, v);
        if (!packed) break;
      }
      if (rc) return rc;
      continue;
    }
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    switch (fl.number) {
      case PROTO_FILTER_STATS_INPUT_PACKETS: rc = proto_set_stat(f, stat_filter_input_packets, -1, fl.value); break;
      case PROTO_FILTER_STATS_INPUT_BYTES: rc = proto_set_stat(f, stat_filter_input_bytes, -1, fl.value); break;
      case PROTO_FILTER_STATS_OUTPUT_BYTES: rc = proto_set_stat(f, stat_filter_output_bytes, -1, fl.value); break;
      case PROTO_FILTER_STATS_ERRORS: rc = proto_set_stat(f, stat_filter_errors, -1, fl.value); break;
      case PROTO_FILTER_STATS_TIME_TAKEN_NS: rc = proto_set_stat(f, stat_filter_time_taken_ns, -1, fl.value); break;
      default: break;
    }
    if (rc) return rc;
  }
  return WEFT_OK;
}

static stats_id proto_trace_stat(uint32_t field) {
  switch (field) {
    case PROTO_TRACE_STATS_PRODUCERS_CONNECTED: return stat_traced_producers_connected;
    case PROTO_TRACE_STATS_PRODUCERS_SEEN: return stat_traced_producers_seen;
    case PROTO_TRACE_STATS_DATA_SOURCES_REGISTERED: return stat_traced_data_sources_registered;
    case PROTO_TRACE_STATS_DATA_SOURCES_SEEN: return stat_traced_data_sources_seen;
    case PROTO_TRACE_STATS_TRACING_SESSIONS: return stat_traced_tracing_sessions;
    case PROTO_TRACE_STATS_TOTAL_BUFFERS: return stat_traced_total_buffers;
    case PROTO_TRACE_STATS_CHUNKS_DISCARDED: return stat_traced_chunks_discarded;
    case PROTO_TRACE_STATS_PATCHES_DISCARDED: return stat_traced_patches_discarded;
    case PROTO_TRACE_STATS_FLUSHES_REQUESTED: return stat_traced_flushes_requested;
    case PROTO_TRACE_STATS_FLUSHES_SUCCEEDED: return stat_traced_flushes_succeeded;
    case PROTO_TRACE_STATS_FLUSHES_FAILED: return stat_traced_flushes_failed;
    default: return STATS_COUNT;
  }
}

static int proto_trace_stats(import_file *f, proto_misc_state *m, proto_span msg) {
  proto_reader r;
  proto_field fl;
  int64_t buffer = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    int rc = WEFT_OK;
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PROTO_TRACE_STATS_BUFFER_STATS && len) {
      if (buffer < PROTO_MAX_BUFFERS) rc = proto_buffer_stat(f, m, buffer++, fl.span);
    } else if (fl.number == PROTO_TRACE_STATS_FILTER_STATS && len) {
      rc = proto_filter_stats(f, fl.span);
    } else if (fl.number == PROTO_TRACE_STATS_WRITER_STATS && len) {
      proto_writer_stats(m, fl.span);
    } else if (fl.number == PROTO_TRACE_STATS_FINAL_FLUSH_OUTCOME && !len) {
      /* counted per TraceStats packet that reports it */
      if (fl.value == 1) rc = import_stat(f, stat_traced_final_flush_succeeded, 1);
      if (fl.value == 2) rc = import_stat(f, stat_traced_final_flush_failed, 1);
    } else if (!len && proto_trace_stat(fl.number) != STATS_COUNT) {
      rc = proto_set_stat(f, proto_trace_stat(fl.number), -1, fl.value);
    }
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* ---- tokenize ---- */

/* A config that writes into a file without flushing it periodically, or
 * into DISCARD buffers (fill_policy 2), as Perfetto warns of them. */
#define PROTO_CONFIG_BUFFERS 1
#define PROTO_CONFIG_WRITE_INTO_FILE 8
#define PROTO_CONFIG_FLUSH_PERIOD_MS 13
#define PROTO_BUFFER_FILL_POLICY 4
#define PROTO_FILL_POLICY_DISCARD 2

static int proto_config_write_into_file_stats(import_file *f, proto_span config) {
  proto_field fl;
  if (proto_find_last(config.data, config.len, PROTO_CONFIG_WRITE_INTO_FILE, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT || !fl.value)
    return WEFT_OK;
  int rc = WEFT_OK;
  if (proto_find_last(config.data, config.len, PROTO_CONFIG_FLUSH_PERIOD_MS, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT || !fl.value)
    rc = import_stat(f, stat_config_write_into_file_no_flush, 1);
  proto_reader r;
  proto_reader_init_span(&r, config);
  for (int64_t i = 0; !rc && proto_reader_next(&r, &fl) == 1;) {
    if (fl.number != PROTO_CONFIG_BUFFERS || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_field policy;
    if (proto_find_last(fl.span.data, fl.span.len, PROTO_BUFFER_FILL_POLICY, &policy) == 1 &&
        policy.wire_type == PROTO_WIRE_VARINT && policy.value == PROTO_FILL_POLICY_DISCARD)
      rc = stats_add(&f->ctx->stats, stat_config_write_into_file_discard, i, f->machine,
                     f->trace_id, 1);
    i++;
  }
  return rc;
}

int proto_misc_tokenize(import_file *f, proto_misc_state *m, proto_span pkt,
                        uint32_t seq_id) {
  proto_reader r;
  proto_field fl;
  uint64_t dropped = 0;
  proto_span stats = {NULL, 0};
  proto_reader_init_span(&r, pkt);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PROTO_TRACE_PACKET_PREVIOUS_PACKET_DROPPED && !len) dropped = fl.value;
    if (fl.number == PROTO_TRACE_PACKET_TRACE_STATS && len) stats = fl.span;
    if (fl.number == PROTO_TRACE_PACKET_FTRACE_STATS && len) {
      int rc = proto_ftrace_stats(f, m, seq_id, fl.span);
      if (rc) return rc;
    }
    if (fl.number == PROTO_TRACE_PACKET_TRACE_CONFIG && len) {
      int rc = proto_config_write_into_file_stats(f, fl.span);
      if (rc) return rc;
      m->config = proto_input_keep(f, fl.span);
      m->has_config = 1;
      if (m->uuid_source < 2) {
        int found = 0;
        proto_uuid_read(fl.span, PROTO_TRACE_CONFIG_TRACE_UUID_MSB,
                        PROTO_TRACE_CONFIG_TRACE_UUID_LSB, &m->uuid_msb, &m->uuid_lsb, &found);
        if (found) m->uuid_source = 1;
      }
    }
    if (fl.number == PROTO_TRACE_PACKET_TRACE_UUID && len) {
      int found = 0;
      m->uuid_msb = m->uuid_lsb = 0;
      proto_uuid_read(fl.span, PROTO_TRACE_UUID_MSB, PROTO_TRACE_UUID_LSB, &m->uuid_msb,
                      &m->uuid_lsb, &found);
      m->uuid_source = 2;
    }
    if (fl.number == PROTO_TRACE_PACKET_CHROME_METADATA && len) {
      uint64_t saved = proto_metadata_at(f, fl.span.data);
      int rc = proto_chrome_metadata_packet(f, m, fl.span);
      ctx_metadata_at(f->ctx, saved);
      if (rc) return rc;
    }
    if (fl.number == PROTO_TRACE_PACKET_TRACK_EVENT_RANGE_OF_INTEREST && len) {
      proto_field s;
      if (proto_find_last(fl.span.data, fl.span.len, PROTO_RANGE_OF_INTEREST_START_US, &s) == 1 &&
          s.wire_type == PROTO_WIRE_VARINT && (int64_t)s.value < INT64_MAX / 1000 &&
          (int64_t)s.value > INT64_MIN / 1000) {
        m->roi_start_ns = (int64_t)s.value * 1000;
        m->has_roi = 1;
      }
    }
  }
  return proto_misc_tokenize_common(f, m, seq_id, dropped, stats);
}

int proto_misc_tokenize_common(import_file *f, proto_misc_state *m, uint32_t seq_id,
                               uint64_t dropped, proto_span stats) {
  int rc = proto_loss_observe(m, seq_id, dropped);
  if (!rc && stats.data) rc = proto_trace_stats(f, m, stats);
  return rc;
}

int proto_misc_tokenize_reads(uint32_t number) {
  return number == PROTO_TRACE_PACKET_TRACE_CONFIG || number == PROTO_TRACE_PACKET_TRACE_UUID ||
         number == PROTO_TRACE_PACKET_TRACK_EVENT_RANGE_OF_INTEREST ||
         number == PROTO_TRACE_PACKET_FTRACE_STATS ||
         number == PROTO_TRACE_PACKET_CHROME_METADATA || number == PROTO_TRACE_PACKET_POWER_RAILS ||
         number == PROTO_TRACE_PACKET_ENERGY_ESTIMATION_BREAKDOWN ||
         number == PROTO_TRACE_PACKET_GPU_COUNTER_EVENT ||
         number == PROTO_TRACE_PACKET_ANDROID_LOG || number == PROTO_TRACE_PACKET_SYSTEM_INFO;
}

/* ---- end ---- */

static const stats_id proto_loss_cause_stats[PROTO_LOSS_CAUSES] = {
    stat_traced_buf_data_loss_read_gap,
    stat_traced_buf_data_loss_chunk_corrupted,
    stat_traced_buf_data_loss_orphan_continuation,
    stat_traced_buf_data_loss_reassembly_gap,
    stat_traced_buf_data_loss_reassembly_broken_chain,
    stat_traced_buf_data_loss_overwrite,
    stat_traced_buf_data_loss_writer_abort,
    stat_traced_buf_data_loss_smb_full,
};

static int proto_loss_stats(import_file *f, proto_misc_state *m) {
  stats_store *s = &f->ctx->stats;
  for (size_t i = 0; i < m->writers.len; i++) {
    const proto_writer_buffer *w = &m->writers.data[i];
    uint64_t *idx = base_map_find(&m->loss_by_seq, w->seq_id);
    const proto_seq_loss *l = idx ? &m->losses.data[*idx] : NULL;
    int64_t drops = l ? (int64_t)l->drops : 0;
    int rc = stats_add(s, stat_traced_buf_sequence_packet_loss, w->buffer, f->machine,
                       f->trace_id, drops);
    if (!rc)
      rc = stats_add(s, stat_traced_buf_incremental_sequences_dropped, w->buffer, f->machine,
                     f->trace_id, l ? l->all_needing_state_skipped : 0);
    for (int b = 0; !rc && l && b < PROTO_LOSS_CAUSES; b++)
      if (l->causes[b])
        rc = stats_add(s, proto_loss_cause_stats[b], w->buffer, f->machine, f->trace_id,
                       (int64_t)l->causes[b]);
    if (rc) return rc;
  }
  return WEFT_OK;
}

static int proto_uuid_metadata(import_file *f, const proto_misc_state *m) {
  if (!m->uuid_source) return WEFT_OK;
  char s[40];
  snprintf(s, sizeof s, "%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
           m->uuid_msb >> 32, (m->uuid_msb >> 16) & 0xffff, m->uuid_msb & 0xffff,
           m->uuid_lsb >> 48, m->uuid_lsb & UINT64_C(0xffffffffffff));
  return ctx_metadata_set_str(f->ctx, "trace_uuid", s, -1, f->trace_id);
}

int proto_misc_end(import_file *f, proto_misc_state *m, base_error *err) {
  if (proto_ftrace_stats_end(m, err)) return WEFT_EPARSE;
  int rc = proto_loss_stats(f, m);
  if (!rc) rc = model_process_args_flush(f->ctx);
  if (!rc) rc = proto_uuid_metadata(f, m);
  if (!rc && m->has_roi)
    rc = ctx_metadata_set_int(f->ctx, "range_of_interest_start_us", m->roi_start_ns / 1000,
                              -1, f->trace_id);
  if (!rc && m->has_config) rc = proto_diagnostics_run(f, m->config);
  if (rc) return base_error_alloc(err, rc);
  return WEFT_OK;
}

void proto_misc_free(proto_misc_state *m) {
  base_map_free(&m->loss_by_seq);
  base_map_free(&m->last_state);
  base_map_free(&m->session_tracks);
  base_map_free(&m->ftrace_error_seqs);
  base_map_free(&m->process_name_ranks);
  base_map_free(&m->comm_processes);
  base_map_free(&m->thread_name_ranks);
  VEC_FREE(m->losses);
  VEC_FREE(m->writers);
}
