/* proto_config_text: the TraceConfig as protobuf text format (the
 * trace_config_pbtxt metadata key).
 *
 * Fields known to the built-in schema print by name ("duration_ms: 1000",
 * "buffers {" ... "}" with two-space indentation, enums by value name,
 * strings quoted and escaped, int64 fields signed); other fields print by
 * number. Lines are joined by '\n' without a trailing newline. Nesting is
 * bounded (PROTO_TEXT_MAX_DEPTH) and the output is capped
 * (PROTO_TEXT_MAX_BYTES, then truncated). */
#ifndef WEFT_PROTO_CONFIG_TEXT_H
#define WEFT_PROTO_CONFIG_TEXT_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"

#define PROTO_TEXT_MAX_DEPTH 16
#define PROTO_TEXT_MAX_BYTES (1u << 20)

/* Renders a TraceConfig into out (reset first). WEFT_OK or WEFT_ENOMEM. */
int proto_config_text(proto_span config, base_buf *out);
/* Sets the file's trace_config_pbtxt metadata. */
int proto_config_text_metadata(import_file *f, proto_span config);

#endif
