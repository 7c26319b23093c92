/* server: the protobuf wire format of the few TraceProcessor RPC messages
 * the server reads and writes (protos/perfetto/trace_processor/
 * trace_processor.proto): a growable byte buffer with a size cap, field
 * writers, and a bounds-checked field reader. */
#ifndef WEFT_SERVER_RPC_WIRE_H
#define WEFT_SERVER_RPC_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum {
  RPC_WIRE_VARINT = 0,
  RPC_WIRE_FIXED64 = 1,
  RPC_WIRE_BYTES = 2,
  RPC_WIRE_FIXED32 = 5
};

/* Bytes being written. An append that would pass `cap` (0 = no cap) or
 * cannot allocate sets `failed` and leaves the contents as they were. */
typedef struct rpc_buf {
  uint8_t *data;
  size_t len;
  size_t alloc;
  size_t cap;
  int failed;
} rpc_buf;

void rpc_buf_free(rpc_buf *b);
void rpc_buf_append(rpc_buf *b, const void *data, size_t len);
void rpc_buf_varint(rpc_buf *b, uint64_t v);
/* The bytes of a varint of v. */
size_t rpc_varint_size(uint64_t v);
void rpc_buf_tag(rpc_buf *b, uint32_t field, int wire_type);
void rpc_buf_field_varint(rpc_buf *b, uint32_t field, uint64_t v);
void rpc_buf_field_bytes(rpc_buf *b, uint32_t field, const void *data, size_t len);
void rpc_buf_field_string(rpc_buf *b, uint32_t field, const char *s);
void rpc_buf_field_double(rpc_buf *b, uint32_t field, double v);

/* One field read from a message. */
typedef struct rpc_field {
  uint32_t number;
  int wire_type;
  uint64_t value;     /* VARINT, FIXED64, FIXED32 */
  const uint8_t *data; /* BYTES */
  size_t len;          /* BYTES */
} rpc_field;

/* Reads the field at *pos of data[0..len): 1 and *pos moved past it, 0 at
 * the end, -1 on malformed input (truncated, bad tag, group wire types,
 * field number 0). */
int rpc_wire_next(const uint8_t *data, size_t len, size_t *pos, rpc_field *out);

#endif
