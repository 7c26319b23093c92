/* sort: orders every file's events into one stream by trace time.
 *
 * Owns one event queue per source (a tokenized trace file). Events are pushed
 * with raw timestamps and a clock node; sorter_run converts them through a
 * caller-supplied function, drops what cannot be converted (the converter
 * counts why), sorts each queue (stable natural merge sort: a queue made of
 * k ascending runs costs O(n log k), an ordered one a single scan) and merges
 * the queues with a tournament tree, so the cost per event is O(log sources)
 * and a source without events costs nothing.
 * Order: by timestamp, then source index (file order), then push order.
 *
 * Memory: a queued event takes 16 bytes (ts, payload) plus vector slack;
 * clocks are stored once per run of events that share one (8 bytes a run).
 * Sorting a queue that is out of order borrows a second buffer of its size. */
#ifndef WEFT_SORT_H
#define WEFT_SORT_H

#include "base/base.h"

/* An event as pushed and as emitted. */
typedef struct sort_event {
  int64_t ts;       /* raw when pushed; trace time when emitted */
  uint32_t clock;   /* clock node of the raw ts (push only; 0 when emitted) */
  uint32_t source;  /* set by the sorter */
  uint64_t payload; /* importer-defined (offset, kind...) */
} sort_event;

/* A queued event: the clock lives in the queue's clock runs. */
typedef struct sort_item {
  int64_t ts;
  uint64_t payload;
} sort_item;

/* `count` consecutive queued events read from clock node `clock`. */
typedef struct sort_clock_run {
  uint32_t clock;
  uint32_t count;
} sort_clock_run;

typedef struct sort_queue {
  VEC(sort_item) items;
  VEC(sort_clock_run) clocks;
} sort_queue;

typedef struct sorter {
  VEC(sort_queue) queues; /* index = source */
  uint64_t event_count;   /* pushed so far */
  uint64_t emitted;       /* emitted by the running sorter_run (see below) */
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
/* Events pushed and events emitted so far; safe to call from another thread
 * while sorter_run runs (emitted is published every few thousand events). */
void sorter_progress(const sorter *s, uint64_t *pushed, uint64_t *emitted);

#endif
