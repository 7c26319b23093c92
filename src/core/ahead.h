/* ahead: work queued ahead of a file's turn on the load's worker pool.
 *
 * While the loading thread tokenizes one file, the workers scan the next
 * ones (importer_ops.scan) and inflate upcoming gzip files; each result
 * waits for its file's turn, found again by its bytes (data, len). The
 * window holds four jobs per worker and two for the loading thread, and a
 * bounded number of input bytes, so results never pile up. A pool without
 * workers (one thread) runs a job when it is taken. Everything
 * here is best effort: a job not queued (full window, no memory) is done
 * in its turn, with the same result.
 * Owns the scan pool (created at its first use), the queued jobs, the
 * unpacker of deferred members (core/unpack.h) and the scan ready for the
 * member being processed. Invariant: every queued job is taken or dropped
 * before its bytes go away and before ahead_stop. */
#ifndef WEFT_AHEAD_H
#define WEFT_AHEAD_H

#include "core/scan.h"
#include "core/unpack.h"
#include "io/archive.h"
#include "io/sniff.h"

/* At most this many archive members are mapped on their own: each is a
 * mapping (vm.max_map_count is 65530 by default, and the tables' large
 * arrays need some too). */
#define AHEAD_MEMBER_MAPS_MAX 8192u

/* A scan queued ahead of its file's turn, and the bytes it reads. */
typedef struct ahead_scan {
  scan_job *job;
  const uint8_t *data;
  size_t len;
} ahead_scan;

/* A top-level gzip file's unpack queued ahead of its turn, for its
 * container's deferred member to adopt. */
typedef struct ahead_upcoming {
  const uint8_t *data; /* the file's bytes */
  size_t len;
  uint64_t size;       /* inflated bytes */
  unpack_member *job;
  uint8_t spill;       /* a member map is reserved for it */
} ahead_upcoming;

/* A member's scan made with its unpacking, for its tokenize. */
typedef struct ahead_ready {
  const uint8_t *data; /* the bytes it scanned, or NULL: none */
  size_t len;
  const importer_ops *ops;
  void *result;
  int status;
  base_error err;
} ahead_ready;

typedef struct scan_ahead {
  uint32_t threads;            /* --threads, resolved */
  const weft_options *options;
  int give_back;               /* scans give back mapped pages they passed */
  scan_pool *pool;             /* or NULL until first needed */
  VEC(ahead_scan) scans;       /* in file order */
  uint64_t scan_bytes;         /* input bytes of scans */
  unpacker unpack;             /* deferred members' jobs */
  VEC(ahead_upcoming) upcoming;
  uint64_t upcoming_bytes;     /* their inflated bytes */
  ahead_ready ready;
  uint32_t member_maps;        /* members mapped on their own, and reserved */
} scan_ahead;

void ahead_init(scan_ahead *a, uint32_t threads, const weft_options *options,
                int give_back, spill_file *spill);
/* Drops every queued job and joins the workers (every file is tokenized,
 * or the load ends). */
void ahead_stop(scan_ahead *a);
void ahead_destroy(scan_ahead *a);
/* The pool, created at its first use; NULL when out of memory. */
scan_pool *ahead_pool(scan_ahead *a);
/* How many jobs of one kind may wait ahead: four per worker and two for
 * the loading thread. */
size_t ahead_window(const scan_ahead *a);

/* Queues a scan of the upcoming file `data` of `type` if its importer has
 * one; 0 when the window is full. `mapped`: the bytes are a file mapping. */
int ahead_scan_file(scan_ahead *a, io_trace_type type, const uint8_t *data, size_t len,
                    int mapped);
/* Drops the scans queued from index `from` on. */
void ahead_scans_drop(scan_ahead *a, size_t from);
/* The scan of a file about to be tokenized: the ready one, or the one
 * queued for these bytes, else one run here and now. */
int ahead_scan_result(scan_ahead *a, const importer_ops *ops, const uint8_t *data,
                      size_t len, int mapped, void **result, base_error *err);
/* Frees a ready scan its member's tokenize did not take. */
void ahead_ready_free(scan_ahead *a);

/* What a deferred member's job does: inflate `d` (and spill, and scan it
 * when its importer has a scan). `alone`: nothing else is queued. */
unpack_request ahead_unpack_request(const scan_ahead *a, const io_deflated *d,
                                    io_trace_type type, size_t len, int alone);
/* Queues the inflate of an upcoming top-level gzip file. `limits` carry
 * the remaining expansion budget in max_total_bytes. */
void ahead_unpack_file(scan_ahead *a, const uint8_t *data, size_t len,
                       const io_limits *limits);
/* The job queued ahead for a deferred gzip stream (the same bytes give the
 * same request), unlinked; or NULL. *spill: a member map was reserved. */
unpack_member *ahead_upcoming_take(scan_ahead *a, const io_deflated *d, uint8_t *spill);
/* Drops what was queued for these bytes (everything: data NULL). */
void ahead_forget(scan_ahead *a, const uint8_t *data, size_t len);
void ahead_upcoming_drop(scan_ahead *a, const uint8_t *data, size_t len);

#endif
