/* The task state text of raw sched_switch prev_state values (both ways).
 * See sched.h. */
#include "model/sched.h"

#include <stdlib.h>
#include <string.h>

/* ---- task states ---- */

enum {
  TS_S = 0x1, TS_D = 0x2, TS_T = 0x4, TS_t = 0x8, TS_X = 0x10, TS_Z = 0x20,
  TS_P = 0x40, TS_x = 0x80, TS_K = 0x100, TS_W = 0x200, TS_N = 0x400,
  TS_I = 0x4000, TS_PREEMPT = 0x8000, TS_INVALID = 0xffff
};

static int sched_kernel_at_least(const char *release, int major, int minor) {
  if (!release) return 0;
  char *end;
  long ma = strtol(release, &end, 10);
  long mi = *end == '.' ? strtol(end + 1, NULL, 10) : 0;
  return ma > major || (ma == major && mi >= minor);
}

static unsigned sched_parse_raw_state(int64_t raw_state, const char *release) {
  unsigned raw = (uint16_t)raw_state; /* the kernel's state is read as 16 bits */
  unsigned parsed = raw & 0x3f;
  if (sched_kernel_at_least(release, 4, 14)) {
    if (raw & 0x40) parsed |= TS_P;
    if (raw & 0x80) parsed |= TS_I;
    if (raw & 0x100) parsed |= TS_PREEMPT;
    return (raw & 0xfe00) ? TS_INVALID : parsed;
  }
  if (raw & 0x40) parsed |= TS_x;
  if (raw & 0x80) parsed |= TS_K;
  if (raw & 0x100) parsed |= TS_W;
  if (raw & 0x200) parsed |= TS_P;
  if (raw & 0x400) parsed |= TS_N;
  if (parsed == (TS_D | TS_N)) parsed = TS_I;
  if (sched_kernel_at_least(release, 4, 8) ? (raw & 0x1000) : (raw & 0x800))
    parsed |= TS_PREEMPT;
  return parsed;
}

static const struct { unsigned flag; char c; } sched_state_chars[] = {
    {TS_S, 'S'}, {TS_D, 'D'}, {TS_T, 'T'}, {TS_t, 't'}, {TS_X, 'X'},
    {TS_Z, 'Z'}, {TS_P, 'P'}, {TS_x, 'x'}, {TS_K, 'K'}, {TS_W, 'W'},
    {TS_N, 'N'}, {TS_I, 'I'}};

void sched_task_state_str(int64_t prev_state, const char *release, char separator,
                          char *out) {
  unsigned parsed = sched_parse_raw_state(prev_state, release);
  size_t pos = 0;
  if (parsed == TS_INVALID) {
    strcpy(out, "?");
    return;
  }
  if (!(parsed & ~(unsigned)TS_PREEMPT)) {
    out[pos++] = 'R';
    if (parsed & TS_PREEMPT) out[pos++] = '+';
  } else {
    for (size_t i = 0; i < sizeof sched_state_chars / sizeof *sched_state_chars; i++) {
      if (!(parsed & sched_state_chars[i].flag)) continue;
      if (pos + (pos && separator ? 2 : 1) > 3) break; /* at most three chars */
      if (pos && separator) out[pos++] = separator;
      out[pos++] = sched_state_chars[i].c;
    }
  }
  out[pos] = '\0';
}

int64_t sched_task_state_from_text(const char *s, size_t len) {
  if (len == 0) return -1;
  if (s[0] == 'R') return ((len >= 2 && s[1] == '+') ? 0x800 : 0) | SCHED_STATE_FROM_TEXT;
  unsigned parsed = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '|') continue;
    unsigned flag = 0;
    for (size_t j = 0; j < sizeof sched_state_chars / sizeof *sched_state_chars; j++)
      if (sched_state_chars[j].c == s[i]) flag = sched_state_chars[j].flag;
    if (!flag) return -1;
    parsed |= flag;
  }
  int64_t raw = parsed & 0x3f;
  if (parsed & TS_x) raw |= 0x40;
  if (parsed & TS_K) raw |= 0x80;
  if (parsed & TS_W) raw |= 0x100;
  if (parsed & TS_P) raw |= 0x200;
  if (parsed & TS_N) raw |= 0x400;
  if (parsed & TS_I) raw |= 0x2 | 0x400;
  return raw | SCHED_STATE_FROM_TEXT;
}
