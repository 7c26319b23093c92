/* proto_frames: Android SurfaceFlinger frame packets — GraphicsFrameEvent
 * (buffer events and the phases they delimit, proto_frames.c) and
 * FrameTimelineEvent (expected / actual frame timeline slices,
 * proto_frame_timeline.c).
 *
 * GraphicsFrameEvent rules (Perfetto v58.2's, per file):
 *  - a buffer event without buffer_id is dropped; every event whose type is
 *    not DEQUEUE, QUEUE, ACQUIRE_FENCE or LATCH (absent, unspecified,
 *    unknown, PRESENT_FENCE and the others) counts
 *    graphics_frame_event_parser_errors once;
 *  - buffers are keyed by the buffer id written in decimal followed by the
 *    layer name; an absent layer name reads "no_layer_name" (but "" in
 *    track names);
 *  - each event is a slice of its duration (0 if none) on "Buffer: <id>
 *    <layer>", named by its type ("unknown_event" if absent or unknown),
 *    args frame_number (0 if absent), layer_name and the buffer's
 *    queue_to_acquire_time (acquire - queue, at least 0),
 *    acquire_to_latch_time (latch - acquire) and latch_to_present_time (ts
 *    - latch), from the latest event of each type of the buffer (0 if none);
 *  - phases (slices named by the frame number, or the timestamp when it is
 *    0, args frame_number and layer_name): DEQUEUE starts "APP_<id>
 *    <layer>"; QUEUE ends the buffer's APP phase (renamed to the frame
 *    number) and starts "GPU_<id> <layer>" unless an acquire fence came
 *    after the last dequeue and before it; ACQUIRE_FENCE ends the GPU
 *    phase; LATCH starts "SF_<id> <layer>"; PRESENT_FENCE ends the SF phase
 *    and the layer's display phase and starts "Display_<layer>";
 *  - a DEQUEUE while the buffer's APP phase is open, or a LATCH, leaves that
 *    phase open (it never ends) renamed "0" with frame_number 0;
 *  - tracks are typed graphics_frame_event with a dimension name; the
 *    frame_slice view is the slices of those tracks with their args as
 *    columns. */
#ifndef WEFT_PROTO_FRAMES_H
#define WEFT_PROTO_FRAMES_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_GRAPHICS_FRAME_EVENT 57
#define PROTO_TRACE_PACKET_FRAME_TIMELINE_EVENT 76

typedef struct proto_frames_state proto_frames_state;

void proto_frames_free(proto_frames_state *s);
/* 1 if a TracePacket field is one proto_frames_parse handles. */
int proto_frames_wants_field(uint32_t number);
/* Applies TracePacket field `fl` at trace time ts; *state is made lazily. */
int proto_frames_parse(import_file *f, proto_frames_state **state, uint32_t machine, int64_t ts,
                       const proto_field *fl);

/* FrameTimelineEvent rules (Perfetto v58.2's, per file):
 *  - an event at a negative time or within 10 s of the int64 limits, with
 *    no known message, or a start without its cookie, token, pid (and for
 *    surface frames display_frame_token) counts
 *    frame_timeline_event_parser_errors and is dropped;
 *  - a start begins a slice named by its token on its process's Expected /
 *    Actual Timeline track set (model/frame_timeline.h), keyed by cookie; a
 *    FrameEnd ends its cookie's slice (an unknown cookie counts
 *    frame_timeline_unpaired_end_event); an expected surface frame whose
 *    (process, token) came before is skipped;
 *  - present / prediction types outside 1..5 / 1..3 read "Unspecified
 *    Present" / "Unspecified Prediction" and count a parser error; jank
 *    types are the names of their bits joined by ", " ("Unspecified" for 0,
 *    "None" for exactly 1); severity is the field's name, else "None" for
 *    jank None and "Unknown" otherwise (NULL out of range, where Perfetto
 *    reads past its table); the jank tag is "Unspecified" for jank 0, then
 *    for display frames Self Jank (SF scheduling, prediction error, display
 *    HAL, SF CPU/GPU deadline), SurfaceFlinger Stuffing, Dropped Frame (by
 *    jank), and for surface frames Self Jank (app deadline, unknown, app
 *    resynced jitter), Other Jank (the display bits), Buffer Stuffing,
 *    SurfaceFlinger Stuffing, Dropped Frame (by present type), then
 *    Non-perceivable Jank (exactly non animating, display not on or power
 *    mode change), else No Jank; the experimental tag applies the same to
 *    the experimental fields;
 *  - an actual display frame gets a flow from each actual surface frame
 *    that named its token before it. */
typedef struct proto_frame_timeline_state proto_frame_timeline_state;

void proto_frame_timeline_free(proto_frame_timeline_state *s);
int proto_frame_timeline_parse(import_file *f, proto_frame_timeline_state **state,
                               uint32_t machine, int64_t ts, const proto_field *fl);

#endif
