/* The ProtoVM interpreter (see protovm.h): decodes the program's
 * instructions as it runs them and moves two cursors, SRC on the patch and
 * DST on the state tree (protovm_tree.h). */
#include "import/proto/protovm.h"

#include "import/proto/protovm_tree.h"

/* VmProgram, VmInstruction, VmOpSelect(.PathComponent), VmOpRegLoad,
 * VmOpMerge field numbers. */
#define PROTOVM_PROGRAM_INSTRUCTIONS 2
#define PROTOVM_INSN_SELECT 1
#define PROTOVM_INSN_REG_LOAD 2
#define PROTOVM_INSN_MERGE 3
#define PROTOVM_INSN_SET 4
#define PROTOVM_INSN_DEL 5
#define PROTOVM_INSN_ABORT_LEVEL 6
#define PROTOVM_INSN_NESTED 7
#define PROTOVM_SELECT_CURSOR 1
#define PROTOVM_SELECT_PATH 2
#define PROTOVM_SELECT_CREATE 3
#define PROTOVM_PATH_FIELD_ID 1
#define PROTOVM_PATH_ARRAY_INDEX 2
#define PROTOVM_PATH_MAP_KEY_FIELD_ID 3
#define PROTOVM_PATH_IS_REPEATED 5
#define PROTOVM_PATH_REGISTER_TO_MATCH 6
#define PROTOVM_REG_LOAD_CURSOR 1
#define PROTOVM_REG_LOAD_DST_REGISTER 2
#define PROTOVM_MERGE_SKIP_SUBMESSAGES 1
#define PROTOVM_MERGE_DEL_IF_SRC_EMPTY 2

enum { PROTOVM_CURSOR_SRC = 1, PROTOVM_CURSOR_DST = 2 };
enum { PROTOVM_SKIP_INSTRUCTION = 1, PROTOVM_BREAK_OUTER = 2, PROTOVM_ABORT_ALL = 3 };

struct protovm {
  proto_span program; /* owned copy */
  protovm_tree tree;
  uint64_t regs[PROTOVM_REGISTERS];
  uint32_t regs_set; /* bit i: register i holds a value */
};

/* SRC: the whole patch (is_field 0) or one of its fields. */
typedef struct protovm_src {
  proto_field fl;
  int is_field;
} protovm_src;

typedef struct protovm_cursors {
  protovm_src src;
  protovm_node *dst;    /* NULL once deleted */
  protovm_node *parent; /* the container holding dst under dst_key; NULL: root */
  uint64_t dst_key;
  uint64_t selected;    /* VmCursorEnum: SRC moves src, anything else dst */
  int create, depth;
} protovm_cursors;

typedef struct protovm_run {
  protovm *vm;
  protovm_cursors c;
  uint32_t steps, nesting;
} protovm_run;

/* One decoded instruction. */
typedef struct protovm_insn {
  proto_span self, body; /* the instruction; its operation's message */
  uint32_t op;           /* PROTOVM_INSN_*, 0 if none */
  uint64_t abort_level;
  int has_abort_level;
} protovm_insn;

/* One decoded path component. */
typedef struct protovm_component {
  uint64_t field_id, array_index, map_key, reg;
  int has_field_id, has_array_index, has_map_key, has_reg, is_repeated;
} protovm_component;

static int protovm_list(protovm_run *run, proto_span parent, uint32_t field);

/* ---- decoding ---- */

/* Op precedence when several are set: select, reg_load, del, merge, set. */
static int protovm_op_rank(uint32_t op) {
  switch (op) {
    case PROTOVM_INSN_SELECT: return 5;
    case PROTOVM_INSN_REG_LOAD: return 4;
    case PROTOVM_INSN_DEL: return 3;
    case PROTOVM_INSN_MERGE: return 2;
    case PROTOVM_INSN_SET: return 1;
    default: return 0;
  }
}

static int protovm_decode_insn(proto_span self, protovm_insn *in) {
  memset(in, 0, sizeof *in);
  in->self = self;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, self);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTOVM_INSN_ABORT_LEVEL && fl.wire_type == PROTO_WIRE_VARINT) {
      in->abort_level = fl.value;
      in->has_abort_level = 1;
    } else if (fl.wire_type == PROTO_WIRE_LEN &&
               protovm_op_rank(fl.number) >= protovm_op_rank(in->op) &&
               protovm_op_rank(fl.number) > 0) {
      in->op = fl.number;
      in->body = fl.span;
    }
  }
  return r.status ? PROTOVM_ABORT : PROTOVM_OK;
}

/* The last varint `number` of msg (def when absent); ABORT if malformed. */
static int protovm_varint(proto_span msg, uint32_t number, uint64_t def, uint64_t *out,
                          int *has) {
  proto_reader r;
  proto_field fl;
  *out = def;
  if (has) *has = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != number || fl.wire_type != PROTO_WIRE_VARINT) continue;
    *out = fl.value;
    if (has) *has = 1;
  }
  return r.status ? PROTOVM_ABORT : PROTOVM_OK;
}

static int protovm_decode_path(proto_span select, protovm_component *comps, size_t *n) {
  proto_reader r, cr;
  proto_field fl, cf;
  *n = 0;
  proto_reader_init_span(&r, select);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTOVM_SELECT_PATH || fl.wire_type != PROTO_WIRE_LEN) continue;
    if (*n == PROTOVM_MAX_PATH) return PROTOVM_ABORT;
    protovm_component *c = &comps[(*n)++];
    memset(c, 0, sizeof *c);
    proto_reader_init_span(&cr, fl.span);
    while (proto_reader_next(&cr, &cf) == 1) {
      if (cf.wire_type != PROTO_WIRE_VARINT) continue;
      switch (cf.number) {
        case PROTOVM_PATH_FIELD_ID: c->field_id = cf.value, c->has_field_id = 1; break;
        case PROTOVM_PATH_ARRAY_INDEX: c->array_index = cf.value, c->has_array_index = 1; break;
        case PROTOVM_PATH_MAP_KEY_FIELD_ID: c->map_key = cf.value, c->has_map_key = 1; break;
        case PROTOVM_PATH_IS_REPEATED: c->is_repeated = cf.value != 0; break;
        case PROTOVM_PATH_REGISTER_TO_MATCH: c->reg = cf.value, c->has_reg = 1; break;
        default: break;
      }
    }
    if (cr.status) return PROTOVM_ABORT;
  }
  return r.status ? PROTOVM_ABORT : PROTOVM_OK;
}

/* ---- SRC cursor (read-only, on the patch) ---- */

static int protovm_src_message(const protovm_src *s, proto_span *msg) {
  if (s->is_field && s->fl.wire_type != PROTO_WIRE_LEN) return PROTOVM_ABORT;
  *msg = s->fl.span;
  return PROTOVM_OK;
}

/* The index-th occurrence of field `id` in SRC's message (ERROR if none). */
static int protovm_src_nth(protovm_src *s, uint32_t id, uint64_t index) {
  proto_span msg;
  int rc = protovm_src_message(s, &msg);
  if (rc) return rc;
  proto_reader r;
  proto_field fl;
  uint64_t seen = 0;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != id || seen++ != index) continue;
    s->fl = fl;
    s->is_field = 1;
    return PROTOVM_OK;
  }
  return r.status ? PROTOVM_ABORT : PROTOVM_ERROR;
}

/* ---- DST cursor (on the state tree) ---- */

static int protovm_enter(protovm_run *run, protovm_node *parent, uint64_t key,
                         protovm_node *node) {
  if (++run->c.depth > PROTOVM_MAX_DEPTH) return PROTOVM_ABORT;
  run->c.parent = parent;
  run->c.dst_key = key;
  run->c.dst = node;
  return PROTOVM_OK;
}

/* Whether message dst has field id (ERROR if not and not creating). */
static int protovm_dst_has(protovm_run *run, uint32_t id) {
  if (!run->c.dst) return PROTOVM_ABORT;
  int rc = protovm_tree_to_message(&run->vm->tree, run->c.dst);
  if (rc) return rc;
  return protovm_tree_find(run->c.dst, id) >= 0 || run->c.create ? PROTOVM_OK : PROTOVM_ERROR;
}

static int protovm_enter_field(protovm_run *run, uint32_t id) {
  if (run->c.selected == PROTOVM_CURSOR_SRC) return protovm_src_nth(&run->c.src, id, 0);
  int rc = protovm_dst_has(run, id);
  protovm_node *field;
  if (!rc) rc = protovm_tree_field(&run->vm->tree, run->c.dst, id, &field);
  if (rc) return rc;
  if (field->kind == PROTOVM_INDEXED || field->kind == PROTOVM_MAPPED) return PROTOVM_ABORT;
  return protovm_enter(run, run->c.dst, id, field);
}

static int protovm_enter_index(protovm_run *run, uint32_t id, uint64_t index) {
  if (run->c.selected == PROTOVM_CURSOR_SRC) return protovm_src_nth(&run->c.src, id, index);
  protovm_tree *t = &run->vm->tree;
  protovm_node *field, *elem;
  int rc = run->c.dst ? protovm_tree_field(t, run->c.dst, id, &field) : PROTOVM_ABORT;
  if (!rc) rc = protovm_tree_to_indexed(t, field);
  if (rc) return rc;
  long at = protovm_tree_find(field, index);
  if (at >= 0) return protovm_enter(run, field, index, field->entries[at].node);
  if (index > field->count) return PROTOVM_ABORT; /* only appending creates */
  rc = protovm_tree_node(t, &elem);
  if (!rc) rc = protovm_tree_insert(t, field, index, elem);
  return rc ? rc : protovm_enter(run, field, index, elem);
}

static int protovm_enter_key(protovm_run *run, uint32_t id, const protovm_component *key) {
  if (!key->has_reg || key->reg >= PROTOVM_REGISTERS ||
      !(run->vm->regs_set & (1u << key->reg)))
    return PROTOVM_ABORT;
  if (run->c.selected == PROTOVM_CURSOR_SRC) return PROTOVM_ABORT; /* DST only */
  uint64_t value = run->vm->regs[key->reg];
  protovm_tree *t = &run->vm->tree;
  protovm_node *field, *elem;
  int rc = protovm_dst_has(run, id);
  if (!rc) rc = protovm_tree_field(t, run->c.dst, id, &field);
  if (!rc) rc = protovm_tree_to_mapped(t, field, (uint32_t)key->map_key);
  if (rc) return rc;
  value = (uint32_t)value; /* keys are matched as uint32 */
  long at = protovm_tree_find(field, value);
  if (at >= 0) return protovm_enter(run, field, value, field->entries[at].node);
  rc = protovm_tree_node(t, &elem);
  if (!rc) rc = protovm_tree_insert(t, field, value, elem);
  return rc ? rc : protovm_enter(run, field, value, elem);
}

/* ---- select ---- */

static int protovm_select_rec(protovm_run *run, const protovm_insn *in,
                              const protovm_component *comps, size_t n, size_t i);

/* is_repeated over SRC: the rest of the path once per occurrence. */
static int protovm_each_src(protovm_run *run, const protovm_insn *in,
                            const protovm_component *comps, size_t n, size_t i) {
  proto_span msg;
  int rc = protovm_src_message(&run->c.src, &msg);
  if (rc) return rc;
  protovm_cursors saved = run->c;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, msg);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != comps[i].field_id) continue;
    run->c = saved;
    run->c.src.fl = fl;
    run->c.src.is_field = 1;
    rc = protovm_select_rec(run, in, comps, n, i + 1);
    if (rc) return rc;
  }
  return r.status ? PROTOVM_ABORT : PROTOVM_OK;
}

/* is_repeated over DST: by key, so that elements deleted on the way are
 * simply not met again. */
static int protovm_each_dst(protovm_run *run, const protovm_insn *in,
                            const protovm_component *comps, size_t n, size_t i) {
  protovm_tree *t = &run->vm->tree;
  if (!run->c.dst) return PROTOVM_ABORT;
  int rc = protovm_tree_to_message(t, run->c.dst);
  if (rc) return rc;
  long at = protovm_tree_find(run->c.dst, comps[i].field_id);
  if (at < 0) return PROTOVM_OK;
  protovm_node *field = run->c.dst->entries[at].node;
  rc = protovm_tree_to_indexed(t, field);
  if (rc) return rc;
  protovm_cursors saved = run->c;
  for (uint64_t next = 0;;) {
    size_t k = protovm_tree_lower(field, next);
    if (k >= field->count) return PROTOVM_OK;
    protovm_entry e = field->entries[k];
    run->c = saved;
    rc = protovm_enter(run, field, e.key, e.node);
    if (!rc) rc = protovm_select_rec(run, in, comps, n, i + 1);
    if (rc || e.key == UINT64_MAX) return rc;
    next = e.key + 1;
  }
}

static int protovm_select_rec(protovm_run *run, const protovm_insn *in,
                              const protovm_component *comps, size_t n, size_t i) {
  if (i == n) return protovm_list(run, in->self, PROTOVM_INSN_NESTED);
  const protovm_component *c = &comps[i];
  if (!c->has_field_id || c->field_id > PROTO_MAX_FIELD_NUMBER) return PROTOVM_ABORT;
  uint32_t id = (uint32_t)c->field_id;
  int rc;
  if (c->is_repeated) {
    if (run->c.selected == PROTOVM_CURSOR_SRC) return protovm_each_src(run, in, comps, n, i);
    if (run->c.selected == PROTOVM_CURSOR_DST) return protovm_each_dst(run, in, comps, n, i);
    return PROTOVM_ABORT;
  }
  if (i + 1 < n && comps[i + 1].has_array_index) {
    rc = protovm_enter_index(run, id, comps[i + 1].array_index);
    return rc ? rc : protovm_select_rec(run, in, comps, n, i + 2);
  }
  if (i + 1 < n && comps[i + 1].has_map_key) {
    rc = protovm_enter_key(run, id, &comps[i + 1]);
    return rc ? rc : protovm_select_rec(run, in, comps, n, i + 2);
  }
  rc = protovm_enter_field(run, id);
  return rc ? rc : protovm_select_rec(run, in, comps, n, i + 1);
}

static int protovm_select(protovm_run *run, const protovm_insn *in) {
  protovm_component comps[PROTOVM_MAX_PATH];
  size_t n;
  uint64_t create = 0;
  protovm_cursors saved = run->c;
  int rc = protovm_varint(in->body, PROTOVM_SELECT_CURSOR, PROTOVM_CURSOR_SRC,
                          &run->c.selected, NULL);
  if (!rc) rc = protovm_varint(in->body, PROTOVM_SELECT_CREATE, 0, &create, NULL);
  if (!rc) rc = protovm_decode_path(in->body, comps, &n);
  if (!rc && run->c.selected == PROTOVM_CURSOR_SRC && create) rc = PROTOVM_ABORT;
  run->c.create = create != 0;
  if (!rc) rc = protovm_select_rec(run, in, comps, n, 0);
  run->c = saved;
  return rc;
}

/* ---- operations ---- */

static int protovm_reg_load(protovm_run *run, proto_span body) {
  uint64_t cursor = 0, reg = 0;
  int rc = protovm_varint(body, PROTOVM_REG_LOAD_CURSOR, PROTOVM_CURSOR_SRC, &cursor, NULL);
  if (!rc) rc = protovm_varint(body, PROTOVM_REG_LOAD_DST_REGISTER, 0, &reg, NULL);
  if (rc) return rc;
  reg = (uint8_t)reg;
  if (reg >= PROTOVM_REGISTERS) return PROTOVM_ABORT;
  uint64_t value;
  if (cursor == PROTOVM_CURSOR_SRC) {
    const protovm_src *s = &run->c.src;
    if (!s->is_field || s->fl.wire_type == PROTO_WIRE_LEN) return PROTOVM_ABORT;
    value = s->fl.value;
  } else {
    if (!run->c.dst || run->c.dst->kind != PROTOVM_SCALAR) return PROTOVM_ABORT;
    value = run->c.dst->value;
  }
  run->vm->regs[reg] = value;
  run->vm->regs_set |= 1u << reg;
  return PROTOVM_OK;
}

static int protovm_delete(protovm_run *run) {
  protovm_tree *t = &run->vm->tree;
  if (!run->c.dst) return PROTOVM_ABORT;
  if (!run->c.parent) {
    protovm_tree_clear(t, run->c.dst); /* the root */
    return PROTOVM_OK;
  }
  long at = protovm_tree_find(run->c.parent, run->c.dst_key);
  int rc = at >= 0 && run->c.parent->entries[at].node == run->c.dst
               ? protovm_tree_remove(t, run->c.parent, (size_t)at)
               : PROTOVM_OK; /* already gone with its parent */
  run->c.dst = NULL;
  return rc;
}

static int protovm_set(protovm_run *run) {
  protovm_node *dst = run->c.dst;
  const protovm_src *s = &run->c.src;
  if (!dst) return PROTOVM_ABORT;
  if (s->is_field && s->fl.wire_type != PROTO_WIRE_LEN) {
    if (dst->kind != PROTOVM_EMPTY && dst->kind != PROTOVM_SCALAR) return PROTOVM_ABORT;
    dst->kind = PROTOVM_SCALAR;
    dst->wire_type = s->fl.wire_type;
    dst->value = s->fl.value;
    return PROTOVM_OK;
  }
  if (dst->kind != PROTOVM_EMPTY && dst->kind != PROTOVM_BYTES && dst->kind != PROTOVM_MESSAGE)
    return PROTOVM_ABORT;
  return protovm_tree_set_bytes(&run->vm->tree, dst, s->fl.span);
}

/* One field of a merged message into message m. */
static int protovm_merge_field(protovm_tree *t, protovm_node *m, const proto_field *fl,
                               int skip_submessages, int del_if_src_empty) {
  long at = protovm_tree_find(m, fl->number);
  protovm_node *old = at >= 0 ? m->entries[at].node : NULL;
  if (old && skip_submessages && old->kind == PROTOVM_MESSAGE) return PROTOVM_OK;
  if (old && del_if_src_empty && fl->wire_type == PROTO_WIRE_LEN && fl->span.len == 0)
    return protovm_tree_remove(t, m, (size_t)at);
  if (old && old->kind == PROTOVM_MAPPED) return PROTOVM_ABORT;
  protovm_node *child;
  int rc = protovm_tree_node_of(t, fl, &child);
  if (rc) return rc;
  if (!old) return protovm_tree_insert(t, m, fl->number, child);
  if (old->kind == PROTOVM_INDEXED) { /* the merged elements replace the old ones */
    if (!old->merged) protovm_tree_clear(t, old);
    old->kind = PROTOVM_INDEXED;
    old->merged = 1;
    return protovm_tree_insert(t, old, old->count, child);
  }
  protovm_tree_free_node(t, old);
  m->entries[at].node = child;
  return PROTOVM_OK;
}

static int protovm_merge(protovm_run *run, proto_span body) {
  uint64_t skip = 0, del = 0;
  int rc = protovm_varint(body, PROTOVM_MERGE_SKIP_SUBMESSAGES, 0, &skip, NULL);
  if (!rc) rc = protovm_varint(body, PROTOVM_MERGE_DEL_IF_SRC_EMPTY, 0, &del, NULL);
  protovm_node *dst = run->c.dst;
  const protovm_src *s = &run->c.src;
  if (rc || !dst || (s->is_field && s->fl.wire_type != PROTO_WIRE_LEN)) return PROTOVM_ABORT;
  if (dst->kind != PROTOVM_EMPTY && dst->kind != PROTOVM_BYTES && dst->kind != PROTOVM_MESSAGE)
    return PROTOVM_ABORT;
  if (s->fl.span.len == 0) return PROTOVM_OK;
  protovm_tree *t = &run->vm->tree;
  rc = protovm_tree_to_message(t, dst);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, s->fl.span);
  while (!rc && proto_reader_next(&r, &fl) == 1)
    rc = protovm_merge_field(t, dst, &fl, skip != 0, del != 0);
  if (!rc && r.status) rc = PROTOVM_ABORT;
  for (size_t i = 0; i < dst->count; i++) dst->entries[i].node->merged = 0;
  return rc;
}

/* ---- instruction lists ---- */

static int protovm_insn_run(protovm_run *run, const protovm_insn *in) {
  int rc;
  switch (in->op) {
    case PROTOVM_INSN_SELECT: return protovm_select(run, in);
    case PROTOVM_INSN_REG_LOAD: rc = protovm_reg_load(run, in->body); break;
    case PROTOVM_INSN_DEL: rc = protovm_delete(run); break;
    case PROTOVM_INSN_MERGE: rc = protovm_merge(run, in->body); break;
    case PROTOVM_INSN_SET: rc = protovm_set(run); break;
    default: return PROTOVM_ABORT; /* no operation */
  }
  return rc ? rc : protovm_list(run, in->self, PROTOVM_INSN_NESTED);
}

/* The instructions in fields `field` of message `parent`, in order. */
static int protovm_list(protovm_run *run, proto_span parent, uint32_t field) {
  if (++run->nesting > PROTOVM_MAX_NESTING) return PROTOVM_ABORT;
  proto_reader r;
  proto_field fl;
  int rc = PROTOVM_OK;
  proto_reader_init_span(&r, parent);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number != field || fl.wire_type != PROTO_WIRE_LEN) continue;
    protovm_insn in = {0};
    if (++run->steps > PROTOVM_MAX_STEPS) rc = PROTOVM_ABORT;
    if (!rc) rc = protovm_decode_insn(fl.span, &in);
    if (!rc) rc = protovm_insn_run(run, &in);
    if (rc != PROTOVM_ERROR) continue;
    uint64_t level = in.has_abort_level ? in.abort_level : PROTOVM_BREAK_OUTER;
    if (level == PROTOVM_ABORT_ALL) rc = PROTOVM_ABORT;
    else if (level != PROTOVM_BREAK_OUTER) rc = PROTOVM_OK; /* skip this one */
  }
  if (!rc && r.status) rc = PROTOVM_ABORT;
  run->nesting--;
  return rc;
}

/* ---- the machine ---- */

int protovm_new(proto_span program, proto_span state, size_t memory_limit, protovm **out) {
  protovm *vm = base_calloc(1, sizeof *vm);
  uint8_t *copy = base_malloc(program.len ? program.len : 1);
  if (!vm || !copy) {
    base_free(vm);
    base_free(copy);
    return WEFT_ENOMEM;
  }
  if (program.len) memcpy(copy, program.data, program.len);
  vm->program = (proto_span){copy, program.len};
  vm->tree.limit = memory_limit;
  int rc = state.len ? protovm_tree_set_bytes(&vm->tree, &vm->tree.root, state) : PROTOVM_OK;
  if (rc < 0) {
    protovm_free(vm);
    return rc;
  }
  *out = vm;
  return WEFT_OK;
}

void protovm_free(protovm *vm) {
  if (!vm) return;
  protovm_tree_reap(&vm->tree);
  VEC_FREE(vm->tree.removed);
  protovm_tree_clear(&vm->tree, &vm->tree.root);
  base_free((void *)vm->program.data);
  base_free(vm);
}

int protovm_apply(protovm *vm, proto_span patch) {
  protovm_run run;
  memset(&run, 0, sizeof run);
  run.vm = vm;
  run.c.src.fl.wire_type = PROTO_WIRE_LEN;
  run.c.src.fl.span = patch;
  run.c.dst = &vm->tree.root;
  run.c.selected = PROTOVM_CURSOR_SRC;
  int rc = protovm_list(&run, vm->program, PROTOVM_PROGRAM_INSTRUCTIONS);
  protovm_tree_reap(&vm->tree);
  return rc;
}

int protovm_serialize(const protovm *vm, base_buf *out) {
  return protovm_tree_write_root(&vm->tree, out);
}

size_t protovm_memory_used(const protovm *vm) { return vm->tree.used; }
