/* The proto importer's scan (importer_ops.scan), run ahead of tokenize on
 * a worker thread: one walk of the top-level packets that collects their
 * embedded machine ids and, for files small enough whose scan runs ahead,
 * the brief of each packet (proto_head.h). See proto_import.h. */
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

/* The scan's result. */
typedef struct proto_scan_result {
  VEC(uint64_t) ids;  /* distinct embedded ids in order of appearance */
  int has_unmarked;   /* some packet carries no id */
  VEC(proto_brief) briefs; /* one per top-level packet, in walk order */
  int has_briefs;
} proto_scan_result;

void proto_scan_free(void *result) {
  proto_scan_result *s = result;
  if (!s) return;
  VEC_FREE(s->ids);
  VEC_FREE(s->briefs);
  base_free(s);
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

/* The packet's brief, pushed in walk order (kind NONE for one tokenize
 * reads itself, and for a malformed one). */
static int proto_scan_brief(proto_scan_result *s, proto_span pkt) {
  proto_packet_head h;
  proto_brief b = {0};
  if (proto_head_read(pkt, &h) >= 0) b = proto_brief_of(&h, pkt);
  return VEC_PUSH(s->briefs, b) ? WEFT_ENOMEM : WEFT_OK;
}

static int proto_scan_collect(proto_scan_result *s, const import_scan_input *in) {
  base_map seen = {0};
  int rc = WEFT_OK;
  proto_packet_iter it;
  proto_packet pkt;
  size_t given = 0;
  s->has_briefs = !in->in_turn && in->len <= PROTO_BRIEF_FILE_MAX;
  proto_packets_init(&it, in->data, in->len, 0);
  while (rc == WEFT_OK) {
    base_error perr = {0};
    int next = proto_packets_next(&it, &pkt, &perr);
    if (next == 0) break;
    if (next < 0) {
      if (it.error == PROTO_PACKETS_ERR_UNEXPECTED_FIELD) continue;
      break; /* tokenize reports and handles the damaged tail */
    }
    import_scan_passed(in, &given, (size_t)(pkt.data.data - in->data));
    rc = proto_scan_machine(s, &seen, pkt.data);
    if (!rc && s->has_briefs) rc = proto_scan_brief(s, pkt.data);
  }
  base_map_free(&seen);
  return rc;
}

int proto_scan(const import_scan_input *in, void **result, base_error *err) {
  proto_scan_result *s = base_calloc(1, sizeof *s);
  if (!s) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  *result = s;
  if (proto_scan_collect(s, in))
    return base_error_set(err, WEFT_ENOMEM, "out of memory");
  return WEFT_OK;
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
