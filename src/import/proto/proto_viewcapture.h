/* proto_viewcapture: ViewCapture snapshots (WinscopeExtensions field 4).
 *
 * Rules:
 *  - a snapshot is an __intrinsic_viewcapture row at the packet's time with
 *    its package and window names de-interned (InternedData 38, 39 of the
 *    packet's sequence; NULL when unknown) and its message in base64;
 *  - each view (field 3) is an __intrinsic_viewcapture_view row of that
 *    snapshot: node_id (id), hashcode, parent_id (as an unsigned 32-bit
 *    value; absent 0), view_id and class_name de-interned (InternedData 40,
 *    41), its message in base64;
 *  - args: the fields by reflection (ViewCapture / ViewCapture.View in
 *    protos/winscope.proto; views are not args of the snapshot); an interned
 *    field X_iid becomes the arg X holding its string in its place (content
 *    description and text from InternedData 45, 46); an unknown one adds
 *    X = "STRING DE-INTERNING ERROR" before X_iid and counts
 *    winscope_viewcapture_missing_interned_string_parse_errors. */
#ifndef WEFT_PROTO_VIEWCAPTURE_H
#define WEFT_PROTO_VIEWCAPTURE_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

struct proto_packet_info;

/* The proto_intern_kind of InternedData field `number`, or 0. */
int proto_viewcapture_intern_kind(uint32_t number);
int proto_viewcapture(import_file *f, const struct proto_packet_info *info, int64_t ts,
                      proto_span msg);

#endif
