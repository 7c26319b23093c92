/* gecko: walking the profile: its threads (read by gecko_threads.c, added
 * here in file order) and its child profiles. What needs values a
 * profile or thread may give later is finished at its end: a thread's
 * markers (its "stringArray", "tid" may follow them), the markers'
 * categories ("meta" may follow "threads"), stack samples (read once the
 * profile's threads are final: a repeated "threads" replaces the first)
 * and child profiles (read after the profile's own threads). */
#include <string.h>

#include "import/gecko/gecko_internal.h"

/* The samples' table: a "time" column, or rows with a schema. */
typedef struct gecko_samples {
  gecko_span time, schema, rows;
  int64_t time_index;
} gecko_samples;

static int gecko_samples_member(import_file *f, void *user, const char *key, size_t len,
                                const gecko_span *v, base_error *err) {
  (void)f, (void)err;
  gecko_samples *s = user;
  if (gecko_key_is(key, len, "time")) s->time = *v;
  if (gecko_key_is(key, len, "schema")) s->schema = *v;
  if (gecko_key_is(key, len, "data")) s->rows = *v;
  return WEFT_OK;
}

static int gecko_sample_schema_member(import_file *f, void *user, const char *key, size_t len,
                                      const gecko_span *v, base_error *err) {
  (void)err;
  double d;
  if (gecko_key_is(key, len, "time") && gecko_number(f, v, &d) && d >= 0 && d < 64)
    ((gecko_samples *)user)->time_index = (int64_t)d;
  return WEFT_OK;
}

static void gecko_note_sample(import_file *f, gecko_thread *t, const gecko_span *time) {
  int64_t ns;
  if (!gecko_time(f, time, &ns) || (t->has_first && ns >= t->first_sample)) return;
  t->first_sample = ns;
  t->has_first = 1;
}

/* A thread is made at its first event: samples count (weft does not read
 * their stacks yet), so their earliest time is noted. */
static int gecko_first_sample(import_file *f, const gecko_span *samples, gecko_thread *t,
                              base_error *err) {
  gecko_samples s = {.time_index = -1};
  gecko_spans list = {0}, cells = {0};
  int rc = gecko_members(f, samples, gecko_samples_member, &s, err);
  if (!rc && s.schema.type == JSON_TOK_OBJECT_BEGIN) {
    rc = gecko_members(f, &s.schema, gecko_sample_schema_member, &s, err);
    if (!rc && s.time_index >= 0) rc = gecko_elements(f, &s.rows, &list, err);
    for (size_t i = 0; !rc && i < list.len; i++) {
      rc = gecko_elements(f, &list.data[i], &cells, err);
      if (!rc && (size_t)s.time_index < cells.len)
        gecko_note_sample(f, t, &cells.data[s.time_index]);
    }
  } else if (!rc) {
    rc = gecko_elements(f, &s.time, &list, err);
    for (size_t i = 0; !rc && i < list.len; i++) gecko_note_sample(f, t, &list.data[i]);
  }
  VEC_FREE(list);
  VEC_FREE(cells);
  return rc;
}

static int gecko_id(import_file *f, const gecko_span *s, int64_t *out) {
  double d;
  if (!gecko_number(f, s, &d) || d < 0 || d > 4294967295.0) return 0;
  *out = (int64_t)d;
  return 1;
}

/* ---- one thread ---- */

/* A thread's stack samples, read at its profile's end. */
typedef struct gecko_pending_samples {
  uint32_t thread;
  gecko_stack_spans stacks;
  gecko_spans strings;
} gecko_pending_samples;

typedef struct gecko_profile_read {
  int depth;
  gecko_span meta, processes;
  size_t threads_mark, markers_mark, data_mark, slots_mark; /* its first thread, ... */
  int64_t dropped_mark;
  VEC(gecko_pending_samples) pending;
} gecko_profile_read;

static int gecko_defer_samples(gecko_profile_read *p, const gecko_thread_read *t,
                               uint32_t thread, base_error *err) {
  if (t->stacks.samples.type != JSON_TOK_OBJECT_BEGIN) return WEFT_OK;
  gecko_pending_samples s = {.thread = thread, .stacks = t->stacks};
  size_t n = t->strings.spans.len;
  if (n && VEC_RESERVE(s.strings, n)) return base_error_nomem(err);
  if (n) memcpy(s.strings.data, t->strings.spans.data, n * sizeof *s.strings.data);
  s.strings.len = n;
  if (VEC_PUSH(p->pending, s)) {
    VEC_FREE(s.strings);
    return base_error_nomem(err);
  }
  return WEFT_OK;
}

/* A thread with a tid is recorded with its markers. */
static int gecko_end_thread(import_file *f, void *user, gecko_thread_job *j, base_error *err) {
  gecko_profile_read *p = user;
  gecko_state *st = f->state;
  gecko_thread_read *t = &j->read;
  gecko_thread th = {0};
  if (!gecko_id(f, &t->tid, &th.tid)) return WEFT_OK;
  if (!gecko_id(f, &t->pid, &th.pid)) th.pid = th.tid;
  if (gecko_intern(f, &t->name, &th.name)) return base_error_nomem(err);
  if (j->markers.len) { /* ordered: the first is the earliest */
    th.has_marker = 1;
    th.first_marker = j->markers.data[0].ts;
  }
  uint32_t index = (uint32_t)st->threads.len;
  if (VEC_PUSH(st->threads, th)) return base_error_nomem(err);
  int rc = gecko_defer_samples(p, t, index, err);
  return rc ? rc : gecko_add_markers(f, index, j, err);
}

/* ---- the profile ---- */

/* Forgets the threads read so far (a later "threads" replaces them). */
static void gecko_drop_threads(gecko_state *st, gecko_profile_read *p) {
  st->threads.len = p->threads_mark;
  st->markers.len = p->markers_mark;
  st->data.len = p->data_mark;
  st->slots.len = p->slots_mark;
  st->dropped = p->dropped_mark;
  for (size_t i = 0; i < p->pending.len; i++) VEC_FREE(p->pending.data[i].strings);
  p->pending.len = 0;
}

static int gecko_profile_member(gecko_reader *r, void *user, const json_token *key,
                                const json_token *v, base_error *err) {
  gecko_profile_read *p = user;
  if (gecko_token_key_is(key, "meta")) return gecko_take(r, v, &p->meta, err);
  if (gecko_token_key_is(key, "processes")) return gecko_take(r, v, &p->processes, err);
  if (!gecko_token_key_is(key, "threads")) return gecko_skip(r, v, err);
  gecko_drop_threads(r->f->state, p);
  if (v->type != JSON_TOK_ARRAY_BEGIN) return gecko_skip(r, v, err);
  return gecko_read_threads(r, gecko_end_thread, p, err);
}

static int gecko_category_member(import_file *f, void *user, const char *key, size_t len,
                                 const gecko_span *v, base_error *err) {
  (void)f, (void)err;
  if (gecko_key_is(key, len, "name")) *(gecko_span *)user = *v;
  return WEFT_OK;
}

/* "categories": each {"name": ..., "color": ...} by its name. */
static int gecko_meta_member(import_file *f, void *user, const char *key, size_t len,
                             const gecko_span *v, base_error *err) {
  gecko_spans *names = user;
  if (!gecko_key_is(key, len, "categories")) return WEFT_OK;
  gecko_spans cats = {0};
  int rc = gecko_elements(f, v, &cats, err);
  names->len = 0;
  for (size_t i = 0; !rc && i < cats.len; i++) {
    gecko_span name = {0};
    rc = gecko_members(f, &cats.data[i], gecko_category_member, &name, err);
    if (name.type != JSON_TOK_STRING) name = (gecko_span){0, 0, JSON_TOK_NULL};
    if (!rc && VEC_PUSH(*names, name)) rc = base_error_nomem(err);
  }
  VEC_FREE(cats);
  return rc;
}

/* The profile's threads get its category names (its last "meta"'s). */
static int gecko_name_categories(import_file *f, gecko_profile_read *p, base_error *err) {
  gecko_state *st = f->state;
  gecko_spans names = {0};
  size_t first = st->category_ids.len;
  int rc = gecko_members(f, &p->meta, gecko_meta_member, &names, err);
  if (!rc && names.len >= UINT32_MAX - first)
    rc = base_error_set(err, WEFT_ELIMIT, "gecko: more than %u categories", UINT32_MAX - 1);
  for (size_t i = 0; !rc && i < names.len; i++) {
    string_id id;
    rc = gecko_intern(f, &names.data[i], &id);
    if (!rc && VEC_PUSH(st->category_ids, id)) rc = WEFT_ENOMEM;
    if (rc == WEFT_ENOMEM) rc = base_error_nomem(err);
  }
  for (size_t i = p->threads_mark; !rc && i < st->threads.len; i++) {
    st->threads.data[i].categories = (uint32_t)first;
    st->threads.data[i].category_count = (uint32_t)names.len;
  }
  VEC_FREE(names);
  return rc;
}

static int gecko_read_pending(import_file *f, gecko_profile_read *p, base_error *err) {
  gecko_state *st = f->state;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < p->pending.len; i++) {
    const gecko_pending_samples *s = &p->pending.data[i];
    rc = gecko_first_sample(f, &s->stacks.samples, &st->threads.data[s->thread], err);
    if (!rc) rc = gecko_read_samples(f, s->thread, &s->stacks, &s->strings, err);
  }
  return rc;
}

#define GECKO_MAX_NESTING 8 /* profiles of child processes inside profiles */

static int gecko_read_profile(gecko_reader *r, int depth, base_error *err);

/* The child profile `s` (nothing unless an object). */
static int gecko_read_child(import_file *f, const gecko_span *s, int depth, base_error *err) {
  if (s->type != JSON_TOK_OBJECT_BEGIN) return WEFT_OK;
  json_tokenizer tk;
  gecko_reader r;
  json_token t;
  int rc = gecko_open(f, s, &tk, &r, &t, err);
  if (rc) return rc;
  rc = gecko_read_profile(&r, depth, err);
  json_tokenizer_free(&tk);
  return rc;
}

static int gecko_end_profile(import_file *f, gecko_profile_read *p, base_error *err) {
  int rc = gecko_name_categories(f, p, err);
  if (!rc) rc = gecko_read_pending(f, p, err);
  if (rc || p->depth >= GECKO_MAX_NESTING) return rc;
  gecko_spans list = {0};
  rc = gecko_elements(f, &p->processes, &list, err);
  for (size_t i = 0; !rc && i < list.len; i++)
    rc = gecko_read_child(f, &list.data[i], p->depth + 1, err);
  VEC_FREE(list);
  return rc;
}

/* The profile whose '{' was just read. */
static int gecko_read_profile(gecko_reader *r, int depth, base_error *err) {
  gecko_state *st = r->f->state;
  gecko_profile_read p = {.depth = depth};
  p.threads_mark = st->threads.len;
  p.markers_mark = st->markers.len;
  p.data_mark = st->data.len;
  p.slots_mark = st->slots.len;
  p.dropped_mark = st->dropped;
  int rc = gecko_walk_members(r, gecko_profile_member, &p, err);
  if (!rc) rc = gecko_end_profile(r->f, &p, err);
  for (size_t i = 0; i < p.pending.len; i++) VEC_FREE(p.pending.data[i].strings);
  VEC_FREE(p.pending);
  return rc;
}

int gecko_read_document(import_file *f, base_error *err) {
  gecko_state *st = f->state;
  json_tokenizer tk;
  json_token t;
  gecko_reader r = {f, &tk, 0};
  int rc = json_tokenizer_init(&tk, (const char *)f->data, f->len, &st->limits, err);
  if (rc) return rc;
  rc = json_next(&tk, &t, err);
  if (!rc && t.type == JSON_TOK_OBJECT_BEGIN) rc = gecko_read_profile(&r, 0, err);
  else if (!rc) rc = gecko_skip(&r, &t, err);
  json_tokenizer_free(&tk);
  gecko_threads_free(st);
  base_map_free(&st->slot_map);
  return rc;
}
