/* extract_metadata(name) and extract_metadata_for_machine(machine_id, name):
 * the typed value of a metadata key. extract_metadata prefers the host
 * machine's row (machine_id 0 or NULL); both return NULL when absent. */
#include "sql/sql.h"

static void metadata_result(sqlite3_context *ctx, sql_engine *e, const storage_table *t,
                            size_t row) {
  int int_col = storage_table_find_column(t, "int_value");
  int str_col = storage_table_find_column(t, "str_value");
  if (int_col < 0 || str_col < 0) return;
  if (!storage_is_null(t, (size_t)int_col, row)) {
    sqlite3_result_int64(ctx, storage_get_i64(t, (size_t)int_col, row));
    return;
  }
  string_id v = storage_get_str(t, (size_t)str_col, row);
  base_string_pool *strings = sql_engine_strings(e);
  if (v != STRING_NULL)
    sqlite3_result_text(ctx, base_string_pool_get(strings, v),
                        (int)base_string_pool_len(strings, v), SQLITE_STATIC);
}

/* Finds the first row named `name` whose machine_id satisfies the filter:
 * machine >= 0 exact match; machine < 0 host (0 or NULL) first, else any. */
static void metadata_lookup(sqlite3_context *ctx, sqlite3_value *name_value,
                            int64_t machine) {
  sql_engine *e = sqlite3_user_data(ctx);
  storage_table *t = sql_engine_find_table(e, "metadata");
  if (!t || sqlite3_value_type(name_value) != SQLITE_TEXT) return;
  string_id key = base_string_pool_find(sql_engine_strings(e),
                                        (const char *)sqlite3_value_text(name_value),
                                        (size_t)sqlite3_value_bytes(name_value));
  int name_col = storage_table_find_column(t, "name");
  int machine_col = storage_table_find_column(t, "machine_id");
  if (key == STRING_NULL || name_col < 0 || machine_col < 0) return;
  size_t any = SIZE_MAX;
  for (size_t row = 0; row < t->row_count; row++) {
    if (storage_get_str(t, (size_t)name_col, row) != key) continue;
    int64_t m = storage_get_i64_or(t, (size_t)machine_col, row, -1);
    if (machine >= 0 ? m == machine : m <= 0) {
      metadata_result(ctx, e, t, row);
      return;
    }
    if (any == SIZE_MAX) any = row;
  }
  if (machine < 0 && any != SIZE_MAX) metadata_result(ctx, e, t, any);
}

static void functions_extract_metadata(sqlite3_context *ctx, int argc,
                                       sqlite3_value **argv) {
  (void)argc;
  metadata_lookup(ctx, argv[0], -1);
}

static void functions_extract_metadata_for_machine(sqlite3_context *ctx, int argc,
                                                   sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) return;
  int64_t machine = sqlite3_value_int64(argv[0]);
  if (machine < 0) return;
  metadata_lookup(ctx, argv[1], machine);
}

int sql_metadata_functions_register(sqlite3 *db, sql_engine *e) {
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  if (sqlite3_create_function(db, "extract_metadata", 1, flags, e,
                              functions_extract_metadata, NULL, NULL) != SQLITE_OK ||
      sqlite3_create_function(db, "extract_metadata_for_machine", 2, flags, e,
                              functions_extract_metadata_for_machine, NULL, NULL) != SQLITE_OK)
    return WEFT_ESQL;
  return WEFT_OK;
}
