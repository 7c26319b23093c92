/* The public API: instance life cycle, feeding, finishing, querying. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "core/context.h"
#include "core/loader.h"
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
  if (rc != WEFT_OK) {
    weft_close(w);
    return rc;
  }
  w->state = WEFT_STATE_LOADING;
  *out = w;
  return WEFT_OK;
}

void weft_close(weft *w) {
  if (!w) return;
  sql_engine_close(w->sql);
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
  w->progress.files_begun++;
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
  w->progress.bytes_read += len;
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
  if (!data) return weft_fail(w, base_error_set(&w->error, WEFT_ENOMEM, "out of memory"));
  int rc = loader_add_file(w->loader, w->file_name, data, len, &w->error);
  base_free(w->file_name);
  w->file_name = NULL;
  return rc ? weft_fail(w, rc) : WEFT_OK;
}

int weft_load_path(weft *w, const char *path) {
  if (!w || !path) return WEFT_EINVAL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return base_error_set(&w->error, WEFT_EIO, "%s: cannot open: %s", path,
                          strerror(errno));
  int rc = weft_file_begin(w, path);
  static const size_t chunk = 4u << 20;
  char *buf = rc ? NULL : base_malloc(chunk);
  if (!rc && !buf) rc = base_error_set(&w->error, WEFT_ENOMEM, "out of memory");
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
  if (rc) return weft_fail(w, rc);
  w->state = WEFT_STATE_READY;
  return WEFT_OK;
}

int weft_query(weft *w, const char *sql, const weft_query_callbacks *cb) {
  if (!w || !sql) return WEFT_EINVAL;
  if (w->state != WEFT_STATE_READY) {
    int rc = weft_load_finish(w);
    if (rc) return rc;
  }
  base_error_clear(&w->error);
  return sql_engine_execute(w->sql, sql, cb, &w->error);
}

void weft_get_progress(const weft *w, weft_load_progress *out) {
  if (w && out) *out = w->progress;
}

int weft_error_stats_summary(weft *w, char *buf, size_t cap) {
  if (!w || !buf || cap == 0) return 0;
  buf[0] = '\0';
  size_t used = 0;
  int count = 0;
  for (size_t i = 0; i < w->ctx.stats.entries.len; i++) {
    const stats_entry *e = &w->ctx.stats.entries.data[i];
    const stats_info *info = &stats_infos[e->stat];
    if (e->value == 0 || info->severity == STATS_INFO) continue;
    count++;
    if (used >= cap) continue;
    int n = snprintf(buf + used, cap - used, "%s", info->name);
    if (n > 0) used += (size_t)n;
    if (e->index >= 0 && used < cap) {
      n = snprintf(buf + used, cap - used, "[%" PRId64 "]", e->index);
      if (n > 0) used += (size_t)n;
    }
    if (used < cap) {
      n = snprintf(buf + used, cap - used, " (machine %" PRId64 ", file %" PRId64 "): %" PRId64 "\n",
                   e->machine, e->trace, e->value);
      if (n > 0) used += (size_t)n;
    }
  }
  if (used >= cap) buf[cap - 1] = '\0';
  return count;
}
