/* proto_ref: references to spans of tokenized buffers round-trip, contexts
 * are shared, and what cannot be referenced is refused. */
#include "check.h"
#include "import/proto/proto_ref.h"

static proto_span span_at(const uint8_t *buf, size_t off, size_t len) {
  proto_span s = {buf + off, len};
  return s;
}

static void check_resolves(const proto_refs *r, uint64_t payload, proto_span want,
                           const proto_ref_ctx *want_ctx) {
  proto_span got;
  const proto_ref_ctx *c = NULL;
  uint32_t buffer;
  CHECK(proto_ref_resolve(r, payload, &got, &c, &buffer));
  CHECK(buffer < r->buffers.len && got.data >= r->buffers.data[buffer].data &&
        got.data + got.len <= r->buffers.data[buffer].data + r->buffers.data[buffer].len);
  CHECK(got.data == want.data);
  CHECK_EQ_INT(got.len, want.len);
  CHECK(c && c->seq == want_ctx->seq && c->generation == want_ctx->generation &&
        c->machine == want_ctx->machine && c->cpu == want_ctx->cpu &&
        c->defaults.data == want_ctx->defaults.data);
}

static void test_round_trip_across_buffers(void) {
  /* A file: tag, a 3-byte span, tag, a 200-byte span (2-byte prefix). */
  uint8_t file[300] = {0x0a, 3, 'a', 'b', 'c', 0x0a, 0xc8, 0x01};
  uint8_t inflated[10] = {0x0a, 2, 'x', 'y', 0x0a, 0, 0, 0, 0, 0};
  proto_refs r;
  memset(&r, 0, sizeof r);
  uint32_t outer, inner;
  CHECK_EQ_INT(proto_ref_enter(&r, file, sizeof file, &outer), WEFT_OK);
  proto_ref_ctx c1 = {{file, 5}, 1, 2, 3, 0};
  proto_ref_ctx c2 = {{NULL, 0}, 1, 3, 3, 7};
  uint64_t p1, p2, p3, p4;
  CHECK_EQ_INT(proto_ref_make(&r, span_at(file, 2, 3), &c1, &p1), 1);
  CHECK_EQ_INT(proto_ref_make(&r, span_at(file, 8, 200), &c1, &p2), 1);
  CHECK_EQ_INT(proto_ref_enter(&r, inflated, sizeof inflated, &inner), WEFT_OK);
  CHECK_EQ_INT(proto_ref_make(&r, span_at(inflated, 2, 2), &c2, &p3), 1);
  /* An empty span (prefix 0) at the end of the inner buffer's data. */
  CHECK_EQ_INT(proto_ref_make(&r, span_at(inflated, 6, 0), &c2, &p4), 1);
  proto_ref_leave(&r, inner);
  check_resolves(&r, p1, span_at(file, 2, 3), &c1);
  check_resolves(&r, p2, span_at(file, 8, 200), &c1);
  check_resolves(&r, p3, span_at(inflated, 2, 2), &c2);
  check_resolves(&r, p4, span_at(inflated, 6, 0), &c2);
  CHECK_EQ_INT(r.ctxs.len, 2); /* equal contexts share one entry */
  CHECK_EQ_INT(p1 >> PROTO_REF_OFFSET_BITS, p2 >> PROTO_REF_OFFSET_BITS);
  CHECK((p1 & (PROTO_REF_FTRACE | PROTO_REF_SIDE)) == 0);
  proto_ref_leave(&r, outer);
  proto_refs_free(&r);
}

static void test_refused(void) {
  /* A non-canonical length prefix (0x83 0x00 = 3) cannot be re-decoded
   * from the span's start, nor can a span at the buffer's first byte. */
  uint8_t buf[16] = {0x0a, 0x83, 0x00, 'a', 'b', 'c'};
  proto_refs r;
  memset(&r, 0, sizeof r);
  proto_ref_ctx c = {{NULL, 0}, 0, 0, 0, 0};
  uint64_t p = 0;
  CHECK_EQ_INT(proto_ref_make(&r, span_at(buf, 3, 3), &c, &p), 0); /* no buffer */
  uint32_t saved;
  CHECK_EQ_INT(proto_ref_enter(&r, buf, sizeof buf, &saved), WEFT_OK);
  CHECK_EQ_INT(proto_ref_make(&r, span_at(buf, 3, 3), &c, &p), 0);
  CHECK_EQ_INT(proto_ref_make(&r, span_at(buf, 0, 3), &c, &p), 0);
  /* A span outside the current buffer. */
  uint8_t other[4] = {1, 'z', 0, 0};
  CHECK_EQ_INT(proto_ref_make(&r, span_at(other, 1, 1), &c, &p), 0);
  /* Payloads that were never made do not resolve. */
  proto_span s;
  const proto_ref_ctx *got;
  uint32_t b;
  CHECK_EQ_INT(proto_ref_resolve(&r, 0, &s, &got, &b), 0); /* no context yet */
  CHECK_EQ_INT(proto_ref_make(&r, span_at(buf, 8, 0), &c, &p), 1);
  CHECK_EQ_INT(proto_ref_resolve(&r, p | 1000, &s, &got, &b), 0); /* past the end */
  CHECK_EQ_INT(proto_ref_resolve(&r, p | (UINT64_C(5) << PROTO_REF_OFFSET_BITS), &s, &got, &b), 0);
  /* A length prefix reaching past the buffer does not resolve. */
  uint8_t tail[3] = {0x0a, 5, 'q'};
  uint32_t inner;
  CHECK_EQ_INT(proto_ref_enter(&r, tail, sizeof tail, &inner), WEFT_OK);
  uint64_t base = r.buffers.data[r.buffers.len - 1].base;
  CHECK_EQ_INT(proto_ref_resolve(&r, base + 1, &s, &got, &b), 0);
  proto_ref_leave(&r, inner);
  proto_ref_leave(&r, saved);
  proto_refs_free(&r);
}

/* Contexts that alternate, repeat and come back each resolve to their own
 * content, and a repeated context keeps its index (the last-context memo
 * stands for the lookup). */
static void test_alternating_contexts(void) {
  uint8_t buf[64];
  memset(buf, 0, sizeof buf); /* every byte a zero length prefix */
  proto_refs r;
  memset(&r, 0, sizeof r);
  uint32_t saved;
  CHECK_EQ_INT(proto_ref_enter(&r, buf, sizeof buf, &saved), WEFT_OK);
  proto_ref_ctx ctx[3] = {{{NULL, 0}, 1, 0, 0, 0}, {{NULL, 0}, 2, 0, 0, 0}, {{buf, 4}, 1, 0, 0, 0}};
  static const int order[] = {0, 1, 0, 0, 2, 1, 2, 2, 0, 1};
  uint64_t payloads[10];
  for (size_t i = 0; i < 10; i++)
    CHECK_EQ_INT(proto_ref_make(&r, span_at(buf, 2 * i + 1, 0), &ctx[order[i]], &payloads[i]), 1);
  for (size_t i = 0; i < 10; i++)
    check_resolves(&r, payloads[i], span_at(buf, 2 * i + 1, 0), &ctx[order[i]]);
  CHECK_EQ_INT(r.ctxs.len, 3);
  for (size_t i = 0; i < 10; i++)
    for (size_t j = 0; j < 10; j++)
      CHECK((payloads[i] >> PROTO_REF_OFFSET_BITS == payloads[j] >> PROTO_REF_OFFSET_BITS) ==
            (order[i] == order[j]));
  proto_refs_free(&r);
}

int main(void) {
  RUN_TEST(test_round_trip_across_buffers);
  RUN_TEST(test_refused);
  RUN_TEST(test_alternating_contexts);
  return CHECK_SUMMARY();
}
