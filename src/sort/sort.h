/* sort: orders every file's events into one stream by trace time.
 *
 * Owns one event queue per source (a tokenized trace file). Events are pushed
 * with raw timestamps and a clock node; sort_run converts them through a
 * caller-supplied function, drops what cannot be converted (the converter
 * counts why), sorts each queue (stable; most are already in order) and
 * merges the queues with a binary heap, so the cost per event is
 * O(log sources) and a source without events costs nothing.
 * Order: by timestamp, then source index (file order), then push order. */
#ifndef WEFT_SORT_H
#define WEFT_SORT_H

#include "base/base.h"

typedef struct sort_event {
  int64_t ts;       /* raw when pushed; trace time once sorted */
  uint32_t clock;   /* clock node the raw ts is read from */
  uint32_t source;  /* set by the sorter */
  uint64_t payload; /* importer-defined (offset, kind...) */
} sort_event;

typedef struct sort_queue {
  VEC(sort_event) events;
} sort_queue;

typedef struct sorter {
  VEC(sort_queue) queues; /* index = source */
  uint64_t event_count;
} sorter;

/* Returns 0 and the converted ts, or non-zero to drop the event. */
typedef int (*sort_convert_fn)(void *user, uint32_t source, uint32_t clock,
                               int64_t ts, int64_t *out);
/* Receives events in order; non-zero stops the run with that status. */
typedef int (*sort_emit_fn)(void *user, const sort_event *event);

void sorter_init(sorter *s);
void sorter_free(sorter *s);
/* Creates a source; its events are pushed with sorter_push. */
int sorter_add_source(sorter *s, uint32_t *source);
int sorter_push(sorter *s, uint32_t source, int64_t ts, uint32_t clock,
                uint64_t payload);
/* Converts, sorts and emits every event, then empties the queues. */
int sorter_run(sorter *s, sort_convert_fn convert, sort_emit_fn emit,
               void *user);

#endif
