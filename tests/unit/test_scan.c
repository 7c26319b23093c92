/* The scan pool: results equal a scan run in place whatever the thread
 * count, jobs can be taken or dropped in any state, errors come back. */
#include <stdlib.h>
#include <time.h>

#include "check.h"
#include "core/scan.h"

/* A fake scan: the sum of the bytes (slowed down a little by repeating it,
 * so workers are still busy when results are taken); fails on a 0xFF byte. */
typedef struct sum_result {
  uint64_t sum;
} sum_result;

static int sum_scan(const import_scan_input *in, void **result, base_error *err) {
  sum_result *r = base_calloc(1, sizeof *r);
  if (!r) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  *result = r;
  for (int round = 0; round < 50; round++) {
    uint64_t s = 0;
    for (size_t i = 0; i < in->len; i++) {
      if (in->data[i] == 0xFF) return base_error_set(err, WEFT_EPARSE, "bad byte at %zu", i);
      s += in->data[i];
    }
    r->sum = s;
  }
  return WEFT_OK;
}

static void sum_free(void *result) { base_free(result); }

static const importer_ops sum_ops = {.trace_type = "sum", .scan = sum_scan, .scan_free = sum_free};

#define FILES 24
#define FILE_LEN 20000

static uint8_t files[FILES][FILE_LEN];

static void make_files(void) {
  for (int f = 0; f < FILES; f++)
    for (int i = 0; i < FILE_LEN; i++) files[f][i] = (uint8_t)((f * 31 + i * 7) % 200);
}

static uint64_t expected_sum(int f) {
  uint64_t s = 0;
  for (int i = 0; i < FILE_LEN; i++) s += files[f][i];
  return s;
}

static import_scan_input input_of(int f) {
  import_scan_input in = {files[f], FILE_LEN, NULL, 0, 0, 0};
  return in;
}

/* Every job submitted up front and taken in order gives the in-place result. */
static void test_take_in_order(void) {
  for (uint32_t threads = 1; threads <= 4; threads++) {
    scan_pool *p;
    CHECK_EQ_INT(scan_pool_create(&p, threads), WEFT_OK);
    scan_job *jobs[FILES];
    for (int f = 0; f < FILES; f++) {
      import_scan_input in = input_of(f);
      CHECK_EQ_INT(scan_pool_submit(p, &sum_ops, &in, &jobs[f]), WEFT_OK);
    }
    for (int f = 0; f < FILES; f++) {
      void *result = NULL;
      base_error err = {0};
      CHECK_EQ_INT(scan_job_take(p, jobs[f], &result, &err), WEFT_OK);
      CHECK(result != NULL);
      if (result) CHECK_EQ_INT(((sum_result *)result)->sum, expected_sum(f));
      sum_free(result);
    }
    scan_pool_destroy(p);
  }
}

/* Taking in reverse order runs the still-queued ones on this thread. */
static void test_take_reversed(void) {
  scan_pool *p;
  CHECK_EQ_INT(scan_pool_create(&p, 2), WEFT_OK);
  scan_job *jobs[FILES];
  for (int f = 0; f < FILES; f++) {
    import_scan_input in = input_of(f);
    CHECK_EQ_INT(scan_pool_submit(p, &sum_ops, &in, &jobs[f]), WEFT_OK);
  }
  for (int f = FILES - 1; f >= 0; f--) {
    void *result = NULL;
    CHECK_EQ_INT(scan_job_take(p, jobs[f], &result, NULL), WEFT_OK);
    if (result) CHECK_EQ_INT(((sum_result *)result)->sum, expected_sum(f));
    sum_free(result);
  }
  scan_pool_destroy(p);
}

/* Dropping queued, running and finished jobs leaks nothing (LeakSanitizer)
 * and leaves the pool usable. */
static void test_drop_any_state(void) {
  scan_pool *p;
  CHECK_EQ_INT(scan_pool_create(&p, 3), WEFT_OK);
  scan_job *jobs[FILES];
  for (int f = 0; f < FILES; f++) {
    import_scan_input in = input_of(f);
    CHECK_EQ_INT(scan_pool_submit(p, &sum_ops, &in, &jobs[f]), WEFT_OK);
  }
  void *result = NULL;
  CHECK_EQ_INT(scan_job_take(p, jobs[0], &result, NULL), WEFT_OK);
  sum_free(result);
  for (int f = 1; f < FILES; f++) scan_job_drop(p, jobs[f]);
  import_scan_input in = input_of(5);
  scan_job *again;
  CHECK_EQ_INT(scan_pool_submit(p, &sum_ops, &in, &again), WEFT_OK);
  CHECK_EQ_INT(scan_job_take(p, again, &result, NULL), WEFT_OK);
  if (result) CHECK_EQ_INT(((sum_result *)result)->sum, expected_sum(5));
  sum_free(result);
  scan_pool_destroy(p);
}

/* A failing scan returns its status and message, and no result. */
static void test_error(void) {
  static uint8_t bad[100];
  memset(bad, 1, sizeof bad);
  bad[42] = 0xFF;
  for (uint32_t threads = 1; threads <= 2; threads++) {
    scan_pool *p;
    CHECK_EQ_INT(scan_pool_create(&p, threads), WEFT_OK);
    import_scan_input in = {bad, sizeof bad, NULL, 0, 0, 0};
    scan_job *j;
    CHECK_EQ_INT(scan_pool_submit(p, &sum_ops, &in, &j), WEFT_OK);
    void *result = (void *)1;
    base_error err = {0};
    CHECK_EQ_INT(scan_job_take(p, j, &result, &err), WEFT_EPARSE);
    CHECK(result == NULL);
    CHECK_EQ_STR(err.message, "bad byte at 42");
    base_error err2 = {0};
    CHECK_EQ_INT(scan_run(&sum_ops, &in, &result, &err2), WEFT_EPARSE);
    CHECK(result == NULL);
    CHECK_EQ_STR(err2.message, "bad byte at 42");
    scan_pool_destroy(p);
  }
}

/* A task of the sum test: sums arg's file into a new result, or fails
 * (leaving a result to free) when its file number is odd. */
typedef struct sum_task_arg {
  int file;
  int ran;
} sum_task_arg;

static int sum_task_run(void *arg, void **result, base_error *err) {
  sum_task_arg *a = arg;
  __atomic_fetch_add(&a->ran, 1, __ATOMIC_RELAXED);
  import_scan_input in = input_of(a->file);
  int rc = sum_scan(&in, result, err);
  if (!rc && a->file % 2) return base_error_set(err, WEFT_EINVAL, "odd file %d", a->file);
  return rc;
}

/* Tasks run once each on any thread: taken, their result or error comes
 * back (a failed one's result freed); dropped, theirs is freed (the
 * sanitizer build sees leaks). */
static void test_tasks(void) {
  for (uint32_t threads = 1; threads <= 3; threads++) {
    scan_pool *p;
    CHECK_EQ_INT(scan_pool_create(&p, threads), WEFT_OK);
    sum_task_arg args[FILES];
    scan_job *jobs[FILES];
    for (int f = 0; f < FILES; f++) {
      args[f] = (sum_task_arg){f, 0};
      scan_task task = {sum_task_run, sum_free, &args[f]};
      CHECK_EQ_INT(scan_pool_submit_task(p, &task, &jobs[f]), WEFT_OK);
    }
    for (int f = 0; f < FILES; f++) {
      if (f % 3 == 2) {
        scan_job_drop(p, jobs[f]);
        CHECK(args[f].ran <= 1);
        continue;
      }
      void *result = (void *)1;
      base_error err = {0};
      int rc = scan_job_take(p, jobs[f], &result, &err);
      CHECK_EQ_INT(args[f].ran, 1);
      if (f % 2) {
        CHECK_EQ_INT(rc, WEFT_EINVAL);
        CHECK(result == NULL);
        char want[32];
        snprintf(want, sizeof want, "odd file %d", f);
        CHECK_EQ_STR(err.message, want);
        continue;
      }
      CHECK_EQ_INT(rc, WEFT_OK);
      CHECK(result != NULL);
      if (result) CHECK_EQ_INT(((sum_result *)result)->sum, expected_sum(f));
      sum_free(result);
    }
    scan_pool_destroy(p);
  }
}

/* A pool destroyed with nothing submitted, and one of a single thread. */
static void test_idle_pools(void) {
  for (uint32_t threads = 0; threads <= 8; threads += 4) {
    scan_pool *p;
    CHECK_EQ_INT(scan_pool_create(&p, threads), WEFT_OK);
    scan_pool_destroy(p);
  }
}

/* Allocation failures of the pool and of a job are reported. */
static void test_alloc_failure(void) {
  scan_pool *p = NULL;
  base_alloc_fail_after(1);
  CHECK_EQ_INT(scan_pool_create(&p, 2), WEFT_ENOMEM);
  base_alloc_fail_after(0);
  CHECK_EQ_INT(scan_pool_create(&p, 2), WEFT_OK);
  scan_job *j = NULL;
  import_scan_input in = input_of(0);
  base_alloc_fail_after(1);
  CHECK_EQ_INT(scan_pool_submit(p, &sum_ops, &in, &j), WEFT_ENOMEM);
  base_alloc_fail_after(0);
  scan_pool_destroy(p);
}

/* Help while waiting: job A, on the worker, waits (at most 10 s) for job B
 * to run; B is only queued, so taking A must run B on this thread. */
static int gate_started, gate_opened;

static void gate_sleep_ms(long ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

static int gate_wait_scan(const import_scan_input *in, void **result, base_error *err) {
  (void)in;
  *result = NULL;
  __atomic_store_n(&gate_started, 1, __ATOMIC_SEQ_CST);
  for (int i = 0; i < 10000 && !__atomic_load_n(&gate_opened, __ATOMIC_SEQ_CST); i++)
    gate_sleep_ms(1);
  if (!__atomic_load_n(&gate_opened, __ATOMIC_SEQ_CST))
    return base_error_set(err, WEFT_EPARSE, "the queued job was not run while waiting");
  return WEFT_OK;
}

static int gate_open_scan(const import_scan_input *in, void **result, base_error *err) {
  (void)in;
  (void)err;
  *result = NULL;
  __atomic_store_n(&gate_opened, 1, __ATOMIC_SEQ_CST);
  return WEFT_OK;
}

static void gate_free(void *result) { (void)result; }

static const importer_ops gate_wait_ops = {.trace_type = "wait", .scan = gate_wait_scan,
                                           .scan_free = gate_free};
static const importer_ops gate_open_ops = {.trace_type = "open", .scan = gate_open_scan,
                                           .scan_free = gate_free};

static void test_take_runs_queued_while_waiting(void) {
  scan_pool *p;
  CHECK_EQ_INT(scan_pool_create(&p, 2), WEFT_OK);
  import_scan_input in = input_of(0);
  scan_job *a, *b;
  CHECK_EQ_INT(scan_pool_submit(p, &gate_wait_ops, &in, &a), WEFT_OK);
  while (!__atomic_load_n(&gate_started, __ATOMIC_SEQ_CST)) gate_sleep_ms(1);
  CHECK_EQ_INT(scan_pool_submit(p, &gate_open_ops, &in, &b), WEFT_OK);
  void *result;
  base_error err = {0};
  CHECK_EQ_INT(scan_job_take(p, a, &result, &err), WEFT_OK);
  CHECK(__atomic_load_n(&gate_opened, __ATOMIC_SEQ_CST));
  CHECK_EQ_INT(scan_job_take(p, b, &result, &err), WEFT_OK);
  scan_pool_destroy(p);
}

int main(void) {
  make_files();
  RUN_TEST(test_take_in_order);
  RUN_TEST(test_take_reversed);
  RUN_TEST(test_drop_any_state);
  RUN_TEST(test_error);
  RUN_TEST(test_tasks);
  RUN_TEST(test_idle_pools);
  RUN_TEST(test_alloc_failure);
  RUN_TEST(test_take_runs_queued_while_waiting);
  return CHECK_SUMMARY();
}
