/* The web view's summary with and without its levels of detail
 * (src/server/view_lod.c) on one dense track: N slices a lane in 4 lanes
 * and a counter of N samples, at 1600 px, the whole track and narrower
 * windows. Usage: bench_view [N (default 2000000)]. Prints the median of 5
 * of each, in ms, and the reply's size. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/view_index.h"
#include "server/view_lod.h"
#include "server/view_summary.h"

static double bench_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int bench_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Lane d holds n slices of 1000 >> d ns every 1000 ns; the counter a
 * sample every 1000 ns. */
static void bench_index(view_index *ix, size_t n) {
  memset(ix, 0, sizeof *ix);
  view_names_intern(&ix->names, "", 0);
  view_names_intern(&ix->names, "work", 4);
  ix->track_count = 2;
  ix->tracks = calloc(2, sizeof *ix->tracks);
  ix->slices = view_big_alloc(4 * n * sizeof *ix->slices);
  ix->samples = view_big_alloc(n * sizeof *ix->samples);
  for (uint32_t d = 0; d < 4; d++) /* lane after lane, as the index keeps them */
    for (size_t i = 0; i < n; i++)
      ix->slices[d * n + i] = (view_slice){(int64_t)i * 1000 + d, 900 >> d,
                                           (uint32_t)(i * 4 + d), 1, 0, d};
  for (size_t i = 0; i < n; i++)
    ix->samples[i] = (view_sample){(int64_t)i * 1000, (double)(i * 7919 % 1000)};
  ix->slice_count = 4 * n;
  ix->sample_count = n;
  ix->tracks[0] = (view_track){.kind = VIEW_TRACK_SLICES, .upid = -1, .utid = -1,
                               .count = 4 * n};
  ix->tracks[1] = (view_track){.kind = VIEW_TRACK_COUNTER, .upid = -1, .utid = -1,
                               .count = n};
  ix->start = 0;
  ix->end = (int64_t)n * 1000;
  double t0 = bench_now_ms();
  if (view_lod_build(ix)) exit(1);
  printf("levels of detail of %zu slices and %zu samples: %.1f ms\n", 4 * n, n,
         bench_now_ms() - t0);
  ix->reply_stamp = calloc(ix->names.count, sizeof *ix->reply_stamp);
  ix->reply_name = calloc(ix->names.count, sizeof *ix->reply_name);
}

static double bench_summary(view_index *ix, int64_t start, int64_t end, uint32_t vid,
                            size_t *bytes) {
  double runs[5];
  for (int r = 0; r < 5; r++) {
    rpc_buf out = {0};
    double t0 = bench_now_ms();
    if (view_summary_json(ix, start, end, 1600, &vid, 1, &out)) exit(1);
    runs[r] = bench_now_ms() - t0;
    *bytes = out.len;
    rpc_buf_free(&out);
  }
  qsort(runs, 5, sizeof *runs, bench_cmp);
  return runs[2];
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 2000000;
  view_index ix;
  bench_index(&ix, n);
  static const char *const kinds[] = {"slices ", "counter"};
  for (uint32_t vid = 0; vid < 2; vid++)
    for (int64_t span = ix.end; span >= ix.end / 10000 && span > 0; span /= 10) {
      size_t bytes;
      ix.exact = 1;
      double exact = bench_summary(&ix, 0, span, vid, &bytes);
      ix.exact = 0;
      double lod = bench_summary(&ix, 0, span, vid, &bytes);
      printf("%s window %12lld ns at 1600 px: exact %8.2f ms, levels of detail %8.2f ms "
             "(%zu bytes)\n", kinds[vid], (long long)span, exact, lod, bytes);
    }
  view_index_free(&ix);
  return 0;
}
