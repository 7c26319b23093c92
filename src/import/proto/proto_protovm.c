/* ProtoVM incremental tracing at tokenize (see proto_protovm.h). */
#include "import/proto/proto_protovm.h"

#include "import/proto/proto_fields.h"
#include "import/proto/proto_import.h"
#include "import/proto/protovm.h"

/* TraceProvenance, TracePacket.ProtoVms(.Instance) field numbers. */
#define PROTO_PROVENANCE_BUFFERS 2
#define PROTO_PROVENANCE_BUFFER_SEQUENCES 1
#define PROTO_PROVENANCE_SEQUENCE_ID 1
#define PROTO_PROVENANCE_SEQUENCE_PRODUCER_ID 2
#define PROTO_PROTOVMS_INSTANCE 1
#define PROTO_PROTOVMS_PROGRAM 1
#define PROTO_PROTOVMS_STATE 2
#define PROTO_PROTOVMS_MEMORY_LIMIT_KB 3
#define PROTO_PROTOVMS_PRODUCER_ID 4

typedef struct proto_protovm_link {
  uint32_t from, to; /* producer -> sequence id, or sequence id -> machine */
} proto_protovm_link;

struct proto_protovm_state {
  VEC(proto_protovm_link) producers; /* producer id -> sequence id */
  VEC(proto_protovm_link) sequences; /* sequence id -> machine index */
  VEC(protovm *) machines;
  base_map has_machine; /* sequence id -> 1, for the sequences with links */
  uint64_t budget_used;
  base_buf scratch; /* a machine's state being serialized */
};

int proto_protovm_wants(const proto_protovm_state *s, const proto_packet_head *h) {
  return h->has_provenance || h->has_protovms || (s && s->sequences.len);
}

static int proto_protovm_link_add(proto_protovm_state *s, int producers, uint32_t from,
                                  uint32_t to) {
  if (producers) {
    if (s->producers.len >= PROTO_PROTOVM_MAX_LINKS) return WEFT_OK;
    return VEC_PUSH(s->producers, ((proto_protovm_link){from, to}));
  }
  if (s->sequences.len >= PROTO_PROTOVM_MAX_LINKS) return WEFT_OK;
  uint64_t *slot;
  if (base_map_insert(&s->has_machine, from, 1, &slot) < 0) return WEFT_ENOMEM;
  return VEC_PUSH(s->sequences, ((proto_protovm_link){from, to}));
}

static int proto_protovm_sequence(proto_protovm_state *s, proto_span seq) {
  uint64_t id = 0, producer = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, seq);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_VARINT) continue;
    if (fl.number == PROTO_PROVENANCE_SEQUENCE_ID) id = fl.value;
    if (fl.number == PROTO_PROVENANCE_SEQUENCE_PRODUCER_ID) producer = fl.value;
  }
  return proto_protovm_link_add(s, 1, (uint32_t)producer, (uint32_t)id);
}

static int proto_protovm_provenance(proto_protovm_state *s, proto_span provenance) {
  proto_reader r, br;
  proto_field fl, bf;
  proto_reader_init_span(&r, provenance);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_PROVENANCE_BUFFERS || fl.wire_type != PROTO_WIRE_LEN) continue;
    proto_reader_init_span(&br, fl.span);
    while (proto_reader_next(&br, &bf) == 1) {
      if (bf.number != PROTO_PROVENANCE_BUFFER_SEQUENCES || bf.wire_type != PROTO_WIRE_LEN)
        continue;
      int rc = proto_protovm_sequence(s, bf.span);
      if (rc) return rc;
    }
  }
  return WEFT_OK;
}

/* Attaches machine m to the sequences of `producer`. */
static int proto_protovm_attach(import_file *f, proto_protovm_state *s, uint32_t m,
                                uint32_t producer) {
  int found = 0;
  for (size_t i = 0; i < s->producers.len; i++) {
    if (s->producers.data[i].from != producer) continue;
    found = 1;
    int rc = proto_protovm_link_add(s, 0, s->producers.data[i].to, m);
    if (rc) return rc;
  }
  return found ? WEFT_OK : import_stat(f, stat_protovm_registration_error, 1);
}

/* A machine for one Instance, within the budget left. */
static int proto_protovm_instance(import_file *f, proto_protovm_state *s, proto_span inst) {
  proto_span program = {NULL, 0}, state = {NULL, 0};
  uint64_t limit_kb = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, inst);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_PROTOVMS_PROGRAM && fl.wire_type == PROTO_WIRE_LEN) program = fl.span;
    if (fl.number == PROTO_PROTOVMS_STATE && fl.wire_type == PROTO_WIRE_LEN) state = fl.span;
    if (fl.number == PROTO_PROTOVMS_MEMORY_LIMIT_KB && fl.wire_type == PROTO_WIRE_VARINT)
      limit_kb = (uint32_t)fl.value;
  }
  if (s->machines.len >= PROTO_PROTOVM_MAX_MACHINES)
    return import_stat(f, stat_protovm_registration_error, 1);
  uint64_t limit = limit_kb * 1024, left = PROTO_PROTOVM_BUDGET - s->budget_used;
  if (limit > left) limit = left;
  s->budget_used += limit;
  protovm *vm;
  int rc = protovm_new(program, state, (size_t)limit, &vm);
  if (!rc && VEC_PUSH(s->machines, vm)) {
    protovm_free(vm);
    rc = WEFT_ENOMEM;
  }
  uint32_t m = (uint32_t)s->machines.len - 1;
  proto_reader_init_span(&r, inst);
  while (!rc && proto_reader_next(&r, &fl) == 1) {
    if (fl.number == PROTO_PROTOVMS_PRODUCER_ID && fl.wire_type == PROTO_WIRE_VARINT)
      rc = proto_protovm_attach(f, s, m, (uint32_t)fl.value);
  }
  return rc;
}

static int proto_protovm_instances(import_file *f, proto_protovm_state *s, proto_span vms) {
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, vms);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_PROTOVMS_INSTANCE || fl.wire_type != PROTO_WIRE_LEN) continue;
    int rc = proto_protovm_instance(f, s, fl.span);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* The replacement of patch pkt: the state in s->scratch, then the patch's
 * trusted fields, framed as field 1 of a Trace. */
static int proto_protovm_frame(import_file *f, proto_protovm_state *s, proto_span pkt,
                               base_buf *out) {
  proto_field uid, pid, seq, machine;
  base_buf *b = &s->scratch;
  int has_machine = proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_MACHINE_ID, &machine) == 1;
  int rc = proto_put_varint_field(
      b, PROTO_TRACE_PACKET_TRUSTED_UID,
      proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_TRUSTED_UID, &uid) == 1 ? uid.value : 0);
  if (!rc)
    rc = proto_put_varint_field(
        b, PROTO_TRACE_PACKET_TRUSTED_PID,
        proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_TRUSTED_PID, &pid) == 1 ? pid.value : 0);
  if (!rc)
    rc = proto_put_varint_field(
        b, PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID,
        proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_TRUSTED_PACKET_SEQUENCE_ID, &seq) == 1
            ? seq.value : 0);
  if (!rc && has_machine) rc = proto_put_varint_field(b, PROTO_TRACE_PACKET_MACHINE_ID, machine.value);
  if (rc) return rc;
  proto_import_state *st = f->state;
  if (proto_inflate_cap(&f->ctx->options, f->len, st->inflated_bytes, b->len) < b->len + 16)
    return import_stat(f, stat_protovm_snapshots_over_limit, 1); /* dropped */
  base_buf_init(out, b->len + 16);
  rc = proto_put_bytes_field(out, 1, b->data, b->len);
  if (rc) base_buf_free(out);
  return rc;
}

/* Runs patch pkt of sequence seq_id on its machines. */
static int proto_protovm_patch(import_file *f, proto_protovm_state *s, proto_span pkt,
                               uint32_t seq_id, int *taken, base_buf *rebuilt) {
  if (!base_map_find(&s->has_machine, seq_id)) return WEFT_OK;
  for (size_t i = 0; i < s->sequences.len; i++) {
    if (s->sequences.data[i].from != seq_id) continue;
    protovm *vm = s->machines.data[s->sequences.data[i].to];
    int status = protovm_apply(vm, pkt);
    if (status < 0) return status;
    if (status == PROTOVM_ABORT) {
      int rc = import_stat(f, stat_protovm_abort, 1);
      if (rc) return rc;
    }
    if (status != PROTOVM_OK) continue;
    *taken = 1;
    base_buf_reset(&s->scratch);
    int rc = protovm_serialize(vm, &s->scratch);
    return rc ? rc : proto_protovm_frame(f, s, pkt, rebuilt);
  }
  return WEFT_OK;
}

int proto_protovm_packet(import_file *f, proto_protovm_state **state, proto_span pkt,
                         const proto_packet_head *h, int *taken, base_buf *rebuilt) {
  *taken = 0;
  memset(rebuilt, 0, sizeof *rebuilt);
  if (!*state) {
    *state = base_calloc(1, sizeof **state);
    if (!*state) return WEFT_ENOMEM;
    base_buf_init(&(*state)->scratch, SIZE_MAX - 2);
  }
  proto_protovm_state *s = *state;
  if (h->has_provenance) return proto_protovm_provenance(s, h->provenance);
  if (h->has_protovms) return proto_protovm_instances(f, s, h->protovms);
  return proto_protovm_patch(f, s, pkt, h->seq_id, taken, rebuilt);
}

void proto_protovm_free(proto_protovm_state *s) {
  if (!s) return;
  for (size_t i = 0; i < s->machines.len; i++) protovm_free(s->machines.data[i]);
  VEC_FREE(s->machines);
  VEC_FREE(s->producers);
  VEC_FREE(s->sequences);
  base_map_free(&s->has_machine);
  base_buf_free(&s->scratch);
  base_free(s);
}
