/* plan: the merge plan, the manifest's rules applied to a load.
 *
 * A merge plan holds the perfetto_manifest of a load, if it has one, and
 * answers what the manifest decides about each file: its base machine, the
 * machines of its embedded ids, whether it is pinned (clockless), the
 * relations between files' clocks and which clock defines trace time. The
 * loader and the importer services ask it; the manifest's checks that need
 * a file's contents (machine ids, snapshots) fail here with the texts of
 * Perfetto's manifest errors.
 * Invariants: at most one manifest per load, read before any trace file;
 * machines the manifest names get their rows in the order it names them,
 * before any file is tokenized. Without a manifest every answer is the
 * default (host machine, no pin, no relation). */
#ifndef WEFT_PLAN_H
#define WEFT_PLAN_H

#include "clock/clock.h"
#include "manifest/manifest.h"
#include "model/context.h"

typedef struct merge_plan {
  manifest manifest;   /* valid when has_manifest */
  int has_manifest;
  int trace_file_seen; /* a trace (non-manifest) file was processed */
  int top_level;       /* the manifest was an input itself, not an archive's
                          member: each of its paths must name an input */
  uint32_t manifest_id; /* with top_level: the manifest's trace_file row */
} merge_plan;

/* A file the plan relates: its manifest path, trace_file row and base
 * machine row. */
typedef struct plan_file {
  const char *path; /* or NULL: not in an archive, not in the manifest */
  uint32_t trace_id;
  uint32_t machine;
} plan_file;

void plan_init(merge_plan *p);
void plan_free(merge_plan *p);

/* Reads a perfetto_manifest file (trace_file row `id`, `len` bytes):
 * validates it in full, writes its metadata rows, makes the machines it
 * names and claims trace time for the clock it names. Fails if the load
 * has a manifest already or a trace file came before it. */
int plan_read_manifest(merge_plan *p, trace_context *ctx, clock_graph *clocks,
                       uint32_t id, const uint8_t *data, size_t len,
                       base_error *err);
/* Notes that a trace file is processed (a manifest after it is an error). */
void plan_note_trace_file(merge_plan *p);

/* The manifest entry of a member path, or NULL. */
const manifest_file *plan_file_entry(const merge_plan *p, const char *path);
/* The path a file is known by in the manifest: its name, or for a file
 * given on the command line (no parent) whose name the manifest lacks, the
 * entry matching its base name. */
const char *plan_manifest_path(const merge_plan *p, int64_t parent, const char *name);
/* Fails when the manifest overrides clocks or machines of a file that is an
 * archive or a manifest itself (`nested`: it is one). */
int plan_check_nested(const merge_plan *p, const char *path, int nested,
                      base_error *err);

/* Machine row 0, the one trace time defaults to: the first machine made
 * (the manifest's first named one, else the host, made now). */
int plan_first_machine(trace_context *ctx, uint32_t *row);
/* The base machine of a file: the manifest's "machine" entry for its path,
 * or its `machines` entry with id 0, else the host. */
int plan_file_machine(const merge_plan *p, trace_context *ctx, const char *path,
                      uint32_t *row);
/* A manifest PIN: the file's clocks are all its private timeline. */
int plan_file_pinned(const merge_plan *p, const char *path);

/* The manifest's rules on the machine ids a file embeds (see
 * import_declare_machines); *multi_machine is set. */
int plan_declare_machines(const merge_plan *p, trace_context *ctx,
                          const plan_file *f, const uint64_t *raw_ids, size_t n,
                          int has_unmarked, int *multi_machine, base_error *err);
/* The machine row of data with embedded id `raw_id` (see import_machine). */
int plan_machine(const merge_plan *p, trace_context *ctx, const plan_file *f,
                 int multi_machine, uint64_t raw_id, uint32_t *row,
                 base_error *err);
/* Checks that need a tokenized file: a pinned file must not bring its own
 * clock snapshots. */
int plan_check_tokenized(const merge_plan *p, const char *path, int pinned,
                         uint32_t snapshot_count, base_error *err);

/* The interpolation of snapshot hops (--clock-interpolation, else the
 * manifest's weft_clock_interpolation, else nearest), the manifest's `clocks`
 * relations between the files of the load, then
 * the default trace time when nothing claimed it: BOOTTIME of machine
 * row 0. */
int plan_place_clocks(const merge_plan *p, trace_context *ctx, clock_graph *clocks,
                      const plan_file *files, size_t n, base_error *err);

/* The index of the name in `names` closest to `name` (edit distance), when
 * close enough to be a likely misspelling of it, else -1 (suggest.c). */
int plan_closest_name(const char *name, const char *const *names, size_t n);

#endif
