/* The page's changes on top of `weft view --manifest M` (view_manifest.h).
 * M is read with the JSON tokenizer, keeping the byte spans of what a
 * change may replace; writing it again copies M with those spans edited,
 * so whatever else M says stays as it was. */
#include "view_manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_tokenizer.h"
#include "merge.h"

#define CLI_VM_MAX_BYTES (64u << 20)

typedef struct cli_vm_reader {
  cli_vm *m;
  json_tokenizer t;
  json_token tok;
  base_error err;
} cli_vm_reader;

static int cli_vm_next(cli_vm_reader *r) {
  return json_next(&r->t, &r->tok, &r->err) == WEFT_OK ? 0 : -1;
}

static int cli_vm_key_is(const cli_vm_reader *r, const char *key) {
  return r->tok.type == JSON_TOK_KEY && r->tok.len == strlen(key) &&
         !memcmp(r->tok.ptr, key, r->tok.len);
}

/* The next value as a string (a copy to free()), or NULL when it is not
 * one (the value is skipped). */
static char *cli_vm_string(cli_vm_reader *r) {
  if (cli_vm_next(r) || r->tok.type != JSON_TOK_STRING) {
    if (r->tok.type == JSON_TOK_OBJECT_BEGIN || r->tok.type == JSON_TOK_ARRAY_BEGIN)
      json_skip_container(&r->t, &r->err);
    return NULL;
  }
  char *s = malloc(r->tok.len + 1);
  size_t n = 0;
  if (s && json_unescape(r->tok.ptr, r->tok.len, s, &n, &r->err) == WEFT_OK) {
    s[n] = '\0';
    return s;
  }
  free(s);
  return NULL;
}

/* Reads the members of an object just opened, calling on_key for each key
 * (which must read or skip its value); returns the offset of its '}' or 0. */
typedef int (*cli_vm_on_key)(cli_vm_reader *r, cli_vm_file *f);

static size_t cli_vm_object(cli_vm_reader *r, cli_vm_file *f, cli_vm_on_key on_key) {
  for (;;) {
    if (cli_vm_next(r)) return 0;
    if (r->tok.type == JSON_TOK_OBJECT_END) return r->tok.offset;
    if (r->tok.type != JSON_TOK_KEY || on_key(r, f)) return 0;
  }
}

static int cli_vm_skip(cli_vm_reader *r) {
  return json_skip_value(&r->t, &r->err) == WEFT_OK ? 0 : -1;
}

/* Opens an object value: 0, or -1 when the value is something else. */
static int cli_vm_open(cli_vm_reader *r) {
  if (cli_vm_next(r)) return -1;
  if (r->tok.type == JSON_TOK_OBJECT_BEGIN) return 0;
  if (r->tok.type == JSON_TOK_ARRAY_BEGIN) json_skip_container(&r->t, &r->err);
  return -1;
}

static int cli_vm_on_machine(cli_vm_reader *r, cli_vm_file *f) {
  if (!cli_vm_key_is(r, "name")) return cli_vm_skip(r);
  free(f->machine);
  f->machine = cli_vm_string(r);
  return 0;
}

static int cli_vm_on_sync(cli_vm_reader *r, cli_vm_file *f) {
  if (!cli_vm_key_is(r, "file")) return cli_vm_skip(r);
  free(f->sync_file);
  f->sync_file = cli_vm_string(r);
  return 0;
}

static int cli_vm_on_clocks(cli_vm_reader *r, cli_vm_file *f) {
  if (cli_vm_key_is(r, "sync_to")) {
    if (cli_vm_open(r)) return -1;
    f->sync_b = r->tok.offset;
    size_t close = cli_vm_object(r, f, cli_vm_on_sync);
    f->sync_e = close + 1;
    return close ? 0 : -1;
  }
  if (!cli_vm_key_is(r, "offset_ns")) return cli_vm_skip(r);
  if (cli_vm_next(r) || r->tok.type != JSON_TOK_NUMBER || !r->tok.is_int) return -1;
  f->offset_b = r->tok.offset;
  f->offset_e = r->tok.offset + r->tok.len;
  f->has_offset = 1;
  f->offset = r->tok.i;
  return 0;
}

static int cli_vm_on_file(cli_vm_reader *r, cli_vm_file *f) {
  if (cli_vm_key_is(r, "path")) {
    free(f->path);
    f->path = cli_vm_string(r);
    return f->path ? 0 : -1;
  }
  if (cli_vm_key_is(r, "machines")) {
    f->machines_b = r->tok.offset;
    if (cli_vm_skip(r)) return -1;
    f->machines_e = json_offset(&r->t);
    return 0;
  }
  int machine = cli_vm_key_is(r, "machine"), clocks = cli_vm_key_is(r, "clocks");
  if (!machine && !clocks) return cli_vm_skip(r);
  if (cli_vm_open(r)) return -1;
  size_t open = r->tok.offset;
  size_t close = cli_vm_object(r, f, machine ? cli_vm_on_machine : cli_vm_on_clocks);
  if (!close) return -1;
  if (machine) {
    f->machine_b = open;
    f->machine_e = close + 1;
  } else {
    f->clocks_b = open;
    f->clocks_close = close;
  }
  return 0;
}

static int cli_vm_files(cli_vm_reader *r) {
  cli_vm *m = r->m;
  if (cli_vm_next(r) || r->tok.type != JSON_TOK_ARRAY_BEGIN) return -1;
  for (;;) {
    if (cli_vm_next(r)) return -1;
    if (r->tok.type == JSON_TOK_ARRAY_END) {
      m->files_close = r->tok.offset;
      return 0;
    }
    if (r->tok.type != JSON_TOK_OBJECT_BEGIN) return -1;
    cli_vm_file *grown = realloc(m->files, (size_t)(m->file_count + 1) * sizeof *grown);
    if (!grown) return -1;
    m->files = grown;
    cli_vm_file *f = &m->files[m->file_count++];
    memset(f, 0, sizeof *f);
    f->input = -1;
    f->close = cli_vm_object(r, f, cli_vm_on_file);
    if (!f->close || !f->path) return -1;
  }
}

/* Finds perfetto_manifest.files and reads it. */
static int cli_vm_read(cli_vm_reader *r) {
  if (cli_vm_next(r) || r->tok.type != JSON_TOK_OBJECT_BEGIN) return -1;
  for (int depth = 0;;) {
    if (cli_vm_next(r)) return -1;
    if (r->tok.type == JSON_TOK_OBJECT_END) return r->m->files_close ? 0 : -1;
    if (r->tok.type != JSON_TOK_KEY) return -1;
    if (depth == 0 && cli_vm_key_is(r, "perfetto_manifest")) {
      if (cli_vm_open(r)) return -1;
      depth = 1;
    } else if (depth == 1 && cli_vm_key_is(r, "files")) {
      if (cli_vm_files(r)) return -1;
    } else if (cli_vm_skip(r)) {
      return -1;
    }
  }
}

static char *cli_vm_read_text(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = malloc(CLI_VM_MAX_BYTES + 1);
  size_t n = text ? fread(text, 1, CLI_VM_MAX_BYTES + 1, f) : 0;
  fclose(f);
  if (!text || n > CLI_VM_MAX_BYTES) {
    free(text);
    errno = EFBIG;
    return NULL;
  }
  text[n] = '\0';
  *len = n;
  return text;
}

static int cli_vm_names(const char *name, const char *input) {
  return !strcmp(name, input) ||
         !strcmp(cli_merge_basename(name), cli_merge_basename(input));
}

int cli_vm_input_named(const cli_vm *m, const char *name, const char *const *inputs) {
  for (int i = 0; name && i < m->input_count; i++)
    if (cli_vm_names(name, inputs[i])) return i;
  return -1;
}

int cli_vm_load(cli_vm *m, const char *path, const char *const *inputs, int count,
                char *err, size_t err_cap) {
  memset(m, 0, sizeof *m);
  m->text = cli_vm_read_text(path, &m->len);
  if (!m->text) {
    snprintf(err, err_cap, "%s: cannot read: %s", path, strerror(errno));
    return -1;
  }
  m->input_count = count;
  m->entry = malloc((size_t)(count ? count : 1) * sizeof *m->entry);
  cli_vm_reader r = {.m = m};
  int rc = m->entry && json_tokenizer_init(&r.t, m->text, m->len, NULL, &r.err) == WEFT_OK
               ? cli_vm_read(&r) : -1;
  json_tokenizer_free(&r.t);
  if (rc) {
    snprintf(err, err_cap, "%s: cannot edit it: %s", path,
             r.err.message[0] ? r.err.message : "no perfetto_manifest.files list of "
                                                "objects with a path");
    cli_vm_free(m);
    return -1;
  }
  for (int i = 0; i < count; i++) {
    m->entry[i] = -1;
    for (int k = 0; k < m->file_count && m->entry[i] < 0; k++)
      if (cli_vm_names(m->files[k].path, inputs[i])) m->entry[i] = k;
    if (m->entry[i] >= 0) m->files[m->entry[i]].input = i;
  }
  return 0;
}

void cli_vm_free(cli_vm *m) {
  for (int k = 0; k < m->file_count; k++) {
    free(m->files[k].path);
    free(m->files[k].machine);
    free(m->files[k].sync_file);
  }
  free(m->files);
  free(m->entry);
  free(m->text);
  memset(m, 0, sizeof *m);
}

/* ---- writing ---- */

typedef struct cli_vm_edit {
  size_t b, e; /* replaces text[b, e) (b == e: inserts) */
  int seq;     /* edits at one place keep their order */
  char *text;
  size_t len; /* the text's stream writes here */
} cli_vm_edit;

typedef struct cli_vm_writer {
  cli_vm_edit *edits;
  int count, cap;
  int failed;
} cli_vm_writer;

static void cli_vm_string_out(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\') fprintf(f, "\\%c", *c);
    else if (*c < 0x20) fprintf(f, "\\u%04x", *c);
    else fputc(*c, f);
  }
  fputc('"', f);
}

/* An edit whose text is written to the stream it returns, which must be
 * closed (cli_vm_edit_end) before the next edit begins. */
static FILE *cli_vm_edit_begin(cli_vm_writer *w, size_t b, size_t e) {
  if (w->failed) return NULL;
  if (w->count == w->cap) {
    int cap = w->cap ? w->cap * 2 : 16;
    cli_vm_edit *grown = realloc(w->edits, (size_t)cap * sizeof *grown);
    if (!grown) {
      w->failed = 1;
      return NULL;
    }
    w->edits = grown;
    w->cap = cap;
  }
  cli_vm_edit *ed = &w->edits[w->count];
  *ed = (cli_vm_edit){b, e, w->count, NULL, 0};
  FILE *f = open_memstream(&ed->text, &ed->len);
  if (!f) w->failed = 1;
  else w->count++;
  return f;
}

static void cli_vm_edit_end(cli_vm_writer *w, FILE *f) {
  if (f && fclose(f)) w->failed = 1;
}

/* {"file": NAME[, "clock": CLOCK]} of a sync to input `ref`. */
static void cli_vm_sync_out(FILE *f, const cli_vm *m, const cli_vm_change *c,
                            const char *const *inputs) {
  int entry = m->entry[c->ref];
  fprintf(f, "{\"file\": ");
  cli_vm_string_out(f, entry >= 0 ? m->files[entry].path : cli_merge_basename(inputs[c->ref]));
  if (c->ref_clock) fprintf(f, ", \"clock\": \"%s\"", c->ref_clock);
  fputc('}', f);
}

static void cli_vm_machine_edit(cli_vm_writer *w, const cli_vm_file *f, const char *name) {
  FILE *out;
  if (f->machine_b) {
    out = cli_vm_edit_begin(w, f->machine_b, f->machine_e);
  } else if (f->machines_b) {
    out = cli_vm_edit_begin(w, f->machines_b, f->machines_e);
    if (out) fprintf(out, "\"machine\": ");
  } else {
    out = cli_vm_edit_begin(w, f->close, f->close);
    if (out) fprintf(out, ", \"machine\": ");
  }
  if (!out) return;
  fprintf(out, "{\"name\": ");
  cli_vm_string_out(out, name);
  fputc('}', out);
  cli_vm_edit_end(w, out);
}

/* A new "clocks" member: the sync to c->ref, and the offset. */
static void cli_vm_clocks_out(FILE *out, const cli_vm *m, const cli_vm_change *c,
                              const char *const *inputs) {
  fprintf(out, "\"clocks\": {\"sync_to\": ");
  cli_vm_sync_out(out, m, c, inputs);
  if (c->has_offset) fprintf(out, ", \"offset_ns\": %lld", (long long)c->offset);
  fputc('}', out);
}

static void cli_vm_clocks_edit(cli_vm_writer *w, const cli_vm *m, const cli_vm_file *f,
                               const cli_vm_change *c, const char *const *inputs) {
  FILE *out;
  if (!f->clocks_b) { /* no clocks yet: a PIN to the reference */
    if (c->ref < 0 || !(out = cli_vm_edit_begin(w, f->close, f->close))) return;
    fprintf(out, ", ");
    cli_vm_clocks_out(out, m, c, inputs);
    cli_vm_edit_end(w, out);
    return;
  }
  if (c->ref >= 0) {
    out = f->sync_b ? cli_vm_edit_begin(w, f->sync_b, f->sync_e)
                    : cli_vm_edit_begin(w, f->clocks_close, f->clocks_close);
    if (out && !f->sync_b) fprintf(out, ", \"sync_to\": ");
    if (out) cli_vm_sync_out(out, m, c, inputs);
    cli_vm_edit_end(w, out);
  }
  if (c->has_offset) {
    out = f->offset_b ? cli_vm_edit_begin(w, f->offset_b, f->offset_e)
                      : cli_vm_edit_begin(w, f->clocks_close, f->clocks_close);
    if (out && !f->offset_b) fprintf(out, ", \"offset_ns\": ");
    if (out) fprintf(out, "%lld", (long long)c->offset);
    cli_vm_edit_end(w, out);
  }
}

/* An input the manifest does not name: a new entry at the end of files. */
static void cli_vm_new_entry(cli_vm_writer *w, const cli_vm *m, int input, int comma,
                             const cli_vm_change *c, const char *const *inputs) {
  FILE *out = cli_vm_edit_begin(w, m->files_close, m->files_close);
  if (!out) return;
  fprintf(out, "%s{\"path\": ", comma ? ", " : "");
  cli_vm_string_out(out, cli_merge_basename(inputs[input]));
  if (c->machine) {
    fprintf(out, ", \"machine\": {\"name\": ");
    cli_vm_string_out(out, c->machine);
    fputc('}', out);
  }
  if (c->ref >= 0) {
    fprintf(out, ", ");
    cli_vm_clocks_out(out, m, c, inputs);
  }
  fputc('}', out);
  cli_vm_edit_end(w, out);
}

static int cli_vm_cmp_edit(const void *a, const void *b) {
  const cli_vm_edit *x = a, *y = b;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return x->seq - y->seq;
}

static char *cli_vm_apply(const cli_vm *m, cli_vm_writer *w) {
  if (w->count > 1) qsort(w->edits, (size_t)w->count, sizeof *w->edits, cli_vm_cmp_edit);
  char *text = NULL;
  size_t len = 0, at = 0;
  FILE *out = open_memstream(&text, &len);
  if (!out) return NULL;
  for (int k = 0; k < w->count; k++) {
    const cli_vm_edit *ed = &w->edits[k];
    fwrite(m->text + at, 1, ed->b - at, out);
    fputs(ed->text, out);
    at = ed->e;
  }
  fwrite(m->text + at, 1, m->len - at, out);
  if (fclose(out)) {
    free(text);
    return NULL;
  }
  return text;
}

char *cli_vm_render(const cli_vm *m, const cli_vm_change *changes,
                    const char *const *inputs) {
  cli_vm_writer w = {0};
  int added = 0;
  for (int i = 0; i < m->input_count; i++) {
    const cli_vm_change *c = &changes[i];
    int entry = m->entry[i];
    if (entry < 0) {
      if (c->machine || c->ref >= 0)
        cli_vm_new_entry(&w, m, i, m->file_count > 0 || added++ > 0, c, inputs);
      continue;
    }
    const cli_vm_file *f = &m->files[entry];
    if (c->machine) cli_vm_machine_edit(&w, f, c->machine);
    if (c->has_offset || c->ref >= 0) cli_vm_clocks_edit(&w, m, f, c, inputs);
  }
  char *text = w.failed ? NULL : cli_vm_apply(m, &w);
  for (int k = 0; k < w.count; k++) free(w.edits[k].text);
  free(w.edits);
  return text;
}
