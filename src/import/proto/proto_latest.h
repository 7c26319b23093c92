/* proto_latest: the latest time a proto file has reached, for the packets
 * that carry no timestamp of their own.
 *
 * Perfetto places an untimed packet at the latest trace time its file has
 * reached: the largest timestamp of any packet or event tokenized before
 * it, over every sequence and clock (not the time of its own sequence's
 * last packet). This tracker keeps, per clock node, the largest raw
 * timestamp pushed or read on it; proto_latest_pick converts each through
 * the clocks known so far and names the largest, so that the untimed
 * packet is pushed at exactly that event's (raw, node) and sorts after it.
 *
 * Invariants: at most PROTO_LATEST_CLOCKS clocks are tracked (a file with
 * more keeps the first ones: the maximum over them); `at[last]` is the
 * entry noted last, checked first. */
#ifndef WEFT_PROTO_LATEST_H
#define WEFT_PROTO_LATEST_H

#include <stdint.h>

#include "import/importer.h"

#define PROTO_LATEST_CLOCKS 16

typedef struct proto_latest_at {
  uint32_t node; /* clock node */
  int64_t raw;   /* the largest timestamp seen on it, in its units */
} proto_latest_at;

typedef struct proto_latest {
  uint32_t n, last;
  proto_latest_at at[PROTO_LATEST_CLOCKS];
} proto_latest;

void proto_latest_note_slow(proto_latest *l, uint32_t node, int64_t raw);

/* Notes that the file reached raw on clock node. */
static inline void proto_latest_note(proto_latest *l, uint32_t node, int64_t raw) {
  proto_latest_at *a = &l->at[l->last];
  if (l->n && a->node == node) {
    if (raw > a->raw) a->raw = raw;
    return;
  }
  proto_latest_note_slow(l, node, raw);
}

/* 1 with the (raw, node) of the latest time noted, compared in trace time
 * as the clocks known now place them (when none is placed yet, trace time
 * is unclaimed: the clock noted last); 0 when nothing was noted. */
int proto_latest_pick(import_file *f, const proto_latest *l, int64_t *raw, uint32_t *node);

#endif
