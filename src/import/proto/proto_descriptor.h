/* proto_descriptor: a read-only pool of protobuf message and enum
 * descriptors, built from a serialized FileDescriptorSet (the output of
 * `protoc --descriptor_set_out`), for decoding messages by reflection
 * (proto_args.h).
 *
 * Owns its tables. A message's fields, its extensions included (an
 * `extend` block adds its fields to the extendee), are sorted by number, so
 * a field is found by binary search; an enum's values likewise. Names are
 * fully qualified with a leading dot, as protoc writes type references
 * (".perfetto.protos.TrackEvent"). Invariants: every field of message or
 * enum type refers to an index in the pool (references protoc left
 * unresolved drop the field); the pool never changes once built.
 *
 * proto_descriptor_builtin() is the pool of weft's embedded schema
 * (protos/track_event_args.proto and protos/winscope.proto), built once per
 * process on first use and shared by every thread (read-only); NULL if it
 * could not be built. */
#ifndef WEFT_PROTO_DESCRIPTOR_H
#define WEFT_PROTO_DESCRIPTOR_H

#include <stddef.h>
#include <stdint.h>

/* FieldDescriptorProto.Type values used by the decoder. */
enum proto_desc_type {
  PROTO_DESC_DOUBLE = 1,
  PROTO_DESC_FLOAT = 2,
  PROTO_DESC_INT64 = 3,
  PROTO_DESC_UINT64 = 4,
  PROTO_DESC_INT32 = 5,
  PROTO_DESC_FIXED64 = 6,
  PROTO_DESC_FIXED32 = 7,
  PROTO_DESC_BOOL = 8,
  PROTO_DESC_STRING = 9,
  PROTO_DESC_GROUP = 10,
  PROTO_DESC_MESSAGE = 11,
  PROTO_DESC_BYTES = 12,
  PROTO_DESC_UINT32 = 13,
  PROTO_DESC_ENUM = 14,
  PROTO_DESC_SFIXED32 = 15,
  PROTO_DESC_SFIXED64 = 16,
  PROTO_DESC_SINT32 = 17,
  PROTO_DESC_SINT64 = 18,
};

typedef struct proto_desc_field {
  uint32_t number;
  uint32_t name;      /* offset into the pool's names */
  int32_t ref;        /* message or enum index for MESSAGE/GROUP/ENUM, else -1 */
  uint8_t type;       /* enum proto_desc_type */
  uint8_t repeated;
  uint8_t extension;
} proto_desc_field;

typedef struct proto_desc_message {
  uint32_t name;                 /* full name, offset into names */
  uint32_t first_field, n_fields; /* into fields, sorted by number */
} proto_desc_message;

typedef struct proto_desc_enum_value {
  int32_t number;
  uint32_t name;
} proto_desc_enum_value;

typedef struct proto_desc_enum {
  uint32_t name;
  uint32_t first_value, n_values; /* into values, sorted by number */
} proto_desc_enum;

typedef struct proto_descriptor_pool proto_descriptor_pool;

/* Builds a pool from a FileDescriptorSet; NULL when out of memory or
 * malformed. */
proto_descriptor_pool *proto_descriptor_pool_build(const uint8_t *set, size_t len);
void proto_descriptor_pool_free(proto_descriptor_pool *pool);

const proto_descriptor_pool *proto_descriptor_builtin(void);

/* The index of the message named `name` (with or without the leading
 * dot), or -1. */
int32_t proto_descriptor_find_message(const proto_descriptor_pool *pool, const char *name,
                                      size_t len);
const proto_desc_message *proto_descriptor_message(const proto_descriptor_pool *pool,
                                                   int32_t index);
/* The field of message `msg` numbered `number`, or NULL. */
const proto_desc_field *proto_descriptor_field(const proto_descriptor_pool *pool,
                                               const proto_desc_message *msg,
                                               uint32_t number);
/* A field's name (NUL-terminated, owned by the pool). */
const char *proto_descriptor_name(const proto_descriptor_pool *pool, uint32_t name);
/* The name of value `number` of enum `index`, or NULL. */
const char *proto_descriptor_enum_name(const proto_descriptor_pool *pool, int32_t index,
                                       int32_t number);

#endif
