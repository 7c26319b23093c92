/* The merge plan: the manifest's rules, asked by the loader and by the
 * importer services. */
#include "manifest/plan.h"

#include "model/model.h"

#include <stdio.h>

void plan_init(merge_plan *p) { *p = (merge_plan){0}; }

void plan_free(merge_plan *p) {
  if (p->has_manifest) manifest_free(&p->manifest);
  *p = (merge_plan){0};
}

const manifest_file *plan_file_entry(const merge_plan *p, const char *path) {
  return p->has_manifest && path ? manifest_find_file(&p->manifest, path) : NULL;
}

static int plan_machine_named(trace_context *ctx, const char *name, uint32_t *row) {
  return machine_get_by_name(&ctx->machines, name, strlen(name), row);
}

int plan_first_machine(trace_context *ctx, uint32_t *row) {
  *row = 0;
  if (ctx_table(ctx, TABLE_MACHINE)->row_count) return WEFT_OK;
  return machine_host(&ctx->machines, row);
}

int plan_file_machine(const merge_plan *p, trace_context *ctx, const char *path,
                      uint32_t *row) {
  const manifest_file *mf = plan_file_entry(p, path);
  if (mf && mf->machine) return plan_machine_named(ctx, mf->machine, row);
  const manifest_machine *base =
      mf && mf->has_machines ? manifest_file_find_machine_id(mf, 0) : NULL;
  return base ? plan_machine_named(ctx, base->name, row)
              : machine_host(&ctx->machines, row);
}

int plan_file_pinned(const merge_plan *p, const char *path) {
  const manifest_file *mf = plan_file_entry(p, path);
  return mf && mf->has_clocks && mf->clocks.clock == MANIFEST_CLOCK_NONE;
}

/* ---- the manifest file ---- */

/* trace_time claims before any file can: the clock of trace_time.machine,
 * else of trace_time.file's base machine, else of machine row 0. Manifest
 * clock names are builtin clocks, so the key needs no file id. */
static int plan_claim_trace_time(const merge_plan *p, trace_context *ctx,
                                 clock_graph *clocks, base_error *err) {
  const manifest_trace_time *tt = &p->manifest.trace_time;
  if (!tt->present) return WEFT_OK;
  uint32_t machine = 0;
  int rc = tt->machine ? plan_machine_named(ctx, tt->machine, &machine)
           : tt->file  ? plan_file_machine(p, ctx, tt->file, &machine)
                       : plan_first_machine(ctx, &machine);
  if (rc) return base_error_alloc(err, rc);
  clock_key k = clock_key_make(machine, 0, 0, tt->clock);
  if (clock_graph_claim_trace_time(clocks, &k, err) < 0)
    return err && err->code ? err->code : WEFT_ENOMEM;
  rc = ctx_metadata_trace_time(ctx, tt->clock);
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

/* The manifest's metadata: its trace_file's type and size, and one
 * manifest_attribute.<key> row per attribute (a repeated key: the last). */
static int plan_metadata(const merge_plan *p, trace_context *ctx, uint32_t id, size_t len) {
  int rc = ctx_metadata_file_type(ctx, id, "perfetto_manifest");
  if (!rc) rc = ctx_metadata_file_size(ctx, id, len);
  for (size_t i = 0; !rc && i < p->manifest.attribute_count; i++) {
    const manifest_attribute *a = &p->manifest.attributes[i];
    size_t n = sizeof "manifest_attribute." + strlen(a->key);
    char *key = base_malloc(n);
    if (!key) return WEFT_ENOMEM;
    snprintf(key, n, "manifest_attribute.%s", a->key);
    rc = a->is_int ? ctx_metadata_set_int(ctx, key, a->int_value, -1, -1)
                   : ctx_metadata_set_str(ctx, key, a->str_value, -1, -1);
    base_free(key);
  }
  return rc;
}

/* Named machines exist from the start, in the order the manifest names them. */
static int plan_make_named_machines(const merge_plan *p, trace_context *ctx) {
  int rc = WEFT_OK;
  for (size_t i = 0; rc == WEFT_OK && i < p->manifest.file_count; i++) {
    const manifest_file *mf = &p->manifest.files[i];
    uint32_t row;
    if (mf->machine) rc = plan_machine_named(ctx, mf->machine, &row);
    for (size_t j = 0; rc == WEFT_OK && j < mf->machine_count; j++)
      rc = plan_machine_named(ctx, mf->machines[j].name, &row);
  }
  return rc;
}

int plan_read_manifest(merge_plan *p, trace_context *ctx, clock_graph *clocks,
                       uint32_t id, const uint8_t *data, size_t len,
                       base_error *err) {
  if (p->has_manifest)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: multiple "
                          "perfetto_manifest files in archive");
  if (p->trace_file_seen)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: perfetto_manifest "
                          "file must be the first trace file in the input");
  json_limits limits = {ctx->options.max_json_depth, ctx->options.max_string_bytes};
  int rc = manifest_parse_limited((const char *)data, len, &limits, &p->manifest, err);
  if (rc) return rc;
  p->has_manifest = 1;
  rc = plan_metadata(p, ctx, id, len);
  if (!rc) rc = plan_make_named_machines(p, ctx);
  if (rc) return base_error_alloc(err, rc);
  return plan_claim_trace_time(p, ctx, clocks, err);
}

void plan_note_trace_file(merge_plan *p) { p->trace_file_seen = 1; }

const char *plan_manifest_path(const merge_plan *p, int64_t parent, const char *name) {
  if (!p->has_manifest || !name || parent >= 0 || manifest_find_file(&p->manifest, name))
    return name;
  const char *slash = strrchr(name, '/');
  const manifest_file *mf = slash ? manifest_find_file(&p->manifest, slash + 1) : NULL;
  return mf ? mf->path : name;
}

int plan_check_nested(const merge_plan *p, const char *path, int nested,
                      base_error *err) {
  const manifest_file *mf = plan_file_entry(p, path);
  if (!nested || !mf || !(mf->has_clocks || mf->machine || mf->has_machines))
    return WEFT_OK;
  return base_error_set(err, WEFT_EINVAL, "perfetto_manifest: overrides are not "
                        "supported for trace files which are themselves archives "
                        "or perfetto_manifest files: %s", mf->path);
}

/* ---- machines of a file ---- */

static int plan_check_ids(const manifest_file *mf, const uint64_t *raw_ids, size_t n,
                          base_error *err) {
  for (size_t i = 0; mf->has_machines && i < n; i++) {
    int rc = manifest_check_machine_id(mf, (uint32_t)raw_ids[i], err);
    if (raw_ids[i] > UINT32_MAX)
      rc = base_error_set(err, WEFT_EPARSE, "perfetto_manifest: machines: trace has "
                          "a packet from undeclared machine id %llu",
                          (unsigned long long)raw_ids[i]);
    if (rc) return rc;
  }
  return WEFT_OK;
}

int plan_declare_machines(const merge_plan *p, trace_context *ctx,
                          const plan_file *f, const uint64_t *raw_ids, size_t n,
                          int has_unmarked, int *multi_machine, base_error *err) {
  const manifest_file *mf = plan_file_entry(p, f->path);
  *multi_machine = n + (has_unmarked ? 1 : 0) > 1;
  if (!mf && n == 1 && !has_unmarked && f->machine == ctx->machines.host &&
      machine_adopt_raw_id(&ctx->machines, raw_ids[0]))
    return base_error_nomem(err);
  if (!mf) return WEFT_OK;
  int rc = plan_check_ids(mf, raw_ids, n, err);
  if (rc || !*multi_machine) return rc;
  if (mf->machine)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: machine: file '%s' "
                          "is a multi-machine trace; name its machines with "
                          "machines instead", mf->path);
  if (mf->has_clocks && mf->clocks.clock == MANIFEST_CLOCK_NONE)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: clocks: file '%s': "
                          "a `clocks` override applies only to a single-machine "
                          "file", mf->path);
  return manifest_check_multi_machine(&p->manifest, mf->path, err);
}

int plan_machine(const merge_plan *p, trace_context *ctx, const plan_file *f,
                 int multi_machine, uint64_t raw_id, uint32_t *row,
                 base_error *err) {
  const manifest_file *mf = plan_file_entry(p, f->path);
  const manifest_machine *named =
      mf && mf->has_machines && raw_id <= UINT32_MAX
          ? manifest_file_find_machine_id(mf, (uint32_t)raw_id) : NULL;
  int rc = WEFT_OK;
  if (named)
    rc = plan_machine_named(ctx, named->name, row);
  else if (raw_id != 0 && mf && mf->has_machines)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: machines: trace has a "
                          "packet from undeclared machine id %llu",
                          (unsigned long long)raw_id);
  else if (raw_id == 0 || !multi_machine)
    *row = f->machine; /* base machine, or a single-machine file adopted */
  else
    rc = machine_get_by_raw_id(&ctx->machines, raw_id, row);
  if (!rc) rc = model_machine_begin(ctx, *row);
  if (!rc) rc = stats_declare_scope(&ctx->stats, *row, f->trace_id);
  return base_error_alloc(err, rc);
}

int plan_check_tokenized(const merge_plan *p, const char *path, int pinned,
                         uint32_t snapshot_count, base_error *err) {
  const manifest_file *mf = plan_file_entry(p, path);
  if (mf && pinned && snapshot_count > 0)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: clocks: file '%s' "
                          "records clock snapshots, but clock overrides require the "
                          "trace to use a single clock; name the clock to relate with "
                          "clocks: clock", mf->path);
  return WEFT_OK;
}

/* ---- clocks ---- */

static const plan_file *plan_file_by_path(const plan_file *files, size_t n,
                                          const char *path) {
  for (size_t i = 0; path && i < n; i++)
    if (files[i].path && strcmp(files[i].path, path) == 0) return &files[i];
  return NULL;
}

/* A manifest `clocks` entry: RELATE (clock given) or PIN (private clock).
 * clocks.machine / sync_to.machine pick the machine of a multi-machine file. */
static int plan_relate(trace_context *ctx, clock_graph *clocks, const plan_file *f,
                       const plan_file *ref, const manifest_clocks *c, base_error *err) {
  uint32_t src_machine = f->machine, dst_machine = ref->machine;
  if ((c->machine && plan_machine_named(ctx, c->machine, &src_machine)) ||
      (c->sync_to.machine && plan_machine_named(ctx, c->sync_to.machine, &dst_machine)))
    return base_error_nomem(err);
  clock_key src = clock_key_make(src_machine, f->trace_id, 0,
                                 c->clock == MANIFEST_CLOCK_NONE ? CLOCK_ID_FILE_PRIVATE
                                                                 : c->clock);
  clock_key dst = clock_key_make(dst_machine, ref->trace_id, 0,
                                 c->sync_to.clock == MANIFEST_CLOCK_NONE
                                     ? CLOCK_ID_FILE_PRIVATE : c->sync_to.clock);
  uint32_t id;
  int rc = clock_graph_add_relation(clocks, &src, &dst, c->offset_ns, &id, err);
  /* A clockless reference is itself pinned to trace time at zero offset. */
  if (rc == WEFT_OK && c->sync_to.clock == MANIFEST_CLOCK_NONE &&
      clock_graph_find(clocks, &dst, &id))
    rc = clock_graph_set_anchor(clocks, id, err);
  return rc;
}

static const char *plan_basename(const char *path) {
  const char *slash = path ? strrchr(path, '/') : NULL;
  return slash ? slash + 1 : path;
}

/* The error for manifest path `path` naming no input: the closest input
 * name, then every input's. */
static int plan_unmatched_path(const char *path, const plan_file *files, size_t n,
                               base_error *err) {
  char inputs[512] = "";
  const char *names[64];
  size_t count = n < 64 ? n : 64, used = 0;
  for (size_t i = 0; i < count; i++) {
    names[i] = plan_basename(files[i].path);
    int w = snprintf(inputs + used, sizeof inputs - used, "%s%s", i ? ", " : "",
                     names[i] ? names[i] : "?");
    if (w > 0) used = used + (size_t)w < sizeof inputs ? used + (size_t)w : sizeof inputs - 1;
  }
  int close = plan_closest_name(path, names, count);
  return base_error_set(err, WEFT_EINVAL, "perfetto_manifest: file '%s' matches no input%s%s%s "
                        "(inputs: %s)", path, close >= 0 ? "; did you mean '" : "",
                        close >= 0 ? names[close] : "", close >= 0 ? "'?" : "", inputs);
}

/* A manifest given as an input itself names inputs: each path must match
 * one (in an archive, as Perfetto does, an unmatched path is ignored). */
static int plan_check_paths(const merge_plan *p, const plan_file *files, size_t n,
                            base_error *err) {
  for (size_t k = 0; p->has_manifest && p->top_level && k < p->manifest.file_count; k++) {
    const char *path = p->manifest.files[k].path;
    size_t i = 0;
    while (i < n && !(files[i].path && strcmp(files[i].path, path) == 0)) i++;
    if (i == n) return plan_unmatched_path(path, files, n, err);
  }
  return WEFT_OK;
}

/* --clock-interpolation, else the manifest's weft_clock_interpolation, else
 * NEAREST. */
static clock_interpolation plan_interpolation(const merge_plan *p, const trace_context *ctx) {
  uint32_t flag = ctx->options.clock_interpolation;
  if (flag == WEFT_CLOCK_INTERPOLATION_LINEAR) return CLOCK_INTERP_LINEAR;
  if (flag == WEFT_CLOCK_INTERPOLATION_NEAREST) return CLOCK_INTERP_NEAREST;
  if (p->has_manifest &&
      p->manifest.weft_clock_interpolation == MANIFEST_INTERPOLATION_LINEAR)
    return CLOCK_INTERP_LINEAR;
  return CLOCK_INTERP_NEAREST;
}

int plan_place_clocks(const merge_plan *p, trace_context *ctx, clock_graph *clocks,
                      const plan_file *files, size_t n, base_error *err) {
  int rc = plan_check_paths(p, files, n, err);
  clock_graph_set_interpolation(clocks, plan_interpolation(p, ctx));
  for (size_t i = 0; p->has_manifest && rc == WEFT_OK && i < n; i++) {
    const manifest_file *mf = plan_file_entry(p, files[i].path);
    const plan_file *ref =
        mf && mf->has_clocks ? plan_file_by_path(files, n, mf->clocks.sync_to.file) : NULL;
    if (ref) rc = plan_relate(ctx, clocks, &files[i], ref, &mf->clocks, err);
  }
  if (rc || clock_graph_trace_time(clocks, NULL, NULL)) return rc;
  uint32_t first;
  if (plan_first_machine(ctx, &first)) return base_error_nomem(err);
  clock_key k = clock_key_make(0, 0, 0, CLOCK_ID_BOOTTIME);
  if (clock_graph_claim_trace_time(clocks, &k, err) < 0)
    return err && err->code ? err->code : WEFT_ENOMEM;
  return WEFT_OK;
}
