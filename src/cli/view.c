/* `weft view`: serves the web timeline of the loaded merge (src/server/
 * view.h) and re-merges it when the page changes a file's offset,
 * reference or machine, as --offset FILE=DUR, --sync FILE=REF and
 * --machine FILE=NAME would. */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"
#include "view_manifest.h"

/* What the page changed of one input's placement. */
typedef struct cli_view_input {
  int has_offset;
  int64_t offset;     /* ns */
  int ref;            /* the input it is placed against, or -1: as the flags say */
  char machine[129];  /* "": as the flags say */
  char offset_text[24];
} cli_view_input;

typedef struct cli_view {
  const cli_merge *merge; /* the command line's */
  const char *const *inputs;
  int count;
  weft_options options;
  cli_view_input *in;     /* per input */
  cli_vm vm;              /* the --manifest, when given */
  int has_vm;
} cli_view;

/* Whether a merge flag's FILE names `input`: the input as given or its
 * base name, as the merge flags resolve them. */
static int cli_view_names(const char *file, const char *input) {
  const char *slash = strrchr(input, '/');
  return !strcmp(file, input) || (slash && !strcmp(file, slash + 1));
}

/* The value of the command line's `flag` for input `file`, or NULL. */
static const char *cli_view_flag(const cli_view *v, const char *flag, int file) {
  for (int k = 0; k < v->merge->flag_count; k++) {
    const cli_merge_flag *f = &v->merge->flags[k];
    if (!strcmp(f->flag, flag) && f->file && cli_view_names(f->file, v->inputs[file]))
      return f->value;
  }
  return NULL;
}

/* The --manifest's entry of input `file`, or NULL. */
static const cli_vm_file *cli_view_entry(const cli_view *v, int file) {
  if (!v->has_vm || v->vm.entry[file] < 0) return NULL;
  return &v->vm.files[v->vm.entry[file]];
}

static const char *cli_view_sync(const cli_view *v, int file) {
  if (v->in[file].ref >= 0) return v->inputs[v->in[file].ref];
  const cli_vm_file *e = cli_view_entry(v, file);
  if (e && e->sync_file) {
    int ref = cli_vm_input_named(&v->vm, e->sync_file, v->inputs);
    return ref >= 0 ? v->inputs[ref] : e->sync_file;
  }
  return cli_view_flag(v, "--sync", file);
}

static const char *cli_view_machine(const cli_view *v, int file) {
  if (v->in[file].machine[0]) return v->in[file].machine;
  const cli_vm_file *e = cli_view_entry(v, file);
  if (e) return e->machine;
  return cli_view_flag(v, "--machine", file);
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

/* Whether the page replaces the command line's flag f. */
static int cli_view_replaced(const cli_view *v, const cli_merge_flag *f) {
  for (int i = 0; f->file && i < v->count; i++) {
    if (!cli_view_names(f->file, v->inputs[i])) continue;
    const cli_view_input *in = &v->in[i];
    if ((!strcmp(f->flag, "--offset") && in->has_offset) ||
        (!strcmp(f->flag, "--sync") && in->ref >= 0) ||
        (!strcmp(f->flag, "--machine") && in->machine[0]))
      return 1;
  }
  return 0;
}

/* The page's flags for input i (room for three). */
static void cli_view_input_flags(cli_view *v, int i, cli_merge *out) {
  cli_view_input *in = &v->in[i];
  if (in->machine[0])
    out->flags[out->flag_count++] = (cli_merge_flag){"--machine", v->inputs[i], in->machine};
  const char *ref = cli_view_ref(v, i);
  if (!ref || (!in->has_offset && in->ref < 0)) return;
  if (in->ref >= 0 || !cli_view_flag(v, "--sync", i))
    out->flags[out->flag_count++] = (cli_merge_flag){"--sync", v->inputs[i], ref};
  if (in->has_offset) {
    snprintf(in->offset_text, sizeof in->offset_text, "%lld", (long long)in->offset);
    out->flags[out->flag_count++] = (cli_merge_flag){"--offset", v->inputs[i], in->offset_text};
  }
}

/* The command line's flags with the page's changes. */
static int cli_view_flags(cli_view *v, cli_merge *out) {
  out->manifest_path = NULL;
  out->flag_count = 0;
  out->flags = calloc((size_t)(v->merge->flag_count + 3 * v->count + 1), sizeof *out->flags);
  if (!out->flags) return -1;
  for (int k = 0; k < v->merge->flag_count; k++)
    if (!cli_view_replaced(v, &v->merge->flags[k]))
      out->flags[out->flag_count++] = v->merge->flags[k];
  for (int i = 0; i < v->count; i++) cli_view_input_flags(v, i, out);
  return 0;
}

/* Reference clocks as the merge flags default them: BOOTTIME, none for a
 * clockless JSON file. */
static const char *cli_view_ref_clock(const char *path) {
  static char head[64 * 1024];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(head, 1, sizeof head, f) : 0;
  if (f) fclose(f);
  return f && !strcmp(weft_trace_type(head, n), "json") ? NULL : "BOOTTIME";
}

/* The --manifest with the page's changes (to free()), or NULL. */
static char *cli_view_vm_text(const cli_view *v) {
  cli_vm_change *c = calloc((size_t)(v->count ? v->count : 1), sizeof *c);
  if (!c) return NULL;
  for (int i = 0; i < v->count; i++) {
    const cli_view_input *in = &v->in[i];
    const cli_vm_file *e = cli_view_entry(v, i);
    c[i].machine = in->machine[0] ? in->machine : NULL;
    c[i].has_offset = in->has_offset;
    c[i].offset = in->offset;
    c[i].ref = in->ref;
    if (c[i].ref < 0 && in->has_offset && !(e && e->clocks_b)) {
      const char *ref = cli_view_ref(v, i);
      c[i].ref = ref ? cli_vm_input_named(&v->vm, ref, v->inputs) : -1;
    }
    if (c[i].ref >= 0) c[i].ref_clock = cli_view_ref_clock(v->inputs[c[i].ref]);
  }
  char *text = cli_vm_render(&v->vm, c, v->inputs);
  free(c);
  return text;
}

/* Loads the inputs with the --manifest and the page's changes. */
static int cli_view_vm_load(const cli_view *v, weft *w) {
  char *json = cli_view_vm_text(v);
  int rc = !json || weft_file_begin(w, "perfetto_manifest.json") ||
           weft_file_write(w, json, strlen(json)) || weft_file_end(w) ||
           weft_load_paths(w, v->inputs, (size_t)v->count);
  free(json);
  return rc ? -1 : 0;
}

static int cli_view_load(cli_view *v, weft **out, char *err, size_t err_cap) {
  cli_merge m;
  if (cli_view_flags(v, &m)) {
    snprintf(err, err_cap, "out of memory");
    return -1;
  }
  weft *w = NULL;
  int rc = weft_open(&w, &v->options) == WEFT_OK ? 0 : -1;
  if (rc == 0 && ((v->has_vm ? cli_view_vm_load(v, w) : cli_merge_load(w, &m, v->inputs,
                                                                         v->count)) != 0 ||
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

/* Whether the change can be made: 0, or -1 with the reason in err. */
static int cli_view_check(const cli_view *v, const view_change *c, char *err, size_t cap) {
  if (c->file < 0 || c->file >= v->count || c->ref >= v->count) {
    snprintf(err, cap, "bad 'file' or 'ref': there are %d inputs", v->count);
    return -1;
  }
  if (c->machine && strlen(c->machine) >= sizeof v->in[0].machine) {
    snprintf(err, cap, "bad 'machine': too long");
    return -1;
  }
  if (c->has_offset && c->ref < 0 && !cli_view_ref(v, c->file)) {
    snprintf(err, cap, "input %d is the one the others are placed against: choose its "
                       "reference first", c->file);
    return -1;
  }
  return 0;
}

static int cli_view_remerge(void *user, const view_change *c, weft **out, char *err,
                            size_t err_cap) {
  cli_view *v = user;
  if (cli_view_check(v, c, err, err_cap)) return -1;
  cli_view_input *in = &v->in[c->file], old = *in;
  if (c->has_offset) {
    in->has_offset = 1;
    in->offset = c->offset_ns;
  }
  if (c->ref >= 0) in->ref = c->ref;
  if (c->machine) snprintf(in->machine, sizeof in->machine, "%s", c->machine);
  if (cli_view_load(v, out, err, err_cap) == 0) return 0;
  *in = old;
  return -1;
}

static char *cli_view_manifest(void *user) {
  cli_view *v = user;
  cli_merge m;
  if (v->has_vm) return cli_view_vm_text(v);
  if (cli_view_flags(v, &m)) return NULL;
  char *json = cli_merge_archive_manifest(&m, v->inputs, v->count);
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
    if (v->in[i].has_offset) fprintf(f, ",\"offset_ns\":%lld", (long long)v->in[i].offset);
    else fprintf(f, ",\"offset_ns\":null");
    fprintf(f, ",\"ref\":");
    const char *ref = cli_view_ref(v, i);
    if (ref) cli_view_string(f, ref);
    else fprintf(f, "null");
    const char *machine = cli_view_machine(v, i);
    fprintf(f, ",\"machine\":");
    if (machine) cli_view_string(f, machine);
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

/* The command line's --offset (or the --manifest's offset_ns) of each
 * input, as the page's starting values. */
static void cli_view_take_offsets(cli_view *v) {
  for (int i = 0; i < v->count; i++) {
    const cli_vm_file *e = cli_view_entry(v, i);
    if (e && e->has_offset) {
      v->in[i].has_offset = 1;
      v->in[i].offset = e->offset;
    }
  }
  for (int k = 0; k < v->merge->flag_count; k++) {
    const cli_merge_flag *f = &v->merge->flags[k];
    if (strcmp(f->flag, "--offset") || !f->file) continue;
    for (int i = 0; i < v->count; i++)
      if (cli_view_names(f->file, v->inputs[i]) &&
          cli_merge_parse_duration(f->value, &v->in[i].offset) == 0)
        v->in[i].has_offset = 1;
  }
}

int cli_view_serve(const cli_mode *mode, weft *w, const weft_options *options,
                   const cli_merge *merge, const char *const *inputs, int count) {
  cli_view v = {merge, inputs, count, *options, NULL, {0}, 0};
  v.in = calloc((size_t)(count ? count : 1), sizeof *v.in);
  int status = 1;
  char err[256];
  if (v.in && merge->manifest_path) {
    if (cli_vm_load(&v.vm, merge->manifest_path, inputs, count, err, sizeof err) == 0) {
      v.has_vm = 1;
    } else {
      fprintf(stderr, "weft view: %s\n", err);
      free(v.in);
      weft_close(w);
      return 1;
    }
  }
  if (v.in) {
    for (int i = 0; i < count; i++) v.in[i].ref = -1;
    cli_view_take_offsets(&v);
    view_host host = {cli_view_remerge, cli_view_manifest, cli_view_inputs, &v};
    server_http_options http;
    cli_mode_http_options(mode, &http);
    http.on_ready = cli_view_on_ready;
    http.view = &host;
    status = server_http_run(&http, options, w, count ? inputs[0] : "", err, sizeof err);
    if (status != 0) fprintf(stderr, "weft view: %s\n", err);
    w = NULL;
    status = status ? 1 : 0;
  } else {
    fprintf(stderr, "weft view: out of memory\n");
  }
  weft_close(w);
  free(v.in);
  if (v.has_vm) cli_vm_free(&v.vm);
  return status;
}
