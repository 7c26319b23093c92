/* The archive walk: a container's members are collected (stored ones read
 * in place, deflated ones left to inflate), given their trace_file rows in
 * archive order, then processed in processing order (io/order.h), with the
 * scans and inflates of the next members queued ahead (core/ahead.h). */
#include <sys/mman.h>

#include "core/input.h"
#include "core/loader_internal.h"

/* One member of an opened container. */
typedef struct member {
  char *name;            /* or NULL (a gzip's member) */
  io_trace_type type;
  uint8_t *data;         /* its bytes; NULL while deferred or once processed */
  uint8_t owned;         /* data is a heap buffer (else mapped) */
  size_t len;
  io_deflated deflated;  /* map NULL: the member is not deferred */
  uint32_t archive_index; /* io_member.index */
  uint8_t spill;         /* its job spills it: a member map is reserved */
  unpack_member *job;    /* queued, not yet taken; or NULL */
} member;

typedef struct member_list {
  VEC(member) members;        /* archive order */
  VEC(io_order_entry) order;  /* processing order; .index into members */
  loader *l;
  const uint8_t *view;   /* the archive's mapping, or NULL */
  int fd;                /* the archive, to map members on their own; or -1 */
  size_t unpack_next;    /* processing position of the next member to queue */
  size_t unpacking;      /* deferred members queued, not yet taken */
  uint64_t unpack_bytes; /* their bytes */
} member_list;

static void member_list_free(member_list *ms) {
  for (size_t k = 0; k < ms->members.len; k++) {
    member *m = &ms->members.data[k];
    if (m->owned) base_free(m->data);
    base_free(m->name);
  }
  VEC_FREE(ms->members);
  VEC_FREE(ms->order);
}

/* ---- collecting members ---- */

/* A stored member in the archive's mapping, mapped on its own (a blob, so
 * unmapped when loading ends; see input_map_range for why); `in_view` when
 * that cannot be done. */
static const uint8_t *container_member_mapping(member_list *ms, const uint8_t *in_view,
                                               size_t len) {
  scan_ahead *a = &ms->l->ahead;
  if (ms->fd < 0 || !ms->view || in_view < ms->view || a->member_maps >= AHEAD_MEMBER_MAPS_MAX)
    return in_view;
  const uint8_t *data;
  size_t map_len;
  void *map = input_map_range(ms->fd, (uint64_t)(in_view - ms->view), len, &data, &map_len);
  if (!map) return in_view;
  if (loader_keep_blob(ms->l, (loader_blob){NULL, map, map_len})) {
    munmap(map, map_len);
    return in_view;
  }
  a->member_maps++;
  return data;
}

/* A decompressed trace member moved from the heap into the spill file and
 * mapped from there (a blob), so that its pages can be given back like a
 * stored member's; `heap` (freed then) when it stays on the heap. */
static uint8_t *container_spill_member(loader *l, uint8_t *heap, size_t len,
                                       io_trace_type type, uint8_t *owned) {
  if (len < SPILL_MIN_BYTES || io_trace_type_is_container(type) ||
      l->ahead.member_maps >= AHEAD_MEMBER_MAPS_MAX || VEC_RESERVE(l->blobs, l->blobs.len + 1))
    return heap;
  const uint8_t *data;
  size_t map_len;
  void *map = unpacker_spill(&l->ahead.unpack, heap, len, &data, &map_len); /* jobs may spill */
  if (!map) return heap;
  (void)loader_keep_blob(l, (loader_blob){NULL, map, map_len}); /* reserved above */
  l->ahead.member_maps++;
  __atomic_fetch_add(&l->spilled_bytes, (uint64_t)len, __ATOMIC_RELAXED);
  base_free(heap);
  *owned = 0;
  return (uint8_t *)data;
}

static int container_collect(void *user, io_member *m, base_error *err) {
  member_list *ms = user;
  member one = {.archive_index = m->index, .len = m->len, .owned = m->view == NULL};
  one.name = m->name ? base_strndup(m->name, strlen(m->name)) : NULL;
  if (m->deflated) one.deflated = *m->deflated;
  one.data = m->deflated ? NULL
             : one.owned ? io_member_take(m)
                         : (uint8_t *)container_member_mapping(ms, m->view, m->len);
  one.type = m->deflated ? io_sniff(m->head, m->head_len) : io_sniff(one.data, m->len);
  if (one.owned && one.data)
    one.data = container_spill_member(ms->l, one.data, m->len, one.type, &one.owned);
  io_order_entry e = {one.name, one.type, (uint32_t)ms->members.len, NULL};
  if ((m->name && !one.name) || VEC_RESERVE(ms->order, ms->order.len + 1) ||
      VEC_PUSH(ms->members, one)) {
    base_free(one.name);
    if (one.owned) base_free(one.data);
    return base_error_nomem(err);
  }
  VEC_PUSH(ms->order, e); /* reserved above */
  return WEFT_OK;
}

/* ---- deferred members: inflated by pool jobs (core/unpack.h) ---- */

/* Deferred members queued ahead of their turn: at most this many bytes
 * (the first one whatever its size), and as many members as scans. */
#define CONTAINER_UNPACK_AHEAD_BYTES ((uint64_t)64 << 20)

static member *member_at(member_list *ms, size_t i) {
  return &ms->members.data[ms->order.data[i].index];
}

/* Queues the job of the deferred member at processing position i (or
 * adopts the one queued ahead for it). `alone`: nothing else is queued
 * (its scan may split). */
static int container_unpack_submit(member_list *ms, size_t i, int alone) {
  scan_ahead *a = &ms->l->ahead;
  member *m = member_at(ms, i);
  m->job = ahead_upcoming_take(a, &m->deflated, &m->spill);
  if (!m->job) {
    unpack_request req = ahead_unpack_request(a, &m->deflated, m->type, m->len, alone);
    scan_pool *pool = ahead_pool(a);
    if (!pool || unpack_submit(&a->unpack, pool, &req, &m->job)) return WEFT_ENOMEM;
    m->spill = (uint8_t)req.spill;
    if (req.spill) a->member_maps++;
  }
  ms->unpacking++;
  ms->unpack_bytes += m->len;
  return WEFT_OK;
}

/* Queues the deferred members from processing position `from` on, while the
 * window has room. At one thread nothing is queued ahead: each member is
 * unpacked in its turn. Best effort: a member not queued is in its turn. */
static void container_unpack_ahead(member_list *ms, size_t from) {
  const scan_ahead *a = &ms->l->ahead;
  size_t window = a->threads > 1 ? ahead_window(a) : 0;
  if (ms->unpack_next < from) ms->unpack_next = from;
  for (; ms->unpack_next < ms->order.len; ms->unpack_next++) {
    const member *m = member_at(ms, ms->unpack_next);
    if (!m->deflated.map) continue;
    if (ms->unpacking >= window ||
        (ms->unpacking && ms->unpack_bytes + m->len > CONTAINER_UNPACK_AHEAD_BYTES))
      return;
    if (container_unpack_submit(ms, ms->unpack_next, !ms->unpacking && !a->scans.len))
      return;
  }
}

/* Takes member m's job back (dropping it unless `take`): its bytes and
 * scan in *r when taken. */
static int container_unpack_finish(member_list *ms, member *m, int take, unpack_result *r) {
  scan_ahead *a = &ms->l->ahead;
  unpack_member *job = m->job;
  m->job = NULL;
  ms->unpacking--;
  ms->unpack_bytes -= m->len;
  int rc = WEFT_OK;
  *r = (unpack_result){0};
  if (take) rc = unpack_take(a->pool, job, r);
  else unpack_drop(a->pool, job);
  if (m->spill && !r->map) a->member_maps--; /* reserved, not used */
  return rc;
}

/* Drops every queued job (a container that failed, or one done). */
static void container_unpack_drop_all(member_list *ms) {
  for (size_t k = 0; k < ms->members.len; k++) {
    unpack_result none;
    if (ms->members.data[k].job) container_unpack_finish(ms, &ms->members.data[k], 0, &none);
  }
}

/* Member m read through libarchive alone (a gzip stream: through zlib),
 * for one whose bytes did not inflate in one call: it reads or fails as
 * without deferral. */
static int container_unpack_fallback(member_list *ms, member *m, io_trace_type type,
                                     const loader_source *src, base_error *err) {
  member_list one = {.l = ms->l, .fd = -1};
  io_limits limits = ms->l->limits;
  limits.max_total_bytes = 0; /* this member counted already */
  int rc = src->path ? io_archive_member_file(type, src->path, src->len, m->archive_index,
                                             &limits, container_collect, &one, err)
                     : io_archive_each(type, src->data, src->len, 0, &limits,
                                       container_collect, &one, err); /* a gzip */
  if (rc == WEFT_OK && one.members.len == 1) {
    m->data = one.members.data[0].data;
    m->owned = one.members.data[0].owned;
    one.members.data[0].owned = 0;
  } else if (rc == WEFT_OK) {
    rc = base_error_set(err, WEFT_EPARSE, "%s: member %u is gone", io_trace_type_name(type),
                        m->archive_index);
  }
  member_list_free(&one); /* yielded, then failed: a truncated stream */
  return rc;
}

/* The bytes of the deferred member at processing position i, and its scan
 * made ready for its tokenize: from its job, queued here if it was not. */
static int container_unpack_take(member_list *ms, io_trace_type type,
                                 const loader_source *src, size_t i, base_error *err) {
  loader *l = ms->l;
  member *m = member_at(ms, i);
  if (!m->job && container_unpack_submit(ms, i, !ms->unpacking && !l->ahead.scans.len))
    return base_error_nomem(err);
  unpack_result r;
  int rc = container_unpack_finish(ms, m, 1, &r);
  if (rc == WEFT_EPARSE) return container_unpack_fallback(ms, m, type, src, err);
  if (rc) return base_error_alloc(err, rc);
  m->owned = r.map == NULL;
  m->data = r.map ? (uint8_t *)r.data : r.heap;
  r.heap = NULL;
  if (r.map) {
    if (loader_keep_blob(l, (loader_blob){NULL, r.map, r.map_len})) {
      m->data = NULL;
      unpack_result_free(&r);
      return base_error_nomem(err);
    }
    r.map = NULL;
    __atomic_fetch_add(&l->spilled_bytes, (uint64_t)r.len, __ATOMIC_RELAXED);
  }
  if (r.scan_ops)
    l->ahead.ready = (ahead_ready){r.data, r.len, r.scan_ops, r.scan, r.scan_status, r.scan_err};
  return WEFT_OK;
}

/* ---- the walk ---- */

/* Every member of an opened container gets its trace_file row now, in
 * archive order (Perfetto's ids), before any is processed; the row of the
 * member at archive index k is *first + k. A gzip's member is named "". */
static int container_member_rows(loader *l, uint32_t parent, const member_list *ms,
                                 uint32_t *first, base_error *err) {
  *first = (uint32_t)ctx_table(l->ctx, TABLE_TRACE_FILE)->row_count;
  for (size_t k = 0; k < ms->members.len; k++) {
    const member *m = &ms->members.data[k];
    uint32_t id;
    int rc = ctx_add_trace_file(l->ctx, parent, m->name ? m->name : "", m->len,
                                io_trace_type_name(m->type), &id);
    if (rc) return base_error_alloc(err, rc);
  }
  return WEFT_OK;
}

static int container_open(loader *l, io_trace_type type, const loader_source *src,
                          member_list *ms, base_error *err) {
  ms->l = l;
  ms->view = src->path ? src->view : NULL;
  ms->fd = ms->view ? src->fd : -1;
  io_limits limits = l->limits;
  limits.max_total_bytes = loader_expand_budget(l);
  int rc = src->path ? io_archive_each_file_view(type, src->path, src->view, src->len,
                                                 IO_EACH_DEFER_INFLATE, &limits,
                                                 container_collect, ms, err)
                     : io_archive_each(type, src->data, src->len, IO_EACH_DEFER_INFLATE,
                                       &limits, container_collect, ms, err);
  for (size_t k = 0; k < ms->members.len; k++) l->expanded_bytes += ms->members.data[k].len;
  return rc;
}

/* Queues the scans of the members after position i while the window has
 * room; *ahead: the next position to queue. */
static void container_scan_ahead(member_list *ms, size_t i, size_t *ahead) {
  if (*ahead < i + 1) *ahead = i + 1;
  for (; *ahead < ms->order.len; (*ahead)++) {
    const member *m = member_at(ms, *ahead);
    if (!ahead_scan_file(&ms->l->ahead, m->type, m->data, m->len, !m->owned)) break;
  }
}

/* Processes the member at position i, whose bytes are ready. */
static int container_member(member_list *ms, uint32_t parent, uint32_t row, size_t i,
                            const char *display, uint32_t depth, base_error *err) {
  loader *l = ms->l;
  member *m = member_at(ms, i);
  uint8_t *bytes = m->data;
  int owned = m->owned;
  m->data = NULL;
  m->owned = 0;
  if (!bytes) return WEFT_OK;
  /* A container's bytes are not needed once it is unpacked. */
  int keep = owned && !io_trace_type_is_container(m->type);
  if (keep && loader_keep_blob(l, (loader_blob){bytes, NULL, 0})) {
    base_free(bytes);
    return base_error_nomem(err);
  }
  int rc = loader_process(l, parent, row, m->name, m->name ? m->name : display, bytes,
                          m->len, !owned, depth + 1, err);
  ahead_ready_free(&l->ahead);
  if (owned && !keep) base_free(bytes);
  return rc;
}

static int container_walk(member_list *ms, uint32_t id, io_trace_type type,
                          const char *display, const loader_source *src,
                          uint32_t depth, base_error *err) {
  uint32_t first_row = 0;
  int rc = container_member_rows(ms->l, id, ms, &first_row, err);
  if (rc) return rc;
  io_order_members(ms->order.data, ms->order.len);
  size_t ahead = 0;
  for (size_t i = 0; rc == WEFT_OK && i < ms->order.len; i++) {
    container_scan_ahead(ms, i, &ahead);
    container_unpack_ahead(ms, i);
    if (member_at(ms, i)->deflated.map) rc = container_unpack_take(ms, type, src, i, err);
    if (rc == WEFT_OK)
      rc = container_member(ms, id, first_row + ms->order.data[i].index, i, display,
                            depth, err);
  }
  return rc;
}

int loader_container(loader *l, uint32_t id, io_trace_type type,
                     const char *display, const loader_source *src,
                     uint32_t depth, base_error *err) {
  int rc = io_depth_check(depth + 1, &l->limits, err);
  if (rc) return rc;
  member_list ms = {0};
  size_t scans_before = l->ahead.scans.len;
  rc = container_open(l, type, src, &ms, err);
  if (rc == WEFT_OK) rc = container_walk(&ms, id, type, display, src, depth, err);
  ahead_scans_drop(&l->ahead, scans_before); /* before members are freed */
  container_unpack_drop_all(&ms);
  if (src->data) ahead_upcoming_drop(&l->ahead, src->data, src->len); /* not adopted */
  ahead_ready_free(&l->ahead); /* a member that failed before its tokenize */
  member_list_free(&ms);
  base_error_name_file(err, rc ? display : NULL);
  return rc;
}
