/* server: SQL of the web view (view.h): a query's result as JSON, bounded
 * in rows, bytes and time. */
#ifndef WEFT_SERVER_VIEW_SQL_H
#define WEFT_SERVER_VIEW_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "rpc_wire.h"
#include "weft/weft.h"

#define VIEW_SQL_MAX_ROWS 10000u
#define VIEW_SQL_MAX_MS 10000u

/* Runs `sql` and writes the last result set as {"columns": [...], "rows":
 * [[...], ...], "truncated": bool} into out: at most max_rows rows; a
 * query still running after VIEW_SQL_MAX_MS is interrupted (weft_interrupt,
 * from a watchdog thread), rows or none. 0, or -1
 * with the message (SQL error, time limit, memory) in err. */
int view_sql_json(weft *w, const char *sql, size_t max_rows, rpc_buf *out, char *err,
                  size_t err_cap);

#endif
