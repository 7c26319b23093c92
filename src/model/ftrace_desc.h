/* ftrace_desc: the ftrace events weft knows by name and field layout.
 *
 * One entry per FtraceEvent oneof member: the event's field number in
 * FtraceEvent, its name (the ftrace event name, also the raw table's `name`
 * column) and its fields as a spec string: space-separated tokens, token n
 * describing field number n, each "name:t" with t the arg type Perfetto gives
 * the field ('i' signed ints, enums and bools: arg type 'int'; 'u' unsigned
 * ints: 'uint'; 's' strings and bytes: 'string'), or "-" for a number the
 * message does not use. Every FtraceEvent Perfetto describes gets a raw
 * ftrace_event row with these args.
 * Owns only static tables; lookups never fail on bad input (NULL / 0). */
#ifndef WEFT_MODEL_FTRACE_DESC_H
#define WEFT_MODEL_FTRACE_DESC_H

#include <stddef.h>
#include <stdint.h>

typedef enum ftrace_field_type {
  FTRACE_FIELD_INT = 1,  /* int32/int64/enum/bool: arg type 'int' */
  FTRACE_FIELD_UINT,     /* uint32/uint64: arg type 'uint' */
  FTRACE_FIELD_STR       /* string/bytes: arg type 'string' */
} ftrace_field_type;

/* A field of an event: its name (not NUL-terminated) and type. */
typedef struct ftrace_field_desc {
  const char *name;
  size_t name_len;
  uint8_t type; /* ftrace_field_type */
} ftrace_field_desc;

typedef struct ftrace_event_desc {
  uint32_t id;       /* field number in FtraceEvent */
  const char *name;
  const char *spec;  /* the fields, see above */
} ftrace_event_desc;

/* The table, sorted by id (ftrace_desc_table.c). */
extern const ftrace_event_desc ftrace_desc_events[];
extern const size_t ftrace_desc_event_count;

/* NULL when the event is not described. */
const ftrace_event_desc *ftrace_desc_by_id(uint32_t id);
const ftrace_event_desc *ftrace_desc_by_name(const char *name, size_t len);
/* Field `number` of d: 1 and *out filled, or 0 when d has no such field. */
int ftrace_desc_field_at(const ftrace_event_desc *d, uint32_t number,
                         ftrace_field_desc *out);
/* A position in an event's fields, for reading them in increasing number
 * order in one pass (ftrace_desc_field_seek); zero-initialize to start. */
typedef struct ftrace_desc_cursor {
  const char *next; /* the spec after field `number` (NULL: at the start) */
  uint32_t number;
} ftrace_desc_cursor;
/* ftrace_desc_field_at, resuming from *c when number is past it. */
int ftrace_desc_field_seek(const ftrace_event_desc *d, ftrace_desc_cursor *c,
                           uint32_t number, ftrace_field_desc *out);
/* The field with this name: its number, or 0 when there is none; *out (if
 * not NULL) receives its description. */
uint32_t ftrace_desc_field_named(const ftrace_event_desc *d, const char *name,
                                 size_t len, ftrace_field_desc *out);

#endif
