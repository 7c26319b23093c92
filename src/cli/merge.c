/* The command line's merge options and `weft merge`. See merge.h. */
#include "merge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *cli_merge_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* The input `name` refers to: an exact argument, else a unique basename. */
static int merge_find_input(const char *name, const char *const *inputs, int count) {
  for (int i = 0; i < count; i++)
    if (!strcmp(inputs[i], name)) return i;
  int found = -1;
  for (int i = 0; i < count; i++) {
    if (strcmp(cli_merge_basename(inputs[i]), name) != 0) continue;
    if (found >= 0) return -2;
    found = i;
  }
  return found;
}

/* FILE of a flag that names no input (-1) or several (-2): an error naming
 * it, the closest input name and every input. */
static int merge_unknown_input(const char *flag, const char *file, int why,
                               const char *const *inputs, int count) {
  fprintf(stderr, "weft: %s: '%s' %s", flag, file,
          why == -2 ? "names several input files" : "matches no input");
  const char **bases = calloc((size_t)(count ? count : 1), sizeof *bases);
  for (int i = 0; bases && i < count; i++) bases[i] = cli_merge_basename(inputs[i]);
  int close = why == -2 || !bases ? -1 : weft_closest_name(file, bases, (size_t)count);
  if (close >= 0) fprintf(stderr, "; did you mean '%s'?", bases[close]);
  free(bases);
  fprintf(stderr, " (inputs:");
  for (int i = 0; i < count; i++) fprintf(stderr, "%s %s", i ? "," : "", inputs[i]);
  fprintf(stderr, ")\n");
  return -1;
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
    if (o->sync < 0) return merge_unknown_input(f->flag, f->value, o->sync, inputs, count);
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
      if (file < 0) return merge_unknown_input(f->flag, f->file, file, inputs, count);
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

char *cli_merge_manifest(const cli_merge *m, const char *const *names,
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
    char *json = cli_merge_manifest(m, inputs, inputs, count);
    if (!json) return -1;
    int rc = weft_file_begin(w, "perfetto_manifest.json");
    if (!rc) rc = weft_file_write(w, json, strlen(json));
    if (!rc) rc = weft_file_end(w);
    free(json);
    if (rc) return -1;
  }
  return count > 0 && weft_load_paths(w, inputs, (size_t)count) != WEFT_OK ? -1 : 0;
}
