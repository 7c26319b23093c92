/* proto_winscope_wm: the WindowManager winscope packets
 * (WinscopeExtensions.windowmanager, a WindowManagerTraceEntry).
 *
 * Rules:
 *  - each entry is a __intrinsic_windowmanager row (android_windowmanager)
 *    at the packet's time with focused_display_id (absent 0),
 *    has_invalid_elapsed_ts when elapsed_realtime_nanos is absent or 0, and
 *    as args and base64 the entry without the service's
 *    root_window_container (an emptied message is one NULL arg);
 *  - its window containers, depth first from the root, are rows of
 *    __intrinsic_windowmanager_windowcontainer: token and title, the
 *    parent's token and the index among the parent's children (none for the
 *    root), visibility and container_type by the child's kind (the first
 *    present of window_container, display_content, display_area, task,
 *    activity, window_token, window, task_fragment):
 *     - RootWindowContainer: its window_container's identifier;
 *     - WindowContainer, TaskFragment: the container's identifier;
 *     - DisplayContent: token of root_display_area's container, title
 *       display_info.name (both required), a display rect (0, 0,
 *       logical_width, logical_height; group the display id, depth 0, not
 *       visible, no opacity); later windows are on this display, depth 1 up;
 *     - DisplayArea: its container's token, title its name (required);
 *     - Task: the identifier of task_fragment's container when it has one,
 *       else of the task's container; children from task_fragment's
 *       container when it has children, else the task's; name_override
 *       "<id>" or "<id>(<task_name>)" when it has an id;
 *     - Activity: token window_token.hash_code, title its name (required),
 *       visible from the activity;
 *     - WindowToken: token hash_code (required), title "0x" and its hex;
 *     - WindowState: its container's identifier, visible is_visible, a
 *       window rect on window_frames.frame (the current display, the next
 *       depth, visible as the window, opacity attributes.alpha);
 *       name_override the title without a "Starting " or
 *       "Waiting For Debugger: " prefix.
 *    An identifier needs hash_code and title. A missing required field, a
 *    child of no known kind or a tree nested deeper than WM_MAX_DEPTH
 *    counts winscope_windowmanager_parse_errors and leaves the snapshot
 *    without containers. The display and depth carry over to the next
 *    snapshot. Each container's args and base64 are its message without
 *    children (proto_winscope_wm_prune.h: the root as a
 *    RootWindowContainerProto, the others as WindowContainerChildProto);
 *    its rects are new rows every time, all with one identity transform
 *    (dsdx 1, dtdy 1) per trace file.
 * Malformed bytes add what could be read. */
#ifndef WEFT_PROTO_WINSCOPE_WM_H
#define WEFT_PROTO_WINSCOPE_WM_H

#include "import/importer.h"
#include "import/proto/proto_import.h"

/* Past this many nested containers a snapshot counts as malformed (real
 * trees nest a few tens deep). */
#define WM_MAX_DEPTH 256

typedef struct proto_wm_state proto_wm_state;

/* A WindowManagerTraceEntry of packet `info` at ts; *state is created on
 * first use. */
int proto_wm_parse(import_file *f, proto_wm_state **state, const proto_packet_info *info,
                   int64_t ts, proto_span msg);
void proto_wm_free(proto_wm_state *s);

#endif
