/* proto_args: the args of a TrackEvent, derived the way Perfetto's trace
 * processor derives them, into the model's pending args (model_arg_*; the
 * caller commits them to an arg set).
 *
 * In Perfetto's order: the fields handled on their own, then the reflected
 * ones in wire order, then the debug annotations in wire order.
 *
 *   - debug annotations, under "debug.<name>": scalars, interned strings,
 *     pointers, dict entries ("a.b"), arrays ("a[0]"), nested values, and
 *     proto values decoded with the schema. Names have '.', '[' and ']'
 *     replaced by '_'.
 *   - task_execution: "task.posted_from.{file_name,function_name,
 *     line_number}" from the interned source location.
 *   - source_location_iid: "source.{file_name,function_name,line_number}",
 *     besides the plain reflected field.
 *   - log_message: "track_event.log_message.message" from the interned
 *     body, the source location under "track_event.log_message", the
 *     priority as "track_event.priority"; the message is also a log entry
 *     (model/logs.h) of the event's thread at the event's time.
 *   - chrome_histogram_sample's name_iid: "chrome_histogram_sample.name".
 *   - every other typed field of TrackEvent and every extension (Chrome's
 *     ChromeTrackEvent) by reflection over the embedded schema
 *     (proto_descriptor.h): "field.sub_field", "repeated[i]", enum values by
 *     name, an empty message as a NULL arg; a nested "*_location_iid" field
 *     expands to its interned source location under the parent's key.
 *
 * Bounded: keys longer than PROTO_ARGS_MAX_KEY bytes and messages nested
 * deeper than PROTO_ARGS_MAX_DEPTH are skipped. Malformed bytes are never
 * fatal; what cannot be read adds nothing. */
#ifndef WEFT_PROTO_ARGS_H
#define WEFT_PROTO_ARGS_H

#include "import/importer.h"
#include "import/proto/proto_import.h"

#define PROTO_ARGS_MAX_KEY 1024
#define PROTO_ARGS_MAX_DEPTH 32
#define PROTO_LOG_PRIO_INFO 4 /* AndroidLogPriority PRIO_INFO */

/* 1 for the TrackEvent fields args come from: debug annotations, the
 * typed fields and extensions. */
int proto_args_field(uint32_t number);

/* Adds the args of TrackEvent `event`, a packet of `info`'s sequence, at
 * trace time ts on thread utid (-1: none). */
int proto_args_track_event(import_file *f, const proto_packet_info *info, proto_span event,
                           int64_t ts, int64_t utid);

/* Adds every known field of message `bytes` of type `type_name` (fully
 * qualified: ".perfetto.protos.AndroidKeyEvent") by the same reflection,
 * keys from the root ("pointer[0].axis_value[1].value"); an empty message is
 * a NULL arg keyed ""; nothing when the schema lacks the type. */
int proto_args_message(import_file *f, const proto_packet_info *info, const char *type_name,
                       proto_span bytes);
/* The same for only the n top-level fields numbered in `only` (NULL: all);
 * with a filter, an empty message adds nothing. */
int proto_args_message_fields(import_file *f, const proto_packet_info *info,
                              const char *type_name, proto_span bytes, const uint32_t *only,
                              size_t n);

#endif
