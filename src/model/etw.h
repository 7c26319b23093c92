/* etw: Windows ETW file I/O operations as slices (the rules of Perfetto's
 * ETW file I/O tracker).
 *
 * An operation starts with a FileIo event (Create, DirEnum, Info,
 * ReadWrite, SimpleOp, PathOperation) and ends with an OpEnd event that
 * names the same I/O request packet (IRP). Slices have no category and
 * lie on "etw_fileio" tracks with a thread dimension (the utid of the
 * event's thread), compressed per thread (model/track_compressor.h): a
 * started operation is a begin with its IRP as cookie.
 *   - a start without an IRP, and an end without one ("EndOperation"),
 *     are slices of dur 0 on a scoped track;
 *   - a start whose IRP is still open first ends the open one at its own
 *     start time, with arg "Missing Event" = "End";
 *   - an end ends the open slice of its IRP's name on the track of the
 *     END's thread and cookie, its args joining the slice's (a key the
 *     slice has takes the new value); the IRP is then closed, whether a
 *     slice was found there or not;
 *   - an end whose IRP is not open is an "EndOperation" slice of dur 0
 *     with its args and "Missing Event" = "Start";
 *   - once the trace is parsed, every operation still open ends at its
 *     own start time with "Missing Event" = "End".
 * MemInfo events are counters: "<type> Page Count" (type etw_meminfo,
 * unit pages, the type as the counter_type dimension).
 * Owns its state (model_state.etw, lazy), freed by etw_state_free. */
#ifndef WEFT_MODEL_ETW_H
#define WEFT_MODEL_ETW_H

#include "model/model.h"

/* One arg of an event; key is a string of the kind `keys` gives. */
typedef struct etw_arg {
  string_id key;
  model_arg_type type;  /* MODEL_ARG_UINT, MODEL_ARG_POINTER, MODEL_ARG_STRING */
  int64_t value;
  string_id str;        /* MODEL_ARG_STRING */
} etw_arg;

/* Where an event happened: its thread on its machine, its time, its IRP. */
typedef struct etw_fileio_at {
  uint32_t machine;
  int64_t tid;
  int64_t ts;
  int has_irp;
  uint64_t irp;
} etw_fileio_at;

typedef struct etw_state etw_state;
void etw_state_free(etw_state *s);

/* Starts an operation named `name` with its args. */
int model_etw_fileio_start(trace_context *ctx, const etw_fileio_at *at, string_id name,
                           const etw_arg *args, size_t n);
/* Ends the operation of at->irp with the OpEnd's args. */
int model_etw_fileio_end(trace_context *ctx, const etw_fileio_at *at, const etw_arg *args,
                         size_t n);
/* Once the trace is parsed: ends every operation still open. */
int model_etw_fileio_finish(trace_context *ctx);
/* One MemInfo page count of `type` ("Zero", "Standby Pri-0", ...) at ts. */
int model_etw_meminfo(trace_context *ctx, uint32_t machine, int64_t ts, const char *type,
                      double pages);

#endif
