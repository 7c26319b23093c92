/* Scalar SQL functions that Perfetto's SQL offers. */
#include "sql/sql.h"

int sql_functions_register(sqlite3 *db, void *ctx) {
  (void)db, (void)ctx;
  return WEFT_OK;
}
