/* Deferred archive members inflated, spilled and scanned by pool jobs (see
 * unpack.h). */
#include "core/unpack.h"

#include <sys/mman.h>

struct unpack_member {
  unpacker *u;
  unpack_request req;
  unpack_result out; /* what the job made */
  scan_job *job;
};

void unpacker_init(unpacker *u, spill_file *spill, const weft_options *options,
                   int give_back) {
  u->spill = spill;
  pthread_mutex_init(&u->spill_lock, NULL);
  u->options = options;
  u->give_back = give_back;
}

void unpacker_destroy(unpacker *u) { pthread_mutex_destroy(&u->spill_lock); }

void unpack_result_free(unpack_result *r) {
  base_free(r->heap);
  if (r->map) munmap(r->map, r->map_len);
  if (r->scan) r->scan_ops->scan_free(r->scan);
  *r = (unpack_result){0};
}

void *unpacker_spill(unpacker *u, const uint8_t *bytes, size_t len, const uint8_t **data,
                     size_t *map_len) {
  pthread_mutex_lock(&u->spill_lock);
  void *map = spill_member(u->spill, bytes, len, data, map_len);
  pthread_mutex_unlock(&u->spill_lock);
  return map;
}

/* Moves the inflated bytes from the heap to the spill file; they stay on
 * the heap when that fails. */
static void unpack_spill(unpacker *u, unpack_result *r) {
  const uint8_t *data;
  size_t map_len;
  void *map = unpacker_spill(u, r->heap, r->len, &data, &map_len);
  if (!map) return;
  base_free(r->heap);
  r->heap = NULL;
  r->map = map;
  r->map_len = map_len;
  r->data = data;
}

/* Inflates straight into a reservation of the spill file: 1 with the
 * bytes in r->map, 0 when no reservation could be made (nothing done),
 * -1 with the inflate's status in *rc. */
static int unpack_inflate_spilled(unpacker *u, const io_deflated *d, unpack_result *r,
                                  int *rc) {
  uint8_t *data;
  size_t map_len;
  pthread_mutex_lock(&u->spill_lock);
  void *map = d->size < SIZE_MAX ? spill_reserve(u->spill, (size_t)d->size, &data, &map_len)
                                 : NULL;
  pthread_mutex_unlock(&u->spill_lock);
  if (!map) return 0;
  *rc = io_deflated_inflate_into(d, data);
  if (*rc) {
    munmap(map, map_len);
    return -1;
  }
  spill_seal(map, map_len);
  r->map = map;
  r->map_len = map_len;
  r->data = data;
  return 1;
}

/* Members from this size on are inflated straight into the spill file.
 * Smaller ones are inflated on the heap and written there: the heap
 * reuses their buffers, whose pages are already present, and one write
 * costs less than faulting in each page of a file mapping. Larger ones
 * would get a fresh mapping from malloc anyway (glibc's threshold for
 * that is at most 32 MiB), whose faults cost as much, plus the copy. */
#define UNPACK_RESERVE_MIN_BYTES ((uint64_t)32 << 20)

/* The member's bytes in r: in the spill file when asked and possible (made
 * there, else moved there), else on the heap. */
static int unpack_inflate(unpack_member *m, unpack_result *r) {
  int rc = WEFT_OK;
  if (m->req.spill && m->req.deflated.size >= UNPACK_RESERVE_MIN_BYTES &&
      unpack_inflate_spilled(m->u, &m->req.deflated, r, &rc))
    return rc;
  uint8_t *heap;
  rc = io_deflated_inflate(&m->req.deflated, &heap);
  if (rc) return rc;
  r->heap = heap;
  r->data = heap;
  if (m->req.spill) unpack_spill(m->u, r);
  return WEFT_OK;
}

/* The job: inflate, spill, scan. The scan's own failure is its result's
 * (scan_status), not the job's. */
static int unpack_run(void *arg, void **result, base_error *err) {
  (void)result;
  unpack_member *m = arg;
  unpack_result *r = &m->out;
  r->len = (size_t)m->req.deflated.size; /* unpack_spill writes r->len bytes */
  int rc = unpack_inflate(m, r);
  if (rc)
    return base_error_set(err, rc, rc == WEFT_ENOMEM ? "out of memory" : "does not inflate");
  r->scan_ops = m->req.scan_ops;
  if (r->scan_ops) {
    import_scan_input in = {r->data, r->len, m->u->options, r->map && m->u->give_back,
                            m->req.may_split, m->req.in_turn};
    r->scan_status = scan_run(r->scan_ops, &in, &r->scan, &r->scan_err);
  }
  return WEFT_OK;
}

int unpack_submit(unpacker *u, scan_pool *pool, const unpack_request *req,
                  unpack_member **out) {
  unpack_member *m = base_calloc(1, sizeof *m);
  if (!m) return WEFT_ENOMEM;
  m->u = u;
  m->req = *req;
  scan_task task = {unpack_run, NULL, m};
  if (scan_pool_submit_task(pool, &task, &m->job)) {
    base_free(m);
    return WEFT_ENOMEM;
  }
  *out = m;
  return WEFT_OK;
}

int unpack_take(scan_pool *pool, unpack_member *m, unpack_result *out) {
  void *unused = NULL;
  base_error err = {0};
  int rc = scan_job_take(pool, m->job, &unused, &err);
  *out = rc ? (unpack_result){0} : m->out;
  if (rc) unpack_result_free(&m->out);
  base_free(m);
  return rc;
}

void unpack_drop(scan_pool *pool, unpack_member *m) {
  scan_job_drop(pool, m->job);
  unpack_result_free(&m->out);
  base_free(m);
}
