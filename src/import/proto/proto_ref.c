/* Compact references to queued proto events. See proto_ref.h. */
#include "import/proto/proto_ref.h"

#define PROTO_REF_OFFSET_MASK ((UINT64_C(1) << PROTO_REF_OFFSET_BITS) - 1)
#define PROTO_REF_CTX_MASK ((UINT64_C(1) << PROTO_REF_CTX_BITS) - 1)

void proto_refs_free(proto_refs *r) {
  VEC_FREE(r->buffers);
  VEC_FREE(r->ctxs);
  base_map_free(&r->ctx_by_hash);
  memset(r, 0, sizeof *r);
}

int proto_ref_enter(proto_refs *r, const uint8_t *data, size_t len,
                    uint32_t *saved) {
  proto_ref_buffer b = {data, len, r->next_base, 0, 0};
  if (VEC_PUSH(r->buffers, b)) return WEFT_ENOMEM;
  *saved = r->current;
  r->current = (uint32_t)(r->buffers.len - 1);
  /* Past 2^40 nothing is referenced compactly any more (proto_ref_make). */
  r->next_base = len > UINT64_MAX - r->next_base ? UINT64_MAX : r->next_base + len;
  return WEFT_OK;
}

void proto_ref_leave(proto_refs *r, uint32_t saved) { r->current = saved; }

static int proto_ref_ctx_equal(const proto_ref_ctx *a, const proto_ref_ctx *b) {
  return a->defaults.data == b->defaults.data && a->defaults.len == b->defaults.len &&
         a->seq == b->seq && a->generation == b->generation &&
         a->machine == b->machine && a->cpu == b->cpu;
}

static uint64_t proto_ref_ctx_hash(const proto_ref_ctx *c) {
  uint64_t h = base_hash_u64((uint64_t)c->seq << 32 | c->generation);
  h = base_hash_u64(h ^ ((uint64_t)c->machine << 32 | c->cpu));
  h = base_hash_u64(h ^ (uint64_t)(uintptr_t)c->defaults.data);
  h = base_hash_u64(h ^ c->defaults.len);
  return h == UINT64_MAX ? 0 : h;
}

static int proto_ref_ctx_lookup(proto_refs *r, const proto_ref_ctx *c, uint32_t *index);

/* Index of context `c`, added if new; UINT32_MAX when the table is full. */
static int proto_ref_ctx_index(proto_refs *r, const proto_ref_ctx *c, uint32_t *index) {
  /* Consecutive events mostly share their context. */
  if (r->last_ctx < r->ctxs.len && proto_ref_ctx_equal(&r->ctxs.data[r->last_ctx], c)) {
    *index = r->last_ctx;
    return WEFT_OK;
  }
  int rc = proto_ref_ctx_lookup(r, c, index);
  if (!rc && *index != UINT32_MAX) r->last_ctx = *index;
  return rc;
}

/* proto_ref_ctx_index without the memo. */
static int proto_ref_ctx_lookup(proto_refs *r, const proto_ref_ctx *c, uint32_t *index) {
  uint64_t hash = proto_ref_ctx_hash(c);
  uint64_t *slot = base_map_find(&r->ctx_by_hash, hash);
  if (slot && proto_ref_ctx_equal(&r->ctxs.data[*slot], c)) {
    *index = (uint32_t)*slot;
    return WEFT_OK;
  }
  if (r->ctxs.len > PROTO_REF_CTX_MASK) {
    *index = UINT32_MAX;
    return WEFT_OK;
  }
  if (VEC_PUSH(r->ctxs, *c)) return WEFT_ENOMEM;
  *index = (uint32_t)(r->ctxs.len - 1);
  if (!slot && base_map_insert(&r->ctx_by_hash, hash, *index, &slot) < 0) return WEFT_ENOMEM;
  /* On a hash collision the first context keeps the slot; later ones
   * just get entries of their own. */
  return WEFT_OK;
}

static int proto_varint_size(uint64_t v) {
  int n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

int proto_ref_make(proto_refs *r, proto_span span, const proto_ref_ctx *c,
                   uint64_t *payload) {
  if (!r->buffers.len) return 0;
  const proto_ref_buffer *b = &r->buffers.data[r->current];
  int prefix = proto_varint_size(span.len);
  if (span.data < b->data + prefix || span.data > b->data + b->len) return 0;
  const uint8_t *at = span.data - prefix;
  uint64_t len;
  if (proto_varint_decode(at, span.data, &len) != prefix || len != span.len) return 0;
  uint64_t offset = b->base + (uint64_t)(at - b->data);
  if (b->base > PROTO_REF_OFFSET_MASK || offset > PROTO_REF_OFFSET_MASK) return 0;
  uint32_t index;
  if (proto_ref_ctx_index(r, c, &index)) return WEFT_ENOMEM;
  if (index == UINT32_MAX) return 0;
  *payload = (uint64_t)index << PROTO_REF_OFFSET_BITS | offset;
  return 1;
}

/* The buffer holding virtual offset `offset` (buffers ascend by base). */
static const proto_ref_buffer *proto_ref_buffer_at(const proto_refs *r, uint64_t offset) {
  size_t lo = 0, hi = r->buffers.len;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->buffers.data[mid].base <= offset) lo = mid;
    else hi = mid;
  }
  const proto_ref_buffer *b = &r->buffers.data[lo];
  return offset - b->base < b->len ? b : NULL;
}

int proto_ref_resolve(const proto_refs *r, uint64_t payload, proto_span *span,
                      const proto_ref_ctx **c, uint32_t *buffer) {
  uint64_t offset = payload & PROTO_REF_OFFSET_MASK;
  uint64_t index = payload >> PROTO_REF_OFFSET_BITS & PROTO_REF_CTX_MASK;
  if (!r->buffers.len || index >= r->ctxs.len) return 0;
  const proto_ref_buffer *b = proto_ref_buffer_at(r, offset);
  if (!b) return 0;
  const uint8_t *at = b->data + (offset - b->base), *end = b->data + b->len;
  uint64_t len;
  int prefix = proto_varint_decode(at, end, &len);
  if (prefix <= 0 || len > (uint64_t)(end - at - prefix)) return 0;
  span->data = at + prefix;
  span->len = (size_t)len;
  *c = &r->ctxs.data[index];
  *buffer = (uint32_t)(b - r->buffers.data);
  return 1;
}
