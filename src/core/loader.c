/* The loader: inputs in, tables out. Each input is sniffed; a manifest goes
 * to the merge plan, a container is walked member by member (container.c),
 * a trace file is tokenized into the sorter by its importer; at finish
 * (finish.c) trace time is placed and the sorted events are parsed. */
#include "core/loader_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/input.h"

/* ---- life cycle ---- */

/* --threads: 0 means one per online core. */
static uint32_t loader_thread_count(uint32_t requested) {
  if (requested) return requested;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (uint32_t)(cores < 64 ? cores : 64) : 1;
}

/* An environment switch that is on unless set to "0" (WEFT_INPUT_MMAP=0
 * reads files into memory, WEFT_INPUT_RELEASE=0 keeps every input byte
 * until loading ends, WEFT_PREPARE=0 leaves every event to its parse,
 * WEFT_SPILL=0 keeps inflated members on the heap: to compare against). */
static int loader_env_on(const char *name) {
  const char *env = getenv(name);
  return !(env && strcmp(env, "0") == 0);
}

static void loader_limits(loader *l, const weft_options *o) {
  io_limits_default(&l->limits);
  if (o->max_decompressed_bytes) l->limits.max_member_bytes = o->max_decompressed_bytes;
  if (o->max_compression_ratio) l->limits.max_ratio = o->max_compression_ratio;
  if (o->max_archive_members) l->limits.max_members = o->max_archive_members;
  if (o->max_archive_depth) l->limits.max_depth = o->max_archive_depth;
}

int loader_create(loader **out, trace_context *ctx) {
  loader *l = base_calloc(1, sizeof *l);
  if (!l) return WEFT_ENOMEM;
  l->ctx = ctx;
  loader_limits(l, &ctx->options);
  l->first_top_level = -1;
  l->single_name = STRING_NULL;
  l->map_inputs = loader_env_on("WEFT_INPUT_MMAP");
  l->give_back = loader_env_on("WEFT_INPUT_RELEASE");
  l->prepare = loader_env_on("WEFT_PREPARE");
  spill_init(&l->spill, NULL, l->map_inputs && l->give_back && loader_env_on("WEFT_SPILL"));
  ahead_init(&l->ahead, loader_thread_count(ctx->options.threads), &ctx->options,
             l->give_back, &l->spill);
  plan_init(&l->plan);
  int rc = import_host_init(&l->host, ctx, &l->plan, &l->ahead, l->give_back);
  if (rc) {
    ahead_destroy(&l->ahead);
    base_free(l);
    return rc;
  }
  *out = l;
  return WEFT_OK;
}

int loader_keep_blob(loader *l, loader_blob blob) { return VEC_PUSH(l->blobs, blob); }

void loader_free_blobs(loader *l) {
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
  ahead_destroy(&l->ahead);
  import_host_free(&l->host);
  loader_free_blobs(l);
  spill_close(&l->spill);
  VEC_FREE(l->blobs);
  plan_free(&l->plan);
  base_free(l);
}

/* Decompressed bytes the whole input may still expand to: the compression
 * ratio limit applied to all containers at every depth together (past the
 * ratio floor), so nested or many-member bombs stop early too. */
uint64_t loader_expand_budget(const loader *l) {
  uint64_t ratio = l->limits.max_ratio ? l->limits.max_ratio : UINT32_MAX;
  uint64_t budget = l->input_bytes > UINT64_MAX / ratio ? UINT64_MAX
                                                         : l->input_bytes * ratio;
  if (budget < l->limits.ratio_floor_bytes) budget = l->limits.ratio_floor_bytes;
  return budget > l->expanded_bytes ? budget - l->expanded_bytes : 1;
}

/* ---- files given ahead of their turn ---- */

void loader_scan_upcoming(loader *l, const uint8_t *data, size_t len) {
  if (l->ahead.threads <= 1) return;
  io_trace_type type = io_sniff(data, len);
  if (type != IO_TRACE_GZIP) {
    (void)ahead_scan_file(&l->ahead, type, data, len, 1);
    return;
  }
  io_limits limits = l->limits;
  limits.max_total_bytes = loader_expand_budget(l);
  ahead_unpack_file(&l->ahead, data, len, &limits);
}

void loader_scan_forget(loader *l, const uint8_t *data, size_t len) {
  ahead_forget(&l->ahead, data, len);
}

/* ---- trace files ---- */

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
  import_file *f = NULL;
  int rc = import_host_open(&l->host, trace_id, path, display, ops, data, len, mapped,
                            &f, err);
  if (!rc && ops->scan)
    rc = ahead_scan_result(&l->ahead, ops, data, len, mapped, &f->scan, err);
  if (!rc) ctx_metadata_at_file(l->ctx, trace_id, 0);
  if (!rc) {
    l->ctx->model.scope_machine = f->machine;
    l->ctx->model.scope_trace = f->trace_id;
    rc = ops->tokenize(f, err);
  }
  if (f && f->scan) ops->scan_free(f->scan);
  if (f) f->scan = NULL;
  if (!rc) rc = plan_check_tokenized(&l->plan, f->path, f->pinned, f->snapshot_count, err);
  if (!rc) loader_tokenized(l, f, mapped);
  if (rc) base_error_name_file(err, display);
  return rc;
}

/* A trace file of `type`: tokenized by its importer. */
static int loader_trace_file(loader *l, int64_t parent, uint32_t id, io_trace_type type,
                             const char *name, const char *display, const uint8_t *data,
                             size_t len, int mapped, base_error *err) {
  plan_note_trace_file(&l->plan);
  const importer_ops *ops = import_ops_for(type);
  if (!ops && type == IO_TRACE_UNKNOWN)
    return base_error_set(err, WEFT_EUNSUPPORTED, "%s: Unknown trace type provided "
                          "(ERR:fmt): not a Perfetto proto, JSON, systrace or "
                          "archive that weft reads", display);
  if (!ops)
    return base_error_set(err, WEFT_EUNSUPPORTED, "%s: %s traces are not supported yet",
                          display, io_trace_type_name(type));
  return loader_tokenize(l, id, plan_manifest_path(&l->plan, parent, name), display, ops,
                         data, len, mapped, err);
}

/* The row of a file: `row` (made by its container) or a new one. */
static int loader_file_row(loader *l, int64_t parent, int64_t row, const char *name,
                           size_t len, io_trace_type type, uint32_t *id) {
  *id = (uint32_t)row;
  int rc = row >= 0 ? ctx_set_trace_file_type(l->ctx, *id, io_trace_type_name(type))
                    : ctx_add_trace_file(l->ctx, parent, name, len, io_trace_type_name(type), id);
  if (rc) return rc;
  if (parent < 0 && l->first_top_level < 0) l->first_top_level = *id;
  ctx_mark_processed(l->ctx, *id);
  return WEFT_OK;
}

/* CLOCK_MONOTONIC in ns (for the load's timing stats). */
static int64_t loader_now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The type of a file's bytes; how long that took is the stat
 * guess_trace_type_duration_ns (the last file's, as Perfetto sets it). */
static io_trace_type loader_guess_type(loader *l, const uint8_t *data, size_t len) {
  int64_t start = loader_now_ns();
  io_trace_type type = io_sniff(data, len);
  int64_t took = loader_now_ns() - start;
  (void)stats_set(&l->ctx->stats, stat_guess_trace_type_duration_ns, -1, -1, -1,
                  took > 0 ? took : 1);
  return type;
}

int loader_process(loader *l, int64_t parent, int64_t row, const char *name,
                   const char *display, const uint8_t *data, size_t len,
                   int mapped, uint32_t depth, base_error *err) {
  io_trace_type type = loader_guess_type(l, data, len);
  uint32_t id;
  if (loader_file_row(l, parent, row, name, len, type, &id)) return base_error_nomem(err);
  int container = io_trace_type_is_container(type);
  int rc = plan_check_nested(&l->plan, name, container || type == IO_TRACE_PERFETTO_MANIFEST,
                             err);
  if (rc) return rc;
  if (container) {
    storage_set_i64(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_is_container, id, 1);
    loader_source src = {data, len, NULL, NULL, -1};
    rc = loader_container(l, id, type, display, &src, depth, err);
    if (mapped && l->give_back) input_give_back_pages(data, data + len); /* unpacked */
  } else if (type == IO_TRACE_PERFETTO_MANIFEST) {
    ctx_metadata_at_file(l->ctx, id, 0); /* its rows sort as its tokenizer's */
    rc = plan_read_manifest(&l->plan, l->ctx, &l->host.clocks, id, data, len, err);
    l->plan.top_level = parent < 0;
    l->plan.manifest_id = id;
  } else {
    rc = loader_trace_file(l, parent, id, type, name, display, data, len, mapped, err);
  }
  if (rc) base_error_name_file(err, display);
  return rc;
}

/* ---- inputs ---- */

/* Notes the head of the first input: a trace that carries no uuid gets one
 * made from it at finish. */
static void loader_note_head(loader *l, const uint8_t *data, size_t len) {
  if (l->has_head_hash) return;
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (size_t i = 0; i < len && i < 4096; i++) h = (h ^ data[i]) * UINT64_C(0x100000001b3);
  l->head_hash = h;
  l->has_head_hash = 1;
}

static int loader_add_blob(loader *l, const char *name, loader_blob blob,
                           const uint8_t *data, size_t len, base_error *err) {
  loader_note_head(l, data, len);
  if (loader_keep_blob(l, blob)) {
    loader_scan_forget(l, data, len); /* a scan queued for these bytes */
    base_free(blob.heap);
    if (blob.map) munmap(blob.map, blob.map_len);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", name);
  }
  l->top_level_count++;
  l->input_bytes += len;
  int64_t start = loader_now_ns();
  int rc = loader_process(l, -1, -1, name, name, data, len, blob.map != NULL, 0, err);
  l->parse_ns += loader_now_ns() - start;
  if (rc) base_error_name_file(err, name); /* manifest and limit errors too */
  return rc;
}

int loader_add_file(loader *l, const char *name, uint8_t *data, size_t len,
                    base_error *err) {
  return loader_add_blob(l, name, (loader_blob){data, NULL, 0}, data, len, err);
}

int loader_add_mapped(loader *l, const char *name, void *map, size_t len,
                      base_error *err) {
  return loader_add_blob(l, name, (loader_blob){NULL, map, len}, map, len, err);
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

/* The archive's type, from the first bytes of its file. */
static int loader_archive_type(loader *l, const char *name, const char *path,
                               io_trace_type *type, base_error *err) {
  uint8_t head[8192]; /* enough for every signature io_sniff looks for */
  FILE *f = fopen(path, "rb");
  if (!f) return base_error_set(err, WEFT_EIO, "%s: cannot open: %s", name, strerror(errno));
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  *type = io_sniff(head, n);
  loader_note_head(l, head, n);
  if (!io_archive_streams_from_file(*type))
    return base_error_set(err, WEFT_EINVAL, "%s: not a zip or tar archive", name);
  return WEFT_OK;
}

int loader_add_archive_path(loader *l, const char *name, const char *path,
                            uint64_t size, base_error *err) {
  io_trace_type type;
  int rc = loader_archive_type(l, name, path, &type, err);
  if (rc) return rc;
  l->top_level_count++;
  l->input_bytes += size;
  uint32_t id;
  if (loader_file_row(l, -1, -1, name, size, type, &id))
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", name);
  storage_set_i64(ctx_table(l->ctx, TABLE_TRACE_FILE), TRACE_FILE_is_container, id, 1);
  /* Stored members are read in place from the mapping (kept until the end). */
  int fd;
  void *map = loader_map_path(l, path, size, &fd);
  if (map && loader_keep_blob(l, (loader_blob){NULL, map, (size_t)size})) {
    munmap(map, (size_t)size);
    close(fd);
    return base_error_set(err, WEFT_ENOMEM, "%s: out of memory", name);
  }
  loader_source src = {NULL, (size_t)size, path, map, fd};
  int64_t start = loader_now_ns();
  rc = loader_container(l, id, type, name, &src, 0, err);
  l->parse_ns += loader_now_ns() - start;
  if (fd >= 0) close(fd);
  return rc;
}

uint64_t loader_spilled_bytes(const loader *l) {
  return __atomic_load_n(&l->spilled_bytes, __ATOMIC_RELAXED);
}
