/* Tests for the systrace text line grammar (import/systrace/systrace_line). */
#include <stdio.h>

#include "check.h"
#include "import/systrace/systrace_line.h"

static int parse(const char *s, systrace_line *l) {
  return systrace_line_parse(s, strlen(s), l);
}

static int task_is(const systrace_line *l, const char *t) {
  return l->task_len == strlen(t) && memcmp(l->task, t, l->task_len) == 0;
}

static int event_is(const systrace_line *l, const char *e) {
  return l->event_len == strlen(e) && memcmp(l->event, e, l->event_len) == 0;
}

static void test_with_tgid(void) {
  systrace_line l;
  CHECK(parse("  surfaceflinger-598   (  598) [004] .... 10852.771242: "
              "tracing_mark_write: B|598|some event", &l));
  CHECK(task_is(&l, "surfaceflinger"));
  CHECK_EQ_INT(l.tid, 598);
  CHECK_EQ_INT(l.has_tgid, 1);
  CHECK_EQ_INT(l.tgid, 598);
  CHECK_EQ_INT(l.cpu, 4);
  CHECK_EQ_INT(l.ts, 10852771242000LL);
  CHECK(event_is(&l, "tracing_mark_write"));
  CHECK_EQ_INT(l.args_len, strlen("B|598|some event"));
  CHECK(memcmp(l.args, "B|598|some event", l.args_len) == 0);
}

static void test_unknown_tgid_and_no_tgid(void) {
  systrace_line l;
  CHECK(parse("           <...>-882   (-----) [003] d..2 1.5: sched_waking: comm=a pid=3", &l));
  CHECK(task_is(&l, "<...>"));
  CHECK_EQ_INT(l.tid, 882);
  CHECK_EQ_INT(l.has_tgid, 0);
  CHECK_EQ_INT(l.ts, 1500000000LL);
  CHECK(parse("<idle>-0     [000]  0.002188: tracing_mark_write: E|77", &l));
  CHECK_EQ_INT(l.tid, 0);
  CHECK_EQ_INT(l.has_tgid, 0);
  CHECK_EQ_INT(l.ts, 2188000LL);
}

static void test_dashes_in_task(void) {
  systrace_line l;
  CHECK(parse("task-1234-567    ( 567) [000] ....   100.000000: tracing_mark_write: E|567", &l));
  CHECK(task_is(&l, "task-1234"));
  CHECK_EQ_INT(l.tid, 567);
  CHECK_EQ_INT(l.tgid, 567);
  CHECK(parse("kworker/u16:1-77    (   77) [004] ....316.196720: tracing_mark_write: B|77|x", &l));
  CHECK(task_is(&l, "kworker/u16:1"));
  CHECK_EQ_INT(l.ts, 16196720000LL); /* flags "....3" glued to the timestamp */
}

static void test_flag_variants(void) {
  systrace_line l;
  CHECK(parse("chrome-10830 ( 10830) [000] dNsa. 4213.033572: tracing_mark_write: B|10830|h", &l));
  CHECK_EQ_INT(l.ts, 4213033572000LL);
  /* flags glued to the timestamp are its first five characters, as the
   * reference reads them: "d...3" here, at 16.19674 s */
  CHECK(parse("test-process-123    (  123) [002] d...316.196740: tracing_mark_write: B|123|y", &l));
  CHECK(task_is(&l, "test-process"));
  CHECK_EQ_INT(l.ts, 16196739999LL);
  CHECK(parse("app-1 (1) [1] 12.000000001: e: ", &l));
  CHECK_EQ_INT(l.ts, 12000000001LL);
}

/* Each answer below is the reference's on the same line. */
static void test_flags_then_timestamp(void) {
  static const struct {
    const char *between; /* what follows "app-1 (1) [000] " */
    int64_t ts;          /* -1: no line */
  } cases[] = {
      {"....316.196720", 16196720000LL},  {"d..316.196740", 6196740000LL},
      {".....16.1", 16100000000LL},       {"......16.1", -1},
      {"dN..2316.196740", 316196740000LL}, {"...1316.196740", 16196739999LL},
      {"ab316.196740", -1},               {"X316.196740", -1},
      {"d...3a16.1", -1},                 {"d..316", -1},
      {"12345316.196740", 12345316196740000LL}, {"0316.1", 316100000000LL},
      {"1...316.196740", -1},             {"1234 16.1", -1},
      {"d..2  16.1", 16100000000LL},      {"dN..2 16.1", 16100000000LL},
      {"d..2xx 316.1", -1},               {"a b 316.1", -1},
      {"d!.2 16.1", -1},                  {"- 16.1", -1},
      {"d. ..16.1", -1},                  {"  316.196740", 316196740000LL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char line[128];
    snprintf(line, sizeof line, "app-1 (1) [000] %s: tracing_mark_write: B|1|x", cases[i].between);
    systrace_line l;
    int ok = parse(line, &l);
    if (ok != (cases[i].ts >= 0) || (ok && l.ts != cases[i].ts))
      printf("flags case %zu: %s\n", i, cases[i].between);
    CHECK(ok == (cases[i].ts >= 0));
    if (ok) CHECK_EQ_INT(l.ts, cases[i].ts);
  }
}

/* Timestamps are read as Perfetto reads them: seconds as a double, times
 * 1e9, truncated. */
static void test_ts_through_a_double(void) {
  int64_t ns = 0;
  CHECK(systrace_parse_ts("16543.267459", 12, &ns));
  CHECK_EQ_INT(ns, 16543267458999LL); /* exact: ...459000 */
  CHECK(systrace_parse_ts("4375.475003", 11, &ns));
  CHECK_EQ_INT(ns, 4375475002999LL);
  CHECK(systrace_parse_ts("432.552614", 10, &ns));
  CHECK_EQ_INT(ns, 432552614000LL);
  CHECK(systrace_parse_ts("0.000003", 8, &ns));
  CHECK_EQ_INT(ns, 3000LL);
  /* Past int64 nanoseconds: a negative time (dropped by the loader). */
  CHECK(systrace_parse_ts("99999999999.5", 13, &ns));
  CHECK(ns < 0);
}

static void test_rejects(void) {
  systrace_line l;
  CHECK(!parse("# tracer: nop", &l));
  CHECK(!parse("cpus=8", &l));
  CHECK(!parse("", &l));
  CHECK(!parse("some = 000, other = 0x4", &l));
  CHECK(!parse("app-1 [001] ....: no timestamp", &l));
  CHECK(!parse("app-x [001] .... 1.0: e: a", &l)); /* tid not a number */
  CHECK(!parse("app-1 [001] .... 1.0 e", &l));      /* no event name */
  CHECK(!parse("app-1 [001] .... 1.0123456789: e: a", &l)); /* 10 digits */
}

static void test_args(void) {
  const char *a = "prev_comm=Binder thread prev_pid=12 prev_prio=120 prev_state=R+ "
                  "==> next_comm=swapper/1 next_pid=0 next_prio=120";
  const char *v;
  size_t n;
  CHECK(systrace_args_find(a, strlen(a), "prev_comm", &v, &n));
  CHECK(n == 13 && memcmp(v, "Binder thread", 13) == 0);
  CHECK(systrace_args_find(a, strlen(a), "prev_state", &v, &n));
  CHECK(n == 2 && memcmp(v, "R+", 2) == 0);
  CHECK(systrace_args_find(a, strlen(a), "next_pid", &v, &n));
  CHECK(n == 1 && v[0] == '0');
  CHECK(!systrace_args_find(a, strlen(a), "missing", &v, &n));
  size_t pos = 0, count = 0;
  systrace_arg arg;
  while (systrace_args_next(a, strlen(a), &pos, &arg)) count++;
  CHECK_EQ_INT(count, 7);
  int64_t x;
  CHECK(systrace_parse_int("0x1f", 4, &x) && x == 31);
  CHECK(systrace_parse_int("-12", 3, &x) && x == -12);
  CHECK(!systrace_parse_int("12a", 3, &x));
  CHECK(!systrace_parse_int("", 0, &x));
  CHECK(!systrace_parse_int("99999999999999999999", 20, &x));
}

int main(void) {
  RUN_TEST(test_with_tgid);
  RUN_TEST(test_unknown_tgid_and_no_tgid);
  RUN_TEST(test_dashes_in_task);
  RUN_TEST(test_flag_variants);
  RUN_TEST(test_flags_then_timestamp);
  RUN_TEST(test_ts_through_a_double);
  RUN_TEST(test_rejects);
  RUN_TEST(test_args);
  return CHECK_SUMMARY();
}
