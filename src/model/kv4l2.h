/* kv4l2: Video4Linux2 buffer events (Perfetto's rules), shared by the
 * ftrace importers. Owns the queued buffers waiting for their dequeue (by
 * key; once KV4L2_MAX_QUEUED keys were seen it starts over, so buffers still
 * waiting then make no flow: a bound against hostile input).
 * Rules:
 *  - each event is an instant on its thread's track, category "Video 4
 *    Linux 2", named "<what> minor=M seq=S type=T index=I" (cut at 63
 *    bytes; what:
 *    VIDIOC_QBUF, VIDIOC_DQBUF, vb2_v4l2_buf_queue, vb2_v4l2_buf_done,
 *    vb2_v4l2_qbuf for both vb2 qbuf and dqbuf; the vb2 events have no type
 *    or index: 0), with args minor, index / type / bytesused (v4l2 events
 *    only), flags, field, timestamp, timecode_type, timecode_flags,
 *    timecode_frames / seconds / minutes / hours, timecode_userbits0..3 and
 *    sequence; type, field, timecode_type and the two flag sets as text
 *    (linux/videodev2.h names, NULL when unknown).
 *  - a VIDIOC_QBUF is remembered by (minor, sequence, type, index), the
 *    first one kept while one is waiting; the VIDIOC_DQBUF of the same key
 *    links a flow from it and forgets it. */
#ifndef WEFT_MODEL_KV4L2_H
#define WEFT_MODEL_KV4L2_H

#include "model/sched.h"

#define KV4L2_MAX_QUEUED (1u << 20)

typedef struct kv4l2_state kv4l2_state;
void kv4l2_state_free(kv4l2_state *k);

typedef enum kv4l2_kind {
  KV4L2_QBUF,
  KV4L2_DQBUF,
  KV4L2_VB2_BUF_QUEUE,
  KV4L2_VB2_BUF_DONE,
  KV4L2_VB2_QBUF,
  KV4L2_VB2_DQBUF
} kv4l2_kind;

/* A buffer event's fields (index, type and bytesused: v4l2 events only). */
typedef struct kv4l2_buffer {
  int64_t minor, timestamp;
  uint32_t index, type, bytesused, flags, field, sequence;
  uint32_t timecode_type, timecode_flags;
  uint32_t timecode_frames, timecode_seconds, timecode_minutes, timecode_hours;
  uint32_t timecode_userbits[4];
} kv4l2_buffer;

int kv4l2_event(trace_context *ctx, const kernel_scope *s, int64_t ts, int64_t tid,
                kv4l2_kind kind, const kv4l2_buffer *b);

#endif
