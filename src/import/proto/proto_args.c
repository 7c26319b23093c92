/* proto_args: see proto_args.h. A key is built in place in a fixed buffer:
 * each level appends ".name" or "[i]" and restores the length on return. */
#include "import/proto/proto_args.h"
#include "import/proto/proto_args_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "model/context.h"
#include "import/proto/proto_descriptor.h"
#include "import/proto/proto_fields.h"
#include "import/proto/proto_json_value.h"
#include "model/logs.h"
#include "model/model.h"

/* DebugAnnotation.NestedValue fields. */
enum {
  NESTED_TYPE = 1, NESTED_DICT_KEYS = 2, NESTED_DICT_VALUES = 3, NESTED_ARRAY_VALUES = 4,
  NESTED_INT = 5, NESTED_DOUBLE = 6, NESTED_BOOL = 7, NESTED_STRING = 8,
  NESTED_DICT = 1, NESTED_ARRAY = 2,
  TASK_EXECUTION_POSTED_FROM_IID = 1,
  LOG_MESSAGE_BODY_IID = 2,
  HISTOGRAM_SAMPLE_NAME = 2,
  HISTOGRAM_SAMPLE_NAME_IID = 4,
  MAX_REPEATED_COUNTERS = 32,
};


static string_id args_interned(const proto_args *a, int kind, uint64_t iid) {
  return proto_interned(a->st, a->info->seq, a->info->generation, kind, iid);
}

/* The interned SourceLocation `iid`; 0 if unknown. */
static int args_source_location(const proto_args *a, uint64_t iid, proto_span *out) {
  uint64_t key = proto_intern_key(a->info->seq, a->info->generation,
                                  PROTO_INTERN_SOURCE_LOCATION, iid);
  const uint64_t *index = base_map_find(&a->st->interned, key);
  if (!index || *index >= a->st->source_locations.len) return 0;
  *out = a->st->source_locations.data[*index];
  return 1;
}

/* The fields of an interned source location; 0 when the iid is unknown. */
typedef struct args_location {
  proto_span file, function;
  uint64_t line;
} args_location;

static int args_location_read(const proto_args *a, uint64_t iid, args_location *out) {
  proto_span loc;
  if (!args_source_location(a, iid, &loc)) return 0;
  out->file = out->function = (proto_span){(const uint8_t *)"", 0};
  out->line = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, loc);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    if (fl.number == PROTO_SOURCE_LOCATION_FILE_NAME && len) out->file = fl.span;
    else if (fl.number == PROTO_SOURCE_LOCATION_FUNCTION_NAME && len) out->function = fl.span;
    else if (fl.number == PROTO_SOURCE_LOCATION_LINE_NUMBER && !len)
      out->line = (uint32_t)fl.value;
  }
  return 1;
}

/* Adds "<key>.file_name", ".function_name" and ".line_number" of a source
 * location; `line_type` is the type the line number is stored as. */
static int args_location_add(proto_args *a, const args_location *loc, model_arg_type line_type) {
  size_t saved;
  int rc = WEFT_OK;
  if (args_enter(a, "file_name", 9, &saved)) rc = args_str(a, loc->file.data, loc->file.len);
  args_leave(a, saved);
  if (!rc && args_enter(a, "function_name", 13, &saved))
    rc = args_str(a, loc->function.data, loc->function.len);
  args_leave(a, saved);
  if (!rc && args_enter(a, "line_number", 11, &saved))
    rc = args_int(a, line_type, (int64_t)loc->line);
  args_leave(a, saved);
  return rc;
}

/* args_location_add of interned location `iid`; 0 when it is unknown. */
static int args_source_location_fields(proto_args *a, uint64_t iid, model_arg_type line_type,
                                       int *rc) {
  args_location loc;
  *rc = WEFT_OK;
  if (!args_location_read(a, iid, &loc)) return 0;
  *rc = args_location_add(a, &loc, line_type);
  return 1;
}

/* ---- debug annotations ---- */

static int args_message(proto_args *a, int32_t type, proto_span bytes);

/* The annotation's name (name_iid first), '.', '[' and ']' made '_';
 * 0 if it has none. */
static int args_debug_name(const proto_args *a, proto_span ann, char *out, size_t cap,
                           size_t *n) {
  proto_span name = {NULL, 0};
  uint64_t iid = 0;
  int has_name = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, ann);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_DEBUG_ANNOTATION_NAME_IID && fl.wire_type == PROTO_WIRE_VARINT)
      iid = fl.value;
    else if (fl.number == PROTO_DEBUG_ANNOTATION_NAME && fl.wire_type == PROTO_WIRE_LEN) {
      name = fl.span;
      has_name = 1;
    }
  }
  if (iid) {
    string_id s = args_interned(a, PROTO_INTERN_DEBUG_NAME, iid);
    if (s == STRING_NULL) return 0;
    trace_context *ctx = a->f->ctx;
    name.data = (const uint8_t *)base_string_pool_get(&ctx->strings, s);
    name.len = base_string_pool_len(&ctx->strings, s);
  } else if (!has_name) {
    return 0;
  }
  if (name.len >= cap) return 0;
  for (size_t i = 0; i < name.len; i++) {
    char c = (char)name.data[i];
    out[i] = c == '.' || c == '[' || c == ']' ? '_' : c;
  }
  *n = name.len;
  return 1;
}

static int args_nested_value(proto_args *a, proto_span v, int *added);

static int args_nested_dict(proto_args *a, proto_span v) {
  proto_reader kr, vr;
  proto_field kf, vf;
  proto_reader_init_span(&kr, v);
  proto_reader_init_span(&vr, v);
  for (;;) {
    int has_key = 0, has_val = 0;
    while (!has_key && proto_reader_next(&kr, &kf) == 1)
      has_key = kf.number == NESTED_DICT_KEYS && kf.wire_type == PROTO_WIRE_LEN;
    while (!has_val && proto_reader_next(&vr, &vf) == 1)
      has_val = vf.number == NESTED_DICT_VALUES && vf.wire_type == PROTO_WIRE_LEN;
    if (!has_key || !has_val) return WEFT_OK;
    char name[256];
    if (kf.span.len >= sizeof name) continue;
    for (size_t i = 0; i < kf.span.len; i++) {
      char c = (char)kf.span.data[i];
      name[i] = c == '.' || c == '[' || c == ']' ? '_' : c;
    }
    size_t saved;
    int added, rc = WEFT_OK;
    if (args_enter(a, name, kf.span.len, &saved)) rc = args_nested_value(a, vf.span, &added);
    args_leave(a, saved);
    if (rc) return rc;
  }
}

static int args_nested_array(proto_args *a, proto_span v, int *added) {
  uint32_t index = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, v);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != NESTED_ARRAY_VALUES || fl.wire_type != PROTO_WIRE_LEN) continue;
    size_t saved;
    int one = 0, rc = WEFT_OK;
    if (args_enter_index(a, index, &saved)) rc = args_nested_value(a, fl.span, &one);
    args_leave(a, saved);
    if (rc) return rc;
    if (one) index++, *added = 1;
  }
  return WEFT_OK;
}

/* A NestedValue: a leaf (int, double, bool, string, in that order), a
 * dict or an array. */
static int args_nested_value(proto_args *a, proto_span v, int *added) {
  proto_field f[NESTED_STRING + 1];
  int has[NESTED_STRING + 1] = {0};
  uint64_t type = 0;
  proto_reader r;
  proto_field fl;
  *added = 0;
  if (++a->depth > PROTO_ARGS_MAX_DEPTH) { a->depth--; return WEFT_OK; }
  proto_reader_init_span(&r, v);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == NESTED_TYPE && fl.wire_type == PROTO_WIRE_VARINT) type = fl.value;
    if (fl.number >= NESTED_INT && fl.number <= NESTED_STRING) f[fl.number] = fl, has[fl.number] = 1;
  }
  int rc = WEFT_OK;
  if (type == NESTED_DICT) {
    rc = args_nested_dict(a, v);
    *added = 1;
  } else if (type == NESTED_ARRAY) {
    rc = args_nested_array(a, v, added);
  } else if (has[NESTED_INT] && f[NESTED_INT].wire_type == PROTO_WIRE_VARINT) {
    rc = args_int(a, MODEL_ARG_INT, (int64_t)f[NESTED_INT].value), *added = 1;
  } else if (has[NESTED_DOUBLE] && f[NESTED_DOUBLE].wire_type == PROTO_WIRE_FIXED64) {
    rc = model_arg_real(a->f->ctx, a->key, a->len, proto_field_double(&f[NESTED_DOUBLE]));
    *added = 1;
  } else if (has[NESTED_BOOL] && f[NESTED_BOOL].wire_type == PROTO_WIRE_VARINT) {
    rc = args_int(a, MODEL_ARG_BOOL, f[NESTED_BOOL].value != 0), *added = 1;
  } else if (has[NESTED_STRING] && f[NESTED_STRING].wire_type == PROTO_WIRE_LEN) {
    rc = args_str(a, f[NESTED_STRING].span.data, f[NESTED_STRING].span.len), *added = 1;
  }
  a->depth--;
  return rc;
}

static int args_debug_value(proto_args *a, proto_span ann, int *added);

static int args_debug_dict(proto_args *a, proto_span ann, int *added) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, ann);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_DEBUG_ANNOTATION_DICT_ENTRIES || fl.wire_type != PROTO_WIRE_LEN)
      continue;
    char name[256];
    size_t n, saved;
    if (!args_debug_name(a, fl.span, name, sizeof name, &n)) return WEFT_OK; /* stops */
    int one = 0, rc = WEFT_OK;
    if (args_enter(a, name, n, &saved)) rc = args_debug_value(a, fl.span, &one);
    args_leave(a, saved);
    if (rc) return rc;
    *added |= one;
  }
  return WEFT_OK;
}

static int args_debug_array(proto_args *a, proto_span ann, int *added) {
  uint32_t index = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, ann);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_DEBUG_ANNOTATION_ARRAY_VALUES || fl.wire_type != PROTO_WIRE_LEN)
      continue;
    size_t saved;
    int one = 0, rc = WEFT_OK;
    if (args_enter_index(a, index, &saved)) rc = args_debug_value(a, fl.span, &one);
    args_leave(a, saved);
    if (rc) return rc;
    if (one) index++, *added = 1;
  }
  return WEFT_OK;
}

/* A proto_value decoded as its named type (proto_type_name or its iid). */
static int args_debug_proto(proto_args *a, proto_span value, const proto_field *name,
                            const proto_field *name_iid, int *added) {
  trace_context *ctx = a->f->ctx;
  const char *type = NULL;
  size_t type_len = 0;
  if (name && name->wire_type == PROTO_WIRE_LEN) {
    type = (const char *)name->span.data;
    type_len = name->span.len;
  } else if (name_iid) {
    string_id s = args_interned(a, PROTO_INTERN_DEBUG_TYPE_NAME, name_iid->value);
    if (s == STRING_NULL) return WEFT_OK;
    type = base_string_pool_get(&ctx->strings, s);
    type_len = base_string_pool_len(&ctx->strings, s);
  }
  if (!type || !a->pool) return WEFT_OK;
  int32_t index = proto_descriptor_find_message(a->pool, type, type_len);
  if (index < 0) return WEFT_OK;
  *added = 1;
  return args_message(a, index, value);
}

/* The annotation's value at the current key, by Perfetto's precedence:
 * bool, uint, int, double, string, interned string, pointer, dict entries,
 * array values, nested value, proto value. */
static int args_debug_value(proto_args *a, proto_span ann, int *added) {
  enum { N = PROTO_DEBUG_ANNOTATION_STRING_VALUE_IID + 1 };
  proto_field f[N];
  int has[N] = {0};
  proto_reader r;
  proto_field fl;
  *added = 0;
  if (++a->depth > PROTO_ARGS_MAX_DEPTH) { a->depth--; return WEFT_OK; }
  proto_reader_init_span(&r, ann);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number < N) f[fl.number] = fl, has[fl.number] = 1;
  int rc = WEFT_OK, v = PROTO_WIRE_VARINT, l = PROTO_WIRE_LEN;
#define ARGS_HAS(n, wire) (has[n] && f[n].wire_type == (wire))
  if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_BOOL_VALUE, v)) {
    rc = args_int(a, MODEL_ARG_BOOL, f[PROTO_DEBUG_ANNOTATION_BOOL_VALUE].value != 0);
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_UINT_VALUE, v)) {
    rc = args_int(a, MODEL_ARG_UINT, (int64_t)f[PROTO_DEBUG_ANNOTATION_UINT_VALUE].value);
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_INT_VALUE, v)) {
    rc = args_int(a, MODEL_ARG_INT, (int64_t)f[PROTO_DEBUG_ANNOTATION_INT_VALUE].value);
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_DOUBLE_VALUE, PROTO_WIRE_FIXED64)) {
    rc = model_arg_real(a->f->ctx, a->key, a->len,
                        proto_field_double(&f[PROTO_DEBUG_ANNOTATION_DOUBLE_VALUE]));
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_STRING_VALUE, l)) {
    proto_span s = f[PROTO_DEBUG_ANNOTATION_STRING_VALUE].span;
    rc = args_str(a, s.data, s.len);
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_STRING_VALUE_IID, v)) {
    string_id s = args_interned(a, PROTO_INTERN_DEBUG_STRING,
                                f[PROTO_DEBUG_ANNOTATION_STRING_VALUE_IID].value);
    if (s == STRING_NULL) { a->depth--; return WEFT_OK; }
    rc = args_str_id(a, s);
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_POINTER_VALUE, v)) {
    rc = args_int(a, MODEL_ARG_POINTER, (int64_t)f[PROTO_DEBUG_ANNOTATION_POINTER_VALUE].value);
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_DICT_ENTRIES, l)) {
    rc = args_debug_dict(a, ann, added);
    a->depth--;
    return rc;
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_ARRAY_VALUES, l)) {
    rc = args_debug_array(a, ann, added);
    a->depth--;
    return rc;
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_LEGACY_JSON_VALUE, l)) {
    proto_span s = f[PROTO_DEBUG_ANNOTATION_LEGACY_JSON_VALUE].span;
    rc = proto_json_value_args(a->f->ctx, a->key, a->len, sizeof a->key,
                               (const char *)s.data, s.len, added);
    a->depth--;
    return rc;
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_NESTED_VALUE, l)) {
    rc = args_nested_value(a, f[PROTO_DEBUG_ANNOTATION_NESTED_VALUE].span, added);
    a->depth--;
    return rc;
  } else if (ARGS_HAS(PROTO_DEBUG_ANNOTATION_PROTO_VALUE, l)) {
    int n = PROTO_DEBUG_ANNOTATION_PROTO_TYPE_NAME, ni = PROTO_DEBUG_ANNOTATION_PROTO_TYPE_NAME_IID;
    rc = args_debug_proto(a, f[PROTO_DEBUG_ANNOTATION_PROTO_VALUE].span, has[n] ? &f[n] : NULL,
                          ARGS_HAS(ni, v) ? &f[ni] : NULL, added);
    a->depth--;
    return rc;
  } else {
    a->depth--;
    return WEFT_OK;
  }
#undef ARGS_HAS
  *added = 1;
  a->depth--;
  return rc;
}

/* One DebugAnnotation at the current key plus its (sanitized) name. */
static int args_debug_annotation(proto_args *a, proto_span ann) {
  char name[256];
  size_t n, saved;
  if (!args_debug_name(a, ann, name, sizeof name, &n)) return WEFT_OK;
  int added, rc = WEFT_OK;
  if (args_enter(a, name, n, &saved)) rc = args_debug_value(a, ann, &added);
  args_leave(a, saved);
  return rc;
}

/* ---- reflection ---- */

static int args_scalar(proto_args *a, const proto_desc_field *d, const proto_field *fl);

/* A packed repeated scalar: each element is an entry of the array. */
static int args_packed(proto_args *a, const proto_desc_field *d, proto_span bytes,
                       uint32_t *index) {
  int fixed = 0;
  switch (d->type) {
    case PROTO_DESC_FIXED32: case PROTO_DESC_SFIXED32: case PROTO_DESC_FLOAT: fixed = 4; break;
    case PROTO_DESC_FIXED64: case PROTO_DESC_SFIXED64: case PROTO_DESC_DOUBLE: fixed = 8; break;
    case PROTO_DESC_STRING: case PROTO_DESC_BYTES: case PROTO_DESC_MESSAGE:
    case PROTO_DESC_GROUP: return WEFT_OK;
    default: break;
  }
  const uint8_t *p = bytes.data, *end = bytes.data + bytes.len;
  while (p < end) {
    proto_field el = {d->number, PROTO_WIRE_VARINT, 0, {NULL, 0}};
    if (fixed) {
      if ((size_t)(end - p) < (size_t)fixed) return WEFT_OK;
      el.wire_type = fixed == 4 ? PROTO_WIRE_FIXED32 : PROTO_WIRE_FIXED64;
      uint64_t v = 0;
      memcpy(&v, p, (size_t)fixed);
      el.value = v;
      p += fixed;
    } else {
      int n = proto_varint_decode(p, end, &el.value);
      if (n <= 0) return WEFT_OK;
      p += n;
    }
    size_t saved;
    int rc = WEFT_OK;
    if (args_enter_index(a, (*index)++, &saved)) rc = args_scalar(a, d, &el);
    args_leave(a, saved);
    if (rc) return rc;
  }
  return WEFT_OK;
}

static int args_scalar(proto_args *a, const proto_desc_field *d, const proto_field *fl) {
  int varint = fl->wire_type == PROTO_WIRE_VARINT, f32 = fl->wire_type == PROTO_WIRE_FIXED32;
  int f64 = fl->wire_type == PROTO_WIRE_FIXED64;
  uint64_t v = fl->value;
  switch (d->type) {
    case PROTO_DESC_INT32: return varint ? args_int(a, MODEL_ARG_INT, (int32_t)v) : WEFT_OK;
    case PROTO_DESC_INT64: return varint ? args_int(a, MODEL_ARG_INT, (int64_t)v) : WEFT_OK;
    case PROTO_DESC_SINT32:
      return varint ? args_int(a, MODEL_ARG_INT, proto_zigzag_decode32((uint32_t)v)) : WEFT_OK;
    case PROTO_DESC_SINT64:
      return varint ? args_int(a, MODEL_ARG_INT, (int64_t)((v >> 1) ^ (~(v & 1) + 1)))
                    : WEFT_OK;
    case PROTO_DESC_UINT32: return varint ? args_int(a, MODEL_ARG_UINT, (uint32_t)v) : WEFT_OK;
    case PROTO_DESC_UINT64: return varint ? args_int(a, MODEL_ARG_UINT, (int64_t)v) : WEFT_OK;
    case PROTO_DESC_BOOL: return varint ? args_int(a, MODEL_ARG_BOOL, v != 0) : WEFT_OK;
    case PROTO_DESC_FIXED32: return f32 ? args_int(a, MODEL_ARG_UINT, (uint32_t)v) : WEFT_OK;
    case PROTO_DESC_SFIXED32: return f32 ? args_int(a, MODEL_ARG_INT, (int32_t)v) : WEFT_OK;
    case PROTO_DESC_FIXED64: return f64 ? args_int(a, MODEL_ARG_UINT, (int64_t)v) : WEFT_OK;
    case PROTO_DESC_SFIXED64: return f64 ? args_int(a, MODEL_ARG_INT, (int64_t)v) : WEFT_OK;
    case PROTO_DESC_DOUBLE:
      return f64 ? model_arg_real(a->f->ctx, a->key, a->len, proto_field_double(fl)) : WEFT_OK;
    case PROTO_DESC_FLOAT: {
      if (!f32) return WEFT_OK;
      uint32_t bits = (uint32_t)v;
      float x;
      memcpy(&x, &bits, sizeof x);
      return model_arg_real(a->f->ctx, a->key, a->len, (double)x);
    }
    case PROTO_DESC_STRING:
      return fl->wire_type == PROTO_WIRE_LEN ? args_str(a, fl->span.data, fl->span.len)
                                             : WEFT_OK;
    case PROTO_DESC_ENUM: {
      if (!varint) return WEFT_OK;
      const char *name = proto_descriptor_enum_name(a->pool, d->ref, (int32_t)v);
      if (name) return args_str(a, name, strlen(name));
      char number[16]; /* a value the enum does not name: its number, as a string */
      int n = snprintf(number, sizeof number, "%d", (int)(int32_t)v);
      return args_str(a, number, n > 0 ? (size_t)n : 0);
    }
    default: return WEFT_OK; /* bytes and groups add nothing */
  }
}

/* 1 if the field is a nested "*location_iid" whose interned source
 * location replaces it under its parent's key. */
static int args_location_override(proto_args *a, const proto_desc_field *d,
                                  const proto_field *fl, int *rc) {
  static const char suffix[] = "location_iid";
  const char *name = proto_descriptor_name(a->pool, d->name);
  size_t n = strlen(name), s = sizeof suffix - 1;
  if (!a->len || d->repeated || fl->wire_type != PROTO_WIRE_VARINT || n < s ||
      memcmp(name + n - s, suffix, s) != 0)
    return 0;
  return args_source_location_fields(a, fl->value, MODEL_ARG_INT, rc);
}

/* The next index of repeated field `number` in this message. */
static uint32_t *args_repeat_counter(uint32_t (*counters)[2], int *n, uint32_t number) {
  for (int i = 0; i < *n; i++)
    if (counters[i][0] == number) return &counters[i][1];
  if (*n == MAX_REPEATED_COUNTERS) return NULL;
  counters[*n][0] = number;
  counters[*n][1] = 0;
  return &counters[(*n)++][1];
}

static int args_field(proto_args *a, const proto_desc_field *d, const proto_field *fl,
                      uint32_t *index) {
  if (d->type == PROTO_DESC_MESSAGE && d->ref == a->debug_annotation_type)
    return fl->wire_type == PROTO_WIRE_LEN ? args_debug_annotation(a, fl->span) : WEFT_OK;
  const char *name = proto_descriptor_name(a->pool, d->name);
  size_t saved, idx_saved;
  int rc = WEFT_OK;
  if (!args_enter(a, name, strlen(name), &saved)) return WEFT_OK;
  if (d->repeated && fl->wire_type == PROTO_WIRE_LEN && d->type != PROTO_DESC_MESSAGE &&
      d->type != PROTO_DESC_STRING && d->type != PROTO_DESC_BYTES) {
    rc = args_packed(a, d, fl->span, index);
    args_leave(a, saved);
    return rc;
  }
  if (d->repeated && !args_enter_index(a, (*index)++, &idx_saved)) {
    args_leave(a, saved);
    return WEFT_OK;
  }
  if (d->type == PROTO_DESC_MESSAGE) {
    if (fl->wire_type == PROTO_WIRE_LEN) rc = args_message(a, d->ref, fl->span);
  } else {
    size_t parent = saved; /* an override's keys hang off the parent */
    size_t here = a->len;
    a->len = parent;
    int done = args_location_override(a, d, fl, &rc);
    if (!done && !rc) done = args_native_symbol_override(a, d, fl, &rc);
    a->len = here;
    if (!done && !rc) rc = args_scalar(a, d, fl);
    if (!done && !rc) rc = args_translated_hash(a, d, fl, parent);
  }
  args_leave(a, saved);
  return rc;
}

/* 1 when field `number` is one of the n `only` (every field when only is
 * NULL). */
static int args_field_wanted(const uint32_t *only, size_t n, uint32_t number) {
  if (!only) return 1;
  for (size_t i = 0; i < n; i++)
    if (only[i] == number) return 1;
  return 0;
}

/* The known fields of a message of type `type` (all of them, or only the n
 * numbers in `only`), in wire order; an empty message is a NULL arg when
 * all are wanted. */
static int args_message_only(proto_args *a, int32_t type, proto_span bytes,
                             const uint32_t *only, size_t n) {
  const proto_desc_message *m = proto_descriptor_message(a->pool, type);
  uint32_t counters[MAX_REPEATED_COUNTERS][2];
  int n_counters = 0, rc = WEFT_OK;
  if (++a->depth > PROTO_ARGS_MAX_DEPTH) { a->depth--; return WEFT_OK; }
  if (bytes.len == 0 && !only) rc = args_null(a);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, bytes);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (!args_field_wanted(only, n, fl.number)) continue;
    const proto_desc_field *d = proto_descriptor_field(a->pool, m, fl.number);
    if (!d) continue;
    uint32_t zero = 0, *index = d->repeated ? args_repeat_counter(counters, &n_counters,
                                                                  fl.number) : &zero;
    if (!index) continue;
    rc = args_field(a, d, &fl, index);
  }
  a->depth--;
  return rc;
}

static int args_message(proto_args *a, int32_t type, proto_span bytes) {
  return args_message_only(a, type, bytes, NULL, 0);
}

/* ---- TrackEvent ---- */

static int args_task_execution(proto_args *a, proto_span task) {
  proto_field fl;
  if (proto_find_last(task.data, task.len, TASK_EXECUTION_POSTED_FROM_IID, &fl) != 1 ||
      fl.wire_type != PROTO_WIRE_VARINT)
    return WEFT_OK;
  size_t saved;
  int rc = WEFT_OK;
  if (args_enter(a, "task.posted_from", 16, &saved))
    args_source_location_fields(a, fl.value, MODEL_ARG_UINT, &rc);
  args_leave(a, saved);
  return rc;
}

/* An Android log priority (3 DEBUG .. 7 FATAL) of a LogMessage.Priority. */
static int64_t args_log_priority(uint64_t prio) {
  return prio <= 7 ? (int64_t)prio : PROTO_LOG_PRIO_INFO;
}

/* "tag": "<file_name>:<line_number>" of a source location. */
static int args_log_tag(proto_args *a, const args_location *loc, string_id *tag) {
  char buf[PROTO_ARGS_MAX_KEY];
  int n = snprintf(buf, sizeof buf, "%.*s:%u", (int)(loc->file.len < 1000 ? loc->file.len : 1000),
                   (const char *)loc->file.data, (unsigned)loc->line);
  if (n < 0) n = 0;
  return ctx_intern(a->f->ctx, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, tag);
}

/* A TrackEvent's log_message: args "track_event.log_message.message", its
 * source location's fields under "track_event.log_message", the priority as
 * "track_event.priority", and a log entry (tag "file:line", priority INFO
 * unless given) of the event's thread. Without a thread, a body or a known
 * location, a track_event_parser_errors. */
static int args_log_message(proto_args *a, proto_span msg) {
  if (a->utid < 0) return import_stat(a->f, stat_track_event_parser_errors, 1);
  proto_field body_iid = {0}, loc_iid = {0}, prio = {0};
  int has_loc = proto_find_last(msg.data, msg.len, PROTO_LOG_MESSAGE_SOURCE_LOCATION_IID,
                                &loc_iid) == 1;
  int has_prio = proto_find_last(msg.data, msg.len, PROTO_LOG_MESSAGE_PRIO, &prio) == 1;
  proto_find_last(msg.data, msg.len, LOG_MESSAGE_BODY_IID, &body_iid);
  string_id body = args_interned(a, PROTO_INTERN_LOG_BODY, body_iid.value);
  if (body == STRING_NULL) return import_stat(a->f, stat_track_event_parser_errors, 1);
  size_t saved;
  int rc = WEFT_OK;
  if (!args_enter(a, "track_event.log_message", 23, &saved)) return WEFT_OK;
  size_t inner;
  if (args_enter(a, "message", 7, &inner)) rc = args_str_id(a, body);
  args_leave(a, inner);
  model_log_entry e = {a->ts, a->utid, PROTO_LOG_PRIO_INFO, MODEL_LOG_ANDROID, STRING_NULL,
                       body, -1};
  args_location loc;
  if (!rc && has_loc && !args_location_read(a, loc_iid.value, &loc)) {
    args_leave(a, saved);
    return import_stat(a->f, stat_track_event_parser_errors, 1);
  }
  if (!rc && has_loc) rc = args_location_add(a, &loc, MODEL_ARG_INT);
  if (!rc && has_loc) rc = args_log_tag(a, &loc, &e.tag);
  args_leave(a, saved);
  if (!rc && has_prio) {
    e.prio = args_log_priority(prio.value);
    if (args_enter(a, "track_event.priority", 20, &saved)) rc = args_int(a, MODEL_ARG_INT, e.prio);
    args_leave(a, saved);
  }
  return rc ? rc : model_log(a->f->ctx, &e);
}

static int args_histogram_name(proto_args *a, proto_span sample) {
  proto_field fl;
  /* Only a sample named by iid alone: one with both is malformed. */
  if (proto_find_last(sample.data, sample.len, HISTOGRAM_SAMPLE_NAME_IID, &fl) != 1 ||
      proto_find_last(sample.data, sample.len, HISTOGRAM_SAMPLE_NAME, &(proto_field){0}) == 1)
    return WEFT_OK;
  string_id name = args_interned(a, PROTO_INTERN_HISTOGRAM_NAME, fl.value);
  if (name == STRING_NULL) return WEFT_OK;
  size_t saved;
  int rc = WEFT_OK;
  if (args_enter(a, "chrome_histogram_sample.name", 28, &saved)) rc = args_str_id(a, name);
  args_leave(a, saved);
  return rc;
}

/* 1 if a TrackEvent field is reflected into args: its extensions and its
 * typed (message) fields but those handled on their own or not args. */
static int args_reflected(const proto_desc_field *d) {
  if (d->extension) return 1;
  switch (d->number) {
    case PROTO_TRACK_EVENT_SOURCE_LOCATION_IID: return 1;
    case PROTO_TRACK_EVENT_DEBUG_ANNOTATIONS: case PROTO_TRACK_EVENT_TASK_EXECUTION:
    case PROTO_TRACK_EVENT_LEGACY_EVENT: case PROTO_TRACK_EVENT_LOG_MESSAGE:
    case PROTO_TRACK_EVENT_CALLSTACK: return 0;
    default: return d->type == PROTO_DESC_MESSAGE;
  }
}

int proto_args_field(uint32_t number) {
  if (number >= 1000) return 1;
  if (number >= 64) return 0;
  static const uint64_t fields =
      1ull << 4 | 1ull << 5 | 1ull << 21 | 1ull << 24 | 1ull << 25 | 1ull << 26 |
      1ull << 27 | 1ull << 28 | 1ull << 29 | 1ull << 32 | 1ull << 33 | 1ull << 34 |
      1ull << 35 | 1ull << 38 | 1ull << 39 | 1ull << 40 | 1ull << 41 | 1ull << 43 |
      1ull << 49 | 1ull << 50 | 1ull << 52 | 1ull << 53;
  return (int)(fields >> number & 1);
}

/* What one walk of a TrackEvent found of the fields args come from. */
typedef struct args_event_fields {
  proto_field source_iid, task, log, histogram, correlation;
  int has_source_iid, has_task, has_log, has_histogram, has_annotations, has_other;
  int has_correlation;
} args_event_fields;

static void args_event_scan(proto_span event, args_event_fields *ef) {
  proto_reader r;
  proto_field fl;
  memset(ef, 0, sizeof *ef);
  proto_reader_init_span(&r, event);
  while (proto_reader_next(&r, &fl) == 1) {
    int len = fl.wire_type == PROTO_WIRE_LEN;
    switch (fl.number) {
      case PROTO_TRACK_EVENT_DEBUG_ANNOTATIONS: ef->has_annotations |= len; break;
      case PROTO_TRACK_EVENT_SOURCE_LOCATION_IID:
        if (fl.wire_type == PROTO_WIRE_VARINT) ef->source_iid = fl, ef->has_source_iid = 1;
        ef->has_other = 1;
        break;
      case PROTO_TRACK_EVENT_TASK_EXECUTION: if (len) ef->task = fl, ef->has_task = 1; break;
      case PROTO_TRACK_EVENT_LOG_MESSAGE: if (len) ef->log = fl, ef->has_log = 1; break;
      case PROTO_TRACK_EVENT_CHROME_HISTOGRAM_SAMPLE:
        if (len) ef->histogram = fl, ef->has_histogram = 1;
        ef->has_other = 1;
        break;
      case PROTO_TRACK_EVENT_CORRELATION_ID:
      case PROTO_TRACK_EVENT_CORRELATION_ID_STR:
        ef->correlation = fl, ef->has_correlation = 1;
        break;
      default: ef->has_other |= proto_args_field(fl.number); break;
    }
  }
}

/* "correlation_id": "tp:#<id>", or the string (the interned form,
 * correlation_id_str_iid, is not read). */
static int args_correlation(proto_args *a, const proto_field *fl) {
  size_t saved;
  int rc = WEFT_OK;
  if (!args_enter(a, "correlation_id", 14, &saved)) return WEFT_OK;
  if (fl->number == PROTO_TRACK_EVENT_CORRELATION_ID && fl->wire_type == PROTO_WIRE_VARINT) {
    char buf[32];
    int n = snprintf(buf, sizeof buf, "tp:#%llu", (unsigned long long)fl->value);
    rc = args_str(a, buf, (size_t)n);
  } else if (fl->number == PROTO_TRACK_EVENT_CORRELATION_ID_STR &&
             fl->wire_type == PROTO_WIRE_LEN) {
    rc = args_str(a, fl->span.data, fl->span.len);
  }
  args_leave(a, saved);
  return rc;
}

/* The args of the fields handled on their own, in Perfetto's order. */
static int args_event_specials(proto_args *a, const args_event_fields *ef) {
  int rc = WEFT_OK;
  if (ef->has_source_iid) {
    size_t saved;
    if (args_enter(a, "source", 6, &saved))
      args_source_location_fields(a, ef->source_iid.value, MODEL_ARG_INT, &rc);
    args_leave(a, saved);
  }
  if (!rc && ef->has_task) rc = args_task_execution(a, ef->task.span);
  if (!rc && ef->has_log) rc = args_log_message(a, ef->log.span);
  if (!rc && ef->has_histogram) rc = args_histogram_name(a, ef->histogram.span);
  if (!rc && ef->has_correlation) rc = args_correlation(a, &ef->correlation);
  return rc;
}

/* The reflected fields (args_reflected), in wire order. */
static int args_event_reflected(proto_args *a, const proto_desc_message *te, proto_span event) {
  uint32_t counters[MAX_REPEATED_COUNTERS][2];
  int n_counters = 0, rc = WEFT_OK;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, event);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    const proto_desc_field *d = proto_descriptor_field(a->pool, te, fl.number);
    if (!d || !args_reflected(d)) continue;
    uint32_t zero = 0, *index = d->repeated ? args_repeat_counter(counters, &n_counters,
                                                                  fl.number) : &zero;
    if (index) rc = args_field(a, d, &fl, index);
  }
  return rc;
}

/* The debug annotations, under "debug", in wire order. */
static int args_event_annotations(proto_args *a, proto_span event) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, event);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_TRACK_EVENT_DEBUG_ANNOTATIONS || fl.wire_type != PROTO_WIRE_LEN)
      continue;
    size_t saved;
    if (args_enter(a, "debug", 5, &saved)) rc = args_debug_annotation(a, fl.span);
    args_leave(a, saved);
  }
  return rc;
}

/* The embedded pool and its TrackEvent and DebugAnnotation messages,
 * looked up once per process. */
static const proto_descriptor_pool *args_pool;
static const proto_desc_message *args_track_event;
static int32_t args_debug_annotation_type = -1;
static pthread_once_t args_pool_once = PTHREAD_ONCE_INIT;

static void args_pool_init(void) {
  static const char debug[] = ".perfetto.protos.DebugAnnotation";
  static const char track_event[] = ".perfetto.protos.TrackEvent";
  args_pool = proto_descriptor_builtin();
  if (!args_pool) return;
  args_debug_annotation_type = proto_descriptor_find_message(args_pool, debug, sizeof debug - 1);
  int32_t t = proto_descriptor_find_message(args_pool, track_event, sizeof track_event - 1);
  if (t >= 0) args_track_event = proto_descriptor_message(args_pool, t);
}

static void args_init(proto_args *a, import_file *f, const proto_packet_info *info,
                      int64_t ts, int64_t utid) {
  a->f = f;
  a->ts = ts;
  a->utid = utid;
  a->st = f->state;
  a->info = info;
  a->pool = args_pool;
  a->depth = 0;
  a->len = 0;
  a->debug_annotation_type = args_debug_annotation_type;
  a->n_symbols = 0;
  a->keys_len = 0;
}

int proto_args_message_fields(import_file *f, const proto_packet_info *info,
                              const char *type_name, proto_span bytes, const uint32_t *only,
                              size_t n) {
  pthread_once(&args_pool_once, args_pool_init);
  if (!args_pool) return WEFT_OK;
  int32_t type = proto_descriptor_find_message(args_pool, type_name, strlen(type_name));
  if (type < 0) return WEFT_OK;
  proto_args a;
  args_init(&a, f, info, 0, -1);
  return args_message_only(&a, type, bytes, only, n);
}

int proto_args_message(import_file *f, const proto_packet_info *info, const char *type_name,
                       proto_span bytes) {
  return proto_args_message_fields(f, info, type_name, bytes, NULL, 0);
}

int proto_args_track_event(import_file *f, const proto_packet_info *info, proto_span event,
                           int64_t ts, int64_t utid) {
  pthread_once(&args_pool_once, args_pool_init);
  proto_args a;
  args_init(&a, f, info, ts, utid);
  args_event_fields ef;
  args_event_scan(event, &ef);
  int rc = args_event_specials(&a, &ef);
  if (!rc && ef.has_other && args_track_event)
    rc = args_event_reflected(&a, args_track_event, event);
  if (!rc && ef.has_annotations) rc = args_event_annotations(&a, event);
  if (!rc && a.n_symbols) rc = args_native_symbols(&a);
  return rc;
}
