/* __intrinsic_arg_set_to_json(arg_set_id): an arg set as one JSON object.
 *
 * Keys are paths: "a.b" is member b of object a, "a[2]" element 2 of array
 * a. The rows of a set are written in their order, containers opened and
 * closed as consecutive keys share or leave a prefix. Values by type: int,
 * uint and pointer as integers, real as the shortest text that reads back
 * the same, bool as true/false, null as null, string (and json) as JSON
 * strings. NULL for a NULL set, {} for a set with no rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/functions_prelude.h"

#define ARGS_JSON_MAX_DEPTH 64

/* One component of a key: a member name, or an array index (name NULL). */
typedef struct args_json_part {
  const char *name;
  size_t len;
  uint64_t index;
} args_json_part;

typedef struct args_json_path {
  args_json_part parts[ARGS_JSON_MAX_DEPTH];
  int n;
} args_json_path;

/* Splits a key into parts; 0 if it is deeper than the maximum. */
static int args_json_split(const char *key, size_t len, args_json_path *p) {
  size_t i = 0;
  p->n = 0;
  while (i < len) {
    if (p->n >= ARGS_JSON_MAX_DEPTH) return 0;
    args_json_part *part = &p->parts[p->n++];
    if (key[i] == '[') {
      char *end;
      part->name = NULL;
      part->index = strtoull(key + i + 1, &end, 10);
      i = (size_t)(end - key);
      if (i < len && key[i] == ']') i++;
    } else {
      size_t j = i;
      while (j < len && key[j] != '.' && key[j] != '[') j++;
      part->name = key + i;
      part->len = j - i;
      i = j;
    }
    if (i < len && key[i] == '.') i++;
  }
  return p->n > 0;
}

static int args_json_same(const args_json_part *a, const args_json_part *b) {
  if (!a->name || !b->name) return !a->name && !b->name && a->index == b->index;
  return a->len == b->len && memcmp(a->name, b->name, a->len) == 0;
}

static int args_json_string(base_buf *out, const char *s, size_t len) {
  int rc = base_buf_append(out, "\"", 1);
  for (size_t i = 0; !rc && i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      rc = base_buf_append(out, esc, 2);
    } else if (c < 0x20) {
      const char *named = c == '\n' ? "\\n" : c == '\t' ? "\\t" : c == '\r' ? "\\r"
                          : c == '\b' ? "\\b" : c == '\f' ? "\\f" : NULL;
      rc = named ? base_buf_append(out, named, 2) : base_buf_appendf(out, "\\u%04x", c);
    } else {
      rc = base_buf_append(out, s + i, 1);
    }
  }
  return rc ? rc : base_buf_append(out, "\"", 1);
}

static int args_json_real(base_buf *out, double v) {
  char buf[40];
  for (int precision = 15; precision <= 17; precision++) {
    snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (strtod(buf, NULL) == v) break;
  }
  return base_buf_append(out, buf, strlen(buf));
}

/* The JSON state: the open containers (the parts of the last key but its
 * leaf) and whether each has an element yet. */
typedef struct args_json {
  base_buf out;
  args_json_path open;
  uint8_t has_element[ARGS_JSON_MAX_DEPTH + 1]; /* by container level */
  uint8_t is_array[ARGS_JSON_MAX_DEPTH + 1];
} args_json;

/* Closes containers down to `keep` open ones. */
static int args_json_close_to(args_json *j, int keep) {
  int rc = WEFT_OK;
  for (int d = j->open.n; !rc && d > keep; d--)
    rc = base_buf_append(&j->out, j->is_array[d] ? "]" : "}", 1);
  j->open.n = keep < j->open.n ? keep : j->open.n;
  return rc;
}

/* Starts an element in container level d: a comma and the member name. */
static int args_json_element(args_json *j, int d, const args_json_part *part) {
  int rc = WEFT_OK;
  if (j->has_element[d]) rc = base_buf_append(&j->out, ",", 1);
  j->has_element[d] = 1;
  if (rc || j->is_array[d]) return rc;
  char index[24];
  if (!part->name) snprintf(index, sizeof index, "%llu", (unsigned long long)part->index);
  rc = part->name ? args_json_string(&j->out, part->name, part->len)
                  : args_json_string(&j->out, index, strlen(index));
  if (!rc) rc = base_buf_append(&j->out, ":", 1);
  return rc;
}

/* Opens the containers of key path p below the common prefix. */
static int args_json_open(args_json *j, const args_json_path *p) {
  int common = 0;
  while (common < j->open.n && common < p->n - 1 &&
         args_json_same(&j->open.parts[common], &p->parts[common]))
    common++;
  int rc = args_json_close_to(j, common);
  for (int d = common; !rc && d < p->n - 1; d++) {
    rc = args_json_element(j, d, &p->parts[d]);
    int array = p->parts[d + 1].name == NULL;
    if (!rc) rc = base_buf_append(&j->out, array ? "[" : "{", 1);
    j->open.parts[d] = p->parts[d];
    j->open.n = d + 1;
    j->has_element[d + 1] = 0;
    j->is_array[d + 1] = (uint8_t)array;
  }
  return rc ? rc : args_json_element(j, p->n - 1, &p->parts[p->n - 1]);
}

static int args_json_value(args_json *j, const storage_table *t, size_t row,
                           const base_string_pool *strings) {
  static const char *const cols[] = {"int_value", "string_value", "real_value", "value_type"};
  int c[4];
  for (int i = 0; i < 4; i++) c[i] = storage_table_find_column(t, cols[i]);
  string_id type_id = storage_get_str(t, (size_t)c[3], row);
  const char *type = type_id ? base_string_pool_get(strings, type_id) : "null";
  if (!strcmp(type, "real")) return args_json_real(&j->out, storage_get_f64(t, (size_t)c[2], row));
  if (!strcmp(type, "bool")) {
    int v = storage_get_i64(t, (size_t)c[0], row) != 0;
    return base_buf_append(&j->out, v ? "true" : "false", v ? 4 : 5);
  }
  if (!strcmp(type, "string") || !strcmp(type, "json")) {
    string_id s = storage_get_str(t, (size_t)c[1], row);
    if (s == STRING_NULL) return base_buf_append(&j->out, "null", 4);
    return args_json_string(&j->out, base_string_pool_get(strings, s),
                            base_string_pool_len(strings, s));
  }
  if (storage_is_null(t, (size_t)c[0], row)) return base_buf_append(&j->out, "null", 4);
  if (!strcmp(type, "uint") || !strcmp(type, "pointer"))
    return base_buf_appendf(&j->out, "%llu",
                            (unsigned long long)storage_get_i64(t, (size_t)c[0], row));
  return base_buf_appendf(&j->out, "%lld", (long long)storage_get_i64(t, (size_t)c[0], row));
}

static int args_json_build(args_json *j, const storage_table *t, int64_t set,
                           const base_string_pool *strings) {
  int set_col = storage_table_find_column(t, "arg_set_id");
  int key_col = storage_table_find_column(t, "key");
  int rc = base_buf_append(&j->out, "{", 1);
  j->open.n = 0;
  j->has_element[0] = 0;
  j->is_array[0] = 0;
  size_t row = storage_lower_bound_i64(t, (size_t)set_col, 0, t->row_count, set, 0);
  for (; !rc && row < t->row_count && storage_get_i64(t, (size_t)set_col, row) == set; row++) {
    string_id key = storage_get_str(t, (size_t)key_col, row);
    args_json_path p;
    if (key == STRING_NULL || !args_json_split(base_string_pool_get(strings, key),
                                               base_string_pool_len(strings, key), &p))
      continue;
    rc = args_json_open(j, &p);
    if (!rc) rc = args_json_value(j, t, row, strings);
  }
  if (!rc) rc = args_json_close_to(j, 0);
  return rc ? rc : base_buf_append(&j->out, "}", 1);
}

static void functions_arg_set_to_json(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  sql_engine *e = sqlite3_user_data(ctx);
  storage_table *t = sql_engine_find_table(e, "__intrinsic_args");
  if (!t) return;
  args_json *j = base_calloc(1, sizeof *j);
  if (!j) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  base_buf_init(&j->out, 0);
  int rc = args_json_build(j, t, sqlite3_value_int64(argv[0]), sql_engine_strings(e));
  if (rc) sqlite3_result_error_nomem(ctx);
  else sqlite3_result_text(ctx, j->out.data, (int)j->out.len, SQLITE_TRANSIENT);
  base_buf_free(&j->out);
  base_free(j);
}

int sql_args_json_functions_register(sqlite3 *db, sql_engine *e) {
  return sqlite3_create_function(db, "__intrinsic_arg_set_to_json", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC, e,
                                 functions_arg_set_to_json, NULL, NULL) == SQLITE_OK
             ? WEFT_OK
             : WEFT_ESQL;
}
