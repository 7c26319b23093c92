/* gecko: the Firefox Profiler's JSON (the Gecko profile and the processed
 * profile formats), as Perfetto reads it.
 *
 * A profile is clockless: its times are milliseconds on the file's own
 * timeline (Perfetto's trace-file clock), placed on a merge by the manifest
 * like Chrome JSON. tokenize walks the document without a DOM: the spans of
 * the members it needs are recorded and read again as small documents.
 *  - "meta.categories": category names, by index.
 *  - "threads": each thread's pid, tid and name (its process is unnamed) and
 *    its markers, as columns ("name", "startTime", "endTime", "phase",
 *    "category", "data" of the processed format) or as rows under a
 *    "schema" (the Gecko format), names from "stringArray" or
 *    "stringTable".
 *  - "processes": child profiles, read the same way.
 * Each marker becomes a slice on a track of type firefox_marker, one per
 * (thread, category, name), with dimension args utid,
 * firefox_marker_category and firefox_marker_name: phase 0 an instant at
 * startTime, 1 an interval (a negative length is 0), 2 opens a slice that
 * the next phase-3 marker of its track closes at endTime (an end with no
 * open slice is dropped). Marker data become "data.*" args; an end's data
 * join its slice's. A time that is missing (null) drops its marker. */
#include <math.h>
#include <string.h>

#include "clock/clock.h"
#include "import/gecko/gecko_internal.h"
#include "model/columns.h"
#include "model/model.h"
#include "model/stack_profile.h"

/* ---- one thread ---- */

typedef struct gecko_thread_spans {
  gecko_span name, tid, pid, markers, strings, samples;
} gecko_thread_spans;

static int gecko_thread_member(import_file *f, void *user, const char *key, size_t len,
                               const gecko_span *v, base_error *err) {
  (void)f, (void)err;
  gecko_thread_spans *t = user;
  if (gecko_key_is(key, len, "name")) t->name = *v;
  else if (gecko_key_is(key, len, "tid")) t->tid = *v;
  else if (gecko_key_is(key, len, "pid")) t->pid = *v;
  else if (gecko_key_is(key, len, "markers")) t->markers = *v;
  else if (gecko_key_is(key, len, "samples")) t->samples = *v;
  else if (gecko_key_is(key, len, "stringArray") || gecko_key_is(key, len, "stringTable"))
    t->strings = *v;
  return WEFT_OK;
}

/* The fields of the marker table: column arrays (processed format), or
 * the schema's indices into each row (Gecko format). */
enum { GK_NAME, GK_START, GK_END, GK_PHASE, GK_CATEGORY, GK_DATA, GK_FIELDS };
static const char *const gecko_field_names[GK_FIELDS] = {"name", "startTime", "endTime",
                                                          "phase", "category", "data"};

typedef struct gecko_table {
  gecko_span columns[GK_FIELDS]; /* processed format */
  gecko_span schema, rows;       /* Gecko format */
} gecko_table;

static int gecko_table_member(import_file *f, void *user, const char *key, size_t len,
                              const gecko_span *v, base_error *err) {
  (void)f, (void)err;
  gecko_table *t = user;
  for (int i = 0; i < GK_FIELDS; i++)
    if (gecko_key_is(key, len, gecko_field_names[i])) t->columns[i] = *v;
  if (gecko_key_is(key, len, "schema")) t->schema = *v;
  if (gecko_key_is(key, len, "data") && v->type == JSON_TOK_ARRAY_BEGIN) t->rows = *v;
  return WEFT_OK;
}

typedef struct gecko_schema {
  int64_t index[GK_FIELDS]; /* -1: absent */
} gecko_schema;

static int gecko_schema_member(import_file *f, void *user, const char *key, size_t len,
                               const gecko_span *v, base_error *err) {
  (void)err;
  gecko_schema *s = user;
  double d;
  for (int i = 0; i < GK_FIELDS; i++)
    if (gecko_key_is(key, len, gecko_field_names[i]) && gecko_number(f, v, &d) && d >= 0 &&
        d < 64)
      s->index[i] = (int64_t)d;
  return WEFT_OK;
}

/* One marker from its field values (a NULL span: the field is absent). */
typedef struct gecko_fields {
  const gecko_span *v[GK_FIELDS];
} gecko_fields;

static int gecko_add_marker(import_file *f, uint32_t thread, const gecko_spans *strings,
                            const gecko_fields *m) {
  gecko_state *st = f->state;
  gecko_marker mk = {0};
  mk.thread = thread;
  double phase = 0;
  if (m->v[GK_PHASE] && !gecko_number(f, m->v[GK_PHASE], &phase)) phase = -1;
  int64_t start = 0, end = 0;
  int has_start = gecko_time(f, m->v[GK_START], &start);
  int has_end = gecko_time(f, m->v[GK_END], &end);
  mk.phase = phase == 0 || phase == 1 || phase == 2 || phase == 3 ? (uint32_t)phase : 4;
  int ok = mk.phase == 3 ? has_end : mk.phase < 3 && has_start && (mk.phase != 1 || has_end);
  if (!ok) {
    st->dropped++;
    return WEFT_OK;
  }
  mk.ts = mk.phase == 3 ? end : start;
  mk.dur = mk.phase == 1 && end > start ? end - start : 0;
  size_t i;
  int rc = WEFT_OK;
  if (gecko_index(f, m->v[GK_NAME], strings->len, &i))
    rc = gecko_intern(f, &strings->data[i], &mk.name);
  if (!rc && gecko_index(f, m->v[GK_CATEGORY], st->categories.len, &i))
    rc = gecko_intern(f, &st->categories.data[i], &mk.category);
  if (m->v[GK_DATA] && m->v[GK_DATA]->type == JSON_TOK_OBJECT_BEGIN) mk.data = *m->v[GK_DATA];
  else mk.data.type = JSON_TOK_EOF;
  if (!rc && VEC_PUSH(st->markers, mk)) rc = WEFT_ENOMEM;
  return rc;
}

/* Markers of the processed format: one array per field. */
static int gecko_column_markers(import_file *f, uint32_t thread, const gecko_spans *strings,
                                const gecko_table *t, base_error *err) {
  gecko_spans cols[GK_FIELDS] = {{0}};
  int rc = WEFT_OK;
  for (int k = 0; !rc && k < GK_FIELDS; k++) rc = gecko_elements(f, &t->columns[k], &cols[k], err);
  size_t n = cols[GK_NAME].len;
  for (size_t i = 0; !rc && i < n; i++) {
    gecko_fields m;
    for (int k = 0; k < GK_FIELDS; k++) m.v[k] = i < cols[k].len ? &cols[k].data[i] : NULL;
    rc = gecko_add_marker(f, thread, strings, &m);
    if (rc == WEFT_ENOMEM) rc = base_error_nomem(err);
  }
  for (int k = 0; k < GK_FIELDS; k++) VEC_FREE(cols[k]);
  return rc;
}

/* Markers of the Gecko format: rows whose cells the schema names. */
static int gecko_row_markers(import_file *f, uint32_t thread, const gecko_spans *strings,
                             const gecko_table *t, base_error *err) {
  gecko_schema schema;
  for (int k = 0; k < GK_FIELDS; k++) schema.index[k] = -1;
  gecko_spans rows = {0}, cells = {0};
  int rc = gecko_members(f, &t->schema, gecko_schema_member, &schema, err);
  if (!rc) rc = gecko_elements(f, &t->rows, &rows, err);
  for (size_t i = 0; !rc && i < rows.len; i++) {
    rc = gecko_elements(f, &rows.data[i], &cells, err);
    gecko_fields m;
    for (int k = 0; k < GK_FIELDS; k++)
      m.v[k] = schema.index[k] >= 0 && (size_t)schema.index[k] < cells.len
                   ? &cells.data[schema.index[k]] : NULL;
    if (!rc) rc = gecko_add_marker(f, thread, strings, &m);
    if (rc == WEFT_ENOMEM) rc = base_error_nomem(err);
  }
  VEC_FREE(rows);
  VEC_FREE(cells);
  return rc;
}

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

static int gecko_read_thread(import_file *f, const gecko_span *thread, base_error *err) {
  gecko_state *st = f->state;
  gecko_thread_spans t = {0};
  gecko_table table = {0};
  gecko_spans strings = {0};
  int rc = gecko_members(f, thread, gecko_thread_member, &t, err);
  gecko_thread th = {0};
  if (rc || !gecko_id(f, &t.tid, &th.tid)) return rc;
  if (!gecko_id(f, &t.pid, &th.pid)) th.pid = th.tid;
  if (gecko_intern(f, &t.name, &th.name)) return base_error_nomem(err);
  rc = gecko_first_sample(f, &t.samples, &th, err);
  if (rc) return rc;
  uint32_t index = (uint32_t)st->threads.len;
  if (VEC_PUSH(st->threads, th)) return base_error_nomem(err);
  rc = gecko_elements(f, &t.strings, &strings, err);
  if (!rc) rc = gecko_read_samples(f, index, thread, &strings, err);
  if (!rc) rc = gecko_members(f, &t.markers, gecko_table_member, &table, err);
  if (!rc && table.schema.type == JSON_TOK_OBJECT_BEGIN)
    rc = gecko_row_markers(f, index, &strings, &table, err);
  else if (!rc)
    rc = gecko_column_markers(f, index, &strings, &table, err);
  VEC_FREE(strings);
  return rc;
}

/* ---- the profile ---- */

typedef struct gecko_profile_spans {
  gecko_span meta, threads, processes;
} gecko_profile_spans;

static int gecko_profile_member(import_file *f, void *user, const char *key, size_t len,
                                const gecko_span *v, base_error *err) {
  (void)f, (void)err;
  gecko_profile_spans *p = user;
  if (gecko_key_is(key, len, "meta")) p->meta = *v;
  else if (gecko_key_is(key, len, "threads")) p->threads = *v;
  else if (gecko_key_is(key, len, "processes")) p->processes = *v;
  return WEFT_OK;
}

static int gecko_meta_member(import_file *f, void *user, const char *key, size_t len,
                             const gecko_span *v, base_error *err) {
  gecko_state *st = user;
  if (!gecko_key_is(key, len, "categories")) return WEFT_OK;
  gecko_spans cats = {0};
  int rc = gecko_elements(f, v, &cats, err);
  st->categories.len = 0;
  for (size_t i = 0; !rc && i < cats.len; i++) {
    gecko_span name = {0, 0, JSON_TOK_NULL};
    /* a category is {"name": ..., "color": ...}: its name */
    gecko_thread_spans c = {0};
    if (!rc) rc = gecko_members(f, &cats.data[i], gecko_thread_member, &c, err);
    if (!rc && c.name.type == JSON_TOK_STRING) name = c.name;
    if (!rc && VEC_PUSH(st->categories, name)) rc = base_error_nomem(err);
  }
  VEC_FREE(cats);
  return rc;
}

#define GECKO_MAX_NESTING 8 /* profiles of child processes inside profiles */

static int gecko_read_profile(import_file *f, const gecko_span *profile, int depth,
                              base_error *err) {
  gecko_state *st = f->state;
  gecko_profile_spans p = {0};
  gecko_spans list = {0};
  int rc = gecko_members(f, profile, gecko_profile_member, &p, err);
  if (!rc && p.meta.type == JSON_TOK_OBJECT_BEGIN)
    rc = gecko_members(f, &p.meta, gecko_meta_member, st, err);
  if (!rc) rc = gecko_elements(f, &p.threads, &list, err);
  for (size_t i = 0; !rc && i < list.len; i++) rc = gecko_read_thread(f, &list.data[i], err);
  if (!rc && depth < GECKO_MAX_NESTING) rc = gecko_elements(f, &p.processes, &list, err);
  for (size_t i = 0; !rc && depth < GECKO_MAX_NESTING && i < list.len; i++) {
    gecko_spans saved = st->categories; /* a child's meta is its own */
    st->categories = (gecko_spans){0};
    rc = gecko_read_profile(f, &list.data[i], depth + 1, err);
    VEC_FREE(st->categories);
    st->categories = saved;
  }
  VEC_FREE(list);
  return rc;
}

/* ---- tokenize ---- */

/* Each thread is made at its first sample's or marker's time, before the
 * marker. */
static int gecko_push_all(import_file *f) {
  gecko_state *st = f->state;
  size_t n = st->markers.len;
  int64_t *first = base_malloc((st->threads.len + 1) * sizeof *first);
  char *seen = base_calloc(st->threads.len + 1, 1);
  int rc = first && seen ? WEFT_OK : WEFT_ENOMEM;
  for (size_t i = 0; !rc && i < st->threads.len; i++) {
    seen[i] = (char)st->threads.data[i].has_first;
    first[i] = st->threads.data[i].first_sample;
  }
  for (size_t i = 0; !rc && i < n; i++) {
    const gecko_marker *m = &st->markers.data[i];
    if (!seen[m->thread] || m->ts < first[m->thread]) first[m->thread] = m->ts;
    seen[m->thread] = 1;
  }
  for (size_t i = 0; !rc && i < st->threads.len; i++) {
    gecko_marker t = {.ts = first[i], .thread = (uint32_t)i, .phase = GECKO_THREAD_EVENT};
    t.data.type = JSON_TOK_EOF;
    if (!seen[i]) continue;
    if (VEC_PUSH(st->markers, t)) rc = WEFT_ENOMEM;
    if (!rc) rc = import_push(f, t.ts, st->clock, st->markers.len - 1);
  }
  for (size_t i = 0; !rc && i < n; i++) rc = import_push(f, st->markers.data[i].ts, st->clock, i);
  for (size_t i = 0; !rc && i < st->samples.len; i++)
    rc = import_push(f, st->samples.data[i].ts, st->clock, GECKO_SAMPLE_BIT | i);
  base_free(first);
  base_free(seen);
  return rc;
}

static int gecko_tokenize(import_file *f, base_error *err) {
  gecko_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  st->limits.max_depth = f->ctx->options.max_json_depth;
  st->limits.max_string_len = f->ctx->options.max_string_bytes;
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = ctx_metadata_file_type(f->ctx, f->trace_id, "gecko");
  /* the profile's timeline is its own (Perfetto's trace-file clock) */
  if (!rc) rc = ctx_metadata_trace_time(f->ctx, CLOCK_ID_TRACE_FILE);
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  if (rc) return base_error_alloc(err, rc);
  json_tokenizer tk;
  json_token t;
  gecko_span whole;
  rc = json_tokenizer_init(&tk, (const char *)f->data, f->len, &st->limits, err);
  if (!rc) rc = json_next(&tk, &t, err);
  if (!rc) rc = gecko_value_span(&tk, 0, &t, &whole, err);
  json_tokenizer_free(&tk);
  if (!rc) rc = gecko_read_profile(f, &whole, 0, err);
  if (rc) return rc;
  if (st->dropped) rc = import_stat(f, stat_gecko_marker_dropped, st->dropped);
  if (!rc) rc = gecko_push_all(f);
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

/* ---- parse ---- */

static int gecko_make_thread(import_file *f, gecko_thread *t) {
  uint32_t main_thread;
  int rc = model_thread_in_process(f->ctx, f->machine, t->pid, t->pid, &main_thread);
  if (!rc) rc = model_thread_in_process(f->ctx, f->machine, t->tid, t->pid, &t->utid);
  const char *name = t->name ? base_string_pool_get(&f->ctx->strings, t->name) : NULL;
  if (!rc && name) rc = model_thread_set_name(f->ctx, t->utid, name, strlen(name));
  t->made = !rc;
  return rc;
}

/* The marker's track: one per (thread, category, name). */
static int gecko_track(import_file *f, const gecko_marker *m, uint32_t utid, uint32_t *track) {
  base_string_pool *pool = &f->ctx->strings;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.type = "firefox_marker";
  spec.machine = f->machine;
  spec.utid = utid;
  spec.name = m->name ? base_string_pool_get(pool, m->name) : NULL;
  spec.dim_key = "firefox_marker_category";
  spec.dim_str = m->category ? base_string_pool_get(pool, m->category) : NULL;
  spec.dim2_key = "firefox_marker_name";
  spec.dim2_str = spec.name;
  spec.extra_key = m->category;
  return model_track(f->ctx, &spec, track);
}

/* The marker's data as "data.*" args, pending. */
static int gecko_data_args(import_file *f, const gecko_marker *m, base_error *err) {
  if (m->data.type != JSON_TOK_OBJECT_BEGIN) return WEFT_OK;
  json_tokenizer tk;
  json_token t;
  base_buf key;
  base_buf_init(&key, 256);
  int rc = gecko_tokenizer(f, &m->data, &tk, err);
  if (!rc) rc = base_buf_append(&key, "data", 4);
  if (!rc) rc = json_next(&tk, &t, err);
  if (!rc) rc = model_args_json_value(f->ctx, &tk, &t, &key, err);
  json_tokenizer_free(&tk);
  base_buf_free(&key);
  return rc;
}

/* An end's data join those of the slice it ends (a key it repeats takes
 * the end's value). */
static int gecko_end_args(import_file *f, const gecko_marker *m, uint32_t slice,
                          base_error *err) {
  trace_context *ctx = f->ctx;
  int rc = model_args_reopen(ctx, model_slice_arg_set(ctx, slice));
  size_t first = model_args_pending(ctx);
  if (!rc) rc = gecko_data_args(f, m, err);
  if (!rc) model_args_update_from(ctx, first);
  int64_t arg_set = -1;
  if (!rc) rc = model_args_commit(ctx, &arg_set);
  else model_args_discard(ctx);
  if (!rc && arg_set >= 0) model_slice_set_args(ctx, slice, arg_set);
  return rc;
}

static int gecko_apply(import_file *f, const gecko_marker *m, int64_t ts, base_error *err) {
  gecko_state *st = f->state;
  gecko_thread *t = &st->threads.data[m->thread];
  if (m->phase == GECKO_THREAD_EVENT) return gecko_make_thread(f, t);
  if (!t->made || m->phase > 3) return WEFT_OK;
  uint32_t track;
  int rc = gecko_track(f, m, t->utid, &track);
  if (rc) return rc;
  if (m->phase == 3) {
    int64_t slice;
    rc = model_slice_end(f->ctx, track, ts, &slice);
    if (!rc && slice >= 0 && m->data.type == JSON_TOK_OBJECT_BEGIN)
      rc = gecko_end_args(f, m, (uint32_t)slice, err);
    return rc;
  }
  int64_t args = -1;
  rc = gecko_data_args(f, m, err);
  if (!rc && model_args_pending(f->ctx)) rc = model_args_commit(f->ctx, &args);
  if (rc) {
    model_args_discard(f->ctx);
    return rc;
  }
  uint32_t slice;
  if (m->phase == 2) return model_slice_begin(f->ctx, track, ts, m->category, m->name, args, &slice);
  return model_slice_complete(f->ctx, track, ts, m->dur, m->category, m->name, args, &slice);
}

static int gecko_parse(import_file *f, const sort_event *event, void *prepared,
                       base_error *err) {
  (void)prepared;
  gecko_state *st = f->state;
  if (st && (event->payload & GECKO_SAMPLE_BIT)) {
    uint64_t i = event->payload & ~GECKO_SAMPLE_BIT;
    if (i >= st->samples.len) return WEFT_OK;
    const gecko_sample *s = &st->samples.data[i];
    const gecko_thread *t = &st->threads.data[s->thread];
    int rc = t->made ? stack_profile_cpu_sample(f->ctx, event->ts, s->callsite, t->utid, 0)
                     : WEFT_OK;
    return rc ? base_error_alloc(err, rc) : WEFT_OK;
  }
  if (!st || event->payload >= st->markers.len) return WEFT_OK;
  int rc = gecko_apply(f, &st->markers.data[event->payload], event->ts, err);
  if (rc && !err->code) base_error_alloc(err, rc);
  return rc;
}

static void gecko_destroy(import_file *f) {
  gecko_state *st = f->state;
  if (!st) return;
  VEC_FREE(st->categories);
  VEC_FREE(st->threads);
  VEC_FREE(st->markers);
  VEC_FREE(st->samples);
  base_free(st);
  f->state = NULL;
}

const importer_ops import_gecko_ops = {
    .trace_type = "gecko",
    .tokenize = gecko_tokenize,
    .parse = gecko_parse,
    .destroy = gecko_destroy,
};
