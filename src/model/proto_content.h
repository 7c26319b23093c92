/* proto_content: Perfetto's proto content analysis, as far as weft does
 * it — the root rows of experimental_proto_path that carry the annotations
 * of TrackEvent packets.
 *
 * Rules (Perfetto's): every TrackEvent that has a type or a legacy phase is
 * annotated with its category (the joined list, as the slice's) and its
 * name (interned or inline, before any translation); packets with the same
 * annotations share one path tree whose root row ("TracePacket", no parent)
 * holds them as the args event.category and event.name (string args, NULL
 * when the event has none). Roots are written at the end of the file, in
 * the order their annotations were first seen.
 *
 * Not done: the per-field size breakdown (the non-root rows of
 * experimental_proto_path and the experimental_proto_content table), and the
 * root of unannotated packets. */
#ifndef WEFT_MODEL_PROTO_CONTENT_H
#define WEFT_MODEL_PROTO_CONTENT_H

#include "base/base.h"

typedef struct trace_context trace_context;
typedef struct proto_content_state proto_content_state;

void proto_content_state_free(proto_content_state *s);

/* Notes a TrackEvent's annotations (STRING_NULL for none). */
int proto_content_annotate(trace_context *ctx, string_id category, string_id name);

/* Writes the root rows (and their args) of the annotations noted so far. */
int proto_content_flush(trace_context *ctx);

#endif
