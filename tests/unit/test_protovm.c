/* Unit tests for src/import/proto/protovm: each instruction, nested and
 * repeated selects, deletes, merges, abort levels and malformed
 * programs, on programs and patches hand-encoded here. */
#include "check.h"
#include "import/proto/protovm.h"
/* Only its protobuf writer is used here. */
#pragma GCC diagnostic ignored "-Wunused-function"
#include "proto_test_util.h"

enum { SELECT = 1, REG_LOAD = 2, MERGE = 3, SET = 4, DEL = 5 };
enum { SRC = 1, DST = 2 };

/* ---- program builders ---- */

static void path_component(pb *sel, uint32_t kind, uint64_t v, uint32_t kind2, uint64_t v2) {
  pb c = {0};
  pb_int(&c, kind, v);
  if (kind2) pb_int(&c, kind2, v2);
  pb_msg(sel, 2, &c);
}
static void path_field(pb *sel, uint64_t id) { path_component(sel, 1, id, 0, 0); }
static void path_repeated(pb *sel, uint64_t id) { path_component(sel, 1, id, 5, 1); }
static void path_index(pb *sel, uint64_t i) { path_component(sel, 2, i, 0, 0); }
static void path_key(pb *sel, uint64_t key_field, uint64_t reg) {
  path_component(sel, 3, key_field, 6, reg);
}

/* A VmOpSelect of cursor (0: absent) and create_if_not_exist. */
static pb select_op(uint64_t cursor, int create) {
  pb s = {0};
  if (cursor) pb_int(&s, 1, cursor);
  if (create) pb_int(&s, 3, 1);
  return s;
}

/* An instruction: operation op with body, abort_level (0: absent), nested. */
static pb insn(uint32_t op, const pb *body, int level, const pb *nested, size_t n) {
  pb in = {0};
  pb empty = {0};
  pb_msg(&in, op, body ? body : &empty);
  if (level) pb_int(&in, 6, (uint64_t)level);
  for (size_t i = 0; i < n; i++) pb_msg(&in, 7, &nested[i]);
  return in;
}
static pb op(uint32_t code) { return insn(code, NULL, 0, NULL, 0); }

static pb program(const pb *insns, size_t n) {
  pb p = {0};
  for (size_t i = 0; i < n; i++) pb_msg(&p, 2, &insns[i]);
  return p;
}

/* select SRC [src_field] { select DST [dst_field] create { set } } */
static pb copy_field(uint64_t src_field, uint64_t dst_field, int level) {
  pb set = op(SET);
  pb dsel = select_op(DST, 1);
  path_field(&dsel, dst_field);
  pb inner = insn(SELECT, &dsel, 0, &set, 1);
  pb ssel = select_op(0, 0);
  path_field(&ssel, src_field);
  return insn(SELECT, &ssel, level, &inner, 1);
}

/* ---- running ---- */

static protovm *machine(const pb *prog, const pb *state, size_t limit) {
  protovm *vm = NULL;
  proto_span p = {prog->b, prog->n}, s = {state ? state->b : NULL, state ? state->n : 0};
  CHECK(protovm_new(p, s, limit, &vm) == WEFT_OK);
  return vm;
}

static int apply(protovm *vm, const pb *patch) {
  return protovm_apply(vm, (proto_span){patch->b, patch->n});
}

static int state_is(const protovm *vm, const pb *want) {
  base_buf out;
  base_buf_init(&out, 1 << 20);
  int ok = protovm_serialize(vm, &out) == WEFT_OK && out.len == want->n &&
           (want->n == 0 || memcmp(out.data, want->b, want->n) == 0);
  base_buf_free(&out);
  return ok;
}

/* ---- tests ---- */

static void test_set_scalar_and_bytes(void) {
  pb insns[2] = {copy_field(1, 5, 0), copy_field(2, 3, 0)};
  pb prog = program(insns, 2), state = {0}, patch = {0}, want = {0};
  pb_str(&state, 4, "kept");
  protovm *vm = machine(&prog, &state, 4096);
  pb_int(&patch, 1, 42);
  pb_str(&patch, 2, "abc");
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_str(&want, 3, "abc"); /* fields in id order */
  pb_str(&want, 4, "kept");
  pb_int(&want, 5, 42);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_abort_levels(void) {
  pb missing_default[2] = {copy_field(9, 5, 0), copy_field(1, 6, 0)};
  pb missing_skip[2] = {copy_field(9, 5, 1), copy_field(1, 6, 0)};
  pb patch = {0}, want = {0};
  pb_int(&patch, 1, 7);
  /* default: the error ends the list, the patch is not taken */
  pb prog = program(missing_default, 2);
  protovm *vm = machine(&prog, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ERROR);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
  /* SKIP_CURRENT_INSTRUCTION: the next one runs */
  prog = program(missing_skip, 2);
  vm = machine(&prog, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_int(&want, 6, 7);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_abort_keeps_changes(void) {
  pb insns[2] = {copy_field(1, 6, 0), copy_field(9, 5, 3)}; /* ABORT */
  pb prog = program(insns, 2), state = {0}, patch = {0}, want = {0};
  pb_int(&state, 6, 1);
  protovm *vm = machine(&prog, &state, 4096);
  pb_int(&patch, 1, 2);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ABORT);
  pb_int(&want, 6, 2); /* not rolled back */
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_dst_select_needs_create(void) {
  pb set = op(SET);
  pb dsel = select_op(DST, 0);
  path_field(&dsel, 5);
  pb inner = insn(SELECT, &dsel, 0, &set, 1);
  pb ssel = select_op(0, 0);
  path_field(&ssel, 1);
  pb outer = insn(SELECT, &ssel, 0, &inner, 1);
  pb prog = program(&outer, 1), patch = {0}, state = {0}, want = {0};
  pb_int(&patch, 1, 3);
  protovm *vm = machine(&prog, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ERROR); /* field 5 absent */
  protovm_free(vm);
  pb_int(&state, 5, 1);
  vm = machine(&prog, &state, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_int(&want, 5, 3);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_nested_paths(void) {
  /* select SRC [1, 2] { select DST [7, 8] create { set } } */
  pb set = op(SET);
  pb dsel = select_op(DST, 1);
  path_field(&dsel, 7);
  path_field(&dsel, 8);
  pb inner = insn(SELECT, &dsel, 0, &set, 1);
  pb ssel = select_op(0, 0);
  path_field(&ssel, 1);
  path_field(&ssel, 2);
  pb outer = insn(SELECT, &ssel, 0, &inner, 1);
  pb prog = program(&outer, 1), state = {0}, sub = {0}, patch = {0}, want = {0}, w7 = {0};
  pb_str(&sub, 1, "x");
  pb_msg(&state, 7, &sub); /* bytes, decoded when entered */
  pb one = {0};
  pb_int(&one, 2, 99);
  pb_msg(&patch, 1, &one);
  protovm *vm = machine(&prog, &state, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_str(&w7, 1, "x");
  pb_int(&w7, 8, 99);
  pb_msg(&want, 7, &w7);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

/* select SRC [3 repeated] { select SRC [1] { reg_load R1 }
 *   select DST [4, key 1 = R1] create { <body> } } */
static pb keyed_program(uint32_t body_op) {
  pb reg = {0};
  pb_int(&reg, 2, 1);
  pb load = insn(REG_LOAD, &reg, 0, NULL, 0);
  pb key_sel = select_op(0, 0);
  path_field(&key_sel, 1);
  pb body = op(body_op);
  pb dsel = select_op(DST, 1);
  path_field(&dsel, 4);
  path_key(&dsel, 1, 1);
  pb each[2] = {insn(SELECT, &key_sel, 0, &load, 1), insn(SELECT, &dsel, 0, &body, 1)};
  pb ssel = select_op(0, 0);
  path_repeated(&ssel, 3);
  pb outer = insn(SELECT, &ssel, 0, each, 2);
  return program(&outer, 1);
}

static pb keyed_entry(uint64_t key, const char *value) {
  pb e = {0};
  pb_int(&e, 1, key);
  if (value) pb_str(&e, 2, value);
  return e;
}

static void test_mapped_merge_and_delete(void) {
  pb prog = keyed_program(MERGE), patch = {0}, want = {0};
  pb e11 = keyed_entry(11, "b"), e10 = keyed_entry(10, "a");
  pb_msg(&patch, 3, &e11);
  pb_msg(&patch, 3, &e10);
  protovm *vm = machine(&prog, NULL, 8192);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_msg(&want, 4, &e10); /* by key */
  pb_msg(&want, 4, &e11);
  CHECK(state_is(vm, &want));
  pb update = {0}, e10c = keyed_entry(10, "c");
  pb_msg(&update, 3, &e10c);
  CHECK_EQ_INT(apply(vm, &update), PROTOVM_OK);
  want.n = 0;
  pb_msg(&want, 4, &e10c);
  pb_msg(&want, 4, &e11);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
  /* the same keys deleted */
  pb del_prog = keyed_program(DEL), gone = {0}, k11 = keyed_entry(11, NULL);
  vm = machine(&del_prog, &want, 8192);
  pb_msg(&gone, 3, &k11);
  CHECK_EQ_INT(apply(vm, &gone), PROTOVM_OK);
  want.n = 0;
  pb_msg(&want, 4, &e10c);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_mapped_duplicate_keys_keep_the_first(void) {
  pb prog = keyed_program(MERGE), state = {0}, patch = {0}, want = {0};
  pb a = keyed_entry(5, "a"), b = keyed_entry(5, "b"), c = keyed_entry(6, "c");
  pb c2 = keyed_entry(6, "C");
  pb_msg(&state, 4, &a);
  pb_msg(&state, 4, &b);
  pb_msg(&state, 4, &c);
  pb_msg(&patch, 3, &c2);
  protovm *vm = machine(&prog, &state, 8192);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_msg(&want, 4, &a);
  pb_msg(&want, 4, &c2);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_dst_iteration_deletes(void) {
  pb del = op(DEL);
  pb dsel = select_op(DST, 0);
  path_repeated(&dsel, 4);
  pb outer = insn(SELECT, &dsel, 0, &del, 1);
  pb prog = program(&outer, 1), state = {0}, patch = {0}, want = {0};
  for (int i = 0; i < 3; i++) {
    pb e = keyed_entry((uint64_t)i, NULL);
    pb_msg(&state, 4, &e);
  }
  pb_int(&state, 5, 1);
  protovm *vm = machine(&prog, &state, 8192);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_int(&want, 5, 1);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

/* select SRC [1] { merge {opts} } on state. */
static protovm *merged(const pb *state, const pb *patch_body, int skip, int del, int *status) {
  pb opts = {0};
  if (skip) pb_int(&opts, 1, 1);
  if (del) pb_int(&opts, 2, 1);
  pb merge = insn(MERGE, &opts, 0, NULL, 0);
  pb ssel = select_op(0, 0);
  path_field(&ssel, 1);
  pb outer = insn(SELECT, &ssel, 0, &merge, 1);
  pb prog = program(&outer, 1), patch = {0};
  pb_msg(&patch, 1, patch_body);
  protovm *vm = machine(&prog, state, 8192);
  *status = apply(vm, &patch);
  return vm;
}

static void test_merge_rules(void) {
  int status;
  pb state = {0}, body = {0}, want = {0}, sub = {0};
  pb_int(&state, 6, 1);
  pb_int(&state, 6, 2);
  pb_str(&state, 7, "old");
  pb_int(&body, 6, 3);
  pb_str(&body, 8, "new");
  protovm *vm = merged(&state, &body, 0, 0, &status);
  CHECK_EQ_INT(status, PROTOVM_OK);
  pb_int(&want, 6, 3); /* repeated: replaced as a whole */
  pb_str(&want, 7, "old");
  pb_str(&want, 8, "new");
  CHECK(state_is(vm, &want));
  protovm_free(vm);
  /* del_if_src_empty: an empty field deletes */
  body.n = want.n = 0;
  pb_str(&body, 7, "");
  vm = merged(&state, &body, 0, 1, &status);
  CHECK_EQ_INT(status, PROTOVM_OK);
  pb_int(&want, 6, 1);
  pb_int(&want, 6, 2);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
  /* skip_submessages: a field decoded as a message is kept */
  state.n = body.n = want.n = 0;
  pb_str(&sub, 1, "inner");
  pb_msg(&state, 9, &sub);
  pb_str(&body, 9, "replaced");
  vm = merged(&state, &body, 1, 0, &status);
  CHECK_EQ_INT(status, PROTOVM_OK);
  pb_str(&want, 9, "replaced"); /* still bytes, so replaced */
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_merge_skips_decoded_submessage(void) {
  /* select DST [9, 1] { } decodes field 9; then merge skip_submessages */
  pb dsel = select_op(DST, 0);
  path_field(&dsel, 9);
  path_field(&dsel, 1);
  pb opts = {0};
  pb_int(&opts, 1, 1);
  pb merge = insn(MERGE, &opts, 0, NULL, 0);
  pb ssel = select_op(0, 0);
  path_field(&ssel, 1);
  pb insns[2] = {insn(SELECT, &dsel, 1, NULL, 0), insn(SELECT, &ssel, 0, &merge, 1)};
  pb prog = program(insns, 2), state = {0}, sub = {0}, body = {0}, patch = {0}, want = {0};
  pb_str(&sub, 1, "inner");
  pb_msg(&state, 9, &sub);
  pb_str(&body, 9, "replaced");
  pb_int(&body, 10, 5);
  pb_msg(&patch, 1, &body);
  protovm *vm = machine(&prog, &state, 8192);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_OK);
  pb_msg(&want, 9, &sub);
  pb_int(&want, 10, 5);
  CHECK(state_is(vm, &want));
  protovm_free(vm);
}

static void test_array_index(void) {
  /* select DST [4, index i] create { select SRC [1] { set } } */
  pb set = op(SET);
  pb ssel = select_op(0, 0);
  path_field(&ssel, 1);
  pb inner = insn(SELECT, &ssel, 0, &set, 1);
  pb want = {0}, patch = {0};
  pb_int(&patch, 1, 8);
  for (uint64_t i = 0; i < 3; i += 2) {
    pb dsel = select_op(DST, 1);
    path_field(&dsel, 4);
    path_index(&dsel, i);
    pb outer = insn(SELECT, &dsel, 0, &inner, 1);
    pb prog = program(&outer, 1);
    protovm *vm = machine(&prog, NULL, 4096);
    /* index 0 appends; index 2 of an empty field is past the end */
    CHECK_EQ_INT(apply(vm, &patch), i == 0 ? PROTOVM_OK : PROTOVM_ABORT);
    if (i == 0) pb_int(&want, 4, 8);
    CHECK(state_is(vm, &want));
    want.n = 0;
    protovm_free(vm);
  }
}

static void test_bad_programs(void) {
  pb patch = {0};
  pb_int(&patch, 1, 1);
  /* an instruction with no operation */
  pb none = {0};
  pb_int(&none, 6, 2);
  pb prog = program(&none, 1);
  protovm *vm = machine(&prog, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ABORT);
  protovm_free(vm);
  /* malformed bytes */
  pb garbage = {{0x12, 0x05, 0x0a}, 3};
  vm = machine(&garbage, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ABORT);
  protovm_free(vm);
  /* SRC with create_if_not_exist */
  pb set = op(SET), sel = select_op(SRC, 1);
  path_field(&sel, 1);
  pb bad = insn(SELECT, &sel, 0, &set, 1);
  prog = program(&bad, 1);
  vm = machine(&prog, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ABORT);
  protovm_free(vm);
  /* a register read before it is loaded */
  pb key_sel = select_op(DST, 1);
  path_field(&key_sel, 4);
  path_key(&key_sel, 1, 5);
  pb keyed = insn(SELECT, &key_sel, 0, &set, 1);
  prog = program(&keyed, 1);
  vm = machine(&prog, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ABORT);
  protovm_free(vm);
}

static void test_limits(void) {
  pb patch = {0}, empty = {0};
  pb_int(&patch, 1, 1);
  /* nesting past PROTOVM_MAX_NESTING */
  pb in = op(SET), sel = select_op(0, 0);
  for (int i = 0; i < PROTOVM_MAX_NESTING + 2; i++) in = insn(SELECT, &sel, 0, &in, 1);
  pb prog = program(&in, 1);
  protovm *vm = machine(&prog, NULL, 4096);
  CHECK_EQ_INT(apply(vm, &patch), PROTOVM_ABORT);
  protovm_free(vm);
  /* memory: a copy larger than the limit aborts, the state stays */
  pb big = {0};
  char text[600];
  memset(text, 'x', sizeof text - 1);
  text[sizeof text - 1] = 0;
  pb_str(&big, 2, text);
  pb copy = copy_field(2, 3, 0);
  prog = program(&copy, 1);
  vm = machine(&prog, NULL, 512);
  CHECK_EQ_INT(apply(vm, &big), PROTOVM_ABORT);
  CHECK(state_is(vm, &empty));
  CHECK(protovm_memory_used(vm) <= 512);
  protovm_free(vm);
}

int main(void) {
  RUN_TEST(test_set_scalar_and_bytes);
  RUN_TEST(test_abort_levels);
  RUN_TEST(test_abort_keeps_changes);
  RUN_TEST(test_dst_select_needs_create);
  RUN_TEST(test_nested_paths);
  RUN_TEST(test_mapped_merge_and_delete);
  RUN_TEST(test_mapped_duplicate_keys_keep_the_first);
  RUN_TEST(test_dst_iteration_deletes);
  RUN_TEST(test_merge_rules);
  RUN_TEST(test_merge_skips_decoded_submessage);
  RUN_TEST(test_array_index);
  RUN_TEST(test_bad_programs);
  RUN_TEST(test_limits);
  return CHECK_SUMMARY();
}
