/* HeapGraph and DeobfuscationMapping packets. See proto_heap_graph.h. */
#include "import/proto/proto_heap_graph.h"

#include <string.h>

#include "model/heap_graph.h"

typedef VEC(uint64_t) proto_hg_ids;

struct proto_heap_graph_state {
  proto_hg_ids fields, refs, internal, ids; /* reused per object / root */
  VEC(base_buf) mappings;                   /* copies of DeobfuscationMappings */
};

/* HeapGraph */
enum { HG_PID = 1, HG_OBJECTS = 2, HG_FIELD_NAMES = 4, HG_CONTINUED = 5, HG_INDEX = 6,
       HG_ROOTS = 7, HG_LOCATION_NAMES = 8, HG_TYPES = 9, HG_HEAP_BYTES = 10 };
/* HeapGraphObject */
enum { HGO_ID = 1, HGO_TYPE_ID = 2, HGO_SELF_SIZE = 3, HGO_FIELD_ID = 4, HGO_OBJECT_ID = 5,
       HGO_OBJECT_ID_BASE = 6, HGO_ID_DELTA = 7, HGO_NAR_SIZE = 8, HGO_HEAP_TYPE = 9,
       HGO_INTERNAL_ID = 10, HGO_BITMAP_ID = 11, HGO_BITMAP_SOURCE_ID = 12,
       HGO_BITMAP_WIDTH = 13, HGO_BITMAP_HEIGHT = 14 };
/* HeapGraphType */
enum { HGT_ID = 1, HGT_LOCATION_ID = 2, HGT_CLASS_NAME = 3, HGT_OBJECT_SIZE = 4,
       HGT_SUPERCLASS_ID = 5, HGT_FIELD_ID = 6, HGT_KIND = 7, HGT_CLASSLOADER_ID = 8 };

int proto_heap_graph_wants_field(uint32_t number) {
  return number == PROTO_TRACE_PACKET_HEAP_GRAPH ||
         number == PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING ||
         number == PROTO_TRACE_PACKET_ART_PROCESS_METADATA;
}

void proto_heap_graph_free(proto_heap_graph_state *s) {
  if (!s) return;
  VEC_FREE(s->fields);
  VEC_FREE(s->refs);
  VEC_FREE(s->internal);
  VEC_FREE(s->ids);
  for (size_t i = 0; i < s->mappings.len; i++) base_buf_free(&s->mappings.data[i]);
  VEC_FREE(s->mappings);
  base_free(s);
}

/* Appends a repeated varint field's values, packed or not; WEFT_EPARSE on
 * a malformed packed payload. */
static int proto_hg_collect(const proto_field *fl, proto_hg_ids *out) {
  if (fl->wire_type == PROTO_WIRE_VARINT) return VEC_PUSH(*out, fl->value);
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  proto_packed_iter it;
  uint64_t v;
  int rc;
  proto_packed_init(&it, fl->span);
  while ((rc = proto_packed_next_varint(&it, &v)) == 1)
    if (VEC_PUSH(*out, v)) return WEFT_ENOMEM;
  return rc;
}

typedef struct proto_hg_ctx {
  import_file *f;
  proto_heap_graph_state *st;
  uint64_t seq;
  uint32_t upid;
  int64_t ts;
} proto_hg_ctx;

static int proto_hg_object_field(proto_hg_ctx *c, const proto_field *fl,
                                 heap_graph_object_in *o, uint64_t *base, uint64_t *id_delta) {
  switch (fl->number) {
    case HGO_ID: o->id = fl->value; break;
    case HGO_ID_DELTA: *id_delta = fl->value; break;
    case HGO_TYPE_ID: o->type_id = fl->value; break;
    case HGO_SELF_SIZE: o->self_size = fl->value; break;
    case HGO_OBJECT_ID_BASE: *base = fl->value; break;
    case HGO_HEAP_TYPE: o->heap_type = (int)fl->value; break;
    case HGO_FIELD_ID: return proto_hg_collect(fl, &c->st->fields);
    case HGO_OBJECT_ID: return proto_hg_collect(fl, &c->st->refs);
    case HGO_INTERNAL_ID: return proto_hg_collect(fl, &c->st->internal);
    case HGO_NAR_SIZE: o->has_nar_size = 1, o->nar_size = (int64_t)fl->value; break;
    case HGO_BITMAP_ID: o->has_bitmap_id = 1, o->bitmap_id = (int64_t)fl->value; break;
    case HGO_BITMAP_SOURCE_ID:
      o->has_bitmap_source_id = 1, o->bitmap_source_id = (int64_t)fl->value;
      break;
    case HGO_BITMAP_WIDTH: o->has_bitmap_width = 1, o->bitmap_width = (uint32_t)fl->value; break;
    case HGO_BITMAP_HEIGHT:
      o->has_bitmap_height = 1, o->bitmap_height = (uint32_t)fl->value;
      break;
    default: break;
  }
  return WEFT_OK;
}

/* One object: 1 when the packet's objects must stop (malformed ids). */
static int proto_hg_object(proto_hg_ctx *c, proto_span msg, int *stop) {
  proto_heap_graph_state *st = c->st;
  trace_context *ctx = c->f->ctx;
  heap_graph_object_in o = {0};
  uint64_t base = 0, id_delta = 0, last_id;
  int has_heap_type = 0, last_heap;
  st->fields.len = st->refs.len = st->internal.len = 0;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK, next;
  proto_reader_init_span(&r, msg);
  while (!rc && (next = proto_reader_next(&r, &fl)) == 1) {
    if (fl.number == HGO_HEAP_TYPE) has_heap_type = 1;
    rc = proto_hg_object_field(c, &fl, &o, &base, &id_delta);
  }
  if (rc == WEFT_ENOMEM) return rc;
  if (rc || next < 0) {
    *stop = 1;
    return model_heap_graph_malformed(ctx, c->seq, c->upid);
  }
  model_heap_graph_last(ctx, c->seq, &last_id, &last_heap);
  if (id_delta) o.id = last_id + id_delta; /* id_delta wins when set */
  if (!has_heap_type) o.heap_type = last_heap;
  for (size_t i = 0; i < st->refs.len; i++)
    if (st->refs.data[i]) st->refs.data[i] += base;
  if (st->fields.len && st->fields.len != st->refs.len)
    return model_heap_graph_malformed(ctx, c->seq, c->upid);
  o.field_ids = st->fields.data, o.field_count = st->fields.len;
  o.refs = st->refs.data, o.ref_count = st->refs.len;
  o.internal_refs = st->internal.data, o.internal_count = st->internal.len;
  return model_heap_graph_object(ctx, c->seq, c->upid, c->ts, &o);
}

static int proto_hg_type(proto_hg_ctx *c, proto_span msg) {
  heap_graph_type_in t = {0};
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK, next;
  c->st->fields.len = 0;
  proto_reader_init_span(&r, msg);
  while (!rc && (next = proto_reader_next(&r, &fl)) == 1) {
    switch (fl.number) {
      case HGT_ID: t.id = fl.value; break;
      case HGT_LOCATION_ID: t.has_location = 1, t.location_id = fl.value; break;
      case HGT_CLASS_NAME:
        if (fl.wire_type == PROTO_WIRE_LEN && fl.span.len) /* empty: NULL */
          rc = ctx_intern(c->f->ctx, (const char *)fl.span.data, fl.span.len, &t.name);
        break;
      case HGT_OBJECT_SIZE: t.object_size = fl.value; break;
      case HGT_SUPERCLASS_ID: t.superclass_id = fl.value; break;
      case HGT_FIELD_ID: rc = proto_hg_collect(&fl, &c->st->fields); break;
      case HGT_KIND: t.kind = fl.value < 12 ? (int)fl.value : 0; break;
      case HGT_CLASSLOADER_ID: t.classloader_id = fl.value; break;
      default: break;
    }
  }
  if (rc == WEFT_ENOMEM) return rc;
  if (rc || next < 0) return model_heap_graph_malformed(c->f->ctx, c->seq, c->upid);
  t.field_ids = c->st->fields.data, t.field_count = c->st->fields.len;
  return model_heap_graph_type(c->f->ctx, c->seq, &t);
}

/* An InternedString (iid 1, str 2) as a field or location name. */
static int proto_hg_interned(proto_hg_ctx *c, proto_span msg, int is_location) {
  uint64_t iid = 0;
  proto_span str = {0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == 1 && fl.wire_type == PROTO_WIRE_VARINT) iid = fl.value;
    if (fl.number == 2 && fl.wire_type == PROTO_WIRE_LEN) str = fl.span;
  }
  const char *s = str.data ? (const char *)str.data : "";
  return is_location ? model_heap_graph_location(c->f->ctx, c->seq, iid, s, str.len)
                     : model_heap_graph_field_name(c->f->ctx, c->seq, iid, s, str.len);
}

static int proto_hg_root(proto_hg_ctx *c, proto_span msg, int *stop) {
  uint64_t type = 0;
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK, next;
  c->st->ids.len = 0;
  proto_reader_init_span(&r, msg);
  while (!rc && (next = proto_reader_next(&r, &fl)) == 1) {
    if (fl.number == 1) rc = proto_hg_collect(&fl, &c->st->ids);
    if (fl.number == 2 && fl.wire_type == PROTO_WIRE_VARINT) type = fl.value;
  }
  if (rc == WEFT_ENOMEM) return rc;
  if (rc || next < 0) {
    *stop = 1;
    return model_heap_graph_malformed(c->f->ctx, c->seq, c->upid);
  }
  return model_heap_graph_root(c->f->ctx, c->seq, c->upid, c->ts, type < 15 ? (int)type : 0,
                               c->st->ids.data, c->st->ids.len);
}

/* One pass over the HeapGraph for the sub-messages of field `number`. */
static int proto_hg_pass(proto_hg_ctx *c, proto_span graph, uint32_t number) {
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK, stop = 0;
  proto_reader_init_span(&r, graph);
  while (!rc && !stop && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != number || fl.wire_type != PROTO_WIRE_LEN) continue;
    switch (number) {
      case HG_OBJECTS: rc = proto_hg_object(c, fl.span, &stop); break;
      case HG_TYPES: rc = proto_hg_type(c, fl.span); break;
      case HG_FIELD_NAMES: rc = proto_hg_interned(c, fl.span, 0); break;
      case HG_LOCATION_NAMES: rc = proto_hg_interned(c, fl.span, 1); break;
      default: rc = proto_hg_root(c, fl.span, &stop); break;
    }
  }
  return rc;
}

static int proto_hg_graph(proto_hg_ctx *c, uint32_t machine, proto_span graph) {
  trace_context *ctx = c->f->ctx;
  int64_t pid = 0;
  uint64_t index = 0;
  int continued = 0, has_heap_bytes = 0;
  int64_t heap_bytes = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, graph);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    switch (fl.number) {
      case HG_PID: pid = proto_field_int32(&fl); break;
      case HG_INDEX: index = fl.value; break;
      case HG_CONTINUED: continued = fl.value != 0; break;
      case HG_HEAP_BYTES: has_heap_bytes = 1, heap_bytes = (int64_t)fl.value; break;
      default: break;
    }
  }
  int rc = model_process_and_main_thread(ctx, machine, pid, &c->upid);
  if (!rc) rc = model_heap_graph_packet_index(ctx, c->seq, machine, c->f->trace_id, index);
  if (!rc && has_heap_bytes) rc = model_heap_graph_heap_size(ctx, c->seq, heap_bytes);
  static const uint32_t passes[] = {HG_OBJECTS, HG_TYPES, HG_FIELD_NAMES, HG_LOCATION_NAMES,
                                    HG_ROOTS};
  for (size_t i = 0; !rc && i < sizeof passes / sizeof *passes; i++)
    rc = proto_hg_pass(c, graph, passes[i]);
  if (!rc && !continued) rc = model_heap_graph_finalize(ctx, c->seq);
  return rc;
}

int proto_heap_graph_parse(import_file *f, proto_heap_graph_state **state, uint32_t machine,
                           uint32_t seq_id, int64_t ts, const proto_field *fl) {
  if (fl->wire_type != PROTO_WIRE_LEN) return WEFT_OK;
  if (!*state && !(*state = base_calloc(1, sizeof **state))) return WEFT_ENOMEM;
  proto_heap_graph_state *st = *state;
  if (fl->number == PROTO_TRACE_PACKET_DEOBFUSCATION_MAPPING) {
    base_buf copy;
    base_buf_init(&copy, fl->span.len + 1);
    int rc = base_buf_append(&copy, fl->span.data, fl->span.len);
    if (!rc) rc = VEC_PUSH(st->mappings, copy);
    if (rc) base_buf_free(&copy);
    return rc;
  }
  proto_hg_ctx c = {f, st, (uint64_t)f->trace_id << 32 | seq_id, 0, ts};
  return proto_hg_graph(&c, machine, fl->span);
}

/* ---- deobfuscation ---- */

typedef struct proto_hg_names {
  proto_span obfuscated, deobfuscated;
} proto_hg_names;

static proto_hg_names proto_hg_read_names(proto_span msg) {
  proto_hg_names n = {{(const uint8_t *)"", 0}, {(const uint8_t *)"", 0}};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN || !fl.span.data) continue;
    if (fl.number == 1) n.obfuscated = fl.span;
    if (fl.number == 2) n.deobfuscated = fl.span;
  }
  return n;
}

/* The members of one ObfuscatedClass: "Class.member" -> the member's
 * name, qualified with the class's unless it has a '.'. */
static int proto_hg_members(trace_context *ctx, proto_span cls, proto_hg_names cn) {
  base_buf obf, name;
  base_buf_init(&obf, (size_t)1 << 20);
  base_buf_init(&name, (size_t)1 << 20);
  proto_reader r;
  proto_field fl;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, cls);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != 3 || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_hg_names m = proto_hg_read_names(fl.span);
    base_buf_reset(&obf);
    base_buf_reset(&name);
    rc = base_buf_append(&obf, cn.obfuscated.data, cn.obfuscated.len);
    if (!rc) rc = base_buf_append(&obf, ".", 1);
    if (!rc) rc = base_buf_append(&obf, m.obfuscated.data, m.obfuscated.len);
    if (!rc && !memchr(m.deobfuscated.data, '.', m.deobfuscated.len)) {
      rc = base_buf_append(&name, cn.deobfuscated.data, cn.deobfuscated.len);
      if (!rc) rc = base_buf_append(&name, ".", 1);
    }
    if (!rc) rc = base_buf_append(&name, m.deobfuscated.data, m.deobfuscated.len);
    if (!rc)
      rc = model_heap_graph_deobfuscate_field(ctx, obf.data, obf.len, name.data, name.len);
  }
  base_buf_free(&obf);
  base_buf_free(&name);
  return rc == WEFT_ELIMIT ? WEFT_OK : rc;
}

static int proto_hg_mapping(trace_context *ctx, proto_span mapping) {
  proto_span package = {(const uint8_t *)"", 0};
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, mapping);
  while (proto_reader_next(&r, &fl) == 1)
    if (fl.number == 1 && fl.wire_type == PROTO_WIRE_LEN && fl.span.data) package = fl.span;
  int rc = WEFT_OK;
  proto_reader_init_span(&r, mapping);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != 3 || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_hg_names cn = proto_hg_read_names(fl.span);
    rc = model_heap_graph_deobfuscate_class(
        ctx, (const char *)package.data, package.len, (const char *)cn.obfuscated.data,
        cn.obfuscated.len, (const char *)cn.deobfuscated.data, cn.deobfuscated.len);
    if (!rc) rc = proto_hg_members(ctx, fl.span, cn);
  }
  return rc;
}

int proto_heap_graph_end(import_file *f, proto_heap_graph_state *st) {
  int rc = model_heap_graph_finalize_all(f->ctx);
  if (rc || !st || !st->mappings.len) return rc;
  rc = model_heap_graph_deobfuscate_begin(f->ctx);
  for (size_t i = 0; !rc && i < st->mappings.len; i++) {
    base_buf *m = &st->mappings.data[i];
    rc = proto_hg_mapping(f->ctx, (proto_span){(const uint8_t *)m->data, m->len});
  }
  model_heap_graph_deobfuscate_end(f->ctx);
  return rc;
}
