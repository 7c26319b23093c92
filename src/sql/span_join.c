/* SPAN_JOIN / SPAN_LEFT_JOIN / SPAN_OUTER_JOIN (in progress). */
#include "sql/operators.h"

int span_join_register(sqlite3 *db, sql_engine *e) {
  (void)db, (void)e;
  return WEFT_OK;
}
