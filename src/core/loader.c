/* The loading pipeline: sniff -> unpack containers in processing order ->
 * tokenize trace files into the sorter -> (finish) convert, merge, parse. */
#include "core/loader.h"

#include "import/importer.h"
#include "io/archive.h"
#include "io/sniff.h"
#include "manifest/manifest.h"

/* One clock as seen by a file; nodes are indexes into loader.clocks. Until
 * the global clock graph places clocks, a file's clocks map identically to
 * trace time. */
typedef struct loader_clock {
  uint32_t machine, file, sequence;
  uint64_t clock_id;
  int64_t offset; /* added on conversion (manifest PIN offsets) */
} loader_clock;

struct loader {
  trace_context *ctx;
  sorter sorter;
  io_limits limits;
  VEC(import_file *) files;  /* tokenized trace files; index = source */
  VEC(uint8_t *) blobs;      /* bytes kept until loading ends */
  VEC(loader_clock) clocks;
  int64_t first_top_level;   /* trace_file id of the first input, or -1 */
  uint32_t top_level_count;
  int trace_file_seen;       /* a trace (non-manifest) file was processed */
  manifest manifest;         /* valid when has_manifest */
  int has_manifest;
  int64_t trace_time_clock;  /* claimed trace-time clock id, or -1 */
};

/* What the sorter's callbacks receive. */
typedef struct loader_emit_ctx {
  loader *l;
  base_error *err;
} loader_emit_ctx;

/* ---- clocks (identity placement until the clock graph is wired) ---- */

static int loader_clock_node(loader *l, const loader_clock *c, uint32_t *node) {
  for (size_t i = 0; i < l->clocks.len; i++) {
    const loader_clock *k = &l->clocks.data[i];
    if (k->machine == c->machine && k->file == c->file &&
        k->sequence == c->sequence && k->clock_id == c->clock_id) {
      *node = (uint32_t)i;
      return WEFT_OK;
    }
  }
  int rc = VEC_PUSH(l->clocks, *c);
  *node = (uint32_t)(l->clocks.len - 1);
  return rc;
}

int import_clock(import_file *f, uint32_t sequence, uint64_t clock_id,
                 uint32_t *node) {
  loader_clock c = {f->machine, clock_id <= 63 ? 0 : f->trace_id,
                    clock_id >= 64 && clock_id < 128 ? sequence : 0, clock_id, 0};
  return loader_clock_node(f->loader, &c, node);
}

/* The offset a manifest PIN chain (clocks without "clock") puts on a file:
 * the sum of offset_ns along its sync_to references (cycles are rejected by
 * the manifest reader; the walk is bounded anyway). */
static int64_t loader_pin_offset(const loader *l, const char *path) {
  int64_t offset = 0;
  if (!l->has_manifest || !path) return 0;
  const manifest_file *mf = manifest_find_file(&l->manifest, path);
  for (size_t hops = 0; mf && mf->has_clocks && hops < l->manifest.file_count; hops++) {
    offset += mf->clocks.offset_ns;
    mf = &l->manifest.files[mf->clocks.sync_to.file_index];
  }
  return offset;
}

int import_clock_private(import_file *f, uint32_t *node) {
  loader_clock c = {f->machine, f->trace_id, 0, UINT64_C(1) << 40,
                    loader_pin_offset(f->loader, f->path)};
  return loader_clock_node(f->loader, &c, node);
}

int import_clock_snapshot(import_file *f, uint32_t sequence,
                          const uint64_t *clock_ids, const int64_t *values,
                          size_t n) {
  (void)f, (void)sequence, (void)clock_ids, (void)values, (void)n;
  return WEFT_OK;
}

void import_claim_trace_time(import_file *f, uint64_t clock_id) {
  if (f->loader->trace_time_clock < 0) f->loader->trace_time_clock = (int64_t)clock_id;
}

static int loader_convert(void *user, uint32_t source, uint32_t clock,
                          int64_t ts, int64_t *out) {
  loader *l = ((loader_emit_ctx *)user)->l;
  (void)source;
  int64_t offset = clock < l->clocks.len ? l->clocks.data[clock].offset : 0;
  if (__builtin_add_overflow(ts, offset, out)) return 1;
  if (*out < 0) {
    stats_add(&l->ctx->stats, stat_trace_sorter_negative_timestamp_dropped, -1, -1, -1, 1);
    return 1;
  }
  return 0;
}

/* ---- import_file helpers ---- */

int import_push(import_file *f, int64_t ts, uint32_t clock, uint64_t payload) {
  return sorter_push(&f->loader->sorter, f->source, ts, clock, payload);
}

int import_stat(import_file *f, stats_id stat, int64_t delta) {
  return stats_add(&f->ctx->stats, stat, -1, f->machine, f->trace_id, delta);
}

/* ---- life cycle ---- */

int loader_create(loader **out, trace_context *ctx) {
  loader *l = base_calloc(1, sizeof *l);
  if (!l) return WEFT_ENOMEM;
  l->ctx = ctx;
  sorter_init(&l->sorter);
  io_limits_default(&l->limits);
  const weft_options *o = &ctx->options;
  if (o->max_decompressed_bytes) l->limits.max_member_bytes = o->max_decompressed_bytes;
  if (o->max_compression_ratio) l->limits.max_ratio = o->max_compression_ratio;
  if (o->max_archive_members) l->limits.max_members = o->max_archive_members;
  if (o->max_archive_depth) l->limits.max_depth = o->max_archive_depth;
  l->first_top_level = -1;
  l->trace_time_clock = -1;
  *out = l;
  return WEFT_OK;
}

static void loader_free_files(loader *l) {
  for (size_t i = 0; i < l->files.len; i++) {
    import_file *f = l->files.data[i];
    if (f->ops && f->ops->destroy) f->ops->destroy(f);
    base_free((char *)f->name);
    base_free(f);
  }
  l->files.len = 0;
}

void loader_destroy(loader *l) {
  if (!l) return;
  loader_free_files(l);
  for (size_t i = 0; i < l->blobs.len; i++) base_free(l->blobs.data[i]);
  VEC_FREE(l->files);
  VEC_FREE(l->blobs);
  VEC_FREE(l->clocks);
  sorter_free(&l->sorter);
  if (l->has_manifest) manifest_free(&l->manifest);
  base_free(l);
}

/* ---- processing ---- */

static int loader_process(loader *l, int64_t parent, const char *name,
                          const char *display, const uint8_t *data, size_t len,
                          uint32_t depth, base_error *err);

/* A perfetto_manifest: validated in full; applied to the files after it. */
static int loader_manifest(loader *l, const uint8_t *data, size_t len,
                           base_error *err) {
  if (l->has_manifest)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: multiple "
                          "perfetto_manifest files in archive");
  if (l->trace_file_seen)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: perfetto_manifest "
                          "file must be the first trace file in the input");
  int rc = manifest_parse((const char *)data, len, &l->manifest, err);
  if (rc) return rc;
  l->has_manifest = 1;
  if (l->manifest.trace_time.present)
    l->trace_time_clock = l->manifest.trace_time.clock;
  /* Named machines exist from the start, in the order the manifest names them. */
  for (size_t i = 0; i < l->manifest.file_count; i++) {
    const manifest_file *mf = &l->manifest.files[i];
    uint32_t row;
    if (mf->machine)
      rc = machine_get_by_name(&l->ctx->machines, mf->machine, strlen(mf->machine), &row);
    for (size_t j = 0; rc == WEFT_OK && j < mf->machine_count; j++)
      rc = machine_get_by_name(&l->ctx->machines, mf->machines[j].name,
                               strlen(mf->machines[j].name), &row);
    if (rc) return base_error_set(err, rc, "out of memory");
  }
  return WEFT_OK;
}

static const importer_ops *loader_importer_for(io_trace_type type) {
  switch (type) {
    case IO_TRACE_JSON: return &import_json_ops;
    case IO_TRACE_PROTO: return &import_proto_ops;
    default: return NULL;
  }
}

/* The machine a file's data belongs to: the manifest's "machine" entry for
 * its path, else the host. */
static int loader_file_machine(loader *l, const char *path, uint32_t *machine) {
  *machine = 0;
  if (!l->has_manifest || !path) return WEFT_OK;
  const manifest_file *mf = manifest_find_file(&l->manifest, path);
  if (!mf || !mf->machine) return WEFT_OK;
  return machine_get_by_name(&l->ctx->machines, mf->machine, strlen(mf->machine),
                             machine);
}

static int loader_tokenize(loader *l, uint32_t trace_id, const char *path,
                           const char *display, const importer_ops *ops,
                           const uint8_t *data, size_t len, base_error *err) {
  import_file *f = base_calloc(1, sizeof *f);
  char *name = base_strndup(display, strlen(display));
  if (!f || !name || VEC_PUSH(l->files, f)) {
    base_free(f);
    base_free(name);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", display);
  }
  *f = (import_file){.ctx = l->ctx, .ops = ops, .name = name, .path = path, .data = data,
                     .len = len, .trace_id = trace_id, .machine = 0,
                     .loader = l};
  int rc = loader_file_machine(l, path, &f->machine);
  if (!rc) rc = sorter_add_source(&l->sorter, &f->source);
  if (rc) return base_error_set(err, rc, "%s: out of memory", display);
  rc = ops->tokenize(f, err);
  f->path = NULL; /* the member name does not outlive its container */
  if (rc && err && !strstr(err->message, display)) base_error_prefix(err, "%s", display);
  return rc;
}

typedef struct loader_members {
  VEC(io_order_entry) entries;
  VEC(uint8_t *) datas;
  VEC(size_t) lens;
  VEC(char *) names;
} loader_members;

static int loader_collect_member(void *user, io_member *m, base_error *err) {
  loader_members *ms = user;
  char *name = m->name ? base_strndup(m->name, strlen(m->name)) : NULL;
  uint8_t *data = io_member_take(m);
  io_order_entry e = {name, io_sniff(data, m->len), (uint32_t)ms->entries.len, NULL};
  if ((m->name && !name) || VEC_PUSH(ms->entries, e) || VEC_PUSH(ms->datas, data) ||
      VEC_PUSH(ms->lens, m->len) || VEC_PUSH(ms->names, name)) {
    base_free(name);
    base_free(data);
    return base_error_set(err, WEFT_ENOMEM, "out of memory");
  }
  return WEFT_OK;
}

static int loader_container(loader *l, uint32_t id, io_trace_type type,
                            const char *display, const uint8_t *data,
                            size_t len, uint32_t depth, base_error *err) {
  int rc = io_depth_check(depth + 1, &l->limits, err);
  if (rc) return rc;
  loader_members ms = {0};
  rc = io_archive_each(type, data, len, &l->limits, loader_collect_member, &ms, err);
  if (rc && err && !strstr(err->message, display)) base_error_prefix(err, "%s", display);
  if (rc == WEFT_OK) io_order_members(ms.entries.data, ms.entries.len);
  for (size_t i = 0; i < ms.entries.len; i++) {
    uint32_t k = ms.entries.data[i].index;
    uint8_t *member = ms.datas.data[k];
    ms.datas.data[k] = NULL;
    if (!member) continue;
    if (rc == WEFT_OK && VEC_PUSH(l->blobs, member)) {
      base_free(member);
      rc = base_error_set(err, WEFT_ENOMEM, "out of memory");
    }
    if (rc != WEFT_OK) {
      base_free(member);
      continue;
    }
    const char *mname = ms.names.data[k];
    rc = loader_process(l, id, mname, mname ? mname : display, member,
                        ms.lens.data[k], depth + 1, err);
  }
  for (size_t i = 0; i < ms.names.len; i++) base_free(ms.names.data[i]);
  VEC_FREE(ms.entries);
  VEC_FREE(ms.datas);
  VEC_FREE(ms.lens);
  VEC_FREE(ms.names);
  return rc;
}

static int loader_process(loader *l, int64_t parent, const char *name,
                          const char *display, const uint8_t *data, size_t len,
                          uint32_t depth, base_error *err) {
  io_trace_type type = io_sniff(data, len);
  uint32_t id;
  int rc = ctx_add_trace_file(l->ctx, parent, name, len, io_trace_type_name(type), &id);
  if (rc) return base_error_set(err, rc, "%s: out of memory", display);
  if (parent < 0 && l->first_top_level < 0) l->first_top_level = id;
  ctx_mark_processed(l->ctx, id);
  if (io_trace_type_is_container(type)) {
    storage_set_i64(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_is_container, id, 1);
    return loader_container(l, id, type, display, data, len, depth, err);
  }
  if ((type == IO_TRACE_PERFETTO_MANIFEST || io_trace_type_is_container(type)) &&
      l->has_manifest && name) {
    const manifest_file *mf = manifest_find_file(&l->manifest, name);
    if (mf && mf->has_clocks)
      return base_error_set(err, WEFT_EINVAL, "perfetto_manifest: overrides are not "
                            "supported for trace files which are themselves archives "
                            "or perfetto_manifest files");
  }
  if (type == IO_TRACE_PERFETTO_MANIFEST) return loader_manifest(l, data, len, err);
  l->trace_file_seen = 1;
  const importer_ops *ops = loader_importer_for(type);
  if (!ops) {
    if (type == IO_TRACE_UNKNOWN)
      return base_error_set(err, WEFT_EUNSUPPORTED, "%s: unknown trace format "
                            "(not Perfetto proto, JSON, systrace or an archive)", display);
    return base_error_set(err, WEFT_EUNSUPPORTED, "%s: %s traces are not supported yet",
                          display, io_trace_type_name(type));
  }
  return loader_tokenize(l, id, name, display, ops, data, len, err);
}

int loader_add_file(loader *l, const char *name, uint8_t *data, size_t len,
                    base_error *err) {
  if (VEC_PUSH(l->blobs, data)) {
    base_free(data);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", name);
  }
  l->top_level_count++;
  return loader_process(l, -1, name, name, data, len, 0, err);
}

/* ---- finish: convert, merge, parse ---- */


static int loader_emit(void *user, const sort_event *e) {
  loader_emit_ctx *c = user;
  import_file *f = c->l->files.data[e->source];
  int rc = f->ops->parse(f, e, c->err);
  if (rc && c->err && !strstr(c->err->message, f->name))
    base_error_prefix(c->err, "%s", f->name);
  return rc;
}

int loader_finish(loader *l, base_error *err) {
  /* A single input is the trace itself: Perfetto leaves its name NULL. */
  if (l->top_level_count == 1 && l->first_top_level >= 0)
    storage_set_str(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_name,
                    (size_t)l->first_top_level, STRING_NULL);
  loader_emit_ctx c = {l, err};
  int rc = sorter_run(&l->sorter, loader_convert, loader_emit, &c);
  for (size_t i = 0; rc == WEFT_OK && i < l->files.len; i++) {
    import_file *f = l->files.data[i];
    if (f->ops->end) rc = f->ops->end(f, err);
  }
  loader_free_files(l);
  for (size_t i = 0; i < l->blobs.len; i++) base_free(l->blobs.data[i]);
  l->blobs.len = 0;
  if (rc) return rc;
  /* Without a claim, trace time is BOOTTIME (Perfetto's default). */
  rc = ctx_metadata_set_int(l->ctx, "trace_time_clock_id",
                            l->trace_time_clock >= 0 ? l->trace_time_clock : 6, -1, -1);
  if (rc) return base_error_set(err, rc, "out of memory");
  return ctx_finalize_tables(l->ctx);
}
