/* proto_ref: 64-bit references to the bytes of a queued proto event, so
 * that a sort payload is all an event costs until it is parsed.
 *
 * Owns the virtual offsets of the importer's buffers and the table of
 * contexts. The file's bytes are virtual offsets [0, f->len); each inflated
 * compressed_packets buffer follows the previous one. A span is referenced
 * by the virtual offset of its length prefix (the varint right before it),
 * re-decoded on use, and by the index of its context: what the tokenizer
 * knew of it (sequence, incremental-state generation, defaults, machine,
 * cpu). Equal contexts share one entry.
 * Payload layout: bit 63 = ftrace event, bit 62 = side record (an index the
 * caller keeps its own table for), bits 40..61 = context index, bits 0..39
 * = virtual offset. A span whose prefix is not the canonical varint of its
 * length, a virtual offset past 2^40 or more than 2^22 contexts cannot be
 * referenced: proto_ref_make says so and the caller keeps a side record.
 * Invariants: referenced bytes stay alive and unmodified until parsing ends;
 * proto_ref_enter/leave bracket the tokenizing of every buffer. */
#ifndef WEFT_PROTO_REF_H
#define WEFT_PROTO_REF_H

#include "base/base.h"
#include "import/proto/proto_wire.h"
#include "sort/sort.h"

#define PROTO_REF_FTRACE (UINT64_C(1) << 63)
#define PROTO_REF_SIDE (UINT64_C(1) << 62)
#define PROTO_REF_OFFSET_BITS 40
#define PROTO_REF_CTX_BITS 22

typedef struct proto_ref_ctx {
  proto_span defaults;     /* the sequence's TracePacketDefaults, if any */
  uint32_t seq;            /* index into proto_import_state.seqs */
  uint32_t generation;     /* incremental-state generation of the sequence */
  uint32_t machine;        /* machine row (import_machine) */
  uint32_t cpu;            /* ftrace: the bundle's cpu; else 0 */
} proto_ref_ctx;

typedef struct proto_ref_buffer {
  const uint8_t *data;
  size_t len;
  uint64_t base;           /* virtual offset of data[0] */
  uint64_t holds;          /* queued events reading it (inflated buffers) */
  int pinned;              /* something lives as long as the importer */
} proto_ref_buffer;

typedef struct proto_refs {
  VEC(proto_ref_buffer) buffers; /* [0] = the file; then inflated, in order */
  uint64_t next_base;
  uint32_t current;        /* index of the buffer being tokenized */
  VEC(proto_ref_ctx) ctxs;
  base_map ctx_by_hash;    /* hash of a context -> index into ctxs */
  uint32_t last_ctx;       /* the index found last (a memo; checked) */
} proto_refs;

void proto_refs_free(proto_refs *r);
/* Starts tokenizing a buffer (the file, or an inflated one that lives as
 * long as the refs); *saved restores the previous one in proto_ref_leave. */
int proto_ref_enter(proto_refs *r, const uint8_t *data, size_t len,
                    uint32_t *saved);
void proto_ref_leave(proto_refs *r, uint32_t saved);
/* A reference to `span` (inside the buffer being tokenized) in context `c`:
 * 1 and *payload, 0 if it cannot be referenced, WEFT_ENOMEM. */
int proto_ref_make(proto_refs *r, proto_span span, const proto_ref_ctx *c,
                   uint64_t *payload);
/* The span and context of a payload made by proto_ref_make, and the index
 * of its buffer; 0 if it does not resolve (never for a payload made by this
 * refs). */
int proto_ref_resolve(const proto_refs *r, uint64_t payload, proto_span *span,
                      const proto_ref_ctx **c, uint32_t *buffer);
/* Where references point, as a prefetch rule on payloads (sort.h): those
 * made in the first buffer (the file) at their virtual offset there; no
 * hint for side records and inflated buffers. */
static inline void proto_ref_locate_rule(const proto_refs *r, sort_locate_rule *rule) {
  if (!r->buffers.len) return;
  *rule = (sort_locate_rule){r->buffers.data[0].data, r->buffers.data[0].len,
                             (UINT64_C(1) << PROTO_REF_OFFSET_BITS) - 1, PROTO_REF_SIDE,
                             {NULL, NULL}};
}

#endif
