/* Lookups in the ftrace event descriptor table. See ftrace_desc.h. */
#include "model/ftrace_desc.h"

#include <string.h>

const ftrace_event_desc *ftrace_desc_by_id(uint32_t id) {
  size_t lo = 0, hi = ftrace_desc_event_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ftrace_desc_events[mid].id == id) return &ftrace_desc_events[mid];
    if (ftrace_desc_events[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

const ftrace_event_desc *ftrace_desc_by_name(const char *name, size_t len) {
  for (size_t i = 0; i < ftrace_desc_event_count; i++) {
    const char *n = ftrace_desc_events[i].name;
    if (strlen(n) == len && memcmp(n, name, len) == 0) return &ftrace_desc_events[i];
  }
  return NULL;
}

/* Reads the token at *s into out (a "-" token leaves out->name NULL);
 * advances *s past it and its separator. 0 at the end of the spec. */
static int ftrace_desc_next_token(const char **s, ftrace_field_desc *out) {
  const char *p = *s;
  if (!*p) return 0;
  const char *end = strchr(p, ' ');
  if (!end) end = p + strlen(p);
  *s = *end ? end + 1 : end;
  memset(out, 0, sizeof *out);
  if (end - p < 3 || end[-2] != ':') return 1; /* "-": an unused number */
  out->name = p;
  out->name_len = (size_t)(end - p - 2);
  out->type = end[-1] == 's' ? FTRACE_FIELD_STR
              : end[-1] == 'u' ? FTRACE_FIELD_UINT : FTRACE_FIELD_INT;
  return 1;
}

int ftrace_desc_field_at(const ftrace_event_desc *d, uint32_t number,
                         ftrace_field_desc *out) {
  if (!d || number == 0) return 0;
  const char *s = d->spec;
  for (uint32_t n = 1; ftrace_desc_next_token(&s, out); n++)
    if (n == number) return out->name != NULL;
  return 0;
}

int ftrace_desc_field_seek(const ftrace_event_desc *d, ftrace_desc_cursor *c,
                           uint32_t number, ftrace_field_desc *out) {
  if (!d || number == 0) return 0;
  if (!c->next || number <= c->number) {
    c->next = d->spec;
    c->number = 0;
  }
  while (c->number < number) {
    if (!ftrace_desc_next_token(&c->next, out)) return 0;
    c->number++;
  }
  return out->name != NULL;
}

uint32_t ftrace_desc_field_named(const ftrace_event_desc *d, const char *name,
                                 size_t len, ftrace_field_desc *out) {
  if (!d) return 0;
  ftrace_field_desc f;
  const char *s = d->spec;
  for (uint32_t n = 1; ftrace_desc_next_token(&s, &f); n++) {
    if (f.name && f.name_len == len && memcmp(f.name, name, len) == 0) {
      if (out) *out = f;
      return n;
    }
  }
  return 0;
}
