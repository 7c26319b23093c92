/* The web view's columnar read (view_columns.h). Each table's columns are
 * read a chunk of rows at a time, each column decoded in bulk. Two passes
 * size the index (each track's lanes and deepest depth, then the slices of
 * each (track, lane) bucket, interning the names met); a track's slices
 * are written to their place on its first summary, by one more pass over
 * the table for every track that summary asks for and lacks; the same pass
 * can hand them to a summary instead of writing them (view_columns_stream). */
#include "view_columns.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"
#include "view_lod.h"

#define VIEW_CHUNK 4096u
/* A fill of this many slices or more is split between two threads. */
#define VIEW_FILL_SPLIT ((size_t)1 << 18)

struct view_source {
  const trace_context *ctx;
  view_keys keys; /* its own copies */
  uint8_t *idle;  /* per utid: an idle thread (its sched slices are not shown) */
  size_t idle_count;
  uint32_t *name_of; /* string id -> interned name + 1; 0 unknown yet */
  size_t name_cap;
  size_t *cursor; /* per lane: where its next slice goes, while filling */
};

typedef struct view_reader {
  view_index *ix;
  view_source *src;
  const trace_context *ctx;
  const view_keys *keys;
  int part; /* filling: the tracks whose `filled` is this */
  int failed;
  view_stream_fn visit; /* streaming: called per slice instead of writing it */
  void *visit_arg;
  int32_t vid[VIEW_CHUNK];
  uint32_t lane[VIEW_CHUNK];
  /* A chunk of up to three I64 columns: the column's own values when it
   * is stored 8 bytes wide, else widened into buf_*. */
  const int64_t *a, *b, *c;
  int64_t buf_a[VIEW_CHUNK], buf_b[VIEW_CHUNK], buf_c[VIEW_CHUNK];
} view_reader;

/* n values of an I64 column from row `from` on, whatever its width: the
 * column's own memory when it is 8 bytes wide (no copy), else `buf`
 * holding them widened. */
static const int64_t *view_read_i64(const storage_table *t, size_t col, size_t from, size_t n,
                                    int64_t *buf) {
  const storage_column *c = &t->columns[col];
  if (!c->data) {
    memset(buf, 0, n * sizeof *buf);
    return buf;
  }
#define VIEW_WIDEN(type)                                 \
  do {                                                   \
    const type *d = (const type *)c->data + from;        \
    for (size_t i = 0; i < n; i++) buf[i] = (int64_t)d[i]; \
  } while (0)
  switch (c->width | c->is_unsigned << 4) {
    case 1: VIEW_WIDEN(int8_t); break;
    case 2: VIEW_WIDEN(int16_t); break;
    case 4: VIEW_WIDEN(int32_t); break;
    case 0x11: VIEW_WIDEN(uint8_t); break;
    case 0x12: VIEW_WIDEN(uint16_t); break;
    case 0x14: VIEW_WIDEN(uint32_t); break;
    default: return (const int64_t *)c->data + from;
  }
#undef VIEW_WIDEN
  return buf;
}

static int32_t view_key_vid(const int32_t *map, size_t cap, int64_t key) {
  return key >= 0 && (uint64_t)key < cap ? map[key] : -1;
}

static int view_is_idle(const view_reader *r, int64_t utid) {
  return utid >= 0 && (uint64_t)utid < r->src->idle_count && r->src->idle[utid];
}

/* The interned name of pool string `sid` (NULL: ""). */
static uint32_t view_name_of(view_reader *r, string_id sid) {
  view_source *src = r->src;
  if (sid < src->name_cap && src->name_of[sid]) return src->name_of[sid] - 1;
  const char *s = base_string_pool_get(&r->ctx->strings, sid);
  size_t len = s ? base_string_pool_len(&r->ctx->strings, sid) : 0;
  uint32_t id = view_names_intern(&r->ix->names, s ? s : "", len);
  if (id == UINT32_MAX) {
    r->failed = 1;
    return 0;
  }
  if (sid < src->name_cap) src->name_of[sid] = id + 1;
  return id;
}

/* The name of a slice shown: interned while sizing (reads only, so that
 * two threads may fill). */
static uint32_t view_name_known(const view_source *src, string_id sid) {
  return sid < src->name_cap && src->name_of[sid] ? src->name_of[sid] - 1 : 0;
}

/* ---- classifying rows: their track and lane (vid -1: not shown) ---- */

static void view_slice_rows(view_reader *r, size_t from, size_t n) {
  const storage_table *t = &r->ctx->tables[TABLE_SLICE];
  const view_index *ix = r->ix;
  r->a = view_read_i64(t, SLICE_track_id, from, n, r->buf_a);
  r->b = view_read_i64(t, SLICE_depth, from, n, r->buf_b);
  for (size_t i = 0; i < n; i++) {
    int32_t vid = view_key_vid(r->keys->vid_of_track, r->keys->track_cap, r->a[i]);
    if (vid >= 0 && ix->tracks[vid].kind == VIEW_TRACK_COUNTER) vid = -1;
    r->vid[i] = vid;
    r->lane[i] = (uint32_t)r->b[i]; /* the depth, until view_count_lanes */
  }
}

static void view_sched_rows(view_reader *r, size_t from, size_t n) {
  const storage_table *t = &r->ctx->tables[TABLE_SCHED];
  r->a = view_read_i64(t, SCHED_ucpu, from, n, r->buf_a);
  r->c = view_read_i64(t, SCHED_utid, from, n, r->buf_c);
  for (size_t i = 0; i < n; i++) {
    int32_t vid = view_key_vid(r->keys->vid_of_cpu, r->keys->cpu_cap, r->a[i]);
    r->vid[i] = view_is_idle(r, r->c[i]) ? -1 : vid;
    r->lane[i] = 0;
  }
}

/* Calls rows(r, from, n) for each chunk of table `id`, then each(r, n, u). */
typedef void (*view_rows_fn)(view_reader *r, size_t from, size_t n);
typedef void (*view_each_fn)(view_reader *r, size_t from, size_t n, void *u);

static void view_scan(view_reader *r, schema_table_id id, view_rows_fn rows,
                      view_each_fn each, void *u) {
  size_t total = r->ctx->tables[id].row_count;
  for (size_t from = 0; from < total && !r->failed; from += VIEW_CHUNK) {
    size_t n = total - from < VIEW_CHUNK ? total - from : VIEW_CHUNK;
    rows(r, from, n);
    each(r, from, n, u);
  }
}

/* ---- slices ---- */

typedef struct view_buckets {
  size_t tracks;
  uint32_t *lanes;     /* per track: its lanes (deepest lane + 1) */
  uint32_t *max_depth; /* per track */
  size_t *base;        /* per track: its first bucket */
  size_t *at;          /* per bucket: its first slice */
} view_buckets;

static void view_count_lanes(view_reader *r, size_t from, size_t n, void *u) {
  (void)from;
  view_buckets *k = u;
  for (size_t i = 0; i < n; i++) {
    if (r->vid[i] < 0) continue;
    uint32_t depth = r->lane[i], lanes = view_lane_key(depth) + 1;
    if (lanes > k->lanes[r->vid[i]]) k->lanes[r->vid[i]] = lanes;
    if (depth > k->max_depth[r->vid[i]]) k->max_depth[r->vid[i]] = depth;
  }
}

static void view_count_buckets(view_reader *r, size_t from, size_t n, void *u) {
  (void)from;
  view_buckets *k = u;
  for (size_t i = 0; i < n; i++)
    if (r->vid[i] >= 0) k->at[k->base[r->vid[i]] + view_lane_key(r->lane[i]) + 1]++;
}

/* Interns the names of the slices shown (a filled track's names are
 * known, so a summary never grows the names). */
static void view_count_named(view_reader *r, size_t from, size_t n, void *u) {
  const string_id *names = r->ctx->tables[TABLE_SLICE].columns[SLICE_name].data;
  view_count_buckets(r, from, n, u);
  for (size_t i = 0; i < n && !r->failed; i++)
    if (r->vid[i] >= 0) (void)view_name_of(r, names ? names[from + i] : STRING_NULL);
}

/* Whether a row of this chunk goes to a track being filled (its vids of
 * other tracks become -1). */
static int view_wanted(view_reader *r, size_t n) {
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    if (r->vid[i] >= 0 && r->ix->tracks[r->vid[i]].filled != r->part) r->vid[i] = -1;
    any |= r->vid[i] >= 0;
  }
  return any;
}

/* Writes s at the next slot of lane `lane` of track tr, staging its
 * levels of detail; or, streaming, hands it to the visitor. */
static void view_put_slice(view_reader *r, view_track *tr, size_t lane, const view_slice *s) {
  if (r->visit) {
    if (r->visit(r->visit_arg, (uint32_t)(tr - r->ix->tracks), (uint32_t)(lane - tr->lane_first), s))
      r->failed = 1;
    return;
  }
  size_t slot = r->src->cursor[lane]++;
  r->ix->slices[slot] = *s;
  view_lod_stage(r->ix, tr, &r->ix->lanes[lane], slot);
}

static void view_place_slices(view_reader *r, size_t from, size_t n, void *u) {
  (void)u;
  if (!view_wanted(r, n)) return;
  const storage_table *t = &r->ctx->tables[TABLE_SLICE];
  const string_id *names = t->columns[SLICE_name].data;
  int64_t end = r->ix->end;
  r->a = view_read_i64(t, SLICE_ts, from, n, r->buf_a);
  r->c = view_read_i64(t, SLICE_dur, from, n, r->buf_c);
  for (size_t i = 0; i < n; i++) {
    if (r->vid[i] < 0) continue;
    view_track *tr = &r->ix->tracks[r->vid[i]];
    view_slice s = {r->a[i], r->c[i], (uint32_t)(from + i),
                    view_name_known(r->src, names ? names[from + i] : STRING_NULL), 0,
                    r->lane[i]};
    if (s.dur < 0 && (end <= s.ts || __builtin_sub_overflow(end, s.ts, &s.dur)))
      s.dur = 0; /* unfinished: to the end of the trace */
    view_put_slice(r, tr, tr->lane_first + view_lane_key(s.depth), &s);
  }
}

static void view_place_sched(view_reader *r, size_t from, size_t n, void *u) {
  (void)u;
  if (!view_wanted(r, n)) return;
  const storage_table *t = &r->ctx->tables[TABLE_SCHED];
  const view_keys *keys = r->keys;
  r->a = view_read_i64(t, SCHED_ts, from, n, r->buf_a);
  r->b = view_read_i64(t, SCHED_dur, from, n, r->buf_b);
  for (size_t i = 0; i < n; i++) {
    if (r->vid[i] < 0) continue;
    int64_t utid = r->c[i];
    uint32_t name = utid >= 0 && (uint64_t)utid < keys->thread_cap ? keys->thread_name[utid] : 0;
    view_slice s = {r->a[i], r->b[i] < 0 ? 0 : r->b[i], (uint32_t)(from + i), name,
                    (uint32_t)utid, 0};
    view_track *tr = &r->ix->tracks[r->vid[i]];
    view_put_slice(r, tr, tr->lane_first, &s);
  }
}

static void view_buckets_free(view_buckets *k) {
  free(k->lanes);
  free(k->max_depth);
  free(k->base);
  free(k->at);
}

/* Sizes the buckets: lanes per track, then slices per bucket. */
static int view_size_buckets(view_reader *r, view_buckets *k) {
  k->tracks = r->ix->track_count;
  k->lanes = calloc(k->tracks + 1, sizeof *k->lanes);
  k->max_depth = calloc(k->tracks + 1, sizeof *k->max_depth);
  k->base = calloc(k->tracks + 1, sizeof *k->base);
  if (!k->lanes || !k->max_depth || !k->base) return -1;
  view_scan(r, TABLE_SLICE, view_slice_rows, view_count_lanes, k);
  view_scan(r, TABLE_SCHED, view_sched_rows, view_count_lanes, k);
  for (size_t t = 0; t < k->tracks; t++) k->base[t + 1] = k->base[t] + k->lanes[t];
  k->at = calloc(k->base[k->tracks] + 1, sizeof *k->at);
  if (!k->at) return -1;
  view_scan(r, TABLE_SLICE, view_slice_rows, view_count_named, k);
  view_scan(r, TABLE_SCHED, view_sched_rows, view_count_buckets, k);
  for (size_t b = 0; b < k->base[k->tracks]; b++) k->at[b + 1] += k->at[b];
  return r->failed ? -1 : 0;
}

/* Sizes the slices and their lanes; the slices themselves wait for
 * view_columns_fill (their array is reserved, not touched). */
static int view_size_slices(view_reader *r) {
  view_index *ix = r->ix;
  view_buckets k = {0};
  int rc = view_size_buckets(r, &k);
  size_t n = rc ? 0 : k.at[k.base[k.tracks]];
  if (rc == 0 && !(ix->slices = view_big_alloc(n * sizeof *ix->slices))) rc = -1;
  if (rc == 0) rc = view_index_set_lanes(ix, k.base, k.at, k.max_depth);
  if (rc == 0 && !(r->src->cursor = malloc((ix->lane_count + 1) * sizeof *r->src->cursor)))
    rc = -1;
  if (rc == 0) {
    ix->slice_count = n;
    for (size_t t = 0; t < ix->track_count; t++)
      ix->tracks[t].filled = ix->tracks[t].kind == VIEW_TRACK_COUNTER || !ix->tracks[t].count
                                 ? VIEW_FILLED : VIEW_EMPTY;
  }
  view_buckets_free(&k);
  return rc;
}

/* What a fill has to do: per part (a thread's share), the tables
 * holding its tracks (1: slice, 2: sched). */
typedef struct view_fill_job {
  view_index *ix;
  int part; /* its tracks' `filled`: VIEW_FILLING + k */
  int tables;
  int failed;
} view_fill_job;

/* Marks the unfilled tracks among vids[n] (every track when vids is NULL)
 * VIEW_FILLING and starts their lanes' cursors. With many slices to
 * write, the tracks past the first half of them are VIEW_FILLING + 1, the
 * second part. */
static void view_fill_begin(view_index *ix, const uint32_t *vids, size_t n, view_fill_job *job) {
  size_t count = vids ? n : ix->track_count, total = 0, half = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < count; k++) {
      size_t vid = vids ? vids[k] : k;
      if (vid >= ix->track_count) continue;
      view_track *t = &ix->tracks[vid];
      if (pass == 0 && t->filled == VIEW_EMPTY) total += t->count;
      if (pass == 0 || t->filled != VIEW_EMPTY) continue;
      int part = total >= ix->fill_split && half >= total / 2;
      half += t->count;
      t->filled = VIEW_FILLING + part;
      job[part].tables |= t->kind == VIEW_TRACK_CPU ? 2 : 1;
      view_lod_stage_begin(ix, t);
      for (uint32_t l = 0; l < t->lane_count; l++)
        ix->source->cursor[t->lane_first + l] = ix->lanes[t->lane_first + l].first;
    }
}

/* A reader of the tracks whose `filled` is `part` (its chunks are too big
 * for the stack), or NULL without memory. */
static view_reader *view_reader_new(view_index *ix, int part) {
  view_reader *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->ix = ix;
  r->src = ix->source;
  r->ctx = ix->source->ctx;
  r->keys = &ix->source->keys;
  r->part = part;
  return r;
}

/* Writes the slices of one part's tracks and readies them. */
static void *view_fill_part(void *arg) {
  view_fill_job *job = arg;
  view_index *ix = job->ix;
  view_reader *r = view_reader_new(ix, job->part);
  if (!r) {
    job->failed = 1;
    return NULL;
  }
  if (job->tables & 1) view_scan(r, TABLE_SLICE, view_slice_rows, view_place_slices, NULL);
  if (job->tables & 2) view_scan(r, TABLE_SCHED, view_sched_rows, view_place_sched, NULL);
  free(r);
  for (size_t t = 0; t < ix->track_count; t++)
    if (ix->tracks[t].filled == job->part) view_lod_ready(ix, &ix->tracks[t]);
  return NULL;
}

int view_columns_fill(view_index *ix, const uint32_t *vids, size_t n) {
  if (!ix->source) return 0;
  view_fill_job job[2] = {{ix, VIEW_FILLING, 0, 0}, {ix, VIEW_FILLING + 1, 0, 0}};
  view_fill_begin(ix, vids, n, job);
  pthread_t helper;
  int helped = job[1].tables && pthread_create(&helper, NULL, view_fill_part, &job[1]) == 0;
  if (job[0].tables) view_fill_part(&job[0]);
  if (helped) pthread_join(helper, NULL);
  else if (job[1].tables) view_fill_part(&job[1]);
  int failed = job[0].failed || job[1].failed;
  for (size_t t = 0; t < ix->track_count; t++) {
    view_track *tr = &ix->tracks[t];
    if (tr->filled != VIEW_FILLING && tr->filled != VIEW_FILLING + 1) continue;
    tr->filled = job[tr->filled - VIEW_FILLING].failed ? VIEW_EMPTY : VIEW_FILLED;
    if (tr->filled == VIEW_EMPTY) tr->ready = 0;
  }
  return failed ? -1 : 0;
}

/* One part of a stream: the tracks marked VIEW_STREAMING + part. */
typedef struct view_stream_job {
  view_index *ix;
  int part;
  view_stream_fn visit;
  void *arg;
  int tables; /* 1: slice, 2: sched */
  int failed;
} view_stream_job;

static void *view_stream_part(void *arg) {
  view_stream_job *job = arg;
  view_reader *r = view_reader_new(job->ix, VIEW_STREAMING + job->part);
  if (!r) {
    job->failed = 1;
    return NULL;
  }
  r->visit = job->visit;
  r->visit_arg = job->arg;
  if (job->tables & 1) view_scan(r, TABLE_SLICE, view_slice_rows, view_place_slices, NULL);
  if (job->tables & 2) view_scan(r, TABLE_SCHED, view_sched_rows, view_place_sched, NULL);
  job->failed = r->failed;
  free(r);
  return NULL;
}

int view_columns_stream(view_index *ix, view_stream_fn visit, void *const arg[2]) {
  if (!ix->source) return -1;
  view_stream_job job[2] = {{ix, 0, visit, arg[0], 0, 0}, {ix, 1, visit, arg[1], 0, 0}};
  for (size_t t = 0; t < ix->track_count; t++) {
    int filled = ix->tracks[t].filled;
    if (filled == VIEW_STREAMING || filled == VIEW_STREAMING + 1)
      job[filled - VIEW_STREAMING].tables |= ix->tracks[t].kind == VIEW_TRACK_CPU ? 2 : 1;
  }
  pthread_t helper;
  int helped = job[1].tables && pthread_create(&helper, NULL, view_stream_part, &job[1]) == 0;
  if (job[0].tables) view_stream_part(&job[0]);
  if (helped) pthread_join(helper, NULL);
  else if (job[1].tables) view_stream_part(&job[1]);
  return job[0].failed || job[1].failed ? -1 : 0;
}

/* ---- counter samples ---- */

static void view_counter_rows(view_reader *r, size_t from, size_t n) {
  const storage_table *t = &r->ctx->tables[TABLE_COUNTER];
  const view_index *ix = r->ix;
  r->a = view_read_i64(t, COUNTER_track_id, from, n, r->buf_a);
  for (size_t i = 0; i < n; i++) {
    int32_t vid = view_key_vid(r->keys->vid_of_track, r->keys->track_cap, r->a[i]);
    r->vid[i] = vid >= 0 && ix->tracks[vid].kind == VIEW_TRACK_COUNTER ? vid : -1;
  }
}

static void view_count_samples(view_reader *r, size_t from, size_t n, void *u) {
  (void)from;
  size_t *at = u;
  for (size_t i = 0; i < n; i++)
    if (r->vid[i] >= 0) at[r->vid[i] + 1]++;
}

static void view_place_samples(view_reader *r, size_t from, size_t n, void *u) {
  size_t *at = u;
  const storage_table *t = &r->ctx->tables[TABLE_COUNTER];
  const double *values = t->columns[COUNTER_value].data;
  r->b = view_read_i64(t, COUNTER_ts, from, n, r->buf_b);
  for (size_t i = 0; i < n; i++)
    if (r->vid[i] >= 0)
      r->ix->samples[at[r->vid[i]]++] =
          (view_sample){r->b[i], values ? values[from + i] : 0.0};
}

static int view_read_samples(view_reader *r) {
  view_index *ix = r->ix;
  size_t *at = calloc(ix->track_count + 1, sizeof *at);
  if (!at) return -1;
  view_scan(r, TABLE_COUNTER, view_counter_rows, view_count_samples, at);
  for (size_t t = 0; t < ix->track_count; t++) {
    if (ix->tracks[t].kind == VIEW_TRACK_COUNTER) {
      ix->tracks[t].first = at[t];
      ix->tracks[t].count = at[t + 1];
    }
    at[t + 1] += at[t];
  }
  size_t n = at[ix->track_count];
  int rc = 0;
  if (n && !(ix->samples = view_big_alloc(n * sizeof *ix->samples))) rc = -1;
  if (rc == 0) {
    ix->sample_count = n;
    view_scan(r, TABLE_COUNTER, view_counter_rows, view_place_samples, at);
  }
  free(at);
  return rc;
}

/* ---- the source ---- */

static void *view_copy(const void *p, size_t bytes) {
  void *q = malloc(bytes ? bytes : 1);
  if (q && bytes) memcpy(q, p, bytes);
  return q;
}

static view_source *view_source_new(const trace_context *ctx, const view_keys *keys) {
  view_source *src = calloc(1, sizeof *src);
  if (!src) return NULL;
  src->ctx = ctx;
  src->keys = (view_keys){
      view_copy(keys->vid_of_track, keys->track_cap * sizeof *keys->vid_of_track),
      keys->track_cap, view_copy(keys->vid_of_cpu, keys->cpu_cap * sizeof *keys->vid_of_cpu),
      keys->cpu_cap, view_copy(keys->thread_name, keys->thread_cap * sizeof *keys->thread_name),
      keys->thread_cap};
  const storage_table *threads = &ctx->tables[TABLE_THREAD];
  src->idle_count = threads->row_count;
  src->idle = calloc(src->idle_count + 1, 1);
  src->name_cap = base_string_pool_count(&ctx->strings);
  src->name_of = calloc(src->name_cap + 1, sizeof *src->name_of);
  if (!src->keys.vid_of_track || !src->keys.vid_of_cpu || !src->keys.thread_name ||
      !src->idle || !src->name_of) {
    view_source_free(src);
    return NULL;
  }
  for (size_t u = 0; u < src->idle_count; u++)
    src->idle[u] = storage_get_i64(threads, THREAD_is_idle, u) != 0;
  return src;
}

void view_source_free(view_source *src) {
  if (!src) return;
  free((void *)src->keys.vid_of_track);
  free((void *)src->keys.vid_of_cpu);
  free((void *)src->keys.thread_name);
  free(src->idle);
  free(src->name_of);
  free(src->cursor);
  free(src);
}

int view_columns_read(view_index *ix, const trace_context *ctx, const view_keys *keys) {
  view_reader *r = calloc(1, sizeof *r);
  if (!r) return -1;
  r->ix = ix;
  r->ctx = ctx;
  ix->fill_split = VIEW_FILL_SPLIT;
  ix->stream_min = VIEW_FILL_SPLIT;
  int rc = (r->src = ix->source = view_source_new(ctx, keys)) ? 0 : -1;
  if (rc == 0) {
    r->keys = &r->src->keys;
    rc = view_size_slices(r);
  }
  if (rc == 0) rc = view_read_samples(r);
  free(r);
  return rc;
}
