/* weft_interrupt: a query interrupted (here from its own row callback, as
 * a signal handler or another thread would) stops with WEFT_EABORT; the
 * next query runs normally; before loading ends it does nothing. */
#include <stdlib.h>

#include "check.h"
#include "weft/weft.h"

#define SLICES 70000

static weft *open_loaded(void) {
  weft *w = NULL;
  CHECK_EQ_INT(weft_open(&w, NULL), WEFT_OK);
  weft_interrupt(w); /* nothing runs yet: no effect */
  size_t cap = (size_t)SLICES * 80 + 64, len = 0;
  char *json = malloc(cap);
  len += (size_t)snprintf(json, cap, "{\"traceEvents\":[");
  for (int i = 0; i < SLICES; i++)
    len += (size_t)snprintf(json + len, cap - len,
                            "%s{\"ph\":\"X\",\"name\":\"s%d\",\"ts\":%d,\"dur\":1,"
                            "\"pid\":1,\"tid\":1}", i ? "," : "", i, i * 2);
  len += (size_t)snprintf(json + len, cap - len, "]}");
  CHECK_EQ_INT(weft_file_begin(w, "t.json"), WEFT_OK);
  CHECK_EQ_INT(weft_file_write(w, json, len), WEFT_OK);
  CHECK_EQ_INT(weft_file_end(w), WEFT_OK);
  CHECK_EQ_INT(weft_load_finish(w), WEFT_OK);
  free(json);
  return w;
}

typedef struct seen {
  weft *w;
  long rows;
  int64_t last;
} seen;

static int interrupt_at_first_row(void *user, int statement, int n, const weft_cell *cells) {
  (void)statement;
  seen *s = user;
  if (s->rows++ == 0 && s->w) weft_interrupt(s->w);
  if (n > 0) s->last = cells[0].i;
  return 0;
}

static void test_interrupt_stops_the_running_query(void) {
  weft *w = open_loaded();
  seen s = {w, 0, 0};
  weft_query_callbacks cb = {NULL, interrupt_at_first_row, &s};
  /* Each outer row scans the slice table for a name no slice has. */
  int rc = weft_query(w, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r "
                         "WHERE n < 1000) SELECT n, (SELECT count(*) FROM slice WHERE "
                         "name = 'none') FROM r", &cb);
  CHECK_EQ_INT(rc, WEFT_EABORT);
  CHECK(s.rows < 1000);
  CHECK(strstr(weft_errmsg(w), "interrupt") != NULL);
  /* The next query starts afresh. */
  s = (seen){NULL, 0, 0};
  CHECK_EQ_INT(weft_query(w, "SELECT count(*) FROM slice WHERE name != 'none'", &cb), WEFT_OK);
  CHECK_EQ_INT(s.last, SLICES);
  weft_close(w);
}

static void test_interrupt_without_an_instance(void) {
  weft_interrupt(NULL); /* no crash */
  CHECK(1);
}

int main(void) {
  RUN_TEST(test_interrupt_stops_the_running_query);
  RUN_TEST(test_interrupt_without_an_instance);
  return CHECK_SUMMARY();
}
