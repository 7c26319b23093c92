/* proto_legacy_async: the tracks of TrackEvents with a legacy async phase
 * (nestable b/e/n, legacy S/T/p/F), as Perfetto's trace processor makes
 * them.
 *
 * An event's source id is its legacy_event's unscoped_id, else global_id
 * (both global), else local_id (scoped to the event's process, which it
 * needs). Its id scope is the event name for S/T/p/F and the category for
 * b/e/n; an id_scope field replaces it by "<category>:<id_scope>". The
 * first name a source id is seen with (per process for local ids) is its
 * root name. Events with the same (process,) id scope and root name share a
 * set of interchangeable tracks (model/track_compressor.h, the source id
 * as cookie: b/S begin, e/F end, n/T/p are instants). A track is created
 * when first used, named after that event, typed legacy_async_global_slice
 * or legacy_async_process_slice, with dimensions {[upid,] scope, name
 * (root), track_compressor_idx} and source args {source "chrome",
 * trace_id_is_process_scoped, upid, source_scope}. State is per file. */
#ifndef WEFT_PROTO_LEGACY_ASYNC_H
#define WEFT_PROTO_LEGACY_ASYNC_H

#include "import/importer.h"
#include "import/proto/proto_wire.h"
#include "model/track_compressor.h"

enum proto_async_id { PROTO_ASYNC_NO_ID, PROTO_ASYNC_UNSCOPED, PROTO_ASYNC_GLOBAL, PROTO_ASYNC_LOCAL };

typedef struct proto_async_state {
  track_compressor sets;
  base_map roots; /* hash(machine, [upid,] source id) -> root name */
} proto_async_state;

/* What places an event on its async track. */
typedef struct proto_async_event {
  uint32_t machine;
  uint64_t phase;
  int id_kind;          /* enum proto_async_id */
  uint64_t id;
  int has_id_scope;
  proto_span id_scope;
  int64_t upid;         /* the event's process, or -1 */
  string_id category, name;
} proto_async_event;

/* 1 for the legacy phases that go on async tracks. */
static inline int proto_async_phase(uint64_t phase) {
  switch (phase) {
    case 'b': case 'e': case 'n': case 'S': case 'T': case 'p': case 'F': return 1;
    default: return 0;
  }
}

/* The track of event `e` (created when new) and its source id. Returns
 * WEFT_OK, 1 when the event cannot be placed (no id, or a local id without
 * a process: the caller counts it), or a WEFT_E* error. */
int proto_async_track(import_file *f, proto_async_state *s, const proto_async_event *e,
                      uint32_t *track, int64_t *source_id);

void proto_async_free(proto_async_state *s);

#endif
