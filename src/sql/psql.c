/* PerfettoSQL statements: splitting, the PERFETTO statements' grammar, and
 * tracebacks (see psql.h). */
#include "sql/psql.h"

#include <ctype.h>
#include <stdio.h>

static const struct {
  const char *name;
  psql_type type;
} psql_type_names[] = {
    {"LONG", PSQL_TYPE_LONG},       {"INT", PSQL_TYPE_INT},
    {"BOOL", PSQL_TYPE_BOOL},       {"BOOLEAN", PSQL_TYPE_BOOL},
    {"DOUBLE", PSQL_TYPE_DOUBLE},   {"FLOAT", PSQL_TYPE_DOUBLE},
    {"STRING", PSQL_TYPE_STRING},   {"BYTES", PSQL_TYPE_BYTES},
    {"TIMESTAMP", PSQL_TYPE_TIMESTAMP}, {"DURATION", PSQL_TYPE_DURATION},
    {"ARGSETID", PSQL_TYPE_ARGSETID}, {"ID", PSQL_TYPE_ID},
    {"JOINID", PSQL_TYPE_JOINID},   {"UINT", PSQL_TYPE_LONG},
};

const char *psql_type_name(psql_type t) {
  if (t == PSQL_TYPE_ANY) return "ANY";
  for (size_t i = 0; i < sizeof psql_type_names / sizeof *psql_type_names; i++)
    if (psql_type_names[i].type == t) return psql_type_names[i].name;
  return "?";
}

char *psql_token_name(const psql_token *t) {
  const char *s = t->text;
  size_t n = t->len;
  if (t->kind == PSQL_TOK_QUOTED_NAME && n >= 2) {
    s++;
    n -= 2;
  }
  return base_strndup(s, n);
}

void psql_fields_free(psql_fields *f) {
  for (size_t i = 0; i < f->count; i++) base_free(f->items[i].name);
  base_free(f->items);
  f->items = NULL;
  f->count = 0;
}

/* A type word, with ID(table.column) / JOINID(table.column) arguments
 * skipped. Unknown words are PSQL_TYPE_ANY when `any_word` (macro argument
 * kinds), else an error. */
static int psql_parse_type(const char **pp, int any_word, psql_type *out,
                           base_error *err) {
  psql_token t = psql_lex_skip_space(*pp);
  if (t.kind != PSQL_TOK_WORD)
    return base_error_set(err, WEFT_ESQL, "expected a type, found '%.*s'",
                          (int)t.len, t.text);
  *out = PSQL_TYPE_ANY;
  int known = 0;
  for (size_t i = 0; i < sizeof psql_type_names / sizeof *psql_type_names; i++)
    if (psql_token_is(&t, psql_type_names[i].name)) {
      *out = psql_type_names[i].type;
      known = 1;
    }
  if (!known && !any_word)
    return base_error_set(err, WEFT_ESQL, "unknown type '%.*s'", (int)t.len, t.text);
  const char *p = t.text + t.len;
  psql_token open = psql_lex_skip_space(p);
  if (psql_token_is_punct(&open, '(')) {
    int depth = 0;
    psql_token u = open;
    for (;; u = psql_lex(u.text + u.len)) {
      if (u.kind == PSQL_TOK_END)
        return base_error_set(err, WEFT_ESQL, "unterminated type arguments");
      if (psql_token_is_punct(&u, '(')) depth++;
      if (psql_token_is_punct(&u, ')') && --depth == 0) break;
    }
    p = u.text + u.len;
  }
  *pp = p;
  return WEFT_OK;
}

static int psql_parse_fields_kind(const char **pp, int any_word, psql_fields *out,
                                  base_error *err) {
  *out = (psql_fields){0};
  psql_token t = psql_lex_skip_space(*pp);
  if (!psql_token_is_punct(&t, '('))
    return base_error_set(err, WEFT_ESQL, "expected '(' but found '%.*s'",
                          (int)t.len, t.text);
  const char *p = t.text + 1;
  t = psql_lex_skip_space(p);
  if (psql_token_is_punct(&t, ')')) {
    *pp = t.text + 1;
    return WEFT_OK;
  }
  for (;;) {
    if (t.kind != PSQL_TOK_WORD && t.kind != PSQL_TOK_QUOTED_NAME) break;
    if (out->count == PSQL_MAX_ARGS) break;
    psql_field *grown = base_realloc(out->items, (out->count + 1) * sizeof *grown);
    if (!grown) return base_error_nomem(err);
    out->items = grown;
    psql_field *f = &out->items[out->count];
    if (!(f->name = psql_token_name(&t))) return base_error_nomem(err);
    out->count++;
    p = t.text + t.len;
    int rc = psql_parse_type(&p, any_word, &f->type, err);
    if (rc) return rc;
    t = psql_lex_skip_space(p);
    if (psql_token_is_punct(&t, ')')) {
      *pp = t.text + 1;
      return WEFT_OK;
    }
    if (!psql_token_is_punct(&t, ',')) break;
    t = psql_lex_skip_space(t.text + 1);
  }
  return base_error_set(err, WEFT_ESQL, "bad argument or column list near '%.*s'",
                        (int)(t.len ? t.len : 1), t.len ? t.text : "?");
}

int psql_parse_fields(const char **pp, psql_fields *out, base_error *err) {
  return psql_parse_fields_kind(pp, 0, out, err);
}

/* The end of the statement starting at p: its ';' at depth 0, or the end
 * of the text. */
static const char *psql_statement_end(const char *p) {
  int depth = 0;
  for (psql_token t = psql_lex(p);; t = psql_lex(t.text + t.len)) {
    if (t.kind == PSQL_TOK_END) return t.text;
    if (psql_token_is_punct(&t, '(')) depth++;
    if (psql_token_is_punct(&t, ')') && depth > 0) depth--;
    if (psql_token_is_punct(&t, ';') && depth == 0) return t.text;
  }
}

/* Consumes the words of `words` (space separated) in order. */
static int psql_expect_words(const char **pp, const char *words) {
  const char *p = *pp;
  char word[32];
  while (*words) {
    size_t n = strcspn(words, " ");
    if (n >= sizeof word) return 0;
    memcpy(word, words, n);
    word[n] = '\0';
    psql_token t = psql_lex_skip_space(p);
    if (!psql_token_is(&t, word)) return 0;
    p = t.text + t.len;
    words += n;
    while (*words == ' ') words++;
  }
  *pp = p;
  return 1;
}

/* Reads a name token into a new string. */
static int psql_expect_name(const char **pp, char **out, const char *what,
                            base_error *err) {
  psql_token t = psql_lex_skip_space(*pp);
  if (t.kind != PSQL_TOK_WORD && t.kind != PSQL_TOK_QUOTED_NAME)
    return base_error_set(err, WEFT_ESQL, "expected %s name but found '%.*s'",
                          what, (int)t.len, t.text);
  if (!(*out = psql_token_name(&t))) return base_error_nomem(err);
  *pp = t.text + t.len;
  return WEFT_OK;
}

/* --- the PERFETTO statements; each gets its text up to (not including)
 * the ';', with p just after `PERFETTO <KIND>`. --- */

static int psql_run_include(psql *ps, const char *p, base_error *err) {
  psql_token t = psql_lex_skip_space(p);
  const char *start = t.text;
  while (t.kind == PSQL_TOK_WORD || psql_token_is_punct(&t, '.') ||
         psql_token_is_punct(&t, '*'))
    t = psql_lex(t.text + t.len);
  size_t len = (size_t)(t.text - start);
  if (len == 0 || len > 255 || psql_lex_skip_space(t.text).kind != PSQL_TOK_END)
    return base_error_set(err, WEFT_ESQL, "INCLUDE PERFETTO MODULE: bad module name");
  char name[256];
  memcpy(name, start, len);
  name[len] = '\0';
  return psql_include(ps, name, err);
}

/* `name [(schema)] AS select` of a TABLE or VIEW. */
static int psql_run_create_relation(psql *ps, const char *p, int replace,
                                    int is_table, base_error *err) {
  char *name = NULL;
  psql_fields schema = {0};
  int rc = psql_expect_name(&p, &name, is_table ? "table" : "view", err);
  psql_token t = psql_lex_skip_space(p);
  if (rc == WEFT_OK && psql_token_is_punct(&t, '('))
    rc = psql_parse_fields(&p, &schema, err);
  if (rc == WEFT_OK && !psql_expect_words(&p, "AS"))
    rc = base_error_set(err, WEFT_ESQL, "expected AS after the %s name",
                        is_table ? "table" : "view");
  if (rc == WEFT_OK)
    rc = is_table ? psql_table_create(ps, name, &schema, p, replace, err)
                  : psql_view_create(ps, name, &schema, p, replace, err);
  psql_fields_free(&schema);
  base_free(name);
  return rc;
}

/* `name(args) RETURNS type|TABLE(columns) AS body`; the prototype for
 * messages is `name(args)` as written. */
static int psql_run_create_function(psql *ps, const char *p, int replace,
                                    base_error *err) {
  char *name = NULL;
  psql_fields args = {0}, columns = {0};
  psql_type return_type = PSQL_TYPE_ANY;
  int returns_table = 0;
  const char *proto_start = psql_lex_skip_space(p).text;
  int rc = psql_expect_name(&p, &name, "function", err);
  if (rc == WEFT_OK) rc = psql_parse_fields(&p, &args, err);
  const char *proto_end = p;
  if (rc == WEFT_OK && !psql_expect_words(&p, "RETURNS"))
    rc = base_error_set(err, WEFT_ESQL, "expected RETURNS after the arguments");
  if (rc == WEFT_OK && psql_expect_words(&p, "TABLE")) {
    returns_table = 1;
    rc = psql_parse_fields(&p, &columns, err);
  } else if (rc == WEFT_OK) {
    rc = psql_parse_type(&p, 0, &return_type, err);
  }
  if (rc == WEFT_OK && !psql_expect_words(&p, "AS"))
    rc = base_error_set(err, WEFT_ESQL, "expected AS before the function body");
  if (rc == WEFT_OK) {
    char proto[512];
    snprintf(proto, sizeof proto, "%.*s", (int)(proto_end - proto_start), proto_start);
    const char *body = psql_lex_skip_space(p).text;
    rc = psql_function_define(ps, name, proto, &args, returns_table, return_type,
                              &columns, body, strlen(body), replace, err);
  }
  psql_fields_free(&args);
  psql_fields_free(&columns);
  base_free(name);
  return rc;
}

static int psql_run_create_macro(psql *ps, const char *p, int replace,
                                 base_error *err) {
  char *name = NULL;
  psql_fields args = {0};
  psql_type ignored;
  int rc = psql_expect_name(&p, &name, "macro", err);
  if (rc == WEFT_OK) rc = psql_parse_fields_kind(&p, 1, &args, err);
  if (rc == WEFT_OK && !psql_expect_words(&p, "RETURNS"))
    rc = base_error_set(err, WEFT_ESQL, "expected RETURNS after the macro arguments");
  if (rc == WEFT_OK) rc = psql_parse_type(&p, 1, &ignored, err);
  if (rc == WEFT_OK && !psql_expect_words(&p, "AS"))
    rc = base_error_set(err, WEFT_ESQL, "expected AS before the macro body");
  if (rc == WEFT_OK) {
    const char *body = psql_lex_skip_space(p).text;
    rc = psql_macro_define(ps, name, &args, body, strlen(body), replace, err);
  }
  psql_fields_free(&args);
  base_free(name);
  return rc;
}

/* `name ON table(col, ...)` of CREATE INDEX, or `name ON table` of DROP. */
static int psql_run_index(psql *ps, const char *p, int replace, int drop,
                          base_error *err) {
  char *name = NULL, *table = NULL;
  char *columns[PSQL_MAX_ARGS];
  size_t count = 0;
  int rc = psql_expect_name(&p, &name, "index", err);
  if (rc == WEFT_OK && !psql_expect_words(&p, "ON"))
    rc = base_error_set(err, WEFT_ESQL, "expected ON after the index name");
  if (rc == WEFT_OK) rc = psql_expect_name(&p, &table, "table", err);
  if (rc == WEFT_OK && drop) {
    rc = psql_index_drop(ps, name, table, err);
  } else if (rc == WEFT_OK) {
    psql_token t = psql_lex_skip_space(p);
    if (!psql_token_is_punct(&t, '('))
      rc = base_error_set(err, WEFT_ESQL, "expected '(' after the table name");
    p = t.text + t.len;
    while (rc == WEFT_OK) {
      if (count == PSQL_MAX_ARGS) {
        rc = base_error_set(err, WEFT_ESQL, "too many index columns");
        break;
      }
      rc = psql_expect_name(&p, &columns[count], "column", err);
      if (rc) break;
      count++;
      t = psql_lex_skip_space(p);
      p = t.text + t.len;
      if (psql_token_is_punct(&t, ')')) break;
      if (!psql_token_is_punct(&t, ','))
        rc = base_error_set(err, WEFT_ESQL, "expected ',' or ')' in the index columns");
    }
    if (rc == WEFT_OK) rc = psql_index_create(ps, name, table, columns, count, replace, err);
  }
  for (size_t i = 0; i < count; i++) base_free(columns[i]);
  base_free(name);
  base_free(table);
  return rc;
}

/* Runs `text` if it is a PerfettoSQL statement: 1 if it was, 0 if it is
 * SQLite's, or an error. */
static int psql_try_perfetto(psql *ps, const char *text, base_error *err) {
  const char *p = text;
  if (psql_expect_words(&p, "INCLUDE PERFETTO MODULE")) {
    int rc = psql_run_include(ps, p, err);
    return rc ? rc : 1;
  }
  int drop = 0, replace = 0;
  if (psql_expect_words(&p, "DROP PERFETTO INDEX")) {
    drop = 1;
  } else if (!psql_expect_words(&p, "CREATE")) {
    return 0;
  } else {
    replace = psql_expect_words(&p, "OR REPLACE");
    if (!psql_expect_words(&p, "PERFETTO")) return 0;
  }
  int rc;
  if (drop) rc = psql_run_index(ps, p, 0, 1, err);
  else if (psql_expect_words(&p, "TABLE")) rc = psql_run_create_relation(ps, p, replace, 1, err);
  else if (psql_expect_words(&p, "VIEW")) rc = psql_run_create_relation(ps, p, replace, 0, err);
  else if (psql_expect_words(&p, "FUNCTION")) rc = psql_run_create_function(ps, p, replace, err);
  else if (psql_expect_words(&p, "MACRO")) rc = psql_run_create_macro(ps, p, replace, err);
  else if (psql_expect_words(&p, "INDEX")) rc = psql_run_index(ps, p, replace, 0, err);
  else {
    psql_token t = psql_lex_skip_space(p);
    rc = base_error_set(err, WEFT_ESQL, "unknown PERFETTO statement kind '%.*s'",
                        (int)t.len, t.text);
  }
  return rc ? rc : 1;
}

/* CREATE [TEMP] TRIGGER bodies hold ';': SQLite finds their end. */
static int psql_is_trigger(const char *p) {
  if (!psql_expect_words(&p, "CREATE")) return 0;
  if (!psql_expect_words(&p, "TEMP")) psql_expect_words(&p, "TEMPORARY");
  return psql_expect_words(&p, "TRIGGER");
}

static int psql_is_macro_definition(const char *p) {
  if (!psql_expect_words(&p, "CREATE")) return 0;
  psql_expect_words(&p, "OR REPLACE");
  return psql_expect_words(&p, "PERFETTO MACRO");
}

/* Puts `prefix` before err's message, cutting the end if it is too long. */
static void psql_error_prepend(base_error *err, const char *prefix) {
  size_t cap = sizeof err->message - 1;
  size_t n = strlen(prefix), old = strlen(err->message);
  if (n > cap) n = cap;
  if (old > cap - n) old = cap - n;
  memmove(err->message + n, err->message, old);
  memcpy(err->message, prefix, n);
  err->message[n + old] = '\0';
}

/* Prefixes err's message with a traceback frame for the statement at
 * `stmt` of `text` (source `source`: a module's text when `ps` is running
 * an include, else a file's), the caret at `at` (in the statement's first
 * line or the line holding `at`). */
static void psql_add_frame(const psql *ps, base_error *err, const char *source,
                           const char *text, const char *stmt, const char *stmt_end,
                           const char *at) {
  if (!err) return;
  const char *kind = ps->include_depth > 0 ? "Module include" : "File";
  if (!at || at < stmt) at = stmt;
  int line, col;
  psql_line_col(text, at, &line, &col);
  const char *line_start = at;
  while (line_start > stmt && line_start[-1] != '\n') line_start--;
  size_t line_len = strcspn(line_start, "\n");
  if (stmt_end && stmt_end >= line_start && (size_t)(stmt_end - line_start) < line_len)
    line_len = (size_t)(stmt_end - line_start);
  if (line_len > 200) line_len = 200;
  int caret = (int)(at - line_start);
  if (caret > (int)line_len) caret = 0;
  char frame[sizeof err->message];
  int n = snprintf(frame, sizeof frame, "  %s \"%s\" line %d col %d\n    %.*s\n    %*s^\n",
                   kind, source, line, col, (int)line_len, line_start, caret, "");
  if (n > 0) psql_error_prepend(err, frame);
}

/* Prepares and runs the SQLite statement(s) in `sql` (the whole text when
 * `whole`, else its first statement only); *end is where the statement
 * ended in `sql`. */
static int psql_run_sqlite(psql *ps, const char *sql, int *statement,
                           const weft_query_callbacks *cb, const char **end,
                           const char **error_at, base_error *err) {
  int rc = sql_views_ensure_engine(ps->engine, sql, err);
  if (rc) return rc;
  sqlite3_stmt *stmt = NULL;
  const char *tail = NULL;
  *error_at = NULL;
  if (sqlite3_prepare_v2(ps->db, sql, -1, &stmt, &tail) != SQLITE_OK) {
    int offset = sqlite3_error_offset(ps->db);
    if (offset >= 0) *error_at = sql + offset;
    char refusal[128];
    return base_error_set(err, sql_engine_status(ps->engine), "%s",
                          sql_engine_refusal(ps->engine, refusal, sizeof refusal));
  }
  *end = tail;
  if (!stmt) return WEFT_OK;
  int has_columns = sqlite3_column_count(stmt) > 0;
  rc = sql_engine_run_statement(ps->engine, stmt, *statement, cb, err);
  sqlite3_finalize(stmt);
  if (rc == WEFT_OK && has_columns) (*statement)++;
  return rc;
}

/* Runs the one statement at [start, end) of `text`. */
static int psql_run_one(psql *ps, const char *source, const char *text,
                        const char *start, const char *end, int *statement,
                        const weft_query_callbacks *cb, base_error *err) {
  char *expanded = NULL;
  const char *error_at = NULL;
  int rc = WEFT_OK;
  if (!psql_is_macro_definition(start))
    rc = psql_macro_expand(ps, start, (size_t)(end - start), &expanded, err);
  char *own = NULL;
  if (rc == WEFT_OK && !expanded) {
    own = base_malloc((size_t)(end - start) + 1);
    if (!own) rc = base_error_nomem(err);
    else {
      memcpy(own, start, (size_t)(end - start));
      own[end - start] = '\0';
    }
  }
  const char *stmt_text = expanded ? expanded : own;
  if (rc == WEFT_OK) {
    rc = psql_try_perfetto(ps, stmt_text, err);
    if (rc == 0) {
      const char *tail;
      rc = psql_run_sqlite(ps, stmt_text, statement, cb, &tail, &error_at, err);
      if (error_at && !expanded) error_at = start + (error_at - stmt_text);
      else error_at = NULL;
    } else if (rc == 1) {
      rc = WEFT_OK;
    }
  }
  if (rc && rc != WEFT_EABORT) psql_add_frame(ps, err, source, text, start, end, error_at);
  base_free(expanded);
  base_free(own);
  return rc;
}

static int psql_run_trigger(psql *ps, const char *source, const char *text,
                            const char *start, int *statement,
                            const weft_query_callbacks *cb, const char **next,
                            base_error *err) {
  const char *error_at = NULL;
  int rc = psql_run_sqlite(ps, start, statement, cb, next, &error_at, err);
  if (rc && rc != WEFT_EABORT) psql_add_frame(ps, err, source, text, start, *next, error_at);
  return rc;
}

int psql_execute(psql *ps, const char *source, const char *sql,
                 const weft_query_callbacks *cb, base_error *err) {
  int statement = 0;
  const char *p = sql;
  for (;;) {
    psql_token t = psql_lex_skip_space(p);
    if (t.kind == PSQL_TOK_END) return WEFT_OK;
    const char *start = t.text;
    if (psql_token_is_punct(&t, ';')) {
      p = start + 1;
      continue;
    }
    int rc;
    if (psql_is_trigger(start)) {
      rc = psql_run_trigger(ps, source, sql, start, &statement, cb, &p, err);
    } else {
      const char *end = psql_statement_end(start);
      rc = psql_run_one(ps, source, sql, start, end, &statement, cb, err);
      p = *end ? end + 1 : end;
    }
    if (rc) {
      if (rc != WEFT_EABORT && ps->include_depth == 0 && ps->call_depth == 0 && err)
        psql_error_prepend(err, "Traceback (most recent call last):\n");
      return rc;
    }
  }
}

int psql_init(psql *ps, sql_engine *engine, sqlite3 *db) {
  *ps = (psql){0};
  ps->engine = engine;
  ps->db = db;
  return WEFT_OK;
}

void psql_free(psql *ps) {
  psql_macros_free(ps);
  psql_functions_free(ps);
  psql_tables_free(ps);
  for (size_t i = 0; i < ps->included_count; i++) base_free(ps->included[i]);
  base_free(ps->included);
  *ps = (psql){0};
}
