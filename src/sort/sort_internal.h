/* sort_internal: what sort.c and sort_run.c share.
 *
 * sort.c owns the queues, their conversion and order, and the merge of
 * lanes; sort_run.c runs them: the queues' sorts on several threads and
 * the merge on a thread of its own, ahead of the emitting one, with output
 * identical to one thread's. */
#ifndef WEFT_SORT_INTERNAL_H
#define WEFT_SORT_INTERNAL_H

#include "sort/sort.h"

/* Where merged events go: prepared (when the run has a prepare step),
 * then emitted. */
typedef struct sort_sink {
  sort_prepare_fn prepare;   /* NULL: events are emitted as merged */
  size_t prepare_max;
  sort_emit_prepared_fn emit;
  void *user;
  void *scratch;             /* prepare's output on one thread */
} sort_sink;

/* Frees every queue (after a run, or when it cannot start). */
void sorter_free_queues(sorter *s);
/* Converts a queue's timestamps to trace time, dropping what convert
 * refuses. */
void sort_convert_queue(sort_queue *q, sort_convert_fn convert, void *user);
/* Emits one merged event into a sink on this thread (prepared first). */
int sort_sink_emit(void *arg, const sort_event *e);
/* Sorts one queue's events into trace time order. */
int sort_queue_order(sort_queue *q);
/* Emits every event in merge order. `publish`: keep s->emitted current
 * (else the caller does, as the events are really parsed). */
int sort_merge_emit(sorter *s, sort_emit_fn emit, void *user, int publish);
/* Sorts every queue, on up to s->threads threads. */
int sort_queues_in_order(sorter *s);
/* Merges (and prepares) on a second thread while this one emits into
 * `sink`; falls back to one thread when one cannot be started. */
int sort_merge_emit_pipelined(sorter *s, sort_sink *sink);

#endif
