/* io/sniff: content-based trace type detection (rules in sniff.h). */
#include "io/sniff.h"

#include "io/perf_text_line.h"

#include <string.h>

static const char *const io_type_names[IO_TRACE_COUNT] = {
    [IO_TRACE_UNKNOWN] = "unknown",
    [IO_TRACE_PROTO] = "proto",
    [IO_TRACE_JSON] = "json",
    [IO_TRACE_SYSTRACE] = "systrace",
    [IO_TRACE_GZIP] = "gzip",
    [IO_TRACE_ZIP] = "zip",
    [IO_TRACE_TAR] = "tar",
    [IO_TRACE_ZSTD] = "zstd",
    [IO_TRACE_CTRACE] = "ctrace",
    [IO_TRACE_PERFETTO_MANIFEST] = "perfetto_manifest",
    [IO_TRACE_SYMBOLS] = "symbols",
    [IO_TRACE_STRACE] = "strace",
    [IO_TRACE_SIMPLEPERF_PROTO] = "simpleperf_proto",
    [IO_TRACE_FUCHSIA] = "fuchsia",
    [IO_TRACE_PERF] = "perf",
    [IO_TRACE_PERF_TEXT] = "perf_text",
    [IO_TRACE_COLLAPSED_STACK] = "collapsed_stack",
    [IO_TRACE_GECKO] = "gecko",
    [IO_TRACE_ART_METHOD] = "art_method",
    [IO_TRACE_ART_HPROF] = "art_hprof",
    [IO_TRACE_NINJA_LOG] = "ninja_log",
    [IO_TRACE_INSTRUMENTS_XML] = "instruments_xml",
    [IO_TRACE_ANDROID_DUMPSTATE] = "android_dumpstate",
    [IO_TRACE_PRIMES] = "primes",
};

const char *io_trace_type_name(io_trace_type type) {
  if ((unsigned)type >= IO_TRACE_COUNT) return "unknown";
  return io_type_names[type];
}

bool io_trace_type_is_container(io_trace_type type) {
  return type == IO_TRACE_GZIP || type == IO_TRACE_ZIP ||
         type == IO_TRACE_TAR || type == IO_TRACE_ZSTD ||
         type == IO_TRACE_CTRACE;
}

/* ---- byte-string helpers (all bounded by explicit lengths) ---- */

typedef struct io_span {
  const uint8_t *p;
  size_t n;
} io_span;

static bool span_starts(io_span s, const char *lit) {
  size_t n = strlen(lit);
  return s.n >= n && memcmp(s.p, lit, n) == 0;
}

static bool span_contains(io_span s, const char *lit, size_t n) {
  if (n == 0) return true;
  for (size_t i = 0; i + n <= s.n; i++) {
    if (s.p[i] == (uint8_t)lit[0] && memcmp(s.p + i, lit, n) == 0) return true;
  }
  return false;
}

static bool magic_at(const uint8_t *d, size_t len, size_t off, const char *m,
                     size_t n) {
  return len >= off + n && memcmp(d + off, m, n) == 0;
}

static bool is_ascii_space(uint8_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
         c == '\r';
}

static bool is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

static uint8_t ascii_lower(uint8_t c) {
  return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

static bool span_starts_nocase(io_span s, const char *lit) {
  size_t n = strlen(lit);
  if (s.n < n) return false;
  for (size_t i = 0; i < n; i++) {
    if (ascii_lower(s.p[i]) != (uint8_t)lit[i]) return false;
  }
  return true;
}

/* ---- binary magics ---- */

static io_trace_type sniff_magic(const uint8_t *d, size_t len) {
  if (magic_at(d, len, 257, "ustar\0", 6)) return IO_TRACE_TAR;
  if (magic_at(d, len, 257, "ustar  \0", 8)) return IO_TRACE_TAR;
  if (magic_at(d, len, 0, "\x10\x00\x04\x46\x78\x54\x16\x00", 8))
    return IO_TRACE_FUCHSIA;
  if (magic_at(d, len, 0, "PERFILE2", 8)) return IO_TRACE_PERF;
  if (magic_at(d, len, 0, "SIMPLEPERF", 10)) return IO_TRACE_SIMPLEPERF_PROTO;
  if (magic_at(d, len, 0, "PK\x03\x04", 4)) return IO_TRACE_ZIP;
  if (magic_at(d, len, 0, "\x1f\x8b", 2)) return IO_TRACE_GZIP;
  if (magic_at(d, len, 0, "\x28\xb5\x2f\xfd", 4)) return IO_TRACE_ZSTD;
  if (magic_at(d, len, 0, "SLOW", 4)) return IO_TRACE_ART_METHOD;
  if (magic_at(d, len, 0, "JAVA PROFILE", 12)) return IO_TRACE_ART_HPROF;
  return IO_TRACE_UNKNOWN;
}

/* ---- JSON-like starts (whitespace removed) ---- */

static io_trace_type sniff_json(io_span head) {
  uint8_t buf[IO_SNIFF_LOOKAHEAD];
  size_t n = 0;
  for (size_t i = 0; i < head.n && n < sizeof buf; i++) {
    if (!is_ascii_space(head.p[i])) buf[n++] = head.p[i];
  }
  io_span s = {buf, n};
  if (span_starts(s, "{\"perfetto_manifest\"")) return IO_TRACE_PERFETTO_MANIFEST;
  if (span_starts(s, "{\"meta\"") || span_starts(s, "{\"libs\""))
    return IO_TRACE_GECKO;
  if (span_starts(s, "{\"") || span_starts(s, "[{\"")) return IO_TRACE_JSON;
  return IO_TRACE_UNKNOWN;
}

/* ---- strace -ttt first line ---- */

static io_span span_trim(io_span s) {
  while (s.n > 0 && is_ascii_space(s.p[0])) s.p++, s.n--;
  while (s.n > 0 && is_ascii_space(s.p[s.n - 1])) s.n--;
  return s;
}

static size_t span_find_byte(io_span s, uint8_t c) {
  for (size_t i = 0; i < s.n; i++) {
    if (s.p[i] == c) return i;
  }
  return s.n;
}

static size_t span_find(io_span s, const char *lit) {
  size_t n = strlen(lit);
  for (size_t i = 0; i + n <= s.n; i++) {
    if (memcmp(s.p + i, lit, n) == 0) return i;
  }
  return s.n;
}

static io_span span_from(io_span s, size_t off) {
  io_span r = {s.p + off, s.n - off};
  return r;
}

/* "SECONDS[.MICROS]" with SECONDS <= ~year 2286 and at most 6 fraction
 * digits of value <= 999999. */
static bool strace_epoch_ok(io_span tok) {
  size_t i = 0, whole = 0, frac = 0;
  while (i < tok.n && is_digit(tok.p[i])) i++, whole++;
  if (whole == 0 || whole > 10) return false;
  if (i < tok.n) {
    if (tok.p[i] != '.') return false;
    i++;
    while (i < tok.n && is_digit(tok.p[i])) i++, frac++;
    if (i != tok.n || frac > 6) return false;
  }
  return true;
}

static bool strace_call_ok(io_span rest) {
  if (span_starts(rest, "<... ")) {
    size_t end = span_find(rest, " resumed>");
    if (end == rest.n) return false;
    rest = span_from(rest, end + 9);
  } else {
    size_t paren = span_find_byte(rest, '(');
    if (paren == rest.n) return false;
    rest = span_from(rest, paren + 1);
  }
  if (span_find(rest, "<unfinished ...>") != rest.n) return true;
  return span_find_byte(rest, '=') != rest.n;
}

static bool sniff_strace_line(const uint8_t *d, size_t len) {
  io_span line = {d, len < IO_SNIFF_LINE_MAX ? len : IO_SNIFF_LINE_MAX};
  line.n = span_find_byte(line, '\n');
  io_span rest = span_trim(line);
  if (rest.n == 0 || rest.p[0] == '-' || rest.p[0] == '+') return false;
  size_t sp = span_find_byte(rest, ' ');
  if (sp < rest.n && sp > 0 && sp < 10) {
    bool digits = true;
    for (size_t i = 0; i < sp; i++) digits = digits && is_digit(rest.p[i]);
    if (digits) rest = span_trim(span_from(rest, sp + 1));
  }
  sp = span_find_byte(rest, ' ');
  if (sp == rest.n) return false;
  io_span tok = {rest.p, sp};
  if (!strace_epoch_ok(tok)) return false;
  rest = span_trim(span_from(rest, sp + 1));
  return rest.n > 0 && strace_call_ok(rest);
}

/* ---- collapsed stacks: "root;...;leaf count" lines ---- */

/* A line (not blank, not a comment) of frames with a ';' and a count of
 * digits after the last space. */
static bool collapsed_stack_line(io_span line) {
  while (line.n && is_ascii_space(line.p[0])) line.p++, line.n--;
  while (line.n && is_ascii_space(line.p[line.n - 1])) line.n--;
  size_t space = line.n;
  while (space > 0 && line.p[space - 1] != ' ') space--;
  if (space <= 1) return false; /* no space, or only a leading one */
  for (size_t i = space; i < line.n; i++)
    if (!is_digit(line.p[i])) return false;
  return memchr(line.p, ';', space - 1) != NULL;
}

/* The first three lines that are neither blank nor comments ('#') are
 * collapsed stack lines (at least one such line); a line the sniffed
 * prefix cuts counts as it is cut. */
static bool sniff_collapsed_stack(const uint8_t *d, size_t len) {
  io_span text = {d, len < IO_SNIFF_LINE_MAX ? len : IO_SNIFF_LINE_MAX};
  size_t valid = 0;
  while (text.n && valid < 3) {
    size_t nl = span_find_byte(text, '\n');
    io_span line = {text.p, nl};
    size_t start = 0;
    while (start < line.n && is_ascii_space(line.p[start])) start++;
    if (start < line.n && line.p[start] != '#') {
      if (!collapsed_stack_line(line)) return false;
      valid++;
    }
    text = nl < text.n ? span_from(text, nl + 1) : span_from(text, text.n);
  }
  return valid > 0;
}

/* ---- perf script text: the first line is a sample's ---- */

static bool sniff_perf_text(const uint8_t *d, size_t len) {
  io_span line = {d, len < IO_SNIFF_LINE_MAX ? len : IO_SNIFF_LINE_MAX};
  size_t nl = span_find_byte(line, '\n');
  io_perf_text_sample sample;
  return nl < line.n && io_perf_text_sample_line((const char *)d, nl, &sample, NULL);
}

/* ---- proto-ish starts ---- */

/* Reads a base-128 varint; returns bytes consumed or 0 if malformed/short. */
static size_t read_varint(const uint8_t *p, size_t n, uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = 0; i < n && i < 10; i++) {
    v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    if (!(p[i] & 0x80)) {
      *out = v;
      return i + 1;
    }
  }
  return 0;
}

/* Trace.packet (field 1, length-delimited) whose first field is
 * TracePacket.module_symbols (field 61, length-delimited: tag 490). */
static bool sniff_symbols(const uint8_t *d, size_t len) {
  uint64_t tag, field_len, inner;
  size_t off = read_varint(d, len, &tag);
  if (off == 0 || tag != 0x0a) return false;
  size_t k = read_varint(d + off, len - off, &field_len);
  if (k == 0 || field_len == 0) return false;
  off += k;
  k = read_varint(d + off, len - off, &inner);
  return k != 0 && inner == ((61u << 3) | 2u);
}

static io_trace_type sniff_text(const uint8_t *d, size_t len, io_span head) {
  if (span_starts(head, "*version\n")) return IO_TRACE_ART_METHOD;
  if (span_contains(head, "# tracer", 8)) return IO_TRACE_SYSTRACE;
  if (span_starts_nocase(head, "<!doctype html>") ||
      span_starts_nocase(head, "<html>"))
    return IO_TRACE_SYSTRACE;
  if (span_starts(head, "<?xml version=\"1.0\"?>\n<trace-query-result>"))
    return IO_TRACE_INSTRUMENTS_XML;
  if (span_contains(head, "TRACE:\n\x78\x9c", 9)) return IO_TRACE_CTRACE;
  if (span_contains(head, "TRACE:\n", 7)) return IO_TRACE_SYSTRACE;
  if (span_starts(head, "cpus=")) return IO_TRACE_SYSTRACE;
  if (span_starts(head, "# ninja log")) return IO_TRACE_NINJA_LOG;
  if (sniff_strace_line(d, len)) return IO_TRACE_STRACE;
  if (sniff_collapsed_stack(d, len)) return IO_TRACE_COLLAPSED_STACK;
  if (sniff_perf_text(d, len)) return IO_TRACE_PERF_TEXT;
  if (span_starts(head, " ")) return IO_TRACE_SYSTRACE;
  return IO_TRACE_UNKNOWN;
}

static io_trace_type sniff_binary_start(const uint8_t *d, size_t len,
                                        io_span head) {
  if (sniff_symbols(d, len < IO_SNIFF_LOOKAHEAD ? len : IO_SNIFF_LOOKAHEAD))
    return IO_TRACE_SYMBOLS;
  if (head.p[0] == 0x0a) return IO_TRACE_PROTO;
  if (head.p[0] == 0x09) return IO_TRACE_PRIMES;
  if (span_starts(head, "9,0,i,vers,")) return IO_TRACE_ANDROID_DUMPSTATE;
  if (span_starts(head, "========================================================"
                        "\n== dumpstate: "))
    return IO_TRACE_ANDROID_DUMPSTATE;
  return IO_TRACE_UNKNOWN;
}

io_trace_type io_sniff(const uint8_t *data, size_t len) {
  if (data == NULL || len == 0) return IO_TRACE_UNKNOWN;
  io_trace_type t = sniff_magic(data, len);
  if (t != IO_TRACE_UNKNOWN) return t;
  io_span head = {data, len < IO_SNIFF_LOOKAHEAD ? len : IO_SNIFF_LOOKAHEAD};
  t = sniff_json(head);
  if (t != IO_TRACE_UNKNOWN) return t;
  t = sniff_text(data, len, head);
  if (t != IO_TRACE_UNKNOWN) return t;
  return sniff_binary_start(data, len, head);
}
