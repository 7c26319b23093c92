/* slice_is_ancestor(ancestor_id, descendant_id): whether the first slice
 * is a strict ancestor of the second, found by walking the descendant's
 * parent_id chain. NULL when either is NULL or names no slice; an argument
 * that is not an integer is an error worded as PerfettoSQL's argument
 * check words it. */
#include <stdio.h>

#include "sql/functions_prelude.h"

/* Reports a non-integer argument `i`; 1 if it did. */
static int slice_arg_type_error(sqlite3_context *ctx, sqlite3_value *v, int i) {
  int type = sqlite3_value_type(v);
  if (type == SQLITE_INTEGER || type == SQLITE_NULL) return 0;
  const unsigned char *text = sqlite3_value_text(v);
  char buf[256];
  snprintf(buf, sizeof buf,
           "slice_is_ancestor[arg=%.100s]: argument %d does not have expected type: "
           "expected LONG, actual %s",
           text ? (const char *)text : "", i,
           type == SQLITE_FLOAT ? "FLOAT/DOUBLE" : type == SQLITE_TEXT ? "STRING" : "BYTES");
  sqlite3_result_error(ctx, buf, -1);
  return 1;
}

static void slice_fn_is_ancestor(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (slice_arg_type_error(ctx, argv[0], 0) || slice_arg_type_error(ctx, argv[1], 1)) return;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return;
  storage_table *t = sql_engine_find_table(sqlite3_user_data(ctx), "__intrinsic_slice");
  int parent_col = t ? storage_table_find_column(t, "parent_id") : -1;
  if (parent_col < 0) return;
  int64_t ancestor = sqlite3_value_int64(argv[0]);
  int64_t id = sqlite3_value_int64(argv[1]); /* slice ids are row indexes */
  if (ancestor < 0 || id < 0 || (uint64_t)ancestor >= t->row_count ||
      (uint64_t)id >= t->row_count)
    return;
  /* At most row_count steps, whatever the parent links hold. */
  for (size_t steps = 0; steps <= t->row_count; steps++) {
    id = storage_get_i64_or(t, (size_t)parent_col, (size_t)id, -1);
    if (id < 0 || (uint64_t)id >= t->row_count) break;
    if (id == ancestor) {
      sqlite3_result_int(ctx, 1);
      return;
    }
  }
  sqlite3_result_int(ctx, 0);
}

int sql_slice_functions_register(sqlite3 *db, sql_engine *e) {
  if (sqlite3_create_function(db, "slice_is_ancestor", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                              e, slice_fn_is_ancestor, NULL, NULL) != SQLITE_OK)
    return WEFT_ESQL;
  return WEFT_OK;
}
