/* gecko: reading a profile's "threads" array, several threads at once.
 *
 * Reading a thread object (its tokens, its numbers) and building its
 * markers is most of a profile's tokenize, and no thread's read depends on
 * another's. So the walk of the array only finds where each thread object
 * ends (json_container_end: brackets and strings, eight bytes at a time),
 * steps its own tokenizer past it, and hands the object to a job with a
 * tokenizer forked at its first member; up to GECKO_THREADS_AHEAD jobs run
 * on the load's workers while the walk goes on. Threads are taken back in
 * file order and added by the caller's function then, so the state is
 * written by the loading thread alone and in the same order as a read of
 * one thread after the other: the result does not depend on the number of
 * threads.
 *
 * A job reads its object with the full tokenizer, so the object is
 * checked as strictly as in one walk, and its end must be where the quick
 * search found it. Errors are reported in file order: a thread's error
 * comes before anything found after it. An object whose end the search
 * does not find (malformed, or nested too deep) is read in place by a
 * job run at once, which reports what is wrong with it. */
#include <string.h>

#include "import/gecko/gecko_internal.h"

/* ---- one thread object ---- */

static int gecko_thread_member(gecko_reader *r, void *user, const json_token *key,
                               const json_token *v, base_error *err) {
  gecko_thread_read *t = user;
  if (gecko_token_key_is(key, "name")) return gecko_take(r, v, &t->name, err);
  if (gecko_token_key_is(key, "tid")) return gecko_take(r, v, &t->tid, err);
  if (gecko_token_key_is(key, "pid")) return gecko_take(r, v, &t->pid, err);
  if (gecko_token_key_is(key, "markers")) return gecko_read_marker_table(r, v, &t->markers, err);
  if (gecko_token_key_is(key, "stringArray") || gecko_token_key_is(key, "stringTable"))
    return gecko_read_spans(r, v, &t->strings.spans, err);
  if (gecko_token_key_is(key, "frameTable")) return gecko_take(r, v, &t->stacks.frames, err);
  if (gecko_token_key_is(key, "funcTable")) return gecko_take(r, v, &t->stacks.funcs, err);
  if (gecko_token_key_is(key, "stackTable")) return gecko_take(r, v, &t->stacks.stacks, err);
  if (gecko_token_key_is(key, "samples")) return gecko_take(r, v, &t->stacks.samples, err);
  return gecko_skip(r, v, err);
}

/* Reads the thread object j->tk is in, and builds its markers. */
static int gecko_thread_job_read(gecko_thread_job *j, base_error *err) {
  gecko_thread_read *t = &j->read;
  gecko_reader r = {j->f, &j->tk, j->base};
  t->name = t->tid = t->pid = (gecko_span){0};
  t->stacks = (gecko_stack_spans){0};
  t->strings.spans.len = 0;
  gecko_marker_table_clear(&t->markers);
  int rc = gecko_walk_members(&r, gecko_thread_member, t, err);
  if (!rc && j->end != SIZE_MAX && json_offset(&j->tk) != j->end)
    rc = base_error_set(err, WEFT_EPARSE, "gecko: the thread object at offset %zu "
                        "does not end where its brackets do", j->base + j->end);
  return rc ? rc : gecko_build_markers(j, err);
}

static int gecko_thread_job_run(void *arg, void **result, base_error *err) {
  int rc = gecko_thread_job_read(arg, err);
  if (!rc) *result = arg;
  return rc;
}

static void gecko_thread_job_free(gecko_thread_job *j) {
  gecko_strings_free(&j->read.strings);
  gecko_marker_table_free(&j->read.markers);
  VEC_FREE(j->markers);
  VEC_FREE(j->slots);
  base_map_free(&j->slot_map);
  VEC_FREE(j->data);
  gecko_order_free(&j->order);
}

void gecko_threads_free(gecko_state *st) {
  if (!st->jobs) return;
  for (size_t i = 0; i < GECKO_THREADS_AHEAD; i++) gecko_thread_job_free(&st->jobs[i]);
  base_free(st->jobs);
  st->jobs = NULL;
}

/* ---- the ring of threads read ahead ---- */

typedef struct gecko_ring {
  gecko_thread_job *jobs;
  size_t head, count;
  import_file *f;
  gecko_thread_fn fn;
  void *user;
} gecko_ring;

/* Takes back the oldest thread (reading it now if no worker has) and
 * hands it to fn. */
static int gecko_ring_finish(gecko_ring *g, base_error *err) {
  gecko_thread_job *j = &g->jobs[g->head];
  g->head = (g->head + 1) % GECKO_THREADS_AHEAD;
  g->count--;
  int rc;
  if (j->job) {
    void *result = NULL;
    rc = import_task_take(g->f, j->job, &result, err);
    j->job = NULL;
  } else {
    rc = j->read_done ? WEFT_OK : gecko_thread_job_read(j, err);
  }
  json_tokenizer_free(&j->tk);
  return rc ? rc : g->fn(g->f, g->user, j, err);
}

/* Finishes every thread in the ring, in order; after a failure the rest
 * are dropped. */
static int gecko_ring_drain(gecko_ring *g, int rc, base_error *err) {
  while (g->count && !rc) rc = gecko_ring_finish(g, err);
  for (; g->count; g->count--, g->head = (g->head + 1) % GECKO_THREADS_AHEAD) {
    gecko_thread_job *j = &g->jobs[g->head];
    import_task_drop(g->f, j->job);
    j->job = NULL;
    json_tokenizer_free(&j->tk);
  }
  return rc;
}

/* A ring slot for the thread object whose '{' r just read, its tokenizer
 * forked there. */
static int gecko_ring_add(gecko_ring *g, gecko_reader *r, gecko_thread_job **out,
                          base_error *err) {
  int rc = g->count == GECKO_THREADS_AHEAD ? gecko_ring_finish(g, err) : WEFT_OK;
  if (rc) return rc;
  gecko_thread_job *j = &g->jobs[(g->head + g->count) % GECKO_THREADS_AHEAD];
  const json_tokenizer *tk = r->tk;
  json_limits limits = {tk->max_depth, tk->max_string_len};
  rc = json_tokenizer_init(&j->tk, tk->begin, (size_t)(tk->end - tk->begin), &limits, err);
  if (rc) return rc;
  json_tokenizer_fork(&j->tk, tk);
  j->f = g->f;
  j->base = r->base;
  j->job = NULL;
  j->read_done = 0;
  g->count++;
  *out = j;
  return WEFT_OK;
}

/* The thread object whose '{' r just read: queued for a worker, and r
 * stepped past it; or, when its end is not found, read at once (after
 * the threads before it, so that errors come in file order) with r
 * stepped past what the read consumed. */
static int gecko_thread_object(gecko_ring *g, gecko_reader *r, const json_token *t,
                               base_error *err) {
  const json_tokenizer *tk = r->tk;
  size_t end = json_container_end(tk->begin, (size_t)(tk->end - tk->begin), t->offset,
                                  tk->max_depth - tk->depth + 1);
  int rc = end ? WEFT_OK : gecko_ring_drain(g, WEFT_OK, err);
  gecko_thread_job *j;
  if (!rc) rc = gecko_ring_add(g, r, &j, err);
  if (rc) return rc;
  j->end = end ? end : SIZE_MAX;
  if (end) {
    scan_task task = {gecko_thread_job_run, NULL, j};
    if (import_task_submit(g->f, &task, &j->job)) j->job = NULL; /* read in place */
    json_tokenizer_resume_after(r->tk, end);
    return WEFT_OK;
  }
  rc = gecko_thread_job_read(j, err);
  if (rc) return rc;
  j->read_done = 1;
  json_tokenizer_resume_after(r->tk, json_offset(&j->tk));
  return WEFT_OK;
}

int gecko_read_threads(gecko_reader *r, gecko_thread_fn fn, void *user, base_error *err) {
  gecko_state *st = r->f->state;
  if (!st->jobs) st->jobs = base_calloc(GECKO_THREADS_AHEAD, sizeof *st->jobs);
  if (!st->jobs) return base_error_nomem(err);
  gecko_ring g = {st->jobs, 0, 0, r->f, fn, user};
  json_token v;
  int rc;
  while (!(rc = json_next(r->tk, &v, err)) && v.type != JSON_TOK_ARRAY_END) {
    rc = v.type == JSON_TOK_OBJECT_BEGIN ? gecko_thread_object(&g, r, &v, err)
                                         : gecko_skip(r, &v, err);
    if (rc) break;
  }
  return gecko_ring_drain(&g, rc, err);
}
