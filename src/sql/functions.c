/* Scalar SQL functions that Perfetto's SQL offers. */
#include "sql/functions_prelude.h"

int sql_args_table_of(const storage_table *t, sql_args_table *out) {
  static const char *const names[] = {"arg_set_id", "key", "int_value", "string_value",
                                      "real_value", "value_type"};
  size_t *cols[] = {&out->set, &out->key, &out->int_value, &out->string_value,
                    &out->real_value, &out->value_type};
  out->table = t;
  for (size_t i = 0; t && i < sizeof names / sizeof *names; i++) {
    int c = storage_table_find_column(t, names[i]);
    if (c < 0) return 0;
    *cols[i] = (size_t)c;
  }
  return t != NULL;
}

/* arg_set_id is sorted in the args table: binary search, then a scan of
 * the set's rows. */
/* sql_args_extract from `row`, the first row of the set or of the sets
 * after it. */
static void args_extract_from(sqlite3_context *ctx, const sql_args_table *a,
                              const base_string_pool *strings, int64_t set, string_id key,
                              size_t row) {
  const storage_table *t = a->table;
  for (; row < t->row_count && storage_get_i64(t, a->set, row) == set; row++) {
    if (storage_get_str(t, a->key, row) != key) continue;
    if (!storage_is_null(t, a->int_value, row)) {
      sqlite3_result_int64(ctx, storage_get_i64(t, a->int_value, row));
    } else if (!storage_is_null(t, a->real_value, row)) {
      sqlite3_result_double(ctx, storage_get_f64(t, a->real_value, row));
    } else {
      string_id v = storage_get_str(t, a->string_value, row);
      if (v != STRING_NULL)
        sqlite3_result_text(ctx, base_string_pool_get(strings, v),
                            (int)base_string_pool_len(strings, v), SQLITE_STATIC);
    }
    return;
  }
}

void sql_args_extract(sqlite3_context *ctx, const sql_args_table *a,
                      const base_string_pool *strings, int64_t set, string_id key) {
  const storage_table *t = a->table;
  size_t row = storage_lower_bound_i64(t, a->set, 0, t->row_count, set, 0);
  args_extract_from(ctx, a, strings, set, key, row);
}

/* What EXTRACT_ARG looks up for one key: the args table, its columns and
 * the key's interned id (STRING_NULL: no arg has that key). Kept by SQLite
 * as the key argument's auxiliary data while the key is a constant, so a
 * query calling EXTRACT_ARG per row resolves them once. Sets recur (many
 * rows share one), so the first row of each set looked up is remembered
 * in a direct-mapped cache in front of the binary search. */
#define EXTRACT_ARG_CACHE_BITS 14
#define EXTRACT_ARG_CACHE ((size_t)1 << EXTRACT_ARG_CACHE_BITS)
typedef struct extract_arg_plan {
  sql_args_table args;
  string_id key;
  struct {
    int64_t set; /* INT64_MIN: empty (that set is never cached) */
    size_t first_row;
  } cache[EXTRACT_ARG_CACHE];
} extract_arg_plan;

static size_t extract_arg_first_row(extract_arg_plan *p, int64_t set) {
  const storage_table *t = p->args.table;
  size_t slot = (size_t)((uint64_t)set * 0x9e3779b97f4a7c15u >> (64 - EXTRACT_ARG_CACHE_BITS));
  if (p->cache[slot].set == set) return p->cache[slot].first_row;
  size_t row = storage_lower_bound_i64(t, p->args.set, 0, t->row_count, set, 0);
  if (set != INT64_MIN) {
    p->cache[slot].set = set;
    p->cache[slot].first_row = row;
  }
  return row;
}

static extract_arg_plan *extract_arg_plan_make(sql_engine *e, sqlite3_value *key) {
  storage_table *t = sql_engine_find_table(e, "__intrinsic_args");
  if (!t) return NULL;
  extract_arg_plan *p = sqlite3_malloc(sizeof *p);
  if (!p) return NULL;
  if (!sql_args_table_of(t, &p->args)) {
    sqlite3_free(p);
    return NULL;
  }
  for (size_t i = 0; i < EXTRACT_ARG_CACHE; i++) p->cache[i].set = INT64_MIN;
  p->key = base_string_pool_find(sql_engine_strings(e), (const char *)sqlite3_value_text(key),
                                 (size_t)sqlite3_value_bytes(key));
  return p;
}

/* EXTRACT_ARG(arg_set_id, key): the typed value of `key` in the arg set, or
 * NULL (also for a NULL set); a set id that is not an integer, or a key
 * that is not text, is an error. */
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
  extract_arg_plan *p = sqlite3_get_auxdata(ctx, 1);
  if (!p) {
    if (!(p = extract_arg_plan_make(e, argv[1]))) {
      if (sql_engine_find_table(e, "__intrinsic_args")) sqlite3_result_error_nomem(ctx);
      return;
    }
    sqlite3_set_auxdata(ctx, 1, p, sqlite3_free);
    if (!(p = sqlite3_get_auxdata(ctx, 1))) { /* set_auxdata failed and freed it */
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  if (p->key == STRING_NULL) return;
  int64_t set = sqlite3_value_int64(argv[0]);
  args_extract_from(ctx, &p->args, sql_engine_strings(e), set, p->key,
                    extract_arg_first_row(p, set));
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
