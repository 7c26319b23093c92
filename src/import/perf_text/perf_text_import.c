/* `perf script` text (and simpleperf's equivalent), trace type perf_text
 * (import_perf_text_ops).
 *
 * A sample is its first line (io/perf_text_line.h: comm, tid or pid/tid,
 * cpu, seconds), then one frame per line, leaf first, then an empty line.
 * A frame line, trimmed of spaces, tabs and newlines, is
 * "<address> <symbol>[+<offset>] (<mapping>)": the symbol is the text
 * between the first space and the last '(' cut at its last '+', the
 * mapping the text inside the last parentheses, which end the line.
 *
 * tokenize: walks the samples in file order, as Perfetto does, interning
 * as it reads them:
 *  - each mapping name once per file, as a mapping of its own (empty build
 *    id, range 0..-1, no offsets: Perfetto's dummy mapping);
 *  - each (mapping, symbol) as a frame at rel_pc 0 with its own
 *    stack_profile_symbol row (no file, no line);
 *  - the callsites root first, the root at depth 1 (Perfetto's count);
 * then pushes the sample at its time (MONOTONIC, the trace time clock of a
 * perf text file) with its callsite, ids and comm kept in the state.
 * A sample without frames counts perf_text_importer_sample_no_frames; a
 * line that is neither a sample's first line where one is due nor a frame
 * fails the load, naming the line (as Perfetto's importer does). A last
 * sample whose frames no empty line ends is not pushed (its frames stay),
 * nor is a last line without a newline read.
 * parse: the sample's thread (with its process when the line gives a pid),
 * named by the comm (and its process, for a main thread), and its
 * cpu_profile_stack_sample row (source "perf_text").
 * Nothing is read from f->data after tokenize: every chunk is given back. */
#include "clock/clock.h"
#include "import/importer.h"
#include "io/perf_text_line.h"
#include "model/columns.h"
#include "model/model.h"
#include "model/stack_profile.h"

#include <string.h>

/* The longest part of a bad line an error quotes. */
#define PERF_TEXT_CONTEXT_MAX 200

typedef struct perf_text_sample {
  uint32_t callsite, tid, pid;
  int has_pid;
  string_id comm; /* STRING_NULL: none */
} perf_text_sample;

typedef struct perf_text_state {
  uint32_t clock;
  string_id empty;
  base_map mappings;          /* interned mapping name -> mapping row */
  VEC(perf_text_sample) samples; /* by push order: an event's payload */
  VEC(uint32_t) frames;       /* the current sample's frames, leaf first */
  char *comm;                 /* a line's comm (as long as the longest line) */
  size_t comm_cap;
} perf_text_state;

/* A byte range of the file. */
typedef struct perf_text_span {
  const char *p;
  size_t n;
} perf_text_span;

static int pt_fail(base_error *err, const char *what, perf_text_span line) {
  int n = line.n > PERF_TEXT_CONTEXT_MAX ? PERF_TEXT_CONTEXT_MAX : (int)line.n;
  return base_error_set(err, WEFT_EPARSE, "Perf text parser: %s (context: '%.*s')", what, n,
                        line.p);
}

static int pt_is_trimmed(char c) { return c == ' ' || c == '\t' || c == '\n'; }

static perf_text_span pt_trim(perf_text_span s) {
  while (s.n && pt_is_trimmed(s.p[0])) s.p++, s.n--;
  while (s.n && pt_is_trimmed(s.p[s.n - 1])) s.n--;
  return s;
}

/* The next newline-ended line from *off, or 0 at the end. */
static int pt_next_line(const import_file *f, size_t *off, perf_text_span *line) {
  if (*off >= f->len) return 0;
  const char *s = (const char *)f->data + *off;
  const char *nl = memchr(s, '\n', f->len - *off);
  if (!nl) return 0;
  *line = (perf_text_span){s, (size_t)(nl - s)};
  *off += line->n + 1;
  return 1;
}

/* The dummy mapping named name[0, len), made on its first use in the file. */
static int pt_mapping(import_file *f, perf_text_state *st, perf_text_span name,
                      uint32_t *mapping) {
  stack_profile_mapping_spec spec = {0};
  int rc = ctx_intern(f->ctx, name.p, name.n, &spec.name);
  if (rc) return rc;
  uint64_t *known = base_map_find(&st->mappings, spec.name);
  if (known) return *mapping = (uint32_t)*known, WEFT_OK;
  spec.build_id = st->empty;
  spec.end = -1;
  rc = stack_profile_mapping_new(f->ctx, &spec, mapping);
  uint64_t *slot;
  if (!rc && base_map_insert(&st->mappings, spec.name, *mapping, &slot) < 0) rc = WEFT_ENOMEM;
  return rc;
}

/* Interns the frame of one (trimmed, not empty) frame line. */
static int pt_frame(import_file *f, perf_text_state *st, perf_text_span frame,
                    base_error *err) {
  const char *space = memchr(frame.p, ' ', frame.n);
  if (!space) return pt_fail(err, "unable to find symbol in frame", frame);
  size_t open = frame.n;
  while (open > 0 && frame.p[open - 1] != '(') open--;
  if (open == 0 || frame.p[frame.n - 1] != ')')
    return pt_fail(err, "unable to find mapping in frame", frame);
  size_t sym_at = (size_t)(space - frame.p), sym_end = open - 1;
  if (sym_end < sym_at) sym_end = frame.n; /* a '(' before the first space */
  perf_text_span symbol = pt_trim((perf_text_span){frame.p + sym_at, sym_end - sym_at});
  for (size_t i = symbol.n; i-- > 0;)
    if (symbol.p[i] == '+') {
      symbol.n = i;
      break;
    }
  uint32_t mapping, id;
  string_id name;
  int rc = pt_mapping(f, st, (perf_text_span){frame.p + open, frame.n - 1 - open}, &mapping);
  if (!rc) rc = ctx_intern(f->ctx, symbol.p, symbol.n, &name);
  if (!rc) rc = stack_profile_symbol_frame(f->ctx, mapping, name, STRING_NULL, -1, &id);
  if (!rc && VEC_PUSH(st->frames, id)) rc = WEFT_ENOMEM;
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

/* The callsite of the sample's frames, root (the last line) first. */
static int pt_callsite(trace_context *ctx, const perf_text_state *st, uint32_t *leaf) {
  int64_t parent = -1;
  for (size_t i = st->frames.len, depth = 1; i-- > 0; depth++) {
    int rc = stack_profile_callsite_at_depth(ctx, parent, st->frames.data[i], (int64_t)depth,
                                             leaf);
    if (rc) return rc;
    parent = *leaf;
  }
  return WEFT_OK;
}

/* Makes the comm buffer hold a line of n bytes. */
static int pt_comm_room(perf_text_state *st, size_t n) {
  if (n <= st->comm_cap) return WEFT_OK;
  char *grown = base_realloc(st->comm, n);
  if (!grown) return WEFT_ENOMEM;
  st->comm = grown;
  st->comm_cap = n;
  return WEFT_OK;
}

/* Queues a sample read in full (frames in st->frames). */
static int pt_push(import_file *f, perf_text_state *st, const io_perf_text_sample *head) {
  perf_text_sample s = {0, head->tid, head->pid, head->has_pid, STRING_NULL};
  int rc = pt_callsite(f->ctx, st, &s.callsite);
  if (!rc && head->comm_len) rc = ctx_intern(f->ctx, st->comm, head->comm_len, &s.comm);
  if (!rc && VEC_PUSH(st->samples, s)) rc = WEFT_ENOMEM;
  if (!rc) rc = import_push(f, head->ts, st->clock, st->samples.len - 1);
  return rc;
}

/* Reads the sample whose first line is `line`; *more is 0 once the file
 * ended inside it. */
static int pt_sample(import_file *f, perf_text_state *st, perf_text_span line, size_t *off,
                     int *more, base_error *err) {
  io_perf_text_sample head;
  int rc = pt_comm_room(st, line.n);
  if (rc) return base_error_alloc(err, rc);
  if (!io_perf_text_sample_line(line.p, line.n, &head, st->comm))
    return pt_fail(err, "unable to parse sample line", line);
  st->frames.len = 0;
  perf_text_span frame;
  for (;;) {
    if (!pt_next_line(f, off, &frame)) return *more = 0, WEFT_OK;
    frame = pt_trim(frame);
    if (frame.n == 0) break;
    rc = pt_frame(f, st, frame, err);
    if (rc) return rc;
  }
  if (st->frames.len == 0) rc = import_stat(f, stat_perf_text_importer_sample_no_frames, 1);
  else rc = pt_push(f, st, &head);
  return rc ? base_error_alloc(err, rc) : WEFT_OK;
}

static int pt_walk(import_file *f, perf_text_state *st, base_error *err) {
  size_t off = 0;
  int more = 1;
  perf_text_span line;
  while (more && pt_next_line(f, &off, &line)) {
    int rc = pt_sample(f, st, line, &off, &more, err);
    if (rc) return rc;
  }
  return WEFT_OK;
}

static int pt_tokenize(import_file *f, base_error *err) {
  perf_text_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = import_clock_alias(f, CLOCK_ID_MONOTONIC);
  if (!rc) rc = import_clock_anchor(f, st->clock);
  if (!rc) rc = ctx_metadata_file_type(f->ctx, f->trace_id, "perf_text");
  if (!rc) rc = ctx_metadata_trace_time(f->ctx, CLOCK_ID_MONOTONIC);
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  if (!rc) rc = ctx_intern(f->ctx, "", 0, &st->empty);
  if (rc) return base_error_alloc(err, rc);
  f->release_input = 1;
  return pt_walk(f, st, err);
}

/* The sample's thread. Unless a kernel trace in the load makes them the
 * idle ones (upid 0, utid 0), pid 0 and tid 0 are a process and a thread
 * of their own, made on first use (Perfetto reserves them for Linux
 * system traces only). */
static int pt_thread(import_file *f, const perf_text_sample *s, uint32_t *utid) {
  trace_context *ctx = f->ctx;
  uint32_t live;
  int rc = WEFT_OK;
  if (!ctx->pid_zero_is_idle && s->has_pid && s->pid == 0 &&
      model_process_find(ctx, f->machine, 0, &live) && live == 0)
    rc = model_process_start(ctx, f->machine, 0, -1, &live);
  if (!rc && !ctx->pid_zero_is_idle && s->tid == 0 &&
      model_thread_find(ctx, f->machine, 0, &live) && live == 0)
    rc = model_thread_start(ctx, f->machine, 0, -1, &live);
  if (rc) return rc;
  return s->has_pid ? model_thread_update(ctx, f->machine, s->tid, s->pid, utid)
                    : model_thread(ctx, f->machine, s->tid, utid);
}

static int pt_parse(import_file *f, const sort_event *ev, void *prepared, base_error *err) {
  (void)prepared;
  const perf_text_state *st = f->state;
  assert(ev->payload < st->samples.len);
  const perf_text_sample *s = &st->samples.data[ev->payload];
  uint32_t utid;
  int rc = pt_thread(f, s, &utid);
  if (!rc) rc = model_thread_set_name_and_main_process(f->ctx, utid, s->comm);
  if (!rc)
    rc = stack_profile_cpu_sample(f->ctx, STACK_PROFILE_CPU_PERF_TEXT, ev->ts, s->callsite, utid,
                                  0);
  return rc ? base_error_set(err, rc, "perf text: failed to add a sample") : WEFT_OK;
}

static void pt_destroy(import_file *f) {
  perf_text_state *st = f->state;
  if (!st) return;
  base_map_free(&st->mappings);
  VEC_FREE(st->samples);
  VEC_FREE(st->frames);
  base_free(st->comm);
  base_free(st);
  f->state = NULL;
}

const importer_ops import_perf_text_ops = {
    .trace_type = "perf_text",
    .tokenize = pt_tokenize,
    .parse = pt_parse,
    .destroy = pt_destroy,
};
