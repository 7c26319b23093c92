/* perf_text_line: see perf_text_line.h. */
#include "io/perf_text_line.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* Seconds longer than this (leading zeros aside) are out of int64 ns. */
#define PT_SECONDS_MAX_CHARS 64

static int pt_is_digit(char c) { return c >= '0' && c <= '9'; }
static int pt_is_blank(char c) { return c == ' ' || c == '\t'; }

/* Where the timestamp ending s[0, n) starts ("<digits>.<6 digits>" after
 * a space; the digits before the dot may be none), or -1. */
static long pt_ts_start(const char *s, size_t n) {
  if (n < 8) return -1;
  for (size_t i = n - 6; i < n; i++)
    if (!pt_is_digit(s[i])) return -1;
  if (s[n - 7] != '.') return -1;
  size_t i = n - 7;
  while (i > 0 && pt_is_digit(s[i - 1])) i--;
  if (i == 0 || s[i - 1] != ' ') return -1;
  return (long)i;
}

/* The seconds s[0, n) to ns as double * 1000 * 1000 * 1000, truncated;
 * INT64_MIN (what x86 gives for a double out of range) when too large. */
static int64_t pt_seconds_to_ns(const char *s, size_t n) {
  while (n > 1 && s[0] == '0' && s[1] != '.') s++, n--;
  if (n > PT_SECONDS_MAX_CHARS) return INT64_MIN;
  char buf[PT_SECONDS_MAX_CHARS + 1];
  memcpy(buf, s, n);
  buf[n] = '\0';
  double ns = strtod(buf, NULL) * 1000 * 1000 * 1000;
  if (!(ns < 9223372036854775808.0) || ns < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)ns;
}

/* s[0, n) as C's strtoul (base 10) reads a whole token, cut to 32 bits. */
static int pt_parse_u32(const char *s, size_t n, uint32_t *out) {
  uint64_t v;
  if (!base_parse_u64(s, n, &v)) return 0;
  *out = (uint32_t)v;
  return 1;
}

/* A piece of the line: [p, p + n). */
typedef struct pt_piece {
  const char *p;
  size_t n;
} pt_piece;

/* The last blank-separated piece of s[0, *n) that is not empty; *n
 * shrinks to before it. 0 when there is none. */
static int pt_last_piece(const char *s, size_t *n, pt_piece *out) {
  size_t end = *n;
  while (end > 0 && pt_is_blank(s[end - 1])) end--;
  if (end == 0) return 0;
  size_t start = end;
  while (start > 0 && !pt_is_blank(s[start - 1])) start--;
  *out = (pt_piece){s + start, end - start};
  *n = start;
  return 1;
}

/* "tid" or "pid/tid" (split on '/', empty parts skipped). */
static int pt_parse_ids(pt_piece id, io_perf_text_sample *out) {
  pt_piece parts[2];
  size_t count = 0, i = 0;
  while (i < id.n) {
    while (i < id.n && id.p[i] == '/') i++;
    if (i == id.n) break;
    size_t start = i;
    while (i < id.n && id.p[i] != '/') i++;
    if (count == 2) return 0;
    parts[count++] = (pt_piece){id.p + start, i - start};
  }
  if (count == 0) return 0;
  if (!pt_parse_u32(parts[count - 1].p, parts[count - 1].n, &out->tid)) return 0;
  out->has_pid = count == 2;
  return count == 1 || pt_parse_u32(parts[0].p, parts[0].n, &out->pid);
}

/* The comm: the pieces of s[0, n) joined by single spaces. */
static size_t pt_join_comm(const char *s, size_t n, char *comm) {
  size_t len = 0;
  for (size_t i = 0; i < n;) {
    while (i < n && pt_is_blank(s[i])) i++;
    if (i == n) break;
    if (len) comm[len++] = ' ';
    while (i < n && !pt_is_blank(s[i])) comm[len++] = s[i++];
  }
  return len;
}

/* The fields before a timestamp starting at `ts_at`. */
static int pt_fields(const char *line, size_t ts_at, io_perf_text_sample *out, char *comm) {
  size_t n = ts_at;
  pt_piece piece;
  if (!pt_last_piece(line, &n, &piece)) return 0;
  out->has_cpu = 0;
  if (piece.p[0] == '[' && piece.n >= 2 && piece.p[piece.n - 1] == ']') {
    if (!pt_parse_u32(piece.p + 1, piece.n - 2, &out->cpu)) return 0;
    out->has_cpu = 1;
    if (!pt_last_piece(line, &n, &piece)) return 0;
  }
  if (!pt_parse_ids(piece, out)) return 0;
  out->comm_len = comm ? pt_join_comm(line, n, comm) : 0;
  return 1;
}

int io_perf_text_sample_line(const char *line, size_t len, io_perf_text_sample *out,
                             char *comm) {
  memset(out, 0, sizeof *out);
  for (const char *colon = memchr(line, ':', len); colon;
       colon = memchr(colon + 1, ':', len - (size_t)(colon + 1 - line))) {
    size_t cln = (size_t)(colon - line);
    long at = pt_ts_start(line, cln);
    if (at < 0 || !pt_fields(line, (size_t)at, out, comm)) continue;
    out->ts = pt_seconds_to_ns(line + at, cln - (size_t)at);
    return 1;
  }
  return 0;
}
