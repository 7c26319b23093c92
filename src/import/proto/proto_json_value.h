/* proto_json_value: a DebugAnnotation's legacy_json_value expanded into
 * args, as Perfetto's trace processor does.
 *
 * The text's first JSON value (trailing commas accepted, anything after it
 * ignored) is walked under the annotation's key: object members as
 * "key.member", array elements as "key[i]" (i counts the elements other
 * than null, empty containers included), strings, booleans, and numbers (int when integral and within
 * int64, else real) as leaves; null and empty containers add nothing, nor
 * does a bare number at the top. Malformed text keeps what was read before
 * the error. Nesting is bounded by PROTO_JSON_VALUE_MAX_DEPTH. */
#ifndef WEFT_PROTO_JSON_VALUE_H
#define WEFT_PROTO_JSON_VALUE_H

#include "model/context.h"

#define PROTO_JSON_VALUE_MAX_DEPTH 32

/* Adds the args of `json` under key[0, len) (key has room for cap bytes;
 * restored on return); *added: 1 if any arg was added. */
int proto_json_value_args(trace_context *ctx, char *key, size_t len, size_t cap,
                          const char *json, size_t json_len, int *added);

#endif
