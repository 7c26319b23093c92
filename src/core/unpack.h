/* unpack: inflates deferred archive members (io/archive.h's io_deflated) on
 * the scan pool (core/scan.h), ahead of their turn. One job per member
 * inflates it into the spill file when asked (core/spill.h: a large one
 * straight into a reservation where the file system allows, others
 * inflated on the heap and moved there) and runs its importer's scan on
 * it, so that the loading thread takes the member ready to tokenize.
 *
 * Owns each unpack_member from unpack_submit until it is taken or dropped,
 * and what its job made until unpack_take hands that over. Jobs share only
 * the spill file: they reserve or write under the unpacker's lock, and fill
 * their own reservation outside it. What a job makes does not depend on
 * the thread that runs it: the bytes inflate the same, and a scan result
 * never points into the bytes it read (importer.h), so it is the same for
 * a heap copy and a spilled one. */
#ifndef WEFT_CORE_UNPACK_H
#define WEFT_CORE_UNPACK_H

#include <pthread.h>

#include "core/scan.h"
#include "core/spill.h"
#include "io/archive.h"

typedef struct unpacker {
  spill_file *spill;           /* not owned; written under spill_lock */
  pthread_mutex_t spill_lock;
  const weft_options *options; /* what scans read */
  int give_back;               /* scans may give back spilled pages */
} unpacker;

void unpacker_init(unpacker *u, spill_file *spill, const weft_options *options,
                   int give_back);
/* Every member must have been taken or dropped. */
void unpacker_destroy(unpacker *u);
/* spill_member under the unpacker's lock: how every thread writes to the
 * spill file while jobs may run. */
void *unpacker_spill(unpacker *u, const uint8_t *bytes, size_t len, const uint8_t **data,
                     size_t *map_len);

typedef struct unpack_request {
  io_deflated deflated;
  const importer_ops *scan_ops; /* the member's importer if it has a scan */
  int spill;                    /* move the bytes to the spill file */
  int may_split, in_turn;       /* for the scan: see import_scan_input */
} unpack_request;

typedef struct unpack_result {
  uint8_t *heap;       /* the bytes on the heap (base_free), or NULL */
  void *map;           /* or spilled: the mapping (munmap map_len bytes) */
  size_t map_len;
  const uint8_t *data; /* the member's bytes, in heap or in map */
  size_t len;
  const importer_ops *scan_ops; /* the request's */
  void *scan;          /* the scan's result (scan_ops->scan_free) or NULL */
  int scan_status;     /* the scan's status, its error in scan_err */
  base_error scan_err;
} unpack_result;

typedef struct unpack_member unpack_member;

int unpack_submit(unpacker *u, scan_pool *pool, const unpack_request *req,
                  unpack_member **out);
/* Waits for the member (running its job here if no worker started it),
 * frees it and hands over what it made in *out. WEFT_OK; WEFT_ENOMEM; or
 * WEFT_EPARSE when the bytes do not inflate (io_deflated_inflate): *out is
 * empty then. */
int unpack_take(scan_pool *pool, unpack_member *m, unpack_result *out);
/* Cancels the member's job if no worker started it, else waits for it;
 * frees the member and what it made. */
void unpack_drop(scan_pool *pool, unpack_member *m);
/* Frees what a result holds that its taker did not take (NULL fields are
 * skipped) and empties it. */
void unpack_result_free(unpack_result *r);

#endif
