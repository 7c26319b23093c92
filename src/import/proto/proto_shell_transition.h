/* proto_shell_transition: ShellTransition messages (TracePacket field 96)
 * merged into one row per transition id of
 * __intrinsic_window_manager_shell_transitions (model/shell_transition.h),
 * and their changes as participants.
 *
 * Rules:
 *  - a message's id (absent: 0) picks its transition, rows made in order of
 *    first appearance; each scalar field the message gives overwrites the
 *    row's column (ts, status, duration_ns recomputed, see the model);
 *  - args: each message's fields by reflection (ShellTransition in
 *    protos/winscope.proto), merged into the transition's set: a key it
 *    has takes the new value in place, new keys follow (a later message's
 *    changes start again at changes[0]);
 *  - each change (field 14) of each message is a participants row: layer_id,
 *    window_id, mode, flags, start/end display id and rotation, and the
 *    start/end absolute bounds as __intrinsic_winscope_rect rows (x left,
 *    y top, w right - left, h bottom - top; absent sides 0), one row per
 *    distinct rectangle. */
#ifndef WEFT_PROTO_SHELL_TRANSITION_H
#define WEFT_PROTO_SHELL_TRANSITION_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

struct proto_packet_info;
typedef struct proto_shell_state proto_shell_state;

int proto_shell_transition(import_file *f, proto_shell_state **state,
                           const struct proto_packet_info *info, proto_span msg);
void proto_shell_state_free(proto_shell_state *s);

#endif
