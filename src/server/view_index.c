/* The web view's copy of a loaded trace (view_index.h). The few rows of
 * the machines, processes, threads, tracks and CPUs are read with SQL
 * through the public API; the many of the slice, sched and counter tables
 * straight from their columns (view_columns.c), or, for the tests that
 * compare both, with SQL too. Once per trace. */
#include "view_index.h"

#include "core/weft_context.h"
#include "view_columns.h"
#include "view_lod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define VIEW_NAMES_MIN_SLOTS 1024u
#define VIEW_HUGE_PAGE ((size_t)2 << 20)

/* ---- interned names ---- */

/* Eight bytes a step: every slice's name is hashed once. */
static uint64_t view_hash(const char *s, size_t len) {
  uint64_t h = 1469598103934665603ull ^ len;
  for (; len >= 8; s += 8, len -= 8) {
    uint64_t v;
    memcpy(&v, s, 8);
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 32;
  }
  uint64_t tail = 0;
  memcpy(&tail, s, len);
  h = (h ^ tail) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

static int view_names_grow(view_names *n) {
  uint32_t slots = n->slot_mask ? (n->slot_mask + 1) * 2 : VIEW_NAMES_MIN_SLOTS;
  uint32_t *fresh = calloc(slots, sizeof *fresh);
  if (!fresh) return -1;
  for (uint32_t i = 0; i < n->count; i++) {
    uint64_t h = view_hash(n->text[i], strlen(n->text[i]));
    uint32_t at = (uint32_t)h & (slots - 1);
    while (fresh[at]) at = (at + 1) & (slots - 1);
    fresh[at] = i + 1;
  }
  free(n->slots);
  n->slots = fresh;
  n->slot_mask = slots - 1;
  return 0;
}

static uint32_t view_names_add(view_names *n, const char *s, size_t len, uint32_t at) {
  if (n->count == n->cap) {
    uint32_t cap = n->cap ? n->cap * 2 : 256;
    char **grown = realloc(n->text, cap * sizeof *grown);
    if (!grown) return UINT32_MAX;
    n->text = grown;
    n->cap = cap;
  }
  char *copy = malloc(len + 1);
  if (!copy) return UINT32_MAX;
  memcpy(copy, s, len);
  copy[len] = '\0';
  n->text[n->count] = copy;
  n->slots[at] = ++n->count;
  return n->count - 1;
}

uint32_t view_names_intern(view_names *n, const char *s, size_t len) {
  if ((uint64_t)(n->count + 1) * 2 > (uint64_t)n->slot_mask + 1 && view_names_grow(n))
    return UINT32_MAX;
  uint32_t at = (uint32_t)view_hash(s, len) & n->slot_mask;
  for (; n->slots[at]; at = (at + 1) & n->slot_mask) {
    const char *t = n->text[n->slots[at] - 1];
    if (t[0] == (len ? s[0] : '\0') && strncmp(t, s, len) == 0 && t[len] == '\0')
      return n->slots[at] - 1;
  }
  return view_names_add(n, s, len, at);
}

static void view_names_free(view_names *n) {
  for (uint32_t i = 0; i < n->count; i++) free(n->text[i]);
  free(n->text);
  free(n->slots);
  memset(n, 0, sizeof *n);
}

/* ---- growable arrays ---- */

void *view_big_alloc(size_t bytes) {
  if (bytes < 2 * VIEW_HUGE_PAGE) return malloc(bytes ? bytes : 1);
  void *p = NULL;
  if (posix_memalign(&p, VIEW_HUGE_PAGE, bytes)) return NULL;
  (void)madvise(p, bytes & ~(VIEW_HUGE_PAGE - 1), MADV_HUGEPAGE);
  return p;
}

static int view_reserve(void **items, size_t *cap, size_t want, size_t size) {
  if (want <= *cap) return 0;
  size_t fresh = *cap ? *cap * 2 : 64;
  while (fresh < want) fresh *= 2;
  void *grown = realloc(*items, fresh * size);
  if (!grown) return -1;
  *items = grown;
  *cap = fresh;
  return 0;
}

/* ---- reading ---- */

typedef struct view_build {
  view_index *ix;
  int32_t *vid_of_track; /* track id -> track index, -1 */
  size_t vid_cap;
  int32_t *vid_of_cpu;   /* ucpu -> track index */
  size_t cpu_cap;
  uint32_t *thread_name; /* utid -> interned label */
  size_t thread_name_cap;
  size_t cap_tracks, cap_slices, cap_samples, cap_labels[3];
  uint32_t *slice_vid; /* per slice in query order */
  uint32_t *sample_vid;
  int failed;
} view_build;

static int64_t view_int(const weft_cell *c, int64_t none) {
  return c->type == WEFT_CELL_INT ? c->i : c->type == WEFT_CELL_DOUBLE ? (int64_t)c->d : none;
}

static uint32_t view_text(view_build *b, const weft_cell *c) {
  const char *s = c->type == WEFT_CELL_STRING ? c->s : "";
  size_t len = c->type == WEFT_CELL_STRING ? c->len : 0;
  uint32_t id = view_names_intern(&b->ix->names, s, len);
  if (id == UINT32_MAX) b->failed = 1;
  return id;
}

static int view_map_set(int32_t **map, size_t *cap, int64_t key, int32_t value) {
  if (key < 0 || key > INT32_MAX) return -1;
  size_t old = *cap;
  if (view_reserve((void **)map, cap, (size_t)key + 1, sizeof **map)) return -1;
  for (size_t i = old; i < *cap; i++) (*map)[i] = -1;
  (*map)[key] = value;
  return 0;
}

/* label rows: id, parent, machine, text */
static int view_on_label(view_build *b, int which, const weft_cell *c) {
  view_index *ix = b->ix;
  view_label **list = which == 0 ? &ix->machines : which == 1 ? &ix->processes : &ix->threads;
  size_t *count = which == 0 ? &ix->machine_count
                  : which == 1 ? &ix->process_count : &ix->thread_count;
  if (view_reserve((void **)list, &b->cap_labels[which], *count + 1, sizeof **list)) return 1;
  view_label *l = &(*list)[(*count)++];
  l->id = view_int(&c[0], -1);
  l->parent = view_int(&c[1], -1);
  l->machine = view_int(&c[2], 0);
  l->text = view_text(b, &c[3]);
  if (which == 2 && l->id >= 0) {
    size_t old = b->thread_name_cap;
    if (view_reserve((void **)&b->thread_name, &b->thread_name_cap, (size_t)l->id + 1,
                     sizeof *b->thread_name)) return 1;
    memset(b->thread_name + old, 0, (b->thread_name_cap - old) * sizeof *b->thread_name);
    b->thread_name[l->id] = l->text;
  }
  return b->failed;
}

static view_track *view_new_track(view_build *b) {
  view_index *ix = b->ix;
  if (view_reserve((void **)&ix->tracks, &b->cap_tracks, ix->track_count + 1,
                   sizeof *ix->tracks)) return NULL;
  view_track *t = &ix->tracks[ix->track_count++];
  memset(t, 0, sizeof *t);
  t->upid = t->utid = t->cpu = -1;
  return t;
}

/* track rows: id, name, machine, upid, utid, is_counter */
static int view_on_track(view_build *b, const weft_cell *c) {
  view_track *t = view_new_track(b);
  if (!t) return 1;
  t->source_id = view_int(&c[0], -1);
  t->name = view_text(b, &c[1]);
  t->machine = view_int(&c[2], 0);
  t->upid = view_int(&c[3], -1);
  t->utid = view_int(&c[4], -1);
  t->kind = view_int(&c[5], 0) ? VIEW_TRACK_COUNTER : VIEW_TRACK_SLICES;
  return view_map_set(&b->vid_of_track, &b->vid_cap, t->source_id,
                      (int32_t)(b->ix->track_count - 1)) || b->failed;
}

/* cpu rows: ucpu, cpu, machine */
static int view_on_cpu(view_build *b, const weft_cell *c) {
  view_track *t = view_new_track(b);
  if (!t) return 1;
  t->kind = VIEW_TRACK_CPU;
  t->source_id = view_int(&c[0], -1);
  t->cpu = view_int(&c[1], 0);
  t->machine = view_int(&c[2], 0);
  char name[32];
  snprintf(name, sizeof name, "CPU %lld", (long long)t->cpu);
  t->name = view_names_intern(&b->ix->names, name, strlen(name));
  return t->name == UINT32_MAX ||
         view_map_set(&b->vid_of_cpu, &b->cpu_cap, t->source_id,
                      (int32_t)(b->ix->track_count - 1));
}

static int32_t view_vid(const int32_t *map, size_t cap, int64_t key) {
  return key >= 0 && (size_t)key < cap ? map[key] : -1;
}

static int view_push_slice(view_build *b, int32_t vid, const view_slice *s) {
  view_index *ix = b->ix;
  size_t cap = b->cap_slices;
  if (view_reserve((void **)&ix->slices, &b->cap_slices, ix->slice_count + 1,
                   sizeof *ix->slices)) return 1;
  if (cap != b->cap_slices &&
      view_reserve((void **)&b->slice_vid, &cap, b->cap_slices, sizeof *b->slice_vid))
    return 1;
  ix->slices[ix->slice_count] = *s;
  b->slice_vid[ix->slice_count++] = (uint32_t)vid;
  return 0;
}

/* slice rows: track_id, ts, dur, id, depth, name */
static int view_on_slice(view_build *b, const weft_cell *c) {
  int32_t vid = view_vid(b->vid_of_track, b->vid_cap, view_int(&c[0], -1));
  if (vid < 0 || b->ix->tracks[vid].kind == VIEW_TRACK_COUNTER) return 0;
  view_slice s = {view_int(&c[1], 0), view_int(&c[2], 0), (uint32_t)view_int(&c[3], 0),
                  view_text(b, &c[5]), 0, (uint32_t)view_int(&c[4], 0)};
  if (s.dur < 0 && (b->ix->end <= s.ts || __builtin_sub_overflow(b->ix->end, s.ts, &s.dur)))
    s.dur = 0; /* unfinished: to the end of the trace */
  return view_push_slice(b, vid, &s) || b->failed;
}

/* sched rows: ucpu, ts, dur, id, utid */
static int view_on_sched(view_build *b, const weft_cell *c) {
  int32_t vid = view_vid(b->vid_of_cpu, b->cpu_cap, view_int(&c[0], -1));
  int64_t utid = view_int(&c[4], 0);
  if (vid < 0) return 0;
  uint32_t name = utid >= 0 && (size_t)utid < b->thread_name_cap ? b->thread_name[utid] : 0;
  view_slice s = {view_int(&c[1], 0), view_int(&c[2], 0), (uint32_t)view_int(&c[3], 0),
                  name, (uint32_t)utid, 0};
  if (s.dur < 0) s.dur = 0;
  return view_push_slice(b, vid, &s);
}

/* Makes room for the slices and samples at once: no copies as they come,
 * and huge pages for big traces. */
static int view_presize(view_build *b, int64_t slices, int64_t samples) {
  view_index *ix = b->ix;
  if (slices > 0 && (uint64_t)slices < SIZE_MAX / sizeof *ix->slices) {
    ix->slices = view_big_alloc((size_t)slices * sizeof *ix->slices);
    b->slice_vid = view_big_alloc((size_t)slices * sizeof *b->slice_vid);
    if (!ix->slices || !b->slice_vid) return b->failed = 1;
    b->cap_slices = (size_t)slices;
  }
  if (samples > 0 && (uint64_t)samples < SIZE_MAX / sizeof *ix->samples) {
    ix->samples = view_big_alloc((size_t)samples * sizeof *ix->samples);
    b->sample_vid = view_big_alloc((size_t)samples * sizeof *b->sample_vid);
    if (!ix->samples || !b->sample_vid) return b->failed = 1;
    b->cap_samples = (size_t)samples;
  }
  return 0;
}

/* counter rows: track_id, ts, value */
static int view_on_counter(view_build *b, const weft_cell *c) {
  view_index *ix = b->ix;
  int32_t vid = view_vid(b->vid_of_track, b->vid_cap, view_int(&c[0], -1));
  if (vid < 0 || ix->tracks[vid].kind != VIEW_TRACK_COUNTER) return 0;
  size_t cap = b->cap_samples;
  if (view_reserve((void **)&ix->samples, &b->cap_samples, ix->sample_count + 1,
                   sizeof *ix->samples)) return 1;
  if (cap != b->cap_samples &&
      view_reserve((void **)&b->sample_vid, &cap, b->cap_samples, sizeof *b->sample_vid))
    return 1;
  double v = c[2].type == WEFT_CELL_DOUBLE ? c[2].d : (double)view_int(&c[2], 0);
  ix->samples[ix->sample_count] = (view_sample){view_int(&c[1], 0), v};
  b->sample_vid[ix->sample_count++] = (uint32_t)vid;
  return 0;
}

enum view_query_kind {
  VIEW_Q_COUNT, VIEW_Q_MACHINE, VIEW_Q_PROCESS, VIEW_Q_THREAD, VIEW_Q_TRACK, VIEW_Q_CPU, VIEW_Q_SLICE,
  VIEW_Q_SCHED, VIEW_Q_COUNTER, VIEW_Q_BOUNDS
};

typedef struct view_query_ctx {
  view_build *b;
  int kind;
} view_query_ctx;

static int view_on_row(void *user, int statement, int n, const weft_cell *c) {
  (void)statement;
  view_query_ctx *q = user;
  view_build *b = q->b;
  if (n < 2) return 1;
  switch (q->kind) {
    case VIEW_Q_MACHINE: case VIEW_Q_PROCESS: case VIEW_Q_THREAD:
      return view_on_label(b, q->kind - VIEW_Q_MACHINE, c);
    case VIEW_Q_TRACK: return view_on_track(b, c);
    case VIEW_Q_CPU: return view_on_cpu(b, c);
    case VIEW_Q_SLICE: return view_on_slice(b, c);
    case VIEW_Q_SCHED: return view_on_sched(b, c);
    case VIEW_Q_COUNTER: return view_on_counter(b, c);
    case VIEW_Q_COUNT: return view_presize(b, view_int(&c[0], 0), view_int(&c[1], 0));
    default:
      b->ix->start = view_int(&c[0], 0);
      b->ix->end = view_int(&c[1], 0);
      return 0;
  }
}

/* The SQL of each query kind; its columns are what view_on_* read. */
static const char *const view_sql[] = {
    [VIEW_Q_COUNT] = "select (select count(*) from slice) + (select count(*) from sched), "
                     "(select count(*) from counter)",
    [VIEW_Q_MACHINE] = "select id, -1, id, coalesce(name, 'machine ' || id) from machine",
    [VIEW_Q_PROCESS] =
        "select upid, coalesce(machine_id, 0), coalesce(machine_id, 0), "
        "coalesce(name, 'process') || ' ' || coalesce(pid, '') from process",
    [VIEW_Q_THREAD] =
        "select utid, coalesce(upid, -1), coalesce(machine_id, 0), "
        "coalesce(name, 'thread') || ' ' || coalesce(tid, '') from thread",
    /* A slice track's utid / upid are its thread_track / process_track
     * ones; joins with those views would scan them once per track. */
    [VIEW_Q_TRACK] =
        "select t.id, coalesce(t.name, ''), "
        "coalesce(th.machine_id, p.machine_id, t.machine_id, 0), "
        "coalesce(th.upid, t.slice_upid, -1), coalesce(t.slice_utid, -1), "
        "t.event_type is 'counter' "
        "from (select *, iif(event_type = 'slice', utid, null) as slice_utid, "
        "iif(event_type = 'slice', upid, null) as slice_upid from __intrinsic_track) t "
        "left join thread th on th.utid = t.slice_utid "
        "left join process p on p.upid = coalesce(th.upid, t.slice_upid) order by t.id",
    [VIEW_Q_CPU] = "select ucpu, cpu, coalesce(machine_id, 0) from cpu order by ucpu",
    [VIEW_Q_SLICE] = "select track_id, ts, dur, id, depth, name from slice",
    [VIEW_Q_SCHED] = "select ucpu, ts, dur, id, utid from sched "
                     "where utid not in (select utid from thread where is_idle)",
    [VIEW_Q_COUNTER] = "select track_id, ts, value from counter",
    [VIEW_Q_BOUNDS] = "select start_ts, end_ts from trace_bounds",
};

static int view_run(view_build *b, int kind, weft *w, char *err, size_t err_cap) {
  view_query_ctx q = {b, kind};
  weft_query_callbacks cb = {NULL, view_on_row, &q};
  if (weft_query(w, view_sql[kind], &cb) == WEFT_OK && !b->failed) return 0;
  snprintf(err, err_cap, "reading the trace for the view: %s",
           b->failed ? "out of memory" : weft_errmsg(w));
  return -1;
}

/* ---- grouping by track ---- */

/* Stable scatter of items[count] (each `size` bytes) by vids[] into track
 * order; sets each track's first/count for tracks whose kind matches. */
static int view_group(view_index *ix, void **items, size_t count, size_t size,
                      const uint32_t *vids, int counters) {
  size_t *at = calloc(ix->track_count + 1, sizeof *at);
  char *sorted = view_big_alloc(count * size);
  if (!at || !sorted) {
    free(at);
    free(sorted);
    return -1;
  }
  for (size_t i = 0; i < count; i++) at[vids[i] + 1]++;
  for (size_t t = 0; t < ix->track_count; t++) {
    int mine = (ix->tracks[t].kind == VIEW_TRACK_COUNTER) == counters;
    if (mine) {
      ix->tracks[t].first = at[t];
      ix->tracks[t].count = at[t + 1];
    }
    at[t + 1] += at[t];
  }
  for (size_t i = 0; i < count; i++)
    memcpy(sorted + at[vids[i]]++ * size, (char *)*items + i * size, size);
  free(at);
  free(*items);
  *items = sorted;
  return 0;
}

int view_index_set_lanes(view_index *ix, const size_t *base, const size_t *at,
                         const uint32_t *max_depth) {
  size_t lanes = base[ix->track_count];
  ix->lanes = malloc((lanes ? lanes : 1) * sizeof *ix->lanes);
  if (!ix->lanes) return -1;
  for (size_t k = 0; k < lanes; k++) ix->lanes[k] = (view_lane_ix){at[k], at[k + 1] - at[k], 0, 0};
  ix->lane_count = lanes;
  for (size_t t = 0; t < ix->track_count; t++) {
    view_track *tr = &ix->tracks[t];
    if (tr->kind == VIEW_TRACK_COUNTER) continue;
    tr->first = at[base[t]];
    tr->count = at[base[t + 1]] - at[base[t]];
    tr->lane_first = (uint32_t)base[t];
    tr->lane_count = (uint32_t)(base[t + 1] - base[t]);
    tr->max_depth = max_depth[t];
  }
  return 0;
}

/* Stable scatter of the slices by track and, within a track, by lane (its
 * depth, view_lod.h): the order the levels of detail keep, made in the same
 * pass. vids[] becomes the (track, lane) buckets. */
static int view_group_slices(view_index *ix, uint32_t *vids) {
  size_t tracks = ix->track_count, n = ix->slice_count;
  size_t *base = calloc(tracks + 1, sizeof *base);
  uint32_t *lanes = calloc(tracks + 1, sizeof *lanes);
  uint32_t *max_depth = calloc(tracks + 1, sizeof *max_depth);
  size_t *at = NULL;
  view_slice *sorted = NULL;
  int rc = -1;
  if (!base || !lanes || !max_depth) goto done;
  for (size_t i = 0; i < n; i++) {
    uint32_t d = ix->slices[i].depth, l = view_lane_key(d) + 1;
    if (l > lanes[vids[i]]) lanes[vids[i]] = l;
    if (d > max_depth[vids[i]]) max_depth[vids[i]] = d;
  }
  for (size_t t = 0; t < tracks; t++) base[t + 1] = base[t] + lanes[t];
  at = calloc(base[tracks] + 1, sizeof *at);
  sorted = view_big_alloc(n * sizeof *sorted);
  if (!at || !sorted) goto done;
  for (size_t i = 0; i < n; i++) {
    vids[i] = (uint32_t)base[vids[i]] + view_lane_key(ix->slices[i].depth);
    at[vids[i] + 1]++;
  }
  for (size_t k = 0; k < base[tracks]; k++) at[k + 1] += at[k];
  if (view_index_set_lanes(ix, base, at, max_depth)) goto done;
  for (size_t i = 0; i < n; i++) sorted[at[vids[i]]++] = ix->slices[i];
  free(ix->slices);
  ix->slices = sorted;
  sorted = NULL;
  rc = 0;
done:
  free(base);
  free(lanes);
  free(max_depth);
  free(at);
  free(sorted);
  return rc;
}

static void view_build_free(view_build *b) {
  free(b->vid_of_track);
  free(b->vid_of_cpu);
  free(b->thread_name);
  free(b->slice_vid);
  free(b->sample_vid);
}

/* The slices, sched slices and counter samples from the tables' columns. */
static int view_read_columns(view_build *b, weft *w, char *err, size_t err_cap) {
  const trace_context *ctx;
  if (weft_loaded_context(w, &ctx) != WEFT_OK) {
    snprintf(err, err_cap, "reading the trace for the view: %s", weft_errmsg(w));
    return -1;
  }
  view_keys keys = {b->vid_of_track, b->vid_cap, b->vid_of_cpu, b->cpu_cap,
                    b->thread_name, b->thread_name_cap};
  if (view_columns_read(b->ix, ctx, &keys) == 0) return 0;
  snprintf(err, err_cap, "out of memory");
  return -1;
}

/* The same rows with SQL, grouped afterwards. */
static int view_read_sql(view_build *b, weft *w, char *err, size_t err_cap) {
  static const int order[] = {VIEW_Q_COUNT, VIEW_Q_SLICE, VIEW_Q_SCHED, VIEW_Q_COUNTER};
  view_index *ix = b->ix;
  for (size_t k = 0; k < sizeof order / sizeof *order; k++)
    if (view_run(b, order[k], w, err, err_cap)) return -1;
  if (view_group_slices(ix, b->slice_vid) ||
      view_group(ix, (void **)&ix->samples, ix->sample_count, sizeof *ix->samples,
                 b->sample_vid, 1)) {
    snprintf(err, err_cap, "out of memory");
    return -1;
  }
  return 0;
}

int view_index_build_with(view_index *ix, weft *w, int with_sql, char *err, size_t err_cap) {
  memset(ix, 0, sizeof *ix);
  view_build b = {0};
  b.ix = ix;
  int rc = 0;
  if (view_names_intern(&ix->names, "", 0) == UINT32_MAX) rc = -1;
  /* Bounds first (open slices end there), threads before sched (names). */
  static const int order[] = {VIEW_Q_BOUNDS, VIEW_Q_MACHINE, VIEW_Q_PROCESS,
                              VIEW_Q_THREAD, VIEW_Q_TRACK,   VIEW_Q_CPU};
  for (size_t k = 0; rc == 0 && k < sizeof order / sizeof *order; k++)
    rc = view_run(&b, order[k], w, err, err_cap);
  if (rc == 0)
    rc = with_sql ? view_read_sql(&b, w, err, err_cap) : view_read_columns(&b, w, err, err_cap);
  /* The levels of detail are placed now, made per track on its first
   * summary (view_lod_ready). */
  if (rc == 0 && view_lod_plan(ix)) {
    snprintf(err, err_cap, "out of memory");
    rc = -1;
  }
  if (rc == 0) {
    ix->reply_stamp = calloc(ix->names.count, sizeof *ix->reply_stamp);
    ix->reply_name = calloc(ix->names.count, sizeof *ix->reply_name);
    if (!ix->reply_stamp || !ix->reply_name) {
      snprintf(err, err_cap, "out of memory");
      rc = -1;
    }
  }
  view_build_free(&b);
  if (rc) view_index_free(ix);
  return rc;
}

int view_index_build(view_index *ix, weft *w, char *err, size_t err_cap) {
  return view_index_build_with(ix, w, 0, err, err_cap);
}

int view_index_ready(view_index *ix, const uint32_t *vids, size_t n) {
  if (view_columns_fill(ix, vids, n)) return -1;
  size_t count = vids ? n : ix->track_count;
  for (size_t k = 0; k < count; k++) {
    size_t vid = vids ? vids[k] : k;
    if (vid < ix->track_count) view_lod_ready(ix, &ix->tracks[vid]);
  }
  return 0;
}

static void *view_ready_thread(void *arg) {
  view_index *ix = arg;
  (void)view_index_ready(ix, ix->fill_vids, ix->fill_count); /* failed: the next summary fills */
  return NULL;
}

void view_index_ready_later(view_index *ix, uint32_t *vids, size_t n) {
  view_index_settle(ix);
  ix->fill_vids = vids;
  ix->fill_count = n;
  ix->filling = pthread_create(&ix->filler, NULL, view_ready_thread, ix) == 0;
  if (!ix->filling) view_index_settle(ix);
}

void view_index_settle(view_index *ix) {
  if (ix->filling) pthread_join(ix->filler, NULL);
  ix->filling = 0;
  free(ix->fill_vids);
  ix->fill_vids = NULL;
  ix->fill_count = 0;
}

void view_index_free(view_index *ix) {
  view_index_settle(ix);
  view_source_free(ix->source);
  free(ix->tracks);
  free(ix->slices);
  free(ix->samples);
  free(ix->lanes);
  free(ix->nodes);
  free(ix->ranges);
  free(ix->machines);
  free(ix->processes);
  free(ix->threads);
  free(ix->reply_stamp);
  free(ix->reply_name);
  view_names_free(&ix->names);
  memset(ix, 0, sizeof *ix);
}
