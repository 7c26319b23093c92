/* `weft merge`: checks the inputs and the merge, then writes the archive
 * through a temporary file. See merge.h. */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "merge.h"

#define MERGE_MANIFEST_NAME "perfetto_manifest.json"

static int merge_fail(const char *fmt, const char *what, const char *why) {
  fprintf(stderr, "weft merge: ");
  fprintf(stderr, fmt, what, why);
  fputc('\n', stderr);
  return -1;
}

/* ---- the inputs ---- */

static const char *merge_type_of_head(const char *path) {
  static char head[64 * 1024];
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return weft_trace_type(head, n);
}

/* 1 if the archive at `path` holds a perfetto_manifest (by its name or its
 * contents), 0 if not or if it is no archive libarchive reads. */
static int merge_archive_has_manifest(const char *path) {
  struct archive *a = archive_read_new();
  if (!a) return 0;
  archive_read_support_format_zip(a);
  archive_read_support_format_tar(a);
  archive_read_support_filter_all(a);
  int found = 0;
  struct archive_entry *e;
  if (archive_read_open_filename(a, path, 1 << 16) == ARCHIVE_OK) {
    while (!found && archive_read_next_header(a, &e) == ARCHIVE_OK) {
      const char *name = archive_entry_pathname(e);
      char head[64];
      la_ssize_t n = archive_read_data(a, head, sizeof head);
      found = (name && !strcmp(cli_merge_basename(name), MERGE_MANIFEST_NAME)) ||
              (n > 0 && !strcmp(weft_trace_type(head, (size_t)n), "perfetto_manifest"));
    }
  }
  archive_read_free(a);
  return found;
}

/* Every input exists, and none is a manifest or an archive holding one
 * (its manifest would be a second one). */
static int merge_check_inputs(const char *const *inputs, int count) {
  for (int i = 0; i < count; i++) {
    struct stat st;
    if (stat(inputs[i], &st) != 0)
      return merge_fail("%s: cannot open: %s", inputs[i], strerror(errno));
    if (!S_ISREG(st.st_mode)) return merge_fail("%s: %s", inputs[i], "not a regular file");
    const char *type = merge_type_of_head(inputs[i]);
    if (!type) return merge_fail("%s: cannot read: %s", inputs[i], strerror(errno));
    if (!strcmp(type, "perfetto_manifest"))
      return merge_fail("%s: %s", inputs[i], "is a perfetto_manifest: pass it with "
                        "--manifest");
    if ((!strcmp(type, "zip") || !strcmp(type, "tar") || !strcmp(type, "gzip")) &&
        merge_archive_has_manifest(inputs[i]))
      return merge_fail("%s: %s", inputs[i], "is a merged archive with a "
                        "perfetto_manifest already; merge its members instead");
  }
  return 0;
}

/* ---- the check: the merge loaded before it is written ---- */

/* Loads the manifest alone: its own errors, before anything is written. */
static int merge_check_manifest(const char *path, const weft_options *options) {
  weft *w = NULL;
  if (weft_open(&w, options) != WEFT_OK) return merge_fail("%s%s", "out of memory", "");
  int rc = weft_load_path(w, path) == WEFT_OK ? 0 : -1;
  if (rc) merge_fail("%s (%s)", weft_errmsg(w), "the manifest does not validate");
  weft_close(w);
  return rc;
}

/* Prints the load's warnings (data it would drop); returns their count. */
static int merge_print_warnings(weft *w, int quiet) {
  char summary[8192];
  int n = weft_error_stats_summary(w, summary, sizeof summary);
  for (char *line = summary; n > 0 && !quiet && *line;) {
    char *end = strchr(line, '\n');
    if (end) *end = '\0';
    fprintf(stderr, "weft merge: warning: %s\n", line);
    if (!end) break;
    line = end + 1;
  }
  return n;
}

/* A guessed placement (weft_placement.is_guess): one warning line. */
typedef struct merge_guesses {
  int quiet, count;
} merge_guesses;

static int merge_guess_row(void *user, int statement, int ncols, const weft_cell *cells) {
  (void)statement;
  merge_guesses *g = user;
  g->count++;
  if (!g->quiet && ncols == 3)
    fprintf(stderr, "weft merge: warning: %s is placed by a guess (%s): %s\n",
            cells[0].s ? cells[0].s : "?", cells[1].s ? cells[1].s : "?",
            cells[2].s ? cells[2].s : "");
  return 0;
}

/* Prints the merge's guessed placements; returns their count. */
static int merge_print_guesses(weft *w, int quiet) {
  merge_guesses g = {quiet, 0};
  weft_query_callbacks cb = {NULL, merge_guess_row, &g};
  if (weft_query(w, "select file_name, rule, detail from weft_placement where is_guess "
                    "order by trace_file_id", &cb) != WEFT_OK)
    return 0;
  return g.count;
}

/* Loads the inputs as the archive would hold them; fails when that load
 * fails, or (strict) when it would drop or guess anything. */
static int merge_validate(const cli_merge *m, const char *const *inputs, int count,
                          const cli_merge_checks *c) {
  weft *w = NULL;
  if (weft_open(&w, c->options) != WEFT_OK) return merge_fail("%s%s", "out of memory", "");
  int rc = cli_merge_load(w, m, inputs, count);
  if (rc == 0 && weft_load_finish(w) != WEFT_OK) rc = -1;
  if (rc) {
    merge_fail("the merged trace would not load: %s%s", weft_errmsg(w), "");
    weft_close(w);
    return -1;
  }
  int warnings = merge_print_warnings(w, c->quiet);
  warnings += merge_print_guesses(w, c->quiet);
  weft_close(w);
  if (warnings && c->strict)
    return merge_fail("--strict: %s%s", "the merge drops or guesses placements "
                      "(warnings above); nothing written", "");
  return 0;
}

/* ---- writing ---- */

static int merge_ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int merge_check_extension(const char *out_path) {
  if (merge_ends_with(out_path, ".zip") || merge_ends_with(out_path, ".tar") ||
      merge_ends_with(out_path, ".tar.gz") || merge_ends_with(out_path, ".tgz"))
    return 0;
  return merge_fail("%s: %s", out_path, "the output must end in .zip, .tar, .tar.gz "
                    "or .tgz");
}

static struct archive *merge_open_writer(const char *out_path, int fd) {
  struct archive *a = archive_write_new();
  if (!a) return NULL;
  int rc = merge_ends_with(out_path, ".zip") ? archive_write_set_format_zip(a)
                                             : archive_write_set_format_pax_restricted(a);
  if (rc == ARCHIVE_OK && !merge_ends_with(out_path, ".zip") &&
      !merge_ends_with(out_path, ".tar"))
    rc = archive_write_add_filter_gzip(a);
  if (rc == ARCHIVE_OK) rc = archive_write_open_fd(a, fd);
  if (rc != ARCHIVE_OK) {
    merge_fail("%s: %s", out_path, archive_error_string(a));
    archive_write_free(a);
    return NULL;
  }
  return a;
}

static int merge_write_header(struct archive *a, const char *name, int64_t size) {
  struct archive_entry *e = archive_entry_new();
  if (!e) return -1;
  archive_entry_set_pathname(e, name);
  archive_entry_set_size(e, size);
  archive_entry_set_filetype(e, AE_IFREG);
  archive_entry_set_perm(e, 0644);
  int rc = archive_write_header(a, e);
  archive_entry_free(e);
  return rc == ARCHIVE_OK ? 0 : -1;
}

static int merge_write_bytes(struct archive *a, const char *name, const char *data,
                             size_t len) {
  if (merge_write_header(a, name, (int64_t)len) ||
      archive_write_data(a, data, len) != (la_ssize_t)len)
    return merge_fail("%s: %s", name, archive_error_string(a));
  return 0;
}

static int merge_write_file(struct archive *a, const char *name, const char *path) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) {
    merge_fail("%s: cannot open: %s", path, strerror(errno));
    if (f) fclose(f);
    return -1;
  }
  int rc = merge_write_header(a, name, (int64_t)st.st_size);
  static char buf[1 << 20];
  size_t n;
  while (rc == 0 && (n = fread(buf, 1, sizeof buf, f)) > 0)
    if (archive_write_data(a, buf, n) != (la_ssize_t)n) rc = -1;
  if (rc == 0 && ferror(f)) rc = merge_fail("%s: %s", path, "read error");
  else if (rc) merge_fail("%s: %s", path, archive_error_string(a));
  fclose(f);
  return rc;
}

/* Member names: the inputs' basenames, made unique with a "N-" prefix. */
static char **merge_member_names(const char *const *inputs, int count) {
  char **names = calloc((size_t)(count ? count : 1), sizeof *names);
  for (int i = 0; names && i < count; i++) {
    const char *base = cli_merge_basename(inputs[i]);
    int clash = !strcmp(base, MERGE_MANIFEST_NAME);
    for (int j = 0; j < i; j++)
      if (!strcmp(cli_merge_basename(inputs[j]), base)) clash = 1;
    size_t len = strlen(base) + 16;
    names[i] = malloc(len);
    if (!names[i]) return names; /* caller checks */
    if (clash) snprintf(names[i], len, "%d-%s", i + 1, base);
    else snprintf(names[i], len, "%s", base);
  }
  return names;
}

static void merge_free_names(char **names, int count) {
  for (int i = 0; names && i < count; i++) free(names[i]);
  free(names);
}

char *cli_merge_archive_manifest(const cli_merge *m, const char *const *inputs, int count) {
  if (m->manifest_path) {
    char *text = cli_read_text(m->manifest_path);
    if (!text) merge_fail("%s: cannot read: %s", m->manifest_path, strerror(errno));
    return text;
  }
  char **names = merge_member_names(inputs, count);
  int ok = names != NULL;
  for (int i = 0; ok && i < count; i++) ok = names[i] != NULL;
  char *json = ok ? cli_merge_manifest(m, (const char *const *)names, inputs, count) : NULL;
  merge_free_names(names, count);
  return json;
}

/* The archive into the open temporary file fd. */
static int merge_write_archive(int fd, const char *out_path, const char *json,
                               char *const *names, const char *const *inputs,
                               int count) {
  struct archive *a = merge_open_writer(out_path, fd);
  if (!a) return -1;
  int rc = merge_write_bytes(a, MERGE_MANIFEST_NAME, json, strlen(json));
  for (int i = 0; rc == 0 && i < count; i++) rc = merge_write_file(a, names[i], inputs[i]);
  if (archive_write_close(a) != ARCHIVE_OK && rc == 0)
    rc = merge_fail("%s: %s", out_path, archive_error_string(a));
  archive_write_free(a);
  return rc;
}

/* A temporary file beside out_path (same directory, so rename is atomic):
 * its descriptor, its path in tmp (to free), or -1. */
static int merge_open_temp(const char *out_path, char **tmp) {
  size_t len = strlen(out_path) + 16;
  *tmp = malloc(len);
  if (!*tmp) return -1;
  const char *base = cli_merge_basename(out_path);
  snprintf(*tmp, len, "%.*s.%s.XXXXXX", (int)(base - out_path), out_path, base);
  int fd = mkstemp(*tmp);
  if (fd < 0) {
    merge_fail("%s: cannot create a temporary file: %s", *tmp, strerror(errno));
    free(*tmp);
    *tmp = NULL;
    return -1;
  }
  (void)fchmod(fd, 0644);
  return fd;
}

/* Writes the archive to a temporary file, renamed to out_path only once
 * complete; removed on any failure. */
static int merge_commit(const char *out_path, const char *json, char *const *names,
                        const char *const *inputs, int count) {
  char *tmp = NULL;
  int fd = merge_open_temp(out_path, &tmp);
  if (fd < 0) return -1;
  int rc = merge_write_archive(fd, out_path, json, names, inputs, count);
  if (close(fd) != 0 && rc == 0) rc = merge_fail("%s: %s", out_path, strerror(errno));
  if (rc == 0 && rename(tmp, out_path) != 0)
    rc = merge_fail("%s: cannot rename into place: %s", out_path, strerror(errno));
  if (rc) unlink(tmp);
  free(tmp);
  return rc;
}

static int merge_checks(const cli_merge *m, const char *const *inputs, int count,
                        const char *out_path, const cli_merge_checks *c) {
  if (m->manifest_path && m->flag_count > 0)
    return merge_fail("%s%s", "--manifest cannot be combined with per-file merge flags",
                      "");
  if (merge_check_extension(out_path) || merge_check_inputs(inputs, count)) return -1;
  if (m->manifest_path && merge_check_manifest(m->manifest_path, c->options)) return -1;
  return c->validate ? merge_validate(m, inputs, count, c) : 0;
}

int cli_merge_write(const cli_merge *m, const char *const *inputs, int count,
                    const char *out_path, const cli_merge_checks *checks) {
  if (merge_checks(m, inputs, count, out_path, checks)) return -1;
  char **names = merge_member_names(inputs, count);
  int rc = names ? 0 : -1;
  for (int i = 0; rc == 0 && i < count; i++)
    if (!names[i]) rc = -1;
  char *json = NULL;
  if (rc == 0) {
    json = m->manifest_path ? cli_read_text(m->manifest_path)
                            : cli_merge_manifest(m, (const char *const *)names, inputs, count);
    if (!json && m->manifest_path)
      merge_fail("%s: cannot read: %s", m->manifest_path, strerror(errno));
    if (!json) rc = -1;
  }
  if (rc == 0) rc = merge_commit(out_path, json, names, inputs, count);
  merge_free_names(names, count);
  free(json);
  return rc;
}
