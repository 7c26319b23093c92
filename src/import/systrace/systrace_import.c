/* systrace / ftrace text traces (import_systrace_ops).
 *
 * tokenize: finds the text lines (inside the trace-data <script> blocks of
 * an HTML-wrapped systrace, else the whole file), parses each event line's
 * timestamp and pushes (ts, line offset). For a file up to 8 MiB whose
 * scan runs ahead on a worker, the scan does that walk and records the
 * lines, and tokenize pushes what it recorded. Timestamps are CLOCK_MONOTONIC
 * seconds: they are read on the file's private clock, aliased to this
 * machine's MONOTONIC (no clock_snapshot row) and anchored, so they follow
 * MONOTONIC when a snapshot relates it to trace time and are taken as-is
 * otherwise.
 * parse: re-parses the line and applies the events Perfetto's systrace
 * parser reads through model/sched.h, model/atrace.h and model/kslice.h;
 * only sched_switch gets a raw ftrace_event row, and every other line only
 * names its thread (and puts it in its tgid's process).
 * Input release: each pushed line holds its bytes (up to and including its
 * newline) from tokenize until it is parsed; nothing else of the file is
 * read after tokenize. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock/clock.h"
#include "import/importer.h"
#include "import/systrace/systrace.h"
#include "import/systrace/systrace_line.h"
#include "model/atrace.h"
#include "model/kcounter.h"
#include "model/kslice.h"
#include "model/sched.h"

/* The line limit when weft_options.max_line_bytes is 0. */
#define SYSTRACE_DEFAULT_MAX_LINE (16u << 20)

typedef struct systrace_state {
  uint32_t clock;
} systrace_state;

/* ---- tokenize ---- */

static uint32_t systrace_max_line_of(const weft_options *o) {
  return o && o->max_line_bytes ? o->max_line_bytes : SYSTRACE_DEFAULT_MAX_LINE;
}

static uint32_t systrace_max_line(const import_file *f) {
  return systrace_max_line_of(&f->ctx->options);
}

/* The error for a line longer than the limit: no more than limit + 1 bytes
 * of it were looked at. */
static int systrace_line_too_long(const char *text, size_t offset,
                                  uint32_t max, base_error *err) {
  size_t line = 1;
  for (const char *p = text, *stop = text + offset;
       (p = memchr(p, '\n', (size_t)(stop - p))) != NULL; p++)
    line++;
  return base_error_set(err, WEFT_ELIMIT,
                        "systrace: line %zu is longer than the line limit of "
                        "%u bytes (--max-line)", line, max);
}

/* Where parsing the line at text[i] stops reading: just past the first
 * newline at or after i, else the end of the text (text_len). */
static size_t systrace_line_stop(const char *text, size_t text_len, size_t i) {
  const char *nl = i < text_len ? memchr(text + i, '\n', text_len - i) : NULL;
  return nl ? (size_t)(nl - text) + 1 : text_len;
}

/* Where a pushed line at i ends for its hold: nl (the newline found before
 * `end`) or, past `end`, wherever parsing will stop. */
static size_t systrace_hold_stop(const char *text, size_t text_len, size_t end,
                                 const char *nl, size_t i) {
  if (nl) return (size_t)(nl - text) + 1;
  return systrace_line_stop(text, text_len, end > i ? end : i);
}

/* What a walk of the lines does with them: push an event line at `offset`
 * (its parse reads hold_len bytes from there), count one that does not
 * parse (only with count_failures; NULL otherwise). Non-zero stops the walk. */
typedef struct systrace_sink {
  int (*event)(void *user, size_t offset, int64_t ts, size_t hold_len);
  int (*failure)(void *user);
  void *user;
} systrace_sink;

/* Walks every line of text[begin, end) into the sink. A line longer than
 * `max` stops it with WEFT_ELIMIT and *too_long_at its offset; the newline
 * is looked for only within that limit. */
static int systrace_walk_lines(const char *text, size_t text_len, size_t begin, size_t end,
                               uint32_t max, int count_failures, const systrace_sink *sink,
                               size_t *too_long_at) {
  size_t i = begin;
  while (i < end) {
    size_t window = end - i <= max ? end - i : (size_t)max + 1;
    const char *nl = memchr(text + i, '\n', window);
    if (!nl && window > max) {
      *too_long_at = i;
      return WEFT_ELIMIT;
    }
    size_t line_end = nl ? (size_t)(nl - text) : end;
    systrace_line line;
    int rc = WEFT_OK;
    if (systrace_line_parse(text + i, line_end - i, &line))
      rc = sink->event(sink->user, i, line.ts,
                       systrace_hold_stop(text, text_len, end, nl, i) - i);
    else if (count_failures && !systrace_line_is_ignorable(text + i, line_end - i))
      rc = sink->failure(sink->user);
    if (rc) return rc;
    i = line_end + 1;
  }
  return WEFT_OK;
}

static const char *systrace_find(const char *s, size_t len, size_t from,
                                 const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = from; i + n <= len; i++)
    if (s[i] == needle[0] && memcmp(s + i, needle, n) == 0) return s + i;
  return NULL;
}

/* HTML: only the <script class="trace-data"> blocks hold trace text. */
static int systrace_walk_html(const char *s, size_t len, uint32_t max,
                              const systrace_sink *sink, size_t *too_long_at) {
  size_t pos = 0;
  for (;;) {
    const char *open = systrace_find(s, len, pos, "<script class=\"trace-data\"");
    if (!open) return WEFT_OK;
    const char *gt = memchr(open, '>', len - (size_t)(open - s));
    if (!gt) return WEFT_OK;
    size_t body = (size_t)(gt - s) + 1;
    const char *close = systrace_find(s, len, body, "</script>");
    size_t body_end = close ? (size_t)(close - s) : len;
    int rc = systrace_walk_lines(s, len, body, body_end, max, 0, sink, too_long_at);
    if (rc || !close) return rc;
    pos = body_end;
  }
}

static int systrace_starts_with_ci(const char *s, size_t len, const char *prefix) {
  size_t n = strlen(prefix);
  if (len < n) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != prefix[i]) return 0;
  }
  return 1;
}

static int systrace_is_html(const char *s, size_t len) {
  return systrace_starts_with_ci(s, len, "<!doctype html") ||
         systrace_starts_with_ci(s, len, "<html");
}

/* Whether a whole file is HTML-wrapped (after leading white space). */
static int systrace_file_is_html(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) i++;
  return systrace_is_html(s + i, len - i);
}

/* Walks the event lines of a whole file: those of its trace-data blocks
 * if it is HTML-wrapped, else all of them, counting the lines of a plain
 * text file that are neither events nor ignorable (Perfetto counts the lines
 * its tokenizer rejects in systrace_parse_failure). */
static int systrace_walk_file(const char *s, size_t len, uint32_t max,
                              const systrace_sink *sink, size_t *too_long_at) {
  if (systrace_file_is_html(s, len)) return systrace_walk_html(s, len, max, sink, too_long_at);
  return systrace_walk_lines(s, len, 0, len, max, 1, sink, too_long_at);
}

/* The sink of tokenize: pushes on `clock` with payload_base + offset, and
 * with `hold` (the text is f->data) holds each line's bytes. */
typedef struct systrace_push {
  import_file *f;
  uint32_t clock;
  uint64_t payload_base;
  int hold;
} systrace_push;

static int systrace_push_event(void *user, size_t offset, int64_t ts, size_t hold_len) {
  systrace_push *p = user;
  int rc = import_push(p->f, ts, p->clock, p->payload_base + offset);
  if (!rc && p->hold) import_input_hold(p->f, offset, hold_len);
  return rc;
}

static int systrace_push_failure(void *user) {
  systrace_push *p = user;
  return import_stat(p->f, stat_systrace_parse_failure, 1);
}

/* A walk's status as tokenize's: the line-limit error, or out of memory. */
static int systrace_walk_error(const char *text, size_t too_long_at, uint32_t max, int rc,
                               base_error *err) {
  if (rc == WEFT_ELIMIT) return systrace_line_too_long(text, too_long_at, max, err);
  return base_error_alloc(err, rc);
}

int systrace_text_tokenize(import_file *f, const char *text, size_t begin,
                           size_t end, uint32_t clock, uint64_t payload_base,
                           int count_failures, base_error *err) {
  systrace_push push = {f, clock, payload_base, 0};
  systrace_sink sink = {systrace_push_event, systrace_push_failure, &push};
  uint32_t max = systrace_max_line(f);
  size_t at = 0;
  int rc = systrace_walk_lines(text, end, begin, end, max, count_failures, &sink, &at);
  return systrace_walk_error(text, at, max, rc, err);
}

/* ---- scan: the file's walk run ahead on a worker (importer_ops.scan) ---- */

/* Event lines are recorded for files up to this size (16 bytes each);
 * tokenize walks larger ones itself. */
#define SYSTRACE_SCAN_FILE_MAX ((size_t)8 << 20)

typedef struct systrace_scanned_line {
  int64_t ts;
  size_t offset, hold_len;
} systrace_scanned_line;

typedef struct systrace_scan {
  int walked;   /* 0: nothing recorded, tokenize walks the file */
  int64_t failures; /* lines that are not events (systrace_parse_failure) */
  int status;   /* the walk's: WEFT_OK, or WEFT_ELIMIT at too_long_at */
  size_t too_long_at;
  VEC(systrace_scanned_line) lines; /* in walk order */
} systrace_scan;

static void systrace_scan_free(void *result) {
  systrace_scan *s = result;
  if (!s) return;
  VEC_FREE(s->lines);
  base_free(s);
}

static int systrace_scan_event(void *user, size_t offset, int64_t ts, size_t hold_len) {
  systrace_scan *s = user;
  systrace_scanned_line line = {ts, offset, hold_len};
  return VEC_PUSH(s->lines, line) ? WEFT_ENOMEM : WEFT_OK;
}

static int systrace_scan_failure(void *user) {
  ((systrace_scan *)user)->failures++;
  return WEFT_OK;
}

static int systrace_scan_run(const import_scan_input *in, void **result, base_error *err) {
  systrace_scan *s = base_calloc(1, sizeof *s);
  if (!s) return base_error_nomem(err);
  *result = s;
  if (in->in_turn || !in->options || in->len > SYSTRACE_SCAN_FILE_MAX) return WEFT_OK;
  systrace_sink sink = {systrace_scan_event, systrace_scan_failure, s};
  s->status = systrace_walk_file((const char *)in->data, in->len,
                                 systrace_max_line_of(in->options), &sink, &s->too_long_at);
  if (s->status == WEFT_ENOMEM) { /* tokenize walks it instead */
    VEC_FREE(s->lines);
    s->status = WEFT_OK;
    return WEFT_OK;
  }
  s->walked = 1;
  return WEFT_OK;
}

/* Pushes what the scan recorded, as the walk would have. */
static int systrace_tokenize_scanned(import_file *f, const systrace_scan *s, uint32_t clock,
                                     base_error *err) {
  if (s->failures && import_stat(f, stat_systrace_parse_failure, s->failures))
    return base_error_nomem(err);
  for (size_t i = 0; i < s->lines.len; i++) {
    const systrace_scanned_line *line = &s->lines.data[i];
    if (import_push(f, line->ts, clock, line->offset))
      return base_error_nomem(err);
    import_input_hold(f, line->offset, line->hold_len);
  }
  return systrace_walk_error((const char *)f->data, s->too_long_at, systrace_max_line(f),
                             s->status, err);
}

/* ---- a large file walked in chunks by the workers ---- */

/* A plain text file above SYSTRACE_SCAN_FILE_MAX is cut into chunks of
 * about this size, each ending just past a newline, which workers walk
 * ahead of tokenize (at most SYSTRACE_CHUNKS_AHEAD at once); tokenize then
 * pushes what they recorded, chunk by chunk: the lines, pushes and errors
 * of one walk of the file, since no line crosses a chunk's end. */
#define SYSTRACE_CHUNK_BYTES ((size_t)4 << 20)
#define SYSTRACE_CHUNKS_AHEAD 3

typedef struct systrace_chunk {
  const char *text;
  size_t text_len;
  size_t begin, end; /* the chunk: text[begin, end) */
  uint32_t max;      /* the line limit */
  scan_job *job;     /* its walk on a worker; NULL once taken */
} systrace_chunk;

/* A job: walks one chunk into a systrace_scan. */
static int systrace_chunk_run(void *arg, void **result, base_error *err) {
  const systrace_chunk *c = arg;
  systrace_scan *s = base_calloc(1, sizeof *s);
  if (!s) return base_error_nomem(err);
  systrace_sink sink = {systrace_scan_event, systrace_scan_failure, s};
  s->status = systrace_walk_lines(c->text, c->text_len, c->begin, c->end, c->max, 1, &sink,
                                  &s->too_long_at);
  if (s->status == WEFT_ENOMEM) {
    systrace_scan_free(s);
    return base_error_nomem(err);
  }
  s->walked = 1;
  *result = s;
  return WEFT_OK;
}

/* Where the chunk starting at `begin` ends: just past the first newline at
 * or after begin + SYSTRACE_CHUNK_BYTES, or the end of the text. */
static size_t systrace_chunk_end(const char *text, size_t len, size_t begin) {
  if (len - begin <= SYSTRACE_CHUNK_BYTES) return len;
  size_t from = begin + SYSTRACE_CHUNK_BYTES;
  const char *nl = memchr(text + from, '\n', len - from);
  return nl ? (size_t)(nl - text) + 1 : len;
}

/* Queues the walk of the chunk at `begin` into ring slot c; 1 when a
 * worker will walk it, 0 when the load has no workers or the queue failed
 * (tokenize walks it itself then). */
static int systrace_chunk_submit(import_file *f, systrace_chunk *c, size_t begin) {
  *c = (systrace_chunk){(const char *)f->data, f->len, begin,
                        systrace_chunk_end((const char *)f->data, f->len, begin),
                        systrace_max_line(f), NULL};
  scan_task task = {systrace_chunk_run, systrace_scan_free, c};
  if (import_task_submit(f, &task, &c->job)) c->job = NULL;
  return c->job != NULL;
}

/* Pushes chunk c's lines: what its job recorded, or its own walk. */
static int systrace_chunk_push(import_file *f, systrace_chunk *c, uint32_t clock,
                               base_error *err) {
  void *result = NULL;
  base_error jerr = {0};
  if (c->job && import_task_take(f, c->job, &result, &jerr)) result = NULL;
  c->job = NULL;
  if (result) {
    int rc = systrace_tokenize_scanned(f, result, clock, err);
    systrace_scan_free(result);
    return rc;
  }
  systrace_push push = {f, clock, 0, 1};
  systrace_sink sink = {systrace_push_event, systrace_push_failure, &push};
  size_t at = 0;
  int rc = systrace_walk_lines(c->text, c->text_len, c->begin, c->end, c->max, 1, &sink, &at);
  return systrace_walk_error(c->text, at, c->max, rc, err);
}

/* Tokenizes a plain text file chunk by chunk; *done = 0 (and nothing
 * pushed) when the load has no workers to walk them. */
static int systrace_tokenize_chunked(import_file *f, uint32_t clock, int *done,
                                     base_error *err) {
  systrace_chunk ring[SYSTRACE_CHUNKS_AHEAD];
  size_t head = 0, queued = 0, next = 0;
  *done = 0;
  if (!systrace_chunk_submit(f, &ring[0], 0)) return WEFT_OK;
  *done = 1;
  queued = 1;
  next = ring[0].end;
  int rc = WEFT_OK;
  while (queued && !rc) {
    while (queued < SYSTRACE_CHUNKS_AHEAD && next < f->len) {
      systrace_chunk *c = &ring[(head + queued++) % SYSTRACE_CHUNKS_AHEAD];
      systrace_chunk_submit(f, c, next);
      next = c->end;
    }
    rc = systrace_chunk_push(f, &ring[head], clock, err);
    head = (head + 1) % SYSTRACE_CHUNKS_AHEAD;
    queued--;
  }
  for (; queued; queued--, head = (head + 1) % SYSTRACE_CHUNKS_AHEAD)
    import_task_drop(f, ring[head].job);
  return rc;
}

/* ---- clock-sync markers ---- */

#define SYSTRACE_CLOCK_SYNC "trace_event_clock_sync: "

/* The marker whose text starts at `hit` (a line's args): "parent_ts=S"
 * (S seconds of the trace-event clock) or "name=ID", at line time ts of
 * MONOTONIC, the clock the text's timestamps are. */
static int systrace_clock_sync_line(import_file *f, uint32_t mono, const char *args,
                                    size_t len, int64_t ts) {
  const char *v;
  size_t vlen;
  int64_t parent;
  if (systrace_args_find(args, len, "parent_ts", &v, &vlen) &&
      systrace_parse_ts(v, vlen, &parent))
    return import_clock_sync_parent(f, mono, ts, parent);
  if (systrace_args_find(args, len, "name", &v, &vlen) && vlen)
    return import_clock_sync_named(f, mono, v, vlen, ts);
  return WEFT_OK;
}

/* Every "trace_event_clock_sync: " marker line of the file (a rare text:
 * one memmem pass over the bytes, in windows behind which a mapped file's
 * pages are given back), as clock-sync markers. */
#define SYSTRACE_SYNC_WINDOW ((size_t)4 << 20)

static int systrace_clock_sync_line_at(import_file *f, const char *hit, uint32_t *mono,
                                       int *have_mono) {
  const char *s = (const char *)f->data, *end = s + f->len;
  const size_t tag_len = sizeof SYSTRACE_CLOCK_SYNC - 1;
  const char *line = hit;
  while (line > s && line[-1] != '\n') line--;
  const char *nl = memchr(hit, '\n', (size_t)(end - hit));
  const char *line_end = nl ? nl : end;
  systrace_line l;
  if (!systrace_line_parse(line, (size_t)(line_end - line), &l) || l.args != hit)
    return WEFT_OK;
  if (!*have_mono && import_clock(f, 0, CLOCK_ID_MONOTONIC, mono)) return WEFT_ENOMEM;
  *have_mono = 1;
  hit += tag_len;
  return systrace_clock_sync_line(f, *mono, hit, (size_t)(line_end - hit), l.ts);
}

static int systrace_clock_sync_markers(import_file *f) {
  const char *s = (const char *)f->data, *end = s + f->len, *from = s;
  const size_t tag_len = sizeof SYSTRACE_CLOCK_SYNC - 1;
  uint32_t mono = 0;
  int have_mono = 0, rc = WEFT_OK;
  size_t given = 0;
  while (!rc && (size_t)(end - from) >= tag_len) {
    /* tags that start in [from, stop) */
    const char *stop =
        (size_t)(end - from) > SYSTRACE_SYNC_WINDOW ? from + SYSTRACE_SYNC_WINDOW : end;
    size_t span = (size_t)(end - stop) >= tag_len - 1 ? (size_t)(stop - from) + tag_len - 1
                                                       : (size_t)(end - from);
    const char *hit = memmem(from, span, SYSTRACE_CLOCK_SYNC, tag_len);
    if (!hit) {
      from = stop;
      import_input_passed(f, &given, (size_t)(from - s));
      continue;
    }
    rc = systrace_clock_sync_line_at(f, hit, &mono, &have_mono);
    from = hit + tag_len;
  }
  return rc;
}

static int systrace_tokenize(import_file *f, base_error *err) {
  systrace_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_nomem(err);
  f->state = st;
  f->ctx->pid_zero_is_idle = 1;
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = import_clock_alias(f, CLOCK_ID_MONOTONIC);
  if (!rc) rc = import_clock_anchor(f, st->clock);
  /* Perfetto's rows: the type, MONOTONIC as the trace-time clock when the
   * file is the first to set one, and the size. */
  if (!rc) rc = ctx_metadata_file_type(f->ctx, f->trace_id, "systrace");
  if (!rc) rc = ctx_metadata_trace_time(f->ctx, CLOCK_ID_MONOTONIC);
  if (!rc) rc = ctx_metadata_file_size(f->ctx, f->trace_id, f->len);
  if (!rc) rc = systrace_clock_sync_markers(f);
  if (rc) return base_error_alloc(err, rc);
  f->release_input = 1; /* each pushed line holds its bytes until parsed */
  const systrace_scan *scan = f->scan;
  if (scan && scan->walked) return systrace_tokenize_scanned(f, scan, st->clock, err);
  if (f->len > SYSTRACE_SCAN_FILE_MAX && !systrace_file_is_html((const char *)f->data, f->len)) {
    int chunked;
    rc = systrace_tokenize_chunked(f, st->clock, &chunked, err);
    if (rc || chunked) return rc;
  }
  systrace_push push = {f, st->clock, 0, 1};
  systrace_sink sink = {systrace_push_event, systrace_push_failure, &push};
  uint32_t max = systrace_max_line(f);
  size_t at = 0;
  rc = systrace_walk_file((const char *)f->data, f->len, max, &sink, &at);
  return systrace_walk_error((const char *)f->data, at, max, rc, err);
}

/* ---- parse ---- */

/* What kind of event a line is, for the parse's dispatch. */
enum systrace_kind {
  SYSTRACE_KIND_OTHER,
  SYSTRACE_KIND_SWITCH, /* sched_switch */
  SYSTRACE_KIND_MARK    /* tracing_mark_write, print, "0": an atrace marker */
};

/* A line decoded: what its parse reads, worked out by systrace_decode
 * either ahead on the merging thread (prepare) or by the parse itself.
 * Points into the text; owns nothing. */
typedef struct systrace_decoded {
  systrace_line line;
  int kind;                      /* enum systrace_kind */
  int switch_ok;                 /* SWITCH: both pids were read into sw */
  sched_switch_event sw;         /* SWITCH (sw.ts is set by the parse) */
  atrace_result mark_result;     /* MARK: atrace_parse of the args */
  atrace_point mark;
} systrace_decoded;

static int systrace_arg_int(const systrace_line *l, const char *key, int64_t *v) {
  const char *s;
  size_t n;
  return systrace_args_find(l->args, l->args_len, key, &s, &n) &&
         systrace_parse_int(s, n, v);
}

static int systrace_arg_str(const systrace_line *l, const char *key,
                            const char **s, size_t *n) {
  if (systrace_args_find(l->args, l->args_len, key, s, n)) return 1;
  *s = "";
  *n = 0;
  return 0;
}

static int systrace_event_is(const systrace_line *l, const char *name) {
  return l->event_len == strlen(name) && memcmp(l->event, name, l->event_len) == 0;
}

/* A sched_switch's args; 0 when a pid is missing (a parse failure). */
static int systrace_switch_read(const systrace_line *l, sched_switch_event *e) {
  const char *state;
  size_t state_len;
  memset(e, 0, sizeof *e);
  e->cpu = l->cpu;
  systrace_arg_str(l, "prev_comm", &e->prev_comm, &e->prev_comm_len);
  systrace_arg_str(l, "next_comm", &e->next_comm, &e->next_comm_len);
  systrace_arg_str(l, "prev_state", &state, &state_len);
  if (!systrace_arg_int(l, "prev_pid", &e->prev_pid) ||
      !systrace_arg_int(l, "next_pid", &e->next_pid))
    return 0;
  systrace_arg_int(l, "prev_prio", &e->prev_prio);
  systrace_arg_int(l, "next_prio", &e->next_prio);
  e->prev_state = sched_task_state_from_text(state, state_len);
  if (e->prev_state < 0) e->prev_state = 0xffff; /* invalid: shown as "?" */
  return 1;
}

/* Decodes the line at text[offset]; 0 when it is not an event line. Pure:
 * reads only the text and constant tables. */
static int systrace_decode(const char *text, size_t len, size_t offset, systrace_decoded *d) {
  if (offset >= len) return 0;
  const char *s = text + offset;
  size_t rest = len - offset;
  const char *nl = memchr(s, '\n', rest);
  systrace_line *l = &d->line;
  if (!systrace_line_parse(s, nl ? (size_t)(nl - s) : rest, l)) return 0;
  d->kind = SYSTRACE_KIND_OTHER;
  if (systrace_event_is(l, "sched_switch")) {
    d->kind = SYSTRACE_KIND_SWITCH;
    d->switch_ok = systrace_switch_read(l, &d->sw);
    return 1;
  }
  if (systrace_event_is(l, "tracing_mark_write") || systrace_event_is(l, "print") ||
      systrace_event_is(l, "0")) {
    d->kind = SYSTRACE_KIND_MARK;
    d->mark_result = atrace_parse(l->args, l->args_len, &d->mark);
  }
  return 1;
}

size_t systrace_text_prepare(const char *text, size_t len, size_t offset, void *out) {
  _Static_assert(sizeof(systrace_decoded) <= IMPORT_PREPARED_MAX,
                 "a decoded line fits a prepared slot");
  return systrace_decode(text, len, offset, out) ? sizeof(systrace_decoded) : 0;
}

typedef struct systrace_ctx {
  import_file *f;
  kernel_scope scope;
  const systrace_decoded *d;
  const systrace_line *line;
} systrace_ctx;

static int systrace_sched_switch(systrace_ctx *c) {
  if (!c->d->switch_ok) return WEFT_OK;
  sched_switch_event e = c->d->sw;
  e.ts = c->line->ts;
  return sched_switch(c->f->ctx, &c->scope, &e);
}

/* An atrace marker (decoded with the line). */
static int systrace_mark(systrace_ctx *c) {
  return atrace_apply_parsed(c->f->ctx, &c->scope, c->line->ts, c->line->tid,
                             c->d->mark_result, &c->d->mark);
}

/* The binder events that become kernel slices (model/kslice.h). Text
 * traces make no irq or softirq slices: Perfetto's line parser reads
 * neither. */
static int systrace_apply_binder(systrace_ctx *c) {
  trace_context *ctx = c->f->ctx;
  const systrace_line *l = c->line;
  const kernel_scope *sc = &c->scope;
  int64_t a = 0;
  const char *s;
  size_t n;
  if (systrace_event_is(l, "binder_transaction")) {
    kslice_binder_txn t = {0};
    int64_t reply = 0;
    if (!systrace_arg_int(l, "transaction", &t.id) ||
        !systrace_arg_int(l, "dest_node", &t.dest_node) ||
        !systrace_arg_int(l, "dest_proc", &t.dest_tgid) ||
        !systrace_arg_int(l, "dest_thread", &t.dest_tid))
      return WEFT_OK; /* Perfetto skips the line */
    systrace_arg_int(l, "reply", &reply);
    t.is_reply = reply == 1;
    /* flags are hex, with or without 0x (strtol base 16); the code as written */
    char hex[24] = "";
    if (systrace_arg_str(l, "flags", &s, &n) && n < sizeof hex) memcpy(hex, s, n), hex[n] = 0;
    t.flags = (uint32_t)strtoul(hex, NULL, 16);
    systrace_arg_str(l, "code", &t.code, &t.code_len);
    return kslice_binder_transaction(ctx, sc, l->ts, l->tid, &t);
  }
  if (systrace_event_is(l, "binder_transaction_received")) {
    if (!systrace_arg_int(l, "transaction", &a)) return WEFT_OK;
    return kslice_binder_received(ctx, sc, l->ts, l->tid, a);
  }
  int is_return = systrace_event_is(l, "binder_return");
  if (is_return || systrace_event_is(l, "binder_command")) {
    if (!systrace_args_find(l->args, l->args_len, "cmd", &s, &n)) return WEFT_OK;
    size_t w = 0;
    while (w < n && s[w] != ' ') w++; /* "0x7211 BR_FAILED_REPLY" */
    if (!systrace_parse_int(s, w, &a)) return WEFT_OK;
    return is_return ? kslice_binder_return(ctx, sc, l->ts, l->tid, (uint64_t)a)
                     : kslice_binder_command(ctx, sc, l->tid, (uint64_t)a);
  }
  if (systrace_event_is(l, "binder_lock"))
    return kslice_binder_lock(ctx, sc, l->ts, l->tid, KSLICE_BINDER_LOCK);
  if (systrace_event_is(l, "binder_locked"))
    return kslice_binder_lock(ctx, sc, l->ts, l->tid, KSLICE_BINDER_LOCKED);
  if (systrace_event_is(l, "binder_unlock"))
    return kslice_binder_lock(ctx, sc, l->ts, l->tid, KSLICE_BINDER_UNLOCK);
  return WEFT_OK;
}

/* A device counter line: its device from arg `dev_key`, its value from
 * `value_key` (both required). */
static int systrace_device_counter(systrace_ctx *c, kcounter_device_kind kind,
                                   const char *dev_key, const char *value_key) {
  const char *dev;
  size_t n;
  int64_t v;
  if (!systrace_args_find(c->line->args, c->line->args_len, dev_key, &dev, &n) ||
      !systrace_arg_int(c->line, value_key, &v))
    return WEFT_OK;
  return kcounter_device(c->f->ctx, &c->scope, c->line->ts, kind, dev, n, (double)v);
}

/* workqueue_execute_start: "work struct <addr>: function <name>". */
static int systrace_workqueue_start(systrace_ctx *c) {
  const systrace_line *l = c->line;
  static const char marker[] = "function ";
  const size_t mlen = sizeof marker - 1;
  for (size_t i = 0; i + mlen <= l->args_len; i++) {
    if (memcmp(l->args + i, marker, mlen) != 0) continue;
    const char *fn = l->args + i + mlen;
    size_t n = l->args_len - i - mlen;
    while (n && (fn[n - 1] == ' ' || fn[n - 1] == '\r')) n--;
    return kslice_workqueue(c->f->ctx, &c->scope, l->ts, l->tid, -1, fn, n);
  }
  return WEFT_OK;
}

/* The kernel counters and workqueue slices of text lines (model/kcounter.h,
 * model/kslice.h). */
static int systrace_apply_more(systrace_ctx *c) {
  const systrace_line *l = c->line;
  int64_t lo, hi, cpu;
  if (systrace_event_is(l, "cpu_frequency_limits")) {
    /* Old kernels print min= / max=, newer ones min_freq= / max_freq=. */
    if (!systrace_arg_int(l, "cpu_id", &cpu) || cpu < 0) return WEFT_OK;
    const char *old_key;
    size_t old_len;
    int has_lo = systrace_arg_int(
        l, systrace_args_find(l->args, l->args_len, "min", &old_key, &old_len) ? "min" : "min_freq",
        &lo);
    int has_hi = systrace_arg_int(
        l, systrace_args_find(l->args, l->args_len, "max", &old_key, &old_len) ? "max" : "max_freq",
        &hi);
    return kcounter_freq_limits(c->f->ctx, &c->scope, l->ts, (uint32_t)cpu,
                                has_lo ? (double)lo : NAN, has_hi ? (double)hi : NAN);
  }
  if (systrace_event_is(l, "clock_set_rate"))
    return systrace_device_counter(c, KCOUNTER_CLOCK_FREQUENCY, "name", "state");
  if (systrace_event_is(l, "clock_enable") || systrace_event_is(l, "clock_disable"))
    return systrace_device_counter(c, KCOUNTER_CLOCK_STATE, "name", "state");
  if (systrace_event_is(l, "thermal_temperature"))
    return systrace_device_counter(c, KCOUNTER_THERMAL_TEMPERATURE, "thermal_zone", "temp");
  if (systrace_event_is(l, "cdev_update"))
    return systrace_device_counter(c, KCOUNTER_COOLING_DEVICE, "type", "target");
  if (systrace_event_is(l, "rss_stat")) {
    /* As Perfetto's text parser: size and member required; the thread is
     * the line's (mm_id and curr are not used). */
    if (!systrace_arg_int(l, "size", &hi) || !systrace_arg_int(l, "member", &lo)) return WEFT_OK;
    return sched_rss_stat(c->f->ctx, &c->scope, l->ts, l->tid, lo, hi, -1, -1);
  }
  if (systrace_event_is(l, "workqueue_execute_start")) return systrace_workqueue_start(c);
  if (systrace_event_is(l, "workqueue_execute_end"))
    return kslice_workqueue(c->f->ctx, &c->scope, l->ts, l->tid, -1, NULL, 0);
  return WEFT_OK;
}

/* Applies a line other than sched_switch. Only the events Perfetto's
 * systrace line parser reads change the model; any other line (sched_wakeup,
 * irqs, task_newtask, block, mark_victim, ...) only names its thread. */
static int systrace_apply(systrace_ctx *c) {
  trace_context *ctx = c->f->ctx;
  const systrace_line *l = c->line;
  const kernel_scope *sc = &c->scope;
  int64_t a = 0, b = 0;
  const char *s;
  size_t n;
  if (c->d->kind == SYSTRACE_KIND_MARK) return systrace_mark(c);
  if (systrace_event_is(l, "sched_waking")) {
    if (!systrace_arg_int(l, "pid", &a)) return WEFT_OK;
    systrace_arg_str(l, "comm", &s, &n);
    return sched_waking(ctx, sc, l->ts, l->tid, a, n ? s : NULL, n, -1);
  }
  if (systrace_event_is(l, "cpu_frequency") || systrace_event_is(l, "cpu_idle")) {
    if (!systrace_arg_int(l, "state", &a) || !systrace_arg_int(l, "cpu_id", &b) || b < 0)
      return WEFT_OK;
    int freq = systrace_event_is(l, "cpu_frequency");
    return sched_cpu_counter(ctx, sc, l->ts, (uint32_t)b, freq ? "cpufreq" : "cpuidle",
                             freq ? "cpu_frequency" : "cpu_idle", (double)(uint32_t)a);
  }
  if (systrace_event_is(l, "sched_blocked_reason")) {
    if (!systrace_arg_int(l, "pid", &a)) return WEFT_OK;
    if (!systrace_arg_int(l, "iowait", &b)) b = -1;
    int has_fn = systrace_args_find(l->args, l->args_len, "caller", &s, &n);
    return sched_blocked_reason(ctx, sc, a, b, has_fn ? s : NULL, has_fn ? n : 0);
  }
  int rc = systrace_apply_binder(c);
  return rc ? rc : systrace_apply_more(c);
}

/* The line's task, as Perfetto reads it: the task's name goes to the
 * thread its tid names now (the newest), and only then does the tgid put
 * the tid in its process, which may pick (and bring forward) an older
 * thread of that tid. */
static int systrace_line_thread(systrace_ctx *c) {
  trace_context *ctx = c->f->ctx;
  const systrace_line *l = c->line;
  uint32_t utid;
  int unknown = l->task_len == 5 && memcmp(l->task, "<...>", 5) == 0;
  int rc = unknown || l->tid == 0 || l->task_len == 0
               ? model_thread(ctx, c->scope.machine, l->tid, &utid)
               : sched_thread(ctx, c->scope.machine, l->tid, l->task, l->task_len, &utid);
  if (rc || !l->has_tgid || l->tgid <= 0) return rc;
  return sched_thread_in_process(ctx, c->scope.machine, l->tid, l->tgid, &utid);
}

int systrace_text_parse(import_file *f, const char *text, size_t len, size_t offset,
                        int64_t ts, const void *prepared, base_error *err) {
  systrace_decoded decoded;
  const systrace_decoded *d = prepared;
  if (!d) {
    if (!systrace_decode(text, len, offset, &decoded)) return WEFT_OK;
    d = &decoded;
  }
  systrace_line line = d->line;
  line.ts = ts; /* trace time */
  systrace_ctx c = {f, {f->machine, f->trace_id}, d, &line};
  int rc = systrace_line_thread(&c);
  if (!rc && d->kind == SYSTRACE_KIND_SWITCH) rc = systrace_sched_switch(&c);
  else if (!rc) rc = systrace_apply(&c);
  if (rc == WEFT_EINVAL) return WEFT_OK; /* e.g. a cpu out of range */
  if (rc) return base_error_set(err, rc, "systrace: failed to apply a line");
  return WEFT_OK;
}

/* A line decoded ahead of its parse (importer_ops.prepare). */
static size_t systrace_prepare(const import_file *f, const sort_event *ev, void *out) {
  return systrace_text_prepare((const char *)f->data, f->len, (size_t)ev->payload, out);
}

/* Where a queued line starts (a prefetch hint): at its offset. */
static void systrace_locate_rule(const import_file *f, sort_locate_rule *rule) {
  *rule = (sort_locate_rule){f->data, f->len, ~UINT64_C(0), 0, {NULL, NULL}};
}

static int systrace_parse(import_file *f, const sort_event *ev, void *prepared,
                          base_error *err) {
  size_t offset = (size_t)ev->payload;
  int rc = systrace_text_parse(f, (const char *)f->data, f->len, offset, ev->ts, prepared, err);
  /* The same range tokenize held: the line and its newline. */
  if (offset < f->len)
    import_input_release(f, offset,
                         systrace_line_stop((const char *)f->data, f->len, offset) - offset);
  return rc;
}

static void systrace_destroy(import_file *f) {
  base_free(f->state);
  f->state = NULL;
}

const importer_ops import_systrace_ops = {
    .trace_type = "systrace",
    .scan = systrace_scan_run,
    .scan_free = systrace_scan_free,
    .tokenize = systrace_tokenize,
    .prepare = systrace_prepare,
    .locate_rule = systrace_locate_rule,
    .parse = systrace_parse,
    .end = NULL,
    .destroy = systrace_destroy,
};
