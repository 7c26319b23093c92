/* Benchmark: a range query on a sorted column through weft's virtual table
 * against the same query on a plain SQLite table built in the same run.
 * Prints rows visited and time for each. Usage: bench_vtab [rows] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sql/sql.h"
#include "storage/storage.h"

static const storage_column_def bench_defs[] = {
    {"id", STORAGE_ID, 0},
    {"ts", STORAGE_I64, STORAGE_SORTED},
    {"dur", STORAGE_I64, 0},
};

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int on_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement, (void)n;
  *(int64_t *)user = cells[0].i;
  return 0;
}

int main(int argc, char **argv) {
  size_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
  base_string_pool pool;
  base_string_pool_init(&pool);
  storage_table t;
  storage_table_init(&t, "bench", bench_defs, 3);
  storage_table_reserve(&t, rows);
  for (size_t i = 0; i < rows; i++) {
    uint32_t row;
    storage_table_append(&t, &row);
    storage_set_i64(&t, 1, row, (int64_t)i * 1000);
    storage_set_i64(&t, 2, row, 500);
  }
  storage_table *tables[] = {&t};
  sql_engine *e;
  base_error err = {0};
  if (sql_engine_open(&e, tables, 1, &pool, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  /* The same data in a plain SQLite table. */
  sqlite3 *db = sql_engine_db(e);
  double t0 = now_ms();
  sqlite3_exec(db, "CREATE TABLE plain(id INTEGER PRIMARY KEY, ts INT, dur INT);"
               "INSERT INTO plain SELECT id, ts, dur FROM bench;", NULL, NULL, NULL);
  printf("rows: %zu (plain table built in %.0f ms)\n", rows, now_ms() - t0);
  int64_t lo = (int64_t)(rows / 2) * 1000, hi = lo + (int64_t)(rows / 100) * 1000;
  char sql[256];
  const char *names[] = {"bench (weft vtab)", "plain (SQLite table)"};
  for (int k = 0; k < 2; k++) {
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM %s WHERE ts BETWEEN %lld AND %lld",
             k == 0 ? "bench" : "plain", (long long)lo, (long long)hi);
    sql_scan_stats *stats = sql_engine_scan_stats(e);
    stats->rows_visited = 0;
    int64_t count = 0;
    weft_query_callbacks cb = {NULL, on_row, &count};
    double start = now_ms();
    for (int rep = 0; rep < 5; rep++) sql_engine_execute(e, sql, &cb, &err);
    double ms = (now_ms() - start) / 5;
    unsigned long long visited =
        k == 0 ? (unsigned long long)(stats->rows_visited / 5)
               : (unsigned long long)rows; /* no index on ts: full scan */
    printf("%-22s count=%lld  time=%.3f ms  rows visited=%llu\n", names[k],
           (long long)count, ms, visited);
  }
  sql_engine_close(e);
  storage_table_free(&t);
  base_string_pool_free(&pool);
  return 0;
}
