/* Work queued ahead of a file's turn: scans of upcoming files and inflates
 * of upcoming gzip files, on the load's worker pool. */
#include "core/ahead.h"

/* Input bytes of scans queued ahead, beyond the first. */
#define AHEAD_SCAN_BYTES ((uint64_t)256 << 20)
/* Inflated bytes of upcoming gzip files queued ahead, beyond the first. */
#define AHEAD_UNPACK_BYTES ((uint64_t)64 << 20)

void ahead_init(scan_ahead *a, uint32_t threads, const weft_options *options,
                int give_back, spill_file *spill) {
  *a = (scan_ahead){.threads = threads, .options = options, .give_back = give_back};
  unpacker_init(&a->unpack, spill, options, give_back);
}

scan_pool *ahead_pool(scan_ahead *a) {
  if (!a->pool && scan_pool_create(&a->pool, a->threads)) return NULL;
  return a->pool;
}

size_t ahead_window(const scan_ahead *a) {
  return 4 * (size_t)(a->threads - 1) + 2;
}

void ahead_scans_drop(scan_ahead *a, size_t from) {
  while (a->scans.len > from) {
    ahead_scan *s = &a->scans.data[--a->scans.len];
    scan_job_drop(a->pool, s->job);
    a->scan_bytes -= s->len;
  }
}

void ahead_stop(scan_ahead *a) {
  ahead_ready_free(a);
  if (!a->pool) return;
  ahead_upcoming_drop(a, NULL, 0);
  VEC_FREE(a->upcoming);
  ahead_scans_drop(a, 0);
  scan_pool_destroy(a->pool);
  a->pool = NULL;
  VEC_FREE(a->scans);
}

void ahead_destroy(scan_ahead *a) {
  ahead_stop(a);
  unpacker_destroy(&a->unpack);
}

/* What a scan of these bytes reads: `mapped`, they are a file mapping. */
static import_scan_input ahead_scan_input(const scan_ahead *a, const uint8_t *data,
                                          size_t len, int mapped) {
  return (import_scan_input){data, len, a->options, mapped && a->give_back, 0,
                             a->threads <= 1};
}

int ahead_scan_file(scan_ahead *a, io_trace_type type, const uint8_t *data, size_t len,
                    int mapped) {
  const importer_ops *ops = import_ops_for(type);
  if (!ops || !ops->scan || !data || len == 0) return 1;
  if (a->scans.len >= ahead_window(a) ||
      (a->scans.len && a->scan_bytes + len > AHEAD_SCAN_BYTES))
    return 0;
  if (!ahead_pool(a)) return 0;
  import_scan_input in = ahead_scan_input(a, data, len, mapped);
  ahead_scan s = {NULL, data, len};
  if (VEC_RESERVE(a->scans, a->scans.len + 1) ||
      scan_pool_submit(a->pool, ops, &in, &s.job))
    return 0; /* out of memory here: scanned in its turn instead */
  VEC_PUSH(a->scans, s);
  a->scan_bytes += len;
  return 1;
}

/* Unlinks the scan queued for these bytes; NULL if there is none. */
static scan_job *ahead_scan_unqueue(scan_ahead *a, const uint8_t *data, size_t len) {
  for (size_t i = 0; i < a->scans.len; i++) {
    ahead_scan s = a->scans.data[i];
    if (s.data != data || s.len != len) continue;
    memmove(&a->scans.data[i], &a->scans.data[i + 1], (a->scans.len - i - 1) * sizeof s);
    a->scans.len--;
    a->scan_bytes -= len;
    return s.job;
  }
  return NULL;
}

int ahead_scan_result(scan_ahead *a, const importer_ops *ops, const uint8_t *data,
                      size_t len, int mapped, void **result, base_error *err) {
  ahead_ready *r = &a->ready;
  if (r->data == data && r->len == len && r->ops == ops) {
    int rc = r->status;
    *result = r->result;
    if (rc && err) *err = r->err;
    *r = (ahead_ready){0};
    return rc;
  }
  scan_job *job = ahead_scan_unqueue(a, data, len);
  if (job) return scan_job_take(a->pool, job, result, err);
  import_scan_input in = ahead_scan_input(a, data, len, mapped);
  in.may_split = a->threads > 1 && a->scans.len == 0; /* nothing scans ahead */
  in.in_turn = 1;
  return scan_run(ops, &in, result, err);
}

void ahead_ready_free(scan_ahead *a) {
  if (a->ready.result) a->ready.ops->scan_free(a->ready.result);
  a->ready = (ahead_ready){0};
}

unpack_request ahead_unpack_request(const scan_ahead *a, const io_deflated *d,
                                    io_trace_type type, size_t len, int alone) {
  const importer_ops *ops = import_ops_for(type);
  unpack_request req = {*d, ops && ops->scan ? ops : NULL, 0, alone && a->threads > 1,
                        a->threads <= 1};
  req.spill = len >= SPILL_MIN_BYTES && !io_trace_type_is_container(type) &&
              a->member_maps < AHEAD_MEMBER_MAPS_MAX;
  return req;
}

void ahead_unpack_file(scan_ahead *a, const uint8_t *data, size_t len,
                       const io_limits *limits) {
  io_deflated d;
  uint8_t head[IO_SNIFF_PREFIX_BYTES];
  size_t head_len;
  if (!io_gzip_deferred(data, len, limits, &d, head, &head_len) ||
      a->upcoming.len >= ahead_window(a) ||
      (a->upcoming.len && a->upcoming_bytes + d.size > AHEAD_UNPACK_BYTES))
    return;
  unpack_request req = ahead_unpack_request(a, &d, io_sniff(head, head_len), (size_t)d.size, 0);
  ahead_upcoming u = {data, len, d.size, NULL, (uint8_t)req.spill};
  scan_pool *pool = ahead_pool(a);
  if (!pool || VEC_RESERVE(a->upcoming, a->upcoming.len + 1) ||
      unpack_submit(&a->unpack, pool, &req, &u.job))
    return;
  if (req.spill) a->member_maps++;
  VEC_PUSH(a->upcoming, u);
  a->upcoming_bytes += d.size;
}

/* Unlinks upcoming unpack i, returning its job. */
static unpack_member *ahead_upcoming_unlink(scan_ahead *a, size_t i, uint8_t *spill) {
  ahead_upcoming u = a->upcoming.data[i];
  memmove(&a->upcoming.data[i], &a->upcoming.data[i + 1],
          (a->upcoming.len - i - 1) * sizeof u);
  a->upcoming.len--;
  a->upcoming_bytes -= u.size;
  *spill = u.spill;
  return u.job;
}

unpack_member *ahead_upcoming_take(scan_ahead *a, const io_deflated *d, uint8_t *spill) {
  for (size_t i = 0; d->gzip && i < a->upcoming.len; i++) {
    const ahead_upcoming *u = &a->upcoming.data[i];
    if (u->data == d->map && u->len == d->compressed && u->size == d->size)
      return ahead_upcoming_unlink(a, i, spill);
  }
  return NULL;
}

void ahead_upcoming_drop(scan_ahead *a, const uint8_t *data, size_t len) {
  for (size_t i = a->upcoming.len; i-- > 0;) {
    if (data && (a->upcoming.data[i].data != data || a->upcoming.data[i].len != len)) continue;
    uint8_t spill;
    unpack_drop(a->pool, ahead_upcoming_unlink(a, i, &spill));
    if (spill) a->member_maps--;
  }
}

void ahead_forget(scan_ahead *a, const uint8_t *data, size_t len) {
  scan_job *job = ahead_scan_unqueue(a, data, len);
  if (job) scan_job_drop(a->pool, job);
  ahead_upcoming_drop(a, data, len);
}
