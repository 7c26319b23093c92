/* The span join sweep: see the span_sweep section of operators.h.
 *
 * Spans are [ts, ts + dur); a span of dur -1 counts as ending at its ts when
 * deciding overlaps and order (its row's dur comes out -1). Arithmetic on ts / dur wraps instead of overflowing. */
#include "sql/operators.h"

static int64_t span_add(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}

/* The end used for overlaps and order: a dur -1 span ends at its start. */
static int64_t span_adjusted_end(const span_input *in) {
  return span_add(in->end, -in->ts) == -1 ? in->ts : in->end;
}

static const span_row *span_current(const span_input *in) {
  return span_part_row(&in->rows.parts[in->part_at], in->pos);
}

/* Moves to the input's next row: the next of its partition, or the first
 * of the next partition. */
static int span_fetch(span_input *in, char **msg) {
  (void)msg;
  if (in->row_eof) return SQLITE_OK;
  if (++in->pos == in->rows.parts[in->part_at].count) {
    in->pos = 0;
    in->part_at++;
  }
  in->row_eof = in->part_at >= in->rows.part_count;
  return SQLITE_OK;
}

static int64_t span_row_part(const span_input *in) {
  return in->rows.parts[in->part_at].part;
}

/* Moves to the input's next piece, shown or not. */
static int span_next_piece(span_input *in, char **msg) {
  switch (in->kind) {
    case SPAN_REAL: { /* the gap after it: to the next span or to the end */
      int64_t from = span_adjusted_end(in);
      int rc = span_fetch(in, msg);
      if (rc) return rc;
      int last = in->row_eof || (in->partitioned && span_row_part(in) != in->part);
      in->kind = SPAN_GAP;
      in->ts = from;
      in->end = last ? INT64_MAX : span_current(in)->ts;
      return SQLITE_OK;
    }
    case SPAN_GAP:
      if (in->end == INT64_MAX) { /* the partitions before the next row's */
        in->kind = SPAN_MISSING;
        in->ts = 0;
        in->miss_lo = span_add(in->part, 1);
        in->miss_hi = in->row_eof ? INT64_MAX : span_row_part(in);
      } else {
        in->kind = SPAN_REAL;
        in->ts = span_current(in)->ts;
        in->end = span_add(in->ts, span_current(in)->dur);
      }
      return SQLITE_OK;
    case SPAN_MISSING:
      if (in->miss_hi == INT64_MAX) {
        in->kind = SPAN_END;
      } else { /* the gap before the first span of the next partition */
        in->kind = SPAN_GAP;
        in->ts = 0;
        in->end = span_current(in)->ts;
        in->part = in->miss_hi;
      }
      return SQLITE_OK;
    default: return SQLITE_OK;
  }
}

static int span_piece_shown(const span_input *in) {
  switch (in->kind) {
    case SPAN_REAL: return 1;
    case SPAN_GAP: return in->show_gaps && in->ts != in->end;
    case SPAN_MISSING:
      return in->show_missing && in->ts != in->end && in->miss_lo != in->miss_hi;
    default: return 1;
  }
}

/* Moves to the input's next shown piece (or its end). */
static int span_advance(span_input *in, char **msg) {
  do {
    int rc = span_next_piece(in, msg);
    if (rc) return rc;
  } while (in->kind != SPAN_END && !span_piece_shown(in));
  return SQLITE_OK;
}

/* Goes back to the input's first row: its first piece covers the
 * partitions before the first row's (all of them if there is none). */
static int span_rewind(span_input *in, char **msg) {
  in->part_at = in->pos = 0;
  in->row_eof = in->rows.part_count == 0;
  in->kind = SPAN_MISSING;
  in->ts = 0;
  in->end = INT64_MAX;
  in->miss_lo = INT64_MIN;
  in->miss_hi = in->row_eof ? INT64_MAX : span_row_part(in);
  in->part = INT64_MIN;
  return span_piece_shown(in) ? SQLITE_OK : span_advance(in, msg);
}

static int64_t span_first_part(const span_input *in) {
  return in->kind == SPAN_MISSING ? in->miss_lo : in->part;
}

static int64_t span_last_part(const span_input *in) {
  return in->kind == SPAN_MISSING ? span_add(in->miss_hi, -1) : in->part;
}

static int span_overlaps(const span_sweep *s) {
  const span_input *a = &s->in[0], *b = &s->in[1];
  if (a->kind == SPAN_END || b->kind == SPAN_END) return 0;
  if (a->kind != SPAN_REAL && b->kind != SPAN_REAL) return 0;
  if (s->partitioning == SPAN_SAME_PARTITION &&
      (span_first_part(a) > span_last_part(b) || span_first_part(b) > span_last_part(a)))
    return 0;
  if (a->ts == b->ts && a->kind == SPAN_REAL && b->kind == SPAN_REAL) return 1;
  return (a->ts >= b->ts && a->ts < span_adjusted_end(b)) ||
         (b->ts >= a->ts && b->ts < span_adjusted_end(a));
}

/* The input whose piece ends first: by partition, end, then gap first. */
static span_input *span_first_to_end(span_sweep *s) {
  span_input *a = &s->in[0], *b = &s->in[1];
  int64_t pa = 0, pb = 0;
  if (s->partitioning == SPAN_MIXED_PARTITION) {
    if (a->kind == SPAN_END) return b;
    if (b->kind == SPAN_END) return a;
  } else if (s->partitioning == SPAN_SAME_PARTITION) {
    pa = span_last_part(a);
    pb = span_last_part(b);
  }
  if (pa != pb) return pa < pb ? a : b;
  int64_t ea = span_adjusted_end(a), eb = span_adjusted_end(b);
  if (ea != eb) return ea < eb ? a : b;
  return (a->kind == SPAN_REAL) < (b->kind == SPAN_REAL) ? a : b;
}

/* Steps the inputs until their pieces overlap or the join is done. With one
 * input partitioned, the other is read again from the start for each of its
 * partitions. */
static int span_find_overlap(span_sweep *s, char **msg) {
  for (;;) {
    if (s->partitioning == SPAN_MIXED_PARTITION) {
      int p = s->in[0].partitioned ? 0 : 1;
      if (s->in[p].kind == SPAN_END) return SQLITE_OK;
      if (s->mixed_part != s->in[p].part) {
        int rc = span_rewind(&s->in[1 - p], msg);
        if (rc) return rc;
        s->mixed_part = s->in[p].part;
      }
    } else if (span_sweep_done(s)) {
      return SQLITE_OK;
    }
    s->next = span_first_to_end(s);
    if (span_overlaps(s)) return SQLITE_OK;
    int rc = span_advance(s->next, msg);
    if (rc) return rc;
  }
}

int span_sweep_start(span_sweep *s, const int empty_is_missing[2], char **msg) {
  s->mixed_part = INT64_MIN;
  s->next = NULL;
  for (int i = 0; i < 2; i++) {
    int rc = span_rows_load(&s->in[i].rows, s->in[i].stmt, msg);
    if (rc) return rc;
  }
  for (int i = 0; i < 2; i++) {
    span_input *in = &s->in[i];
    int rc = span_rewind(in, msg);
    if (rc) return rc;
    if (in->kind == SPAN_END && empty_is_missing[i]) {
      in->kind = SPAN_MISSING;
      in->ts = 0;
      in->end = INT64_MAX;
      in->miss_lo = INT64_MIN;
      in->miss_hi = INT64_MAX;
    }
  }
  return span_find_overlap(s, msg);
}

int span_sweep_step(span_sweep *s, char **msg) {
  int rc = span_advance(s->next, msg);
  return rc ? rc : span_find_overlap(s, msg);
}

int span_sweep_done(const span_sweep *s) {
  return s->in[0].kind == SPAN_END || s->in[1].kind == SPAN_END;
}

int64_t span_sweep_ts(const span_sweep *s) {
  return s->in[0].ts > s->in[1].ts ? s->in[0].ts : s->in[1].ts;
}

int64_t span_sweep_dur(const span_sweep *s) {
  int64_t end = s->in[0].end < s->in[1].end ? s->in[0].end : s->in[1].end;
  return span_add(end, -span_sweep_ts(s));
}

int64_t span_sweep_partition(const span_sweep *s) {
  if (s->partitioning == SPAN_MIXED_PARTITION) return s->mixed_part;
  return s->in[0].kind == SPAN_REAL ? s->in[0].part : s->in[1].part;
}
