/* `weft view`: serves the web timeline of the loaded merge (src/server/
 * view.h) and re-merges it when the page changes a file's offset, as
 * --sync FILE=REF --offset FILE=DUR would. */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

typedef struct cli_view {
  const cli_merge *merge; /* the command line's */
  const char *const *inputs;
  int count;
  weft_options options;
  int64_t *offsets;  /* per input, set by the page */
  int *has_offset;
  char (*values)[1][48]; /* per input: the --offset value made */
} cli_view;

/* The input a file is placed against: its --sync reference when given,
 * else the first other input. */
/* Whether a merge flag's FILE names `input`: the input as given or its
 * base name, as the merge flags resolve them. */
static int cli_view_names(const char *file, const char *input) {
  const char *slash = strrchr(input, '/');
  return !strcmp(file, input) || (slash && !strcmp(file, slash + 1));
}

static const char *cli_view_sync(const cli_view *v, int file) {
  for (int k = 0; k < v->merge->flag_count; k++) {
    const cli_merge_flag *f = &v->merge->flags[k];
    if (!strcmp(f->flag, "--sync") && f->file && cli_view_names(f->file, v->inputs[file]))
      return f->value;
  }
  return NULL;
}

/* The reference of a file: its --sync, else the first other input not
 * itself placed against this file (which would make a cycle); NULL when
 * every other input is (the file is the merge's reference). */
static const char *cli_view_ref(const cli_view *v, int file) {
  const char *sync = cli_view_sync(v, file);
  if (sync) return sync;
  for (int j = 0; j < v->count; j++) {
    const char *other = cli_view_sync(v, j);
    if (j != file && !(other && cli_view_names(other, v->inputs[file]))) return v->inputs[j];
  }
  return NULL;
}

/* The command line's flags plus the page's offsets (their --offset
 * replacing the command line's for that file). */
static int cli_view_flags(cli_view *v, cli_merge *out) {
  out->manifest_path = NULL;
  out->flag_count = 0;
  out->flags = calloc((size_t)(v->merge->flag_count + 2 * v->count + 1), sizeof *out->flags);
  if (!out->flags) return -1;
  for (int k = 0; k < v->merge->flag_count; k++) {
    const cli_merge_flag *f = &v->merge->flags[k];
    int replaced = 0;
    for (int i = 0; i < v->count; i++)
      if (v->has_offset[i] && f->file && !strcmp(f->flag, "--offset") &&
          cli_view_names(f->file, v->inputs[i]))
        replaced = 1;
    if (!replaced) out->flags[out->flag_count++] = *f;
  }
  for (int i = 0; i < v->count; i++) {
    const char *ref = cli_view_ref(v, i);
    if (!v->has_offset[i] || !ref) continue;
    snprintf(v->values[i][0], sizeof v->values[i][0], "%lld", (long long)v->offsets[i]);
    if (!cli_view_sync(v, i))
      out->flags[out->flag_count++] =
          (cli_merge_flag){"--sync", v->inputs[i], ref};
    out->flags[out->flag_count++] =
        (cli_merge_flag){"--offset", v->inputs[i], v->values[i][0]};
  }
  return 0;
}

static int cli_view_load(cli_view *v, weft **out, char *err, size_t err_cap) {
  cli_merge m;
  if (cli_view_flags(v, &m)) {
    snprintf(err, err_cap, "out of memory");
    return -1;
  }
  weft *w = NULL;
  int rc = weft_open(&w, &v->options) == WEFT_OK ? 0 : -1;
  if (rc == 0 && (cli_merge_load(w, &m, v->inputs, v->count) != 0 ||
                  weft_load_finish(w) != WEFT_OK)) {
    snprintf(err, err_cap, "re-merging failed: %s",
             weft_errmsg(w)[0] ? weft_errmsg(w) : "see the server's log");
    rc = -1;
  } else if (rc != 0) {
    snprintf(err, err_cap, "out of memory");
  }
  cli_merge_free(&m);
  if (rc == 0) *out = w;
  else weft_close(w);
  return rc;
}

static int cli_view_remerge(void *user, int file, int64_t offset_ns, weft **out, char *err,
                            size_t err_cap) {
  cli_view *v = user;
  if (v->merge->manifest_path) {
    snprintf(err, err_cap, "the view was started with --manifest: edit the manifest "
                           "instead");
    return -1;
  }
  if (file < 0 || file >= v->count || !cli_view_ref(v, file)) {
    snprintf(err, err_cap, "bad 'file': %d is not an input placed against another", file);
    return -1;
  }
  int64_t old = v->offsets[file];
  int had = v->has_offset[file];
  v->offsets[file] = offset_ns;
  v->has_offset[file] = 1;
  if (cli_view_load(v, out, err, err_cap) == 0) return 0;
  v->offsets[file] = old;
  v->has_offset[file] = had;
  return -1;
}

static char *cli_view_manifest(void *user) {
  cli_view *v = user;
  cli_merge m;
  if (v->merge->manifest_path) return cli_merge_manifest(v->merge, v->inputs, v->count);
  if (cli_view_flags(v, &m)) return NULL;
  char *json = cli_merge_manifest(&m, v->inputs, v->count);
  cli_merge_free(&m);
  return json;
}

static void cli_view_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(f, "\\u%04x", (unsigned char)*s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static char *cli_view_inputs(void *user) {
  cli_view *v = user;
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  fputc('[', f);
  for (int i = 0; i < v->count; i++) {
    fprintf(f, "%s{\"index\":%d,\"path\":", i ? "," : "", i);
    cli_view_string(f, v->inputs[i]);
    if (v->has_offset[i]) fprintf(f, ",\"offset_ns\":%lld", (long long)v->offsets[i]);
    else fprintf(f, ",\"offset_ns\":null");
    fprintf(f, ",\"ref\":");
    const char *ref = cli_view_ref(v, i);
    if (ref) cli_view_string(f, ref);
    else fprintf(f, "null");
    fputc('}', f);
  }
  fputc(']', f);
  fclose(f);
  return text;
}

static void cli_view_on_ready(void *user, const char *ip, unsigned port) {
  (void)user;
  int v6 = strchr(ip, ':') != NULL;
  printf("weft view: http://%s%s%s:%u/\n", v6 ? "[" : "", ip, v6 ? "]" : "", port);
  fflush(stdout);
}

/* The command line's --offset of each input, as the page's starting values. */
static void cli_view_take_offsets(cli_view *v) {
  for (int k = 0; k < v->merge->flag_count; k++) {
    const cli_merge_flag *f = &v->merge->flags[k];
    if (strcmp(f->flag, "--offset") || !f->file) continue;
    for (int i = 0; i < v->count; i++)
      if (cli_view_names(f->file, v->inputs[i]) &&
          cli_merge_parse_duration(f->value, &v->offsets[i]) == 0)
        v->has_offset[i] = 1;
  }
}

int cli_view_serve(const cli_mode *mode, weft *w, const weft_options *options,
                   const cli_merge *merge, const char *const *inputs, int count) {
  cli_view v = {merge, inputs, count, *options, NULL, NULL, NULL};
  int n = count ? count : 1;
  v.offsets = calloc((size_t)n, sizeof *v.offsets);
  v.has_offset = calloc((size_t)n, sizeof *v.has_offset);
  v.values = calloc((size_t)n, sizeof *v.values);
  int status = 1;
  if (v.offsets && v.has_offset && v.values) {
    cli_view_take_offsets(&v);
    view_host host = {cli_view_remerge, cli_view_manifest, cli_view_inputs, &v};
    server_http_options http;
    cli_mode_http_options(mode, &http);
    http.on_ready = cli_view_on_ready;
    http.view = &host;
    char err[256];
    status = server_http_run(&http, options, w, count ? inputs[0] : "", err, sizeof err);
    if (status != 0) fprintf(stderr, "weft view: %s\n", err);
    w = NULL;
    status = status ? 1 : 0;
  } else {
    fprintf(stderr, "weft view: out of memory\n");
  }
  weft_close(w);
  free(v.offsets);
  free(v.has_offset);
  free(v.values);
  return status;
}
