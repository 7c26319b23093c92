/* The importer services (import/importer.h) over one load's sorter, clock
 * graph and merge plan. */
#include "core/import_host.h"

#include "core/input.h"
#include "model/model.h"

int import_host_init(import_host *h, trace_context *ctx, const merge_plan *plan,
                     scan_ahead *ahead, int give_back) {
  *h = (import_host){.ctx = ctx, .plan = plan, .ahead = ahead, .give_back = give_back};
  sorter_init(&h->sorter);
  sorter_set_threads(&h->sorter, ahead->threads);
  int rc = clock_graph_init(&h->clocks, NULL, NULL);
  if (rc) sorter_free(&h->sorter);
  return rc;
}

/* A file's importer state, holds and names, and the file. */
static void import_host_file_free(import_file *f) {
  if (f->ops && f->ops->destroy) f->ops->destroy(f);
  if (f->holds) input_holds_free(f->holds);
  base_free(f->holds);
  base_free((char *)f->name);
  base_free((char *)f->path);
  base_free(f);
}

void import_host_free_files(import_host *h) {
  for (size_t i = 0; i < h->files.len; i++) import_host_file_free(h->files.data[i]);
  h->files.len = 0;
}

void import_host_free(import_host *h) {
  import_host_free_files(h);
  VEC_FREE(h->files);
  clock_graph_free(&h->clocks);
  base_map_free(&h->unrelatable_clocks);
  sorter_free(&h->sorter);
}

/* The file's struct, its names and the holds on its bytes. */
static import_file *import_host_new_file(const import_host *h, const char *path,
                                         const char *display, const uint8_t *data,
                                         size_t len, int mapped) {
  import_file *f = base_calloc(1, sizeof *f);
  char *name = base_strndup(display, strlen(display));
  char *path_copy = path ? base_strndup(path, strlen(path)) : NULL;
  input_holds *holds = base_calloc(1, sizeof *holds);
  if (!f || !name || (path && !path_copy) || !holds ||
      input_holds_init(holds, data, len, INPUT_CHUNK_SHIFT_DEFAULT, h->give_back)) {
    base_free(f);
    base_free(name);
    base_free(path_copy);
    if (holds) input_holds_free(holds);
    base_free(holds);
    return NULL;
  }
  if (mapped) input_holds_set_mapped(holds);
  *f = (import_file){.name = name, .path = path_copy, .data = data, .len = len,
                     .holds = holds};
  return f;
}

int import_host_open(import_host *h, uint32_t trace_id, const char *path,
                     const char *display, const importer_ops *ops,
                     const uint8_t *data, size_t len, int mapped,
                     import_file **out, base_error *err) {
  import_file *f = import_host_new_file(h, path, display, data, len, mapped);
  if (!f) return base_error_nomem(err);
  if (VEC_PUSH(h->files, f)) {
    import_host_file_free(f); /* no ops yet: nothing to destroy */
    return base_error_nomem(err);
  }
  f->ctx = h->ctx;
  f->ops = ops;
  f->trace_id = trace_id;
  f->host = h;
  int rc = plan_file_machine(h->plan, h->ctx, path, &f->machine);
  if (!rc) rc = model_machine_begin(h->ctx, f->machine);
  if (!rc) rc = stats_declare_scope(&h->ctx->stats, f->machine, trace_id);
  f->lane_rank = stats_scope_index(&h->ctx->stats, f->machine, trace_id);
  if (!rc) rc = sorter_add_source(&h->sorter, &f->source);
  if (rc) return base_error_alloc(err, rc);
  f->pinned = plan_file_pinned(h->plan, path);
  const manifest_file *mf = plan_file_entry(h->plan, path);
  f->related = mf && mf->has_clocks && mf->clocks.sync_to.file;
  f->first_clock = UINT32_MAX;
  *out = f;
  return WEFT_OK;
}

/* ---- clocks: every file's clocks live in one global clock graph ---- */

int import_clock_on(import_file *f, uint32_t machine, uint32_t sequence,
                    uint64_t clock_id, uint32_t *node) {
  if (f->pinned) clock_id = CLOCK_ID_FILE_PRIVATE; /* PIN: one private timeline */
  clock_key k = clock_key_make(machine, f->trace_id, sequence, clock_id);
  return clock_graph_intern(&f->host->clocks, &k, node, NULL);
}

int import_clock(import_file *f, uint32_t sequence, uint64_t clock_id,
                 uint32_t *node) {
  return import_clock_on(f, f->machine, sequence, clock_id, node);
}

int import_clock_private(import_file *f, uint32_t *node) {
  return import_clock(f, 0, CLOCK_ID_FILE_PRIVATE, node);
}

int import_clock_anchor(import_file *f, uint32_t node) {
  return clock_graph_set_anchor(&f->host->clocks, node, NULL);
}

int import_clock_alias(import_file *f, uint64_t clock_id) {
  if (f->pinned) return WEFT_OK; /* PIN: one private timeline */
  clock_key own = clock_key_make(f->machine, f->trace_id, 0, CLOCK_ID_FILE_PRIVATE);
  clock_key builtin = clock_key_make(f->machine, f->trace_id, 0, clock_id);
  return clock_graph_add_alias(&f->host->clocks, &own, &builtin, NULL);
}

int import_clock_snapshot_on(import_file *f, uint32_t machine,
                             uint32_t sequence, const uint64_t *clock_ids,
                             const int64_t *values, size_t n) {
  clock_key keys[64];
  if (n > 64) n = 64;
  for (size_t i = 0; i < n; i++)
    keys[i] = clock_key_make(machine, f->trace_id, sequence, clock_ids[i]);
  uint32_t id;
  /* One monotonicity stream per (file, machine, sequence). */
  uint32_t stream = (uint32_t)((f->trace_id * 4099u + machine) * 65537u + sequence) &
                    0x7fffffffu;
  f->snapshot_count++;
  return clock_graph_add_snapshot(&f->host->clocks, stream, keys, values, n, &id, NULL);
}

int import_clock_snapshot(import_file *f, uint32_t sequence,
                          const uint64_t *clock_ids, const int64_t *values,
                          size_t n) {
  return import_clock_snapshot_on(f, f->machine, sequence, clock_ids, values, n);
}

/* Whether the manifest places f (its markers are then ignored). */
static int import_manifest_places(const import_file *f) {
  const manifest_file *mf = plan_file_entry(f->host->plan, f->path);
  return f->pinned || (mf && mf->has_clocks);
}

int import_clock_sync_named(import_file *f, uint32_t clock, const char *id, size_t len,
                            int64_t ts) {
  if (import_manifest_places(f)) return WEFT_OK;
  return clock_graph_add_named_marker(&f->host->clocks, clock, id, len, ts, NULL);
}

int import_clock_sync_parent(import_file *f, uint32_t clock, int64_t ts, int64_t parent_ts) {
  if (import_manifest_places(f)) return WEFT_OK;
  return clock_graph_add_parent_marker(&f->host->clocks, clock, ts, parent_ts, NULL);
}

int import_clock_sync_trace_event_clock(import_file *f, uint32_t clock) {
  if (import_manifest_places(f)) return WEFT_OK;
  return clock_graph_add_trace_event_clock(&f->host->clocks, clock, NULL);
}

int import_clock_relate_machines(import_file *f, uint32_t from, uint32_t to,
                                 uint64_t clock_id, int64_t offset,
                                 base_error *err) {
  clock_key a = clock_key_make(from, f->trace_id, 0, clock_id);
  clock_key b = clock_key_make(to, f->trace_id, 0, clock_id);
  uint32_t id;
  f->snapshot_count++;
  return clock_graph_add_relation(&f->host->clocks, &a, &b, offset, &id, err);
}

int import_claim_trace_time(import_file *f, uint64_t clock_id) {
  if (f->pinned) return 0; /* a pinned file's clocks are not its own */
  clock_key k = clock_key_make(f->machine, f->trace_id, 0, clock_id);
  return clock_graph_claim_trace_time(&f->host->clocks, &k, NULL) == 1;
}

/* Events whose clock cannot reach trace time are dropped: each is counted
 * in clock_sync_failure, and each unrelatable clock once more in
 * clock_sync_unrelatable_clock_domains (the "domain" verdict is per clock). */
static void import_host_count_drop(import_host *h, const import_file *f, uint32_t clock,
                                   clock_result r) {
  stats_id stat = r == CLOCK_OK ? stat_trace_sorter_negative_timestamp_dropped
                                : stat_clock_sync_failure;
  stats_add(&h->ctx->stats, stat, -1, f->machine, f->trace_id, 1);
  if (r != CLOCK_UNRELATABLE_DOMAINS) return;
  uint64_t *slot;
  if (base_map_insert(&h->unrelatable_clocks, clock, 1, &slot) == 1)
    stats_add(&h->ctx->stats, stat_clock_sync_unrelatable_clock_domains, -1,
              f->machine, f->trace_id, 1);
}

int import_host_convert(void *user, uint32_t source, uint32_t clock, int64_t ts,
                        int64_t *out) {
  import_host *h = user;
  clock_result r = clock_converter_convert(&h->clocks, &h->converter, clock, ts, out);
  if (r == CLOCK_OK && *out >= 0) return 0;
  import_host_count_drop(h, h->files.data[source], clock, r);
  return 1;
}

int import_clock_convert(import_file *f, uint32_t machine, uint64_t clock_id, int64_t ts,
                         int64_t *out) {
  if (f->pinned) clock_id = CLOCK_ID_FILE_PRIVATE;
  clock_key k = clock_key_make(machine, f->trace_id, 0, clock_id);
  if (clock_graph_convert_key(&f->host->clocks, &k, ts, out) != CLOCK_OK) return 0;
  return *out >= 0 ? 1 : -1;
}

int import_clock_now(import_file *f, uint32_t clock, int64_t ts, int64_t *out) {
  return clock_graph_convert(&f->host->clocks, clock, ts, out) == CLOCK_OK;
}

/* ---- events, bytes and stats ---- */

/* Notes the file's first event (its clock is the file's for placement). */
static inline void import_note_first(import_file *f, int64_t ts, uint32_t clock) {
  if (__builtin_expect(f->first_clock != UINT32_MAX, 1)) return;
  f->first_clock = clock;
  f->first_ts = ts;
}

int import_push(import_file *f, int64_t ts, uint32_t clock, uint64_t payload) {
  import_note_first(f, ts, clock);
  return sorter_push_lane(&f->host->sorter, f->source, sort_lane(f->lane_rank, 0), ts,
                          clock, payload);
}

int import_push_untimed(import_file *f, int64_t ts, uint32_t clock, uint64_t payload) {
  int rc = import_push(f, ts, clock, payload);
  if (!rc) sorter_mark_break(&f->host->sorter);
  return rc;
}

int import_push_cpu(import_file *f, uint32_t machine, uint32_t cpu, int64_t ts,
                    uint32_t clock, uint64_t payload) {
  import_note_first(f, ts, clock);
  /* the file's own machine (nearly every event) needs no lookup */
  uint32_t rank = machine == f->machine ? f->lane_rank
                                        : stats_scope_index(&f->ctx->stats, machine, f->trace_id);
  uint32_t lane = sort_lane(rank != UINT32_MAX ? rank : machine, cpu + 1);
  return sorter_push_lane(&f->host->sorter, f->source, lane, ts, clock, payload);
}

void import_input_hold(import_file *f, size_t off, size_t len) {
  if (f->holds) input_holds_hold(f->holds, off, len);
}

void import_input_release(import_file *f, size_t off, size_t len) {
  if (f->holds) input_holds_release(f->holds, off, len);
}

void import_input_passed(import_file *f, size_t *given, size_t upto) {
  if (!f->holds || !f->holds->mapped || !f->holds->give_back) return;
  import_scan_input in = {.data = f->data, .len = f->len, .give_back = 1};
  import_scan_passed(&in, given, upto);
}

void import_scan_passed(const import_scan_input *in, size_t *given, size_t upto) {
  if (!in->give_back || upto > in->len || upto < *given + 2 * IMPORT_SCAN_LAG) return;
  /* Window edges aligned in the address space: consecutive calls give
   * back every whole page between them. */
  uintptr_t edge = ((uintptr_t)(in->data + upto) - IMPORT_SCAN_LAG) & ~(uintptr_t)(IMPORT_SCAN_LAG - 1);
  if (edge <= (uintptr_t)(in->data + *given)) return;
  input_give_back_pages(in->data + *given, (const uint8_t *)edge);
  *given = (size_t)(edge - (uintptr_t)in->data);
}

int import_stat(import_file *f, stats_id stat, int64_t delta) {
  return stats_add(&f->ctx->stats, stat, -1, f->machine, f->trace_id, delta);
}

/* ---- machines of a file ---- */

static plan_file import_plan_file(const import_file *f) {
  return (plan_file){f->path, f->trace_id, f->machine};
}

int import_declare_machines(import_file *f, const uint64_t *raw_ids, size_t n,
                            int has_unmarked, base_error *err) {
  plan_file pf = import_plan_file(f);
  return plan_declare_machines(f->host->plan, f->ctx, &pf, raw_ids, n, has_unmarked,
                               &f->multi_machine, err);
}

int import_machine(import_file *f, uint64_t raw_id, uint32_t *row, base_error *err) {
  plan_file pf = import_plan_file(f);
  return plan_machine(f->host->plan, f->ctx, &pf, f->multi_machine, raw_id, row, err);
}

/* ---- worker tasks ---- */

int import_task_submit(import_file *f, const scan_task *task, scan_job **job) {
  *job = NULL;
  scan_ahead *a = f->host ? f->host->ahead : NULL;
  if (!a || a->threads <= 1 || !ahead_pool(a)) return WEFT_OK;
  return scan_pool_submit_task(a->pool, task, job);
}

int import_task_take(import_file *f, scan_job *job, void **result, base_error *err) {
  return scan_job_take(f->host->ahead->pool, job, result, err);
}

void import_task_drop(import_file *f, scan_job *job) {
  if (job) scan_job_drop(f->host->ahead->pool, job);
}
