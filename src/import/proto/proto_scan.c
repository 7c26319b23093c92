/* The proto importer's scan (importer_ops.scan), run ahead of tokenize on
 * a worker thread: one walk of the top-level packets that collects their
 * embedded machine ids and, for files small enough whose scan runs ahead,
 * the brief of each packet (proto_head.h), inflating compressed_packets
 * payloads on the way; for larger files, where chunks of whole packets
 * start, whose briefs chunk scans (proto_chunk_scan_run, the same walk
 * over one chunk) make while tokenize reads earlier chunks. See
 * proto_import.h. */
#include "import/proto/proto_import.h"

#include "import/proto/proto_fields.h"
#include "import/proto/proto_head.h"
#include "import/proto/proto_packets.h"

/* Distinct ids beyond this are still resolved one by one later; the cap
 * only bounds the pre-scan's memory. */
#define PROTO_MAX_DECLARED_MACHINES 4096

/* Briefs are recorded for files up to this size, one per packet: 24 bytes
 * each, at most about half the file's bytes. Larger files (whose scan may
 * run while several others wait) are read by tokenize alone. */
#define PROTO_BRIEF_FILE_MAX ((size_t)8 << 20)

/* compressed_packets payloads are inflated ahead up to this many bytes per
 * file; tokenize inflates the later ones itself. */
#define PROTO_SCAN_INFLATE_MAX ((uint64_t)64 << 20)

/* Larger files are cut into chunks of whole packets of about this size,
 * whose briefs workers make while tokenize reads earlier chunks
 * (proto_chunk_scan), each inflating at most PROTO_CHUNK_INFLATE_MAX. */
#define PROTO_CHUNK_BYTES ((size_t)4 << 20)
#define PROTO_CHUNK_INFLATE_MAX ((uint64_t)16 << 20)

/* A compressed_packets payload the scan inflated (or dropped). */
typedef struct proto_scan_inflated {
  int status;    /* WEFT_OK, or WEFT_ELIMIT / WEFT_EPARSE: dropped */
  base_buf buf;  /* the packets, with status WEFT_OK (until taken) */
  size_t in_len; /* the payload's compressed size */
} proto_scan_inflated;

/* The scan's result. */
typedef struct proto_scan_result {
  VEC(uint64_t) ids;  /* distinct embedded ids in order of appearance */
  int has_unmarked;   /* some packet carries no id */
  VEC(proto_brief) briefs; /* one per top-level packet, in walk order */
  int has_briefs;
  VEC(proto_scan_inflated) inflated; /* of the PROTO_BRIEF_COMPRESSED briefs */
  uint64_t inflated_bytes;  /* their bytes: tokenize's count at each one */
  uint64_t inflate_max;     /* inflate no more than this ahead */
  int inflate_stopped;      /* later payloads are left to tokenize */
  /* A chunk's scan counts from the chunk, not the file's start: its
   * inflations' caps may exceed tokenize's (proto_scanned_inflated). */
  int chunk;
  size_t file_len;          /* the whole file's, for the caps */
  const weft_options *options;
  VEC(uint64_t) chunk_starts; /* offsets of the chunks' first packets */
} proto_scan_result;

void proto_scan_free(void *result) {
  proto_scan_result *s = result;
  if (!s) return;
  for (size_t i = 0; i < s->inflated.len; i++) base_buf_free(&s->inflated.data[i].buf);
  VEC_FREE(s->ids);
  VEC_FREE(s->briefs);
  VEC_FREE(s->inflated);
  VEC_FREE(s->chunk_starts);
  base_free(s);
}

int proto_scanned_inflated(void *scan, uint32_t index, uint64_t inflated_bytes,
                           base_buf *out) {
  proto_scan_result *s = scan;
  proto_scan_inflated *z = &s->inflated.data[index];
  if (s->chunk) {
    /* The chunk's scan capped at most as tokenize does here: its bytes are
     * tokenize's when they fit tokenize's cap, else tokenize inflates. */
    uint64_t cap = proto_inflate_cap(s->options, s->file_len, inflated_bytes, z->in_len);
    if (z->status != WEFT_OK || cap == 0 || z->buf.len > cap) {
      base_buf_free(&z->buf);
      return PROTO_SCANNED_REDO;
    }
  }
  *out = z->buf;
  memset(&z->buf, 0, sizeof z->buf);
  return z->status;
}

/* The brief of a compressed_packets packet: its payload inflated as
 * tokenize would at this point (the same cap from the same count of bytes
 * inflated before it), or NONE to leave it to tokenize, which then also
 * inflates every later one. */
static proto_brief proto_scan_inflate(proto_scan_result *s, const import_scan_input *in,
                                      proto_span payload) {
  proto_brief none = {0};
  if (!in->options || s->inflate_stopped || s->inflated_bytes > s->inflate_max ||
      s->inflated.len >= UINT32_MAX || VEC_RESERVE(s->inflated, s->inflated.len + 1)) {
    s->inflate_stopped = 1;
    return none;
  }
  proto_scan_inflated z = {0};
  z.in_len = payload.len;
  uint64_t cap = proto_inflate_cap(in->options, s->file_len, s->inflated_bytes, payload.len);
  z.status = proto_inflate_payload(payload, cap, &z.buf);
  if (z.status == WEFT_ENOMEM) {
    s->inflate_stopped = 1;
    return none;
  }
  if (z.status == WEFT_OK) s->inflated_bytes += z.buf.len;
  proto_brief b = {0};
  b.kind = PROTO_BRIEF_COMPRESSED;
  b.span_len = (uint32_t)s->inflated.len;
  (void)VEC_PUSH(s->inflated, z); /* reserved above */
  return b;
}

static int proto_scan_machine(proto_scan_result *s, base_map *seen, proto_span pkt) {
  proto_field fl;
  uint64_t raw = 0;
  if (proto_find_last(pkt.data, pkt.len, PROTO_TRACE_PACKET_MACHINE_ID, &fl) == 1 &&
      fl.wire_type == PROTO_WIRE_VARINT)
    raw = fl.value;
  if (raw == 0) {
    s->has_unmarked = 1;
    return WEFT_OK;
  }
  uint64_t *slot;
  int ins = base_map_insert(seen, raw, 1, &slot);
  if (ins < 0 || (ins == 1 && s->ids.len < PROTO_MAX_DECLARED_MACHINES &&
                  VEC_PUSH(s->ids, raw)))
    return WEFT_ENOMEM;
  return WEFT_OK;
}

/* The first place at or after p where a top-level machine_id field could
 * start, or end: its tag (field 98, varint), however it is encoded, is the
 * byte 0x90 then one whose low 7 bits are 6. A packet with no such place
 * has no machine_id, so the walk reads the fields of only the few packets
 * that have one (memchr skips the rest far faster than the fields can be
 * read: most traces carry no machine ids at all). */
static const uint8_t *proto_scan_machine_tag(const uint8_t *p, const uint8_t *end) {
  while (p < end && (p = memchr(p, 0x90, (size_t)(end - p))) != NULL) {
    if (p + 1 < end && (p[1] & 0x7f) == 6) return p;
    p++;
  }
  return end;
}

/* The packet's brief, pushed in walk order (kind NONE for one tokenize
 * reads itself, and for a malformed one). */
static int proto_scan_brief(proto_scan_result *s, const import_scan_input *in,
                            proto_span pkt) {
  proto_packet_head h;
  proto_brief b = {0};
  if (proto_head_read(pkt, &h) >= 0)
    b = h.has_compressed ? proto_scan_inflate(s, in, h.compressed) : proto_brief_of(&h, pkt);
  return VEC_PUSH(s->briefs, b) ? WEFT_ENOMEM : WEFT_OK;
}

/* Walks the top-level packets: machine ids (unless a chunk's), briefs
 * (when has_briefs), and for a large file the chunks' first packets. */
static int proto_scan_collect(proto_scan_result *s, const import_scan_input *in) {
  base_map seen = {0};
  int rc = WEFT_OK;
  proto_packet_iter it;
  proto_packet pkt;
  size_t given = 0;
  int chunked = !s->chunk && in->len > PROTO_BRIEF_FILE_MAX;
  const uint8_t *tag = in->data; /* next possible machine_id tag (or past) */
  proto_packets_init(&it, in->data, in->len, 0);
  while (rc == WEFT_OK) {
    int next = proto_packets_next(&it, &pkt, NULL); /* why it stopped: it.error */
    if (next == 0) break;
    if (next < 0) {
      if (it.error == PROTO_PACKETS_ERR_UNEXPECTED_FIELD) continue;
      break; /* tokenize reports and handles the damaged tail */
    }
    import_scan_passed(in, &given, (size_t)(pkt.data.data - in->data));
    if (chunked && (s->chunk_starts.len == 0 ||
                    pkt.offset - s->chunk_starts.data[s->chunk_starts.len - 1] >= PROTO_CHUNK_BYTES))
      rc = VEC_PUSH(s->chunk_starts, pkt.offset) ? WEFT_ENOMEM : WEFT_OK;
    if (!rc && !s->chunk) {
      if (tag < pkt.data.data) tag = proto_scan_machine_tag(pkt.data.data, in->data + in->len);
      if (tag < pkt.data.data + pkt.data.len) rc = proto_scan_machine(s, &seen, pkt.data);
      else s->has_unmarked = 1; /* no machine_id tag in it */
    }
    if (!rc && s->has_briefs) rc = proto_scan_brief(s, in, pkt.data);
  }
  base_map_free(&seen);
  return rc;
}

int proto_scan(const import_scan_input *in, void **result, base_error *err) {
  proto_scan_result *s = base_calloc(1, sizeof *s);
  if (!s) return base_error_nomem(err);
  *result = s;
  s->has_briefs = !in->in_turn && in->len <= PROTO_BRIEF_FILE_MAX;
  s->inflate_max = PROTO_SCAN_INFLATE_MAX;
  s->file_len = in->len;
  s->options = in->options;
  if (proto_scan_collect(s, in))
    return base_error_nomem(err);
  return WEFT_OK;
}

int proto_chunk_scan_run(void *arg, void **result, base_error *err) {
  const proto_chunk_scan *c = arg;
  proto_scan_result *s = base_calloc(1, sizeof *s);
  if (!s) return base_error_nomem(err);
  *result = s;
  s->has_briefs = 1;
  s->chunk = 1;
  s->inflate_max = PROTO_CHUNK_INFLATE_MAX;
  s->file_len = c->file_len;
  s->options = c->options;
  import_scan_input in = {c->data, c->len, c->options, 0, 0, 0};
  if (proto_scan_collect(s, &in))
    return base_error_nomem(err);
  return WEFT_OK;
}

const uint64_t *proto_scanned_chunks(const void *scan, size_t *count) {
  const proto_scan_result *s = scan;
  *count = s ? s->chunk_starts.len : 0;
  return *count ? s->chunk_starts.data : NULL;
}

int proto_declare_scanned_machines(import_file *f, const void *scan, base_error *err) {
  const proto_scan_result *s = scan;
  return import_declare_machines(f, s->ids.data, s->ids.len, s->has_unmarked, err);
}

const proto_brief *proto_scanned_briefs(const void *scan, size_t *count) {
  const proto_scan_result *s = scan;
  *count = s && s->has_briefs ? s->briefs.len : 0;
  return *count ? s->briefs.data : NULL;
}
