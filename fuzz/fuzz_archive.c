/* ZIP / TAR / gzip / zstd / ctrace readers (io_archive_each), nested
 * containers included, with small limits; inputs of odd length with gzip
 * streams deferred and then inflated. The container type is sniffed;
 * bytes that sniff as no container are tried as the type picked by their
 * length, so every reader sees every input shape. */
#include "fuzz_common.h"

#include "io/archive.h"
#include "io/sniff.h"

typedef struct fuzz_walk {
  io_limits limits;
  uint32_t depth;
  int64_t last_index;
} fuzz_walk;

static int fuzz_each(io_trace_type type, const uint8_t *data, size_t len,
                     uint32_t depth);

static int fuzz_member(void *ctx, io_member *m, base_error *err) {
  fuzz_walk *w = ctx;
  (void)err;
  FUZZ_CHECK((int64_t)m->index > w->last_index || m->name == NULL);
  w->last_index = m->index;
  if (m->deflated) { /* a deferred gzip stream: inflate it as the loader would */
    FUZZ_CHECK(m->data == NULL && m->deflated->size == m->len);
    uint8_t *bytes = NULL;
    int rc = io_deflated_inflate(m->deflated, &bytes);
    FUZZ_CHECK(rc == WEFT_OK || rc == WEFT_EPARSE || rc == WEFT_ENOMEM);
    if (rc == WEFT_OK) FUZZ_CHECK(bytes[m->len] == 0);
    base_free(bytes);
    return WEFT_OK;
  }
  FUZZ_CHECK(m->data != NULL);
  FUZZ_CHECK(m->len <= w->limits.max_member_bytes);
  FUZZ_CHECK(m->data[m->len] == 0);
  if (m->name) {
    FUZZ_CHECK(!io_is_hidden_path(m->name));
    char what[256];
    snprintf(what, sizeof what, "%s", m->name);
  }
  io_trace_type inner = io_sniff(m->data, m->len);
  if (io_trace_type_is_container(inner)) {
    if (m->index % 2) {
      uint8_t *own = io_member_take(m);
      FUZZ_CHECK(own != NULL && io_member_take(m) == NULL);
      fuzz_each(inner, own, m->len, w->depth + 1);
      base_free(own);
    } else {
      fuzz_each(inner, m->data, m->len, w->depth + 1);
    }
  }
  return WEFT_OK;
}

static int fuzz_each(io_trace_type type, const uint8_t *data, size_t len,
                     uint32_t depth) {
  fuzz_walk w = {.depth = depth, .last_index = -1};
  io_limits_default(&w.limits);
  w.limits.max_member_bytes = 16u << 20;
  w.limits.max_ratio = 100;
  w.limits.ratio_floor_bytes = 1u << 20;
  w.limits.max_members = 2000;
  w.limits.max_depth = 3;
  base_error err = {0};
  int rc = io_depth_check(depth, &w.limits, &err);
  if (rc != WEFT_OK) return rc;
  unsigned flags = len % 2 ? IO_EACH_DEFER_INFLATE : 0;
  rc = io_archive_each(type, data, len, flags, &w.limits, fuzz_member, &w, &err);
  FUZZ_CHECK(rc <= 0 && rc >= WEFT_EABORT);
  if (rc != WEFT_OK) FUZZ_CHECK(err.message[0] != '\0');
  return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const io_trace_type types[] = {IO_TRACE_GZIP, IO_TRACE_ZIP,
                                        IO_TRACE_TAR, IO_TRACE_ZSTD,
                                        IO_TRACE_CTRACE};
  io_trace_type type = io_sniff(data, size);
  if (!io_trace_type_is_container(type))
    type = types[size % (sizeof types / sizeof types[0])];
  fuzz_each(type, data, size, 1);
  /* The names of the members must order without trouble too. */
  io_order_entry e[3] = {{"b", IO_TRACE_JSON, 0, NULL},
                         {NULL, IO_TRACE_PROTO, 1, NULL},
                         {"a", IO_TRACE_PERFETTO_MANIFEST, 2, NULL}};
  io_order_members(e, 3);
  FUZZ_CHECK(e[0].index == 2);
  return 0;
}
