/* perf_text_line: the first line of a sample in `perf script` text (and
 * simpleperf's equivalent), e.g.
 *
 *     trace_processor 3962131 303057.417513:          1 cpu_atom/cycles/Pu:
 *     bash  1024/1025 [3] 303057.417513: ...
 *
 * perf script's fields are configurable, so the line is read from its
 * timestamp back: the first ':' whose text before it ends in
 * " <digits>.<6 digits>" ends the timestamp (seconds, to ns as
 * double * 1000 * 1000 * 1000, truncated). Before it, split on spaces and
 * tabs (empty pieces skipped): an optional "[cpu]" last, then "tid" or
 * "pid/tid" (the '/' pieces, empty ones skipped), then the comm, its
 * pieces joined by single spaces. Numbers read as C's strtoul does, then
 * cut to 32 bits ("-1" is 4294967295). A ':' whose text does not fit
 * leaves the next one to try. It is what Perfetto's perf text importer
 * reads; io_sniff recognises the format by it, the importer
 * (import/perf_text) reads each sample with it. Pure: no allocation. */
#ifndef WEFT_IO_PERF_TEXT_LINE_H
#define WEFT_IO_PERF_TEXT_LINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct io_perf_text_sample {
  int64_t ts;      /* ns; INT64_MIN when the seconds do not fit */
  uint32_t tid, pid, cpu;
  int has_pid, has_cpu;
  size_t comm_len; /* bytes written to the comm buffer */
} io_perf_text_sample;

/* 1 and *out when line[0, len) (no newline) is a sample's first line,
 * else 0. The comm is written to comm[0, comm_len) when comm is not NULL:
 * it must hold len bytes (a comm is never longer than its line). */
int io_perf_text_sample_line(const char *line, size_t len, io_perf_text_sample *out,
                             char *comm);

#endif
