/* perfetto_manifest reader: two passes over the JSON with the streaming
 * tokenizer (1: syntax + version, 2: fields), then cross-reference checks. */
#include "manifest/manifest.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/json_tokenizer.h"
#include "clock/clock.h"

#define MANIFEST_SHOW_MAX 200


typedef VEC(manifest_file) manifest_file_vec;
typedef VEC(manifest_machine) manifest_machine_vec;
typedef VEC(manifest_attribute) manifest_attribute_vec;

/* Parser state. */
typedef struct manifest_parser {
  json_tokenizer t;
  json_token tok;
  const json_limits *limits; /* or NULL */
  manifest *m;
  base_error *err;
  manifest_file_vec files;
  manifest_attribute_vec attributes;
  int section; /* the one field of perfetto_manifest pass 2 reads now */
} manifest_parser;

/* Pass 2 reads one field per walk over the document, in Perfetto's
 * validation order (so the first error reported is Perfetto's). */
enum { MP_TRACE_TIME = 1, MP_FILES = 2, MP_ATTRIBUTES = 3, MP_WEFT_INTERPOLATION = 4 };
static const int mp_sections[] = {MP_TRACE_TIME, MP_FILES, MP_ATTRIBUTES,
                                  MP_WEFT_INTERPOLATION};

/* ---- errors ---- */

__attribute__((format(printf, 3, 4))) static int manifest_fail(
    base_error *err, int code, const char *fmt, ...) {
  char what[900];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return base_error_set(err, code, "perfetto_manifest: %s", what);
}

static int manifest_nomem(base_error *err) {
  return manifest_fail(err, WEFT_ENOMEM, "out of memory");
}

/* A user string made safe for a one-line message: bounded, control bytes
 * shown as '?'. */
static const char *manifest_show(const char *s, char *buf, size_t cap) {
  size_t n = 0;
  for (; s[n] && n + 4 < cap && n < MANIFEST_SHOW_MAX; n++)
    buf[n] = (unsigned char)s[n] < 0x20 ? '?' : s[n];
  if (s[n]) {
    memcpy(buf + n, "...", 3);
    n += 3;
  }
  buf[n] = 0;
  return buf;
}

/* ---- clock names ---- */

/* Manifest clocks are the builtin clocks, by the same numbers. */
_Static_assert(MANIFEST_CLOCK_REALTIME == CLOCK_ID_REALTIME &&
                   MANIFEST_CLOCK_BOOTTIME == CLOCK_ID_BOOTTIME,
               "manifest clock numbers are builtin clock ids");
const char *manifest_clock_name(uint32_t clock) {
  return clock == MANIFEST_CLOCK_NONE ? NULL : clock_name_from_id(clock);
}

uint32_t manifest_clock_from_name(const char *name, size_t len) {
  uint64_t id;
  if (!clock_id_from_name(name, len, &id) || id > MANIFEST_CLOCK_BOOTTIME)
    return MANIFEST_CLOCK_NONE;
  return (uint32_t)id;
}

/* ---- detection ---- */

static const char *manifest_skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

bool manifest_detect(const char *data, size_t len) {
  static const char key[] = "\"perfetto_manifest\"";
  const char *end = data + len;
  const char *p = manifest_skip_ws(data, end);
  if (p == end || *p != '{') return false;
  p = manifest_skip_ws(p + 1, end);
  return (size_t)(end - p) >= sizeof key - 1 &&
         memcmp(p, key, sizeof key - 1) == 0;
}

/* ---- token helpers ---- */

/* A tokenizer error, prefixed; a limit's names the option setting it. */
static int mp_json_error(manifest_parser *p, int rc) {
  base_error_prefix(p->err, "perfetto_manifest");
  if (rc != WEFT_ELIMIT || !p->err) return rc;
  const char *option = strstr(p->err->message, "nesting") ? "--max-json-depth"
                                                         : "--max-string";
  size_t n = strlen(p->err->message);
  snprintf(p->err->message + n, sizeof p->err->message - n, " (%s)", option);
  return rc;
}

static int mp_next(manifest_parser *p) {
  int rc = json_next(&p->t, &p->tok, p->err);
  return rc ? mp_json_error(p, rc) : WEFT_OK;
}

static int mp_skip_value(manifest_parser *p) {
  int rc = json_skip_value(&p->t, p->err);
  return rc ? mp_json_error(p, rc) : WEFT_OK;
}

static bool mp_key_is(const json_token *key, const char *name) {
  size_t n = strlen(name);
  if (!key->has_escapes) return key->len == n && memcmp(key->ptr, name, n) == 0;
  char buf[128];
  size_t len;
  if (key->len > sizeof buf || json_unescape(key->ptr, key->len, buf, &len, NULL))
    return false;
  return len == n && memcmp(buf, name, n) == 0;
}

/* Reads the next member of the current object. *which = index in names (a
 * NULL-terminated list), or -1 at the object's end. Unknown members are
 * skipped; a known one seen twice is an error. */
static int mp_member(manifest_parser *p, const char *const *names,
                     unsigned *seen, const char *ctx, int *which) {
  for (;;) {
    int rc = mp_next(p);
    if (rc) return rc;
    if (p->tok.type == JSON_TOK_OBJECT_END) {
      *which = -1;
      return WEFT_OK;
    }
    for (int i = 0; names[i]; i++) {
      if (!mp_key_is(&p->tok, names[i])) continue;
      if (*seen & (1u << i))
        return manifest_fail(p->err, WEFT_EPARSE, "%sduplicate field: %s", ctx,
                             names[i]);
      *seen |= 1u << i;
      *which = i;
      return WEFT_OK;
    }
    rc = mp_skip_value(p);
    if (rc) return rc;
  }
}

/* Reads a value that must open a container of the given type. */
static int mp_open(manifest_parser *p, json_token_type type, const char *ctx,
                   const char *field) {
  int rc = mp_next(p);
  if (rc) return rc;
  if (p->tok.type == type) return WEFT_OK;
  return manifest_fail(p->err, WEFT_EPARSE, "%s%s must be %s", ctx, field,
                       type == JSON_TOK_OBJECT_BEGIN ? "an object" : "an array");
}

/* Copies the current KEY/STRING token, decoded, into the arena. */
static int mp_copy_token(manifest_parser *p, const char *ctx, const char *field,
                         const char **out) {
  char *s = base_arena_alloc(&p->m->arena_, p->tok.len + 1);
  if (!s) return manifest_nomem(p->err);
  size_t len = p->tok.len;
  if (p->tok.has_escapes) {
    int rc = json_unescape(p->tok.ptr, p->tok.len, s, &len, p->err);
    if (rc) {
      base_error_prefix(p->err, "perfetto_manifest");
      return rc;
    }
  } else {
    memcpy(s, p->tok.ptr, len);
  }
  if (memchr(s, 0, len))
    return manifest_fail(p->err, WEFT_EPARSE,
                         "%s%s must not contain NUL characters", ctx, field);
  s[len] = 0;
  *out = s;
  return WEFT_OK;
}

static int mp_string(manifest_parser *p, const char *ctx, const char *field,
                     const char **out) {
  int rc = mp_next(p);
  if (rc) return rc;
  if (p->tok.type != JSON_TOK_STRING)
    return manifest_fail(p->err, WEFT_EPARSE, "%s%s must be a string", ctx, field);
  return mp_copy_token(p, ctx, field, out);
}

static int mp_clock(manifest_parser *p, const char *ctx, const char *field,
                    uint32_t *clock) {
  const char *name;
  int rc = mp_string(p, ctx, field, &name);
  if (rc) return rc;
  *clock = manifest_clock_from_name(name, strlen(name));
  if (*clock != MANIFEST_CLOCK_NONE) return WEFT_OK;
  char shown[MANIFEST_SHOW_MAX + 8];
  return manifest_fail(
      p->err, WEFT_EPARSE,
      "unknown clock name: %s. Use one of REALTIME, REALTIME_COARSE, "
      "MONOTONIC, MONOTONIC_COARSE, MONOTONIC_RAW, BOOTTIME.",
      manifest_show(name, shown, sizeof shown));
}

/* ---- document shell: {"perfetto_manifest": <body>, ...} ---- */

typedef int (*mp_body_fn)(manifest_parser *p);

static int mp_document(manifest_parser *p, const char *data, size_t len,
                       mp_body_fn body) {
  int rc = json_tokenizer_init(&p->t, data, len, p->limits, p->err);
  if (rc) return rc;
  if ((rc = mp_next(p))) return rc;
  if (p->tok.type != JSON_TOK_OBJECT_BEGIN)
    return manifest_fail(p->err, WEFT_EPARSE, "the document must be a JSON object");
  static const char *const names[] = {"perfetto_manifest", NULL};
  unsigned seen = 0;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, "", &which))) return rc;
    if (which < 0) break;
    if ((rc = body(p))) return rc;
  }
  if (!seen)
    return manifest_fail(p->err, WEFT_EPARSE,
                         "missing required field: perfetto_manifest");
  if ((rc = mp_next(p))) return rc;  /* JSON_TOK_EOF: trailing bytes fail */
  return WEFT_OK;
}

/* ---- pass 1: version ---- */

static int mp_version_check(manifest_parser *p, bool have, bool not_int,
                            const json_token *v) {
  if (!have)
    return manifest_fail(p->err, WEFT_EPARSE, "missing required field: version");
  if (not_int)
    return manifest_fail(p->err, WEFT_EPARSE, "version must be an integer");
  if (!v->is_int)
    return manifest_fail(p->err, WEFT_EUNSUPPORTED,
                         "unsupported version: %.*s. Only version 1 is supported; "
                         "set \"version\": 1.",
                         (int)(v->len < 40 ? v->len : 40), v->ptr);
  if (v->i != 1)
    return manifest_fail(p->err, WEFT_EUNSUPPORTED,
                         "unsupported version: %lld. Only version 1 is supported; "
                         "set \"version\": 1.",
                         (long long)v->i);
  p->m->version = v->i;
  return WEFT_OK;
}

static int mp_version_body(manifest_parser *p) {
  int rc = mp_open(p, JSON_TOK_OBJECT_BEGIN, "", "perfetto_manifest");
  if (rc) return rc;
  static const char *const names[] = {"version", NULL};
  unsigned seen = 0;
  bool not_int = false;
  json_token version = {0};
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, "", &which))) return rc;
    if (which < 0) break;
    if ((rc = mp_next(p))) return rc;
    version = p->tok;
    not_int = version.type != JSON_TOK_NUMBER || !version.is_integral;
    if (version.type == JSON_TOK_OBJECT_BEGIN || version.type == JSON_TOK_ARRAY_BEGIN) {
      rc = json_skip_container(&p->t, p->err);
      if (rc) return mp_json_error(p, rc);
    }
  }
  return mp_version_check(p, seen != 0, not_int, &version);
}

/* ---- pass 2: fields ---- */

static int mp_trace_time(manifest_parser *p) {
  manifest_trace_time *tt = &p->m->trace_time;
  int rc = mp_open(p, JSON_TOK_OBJECT_BEGIN, "", "trace_time");
  if (rc) return rc;
  static const char *const names[] = {"clock", "file", "machine", NULL};
  static const char ctx[] = "trace_time: ";
  unsigned seen = 0;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, ctx, &which))) return rc;
    if (which < 0) break;
    if (which == 0) rc = mp_clock(p, ctx, "clock", &tt->clock);
    if (which == 1) rc = mp_string(p, ctx, "file", &tt->file);
    if (which == 2) rc = mp_string(p, ctx, "machine", &tt->machine);
    if (rc) return rc;
  }
  if (!(seen & 1))
    return manifest_fail(p->err, WEFT_EPARSE, "%smissing required field: clock", ctx);
  tt->present = true;
  return WEFT_OK;
}

static int mp_machine(manifest_parser *p, manifest_file *f) {
  int rc = mp_open(p, JSON_TOK_OBJECT_BEGIN, "", "machine");
  if (rc) return rc;
  static const char *const names[] = {"name", NULL};
  unsigned seen = 0;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, "machine: ", &which))) return rc;
    if (which < 0) break;
    if ((rc = mp_string(p, "machine: ", "name", &f->machine))) return rc;
  }
  if (!seen)
    return manifest_fail(p->err, WEFT_EPARSE, "machine: missing required field: name");
  if (!f->machine[0])
    return manifest_fail(p->err, WEFT_EPARSE, "machine: name must be non-empty");
  return WEFT_OK;
}

static int mp_machines_shape_error(manifest_parser *p) {
  return manifest_fail(p->err, WEFT_EPARSE,
                       "machines entries need an integer id and a string name, e.g. "
                       "\"machines\": [{\"id\": 0, \"name\": \"phone\"}].");
}

static int mp_machine_id(manifest_parser *p, uint32_t *id) {
  int rc = mp_next(p);
  if (rc) return rc;
  const json_token *t = &p->tok;
  if (t->type != JSON_TOK_NUMBER || !t->is_integral) return mp_machines_shape_error(p);
  if (!t->is_int || t->i < 0 || t->i > (int64_t)UINT32_MAX)
    return manifest_fail(p->err, WEFT_EPARSE,
                         "machines: id must be in [0, 4294967295]");
  *id = (uint32_t)t->i;
  return WEFT_OK;
}

static int mp_machines_entry(manifest_parser *p, manifest_machine *out) {
  static const char *const names[] = {"id", "name", NULL};
  static const char ctx[] = "machines: ";
  unsigned seen = 0;
  int rc;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, ctx, &which))) return rc;
    if (which < 0) break;
    if (which == 0) rc = mp_machine_id(p, &out->id);
    if (which == 1 && !(rc = mp_next(p)))
      rc = p->tok.type == JSON_TOK_STRING ? mp_copy_token(p, ctx, "name", &out->name)
                                           : mp_machines_shape_error(p);
    if (rc) return rc;
  }
  if (seen != 3) return mp_machines_shape_error(p);
  if (!out->name[0])
    return manifest_fail(p->err, WEFT_EPARSE, "%sname must be non-empty", ctx);
  return WEFT_OK;
}

static int manifest_cmp_machine_id(const void *a, const void *b) {
  uint32_t x = ((const manifest_machine *)a)->id;
  uint32_t y = ((const manifest_machine *)b)->id;
  return x < y ? -1 : x > y;
}

static int manifest_cmp_machine_name(const void *a, const void *b) {
  return strcmp(((const manifest_machine *)a)->name,
                ((const manifest_machine *)b)->name);
}

/* Moves the parsed machines into the arena: document order plus two sorted
 * copies; rejects duplicate ids. */
static int mp_store_machines(manifest_parser *p, manifest_file *f,
                             const manifest_machine_vec *v) {
  size_t n = v->len, bytes = n * sizeof(manifest_machine);
  manifest_machine *all = base_arena_alloc(&p->m->arena_, 3 * bytes + 1);
  if (!all) return manifest_nomem(p->err);
  if (n) {
    memcpy(all, v->data, bytes);
    memcpy(all + n, v->data, bytes);
    memcpy(all + 2 * n, v->data, bytes);
  }
  qsort(all + n, n, sizeof *all, manifest_cmp_machine_id);
  qsort(all + 2 * n, n, sizeof *all, manifest_cmp_machine_name);
  for (size_t i = 1; i < n; i++)
    if (all[n + i].id == all[n + i - 1].id)
      return manifest_fail(p->err, WEFT_EPARSE, "machines: duplicate id %u",
                           (unsigned)all[n + i].id);
  f->machines = all;
  f->machines_by_id_ = all + n;
  f->machines_by_name_ = all + 2 * n;
  f->machine_count = n;
  return WEFT_OK;
}

static int mp_machines(manifest_parser *p, manifest_file *f) {
  int rc = mp_open(p, JSON_TOK_ARRAY_BEGIN, "", "machines");
  if (rc) return rc;
  manifest_machine_vec v = {0};
  for (;;) {
    if ((rc = mp_next(p))) break;
    if (p->tok.type == JSON_TOK_ARRAY_END) break;
    if (p->tok.type != JSON_TOK_OBJECT_BEGIN) {
      rc = mp_machines_shape_error(p);
      break;
    }
    manifest_machine entry = {0};
    if ((rc = mp_machines_entry(p, &entry))) break;
    if (VEC_PUSH(v, entry)) {
      rc = manifest_nomem(p->err);
      break;
    }
  }
  if (!rc) rc = mp_store_machines(p, f, &v);
  f->has_machines = true;
  VEC_FREE(v);
  return rc;
}

/* Reads offset_ns; a bad value is reported (as *problem) only after the
 * sync_to checks, as Perfetto orders them. */
static int mp_offset_ns(manifest_parser *p, int64_t *out, const char **problem) {
  int rc = mp_next(p);
  if (rc) return rc;
  const json_token *t = &p->tok;
  if (t->type == JSON_TOK_OBJECT_BEGIN || t->type == JSON_TOK_ARRAY_BEGIN) {
    rc = json_skip_container(&p->t, p->err);
    if (rc) return mp_json_error(p, rc);
  }
  if (t->type != JSON_TOK_NUMBER || !t->is_integral)
    *problem = "offset_ns must be an integer";
  else if (!t->is_int || t->i == INT64_MIN)
    *problem = "offset_ns is out of range";
  else
    *out = t->i;
  return WEFT_OK;
}

static int mp_sync_to(manifest_parser *p, manifest_sync_to *s) {
  static const char ctx[] = "clocks: ";
  int rc = mp_open(p, JSON_TOK_OBJECT_BEGIN, ctx, "sync_to");
  if (rc) return rc;
  static const char *const names[] = {"file", "machine", "clock", NULL};
  unsigned seen = 0;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, "clocks: sync_to: ", &which))) return rc;
    if (which < 0) break;
    if (which == 0) rc = mp_string(p, ctx, "sync_to.file", &s->file);
    if (which == 1) rc = mp_string(p, ctx, "sync_to.machine", &s->machine);
    if (which == 2) rc = mp_clock(p, ctx, "sync_to.clock", &s->clock);
    if (rc) return rc;
  }
  if (!s->file && s->machine)
    return manifest_fail(p->err, WEFT_EPARSE,
                         "%sa machine name alone is ambiguous, name the file too", ctx);
  if (!s->file)
    return manifest_fail(p->err, WEFT_EPARSE, "%ssync_to.file is required and must be a "
                         "string", ctx);
  return WEFT_OK;
}

static int mp_clocks(manifest_parser *p, manifest_clocks *c) {
  static const char ctx[] = "clocks: ";
  int rc = mp_open(p, JSON_TOK_OBJECT_BEGIN, "", "clocks");
  if (rc) return rc;
  static const char *const names[] = {"clock", "machine", "sync_to", "offset_ns", NULL};
  unsigned seen = 0;
  const char *offset_problem = NULL;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, ctx, &which))) return rc;
    if (which < 0) break;
    if (which == 0) rc = mp_clock(p, ctx, "clock", &c->clock);
    if (which == 1) rc = mp_string(p, ctx, "machine", &c->machine);
    if (which == 2) rc = mp_sync_to(p, &c->sync_to);
    if (which == 3) rc = mp_offset_ns(p, &c->offset_ns, &offset_problem);
    if (rc) return rc;
  }
  if (!(seen & 4))
    return manifest_fail(p->err, WEFT_EPARSE, "%sa sync_to block is required. Manual clock "
                         "handling relates this file to a clock in another trace, e.g. "
                         "\"sync_to\": {\"file\": \"other.pb\"}.", ctx);
  if (offset_problem)
    return manifest_fail(p->err, WEFT_EPARSE, "%s%s", ctx, offset_problem);
  return WEFT_OK;
}

static int mp_file(manifest_parser *p, manifest_file *f) {
  static const char *const names[] = {"path", "machine", "machines", "clocks", NULL};
  static const char ctx[] = "files: ";
  unsigned seen = 0;
  int rc;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, ctx, &which))) return rc;
    if (which < 0) break;
    if (which == 0) rc = mp_string(p, ctx, "path", &f->path);
    if (which == 1) rc = mp_machine(p, f);
    if (which == 2) rc = mp_machines(p, f);
    if (which == 3) rc = mp_clocks(p, &f->clocks);
    if (rc) return rc;
  }
  if (!f->path)
    return manifest_fail(p->err, WEFT_EPARSE, "%smissing required field: path", ctx);
  if (!f->path[0])
    return manifest_fail(p->err, WEFT_EPARSE, "%spath must be non-empty", ctx);
  if ((seen & 2) && (seen & 4))
    return manifest_fail(p->err, WEFT_EPARSE,
                         "machine and machines are mutually exclusive");
  f->has_clocks = (seen & 8) != 0;
  return WEFT_OK;
}

static int mp_files(manifest_parser *p) {
  int rc = mp_open(p, JSON_TOK_ARRAY_BEGIN, "", "files");
  if (rc) return rc;
  for (;;) {
    if ((rc = mp_next(p))) return rc;
    if (p->tok.type == JSON_TOK_ARRAY_END) return WEFT_OK;
    if (p->tok.type != JSON_TOK_OBJECT_BEGIN)
      return manifest_fail(p->err, WEFT_EPARSE, "files: each entry must be an object");
    manifest_file f;
    memset(&f, 0, sizeof f);
    if ((rc = mp_file(p, &f))) return rc;
    if (VEC_PUSH(p->files, f)) return manifest_nomem(p->err);
  }
}

static int mp_attribute(manifest_parser *p) {
  manifest_attribute a = {0};
  int rc = mp_copy_token(p, "attributes: ", "key", &a.key);
  if (rc) return rc;
  if (!a.key[0])
    return manifest_fail(p->err, WEFT_EPARSE, "attributes: keys must be non-empty");
  if ((rc = mp_next(p))) return rc;
  if (p->tok.type == JSON_TOK_STRING) {
    rc = mp_copy_token(p, "attributes: ", "value", &a.str_value);
  } else if (p->tok.type == JSON_TOK_NUMBER && p->tok.is_int) {
    a.is_int = true;
    a.int_value = p->tok.i;
  } else {
    char shown[MANIFEST_SHOW_MAX + 8];
    return manifest_fail(p->err, WEFT_EPARSE,
                         "attributes: '%s' must be a string or an integer",
                         manifest_show(a.key, shown, sizeof shown));
  }
  if (rc) return rc;
  return VEC_PUSH(p->attributes, a) ? manifest_nomem(p->err) : WEFT_OK;
}

static int mp_attributes(manifest_parser *p) {
  int rc = mp_next(p);
  if (!rc && p->tok.type != JSON_TOK_OBJECT_BEGIN)
    rc = manifest_fail(p->err, WEFT_EPARSE,
                       "attributes must be an object of string or integer values, e.g. "
                       "\"attributes\": {\"benchmark\": \"startup\"}.");
  while (!rc && !(rc = mp_next(p)) && p->tok.type != JSON_TOK_OBJECT_END)
    rc = mp_attribute(p);
  return rc;
}

/* weft's own field (Perfetto ignores it): "nearest" or "linear". */
static int mp_weft_interpolation(manifest_parser *p) {
  const char *name;
  int rc = mp_string(p, "", "weft_clock_interpolation", &name);
  if (rc) return rc;
  if (!strcmp(name, "nearest")) p->m->weft_clock_interpolation = MANIFEST_INTERPOLATION_NEAREST;
  else if (!strcmp(name, "linear")) p->m->weft_clock_interpolation = MANIFEST_INTERPOLATION_LINEAR;
  else
    return manifest_fail(p->err, WEFT_EPARSE,
                         "weft_clock_interpolation must be \"nearest\" or \"linear\"");
  return WEFT_OK;
}

static int mp_manifest_body(manifest_parser *p) {
  int rc = mp_open(p, JSON_TOK_OBJECT_BEGIN, "", "perfetto_manifest");
  if (rc) return rc;
  static const char *const names[] = {"version", "trace_time", "files", "attributes",
                                      "weft_clock_interpolation", NULL};
  unsigned seen = 0;
  for (;;) {
    int which;
    if ((rc = mp_member(p, names, &seen, "", &which))) return rc;
    if (which < 0) return WEFT_OK;
    if (which != p->section) rc = mp_skip_value(p); /* version: checked by pass 1 */
    else if (which == MP_TRACE_TIME) rc = mp_trace_time(p);
    else if (which == MP_FILES) rc = mp_files(p);
    else if (which == MP_ATTRIBUTES) rc = mp_attributes(p);
    else rc = mp_weft_interpolation(p);
    if (rc) return rc;
  }
}

/* ---- cross-reference validation ---- */

static int manifest_cmp_file_path(const void *a, const void *b) {
  return strcmp((*(const manifest_file *const *)a)->path,
                (*(const manifest_file *const *)b)->path);
}

static int manifest_index_files(manifest *m, base_error *err) {
  m->files_by_path_ = base_arena_alloc(&m->arena_, m->file_count * sizeof(void *) + 1);
  if (!m->files_by_path_) return manifest_nomem(err);
  for (size_t i = 0; i < m->file_count; i++) m->files_by_path_[i] = &m->files[i];
  qsort(m->files_by_path_, m->file_count, sizeof(void *), manifest_cmp_file_path);
  for (size_t i = 1; i < m->file_count; i++) {
    if (strcmp(m->files_by_path_[i]->path, m->files_by_path_[i - 1]->path)) continue;
    char shown[MANIFEST_SHOW_MAX + 8];
    return manifest_fail(err, WEFT_EPARSE, "files: duplicate entry for path '%s'",
                         manifest_show(m->files_by_path_[i]->path, shown, sizeof shown));
  }
  return WEFT_OK;
}

static int manifest_check_trace_time(const manifest *m, base_error *err) {
  const manifest_trace_time *tt = &m->trace_time;
  char a[MANIFEST_SHOW_MAX + 8], b[MANIFEST_SHOW_MAX + 8];
  if (tt->machine && !tt->file)
    return manifest_fail(err, WEFT_EPARSE,
                         "trace_time: a machine name alone is ambiguous, name the file too");
  if (!tt->file) return WEFT_OK;
  const manifest_file *f = manifest_find_file(m, tt->file);
  if (!f)
    return manifest_fail(err, WEFT_EPARSE,
                         "trace_time: file names unknown file '%s'. It must match "
                         "the `path` of an entry in the `files` array.",
                         manifest_show(tt->file, a, sizeof a));
  if (tt->machine && !manifest_file_declares_machine(f, tt->machine))
    return manifest_fail(err, WEFT_EPARSE,
                         "trace_time: machine '%s' is not a machine declared by file '%s'.",
                         manifest_show(tt->machine, a, sizeof a),
                         manifest_show(f->path, b, sizeof b));
  return WEFT_OK;
}

/* Resolves sync_to.file and checks the machines named by a clocks block. */
static int manifest_check_clocks(manifest *m, manifest_file *f, base_error *err) {
  manifest_clocks *c = &f->clocks;
  char a[MANIFEST_SHOW_MAX + 8], b[MANIFEST_SHOW_MAX + 8];
  const manifest_file *ref = manifest_find_file(m, c->sync_to.file);
  if (!ref)
    return manifest_fail(err, WEFT_EPARSE,
                         "clocks: sync_to.file names unknown file '%s'. It must match "
                         "the `path` of an entry in the `files` array.",
                         manifest_show(c->sync_to.file, a, sizeof a));
  c->sync_to.file_index = (size_t)(ref - m->files);
  if (c->machine && !manifest_file_declares_machine(f, c->machine))
    return manifest_fail(err, WEFT_EPARSE,
                         "clocks: machine '%s' is not a machine declared by file '%s'.",
                         manifest_show(c->machine, a, sizeof a),
                         manifest_show(f->path, b, sizeof b));
  if (c->sync_to.machine && !manifest_file_declares_machine(ref, c->sync_to.machine))
    return manifest_fail(err, WEFT_EPARSE,
                         "clocks: sync_to.machine '%s' is not a machine declared by "
                         "file '%s'.",
                         manifest_show(c->sync_to.machine, a, sizeof a),
                         manifest_show(ref->path, b, sizeof b));
  return WEFT_OK;
}

static size_t manifest_sync_next(const manifest *m, size_t i) {
  return m->files[i].has_clocks ? m->files[i].clocks.sync_to.file_index : SIZE_MAX;
}

static int manifest_report_cycle(const manifest *m, size_t start, base_error *err) {
  char text[700], shown[MANIFEST_SHOW_MAX + 8];
  size_t n = 0, i = start;
  do {
    int w = snprintf(text + n, sizeof text - n, "%s -> ",
                     manifest_show(m->files[i].path, shown, sizeof shown));
    if (w < 0 || (size_t)w >= sizeof text - n - 8) {
      text[n] = 0;
      strcat(text + n, "... -> ");
      n += 7;
      break;
    }
    n += (size_t)w;
    i = manifest_sync_next(m, i);
  } while (i != start);
  snprintf(text + n, sizeof text - n, "%s",
           manifest_show(m->files[start].path, shown, sizeof shown));
  return manifest_fail(err, WEFT_EPARSE, "clocks: sync_to forms a cycle: %s", text);
}

/* Each file has at most one sync_to edge, so following the chain from every
 * unvisited file, tagging nodes with the walk they belong to, finds any
 * cycle in O(n). */
static int manifest_check_cycles(const manifest *m, base_error *err) {
  size_t n = m->file_count;
  size_t *walk = base_calloc(n + 1, sizeof *walk);
  if (!walk) return manifest_nomem(err);
  int rc = WEFT_OK;
  for (size_t s = 0; s < n && !rc; s++) {
    size_t i = s;
    while (i != SIZE_MAX && walk[i] == 0) {
      walk[i] = s + 1;
      i = manifest_sync_next(m, i);
    }
    if (i != SIZE_MAX && walk[i] == s + 1) rc = manifest_report_cycle(m, i, err);
  }
  base_free(walk);
  return rc;
}

static int manifest_validate(manifest *m, base_error *err) {
  int rc = manifest_index_files(m, err);
  if (!rc) rc = manifest_check_trace_time(m, err);
  for (size_t i = 0; !rc && i < m->file_count; i++)
    if (m->files[i].has_clocks)
      rc = manifest_check_clocks(m, (manifest_file *)&m->files[i], err);
  if (!rc) rc = manifest_check_cycles(m, err);
  return rc;
}

/* ---- parse / free ---- */

static void *manifest_arena_copy(manifest *m, const void *data, size_t bytes) {
  void *copy = base_arena_alloc(&m->arena_, bytes + 1);
  if (copy && bytes) memcpy(copy, data, bytes);
  return copy;
}

static int mp_finish(manifest_parser *p) {
  manifest *m = p->m;
  manifest_file *files = manifest_arena_copy(m, p->files.data,
                                             p->files.len * sizeof(manifest_file));
  manifest_attribute *attrs = manifest_arena_copy(
      m, p->attributes.data, p->attributes.len * sizeof(manifest_attribute));
  if (!files || !attrs) return manifest_nomem(p->err);
  m->files = files;
  m->file_count = p->files.len;
  m->attributes = attrs;
  m->attribute_count = p->attributes.len;
  return manifest_validate(m, p->err);
}

int manifest_parse(const char *data, size_t len, manifest *out, base_error *err) {
  return manifest_parse_limited(data, len, NULL, out, err);
}

int manifest_parse_limited(const char *data, size_t len, const json_limits *limits,
                           manifest *out, base_error *err) {
  memset(out, 0, sizeof *out);
  base_arena_init(&out->arena_, 4096);
  manifest_parser p;
  memset(&p, 0, sizeof p);
  p.limits = limits;
  p.m = out;
  p.err = err;
  int rc = mp_document(&p, data, len, mp_version_body);
  json_tokenizer_free(&p.t);
  for (size_t i = 0; !rc && i < sizeof mp_sections / sizeof mp_sections[0]; i++) {
    p.section = mp_sections[i];
    rc = mp_document(&p, data, len, mp_manifest_body);
    json_tokenizer_free(&p.t);
  }
  if (!rc) rc = mp_finish(&p);
  VEC_FREE(p.files);
  VEC_FREE(p.attributes);
  if (rc) manifest_free(out);
  return rc;
}

void manifest_free(manifest *m) {
  base_arena_free(&m->arena_);
  memset(m, 0, sizeof *m);
}

/* ---- lookups ---- */

static int manifest_cmp_path_key(const void *key, const void *elem) {
  return strcmp((const char *)key, (*(const manifest_file *const *)elem)->path);
}

const manifest_file *manifest_find_file(const manifest *m, const char *path) {
  if (!m->file_count || !path) return NULL;
  const manifest_file *const *hit = bsearch(path, m->files_by_path_, m->file_count,
                                            sizeof(void *), manifest_cmp_path_key);
  return hit ? *hit : NULL;
}

const manifest_machine *manifest_file_find_machine_id(const manifest_file *f,
                                                      uint32_t id) {
  manifest_machine key = {.id = id, .name = NULL};
  if (!f->machine_count) return NULL;
  return bsearch(&key, f->machines_by_id_, f->machine_count, sizeof key,
                 manifest_cmp_machine_id);
}

const manifest_machine *manifest_file_find_machine_name(const manifest_file *f,
                                                        const char *name) {
  manifest_machine key = {.id = 0, .name = name};
  if (!f->machine_count || !name) return NULL;
  return bsearch(&key, f->machines_by_name_, f->machine_count, sizeof key,
                 manifest_cmp_machine_name);
}

bool manifest_file_declares_machine(const manifest_file *f, const char *name) {
  if (f->machine && strcmp(f->machine, name) == 0) return true;
  return manifest_file_find_machine_name(f, name) != NULL;
}

int manifest_check_machine_id(const manifest_file *f, uint32_t id,
                              base_error *err) {
  if (!f || !f->has_machines || manifest_file_find_machine_id(f, id)) return WEFT_OK;
  return manifest_fail(err, WEFT_EPARSE,
                       "machines: trace has a packet from undeclared machine id %u",
                       (unsigned)id);
}

int manifest_check_multi_machine(const manifest *m, const char *path,
                                 base_error *err) {
  const manifest_file *f = manifest_find_file(m, path);
  if (!f) return WEFT_OK;
  char shown[MANIFEST_SHOW_MAX + 8];
  manifest_show(f->path, shown, sizeof shown);
  if (f->has_clocks && !f->clocks.machine)
    return manifest_fail(err, WEFT_EPARSE,
                         "clocks: file '%s' is a multi-machine trace; name which "
                         "machine the clock is on with clocks: machine.",
                         shown);
  size_t index = (size_t)(f - m->files);
  for (size_t i = 0; i < m->file_count; i++) {
    const manifest_file *g = &m->files[i];
    if (g->has_clocks && g->clocks.sync_to.file_index == index &&
        !g->clocks.sync_to.machine)
      return manifest_fail(err, WEFT_EPARSE,
                           "clocks: sync_to.file '%s' is a multi-machine trace; also "
                           "name the machine with clocks: sync_to.machine",
                           shown);
  }
  return WEFT_OK;
}
