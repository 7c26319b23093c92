/* Tests for the strace text line grammar (import/strace/strace_line). */
#include "check.h"
#include "import/strace/strace_line.h"

static strace_status parse(const char *s, strace_line *l) {
  return strace_line_parse(s, strlen(s), l);
}

static int span_is(const char *p, size_t n, const char *want) {
  return n == strlen(want) && memcmp(p, want, n) == 0;
}

static void test_complete_call_with_pid(void) {
  strace_line l;
  CHECK_EQ_INT(parse("1000 1700000052.321300 openat(AT_FDCWD, \"/nope\", O_RDONLY) = "
                     "-1 ENOENT (No such file or directory)\n", &l), STRACE_LINE_OK);
  CHECK_EQ_INT(l.has_pid, 1);
  CHECK_EQ_INT(l.pid, 1000);
  CHECK_EQ_INT(l.ts, 1700000052321300000LL);
  CHECK_EQ_INT(l.kind, STRACE_COMPLETE);
  CHECK(span_is(l.call, l.call_len, "openat"));
  CHECK(span_is(l.args, l.args_len, "AT_FDCWD, \"/nope\", O_RDONLY"));
  CHECK(l.has_ret && span_is(l.ret, l.ret_len, "-1 ENOENT (No such file or directory)"));
}

static void test_timestamps(void) {
  strace_line l;
  /* The fraction counts microseconds whatever its digits. */
  CHECK_EQ_INT(parse("1 1700000052.5 getpid() = 1", &l), STRACE_LINE_OK);
  CHECK_EQ_INT(l.ts, 1700000052000005000LL);
  CHECK_EQ_INT(parse("1 1700000052 getpid() = 1", &l), STRACE_LINE_OK);
  CHECK_EQ_INT(l.ts, 1700000052000000000LL);
  CHECK_EQ_INT(parse("1 1700000052.1234567 getpid() = 1", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("1 -5 getpid() = 1", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("1 99999999999999999999 getpid() = 1", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("1 14:32:01.123456 getpid() = 1", &l), STRACE_LINE_TIME_OF_DAY);
  CHECK_EQ_INT(parse("14:32:01 getpid() = 1", &l), STRACE_LINE_TIME_OF_DAY);
  /* Ten digits are the timestamp, not a pid. */
  CHECK_EQ_INT(parse("1700000052 getpid() = 1", &l), STRACE_LINE_OK);
  CHECK_EQ_INT(l.has_pid, 0);
}

static void test_unfinished_and_resumed(void) {
  strace_line l;
  CHECK_EQ_INT(parse("7 1700000000.000010 read(3,  <unfinished ...>", &l), STRACE_LINE_OK);
  CHECK_EQ_INT(l.kind, STRACE_UNFINISHED);
  CHECK(span_is(l.args, l.args_len, "3"));
  CHECK_EQ_INT(l.has_ret, 0);
  CHECK_EQ_INT(parse("7 1700000000.000020 <... read resumed> \"abc\", 1024) = 3", &l),
               STRACE_LINE_OK);
  CHECK_EQ_INT(l.kind, STRACE_RESUMED);
  CHECK(span_is(l.call, l.call_len, "read"));
  CHECK(span_is(l.args, l.args_len, "\"abc\", 1024"));
  CHECK(span_is(l.ret, l.ret_len, "3"));
  CHECK_EQ_INT(parse("7 1700000000.000030 <... futex resumed>)  = 0", &l), STRACE_LINE_OK);
  CHECK_EQ_INT(l.args_len, 0);
  CHECK(span_is(l.ret, l.ret_len, "0"));
  CHECK_EQ_INT(parse("7 1700000000.000040 <... epoll_wait resumed> {}, 64, -1 "
                     "<unfinished ...>", &l), STRACE_LINE_OK);
  CHECK_EQ_INT(l.kind, STRACE_RESUMED_UNFINISHED);
  CHECK(span_is(l.args, l.args_len, "{}, 64, -1"));
}

static void test_return_value_split(void) {
  strace_line l;
  /* The first ')' before '=' ends the args; a -T duration stays in ret. */
  CHECK_EQ_INT(parse("1 1700000000.1 close(3)        = 0 <0.000004>", &l), STRACE_LINE_OK);
  CHECK(span_is(l.args, l.args_len, "3"));
  CHECK(span_is(l.ret, l.ret_len, "0 <0.000004>"));
  CHECK_EQ_INT(parse("1 1700000000.1 getpid(x)\r= 1", &l), STRACE_LINE_OK);
  CHECK(span_is(l.args, l.args_len, "x"));
  /* Only spaces, tabs and newlines are trimmed. */
  CHECK_EQ_INT(parse("1 1700000000.1 getpid() = 2\r\n", &l), STRACE_LINE_OK);
  CHECK(span_is(l.ret, l.ret_len, "2\r"));
}

static void test_not_syscall_lines(void) {
  strace_line l;
  CHECK_EQ_INT(parse("--- SIGCHLD {si_signo=SIGCHLD} ---", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("+++ exited with 0 +++", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("[pid  1001] 1700000052.3 read(3) = 1", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("1 1700000052.3 foo(1) bar", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("1 1700000052.3", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("   ", &l), STRACE_LINE_FAILURE);
  CHECK_EQ_INT(parse("strace: Process 75 attached", &l), STRACE_LINE_TIME_OF_DAY);
}

int main(void) {
  RUN_TEST(test_complete_call_with_pid);
  RUN_TEST(test_timestamps);
  RUN_TEST(test_unfinished_and_resumed);
  RUN_TEST(test_return_value_split);
  RUN_TEST(test_not_syscall_lines);
  return CHECK_SUMMARY();
}
