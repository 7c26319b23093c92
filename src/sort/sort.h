/* sort: orders every file's events into one stream by trace time.
 *
 * Events are pushed per source (a tokenized trace file) into a lane: lane
 * sort_lane(pair, 0) holds the general events of one (file, machine) pair,
 * numbered in the order the pairs began, sort_lane(pair, cpu + 1) its
 * ftrace events of one cpu (Perfetto's sorter queues). sort_run
 * converts raw timestamps through a caller-supplied function, drops what
 * cannot be converted (the converter counts why), orders each lane's events
 * by (ts, source, push order) and merges the lanes as Perfetto does: take
 * the lane with the earliest head (the lowest lane on ties), emit its events
 * up to and including the earliest head of any other lane, repeat. So at
 * equal timestamps a lane that is already "running" keeps going; with one
 * lane per source this is plain (ts, source, push order). An event pushed
 * as a run break (data without a timestamp of its own, placed at its
 * neighbour's) ends the run it is emitted in, so it never carries later
 * events ahead of other lanes (a lane's queues of one source, its
 * segments, tie in push order). Heaps keep the lane heads and, in each
 * lane, its queues' heads: O(log lanes) per emitted run, O(log queues of
 * the lane) per event. With locate hints (sorter_set_locate_rules) the merge
 * runs a few events ahead of emit and prefetches each event's data as it
 * is merged. With several threads (sorter_set_threads) the output is the
 * same: the merge runs on its own thread, ahead of emit, and also runs
 * the caller's prepare step on each event (sorter_run_prepared).
 *
 * Memory: a queued event is 16 bytes (ts, payload) in chunks of 32 KiB,
 * of 2 MiB past a queue's first 2 MiB (each a huge-page mapping made
 * whole; a queue's last small chunk grows by doubling and is cut to its
 * exact size when sorter_run starts); its clock is stored once per run of events that share
 * one, with the run-break flag (8 bytes a run); its source is its queue's.
 * A queue out of order is sorted into new chunks, freeing the old ones
 * behind its oldest unsorted event; the merge frees (and returns to the
 * system) each chunk once emitted, so the sorter's memory falls to zero as
 * the emit proceeds. The merge reads each queue through a 64-byte cursor
 * of its own (one cache line: 256 KB for 4,000 queues). */
#ifndef WEFT_SORT_H
#define WEFT_SORT_H

#include "base/base.h"

typedef struct sort_event {
  int64_t ts;       /* raw when pushed; trace time once sorted */
  uint32_t clock;   /* clock node the raw ts is read from */
  uint32_t source;  /* set by the sorter */
  uint64_t payload; /* importer-defined (offset, kind...) */
} sort_event;

/* Lane `machine` (< 2^19: the order in which the (file, machine) pairs
 * began, so that ties go to the first file, as the queues of Perfetto's
 * per-file contexts do): cpu_lane 0 = general events,
 * cpu + 1 = that cpu's ftrace events (cpu < 8191). Larger values clamp. */
#define SORT_MAX_CPU_LANE 8191u
static inline uint32_t sort_lane(uint32_t machine, uint32_t cpu_lane) {
  if (machine >= (1u << 19)) machine = (1u << 19) - 1;
  if (cpu_lane > SORT_MAX_CPU_LANE) cpu_lane = SORT_MAX_CPU_LANE;
  return machine << 13 | cpu_lane;
}

/* A queued event: its clock is in the queue's runs, its source the queue's. */
typedef struct sort_item {
  int64_t ts;
  uint64_t payload;
} sort_item;

/* `count` (low 31 bits) consecutive queued events read from clock node
 * `clock`; the top bit of count: the last of them is a run break. */
typedef struct sort_run {
  uint32_t clock;
  uint32_t count;
} sort_run;

/* Bytes of a full chunk of queued events or of clock runs: past a queue's
 * first 64 chunks (see sort.c); the first 64 are 64 times smaller. */
#define SORT_CHUNK_BYTES ((size_t)2 << 20)

/* An array stored in chunks of 32 KiB, then 2 MiB (see sort.c); chunks before `released`
 * have been freed. */
typedef struct sort_chunks {
  void **chunk;
  size_t chunks, chunk_cap;  /* chunk pointers in use / allocated */
  size_t released;
  size_t len;                /* elements */
  size_t tail_cap;           /* elements the last chunk can hold */
  size_t tail_first;         /* index of the last chunk's first element */
  size_t expect;             /* elements to come in all (0 = unknown) */
  uint64_t *held;            /* the sorter's count of bytes held (atomic) */
  base_slab *slab;           /* the sorter's: where small chunks live */
  int heap_until_full;       /* small chunks grow in the heap, to the slab when full */
} sort_chunks;

typedef struct sort_queue {
  sort_chunks items;     /* sort_item */
  sort_chunks runs;      /* sort_run */
  uint32_t source, lane;
  uint32_t segment;      /* its place among the (source, lane)'s queues */
  size_t ascents;        /* ascending stretches, counted at conversion */
} sort_queue;

/* Optional prefetch hint, one rule per source: where the bytes of an
 * event lie, worked out from its payload alone (sort_locate), so that the
 * merge asks for them a few events before they are prepared or emitted,
 * without a call or a look into the importer's state. A zeroed rule (len
 * 0) gives no hint. A hint only: it may point anywhere readable. */
typedef struct sort_locate_rule {
  const uint8_t *base;  /* the bytes offsets count from */
  uint64_t len;         /* offsets at or past it: no hint */
  uint64_t offset_mask; /* payload & offset_mask: the offset */
  uint64_t reject_mask; /* a payload with any of these bits: no hint */
  const void *warm[2];  /* lines read for every event of the source (the
                           caller's state for it), asked for along, or NULL */
} sort_locate_rule;

static inline const uint8_t *sort_locate(const sort_locate_rule *r, uint64_t payload) {
  uint64_t offset = payload & r->offset_mask;
  return payload & r->reject_mask || offset >= r->len ? NULL : r->base + offset;
}

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
  size_t segment_items;    /* see sorter_set_segment_items */
  const sort_locate_rule *locate; /* see sorter_set_locate_rules */
  size_t locate_count;
  uint64_t held;           /* bytes in chunks (atomic: see sorter_memory) */
  base_slab small_chunks;  /* queues' small chunks (see sort_internal.h) */
} sorter;

/* Returns 0 and the converted ts, or non-zero to drop the event. */
typedef int (*sort_convert_fn)(void *user, uint32_t source, uint32_t clock,
                               int64_t ts, int64_t *out);
/* Receives events in order; non-zero stops the run with that status. */
typedef int (*sort_emit_fn)(void *user, const sort_event *event);
/* Optional step between the merge and emit (sorter_run_prepared): decodes
 * `event` into `out` (up to the run's prepare_max bytes, 16-byte aligned)
 * and returns the bytes used, 0 for nothing. With several threads it runs
 * on the merging thread, ahead of emit; with one, just before emit. So it
 * must be a pure function of the event and of data emit never changes, and
 * what it writes must own nothing (it is dropped unread when emit stops the
 * run early). */
typedef size_t (*sort_prepare_fn)(void *user, const sort_event *event, void *out);
/* emit of sorter_run_prepared: `prepared` is what prepare wrote for this
 * event, or NULL when it used nothing. */
typedef int (*sort_emit_prepared_fn)(void *user, const sort_event *event, void *prepared);

void sorter_init(sorter *s);
void sorter_free(sorter *s);
/* Threads sorter_run may use (0 = 1): lanes are sorted in parallel and
 * the merge runs on a second thread ahead of `emit`, which is always
 * called on the caller's thread, in the same order as with one thread. */
void sorter_set_threads(sorter *s, uint32_t threads);
/* With several threads, a (source, lane) whose queue reaches this many
 * events (0: SORT_SEGMENT_ITEMS) goes on in a new queue, a segment, so
 * that one large file's lane is sorted by several threads: the segments
 * are sorted apart and merged in the lane with ties in segment order,
 * which is push order, so the output is the same. */
#define SORT_SEGMENT_ITEMS ((size_t)1 << 20)
void sorter_set_segment_items(sorter *s, size_t items);
/* rules[source] for sources below `count` (others: no hint); the caller
 * keeps the array alive until sorter_run returns. NULL: no hints. */
void sorter_set_locate_rules(sorter *s, const sort_locate_rule *rules, size_t count);
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
/* sorter_run with each event prepared before it is emitted (see
 * sort_prepare_fn); prepare_max <= SORT_PREPARE_MAX. */
#define SORT_PREPARE_MAX 4096u
int sorter_run_prepared(sorter *s, sort_convert_fn convert, sort_prepare_fn prepare,
                        size_t prepare_max, sort_emit_prepared_fn emit, void *user);
/* Events pushed and events emitted so far; safe to call from another thread
 * while sorter_run runs (emitted is published once per emitted run). */
void sorter_progress(const sorter *s, uint64_t *pushed, uint64_t *emitted);
/* Bytes the queued events take now (their chunks and clock runs, as
 * allocated); safe to call from another thread, and from `emit`: it falls
 * as sorter_run emits. */
uint64_t sorter_memory(const sorter *s);

#endif
