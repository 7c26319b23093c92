/* sort: orders every file's events into one stream by trace time.
 *
 * Events are pushed per source (a tokenized trace file) into a lane: lane
 * SORT_LANE(machine, 0) holds a machine's general events, SORT_LANE(machine,
 * cpu + 1) its ftrace events of one cpu (Perfetto's sorter queues). sort_run
 * converts raw timestamps through a caller-supplied function, drops what
 * cannot be converted (the converter counts why), joins each lane's events
 * of all sources into one queue ordered by (ts, source, push order) and
 * merges the lanes as Perfetto does: take the lane with the earliest head
 * (the lowest lane on ties), emit its events up to and including the
 * earliest head of any other lane, repeat. So at equal timestamps a lane
 * that is already "running" keeps going; with one lane per source this is
 * plain (ts, source, push order). An event pushed as a run break (data
 * without a timestamp of its own, placed at its neighbour's) ends the run it
 * is emitted in, so it never carries later events ahead of other lanes. A
 * heap keeps the lane heads, so the cost per emitted run is O(log lanes).
 * With several threads (sorter_set_threads) the output is the same. */
#ifndef WEFT_SORT_H
#define WEFT_SORT_H

#include "base/base.h"

typedef struct sort_event {
  int64_t ts;       /* raw when pushed; trace time once sorted */
  uint32_t clock;   /* clock node the raw ts is read from */
  uint32_t source;  /* set by the sorter (the top bit is internal) */
  uint64_t payload; /* importer-defined (offset, kind...) */
} sort_event;

/* Lane of machine row `machine` (< 2^19): cpu_lane 0 = general events,
 * cpu + 1 = that cpu's ftrace events (cpu < 8191). Larger values clamp. */
#define SORT_MAX_CPU_LANE 8191u
static inline uint32_t sort_lane(uint32_t machine, uint32_t cpu_lane) {
  if (machine >= (1u << 19)) machine = (1u << 19) - 1;
  if (cpu_lane > SORT_MAX_CPU_LANE) cpu_lane = SORT_MAX_CPU_LANE;
  return machine << 13 | cpu_lane;
}

typedef struct sort_queue {
  VEC(sort_event) events;
  uint32_t source, lane;
} sort_queue;

typedef struct sorter {
  VEC(sort_queue) queues;  /* one per (source, lane) pushed to */
  base_map queue_index;    /* source << 32 | lane -> index into queues */
  uint32_t source_count;
  uint64_t last_key;       /* cache of the last queue pushed to */
  uint32_t last_queue;
  int has_last;
  uint64_t event_count;    /* pushed (written by the loading thread) */
  uint64_t emitted;        /* emitted so far (atomic: read by progress) */
  uint32_t threads;        /* threads sorter_run may use (>= 1) */
} sorter;

/* Returns 0 and the converted ts, or non-zero to drop the event. */
typedef int (*sort_convert_fn)(void *user, uint32_t source, uint32_t clock,
                               int64_t ts, int64_t *out);
/* Receives events in order; non-zero stops the run with that status. */
typedef int (*sort_emit_fn)(void *user, const sort_event *event);

void sorter_init(sorter *s);
void sorter_free(sorter *s);
/* Threads sorter_run may use (0 = 1): lanes are sorted in parallel and
 * the merge runs on a second thread ahead of `emit`, which is always
 * called on the caller's thread, in the same order as with one thread. */
void sorter_set_threads(sorter *s, uint32_t threads);
/* Creates a source; its events are pushed with sorter_push. */
int sorter_add_source(sorter *s, uint32_t *source);
/* Pushes to lane 0 (the host's general lane). */
int sorter_push(sorter *s, uint32_t source, int64_t ts, uint32_t clock,
                uint64_t payload);
int sorter_push_lane(sorter *s, uint32_t source, uint32_t lane, int64_t ts,
                     uint32_t clock, uint64_t payload);
/* Marks the event just pushed as a run break (see above). */
void sorter_mark_break(sorter *s);
/* Converts, sorts and emits every event, then empties the queues. */
int sorter_run(sorter *s, sort_convert_fn convert, sort_emit_fn emit,
               void *user);
/* Events pushed and events emitted so far; safe to call from another thread
 * while sorter_run runs (emitted is published once per emitted run). */
void sorter_progress(const sorter *s, uint64_t *pushed, uint64_t *emitted);

#endif
