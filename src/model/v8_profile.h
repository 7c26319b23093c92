/* v8_profile: the V8 CPU profiles Chrome writes as legacy trace events of
 * phase 'P' (category disabled-by-default-v8.cpu_profiler), as
 * cpu_profile_stack_sample rows on stack_profile callsites.
 *
 * A profile session is (the event's id, pid). Its "Profile" event gives
 * {"startTime": µs}, which (re)sets the session's clock to startTime * 1000
 * ns; a session's first one also gives it a mapping of its own (empty build
 * id and name, range 0..-1: a new row even when another session's is
 * identical). Its "ProfileChunk" events give
 *   {"cpuProfile": {"nodes": [...], "samples": [node ids]},
 *    "timeDeltas": [µs, ...]}
 * where each node {"id", "callFrame": {"functionName", "url"}, "parent",
 * "children"} becomes a callsite under its parent's: its `parent`, else the
 * node that listed it among its `children`. Its frame, on the session's
 * mapping, is interned by (functionName, url) with a symbol row (source
 * file url, NULL when empty). A node of no known session, of an unknown
 * parent or whose id the session already has counts
 * legacy_v8_cpu_profile_invalid_callsite. Then sample i moves the session's
 * clock by timeDeltas[i] * 1000 and is a sample of its node's callsite on
 * the event's thread at that time; a node the session does not have counts
 * legacy_v8_cpu_profile_invalid_sample. A chunk whose samples and
 * timeDeltas differ in length, or of no known session, adds no samples and
 * counts the importer's `rejected` stat. A profile that is not valid
 * JSON is ignored. Samples are written as chunks are applied and put in
 * timestamp order once loading ends (v8_profile_sort_samples). */
#ifndef WEFT_MODEL_V8_PROFILE_H
#define WEFT_MODEL_V8_PROFILE_H

#include "base/base.h"
#include "model/stats.h"

typedef struct trace_context trace_context;
typedef struct v8_profile_state v8_profile_state;

typedef struct v8_profile_event v8_profile_event;

/* Converts a time (ns) of event ev to trace time: 1 with *out, 0 when it
 * cannot. */
typedef int (*v8_profile_time_fn)(void *arg, const v8_profile_event *ev, int64_t ts,
                                  int64_t *out);

/* Takes a sample of `callsite` at ts (the session's time, unconverted). */
typedef int (*v8_profile_sample_fn)(void *arg, const v8_profile_event *ev, int64_t ts,
                                    uint32_t callsite);

/* How an importer's profile times become trace time (NULL: they are), and
 * where samples go (NULL: a cpu_profile_stack_sample row on ev->utid at
 * the converted time). */
typedef struct v8_profile_clock {
  v8_profile_time_fn start_time;  /* for startTime */
  v8_profile_time_fn sample_time; /* for each sample */
  v8_profile_sample_fn sample;
  void *arg;
} v8_profile_clock;

struct v8_profile_event {
  uint64_t session; /* the event's id */
  int64_t pid, tid;
  uint32_t utid;    /* the event's thread (unless the importer takes samples) */
  int64_t machine, trace; /* where its stats go */
  stats_id rejected; /* counted for a rejected chunk or start */
  int in_data;      /* the profile is the "data" member of the object given */
};

/* Applies the profile JSON text [json, json + len) of one 'P' event (it
 * may go on past the profile's object: the rest is not read). */
int v8_profile_apply(trace_context *ctx, const v8_profile_event *ev, const v8_profile_clock *clock,
                     const char *json, size_t len);

/* Perfetto reads the profiles as it tokenizes, in file order, while the
 * importers parse events in timestamp order: an importer queues each 'P'
 * event with its place in the file (a copy of its text) and applies the
 * queue in that order once it has parsed its last event. */
typedef struct v8_profile_pending {
  v8_profile_event ev;
  uint64_t order;
  size_t text_at, text_len;
} v8_profile_pending;

typedef struct v8_profile_queue {
  VEC(v8_profile_pending) events;
  VEC(char) text;
} v8_profile_queue;

int v8_profile_queue_add(v8_profile_queue *q, const v8_profile_event *ev, uint64_t order,
                         const char *json, size_t len);
/* Applies the queued events in file order (stable) and empties the queue. */
int v8_profile_queue_apply(trace_context *ctx, v8_profile_queue *q,
                           const v8_profile_clock *clock);
void v8_profile_queue_free(v8_profile_queue *q);

/* Once loading ends: the legacy_v8 stack samples in timestamp order
 * (stable) among the rows they hold, as Perfetto's sorter delivers
 * samples; other sources' rows stay; nothing without profiles. */
int v8_profile_sort_samples(trace_context *ctx);

void v8_profile_state_free(v8_profile_state *st);

#endif
