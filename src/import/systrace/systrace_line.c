/* The ftrace text line grammar. See systrace_line.h. */
#include "import/systrace/systrace_line.h"

#include <string.h>

static int systrace_is_digit(char c) { return c >= '0' && c <= '9'; }
static int systrace_is_space(char c) { return c == ' ' || c == '\t'; }

/* Nanoseconds as Perfetto reads them: the seconds as the nearest double,
 * times 1e9 in double arithmetic, truncated toward zero (so 16543.267459
 * is 16543267458999 ns). exact_ns is the text's exact value in ns. Below
 * 2^53 ns the division of two exact doubles is that nearest double; above,
 * long double narrows the gap to it. */
static int64_t systrace_ns_as_double_seconds(uint64_t exact_ns) {
  double secs;
  if (exact_ns < (UINT64_C(1) << 53)) secs = (double)exact_ns / 1e9;
  else secs = (double)((long double)exact_ns / 1e9L);
  return (int64_t)(secs * 1e9);
}

int systrace_parse_ts(const char *s, size_t len, int64_t *ns) {
  size_t i = 0;
  uint64_t secs = 0, frac = 0;
  while (i < len && systrace_is_digit(s[i])) {
    if (i >= 12) return 0;
    secs = secs * 10 + (uint64_t)(s[i++] - '0');
  }
  if (i == 0 || i == len || s[i] != '.') return 0;
  size_t digits = 0;
  for (i++; i < len; i++, digits++) {
    if (!systrace_is_digit(s[i]) || digits >= 9) return 0;
    frac = frac * 10 + (uint64_t)(s[i] - '0');
  }
  if (digits == 0) return 0;
  for (; digits < 9; digits++) frac *= 10;
  /* Past int64 nanoseconds: a negative time, which the loader drops and
   * counts in trace_sorter_negative_timestamp_dropped, as Perfetto does. */
  if (secs >= UINT64_C(9223372036)) *ns = INT64_MIN;
  else *ns = systrace_ns_as_double_seconds(secs * 1000000000ULL + frac);
  return 1;
}

int systrace_parse_int(const char *s, size_t len, int64_t *out) {
  size_t i = 0;
  int neg = 0, hex = 0;
  if (len && s[0] == '-') { neg = 1; i = 1; }
  if (len - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) { hex = 1; i += 2; }
  if (i == len) return 0;
  uint64_t v = 0;
  for (size_t n = 0; i < len; i++, n++) {
    int d;
    char c = s[i];
    if (systrace_is_digit(c)) d = c - '0';
    else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return 0;
    if (n >= (hex ? 16u : 19u)) return 0;
    v = v * (hex ? 16 : 10) + (uint64_t)d;
  }
  *out = neg ? (int64_t)(0 - v) : (int64_t)v;
  return 1;
}

/* The cpu column "[ddd]" at or after `from`: index of '[' or len. */
static size_t systrace_find_cpu(const char *s, size_t len, size_t from) {
  for (size_t i = from; i + 2 < len; i++) {
    if (s[i] != '[' || !systrace_is_digit(s[i + 1])) continue;
    size_t j = i + 1;
    while (j < len && systrace_is_digit(s[j])) j++;
    if (j < len && s[j] == ']' && i > 0 && systrace_is_space(s[i - 1])) return i;
  }
  return len;
}

/* Parses "<task>-<tid> [(tgid)]" in s[0, end). */
static int systrace_parse_task(const char *s, size_t end, systrace_line *out) {
  while (end > 0 && systrace_is_space(s[end - 1])) end--;
  out->has_tgid = 0;
  if (end > 0 && s[end - 1] == ')') {
    size_t open = end - 1;
    while (open > 0 && s[open] != '(') open--;
    if (s[open] != '(') return 0;
    size_t a = open + 1, b = end - 1;
    while (a < b && systrace_is_space(s[a])) a++;
    if (a < b && s[a] != '-') {
      if (!systrace_parse_int(s + a, b - a, &out->tgid)) return 0;
      out->has_tgid = 1;
    }
    end = open;
    while (end > 0 && systrace_is_space(s[end - 1])) end--;
  }
  size_t dash = end;
  while (dash > 0 && s[dash - 1] != '-') dash--;
  if (dash == 0 || dash == end) return 0;
  if (!systrace_parse_int(s + dash, end - dash, &out->tid) || out->tid < 0) return 0;
  size_t start = 0;
  while (start < dash - 1 && systrace_is_space(s[start])) start++;
  out->task = s + start;
  out->task_len = dash - 1 - start;
  return 1;
}

static int systrace_is_flag(char c) {
  return systrace_is_digit(c) || c == '.' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}


/* Reads "<flags> <ts>" / "<flags><ts>" / "<ts>" in s[0, len), the text
 * between the cpu column and the ": " after the timestamp, as Perfetto
 * does: past the blanks, a digit starts the timestamp; anything else
 * starts the flags, up to five [a-zA-Z0-9.] characters, then blanks, then
 * the timestamp, which is all the rest. So "....316.196720" is at
 * 16.19672 s, and "ab316.196740" or "1234 16.1" is no line. */
static int systrace_parse_flags_ts(const char *s, size_t len, int64_t *ts) {
  while (len && systrace_is_space(s[len - 1])) len--;
  size_t i = 0;
  while (i < len && systrace_is_space(s[i])) i++;
  if (i < len && !systrace_is_digit(s[i])) {
    for (size_t flags = 0; flags < 5 && i < len && systrace_is_flag(s[i]); flags++) i++;
    while (i < len && systrace_is_space(s[i])) i++;
  }
  return systrace_parse_ts(s + i, len - i, ts);
}

int systrace_line_is_ignorable(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && (systrace_is_space(s[i]) || s[i] == '\r')) i++;
  if (i == len || s[i] == '#') return 1;
  s += i;
  len -= i;
  return (len >= 5 && memcmp(s, "cpus=", 5) == 0) ||
         (len >= 6 && memcmp(s, "TRACE:", 6) == 0);
}

int systrace_line_parse(const char *s, size_t len, systrace_line *out) {
  memset(out, 0, sizeof *out);
  while (len && (s[len - 1] == '\r' || s[len - 1] == '\n')) len--;
  size_t i = 0;
  while (i < len && systrace_is_space(s[i])) i++;
  if (i == len || s[i] == '#') return 0;
  size_t cpu_at = systrace_find_cpu(s, len, i);
  if (cpu_at == len) return 0;
  if (!systrace_parse_task(s, cpu_at, out)) return 0;
  size_t j = cpu_at + 1;
  int64_t cpu = 0;
  size_t k = j;
  while (k < len && systrace_is_digit(s[k])) k++;
  if (!systrace_parse_int(s + j, k - j, &cpu) || cpu > 0xffffff) return 0;
  out->cpu = (uint32_t)cpu;
  j = k + 1; /* past ']' */
  /* The timestamp ends at the first ": " after the cpu column. */
  size_t colon = j;
  while (colon + 1 < len && !(s[colon] == ':' && systrace_is_space(s[colon + 1]))) colon++;
  if (colon + 1 >= len) return 0;
  if (!systrace_parse_flags_ts(s + j, colon - j, &out->ts)) return 0;
  size_t ev = colon + 1;
  while (ev < len && systrace_is_space(s[ev])) ev++;
  size_t ev_end = ev;
  while (ev_end < len && s[ev_end] != ':' && !systrace_is_space(s[ev_end])) ev_end++;
  if (ev_end == ev || ev_end >= len || s[ev_end] != ':') return 0;
  out->event = s + ev;
  out->event_len = ev_end - ev;
  size_t a = ev_end + 1;
  if (a < len && systrace_is_space(s[a])) a++;
  out->args = s + a;
  out->args_len = a < len ? len - a : 0;
  return 1;
}

int systrace_args_next(const char *args, size_t len, size_t *pos,
                       systrace_arg *out) {
  size_t i = *pos;
  for (;;) {
    while (i < len && systrace_is_space(args[i])) i++;
    if (i >= len) {
      *pos = len;
      return 0;
    }
    size_t w = i;
    while (i < len && !systrace_is_space(args[i])) i++;
    const char *eq = memchr(args + w, '=', i - w);
    if (!eq || eq == args + w) continue; /* "==>" or stray words */
    out->key = args + w;
    out->key_len = (size_t)(eq - (args + w));
    out->value = eq + 1;
    /* Following words without '=' continue the value. */
    size_t end = i;
    for (;;) {
      size_t n = end;
      while (n < len && systrace_is_space(args[n])) n++;
      if (n >= len) break;
      size_t we = n;
      while (we < len && !systrace_is_space(args[we])) we++;
      if (memchr(args + n, '=', we - n)) break;
      end = we;
    }
    out->value_len = (size_t)(args + end - out->value);
    *pos = end;
    return 1;
  }
}

int systrace_args_find(const char *args, size_t len, const char *key,
                       const char **value, size_t *value_len) {
  size_t pos = 0, klen = strlen(key);
  systrace_arg a;
  while (systrace_args_next(args, len, &pos, &a)) {
    if (a.key_len == klen && memcmp(a.key, key, klen) == 0) {
      *value = a.value;
      *value_len = a.value_len;
      return 1;
    }
  }
  return 0;
}
