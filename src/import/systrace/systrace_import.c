/* systrace / ftrace text traces (import_systrace_ops).
 *
 * tokenize: finds the text lines (inside the trace-data <script> blocks of
 * an HTML-wrapped systrace, else the whole file), parses each event line's
 * timestamp and pushes (ts, line offset). Timestamps are CLOCK_MONOTONIC
 * seconds: they are read on the file's private clock, related to this
 * machine's MONOTONIC at zero offset and anchored, so they follow MONOTONIC
 * when a snapshot relates it to trace time and are taken as-is otherwise.
 * parse: re-parses the line and applies it through model/sched.h and
 * model/atrace.h; every event also gets a raw ftrace_event row.
 * Input release: each pushed line holds its bytes (up to and including its
 * newline) from tokenize until it is parsed; nothing else of the file is
 * read after tokenize. */
#include <stdio.h>

#include "clock/clock.h"
#include "import/importer.h"
#include "import/systrace/systrace.h"
#include "import/systrace/systrace_line.h"
#include "model/atrace.h"
#include "model/ftrace_desc.h"
#include "model/kslice.h"
#include "model/sched.h"

/* The line limit when weft_options.max_line_bytes is 0. */
#define SYSTRACE_DEFAULT_MAX_LINE (16u << 20)

typedef struct systrace_state {
  uint32_t clock;
} systrace_state;

/* ---- tokenize ---- */

static uint32_t systrace_max_line(const import_file *f) {
  uint32_t max = f->ctx->options.max_line_bytes;
  return max ? max : SYSTRACE_DEFAULT_MAX_LINE;
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

/* Pushes every event line of text[begin, end) as (ts, payload_base + line
 * offset). With count_failures, lines that are neither blank, comments nor
 * headers but do not parse are counted in systrace_parse_failure. A line
 * longer than the --max-line limit fails with WEFT_ELIMIT; the newline is
 * looked for only within that limit. With `hold` (text is f->data, of
 * text_len bytes), each pushed line holds the bytes its parse will read. */
static int systrace_tokenize_lines(import_file *f, const char *text, size_t text_len,
                                   size_t begin, size_t end, uint32_t clock,
                                   uint64_t payload_base, int count_failures,
                                   int hold, base_error *err) {
  uint32_t max = systrace_max_line(f);
  size_t i = begin;
  while (i < end) {
    size_t window = end - i <= max ? end - i : (size_t)max + 1;
    const char *nl = memchr(text + i, '\n', window);
    if (!nl && window > max) return systrace_line_too_long(text, i, max, err);
    size_t line_end = nl ? (size_t)(nl - text) : end;
    systrace_line line;
    int rc = WEFT_OK;
    if (systrace_line_parse(text + i, line_end - i, &line)) {
      rc = import_push(f, line.ts, clock, payload_base + i);
      if (!rc && hold)
        import_input_hold(f, i, systrace_hold_stop(text, text_len, end, nl, i) - i);
    } else if (count_failures && !systrace_line_is_ignorable(text + i, line_end - i))
      rc = import_stat(f, stat_systrace_parse_failure, 1);
    if (rc) return base_error_set(err, rc, "out of memory");
    i = line_end + 1;
  }
  return WEFT_OK;
}

int systrace_text_tokenize(import_file *f, const char *text, size_t begin,
                           size_t end, uint32_t clock, uint64_t payload_base,
                           int count_failures, base_error *err) {
  return systrace_tokenize_lines(f, text, end, begin, end, clock, payload_base,
                                 count_failures, 0, err);
}

static int systrace_tokenize_range(import_file *f, size_t begin, size_t end,
                                   base_error *err) {
  systrace_state *st = f->state;
  return systrace_tokenize_lines(f, (const char *)f->data, f->len, begin, end,
                                 st->clock, 0, 0, 1, err);
}

static const char *systrace_find(const char *s, size_t len, size_t from,
                                 const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = from; i + n <= len; i++)
    if (s[i] == needle[0] && memcmp(s + i, needle, n) == 0) return s + i;
  return NULL;
}

/* HTML: only the <script class="trace-data"> blocks hold trace text. */
static int systrace_tokenize_html(import_file *f, base_error *err) {
  const char *s = (const char *)f->data;
  size_t pos = 0;
  for (;;) {
    const char *open = systrace_find(s, f->len, pos, "<script class=\"trace-data\"");
    if (!open) return WEFT_OK;
    const char *gt = memchr(open, '>', f->len - (size_t)(open - s));
    if (!gt) return WEFT_OK;
    size_t body = (size_t)(gt - s) + 1;
    const char *close = systrace_find(s, f->len, body, "</script>");
    size_t body_end = close ? (size_t)(close - s) : f->len;
    int rc = systrace_tokenize_range(f, body, body_end, err);
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

static int systrace_tokenize(import_file *f, base_error *err) {
  systrace_state *st = base_calloc(1, sizeof *st);
  if (!st) return base_error_set(err, WEFT_ENOMEM, "out of memory");
  f->state = st;
  uint32_t mono;
  uint64_t ids[2] = {CLOCK_ID_FILE_PRIVATE, CLOCK_ID_MONOTONIC};
  int64_t zero[2] = {0, 0};
  int rc = import_clock_private(f, &st->clock);
  if (!rc) rc = import_clock(f, 0, ids[1], &mono);
  if (!rc) rc = import_clock_snapshot(f, 0, ids, zero, 2);
  if (!rc) rc = import_clock_anchor(f, st->clock);
  if (rc) return base_error_set(err, rc, "out of memory");
  f->release_input = 1; /* each pushed line holds its bytes until parsed */
  size_t i = 0;
  while (i < f->len && (f->data[i] == ' ' || f->data[i] == '\n' || f->data[i] == '\r' ||
                        f->data[i] == '\t'))
    i++;
  if (systrace_is_html((const char *)f->data + i, f->len - i))
    return systrace_tokenize_html(f, err);
  return systrace_tokenize_range(f, 0, f->len, err);
}

/* ---- parse ---- */

typedef struct systrace_ctx {
  import_file *f;
  kernel_scope scope;
  const systrace_line *line;
} systrace_ctx;

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

/* The raw row: typed args for described events, strings otherwise. */
static int systrace_raw(systrace_ctx *c, uint32_t utid) {
  trace_context *ctx = c->f->ctx;
  const systrace_line *l = c->line;
  char name[128];
  if (l->event_len >= sizeof name) return WEFT_OK;
  memcpy(name, l->event, l->event_len);
  name[l->event_len] = '\0';
  const ftrace_event_desc *d = ftrace_desc_by_name(l->event, l->event_len);
  int rc = WEFT_OK;
  if (d && (systrace_event_is(l, "print") || systrace_event_is(l, "tracing_mark_write"))) {
    rc = model_arg_string(ctx, "buf", 3, l->args, l->args_len, MODEL_ARG_STRING);
  } else {
    size_t pos = 0;
    systrace_arg a;
    while (!rc && systrace_args_next(l->args, l->args_len, &pos, &a)) {
      const ftrace_field_desc *fd = d ? ftrace_desc_field(d, a.key, a.key_len, NULL) : NULL;
      int64_t v;
      if (fd && fd->type != FTRACE_FIELD_STR && systrace_parse_int(a.value, a.value_len, &v))
        rc = model_arg_int(ctx, a.key, a.key_len,
                           fd->type == FTRACE_FIELD_UINT ? MODEL_ARG_UINT : MODEL_ARG_INT, v);
      else
        rc = model_arg_string(ctx, a.key, a.key_len, a.value, a.value_len, MODEL_ARG_STRING);
    }
  }
  if (rc) {
    model_args_discard(ctx);
    return rc;
  }
  return sched_raw_event(ctx, c->scope.machine, l->ts, l->cpu, utid, name, -1);
}

static int systrace_sched_switch(systrace_ctx *c) {
  const systrace_line *l = c->line;
  sched_switch_event e;
  memset(&e, 0, sizeof e);
  const char *state;
  size_t state_len;
  e.ts = l->ts;
  e.cpu = l->cpu;
  systrace_arg_str(l, "prev_comm", &e.prev_comm, &e.prev_comm_len);
  systrace_arg_str(l, "next_comm", &e.next_comm, &e.next_comm_len);
  systrace_arg_str(l, "prev_state", &state, &state_len);
  if (!systrace_arg_int(l, "prev_pid", &e.prev_pid) ||
      !systrace_arg_int(l, "next_pid", &e.next_pid))
    return kernel_stat(c->f->ctx, &c->scope, stat_systrace_parse_failure, 1);
  systrace_arg_int(l, "prev_prio", &e.prev_prio);
  systrace_arg_int(l, "next_prio", &e.next_prio);
  e.prev_state = sched_task_state_from_text(state, state_len);
  if (e.prev_state < 0) e.prev_state = 0xffff; /* invalid: shown as "?" */
  return sched_switch(c->f->ctx, &c->scope, &e);
}

/* Events that become kernel slices (model/kslice.h). */
static int systrace_apply_kslice(systrace_ctx *c) {
  trace_context *ctx = c->f->ctx;
  const systrace_line *l = c->line;
  const kernel_scope *sc = &c->scope;
  int64_t a = 0, b = 0;
  const char *s;
  size_t n;
  if (systrace_event_is(l, "binder_transaction")) {
    if (!systrace_arg_int(l, "transaction", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    int64_t reply = 0;
    systrace_arg_int(l, "reply", &reply);
    systrace_arg_int(l, "flags", &b);
    return kslice_binder_transaction(ctx, sc, l->ts, l->tid, a, reply != 0, (uint64_t)b);
  }
  if (systrace_event_is(l, "binder_transaction_received")) {
    if (!systrace_arg_int(l, "transaction", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    return kslice_binder_received(ctx, sc, l->ts, l->tid, a);
  }
  if (systrace_event_is(l, "binder_return")) {
    if (!systrace_args_find(l->args, l->args_len, "cmd", &s, &n)) return WEFT_OK;
    size_t w = 0;
    while (w < n && s[w] != ' ') w++; /* "0x7211 BR_FAILED_REPLY" */
    if (!systrace_parse_int(s, w, &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    return kslice_binder_return(ctx, sc, l->ts, l->tid, (uint64_t)a);
  }
  if (systrace_event_is(l, "irq_handler_entry")) {
    systrace_arg_str(l, "name", &s, &n);
    return kslice_irq_entry(ctx, sc, l->ts, l->cpu, s, n);
  }
  if (systrace_event_is(l, "irq_handler_exit")) return kslice_irq_exit(ctx, sc, l->ts, l->cpu);
  if (systrace_event_is(l, "softirq_entry")) {
    if (!systrace_arg_int(l, "vec", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    return kslice_softirq_entry(ctx, sc, l->ts, l->cpu, a);
  }
  if (systrace_event_is(l, "softirq_exit")) return kslice_softirq_exit(ctx, sc, l->ts, l->cpu);
  return WEFT_OK;
}

static int systrace_apply(systrace_ctx *c, uint32_t utid) {
  trace_context *ctx = c->f->ctx;
  const systrace_line *l = c->line;
  const kernel_scope *sc = &c->scope;
  int64_t a = 0, b = 0;
  const char *s;
  size_t n;
  if (systrace_event_is(l, "tracing_mark_write") || systrace_event_is(l, "print") ||
      systrace_event_is(l, "0"))
    return atrace_print(ctx, sc, l->ts, l->tid, l->args, l->args_len);
  if (systrace_event_is(l, "sched_wakeup") || systrace_event_is(l, "sched_waking")) {
    if (!systrace_arg_int(l, "pid", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    systrace_arg_str(l, "comm", &s, &n);
    return sched_waking(ctx, sc, l->ts, l->tid, a, n ? s : NULL, n, -1);
  }
  if (systrace_event_is(l, "cpu_frequency") || systrace_event_is(l, "cpu_idle")) {
    if (!systrace_arg_int(l, "state", &a) || !systrace_arg_int(l, "cpu_id", &b) || b < 0)
      return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    int freq = systrace_event_is(l, "cpu_frequency");
    return sched_cpu_counter(ctx, sc, l->ts, (uint32_t)b, freq ? "cpufreq" : "cpuidle",
                             freq ? "cpu_frequency" : "cpu_idle", (double)(uint32_t)a);
  }
  if (systrace_event_is(l, "sched_blocked_reason")) {
    if (!systrace_arg_int(l, "pid", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    if (!systrace_arg_int(l, "iowait", &b)) b = -1;
    int has_fn = systrace_args_find(l->args, l->args_len, "caller", &s, &n);
    return sched_blocked_reason(ctx, sc, a, b, has_fn ? s : NULL, has_fn ? n : 0);
  }
  if (systrace_event_is(l, "task_newtask")) {
    if (!systrace_arg_int(l, "pid", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    systrace_arg_int(l, "clone_flags", &b);
    systrace_arg_str(l, "comm", &s, &n);
    return sched_task_newtask(ctx, sc, l->ts, l->tid, a, s, n, (uint64_t)b);
  }
  if (systrace_event_is(l, "task_rename")) {
    if (!systrace_arg_int(l, "pid", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    systrace_arg_str(l, "newcomm", &s, &n);
    return sched_task_rename(ctx, sc, a, s, n);
  }
  if (systrace_event_is(l, "sched_process_free")) {
    if (!systrace_arg_int(l, "pid", &a)) return kernel_stat(ctx, sc, stat_systrace_parse_failure, 1);
    return sched_process_free(ctx, sc, l->ts, a);
  }
  (void)utid;
  return systrace_apply_kslice(c);
}

static int systrace_line_thread(systrace_ctx *c, uint32_t *utid) {
  trace_context *ctx = c->f->ctx;
  const systrace_line *l = c->line;
  int rc = l->has_tgid && l->tgid > 0
               ? sched_thread_in_process(ctx, c->scope.machine, l->tid, l->tgid, utid)
               : model_thread(ctx, c->scope.machine, l->tid, utid);
  if (rc) return rc;
  int unknown = l->task_len == 5 && memcmp(l->task, "<...>", 5) == 0;
  if (unknown || l->tid == 0 || l->task_len == 0) return WEFT_OK;
  return sched_thread(ctx, c->scope.machine, l->tid, l->task, l->task_len, utid);
}

int systrace_text_parse(import_file *f, const char *text, size_t len,
                        size_t offset, int64_t ts, base_error *err) {
  if (offset >= len) return WEFT_OK;
  const char *s = text + offset;
  size_t rest = len - offset;
  const char *nl = memchr(s, '\n', rest);
  systrace_line line;
  if (!systrace_line_parse(s, nl ? (size_t)(nl - s) : rest, &line)) return WEFT_OK;
  line.ts = ts; /* trace time */
  systrace_ctx c = {f, {f->machine, f->trace_id}, &line};
  uint32_t utid;
  int rc = systrace_line_thread(&c, &utid);
  if (!rc && systrace_event_is(&line, "sched_switch")) rc = systrace_sched_switch(&c);
  else if (!rc) {
    rc = systrace_raw(&c, utid);
    if (!rc) rc = systrace_apply(&c, utid);
  }
  if (rc == WEFT_EINVAL) return WEFT_OK; /* e.g. a cpu out of range */
  if (rc) return base_error_set(err, rc, "systrace: failed to apply a line");
  return WEFT_OK;
}

static int systrace_parse(import_file *f, const sort_event *ev, void *prepared,
                          base_error *err) {
  (void)prepared;
  size_t offset = (size_t)ev->payload;
  int rc = systrace_text_parse(f, (const char *)f->data, f->len, offset, ev->ts, err);
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
    .tokenize = systrace_tokenize,
    .parse = systrace_parse,
    .end = NULL,
    .destroy = systrace_destroy,
};
