/* protovm: weft's interpreter of ProtoVM programs (VmProgram), which
 * rebuild a producer's full state from the patches it writes instead of
 * the state (incremental tracing).
 *
 * A protovm owns a copy of its program, a tree of nodes holding its state
 * (starting as the bytes of the initial state) and 32 registers. Applying a
 * patch runs the program with a read-only SRC cursor on the patch bytes and
 * a read-write DST cursor on the state's root:
 *  - an instruction is one of select, reg_load, del, merge, set (the first
 *    present in that order); an instruction that succeeds runs its
 *    nested_instructions. A select moves the selected cursor (SRC by
 *    default; any other value moves DST only) down its relative_path (field
 *    ids; a field id followed by an array_index enters that element; one
 *    followed by a map_key_field_id enters the element whose key field
 *    equals register register_to_match; is_repeated runs the rest once per
 *    element, SRC or DST only), then runs the nested instructions; DST
 *    fields are entered only when present unless create_if_not_exist.
 *  - an ERROR (a field not found) ends the instruction; by its abort_level
 *    it skips to the next one (1, or an unknown level), ends the enclosing
 *    list with the error (2, the default) or aborts (3). An ABORT (a
 *    malformed program or patch, a type mismatch, a limit) ends the patch.
 *  - the patch succeeds when the top-level list ends without error or
 *    abort; what an erring or aborted patch changed before it stopped
 *    stays in the state.
 * Invariants: the state's nodes and byte copies never charge more than the
 * memory limit given at creation (PROTOVM_NODE_COST per node below the
 * root, a node and its entry of 48 bytes each as Perfetto's allocator
 * counts them, so that the same states fit, plus the bytes); a patch runs at most PROTOVM_MAX_STEPS instructions, nests
 * instruction lists at most PROTOVM_MAX_NESTING deep and its cursors enter
 * at most PROTOVM_MAX_DEPTH levels; past any of these it aborts. Pure: no
 * stats or model writes (the caller counts). */
#ifndef WEFT_PROTOVM_H
#define WEFT_PROTOVM_H

#include "base/base.h"
#include "import/proto/proto_wire.h"

#define PROTOVM_NODE_COST 96
#define PROTOVM_MAX_STEPS (1u << 20)
#define PROTOVM_MAX_NESTING 32
#define PROTOVM_MAX_DEPTH 128
#define PROTOVM_MAX_PATH 32
#define PROTOVM_REGISTERS 32

/* What a patch (or one instruction) gave; a negative WEFT_E* code is a
 * failure of the machine itself (WEFT_ENOMEM). */
enum protovm_status { PROTOVM_OK = 0, PROTOVM_ERROR = 1, PROTOVM_ABORT = 2 };

typedef struct protovm protovm;

/* A machine for `program` (copied) whose state starts as the bytes of
 * `state` (copied; an empty state when they exceed memory_limit). */
int protovm_new(proto_span program, proto_span state, size_t memory_limit, protovm **out);
void protovm_free(protovm *vm);
/* Runs the program on `patch`: a protovm_status, or WEFT_ENOMEM. */
int protovm_apply(protovm *vm, proto_span patch);
/* Appends the state's serialization to out (fields in id order, repeated
 * elements in index or key order): WEFT_OK, WEFT_ENOMEM or WEFT_ELIMIT. */
int protovm_serialize(const protovm *vm, base_buf *out);
/* Bytes charged by the state now. */
size_t protovm_memory_used(const protovm *vm);

#endif
