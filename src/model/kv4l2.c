/* Video4Linux2 buffer events. See kv4l2.h. */
#include "model/kv4l2.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "model/flow.h"
#include "model/model.h"

struct kv4l2_state {
  base_map queued; /* hash(machine, minor, sequence, type, index) -> queue slice */
};

void kv4l2_state_free(kv4l2_state *k) {
  if (!k) return;
  base_map_free(&k->queued);
  base_free(k);
}

static int kv4l2_get(trace_context *ctx, kv4l2_state **out) {
  if (!ctx->model.kv4l2) {
    ctx->model.kv4l2 = base_calloc(1, sizeof(kv4l2_state));
    if (!ctx->model.kv4l2) return WEFT_ENOMEM;
  }
  *out = ctx->model.kv4l2;
  return WEFT_OK;
}

/* ---- names of videodev2.h values ---- */

static const char *kv4l2_buf_type(uint32_t type) {
  static const char *const names[] = {
      NULL, "VIDEO_CAPTURE", "VIDEO_OUTPUT", "VIDEO_OVERLAY", "VBI_CAPTURE", "VBI_OUTPUT",
      "SLICED_VBI_CAPTURE", "SLICED_VBI_OUTPUT", "VIDEO_OUTPUT_OVERLAY",
      "VIDEO_CAPTURE_MPLANE", "VIDEO_OUTPUT_MPLANE", "SDR_CAPTURE", "SDR_OUTPUT",
      "META_CAPTURE", "META_OUTPUT"};
  if (type == 0x80) return "PRIVATE";
  return type < sizeof names / sizeof *names ? names[type] : NULL;
}

static const char *kv4l2_field(uint32_t field) {
  static const char *const names[] = {"ANY", "NONE", "TOP", "BOTTOM", "INTERLACED",
                                      "SEQ_TB", "SEQ_BT", "ALTERNATE", "INTERLACED_TB",
                                      "INTERLACED_BT"};
  return field < sizeof names / sizeof *names ? names[field] : NULL;
}

static const char *kv4l2_timecode_type(uint32_t type) {
  static const char *const names[] = {NULL, "24FPS", "25FPS", "30FPS", "50FPS", "60FPS"};
  return type < sizeof names / sizeof *names ? names[type] : NULL;
}

/* Appends `name` to the '|'-joined list in buf. */
static void kv4l2_join(char *buf, size_t cap, const char *name) {
  size_t len = strlen(buf);
  snprintf(buf + len, cap - len, "%s%s", len ? "|" : "", name);
}

static void kv4l2_buf_flags(uint32_t flags, char *buf, size_t cap) {
  static const struct { uint32_t bits; const char *name; } names[] = {
      {0x1, "MAPPED"}, {0x2, "QUEUED"}, {0x4, "DONE"}, {0x8, "KEYFRAME"}, {0x10, "PFRAME"},
      {0x20, "BFRAME"}, {0x40, "ERROR"}, {0x80, "IN_REQUEST"}, {0x100, "TIMECODE"},
      {0x200, "M2M_HOLD_CAPTURE_BUF"}, {0x400, "PREPARED"}, {0x800, "NO_CACHE_INVALIDATE"},
      {0x1000, "NO_CACHE_CLEAN"}, {0xe000, "TIMESTAMP_MASK"}, {0, "TIMESTAMP_UNKNOWN"},
      {0x2000, "TIMESTAMP_MONOTONIC"}, {0x4000, "TIMESTAMP_COPY"},
      {0x70000, "TSTAMP_SRC_MASK"}, {0, "TSTAMP_SRC_EOF"}, {0x10000, "TSTAMP_SRC_SOE"},
      {0x100000, "LAST"}, {0x800000, "REQUEST_FD"}};
  buf[0] = '\0';
  /* a name of no bits stands for flags that are all clear */
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (names[i].bits ? (flags & names[i].bits) != 0 : flags == 0)
      kv4l2_join(buf, cap, names[i].name);
}

static void kv4l2_timecode_flags(uint32_t flags, char *buf, size_t cap) {
  buf[0] = '\0';
  if (flags & 0x1) kv4l2_join(buf, cap, "FLAG_DROPFRAME");
  if (flags & 0x2) kv4l2_join(buf, cap, "FLAG_COLORFRAME");
  if ((flags & 0xC) == 0x4) kv4l2_join(buf, cap, "USERBITS_field(01)");
  if ((flags & 0xC) == 0x8) kv4l2_join(buf, cap, "USERBITS_field(10)");
  if ((flags & 0xC) == 0xC) kv4l2_join(buf, cap, "USERBITS_field(11)");
  if (flags == 0) kv4l2_join(buf, cap, "USERBITS_USERDEFINED");
  if (flags & 0x8) kv4l2_join(buf, cap, "USERBITS_8BITCHARS");
}

/* ---- slices ---- */

static int kv4l2_int(trace_context *ctx, const char *key, int64_t value) {
  return model_arg_int(ctx, key, strlen(key), MODEL_ARG_INT, value);
}

static int kv4l2_str(trace_context *ctx, const char *key, const char *value) {
  string_id k, v = STRING_NULL;
  int rc = ctx_intern(ctx, key, strlen(key), &k);
  if (!rc && value) rc = ctx_intern(ctx, value, strlen(value), &v);
  return rc ? rc : model_arg_string_id(ctx, k, v, MODEL_ARG_STRING);
}

static int kv4l2_args(trace_context *ctx, const kv4l2_buffer *b, int is_v4l2, int64_t *args) {
  static const char *const userbits[4] = {"timecode_userbits0", "timecode_userbits1",
                                          "timecode_userbits2", "timecode_userbits3"};
  char flags[512], tc_flags[160];
  kv4l2_buf_flags(b->flags, flags, sizeof flags);
  kv4l2_timecode_flags(b->timecode_flags, tc_flags, sizeof tc_flags);
  int rc = kv4l2_int(ctx, "minor", b->minor);
  if (!rc && is_v4l2) rc = kv4l2_int(ctx, "index", b->index);
  if (!rc && is_v4l2) rc = kv4l2_str(ctx, "type", kv4l2_buf_type(b->type));
  if (!rc && is_v4l2) rc = kv4l2_int(ctx, "bytesused", b->bytesused);
  if (!rc) rc = kv4l2_str(ctx, "flags", flags);
  if (!rc) rc = kv4l2_str(ctx, "field", kv4l2_field(b->field));
  if (!rc) rc = kv4l2_int(ctx, "timestamp", b->timestamp);
  if (!rc) rc = kv4l2_str(ctx, "timecode_type", kv4l2_timecode_type(b->timecode_type));
  if (!rc) rc = kv4l2_str(ctx, "timecode_flags", tc_flags);
  if (!rc) rc = kv4l2_int(ctx, "timecode_frames", b->timecode_frames);
  if (!rc) rc = kv4l2_int(ctx, "timecode_seconds", b->timecode_seconds);
  if (!rc) rc = kv4l2_int(ctx, "timecode_minutes", b->timecode_minutes);
  if (!rc) rc = kv4l2_int(ctx, "timecode_hours", b->timecode_hours);
  for (int i = 0; !rc && i < 4; i++) rc = kv4l2_int(ctx, userbits[i], b->timecode_userbits[i]);
  if (!rc) rc = kv4l2_int(ctx, "sequence", b->sequence);
  if (!rc) return model_args_commit(ctx, args);
  model_args_discard(ctx);
  return rc;
}

#define KV4L2_MAX_NAME 63

static const char *const kv4l2_names[] = {
    [KV4L2_QBUF] = "VIDIOC_QBUF",          [KV4L2_DQBUF] = "VIDIOC_DQBUF",
    [KV4L2_VB2_BUF_QUEUE] = "vb2_v4l2_buf_queue", [KV4L2_VB2_BUF_DONE] = "vb2_v4l2_buf_done",
    [KV4L2_VB2_QBUF] = "vb2_v4l2_qbuf",    [KV4L2_VB2_DQBUF] = "vb2_v4l2_qbuf"};

static int kv4l2_slice(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                       kv4l2_kind kind, const kv4l2_buffer *b, uint32_t *slice) {
  int is_v4l2 = kind == KV4L2_QBUF || kind == KV4L2_DQBUF;
  char name[KV4L2_MAX_NAME + 1]; /* longer names are cut, as in Perfetto */
  snprintf(name, sizeof name, "%s minor=%" PRId32 " seq=%" PRIu32 " type=%" PRIu32
           " index=%" PRIu32, kv4l2_names[kind], (int32_t)b->minor, b->sequence,
           is_v4l2 ? b->type : 0, is_v4l2 ? b->index : 0);
  uint32_t utid, track;
  string_id name_id, category;
  int64_t args = -1;
  int rc = sched_thread(ctx, s->machine, tid, NULL, 0, &utid);
  if (!rc) rc = model_thread_track(ctx, utid, &track);
  if (!rc) rc = ctx_intern(ctx, name, strlen(name), &name_id);
  if (!rc) rc = ctx_intern(ctx, "Video 4 Linux 2", 15, &category);
  if (!rc) rc = kv4l2_args(ctx, b, is_v4l2, &args);
  return rc ? rc : model_slice_complete(ctx, track, ts, 0, category, name_id, args, slice);
}

int kv4l2_event(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                kv4l2_kind kind, const kv4l2_buffer *b) {
  kv4l2_state *k;
  uint32_t slice;
  int rc = kv4l2_get(ctx, &k);
  if (!rc) rc = kv4l2_slice(ctx, s, ts, tid, kind, b, &slice);
  if (rc || (kind != KV4L2_QBUF && kind != KV4L2_DQBUF)) return rc;
  uint64_t key = base_hash_u64((uint64_t)s->machine + 1);
  key = base_hash_u64(key ^ (uint32_t)b->minor);
  key = base_hash_u64(key ^ b->sequence);
  key = base_hash_u64(key ^ ((uint64_t)b->type << 32 | b->index));
  uint64_t *queued = base_map_find(&k->queued, key);
  if (kind == KV4L2_QBUF) {
    if (queued && *queued != UINT64_MAX) return WEFT_OK;
    if (queued) {
      *queued = slice;
      return WEFT_OK;
    }
    if (k->queued.count >= KV4L2_MAX_QUEUED) { /* starts over: see kv4l2.h */
      base_map_free(&k->queued);
      memset(&k->queued, 0, sizeof k->queued);
    }
    return base_map_insert(&k->queued, key, slice, &queued) < 0 ? WEFT_ENOMEM : WEFT_OK;
  }
  if (!queued || *queued == UINT64_MAX) return WEFT_OK;
  uint32_t from = (uint32_t)*queued;
  *queued = UINT64_MAX; /* forgotten */
  return flow_link(ctx, from, slice);
}
