/* ftrace_desc: the ftrace events weft knows by name and field layout.
 *
 * One entry per FtraceEvent oneof member weft decodes into the raw
 * ftrace_event table: the event's field number in FtraceEvent, its name (the
 * ftrace event name, also the `name` column) and its fields in field-number
 * order (field n is fields[n - 1]; numbers are contiguous from 1), each with
 * the arg type Perfetto gives it (signed ints, unsigned ints, strings).
 * Owns only static tables; lookups never fail on bad input (NULL). */
#ifndef WEFT_MODEL_FTRACE_DESC_H
#define WEFT_MODEL_FTRACE_DESC_H

#include <stddef.h>
#include <stdint.h>

typedef enum ftrace_field_type {
  FTRACE_FIELD_INT = 1,  /* int32/int64/enum/bool: arg type 'int' */
  FTRACE_FIELD_UINT,     /* uint32/uint64: arg type 'uint' */
  FTRACE_FIELD_STR       /* string/bytes: arg type 'string' */
} ftrace_field_type;

typedef struct ftrace_field_desc {
  const char *name;
  uint8_t type; /* ftrace_field_type */
} ftrace_field_desc;

typedef struct ftrace_event_desc {
  uint32_t id;          /* field number in FtraceEvent */
  const char *name;
  const ftrace_field_desc *fields;
  uint32_t field_count; /* fields are numbered 1..field_count */
} ftrace_event_desc;

/* NULL when the event is not described. */
const ftrace_event_desc *ftrace_desc_by_id(uint32_t id);
const ftrace_event_desc *ftrace_desc_by_name(const char *name, size_t len);
/* The field with this name, or NULL; *number receives its field number. */
const ftrace_field_desc *ftrace_desc_field(const ftrace_event_desc *d,
                                           const char *name, size_t len,
                                           uint32_t *number);

#endif
