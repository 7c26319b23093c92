/* import_host: the services import/importer.h declares, for the files of
 * one load.
 *
 * Owns the load's sorter, its global clock graph and the import_file of
 * every tokenized trace file (index = sorter source). An importer reaches
 * these only through the import_* functions of importer.h, with its
 * import_file: the host is opaque to it. Machine and clock decisions of the
 * manifest come from the merge plan (manifest/plan.h), which the host reads
 * but does not own; worker tasks go to the load's pool (core/ahead.h).
 * Invariants: files only grow until import_host_free_files; a file's
 * source is its index; every clock node an importer gets belongs to the
 * file's (machine, trace) scope. */
#ifndef WEFT_IMPORT_HOST_H
#define WEFT_IMPORT_HOST_H

#include "clock/clock.h"
#include "core/ahead.h"
#include "import/importer.h"
#include "manifest/plan.h"

typedef struct import_host {
  trace_context *ctx;
  const merge_plan *plan;    /* not owned */
  scan_ahead *ahead;         /* not owned: the pool for import_task_* */
  int give_back;             /* give parsed bytes back (release_input) */
  sorter sorter;
  clock_graph clocks;        /* every clock of every file */
  clock_converter converter; /* import_host_convert's cache (sorter's thread) */
  base_map unrelatable_clocks; /* clock nodes already counted as unrelatable */
  VEC(import_file *) files;  /* tokenized trace files; index = source */
} import_host;

int import_host_init(import_host *h, trace_context *ctx, const merge_plan *plan,
                     scan_ahead *ahead, int give_back);
/* Destroys every file's importer state and frees the files. */
void import_host_free_files(import_host *h);
void import_host_free(import_host *h);

/* A new file of trace_file row `trace_id` (`path`: its manifest path, or
 * NULL), its sorter source and base machine set and the manifest's pin
 * applied, ready for ops->tokenize. The host owns it. */
int import_host_open(import_host *h, uint32_t trace_id, const char *path,
                     const char *display, const importer_ops *ops,
                     const uint8_t *data, size_t len, int mapped,
                     import_file **out, base_error *err);

/* The sorter's conversion to trace time (user: the host). An event whose
 * clock cannot reach trace time, or that lands before 0, is dropped and
 * counted: returns 1 then. */
int import_host_convert(void *user, uint32_t source, uint32_t clock, int64_t ts,
                        int64_t *out);

#endif
