/* Tests for the first line of a `perf script` sample (io/perf_text_line). */
#include "check.h"
#include "io/perf_text_line.h"

static char comm[256];

static int parse(const char *s, io_perf_text_sample *out) {
  return io_perf_text_sample_line(s, strlen(s), out, comm);
}

static int comm_is(const io_perf_text_sample *s, const char *want) {
  return s->comm_len == strlen(want) && memcmp(comm, want, s->comm_len) == 0;
}

static void test_perf_default_line(void) {
  io_perf_text_sample s;
  CHECK(parse("python3  5495 70352.227498:     500000 cpu-clock:ppp: ", &s));
  CHECK_EQ_INT(s.ts, 70352227498000LL);
  CHECK_EQ_INT(s.tid, 5495);
  CHECK_EQ_INT(s.has_pid, 0);
  CHECK_EQ_INT(s.has_cpu, 0);
  CHECK(comm_is(&s, "python3"));
}

static void test_pid_tid_cpu_and_spaced_comm(void) {
  io_perf_text_sample s;
  /* Tabs (simpleperf) and runs of spaces separate alike; the comm's
   * pieces are joined by one space. */
  CHECK(parse("Chrome_IO thread\t 1024/1025 [3] 303057.417513:          1 cycles:", &s));
  CHECK_EQ_INT(s.pid, 1024);
  CHECK_EQ_INT(s.tid, 1025);
  CHECK_EQ_INT(s.has_pid, 1);
  CHECK_EQ_INT(s.has_cpu, 1);
  CHECK_EQ_INT(s.cpu, 3);
  CHECK(comm_is(&s, "Chrome_IO thread"));
  /* Empty parts of pid/tid are skipped: "/5" is a tid alone. */
  CHECK(parse("x /5 1.000000:", &s));
  CHECK_EQ_INT(s.has_pid, 0);
  CHECK_EQ_INT(s.tid, 5);
  /* No comm at all. */
  CHECK(parse("7 1.000000:", &s));
  CHECK_EQ_INT(s.comm_len, 0);
}

static void test_numbers_read_as_strtoul(void) {
  io_perf_text_sample s;
  CHECK(parse("c 12/-1 5.000001:", &s));
  CHECK_EQ_INT(s.tid, 4294967295LL);
  CHECK_EQ_INT(s.pid, 12);
  CHECK_EQ_INT(s.ts, 5000001000LL);
  CHECK(parse("c 4294967297 5.000001:", &s)); /* cut to 32 bits */
  CHECK_EQ_INT(s.tid, 1);
  CHECK(!parse("c 0x10 5.000001:", &s));
  CHECK(!parse("c 1/2/3 5.000001:", &s));
  CHECK(!parse("c 1 [x] 5.000001:", &s));
  CHECK(!parse("c 1 [] 5.000001:", &s));
  /* A cpu and nothing before it: no thread. */
  CHECK(!parse("[1] 5.000001:", &s));
}

static void test_timestamp_rules(void) {
  io_perf_text_sample s;
  /* Exactly six fraction digits, after a space; none before the dot is
   * zero seconds. */
  CHECK(!parse("c 1 5.00001:", &s));
  CHECK(!parse("c 1 5.0000001:", &s));
  CHECK(!parse("c 1\t5.000001:", &s)); /* a tab is not the space before it */
  CHECK(parse("c 1 .000001:", &s));
  CHECK_EQ_INT(s.ts, 1000);
  /* seconds * 1000 * 1000 * 1000 in doubles, truncated */
  CHECK(parse("c 1 0.000003:", &s));
  CHECK_EQ_INT(s.ts, 3000);
  CHECK(parse("c 1 00000000000000000000000000000000000000000000000000000000000000000001.5"
              "00000:", &s));
  CHECK_EQ_INT(s.ts, 1500000000LL);
  CHECK(parse("c 1 99999999999999999999.000000:", &s));
  CHECK_EQ_INT(s.ts, INT64_MIN);
  /* The first ':' that ends a timestamp wins; earlier ones are skipped. */
  CHECK(parse("a:b 3 4.000001: 1 cycles: x 9 8.000000:", &s));
  CHECK_EQ_INT(s.tid, 3);
  CHECK(comm_is(&s, "a:b"));
  CHECK_EQ_INT(s.ts, 4000001000LL);
  /* A colon whose fields do not read leaves the next one to try. */
  CHECK(parse("c x 1.000000: y 2 3.000000:", &s));
  CHECK_EQ_INT(s.tid, 2);
  CHECK(comm_is(&s, "c x 1.000000: y"));
  CHECK(!parse("", &s));
  CHECK(!parse("no timestamp here: at all", &s));
  CHECK(!parse("\tffffffff8162e91f foo+0x5f ([kernel.kallsyms])", &s));
}

static void test_without_comm_buffer(void) {
  io_perf_text_sample s;
  CHECK(io_perf_text_sample_line("c 7 1.000000:", 13, &s, NULL));
  CHECK_EQ_INT(s.comm_len, 0);
  /* The line ends where its length says. */
  CHECK(!io_perf_text_sample_line("c 7 1.000000:", 12, &s, NULL));
}

int main(void) {
  RUN_TEST(test_perf_default_line);
  RUN_TEST(test_pid_tid_cpu_and_spaced_comm);
  RUN_TEST(test_numbers_read_as_strtoul);
  RUN_TEST(test_timestamp_rules);
  RUN_TEST(test_without_comm_buffer);
  return CHECK_SUMMARY();
}
