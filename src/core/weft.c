/* The public API: instance life cycle, feeding, finishing, querying. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/context.h"
#include "core/input.h"
#include "clock/clock.h"
#include "core/loader.h"
#include "core/weft_context.h"
#include "core/report.h"
#include "io/archive.h"
#include "io/sniff.h"
#include "manifest/plan.h"
#include "sql/packages.h"
#include "sql/sql.h"

typedef enum weft_state {
  WEFT_STATE_LOADING,  /* accepting files */
  WEFT_STATE_IN_FILE,  /* between file_begin and file_end */
  WEFT_STATE_READY,    /* loaded; queries run */
  WEFT_STATE_FAILED    /* loading failed; only close and errmsg */
} weft_state;

struct weft {
  trace_context ctx;
  loader *loader;
  sql_engine *sql;
  sql_packages packages; /* --add-sql-package, read at open */
  weft_state state;
  base_error error;
  char *file_name;    /* current file, while IN_FILE */
  base_buf file_data; /* current file's bytes */
  weft_load_progress progress;
};

void weft_options_default(weft_options *o) {
  memset(o, 0, sizeof *o);
  o->max_memory_bytes = 0;
  o->max_decompressed_bytes = UINT64_C(64) << 30;
  o->max_compression_ratio = 100;
  o->max_archive_depth = 4;
  o->max_archive_members = 100000;
  o->max_json_depth = 512;
  o->max_line_bytes = 16u << 20;
  o->max_string_bytes = 64u << 20;
  o->threads = 0;
}

int weft_open(weft **out, const weft_options *opts) {
  if (!out) return WEFT_EINVAL;
  *out = NULL;
  weft *w = base_calloc(1, sizeof *w);
  if (!w) return WEFT_ENOMEM;
  weft_options defaults;
  weft_options_default(&defaults);
  int rc = trace_context_init(&w->ctx, opts ? opts : &defaults);
  if (rc == WEFT_OK) rc = loader_create(&w->loader, &w->ctx);
  if (rc == WEFT_OK && opts)
    rc = sql_packages_load(&w->packages, opts->sql_packages, opts->sql_package_count,
                           &w->error);
  if (rc != WEFT_OK) {
    weft_close(w);
    return rc;
  }
  w->state = WEFT_STATE_LOADING;
  *out = w;
  return WEFT_OK;
}

int weft_check_sql_packages(const weft_options *opts, char *msg, size_t cap) {
  if (!opts || (!msg && cap)) return WEFT_EINVAL;
  sql_packages packages = {0};
  base_error err;
  base_error_clear(&err);
  int rc = sql_packages_load(&packages, opts->sql_packages, opts->sql_package_count,
                             &err);
  sql_packages_free(&packages);
  if (cap) snprintf(msg, cap, "%s", rc ? err.message : "");
  return rc;
}

void weft_close(weft *w) {
  if (!w) return;
  sql_engine_close(w->sql);
  sql_packages_free(&w->packages);
  loader_destroy(w->loader);
  trace_context_free(&w->ctx);
  base_free(w->file_name);
  base_buf_free(&w->file_data);
  base_free(w);
}

const char *weft_errmsg(const weft *w) {
  return w ? w->error.message : "no instance";
}

static int weft_fail(weft *w, int rc) {
  w->state = WEFT_STATE_FAILED;
  if (!w->error.message[0]) base_error_set(&w->error, rc, "loading failed");
  return rc;
}

int weft_file_begin(weft *w, const char *name) {
  if (!w || !name) return WEFT_EINVAL;
  if (w->state != WEFT_STATE_LOADING)
    return base_error_set(&w->error, WEFT_EINVAL,
                          "weft_file_begin: not accepting files now");
  w->file_name = base_strndup(name, strlen(name));
  if (!w->file_name)
    return base_error_set(&w->error, WEFT_ENOMEM, "%s: out of memory", name);
  base_buf_init(&w->file_data, w->ctx.options.max_memory_bytes);
  w->state = WEFT_STATE_IN_FILE;
  __atomic_fetch_add(&w->progress.files_begun, 1, __ATOMIC_RELAXED);
  return WEFT_OK;
}

int weft_file_write(weft *w, const void *data, size_t len) {
  if (!w || (!data && len)) return WEFT_EINVAL;
  if (w->state != WEFT_STATE_IN_FILE)
    return base_error_set(&w->error, WEFT_EINVAL,
                          "weft_file_write: no file begun");
  int rc = base_buf_append(&w->file_data, data, len);
  if (rc == WEFT_ELIMIT) {
    base_error_set(&w->error, rc, "%s: exceeds the memory budget (--max-memory)",
                   w->file_name);
    return weft_fail(w, rc);
  }
  if (rc) {
    base_error_set(&w->error, rc, "%s: out of memory", w->file_name);
    return weft_fail(w, rc);
  }
  __atomic_fetch_add(&w->progress.bytes_read, len, __ATOMIC_RELAXED);
  return WEFT_OK;
}

int weft_file_end(weft *w) {
  if (!w) return WEFT_EINVAL;
  if (w->state != WEFT_STATE_IN_FILE)
    return base_error_set(&w->error, WEFT_EINVAL, "weft_file_end: no file begun");
  uint8_t *data = (uint8_t *)w->file_data.data;
  size_t len = w->file_data.len;
  if (!data) data = base_calloc(1, 1);
  w->file_data.data = NULL;
  base_buf_free(&w->file_data);
  w->state = WEFT_STATE_LOADING;
  if (!data) return weft_fail(w, base_error_nomem(&w->error));
  int rc = loader_add_file(w->loader, w->file_name, data, len, &w->error);
  __atomic_fetch_add(&w->progress.files_done, 1, __ATOMIC_RELAXED);
  base_free(w->file_name);
  w->file_name = NULL;
  return rc ? weft_fail(w, rc) : WEFT_OK;
}

/* 1 if `fd` is a regular file holding a zip or tar read straight from the
 * file (*st is then its stat). */
static int weft_is_streamed_archive(int fd, struct stat *st) {
  uint8_t head[8192];
  ssize_t n = pread(fd, head, sizeof head, 0);
  return n > 0 && fstat(fd, st) == 0 && S_ISREG(st->st_mode) &&
         io_archive_streams_from_file(io_sniff(head, (size_t)n));
}

/* A zip or tar on disk is unpacked straight from the file (the archive is
 * never read into memory); 1 if `fd` is one and was handled so. */
static int weft_load_archive_file(weft *w, int fd, const char *path, int *rc) {
  struct stat st;
  if (!weft_is_streamed_archive(fd, &st)) return 0;
  if (w->state != WEFT_STATE_LOADING) {
    *rc = base_error_set(&w->error, WEFT_EINVAL, "weft_load_path: not accepting files now");
    return 1;
  }
  __atomic_fetch_add(&w->progress.files_begun, 1, __ATOMIC_RELAXED);
  *rc = loader_add_archive_path(w->loader, path, path, (uint64_t)st.st_size, &w->error);
  __atomic_fetch_add(&w->progress.bytes_read, (uint64_t)st.st_size, __ATOMIC_RELAXED);
  if (*rc) weft_fail(w, *rc);
  else __atomic_fetch_add(&w->progress.files_done, 1, __ATOMIC_RELAXED);
  return 1;
}

/* Any other regular file is mapped read-only and read in place (unless
 * WEFT_INPUT_MMAP=0, or it is empty or over the --max-memory budget: then it
 * is read, which reports the budget); the mapping of `fd`, or NULL. */
static void *weft_map_input(weft *w, int fd, size_t *len) {
  struct stat st;
  uint64_t budget = w->ctx.options.max_memory_bytes;
  if (w->state != WEFT_STATE_LOADING || !loader_maps_files(w->loader) ||
      fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
      (uint64_t)st.st_size > SIZE_MAX || (budget && (uint64_t)st.st_size > budget))
    return NULL;
  *len = (size_t)st.st_size;
  return input_map_file(fd, *len);
}

/* Loads a mapping from weft_map_input (the loader owns it from here). */
static int weft_load_mapping(weft *w, const char *path, void *map, size_t len) {
  __atomic_fetch_add(&w->progress.files_begun, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&w->progress.bytes_read, (uint64_t)len, __ATOMIC_RELAXED);
  int rc = loader_add_mapped(w->loader, path, map, len, &w->error);
  __atomic_fetch_add(&w->progress.files_done, 1, __ATOMIC_RELAXED);
  return rc ? weft_fail(w, rc) : WEFT_OK;
}

/* 1 if `fd` could be mapped and was loaded so (*rc its status). */
static int weft_load_mapped_file(weft *w, int fd, const char *path, int *rc) {
  size_t len;
  void *map = weft_map_input(w, fd, &len);
  if (!map) return 0;
  *rc = weft_load_mapping(w, path, map, len);
  return 1;
}

int weft_load_path(weft *w, const char *path) {
  if (!w || !path) return WEFT_EINVAL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return base_error_set(&w->error, WEFT_EIO, "%s: cannot open: %s", path,
                          strerror(errno));
  int rc = WEFT_OK;
  if (weft_load_archive_file(w, fd, path, &rc) || weft_load_mapped_file(w, fd, path, &rc)) {
    close(fd);
    return rc;
  }
  rc = weft_file_begin(w, path);
  static const size_t chunk = 4u << 20;
  char *buf = rc ? NULL : base_malloc(chunk);
  if (!rc && !buf) rc = base_error_nomem(&w->error);
  while (rc == WEFT_OK) {
    ssize_t n = read(fd, buf, chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      rc = weft_fail(w, base_error_set(&w->error, WEFT_EIO, "%s: read error: %s",
                                       path, strerror(errno)));
      break;
    }
    if (n == 0) break;
    rc = weft_file_write(w, buf, (size_t)n);
  }
  base_free(buf);
  close(fd);
  return rc == WEFT_OK ? weft_file_end(w) : rc;
}

/* weft_load_paths: a file opened ahead of its turn. */
typedef struct weft_upcoming {
  void *map; /* mapped, its scan queued (loader_scan_upcoming); NULL: the
                file is loaded by path in its turn */
  size_t len;
} weft_upcoming;

#define WEFT_UPCOMING_FILES 8

/* Maps file `path` ahead unless it is an archive (those stream from their
 * file) or cannot be mapped; queues its scan when `scan_ahead` (a lone
 * file gains nothing by it: its scan runs in its turn, with the threads
 * free to share it). */
static weft_upcoming weft_open_upcoming(weft *w, const char *path, int scan_ahead) {
  weft_upcoming u = {NULL, 0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return u; /* reported in its turn */
  struct stat st;
  if (!weft_is_streamed_archive(fd, &st)) u.map = weft_map_input(w, fd, &u.len);
  close(fd);
  if (u.map && scan_ahead) loader_scan_upcoming(w->loader, u.map, u.len);
  return u;
}

int weft_load_paths(weft *w, const char *const *paths, size_t count) {
  if (!w || (!paths && count)) return WEFT_EINVAL;
  weft_upcoming ahead[WEFT_UPCOMING_FILES];
  size_t opened = 0; /* files [i, opened) are in ahead[] */
  int rc = WEFT_OK;
  for (size_t i = 0; i < count && rc == WEFT_OK; i++) {
    if (!paths[i]) {
      rc = WEFT_EINVAL;
      break;
    }
    while (opened < count && opened < i + WEFT_UPCOMING_FILES && paths[opened] &&
           w->state == WEFT_STATE_LOADING)
      ahead[opened % WEFT_UPCOMING_FILES] = weft_open_upcoming(w, paths[opened], count > 1),
      opened++;
    weft_upcoming *u = &ahead[i % WEFT_UPCOMING_FILES];
    if (i < opened && u->map) {
      rc = weft_load_mapping(w, paths[i], u->map, u->len);
      u->map = NULL;
    } else {
      rc = weft_load_path(w, paths[i]);
    }
  }
  /* After a failure: the files mapped ahead that were not loaded. */
  for (size_t i = opened > WEFT_UPCOMING_FILES ? opened - WEFT_UPCOMING_FILES : 0; i < opened; i++) {
    weft_upcoming *u = &ahead[i % WEFT_UPCOMING_FILES];
    if (!u->map) continue;
    loader_scan_forget(w->loader, u->map, u->len);
    munmap(u->map, u->len);
    u->map = NULL;
  }
  return rc;
}

static int weft_to_clock(void *user, uint64_t clock_id, int64_t ts, int64_t *out) {
  return loader_trace_time_to_clock(user, clock_id, ts, out);
}

static int weft_fill_stats(void *ctx) { return ctx_fill_stats(ctx); }

int weft_load_finish(weft *w) {
  if (!w) return WEFT_EINVAL;
  if (w->state == WEFT_STATE_READY) return WEFT_OK;
  if (w->state != WEFT_STATE_LOADING)
    return w->state == WEFT_STATE_FAILED
               ? w->error.code ? w->error.code : WEFT_EINVAL
               : base_error_set(&w->error, WEFT_EINVAL,
                                "weft_load_finish: a file is still open");
  int rc = loader_finish(w->loader, &w->error);
  if (rc) return weft_fail(w, rc);
  storage_table *tables[TABLE_COUNT];
  for (int i = 0; i < TABLE_COUNT; i++) tables[i] = &w->ctx.tables[i];
  rc = sql_engine_open(&w->sql, tables, TABLE_COUNT, &w->ctx.strings, &w->error);
  if (rc == WEFT_OK) {
    sql_engine_set_clock_converter(w->sql, weft_to_clock, w->loader);
    sql_engine_set_packages(w->sql, &w->packages);
  }
  if (rc == WEFT_OK)
    rc = sql_engine_set_table_fill(w->sql, schema_tables[TABLE_STATS].name,
                                   weft_fill_stats, &w->ctx);
  if (rc) return weft_fail(w, rc);
  w->state = WEFT_STATE_READY;
  return WEFT_OK;
}

int weft_query(weft *w, const char *sql, const weft_query_callbacks *cb) {
  return weft_query_source(w, "stdin", sql, cb);
}

int weft_query_source(weft *w, const char *source, const char *sql,
                      const weft_query_callbacks *cb) {
  if (!w || !sql || !source) return WEFT_EINVAL;
  if (w->state != WEFT_STATE_READY) {
    int rc = weft_load_finish(w);
    if (rc) return rc;
  }
  base_error_clear(&w->error);
  return sql_engine_execute_source(w->sql, source, sql, cb, &w->error);
}

int weft_loaded_context(weft *w, const trace_context **out) {
  if (!w || !out) return WEFT_EINVAL;
  *out = NULL;
  if (w->state != WEFT_STATE_READY) {
    int rc = weft_load_finish(w);
    if (rc) return rc;
  }
  *out = &w->ctx;
  return WEFT_OK;
}

void weft_interrupt(weft *w) {
  if (w && w->sql) sql_engine_interrupt(w->sql);
}

/* Each counter is read atomically: the loading thread updates them while
 * another thread (the CLI's progress line) may read. events_* stay 0 until
 * the loader reports its sorter's counters (sorter_progress). */
void weft_get_progress(const weft *w, weft_load_progress *out) {
  if (!w || !out) return;
  memset(out, 0, sizeof *out);
  out->bytes_read = __atomic_load_n(&w->progress.bytes_read, __ATOMIC_RELAXED);
  out->files_begun = __atomic_load_n(&w->progress.files_begun, __ATOMIC_RELAXED);
  out->files_done = __atomic_load_n(&w->progress.files_done, __ATOMIC_RELAXED);
  if (w->loader) loader_progress(w->loader, &out->events_queued, &out->events_parsed);
  if (w->loader) out->bytes_spilled = loader_spilled_bytes(w->loader);
}

int weft_error_stats_summary(weft *w, char *buf, size_t cap) {
  if (!w) return 0;
  const char *single = w->loader ? loader_single_input_name(w->loader) : NULL;
  return report_error_stats(&w->ctx, single, buf, cap);
}

const char *weft_trace_type(const void *data, size_t len) {
  if (!data) return "unknown";
  return io_trace_type_name(io_sniff(data, len));
}

int weft_clock_id(const char *name, uint64_t *id) {
  return name && clock_id_from_name(name, strlen(name), id);
}

int weft_closest_name(const char *name, const char *const *names, size_t count) {
  return name && (names || !count) ? plan_closest_name(name, names, count) : -1;
}
