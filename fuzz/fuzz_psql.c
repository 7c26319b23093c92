/* PerfettoSQL preprocessor: the input runs as SQL text on an engine with no
 * trace tables, through psql's statement splitting, PERFETTO statements,
 * macro expansion, includes and function calls. SQLite's own work is
 * bounded (a step budget per input and a small value length), so a finding
 * is a crash, a sanitizer report, a leak, or a failure without a message. */
#include "fuzz_common.h"

#include <sqlite3.h>

#include "sql/sql.h"

#define FUZZ_PSQL_STEPS 200000 /* SQLite VM steps / 1000 per input */

static int fuzz_psql_budget(void *user) {
  int *left = user;
  return --*left <= 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *sql = malloc(size + 1);
  if (!sql) return 0;
  memcpy(sql, data, size);
  sql[size] = '\0';
  base_string_pool strings;
  if (base_string_pool_init(&strings) != WEFT_OK) {
    free(sql);
    return 0;
  }
  sql_engine *engine = NULL;
  base_error err = {0};
  if (sql_engine_open(&engine, NULL, 0, &strings, &err) == WEFT_OK) {
    sqlite3 *db = sql_engine_db(engine);
    int left = FUZZ_PSQL_STEPS / 1000;
    sqlite3_progress_handler(db, 1000, fuzz_psql_budget, &left);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    int rc = sql_engine_execute(engine, sql, NULL, &err);
    FUZZ_CHECK(rc == WEFT_OK || (rc < 0 && err.message[0]));
    sql_engine_close(engine);
  }
  base_string_pool_free(&strings);
  free(sql);
  return 0;
}
