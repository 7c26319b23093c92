/* import: the interface between the loader and the format importers.
 *
 * An importer reads one trace file in two phases. tokenize() runs when the
 * file is loaded: it scans the bytes, records clock snapshots and pushes one
 * sort event per timestamped event (raw timestamp, clock node, payload).
 * parse() runs once every file is tokenized, for each event in global trace
 * time order, and writes the model through the trackers.
 * The loader owns import_file and the bytes; the importer owns `state` and
 * frees it in destroy(). */
#ifndef WEFT_IMPORTER_H
#define WEFT_IMPORTER_H

#include "core/context.h"
#include "sort/sort.h"

typedef struct import_file import_file;

typedef struct importer_ops {
  const char *trace_type;
  int (*tokenize)(import_file *f, base_error *err);
  int (*parse)(import_file *f, const sort_event *event, base_error *err);
  /* Optional: called once after the last event was parsed. */
  int (*end)(import_file *f, base_error *err);
  void (*destroy)(import_file *f);
} importer_ops;

struct import_file {
  trace_context *ctx;
  const importer_ops *ops;
  void *state;          /* importer-private */
  const char *name;     /* for messages; never NULL */
  const char *path;     /* member path in its archive, or NULL; valid
                           during tokenize only */
  const uint8_t *data;  /* the file's bytes, valid until loading ends */
  size_t len;
  uint32_t trace_id;    /* __intrinsic_trace_file row */
  uint32_t machine;     /* default machine row for this file's data */
  uint32_t source;      /* sorter source */
  struct loader *loader;
};

/* Pushes one event for the sorter. `clock` comes from import_clock_*. */
int import_push(import_file *f, int64_t ts, uint32_t clock, uint64_t payload);
/* Clock node of a builtin/custom clock id as seen by this file (sequence is
 * 0 outside Perfetto packet sequences). */
int import_clock(import_file *f, uint32_t sequence, uint64_t clock_id,
                 uint32_t *node);
/* Clock node of this file's private timeline (clockless formats). */
int import_clock_private(import_file *f, uint32_t *node);
/* Declares node this file's main clock: it may be pinned to trace time at
 * zero offset even when it has snapshot edges (used only when no snapshot
 * path exists). */
int import_clock_anchor(import_file *f, uint32_t node);
/* Adds a snapshot relating several of this file's clocks. */
int import_clock_snapshot(import_file *f, uint32_t sequence,
                          const uint64_t *clock_ids, const int64_t *values,
                          size_t n);
/* Proposes a trace-time clock for the whole merge (first claimer wins). */
void import_claim_trace_time(import_file *f, uint64_t clock_id);
/* Adds to a stat scoped to this file's machine and trace. */
int import_stat(import_file *f, stats_id stat, int64_t delta);

extern const importer_ops import_json_ops;
extern const importer_ops import_proto_ops;
extern const importer_ops import_systrace_ops;

#endif
