/* gecko: a thread's stack samples, as Perfetto reads them.
 *
 * Frames are names: "name (in lib)" is frame `name` of a mapping named
 * `lib`; any other name is a frame of the mapping "gecko". Mappings and
 * frames are dummies (build id "", offsets 0, end -1; rel_pc 0), interned
 * like every stack_profile row. The stack table's rows are callsites,
 * each the frame below its prefix; a sample with a stack becomes a
 * cpu_profile_stack_sample row of its thread at its time (a sample
 * without one is skipped). Both layouts are read: columns (the processed
 * format: frameTable.func -> funcTable.name -> stringArray; stackTable
 * prefix/frame; samples stack/time) and rows under a schema (the Gecko
 * format: frameTable location -> stringTable). */
#include <string.h>

#include "import/gecko/gecko_internal.h"
#include "model/stack_profile.h"

typedef VEC(uint32_t) gecko_ids; /* rows by table index; UINT32_MAX: none */

/* A table read as columns: the columns named, each as its elements; or,
 * with a schema, its rows' cells at the schema's indices. */
#define GECKO_MAX_COLUMNS 2
typedef struct gecko_table_read {
  const char *names[GECKO_MAX_COLUMNS];
  gecko_span spans[GECKO_MAX_COLUMNS]; /* columns */
  gecko_span schema, rows;             /* rows */
  int64_t index[GECKO_MAX_COLUMNS];
  gecko_spans cols[GECKO_MAX_COLUMNS]; /* the values, by column */
} gecko_table_read;

static int gecko_table_read_member(import_file *f, void *user, const char *key, size_t len,
                                   const gecko_span *v, base_error *err) {
  (void)f, (void)err;
  gecko_table_read *t = user;
  for (int i = 0; i < GECKO_MAX_COLUMNS; i++)
    if (t->names[i] && gecko_key_is(key, len, t->names[i])) t->spans[i] = *v;
  if (gecko_key_is(key, len, "schema")) t->schema = *v;
  if (gecko_key_is(key, len, "data")) t->rows = *v;
  return WEFT_OK;
}

static int gecko_schema_index(import_file *f, void *user, const char *key, size_t len,
                              const gecko_span *v, base_error *err) {
  (void)err;
  gecko_table_read *t = user;
  double d;
  for (int i = 0; i < GECKO_MAX_COLUMNS; i++)
    if (t->names[i] && gecko_key_is(key, len, t->names[i]) && gecko_number(f, v, &d) &&
        d >= 0 && d < 64)
      t->index[i] = (int64_t)d;
  return WEFT_OK;
}

/* Reads the table into t->cols (missing cells as null spans). */
static int gecko_table_load(import_file *f, const gecko_span *table, gecko_table_read *t,
                            base_error *err) {
  for (int i = 0; i < GECKO_MAX_COLUMNS; i++) t->index[i] = -1;
  int rc = gecko_members(f, table, gecko_table_read_member, t, err);
  if (rc || t->schema.type != JSON_TOK_OBJECT_BEGIN) {
    for (int i = 0; !rc && i < GECKO_MAX_COLUMNS; i++)
      if (t->names[i]) rc = gecko_elements(f, &t->spans[i], &t->cols[i], err);
    return rc;
  }
  gecko_spans rows = {0}, cells = {0};
  rc = gecko_members(f, &t->schema, gecko_schema_index, t, err);
  if (!rc) rc = gecko_elements(f, &t->rows, &rows, err);
  for (size_t r = 0; !rc && r < rows.len; r++) {
    rc = gecko_elements(f, &rows.data[r], &cells, err);
    for (int i = 0; !rc && i < GECKO_MAX_COLUMNS; i++) {
      if (!t->names[i]) continue;
      gecko_span cell = {0, 0, JSON_TOK_NULL};
      if (t->index[i] >= 0 && (size_t)t->index[i] < cells.len) cell = cells.data[t->index[i]];
      if (VEC_PUSH(t->cols[i], cell)) rc = base_error_nomem(err);
    }
  }
  VEC_FREE(rows);
  VEC_FREE(cells);
  return rc;
}

static void gecko_table_free(gecko_table_read *t) {
  for (int i = 0; i < GECKO_MAX_COLUMNS; i++) VEC_FREE(t->cols[i]);
}

/* ---- frames ---- */

/* Interns the dummy mapping `name` (len bytes). */
static int gecko_mapping(import_file *f, const char *name, size_t len, uint32_t *id) {
  stack_profile_mapping_spec spec = {0};
  spec.end = -1;
  int rc = ctx_intern(f->ctx, "", 0, &spec.build_id);
  if (!rc) rc = ctx_intern(f->ctx, name, len, &spec.name);
  return rc ? rc : stack_profile_mapping(f->ctx, &spec, id);
}

/* The frame of function name `s` ("name (in lib)" or just "name"). */
static int gecko_frame(import_file *f, string_id s, uint32_t *frame) {
  const char *text = s ? base_string_pool_get(&f->ctx->strings, s) : "";
  const char *in = strstr(text, " (in ");
  const char *lib = in ? in + 5 : NULL;
  const char *lib_end = lib ? strchr(lib, ')') : NULL;
  uint32_t mapping;
  string_id name = s;
  int rc = lib_end ? gecko_mapping(f, lib, (size_t)(lib_end - lib), &mapping)
                   : gecko_mapping(f, "gecko", 5, &mapping);
  if (!rc && lib_end) rc = ctx_intern(f->ctx, text, (size_t)(in - text), &name);
  if (!rc) rc = stack_profile_frame(f->ctx, mapping, name, 0, STRING_NULL, frame);
  return rc ? rc : stack_profile_frame_symbol(f->ctx, *frame, name, STRING_NULL, -1);
}

/* The frames of the frame table, by index (UINT32_MAX: no name). */
static int gecko_frames(import_file *f, const gecko_stack_spans *s, const gecko_spans *strings,
                        gecko_ids *out, base_error *err) {
  gecko_table_read frames = {.names = {"func", "location"}};
  gecko_table_read funcs = {.names = {"name", NULL}};
  int rc = gecko_table_load(f, &s->frames, &frames, err);
  if (!rc) rc = gecko_table_load(f, &s->funcs, &funcs, err);
  int by_location = frames.cols[1].len > 0;
  size_t n = by_location ? frames.cols[1].len : frames.cols[0].len;
  for (size_t i = 0; !rc && i < n; i++) {
    size_t k, func;
    string_id name = STRING_NULL;
    if (by_location ? gecko_index(f, &frames.cols[1].data[i], strings->len, &k)
                    : gecko_index(f, &frames.cols[0].data[i], funcs.cols[0].len, &func) &&
                          gecko_index(f, &funcs.cols[0].data[func], strings->len, &k))
      rc = gecko_intern(f, &strings->data[k], &name);
    uint32_t frame = UINT32_MAX;
    if (!rc && name) rc = gecko_frame(f, name, &frame);
    if (!rc && VEC_PUSH(*out, frame)) rc = WEFT_ENOMEM;
    if (rc == WEFT_ENOMEM) rc = base_error_nomem(err);
  }
  gecko_table_free(&frames);
  gecko_table_free(&funcs);
  return rc;
}

/* ---- callsites and samples ---- */

static int gecko_callsites(import_file *f, const gecko_stack_spans *s, const gecko_ids *frames,
                           gecko_ids *out, base_error *err) {
  gecko_table_read stacks = {.names = {"prefix", "frame"}};
  int rc = gecko_table_load(f, &s->stacks, &stacks, err);
  size_t n = stacks.cols[1].len;
  for (size_t i = 0; !rc && i < n; i++) {
    size_t prefix, frame;
    int64_t parent = -1;
    uint32_t callsite = UINT32_MAX;
    if (i < stacks.cols[0].len && gecko_index(f, &stacks.cols[0].data[i], i, &prefix))
      parent = out->data[prefix] == UINT32_MAX ? -1 : (int64_t)out->data[prefix];
    if (gecko_index(f, &stacks.cols[1].data[i], frames->len, &frame) &&
        frames->data[frame] != UINT32_MAX)
      rc = stack_profile_callsite(f->ctx, parent, frames->data[frame], &callsite);
    if (!rc && VEC_PUSH(*out, callsite)) rc = WEFT_ENOMEM;
    if (rc == WEFT_ENOMEM) rc = base_error_nomem(err);
  }
  gecko_table_free(&stacks);
  return rc;
}

static int gecko_sample_rows(import_file *f, uint32_t thread, const gecko_stack_spans *s,
                             const gecko_ids *callsites, base_error *err) {
  gecko_state *st = f->state;
  gecko_table_read samples = {.names = {"stack", "time"}};
  int rc = gecko_table_load(f, &s->samples, &samples, err);
  size_t n = samples.cols[0].len < samples.cols[1].len ? samples.cols[0].len
                                                         : samples.cols[1].len;
  for (size_t i = 0; !rc && i < n; i++) {
    size_t stack;
    gecko_sample sample = {0, thread, UINT32_MAX};
    if (!gecko_index(f, &samples.cols[0].data[i], callsites->len, &stack) ||
        !gecko_time(f, &samples.cols[1].data[i], &sample.ts))
      continue;
    sample.callsite = callsites->data[stack];
    if (sample.callsite != UINT32_MAX && VEC_PUSH(st->samples, sample))
      rc = base_error_nomem(err);
  }
  gecko_table_free(&samples);
  return rc;
}

int gecko_read_samples(import_file *f, uint32_t thread, const gecko_stack_spans *s,
                       const gecko_spans *strings, base_error *err) {
  gecko_ids frames = {0}, callsites = {0};
  int rc = WEFT_OK;
  if (s->samples.type == JSON_TOK_OBJECT_BEGIN) rc = gecko_frames(f, s, strings, &frames, err);
  if (!rc && frames.len) rc = gecko_callsites(f, s, &frames, &callsites, err);
  if (!rc && callsites.len) rc = gecko_sample_rows(f, thread, s, &callsites, err);
  VEC_FREE(frames);
  VEC_FREE(callsites);
  return rc;
}
