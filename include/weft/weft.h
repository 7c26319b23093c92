/* weft — a trace processor that merges many trace files onto one timeline.
 *
 * This is the whole public API. Handles are opaque. Every function that can
 * fail returns WEFT_OK (0) or a negative WEFT_E* code; the message of the last
 * failure is available from weft_errmsg(). The library never prints and
 * never exits.
 *
 * Life cycle:
 *   weft_open()                       one instance = one merged trace
 *   weft_file_begin() / weft_file_write()* / weft_file_end()   per input file
 *   weft_load_finish()                clock placement, sort, parse: tables ready
 *   weft_query()*                     SQL with per-statement column and row callbacks
 *   weft_close()
 */
#ifndef WEFT_WEFT_H
#define WEFT_WEFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_VERSION_STRING "0.1.0"

enum weft_status {
  WEFT_OK = 0,
  WEFT_EINVAL = -1,   /* bad argument or call out of order */
  WEFT_ENOMEM = -2,   /* allocation failed or memory budget exceeded */
  WEFT_EIO = -3,      /* reading a file failed */
  WEFT_EPARSE = -4,   /* the input is malformed */
  WEFT_ESQL = -5,     /* SQL error */
  WEFT_ELIMIT = -6,   /* a configured resource limit was hit */
  WEFT_EUNSUPPORTED = -7, /* recognised but unsupported content */
  WEFT_EABORT = -8    /* a callback asked to stop */
};

typedef struct weft weft;

/* A directory of PerfettoSQL files registered as a package whose modules
 * INCLUDE PERFETTO MODULE finds (trace_processor's --add-sql-package and
 * --override-sql-package): a/b.sql under `path` is module NAME.a.b. */
typedef struct weft_sql_package {
  const char *path;
  const char *name; /* NULL or "": the directory's own name */
  int override;     /* nonzero: may replace a package of that name */
} weft_sql_package;

/* Resource limits and behaviour. Zero-initialise and call
 * weft_options_default() to get the defaults, then adjust. */
typedef struct weft_options {
  uint64_t max_memory_bytes;       /* budget for loaded data; 0 = no limit */
  uint64_t max_decompressed_bytes; /* per compressed stream */
  uint32_t max_compression_ratio;  /* decompressed / compressed, per stream */
  uint32_t max_archive_depth;      /* nesting of containers */
  uint32_t max_archive_members;    /* members per archive */
  uint32_t max_json_depth;         /* nesting of JSON values */
  uint32_t max_line_bytes;         /* a line of a text format */
  uint32_t max_string_bytes;       /* one string value */
  uint32_t threads;                /* 0 = number of cores */
  uint32_t clock_interpolation;    /* WEFT_CLOCK_INTERPOLATION_* */
  /* Read at weft_open (the overrides first); borrowed only during it. */
  const weft_sql_package *sql_packages;
  size_t sql_package_count;
} weft_options;

/* How a timestamp between two clock snapshots is converted. DEFAULT: the
 * manifest's weft_clock_interpolation field decides, else NEAREST (the
 * nearest snapshot, as Perfetto does); LINEAR interpolates between the two
 * snapshots around it (see docs/clocks.md). */
enum weft_clock_interpolation {
  WEFT_CLOCK_INTERPOLATION_DEFAULT = 0,
  WEFT_CLOCK_INTERPOLATION_NEAREST = 1,
  WEFT_CLOCK_INTERPOLATION_LINEAR = 2
};

void weft_options_default(weft_options *opts);

/* Creates an instance. opts may be NULL for defaults. Fails (without an
 * instance) when opts' SQL packages cannot be registered: see
 * weft_check_sql_packages for why. */
int weft_open(weft **out, const weft_options *opts);
/* Registers opts' SQL packages as weft_open does, then forgets them: 0, or
 * a WEFT_E* code with the reason in msg[0..cap). */
int weft_check_sql_packages(const weft_options *opts, char *msg, size_t cap);
void weft_close(weft *w);

/* Message of the last failure on this instance ("" if none). Valid until the
 * next call on the instance. */
const char *weft_errmsg(const weft *w);

/* Feeding input. Files are fed one at a time: begin, any number of writes of
 * any size, end. `name` is the file's name as the user knows it (a path). */
int weft_file_begin(weft *w, const char *name);
int weft_file_write(weft *w, const void *data, size_t len);
int weft_file_end(weft *w);
/* Convenience: streams a file from disk through begin/write/end. */
int weft_load_path(weft *w, const char *path);
/* weft_load_path of each file in order (stopping at the first failure),
 * with the scans of the next few files run ahead on the other threads
 * (weft_options.threads) while earlier ones load. */
int weft_load_paths(weft *w, const char *const *paths, size_t count);

/* Ends loading: places every file on the timeline, sorts and parses. */
int weft_load_finish(weft *w);

/* A typed cell of a result row. */
enum weft_cell_type {
  WEFT_CELL_NULL = 0,
  WEFT_CELL_INT = 1,
  WEFT_CELL_DOUBLE = 2,
  WEFT_CELL_STRING = 3,
  WEFT_CELL_BLOB = 4
};
typedef struct weft_cell {
  int type;          /* enum weft_cell_type */
  int64_t i;         /* WEFT_CELL_INT */
  double d;          /* WEFT_CELL_DOUBLE */
  const char *s;     /* STRING (NUL-terminated) or BLOB bytes */
  size_t len;        /* bytes of s */
} weft_cell;

/* Called once per statement that returns columns, before its rows (also when
 * it returns no rows), then once per row. Return non-zero to stop: the query
 * then fails with WEFT_EABORT. Either pointer may be NULL. */
typedef struct weft_query_callbacks {
  int (*on_columns)(void *user, int statement, int ncols,
                    const char *const *names);
  int (*on_row)(void *user, int statement, int ncols, const weft_cell *cells);
  void *user;
} weft_query_callbacks;

/* Runs every statement of `sql` in order. A failing statement's error
 * (weft_errmsg) is a traceback in Perfetto's form: the source, line and
 * column of the statement, the statement with a caret, then the message. */
int weft_query(weft *w, const char *sql, const weft_query_callbacks *cb);
/* The same, naming the text `source` (say, a file's path) in the
 * traceback; weft_query names it "stdin". */
int weft_query_source(weft *w, const char *source, const char *sql,
                      const weft_query_callbacks *cb);

/* Makes the query running on `w` stop soon: it then fails with
 * WEFT_EABORT ("interrupted"). Safe to call from another thread or from a
 * signal handler (async-signal-safe); does nothing while no query can run
 * (before weft_load_finish). The next query starts afresh. */
void weft_interrupt(weft *w);

/* Load statistics for progress and --perf-file. weft_get_progress may be
 * called from another thread while this instance loads (the counters are
 * read atomically, each on its own). */
typedef struct weft_load_progress {
  uint64_t bytes_read;     /* bytes fed through weft_file_write */
  uint32_t files_begun;    /* top-level files begun */
  uint32_t files_done;     /* top-level files ended (weft_file_end) */
  uint64_t events_queued;  /* events tokenized, waiting to be sorted */
  uint64_t events_parsed;  /* of those, sorted and parsed by weft_load_finish */
  uint64_t bytes_spilled;  /* decompressed archive members kept in an unlinked
                              temporary file instead of memory (WEFT_SPILL) */
} weft_load_progress;
void weft_get_progress(const weft *w, weft_load_progress *out);

/* Counts of non-zero error/data-loss stats after loading, one line each as
 * "name[idx] (machine M, file F): value" into buf (NUL-terminated, truncated
 * to cap). Returns the number of such stats. */
int weft_error_stats_summary(weft *w, char *buf, size_t cap);

/* The format of a file from its first bytes (64 KiB are plenty), as
 * Perfetto's trace_type names it: "proto", "json", "systrace", "zip",
 * "gzip", "perfetto_manifest", ... or "unknown". Never NULL. */
const char *weft_trace_type(const void *data, size_t len);

/* The id of a builtin clock by its name as Perfetto's BuiltinClock spells it
 * ("BOOTTIME", "MONOTONIC", "REALTIME", ...): 1 and *id set, or 0 for a name
 * that is not one. id may be NULL. */
int weft_clock_id(const char *name, uint64_t *id);

/* The index of the name in `names` closest to `name` by edit distance,
 * when close enough to be a likely misspelling of it (for "did you mean"
 * messages), else -1. */
int weft_closest_name(const char *name, const char *const *names, size_t count);

#ifdef __cplusplus
}
#endif
#endif
