/* strace_line: see strace_line.h. */
#include "import/strace/strace_line.h"

#include "base/base.h"

#include <string.h>

#define STRACE_NS_PER_SEC INT64_C(1000000000)
#define STRACE_MAX_EPOCH_SECONDS (INT64_MAX / STRACE_NS_PER_SEC)

typedef struct strace_span {
  const char *p;
  size_t n;
} strace_span;

static int strace_is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int strace_is_digit(char c) { return c >= '0' && c <= '9'; }

/* Trimming takes off spaces, tabs and newlines only: a '\r' (CRLF text)
 * stays in the last field, as Perfetto keeps it. */
static int strace_is_trimmed(char c) { return c == ' ' || c == '\t' || c == '\n'; }

static strace_span strace_trim(strace_span s) {
  while (s.n && strace_is_trimmed(s.p[0])) s.p++, s.n--;
  while (s.n && strace_is_trimmed(s.p[s.n - 1])) s.n--;
  return s;
}

static strace_span strace_from(strace_span s, size_t off) {
  return (strace_span){s.p + off, s.n - off};
}

/* Index of the first c in s, or s.n. */
static size_t strace_find_byte(strace_span s, size_t from, char c) {
  const char *hit = from < s.n ? memchr(s.p + from, c, s.n - from) : NULL;
  return hit ? (size_t)(hit - s.p) : s.n;
}

/* Index of the first occurrence of lit in s from `from`, or s.n. */
static size_t strace_find(strace_span s, size_t from, const char *lit) {
  size_t n = strlen(lit);
  for (size_t i = from; i + n <= s.n; i++)
    if (s.p[i] == lit[0] && memcmp(s.p + i, lit, n) == 0) return i;
  return s.n;
}

/* "<secs>[.<usecs>]" to epoch ns; 0 when it is not one. */
static int strace_parse_epoch(strace_span tok, int64_t *ns) {
  size_t dot = strace_find_byte(tok, 0, '.');
  int64_t secs, usecs = 0;
  if (!base_parse_i64(tok.p, dot, &secs)) return 0; /* as strtoll reads it */
  if (secs < 0 || secs > STRACE_MAX_EPOCH_SECONDS) return 0;
  if (dot + 1 < tok.n) {
    if (!base_parse_i64(tok.p + dot + 1, tok.n - dot - 1, &usecs)) return 0;
    if (usecs < 0 || usecs > 999999) return 0;
  }
  *ns = secs * STRACE_NS_PER_SEC + usecs * 1000;
  return 1;
}

/* A leading pid: 1 to 9 digits before the first space. */
static void strace_take_pid(strace_span *rest, strace_line *out) {
  size_t sp = strace_find_byte(*rest, 0, ' ');
  if (sp == rest->n || sp == 0 || sp >= 10) return;
  uint32_t pid = 0;
  for (size_t i = 0; i < sp; i++) {
    if (!strace_is_digit(rest->p[i])) return;
    pid = pid * 10 + (uint32_t)(rest->p[i] - '0');
  }
  out->has_pid = 1;
  out->pid = pid;
  *rest = strace_trim(strace_from(*rest, sp + 1));
}

/* The call's name: "<... x resumed>" or "x(". */
static int strace_take_call(strace_span *rest, strace_line *out, int *resumed) {
  static const char prefix[] = "<... ", suffix[] = " resumed>";
  *resumed = rest->n >= 5 && memcmp(rest->p, prefix, 5) == 0;
  if (*resumed) {
    size_t end = strace_find(*rest, 5, suffix);
    if (end == rest->n) return 0;
    out->call = rest->p + 5;
    out->call_len = end - 5;
    *rest = strace_trim(strace_from(*rest, end + sizeof suffix - 1));
    return 1;
  }
  size_t paren = strace_find_byte(*rest, 0, '(');
  if (paren == rest->n) return 0;
  out->call = rest->p;
  out->call_len = paren;
  *rest = strace_from(*rest, paren + 1);
  return 1;
}

/* The first ')' that optional white space and '=' follow, or rest.n. */
static size_t strace_find_close(strace_span rest) {
  for (size_t pos = strace_find_byte(rest, 0, ')'); pos < rest.n;
       pos = strace_find_byte(rest, pos + 1, ')')) {
    size_t after = pos + 1;
    while (after < rest.n && strace_is_space(rest.p[after])) after++;
    if (after < rest.n && rest.p[after] == '=') return pos;
  }
  return rest.n;
}

static void strace_set_args(strace_line *out, strace_span args) {
  args = strace_trim(args);
  out->args = args.p;
  out->args_len = args.n;
}

static void strace_set_ret(strace_line *out, strace_span rest, size_t eq) {
  strace_span ret = strace_trim(strace_from(rest, eq + 1));
  out->ret = ret.p;
  out->ret_len = ret.n;
  out->has_ret = 1;
}

/* After the call's name: the args, then "<unfinished ...>" or the return. */
static strace_status strace_take_tail(strace_span rest, int resumed, strace_line *out) {
  size_t unfinished = strace_find(rest, 0, "<unfinished ...>");
  if (unfinished < rest.n) {
    strace_set_args(out, (strace_span){rest.p, unfinished});
    while (out->args_len && out->args[out->args_len - 1] == ',') out->args_len--;
    out->kind = resumed ? STRACE_RESUMED_UNFINISHED : STRACE_UNFINISHED;
    return STRACE_LINE_OK;
  }
  out->kind = resumed ? STRACE_RESUMED : STRACE_COMPLETE;
  size_t close = strace_find_close(rest);
  if (close == rest.n) { /* "<... x resumed>) = 0": nothing before ')' */
    size_t eq = strace_find_byte(rest, 0, '=');
    if (eq == rest.n) return STRACE_LINE_FAILURE;
    strace_set_ret(out, rest, eq);
    return STRACE_LINE_OK;
  }
  strace_set_args(out, (strace_span){rest.p, close});
  strace_set_ret(out, rest, strace_find_byte(rest, close + 1, '='));
  return STRACE_LINE_OK;
}

strace_status strace_line_parse(const char *s, size_t len, strace_line *out) {
  memset(out, 0, sizeof *out);
  strace_span rest = strace_trim((strace_span){s, len});
  if (rest.n == 0 || rest.p[0] == '-' || rest.p[0] == '+') return STRACE_LINE_FAILURE;
  strace_take_pid(&rest, out);
  size_t sp = strace_find_byte(rest, 0, ' ');
  if (sp == rest.n) return STRACE_LINE_FAILURE;
  strace_span tok = {rest.p, sp};
  if (strace_find_byte(tok, 0, ':') < tok.n) return STRACE_LINE_TIME_OF_DAY;
  if (!strace_parse_epoch(tok, &out->ts)) return STRACE_LINE_FAILURE;
  rest = strace_trim(strace_from(rest, sp + 1));
  int resumed;
  if (rest.n == 0 || !strace_take_call(&rest, out, &resumed)) return STRACE_LINE_FAILURE;
  return strace_take_tail(rest, resumed, out);
}
