/* core: in-process read access to a loaded instance's tables, for readers
 * in the same binary (the web view) that take whole columns at a time
 * instead of rows through SQL. */
#ifndef WEFT_CORE_WEFT_CONTEXT_H
#define WEFT_CORE_WEFT_CONTEXT_H

#include "model/context.h"
#include "weft/weft.h"

/* Finishes the load if it is not finished (as weft_query does) and sets
 * *out to the trace context the SQL engine reads: valid, and not to be
 * written, until the instance is closed. WEFT_OK, or the load's error. */
int weft_loaded_context(weft *w, const trace_context **out);

#endif
