/* Unit tests of the web view's index (src/server/view_index.c): the index
 * read from the stored tables' columns (view_columns.c) equals the one
 * read with SQL on a generated merge of a Chrome JSON file (nested,
 * unfinished and instant slices, async slices, counters) and a systrace
 * file (sched slices, idle threads included, atrace slices and counters),
 * field by field and in every summary (the slices written by two threads,
 * as for a big trace); and a track's slices and levels of detail, made on
 * its first summary, equal those made for every track at once; a first
 * summary read straight from the columns equals one read from the lanes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "check.h"
#include "core/weft_context.h"
#include "server/view_index.h"
#include "server/view_lod.h"
#include "server/view_summary.h"

static uint64_t view_rng = 88172645463325252ull;

static uint32_t view_rand(uint32_t n) {
  view_rng ^= view_rng << 13;
  view_rng ^= view_rng >> 7;
  view_rng ^= view_rng << 17;
  return (uint32_t)(view_rng % n);
}

/* X slices nested in [ts, ts + dur) down to `depth` more levels. */
static void view_gen_nested(base_buf *b, int pid, int tid, int64_t ts, int64_t dur, int depth) {
  base_buf_appendf(b, "{\"ph\":\"X\",\"name\":\"n%u\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,"
                     "\"dur\":%lld},", view_rand(7), pid, tid, (long long)ts, (long long)dur);
  if (depth == 0 || dur < 8) return;
  int64_t at = ts + 1;
  while (at + 4 < ts + dur && view_rand(4)) {
    int64_t len = 1 + view_rand((uint32_t)(ts + dur - at - 2));
    view_gen_nested(b, pid, tid, at, len, depth - 1);
    at += len + 1 + view_rand(3);
  }
}

static void view_gen_json(base_buf *b) {
  base_buf_appendf(b, "{\"traceEvents\":[");
  for (int tid = 1; tid <= 4; tid++)
    for (int64_t ts = 1000; ts < 200000; ts += 2000 + view_rand(3000))
      view_gen_nested(b, 10 + tid % 2, tid, ts, 1 + view_rand(1900), 1 + tid % 4);
  for (int i = 0; i < 300; i++) {
    base_buf_appendf(b, "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\",\"pid\":10,\"tid\":1,"
                       "\"ts\":%u},", 1000 + view_rand(200000));
    base_buf_appendf(b, "{\"ph\":\"C\",\"name\":\"load\",\"pid\":11,\"ts\":%u,"
                       "\"args\":{\"v\":%u}},", 1000 + i * 500, view_rand(100));
    if (i % 3 == 0)
      base_buf_appendf(b, "{\"ph\":\"b\",\"cat\":\"a\",\"name\":\"req\",\"id\":%d,\"pid\":10,"
                         "\"tid\":1,\"ts\":%d},{\"ph\":\"e\",\"cat\":\"a\",\"name\":\"req\","
                         "\"id\":%d,\"pid\":10,\"tid\":1,\"ts\":%u},",
                      i, 1000 + i * 400, i, 1000 + i * 400 + 1 + view_rand(5000));
  }
  base_buf_appendf(b, "{\"ph\":\"B\",\"name\":\"open\",\"pid\":10,\"tid\":9,\"ts\":150000}]}");
}

static void view_gen_systrace(base_buf *b) {
  static const int pids[] = {0, 100, 101, 200};
  int cur[2] = {0, 0}, depth = 0;
  base_buf_appendf(b, "# tracer: nop\n");
  for (int i = 0; i < 2000; i++) {
    double t = 1.0 + i * 0.0001;
    int cpu = view_rand(2), next = pids[view_rand(4)];
    base_buf_appendf(b, "  p-%d (%d) [%03d] d..2 %.6f: sched_switch: prev_comm=p%d prev_pid=%d "
                       "prev_prio=120 prev_state=S ==> next_comm=p%d next_pid=%d next_prio=120\n",
                    cur[cpu], cur[cpu], cpu, t, cur[cpu], cur[cpu], next, next);
    cur[cpu] = next;
    const char *mark = depth < 3 && view_rand(2) ? "B|100|work" : depth ? "E|100" : "C|100|q|7";
    depth += mark[0] == 'B' ? 1 : mark[0] == 'E' ? -1 : 0;
    base_buf_appendf(b, "  p-100 (100) [000] .... %.6f: tracing_mark_write: %s\n", t + 0.00005,
                    mark);
  }
}

static weft *view_test_load(void) {
  base_buf json, sys;
  base_buf_init(&json, (size_t)64 << 20);
  base_buf_init(&sys, (size_t)64 << 20);
  view_gen_json(&json);
  view_gen_systrace(&sys);
  weft *w = NULL;
  CHECK_EQ_INT(weft_open(&w, NULL), WEFT_OK);
  CHECK_EQ_INT(weft_file_begin(w, "t.json"), WEFT_OK);
  CHECK_EQ_INT(weft_file_write(w, json.data, json.len), WEFT_OK);
  CHECK_EQ_INT(weft_file_end(w), WEFT_OK);
  CHECK_EQ_INT(weft_file_begin(w, "t.systrace"), WEFT_OK);
  CHECK_EQ_INT(weft_file_write(w, sys.data, sys.len), WEFT_OK);
  CHECK_EQ_INT(weft_file_end(w), WEFT_OK);
  CHECK_EQ_INT(weft_load_finish(w), WEFT_OK);
  base_buf_free(&json);
  base_buf_free(&sys);
  return w;
}

static const char *view_name(const view_index *ix, uint32_t name) {
  return name < ix->names.count ? ix->names.text[name] : "(none)";
}

static void view_check_labels(const view_index *a, const view_index *b, const view_label *x,
                              const view_label *y, size_t nx, size_t ny) {
  CHECK_EQ_INT(nx, ny);
  for (size_t i = 0; i < nx && i < ny; i++) {
    CHECK(x[i].id == y[i].id && x[i].parent == y[i].parent && x[i].machine == y[i].machine);
    CHECK_EQ_STR(view_name(a, x[i].text), view_name(b, y[i].text));
  }
}

static void view_check_track(const view_index *a, const view_index *b, size_t t) {
  const view_track *x = &a->tracks[t], *y = &b->tracks[t];
  CHECK(x->kind == y->kind && x->source_id == y->source_id && x->machine == y->machine &&
        x->upid == y->upid && x->utid == y->utid && x->cpu == y->cpu);
  CHECK(x->first == y->first && x->count == y->count && x->max_dur == y->max_dur &&
        x->max_depth == y->max_depth && x->node == y->node);
  CHECK(x->lane_first == y->lane_first && x->lane_count == y->lane_count);
  CHECK_EQ_STR(view_name(a, x->name), view_name(b, y->name));
  if (x->kind == VIEW_TRACK_COUNTER) return;
  for (size_t i = x->first; i < x->first + x->count && i < a->slice_count; i++) {
    const view_slice *p = &a->slices[i], *q = &b->slices[i];
    CHECK(p->ts == q->ts && p->dur == q->dur && p->id == q->id && p->key == q->key &&
          p->depth == q->depth);
    CHECK_EQ_STR(view_name(a, p->name), view_name(b, q->name));
  }
}

/* Field by field, after every track is readied. */
static void view_check_same(view_index *a, view_index *b) {
  CHECK_EQ_INT(a->start, b->start);
  CHECK_EQ_INT(a->end, b->end);
  view_check_labels(a, b, a->machines, b->machines, a->machine_count, b->machine_count);
  view_check_labels(a, b, a->processes, b->processes, a->process_count, b->process_count);
  view_check_labels(a, b, a->threads, b->threads, a->thread_count, b->thread_count);
  CHECK_EQ_INT(a->track_count, b->track_count);
  CHECK_EQ_INT(a->slice_count, b->slice_count);
  CHECK_EQ_INT(a->sample_count, b->sample_count);
  CHECK_EQ_INT(a->lane_count, b->lane_count);
  if (a->track_count != b->track_count || a->slice_count != b->slice_count ||
      a->sample_count != b->sample_count || a->lane_count != b->lane_count)
    return;
  CHECK_EQ_INT(view_index_ready(a, NULL, 0), 0);
  CHECK_EQ_INT(view_index_ready(b, NULL, 0), 0);
  for (size_t t = 0; t < a->track_count; t++) view_check_track(a, b, t);
  CHECK(a->sample_count == 0 ||
        memcmp(a->samples, b->samples, a->sample_count * sizeof *a->samples) == 0);
  size_t nodes = 0;
  for (size_t l = 0; l < a->lane_count; l++) {
    const view_lane_ix *x = &a->lanes[l], *y = &b->lanes[l];
    CHECK(x->first == y->first && x->count == y->count && x->node == y->node);
    view_lod_layout lay;
    view_lod_layout_of(x->count, &lay);
    nodes += lay.total;
  }
  /* Pyramids staged as a fill wrote (a) equal those made afterwards (b). */
  CHECK(nodes == 0 || memcmp(a->nodes, b->nodes, nodes * sizeof *a->nodes) == 0);
}

static char *view_summary_text(view_index *ix, int64_t start, int64_t end, uint32_t px) {
  rpc_buf out = {0};
  CHECK_EQ_INT(view_summary_json(ix, start, end, px, NULL, 0, &out), 0);
  rpc_buf_append(&out, "", 1);
  return (char *)out.data;
}

static void test_columnar_index_matches_the_sql_one(void) {
  weft *w = view_test_load();
  view_index cols, sql;
  char err[256];
  CHECK_EQ_INT(view_index_build_with(&cols, w, 0, err, sizeof err), 0);
  CHECK_EQ_INT(view_index_build_with(&sql, w, 1, err, sizeof err), 0);
  cols.fill_split = 1; /* two threads fill, as on a big trace */
  CHECK(cols.slice_count > 1000 && cols.sample_count > 300 && cols.track_count > 8);
  size_t cpu_slices = 0, deep = 0;
  for (size_t t = 0; t < cols.track_count; t++)
    if (cols.tracks[t].kind == VIEW_TRACK_CPU) cpu_slices += cols.tracks[t].count;
    else if (cols.tracks[t].max_depth >= 3) deep++;
  CHECK(cpu_slices > 500 && deep > 0);
  /* Summaries first (each readies its tracks on the way), then fields. */
  int64_t span = cols.end - cols.start;
  const int64_t windows[][2] = {{cols.start, cols.end + 1}, {cols.start + span / 3, cols.start + span / 3 + 5000},
                                {cols.start - span, cols.end + span}};
  for (size_t k = 0; k < 3; k++) {
    char *x = view_summary_text(&cols, windows[k][0], windows[k][1], 640);
    char *y = view_summary_text(&sql, windows[k][0], windows[k][1], 640);
    CHECK_EQ_STR(x, y);
    free(x);
    free(y);
  }
  view_check_same(&cols, &sql);
  view_index_free(&cols);
  view_index_free(&sql);
  weft_close(w);
}

/* Readied one track at a time in the summaries' order, or all at once
 * (view_lod_build's way): the same pyramids. */
static void test_lazy_levels_of_detail_match_eager_ones(void) {
  weft *w = view_test_load();
  view_index lazy, eager;
  char err[256];
  CHECK_EQ_INT(view_index_build(&lazy, w, err, sizeof err), 0);
  CHECK_EQ_INT(view_index_build(&eager, w, err, sizeof err), 0);
  CHECK_EQ_INT(view_index_ready(&eager, NULL, 0), 0);
  size_t nodes = 0, ranges = 0;
  for (size_t l = 0; l < eager.lane_count; l++) {
    view_lod_layout lay;
    view_lod_layout_of(eager.lanes[l].count, &lay);
    nodes += lay.total;
  }
  CHECK(nodes > 0);
  for (size_t t = lazy.track_count; t-- > 0;) {
    uint32_t vid = (uint32_t)t;
    rpc_buf out = {0};
    CHECK_EQ_INT(view_summary_json(&lazy, lazy.start, lazy.end, 100, &vid, 1, &out), 0);
    rpc_buf_free(&out);
    CHECK(lazy.tracks[t].ready && lazy.tracks[t].filled == VIEW_FILLED);
    if (lazy.tracks[t].kind != VIEW_TRACK_COUNTER) continue;
    view_lod_layout lay;
    view_lod_layout_of(lazy.tracks[t].count, &lay);
    ranges += lay.total;
  }
  CHECK(memcmp(lazy.nodes, eager.nodes, nodes * sizeof *lazy.nodes) == 0);
  CHECK(ranges == 0 || memcmp(lazy.ranges, eager.ranges, ranges * sizeof *lazy.ranges) == 0);
  view_check_same(&lazy, &eager);
  view_index_free(&lazy);
  view_index_free(&eager);
  weft_close(w);
}

static int view_test_row(void *user, int statement, int n, const weft_cell *c) {
  (void)statement;
  base_buf *b = user;
  for (int i = 0; i < n; i++) /* the name, then the numbers */
    if (c[i].type != WEFT_CELL_INT)
      base_buf_appendf(b, ",%s", c[i].type == WEFT_CELL_STRING ? c[i].s : "?");
  for (int i = 0; i < n; i++)
    if (c[i].type == WEFT_CELL_INT) base_buf_appendf(b, "|%lld", (long long)c[i].i);
  base_buf_appendf(b, ";");
  return 0;
}

/* A track's machine, process and thread are those the thread_track,
 * process_track and counter_track views give it. */
static void test_tracks_match_the_track_views(void) {
  weft *w = view_test_load();
  view_index ix;
  char err[256];
  CHECK_EQ_INT(view_index_build(&ix, w, err, sizeof err), 0);
  base_buf want, got;
  base_buf_init(&want, (size_t)16 << 20);
  base_buf_init(&got, (size_t)16 << 20);
  weft_query_callbacks cb = {NULL, view_test_row, &want};
  CHECK_EQ_INT(weft_query(w,
                          "select t.id, coalesce(t.name, ''), "
                          "coalesce(th.machine_id, p.machine_id, t.machine_id, 0), "
                          "coalesce(th.upid, pt.upid, -1), coalesce(tt.utid, -1), "
                          "ct.id is not null from track t "
                          "left join thread_track tt on tt.id = t.id "
                          "left join thread th on th.utid = tt.utid "
                          "left join process_track pt on pt.id = t.id "
                          "left join process p on p.upid = coalesce(th.upid, pt.upid) "
                          "left join counter_track ct on ct.id = t.id order by t.id",
                          &cb),
               WEFT_OK);
  size_t with_process = 0;
  for (size_t t = 0; t < ix.track_count; t++) {
    const view_track *tr = &ix.tracks[t];
    if (tr->kind == VIEW_TRACK_CPU) continue;
    with_process += tr->upid >= 0;
    base_buf_appendf(&got, ",%s|%lld|%lld|%lld|%lld|%d;", ix.names.text[tr->name],
                     (long long)tr->source_id, (long long)tr->machine, (long long)tr->upid,
                     (long long)tr->utid, tr->kind == VIEW_TRACK_COUNTER);
  }
  CHECK(with_process > 2);
  CHECK_EQ_STR(got.data, want.data);
  base_buf_free(&want);
  base_buf_free(&got);
  view_index_free(&ix);
  weft_close(w);
}

/* A summary of unwritten tracks read straight from the columns (stream_min
 * 1: every first summary does) equals the one read from the filled lanes,
 * for every window and for a list of tracks with repeats, counters and
 * tracks past the last; the fill that follows in the background leaves
 * the index a fill made in the foreground would. */
static void test_streamed_summaries_match_filled_ones(void) {
  weft *w = view_test_load();
  view_index filled;
  char err[256];
  CHECK_EQ_INT(view_index_build(&filled, w, err, sizeof err), 0);
  CHECK_EQ_INT(view_index_ready(&filled, NULL, 0), 0);
  int64_t span = filled.end - filled.start;
  const int64_t windows[][2] = {{filled.start, filled.end + 1},
                                {filled.start + span / 3, filled.start + span / 3 + 5000},
                                {filled.start - span, filled.end + span}};
  uint32_t some[] = {3, 1, 3, 0, 99999, 5, 2, 4};
  for (size_t k = 0; k < 6; k++) {
    view_index streamed;
    CHECK_EQ_INT(view_index_build(&streamed, w, err, sizeof err), 0);
    streamed.stream_min = 1;
    if (k % 2) streamed.fill_split = 1; /* two threads stream, and fill */
    const uint32_t *vids = k < 3 ? NULL : some;
    size_t n = k < 3 ? 0 : sizeof some / sizeof *some;
    rpc_buf x = {0}, y = {0};
    CHECK_EQ_INT(view_summary_json(&streamed, windows[k % 3][0], windows[k % 3][1], 640, vids, n, &x), 0);
    CHECK(streamed.filling); /* the streamed tracks fill in the background */
    CHECK_EQ_INT(view_summary_json(&filled, windows[k % 3][0], windows[k % 3][1], 640, vids, n, &y), 0);
    rpc_buf_append(&x, "", 1);
    rpc_buf_append(&y, "", 1);
    CHECK_EQ_STR((char *)x.data, (char *)y.data);
    view_index_settle(&streamed);
    for (size_t i = 0; i < n; i++)
      if (some[i] < streamed.track_count) CHECK_EQ_INT(streamed.tracks[some[i]].filled, VIEW_FILLED);
    if (k == 0) view_check_same(&streamed, &filled);
    rpc_buf_free(&x);
    rpc_buf_free(&y);
    view_index_free(&streamed);
  }
  view_index_free(&filled);
  weft_close(w);
}

/* A lane whose slices the table does not hold by ts is filled (and
 * sorted) before the summary, not streamed. */
static void test_a_lane_out_of_order_is_filled_first(void) {
  weft *w = view_test_load();
  const trace_context *ctx = NULL;
  CHECK_EQ_INT(weft_loaded_context(w, &ctx), 0);
  storage_table *slices = (storage_table *)&ctx->tables[TABLE_SLICE];
  CHECK(slices->row_count > 100);
  size_t later = 0; /* a row of depth 0 after another of its track */
  for (size_t r = 1; r < slices->row_count && !later; r++)
    for (size_t q = r; q-- > 0 && !later;)
      if (storage_get_i64(slices, SLICE_track_id, q) == storage_get_i64(slices, SLICE_track_id, r) &&
          storage_get_i64(slices, SLICE_depth, q) == 0 && storage_get_i64(slices, SLICE_depth, r) == 0)
        later = r;
  CHECK(later > 0);
  int64_t before = storage_get_i64(slices, SLICE_ts, later - 1);
  for (size_t q = later; q-- > 0;)
    if (storage_get_i64(slices, SLICE_track_id, q) == storage_get_i64(slices, SLICE_track_id, later) &&
        storage_get_i64(slices, SLICE_depth, q) == 0) {
      before = storage_get_i64(slices, SLICE_ts, q);
      break;
    }
  CHECK_EQ_INT(storage_set_i64(slices, SLICE_ts, later, before - 5), 0);
  view_index streamed, filled;
  char err[256];
  CHECK_EQ_INT(view_index_build(&streamed, w, err, sizeof err), 0);
  CHECK_EQ_INT(view_index_build(&filled, w, err, sizeof err), 0);
  CHECK_EQ_INT(view_index_ready(&filled, NULL, 0), 0);
  streamed.stream_min = 1;
  rpc_buf x = {0}, y = {0};
  CHECK_EQ_INT(view_summary_json(&streamed, streamed.start, streamed.end + 1, 500, NULL, 0, &x), 0);
  CHECK(!streamed.filling);
  for (size_t k = 0; k < streamed.track_count; k++) CHECK_EQ_INT(streamed.tracks[k].filled, VIEW_FILLED);
  CHECK_EQ_INT(view_summary_json(&filled, filled.start, filled.end + 1, 500, NULL, 0, &y), 0);
  rpc_buf_append(&x, "", 1);
  rpc_buf_append(&y, "", 1);
  CHECK_EQ_STR((char *)x.data, (char *)y.data);
  rpc_buf_free(&x);
  rpc_buf_free(&y);
  view_index_free(&streamed);
  view_index_free(&filled);
  weft_close(w);
}

int main(void) {
  RUN_TEST(test_tracks_match_the_track_views);
  RUN_TEST(test_columnar_index_matches_the_sql_one);
  RUN_TEST(test_lazy_levels_of_detail_match_eager_ones);
  RUN_TEST(test_streamed_summaries_match_filled_ones);
  RUN_TEST(test_a_lane_out_of_order_is_filled_first);
  return CHECK_SUMMARY();
}
