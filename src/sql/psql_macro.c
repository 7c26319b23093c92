/* PerfettoSQL macros: definitions and their syntactic expansion (see
 * psql.h). A call `name!(a, b)` is replaced by the macro's body with each
 * `$arg` replaced by the argument's text; the result is expanded again, so
 * macros may call macros and take calls as arguments. */
#include "sql/psql.h"

#include <stdio.h>
#include <strings.h>

struct psql_macro {
  char *name;
  psql_fields args;
  char *body;
};

/* A growing output buffer, bounded by PSQL_MAX_EXPANSION_BYTES. */
typedef struct psql_buf {
  char *data;
  size_t len, cap;
} psql_buf;

static int psql_buf_add(psql_buf *b, const char *s, size_t n, base_error *err) {
  if (b->len + n + 1 > PSQL_MAX_EXPANSION_BYTES)
    return base_error_set(err, WEFT_ESQL, "macro expansion exceeds %zu bytes",
                          PSQL_MAX_EXPANSION_BYTES);
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char *grown = base_realloc(b->data, cap);
    if (!grown) return base_error_nomem(err);
    b->data = grown;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
  return WEFT_OK;
}

static psql_macro *psql_macro_find(psql *ps, const char *name, size_t len) {
  for (size_t i = 0; i < ps->macro_count; i++)
    if (strlen(ps->macros[i]->name) == len && strncasecmp(ps->macros[i]->name, name, len) == 0)
      return ps->macros[i];
  return NULL;
}

static void psql_macro_free(psql_macro *m) {
  if (!m) return;
  base_free(m->name);
  psql_fields_free(&m->args);
  base_free(m->body);
  base_free(m);
}

void psql_macros_free(psql *ps) {
  for (size_t i = 0; i < ps->macro_count; i++) psql_macro_free(ps->macros[i]);
  base_free(ps->macros);
  ps->macros = NULL;
  ps->macro_count = 0;
}

int psql_macro_define(psql *ps, const char *name, psql_fields *args,
                      const char *body, size_t body_len, int replace,
                      base_error *err) {
  psql_macro *old = psql_macro_find(ps, name, strlen(name));
  if (old && !replace)
    return base_error_set(err, WEFT_ESQL, "CREATE PERFETTO MACRO[%s]: macro already exists",
                          name);
  while (body_len && (body[body_len - 1] == ' ' || body[body_len - 1] == '\n' ||
                      body[body_len - 1] == '\t' || body[body_len - 1] == '\r'))
    body_len--;
  psql_macro *m = base_calloc(1, sizeof *m);
  if (!m || !(m->name = base_strndup(name, strlen(name))) ||
      !(m->body = base_strndup(body, body_len))) {
    psql_macro_free(m);
    return base_error_nomem(err);
  }
  m->args = *args;
  *args = (psql_fields){0};
  if (old) {
    for (size_t i = 0; i < ps->macro_count; i++)
      if (ps->macros[i] == old) ps->macros[i] = m;
    psql_macro_free(old);
    return WEFT_OK;
  }
  psql_macro **grown = base_realloc(ps->macros, (ps->macro_count + 1) * sizeof *grown);
  if (!grown) {
    psql_macro_free(m);
    return base_error_nomem(err);
  }
  ps->macros = grown;
  ps->macros[ps->macro_count++] = m;
  return WEFT_OK;
}

/* The arguments of a call whose '(' is at `open`: spans split at ',' on
 * depth 0, trimmed. *close is set to the ')' token's end. */
typedef struct psql_span {
  const char *text;
  size_t len;
} psql_span;

static psql_span psql_trim(const char *s, const char *e) {
  while (s < e && (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')) s++;
  while (e > s && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' || e[-1] == '\r')) e--;
  return (psql_span){s, (size_t)(e - s)};
}

static int psql_call_args(const char *open, psql_span *args, size_t *count,
                          const char **close, base_error *err) {
  int depth = 0;
  const char *arg_start = open + 1;
  *count = 0;
  for (psql_token t = psql_lex(open);; t = psql_lex(t.text + t.len)) {
    if (t.kind == PSQL_TOK_END)
      return base_error_set(err, WEFT_ESQL, "unterminated macro call");
    if (psql_token_is_punct(&t, '(')) {
      depth++;
      continue;
    }
    int last = psql_token_is_punct(&t, ')') && depth == 1;
    if (last || (psql_token_is_punct(&t, ',') && depth == 1)) {
      psql_span a = psql_trim(arg_start, t.text);
      if (*count == PSQL_MAX_ARGS)
        return base_error_set(err, WEFT_ESQL, "too many macro arguments");
      if (!(last && *count == 0 && a.len == 0)) args[(*count)++] = a;
      arg_start = t.text + 1;
    }
    if (psql_token_is_punct(&t, ')')) depth--;
    if (last) {
      *close = t.text + 1;
      return WEFT_OK;
    }
  }
}

static int psql_expand_into(psql *ps, const char *text, psql_buf *out, int depth,
                            base_error *err);

/* Appends macro `m`'s body with its arguments substituted, expanded. */
static int psql_substitute(psql *ps, const psql_macro *m, const psql_span *args,
                           psql_buf *out, int depth, base_error *err) {
  psql_buf body = {0};
  int rc = WEFT_OK;
  for (psql_token t = psql_lex(m->body); rc == WEFT_OK && t.kind != PSQL_TOK_END;
       t = psql_lex(t.text + t.len)) {
    const psql_span *value = NULL;
    if (t.kind == PSQL_TOK_VARIABLE && t.text[0] == '$')
      for (size_t i = 0; i < m->args.count; i++)
        if (strlen(m->args.items[i].name) == t.len - 1 &&
            strncasecmp(m->args.items[i].name, t.text + 1, t.len - 1) == 0)
          value = &args[i];
    rc = value ? psql_buf_add(&body, value->text, value->len, err)
               : psql_buf_add(&body, t.text, t.len, err);
  }
  if (rc == WEFT_OK && body.data) rc = psql_expand_into(ps, body.data, out, depth + 1, err);
  base_free(body.data);
  return rc;
}

/* ---- built-in list macros ----
 * weft's own macros over parenthesised lists, for macros that take any
 * number of tables or columns (their arguments are expanded first):
 *   __weft_list_map!(m, (a, b), x...)   m!(a, 0, x...), m!(b, 1, x...)
 *   __weft_list_each!(m, (a, b), x...)  m!(a, 0, x...) m!(b, 1, x...)
 *   __weft_list_count!((a, b))          2
 *   __weft_list_unparen!((a, b))        a, b
 *   __weft_paste!(a, b)                 ab (one token from several) */
typedef enum psql_builtin {
  PSQL_BUILTIN_NONE,
  PSQL_BUILTIN_MAP,
  PSQL_BUILTIN_EACH,
  PSQL_BUILTIN_COUNT,
  PSQL_BUILTIN_UNPAREN,
  PSQL_BUILTIN_PASTE
} psql_builtin;

static psql_builtin psql_builtin_find(const char *name, size_t len) {
  static const struct {
    const char *name;
    psql_builtin kind;
  } builtins[] = {{"__weft_list_map", PSQL_BUILTIN_MAP},
                  {"__weft_list_each", PSQL_BUILTIN_EACH},
                  {"__weft_list_count", PSQL_BUILTIN_COUNT},
                  {"__weft_list_unparen", PSQL_BUILTIN_UNPAREN},
                  {"__weft_paste", PSQL_BUILTIN_PASTE}};
  for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
    if (strlen(builtins[i].name) == len && strncasecmp(builtins[i].name, name, len) == 0)
      return builtins[i].kind;
  return PSQL_BUILTIN_NONE;
}

/* The items of a parenthesised list `arg` ("(a, b)", "()"). */
static int psql_list_items(const char *builtin, psql_span arg, psql_span *items,
                           size_t *count, base_error *err) {
  const char *close = NULL;
  if (arg.len < 2 || arg.text[0] != '(' || arg.text[arg.len - 1] != ')')
    return base_error_set(err, WEFT_ESQL, "%s: expected a parenthesised list, got '%.*s'",
                          builtin, (int)(arg.len > 80 ? 80 : arg.len), arg.text);
  int rc = psql_call_args(arg.text, items, count, &close, err);
  if (rc == WEFT_OK && close != arg.text + arg.len)
    return base_error_set(err, WEFT_ESQL, "%s: expected a parenthesised list, got '%.*s'",
                          builtin, (int)(arg.len > 80 ? 80 : arg.len), arg.text);
  return rc;
}

/* Writes the calls of a map or each: `m!(item, index, extras...)` per
 * item, joined by `sep`. */
static int psql_list_calls(const psql_span *args, size_t count, const char *sep,
                           psql_buf *text, base_error *err) {
  psql_span items[PSQL_MAX_ARGS];
  size_t n;
  int rc = psql_list_items("__weft_list_map", args[1], items, &n, err);
  for (size_t i = 0; rc == WEFT_OK && i < n; i++) {
    char index[24];
    int len = snprintf(index, sizeof index, ", %zu", i);
    if (i) rc = psql_buf_add(text, sep, strlen(sep), err);
    if (!rc) rc = psql_buf_add(text, args[0].text, args[0].len, err);
    if (!rc) rc = psql_buf_add(text, "!(", 2, err);
    if (!rc) rc = psql_buf_add(text, items[i].text, items[i].len, err);
    if (!rc) rc = psql_buf_add(text, index, (size_t)len, err);
    for (size_t a = 2; rc == WEFT_OK && a < count; a++) {
      rc = psql_buf_add(text, ", ", 2, err);
      if (!rc) rc = psql_buf_add(text, args[a].text, args[a].len, err);
    }
    if (!rc) rc = psql_buf_add(text, ")", 1, err);
  }
  return rc;
}

/* The text a built-in macro stands for, given its expanded arguments. */
static int psql_builtin_text(psql_builtin kind, const psql_span *args, size_t count,
                             psql_buf *text, base_error *err) {
  static const size_t wanted_min[] = {0, 2, 2, 1, 1, 1};
  static const size_t wanted_max[] = {0, PSQL_MAX_ARGS, PSQL_MAX_ARGS, 1, 1, PSQL_MAX_ARGS};
  if (count < wanted_min[kind] || count > wanted_max[kind])
    return base_error_set(err, WEFT_ESQL, "built-in list macro: wrong number of arguments (%zu)",
                          count);
  psql_span items[PSQL_MAX_ARGS];
  size_t n;
  int rc = WEFT_OK;
  switch (kind) {
    case PSQL_BUILTIN_MAP: return psql_list_calls(args, count, ", ", text, err);
    case PSQL_BUILTIN_EACH: return psql_list_calls(args, count, " ", text, err);
    case PSQL_BUILTIN_COUNT: {
      rc = psql_list_items("__weft_list_count", args[0], items, &n, err);
      char number[24];
      int len = snprintf(number, sizeof number, "%zu", n);
      return rc ? rc : psql_buf_add(text, number, (size_t)len, err);
    }
    case PSQL_BUILTIN_UNPAREN:
      rc = psql_list_items("__weft_list_unparen", args[0], items, &n, err);
      if (rc == WEFT_OK && n)
        rc = psql_buf_add(text, items[0].text,
                          (size_t)(items[n - 1].text + items[n - 1].len - items[0].text), err);
      return rc;
    default:
      for (size_t i = 0; rc == WEFT_OK && i < count; i++)
        rc = psql_buf_add(text, args[i].text, args[i].len, err);
      return rc;
  }
}

/* Expands a built-in call: its arguments first, then the text it stands
 * for. */
static int psql_expand_builtin(psql *ps, psql_builtin kind, const psql_span *raw,
                               size_t count, psql_buf *out, int depth, base_error *err) {
  psql_buf expanded[PSQL_MAX_ARGS];
  psql_span args[PSQL_MAX_ARGS];
  psql_buf text = {0};
  memset(expanded, 0, sizeof expanded);
  int rc = WEFT_OK;
  for (size_t i = 0; rc == WEFT_OK && i < count; i++) {
    char *copy = base_strndup(raw[i].text, raw[i].len);
    if (!copy) rc = base_error_nomem(err);
    if (!rc) rc = psql_expand_into(ps, copy, &expanded[i], depth + 1, err);
    base_free(copy);
    static const char empty[] = "";
    const char *start = expanded[i].data ? expanded[i].data : empty;
    args[i] = psql_trim(start, start + expanded[i].len);
  }
  if (rc == WEFT_OK) rc = psql_builtin_text(kind, args, count, &text, err);
  if (rc == WEFT_OK && text.data) rc = psql_expand_into(ps, text.data, out, depth + 1, err);
  for (size_t i = 0; i < count; i++) base_free(expanded[i].data);
  base_free(text.data);
  return rc;
}

/* The call whose name token is `name` ('!' and '(' follow); *next is set
 * after its ')'. */
static int psql_expand_call(psql *ps, const psql_token *name, psql_buf *out,
                            int depth, const char **next, base_error *err) {
  if (depth >= PSQL_MAX_MACRO_DEPTH)
    return base_error_set(err, WEFT_ESQL, "macro expansion deeper than %d levels",
                          PSQL_MAX_MACRO_DEPTH);
  psql_macro *m = psql_macro_find(ps, name->text, name->len);
  psql_builtin builtin = m ? PSQL_BUILTIN_NONE : psql_builtin_find(name->text, name->len);
  if (!m && builtin == PSQL_BUILTIN_NONE)
    return base_error_set(err, WEFT_ESQL, "unknown macro '%.*s'", (int)name->len,
                          name->text);
  psql_token open = psql_lex_skip_space(name->text + name->len + 1);
  psql_span args[PSQL_MAX_ARGS];
  size_t count;
  int rc = psql_call_args(open.text, args, &count, next, err);
  if (rc) return rc;
  if (builtin != PSQL_BUILTIN_NONE)
    return psql_expand_builtin(ps, builtin, args, count, out, depth, err);
  if (count != m->args.count)
    return base_error_set(err, WEFT_ESQL,
                          "macro %s: expected %zu arguments, got %zu", m->name,
                          m->args.count, count);
  return psql_substitute(ps, m, args, out, depth, err);
}

static int psql_is_call(const psql_token *t) {
  if (t->kind != PSQL_TOK_WORD || t->text[t->len] != '!') return 0;
  psql_token open = psql_lex_skip_space(t->text + t->len + 1);
  return psql_token_is_punct(&open, '(');
}

static int psql_expand_into(psql *ps, const char *text, psql_buf *out, int depth,
                            base_error *err) {
  for (psql_token t = psql_lex(text); t.kind != PSQL_TOK_END;) {
    int rc;
    if (psql_is_call(&t)) {
      const char *next = NULL;
      rc = psql_expand_call(ps, &t, out, depth, &next, err);
      if (rc == WEFT_OK) t = psql_lex(next);
    } else {
      rc = psql_buf_add(out, t.text, t.len, err);
      t = psql_lex(t.text + t.len);
    }
    if (rc) return rc;
  }
  return WEFT_OK;
}

int psql_macro_expand(psql *ps, const char *text, size_t len, char **out,
                      base_error *err) {
  *out = NULL;
  if (!memchr(text, '!', len)) return WEFT_OK;
  char *copy = base_malloc(len + 1);
  if (!copy) return base_error_nomem(err);
  memcpy(copy, text, len);
  copy[len] = '\0';
  psql_buf buf = {0};
  int rc = psql_expand_into(ps, copy, &buf, 0, err);
  base_free(copy);
  if (rc == WEFT_OK && !buf.data) rc = psql_buf_add(&buf, "", 0, err);
  if (rc) {
    base_free(buf.data);
    return rc;
  }
  *out = buf.data;
  return WEFT_OK;
}
