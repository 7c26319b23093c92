/* Protobuf wire decoder + proto trace import. The decoder walks the bytes as
 * a message, descending into every length-delimited field that parses as a
 * message (bounded depth), iterating packed payloads and the find helpers;
 * then the bytes go through the whole pipeline as a Perfetto trace (a leading
 * empty packet is added when they would not sniff as one). */
#include "fuzz_common.h"

#include "import/proto/proto_wire.h"
#include "io/sniff.h"

#define FUZZ_PROTO_MAX_DEPTH 8

static void fuzz_packed(proto_span s) {
  proto_packed_iter it;
  uint64_t v;
  uint32_t v32;
  size_t n = 0, counted = 0;
  proto_packed_init(&it, s);
  while (proto_packed_next_varint(&it, &v) == 1) n++;
  int crc = proto_packed_count_varints(s, &counted);
  if (it.status == WEFT_OK && crc == WEFT_OK) FUZZ_CHECK(n == counted);
  proto_packed_init(&it, s);
  while (proto_packed_next_fixed32(&it, &v32) == 1) {}
  proto_packed_init(&it, s);
  while (proto_packed_next_fixed64(&it, &v) == 1) {}
}

static void fuzz_walk(const uint8_t *data, size_t len, size_t base, int depth) {
  proto_reader r;
  proto_field f;
  proto_reader_init(&r, data, len);
  int rc;
  while ((rc = proto_reader_next(&r, &f)) == 1) {
    FUZZ_CHECK(f.number >= 1 && f.number <= PROTO_MAX_FIELD_NUMBER);
    FUZZ_CHECK(proto_reader_offset(&r) <= len);
    if (f.wire_type != PROTO_WIRE_LEN) continue;
    FUZZ_CHECK(f.span.data >= data && f.span.data + f.span.len <= data + len);
    fuzz_packed(f.span);
    if (depth < FUZZ_PROTO_MAX_DEPTH)
      fuzz_walk(f.span.data, f.span.len, base + (size_t)(f.span.data - data),
                depth + 1);
  }
  if (rc != 0) {
    FUZZ_CHECK(rc == WEFT_EPARSE && r.error != PROTO_ERR_NONE);
    FUZZ_CHECK(r.error_offset < len);
    base_error err = {0};
    FUZZ_CHECK(proto_reader_error(&r, base, &err) == WEFT_EPARSE);
    FUZZ_CHECK(err.message[0] != '\0');
    FUZZ_CHECK(proto_reader_next(&r, &f) == WEFT_EPARSE); /* sticky */
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_walk(data, size, 0, 0);
  proto_field f;
  for (uint32_t n = 1; n <= 3; n++) {
    int a = proto_find_first(data, size, n, &f);
    int b = proto_find_last(data, size, n, &f);
    FUZZ_CHECK(a <= 1 && b <= 1);
    if (b == 1) FUZZ_CHECK(a == 1);
  }
  if (io_sniff(data, size) == IO_TRACE_PROTO) {
    fuzz_load_one("trace.pftrace", data, size, NULL);
    return 0;
  }
  uint8_t *buf = malloc(size + 2);
  if (!buf) return 0;
  buf[0] = 0x0a; /* Trace.packet, empty */
  buf[1] = 0x00;
  if (size) memcpy(buf + 2, data, size);
  fuzz_load_one("trace.pftrace", buf, size + 2, fuzz_queries);
  free(buf);
  return 0;
}
