/* FrameTimelineEvent packets. See proto_frames.h. */
#include <stdio.h>
#include <string.h>

#include "import/proto/proto_frames.h"
#include "model/flow.h"
#include "model/frame_timeline.h"
#include "model/model.h"

enum {
  PROTO_FT_EXPECTED_DISPLAY = 1, PROTO_FT_ACTUAL_DISPLAY = 2, PROTO_FT_EXPECTED_SURFACE = 3,
  PROTO_FT_ACTUAL_SURFACE = 4, PROTO_FT_FRAME_END = 5
};
#define PROTO_FT_FIELDS 24
#define PROTO_FT_NONE UINT64_MAX
#define PROTO_FT_SKIPPED (UINT64_MAX - 1) /* a skipped frame's cookie: its end is ignored */

/* Jank type bits. */
enum {
  PROTO_JANK_NONE = 1, PROTO_JANK_BUFFER_STUFFING = 128, PROTO_JANK_SF_STUFFING = 512,
  PROTO_JANK_DROPPED = 1024, PROTO_JANK_NON_ANIMATING = 2048, PROTO_JANK_DISPLAY_NOT_ON = 8192,
  PROTO_JANK_POWER_MODE_CHANGE = 32768,
  PROTO_JANK_DISPLAY_BITS = 2 | 4 | 8 | 16 | 32, PROTO_JANK_SURFACE_BITS = 64 | 256 | 4096
};
#define PROTO_PRESENT_DROPPED 4

/* A start's fields by number: the varints (floats as their bits) and the
 * layer name. */
typedef struct proto_ft_msg {
  uint64_t v[PROTO_FT_FIELDS];
  uint32_t has; /* bit n: field n present */
  proto_span layer;
} proto_ft_msg;

/* Where the fields of an actual frame are (display and surface differ). */
typedef struct proto_ft_layout {
  uint8_t present, on_time, gpu, jank, prediction, severity, delay, score, jank_exp,
      present_exp, metadata;
} proto_ft_layout;
static const proto_ft_layout proto_ft_display = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14};
static const proto_ft_layout proto_ft_surface = {6, 7, 8, 9, 10, 12, 13, 15, 16, 17, 18};

typedef struct proto_ft_surface_link {
  uint32_t slice;
  uint64_t next; /* index + 1 of the next link of the same token, 0: none */
} proto_ft_surface_link;

struct proto_frame_timeline_state {
  base_map cookie_set;   /* cookie key -> upid << 1 | actual, PROTO_FT_NONE: ended */
  base_map expected_seen; /* hash(upid, surface token) -> 1 */
  base_map surfaces_of;  /* display token -> index + 1 of its first link, 0: none */
  base_map last_surface_of; /* display token -> index + 1 of its last link */
  VEC(proto_ft_surface_link) links;
};

void proto_frame_timeline_free(proto_frame_timeline_state *s) {
  if (!s) return;
  base_map_free(&s->cookie_set);
  base_map_free(&s->expected_seen);
  base_map_free(&s->surfaces_of);
  base_map_free(&s->last_surface_of);
  VEC_FREE(s->links);
  base_free(s);
}

static uint64_t proto_ft_key(int64_t v) {
  uint64_t k = (uint64_t)v;
  return k == UINT64_MAX ? base_hash_u64(k) : k; /* the map reserves UINT64_MAX */
}

static void proto_ft_read(proto_span msg, proto_ft_msg *m) {
  proto_reader r;
  proto_field fl;
  memset(m, 0, sizeof *m);
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == 0 || fl.number >= PROTO_FT_FIELDS) continue;
    if (fl.wire_type == PROTO_WIRE_LEN) {
      if (fl.number == 5) m->layer = fl.span, m->has |= 1u << 5;
      continue;
    }
    m->v[fl.number] = fl.value;
    m->has |= 1u << fl.number;
  }
}

static int proto_ft_has(const proto_ft_msg *m, unsigned n) { return (m->has >> n) & 1; }

static double proto_ft_float(const proto_ft_msg *m, unsigned n) {
  uint32_t bits = (uint32_t)m->v[n];
  float f;
  memcpy(&f, &bits, sizeof f);
  return proto_ft_has(m, n) ? (double)f : 0.0;
}

static int proto_ft_intern(trace_context *ctx, const char *s, string_id *out) {
  return ctx_intern(ctx, s, strlen(s), out);
}

/* "a, b, ..." of the jank bits; "Unspecified" for 0, "None" for 1. */
static int proto_ft_jank_name(trace_context *ctx, int32_t jank, string_id *out) {
  static const char *const names[] = {
      NULL, NULL, "SurfaceFlinger Scheduling", "Prediction Error", "Display HAL",
      "SurfaceFlinger CPU Deadline Missed", "SurfaceFlinger GPU Deadline Missed",
      "App Deadline Missed", "Buffer Stuffing", "Unknown Jank", "SurfaceFlinger Stuffing",
      "Dropped Frame", "Non Animating", "App Resynced Jitter", "Display not ON",
      "ModeChange in progress", "PowerModeChange in progress"};
  if (jank == 0) return proto_ft_intern(ctx, "Unspecified", out);
  if (jank == PROTO_JANK_NONE) return proto_ft_intern(ctx, "None", out);
  char text[512];
  size_t n = 0;
  text[0] = '\0';
  for (unsigned bit = 2; bit < sizeof names / sizeof *names; bit++) {
    if (!((uint32_t)jank >> (bit - 1) & 1)) continue;
    int w = snprintf(text + n, sizeof text - n, "%s%s", n ? ", " : "", names[bit]);
    if (w > 0) n += (size_t)w;
  }
  return ctx_intern(ctx, text, n, out);
}

static int proto_ft_non_perceivable(int32_t jank) {
  return jank == PROTO_JANK_NON_ANIMATING || jank == PROTO_JANK_DISPLAY_NOT_ON ||
         jank == PROTO_JANK_POWER_MODE_CHANGE;
}

static const char *proto_ft_jank_tag(int32_t jank, int surface, int dropped) {
  if (jank == 0) return "Unspecified";
  if (!surface) {
    if (jank & PROTO_JANK_DISPLAY_BITS) return "Self Jank";
    if (jank == PROTO_JANK_SF_STUFFING) return "SurfaceFlinger Stuffing";
    if (jank == PROTO_JANK_DROPPED) return "Dropped Frame";
  } else {
    if (jank & PROTO_JANK_SURFACE_BITS) return "Self Jank";
    if (jank & PROTO_JANK_DISPLAY_BITS) return "Other Jank";
    if (jank == PROTO_JANK_BUFFER_STUFFING) return "Buffer Stuffing";
    if (jank == PROTO_JANK_SF_STUFFING) return "SurfaceFlinger Stuffing";
    if (dropped) return "Dropped Frame";
  }
  return proto_ft_non_perceivable(jank) ? "Non-perceivable Jank" : "No Jank";
}

/* A present type's name; an invalid one given counts a parser error. */
static const char *proto_ft_present(import_file *f, const proto_ft_msg *m, unsigned n,
                                    int *valid) {
  static const char *const names[] = {"Unspecified Present", "On-time Present", "Late Present",
                                      "Early Present", "Dropped Frame", "Unknown Present"};
  *valid = 0;
  if (!proto_ft_has(m, n)) return names[0];
  if (m->v[n] < 1 || m->v[n] > 5) {
    import_stat(f, stat_frame_timeline_event_parser_errors, 1);
    return names[0];
  }
  *valid = 1;
  return names[m->v[n]];
}

static const char *proto_ft_prediction(import_file *f, const proto_ft_msg *m, unsigned n) {
  static const char *const names[] = {"Unspecified Prediction", "Valid Prediction",
                                      "Expired Prediction", "Unknown Prediction"};
  if (!proto_ft_has(m, n)) return names[0];
  if (m->v[n] < 1 || m->v[n] > 3) {
    import_stat(f, stat_frame_timeline_event_parser_errors, 1);
    return names[0];
  }
  return names[m->v[n]];
}

/* The severity's name: the field's, else by the jank type (NULL out of range). */
static const char *proto_ft_severity(const proto_ft_msg *m, unsigned n, int32_t jank) {
  static const char *const names[] = {"Unknown", "None", "Partial", "Full"};
  if (!proto_ft_has(m, n)) return jank == PROTO_JANK_NONE ? names[1] : names[0];
  return m->v[n] < 4 ? names[m->v[n]] : NULL;
}

static const char *proto_ft_fence_state(uint64_t v) {
  static const char *const names[] = {"Unknown", "Latched Signaled", "Latched Unsignaled",
                                      "Delayed Latch Fence Unsignaled"};
  return v < 4 ? names[v] : NULL;
}

/* ---- args ---- */

static int proto_ft_arg_int(trace_context *ctx, const char *key, int64_t v) {
  return model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, v);
}

static int proto_ft_arg_real(trace_context *ctx, const char *key, double v) {
  return model_arg_real(ctx, key, strlen(key), v);
}

static int proto_ft_arg_str(trace_context *ctx, const char *key, string_id v) {
  string_id k;
  int rc = proto_ft_intern(ctx, key, &k);
  return rc ? rc : model_arg_string_id(ctx, k, v, MODEL_ARG_STRING);
}

static int proto_ft_arg_text(trace_context *ctx, const char *key, const char *v, string_id *id) {
  *id = STRING_NULL;
  int rc = v ? proto_ft_intern(ctx, v, id) : WEFT_OK;
  return rc ? rc : proto_ft_arg_str(ctx, key, *id);
}

/* The judgement of an actual frame: its columns and args in Perfetto's
 * order, after the tokens (and, for surfaces, the timing args). */
static int proto_ft_judgement(import_file *f, const proto_ft_msg *m, const proto_ft_layout *l,
                              int surface, frame_timeline_row *row) {
  trace_context *ctx = f->ctx;
  int32_t jank = (int32_t)m->v[l->jank], jank_exp = (int32_t)m->v[l->jank_exp];
  int valid, valid_exp;
  const char *present = proto_ft_present(f, m, l->present, &valid);
  const char *present_exp = proto_ft_present(f, m, l->present_exp, &valid_exp);
  string_id unused, jank_exp_name;
  int rc = proto_ft_arg_text(ctx, "Present type", present, &row->present_type);
  if (!rc) rc = proto_ft_arg_text(ctx, "Present type (experimental)", present_exp, &unused);
  row->on_time_finish = (int64_t)(m->v[l->on_time] != 0);
  row->gpu_composition = (int64_t)(m->v[l->gpu] != 0);
  if (!rc) rc = proto_ft_arg_int(ctx, "On time finish", row->on_time_finish);
  if (!rc) rc = proto_ft_arg_int(ctx, "GPU composition", row->gpu_composition);
  if (!rc) rc = proto_ft_jank_name(ctx, jank, &row->jank_type);
  if (!rc) rc = proto_ft_arg_str(ctx, "Jank type", row->jank_type);
  if (!rc) rc = proto_ft_jank_name(ctx, jank_exp, &jank_exp_name);
  if (!rc) rc = proto_ft_arg_str(ctx, "Jank type (experimental)", jank_exp_name);
  if (!rc) rc = proto_ft_arg_text(ctx, "Jank severity type", proto_ft_severity(m, l->severity, jank),
                                  &row->jank_severity_type);
  row->jank_score = proto_ft_float(m, l->score);
  if (!rc) rc = proto_ft_arg_real(ctx, "Jank Severity Score", row->jank_score);
  if (!rc) rc = proto_ft_arg_text(ctx, "Prediction type", proto_ft_prediction(f, m, l->prediction),
                                  &row->prediction_type);
  int dropped = valid && m->v[l->present] == PROTO_PRESENT_DROPPED;
  int dropped_exp = valid_exp && m->v[l->present_exp] == PROTO_PRESENT_DROPPED;
  if (!rc) rc = proto_ft_arg_text(ctx, "Jank tag", proto_ft_jank_tag(jank, surface, dropped),
                                  &row->jank_tag);
  if (!rc) rc = proto_ft_arg_text(ctx, "Jank tag (experimental)",
                                  proto_ft_jank_tag(jank_exp, surface, dropped_exp),
                                  &row->jank_tag_experimental);
  return rc;
}

/* ---- slices ---- */

/* The process of a start's pid (created with its main thread if new). */
static int proto_ft_upid(import_file *f, uint32_t machine, uint64_t pid, uint32_t *upid) {
  uint32_t utid;
  int64_t p = (int64_t)(uint32_t)pid;
  int rc = model_thread_in_process(f->ctx, machine, p, p, &utid);
  if (rc) return rc;
  *upid = (uint32_t)storage_get_i64_or(ctx_table(f->ctx, TABLE_THREAD), THREAD_upid, utid, 0);
  return WEFT_OK;
}

/* Begins the slice of a start (args pending) and records its columns. */
static int proto_ft_begin(import_file *f, proto_frame_timeline_state *s, uint32_t machine,
                          int64_t ts, int64_t cookie, int64_t token, frame_timeline_row *row,
                          uint32_t *slice) {
  trace_context *ctx = f->ctx;
  char text[24];
  int n = snprintf(text, sizeof text, "%lld", (long long)token);
  string_id name;
  uint32_t track;
  int64_t args = -1;
  uint64_t *slot;
  int rc = ctx_intern(ctx, text, n > 0 ? (size_t)n : 0, &name);
  if (!rc) rc = model_args_commit(ctx, &args);
  if (!rc) rc = frame_timeline_track(ctx, machine, row->upid, row->actual, cookie,
                                     TRACK_COMPRESSOR_BEGIN, &track);
  if (!rc) rc = model_slice_begin(ctx, track, ts, STRING_NULL, name, args, slice);
  if (!rc) rc = frame_timeline_row_add(ctx, *slice, row);
  if (rc) return rc;
  uint64_t set = (uint64_t)row->upid << 1 | (row->actual != 0);
  if (base_map_insert(&s->cookie_set, proto_ft_key(cookie), set, &slot) < 0) return WEFT_ENOMEM;
  *slot = set;
  return WEFT_OK;
}

static int proto_ft_required(import_file *f, const proto_ft_msg *m, int surface) {
  int ok = proto_ft_has(m, 1) && proto_ft_has(m, 2) && proto_ft_has(m, 3) &&
           (!surface || proto_ft_has(m, 4));
  if (!ok) import_stat(f, stat_frame_timeline_event_parser_errors, 1);
  return ok;
}

static int proto_ft_expected(import_file *f, proto_frame_timeline_state *s, uint32_t machine,
                             int64_t ts, const proto_ft_msg *m, int surface) {
  trace_context *ctx = f->ctx;
  if (!proto_ft_required(f, m, surface)) return WEFT_OK;
  frame_timeline_row row;
  memset(&row, 0, sizeof row);
  int64_t token = (int64_t)m->v[2];
  uint32_t slice;
  int rc = proto_ft_upid(f, machine, m->v[surface ? 4 : 3], &row.upid);
  if (rc) return rc;
  row.display_frame_token = surface ? (int64_t)m->v[3] : token;
  if (surface) {
    uint64_t key = base_hash_u64(base_hash_u64(row.upid) ^ (uint64_t)token) >> 1;
    int ins = base_map_insert(&s->expected_seen, key, 1, NULL);
    if (ins < 0) return WEFT_ENOMEM;
    if (ins == 0) { /* seen: the same expectations; its end is ignored */
      uint64_t *slot;
      if (base_map_insert(&s->cookie_set, proto_ft_key((int64_t)m->v[1]), 0, &slot) < 0)
        return WEFT_ENOMEM;
      *slot = PROTO_FT_SKIPPED;
      return WEFT_OK;
    }
    row.surface_frame_token = token, row.has_surface_frame_token = 1;
    if (proto_ft_has(m, 5) &&
        (rc = ctx_intern(ctx, (const char *)m->layer.data, m->layer.len, &row.layer_name)) != 0)
      return rc;
    rc = proto_ft_arg_int(ctx, "Surface frame token", token);
  }
  if (!rc) rc = proto_ft_arg_int(ctx, "Display frame token", row.display_frame_token);
  if (!rc && surface) rc = proto_ft_arg_str(ctx, "Layer name", row.layer_name);
  return rc ? rc : proto_ft_begin(f, s, machine, ts, (int64_t)m->v[1], token, &row, &slice);
}

/* Flows from the surface frames that named `token` to the display frame. */
static int proto_ft_link_surfaces(trace_context *ctx, proto_frame_timeline_state *s,
                                  int64_t token, uint32_t display) {
  uint64_t *head = base_map_find(&s->surfaces_of, proto_ft_key(token));
  int rc = WEFT_OK;
  for (uint64_t i = head ? *head : 0; !rc && i; i = s->links.data[i - 1].next)
    rc = flow_link(ctx, s->links.data[i - 1].slice, display);
  if (head) *head = 0;
  return rc;
}

/* Remembers an actual surface frame for the display frame of `token`. */
static int proto_ft_note_surface(proto_frame_timeline_state *s, int64_t token, uint32_t slice) {
  proto_ft_surface_link link = {slice, 0};
  if (VEC_PUSH(s->links, link)) return WEFT_ENOMEM;
  uint64_t index = s->links.len, *head, *tail;
  if (base_map_insert(&s->surfaces_of, proto_ft_key(token), 0, &head) < 0 ||
      base_map_insert(&s->last_surface_of, proto_ft_key(token), 0, &tail) < 0)
    return WEFT_ENOMEM;
  if (*head == 0) *head = index;
  else s->links.data[*tail - 1].next = index;
  *tail = index;
  return WEFT_OK;
}

static int proto_ft_actual(import_file *f, proto_frame_timeline_state *s, uint32_t machine,
                           int64_t ts, const proto_ft_msg *m, int surface) {
  trace_context *ctx = f->ctx;
  const proto_ft_layout *l = surface ? &proto_ft_surface : &proto_ft_display;
  if (!proto_ft_required(f, m, surface)) return WEFT_OK;
  frame_timeline_row row;
  memset(&row, 0, sizeof row);
  row.actual = 1;
  int64_t token = (int64_t)m->v[2];
  uint32_t slice;
  string_id v;
  int rc = proto_ft_upid(f, machine, m->v[surface ? 4 : 3], &row.upid);
  if (rc) return rc;
  row.display_frame_token = surface ? (int64_t)m->v[3] : token;
  if (surface) {
    row.surface_frame_token = token, row.has_surface_frame_token = 1;
    if (proto_ft_has(m, 5))
      rc = ctx_intern(ctx, (const char *)m->layer.data, m->layer.len, &row.layer_name);
    if (!rc) rc = proto_ft_arg_int(ctx, "Surface frame token", token);
  }
  if (!rc) rc = proto_ft_arg_int(ctx, "Display frame token", row.display_frame_token);
  if (!rc && surface && proto_ft_has(m, 20))
    rc = proto_ft_arg_real(ctx, "Animation Time (ms)", proto_ft_float(m, 20));
  if (!rc) rc = proto_ft_arg_real(ctx, "Present Delay (ms)", proto_ft_float(m, l->delay));
  if (!rc && surface) rc = proto_ft_arg_real(ctx, "Vsync Resynced Jitter (ms)", proto_ft_float(m, 14));
  if (!rc && surface) rc = proto_ft_arg_str(ctx, "Layer name", row.layer_name);
  if (!rc) rc = proto_ft_judgement(f, m, l, surface, &row);
  if (!rc && surface)
    rc = proto_ft_arg_text(ctx, "Is Buffer?",
                           !proto_ft_has(m, 11) ? "Unspecified" : m->v[11] ? "Yes" : "No", &v);
  if (!rc) rc = proto_ft_arg_real(ctx, "Jank Metadata (debugging only)",
                                  proto_ft_float(m, l->metadata));
  if (!rc && !surface && proto_ft_has(m, 15)) {
    row.latched_unsignaled_count = (int64_t)m->v[15], row.has_latched_unsignaled_count = 1;
    rc = proto_ft_arg_int(ctx, "Latched unsignaled count", row.latched_unsignaled_count);
  }
  if (!rc && !surface && proto_ft_has(m, 16)) {
    row.addressable_unsignaled_latch_count = (int64_t)m->v[16];
    row.has_addressable_unsignaled_latch_count = 1;
    rc = proto_ft_arg_int(ctx, "Addressable unsignaled latch count",
                          row.addressable_unsignaled_latch_count);
  }
  if (!rc && surface && proto_ft_has(m, 19))
    rc = proto_ft_arg_text(ctx, "Latched fence state", proto_ft_fence_state(m->v[19]),
                           &row.latched_fence_state);
  if (!rc) rc = proto_ft_begin(f, s, machine, ts, (int64_t)m->v[1], token, &row, &slice);
  if (rc) return rc;
  return surface ? proto_ft_note_surface(s, row.display_frame_token, slice)
                 : proto_ft_link_surfaces(ctx, s, token, slice);
}

static int proto_ft_end(import_file *f, proto_frame_timeline_state *s, uint32_t machine,
                        int64_t ts, const proto_ft_msg *m) {
  if (!proto_ft_has(m, 1)) return import_stat(f, stat_frame_timeline_event_parser_errors, 1);
  int64_t cookie = (int64_t)m->v[1];
  uint64_t *set = base_map_find(&s->cookie_set, proto_ft_key(cookie));
  if (!set || *set == PROTO_FT_NONE)
    return import_stat(f, stat_frame_timeline_unpaired_end_event, 1);
  uint32_t track;
  int64_t ended;
  if (*set == PROTO_FT_SKIPPED) {
    *set = PROTO_FT_NONE;
    return WEFT_OK;
  }
  int rc = frame_timeline_track(f->ctx, machine, (uint32_t)(*set >> 1), (int)(*set & 1), cookie,
                                TRACK_COMPRESSOR_END, &track);
  *set = PROTO_FT_NONE;
  return rc ? rc : model_slice_end(f->ctx, track, ts, &ended);
}

/* Near the int64 limits: a mistake (Perfetto drops them too). */
static int proto_ft_bad_time(int64_t ts) {
  const int64_t bad = INT64_MAX - 10LL * 1000 * 1000 * 1000;
  return ts < 0 || ts >= bad;
}

int proto_frame_timeline_parse(import_file *f, proto_frame_timeline_state **state,
                               uint32_t machine, int64_t ts, const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  if (proto_ft_bad_time(ts)) return import_stat(f, stat_frame_timeline_event_parser_errors, 1);
  proto_span parts[PROTO_FT_FRAME_END + 1];
  unsigned present = 0;
  proto_reader r;
  proto_field in;
  proto_reader_init_span(&r, fl->span);
  while (proto_reader_next(&r, &in) == 1)
    if (in.wire_type == PROTO_WIRE_LEN && in.number >= 1 && in.number <= PROTO_FT_FRAME_END)
      parts[in.number] = in.span, present |= 1u << in.number;
  unsigned kind = 1;
  while (kind <= PROTO_FT_FRAME_END && !(present >> kind & 1)) kind++;
  if (kind > PROTO_FT_FRAME_END) return import_stat(f, stat_frame_timeline_event_parser_errors, 1);
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  proto_ft_msg m;
  proto_ft_read(parts[kind], &m);
  switch (kind) {
    case PROTO_FT_EXPECTED_DISPLAY: return proto_ft_expected(f, *state, machine, ts, &m, 0);
    case PROTO_FT_ACTUAL_DISPLAY: return proto_ft_actual(f, *state, machine, ts, &m, 0);
    case PROTO_FT_EXPECTED_SURFACE: return proto_ft_expected(f, *state, machine, ts, &m, 1);
    case PROTO_FT_ACTUAL_SURFACE: return proto_ft_actual(f, *state, machine, ts, &m, 1);
    default: return proto_ft_end(f, *state, machine, ts, &m);
  }
}
