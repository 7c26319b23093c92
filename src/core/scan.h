/* scan: runs importers' pure pre-passes (importer_ops.scan) of upcoming
 * files, and other tasks of the same kind (such as inflating an archive
 * member), on worker threads while the loading thread tokenizes earlier
 * ones.
 *
 * A scan_pool owns its worker threads (threads - 1 of them: the loading
 * thread is the last worker) and a FIFO of submitted jobs. A job owns its
 * result until scan_job_take hands it to the caller. Jobs only read their
 * input bytes and options, so the order they run in changes nothing: the
 * loading thread takes each result in file order and tokenizes with it,
 * exactly as if it had scanned the file itself (which it does when a job was
 * never started by a worker, or when the pool has no workers). Every
 * submitted job must be taken or dropped before its bytes go away, and
 * before scan_pool_destroy. */
#ifndef WEFT_SCAN_H
#define WEFT_SCAN_H

#include "import/importer.h"

typedef struct scan_pool scan_pool;
typedef struct scan_job scan_job;
/* scan_task (the work of a job) is declared in import/importer.h. */


/* threads <= 1 gives a pool without workers (jobs run when taken). */
int scan_pool_create(scan_pool **out, uint32_t threads);
/* Joins the workers; every job must have been taken or dropped. */
void scan_pool_destroy(scan_pool *p);
/* Queues a scan of `in` (copied; in->data must stay valid until the job is
 * taken or dropped) by `ops`, which must have a scan. */
int scan_pool_submit(scan_pool *p, const importer_ops *ops,
                     const import_scan_input *in, scan_job **out);
/* Queues a task (copied). */
int scan_pool_submit_task(scan_pool *p, const scan_task *task, scan_job **out);
/* Waits for the job (running it on this thread if no worker started it;
 * while a worker runs it, this thread runs the oldest queued jobs), frees
 * it, and returns the scan's status; *result (owned by the caller, to free
 * with ops->scan_free, or the task's free_result) is set when the status is 0, and *err holds the
 * scan's error otherwise. */
int scan_job_take(scan_pool *p, scan_job *j, void **result, base_error *err);
/* Cancels the job if no worker started it, else waits for it; frees it and
 * its result. */
void scan_job_drop(scan_pool *p, scan_job *j);

/* Runs a scan on this thread: what a job does. */
int scan_run(const importer_ops *ops, const import_scan_input *in, void **result,
             base_error *err);

#endif
