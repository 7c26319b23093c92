/* Memory per event, measured (the figures of docs/performance.md).
 *
 *  1. Table rows: appends N rows to the slice, sched_slice, counter,
 *     thread_state and args tables, filling the columns the importers fill
 *     (see mem_tables); prints the bytes a row takes at exact fit (column
 *     widths + null bits), as allocated (growth slack), and resident
 *     (mincore: untouched slack of the tables' mapped arrays is not).
 *  2. Queued sorter events: heap growth per pushed event, 1 and 1,000
 *     sources.
 *  3. The sorter over a load's life: M events (default 5.9 M, a 300 MiB
 *     merge load) over 100 sources on a machine's general lane and 4 cpu
 *     lanes, out of order in windows like proto sequences, a clock change
 *     every 5,000 events and a run break every 64: heap and RSS after
 *     pushing, the peak during sorter_run, and how much is left as the
 *     emit goes (every quarter, and at the last event).
 * Whole loads are measured by bench/bench_merge.py (peak RSS / input).
 *
 * Usage: bench_memory [N [M]]   (defaults 1,000,000 and 5,900,000) */
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/context.h"
#include "sort/sort.h"
#include "weft/weft.h"

static size_t mem_heap_bytes(void) {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

/* Resident bytes of one array of `bytes`: tables map arrays of 1 MiB or
 * more (storage.c), whose untouched pages are not resident (mincore). */
static size_t mem_array_resident(const void *p, size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (!p || bytes < ((size_t)1 << 20)) return p ? bytes : 0;
  size_t pages = (bytes + page - 1) / page;
  unsigned char *vec = malloc(pages);
  size_t resident = 0;
  if (vec && mincore((void *)p, pages * page, vec) == 0)
    for (size_t i = 0; i < pages; i++) resident += (vec[i] & 1) ? page : 0;
  free(vec);
  return resident;
}

/* Resident bytes of a table's column arrays. */
static size_t mem_table_resident(const storage_table *t) {
  size_t bytes = 0;
  for (size_t i = 0; i < t->column_count; i++) {
    const storage_column *c = &t->columns[i];
    if (c->data) bytes += mem_array_resident(c->data, t->row_capacity * c->width);
    if (c->present)
      bytes += mem_array_resident(c->present, (t->row_capacity + 63) / 64 * sizeof(uint64_t));
  }
  return bytes;
}

static size_t mem_exact_row_bits(const storage_table *t) {
  size_t bits = 0;
  for (size_t i = 0; i < t->column_count; i++) {
    bits += storage_column_width(t, i) * 8;
    if (t->columns[i].present) bits++;
  }
  return bits;
}

/* A typical row's value for one column, by kind: 'T' a nanosecond timestamp
 * (needs 8 bytes), 'D' a duration up to 10 ms, 'R' a row id of this table,
 * 'S' a small id or number (< 1000), 's' a string (one of 100), 'f' a double,
 * '-' left at its default (NULL / 0). */
static void mem_set(storage_table *t, size_t col, uint32_t row, size_t i,
                    char kind, const string_id *names) {
  switch (kind) {
    case 'T': storage_set_i64(t, col, row, 1700000000000000000LL + (int64_t)i * 1000); break;
    case 'D': storage_set_i64(t, col, row, (int64_t)(i * 7919 % 10000000)); break;
    case 'R': storage_set_i64(t, col, row, (int64_t)i); break;
    case 'S': storage_set_i64(t, col, row, (int64_t)(i % 1000)); break;
    case 's': storage_set_str(t, col, row, names[i % 100]); break;
    case 'f': storage_set_f64(t, col, row, (double)i * 0.5); break;
    default: break;
  }
}

/* Rows as the importers fill them: one kind letter per column (see mem_set),
 * in schema order; e.g. a slice has no thread_ts/thread_dur/instruction
 * counts. */
static int mem_tables(size_t n) {
  static const struct { schema_table_id id; const char *name, *kinds; } tables[] = {
      {TABLE_SLICE, "slice", "-TDSssSRR----"},
      {TABLE_SCHED, "sched_slice", "-TDSsSS"},
      {TABLE_COUNTER, "counter", "-TSf-"},
      {TABLE_THREAD_STATE, "thread_state", "-TDSs--SR-S"},
      {TABLE_ARGS, "args", "-Rss-s-s"}};
  weft_options o;
  weft_options_default(&o);
  printf("table rows (N = %zu)          exact B/row  allocated B/row  resident B/row\n", n);
  for (size_t k = 0; k < sizeof tables / sizeof *tables; k++) {
    trace_context ctx;
    if (trace_context_init(&ctx, &o)) return 1;
    string_id names[100];
    for (int i = 0; i < 100; i++) {
      char name[16];
      int len = snprintf(name, sizeof name, "name%d", i);
      if (ctx_intern(&ctx, name, (size_t)len, &names[i])) return 1;
    }
    storage_table *t = ctx_table(&ctx, tables[k].id);
    size_t cols = strlen(tables[k].kinds);
    if (cols != t->column_count) return 1;
    for (size_t i = 0; i < n; i++) {
      uint32_t row;
      if (storage_table_append(t, &row)) return 1;
      for (size_t c = 0; c < cols; c++) mem_set(t, c, row, i, tables[k].kinds[c], names);
    }
    if (storage_table_status(t)) return 1;
    size_t heap = mem_table_resident(t);
    printf("  %-28s %11.2f %16.2f %11.2f\n", tables[k].name,
           (double)mem_exact_row_bits(t) / 8.0,
           (double)storage_table_memory(t) / (double)n, (double)heap / (double)n);
    trace_context_free(&ctx);
  }
  return 0;
}

static size_t mem_rss_bytes(void);

/* Bytes the sorter's chunks hold per queued event (their capacity, as
 * sorter_memory counts it) and resident bytes the pushes added. */
static int mem_sorter(size_t n, uint32_t sources, int clocks) {
  sorter s;
  sorter_init(&s);
  malloc_trim(0);
  size_t rss0 = mem_rss_bytes();
  for (uint32_t i = 0; i < sources; i++) {
    uint32_t id;
    if (sorter_add_source(&s, &id)) return 1;
  }
  for (size_t i = 0; i < n; i++)
    if (sorter_push(&s, (uint32_t)(i % sources), (int64_t)i,
                    clocks ? (uint32_t)(i % 2) : 0, i)) return 1;
  size_t rss = mem_rss_bytes();
  size_t grown = rss > rss0 ? rss - rss0 : 0;
  printf("  %4u source%s, %s: held %6.2f B/event, resident %6.2f B/event\n", sources,
         sources == 1 ? " " : "s", clocks ? "clock changes every event" : "one clock              ",
         (double)sorter_memory(&s) / (double)n, (double)grown / (double)n);
  sorter_free(&s);
  return 0;
}

static size_t mem_rss_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long long size = 0, resident = 0;
  if (!f) return 0;
  if (fscanf(f, "%llu %llu", &size, &resident) != 2) resident = 0;
  fclose(f);
  return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

typedef struct mem_phase {
  pthread_mutex_t mu;           /* the peaks: the emit and the sampler */
  int stop;                     /* ends the sampler */
  size_t heap0, rss0;           /* before the first push */
  size_t total, seen;           /* events to emit / emitted */
  size_t heap_peak, rss_peak;   /* during sorter_run */
  size_t heap_at[5], rss_at[5]; /* at 0, 1/4, 1/2, 3/4 of the emit, last event */
} mem_phase;

static void mem_phase_sample(mem_phase *m, size_t *heap, size_t *rss) {
  *heap = mem_heap_bytes() - m->heap0;
  *rss = mem_rss_bytes();
  *rss = *rss > m->rss0 ? *rss - m->rss0 : 0;
  pthread_mutex_lock(&m->mu);
  if (*heap > m->heap_peak) m->heap_peak = *heap;
  if (*rss > m->rss_peak) m->rss_peak = *rss;
  pthread_mutex_unlock(&m->mu);
}

/* Samples every 2 ms through sorter_run (the sort phase emits nothing). */
static void *mem_phase_sampler(void *arg) {
  mem_phase *m = arg;
  struct timespec pause = {0, 2000000};
  for (;;) {
    size_t h, r;
    pthread_mutex_lock(&m->mu);
    int stop = m->stop;
    pthread_mutex_unlock(&m->mu);
    if (stop) return NULL;
    mem_phase_sample(m, &h, &r);
    nanosleep(&pause, NULL);
  }
}

static int mem_phase_emit(void *user, const sort_event *e) {
  mem_phase *m = user;
  size_t i = m->seen++, q = m->total / 4;
  (void)e;
  if (i + 1 == m->total) mem_phase_sample(m, &m->heap_at[4], &m->rss_at[4]);
  else if (q && i % q == 0 && i / q < 4) mem_phase_sample(m, &m->heap_at[i / q], &m->rss_at[i / q]);
  else if (i % 65536 == 0) {
    size_t h, r;
    mem_phase_sample(m, &h, &r);
  }
  return 0;
}

static int mem_phase_convert(void *user, uint32_t source, uint32_t clock,
                             int64_t ts, int64_t *out) {
  (void)user, (void)source;
  *out = ts + (int64_t)clock * 7;
  return 0;
}

/* The sorter's heap and RSS over one run of m events from 100 sources. */
static int mem_sorter_phases(size_t m, uint32_t threads) {
  enum { SOURCES = 100 };
  mem_phase ph;
  memset(&ph, 0, sizeof ph);
  malloc_trim(0);
  sorter s;
  sorter_init(&s);
  sorter_set_threads(&s, threads);
  ph.heap0 = mem_heap_bytes();
  ph.rss0 = mem_rss_bytes();
  size_t per = m / SOURCES;
  for (uint32_t src = 0; src < SOURCES; src++) {
    uint32_t id;
    if (sorter_add_source(&s, &id)) return 1;
    for (size_t i = 0; i < per; i++) {
      size_t window = i / 2048, in = i % 2048; /* 8 interleaved runs of 256 */
      int64_t ts = (int64_t)(window * 2048 + (in % 256) * 8 + in / 256) * 10 + src % 10;
      uint32_t lane = sort_lane(0, i % 3 ? 0 : 1 + (uint32_t)(i / 3) % 4);
      if (sorter_push_lane(&s, id, lane, ts, (uint32_t)(i / 5000) % 2, i)) return 1;
      if (i % 64 == 63) sorter_mark_break(&s);
    }
  }
  size_t heap_pushed = mem_heap_bytes() - ph.heap0;
  size_t rss_pushed = mem_rss_bytes() - ph.rss0;
  ph.total = per * SOURCES;
  ph.heap_peak = heap_pushed;
  ph.rss_peak = rss_pushed;
  pthread_mutex_init(&ph.mu, NULL);
  pthread_t sampler;
  int sampling = pthread_create(&sampler, NULL, mem_phase_sampler, &ph) == 0;
  int rc = sorter_run(&s, mem_phase_convert, mem_phase_emit, &ph);
  pthread_mutex_lock(&ph.mu);
  ph.stop = 1;
  pthread_mutex_unlock(&ph.mu);
  if (sampling) pthread_join(sampler, NULL);
  pthread_mutex_destroy(&ph.mu);
  if (rc || ph.seen != ph.total) return 1;
  sorter_free(&s);
  double mb = 1e6, n = (double)ph.total;
  printf("  %zu events, %u sources, %u thread%s: pushed heap %.1f MB (%.2f B/event), rss %.1f MB\n",
         ph.total, SOURCES, threads, threads == 1 ? "" : "s", (double)heap_pushed / mb,
         (double)heap_pushed / n, (double)rss_pushed / mb);
  printf("    peak during sorter_run: heap %.1f MB (%.2f B/event), rss %.1f MB\n",
         (double)ph.heap_peak / mb, (double)ph.heap_peak / n, (double)ph.rss_peak / mb);
  printf("    during emit (heap / rss MB): start %.1f / %.1f, 1/4 %.1f / %.1f, "
         "1/2 %.1f / %.1f, 3/4 %.1f / %.1f, last event %.1f / %.1f\n",
         (double)ph.heap_at[0] / mb, (double)ph.rss_at[0] / mb, (double)ph.heap_at[1] / mb,
         (double)ph.rss_at[1] / mb, (double)ph.heap_at[2] / mb, (double)ph.rss_at[2] / mb,
         (double)ph.heap_at[3] / mb, (double)ph.rss_at[3] / mb, (double)ph.heap_at[4] / mb,
         (double)ph.rss_at[4] / mb);
  return 0;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
  size_t m = argc > 2 ? strtoull(argv[2], NULL, 10) : 5900000;
  if (n < 2) n = 2;
  if (m < 100) m = 100;
  printf("the sorter over a run (heap and RSS above the start)\n");
  int rc = mem_sorter_phases(m, 1);
  rc |= mem_sorter_phases(m, 2);
  rc |= mem_tables(n);
  printf("queued sorter events (N = %zu)\n", n);
  rc |= mem_sorter(n, 1, 0);
  rc |= mem_sorter(n, 1000, 0);
  rc |= mem_sorter(n, 1, 1);
  return rc;
}
