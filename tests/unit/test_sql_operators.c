/* The slice-tree index behind descendant_slice and the flow walks
 * (sql/op_slice_tree.c): per-track order by ts whether or not the table is
 * stored in ts order, descendants by depth and time range, ancestors by
 * parent_id with a cycle guard. */
#include "check.h"
#include "sql/operators.h"
#include "storage/schema.h"

typedef struct test_slice {
  int64_t ts, dur, track, depth, parent; /* parent -1: none */
} test_slice;

static void fill(storage_table *t, const test_slice *s, size_t n) {
  const schema_table_def *def = &schema_tables[TABLE_SLICE];
  CHECK_EQ_INT(storage_table_init(t, def->name, def->columns, def->column_count), WEFT_OK);
  for (size_t i = 0; i < n; i++) {
    uint32_t row;
    CHECK_EQ_INT(storage_table_append(t, &row), WEFT_OK);
    CHECK_EQ_INT(storage_set_i64(t, SLICE_ts, row, s[i].ts), WEFT_OK);
    CHECK_EQ_INT(storage_set_i64(t, SLICE_dur, row, s[i].dur), WEFT_OK);
    CHECK_EQ_INT(storage_set_i64(t, SLICE_track_id, row, s[i].track), WEFT_OK);
    CHECK_EQ_INT(storage_set_i64(t, SLICE_depth, row, s[i].depth), WEFT_OK);
    if (s[i].parent >= 0)
      CHECK_EQ_INT(storage_set_i64(t, SLICE_parent_id, row, s[i].parent), WEFT_OK);
  }
}

/* The rows as "a,b,c" for comparison. */
static const char *rows_text(const op_row_vec *v, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < v->len && len < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len, "%s%u", i ? "," : "", v->data[i]);
  return buf;
}

static const char *descendants(const op_slice_index *x, uint32_t row, char *buf) {
  op_row_vec v = {0};
  CHECK_EQ_INT(op_slice_descendants(x, row, &v), WEFT_OK);
  rows_text(&v, buf, 128);
  VEC_FREE(v);
  return buf;
}

static const char *ancestors(const storage_table *t, uint32_t row, char *buf) {
  op_row_vec v = {0};
  CHECK_EQ_INT(op_slice_ancestors(t, row, &v), WEFT_OK);
  rows_text(&v, buf, 128);
  VEC_FREE(v);
  return buf;
}

/* Rows stored out of ts order (as no importer does today): track 0 holds
 * A[0,100) > B[10,50) > C[20,30) and D[200,210); track 1 E[5,500) > F[6,7).
 * Stored as C, F, D, A, E, B. */
static void test_descendants_of_unsorted_rows(void) {
  const test_slice s[] = {
      {20, 10, 0, 2, 5}, {6, 1, 1, 1, 4}, {200, 10, 0, 0, -1},
      {0, 100, 0, 0, -1}, {5, 495, 1, 0, -1}, {10, 40, 0, 1, 3}};
  storage_table t;
  fill(&t, s, 6);
  CHECK(!t.columns[SLICE_ts].sorted);
  op_slice_index x = {0};
  CHECK_EQ_INT(op_slice_index_ensure(&x, &t), WEFT_OK);
  CHECK_EQ_INT(x.track_count, 2);
  char buf[128];
  CHECK_EQ_STR(descendants(&x, 3, buf), "0,5"); /* in row order */
  CHECK_EQ_STR(descendants(&x, 5, buf), "0");
  CHECK_EQ_STR(descendants(&x, 4, buf), "1");
  CHECK_EQ_STR(descendants(&x, 2, buf), "");
  CHECK_EQ_STR(ancestors(&t, 0, buf), "3,5");
  op_slice_index_free(&x);
  storage_table_free(&t);
}

/* Time range edges: a zero-duration slice's children start at its ts; an
 * unfinished one's at any time after; a slice's own end is outside it. */
static void test_time_range_edges(void) {
  const test_slice s[] = {
      {0, 10, 0, 0, -1},  {10, 0, 0, 0, -1}, {10, 0, 0, 1, 1},
      {20, -1, 0, 0, -1}, {900, 5, 0, 1, 3}};
  storage_table t;
  fill(&t, s, 5);
  op_slice_index x = {0};
  CHECK_EQ_INT(op_slice_index_ensure(&x, &t), WEFT_OK);
  char buf[128];
  CHECK_EQ_STR(descendants(&x, 0, buf), ""); /* row 2 starts at its end */
  CHECK_EQ_STR(descendants(&x, 1, buf), "2");
  CHECK_EQ_STR(descendants(&x, 3, buf), "4");
  op_slice_index_free(&x);
  storage_table_free(&t);
}

/* The index follows the table: rows added later are seen. */
static void test_index_rebuilt_when_the_table_grows(void) {
  const test_slice s[] = {{0, 10, 0, 0, -1}, {1, 2, 0, 1, 0}};
  storage_table t;
  fill(&t, s, 1);
  op_slice_index x = {0};
  char buf[128];
  CHECK_EQ_INT(op_slice_index_ensure(&x, &t), WEFT_OK);
  CHECK_EQ_STR(descendants(&x, 0, buf), "");
  uint32_t row;
  CHECK_EQ_INT(storage_table_append(&t, &row), WEFT_OK);
  CHECK_EQ_INT(storage_set_i64(&t, SLICE_ts, row, s[1].ts), WEFT_OK);
  CHECK_EQ_INT(storage_set_i64(&t, SLICE_dur, row, s[1].dur), WEFT_OK);
  CHECK_EQ_INT(storage_set_i64(&t, SLICE_depth, row, s[1].depth), WEFT_OK);
  CHECK_EQ_INT(storage_set_i64(&t, SLICE_parent_id, row, 0), WEFT_OK);
  CHECK_EQ_INT(op_slice_index_ensure(&x, &t), WEFT_OK);
  CHECK_EQ_STR(descendants(&x, 0, buf), "1");
  op_slice_index_free(&x);
  storage_table_free(&t);
}

/* A parent_id cycle (bad data) ends after at most one pass over the table;
 * a parent outside the table ends the chain. */
static void test_ancestors_of_bad_parents(void) {
  const test_slice s[] = {{0, 10, 0, 0, 1}, {0, 10, 0, 1, 0}, {0, 1, 0, 2, 99}};
  storage_table t;
  fill(&t, s, 3);
  op_row_vec v = {0};
  CHECK_EQ_INT(op_slice_ancestors(&t, 0, &v), WEFT_OK);
  CHECK(v.len <= t.row_count);
  VEC_FREE(v);
  char buf[128];
  CHECK_EQ_STR(ancestors(&t, 2, buf), "");
  storage_table_free(&t);
}

int main(void) {
  RUN_TEST(test_descendants_of_unsorted_rows);
  RUN_TEST(test_time_range_edges);
  RUN_TEST(test_index_rebuilt_when_the_table_grows);
  RUN_TEST(test_ancestors_of_bad_parents);
  return CHECK_SUMMARY();
}
