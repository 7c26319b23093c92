/* Collapsed stacks, the input of flame graph tools ("root;caller;leaf 12"
 * per line), trace type collapsed_stack (import_collapsed_stack_ops).
 *
 * A profile of counts without times: tokenize reads every line (the last
 * one too, newline or not) and writes the rows, as Perfetto's reader does;
 * nothing is queued for parse.
 *  - A line is trimmed of spaces, tabs and newlines; an empty one or one
 *    starting with '#' is skipped.
 *  - The first other line makes the file's profile (an
 *    __intrinsic_aggregate_profile row: scope "collapsed_stack_file", name
 *    "collapsed_stack samples", type "samples", unit "count") and its one
 *    mapping "[collapsed_stack]" (empty build id, range 0..-1).
 *  - The count is the text after the last space, read as strtoll reads a
 *    whole token (base_parse_i64); a line without such a space (or with
 *    it first), or whose count is not a number above 0, is skipped.
 *  - The frames are the ';'-separated names before it, root first (empty
 *    ones skipped): each name is one frame of the mapping (rel_pc 0, a
 *    stack_profile_symbol row of its own), the callsites are interned from
 *    the root at depth 0, and the leaf's gets an __intrinsic_aggregate_sample
 *    row of the count. */
#include "import/importer.h"
#include "model/model.h"
#include "model/stack_profile.h"

#include <string.h>

typedef struct collapsed_state {
  int has_profile;
  uint32_t profile, mapping;
} collapsed_state;

typedef struct collapsed_span {
  const char *p;
  size_t n;
} collapsed_span;

static int cs_is_trimmed(char c) { return c == ' ' || c == '\t' || c == '\n'; }

/* The file's profile and mapping, made by its first line to read. */
static int cs_profile(import_file *f, collapsed_state *st) {
  if (st->has_profile) return WEFT_OK;
  stack_profile_mapping_spec spec = {0};
  spec.end = -1;
  int rc = stack_profile_aggregate_profile(f->ctx, "collapsed_stack_file",
                                           "collapsed_stack samples", "samples", "count",
                                           &st->profile);
  if (!rc) rc = ctx_intern(f->ctx, "", 0, &spec.build_id);
  if (!rc) rc = ctx_intern(f->ctx, "[collapsed_stack]", 17, &spec.name);
  if (!rc) rc = stack_profile_mapping_new(f->ctx, &spec, &st->mapping);
  st->has_profile = !rc;
  return rc;
}

/* Interns the frames of stack[0, n) root first; *leaf: the last callsite
 * (-1 when there is no frame). */
static int cs_callsites(import_file *f, const collapsed_state *st, collapsed_span stack,
                        int64_t *leaf) {
  *leaf = -1;
  for (size_t i = 0; i < stack.n;) {
    const char *semi = memchr(stack.p + i, ';', stack.n - i);
    size_t end = semi ? (size_t)(semi - stack.p) : stack.n;
    if (end > i) {
      string_id name;
      uint32_t frame, callsite;
      int rc = ctx_intern(f->ctx, stack.p + i, end - i, &name);
      if (!rc) rc = stack_profile_symbol_frame(f->ctx, st->mapping, name, STRING_NULL, -1, &frame);
      if (!rc) rc = stack_profile_callsite(f->ctx, *leaf, frame, &callsite);
      if (rc) return rc;
      *leaf = callsite;
    }
    i = end + 1;
  }
  return WEFT_OK;
}

static int cs_line(import_file *f, collapsed_state *st, collapsed_span line) {
  while (line.n && cs_is_trimmed(line.p[0])) line.p++, line.n--;
  while (line.n && cs_is_trimmed(line.p[line.n - 1])) line.n--;
  if (line.n == 0 || line.p[0] == '#') return WEFT_OK;
  int rc = cs_profile(f, st);
  if (rc) return rc;
  size_t space = line.n;
  while (space > 0 && line.p[space - 1] != ' ') space--;
  if (space <= 1) return WEFT_OK;
  int64_t count, leaf;
  collapsed_span count_text = {line.p + space, line.n - space};
  if (!base_parse_i64(count_text.p, count_text.n, &count) || count <= 0) return WEFT_OK;
  rc = cs_callsites(f, st, (collapsed_span){line.p, space - 1}, &leaf);
  if (rc || leaf < 0) return rc;
  return stack_profile_aggregate_sample(f->ctx, st->profile, (uint32_t)leaf, (double)count);
}

static int cs_tokenize(import_file *f, base_error *err) {
  collapsed_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  int rc = ctx_metadata_file_type(f->ctx, f->trace_id, "collapsed_stack");
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  for (size_t off = 0; !rc && off < f->len;) {
    const char *s = (const char *)f->data + off;
    const char *nl = memchr(s, '\n', f->len - off);
    size_t n = nl ? (size_t)(nl - s) : f->len - off;
    rc = cs_line(f, st, (collapsed_span){s, n});
    off += n + 1;
  }
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

static void cs_destroy(import_file *f) {
  base_free(f->state);
  f->state = NULL;
}

const importer_ops import_collapsed_stack_ops = {
    .trace_type = "collapsed_stack",
    .tokenize = cs_tokenize,
    .destroy = cs_destroy,
};
