/* proto_android_lists: the Android probes that list what a device has —
 * its users (AndroidUserList, TracePacket field 123) and its games'
 * interventions (AndroidGameInterventionList, field 83) — into
 * model/android_fw.h's tables.
 *
 * Rules:
 *  - users: each UserInfo with a uid is a row (uid as android_user_id, type
 *    NULL when absent) unless that uid has one already, in this or an
 *    earlier packet: the first type seen stays. A user without a uid is
 *    dropped. The list's error field is not read (Perfetto counts no stat
 *    for it).
 *  - games: each GamePackageInfo is a row, in every packet (no dedup):
 *    absent name NULL, absent uid and current_mode 0. Each GameModeInfo of
 *    mode 1 (standard), 2 (performance) or 3 (battery) marks that mode
 *    supported with its resolution_downscale, use_angle and fps (absent: 0);
 *    a later info of the same mode overwrites an earlier one; other modes
 *    are ignored. An unsupported mode's columns are NULL. parse_error and
 *    read_error are not read (no stat, as in Perfetto). */
#ifndef WEFT_PROTO_ANDROID_LISTS_H
#define WEFT_PROTO_ANDROID_LISTS_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TRACE_PACKET_GAME_INTERVENTION_LIST 83
#define PROTO_TRACE_PACKET_USER_LIST 123

int proto_android_user_list(import_file *f, proto_span msg);
int proto_android_game_intervention_list(import_file *f, proto_span msg);

#endif
