/* kvirtio: virtio-video ftrace events (Perfetto's rules), shared by the
 * ftrace importers. Owns the machine-wide sets of interchangeable tracks
 * the buffers and commands go on (model/track_compressor.h).
 * Rules:
 *  - virtio_video_resource_queue begins a slice "Resource #<resource_id>"
 *    (signed) on track set "virtio_video stream #<stream_id> <queue>"
 *    (queue INPUT for queue_type 0x100, OUTPUT for 0x101, else Unknown;
 *    type virtio_video_queue_event, dimensions virtio_stream_id,
 *    virtio_queue_type, track_compressor_idx), the cookie being
 *    (stream_id, resource_id, queue_type); virtio_video_resource_queue_done
 *    of the same cookie ends it and gives it args stream_id, resource_id,
 *    queue_type (by name), data_size0..3 and timestamp.
 *  - virtio_video_cmd / _cmd_done: a 100 us slice named by the command type
 *    (0x100 QUERY_CAPABILITY ... 0x10e SET_PARAMS_EXT, else Unknown) on
 *    track set "virtio_video stream #<stream_id> Requests" / "... Responses"
 *    (type virtio_video_command, dimensions virtio_stream_id, is_response,
 *    track_compressor_idx), a new track of the set only while the set's
 *    others are busy. */
#ifndef WEFT_MODEL_KVIRTIO_H
#define WEFT_MODEL_KVIRTIO_H

#include "model/sched.h"

typedef struct kvirtio_state kvirtio_state;
void kvirtio_state_free(kvirtio_state *k);

/* A virtio_video_resource_queue (done = 0) or _done (done = 1) event. */
typedef struct kvirtio_queue_event {
  int done;
  int32_t stream_id, resource_id;
  uint32_t queue_type;
  uint32_t data_size[4];
  uint64_t timestamp;
} kvirtio_queue_event;

int kvirtio_queue(trace_context *ctx, const kernel_scope *s, int64_t ts,
                  const kvirtio_queue_event *e);
/* A virtio_video_cmd (response = 0) or _cmd_done (response = 1). */
int kvirtio_command(trace_context *ctx, const kernel_scope *s, int64_t ts, uint32_t stream_id,
                    uint32_t type, int response);

#endif
