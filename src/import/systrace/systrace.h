/* systrace: ftrace text (systrace, atrace, trace-cmd report) as a
 * sub-importer other formats reuse — the Chrome JSON importer feeds its
 * "systemTraceEvents" string through it.
 *
 * systrace_text_tokenize pushes one sort event per event line of a text
 * buffer (payload = payload_base + the line's offset in the buffer) on the
 * given clock; systrace_text_parse re-parses the line at an offset (or
 * takes what systrace_text_prepare decoded of it ahead, on the merging
 * thread) and applies it to the kernel model (model/sched.h,
 * model/atrace.h) with the file's machine. The buffer must stay alive and
 * unchanged from tokenize to the end of parsing; nothing here owns it. */
#ifndef WEFT_SYSTRACE_H
#define WEFT_SYSTRACE_H

#include "import/importer.h"

/* count_failures: lines that are not blank, '#' comments or known headers
 * ("cpus=N", "TRACE:") and still do not parse are counted in
 * systrace_parse_failure (they are dropped either way). A line longer than
 * weft_options.max_line_bytes (--max-line; 0 = 16 MiB) fails with
 * WEFT_ELIMIT and a message giving its line number in `text`. */
int systrace_text_tokenize(import_file *f, const char *text, size_t begin,
                           size_t end, uint32_t clock, uint64_t payload_base,
                           int count_failures, base_error *err);
/* Decodes the line at text[offset] into `out` (an importer_ops.prepare
 * slot) and returns the bytes used, 0 when it is not an event line. Pure. */
size_t systrace_text_prepare(const char *text, size_t len, size_t offset, void *out);
/* Applies the line at text[offset] (an offset a tokenize pushed) at trace
 * time ts; `prepared`: what systrace_text_prepare wrote for it, or NULL. */
int systrace_text_parse(import_file *f, const char *text, size_t len, size_t offset,
                        int64_t ts, const void *prepared, base_error *err);

#endif
