/* SPAN_JOIN / SPAN_LEFT_JOIN / SPAN_OUTER_JOIN virtual tables:
 *
 *   CREATE VIRTUAL TABLE j USING SPAN_JOIN(t1 [PARTITIONED col],
 *                                          t2 [PARTITIONED col]);
 *
 * t1 and t2 are tables or views with ts and dur columns. j's columns are ts,
 * dur, the partition column (when either input is partitioned), then t1's
 * other columns and t2's, in their order; a column name the two inputs share
 * (other than ts, dur and the partition) is an error. Each row is the
 * overlap of a span of t1 and one of t2 in the same partition (an input
 * without partition matches every partition of the other); the left join
 * also keeps the parts of t1's spans that meet nothing in t2 (t2's columns
 * NULL), the outer join those of both. Spans of one input in one partition
 * must not overlap (the rows are then not meaningful, as in Perfetto).
 *
 * Rows come out ordered by (partition, ts), computed by one sweep over both
 * inputs, read into memory and sorted there (span_join_rows.c,
 * span_join_sweep.c); WHERE is applied by SQLite. */
#include <ctype.h>

#include "sql/operators.h"

enum span_join_type { SPAN_INNER, SPAN_LEFT, SPAN_OUTER };

#define SPAN_MAX_COLUMNS 256

/* One input: its name, partition column and columns (name, declared type). */
typedef struct span_def {
  char *name;
  char *partition; /* NULL: not partitioned */
  int column_count;
  char *columns[SPAN_MAX_COLUMNS];
  char *types[SPAN_MAX_COLUMNS];
  int ts_col, dur_col, part_col;
} span_def;

typedef struct span_table {
  sqlite3_vtab base; /* must be first */
  sqlite3 *db;
  int type;          /* enum span_join_type */
  int sweeping;      /* reading the inputs now: j reached again is a cycle */
  int partitioning;  /* enum span_partitioning */
  span_def defs[2];
  int out_count;     /* output columns after ts, dur [, partition] */
  uint8_t out_input[2 * SPAN_MAX_COLUMNS];
  uint16_t out_column[2 * SPAN_MAX_COLUMNS];
} span_table;

typedef struct span_cursor {
  sqlite3_vtab_cursor base; /* must be first */
  span_sweep sweep;
  sqlite3_int64 rowid;
} span_cursor;

/* ---- definition ---- */

static void span_def_free(span_def *d) {
  sqlite3_free(d->name);
  sqlite3_free(d->partition);
  for (int i = 0; i < d->column_count; i++) {
    sqlite3_free(d->columns[i]);
    sqlite3_free(d->types[i]);
  }
  memset(d, 0, sizeof *d);
}

/* Splits "name [PARTITIONED col]" at spaces. */
static int span_parse_descriptor(const char *text, span_def *d, char **err) {
  char words[3][256];
  int n = 0;
  const char *p = text;
  while (*p) {
    while (isspace((unsigned char)*p)) p++;
    if (!*p) break;
    const char *start = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    size_t len = (size_t)(p - start);
    if (n == 3 || len >= sizeof words[0]) {
      *err = sqlite3_mprintf("SPAN_JOIN: Invalid token");
      return SQLITE_ERROR;
    }
    memcpy(words[n], start, len);
    words[n++][len] = '\0';
  }
  if (n == 0) {
    *err = sqlite3_mprintf("SPAN_JOIN: Missing table name");
    return SQLITE_ERROR;
  }
  if (n > 1 && sqlite3_stricmp(words[1], "PARTITIONED") != 0) {
    *err = sqlite3_mprintf("SPAN_JOIN: Invalid token");
    return SQLITE_ERROR;
  }
  if (n == 2) {
    *err = sqlite3_mprintf("SPAN_JOIN: Missing partitioning column");
    return SQLITE_ERROR;
  }
  d->name = sqlite3_mprintf("%s", words[0]);
  d->partition = n == 3 ? sqlite3_mprintf("%s", words[2]) : NULL;
  if (!d->name || (n == 3 && !d->partition)) return SQLITE_NOMEM;
  return SQLITE_OK;
}

static int span_is_time_column(const char *name) {
  return strcmp(name, "ts") == 0 || strcmp(name, "dur") == 0;
}

/* Reads the input's columns (PRAGMA table_info) and finds ts, dur and the
 * partition among them. */
static int span_load_columns(sqlite3 *db, span_def *d, char **err) {
  if (d->partition && span_is_time_column(d->partition)) {
    *err = sqlite3_mprintf("SPAN_JOIN: partition column cannot be any of {ts, dur} "
                           "for table %s", d->name);
    return SQLITE_ERROR;
  }
  char *sql = sqlite3_mprintf("PRAGMA table_info(\"%w\")", d->name);
  sqlite3_stmt *stmt = NULL;
  int rc = sql ? sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) : SQLITE_NOMEM;
  sqlite3_free(sql);
  d->ts_col = d->dur_col = d->part_col = -1;
  while (rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
    if (d->column_count == SPAN_MAX_COLUMNS) {
      rc = SQLITE_ERROR;
      *err = sqlite3_mprintf("SPAN_JOIN: table %s has too many columns", d->name);
      break;
    }
    const char *name = (const char *)sqlite3_column_text(stmt, 1);
    const char *type = (const char *)sqlite3_column_text(stmt, 2);
    int i = d->column_count;
    d->columns[i] = sqlite3_mprintf("%s", name ? name : "");
    d->types[i] = sqlite3_mprintf("%s", type ? type : "");
    if (!d->columns[i] || !d->types[i]) rc = SQLITE_NOMEM;
    d->column_count++;
    if (rc != SQLITE_OK) break;
    if (strcmp(d->columns[i], "ts") == 0) d->ts_col = i;
    else if (strcmp(d->columns[i], "dur") == 0) d->dur_col = i;
    else if (d->partition && strcmp(d->columns[i], d->partition) == 0) d->part_col = i;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) return rc;
  if (d->column_count == 0) {
    *err = sqlite3_mprintf("Unknown table or view name '%s'", d->name);
    return SQLITE_ERROR;
  }
  if (d->ts_col < 0 || d->dur_col < 0) {
    *err = sqlite3_mprintf("SPAN_JOIN: Missing one of columns {ts, dur} in table %s",
                           d->name);
    return SQLITE_ERROR;
  }
  if (d->partition && d->part_col < 0) {
    *err = sqlite3_mprintf("SPAN_JOIN: Missing partition column '%s' in table '%s'",
                           d->partition, d->name);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Whether column i of d is passed through as one of j's own columns. */
static int span_is_passed(const span_table *t, const span_def *d, int i) {
  if (i == d->ts_col || i == d->dur_col) return 0;
  if (d->part_col == i) return 0;
  /* Both partitioned: the shared partition name is j's partition column. */
  return t->partitioning != SPAN_SAME_PARTITION ||
         strcmp(d->columns[i], t->defs[0].partition) != 0;
}

/* The first column name the two inputs both pass through, or NULL. */
static const char *span_duplicate_column(const span_table *t) {
  const span_def *a = &t->defs[0], *b = &t->defs[1];
  const char *part = a->partition ? a->partition : b->partition;
  for (int i = 0; i < a->column_count; i++) {
    if (span_is_time_column(a->columns[i]) || (part && !strcmp(a->columns[i], part)))
      continue;
    for (int j = 0; j < b->column_count; j++)
      if (strcmp(a->columns[i], b->columns[j]) == 0) return a->columns[i];
  }
  return NULL;
}

static int span_partitioning(span_table *t, char **err) {
  const span_def *a = &t->defs[0], *b = &t->defs[1];
  if (!a->partition && !b->partition) {
    t->partitioning = SPAN_UNPARTITIONED;
  } else if (a->partition && b->partition) {
    if (strcmp(a->partition, b->partition) != 0) {
      *err = sqlite3_mprintf("SPAN_JOIN: mismatching partitions between the two tables; "
                             "(partition %s in table %s, partition %s in table %s)",
                             a->partition, a->name, b->partition, b->name);
      return SQLITE_ERROR;
    }
    t->partitioning = SPAN_SAME_PARTITION;
  } else {
    t->partitioning = SPAN_MIXED_PARTITION;
  }
  return SQLITE_OK;
}

/* Declares j's columns and records where each comes from. */
static int span_declare(span_table *t) {
  base_buf sql;
  base_buf_init(&sql, 0);
  int rc = base_buf_appendf(&sql, "CREATE TABLE x(ts BIGINT, dur BIGINT");
  const char *part = t->defs[0].partition ? t->defs[0].partition : t->defs[1].partition;
  if (rc == 0 && part) rc = base_buf_appendf(&sql, ", \"%s\" BIGINT", part);
  t->out_count = 0;
  for (int k = 0; k < 2 && rc == 0; k++) {
    const span_def *d = &t->defs[k];
    for (int i = 0; i < d->column_count && rc == 0; i++) {
      if (!span_is_passed(t, d, i)) continue;
      rc = base_buf_appendf(&sql, ", \"%s\" %s", d->columns[i], d->types[i]);
      t->out_input[t->out_count] = (uint8_t)k;
      t->out_column[t->out_count++] = (uint16_t)i;
    }
  }
  if (rc == 0) rc = base_buf_appendf(&sql, ")");
  int declared = rc == 0 ? sqlite3_declare_vtab(t->db, sql.data) : SQLITE_NOMEM;
  base_buf_free(&sql);
  return declared;
}

static void span_table_free(span_table *t) {
  if (!t) return;
  span_def_free(&t->defs[0]);
  span_def_free(&t->defs[1]);
  sqlite3_free(t->base.zErrMsg);
  sqlite3_free(t);
}

static int span_join_type_of(const char *module) {
  if (sqlite3_stricmp(module, "span_left_join") == 0) return SPAN_LEFT;
  if (sqlite3_stricmp(module, "span_outer_join") == 0) return SPAN_OUTER;
  return SPAN_INNER;
}

/* xCreate and xConnect: parse the arguments, read both inputs' columns. */
static int span_create(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **out, char **err) {
  (void)aux;
  if (argc != 5) {
    *err = sqlite3_mprintf("SPAN_JOIN: expected exactly two arguments");
    return SQLITE_ERROR;
  }
  span_table *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->db = db;
  t->type = span_join_type_of(argv[0]);
  int rc = span_parse_descriptor(argv[3], &t->defs[0], err);
  if (rc == SQLITE_OK) rc = span_parse_descriptor(argv[4], &t->defs[1], err);
  if (rc == SQLITE_OK) rc = span_partitioning(t, err);
  if (rc == SQLITE_OK) rc = span_load_columns(db, &t->defs[0], err);
  if (rc == SQLITE_OK) rc = span_load_columns(db, &t->defs[1], err);
  const char *dup = rc == SQLITE_OK ? span_duplicate_column(t) : NULL;
  if (dup) {
    *err = sqlite3_mprintf("SPAN_JOIN: column %s present in both tables %s and %s", dup,
                           t->defs[0].name, t->defs[1].name);
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) rc = span_declare(t);
  if (rc != SQLITE_OK) {
    span_table_free(t);
    return rc;
  }
  *out = &t->base;
  return SQLITE_OK;
}

static int span_disconnect(sqlite3_vtab *base) {
  span_table_free((span_table *)base);
  return SQLITE_OK;
}

/* Every constraint is left to SQLite; the order (partition, ts), or ts when
 * unpartitioned, is the sweep's own. */
static int span_best_index(sqlite3_vtab *base, sqlite3_index_info *info) {
  span_table *t = (span_table *)base;
  const struct sqlite3_index_orderby *ob = info->aOrderBy;
  if (t->partitioning == SPAN_UNPARTITIONED) {
    info->orderByConsumed = info->nOrderBy == 1 && ob[0].iColumn == 0 && !ob[0].desc;
  } else {
    int part_first = info->nOrderBy >= 1 && ob[0].iColumn == 2 && !ob[0].desc;
    int ts_second = info->nOrderBy >= 2 && ob[1].iColumn == 0 && !ob[1].desc;
    info->orderByConsumed =
        (info->nOrderBy == 1 && part_first) || (info->nOrderBy == 2 && part_first && ts_second);
  }
  info->estimatedCost = 1e9;
  info->estimatedRows = 100000;
  return SQLITE_OK;
}

/* ---- scanning ---- */

/* SELECT every column of the input (sorted once read, span_join_rows.c). */
static int span_prepare_input(span_table *t, int k, span_input *in) {
  const span_def *d = &t->defs[k];
  base_buf sql;
  base_buf_init(&sql, 0);
  int rc = base_buf_appendf(&sql, "SELECT ");
  for (int i = 0; i < d->column_count && rc == 0; i++)
    rc = base_buf_appendf(&sql, "%s\"%s\"", i ? ", " : "", d->columns[i]);
  if (rc == 0) rc = base_buf_appendf(&sql, " FROM \"%s\"", d->name);
  int prepared = rc == 0 ? sqlite3_prepare_v2(t->db, sql.data, -1, &in->stmt, NULL)
                         : SQLITE_NOMEM;
  base_buf_free(&sql);
  if (prepared != SQLITE_OK) return prepared;
  in->rows.ts_col = d->ts_col;
  in->rows.dur_col = d->dur_col;
  in->rows.part_col = d->part_col;
  in->partitioned = d->part_col >= 0;
  /* An optional input shows its gaps, and the partitions it lacks unless
   * nothing is partitioned or it is the partitioned side of a mixed join. */
  int optional = t->type == SPAN_OUTER || (k == 1 && t->type == SPAN_LEFT);
  int mixed_partitioned = t->partitioning == SPAN_MIXED_PARTITION && d->partition;
  in->show_gaps = optional;
  in->show_missing =
      optional && t->partitioning != SPAN_UNPARTITIONED && !mixed_partitioned;
  return SQLITE_OK;
}

static int span_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out) {
  span_table *t = (span_table *)base;
  span_cursor *cur = sqlite3_malloc(sizeof *cur);
  if (!cur) return SQLITE_NOMEM;
  memset(cur, 0, sizeof *cur);
  cur->sweep.partitioning = t->partitioning;
  int rc = SQLITE_OK;
  for (int k = 0; k < 2 && rc == SQLITE_OK; k++)
    rc = span_prepare_input(t, k, &cur->sweep.in[k]);
  if (rc != SQLITE_OK) {
    op_vtab_error(base, "%s", sqlite3_errmsg(t->db));
    for (int k = 0; k < 2; k++) sqlite3_finalize(cur->sweep.in[k].stmt);
    sqlite3_free(cur);
    return rc;
  }
  *out = &cur->base;
  return SQLITE_OK;
}

static int span_close(sqlite3_vtab_cursor *base) {
  span_cursor *cur = (span_cursor *)base;
  for (int k = 0; k < 2; k++) {
    sqlite3_finalize(cur->sweep.in[k].stmt);
    span_rows_free(&cur->sweep.in[k].rows);
  }
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* On failure, stores msg as the table's error. */
static int span_report(span_cursor *cur, int rc, char *msg) {
  if (rc == SQLITE_OK) return rc;
  sqlite3_vtab *vt = cur->base.pVtab;
  sqlite3_free(vt->zErrMsg);
  vt->zErrMsg = msg;
  return rc;
}

/* An input that reads j itself (a view over j put in an input's place
 * after j was made) would recurse without end. */
static int span_cycle_error(sqlite3_vtab_cursor *base) {
  return op_vtab_error(base->pVtab, "SPAN_JOIN: an input reads the span join itself");
}

static int span_filter(sqlite3_vtab_cursor *base, int idx_num, const char *idx_str,
                       int argc, sqlite3_value **argv) {
  (void)idx_num, (void)idx_str, (void)argc, (void)argv;
  span_cursor *cur = (span_cursor *)base;
  span_table *t = (span_table *)base->pVtab;
  /* An empty optional input covers everything, unless it is the
   * unpartitioned side of a mixed join (read again per partition). */
  int empty_is_missing[2];
  for (int k = 0; k < 2; k++) {
    int optional = t->type == SPAN_OUTER || (k == 1 && t->type == SPAN_LEFT);
    int mixed = t->partitioning == SPAN_MIXED_PARTITION && t->defs[k].partition;
    empty_is_missing[k] = optional && !mixed;
  }
  cur->rowid = 0;
  if (t->sweeping) return span_cycle_error(base);
  char *msg = NULL;
  t->sweeping = 1;
  int rc = span_sweep_start(&cur->sweep, empty_is_missing, &msg);
  t->sweeping = 0;
  return span_report(cur, rc, msg);
}

static int span_next(sqlite3_vtab_cursor *base) {
  span_cursor *cur = (span_cursor *)base;
  span_table *t = (span_table *)base->pVtab;
  if (t->sweeping) return span_cycle_error(base);
  char *msg = NULL;
  cur->rowid++;
  t->sweeping = 1;
  int rc = span_sweep_step(&cur->sweep, &msg);
  t->sweeping = 0;
  return span_report(cur, rc, msg);
}

static int span_eof(sqlite3_vtab_cursor *base) {
  return span_sweep_done(&((span_cursor *)base)->sweep);
}

static int span_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col) {
  span_cursor *cur = (span_cursor *)base;
  span_table *t = (span_table *)base->pVtab;
  const span_sweep *s = &cur->sweep;
  int fixed = t->partitioning == SPAN_UNPARTITIONED ? 2 : 3;
  if (col == 0) {
    sqlite3_result_int64(ctx, span_sweep_ts(s));
  } else if (col == 1) {
    sqlite3_result_int64(ctx, span_sweep_dur(s));
  } else if (col == 2 && fixed == 3) {
    sqlite3_result_int64(ctx, span_sweep_partition(s));
  } else if (col - fixed < t->out_count) {
    const span_input *in = &s->in[t->out_input[col - fixed]];
    if (in->kind == SPAN_REAL)
      span_rows_result(&in->rows, in->part_at, in->pos, t->out_column[col - fixed], ctx);
  }
  return SQLITE_OK;
}

static int span_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid) {
  *rowid = ((span_cursor *)base)->rowid;
  return SQLITE_OK;
}

static const sqlite3_module span_module = {
    .iVersion = 0,
    .xCreate = span_create,
    .xConnect = span_create,
    .xBestIndex = span_best_index,
    .xDisconnect = span_disconnect,
    .xDestroy = span_disconnect,
    .xOpen = span_open,
    .xClose = span_close,
    .xFilter = span_filter,
    .xNext = span_next,
    .xEof = span_eof,
    .xColumn = span_column,
    .xRowid = span_rowid,
};

int span_join_register(sqlite3 *db, sql_engine *e) {
  (void)e;
  static const char *const names[] = {"span_join", "span_left_join", "span_outer_join"};
  for (int i = 0; i < 3; i++)
    if (sqlite3_create_module_v2(db, names[i], &span_module, NULL, NULL) != SQLITE_OK)
      return WEFT_ESQL;
  return WEFT_OK;
}
