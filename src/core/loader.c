/* The loading pipeline: sniff -> unpack containers in processing order ->
 * tokenize trace files into the sorter -> (finish) convert, merge, parse. */
#include "core/loader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock/clock.h"
#include "core/input.h"
#include "core/scan.h"
#include "core/spill.h"
#include "core/unpack.h"

#include "import/importer.h"
#include "io/archive.h"
#include "io/sniff.h"
#include "manifest/manifest.h"

/* A scan queued ahead of its file's turn, and the bytes it reads. */
typedef struct loader_scan {
  scan_job *job;
  const uint8_t *data;
  size_t len;
} loader_scan;

/* A member's scan made with its unpacking (core/unpack.h), for its
 * tokenize: loader_scan_result hands it over. */
typedef struct loader_ready_scan {
  const uint8_t *data; /* the bytes it scanned, or NULL: none */
  size_t len;
  const importer_ops *ops;
  void *result;
  int status;
  base_error err;
} loader_ready_scan;

/* A top-level gzip file's unpack queued ahead of its turn (from
 * loader_scan_upcoming), for its container's deferred member to adopt. */
typedef struct loader_upcoming {
  const uint8_t *data; /* the file's bytes */
  size_t len;
  uint64_t size;       /* inflated bytes */
  unpack_member *job;
  uint8_t spill;       /* a member map is reserved for it */
} loader_upcoming;

/* Input bytes the loader owns: a heap buffer or a read-only file mapping. */
typedef struct loader_blob {
  uint8_t *heap; /* base_malloc'd, or NULL */
  void *map;     /* mmap'd, or NULL */
  size_t map_len;
} loader_blob;

struct loader {
  trace_context *ctx;
  sorter sorter;
  io_limits limits;
  VEC(import_file *) files;  /* tokenized trace files; index = source */
  VEC(loader_blob) blobs;    /* bytes kept until loading ends */
  uint32_t member_maps;      /* archive members mapped on their own */
  spill_file spill;          /* decompressed members, when spilled */
  uint64_t spilled_bytes;    /* member bytes moved there (atomic: progress) */
  int map_inputs;            /* map files instead of reading them */
  int give_back;             /* give parsed bytes back (release_input) */
  int prepare;               /* importers decode events ahead (their prepare) */
  clock_graph clocks;        /* every clock of every file */
  clock_converter converter; /* loader_convert's cache (sorter_run's thread) */
  int64_t first_top_level;   /* trace_file id of the first input, or -1 */
  uint64_t head_hash;        /* FNV-1a of the first input's first 4 KiB */
  int has_head_hash;
  uint32_t top_level_count;
  int trace_file_seen;       /* a trace (non-manifest) file was processed */
  manifest manifest;         /* valid when has_manifest */
  int has_manifest;
  base_map unrelatable_clocks; /* clock nodes already counted as unrelatable */
  uint64_t input_bytes;      /* top-level bytes fed so far */
  uint64_t expanded_bytes;   /* bytes unpacked from containers so far */
  uint32_t threads;          /* --threads, resolved */
  scan_pool *scans;          /* created at the first scan ahead, or NULL */
  VEC(loader_scan) scan_jobs; /* scans of upcoming members, in member order */
  uint64_t scan_ahead_bytes; /* input bytes of scan_jobs */
  unpacker unpack;           /* deferred archive members' jobs */
  VEC(loader_upcoming) upcoming; /* top-level gzip files unpacked ahead */
  uint64_t upcoming_bytes;   /* their inflated bytes */
  loader_ready_scan ready;   /* the scan of the member being processed */
};

/* What the sorter's callbacks receive. */
typedef struct loader_emit_ctx {
  loader *l;
  base_error *err;
} loader_emit_ctx;

/* ---- clocks: every file's clocks live in one global clock graph ---- */

int import_clock_on(import_file *f, uint32_t machine, uint32_t sequence,
                    uint64_t clock_id, uint32_t *node) {
  if (f->pinned) clock_id = CLOCK_ID_FILE_PRIVATE; /* PIN: one private timeline */
  clock_key k = clock_key_make(machine, f->trace_id, sequence, clock_id);
  return clock_graph_intern(&f->loader->clocks, &k, node, NULL);
}

int import_clock(import_file *f, uint32_t sequence, uint64_t clock_id,
                 uint32_t *node) {
  return import_clock_on(f, f->machine, sequence, clock_id, node);
}

int import_clock_private(import_file *f, uint32_t *node) {
  return import_clock(f, 0, CLOCK_ID_FILE_PRIVATE, node);
}

int import_clock_anchor(import_file *f, uint32_t node) {
  return clock_graph_set_anchor(&f->loader->clocks, node, NULL);
}

int import_clock_alias(import_file *f, uint64_t clock_id) {
  if (f->pinned) return WEFT_OK; /* PIN: one private timeline */
  clock_key own = clock_key_make(f->machine, f->trace_id, 0, CLOCK_ID_FILE_PRIVATE);
  clock_key builtin = clock_key_make(f->machine, f->trace_id, 0, clock_id);
  return clock_graph_add_alias(&f->loader->clocks, &own, &builtin, NULL);
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
  return clock_graph_add_snapshot(&f->loader->clocks, stream, keys, values, n,
                                  &id, NULL);
}

int import_clock_snapshot(import_file *f, uint32_t sequence,
                          const uint64_t *clock_ids, const int64_t *values,
                          size_t n) {
  return import_clock_snapshot_on(f, f->machine, sequence, clock_ids, values, n);
}

int import_clock_relate_machines(import_file *f, uint32_t from, uint32_t to,
                                 uint64_t clock_id, int64_t offset,
                                 base_error *err) {
  clock_key a = clock_key_make(from, f->trace_id, 0, clock_id);
  clock_key b = clock_key_make(to, f->trace_id, 0, clock_id);
  uint32_t id;
  f->snapshot_count++;
  return clock_graph_add_relation(&f->loader->clocks, &a, &b, offset, &id, err);
}

void import_claim_trace_time(import_file *f, uint64_t clock_id) {
  if (f->pinned) return; /* a pinned file's clocks are not its own */
  clock_key k = clock_key_make(f->machine, f->trace_id, 0, clock_id);
  clock_graph_claim_trace_time(&f->loader->clocks, &k, NULL);
}

/* Events whose clock cannot reach trace time are dropped: each is counted
 * in clock_sync_failure, and each unrelatable clock once more in
 * clock_sync_unrelatable_clock_domains (the "domain" verdict is per clock). */
static void loader_count_drop(loader *l, const import_file *f, uint32_t clock,
                              clock_result r) {
  stats_id stat = r == CLOCK_OK ? stat_trace_sorter_negative_timestamp_dropped
                                : stat_clock_sync_failure;
  stats_add(&l->ctx->stats, stat, -1, f->machine, f->trace_id, 1);
  if (r != CLOCK_UNRELATABLE_DOMAINS) return;
  uint64_t *slot;
  if (base_map_insert(&l->unrelatable_clocks, clock, 1, &slot) == 1)
    stats_add(&l->ctx->stats, stat_clock_sync_unrelatable_clock_domains, -1,
              f->machine, f->trace_id, 1);
}

static int loader_convert(void *user, uint32_t source, uint32_t clock,
                          int64_t ts, int64_t *out) {
  loader *l = ((loader_emit_ctx *)user)->l;
  clock_result r = clock_converter_convert(&l->clocks, &l->converter, clock, ts, out);
  if (r == CLOCK_OK && *out >= 0) return 0;
  loader_count_drop(l, l->files.data[source], clock, r);
  return 1;
}

/* ---- import_file helpers ---- */

int import_push(import_file *f, int64_t ts, uint32_t clock, uint64_t payload) {
  return sorter_push_lane(&f->loader->sorter, f->source, sort_lane(f->machine, 0), ts,
                          clock, payload);
}

int import_push_untimed(import_file *f, int64_t ts, uint32_t clock, uint64_t payload) {
  int rc = import_push(f, ts, clock, payload);
  if (!rc) sorter_mark_break(&f->loader->sorter);
  return rc;
}

int import_push_cpu(import_file *f, uint32_t machine, uint32_t cpu, int64_t ts,
                    uint32_t clock, uint64_t payload) {
  return sorter_push_lane(&f->loader->sorter, f->source, sort_lane(machine, cpu + 1), ts,
                          clock, payload);
}

void import_input_hold(import_file *f, size_t off, size_t len) {
  if (f->holds) input_holds_hold(f->holds, off, len);
}

void import_input_release(import_file *f, size_t off, size_t len) {
  if (f->holds) input_holds_release(f->holds, off, len);
}

int import_stat(import_file *f, stats_id stat, int64_t delta) {
  return stats_add(&f->ctx->stats, stat, -1, f->machine, f->trace_id, delta);
}

/* ---- machines of a file ---- */

static const manifest_file *loader_manifest_file(const loader *l, const char *path) {
  return l->has_manifest && path ? manifest_find_file(&l->manifest, path) : NULL;
}

static int loader_machine_named(loader *l, const char *name, uint32_t *row) {
  return machine_get_by_name(&l->ctx->machines, name, strlen(name), row);
}

int import_declare_machines(import_file *f, const uint64_t *raw_ids, size_t n,
                            int has_unmarked, base_error *err) {
  const manifest_file *mf = loader_manifest_file(f->loader, f->path);
  f->multi_machine = n + (has_unmarked ? 1 : 0) > 1;
  if (!mf && n == 1 && !has_unmarked && f->machine == f->ctx->machines.host &&
      machine_adopt_raw_id(&f->ctx->machines, raw_ids[0]))
    return base_error_set(err, WEFT_ENOMEM, "out of memory");
  if (!mf) return WEFT_OK;
  for (size_t i = 0; mf->has_machines && i < n; i++) {
    int rc = manifest_check_machine_id(mf, (uint32_t)raw_ids[i], err);
    if (raw_ids[i] > UINT32_MAX)
      rc = base_error_set(err, WEFT_EPARSE, "perfetto_manifest: machines: trace has "
                          "a packet from undeclared machine id %llu",
                          (unsigned long long)raw_ids[i]);
    if (rc) return rc;
  }
  if (!f->multi_machine) return WEFT_OK;
  if (mf->machine)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: machine: file '%s' "
                          "is a multi-machine trace; name its machines with "
                          "machines instead", mf->path);
  if (mf->has_clocks && mf->clocks.clock == MANIFEST_CLOCK_NONE)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: clocks: file '%s': "
                          "a `clocks` override applies only to a single-machine "
                          "file", mf->path);
  return manifest_check_multi_machine(&f->loader->manifest, mf->path, err);
}

int import_machine(import_file *f, uint64_t raw_id, uint32_t *row,
                   base_error *err) {
  const manifest_file *mf = loader_manifest_file(f->loader, f->path);
  int rc = WEFT_OK;
  const manifest_machine *named =
      mf && mf->has_machines && raw_id <= UINT32_MAX
          ? manifest_file_find_machine_id(mf, (uint32_t)raw_id) : NULL;
  if (named)
    rc = loader_machine_named(f->loader, named->name, row);
  else if (raw_id != 0 && mf && mf->has_machines)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: machines: trace has a "
                          "packet from undeclared machine id %llu",
                          (unsigned long long)raw_id);
  else if (raw_id == 0 || !f->multi_machine)
    *row = f->machine; /* base machine, or a single-machine file adopted */
  else
    rc = machine_get_by_raw_id(&f->ctx->machines, raw_id, row);
  if (!rc) rc = stats_declare_scope(&f->ctx->stats, *row, f->trace_id);
  return rc ? base_error_set(err, rc, "out of memory") : WEFT_OK;
}

/* ---- scans of upcoming files (core/scan.h) ----
 * While the loading thread tokenizes an archive member, the workers scan
 * the next ones; each result waits for its file's turn (the loading thread
 * runs queued scans while it waits for one). The window holds four scans
 * per worker and two for the loading thread, and at most
 * LOADER_SCAN_AHEAD_BYTES of input, so results never pile up. */

#define LOADER_SCAN_AHEAD_BYTES ((uint64_t)256 << 20)

/* Drops the scans queued from index `from` on (a container that failed, or
 * one whose members are done). */
static void loader_scans_drop(loader *l, size_t from) {
  while (l->scan_jobs.len > from) {
    loader_scan *s = &l->scan_jobs.data[--l->scan_jobs.len];
    scan_job_drop(l->scans, s->job);
    l->scan_ahead_bytes -= s->len;
  }
}

/* The pool, created at its first use; NULL when out of memory. */
static scan_pool *loader_pool(loader *l) {
  if (!l->scans && scan_pool_create(&l->scans, l->threads)) return NULL;
  return l->scans;
}

static void loader_upcoming_drop(loader *l, const uint8_t *data, size_t len);

static void loader_scans_stop(loader *l) {
  if (!l->scans) return;
  loader_upcoming_drop(l, NULL, 0);
  VEC_FREE(l->upcoming);
  loader_scans_drop(l, 0);
  scan_pool_destroy(l->scans);
  l->scans = NULL;
  VEC_FREE(l->scan_jobs);
}

static const importer_ops *loader_importer_for(io_trace_type type);

void import_scan_passed(const import_scan_input *in, size_t *given, size_t upto) {
  if (!in->give_back || upto > in->len || upto < *given + 2 * IMPORT_SCAN_LAG) return;
  /* Window edges aligned in the address space: consecutive calls give
   * back every whole page between them. */
  uintptr_t edge = ((uintptr_t)(in->data + upto) - IMPORT_SCAN_LAG) & ~(uintptr_t)(IMPORT_SCAN_LAG - 1);
  if (edge <= (uintptr_t)(in->data + *given)) return;
  input_give_back_pages(in->data + *given, (const uint8_t *)edge);
  *given = (size_t)(edge - (uintptr_t)in->data);
}

int import_task_submit(import_file *f, const scan_task *task, scan_job **job) {
  loader *l = f->loader;
  *job = NULL;
  if (!l || l->threads <= 1 || !loader_pool(l)) return WEFT_OK;
  return scan_pool_submit_task(l->scans, task, job);
}

int import_task_take(import_file *f, scan_job *job, void **result, base_error *err) {
  return scan_job_take(f->loader->scans, job, result, err);
}

void import_task_drop(import_file *f, scan_job *job) {
  if (job) scan_job_drop(f->loader->scans, job);
}

/* What a scan of these bytes reads: `mapped`, they are a file mapping. */
static import_scan_input loader_scan_input(const loader *l, const uint8_t *data, size_t len,
                                           int mapped) {
  return (import_scan_input){data, len, &l->ctx->options, mapped && l->give_back, 0,
                             l->threads <= 1};
}

/* Queues a scan of an upcoming file if its importer has one; 0 when the
 * window is full (the file is then scanned in its turn). */
static int loader_scan_ahead(loader *l, io_trace_type type, const uint8_t *data, size_t len,
                             int mapped) {
  const importer_ops *ops = loader_importer_for(type);
  if (!ops || !ops->scan || !data || len == 0) return 1;
  size_t window = 4 * (size_t)(l->threads - 1) + 2;
  if (l->scan_jobs.len >= window ||
      (l->scan_jobs.len && l->scan_ahead_bytes + len > LOADER_SCAN_AHEAD_BYTES))
    return 0;
  if (!loader_pool(l)) return 0;
  import_scan_input in = loader_scan_input(l, data, len, mapped);
  loader_scan s = {NULL, data, len};
  if (VEC_RESERVE(l->scan_jobs, l->scan_jobs.len + 1) ||
      scan_pool_submit(l->scans, ops, &in, &s.job))
    return 0; /* out of memory here: scanned in its turn instead */
  VEC_PUSH(l->scan_jobs, s);
  l->scan_ahead_bytes += len;
  return 1;
}

static void loader_unpack_upcoming(loader *l, const uint8_t *data, size_t len);

void loader_scan_upcoming(loader *l, const uint8_t *data, size_t len) {
  if (l->threads <= 1) return;
  io_trace_type type = io_sniff(data, len);
  if (type == IO_TRACE_GZIP) loader_unpack_upcoming(l, data, len);
  else (void)loader_scan_ahead(l, type, data, len, 1);
}

/* Unlinks the job queued ahead for these bytes from the window; NULL if
 * there is none. */
static scan_job *loader_scan_unqueue(loader *l, const uint8_t *data, size_t len) {
  for (size_t i = 0; i < l->scan_jobs.len; i++) {
    loader_scan s = l->scan_jobs.data[i];
    if (s.data != data || s.len != len) continue;
    memmove(&l->scan_jobs.data[i], &l->scan_jobs.data[i + 1],
            (l->scan_jobs.len - i - 1) * sizeof s);
    l->scan_jobs.len--;
    l->scan_ahead_bytes -= len;
    return s.job;
  }
  return NULL;
}

void loader_scan_forget(loader *l, const uint8_t *data, size_t len) {
  scan_job *job = loader_scan_unqueue(l, data, len);
  if (job) scan_job_drop(l->scans, job);
  loader_upcoming_drop(l, data, len);
}

/* The scan of a file about to be tokenized: the result of the scan queued
 * ahead for these bytes, else a scan run here and now. */
static int loader_scan_result(loader *l, const importer_ops *ops, const uint8_t *data,
                              size_t len, int mapped, void **result, base_error *err) {
  loader_ready_scan *r = &l->ready;
  if (r->data == data && r->len == len && r->ops == ops) {
    int rc = r->status;
    *result = r->result;
    if (rc && err) *err = r->err;
    *r = (loader_ready_scan){0};
    return rc;
  }
  scan_job *job = loader_scan_unqueue(l, data, len);
  if (job) return scan_job_take(l->scans, job, result, err);
  import_scan_input in = loader_scan_input(l, data, len, mapped);
  in.may_split = l->threads > 1 && l->scan_jobs.len == 0; /* nothing scans ahead */
  in.in_turn = 1;
  return scan_run(ops, &in, result, err);
}

/* ---- life cycle ---- */

/* --threads: 0 means one per online core. */
static uint32_t loader_thread_count(uint32_t requested) {
  if (requested) return requested;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (uint32_t)(cores < 64 ? cores : 64) : 1;
}

int loader_create(loader **out, trace_context *ctx) {
  loader *l = base_calloc(1, sizeof *l);
  if (!l) return WEFT_ENOMEM;
  l->ctx = ctx;
  sorter_init(&l->sorter);
  io_limits_default(&l->limits);
  const weft_options *o = &ctx->options;
  l->threads = loader_thread_count(o->threads);
  sorter_set_threads(&l->sorter, l->threads);
  if (o->max_decompressed_bytes) l->limits.max_member_bytes = o->max_decompressed_bytes;
  if (o->max_compression_ratio) l->limits.max_ratio = o->max_compression_ratio;
  if (o->max_archive_members) l->limits.max_members = o->max_archive_members;
  if (o->max_archive_depth) l->limits.max_depth = o->max_archive_depth;
  l->first_top_level = -1;
  /* WEFT_INPUT_MMAP=0 / WEFT_INPUT_RELEASE=0: read files into memory / keep
   * every input byte until loading ends (to compare against). */
  const char *env = getenv("WEFT_INPUT_MMAP");
  l->map_inputs = !(env && strcmp(env, "0") == 0);
  env = getenv("WEFT_INPUT_RELEASE");
  l->give_back = !(env && strcmp(env, "0") == 0);
  /* WEFT_PREPARE=0: no prepare step; every event is decoded by its parse
   * (to compare against). */
  env = getenv("WEFT_PREPARE");
  l->prepare = !(env && strcmp(env, "0") == 0);
  env = getenv("WEFT_SPILL");
  spill_init(&l->spill, NULL, l->map_inputs && l->give_back && !(env && strcmp(env, "0") == 0));
  unpacker_init(&l->unpack, &l->spill, &ctx->options, l->give_back);
  int rc = clock_graph_init(&l->clocks, NULL, NULL);
  if (rc) {
    unpacker_destroy(&l->unpack);
    base_free(l);
    return rc;
  }
  *out = l;
  return WEFT_OK;
}

static void loader_free_files(loader *l) {
  for (size_t i = 0; i < l->files.len; i++) {
    import_file *f = l->files.data[i];
    if (f->ops && f->ops->destroy) f->ops->destroy(f);
    if (f->holds) input_holds_free(f->holds);
    base_free(f->holds);
    base_free((char *)f->name);
    base_free((char *)f->path);
    base_free(f);
  }
  l->files.len = 0;
}

/* After the files (their holds unpoison the bytes first). */
static void loader_free_blobs(loader *l) {
  for (size_t i = 0; i < l->blobs.len; i++) {
    loader_blob *b = &l->blobs.data[i];
    base_free(b->heap);
    if (b->map) munmap(b->map, b->map_len);
  }
  l->blobs.len = 0;
}

int loader_maps_files(const loader *l) { return l->map_inputs; }

void loader_destroy(loader *l) {
  if (!l) return;
  loader_scans_stop(l);
  unpacker_destroy(&l->unpack);
  loader_free_files(l);
  loader_free_blobs(l);
  spill_close(&l->spill);
  VEC_FREE(l->files);
  VEC_FREE(l->blobs);
  clock_graph_free(&l->clocks);
  base_map_free(&l->unrelatable_clocks);
  sorter_free(&l->sorter);
  if (l->has_manifest) manifest_free(&l->manifest);
  base_free(l);
}

/* ---- processing ---- */

static int loader_process(loader *l, int64_t parent, int64_t row, const char *name,
                          const char *display, const uint8_t *data, size_t len,
                          int mapped, uint32_t depth, base_error *err);

static int loader_file_machine(loader *l, const char *path, uint32_t *machine);

/* Machine row 0, the one trace time defaults to: the first machine made
 * (the manifest's first named one, else the host, made now if need be). */
static int loader_first_machine(loader *l, uint32_t *machine) {
  *machine = 0;
  if (ctx_table(l->ctx, TABLE_MACHINE)->row_count) return WEFT_OK;
  return machine_host(&l->ctx->machines, machine);
}

/* trace_time claims before any file can: the clock of trace_time.machine,
 * else of trace_time.file's base machine, else of machine row 0. Manifest
 * clock names are builtin clocks, so the key needs no file id. */
static int loader_manifest_claim_trace_time(loader *l, base_error *err) {
  const manifest_trace_time *tt = &l->manifest.trace_time;
  if (!tt->present) return WEFT_OK;
  uint32_t machine = 0;
  int rc = tt->machine ? loader_machine_named(l, tt->machine, &machine)
           : tt->file  ? loader_file_machine(l, tt->file, &machine)
                       : loader_first_machine(l, &machine);
  if (rc) return base_error_set(err, rc, "out of memory");
  clock_key k = clock_key_make(machine, 0, 0, tt->clock);
  if (clock_graph_claim_trace_time(&l->clocks, &k, err) < 0)
    return err && err->code ? err->code : WEFT_ENOMEM;
  return WEFT_OK;
}

/* The manifest's metadata: its trace_file's type and size, and one
 * manifest_attribute.<key> row per attribute (a repeated key: the last). */
static int loader_manifest_metadata(loader *l, uint32_t id, size_t len) {
  int rc = ctx_metadata_set_str(l->ctx, "trace_type", "perfetto_manifest", -1, id);
  if (!rc) rc = ctx_metadata_set_int(l->ctx, "trace_size_bytes", (int64_t)len, -1, id);
  for (size_t i = 0; !rc && i < l->manifest.attribute_count; i++) {
    const manifest_attribute *a = &l->manifest.attributes[i];
    size_t n = sizeof "manifest_attribute." + strlen(a->key);
    char *key = base_malloc(n);
    if (!key) return WEFT_ENOMEM;
    snprintf(key, n, "manifest_attribute.%s", a->key);
    rc = a->is_int ? ctx_metadata_set_int(l->ctx, key, a->int_value, -1, -1)
                   : ctx_metadata_set_str(l->ctx, key, a->str_value, -1, -1);
    base_free(key);
  }
  return rc;
}

/* A perfetto_manifest: validated in full; applied to the files after it. */
static int loader_manifest(loader *l, uint32_t id, const uint8_t *data, size_t len,
                           base_error *err) {
  if (l->has_manifest)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: multiple "
                          "perfetto_manifest files in archive");
  if (l->trace_file_seen)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: perfetto_manifest "
                          "file must be the first trace file in the input");
  json_limits limits = {l->ctx->options.max_json_depth, l->ctx->options.max_string_bytes};
  int rc = manifest_parse_limited((const char *)data, len, &limits, &l->manifest, err);
  if (rc) return rc;
  l->has_manifest = 1;
  if (loader_manifest_metadata(l, id, len)) return base_error_set(err, WEFT_ENOMEM, "out of memory");
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
  return loader_manifest_claim_trace_time(l, err);
}

static const importer_ops *loader_importer_for(io_trace_type type) {
  switch (type) {
    case IO_TRACE_JSON: return &import_json_ops;
    case IO_TRACE_PROTO: return &import_proto_ops;
    case IO_TRACE_SYSTRACE: return &import_systrace_ops;
    default: return NULL;
  }
}

/* The base machine of a file: the manifest's "machine" entry for its path,
 * or its `machines` entry with id 0, else the host. */
static int loader_file_machine(loader *l, const char *path, uint32_t *machine) {
  const manifest_file *mf = loader_manifest_file(l, path);
  if (mf && mf->machine) return loader_machine_named(l, mf->machine, machine);
  const manifest_machine *base =
      mf && mf->has_machines ? manifest_file_find_machine_id(mf, 0) : NULL;
  return base ? loader_machine_named(l, base->name, machine)
              : machine_host(&l->ctx->machines, machine);
}

/* The manifest's view of a file before tokenizing: PIN overrides make it
 * clockless. */
static void loader_apply_manifest(loader *l, import_file *f) {
  const manifest_file *mf = loader_manifest_file(l, f->path);
  f->pinned = mf && mf->has_clocks && mf->clocks.clock == MANIFEST_CLOCK_NONE;
}

/* Checks that need the file's contents: a pinned file must not bring its
 * own clock snapshots. */
static int loader_check_tokenized(loader *l, const import_file *f, base_error *err) {
  const manifest_file *mf = loader_manifest_file(l, f->path);
  if (mf && f->pinned && f->snapshot_count > 0)
    return base_error_set(err, WEFT_EPARSE, "perfetto_manifest: clocks: file '%s' "
                          "records clock snapshots, but clock overrides require the "
                          "trace to use a single clock; name the clock to relate with "
                          "clocks: clock", mf->path);
  return WEFT_OK;
}

/* After tokenize: mapped bytes go back to the page cache (parse faults in
 * again what it reads); an importer that opted in also gives back for good
 * what no event holds (heap buffers too). */
static void loader_tokenized(loader *l, import_file *f, int mapped) {
  if (mapped && l->give_back) input_give_back_pages(f->data, f->data + f->len);
  if (f->release_input) input_holds_tokenized(f->holds);
}

static int loader_tokenize(loader *l, uint32_t trace_id, const char *path,
                           const char *display, const importer_ops *ops,
                           const uint8_t *data, size_t len, int mapped,
                           base_error *err) {
  import_file *f = base_calloc(1, sizeof *f);
  char *name = base_strndup(display, strlen(display));
  char *path_copy = path ? base_strndup(path, strlen(path)) : NULL;
  input_holds *holds = base_calloc(1, sizeof *holds);
  if (!f || !name || (path && !path_copy) || !holds ||
      input_holds_init(holds, data, len, INPUT_CHUNK_SHIFT_DEFAULT, l->give_back) ||
      VEC_PUSH(l->files, f)) {
    base_free(f);
    base_free(name);
    base_free(path_copy);
    if (holds) input_holds_free(holds);
    base_free(holds);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", display);
  }
  *f = (import_file){.ctx = l->ctx, .ops = ops, .name = name, .path = path_copy, .data = data,
                     .len = len, .trace_id = trace_id, .machine = 0,
                     .loader = l, .holds = holds};
  if (mapped) input_holds_set_mapped(holds);
  int rc = loader_file_machine(l, path, &f->machine);
  if (!rc) rc = stats_declare_scope(&l->ctx->stats, f->machine, trace_id);
  if (!rc) rc = sorter_add_source(&l->sorter, &f->source);
  if (rc) return base_error_set(err, rc, "%s: out of memory", display);
  loader_apply_manifest(l, f);
  if (ops->scan) rc = loader_scan_result(l, ops, data, len, mapped, &f->scan, err);
  if (!rc) rc = ops->tokenize(f, err);
  if (f->scan) ops->scan_free(f->scan);
  f->scan = NULL;
  if (!rc) rc = loader_check_tokenized(l, f, err);
  if (!rc) loader_tokenized(l, f, mapped);
  if (rc && err && !strstr(err->message, display)) base_error_prefix(err, "%s", display);
  return rc;
}

/* A deflated member left to inflate (io_member.deflated), and its job. */
typedef struct loader_deferred {
  io_deflated deflated; /* map NULL: the member is not deferred */
  uint32_t archive_index; /* io_member.index */
  uint8_t spill;        /* its job spills it: a member map is reserved */
  unpack_member *job;   /* queued, not yet taken; or NULL */
} loader_deferred;

typedef struct loader_members {
  VEC(io_order_entry) entries;
  VEC(uint8_t *) datas;
  VEC(uint8_t) owned; /* 1: datas[i] is a heap buffer; 0: mapped */
  VEC(size_t) lens;
  VEC(char *) names;
  VEC(loader_deferred) deferred;
  loader *l;
  const uint8_t *view; /* the archive's mapping, or NULL */
  int fd;              /* the archive, to map members on their own; or -1 */
  size_t unpack_next;  /* processing position of the next member to queue */
  size_t unpacking;    /* deferred members queued, not yet taken */
  uint64_t unpack_bytes; /* their bytes */
} loader_members;

/* At most this many: each is a mapping (vm.max_map_count is 65530 by
 * default, and the tables' large arrays need some too). */
#define LOADER_MEMBER_MAPS_MAX 8192u

/* A stored member in the archive's mapping, mapped on its own (a blob, so
 * unmapped when loading ends; see input_map_range for why); `in_view` when
 * that cannot be done. */
static const uint8_t *loader_member_mapping(loader_members *ms, const uint8_t *in_view,
                                            size_t len) {
  if (ms->fd < 0 || !ms->view || in_view < ms->view ||
      ms->l->member_maps >= LOADER_MEMBER_MAPS_MAX)
    return in_view;
  const uint8_t *data;
  size_t map_len;
  void *map = input_map_range(ms->fd, (uint64_t)(in_view - ms->view), len, &data, &map_len);
  if (!map) return in_view;
  loader_blob blob = {NULL, map, map_len};
  if (VEC_PUSH(ms->l->blobs, blob)) {
    munmap(map, map_len);
    return in_view;
  }
  ms->l->member_maps++;
  return data;
}

/* A decompressed trace member moved from the heap into the spill file and
 * mapped from there (a blob), so that its pages can be given back like a
 * stored member's; `heap` (freed then) when it stays on the heap. */
static uint8_t *loader_spill_member(loader *l, uint8_t *heap, size_t len,
                                    io_trace_type type, uint8_t *owned) {
  if (len < SPILL_MIN_BYTES || io_trace_type_is_container(type) ||
      l->member_maps >= LOADER_MEMBER_MAPS_MAX || VEC_RESERVE(l->blobs, l->blobs.len + 1))
    return heap;
  const uint8_t *data;
  size_t map_len;
  void *map = unpacker_spill(&l->unpack, heap, len, &data, &map_len); /* jobs may spill */
  if (!map) return heap;
  loader_blob blob = {NULL, map, map_len};
  (void)VEC_PUSH(l->blobs, blob); /* reserved above */
  l->member_maps++;
  __atomic_fetch_add(&l->spilled_bytes, (uint64_t)len, __ATOMIC_RELAXED);
  base_free(heap);
  *owned = 0;
  return (uint8_t *)data;
}

static int loader_collect_member(void *user, io_member *m, base_error *err) {
  loader_members *ms = user;
  char *name = m->name ? base_strndup(m->name, strlen(m->name)) : NULL;
  loader_deferred deferred = {{0}, m->index, 0, NULL};
  if (m->deflated) deferred.deflated = *m->deflated;
  uint8_t owned = m->view == NULL;
  uint8_t *data = m->deflated ? NULL
                  : owned     ? io_member_take(m)
                              : (uint8_t *)loader_member_mapping(ms, m->view, m->len);
  io_trace_type type = m->deflated ? io_sniff(m->head, m->head_len) : io_sniff(data, m->len);
  io_order_entry e = {name, type, (uint32_t)ms->entries.len, NULL};
  if (owned && data) data = loader_spill_member(ms->l, data, m->len, e.type, &owned);
  /* Room in all six first: the vectors must stay the same length. */
  size_t need = ms->entries.len + 1;
  if ((m->name && !name) || VEC_RESERVE(ms->entries, need) || VEC_RESERVE(ms->datas, need) ||
      VEC_RESERVE(ms->owned, need) || VEC_RESERVE(ms->lens, need) ||
      VEC_RESERVE(ms->names, need) || VEC_RESERVE(ms->deferred, need)) {
    base_free(name);
    if (owned) base_free(data);
    return base_error_set(err, WEFT_ENOMEM, "out of memory");
  }
  VEC_PUSH(ms->entries, e);
  VEC_PUSH(ms->datas, data);
  VEC_PUSH(ms->owned, owned);
  VEC_PUSH(ms->lens, m->len);
  VEC_PUSH(ms->names, name);
  VEC_PUSH(ms->deferred, deferred);
  return WEFT_OK;
}

/* Decompressed bytes the whole input may still expand to: the compression
 * ratio limit applied to all containers at every depth together (past the
 * ratio floor), so nested or many-member bombs stop early too. */
static uint64_t loader_expand_budget(const loader *l) {
  uint64_t ratio = l->limits.max_ratio ? l->limits.max_ratio : UINT32_MAX;
  uint64_t budget = l->input_bytes > UINT64_MAX / ratio ? UINT64_MAX
                                                         : l->input_bytes * ratio;
  if (budget < l->limits.ratio_floor_bytes) budget = l->limits.ratio_floor_bytes;
  return budget > l->expanded_bytes ? budget - l->expanded_bytes : 1;
}

/* Where a container's bytes are: in memory, or in a file read as it goes. */
typedef struct loader_source {
  const uint8_t *data;
  size_t len;
  const char *path; /* set: read from this file (zip/tar) */
  const uint8_t *view; /* with path: the file mapped, or NULL */
  int fd;              /* with view: the file it maps */
} loader_source;

/* ---- deferred members: inflated by pool jobs (core/unpack.h) ---- */

/* Deferred members queued ahead of their turn: at most this many bytes
 * (the first one whatever its size), and as many members as scans. */
#define LOADER_UNPACK_AHEAD_BYTES ((uint64_t)64 << 20)

/* The request for a deferred member of `type` and `len` bytes. */
static unpack_request loader_unpack_request(const loader *l, const io_deflated *d,
                                            io_trace_type type, size_t len, int alone) {
  const importer_ops *ops = loader_importer_for(type);
  unpack_request req = {*d, ops && ops->scan ? ops : NULL, 0, alone && l->threads > 1,
                        l->threads <= 1};
  req.spill = len >= SPILL_MIN_BYTES && !io_trace_type_is_container(type) &&
              l->member_maps < LOADER_MEMBER_MAPS_MAX;
  return req;
}

/* Queues the unpack of an upcoming top-level gzip file (one io_archive_each
 * would defer), within the window of LOADER_UNPACK_AHEAD_BYTES beyond the
 * first, as for members. Best effort: otherwise it is unpacked in its turn. */
static void loader_unpack_upcoming(loader *l, const uint8_t *data, size_t len) {
  io_limits limits = l->limits;
  limits.max_total_bytes = loader_expand_budget(l);
  io_deflated d;
  uint8_t head[IO_SNIFF_PREFIX_BYTES];
  size_t head_len;
  size_t window = 4 * (size_t)(l->threads - 1) + 2;
  if (!io_gzip_deferred(data, len, &limits, &d, head, &head_len) || l->upcoming.len >= window ||
      (l->upcoming.len && l->upcoming_bytes + d.size > LOADER_UNPACK_AHEAD_BYTES))
    return;
  unpack_request req = loader_unpack_request(l, &d, io_sniff(head, head_len), (size_t)d.size, 0);
  loader_upcoming u = {data, len, d.size, NULL, (uint8_t)req.spill};
  scan_pool *pool = loader_pool(l);
  if (!pool || VEC_RESERVE(l->upcoming, l->upcoming.len + 1) ||
      unpack_submit(&l->unpack, pool, &req, &u.job))
    return;
  if (req.spill) l->member_maps++;
  VEC_PUSH(l->upcoming, u);
  l->upcoming_bytes += d.size;
}

/* Unlinks upcoming unpack i, returning its job. */
static unpack_member *loader_upcoming_unlink(loader *l, size_t i, uint8_t *spill) {
  loader_upcoming u = l->upcoming.data[i];
  memmove(&l->upcoming.data[i], &l->upcoming.data[i + 1],
          (l->upcoming.len - i - 1) * sizeof u);
  l->upcoming.len--;
  l->upcoming_bytes -= u.size;
  *spill = u.spill;
  return u.job;
}

/* The job queued ahead for a deferred gzip stream (the same bytes give the
 * same request), unlinked; or NULL. */
static unpack_member *loader_upcoming_take(loader *l, const io_deflated *d, uint8_t *spill) {
  for (size_t i = 0; d->gzip && i < l->upcoming.len; i++)
    if (l->upcoming.data[i].data == d->map && l->upcoming.data[i].len == d->compressed &&
        l->upcoming.data[i].size == d->size)
      return loader_upcoming_unlink(l, i, spill);
  return NULL;
}

/* Drops the upcoming unpacks of these bytes (all of them: data NULL). */
static void loader_upcoming_drop(loader *l, const uint8_t *data, size_t len) {
  for (size_t i = l->upcoming.len; i-- > 0;) {
    if (data && (l->upcoming.data[i].data != data || l->upcoming.data[i].len != len)) continue;
    uint8_t spill;
    unpack_drop(l->scans, loader_upcoming_unlink(l, i, &spill));
    if (spill) l->member_maps--;
  }
}

/* Queues the job of the deferred member at processing position i (or
 * adopts the one queued ahead for it). `alone`: nothing else is queued
 * (its scan may split). */
static int loader_unpack_submit(loader *l, loader_members *ms, size_t i, int alone) {
  const io_order_entry *e = &ms->entries.data[i];
  loader_deferred *d = &ms->deferred.data[e->index];
  size_t len = ms->lens.data[e->index];
  d->job = loader_upcoming_take(l, &d->deflated, &d->spill);
  if (!d->job) {
    unpack_request req = loader_unpack_request(l, &d->deflated, e->type, len, alone);
    scan_pool *pool = loader_pool(l);
    if (!pool || unpack_submit(&l->unpack, pool, &req, &d->job)) return WEFT_ENOMEM;
    d->spill = (uint8_t)req.spill;
    if (req.spill) l->member_maps++;
  }
  ms->unpacking++;
  ms->unpack_bytes += len;
  return WEFT_OK;
}

/* Queues the deferred members from processing position `from` on, while the
 * window has room. At one thread nothing is queued ahead: each member is
 * unpacked in its turn. Best effort: a member not queued is in its turn. */
static void loader_unpack_ahead(loader *l, loader_members *ms, size_t from) {
  size_t window = l->threads > 1 ? 4 * (size_t)(l->threads - 1) + 2 : 0;
  if (ms->unpack_next < from) ms->unpack_next = from;
  for (; ms->unpack_next < ms->entries.len; ms->unpack_next++) {
    uint32_t k = ms->entries.data[ms->unpack_next].index;
    if (!ms->deferred.data[k].deflated.map) continue;
    size_t len = ms->lens.data[k];
    if (ms->unpacking >= window ||
        (ms->unpacking && ms->unpack_bytes + len > LOADER_UNPACK_AHEAD_BYTES))
      return;
    if (loader_unpack_submit(l, ms, ms->unpack_next, !ms->unpacking && !l->scan_jobs.len))
      return;
  }
}

/* Takes member k's job back (dropping it unless `take`): its bytes and
 * scan in *r when taken. */
static int loader_unpack_finish(loader *l, loader_members *ms, uint32_t k, int take,
                                unpack_result *r) {
  loader_deferred *d = &ms->deferred.data[k];
  unpack_member *job = d->job;
  d->job = NULL;
  ms->unpacking--;
  ms->unpack_bytes -= ms->lens.data[k];
  int rc = WEFT_OK;
  *r = (unpack_result){0};
  if (take) rc = unpack_take(l->scans, job, r);
  else unpack_drop(l->scans, job);
  if (d->spill && !r->map) l->member_maps--; /* reserved, not used */
  return rc;
}

/* Drops every queued job (a container that failed, or one done). */
static void loader_unpack_drop_all(loader *l, loader_members *ms) {
  for (size_t k = 0; k < ms->deferred.len; k++) {
    unpack_result none;
    if (ms->deferred.data[k].job) loader_unpack_finish(l, ms, (uint32_t)k, 0, &none);
  }
}

/* Member k read through libarchive alone (a gzip stream: through zlib),
 * for one whose bytes did not inflate in one call: it reads or fails as
 * without deferral. */
static int loader_unpack_fallback(loader *l, loader_members *ms, io_trace_type type,
                                  const loader_source *src, uint32_t k, base_error *err) {
  loader_members one = {0};
  one.l = l;
  one.fd = -1;
  io_limits limits = l->limits;
  limits.max_total_bytes = 0; /* this member counted already */
  int rc = src->path ? io_archive_member_file(type, src->path, src->len,
                                             ms->deferred.data[k].archive_index, &limits,
                                             loader_collect_member, &one, err)
                     : io_archive_each(type, src->data, src->len, 0, &limits,
                                       loader_collect_member, &one, err); /* a gzip */
  if (rc == WEFT_OK && one.datas.len == 1) {
    ms->datas.data[k] = one.datas.data[0];
    ms->owned.data[k] = one.owned.data[0];
    one.datas.len = 0;
  } else if (rc == WEFT_OK) {
    rc = base_error_set(err, WEFT_EPARSE, "%s: member %u is gone", io_trace_type_name(type),
                        ms->deferred.data[k].archive_index);
  }
  for (size_t i = 0; i < one.datas.len; i++) /* yielded, then failed: a truncated stream */
    if (one.owned.data[i]) base_free(one.datas.data[i]);
  for (size_t i = 0; i < one.names.len; i++) base_free(one.names.data[i]);
  VEC_FREE(one.entries);
  VEC_FREE(one.datas);
  VEC_FREE(one.owned);
  VEC_FREE(one.lens);
  VEC_FREE(one.names);
  VEC_FREE(one.deferred);
  return rc;
}

/* The bytes of deferred member k (at processing position i) into ms, and
 * its scan into l->ready: from its job, queued here if it was not. */
static int loader_unpack_take(loader *l, loader_members *ms, io_trace_type type,
                              const loader_source *src, size_t i, base_error *err) {
  uint32_t k = ms->entries.data[i].index;
  if (!ms->deferred.data[k].job &&
      loader_unpack_submit(l, ms, i, !ms->unpacking && !l->scan_jobs.len))
    return base_error_set(err, WEFT_ENOMEM, "out of memory");
  unpack_result r;
  int rc = loader_unpack_finish(l, ms, k, 1, &r);
  if (rc == WEFT_EPARSE) return loader_unpack_fallback(l, ms, type, src, k, err);
  if (rc) return base_error_set(err, rc, "out of memory");
  ms->owned.data[k] = r.map == NULL;
  ms->datas.data[k] = r.map ? (uint8_t *)r.data : r.heap;
  r.heap = NULL;
  if (r.map) {
    loader_blob blob = {NULL, r.map, r.map_len};
    if (VEC_PUSH(l->blobs, blob)) {
      ms->datas.data[k] = NULL;
      unpack_result_free(&r);
      return base_error_set(err, WEFT_ENOMEM, "out of memory");
    }
    r.map = NULL;
    __atomic_fetch_add(&l->spilled_bytes, (uint64_t)r.len, __ATOMIC_RELAXED);
  }
  if (r.scan_ops)
    l->ready = (loader_ready_scan){r.data, r.len, r.scan_ops, r.scan, r.scan_status, r.scan_err};
  return WEFT_OK;
}

/* Frees a ready scan its member's tokenize did not take. */
static void loader_ready_free(loader *l) {
  if (l->ready.result) l->ready.ops->scan_free(l->ready.result);
  l->ready = (loader_ready_scan){0};
}

/* Every member of an opened container gets its trace_file row now, in
 * archive order (Perfetto's ids), before any is processed; the row of the
 * member at archive index k is *first + k. A gzip's member is named "". */
static int loader_member_rows(loader *l, uint32_t parent, const loader_members *ms,
                              uint32_t *first, base_error *err) {
  *first = (uint32_t)ctx_table(l->ctx, TABLE_TRACE_FILE)->row_count;
  for (size_t k = 0; k < ms->entries.len; k++) {
    const char *name = ms->names.data[k] ? ms->names.data[k] : "";
    uint32_t id;
    int rc = ctx_add_trace_file(l->ctx, parent, name, ms->lens.data[k],
                                io_trace_type_name(ms->entries.data[k].type), &id);
    if (rc) return base_error_set(err, rc, "out of memory");
  }
  return WEFT_OK;
}

static int loader_container(loader *l, uint32_t id, io_trace_type type,
                            const char *display, const loader_source *src,
                            uint32_t depth, base_error *err) {
  int rc = io_depth_check(depth + 1, &l->limits, err);
  if (rc) return rc;
  loader_members ms = {0};
  ms.l = l;
  ms.view = src->path ? src->view : NULL;
  ms.fd = ms.view ? src->fd : -1;
  io_limits limits = l->limits;
  limits.max_total_bytes = loader_expand_budget(l);
  rc = src->path ? io_archive_each_file_view(type, src->path, src->view, src->len,
                                             IO_EACH_DEFER_INFLATE, &limits,
                                             loader_collect_member, &ms, err)
                 : io_archive_each(type, src->data, src->len, IO_EACH_DEFER_INFLATE, &limits,
                                   loader_collect_member, &ms, err);
  for (size_t i = 0; i < ms.lens.len; i++) l->expanded_bytes += ms.lens.data[i];
  if (rc && err && !strstr(err->message, display)) base_error_prefix(err, "%s", display);
  uint32_t first_row = 0;
  if (rc == WEFT_OK) rc = loader_member_rows(l, id, &ms, &first_row, err);
  if (rc == WEFT_OK) io_order_members(ms.entries.data, ms.entries.len);
  size_t scans_before = l->scan_jobs.len, ahead = 0;
  for (size_t i = 0; i < ms.entries.len; i++) {
    if (rc != WEFT_OK) { /* before members are freed */
      loader_scans_drop(l, scans_before);
      loader_unpack_drop_all(l, &ms);
    }
    for (ahead = ahead > i + 1 ? ahead : i + 1; rc == WEFT_OK && ahead < ms.entries.len; ahead++) {
      const io_order_entry *e = &ms.entries.data[ahead];
      if (!loader_scan_ahead(l, e->type, ms.datas.data[e->index], ms.lens.data[e->index],
                             !ms.owned.data[e->index]))
        break;
    }
    if (rc == WEFT_OK) loader_unpack_ahead(l, &ms, i);
    uint32_t k = ms.entries.data[i].index;
    if (rc == WEFT_OK && ms.deferred.data[k].deflated.map) {
      rc = loader_unpack_take(l, &ms, type, src, i, err);
      if (rc && err && !strstr(err->message, display)) base_error_prefix(err, "%s", display);
    }
    uint8_t *member = ms.datas.data[k];
    int owned = ms.owned.data[k];
    ms.datas.data[k] = NULL;
    if (!member) continue;
    /* A container's bytes are not needed once it is unpacked. */
    int keep = owned && !io_trace_type_is_container(ms.entries.data[i].type);
    loader_blob blob = {member, NULL, 0};
    if (rc == WEFT_OK && keep && VEC_PUSH(l->blobs, blob)) {
      base_free(member);
      rc = base_error_set(err, WEFT_ENOMEM, "out of memory");
      continue;
    }
    if (rc != WEFT_OK) {
      if (owned) base_free(member);
      continue;
    }
    const char *mname = ms.names.data[k];
    rc = loader_process(l, id, first_row + k, mname, mname ? mname : display, member,
                        ms.lens.data[k], !owned, depth + 1, err);
    loader_ready_free(l);
    if (owned && !keep) base_free(member);
    if (rc && err && !strstr(err->message, display)) base_error_prefix(err, "%s", display);
  }
  loader_scans_drop(l, scans_before);
  loader_unpack_drop_all(l, &ms);
  if (src->data) loader_upcoming_drop(l, src->data, src->len); /* not adopted */
  loader_ready_free(l); /* a member that failed before its tokenize */
  for (size_t i = 0; i < ms.names.len; i++) base_free(ms.names.data[i]);
  VEC_FREE(ms.entries);
  VEC_FREE(ms.datas);
  VEC_FREE(ms.owned);
  VEC_FREE(ms.lens);
  VEC_FREE(ms.names);
  VEC_FREE(ms.deferred);
  return rc;
}

/* The path a file is known by in the manifest: its name, or for a file given
 * on the command line (no parent) whose name the manifest lacks, the
 * manifest entry matching its base name. */
static const char *loader_manifest_name(const loader *l, int64_t parent,
                                        const char *name) {
  if (!l->has_manifest || !name || parent >= 0 || manifest_find_file(&l->manifest, name))
    return name;
  const char *slash = strrchr(name, '/');
  const manifest_file *mf = slash ? manifest_find_file(&l->manifest, slash + 1) : NULL;
  return mf ? mf->path : name;
}

/* Processes one file: its trace_file row is `row` (made by its container),
 * or a new one when row < 0. */
static int loader_process(loader *l, int64_t parent, int64_t row, const char *name,
                          const char *display, const uint8_t *data, size_t len,
                          int mapped, uint32_t depth, base_error *err) {
  io_trace_type type = io_sniff(data, len);
  uint32_t id = (uint32_t)row;
  int rc = row >= 0 ? ctx_set_trace_file_type(l->ctx, id, io_trace_type_name(type))
                    : ctx_add_trace_file(l->ctx, parent, name, len, io_trace_type_name(type), &id);
  if (rc) return base_error_set(err, rc, "%s: out of memory", display);
  if (parent < 0 && l->first_top_level < 0) l->first_top_level = id;
  ctx_mark_processed(l->ctx, id);
  const manifest_file *mf = l->has_manifest ? manifest_find_file(&l->manifest, name) : NULL;
  if ((type == IO_TRACE_PERFETTO_MANIFEST || io_trace_type_is_container(type)) && mf &&
      (mf->has_clocks || mf->machine || mf->has_machines))
    return base_error_set(err, WEFT_EINVAL, "perfetto_manifest: overrides are not "
                          "supported for trace files which are themselves archives "
                          "or perfetto_manifest files: %s", mf->path);
  if (io_trace_type_is_container(type)) {
    storage_set_i64(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_is_container, id, 1);
    loader_source src = {data, len, NULL, NULL, -1};
    rc = loader_container(l, id, type, display, &src, depth, err);
    if (mapped && l->give_back) input_give_back_pages(data, data + len); /* unpacked */
    return rc;
  }
  if (type == IO_TRACE_PERFETTO_MANIFEST) {
    int rc = loader_manifest(l, id, data, len, err);
    if (rc && err && !strstr(err->message, display)) base_error_prefix(err, "%s", display);
    return rc;
  }
  l->trace_file_seen = 1;
  const importer_ops *ops = loader_importer_for(type);
  if (!ops) {
    if (type == IO_TRACE_UNKNOWN)
      return base_error_set(err, WEFT_EUNSUPPORTED, "%s: Unknown trace type provided "
                            "(ERR:fmt): not a Perfetto proto, JSON, systrace or "
                            "archive that weft reads", display);
    return base_error_set(err, WEFT_EUNSUPPORTED, "%s: %s traces are not supported yet",
                          display, io_trace_type_name(type));
  }
  return loader_tokenize(l, id, loader_manifest_name(l, parent, name), display, ops,
                         data, len, mapped, err);
}

/* Notes the head of the first input: a trace that carries no uuid gets one
 * made from it, as Perfetto makes it (FNV-1a 64 of the first 4096 raw
 * bytes, as the last 16 hex digits of a zero uuid). */
static void loader_note_head(loader *l, const uint8_t *data, size_t len) {
  if (l->has_head_hash) return;
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < len && i < 4096; i++) h = (h ^ data[i]) * UINT64_C(0x100000001b3);
  l->head_hash = h;
  l->has_head_hash = 1;
}

/* The uuid made from the first input's head, unless the trace gave one. */
static int loader_default_uuid(loader *l) {
  if (!l->has_head_hash || ctx_metadata_has(l->ctx, "trace_uuid")) return WEFT_OK;
  char uuid[40];
  snprintf(uuid, sizeof uuid, "00000000-0000-0000-%04x-%012llx",
           (unsigned)(l->head_hash >> 48),
           (unsigned long long)(l->head_hash & UINT64_C(0xffffffffffff)));
  return ctx_metadata_set_str(l->ctx, "trace_uuid", uuid, -1, -1);
}

static int loader_add_blob(loader *l, const char *name, loader_blob blob,
                           const uint8_t *data, size_t len, base_error *err) {
  loader_note_head(l, data, len);
  if (VEC_PUSH(l->blobs, blob)) {
    loader_scan_forget(l, data, len); /* a scan queued for these bytes */
    base_free(blob.heap);
    if (blob.map) munmap(blob.map, blob.map_len);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", name);
  }
  l->top_level_count++;
  l->input_bytes += len;
  int rc = loader_process(l, -1, -1, name, name, data, len, blob.map != NULL, 0, err);
  /* Every failure names the input file (also manifest and limit errors). */
  if (rc && err && !strstr(err->message, name)) base_error_prefix(err, "%s", name);
  return rc;
}

int loader_add_file(loader *l, const char *name, uint8_t *data, size_t len,
                    base_error *err) {
  loader_blob blob = {data, NULL, 0};
  return loader_add_blob(l, name, blob, data, len, err);
}

int loader_add_mapped(loader *l, const char *name, void *map, size_t len,
                      base_error *err) {
  loader_blob blob = {NULL, map, len};
  return loader_add_blob(l, name, blob, map, len, err);
}

/* The whole file read-only, or NULL (then it is read block by block); *fd
 * stays open on it (for its members' own mappings) when mapped, else -1. */
static void *loader_map_path(const loader *l, const char *path, uint64_t size, int *fd) {
  *fd = -1;
  if (!l->map_inputs || size == 0 || size > SIZE_MAX) return NULL;
  int file = open(path, O_RDONLY | O_CLOEXEC);
  if (file < 0) return NULL;
  struct stat st;
  void *map = fstat(file, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == size
                  ? input_map_file(file, (size_t)size)
                  : NULL;
  if (map) *fd = file;
  else close(file);
  return map;
}

int loader_add_archive_path(loader *l, const char *name, const char *path,
                            uint64_t size, base_error *err) {
  uint8_t head[8192]; /* enough for every signature io_sniff looks for */
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(head, 1, sizeof head, f) : 0;
  if (f) fclose(f);
  if (!f) return base_error_set(err, WEFT_EIO, "%s: cannot open: %s", name, strerror(errno));
  io_trace_type type = io_sniff(head, n);
  loader_note_head(l, head, n);
  if (!io_archive_streams_from_file(type))
    return base_error_set(err, WEFT_EINVAL, "%s: not a zip or tar archive", name);
  l->top_level_count++;
  l->input_bytes += size;
  uint32_t id;
  int rc = ctx_add_trace_file(l->ctx, -1, name, size, io_trace_type_name(type), &id);
  if (rc) return base_error_set(err, rc, "%s: out of memory", name);
  if (l->first_top_level < 0) l->first_top_level = id;
  ctx_mark_processed(l->ctx, id);
  storage_set_i64(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_is_container, id, 1);
  /* Stored members are read in place from the mapping (kept until the end). */
  int fd;
  void *map = loader_map_path(l, path, size, &fd);
  loader_blob blob = {NULL, map, (size_t)size};
  if (map && VEC_PUSH(l->blobs, blob)) {
    munmap(map, (size_t)size);
    close(fd);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", name);
  }
  loader_source src = {NULL, (size_t)size, path, map, fd};
  rc = loader_container(l, id, type, name, &src, 0, err);
  if (fd >= 0) close(fd);
  return rc;
}

/* ---- finish: convert, merge, parse ---- */

static import_file *loader_file_by_path(loader *l, const char *path) {
  for (size_t i = 0; path && i < l->files.len; i++)
    if (l->files.data[i]->path && strcmp(l->files.data[i]->path, path) == 0)
      return l->files.data[i];
  return NULL;
}

/* A manifest `clocks` entry: RELATE (clock given) or PIN (private clock).
 * clocks.machine / sync_to.machine pick the machine of a multi-machine file. */
static int loader_manifest_relation(loader *l, import_file *f,
                                    const manifest_clocks *c, base_error *err) {
  import_file *ref = loader_file_by_path(l, c->sync_to.file);
  if (!ref) return WEFT_OK; /* the reference file is not in the input */
  uint32_t src_machine = f->machine, dst_machine = ref->machine;
  if ((c->machine && loader_machine_named(l, c->machine, &src_machine)) ||
      (c->sync_to.machine && loader_machine_named(l, c->sync_to.machine, &dst_machine)))
    return base_error_set(err, WEFT_ENOMEM, "out of memory");
  clock_key src = clock_key_make(src_machine, f->trace_id, 0,
                                 c->clock == MANIFEST_CLOCK_NONE ? CLOCK_ID_FILE_PRIVATE
                                                                 : c->clock);
  clock_key dst = clock_key_make(dst_machine, ref->trace_id, 0,
                                 c->sync_to.clock == MANIFEST_CLOCK_NONE
                                     ? CLOCK_ID_FILE_PRIVATE : c->sync_to.clock);
  uint32_t id;
  int rc = clock_graph_add_relation(&l->clocks, &src, &dst, c->offset_ns, &id, err);
  /* A clockless reference is itself pinned to trace time at zero offset. */
  if (rc == WEFT_OK && c->sync_to.clock == MANIFEST_CLOCK_NONE &&
      clock_graph_find(&l->clocks, &dst, &id))
    rc = clock_graph_set_anchor(&l->clocks, id, err);
  return rc;
}

/* clock_snapshot: one row per clock of every snapshot and relation; ts is
 * the snapshot's instant in trace time (the first of its clocks that
 * converts). Private per-file clocks are not shown (they have no id), nor
 * the aliases weft added (import_clock_alias), which take no snapshot_id. */
static int loader_fill_clock_snapshots(loader *l) {
  storage_table *t = ctx_table(l->ctx, TABLE_CLOCK_SNAPSHOT);
  size_t count = clock_graph_snapshot_count(&l->clocks);
  uint32_t hidden = 0;
  for (uint32_t id = 0; id < count; id++) {
    clock_snapshot_view v;
    if (!clock_graph_snapshot_get(&l->clocks, id, &v)) continue;
    if (v.hidden) {
      hidden++;
      continue;
    }
    int64_t ts = 0;
    for (size_t i = 0; i < v.count; i++)
      if (clock_graph_convert(&l->clocks, v.nodes[i], v.values[i], &ts) == CLOCK_OK) break;
    for (size_t i = 0; i < v.count; i++) {
      if (v.keys[i].clock_id == CLOCK_ID_FILE_PRIVATE) continue;
      uint32_t row;
      string_id name = STRING_NULL;
      const char *cname = clock_name_from_id(v.keys[i].clock_id);
      int rc = ctx_intern(l->ctx, cname, cname ? strlen(cname) : 0, &name);
      if (!rc) rc = storage_table_append(t, &row);
      if (rc) return rc;
      storage_set_i64(t, CLOCK_SNAPSHOT_ts, row, ts);
      storage_set_i64(t, CLOCK_SNAPSHOT_clock_id, row, (int64_t)v.keys[i].clock_id);
      storage_set_str(t, CLOCK_SNAPSHOT_clock_name, row, name);
      storage_set_i64(t, CLOCK_SNAPSHOT_clock_value, row, v.values[i]);
      storage_set_i64(t, CLOCK_SNAPSHOT_snapshot_id, row, id - hidden);
      int64_t m = model_machine_column(v.keys[i].machine);
      if (m >= 0) storage_set_i64(t, CLOCK_SNAPSHOT_machine_id, row, m);
    }
  }
  return WEFT_OK;
}

/* Claims trace time (manifest first, then the files' own claims, then
 * BOOTTIME of machine row 0) and adds the manifest's manual relations. */
static int loader_place_clocks(loader *l, base_error *err) {
  int rc = WEFT_OK;
  if (l->has_manifest) {
    for (size_t i = 0; rc == WEFT_OK && i < l->files.len; i++) {
      import_file *f = l->files.data[i];
      const manifest_file *mf = f->path ? manifest_find_file(&l->manifest, f->path) : NULL;
      if (mf && mf->has_clocks) rc = loader_manifest_relation(l, f, &mf->clocks, err);
    }
  }
  if (!clock_graph_trace_time(&l->clocks, NULL, NULL)) {
    uint32_t first;
    if (rc == WEFT_OK && loader_first_machine(l, &first))
      rc = base_error_set(err, WEFT_ENOMEM, "out of memory");
    clock_key k = clock_key_make(0, 0, 0, CLOCK_ID_BOOTTIME);
    if (rc == WEFT_OK && clock_graph_claim_trace_time(&l->clocks, &k, err) < 0)
      rc = err && err->code ? err->code : WEFT_ENOMEM;
  }
  if (rc == WEFT_OK) rc = clock_graph_resolve(&l->clocks, err);
  if (rc == WEFT_OK && loader_fill_clock_snapshots(l) != WEFT_OK)
    rc = base_error_set(err, WEFT_ENOMEM, "out of memory");
  return rc;
}


/* The sorter's prepare step: the importer's, when it has one. */
static size_t loader_prepare(void *user, const sort_event *e, void *out) {
  const loader_emit_ctx *c = user;
  const import_file *f = c->l->files.data[e->source];
  return f->ops->prepare ? f->ops->prepare(f, e, out) : 0;
}

/* The files' prefetch hints, by source: files.data[source], the importer's
 * rule with the file's struct warmed along (NULL when out of memory: no
 * hints). */
static sort_locate_rule *loader_locate_rules(const loader *l) {
  sort_locate_rule *rules = base_calloc(l->files.len + 1, sizeof *rules);
  for (size_t i = 0; rules && i < l->files.len; i++) {
    const import_file *f = l->files.data[i];
    if (f->ops->locate_rule) f->ops->locate_rule(f, &rules[i]);
    rules[i].warm[0] = f;
  }
  return rules;
}

static int loader_emit(void *user, const sort_event *e, void *prepared) {
  loader_emit_ctx *c = user;
  import_file *f = c->l->files.data[e->source];
  int rc = f->ops->parse(f, e, prepared, c->err);
  if (rc && c->err && !strstr(c->err->message, f->name))
    base_error_prefix(c->err, "%s", f->name);
  return rc;
}

/* With --threads > 1, a helper thread makes the tables' growing arrays
 * resident ahead of the parse's appends (storage.h); NULL when single
 * threaded or when it cannot start (the parse then faults them in). */
static storage_prefaulter *loader_prefault_start(loader *l) {
  storage_prefaulter *p = NULL;
  if (l->threads < 2 || storage_prefaulter_start(&p) != WEFT_OK || !p) return NULL;
  for (int i = 0; i < TABLE_COUNT; i++) storage_table_set_prefaulter(ctx_table(l->ctx, i), p);
  return p;
}

static void loader_prefault_stop(loader *l, storage_prefaulter *p) {
  if (!p) return;
  for (int i = 0; i < TABLE_COUNT; i++) storage_table_set_prefaulter(ctx_table(l->ctx, i), NULL);
  storage_prefaulter_stop(p);
}

/* Debug builds: every id column refers to a row (schema.h's WEFT_REFS), an
 * invariant of the model that the tests then check on every trace they
 * load. A dangling id fails the load, naming it. */
static int loader_check_refs(loader *l, base_error *err) {
#ifdef NDEBUG
  (void)l, (void)err;
  return WEFT_OK;
#else
  char what[256];
  long bad = schema_check_refs(l->ctx->tables, what, sizeof what);
  if (bad < 0) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  if (bad > 0)
    return base_error_set(err, WEFT_EINVAL, "internal error: %ld dangling ids, first %s",
                          bad, what);
  return WEFT_OK;
#endif
}

int loader_finish(loader *l, base_error *err) {
  loader_scans_stop(l); /* every file is tokenized: the workers are done */
  /* A single input is the trace itself: Perfetto leaves its name NULL. */
  if (l->top_level_count == 1 && l->first_top_level >= 0)
    storage_set_str(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_name,
                    (size_t)l->first_top_level, STRING_NULL);
  int rc = loader_place_clocks(l, err);
  if (rc) return rc;
  loader_emit_ctx c = {l, err};
  storage_prefaulter *prefaulter = loader_prefault_start(l);
  sort_locate_rule *rules = loader_locate_rules(l);
  sorter_set_locate_rules(&l->sorter, rules, l->files.len);
  rc = sorter_run_prepared(&l->sorter, loader_convert, l->prepare ? loader_prepare : NULL,
                           IMPORT_PREPARED_MAX, loader_emit, &c);
  sorter_set_locate_rules(&l->sorter, NULL, 0);
  base_free(rules);
  for (size_t i = 0; rc == WEFT_OK && i < l->files.len; i++) {
    import_file *f = l->files.data[i];
    if (f->ops->end) rc = f->ops->end(f, err);
  }
  loader_prefault_stop(l, prefaulter);
  loader_free_files(l);
  loader_free_blobs(l);
  if (rc) return rc;
  /* The clock that won trace time (loader_place_clocks defaults to BOOTTIME). */
  clock_key trace_time;
  clock_graph_trace_time(&l->clocks, &trace_time, NULL);
  l->ctx->trace_time_clock = trace_time.clock_id;
  l->ctx->trace_time_machine = trace_time.machine;
  rc = ctx_metadata_set_int(l->ctx, "trace_time_clock_id",
                            (int64_t)trace_time.clock_id, -1, -1);
  if (!rc) rc = loader_default_uuid(l);
  if (rc) return base_error_set(err, rc, "out of memory");
  rc = ctx_finalize_tables(l->ctx);
  return rc ? rc : loader_check_refs(l, err);
}

/* Inverse of conversion to trace time: the offset of a clock against trace
 * time is piecewise constant (nearest snapshot), so two fixed-point steps
 * land on the right piece except within one offset of a snapshot change. */
int loader_trace_time_to_clock(loader *l, uint64_t clock_id, int64_t ts,
                               int64_t *out) {
  clock_key trace_time;
  if (!clock_graph_trace_time(&l->clocks, &trace_time, NULL)) return -1;
  clock_key k = clock_key_make(trace_time.machine, 0, 0, clock_id);
  uint32_t node;
  if (!clock_graph_find(&l->clocks, &k, &node)) return -1;
  int64_t guess = ts;
  for (int step = 0; step < 2; step++) {
    int64_t converted;
    if (clock_graph_convert(&l->clocks, node, guess, &converted) != CLOCK_OK) return -1;
    int64_t offset;
    if (__builtin_sub_overflow(converted, guess, &offset) ||
        __builtin_sub_overflow(ts, offset, &guess))
      return -1;
  }
  *out = guess;
  return 0;
}

uint64_t loader_spilled_bytes(const loader *l) {
  return __atomic_load_n(&l->spilled_bytes, __ATOMIC_RELAXED);
}

void loader_progress(const loader *l, uint64_t *queued, uint64_t *parsed) {
  sorter_progress(&l->sorter, queued, parsed);
}
