/* io/sniff: decides what a trace file is from its first bytes only.
 *
 * Owns the trace-type vocabulary (io_trace_type) and its names, which are
 * exactly the `trace_type` strings Perfetto reports (metadata.trace_type,
 * __intrinsic_trace_file.trace_type). Detection never looks at file names and
 * reads at most IO_SNIFF_TAR_BYTES (tar magic at offset 257) or, for text
 * formats, the first IO_SNIFF_LOOKAHEAD bytes (strace and perf text: the
 * first line, capped at IO_SNIFF_LINE_MAX bytes). It is pure: no allocation, no failure.
 *
 * Rules, checked in this order (first match wins):
 *   len == 0                                  unknown
 *   "ustar\0" or "ustar  \0" at offset 257    tar
 *   10 00 04 46 78 54 16 00                   fuchsia
 *   "PERFILE2"                                perf
 *   "SIMPLEPERF"                              simpleperf_proto
 *   "PK\3\4"                                  zip
 *   1f 8b                                     gzip
 *   28 b5 2f fd                               zstd
 *   "SLOW"                                    art_method
 *   "JAVA PROFILE"                            art_hprof
 *   Then on the lookahead with all ASCII whitespace removed:
 *   {"perfetto_manifest"                      perfetto_manifest
 *   {"meta"  or  {"libs"                      gecko
 *   {"  or  [{"                               json
 *   Then on the raw lookahead:
 *   starts "*version\n"                       art_method
 *   contains "# tracer"                       systrace
 *   starts "<!doctype html>"/"<html>" (any case)  systrace (HTML-wrapped)
 *   starts "<?xml version=\"1.0\"?>\n<trace-query-result>"  instruments_xml
 *   contains "TRACE:\n" 78 9c                 ctrace (zlib systrace)
 *   contains "TRACE:\n"                       systrace
 *   starts "cpus="                            systrace (trace-cmd report)
 *   starts "# ninja log"                      ninja_log
 *   first line is a `strace -ttt` syscall line  strace
 *   the first 3 lines neither blank nor '#' are "a;b;c 12" lines
 *     (digits after the last space, a ';' before it)   collapsed_stack
 *   first line (newline-ended) is a `perf script` sample line
 *     (io/perf_text_line.h)                   perf_text
 *   starts " "                                systrace (task lines)
 *   0a <varint len>0> <tag 490 (module_symbols)>  symbols
 *   starts 0a (Trace.packet, length-delimited)    proto
 *   starts 09                                 primes
 *   starts "9,0,i,vers," or the dumpstate banner  android_dumpstate
 *   otherwise                                 unknown
 * Not detected (reported as unknown/other): android_logcat, pprof (a pprof profile whose first field is 1 is "proto"). */
#ifndef WEFT_IO_SNIFF_H
#define WEFT_IO_SNIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IO_SNIFF_LOOKAHEAD 128
#define IO_SNIFF_TAR_BYTES 265
#define IO_SNIFF_LINE_MAX 4096
/* The most io_sniff reads: a prefix this long sniffs as the whole file. */
#define IO_SNIFF_PREFIX_BYTES IO_SNIFF_LINE_MAX

typedef enum io_trace_type {
  IO_TRACE_UNKNOWN = 0,
  IO_TRACE_PROTO,
  IO_TRACE_JSON,
  IO_TRACE_SYSTRACE,
  IO_TRACE_GZIP,
  IO_TRACE_ZIP,
  IO_TRACE_TAR,
  IO_TRACE_ZSTD,
  IO_TRACE_CTRACE,
  IO_TRACE_PERFETTO_MANIFEST,
  IO_TRACE_SYMBOLS,
  IO_TRACE_STRACE,
  IO_TRACE_SIMPLEPERF_PROTO,
  IO_TRACE_FUCHSIA,
  IO_TRACE_PERF,
  IO_TRACE_GECKO,
  IO_TRACE_ART_METHOD,
  IO_TRACE_ART_HPROF,
  IO_TRACE_NINJA_LOG,
  IO_TRACE_INSTRUMENTS_XML,
  IO_TRACE_ANDROID_DUMPSTATE,
  IO_TRACE_PRIMES,
  IO_TRACE_PERF_TEXT,
  IO_TRACE_COLLAPSED_STACK,
  IO_TRACE_COUNT
} io_trace_type;

/* Detects the type of a complete (or partial: a prefix is enough) buffer.
 * data may be NULL when len == 0. */
io_trace_type io_sniff(const uint8_t *data, size_t len);

/* Perfetto's name for the type ("proto", "json", ...); "unknown" for values
 * out of range. Never NULL. */
const char *io_trace_type_name(io_trace_type type);

/* True for types whose content is unpacked by io/archive into members:
 * gzip, zip, tar, zstd, ctrace. */
bool io_trace_type_is_container(io_trace_type type);

#endif
