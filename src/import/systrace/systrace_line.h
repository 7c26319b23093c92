/* systrace_line: the grammar of one ftrace text line (systrace, atrace,
 * trace-cmd report), without any state.
 *
 *   <task>-<tid> [(<tgid>|-----)] [<cpu>] [<irq flags>] <secs>.<frac>: <event>: <args>
 *
 * task may hold spaces and dashes (the tid follows the last '-' before the
 * cpu column); the tgid column is optional and may be padded ("(  123)") or
 * unknown ("(-----)"); irq flags are 4 or 5 characters ("d..2", "dNsa.", hex
 * preempt counts) and may be glued to the timestamp ("....316.196720").
 * args are "key=value" pairs separated by spaces; a word without '=' belongs
 * to the previous value (comms with spaces) and "==>" is ignored.
 * Everything points into the caller's buffer; nothing is allocated. */
#ifndef WEFT_SYSTRACE_LINE_H
#define WEFT_SYSTRACE_LINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct systrace_line {
  const char *task;
  size_t task_len;
  int64_t tid;
  int64_t tgid;      /* valid when has_tgid */
  int has_tgid;
  uint32_t cpu;
  int64_t ts;        /* nanoseconds */
  const char *event;
  size_t event_len;
  const char *args;  /* the rest of the line after "<event>: " */
  size_t args_len;
} systrace_line;

/* 1 and *out for an event line, 0 for anything else (headers, blanks,
 * continuation text, malformed lines). */
int systrace_line_parse(const char *s, size_t len, systrace_line *out);

/* 1 for lines that carry no event by design: blank, '#' comments, the
 * "cpus=N" and "TRACE:" headers. */
int systrace_line_is_ignorable(const char *s, size_t len);

/* Seconds text ("1234.000001", up to 9 fraction digits) to ns the way
 * Perfetto converts it (through a double, truncated: "16543.267459" is
 * 16543267458999); 0 if not a timestamp. */
int systrace_parse_ts(const char *s, size_t len, int64_t *ns);

typedef struct systrace_arg {
  const char *key;
  size_t key_len;
  const char *value;
  size_t value_len;
} systrace_arg;

/* Iterates the args; *pos starts at 0. Returns 1 with *out, 0 at the end. */
int systrace_args_next(const char *args, size_t len, size_t *pos,
                       systrace_arg *out);
/* Finds key's value in args; 1 if found. */
int systrace_args_find(const char *args, size_t len, const char *key,
                       const char **value, size_t *value_len);
/* Decimal (or 0x hex) integer; 1 on success. */
int systrace_parse_int(const char *s, size_t len, int64_t *out);

#endif
