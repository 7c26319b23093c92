/* The latest time of a proto file (see proto_latest.h). */
#include "import/proto/proto_latest.h"

#include <assert.h>

void proto_latest_note_slow(proto_latest *l, uint32_t node, int64_t raw) {
  for (uint32_t i = 0; i < l->n; i++) {
    if (l->at[i].node != node) continue;
    if (raw > l->at[i].raw) l->at[i].raw = raw;
    l->last = i;
    return;
  }
  if (l->n == PROTO_LATEST_CLOCKS) return;
  l->at[l->n] = (proto_latest_at){node, raw};
  l->last = l->n++;
  assert(l->n <= PROTO_LATEST_CLOCKS);
}

int proto_latest_pick(import_file *f, const proto_latest *l, int64_t *raw, uint32_t *node) {
  int found = 0;
  int64_t best = 0;
  for (uint32_t i = 0; i < l->n; i++) {
    int64_t t;
    if (!import_clock_now(f, l->at[i].node, l->at[i].raw, &t)) continue;
    if (found && t <= best) continue;
    found = 1;
    best = t;
    *raw = l->at[i].raw;
    *node = l->at[i].node;
  }
  if (!found && l->n) { /* nothing placed yet: the clock noted last */
    *raw = l->at[l->last].raw;
    *node = l->at[l->last].node;
    found = 1;
  }
  return found;
}
