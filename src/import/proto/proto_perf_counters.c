/* PerfSample sampling streams: the perf session of a sequence and the
 * counter tracks of each of its cpus (timebase and followers, named from
 * the sequence's PerfSampleDefaults). See proto_profile.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "import/proto/proto_import.h"
#include "import/proto/proto_profile_internal.h"
#include "model/context.h"
#include "model/stack_profile.h"

/* TracePacketDefaults.perf_sample_defaults, PerfSampleDefaults */
enum { TPD_PERF_SAMPLE_DEFAULTS = 12 };
enum { PSD_TIMEBASE = 1, PSD_PROCESS_SHARD_COUNT = 2, PSD_CHOSEN_PROCESS_SHARD = 3,
       PSD_FOLLOWERS = 4 };
/* PerfEvents.Timebase / FollowerEvent: where each way of naming it lives */
typedef struct pp_event_fields {
  uint32_t counter, tracepoint, raw_event, name;
} pp_event_fields;
static const pp_event_fields pp_timebase_fields = {4, 3, 5, 10};
static const pp_event_fields pp_follower_fields = {1, 2, 3, 4};

/* perf tool names of PerfEvents.Counter values */
static const char *pp_counter_name(uint64_t counter) {
  static const char *const names[] = {
      NULL, "cpu-clock", "page-faults", "task-clock", "context-switches", "cpu-migrations",
      "minor-faults", "major-faults", "alignment-faults", "emulation-faults", "cpu-cycles",
      "instructions", "cache-references", "cache-misses", "branch-instructions",
      "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
      "ref-cycles", "dummy"};
  const char *n = counter < sizeof names / sizeof names[0] ? names[counter] : NULL;
  return n ? n : "unknown";
}

static uint64_t pp_varint_of(proto_span msg, uint32_t number) {
  proto_field fl;
  int found = proto_find_last(msg.data, msg.len, number, &fl) == 1;
  return found && fl.wire_type == PROTO_WIRE_VARINT ? fl.value : 0;
}

/* "raw.0x<type>.0x<config>.0x<config1>.0x<config2>" */
static int pp_raw_event_name(trace_context *ctx, proto_span raw, string_id *out) {
  char buf[128];
  int n = snprintf(buf, sizeof buf, "raw.0x%" PRIx32 ".0x%" PRIx64 ".0x%" PRIx64 ".0x%" PRIx64,
                   (uint32_t)pp_varint_of(raw, 1), pp_varint_of(raw, 2), pp_varint_of(raw, 3),
                   pp_varint_of(raw, 4));
  return ctx_intern(ctx, buf, (size_t)n, out);
}

/* An event's name: its own, else its counter's, tracepoint's or raw
 * event's, else "unknown". */
static int pp_event_name(trace_context *ctx, proto_span ev, const pp_event_fields *k,
                         string_id *out) {
  proto_field fl;
  if (proto_find_last(ev.data, ev.len, k->name, &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN &&
      fl.span.len)
    return ctx_intern(ctx, (const char *)fl.span.data, fl.span.len, out);
  const char *name = "unknown";
  if (proto_find_last(ev.data, ev.len, k->counter, &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT)
    name = pp_counter_name(fl.value);
  else if (proto_find_last(ev.data, ev.len, k->tracepoint, &fl) == 1 &&
           fl.wire_type == PROTO_WIRE_LEN) {
    proto_field tp = {0};
    if (proto_find_last(fl.span.data, fl.span.len, 1, &tp) == 1 && tp.wire_type == PROTO_WIRE_LEN)
      return ctx_intern(ctx, (const char *)tp.span.data, tp.span.len, out);
    return ctx_intern(ctx, "", 0, out);
  } else if (proto_find_last(ev.data, ev.len, k->raw_event, &fl) == 1 &&
             fl.wire_type == PROTO_WIRE_LEN)
    return pp_raw_event_name(ctx, fl.span, out);
  return ctx_intern(ctx, name, strlen(name), out);
}

/* The unit of a PerfEvents.Counter: time for the clocks, cycles and
 * instructions for those, a count for any other (or unknown) counter. */
static const char *pp_counter_unit(uint64_t counter) {
  enum { SW_CPU_CLOCK = 1, SW_TASK_CLOCK = 3, HW_CPU_CYCLES = 10, HW_INSTRUCTIONS = 11,
         HW_BUS_CYCLES = 16, HW_REF_CPU_CYCLES = 19 };
  switch (counter) {
    case SW_CPU_CLOCK: case SW_TASK_CLOCK: return "ns";
    case HW_CPU_CYCLES: case HW_BUS_CYCLES: case HW_REF_CPU_CYCLES: return "cycles";
    case HW_INSTRUCTIONS: return "instructions";
    default: return "count";
  }
}

/* The unit of a session's timebase: without PerfSampleDefaults the
 * timebase is cpu-clock (ns); a counter's unit, a tracepoint counts;
 * a raw event, a name alone or no event at all: unknown (NULL). */
static int pp_timebase_unit(import_file *f, const proto_packet_info *info, string_id *unit) {
  proto_field fl;
  const char *u = NULL;
  *unit = STRING_NULL;
  if (!(proto_find_last(info->defaults.data, info->defaults.len, TPD_PERF_SAMPLE_DEFAULTS,
                        &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN))
    u = "ns";
  else if (proto_find_last(fl.span.data, fl.span.len, PSD_TIMEBASE, &fl) == 1 &&
           fl.wire_type == PROTO_WIRE_LEN) {
    proto_span tb = fl.span;
    const pp_event_fields *k = &pp_timebase_fields;
    if (proto_find_last(tb.data, tb.len, k->counter, &fl) == 1 && fl.wire_type == PROTO_WIRE_VARINT)
      u = pp_counter_unit(fl.value);
    else if (proto_find_last(tb.data, tb.len, k->tracepoint, &fl) == 1 &&
             fl.wire_type == PROTO_WIRE_LEN)
      u = "count";
  }
  return u ? ctx_intern(f->ctx, u, strlen(u), unit) : WEFT_OK;
}

/* The session of a sequence: a perf session made on its first sample. */
static int pp_perf_session_of(import_file *f, proto_profile_state *s,
                              const proto_packet_info *info, int64_t *id) {
  uint64_t *slot;
  int ins = base_map_insert(&s->sessions, (uint64_t)info->seq + 1, 0, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (ins == 1) {
    string_id unit;
    int rc = pp_timebase_unit(f, info, &unit);
    if (!rc) rc = stack_profile_perf_session(f->ctx, unit, id);
    if (rc) return rc;
    *slot = (uint64_t)*id + 1;
  }
  *id = (int64_t)*slot - 1;
  return WEFT_OK;
}

static int pp_push_track(import_file *f, proto_profile_state *s, const proto_packet_info *info,
                         const pp_perf_stream *st, uint32_t cpu, string_id name, int timebase) {
  uint32_t track;
  int rc = stack_profile_perf_counter_track(f->ctx, info->machine, st->session, cpu, name,
                                            timebase, &track);
  return rc ? rc : VEC_PUSH(s->perf_tracks, track);
}

static int pp_shard_stats(import_file *f, const proto_packet_info *info, int64_t session,
                          proto_span defaults) {
  uint64_t count = pp_varint_of(defaults, PSD_PROCESS_SHARD_COUNT);
  if (!count) return WEFT_OK;
  uint64_t chosen = pp_varint_of(defaults, PSD_CHOSEN_PROCESS_SHARD);
  int rc = stats_set(&f->ctx->stats, stat_perf_process_shard_count, session, info->machine,
                     f->trace_id, (int64_t)count);
  return rc ? rc : stats_set(&f->ctx->stats, stat_perf_chosen_process_shard, session,
                             info->machine, f->trace_id, (int64_t)chosen);
}

/* Makes the stream's tracks: its timebase, then each follower. */
static int pp_stream_tracks(import_file *f, proto_profile_state *s, const proto_packet_info *info,
                            uint32_t cpu, pp_perf_stream *st) {
  proto_field fl;
  proto_span defaults = {NULL, 0};
  int has = proto_find_last(info->defaults.data, info->defaults.len, TPD_PERF_SAMPLE_DEFAULTS,
                            &fl) == 1 && fl.wire_type == PROTO_WIRE_LEN;
  if (has) defaults = fl.span;
  string_id name;
  int rc;
  st->first = s->perf_tracks.len;
  if (!has) {
    rc = ctx_intern(f->ctx, "cpu-clock", 9, &name);
  } else {
    proto_span timebase = {NULL, 0};
    if (proto_find_last(defaults.data, defaults.len, PSD_TIMEBASE, &fl) == 1 &&
        fl.wire_type == PROTO_WIRE_LEN)
      timebase = fl.span;
    rc = pp_event_name(f->ctx, timebase, &pp_timebase_fields, &name);
  }
  if (!rc) rc = pp_push_track(f, s, info, st, cpu, name, 1);
  proto_reader r;
  proto_reader_init_span(&r, defaults);
  while (!rc && has && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PSD_FOLLOWERS || fl.wire_type != PROTO_WIRE_LEN) continue;
    rc = pp_event_name(f->ctx, fl.span, &pp_follower_fields, &name);
    if (!rc) rc = pp_push_track(f, s, info, st, cpu, name, 0);
  }
  st->count = s->perf_tracks.len - st->first;
  return rc || !has ? rc : pp_shard_stats(f, info, st->session, defaults);
}

int pp_perf_stream_of(import_file *f, const proto_packet_info *info, uint32_t cpu,
                      pp_perf_stream *out) {
  proto_profile_state *s = pp_state(f);
  if (!s) return WEFT_ENOMEM;
  uint64_t key = ((uint64_t)info->seq + 1) << 32 | cpu, *slot;
  int ins = base_map_insert(&s->perf_streams, key, 0, &slot);
  if (ins < 0) return WEFT_ENOMEM;
  if (!ins) return *out = s->streams.data[*slot], WEFT_OK;
  int rc = pp_perf_session_of(f, s, info, &out->session);
  if (!rc) rc = pp_stream_tracks(f, s, info, cpu, out);
  if (!rc && VEC_PUSH(s->streams, *out)) rc = WEFT_ENOMEM;
  slot = base_map_find(&s->perf_streams, key); /* the map may have grown */
  if (!rc) *slot = s->streams.len - 1;
  return rc;
}
