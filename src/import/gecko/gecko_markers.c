/* gecko: a thread's markers, read from its "markers" table in one walk.
 * The processed format has one array per field ("name", "startTime",
 * "endTime", "phase", "category", "data"); the Gecko format has rows
 * under "data" whose cells a "schema" object names by index. Which one a
 * table is shows only at its end (a "schema" object), so numeric columns
 * are kept as numbers and the containers of the last array "data" as
 * spans: its objects are the data column, its arrays the rows. */
#include <math.h>
#include <string.h>
#include <sys/mman.h>

#include "import/gecko/gecko_internal.h"

static const char *const gecko_field_names[GK_FIELDS] = {"name", "startTime", "endTime",
                                                          "phase", "category", "data"};

/* ---- reading the table ---- */

/* The elements of the array whose '[' was just read, as numbers (NaN for
 * any other value): in one loop, the column's most common reading. */
static int gecko_read_numbers(gecko_reader *r, gecko_numbers *col, base_error *err) {
  json_token value;
  int rc;
  while (!(rc = json_next(r->tk, &value, err)) && value.type != JSON_TOK_ARRAY_END) {
    if (col->len == col->cap && VEC_RESERVE(*col, col->len + 1)) return base_error_nomem(err);
    col->data[col->len++] = gecko_token_number(&value);
    if (value.type == JSON_TOK_OBJECT_BEGIN || value.type == JSON_TOK_ARRAY_BEGIN)
      rc = json_skip_container(r->tk, err);
    if (rc) return rc;
  }
  return rc;
}

/* "data": its length, and the span of each container in it. */
typedef struct gecko_data_walk {
  gecko_marker_table *m;
  size_t index;
} gecko_data_walk;

static int gecko_data_element(gecko_reader *r, void *user, const json_token *value,
                              base_error *err) {
  gecko_data_walk *w = user;
  size_t index = w->index++;
  if (value->type != JSON_TOK_OBJECT_BEGIN && value->type != JSON_TOK_ARRAY_BEGIN)
    return WEFT_OK;
  gecko_item item = {.index = index};
  int rc = gecko_take(r, value, &item.span, err);
  if (!rc && VEC_PUSH(w->m->data_items, item)) rc = base_error_nomem(err);
  return rc;
}

static int gecko_read_data(gecko_reader *r, const json_token *value, gecko_marker_table *m,
                           base_error *err) {
  m->data_is_column = value->type == JSON_TOK_ARRAY_BEGIN;
  if (!m->data_is_column) return gecko_skip(r, value, err); /* the rows stay */
  m->data_items.len = 0;
  gecko_data_walk w = {m, 0};
  int rc = gecko_walk_elements(r, gecko_data_element, &w, err);
  m->data_len = w.index;
  return rc;
}

static int gecko_marker_table_member(gecko_reader *r, void *user, const json_token *key,
                                     const json_token *value, base_error *err) {
  gecko_marker_table *m = user;
  for (int k = 0; k < GK_DATA; k++) {
    if (!gecko_token_key_is(key, gecko_field_names[k])) continue;
    m->columns[k].len = 0;
    if (value->type != JSON_TOK_ARRAY_BEGIN) return gecko_skip(r, value, err);
    return gecko_read_numbers(r, &m->columns[k], err);
  }
  if (gecko_token_key_is(key, "data")) return gecko_read_data(r, value, m, err);
  if (gecko_token_key_is(key, "schema")) return gecko_take(r, value, &m->schema, err);
  return gecko_skip(r, value, err);
}

void gecko_marker_table_clear(gecko_marker_table *m) {
  for (int k = 0; k < GK_DATA; k++) m->columns[k].len = 0;
  m->data_len = 0;
  m->data_items.len = 0;
  m->data_is_column = 0;
  m->schema = (gecko_span){0};
}

int gecko_read_marker_table(gecko_reader *r, const json_token *t, gecko_marker_table *m,
                            base_error *err) {
  gecko_marker_table_clear(m);
  if (t->type != JSON_TOK_OBJECT_BEGIN) return gecko_skip(r, t, err);
  return gecko_walk_members(r, gecko_marker_table_member, m, err);
}

void gecko_marker_table_free(gecko_marker_table *m) {
  for (int k = 0; k < GK_DATA; k++) VEC_FREE(m->columns[k]);
  VEC_FREE(m->data_items);
}

/* ---- one marker ---- */

/* A marker's field values: a number each (NaN: not one), whether it is
 * there at all, and its data object (type JSON_TOK_EOF: none). */
typedef struct gecko_fields {
  double num[GK_DATA];
  unsigned char present[GK_DATA];
  gecko_span data;
} gecko_fields;

static double gecko_field(const gecko_fields *m, int k) {
  return m->present[k] ? m->num[k] : NAN;
}

static int gecko_field_time(const gecko_fields *m, int k, int64_t *ns) {
  double ms = gecko_field(m, k);
  return !isnan(ms) && gecko_ms_to_ns(ms, ns);
}

static uint32_t gecko_field_index(const gecko_fields *m, int k) {
  double d = gecko_field(m, k);
  return d >= 0 && d < (double)GECKO_NO_INDEX ? (uint32_t)d : GECKO_NO_INDEX;
}

/* The marker's slot in its thread's read: one per name index and
 * category index (a name index past the strings is no name). */
static int gecko_local_slot_of(gecko_thread_job *j, uint32_t name, uint32_t category,
                               uint32_t *slot) {
  if (name >= j->read.strings.spans.len) name = GECKO_NO_INDEX;
  uint64_t key = (uint64_t)name << 32 | category;
  uint64_t *found = base_map_find(&j->slot_map, key);
  if (found) {
    *slot = (uint32_t)*found;
    return WEFT_OK;
  }
  if (j->slots.len >= GECKO_NO_INDEX) return WEFT_ELIMIT;
  *slot = (uint32_t)j->slots.len;
  if (VEC_PUSH(j->slots, ((gecko_local_slot){name, category, GECKO_NO_INDEX}))) return WEFT_ENOMEM;
  return base_map_insert(&j->slot_map, key, *slot, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

/* The category is kept as its index until the profile's categories are
 * known (gecko_import.c). */
static int gecko_add_marker(gecko_thread_job *j, const gecko_fields *m) {
  gecko_marker mk = {0};
  double phase = m->present[GK_PHASE] ? m->num[GK_PHASE] : 0;
  if (isnan(phase)) phase = -1;
  int64_t start = 0, end = 0;
  int has_start = gecko_field_time(m, GK_START, &start);
  int has_end = gecko_field_time(m, GK_END, &end);
  mk.phase = phase == 0 || phase == 1 || phase == 2 || phase == 3 ? (uint32_t)phase : 4;
  int ok = mk.phase == 3 ? has_end : mk.phase < 3 && has_start && (mk.phase != 1 || has_end);
  if (!ok) {
    j->dropped++;
    return WEFT_OK;
  }
  mk.ts = mk.phase == 3 ? end : start;
  /* An interval's duration is its length in ms, then in ns (Perfetto's
   * order: not the difference of the two truncated times). */
  double length_ms = gecko_field(m, GK_END) - gecko_field(m, GK_START);
  if (mk.phase != 1 || !(length_ms > 0) || !gecko_ms_to_ns(length_ms, &mk.dur)) mk.dur = 0;
  int rc = gecko_local_slot_of(j, gecko_field_index(m, GK_NAME),
                               gecko_field_index(m, GK_CATEGORY), &mk.slot);
  mk.data = GECKO_NO_INDEX;
  if (!rc && m->data.type == JSON_TOK_OBJECT_BEGIN) {
    if (j->data.len >= GECKO_NO_INDEX) return WEFT_ELIMIT;
    mk.data = (uint32_t)j->data.len;
    if (VEC_PUSH(j->data, m->data)) rc = WEFT_ENOMEM;
  }
  if (!rc && VEC_PUSH(j->markers, mk)) rc = WEFT_ENOMEM;
  return rc;
}

/* ---- the table's markers ---- */

/* The processed format: marker i is element i of each column. */
static int gecko_column_markers(gecko_thread_job *j, const gecko_marker_table *t) {
  size_t n = t->columns[GK_NAME].len, item = 0;
  int rc = WEFT_OK;
  for (size_t i = 0; !rc && i < n; i++) {
    gecko_fields m;
    for (int k = 0; k < GK_DATA; k++) {
      m.present[k] = i < t->columns[k].len;
      m.num[k] = m.present[k] ? t->columns[k].data[i] : NAN;
    }
    m.data.type = JSON_TOK_EOF;
    while (t->data_is_column && item < t->data_items.len && t->data_items.data[item].index < i)
      item++;
    if (t->data_is_column && item < t->data_items.len && t->data_items.data[item].index == i &&
        t->data_items.data[item].span.type == JSON_TOK_OBJECT_BEGIN)
      m.data = t->data_items.data[item].span;
    rc = gecko_add_marker(j, &m);
  }
  return rc;
}

typedef struct gecko_schema {
  int64_t index[GK_FIELDS]; /* -1: absent */
} gecko_schema;

static int gecko_schema_member(import_file *f, void *user, const char *key, size_t len,
                               const gecko_span *v, base_error *err) {
  (void)err;
  gecko_schema *s = user;
  double d;
  for (int i = 0; i < GK_FIELDS; i++)
    if (gecko_key_is(key, len, gecko_field_names[i]) && gecko_number(f, v, &d) && d >= 0 &&
        d < 64)
      s->index[i] = (int64_t)d;
  return WEFT_OK;
}

/* A row's cells: those the schema names fill the fields. */
typedef struct gecko_row {
  const gecko_schema *schema;
  gecko_fields fields;
  int64_t cell;
} gecko_row;

static int gecko_row_cell(gecko_reader *r, void *user, const json_token *value,
                          base_error *err) {
  gecko_row *row = user;
  int64_t cell = row->cell++;
  gecko_span span = {0};
  int rc = gecko_take(r, value, &span, err);
  for (int k = 0; !rc && k < GK_FIELDS; k++) {
    if (row->schema->index[k] != cell) continue;
    if (k == GK_DATA) {
      if (span.type == JSON_TOK_OBJECT_BEGIN) row->fields.data = span;
      continue;
    }
    row->fields.present[k] = 1;
    row->fields.num[k] = gecko_token_number(value);
  }
  return rc;
}

/* The fields of a row (none when it is not an array). */
static int gecko_read_row(import_file *f, const gecko_span *s, gecko_row *row,
                          base_error *err) {
  memset(&row->fields, 0, sizeof row->fields);
  row->fields.data.type = JSON_TOK_EOF;
  row->cell = 0;
  if (!s || s->type != JSON_TOK_ARRAY_BEGIN) return WEFT_OK;
  json_tokenizer tk;
  gecko_reader r;
  json_token t;
  int rc = gecko_open(f, s, &tk, &r, &t, err);
  if (rc) return rc;
  rc = gecko_walk_elements(&r, gecko_row_cell, row, err);
  json_tokenizer_free(&tk);
  return rc;
}

/* The Gecko format: the rows of the last array "data". */
static int gecko_row_markers(gecko_thread_job *j, const gecko_marker_table *t,
                             base_error *err) {
  import_file *f = j->f;
  gecko_schema schema;
  for (int k = 0; k < GK_FIELDS; k++) schema.index[k] = -1;
  int rc = gecko_members(f, &t->schema, gecko_schema_member, &schema, err);
  gecko_row row = {.schema = &schema};
  size_t item = 0;
  for (size_t i = 0; !rc && i < t->data_len; i++) {
    const gecko_span *s = NULL;
    if (item < t->data_items.len && t->data_items.data[item].index == i)
      s = &t->data_items.data[item++].span;
    rc = gecko_read_row(f, s, &row, err);
    if (!rc) rc = gecko_add_marker(j, &row.fields);
  }
  return rc;
}

static int gecko_limit_error(int rc, base_error *err) {
  if (rc == WEFT_ELIMIT)
    return base_error_set(err, rc, "gecko: more than %u marker data objects or tracks",
                          GECKO_NO_INDEX - 1);
  return rc == WEFT_ENOMEM ? base_error_nomem(err) : rc;
}

int gecko_build_markers(gecko_thread_job *j, base_error *err) {
  const gecko_marker_table *m = &j->read.markers;
  j->markers.len = j->slots.len = j->data.len = 0;
  j->dropped = 0;
  base_map_free(&j->slot_map);
  int rc = m->schema.type == JSON_TOK_OBJECT_BEGIN ? gecko_row_markers(j, m, err)
                                                   : gecko_column_markers(j, m);
  base_map_free(&j->slot_map);
  if (!rc && gecko_order_markers(&j->order, j->markers.data, j->markers.len)) rc = WEFT_ENOMEM;
  return gecko_limit_error(rc, err);
}

/* ---- adding a thread's markers ---- */

/* The state's slot of a thread's name and category index. */
static int gecko_slot_of(gecko_state *st, uint32_t thread, string_id name, uint32_t category,
                         uint32_t *slot) {
  uint64_t key = (uint64_t)name << 32 | category;
  uint64_t *found = base_map_find(&st->slot_map, key);
  if (found) {
    *slot = (uint32_t)*found;
    return WEFT_OK;
  }
  if (st->slots.len >= GECKO_NO_INDEX) return WEFT_ELIMIT;
  *slot = (uint32_t)st->slots.len;
  gecko_slot s = {thread, name, category, STRING_NULL, GECKO_NO_INDEX};
  if (VEC_PUSH(st->slots, s)) return WEFT_ENOMEM;
  return base_map_insert(&st->slot_map, key, *slot, NULL) < 0 ? WEFT_ENOMEM : WEFT_OK;
}

/* Gives each of j's slots the state's: names are interned, and two names
 * of the same text share a slot. */
static int gecko_resolve_slots(import_file *f, uint32_t thread, gecko_thread_job *j) {
  gecko_state *st = f->state;
  gecko_strings *strings = &j->read.strings;
  int rc = gecko_strings_ready(strings);
  for (size_t i = 0; !rc && i < j->slots.len; i++) {
    gecko_local_slot *s = &j->slots.data[i];
    string_id name = STRING_NULL;
    if (s->name != GECKO_NO_INDEX) rc = gecko_strings_get(f, strings, s->name, &name);
    if (!rc) rc = gecko_slot_of(st, thread, name, s->category, &s->slot);
  }
  base_map_free(&st->slot_map);
  return rc;
}

/* Room in st->markers for `more` records. The table grows to tens of
 * MiB (it was reserved for the whole file: gecko_reserve_arrays); the
 * pages the records will be written to are asked for at once (a hint),
 * not faulted in one by one as the records are written. */
static int gecko_reserve_markers(gecko_state *st, size_t more) {
  size_t len = st->markers.len, want = len + more;
  if (more > SIZE_MAX - len) return WEFT_ENOMEM;
  if (want > st->markers.cap &&
      VEC_RESERVE(st->markers, want > 2 * st->markers.cap ? want : 2 * st->markers.cap))
    return WEFT_ENOMEM;
#ifdef MADV_POPULATE_WRITE
  uintptr_t lo = ((uintptr_t)(st->markers.data + len) + 4095) & ~(uintptr_t)4095;
  uintptr_t hi = (uintptr_t)(st->markers.data + want) & ~(uintptr_t)4095;
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#endif
  return WEFT_OK;
}

int gecko_add_markers(import_file *f, uint32_t thread, gecko_thread_job *j, base_error *err) {
  gecko_state *st = f->state;
  int rc = gecko_resolve_slots(f, thread, j);
  if (!rc && j->data.len >= GECKO_NO_INDEX - st->data.len) rc = WEFT_ELIMIT;
  if (!rc && VEC_RESERVE(st->data, st->data.len + j->data.len)) rc = WEFT_ENOMEM;
  if (!rc && gecko_reserve_markers(st, j->markers.len)) rc = WEFT_ENOMEM;
  if (rc) return gecko_limit_error(rc, err);
  uint32_t data_base = (uint32_t)st->data.len;
  if (j->data.len)
    memcpy(st->data.data + data_base, j->data.data, j->data.len * sizeof *j->data.data);
  st->data.len += j->data.len;
  int64_t last = st->markers.len ? st->markers.data[st->markers.len - 1].ts : INT64_MIN;
  for (size_t i = 0; i < j->markers.len; i++) { /* (none: the arrays may be NULL) */
    gecko_marker m = j->markers.data[i];
    m.thread = thread;
    m.slot = j->slots.data[m.slot].slot;
    if (m.data != GECKO_NO_INDEX) m.data += data_base;
    if (m.ts < last && VEC_PUSH(st->marker_breaks, st->markers.len))
      return gecko_limit_error(WEFT_ENOMEM, err);
    last = m.ts;
    st->markers.data[st->markers.len++] = m;
  }
  st->dropped += j->dropped;
  return WEFT_OK;
}
