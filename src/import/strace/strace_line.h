/* strace_line: the grammar of one line of `strace -f -ttt` output, without
 * any state (the rules of Perfetto's strace importer, as its shell reads).
 *
 *   [<pid> ]<secs>[.<usecs>] <call>(<args>) = <ret>
 *   [<pid> ]<secs>[.<usecs>] <call>(<args> <unfinished ...>
 *   [<pid> ]<secs>[.<usecs>] <... <call> resumed> <args>) = <ret>
 *   [<pid> ]<secs>[.<usecs>] <... <call> resumed> <args> <unfinished ...>
 *
 * The pid is a leading run of 1 to 9 digits (10 digits and more are epoch
 * seconds); the timestamp must be Unix epoch seconds (`-ttt`): a token with
 * a ':' is a `-t`/`-tt` time of day, which has no date. The fraction is
 * read as microseconds whatever its number of digits (at most 999999).
 * The call's args end at the first ')' that white space and '=' follow;
 * the return value is the rest after that '=' (a `-T` "<secs>" suffix
 * stays in it). Signal ("--- SIG... ---"), exit ("+++ ... +++"), bracketed
 * "[pid N]" and strace's own lines are not syscall lines.
 * Everything points into the caller's buffer; nothing is allocated. */
#ifndef WEFT_STRACE_LINE_H
#define WEFT_STRACE_LINE_H

#include <stddef.h>
#include <stdint.h>

typedef enum strace_kind {
  STRACE_COMPLETE,          /* a call with its return value */
  STRACE_UNFINISHED,        /* "<unfinished ...>": a call that goes on */
  STRACE_RESUMED,           /* "<... x resumed>": ends an unfinished call */
  STRACE_RESUMED_UNFINISHED /* both: ends one call and starts the next */
} strace_kind;

typedef enum strace_status {
  STRACE_LINE_OK,
  STRACE_LINE_FAILURE,       /* not a syscall line (strace_parse_failure) */
  STRACE_LINE_TIME_OF_DAY    /* a `-t`/`-tt` timestamp
                                (strace_unsupported_timestamp_format) */
} strace_status;

typedef struct strace_line {
  int has_pid;
  uint32_t pid;
  int64_t ts;          /* epoch nanoseconds */
  strace_kind kind;
  const char *call;    /* the syscall's name (may be empty) */
  size_t call_len;
  const char *args;    /* trimmed; args_len 0: none */
  size_t args_len;
  const char *ret;     /* valid when has_ret (trimmed) */
  size_t ret_len;
  int has_ret;
} strace_line;

/* Parses the line s[0, len) (its newline excluded or not). */
strace_status strace_line_parse(const char *s, size_t len, strace_line *out);

#endif
