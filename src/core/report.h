/* report: the after-load summary of what was dropped and why, in words a
 * user can act on ("412 events of app.json could not be placed: ...").
 *
 * Reads the stats store, trace_file and machine tables of a loaded context;
 * owns nothing. Only non-zero stats of severity error or data_loss are reported, one
 * line each, in the stats store's first-touch order. */
#ifndef WEFT_REPORT_H
#define WEFT_REPORT_H

#include "model/context.h"

/* Writes the lines into buf (always NUL-terminated, truncated to cap);
 * returns the number of lines (stats) reported, even past cap. A file is
 * named by its trace_file row, else `single_name` (the lone input, whose
 * row has no name; may be NULL). */
int report_error_stats(trace_context *ctx, const char *single_name, char *buf,
                       size_t cap);

#endif
