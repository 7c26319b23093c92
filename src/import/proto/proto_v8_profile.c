/* V8 CPU profiles in legacy TrackEvents of phase 'P' (model/v8_profile.h):
 * the profile is the legacy_json_value of the debug annotation named (by
 * name_iid) "data"; the session is the legacy event's unscoped_id and the
 * sequence's pid, the samples' thread the sequence's. A "Profile"'s
 * startTime is on CLOCK_MONOTONIC; one that cannot be converted, and a
 * rejected chunk, count legacy_v8_cpu_profile_invalid_sample. The events
 * are applied in file order once parsing ends (proto_v8_end); the event
 * itself stays a slice. */
#include "import/proto/proto_track_event.h"

#include "clock/clock.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"
#include "import/proto/proto_ref.h"
#include "model/model.h"
#include "model/v8_profile.h"

static int proto_v8_start_time(void *arg, const v8_profile_event *ev, int64_t ts,
                               int64_t *out) {
  return import_clock_convert(arg, (uint32_t)ev->machine, CLOCK_ID_MONOTONIC, ts, out) == 1;
}

int proto_v8_end(import_file *f) {
  proto_import_state *st = f->state;
  v8_profile_clock clock = {proto_v8_start_time, NULL, NULL, f};
  return v8_profile_queue_apply(f->ctx, &st->v8, &clock);
}

/* The event's place in the file: the virtual offset of its bytes (inflated
 * buffers follow the file). */
static uint64_t proto_v8_order(const proto_parse_ctx *p, proto_span msg) {
  const proto_import_state *st = p->f->state;
  const proto_ref_buffer *b = &st->refs.buffers.data[p->info->buffer];
  return b->base + (uint64_t)(msg.data - b->data);
}

/* The legacy_json_value of annotation `ann` if it is named "data". */
static int proto_v8_data(const proto_parse_ctx *p, proto_span ann, proto_span *json) {
  const proto_import_state *st = p->f->state;
  uint64_t iid = 0;
  int has_json = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, ann);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_DEBUG_ANNOTATION_NAME_IID && fl.wire_type == PROTO_WIRE_VARINT)
      iid = fl.value;
    else if (fl.number == PROTO_DEBUG_ANNOTATION_LEGACY_JSON_VALUE &&
             fl.wire_type == PROTO_WIRE_LEN)
      *json = fl.span, has_json = 1;
  }
  if (!has_json || !iid) return 0;
  string_id name = proto_interned(st, p->info->seq, p->info->generation,
                                  PROTO_INTERN_DEBUG_NAME, iid);
  const char *s = base_string_pool_get(&p->f->ctx->strings, name);
  return s && strcmp(s, "data") == 0;
}

int proto_v8_profile(proto_parse_ctx *p, proto_span msg, const proto_event *e) {
  proto_import_state *st = p->f->state;
  int64_t pid = 0, tid = 0;
  if (!proto_seq_thread(st, p->info->seq, p->info->generation, &pid, &tid))
    pid = tid = 0;
  v8_profile_event ev = {e->unscoped_id, pid, tid, 0, p->machine, p->f->trace_id,
                         stat_legacy_v8_cpu_profile_invalid_sample, 0};
  int rc = WEFT_OK, have_utid = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    proto_span json = {NULL, 0};
    if (fl.number != PROTO_TRACK_EVENT_DEBUG_ANNOTATIONS || fl.wire_type != PROTO_WIRE_LEN ||
        !proto_v8_data(p, fl.span, &json))
      continue;
    if (!have_utid && (rc = model_thread_in_process(p->f->ctx, p->machine, tid, pid,
                                                    &ev.utid)) != 0)
      return rc;
    have_utid = 1;
    rc = v8_profile_queue_add(&st->v8, &ev, proto_v8_order(p, msg), (const char *)json.data,
                              json.len);
  }
  return rc;
}
