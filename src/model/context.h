/* model: the trace context — everything one weft instance loads into.
 *
 * Owns the string pool, every storage table, the stats store, the machine
 * registry and the trackers' state (the input bytes are the loader's).
 * Importers receive a trace_context* and write through the model's
 * functions; only the weft instance (core) frees it.
 * Invariant: tables only grow while loading; after weft_load_finish they
 * are frozen and the SQL engine reads them. */
#ifndef WEFT_CONTEXT_H
#define WEFT_CONTEXT_H

#include "base/base.h"
#include "model/machine.h"
#include "model/model.h"
#include "model/stats.h"
#include "storage/schema.h"

typedef struct trace_context {
  weft_options options;
  base_string_pool strings;
  storage_table tables[TABLE_COUNT];
  stats_store stats;
  machine_registry machines;
  model_state model;
  int64_t bounds_start; /* trace time window of all parsed data */
  int64_t bounds_end;
  int has_bounds;
  uint64_t trace_time_clock;   /* clock id of trace time (after loading) */
  uint32_t trace_time_machine; /* and the machine row it belongs to */
  uint32_t next_processing_order;
  uint32_t top_level_files;
  int stats_filled; /* ctx_fill_stats ran */
  base_map metadata_index; /* hash of (name, machine, trace) -> single row */
} trace_context;

int trace_context_init(trace_context *ctx, const weft_options *opts);
void trace_context_free(trace_context *ctx);
static inline storage_table *ctx_table(trace_context *ctx, schema_table_id id) {
  return &ctx->tables[id];
}
/* Interns a string into the context's pool; NULL/STRING_NULL on failure is
 * reported through the return code. */
int ctx_intern(trace_context *ctx, const char *s, size_t len, string_id *out);
/* Extends the trace bounds by one timestamp. */
void ctx_extend_bounds(trace_context *ctx, int64_t ts);

/* Adds a trace_file row; returns its id. parent is -1 for none. */
int ctx_add_trace_file(trace_context *ctx, int64_t parent, const char *name,
                       uint64_t size, const char *trace_type, uint32_t *id);
/* Sets the trace_type of a trace_file row made before its file was read. */
int ctx_set_trace_file_type(trace_context *ctx, uint32_t id, const char *trace_type);
/* Marks a trace file as processed now: sets its processing_order. */
void ctx_mark_processed(trace_context *ctx, uint32_t trace_file_id);
/* Sets a metadata value (single key). machine/trace are -1 for NULL. */
int ctx_metadata_set_int(trace_context *ctx, const char *name, int64_t value,
                         int64_t machine, int64_t trace);
int ctx_metadata_set_str(trace_context *ctx, const char *name,
                         const char *value, int64_t machine, int64_t trace);
/* Adds a row of a multi key (every call adds one). */
int ctx_metadata_add_int(trace_context *ctx, const char *name, int64_t value,
                         int64_t machine, int64_t trace);
int ctx_metadata_add_str(trace_context *ctx, const char *name, const char *value,
                         int64_t machine, int64_t trace);
/* 1 if some metadata row is named `name`. */
int ctx_metadata_has(trace_context *ctx, const char *name);

/* Fills the derived table trace_bounds at the end of loading. */
int ctx_finalize_tables(trace_context *ctx);
/* Fills the stats table from the stats store, once, after loading (on the
 * first query reading it: its ~360 rows cost more than a small trace's whole
 * load). Later calls do nothing. */
int ctx_fill_stats(trace_context *ctx);

#endif
