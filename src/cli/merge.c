/* The command line's merge options and `weft merge`. See merge.h. */
#include "merge.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int merge_is_clock(const char *name) {
  return weft_clock_id(name, NULL);
}

/* "250ms", "-1.5s", "100us", "42ns" or a bare number of nanoseconds. */
int cli_merge_parse_duration(const char *s, int64_t *out) {
  int negative = *s == '-';
  if (*s == '-' || *s == '+') s++;
  int64_t whole = 0, frac = 0, frac_scale = 1;
  int digits = 0;
  for (; *s >= '0' && *s <= '9'; s++, digits++)
    if (__builtin_mul_overflow(whole, 10, &whole) ||
        __builtin_add_overflow(whole, *s - '0', &whole))
      return -1;
  if (*s == '.')
    for (s++; *s >= '0' && *s <= '9'; s++, digits++)
      if (frac_scale < 1000000000) {
        frac = frac * 10 + (*s - '0');
        frac_scale *= 10;
      }
  if (!digits) return -1;
  int64_t unit = !strcmp(s, "") || !strcmp(s, "ns") ? 1
                 : !strcmp(s, "us")                 ? 1000
                 : !strcmp(s, "ms")                 ? 1000000
                 : !strcmp(s, "s")                  ? 1000000000
                                                    : 0;
  if (!unit) return -1;
  int64_t v;
  if (__builtin_mul_overflow(whole, unit, &v) ||
      __builtin_add_overflow(v, frac * unit / frac_scale, &v))
    return -1;
  *out = negative ? -v : v;
  return 0;
}

static int merge_usage_error(const char *flag, const char *fmt, const char *value) {
  fprintf(stderr, "weft: %s: ", flag);
  fprintf(stderr, fmt, value);
  fputc('\n', stderr);
  return -1;
}

/* Checks the VALUE of a FILE=VALUE flag. */
static int merge_check_value(const char *flag, const char *value) {
  int64_t ns;
  if ((!strcmp(flag, "--clock") || !strcmp(flag, "--ref-clock") ||
       !strcmp(flag, "--trace-time")) && !merge_is_clock(value))
    return merge_usage_error(flag, "unknown clock name '%s' (use REALTIME, "
                             "REALTIME_COARSE, MONOTONIC, MONOTONIC_COARSE, "
                             "MONOTONIC_RAW or BOOTTIME)", value);
  if (!strcmp(flag, "--offset") && cli_merge_parse_duration(value, &ns))
    return merge_usage_error(flag, "bad duration '%s' (e.g. 250ms, -1.5s, 100us, "
                             "42ns)", value);
  if (!strcmp(flag, "--machine") && !*value)
    return merge_usage_error(flag, "%sthe machine name must be non-empty", "");
  return 0;
}

int cli_merge_take_flag(cli_merge *m, int argc, char **argv, int *i) {
  static const char *const keyed[] = {"--machine", "--sync", "--clock",
                                      "--ref-clock", "--offset", "--trace-time"};
  const char *flag = argv[*i];
  int is_manifest = !strcmp(flag, "--manifest"), known = is_manifest;
  for (size_t k = 0; k < sizeof keyed / sizeof *keyed; k++)
    if (!strcmp(flag, keyed[k])) known = 1;
  if (!known) return 0;
  if (*i + 1 >= argc) return merge_usage_error(flag, "%sneeds a value", "");
  char *value = argv[++*i];
  if (is_manifest) {
    m->manifest_path = value;
    return 1;
  }
  cli_merge_flag f = {flag, NULL, value};
  char *eq = strchr(value, '=');
  if (eq) {
    *eq = '\0'; /* argv is ours to split */
    f.file = value;
    f.value = eq + 1;
  } else if (strcmp(flag, "--trace-time") != 0) {
    return merge_usage_error(flag, "expected FILE=VALUE, got '%s'", value);
  }
  if (merge_check_value(flag, f.value)) return -1;
  cli_merge_flag *grown = realloc(m->flags, (size_t)(m->flag_count + 1) * sizeof *grown);
  if (!grown) return merge_usage_error(flag, "%sout of memory", "");
  m->flags = grown;
  m->flags[m->flag_count++] = f;
  return 1;
}

int cli_merge_active(const cli_merge *m) {
  return m->manifest_path || m->flag_count > 0;
}

void cli_merge_free(cli_merge *m) {
  free(m->flags);
  m->flags = NULL;
  m->flag_count = 0;
}

/* ---- resolving FILE to an input ---- */

static const char *merge_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The input `name` refers to: an exact argument, else a unique basename. */
static int merge_find_input(const char *name, const char *const *inputs, int count) {
  for (int i = 0; i < count; i++)
    if (!strcmp(inputs[i], name)) return i;
  int found = -1;
  for (int i = 0; i < count; i++) {
    if (strcmp(merge_basename(inputs[i]), name) != 0) continue;
    if (found >= 0) return -2;
    found = i;
  }
  return found;
}

typedef struct merge_file_opts {
  const char *machine, *clock, *ref_clock;
  int sync; /* input index of the reference, or -1 */
  int64_t offset;
  int has_offset;
} merge_file_opts;

typedef struct merge_plan {
  merge_file_opts *files;
  const char *trace_time_clock;
  int trace_time_file; /* -1: none */
} merge_plan;

static int merge_plan_apply(merge_plan *p, const cli_merge_flag *f, int file,
                            const char *const *inputs, int count) {
  merge_file_opts *o = file >= 0 ? &p->files[file] : NULL;
  if (!strcmp(f->flag, "--trace-time")) {
    p->trace_time_clock = f->value;
    p->trace_time_file = file;
  } else if (!strcmp(f->flag, "--machine")) {
    o->machine = f->value;
  } else if (!strcmp(f->flag, "--clock")) {
    o->clock = f->value;
  } else if (!strcmp(f->flag, "--ref-clock")) {
    o->ref_clock = f->value;
  } else if (!strcmp(f->flag, "--offset")) {
    cli_merge_parse_duration(f->value, &o->offset);
    o->has_offset = 1;
  } else if (!strcmp(f->flag, "--sync")) {
    o->sync = merge_find_input(f->value, inputs, count);
    if (o->sync < 0)
      return merge_usage_error(f->flag, "'%s' is not one of the input files", f->value);
    if (o->sync == file)
      return merge_usage_error(f->flag, "'%s' cannot be synced to itself", f->value);
  }
  return 0;
}

static int merge_plan_build(const cli_merge *m, const char *const *inputs,
                            int count, merge_plan *p) {
  p->files = calloc((size_t)(count ? count : 1), sizeof *p->files);
  p->trace_time_clock = NULL;
  p->trace_time_file = -1;
  if (!p->files) return merge_usage_error("weft", "%sout of memory", "");
  for (int i = 0; i < count; i++) p->files[i].sync = -1;
  for (int k = 0; k < m->flag_count; k++) {
    const cli_merge_flag *f = &m->flags[k];
    int file = -1;
    if (f->file) {
      file = merge_find_input(f->file, inputs, count);
      if (file < 0)
        return merge_usage_error(f->flag, file == -2 ? "'%s' names several input files"
                                                     : "'%s' is not one of the input files",
                                 f->file);
    }
    if (merge_plan_apply(p, f, file, inputs, count)) return -1;
  }
  for (int i = 0; i < count; i++) {
    const merge_file_opts *o = &p->files[i];
    if (o->sync < 0 && (o->clock || o->ref_clock || o->has_offset))
      return merge_usage_error("weft", "%s: --clock, --ref-clock and --offset need "
                               "--sync FILE=REFERENCE", inputs[i]);
  }
  return 0;
}

/* ---- the generated manifest ---- */

typedef struct merge_text {
  char *data;
  size_t len, cap;
  int failed;
} merge_text;

static void merge_text_add(merge_text *t, const char *fmt, ...) {
  for (int attempt = 0; attempt < 2 && !t->failed; attempt++) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->data ? t->data + t->len : NULL, t->data ? t->cap - t->len : 0,
                      fmt, ap);
    va_end(ap);
    if (n < 0) { t->failed = 1; return; }
    if (t->data && (size_t)n < t->cap - t->len) { t->len += (size_t)n; return; }
    size_t want = t->len + (size_t)n + 1, cap = t->cap ? t->cap : 256;
    while (cap < want) cap *= 2;
    char *grown = realloc(t->data, cap);
    if (!grown) { t->failed = 1; return; }
    t->data = grown;
    t->cap = cap;
  }
}

/* A JSON string literal. */
static void merge_text_string(merge_text *t, const char *s) {
  merge_text_add(t, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') merge_text_add(t, "\\%c", *c);
    else if (*c < 0x20) merge_text_add(t, "\\u%04x", *c);
    else merge_text_add(t, "%c", *c);
  }
  merge_text_add(t, "\"");
}

/* Reads the start of a file to tell its format ("json", "proto", ...). */
static const char *merge_sniff(const char *path) {
  static char head[64 * 1024];
  FILE *f = fopen(path, "rb");
  if (!f) return "unknown";
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return weft_trace_type(head, n);
}

/* The reference clock: as given, else BOOTTIME for formats with clocks and
 * none (the reference's own private timeline) for clockless JSON. */
static const char *merge_ref_clock(const merge_file_opts *o, const char *const *inputs) {
  if (o->ref_clock) return o->ref_clock;
  return strcmp(merge_sniff(inputs[o->sync]), "json") == 0 ? NULL : "BOOTTIME";
}

static void merge_text_file(merge_text *t, const merge_plan *p, int i,
                            const char *const *names, const char *const *inputs) {
  const merge_file_opts *o = &p->files[i];
  merge_text_add(t, "%s{\"path\": ", i ? ", " : "");
  merge_text_string(t, names[i]);
  if (o->machine) {
    merge_text_add(t, ", \"machine\": {\"name\": ");
    merge_text_string(t, o->machine);
    merge_text_add(t, "}");
  }
  if (o->sync >= 0) {
    merge_text_add(t, ", \"clocks\": {");
    if (o->clock) merge_text_add(t, "\"clock\": \"%s\", ", o->clock);
    merge_text_add(t, "\"sync_to\": {\"file\": ");
    merge_text_string(t, names[o->sync]);
    const char *ref_clock = merge_ref_clock(o, inputs);
    if (ref_clock) merge_text_add(t, ", \"clock\": \"%s\"", ref_clock);
    merge_text_add(t, "}");
    if (o->has_offset) merge_text_add(t, ", \"offset_ns\": %lld", (long long)o->offset);
    merge_text_add(t, "}");
  }
  merge_text_add(t, "}");
}

/* The manifest text for inputs named `names` in it; NULL on failure. */
static char *merge_manifest_json(const merge_plan *p, const char *const *names,
                                 const char *const *inputs, int count) {
  merge_text t = {0};
  merge_text_add(&t, "{\"perfetto_manifest\": {\"version\": 1");
  if (p->trace_time_clock) {
    merge_text_add(&t, ", \"trace_time\": {\"clock\": \"%s\"", p->trace_time_clock);
    if (p->trace_time_file >= 0) {
      merge_text_add(&t, ", \"file\": ");
      merge_text_string(&t, names[p->trace_time_file]);
    }
    merge_text_add(&t, "}");
  }
  merge_text_add(&t, ", \"files\": [");
  for (int i = 0; i < count; i++) merge_text_file(&t, p, i, names, inputs);
  merge_text_add(&t, "]}}\n");
  if (t.failed) {
    free(t.data);
    return NULL;
  }
  return t.data;
}

static char *merge_generate(const cli_merge *m, const char *const *names,
                            const char *const *inputs, int count) {
  merge_plan p;
  char *json = NULL;
  if (merge_plan_build(m, inputs, count, &p) == 0) {
    json = merge_manifest_json(&p, names, inputs, count);
    if (!json) fprintf(stderr, "weft: out of memory\n");
  }
  free(p.files);
  return json;
}

/* ---- loading ---- */

int cli_merge_load(weft *w, const cli_merge *m, const char *const *inputs,
                   int count) {
  if (m->manifest_path && m->flag_count > 0) {
    fprintf(stderr, "weft: --manifest cannot be combined with per-file merge "
                    "flags; put everything in the manifest\n");
    return -1;
  }
  if (m->manifest_path) {
    if (weft_load_path(w, m->manifest_path) != WEFT_OK) return -1;
  } else if (m->flag_count > 0) {
    char *json = merge_generate(m, inputs, inputs, count);
    if (!json) return -1;
    int rc = weft_file_begin(w, "perfetto_manifest.json");
    if (!rc) rc = weft_file_write(w, json, strlen(json));
    if (!rc) rc = weft_file_end(w);
    free(json);
    if (rc) return -1;
  }
  return count > 0 && weft_load_paths(w, inputs, (size_t)count) != WEFT_OK ? -1 : 0;
}

/* ---- weft merge ---- */

static int merge_ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static struct archive *merge_open_writer(const char *out_path) {
  struct archive *a = archive_write_new();
  if (!a) return NULL;
  int rc;
  if (merge_ends_with(out_path, ".zip")) {
    rc = archive_write_set_format_zip(a);
  } else if (merge_ends_with(out_path, ".tar")) {
    rc = archive_write_set_format_pax_restricted(a);
  } else if (merge_ends_with(out_path, ".tar.gz") || merge_ends_with(out_path, ".tgz")) {
    rc = archive_write_set_format_pax_restricted(a);
    if (rc == ARCHIVE_OK) rc = archive_write_add_filter_gzip(a);
  } else {
    fprintf(stderr, "weft merge: %s: the output must end in .zip, .tar, .tar.gz "
                    "or .tgz\n", out_path);
    archive_write_free(a);
    return NULL;
  }
  if (rc == ARCHIVE_OK) rc = archive_write_open_filename(a, out_path);
  if (rc != ARCHIVE_OK) {
    fprintf(stderr, "weft merge: %s: %s\n", out_path, archive_error_string(a));
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
      archive_write_data(a, data, len) != (la_ssize_t)len) {
    fprintf(stderr, "weft merge: %s: %s\n", name, archive_error_string(a));
    return -1;
  }
  return 0;
}

static int merge_write_file(struct archive *a, const char *name, const char *path) {
  FILE *f = fopen(path, "rb");
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) {
    fprintf(stderr, "weft merge: %s: cannot open: %s\n", path, strerror(errno));
    if (f) fclose(f);
    return -1;
  }
  int rc = merge_write_header(a, name, (int64_t)st.st_size);
  static char buf[1 << 20];
  size_t n;
  while (rc == 0 && (n = fread(buf, 1, sizeof buf, f)) > 0)
    if (archive_write_data(a, buf, n) != (la_ssize_t)n) rc = -1;
  if (rc == 0 && ferror(f)) {
    fprintf(stderr, "weft merge: %s: read error\n", path);
    rc = -1;
  } else if (rc) {
    fprintf(stderr, "weft merge: %s: %s\n", path, archive_error_string(a));
  }
  fclose(f);
  return rc;
}

/* Member names: the inputs' basenames, made unique with a "N-" prefix. */
static char **merge_member_names(const char *const *inputs, int count) {
  char **names = calloc((size_t)(count ? count : 1), sizeof *names);
  for (int i = 0; names && i < count; i++) {
    const char *base = merge_basename(inputs[i]);
    int clash = !strcmp(base, "perfetto_manifest.json");
    for (int j = 0; j < i; j++)
      if (!strcmp(merge_basename(inputs[j]), base)) clash = 1;
    size_t len = strlen(base) + 16;
    names[i] = malloc(len);
    if (!names[i]) return names; /* caller checks */
    if (clash) snprintf(names[i], len, "%d-%s", i + 1, base);
    else snprintf(names[i], len, "%s", base);
  }
  return names;
}

static char *merge_read_manifest(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  merge_text t = {0};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) merge_text_add(&t, "%.*s", (int)n, buf);
  fclose(f);
  if (t.failed) free(t.data);
  return t.failed ? NULL : t.data ? t.data : calloc(1, 1);
}

char *cli_merge_manifest(const cli_merge *m, const char *const *inputs, int count) {
  if (m->manifest_path) return merge_read_manifest(m->manifest_path);
  char **names = merge_member_names(inputs, count);
  int ok = names != NULL;
  for (int i = 0; ok && i < count; i++) ok = names[i] != NULL;
  char *json = ok ? merge_generate(m, (const char *const *)names, inputs, count) : NULL;
  for (int i = 0; names && i < count; i++) free(names[i]);
  free(names);
  return json;
}

int cli_merge_write(const cli_merge *m, const char *const *inputs, int count,
                    const char *out_path) {
  if (m->manifest_path && m->flag_count > 0) {
    fprintf(stderr, "weft merge: --manifest cannot be combined with per-file "
                    "merge flags\n");
    return -1;
  }
  char **names = merge_member_names(inputs, count);
  int rc = names ? 0 : -1;
  for (int i = 0; rc == 0 && i < count; i++)
    if (!names[i]) rc = -1;
  char *json = NULL;
  if (rc == 0) {
    json = m->manifest_path ? merge_read_manifest(m->manifest_path)
                            : merge_generate(m, (const char *const *)names, inputs, count);
    if (!json) {
      if (m->manifest_path)
        fprintf(stderr, "weft merge: %s: cannot read: %s\n", m->manifest_path,
                strerror(errno));
      rc = -1;
    }
  }
  struct archive *a = rc == 0 ? merge_open_writer(out_path) : NULL;
  if (!a) rc = -1;
  if (rc == 0) rc = merge_write_bytes(a, "perfetto_manifest.json", json, strlen(json));
  for (int i = 0; rc == 0 && i < count; i++) rc = merge_write_file(a, names[i], inputs[i]);
  if (a && archive_write_close(a) != ARCHIVE_OK && rc == 0) {
    fprintf(stderr, "weft merge: %s: %s\n", out_path, archive_error_string(a));
    rc = -1;
  }
  if (a) archive_write_free(a);
  for (int i = 0; names && i < count; i++) free(names[i]);
  free(names);
  free(json);
  return rc;
}
