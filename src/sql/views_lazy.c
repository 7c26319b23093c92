/* Perfetto's views, created on first use (see sql.h): the words of the SQL
 * about to run name the views it needs. */
#include <ctype.h>

#include "sql/sql.h"

typedef enum sql_view_state {
  SQL_VIEW_MISSING,
  SQL_VIEW_COMMITTED, /* exists outside any transaction: stays */
  SQL_VIEW_UNSURE,    /* created inside the caller's transaction */
  SQL_VIEW_PENDING,   /* created in our own batch, not yet committed */
  SQL_VIEW_CREATING   /* on the dependency path being created now */
} sql_view_state;

/* One call of sql_views_ensure: whether the caller had a transaction open,
 * and whether we opened our own (all creations of a call share one). */
typedef struct sql_views_batch {
  int in_caller_txn;
  int begun;
} sql_views_batch;

static const char *sql_view_name(const sql_views *v, size_t i, size_t *len) {
  *len = v->name_len[i];
  return sql_view_statements[i] + strlen("CREATE VIEW ");
}

static int sql_word_char(unsigned char c) {
  return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

static int sql_word_has_prefix(const char *w, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  return len >= n && strncasecmp(w, prefix, n) == 0;
}

static int sql_views_create_one(sql_views *v, size_t i, sql_views_batch *b,
                                base_error *err);

/* Creates every view named by a word of `sql`, or all of them when `sql`
 * may read the schema. */
static int sql_views_scan(sql_views *v, const char *sql, sql_views_batch *b,
                          base_error *err) {
  const char *p = sql;
  while (*p) {
    if (!sql_word_char((unsigned char)*p)) {
      p++;
      continue;
    }
    const char *w = p;
    while (sql_word_char((unsigned char)*p)) p++;
    size_t len = (size_t)(p - w);
    int all = sql_word_has_prefix(w, len, "sqlite_") ||
              sql_word_has_prefix(w, len, "pragma");
    for (size_t i = 0; i < sql_view_statement_count; i++) {
      size_t name_len;
      const char *name = sql_view_name(v, i, &name_len);
      if (!all && (name_len != len || strncasecmp(name, w, len) != 0)) continue;
      int rc = sql_views_create_one(v, i, b, err);
      if (rc) return rc;
    }
  }
  return WEFT_OK;
}

static int sql_views_exec(sql_views *v, const char *sql, const char *what,
                          base_error *err) {
  char *msg = NULL;
  int src = sqlite3_exec(v->db, sql, NULL, NULL, &msg);
  if (src == SQLITE_OK) return WEFT_OK;
  int code = src == SQLITE_NOMEM ? WEFT_ENOMEM : WEFT_ESQL;
  base_error_set(err, code, "creating view %s: %s", what, msg ? msg : "?");
  sqlite3_free(msg);
  return code;
}

/* Creates view i (IF NOT EXISTS: it may have survived a rollback we could
 * not see), after the views its own SQL names. */
static int sql_views_create_one(sql_views *v, size_t i, sql_views_batch *b,
                                base_error *err) {
  uint8_t prev = v->state[i];
  if (prev != SQL_VIEW_MISSING && prev != SQL_VIEW_UNSURE) return WEFT_OK;
  v->state[i] = SQL_VIEW_CREATING;
  size_t name_len;
  const char *name = sql_view_name(v, i, &name_len);
  int rc = sql_views_scan(v, name, b, err);
  if (!rc && !b->in_caller_txn && !b->begun) {
    rc = sql_views_exec(v, "BEGIN", "(begin)", err);
    b->begun = rc == WEFT_OK;
  }
  char *sql = NULL;
  if (!rc) {
    sql = sqlite3_mprintf("CREATE VIEW IF NOT EXISTS %s", name);
    if (!sql) rc = base_error_nomem(err);
  }
  if (!rc) rc = sql_views_exec(v, sql, name, err);
  sqlite3_free(sql);
  v->state[i] = rc ? prev : b->in_caller_txn ? SQL_VIEW_UNSURE : SQL_VIEW_PENDING;
  return rc;
}

/* Ends our own batch: commits it, or rolls it back and forgets its views. */
static int sql_views_end_batch(sql_views *v, sql_views_batch *b, int rc,
                               base_error *err) {
  if (b->begun && !rc) rc = sql_views_exec(v, "COMMIT", "(commit)", err);
  if (b->begun && rc) sqlite3_exec(v->db, "ROLLBACK", NULL, NULL, NULL);
  for (size_t i = 0; i < sql_view_statement_count; i++) {
    if (v->state[i] != SQL_VIEW_PENDING) continue;
    v->state[i] = rc ? SQL_VIEW_MISSING : SQL_VIEW_COMMITTED;
  }
  return rc;
}

int sql_views_init(sql_views *v, sqlite3 *db, base_error *err) {
  memset(v, 0, sizeof *v);
  v->db = db;
  if (sql_view_statement_count > SQL_VIEWS_MAX)
    return base_error_set(err, WEFT_ESQL, "%zu views, at most %d supported",
                          sql_view_statement_count, SQL_VIEWS_MAX);
  for (size_t i = 0; i < sql_view_statement_count; i++) {
    size_t len = strcspn(sql_view_statements[i] + strlen("CREATE VIEW "), " ");
    v->name_len[i] = (uint8_t)(len < 255 ? len : 255);
  }
  return WEFT_OK;
}

int sql_views_ensure(sql_views *v, const char *sql, base_error *err) {
  sql_views_batch b = {!sqlite3_get_autocommit(v->db), 0};
  int rc = sql_views_scan(v, sql, &b, err);
  return sql_views_end_batch(v, &b, rc, err);
}
