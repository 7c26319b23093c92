/* Unit tests of the web view's viewport summary (src/server/
 * view_summary.c) on indexes built by hand: runs per lane, the longest
 * slice taking a shared pixel, slices begun before the window, instants,
 * windows at the ends of int64, counter buckets, and the reply's bounds. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "server/view_index.h"
#include "server/view_lod.h"
#include "server/view_summary.h"

/* An index of one slice track holding slices[n] (sorted by ts) and one
 * counter track holding samples[m]. */
static void view_test_index(view_index *ix, const view_slice *slices, size_t n,
                            const view_sample *samples, size_t m) {
  memset(ix, 0, sizeof *ix);
  view_names_intern(&ix->names, "", 0);
  view_names_intern(&ix->names, "a", 1);
  view_names_intern(&ix->names, "b", 1);
  ix->track_count = 2;
  ix->tracks = calloc(2, sizeof *ix->tracks);
  ix->tracks[0] = (view_track){.kind = VIEW_TRACK_SLICES, .upid = -1, .utid = -1,
                               .cpu = -1, .count = n};
  ix->tracks[1] = (view_track){.kind = VIEW_TRACK_COUNTER, .source_id = 1, .upid = -1,
                               .utid = -1, .cpu = -1, .first = 0, .count = m};
  ix->slices = malloc((n ? n : 1) * sizeof *slices);
  if (n) memcpy(ix->slices, slices, n * sizeof *slices);
  ix->slice_count = n;
  ix->samples = malloc((m ? m : 1) * sizeof *samples);
  if (m) memcpy(ix->samples, samples, m * sizeof *samples);
  ix->sample_count = m;
  CHECK_EQ_INT(view_lod_build(ix), 0);
  ix->reply_stamp = calloc(ix->names.count, sizeof *ix->reply_stamp);
  ix->reply_name = calloc(ix->names.count, sizeof *ix->reply_name);
}

/* The summary of track `vid` as a NUL-terminated string to free(). */
static char *view_test_summary(view_index *ix, int64_t start, int64_t end, uint32_t px,
                               uint32_t vid) {
  rpc_buf out = {0};
  CHECK_EQ_INT(view_summary_json(ix, start, end, px, &vid, 1, &out), 0);
  rpc_buf_append(&out, "", 1);
  return (char *)out.data;
}

#define SUMMARY_IS(ix, start, end, px, vid, expected)              \
  do {                                                             \
    char *got_ = view_test_summary(ix, start, end, px, vid);       \
    CHECK_EQ_STR(got_, expected);                                  \
    free(got_);                                                    \
  } while (0)

static void test_runs_per_lane(void) {
  view_index ix;
  const view_slice s[] = {{0, 100, 7, 1, 0, 0}, {10, 20, 8, 2, 0, 1}, {200, 100, 9, 2, 0, 0}};
  view_test_index(&ix, s, 3, NULL, 0);
  SUMMARY_IS(&ix, 0, 400, 4, 0,
             "{\"start\":0,\"end\":400,\"px\":4,\"tracks\":[{\"vid\":0,\"runs\":"
             "[[0,0,0,7,0,0],[2,2,0,9,1,0],[0,0,1,8,1,0]]}],\"names\":[\"a\",\"b\"]}");
  view_index_free(&ix);
}

static void test_longest_slice_takes_a_shared_pixel(void) {
  view_index ix;
  /* 10 ns a pixel: pixel 1 holds the end of slice 1 (5 ns of it) and the
   * start of slice 2 (3 ns, but 30 ns long). */
  const view_slice s[] = {{0, 15, 1, 1, 0, 0}, {17, 30, 2, 2, 0, 0}, {50, 1, 3, 1, 0, 0},
                          {51, 2, 4, 2, 0, 0}};
  view_test_index(&ix, s, 4, NULL, 0);
  SUMMARY_IS(&ix, 0, 100, 10, 0,
             "{\"start\":0,\"end\":100,\"px\":10,\"tracks\":[{\"vid\":0,\"runs\":"
             "[[0,0,0,1,0,0],[1,4,0,2,1,0],[5,5,0,4,1,0]]}],\"names\":[\"a\",\"b\"]}");
  view_index_free(&ix);
}

static void test_window_edges(void) {
  view_index ix;
  const view_slice s[] = {{0, 1000, 1, 1, 0, 0},  /* begun before the window */
                          {400, 100, 2, 1, 0, 0}, /* ends at its start */
                          {500, 0, 3, 2, 0, 1},   /* an instant at its start */
                          {600, 5, 4, 2, 0, 1}};  /* at its end: out */
  view_test_index(&ix, s, 4, NULL, 0);
  SUMMARY_IS(&ix, 500, 600, 10, 0,
             "{\"start\":500,\"end\":600,\"px\":10,\"tracks\":[{\"vid\":0,\"runs\":"
             "[[0,9,0,1,0,0],[0,0,1,3,1,0]]}],\"names\":[\"a\",\"b\"]}");
  view_index_free(&ix);
}

static void test_extreme_windows(void) {
  view_index ix;
  const view_slice s[] = {{INT64_MIN + 10, INT64_MAX, 1, 1, 0, 0}, {0, 10, 2, 1, 0, 0},
                          {INT64_MAX - 5, 5, 3, 1, 0, 0}};
  view_test_index(&ix, s, 3, NULL, 0);
  char *got = view_test_summary(&ix, INT64_MIN, INT64_MAX, 16384, 0);
  /* The first slice ends at 9, in pixel 8192, where it outlasts [0, 10). */
  CHECK(strstr(got, "[[0,8192,0,1,0,0],[16383,16383,0,3,0,0]]") != NULL);
  free(got);
  got = view_test_summary(&ix, INT64_MIN, INT64_MIN + 1, 1, 0);
  CHECK(strstr(got, "\"runs\":[]") != NULL);
  free(got);
  view_index_free(&ix);
}

static void test_counter_buckets(void) {
  view_index ix;
  const view_sample c[] = {{0, 1.5}, {10, 4}, {12, -2}, {19, 3}, {50, 8}};
  view_test_index(&ix, NULL, 0, c, 5);
  SUMMARY_IS(&ix, 5, 45, 4, 1,
             "{\"start\":5,\"end\":45,\"px\":4,\"tracks\":[{\"vid\":1,\"buckets\":"
             "[[0,-2,4,-2],[1,3,3,3]]}],\"names\":[]}");
  SUMMARY_IS(&ix, -100, -50, 4, 1,
             "{\"start\":-100,\"end\":-50,\"px\":4,\"tracks\":[{\"vid\":1,\"buckets\":"
             "[]}],\"names\":[]}");
  view_index_free(&ix);
}

static void test_reply_is_bounded(void) {
  view_index ix;
  view_slice s[64];
  for (int i = 0; i < 64; i++) s[i] = (view_slice){i * 10, 5, (uint32_t)i, 1, 0, 0};
  view_test_index(&ix, s, 64, NULL, 0);
  rpc_buf out = {0};
  out.cap = 200;
  uint32_t vid = 0;
  CHECK_EQ_INT(view_summary_json(&ix, 0, 640, 64, &vid, 1, &out), -1);
  CHECK(out.len <= 200);
  rpc_buf_free(&out);
  view_index_free(&ix);
}

/* ---- the levels of detail answer as reading every slice does ---- */

static uint64_t view_test_rng = 88172645463325252ull;

static uint64_t view_test_next(void) { /* xorshift64 */
  view_test_rng ^= view_test_rng << 13;
  view_test_rng ^= view_test_rng >> 7;
  view_test_rng ^= view_test_rng << 17;
  return view_test_rng;
}

/* n slices over [0, span): lanes 0-3 and a deep one (300, sharing the last
 * lane), mostly short, some instants, a few long; in no order (the
 * index sorts them). */
static view_slice *view_test_slices(size_t n, int64_t span) {
  view_slice *s = malloc(n * sizeof *s);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = view_test_next();
    int64_t dur = r % 10 == 0 ? 0 : r % 97 == 0 ? span / 3 : (int64_t)(r >> 40) % 5000;
    uint32_t depth = r % 1000 == 1 ? 300 : (uint32_t)(r >> 20) % 4;
    s[i] = (view_slice){(int64_t)(view_test_next() % (uint64_t)span), dur, (uint32_t)i,
                        1 + (uint32_t)(r >> 8) % 2, 0, depth};
  }
  return s;
}

static view_sample *view_test_samples(size_t m, int64_t span) {
  view_sample *c = malloc(m * sizeof *c);
  for (size_t i = 0; i < m; i++) {
    uint64_t r = view_test_next();
    c[i] = (view_sample){(int64_t)(i * (uint64_t)span / m) + (int64_t)(r % 3),
                         r % 501 == 0 ? NAN : (double)(int64_t)(r % 2001) - 1000.0};
  }
  return c;
}

static void view_test_same_answer(view_index *ix, int64_t start, int64_t end, uint32_t px) {
  for (uint32_t vid = 0; vid < 2; vid++) {
    ix->exact = 1;
    char *exact = view_test_summary(ix, start, end, px, vid);
    ix->exact = 0;
    char *lod = view_test_summary(ix, start, end, px, vid);
    CHECK_EQ_STR(lod, exact);
    free(exact);
    free(lod);
  }
}

static void test_levels_of_detail_match_the_exact_summary(void) {
  const size_t n = 60000, m = 50000;
  const int64_t span = 10000000;
  view_slice *s = view_test_slices(n, span);
  view_sample *c = view_test_samples(m, span);
  view_index ix;
  view_test_index(&ix, s, n, c, m);
  CHECK(ix.tracks[0].lane_count == VIEW_MAX_LANES);
  view_test_same_answer(&ix, -100, span + 100, 1600);
  view_test_same_answer(&ix, 0, span, 1);
  view_test_same_answer(&ix, INT64_MIN, INT64_MAX, 16384);
  for (int k = 0; k < 60; k++) {
    int64_t a = (int64_t)(view_test_next() % (uint64_t)span) - 1000;
    int64_t len = 1 + (int64_t)(view_test_next() % (uint64_t)(span >> (k % 12)));
    static const uint32_t widths[] = {1, 3, 64, 333, 1600, 4000};
    view_test_same_answer(&ix, a, a + len, widths[k % 6]);
  }
  view_index_free(&ix);
  free(s);
  free(c);
}

/* Levels of detail staged while a fill writes each lane in order (a
 * lane's slices out of ts order in some lanes: those are sorted and built
 * whole on ready) equal those built afterwards. */
static void test_staged_levels_of_detail_match_built_ones(void) {
  const size_t n = 30000;
  view_slice *s = view_test_slices(n, 5000000);
  view_index built, staged;
  view_test_index(&built, s, n, NULL, 0);
  view_test_index(&staged, s, n, NULL, 0);
  view_track *t = &staged.tracks[0];
  size_t swapped = 0;
  t->ready = 0;
  view_lod_stage_begin(&staged, t);
  for (uint32_t k = 0; k < t->lane_count; k++) {
    view_lane_ix *lane = &staged.lanes[t->lane_first + k];
    const view_slice *in = built.slices + lane->first;
    for (size_t i = 0; i < lane->count; i++) {
      size_t from = i;
      /* In odd lanes, each pair of slices of distinct ts the wrong way. */
      if (k % 2 && i + 1 < lane->count && i % 2 == 0 && in[i].ts != in[i + 1].ts) from = i + 1;
      else if (k % 2 && i % 2 == 1 && in[i].ts != in[i - 1].ts) from = i - 1;
      swapped += from != i;
      staged.slices[lane->first + i] = in[from];
      view_lod_stage(&staged, t, lane, lane->first + i);
    }
  }
  CHECK(swapped > 1000);
  view_lod_ready(&staged, t);
  CHECK(t->ready && !t->staged && t->max_dur == built.tracks[0].max_dur);
  size_t nodes = 0;
  for (size_t l = 0; l < built.lane_count; l++) {
    view_lod_layout lay;
    view_lod_layout_of(built.lanes[l].count, &lay);
    nodes += lay.total;
  }
  CHECK(nodes > 0 && memcmp(staged.nodes, built.nodes, nodes * sizeof *built.nodes) == 0);
  for (size_t i = 0; i < n; i++)
    CHECK(staged.slices[i].ts == built.slices[i].ts && staged.slices[i].dur == built.slices[i].dur &&
          staged.slices[i].depth == built.slices[i].depth);
  view_index_free(&built);
  view_index_free(&staged);
  free(s);
}

int main(void) {
  RUN_TEST(test_levels_of_detail_match_the_exact_summary);
  RUN_TEST(test_staged_levels_of_detail_match_built_ones);
  RUN_TEST(test_runs_per_lane);
  RUN_TEST(test_longest_slice_takes_a_shared_pixel);
  RUN_TEST(test_window_edges);
  RUN_TEST(test_extreme_windows);
  RUN_TEST(test_counter_buckets);
  RUN_TEST(test_reply_is_bounded);
  return CHECK_SUMMARY();
}
