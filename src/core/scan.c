/* The scan worker pool: a mutex-protected FIFO of jobs (each a task: a
 * function and its argument), workers that take
 * the oldest queued job, and a loading thread that claims a job itself when
 * it needs the result before any worker started it. */
#include "core/scan.h"

#include <pthread.h>

typedef enum scan_job_state {
  SCAN_JOB_QUEUED,  /* in the FIFO, not started */
  SCAN_JOB_RUNNING, /* a thread runs it */
  SCAN_JOB_DONE,    /* status, result and error are set */
} scan_job_state;

struct scan_job {
  scan_task task;
  const importer_ops *ops; /* for importer scans: task.arg is the job */
  import_scan_input in;
  scan_job_state state;
  int status;
  void *result;
  base_error err;
  scan_job *next; /* FIFO link while queued */
};

struct scan_pool {
  pthread_mutex_t lock;
  pthread_cond_t queued; /* signalled when a job is queued or on shutdown */
  pthread_cond_t done;   /* broadcast when a job is done */
  scan_job *head, *tail; /* queued jobs, oldest first */
  pthread_t *workers;
  uint32_t worker_count;
  int stopping;
};

int scan_run(const importer_ops *ops, const import_scan_input *in, void **result,
             base_error *err) {
  *result = NULL;
  int rc = ops->scan(in, result, err);
  if (rc && *result) {
    ops->scan_free(*result);
    *result = NULL;
  }
  return rc;
}

static void scan_job_execute(scan_job *j) {
  j->result = NULL;
  j->status = j->task.run(j->task.arg, &j->result, &j->err);
  if (j->status && j->result && j->task.free_result) {
    j->task.free_result(j->result);
    j->result = NULL;
  }
}

/* The task of an importer scan job. */
static int scan_job_run_importer(void *arg, void **result, base_error *err) {
  scan_job *j = arg;
  return scan_run(j->ops, &j->in, result, err);
}

/* Unlinks the oldest queued job; the lock is held. */
static scan_job *scan_pool_pop(scan_pool *p) {
  scan_job *j = p->head;
  if (!j) return NULL;
  p->head = j->next;
  if (!p->head) p->tail = NULL;
  j->next = NULL;
  return j;
}

/* Unlinks `j` from the FIFO; the lock is held and j is queued. */
static void scan_pool_unlink(scan_pool *p, scan_job *j) {
  scan_job **at = &p->head, *prev = NULL;
  while (*at && *at != j) {
    prev = *at;
    at = &(*at)->next;
  }
  if (!*at) return;
  *at = j->next;
  if (p->tail == j) p->tail = prev;
  j->next = NULL;
}

/* Runs popped job `j` with the lock released; the lock is held before and
 * after, and waiters are told it is done. */
static void scan_pool_run(scan_pool *p, scan_job *j) {
  j->state = SCAN_JOB_RUNNING;
  pthread_mutex_unlock(&p->lock);
  scan_job_execute(j);
  pthread_mutex_lock(&p->lock);
  j->state = SCAN_JOB_DONE;
  pthread_cond_broadcast(&p->done);
}

static void *scan_worker_main(void *arg) {
  scan_pool *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->head && !p->stopping) pthread_cond_wait(&p->queued, &p->lock);
    if (p->stopping) break;
    scan_pool_run(p, scan_pool_pop(p));
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void scan_pool_stop(scan_pool *p) {
  pthread_mutex_lock(&p->lock);
  p->stopping = 1;
  pthread_cond_broadcast(&p->queued);
  pthread_mutex_unlock(&p->lock);
  for (uint32_t i = 0; i < p->worker_count; i++) pthread_join(p->workers[i], NULL);
  p->worker_count = 0;
}

int scan_pool_create(scan_pool **out, uint32_t threads) {
  scan_pool *p = base_calloc(1, sizeof *p);
  uint32_t want = threads > 1 ? threads - 1 : 0;
  if (!p || (want && !(p->workers = base_calloc(want, sizeof *p->workers)))) {
    base_free(p);
    return WEFT_ENOMEM;
  }
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->queued, NULL);
  pthread_cond_init(&p->done, NULL);
  /* Fewer workers than asked when threads cannot be made: still correct,
   * since the loading thread runs whatever no worker took. */
  while (p->worker_count < want &&
         pthread_create(&p->workers[p->worker_count], NULL, scan_worker_main, p) == 0)
    p->worker_count++;
  *out = p;
  return WEFT_OK;
}

void scan_pool_destroy(scan_pool *p) {
  if (!p) return;
  scan_pool_stop(p);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->queued);
  pthread_mutex_destroy(&p->lock);
  base_free(p->workers);
  base_free(p);
}

/* Queues `j` (its task set) at the FIFO's tail. */
static void scan_pool_queue(scan_pool *p, scan_job *j) {
  j->state = SCAN_JOB_QUEUED;
  pthread_mutex_lock(&p->lock);
  if (p->tail) p->tail->next = j;
  else p->head = j;
  p->tail = j;
  if (p->worker_count) pthread_cond_signal(&p->queued);
  pthread_mutex_unlock(&p->lock);
}

int scan_pool_submit_task(scan_pool *p, const scan_task *task, scan_job **out) {
  scan_job *j = base_calloc(1, sizeof *j);
  if (!j) return WEFT_ENOMEM;
  j->task = *task;
  scan_pool_queue(p, j);
  *out = j;
  return WEFT_OK;
}

int scan_pool_submit(scan_pool *p, const importer_ops *ops,
                     const import_scan_input *in, scan_job **out) {
  scan_job *j = base_calloc(1, sizeof *j);
  if (!j) return WEFT_ENOMEM;
  j->ops = ops;
  j->in = *in;
  j->task = (scan_task){scan_job_run_importer, ops->scan_free, j};
  scan_pool_queue(p, j);
  *out = j;
  return WEFT_OK;
}

/* Runs the oldest queued job on this thread while `j` runs on a worker, so
 * no core idles while the loading thread waits; the lock is held. Returns
 * 0 when nothing is queued. */
static int scan_pool_help(scan_pool *p) {
  scan_job *other = scan_pool_pop(p);
  if (!other) return 0;
  scan_pool_run(p, other);
  return 1;
}

/* Makes `j` done: runs it here if it is still queued, else runs other
 * queued jobs (unless cancelling), then waits, until the worker running it
 * is done. With `cancel`, a queued job is not run (returns 0). */
static int scan_job_finish(scan_pool *p, scan_job *j, int cancel) {
  pthread_mutex_lock(&p->lock);
  if (j->state == SCAN_JOB_QUEUED) {
    scan_pool_unlink(p, j);
    j->state = SCAN_JOB_RUNNING;
    pthread_mutex_unlock(&p->lock);
    if (cancel) return 0;
    scan_job_execute(j);
    j->state = SCAN_JOB_DONE;
    return 1;
  }
  while (j->state != SCAN_JOB_DONE)
    if (cancel || !scan_pool_help(p)) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  return 1;
}

int scan_job_take(scan_pool *p, scan_job *j, void **result, base_error *err) {
  scan_job_finish(p, j, 0);
  int rc = j->status;
  *result = j->result;
  if (rc && err) *err = j->err;
  base_free(j);
  return rc;
}

void scan_job_drop(scan_pool *p, scan_job *j) {
  if (scan_job_finish(p, j, 1) && j->result && j->task.free_result)
    j->task.free_result(j->result);
  base_free(j);
}
