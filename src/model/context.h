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
  int pid_zero_is_idle; /* a proto or systrace file is loaded: pid 0 is the
                           idle process (upid 0) for every file, as Perfetto
                           sets when those importers start; a JSON-only load
                           makes pid 0 a process of its own */
  base_map metadata_index; /* hash of (name, machine, trace) -> single row */
  VEC(uint64_t) metadata_keys; /* sort key of each metadata row (see below) */
  uint64_t metadata_pos;       /* the key rows made now get */
  int trace_time_row;          /* ctx_trace_time_row_state */
} trace_context;

/* The moments Perfetto writes metadata rows at, in the order its table
 * shows them (src/model/context_metadata.c). */
typedef enum ctx_metadata_stage {
  CTX_METADATA_FIRST = 0,    /* trace_uuid */
  CTX_METADATA_TOKENIZE = 1, /* a file's tokenizer: by file, then byte offset */
  CTX_METADATA_PARSE = 2,    /* the sorted parse, in parse order */
  CTX_METADATA_END = 3       /* files ending: trace_size_bytes */
} ctx_metadata_stage;

/* The trace_time_clock_id row: written by the first file (or manifest)
 * that sets the trace-time clock, unless data was converted to trace time
 * before that, as Perfetto refuses a clock change then. */
typedef enum ctx_trace_time_row_state {
  CTX_TRACE_TIME_ROW_OPEN = 0,
  CTX_TRACE_TIME_ROW_CLOSED,
  CTX_TRACE_TIME_ROW_WRITTEN
} ctx_trace_time_row_state;

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
/* Sets a metadata value (single key), replacing the value of the scope's
 * row of `name` if there is one. machine/trace are -1 for NULL. */
int ctx_metadata_set_int(trace_context *ctx, const char *name, int64_t value,
                         int64_t machine, int64_t trace);
/* value NULL: a NULL string. */
int ctx_metadata_set_str(trace_context *ctx, const char *name,
                         const char *value, int64_t machine, int64_t trace);
/* Sets a dynamic key: every call adds a single-key row, even for a name
 * already set (Perfetto's "cr-" rows of Chrome metadata). */
int ctx_metadata_dynamic_int(trace_context *ctx, const char *name, int64_t value,
                             int64_t machine, int64_t trace);
int ctx_metadata_dynamic_str(trace_context *ctx, const char *name, const char *value,
                             int64_t machine, int64_t trace);
/* Adds a row of a multi key (every call adds one). */
int ctx_metadata_add_int(trace_context *ctx, const char *name, int64_t value,
                         int64_t machine, int64_t trace);
int ctx_metadata_add_str(trace_context *ctx, const char *name, const char *value,
                         int64_t machine, int64_t trace);
/* 1 if some metadata row is named `name`. */
int ctx_metadata_has(trace_context *ctx, const char *name);
/* Rows made from now on sort as written by the tokenizer of file
 * `trace_id` at byte `offset`; returns the previous position, which
 * ctx_metadata_at restores. */
uint64_t ctx_metadata_at_file(trace_context *ctx, int64_t trace_id, uint64_t offset);
void ctx_metadata_at(trace_context *ctx, uint64_t position);
/* Rows made from now on sort in parse order. */
void ctx_metadata_at_parse(trace_context *ctx);
/* A file's trace_type row (first of its rows) and trace_size_bytes row
 * (after every parse row, in reverse processing order). */
int ctx_metadata_file_type(trace_context *ctx, int64_t trace_id, const char *type);
int ctx_metadata_file_size(trace_context *ctx, int64_t trace_id, uint64_t size);
/* A file sets the trace-time clock to clock_id: writes the
 * trace_time_clock_id row if it is the first and nothing was converted
 * before (see ctx_trace_time_row_state). */
int ctx_metadata_trace_time(trace_context *ctx, uint64_t clock_id);
/* Data was converted to trace time: later clock settings write no row. */
void ctx_metadata_trace_time_used(trace_context *ctx);
/* Sorts the rows by their keys (called once loading ends). */
int ctx_metadata_sort(trace_context *ctx);

/* Fills the derived table trace_bounds at the end of loading. */
int ctx_finalize_tables(trace_context *ctx);
/* Fills the stats table from the stats store, once, after loading (on the
 * first query reading it: its ~360 rows cost more than a small trace's whole
 * load). Later calls do nothing. */
int ctx_fill_stats(trace_context *ctx);

#endif
