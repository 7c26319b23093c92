/* The viewport summary (view_summary.h).
 *
 * Slice and CPU tracks: each depth of a track is a lane; the slices of a
 * lane that overlap the window are visited in ts order and mapped to the
 * pixels they cover. A pixel shared by several slices goes to the longest
 * of them, and consecutive pixels of one slice form a run
 * [first px, last px, depth, slice id, name, key]. Slices that start
 * before the window are found from the track's longest slice: the scan
 * starts at the first slice with ts >= start - max_dur. A lane holding many
 * more slices in the window than pixels is read through its pyramid
 * (view_lod.h) instead, skipping the slices that cannot change its runs.
 * Counter tracks: per pixel with samples, [px, min, max, last value], the
 * value in effect at the window's start at pixel 0; with many samples a
 * pixel, the lowest and highest come from the pyramid.
 * The first summary of tracks holding many slices not written yet reads
 * them straight from the stored columns instead (below). */
#include "view_summary.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "view_columns.h"
#include "view_json.h"
#include "view_lod.h"

typedef struct view_kept view_kept;

typedef struct view_lane {
  view_slice s; /* the pending run's slice, when pending */
  int pending;
  int32_t p0, p1;
  view_kept *keep; /* streaming: where its runs go, not the reply */
} view_lane;

typedef struct view_pass {
  view_index *ix;
  rpc_buf *out;
  int64_t start, end;
  double scale; /* pixels per ns */
  uint32_t px;
  uint32_t *used; /* names in this reply, in order */
  uint32_t used_count, used_cap;
  int runs; /* runs written in the current track */
  int failed;
} view_pass;

/* The reply-local index of interned name `name`. */
static uint32_t view_reply_name(view_pass *p, uint32_t name) {
  view_index *ix = p->ix;
  if (ix->reply_stamp[name] == ix->stamp) return ix->reply_name[name];
  if (p->used_count == p->used_cap) {
    uint32_t cap = p->used_cap ? p->used_cap * 2 : 256;
    uint32_t *grown = realloc(p->used, cap * sizeof *grown);
    if (!grown) {
      p->failed = 1;
      return 0;
    }
    p->used = grown;
    p->used_cap = cap;
  }
  ix->reply_stamp[name] = ix->stamp;
  ix->reply_name[name] = p->used_count;
  p->used[p->used_count] = name;
  return p->used_count++;
}

/* Writes v in decimal at *at, moving *at past it. */
static void view_put_u32(char **at, uint32_t v) {
  char digits[10];
  int n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *(*at)++ = digits[--n];
}

/* A run of a lane read straight from the columns (view_summary_stream.c),
 * kept until the reply is written, in track and lane order. */
typedef struct view_run {
  int32_t p0, p1;
  view_slice s;
} view_run;

struct view_kept {
  view_run *runs;
  uint32_t count, cap;
};

static void view_keep_run(view_pass *p, view_kept *k, int32_t p0, int32_t p1,
                          const view_slice *s) {
  if (k->count == k->cap) {
    uint32_t cap = k->cap ? k->cap * 2 : 16;
    view_run *grown = realloc(k->runs, cap * sizeof *grown);
    if (!grown) {
      p->failed = 1;
      return;
    }
    k->runs = grown;
    k->cap = cap;
  }
  k->runs[k->count++] = (view_run){p0, p1, *s};
}

/* A run as [p0,p1,depth,id,name,key]; printf would cost most of a
 * summary's time. */
static void view_write_run(view_pass *p, int32_t p0, int32_t p1, const view_slice *s) {
  uint32_t fields[6] = {(uint32_t)p0, (uint32_t)p1, s->depth, s->id,
                        view_reply_name(p, s->name), s->key};
  char text[6 * 11 + 3], *at = text;
  if (p->runs++) *at++ = ',';
  *at++ = '[';
  for (int i = 0; i < 6; i++) {
    if (i) *at++ = ',';
    view_put_u32(&at, fields[i]);
  }
  *at++ = ']';
  rpc_buf_append(p->out, text, (size_t)(at - text));
}

static void view_emit_run(view_pass *p, const view_lane *l) {
  if (l->keep) view_keep_run(p, l->keep, l->p0, l->p1, &l->s);
  else view_write_run(p, l->p0, l->p1, &l->s);
}

/* A slice covering pixels [p0, p1] joins its lane. */
static void view_lane_add(view_pass *p, view_lane *l, int32_t p0, int32_t p1,
                          const view_slice *s) {
  if (l->pending && p0 <= l->p1) {
    if (p1 <= l->p1 && !(l->p0 == l->p1 && s->dur > l->s.dur)) return;
    if (s->dur > l->s.dur) {
      l->p1 = p0 - 1; /* the shared pixels go to the longer slice */
    } else {
      p0 = l->p1 + 1;
      if (p0 > p1) return;
    }
  }
  if (l->pending && l->p1 >= l->p0) view_emit_run(p, l);
  l->s = *s;
  l->pending = 1;
  l->p0 = p0;
  l->p1 = p1;
}

static int32_t view_px(const view_pass *p, int64_t ts) {
  double x = floor(((double)ts - (double)p->start) * p->scale);
  if (x < 0) return 0;
  return x >= p->px ? (int32_t)p->px - 1 : (int32_t)x;
}

/* The first index in s[0..n) with ts >= t. */
static size_t view_lower_bound(const view_slice *s, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* The first time at or after `start` whose pixel is after `px` (the
 * window's end when none): a slice ending (view_slice_end) at or before it
 * ends in pixel px or before. */
static int64_t view_next_px_time(const view_pass *p, int32_t px) {
  if ((uint32_t)px + 1 >= p->px) return INT64_MAX;
  double guess = (double)p->start + ceil((double)(px + 1) / p->scale);
  int64_t t = guess <= (double)p->start ? p->start
              : guess >= (double)p->end ? p->end : (int64_t)guess;
  for (int step = 0; step < 4; step++) { /* the guess is exact or next to it */
    if (view_px(p, t) <= px) t++;
    else if (t > p->start && view_px(p, t - 1) > px) t--;
    else return t;
  }
  int64_t lo = p->start, hi = p->end; /* px(lo) <= px < px(hi) */
  while ((uint64_t)hi - (uint64_t)lo > 1) {
    int64_t mid = (int64_t)((uint64_t)lo + ((uint64_t)hi - (uint64_t)lo) / 2);
    if (view_px(p, mid) > px) hi = mid;
    else lo = mid;
  }
  return hi;
}

/* One slice of a lane, in ts order: to its pixels, unless wholly before
 * the window. */
static void view_lane_visit(view_pass *p, view_lane *l, const view_slice *s) {
  int64_t stop;
  if (__builtin_add_overflow(s->ts, s->dur, &stop)) stop = INT64_MAX;
  if (stop <= p->start && !(s->dur == 0 && s->ts >= p->start)) return;
  int32_t p0 = view_px(p, s->ts);
  int32_t p1 = s->dur ? view_px(p, stop - 1) : p0;
  view_lane_add(p, l, p0, p1, s);
}

/* Every slice of the lane that may be in the window, in order. */
static void view_lane_exact(view_pass *p, const view_track *t, const view_slice *s,
                            size_t n, view_lane *l) {
  int64_t from;
  if (__builtin_sub_overflow(p->start, t->max_dur, &from)) from = INT64_MIN;
  for (size_t i = view_lower_bound(s, n, from); i < n && s[i].ts < p->end; i++)
    view_lane_visit(p, l, &s[i]);
}

/* The same answer, visiting only the slices that can change it: with a
 * run pending up to pixel P, a slice ending by pixel P is dropped unless
 * the run is one pixel and the slice longer (view_lane_add), so the
 * pyramid skips to the next slice ending after P or, for a one-pixel run,
 * longer than it. About one visit per pixel of the lane. */
static void view_lane_lod(view_pass *p, const view_lane_ix *lane, const view_slice *s,
                          view_lane *l) {
  const view_node *nodes = p->ix->nodes + lane->node;
  int64_t after = p->start, longer = INT64_MAX;
  int32_t after_px = -1;
  for (size_t i = 0;; i++) {
    i = view_lod_find(s, lane->count, nodes, i, after, longer);
    if (i >= lane->count || s[i].ts >= p->end) return;
    view_lane_visit(p, l, &s[i]);
    if (!l->pending) continue;
    if (l->p1 != after_px) {
      after_px = l->p1;
      after = view_next_px_time(p, after_px);
    }
    longer = l->p0 == l->p1 ? l->s.dur : INT64_MAX;
  }
}

/* Whether the lane holds more slices in the window than the summary has
 * pixels, so that skipping pays. */
static int view_lane_dense(const view_pass *p, const view_slice *s, size_t n) {
  if (n <= VIEW_LOD_MIN || p->ix->exact) return 0;
  size_t a = view_lower_bound(s, n, p->start), b = view_lower_bound(s, n, p->end);
  return b - a > 4 * (size_t)p->px;
}

static void view_slice_track(view_pass *p, const view_track *t, view_lane *l) {
  for (uint32_t k = 0; k < t->lane_count; k++) {
    const view_lane_ix *lane = &p->ix->lanes[t->lane_first + k];
    const view_slice *s = p->ix->slices + lane->first;
    memset(l, 0, sizeof *l);
    if (view_lane_dense(p, s, lane->count)) view_lane_lod(p, lane, s, l);
    else view_lane_exact(p, t, s, lane->count, l);
    if (l->pending && l->p1 >= l->p0) view_emit_run(p, l);
  }
}

/* The first sample index with ts > t, minus one: the sample in effect at t
 * (or 0). */
static size_t view_sample_at(const view_sample *s, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].ts <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo ? lo - 1 : 0;
}

static void view_emit_bucket(view_pass *p, int32_t px, double lo, double hi, double last) {
  view_json_add(p->out, "%s[%d,%.9g,%.9g,%.9g]", p->runs++ ? "," : "", px, lo, hi, last);
}

/* The first sample index with ts >= t. */
static size_t view_sample_from(const view_sample *s, size_t n, int64_t t) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s[mid].ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Each pixel's samples in one step: those before the next pixel's time
 * (a binary search), their lowest and highest from the pyramid. */
static void view_counter_lod(view_pass *p, const view_track *t, size_t i) {
  const view_sample *s = p->ix->samples + t->first;
  const view_range *nodes = p->ix->ranges + t->node;
  while (i < t->count && s[i].ts < p->end) {
    int32_t x = view_px(p, s[i].ts);
    int64_t next = view_next_px_time(p, x);
    size_t j = i + view_sample_from(s + i, t->count - i, next < p->end ? next : p->end);
    double lo, hi;
    view_lod_range(s, t->count, nodes, i, j, &lo, &hi);
    double last = isfinite(s[j - 1].value) ? s[j - 1].value : 0;
    view_emit_bucket(p, x, lo, hi, last);
    i = j;
  }
}

static void view_counter_track(view_pass *p, const view_track *t) {
  const view_sample *s = p->ix->samples + t->first;
  size_t i = view_sample_at(s, t->count, p->start);
  if (t->count > VIEW_LOD_MIN && !p->ix->exact &&
      view_sample_from(s, t->count, p->end) - i > 4 * (size_t)p->px) {
    view_counter_lod(p, t, i);
    return;
  }
  int32_t cur = -1;
  double lo = 0, hi = 0, last = 0;
  for (; i < t->count && s[i].ts < p->end; i++) {
    int32_t x = view_px(p, s[i].ts);
    double v = isfinite(s[i].value) ? s[i].value : 0;
    if (x != cur) {
      if (cur >= 0) view_emit_bucket(p, cur, lo, hi, last);
      cur = x;
      lo = hi = v;
    }
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    last = v;
  }
  if (cur >= 0) view_emit_bucket(p, cur, lo, hi, last);
}

/* ---- summaries read straight from the columns ----
 *
 * A summary of tracks whose slices are not written yet, many of them,
 * reads them from the stored columns as a fill would write them
 * (view_columns_stream) and keeps each lane's runs; the fill follows on a
 * thread of its own (view_index_ready_later). Each lane's slices come in
 * the order the fill writes them, which is the lane's order when they
 * are by ts then depth; the exact pass then gives the runs the levels of
 * detail give. A lane out of that order (the fill sorts it) makes the
 * summary fill first instead. */

typedef struct view_stream_lane {
  view_lane l;
  view_kept kept;
  int64_t last_ts;
  uint32_t last_depth;
  int seen;
} view_stream_lane;

typedef struct view_stream view_stream;

/* What one thread of the stream reads with: its own pass over the window
 * (its `failed` its own) and whether it met a lane out of order. */
typedef struct view_stream_part {
  view_pass p;
  view_stream *st;
  int unsorted;
} view_stream_part;

struct view_stream {
  size_t *first; /* per track: its first stream lane, SIZE_MAX when not streamed */
  view_stream_lane *lanes;
  size_t lane_count;
  uint32_t *vids; /* the streamed tracks */
  size_t vid_count;
  view_stream_part part[2];
};

static int view_stream_visit(void *arg, uint32_t vid, uint32_t lane, const view_slice *s) {
  view_stream_part *part = arg;
  view_stream_lane *sl = &part->st->lanes[part->st->first[vid] + lane];
  if (sl->seen && (s->ts < sl->last_ts || (s->ts == sl->last_ts && s->depth < sl->last_depth))) {
    part->unsorted = 1;
    return 1;
  }
  sl->seen = 1;
  sl->last_ts = s->ts;
  sl->last_depth = s->depth;
  if (s->ts < part->p.end) view_lane_visit(&part->p, &sl->l, s);
  return part->p.failed;
}

static void view_stream_free(view_stream *st) {
  for (size_t k = 0; k < st->lane_count; k++) free(st->lanes[k].kept.runs);
  free(st->lanes);
  free(st->first);
  free(st->vids);
  memset(st, 0, sizeof *st);
}

/* Whether vid is a slice or CPU track of the index whose slices are not
 * written (and not marked already). */
static int view_unwritten(const view_index *ix, size_t vid) {
  return vid < ix->track_count && ix->tracks[vid].kind != VIEW_TRACK_COUNTER &&
         ix->tracks[vid].filled == VIEW_EMPTY;
}

/* Marks the unwritten tracks among vids VIEW_STREAMING, or, past half of
 * their `total` slices when they are many, VIEW_STREAMING + 1 (a second
 * thread's), and places their lanes. -1 without memory. */
static int view_stream_mark(view_index *ix, const uint32_t *vids, size_t n, size_t total,
                            view_stream *st) {
  size_t count = vids ? n : ix->track_count;
  st->first = malloc((ix->track_count + 1) * sizeof *st->first);
  st->vids = malloc((count + 1) * sizeof *st->vids);
  if (!st->first || !st->vids) return -1;
  for (size_t t = 0; t < ix->track_count; t++) st->first[t] = SIZE_MAX;
  size_t half = 0;
  for (size_t k = 0; k < count; k++) {
    size_t vid = vids ? vids[k] : k;
    if (!view_unwritten(ix, vid)) continue;
    ix->tracks[vid].filled = VIEW_STREAMING + (total >= ix->fill_split && half >= total / 2);
    half += ix->tracks[vid].count;
    st->first[vid] = st->lane_count;
    st->lane_count += ix->tracks[vid].lane_count;
    st->vids[st->vid_count++] = (uint32_t)vid;
  }
  st->lanes = calloc(st->lane_count + 1, sizeof *st->lanes);
  if (!st->lanes) return -1;
  for (size_t k = 0; k < st->lane_count; k++) st->lanes[k].l.keep = &st->lanes[k].kept;
  return 0;
}

/* Reads the runs of the unwritten tracks among vids straight from the
 * columns when they hold at least ix->stream_min slices: 1 when it did,
 * 0 when they are to be filled first, -1 without memory. */
static int view_stream_read(view_pass *p, const uint32_t *vids, size_t n, view_stream *st) {
  view_index *ix = p->ix;
  if (!ix->source || ix->exact) return 0;
  size_t unwritten = 0;
  for (size_t k = 0; k < (vids ? n : ix->track_count); k++)
    if (view_unwritten(ix, vids ? vids[k] : k)) unwritten += ix->tracks[vids ? vids[k] : k].count;
  if (unwritten == 0 || unwritten < ix->stream_min) return 0;
  for (int k = 0; k < 2; k++) st->part[k] = (view_stream_part){*p, st, 0};
  void *const parts[2] = {&st->part[0], &st->part[1]};
  int rc = view_stream_mark(ix, vids, n, unwritten, st);
  if (rc == 0) rc = view_columns_stream(ix, view_stream_visit, parts);
  for (size_t k = 0; k < st->vid_count; k++) ix->tracks[st->vids[k]].filled = VIEW_EMPTY;
  for (size_t k = 0; k < st->lane_count && rc == 0; k++) {
    view_lane *l = &st->lanes[k].l;
    if (l->pending && l->p1 >= l->p0) view_emit_run(&st->part[0].p, l);
  }
  if (rc == 0 && !st->part[0].p.failed && !st->part[1].p.failed) return 1;
  int lost = st->part[0].unsorted || st->part[1].unsorted ? 0 : -1;
  view_stream_free(st);
  return lost;
}

/* Readies the tracks among vids that were not streamed. */
static int view_ready_rest(view_index *ix, const uint32_t *vids, size_t n, const view_stream *st) {
  if (!st->first) return view_index_ready(ix, vids, n);
  size_t count = vids ? n : ix->track_count, m = 0;
  uint32_t *rest = malloc((count + 1) * sizeof *rest);
  if (!rest) return -1;
  for (size_t k = 0; k < count; k++) {
    size_t vid = vids ? vids[k] : k;
    if (vid < ix->track_count && st->first[vid] == SIZE_MAX) rest[m++] = (uint32_t)vid;
  }
  int rc = view_index_ready(ix, rest, m);
  free(rest);
  return rc;
}

static void view_stream_track(view_pass *p, const view_stream *st, size_t vid) {
  const view_track *t = &p->ix->tracks[vid];
  for (uint32_t k = 0; k < t->lane_count; k++) {
    const view_kept *kept = &st->lanes[st->first[vid] + k].kept;
    for (uint32_t i = 0; i < kept->count; i++)
      view_write_run(p, kept->runs[i].p0, kept->runs[i].p1, &kept->runs[i].s);
  }
}

/* ---- the reply ---- */

static void view_track_json(view_pass *p, const view_stream *st, size_t vid, int first) {
  const view_track *t = &p->ix->tracks[vid];
  char head[40], *at = head;
  if (!first) *at++ = ',';
  memcpy(at, "{\"vid\":", 7);
  at += 7;
  view_put_u32(&at, (uint32_t)vid);
  const char *kind = t->kind == VIEW_TRACK_COUNTER ? ",\"buckets\":[" : ",\"runs\":[";
  size_t kind_len = strlen(kind);
  memcpy(at, kind, kind_len);
  at += kind_len;
  rpc_buf_append(p->out, head, (size_t)(at - head));
  p->runs = 0;
  if (t->kind == VIEW_TRACK_COUNTER) view_counter_track(p, t);
  else if (st->first && st->first[vid] != SIZE_MAX) view_stream_track(p, st, vid);
  else view_slice_track(p, t, &(view_lane){0});
  view_json_add(p->out, "]}");
}

static void view_names_json(view_pass *p) {
  view_json_add(p->out, "],\"names\":[");
  for (uint32_t i = 0; i < p->used_count; i++) {
    if (i) view_json_add(p->out, ",");
    view_json_cstr(p->out, p->ix->names.text[p->used[i]]);
  }
  view_json_add(p->out, "]}");
}

int view_summary_json(view_index *ix, int64_t start, int64_t end, uint32_t px,
                      const uint32_t *vids, size_t vid_count, rpc_buf *out) {
  view_index_settle(ix);
  view_pass p = {ix, out, start, end, (double)px / ((double)end - (double)start), px,
                 NULL, 0, 0, 0, 0};
  view_stream st = {0};
  int streamed = view_stream_read(&p, vids, vid_count, &st);
  if (streamed < 0 || view_ready_rest(ix, vids, vid_count, &st)) { /* tracks met first */
    view_stream_free(&st);
    return -2;
  }
  if (++ix->stamp == 0) { /* wrapped: forget every stamp */
    memset(ix->reply_stamp, 0, ix->names.count * sizeof *ix->reply_stamp);
    ix->stamp = 1;
  }
  view_json_add(out, "{\"start\":%lld,\"end\":%lld,\"px\":%u,\"tracks\":[",
                (long long)start, (long long)end, px);
  size_t n = vids ? vid_count : ix->track_count, written = 0;
  for (size_t k = 0; k < n && !out->failed; k++) {
    size_t vid = vids ? vids[k] : k;
    if (vid < ix->track_count) view_track_json(&p, &st, vid, written++ == 0);
  }
  view_names_json(&p);
  free(p.used);
  if (streamed > 0 && st.vid_count) { /* their fill, while the reply goes out */
    view_index_ready_later(ix, st.vids, st.vid_count);
    st.vids = NULL;
  }
  view_stream_free(&st);
  return out->failed || p.failed ? -1 : 0;
}
