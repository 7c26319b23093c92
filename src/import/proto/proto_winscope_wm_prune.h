/* proto_winscope_wm_prune: a WindowManager message without its window
 * container children, the bytes a snapshot or container row keeps (args
 * and base64_proto).
 *
 * Fields are copied in wire order; a WindowContainerProto loses its
 * children (5) wherever it is reached through the message's own chain
 * (RootWindowContainerProto.window_container, a child's container of each
 * kind: DisplayContent's root_display_area, Task's window_container and
 * task_fragment, ActivityRecord's window_token, ...); a snapshot's
 * WindowManagerServiceDumpProto loses root_window_container (2); a
 * WindowContainerChildProto keeps only its known kinds (2-9). What cannot
 * be read is left out. */
#ifndef WEFT_PROTO_WINSCOPE_WM_PRUNE_H
#define WEFT_PROTO_WINSCOPE_WM_PRUNE_H

#include "import/proto/proto_wire.h"

/* The messages pruning knows. */
typedef enum wm_msg {
  WM_MSG_ENTRY,          /* WindowManagerTraceEntry */
  WM_MSG_SERVICE,        /* WindowManagerServiceDumpProto */
  WM_MSG_ROOT,           /* RootWindowContainerProto */
  WM_MSG_CONTAINER,      /* WindowContainerProto */
  WM_MSG_CHILD,          /* WindowContainerChildProto */
  WM_MSG_DISPLAY_CONTENT,
  WM_MSG_DISPLAY_AREA,
  WM_MSG_TASK,
  WM_MSG_ACTIVITY,
  WM_MSG_WINDOW_TOKEN,
  WM_MSG_WINDOW_STATE,
  WM_MSG_TASK_FRAGMENT,
  WM_MSG_COPY, /* any other field: copied as is */
  WM_MSG_DROP, /* a pruned field */
} wm_msg;

/* Appends message `msg` of kind `kind`, pruned, to out (reset first). */
int wm_prune(wm_msg kind, proto_span msg, base_buf *out);

#endif
