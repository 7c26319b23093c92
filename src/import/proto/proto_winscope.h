/* proto_winscope: Android input tracing and the winscope data sources, each
 * a TracePacket field whose message becomes one row of its table with the
 * message's fields as args (decoded by reflection over protos/winscope*.proto,
 * proto_args.h).
 *
 * Rules:
 *  - winscope_extensions.android_input_event (AndroidInputEvent): the first present of
 *    dispatcher_motion_event(_redacted), dispatcher_key_event(_redacted),
 *    dispatcher_window_dispatch_event(_redacted), in that order, is the
 *    packet's one event. A key or motion event is a row of
 *    __intrinsic_android_{key,motion}_events at the packet's time with its
 *    event_id, source, action, device_id, display_id (key_code for keys;
 *    absent fields read 0); besides its fields (an empty message: one NULL
 *    arg keyed ""), its args have kernel_time and down_time,
 *    event_time_nanos and down_time_nanos (CLOCK_MONOTONIC, 0 when absent)
 *    in trace time when they convert. A dispatch is a row of
 *    __intrinsic_android_input_event_dispatch with event_id, vsync_id and
 *    window_id. Every row keeps its message in base64 (base64_proto_id).
 *  - inputmethod_clients / _service / _manager_service (extensions 1-3): a
 *    row of __intrinsic_inputmethod_* at the packet's time with the
 *    message's fields as args and its base64.
 *  - shell_handler_mappings: a row of
 *    __intrinsic_window_manager_shell_transition_handlers per mapping (id,
 *    name; absent: 0, ""), each with the base64 of the whole message.
 *  - shell_transition: each message is a row of
 *    __intrinsic_window_manager_shell_transition_protos (its id, absent 0,
 *    and its base64).
 *  - protolog: each ProtoLogMessage is a protolog row at the packet's time;
 *    once loading ends (viewer configs may come after their messages) its
 *    message_id's config (last one wins; a different text counts
 *    winscope_protolog_message_collision, a group's different tag
 *    winscope_protolog_group_tag_collision) gives level (1-6 DEBUG,
 *    VERBOSE, INFO, WARN, ERROR, WTF, else UNKNOWN), location and the
 *    template, and its group the tag (absent: "UNKNOWN_GROUP", counted
 *    winscope_protolog_group_tag_missing). %d %o %x take the sint64
 *    params, %f %e %g the doubles, %b the booleans (true/false), %s the
 *    interned strings (unknown: "<ERROR>", counted), %% is '%', in order;
 *    a missing param reads "[MISSING_PARAM]"; each one, and a message's
 *    params left over, count winscope_protolog_param_mismatch; other % pairs stay. The interned
 *    stacktrace is the row's stacktrace (unknown: counted, and an
 *    "<ERROR>" string param follows the others).
 *    An unknown message_id leaves level/tag/message NULL and counts
 *    winscope_protolog_message_decoding_failed.
 * Malformed messages add what could be read. */
#ifndef WEFT_PROTO_WINSCOPE_H
#define WEFT_PROTO_WINSCOPE_H

#include "import/importer.h"
#include "import/proto/proto_import.h"

#define PROTO_TRACE_PACKET_SHELL_TRANSITION 96
#define PROTO_TRACE_PACKET_SHELL_HANDLER_MAPPINGS 97
#define PROTO_TRACE_PACKET_PROTOLOG_MESSAGE 104
#define PROTO_TRACE_PACKET_PROTOLOG_VIEWER_CONFIG 105
#define PROTO_TRACE_PACKET_WINSCOPE_EXTENSIONS 112 /* WinscopeExtensions */

typedef struct proto_winscope_state proto_winscope_state;

int proto_winscope_wants_field(uint32_t number);
/* One such TracePacket field of packet `info` at trace time ts. */
int proto_winscope_parse(import_file *f, const proto_packet_info *info, int64_t ts,
                         const proto_field *fl);

/* A protolog_message or protolog_viewer_config field (proto_protolog.c);
 * *state is created on first use. */
int proto_protolog_parse(import_file *f, proto_winscope_state **state,
                         const proto_packet_info *info, int64_t ts, const proto_field *fl);
/* Once parsing ends: writes the protolog messages' text. */
int proto_winscope_end(import_file *f, proto_winscope_state *s);
void proto_winscope_free(proto_winscope_state *s);
/* The string id of the base64 of msg. */
int proto_winscope_base64(import_file *f, proto_span msg, string_id *out);

#endif
