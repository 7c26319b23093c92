/* import_log: the rows of _trace_import_logs, Perfetto's log of what an
 * import could not read or had to repair: a stat's name and severity, the
 * trace file, a time (parse-time logs) or a byte offset (tokenize-time
 * ones), and an arg set saying what was found.
 *
 * Owns nothing: it appends to the table in the context. The caller counts
 * the stat itself (a log row never counts). */
#ifndef WEFT_MODEL_IMPORT_LOG_H
#define WEFT_MODEL_IMPORT_LOG_H

#include <stdint.h>

#include "model/stats.h"

typedef struct trace_context trace_context;

/* A _trace_import_logs row for `stat` (its name and severity) at ts in
 * trace file `trace` (-1: none), with the args in arg_set (-1: none). The
 * caller counts the stat itself. */
int model_import_log(trace_context *ctx, int64_t trace, int64_t ts, stats_id stat,
                     int64_t arg_set);
/* The same for a failure found while tokenizing: no ts, the byte offset in
 * the file where it was found. */
int model_import_log_at_byte(trace_context *ctx, int64_t trace, int64_t byte_offset,
                             stats_id stat, int64_t arg_set);

#endif
