/* The finish stage: once every file is tokenized, trace time is placed
 * (manifest relations, claims, defaults), the clock graph resolved, the
 * sorted events parsed by their importers, and the tables finalized. */
#include <assert.h>
#include <stdio.h>

#include "core/loader_internal.h"
#include "model/kcounter.h"

/* What the sorter's callbacks receive. */
typedef struct finish_ctx {
  loader *l;
  base_error *err;
} finish_ctx;

/* clock_snapshot: one row per clock of every snapshot and relation; ts is
 * the snapshot's instant in trace time (the first of its clocks that
 * converts). Private per-file clocks are not shown (they have no id), nor
 * the aliases weft added (import_clock_alias), which take no snapshot_id. */
static int finish_snapshot_rows(trace_context *ctx, clock_graph *g,
                                const clock_snapshot_view *v, uint32_t snapshot_id) {
  storage_table *t = ctx_table(ctx, TABLE_CLOCK_SNAPSHOT);
  int64_t ts = 0;
  for (size_t i = 0; i < v->count; i++)
    if (clock_graph_convert(g, v->nodes[i], v->values[i], &ts) == CLOCK_OK) break;
  for (size_t i = 0; i < v->count; i++) {
    if (v->keys[i].clock_id == CLOCK_ID_FILE_PRIVATE) continue;
    uint32_t row;
    string_id name = STRING_NULL;
    const char *cname = clock_name_from_id(v->keys[i].clock_id);
    int rc = ctx_intern(ctx, cname, cname ? strlen(cname) : 0, &name);
    if (!rc) rc = storage_table_append(t, &row);
    if (rc) return rc;
    storage_set_i64(t, CLOCK_SNAPSHOT_ts, row, ts);
    storage_set_i64(t, CLOCK_SNAPSHOT_clock_id, row, (int64_t)v->keys[i].clock_id);
    storage_set_str(t, CLOCK_SNAPSHOT_clock_name, row, name);
    storage_set_i64(t, CLOCK_SNAPSHOT_clock_value, row, v->values[i]);
    storage_set_i64(t, CLOCK_SNAPSHOT_snapshot_id, row, snapshot_id);
    int64_t m = model_machine_column(v->keys[i].machine);
    if (m >= 0) storage_set_i64(t, CLOCK_SNAPSHOT_machine_id, row, m);
  }
  return WEFT_OK;
}

static int finish_clock_snapshots(loader *l) {
  clock_graph *g = &l->host.clocks;
  size_t count = clock_graph_snapshot_count(g);
  uint32_t hidden = 0;
  for (uint32_t id = 0; id < count; id++) {
    clock_snapshot_view v;
    if (!clock_graph_snapshot_get(g, id, &v)) continue;
    if (v.hidden) {
      hidden++;
      continue;
    }
    int rc = finish_snapshot_rows(l->ctx, g, &v, id - hidden);
    if (rc) return rc;
  }
  return WEFT_OK;
}

/* The name of trace_file row `id` (a lone input's, once cleared). */
static const char *finish_row_name(const loader *l, uint32_t id) {
  string_id name = storage_get_str(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_name, id);
  if (name != STRING_NULL) return base_string_pool_get(&l->ctx->strings, name);
  return l->single_name != STRING_NULL ? loader_single_input_name(l) : "the manifest";
}

/* Trace time (the manifest's relations and claims, the files' claims, else
 * BOOTTIME of machine row 0), the resolved clock graph and its rows. */
static int finish_place_clocks(loader *l, base_error *err) {
  size_t n = l->host.files.len;
  plan_file *files = base_calloc(n + 1, sizeof *files);
  if (!files) return base_error_nomem(err);
  for (size_t i = 0; i < n; i++) {
    const import_file *f = l->host.files.data[i];
    files[i] = (plan_file){f->path, f->trace_id, f->machine};
  }
  int rc = plan_place_clocks(&l->plan, l->ctx, &l->host.clocks, files, n, err);
  base_free(files);
  if (rc && l->plan.top_level) base_error_name_file(err, finish_row_name(l, l->plan.manifest_id));
  if (rc == WEFT_OK) rc = clock_graph_resolve(&l->host.clocks, err);
  if (rc == WEFT_OK && finish_clock_snapshots(l) != WEFT_OK) rc = base_error_nomem(err);
  return rc;
}

/* The sorter's prepare step: the importer's, when it has one. */
static size_t finish_prepare(void *user, const sort_event *e, void *out) {
  const finish_ctx *c = user;
  const import_file *f = c->l->host.files.data[e->source];
  return f->ops->prepare ? f->ops->prepare(f, e, out) : 0;
}

static int finish_convert(void *user, uint32_t source, uint32_t clock, int64_t ts,
                          int64_t *out) {
  return import_host_convert(&((finish_ctx *)user)->l->host, source, clock, ts, out);
}

/* The files' prefetch hints, by source: the importer's rule with the
 * file's struct warmed along (NULL when out of memory: no hints). */
static sort_locate_rule *finish_locate_rules(const loader *l) {
  size_t n = l->host.files.len;
  sort_locate_rule *rules = base_calloc(n + 1, sizeof *rules);
  for (size_t i = 0; rules && i < n; i++) {
    const import_file *f = l->host.files.data[i];
    if (f->ops->locate_rule) f->ops->locate_rule(f, &rules[i]);
    rules[i].warm[0] = f;
  }
  return rules;
}

static int finish_emit(void *user, const sort_event *e, void *prepared) {
  finish_ctx *c = user;
  import_file *f = c->l->host.files.data[e->source];
  c->l->ctx->model.scope_machine = f->machine;
  c->l->ctx->model.scope_trace = f->trace_id;
  assert(f->ops->parse); /* only importers that push events get here */
  int rc = f->ops->parse(f, e, prepared, c->err);
  if (rc) base_error_name_file(c->err, f->name);
  return rc;
}

/* With --threads > 1, a helper thread makes the tables' growing arrays
 * resident ahead of the parse's appends (storage.h); NULL when single
 * threaded or when it cannot start (the parse then faults them in). */
static storage_prefaulter *finish_prefault_start(loader *l) {
  storage_prefaulter *p = NULL;
  if (l->ahead.threads < 2 || storage_prefaulter_start(&p) != WEFT_OK || !p) return NULL;
  for (int i = 0; i < TABLE_COUNT; i++) storage_table_set_prefaulter(ctx_table(l->ctx, i), p);
  return p;
}

static void finish_prefault_stop(loader *l, storage_prefaulter *p) {
  if (!p) return;
  for (int i = 0; i < TABLE_COUNT; i++) storage_table_set_prefaulter(ctx_table(l->ctx, i), NULL);
  storage_prefaulter_stop(p);
}

/* Every event, in trace time order, to its importer's parse; then each
 * importer's end. */
static int finish_parse(loader *l, base_error *err) {
  finish_ctx c = {l, err};
  storage_prefaulter *prefaulter = finish_prefault_start(l);
  sort_locate_rule *rules = finish_locate_rules(l);
  sorter *s = &l->host.sorter;
  sorter_set_locate_rules(s, rules, l->host.files.len);
  int rc = sorter_run_prepared(s, finish_convert, l->prepare ? finish_prepare : NULL,
                               IMPORT_PREPARED_MAX, finish_emit, &c);
  sorter_set_locate_rules(s, NULL, 0);
  base_free(rules);
  for (size_t i = 0; rc == WEFT_OK && i < l->host.files.len; i++) {
    import_file *f = l->host.files.data[i];
    l->ctx->model.scope_machine = f->machine;
    l->ctx->model.scope_trace = f->trace_id;
    if (f->ops->end) rc = f->ops->end(f, err);
  }
  /* rss_stat values take their tracks, then the slices still open are
   * written, after the importers' ends */
  if (rc == WEFT_OK && (rc = kcounter_process_memory_resolve(l->ctx)) != 0)
    base_error_alloc(err, rc);
  if (rc == WEFT_OK && (rc = model_args_note_end(l->ctx)) != 0) base_error_alloc(err, rc);
  finish_prefault_stop(l, prefaulter);
  return rc;
}

/* Debug builds: every id column refers to a row (schema.h's WEFT_REFS), an
 * invariant of the model that the tests then check on every trace they
 * load. A dangling id fails the load, naming it. */
static int finish_check_refs(loader *l, base_error *err) {
#ifdef NDEBUG
  (void)l, (void)err;
  return WEFT_OK;
#else
  char what[256];
  long bad = schema_check_refs(l->ctx->tables, what, sizeof what);
  if (bad < 0) return base_error_nomem(err);
  if (bad > 0)
    return base_error_set(err, WEFT_EINVAL, "internal error: %ld dangling ids, first %s",
                          bad, what);
  return WEFT_OK;
#endif
}

/* The uuid made from the first input's head, unless the trace gave one:
 * as Perfetto makes it, the FNV-1a 64 of the first 4096 raw bytes as the
 * last 16 hex digits of a zero uuid. */
static int finish_default_uuid(loader *l) {
  if (!l->has_head_hash || ctx_metadata_has(l->ctx, "trace_uuid")) return WEFT_OK;
  char uuid[40];
  snprintf(uuid, sizeof uuid, "00000000-0000-0000-%04x-%012llx",
           (unsigned)(l->head_hash >> 48),
           (unsigned long long)(l->head_hash & UINT64_C(0xffffffffffff)));
  return ctx_metadata_set_str(l->ctx, "trace_uuid", uuid, -1, -1);
}

/* The clock that won trace time, in the context. Its metadata row is the
 * one the first file to set it wrote (ctx_metadata_trace_time): a trace
 * that never sets it, as a proto trace without clock snapshots, has none,
 * as in Perfetto. */
static int finish_trace_time(loader *l) {
  clock_key trace_time;
  clock_graph_trace_time(&l->host.clocks, &trace_time, NULL);
  l->ctx->trace_time_clock = trace_time.clock_id;
  l->ctx->trace_time_machine = trace_time.machine;
  return finish_default_uuid(l);
}

/* The files' importer states, then the bytes (their holds unpoison the
 * bytes first). */
static void finish_free_inputs(loader *l) {
  import_host_free_files(&l->host);
  loader_free_blobs(l);
}

int loader_finish(loader *l, base_error *err) {
  ahead_stop(&l->ahead); /* every file is tokenized: the workers are done */
  /* Perfetto times its Parse calls (reading and tokenizing, not the sorted
   * parse at the end of the file); a load that read anything took > 0 ns. */
  if (l->top_level_count > 0 &&
      stats_set(&l->ctx->stats, stat_parse_trace_duration_ns, -1, -1, -1,
                l->parse_ns > 0 ? l->parse_ns : 1))
    return base_error_nomem(err);
  /* A single input is the trace itself: Perfetto leaves its name NULL. */
  if (l->top_level_count == 1 && l->first_top_level >= 0) {
    storage_table *files = ctx_table(l->ctx, TABLE_TRACE_FILE);
    l->single_name = storage_get_str(files, TRACE_FILE_name, (size_t)l->first_top_level);
    storage_set_str(files, TRACE_FILE_name, (size_t)l->first_top_level, STRING_NULL);
  }
  int rc = finish_place_clocks(l, err);
  if (rc) return rc;
  ctx_metadata_at_parse(l->ctx);
  rc = finish_parse(l, err);
  if (!rc && placement_fill(l)) rc = base_error_nomem(err);
  finish_free_inputs(l);
  if (rc) return rc;
  rc = finish_trace_time(l);
  if (rc) return base_error_alloc(err, rc);
  rc = ctx_finalize_tables(l->ctx);
  return rc ? rc : finish_check_refs(l, err);
}

/* Inverse of conversion to trace time: the offset of a clock against trace
 * time is piecewise constant (nearest snapshot), so two fixed-point steps
 * land on the right piece except within one offset of a snapshot change. */
int loader_trace_time_to_clock(loader *l, uint64_t clock_id, int64_t ts,
                               int64_t *out) {
  clock_key trace_time;
  clock_graph *g = &l->host.clocks;
  if (!clock_graph_trace_time(g, &trace_time, NULL)) return -1;
  clock_key k = clock_key_make(trace_time.machine, 0, 0, clock_id);
  uint32_t node;
  if (!clock_graph_find(g, &k, &node)) return -1;
  int64_t guess = ts;
  for (int step = 0; step < 2; step++) {
    int64_t converted;
    if (clock_graph_convert(g, node, guess, &converted) != CLOCK_OK) return -1;
    int64_t offset;
    if (__builtin_sub_overflow(converted, guess, &offset) ||
        __builtin_sub_overflow(ts, offset, &guess))
      return -1;
  }
  *out = guess;
  return 0;
}

const char *loader_single_input_name(const loader *l) {
  if (l->single_name == STRING_NULL) return NULL;
  return base_string_pool_get(&l->ctx->strings, l->single_name);
}

void loader_progress(const loader *l, uint64_t *queued, uint64_t *parsed) {
  sorter_progress(&l->host.sorter, queued, parsed);
}
