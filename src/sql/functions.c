/* Scalar SQL functions that Perfetto's SQL offers. */
#include "sql/functions_prelude.h"

/* Column positions in __intrinsic_args (see storage/schema.h). */
static int functions_args_column(const storage_table *t, const char *name) {
  return storage_table_find_column(t, name);
}

/* EXTRACT_ARG(arg_set_id, key): the typed value of `key` in the arg set, or
 * NULL (also for a NULL set); a set id that is not an integer, or a key
 * that is not text, is an error. arg_set_id is sorted in the args table: binary search, then scan the
 * set's rows. */
static void functions_extract_arg(sqlite3_context *ctx, int argc,
                                  sqlite3_value **argv) {
  (void)argc;
  sql_engine *e = sqlite3_user_data(ctx);
  int set_type = sqlite3_value_type(argv[0]);
  if (set_type == SQLITE_NULL) return;
  if (set_type != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "EXTRACT_ARG: 1st argument should be arg set id", -1);
    return;
  }
  if (sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
    sqlite3_result_error(ctx, "EXTRACT_ARG: 2nd argument should be key", -1);
    return;
  }
  storage_table *t = sql_engine_find_table(e, "__intrinsic_args");
  if (!t) return;
  base_string_pool *strings = sql_engine_strings(e);
  string_id key = base_string_pool_find(
      strings, (const char *)sqlite3_value_text(argv[1]),
      (size_t)sqlite3_value_bytes(argv[1]));
  if (key == STRING_NULL) return;
  int set_col = functions_args_column(t, "arg_set_id");
  int key_col = functions_args_column(t, "key");
  int int_col = functions_args_column(t, "int_value");
  int str_col = functions_args_column(t, "string_value");
  int real_col = functions_args_column(t, "real_value");
  int64_t set = sqlite3_value_int64(argv[0]);
  size_t row = storage_lower_bound_i64(t, (size_t)set_col, 0, t->row_count, set, 0);
  for (; row < t->row_count && storage_get_i64(t, (size_t)set_col, row) == set; row++) {
    if (storage_get_str(t, (size_t)key_col, row) != key) continue;
    if (!storage_is_null(t, (size_t)int_col, row)) {
      sqlite3_result_int64(ctx, storage_get_i64(t, (size_t)int_col, row));
    } else if (!storage_is_null(t, (size_t)real_col, row)) {
      sqlite3_result_double(ctx, storage_get_f64(t, (size_t)real_col, row));
    } else {
      string_id v = storage_get_str(t, (size_t)str_col, row);
      if (v != STRING_NULL)
        sqlite3_result_text(ctx, base_string_pool_get(strings, v),
                            (int)base_string_pool_len(strings, v), SQLITE_STATIC);
    }
    return;
  }
}

int sql_functions_register(sqlite3 *db, sql_engine *e) {
  int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  if (sqlite3_create_function(db, "extract_arg", 2, flags, e,
                              functions_extract_arg, NULL, NULL) != SQLITE_OK)
    return WEFT_ESQL;
  int rc = sql_metadata_functions_register(db, e);
  if (!rc) rc = sql_to_ftrace_register(db, e);
  if (!rc) rc = sql_clock_functions_register(db, e);
  if (!rc) rc = sql_regex_functions_register(db);
  if (!rc) rc = sql_text_functions_register(db);
  if (!rc) rc = sql_math_functions_register(db);
  if (!rc) rc = sql_slice_functions_register(db, e);
  if (!rc) rc = sql_args_json_functions_register(db, e);
  return rc;
}
