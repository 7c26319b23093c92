/* Machines of a Perfetto proto trace: RemoteClockSync (the clocks of a
 * relayed machine against its host). See proto_import.h. */
#include "import/proto/proto_import.h"

#include "import/proto/proto_fields.h"
#include "import/proto/proto_packets.h"

/* ---- RemoteClockSync ---- */

#define PROTO_SYNC_MAX_CLOCKS 16

/* One SyncedClocks entry: builtin clock id -> (client, host) readings. */
typedef struct proto_sync_entry {
  uint64_t ids[PROTO_SYNC_MAX_CLOCKS];
  int64_t client[PROTO_SYNC_MAX_CLOCKS], host[PROTO_SYNC_MAX_CLOCKS];
  uint8_t has_client[PROTO_SYNC_MAX_CLOCKS], has_host[PROTO_SYNC_MAX_CLOCKS];
  size_t n;
} proto_sync_entry;

static size_t proto_sync_slot(proto_sync_entry *e, uint64_t id) {
  for (size_t i = 0; i < e->n; i++)
    if (e->ids[i] == id) return i;
  if (e->n == PROTO_SYNC_MAX_CLOCKS) return SIZE_MAX;
  e->ids[e->n] = id;
  e->has_client[e->n] = e->has_host[e->n] = 0;
  return e->n++;
}

static void proto_sync_read_snapshot(proto_sync_entry *e, proto_span snap,
                                     int is_host) {
  proto_reader r, cr;
  proto_field fl, cf;
  proto_reader_init_span(&r, snap);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_CLOCK_SNAPSHOT_CLOCKS || fl.wire_type != PROTO_WIRE_LEN)
      continue;
    uint64_t id = 0;
    int64_t value = 0;
    int has_value = 0;
    proto_reader_init_span(&cr, fl.span);
    while (proto_reader_next(&cr, &cf) == 1) {
      if (cf.number == PROTO_CLOCK_CLOCK_ID) id = cf.value;
      if (cf.number == PROTO_CLOCK_TIMESTAMP) { value = (int64_t)cf.value; has_value = 1; }
    }
    size_t i;
    if (!has_value || id == 0 || id > PROTO_BUILTIN_CLOCK_MAX_ID ||
        (i = proto_sync_slot(e, id)) == SIZE_MAX)
      continue;
    if (is_host) { e->host[i] = value; e->has_host[i] = 1; }
    else { e->client[i] = value; e->has_client[i] = 1; }
  }
}

static void proto_sync_read_entry(proto_sync_entry *e, proto_span entry) {
  memset(e, 0, sizeof *e);
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, entry);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.wire_type != PROTO_WIRE_LEN) continue;
    if (fl.number == PROTO_SYNCED_CLOCKS_CLIENT_CLOCKS) proto_sync_read_snapshot(e, fl.span, 0);
    if (fl.number == PROTO_SYNCED_CLOCKS_HOST_CLOCKS) proto_sync_read_snapshot(e, fl.span, 1);
  }
}

/* host - client of clock `id` in entry e, if both were read. */
static int proto_sync_delta(const proto_sync_entry *e, uint64_t id, int64_t *delta) {
  for (size_t i = 0; i < e->n; i++)
    if (e->ids[i] == id && e->has_client[i] && e->has_host[i])
      return !__builtin_sub_overflow(e->host[i], e->client[i], delta);
  return 0;
}

/* Offsets per clock: consecutive entries form NTP-style round trips (the
 * client sends at t1, the host receives at t2, answers at t3, the client
 * receives at t4: offset = ((t2 - t1) + (t3 - t4)) / 2); the offsets of all
 * round trips are averaged. A lone entry gives t2 - t1. */
typedef struct proto_sync_mean {
  uint64_t ids[PROTO_SYNC_MAX_CLOCKS];
  int64_t mean[PROTO_SYNC_MAX_CLOCKS];
  int64_t count[PROTO_SYNC_MAX_CLOCKS];
  size_t n;
} proto_sync_mean;

static void proto_sync_add(proto_sync_mean *m, uint64_t id, int64_t offset) {
  size_t i = 0;
  while (i < m->n && m->ids[i] != id) i++;
  if (i == m->n) {
    if (m->n == PROTO_SYNC_MAX_CLOCKS) return;
    m->ids[m->n] = id;
    m->mean[m->n] = 0;
    m->count[m->n++] = 0;
  }
  m->count[i]++;
  int64_t diff;
  if (__builtin_sub_overflow(offset, m->mean[i], &diff)) return;
  m->mean[i] += diff / m->count[i];
}

static void proto_sync_pair(proto_sync_mean *m, const proto_sync_entry *a,
                            const proto_sync_entry *b) {
  for (size_t i = 0; i < a->n; i++) {
    int64_t d1, d2; /* t2 - t1 and t3 - t4 */
    if (proto_sync_delta(a, a->ids[i], &d1) && proto_sync_delta(b, a->ids[i], &d2))
      proto_sync_add(m, a->ids[i], d1 / 2 + d2 / 2 + (d1 % 2 + d2 % 2) / 2);
  }
}

int proto_remote_clock_sync(import_file *f, uint32_t machine, proto_span sync,
                            base_error *err) {
  if (machine == f->machine) return WEFT_OK; /* the host syncs with nobody */
  proto_sync_mean mean = {0};
  proto_sync_entry prev = {0}, cur; /* prev is read only after an entry, but -O3 cannot tell */
  size_t entries = 0;
  proto_reader r;
  proto_field fl;
  proto_reader_init_span(&r, sync);
  while (proto_reader_next(&r, &fl) == 1) {
    if (fl.number != PROTO_REMOTE_CLOCK_SYNC_SYNCED_CLOCKS ||
        fl.wire_type != PROTO_WIRE_LEN)
      continue;
    proto_sync_read_entry(&cur, fl.span);
    if (entries++ % 2 == 1) proto_sync_pair(&mean, &prev, &cur);
    prev = cur;
  }
  if (entries == 1) {
    for (size_t i = 0; i < prev.n; i++) {
      int64_t d;
      if (proto_sync_delta(&prev, prev.ids[i], &d)) proto_sync_add(&mean, prev.ids[i], d);
    }
  }
  for (size_t i = 0; i < mean.n; i++) {
    int rc = import_clock_relate_machines(f, machine, f->machine, mean.ids[i],
                                          mean.mean[i], err);
    if (rc) return rc;
  }
  return WEFT_OK;
}
