/* import: the interface between the loader and the format importers.
 *
 * An importer reads one trace file in two phases. tokenize() runs when the
 * file is loaded: it scans the bytes, records clock snapshots and pushes one
 * sort event per timestamped event (raw timestamp, clock node, payload).
 * parse() runs once every file is tokenized, for each event in global trace
 * time order, and writes the model through the trackers.
 * The load owns import_file (core/import_host.c, which implements the
 * import_* services below) and the bytes; the importer owns `state` and
 * frees it in destroy(). Importers register in import/registry.c. f->data may be a view into a read-only file
 * mapping: it is not followed by a NUL (read only f->data[0, len)). */
#ifndef WEFT_IMPORTER_H
#define WEFT_IMPORTER_H

#include "io/sniff.h"
#include "model/context.h"
#include "sort/sort.h"

typedef struct import_file import_file;

/* What a scan may read: a file's bytes and the load's options. */
typedef struct import_scan_input {
  const uint8_t *data;
  size_t len;
  const weft_options *options;
  int give_back; /* data is a read-only file mapping whose pages may be
                    given back (see import_scan_passed) */
  int may_split; /* the scan runs with the other threads idle: it may
                    start one of its own for part of a large file, as long
                    as its result is the same */
  int in_turn;   /* the scan runs on the loading thread right before the
                    file's tokenize, not ahead on a worker: work that only
                    spares tokenize some of its own is not worth doing */
} import_scan_input;

/* How far behind its read position a scan keeps pages, and the step in
 * which it gives back the rest. */
#define IMPORT_SCAN_LAG ((size_t)4 << 20)

/* For scans, as they walk a file: gives back the whole pages of in->data
 * more than IMPORT_SCAN_LAG bytes behind offset `upto` when in->give_back
 * (they come back from the page cache when tokenize reads them), so that a
 * large file is never resident all at once while it is scanned. *given:
 * the offset given back up to so far (0 at first); costs a comparison when
 * there is nothing to do. Changes no byte of the input. */
void import_scan_passed(const import_scan_input *in, size_t *given, size_t upto);

/* The most an importer's prepare may write for one event. */
#define IMPORT_PREPARED_MAX 1024u

typedef struct importer_ops {
  const char *trace_type;
  /* Optional pre-pass of tokenize, pure so that it can run on a worker
   * thread, ahead of the file's turn and concurrently with other files'
   * scans and tokenizes (core/scan.h). It reads only `in` (no import_*
   * call, no context) and returns what it found in *result, which
   * tokenize then finds in f->scan. A non-zero status fails the file's
   * load with *err. scan_free frees a result. */
  int (*scan)(const import_scan_input *in, void **result, base_error *err);
  void (*scan_free)(void *result);
  int (*tokenize)(import_file *f, base_error *err);
  /* Optional: decodes an event ahead of its parse into `out` (up to
   * IMPORT_PREPARED_MAX bytes, 16-byte aligned) and returns the bytes
   * used, 0 for nothing. With --threads above 1 it runs on the merging
   * thread while earlier events are parsed (sort/sort.h), so it reads only
   * the event's held bytes and importer state that parse never changes,
   * writes plain data that owns nothing (pointers only into f->data), and
   * never fails: a problem it finds is for parse to report. */
  size_t (*prepare)(const import_file *f, const sort_event *event, void *out);
  /* Optional prefetch hint (sort.h's sort_locate_rule): where the bytes
   * of the file's queued events lie, as a rule on their payloads. Called
   * once, after every file is tokenized. */
  void (*locate_rule)(const import_file *f, sort_locate_rule *rule);
  /* `prepared`: what prepare wrote for this event, or NULL (no prepare, or
   * it used nothing): parse then decodes the event itself. May be NULL for
   * an importer that pushes no event (it writes everything in tokenize). */
  int (*parse)(import_file *f, const sort_event *event, void *prepared, base_error *err);
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
  const uint8_t *data;  /* the file's bytes, valid until loading ends
                           (except chunks given back: release_input) */
  size_t len;
  uint32_t trace_id;    /* __intrinsic_trace_file row */
  uint32_t machine;     /* base machine row: data without an embedded id */
  uint32_t lane_rank;   /* the order (file, base machine) began in: its sorter lane */
  uint32_t source;      /* sorter source */
  int multi_machine;    /* data from several machines (import_declare_machines) */
  int pinned;           /* manifest PIN: every clock is the private clock */
  uint32_t snapshot_count; /* clock snapshots this file added */
  uint32_t first_clock; /* clock node of the first event pushed, or
                           UINT32_MAX: the file's clock for the
                           weft_placement table */
  int64_t first_ts;     /* that event's timestamp on first_clock */
  int related;          /* the manifest relates it to another file */
  int release_input;    /* set in tokenize to opt in: see import_input_hold */
  void *scan;           /* ops->scan's result during tokenize (the loader
                           frees it after, unless tokenize took it: NULL) */
  struct import_host *host;  /* core-private: the services behind import_* */
  struct input_holds *holds; /* core-private: the chunk counts */
};

/* An importer that opts in (f->release_input = 1, set in tokenize) calls
 * import_input_hold(f, off, len) for every byte range of f->data a queued
 * event will read when parsed, and import_input_release(f, off, len) once it
 * has parsed it; it must read nothing else of f->data after tokenize.
 * The loader divides f->data into chunks (e.g. 4 MiB) with a count of holds
 * each; once tokenize ended, a chunk whose count is 0 is given back to the
 * OS (madvise(MADV_DONTNEED) of the page-aligned range inside it, for heap
 * buffers and mappings alike) and never read again. */
void import_input_hold(import_file *f, size_t off, size_t len);
void import_input_release(import_file *f, size_t off, size_t len);

/* Pushes one event for the sorter. `clock` comes from import_clock_*. */
int import_push(import_file *f, int64_t ts, uint32_t clock, uint64_t payload);
/* The same for data without a timestamp of its own, pushed at a
 * neighbour's (e.g. its sequence's last): it does not let later events of
 * its lane run ahead of other lanes at equal timestamps. */
int import_push_untimed(import_file *f, int64_t ts, uint32_t clock, uint64_t payload);
/* Pushes an ftrace event of `cpu` on machine row `machine`: it goes to that
 * cpu's sort lane, which decides its order among events of equal
 * timestamps as Perfetto's per-cpu sorter queues do (see sort/sort.h). */
int import_push_cpu(import_file *f, uint32_t machine, uint32_t cpu, int64_t ts,
                    uint32_t clock, uint64_t payload);
/* Clock node of a builtin/custom clock id as seen by this file (sequence is
 * 0 outside Perfetto packet sequences). */
int import_clock(import_file *f, uint32_t sequence, uint64_t clock_id,
                 uint32_t *node);
/* The same for data of machine row `machine` (multi-machine files). */
int import_clock_on(import_file *f, uint32_t machine, uint32_t sequence,
                    uint64_t clock_id, uint32_t *node);
/* For data read at parse time with a clock of its own: 1 with *out, ts of
 * builtin clock `clock_id` of machine row `machine` in trace time (the
 * clocks are all known then), 0 when it cannot be converted, -1 when it
 * lands before 0 (nothing is counted). */
int import_clock_convert(import_file *f, uint32_t machine, uint64_t clock_id, int64_t ts,
                         int64_t *out);
/* At tokenize time: 1 with *out, ts of clock node `clock` in trace time as
 * the clocks known so far place it (later snapshots may move it), 0 when
 * it cannot be placed yet. */
int import_clock_now(import_file *f, uint32_t clock, int64_t ts, int64_t *out);
/* Clock node of this file's private timeline (clockless formats). */
int import_clock_private(import_file *f, uint32_t *node);
/* Declares node this file's main clock: it may be pinned to trace time at
 * zero offset even when it has snapshot edges (used only when no snapshot
 * path exists). */
int import_clock_anchor(import_file *f, uint32_t node);
/* Relates the file's private clock to builtin clock `clock_id` of its
 * machine at zero offset: the format's timestamps are that clock. A
 * statement of weft's, not a snapshot of the trace (no clock_snapshot row,
 * not counted in snapshot_count); nothing for a pinned file. */
int import_clock_alias(import_file *f, uint64_t clock_id);
/* Adds a snapshot relating several of this file's clocks. */
int import_clock_snapshot(import_file *f, uint32_t sequence,
                          const uint64_t *clock_ids, const int64_t *values,
                          size_t n);
int import_clock_snapshot_on(import_file *f, uint32_t machine,
                             uint32_t sequence, const uint64_t *clock_ids,
                             const int64_t *values, size_t n);
/* Clock-sync markers (clock/clock.h), each half of a sync between two
 * traces of one run, related once both halves are loaded. Ignored in a file
 * the manifest places (PIN or a clocks entry): the manifest decides.
 * named: `clock` read `ts` at the sync named `id`. */
int import_clock_sync_named(import_file *f, uint32_t clock, const char *id, size_t len,
                            int64_t ts);
/* parent: at `ts` of `clock`, the trace-event clock read `parent_ts`. */
int import_clock_sync_parent(import_file *f, uint32_t clock, int64_t ts, int64_t parent_ts);
/* `clock` is a trace-event clock, the one parent markers name (a Chrome
 * JSON file's). */
int import_clock_sync_trace_event_clock(import_file *f, uint32_t clock);
/* Relates builtin clock `clock_id` of machine `from` to the same clock of
 * machine `to`: `to` reads T + offset when `from` reads T (remote clock
 * sync of relayed machines). */
int import_clock_relate_machines(import_file *f, uint32_t from, uint32_t to,
                                 uint64_t clock_id, int64_t offset,
                                 base_error *err);
/* Multi-machine formats call this once, before import_machine, with the
 * distinct non-zero machine ids embedded in the file and whether some data
 * carries no id. Applies the manifest's `machines`/`machine`/`clocks` rules
 * (undeclared ids, overrides on multi-machine files) and fails with their
 * error texts. */
int import_declare_machines(import_file *f, const uint64_t *raw_ids, size_t n,
                            int has_unmarked, base_error *err);
/* For a pass of tokenize over the whole file ahead of its events (a search
 * for rare lines, say): gives back the pages more than IMPORT_SCAN_LAG
 * behind offset `upto`, as import_scan_passed does for scans, when f->data
 * is a file mapping whose pages come back from the page cache if read
 * again (nothing otherwise). *given: the offset given back up to so far
 * (0 at first). So the pass does not leave the whole file resident. */
void import_input_passed(import_file *f, size_t *given, size_t upto);

/* The machine row of data with embedded machine id `raw_id` (0 = none): the
 * manifest's name for it, else the base machine when the file is entirely
 * from one machine ("adopted"), else the machine with that raw id. */
int import_machine(import_file *f, uint64_t raw_id, uint32_t *row,
                   base_error *err);
/* Proposes a trace-time clock for the whole merge (first claimer wins):
 * 1 when it became trace time. */
int import_claim_trace_time(import_file *f, uint64_t clock_id);
/* Adds to a stat scoped to this file's machine and trace. */
int import_stat(import_file *f, stats_id stat, int64_t delta);

/* Work a tokenize hands to the load's worker threads (core/scan.h runs
 * them, in any order while tokenize goes on): run(arg, &result, err) on
 * whichever thread runs the job, with *result NULL on entry; a result left
 * by a failed run is freed with free_result (NULL: the task leaves none).
 * arg belongs to the caller and must stay valid until the job is taken or
 * dropped. import_task_submit sets *job NULL, with status 0, when the load
 * has no workers (--threads 1), and the importer then does the work
 * itself. A submitted job is taken (its result, owned by the caller then)
 * or dropped before tokenize returns. */
typedef struct scan_task {
  int (*run)(void *arg, void **result, base_error *err);
  void (*free_result)(void *result);
  void *arg;
} scan_task;
typedef struct scan_job scan_job;
int import_task_submit(import_file *f, const scan_task *task, scan_job **job);
int import_task_take(import_file *f, scan_job *job, void **result, base_error *err);
void import_task_drop(import_file *f, scan_job *job);

/* The importer of a trace type (import/registry.c), or NULL: weft does
 * not read that type. */
const importer_ops *import_ops_for(io_trace_type type);

extern const importer_ops import_json_ops;
extern const importer_ops import_proto_ops;
extern const importer_ops import_systrace_ops;
extern const importer_ops import_strace_ops;
extern const importer_ops import_perf_text_ops;
extern const importer_ops import_collapsed_stack_ops;
extern const importer_ops import_gecko_ops;
extern const importer_ops import_instruments_ops;
extern const importer_ops import_simpleperf_ops;

#endif
