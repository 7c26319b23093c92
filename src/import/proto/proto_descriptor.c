/* proto_descriptor: see proto_descriptor.h. Built in two passes: the walk
 * records every message and enum under its full name and keeps each field's
 * FieldDescriptorProto bytes; the resolve pass then reads those fields,
 * attaches extensions to their extendee and resolves type names. */
#include "import/proto/proto_descriptor.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "import/proto/proto_wire.h"

/* descriptor.proto field numbers. */
enum {
  SET_FILE = 1,
  FILE_PACKAGE = 2, FILE_MESSAGE = 4, FILE_ENUM = 5, FILE_EXTENSION = 7,
  MSG_NAME = 1, MSG_FIELD = 2, MSG_NESTED = 3, MSG_ENUM = 4, MSG_EXTENSION = 6,
  FIELD_NAME = 1, FIELD_EXTENDEE = 2, FIELD_NUMBER = 3, FIELD_LABEL = 4,
  FIELD_TYPE = 5, FIELD_TYPE_NAME = 6,
  ENUM_NAME = 1, ENUM_VALUE = 2, VALUE_NAME = 1, VALUE_NUMBER = 2,
  LABEL_REPEATED = 3,
  MAX_SCOPE_DEPTH = 32,
};

#define PROTO_DESC_ENUM_BIT (UINT64_C(1) << 32)

/* A field as the walk found it: its owner (-1 for an extension) and bytes. */
typedef struct raw_field {
  int32_t owner;
  proto_span bytes;
} raw_field;

/* A resolved field with its owner, before sorting. */
typedef struct owned_field {
  int32_t owner;
  proto_desc_field f;
} owned_field;

struct proto_descriptor_pool {
  VEC(char) names;
  VEC(proto_desc_message) messages;
  VEC(proto_desc_enum) enums;
  VEC(proto_desc_field) fields;
  VEC(proto_desc_enum_value) values;
  base_map by_name; /* hash of a full name -> message index, or enum | bit */
  /* build state */
  VEC(raw_field) raw;
};

static int desc_add_name(proto_descriptor_pool *p, const char *s, size_t len, uint32_t *off) {
  if (p->names.len + len + 1 > UINT32_MAX) return WEFT_ELIMIT;
  if (VEC_RESERVE(p->names, p->names.len + len + 1)) return WEFT_ENOMEM;
  *off = (uint32_t)p->names.len;
  memcpy(p->names.data + p->names.len, s, len);
  p->names.data[p->names.len + len] = '\0';
  p->names.len += len + 1;
  return WEFT_OK;
}

/* The full name scope.name into *off, registered under its hash. */
static int desc_add_full_name(proto_descriptor_pool *p, const base_buf *scope, proto_span name,
                              uint64_t value, uint32_t *off) {
  base_buf full;
  base_buf_init(&full, 4096);
  int rc = base_buf_append(&full, scope->data ? scope->data : "", scope->len);
  if (!rc) rc = base_buf_append(&full, ".", 1);
  if (!rc) rc = base_buf_append(&full, name.data, name.len);
  if (!rc) rc = desc_add_name(p, full.data, full.len, off);
  uint64_t *slot;
  if (!rc && base_map_insert(&p->by_name, base_hash_bytes(full.data, full.len), value, &slot) < 0)
    rc = WEFT_ENOMEM;
  base_buf_free(&full);
  return rc;
}

static proto_span desc_string_field(proto_span msg, uint32_t number) {
  proto_reader r;
  proto_field fl;
  proto_span out = {NULL, 0};
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == number && fl.wire_type == PROTO_WIRE_LEN) out = fl.span;
  return out;
}

static int desc_walk_enum(proto_descriptor_pool *p, const base_buf *scope, proto_span msg) {
  proto_desc_enum e = {0, (uint32_t)p->values.len, 0};
  int rc = desc_add_full_name(p, scope, desc_string_field(msg, ENUM_NAME),
                              PROTO_DESC_ENUM_BIT | p->enums.len, &e.name);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != ENUM_VALUE || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_desc_enum_value v = {0, 0};
    proto_reader vr;
    proto_field vf;
    proto_reader_init_span(&vr, fl.span);
    while (proto_reader_next(&vr, &vf) == 1)
      if (vf.number == VALUE_NUMBER && vf.wire_type == PROTO_WIRE_VARINT)
        v.number = (int32_t)vf.value;
    proto_span name = desc_string_field(fl.span, VALUE_NAME);
    rc = desc_add_name(p, (const char *)name.data, name.len, &v.name);
    if (!rc && VEC_PUSH(p->values, v)) rc = WEFT_ENOMEM;
    if (!rc) e.n_values++;
  }
  if (!rc && VEC_PUSH(p->enums, e)) rc = WEFT_ENOMEM;
  return rc;
}

static int desc_walk_message(proto_descriptor_pool *p, base_buf *scope, proto_span msg,
                             int depth);

/* The members of a message or file: fields (owner >= 0), nested messages,
 * enums and extensions, read with the given field numbers. */
static int desc_walk_members(proto_descriptor_pool *p, base_buf *scope, proto_span msg,
                             int32_t owner, int depth) {
  int is_file = owner < 0;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, msg);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    uint32_t n = fl.number;
    if (!is_file && n == MSG_FIELD) {
      raw_field rf = {owner, fl.span};
      if (VEC_PUSH(p->raw, rf)) rc = WEFT_ENOMEM;
    } else if ((is_file && n == FILE_EXTENSION) || (!is_file && n == MSG_EXTENSION)) {
      raw_field rf = {-1, fl.span};
      if (VEC_PUSH(p->raw, rf)) rc = WEFT_ENOMEM;
    } else if ((is_file && n == FILE_MESSAGE) || (!is_file && n == MSG_NESTED)) {
      rc = desc_walk_message(p, scope, fl.span, depth + 1);
    } else if ((is_file && n == FILE_ENUM) || (!is_file && n == MSG_ENUM)) {
      rc = desc_walk_enum(p, scope, fl.span);
    }
  }
  return rc;
}

static int desc_walk_message(proto_descriptor_pool *p, base_buf *scope, proto_span msg,
                             int depth) {
  if (depth > MAX_SCOPE_DEPTH) return WEFT_ELIMIT;
  proto_span name = desc_string_field(msg, MSG_NAME);
  int32_t index = (int32_t)p->messages.len;
  proto_desc_message m = {0, 0, 0};
  int rc = desc_add_full_name(p, scope, name, (uint64_t)index, &m.name);
  if (!rc && VEC_PUSH(p->messages, m)) rc = WEFT_ENOMEM;
  size_t saved = scope->len;
  if (!rc) rc = base_buf_append(scope, ".", 1);
  if (!rc) rc = base_buf_append(scope, name.data, name.len);
  if (!rc) rc = desc_walk_members(p, scope, msg, index, depth);
  scope->len = saved;
  if (scope->data) scope->data[saved] = '\0';
  return rc;
}

static int desc_walk_set(proto_descriptor_pool *p, const uint8_t *set, size_t len) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init(&r, set, len);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != SET_FILE || fl.wire_type != PROTO_WIRE_LEN) continue;
    base_buf scope;
    base_buf_init(&scope, 4096);
    proto_span package = desc_string_field(fl.span, FILE_PACKAGE);
    if (package.len) {
      rc = base_buf_append(&scope, ".", 1);
      if (!rc) rc = base_buf_append(&scope, package.data, package.len);
    }
    if (!rc) rc = desc_walk_members(p, &scope, fl.span, -1, 0);
    base_buf_free(&scope);
  }
  return rc ? rc : r.status;
}

/* The index registered for a full name (leading dot included), or -1. */
static int64_t desc_lookup(const proto_descriptor_pool *p, const char *name, size_t len) {
  const uint64_t *v = base_map_find(&p->by_name, base_hash_bytes(name, len));
  return v ? (int64_t)*v : -1;
}

/* Reads one raw field; 1 if it is kept in *out, 0 if dropped. */
static int desc_resolve_field(proto_descriptor_pool *p, const raw_field *rf, owned_field *out,
                              int *rc) {
  proto_reader r;
  proto_field fl;
  proto_span name = {NULL, 0}, type_name = {NULL, 0}, extendee = {NULL, 0};
  memset(out, 0, sizeof *out);
  out->owner = rf->owner;
  out->f.ref = -1;
  proto_reader_init_span(&r, rf->bytes);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == FIELD_NAME && len) name = fl.span;
    else if (fl.number == FIELD_EXTENDEE && len) extendee = fl.span;
    else if (fl.number == FIELD_TYPE_NAME && len) type_name = fl.span;
    else if (fl.number == FIELD_NUMBER && !len) out->f.number = (uint32_t)fl.value;
    else if (fl.number == FIELD_LABEL && !len) out->f.repeated = fl.value == LABEL_REPEATED;
    else if (fl.number == FIELD_TYPE && !len) out->f.type = (uint8_t)fl.value;
  }
  if (rf->owner < 0) {
    int64_t owner = desc_lookup(p, (const char *)extendee.data, extendee.len);
    if (owner < 0 || owner >= (int64_t)PROTO_DESC_ENUM_BIT) return 0;
    out->owner = (int32_t)owner;
    out->f.extension = 1;
  }
  uint8_t t = out->f.type;
  if (t == PROTO_DESC_MESSAGE || t == PROTO_DESC_GROUP || t == PROTO_DESC_ENUM) {
    int64_t ref = desc_lookup(p, (const char *)type_name.data, type_name.len);
    int is_enum = ref >= (int64_t)PROTO_DESC_ENUM_BIT;
    if (ref < 0 || is_enum != (t == PROTO_DESC_ENUM)) return 0;
    out->f.ref = (int32_t)(ref & 0x7fffffff);
  }
  *rc = desc_add_name(p, (const char *)name.data, name.len, &out->f.name);
  return *rc == WEFT_OK;
}

static int desc_cmp_owned(const void *a, const void *b) {
  const owned_field *x = a, *y = b;
  if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
  return x->f.number < y->f.number ? -1 : x->f.number > y->f.number;
}

static int desc_cmp_values(const void *a, const void *b) {
  const proto_desc_enum_value *x = a, *y = b;
  return x->number < y->number ? -1 : x->number > y->number;
}

static int desc_resolve(proto_descriptor_pool *p) {
  VEC(owned_field) owned = {NULL, 0, 0};
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < p->raw.len; i++) {
    owned_field of;
    if (desc_resolve_field(p, &p->raw.data[i], &of, &rc) && VEC_PUSH(owned, of)) rc = WEFT_ENOMEM;
  }
  if (!rc && owned.len) qsort(owned.data, owned.len, sizeof *owned.data, desc_cmp_owned);
  if (!rc && VEC_RESERVE(p->fields, owned.len)) rc = WEFT_ENOMEM;
  for (size_t i = 0; !rc && i < owned.len; i++) {
    proto_desc_message *m = &p->messages.data[owned.data[i].owner];
    if (m->n_fields == 0) m->first_field = (uint32_t)p->fields.len;
    m->n_fields++;
    p->fields.data[p->fields.len++] = owned.data[i].f;
  }
  for (size_t i = 0; !rc && i < p->enums.len; i++) {
    proto_desc_enum *e = &p->enums.data[i];
    if (e->n_values)
      qsort(p->values.data + e->first_value, e->n_values, sizeof *p->values.data,
            desc_cmp_values);
  }
  VEC_FREE(owned);
  return rc;
}

proto_descriptor_pool *proto_descriptor_pool_build(const uint8_t *set, size_t len) {
  proto_descriptor_pool *p = base_calloc(1, sizeof *p);
  if (!p) return NULL;
  int rc = desc_walk_set(p, set, len);
  if (!rc) rc = desc_resolve(p);
  VEC_FREE(p->raw);
  if (rc) {
    proto_descriptor_pool_free(p);
    return NULL;
  }
  return p;
}

void proto_descriptor_pool_free(proto_descriptor_pool *p) {
  if (!p) return;
  VEC_FREE(p->names);
  VEC_FREE(p->messages);
  VEC_FREE(p->enums);
  VEC_FREE(p->fields);
  VEC_FREE(p->values);
  VEC_FREE(p->raw);
  base_map_free(&p->by_name);
  base_free(p);
}

int32_t proto_descriptor_find_message(const proto_descriptor_pool *p, const char *name,
                                      size_t len) {
  int64_t v;
  if (len && name[0] == '.') {
    v = desc_lookup(p, name, len);
  } else {
    char buf[512];
    if (len + 1 > sizeof buf) return -1;
    buf[0] = '.';
    memcpy(buf + 1, name, len);
    v = desc_lookup(p, buf, len + 1);
  }
  if (v < 0 || v >= (int64_t)PROTO_DESC_ENUM_BIT) return -1;
  const proto_desc_message *m = &p->messages.data[v];
  /* A hash collision with another name is treated as not found. */
  const char *found = p->names.data + m->name;
  size_t skip = len && name[0] == '.' ? 0 : 1;
  if (strlen(found) != len + skip || memcmp(found + skip, name, len) != 0) return -1;
  return (int32_t)v;
}

const proto_desc_message *proto_descriptor_message(const proto_descriptor_pool *p,
                                                   int32_t index) {
  assert(index >= 0 && (size_t)index < p->messages.len);
  return &p->messages.data[index];
}

const proto_desc_field *proto_descriptor_field(const proto_descriptor_pool *p,
                                               const proto_desc_message *msg,
                                               uint32_t number) {
  const proto_desc_field *f = p->fields.data + msg->first_field;
  size_t lo = 0, hi = msg->n_fields;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (f[mid].number < number) lo = mid + 1;
    else hi = mid;
  }
  return lo < msg->n_fields && f[lo].number == number ? &f[lo] : NULL;
}

const char *proto_descriptor_name(const proto_descriptor_pool *p, uint32_t name) {
  assert(name < p->names.len);
  return p->names.data + name;
}

const char *proto_descriptor_enum_name(const proto_descriptor_pool *p, int32_t index,
                                       int32_t number) {
  if (index < 0 || (size_t)index >= p->enums.len) return NULL;
  const proto_desc_enum *e = &p->enums.data[index];
  const proto_desc_enum_value *v = p->values.data + e->first_value;
  size_t lo = 0, hi = e->n_values;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].number < number) lo = mid + 1;
    else hi = mid;
  }
  return lo < e->n_values && v[lo].number == number ? p->names.data + v[lo].name : NULL;
}

/* ---- the embedded schema ---- */

extern const uint8_t weft_track_event_args_descriptor[];
extern const size_t weft_track_event_args_descriptor_len;

static pthread_once_t desc_builtin_once = PTHREAD_ONCE_INIT;
static proto_descriptor_pool *desc_builtin;

static void desc_builtin_build(void) {
  desc_builtin = proto_descriptor_pool_build(weft_track_event_args_descriptor,
                                             weft_track_event_args_descriptor_len);
}

const proto_descriptor_pool *proto_descriptor_builtin(void) {
  pthread_once(&desc_builtin_once, desc_builtin_build);
  return desc_builtin;
}
