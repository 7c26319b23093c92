/* gecko: the Firefox Profiler's JSON (the Gecko profile and the processed
 * profile formats), as Perfetto reads it.
 *
 * A profile is clockless: its times are milliseconds on the file's own
 * timeline (Perfetto's trace-file clock), placed on a merge by the manifest
 * like Chrome JSON. tokenize walks the document once, without a DOM
 * (gecko_profile.c): marker columns are read as they come, and what waits
 * for later members is kept as spans of the file and read at the end of
 * its thread or profile.
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
#include "model/slice_stack.h"
#include "model/stack_profile.h"

/* ---- tokenize ---- */


/* Each thread is made at its first sample's or marker's time, before the
 * marker. */
static int gecko_push_all(import_file *f) {
  gecko_state *st = f->state;
  size_t n = st->markers.len;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < st->threads.len; i++) {
    const gecko_thread *t = &st->threads.data[i];
    if (!t->has_first && !t->has_marker) continue;
    gecko_marker m = {.ts = t->has_first ? t->first_sample : t->first_marker,
                      .thread = (uint32_t)i, .phase = GECKO_THREAD_EVENT};
    if (t->has_marker && t->first_marker < m.ts) m.ts = t->first_marker;
    m.data = GECKO_NO_INDEX;
    if (VEC_PUSH(st->markers, m)) rc = WEFT_ENOMEM;
  }
  return rc ? rc : gecko_push_ordered(f, n);
}

/* The arrays that grow with the profile, sized at once for the most
 * records it can hold (VEC_RESERVE_INPUT): a marker takes at least 12
 * bytes, two in each of its six columns; a sample 4. */
static void gecko_reserve_arrays(gecko_state *st, size_t len) {
  VEC_RESERVE_INPUT(st->markers, len, 12);
  VEC_RESERVE_INPUT(st->samples, len, 4);
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
  gecko_reserve_arrays(st, f->len);
  rc = gecko_read_document(f, err);
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
static int gecko_track(import_file *f, const gecko_slot *s, uint32_t utid, uint32_t *track) {
  base_string_pool *pool = &f->ctx->strings;
  model_track_spec spec;
  model_track_spec_init(&spec);
  spec.type = "firefox_marker";
  spec.machine = f->machine;
  spec.utid = utid;
  spec.name = s->name ? base_string_pool_get(pool, s->name) : NULL;
  spec.dim_key = "firefox_marker_category";
  spec.dim_str = s->category_name ? base_string_pool_get(pool, s->category_name) : NULL;
  spec.dim2_key = "firefox_marker_name";
  spec.dim2_str = spec.name;
  spec.extra_key = s->category_name;
  return model_track(f->ctx, &spec, track);
}

/* The marker's data as "data.*" args, pending. */
static int gecko_data_args(import_file *f, const gecko_marker *m, base_error *err) {
  gecko_state *st = f->state;
  if (m->data == GECKO_NO_INDEX) return WEFT_OK;
  json_tokenizer tk;
  gecko_reader r;
  json_token t;
  int rc = gecko_open(f, &st->data.data[m->data], &tk, &r, &t, err);
  if (rc) return rc;
  base_buf key;
  base_buf_init(&key, 256);
  rc = base_buf_append(&key, "data", 4);
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
  gecko_slot *s = &st->slots.data[m->slot];
  if (s->track == GECKO_NO_INDEX) {
    s->category_name = s->category < t->category_count
                           ? st->category_ids.data[t->categories + s->category] : STRING_NULL;
    int rc = gecko_track(f, s, t->utid, &s->track);
    if (rc) {
      s->track = GECKO_NO_INDEX;
      return rc;
    }
  }
  uint32_t track = s->track;
  string_id category = s->category_name;
  int rc;
  if (m->phase == 3) {
    int64_t slice;
    rc = model_slice_end(f->ctx, track, ts, &slice);
    if (!rc && slice >= 0 && m->data != GECKO_NO_INDEX)
      rc = gecko_end_args(f, m, (uint32_t)slice, err);
    return rc;
  }
  /* An instant or interval that would end after the slice open around it
   * is dropped, as Perfetto's slice tracker drops such complete slices. */
  uint32_t conflict;
  if (m->phase != 2 && !slice_stack_conflict(f->ctx, track, ts, m->dur, &conflict)) {
    rc = slice_stack_log_drop(f->ctx, f->trace_id, ts, conflict);
    return rc ? rc : import_stat(f, stat_slice_drop_overlapping_complete_event, 1);
  }
  int64_t args = -1;
  rc = gecko_data_args(f, m, err);
  if (!rc && model_args_pending(f->ctx)) rc = model_args_commit(f->ctx, &args);
  if (rc) {
    model_args_discard(f->ctx);
    return rc;
  }
  uint32_t slice;
  if (m->phase == 2) return model_slice_begin(f->ctx, track, ts, category, s->name, args, &slice);
  return model_slice_complete(f->ctx, track, ts, m->dur, category, s->name, args, &slice);
}

static int gecko_parse(import_file *f, const sort_event *event, void *prepared,
                       base_error *err) {
  (void)prepared;
  gecko_state *st = f->state;
  if (!st) return WEFT_OK;
  if (event->payload & GECKO_SAMPLE_BIT) {
    uint64_t i = event->payload & ~GECKO_SAMPLE_BIT;
    if (i >= st->samples.len) return WEFT_OK;
    const gecko_sample *s = &st->samples.data[i];
    const gecko_thread *t = &st->threads.data[s->thread];
    int rc = t->made ? stack_profile_cpu_sample(f->ctx, STACK_PROFILE_CPU_GECKO, event->ts,
                                                s->callsite, t->utid, 0)
                     : WEFT_OK;
    return rc ? base_error_alloc(err, rc) : WEFT_OK;
  }
  gecko_marker compact;
  const gecko_marker *m = &compact;
  if (event->payload & GECKO_COMPACT) {
    compact = gecko_compact_marker(event->payload, event->ts);
    if (compact.slot >= st->slots.len) return WEFT_OK;
    compact.thread = st->slots.data[compact.slot].thread;
  } else {
    uint64_t i = event->payload / sizeof(gecko_marker);
    if (event->payload % sizeof(gecko_marker) || i >= st->markers.len) return WEFT_OK;
    m = &st->markers.data[i];
  }
  int rc = gecko_apply(f, m, event->ts, err);
  if (rc && !err->code) base_error_alloc(err, rc);
  return rc;
}

/* Where a queued marker lies: at its payload's offset in st->markers
 * (final once the file is tokenized); none for samples and compact markers. */
static void gecko_locate_rule(const import_file *f, sort_locate_rule *rule) {
  const gecko_state *st = f->state;
  *rule = (sort_locate_rule){0};
  if (!st || !st->markers.len) return;
  *rule = (sort_locate_rule){(const uint8_t *)st->markers.data,
                             st->markers.len * sizeof(gecko_marker),
                             ~(GECKO_SAMPLE_BIT | GECKO_COMPACT),
                             GECKO_SAMPLE_BIT | GECKO_COMPACT, {st, st->threads.data}};
}

static void gecko_destroy(import_file *f) {
  gecko_state *st = f->state;
  if (!st) return;
  VEC_FREE(st->threads);
  VEC_FREE(st->markers);
  VEC_FREE(st->marker_breaks);
  VEC_FREE(st->samples);
  VEC_FREE(st->data);
  VEC_FREE(st->category_ids);
  VEC_FREE(st->slots);
  base_map_free(&st->slot_map);
  gecko_threads_free(st);
  base_free(st);
  f->state = NULL;
}

const importer_ops import_gecko_ops = {
    .trace_type = "gecko",
    .tokenize = gecko_tokenize,
    .locate_rule = gecko_locate_rule,
    .parse = gecko_parse,
    .destroy = gecko_destroy,
};
