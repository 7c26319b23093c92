/* server: JSON text written into an rpc_buf (view.h). */
#ifndef WEFT_SERVER_VIEW_JSON_H
#define WEFT_SERVER_VIEW_JSON_H

#include <stdint.h>

#include "rpc_wire.h"
#include "weft/weft.h"

void view_json_add(rpc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A string literal, escaped (bytes that are not valid UTF-8 pass as is). */
void view_json_string(rpc_buf *b, const char *s, size_t len);
void view_json_cstr(rpc_buf *b, const char *s);
/* A query cell: number, string or null (blobs as null). */
void view_json_cell(rpc_buf *b, const weft_cell *c);
/* {"error": message}. */
void view_json_error(rpc_buf *b, const char *message);

#endif
